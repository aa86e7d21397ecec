/*
 * test_tile_window.c - the window kernels tile_slice and tile_assemble:
 * values against hand-computed references, valid regions (shift, cut,
 * valid_shape, dropped and added unit axes; the prefix box of an insert),
 * the FP32 -> BF16/FP16 insert rounded to nearest even, and the bounds
 * texts.
 */
#include <string.h>

#include "harness.h"
#include "tile/tile.h"

static tile win_tile(void *data, tile_dtype dt, int rank, const int64_t *shape, const int64_t *valid)
{
    tile t = {.data = data, .dtype = (uint8_t)dt, .rank = (uint8_t)rank};
    for (int d = 0; d < rank; d++) t.shape[d] = shape[d], t.valid[d] = valid[d];
    return t;
}

static void test_slice_kernel_values_and_regions(void **s)
{
    (void)s;
    float a[8 * 8], b[16];
    char msg[160];
    for (int k = 0; k < 64; k++) a[k] = (float)k;
    /* a [8, 8] valid [6, 8]; window [4, 4] at [3, 2] -> rows 3..6, valid [3, 4] (row 6 is past a's region) */
    tile x = win_tile(a, TILE_FP32, 2, (int64_t[]){8, 8}, (int64_t[]){6, 8}), y = win_tile(b, TILE_FP32, 2, (int64_t[]){4, 4}, (int64_t[]){0, 0});
    memset(a + 48, 0, 16 * sizeof a[0]); /* tile.h: 0 outside the region */
    assert_int_equal(tile_slice(&y, &x, (int64_t[]){3, 2}, (int64_t[]){4, 4}, NULL, msg, sizeof msg), 0);
    assert_true(y.valid[0] == 3 && y.valid[1] == 4);
    assert_true(b[0] == 26.0f && b[3] == 29.0f && b[4] == 34.0f && b[11] == 45.0f && b[12] == 0.0f);
    /* valid_shape [2, 3] cuts further; the elements cut away read 0 */
    assert_int_equal(tile_slice(&y, &x, (int64_t[]){3, 2}, (int64_t[]){4, 4}, (int64_t[]){2, 3}, msg, sizeof msg), 0);
    assert_true(y.valid[0] == 2 && y.valid[1] == 3 && b[2] == 28.0f && b[3] == 0.0f && b[8] == 0.0f);
    /* a valid_shape entry of -1 is none */
    assert_int_equal(tile_slice(&y, &x, (int64_t[]){3, 2}, (int64_t[]){4, 4}, (int64_t[]){-1, 2}, msg, sizeof msg), 0);
    assert_true(y.valid[0] == 3 && y.valid[1] == 2);
    /* a window wholly past the region is empty */
    assert_int_equal(tile_slice(&y, &x, (int64_t[]){4, 0}, (int64_t[]){4, 4}, NULL, msg, sizeof msg), 0);
    assert_true(y.valid[0] == 2 && y.valid[1] == 4);
    x.valid[0] = 4;
    assert_int_equal(tile_slice(&y, &x, (int64_t[]){4, 0}, (int64_t[]){4, 4}, NULL, msg, sizeof msg), 0);
    assert_true(y.valid[0] == 0 && y.valid[1] == 0 && b[0] == 0.0f);
    /* rank 3 [2, 4, 8] window [1, 4, 2] at [1, 0, 6] into a [4, 2] tile (axis 0 dropped) */
    x = win_tile(a, TILE_FP32, 3, (int64_t[]){2, 4, 8}, (int64_t[]){2, 4, 8});
    for (int k = 0; k < 64; k++) a[k] = (float)k;
    y = win_tile(b, TILE_FP32, 2, (int64_t[]){4, 2}, (int64_t[]){0, 0});
    assert_int_equal(tile_slice(&y, &x, (int64_t[]){1, 0, 6}, (int64_t[]){1, 4, 2}, NULL, msg, sizeof msg), 0);
    assert_true(y.valid[0] == 4 && y.valid[1] == 2 && b[0] == 38.0f && b[1] == 39.0f && b[7] == 63.0f);
    /* rank 1 [16] window [8] at [4] into [1, 8] (a leading unit axis back), valid 6 of 8 */
    x = win_tile(a, TILE_FP32, 1, (int64_t[]){16}, (int64_t[]){10});
    memset(a + 10, 0, 6 * sizeof a[0]);
    y = win_tile(b, TILE_FP32, 2, (int64_t[]){1, 8}, (int64_t[]){0, 0});
    assert_int_equal(tile_slice(&y, &x, (int64_t[]){4}, (int64_t[]){8}, NULL, msg, sizeof msg), 0);
    assert_true(y.valid[0] == 1 && y.valid[1] == 6 && b[0] == 4.0f && b[5] == 9.0f && b[6] == 0.0f);
}

