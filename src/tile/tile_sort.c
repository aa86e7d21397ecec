/*
 * tile_sort.c - sorting FP32 values with their indices: pl.sort32 (each
 * 32-column block of a row sorted into (value, index) pairs) and
 * pl.mrgsort (runs of such pairs merged four at a time).
 *
 * Invariants: the order is descending, a NaN ranking above every number
 * (sn_before); both sorts are stable (equal values keep their order, a
 * merge takes the earlier run's first), so the result is one permutation;
 * a pair is 8 bytes, the FP32 value then the 32 index bits, moved as bits.
 */
#include <math.h>
#include <string.h>

#include "tile/tile_int.h"

/* Does value x rank before y (descending, NaN first)? */
static int sn_before(float x, float y) { return isnan(x) ? !isnan(y) : x > y; }

int tile_sort32(tile *dst, const tile *src, const tile *idx, char *msg, size_t cap)
{
    (void)msg, (void)cap;
    int64_t rows = src->valid[0] < idx->valid[0] ? src->valid[0] : idx->valid[0];
    int64_t cols = src->valid[1] < idx->valid[1] ? src->valid[1] : idx->valid[1];
    memset(dst->data, 0, (size_t)tile_bytes(dst));
    for (int64_t i = 0; i < rows; i++) {
        const float *v = (const float *)src->data + i * src->shape[1];
        const uint32_t *x = (const uint32_t *)idx->data + i * idx->shape[1];
        uint32_t *d = (uint32_t *)dst->data + i * dst->shape[1];
        for (int64_t b = 0; b < cols; b += 32) {
            int n = cols - b < 32 ? (int)(cols - b) : 32, order[32];
            for (int k = 0; k < n; k++) { /* stable insertion: k moves left past the ones it ranks before */
                int at = k;
                while (at > 0 && sn_before(v[b + k], v[b + order[at - 1]])) order[at] = order[at - 1], at--;
                order[at] = k;
            }
            for (int k = 0; k < n; k++) {
                memcpy(&d[2 * (b + k)], &v[b + order[k]], 4);
                d[2 * (b + k) + 1] = x[b + order[k]];
            }
        }
    }
    dst->valid[0] = rows, dst->valid[1] = 2 * cols;
    return 0;
}

int tile_mrgsort(tile *dst, const tile *src, int64_t block_len, char *msg, size_t cap)
{
    if (block_len <= 0 || block_len % 64) {
        snprintf(msg, cap, "pl.mrgsort: block_len %lld is not a positive multiple of 64", (long long)block_len);
        return -1;
    }
    int64_t rows = src->valid[0], cols = src->valid[1], run = block_len / 2; /* pairs per run */
    if (cols % 2) {
        snprintf(msg, cap, "pl.mrgsort: the valid region has %lld columns, not whole (value, index) pairs", (long long)cols);
        return -1;
    }
    memset(dst->data, 0, (size_t)tile_bytes(dst));
    int64_t pairs = cols / 2;
    for (int64_t i = 0; i < rows; i++) {
        const uint32_t *s = (const uint32_t *)src->data + i * src->shape[1];
        uint32_t *d = (uint32_t *)dst->data + i * dst->shape[1];
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
                    memcpy(&y, &s[2 * head[r]], 4);
                    if (pick < 0 || sn_before(y, best)) pick = r, best = y;
                }
                d[2 * out] = s[2 * head[pick]], d[2 * out + 1] = s[2 * head[pick] + 1];
                head[pick]++;
            }
        }
    }
    dst->valid[0] = rows, dst->valid[1] = cols;
    return 0;
}
