/*
 * ast_walk.c - cc_expr_each_child (ast.h): the one place that knows which
 * fields of a syntax-tree expression hold sub-expressions, for the walks
 * that look for names in it (the type checker's reads before assignment
 * and `self.` references, the source printer's constants).
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
    case CC_E_LIST: case CC_E_TUPLE:
        for (uint32_t k = 0; !r && k < e->u.seq.n; k++) r = visit(e->u.seq.items[k], ctx);
        return r;
    default: return 0;
    }
}
