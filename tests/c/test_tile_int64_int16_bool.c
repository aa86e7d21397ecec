/*
 * test_tile_int64_int16_bool.c - the tile kernels on INT64, INT16 and BOOL
 * tiles (SC-dtype): integer element-wise ops and sums wrap in the dtype's
 * width, integer division by zero fails, casts saturate (float and wider
 * integers) and BOOL is x != 0; every arithmetic kernel refuses a BOOL
 * tile with "pl.<op> does not accept BOOL tiles; cast first".
 */
#include "harness.h"
#include "tile_ref.h"

static void test_tile_int64_int16_elementwise_wrap(void **s)
{
    (void)s;
    char msg[128];
    tile a = ref_tile2(TILE_INT64, 2, 4), b = ref_tile2(TILE_INT64, 2, 4), d = ref_tile2(TILE_INT64, 2, 4);
    int64_t *pa = a.data, *pb = b.data, *pd = d.data;
    const int64_t av[8] = {INT64_MAX, INT64_MIN, INT64_MIN, 7, -7, 3, INT64_MAX, 0};
    const int64_t bv[8] = {1, -1, -1, 2, 2, -3, INT64_MAX, 5};
    memcpy(pa, av, sizeof av), memcpy(pb, bv, sizeof bv);
    assert_int_equal(tile_binary(&d, &a, &b, TILE_ADD, msg, sizeof msg), 0);
    assert_true(pd[0] == INT64_MIN && pd[1] == INT64_MAX && pd[3] == 9);
    assert_int_equal(tile_binary(&d, &a, &b, TILE_MUL, msg, sizeof msg), 0);
    assert_true(pd[6] == 1 && pd[2] == INT64_MIN); /* MAX * MAX wraps to 1; MIN * -1 to MIN */
    assert_int_equal(tile_binary(&d, &a, &b, TILE_DIV, msg, sizeof msg), 0);
    assert_true(pd[2] == INT64_MIN && pd[3] == 3 && pd[4] == -3); /* MIN / -1 wraps; truncation toward zero */
    assert_int_equal(tile_unary(&d, &a, TILE_NEG, msg, sizeof msg), 0);
    assert_true(pd[1] == INT64_MIN && pd[0] == -INT64_MAX);
    pb[7] = 0;
    assert_int_equal(tile_binary(&d, &a, &b, TILE_DIV, msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.div: integer division by zero");
    tile h = ref_tile2(TILE_INT16, 1, 4), g = ref_tile2(TILE_INT16, 1, 4), e = ref_tile2(TILE_INT16, 1, 4);
    int16_t *ph = h.data, *pe = e.data;
    const int16_t hv[4] = {INT16_MAX, INT16_MIN, 300, -300};
    memcpy(ph, hv, sizeof hv);
    tile_fill(g.data, TILE_INT16, (tile_scalar){.i = 300}, 4);
    assert_int_equal(tile_binary(&e, &h, &g, TILE_MUL, msg, sizeof msg), 0);
    assert_true(pe[2] == (int16_t)(uint16_t)(300 * 300) && pe[3] == (int16_t)(uint16_t)(uint32_t)(-300 * 300));
    assert_int_equal(tile_binary_scalar(&e, &h, (tile_scalar){.i = 1}, TILE_ADD, msg, sizeof msg), 0);
    assert_true(pe[0] == INT16_MIN && pe[1] == INT16_MIN + 1);
    tile rs = ref_tile2(TILE_INT16, 1, 1);
    assert_int_equal(tile_row_reduce(&rs, &h, TILE_ROW_SUM, msg, sizeof msg), 0);
    assert_int_equal(((int16_t *)rs.data)[0], (int16_t)(uint16_t)(INT16_MAX + INT16_MIN + 300 - 300));
    tile cm = ref_tile2(TILE_INT64, 1, 4);
    assert_int_equal(tile_col_reduce(&cm, &a, TILE_COL_MAX, msg, sizeof msg), 0);
    assert_true(((int64_t *)cm.data)[0] == INT64_MAX && ((int64_t *)cm.data)[1] == 3 && ((int64_t *)cm.data)[3] == 7);
    free(a.data), free(b.data), free(d.data), free(h.data), free(g.data), free(e.data), free(rs.data), free(cm.data);
}

static void test_tile_int64_int16_bool_casts(void **s)
{
    (void)s;
    char msg[128];
    tile f = ref_tile2(TILE_FP32, 1, 6), l = ref_tile2(TILE_INT64, 1, 6), h = ref_tile2(TILE_INT16, 1, 6), b = ref_tile2(TILE_BOOL, 1, 6);
    const float fv[6] = {1e30f, -1e30f, NAN, 2.5f, -0.5f, 40000.0f};
    memcpy(f.data, fv, sizeof fv);
    assert_int_equal(tile_cast(&l, &f, TILE_ROUND, msg, sizeof msg), 0);
    const int64_t *pl = l.data;
    assert_true(pl[0] == INT64_MAX && pl[1] == INT64_MIN && pl[2] == 0 && pl[3] == 3 && pl[4] == -1 && pl[5] == 40000);
    assert_int_equal(tile_cast(&h, &l, TILE_ROUND, msg, sizeof msg), 0); /* INT64 -> INT16 saturates */
    const int16_t *ph = h.data;
    assert_true(ph[0] == INT16_MAX && ph[1] == INT16_MIN && ph[5] == INT16_MAX && ph[4] == -1);
    assert_int_equal(tile_cast(&b, &f, TILE_ROUND, msg, sizeof msg), 0); /* != 0, NaN -> 0 */
    const uint8_t *pb = b.data;
    assert_true(pb[0] == 1 && pb[2] == 0 && pb[4] == 1);
    ((int64_t *)l.data)[0] = (1ll << 53) + 1; /* INT64 -> FP32 and BF16 round once, to nearest even */
    tile g = ref_tile2(TILE_BF16, 1, 6);
    assert_int_equal(tile_cast(&f, &l, TILE_ROUND, msg, sizeof msg), 0);
    assert_true(((float *)f.data)[0] == 0x1p53f && ((float *)f.data)[2] == 0.0f);
    assert_int_equal(tile_cast(&g, &l, TILE_ROUND, msg, sizeof msg), 0);
    assert_int_equal(((uint16_t *)g.data)[5], ref_bf16(40000.0f));
    assert_int_equal(tile_cast(&l, &b, TILE_ROUND, msg, sizeof msg), 0); /* BOOL -> 0/1 */
    assert_true(pl[0] == 1 && pl[2] == 0);
    free(f.data), free(l.data), free(h.data), free(b.data), free(g.data);
}

static void test_tile_bool_arithmetic_is_refused(void **s)
{
    (void)s;
    char msg[128];
    tile b = ref_tile2(TILE_BOOL, 2, 2), d = ref_tile2(TILE_BOOL, 2, 2), r = ref_tile2(TILE_BOOL, 2, 1);
    assert_int_equal(tile_binary(&d, &b, &b, TILE_ADD, msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.add does not accept BOOL tiles; cast first");
    assert_int_equal(tile_unary(&d, &b, TILE_NEG, msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.neg does not accept BOOL tiles; cast first");
    assert_int_equal(tile_row_reduce(&r, &b, TILE_ROW_SUM, msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.row_sum does not accept BOOL tiles; cast first");
    assert_int_equal(tile_fillpad(&d, &b, TILE_PAD_MAX, msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.fillpad does not accept BOOL tiles; cast first");
    free(b.data), free(d.data), free(r.data);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_tile_int64_int16_elementwise_wrap),
    cmocka_unit_test(test_tile_int64_int16_bool_casts),
    cmocka_unit_test(test_tile_bool_arithmetic_is_refused),
};

PTO_TEST_MAIN(tests)
