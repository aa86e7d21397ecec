/*
 * tc_ops_misc.c - the type checker's pl ops with their own operand layout
 * (docs/dsl.md, "Operations"): pl.matmul_acc, pl.concat, pl.fillpad,
 * pl.tile.full, pl.reshape, pl.transpose, pl.transpose_view, pl.fillpad_expand,
 * pl.set_validshape.  Binding, placement and the
 * helpers are tc_ops.c's; this file holds each op's checks with their exact
 * messages and its result type.
 */
#include "compiler/tc.h"

#include <stdio.h>
#include <string.h>

#include "compiler/names.h"

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
    static const char *const ps[] = {"acc", "lhs", "rhs", "init_cond", "a_trans", "b_trans"};
    tc_args a;
    if (!tc_op_bind(t, call, "matmul_acc", ps, TC_N(ps), &a) || !tc_need(t, call, "matmul_acc", &a, 3, ps)) return NULL;
    for (int k = 4; k < 6; k++)
        if (a.v[k] && a.v[k]->kind != CC_E_BOOL) return tc_err(t, CC_DIAG_TYPE, a.v[k]->span, NULL, "%s must be True or False", ps[k]);
    cc_ir_expr *acc = tc_tile_arg(t, a.v[0]), *l = acc ? tc_tile_arg(t, a.v[1]) : NULL, *r = l ? tc_tile_arg(t, a.v[2]) : NULL, *cond;
    if (!r || !tc_no_bool_tile(t, "matmul_acc", acc, call->span) || !tc_no_bool_tile(t, "matmul_acc", l, call->span) ||
        !tc_no_bool_tile(t, "matmul_acc", r, call->span) || !tc_init_cond(t, a.v[3], &cond))
        return NULL;
    int tensor = l->type.from_tensors && r->type.from_tensors; /* T-mm's tensor-level row */
    if (tensor && (!tc_tensor_mm_operand(t, "matmul_acc", &l, 1, a.v[4], call->span) ||
                   !tc_tensor_mm_operand(t, "matmul_acc", &r, 0, a.v[5], call->span)))
        return NULL;
    for (int k = 4; !tensor && k < 6; k++)
        if (a.v[k] && a.v[k]->u.i)
            return tc_err(t, CC_DIAG_TYPE, a.v[k]->span, NULL, "pl.matmul_acc: %s=True is not supported for Tile operands; use pl.tile.transpose_view",
                          ps[k]);
    if (l->type.rank != 2 || r->type.rank != 2 || l->type.shape[1] != r->type.shape[0])
        return tc_err(t, CC_DIAG_INVALID_OP, call->span, NULL, "pl.matmul_acc: inner dimensions differ: %s vs %s",
                      tc_shape_text(t, &l->type), tc_shape_text(t, &r->type));
    cc_dtype want;
    if (!tc_mm_dtypes(t, "matmul_acc", l, r, call->span, &want)) return NULL;
    if (acc->type.dtype != want)
        return tc_err(t, CC_DIAG_TYPE, a.v[0]->span, NULL, "%s.matmul_acc requires accumulator dtype %s, but got %s", tensor ? "tensor" : "tile",
                      cc_dtype_name(want), cc_dtype_name((cc_dtype)acc->type.dtype));
    cc_type prod = {.kind = CC_T_TILE, .rank = 2, .shape = {l->type.shape[0], r->type.shape[1]}};
    if (tensor && (acc->type.rank != 2 || acc->type.shape[0] != prod.shape[0] || acc->type.shape[1] != prod.shape[1]))
        return tc_err(t, CC_DIAG_INVALID_OP, a.v[0]->span, NULL, "pl.matmul_acc: accumulator shape %s does not match the product shape %s",
                      tc_shape_text(t, &acc->type), tc_shape_text(t, &prod));
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

