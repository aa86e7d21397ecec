/*
 * tile_ternary.c - the element-wise ops of three operands: pl.sel / pl.sels
 * (selection by a mask) and pl.addc / subc / addsc / subsc (a sum or
 * difference with a carry operand).
 *
 * Selection copies element bits (any dtype of the chosen operands, the mask
 * of any other): each run's mask is first turned into a block of 0/1 bytes,
 * then one loop per element size picks.  The sums run one loop per dtype
 * class, FP16/BF16 through FP32 in blocks (two FP32 operations, one
 * rounding), integers on unsigned bits (wrap).  The result's valid region
 * is the intersection of the operands'; the rest is zeroed.
 */
#include <string.h>

#include "base/half.h"
#include "tile/tile_int.h"

#define TN_BLOCK 256

static const char *const tn_names[] = {
#define TN_NAME_(n, s) [TILE_##n] = s,
    TILE_TERNOP_LIST(TN_NAME_)
#undef TN_NAME_
};

/* m[0, n) = mask[s + i] != 0, per mask dtype. */
static void tn_mask(uint8_t *m, const tile *mask, int64_t s, int64_t n)
{
    switch ((tile_dtype)mask->dtype) {
    case TILE_FP32: { const float *p = (const float *)mask->data + s; for (int64_t i = 0; i < n; i++) m[i] = p[i] != 0; break; }
    case TILE_FP16:
    case TILE_BF16: { const uint16_t *p = (const uint16_t *)mask->data + s; for (int64_t i = 0; i < n; i++) m[i] = (p[i] & 0x7FFF) != 0; break; }
#define TN_MASK_(T, U, sfx, DT) case DT: { const T *p = (const T *)mask->data + s; for (int64_t i = 0; i < n; i++) m[i] = p[i] != 0; break; }
    TILE_INT_CLASSES(TN_MASK_)
#undef TN_MASK_
    case TILE_BOOL: break;
    }
}

/* d = m ? c : b (b NULL: the bits y) over n elements of size U. */
#define TN_SEL(U)                                                                                   \
    static void tn_sel_##U(U *d, const uint8_t *m, const U *b, U y, const U *c, int64_t n)          \
    {                                                                                               \
        if (b) for (int64_t i = 0; i < n; i++) d[i] = m[i] ? c[i] : b[i];                           \
        else for (int64_t i = 0; i < n; i++) d[i] = m[i] ? c[i] : y;                                \
    }
TN_SEL(uint8_t) TN_SEL(uint16_t) TN_SEL(uint32_t) TN_SEL(uint64_t)

static void tn_select(tile *dst, const tile *mask, const tile *b, const void *y, const tile *c, int64_t s, int64_t n)
{
    uint8_t m[TN_BLOCK];
    size_t es = tile_dtype_size((tile_dtype)c->dtype);
    for (int64_t k = 0; k < n; k += TN_BLOCK) {
        int64_t len = n - k < TN_BLOCK ? n - k : TN_BLOCK, at = s + k;
        tn_mask(m, mask, at, len);
#define TN_PICK_(U)                                                                                        \
    tn_sel_##U((U *)dst->data + at, m, b ? (const U *)b->data + at : NULL, *(const U *)y, (const U *)c->data + at, len)
        switch (es) {
        case 1: TN_PICK_(uint8_t); break;
        case 2: TN_PICK_(uint16_t); break;
        case 4: TN_PICK_(uint32_t); break;
        default: TN_PICK_(uint64_t); break;
        }
#undef TN_PICK_
    }
}

/* d = a <+|-> b <+|-> c; b NULL: the scalar y. */
#define TN_SUM(T, sfx, CAST)                                                                                \
    static void tn_sum_##sfx(T *d, const T *a, const T *b, T y, const T *c, int64_t n, int sub)             \
    {                                                                                                       \
        if (sub && b) for (int64_t i = 0; i < n; i++) d[i] = (T)(CAST a[i] - CAST b[i] - CAST c[i]);        \
        else if (sub) for (int64_t i = 0; i < n; i++) d[i] = (T)(CAST a[i] - CAST y - CAST c[i]);           \
        else if (b) for (int64_t i = 0; i < n; i++) d[i] = (T)(CAST a[i] + CAST b[i] + CAST c[i]);          \
        else for (int64_t i = 0; i < n; i++) d[i] = (T)(CAST a[i] + CAST y + CAST c[i]);                    \
    }
