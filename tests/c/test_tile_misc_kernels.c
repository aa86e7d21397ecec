/*
 * test_tile_misc_kernels.c - the kernels of pl.matmul_acc (the accumulator's
 * valid region intersected with the product's, init ignoring the old value,
 * INT8 wrapping in INT32), pl.concat, pl.fillpad (rank 3, the FP16/BF16
 * infinities and the integer extremes) and pl.tile.full, against loops here.
 */
#include <math.h>

#include "harness.h"
#include "tile_ref.h"

/* acc[i, j] + sum_k a[i, k] b[k, j] over the given extents (0 elsewhere). */
static void ref_mm_acc(const tile *acc, const tile *a, const tile *b, int64_t M, int64_t N, int64_t K, int init, double *out)
{
    int64_t n = acc->shape[1];
    for (int64_t i = 0; i < acc->shape[0]; i++)
        for (int64_t j = 0; j < n; j++) {
            double s = 0;
            if (i < M && j < N) {
                s = init ? 0 : ref_get(acc, i * n + j);
                for (int64_t k = 0; k < K; k++) s += ref_get(a, i * a->shape[1] + k) * ref_get(b, k * n + j);
            }
            out[i * n + j] = s;
        }
}

static void test_tile_matmul_acc_valid_regions_and_init(void **state)
{
    (void)state;
    char msg[256];
    tile_scratch sc = {0}; /* one workspace for every call, freed at the end */
    static const tile_dtype dts[] = {TILE_FP32, TILE_FP16, TILE_BF16, TILE_INT8};
    for (size_t k = 0; k < sizeof dts / sizeof dts[0]; k++)
        for (int init = 0; init < 2; init++) {
            tile_dtype rt = dts[k] == TILE_INT8 ? TILE_INT32 : TILE_FP32;
            tile a = ref_tile2(dts[k], 6, 5), b = ref_tile2(dts[k], 5, 7), acc = ref_tile2(rt, 6, 7);
            a.valid[0] = 5, a.valid[1] = 4, b.valid[0] = 5, b.valid[1] = 6, acc.valid[0] = 6, acc.valid[1] = 3;
            ref_fill(&a, 1, 0), ref_fill(&b, 2, 0), ref_fill(&acc, 3, 0);
            double want[42];
            int64_t M = 5, N = init ? 6 : 3; /* init: the product's region; else cut to acc's */
            ref_mm_acc(&acc, &a, &b, M, N, 4, init, want);
            assert_int_equal(tile_matmul_acc(&acc, &a, &b, init, &sc, msg, sizeof msg), 0);
            assert_int_equal(acc.valid[0], M);
            assert_int_equal(acc.valid[1], N);
            for (int64_t e = 0; e < 42; e++) assert_true(fabs(ref_get(&acc, e) - want[e]) <= 1e-3);
            free(a.data), free(b.data), free(acc.data);
        }
    tile a = ref_tile2(TILE_INT8, 1, 2), b = ref_tile2(TILE_INT8, 2, 1), acc = ref_tile2(TILE_INT32, 1, 1);
    ((int8_t *)a.data)[0] = ((int8_t *)a.data)[1] = -128, ((int8_t *)b.data)[0] = ((int8_t *)b.data)[1] = -128;
    ((int32_t *)acc.data)[0] = INT32_MAX;
    assert_int_equal(tile_matmul_acc(&acc, &a, &b, 0, &sc, msg, sizeof msg), 0);
    assert_int_equal(((int32_t *)acc.data)[0], (int32_t)((uint32_t)INT32_MAX + 32768u)); /* wraps */
    tile bad = ref_tile2(TILE_FP32, 1, 1);
    assert_int_equal(tile_matmul_acc(&bad, &a, &b, 0, &sc, msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.matmul_acc: the result tile is not [1, 1] INT32");
    free(a.data), free(b.data), free(acc.data), free(bad.data);
    tile_scratch_free(&sc);
}

static void test_tile_concat_and_its_errors(void **state)
{
    (void)state;
    char msg[256];
    tile a = ref_tile2(TILE_BF16, 3, 2), b = ref_tile2(TILE_BF16, 3, 4), d = ref_tile2(TILE_BF16, 3, 6);
    a.valid[0] = 2, a.valid[1] = 1;
    ref_fill(&a, 4, 1), ref_fill(&b, 5, 1);
    d.valid[0] = 0;
    assert_int_equal(tile_concat(&d, &a, &b, msg, sizeof msg), 0);
    assert_true(d.valid[0] == 3 && d.valid[1] == 6);
    for (int64_t i = 0; i < 3; i++)
        for (int64_t j = 0; j < 6; j++) {
            double w = j < 2 ? ref_get(&a, i * 2 + j) : ref_get(&b, i * 4 + j - 2);
            assert_true(ref_get(&d, i * 6 + j) == w);
            if (j < 2 && (i >= 2 || j >= 1)) assert_true(w == 0);
        }
    tile c = ref_tile2(TILE_FP32, 3, 4), r = ref_tile2(TILE_BF16, 2, 4);
    assert_int_equal(tile_concat(&d, &a, &c, msg, sizeof msg), -1);
    assert_string_equal(msg, "tile.concat: inputs must have same dtype, got BF16 vs FP32");
    assert_int_equal(tile_concat(&d, &a, &r, msg, sizeof msg), -1);
    assert_string_equal(msg, "tile.concat: row count must match, got 3 vs 2");
    free(a.data), free(b.data), free(d.data), free(c.data), free(r.data);
}

static void test_tile_fillpad_rank3_every_dtype_and_full(void **state)
{
    (void)state;
    char msg[256];
    static const tile_dtype dts[] = {TILE_FP32, TILE_FP16, TILE_BF16, TILE_INT32, TILE_INT8};
    for (size_t k = 0; k < sizeof dts / sizeof dts[0]; k++)
        for (int pad = TILE_PAD_ZERO; pad <= TILE_PAD_MIN; pad++) {
            tile x = ref_tile(dts[k], 3, (int64_t[]){2, 3, 4});
            for (int64_t e = 0; e < 24; e++) ref_set(&x, e, 1 + e % 5);
            x.valid[0] = 1, x.valid[1] = 2, x.valid[2] = 3;
            tile_clear_outside(&x);
            int fl = tile_dtype_is_float(dts[k]);
            double hi = fl ? (double)INFINITY : dts[k] == TILE_INT8 ? 127.0 : (double)INT32_MAX;
            double lo = fl ? -(double)INFINITY : dts[k] == TILE_INT8 ? -128.0 : (double)INT32_MIN;
            double pv = pad == TILE_PAD_ZERO ? 0 : pad == TILE_PAD_MAX ? hi : lo;
            assert_int_equal(tile_fillpad(&x, &x, (tile_pad)pad, msg, sizeof msg), 0); /* in place */
            for (int64_t e = 0; e < 24; e++) {
                int inside = e / 12 < 1 && e / 4 % 3 < 2 && e % 4 < 3;
                assert_true(ref_get(&x, e) == (inside ? 1 + e % 5 : pv));
            }
            assert_true(x.valid[0] == 2 && x.valid[1] == 3 && x.valid[2] == 4);
            tile_full(&x, tile_scalar_for(dts[k], 1, 0, -2.5));
            for (int64_t e = 0; e < 24; e++) assert_true(ref_get(&x, e) == (fl ? -2.5 : -2));
            free(x.data);
        }
    tile x = ref_tile2(TILE_FP32, 2, 2);
    assert_int_equal(tile_fillpad(&x, &x, TILE_PAD_NULL, msg, sizeof msg), -1);
    assert_string_equal(msg, "fillpad pad_value cannot be PadValue.null");
    free(x.data);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_tile_matmul_acc_valid_regions_and_init),
    cmocka_unit_test(test_tile_concat_and_its_errors),
    cmocka_unit_test(test_tile_fillpad_rank3_every_dtype_and_full),
};

PTO_TEST_MAIN(tests)
