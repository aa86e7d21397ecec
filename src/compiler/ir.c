/*
 * ir.c - the IR's tables (dtypes, cast modes), node construction, and the
 * expression utilities the passes share: copy, substitution, folding.
 * Folding is the run-time arithmetic (scalar.h) applied to constants, so
 * a folded constant is the value the VMs would compute.
 */
#include "compiler/ir.h"
#include "compiler/ir_walk.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/array.h"
#include "base/strmap.h"
#include "base/text.h"
#include "pto/compile.h"

/* ---- tables ------------------------------------------------------------------------- */

static const struct { const char *name; size_t size; int is_float; } cc_dtypes[] = {
#define CC_DTYPE_ROW_(n, size, fl, pl) {#n, size, fl},
    CC_DTYPE_LIST(CC_DTYPE_ROW_)
#undef CC_DTYPE_ROW_
};

const char *cc_dtype_name(cc_dtype d) { return (unsigned)d < CC_DT_COUNT ? cc_dtypes[d].name : "?"; }
size_t cc_dtype_size(cc_dtype d) { return (unsigned)d < CC_DT_COUNT ? cc_dtypes[d].size : 0; }
int cc_dtype_is_float(cc_dtype d) { return (unsigned)d < CC_DT_COUNT && cc_dtypes[d].is_float; }
int cc_dtype_binds(cc_dtype arg, cc_dtype param)
{
#define CC_STAND_IN_(p, a) || (param == CC_DT_##p && arg == CC_DT_##a)
    return arg == param PTO_DTYPE_STAND_IN_LIST(CC_STAND_IN_);
#undef CC_STAND_IN_
}
int cc_dtype_is_int64(cc_dtype d) { return d == CC_DT_INDEX || d == CC_DT_INT64; }
int cc_dtype_is_tensor(cc_dtype d) { return (unsigned)d < CC_DT_COUNT && d != CC_DT_INDEX && d != CC_DT_TASK_ID; }

int cc_dtype_lookup(const char *name)
{
    for (int d = 0; d < CC_DT_COUNT; d++)
        if (!strcmp(cc_dtypes[d].name, name)) return d;
    return -1;
}

const char *cc_dir_name(cc_dir d)
{
    static const char *const names[] = {"None", "In", "Out", "InOut"};
    return (unsigned)d < 4 ? names[d] : "?";
}

const char *cc_cast_mode_name(cc_cast_mode m)
{
    static const char *const names[] = {
#define CC_CAST_MODE_NAME_(n, s) s,
        CC_CAST_MODE_LIST(CC_CAST_MODE_NAME_)
#undef CC_CAST_MODE_NAME_
    };
    return (unsigned)m < sizeof names / sizeof names[0] ? names[m] : "?";
}

/* ---- types ---------------------------------------------------------------------------- */

int cc_type_equal(const cc_type *a, const cc_type *b)
{
    if (a->kind != b->kind) return 0;
    if (a->kind != CC_T_SCALAR && a->kind != CC_T_TENSOR && a->kind != CC_T_TILE) return 1;
    if (a->dtype != b->dtype) return 0;
    if (a->kind == CC_T_SCALAR) return 1;
    if (a->kind == CC_T_TENSOR && a->window != b->window) return 0;
    return a->rank == b->rank && !memcmp(a->shape, b->shape, a->rank * sizeof a->shape[0]);
}

int cc_type_is_dynamic(const cc_type *t)
{
    if (t->kind != CC_T_TENSOR) return 0;
    for (unsigned d = 0; d < t->rank; d++)
        if (CC_DIM_IS_DYN(t->shape[d])) return 1;
    return 0;
}

static void cc_shape_append(char *buf, size_t cap, size_t *len, const cc_type *t)
{
    base_appendf(buf, cap, len, "[");
    for (unsigned d = 0; d < t->rank; d++) {
        if (CC_DIM_IS_DYN(t->shape[d])) base_appendf(buf, cap, len, "%s%s", d ? ", " : "", t->dyn[d] ? t->dyn[d] : "?");
        else base_appendf(buf, cap, len, "%s%lld", d ? ", " : "", (long long)t->shape[d]);
    }
    base_appendf(buf, cap, len, "]");
}

