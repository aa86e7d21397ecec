/*
 * tc_ternary.c - the type checker's ops of three operands (docs/dsl.md,
 * Operations): pl.sel(mask, lhs, rhs, tmp=None), pl.sels(mask, src, tmp,
 * scalar), pl.addc / pl.subc (lhs, rhs, rhs2), rhs a tile or a scalar
 * (pl.addsc / pl.subsc: ops.h's alias rows).
 *
 * Invariants: the node's slots are as written (the printer's); the tiles
 * have one shape; the data operands one dtype, the result's; a sel mask any
 * dtype but BOOL; a scratch tmp is a tile and has no effect.
 */
#include "compiler/tc.h"

#include <string.h>

cc_ir_expr *tc_ternary_op(tc *t, const cc_expr *call, cc_ir_op op)
{
    const cc_op_info *row = cc_ir_op_info(op);
    const char *name = row->name;
    tc_args a;
    if (!tc_op_bind(t, call, name, row->slots, row->nslots, &a) || !tc_need(t, call, name, &a, row->nreq, row->slots)) return NULL;
    int sa, sb, sc;
    cc_ir_op_ternary_slots(op, &sa, &sb, &sc);
    cc_ir_expr *x = cc_ir_op_new(t->a, op, call->span);
    if (!x) return tc_oom(t);
    for (uint32_t k = 0; k < row->nslots; k++) {
        if (!a.v[k]) continue;
        cc_ir_expr *v = tc_expr(t, a.v[k]);
        if (!v) return NULL;
        if ((int)k != sb || v->type.kind != CC_T_SCALAR) v = tc_tile_operand(t, v, call->span);
        if (!v) return NULL;
        x->u.op.args[k] = v;
    }
    cc_ir_expr *m = x->u.op.args[sa], *l = x->u.op.args[sb], *d = x->u.op.args[sc];
    if (!tc_no_bool_tile(t, name, m, call->span) || !tc_no_bool_tile(t, name, d, call->span)) return NULL;
    const cc_ir_expr *dtype_peer = op == CC_IR_SEL || op == CC_IR_SELS ? NULL : m; /* sel's mask takes any dtype */
    const cc_ir_expr *peers[] = {l->type.kind == CC_T_TILE ? l : NULL, dtype_peer};
    for (int k = 0; k < 2; k++)
        if (peers[k] && peers[k]->type.dtype != d->type.dtype)
            return tc_err(t, CC_DIAG_TYPE, call->span, NULL, "pl.%s: operand dtypes %s and %s differ; insert pl.cast", name,
                          cc_dtype_name(peers[k]->type.dtype), cc_dtype_name(d->type.dtype));
    const cc_ir_expr *shaped[] = {m, l->type.kind == CC_T_TILE ? l : NULL};
    for (int k = 0; k < 2; k++)
        if (shaped[k] && (shaped[k]->type.rank != d->type.rank ||
                          memcmp(shaped[k]->type.shape, d->type.shape, d->type.rank * sizeof d->type.shape[0])))
            return tc_err(t, CC_DIAG_INVALID_OP, call->span, NULL, "pl.%s: operand shapes %s and %s differ", name, tc_shape_text(t, &shaped[k]->type),
                          tc_shape_text(t, &d->type));
    if (l->type.kind == CC_T_SCALAR && !tc_scalar_fits_tile(t, name, l, &d->type)) return NULL;
    if (l->type.kind != CC_T_SCALAR && l->type.kind != CC_T_TILE) {
        char ty[96];
        cc_type_format(&l->type, ty, sizeof ty);
        return tc_err(t, CC_DIAG_TYPE, l->span, NULL, "pl.%s: %s must be a tile or a scalar, got %s", name, row->slots[sb], ty);
    }
    x->type = d->type;
    x->type.partial = m->type.partial || d->type.partial || (l->type.kind == CC_T_TILE && l->type.partial);
    x->type.from_tensors = m->type.from_tensors && d->type.from_tensors && (l->type.kind != CC_T_TILE || l->type.from_tensors);
    return tc_mem_result(x);
}
