/*
 * tile_expf.h - the FP32 exp of the tile kernels (pl.exp, the expdif of
 * row_expand_expdif; FP16/BF16 through it): table-free and branch-free,
 * so a loop calling it vectorizes.
 *
 * x = k ln2 + r with k = round(x / ln2) and |r| <= ln2 / 2 (Cody-Waite:
 * ln2 = C1 + C2, C1 with 9 significant bits, so k C1 and x - k C1 are
 * exact for |k| <= 150); exp(r) = 1 + r + r^2 P(r),
 * P of degree 5 (Cephes' coefficients); the result scaled by 2^k as
 * 2^(k >> 1) * 2^(k - (k >> 1)), two exact powers of two, so only the last
 * product rounds, into the subnormals or to +inf.  Past the edges the
 * result is selected: above 89 exp(x) rounds to +inf (+inf gives +inf),
 * below -104 to 0 (-inf gives 0); in between k stays in [-150, 129].  A NaN
 * runs through as a NaN (quieted by the arithmetic; k's integer comes from
 * float bits, so a NaN's or a huge x's is just some integer, no undefined
 * conversion).  Every case is a select of values, not a branch, and no
 * operation is conditional (so gcc if-converts the loop).
 *
 * Invariants: at most 1 ulp from exp (test_tile_expf sweeps the float
 * range against a double reference; the bound asserted is 2 ulp); the same
 * bits at every vector width: every step is one IEEE operation and the
 * tile library builds with -ffp-contract=off (no fused multiply-add).
 */
#ifndef TILE_EXPF_H
#define TILE_EXPF_H

#include <math.h>
#include <stdint.h>
#include <string.h>

static inline __attribute__((always_inline)) float tile_expf(float x)
{
    /* 1.5 * 2^23 + k: k = round(x / ln2) to nearest, also in the low mantissa bits */
    float kb = x * 1.44269504088896341f + 12582912.0f, k = kb - 12582912.0f;
    float r = (x - k * 0.693359375f) - k * -2.12194440e-4f;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    float y = (p * (r * r) + r) + 1.0f;
    uint32_t kbits;
    memcpy(&kbits, &kb, sizeof kbits);
    int32_t n = (int32_t)(kbits - 0x4B400000u), n1 = n >> 1, n2 = n - n1; /* any bits past the edges or for a NaN */
    uint32_t b1 = (uint32_t)(n1 + 127) << 23, b2 = (uint32_t)(n2 + 127) << 23;
    float s1, s2;
    memcpy(&s1, &b1, sizeof s1), memcpy(&s2, &b2, sizeof s2);
    y = y * s1 * s2;
    y = x > 89.0f ? (float)INFINITY : y; /* a NaN compares false: its y is NaN */
    return x < -104.0f ? 0.0f : y;
}

#endif
