/*
 * tile_shape.c - the tile kernels that build a fully valid tile from the
 * buffers as they are: pl.concat (two rank-2 tiles side by side), pl.fillpad
 * (the elements outside the valid region set to a pad value) and
 * pl.tile.full (a constant tile), pl.fillpad_expand (the valid region
 * into a larger tile of the pad value), pl.reshape (the buffer re-read in a
 * new shape) and pl.set_validshape (a new valid region over the same
 * buffer).  Each relies on tile.h's invariant (0
 * outside the valid region) and works by whole rows: memcpy, or tile_fill
 * over a row's tail.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tile/tile_int.h"

int tile_concat(tile *dst, const tile *a, const tile *b, char *msg, size_t cap)
{
    if (a->rank != 2 || b->rank != 2 || dst->rank != 2) return tile_fail(msg, cap, "tile.concat requires 2D tiles");
    if (a->dtype != b->dtype || dst->dtype != a->dtype)
        return tile_fail(msg, cap, "tile.concat: inputs must have same dtype, got %s vs %s", tile_dtype_name((tile_dtype)a->dtype),
                         tile_dtype_name((tile_dtype)b->dtype));
    int64_t R = a->shape[0], C0 = a->shape[1], C1 = b->shape[1];
    if (b->shape[0] != R || dst->shape[0] != R || dst->shape[1] != C0 + C1)
        return tile_fail(msg, cap, "tile.concat: row count must match, got %lld vs %lld", (long long)R, (long long)b->shape[0]);
    size_t es = tile_dtype_size((tile_dtype)a->dtype);
    const char *pa = a->data, *pb = b->data;
    char *pd = dst->data;
    for (int64_t i = 0; i < R; i++) {
        memcpy(pd + (size_t)(i * (C0 + C1)) * es, pa + (size_t)(i * C0) * es, (size_t)C0 * es);
        memcpy(pd + (size_t)(i * (C0 + C1) + C0) * es, pb + (size_t)(i * C1) * es, (size_t)C1 * es);
    }
    memcpy(dst->valid, dst->shape, sizeof dst->valid);
    return 0;
}

/* The pad value of kind pad (tile_pad) for dtype dt. */
static tile_scalar pad_scalar(tile_dtype dt, tile_pad pad)
{
    tile_scalar v = {.i = 0};
    if (tile_dtype_is_float(dt)) {
        if (pad != TILE_PAD_ZERO) v.f = pad == TILE_PAD_MAX ? INFINITY : -INFINITY;
        else v.f = 0;
        return v;
    }
    int64_t lo, hi;
    tile_int_range(dt, &lo, &hi);
    if (pad == TILE_PAD_MAX) v.i = hi;
    if (pad == TILE_PAD_MIN) v.i = lo;
    return v;
}

int tile_fillpad(tile *dst, const tile *a, tile_pad pad, char *msg, size_t cap)
{
    if (dst->dtype != a->dtype || dst->rank != a->rank || memcmp(dst->shape, a->shape, a->rank * sizeof a->shape[0]))
        return tile_fail(msg, cap, "pl.fillpad: the result tile does not match the source");
    if (pad != TILE_PAD_ZERO && pad != TILE_PAD_MAX && pad != TILE_PAD_MIN)
        return tile_fail(msg, cap, "fillpad pad_value cannot be PadValue.null");
    if (tile_no_bool(a, "fillpad", msg, cap)) return -1;
    if (dst->data != a->data) memcpy(dst->data, a->data, (size_t)tile_bytes(a));
    int r = a->rank, full = 1;
    int64_t valid[TILE_MAX_RANK];
    memcpy(valid, a->valid, sizeof valid);
    for (int d = 0; d < r; d++) full &= valid[d] == a->shape[d];
    memcpy(dst->valid, dst->shape, sizeof dst->valid);
    if (full || pad == TILE_PAD_ZERO) return 0; /* outside the valid region the buffer holds 0 already */
    tile_dtype dt = (tile_dtype)a->dtype;
    tile_scalar v = pad_scalar(dt, pad);
    size_t es = tile_dtype_size(dt);
    char *p = dst->data;
    int64_t rows = tile_count(a) / a->shape[r - 1], row_len = a->shape[r - 1];
    int64_t idx[TILE_MAX_RANK] = {0};
    for (int64_t k = 0; k < rows; k++) {
        int inside = 1;
        for (int d = 0; d < r - 1; d++) inside &= idx[d] < valid[d];
        int64_t from = inside ? valid[r - 1] : 0;
        if (from < row_len) tile_fill(p + (size_t)(k * row_len + from) * es, dt, v, row_len - from);
        for (int d = r - 2; d >= 0 && ++idx[d] == a->shape[d]; d--) idx[d] = 0;
    }
    return 0;
}

void tile_full(tile *dst, tile_scalar v)
{
    tile_fill(dst->data, (tile_dtype)dst->dtype, v, tile_count(dst));
    memcpy(dst->valid, dst->shape, sizeof dst->valid);
}

static void dims_text(char *buf, size_t cap, const int64_t *v, int r)
{
    size_t n = 0;
    buf[0] = 0;
    for (int d = 0; d < r && n < cap; d++) {
        int k = snprintf(buf + n, cap - n, "%s%lld", d ? ", " : "[", (long long)v[d]);
        if (k < 0) return;
        n += (size_t)k;
    }
    if (n < cap) snprintf(buf + n, cap - n, "]");
}

