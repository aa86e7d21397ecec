/*
 * tc_subscript.c - subscripts of Tensors and tiles (DSL-V2-SPEC §1.3,
 * §1.4) as the calls they stand for, checked by those calls' own code:
 *
 *   x[i0, ...]  (every index a scalar, one per axis)  -> pl.read(x, [i0, ...])
 *   x[lo:hi, i, ...]  (otherwise)                      -> pl.slice(x, [hi-lo, 1, ...], [lo, i, ...], drop_dims=[scalar axes])
 *   dst[...] = src                                     -> dst = pl.assemble(dst, src', [lo, ...])
 *
 * A slice keeps its axis (an omitted lo is 0, an omitted hi the axis'
 * extent: pl.tensor.dim(x, d) for a dynamic one), a scalar index drops it, missing trailing indices mean `:`.
 * The extent hi-lo is built so that it folds: `k0:k0+KS` is KS,
 * `k0+A:k0+B` is B-A, `k*C:(k+1)*C` is 1*C.  src' is
 * src re-viewed (pl.reshape) to the full window when axes were dropped.
 *
 * In a host function (DISTRIBUTED-SPEC §1.2) a Tensor's subscript takes integer indices
 * only (a zero-copy view dropping those axes; lowered as a host VIEW).
 *
 * Invariants: the built calls are syntax trees in the arena, spanned at
 * what the user wrote (an index at its index, the call at the subscript),
 * so the calls' diagnostics point into the subscript; nothing here
 * changes the checked program but through them.
 */
#include "compiler/tc.h"

#include <stdio.h>
#include <string.h>

static cc_expr *ts_new(tc *t, cc_expr_kind k, cc_span sp)
{
    cc_expr *e = base_arena_alloc(t->a, sizeof *e);
    if (!e) return tc_oom(t);
    memset(e, 0, sizeof *e);
    e->kind = k, e->span = sp, e->depth = 1;
    return e;
}

static cc_expr *ts_int(tc *t, int64_t v, cc_span sp)
{
    cc_expr *e = ts_new(t, CC_E_INT, sp);
    if (e) e->u.i = v;
    return e;
}

static cc_expr *ts_list(tc *t, cc_expr **items, uint32_t n, cc_span sp)
{
    cc_expr *e = ts_new(t, CC_E_LIST, sp);
    if (!e) return NULL;
    if (n && !(e->u.seq.items = base_arena_alloc(t->a, n * sizeof *items))) return tc_oom(t);
    if (n) memcpy(e->u.seq.items, items, n * sizeof *items);
    e->u.seq.n = n;
    for (uint32_t k = 0; k < n; k++)
        if (items[k]->depth + 1 > e->depth) e->depth = items[k]->depth + 1;
    return e;
}

/* pl.<name>(args..., kw=kwv) (kw NULL: none). */
static cc_expr *ts_call(tc *t, const char *name, cc_expr **args, uint32_t n, const char *kw, cc_expr *kwv, cc_span sp)
{
    cc_expr *pl = ts_new(t, CC_E_NAME, sp), *fn = ts_new(t, CC_E_ATTR, sp), *c = ts_new(t, CC_E_CALL, sp);
    if (!pl || !fn || !c || !(c->u.call.args = base_arena_alloc(t->a, n * sizeof *args))) return tc_oom(t);
    pl->u.name = t->pl ? t->pl : "pl";
    fn->u.attr.value = pl, fn->u.attr.name = name, fn->depth = 2;
    memcpy(c->u.call.args, args, n * sizeof *args);
    c->u.call.fn = fn, c->u.call.nargs = n;
    if (kw) {
        if (!(c->u.call.kws = base_arena_alloc(t->a, sizeof *c->u.call.kws))) return tc_oom(t);
        c->u.call.kws[0] = (cc_keyword){kw, kwv->span, kwv};
        c->u.call.nkws = 1;
    }
    return c;
}

