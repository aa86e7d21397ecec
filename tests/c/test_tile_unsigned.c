/*
 * test_tile_unsigned.c - the tile kernels on UINT8, UINT16 and UINT32 tiles
 * (docs/dsl.md, "Dtypes"): one test per rule.  Elements read zero-extended;
 * + - * and neg wrap modulo 2^bits; a scalar operand wraps to the tile's
 * dtype; division has no MIN / -1 case; comparisons, extrema and >> are
 * unsigned (>> logical); casts saturate to [0, 2^bits); sums and products
 * wrap; pads are the unsigned range's ends; the atomic store wraps;
 * arange, random, gatherb offsets and the UINT8 matmul (INT32 result) take
 * them; sel and addc copy and wrap.
 */
#include "harness.h"
#include "tile_ref.h"

/* A [1, n] tile of dtype dt holding v[0..n) (bits of each value's low bytes). */
static tile un_row(tile_dtype dt, int64_t n, const int64_t *v)
{
    tile t = ref_tile2(dt, 1, n);
    for (int64_t k = 0; k < n; k++) tile_fill((char *)t.data + k * (int64_t)tile_dtype_size(dt), dt, (tile_scalar){.i = v[k]}, 1);
    return t;
}

/* Element k of an integer tile as its dtype reads it (zero-extended for the unsigned ones). */
static int64_t un_at(const tile *t, int64_t k)
{
    tile_scalar v;
    char msg[64];
    assert_int_equal(tile_read(t, (int64_t[]){k}, 1, &v, msg, sizeof msg), 0);
    return v.i;
}

static void test_tile_unsigned_elements_read_zero_extended(void **s)
{
    (void)s;
    char msg[128];
    tile t = un_row(TILE_UINT32, 3, (int64_t[]){-1, 0x80000000ll, 7});
    assert_true(un_at(&t, 0) == 4294967295ll && un_at(&t, 1) == 0x80000000ll && un_at(&t, 2) == 7);
    tile b = un_row(TILE_UINT8, 2, (int64_t[]){255, 256 + 3}), h = un_row(TILE_UINT16, 1, (int64_t[]){-2});
    assert_true(un_at(&b, 0) == 255 && un_at(&b, 1) == 3 && un_at(&h, 0) == 65534); /* fills wrap */
    uint32_t mem[2] = {0xFFFFFFFFu, 0};
    tile_tensor tt = {.addr = (char *)mem, .dtype = TILE_UINT32, .rank = 1, .shape = {2}, .strides = {1}};
    tile_scalar v;
    assert_int_equal(tile_tensor_read(&tt, (int64_t[]){0}, 1, &v, msg, sizeof msg), 0);
    assert_true(v.i == 4294967295ll);
    assert_int_equal(tile_tensor_write(&tt, (int64_t[]){1}, 1, (tile_scalar){.i = -1}, msg, sizeof msg), 0);
    assert_true(mem[1] == 0xFFFFFFFFu);
    free(t.data), free(b.data), free(h.data);
}

static void test_tile_unsigned_add_sub_mul_neg_wrap(void **s)
{
    (void)s;
    char msg[128];
    tile a = un_row(TILE_UINT16, 4, (int64_t[]){0, 65535, 300, 1}), b = un_row(TILE_UINT16, 4, (int64_t[]){1, 1, 300, 0});
    tile d = ref_tile2(TILE_UINT16, 1, 4);
    assert_int_equal(tile_binary(&d, &a, &b, TILE_SUB, msg, sizeof msg), 0);
    assert_true(un_at(&d, 0) == 65535 && un_at(&d, 1) == 65534);
    assert_int_equal(tile_binary(&d, &a, &b, TILE_ADD, msg, sizeof msg), 0);
    assert_true(un_at(&d, 1) == 0 && un_at(&d, 2) == 600);
    assert_int_equal(tile_binary(&d, &a, &b, TILE_MUL, msg, sizeof msg), 0);
    assert_true(un_at(&d, 2) == (300 * 300) % 65536 && un_at(&d, 1) == 65535);
    assert_int_equal(tile_unary(&d, &a, TILE_NEG, msg, sizeof msg), 0);
    assert_true(un_at(&d, 0) == 0 && un_at(&d, 1) == 1 && un_at(&d, 3) == 65535);
    tile w = un_row(TILE_UINT32, 2, (int64_t[]){0xFFFFFFFFll, 0x80000000ll}), e = ref_tile2(TILE_UINT32, 1, 2);
    assert_int_equal(tile_binary(&e, &w, &w, TILE_MUL, msg, sizeof msg), 0);
    assert_true(un_at(&e, 0) == 1 && un_at(&e, 1) == 0);
    free(a.data), free(b.data), free(d.data), free(w.data), free(e.data);
}

