/*
 * tile_reduce.c - the reductions: rows (pl.row_sum, row_max, row_min,
 * row_prod, row_argmax, row_argmin: [R, C] -> [R, 1]) and columns
 * (pl.col_sum ... col_argmin: [R, C] -> [1, C]), over the valid region
 * only; one kernel per op, chosen from a table indexed by the op.
 *
 * The arg-extrema give the INT32 index of the first extremum (a NaN beats
 * every number, so the first NaN wins; numpy's argmax/argmin).  Sums and
 * products of FP16/BF16 accumulate in FP32 and round once; integer ones (every
 * class of TILE_INT_CLASSES) wrap in the tile's dtype; BOOL tiles fail; float max/min ignore nothing (a NaN compares false,
 * so it is skipped unless first).  A row reduction's valid region is
 * [valid rows, 1] (0 columns when the input has no valid column), a column
 * reduction's [1, valid columns] (0 rows when it has no valid row).
 * FP32 row reductions give RED_LOOP's bits, computed faster (red_sum_f32:
 * 8 rows' in-order sums in the lanes of a vector; RED_EXT_F32: 32 lanes).  Column reductions walk the rows in order, each a contiguous run, into an
 * accumulator block of COL_BLOCK columns.
 */
#include <string.h>

#include "base/half.h"
#include "tile/tile_int.h"

static int red_check(tile *dst, const tile *a, const char *op, int index, char *msg, size_t cap)
{
    if (a->rank != 2) return tile_fail(msg, cap, "pl.%s requires a rank-2 tile, got rank %d", op, a->rank);
    if (tile_no_bool(a, op, msg, cap)) return -1;
    if (dst->rank != 2 || dst->shape[0] != a->shape[0] || dst->shape[1] != 1 || dst->dtype != (index ? TILE_INT32 : a->dtype))
        return tile_fail(msg, cap, "pl.%s: the result tile is not [%lld, 1] of the %s dtype", op, (long long)a->shape[0],
                         index ? "INT32" : "input");
    return 0;
}

#define RED_LOOP(T, ACC, init, step, out)                                          \
    for (int64_t r = 0; r < R; r++) {                                              \
        const T *row = (const T *)a->data + r * C;                                 \
        ACC acc = (init);                                                          \
        for (int64_t c = 0; c < V; c++) { T x = row[c]; acc = (ACC)(step); }       \
        ((T *)dst->data)[r] = (T)(out);                                            \
    }

/* FP32 row sums, RED_ROWS = 8 rows at a time: each row's sum still adds its
 * elements left to right (the same bits as RED_LOOP's), the rows' chains
 * side by side in the lanes of one vector.  Each 8 x 8 block of the rows is
 * transposed in registers (three rounds of 8 two-vector shuffles), so that
 * column j of the block is one vector added to the 8 sums. */
