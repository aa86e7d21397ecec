/*
 * pass_materialize_scopes.c - stage 4, MaterializeRuntimeScopes: exactly the
 * algorithm of docs/compiler.md, "Scope placement".
 *
 * Invariants:
 *  - Only Orchestration functions with auto_scope set and a non-empty body
 *    change; afterwards their auto_scope is 0, so a second run changes
 *    nothing (the pass is idempotent).
 *  - Blocks are rewritten bottom-up: children first, then the block itself
 *    is wrapped in an AUTO scope unless it already is exactly one AUTO scope.
 *  - for bodies and if/else branches are wrapped only outside every MANUAL
 *    scope; while bodies never; a grouping pl.at is transparent (its body is
 *    walked, the pl.at itself is not wrapped).  A pl.at(CORE_GROUP) still
 *    present (outlining skipped) is kernel code and is left as it is.
 *  - A scope made here has placed = 1 and the span of the construct it
 *    wraps: the for, the if (then branch), the else branch's first
 *    statement, the def (function body).
 */
#include "compiler/ir_walk.h"
#include "compiler/passes.h"

/* Is b exactly one AUTO scope statement? */
static int cc_msc_is_auto(const cc_ir_block *b)
{
    return b->n == 1 && b->items[0]->kind == CC_I_SCOPE && b->items[0]->u.scope.mode == CC_SCOPE_AUTO;
}

/* Replaces *b with a block holding one placed AUTO scope around the old *b
 * (unless it already is_auto).  Returns 0 when out of memory. */
static int cc_msc_wrap(base_arena *a, cc_ir_block *b, cc_span sp)
{
    if (cc_msc_is_auto(b)) return 1;
    cc_ir_stmt *s = cc_ir_scope_new(a, CC_SCOPE_AUTO, 1, *b, sp);
    return s && cc_ir_block_make(a, b, &s, 1);
}

static int cc_msc_walk(base_arena *a, cc_ir_block *b, unsigned manual);

static int cc_msc_stmt(base_arena *a, cc_ir_stmt *s, unsigned manual)
{
    if (s->kind == CC_I_AT && s->u.at.level == CC_LEVEL_CORE_GROUP) return 1; /* kernel code */
    cc_ir_block *kids[CC_IR_MAX_BLOCKS];
    unsigned inner = manual + (s->kind == CC_I_SCOPE && s->u.scope.mode == CC_SCOPE_MANUAL);
    for (uint32_t c = 0, n = cc_ir_stmt_blocks(s, kids); c < n; c++)
        if (!cc_msc_walk(a, kids[c], inner)) return 0;
    if (manual) return 1;
    if (s->kind == CC_I_FOR) return cc_msc_wrap(a, &s->u.for_.body, s->span);
    if (s->kind != CC_I_IF) return 1;
    cc_ir_block *then = &s->u.if_.then, *orelse = &s->u.if_.orelse;
    if (!cc_msc_wrap(a, then, s->span)) return 0;
    /* orelse.n == 0 is "no else": nothing is synthesized */
    return !orelse->n || cc_msc_wrap(a, orelse, orelse->items[0]->span);
}

static int cc_msc_walk(base_arena *a, cc_ir_block *b, unsigned manual)
{
    for (uint32_t k = 0; k < b->n; k++)
        if (!cc_msc_stmt(a, b->items[k], manual)) return 0;
    return 1;
}

static int cc_msc_func(base_arena *a, cc_ir_func *f)
{
    if (f->kind != CC_FUNC_ORCHESTRATION || !f->body.n || !f->auto_scope) return 1;
    if (!cc_msc_walk(a, &f->body, 0) || !cc_msc_wrap(a, &f->body, f->span)) return 0;
    f->auto_scope = 0;
    return 1;
}

int cc_pass_materialize_scopes(cc_ir_program *p)
{
    for (uint32_t k = 0; k < p->nfuncs; k++) {
        if (!cc_msc_func(p->arena, p->funcs[k])) {
            cc_diag_oom(p->diags, p->funcs[k]->span, "out of memory while placing the runtime scopes of '%s'",
                        p->funcs[k]->name);
            return -1;
        }
    }
    return 0;
}
