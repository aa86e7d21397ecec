/*
 * tile_transpose.c - the tile kernel of pl.transpose and pl.transpose_view:
 * a tile with two axes swapped.  Around the axes i < j the shape splits
 * into five extents [outer, X, mid, Y, inner], and
 * dst[o][y][m][x][k] = a[o][x][m][y][k].  The (x, y) plane is walked in
 * square blocks (reads and writes stay in cache); the innermost loop
 * copies inner elements as unsigned integers of the dtype's width, so one
 * loop serves every dtype.  The whole buffer moves, zeros included, so
 * tile.h's invariant holds for the swapped valid region.
 */
#include <stdint.h>

#include "tile/tile_int.h"

enum { TR_BLOCK = 16 };

static int64_t tr_min(int64_t a, int64_t b) { return a < b ? a : b; }

#define TR_KERNEL(T)                                                                                      \
    static void tr_copy_##T(void *dst, const void *src, const int64_t e[5])                              \
    {                                                                                                     \
        const T *s = src;                                                                                 \
        T *d = dst;                                                                                       \
        int64_t X = e[1], M = e[2], Y = e[3], K = e[4];                                                   \
        for (int64_t o = 0; o < e[0]; o++)                                                                \
            for (int64_t m = 0; m < M; m++)                                                               \
                for (int64_t y0 = 0; y0 < Y; y0 += TR_BLOCK)                                              \
                    for (int64_t x0 = 0; x0 < X; x0 += TR_BLOCK)                                          \
                        for (int64_t y = y0, y1 = tr_min(Y, y0 + TR_BLOCK); y < y1; y++)                  \
                            for (int64_t x = x0, x1 = tr_min(X, x0 + TR_BLOCK); x < x1; x++) {            \
                                const T *sp = s + (((o * X + x) * M + m) * Y + y) * K;                    \
                                T *dp = d + (((o * Y + y) * M + m) * X + x) * K;                          \
                                for (int64_t k = 0; k < K; k++) dp[k] = sp[k];                            \
                            }                                                                             \
    }
TR_KERNEL(uint8_t)
TR_KERNEL(uint16_t)
TR_KERNEL(uint32_t)
TR_KERNEL(uint64_t)
#undef TR_KERNEL

int tile_transpose(tile *dst, const tile *a, int i, int j, char *msg, size_t cap)
{
    if (i > j) {
        int k = i;
        i = j, j = k;
    }
    int ok = i >= 0 && i < j && j < a->rank && dst->rank == a->rank && dst->dtype == a->dtype;
    for (int d = 0; ok && d < a->rank; d++) ok = dst->shape[d] == a->shape[d == i ? j : d == j ? i : d];
    if (!ok) return tile_fail(msg, cap, "pl.transpose: the result tile does not match the source");
    int64_t e[5] = {1, a->shape[i], 1, a->shape[j], 1};
    for (int d = 0; d < a->rank; d++)
        if (d != i && d != j) e[d < i ? 0 : d < j ? 2 : 4] *= a->shape[d];
    switch (tile_dtype_size((tile_dtype)a->dtype)) {
    case 1: tr_copy_uint8_t(dst->data, a->data, e); break;
    case 2: tr_copy_uint16_t(dst->data, a->data, e); break;
    case 4: tr_copy_uint32_t(dst->data, a->data, e); break;
    default: tr_copy_uint64_t(dst->data, a->data, e); break;
    }
    for (int d = 0; d < TILE_MAX_RANK; d++) dst->valid[d] = a->valid[d == i ? j : d == j ? i : d];
    return 0;
}
