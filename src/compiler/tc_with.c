/*
 * tc_with.c - the type checker's `with` statements: runtime scopes
 * (pl.scope, pl.manual_scope) and their placement rules (docs/dsl.md,
 * "pl.scope() and pl.manual_scope()"), pl.at with its level, name_hint,
 * deps=, optimizations= (tc_hints.c) and `as` (docs/dsl.md, "with
 * pl.at(...)"), and the
 * pl.set_cache_policy markers of a pl.at body, hoisted onto it
 * (docs/dsl.md, "Cache policy").
 *
 * Invariants: a with statement's rules are checked in a fixed order and
 * the first failure wins (docs/compiler.md, "Checking"); a pl.at's markers
 * are checked before its body, against the names bound where it starts;
 * a CORE_GROUP pl.at body is kernel code, and names it binds stay bound
 * after it (those bound to tensor-level values as tensors: T-x); a scope body runs in a runtime scope of its own (t->c.scope),
 * closed again after it.
 */
#include "compiler/tc.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "compiler/names.h"

/* ---- pl.set_cache_policy markers ----------------------------------------------------------- */

static const char *const tc_marker_standalone =
    "pl.set_cache_policy() must be a standalone statement directly inside a pl.at(...) / pl.spmd(...) scope body";

/* Is s a pl.set_cache_policy(...) / pl.tensor.set_cache_policy(...) statement? */
int tc_is_marker(tc *t, const cc_stmt *s)
{
    if (s->kind != CC_S_EXPR || s->u.expr->kind != CC_E_CALL) return 0;
    const cc_expr *fn = s->u.expr->u.call.fn;
    return (tc_pl_attr(t, fn, "set_cache_policy") && fn->u.attr.value->kind == CC_E_NAME) ||
           (tc_pl_attr(t, fn, "tensor") && !strcmp(fn->u.attr.name, "set_cache_policy"));
}

int tc_marker_misplaced(tc *t, const cc_stmt *s, tc_block_kind kind)
{
    return tc_err(t, CC_DIAG_SYNTAX, s->span, t->c.plane == TC_KERNEL && !t->c.in_at ? "pass cache= to the pl.load" : NULL,
                   kind == TC_BLOCK_SCOPE ? "pl.set_cache_policy() has nothing to attach to on this Runtime scope" : "%s",
                   tc_marker_standalone), 0;
}

/* ---- with: pl.scope, pl.manual_scope, pl.at ----------------------------------------------------- */

static int tc_scope_mode(tc *t, const cc_expr *ctx, const char *kind, const cc_with_item *it, int *mode)
{
    if (it->as_name)
        return tc_err(t, CC_DIAG_SYNTAX, ctx->span, NULL,
                      "`with pl.scope(...) as ...:` is not supported — the `as` clause only applies to pl.at"), 0;
    if (!strcmp(kind, "manual_scope")) {
        if (ctx->u.call.nargs || ctx->u.call.nkws)
            return tc_err(t, CC_DIAG_SYNTAX, ctx->span, NULL, "pl.manual_scope() does not accept arguments"), 0;
        return *mode = CC_SCOPE_MANUAL, 1;
    }
    if (ctx->u.call.nargs)
        return tc_err(t, CC_DIAG_SYNTAX, ctx->span, NULL, "pl.scope() takes only a 'mode=' keyword, not positional arguments"), 0;
    *mode = CC_SCOPE_AUTO;
    for (uint32_t k = 0; k < ctx->u.call.nkws; k++) {
        const cc_keyword *kw = &ctx->u.call.kws[k];
        if (strcmp(kw->name, "mode"))
            return tc_err(t, CC_DIAG_SYNTAX, ctx->span, NULL, "pl.scope() got an unexpected keyword '%s'", kw->name), 0;
        if ((*mode = tc_enum_value(t, kw->value, "ScopeMode")) < 0)
            return tc_err(t, CC_DIAG_SYNTAX, ctx->span, NULL, "pl.scope(mode=...) must be pl.ScopeMode.AUTO or pl.ScopeMode.MANUAL"), 0;
    }
    return 1;
}

