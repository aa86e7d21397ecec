/*
 * tc_unshaped.c - the checks of an entry that need no argument shapes, run
 * when a compile cannot specialize it (an argument's spec is missing, as
 * in `ptoc check` without --shape): the placement rules of runtime scopes
 * and of pl.at (docs/dsl.md, "pl.scope() and pl.manual_scope()" and
 * "with pl.at(...)") over the syntax tree of the entry and of every
 * function it calls.  The parser's rules and the decorators' were checked
 * before (the parse, tc_gather); everything that needs types waits for a
 * compile with shapes.
 *
 * The rules themselves are tc_with.c's (tc_scope_rules, the typecheck's
 * own); this file only walks the statements with the context they need:
 * the function, the plane (kernel code: an InCore function, a pl.at body
 * at CORE_GROUP, a `for ... in pl.spmd(...)` body), the open manual scopes.
 */
#include <stdlib.h>
#include <string.h>

#include "compiler/tc.h"

typedef struct tc_unshaped {
    tc *t;
    uint8_t *queued; /* by function index */
} tc_unshaped;

/* Queues the functions an expression (and its children) names as callees. */
static int tc_unshaped_callees(const cc_expr *e, void *ctx)
{
    tc_unshaped *u = ctx;
    if (e->kind == CC_E_NAME || e->kind == CC_E_ATTR) {
        tc_fn *fn = tc_callee(u->t, e);
        if (fn && !fn->broken) u->queued[fn - u->t->fns] |= 1;
    }
    cc_expr_each_child(e, tc_unshaped_callees, ctx);
    return 0;
}

/* Is pl.at's level CORE_GROUP (its body kernel code)? */
static int tc_unshaped_core_group(tc *t, const cc_expr *ctx)
{
    const cc_expr *level = ctx->u.call.nargs ? ctx->u.call.args[0] : NULL;
    for (uint32_t k = 0; k < ctx->u.call.nkws && !level; k++)
        if (!strcmp(ctx->u.call.kws[k].name, "level")) level = ctx->u.call.kws[k].value;
    return level && tc_enum_value(t, level, "Level") == CC_LEVEL_CORE_GROUP;
}

static void tc_unshaped_block(tc *t, const cc_block *b);

static void tc_unshaped_stmt(tc *t, const cc_stmt *s)
{
    switch (s->kind) {
    case CC_S_FOR: {
        tc_ctx saved = t->c;
        if (tc_is_spmd(t, s->u.for_.iter)) { /* an SPMD loop body is kernel code (DSL-V2-SPEC §7) */
            if (t->c.plane == TC_KERNEL) {
                tc_control_in_kernel(t, s->u.for_.iter->span, "pl.spmd");
                break;
            }
            t->c.plane = TC_KERNEL, t->c.in_at = 2;
        }
        tc_unshaped_block(t, &s->u.for_.body);
        t->c.plane = saved.plane, t->c.in_at = saved.in_at;
        break;
    }
    case CC_S_WHILE: tc_unshaped_block(t, &s->u.while_.body); break;
    case CC_S_IF: tc_unshaped_block(t, &s->u.if_.then), tc_unshaped_block(t, &s->u.if_.orelse); break;
    case CC_S_WITH: {
        if (s->u.with.nitems != 1) break; /* the typecheck's error, with shapes */
        const char *kind = tc_with_kind(t, s);
        const cc_expr *ctx = s->u.with.items[0].context;
        tc_ctx saved = t->c;
        int mode;
        if (kind && (!strcmp(kind, "scope") || !strcmp(kind, "manual_scope"))) {
            if (!tc_scope_rules(t, s, ctx, kind, &mode)) break;
            t->c.manual += mode == CC_SCOPE_MANUAL;
        } else if (kind && !strcmp(kind, "at")) {
            if (t->c.plane == TC_KERNEL) {
                tc_control_in_kernel(t, ctx->span, "pl.at");
                break;
            }
            if (tc_unshaped_core_group(t, ctx)) t->c.plane = TC_KERNEL, t->c.in_at = 1;
        }
        tc_unshaped_block(t, &s->u.with.body);
        t->c.manual = saved.manual, t->c.plane = saved.plane, t->c.in_at = saved.in_at;
        break;
    }
    default: break;
    }
}

static void tc_unshaped_block(tc *t, const cc_block *b)
{
    for (uint32_t k = 0; k < b->n && !t->oom; k++) tc_unshaped_stmt(t, b->items[k]);
}

void tc_check_unshaped(tc *t, tc_fn *entry)
{
    tc_unshaped u = {t, calloc(t->nfns ? t->nfns : 1, 1)};
    if (!u.queued) return (void)tc_oom(t);
    u.queued[entry - t->fns] = 1;
    tc_ctx saved = t->c;
    for (int more = 1; more && !t->oom;) { /* each queued function once (bit 2: walked) */
        more = 0;
        for (uint32_t k = 0; k < t->nfns; k++) {
            if (u.queued[k] != 1) continue;
            u.queued[k] |= 2, more = 1;
            tc_fn *fn = &t->fns[k];
            const cc_block *body = &fn->def->u.def.body;
            cc_ir_func named = {.name = fn->name}; /* what the messages cite */
            t->c = (tc_ctx){.fn = fn, .f = &named, .plane = fn->kind == CC_FUNC_INCORE ? TC_KERNEL
                                              : fn->kind == CC_FUNC_INLINE ? TC_INLINE : TC_CONTROL};
            tc_scan(t, body, &t->c.locals);
            for (uint32_t j = 0; j < body->n; j++) cc_stmt_each_expr(body->items[j], tc_unshaped_callees, &u);
            tc_unshaped_block(t, body);
            base_strmap_free(&t->c.locals);
        }
    }
    t->c = saved;
    free(u.queued);
}