enum { RED_ROWS = 8 };
typedef float red_v8 __attribute__((vector_size(8 * sizeof(float))));
#define RED_LO(a, b) __builtin_shufflevector(a, b, 0, 8, 1, 9, 4, 12, 5, 13)   /* pairs of a and b */
#define RED_HI(a, b) __builtin_shufflevector(a, b, 2, 10, 3, 11, 6, 14, 7, 15)
#define RED_LO2(a, b) __builtin_shufflevector(a, b, 0, 1, 8, 9, 4, 5, 12, 13)  /* pairs of pairs */
#define RED_HI2(a, b) __builtin_shufflevector(a, b, 2, 3, 10, 11, 6, 7, 14, 15)
#define RED_LO4(a, b) __builtin_shufflevector(a, b, 0, 1, 2, 3, 8, 9, 10, 11)  /* halves */
#define RED_HI4(a, b) __builtin_shufflevector(a, b, 4, 5, 6, 7, 12, 13, 14, 15)
TILE_CLONES static void red_sum_f32(float *out, const float *a, int64_t R, int64_t C, int64_t V)
{
    int64_t r = 0;
    for (; r + RED_ROWS <= R; r += RED_ROWS) {
        const float *p = a + r * C;
        red_v8 acc = {0}, x[8], y[8], z[8];
        int64_t c = 0;
        for (; c + 8 <= V; c += 8) {
            for (int k = 0; k < 8; k++) memcpy(&x[k], p + k * C + c, sizeof x[k]);
            for (int k = 0; k < 8; k += 2) y[k] = RED_LO(x[k], x[k + 1]), y[k + 1] = RED_HI(x[k], x[k + 1]);
            /* y[2i]: rows 2i, 2i+1 of columns 0, 1 | 4, 5; y[2i+1]: of columns 2, 3 | 6, 7 */
            for (int k = 0; k < 8; k += 4)
                for (int h = 0; h < 2; h++) z[k + 2 * h] = RED_LO2(y[k + h], y[k + h + 2]), z[k + 2 * h + 1] = RED_HI2(y[k + h], y[k + h + 2]);
            /* z[4g + j]: rows 4g..4g+3 of columns j | j + 4 */
            for (int j = 0; j < 4; j++) x[j] = RED_LO4(z[j], z[j + 4]), x[j + 4] = RED_HI4(z[j], z[j + 4]);
            for (int j = 0; j < 8; j++) acc += x[j]; /* column c + j of the 8 rows */
        }
        float s[RED_ROWS];
        memcpy(s, &acc, sizeof s);
        for (; c < V; c++)
            for (int k = 0; k < RED_ROWS; k++) s[k] += p[k * C + c];
        for (int k = 0; k < RED_ROWS; k++) out[r + k] = s[k];
    }
    for (; r < R; r++) {
        float acc = 0.0f;
        for (int64_t c = 0; c < V; c++) acc += a[r * C + c];
        out[r] = acc;
    }
}

/* The FP32 row max (GT: >) or min (<) of V elements, as RED_LOOP's scan
 * (acc = row[0], then acc = x OP acc ? x : acc) gives it: RED_LANES
 * interleaved scans, then the lanes and the tail in order.  The same bits:
 * when row[0] is NaN the scan keeps it (returned as is); otherwise it
 * returns the first element with the extreme value of the non-NaN ones,
 * which the lanes find too, and only +0 and -0 are equal with other bits,
 * so an extreme of 0 is scanned again. */
enum { RED_LANES = 32 };
#define RED_EXT_F32(name, OP)                                                                  \
    TILE_CLONES static float name(const float *row, int64_t V)                                 \
    {                                                                                          \
        float m = row[0];                                                                      \
        if (m != m) return m;                                                                  \
        float acc[RED_LANES];                                                                  \
        for (int k = 0; k < RED_LANES; k++) acc[k] = m;                                        \
        int64_t c = 0;                                                                         \
        for (; c + RED_LANES <= V; c += RED_LANES)                                             \
            for (int k = 0; k < RED_LANES; k++) acc[k] = row[c + k] OP acc[k] ? row[c + k] : acc[k]; \
        for (int k = 0; k < RED_LANES; k++) m = acc[k] OP m ? acc[k] : m;                      \
        for (; c < V; c++) m = row[c] OP m ? row[c] : m;                                       \
        if (m == 0.0f)                                                                         \
            for (m = row[0], c = 1; c < V; c++) m = row[c] OP m ? row[c] : m;                  \
        return m;                                                                              \
    }
RED_EXT_F32(red_max_f32, >)
RED_EXT_F32(red_min_f32, <)

