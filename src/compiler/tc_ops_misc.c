/*
 * tc_ops_misc.c - the type checker's pl ops with their own operand layout
 * (docs/dsl.md, "Operations"): pl.matmul_acc.  Binding, placement and the
 * helpers are tc_ops.c's; this file holds each op's checks with their exact
 * messages and its result type.
 */
#include "compiler/tc.h"

#include <string.h>

#define TC_N(ps) ((uint32_t)(sizeof(ps) / sizeof((ps)[0])))

static cc_ir_expr *tc_tile_arg(tc *t, const cc_expr *e)
{
    cc_ir_expr *x = tc_expr(t, e);
    return x ? tc_tile_operand(t, x, e->span) : NULL;
}

/* init_cond=: a BOOL or integer scalar (a run-time value allowed); None: absent. */
static int tc_init_cond(tc *t, const cc_expr *e, cc_ir_expr **out)
{
    *out = NULL;
    if (!e || e->kind == CC_E_NONE) return 1;
    cc_ir_expr *c = tc_expr(t, e);
    if (!c) return 0;
    if (c->type.kind != CC_T_SCALAR || cc_dtype_is_float(c->type.dtype) || c->type.dtype == CC_DT_TASK_ID)
        return tc_err(t, CC_DIAG_TYPE, e->span, NULL, "pl.matmul_acc init_cond= must be a BOOL or integer scalar"), 0;
    *out = c;
    return 1;
}

static cc_ir_expr *tc_matmul_acc(tc *t, const cc_expr *call)
{
    static const char *const ps[] = {"acc", "lhs", "rhs", "init_cond"};
    tc_args a;
    if (!tc_op_bind(t, call, "matmul_acc", ps, TC_N(ps), &a) || !tc_need(t, call, "matmul_acc", &a, 3, ps)) return NULL;
    cc_ir_expr *acc = tc_tile_arg(t, a.v[0]), *l = acc ? tc_tile_arg(t, a.v[1]) : NULL, *r = l ? tc_tile_arg(t, a.v[2]) : NULL, *cond;
    if (!r || !tc_init_cond(t, a.v[3], &cond)) return NULL;
    if (l->type.rank != 2 || r->type.rank != 2 || l->type.shape[1] != r->type.shape[0])
        return tc_err(t, CC_DIAG_INVALID_OP, call->span, NULL, "pl.matmul_acc: inner dimensions differ: %s vs %s",
                      tc_shape_text(t, &l->type), tc_shape_text(t, &r->type));
    if (l->type.dtype != r->type.dtype)
        return tc_err(t, CC_DIAG_TYPE, call->span, NULL, "pl.matmul_acc: operand dtypes %s and %s differ; insert pl.cast",
                      cc_dtype_name(l->type.dtype), cc_dtype_name(r->type.dtype));
    if (l->type.dtype == CC_DT_INT32)
        return tc_err(t, CC_DIAG_TYPE, call->span, NULL, "pl.matmul_acc takes FP32, FP16, BF16 or INT8 operands, got INT32");
    cc_dtype want = l->type.dtype == CC_DT_INT8 ? CC_DT_INT32 : CC_DT_FP32;
    if (acc->type.dtype != want)
        return tc_err(t, CC_DIAG_TYPE, a.v[0]->span, NULL, "tile.matmul_acc requires accumulator dtype %s, but got %s", cc_dtype_name(want),
                      cc_dtype_name((cc_dtype)acc->type.dtype));
    if (acc->type.rank != 2)
        return tc_err(t, CC_DIAG_INVALID_OP, a.v[0]->span, NULL, "pl.matmul_acc requires a rank-2 accumulator, got rank %u", acc->type.rank);
    if (acc->type.shape[0] != l->type.shape[0])
        return tc_err(t, CC_DIAG_INVALID_OP, call->span, NULL,
                      "tile.matmul_acc requires matching physical M dimensions, but got acc M=%lld and lhs M=%lld",
                      (long long)acc->type.shape[0], (long long)l->type.shape[0]);
    if (acc->type.shape[1] != r->type.shape[1])
        return tc_err(t, CC_DIAG_INVALID_OP, call->span, NULL,
                      "tile.matmul_acc requires matching physical N dimensions, but got acc N=%lld and rhs N=%lld",
                      (long long)acc->type.shape[1], (long long)r->type.shape[1]);
    cc_ir_expr *m = cc_ir_op_new(t->a, CC_IR_MATMUL_ACC, call->span);
    if (!m) return tc_oom(t);
    m->u.op.args[0] = acc, m->u.op.args[1] = l, m->u.op.args[2] = r, m->u.op.args[3] = cond;
    m->type = acc->type;
    m->type.partial = (uint8_t)(acc->type.partial || l->type.partial || r->type.partial);
    return m;
}

cc_ir_expr *tc_misc_op(tc *t, const cc_expr *call, cc_ir_op op)
{
    switch (op) {
    case CC_IR_MATMUL_ACC: return tc_matmul_acc(t, call);
    default: return tc_err(t, CC_DIAG_TYPE, call->span, NULL, "internal error: pl.%s has no checks", cc_ir_op_name(op));
    }
}
