/*
 * tc_loop.c - the type checker's for statements and explicit carries
 * (DSL-V2-SPEC §6; docs/dsl.md, "Loops and carries"): pl.range,
 * pl.parallel and pl.pipeline become one IR for loop each (the form kept for
 * the printer; they run alike), pl.unroll is expanded here (one copy of the
 * body per value, checked with the variable bound to that constant; no loop
 * is left), pl.while_ becomes a while loop on its pl.cond; init_values= and
 * pl.yield_ carry values through loops and out of if arms.
 *
 * Invariants:
 *  - A carried loop is three IR statements, each made by tc_assign from a
 *    statement written here (so every later stage sees v1's rebinding of
 *    names and needs nothing new): the CARRY_INIT assignment `c1, ... =
 *    v1, ...` right before the loop, the loop whose body ends with the
 *    YIELD assignment `c1, ... = e1, ...`, and the CARRY_OUT assignment
 *    `o1, ... = c1, ...` right after it (zero trips: the initial values).
 *    After it the carries are out of scope, the yield-bound names in scope.
 *  - A yield keeps each carry's kind, dtype and tile shape (the v1 merge
 *    text otherwise); an if whose arms yield binds the same count in both.
 *  - pl.unroll makes at most TC_UNROLL_MAX copies, each checked once: the
 *    work is linear in the copies.
 */
#include "compiler/tc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/names.h"

enum { TC_UNROLL_MAX = 4096 };

/* The for forms, in the order "for loops must iterate over ..." lists them. */
typedef enum tc_form { TC_RANGE, TC_PARALLEL, TC_PIPELINE, TC_UNROLL, TC_WHILE, TC_NFORMS } tc_form;
static const char *const tc_form_names[TC_NFORMS] = {"range", "parallel", "pipeline", "unroll", "while_"};
/* The keywords each form takes (the hint of its unknown-keyword text; NULL: none). */
static const char *const tc_form_keywords[TC_NFORMS] = {"init_values", "init_values", "init_values, stage", NULL, "init_values"};
static const uint8_t tc_ir_forms[TC_NFORMS] = {CC_LOOP_RANGE, CC_LOOP_PARALLEL, CC_LOOP_PIPELINE, 0, 0};

/* A for statement's iterable, checked. */
typedef struct tc_head {
    tc_form form;
    cc_ir_expr *b[3];     /* start, stop, step (not pl.unroll, pl.while_) */
    int64_t lo, step;     /* pl.unroll: the first value and the step ... */
    uint64_t count;       /* ... and how many copies */
    int64_t stage;        /* pl.pipeline */
    const cc_expr *inits; /* init_values='s tuple or list (NULL: none) */
} tc_head;

/* Is e a call of pl.<name>? */
static int tc_is_pl_call(tc *t, const cc_expr *e, const char *name)
{
    return e && e->kind == CC_E_CALL && e->u.call.fn->kind == CC_E_ATTR && e->u.call.fn->u.attr.value->kind == CC_E_NAME &&
           tc_pl_attr(t, e->u.call.fn, name) != NULL;
}

int tc_is_yield(tc *t, const cc_expr *v) { return tc_is_pl_call(t, v, "yield_"); }

static int tc_is_yield_stmt(tc *t, const cc_stmt *s) { return s && s->kind == CC_S_ASSIGN && tc_is_yield(t, s->u.assign.value); }

/* e folded to a compile-time constant integer (literals, module constants, arithmetic
 * on them): 1 into *v; 0 not one (nothing reported); -1 reported. */
static int tc_fold_int(tc *t, const cc_expr *e, int64_t *v)
{
    if (!tc_constant_ast(t, e)) return 0;
    cc_ir_expr *x = tc_expr(t, e);
    if (!x) return -1;
    if (x->kind != CC_X_INT) return 0;
    *v = x->u.i;
    return 1;
}

