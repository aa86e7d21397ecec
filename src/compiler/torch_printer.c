/*
 * torch_printer.c - the post-pass IR as executable torch source
 * (pypto.debug.torch_codegen, DSL-V2-SPEC §2 I-tc; docs/dsl.md,
 * "Introspection and tools").
 *
 * Output: `import torch`, then one `def <name>(<params>):` per
 * Orchestration function, in the program's order.  Each holds, first, a
 * nested def per InCore function it calls (the kernel's body as torch ops),
 * then its own statements.  Values: a tensor is the caller's torch tensor
 * (written in place: a store, an assemble into a tensor, a write); a tile
 * is a torch tensor of its valid region (the tile VM's prefix box; the
 * VM's zeros outside it are left out, and put back where an op reads them:
 * fillpad, concat, matmul's K), never written in place (a load clones its
 * window, an assemble into a tile clones the tile first); a scalar is a
 * Python number; a TaskId is None.  Where a valid region may be smaller
 * than the shape (cc_type.partial) the op is a lambda applied to its
 * operands, so each is computed once.  Scopes and grouping pl.at bodies
 * are transparent; deps= are dropped (Python runs in order).  An SPMD
 * kernel (one that reads the block index or count) takes `_block=0,
 * _nblocks=1`, and a call of n blocks runs it for each block in order.
 *
 * Invariants:
 *  - Ops translate as torch_ops.c says; the first op with no translation
 *    stops the print (the caller discards the text).
 *  - A name the narrowed map holds is printed as a possibly narrowed tile
 *    wherever it is read (the map is filled to a fixpoint per function).
 */
#include "compiler/torch_printer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/ir_walk.h"
#include "compiler/printer.h"
#include "compiler/torch_int.h"

void tp_no_translation(tp *t, const cc_ir_expr *e)
{
    if (t->failed) return;
    t->failed = 1;
    cc_diag_add(t->d, CC_DIAG_UNSUPPORTED, e->span, NULL, "torch_codegen: '%s' has no torch translation in this version",
                cc_ir_op_name((cc_ir_op)e->u.op.op));
}

void tp_exprs(tp *t, cc_ir_expr *const *xs, uint32_t n)
{
    for (uint32_t k = 0; k < n; k++) {
        if (k) base_strbuf_puts(t->out, ", ");
        tp_expr(t, xs[k]);
    }
}

/* A window of x: x[o0:o0 + e0, ...] (offsets a LIST); extent d is
 * ext->u.list.items[d] (ext a LIST), else `<named>.shape[d]` (named not
 * NULL), else shape[d].  Python's slicing cuts the window at x's edge
 * (clamp=). */
void tp_window(tp *t, const cc_ir_expr *x, const cc_ir_expr *offs, const int64_t *shape, unsigned rank,
               const cc_ir_expr *ext, const char *named)
{
    tp_expr(t, x);
    base_strbuf_puts(t->out, "[");
    for (unsigned d = 0; d < rank; d++) {
        const cc_ir_expr *o = offs->u.list.items[d];
        int64_t c, n;
        int fixed = !ext && !named;
        if (ext && cc_ir_const_int(ext->u.list.items[d], &n)) fixed = 1;
        else n = shape[d];
        if (d) base_strbuf_puts(t->out, ", ");
        if (cc_ir_const_int(o, &c) && fixed) {
            base_strbuf_printf(t->out, "%lld:%lld", (long long)c, (long long)(c + n));
            continue;
        }
        tp_expr(t, o);
        base_strbuf_puts(t->out, ":");
        tp_expr(t, o);
        base_strbuf_puts(t->out, " + ");
        if (fixed) base_strbuf_printf(t->out, "%lld", (long long)n);
        else if (ext) tp_expr(t, ext->u.list.items[d]);
        else base_strbuf_printf(t->out, "%s.shape[%u]", named, d);
    }
    base_strbuf_puts(t->out, "]");
}

/* Is the window of offsets offs over an array of rank rank expressible (one offset per axis)? */
int tp_window_ok(const cc_ir_expr *offs, unsigned rank)
{
    return offs && offs->kind == CC_X_LIST && offs->u.list.n == rank;
}

/* Does e read a narrowed variable? */
typedef struct reads_ctx {
    const base_strmap *narrowed;
    int found;
} reads_ctx;

