/*
 * tc_implicit.c - what the type checker adds that the user did not write:
 * statements queued before the current one (preludes), and an InCore
 * function's returned tensor-level values (T-x, DSL-V2-SPEC §1.6).
 *
 * A returned tensor-level value becomes an implicit Out parameter (after
 * the written ones, in result order): `pl.store(v, [0, ...], <p>)` before the
 * return, and the return names <p>.  Every call allocates it:
 * `<callee>_<p> = pl.create_tensor(shape, dtype)` before the call's
 * statement, passed as that argument; the call's result is that tensor (the
 * callee returns the parameter).  Both print as ordinary constructs, so the
 * printed program parses back to itself.
 */
#include "compiler/tc.h"

#include <stdio.h>
#include <string.h>

int tc_prelude_add(tc *t, cc_ir_stmt *s)
{
    cc_ir_stmt **g = base_arena_alloc(t->a, (t->c.nprelude + 1) * sizeof *g);
    if (!g) return tc_oom(t), 0;
    if (t->c.nprelude) memcpy(g, t->c.prelude, t->c.nprelude * sizeof *g);
    g[t->c.nprelude++] = s;
    t->c.prelude = g;
    return 1;
}

/* base + tail (then `_<n>`), a name not used in the current function, reserved there. */
static const char *tc_fresh_name(tc *t, const char *base, const char *tail)
{
    size_t cap = strlen(base) + strlen(tail) + 24;
    char *n = base_arena_alloc(t->a, cap);
    if (!n) return tc_oom(t);
    snprintf(n, cap, "%s%s", base, tail);
    for (unsigned u = 1; tc_is_local(t, n) || tc_lookup(&t->c.env, n); u++) snprintf(n, cap, "%s%s_%u", base, tail, u);
    if (base_strmap_put(&t->c.locals, n, 1) != 0) return tc_oom(t);
    return n;
}

cc_ir_expr *tc_const_list(tc *t, const cc_type *ty, int shape, cc_span sp)
{
    cc_ir_expr *l = cc_ir_expr_new(t->a, CC_X_LIST, sp);
    if (!l || !(l->u.list.items = base_arena_alloc(t->a, (ty->rank ? ty->rank : 1) * sizeof *l->u.list.items))) return tc_oom(t);
    l->type = (cc_type){.kind = CC_T_LIST};
    l->u.list.n = ty->rank;
    for (uint32_t d = 0; d < ty->rank; d++)
        if (!(l->u.list.items[d] = cc_ir_int(t->a, shape ? ty->shape[d] : 0, sp))) return tc_oom(t);
    return l;
}

cc_ir_expr *tc_implicit_result(tc *t, cc_ir_expr *v, uint32_t k)
{
    cc_ir_func *f = t->c.f;
    char tail[24];
    snprintf(tail, sizeof tail, "%u", k);
    const char *name = tc_fresh_name(t, "ret", tail);
    cc_ir_param *ps = base_arena_alloc(t->a, (f->nparams + 1) * sizeof *ps);
    if (!name || !ps) return tc_oom(t);
    if (f->nparams) memcpy(ps, f->params, f->nparams * sizeof *ps);
    cc_type ty = {.kind = CC_T_TENSOR, .dtype = v->type.dtype, .rank = v->type.rank};
    memcpy(ty.shape, v->type.shape, sizeof ty.shape);
    ps[f->nparams] = (cc_ir_param){.name = name, .type = ty, .dir = CC_DIR_OUT, .span = v->span, .implicit = 1};
    f->params = ps, f->nparams++;
    cc_ir_expr *st = cc_ir_op_new(t->a, CC_IR_STORE, v->span), *p = cc_ir_var(t->a, name, ty, v->span);
    cc_ir_stmt *s = tc_stmt_new(t, CC_I_EXPR, v->span);
    if (!st || !p || !s || !(st->u.op.args[1] = tc_const_list(t, &ty, 0, v->span))) return tc_oom(t);
    st->u.op.args[0] = v, st->u.op.args[2] = p, st->type = ty;
    s->u.expr = st;
    return tc_prelude_add(t, s) && tc_bind_name(t, name, ty, v->span) ? cc_ir_var(t->a, name, ty, v->span) : NULL;
}

int tc_implicit_args(tc *t, const cc_ir_func *callee, cc_ir_expr **args, uint32_t np, cc_span at)
{
    for (uint32_t j = np; j < callee->nparams; j++) {
        const cc_ir_param *pm = &callee->params[j];
        char tail[160];
        snprintf(tail, sizeof tail, "_%s", pm->name);
        const char *name = tc_fresh_name(t, callee->name, tail);
        cc_ir_expr *c = cc_ir_op_new(t->a, CC_IR_CREATE_TENSOR, at);
        cc_ir_stmt *s = tc_stmt_new(t, CC_I_ASSIGN, at);
        if (!name || !c || !s || !(c->u.op.args[0] = tc_const_list(t, &pm->type, 1, at)) ||
            !(s->u.assign.targets = base_arena_alloc(t->a, sizeof *s->u.assign.targets)) ||
            !(args[j] = cc_ir_var(t->a, name, pm->type, at)))
            return tc_oom(t), 0;
        c->u.op.dtype = pm->type.dtype, c->type = pm->type;
        s->u.assign.targets[0] = (cc_ir_target){name, pm->type, at};
        s->u.assign.ntargets = 1, s->u.assign.value = c;
        if (!tc_prelude_add(t, s) || !tc_bind_name(t, name, pm->type, at)) return 0;
        tc_bind *b = tc_lookup(&t->c.env, name);
        b->created = at.line, b->created_in = t->c.scope, b->implicit = 1;
    }
    return 1;
}