/* How many values start, start + step, ... lie before stop (step != 0). */
static uint64_t tc_trips(int64_t start, int64_t stop, int64_t step)
{
    if (step > 0 ? stop <= start : stop >= start) return 0;
    uint64_t span = step > 0 ? (uint64_t)stop - (uint64_t)start : (uint64_t)start - (uint64_t)stop;
    uint64_t by = step > 0 ? (uint64_t)step : -(uint64_t)step;
    return span / by + (span % by != 0);
}

/* The form and keywords of it; 0 when reported. */
static int tc_head_form(tc *t, const cc_expr *it, tc_head *h, const cc_expr **stage)
{
    const char *name = it->kind == CC_E_CALL ? tc_pl_attr(t, it->u.call.fn, NULL) : NULL;
    int bare = name && it->u.call.fn->u.attr.value->kind == CC_E_NAME;
    int f = 0;
    while (f < TC_NFORMS && !(bare && !strcmp(name, tc_form_names[f]))) f++;
    if (f == TC_NFORMS) {
        const cc_pl_name *n = bare ? cc_pl_name_find(name) : NULL;
        if (n && n->status != CC_PL_SUPPORTED && n->kind == CC_PLK_LOOP)
            return tc_pl_unsupported(t, it->span, n->status, n->reason, tc_pl_path(t, it->u.call.fn)), 0;
        return tc_err(t, CC_DIAG_SYNTAX, it->span, NULL,
                      "for loops must iterate over pl.range(...), pl.parallel(...), pl.pipeline(...), pl.unroll(...) or pl.while_(...)"),
               0;
    }
    h->form = (tc_form)f;
    for (uint32_t k = 0; k < it->u.call.nkws; k++) {
        const cc_keyword *kw = &it->u.call.kws[k];
        if (!strcmp(kw->name, "init_values")) {
            if (f == TC_UNROLL) return tc_err(t, CC_DIAG_SYNTAX, it->span, NULL, "pl.unroll() cannot be combined with init_values"), 0;
            if (kw->value->kind != CC_E_TUPLE && kw->value->kind != CC_E_LIST)
                return tc_err(t, CC_DIAG_SYNTAX, kw->value->span, NULL, "init_values must be a list or tuple"), 0;
            h->inits = kw->value;
        } else if (!strcmp(kw->name, "stage")) {
            if (f != TC_PIPELINE)
                return tc_err(t, CC_DIAG_SYNTAX, kw->name_span, NULL, "stage= is only supported on pl.pipeline(), not pl.%s()", name), 0;
            *stage = kw->value;
        } else {
            char hint[96];
            if (tc_form_keywords[f]) snprintf(hint, sizeof hint, "Supported keywords for pl.%s(): %s", name, tc_form_keywords[f]);
            return tc_err(t, CC_DIAG_SYNTAX, kw->name_span, tc_form_keywords[f] ? hint : NULL, "Unknown keyword argument '%s' in pl.%s()",
                          kw->name, name),
                   0;
        }
    }
    return 1;
}

/* pl.unroll's constant bounds and its copy count; 0 when reported. */
static int tc_head_unroll(tc *t, const cc_expr *it, tc_head *h)
{
    int64_t v[3] = {0, 0, 1};
    uint32_t n = it->u.call.nargs;
    for (uint32_t k = 0; k < n; k++) {
        int r = tc_fold_int(t, it->u.call.args[k], &v[n == 1 ? 1 : k]);
        if (r < 0) return 0;
        if (!r) return tc_err(t, CC_DIAG_SYNTAX, it->span, NULL, "pl.unroll() requires compile-time constant integer bounds"), 0;
    }
    if (!v[2]) return tc_err(t, CC_DIAG_SYNTAX, it->span, NULL, "pl.unroll() step cannot be zero"), 0;
    h->lo = v[0], h->step = v[2], h->count = tc_trips(v[0], v[1], v[2]);
    if (h->count > TC_UNROLL_MAX)
        return tc_err(t, CC_DIAG_UNSUPPORTED, it->span, NULL, "pl.unroll() would make %llu copies; at most %d are supported",
                      (unsigned long long)h->count, TC_UNROLL_MAX),
               0;
    return 1;
}