static int reads_narrowed(cc_ir_expr *e, void *ctx)
{
    reads_ctx *c = ctx;
    if (e->kind == CC_X_VAR && e->type.kind == CC_T_TILE && base_strmap_get(c->narrowed, e->u.name) >= 0) c->found = 1;
    return c->found;
}

/* May the tile e have a valid region smaller than its shape? */
int tp_narrowed(const base_strmap *m, const cc_ir_expr *e)
{
    if (e->type.kind != CC_T_TILE) return 0;
    if (e->type.partial) return 1;
    reads_ctx c = {m, 0};
    cc_ir_expr_walk(e, reads_narrowed, &c);
    return c.found;
}

/* Marks the targets of s that a narrowed value reaches. */
static int mark_narrowed(cc_ir_stmt *s, void *ctx)
{
    tp *t = ctx;
    if (s->kind != CC_I_ASSIGN) return 0;
    const cc_ir_expr *v = s->u.assign.value;
    for (uint32_t k = 0; k < s->u.assign.ntargets; k++) {
        const cc_ir_expr *x = s->u.assign.ntargets == 1 ? v : v->kind == CC_X_LIST && k < v->u.list.n ? v->u.list.items[k] : NULL;
        const char *name = s->u.assign.targets[k].name;
        if (!x || base_strmap_get(&t->narrowed, name) >= 0 || !tp_narrowed(&t->narrowed, x)) continue;
        if (base_strmap_put(&t->narrowed, name, 1) != 0) t->out->oom = 1;
        t->changed = 1;
    }
    return 0;
}


/* Does e read the block index or count (an SPMD kernel)? */
static int reads_block(cc_ir_expr *e, void *ctx)
{
    (void)ctx;
    return e->kind == CC_X_OP && (e->u.op.op == CC_IR_GET_BLOCK_IDX || e->u.op.op == CC_IR_GET_BLOCK_NUM);
}

/* A call: the callee by name; pl.submit's results end with a TaskId (None).
 * A call of n blocks (SPMD) runs the kernel once per block, in block order,
 * and gives the last run's results (every run returns the same buffers). */
static void call(tp *t, const cc_ir_expr *e)
{
    const cc_ir_func *f = e->u.call.callee;
    if (e->u.call.submit) base_strbuf_puts(t->out, f->nresults > 1 ? "(*" : "(");
    if (e->u.call.blocks) base_strbuf_puts(t->out, "[");
    base_strbuf_printf(t->out, "%s(", f->name);
    tp_exprs(t, e->u.call.args, e->u.call.nargs);
    if (e->u.call.blocks) {
        int spmd = cc_ir_block_walk_exprs((cc_ir_block *)&f->body, reads_block, NULL);
        base_strbuf_printf(t->out, "%s) for _n in [", spmd ? (e->u.call.nargs ? ", _block=_b, _nblocks=_n" : "_block=_b, _nblocks=_n") : "");
        tp_expr(t, e->u.call.blocks);
        base_strbuf_puts(t->out, "] for _b in range(_n)][-1]");
    } else {
        base_strbuf_puts(t->out, ")");
    }
    if (e->u.call.submit) base_strbuf_puts(t->out, f->nresults ? ", None)" : ", None)[1]");
}