int tc_scope_rules(tc *t, const cc_stmt *s, const cc_expr *ctx, const char *kind, int *mode)
{
    if (!tc_scope_mode(t, ctx, kind, &s->u.with.items[0], mode)) return 0;
    if (t->c.plane == TC_KERNEL)
        return tc_err(t, CC_DIAG_SYNTAX, ctx->span, NULL,
                      "a runtime scope is not allowed in kernel code (%s); move it to the orchestration function", tc_where(t)), 0;
    if (*mode == CC_SCOPE_MANUAL && t->c.manual)
        return tc_err(t, CC_DIAG_SYNTAX, ctx->span, NULL, "a manual scope may not be nested inside another manual scope"), 0;
    if (*mode == CC_SCOPE_AUTO && t->c.fn->auto_scope)
        return tc_err(t, CC_DIAG_SYNTAX, ctx->span, "set auto_scope=False on the decorator, or use pl.manual_scope()",
                      "a hand-placed AUTO 'with pl.scope()' requires @pl.function(auto_scope=False)"), 0;
    if (*mode == CC_SCOPE_AUTO && t->c.manual)
        return tc_err(t, CC_DIAG_SYNTAX, ctx->span, NULL, "an AUTO scope may not be nested inside a manual scope"), 0;
    return 1;
}

static cc_ir_stmt *tc_scope(tc *t, const cc_stmt *s, const cc_expr *ctx, const char *kind, int last)
{
    int mode;
    if (!tc_scope_rules(t, s, ctx, kind, &mode)) return NULL;
    cc_ir_block body;
    const tc_rscope *outer = t->c.scope;
    t->c.manual += mode == CC_SCOPE_MANUAL;
    int ok = tc_scope_open(t) && tc_block(t, &s->u.with.body, &body, last, TC_BLOCK_SCOPE);
    t->c.manual -= mode == CC_SCOPE_MANUAL;
    t->c.scope = outer;
    if (!ok) return NULL;
    cc_ir_stmt *st = cc_ir_scope_new(t->a, (cc_scope_mode)mode, 0, body, ctx->span);
    return st ? st : tc_oom(t);
}

/* One pl.set_cache_policy(t, P) marker of a pl.at body, checked against
 * the names bound where the pl.at starts (env). */
static int tc_marker(tc *t, const cc_stmt *s, tc_env *env, cc_ir_stmt *at)
{
    const cc_expr *call = s->u.expr;
    if (call->u.call.nargs != 2 || call->u.call.nkws)
        return tc_err(t, CC_DIAG_SYNTAX, call->span, NULL, "pl.set_cache_policy() takes exactly two positional arguments (no keywords)"), 0;
    const cc_expr *name = call->u.call.args[0], *pol = call->u.call.args[1];
    if (name->kind != CC_E_NAME)
        return tc_err(t, CC_DIAG_SYNTAX, name->span, NULL, "pl.set_cache_policy() first argument must be a bare variable name"), 0;
    tc_bind *b = tc_lookup(env, name->u.name);
    if (b && b->conflict) return tc_kind_conflict(t, b, name->span);
    int found = 0;
    if (!b || !b->definite) {
        if (!b && !tc_is_local(t, name->u.name)) tc_constant(t, name->u.name, name->span, &found);
        if (!found)
            return tc_err(t, CC_DIAG_SYNTAX, name->span, NULL, "pl.set_cache_policy() argument '%s' is not defined at this point",
                          name->u.name), 0;
    }
    if (!b || b->type.kind != CC_T_TENSOR)
        return tc_err(t, CC_DIAG_TYPE, name->span, NULL, "pl.set_cache_policy() argument '%s' is not a tensor", name->u.name), 0;
    int p = tc_enum_value(t, pol, "CachePolicy");
    if (p < 0)
        return tc_err(t, CC_DIAG_SYNTAX, pol->span, NULL,
                      "pl.set_cache_policy() second argument must be pl.CachePolicy.DEFAULT or pl.CachePolicy.BYPASS"), 0;
    for (uint32_t k = 0; k < at->u.at.ndecls; k++) {
        cc_ir_cache_decl *d = &at->u.at.decls[k];
        if (strcmp(d->tensor, name->u.name)) continue;
        if (d->policy == p) return 1;
        return tc_err(t, CC_DIAG_SYNTAX, s->span, NULL,
                      "pl.set_cache_policy() declares conflicting policies for '%s' (%s at line %u, %s at line %u)", name->u.name,
                      cc_cache_policy_name(d->policy), cc_diag_line(t->d, d->span.line), cc_cache_policy_name((cc_cache_policy)p),
                      cc_diag_line(t->d, s->span.line)), 0;
    }
    cc_ir_cache_decl *d = base_arena_alloc(t->a, (at->u.at.ndecls + 1) * sizeof *d);
    if (!d) return tc_oom(t), 0;
    if (at->u.at.ndecls) memcpy(d, at->u.at.decls, at->u.at.ndecls * sizeof *d);
    d[at->u.at.ndecls] = (cc_ir_cache_decl){name->u.name, (uint8_t)p, s->span};
    at->u.at.decls = d;
    at->u.at.ndecls++;
    return 1;
}

