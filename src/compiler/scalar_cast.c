/*
 * scalar_cast.c - cc_scalar_cast (scalar_cast.h).  Float dtypes reach
 * FP16/BF16 through tile/tile_half.h's converters, an int64 or a double
 * through FP32 rounded to odd first, so every conversion rounds once.
 * Constants of the IR hold the same values: ints and bools in u.i, floats
 * in u.f.
 */
#include "compiler/scalar_cast.h"

#include <math.h>

#include "tile/tile_half.h"

void cc_dtype_int_range(cc_dtype d, int64_t *lo, int64_t *hi)
{
    switch (d) {
    case CC_DT_INT32: *lo = INT32_MIN, *hi = INT32_MAX; break;
    case CC_DT_INT8: *lo = INT8_MIN, *hi = INT8_MAX; break;
    case CC_DT_BOOL: *lo = 0, *hi = 1; break;
    default: *lo = INT64_MIN, *hi = INT64_MAX; break;
    }
}

int cc_scalar_fits(cc_dtype from, cc_dtype to, cc_scalar a)
{
    int ff = cc_dtype_is_float(from);
    if (cc_dtype_is_float(to)) return (ff && !isfinite(a.f)) || isfinite(cc_scalar_cast(from, to, CC_CAST_ROUND, a).f);
    int64_t lo, hi;
    cc_dtype_int_range(to, &lo, &hi);
    return !ff && a.i >= lo && a.i <= hi;
}

/* a as float dtype to (nearest even, once). */
static double cc_to_float(cc_dtype from, cc_dtype to, cc_scalar a)
{
    int ff = cc_dtype_is_float(from);
    if (to == CC_DT_FP32) return ff ? (double)(float)a.f : (double)(float)a.i;
    float f = ff ? tile_f64_to_f32_odd(a.f) : tile_i64_to_f32_odd(a.i);
    return to == CC_DT_FP16 ? tile_f16_to_f32(tile_f32_to_f16(f)) : tile_bf16_to_f32(tile_f32_to_bf16(f));
}

cc_scalar cc_scalar_cast(cc_dtype from, cc_dtype to, cc_cast_mode mode, cc_scalar a)
{
    cc_scalar r;
    if (cc_dtype_is_float(to)) return r.f = cc_to_float(from, to, a), r;
    int64_t lo, hi;
    cc_dtype_int_range(to, &lo, &hi);
    if (!cc_dtype_is_float(from)) {
        r.i = to == CC_DT_BOOL ? a.i != 0 : a.i < lo ? lo : a.i > hi ? hi : a.i;
        return r;
    }
    double v = a.f;
    if (isnan(v)) return r.i = 0, r;
    if (to == CC_DT_BOOL) return r.i = v != 0, r;
    switch (mode) {
    case CC_CAST_ROUND: v = round(v); break; /* half away from zero */
    case CC_CAST_RINT: v = nearbyint(v); break;
    case CC_CAST_FLOOR: v = floor(v); break;
    case CC_CAST_CEIL: v = ceil(v); break;
    default: v = trunc(v); break;
    }
    /* v is whole: (double)hi rounds INT64_MAX up to 2^63, past every v that converts */
    r.i = v <= (double)lo ? lo : v >= (double)hi ? hi : (int64_t)v;
    return r;
}

int cc_scalar_of(const cc_ir_expr *e, cc_scalar *v)
{
    if (e->type.kind != CC_T_SCALAR || (e->kind == CC_X_FLOAT) != cc_dtype_is_float((cc_dtype)e->type.dtype)) return 0;
    if (e->kind == CC_X_FLOAT) return v->f = e->u.f, 1;
    if (e->kind == CC_X_INT || e->kind == CC_X_BOOL) return v->i = e->u.i, 1;
    return 0;
}

cc_ir_expr *cc_scalar_expr(base_arena *a, cc_dtype d, cc_scalar v, cc_span sp)
{
    cc_ir_expr *e = cc_ir_expr_new(a, cc_dtype_is_float(d) ? CC_X_FLOAT : d == CC_DT_BOOL ? CC_X_BOOL : CC_X_INT, sp);
    if (!e) return NULL;
    if (cc_dtype_is_float(d)) e->u.f = v.f;
    else e->u.i = v.i;
    e->type = (cc_type){.kind = CC_T_SCALAR, .dtype = (uint8_t)d};
    return e;
}