void tp_expr(tp *t, const cc_ir_expr *e)
{
    base_strbuf *out = t->out;
    switch (e->kind) {
    case CC_X_INT: base_strbuf_printf(out, e->u.i < 0 ? "(%lld)" : "%lld", (long long)e->u.i); break;
    case CC_X_FLOAT: /* negative ones in parentheses: (-2.0) ** 2 */
        if (isnan(e->u.f) || isinf(e->u.f)) {
            base_strbuf_puts(out, isnan(e->u.f) ? "float(\"nan\")" : e->u.f < 0 ? "float(\"-inf\")" : "float(\"inf\")");
            break;
        }
        if (signbit(e->u.f)) base_strbuf_puts(out, "(");
        cc_print_float(e->u.f, out);
        if (signbit(e->u.f)) base_strbuf_puts(out, ")");
        break;
    case CC_X_BOOL: base_strbuf_puts(out, e->u.i ? "True" : "False"); break;
    case CC_X_STR: cc_print_str(e->u.str, strlen(e->u.str), out); break;
    case CC_X_VAR: base_strbuf_puts(out, e->u.name); break;
    case CC_X_BINARY:
        if (cc_op_prec(e->u.bin.op) == CC_PREC_ATOM) base_strbuf_printf(out, "%s(", cc_op_text(e->u.bin.op));
        else base_strbuf_puts(out, "(");
        tp_expr(t, e->u.bin.l);
        base_strbuf_printf(out, cc_op_prec(e->u.bin.op) == CC_PREC_ATOM ? ", " : " %s ", cc_op_text(e->u.bin.op));
        tp_expr(t, e->u.bin.r);
        base_strbuf_puts(out, ")");
        break;
    case CC_X_UNARY:
        base_strbuf_printf(out, "(%s", e->u.un.op == CC_OP_NOT ? "not " : cc_op_text(e->u.un.op));
        tp_expr(t, e->u.un.x);
        base_strbuf_puts(out, ")");
        break;
    case CC_X_LIST:
        base_strbuf_puts(out, "[");
        tp_exprs(t, e->u.list.items, e->u.list.n);
        base_strbuf_puts(out, "]");
        break;
    case CC_X_OP: tp_op(t, e); break;
    case CC_X_CALL: call(t, e); break;
    }
}

/* ---- statements ------------------------------------------------------------------------- */

static void indent(tp *t, int depth)
{
    for (int k = 0; k < depth; k++) base_strbuf_puts(t->out, "    ");
}

static void block(tp *t, const cc_ir_block *b, int depth);

/* A store, an assemble or a write: the array written in place (a tile
 * assembled into is copied first); returns the expression naming the result. */
static int in_place(tp *t, const cc_ir_expr *v, const char *target, int depth)
{
    if (v->kind != CC_X_OP) return 0;
    cc_ir_op o = (cc_ir_op)v->u.op.op;
    cc_ir_expr *const *a = v->u.op.args;
    const cc_ir_expr *dst, *src, *offs;
    if (o == CC_IR_STORE) dst = a[2], src = a[0], offs = a[1];
    else if (o == CC_IR_ASSEMBLE) dst = a[0], src = a[1], offs = a[2];
    else if (o == CC_IR_WRITE) dst = a[0], src = a[2], offs = a[1];
    else return 0;
    if ((o == CC_IR_STORE && a[3]) || (o == CC_IR_ASSEMBLE && dst->type.kind == CC_T_TILE && !target) ||
        (o != CC_IR_WRITE && (!tp_window_ok(offs, dst->type.rank) || src->type.rank != dst->type.rank))) {
        tp_no_translation(t, v);
        return 1;
    }
    int copy = dst->type.kind == CC_T_TILE;
    /* the source's extents are its value's: a store writes its valid region, an assemble
     * into a tile the whole source (its zero pad too) */
    int narrow = o != CC_IR_WRITE && partial(src);
    if (narrow) {
        base_strbuf_puts(t->out, "_v = ");
        if (copy) tp_padded(t, src, &src->type, 1, src->type.dtype);
        else tp_expr(t, src);
        base_strbuf_puts(t->out, "\n");
        indent(t, depth);
    }
    if (copy && partial(dst)) { /* valid: the prefix box holding the target's and the written box; zeros added */
        base_strbuf_puts(t->out, "_t = ");
        tp_expr(t, dst);
        base_strbuf_printf(t->out, "\n");
        indent(t, depth);
        base_strbuf_printf(t->out, "%s = (lambda x, S, v: " PAD_TO("x") ")(_t, ", target);
        tp_shape_list(t, &dst->type);
        base_strbuf_puts(t->out, ", 0)[tuple(slice(0, max(p, a + b)) for p, a, b in zip(_t.shape, ");
        tp_expr(t, offs);
        base_strbuf_puts(t->out, narrow ? ", _v.shape))].clone()\n" : ", ");
        if (!narrow) tp_shape_list(t, &src->type), base_strbuf_puts(t->out, "))].clone()\n");
        indent(t, depth);
    } else if (copy) {
        base_strbuf_printf(t->out, "%s = (", target);
        tp_expr(t, dst);
        base_strbuf_puts(t->out, ").clone()\n");
        indent(t, depth);
    }
    cc_ir_expr named = *dst;
    if (copy) named.kind = CC_X_VAR, named.u.name = target;
    if (o == CC_IR_WRITE) {
        tp_expr(t, &named);
        base_strbuf_puts(t->out, "[");
        if (offs->kind == CC_X_LIST) tp_exprs(t, offs->u.list.items, offs->u.list.n);
        else tp_expr(t, offs);
        base_strbuf_puts(t->out, "] = ");
        tp_expr(t, src);
    } else { /* atomic=pl.AtomicType.Add adds into the window */
        tp_window(t, &named, offs, src->type.shape, src->type.rank, NULL, narrow ? "_v" : NULL);
        base_strbuf_puts(t->out, o == CC_IR_STORE && v->u.op.atomic ? " += " : " = ");
        if (narrow) base_strbuf_puts(t->out, "_v");
        else tp_expr(t, src);
        if (src->type.kind == CC_T_TENSOR) base_strbuf_puts(t->out, ".clone()"); /* a view may overlap the window */
    }
    base_strbuf_puts(t->out, "\n");
    if (target && !copy && !(dst->kind == CC_X_VAR && !strcmp(dst->u.name, target))) {
        indent(t, depth);
        base_strbuf_printf(t->out, "%s = ", target);
        tp_expr(t, dst);
        base_strbuf_puts(t->out, "\n");
    }
    return 1;
}

