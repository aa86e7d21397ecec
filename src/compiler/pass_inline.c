/*
 * pass_inline.c - stage 1, InlineFunctions (docs/compiler.md, "Inlining"): every call
 * of an Inline function is replaced by a copy of the callee's body, then the
 * Inline functions leave the program and the spliced code's plane is
 * checked against the caller's (docs/dsl.md, "Decorators and function
 * kinds").
 *
 * A call is spliced only in statement form (`x = g(..)`, `a, b = g(..)`,
 * `g(..)`); one nested inside another expression is rejected.  At a call:
 *  - every callee local, and every parameter that is not substituted, that
 *    clashes with a name of the caller is renamed `<n>_<g>` (then
 *    `<n>_<g>_2`, `_3`, ...), so spliced code never touches a caller name;
 *  - a parameter the callee never reassigns whose argument is a variable or
 *    a constant is substituted; any other gets `p = arg` before the body
 *    (tensors by reference, scalars and tiles by value);
 *  - the callee's final `return e..` (possibly inside trailing scopes)
 *    becomes `targets = e..` at its place; in the `g(..)` form values with
 *    an effect (calls, pl.store) stay as expression statements;
 *  - the callee's scopes keep their mode and gain inlined_from/inlined_at
 *    (the first inlining wins, for V2's message).
 * Spliced statements are walked again, so inline calls inside inline
 * functions are spliced too (stage 0 rejected recursion).
 */
#include <stdio.h>
#include <string.h>

#include "base/array.h"
#include "base/strmap.h"
#include "compiler/ir_walk.h"
#include "compiler/passes.h"

/* ---- statement lists and name sets (heap arrays, freed by their owner) ------------- */

typedef struct inl_list {
    cc_ir_stmt **items;
    uint32_t n;
    uint64_t cap;
} inl_list;

typedef struct inl_names {
    const char **items;
    uint32_t n;
    uint64_t cap;
    base_strmap index; /* the items, for lookups in constant time */
} inl_names;

static void inl_names_free(inl_names *s)
{
    free(s->items);
    base_strmap_free(&s->index);
    *s = (inl_names){0};
}

/* One callee name at one call site: renamed to `name`, or (a substituted
 * parameter) replaced by a copy of `value`. */
typedef struct inl_bind {
    const char *from, *name;
    const cc_ir_expr *value;
} inl_bind;

typedef struct inl_ctx {
    cc_ir_program *p;
    base_arena *a;
    cc_ir_func *f;    /* the caller being rewritten */
    inl_names names;  /* every name f uses, spliced ones included */
    int failed;       /* a diagnostic was recorded */
} inl_ctx;

/* One call being spliced. */
typedef struct inl_site {
    cc_ir_func *g;
    cc_span at;                   /* the call */
    const cc_ir_stmt *stmt;       /* the ASSIGN or EXPR holding it */
    inl_bind *binds;
    uint32_t nbinds;
    inl_names callee;             /* the callee's own names */
} inl_site;

static void inl_oom(inl_ctx *x, cc_span sp)
{
    if (!x->failed) cc_diag_oom(x->p->diags, sp, "out of memory while inlining");
    x->failed = 1;
}

static void inl_push(inl_ctx *x, inl_list *l, cc_ir_stmt *s)
{
    if (!s) return inl_oom(x, x->f->span);
    if (l->n == l->cap) {
        cc_ir_stmt **q = base_array_grow(l->items, &l->cap, sizeof *q, 8);
        if (!q) return inl_oom(x, s->span);
        l->items = q;
    }
    l->items[l->n++] = s;
}

static int inl_has(const inl_names *s, const char *name) { return base_strmap_get(&s->index, name) >= 0; }

static void inl_add(inl_ctx *x, inl_names *s, const char *name)
{
    if (!name || inl_has(s, name)) return;
    if (s->n == s->cap) {
        const char **q = base_array_grow(s->items, &s->cap, sizeof *q, 16);
        if (!q) return inl_oom(x, x->f->span);
        s->items = q;
    }
    if (base_strmap_put(&s->index, name, s->n) != 0) return inl_oom(x, x->f->span);
    s->items[s->n++] = name;
}

