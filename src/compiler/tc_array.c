/*
 * tc_array.c - the type checker's TASK_ID arrays (DSL-V2-SPEC §8, D-arr;
 * docs/dsl.md, "Dependency directives"): `arr = pl.array.create(n,
 * pl.TASK_ID)`, the element read `x = arr[i]`, the element write
 * `arr[i] = tid` (functional: `arr = SET(arr, i, tid)`, so it is carried
 * through loops and branches like any rebinding) and the entries of deps=
 * (a TaskId, a whole array, an element, None).
 *
 * Invariants: an array has a constant size n >= 1 and TaskId slots that
 * start empty; an index is one integer scalar, checked against n here when
 * constant and at run time otherwise (code 9, the same text); arrays live in
 * orchestration code only (the kernel-code texts are v1's control-plane
 * one).
 */
#include "compiler/tc.h"

#include <stdio.h>
#include <string.h>

#include "compiler/names.h"

static const char *const tc_arr_one_index = "Array subscript-write requires a single index (rank-1 in v1)";

static cc_ir_expr *tc_arr_node(tc *t, cc_ir_array_op op, cc_ir_expr **items, uint32_t n, cc_type ty, cc_span sp)
{
    cc_ir_expr *e = cc_ir_expr_new(t->a, CC_X_ARRAY, sp);
    cc_ir_expr **it = n ? base_arena_alloc(t->a, n * sizeof *it) : NULL;
    if (!e || (n && !it)) return tc_oom(t);
    if (n) memcpy(it, items, n * sizeof *it);
    e->u.list.items = it, e->u.list.n = n, e->u.list.aop = (uint8_t)op, e->type = ty;
    return e;
}

int tc_is_array_create(const tc *t, const cc_expr *fn)
{
    const cc_expr *ns = fn->kind == CC_E_ATTR ? fn->u.attr.value : NULL;
    return ns && ns->kind == CC_E_ATTR && ns->u.attr.value->kind == CC_E_NAME && tc_pl_attr(t, ns, "array") &&
           !strcmp(fn->u.attr.name, "create");
}

cc_ir_expr *tc_array_create(tc *t, const cc_expr *call)
{
    if (t->c.plane == TC_KERNEL) return tc_control_in_kernel(t, call->span, "pl.array.create");
    if (call->u.call.nargs != 2 || call->u.call.nkws)
        return tc_err(t, CC_DIAG_SYNTAX, call->span, NULL, "pl.array.create() takes two positional arguments (size, dtype)");
    const cc_expr *dte = tc_module_constant_ast(t, call->u.call.args[1]);
    const char *tid = tc_pl_attr(t, dte, "TASK_ID");
    int dt = tid && dte->u.attr.value->kind == CC_E_NAME ? CC_DT_TASK_ID : tc_dtype_arg(t, dte, "pl.array.create dtype");
    if (dt < 0) return NULL;
    if (dt != CC_DT_TASK_ID) {
        char what[64];
        snprintf(what, sizeof what, "pl.array of pl.%s", cc_dtype_name((cc_dtype)dt));
        return tc_pl_unsupported(t, dte->span, CC_PL_LATER, CC_PLR_NONE, what);
    }
    cc_ir_expr *n = tc_expr(t, call->u.call.args[0]);
    if (!n) return NULL;
    if (n->kind != CC_X_INT || n->u.i < 1)
        return tc_err(t, CC_DIAG_TYPE, call->u.call.args[0]->span, NULL, "pl.array.create() size must be a constant integer >= 1");
    cc_type ty = {.kind = CC_T_ARRAY, .dtype = CC_DT_TASK_ID, .rank = 1, .shape = {n->u.i}};
    return tc_arr_node(t, CC_ARR_CREATE, NULL, 0, ty, call->span);
}

/* arr's index i of subscript sub (one integer scalar; a constant within [0, n)). */
static cc_ir_expr *tc_arr_index(tc *t, const cc_ir_expr *arr, const cc_expr *sub)
{
    const cc_expr *ix = sub->u.sub.index;
    if (ix->kind == CC_E_TUPLE || ix->kind == CC_E_SLICE) return tc_err(t, CC_DIAG_TYPE, sub->span, NULL, "%s", tc_arr_one_index);
    cc_ir_expr *i = tc_expr(t, ix);
    if (!i) return NULL;
    cc_dtype d = (cc_dtype)i->type.dtype;
    if (i->type.kind != CC_T_SCALAR || cc_dtype_is_float(d) || d == CC_DT_BOOL || d == CC_DT_TASK_ID) {
        char ty[96];
        cc_type_format(&i->type, ty, sizeof ty);
        return tc_err(t, CC_DIAG_TYPE, ix->span, NULL, "a pl.array index must be an integer scalar, got %s", ty);
    }
    if (i->kind == CC_X_INT && (i->u.i < 0 || i->u.i >= arr->type.shape[0]))
        return tc_err(t, CC_DIAG_INVALID_OP, ix->span, NULL, "pl.array index %lld is out of range for an array of %lld",
                      (long long)i->u.i, (long long)arr->type.shape[0]);
    return i;
}

