/*
 * test_tile_p5_gather_more.c - the rest of the gather family's kernels
 * (tile_gather.c, tile_sort.c) against plain references: the per-row
 * gather and scatter (an index one past the row's end failing with nothing
 * written), scatter_update's last duplicate row winning, gatherb's blocks
 * and alignment rule, mgather's row form and its four out-of-range
 * policies, FP16 sort32 pairs, and the two-tile merge keeping the first
 * source's pair of equal values first.
 */
#include <math.h>
#include <string.h>

#include "base/half.h"
#include "harness.h"
#include "tile_ref.h"

static void test_tile_gather_dim_reads_each_row_at_its_columns(void **s)
{
    (void)s;
    char msg[256];
    tile src = ref_tile2(TILE_INT32, 3, 5), idx = ref_tile2(TILE_INT32, 3, 2), dst = ref_tile2(TILE_INT32, 3, 2);
    for (int64_t k = 0; k < 15; k++) ref_set(&src, k, (double)k);
    for (int64_t k = 0; k < 6; k++) ref_set(&idx, k, (double)((k * 3) % 5));
    assert_int_equal(tile_gather_dim(&dst, &src, &idx, msg, sizeof msg), 0);
    for (int64_t k = 0; k < 6; k++) assert_true(ref_get(&dst, k) == (double)((k / 2) * 5 + (k * 3) % 5));
    ref_set(&dst, 0, 42);
    ref_set(&idx, 3, 5);
    assert_int_equal(tile_gather_dim(&dst, &src, &idx, msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.tensor.gather: index 5 at [1, 1] is out of range [0, 5)");
    assert_true(ref_get(&dst, 0) == 42);
    free(src.data), free(idx.data), free(dst.data);
}

static void test_tile_scatter_dim_the_last_duplicate_column_wins(void **s)
{
    (void)s;
    char msg[256];
    tile tgt = ref_tile2(TILE_FP32, 2, 4), src = ref_tile2(TILE_FP32, 2, 3), idx = ref_tile2(TILE_INT32, 2, 3), dst = ref_tile2(TILE_FP32, 2, 4);
    for (int64_t k = 0; k < 6; k++) ref_set(&src, k, 10 + (double)k), ref_set(&idx, k, 1);
    assert_int_equal(tile_scatter_dim(&dst, &tgt, &src, &idx, msg, sizeof msg), 0);
    assert_true(ref_get(&dst, 1) == 12 && ref_get(&dst, 5) == 15 && ref_get(&dst, 0) == 0);
    free(tgt.data), free(src.data), free(idx.data), free(dst.data);
}

static void test_tile_scatter_update_writes_whole_rows_the_last_duplicate_winning(void **s)
{
    (void)s;
    char msg[256];
    tile tgt = ref_tile2(TILE_INT16, 4, 3), src = ref_tile2(TILE_INT16, 2, 3), idx = ref_tile2(TILE_INT32, 1, 2), dst = ref_tile2(TILE_INT16, 4, 3);
    for (int64_t k = 0; k < 6; k++) ref_set(&src, k, 7 + (double)k);
    ref_set(&idx, 0, 2), ref_set(&idx, 1, 2);
    tgt.valid[0] = 1;
    assert_int_equal(tile_scatter_update(&dst, &tgt, &src, &idx, msg, sizeof msg), 0);
    assert_true(ref_get(&dst, 6) == 10 && ref_get(&dst, 8) == 12 && dst.valid[0] == 3 && dst.valid[1] == 3);
    ref_set(&idx, 1, 4);
    assert_int_equal(tile_scatter_update(&dst, &tgt, &src, &idx, msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.scatter_update: index 4 at [0, 1] is out of range [0, 4)");
    free(tgt.data), free(src.data), free(idx.data), free(dst.data);
}

static void test_tile_gatherb_copies_32_byte_blocks_at_aligned_offsets(void **s)
{
    (void)s;
    char msg[256];
    tile src = ref_tile2(TILE_INT32, 2, 16), off = ref_tile2(TILE_INT32, 1, 2), dst = ref_tile2(TILE_INT32, 1, 16);
    for (int64_t k = 0; k < 32; k++) ref_set(&src, k, (double)k);
    ref_set(&off, 0, 96), ref_set(&off, 1, 0);
    assert_int_equal(tile_gatherb(&dst, &src, &off, msg, sizeof msg), 0);
    for (int64_t k = 0; k < 8; k++) assert_true(ref_get(&dst, k) == 24 + (double)k && ref_get(&dst, 8 + k) == (double)k);
    ref_set(&off, 1, 100);
    assert_int_equal(tile_gatherb(&dst, &src, &off, msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.gatherb: offset 100 at [0, 1] is out of range [0, 97)");
    ref_set(&off, 1, 16);
    assert_int_equal(tile_gatherb(&dst, &src, &off, msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.gatherb: offset 16 at [0, 1] is not a multiple of 32 bytes");
    free(src.data), free(off.data), free(dst.data);
}

static void test_tile_mgather_rows_and_each_out_of_range_policy(void **s)
{
    (void)s;
    char msg[256];
    tile mem = ref_tile2(TILE_FP32, 4, 2), idx = ref_tile2(TILE_INT32, 1, 3), rows = ref_tile2(TILE_FP32, 3, 2), el = ref_tile2(TILE_FP32, 1, 3);
    for (int64_t k = 0; k < 8; k++) ref_set(&mem, k, 1 + (double)k);
    ref_set(&idx, 0, 3), ref_set(&idx, 1, -1), ref_set(&idx, 2, 9);
    assert_int_equal(tile_mgather(&rows, &mem, &idx, TILE_OOB_UNDEFINED << 1, msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.mgather: index -1 at [0, 1] is out of range [0, 4)");
    assert_int_equal(tile_mgather(&rows, &mem, &idx, TILE_OOB_ZERO << 1, msg, sizeof msg), 0);
    assert_true(ref_get(&rows, 0) == 7 && ref_get(&rows, 2) == 0 && ref_get(&rows, 5) == 0 && rows.valid[0] == 3);
    const double want[3][3] = {{4, 1, 8}, {4, 8, 2}, {4, 0, 0}}; /* elements 3, -1, 9 of 8: clamp, wrap, zero */
    for (int p = 0; p < 3; p++) {
        assert_int_equal(tile_mgather(&el, &mem, &idx, 1 | (p + 1) << 1, msg, sizeof msg), 0);
        for (int k = 0; k < 3; k++) assert_true(ref_get(&el, k) == want[p][k]);
    }
    free(mem.data), free(idx.data), free(rows.data), free(el.data);
}

static void test_tile_sort32_fp16_pairs_value_then_int16_index(void **s)
{
    (void)s;
    char msg[256];
    tile src = ref_tile2(TILE_FP16, 1, 32), idx = ref_tile2(TILE_INT16, 1, 32), dst = ref_tile2(TILE_FP16, 1, 64);
    for (int64_t k = 0; k < 32; k++) ref_set(&src, k, (double)(k % 4)), ref_set(&idx, k, 100 + (double)k);
    assert_int_equal(tile_sort32(&dst, &src, &idx, msg, sizeof msg), 0);
    const int16_t *d = dst.data;
    assert_true(base_f16_to_f32((uint16_t)d[0]) == 3 && d[1] == 103 && d[3] == 107 && base_f16_to_f32((uint16_t)d[62]) == 0 && d[63] == 128);
    free(src.data), free(idx.data), free(dst.data);
}

static void test_tile_merge_keeps_the_first_source_first_on_ties(void **s)
{
    (void)s;
    char msg[256];
    tile a = ref_tile2(TILE_FP32, 1, 4), b = ref_tile2(TILE_FP32, 1, 4), dst = ref_tile2(TILE_FP32, 1, 10);
    float av[] = {5, 1, 2, 2}, bv[] = {5, 9, 1, 8}; /* (value, index) pairs: a = (5, 1) (2, 2); b = (5, 9) (1, 8) */
    memcpy(a.data, av, sizeof av), memcpy(b.data, bv, sizeof bv);
    assert_int_equal(tile_merge(&dst, &a, &b, msg, sizeof msg), 0);
    const float *d = dst.data;
    assert_true(d[1] == 1 && d[3] == 9 && d[5] == 2 && d[7] == 8 && dst.valid[1] == 8 && d[8] == 0);
    b.valid[1] = 3;
    assert_int_equal(tile_merge(&dst, &a, &b, msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.mrgsort: a source's valid region has 3 columns, not whole (value, index) pairs");
    free(a.data), free(b.data), free(dst.data);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_tile_gather_dim_reads_each_row_at_its_columns),
    cmocka_unit_test(test_tile_scatter_dim_the_last_duplicate_column_wins),
    cmocka_unit_test(test_tile_scatter_update_writes_whole_rows_the_last_duplicate_winning),
    cmocka_unit_test(test_tile_gatherb_copies_32_byte_blocks_at_aligned_offsets),
    cmocka_unit_test(test_tile_mgather_rows_and_each_out_of_range_policy),
    cmocka_unit_test(test_tile_sort32_fp16_pairs_value_then_int16_index),
    cmocka_unit_test(test_tile_merge_keeps_the_first_source_first_on_ties),
};

PTO_TEST_MAIN(tests)
