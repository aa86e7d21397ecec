/*
 * ir_walk.c - the IR walker (ir_walk.h) and the name reads built on it
 * (cc_ir_scan_reads here, cc_ir_expr_uses of ir.h).
 *
 * The switches below name every kind without a default, so adding a kind
 * to cc_ir_expr_kind or cc_ir_stmt_kind fails the build (-Wswitch) here
 * until the walker knows its fields.
 */
#include <string.h>

#include "compiler/ir_walk.h"

/* ---- one level ----------------------------------------------------------------------------- */

/* Visits the present expressions of xs[0..n). */
static int cc_ir_each(cc_ir_expr *const *xs, uint32_t n, cc_ir_expr_fn visit, void *ctx)
{
    int r = 0;
    for (uint32_t k = 0; !r && k < n; k++)
        if (xs[k]) r = visit(xs[k], ctx);
    return r;
}

int cc_ir_expr_each_child(const cc_ir_expr *e, cc_ir_expr_fn visit, void *ctx)
{
    int r;
    switch ((cc_ir_expr_kind)e->kind) {
    case CC_X_INT: case CC_X_FLOAT: case CC_X_BOOL: case CC_X_STR: case CC_X_VAR: return 0;
    case CC_X_BINARY: return (r = cc_ir_each(&e->u.bin.l, 1, visit, ctx)) ? r : cc_ir_each(&e->u.bin.r, 1, visit, ctx);
    case CC_X_UNARY: return cc_ir_each(&e->u.un.x, 1, visit, ctx);
    case CC_X_LIST: case CC_X_ARRAY: return cc_ir_each(e->u.list.items, e->u.list.n, visit, ctx);
    case CC_X_OP: return cc_ir_each(e->u.op.args, cc_ir_op_nslots((cc_ir_op)e->u.op.op), visit, ctx);
    case CC_X_CALL:
        if ((r = cc_ir_each(e->u.call.args, e->u.call.nargs, visit, ctx))) return r;
        if ((r = cc_ir_each(e->u.call.deps, e->u.call.ndeps, visit, ctx))) return r;
        if (e->u.call.blocks && (r = cc_ir_each(&e->u.call.blocks, 1, visit, ctx))) return r;
        if (e->u.call.device && (r = cc_ir_each(&e->u.call.device, 1, visit, ctx))) return r;
        return cc_ir_each(&e->u.call.pred, 1, visit, ctx);
    }
    return 0;
}

int cc_ir_stmt_each_expr(const cc_ir_stmt *s, cc_ir_expr_fn visit, void *ctx)
{
    switch ((cc_ir_stmt_kind)s->kind) {
    case CC_I_ASSIGN: return cc_ir_each(&s->u.assign.value, 1, visit, ctx);
    case CC_I_EXPR: return cc_ir_each(&s->u.expr, 1, visit, ctx);
    case CC_I_FOR: {
        cc_ir_expr *const range[] = {s->u.for_.start, s->u.for_.stop, s->u.for_.step};
        return cc_ir_each(range, 3, visit, ctx);
    }
    case CC_I_WHILE: return cc_ir_each(&s->u.while_.cond, 1, visit, ctx);
    case CC_I_IF: return cc_ir_each(&s->u.if_.cond, 1, visit, ctx);
    case CC_I_SCOPE: return 0;
    case CC_I_AT: {
        int r = cc_ir_each(s->u.at.deps, s->u.at.ndeps, visit, ctx);
        return r || !s->u.at.blocks ? r : cc_ir_each(&s->u.at.blocks, 1, visit, ctx);
    }
    case CC_I_RETURN: return cc_ir_each(s->u.ret.values, s->u.ret.n, visit, ctx);
    }
    return 0;
}

uint32_t cc_ir_stmt_blocks(const cc_ir_stmt *s, cc_ir_block *out[CC_IR_MAX_BLOCKS])
{
    cc_ir_stmt *w = (cc_ir_stmt *)s; /* handed out writable (ir_walk.h) */
    switch ((cc_ir_stmt_kind)s->kind) {
    case CC_I_ASSIGN: case CC_I_EXPR: case CC_I_RETURN: return 0;
    case CC_I_FOR: out[0] = &w->u.for_.body; return 1;
    case CC_I_WHILE: out[0] = &w->u.while_.body; return 1;
    case CC_I_IF: out[0] = &w->u.if_.then, out[1] = &w->u.if_.orelse; return 2;
    case CC_I_SCOPE: out[0] = &w->u.scope.body; return 1;
    case CC_I_AT: out[0] = &w->u.at.body; return 1;
    }
    return 0;
}

cc_ir_flow cc_ir_stmt_flow(const cc_ir_stmt *s)
{
    switch ((cc_ir_stmt_kind)s->kind) {
    case CC_I_ASSIGN: case CC_I_EXPR: case CC_I_RETURN: case CC_I_SCOPE: case CC_I_AT: return CC_IR_FLOW_SEQ;
    case CC_I_IF: return CC_IR_FLOW_BRANCH;
    case CC_I_FOR: case CC_I_WHILE: return CC_IR_FLOW_LOOP;
    }
    return CC_IR_FLOW_SEQ;
}

