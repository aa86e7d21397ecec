/*
 * half.c - FP16/BF16 array conversions; one loop per format so each
 * vectorizes.
 */
#include "base/half.h"

void base_half_to_f32(float *dst, const uint16_t *src, int64_t n, int bf16)
{
    if (bf16)
        for (int64_t i = 0; i < n; i++) dst[i] = base_bf16_to_f32(src[i]);
    else
        for (int64_t i = 0; i < n; i++) dst[i] = base_f16_to_f32(src[i]);
}

void base_f32_to_half(uint16_t *dst, const float *src, int64_t n, int bf16)
{
    if (bf16)
        for (int64_t i = 0; i < n; i++) dst[i] = base_f32_to_bf16(src[i]);
    else
        for (int64_t i = 0; i < n; i++) dst[i] = base_f32_to_f16(src[i]);
}
