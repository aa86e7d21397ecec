/*
 * tc_expand.c - the type checker's broadcast ops (docs/dsl.md, Operations):
 * pl.row_expand_<op> / pl.col_expand_<op> (a tile with a row or column
 * vector), pl.expands (a scalar over a target tile) and pl.expand_clone (an
 * input broadcast along its unit axes to a target's shape; into a Tensor
 * target in kernel code, upstream's output form).
 *
 * Invariants: the result has the tile (target) operand's type; operands
 * are tiles after tc_tile_operand (a Tensor is loaded implicitly), but a
 * Tensor target of pl.expand_clone is only written, never read.
 */
#include <string.h>

#include "compiler/tc.h"

/* pl.row_expand_<op> / pl.col_expand_<op>: tile [.., R, C] with a [.., R, 1]
 * vector (equal leading axes) / tile [R, C] with a [1, C] vector, of its
 * dtype; the result is the tile's type. */
cc_ir_expr *tc_tile_expand(tc *t, cc_ir_op op, cc_ir_expr *l, cc_ir_expr *r, cc_span sp)
{
    const cc_op_info *row = cc_ir_op_info(op);
    const char *name = row->name;
    int cols = row->cls == CC_OPC_COL_EXPAND;
    if (!(l = tc_tile_operand(t, l, sp)) || !(r = tc_tile_operand(t, r, sp)) || !tc_op_dtypes(t, row, l->type.dtype, sp)) return NULL;
    const cc_type *tt = &l->type, *vt = &r->type;
    if (cols ? tt->rank != 2 || vt->rank != 2 : tt->rank < 2 || vt->rank < 2)
        return tc_err(t, CC_DIAG_INVALID_OP, sp, NULL, "pl.%s requires a rank-2 tile, got rank %u", name,
                      tt->rank != 2 && (cols || tt->rank < 2) ? tt->rank : vt->rank);
    if (tt->dtype != vt->dtype)
        return tc_err(t, CC_DIAG_TYPE, sp, NULL, "pl.%s: operand dtypes %s and %s differ; insert pl.cast", name, cc_dtype_name(tt->dtype),
                      cc_dtype_name(vt->dtype));
    uint32_t n = tt->rank; /* a row expand's leading axes are batch axes, equal in both */
    if (vt->rank != n)
        return tc_err(t, CC_DIAG_INVALID_OP, sp, NULL, "pl.%s requires a rank-%u row_vec for a rank-%u tile, got rank %u", name, n, n, vt->rank);
    for (uint32_t d = 0; d + 2 < n; d++)
        if (vt->shape[d] != tt->shape[d])
            return tc_err(t, CC_DIAG_INVALID_OP, sp, NULL, "pl.%s requires matching leading dimensions, but got tile dim %u=%lld and row_vec dim %u=%lld",
                          name, d, (long long)tt->shape[d], d, (long long)vt->shape[d]);
    uint32_t ax = cols ? 0 : n - 1, other = cols ? 1 : n - 2; /* the vector's unit axis, its matching one */
    if (vt->shape[ax] != 1)
        return tc_err(t, CC_DIAG_INVALID_OP, sp, NULL, "pl.%s requires second argument's %s dimension to be 1, but got %lld", name,
                      cols ? "first" : "last", (long long)vt->shape[ax]);
    if (vt->shape[other] != tt->shape[other])
        return tc_err(t, CC_DIAG_INVALID_OP, sp, NULL, "pl.%s requires matching %s dimensions, but got tile %s=%lld and %s %s=%lld", name,
                      cols ? "column" : "row", cols ? "cols" : "rows", (long long)tt->shape[other], cols ? "col_vec" : "row_vec", cols ? "cols" : "rows",
                      (long long)vt->shape[other]);
    cc_ir_expr *x = cc_ir_op_new(t->a, op, sp);
    if (!x) return tc_oom(t);
    x->u.op.args[0] = l, x->u.op.args[1] = r, x->type = l->type;
    return x;
}

/* pl.expand_clone(input, target): input broadcast to target's shape; equal ranks and
 * dtypes, each input axis the target's extent or 1; the result is the target's type. */
