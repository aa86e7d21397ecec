/*
 * tile_window.c - the tile kernels that move a box between two tiles:
 * pl.slice (a window of a tile copied out) and pl.assemble (a tile
 * written into a copy of another at an offset).  Both check the window
 * against the larger tile's shape with the user-facing texts, work by
 * whole rows of the last dimension (memcpy, or one FP32 -> FP16/BF16
 * conversion per row) and keep tile.h's invariant: 0 outside the valid
 * region.
 */
#include <string.h>

#include "base/half.h"
#include "tile/tile_int.h"

/* A box of extents ext at off inside a tile of extents shape (rank r):
 * "pl.<op>: offset <o> + extent <e> exceeds dimension <d> of extent <s>". */
static int win_check(const char *op, int r, const int64_t *off, const int64_t *ext, const int64_t *shape, char *msg, size_t cap)
{
    for (int d = 0; d < r; d++) {
        if (off[d] < 0) return tile_fail(msg, cap, "pl.%s: offset %d is negative (%lld)", op, d, (long long)off[d]);
        if (off[d] > shape[d] - ext[d]) /* off + ext > shape, without overflow */
            return tile_fail(msg, cap, "pl.%s: offset %lld + extent %lld exceeds dimension %d of extent %lld", op, (long long)off[d],
                             (long long)ext[d], d, (long long)shape[d]);
    }
    return 0;
}

/* Extents, offsets and the big tile's shape padded to rank 4 with leading 1s (offsets 0). */
typedef struct win_box {
    int64_t ext[4], off[4], big[4];
} win_box;

static void win_pad(win_box *b, int r, const int64_t *ext, const int64_t *off, const int64_t *big)
{
    for (int d = 0; d < 4; d++) {
        int s = d - (4 - r);
        b->ext[d] = s < 0 ? 1 : ext[s], b->off[d] = s < 0 ? 0 : off[s], b->big[d] = s < 0 ? 1 : big[s];
    }
}

/* Runs BODY for every row (last-dimension run of ext[3] elements) of the
 * box, BIG and SMALL the element offsets of its first element in the big
 * tile and in the box's own dense buffer. */
#define WIN_FOR_ROWS(b, BIG, SMALL, BODY)                                                                             \
    for (int64_t i0 = 0; i0 < (b).ext[0]; i0++)                                                                       \
        for (int64_t i1 = 0; i1 < (b).ext[1]; i1++)                                                                   \
            for (int64_t i2 = 0; i2 < (b).ext[2]; i2++) {                                                             \
                int64_t BIG = (((b).off[0] + i0) * (b).big[1] + (b).off[1] + i1) * (b).big[2] + (b).off[2] + i2;     \
                BIG = BIG * (b).big[3] + (b).off[3];                                                                  \
                int64_t SMALL = ((i0 * (b).ext[1] + i1) * (b).ext[2] + i2) * (b).ext[3];                               \
                BODY;                                                                                                 \
            }

int tile_slice(tile *dst, const tile *a, const int64_t *off, const int64_t *shape, const int64_t *valid, char *msg, size_t cap)
{
    int r = a->rank;
    if (win_check("slice", r, off, shape, a->shape, msg, cap)) return -1;
    tile w = {.data = dst->data, .dtype = a->dtype, .rank = a->rank}; /* dst's buffer as the window's shape */
    memcpy(w.shape, shape, (size_t)r * sizeof shape[0]);
    if (dst->dtype != a->dtype || tile_count(&w) != tile_count(dst))
        return tile_fail(msg, cap, "pl.slice: a %s window of %lld elements into a %s tile of %lld", tile_dtype_name((tile_dtype)a->dtype),
                         (long long)tile_count(&w), tile_dtype_name((tile_dtype)dst->dtype), (long long)tile_count(dst));
    size_t es = tile_dtype_size((tile_dtype)a->dtype);
    win_box b;
    win_pad(&b, r, shape, off, a->shape);
    char *to = dst->data;
    const char *from = a->data;
    WIN_FOR_ROWS(b, big, small, memcpy(to + small * (int64_t)es, from + big * (int64_t)es, (size_t)b.ext[3] * es))
    for (int d = 0; d < r; d++) { /* a's region shifted by -off, cut to the window, within valid_shape */
        int64_t v = a->valid[d] - off[d];
        v = v < 0 ? 0 : v > shape[d] ? shape[d] : v;
        w.valid[d] = valid && valid[d] >= 0 && valid[d] < v ? valid[d] : v;
    }
    tile_clear_outside(&w);
    return tile_reshape(dst, &w, msg, cap); /* the window's axes less dropped unit ones (or plus leading ones) */
}

int tile_assemble(tile *dst, const tile *target, const tile *src, const int64_t *off, char *msg, size_t cap)
{
    int r = target->rank;
    int narrow = src->dtype == TILE_FP32 && (target->dtype == TILE_FP16 || target->dtype == TILE_BF16);
    if (src->rank != r || dst->rank != r || dst->dtype != target->dtype || (src->dtype != target->dtype && !narrow))
        return tile_fail(msg, cap, "pl.assemble: a %s source of rank %d into a %s target of rank %d", tile_dtype_name((tile_dtype)src->dtype),
                         src->rank, tile_dtype_name((tile_dtype)target->dtype), r);
    if (win_check("assemble", r, off, src->shape, target->shape, msg, cap)) return -1;
    if (dst != target) memcpy(dst->data, target->data, (size_t)tile_bytes(target)), memcpy(dst->valid, target->valid, sizeof dst->valid);
    size_t es = tile_dtype_size((tile_dtype)target->dtype);
    win_box b;
    win_pad(&b, r, src->shape, off, target->shape);
    char *to = dst->data;
    const char *from = src->data;
    if (narrow) {
        int bf16 = target->dtype == TILE_BF16;
        WIN_FOR_ROWS(b, big, small, base_f32_to_half((uint16_t *)(void *)(to + big * 2), (const float *)(const void *)from + small, b.ext[3], bf16))
    } else {
        WIN_FOR_ROWS(b, big, small, memcpy(to + big * (int64_t)es, from + small * (int64_t)es, (size_t)b.ext[3] * es))
    }
    int empty = 0;
    for (int d = 0; d < r; d++) empty |= dst->valid[d] == 0;
    for (int d = 0; d < r; d++) { /* the smallest prefix box holding the old region and the written box */
        int64_t end = off[d] + src->shape[d];
        dst->valid[d] = empty || end > dst->valid[d] ? end : dst->valid[d];
    }
    return 0;
}
