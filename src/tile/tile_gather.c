/*
 * tile_gather.c - moving elements by an index tile: pl.gather (dst[i, j] =
 * src.flat[idx[i, j]]), pl.scatter (dst.flat[idx[i, j]] = src[i, j]), their
 * per-row forms pl.tensor.gather / pl.tensor.scatter (an index is a column
 * of the same row), pl.scatter_update (whole rows by a row index) and
 * pl.gatherb (32-byte blocks by a byte offset) and pl.mgather (elements or
 * rows of a whole tensor, with an out-of-range policy).
 *
 * Invariants: an index addresses the whole buffer of the tile it indexes
 * (its shape, not its valid region); every index is checked before any
 * element is written, so a failing call leaves its destination as it was;
 * elements move as bits (any dtype, exact); writes go in row-major order of
 * the index tile, so of duplicate indices the last one wins; outside the
 * result's valid region the buffer holds 0.
 */
#include <string.h>

#include "tile/tile_int.h"

/* Element k of index tile t (INT32 or INT16; UINT32 pl.gatherb offsets, zero-extended). */
static int64_t gs_index(const tile *t, int64_t k)
{
    switch (t->dtype) {
    case TILE_INT16: return ((const int16_t *)t->data)[k];
    case TILE_UINT32: return ((const uint32_t *)t->data)[k];
    default: return ((const int32_t *)t->data)[k];
    }
}

/* 0 when every index of t over rows x cols lies in [0, n); else -1 after
 * op's message naming the first one that does not.  unit: the indices
 * count bytes and must be multiples of it (pl.gatherb), else 1. */
static int gs_check_in(const char *op, const tile *t, int64_t rows, int64_t cols, int64_t n, int64_t unit, char *msg, size_t cap)
{
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++) {
            int64_t v = gs_index(t, i * t->shape[1] + j);
            if (v < 0 || v > n - unit) {
                snprintf(msg, cap, "%s: %s %lld at [%lld, %lld] is out of range [0, %lld)", op, unit > 1 ? "offset" : "index", (long long)v,
                         (long long)i, (long long)j, (long long)(n - unit + 1));
                return -1;
            }
            if (v % unit) {
                snprintf(msg, cap, "%s: offset %lld at [%lld, %lld] is not a multiple of %lld bytes", op, (long long)v, (long long)i,
                         (long long)j, (long long)unit);
                return -1;
            }
        }
    return 0;
}

static int gs_check(const char *op, const tile *t, int64_t rows, int64_t cols, int64_t n, char *msg, size_t cap)
{
    return gs_check_in(op, t, rows, cols, n, 1, msg, cap);
}

/* dst[i, j] = the source element idx[i, j] names, counted from row i's start times row_stride
 * (0: the whole tile's flat index, pl.gather; src's row length: along the row, pl.tensor.gather)
 * and below bound; zeros outside idx's valid region. */
static int gs_gather(tile *dst, const tile *src, const tile *idx, const char *op, int64_t bound, int64_t row_stride, char *msg, size_t cap)
{
    int64_t rows = idx->valid[0], cols = idx->valid[1];
    if (gs_check(op, idx, rows, cols, bound, msg, cap)) return -1;
    size_t es = tile_dtype_size((tile_dtype)src->dtype);
    const char *s = src->data;
    char *d = dst->data;
    memset(d, 0, (size_t)tile_bytes(dst));
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++)
            memcpy(d + (size_t)(i * dst->shape[1] + j) * es, s + (size_t)(i * row_stride + gs_index(idx, i * idx->shape[1] + j)) * es, es);
    dst->valid[0] = rows, dst->valid[1] = cols;
    return 0;
}

int tile_gather(tile *dst, const tile *src, const tile *idx, char *msg, size_t cap)
{
    return gs_gather(dst, src, idx, "pl.gather", tile_count(src), 0, msg, cap);
}

/* A copy of target with each element of src's and idx's common valid region written at the
 * position idx names, counted as gs_gather's (row_stride), below bound; the valid region grows
 * to cover every element written. */
