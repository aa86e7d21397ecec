/*
 * test_tile_transpose.c - the pl.transpose / pl.transpose_view tile kernel
 * (tile_transpose): the data of every element width moved as an index
 * permutation would move it (ranks 2 to 4, extents off the block size),
 * the valid region swapped with the zeros outside it, and the text for a
 * result tile that does not match.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "tile/tile.h"

static tile tr_tile(void *data, tile_dtype dt, int rank, const int64_t *shape, const int64_t *valid)
{
    tile t = {.data = data, .dtype = (uint8_t)dt, .rank = (uint8_t)rank};
    for (int d = 0; d < rank; d++) t.shape[d] = shape[d], t.valid[d] = valid[d];
    return t;
}

/* Checks dst against a with axes i and j swapped, element by element
 * (bytes of width es), through each element's index. */
static void tr_expect_swapped(const tile *dst, const tile *a, int i, int j, size_t es)
{
    int64_t n = 1, idx[TILE_MAX_RANK];
    for (int d = 0; d < a->rank; d++) n *= a->shape[d];
    for (int64_t f = 0; f < n; f++) {
        int64_t r = f, g = 0;
        for (int d = a->rank - 1; d >= 0; d--) idx[d] = r % a->shape[d], r /= a->shape[d];
        int64_t t = idx[i];
        idx[i] = idx[j], idx[j] = t;
        for (int d = 0; d < a->rank; d++) g = g * dst->shape[d] + idx[d];
        assert_memory_equal((const char *)dst->data + g * (int64_t)es, (const char *)a->data + f * (int64_t)es, es);
    }
}

static void test_transpose_kernel_rank2_valid_region(void **s)
{
    (void)s;
    float a[16 * 32] = {0}, b[32 * 16];
    char msg[128];
    for (int r = 0; r < 10; r++)
        for (int c = 0; c < 32; c++) a[r * 32 + c] = (float)(r * 100 + c + 1);
    memset(b, 0x7f, sizeof b);
    tile x = tr_tile(a, TILE_FP32, 2, (int64_t[]){16, 32}, (int64_t[]){10, 32});
    tile y = tr_tile(b, TILE_FP32, 2, (int64_t[]){32, 16}, (int64_t[]){0, 0});
    assert_int_equal(tile_transpose(&y, &x, 0, 1, msg, sizeof msg), 0);
    assert_true(y.valid[0] == 32 && y.valid[1] == 10);
    for (int r = 0; r < 32; r++)
        for (int c = 0; c < 16; c++) assert_true(b[r * 16 + c] == (c < 10 ? (float)(c * 100 + r + 1) : 0.0f));
    /* the axes in either order */
    memset(b, 0, sizeof b);
    assert_int_equal(tile_transpose(&y, &x, 1, 0, msg, sizeof msg), 0);
    tr_expect_swapped(&y, &x, 0, 1, 4);
}

static void test_transpose_kernel_every_width_and_rank(void **s)
{
    (void)s;
    static const struct { int rank, i, j; int64_t shape[4]; } cases[] = {
        {2, 0, 1, {17, 33}},       {3, 0, 2, {3, 5, 7}},       {3, 1, 2, {2, 19, 18}},
        {3, 0, 1, {4, 6, 5}},      {4, 1, 2, {2, 3, 4, 5}},    {4, 3, 0, {3, 2, 2, 20}},
    };
    static const struct { tile_dtype dt; size_t es; } dts[] = {{TILE_INT8, 1}, {TILE_BF16, 2}, {TILE_FP16, 2}, {TILE_INT32, 4}, {TILE_FP32, 4}};
    char msg[128];
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (size_t k = 0; k < sizeof dts / sizeof dts[0]; k++) {
            int64_t n = 1, out[4], valid[4];
            for (int d = 0; d < cases[c].rank; d++) n *= cases[c].shape[d], out[d] = cases[c].shape[d], valid[d] = cases[c].shape[d] - 1;
            out[cases[c].i] = cases[c].shape[cases[c].j], out[cases[c].j] = cases[c].shape[cases[c].i];
            unsigned char *a = malloc((size_t)n * dts[k].es), *b = calloc((size_t)n, dts[k].es);
            assert_true(a && b);
            for (int64_t e = 0; e < n * (int64_t)dts[k].es; e++) a[e] = (unsigned char)(e * 7 + 3);
            tile x = tr_tile(a, dts[k].dt, cases[c].rank, cases[c].shape, valid);
            tile y = tr_tile(b, dts[k].dt, cases[c].rank, out, (int64_t[]){0, 0, 0, 0});
            assert_int_equal(tile_transpose(&y, &x, cases[c].i, cases[c].j, msg, sizeof msg), 0);
            tr_expect_swapped(&y, &x, cases[c].i, cases[c].j, dts[k].es);
            for (int d = 0; d < cases[c].rank; d++)
                assert_int_equal(y.valid[d], valid[d == cases[c].i ? cases[c].j : d == cases[c].j ? cases[c].i : d]);
            free(a), free(b);
        }
}

static void test_transpose_kernel_mismatched_result(void **s)
{
    (void)s;
    float a[64] = {0}, b[64];
    char msg[128];
    tile x = tr_tile(a, TILE_FP32, 2, (int64_t[]){4, 16}, (int64_t[]){4, 16});
    tile y = tr_tile(b, TILE_FP32, 2, (int64_t[]){4, 16}, (int64_t[]){0, 0});
    assert_int_equal(tile_transpose(&y, &x, 0, 1, msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.transpose: the result tile does not match the source");
    y = tr_tile(b, TILE_INT32, 2, (int64_t[]){16, 4}, (int64_t[]){0, 0});
    assert_int_equal(tile_transpose(&y, &x, 0, 1, msg, sizeof msg), -1);
    y = tr_tile(b, TILE_FP32, 2, (int64_t[]){16, 4}, (int64_t[]){0, 0});
    assert_int_equal(tile_transpose(&y, &x, 1, 1, msg, sizeof msg), -1);
    assert_int_equal(tile_transpose(&y, &x, 0, 2, msg, sizeof msg), -1);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_transpose_kernel_rank2_valid_region),
    cmocka_unit_test(test_transpose_kernel_every_width_and_rank),
    cmocka_unit_test(test_transpose_kernel_mismatched_result),
};

PTO_TEST_MAIN(tests)