/* Do a and b spell the same scalar expression? */
static int ts_same(const cc_expr *a, const cc_expr *b)
{
    if (a->kind != b->kind) return 0;
    switch (a->kind) {
    case CC_E_NAME: return !strcmp(a->u.name, b->u.name);
    case CC_E_INT: return a->u.i == b->u.i;
    case CC_E_ATTR: return !strcmp(a->u.attr.name, b->u.attr.name) && ts_same(a->u.attr.value, b->u.attr.value);
    case CC_E_BINARY: return a->u.bin.op == b->u.bin.op && ts_same(a->u.bin.left, b->u.bin.left) && ts_same(a->u.bin.right, b->u.bin.right);
    case CC_E_UNARY: return a->u.un.op == b->u.un.op && ts_same(a->u.un.operand, b->u.un.operand);
    default: return 0;
    }
}

static cc_expr *ts_bin(tc *t, cc_op op, cc_expr *l, cc_expr *r, cc_span sp)
{
    cc_expr *e = l && r ? ts_new(t, CC_E_BINARY, sp) : NULL;
    if (!e) return NULL;
    e->u.bin.op = op, e->u.bin.left = l, e->u.bin.right = r;
    e->depth = (l->depth > r->depth ? l->depth : r->depth) + 1;
    return e;
}

static int ts_is(const cc_expr *e, cc_op op) { return e->kind == CC_E_BINARY && e->u.bin.op == op; }

/* hi - lo (lo NULL: 0), folded where the spelling shows it: two literals,
 * hi = lo + e or e + lo -> e; a term both share goes: (x + a):(x + b) ->
 * b - a, (a * c):(b * c) -> (b - a) * c (so k*C:(k+1)*C is 1 * C). */
static cc_expr *ts_extent(tc *t, const cc_expr *lo, cc_expr *hi)
{
    if (!lo) return hi;
    if (lo->kind == CC_E_INT && hi->kind == CC_E_INT) return ts_int(t, hi->u.i - lo->u.i, hi->span);
    if (ts_is(hi, CC_OP_ADD)) {
        if (ts_same(hi->u.bin.left, lo)) return hi->u.bin.right;
        if (ts_same(hi->u.bin.right, lo)) return hi->u.bin.left;
    }
    if (hi->depth < CC_MAX_EXPR_DEPTH && lo->kind == CC_E_BINARY && ts_is(hi, lo->u.bin.op) &&
        (lo->u.bin.op == CC_OP_ADD || lo->u.bin.op == CC_OP_MUL)) {
        const cc_expr *l = lo->u.bin.left, *r = lo->u.bin.right;
        cc_op op = lo->u.bin.op;
        if (ts_same(l, hi->u.bin.left))
            return op == CC_OP_ADD ? ts_extent(t, r, hi->u.bin.right)
                                   : ts_bin(t, CC_OP_MUL, hi->u.bin.left, ts_extent(t, r, hi->u.bin.right), hi->span);
        if (ts_same(r, hi->u.bin.right))
            return op == CC_OP_ADD ? ts_extent(t, l, hi->u.bin.left)
                                   : ts_bin(t, CC_OP_MUL, ts_extent(t, l, hi->u.bin.left), hi->u.bin.right, hi->span);
    }
    return ts_bin(t, CC_OP_SUB, hi, (cc_expr *)lo, hi->span);
}

/* Axis d's extent of x (of type ty): the constant, or pl.tensor.dim(x, d) for a dynamic one. */
static cc_expr *ts_axis_extent(tc *t, cc_expr *x, const cc_type *ty, uint32_t d, cc_span sp)
{
    if (!CC_DIM_IS_DYN(ty->shape[d])) return ts_int(t, ty->shape[d], sp);
    cc_expr *args[2] = {x, ts_int(t, d, sp)}, *ns = ts_new(t, CC_E_ATTR, sp);
    cc_expr *c = args[1] && ns ? ts_call(t, "dim", args, 2, NULL, NULL, sp) : NULL;
    if (!c) return NULL;
    ns->u.attr.value = c->u.call.fn->u.attr.value, ns->u.attr.name = "tensor", ns->depth = 2;
    c->u.call.fn->u.attr.value = ns, c->u.call.fn->depth = 3; /* pl.tensor.dim */
    return c;
}