static int gs_scatter(tile *dst, const tile *target, const tile *src, const tile *idx, const char *op, int64_t bound, int64_t row_stride,
                      char *msg, size_t cap)
{
    int64_t v[2], tc = target->shape[1];
    tile_region_meet(v, src->valid, idx->valid, 2);
    if (gs_check(op, idx, v[0], v[1], bound, msg, cap)) return -1;
    int64_t rows = target->valid[0], cols = target->valid[1];
    for (int64_t i = 0; i < v[0]; i++)
        for (int64_t j = 0; j < v[1]; j++) {
            int64_t p = i * row_stride + gs_index(idx, i * idx->shape[1] + j);
            if (p / tc + 1 > rows) rows = p / tc + 1;
            if (p % tc + 1 > cols) cols = p % tc + 1;
        }
    size_t es = tile_dtype_size((tile_dtype)src->dtype);
    const char *s = src->data;
    char *d = dst->data;
    memcpy(d, target->data, (size_t)tile_bytes(dst));
    for (int64_t i = 0; i < v[0]; i++)
        for (int64_t j = 0; j < v[1]; j++)
            memcpy(d + (size_t)(i * row_stride + gs_index(idx, i * idx->shape[1] + j)) * es, s + (size_t)(i * src->shape[1] + j) * es, es);
    dst->valid[0] = rows, dst->valid[1] = cols;
    return 0;
}

int tile_scatter(tile *dst, const tile *target, const tile *src, const tile *idx, char *msg, size_t cap)
{
    return gs_scatter(dst, target, src, idx, "pl.scatter", tile_count(target), 0, msg, cap);
}

int tile_gather_dim(tile *dst, const tile *src, const tile *idx, char *msg, size_t cap)
{
    return gs_gather(dst, src, idx, "pl.tensor.gather", src->shape[1], src->shape[1], msg, cap);
}

int tile_scatter_dim(tile *dst, const tile *target, const tile *src, const tile *idx, char *msg, size_t cap)
{
    return gs_scatter(dst, target, src, idx, "pl.tensor.scatter", target->shape[1], target->shape[1], msg, cap);
}

int tile_scatter_update(tile *dst, const tile *target, const tile *src, const tile *idx, char *msg, size_t cap)
{
    int r = target->rank;
    int64_t d = target->shape[r - 1], nrows = tile_count(target) / d;
    if (gs_check("pl.scatter_update", idx, idx->valid[0], idx->valid[1], nrows, msg, cap)) return -1;
    size_t row = (size_t)d * tile_dtype_size((tile_dtype)src->dtype);
    char *out = dst->data;
    memcpy(out, target->data, (size_t)tile_bytes(dst));
    int64_t top = target->valid[0];
    for (int64_t i = 0; i < idx->valid[0]; i++)
        for (int64_t j = 0; j < idx->valid[1]; j++) {
            int64_t k = gs_index(idx, i * idx->shape[1] + j);
            memcpy(out + (size_t)k * row, (const char *)src->data + (size_t)(i * idx->shape[1] + j) * row, row);
            if (k + 1 > top) top = k + 1;
        }
    memcpy(dst->valid, target->valid, sizeof dst->valid);
    if (r == 2) {
        if (idx->valid[0] && idx->valid[1]) dst->valid[0] = top, dst->valid[1] = d;
    } else {
        memcpy(dst->valid, dst->shape, sizeof dst->valid); /* rank 4: rows span two axes, the whole tile is valid */
    }
    return 0;
}

int tile_gatherb(tile *dst, const tile *src, const tile *off, char *msg, size_t cap)
{
    int64_t rows = off->valid[0], cols = off->valid[1], per = 32 / (int64_t)tile_dtype_size((tile_dtype)dst->dtype);
    if (gs_check_in("pl.gatherb", off, rows, cols, tile_bytes(src), 32, msg, cap)) return -1;
    const char *s = src->data;
    char *d = dst->data;
    memset(d, 0, (size_t)tile_bytes(dst));
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++)
            memcpy(d + (size_t)(i * dst->shape[1] + j * per) * tile_dtype_size((tile_dtype)dst->dtype), s + gs_index(off, i * off->shape[1] + j), 32);
    dst->valid[0] = rows, dst->valid[1] = cols * per;
    return 0;
}

/* Index v of a source of n entries under mgather's policy (tile.h): into
 * *out, or -1 for "read 0" (zero); 0, or -1 when it is out of range (undefined). */