static void test_tile_unsigned_scalar_operand_wraps_to_the_dtype(void **s)
{
    (void)s;
    char msg[128];
    tile a = un_row(TILE_UINT8, 3, (int64_t[]){0, 5, 255}), d = ref_tile2(TILE_UINT8, 1, 3);
    assert_int_equal(tile_binary_scalar(&d, &a, (tile_scalar){.i = -1}, TILE_ADD, msg, sizeof msg), 0); /* -1 is 255 */
    assert_true(un_at(&d, 0) == 255 && un_at(&d, 1) == 4 && un_at(&d, 2) == 254);
    assert_int_equal(tile_binary_scalar(&d, &a, (tile_scalar){.i = -1}, TILE_MAX, msg, sizeof msg), 0);
    assert_true(un_at(&d, 0) == 255 && un_at(&d, 1) == 255);
    assert_int_equal(tile_binary_scalar(&d, &a, (tile_scalar){.i = 256}, TILE_DIV, msg, sizeof msg), -1); /* 256 wraps to 0 */
    assert_string_equal(msg, "pl.div: integer division by zero");
    free(a.data), free(d.data);
}

static void test_tile_unsigned_division_has_no_minus_one_case(void **s)
{
    (void)s;
    char msg[128];
    tile a = un_row(TILE_UINT32, 4, (int64_t[]){0xFFFFFFFFll, 0x80000000ll, 7, 9}), b = un_row(TILE_UINT32, 4, (int64_t[]){-1, 3, -1, 4});
    tile d = ref_tile2(TILE_UINT32, 1, 4);
    assert_int_equal(tile_binary(&d, &a, &b, TILE_DIV, msg, sizeof msg), 0); /* all ones is 4294967295, not -1 */
    assert_true(un_at(&d, 0) == 1 && un_at(&d, 1) == 0x80000000ll / 3 && un_at(&d, 2) == 0 && un_at(&d, 3) == 2);
    assert_int_equal(tile_binary(&d, &a, &b, TILE_REM, msg, sizeof msg), 0);
    assert_true(un_at(&d, 0) == 0 && un_at(&d, 1) == 0x80000000ll % 3 && un_at(&d, 2) == 7 && un_at(&d, 3) == 1);
    assert_int_equal(tile_binary(&d, &a, &b, TILE_FMOD, msg, sizeof msg), 0);
    assert_true(un_at(&d, 2) == 7);
    tile m = ref_tile2(TILE_UINT32, 2, 2), v = un_row(TILE_UINT32, 2, (int64_t[]){-1, 2}), r = ref_tile2(TILE_UINT32, 2, 2);
    ((uint32_t *)m.data)[0] = 0xFFFFFFFFu, ((uint32_t *)m.data)[1] = 10, ((uint32_t *)m.data)[2] = 6, ((uint32_t *)m.data)[3] = 0xFFFFFFFEu;
    assert_int_equal(tile_expand_binary(&r, &m, &v, TILE_BC_DIV, 1, msg, sizeof msg), 0); /* columns / [all ones, 2] */
    const uint32_t *pr = r.data;
    assert_true(pr[0] == 1 && pr[1] == 5 && pr[2] == 0 && pr[3] == 0x7FFFFFFFu);
    free(a.data), free(b.data), free(d.data), free(m.data), free(v.data), free(r.data);
}