/* ---- collecting names --------------------------------------------------------------- */

/* A name walk: into names, of x. */
typedef struct inl_collect {
    inl_ctx *x;
    inl_names *names;
    int uses;
} inl_collect;

static int inl_var_name(cc_ir_expr *e, void *ctx)
{
    inl_collect *c = ctx;
    if (e->kind == CC_X_VAR) inl_add(c->x, c->names, e->u.name);
    return 0;
}

static int inl_stmt_names(cc_ir_stmt *st, void *ctx)
{
    inl_collect *c = ctx;
    for (uint32_t k = 0; st->kind == CC_I_ASSIGN && k < st->u.assign.ntargets; k++) inl_add(c->x, c->names, st->u.assign.targets[k].name);
    if (st->kind == CC_I_FOR) inl_add(c->x, c->names, st->u.for_.var);
    if (st->kind == CC_I_AT) inl_add(c->x, c->names, st->u.at.as_name);
    if (c->uses) cc_ir_stmt_walk_exprs(st, inl_var_name, c);
    return 0;
}

/* The names a block binds (targets, loop variables, `as` names); with
 * uses, also every name it reads. */
static void inl_block_names(inl_ctx *x, inl_names *s, const cc_ir_block *b, int uses)
{
    inl_collect c = {x, s, uses};
    cc_ir_block_each_stmt(b, inl_stmt_names, &c);
}

/* ---- binding the callee's names at a call ------------------------------------------- */

static const inl_bind *inl_lookup(const inl_site *t, const char *name)
{
    for (uint32_t k = 0; k < t->nbinds; k++)
        if (!strcmp(t->binds[k].from, name)) return &t->binds[k];
    return NULL;
}

/* name itself when the caller does not use it, else the first of
 * name_g, name_g_2, ... used neither by the caller nor by the callee. */
static const char *inl_fresh(inl_ctx *x, const inl_site *t, const char *name)
{
    if (!inl_has(&x->names, name)) return name;
    char buf[256];
    for (unsigned n = 1;; n++) {
        if (n == 1) snprintf(buf, sizeof buf, "%s_%s", name, t->g->name);
        else snprintf(buf, sizeof buf, "%s_%s_%u", name, t->g->name, n);
        if (!inl_has(&x->names, buf) && !inl_has(&t->callee, buf)) break;
    }
    const char *s = base_arena_strndup(x->a, buf, strlen(buf));
    if (!s) inl_oom(x, t->at);
    return s;
}

static int inl_is_simple(const cc_ir_expr *e)
{
    return e->kind == CC_X_VAR || e->kind == CC_X_INT || e->kind == CC_X_FLOAT || e->kind == CC_X_BOOL;
}

static cc_ir_stmt *inl_assign1(inl_ctx *x, const char *name, cc_type type, cc_span tsp, cc_ir_expr *value, cc_span sp)
{
    cc_ir_stmt *s = cc_ir_stmt_new(x->a, CC_I_ASSIGN, sp);
    cc_ir_target *t = base_arena_alloc(x->a, sizeof *t);
    if (!s || !t || !value) return NULL;
    *t = (cc_ir_target){.name = name, .type = type, .span = tsp};
    s->u.assign.targets = t, s->u.assign.ntargets = 1, s->u.assign.value = value;
    return s;
}

/* Binds every callee name (parameters first) and emits the `p = arg`
 * assignments of the parameters that are not substituted. */
