/*
 * tile_elem.c - one element of a tile or of a strided tensor window:
 * pl.read into a scalar, pl.write of a scalar (tile.h).
 *
 * An element is named by one index per axis, or by one flat row-major
 * index over the whole shape; either is checked against the shape before
 * any byte is touched.  A tile's element outside its valid region is the
 * buffer's zero pad (tile.h's invariant), so it is read like any other.
 */
#include <string.h>

#include "base/half.h"
#include "tile/tile_int.h"

/* x = the index per axis of element idx (nidx == rank: one per axis; else
 * one flat row-major index) of shape; out of range: the op's message. */
static int elem_index(const int64_t *shape, int rank, const int64_t *idx, int nidx, const char *op, int64_t *x, char *msg, size_t cap)
{
    if (nidx == rank) {
        for (int d = 0; d < rank; d++) {
            if (idx[d] < 0 || idx[d] >= shape[d])
                return tile_fail(msg, cap, "%s: index %lld is out of range for dimension %d of extent %lld", op, (long long)idx[d], d,
                                 (long long)shape[d]);
            x[d] = idx[d];
        }
        return 0;
    }
    int64_t count = 1;
    for (int d = 0; d < rank; d++) count *= shape[d];
    if (idx[0] < 0 || idx[0] >= count)
        return tile_fail(msg, cap, "%s: index %lld is out of range for dimension 0 of extent %lld", op, (long long)idx[0], (long long)count);
    int64_t f = idx[0];
    for (int d = rank - 1; d >= 0; d--) x[d] = f % shape[d], f /= shape[d];
    return 0;
}

/* The element of dtype dt at p (an unsigned one zero-extended). */
static tile_scalar elem_get(const char *p, tile_dtype dt)
{
    tile_scalar v = {0};
    float f;
    uint16_t h;
    switch (dt) {
    case TILE_FP32: memcpy(&f, p, 4), v.f = f; break;
    case TILE_FP16: memcpy(&h, p, 2), v.f = base_f16_to_f32(h); break;
    case TILE_BF16: memcpy(&h, p, 2), v.f = base_bf16_to_f32(h); break;
    case TILE_BOOL: v.i = *p != 0; break;
#define ELEM_GET_(T, U, sfx, DT)      \
    case DT: {                        \
        T x;                          \
        memcpy(&x, p, sizeof x);      \
        v.i = x;                      \
        break;                        \
    }
        TILE_INT_CLASSES(ELEM_GET_)
#undef ELEM_GET_
    }
    return v;
}

int tile_read(const tile *t, const int64_t *idx, int nidx, tile_scalar *v, char *msg, size_t cap)
{
    int64_t x[TILE_MAX_RANK], pos = 0;
    if (elem_index(t->shape, t->rank, idx, nidx, "pl.read", x, msg, cap)) return -1;
    for (int d = 0; d < t->rank; d++) pos = pos * t->shape[d] + x[d];
    *v = elem_get((const char *)t->data + pos * (int64_t)tile_dtype_size((tile_dtype)t->dtype), (tile_dtype)t->dtype);
    return 0;
}

char *tile_tensor_at(const tile_tensor *t, const int64_t *idx, int nidx, const char *op, char *msg, size_t cap)
{
    int64_t x[TILE_MAX_RANK], e = t->base;
    if (elem_index(t->shape, t->rank, idx, nidx, op, x, msg, cap)) return NULL;
    for (int d = 0; d < t->rank; d++) {
        if (x[d] >= t->shape[d] - t->hidden[d])
            return tile_fail(msg, cap, "%s: index %lld is outside the valid region of dimension %d (%lld of %lld valid)", op, (long long)x[d], d,
                             (long long)(t->shape[d] - t->hidden[d]), (long long)t->shape[d]), NULL;
        e += x[d] * t->strides[d];
    }
    return t->addr + e * (int64_t)tile_dtype_size((tile_dtype)t->dtype);
}

int tile_tensor_read(const tile_tensor *t, const int64_t *idx, int nidx, tile_scalar *v, char *msg, size_t cap)
{
    const char *p = tile_tensor_at(t, idx, nidx, "pl.read", msg, cap);
    if (!p) return -1;
    *v = elem_get(p, (tile_dtype)t->dtype);
    return 0;
}

int tile_tensor_write(const tile_tensor *t, const int64_t *idx, int nidx, tile_scalar v, char *msg, size_t cap)
{
    char *p = tile_tensor_at(t, idx, nidx, "pl.write", msg, cap);
    if (!p) return -1;
    tile_fill(p, (tile_dtype)t->dtype, v, 1);
    return 0;
}
