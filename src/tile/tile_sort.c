/*
 * tile_sort.c - sorting FP32 or FP16 values with their indices: pl.sort32
 * (each 32-column block of a row sorted into (value, index) pairs),
 * pl.mrgsort(src0, block_len=) (runs of such pairs merged four at a time)
 * and pl.mrgsort(src0, src1, ..., tmp=) (sorted rows merged, two at a time).
 *
 * Invariants: the order is descending, a NaN ranking above every number
 * (sn_before); every sort is stable (equal values keep their order, a
 * merge takes the earlier run's first), so the result is one permutation;
 * a pair is two elements of the value dtype, the value then the index bits
 * of the same width (8 bytes for FP32, 4 for FP16), moved as bits.
 */
#include <math.h>
#include <string.h>

#include "base/half.h"
#include "tile/tile_int.h"

/* Does value x rank before y (descending, NaN first)? */
static int sn_before(float x, float y) { return isnan(x) ? !isnan(y) : x > y; }

/* Element k (a value) of an FP32 or FP16 buffer, as a float. */
static float sn_value(const void *p, int half, int64_t k)
{
    if (half) return base_f16_to_f32(((const uint16_t *)p)[k]);
    float f;
    memcpy(&f, (const float *)p + k, 4);
    return f;
}

/* Copies pair k of s to pair j of d (es-byte elements). */
static void sn_pair(char *d, int64_t j, const char *s, int64_t k, size_t es) { memcpy(d + (size_t)j * 2 * es, s + (size_t)k * 2 * es, 2 * es); }

int tile_sort32(tile *dst, const tile *src, const tile *idx, char *msg, size_t cap)
{
    (void)msg, (void)cap;
    int64_t rows = src->valid[0] < idx->valid[0] ? src->valid[0] : idx->valid[0];
    int64_t cols = src->valid[1] < idx->valid[1] ? src->valid[1] : idx->valid[1];
    int half = src->dtype == TILE_FP16;
    size_t es = half ? 2 : 4;
    memset(dst->data, 0, (size_t)tile_bytes(dst));
    for (int64_t i = 0; i < rows; i++) {
        const char *v = (const char *)src->data + (size_t)(i * src->shape[1]) * es;
        const char *x = (const char *)idx->data + (size_t)(i * idx->shape[1]) * es;
        char *d = (char *)dst->data + (size_t)(i * dst->shape[1]) * es;
        for (int64_t b = 0; b < cols; b += 32) {
            int n = cols - b < 32 ? (int)(cols - b) : 32, order[32];
            for (int k = 0; k < n; k++) { /* stable insertion: k moves left past the ones it ranks before */
                int at = k;
                while (at > 0 && sn_before(sn_value(v, half, b + k), sn_value(v, half, b + order[at - 1]))) order[at] = order[at - 1], at--;
                order[at] = k;
            }
            for (int k = 0; k < n; k++) {
                memcpy(d + (size_t)(2 * (b + k)) * es, v + (size_t)(b + order[k]) * es, es);
                memcpy(d + (size_t)(2 * (b + k) + 1) * es, x + (size_t)(b + order[k]) * es, es);
            }
        }
    }
    dst->valid[0] = rows, dst->valid[1] = 2 * cols;
    return 0;
}

int tile_mrgsort(tile *dst, const tile *src, int64_t block_len, char *msg, size_t cap)
{
    if (block_len <= 0 || block_len % 64) return tile_fail(msg, cap, "pl.mrgsort: block_len %lld is not a positive multiple of 64", (long long)block_len);
    int64_t rows = src->valid[0], cols = src->valid[1], run = block_len / 2; /* pairs per run */
    if (cols % 2) return tile_fail(msg, cap, "pl.mrgsort: the valid region has %lld columns, not whole (value, index) pairs", (long long)cols);
    int half = src->dtype == TILE_FP16;
    size_t es = half ? 2 : 4;
    memset(dst->data, 0, (size_t)tile_bytes(dst));
    int64_t pairs = cols / 2;
    for (int64_t i = 0; i < rows; i++) {
        const char *s = (const char *)src->data + (size_t)(i * src->shape[1]) * es;
        char *d = (char *)dst->data + (size_t)(i * dst->shape[1]) * es;
        for (int64_t g = 0; g < pairs; g += 4 * run) {
            int64_t head[4], end[4];
            for (int r = 0; r < 4; r++) {
                head[r] = g + r * run < pairs ? g + r * run : pairs;
                end[r] = head[r] + run < pairs ? head[r] + run : pairs;
            }
            for (int64_t out = head[0]; out < end[3]; out++) {
                int pick = -1;
                float best = 0, y;
                for (int r = 0; r < 4; r++) {
                    if (head[r] >= end[r]) continue;
                    y = sn_value(s, half, 2 * head[r]);
                    if (pick < 0 || sn_before(y, best)) pick = r, best = y;
                }
                sn_pair(d, out, s, head[pick]++, es);
            }
        }
    }
    dst->valid[0] = rows, dst->valid[1] = cols;
    return 0;
}

int tile_merge(tile *dst, const tile *a, const tile *b, char *msg, size_t cap)
{
    if (a->valid[1] % 2 || b->valid[1] % 2)
        return tile_fail(msg, cap, "pl.mrgsort: a source's valid region has %lld columns, not whole (value, index) pairs",
                         (long long)(a->valid[1] % 2 ? a->valid[1] : b->valid[1]));
    int64_t rows = a->valid[0] < b->valid[0] ? a->valid[0] : b->valid[0], na = a->valid[1] / 2, nb = b->valid[1] / 2;
    int half = a->dtype == TILE_FP16;
    size_t es = half ? 2 : 4;
    memset(dst->data, 0, (size_t)tile_bytes(dst));
    for (int64_t i = 0; i < rows; i++) {
        const char *s = (const char *)a->data + (size_t)(i * a->shape[1]) * es, *t = (const char *)b->data + (size_t)(i * b->shape[1]) * es;
        char *d = (char *)dst->data + (size_t)(i * dst->shape[1]) * es;
        int64_t p = 0, q = 0;
        while (p < na || q < nb) { /* b's pair first only when it ranks before a's: ties keep a's first */
            if (p < na && (q >= nb || !sn_before(sn_value(t, half, 2 * q), sn_value(s, half, 2 * p)))) sn_pair(d, p + q, s, p, es), p++;
            else sn_pair(d, p + q, t, q, es), q++;
        }
    }
    dst->valid[0] = rows, dst->valid[1] = 2 * (na + nb);
    return 0;
}
