/*
 * ast_walk.c - cc_expr_each_child and cc_stmt_each_expr (ast.h): the one
 * place that knows which fields of a syntax-tree node hold expressions,
 * for the walks that look for names (the type checker's reads before
 * assignment and `self.` references, the source printer's constants).
 */
#include "compiler/ast.h"

int cc_expr_each_child(const cc_expr *e, int (*visit)(const cc_expr *child, void *ctx), void *ctx)
{
    int r = 0;
    switch (e->kind) {
    case CC_E_ATTR: return visit(e->u.attr.value, ctx);
    case CC_E_CALL:
        r = visit(e->u.call.fn, ctx);
        for (uint32_t k = 0; !r && k < e->u.call.nargs; k++) r = visit(e->u.call.args[k], ctx);
        for (uint32_t k = 0; !r && k < e->u.call.nkws; k++) r = visit(e->u.call.kws[k].value, ctx);
        return r;
    case CC_E_SUBSCRIPT: return (r = visit(e->u.sub.value, ctx)) ? r : visit(e->u.sub.index, ctx);
    case CC_E_BINARY: case CC_E_COMPARE: case CC_E_BOOLOP:
        return (r = visit(e->u.bin.left, ctx)) ? r : visit(e->u.bin.right, ctx);
    case CC_E_UNARY: return visit(e->u.un.operand, ctx);
    case CC_E_SLICE:
        if (e->u.slice.lo && (r = visit(e->u.slice.lo, ctx))) return r;
        if (e->u.slice.hi && (r = visit(e->u.slice.hi, ctx))) return r;
        return e->u.slice.step ? visit(e->u.slice.step, ctx) : 0;
    case CC_E_LIST: case CC_E_TUPLE:
        for (uint32_t k = 0; !r && k < e->u.seq.n; k++) r = visit(e->u.seq.items[k], ctx);
        return r;
    default: return 0;
    }
}

static void cc_block_each_expr(const cc_block *b, int (*visit)(const cc_expr *e, void *ctx), void *ctx)
{
    for (uint32_t k = 0; k < b->n; k++) cc_stmt_each_expr(b->items[k], visit, ctx);
}

void cc_stmt_each_expr(const cc_stmt *s, int (*visit)(const cc_expr *e, void *ctx), void *ctx)
{
    switch (s->kind) {
    case CC_S_EXPR: visit(s->u.expr, ctx); break;
    case CC_S_ASSIGN:
        for (uint32_t k = 0; k < s->u.assign.ntargets; k++) visit(s->u.assign.targets[k], ctx);
        if (s->u.assign.annotation) visit(s->u.assign.annotation, ctx);
        visit(s->u.assign.value, ctx);
        break;
    case CC_S_AUGASSIGN: visit(s->u.aug.target, ctx), visit(s->u.aug.value, ctx); break;
    case CC_S_FOR: visit(s->u.for_.iter, ctx), cc_block_each_expr(&s->u.for_.body, visit, ctx); break;
    case CC_S_WHILE: visit(s->u.while_.cond, ctx), cc_block_each_expr(&s->u.while_.body, visit, ctx); break;
    case CC_S_IF:
        visit(s->u.if_.cond, ctx);
        cc_block_each_expr(&s->u.if_.then, visit, ctx), cc_block_each_expr(&s->u.if_.orelse, visit, ctx);
        break;
    case CC_S_WITH:
        for (uint32_t k = 0; k < s->u.with.nitems; k++) visit(s->u.with.items[k].context, ctx);
        cc_block_each_expr(&s->u.with.body, visit, ctx);
        break;
    case CC_S_RETURN:
        for (uint32_t k = 0; k < s->u.ret.n; k++) visit(s->u.ret.values[k], ctx);
        break;
    case CC_S_DEF: case CC_S_CLASS:
        for (uint32_t k = 0; k < s->u.def.ndecorators; k++) visit(s->u.def.decorators[k], ctx);
        for (uint32_t k = 0; k < s->u.def.nparams; k++) {
            if (s->u.def.params[k].annotation) visit(s->u.def.params[k].annotation, ctx);
            if (s->u.def.params[k].default_value) visit(s->u.def.params[k].default_value, ctx);
        }
        if (s->u.def.returns) visit(s->u.def.returns, ctx);
        cc_block_each_expr(&s->u.def.body, visit, ctx);
        break;
    case CC_S_PASS: break;
    }
}