static int tc_identifier(const char *s)
{
    static const char *const kw[] = {"False", "None", "True", "and", "as", "assert", "async", "await", "break", "class",
                                     "continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global",
                                     "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise",
                                     "return", "try", "while", "with", "yield"};
    if (!*s || isdigit((unsigned char)*s)) return 0;
    for (const char *c = s; *c; c++)
        if (!isalnum((unsigned char)*c) && *c != '_') return 0;
    for (size_t k = 0; k < sizeof kw / sizeof kw[0]; k++)
        if (!strcmp(kw[k], s)) return 0;
    return 1;
}

int tc_name_hint(tc *t, const cc_expr *v, const char *form, const char **out)
{
    if (v->kind != CC_E_STRING)
        return tc_err(t, CC_DIAG_SYNTAX, v->span, NULL, "pl.%s() 'name_hint' argument must be a string literal", form), 0;
    char *h = base_arena_strndup(t->a, v->u.str.text, v->u.str.len);
    if (!h) return tc_oom(t), 0;
    if (!tc_identifier(h) || strlen(h) != v->u.str.len)
        return tc_err(t, CC_DIAG_SYNTAX, v->span, NULL, "pl.%s() 'name_hint' must be a valid non-keyword identifier, got '%s'", form, h), 0;
    *out = h;
    return 1;
}

