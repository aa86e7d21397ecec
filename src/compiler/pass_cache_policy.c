/*
 * pass_cache_policy.c - stage 6, ResolveCachePolicy (docs/compiler.md,
 * "Cache policy resolution"; docs/dsl.md, "Cache policy").
 *
 * Per LOAD of an InCore function, wherever it sits in an expression:
 *  1. an explicit cache= (cache != CC_CACHE_UNSET) wins;
 *  2. else the function's declaration (decls, copied from the pl.at it was
 *     outlined from) for the tensor loaded, matched by the parameter name;
 *  3. else DEFAULT.
 *
 * Invariants:
 *  - First every kernel is checked for the coherency error (an explicit BYPASS load
 *    of a tensor the kernel writes: a parameter declared or derived Out or
 *    InOut, or one it stores to); on any such error the stage fails and no
 *    load is changed.
 *  - Afterwards every LOAD of every InCore function has DEFAULT or BYPASS.
 *  - One CompileWarning per kernel and tensor with at least one load that
 *    resolved to BYPASS, citing the first such load in source order;
 *    warnings come out in that order.
 */
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "compiler/ir_walk.h"
#include "compiler/passes.h"

/* The first BYPASS load of one tensor. */
typedef struct cc_cp_bypass {
    const char *tensor;
    cc_span span;
} cc_cp_bypass;

typedef struct cc_cp {
    cc_ir_program *p;
    cc_ir_func *f;
    const char *name;     /* cc_cp_stores: the tensor looked for */
    int found;
    cc_cp_bypass *first;  /* per tensor, in discovery order */
    size_t n;
    uint64_t cap;
    int oom;
} cc_cp;

/* The tensor a LOAD names (op LOAD), or that e writes (op STORE: pl.store, pl.write), or NULL. */
static const char *cc_cp_tensor(const cc_ir_expr *e, cc_ir_op op)
{
    cc_dir dir;
    const cc_ir_expr *t = cc_ir_tensor_access(e, &dir);
    if (!t || (op == CC_IR_LOAD ? e->u.op.op != CC_IR_LOAD : !(dir & CC_DIR_OUT))) return NULL;
    return t->kind == CC_X_VAR ? t->u.name : NULL;
}

/* ---- BYPASS on a written tensor--------------------------------------------------------------------- */

static int cc_cp_stores(cc_ir_expr *e, void *ctx)
{
    cc_cp *c = ctx;
    const char *t = cc_cp_tensor(e, CC_IR_STORE);
    if (t && !strcmp(t, c->name)) c->found = 1;
    return 0;
}

/* How f writes tensor: "Out" or "InOut", or NULL when it does not. */
static const char *cc_cp_written(cc_cp *c, const char *tensor)
{
    int k = cc_ir_func_param(c->f, tensor);
    if (k >= 0 && (c->f->params[k].dir == CC_DIR_OUT || c->f->params[k].dir == CC_DIR_INOUT))
        return cc_dir_name(c->f->params[k].dir);
    c->name = tensor, c->found = 0;
    cc_ir_block_walk_exprs(&c->f->body, cc_cp_stores, c);
    /* stored, and read by the load at hand: InOut by the usage rule (docs/compiler.md, "Directions") */
    return c->found ? cc_dir_name(CC_DIR_INOUT) : NULL;
}

static int cc_cp_check_load(cc_ir_expr *e, void *ctx)
{
    cc_cp *c = ctx;
    const char *t = cc_cp_tensor(e, CC_IR_LOAD);
    if (!t || e->u.op.cache != CC_CACHE_BYPASS) return 0;
    const char *how = cc_cp_written(c, t);
    if (how)
        cc_diag_add(c->p->diags, CC_DIAG_PASS, e->span, NULL,
                    "pl.load(..., cache=pl.CachePolicy.BYPASS) reads '%s', which this kernel also writes (%s); "
                    "a bypassing read of written bytes is a coherency bug",
                    t, how);
    return 0;
}

