/*
 * test_tile_p5_elem.c - the edge cases of the element-wise kernels added
 * with the rest of the op catalog (docs/dsl.md, Operations): floored and
 * truncated remainders, integer division by zero, comparisons with NaN,
 * shifts by counts outside [0, bits) (tile and scalar counts), the ReLU
 * family, bitwise ops refusing float tiles, empty valid regions.  Every
 * op and dtype against a reference: test_tile_ops.c.
 */
#include "harness.h"
#include "tile_ref.h"

static void put(tile *t, const double *v, int64_t n)
{
    for (int64_t i = 0; i < n; i++) ref_set(t, i, v[i]);
}

static void expect(const tile *t, const double *want, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        if (ref_get(t, i) != want[i]) fail_msg("element %lld: got %.9g, want %.9g", (long long)i, ref_get(t, i), want[i]);
}

static void test_tile_rem_is_floored_and_fmod_truncated(void **s)
{
    (void)s;
    char msg[256];
    static const double x[] = {7, -7, 7, -7, 0, -128}, y[] = {3, 3, -3, -3, 5, -1};
    static const double rem[] = {1, 2, -2, -1, 0, 0}, fmod_[] = {1, -1, 1, -1, 0, 0};
    tile_dtype dts[] = {TILE_INT8, TILE_INT32, TILE_FP32, TILE_BF16};
    for (size_t k = 0; k < 4; k++) {
        tile a = ref_tile2(dts[k], 1, 6), b = ref_tile2(dts[k], 1, 6), d = ref_tile2(dts[k], 1, 6);
        put(&a, x, 6), put(&b, y, 6);
        assert_int_equal(tile_binary(&d, &a, &b, TILE_REM, msg, sizeof msg), 0);
        expect(&d, rem, 6);
        assert_int_equal(tile_binary(&d, &a, &b, TILE_FMOD, msg, sizeof msg), 0);
        expect(&d, fmod_, 6);
        free(a.data), free(b.data), free(d.data);
    }
    /* float: the sign of 0, a non-integral remainder, a zero divisor is NaN */
    tile a = ref_tile2(TILE_FP32, 1, 3), b = ref_tile2(TILE_FP32, 1, 3), d = ref_tile2(TILE_FP32, 1, 3);
    put(&a, (double[]){5.5, -5.5, 1}, 3), put(&b, (double[]){2, 2, 0}, 3);
    assert_int_equal(tile_binary(&d, &a, &b, TILE_REM, msg, sizeof msg), 0);
    assert_true(ref_get(&d, 0) == 1.5 && ref_get(&d, 1) == 0.5 && isnan(ref_get(&d, 2)));
    free(a.data), free(b.data), free(d.data);
}