size_t cc_shape_format(const cc_type *t, char *buf, size_t cap)
{
    size_t len = 0;
    if (cap) buf[0] = 0;
    cc_shape_append(buf, cap, &len, t);
    return len;
}

cc_mem cc_type_mem(const cc_type *t) { return t->mem == CC_MEM_DDR ? CC_MEM_Vec : (cc_mem)t->mem; }

size_t cc_type_format(const cc_type *t, char *buf, size_t cap)
{
    size_t len = 0;
    if (cap) buf[0] = 0;
    switch (t->kind) {
    case CC_T_SCALAR:
        if (t->dtype == CC_DT_TASK_ID) base_appendf(buf, cap, &len, "pl.TaskId");
        else base_appendf(buf, cap, &len, "pl.Scalar[pl.%s]", cc_dtype_name(t->dtype));
        break;
    case CC_T_TENSOR:
    case CC_T_TILE: {
        static const char *const wins[] = {"pl.Tensor[", "pld.DistributedTensor[", "pld.WindowBuffer[", "pld.CommCtx["};
        base_appendf(buf, cap, &len, t->kind == CC_T_TILE ? "pl.Tile[" : wins[t->window < 4 ? t->window : 0]);
        cc_shape_append(buf, cap, &len, t);
        base_appendf(buf, cap, &len, ", pl.%s", cc_dtype_name(t->dtype));
        if (t->kind == CC_T_TILE && cc_type_mem(t) != CC_MEM_Vec) base_appendf(buf, cap, &len, ", pl.Mem.%s", cc_mem_name(cc_type_mem(t)));
        base_appendf(buf, cap, &len, "]");
        break;
    }
    case CC_T_LIST: base_appendf(buf, cap, &len, "list"); break;
    case CC_T_STR: base_appendf(buf, cap, &len, "str"); break;
    case CC_T_TUPLE: base_appendf(buf, cap, &len, "tuple"); break;
    case CC_T_ARRAY: base_appendf(buf, cap, &len, "pl.array[%lld, pl.TASK_ID]", (long long)t->shape[0]); break;
    default: base_appendf(buf, cap, &len, "None"); break;
    }
    return len;
}

/* ---- building ------------------------------------------------------------------------- */

cc_ir_expr *cc_ir_expr_new(base_arena *a, cc_ir_expr_kind k, cc_span sp)
{
    cc_ir_expr *e = base_arena_alloc(a, sizeof *e);
    if (e) e->kind = (uint8_t)k, e->span = sp;
    return e;
}

cc_ir_expr *cc_ir_int(base_arena *a, int64_t v, cc_span sp)
{
    cc_ir_expr *e = cc_ir_expr_new(a, CC_X_INT, sp);
    if (e) e->u.i = v, e->type = (cc_type){.kind = CC_T_SCALAR, .dtype = CC_DT_INDEX};
    return e;
}

cc_ir_expr *cc_ir_var(base_arena *a, const char *name, cc_type t, cc_span sp)
{
    cc_ir_expr *e = cc_ir_expr_new(a, CC_X_VAR, sp);
    if (e) e->u.name = name, e->type = t;
    return e;
}

cc_ir_expr *cc_ir_binary(base_arena *a, cc_op op, cc_ir_expr *l, cc_ir_expr *r, cc_span sp)
{
    if (!l || !r) return NULL;
    cc_ir_expr *e = cc_ir_expr_new(a, CC_X_BINARY, sp);
    if (!e) return NULL;
    e->u.bin.op = op, e->u.bin.l = l, e->u.bin.r = r;
    e->type = (cc_type){.kind = CC_T_SCALAR,
                        .dtype = (uint8_t)cc_scalar_bin_result(op, (cc_dtype)l->type.dtype, (cc_dtype)r->type.dtype)};
    return e;
}

