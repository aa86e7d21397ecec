/*
 * tile_elementwise.c - element-wise binary (tile-tile, tile-scalar) and
 * unary ops.
 *
 * One row kernel per (dtype class, op): a plain loop over a contiguous run
 * that the compiler vectorizes; the op is chosen once per call from a
 * table indexed by the op (tile.h's enums), so the enums' order is free.
 * A unary op with no integer kernel is float only.  FP16/BF16 runs go through FP32 in blocks of EW_BLOCK (convert,
 * compute, round to nearest even).  Integer ops wrap (computed on unsigned
 * bits); integer division truncates toward zero, and a zero divisor in the
 * valid region fails the op before anything is written.  The result's
 * valid region is the intersection of the operands'; the rest is zeroed.
 */
#include <math.h>

#include "tile/tile_half.h"
#include "tile/tile_int.h"

#define EW_BLOCK 256

/* The row kernels are built twice, for AVX2 and for the baseline, and the
 * loader picks one per machine (ifunc): the same IEEE operation per
 * element either way (one operation per loop, nothing to contract), twice
 * the elements per instruction with AVX2.  Not in sanitizer builds: an
 * ifunc resolver runs before the sanitizer's runtime is up (TSan crashes). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(PTO_SANITIZER)
#define EW_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define EW_CLONES
#endif

typedef void (*ew_f32_tt)(float *d, const float *a, const float *b, int64_t n);
typedef void (*ew_f32_ts)(float *d, const float *a, float y, int64_t n);
typedef void (*ew_i32_tt)(int32_t *d, const int32_t *a, const int32_t *b, int64_t n);
typedef void (*ew_i32_ts)(int32_t *d, const int32_t *a, int32_t y, int64_t n);
typedef void (*ew_i8_tt)(int8_t *d, const int8_t *a, const int8_t *b, int64_t n);
typedef void (*ew_i8_ts)(int8_t *d, const int8_t *a, int8_t y, int64_t n);

/* Row kernels: X is T, op name, expression of x and y. */
#define EW_KERNELS(T, sfx, X)                                                                                   \
    X(T, sfx, add, x + y) X(T, sfx, sub, x - y) X(T, sfx, mul, x * y) X(T, sfx, div, x / y)                     \
    X(T, sfx, max, x > y ? x : y) X(T, sfx, min, x < y ? x : y)

#define EW_DEF(T, sfx, name, expr)                                                                              \
    EW_CLONES static void ew_##name##_##sfx##_tt(T *d, const T *a, const T *b, int64_t n)                                 \
    {                                                                                                           \
        for (int64_t i = 0; i < n; i++) { T x = a[i], y = b[i]; d[i] = (T)(expr); }                             \
    }                                                                                                           \
    EW_CLONES static void ew_##name##_##sfx##_ts(T *d, const T *a, T y, int64_t n)                                        \
    {                                                                                                           \
        for (int64_t i = 0; i < n; i++) { T x = a[i]; d[i] = (T)(expr); }                                       \
    }
EW_KERNELS(float, f32, EW_DEF)

/* Integers: + - * on unsigned bits (wrap); division guarded against
 * MIN / -1 (wraps to MIN); the divisor is known non-zero. */
#define EW_INT(T, U, sfx)                                                                                      \
    EW_DEF(T, sfx, add, (U)x + (U)y) EW_DEF(T, sfx, sub, (U)x - (U)y) EW_DEF(T, sfx, mul, (U)x * (U)y)         \
    EW_DEF(T, sfx, div, y == -1 ? (T)(0u - (U)x) : x / y) EW_DEF(T, sfx, max, x > y ? x : y)                   \
    EW_DEF(T, sfx, min, x < y ? x : y)
EW_INT(int32_t, uint32_t, i32)
EW_INT(int8_t, uint8_t, i8)