/* The iterable of a for statement; 0 when reported. */
static int tc_loop_head(tc *t, const cc_expr *it, tc_head *h)
{
    const cc_expr *stage = NULL;
    if (!tc_head_form(t, it, h, &stage)) return 0;
    const char *name = tc_form_names[h->form];
    uint32_t n = it->u.call.nargs;
    if (h->form == TC_WHILE) {
        if (n) return tc_err(t, CC_DIAG_SYNTAX, it->span, NULL, "pl.while_() takes no positional arguments, got %u", n), 0;
        if (!h->inits) return tc_err(t, CC_DIAG_SYNTAX, it->span, NULL, "while_() requires init_values to be specified"), 0;
        return 1;
    }
    if (h->form == TC_PIPELINE) {
        if (!stage) return tc_err(t, CC_DIAG_SYNTAX, it->span, NULL, "pl.pipeline() requires stage= (positive integer)"), 0;
        int r = tc_fold_int(t, stage, &h->stage);
        if (r < 0) return 0;
        if (!r) return tc_err(t, CC_DIAG_SYNTAX, it->span, NULL, "pl.pipeline() stage must be a compile-time constant integer"), 0;
        if (h->stage < 1) return tc_err(t, CC_DIAG_SYNTAX, it->span, NULL, "pl.pipeline() stage must be >= 1, got %lld", (long long)h->stage), 0;
    }
    if (n == 0) return tc_err(t, CC_DIAG_SYNTAX, it->span, NULL, "pl.%s() requires at least 1 argument (stop)", name), 0;
    if (n > 3) return tc_err(t, CC_DIAG_SYNTAX, it->span, NULL, "pl.%s() takes 1 to 3 positional arguments, got %u", name, n), 0;
    if (h->form == TC_UNROLL) return tc_head_unroll(t, it, h);
    cc_ir_expr *v[3] = {NULL, NULL, NULL};
    for (uint32_t k = 0; k < n; k++) {
        if (!(v[k] = tc_expr(t, it->u.call.args[k]))) return 0;
        if (v[k]->type.kind != CC_T_SCALAR || cc_dtype_is_float(v[k]->type.dtype) || v[k]->type.dtype == CC_DT_TASK_ID)
            return tc_err(t, CC_DIAG_TYPE, v[k]->span, NULL, "pl.%s() bounds must be integer scalars", name), 0;
    }
    h->b[0] = n > 1 ? v[0] : cc_ir_int(t->a, 0, it->span);
    h->b[1] = n > 1 ? v[1] : v[0];
    h->b[2] = n > 2 ? v[2] : cc_ir_int(t->a, 1, it->span);
    int64_t step;
    if (!h->b[0] || !h->b[2]) return tc_oom(t), 0;
    if (cc_ir_const_int(h->b[2], &step) && step == 0)
        return tc_err(t, CC_DIAG_SYNTAX, v[2]->span, NULL, "pl.%s() step must be non-zero", name), 0;
    return 1;
}

/* The carry names of s's target (`i, (c1, ...)`; pl.while_: `(c1, ...)`) into
 * *carries (NULL: an uncarried `for i`), matched with the init values; 0 when reported. */