static cc_ir_expr *tc_tile_broadcast(tc *t, cc_ir_op op, cc_ir_expr *in, cc_ir_expr *tg, cc_span sp)
{
    const char *name = cc_ir_op_name(op);
    if (!(in = tc_tile_operand(t, in, sp)) || !(tg = tc_tile_operand(t, tg, sp))) return NULL;
    const cc_type *it = &in->type, *tt = &tg->type;
    if (it->rank != tt->rank)
        return tc_err(t, CC_DIAG_INVALID_OP, sp, NULL, "pl.%s: input rank %u does not match target rank %u", name, it->rank, tt->rank);
    if (it->dtype != tt->dtype)
        return tc_err(t, CC_DIAG_TYPE, sp, NULL, "pl.%s: operand dtypes %s and %s differ; insert pl.cast", name, cc_dtype_name(it->dtype),
                      cc_dtype_name(tt->dtype));
    for (uint32_t d = 0; d < it->rank; d++)
        if (it->shape[d] != tt->shape[d] && it->shape[d] != 1)
            return tc_err(t, CC_DIAG_INVALID_OP, sp, NULL, "pl.%s: input dimension %u (%lld) must be 1 or the target's (%lld)", name, d,
                          (long long)it->shape[d], (long long)tt->shape[d]);
    cc_ir_expr *x = cc_ir_op_new(t->a, op, sp);
    if (!x) return tc_oom(t);
    x->u.op.args[0] = in, x->u.op.args[1] = tg, x->type = tg->type;
    x->type.from_tensors = in->type.from_tensors && tg->type.from_tensors;
    return x;
}

/* pl.expand_clone(input, target) of a Tensor target in kernel code: the broadcast
 * written into it (upstream's: the target is the op's output), the Tensor its
 * result; the target is only written.  Else tc_tile_broadcast's value. */
cc_ir_expr *tc_broadcast(tc *t, cc_ir_op op, cc_ir_expr *in, cc_ir_expr *tg, cc_span sp)
{
    if (tg->type.kind != CC_T_TENSOR || t->c.plane != TC_KERNEL) return tc_tile_broadcast(t, op, in, tg, sp);
    if (!tg->type.rank || cc_type_is_dynamic(&tg->type))
        return tc_err(t, CC_DIAG_TYPE, tg->span, NULL, "pl.%s: the target tensor needs a static shape", cc_ir_op_name(op));
    cc_ir_expr *shape = tc_const_list(t, &tg->type, 1, sp), *zeros = tc_const_list(t, &tg->type, 0, sp), *ct = cc_ir_op_new(t->a, CC_IR_CREATE_TILE, sp);
    if (!shape || !zeros || !ct) return tc_oom(t);
    ct->u.op.args[0] = shape, ct->u.op.dtype = tg->type.dtype;
    ct->type = (cc_type){.kind = CC_T_TILE, .dtype = tg->type.dtype, .rank = tg->type.rank, .from_tensors = 1};
    memcpy(ct->type.shape, tg->type.shape, sizeof ct->type.shape);
    cc_ir_expr *b = tc_tile_broadcast(t, op, in, ct, sp);
    return b ? tc_store_op(t, sp, b, zeros, tg, NULL, b->type.shape, b->type.rank) : NULL;
}

/* pl.expands(target, scalar): the scalar (a number that fits the target's
 * dtype) over the target's shape, dtype and valid region. */
cc_ir_expr *tc_tile_expands(tc *t, cc_ir_expr *l, cc_ir_expr *r, cc_span sp)
{
    if (!(l = tc_tile_operand(t, l, sp))) return NULL;
    if (r->type.kind != CC_T_SCALAR) {
        char ty[96];
        cc_type_format(&r->type, ty, sizeof ty);
        return tc_err(t, CC_DIAG_TYPE, r->span, NULL, "pl.expands: the value to broadcast must be a scalar, got %s", ty);
    }
    if (!tc_no_bool_tile(t, "expands", l, sp) || !tc_scalar_fits_tile(t, "expands", r, &l->type)) return NULL;
    cc_ir_expr *x = cc_ir_op_new(t->a, CC_IR_EXPANDS, sp);
    if (!x) return tc_oom(t);
    x->u.op.args[0] = l, x->u.op.args[1] = r, x->type = l->type;
    return x;
}
