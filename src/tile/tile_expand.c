/*
 * tile_expand.c - the broadcast ops of docs/dsl.md, Operations:
 * pl.row_expand_<op> (a [.., R, C] tile with a [.., R, 1] vector, equal
 * leading axes: element [.., r, c] combines with v[.., r, 0]) and pl.col_expand_<op> (with a [1, C] vector:
 * v[0, c]); <op> is add, sub, mul, div, max, min, or expdif (exp(x - v),
 * float only); pl.row_expand / pl.col_expand are the vector itself
 * broadcast (COPY), pl.expands a scalar broadcast, pl.expand_clone a tile
 * broadcast along its unit axes to a target's shape (rows copied or filled).
 *
 * Each valid row of the tile is one contiguous run: a row expand runs a
 * tile-scalar kernel over it, a column expand a tile-vector kernel against
 * the vector's row.  The op is chosen once per call from a table indexed by
 * it.  FP16/BF16 go through FP32 in blocks of BX_BLOCK (convert, compute,
 * round to nearest even once).  Integer ops wrap; division truncates and a
 * zero divisor read by the valid region fails the op before anything is
 * written.  The row kernels are TILE_CLONES.  The result's shape and valid region are the tile's (vector
 * elements outside the vector's valid region read as 0); the rest is zeroed.
 */
#include <math.h>
#include <string.h>

#include "base/half.h"
#include "tile/tile_expf.h"
#include "tile/tile_int.h"

#define BX_BLOCK 256

/* X(OP, name, expression of x (the tile's element) and y (the vector's)). */
#define BX_F32_LIST(X)                                                                                          \
    X(BC_ADD, add, x + y) X(BC_SUB, sub, x - y) X(BC_MUL, mul, x * y) X(BC_DIV, div, x / y)                     \
    X(BC_MAX, max, x > y ? x : y) X(BC_MIN, min, x < y ? x : y) X(BC_EXPDIF, expdif, tile_expf(x - y)) \
    X(BC_COPY, copy, y)
/* The integer classes (TILE_INT_CLASSES): X(T, sfx, OP, name, expression); signed MIN / -1 wraps. */
#define BX_INT_LIST(X, T, U, sfx)                                                                               \
    X(T, sfx, BC_ADD, add, (U)x + (U)y) X(T, sfx, BC_SUB, sub, (U)x - (U)y) X(T, sfx, BC_MUL, mul, (U)x * (U)y)  \
    X(T, sfx, BC_DIV, div, TILE_SIGNED(T) && y == (T)-1 ? (T)(0u - (U)x) : x / y)                               \
    X(T, sfx, BC_MAX, max, x > y ? x : y) X(T, sfx, BC_MIN, min, x < y ? x : y) X(T, sfx, BC_COPY, copy, y)

/* Row kernels over n elements: _s with the scalar y, _v with the vector b. */
#define BX_DEF(T, sfx, name, expr)                                                                              \
    TILE_CLONES static void bx_##name##_##sfx##_s(T *d, const T *a, T y, int64_t n)                                         \
    {                                                                                                           \
        for (int64_t i = 0; i < n; i++) { T x = a[i]; (void)x; d[i] = (T)(expr); }                              \
    }                                                                                                           \
    TILE_CLONES static void bx_##name##_##sfx##_v(T *d, const T *a, const T *b, int64_t n)                                  \
    {                                                                                                           \
        for (int64_t i = 0; i < n; i++) { T x = a[i], y = b[i]; (void)x; d[i] = (T)(expr); }                    \
    }
#define BX_DEF_F32_(op, name, expr) BX_DEF(float, f32, name, expr)
BX_F32_LIST(BX_DEF_F32_)
typedef struct bx_f32 { void (*s)(float *, const float *, float, int64_t); void (*v)(float *, const float *, const float *, int64_t); } bx_f32;
#define BX_F32_ENTRY_(op, name, expr) [TILE_##op] = {bx_##name##_f32_s, bx_##name##_f32_v},
static const bx_f32 bx_f32_tab[TILE_BCASTOP_COUNT] = {BX_F32_LIST(BX_F32_ENTRY_)};

/* The integer classes of TILE_INT_CLASSES: kernels and a table each. */
#define BX_DEF_INT_(T, sfx, op, name, expr) BX_DEF(T, sfx, name, expr)
#define BX_ENTRY_INT_(T, sfx, op, name, expr) [TILE_##op] = {bx_##name##_##sfx##_s, bx_##name##_##sfx##_v},
#define BX_INT_CLASS_(T, U, sfx, DT)                                                                           \
    BX_INT_LIST(BX_DEF_INT_, T, U, sfx)                                                                        \
    typedef struct bx_##sfx { void (*s)(T *, const T *, T, int64_t); void (*v)(T *, const T *, const T *, int64_t); } bx_##sfx; \
    static const bx_##sfx bx_##sfx##_tab[TILE_BCASTOP_COUNT] = {BX_INT_LIST(BX_ENTRY_INT_, T, U, sfx)};