/* One subscript's window over an operand of type ty. */
typedef struct ts_window {
    uint32_t n;                  /* indices written */
    cc_expr *lo[CC_MAX_RANK];    /* per axis: the offset */
    cc_expr *ext[CC_MAX_RANK];   /* per axis: the extent (1 for a scalar index) */
    unsigned scalars;            /* axes indexed by a scalar */
} ts_window;

static const char *ts_kind(const cc_type *ty) { return ty->kind == CC_T_TENSOR || ty->from_tensors ? "tensor" : "tile"; }

/* The window of subscript e over ty; write: the §1.4 texts; 0 when reported. */
static int ts_window_of(tc *t, const cc_expr *e, const cc_type *ty, int write, ts_window *w)
{
    const cc_expr *ix = e->u.sub.index;
    uint32_t n = ix->kind == CC_E_TUPLE ? ix->u.seq.n : 1, r = ty->rank;
    cc_expr *const *items = ix->kind == CC_E_TUPLE ? ix->u.seq.items : (cc_expr *const *)&e->u.sub.index;
    const char *kind = ts_kind(ty);
    if (n > r) {
        if (write)
            return tc_err(t, CC_DIAG_TYPE, e->span, NULL, "%s subscript-write has %u indices but the %s is %uD", kind[1] == 'e' ? "Tensor" : "Tile", n,
                          kind, r), 0;
        return tc_err(t, CC_DIAG_TYPE, e->span, NULL, "%s subscript has %u indices but the %s is %uD", kind[1] == 'e' ? "Tensor" : "Tile", n, kind,
                      r), 0;
    }
    memset(w, 0, sizeof *w);
    w->n = n;
    for (uint32_t d = 0; d < r; d++) {
        const cc_expr *it = d < n ? items[d] : NULL;
        if (it && it->kind != CC_E_SLICE) {
            w->lo[d] = (cc_expr *)it, w->scalars |= 1u << d;
            if (!(w->ext[d] = ts_int(t, 1, it->span))) return 0;
            continue;
        }
        if (it && it->u.slice.step) {
            if (write) return tc_err(t, CC_DIAG_UNSUPPORTED, it->span, NULL, "Slice step is not supported in %s subscript-write", kind), 0;
            return tc_err(t, CC_DIAG_UNSUPPORTED, it->span, NULL, "Slice step is not supported in %s subscript", kind), 0;
        }
        cc_span sp = it ? it->span : e->span;
        const cc_expr *lo = it ? it->u.slice.lo : NULL;
        cc_expr *hi = it && it->u.slice.hi ? it->u.slice.hi : ts_axis_extent(t, e->u.sub.value, ty, d, sp);
        if (!hi || !(w->lo[d] = lo ? (cc_expr *)lo : ts_int(t, 0, sp)) || !(w->ext[d] = ts_extent(t, lo, hi))) return 0;
    }
    return 1;
}

/* A host subscript x[i, ...] (DISTRIBUTED-SPEC §1.2): integer indices only; slices and negative
 * constants are later.  0 when reported. */
static int ts_host_indices(tc *t, const cc_expr *e)
{
    const cc_expr *ix = e->u.sub.index;
    uint32_t n = ix->kind == CC_E_TUPLE ? ix->u.seq.n : 1;
    for (uint32_t d = 0; d < n; d++) {
        const cc_expr *it = ix->kind == CC_E_TUPLE ? ix->u.seq.items[d] : ix;
        int neg = it->kind == CC_E_UNARY && it->u.un.op == CC_OP_NEG && it->u.un.operand->kind == CC_E_INT;
        if (it->kind == CC_E_SLICE || neg)
            return tc_err(t, CC_DIAG_UNSUPPORTED, it->span, NULL, "%s is not supported in this version",
                          neg ? "a negative host subscript index" : "a slice in a host subscript"), 0;
    }
    return 1;
}