static int gs_policy(int64_t v, int64_t n, int oob, int64_t *out)
{
    if (v >= 0 && v < n) return *out = v, 0;
    switch (oob) {
    case TILE_OOB_CLAMP: *out = v < 0 ? 0 : n - 1; return 0;
    case TILE_OOB_WRAP: *out = (v % n + n) % n; return 0;
    case TILE_OOB_ZERO: *out = -1; return 0;
    default: return -1;
    }
}

int tile_mgather(tile *dst, const tile *mem, const tile *idx, int mode, char *msg, size_t cap)
{
    int elem = mode & 1, oob = mode >> 1, row_vec = idx->shape[0] == 1 && !elem;
    int64_t rows = idx->valid[0], cols = elem ? idx->valid[1] : 1, n = elem ? tile_count(mem) : mem->shape[0], w = mem->shape[1], k;
    if (row_vec) rows = 1, cols = idx->valid[1];
    if (!elem && !row_vec) cols = idx->valid[1] ? 1 : 0;
    if (oob == TILE_OOB_UNDEFINED && gs_check("pl.mgather", idx, rows, cols, n, msg, cap)) return -1;
    size_t es = tile_dtype_size((tile_dtype)mem->dtype);
    const char *s = mem->data;
    char *d = dst->data;
    memset(d, 0, (size_t)tile_bytes(dst));
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++) {
            if (gs_policy(gs_index(idx, i * idx->shape[1] + j), n, oob, &k) || k < 0) continue;
            if (elem) memcpy(d + (size_t)(i * dst->shape[1] + j) * es, s + (size_t)k * es, es);
            else memcpy(d + (size_t)(row_vec ? j : i) * (size_t)w * es, s + (size_t)(k * w) * es, (size_t)w * es);
        }
    if (elem) dst->valid[0] = rows, dst->valid[1] = cols;
    else dst->valid[0] = row_vec ? cols : rows, dst->valid[1] = rows && cols ? w : 0;
    return 0;
}

int tile_paged_gather(tile *dst, const tile *src, const tile *idx, const tile *table, int64_t block_size, int64_t col_off, int trans,
                      char *msg, size_t cap)
{
    int64_t n = idx->rank == 1 ? idx->valid[0] : idx->valid[0] ? idx->valid[1] : 0, nb = tile_count(table), rows = src->shape[0];
    int64_t size = dst->shape[trans ? 0 : 1];
    for (int64_t r = 0; r < n; r++) {
        int64_t v = gs_index(idx, r), b = v >= 0 ? v / block_size : -1, phys = b >= 0 && b < nb ? gs_index(table, b) * block_size + v % block_size : 0;
        if (b < 0 || b >= nb)
            return tile_fail(msg, cap, "pl.paged_gather: index %lld at %lld is out of range [0, %lld) (%lld blocks of %lld rows)", (long long)v,
                             (long long)r, (long long)(nb * block_size), (long long)nb, (long long)block_size);
        if (phys < 0 || phys >= rows)
            return tile_fail(msg, cap, "pl.paged_gather: index %lld at %lld maps to row %lld, out of range [0, %lld)", (long long)v, (long long)r,
                             (long long)phys, (long long)rows);
    }
    size_t es = tile_dtype_size((tile_dtype)src->dtype);
    char *d = dst->data;
    memset(d, 0, (size_t)tile_bytes(dst));
    for (int64_t r = 0; r < n; r++) {
        int64_t v = gs_index(idx, r), phys = gs_index(table, v / block_size) * block_size + v % block_size;
        const char *s = (const char *)src->data + (size_t)(phys * src->shape[1] + col_off) * es;
        if (!trans) memcpy(d + (size_t)(r * dst->shape[1]) * es, s, (size_t)size * es);
        else
            for (int64_t j = 0; j < size; j++) memcpy(d + (size_t)(j * dst->shape[1] + r) * es, s + (size_t)j * es, es);
    }
    dst->valid[0] = trans ? size : n, dst->valid[1] = trans ? n : size;
    if (!n) dst->valid[0] = dst->valid[1] = 0;
    return 0;
}