TILE_INT_CLASSES(BX_INT_CLASS_)

#define BX_NAME_(n, s) [TILE_##n] = s,
static const char *const bx_names[TILE_BCASTOP_COUNT] = {TILE_BCASTOP_LIST(BX_NAME_)};
#undef BX_NAME_

/* Is element i of the integer vector v 0? */
static int bx_is_zero(const tile *v, int64_t i)
{
    switch ((tile_dtype)v->dtype) {
#define BX_ZERO_(T, U, sfx, DT) \
    case DT: return ((const T *)v->data)[i] == 0;
    TILE_INT_CLASSES(BX_ZERO_)
#undef BX_ZERO_
    default: return 0;
    }
}

/* Does the vector hold 0 in any of its n leading elements (the ones the
 * valid region reads)? */
static int bx_has_zero(const tile *v, int64_t n)
{
    int zero = 0;
    switch ((tile_dtype)v->dtype) {
#define BX_ZEROS_(T, U, sfx, DT) \
    case DT: for (int64_t i = 0; i < n; i++) zero |= ((const T *)v->data)[i] == 0; break;
    TILE_INT_CLASSES(BX_ZEROS_)
#undef BX_ZEROS_
    default: break;
    }
    return zero;
}

/* One FP16/BF16 row through FP32: b NULL means the scalar y. */
static void bx_half_row(uint16_t *d, const uint16_t *a, const uint16_t *b, float y, int64_t n, int bf16, const bx_f32 *k)
{
    float fa[BX_BLOCK], fb[BX_BLOCK];
    for (int64_t j = 0; j < n; j += BX_BLOCK) {
        int64_t m = n - j < BX_BLOCK ? n - j : BX_BLOCK;
        base_half_to_f32(fa, a + j, m, bf16);
        if (b) {
            base_half_to_f32(fb, b + j, m, bf16);
            k->v(fa, fa, fb, m);
        } else {
            k->s(fa, fa, y, m);
        }
        base_f32_to_half(d + j, fa, m, bf16);
    }
}

/* Is row g of a (rows counted over every axis but the last, row-major) in
 * a's valid region? */
static int bx_row_valid(const tile *a, int64_t g)
{
    for (int d = a->rank - 2; d >= 0; g /= a->shape[d], d--)
        if (g % a->shape[d] >= a->valid[d]) return 0;
    return a->valid[a->rank - 1] > 0;
}

