/*
 * tc_linalg.c - the type checker's matmul relatives (docs/dsl.md,
 * "Creation, linear algebra and views"), all tile-level: pl.matmul_bias,
 * pl.batch_matmul, pl.gemv, pl.gemv_acc, pl.gemv_bias.  They share
 * pl.matmul's operand rule (one dtype: FP32, FP16, BF16 or INT8) and its
 * result dtype (FP32; INT32 for INT8), which an accumulator or a bias must
 * have; pl.matmul_acc and pl.matmul are tc_ops_misc.c's and tc_ops.c's.
 *
 * Invariants: the node's slots are its row's (ops.h); a gemv's lhs is one
 * row; u.op.mode holds a gemv's acc_phase (0 unspecified, 1 partial, 2
 * final: no effect on the CPU).
 */
#include "compiler/tc.h"

#include <string.h>

#define TC_N(ps) ((uint32_t)(sizeof(ps) / sizeof((ps)[0])))

static int tc_acc_phase(tc *t, const cc_expr *e, const char *op)
{
    if (!e) return 0;
    for (int k = 0; e->kind == CC_E_STRING && k < CC_ACC_PHASES; k++) {
        const char *name = cc_acc_phase_name(k);
        if (strlen(name) == e->u.str.len && !memcmp(e->u.str.text, name, e->u.str.len)) return k;
    }
    return tc_err(t, CC_DIAG_TYPE, e->span, NULL, "pl.%s acc_phase= must be \"unspecified\", \"partial\" or \"final\"", op), -1;
}

static cc_ir_expr *tc_mm_tile(tc *t, const cc_expr *e, const char *op, cc_span sp)
{
    cc_ir_expr *x = tc_expr(t, e);
    if (x && !strcmp(op, "batch_matmul") && x->type.kind == CC_T_TENSOR) /* upstream: Tile operands only */
        return tc_err(t, CC_DIAG_TYPE, e->span, "pl.matmul of Tensor operands batches them", "pl.batch_matmul takes Tile operands; for Tensors call pl.matmul");
    if (!x || !(x = tc_tile_operand(t, x, e->span)) || !tc_no_bool_tile(t, op, x, sp)) return NULL;
    return x;
}

int tc_mm_dtypes(tc *t, const char *op, const cc_ir_expr *l, const cc_ir_expr *r, cc_span sp, cc_dtype *out)
{
    cc_dtype dt = (cc_dtype)l->type.dtype;
    if (dt != r->type.dtype)
        return tc_err(t, CC_DIAG_TYPE, sp, NULL, "pl.%s: operand dtypes %s and %s differ; insert pl.cast", op, cc_dtype_name(dt),
                      cc_dtype_name(r->type.dtype)), 0;
    if (!cc_dtype_is_float(dt) && dt != CC_DT_INT8 && dt != CC_DT_UINT8)
        return tc_err(t, CC_DIAG_TYPE, sp, NULL, "pl.%s takes FP32, FP16, BF16, INT8 or UINT8 operands, got %s", op, cc_dtype_name(dt)), 0;
    *out = cc_dtype_is_float(dt) ? CC_DT_FP32 : CC_DT_INT32;
    return 1;
}

/* A rank-2 lhs [M, K] (a gemv's: M = 1) and rhs [K, N]. */
static int tc_mm_2d(tc *t, const char *op, const cc_ir_expr *l, const cc_ir_expr *r, int gemv, cc_span sp)
{
    if (l->type.rank != 2 || r->type.rank != 2 || l->type.shape[1] != r->type.shape[0])
        return tc_err(t, CC_DIAG_INVALID_OP, sp, NULL, "pl.%s: inner dimensions differ: %s vs %s", op, tc_shape_text(t, &l->type),
                      tc_shape_text(t, &r->type)), 0;
    if (gemv && l->type.shape[0] != 1)
        return tc_err(t, CC_DIAG_INVALID_OP, sp, "use pl.matmul for more rows", "pl.%s: lhs must be one row [1, K], got %s", op,
                      tc_shape_text(t, &l->type)), 0;
    return 1;
}

