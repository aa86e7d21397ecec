/*
 * tc_gather_mem.c - the gather family's ops that address a Tensor window
 * directly, written as the loads, stores and tile ops they are (docs/dsl.md,
 * Operations): pl.gather_row(dst, src, dst_offset, src_offset, shapes,
 * transpose=False, valid_shape=None) is pl.assemble(dst, pl.load(src,
 * src_offset, shapes, valid_shape=), dst_offset) (the load transposed by
 * pl.transpose(.., 0, 1) when transpose=True); pl.mscatter(src, idx,
 * output_tensor) is pl.store(pl.scatter(output_tensor, src, idx), [0, 0],
 * output_tensor); pl.create_l1(shape, dtype, transpose=False), the on-chip
 * buffer gather_row fills, is kernel code's pl.create_tensor(shape,
 * dtype=dtype) (where it lives and its transposed layout are hints here).
 *
 * Invariants: the spelled form is built as syntax at the call's span and
 * checked by the ops it names, so every rule and error text is theirs; the
 * printer writes the ops it became, which parse back to the same program.
 */
#include "compiler/tc.h"

#include <string.h>

/* A node of kind k at sp (depth 1: a leaf). */
static cc_expr *gm_node(tc *t, cc_expr_kind k, cc_span sp)
{
    cc_expr *e = base_arena_alloc(t->a, sizeof *e);
    if (e) memset(e, 0, sizeof *e), e->kind = k, e->span = sp, e->depth = 1;
    return e;
}

static cc_expr *gm_int(tc *t, int64_t v, cc_span sp)
{
    cc_expr *e = gm_node(t, CC_E_INT, sp);
    if (e) e->u.i = v;
    return e;
}

/* pl.<op>(args..., kw=kwv) at sp (kw NULL: none); NULL when out of memory. */
static cc_expr *gm_call(tc *t, const char *op, cc_expr *const *args, uint32_t n, const char *kw, cc_expr *kwv, cc_span sp)
{
    cc_expr *pl = gm_node(t, CC_E_NAME, sp), *fn = gm_node(t, CC_E_ATTR, sp), *c = gm_node(t, CC_E_CALL, sp);
    cc_expr **a = base_arena_alloc(t->a, (n ? n : 1) * sizeof *a);
    cc_keyword *k = kw ? base_arena_alloc(t->a, sizeof *k) : NULL;
    if (!pl || !fn || !c || !a || (kw && !k)) return NULL;
    pl->u.name = t->pl, fn->u.attr.value = pl, fn->u.attr.name = op, fn->depth = 2;
    uint32_t depth = 2;
    for (uint32_t i = 0; i < n; i++) {
        if (!(a[i] = args[i])) return NULL;
        if (a[i]->depth > depth) depth = a[i]->depth;
    }
    if (k) {
        k->name = kw, k->name_span = kwv->span, k->value = kwv;
        if (kwv->depth > depth) depth = kwv->depth;
    }
    c->u.call.fn = fn, c->u.call.args = a, c->u.call.nargs = n, c->u.call.kws = k, c->u.call.nkws = k ? 1 : 0;
    c->depth = depth + 1;
    return depth + 1 > CC_MAX_EXPR_DEPTH ? NULL : c;
}