static void test_tile_unsigned_comparisons_and_extrema_order_by_value(void **s)
{
    (void)s;
    char msg[128];
    tile a = un_row(TILE_UINT32, 3, (int64_t[]){0x80000000ll, 1, 0xFFFFFFFFll}), b = un_row(TILE_UINT32, 3, (int64_t[]){1, 0x80000000ll, 0});
    tile d = ref_tile2(TILE_UINT32, 1, 3);
    assert_int_equal(tile_binary(&d, &a, &b, TILE_CMP_GT, msg, sizeof msg), 0);
    assert_true(un_at(&d, 0) == 1 && un_at(&d, 1) == 0 && un_at(&d, 2) == 1);
    assert_int_equal(tile_binary(&d, &a, &b, TILE_MIN, msg, sizeof msg), 0);
    assert_true(un_at(&d, 0) == 1 && un_at(&d, 1) == 1 && un_at(&d, 2) == 0);
    assert_int_equal(tile_unary(&d, &a, TILE_ABS, msg, sizeof msg), 0); /* abs, relu: the identity */
    assert_true(un_at(&d, 0) == 0x80000000ll);
    tile mx = ref_tile2(TILE_UINT32, 1, 1), at = ref_tile2(TILE_INT32, 1, 1), cm = ref_tile2(TILE_UINT32, 1, 3);
    assert_int_equal(tile_row_reduce(&mx, &a, TILE_ROW_MAX, msg, sizeof msg), 0);
    assert_true(un_at(&mx, 0) == 0xFFFFFFFFll);
    assert_int_equal(tile_row_reduce(&at, &a, TILE_ROW_ARGMIN, msg, sizeof msg), 0);
    assert_int_equal(((int32_t *)at.data)[0], 1);
    assert_int_equal(tile_col_reduce(&cm, &a, TILE_COL_MIN, msg, sizeof msg), 0);
    assert_true(un_at(&cm, 0) == 0x80000000ll);
    tile c8 = un_row(TILE_UINT8, 3, (int64_t[]){128, 127, 200}), a8 = ref_tile2(TILE_INT32, 1, 1);
    assert_int_equal(tile_row_reduce(&a8, &c8, TILE_ROW_ARGMAX, msg, sizeof msg), 0);
    assert_int_equal(((int32_t *)a8.data)[0], 2);
    free(a.data), free(b.data), free(d.data), free(mx.data), free(at.data), free(cm.data), free(c8.data), free(a8.data);
}

static void test_tile_unsigned_shr_is_logical(void **s)
{
    (void)s;
    char msg[128];
    tile a = un_row(TILE_UINT8, 4, (int64_t[]){0x80, 0xFF, 1, 0xF0}), n = un_row(TILE_UINT8, 4, (int64_t[]){1, 7, 8, 255});
    tile d = ref_tile2(TILE_UINT8, 1, 4);
    assert_int_equal(tile_binary(&d, &a, &n, TILE_SHR, msg, sizeof msg), 0);
    assert_true(un_at(&d, 0) == 0x40 && un_at(&d, 1) == 1 && un_at(&d, 2) == 0 && un_at(&d, 3) == 0); /* 8, 255: all out */
    assert_int_equal(tile_binary(&d, &a, &n, TILE_SHL, msg, sizeof msg), 0);
    assert_true(un_at(&d, 0) == 0 && un_at(&d, 1) == 0x80 && un_at(&d, 2) == 0);
    tile w = un_row(TILE_UINT32, 2, (int64_t[]){0x80000000ll, 0xFFFFFFFFll}), e = ref_tile2(TILE_UINT32, 1, 2);
    assert_int_equal(tile_binary_scalar(&w, &w, (tile_scalar){.i = 31}, TILE_SHR, msg, sizeof msg), 0);
    assert_true(un_at(&w, 0) == 1 && un_at(&w, 1) == 1);
    assert_int_equal(tile_binary_scalar(&e, &w, (tile_scalar){.i = -1}, TILE_SHR, msg, sizeof msg), 0); /* a negative count: all out */
    assert_true(un_at(&e, 0) == 0);
    assert_int_equal(tile_unary(&d, &a, TILE_NOT, msg, sizeof msg), 0);
    assert_true(un_at(&d, 0) == 0x7F && un_at(&d, 3) == 0x0F);
    free(a.data), free(n.data), free(d.data), free(w.data), free(e.data);
}

