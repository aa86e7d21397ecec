/*
 * scalar.c - the scalar instructions of the lowered machine (lower.h:
 * CONST MOV CAST BIN UN TRIPS), one implementation for both VMs, as
 * Python computes them: integers wrap to their dtype, // and % floor (the
 * remainder takes the divisor's sign), compares give 0/1, float
 * arithmetic is FP32; CAST is cc_scalar_cast (compiler/scalar_cast.h).
 */
#include "exec/scalar.h"

#include <math.h>

/* An integer result wrapped into dtype's range. */
static int64_t ex_wrap(cc_dtype d, uint64_t v)
{
    switch (d) {
    case CC_DT_INT32: return (int32_t)(uint32_t)v;
    case CC_DT_INT8: return (int8_t)(uint8_t)v;
    case CC_DT_BOOL: return v != 0;
    default: return (int64_t)v;
    }
}

static int64_t ex_floordiv(int64_t a, int64_t b)
{
    if (b == -1) return (int64_t)(0 - (uint64_t)a); /* INT64_MIN // -1 wraps */
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

static int64_t ex_mod(int64_t a, int64_t b)
{
    if (b == -1) return 0;
    int64_t r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

static int ex_int_bin(cc_op op, cc_dtype d, int64_t a, int64_t b, ex_reg *out)
{
    uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
    int64_t r;
    switch (op) {
    case CC_OP_ADD: r = ex_wrap(d, ua + ub); break;
    case CC_OP_SUB: r = ex_wrap(d, ua - ub); break;
    case CC_OP_MUL: r = ex_wrap(d, ua * ub); break;
    case CC_OP_DIV: /* integer true division is rejected by the type checker; truncate like the tile op */
        if (b == 0) return -1;
        r = b == -1 ? ex_wrap(d, 0 - ua) : ex_wrap(d, (uint64_t)(a / b));
        break;
    case CC_OP_FLOORDIV:
        if (b == 0) return -1;
        r = ex_wrap(d, (uint64_t)ex_floordiv(a, b));
        break;
    case CC_OP_MOD:
        if (b == 0) return -1;
        r = ex_wrap(d, (uint64_t)ex_mod(a, b));
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
    default: r = 0; break;
    }
    out->i = r;
    return 0;
}

/* Float arithmetic is FP32 (the type checker promotes FP16/BF16 operands). */
static int ex_float_bin(cc_op op, double a, double b, ex_reg *out)
{
    double r;
    switch (op) {
    case CC_OP_ADD: r = a + b; break;
    case CC_OP_SUB: r = a - b; break;
    case CC_OP_MUL: r = a * b; break;
    case CC_OP_DIV: r = a / b; break;
    case CC_OP_FLOORDIV: r = floor(a / b); break;
    case CC_OP_MOD: {
        r = fmod(a, b);
        if (r != 0 && ((r < 0) != (b < 0))) r += b;
        break;
    }
    case CC_OP_MIN: r = a < b ? a : b; break;
    case CC_OP_MAX: r = a > b ? a : b; break;
    case CC_OP_EQ: out->i = a == b; return 0;
    case CC_OP_NE: out->i = a != b; return 0;
    case CC_OP_LT: out->i = a < b; return 0;
    case CC_OP_LE: out->i = a <= b; return 0;
    case CC_OP_GT: out->i = a > b; return 0;
    case CC_OP_GE: out->i = a >= b; return 0;
    case CC_OP_AND: out->i = a != 0 && b != 0; return 0;
    case CC_OP_OR: out->i = a != 0 || b != 0; return 0;
    default: r = 0; break;
    }
    out->f = (double)(float)r;
    return 0;
}

int ex_scalar_bin(cc_op op, cc_dtype dtype, ex_reg a, ex_reg b, ex_reg *out)
{
    return cc_dtype_is_float(dtype) ? ex_float_bin(op, a.f, b.f, out) : ex_int_bin(op, dtype, a.i, b.i, out);
}

int64_t ex_trips(int64_t start, int64_t stop, int64_t step)
{
    if (step > 0) return stop > start ? (int64_t)(((uint64_t)stop - (uint64_t)start - 1) / (uint64_t)step + 1) : 0;
    return start > stop ? (int64_t)(((uint64_t)start - (uint64_t)stop - 1) / (0 - (uint64_t)step) + 1) : 0;
}

int ex_scalar_step(const cc_lo_proc *p, ex_reg *r, const cc_lo_insn *in, const char **why)
{
    switch (in->code) {
    case CC_LO_CONST: r[in->dst] = cc_dtype_is_float((cc_dtype)in->dtype) ? (ex_reg){.f = in->u.imm.f} : (ex_reg){.i = in->u.imm.i}; return 0;
    case CC_LO_MOV: r[in->dst] = r[in->a]; return 0;
    case CC_LO_CAST:
        r[in->dst] = cc_scalar_cast((cc_dtype)p->regs[in->a].type.dtype, (cc_dtype)in->dtype, (cc_cast_mode)in->mode, r[in->a]);
        return 0;
    case CC_LO_BIN:
        if (!ex_scalar_bin((cc_op)in->op, (cc_dtype)in->dtype, r[in->a], r[in->b], &r[in->dst])) return 0;
        *why = in->op == CC_OP_MOD ? "integer modulo by zero" : "integer division by zero";
        return -1;
    case CC_LO_UN:
        if (in->op == CC_OP_NOT) r[in->dst].i = !r[in->a].i;
        else if (in->op != CC_OP_NEG) r[in->dst] = r[in->a];
        else if (cc_dtype_is_float((cc_dtype)in->dtype)) r[in->dst].f = -r[in->a].f;
        else ex_scalar_bin(CC_OP_SUB, (cc_dtype)in->dtype, (ex_reg){.i = 0}, r[in->a], &r[in->dst]);
        return 0;
    case CC_LO_TRIPS:
        if (r[in->c].i == 0) return *why = "pl.range() step must be non-zero", -1;
        r[in->dst].i = ex_trips(r[in->a].i, r[in->b].i, r[in->c].i);
        return 0;
    default: return *why = "internal error: not a scalar instruction", -1;
    }
}