static int tc_target(tc *t, const cc_stmt *s, const tc_head *h, const cc_expr **carries)
{
    const cc_expr *tg = s->u.for_.target, *iter = tg;
    uint32_t m = h->inits ? h->inits->u.seq.n : 0;
    *carries = NULL;
    if (h->form == TC_WHILE) {
        if (!tg || tg->kind != CC_E_TUPLE)
            return tc_err(t, CC_DIAG_SYNTAX, tg ? tg->span : s->u.for_.var_span, NULL, "Iter args must be a tuple"), 0;
    } else {
        if (!tg) {
            if (!h->inits) return 1;
            return tc_err(t, CC_DIAG_SYNTAX, s->u.for_.var_span, "Use: for i, (var1,) in pl.range(n, init_values=(val1,))",
                          "For loop target must be a tuple when init_values is provided"),
                   0;
        }
        if (tg->kind != CC_E_TUPLE || tg->u.seq.n != 2 || tg->u.seq.items[0]->kind != CC_E_NAME)
            return tc_err(t, CC_DIAG_SYNTAX, tg->span, "Use: for i in pl.range(n) or for i, (var1,) in pl.range(n, init_values=(val1,))",
                          "For loop target must be a simple name or: (loop_var, (iter_args...))"),
                   0;
        iter = tg->u.seq.items[1];
        if (iter->kind != CC_E_TUPLE) return tc_err(t, CC_DIAG_SYNTAX, iter->span, NULL, "Iter args must be a tuple"), 0;
    }
    if (iter->u.seq.n != m)
        return tc_err(t, CC_DIAG_SYNTAX, iter->span, NULL, "Mismatch: %u iter_args but %u init_values", iter->u.seq.n, m), 0;
    for (uint32_t k = 0; k < m; k++)
        if (iter->u.seq.items[k]->kind != CC_E_NAME)
            return tc_err(t, CC_DIAG_SYNTAX, iter->u.seq.items[k]->span, NULL, "Iter arg must be a simple name"), 0;
    *carries = m ? iter : NULL;
    return 1;
}

/* The statement ending b, through a sole `with pl.scope()` (as the scopes pass wraps a
 * loop body or an if arm), or NULL when b is empty. */
static const cc_stmt *tc_body_end(tc *t, const cc_block *b)
{
    const cc_stmt *s = b->n ? b->items[b->n - 1] : NULL;
    while (s && b->n == 1 && s->kind == CC_S_WITH && s->u.with.body.n) {
        const char *kind = tc_with_kind(t, s);
        if (!kind || strcmp(kind, "scope")) break;
        b = &s->u.with.body;
        s = b->items[b->n - 1];
    }
    return s;
}

/* `targets = values` (n values: one, or a tuple of them) as a statement in the arena. */
static const cc_stmt *tc_synth_assign(tc *t, cc_expr **targets, cc_expr *const *values, uint32_t n, const cc_expr *ann, cc_span sp)
{
    cc_stmt *s = base_arena_alloc(t->a, sizeof *s);
    cc_expr *tuple = n == 1 ? NULL : base_arena_alloc(t->a, sizeof *tuple);
    if (!s || (n != 1 && !tuple)) return tc_oom(t);
    memset(s, 0, sizeof *s);
    s->kind = CC_S_ASSIGN, s->span = sp;
    if (tuple) {
        memset(tuple, 0, sizeof *tuple);
        tuple->kind = CC_E_TUPLE, tuple->span = sp;
        tuple->u.seq.items = (cc_expr **)values, tuple->u.seq.n = n;
    }
    s->u.assign.targets = targets, s->u.assign.ntargets = n;
    s->u.assign.value = tuple ? tuple : values[0];
    s->u.assign.annotation = (cc_expr *)ann;
    return s;
}

/* The assignment s checked, marked role; NULL when reported. */
static cc_ir_stmt *tc_role_assign(tc *t, const cc_stmt *s, cc_ir_carry_role role)
{
    cc_ir_stmt *st = s ? tc_assign(t, s) : NULL;
    if (st) st->u.assign.role = (uint8_t)role;
    return st;
}