static void inl_bind_names(inl_ctx *x, inl_site *t, const cc_ir_expr *call, inl_list *out)
{
    cc_ir_func *g = t->g;
    inl_names locals = {0};
    inl_block_names(x, &locals, &g->body, 0);
    for (uint32_t k = 0; k < g->nparams; k++) inl_add(x, &t->callee, g->params[k].name);
    for (uint32_t k = 0; k < locals.n; k++) inl_add(x, &t->callee, locals.items[k]);
    t->binds = base_arena_alloc(x->a, (t->callee.n + 1) * sizeof *t->binds);
    if (!t->binds) inl_oom(x, t->at);
    for (uint32_t k = 0; k < t->callee.n && !x->failed; k++) {
        inl_bind *b = &t->binds[t->nbinds++];
        b->from = t->callee.items[k];
        cc_ir_expr *arg = k < g->nparams ? call->u.call.args[k] : NULL;
        if (arg && inl_is_simple(arg) && !inl_has(&locals, b->from)) {
            b->value = arg;
            continue;
        }
        b->name = inl_fresh(x, t, b->from);
        inl_add(x, &x->names, b->name);
        if (arg) {
            const cc_ir_param *pm = &g->params[k];
            inl_push(x, out, inl_assign1(x, b->name, pm->type, pm->span, arg, arg->span));
        }
    }
    inl_names_free(&locals);
}

/* The name a callee target or loop variable becomes. */
static const char *inl_rename(const inl_site *t, const char *name)
{
    const inl_bind *b = name ? inl_lookup(t, name) : NULL;
    if (!b) return name;
    return b->value ? b->value->u.name : b->name;
}

/* ---- copying the callee's body -------------------------------------------------------- */

static cc_ir_expr *inl_expr(inl_ctx *x, const inl_site *t, const cc_ir_expr *e);

static cc_ir_expr **inl_exprs(inl_ctx *x, const inl_site *t, cc_ir_expr *const *es, uint32_t n)
{
    if (!n) return NULL;
    cc_ir_expr **out = base_arena_alloc(x->a, n * sizeof *out);
    if (!out) return inl_oom(x, t->at), NULL;
    for (uint32_t k = 0; k < n; k++) out[k] = inl_expr(x, t, es[k]);
    return out;
}

/* A copy of callee expression e with its names bound; constants fold
 * where substitution made them.  NULL stays NULL. */
static cc_ir_expr *inl_expr(inl_ctx *x, const inl_site *t, const cc_ir_expr *e)
{
    if (!e || x->failed) return NULL;
    const inl_bind *b = e->kind == CC_X_VAR ? inl_lookup(t, e->u.name) : NULL;
    cc_ir_expr *c = b && b->value ? cc_ir_expr_clone(x->a, b->value) : base_arena_alloc(x->a, sizeof *c);
    if (!c) return inl_oom(x, e->span), NULL;
    if (b && b->value) {
        c->span = e->span;
        return c;
    }
    *c = *e;
    switch (e->kind) {
    case CC_X_VAR:
        if (b) c->u.name = b->name;
        return c;
    case CC_X_BINARY:
        c->u.bin.l = inl_expr(x, t, e->u.bin.l), c->u.bin.r = inl_expr(x, t, e->u.bin.r);
        return cc_ir_fold(x->a, c);
    case CC_X_UNARY: c->u.un.x = inl_expr(x, t, e->u.un.x); return cc_ir_fold(x->a, c);
    case CC_X_LIST: case CC_X_ARRAY: c->u.list.items = inl_exprs(x, t, e->u.list.items, e->u.list.n); return c;
    case CC_X_OP: c->u.op.args = inl_exprs(x, t, e->u.op.args, cc_ir_op_nslots(e->u.op.op)); return c;
    case CC_X_CALL:
        c->u.call.args = inl_exprs(x, t, e->u.call.args, e->u.call.nargs);
        c->u.call.deps = inl_exprs(x, t, e->u.call.deps, e->u.call.ndeps);
        if (e->u.call.blocks) c->u.call.blocks = inl_expr(x, t, e->u.call.blocks);
        if (e->u.call.pred) c->u.call.pred = inl_expr(x, t, e->u.call.pred);
        if (e->u.call.device) c->u.call.device = inl_expr(x, t, e->u.call.device);
        c->u.call.boxes = NULL;
        return c;
    default: return c;
    }
}

