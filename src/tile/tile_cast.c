/*
 * tile_cast.c - pl.cast on tiles.
 *
 * Every cast goes through one of two block intermediates: FP32 for float
 * sources (FP16/BF16 widen exactly), INT64 for integer and BOOL sources
 * (every one widens exactly; BOOL reads as 0 or 1).  From there:
 *   - to a float dtype: round to nearest even; INT64 -> FP16/BF16 rounds
 *     to odd in FP32 first (base_i64_to_f32_odd) so the second rounding is
 *     exact (no double rounding);
 *   - float to an integer dtype: NaN -> 0, clamp to the target's range
 *     (saturating), then round by the mode (exact for every float input;
 *     past 2^63 the value is whole, so INT64 saturates without rounding);
 *     an unsigned target's range is [0, 2^bits): -1.5 -> 0, 1e10 -> max;
 *   - integer to an integer of another range: saturate (an unsigned source
 *     widens by zero-extension: UINT32 0xFFFFFFFF -> INT32_MAX, INT32 -1 ->
 *     UINT32 0);
 *   - to BOOL: x != 0 (a float NaN -> 0, as float -> int);
 *   - mode odd (round to odd): an inexact result takes the neighbour whose
 *     last bit is 1 (to an integer: of the two integers around x; to
 *     FP16/BF16/FP32: of the two encodings around it), exact ones stay.
 * Each (intermediate, target, mode) has its own loop, chosen once per call.
 */
#include <math.h>

#include "base/half.h"
#include "tile/tile_int.h"

#define CAST_BLOCK 256

/* float block -> integer values by mode, clamped to [lo, hi] (hi of INT64
 * is 2^63 as a double: it saturates to INT64_MAX). */
#define CAST_ROUND_LOOP(expr)                                                       \
    for (int64_t i = 0; i < n; i++) {                                               \
        double x = f[i];                                                            \
        x = x != x ? 0 : x < lo ? lo : x > hi ? hi : x;                             \
        int64_t t = x < 0x1p63 ? (int64_t)x : INT64_MAX;                            \
        out[i] = (expr);                                                            \
    }

static void cast_f2i(int64_t *out, const float *f, int64_t n, tile_round mode, double lo, double hi)
{
    switch (mode) {
    case TILE_TRUNC: CAST_ROUND_LOOP(t) break;
    case TILE_FLOOR: CAST_ROUND_LOOP(t - (t > x)) break;
    case TILE_CEIL: CAST_ROUND_LOOP(t + (t < x)) break;
    case TILE_ROUND: CAST_ROUND_LOOP(t + (x - t >= 0.5) - (x - t <= -0.5)) break;
    case TILE_ODD: CAST_ROUND_LOOP(t + (t != x && !(t & 1) ? (x > t ? 1 : -1) : 0)) break; /* an inexact one: the odd neighbour */
    case TILE_RINT:
        CAST_ROUND_LOOP(t + ((x - t > 0.5 || (x - t == 0.5 && (t & 1))) ? 1 : 0) -
                        ((x - t < -0.5 || (x - t == -0.5 && (t & 1))) ? 1 : 0))
        break;
    }
}

/* FP32 -> FP16 (bf16 0) or BF16 rounded to odd: exact stays, else of the two neighbours
 * (consecutive encodings; beyond the largest finite, that and inf) the one with an odd
 * last bit, so a later rounding to a narrower format is not a double rounding; NaN stays NaN. */
static uint16_t cast_half_odd(float f, int bf16)
{
    uint16_t h = bf16 ? base_f32_to_bf16(f) : base_f32_to_f16(f);
    float back = bf16 ? base_bf16_to_f32(h) : base_f16_to_f32(h);
    if (f != f || back == f || (h & 1)) return h;
    return (uint16_t)((fabsf(back) > fabsf(f)) ? h - 1 : h + 1); /* the magnitude's other neighbour (the sign bit stays) */
}