cc_ir_expr *tc_subscript(tc *t, const cc_expr *e)
{
    cc_ir_expr *x = tc_expr(t, e->u.sub.value);
    if (!x) return NULL;
    if (x->type.kind == CC_T_ARRAY) return tc_array_get(t, e, x);
    if (x->type.kind != CC_T_TENSOR && x->type.kind != CC_T_TILE)
        return tc_err(t, CC_DIAG_UNSUPPORTED, e->span, NULL, "a subscript is not supported in this version");
    if (t->c.host && x->type.kind == CC_T_TENSOR && !ts_host_indices(t, e)) return NULL;
    ts_window w;
    uint32_t r = x->type.rank;
    if (!ts_window_of(t, e, &x->type, 0, &w)) return NULL;
    cc_expr *args[3] = {e->u.sub.value, NULL, NULL}, *drop = NULL;
    if (w.scalars == (1u << r) - 1) { /* an element */
        if (!(args[1] = ts_list(t, w.lo, r, e->u.sub.index->span))) return NULL;
        cc_expr *c = ts_call(t, "read", args, 2, NULL, NULL, e->span);
        return c ? tc_expr(t, c) : NULL;
    }
    cc_expr *axes[CC_MAX_RANK];
    uint32_t na = 0;
    for (uint32_t d = 0; d < r; d++)
        if (w.scalars & (1u << d) && !(axes[na++] = ts_int(t, d, w.lo[d]->span))) return NULL;
    if (!(args[1] = ts_list(t, w.ext, r, e->u.sub.index->span)) || !(args[2] = ts_list(t, w.lo, r, e->u.sub.index->span)) ||
        (na && !(drop = ts_list(t, axes, na, e->u.sub.index->span))))
        return NULL;
    cc_expr *c = ts_call(t, "slice", args, 3, na ? "drop_dims" : NULL, drop, e->span);
    return c ? tc_expr(t, c) : NULL;
}

static void ts_append(char *buf, size_t cap, const char *s)
{
    size_t n = strlen(buf);
    if (n + 1 < cap) snprintf(buf + n, cap - n, "%s", s);
}

/* "x", "self.x", "f(...)", "x[...]": the target's spelling in a message, appended to buf. */
static void ts_spell(const cc_expr *e, char *buf, size_t cap)
{
    switch (e->kind) {
    case CC_E_NAME: ts_append(buf, cap, e->u.name); return;
    case CC_E_ATTR: ts_spell(e->u.attr.value, buf, cap), ts_append(buf, cap, "."), ts_append(buf, cap, e->u.attr.name); return;
    case CC_E_CALL: ts_spell(e->u.call.fn, buf, cap), ts_append(buf, cap, "(...)"); return;
    case CC_E_SUBSCRIPT: ts_spell(e->u.sub.value, buf, cap), ts_append(buf, cap, "[...]"); return;
    default: ts_append(buf, cap, "an expression"); return;
    }
}

