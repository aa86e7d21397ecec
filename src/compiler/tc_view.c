/*
 * tc_view.c - the type checker's window ops in orchestration code
 * (DSL-V2-SPEC §1.3 T-ov, §1.5): pl.slice(t, shape, offset, drop_dims=)
 * of a Tensor, a view (base, offset, shape, strides) of t's buffer handed
 * to tasks, and pl.assemble(target, source, offset) of two Tensors, one
 * copy task (In = source, existing Out = target's window).
 *
 * Invariants: a view's shape entries are positive constants or run-time
 * integer scalars (a run-time extent: tc_extent_dim's symbol, its value
 * checked positive when the orchestrator runs); an offset lies inside the
 * source (a constant one checked here, a run-time one, inside the source's
 * valid region, when the orchestrator runs: code 9); the result of a SLICE is a
 * Tensor of the window's extents less the dropped axes, of an ASSEMBLE
 * the target's type.  valid_shape= gives a view its valid region (what
 * tasks and element access may touch: orch_vm.h, ex_tensor); a window
 * running past its tensor's edge at run time keeps the part inside as its
 * valid region.  Kernel-code keywords (pad_value=, clamp=) and atomic= are
 * refused.
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

/* valid_shape= of a rank-r view of extents ext: one integer scalar per axis, a
 * constant one 0 <= v <= its extent (a run-time one is checked when the
 * orchestrator runs). */
static cc_ir_expr *tc_view_valid(tc *t, const cc_expr *e, const int64_t *ext, uint32_t r)
{
    cc_ir_expr *v = tc_list_of(t, e, "pl.slice valid_shape");
    if (!v) return NULL;
    if (v->u.list.n != r)
        return tc_err(t, CC_DIAG_INVALID_OP, e->span, NULL, "pl.slice: valid_shape has %u entries for a rank-%u view", v->u.list.n, r);
    for (uint32_t d = 0; d < r; d++) {
        int64_t c;
        if (cc_ir_const_int(v->u.list.items[d], &c) && (c < 0 || (!CC_DIM_IS_DYN(ext[d]) && c > ext[d])))
            return tc_err(t, CC_DIAG_INVALID_OP, v->u.list.items[d]->span, NULL, "pl.slice: valid_shape entry %u (%lld) is outside 0 to %lld", d,
                          (long long)c, (long long)ext[d]);
    }
    return v;
}

/* pl.slice of a Tensor: a view of its window. */
static cc_ir_expr *tc_view(tc *t, const cc_expr *call)
{
    static const char *const ps[] = {"x", "shape", "offset", "valid_shape", "drop_dims", "pad_value", "clamp"};
    tc_args a;
    if (!tc_op_bind(t, call, "slice", ps, TC_N(ps), &a) || !tc_need(t, call, "slice", &a, 3, ps)) return NULL;
    for (uint32_t k = 5; k < TC_N(ps); k++)
        if (a.v[k] && a.v[k]->kind != CC_E_NONE)
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
    for (uint32_t d = 0; d < r; d++) { /* the window may run past the edge (its valid region stops there), its start may not */
        const cc_ir_expr *it = offs->u.list.items[d];
        int64_t o, n = x->type.shape[d];
        if (!cc_ir_const_int(it, &o)) continue;
        if (o < 0) return tc_err(t, CC_DIAG_INVALID_OP, it->span, NULL, "pl.slice: offset %u is negative (%lld)", d, (long long)o);
        if (!CC_DIM_IS_DYN(n) && o >= n)
            return tc_err(t, CC_DIAG_INVALID_OP, it->span, NULL, "pl.slice: offset %lld is past the end of dimension %u of extent %lld", (long long)o, d,
                          (long long)n);
    }
    unsigned mask = 0;
    cc_ir_expr *drop = NULL, *valid = NULL;
    if (a.v[3] && a.v[3]->kind != CC_E_NONE && !(valid = tc_view_valid(t, a.v[3], ext, r))) return NULL;
    if (a.v[4] && a.v[4]->kind != CC_E_NONE && !(drop = tc_drop_dims(t, a.v[4], ext, r, &mask))) return NULL;
    cc_ir_expr *s = cc_ir_op_new(t->a, CC_IR_SLICE, call->span);
    if (!s) return tc_oom(t);
    s->u.op.args[0] = x, s->u.op.args[1] = shp, s->u.op.args[2] = offs, s->u.op.args[3] = valid, s->u.op.args[4] = drop;
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