/* pl.at's arguments into st. */
static int tc_at_args(tc *t, const cc_expr *ctx, const cc_with_item *it, cc_ir_stmt *st)
{
    if (ctx->u.call.nargs > 2)
        return tc_err(t, CC_DIAG_SYNTAX, ctx->span, NULL, "pl.at() takes at most 2 positional arguments, got %u", ctx->u.call.nargs), 0;
    const cc_expr *level = ctx->u.call.nargs ? ctx->u.call.args[0] : NULL, *deps = NULL, *opts = NULL;
    const cc_keyword *nodep = NULL;
    if (ctx->u.call.nargs == 2)
        return tc_err(t, CC_DIAG_UNSUPPORTED, ctx->u.call.args[1]->span, NULL, "pl.at() optimizations is not supported in this version"), 0;
    for (uint32_t k = 0; k < ctx->u.call.nkws; k++) {
        const cc_keyword *kw = &ctx->u.call.kws[k];
        if (!strcmp(kw->name, "level") && !level) level = kw->value;
        else if (!strcmp(kw->name, "deps")) deps = kw->value;
        else if (!strcmp(kw->name, "optimizations")) opts = kw->value;
        else if (!strcmp(kw->name, "no_dep_args")) nodep = kw;
        else if (!strcmp(kw->name, "allow_early_resolve")) {
            if (!tc_early_resolve(t, "pl.at", kw->value, &st->u.at.early)) return 0;
        } else if (!strcmp(kw->name, "predicate"))
            return tc_err(t, CC_DIAG_SYNTAX, kw->name_span, NULL, "pl.at() does not accept predicate=; use pl.submit(...)"), 0;
        else if (!strcmp(kw->name, "name_hint")) {
            if (!tc_name_hint(t, kw->value, "at", &st->u.at.name_hint)) return 0;
        } else {
            if (tc_pl_keyword_unsupported(t, "at", kw)) return 0;
            return tc_err(t, CC_DIAG_SYNTAX, kw->name_span, NULL, "pl.at() got an unexpected keyword '%s'", kw->name), 0;
        }
    }
    if (!level) return tc_err(t, CC_DIAG_SYNTAX, ctx->span, NULL, "pl.at() requires a level argument"), 0;
    if (tc_pl_hardware(t, level)) return 0; /* pl.Level.AIC, pl.Level.AIV */
    int l = tc_enum_value(t, level, "Level");
    if (l < 0) return tc_err(t, CC_DIAG_SYNTAX, level->span, NULL, "pl.at() level must be a pl.Level member"), 0;
    if (l == CC_LEVEL_UNDEFINED) return tc_err(t, CC_DIAG_SYNTAX, level->span, NULL, "pl.at() level must not be pl.Level.UNDEFINED"), 0;
    if (l == CC_LEVEL_CORE_GROUP && t->c.host) return tc_host_forbidden(t, ctx->span, "pl.at(level=pl.Level.CORE_GROUP)"), 0;
    st->u.at.level = (uint8_t)l;
    if (l != CC_LEVEL_CORE_GROUP && (deps || it->as_name))
        return tc_err(t, CC_DIAG_SYNTAX, deps ? deps->span : it->as_span, NULL,
                      "pl.at(level=%s.Level.%s) creates no task; deps= and 'as' need level=pl.Level.CORE_GROUP", t->pl,
                      cc_level_name((cc_level)l)), 0;
    if (l != CC_LEVEL_CORE_GROUP && opts)
        return tc_err(t, CC_DIAG_SYNTAX, opts->span, NULL,
                      "pl.at(level=%s.Level.%s) creates no task; optimizations= needs level=pl.Level.CORE_GROUP", t->pl,
                      cc_level_name((cc_level)l)), 0;
    if (opts && !tc_hints(t, opts, &st->u.at.opts)) return 0;
    if (l != CC_LEVEL_CORE_GROUP && nodep)
        return tc_err(t, CC_DIAG_SYNTAX, nodep->value->span, NULL,
                      "pl.at(level=%s.Level.%s) creates no task; no_dep_args= needs level=pl.Level.CORE_GROUP", t->pl,
                      cc_level_name((cc_level)l)), 0;
    if (nodep) {
        st->u.at.has_nodep = 1;
        if (!tc_no_dep_args(t, "pl.at", nodep->value, &st->u.at.nodep, &st->u.at.nodep_spans, &st->u.at.nnodep)) return 0;
    }
    if (deps) {
        st->u.at.has_deps = 1;
        if (!tc_at_deps(t, deps, &st->u.at.deps, &st->u.at.ndeps)) return 0;
    }
    st->u.at.as_name = it->as_name;
    return 1;
}

/* T-x (DSL-V2-SPEC §1.6): after a CORE_GROUP body, each name it bound (on
 * every way) to a tensor-level value is the tensor the call site allocates
 * at the pl.at (the outliner makes the allocation): a tensor of that shape
 * and dtype, created at the pl.at's line in the current runtime scope. */
static int tc_at_crossings(tc *t, uint32_t mark, cc_span at)
{
    tc_env *e = &t->c.env;
    for (uint32_t k = mark, end = e->nlog; k < end; k++) {
        tc_bind b = e->b[e->log[k].index];
        if (b.gone || !b.definite || b.conflict || b.type.kind != CC_T_TILE || !b.type.from_tensors) continue;
        cc_type ty = {.kind = CC_T_TENSOR, .dtype = b.type.dtype, .rank = b.type.rank};
        memcpy(ty.shape, b.type.shape, sizeof ty.shape);
        if (!tc_bind_name(t, b.name, ty, b.span)) return 0;
        tc_bind *now = tc_lookup(e, b.name);
        now->created = at.line, now->created_in = t->c.scope, now->implicit = 1;
    }
    return 1;
}