static void inl_stmt(inl_ctx *x, const inl_site *t, const cc_ir_stmt *s, inl_list *out);

static void inl_block(inl_ctx *x, const inl_site *t, const cc_ir_block *b, cc_ir_block *out)
{
    inl_list l = {0};
    for (uint32_t i = 0; i < b->n && !x->failed; i++) inl_stmt(x, t, b->items[i], &l);
    if (!x->failed && !cc_ir_block_make(x->a, out, l.items, l.n)) inl_oom(x, t->at);
    free(l.items);
}

static int inl_has_effect(const cc_ir_expr *e)
{
    cc_dir dir;
    return e->kind == CC_X_CALL || (cc_ir_tensor_access(e, &dir) && (dir & CC_DIR_OUT));
}

/* The callee's return at the call: assignments to the call's targets (one
 * per value; through temporaries when a value reads a target assigned
 * before it), or the values with an effect in the `g(..)` form. */
static void inl_return(inl_ctx *x, const inl_site *t, const cc_ir_stmt *s, inl_list *out)
{
    uint32_t n = s->u.ret.n;
    cc_ir_expr **v = inl_exprs(x, t, s->u.ret.values, n);
    const cc_ir_stmt *call = t->stmt;
    if (x->failed || !n) return;
    if (call->kind == CC_I_EXPR) {
        for (uint32_t k = 0; k < n; k++) {
            cc_ir_stmt *e = inl_has_effect(v[k]) ? cc_ir_stmt_new(x->a, CC_I_EXPR, s->span) : NULL;
            if (e) e->u.expr = v[k], inl_push(x, out, e);
        }
        return;
    }
    const cc_ir_target *tg = call->u.assign.targets;
    uint32_t nt = call->u.assign.ntargets;
    if (n != nt) {
        cc_ir_stmt *a = cc_ir_stmt_new(x->a, CC_I_ASSIGN, call->span);
        if (a) a->u.assign = call->u.assign, a->u.assign.value = v[0];
        return inl_push(x, out, a);
    }
    int hazard = 0;
    for (uint32_t k = 1; k < n; k++)
        for (uint32_t j = 0; j < k; j++) hazard |= cc_ir_expr_uses(v[k], tg[j].name);
    for (uint32_t k = 0; hazard && k < n; k++) {
        const char *tmp = inl_fresh(x, t, tg[k].name);
        inl_add(x, &x->names, tmp);
        inl_push(x, out, inl_assign1(x, tmp, v[k]->type, tg[k].span, v[k], s->span));
        v[k] = cc_ir_var(x->a, tmp, v[k]->type, s->span);
    }
    for (uint32_t k = 0; k < n; k++) inl_push(x, out, inl_assign1(x, tg[k].name, tg[k].type, tg[k].span, v[k], call->span));
}

