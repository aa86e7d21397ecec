/*
 * lower_array.c - stage 7 for TASK_ID arrays (DSL-V2-SPEC §8, D-arr): an
 * array of n slots lives in n consecutive TASK_ID registers (lo_var), an
 * empty slot holding PTO_INVALID_TASK_ID; pl.array.create fills them with
 * it, `arr[i] = tid` writes one (MOV for a constant i, ASET otherwise),
 * `arr[i]` reads one (MOV or AGET, bounds-checked at run time), a copy of
 * an array is n MOVs, and deps= names each slot of a whole array (the
 * executor skips empty ones).
 */
#include "compiler/lower_int.h"
#include "pto/runtime.h" /* PTO_INVALID_TASK_ID: a constant only */

static void lo_mov(lo_b *b, int32_t dst, int32_t src, cc_span sp)
{
    cc_lo_insn *in = dst == src ? NULL : lo_emit(b, CC_LO_MOV, sp);
    if (in) in->dst = dst, in->a = src;
}

/* AGET (rdst = r[base + ri]) or ASET (r[base + ri] = rv), n slots. */
static void lo_elem(lo_b *b, cc_lo_opcode code, int32_t base, int64_t n, int32_t ri, int32_t reg, cc_span sp)
{
    cc_lo_insn *in = lo_emit(b, code, sp);
    if (!in) return;
    in->u.imm.i = n, in->b = ri;
    if (code == CC_LO_AGET) in->dst = reg, in->a = base;
    else in->dst = base, in->a = reg;
}

void lo_array_assign(lo_b *b, const cc_ir_expr *v, int32_t dst)
{
    int64_t n = v->type.shape[0];
    if (v->kind == CC_X_VAR) {
        int32_t src = lo_var(b, v->u.name, v->type);
        for (int64_t k = 0; k < n && src != dst; k++) lo_mov(b, dst + (int32_t)k, src + (int32_t)k, v->span);
        return;
    }
    if (v->kind != CC_X_ARRAY) return (void)lo_internal(b, v->span, "an array value that is no array node");
    if (v->u.list.aop == CC_ARR_CREATE) {
        for (int64_t k = 0; k < n; k++) {
            cc_lo_insn *in = lo_emit(b, CC_LO_CONST, v->span);
            if (in) in->dst = dst + (int32_t)k, in->dtype = CC_DT_TASK_ID, in->u.imm.i = (int64_t)PTO_INVALID_TASK_ID;
        }
        return;
    }
    /* SET: the array (the target's own registers, or copied there), then the slot */
    lo_array_assign(b, v->u.list.items[0], dst);
    const cc_ir_expr *i = v->u.list.items[1];
    int32_t val = lo_scalar(b, v->u.list.items[2], -1);
    if (i->kind == CC_X_INT) return lo_mov(b, dst + (int32_t)i->u.i, val, v->span);
    lo_elem(b, CC_LO_ASET, dst, n, lo_scalar(b, i, CC_DT_INDEX), val, v->span);
}

void lo_array_get_into(lo_b *b, const cc_ir_expr *e, int32_t dst)
{
    const cc_ir_expr *arr = e->u.list.items[0], *i = e->u.list.items[1];
    int32_t base = lo_var(b, arr->u.name, arr->type);
    if (i->kind == CC_X_INT) return lo_mov(b, dst, base + (int32_t)i->u.i, e->span);
    lo_elem(b, CC_LO_AGET, base, arr->type.shape[0], lo_scalar(b, i, CC_DT_INDEX), dst, e->span);
}

int32_t *lo_deps(lo_b *b, const cc_ir_expr *call, uint32_t *n)
{
    uint32_t m = 0;
    for (uint32_t k = 0; k < call->u.call.ndeps; k++) {
        const cc_ir_expr *d = call->u.call.deps[k];
        m += d->type.kind == CC_T_ARRAY ? (uint32_t)d->type.shape[0] : 1;
    }
    int32_t *deps = lo_alloc(b, m, sizeof *deps, call->span);
    *n = m;
    m = 0;
    for (uint32_t k = 0; k < call->u.call.ndeps && !b->x->failed; k++) {
        const cc_ir_expr *d = call->u.call.deps[k];
        if (d->type.kind != CC_T_ARRAY) {
            deps[m++] = lo_scalar(b, d, -1);
            continue;
        }
        int32_t base = lo_var(b, d->u.name, d->type);
        for (int64_t s = 0; s < d->type.shape[0]; s++) deps[m++] = base + (int32_t)s;
    }
    return deps;
}