int tc_at_body(tc *t, const cc_block *body, cc_ir_stmt *st, cc_span sp, cc_ir_stmt *first)
{
    for (uint32_t k = 0; k < body->n; k++)
        if (tc_is_marker(t, body->items[k]) && !tc_marker(t, body->items[k], &t->c.env, st)) return 0;
    tc_ctx saved = t->c;
    uint32_t mark = tc_env_mark(&t->c.env);
    if (st->u.at.level == CC_LEVEL_CORE_GROUP) t->c.plane = TC_KERNEL, t->c.in_at = st->u.at.blocks ? 2 : 1;
    int ok = tc_block(t, body, &st->u.at.body, 0, TC_BLOCK_AT);
    /* names bound in the body stay bound (a read after it of a tile or scalar
     * is the outliner's error: docs/compiler.md, "Outlining"; so is a
     * tensor-level value of a pl.spmd body, which never crosses) */
    saved.env = t->c.env;
    t->c = saved;
    if (ok && first) { /* the SPMD loop's binding of its variable opens the body */
        cc_ir_block *b = &st->u.at.body;
        cc_ir_stmt **items = base_arena_alloc(t->a, (b->n + 1) * sizeof *items);
        if (!items) return tc_oom(t), 0;
        items[0] = first;
        if (b->n) memcpy(items + 1, b->items, b->n * sizeof *items);
        b->items = items, b->n++;
    }
    return ok && (st->u.at.level != CC_LEVEL_CORE_GROUP || st->u.at.blocks || tc_at_crossings(t, mark, sp));
}

static cc_ir_stmt *tc_at(tc *t, const cc_stmt *s, const cc_expr *ctx)
{
    const cc_with_item *it = &s->u.with.items[0];
    if (t->c.plane == TC_KERNEL) return tc_control_in_kernel(t, ctx->span, "pl.at");
    cc_ir_stmt *st = tc_stmt_new(t, CC_I_AT, ctx->span);
    if (!st || !tc_at_args(t, ctx, it, st) || !tc_at_body(t, &s->u.with.body, st, ctx->span, NULL)) return NULL;
    if (it->as_name && !tc_bind_name(t, it->as_name, (cc_type){.kind = CC_T_SCALAR, .dtype = CC_DT_TASK_ID}, it->as_span)) return NULL;
    return st;
}

const char *tc_with_kind(tc *t, const cc_stmt *s)
{
    const cc_expr *ctx = s->u.with.items[0].context;
    const char *kind = ctx->kind == CC_E_CALL ? tc_pl_attr(t, ctx->u.call.fn, NULL) : NULL;
    return kind && ctx->u.call.fn->u.attr.value->kind == CC_E_NAME ? kind : NULL;
}

cc_ir_stmt *tc_with(tc *t, const cc_stmt *s, int last)
{
    if (s->u.with.nitems > 1)
        return tc_err(t, CC_DIAG_SYNTAX, s->u.with.items[1].context->span, NULL, "Only single context manager supported in with statement");
    const cc_expr *ctx = s->u.with.items[0].context;
    const char *kind = tc_with_kind(t, s);
    if (kind && (!strcmp(kind, "scope") || !strcmp(kind, "manual_scope"))) return tc_scope(t, s, ctx, kind, last);
    if (kind && !strcmp(kind, "at")) return tc_at(t, s, ctx);
    if (kind && !strcmp(kind, "spmd")) return tc_spmd_with(t, s);
    if (kind && !strcmp(kind, "cluster")) return tc_cluster(t, s);
    const cc_expr *head = ctx->kind == CC_E_CALL ? ctx->u.call.fn : ctx;
    if (head->kind == CC_E_ATTR && tc_pl_path(t, head)) {
        const cc_pl_name *n = head->u.attr.value->kind == CC_E_NAME ? cc_pl_name_find(head->u.attr.name) : NULL;
        if (n && n->status != CC_PL_SUPPORTED && (n->kind == CC_PLK_LOOP || n->kind == CC_PLK_SCOPE))
            return tc_pl_unsupported(t, head->span, n->status, n->reason, tc_pl_path(t, head));
    }
    return tc_err(t, CC_DIAG_UNSUPPORTED, ctx->span, NULL, "Unsupported context manager in with statement");
}
