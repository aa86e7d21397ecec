/*
 * tile_expf.h - the FP32 exp of the tile kernels (pl.exp, the expdif of
 * row_expand_expdif; FP16/BF16 through it): table-free and branch-free,
 * so a loop calling it vectorizes.
 *
 * x = k ln2 + r with k = round(x / ln2) and |r| <= ln2 / 2 (Cody-Waite:
 * ln2 = C1 + C2, C1 with 9 significant bits, so k C1 and x - k C1 are
 * exact for the |k| <= 150 the clamp allows); exp(r) = 1 + r + r^2 P(r),
 * P of degree 5 (Cephes' coefficients); the result scaled by 2^k as
 * 2^(k >> 1) * 2^(k - (k >> 1)), two exact powers of two, so only the last
 * product rounds, into the subnormals or to +inf.  x is clamped to
 * [-104, 89] first: below -104 exp(x) rounds to 0 (-inf gives 0), above 89
 * to +inf (+inf gives +inf); a NaN runs through as a NaN (quieted by the
 * arithmetic; k's integer comes from float bits, so a NaN's is just some
 * integer, no undefined conversion).  Every case is a select
 * of values, not a branch, and no operation is conditional (so gcc
 * if-converts the loop).
 *
 * Invariants: at most 1 ulp from exp (test_tile_expf sweeps the float
 * range against a double reference; the bound asserted is 2 ulp); the same
 * bits at every vector width: every step is one IEEE operation and the
 * tile library builds with -ffp-contract=off (no fused multiply-add).
 */
#ifndef TILE_EXPF_H
#define TILE_EXPF_H

#include <stdint.h>
#include <string.h>

static inline __attribute__((always_inline)) float tile_expf(float x)
{
    float c = x > 89.0f ? 89.0f : x; /* a NaN stays NaN, and so does every step after */
    c = c < -104.0f ? -104.0f : c;
    /* 1.5 * 2^23 + k: k = round(c / ln2) to nearest, also in the low mantissa bits */
    float kb = c * 1.44269504088896341f + 12582912.0f, k = kb - 12582912.0f;
    float r = (c - k * 0.693359375f) - k * -2.12194440e-4f;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    float y = (p * (r * r) + r) + 1.0f;
    uint32_t kbits;
    memcpy(&kbits, &kb, sizeof kbits);
    int32_t n = (int32_t)(kbits - 0x4B400000u), n1 = n >> 1, n2 = n - n1; /* any bits for a NaN */
    uint32_t b1 = (uint32_t)(n1 + 127) << 23, b2 = (uint32_t)(n2 + 127) << 23;
    float s1, s2;
    memcpy(&s1, &b1, sizeof s1), memcpy(&s2, &b2, sizeof s2);
    return y * s1 * s2;
}

#endif