int tile_reshape(tile *dst, const tile *a, char *msg, size_t cap)
{
    if (dst->dtype != a->dtype || tile_count(dst) != tile_count(a))
        return tile_fail(msg, cap, "tile.reshape: cannot reshape tile of size %lld into shape with size %lld", (long long)tile_count(a),
                         (long long)tile_count(dst));
    int full = 1, empty = 0;
    for (int d = 0; d < a->rank; d++) full &= a->valid[d] == a->shape[d], empty |= a->valid[d] == 0;
    int64_t valid[TILE_MAX_RANK];
    if (full) {
        memcpy(valid, dst->shape, sizeof valid);
    } else { /* the non-unit axes of a and dst, in order, must agree */
        int i = 0, j = 0, box = 1;
        for (;;) {
            while (i < a->rank && a->shape[i] == 1) i++;
            while (j < dst->rank && dst->shape[j] == 1) valid[j++] = empty ? 0 : 1;
            if (i == a->rank || j == dst->rank) break;
            if (a->shape[i] != dst->shape[j]) {
                box = 0;
                break;
            }
            valid[j++] = a->valid[i++];
        }
        if (!box || i != a->rank || j != dst->rank) {
            char v[96], s[96], t[96];
            dims_text(v, sizeof v, a->valid, a->rank), dims_text(s, sizeof s, a->shape, a->rank);
            dims_text(t, sizeof t, dst->shape, dst->rank);
            return tile_fail(msg, cap, "pl.reshape: the valid region %s of a %s tile is not a box in shape %s; pl.fillpad it first", v, s, t);
        }
        if (empty) memset(valid, 0, sizeof valid);
    }
    for (int d = dst->rank; d < TILE_MAX_RANK; d++) valid[d] = 0;
    if (dst->data != a->data) memcpy(dst->data, a->data, (size_t)tile_bytes(a));
    memcpy(dst->valid, valid, sizeof valid);
    return 0;
}

int tile_fillpad_expand(tile *dst, const tile *a, tile_pad pad, char *msg, size_t cap)
{
    int r = a->rank, smaller = dst->rank != r;
    for (int d = 0; d < r && !smaller; d++) smaller = dst->shape[d] < a->shape[d];
    if (dst->dtype != a->dtype || dst->data == a->data) return tile_fail(msg, cap, "pl.fillpad_expand: the result tile does not fit the source");
    if (smaller) {
        char s[96], t[96];
        dims_text(s, sizeof s, dst->shape, dst->rank), dims_text(t, sizeof t, a->shape, r);
        return tile_fail(msg, cap, "pl.fillpad_expand: shape %s is smaller than the source %s", s, t);
    }
    if (pad != TILE_PAD_ZERO && pad != TILE_PAD_MAX && pad != TILE_PAD_MIN)
        return tile_fail(msg, cap, "fillpad pad_value cannot be PadValue.null");
    tile_dtype dt = (tile_dtype)a->dtype;
    size_t es = tile_dtype_size(dt);
    if (pad == TILE_PAD_ZERO) memset(dst->data, 0, (size_t)tile_bytes(dst));
    else tile_fill(dst->data, dt, pad_scalar(dt, pad), tile_count(dst));
    /* a's valid region row by row (its last axis) to the same index of dst */
    int64_t pa[TILE_MAX_RANK], pd[TILE_MAX_RANK], idx[TILE_MAX_RANK] = {0}, rows = 1, len = a->valid[r - 1];
    pa[r - 1] = pd[r - 1] = 1;
    for (int d = r - 2; d >= 0; d--) pa[d] = pa[d + 1] * a->shape[d + 1], pd[d] = pd[d + 1] * dst->shape[d + 1];
    for (int d = 0; d < r - 1; d++) rows *= a->valid[d];
    const char *src = a->data;
    char *out = dst->data;
    for (int64_t k = 0; len > 0 && k < rows; k++) {
        int64_t so = 0, doff = 0;
        for (int d = 0; d < r - 1; d++) so += idx[d] * pa[d], doff += idx[d] * pd[d];
        memcpy(out + (size_t)doff * es, src + (size_t)so * es, (size_t)len * es);
        for (int d = r - 2; d >= 0 && ++idx[d] == a->valid[d]; d--) idx[d] = 0;
    }
    memcpy(dst->valid, dst->shape, sizeof dst->valid);
    return 0;
}

int tile_set_validshape(tile *dst, const tile *a, int64_t rows, int64_t cols, char *msg, size_t cap)
{
    if (a->rank != 2 || dst->rank != 2 || dst->dtype != a->dtype || dst->shape[0] != a->shape[0] || dst->shape[1] != a->shape[1])
        return tile_fail(msg, cap, "pl.set_validshape requires a rank-2 tile, got rank %d", a->rank);
    int64_t v[2] = {rows, cols};
    for (int d = 0; d < 2; d++) {
        if (v[d] > a->shape[d])
            return tile_fail(msg, cap, "pl.set_validshape: %lld exceeds dimension %d of extent %lld", (long long)v[d], d, (long long)a->shape[d]);
        if (v[d] < 0) return tile_fail(msg, cap, "pl.set_validshape: %lld is negative for dimension %d", (long long)v[d], d);
    }
    if (dst->data != a->data) memcpy(dst->data, a->data, (size_t)tile_bytes(a));
    memset(dst->valid, 0, sizeof dst->valid);
    dst->valid[0] = rows, dst->valid[1] = cols;
    tile_clear_outside(dst); /* a shrunk region; a grown one reads the zeros already there */
    return 0;
}