static cc_ir_expr *tc_concat(tc *t, const cc_expr *call)
{
    static const char *const ps[] = {"src0", "src1"};
    tc_args a;
    if (!tc_op_bind(t, call, "concat", ps, TC_N(ps), &a) || !tc_need(t, call, "concat", &a, 2, ps)) return NULL;
    cc_ir_expr *x = tc_tile_arg(t, a.v[0]), *y = x ? tc_tile_arg(t, a.v[1]) : NULL;
    if (!y || !tc_no_bool_tile(t, "concat", x, call->span) || !tc_no_bool_tile(t, "concat", y, call->span)) return NULL;
    if (x->type.rank != 2 || y->type.rank != 2) return tc_err(t, CC_DIAG_INVALID_OP, call->span, NULL, "tile.concat requires 2D tiles");
    if (x->type.dtype != y->type.dtype)
        return tc_err(t, CC_DIAG_TYPE, call->span, NULL, "tile.concat: inputs must have same dtype, got %s vs %s",
                      cc_dtype_name((cc_dtype)x->type.dtype), cc_dtype_name((cc_dtype)y->type.dtype));
    if (x->type.shape[0] != y->type.shape[0])
        return tc_err(t, CC_DIAG_INVALID_OP, call->span, NULL, "tile.concat: row count must match, got %lld vs %lld",
                      (long long)x->type.shape[0], (long long)y->type.shape[0]);
    cc_ir_expr *c = cc_ir_op_new(t->a, CC_IR_CONCAT, call->span);
    if (!c) return tc_oom(t);
    c->u.op.args[0] = x, c->u.op.args[1] = y;
    c->type = x->type;
    c->type.shape[1] = x->type.shape[1] + y->type.shape[1];
    c->type.partial = 0;
    return c;
}

static int tc_is_math_inf(const cc_expr *e)
{
    return e->kind == CC_E_ATTR && !strcmp(e->u.attr.name, "inf") && e->u.attr.value->kind == CC_E_NAME &&
           !strcmp(e->u.attr.value->u.name, "math");
}

int tc_pad_value(tc *t, const cc_expr *e, const char *who)
{
    static const char text[] = "%s pad_value only accepts PadValue.zero, PadValue.max, PadValue.min, 0, math.inf or -math.inf, got %s";
    if (!e) return 1;
    int v = tc_enum_value(t, e, "PadValue");
    if (v == 0) return tc_err(t, CC_DIAG_TYPE, e->span, NULL, "%s pad_value cannot be PadValue.null", who), -1;
    if (v > 0) return v;
    if (e->kind == CC_E_INT && e->u.i == 0) return 1;
    if (tc_is_math_inf(e)) return 2;
    if (e->kind == CC_E_UNARY && e->u.un.op == CC_OP_NEG && tc_is_math_inf(e->u.un.operand)) return 3;
    const char *got = "this value";
    char buf[64];
    if (e->kind == CC_E_INT) snprintf(buf, sizeof buf, "%lld", (long long)e->u.i), got = buf;
    else if (e->kind == CC_E_FLOAT) snprintf(buf, sizeof buf, "%g", e->u.f), got = buf;
    return tc_err(t, CC_DIAG_TYPE, e->span, NULL, text, who, got), -1;
}

static cc_ir_expr *tc_fillpad(tc *t, const cc_expr *call)
{
    static const char *const ps[] = {"x", "pad_value"};
    tc_args a;
    if (!tc_op_bind(t, call, "fillpad", ps, TC_N(ps), &a) || !tc_need(t, call, "fillpad", &a, 1, ps)) return NULL;
    cc_ir_expr *x = tc_tile_arg(t, a.v[0]);
    int pad = x && tc_no_bool_tile(t, "fillpad", x, call->span) ? tc_pad_value(t, a.v[1], "fillpad") : -1;
    if (pad < 0) return NULL;
    cc_ir_expr *f = cc_ir_op_new(t->a, CC_IR_FILLPAD, call->span);
    if (!f) return tc_oom(t);
    f->u.op.args[0] = x, f->u.op.mode = (uint8_t)pad;
    f->type = x->type;
    f->type.partial = 0;
    return f;
}

/* pl.tile.full, or (tensor) pl.full: its texts name the spelling, its
 * shape entries are reported one by one, its result is tensor-level. */