cc_ir_expr *tc_gather_row(tc *t, const cc_expr *call)
{
    static const char *const ps[] = {"dst", "src", "dst_offset", "src_offset", "shapes", "transpose", "valid_shape"};
    tc_args a;
    if (!tc_op_bind(t, call, "gather_row", ps, 7, &a) || !tc_need(t, call, "gather_row", &a, 5, ps)) return NULL;
    const cc_expr *tr = a.v[5];
    if (tr && tr->kind != CC_E_BOOL) return tc_err(t, CC_DIAG_SYNTAX, tr->span, NULL, "pl.gather_row() transpose must be a boolean literal (True/False)");
    int transpose = tr && tr->u.i;
    if (transpose && a.v[6])
        return tc_err(t, CC_DIAG_INVALID_OP, a.v[6]->span, NULL, "pl.gather_row: valid_shape= and transpose=True cannot be combined");
    cc_span sp = call->span;
    cc_expr *la[] = {(cc_expr *)a.v[1], (cc_expr *)a.v[3], (cc_expr *)a.v[4]};
    cc_expr *row = gm_call(t, "load", la, 3, a.v[6] ? "valid_shape" : NULL, (cc_expr *)a.v[6], sp);
    if (row && transpose) {
        cc_expr *ta[] = {row, gm_int(t, 0, sp), gm_int(t, 1, sp)};
        row = gm_call(t, "transpose", ta, 3, NULL, NULL, sp);
    }
    cc_expr *aa[] = {(cc_expr *)a.v[0], row, (cc_expr *)a.v[2]};
    cc_expr *as = row ? gm_call(t, "assemble", aa, 3, NULL, NULL, sp) : NULL;
    return as ? tc_expr(t, as) : tc_oom(t);
}

cc_ir_expr *tc_mscatter(tc *t, const cc_expr *call)
{
    static const char *const ps[] = {"src", "idx", "output_tensor"};
    tc_args a;
    if (!tc_op_bind(t, call, "mscatter", ps, 3, &a) || !tc_need(t, call, "mscatter", &a, 3, ps)) return NULL;
    cc_ir_expr *out = tc_expr(t, a.v[2]);
    if (!out) return NULL;
    if (out->type.kind != CC_T_TENSOR) {
        char ty[96];
        cc_type_format(&out->type, ty, sizeof ty);
        return tc_err(t, CC_DIAG_TYPE, a.v[2]->span, NULL, "pl.mscatter: output_tensor must be a Tensor, got %s", ty);
    }
    cc_span sp = call->span;
    cc_expr *zeros = gm_node(t, CC_E_LIST, sp), **z = base_arena_alloc(t->a, (out->type.rank ? out->type.rank : 1) * sizeof *z);
    if (!zeros || !z) return tc_oom(t);
    for (uint32_t d = 0; d < out->type.rank; d++)
        if (!(z[d] = gm_int(t, 0, sp))) return tc_oom(t);
    zeros->u.seq.items = z, zeros->u.seq.n = out->type.rank, zeros->depth = 2;
    cc_expr *sa[] = {(cc_expr *)a.v[2], (cc_expr *)a.v[0], (cc_expr *)a.v[1]};
    cc_expr *sc = gm_call(t, "scatter", sa, 3, NULL, NULL, sp);
    cc_expr *st[] = {sc, zeros, (cc_expr *)a.v[2]};
    cc_expr *s = sc ? gm_call(t, "store", st, 3, NULL, NULL, sp) : NULL;
    return s ? tc_expr(t, s) : tc_oom(t);
}

cc_ir_expr *tc_create_l1(tc *t, const cc_expr *call)
{
    static const char *const ps[] = {"shape", "dtype", "transpose"};
    tc_args a;
    if (!tc_op_bind(t, call, "create_l1", ps, 3, &a) || !tc_need(t, call, "create_l1", &a, 2, ps)) return NULL;
    const cc_expr *tr = a.v[2];
    if (tr && tr->kind != CC_E_BOOL) return tc_err(t, CC_DIAG_SYNTAX, tr->span, NULL, "pl.create_l1() transpose must be a boolean literal (True/False)");
    if (t->c.plane != TC_KERNEL) return tc_err(t, CC_DIAG_INVALID_OP, call->span, "allocate with pl.create_tensor", "pl.create_l1 applies in kernel code only");
    cc_expr *ca[] = {(cc_expr *)a.v[0]};
    cc_expr *c = gm_call(t, "create_tensor", ca, 1, "dtype", (cc_expr *)a.v[1], call->span);
    return c ? tc_expr(t, c) : tc_oom(t);
}
