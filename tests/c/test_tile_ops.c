/*
 * test_tile_ops.c - the tile kernels (src/tile) op by op and dtype by dtype
 * against plain scalar references: element-wise ops, valid regions,
 * integer division, unary ops, row reductions, FP16/BF16 conversions.
 */
#include "harness.h"
#include "tile_ref.h"
#include "tile/tile_expf.h"

static const tile_dtype all_dtypes[] = {TILE_FP32, TILE_FP16, TILE_BF16, TILE_INT32, TILE_INT8};

/* u's low bits as a signed integer of dt's width. */
static double ref_wrap(tile_dtype dt, uint64_t u)
{
    switch (tile_dtype_size(dt)) {
    case 1: return (int8_t)(uint8_t)u;
    case 2: return (int16_t)(uint16_t)u;
    case 4: return (int32_t)(uint32_t)u;
    default: return (double)(int64_t)u;
    }
}

/* Ops with no float kernel. */
static int ref_int_only(tile_binop op) { return op == TILE_AND || op == TILE_OR || op == TILE_XOR || op == TILE_SHL || op == TILE_SHR; }

static double ref_binop(tile_dtype dt, tile_binop op, double x, double y)
{
    if (!tile_dtype_is_float(dt)) {
        int64_t a = (int64_t)x, b = (int64_t)y, r = 0, w = 8 * (int64_t)tile_dtype_size(dt);
        switch (op) {
        case TILE_ADD: case TILE_PART_ADD: r = a + b; break;
        case TILE_SUB: r = a - b; break;
        case TILE_MUL: case TILE_PART_MUL: r = a * b; break;
        case TILE_DIV: r = a / b; break;
        case TILE_MAX: case TILE_PART_MAX: r = a > b ? a : b; break;
        case TILE_MIN: case TILE_PART_MIN: r = a < b ? a : b; break;
        case TILE_REM: r = a % b; if (r != 0 && (r < 0) != (b < 0)) r += b; break; /* Python's a % b */
        case TILE_FMOD: r = a % b; break;
        case TILE_CMP_EQ: r = a == b; break;
        case TILE_CMP_NE: r = a != b; break;
        case TILE_CMP_LT: r = a < b; break;
        case TILE_CMP_LE: r = a <= b; break;
        case TILE_CMP_GT: r = a > b; break;
        case TILE_CMP_GE: r = a >= b; break;
        case TILE_PRELU: r = a > 0 ? a : a * b; break;
        case TILE_LRELU: r = (int64_t)ref_wrap(dt, (uint64_t)(a * b)); r = r > a ? r : a; break;
        case TILE_AND: r = a & b; break;
        case TILE_OR: r = a | b; break;
        case TILE_XOR: r = a ^ b; break;
        case TILE_SHL: return b < 0 || b >= w ? 0 : ref_wrap(dt, (uint64_t)a << b);
        case TILE_SHR: return b < 0 || b >= w ? (a < 0 ? -1 : 0) : (double)(a < 0 ? -((-a - 1) / ((int64_t)1 << b)) - 1 : a / ((int64_t)1 << b));
        }
        return ref_round(dt, (double)r);
    }
    float a = (float)x, b = (float)y, r = 0;
    switch (op) {
    case TILE_ADD: case TILE_PART_ADD: r = a + b; break; /* fully valid: a part op is its op */
    case TILE_SUB: r = a - b; break;
    case TILE_MUL: case TILE_PART_MUL: r = a * b; break;
    case TILE_DIV: r = a / b; break;
    case TILE_MAX: case TILE_PART_MAX: r = a > b ? a : b; break;
    case TILE_MIN: case TILE_PART_MIN: r = a < b ? a : b; break;
    case TILE_REM: r = (float)fmod(a, b); if (r != 0 && (r < 0) != (b < 0)) r += b; break;
    case TILE_FMOD: r = (float)fmod(a, b); break;
    case TILE_CMP_EQ: r = a == b; break;
    case TILE_CMP_NE: r = a != b; break;
    case TILE_CMP_LT: r = a < b; break;
    case TILE_CMP_LE: r = a <= b; break;
    case TILE_CMP_GT: r = a > b; break;
    case TILE_CMP_GE: r = a >= b; break;
    case TILE_PRELU: r = a > 0 ? a : a * b; break;
    case TILE_LRELU: r = a * b > a ? a * b : a; break;
    case TILE_AND: case TILE_OR: case TILE_XOR: case TILE_SHL: case TILE_SHR: break;
    }
    return ref_round(dt, r);
}