/* Appends the copy of callee statement s to out. */
static void inl_stmt(inl_ctx *x, const inl_site *t, const cc_ir_stmt *s, inl_list *out)
{
    if (s->kind == CC_I_RETURN) return inl_return(x, t, s, out);
    cc_ir_stmt *c = base_arena_alloc(x->a, sizeof *c);
    if (!c) return inl_oom(x, s->span);
    *c = *s;
    switch (s->kind) {
    case CC_I_ASSIGN: {
        uint32_t n = s->u.assign.ntargets;
        cc_ir_target *tg = base_arena_alloc(x->a, n * sizeof *tg);
        if (!tg) return inl_oom(x, s->span);
        for (uint32_t k = 0; k < n; k++) tg[k] = s->u.assign.targets[k], tg[k].name = inl_rename(t, tg[k].name);
        c->u.assign.targets = tg;
        c->u.assign.value = inl_expr(x, t, s->u.assign.value);
        break;
    }
    case CC_I_EXPR: c->u.expr = inl_expr(x, t, s->u.expr); break;
    case CC_I_FOR:
        c->u.for_.var = inl_rename(t, s->u.for_.var);
        c->u.for_.start = inl_expr(x, t, s->u.for_.start);
        c->u.for_.stop = inl_expr(x, t, s->u.for_.stop);
        c->u.for_.step = inl_expr(x, t, s->u.for_.step);
        inl_block(x, t, &s->u.for_.body, &c->u.for_.body);
        break;
    case CC_I_WHILE:
        c->u.while_.cond = inl_expr(x, t, s->u.while_.cond);
        inl_block(x, t, &s->u.while_.body, &c->u.while_.body);
        break;
    case CC_I_IF:
        c->u.if_.cond = inl_expr(x, t, s->u.if_.cond);
        inl_block(x, t, &s->u.if_.then, &c->u.if_.then);
        inl_block(x, t, &s->u.if_.orelse, &c->u.if_.orelse);
        break;
    case CC_I_SCOPE:
        if (!s->u.scope.inlined_from) c->u.scope.inlined_from = t->g->name, c->u.scope.inlined_at = t->at;
        inl_block(x, t, &s->u.scope.body, &c->u.scope.body);
        break;
    case CC_I_AT: {
        c->u.at.as_name = inl_rename(t, s->u.at.as_name);
        c->u.at.deps = inl_exprs(x, t, s->u.at.deps, s->u.at.ndeps);
        if (s->u.at.blocks) c->u.at.blocks = inl_expr(x, t, s->u.at.blocks);
        uint32_t n = s->u.at.ndecls;
        c->u.at.decls = n ? base_arena_alloc(x->a, n * sizeof *c->u.at.decls) : NULL;
        if (n && !c->u.at.decls) return inl_oom(x, s->span);
        for (uint32_t k = 0; k < n; k++) c->u.at.decls[k] = s->u.at.decls[k], c->u.at.decls[k].tensor = inl_rename(t, s->u.at.decls[k].tensor);
        n = s->u.at.nnodep; /* no_dep_args= names the callee's tensors too */
        c->u.at.nodep = n ? base_arena_alloc(x->a, n * sizeof *c->u.at.nodep) : NULL;
        if (n && !c->u.at.nodep) return inl_oom(x, s->span);
        for (uint32_t k = 0; k < n; k++) c->u.at.nodep[k] = inl_rename(t, s->u.at.nodep[k]);
        inl_block(x, t, &s->u.at.body, &c->u.at.body);
        break;
    }
    default: break;
    }
    inl_push(x, out, c);
}

/* ---- walking the caller ---------------------------------------------------------------- */

static int inl_is_inline_call(const cc_ir_expr *e)
{
    return e && e->kind == CC_X_CALL && !cc_ir_is_dummy(e) && e->u.call.callee->kind == CC_FUNC_INLINE;
}

static int inl_find_visit(cc_ir_expr *e, void *ctx)
{
    if (!inl_is_inline_call(e)) return 0;
    *(const cc_ir_expr **)ctx = e;
    return 1;
}

/* The first Inline call in e, or NULL. */
static const cc_ir_expr *inl_find_call(const cc_ir_expr *e)
{
    const cc_ir_expr *found = NULL;
    cc_ir_expr_walk(e, inl_find_visit, &found);
    return found;
}

/* Rejects an Inline call anywhere in es (a while condition: evaluated at
 * every iteration, so there is no single place to splice it). */
static void inl_no_nested(inl_ctx *x, cc_ir_expr *const *es, uint32_t n)
{
    for (uint32_t k = 0; k < n && !x->failed; k++) {
        const cc_ir_expr *c = inl_find_call(es[k]);
        if (!c) continue;
        cc_diag_add(x->p->diags, CC_DIAG_UNSUPPORTED, c->span, NULL,
                    "an inline call in a while condition is not supported in this version; assign its result first");
        x->failed = 1;
    }
}

static void inl_walk_stmt(inl_ctx *x, cc_ir_stmt *s, inl_list *out);