TN_SUM(float, f32, )
#define TN_INT_SUM_(T, U, sfx, DT) TN_SUM(T, sfx, (U))
TILE_INT_CLASSES(TN_INT_SUM_)
#undef TN_INT_SUM_

static void tn_sums(tile *dst, const tile *a, const tile *b, tile_scalar sc, const tile *c, int64_t s, int64_t n, int sub)
{
    tile_dtype dt = (tile_dtype)a->dtype;
    switch (dt) {
    case TILE_FP32:
        tn_sum_f32((float *)dst->data + s, (const float *)a->data + s, b ? (const float *)b->data + s : NULL, (float)sc.f,
                   (const float *)c->data + s, n, sub);
        break;
    case TILE_FP16:
    case TILE_BF16: {
        float fa[TN_BLOCK], fb[TN_BLOCK], fc[TN_BLOCK];
        int bf = dt == TILE_BF16;
        float y = bf ? base_bf16_to_f32(base_f32_to_bf16((float)sc.f)) : base_f16_to_f32(base_f32_to_f16((float)sc.f));
        for (int64_t k = 0; k < n; k += TN_BLOCK) {
            int64_t m = n - k < TN_BLOCK ? n - k : TN_BLOCK;
            base_half_to_f32(fa, (const uint16_t *)a->data + s + k, m, bf);
            base_half_to_f32(fc, (const uint16_t *)c->data + s + k, m, bf);
            if (b) base_half_to_f32(fb, (const uint16_t *)b->data + s + k, m, bf);
            tn_sum_f32(fa, fa, b ? fb : NULL, y, fc, m, sub);
            base_f32_to_half((uint16_t *)dst->data + s + k, fa, m, bf);
        }
        break;
    }
#define TN_INT_RUN_(T, U, sfx, DT)                                                                                    \
    case DT:                                                                                                      \
        tn_sum_##sfx((T *)dst->data + s, (const T *)a->data + s, b ? (const T *)b->data + s : NULL, (T)(U)sc.i,     \
                     (const T *)c->data + s, n, sub);                                                             \
        break;
        TILE_INT_CLASSES(TN_INT_RUN_)
#undef TN_INT_RUN_
    case TILE_BOOL: break;
    }
}

int tile_ternary(tile *dst, const tile *a, const tile *b, tile_scalar s, const tile *c, tile_ternop op, char *msg, size_t cap)
{
    const char *name = tn_names[op];
    int same = dst->rank == a->rank && c->rank == a->rank && (!b || b->rank == a->rank) && dst->dtype == c->dtype &&
               (!b || b->dtype == c->dtype) && (op == TILE_SEL || a->dtype == c->dtype);
    for (int d = 0; d < a->rank && same; d++)
        same = dst->shape[d] == a->shape[d] && c->shape[d] == a->shape[d] && (!b || b->shape[d] == a->shape[d]);
    if (!same) return tile_fail(msg, cap, "pl.%s: operand and result tiles differ in shape or dtype", name);
    if (tile_no_bool(a, name, msg, cap) || tile_no_bool(c, name, msg, cap)) return -1;
    int64_t v[TILE_MAX_RANK];
    tile_region_meet(v, a->valid, c->valid, a->rank);
    if (b) tile_region_meet(v, v, b->valid, a->rank);
    uint64_t y = 0; /* sel's scalar as c's element bits */
    if (op == TILE_SEL && !b) tile_fill(&y, (tile_dtype)c->dtype, s, 1);
    tile_iter it;
    TILE_FOR_RUNS(it, a->shape, v, a->rank) {
        if (op == TILE_SEL) tn_select(dst, a, b, &y, c, it.start, it.len);
        else tn_sums(dst, a, b, s, c, it.start, it.len, op == TILE_SUBC);
    }
    for (int d = 0; d < a->rank; d++) dst->valid[d] = v[d];
    tile_clear_outside(dst);
    return 0;
}