static void red_sum(tile *dst, const tile *a)
{
    int64_t R = a->valid[0], C = a->shape[1], V = a->valid[1];
    switch ((tile_dtype)a->dtype) {
    case TILE_FP32: red_sum_f32(dst->data, a->data, R, C, V); break;
    case TILE_FP16: RED_LOOP(uint16_t, float, 0.0f, acc + base_f16_to_f32(x), base_f32_to_f16(acc)) break;
    case TILE_BF16: RED_LOOP(uint16_t, float, 0.0f, acc + base_bf16_to_f32(x), base_f32_to_bf16(acc)) break;
#define RED_SUM_(T, U, sfx, DT) case DT: RED_LOOP(T, U, 0u, acc + (U)x, acc) break;
    TILE_INT_CLASSES(RED_SUM_)
#undef RED_SUM_
    case TILE_BOOL: break;
    }
    dst->valid[0] = R, dst->valid[1] = V > 0;
}

static void red_max(tile *dst, const tile *a)
{
    int64_t R = a->valid[0], C = a->shape[1], V = a->valid[1];
    if (V == 0) R = 0;
    switch ((tile_dtype)a->dtype) {
    case TILE_FP32:
        for (int64_t r = 0; r < R; r++) ((float *)dst->data)[r] = red_max_f32((const float *)a->data + r * C, V);
        break;
    case TILE_FP16: RED_LOOP(uint16_t, float, base_f16_to_f32(row[0]), base_f16_to_f32(x) > acc ? base_f16_to_f32(x) : acc, base_f32_to_f16(acc)) break;
    case TILE_BF16: RED_LOOP(uint16_t, float, base_bf16_to_f32(row[0]), base_bf16_to_f32(x) > acc ? base_bf16_to_f32(x) : acc, base_f32_to_bf16(acc)) break;
#define RED_MAX_(T, U, sfx, DT) case DT: RED_LOOP(T, T, row[0], x > acc ? x : acc, acc) break;
    TILE_INT_CLASSES(RED_MAX_)
#undef RED_MAX_
    case TILE_BOOL: break;
    }
    dst->valid[0] = a->valid[0], dst->valid[1] = V > 0;
}

static void red_min(tile *dst, const tile *a)
{
    int64_t R = a->valid[0], C = a->shape[1], V = a->valid[1];
    if (V == 0) R = 0;
    switch ((tile_dtype)a->dtype) {
    case TILE_FP32:
        for (int64_t r = 0; r < R; r++) ((float *)dst->data)[r] = red_min_f32((const float *)a->data + r * C, V);
        break;
    case TILE_FP16: RED_LOOP(uint16_t, float, base_f16_to_f32(row[0]), base_f16_to_f32(x) < acc ? base_f16_to_f32(x) : acc, base_f32_to_f16(acc)) break;
    case TILE_BF16: RED_LOOP(uint16_t, float, base_bf16_to_f32(row[0]), base_bf16_to_f32(x) < acc ? base_bf16_to_f32(x) : acc, base_f32_to_bf16(acc)) break;
#define RED_MIN_(T, U, sfx, DT) case DT: RED_LOOP(T, T, row[0], x < acc ? x : acc, acc) break;
    TILE_INT_CLASSES(RED_MIN_)
#undef RED_MIN_
    case TILE_BOOL: break;
    }
    dst->valid[0] = a->valid[0], dst->valid[1] = V > 0;
}

static void red_prod(tile *dst, const tile *a)
{
    int64_t R = a->valid[0], C = a->shape[1], V = a->valid[1];
    switch ((tile_dtype)a->dtype) {
    case TILE_FP32: RED_LOOP(float, float, 1.0f, acc * x, acc) break;
    case TILE_FP16: RED_LOOP(uint16_t, float, 1.0f, acc * base_f16_to_f32(x), base_f32_to_f16(acc)) break;
    case TILE_BF16: RED_LOOP(uint16_t, float, 1.0f, acc * base_bf16_to_f32(x), base_f32_to_bf16(acc)) break;
#define RED_PROD_(T, U, sfx, DT) case DT: RED_LOOP(T, U, 1u, acc * (U)x, acc) break;
    TILE_INT_CLASSES(RED_PROD_)
#undef RED_PROD_
    case TILE_BOOL: break;
    }
    dst->valid[0] = R, dst->valid[1] = V > 0;
}