/* The kernels of each op, indexed by op (tile.h). */
#define EW_ENTRIES(sfx, kind)                                                                                   \
    {[TILE_ADD] = ew_add_##sfx##_##kind, [TILE_SUB] = ew_sub_##sfx##_##kind, [TILE_MUL] = ew_mul_##sfx##_##kind, \
     [TILE_DIV] = ew_div_##sfx##_##kind, [TILE_MAX] = ew_max_##sfx##_##kind, [TILE_MIN] = ew_min_##sfx##_##kind}
static const ew_f32_tt ew_f32_tab_tt[TILE_BINOP_COUNT] = EW_ENTRIES(f32, tt);
static const ew_f32_ts ew_f32_tab_ts[TILE_BINOP_COUNT] = EW_ENTRIES(f32, ts);
static const ew_i32_tt ew_i32_tab_tt[TILE_BINOP_COUNT] = EW_ENTRIES(i32, tt);
static const ew_i32_ts ew_i32_tab_ts[TILE_BINOP_COUNT] = EW_ENTRIES(i32, ts);
static const ew_i8_tt ew_i8_tab_tt[TILE_BINOP_COUNT] = EW_ENTRIES(i8, tt);
static const ew_i8_ts ew_i8_tab_ts[TILE_BINOP_COUNT] = EW_ENTRIES(i8, ts);

#define EW_NAME_(n, s) [TILE_##n] = s,
static const char *const ew_names[TILE_BINOP_COUNT] = {TILE_BINOP_LIST(EW_NAME_)};
static const char *const un_names[TILE_UNOP_COUNT] = {TILE_UNOP_LIST(EW_NAME_)};
#undef EW_NAME_

static int ew_check(tile *dst, const tile *a, const tile *b, const char *op, char *msg, size_t cap)
{
    int same = dst->rank == a->rank && dst->dtype == a->dtype;
    for (int d = 0; d < a->rank && same; d++) same = dst->shape[d] == a->shape[d] && (!b || b->shape[d] == a->shape[d]);
    if (!same || (b && (b->rank != a->rank || b->dtype != a->dtype)))
        return tile_fail(msg, cap, "pl.%s: operand and result tiles differ in shape or dtype", op);
    return 0;
}

/* Does any element of b's run hold 0? */
static int ew_has_zero(const tile *b, const int64_t *region)
{
    tile_iter it;
    int zero = 0;
    TILE_FOR_RUNS(it, b->shape, region, b->rank) {
        if (b->dtype == TILE_INT32) {
            const int32_t *p = (const int32_t *)b->data + it.start;
            for (int64_t i = 0; i < it.len; i++) zero |= p[i] == 0;
        } else {
            const int8_t *p = (const int8_t *)b->data + it.start;
            for (int64_t i = 0; i < it.len; i++) zero |= p[i] == 0;
        }
    }
    return zero;
}

/* One FP16/BF16 run through FP32: b NULL means the scalar y. */
static void ew_half_run(uint16_t *d, const uint16_t *a, const uint16_t *b, float y, int64_t n, int bf16, tile_binop op)
{
    float fa[EW_BLOCK], fb[EW_BLOCK];
    for (int64_t k = 0; k < n; k += EW_BLOCK) {
        int64_t m = n - k < EW_BLOCK ? n - k : EW_BLOCK;
        tile_half_to_f32(fa, a + k, m, bf16);
        if (b) {
            tile_half_to_f32(fb, b + k, m, bf16);
            ew_f32_tab_tt[op](fa, fa, fb, m);
        } else {
            ew_f32_tab_ts[op](fa, fa, y, m);
        }
        tile_f32_to_half(d + k, fa, m, bf16);
    }
}

int tile_binary(tile *dst, const tile *a, const tile *b, tile_binop op, char *msg, size_t cap)
{
    if (ew_check(dst, a, b, ew_names[op], msg, cap)) return -1;
    int64_t v[TILE_MAX_RANK];
    tile_region_meet(v, a->valid, b->valid, a->rank);
    tile_dtype dt = (tile_dtype)a->dtype;
    if (op == TILE_DIV && !tile_dtype_is_float(dt) && ew_has_zero(b, v))
        return tile_fail(msg, cap, "pl.div: integer division by zero");
    tile_iter it;
    TILE_FOR_RUNS(it, a->shape, v, a->rank) {
        int64_t s = it.start, n = it.len;
        switch (dt) {
        case TILE_FP32: ew_f32_tab_tt[op]((float *)dst->data + s, (const float *)a->data + s, (const float *)b->data + s, n); break;
        case TILE_FP16:
        case TILE_BF16:
            ew_half_run((uint16_t *)dst->data + s, (const uint16_t *)a->data + s, (const uint16_t *)b->data + s, 0, n, dt == TILE_BF16, op);
            break;
        case TILE_INT32: ew_i32_tab_tt[op]((int32_t *)dst->data + s, (const int32_t *)a->data + s, (const int32_t *)b->data + s, n); break;
        case TILE_INT8: ew_i8_tab_tt[op]((int8_t *)dst->data + s, (const int8_t *)a->data + s, (const int8_t *)b->data + s, n); break;
        }
    }
    for (int d = 0; d < a->rank; d++) dst->valid[d] = v[d];
    tile_clear_outside(dst);
    return 0;
}

int tile_binary_scalar(tile *dst, const tile *a, tile_scalar sc, tile_binop op, char *msg, size_t cap)
{
    if (ew_check(dst, a, NULL, ew_names[op], msg, cap)) return -1;
    tile_dtype dt = (tile_dtype)a->dtype;
    int64_t cnt = 1;
    for (int d = 0; d < a->rank; d++) cnt *= a->valid[d];
    int32_t yi32 = (int32_t)(uint32_t)sc.i;
    int8_t yi8 = (int8_t)(uint8_t)sc.i;
    float yf = (float)sc.f;
    if (dt == TILE_FP16) yf = tile_f16_to_f32(tile_f32_to_f16(yf));
    if (dt == TILE_BF16) yf = tile_bf16_to_f32(tile_f32_to_bf16(yf));
    if (op == TILE_DIV && cnt > 0 && ((dt == TILE_INT32 && yi32 == 0) || (dt == TILE_INT8 && yi8 == 0)))
        return tile_fail(msg, cap, "pl.div: integer division by zero");
    tile_iter it;
    TILE_FOR_RUNS(it, a->shape, a->valid, a->rank) {
        int64_t s = it.start, n = it.len;
        switch (dt) {
        case TILE_FP32: ew_f32_tab_ts[op]((float *)dst->data + s, (const float *)a->data + s, yf, n); break;
        case TILE_FP16:
        case TILE_BF16: ew_half_run((uint16_t *)dst->data + s, (const uint16_t *)a->data + s, NULL, yf, n, dt == TILE_BF16, op); break;
        case TILE_INT32: ew_i32_tab_ts[op]((int32_t *)dst->data + s, (const int32_t *)a->data + s, yi32, n); break;
        case TILE_INT8: ew_i8_tab_ts[op]((int8_t *)dst->data + s, (const int8_t *)a->data + s, yi8, n); break;
        }
    }
    for (int d = 0; d < a->rank; d++) dst->valid[d] = a->valid[d];
    tile_clear_outside(dst);
    return 0;
}

/* ---- unary ---------------------------------------------------------------------------- */

/* Unary row kernels: X(OP, name, expression of x), per dtype class.  An op
 * missing from the integer lists is float only. */
#define UN_F32_LIST(X)                                                                                          \
    X(EXP, exp, expf(x)) X(NEG, neg, -x) X(SQRT, sqrt, sqrtf(x)) X(ABS, abs, __builtin_fabsf(x))               \
    X(RELU, relu, x > 0 ? x : 0) X(LOG, log, logf(x)) X(RSQRT, rsqrt, 1.0f / sqrtf(x)) X(RECIP, recip, 1.0f / x)
#define UN_I32_LIST(X) X(NEG, neg, 0u - (uint32_t)x) X(ABS, abs, x < 0 ? 0u - (uint32_t)x : (uint32_t)x) X(RELU, relu, x > 0 ? x : 0)
#define UN_I8_LIST(X) \
    X(NEG, neg, 0u - (uint8_t)x) X(ABS, abs, x < 0 ? (uint8_t)(0u - (uint8_t)x) : (uint8_t)x) X(RELU, relu, x > 0 ? x : 0)

#define UN_DEF(T, sfx, name, expr) \
    EW_CLONES static void un_##name##_##sfx(T *d, const T *a, int64_t n) { for (int64_t i = 0; i < n; i++) { T x = a[i]; d[i] = (T)(expr); } }
#define UN_DEF_F32_(op, name, expr) UN_DEF(float, f32, name, expr)
#define UN_DEF_I32_(op, name, expr) UN_DEF(int32_t, i32, name, expr)
#define UN_DEF_I8_(op, name, expr) UN_DEF(int8_t, i8, name, expr)
UN_F32_LIST(UN_DEF_F32_)
UN_I32_LIST(UN_DEF_I32_)
UN_I8_LIST(UN_DEF_I8_)

typedef void (*un_f32_fn)(float *, const float *, int64_t);
typedef void (*un_i32_fn)(int32_t *, const int32_t *, int64_t);
typedef void (*un_i8_fn)(int8_t *, const int8_t *, int64_t);
#define UN_F32_ENTRY_(op, name, expr) [TILE_##op] = un_##name##_f32,
#define UN_I32_ENTRY_(op, name, expr) [TILE_##op] = un_##name##_i32,
#define UN_I8_ENTRY_(op, name, expr) [TILE_##op] = un_##name##_i8,
static const un_f32_fn un_f32_tab[TILE_UNOP_COUNT] = {UN_F32_LIST(UN_F32_ENTRY_)};
static const un_i32_fn un_i32_tab[TILE_UNOP_COUNT] = {UN_I32_LIST(UN_I32_ENTRY_)};
static const un_i8_fn un_i8_tab[TILE_UNOP_COUNT] = {UN_I8_LIST(UN_I8_ENTRY_)};

int tile_unary(tile *dst, const tile *a, tile_unop op, char *msg, size_t cap)
{
    if (ew_check(dst, a, NULL, un_names[op], msg, cap)) return -1;
    tile_dtype dt = (tile_dtype)a->dtype;
    if ((dt == TILE_INT32 && !un_i32_tab[op]) || (dt == TILE_INT8 && !un_i8_tab[op]))
        return tile_fail(msg, cap, "pl.%s requires a floating-point tile, got %s", un_names[op], tile_dtype_name(dt));
    tile_iter it;
    float buf[EW_BLOCK];
    TILE_FOR_RUNS(it, a->shape, a->valid, a->rank) {
        int64_t s = it.start, n = it.len;
        switch (dt) {
        case TILE_FP32: un_f32_tab[op]((float *)dst->data + s, (const float *)a->data + s, n); break;
        case TILE_FP16:
        case TILE_BF16:
            for (int64_t k = 0; k < n; k += EW_BLOCK) {
                int64_t m = n - k < EW_BLOCK ? n - k : EW_BLOCK;
                tile_half_to_f32(buf, (const uint16_t *)a->data + s + k, m, dt == TILE_BF16);
                un_f32_tab[op](buf, buf, m);
                tile_f32_to_half((uint16_t *)dst->data + s + k, buf, m, dt == TILE_BF16);
            }
            break;
        case TILE_INT32: un_i32_tab[op]((int32_t *)dst->data + s, (const int32_t *)a->data + s, n); break;
        case TILE_INT8: un_i8_tab[op]((int8_t *)dst->data + s, (const int8_t *)a->data + s, n); break;
        }
    }
    for (int d = 0; d < a->rank; d++) dst->valid[d] = a->valid[d];
    tile_clear_outside(dst);
    return 0;
}
