/*
 * test_tile_p5_gather.c - the gather, scatter and sort kernels (tile_gather.c,
 * tile_sort.c) against plain references: gather and scatter bit-exact in
 * every dtype with INT32 and INT16 indices, an index one past the end and a
 * negative one failing with nothing written, the last duplicate scatter
 * index winning, scatter growing the valid region; sort32's descending
 * stable order with NaN first and a short last block; mrgsort's four-way
 * merge, its run-time block_len and odd-valid-region errors.
 */
#include <math.h>
#include <string.h>

#include "harness.h"
#include "tile_ref.h"

static const tile_dtype dtypes[] = {TILE_FP32, TILE_FP16, TILE_BF16, TILE_INT32, TILE_INT8, TILE_INT64, TILE_INT16};

static void set_index(tile *t, int64_t k, int64_t v)
{
    if (t->dtype == TILE_INT16) ((int16_t *)t->data)[k] = (int16_t)v;
    else ((int32_t *)t->data)[k] = (int32_t)v;
}

static void test_tile_gather_copies_each_indexed_element_bit_exact(void **s)
{
    (void)s;
    char msg[256];
    for (size_t k = 0; k < sizeof dtypes / sizeof dtypes[0]; k++)
        for (int narrow = 0; narrow < 2; narrow++) {
            tile src = ref_tile2(dtypes[k], 6, 10), idx = ref_tile2(narrow ? TILE_INT16 : TILE_INT32, 3, 7), dst = ref_tile2(dtypes[k], 3, 7);
            ref_fill(&src, 5, 0);
            idx.valid[0] = 2, idx.valid[1] = 5;
            for (int64_t i = 0; i < 21; i++) set_index(&idx, i, (i * 37) % 60);
            assert_int_equal(tile_gather(&dst, &src, &idx, msg, sizeof msg), 0);
            assert_true(dst.valid[0] == 2 && dst.valid[1] == 5);
            size_t es = tile_dtype_size(dtypes[k]);
            for (int64_t i = 0; i < 3; i++)
                for (int64_t j = 0; j < 7; j++) {
                    const char *got = (const char *)dst.data + (i * 7 + j) * es;
                    if (i < 2 && j < 5) assert_memory_equal(got, (const char *)src.data + ((i * 7 + j) * 37 % 60) * es, es);
                    else assert_true(ref_get(&dst, i * 7 + j) == 0);
                }
            free(src.data), free(idx.data), free(dst.data);
        }
}

