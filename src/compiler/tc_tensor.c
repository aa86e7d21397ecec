/*
 * tc_tensor.c - the type checker's tensor-level matmul (DSL-V2-SPEC §1.2,
 * T-mm): pl.matmul and pl.matmul_acc on two tensor-level operands (tiles
 * marked from_tensors: a Tensor loaded implicitly, or a value computed
 * from such only), lowered onto the tile ops: a_trans/b_trans a
 * pl.transpose_view of the operand, a 1-D operand a pl.reshape to [1, K] /
 * [K, 1] (the unit axis reshaped away from the result), the result dtype
 * (out_dtype=, else the operands' dtype) a pl.cast of the FP32 (INT32)
 * product: one rounding.
 *
 * Invariants: the nodes built here are the ones a user could write, so the
 * printed program parses back to the same values; a batched product (rank
 * > 2) is one MATMUL node whose leading axes broadcast (tile_matmul), for
 * tiles too (the printed form of a batched tensor product: explicit loads).
 */
#include "compiler/tc.h"

#include <stdio.h>
#include <string.h>

/* A node of op over x with x's type (the caller adjusts it), its memory tag and mark set. */
static cc_ir_expr *tc_node(tc *t, cc_ir_op op, cc_ir_expr *x, cc_span sp)
{
    cc_ir_expr *n = cc_ir_op_new(t->a, op, sp);
    if (!n) return tc_oom(t);
    n->u.op.args[0] = x, n->type = x->type;
    return n;
}

/* x reshaped to ext[n] (its element count). */
static cc_ir_expr *tc_reshaped(tc *t, cc_ir_expr *x, const int64_t *ext, uint32_t n, cc_span sp)
{
    cc_ir_expr *r = tc_node(t, CC_IR_RESHAPE, x, sp), *shp = cc_ir_expr_new(t->a, CC_X_LIST, sp);
    if (!r || !shp || !(shp->u.list.items = base_arena_alloc(t->a, n * sizeof(cc_ir_expr *)))) return tc_oom(t);
    shp->type = (cc_type){.kind = CC_T_LIST};
    shp->u.list.n = n;
    for (uint32_t d = 0; d < n; d++)
        if (!(shp->u.list.items[d] = cc_ir_int(t->a, ext[d], sp))) return tc_oom(t);
    r->u.op.args[1] = shp;
    r->type.rank = (uint8_t)n;
    memset(r->type.shape, 0, sizeof r->type.shape);
    memcpy(r->type.shape, ext, n * sizeof ext[0]);
    return tc_mem_result(r);
}

/* x with its last two axes swapped (pl.transpose_view). */
static cc_ir_expr *tc_transposed(tc *t, cc_ir_expr *x, cc_span sp)
{
    cc_ir_expr *r = tc_node(t, CC_IR_TRANSPOSE_VIEW, x, sp);
    if (!r) return NULL;
    uint32_t i = x->type.rank - 2u, j = x->type.rank - 1u;
    r->u.op.mode = (uint8_t)(i | j << 4);
    r->type.shape[i] = x->type.shape[j], r->type.shape[j] = x->type.shape[i];
    return tc_mem_result(r);
}

int tc_tensor_mm_operand(tc *t, const char *op, cc_ir_expr **x, int lhs, const cc_expr *trans, cc_span sp)
{
    int tr = trans && trans->kind == CC_E_BOOL && trans->u.i;
    if ((*x)->type.rank == 1) {
        if (tr)
            return tc_err(t, CC_DIAG_INVALID_OP, trans->span, NULL, "tensor.%s: %s does not apply to a 1D %s", op, lhs ? "a_trans" : "b_trans",
                          lhs ? "lhs" : "rhs"), 0;
        int64_t ext[2] = {lhs ? 1 : (*x)->type.shape[0], lhs ? (*x)->type.shape[0] : 1};
        return (*x = tc_reshaped(t, *x, ext, 2, sp)) != NULL;
    }
    return !tr || (*x = tc_transposed(t, *x, sp)) != NULL;
}

/* The batch axes of l [.., M, K] and r [.., K, N] broadcast (numpy's rule)
 * into out[*nb]; 0 when reported. */
static int tc_batch_axes(tc *t, const cc_ir_expr *l, const cc_ir_expr *r, int64_t *out, uint32_t *nb, cc_span sp)
{
    uint32_t la = l->type.rank - 2u, ra = r->type.rank - 2u, n = la > ra ? la : ra;
    for (uint32_t k = 0; k < n; k++) { /* k counts from the innermost batch axis */
        int64_t x = k < la ? l->type.shape[la - 1 - k] : 1, y = k < ra ? r->type.shape[ra - 1 - k] : 1;
        if (x != y && x != 1 && y != 1) {
            cc_type bl = l->type, br = r->type;
            bl.rank = (uint8_t)la, br.rank = (uint8_t)ra;
            return tc_err(t, CC_DIAG_INVALID_OP, sp, NULL, "pl.matmul: batch dimensions %s and %s do not broadcast", tc_shape_text(t, &bl),
                          tc_shape_text(t, &br)), 0;
        }
        out[n - 1 - k] = x == 1 ? y : x;
    }
    *nb = n;
    return 1;
}