/* The arg-extrema: per row, the first column whose element beats the best
 * so far (better: the comparison BETTER of x and best, or x NaN while best
 * is not), as an INT32; x and best read as W (float for FP16/BF16). */
#define ARG_LOOP(T, W, load, BETTER, ISNAN)                                                \
    for (int64_t r = 0; r < R; r++) {                                              \
        const T *row = (const T *)a->data + r * C;                                 \
        W best = load(row[0]);                                                     \
        int32_t at = 0;                                                            \
        for (int64_t c = 1; c < V; c++) {                                          \
            W x = load(row[c]);                                                    \
            int better = (x BETTER best) || (ISNAN(x) && !ISNAN(best));              \
            best = better ? x : best, at = better ? (int32_t)c : at;               \
        }                                                                          \
        ((int32_t *)dst->data)[r] = at;                                            \
    }
#define ARG_SAME(x) (x)
#define ARG_ISNAN(x) ((x) != (x))
#define ARG_NONAN(x) 0
/* ARG_DTYPES, COL_ARG_DTYPES: the loop for a's dtype, comparing by ARG_BETTER (defined around each use). */
#define ARG_INT_(T, U, sfx, DT) case DT: ARG_LOOP(T, T, ARG_SAME, ARG_BETTER, ARG_NONAN) break;
#define ARG_DTYPES                                                                                 \
    switch ((tile_dtype)a->dtype) {                                                                 \
    case TILE_FP32: ARG_LOOP(float, float, ARG_SAME, ARG_BETTER, ARG_ISNAN) break;                                 \
    case TILE_FP16: ARG_LOOP(uint16_t, float, base_f16_to_f32, ARG_BETTER, ARG_ISNAN) break;                       \
    case TILE_BF16: ARG_LOOP(uint16_t, float, base_bf16_to_f32, ARG_BETTER, ARG_ISNAN) break;                      \
    TILE_INT_CLASSES(ARG_INT_)                                                                      \
    case TILE_BOOL: break;                                                                          \
    }

static void red_argmax(tile *dst, const tile *a)
{
    int64_t R = a->valid[1] > 0 ? a->valid[0] : 0, C = a->shape[1], V = a->valid[1];
#define ARG_BETTER >
    ARG_DTYPES
#undef ARG_BETTER
    dst->valid[0] = a->valid[0], dst->valid[1] = V > 0;
}

static void red_argmin(tile *dst, const tile *a)
{
    int64_t R = a->valid[1] > 0 ? a->valid[0] : 0, C = a->shape[1], V = a->valid[1];
#define ARG_BETTER <
    ARG_DTYPES
#undef ARG_BETTER
    dst->valid[0] = a->valid[0], dst->valid[1] = V > 0;
}

#define RED_NAME_(n, s) [TILE_##n] = s,
static const char *const red_names[TILE_ROWOP_COUNT] = {TILE_ROWOP_LIST(RED_NAME_)};
static const char *const col_names[TILE_COLOP_COUNT] = {TILE_COLOP_LIST(RED_NAME_)};
#undef RED_NAME_
static void (*const red_run[TILE_ROWOP_COUNT])(tile *, const tile *) = {
    [TILE_ROW_SUM] = red_sum, [TILE_ROW_MAX] = red_max, [TILE_ROW_MIN] = red_min, [TILE_ROW_PROD] = red_prod,
    [TILE_ROW_ARGMAX] = red_argmax, [TILE_ROW_ARGMIN] = red_argmin};

int tile_row_reduce(tile *dst, const tile *a, tile_rowop op, char *msg, size_t cap)
{
    if (red_check(dst, a, red_names[op], op == TILE_ROW_ARGMAX || op == TILE_ROW_ARGMIN, msg, cap)) return -1;
    red_run[op](dst, a);
    tile_clear_outside(dst);
    return 0;
}

/* ---- column reductions ---- */

#define COL_BLOCK 256