static void test_tile_unsigned_casts_saturate_to_the_unsigned_range(void **s)
{
    (void)s;
    char msg[128];
    tile f = ref_tile2(TILE_FP32, 1, 6), u = ref_tile2(TILE_UINT32, 1, 6), b = ref_tile2(TILE_UINT8, 1, 6);
    const float fv[6] = {-1.5f, 1e10f, NAN, 2.5f, 4294967040.0f, -0.4f};
    memcpy(f.data, fv, sizeof fv);
    assert_int_equal(tile_cast(&u, &f, TILE_ROUND, msg, sizeof msg), 0);
    assert_true(un_at(&u, 0) == 0 && un_at(&u, 1) == 0xFFFFFFFFll && un_at(&u, 2) == 0 && un_at(&u, 3) == 3 &&
                un_at(&u, 4) == 4294967040ll && un_at(&u, 5) == 0);
    assert_int_equal(tile_cast(&b, &u, TILE_ROUND, msg, sizeof msg), 0); /* UINT32 -> UINT8 saturates */
    assert_true(un_at(&b, 1) == 255 && un_at(&b, 3) == 3);
    tile i = un_row(TILE_INT32, 3, (int64_t[]){-1, 70000, INT32_MIN}), h = ref_tile2(TILE_UINT16, 1, 3);
    assert_int_equal(tile_cast(&h, &i, TILE_ROUND, msg, sizeof msg), 0); /* negatives to 0, past the max to the max */
    assert_true(un_at(&h, 0) == 0 && un_at(&h, 1) == 65535 && un_at(&h, 2) == 0);
    tile big = un_row(TILE_UINT32, 3, (int64_t[]){0xFFFFFFFFll, 0x80000000ll, 5}), j = ref_tile2(TILE_INT32, 1, 3);
    assert_int_equal(tile_cast(&j, &big, TILE_ROUND, msg, sizeof msg), 0); /* zero-extended, then saturated */
    assert_true(un_at(&j, 0) == INT32_MAX && un_at(&j, 1) == INT32_MAX && un_at(&j, 2) == 5);
    tile g = ref_tile2(TILE_FP32, 1, 3);
    assert_int_equal(tile_cast(&g, &big, TILE_ROUND, msg, sizeof msg), 0);
    assert_true(((float *)g.data)[0] == 4294967296.0f && ((float *)g.data)[1] == 2147483648.0f);
    free(f.data), free(u.data), free(b.data), free(i.data), free(h.data), free(big.data), free(j.data), free(g.data);
}

static void test_tile_unsigned_sums_and_products_wrap(void **s)
{
    (void)s;
    char msg[128];
    tile a = un_row(TILE_UINT8, 4, (int64_t[]){200, 100, 3, 255}), r = ref_tile2(TILE_UINT8, 1, 1);
    assert_int_equal(tile_row_reduce(&r, &a, TILE_ROW_SUM, msg, sizeof msg), 0);
    assert_true(un_at(&r, 0) == (200 + 100 + 3 + 255) % 256);
    assert_int_equal(tile_row_reduce(&r, &a, TILE_ROW_PROD, msg, sizeof msg), 0);
    assert_true(un_at(&r, 0) == (200 * 100 * 3 * 255) % 256);
    tile m = ref_tile2(TILE_UINT32, 2, 1), c = ref_tile2(TILE_UINT32, 1, 1);
    ((uint32_t *)m.data)[0] = 0xFFFFFFFFu, ((uint32_t *)m.data)[1] = 2;
    assert_int_equal(tile_col_reduce(&c, &m, TILE_COL_SUM, msg, sizeof msg), 0);
    assert_true(un_at(&c, 0) == 1);
    tile x = un_row(TILE_UINT16, 2, (int64_t[]){65535, 1}), y = un_row(TILE_UINT16, 2, (int64_t[]){1, 1}), d = ref_tile2(TILE_UINT16, 1, 2);
    assert_int_equal(tile_ternary(&d, &x, &y, (tile_scalar){.i = 0}, &y, TILE_ADDC, msg, sizeof msg), 0);
    assert_true(un_at(&d, 0) == 1 && un_at(&d, 1) == 3);
    assert_int_equal(tile_ternary(&d, &y, NULL, (tile_scalar){.i = 2}, &y, TILE_SUBC, msg, sizeof msg), 0); /* 1 - 2 - 1 */
    assert_true(un_at(&d, 0) == 65534);
    free(a.data), free(r.data), free(m.data), free(c.data), free(x.data), free(y.data), free(d.data);
}