static void test_tile_gather_index_out_of_range_fails_and_writes_nothing(void **s)
{
    (void)s;
    char msg[256];
    tile src = ref_tile2(TILE_FP32, 2, 4), idx = ref_tile2(TILE_INT32, 1, 3), dst = ref_tile2(TILE_FP32, 1, 3);
    set_index(&idx, 2, 7); /* the last element: in range */
    assert_int_equal(tile_gather(&dst, &src, &idx, msg, sizeof msg), 0);
    ref_set(&dst, 0, 42);
    set_index(&idx, 1, 8);
    assert_int_equal(tile_gather(&dst, &src, &idx, msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.gather: index 8 at [0, 1] is out of range [0, 8)");
    assert_true(ref_get(&dst, 0) == 42);
    set_index(&idx, 1, -3);
    assert_int_equal(tile_gather(&dst, &src, &idx, msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.gather: index -3 at [0, 1] is out of range [0, 8)");
    free(src.data), free(idx.data), free(dst.data);
}

static void test_tile_scatter_the_last_duplicate_wins_and_the_region_grows(void **s)
{
    (void)s;
    char msg[256];
    for (size_t k = 0; k < sizeof dtypes / sizeof dtypes[0]; k++) {
        tile_dtype dt = dtypes[k];
        tile target = ref_tile2(dt, 4, 5), src = ref_tile2(dt, 2, 3), dst = ref_tile2(dt, 4, 5);
        tile idx = ref_tile2(tile_dtype_size(dt) >= 4 ? TILE_INT32 : TILE_INT16, 2, 3);
        target.valid[0] = 1, target.valid[1] = 2;
        ref_fill(&target, 3, 1);
        for (int64_t i = 0; i < 6; i++) ref_set(&src, i, (double)(i + 1));
        int64_t at[6] = {1, 1, 13, 0, 1, 2}; /* flat 1 three times: src[1, 1] (value 5) wins; 13 is [2, 3] */
        for (int64_t i = 0; i < 6; i++) set_index(&idx, i, at[i]);
        assert_int_equal(tile_scatter(&dst, &target, &src, &idx, msg, sizeof msg), 0);
        assert_true(dst.valid[0] == 3 && dst.valid[1] == 4);
        assert_true(ref_get(&dst, 0) == 4 && ref_get(&dst, 1) == 5 && ref_get(&dst, 2) == 6 && ref_get(&dst, 13) == 3);
        for (int64_t i = 3; i < 20; i++)
            if (i != 13) assert_true(ref_get(&dst, i) == 0); /* newly valid, unwritten: 0 */
        /* out of range: one past the end, nothing written */
        memset(dst.data, 0, (size_t)tile_bytes(&dst));
        set_index(&idx, 4, 20);
        assert_int_equal(tile_scatter(&dst, &target, &src, &idx, msg, sizeof msg), -1);
        assert_string_equal(msg, "pl.scatter: index 20 at [1, 1] is out of range [0, 20)");
        for (int64_t i = 0; i < 20; i++) assert_true(ref_get(&dst, i) == 0);
        free(target.data), free(src.data), free(idx.data), free(dst.data);
    }
}

static void test_tile_scatter_empty_source_region_copies_the_target(void **s)
{
    (void)s;
    char msg[256];
    tile target = ref_tile2(TILE_INT32, 2, 2), src = ref_tile2(TILE_INT32, 1, 2), idx = ref_tile2(TILE_INT32, 1, 2), dst = ref_tile2(TILE_INT32, 2, 2);
    ref_fill(&target, 9, 1);
    src.valid[1] = 0;
    set_index(&idx, 0, 99); /* outside the region: never read */
    assert_int_equal(tile_scatter(&dst, &target, &src, &idx, msg, sizeof msg), 0);
    assert_memory_equal(dst.data, target.data, 16);
    assert_true(dst.valid[0] == 2 && dst.valid[1] == 2);
    free(target.data), free(src.data), free(idx.data), free(dst.data);
}

/* The value and index of pair k of row r of a sort result. */
static float pair_value(const tile *t, int64_t r, int64_t k) { return ((const float *)t->data)[r * t->shape[1] + 2 * k]; }
static int32_t pair_index(const tile *t, int64_t r, int64_t k)
{
    int32_t v;
    memcpy(&v, (const float *)t->data + r * t->shape[1] + 2 * k + 1, 4);
    return v;
}

static void test_tile_sort32_orders_each_block_descending_nan_first_stable(void **s)
{
    (void)s;
    char msg[256];
    tile src = ref_tile2(TILE_FP32, 2, 64), idx = ref_tile2(TILE_INT32, 2, 64), dst = ref_tile2(TILE_FP32, 2, 128);
    src.valid[1] = 40; /* a full block, then a block of 8 */
    for (int64_t i = 0; i < 128; i++) ref_set(&src, i, (double)((i * 7) % 5)), set_index(&idx, i, 1000 + i);
    ref_set(&src, 5, NAN), ref_set(&src, 20, NAN), ref_set(&src, 33, INFINITY);
    assert_int_equal(tile_sort32(&dst, &src, &idx, msg, sizeof msg), 0);
    assert_true(dst.valid[0] == 2 && dst.valid[1] == 80);
    assert_true(isnan(pair_value(&dst, 0, 0)) && pair_index(&dst, 0, 0) == 1005 && pair_index(&dst, 0, 1) == 1020);
    for (int64_t r = 0; r < 2; r++)
        for (int64_t b = 0; b < 40; b += 32) {
            int64_t n = b ? 8 : 32;
            for (int64_t k = 1; k < n; k++) {
                float p = pair_value(&dst, r, b + k - 1), q = pair_value(&dst, r, b + k);
                if (isnan(p) || isnan(q)) continue;
                assert_true(p > q || (p == q && pair_index(&dst, r, b + k - 1) < pair_index(&dst, r, b + k)));
            }
        }
    assert_true(pair_value(&dst, 0, 32) == INFINITY && pair_index(&dst, 0, 32) == 1033);
    for (int64_t k = 80; k < 128; k++) assert_true(ref_get(&dst, k) == 0);
    free(src.data), free(idx.data), free(dst.data);
}

static void test_tile_mrgsort_merges_four_runs_stably(void **s)
{
    (void)s;
    char msg[256];
    /* 5 runs of 32 pairs (block_len 64): the first 4 merge, the fifth stays */
    tile src = ref_tile2(TILE_FP32, 1, 320), dst = ref_tile2(TILE_FP32, 1, 320);
    float *v = src.data;
    for (int64_t k = 0; k < 160; k++) {
        v[2 * k] = (float)(31 - k % 32) + (k / 32 >= 2 ? 0.25f : 0); /* each run descending; runs 0 and 1 tie, as do 2 and 3 */
        int32_t id = (int32_t)k;
        memcpy(&v[2 * k + 1], &id, 4);
    }
    assert_int_equal(tile_mrgsort(&dst, &src, 64, msg, sizeof msg), 0);
    for (int64_t k = 1; k < 128; k++) {
        float p = pair_value(&dst, 0, k - 1), q = pair_value(&dst, 0, k);
        assert_true(p >= q);
        if (p == q) assert_true(pair_index(&dst, 0, k - 1) / 32 < pair_index(&dst, 0, k) / 32); /* the earlier run's first */
    }
    assert_memory_equal((float *)dst.data + 256, (float *)src.data + 256, 64 * 4);
    assert_true(dst.valid[1] == 320);
    /* the run-time checks */
    assert_int_equal(tile_mrgsort(&dst, &src, 96, msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.mrgsort: block_len 96 is not a positive multiple of 64");
    assert_int_equal(tile_mrgsort(&dst, &src, -64, msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.mrgsort: block_len -64 is not a positive multiple of 64");
    src.valid[1] = 63;
    assert_int_equal(tile_mrgsort(&dst, &src, 64, msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.mrgsort: the valid region has 63 columns, not whole (value, index) pairs");
    src.valid[1] = 0; /* empty: nothing to merge */
    assert_int_equal(tile_mrgsort(&dst, &src, 64, msg, sizeof msg), 0);
    assert_true(dst.valid[1] == 0 && ref_get(&dst, 0) == 0);
    free(src.data), free(dst.data);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_tile_gather_copies_each_indexed_element_bit_exact),
    cmocka_unit_test(test_tile_gather_index_out_of_range_fails_and_writes_nothing),
    cmocka_unit_test(test_tile_scatter_the_last_duplicate_wins_and_the_region_grows),
    cmocka_unit_test(test_tile_scatter_empty_source_region_copies_the_target),
    cmocka_unit_test(test_tile_sort32_orders_each_block_descending_nan_first_stable),
    cmocka_unit_test(test_tile_mrgsort_merges_four_runs_stably),
};

PTO_TEST_MAIN(tests)