/* Columns [c0, c0 + n) of rows 0..R-1: acc = load(row 0), then acc = step
 * with x = load(element) for each later row; out = store(acc). */
#define COL_LOOP(T, ACC, load, step, store)                                         \
    for (int64_t c0 = 0; c0 < V; c0 += COL_BLOCK) {                                 \
        int64_t n = V - c0 < COL_BLOCK ? V - c0 : COL_BLOCK;                        \
        ACC acc[COL_BLOCK];                                                         \
        const T *src = (const T *)a->data + c0;                                     \
        for (int64_t c = 0; c < n; c++) { T e = src[c]; acc[c] = (ACC)(load); }     \
        for (int64_t r = 1; r < R; r++) {                                           \
            const T *row = src + r * C;                                             \
            for (int64_t c = 0; c < n; c++) {                                       \
                T e = row[c];                                                       \
                ACC x = (ACC)(load);                                                \
                acc[c] = (ACC)(step);                                               \
            }                                                                       \
        }                                                                           \
        T *out = (T *)dst->data + c0;                                               \
        for (int64_t c = 0; c < n; c++) out[c] = (T)(store);                        \
    }

/* One column op over every dtype: step of acc[c] and x; an integer
 * accumulator is ACC(T, U): U for sums (they wrap), T for max/min. */
#define COL_ACC_SUM(T, U) U
#define COL_ACC_CMP(T, U) T
#define COL_INT_(T, U, sfx, DT) case DT: COL_LOOP(T, COL_ACC(T, U), e, COL_STEP, acc[c]) break;
#define COL_DTYPES                                                                                          \
    switch ((tile_dtype)a->dtype) {                                                                         \
    case TILE_FP32: COL_LOOP(float, float, e, COL_STEP, acc[c]) break;                                      \
    case TILE_FP16: COL_LOOP(uint16_t, float, base_f16_to_f32(e), COL_STEP, base_f32_to_f16(acc[c])) break; \
    case TILE_BF16: COL_LOOP(uint16_t, float, base_bf16_to_f32(e), COL_STEP, base_f32_to_bf16(acc[c])) break; \
    TILE_INT_CLASSES(COL_INT_)                                                                              \
    case TILE_BOOL: break;                                                                                  \
    }

static void col_sum(tile *dst, const tile *a)
{
    int64_t R = a->valid[0], C = a->shape[1], V = R > 0 ? a->valid[1] : 0;
#define COL_ACC COL_ACC_SUM
#define COL_STEP acc[c] + x
    COL_DTYPES
#undef COL_STEP
#undef COL_ACC
    dst->valid[0] = R > 0, dst->valid[1] = V;
}

static void col_max(tile *dst, const tile *a)
{
    int64_t R = a->valid[0], C = a->shape[1], V = R > 0 ? a->valid[1] : 0;
#define COL_ACC COL_ACC_CMP
#define COL_STEP x > acc[c] ? x : acc[c]
    COL_DTYPES
#undef COL_STEP
    dst->valid[0] = R > 0, dst->valid[1] = V;
}

static void col_min(tile *dst, const tile *a)
{
    int64_t R = a->valid[0], C = a->shape[1], V = R > 0 ? a->valid[1] : 0;
#define COL_STEP x < acc[c] ? x : acc[c]
    COL_DTYPES
#undef COL_STEP
#undef COL_ACC
    dst->valid[0] = R > 0, dst->valid[1] = V;
}

static void col_prod(tile *dst, const tile *a)
{
    int64_t R = a->valid[0], C = a->shape[1], V = R > 0 ? a->valid[1] : 0;
#define COL_ACC COL_ACC_SUM
#define COL_STEP acc[c] * x
    COL_DTYPES
#undef COL_STEP
#undef COL_ACC
    dst->valid[0] = R > 0, dst->valid[1] = V;
}

/* Column arg-extrema: per column, the first row whose element beats the
 * best so far (as ARG_LOOP), rows walked in order over blocks of COL_BLOCK
 * columns. */