cc_ir_expr *cc_ir_op_new(base_arena *a, cc_ir_op op, cc_span sp)
{
    cc_ir_expr *e = cc_ir_expr_new(a, CC_X_OP, sp);
    if (!e) return NULL;
    e->u.op.op = (uint8_t)op;
    e->u.op.dtype = 255;
    e->u.op.cache = CC_CACHE_UNSET;
    if (!(e->u.op.args = base_arena_alloc(a, cc_ir_op_nslots(op) * sizeof *e->u.op.args))) return NULL;
    return e;
}

cc_ir_stmt *cc_ir_stmt_new(base_arena *a, cc_ir_stmt_kind k, cc_span sp)
{
    cc_ir_stmt *s = base_arena_alloc(a, sizeof *s);
    if (s) s->kind = (uint8_t)k, s->span = sp;
    return s;
}

int cc_ir_block_make(base_arena *a, cc_ir_block *out, cc_ir_stmt *const *items, uint32_t n)
{
    out->n = n;
    out->items = NULL;
    if (!n) return 1;
    if (!(out->items = base_arena_alloc(a, n * sizeof *items))) return 0;
    memcpy(out->items, items, n * sizeof *items);
    return 1;
}

cc_ir_stmt *cc_ir_scope_new(base_arena *a, cc_scope_mode mode, int placed, cc_ir_block body, cc_span sp)
{
    cc_ir_stmt *s = cc_ir_stmt_new(a, CC_I_SCOPE, sp);
    if (s) s->u.scope.mode = (uint8_t)mode, s->u.scope.placed = (uint8_t)placed, s->u.scope.body = body;
    return s;
}

int cc_ir_program_add_func(cc_ir_program *p, cc_ir_func *f, uint32_t at)
{
    if (p->nfuncs == p->capfuncs) {
        uint32_t cap = p->capfuncs ? 2 * p->capfuncs : 8;
        cc_ir_func **fs = base_arena_alloc(p->arena, cap * sizeof *fs);
        if (!fs) return 0;
        if (p->nfuncs) memcpy(fs, p->funcs, p->nfuncs * sizeof *fs);
        p->funcs = fs, p->capfuncs = cap;
    }
    if (at > p->nfuncs) at = p->nfuncs;
    memmove(p->funcs + at + 1, p->funcs + at, (p->nfuncs - at) * sizeof *p->funcs);
    p->funcs[at] = f;
    p->nfuncs++;
    return 1;
}

/* ---- reading -------------------------------------------------------------------------- */

int cc_ir_const_int(const cc_ir_expr *e, int64_t *v)
{
    if (!e || e->kind != CC_X_INT) return 0;
    *v = e->u.i;
    return 1;
}

static cc_ir_expr **cc_ir_exprs_clone(base_arena *a, cc_ir_expr *const *xs, uint32_t n, int *oom)
{
    if (!n) return NULL;
    cc_ir_expr **out = base_arena_alloc(a, n * sizeof *out);
    if (!out) return *oom = 1, NULL;
    for (uint32_t k = 0; k < n; k++)
        if (xs[k] && !(out[k] = cc_ir_expr_clone(a, xs[k]))) *oom = 1;
    return out;
}

cc_ir_expr *cc_ir_expr_clone(base_arena *a, const cc_ir_expr *e)
{
    if (!e) return NULL;
    cc_ir_expr *c = base_arena_alloc(a, sizeof *c);
    if (!c) return NULL;
    *c = *e;
    int oom = 0;
    switch (e->kind) {
    case CC_X_BINARY:
        c->u.bin.l = cc_ir_expr_clone(a, e->u.bin.l);
        c->u.bin.r = cc_ir_expr_clone(a, e->u.bin.r);
        oom = !c->u.bin.l || !c->u.bin.r;
        break;
    case CC_X_UNARY: oom = !(c->u.un.x = cc_ir_expr_clone(a, e->u.un.x)); break;
    case CC_X_LIST: case CC_X_ARRAY: c->u.list.items = cc_ir_exprs_clone(a, e->u.list.items, e->u.list.n, &oom); break;
    case CC_X_OP: c->u.op.args = cc_ir_exprs_clone(a, e->u.op.args, cc_ir_op_nslots(e->u.op.op), &oom); break;
    case CC_X_CALL:
        c->u.call.args = cc_ir_exprs_clone(a, e->u.call.args, e->u.call.nargs, &oom);
        c->u.call.deps = cc_ir_exprs_clone(a, e->u.call.deps, e->u.call.ndeps, &oom);
        if (e->u.call.blocks && !(c->u.call.blocks = cc_ir_expr_clone(a, e->u.call.blocks))) oom = 1;
        if (e->u.call.pred) oom |= !(c->u.call.pred = cc_ir_expr_clone(a, e->u.call.pred));
        if (e->u.call.device) oom |= !(c->u.call.device = cc_ir_expr_clone(a, e->u.call.device));
        break;
    default: break;
    }
    return oom ? NULL : c;
}