const cc_stmt *tc_subscript_write(tc *t, const cc_stmt *s)
{
    const cc_expr *x = s->u.assign.targets[0], *base = x->u.sub.value;
    char ty[96] = "";
    if (base->kind != CC_E_NAME) {
        ts_spell(base, ty, sizeof ty);
        return tc_err(t, CC_DIAG_SYNTAX, base->span, NULL, "Subscript-write target must be a variable name, got %s", ty);
    }
    cc_ir_expr *dst = tc_expr(t, base);
    if (!dst) return NULL;
    if (dst->type.kind != CC_T_TENSOR && dst->type.kind != CC_T_TILE) {
        cc_type_format(&dst->type, ty, sizeof ty);
        return tc_err(t, CC_DIAG_TYPE, base->span, NULL, "Subscript-write requires a Tensor, Tile, or Array target, got %s", ty);
    }
    const cc_type *tt = &dst->type;
    uint32_t r = tt->rank;
    const char *kind = ts_kind(tt);
    ts_window w;
    if (!ts_window_of(t, x, tt, 1, &w)) return NULL;
    if (w.scalars == (1u << r) - 1)
        return tc_err(t, CC_DIAG_UNSUPPORTED, x->span, "Use slice indices (e.g. 'dst[i:i+1, j:j+1] = tile_1x1') or index fewer axes",
                      "Element-write 'dst[i, j] = scalar' is not supported for %s targets", kind);
    const cc_expr *value = s->u.assign.value;
    cc_ir_expr *src = tc_expr(t, value);
    if (!src) return NULL;
    if (src->type.kind != CC_T_TENSOR && src->type.kind != CC_T_TILE) {
        cc_type_format(&src->type, ty, sizeof ty);
        return tc_err(t, CC_DIAG_TYPE, value->span, NULL, "Subscript-write source must also be a %s, got %s", kind, ty);
    }
    /* the source's rank: the window's less the scalar axes; a tile may keep leading unit axes up to rank 2 */
    uint32_t wr = r, m = src->type.rank, k = r < 2 ? r : 2;
    for (uint32_t d = 0; d < r; d++) wr -= (w.scalars >> d) & 1u;
    int unit_ok = src->type.kind == CC_T_TILE && wr < k;
    if (m != wr && !(unit_ok && m > wr && m <= k)) {
        if (unit_ok)
            return tc_err(t, CC_DIAG_TYPE, value->span, NULL, "Subscript-write source must be %uD or %uD to match the rank-reduced %s window, got %uD",
                          wr, k, kind, m);
        return tc_err(t, CC_DIAG_TYPE, value->span, NULL, "Subscript-write source must be %uD to match the rank-reduced %s window, got %uD", wr, kind, m);
    }
    /* source axis a against the window: its leading extra axes are unit axes of the window */
    int64_t full[CC_MAX_RANK];
    int constant = 1;
    for (uint32_t d = 0; d < r; d++) {
        const cc_expr *c = tc_module_constant_ast(t, w.ext[d]);
        full[d] = c->kind == CC_E_INT ? c->u.i : -1;
        if (full[d] < 0) constant = 0;
    }
    for (uint32_t a = 0, d = 0; a < m; a++) {
        int64_t want = 1;
        if (a >= m - wr) {
            while (w.scalars & (1u << d)) d++;
            want = full[d++];
        }
        if (want >= 0 && want != src->type.shape[a])
            return tc_err(t, CC_DIAG_TYPE, value->span, NULL, "Subscript-write shape mismatch on source axis %u: window expects %lld elements, source has %lld",
                          a, (long long)want, (long long)src->type.shape[a]);
    }
    cc_expr *source = (cc_expr *)value;
    if (m != r) { /* re-viewed to the full window */
        if (src->type.kind == CC_T_TILE && src->type.partial)
            return tc_err(t, CC_DIAG_UNSUPPORTED, value->span, NULL,
                          "Subscript-write with rank reduction is not supported when the source tile carries an explicit valid_shape — tile.reshape "
                          "cannot carry valid_shape across the rank lift.");
        if (!constant)
            return tc_err(t, CC_DIAG_TYPE, x->span, NULL, "Subscript-write with rank reduction needs compile-time constant window extents");
        cc_expr *rs[2] = {source, ts_list(t, w.ext, r, x->u.sub.index->span)};
        if (!rs[1] || !(source = ts_call(t, "reshape", rs, 2, NULL, NULL, value->span))) return NULL;
    }
    cc_expr *args[3] = {(cc_expr *)base, source, ts_list(t, w.lo, r, x->u.sub.index->span)};
    cc_expr *call = args[2] ? ts_call(t, "assemble", args, 3, NULL, NULL, x->span) : NULL;
    cc_stmt *d = call ? base_arena_alloc(t->a, sizeof *d) : NULL;
    if (!call || !d) return call ? tc_oom(t) : NULL;
    *d = *s;
    d->u.assign.value = call;
    if (!(d->u.assign.targets = base_arena_alloc(t->a, sizeof *d->u.assign.targets))) return tc_oom(t);
    d->u.assign.targets[0] = (cc_expr *)base;
    return d;
}