static cc_ir_expr *tc_full(tc *t, const cc_expr *call, int tensor)
{
    static const char *const ps[] = {"shape", "dtype", "value"};
    const char *op = tensor ? "full" : "tile.full";
    tc_args a;
    if (!tc_kernel_only(t, op, call->span) || !tc_op_bind(t, call, op, ps, TC_N(ps), &a) || !tc_need(t, call, op, &a, 3, ps))
        return NULL;
    int64_t ext[CC_MAX_RANK];
    uint32_t n;
    cc_ir_expr *shp;
    if (tensor ? !tc_value_shape(t, a.v[0], op, "pl.full", ext, &n, &shp) : !tc_shapes(t, a.v[0], op, ext, &n, &shp)) return NULL;
    if (n < 1) return tc_err(t, CC_DIAG_INVALID_OP, a.v[0]->span, NULL, "pl.%s: the shape needs 1 to 4 entries", op);
    char what[32];
    snprintf(what, sizeof what, "pl.%s dtype", op);
    int dt = tc_tile_dtype_arg(t, a.v[1], what);
    if (dt < 0) return NULL;
    cc_ir_expr *v = tc_expr(t, a.v[2]);
    if (!v) return NULL;
    if (v->type.kind != CC_T_SCALAR || v->type.dtype == CC_DT_TASK_ID || v->type.dtype == CC_DT_BOOL)
        return tc_err(t, CC_DIAG_TYPE, a.v[2]->span, NULL, "pl.%s value must be an int or float scalar", op);
    if (cc_dtype_is_float(v->type.dtype) && !cc_dtype_is_float((cc_dtype)dt))
        return tc_err(t, CC_DIAG_TYPE, a.v[2]->span, NULL, "pl.%s: a float value for an %s tile; pass an int", op, cc_dtype_name((cc_dtype)dt));
    cc_ir_expr *f = cc_ir_op_new(t->a, CC_IR_FULL, call->span);
    if (!f) return tc_oom(t);
    f->u.op.args[0] = shp, f->u.op.args[1] = v, f->u.op.dtype = (uint8_t)dt;
    f->type = (cc_type){.kind = CC_T_TILE, .dtype = (uint8_t)dt, .rank = (uint8_t)n, .from_tensors = (uint8_t)tensor};
    memcpy(f->type.shape, ext, n * sizeof ext[0]);
    return f;
}

cc_ir_expr *tc_tensor_full(tc *t, const cc_expr *call) { return tc_full(t, call, 1); }

/* pl.reshape(x, shape): the shape a list of positive constants with x's
 * element count.  A partial x keeps its valid region only where the VM
 * finds it a box in the new shape (tile_reshape). */
static cc_ir_expr *tc_reshape(tc *t, const cc_expr *call)
{
    static const char *const ps[] = {"x", "shape"};
    tc_args a;
    if (!tc_op_bind(t, call, "reshape", ps, TC_N(ps), &a) || !tc_need(t, call, "reshape", &a, 2, ps)) return NULL;
    cc_ir_expr *x = tc_tile_arg(t, a.v[0]);
    if (!x || !tc_no_bool_tile(t, "reshape", x, call->span)) return NULL;
    const cc_expr *se = tc_module_constant_ast(t, a.v[1]);
    if (se->kind != CC_E_LIST && se->kind != CC_E_TUPLE)
        return tc_err(t, CC_DIAG_TYPE, a.v[1]->span, NULL, "pl.reshape: shape must be a list like [1, 32]");
    cc_ir_expr *shp = tc_expr(t, se);
    if (!shp) return NULL;
    shp->span = a.v[1]->span;
    uint32_t n = shp->u.list.n;
    if (n < 1 || n > CC_MAX_RANK) return tc_err(t, CC_DIAG_INVALID_OP, a.v[1]->span, NULL, "pl.reshape: the shape needs 1 to 4 entries");
    int64_t ext[CC_MAX_RANK], want = 1, have = 1;
    for (uint32_t d = 0; d < n; d++) {
        const cc_ir_expr *it = shp->u.list.items[d];
        if (it->type.kind != CC_T_SCALAR || cc_dtype_is_float(it->type.dtype) || !cc_ir_const_int(it, &ext[d]))
            return tc_err(t, CC_DIAG_TYPE, it->span, NULL, "pl.reshape shape element %u must be a compile-time constant", d);
        if (ext[d] <= 0)
            return tc_err(t, CC_DIAG_INVALID_OP, it->span, NULL, "pl.reshape: shape element %u must be positive, got %lld", d, (long long)ext[d]);
        want *= ext[d];
    }
    for (uint32_t d = 0; d < x->type.rank; d++) have *= x->type.shape[d];
    if (have != want)
        return tc_err(t, CC_DIAG_INVALID_OP, call->span, NULL, "tile.reshape: cannot reshape tile of size %lld into shape with size %lld",
                      (long long)have, (long long)want);
    cc_ir_expr *r = cc_ir_op_new(t->a, CC_IR_RESHAPE, call->span);
    if (!r) return tc_oom(t);
    r->u.op.args[0] = x, r->u.op.args[1] = shp;
    r->type = x->type;
    r->type.rank = (uint8_t)n;
    memset(r->type.shape, 0, sizeof r->type.shape);
    memcpy(r->type.shape, ext, n * sizeof ext[0]);
    return r;
}

