/*
 * test_tile_p5_reduce.c - the product and arg-extremum reductions
 * (tile_row_reduce's ROW_PROD, ROW_ARGMAX, ROW_ARGMIN and tile_col_reduce's
 * COL_*) dtype by dtype against plain references over narrowed valid
 * regions: FP16/BF16 products in FP32 rounded once, integer products
 * wrapping, the first extremum on ties, the first NaN winning, INT32
 * indices, empty valid regions.
 */
#include "harness.h"
#include "tile_ref.h"

static const tile_dtype dtypes[] = {TILE_FP32, TILE_FP16, TILE_BF16, TILE_INT32, TILE_INT8, TILE_INT64, TILE_INT16};

/* The product of n elements of a from i0 with stride st, as the kernel's dtype computes it. */
static double ref_prod(const tile *a, int64_t i0, int64_t st, int64_t n)
{
    tile_dtype dt = (tile_dtype)a->dtype;
    float f = 1;
    uint64_t u = 1;
    for (int64_t k = 0; k < n; k++) f *= (float)ref_get(a, i0 + k * st), u *= (uint64_t)(int64_t)ref_get(a, i0 + k * st);
    if (tile_dtype_is_float(dt)) return ref_round(dt, f);
    switch (tile_dtype_size(dt)) { /* u's low bits, signed */
    case 1: return (int8_t)(uint8_t)u;
    case 2: return (int16_t)(uint16_t)u;
    case 4: return (int32_t)(uint32_t)u;
    default: return (double)(int64_t)u;
    }
}

/* The index of the first maximum (max) or minimum of n elements; NaN first wins. */
static int64_t ref_arg(const tile *a, int64_t i0, int64_t st, int64_t n, int max)
{
    int64_t at = 0;
    double best = ref_get(a, i0);
    for (int64_t k = 1; k < n && best == best; k++) {
        double x = ref_get(a, i0 + k * st);
        if (x != x || (max ? x > best : x < best)) best = x, at = k;
    }
    return at;
}

static void test_tile_row_and_col_prod_over_the_valid_region(void **s)
{
    (void)s;
    char msg[256];
    for (size_t k = 0; k < sizeof dtypes / sizeof dtypes[0]; k++) {
        tile_dtype dt = dtypes[k];
        tile a = ref_tile2(dt, 5, 300), r = ref_tile2(dt, 5, 1), c = ref_tile2(dt, 1, 300);
        a.valid[0] = 4, a.valid[1] = 290;
        ref_fill(&a, 21, 1);
        for (int64_t i = 0; i < 4 * 300; i++) /* small factors: products stay finite */
            if (tile_dtype_is_float(dt)) ref_set(&a, i, ref_round(dt, 1 + ref_get(&a, i) / 256));
        assert_int_equal(tile_row_reduce(&r, &a, TILE_ROW_PROD, msg, sizeof msg), 0);
        assert_int_equal(tile_col_reduce(&c, &a, TILE_COL_PROD, msg, sizeof msg), 0);
        assert_true(r.valid[0] == 4 && r.valid[1] == 1 && c.valid[0] == 1 && c.valid[1] == 290);
        for (int64_t i = 0; i < 5; i++) assert_true(ref_get(&r, i) == (i < 4 ? ref_prod(&a, i * 300, 1, 290) : 0));
        for (int64_t j = 0; j < 300; j++) assert_true(ref_get(&c, j) == (j < 290 ? ref_prod(&a, j, 300, 4) : 0));
        free(a.data), free(r.data), free(c.data);
    }
    /* no valid column: an empty result */
    tile a = ref_tile2(TILE_FP32, 2, 2), r = ref_tile2(TILE_FP32, 2, 1);
    a.valid[1] = 0;
    assert_int_equal(tile_row_reduce(&r, &a, TILE_ROW_PROD, msg, sizeof msg), 0);
    assert_true(r.valid[0] == 2 && r.valid[1] == 0 && ref_get(&r, 0) == 0);
    free(a.data), free(r.data);
}

static void test_tile_arg_extrema_give_the_first_index_as_int32(void **s)
{
    (void)s;
    char msg[256];
    for (size_t k = 0; k < sizeof dtypes / sizeof dtypes[0]; k++) {
        tile_dtype dt = dtypes[k];
        tile a = ref_tile2(dt, 6, 300), r = ref_tile2(TILE_INT32, 6, 1), c = ref_tile2(TILE_INT32, 1, 300);
        a.valid[0] = 5, a.valid[1] = 290;
        ref_fill(&a, 31, 0);
        for (int64_t i = 0; i < 300; i++) ref_set(&a, 2 * 300 + i, i < 290 ? 9 : 0); /* row 2: all ties */
        for (int max = 0; max < 2; max++) {
            assert_int_equal(tile_row_reduce(&r, &a, max ? TILE_ROW_ARGMAX : TILE_ROW_ARGMIN, msg, sizeof msg), 0);
            assert_int_equal(tile_col_reduce(&c, &a, max ? TILE_COL_ARGMAX : TILE_COL_ARGMIN, msg, sizeof msg), 0);
            assert_true(r.valid[0] == 5 && r.valid[1] == 1 && c.valid[0] == 1 && c.valid[1] == 290);
            for (int64_t i = 0; i < 6; i++) assert_int_equal(((int32_t *)r.data)[i], i < 5 ? ref_arg(&a, i * 300, 1, 290, max) : 0);
            assert_int_equal(((int32_t *)r.data)[2], 0);
            for (int64_t j = 0; j < 300; j++) assert_int_equal(((int32_t *)c.data)[j], j < 290 ? ref_arg(&a, j, 300, 5, max) : 0);
        }
        free(a.data), free(r.data), free(c.data);
    }
    /* NaN: the first one wins for both */
    tile a = ref_tile2(TILE_FP32, 1, 5), r = ref_tile2(TILE_INT32, 1, 1);
    for (int64_t i = 0; i < 5; i++) ref_set(&a, i, (double[]){1, 7, NAN, 9, NAN}[i]);
    assert_int_equal(tile_row_reduce(&r, &a, TILE_ROW_ARGMAX, msg, sizeof msg), 0);
    assert_int_equal(((int32_t *)r.data)[0], 2);
    assert_int_equal(tile_row_reduce(&r, &a, TILE_ROW_ARGMIN, msg, sizeof msg), 0);
    assert_int_equal(((int32_t *)r.data)[0], 2);
    /* the result tile must be INT32 */
    tile bad = ref_tile2(TILE_FP32, 1, 1);
    assert_int_equal(tile_row_reduce(&bad, &a, TILE_ROW_ARGMAX, msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.row_argmax: the result tile is not [1, 1] of the INT32 dtype");
    free(a.data), free(r.data), free(bad.data);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_tile_row_and_col_prod_over_the_valid_region),
    cmocka_unit_test(test_tile_arg_extrema_give_the_first_index_as_int32),
};

PTO_TEST_MAIN(tests)