/* A fresh caller name for the value of an Inline call of g. */
static const char *inl_temp(inl_ctx *x, const cc_ir_func *g, cc_span sp)
{
    char buf[256];
    for (unsigned n = 0;; n++) {
        snprintf(buf, sizeof buf, n ? "%s_value_%u" : "%s_value", g->name, n);
        if (!inl_has(&x->names, buf)) break;
    }
    const char *name = base_arena_strndup(x->a, buf, strlen(buf));
    if (!name) return inl_oom(x, sp), NULL;
    inl_add(x, &x->names, name);
    return name;
}

/* Replaces every Inline call nested in *e (not *e itself when top) by a
 * fresh variable, bound by `tmp = g(...)` statements appended to out
 * first (and spliced there): arguments before their call, left to right,
 * as Python evaluates them. */
static void inl_hoist(inl_ctx *x, cc_ir_expr **e, int top, inl_list *out)
{
    cc_ir_expr *v = *e;
    if (!v || x->failed) return;
    switch (v->kind) {
    case CC_X_BINARY: inl_hoist(x, &v->u.bin.l, 0, out), inl_hoist(x, &v->u.bin.r, 0, out); break;
    case CC_X_UNARY: inl_hoist(x, &v->u.un.x, 0, out); break;
    case CC_X_LIST:
    case CC_X_ARRAY:
        for (uint32_t k = 0; k < v->u.list.n; k++) inl_hoist(x, &v->u.list.items[k], 0, out);
        break;
    case CC_X_OP:
        for (uint32_t k = 0; k < cc_ir_op_nslots(v->u.op.op); k++) inl_hoist(x, &v->u.op.args[k], 0, out);
        break;
    case CC_X_CALL:
        for (uint32_t k = 0; k < v->u.call.nargs; k++) inl_hoist(x, &v->u.call.args[k], 0, out);
        break;
    default: break;
    }
    if (top || !inl_is_inline_call(v) || x->failed) return;
    const cc_ir_func *g = v->u.call.callee;
    if (g->nresults != 1) {
        cc_diag_add(x->p->diags, CC_DIAG_UNSUPPORTED, v->span, NULL,
                    "'%s' returns %u values; a call inside an expression must return one (assign its results first)",
                    g->name, g->nresults);
        x->failed = 1;
        return;
    }
    const char *name = inl_temp(x, g, v->span);
    cc_ir_stmt *bind = name ? inl_assign1(x, name, v->type, v->span, v, v->span) : NULL;
    cc_ir_expr *var = name ? cc_ir_var(x->a, name, v->type, v->span) : NULL;
    if (!bind || !var) return inl_oom(x, v->span);
    inl_walk_stmt(x, bind, out);
    *e = var;
}

static void inl_walk_block(inl_ctx *x, cc_ir_block *b)
{
    inl_list l = {0};
    for (uint32_t i = 0; i < b->n && !x->failed; i++) inl_walk_stmt(x, b->items[i], &l);
    if (!x->failed && !cc_ir_block_make(x->a, b, l.items, l.n)) inl_oom(x, x->f->span);
    free(l.items);
}

/* Splices the Inline call of statement s; the spliced statements are
 * walked again (calls inside the callee). */
static void inl_splice(inl_ctx *x, cc_ir_stmt *s, const cc_ir_expr *call, inl_list *out)
{
    inl_site t = {.g = call->u.call.callee, .at = call->span, .stmt = s};
    inl_list l = {0};
    inl_bind_names(x, &t, call, &l);
    for (uint32_t i = 0; i < t.g->body.n && !x->failed; i++) inl_stmt(x, &t, t.g->body.items[i], &l);
    for (uint32_t i = 0; i < l.n && !x->failed; i++) inl_walk_stmt(x, l.items[i], out);
    free(l.items);
    inl_names_free(&t.callee);
}

/* Appends s, rewritten, to out: Inline calls nested in its expressions
 * first (hoisted), then s itself, spliced when it is an Inline call. */