cc_ir_stmt *tc_yield(tc *t, const cc_stmt *s)
{
    const cc_expr *call = s->u.assign.value;
    const tc_yield_site *y = t->c.yield;
    uint32_t n = call->u.call.nargs, nt = s->u.assign.ntargets;
    if (!y || y->last != s)
        return tc_err(t, CC_DIAG_SYNTAX, call->span, NULL, "pl.yield_(...) must end a loop with init_values or an if/else branch");
    if (call->u.call.nkws)
        return tc_err(t, CC_DIAG_SYNTAX, call->u.call.kws[0].name_span, NULL, "Unknown keyword argument '%s' in pl.yield_()",
                      call->u.call.kws[0].name);
    if (!y->phi && n != y->n)
        return tc_err(t, CC_DIAG_SYNTAX, call->span, NULL, "pl.yield_ yields %u value(s) but the loop carries %u", n, y->n);
    if (nt != n) return tc_err(t, CC_DIAG_SYNTAX, s->span, NULL, "cannot unpack %u value(s) into %u name(s)", n, nt);
    for (uint32_t k = 0; k < nt; k++)
        if (s->u.assign.targets[k]->kind != CC_E_NAME)
            return tc_err(t, CC_DIAG_UNSUPPORTED, s->u.assign.targets[k]->span, NULL, "this assignment target is not supported in this version");
    cc_expr **targets = y->phi ? s->u.assign.targets : y->carries->u.seq.items;
    cc_type *old = y->phi ? NULL : base_arena_alloc(t->a, n * sizeof *old);
    if (!y->phi && !old) return tc_oom(t);
    for (uint32_t k = 0; old && k < n; k++) old[k] = tc_lookup(&t->c.env, targets[k]->u.name)->type;
    cc_ir_stmt *st = tc_role_assign(t, tc_synth_assign(t, targets, call->u.call.args, n, s->u.assign.annotation, s->span),
                                    y->phi ? CC_CARRY_PHI : CC_CARRY_YIELD);
    for (uint32_t k = 0; st && old && k < n; k++) {
        const tc_bind *now = tc_lookup(&t->c.env, targets[k]->u.name);
        if (!tc_merge_compatible(&old[k], &now->type))
            return tc_merge_conflict(t, now->name, &old[k], &now->type, call->u.call.args[k]->span, NULL), NULL;
    }
    return st;
}

/* ---- if arms that yield (a phi) -------------------------------------------------------- */

/* How many values the arm ending with s yields (an elif: its if's), or -1: none. */
static int tc_arm_yields(tc *t, const cc_stmt *s, const cc_block *arm)
{
    if (tc_is_yield_stmt(t, s)) return (int)s->u.assign.value->u.call.nargs;
    if (s && s->kind == CC_S_IF && arm->n == 1) return tc_arm_yields(t, tc_body_end(t, &s->u.if_.then), &s->u.if_.then);
    return -1;
}

int tc_phi_arms(tc *t, const cc_stmt *s, tc_yield_site *then, tc_yield_site *orelse)
{
    const cc_stmt *a = tc_body_end(t, &s->u.if_.then), *b = tc_body_end(t, &s->u.if_.orelse);
    int na = tc_is_yield_stmt(t, a) ? (int)a->u.assign.value->u.call.nargs : -1, nb = tc_arm_yields(t, b, &s->u.if_.orelse);
    if (na < 0 && nb < 0) return 1;
    if (na >= 0 && !s->u.if_.orelse.n) return tc_err(t, CC_DIAG_SYNTAX, s->span, NULL, "an if that yields needs an else branch"), 0;
    if (na != nb)
        return tc_err(t, CC_DIAG_SYNTAX, nb >= 0 ? b->span : a->span, NULL, "both branches of an if must yield the same number of values (%d vs %d)",
                      na < 0 ? 0 : na, nb < 0 ? 0 : nb),
               0;
    then->last = a;
    orelse->last = tc_is_yield_stmt(t, b) ? b : NULL; /* an elif yields in its own arms */
    return 1;
}

int tc_phi_merged(tc *t, const tc_yield_site *then, const tc_yield_site *orelse)
{
    const cc_stmt *a = then->last;
    for (uint32_t k = 0; a && k < a->u.assign.ntargets; k++) {
        const tc_bind *b = tc_lookup(&t->c.env, a->u.assign.targets[k]->u.name);
        if (b && b->conflict)
            return tc_merge_conflict(t, b->name, &b->from, &b->type, orelse->last ? orelse->last->span : b->span, NULL);
    }
    return 1;
}

/* ---- pl.unroll -------------------------------------------------------------------------- */