/* ---- constants and folding ------------------------------------------------------------ */

int cc_scalar_of(const cc_ir_expr *e, cc_scalar *v)
{
    if (e->type.kind != CC_T_SCALAR || (e->kind == CC_X_FLOAT) != cc_dtype_is_float((cc_dtype)e->type.dtype)) return 0;
    if (e->kind == CC_X_FLOAT) return v->f = e->u.f, 1;
    if (e->kind == CC_X_INT || e->kind == CC_X_BOOL) return v->i = e->u.i, 1;
    return 0;
}

cc_ir_expr *cc_scalar_expr(base_arena *a, cc_dtype d, cc_scalar v, cc_span sp)
{
    cc_ir_expr *e = cc_ir_expr_new(a, cc_dtype_is_float(d) ? CC_X_FLOAT : d == CC_DT_BOOL ? CC_X_BOOL : CC_X_INT, sp);
    if (!e) return NULL;
    if (cc_dtype_is_float(d)) e->u.f = v.f;
    else e->u.i = v.i;
    e->type = (cc_type){.kind = CC_T_SCALAR, .dtype = (uint8_t)d};
    return e;
}

/* Constant x (of its dtype) as an operand of dtype d. */
static int cc_ir_const_as(const cc_ir_expr *x, cc_dtype d, cc_scalar *v)
{
    if (!cc_scalar_of(x, v)) return 0;
    *v = cc_scalar_operand((cc_dtype)x->type.dtype, d, *v);
    return 1;
}

/* e (unary - or a binary arithmetic operator) computed from its constant
 * operands by the run-time arithmetic, or e when they are not constants,
 * the operator fails (an integer division by zero: the run reports it) or
 * the result has no literal (inf, NaN).  Compares, and/or and not are left
 * as written (a condition prints as the user wrote it). */
static cc_ir_expr *cc_ir_fold_value(base_arena *a, cc_ir_expr *e)
{
    cc_dtype rd = (cc_dtype)e->type.dtype;
    cc_scalar x, y, v;
    if (e->kind == CC_X_UNARY) {
        if ((e->u.un.op != CC_OP_NEG && e->u.un.op != CC_OP_INVERT) || e->u.un.x->type.kind != CC_T_SCALAR || !cc_ir_const_as(e->u.un.x, rd, &x))
            return e;
        v = cc_scalar_un((cc_op)e->u.un.op, rd, x);
    } else {
        const cc_ir_expr *l = e->u.bin.l, *r = e->u.bin.r;
        if (rd == CC_DT_BOOL || l->type.kind != CC_T_SCALAR || r->type.kind != CC_T_SCALAR) return e;
        cc_dtype d = cc_scalar_bin_dtype(e->u.bin.op, (cc_dtype)l->type.dtype, (cc_dtype)r->type.dtype);
        if (!cc_ir_const_as(l, d, &x) || !cc_ir_const_as(r, d, &y) || cc_scalar_bin(e->u.bin.op, d, x, y, &v)) return e;
    }
    if (cc_dtype_is_float(rd) && !isfinite(v.f)) return e;
    return cc_scalar_expr(a, rd, v, e->span);
}