/* An INT64 block into integer dtype t, saturated to its range (BOOL: != 0). */
static void cast_i2i(char *out, const int64_t *v, int64_t n, tile_dtype t)
{
    int64_t lo, hi;
    tile_int_range(t, &lo, &hi);
    switch (t) {
    case TILE_INT64: memcpy(out, v, (size_t)n * 8); break;
    case TILE_BOOL: for (int64_t i = 0; i < n; i++) ((uint8_t *)out)[i] = v[i] != 0; break;
#define CAST_NARROW_(T, DT) \
    case DT: for (int64_t i = 0; i < n; i++) ((T *)out)[i] = (T)(v[i] < lo ? lo : v[i] > hi ? hi : v[i]); break;
        CAST_NARROW_(int32_t, TILE_INT32)
        CAST_NARROW_(int16_t, TILE_INT16)
        CAST_NARROW_(int8_t, TILE_INT8)
        CAST_NARROW_(uint32_t, TILE_UINT32)
        CAST_NARROW_(uint16_t, TILE_UINT16)
        CAST_NARROW_(uint8_t, TILE_UINT8)
#undef CAST_NARROW_
    default: break; /* float targets never come here */
    }
}

int tile_cast(tile *dst, const tile *a, tile_round mode, char *msg, size_t cap)
{
    int same = dst->rank == a->rank;
    for (int d = 0; d < a->rank && same; d++) same = dst->shape[d] == a->shape[d];
    if (!same) return tile_fail(msg, cap, "pl.cast: the result tile's shape differs from the operand's");
    tile_dtype s = (tile_dtype)a->dtype, t = (tile_dtype)dst->dtype;
    size_t ss = tile_dtype_size(s), ts = tile_dtype_size(t);
    float fb[CAST_BLOCK];
    int64_t lb[CAST_BLOCK];
    int64_t ilo, ihi;
    tile_int_range(t, &ilo, &ihi);
    double lo = (double)ilo, hi = (double)ihi;
    tile_iter it;
    TILE_FOR_RUNS(it, a->shape, a->valid, a->rank) {
        for (int64_t k = 0; k < it.len; k += CAST_BLOCK) {
            int64_t n = it.len - k < CAST_BLOCK ? it.len - k : CAST_BLOCK, at = it.start + k;
            const char *src = (const char *)a->data + at * (int64_t)ss;
            char *out = (char *)dst->data + at * (int64_t)ts;
            /* to the intermediate */
            switch (s) {
            case TILE_FP32: memcpy(fb, src, (size_t)n * 4); break;
            case TILE_FP16: case TILE_BF16: base_half_to_f32(fb, (const uint16_t *)src, n, s == TILE_BF16); break;
            case TILE_BOOL: for (int64_t i = 0; i < n; i++) lb[i] = ((const uint8_t *)src)[i] != 0; break;
#define CAST_WIDEN_(T, U, sfx, DT) \
    case DT: for (int64_t i = 0; i < n; i++) lb[i] = ((const T *)src)[i]; break;
            TILE_INT_CLASSES(CAST_WIDEN_)
#undef CAST_WIDEN_
            }
            if (tile_dtype_is_float(s)) {
                switch (t) {
                case TILE_FP32: memcpy(out, fb, (size_t)n * 4); break;
                case TILE_FP16: case TILE_BF16:
                    if (mode == TILE_ODD)
                        for (int64_t i = 0; i < n; i++) ((uint16_t *)out)[i] = cast_half_odd(fb[i], t == TILE_BF16);
                    else base_f32_to_half((uint16_t *)out, fb, n, t == TILE_BF16);
                    break;
                case TILE_BOOL: for (int64_t i = 0; i < n; i++) ((uint8_t *)out)[i] = fb[i] != 0 && fb[i] == fb[i]; break;
                default:
                    cast_f2i(lb, fb, n, mode, lo, hi);
                    cast_i2i(out, lb, n, t);
                    break;
                }
                continue;
            }
            switch (t) {
            case TILE_FP32:
                for (int64_t i = 0; i < n; i++) ((float *)out)[i] = mode == TILE_ODD ? base_i64_to_f32_odd(lb[i]) : (float)lb[i];
                break;
            case TILE_FP16: case TILE_BF16:
                for (int64_t i = 0; i < n; i++)
                    ((uint16_t *)out)[i] = mode == TILE_ODD ? cast_half_odd(base_i64_to_f32_odd(lb[i]), t == TILE_BF16)
                                           : t == TILE_BF16 ? base_f32_to_bf16(base_i64_to_f32_odd(lb[i])) : base_f32_to_f16(base_i64_to_f32_odd(lb[i]));
                break;
            default: cast_i2i(out, lb, n, t); break;
            }
        }
    }
    for (int d = 0; d < a->rank; d++) dst->valid[d] = a->valid[d];
    tile_clear_outside(dst);
    return 0;
}