/* `var = v` opening a copy whose body assigns var (where it stops standing for the constant). */
static cc_ir_stmt *tc_unroll_bind(tc *t, const char *var, cc_ir_expr *v)
{
    cc_ir_stmt *st = tc_stmt_new(t, CC_I_ASSIGN, v->span);
    if (!st || !(st->u.assign.targets = base_arena_alloc(t->a, sizeof *st->u.assign.targets))) return st ? tc_oom(t) : NULL;
    st->u.assign.targets[0] = (cc_ir_target){var, v->type, v->span};
    st->u.assign.ntargets = 1, st->u.assign.value = v;
    return st;
}

/* Every copy of s's body, in order, into t->c.post; tc_spliced, or NULL when reported. */
static cc_ir_stmt *tc_unroll(tc *t, const cc_stmt *s, const tc_head *h)
{
    const char *var = s->u.for_.var;
    int had = tc_lookup(&t->c.env, var) != NULL, ok = 1;
    base_strmap assigned = {0};
    tc_scan(t, &s->u.for_.body, &assigned);
    int rebinds = base_strmap_get(&assigned, var) >= 0; /* the body assigns the variable: each copy binds it first */
    base_strmap_free(&assigned);
    cc_ir_stmt **items = NULL;
    uint64_t n = 0, cap = 0;
    int64_t value = h->lo;
    if (t->c.nunrolled == sizeof t->c.unrolled / sizeof t->c.unrolled[0])
        return tc_err(t, CC_DIAG_UNSUPPORTED, s->span, NULL, "pl.unroll() nested more than %u deep is not supported in this version",
                      t->c.nunrolled);
    t->c.unrolled[t->c.nunrolled++] = var;
    for (uint64_t k = 0; ok && k < h->count; k++, value = (int64_t)((uint64_t)value + (uint64_t)h->step)) {
        cc_ir_expr *v = cc_ir_int(t->a, value, s->u.for_.var_span);
        cc_ir_block copy;
        cc_ir_stmt *bind = v && rebinds ? tc_unroll_bind(t, var, v) : NULL;
        ok = v && (!rebinds || bind) && tc_bind_value(t, var, v->type, v, s->u.for_.var_span) &&
             tc_block(t, &s->u.for_.body, &copy, 0, TC_BLOCK_PLAIN);
        if (!v) tc_oom(t);
        if (ok && n + copy.n + 1 > cap) {
            cap = 2 * cap + copy.n + 1;
            cc_ir_stmt **g = realloc(items, cap * sizeof *items);
            if (!g) ok = 0, tc_oom(t);
            else items = g;
        }
        if (ok && bind) items[n++] = bind;
        for (uint32_t j = 0; ok && j < copy.n; j++) items[n++] = copy.items[j];
    }
    t->c.nunrolled--;
    if (ok && !had) ok = tc_unbind(t, var); /* not defined after the loop */
    if (!ok || n > UINT32_MAX) return free(items), ok ? tc_oom(t) : NULL;
    t->c.post = items, t->c.npost = (uint32_t)n;
    return &tc_spliced;
}

/* ---- pl.while_ ------------------------------------------------------------------------- */

/* The condition of the pl.cond(<expr>) that opens a pl.while_ body; *rest the statements after it. */
static const cc_expr *tc_while_cond(tc *t, const cc_stmt *s, cc_block *rest)
{
    const cc_block *b = &s->u.for_.body;
    if (!b->n || b->items[0]->kind != CC_S_EXPR || !tc_is_pl_call(t, b->items[0]->u.expr, "cond")) {
        cc_span at = s->span;
        for (uint32_t k = 0; k < b->n; k++)
            if (b->items[k]->kind == CC_S_EXPR && tc_is_pl_call(t, b->items[k]->u.expr, "cond")) {
                at = b->items[k]->span;
                break;
            }
        return tc_err(t, CC_DIAG_SYNTAX, at, NULL, "pl.cond() must be the first statement of a pl.while_ body");
    }
    const cc_expr *call = b->items[0]->u.expr;
    if (call->u.call.nargs != 1 || call->u.call.nkws)
        return tc_err(t, CC_DIAG_SYNTAX, call->span, NULL, "pl.cond() takes exactly 1 argument (the condition)");
    rest->items = b->items + 1, rest->n = b->n - 1;
    return call->u.call.args[0];
}