static void test_tile_unsigned_pads_are_the_ranges_ends(void **s)
{
    (void)s;
    char msg[128];
    tile a = ref_tile2(TILE_UINT16, 1, 4), d = ref_tile2(TILE_UINT16, 1, 4);
    a.valid[1] = 1;
    assert_int_equal(tile_fillpad(&d, &a, TILE_PAD_MAX, msg, sizeof msg), 0);
    assert_true(un_at(&d, 0) == 0 && un_at(&d, 3) == 65535);
    assert_int_equal(tile_fillpad(&d, &a, TILE_PAD_MIN, msg, sizeof msg), 0);
    assert_true(un_at(&d, 3) == 0);
    tile e = ref_tile2(TILE_UINT32, 1, 8);
    a.dtype = TILE_UINT32, a.data = realloc(a.data, 16), memset(a.data, 0, 16);
    assert_int_equal(tile_fillpad_expand(&e, &a, TILE_PAD_MAX, msg, sizeof msg), 0);
    assert_true(un_at(&e, 7) == 0xFFFFFFFFll);
    free(a.data), free(d.data), free(e.data);
}

static void test_tile_unsigned_atomic_store_add_wraps(void **s)
{
    (void)s;
    char msg[128];
    uint8_t mem[4] = {250, 1, 0, 9};
    tile_tensor tt = {.addr = (char *)mem, .dtype = TILE_UINT8, .rank = 2, .shape = {1, 4}, .strides = {4, 1}};
    tile a = un_row(TILE_UINT8, 4, (int64_t[]){10, 255, 0, 1});
    assert_int_equal(tile_store_add(&tt, (int64_t[]){0, 0}, &a, NULL, msg, sizeof msg), 0);
    assert_true(mem[0] == 4 && mem[1] == 0 && mem[2] == 0 && mem[3] == 10);
    uint32_t w[2] = {0xFFFFFFFFu, 5};
    tile_tensor tw = {.addr = (char *)w, .dtype = TILE_UINT32, .rank = 2, .shape = {1, 2}, .strides = {2, 1}};
    tile b = un_row(TILE_UINT32, 2, (int64_t[]){2, 0xFFFFFFFFll});
    assert_int_equal(tile_store_add(&tw, (int64_t[]){0, 0}, &b, NULL, msg, sizeof msg), 0);
    assert_true(w[0] == 1 && w[1] == 4);
    free(a.data), free(b.data);
}