/* ---- resolving ------------------------------------------------------------------------------- */

static int cc_cp_span_before(cc_span a, cc_span b) { return a.line < b.line || (a.line == b.line && a.col < b.col); }

/* Notes a load of tensor resolved to BYPASS at sp: keeps the earliest per tensor. */
static void cc_cp_note_bypass(cc_cp *c, const char *tensor, cc_span sp)
{
    for (size_t k = 0; k < c->n; k++) {
        if (strcmp(c->first[k].tensor, tensor)) continue;
        if (cc_cp_span_before(sp, c->first[k].span)) c->first[k].span = sp;
        return;
    }
    if (c->n == c->cap) {
        cc_cp_bypass *grown = base_array_grow(c->first, &c->cap, sizeof *grown, 4);
        if (!grown) {
            c->oom = 1;
            return;
        }
        c->first = grown;
    }
    c->first[c->n++] = (cc_cp_bypass){tensor, sp};
}

static cc_cache_policy cc_cp_declared(const cc_ir_func *f, const char *tensor)
{
    for (uint32_t k = 0; k < f->ndecls; k++)
        if (!strcmp(f->decls[k].tensor, tensor)) return (cc_cache_policy)f->decls[k].policy;
    return CC_CACHE_DEFAULT;
}

static int cc_cp_resolve_load(cc_ir_expr *e, void *ctx)
{
    cc_cp *c = ctx;
    if (e->kind != CC_X_OP || e->u.op.op != CC_IR_LOAD) return 0;
    const char *t = cc_cp_tensor(e, CC_IR_LOAD);
    if (e->u.op.cache == CC_CACHE_UNSET) e->u.op.cache = (uint8_t)(t ? cc_cp_declared(c->f, t) : CC_CACHE_DEFAULT);
    if (t && e->u.op.cache == CC_CACHE_BYPASS) cc_cp_note_bypass(c, t, e->span);
    return 0;
}

static int cc_cp_by_span(const void *a, const void *b)
{
    const cc_cp_bypass *x = a, *y = b;
    return cc_cp_span_before(x->span, y->span) ? -1 : cc_cp_span_before(y->span, x->span);
}

/* Resolves every load of c->f, then warns once per tensor that resolved to BYPASS. */
static int cc_cp_resolve(cc_cp *c)
{
    c->n = 0;
    cc_ir_block_walk_exprs(&c->f->body, cc_cp_resolve_load, c);
    if (c->oom) return 0;
    if (c->n > 1) qsort(c->first, c->n, sizeof *c->first, cc_cp_by_span);
    for (size_t k = 0; k < c->n; k++)
        cc_diag_add(c->p->diags, CC_DIAG_WARNING, c->first[k].span, NULL,
                    "[CacheBypassUnsupported] tensor '%s' requests CachePolicy.BYPASS, but this backend has no "
                    "cache-bypass path yet; compiling as an ordinary cached access at %s:%u",
                    c->first[k].tensor, cc_diag_file(c->p->diags, c->first[k].span.line), (unsigned)cc_diag_line(c->p->diags, c->first[k].span.line));
    return 1;
}

int cc_pass_cache_policy(cc_ir_program *p)
{
    size_t errors = p->diags->errors;
    cc_cp c = {.p = p};
    for (uint32_t k = 0; k < p->nfuncs; k++)
        if (p->funcs[k]->kind == CC_FUNC_INCORE) c.f = p->funcs[k], cc_ir_block_walk_exprs(&c.f->body, cc_cp_check_load, &c);
    if (p->diags->errors > errors) return -1;
    int ok = 1;
    for (uint32_t k = 0; k < p->nfuncs && ok; k++)
        if (p->funcs[k]->kind == CC_FUNC_INCORE) c.f = p->funcs[k], ok = cc_cp_resolve(&c);
    free(c.first);
    if (!ok) cc_diag_oom(p->diags, c.f->span, "out of memory while resolving cache policies");
    return ok ? 0 : -1;
}
