/*
 * tile_ref.h - test helpers for the tile kernels: making tiles, reading and
 * writing elements as doubles, and the plain reference roundings the tests
 * compare against (_Float16 for FP16; nearest-of-two-candidates for BF16).
 */
#ifndef PTO_TILE_REF_H
#define PTO_TILE_REF_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tile/tile.h"

static inline float ref_bits_f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static inline uint32_t ref_f_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

/* f rounded to BF16 (nearest, ties to even), as bits. */
static inline uint16_t ref_bf16(float f)
{
    if (f != f) return (uint16_t)((ref_f_bits(f) >> 16) | 0x40);
    if (isinf(f)) return (uint16_t)(ref_f_bits(f) >> 16);
    uint32_t lo = ref_f_bits(f) & 0xFFFF0000u, hi = lo + 0x10000u;
    double dl = fabs((double)f - (double)ref_bits_f(lo)), dh = fabs((double)ref_bits_f(hi) - (double)f);
    if (isinf(ref_bits_f(hi)) && (ref_f_bits(f) & 0x7FFFFFFFu) < 0x7F800000u) dh = fabs(0x1.0p128 * (f < 0 ? -1 : 1) - (double)f);
    if (dl < dh || (dl == dh && !((lo >> 16) & 1))) return (uint16_t)(lo >> 16);
    return (uint16_t)(hi >> 16);
}

static inline uint16_t ref_f16(float f) { _Float16 h = (_Float16)f; uint16_t u; memcpy(&u, &h, 2); return u; }
static inline float ref_f16_val(uint16_t u) { _Float16 h; memcpy(&h, &u, 2); return (float)h; }

/* x rounded to dtype dt's values (float dtypes through FP32). */
static inline double ref_round(tile_dtype dt, double x)
{
    switch (dt) {
    case TILE_FP32: return (float)x;
    case TILE_FP16: return ref_f16_val(ref_f16((float)x));
    case TILE_BF16: return ref_bits_f((uint32_t)ref_bf16((float)x) << 16);
    case TILE_INT32: return (int32_t)(uint32_t)(int64_t)x;
    case TILE_INT8: return (int8_t)(uint8_t)(int64_t)x;
    case TILE_INT16: return (int16_t)(uint16_t)(int64_t)x;
    case TILE_INT64: return (double)(int64_t)x;
    case TILE_UINT8: return (uint8_t)(int64_t)x;
    case TILE_UINT16: return (uint16_t)(int64_t)x;
    case TILE_UINT32: return (uint32_t)(int64_t)x;
    case TILE_BOOL: return x != 0;
    }
    return x;
}

static inline tile ref_tile(tile_dtype dt, int rank, const int64_t *shape)
{
    tile t = {.dtype = dt, .rank = (uint8_t)rank};
    for (int d = 0; d < rank; d++) t.shape[d] = t.valid[d] = shape[d];
    t.data = calloc((size_t)tile_count(&t), tile_dtype_size(dt));
    return t;
}

static inline tile ref_tile2(tile_dtype dt, int64_t r, int64_t c) { return ref_tile(dt, 2, (int64_t[]){r, c}); }

static inline double ref_get(const tile *t, int64_t i)
{
    switch ((tile_dtype)t->dtype) {
    case TILE_FP32: return ((float *)t->data)[i];
    case TILE_FP16: return ref_f16_val(((uint16_t *)t->data)[i]);
    case TILE_BF16: return ref_bits_f((uint32_t)((uint16_t *)t->data)[i] << 16);
    case TILE_INT32: return ((int32_t *)t->data)[i];
    case TILE_INT8: return ((int8_t *)t->data)[i];
    case TILE_INT16: return ((int16_t *)t->data)[i];
    case TILE_INT64: return (double)((int64_t *)t->data)[i];
    case TILE_UINT8: return ((uint8_t *)t->data)[i];
    case TILE_UINT16: return ((uint16_t *)t->data)[i];
    case TILE_UINT32: return ((uint32_t *)t->data)[i];
    case TILE_BOOL: return ((uint8_t *)t->data)[i];
    }
    return 0;
}

/* Stores x (already a value of the dtype; the unsigned ones wrap a negative x). */
static inline void ref_set(tile *t, int64_t i, double x)
{
    switch ((tile_dtype)t->dtype) {
    case TILE_FP32: ((float *)t->data)[i] = (float)x; break;
    case TILE_FP16: ((uint16_t *)t->data)[i] = ref_f16((float)x); break;
    case TILE_BF16: ((uint16_t *)t->data)[i] = ref_bf16((float)x); break;
    case TILE_INT32: ((int32_t *)t->data)[i] = (int32_t)x; break;
    case TILE_INT8: ((int8_t *)t->data)[i] = (int8_t)x; break;
    case TILE_INT16: ((int16_t *)t->data)[i] = (int16_t)x; break;
    case TILE_INT64: ((int64_t *)t->data)[i] = (int64_t)x; break;
    case TILE_UINT8: ((uint8_t *)t->data)[i] = (uint8_t)(int64_t)x; break;
    case TILE_UINT16: ((uint16_t *)t->data)[i] = (uint16_t)(int64_t)x; break;
    case TILE_UINT32: ((uint32_t *)t->data)[i] = (uint32_t)(int64_t)x; break;
    case TILE_BOOL: ((uint8_t *)t->data)[i] = x != 0; break;
    }
}

/* Fills t's valid region of a rank-2 tile with values of its dtype from
 * the seed (ints in [-100, 100], or [lo..] for INT8; floats with fractions). */
static inline void ref_fill(tile *t, unsigned seed, int nonzero)
{
    for (int64_t i = 0; i < t->shape[0]; i++)
        for (int64_t j = 0; j < t->shape[1]; j++) {
            int64_t k = i * t->shape[1] + j;
            double x = 0;
            if (i < t->valid[0] && j < t->valid[1]) {
                seed = seed * 1103515245u + 12345u;
                int v = (int)((seed >> 16) % 201) - 100;
                if (nonzero && v == 0) v = 7;
                x = tile_dtype_is_float((tile_dtype)t->dtype) ? ref_round((tile_dtype)t->dtype, v / 8.0 + (v % 3) * 0.1) : v;
            }
            ref_set(t, k, x);
        }
}

#endif
