/*
 * tile_gather.c - moving elements by an index tile: pl.gather (dst[i, j] =
 * src.flat[idx[i, j]]) and pl.scatter (dst.flat[idx[i, j]] = src[i, j]).
 *
 * Invariants: an index is a flat row-major offset into the addressed tile's
 * whole buffer; every index is checked against it before any element is
 * written, so a failing call leaves its destination as it was; elements
 * move as bits (any dtype, exact); outside the result's valid region the
 * buffer holds 0.
 */
#include <string.h>

#include "tile/tile_int.h"

/* Element k of index tile t (INT32 or INT16). */
static int64_t gs_index(const tile *t, int64_t k)
{
    return t->dtype == TILE_INT16 ? ((const int16_t *)t->data)[k] : ((const int32_t *)t->data)[k];
}

/* 0 when every index of t over rows x cols lies in [0, n); else -1 after
 * op's message naming the first one that does not. */
static int gs_check(const char *op, const tile *t, int64_t rows, int64_t cols, int64_t n, char *msg, size_t cap)
{
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++) {
            int64_t v = gs_index(t, i * t->shape[1] + j);
            if (v < 0 || v >= n) {
                snprintf(msg, cap, "%s: index %lld at [%lld, %lld] is out of range [0, %lld)", op, (long long)v, (long long)i,
                         (long long)j, (long long)n);
                return -1;
            }
        }
    return 0;
}

int tile_gather(tile *dst, const tile *src, const tile *idx, char *msg, size_t cap)
{
    int64_t rows = idx->valid[0], cols = idx->valid[1], n = tile_count(src);
    if (gs_check("pl.gather", idx, rows, cols, n, msg, cap)) return -1;
    size_t es = tile_dtype_size((tile_dtype)src->dtype);
    const char *s = src->data;
    char *d = dst->data;
    memset(d, 0, (size_t)tile_bytes(dst));
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++) {
            int64_t k = i * dst->shape[1] + j;
            memcpy(d + (size_t)k * es, s + (size_t)gs_index(idx, i * idx->shape[1] + j) * es, es);
        }
    dst->valid[0] = rows, dst->valid[1] = cols;
    return 0;
}

int tile_scatter(tile *dst, const tile *target, const tile *src, const tile *idx, char *msg, size_t cap)
{
    int64_t v[2], n = tile_count(target), tc = target->shape[1];
    tile_region_meet(v, src->valid, idx->valid, 2);
    if (gs_check("pl.scatter", idx, v[0], v[1], n, msg, cap)) return -1;
    int64_t rows = target->valid[0], cols = target->valid[1];
    for (int64_t i = 0; i < v[0]; i++)
        for (int64_t j = 0; j < v[1]; j++) {
            int64_t k = gs_index(idx, i * idx->shape[1] + j);
            if (k / tc + 1 > rows) rows = k / tc + 1;
            if (k % tc + 1 > cols) cols = k % tc + 1;
        }
    size_t es = tile_dtype_size((tile_dtype)src->dtype);
    const char *s = src->data;
    char *d = dst->data;
    memcpy(d, target->data, (size_t)tile_bytes(dst));
    for (int64_t i = 0; i < v[0]; i++)
        for (int64_t j = 0; j < v[1]; j++)
            memcpy(d + (size_t)gs_index(idx, i * idx->shape[1] + j) * es, s + (size_t)(i * src->shape[1] + j) * es, es);
    dst->valid[0] = rows, dst->valid[1] = cols;
    return 0;
}