int tile_expand_binary(tile *dst, const tile *a, const tile *v, tile_bcastop op, int cols, char *msg, size_t cap)
{
    char name[32];
    snprintf(name, sizeof name, "%s_expand%s%s", cols ? "col" : "row", *bx_names[op] ? "_" : "", bx_names[op]);
    if (cols ? a->rank != 2 || v->rank != 2 : a->rank < 2 || v->rank != a->rank)
        return tile_fail(msg, cap, cols ? "pl.%s requires rank-2 tiles" : "pl.%s requires tiles of one rank, at least 2", name);
    int n = a->rank, same = dst->rank == n && dst->dtype == a->dtype && v->dtype == a->dtype;
    for (int d = 0; d < n && same; d++) same = dst->shape[d] == a->shape[d] && (d >= n - 2 || v->shape[d] == a->shape[d]);
    int64_t R = a->shape[n - 2], C = a->shape[n - 1], rows = tile_count(a) / (C ? C : 1);
    if (!same || (cols ? v->shape[0] != 1 || v->shape[1] != C : v->shape[n - 2] != R || v->shape[n - 1] != 1))
        return tile_fail(msg, cap, "pl.%s: operand and result tiles differ in shape or dtype", name);
    if (tile_no_bool(a, name, msg, cap)) return -1;
    tile_dtype dt = (tile_dtype)a->dtype;
    int64_t VC = a->valid[n - 1];
    if (!tile_dtype_is_float(dt) && op == TILE_BC_EXPDIF)
        return tile_fail(msg, cap, "pl.%s requires a floating-point tile, got %s", name, tile_dtype_name(dt));
    if (!tile_dtype_is_float(dt) && op == TILE_BC_DIV) {
        int zero = cols && a->valid[0] > 0 && bx_has_zero(v, VC);
        for (int64_t g = 0; !cols && g < rows && !zero; g++) zero = bx_row_valid(a, g) && bx_is_zero(v, g);
        if (zero) return tile_fail(msg, cap, "pl.%s: integer division by zero", name);
    }
    int bf16 = dt == TILE_BF16;
    for (int64_t r = 0; r < rows; r++) {
        if (!bx_row_valid(a, r)) continue;
        int64_t s = r * C, vs = cols ? 0 : r; /* the vector: its row (cols) or its element r */
        switch (dt) {
        case TILE_FP32: {
            float *d = (float *)dst->data + s;
            const float *x = (const float *)a->data + s, *y = (const float *)v->data;
            if (cols) bx_f32_tab[op].v(d, x, y, VC);
            else bx_f32_tab[op].s(d, x, y[vs], VC);
            break;
        }
        case TILE_FP16:
        case TILE_BF16: {
            const uint16_t *y = (const uint16_t *)v->data;
            float ys = cols ? 0.0f : bf16 ? base_bf16_to_f32(y[vs]) : base_f16_to_f32(y[vs]);
            bx_half_row((uint16_t *)dst->data + s, (const uint16_t *)a->data + s, cols ? y : NULL, ys, VC, bf16, &bx_f32_tab[op]);
            break;
        }
#define BX_RUN_(T, U, sfx, DT)                                                \
    case DT: {                                                                \
        T *d = (T *)dst->data + s;                                            \
        const T *x = (const T *)a->data + s, *y = (const T *)v->data;         \
        if (cols) bx_##sfx##_tab[op].v(d, x, y, VC);                          \
        else bx_##sfx##_tab[op].s(d, x, y[vs], VC);                           \
        break;                                                                \
    }
            TILE_INT_CLASSES(BX_RUN_)
#undef BX_RUN_
        case TILE_BOOL: break;
        }
    }
    memcpy(dst->valid, a->valid, sizeof a->valid);
    tile_clear_outside(dst);
    return 0;
}

int tile_expands(tile *dst, const tile *a, tile_scalar s, char *msg, size_t cap)
{
    int same = dst->rank == a->rank && dst->dtype == a->dtype;
    for (int d = 0; d < a->rank && same; d++) same = dst->shape[d] == a->shape[d];
    if (!same) return tile_fail(msg, cap, "pl.expands: target and result tiles differ in shape or dtype");
    size_t es = tile_dtype_size((tile_dtype)a->dtype);
    tile_iter it;
    TILE_FOR_RUNS(it, a->shape, a->valid, a->rank) tile_fill((char *)dst->data + (size_t)it.start * es, (tile_dtype)a->dtype, s, it.len);
    for (int d = 0; d < a->rank; d++) dst->valid[d] = a->valid[d];
    tile_clear_outside(dst);
    return 0;
}

int tile_broadcast(tile *dst, const tile *src, const tile *target, char *msg, size_t cap)
{
    int n = target->rank, ok = dst->rank == n && src->rank == n && dst->dtype == target->dtype && src->dtype == target->dtype;
    for (int d = 0; d < n && ok; d++) ok = dst->shape[d] == target->shape[d] && (src->shape[d] == target->shape[d] || src->shape[d] == 1);
    if (!ok) return tile_fail(msg, cap, "pl.expand_clone: input, target and result tiles differ in rank, dtype or shape");
    size_t es = tile_dtype_size((tile_dtype)dst->dtype);
    int64_t C = target->shape[n - 1], VC = target->valid[n - 1], rows = tile_count(target) / (C ? C : 1);
    int64_t sstride[TILE_MAX_RANK], s = 1; /* src's row-major strides, 0 on a broadcast axis */
    for (int d = n - 1; d >= 0; d--) sstride[d] = src->shape[d] == 1 ? 0 : s, s *= src->shape[d];
    for (int64_t r = 0; r < rows && VC > 0; r++) {
        int64_t at = 0, g = r, inside = 1;
        for (int d = n - 2; d >= 0; g /= target->shape[d], d--) {
            int64_t i = g % target->shape[d];
            inside &= i < target->valid[d];
            at += i * sstride[d];
        }
        if (!inside) continue;
        char *out = (char *)dst->data + (size_t)(r * C) * es;
        const char *in = (const char *)src->data + (size_t)at * es;
        if (sstride[n - 1]) memcpy(out, in, (size_t)VC * es);
        else
            for (int64_t j = 0; j < VC; j++) memcpy(out + (size_t)j * es, in, es);
    }
    memcpy(dst->valid, target->valid, sizeof dst->valid);
    tile_clear_outside(dst);
    return 0;
}
