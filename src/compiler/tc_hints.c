/*
 * tc_hints.c - the type checker's optimizations= list (pl.at at
 * CORE_GROUP, an InCore @pl.function): entries pl.split(pl.SplitMode.X
 * [, slot_num=N]) and pl.cross_core_slot(slot_num=N), checked and kept
 * as written; they have no effect on the CPU backend (docs/dsl.md,
 * "Hints"; DSL-V2-SPEC §0.8 C, H-split).
 *
 * Invariants: the entries are checked in order and the first failure wins;
 * a slot_num is a positive compile-time integer; pl.split(slot_num=) is
 * accepted with one CompileWarning per entry.
 */
#include "compiler/tc.h"

#include <stdio.h>
#include <string.h>

#include "compiler/names.h"

static const char *const tc_hints_shape =
    "optimizations= must be a list literal of pl.split(...) / pl.cross_core_slot(...) entries";

/* What e says, for a message: a constant int or bool by its value, any
 * other expression by its source text. */
static const char *tc_hint_value_text(tc *t, const cc_expr *e, char *buf, size_t cap)
{
    if (tc_constant_ast(t, e)) {
        cc_ir_expr *x = tc_expr(t, e);
        if (!x) return NULL;
        if (x->kind == CC_X_INT) return snprintf(buf, cap, "%lld", (long long)x->u.i), buf;
        if (x->kind == CC_X_BOOL) return x->u.i ? "True" : "False";
    }
    return cc_source_span_text(cc_diag_source(t->d, e->span.line), e->span, buf, cap);
}

/* slot_num= of pl.<api>: a positive compile-time integer into *v. */
static int tc_slot_num(tc *t, const cc_expr *e, const char *api, int64_t *v)
{
    if (tc_constant_ast(t, e)) {
        cc_ir_expr *x = tc_expr(t, e);
        if (!x) return 0;
        if (x->kind == CC_X_INT && x->u.i > 0) return *v = x->u.i, 1;
    }
    char buf[128];
    const char *text = tc_hint_value_text(t, e, buf, sizeof buf);
    if (!text) return 0;
    return tc_err(t, CC_DIAG_TYPE, e->span, NULL, "%s slot_num must be a positive integer, got %s", api, text), 0;
}

/* One entry into *h. */
static int tc_hint(tc *t, const cc_expr *e, cc_ir_hint *h)
{
    const char *kind = e->kind == CC_E_CALL && e->u.call.fn->kind == CC_E_ATTR && e->u.call.fn->u.attr.value->kind == CC_E_NAME
                           ? tc_pl_attr(t, e->u.call.fn, NULL)
                           : NULL;
    int split = kind && !strcmp(kind, "split");
    if (!split && !(kind && !strcmp(kind, "cross_core_slot")))
        return tc_err(t, CC_DIAG_SYNTAX, e->span, NULL, "%s", tc_hints_shape), 0;
    const cc_expr *mode = split && e->u.call.nargs == 1 ? e->u.call.args[0] : NULL, *slot = NULL;
    const cc_keyword *slot_kw = NULL;
    if (e->u.call.nargs > (uint32_t)split)
        return tc_err(t, CC_DIAG_SYNTAX, e->span, NULL, "%s", tc_hints_shape), 0;
    for (uint32_t k = 0; k < e->u.call.nkws; k++) {
        const cc_keyword *kw = &e->u.call.kws[k];
        if (!strcmp(kw->name, "slot_num") && !slot) slot = kw->value, slot_kw = kw;
        else if (split && !strcmp(kw->name, "mode") && !mode) mode = kw->value;
        else return tc_err(t, CC_DIAG_SYNTAX, kw->name_span, NULL, "%s", tc_hints_shape), 0;
    }
    *h = (cc_ir_hint){.kind = split ? CC_HINT_SPLIT : CC_HINT_CROSS_CORE_SLOT};
    if (split) {
        int m = mode ? tc_enum_value(t, mode, "SplitMode") : -1;
        if (m < 0)
            return tc_err(t, CC_DIAG_SYNTAX, mode ? mode->span : e->span, NULL,
                          "pl.split() mode must be a pl.SplitMode member (NONE, UP_DOWN, LEFT_RIGHT)"), 0;
        h->mode = (uint8_t)m;
    } else if (!slot) {
        return tc_err(t, CC_DIAG_SYNTAX, e->span, NULL, "%s", tc_hints_shape), 0;
    }
    if (slot && !tc_slot_num(t, slot, split ? "pl.split" : "pl.cross_core_slot", &h->slot_num)) return 0;
    if (split && slot)
        cc_diag_add(t->d, CC_DIAG_WARNING, slot_kw->name_span, NULL,
                    "pl.split(slot_num=...) is deprecated; use pl.cross_core_slot(slot_num=...)");
    return 1;
}

int tc_hints(tc *t, const cc_expr *list, cc_ir_hints *out)
{
    const cc_expr *l = tc_module_constant_ast(t, list);
    if (l->kind != CC_E_LIST) return tc_err(t, CC_DIAG_SYNTAX, list->span, NULL, "%s", tc_hints_shape), 0;
    *out = (cc_ir_hints){.n = l->u.seq.n, .written = 1};
    if (out->n && !(out->v = base_arena_alloc(t->a, out->n * sizeof *out->v))) return tc_oom(t), 0;
    for (uint32_t k = 0; k < out->n; k++)
        if (!tc_hint(t, l->u.seq.items[k], &out->v[k])) return 0;
    return 1;
}
