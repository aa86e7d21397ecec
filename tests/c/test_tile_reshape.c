/*
 * test_tile_reshape.c - the pl.reshape tile kernel (tile_reshape): the data
 * re-read in a new shape, the valid region carried through unit axes, and
 * the texts for a region that is not a box and for a count that differs.
 */
#include "harness.h"
#include "tile/tile.h"

static tile rs_tile(float *data, int rank, const int64_t *shape, const int64_t *valid)
{
    tile t = {.data = data, .dtype = TILE_FP32, .rank = (uint8_t)rank};
    for (int d = 0; d < rank; d++) t.shape[d] = shape[d], t.valid[d] = valid[d];
    return t;
}

static void test_reshape_kernel_valid_regions(void **s)
{
    (void)s;
    float a[64] = {0}, b[64];
    char msg[160];
    for (int k = 0; k < 20; k++) a[k] = (float)k + 1;
    /* [32, 1] valid [20, 1] -> [1, 32] valid [1, 20]; the zeros outside come along */
    tile x = rs_tile(a, 2, (int64_t[]){32, 1}, (int64_t[]){20, 1}), y = rs_tile(b, 2, (int64_t[]){1, 32}, (int64_t[]){0, 0});
    assert_int_equal(tile_reshape(&y, &x, msg, sizeof msg), 0);
    assert_int_equal(y.valid[0], 1);
    assert_int_equal(y.valid[1], 20);
    assert_true(b[19] == 20.0f && b[20] == 0.0f);
    /* [32, 1] valid [20, 1] -> [1, 1, 32] valid [1, 1, 20]; an empty region stays empty */
    y = rs_tile(b, 3, (int64_t[]){1, 1, 32}, (int64_t[]){0, 0, 0});
    assert_int_equal(tile_reshape(&y, &x, msg, sizeof msg), 0);
    assert_true(y.valid[0] == 1 && y.valid[1] == 1 && y.valid[2] == 20);
    x.valid[0] = 0;
    assert_int_equal(tile_reshape(&y, &x, msg, sizeof msg), 0);
    assert_true(y.valid[0] == 0 && y.valid[1] == 0 && y.valid[2] == 0);
    /* [4, 16] fully valid -> [8, 8] fully valid */
    for (int k = 0; k < 64; k++) a[k] = (float)k;
    x = rs_tile(a, 2, (int64_t[]){4, 16}, (int64_t[]){4, 16}), y = rs_tile(b, 2, (int64_t[]){8, 8}, (int64_t[]){0, 0});
    assert_int_equal(tile_reshape(&y, &x, msg, sizeof msg), 0);
    assert_true(y.valid[0] == 8 && y.valid[1] == 8 && b[63] == 63.0f);
    /* [4, 16] valid [2, 16] -> [8, 8]: not a box (under the restricted rule) */
    x.valid[0] = 2;
    assert_int_equal(tile_reshape(&y, &x, msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.reshape: the valid region [2, 16] of a [4, 16] tile is not a box in shape [8, 8]; pl.fillpad it first");
    /* [2, 1, 16] valid [1, 1, 16] -> [2, 16] valid [1, 16] */
    x = rs_tile(a, 3, (int64_t[]){2, 1, 16}, (int64_t[]){1, 1, 16}), y = rs_tile(b, 2, (int64_t[]){2, 16}, (int64_t[]){0, 0});
    assert_int_equal(tile_reshape(&y, &x, msg, sizeof msg), 0);
    assert_true(y.valid[0] == 1 && y.valid[1] == 16);
    /* a count that differs */
    y = rs_tile(b, 2, (int64_t[]){4, 4}, (int64_t[]){0, 0});
    assert_int_equal(tile_reshape(&y, &x, msg, sizeof msg), -1);
    assert_string_equal(msg, "tile.reshape: cannot reshape tile of size 32 into shape with size 16");
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_reshape_kernel_valid_regions),
};

PTO_TEST_MAIN(tests)
