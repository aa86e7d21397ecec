/*
 * tc_dim_expr.c - the type checker's derived dimensions (dim_expr.h): an
 * annotation dimension that is integer arithmetic over DynVars and
 * constants (`N * 2`, `(M + 1) // 2`) becomes one symbol of the program,
 * and a kernel's call site substitutes its bindings into it.
 *
 * Invariants: the operators are + - * // % (Python's integer meaning);
 * operands are DynVars, integer constants (literals, module constants) and
 * such expressions; equal code is one symbol (so `[N * 2, 64]` in two
 * annotations is one dimension); the text is rendered from the code with
 * Python's precedence, so it prints back and parses to the same code.  At a
 * call, a derived dimension whose DynVars the call binds to constants is
 * that constant (checked against the argument: here, or at submit for a
 * run-time extent); one whose DynVars bind to the caller's symbols is the
 * expression over those (a kernel checks it when its task runs).
 */
#include <string.h>

#include "base/strbuf.h"
#include "compiler/tc.h"

#define TC_MAX_DERIVED_DIMS 256

static int dx_push(tc *t, cc_dim_expr *d, cc_span sp, cc_dx_item it)
{
    if (d->n == CC_DIM_EXPR_MAX)
        return tc_err(t, CC_DIAG_UNSUPPORTED, sp, NULL, "a dimension expression of more than %d terms is not supported in this version", CC_DIM_EXPR_MAX), 0;
    d->code[d->n++] = it;
    return 1;
}

/* Appends e's code to d; 0 when reported. */
static int dx_expr(tc *t, const cc_expr *e, cc_dim_expr *d)
{
    int64_t v;
    const char *name;
    int r = e->kind == CC_E_NAME ? tc_dynvar(t, e, &v, &name) : 0;
    if (r < 0) return 0;
    if (r) return dx_push(t, d, e->span, (cc_dx_item){CC_DX_DIM, v, name});
    if (e->kind != CC_E_BINARY) {
        if (!tc_const_int(t, e, &v, "dimension expressions over pl.dynamic")) return 0;
        return dx_push(t, d, e->span, (cc_dx_item){CC_DX_CONST, v, NULL});
    }
    static const uint8_t ops[] = {[CC_OP_ADD] = CC_DX_ADD, [CC_OP_SUB] = CC_DX_SUB, [CC_OP_MUL] = CC_DX_MUL,
                                  [CC_OP_FLOORDIV] = CC_DX_FLOORDIV, [CC_OP_MOD] = CC_DX_MOD};
    cc_op op = e->u.bin.op;
    if (op > CC_OP_MOD || op == CC_OP_DIV)
        return tc_err(t, CC_DIAG_UNSUPPORTED, e->span, op == CC_OP_DIV ? "divide with //" : NULL,
                       "the operator '%s' over pl.dynamic dimensions is not supported in this version", cc_op_text(op)), 0;
    return dx_expr(t, e->u.bin.left, d) && dx_expr(t, e->u.bin.right, d) && dx_push(t, d, e->span, (cc_dx_item){ops[op], 0, NULL});
}

/* x's text, Python's precedence (1: + -, 2: * // %, 3: an operand; a right operand of
 * its operator's level keeps its parentheses: a + (b - c)), into the arena; NULL when out of memory. */
static const char *dx_render(tc *t, const cc_dim_expr *x)
{
    static const char *const sym[] = {[CC_DX_ADD] = "+", [CC_DX_SUB] = "-", [CC_DX_MUL] = "*", [CC_DX_FLOORDIV] = "//", [CC_DX_MOD] = "%"};
    base_strbuf st[CC_DIM_EXPR_MAX] = {0};
    int level[CC_DIM_EXPR_MAX], sp = 0;
    for (uint32_t k = 0; k < x->n; k++) {
        const cc_dx_item *it = &x->code[k];
        if (it->op == CC_DX_CONST || it->op == CC_DX_DIM) {
            if (it->op == CC_DX_DIM) base_strbuf_puts(&st[sp], it->name ? it->name : "?");
            else base_strbuf_printf(&st[sp], "%lld", (long long)it->v);
            level[sp++] = 3;
            continue;
        }
        int lv = it->op == CC_DX_ADD || it->op == CC_DX_SUB ? 1 : 2, lp = level[sp - 2] < lv, rp = level[sp - 1] <= lv;
        base_strbuf e = {0};
        base_strbuf_printf(&e, "%s%s%s %s %s%s%s", lp ? "(" : "", st[sp - 2].s ? st[sp - 2].s : "", lp ? ")" : "", sym[it->op], rp ? "(" : "",
                           st[sp - 1].s ? st[sp - 1].s : "", rp ? ")" : "");
        base_strbuf_free(&st[sp - 2]), base_strbuf_free(&st[sp - 1]);
        st[sp - 2] = e, level[sp - 2] = lv, sp--;
    }
    const char *text = st[0].s ? base_arena_strndup(t->a, st[0].s, st[0].len) : NULL;
    for (int k = 0; k < CC_DIM_EXPR_MAX; k++) base_strbuf_free(&st[k]);
    return text ? text : tc_oom(t);
}