static void inl_walk_stmt(inl_ctx *x, cc_ir_stmt *s, inl_list *out)
{
    switch (s->kind) {
    case CC_I_ASSIGN: inl_hoist(x, &s->u.assign.value, 1, out); break;
    case CC_I_EXPR: inl_hoist(x, &s->u.expr, 1, out); break;
    case CC_I_FOR:
        inl_hoist(x, &s->u.for_.start, 0, out), inl_hoist(x, &s->u.for_.stop, 0, out), inl_hoist(x, &s->u.for_.step, 0, out);
        inl_walk_block(x, &s->u.for_.body);
        break;
    case CC_I_WHILE:
        inl_no_nested(x, &s->u.while_.cond, 1);
        inl_walk_block(x, &s->u.while_.body);
        break;
    case CC_I_IF:
        inl_hoist(x, &s->u.if_.cond, 0, out);
        inl_walk_block(x, &s->u.if_.then);
        inl_walk_block(x, &s->u.if_.orelse);
        break;
    case CC_I_SCOPE: inl_walk_block(x, &s->u.scope.body); break;
    case CC_I_AT: inl_walk_block(x, &s->u.at.body); break;
    case CC_I_RETURN:
        for (uint32_t k = 0; k < s->u.ret.n; k++) inl_hoist(x, &s->u.ret.values[k], 0, out);
        break;
    default: break;
    }
    if (x->failed) return;
    cc_ir_expr *top = s->kind == CC_I_ASSIGN ? s->u.assign.value : s->kind == CC_I_EXPR ? s->u.expr : NULL;
    if (inl_is_inline_call(top)) return inl_splice(x, s, top, out);
    inl_push(x, out, s);
}

/* ---- the plane check ---------------------------------------------------------------- */

typedef struct inl_plane {
    int kernel;        /* kernel code: an InCore function or a pl.at(CORE_GROUP) body */
    const char *where; /* kernel code: "in InCore function 'k'" / "inside a pl.at(...) body" */
} inl_plane;

static void inl_control_in_kernel(inl_ctx *x, const inl_plane *pl, cc_span sp, const char *construct)
{
    cc_diag_add(x->p->diags, CC_DIAG_INVALID_OP, sp, NULL,
                "%s is control-plane work and is not allowed in kernel code (%s)", construct, pl->where);
    x->failed = 1;
}

/* One expression walk of the plane check. */
typedef struct inl_plane_walk {
    inl_ctx *x;
    const inl_plane *pl;
} inl_plane_walk;

static int inl_plane_expr(cc_ir_expr *e, void *ctx)
{
    const inl_plane_walk *w = ctx;
    inl_ctx *x = w->x;
    const inl_plane *pl = w->pl;
    if (e->kind == CC_X_OP) {
        cc_ir_op op = (cc_ir_op)e->u.op.op;
        /* views and element access on a Tensor are orchestration forms too (DSL-V2-SPEC §1.1) */
        int orch_form = (op == CC_IR_SLICE || op == CC_IR_ASSEMBLE || op == CC_IR_READ || op == CC_IR_WRITE) &&
                        e->u.op.args[0]->type.kind == CC_T_TENSOR;
        if (pl->kernel && (op == CC_IR_CREATE_TENSOR || (orch_form && (op == CC_IR_SLICE || op == CC_IR_ASSEMBLE)))) {
            /* an Inline body's tensor, view or copy, typed for orchestration, spliced into kernel code */
            cc_diag_add(x->p->diags, CC_DIAG_UNSUPPORTED, e->span, "write it in the kernel body itself, or pass the tensor in",
                        "%s in an Inline function called from kernel code is not supported in this version",
                        op == CC_IR_CREATE_TENSOR ? "pl.create_tensor" : op == CC_IR_SLICE ? "pl.slice of a Tensor" : "pl.assemble into a Tensor");
            return x->failed = 1;
        }
        if (!pl->kernel && cc_ir_op_is_tile(op) && !orch_form) {
            /* the text stage 0 gives a tile op written in control-plane code */
            cc_misplaced_op(x->p->diags, e->span, e->type.from_tensors && op == CC_IR_FULL ? "full" : cc_ir_op_name(op),
                            (cc_func_kind)x->f->kind, x->f->name);
            return x->failed = 1;
        }
    }
    if (e->kind == CC_X_CALL && pl->kernel) {
        char what[256];
        snprintf(what, sizeof what, "calling '%s'", cc_ir_is_dummy(e) ? "pl.system.task_dummy" : e->u.call.callee->name);
        return inl_control_in_kernel(x, pl, e->span, e->u.call.submit ? "pl.submit" : what), 1;
    }
    return 0;
}