cc_ir_expr *tc_array_get(tc *t, const cc_expr *e, cc_ir_expr *arr)
{
    if (t->c.plane == TC_KERNEL) return tc_control_in_kernel(t, e->span, "a TASK_ID array element");
    cc_ir_expr *i = tc_arr_index(t, arr, e);
    if (!i) return NULL;
    cc_ir_expr *items[2] = {arr, i};
    return tc_arr_node(t, CC_ARR_GET, items, 2, (cc_type){.kind = CC_T_SCALAR, .dtype = CC_DT_TASK_ID}, e->span);
}

/* The binding of s's subscript-write target when it is a TASK_ID array, else NULL. */
const tc_bind *tc_array_target(tc *t, const cc_stmt *s)
{
    const cc_expr *x = s->u.assign.ntargets == 1 ? s->u.assign.targets[0] : NULL;
    if (!x || x->kind != CC_E_SUBSCRIPT || x->u.sub.value->kind != CC_E_NAME) return NULL;
    const tc_bind *b = tc_lookup(&t->c.env, x->u.sub.value->u.name);
    return b && b->definite && !b->conflict && b->type.kind == CC_T_ARRAY ? b : NULL;
}

cc_ir_stmt *tc_array_write(tc *t, const cc_stmt *s)
{
    const cc_expr *x = s->u.assign.targets[0];
    if (t->c.plane == TC_KERNEL) return tc_control_in_kernel(t, x->span, "a TASK_ID array element");
    cc_ir_expr *arr = tc_expr(t, x->u.sub.value), *i = arr ? tc_arr_index(t, arr, x) : NULL;
    cc_ir_expr *v = i ? tc_expr(t, s->u.assign.value) : NULL;
    if (!v) return NULL;
    if (v->type.kind != CC_T_SCALAR || v->type.dtype != CC_DT_TASK_ID) {
        char ty[96];
        cc_type_format(&v->type, ty, sizeof ty);
        return tc_err(t, CC_DIAG_TYPE, s->u.assign.value->span, NULL, "an element of a TASK_ID array is a TaskId, got %s", ty);
    }
    cc_ir_expr *items[3] = {arr, i, v};
    cc_ir_expr *set = tc_arr_node(t, CC_ARR_SET, items, 3, arr->type, s->span);
    cc_ir_stmt *st = set ? tc_stmt_new(t, CC_I_ASSIGN, s->span) : NULL;
    if (!st || !(st->u.assign.targets = base_arena_alloc(t->a, sizeof *st->u.assign.targets))) return tc_oom(t);
    const char *name = x->u.sub.value->u.name;
    st->u.assign.targets[0] = (cc_ir_target){name, arr->type, x->u.sub.value->span};
    st->u.assign.ntargets = 1, st->u.assign.value = set;
    return tc_bind_name(t, name, arr->type, x->u.sub.value->span) ? st : NULL;
}

/* ---- deps= entries (D-deps) ------------------------------------------------------------------- */

int tc_deps_of(tc *t, const char *m, const cc_expr *list, cc_ir_expr ***deps, uint32_t *ndeps)
{
    if (list->kind != CC_E_LIST && list->kind != CC_E_TUPLE)
        return tc_err(t, CC_DIAG_SYNTAX, list->span, NULL, "deps= entries must be a TaskId variable"), 0;
    uint32_t n = 0, whole = 0, other = 0;
    if (list->u.seq.n && !(*deps = base_arena_alloc(t->a, list->u.seq.n * sizeof **deps))) return tc_oom(t), 0;
    for (uint32_t k = 0; k < list->u.seq.n; k++) {
        const cc_expr *x = list->u.seq.items[k];
        if (x->kind == CC_E_NONE) continue; /* ignored */
        int named = x->kind == CC_E_NAME || (x->kind == CC_E_SUBSCRIPT && x->u.sub.value->kind == CC_E_NAME);
        cc_ir_expr *v = named ? tc_expr(t, x) : NULL;
        if (named && !v) return 0;
        int task = v && v->type.kind == CC_T_SCALAR && v->type.dtype == CC_DT_TASK_ID &&
                   (v->kind == CC_X_VAR || (v->kind == CC_X_ARRAY && v->u.list.aop == CC_ARR_GET));
        int arr = v && v->kind == CC_X_VAR && v->type.kind == CC_T_ARRAY;
        if (!task && !arr) {
            char buf[160];
            return tc_err(t, CC_DIAG_SYNTAX, x->span, NULL,
                          "'%s' deps= entries must be a TaskId variable, a TASK_ID array element (e.g. arr[i]), or None — got '%s'", m,
                          cc_source_span_text(cc_diag_source(t->d, x->span.line), x->span, buf, sizeof buf)), 0;
        }
        whole += arr, other += task;
        if (whole && other)
            return tc_err(t, CC_DIAG_SYNTAX, x->span, NULL, "'%s' deps= cannot mix a whole TASK_ID array with per-element entries", m),
                   0;
        (*deps)[n++] = v;
    }
    *ndeps = n;
    return 1;
}