static void expect_equal(double got, double want, const char *what, tile_dtype dt, int op, int64_t i)
{
    if (got == want || (got != got && want != want)) return;
    fail_msg("%s %s op %d element %lld: got %.9g, want %.9g", what, tile_dtype_name(dt), op, (long long)i, got, want);
}

static void test_tile_binary_every_op_and_dtype(void **state)
{
    (void)state;
    char msg[256];
    for (size_t k = 0; k < 5; k++) {
        tile_dtype dt = all_dtypes[k];
        for (int op = 0; op < TILE_BINOP_COUNT; op++) {
            tile a = ref_tile2(dt, 5, 37), b = ref_tile2(dt, 5, 37), d = ref_tile2(dt, 5, 37);
            ref_fill(&a, 1u + (unsigned)op, 0);
            ref_fill(&b, 99u + (unsigned)op, 1);
            if (tile_dtype_is_float(dt) && ref_int_only((tile_binop)op)) {
                assert_int_equal(tile_binary(&d, &a, &b, (tile_binop)op, msg, sizeof msg), -1);
                assert_non_null(strstr(msg, "requires an integer tile, got"));
                free(a.data), free(b.data), free(d.data);
                continue;
            }
            assert_int_equal(tile_binary(&d, &a, &b, (tile_binop)op, msg, sizeof msg), 0);
            for (int64_t i = 0; i < tile_count(&d); i++)
                expect_equal(ref_get(&d, i), ref_binop(dt, (tile_binop)op, ref_get(&a, i), ref_get(&b, i)), "tile-tile", dt, op, i);
            /* tile-scalar, the scalar converted to the dtype; in place */
            tile_scalar s;
            if (tile_dtype_is_float(dt)) s.f = -1.375;
            else s.i = 3;
            double sv = tile_dtype_is_float(dt) ? -1.375 : 3;
            tile ref = ref_tile2(dt, 5, 37);
            memcpy(ref.data, a.data, (size_t)tile_bytes(&a));
            assert_int_equal(tile_binary_scalar(&a, &a, s, (tile_binop)op, msg, sizeof msg), 0);
            for (int64_t i = 0; i < tile_count(&a); i++)
                expect_equal(ref_get(&a, i), ref_binop(dt, (tile_binop)op, ref_get(&ref, i), sv), "tile-scalar", dt, op, i);
            free(a.data), free(b.data), free(d.data), free(ref.data);
        }
    }
}

static void test_tile_binary_valid_region_is_intersection_rest_zero(void **state)
{
    (void)state;
    char msg[256];
    tile a = ref_tile2(TILE_FP32, 4, 8), b = ref_tile2(TILE_FP32, 4, 8), d = ref_tile2(TILE_FP32, 4, 8);
    a.valid[0] = 3, a.valid[1] = 8, b.valid[0] = 4, b.valid[1] = 5;
    ref_fill(&a, 3, 0), ref_fill(&b, 4, 1);
    assert_int_equal(tile_binary(&d, &a, &b, TILE_ADD, msg, sizeof msg), 0);
    assert_int_equal(d.valid[0], 3);
    assert_int_equal(d.valid[1], 5);
    for (int64_t i = 0; i < 4; i++)
        for (int64_t j = 0; j < 8; j++) {
            double want = i < 3 && j < 5 ? (float)(ref_get(&a, i * 8 + j) + ref_get(&b, i * 8 + j)) : 0;
            assert_true(ref_get(&d, i * 8 + j) == want);
        }
    /* exp of the padding would be 1: it must stay 0 */
    assert_int_equal(tile_unary(&d, &d, TILE_EXP, msg, sizeof msg), 0);
    assert_true(ref_get(&d, 3 * 8 + 7) == 0 && ref_get(&d, 0 * 8 + 6) == 0);
    free(a.data), free(b.data), free(d.data);
}

static void test_tile_int_div_truncates_toward_zero_and_wraps(void **state)
{
    (void)state;
    char msg[256];
    tile a = ref_tile2(TILE_INT32, 1, 4), b = ref_tile2(TILE_INT32, 1, 4), d = ref_tile2(TILE_INT32, 1, 4);
    int32_t av[] = {-7, 7, INT32_MIN, INT32_MAX}, bv[] = {2, -2, -1, 1};
    memcpy(a.data, av, sizeof av), memcpy(b.data, bv, sizeof bv);
    assert_int_equal(tile_binary(&d, &a, &b, TILE_DIV, msg, sizeof msg), 0);
    int32_t *o = d.data;
    assert_int_equal(o[0], -3);
    assert_int_equal(o[1], -3);
    assert_int_equal(o[2], INT32_MIN);
    assert_int_equal(o[3], INT32_MAX);
    assert_int_equal(tile_binary_scalar(&d, &a, (tile_scalar){.i = 1}, TILE_ADD, msg, sizeof msg), 0);
    assert_int_equal(o[3], INT32_MIN);
    free(a.data), free(b.data), free(d.data);
}

