/*
 * dim_expr.c - evaluating a derived dimension (dim_expr.h): a small stack
 * machine, Python's floor division and modulo.
 */
#include "compiler/dim_expr.h"

#include <limits.h>
#include <stddef.h>

const cc_dim_expr *cc_dim_expr_find(const cc_dim_expr *dims, uint32_t n, int64_t dim)
{
    for (uint32_t k = 0; k < n; k++)
        if (dims[k].dim == dim) return &dims[k];
    return NULL;
}

static int64_t dx_floordiv(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

int cc_dim_expr_eval(const cc_dim_expr *e, int (*extent)(void *ctx, int64_t dim, int64_t *v), void *ctx, int64_t *out)
{
    int64_t st[CC_DIM_EXPR_MAX];
    int sp = 0;
    for (uint32_t k = 0; k < e->n; k++) {
        const cc_dx_item *it = &e->code[k];
        if (it->op == CC_DX_CONST) {
            st[sp++] = it->v;
            continue;
        }
        if (it->op == CC_DX_DIM) {
            if (!extent(ctx, it->v, &st[sp])) return 0;
            sp++;
            continue;
        }
        if (sp < 2) return 0;
        int64_t b = st[--sp], a = st[sp - 1];
        switch ((cc_dx_op)it->op) {
        case CC_DX_ADD: if (__builtin_add_overflow(a, b, &a)) return 0; break;
        case CC_DX_SUB: if (__builtin_sub_overflow(a, b, &a)) return 0; break;
        case CC_DX_MUL: if (__builtin_mul_overflow(a, b, &a)) return 0; break;
        case CC_DX_FLOORDIV: if (!b || (a == INT64_MIN && b == -1)) return 0; a = dx_floordiv(a, b); break;
        case CC_DX_MOD: if (!b || (a == INT64_MIN && b == -1)) return 0; a -= dx_floordiv(a, b) * b; break;
        default: return 0;
        }
        st[sp - 1] = a;
    }
    if (sp != 1) return 0;
    *out = st[0];
    return 1;
}