cc_ir_expr *cc_ir_fold(base_arena *a, cc_ir_expr *e)
{
    if (!e || (e->kind != CC_X_UNARY && e->kind != CC_X_BINARY) || e->type.kind != CC_T_SCALAR) return e;
    cc_ir_expr *c = cc_ir_fold_value(a, e);
    if (c != e || e->kind != CC_X_BINARY || e->type.dtype != CC_DT_INDEX) return c;
    /* integer neutral terms: x*1, x+0, x-0 (the shape footprint expressions print in) */
    cc_ir_expr *l = e->u.bin.l, *r = e->u.bin.r;
    int64_t x, y;
    int lc = cc_ir_const_int(l, &x), rc = cc_ir_const_int(r, &y);
    if (e->u.bin.op == CC_OP_MUL && ((lc && x == 1) || (rc && y == 1))) return lc ? r : l;
    if (e->u.bin.op == CC_OP_ADD && ((lc && x == 0) || (rc && y == 0))) return lc ? r : l;
    if (e->u.bin.op == CC_OP_SUB && rc && y == 0) return l;
    return e;
}

cc_ir_expr *cc_ir_expr_subst(base_arena *a, const cc_ir_expr *e, const char *const *names,
                             cc_ir_expr *const *values, uint32_t n)
{
    if (!e) return NULL;
    if (e->kind == CC_X_VAR) {
        for (uint32_t k = 0; k < n; k++)
            if (!strcmp(names[k], e->u.name)) return cc_ir_expr_clone(a, values[k]);
        return cc_ir_expr_clone(a, e);
    }
    cc_ir_expr *c = base_arena_alloc(a, sizeof *c);
    if (!c) return NULL;
    *c = *e;
    switch (e->kind) {
    case CC_X_BINARY:
        c->u.bin.l = cc_ir_expr_subst(a, e->u.bin.l, names, values, n);
        c->u.bin.r = cc_ir_expr_subst(a, e->u.bin.r, names, values, n);
        if (!c->u.bin.l || !c->u.bin.r) return NULL;
        return cc_ir_fold(a, c);
    case CC_X_UNARY:
        if (!(c->u.un.x = cc_ir_expr_subst(a, e->u.un.x, names, values, n))) return NULL;
        return cc_ir_fold(a, c);
    case CC_X_LIST:
    case CC_X_ARRAY:
    case CC_X_OP:
    case CC_X_CALL: {
        int list = e->kind == CC_X_LIST || e->kind == CC_X_ARRAY;
        cc_ir_expr **src = list ? e->u.list.items : e->kind == CC_X_OP ? e->u.op.args : e->u.call.args;
        uint32_t m = list ? e->u.list.n : e->kind == CC_X_OP ? cc_ir_op_nslots(e->u.op.op) : e->u.call.nargs;
        cc_ir_expr **dst = m ? base_arena_alloc(a, m * sizeof *dst) : NULL;
        if (m && !dst) return NULL;
        for (uint32_t k = 0; k < m; k++)
            if (src[k] && !(dst[k] = cc_ir_expr_subst(a, src[k], names, values, n))) return NULL;
        if (list) c->u.list.items = dst;
        else if (e->kind == CC_X_OP) c->u.op.args = dst;
        else c->u.call.args = dst;
        return c;
    }
    default: return c;
    }
}

cc_ir_func *cc_ir_program_func(const cc_ir_program *p, const char *name)
{
    for (uint32_t k = 0; k < p->nfuncs; k++)
        if (!strcmp(p->funcs[k]->name, name)) return p->funcs[k];
    return NULL;
}

int cc_ir_func_param(const cc_ir_func *f, const char *name)
{
    for (uint32_t k = 0; k < f->nparams; k++)
        if (!strcmp(f->params[k].name, name)) return (int)k;
    return -1;
}

