/*
 * tc_deps.c - the type checker's dependency directives (DSL-V2-SPEC §8;
 * docs/dsl.md, "Dependency directives"): a no_dep_args= list (D-nda), a
 * pl.no_dep(t) kernel-call argument, pl.system.task_dummy (D-dum),
 * allow_early_resolve= (D-aer, a hint) and predicate= (D-pred).
 *
 * Invariants: each check reports at the offending construct and returns 0
 * (NULL); the texts name the construct carrying the keyword through a
 * parameter (`pl.at`, `pl.spmd`, `pl.submit`), so every form shares them;
 * what is kept is what the printer prints back.
 */
#include "compiler/tc.h"

#include <string.h>

/* ---- no_dep_args= (D-nda) ------------------------------------------------------------------ */

int tc_no_dep_args(tc *t, const char *form, const cc_expr *list, const char ***names, cc_span **spans, uint32_t *n)
{
    if (list->kind != CC_E_LIST)
        return tc_err(t, CC_DIAG_TYPE, list->span, NULL, "%s(no_dep_args=...) must be a list literal of tensor names", form), 0;
    uint32_t m = list->u.seq.n;
    *names = m ? base_arena_alloc(t->a, m * sizeof **names) : NULL;
    *spans = m ? base_arena_alloc(t->a, m * sizeof **spans) : NULL;
    if (m && (!*names || !*spans)) return tc_oom(t), 0;
    for (uint32_t k = 0; k < m; k++) {
        const cc_expr *x = list->u.seq.items[k];
        if (x->kind != CC_E_NAME)
            return tc_err(t, CC_DIAG_TYPE, x->span, NULL, "%s(no_dep_args=...) entries must be bare tensor names", form), 0;
        tc_bind *b = tc_lookup(&t->c.env, x->u.name);
        if (b && b->conflict) return tc_kind_conflict(t, b, x->span);
        if (!b || !b->definite)
            return tc_err(t, CC_DIAG_TYPE, x->span, NULL, "%s(no_dep_args=...) references unknown name '%s'", form, x->u.name), 0;
        if (b->type.kind != CC_T_TENSOR) {
            char ty[96];
            cc_type_format(&b->type, ty, sizeof ty);
            return tc_err(t, CC_DIAG_TYPE, x->span, NULL, "%s(no_dep_args=...) entry '%s' is not a tensor (got type %s)", form,
                          x->u.name, ty), 0;
        }
        for (uint32_t j = 0; j < k; j++)
            if (!strcmp((*names)[j], x->u.name))
                return tc_err(t, CC_DIAG_TYPE, x->span, NULL, "%s(no_dep_args=...) lists '%s' more than once", form, x->u.name), 0;
        (*names)[k] = x->u.name, (*spans)[k] = x->span;
    }
    *n = m;
    return 1;
}

/* ---- pl.no_dep(t) ---------------------------------------------------------------------------- */

int tc_is_no_dep(const tc *t, const cc_expr *e)
{
    return e->kind == CC_E_CALL && tc_pl_attr(t, e->u.call.fn, "no_dep") && e->u.call.fn->u.attr.value->kind == CC_E_NAME;
}

cc_ir_expr *tc_no_dep_arg(tc *t, const cc_expr *e, int kernel)
{
    if (!kernel) return tc_err(t, CC_DIAG_SYNTAX, e->span, NULL, "pl.no_dep() is only allowed as a kernel-call argument");
    if (e->u.call.nargs != 1 || e->u.call.nkws)
        return tc_err(t, CC_DIAG_SYNTAX, e->span, NULL, "pl.no_dep() takes exactly one argument (a tensor)");
    cc_ir_expr *x = tc_expr(t, e->u.call.args[0]);
    if (!x) return NULL;
    if (x->type.kind != CC_T_TENSOR) {
        char ty[96];
        cc_type_format(&x->type, ty, sizeof ty);
        return tc_err(t, CC_DIAG_TYPE, e->u.call.args[0]->span, NULL, "pl.no_dep() expects a tensor, got %s", ty);
    }
    return x;
}

/* ---- pl.system.task_dummy(deps=[...]) (D-dum) -------------------------------------------------- */

