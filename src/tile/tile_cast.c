/*
 * tile_cast.c - pl.cast on tiles.
 *
 * Every cast goes through one of two block intermediates: FP32 for float
 * sources (FP16/BF16 widen exactly), INT32 for integer sources (INT8
 * widens exactly).  From there:
 *   - to a float dtype: round to nearest even; INT32 -> BF16 rounds to odd
 *     in FP32 first (base_i64_to_f32_odd) so the second rounding is exact
 *     (no double rounding);
 *   - float to an integer dtype: NaN -> 0, clamp to the target's range
 *     (saturating), then round by the mode in double (exact for every
 *     float input);
 *   - integer to a narrower integer: saturate.
 * Each (intermediate, target, mode) has its own loop, chosen once per call.
 */
#include "base/half.h"
#include "tile/tile_int.h"

#define CAST_BLOCK 256

/* float block -> integer values by mode, clamped to [lo, hi]. */
#define CAST_ROUND_LOOP(expr)                                                       \
    for (int64_t i = 0; i < n; i++) {                                               \
        double x = f[i];                                                            \
        x = x != x ? 0 : x < lo ? lo : x > hi ? hi : x;                             \
        double t = (double)(int64_t)x;                                              \
        out[i] = (int64_t)(expr);                                                   \
    }

static void cast_f2i(int64_t *out, const float *f, int64_t n, tile_round mode, double lo, double hi)
{
    switch (mode) {
    case TILE_TRUNC: CAST_ROUND_LOOP(t) break;
    case TILE_FLOOR: CAST_ROUND_LOOP(t - (t > x)) break;
    case TILE_CEIL: CAST_ROUND_LOOP(t + (t < x)) break;
    case TILE_ROUND: CAST_ROUND_LOOP(t + (x - t >= 0.5) - (x - t <= -0.5)) break;
    case TILE_RINT:
        CAST_ROUND_LOOP(t + ((x - t > 0.5 || (x - t == 0.5 && ((int64_t)t & 1))) ? 1 : 0) -
                        ((x - t < -0.5 || (x - t == -0.5 && ((int64_t)t & 1))) ? 1 : 0))
        break;
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
    int32_t ib[CAST_BLOCK];
    int64_t lb[CAST_BLOCK];
    double lo = t == TILE_INT8 ? -128.0 : -2147483648.0, hi = t == TILE_INT8 ? 127.0 : 2147483647.0;
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
            case TILE_INT32: memcpy(ib, src, (size_t)n * 4); break;
            case TILE_INT8: for (int64_t i = 0; i < n; i++) ib[i] = ((const int8_t *)src)[i]; break;
            }
            if (tile_dtype_is_float(s)) {
                switch (t) {
                case TILE_FP32: memcpy(out, fb, (size_t)n * 4); break;
                case TILE_FP16: case TILE_BF16: base_f32_to_half((uint16_t *)out, fb, n, t == TILE_BF16); break;
                case TILE_INT32:
                    cast_f2i(lb, fb, n, mode, lo, hi);
                    for (int64_t i = 0; i < n; i++) ((int32_t *)out)[i] = (int32_t)lb[i];
                    break;
                case TILE_INT8:
                    cast_f2i(lb, fb, n, mode, lo, hi);
                    for (int64_t i = 0; i < n; i++) ((int8_t *)out)[i] = (int8_t)lb[i];
                    break;
                }
                continue;
            }
            switch (t) {
            case TILE_FP32: for (int64_t i = 0; i < n; i++) ((float *)out)[i] = (float)ib[i]; break;
            case TILE_FP16: for (int64_t i = 0; i < n; i++) ((uint16_t *)out)[i] = base_f32_to_f16((float)ib[i]); break;
            case TILE_BF16: for (int64_t i = 0; i < n; i++) ((uint16_t *)out)[i] = base_f32_to_bf16(base_i64_to_f32_odd(ib[i])); break;
            case TILE_INT32: memcpy(out, ib, (size_t)n * 4); break;
            case TILE_INT8:
                for (int64_t i = 0; i < n; i++) ((int8_t *)out)[i] = (int8_t)(ib[i] < -128 ? -128 : ib[i] > 127 ? 127 : ib[i]);
                break;
            }
        }
    }
    for (int d = 0; d < a->rank; d++) dst->valid[d] = a->valid[d];
    tile_clear_outside(dst);
    return 0;
}
