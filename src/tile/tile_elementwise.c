/*
 * tile_elementwise.c - element-wise binary (tile-tile, tile-scalar) and
 * unary ops: arithmetic, the remainders, comparisons, the ReLU family,
 * bitwise logic and shifts, trigonometry.
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
#include <string.h>

#include "base/half.h"
#include "tile/tile_expf.h"
#include "tile/tile_int.h"

#pragma GCC diagnostic ignored "-Wtype-limits" /* the unsigned classes' sign tests (tile_int.h) */

#define EW_BLOCK 256

typedef void (*ew_f32_tt)(float *d, const float *a, const float *b, int64_t n);
typedef void (*ew_f32_ts)(float *d, const float *a, float y, int64_t n);

/* Row kernels: X is T, op name, expression of x and y. */
#define EW_KERNELS(T, sfx, X)                                                                                   \
    X(T, sfx, add, x + y) X(T, sfx, sub, x - y) X(T, sfx, mul, x * y) X(T, sfx, div, x / y)                     \
    X(T, sfx, max, x > y ? x : y) X(T, sfx, min, x < y ? x : y)                                                 \
    X(T, sfx, rem, ew_remf(x, y)) X(T, sfx, fmod, fmodf(x, y)) EW_CMP_KERNELS(T, sfx, X)                         \
    X(T, sfx, prelu, x > 0 ? x : x * y) X(T, sfx, lrelu, x * y > x ? x * y : x)
/* The comparisons (1 or 0 in the dtype), every dtype class. */
#define EW_CMP_KERNELS(T, sfx, X)                                                                               \
    X(T, sfx, eq, x == y) X(T, sfx, ne, x != y) X(T, sfx, lt, x < y) X(T, sfx, le, x <= y) X(T, sfx, gt, x > y)  \
    X(T, sfx, ge, x >= y)

/* The floored remainder: C's truncated one moved by y when the signs differ. */
static inline float ew_remf(float x, float y)
{
    float r = fmodf(x, y);
    return r != 0 && (r < 0) != (y < 0) ? r + y : r;
}

#define EW_DEF(T, sfx, name, expr)                                                                              \
    TILE_CLONES static void ew_##name##_##sfx##_tt(T *d, const T *a, const T *b, int64_t n)                                 \
    {                                                                                                           \
        for (int64_t i = 0; i < n; i++) { T x = a[i], y = b[i]; d[i] = (T)(expr); }                             \
    }                                                                                                           \
    TILE_CLONES static void ew_##name##_##sfx##_ts(T *d, const T *a, T y, int64_t n)                                        \
    {                                                                                                           \
        for (int64_t i = 0; i < n; i++) { T x = a[i]; d[i] = (T)(expr); }                                       \
    }
EW_KERNELS(float, f32, EW_DEF)

/* Integers (each class of TILE_INT_CLASSES): + - * on unsigned bits (wrap);
 * signed division guarded against MIN / -1 (wraps to MIN, the remainders
 * are 0); the divisor is known non-zero.  Shifts: a count outside [0, bits)
 * is caught on its unsigned bits before any shift; >> of a negative value
 * runs on its complement (non-negative), so no shift is undefined or
 * implementation-defined.  The unsigned classes: no MIN / -1 case, the
 * remainders are C's %, >> is logical (x < 0 is never true). */
