/*
 * scalar.c - the scalar instructions of the lowered machine (program.h:
 * CONST MOV CAST BIN UN TRIPS), one implementation for both VMs, each a
 * call of the compiler's scalar arithmetic (compiler/scalar.h) but TRIPS,
 * which only the VMs compute.
 */
#include "exec/scalar.h"

int64_t ex_trips(int64_t start, int64_t stop, int64_t step)
{
    if (step > 0) return stop > start ? (int64_t)(((uint64_t)stop - (uint64_t)start - 1) / (uint64_t)step + 1) : 0;
    return start > stop ? (int64_t)(((uint64_t)start - (uint64_t)stop - 1) / (0 - (uint64_t)step) + 1) : 0;
}

int ex_scalar_step(const cc_lo_proc *p, ex_reg *r, const cc_lo_insn *in, const char **why)
{
    switch (in->code) {
    case CC_LO_CONST: ex_const(r, in); return 0;
    case CC_LO_MOV: r[in->dst] = r[in->a]; return 0;
    case CC_LO_CAST:
        r[in->dst] = cc_scalar_cast((cc_dtype)p->regs[in->a].type.dtype, (cc_dtype)in->dtype, (cc_cast_mode)in->mode, r[in->a]);
        return 0;
    case CC_LO_BIN:
        if (!cc_scalar_bin((cc_op)in->op, (cc_dtype)in->dtype, r[in->a], r[in->b], &r[in->dst])) return 0;
        *why = cc_scalar_bin_failure((cc_op)in->op);
        return -1;
    case CC_LO_UN: r[in->dst] = cc_scalar_un((cc_op)in->op, (cc_dtype)in->dtype, r[in->a]); return 0;
    case CC_LO_TRIPS:
        if (r[in->c].i == 0) return *why = "pl.range() step must be non-zero", -1;
        r[in->dst].i = ex_trips(r[in->a].i, r[in->b].i, r[in->c].i);
        return 0;
    default: return *why = "internal error: not a scalar instruction", -1;
    }
}