/* A pl.transpose axis: an integer constant in [-rank, rank), negative
 * counted from the end; into *ax counted from 0, 0 when reported. */
static int tc_axis(tc *t, const cc_expr *e, const char *slot, uint32_t rank, int64_t *ax, cc_ir_expr **out)
{
    cc_ir_expr *x = *out = tc_expr(t, e);
    if (!x) return 0;
    if (x->type.kind != CC_T_SCALAR || !cc_ir_const_int(x, ax))
        return tc_err(t, CC_DIAG_TYPE, e->span, NULL, "pl.transpose %s must be a compile-time integer constant", slot), 0;
    if (*ax < -(int64_t)rank || *ax >= (int64_t)rank)
        return tc_err(t, CC_DIAG_INVALID_OP, e->span, NULL, "pl.transpose: axis %lld is out of range for rank %u", (long long)*ax, rank), 0;
    if (*ax < 0) *ax += rank;
    return 1;
}

/* pl.transpose(x, axis1, axis2), pl.transpose_view(tile) (its last two
 * axes): x with the two axes swapped in its shape, valid region and data
 * (tile_transpose); the axes go to the node's mode as axis1 | axis2 << 4. */
static cc_ir_expr *tc_transpose(tc *t, const cc_expr *call, cc_ir_op op)
{
    const cc_op_info *row = cc_ir_op_info(op);
    tc_args a;
    if (!tc_op_bind(t, call, row->name, row->slots, row->nslots, &a) || !tc_need(t, call, row->name, &a, row->nreq, row->slots)) return NULL;
    cc_ir_expr *x = tc_tile_arg(t, a.v[0]), *ax1 = NULL, *ax2 = NULL;
    if (!x || !tc_no_bool_tile(t, row->name, x, call->span)) return NULL;
    uint32_t rank = x->type.rank;
    int64_t i = (int64_t)rank - 2, j = (int64_t)rank - 1;
    if (op == CC_IR_TRANSPOSE_VIEW && rank < 2)
        return tc_err(t, CC_DIAG_INVALID_OP, call->span, NULL, "tile.transpose_view requires at least 2 dimensions, but got %u", rank);
    if (op == CC_IR_TRANSPOSE) {
        if (!tc_axis(t, a.v[1], "axis1", rank, &i, &ax1) || !tc_axis(t, a.v[2], "axis2", rank, &j, &ax2)) return NULL;
        if (i == j) return tc_err(t, CC_DIAG_INVALID_OP, a.v[2]->span, NULL, "pl.transpose: axis1 and axis2 must differ, got %lld twice", (long long)i);
    }
    cc_ir_expr *r = cc_ir_op_new(t->a, op, call->span);
    if (!r) return tc_oom(t);
    r->u.op.args[0] = x;
    if (op == CC_IR_TRANSPOSE) r->u.op.args[1] = ax1, r->u.op.args[2] = ax2;
    r->u.op.mode = (uint8_t)(i | j << 4);
    r->type = x->type;
    r->type.shape[i] = x->type.shape[j], r->type.shape[j] = x->type.shape[i];
    return r;
}

/* pl.fillpad_expand(x, shape, pad_value=): shape a list of constants of
 * x's rank, each entry at least x's; pad_value= as pl.fillpad's. */
static cc_ir_expr *tc_fillpad_expand(tc *t, const cc_expr *call)
{
    static const char *const ps[] = {"x", "shape", "pad_value"};
    tc_args a;
    if (!tc_op_bind(t, call, "fillpad_expand", ps, TC_N(ps), &a) || !tc_need(t, call, "fillpad_expand", &a, 2, ps)) return NULL;
    cc_ir_expr *x = tc_tile_arg(t, a.v[0]), *shp;
    int64_t ext[CC_MAX_RANK];
    uint32_t n;
    if (!x || !tc_no_bool_tile(t, "fillpad_expand", x, call->span) || !tc_shapes(t, a.v[1], "fillpad_expand", ext, &n, &shp)) return NULL;
    cc_type want = x->type;
    memcpy(want.shape, ext, n * sizeof ext[0]);
    want.rank = (uint8_t)n;
    if (n != x->type.rank)
        return tc_err(t, CC_DIAG_INVALID_OP, a.v[1]->span, NULL, "pl.fillpad_expand: shape %s has rank %u, the source %s rank %u",
                      tc_shape_text(t, &want), n, tc_shape_text(t, &x->type), x->type.rank);
    for (uint32_t d = 0; d < n; d++)
        if (ext[d] < x->type.shape[d])
            return tc_err(t, CC_DIAG_INVALID_OP, call->span, NULL, "pl.fillpad_expand: shape %s is smaller than the source %s",
                          tc_shape_text(t, &want), tc_shape_text(t, &x->type));
    int pad = tc_pad_value(t, a.v[2], "fillpad");
    if (pad < 0) return NULL;
    cc_ir_expr *f = cc_ir_op_new(t->a, CC_IR_FILLPAD_EXPAND, call->span);
    if (!f) return tc_oom(t);
    f->u.op.args[0] = x, f->u.op.args[1] = shp, f->u.op.mode = (uint8_t)pad;
    f->type = want;
    f->type.partial = 0;
    return f;
}