#define COL_ARG_LOOP(T, W, load, BETTER, ISNAN)                                            \
    for (int64_t c0 = 0; c0 < V; c0 += COL_BLOCK) {                                 \
        int64_t n = V - c0 < COL_BLOCK ? V - c0 : COL_BLOCK;                        \
        W best[COL_BLOCK];                                                          \
        int32_t *at = (int32_t *)dst->data + c0;                                    \
        const T *src = (const T *)a->data + c0;                                     \
        for (int64_t c = 0; c < n; c++) best[c] = load(src[c]), at[c] = 0;          \
        for (int64_t r = 1; r < R; r++) {                                           \
            const T *row = src + r * C;                                             \
            for (int64_t c = 0; c < n; c++) {                                       \
                W x = load(row[c]);                                                 \
                int better = (x BETTER best[c]) || (ISNAN(x) && !ISNAN(best[c]));  \
                best[c] = better ? x : best[c], at[c] = better ? (int32_t)r : at[c]; \
            }                                                                       \
        }                                                                           \
    }
#define COL_ARG_INT_(T, U, sfx, DT) case DT: COL_ARG_LOOP(T, T, ARG_SAME, ARG_BETTER, ARG_NONAN) break;
#define COL_ARG_DTYPES                                                                             \
    switch ((tile_dtype)a->dtype) {                                                                 \
    case TILE_FP32: COL_ARG_LOOP(float, float, ARG_SAME, ARG_BETTER, ARG_ISNAN) break;                             \
    case TILE_FP16: COL_ARG_LOOP(uint16_t, float, base_f16_to_f32, ARG_BETTER, ARG_ISNAN) break;                   \
    case TILE_BF16: COL_ARG_LOOP(uint16_t, float, base_bf16_to_f32, ARG_BETTER, ARG_ISNAN) break;                  \
    TILE_INT_CLASSES(COL_ARG_INT_)                                                                  \
    case TILE_BOOL: break;                                                                          \
    }

static void col_argmax(tile *dst, const tile *a)
{
    int64_t R = a->valid[0], C = a->shape[1], V = R > 0 ? a->valid[1] : 0;
#define ARG_BETTER >
    COL_ARG_DTYPES
#undef ARG_BETTER
    dst->valid[0] = R > 0, dst->valid[1] = V;
}

static void col_argmin(tile *dst, const tile *a)
{
    int64_t R = a->valid[0], C = a->shape[1], V = R > 0 ? a->valid[1] : 0;
#define ARG_BETTER <
    COL_ARG_DTYPES
#undef ARG_BETTER
    dst->valid[0] = R > 0, dst->valid[1] = V;
}

static void (*const col_run[TILE_COLOP_COUNT])(tile *, const tile *) = {
    [TILE_COL_SUM] = col_sum, [TILE_COL_MAX] = col_max, [TILE_COL_MIN] = col_min, [TILE_COL_PROD] = col_prod,
    [TILE_COL_ARGMAX] = col_argmax, [TILE_COL_ARGMIN] = col_argmin};

int tile_col_reduce(tile *dst, const tile *a, tile_colop op, char *msg, size_t cap)
{
    const char *name = col_names[op];
    if (a->rank != 2) return tile_fail(msg, cap, "pl.%s requires a rank-2 tile, got rank %d", name, a->rank);
    if (tile_no_bool(a, name, msg, cap)) return -1;
    int index = op == TILE_COL_ARGMAX || op == TILE_COL_ARGMIN;
    if (dst->rank != 2 || dst->shape[0] != 1 || dst->shape[1] != a->shape[1] || dst->dtype != (index ? TILE_INT32 : a->dtype))
        return tile_fail(msg, cap, "pl.%s: the result tile is not [1, %lld] of the %s dtype", name, (long long)a->shape[1],
                         index ? "INT32" : "input");
    col_run[op](dst, a);
    tile_clear_outside(dst);
    return 0;
}