/* x's shape entry and text: an earlier one with equal code, else a new entry of the program's table. */
static int dx_register(tc *t, cc_dim_expr *x, cc_span sp, int64_t *dim, const char **name)
{
    cc_ir_program *p = t->p;
    for (uint32_t k = 0; k < p->ndims; k++) {
        const cc_dim_expr *d = &p->dims[k];
        int same = d->n == x->n;
        for (uint32_t i = 0; same && i < d->n; i++) same = d->code[i].op == x->code[i].op && d->code[i].v == x->code[i].v;
        if (same) return *dim = d->dim, *name = d->text, 1;
    }
    if (!p->dims && !(p->dims = base_arena_alloc(t->a, TC_MAX_DERIVED_DIMS * sizeof *p->dims))) return tc_oom(t), 0;
    if (p->ndims == TC_MAX_DERIVED_DIMS)
        return tc_err(t, CC_DIAG_UNSUPPORTED, sp, NULL, "more than %d dimension expressions in one program are not supported", TC_MAX_DERIVED_DIMS), 0;
    if (!(x->text = dx_render(t, x))) return 0;
    x->dim = CC_DIM_DYN(CC_DIM_DERIVED0 + p->ndims);
    p->dims[p->ndims++] = *x;
    return *dim = x->dim, *name = x->text, 1;
}

int tc_derived_dim(tc *t, const cc_expr *e, int64_t *dim, const char **name)
{
    cc_dim_expr x = {0};
    return dx_expr(t, e, &x) && dx_register(t, &x, e->span, dim, name);
}

/* The constant a call site binds DynVar dimension dim to (dim_expr.h's extent callback). */
static int tc_bound_constant(void *ctx, int64_t dim, int64_t *v)
{
    const tc_dyn_bindings *b = ctx;
    for (uint32_t k = 0; k < b->n; k++)
        if (b->items[k].sym == dim && !CC_DIM_IS_DYN(b->items[k].value)) return *v = b->items[k].value, 1;
    return 0;
}

/* Dimension d of parameter ip (annotation dimension x) at a call with argument arg. */
static int tc_bind_derived_dim(tc *t, const cc_ir_func *f, cc_ir_param *ip, const cc_ir_expr *arg, uint32_t d, const cc_dim_expr *x)
{
    const tc_dyn_bindings *b = &t->c.dyn;
    int64_t want;
    if (cc_dim_expr_eval(x, tc_bound_constant, (void *)b, &want)) { /* every DynVar a constant here */
        int64_t got = arg->type.shape[d];
        if (!CC_DIM_IS_DYN(got) && got != want)
            return tc_err(t, CC_DIAG_TYPE, arg->span, NULL, "'%s' parameter '%s': its dimension %s is %lld at this call, got %lld", f->name,
                           ip->name, x->text, (long long)want, (long long)got), 0;
        if (f->kind == CC_FUNC_INCORE) ip->type.shape[d] = want, ip->type.dyn[d] = NULL; /* a run-time extent: checked at submit */
        return 1;
    }
    if (f->kind != CC_FUNC_INCORE) return 1;
    cc_dim_expr y = *x; /* the expression over the caller's symbols: the kernel checks it when its task runs */
    for (uint32_t i = 0; i < y.n; i++) {
        cc_dx_item *it = &y.code[i];
        for (uint32_t k = 0; it->op == CC_DX_DIM && k < b->n; k++)
            if (b->items[k].sym == it->v) {
                it->v = b->items[k].value, it->name = b->items[k].name;
                break;
            }
    }
    return dx_register(t, &y, arg->span, &ip->type.shape[d], &ip->type.dyn[d]);
}

int tc_bind_derived(tc *t, cc_ir_func *f, cc_ir_expr *const *args, const cc_type *anns)
{
    for (uint32_t k = 0; k < f->nparams; k++)
        for (uint32_t d = 0; anns[k].kind == CC_T_TENSOR && d < anns[k].rank; d++) {
            const cc_dim_expr *x = CC_DIM_IS_DERIVED(anns[k].shape[d]) ? cc_dim_expr_find(t->p->dims, t->p->ndims, anns[k].shape[d]) : NULL;
            if (x && !tc_bind_derived_dim(t, f, &f->params[k], args[k], d, x)) return 0;
        }
    return 1;
}