static void test_tile_unsigned_generators_offsets_and_matmul(void **s)
{
    (void)s;
    char msg[128];
    tile r = ref_tile2(TILE_UINT16, 1, 4);
    assert_int_equal(tile_arange(&r, 65534, 0, msg, sizeof msg), 0);
    assert_true(un_at(&r, 0) == 65534 && un_at(&r, 1) == 65535 && un_at(&r, 2) == 0);
    tile u = ref_tile2(TILE_UINT32, 2, 4), i = ref_tile2(TILE_INT32, 2, 4);
    const uint32_t key[2] = {1, 2}, ctr[4] = {3, 4, 5, 6};
    assert_int_equal(tile_random(&u, key, ctr, 10, (int64_t[]){2, 4}, msg, sizeof msg), 0);
    assert_int_equal(tile_random(&i, key, ctr, 10, (int64_t[]){2, 4}, msg, sizeof msg), 0);
    assert_memory_equal(u.data, i.data, 32); /* one cipher, the bits read either way */
    tile src = ref_tile2(TILE_UINT32, 2, 8), off = un_row(TILE_UINT32, 1, (int64_t[]){32}), g = ref_tile2(TILE_UINT32, 1, 8);
    for (int k = 0; k < 16; k++) ((uint32_t *)src.data)[k] = 0xF0000000u + (uint32_t)k;
    assert_int_equal(tile_gatherb(&g, &src, &off, msg, sizeof msg), 0); /* a UINT32 byte offset */
    assert_true(un_at(&g, 0) == 0xF0000008ll && un_at(&g, 7) == 0xF000000Fll);
    tile a = ref_tile2(TILE_UINT8, 2, 3), b = ref_tile2(TILE_UINT8, 3, 2), c = ref_tile2(TILE_INT32, 2, 2);
    memset(a.data, 255, 6), memset(b.data, 255, 6);
    ((uint8_t *)a.data)[3] = 1;
    assert_int_equal(tile_matmul(&c, &a, &b, &(tile_scratch){0}, msg, sizeof msg), 0); /* exact INT32: 3 x 255 x 255 */
    assert_true(((int32_t *)c.data)[0] == 3 * 255 * 255 && ((int32_t *)c.data)[2] == 255 + 2 * 255 * 255);
    tile wrong = ref_tile2(TILE_UINT32, 2, 2);
    assert_int_equal(tile_matmul(&wrong, &a, &b, &(tile_scratch){0}, msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.matmul: the result tile is not [2, 2] INT32");
    free(r.data), free(u.data), free(i.data), free(src.data), free(off.data), free(g.data), free(a.data), free(b.data), free(c.data),
        free(wrong.data);
}

static void test_tile_unsigned_sel_mask_and_bits(void **s)
{
    (void)s;
    char msg[128];
    tile m = un_row(TILE_UINT32, 3, (int64_t[]){0x80000000ll, 0, 1}), x = un_row(TILE_UINT32, 3, (int64_t[]){1, 2, 3});
    tile y = un_row(TILE_UINT32, 3, (int64_t[]){0xFFFFFFFFll, 0xFFFFFFFEll, 0}), d = ref_tile2(TILE_UINT32, 1, 3);
    assert_int_equal(tile_ternary(&d, &m, &y, (tile_scalar){.i = 0}, &x, TILE_SEL, msg, sizeof msg), 0);
    assert_true(un_at(&d, 0) == 1 && un_at(&d, 1) == 0xFFFFFFFEll && un_at(&d, 2) == 3);
    free(m.data), free(x.data), free(y.data), free(d.data);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_tile_unsigned_elements_read_zero_extended),
    cmocka_unit_test(test_tile_unsigned_add_sub_mul_neg_wrap),
    cmocka_unit_test(test_tile_unsigned_scalar_operand_wraps_to_the_dtype),
    cmocka_unit_test(test_tile_unsigned_division_has_no_minus_one_case),
    cmocka_unit_test(test_tile_unsigned_comparisons_and_extrema_order_by_value),
    cmocka_unit_test(test_tile_unsigned_shr_is_logical),
    cmocka_unit_test(test_tile_unsigned_casts_saturate_to_the_unsigned_range),
    cmocka_unit_test(test_tile_unsigned_sums_and_products_wrap),
    cmocka_unit_test(test_tile_unsigned_pads_are_the_ranges_ends),
    cmocka_unit_test(test_tile_unsigned_atomic_store_add_wraps),
    cmocka_unit_test(test_tile_unsigned_generators_offsets_and_matmul),
    cmocka_unit_test(test_tile_unsigned_sel_mask_and_bits),
};

PTO_TEST_MAIN(tests)
