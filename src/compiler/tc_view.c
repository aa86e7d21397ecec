/*
 * tc_view.c - the type checker's window ops in orchestration code
 * (DSL-V2-SPEC §1.3 T-ov, §1.5): pl.slice(t, shape, offset, drop_dims=)
 * of a Tensor, a view (base, offset, shape, strides) of t's buffer handed
 * to tasks, and pl.assemble(target, source, offset) of two Tensors, one
 * copy task (In = source, existing Out = target's window).
 *
 * Invariants: a view's shape entries are positive constants or run-time
 * integer scalars (a run-time extent: tc_extent_dim's symbol, its value
 * checked positive and in bounds when the orchestrator runs); constant offsets are bounds-checked here, run-time
 * ones when the orchestrator runs (code 9); the result of a SLICE is a
 * Tensor of the window's extents less the dropped axes, of an ASSEMBLE
 * the target's type.  Kernel-code keywords (valid_shape=, pad_value=,
 * clamp=) and atomic= are refused.
 */
#include "compiler/tc.h"

#include <stdio.h>
#include <string.h>

#define TC_N(ps) ((uint32_t)(sizeof(ps) / sizeof((ps)[0])))

static void *tc_not_tensor(tc *t, const cc_expr *e, const cc_ir_expr *x, const char *what)
{
    char ty[96];
    cc_type_format(&x->type, ty, sizeof ty);
    return tc_err(t, CC_DIAG_TYPE, e->span, NULL, "%s must be a Tensor in orchestration code, got %s", what, ty);
}

/* pl.slice of a Tensor: a view of its window. */
static cc_ir_expr *tc_view(tc *t, const cc_expr *call)
{
    static const char *const ps[] = {"x", "shape", "offset", "valid_shape", "drop_dims", "pad_value", "clamp"};
    tc_args a;
    if (!tc_op_bind(t, call, "slice", ps, TC_N(ps), &a) || !tc_need(t, call, "slice", &a, 3, ps)) return NULL;
    for (uint32_t k = 3; k < TC_N(ps); k++)
        if (k != 4 && a.v[k] && a.v[k]->kind != CC_E_NONE)
            return tc_err(t, CC_DIAG_INVALID_OP, a.v[k]->span, NULL, "pl.slice(%s=) applies in kernel code only", ps[k]);
    cc_ir_expr *x = tc_expr(t, a.v[0]);
    if (!x) return NULL;
    if (x->type.kind != CC_T_TENSOR) return tc_not_tensor(t, a.v[0], x, "pl.slice's operand");
    uint32_t r = x->type.rank;
    int64_t ext[CC_MAX_RANK];
    const char *dyn[CC_MAX_RANK] = {0};
    cc_ir_expr *shp, *offs; /* a run-time extent makes a run-time-shaped tensor (DY) */
    if (!tc_slice_lists(t, call, &a, r, "tensor", "pl.slice shape element %u must be an integer", CC_DIAG_TYPE, NULL, ext, dyn, &shp, &offs))
        return NULL;
    if (!tc_window_bounds(t, "slice", offs, ext, x->type.shape)) return NULL;
    unsigned mask = 0;
    cc_ir_expr *drop = NULL;
    if (a.v[4] && a.v[4]->kind != CC_E_NONE && !(drop = tc_drop_dims(t, a.v[4], ext, r, &mask))) return NULL;
    cc_ir_expr *s = cc_ir_op_new(t->a, CC_IR_SLICE, call->span);
    if (!s) return tc_oom(t);
    s->u.op.args[0] = x, s->u.op.args[1] = shp, s->u.op.args[2] = offs, s->u.op.args[4] = drop;
    s->type = (cc_type){.kind = CC_T_TENSOR, .dtype = x->type.dtype};
    uint32_t n = 0;
    for (uint32_t d = 0; d < r; d++)
        if (!(mask & (1u << d))) s->type.dyn[n] = dyn[d], s->type.shape[n++] = ext[d];
    if (n == 0) return tc_err(t, CC_DIAG_INVALID_OP, a.v[4]->span, "read the element with pl.read", "pl.slice: a Tensor view keeps at least one axis");
    s->type.rank = (uint8_t)n;
    return s;
}

/* pl.assemble(target, source, offset) of two Tensors: a copy task. */
static cc_ir_expr *tc_copy(tc *t, const cc_expr *call)
{
    static const char *const ps[] = {"target", "source", "offset", "atomic"};
    tc_args a;
    if (!tc_op_bind(t, call, "assemble", ps, TC_N(ps), &a) || !tc_need(t, call, "assemble", &a, 3, ps)) return NULL;
    if (a.v[3])
        return tc_err(t, CC_DIAG_INVALID_OP, a.v[3]->span, "move it inside the scope that produces the partial result",
                      "pl.assemble(..., atomic=pl.AtomicType.Add) is only supported inside an InCore function");
    cc_ir_expr *dst = tc_expr(t, a.v[0]);
    if (!dst) return NULL;
    if (dst->type.kind != CC_T_TENSOR) return tc_not_tensor(t, a.v[0], dst, "pl.assemble's target");
    cc_ir_expr *offs = tc_offset_list(t, a.v[2], "pl.assemble offset must be a literal tuple (e.g., (row, col)), not a variable or computed expression");
    cc_ir_expr *src = offs ? tc_expr(t, a.v[1]) : NULL;
    if (!src) return NULL;
    if (src->type.kind != CC_T_TENSOR) return tc_not_tensor(t, a.v[1], src, "pl.assemble's source");
    const cc_type *tt = &dst->type, *st = &src->type;
    if (st->rank != tt->rank)
        return tc_err(t, CC_DIAG_INVALID_OP, call->span, NULL, "pl.assemble: source rank %u does not match target rank %u", st->rank, tt->rank);
    if (st->dtype != tt->dtype)
        return tc_err(t, CC_DIAG_TYPE, call->span, NULL, "pl.assemble: source dtype %s cannot be inserted into a %s target; insert pl.cast",
                      cc_dtype_name((cc_dtype)st->dtype), cc_dtype_name((cc_dtype)tt->dtype));
    if (offs->u.list.n != tt->rank)
        return tc_err(t, CC_DIAG_INVALID_OP, a.v[2]->span, NULL, "pl.assemble: expected %u offsets for a rank-%u target, got %u", tt->rank,
                      tt->rank, offs->u.list.n);
    if (!tc_window_bounds(t, "assemble", offs, st->shape, tt->shape)) return NULL;
    cc_ir_expr *x = cc_ir_op_new(t->a, CC_IR_ASSEMBLE, call->span);
    if (!x) return tc_oom(t);
    x->u.op.args[0] = dst, x->u.op.args[1] = src, x->u.op.args[2] = offs;
    x->type = *tt;
    return x;
}

cc_ir_expr *tc_view_op(tc *t, const cc_expr *call, cc_ir_op op)
{
    return op == CC_IR_SLICE ? tc_view(t, call) : tc_copy(t, call);
}