/* `<kw> <cond>:` at depth, then body one level in (if, while). */
static void headed(tp *t, int depth, const char *kw, const cc_ir_expr *cond, const cc_ir_block *body)
{
    indent(t, depth);
    base_strbuf_printf(t->out, "%s ", kw);
    tp_expr(t, cond);
    base_strbuf_puts(t->out, ":\n");
    block(t, body, depth + 1);
}

static void stmt(tp *t, const cc_ir_stmt *s, int depth)
{
    base_strbuf *out = t->out;
    if (t->failed) return;
    switch (s->kind) {
    case CC_I_ASSIGN: {
        const cc_ir_expr *v = s->u.assign.value;
        indent(t, depth);
        if (s->u.assign.ntargets == 1 && in_place(t, v, s->u.assign.targets[0].name, depth)) return;
        for (uint32_t k = 0; k < s->u.assign.ntargets; k++)
            base_strbuf_printf(out, "%s%s", k ? ", " : "", s->u.assign.targets[k].name);
        base_strbuf_puts(out, " = ");
        if (s->u.assign.ntargets > 1 && v->kind == CC_X_LIST) tp_exprs(t, v->u.list.items, v->u.list.n);
        else tp_expr(t, v);
        base_strbuf_puts(out, "\n");
        return;
    }
    case CC_I_EXPR:
        indent(t, depth);
        if (in_place(t, s->u.expr, NULL, depth)) return;
        tp_expr(t, s->u.expr);
        base_strbuf_puts(out, "\n");
        return;
    case CC_I_FOR:
        indent(t, depth);
        base_strbuf_printf(out, "for %s in range(", s->u.for_.var);
        tp_expr(t, s->u.for_.start);
        base_strbuf_puts(out, ", ");
        tp_expr(t, s->u.for_.stop);
        base_strbuf_puts(out, ", ");
        tp_expr(t, s->u.for_.step);
        base_strbuf_puts(out, "):\n");
        return block(t, &s->u.for_.body, depth + 1);
    case CC_I_WHILE: return headed(t, depth, "while", s->u.while_.cond, &s->u.while_.body);
    case CC_I_IF:
        headed(t, depth, "if", s->u.if_.cond, &s->u.if_.then);
        if (!s->u.if_.orelse.n) return;
        indent(t, depth);
        base_strbuf_puts(out, "else:\n");
        return block(t, &s->u.if_.orelse, depth + 1);
    case CC_I_SCOPE: /* transparent */
        for (uint32_t k = 0; k < s->u.scope.body.n; k++) stmt(t, s->u.scope.body.items[k], depth);
        return;
    case CC_I_AT: /* a grouping level, transparent (kernel bodies are outlined) */
        if (s->u.at.as_name) indent(t, depth), base_strbuf_printf(out, "%s = None\n", s->u.at.as_name);
        for (uint32_t k = 0; k < s->u.at.body.n; k++) stmt(t, s->u.at.body.items[k], depth);
        return;
    case CC_I_RETURN:
        indent(t, depth);
        base_strbuf_puts(out, s->u.ret.n ? "return " : "return");
        tp_exprs(t, s->u.ret.values, s->u.ret.n);
        base_strbuf_puts(out, "\n");
        return;
    }
}