/* An accumulator or bias operand: dtype want, shape [rows, N]. */
static int tc_mm_side(tc *t, const char *op, const char *what, const cc_ir_expr *x, cc_dtype want, int64_t rows, int64_t n, cc_span sp)
{
    if (x->type.dtype != want)
        return tc_err(t, CC_DIAG_TYPE, sp, NULL, "pl.%s requires %s dtype %s, got %s", op, what, cc_dtype_name(want),
                      cc_dtype_name((cc_dtype)x->type.dtype)), 0;
    if (x->type.rank != 2 || x->type.shape[0] != rows || x->type.shape[1] != n) {
        cc_type w = {.rank = 2, .shape = {rows, n}};
        return tc_err(t, CC_DIAG_INVALID_OP, sp, NULL, "pl.%s: %s shape %s, want %s", op, what, tc_shape_text(t, &x->type), tc_shape_text(t, &w)), 0;
    }
    return 1;
}

cc_ir_expr *tc_linalg_op(tc *t, const cc_expr *call, cc_ir_op op)
{
    const cc_op_info *row = cc_ir_op_info(op);
    const char *name = row->name;
    int gemv = op == CC_IR_GEMV || op == CC_IR_GEMV_ACC || op == CC_IR_GEMV_BIAS;
    const char *ps[CC_OP_MAX_SLOTS + 1];
    uint32_t np = row->nslots;
    memcpy(ps, row->slots, np * sizeof ps[0]);
    if (gemv) ps[np++] = "acc_phase";
    tc_args a;
    if (!tc_op_bind(t, call, name, ps, np, &a) || !tc_need(t, call, name, &a, row->nreq, ps)) return NULL;
    int phase = gemv ? tc_acc_phase(t, a.v[np - 1], name) : 0;
    if (phase < 0) return NULL;
    cc_ir_expr *x[3] = {NULL, NULL, NULL};
    for (uint32_t k = 0; k < row->nreq; k++)
        if (!(x[k] = tc_mm_tile(t, a.v[k], name, call->span))) return NULL;
    int acc = op == CC_IR_GEMV_ACC, bias = row->cls == CC_OPC_MATMUL_BIAS;
    cc_ir_expr *l = x[acc], *r = x[acc + 1];
    cc_dtype dt;
    cc_type prod = {.kind = CC_T_TILE, .rank = 2};
    if (op == CC_IR_BATCH_MATMUL) {
        if (l->type.rank < 2 || r->type.rank < 2)
            return tc_err(t, CC_DIAG_INVALID_OP, call->span, NULL, "pl.batch_matmul needs operands of rank 2 or more, got %s and %s",
                          tc_shape_text(t, &l->type), tc_shape_text(t, &r->type));
        if (!tc_matmul_shape(t, l, r, &prod, call->span)) return NULL;
    } else {
        if (!tc_mm_2d(t, name, l, r, gemv, call->span)) return NULL;
        prod.shape[0] = l->type.shape[0], prod.shape[1] = r->type.shape[1];
    }
    if (!tc_mm_dtypes(t, name, l, r, call->span, &dt)) return NULL;
    if (acc && !tc_mm_side(t, name, "accumulator", x[0], dt, 1, prod.shape[1], a.v[0]->span)) return NULL;
    if (bias && !tc_mm_side(t, name, "bias", x[2], dt, 1, prod.shape[1], a.v[2]->span)) return NULL;
    cc_ir_expr *m = cc_ir_op_new(t->a, op, call->span);
    if (!m) return tc_oom(t);
    uint8_t partial = 0;
    for (uint32_t k = 0; k < row->nreq; k++) m->u.op.args[k] = x[k], partial |= x[k]->type.partial;
    m->u.op.mode = (uint8_t)phase;
    m->type = acc ? x[0]->type : prod;
    m->type.dtype = (uint8_t)dt;
    m->type.partial = partial;
    m->type.from_tensors = 0;
    return m;
}
