/*
 * tc_elem.c - the type checker's element access (docs/dsl.md,
 * "Operations"): pl.read(x, indices) of a tile or a kernel Tensor, and
 * pl.write(t, indices, value) of a kernel Tensor.  Binding and placement
 * are tc_ops.c's (orchestration use is refused there).
 *
 * Invariants: a READ/WRITE node's indices slot is a LIST of one integer
 * scalar per axis of x, or one integer scalar (the flat row-major index);
 * a constant index is in range; READ's type is a scalar of x's dtype,
 * WRITE's is the tensor's (it aliases t, as pl.store does).
 */
#include "compiler/tc.h"

#include <stdio.h>
#include <string.h>

#define TC_N(ps) ((uint32_t)(sizeof(ps) / sizeof((ps)[0])))

static int tc_int_scalar(const cc_ir_expr *x)
{
    return x->type.kind == CC_T_SCALAR && !cc_dtype_is_float(x->type.dtype) && x->type.dtype != CC_DT_TASK_ID;
}

static const char *tc_type_text(tc *t, const cc_type *ty)
{
    char buf[96];
    cc_type_format(ty, buf, sizeof buf);
    const char *s = base_arena_strndup(t->a, buf, strlen(buf));
    return s ? s : "?";
}

/* A constant index v of dimension d (extent s) in range; 0 when reported. */
static int tc_index_in_range(tc *t, const char *op, const cc_ir_expr *ix, uint32_t d, int64_t s)
{
    int64_t v;
    if (!cc_ir_const_int(ix, &v) || (v >= 0 && (CC_DIM_IS_DYN(s) || v < s))) return 1; /* a dynamic extent: at run time */
    return tc_err(t, CC_DIAG_INVALID_OP, ix->span, NULL, "pl.%s: index %lld is out of range for dimension %u of extent %lld", op,
                  (long long)v, d, (long long)s), 0;
}

/* The indices of an element of x (type ty): a list of one integer scalar
 * per axis, or one integer scalar (flat: against the element count). */
static cc_ir_expr *tc_indices(tc *t, const char *op, const cc_expr *e, const cc_type *ty)
{
    const cc_expr *named = tc_module_constant_ast(t, e);
    int literal = named->kind == CC_E_LIST || named->kind == CC_E_TUPLE;
    cc_ir_expr *ix = tc_expr(t, literal ? named : e);
    if (!ix) return NULL;
    ix->span = e->span;
    const char *kind = ty->kind == CC_T_TILE ? "tile" : "tensor";
    if (ix->kind != CC_X_LIST) {
        if (!tc_int_scalar(ix))
            return tc_err(t, CC_DIAG_TYPE, e->span, NULL, "pl.%s indices must be a list of integer scalars or one flat integer index, got %s",
                          op, tc_type_text(t, &ix->type));
        int64_t count = 1;
        for (uint32_t d = 0; d < ty->rank; d++) count = CC_DIM_IS_DYN(ty->shape[d]) || count < 0 ? -1 : count * ty->shape[d];
        return tc_index_in_range(t, op, ix, 0, count) ? ix : NULL;
    }
    for (uint32_t d = 0; d < ix->u.list.n; d++)
        if (!tc_int_scalar(ix->u.list.items[d]))
            return tc_err(t, CC_DIAG_TYPE, ix->u.list.items[d]->span, NULL, "pl.%s indices must be integer scalars", op);
    if (ix->u.list.n != ty->rank)
        return tc_err(t, CC_DIAG_INVALID_OP, e->span, NULL, "pl.%s: expected %u indices for a rank-%u %s, got %u", op, ty->rank, ty->rank,
                      kind, ix->u.list.n);
    for (uint32_t d = 0; d < ty->rank; d++)
        if (!tc_index_in_range(t, op, ix->u.list.items[d], d, ty->shape[d])) return NULL;
    return ix;
}

static cc_ir_expr *tc_read(tc *t, const cc_expr *call)
{
    static const char *const ps[] = {"x", "indices"};
    tc_args a;
    if (!tc_op_bind(t, call, "read", ps, TC_N(ps), &a) || !tc_need(t, call, "read", &a, 2, ps)) return NULL;
    cc_ir_expr *x = tc_expr(t, a.v[0]);
    if (!x) return NULL;
    if (x->type.kind != CC_T_TILE && x->type.kind != CC_T_TENSOR)
        return tc_err(t, CC_DIAG_TYPE, a.v[0]->span, NULL, "pl.read expects a Tile or a Tensor, got %s", tc_type_text(t, &x->type));
    cc_ir_expr *ix = tc_indices(t, "read", a.v[1], &x->type);
    if (!ix) return NULL;
    cc_ir_expr *r = cc_ir_op_new(t->a, CC_IR_READ, call->span);
    if (!r) return tc_oom(t);
    r->u.op.args[0] = x, r->u.op.args[1] = ix;
    r->type = (cc_type){.kind = CC_T_SCALAR, .dtype = x->type.dtype};
    return r;
}

static cc_ir_expr *tc_write(tc *t, const cc_expr *call)
{
    static const char *const ps[] = {"x", "indices", "value"};
    tc_args a;
    if (!tc_op_bind(t, call, "write", ps, TC_N(ps), &a) || !tc_need(t, call, "write", &a, 3, ps)) return NULL;
    cc_ir_expr *x = tc_expr(t, a.v[0]);
    if (!x) return NULL;
    if (x->type.kind != CC_T_TENSOR)
        return tc_err(t, CC_DIAG_TYPE, a.v[0]->span, NULL, "pl.write expects a Tensor, got %s", tc_type_text(t, &x->type));
    cc_ir_expr *ix = tc_indices(t, "write", a.v[1], &x->type), *v = ix ? tc_expr(t, a.v[2]) : NULL;
    if (!v) return NULL;
    if (v->type.kind != CC_T_SCALAR)
        return tc_err(t, CC_DIAG_TYPE, a.v[2]->span, NULL, "pl.write value must be a scalar, got %s", tc_type_text(t, &v->type));
    if (v->type.dtype == CC_DT_TASK_ID) return tc_err(t, CC_DIAG_TYPE, a.v[2]->span, NULL, "a TaskId can only be passed in deps=");
    if (cc_dtype_is_float(v->type.dtype) && !cc_dtype_is_float(x->type.dtype)) {
        char s[64] = "value";
        if (v->kind == CC_X_FLOAT) snprintf(s, sizeof s, "%g", v->u.f);
        return tc_err(t, CC_DIAG_TYPE, a.v[2]->span, NULL, "pl.write: float scalar %s into an %s tensor; convert it with pl.cast", s,
                      cc_dtype_name(x->type.dtype));
    }
    cc_ir_expr *w = cc_ir_op_new(t->a, CC_IR_WRITE, call->span);
    if (!w) return tc_oom(t);
    w->u.op.args[0] = x, w->u.op.args[1] = ix, w->u.op.args[2] = v;
    w->type = x->type;
    return w;
}

cc_ir_expr *tc_elem_op(tc *t, const cc_expr *call, cc_ir_op op)
{
    return op == CC_IR_READ ? tc_read(t, call) : tc_write(t, call);
}
