/*
 * tile.c - what every tile kernel shares: dtype facts, walking a region as
 * contiguous runs, keeping the zero-outside-the-valid-region invariant,
 * scalar operands and filling memory with one value, error messages and
 * scratch memory.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/half.h"
#include "tile/tile_int.h"

size_t tile_dtype_size(tile_dtype d)
{
    static const size_t size[] = {[TILE_FP32] = 4, [TILE_FP16] = 2, [TILE_BF16] = 2, [TILE_INT32] = 4, [TILE_INT8] = 1,
                                  [TILE_BOOL] = 1, [TILE_INT64] = 8, [TILE_INT16] = 2, [TILE_UINT8] = 1, [TILE_UINT16] = 2,
                                  [TILE_UINT32] = 4};
    return size[d];
}

int tile_dtype_is_float(tile_dtype d) { return d <= TILE_BF16; }

const char *tile_dtype_name(tile_dtype d)
{
    static const char *const names[] = {[TILE_FP32] = "FP32", [TILE_FP16] = "FP16", [TILE_BF16] = "BF16", [TILE_INT32] = "INT32",
                                        [TILE_INT8] = "INT8",   [TILE_BOOL] = "BOOL",   [TILE_INT64] = "INT64", [TILE_INT16] = "INT16",
                                        [TILE_UINT8] = "UINT8", [TILE_UINT16] = "UINT16", [TILE_UINT32] = "UINT32"};
    return names[d];
}

int64_t tile_count(const tile *t)
{
    int64_t n = 1;
    for (int d = 0; d < t->rank; d++) n *= t->shape[d];
    return n;
}

int64_t tile_bytes(const tile *t) { return tile_count(t) * (int64_t)tile_dtype_size((tile_dtype)t->dtype); }

void tile_iter_begin(tile_iter *it, const int64_t *shape, const int64_t *region, int rank)
{
    int j = rank - 1;
    int64_t len = region[j];
    /* merge trailing dimensions the region spans whole */
    while (j > 0 && region[j] == shape[j]) {
        j--;
        len *= region[j];
    }
    it->outer = j;
    it->len = len;
    it->start = 0;
    it->left = len > 0 ? 1 : 0;
    int64_t pitch = 1;
    for (int d = rank - 1; d >= 0; d--) {
        if (d < j) {
            it->idx[d] = 0, it->ext[d] = region[d], it->pitch[d] = pitch;
            it->left *= region[d];
        }
        pitch *= shape[d];
    }
}

void tile_iter_next(tile_iter *it)
{
    if (--it->left <= 0) return;
    for (int d = it->outer - 1; d >= 0; d--) {
        it->start += it->pitch[d];
        if (++it->idx[d] < it->ext[d]) return;
        it->start -= it->idx[d] * it->pitch[d];
        it->idx[d] = 0;
    }
}

void tile_region_meet(int64_t *out, const int64_t *a, const int64_t *b, int rank)
{
    for (int d = 0; d < rank; d++) out[d] = a[d] < b[d] ? a[d] : b[d];
}

tile_scalar tile_scalar_for(tile_dtype dt, int value_is_float, int64_t i, double f)
{
    tile_scalar s;
    if (tile_dtype_is_float(dt)) {
        s.f = value_is_float ? f : (double)i;
    } else if (!value_is_float) {
        s.i = i;
    } else { /* truncated, saturating, NaN -> 0 (the compiler rejects a float for an integer op) */
        s.i = f != f ? 0 : f >= 0x1p63 ? INT64_MAX : f <= -0x1p63 ? INT64_MIN : (int64_t)f;
    }
    return s;
}

void tile_fill(void *data, tile_dtype dt, tile_scalar v, int64_t n)
{
    switch (dt) {
    case TILE_FP32: for (int64_t k = 0; k < n; k++) ((float *)data)[k] = (float)v.f; break;
    case TILE_FP16:
    case TILE_BF16: {
        float x = (float)v.f;
        uint16_t h = dt == TILE_FP16 ? base_f32_to_f16(x) : base_f32_to_bf16(x);
        for (int64_t k = 0; k < n; k++) ((uint16_t *)data)[k] = h;
        break;
    }
    case TILE_BOOL: memset(data, v.i != 0, (size_t)n); break;
#define FILL_(T, U, sfx, DT)                                 \
    case DT: {                                               \
        T x = (T)(U)v.i;                                     \
        for (int64_t k = 0; k < n; k++) ((T *)data)[k] = x;  \
        break;                                               \
    }
        TILE_INT_CLASSES(FILL_)
#undef FILL_
    }
}

int64_t tile_int_wrap(tile_dtype dt, int64_t v)
{
    switch (dt) {
#define WRAP_(T, U, sfx, DT) case DT: return (T)(U)v;
        TILE_INT_CLASSES(WRAP_)
#undef WRAP_
    default: return v;
    }
}

void tile_int_range(tile_dtype d, int64_t *lo, int64_t *hi)
{
    switch (d) {
    case TILE_INT32: *lo = INT32_MIN, *hi = INT32_MAX; break;
    case TILE_INT16: *lo = INT16_MIN, *hi = INT16_MAX; break;
    case TILE_INT8: *lo = INT8_MIN, *hi = INT8_MAX; break;
    case TILE_UINT32: *lo = 0, *hi = UINT32_MAX; break;
    case TILE_UINT16: *lo = 0, *hi = UINT16_MAX; break;
    case TILE_UINT8: *lo = 0, *hi = UINT8_MAX; break;
    case TILE_BOOL: *lo = 0, *hi = 1; break;
    default: *lo = INT64_MIN, *hi = INT64_MAX; break;
    }
}

void tile_clear_outside(tile *t)
{
    int r = t->rank, full = 1;
    for (int d = 0; d < r; d++) full &= t->valid[d] == t->shape[d];
    if (full) return;
    size_t es = tile_dtype_size((tile_dtype)t->dtype);
    char *p = t->data;
    /* every row of the last dimension: wholly outside, or its tail */
    int64_t rows = tile_count(t) / t->shape[r - 1], row_len = t->shape[r - 1];
    int64_t idx[TILE_MAX_RANK] = {0};
    for (int64_t k = 0; k < rows; k++) {
        int inside = 1;
        for (int d = 0; d < r - 1; d++) inside &= idx[d] < t->valid[d];
        int64_t from = inside ? t->valid[r - 1] : 0;
        if (from < row_len) memset(p + (size_t)(k * row_len + from) * es, 0, (size_t)(row_len - from) * es);
        for (int d = r - 2; d >= 0 && ++idx[d] == t->shape[d]; d--) idx[d] = 0;
    }
}

int tile_no_bool(const tile *a, const char *op, char *msg, size_t cap)
{
    return a->dtype == TILE_BOOL ? tile_fail(msg, cap, "pl.%s does not accept BOOL tiles; cast first", op) : 0;
}

int tile_fail(char *msg, size_t cap, const char *fmt, ...)
{
    if (msg && cap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, cap, fmt, ap);
        va_end(ap);
    }
    return -1;
}

void tile_scratch_free(tile_scratch *s)
{
    free(s->buf);
    s->buf = NULL, s->cap = 0;
}
