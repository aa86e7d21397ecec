/*
 * scalar.c - the scalar arithmetic of scalar.h.  Float dtypes reach
 * FP16/BF16 through base/half.h's converters, an int64 or a double through
 * FP32 rounded to odd first, so every conversion rounds once.  Integer
 * arithmetic runs on the two's-complement bits (no signed overflow), then
 * wraps to the dtype.
 */
#include "compiler/scalar.h"

#include <math.h>

#include "base/half.h"

/* ---- conversion ------------------------------------------------------------------------- */

void cc_dtype_int_range(cc_dtype d, int64_t *lo, int64_t *hi)
{
    switch (d) {
    case CC_DT_INT32: *lo = INT32_MIN, *hi = INT32_MAX; break;
    case CC_DT_INT16: *lo = INT16_MIN, *hi = INT16_MAX; break;
    case CC_DT_INT8: *lo = INT8_MIN, *hi = INT8_MAX; break;
    case CC_DT_UINT32: *lo = 0, *hi = UINT32_MAX; break;
    case CC_DT_UINT16: *lo = 0, *hi = UINT16_MAX; break;
    case CC_DT_UINT8: *lo = 0, *hi = UINT8_MAX; break;
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
    float f = ff ? base_f64_to_f32_odd(a.f) : base_i64_to_f32_odd(a.i);
    return to == CC_DT_FP16 ? base_f16_to_f32(base_f32_to_f16(f)) : base_bf16_to_f32(base_f32_to_bf16(f));
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

cc_scalar cc_scalar_operand(cc_dtype from, cc_dtype to, cc_scalar a)
{
    return cc_dtype_is_float(from) != cc_dtype_is_float(to) ? cc_scalar_cast(from, to, CC_CAST_ROUND, a) : a;
}

/* ---- operators -------------------------------------------------------------------------- */

static int cc_op_gives_bool(cc_op op) { return op >= CC_OP_EQ && op <= CC_OP_OR; }

cc_dtype cc_scalar_bin_dtype(cc_op op, cc_dtype l, cc_dtype r)
{
    return op == CC_OP_DIV || cc_dtype_is_float(l) || cc_dtype_is_float(r) ? CC_DT_FP32 : CC_DT_INDEX;
}

cc_dtype cc_scalar_bin_result(cc_op op, cc_dtype l, cc_dtype r)
{
    return cc_op_gives_bool(op) ? CC_DT_BOOL : cc_scalar_bin_dtype(op, l, r);
}

/* An integer result wrapped into dtype's range. */
static int64_t cc_wrap(cc_dtype d, uint64_t v)
{
    switch (d) {
    case CC_DT_INT32: return (int32_t)(uint32_t)v;
    case CC_DT_INT16: return (int16_t)(uint16_t)v;
    case CC_DT_INT8: return (int8_t)(uint8_t)v;
    case CC_DT_BOOL: return v != 0;
    default: return (int64_t)v;
    }
}

int64_t cc_floordiv(int64_t a, int64_t b)
{
    if (b == -1) return (int64_t)(0 - (uint64_t)a); /* INT64_MIN // -1 wraps */
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* a - (a // b) * b: the remainder with the divisor's sign. */
static int64_t cc_floormod(int64_t a, int64_t b) { return (int64_t)((uint64_t)a - (uint64_t)cc_floordiv(a, b) * (uint64_t)b); }

static int cc_int_bin(cc_op op, cc_dtype d, int64_t a, int64_t b, cc_scalar *out)
{
    uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
    int64_t r;
    switch (op) {
    case CC_OP_ADD: r = cc_wrap(d, ua + ub); break;
    case CC_OP_SUB: r = cc_wrap(d, ua - ub); break;
    case CC_OP_MUL: r = cc_wrap(d, ua * ub); break;
    case CC_OP_DIV:
        if (b == 0) return -1;
        r = b == -1 ? cc_wrap(d, 0 - ua) : cc_wrap(d, (uint64_t)(a / b));
        break;
    case CC_OP_FLOORDIV:
        if (b == 0) return -1;
        r = cc_wrap(d, (uint64_t)cc_floordiv(a, b));
        break;
    case CC_OP_MOD:
        if (b == 0) return -1;
        r = cc_wrap(d, (uint64_t)cc_floormod(a, b));
        break;
    case CC_OP_MIN: r = a < b ? a : b; break;
    case CC_OP_MAX: r = a > b ? a : b; break;
    case CC_OP_EQ: r = a == b; break;
    case CC_OP_NE: r = a != b; break;
    case CC_OP_LT: r = a < b; break;
    case CC_OP_LE: r = a <= b; break;
    case CC_OP_GT: r = a > b; break;
    case CC_OP_GE: r = a >= b; break;
    case CC_OP_AND: r = a && b; break;
    case CC_OP_OR: r = a || b; break;
    case CC_OP_BITAND: r = a & b; break;
    case CC_OP_BITOR: r = a | b; break;
    case CC_OP_BITXOR: r = a ^ b; break;
    case CC_OP_LSHIFT: /* Python's, wrapped: every bit shifted out at 64 or more */
        if (b < 0) return -1;
        r = cc_wrap(d, b >= 64 ? 0 : ua << b);
        break;
    case CC_OP_RSHIFT: /* floor(a / 2**b): a negative a's complement shifted (never undefined) */
        if (b < 0) return -1;
        r = b >= 64 ? (a < 0 ? -1 : 0) : a < 0 ? ~(~a >> b) : a >> b;
        break;
    default: r = 0; break;
    }
    out->i = r;
    return 0;
}

/* Python's divmod of floats (b != 0): the floored quotient and the
 * remainder with b's sign, a == q * b + m as nearly as doubles allow. */
static void cc_float_divmod(double a, double b, double *q, double *m)
{
    double mod = fmod(a, b), div = (a - mod) / b;
    if (mod != 0) {
        if ((b < 0) != (mod < 0)) mod += b, div -= 1.0;
    } else {
        mod = copysign(0.0, b);
    }
    if (div != 0) {
        double f = floor(div);
        *q = div - f > 0.5 ? f + 1.0 : f;
    } else {
        *q = copysign(0.0, a / b);
    }
    *m = mod;
}

static void cc_float_bin(cc_op op, double a, double b, cc_scalar *out)
{
    double r, q, m;
    switch (op) {
    case CC_OP_ADD: r = a + b; break;
    case CC_OP_SUB: r = a - b; break;
    case CC_OP_MUL: r = a * b; break;
    case CC_OP_DIV: r = a / b; break;
    case CC_OP_FLOORDIV:
    case CC_OP_MOD:
        if (b == 0) {
            r = op == CC_OP_FLOORDIV ? a / b : fmod(a, b);
            break;
        }
        cc_float_divmod(a, b, &q, &m);
        r = op == CC_OP_FLOORDIV ? q : m;
        break;
    case CC_OP_MIN: r = a < b ? a : b; break;
    case CC_OP_MAX: r = a > b ? a : b; break;
    case CC_OP_EQ: out->i = a == b; return;
    case CC_OP_NE: out->i = a != b; return;
    case CC_OP_LT: out->i = a < b; return;
    case CC_OP_LE: out->i = a <= b; return;
    case CC_OP_GT: out->i = a > b; return;
    case CC_OP_GE: out->i = a >= b; return;
    case CC_OP_AND: out->i = a != 0 && b != 0; return;
    case CC_OP_OR: out->i = a != 0 || b != 0; return;
    default: r = 0; break;
    }
    out->f = (double)(float)r;
}

const char *cc_scalar_bin_failure(cc_op op)
{
    return op == CC_OP_MOD ? "integer modulo by zero" : op == CC_OP_LSHIFT || op == CC_OP_RSHIFT ? "negative shift count" : "integer division by zero";
}

int cc_scalar_bin(cc_op op, cc_dtype dtype, cc_scalar a, cc_scalar b, cc_scalar *out)
{
    if (cc_scalar_bin_index(op, dtype, a, b, out)) return 0;
    if (!cc_dtype_is_float(dtype)) return cc_int_bin(op, dtype, a.i, b.i, out);
    cc_float_bin(op, a.f, b.f, out);
    return 0;
}

cc_scalar cc_scalar_un(cc_op op, cc_dtype dtype, cc_scalar a)
{
    cc_scalar r = a;
    if (op == CC_OP_NOT) r.i = cc_scalar_is_zero(a, dtype);
    else if (op == CC_OP_NEG && cc_dtype_is_float(dtype)) r.f = -a.f;
    else if (op == CC_OP_NEG) r.i = cc_wrap(dtype, 0 - (uint64_t)a.i);
    else if (op == CC_OP_INVERT) r.i = cc_wrap(dtype, ~(uint64_t)a.i);
    return r;
}