/* ---- the for statement ------------------------------------------------------------------- */

cc_ir_stmt *tc_for(tc *t, const cc_stmt *s)
{
    tc_head h = {0};
    const cc_expr *carries;
    if (!tc_loop_head(t, s->u.for_.iter, &h) || !tc_target(t, s, &h, &carries)) return NULL;
    if (h.form == TC_UNROLL) return tc_unroll(t, s, &h);
    int is_while = h.form == TC_WHILE;
    cc_block body = s->u.for_.body;
    const cc_expr *cond = is_while ? tc_while_cond(t, s, &body) : NULL;
    if (is_while && !cond) return NULL;
    const cc_stmt *yield = carries ? tc_body_end(t, &body) : NULL;
    if (carries && !tc_is_yield_stmt(t, yield))
        return tc_err(t, CC_DIAG_SYNTAX, yield ? yield->span : s->span, NULL, "a loop with init_values must end with pl.yield_(...)");
    uint32_t m = carries ? carries->u.seq.n : 0;
    cc_ir_stmt *init = carries ? tc_role_assign(t, tc_synth_assign(t, carries->u.seq.items, h.inits->u.seq.items, m, NULL, h.inits->span),
                                                CC_CARRY_INIT)
                               : NULL;
    if (carries && !init) return NULL;
    const char *var = is_while ? NULL : s->u.for_.var;
    int had = var && tc_lookup(&t->c.env, var) != NULL;
    cc_ir_stmt *st = tc_stmt_new(t, is_while ? CC_I_WHILE : CC_I_FOR, s->span);
    if (!st || !tc_loop_forgets_values(t, &s->u.for_.body)) return NULL;
    cc_ir_expr *c = cond ? tc_expr(t, cond) : NULL;
    if (cond && (!c || !tc_scalar_cond(t, c, "while condition"))) return NULL;
    tc_yield_site site = {.up = t->c.yield, .last = yield, .carries = carries, .n = m};
    if (carries) t->c.yield = &site;
    int ok = tc_loop_body(t, &body, var, s->u.for_.var_span, cond, is_while ? &st->u.while_.body : &st->u.for_.body);
    t->c.yield = site.up;
    if (!ok) return NULL;
    if (is_while) {
        st->u.while_.cond = c, st->u.while_.carried = 1;
    } else {
        st->u.for_.var = var, st->u.for_.var_span = s->u.for_.var_span;
        st->u.for_.start = h.b[0], st->u.for_.stop = h.b[1], st->u.for_.step = h.b[2];
        st->u.for_.form = tc_ir_forms[h.form], st->u.for_.stage = h.stage, st->u.for_.carried = carries != NULL;
        if (!had && !tc_unbind(t, var)) return NULL; /* not defined after the loop */
    }
    if (!carries) return st;
    if (!tc_prelude_add(t, init)) return NULL; /* queued now: the body's blocks take the preludes queued before them */
    /* the yield-bound names take the carries' values; the carries go out of scope */
    cc_ir_stmt *out = tc_role_assign(t, tc_synth_assign(t, yield->u.assign.targets, carries->u.seq.items, m, NULL, s->span), CC_CARRY_OUT);
    if (!out || !(t->c.post = malloc(sizeof *t->c.post))) return out ? tc_oom(t) : NULL;
    t->c.post[0] = out, t->c.npost = 1;
    for (uint32_t k = 0; k < m; k++) {
        const char *c_k = carries->u.seq.items[k]->u.name;
        int bound = 0;
        for (uint32_t j = 0; j < m; j++) bound |= !strcmp(yield->u.assign.targets[j]->u.name, c_k);
        if (!bound && !tc_unbind(t, c_k)) return NULL;
    }
    return st;
}