int tile_gather_mask(tile *dst, const tile *src, int pattern, char *msg, size_t cap)
{
    int64_t stride, phase;
    tile_mask_pattern(pattern, &stride, &phase);
    size_t es = tile_dtype_size((tile_dtype)src->dtype);
    if (pattern < 1 || pattern > 7 || src->rank != 2 || dst->rank != 2 || tile_dtype_size((tile_dtype)dst->dtype) != es ||
        dst->shape[0] != src->shape[0] || dst->shape[1] * stride != src->shape[1])
        return tile_fail(msg, cap, "pl.gather_mask: pattern %d, source and result tiles do not fit", pattern);
    int64_t rows = src->valid[0], vc = src->valid[1] > phase ? (src->valid[1] - phase + stride - 1) / stride : 0;
    memset(dst->data, 0, (size_t)tile_bytes(dst));
    for (int64_t i = 0; i < rows; i++)
        for (int64_t k = 0; k < vc; k++)
            memcpy((char *)dst->data + (size_t)(i * dst->shape[1] + k) * es, (const char *)src->data + (size_t)(i * src->shape[1] + k * stride + phase) * es, es);
    dst->valid[0] = vc ? rows : 0, dst->valid[1] = rows ? vc : 0;
    return 0;
}

int tile_scatter_mask(tile *out, const tile *target, const tile *src, int pattern, char *msg, size_t cap)
{
    int64_t stride, phase;
    tile_mask_pattern(pattern, &stride, &phase);
    size_t es = tile_dtype_size((tile_dtype)src->dtype);
    if (pattern < 1 || pattern > 7 || src->rank != 2 || target->rank != 2 || out->rank != 2 || src->dtype != target->dtype ||
        out->dtype != target->dtype || target->shape[0] != src->shape[0] || target->shape[1] != src->shape[1] * stride ||
        out->shape[0] != target->shape[0] || out->shape[1] != target->shape[1])
        return tile_fail(msg, cap, "pl.scatter_mask: pattern %d, target, source and result tiles do not fit", pattern);
    if (out != target) memcpy(out->data, target->data, (size_t)tile_bytes(target)), memcpy(out->valid, target->valid, sizeof out->valid);
    int64_t rows = src->valid[0], cols = src->valid[1];
    for (int64_t i = 0; i < rows; i++)
        for (int64_t k = 0; k < cols; k++)
            memcpy((char *)out->data + (size_t)(i * out->shape[1] + k * stride + phase) * es, (const char *)src->data + (size_t)(i * src->shape[1] + k) * es, es);
    if (rows && cols) {
        if (out->valid[0] < rows) out->valid[0] = rows;
        if (out->valid[1] < (cols - 1) * stride + phase + 1) out->valid[1] = (cols - 1) * stride + phase + 1;
    }
    return 0;
}

int tile_gather_compare(tile *dst, const tile *src, tile_scalar k, int cmp, int64_t offset, int part, char *msg, size_t cap)
{
    if (src->rank != 2 || dst->rank != 2 || tile_dtype_size((tile_dtype)dst->dtype) != 4 || cmp < 0 || cmp > 5 ||
        (part ? dst->shape[0] != 1 || dst->shape[1] != src->shape[0] : dst->shape[0] != src->shape[0]))
        return tile_fail(msg, cap, "pl.gather_compare: source and result tiles do not fit");
    int fl = tile_dtype_is_float((tile_dtype)src->dtype);
    double kf = fl ? k.f : 0;
    int64_t ki = fl ? 0 : tile_int_wrap((tile_dtype)src->dtype, k.i); /* converted as pl.add's scalar: -1 is a UINT8's 255 */
    int64_t rows = src->valid[0], cols = src->valid[1], oc = dst->shape[1];
    int32_t *d = dst->data;
    memset(d, 0, (size_t)tile_bytes(dst));
    for (int64_t r = 0; r < rows; r++) {
        int64_t n = 0;
        for (int64_t j = 0; j < cols; j++) {
            int64_t e[2] = {r, j};
            tile_scalar v;
            tile_read(src, e, 2, &v, msg, cap);
            int lt = fl ? v.f < kf : v.i < ki, gt = fl ? v.f > kf : v.i > ki, eq = fl ? v.f == kf : v.i == ki;
            int hit = cmp == 0 ? eq : cmp == 1 ? !eq : cmp == 2 ? lt : cmp == 3 ? lt || eq : cmp == 4 ? gt : gt || eq;
            if (!hit) continue;
            if (!part && n < oc) d[r * oc + n] = (int32_t)(j + offset);
            n++;
        }
        if (part) d[r] = (int32_t)n;
    }
    dst->valid[0] = part ? (rows ? 1 : 0) : rows, dst->valid[1] = part ? rows : rows ? oc : 0;
    return 0;
}