const cc_ir_expr *cc_ir_tensor_access(const cc_ir_expr *e, cc_dir *dir)
{
    if (e->kind != CC_X_OP) return NULL;
    const cc_ir_expr *t = NULL;
    switch (e->u.op.op) {
    case CC_IR_LOAD: case CC_IR_READ: t = e->u.op.args[0], *dir = CC_DIR_IN; break;
    case CC_IR_STORE: t = e->u.op.args[2], *dir = e->u.op.atomic ? CC_DIR_INOUT : CC_DIR_OUT; break;
    case CC_IR_WRITE: t = e->u.op.args[0], *dir = CC_DIR_OUT; break;
    /* the pld ops: the window they name (shared, mutable: InOut), a put's local source, a get's destination */
    case CC_IR_BARRIER: case CC_IR_NOTIFY: case CC_IR_WAIT: case CC_IR_REMOTE_LOAD: t = e->u.op.args[0], *dir = CC_DIR_INOUT; break;
    case CC_IR_REMOTE_STORE: t = e->u.op.args[1], *dir = CC_DIR_INOUT; break;
    case CC_IR_PUT: t = e->u.op.args[2], *dir = CC_DIR_IN; break;
    case CC_IR_GET: t = e->u.op.args[0], *dir = CC_DIR_OUT; break;
    default: return NULL;
    }
    return t && t->type.kind == CC_T_TENSOR ? t : NULL;
}

/* ---- function order ------------------------------------------------------------------------ */

typedef struct cc_ir_calls {
    void (*fn)(const cc_ir_expr *, void *);
    void *ctx;
} cc_ir_calls;

/* The calls of e, those in a call's arguments before the call. */
static int cc_ir_calls_expr(cc_ir_expr *e, void *ctx)
{
    const cc_ir_calls *c = ctx;
    cc_ir_expr_each_child(e, cc_ir_calls_expr, ctx);
    if (e->kind == CC_X_CALL) c->fn(e, c->ctx);
    return 0;
}

static int cc_ir_calls_stmt(cc_ir_stmt *s, void *ctx) { return cc_ir_stmt_each_expr(s, cc_ir_calls_expr, ctx); }

void cc_ir_block_calls(const cc_ir_block *b, void (*fn)(const cc_ir_expr *, void *), void *ctx)
{
    cc_ir_calls c = {fn, ctx};
    cc_ir_block_each_stmt(b, cc_ir_calls_stmt, &c);
}

typedef struct cc_ir_order cc_ir_order;
static void cc_ir_order_visit(cc_ir_func *f, cc_ir_order *o);
static void cc_ir_order_call(const cc_ir_expr *call, void *ctx)
{
    if (!cc_ir_is_dummy(call)) cc_ir_order_visit(call->u.call.callee, ctx);
}

struct cc_ir_order {
    cc_ir_func **out;
    uint32_t n;
    base_strmap seen; /* names of the functions in out */
    int oom;
};

static void cc_ir_order_visit(cc_ir_func *f, cc_ir_order *o)
{
    if (o->oom || base_strmap_get(&o->seen, f->name) >= 0) return;
    if (base_strmap_put(&o->seen, f->name, o->n) != 0) {
        o->oom = 1;
        return;
    }
    o->out[o->n++] = f;
    cc_ir_block_calls(&f->body, cc_ir_order_call, o);
}

int cc_ir_program_order(cc_ir_program *p)
{
    if (!p->nfuncs) return 1;
    cc_ir_order o = {base_arena_alloc(p->arena, p->nfuncs * sizeof *p->funcs), 0, {0}, 0};
    if (!o.out) return 0;
    cc_ir_order_visit(p->funcs[0], &o);
    for (uint32_t k = 0; k < p->nfuncs; k++) cc_ir_order_visit(p->funcs[k], &o); /* unreached ones keep their order */
    base_strmap_free(&o.seen);
    if (o.oom) return 0;
    p->funcs = o.out;
    p->capfuncs = p->nfuncs;
    return 1;
}

void cc_misplaced_op(cc_diags *d, cc_span sp, const char *op, cc_func_kind k, const char *f)
{
    cc_diag_add(d, CC_DIAG_INVALID_OP, sp, "wrap it in `with pl.at(level=pl.Level.CORE_GROUP):` or move it to a @pl.jit.incore function",
                "Misplaced %s op 'pl.%s' in %s function '%s' (should be inside InCore block)", cc_ir_op_tensor_level(op) ? "tensor" : "tile",
                op, cc_func_kind_name(k), f);
}