cc_ir_expr *tc_task_dummy(tc *t, const cc_expr *call)
{
    if (t->c.plane == TC_KERNEL) return tc_control_in_kernel(t, call->span, "pl.system.task_dummy");
    if (call != t->c.whole_call)
        return tc_err(t, CC_DIAG_UNSUPPORTED, call->span, "call it in a statement of its own (tid = pl.system.task_dummy(deps=[...]))",
                      "a call of 'pl.system.task_dummy' inside an expression is not supported in this version");
    const cc_expr *deps = NULL;
    for (uint32_t k = 0; k < call->u.call.nkws; k++) {
        if (strcmp(call->u.call.kws[k].name, "deps"))
            return tc_err(t, CC_DIAG_SYNTAX, call->u.call.kws[k].name_span, NULL, "pl.system.task_dummy() got an unexpected keyword '%s'",
                          call->u.call.kws[k].name);
        deps = call->u.call.kws[k].value;
    }
    if (call->u.call.nargs || !deps)
        return tc_err(t, CC_DIAG_SYNTAX, call->span, NULL, "pl.system.task_dummy() takes only deps=[...]");
    cc_ir_expr *e = cc_ir_expr_new(t->a, CC_X_CALL, call->span);
    if (!e) return tc_oom(t);
    if (!tc_deps_of(t, "pl.system.task_dummy", deps, &e->u.call.deps, &e->u.call.ndeps)) return NULL;
    e->u.call.submit = 1;
    e->type = (cc_type){.kind = CC_T_SCALAR, .dtype = CC_DT_TASK_ID};
    return e;
}

/* ---- allow_early_resolve= (D-aer) ------------------------------------------------------------ */

int tc_early_resolve(tc *t, const char *form, const cc_expr *v, uint8_t *out)
{
    if (v->kind != CC_E_BOOL)
        return tc_err(t, CC_DIAG_SYNTAX, v->span, NULL, "%s() allow_early_resolve must be a boolean literal (True/False)", form), 0;
    *out = v->u.i ? 2 : 1;
    return 1;
}

/* ---- predicate= (D-pred) --------------------------------------------------------------------- */

/* An integer scalar (an element index): not a float, BOOL or TaskId. */
static int tc_int_scalar(const cc_ir_expr *i)
{
    cc_dtype d = (cc_dtype)i->type.dtype;
    return i->type.kind == CC_T_SCALAR && !cc_dtype_is_float(d) && d != CC_DT_BOOL && d != CC_DT_TASK_ID;
}

static const char *const tc_pred_shape = "predicate= must be one comparison 't[i] <op> <int literal>'";

int tc_predicate(tc *t, const cc_expr *v, cc_ir_expr **pred, uint8_t *op, int64_t *k)
{
    const cc_expr *l = v->kind == CC_E_COMPARE ? v->u.bin.left : NULL, *r = l ? v->u.bin.right : NULL;
    int neg = r && r->kind == CC_E_UNARY && r->u.un.op == CC_OP_NEG;
    if (neg) r = r->u.un.operand;
    if (!l || l->kind != CC_E_SUBSCRIPT || l->u.sub.value->kind != CC_E_NAME || r->kind != CC_E_INT)
        return tc_err(t, CC_DIAG_SYNTAX, v->span, NULL, "%s", tc_pred_shape), 0;
    cc_ir_expr *x = tc_expr(t, l->u.sub.value);
    if (!x) return 0;
    if (x->type.kind != CC_T_TENSOR) {
        char ty[96];
        cc_type_format(&x->type, ty, sizeof ty);
        return tc_err(t, CC_DIAG_TYPE, l->u.sub.value->span, NULL, "predicate= reads an element of a tensor, got %s", ty), 0;
    }
    const cc_expr *ix = l->u.sub.index;
    uint32_t n = ix->kind == CC_E_TUPLE ? ix->u.seq.n : 1;
    if (n != x->type.rank) return tc_err(t, CC_DIAG_SYNTAX, v->span, NULL, "%s", tc_pred_shape), 0;
    cc_ir_expr *list = cc_ir_expr_new(t->a, CC_X_LIST, v->span);
    cc_ir_expr **items = base_arena_alloc(t->a, (n + 1) * sizeof *items);
    if (!list || !items) return tc_oom(t), 0;
    items[0] = x;
    for (uint32_t d = 0; d < n; d++) {
        const cc_expr *ie = ix->kind == CC_E_TUPLE ? ix->u.seq.items[d] : ix;
        cc_ir_expr *i = ie->kind == CC_E_SLICE ? NULL : tc_expr(t, ie);
        if (!i && ie->kind != CC_E_SLICE) return 0;
        if (!i || !tc_int_scalar(i))
            return tc_err(t, CC_DIAG_SYNTAX, ie->span, NULL, "%s", tc_pred_shape), 0;
        items[d + 1] = i;
    }
    list->u.list.items = items, list->u.list.n = n + 1;
    list->type = (cc_type){.kind = CC_T_LIST};
    *pred = list, *op = (uint8_t)v->u.bin.op, *k = neg ? -r->u.i : r->u.i;
    return 1;
}