#define EW_BITS(T, U) ((U)(8 * sizeof(T)))
#define EW_MINUS1(T, y) (TILE_SIGNED(T) && y == (T)-1)
#define EW_INT(T, U, sfx, DT)                                                                                  \
    EW_DEF(T, sfx, add, (U)x + (U)y) EW_DEF(T, sfx, sub, (U)x - (U)y) EW_DEF(T, sfx, mul, (U)x * (U)y)         \
    EW_DEF(T, sfx, div, EW_MINUS1(T, y) ? (T)(0u - (U)x) : x / y) EW_DEF(T, sfx, max, x > y ? x : y)           \
    EW_DEF(T, sfx, min, x < y ? x : y)                                                                          \
    EW_DEF(T, sfx, rem, EW_MINUS1(T, y) ? 0 : x % y != 0 && ((x % y) ^ y) < 0 ? x % y + y : x % y)              \
    EW_DEF(T, sfx, fmod, EW_MINUS1(T, y) ? 0 : x % y) EW_CMP_KERNELS(T, sfx, EW_DEF)                            \
    EW_DEF(T, sfx, prelu, x > 0 ? x : (T)((U)x * (U)y))                                                         \
    EW_DEF(T, sfx, lrelu, (T)((U)x * (U)y) > x ? (T)((U)x * (U)y) : x)                                          \
    EW_DEF(T, sfx, and, x & y) EW_DEF(T, sfx, or, x | y) EW_DEF(T, sfx, xor, x ^ y)                             \
    EW_DEF(T, sfx, shl, (U)y >= EW_BITS(T, U) ? 0 : (T)((U)x << (U)y))                                             \
    EW_DEF(T, sfx, shr, (U)y >= EW_BITS(T, U) ? (x < 0 ? -1 : 0) : x < 0 ? ~(~x >> y) : x >> y)                    \
    typedef void (*ew_##sfx##_tt)(T *d, const T *a, const T *b, int64_t n);                                    \
    typedef void (*ew_##sfx##_ts)(T *d, const T *a, T y, int64_t n);
TILE_INT_CLASSES(EW_INT)

/* The kernels of each op, indexed by op (tile.h). */
#define EW_ENTRIES(sfx, kind)                                                                                   \
    [TILE_ADD] = ew_add_##sfx##_##kind, [TILE_SUB] = ew_sub_##sfx##_##kind, [TILE_MUL] = ew_mul_##sfx##_##kind,  \
    [TILE_DIV] = ew_div_##sfx##_##kind, [TILE_MAX] = ew_max_##sfx##_##kind, [TILE_MIN] = ew_min_##sfx##_##kind,  \
    [TILE_REM] = ew_rem_##sfx##_##kind, [TILE_FMOD] = ew_fmod_##sfx##_##kind, [TILE_CMP_EQ] = ew_eq_##sfx##_##kind, \
    [TILE_CMP_NE] = ew_ne_##sfx##_##kind, [TILE_CMP_LT] = ew_lt_##sfx##_##kind, [TILE_CMP_LE] = ew_le_##sfx##_##kind, \
    [TILE_CMP_GT] = ew_gt_##sfx##_##kind, [TILE_CMP_GE] = ew_ge_##sfx##_##kind,                                  \
    [TILE_PRELU] = ew_prelu_##sfx##_##kind, [TILE_LRELU] = ew_lrelu_##sfx##_##kind,                             \
    [TILE_PART_ADD] = ew_add_##sfx##_##kind, [TILE_PART_MUL] = ew_mul_##sfx##_##kind,                           \
    [TILE_PART_MAX] = ew_max_##sfx##_##kind, [TILE_PART_MIN] = ew_min_##sfx##_##kind
/* ... and the integer-only ones (no float kernel: tile_binary refuses float tiles) */
#define EW_INT_ENTRIES(sfx, kind)                                                                               \
    EW_ENTRIES(sfx, kind), [TILE_AND] = ew_and_##sfx##_##kind, [TILE_OR] = ew_or_##sfx##_##kind,                 \
    [TILE_XOR] = ew_xor_##sfx##_##kind, [TILE_SHL] = ew_shl_##sfx##_##kind, [TILE_SHR] = ew_shr_##sfx##_##kind
static const ew_f32_tt ew_f32_tab_tt[TILE_BINOP_COUNT] = {EW_ENTRIES(f32, tt)};
static const ew_f32_ts ew_f32_tab_ts[TILE_BINOP_COUNT] = {EW_ENTRIES(f32, ts)};
#define EW_INT_TABS_(T, U, sfx, DT)                                                                            \
    static const ew_##sfx##_tt ew_##sfx##_tab_tt[TILE_BINOP_COUNT] = {EW_INT_ENTRIES(sfx, tt)};                \
    static const ew_##sfx##_ts ew_##sfx##_tab_ts[TILE_BINOP_COUNT] = {EW_INT_ENTRIES(sfx, ts)};
TILE_INT_CLASSES(EW_INT_TABS_)
#undef EW_INT_TABS_

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
    return tile_no_bool(a, op, msg, cap);
}

/* The binary op's checks: shapes, dtypes, BOOL, an integer-only op on a float tile. */
static int ew_binary_check(tile *dst, const tile *a, const tile *b, tile_binop op, char *msg, size_t cap)
{
    if (ew_check(dst, a, b, ew_names[op], msg, cap)) return -1;
    if (tile_dtype_is_float((tile_dtype)a->dtype) && !ew_f32_tab_tt[op])
        return tile_fail(msg, cap, "pl.%s requires an integer tile, got %s", ew_names[op], tile_dtype_name((tile_dtype)a->dtype));
    return 0;
}

/* Does the op divide (an integer zero divisor fails it)? */
static int ew_divides(tile_binop op) { return op == TILE_DIV || op == TILE_REM || op == TILE_FMOD; }

/* Does any element of b's run hold 0? */
static int ew_has_zero(const tile *b, const int64_t *region)
{
    tile_iter it;
    int zero = 0;
    TILE_FOR_RUNS(it, b->shape, region, b->rank) {
        switch ((tile_dtype)b->dtype) {
#define EW_ZERO_(T, U, sfx, DT)                                                          \
    case DT: {                                                                           \
        const T *p = (const T *)b->data + it.start;                                      \
        for (int64_t i = 0; i < it.len; i++) zero |= p[i] == 0;                          \
        break;                                                                           \
    }
            TILE_INT_CLASSES(EW_ZERO_)
#undef EW_ZERO_
        default: break;
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
        base_half_to_f32(fa, a + k, m, bf16);
        if (b) {
            base_half_to_f32(fb, b + k, m, bf16);
            ew_f32_tab_tt[op](fa, fa, fb, m);
        } else {
            ew_f32_tab_ts[op](fa, fa, y, m);
        }
        base_f32_to_half(d + k, fa, m, bf16);
    }
}

/* dst[s, s + n) = a <op> b over one run. */
static void ew_run_tt(tile *dst, const tile *a, const tile *b, int64_t s, int64_t n, tile_binop op)
{
    tile_dtype dt = (tile_dtype)a->dtype;
    switch (dt) {
    case TILE_FP32: ew_f32_tab_tt[op]((float *)dst->data + s, (const float *)a->data + s, (const float *)b->data + s, n); break;
    case TILE_FP16:
    case TILE_BF16:
        ew_half_run((uint16_t *)dst->data + s, (const uint16_t *)a->data + s, (const uint16_t *)b->data + s, 0, n, dt == TILE_BF16, op);
        break;
#define EW_TT_(T, U, sfx, DT) \
    case DT: ew_##sfx##_tab_tt[op]((T *)dst->data + s, (const T *)a->data + s, (const T *)b->data + s, n); break;
        TILE_INT_CLASSES(EW_TT_)
#undef EW_TT_
    case TILE_BOOL: break;
    }
}

static int ew_is_part(tile_binop op) { return op == TILE_PART_ADD || op == TILE_PART_MUL || op == TILE_PART_MAX || op == TILE_PART_MIN; }

/* pl.part_<op>: valid over the smallest box holding both valid regions; in
 * each line of the last axis, op where both operands are valid, the valid
 * one's element where one is, 0 where neither is. */
static void ew_part(tile *dst, const tile *a, const tile *b, tile_binop op)
{
    int last = a->rank - 1;
    size_t es = tile_dtype_size((tile_dtype)a->dtype);
    int64_t u[TILE_MAX_RANK], idx[TILE_MAX_RANK], lines = 1;
    for (int d = 0; d <= last; d++) u[d] = a->valid[d] > b->valid[d] ? a->valid[d] : b->valid[d];
    for (int d = 0; d < last; d++) lines *= u[d];
    for (int64_t k = 0; u[last] > 0 && k < lines; k++) {
        int64_t left = k, off = 0;
        for (int d = last - 1; d >= 0; d--) idx[d] = left % u[d], left /= u[d];
        int ina = 1, inb = 1;
        for (int d = 0; d < last; d++) ina &= idx[d] < a->valid[d], inb &= idx[d] < b->valid[d], off = off * a->shape[d] + idx[d];
        off *= a->shape[last];
        int64_t ca = ina ? a->valid[last] : 0, cb = inb ? b->valid[last] : 0, both = ca < cb ? ca : cb, hi = ca > cb ? ca : cb;
        ew_run_tt(dst, a, b, off, both, op);
        const char *from = (const char *)(ca > cb ? a : b)->data;
        memmove((char *)dst->data + (size_t)(off + both) * es, from + (size_t)(off + both) * es, (size_t)(hi - both) * es);
        memset((char *)dst->data + (size_t)(off + hi) * es, 0, (size_t)(u[last] - hi) * es);
    }
    for (int d = 0; d <= last; d++) dst->valid[d] = u[d];
    tile_clear_outside(dst);
}

int tile_binary(tile *dst, const tile *a, const tile *b, tile_binop op, char *msg, size_t cap)
{
    if (ew_binary_check(dst, a, b, op, msg, cap)) return -1;
    if (ew_is_part(op)) return ew_part(dst, a, b, op), 0;
    int64_t v[TILE_MAX_RANK];
    tile_region_meet(v, a->valid, b->valid, a->rank);
    tile_dtype dt = (tile_dtype)a->dtype;
    if (ew_divides(op) && !tile_dtype_is_float(dt) && ew_has_zero(b, v))
        return tile_fail(msg, cap, "pl.%s: integer division by zero", ew_names[op]);
    tile_iter it;
    TILE_FOR_RUNS(it, a->shape, v, a->rank) ew_run_tt(dst, a, b, it.start, it.len, op);
    for (int d = 0; d < a->rank; d++) dst->valid[d] = v[d];
    tile_clear_outside(dst);
    return 0;
}

int tile_binary_scalar(tile *dst, const tile *a, tile_scalar sc, tile_binop op, char *msg, size_t cap)
{
    if (ew_binary_check(dst, a, NULL, op, msg, cap)) return -1;
    tile_dtype dt = (tile_dtype)a->dtype;
    int64_t cnt = 1;
    for (int d = 0; d < a->rank; d++) cnt *= a->valid[d];
    int64_t bits = 8 * (int64_t)tile_dtype_size(dt);
    if ((op == TILE_SHL || op == TILE_SHR) && (sc.i < 0 || sc.i > bits)) sc.i = bits; /* every bit out; fits the dtype */
    /* the scalar wrapped to the tile's width (the same bits each class's cast keeps) */
    int64_t yi = tile_int_wrap(dt, sc.i);
    float yf = (float)sc.f;
    if (dt == TILE_FP16) yf = base_f16_to_f32(base_f32_to_f16(yf));
    if (dt == TILE_BF16) yf = base_bf16_to_f32(base_f32_to_bf16(yf));
    if (ew_divides(op) && cnt > 0 && !tile_dtype_is_float(dt) && yi == 0)
        return tile_fail(msg, cap, "pl.%s: integer division by zero", ew_names[op]);
    tile_iter it;
    TILE_FOR_RUNS(it, a->shape, a->valid, a->rank) {
        int64_t s = it.start, n = it.len;
        switch (dt) {
        case TILE_FP32: ew_f32_tab_ts[op]((float *)dst->data + s, (const float *)a->data + s, yf, n); break;
        case TILE_FP16:
        case TILE_BF16: ew_half_run((uint16_t *)dst->data + s, (const uint16_t *)a->data + s, NULL, yf, n, dt == TILE_BF16, op); break;
#define EW_TS_(T, U, sfx, DT) \
    case DT: ew_##sfx##_tab_ts[op]((T *)dst->data + s, (const T *)a->data + s, (T)yi, n); break;
            TILE_INT_CLASSES(EW_TS_)
#undef EW_TS_
        case TILE_BOOL: break;
        }
    }
    for (int d = 0; d < a->rank; d++) dst->valid[d] = a->valid[d];
    tile_clear_outside(dst);
    return 0;
}

/* ---- unary ---------------------------------------------------------------------------- */

/* Unary row kernels: X(OP, name, expression of x), per dtype class (the
 * integer ones X(T, sfx, OP, name, expression) with T and U of
 * TILE_INT_CLASSES).  An op missing from the integer list is float only. */
#define UN_F32_LIST(X)                                                                                          \
    X(EXP, exp, tile_expf(x)) X(NEG, neg, -x) X(SQRT, sqrt, sqrtf(x)) X(ABS, abs, __builtin_fabsf(x))               \
    X(RELU, relu, x > 0 ? x : 0) X(LOG, log, logf(x)) X(RSQRT, rsqrt, 1.0f / sqrtf(x)) X(RECIP, recip, 1.0f / x) \
    X(SIN, sin, sinf(x)) X(COS, cos, cosf(x))
#define UN_INT_LIST(X, T, U, sfx)                                                                               \
    X(T, sfx, NEG, neg, (U)0 - (U)x) X(T, sfx, ABS, abs, x < 0 ? (U)0 - (U)x : (U)x)                            \
    X(T, sfx, RELU, relu, x > 0 ? x : 0) X(T, sfx, NOT, not, ~x)

#define UN_DEF(T, sfx, name, expr) \
    TILE_CLONES static void un_##name##_##sfx(T *d, const T *a, int64_t n) { for (int64_t i = 0; i < n; i++) { T x = a[i]; d[i] = (T)(expr); } }
#define UN_DEF_F32_(op, name, expr) UN_DEF(float, f32, name, expr)
UN_F32_LIST(UN_DEF_F32_)
typedef void (*un_f32_fn)(float *, const float *, int64_t);
#define UN_F32_ENTRY_(op, name, expr) [TILE_##op] = un_##name##_f32,
static const un_f32_fn un_f32_tab[TILE_UNOP_COUNT] = {UN_F32_LIST(UN_F32_ENTRY_)};

#define UN_DEF_INT_(T, sfx, op, name, expr) UN_DEF(T, sfx, name, expr)
#define UN_ENTRY_INT_(T, sfx, op, name, expr) [TILE_##op] = un_##name##_##sfx,
#define UN_INT_CLASS_(T, U, sfx, DT)                                                                           \
    UN_INT_LIST(UN_DEF_INT_, T, U, sfx)                                                                        \
    typedef void (*un_##sfx##_fn)(T *, const T *, int64_t);                                                    \
    static const un_##sfx##_fn un_##sfx##_tab[TILE_UNOP_COUNT] = {UN_INT_LIST(UN_ENTRY_INT_, T, U, sfx)};
TILE_INT_CLASSES(UN_INT_CLASS_)

int tile_unary(tile *dst, const tile *a, tile_unop op, char *msg, size_t cap)
{
    if (ew_check(dst, a, NULL, un_names[op], msg, cap)) return -1;
    tile_dtype dt = (tile_dtype)a->dtype;
    if (!tile_dtype_is_float(dt) && !un_i32_tab[op]) /* every integer class has the same ops */
        return tile_fail(msg, cap, "pl.%s requires a floating-point tile, got %s", un_names[op], tile_dtype_name(dt));
    if (tile_dtype_is_float(dt) && !un_f32_tab[op])
        return tile_fail(msg, cap, "pl.%s requires an integer tile, got %s", un_names[op], tile_dtype_name(dt));
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
                base_half_to_f32(buf, (const uint16_t *)a->data + s + k, m, dt == TILE_BF16);
                un_f32_tab[op](buf, buf, m);
                base_f32_to_half((uint16_t *)dst->data + s + k, buf, m, dt == TILE_BF16);
            }
            break;
#define UN_RUN_(T, U, sfx, DT) \
    case DT: un_##sfx##_tab[op]((T *)dst->data + s, (const T *)a->data + s, n); break;
            TILE_INT_CLASSES(UN_RUN_)
#undef UN_RUN_
        case TILE_BOOL: break;
        }
    }
    for (int d = 0; d < a->rank; d++) dst->valid[d] = a->valid[d];
    tile_clear_outside(dst);
    return 0;
}
