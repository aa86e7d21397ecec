/*
 * tile_reduce.c - the row reductions (pl.row_sum, pl.row_max): [R, C] ->
 * [R, 1] over the valid region only; one kernel per op, chosen from a
 * table indexed by the op.
 *
 * Sums of FP16/BF16 accumulate in FP32 and round once; integer sums wrap
 * in the tile's dtype; float max ignores nothing (a NaN compares false, so
 * it is skipped unless first).  The result's valid region is [valid rows,
 * 1] (0 columns when the input has no valid column).
 */
#include "tile/tile_half.h"
#include "tile/tile_int.h"

static int red_check(tile *dst, const tile *a, const char *op, char *msg, size_t cap)
{
    if (a->rank != 2) return tile_fail(msg, cap, "pl.%s requires a rank-2 tile, got rank %d", op, a->rank);
    if (dst->rank != 2 || dst->shape[0] != a->shape[0] || dst->shape[1] != 1 || dst->dtype != a->dtype)
        return tile_fail(msg, cap, "pl.%s: the result tile is not [%lld, 1] of the input dtype", op, (long long)a->shape[0]);
    return 0;
}

#define RED_LOOP(T, ACC, init, step, out)                                          \
    for (int64_t r = 0; r < R; r++) {                                              \
        const T *row = (const T *)a->data + r * C;                                 \
        ACC acc = (init);                                                          \
        for (int64_t c = 0; c < V; c++) { T x = row[c]; acc = (ACC)(step); }       \
        ((T *)dst->data)[r] = (T)(out);                                            \
    }

static void red_sum(tile *dst, const tile *a)
{
    int64_t R = a->valid[0], C = a->shape[1], V = a->valid[1];
    switch ((tile_dtype)a->dtype) {
    case TILE_FP32: RED_LOOP(float, float, 0.0f, acc + x, acc) break;
    case TILE_FP16: RED_LOOP(uint16_t, float, 0.0f, acc + tile_f16_to_f32(x), tile_f32_to_f16(acc)) break;
    case TILE_BF16: RED_LOOP(uint16_t, float, 0.0f, acc + tile_bf16_to_f32(x), tile_f32_to_bf16(acc)) break;
    case TILE_INT32: RED_LOOP(int32_t, uint32_t, 0u, acc + (uint32_t)x, acc) break;
    case TILE_INT8: RED_LOOP(int8_t, uint8_t, 0u, acc + (uint8_t)x, acc) break;
    }
    dst->valid[0] = R, dst->valid[1] = V > 0;
}

static void red_max(tile *dst, const tile *a)
{
    int64_t R = a->valid[0], C = a->shape[1], V = a->valid[1];
    if (V == 0) R = 0;
    switch ((tile_dtype)a->dtype) {
    case TILE_FP32: RED_LOOP(float, float, row[0], x > acc ? x : acc, acc) break;
    case TILE_FP16: RED_LOOP(uint16_t, float, tile_f16_to_f32(row[0]), tile_f16_to_f32(x) > acc ? tile_f16_to_f32(x) : acc, tile_f32_to_f16(acc)) break;
    case TILE_BF16: RED_LOOP(uint16_t, float, tile_bf16_to_f32(row[0]), tile_bf16_to_f32(x) > acc ? tile_bf16_to_f32(x) : acc, tile_f32_to_bf16(acc)) break;
    case TILE_INT32: RED_LOOP(int32_t, int32_t, row[0], x > acc ? x : acc, acc) break;
    case TILE_INT8: RED_LOOP(int8_t, int8_t, row[0], x > acc ? x : acc, acc) break;
    }
    dst->valid[0] = a->valid[0], dst->valid[1] = V > 0;
}

#define RED_NAME_(n, s) [TILE_##n] = s,
static const char *const red_names[TILE_ROWOP_COUNT] = {TILE_ROWOP_LIST(RED_NAME_)};
#undef RED_NAME_
static void (*const red_run[TILE_ROWOP_COUNT])(tile *, const tile *) = {[TILE_ROW_SUM] = red_sum, [TILE_ROW_MAX] = red_max};

int tile_row_reduce(tile *dst, const tile *a, tile_rowop op, char *msg, size_t cap)
{
    if (red_check(dst, a, red_names[op], msg, cap)) return -1;
    red_run[op](dst, a);
    tile_clear_outside(dst);
    return 0;
}