int tc_matmul_shape(tc *t, const cc_ir_expr *l, const cc_ir_expr *r, cc_type *prod, cc_span sp)
{
    uint32_t ra = l->type.rank, rb = r->type.rank, nb;
    if (ra < 2 || rb < 2 || l->type.shape[ra - 1] != r->type.shape[rb - 2])
        return tc_err(t, CC_DIAG_INVALID_OP, sp, NULL, "pl.matmul: inner dimensions differ: %s vs %s", tc_shape_text(t, &l->type),
                      tc_shape_text(t, &r->type)), 0;
    *prod = (cc_type){.kind = CC_T_TILE, .partial = (uint8_t)(l->type.partial || r->type.partial)};
    if (!tc_batch_axes(t, l, r, prod->shape, &nb, sp)) return 0;
    prod->rank = (uint8_t)(nb + 2);
    prod->shape[nb] = l->type.shape[ra - 2], prod->shape[nb + 1] = r->type.shape[rb - 1];
    return 1;
}

/* The result dtype: out_dtype= (float operands: FP32, FP16, BF16; INT8 or
 * UINT8: INT32 or the operands'), else the operands' dtype; -1 when reported. */
static int tc_mm_out_dtype(tc *t, const cc_expr *e, cc_dtype operands)
{
    if (!e || e->kind == CC_E_NONE) return operands;
    int od = tc_dtype_arg(t, e, "pl.matmul out_dtype");
    if (od < 0) return -1;
    int fl = cc_dtype_is_float(operands);
    if (fl ? od != CC_DT_FP32 && od != CC_DT_FP16 && od != CC_DT_BF16 : od != CC_DT_INT32 && od != (int)operands)
        return tc_err(t, CC_DIAG_TYPE, e->span, NULL, "pl.matmul: out_dtype=%s is not valid for %s operands", cc_dtype_name((cc_dtype)od),
                      cc_dtype_name(operands)), -1;
    return od;
}

cc_ir_expr *tc_tensor_cast(tc *t, cc_ir_expr *x, cc_dtype dt, cc_span sp)
{
    if (!x || x->type.dtype == dt) return x;
    cc_ir_expr *c = tc_node(t, CC_IR_CAST, x, sp);
    if (!c) return NULL;
    c->u.op.dtype = (uint8_t)dt, c->u.op.mode = CC_CAST_ROUND;
    c->type.dtype = (uint8_t)dt;
    return tc_mem_result(c);
}

cc_ir_expr *tc_tensor_matmul(tc *t, const cc_expr *call, cc_ir_expr *l, cc_ir_expr *r, const cc_expr *out_dtype, const cc_expr *a_trans,
                             const cc_expr *b_trans)
{
    cc_span sp = call->span;
    int l1 = l->type.rank == 1, r1 = r->type.rank == 1;
    if (!tc_tensor_mm_operand(t, "matmul", &l, 1, a_trans, sp) || !tc_tensor_mm_operand(t, "matmul", &r, 0, b_trans, sp)) return NULL;
    cc_type prod;
    if (!tc_matmul_shape(t, l, r, &prod, sp)) return NULL;
    uint32_t nb = prod.rank - 2u;
    int64_t shape[CC_MAX_RANK];
    memcpy(shape, prod.shape, sizeof shape);
    cc_dtype dt = (cc_dtype)l->type.dtype, acc;
    if (!tc_mm_dtypes(t, "matmul", l, r, sp, &acc)) return NULL;
    int od = tc_mm_out_dtype(t, out_dtype, dt);
    if (od < 0) return NULL;
    cc_ir_expr *m = cc_ir_op_new(t->a, CC_IR_MATMUL, sp);
    if (!m) return tc_oom(t);
    m->u.op.args[0] = l, m->u.op.args[1] = r;
    m->type = prod;
    m->type.dtype = (uint8_t)acc;
    if (out_dtype && od == m->type.dtype) m->u.op.dtype = (uint8_t)od; /* printed as written (the tile rule's out_dtype=) */
    cc_ir_expr *x = tc_tensor_cast(t, tc_mem_result(m), (cc_dtype)od, sp);
    if (!x || (!l1 && !r1)) return x;
    int64_t ext[CC_MAX_RANK]; /* the unit axes of 1-D operands dropped */
    uint32_t n = 0;
    for (uint32_t d = 0; d < nb; d++) ext[n++] = shape[d];
    if (!l1) ext[n++] = shape[nb];
    if (!r1) ext[n++] = shape[nb + 1];
    if (!n) ext[n++] = 1; /* 1-D @ 1-D: one element */
    return tc_reshaped(t, x, ext, n, sp);
}