/* ---- any depth ------------------------------------------------------------------------------- */

typedef struct cc_ir_deep {
    cc_ir_expr_fn visit;
    void *ctx;
} cc_ir_deep;

static int cc_ir_deep_visit(cc_ir_expr *e, void *ctx)
{
    const cc_ir_deep *d = ctx;
    int r = d->visit(e, d->ctx);
    return r ? r : cc_ir_expr_each_child(e, cc_ir_deep_visit, ctx);
}

int cc_ir_expr_walk(const cc_ir_expr *e, cc_ir_expr_fn visit, void *ctx)
{
    cc_ir_deep d = {visit, ctx};
    cc_ir_expr *const root = (cc_ir_expr *)e; /* handed out writable (ir_walk.h) */
    return cc_ir_each(&root, 1, cc_ir_deep_visit, &d);
}

int cc_ir_stmt_walk_exprs(const cc_ir_stmt *s, cc_ir_expr_fn visit, void *ctx)
{
    cc_ir_deep d = {visit, ctx};
    return cc_ir_stmt_each_expr(s, cc_ir_deep_visit, &d);
}

int cc_ir_block_each_stmt(const cc_ir_block *b, cc_ir_stmt_fn visit, void *ctx)
{
    int r = 0;
    for (uint32_t k = 0; !r && k < b->n; k++) {
        cc_ir_block *kids[CC_IR_MAX_BLOCKS];
        r = visit(b->items[k], ctx);
        uint32_t n = cc_ir_stmt_blocks(b->items[k], kids);
        for (uint32_t c = 0; !r && c < n; c++) r = cc_ir_block_each_stmt(kids[c], visit, ctx);
    }
    return r;
}

static int cc_ir_stmt_deep_exprs(cc_ir_stmt *s, void *ctx) { return cc_ir_stmt_each_expr(s, cc_ir_deep_visit, ctx); }

int cc_ir_block_walk_exprs(const cc_ir_block *b, cc_ir_expr_fn visit, void *ctx)
{
    cc_ir_deep d = {visit, ctx};
    return cc_ir_block_each_stmt(b, cc_ir_stmt_deep_exprs, &d);
}

/* ---- name reads ------------------------------------------------------------------------------ */

typedef struct cc_ir_read {
    const char *name;
    const cc_ir_expr *hit;
} cc_ir_read;

static int cc_ir_read_visit(cc_ir_expr *e, void *ctx)
{
    cc_ir_read *r = ctx;
    if (e->kind != CC_X_VAR || strcmp(e->u.name, r->name)) return 0;
    r->hit = e;
    return 1;
}

int cc_ir_expr_uses(const cc_ir_expr *e, const char *name)
{
    cc_ir_read r = {name, NULL};
    return cc_ir_expr_walk(e, cc_ir_read_visit, &r);
}

static cc_ir_reach cc_ir_scan_stmt(const cc_ir_stmt *s, const char *name, cc_ir_reader *at)
{
    cc_ir_read r = {name, NULL};
    if (cc_ir_stmt_walk_exprs(s, cc_ir_read_visit, &r)) return *at = (cc_ir_reader){s, r.hit}, CC_IR_REACH_READ;
    for (uint32_t t = 0; s->kind == CC_I_ASSIGN && t < s->u.assign.ntargets; t++)
        if (!strcmp(s->u.assign.targets[t].name, name)) return CC_IR_REACH_KILLED;
    if (s->kind == CC_I_FOR && !strcmp(s->u.for_.var, name)) return CC_IR_REACH_NONE;
    cc_ir_block *kids[CC_IR_MAX_BLOCKS];
    uint32_t n = cc_ir_stmt_blocks(s, kids), killed = 0;
    cc_ir_flow flow = cc_ir_stmt_flow(s);
    int kernel = s->kind == CC_I_AT && s->u.at.level == CC_LEVEL_CORE_GROUP;
    for (uint32_t c = 0; c < n; c++) {
        cc_ir_reach k = cc_ir_scan_reads(kids[c], 0, kids[c]->n, name, at);
        if (k == CC_IR_REACH_READ) return k;
        if (k == CC_IR_REACH_KILLED && flow == CC_IR_FLOW_SEQ && !kernel) return k;
        killed += k == CC_IR_REACH_KILLED;
    }
    /* an if rebinds the name when every branch does */
    return flow == CC_IR_FLOW_BRANCH && n && killed == n ? CC_IR_REACH_KILLED : CC_IR_REACH_NONE;
}

cc_ir_reach cc_ir_scan_reads(const cc_ir_block *b, uint32_t from, uint32_t to, const char *name, cc_ir_reader *at)
{
    for (uint32_t k = from; k < to; k++) {
        cc_ir_reach r = cc_ir_scan_stmt(b->items[k], name, at);
        if (r != CC_IR_REACH_NONE) return r;
    }
    return CC_IR_REACH_NONE;
}