static void block(tp *t, const cc_ir_block *b, int depth)
{
    size_t before = t->out->len;
    for (uint32_t k = 0; k < b->n; k++) stmt(t, b->items[k], depth);
    if (t->out->len == before) indent(t, depth), base_strbuf_puts(t->out, "pass\n");
}

/* ---- functions ----------------------------------------------------------------------------- */

/* Marks in seen[] (by function index) the InCore functions a body calls. */
typedef struct seen_ctx {
    const cc_ir_program *p;
    uint8_t *seen;
} seen_ctx;

static int callees(cc_ir_expr *e, void *ctx)
{
    seen_ctx *c = ctx;
    if (e->kind == CC_X_CALL && e->u.call.callee->kind == CC_FUNC_INCORE)
        for (uint32_t k = 0; k < c->p->nfuncs; k++)
            if (c->p->funcs[k] == e->u.call.callee) c->seen[k] = 1;
    return 0;
}

static void def(tp *t, const cc_ir_func *f, int depth, int check_shapes)
{
    if (f->kind == CC_FUNC_INCORE) { /* its narrowed tile variables, to a fixpoint */
        base_strmap_free(&t->narrowed);
        t->narrowed = (base_strmap){0};
        do t->changed = 0, cc_ir_block_each_stmt(&f->body, mark_narrowed, t);
        while (t->changed && !t->out->oom);
    }
    indent(t, depth);
    base_strbuf_printf(t->out, "def %s(", f->name);
    for (uint32_t k = 0; k < f->nparams; k++) base_strbuf_printf(t->out, "%s%s", k ? ", " : "", f->params[k].name);
    if (f->kind == CC_FUNC_INCORE && cc_ir_block_walk_exprs((cc_ir_block *)&f->body, reads_block, NULL)) /* an SPMD kernel: call */
        base_strbuf_printf(t->out, "%s_block=0, _nblocks=1", f->nparams ? ", " : "");
    base_strbuf_puts(t->out, "):\n");
    for (uint32_t k = 0; check_shapes && k < f->nparams; k++) {
        const cc_ir_param *p = &f->params[k];
        if (p->type.kind != CC_T_TENSOR) continue;
        indent(t, depth + 1);
        base_strbuf_printf(t->out, "assert tuple(%s.shape) == (", p->name);
        for (unsigned d = 0; d < p->type.rank; d++)
            base_strbuf_printf(t->out, "%s%lld", d ? ", " : "", (long long)p->type.shape[d]);
        base_strbuf_printf(t->out, "%s), \"%s: shape \" + str(tuple(%s.shape))\n", p->type.rank == 1 ? "," : "", p->name, p->name);
    }
    if (f->kind == CC_FUNC_ORCHESTRATION) {
        uint8_t *seen = calloc(t->p->nfuncs + 1, 1);
        if (!seen) {
            t->out->oom = 1;
            return;
        }
        seen_ctx c = {t->p, seen};
        cc_ir_block_walk_exprs(&f->body, callees, &c);
        for (uint32_t k = 0; k < t->p->nfuncs && !t->failed; k++)
            if (seen[k]) def(t, t->p->funcs[k], depth + 1, check_shapes);
        free(seen);
    }
    block(t, &f->body, depth + 1);
}

int cc_print_torch(const cc_ir_program *p, int check_shapes, base_strbuf *out)
{
    tp t = {.out = out, .d = p->diags, .p = p};
    base_strbuf_puts(out, "import torch\n");
    for (uint32_t k = 0; k < p->nfuncs && !t.failed; k++) {
        if (p->funcs[k]->kind != CC_FUNC_ORCHESTRATION) continue;
        base_strbuf_puts(out, "\n\n");
        def(&t, p->funcs[k], 0, check_shapes);
    }
    base_strmap_free(&t.narrowed);
    return t.failed ? -1 : 0;
}
