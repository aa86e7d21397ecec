/*
 * half.h - FP16 and BF16 conversions (round to nearest even; NaN stays
 * NaN), branch-free inline functions so loops over them vectorize, and
 * array converters in blocks (half.c).  In base because two layers
 * convert: the tile kernels (src/tile) and the compiler's scalar
 * arithmetic (compiler/scalar.c), which rounds a scalar as a tile element.
 *
 * fp16 <-> fp32 follow the FP16 library's float-arithmetic method (M.
 * Maratyszcza): exact for every value, subnormals included.
 *
 * A wider value (an int64, a double) reaches FP16/BF16 through FP32
 * rounded to odd (base_*_to_f32_odd): FP32 keeps more than two bits beyond
 * either format, so the second rounding, to nearest even, is exact: one
 * rounding in all, never a double one.
 */
#ifndef BASE_HALF_H
#define BASE_HALF_H

#include <stdint.h>
#include <string.h>

static inline uint32_t base_f32_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline float base_f32_from_bits(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

static inline float base_f16_to_f32(uint16_t h)
{
    uint32_t w = (uint32_t)h << 16, sign = w & 0x80000000u, two_w = w + w;
    float normalized = base_f32_from_bits((two_w >> 4) + (0xE0u << 23)) * 0x1.0p-112f;
    float denormalized = base_f32_from_bits((two_w >> 17) | (126u << 23)) - 0.5f;
    uint32_t r = sign | (two_w < (1u << 27) ? base_f32_bits(denormalized) : base_f32_bits(normalized));
    return base_f32_from_bits(r);
}

static inline uint16_t base_f32_to_f16(float f)
{
    float base = (__builtin_fabsf(f) * 0x1.0p+112f) * 0x1.0p-110f;
    uint32_t w = base_f32_bits(f), shl1_w = w + w, sign = w & 0x80000000u;
    uint32_t bias = shl1_w & 0xFF000000u;
    bias = bias < 0x71000000u ? 0x71000000u : bias;
    base = base_f32_from_bits((bias >> 1) + 0x07800000u) + base;
    uint32_t bits = base_f32_bits(base);
    uint32_t nonsign = ((bits >> 13) & 0x7C00u) + (bits & 0x0FFFu);
    return (uint16_t)((sign >> 16) | (shl1_w > 0xFF000000u ? 0x7E00u : nonsign));
}

static inline float base_bf16_to_f32(uint16_t h) { return base_f32_from_bits((uint32_t)h << 16); }

static inline uint16_t base_f32_to_bf16(float f)
{
    uint32_t u = base_f32_bits(f);
    uint32_t r = (u + 0x7FFFu + ((u >> 16) & 1u)) >> 16;
    uint32_t nan = ((u >> 16) & 0xFFC0u) | 0x0040u; /* quiet NaN, sign kept */
    return (uint16_t)((u & 0x7FFFFFFFu) > 0x7F800000u ? nan : r);
}

/* An exact value's nearest FP32 f (inexact: f != the value; away: |f| > |value|)
 * made its rounding to odd: toward zero, then the last bit set. */
static inline float base_f32_odd(float f, int inexact, int away)
{
    return inexact ? base_f32_from_bits((base_f32_bits(f) - (uint32_t)away) | 1u) : f;
}

static inline float base_f64_to_f32_odd(double d)
{
    float f = (float)d;
    return f != f ? f : base_f32_odd(f, f != d, __builtin_fabs((double)f) > __builtin_fabs(d));
}

static inline float base_i64_to_f32_odd(int64_t x)
{
    float f = (float)x;
    int big = f >= 0x1p63f; /* x rounded up to 2^63: past int64 */
    int64_t r = big ? INT64_MAX : (int64_t)f;
    return base_f32_odd(f, big || r != x, big || (x > 0 ? r > x : r < x));
}

/* Array converters: n elements, FP16/BF16 (half selects) <-> FP32. */
void base_half_to_f32(float *dst, const uint16_t *src, int64_t n, int bf16);
void base_f32_to_half(uint16_t *dst, const float *src, int64_t n, int bf16);

#endif