static void test_tile_int_division_by_zero_fails(void **state)
{
    (void)state;
    char msg[256];
    tile a = ref_tile2(TILE_INT8, 2, 3), b = ref_tile2(TILE_INT8, 2, 3), d = ref_tile2(TILE_INT8, 2, 3);
    ref_fill(&a, 1, 0), ref_fill(&b, 2, 1);
    ((int8_t *)b.data)[4] = 0;
    assert_int_equal(tile_binary(&d, &a, &b, TILE_DIV, msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.div: integer division by zero");
    assert_int_equal(tile_binary_scalar(&d, &a, (tile_scalar){.i = 0}, TILE_DIV, msg, sizeof msg), -1);
    /* a zero outside the valid region is not divided by */
    b.valid[1] = 1;
    ((int8_t *)b.data)[4] = 0;
    assert_int_equal(tile_binary(&d, &a, &b, TILE_DIV, msg, sizeof msg), 0);
    free(a.data), free(b.data), free(d.data);
}

static double ref_unop(tile_dtype dt, tile_unop op, double x)
{
    float f = (float)x;
    switch (op) {
    case TILE_EXP: return ref_round(dt, tile_expf(f));
    case TILE_SQRT: return ref_round(dt, sqrtf(f));
    case TILE_NEG: return ref_round(dt, -x);
    case TILE_ABS: return ref_round(dt, fabs(x));
    case TILE_RELU: return ref_round(dt, x > 0 ? x : 0);
    case TILE_LOG: return ref_round(dt, logf(f));
    case TILE_RSQRT: return ref_round(dt, 1.0f / sqrtf(f));
    case TILE_RECIP: return ref_round(dt, 1.0f / f);
    case TILE_SIN: return ref_round(dt, sinf(f));
    case TILE_COS: return ref_round(dt, cosf(f));
    case TILE_NOT: return ref_round(dt, (double)~(int64_t)x);
    }
    return 0;
}

/* Ops with no integer kernel. */
static int ref_float_only(tile_unop op)
{
    return op == TILE_EXP || op == TILE_SQRT || op == TILE_LOG || op == TILE_RSQRT || op == TILE_RECIP || op == TILE_SIN || op == TILE_COS;
}

static void test_tile_unary_every_op_and_dtype(void **state)
{
    (void)state;
    char msg[256];
    for (size_t k = 0; k < 5; k++) {
        tile_dtype dt = all_dtypes[k];
        for (int op = 0; op < TILE_UNOP_COUNT; op++) {
            tile a = ref_tile2(dt, 3, 19), d = ref_tile2(dt, 3, 19);
            ref_fill(&a, 5u + (unsigned)op, 0);
            if ((op == TILE_SQRT || op == TILE_LOG || op == TILE_RSQRT) && tile_dtype_is_float(dt))
                for (int64_t i = 0; i < tile_count(&a); i++) ref_set(&a, i, fabs(ref_get(&a, i)));
            int rc = tile_unary(&d, &a, (tile_unop)op, msg, sizeof msg);
            if (!tile_dtype_is_float(dt) && ref_float_only((tile_unop)op)) {
                assert_int_equal(rc, -1);
                assert_non_null(strstr(msg, "requires a floating-point tile, got"));
            } else if (tile_dtype_is_float(dt) && op == TILE_NOT) {
                assert_int_equal(rc, -1);
                assert_non_null(strstr(msg, "requires an integer tile, got"));
            } else {
                assert_int_equal(rc, 0);
                for (int64_t i = 0; i < tile_count(&d); i++) expect_equal(ref_get(&d, i), ref_unop(dt, (tile_unop)op, ref_get(&a, i)), "unary", dt, op, i);
            }
            free(a.data), free(d.data);
        }
    }
    /* integer neg and abs wrap */
    tile a = ref_tile2(TILE_INT8, 1, 1), d = ref_tile2(TILE_INT8, 1, 1);
    ((int8_t *)a.data)[0] = INT8_MIN;
    assert_int_equal(tile_unary(&d, &a, TILE_NEG, msg, sizeof msg), 0);
    assert_int_equal(((int8_t *)d.data)[0], INT8_MIN);
    free(a.data), free(d.data);
}

static void test_tile_row_sum_and_row_max_over_the_valid_region(void **state)
{
    (void)state;
    char msg[256];
    for (size_t k = 0; k < 5; k++) {
        tile_dtype dt = all_dtypes[k];
        tile a = ref_tile2(dt, 6, 40), s = ref_tile2(dt, 6, 1), m = ref_tile2(dt, 6, 1);
        a.valid[0] = 5, a.valid[1] = 33;
        ref_fill(&a, 11, 0);
        assert_int_equal(tile_row_reduce(&s, &a, TILE_ROW_SUM, msg, sizeof msg), 0);
        assert_int_equal(tile_row_reduce(&m, &a, TILE_ROW_MAX, msg, sizeof msg), 0);
        assert_int_equal(s.valid[0], 5);
        assert_int_equal(s.valid[1], 1);
        for (int64_t r = 0; r < 6; r++) {
            float fs = 0, mx = -INFINITY;
            int64_t is = 0;
            for (int64_t c = 0; c < 33 && r < 5; c++) {
                double x = ref_get(&a, r * 40 + c);
                fs += (float)x, is += (int64_t)x;
                if (x > mx) mx = (float)x;
            }
            double want_s = r == 5 ? 0 : tile_dtype_is_float(dt) ? ref_round(dt, fs) : ref_round(dt, (double)is);
            double want_m = r == 5 ? 0 : mx;
            expect_equal(ref_get(&s, r), want_s, "row_sum", dt, 0, r);
            expect_equal(ref_get(&m, r), want_m, "row_max", dt, 0, r);
        }
        free(a.data), free(s.data), free(m.data);
    }
    tile a3 = ref_tile(TILE_FP32, 3, (int64_t[]){2, 2, 2}), s = ref_tile2(TILE_FP32, 2, 1);
    assert_int_equal(tile_row_reduce(&s, &a3, TILE_ROW_SUM, msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.row_sum requires a rank-2 tile, got rank 3");
    free(a3.data), free(s.data);
}

static void test_tile_half_conversions_round_to_nearest_even(void **state)
{
    (void)state;
    char msg[256];
    tile h = ref_tile2(TILE_FP16, 256, 256), b = ref_tile2(TILE_BF16, 256, 256), f = ref_tile2(TILE_FP32, 256, 256);
    /* every FP16 bit pattern widens exactly */
    for (int64_t i = 0; i < 65536; i++) ((uint16_t *)h.data)[i] = (uint16_t)i;
    assert_int_equal(tile_cast(&f, &h, TILE_RINT, msg, sizeof msg), 0);
    for (int64_t i = 0; i < 65536; i++) {
        float want = ref_f16_val((uint16_t)i), got = ((float *)f.data)[i];
        assert_true(got == want || (got != got && want != want));
    }
    /* FP32 -> FP16 / BF16 on spread-out bit patterns, ties and edges included */
    unsigned seed = 7;
    for (int64_t i = 0; i < 65536; i++) {
        seed = seed * 1664525u + 1013904223u;
        uint32_t u = i < 8 ? (uint32_t[]){0x3F808000u, 0x3F818000u, 0x477FF000u, 0x477FEFFFu, 0x33000000u, 0x7F800000u, 0x7FC00001u, 0x80000001u}[i] : seed;
        ((float *)f.data)[i] = ref_bits_f(u);
    }
    assert_int_equal(tile_cast(&h, &f, TILE_RINT, msg, sizeof msg), 0);
    assert_int_equal(tile_cast(&b, &f, TILE_RINT, msg, sizeof msg), 0);
    for (int64_t i = 0; i < 65536; i++) {
        float x = ((float *)f.data)[i];
        uint16_t gh = ((uint16_t *)h.data)[i], gb = ((uint16_t *)b.data)[i];
        if (x != x) {
            assert_true((gh & 0x7C00) == 0x7C00 && (gh & 0x3FF));
            assert_true((gb & 0x7F80) == 0x7F80 && (gb & 0x7F));
            continue;
        }
        if (gh != ref_f16(x)) fail_msg("fp16 of %a: got %04x want %04x", x, gh, ref_f16(x));
        if (gb != ref_bf16(x)) fail_msg("bf16 of %a: got %04x want %04x", x, gb, ref_bf16(x));
    }
    free(h.data), free(b.data), free(f.data);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_tile_binary_every_op_and_dtype),
    cmocka_unit_test(test_tile_binary_valid_region_is_intersection_rest_zero),
    cmocka_unit_test(test_tile_int_div_truncates_toward_zero_and_wraps),
    cmocka_unit_test(test_tile_int_division_by_zero_fails),
    cmocka_unit_test(test_tile_unary_every_op_and_dtype),
    cmocka_unit_test(test_tile_row_sum_and_row_max_over_the_valid_region),
    cmocka_unit_test(test_tile_half_conversions_round_to_nearest_even),
};

PTO_TEST_MAIN(tests)