/* A runtime scope or a pl.at in kernel code is rejected before its
 * expressions; a pl.at(CORE_GROUP) body is kernel code. */
static void inl_plane_block(inl_ctx *x, const inl_plane *pl, const cc_ir_block *b)
{
    for (uint32_t i = 0; i < b->n && !x->failed; i++) {
        const cc_ir_stmt *s = b->items[i];
        if (pl->kernel && s->kind == CC_I_AT) return inl_control_in_kernel(x, pl, s->span, "pl.at");
        if (pl->kernel && s->kind == CC_I_SCOPE) {
            /* the parser's rule for a scope written in kernel code (docs/dsl.md, `pl.scope()`) */
            cc_diag_add(x->p->diags, CC_DIAG_SYNTAX, s->span, NULL,
                        "a runtime scope is not allowed in kernel code (%s); move it to the orchestration function", pl->where);
            x->failed = 1;
            return;
        }
        inl_plane_walk w = {x, pl};
        if (cc_ir_stmt_walk_exprs(s, inl_plane_expr, &w)) return;
        inl_plane body = *pl;
        if (s->kind == CC_I_AT && s->u.at.level == CC_LEVEL_CORE_GROUP)
            body = (inl_plane){1, s->u.at.blocks ? "inside a pl.spmd body" : "inside a pl.at(level=pl.Level.CORE_GROUP) body"};
        cc_ir_block *kids[CC_IR_MAX_BLOCKS];
        for (uint32_t c = 0, n = cc_ir_stmt_blocks(s, kids); c < n && !x->failed; c++) inl_plane_block(x, &body, kids[c]);
    }
}

static void inl_check_plane(inl_ctx *x)
{
    char where[256];
    snprintf(where, sizeof where, "in InCore function '%s'", x->f->name);
    inl_plane pl = {x->f->kind == CC_FUNC_INCORE, where};
    inl_plane_block(x, &pl, &x->f->body);
}

/* ---- the pass -------------------------------------------------------------------------- */

static void inl_func(inl_ctx *x, cc_ir_func *f)
{
    x->f = f;
    x->names = (inl_names){0};
    for (uint32_t k = 0; k < f->nparams; k++) inl_add(x, &x->names, f->params[k].name);
    inl_block_names(x, &x->names, &f->body, 1);
    inl_walk_block(x, &f->body);
    if (!x->failed) inl_check_plane(x);
    inl_names_free(&x->names);
}

int cc_pass_inline(cc_ir_program *p)
{
    uint32_t inline_funcs = 0;
    for (uint32_t k = 0; k < p->nfuncs; k++) inline_funcs += p->funcs[k]->kind == CC_FUNC_INLINE;
    if (!inline_funcs) return 0; /* nothing to splice, so nothing spliced to check */
    inl_ctx x = {.p = p, .a = p->arena};
    for (uint32_t k = 0; k < p->nfuncs && !x.failed; k++)
        if (p->funcs[k]->kind != CC_FUNC_INLINE) inl_func(&x, p->funcs[k]);
    if (x.failed) return -1;
    uint32_t n = 0;
    for (uint32_t k = 0; k < p->nfuncs; k++)
        if (p->funcs[k]->kind != CC_FUNC_INLINE) p->funcs[n++] = p->funcs[k];
    p->nfuncs = n;
    return 0;
}