/* A valid extent of pl.set_validshape: an integer scalar, at most extent
 * when it is a constant (a run-time value is checked by the VM). */
static cc_ir_expr *tc_valid_extent(tc *t, const cc_expr *e, const char *slot, uint32_t d, int64_t extent, cc_span at)
{
    cc_ir_expr *v = tc_expr(t, e);
    if (!v) return NULL;
    if (v->type.kind != CC_T_SCALAR || cc_dtype_is_float(v->type.dtype) || v->type.dtype == CC_DT_TASK_ID || v->type.dtype == CC_DT_BOOL)
        return tc_err(t, CC_DIAG_TYPE, e->span, NULL, "pl.set_validshape %s must be an integer scalar", slot);
    int64_t c;
    if (cc_ir_const_int(v, &c) && c > extent)
        return tc_err(t, CC_DIAG_INVALID_OP, at, NULL, "pl.set_validshape: %lld exceeds dimension %u of extent %lld", (long long)c, d,
                      (long long)extent);
    if (cc_ir_const_int(v, &c) && c < 0)
        return tc_err(t, CC_DIAG_INVALID_OP, at, NULL, "pl.set_validshape: %lld is negative for dimension %u", (long long)c, d);
    return v;
}

/* pl.set_validshape(tile, valid_rows, valid_cols): a rank-2 tile with that
 * valid region (tile_set_validshape). */
static cc_ir_expr *tc_set_validshape(tc *t, const cc_expr *call)
{
    static const char *const ps[] = {"tile", "valid_rows", "valid_cols"};
    tc_args a;
    if (!tc_op_bind(t, call, "set_validshape", ps, TC_N(ps), &a) || !tc_need(t, call, "set_validshape", &a, 3, ps)) return NULL;
    cc_ir_expr *x = tc_tile_arg(t, a.v[0]);
    if (!x || !tc_no_bool_tile(t, "set_validshape", x, call->span)) return NULL;
    if (x->type.rank != 2)
        return tc_err(t, CC_DIAG_INVALID_OP, a.v[0]->span, NULL, "pl.set_validshape requires a rank-2 tile, got rank %u", x->type.rank);
    cc_ir_expr *r = tc_valid_extent(t, a.v[1], "valid_rows", 0, x->type.shape[0], call->span);
    cc_ir_expr *c = r ? tc_valid_extent(t, a.v[2], "valid_cols", 1, x->type.shape[1], call->span) : NULL;
    if (!c) return NULL;
    cc_ir_expr *v = cc_ir_op_new(t->a, CC_IR_SET_VALIDSHAPE, call->span);
    if (!v) return tc_oom(t);
    v->u.op.args[0] = x, v->u.op.args[1] = r, v->u.op.args[2] = c;
    v->type = x->type;
    v->type.partial = 1;
    return v;
}

cc_ir_expr *tc_misc_op(tc *t, const cc_expr *call, cc_ir_op op)
{
    switch (op) {
    case CC_IR_FULL: return tc_full(t, call, 0);
    case CC_IR_MATMUL_ACC: return tc_matmul_acc(t, call);
    case CC_IR_CONCAT: return tc_concat(t, call);
    case CC_IR_FILLPAD: return tc_fillpad(t, call);
    case CC_IR_RESHAPE: return tc_reshape(t, call);
    case CC_IR_TRANSPOSE_VIEW: case CC_IR_TRANSPOSE: return tc_transpose(t, call, op);
    case CC_IR_FILLPAD_EXPAND: return tc_fillpad_expand(t, call);
    case CC_IR_SET_VALIDSHAPE: return tc_set_validshape(t, call);
    default: return tc_err(t, CC_DIAG_TYPE, call->span, NULL, "internal error: pl.%s has no checks", cc_ir_op_name(op));
    }
}