static void test_tile_rem_and_fmod_integer_division_by_zero_fails(void **s)
{
    (void)s;
    char msg[256];
    tile a = ref_tile2(TILE_INT16, 1, 2), b = ref_tile2(TILE_INT16, 1, 2), d = ref_tile2(TILE_INT16, 1, 2);
    put(&a, (double[]){4, 5}, 2), put(&b, (double[]){2, 0}, 2);
    assert_int_equal(tile_binary(&d, &a, &b, TILE_REM, msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.rem: integer division by zero");
    assert_int_equal(tile_binary_scalar(&d, &a, (tile_scalar){.i = 0}, TILE_FMOD, msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.fmod: integer division by zero");
    b.valid[1] = 1; /* the zero is outside the valid region */
    assert_int_equal(tile_binary(&d, &a, &b, TILE_REM, msg, sizeof msg), 0);
    free(a.data), free(b.data), free(d.data);
}

static void test_tile_cmp_with_nan_only_ne_holds(void **s)
{
    (void)s;
    char msg[256];
    tile a = ref_tile2(TILE_FP16, 1, 3), b = ref_tile2(TILE_FP16, 1, 3), d = ref_tile2(TILE_FP16, 1, 3);
    put(&a, (double[]){NAN, 1, 2}, 3), put(&b, (double[]){1, NAN, 2}, 3);
    static const double want[6][3] = {{0, 0, 1}, {1, 1, 0}, {0, 0, 0}, {0, 0, 1}, {0, 0, 0}, {0, 0, 1}};
    for (int m = 0; m < 6; m++) {
        assert_int_equal(tile_binary(&d, &a, &b, (tile_binop)(TILE_CMP_EQ + m), msg, sizeof msg), 0);
        expect(&d, want[m], 3);
    }
    free(a.data), free(b.data), free(d.data);
}

static void test_tile_shift_counts_outside_the_width_shift_every_bit_out(void **s)
{
    (void)s;
    char msg[256];
    static const tile_dtype dts[] = {TILE_INT8, TILE_INT16, TILE_INT32, TILE_INT64};
    for (size_t k = 0; k < 4; k++) {
        double w = 8.0 * (double)tile_dtype_size(dts[k]);
        tile a = ref_tile2(dts[k], 1, 5), b = ref_tile2(dts[k], 1, 5), d = ref_tile2(dts[k], 1, 5);
        put(&a, (double[]){-5, -5, 5, -1, 3}, 5), put(&b, (double[]){1, w, w, -1, w - 1}, 5);
        assert_int_equal(tile_binary(&d, &a, &b, TILE_SHR, msg, sizeof msg), 0);
        expect(&d, (double[]){-3, -1, 0, -1, 0}, 5);
        assert_int_equal(tile_binary(&d, &a, &b, TILE_SHL, msg, sizeof msg), 0);
        expect(&d, (double[]){-10, 0, 0, 0, -ldexp(1, (int)w - 1)}, 5); /* 3 << (w - 1): only the sign bit stays */
        /* a scalar count: wide, negative, at the width */
        static const int64_t counts[] = {1000, -3, 64};
        for (int c = 0; c < 3; c++) {
            assert_int_equal(tile_binary_scalar(&d, &a, (tile_scalar){.i = counts[c]}, TILE_SHR, msg, sizeof msg), 0);
            expect(&d, (double[]){-1, -1, 0, -1, 0}, 5);
            assert_int_equal(tile_binary_scalar(&d, &a, (tile_scalar){.i = counts[c]}, TILE_SHL, msg, sizeof msg), 0);
            expect(&d, (double[]){0, 0, 0, 0, 0}, 5);
        }
        assert_int_equal(tile_binary_scalar(&d, &a, (tile_scalar){.i = 2}, TILE_SHL, msg, sizeof msg), 0);
        expect(&d, (double[]){-20, -20, 20, -4, 12}, 5);
        free(a.data), free(b.data), free(d.data);
    }
}

static void test_tile_bitwise_ops_take_integer_tiles_only(void **s)
{
    (void)s;
    char msg[256];
    tile a = ref_tile2(TILE_INT32, 1, 3), b = ref_tile2(TILE_INT32, 1, 3), d = ref_tile2(TILE_INT32, 1, 3);
    put(&a, (double[]){12, -1, 0x0F0}, 3), put(&b, (double[]){10, 6, 0x0FF}, 3);
    assert_int_equal(tile_binary(&d, &a, &b, TILE_AND, msg, sizeof msg), 0);
    expect(&d, (double[]){8, 6, 0x0F0}, 3);
    assert_int_equal(tile_binary(&d, &a, &b, TILE_OR, msg, sizeof msg), 0);
    expect(&d, (double[]){14, -1, 0x0FF}, 3);
    assert_int_equal(tile_binary_scalar(&d, &a, (tile_scalar){.i = -1}, TILE_XOR, msg, sizeof msg), 0);
    expect(&d, (double[]){-13, 0, -0x0F1}, 3);
    assert_int_equal(tile_unary(&d, &a, TILE_NOT, msg, sizeof msg), 0);
    expect(&d, (double[]){-13, 0, -0x0F1}, 3);
    tile f = ref_tile2(TILE_FP32, 1, 3), g = ref_tile2(TILE_FP32, 1, 3);
    assert_int_equal(tile_binary(&g, &f, &f, TILE_XOR, msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.xor requires an integer tile, got FP32");
    assert_int_equal(tile_binary_scalar(&g, &f, (tile_scalar){.i = 1}, TILE_SHL, msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.shl requires an integer tile, got FP32");
    assert_int_equal(tile_unary(&g, &f, TILE_NOT, msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.not_ requires an integer tile, got FP32");
    free(a.data), free(b.data), free(d.data), free(f.data), free(g.data);
}

static void test_tile_prelu_and_lrelu(void **s)
{
    (void)s;
    char msg[256];
    tile a = ref_tile2(TILE_FP32, 1, 4), b = ref_tile2(TILE_FP32, 1, 4), d = ref_tile2(TILE_FP32, 1, 4);
    put(&a, (double[]){-2, 3, 0, -4}, 4), put(&b, (double[]){0.5, 0.5, 2, 2}, 4);
    assert_int_equal(tile_binary(&d, &a, &b, TILE_PRELU, msg, sizeof msg), 0);
    expect(&d, (double[]){-1, 3, 0, -8}, 4);
    /* lrelu is max(x, slope * x): a slope above 1 scales the positive side */
    assert_int_equal(tile_binary_scalar(&d, &a, (tile_scalar){.f = 0.25}, TILE_LRELU, msg, sizeof msg), 0);
    expect(&d, (double[]){-0.5, 3, 0, -1}, 4);
    assert_int_equal(tile_binary_scalar(&d, &a, (tile_scalar){.f = 2}, TILE_LRELU, msg, sizeof msg), 0);
    expect(&d, (double[]){-2, 6, 0, -4}, 4);
    free(a.data), free(b.data), free(d.data);
}

static void test_tile_new_elementwise_ops_keep_an_empty_valid_region_empty(void **s)
{
    (void)s;
    char msg[256];
    tile a = ref_tile2(TILE_INT32, 2, 4), b = ref_tile2(TILE_INT32, 2, 4), d = ref_tile2(TILE_INT32, 2, 4);
    ref_fill(&a, 3, 0), ref_fill(&b, 4, 0); /* b holds zeros: none is divided by */
    a.valid[0] = 0;
    for (int op = TILE_REM; op < TILE_PART_ADD; op++) { /* the part ops: the union (below) */
        memset(d.data, 0x55, (size_t)tile_bytes(&d));
        assert_int_equal(tile_binary(&d, &a, &b, (tile_binop)op, msg, sizeof msg), 0);
        assert_int_equal(d.valid[0], 0);
        for (int64_t i = 0; i < 8; i++) assert_true(ref_get(&d, i) == 0);
    }
    free(a.data), free(b.data), free(d.data);
}

static void test_tile_part_ops_cover_the_union_of_the_valid_regions(void **s)
{
    (void)s;
    char msg[256];
    static const tile_binop ops[] = {TILE_PART_ADD, TILE_PART_MUL, TILE_PART_MAX, TILE_PART_MIN};
    static const tile_dtype dts[] = {TILE_FP32, TILE_BF16, TILE_INT8, TILE_INT64};
    for (size_t k = 0; k < 4; k++)
        for (size_t o = 0; o < 4; o++) {
            tile a = ref_tile2(dts[k], 4, 6), b = ref_tile2(dts[k], 4, 6), d = ref_tile2(dts[k], 4, 6);
            a.valid[0] = 3, a.valid[1] = 4, b.valid[0] = 2;
            ref_fill(&a, 5, 0), ref_fill(&b, 6, 0);
            memset(d.data, 0x55, (size_t)tile_bytes(&d));
            tile *in_place = o % 2 ? &a : &d; /* the result over an operand, as element-wise ops may */
            tile ac = ref_tile2(dts[k], 4, 6);
            ac.valid[0] = 3, ac.valid[1] = 4;
            memcpy(ac.data, a.data, (size_t)tile_bytes(&a));
            assert_int_equal(tile_binary(in_place, &a, &b, ops[o], msg, sizeof msg), 0);
            assert_true(in_place->valid[0] == 3 && in_place->valid[1] == 6);
            for (int64_t r = 0; r < 4; r++)
                for (int64_t c = 0; c < 6; c++) {
                    double x = ref_get(&ac, r * 6 + c), y = ref_get(&b, r * 6 + c), want = 0;
                    int ina = r < 3 && c < 4, inb = r < 2;
                    if (ina && inb)
                        want = ref_round(dts[k], o == 0 ? x + y : o == 1 ? x * y : o == 2 ? (x > y ? x : y) : (x < y ? x : y));
                    else if (ina || inb)
                        want = ina ? x : y;
                    if (ref_get(in_place, r * 6 + c) != want)
                        fail_msg("%s op %zu [%lld, %lld]: got %g want %g", tile_dtype_name(dts[k]), o, (long long)r, (long long)c,
                                 ref_get(in_place, r * 6 + c), want);
                }
            free(a.data), free(b.data), free(d.data), free(ac.data);
        }
}

static void test_tile_sel_picks_by_a_mask_of_any_dtype_and_addc_rounds_once(void **s)
{
    (void)s;
    char msg[256];
    tile m = ref_tile2(TILE_FP16, 1, 5), a = ref_tile2(TILE_INT64, 1, 5), b = ref_tile2(TILE_INT64, 1, 5), d = ref_tile2(TILE_INT64, 1, 5);
    put(&m, (double[]){0, -0.0, 1, NAN, -2}, 5), put(&a, (double[]){1, 2, 3, 4, 5}, 5), put(&b, (double[]){-1, -2, -3, -4, -5}, 5);
    ((int64_t *)a.data)[4] = INT64_MIN; /* bits copied whole */
    assert_int_equal(tile_ternary(&d, &m, &b, (tile_scalar){0}, &a, TILE_SEL, msg, sizeof msg), 0);
    assert_true(((int64_t *)d.data)[0] == -1 && ((int64_t *)d.data)[1] == -2 && ((int64_t *)d.data)[2] == 3 && ((int64_t *)d.data)[3] == 4 &&
                ((int64_t *)d.data)[4] == INT64_MIN);
    assert_int_equal(tile_ternary(&d, &m, NULL, (tile_scalar){.i = 9}, &a, TILE_SEL, msg, sizeof msg), 0);
    expect(&d, (double[]){9, 9, 3, 4, (double)INT64_MIN}, 5);
    /* FP16: 2048 + 1 + 1 in FP32 is 2050, exact in FP16; rounding after each add would give 2048 */
    tile x = ref_tile2(TILE_FP16, 1, 2), y = ref_tile2(TILE_FP16, 1, 2), z = ref_tile2(TILE_FP16, 1, 2), o = ref_tile2(TILE_FP16, 1, 2);
    put(&x, (double[]){2048, 1}, 2), put(&y, (double[]){1, 2}, 2), put(&z, (double[]){1, 3}, 2);
    assert_int_equal(tile_ternary(&o, &x, &y, (tile_scalar){0}, &z, TILE_ADDC, msg, sizeof msg), 0);
    expect(&o, (double[]){2050, 6}, 2);
    assert_int_equal(tile_ternary(&o, &x, NULL, (tile_scalar){.f = 0.5}, &z, TILE_SUBC, msg, sizeof msg), 0);
    expect(&o, (double[]){2046, -2.5}, 2);
    /* integers wrap; the valid region is the intersection */
    tile i = ref_tile2(TILE_INT8, 2, 2), j = ref_tile2(TILE_INT8, 2, 2), r = ref_tile2(TILE_INT8, 2, 2);
    put(&i, (double[]){100, 100, 1, 1}, 4), put(&j, (double[]){100, -100, 1, 1}, 4);
    j.valid[0] = 1;
    assert_int_equal(tile_ternary(&r, &i, &j, (tile_scalar){0}, &i, TILE_ADDC, msg, sizeof msg), 0);
    assert_true(r.valid[0] == 1 && r.valid[1] == 2);
    expect(&r, (double[]){44, 100, 0, 0}, 4);
    tile bad = ref_tile2(TILE_BOOL, 2, 2);
    assert_int_equal(tile_ternary(&r, &bad, &i, (tile_scalar){0}, &i, TILE_SEL, msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.sel does not accept BOOL tiles; cast first");
    free(m.data), free(a.data), free(b.data), free(d.data), free(x.data), free(y.data), free(z.data), free(o.data);
    free(i.data), free(j.data), free(r.data), free(bad.data);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_tile_sel_picks_by_a_mask_of_any_dtype_and_addc_rounds_once),
    cmocka_unit_test(test_tile_part_ops_cover_the_union_of_the_valid_regions),
    cmocka_unit_test(test_tile_rem_is_floored_and_fmod_truncated),
    cmocka_unit_test(test_tile_rem_and_fmod_integer_division_by_zero_fails),
    cmocka_unit_test(test_tile_cmp_with_nan_only_ne_holds),
    cmocka_unit_test(test_tile_shift_counts_outside_the_width_shift_every_bit_out),
    cmocka_unit_test(test_tile_bitwise_ops_take_integer_tiles_only),
    cmocka_unit_test(test_tile_prelu_and_lrelu),
    cmocka_unit_test(test_tile_new_elementwise_ops_keep_an_empty_valid_region_empty),
};

PTO_TEST_MAIN(tests)