static void test_slice_kernel_bounds_texts(void **s)
{
    (void)s;
    int32_t a[32 * 16] = {0}, b[16 * 16];
    char msg[160];
    tile x = win_tile(a, TILE_INT32, 2, (int64_t[]){32, 16}, (int64_t[]){32, 16}), y = win_tile(b, TILE_INT32, 2, (int64_t[]){16, 16}, (int64_t[]){0, 0});
    assert_int_equal(tile_slice(&y, &x, (int64_t[]){24, 0}, (int64_t[]){16, 16}, NULL, msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.slice: offset 24 + extent 16 exceeds dimension 0 of extent 32");
    assert_int_equal(tile_slice(&y, &x, (int64_t[]){0, -1}, (int64_t[]){16, 16}, NULL, msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.slice: offset 1 is negative (-1)");
    assert_int_equal(tile_slice(&y, &x, (int64_t[]){16, 0}, (int64_t[]){16, 16}, NULL, msg, sizeof msg), 0);
}

static void test_assemble_kernel_values_and_regions(void **s)
{
    (void)s;
    int32_t t[4 * 8], src[2 * 3] = {1, 2, 3, 4, 5, 6}, d[4 * 8];
    char msg[160];
    /* target [4, 8] valid [2, 2] (7 inside, 0 outside); source [2, 3] at [1, 4] -> region [3, 7] */
    memset(t, 0, sizeof t);
    t[0] = t[1] = t[8] = t[9] = 7;
    tile x = win_tile(t, TILE_INT32, 2, (int64_t[]){4, 8}, (int64_t[]){2, 2}), v = win_tile(src, TILE_INT32, 2, (int64_t[]){2, 3}, (int64_t[]){1, 2});
    tile y = win_tile(d, TILE_INT32, 2, (int64_t[]){4, 8}, (int64_t[]){0, 0});
    src[2] = src[3] = src[4] = src[5] = 0; /* source valid [1, 2]: its whole buffer is written anyway */
    assert_int_equal(tile_assemble(&y, &x, &v, (int64_t[]){1, 4}, msg, sizeof msg), 0);
    assert_true(y.valid[0] == 3 && y.valid[1] == 7);
    int32_t want[32] = {7, 7, 0, 0, 0, 0, 0, 0, 7, 7, 0, 0, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    assert_memory_equal(d, want, sizeof want);
    assert_true(t[12] == 0 && x.valid[0] == 2); /* the target is unchanged */
    /* in place, inside the region: the region stays */
    assert_int_equal(tile_assemble(&x, &x, &v, (int64_t[]){0, 0}, msg, sizeof msg), 0);
    assert_true(x.valid[0] == 2 && x.valid[1] == 3 && t[0] == 1 && t[1] == 2 && t[2] == 0 && t[8] == 0 && t[9] == 0);
    /* an empty target: the region is the written box's end */
    x.valid[0] = 0, memset(t, 0, sizeof t);
    assert_int_equal(tile_assemble(&x, &x, &v, (int64_t[]){2, 5}, msg, sizeof msg), 0);
    assert_true(x.valid[0] == 4 && x.valid[1] == 8);
    /* bounds */
    assert_int_equal(tile_assemble(&y, &x, &v, (int64_t[]){3, 0}, msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.assemble: offset 3 + extent 2 exceeds dimension 0 of extent 4");
    assert_int_equal(tile_assemble(&y, &x, &v, (int64_t[]){0, -2}, msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.assemble: offset 1 is negative (-2)");
}

static void test_assemble_kernel_fp32_into_half_rounds_to_nearest_even(void **s)
{
    (void)s;
    /* 1 + 2^-8 is halfway between two BF16 values (1 and 1 + 2^-7): even keeps 1;
     * 1 + 3 * 2^-8 rounds up to 1 + 2^-6; for FP16, 1 + 2^-11 is halfway: 1 */
    float src[2] = {1.0f + 1.0f / 256, 1.0f + 3.0f / 256}, hsrc[2] = {1.0f + 1.0f / 2048, 1.0f + 3.0f / 2048};
    uint16_t t[2 * 4] = {0};
    char msg[160];
    tile x = win_tile(t, TILE_BF16, 2, (int64_t[]){2, 4}, (int64_t[]){2, 4}), v = win_tile(src, TILE_FP32, 2, (int64_t[]){1, 2}, (int64_t[]){1, 2});
    assert_int_equal(tile_assemble(&x, &x, &v, (int64_t[]){1, 2}, msg, sizeof msg), 0);
    assert_int_equal(t[6], 0x3F80);
    assert_int_equal(t[7], 0x3F82);
    assert_int_equal(t[5], 0);
    x.dtype = TILE_FP16, v.data = hsrc;
    assert_int_equal(tile_assemble(&x, &x, &v, (int64_t[]){0, 0}, msg, sizeof msg), 0);
    assert_int_equal(t[0], 0x3C00);
    assert_int_equal(t[1], 0x3C02);
    /* FP16 into FP32 is no insert */
    tile w = win_tile(src, TILE_FP32, 2, (int64_t[]){1, 2}, (int64_t[]){1, 2});
    assert_int_equal(tile_assemble(&w, &w, &x, (int64_t[]){0, 0}, msg, sizeof msg), -1);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_slice_kernel_values_and_regions),
    cmocka_unit_test(test_slice_kernel_bounds_texts),
    cmocka_unit_test(test_assemble_kernel_values_and_regions),
    cmocka_unit_test(test_assemble_kernel_fp32_into_half_rounds_to_nearest_even),
};

PTO_TEST_MAIN(tests)
