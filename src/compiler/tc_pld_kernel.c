/*
 * tc_pld_kernel.c - the kernel ops of the distributed surface
 * (DISTRIBUTED-SPEC §1.6-§1.8): pld.get_comm_ctx, pld.rank, pld.nranks,
 * pld.system.notify / wait, pld.tile.remote_load / remote_store (and the
 * pld.tensor / pld spellings of remote_store), pld.tensor.put / get and the
 * in-kernel pld.tensor.barrier.
 *
 * Invariants: each op is one CC_OPC_DIST node with ops.h's slots; a
 * window operand is a TENSOR of window CC_WIN_DT (the compat texts
 * otherwise); offsets lists have the window's rank; constant boxes are
 * checked with pl.load's bounds text; get_comm_ctx's value is its
 * DistributedTensor retyped CC_WIN_CTX, which pld.rank / pld.nranks read.
 */
#include "compiler/tc.h"

#include <stdio.h>
#include <string.h>

#include "compiler/names.h"

/* An integer scalar operand (peer=, value=, expected=). */
static cc_ir_expr *tk_int(tc *t, const cc_expr *e, const char *op, const char *what)
{
    cc_ir_expr *x = tc_expr(t, e);
    if (x && (x->type.kind != CC_T_SCALAR || cc_dtype_is_float((cc_dtype)x->type.dtype) || x->type.dtype == CC_DT_TASK_ID))
        return tc_err(t, CC_DIAG_TYPE, e->span, NULL, "%s %s= must be an integer scalar", op, what);
    return x;
}

/* An offsets list of the window's rank ("<op> offsets rank (<n>) must match <what> tensor rank (<r>)"). */
static cc_ir_expr *tk_offsets(tc *t, const cc_expr *e, const char *op, const char *what, const cc_ir_expr *win)
{
    cc_ir_expr *x = tc_offset_list(t, e, "offsets must be a list of integer scalars");
    if (x && x->u.list.n != win->type.rank)
        return tc_err(t, CC_DIAG_TYPE, e->span, NULL, "%s offsets rank (%u) must match %s tensor rank (%u)", op, x->u.list.n, what,
                      win->type.rank);
    return x;
}

/* An enum argument: a member of pld.<en>, or an int literal of one; NULL e: the first member. */
static int tk_enum(tc *t, const cc_expr *e, const char *op, const char *kw, const char *en, const char *a, const char *b)
{
    if (!e) return 0;
    int v = tc_pld_enum(t, e, en);
    if (v >= 0) return v;
    const cc_expr *c = tc_module_constant_ast(t, e);
    if (c->kind == CC_E_INT && (c->u.i == 0 || c->u.i == 1)) return (int)c->u.i;
    if (c->kind == CC_E_INT)
        return tc_err(t, CC_DIAG_TYPE, e->span, NULL, "%s %s must be %s.%s or %s.%s (got int %lld)", op, kw, en, a, en, b, (long long)c->u.i), -1;
    return tc_err(t, CC_DIAG_TYPE, e->span, NULL, "%s %s must be %s.%s or %s.%s", op, kw, en, a, en, b), -1;
}

static cc_ir_expr *tk_new(tc *t, cc_ir_op op, cc_span sp, cc_type ty)
{
    cc_ir_expr *x = cc_ir_op_new(t->a, op, sp);
    if (!x) return tc_oom(t);
    x->type = ty;
    return x;
}

/* The box of a constant-extent access of shape ext[n] at offs into window w (pl.load's texts). */
static int tk_box(tc *t, const cc_ir_expr *offs, const int64_t *ext, const cc_ir_expr *w)
{
    return tc_window_bounds(t, "load", offs, ext, w->type.shape);
}

static cc_ir_expr *tk_ctx_op(tc *t, const cc_expr *call, cc_ir_op op)
{
    const char *name = cc_ir_op_name(op);
    static const char *const p1[] = {"tensor"}, *const p2[] = {"ctx"};
    tc_args a;
    if (!tc_pld_bind(t, call, name, op == CC_IR_GET_COMM_CTX ? p1 : p2, 1, &a)) return NULL;
    cc_ir_expr *x = tc_expr(t, a.v[0]);
    if (!x) return NULL;
    int ok = x->type.kind == CC_T_TENSOR && (x->type.window == CC_WIN_DT || (op != CC_IR_GET_COMM_CTX && x->type.window == CC_WIN_CTX));
    if (!ok) {
        char ty[96];
        cc_type_format(&x->type, ty, sizeof ty);
        if (op == CC_IR_GET_COMM_CTX)
            return tc_err(t, CC_DIAG_TYPE, a.v[0]->span, NULL, "pld.system.get_comm_ctx expects a DistributedTensor (window-bound), got %s", ty);
        return tc_err(t, CC_DIAG_TYPE, a.v[0]->span, NULL, "%s expects a pld.get_comm_ctx(...) handle, got %s", name, ty);
    }
    cc_type ty = x->type;
    if (op == CC_IR_GET_COMM_CTX) ty.window = CC_WIN_CTX;
    else ty = (cc_type){.kind = CC_T_SCALAR, .dtype = CC_DT_INT32};
    cc_ir_expr *e = tk_new(t, op, call->span, ty);
    if (e) e->u.op.args[0] = x;
    return e;
}

static cc_ir_expr *tk_signal_op(tc *t, const cc_expr *call, cc_ir_op op)
{
    int notify = op == CC_IR_NOTIFY;
    const char *name = cc_ir_op_name(op), *what = notify ? "target" : "signal";
    static const char *const pn[] = {"target", "peer", "offsets", "value", "?op"}, *const pw[] = {"signal", "offsets", "expected", "?cmp"};
    tc_args a;
    if (!tc_pld_bind(t, call, name, notify ? pn : pw, notify ? 5 : 4, &a)) return NULL;
    char text[96];
    snprintf(text, sizeof text, "%s %s", name, what);
    cc_ir_expr *w = tc_pld_dt(t, a.v[0], text);
    if (!w) return NULL;
    if (w->type.dtype != CC_DT_INT32)
        return tc_err(t, CC_DIAG_TYPE, a.v[0]->span, NULL, "%s must have INT32 element type, got %s", text, cc_dtype_name((cc_dtype)w->type.dtype));
    cc_ir_expr *x = tk_new(t, op, call->span, (cc_type){.kind = CC_T_VOID});
    if (!x) return NULL;
    x->u.op.args[0] = w;
    uint32_t k = 1;
    if (notify && !(x->u.op.args[k++] = tk_int(t, a.v[1], name, "peer"))) return NULL;
    if (!(x->u.op.args[k] = tk_offsets(t, a.v[k], name, what, w))) return NULL;
    k++;
    if (!(x->u.op.args[k] = tk_int(t, a.v[k], name, notify ? "value" : "expected"))) return NULL;
    int m = notify ? tk_enum(t, a.v[4], name, "op", "NotifyOp", "AtomicAdd", "Set") : tk_enum(t, a.v[3], name, "cmp", "WaitCmp", "Eq", "Ge");
    if (m < 0) return NULL;
    x->u.op.mode = (uint8_t)m;
    return x;
}

static cc_ir_expr *tk_remote_load(tc *t, const cc_expr *call)
{
    static const char *const op = "pld.tile.remote_load";
    static const char *const ps[] = {"target", "peer", "offsets", "shape", "?valid_shape"};
    tc_args a;
    if (!tc_pld_bind(t, call, op, ps, 5, &a)) return NULL;
    cc_ir_expr *w = tc_pld_dt(t, a.v[0], "pld.tile.remote_load target"), *peer = w ? tk_int(t, a.v[1], op, "peer") : NULL;
    cc_ir_expr *offs = peer ? tk_offsets(t, a.v[2], op, "target", w) : NULL, *shp;
    int64_t ext[CC_MAX_RANK];
    uint32_t n;
    if (!offs || !tc_shapes(t, a.v[3], "tile.remote_load", ext, &n, &shp)) return NULL;
    if (n != w->type.rank)
        return tc_err(t, CC_DIAG_TYPE, a.v[3]->span, NULL, "%s shape rank (%u) must match target tensor rank (%u)", op, n, w->type.rank);
    if (!tk_box(t, offs, ext, w)) return NULL;
    cc_ir_expr *valid = a.v[4] && a.v[4]->kind != CC_E_NONE ? tc_offset_list(t, a.v[4], "valid_shape must be a list of integer scalars") : NULL;
    if (a.v[4] && a.v[4]->kind != CC_E_NONE && !valid) return NULL;
    if (valid && valid->u.list.n != n) return tc_err(t, CC_DIAG_TYPE, a.v[4]->span, NULL, "%s valid_shape rank (%u) must match shape rank (%u)", op, valid->u.list.n, n);
    cc_type ty = {.kind = CC_T_TILE, .dtype = w->type.dtype, .rank = (uint8_t)n, .partial = valid != NULL};
    memcpy(ty.shape, ext, n * sizeof ext[0]);
    cc_ir_expr *x = tk_new(t, CC_IR_REMOTE_LOAD, call->span, ty);
    if (x) x->u.op.args[0] = w, x->u.op.args[1] = peer, x->u.op.args[2] = offs, x->u.op.args[3] = shp, x->u.op.args[4] = valid;
    return x;
}

static cc_ir_expr *tk_remote_store(tc *t, const cc_expr *call, int spelling)
{
    static const char *const ps[] = {"src", "target", "peer", "offsets", "?atomic"};
    cc_ir_expr *src0 = NULL;
    tc_args a;
    if (!tc_pld_bind(t, call, spelling == 2 ? "pld.remote_store" : spelling ? "pld.tensor.remote_store" : "pld.tile.remote_store", ps, 5, &a) ||
        !(src0 = tc_expr(t, a.v[0])))
        return NULL;
    if (spelling == 2) spelling = src0->type.kind == CC_T_TENSOR || src0->type.from_tensors; /* picks by operand kind */
    const char *op = spelling ? "pld.tensor.remote_store" : "pld.tile.remote_store";
    cc_ir_expr *src = tc_tile_operand(t, src0, a.v[0]->span);
    char text[64];
    snprintf(text, sizeof text, "%s target", op);
    cc_ir_expr *w = src ? tc_pld_dt(t, a.v[1], text) : NULL, *peer = w ? tk_int(t, a.v[2], op, "peer") : NULL;
    cc_ir_expr *offs = peer ? tk_offsets(t, a.v[3], op, "target", w) : NULL;
    if (!offs) return NULL;
    if (w->type.rank < 2) return tc_err(t, CC_DIAG_TYPE, a.v[1]->span, NULL, "%s target rank must be >= 2 to hold a 2-D push, got %u", op, w->type.rank);
    for (uint32_t d = 0; d + 2 < src->type.rank; d++)
        if (src->type.shape[d] != 1)
            return tc_err(t, CC_DIAG_TYPE, a.v[0]->span, NULL, "%s src leading dimension %u must be 1 (got %lld)", op, d, (long long)src->type.shape[d]);
    if (src->type.dtype != w->type.dtype)
        return tc_err(t, CC_DIAG_TYPE, a.v[0]->span, NULL, "%s: src dtype %s does not match target dtype %s", op, cc_dtype_name((cc_dtype)src->type.dtype),
                      cc_dtype_name((cc_dtype)w->type.dtype));
    if (src->type.rank == w->type.rank && !tk_box(t, offs, src->type.shape, w)) return NULL;
    int atomic = a.v[4] ? tc_pld_enum(t, a.v[4], "AtomicType") : 0;
    if (atomic < 0) return tc_err(t, CC_DIAG_TYPE, a.v[4]->span, NULL, "%s atomic= must be pld.AtomicType.None_ or pld.AtomicType.Add", op);
    if (atomic && !tc_atomic_dtype(t, op + 3, src, a.v[0]->span)) return NULL;
    cc_ir_expr *x = tk_new(t, CC_IR_REMOTE_STORE, call->span, (cc_type){.kind = CC_T_VOID});
    if (!x) return NULL;
    x->u.op.args[0] = src, x->u.op.args[1] = w, x->u.op.args[2] = peer, x->u.op.args[3] = offs;
    x->u.op.atomic = (uint8_t)atomic, x->u.op.mode = (uint8_t)spelling;
    return x;
}

/* A chunk_rows= / chunk_cols= value: a static int >= 0. */
static int tk_chunk(tc *t, const cc_expr *e, const char *op, int64_t *v)
{
    *v = 0;
    if (!e) return 1;
    const cc_expr *c = tc_module_constant_ast(t, e);
    int neg = c->kind == CC_E_UNARY && c->u.un.op == CC_OP_NEG && c->u.un.operand->kind == CC_E_INT;
    if (c->kind == CC_E_INT || neg) *v = neg ? -c->u.un.operand->u.i : c->u.i;
    if ((c->kind != CC_E_INT && !neg) || *v < 0)
        return tc_err(t, CC_DIAG_VALUE, e->span, NULL, "%s chunk_rows and chunk_cols must be static ints >= 0", op), 0;
    return 1;
}

static cc_ir_expr *tk_put_get(tc *t, const cc_expr *call, cc_ir_op opc)
{
    int put = opc == CC_IR_PUT;
    const char *op = cc_ir_op_name(opc);
    static const char *const pp[] = {"dst", "peer", "src", "?dst_offsets", "?src_offsets", "?shape", "?chunk_rows", "?chunk_cols", "?pipeline", "?atomic"};
    tc_args a;
    if (!tc_pld_bind(t, call, op, pp, put ? 10 : 9, &a)) return NULL;
    char text[64];
    snprintf(text, sizeof text, "%s %s", op, put ? "dst" : "src");
    cc_ir_expr *dst = put ? tc_pld_dt(t, a.v[0], text) : tc_expr(t, a.v[0]);
    cc_ir_expr *peer = dst ? tk_int(t, a.v[1], op, "peer") : NULL;
    cc_ir_expr *src = peer ? (put ? tc_expr(t, a.v[2]) : tc_pld_dt(t, a.v[2], text)) : NULL;
    if (!src) return NULL;
    cc_ir_expr *local = put ? src : dst;
    if (local->type.kind != CC_T_TENSOR || local->type.window == CC_WIN_CTX || local->type.window == CC_WIN_BUFFER) {
        char ty[96];
        cc_type_format(&local->type, ty, sizeof ty);
        return tc_err(t, CC_DIAG_TYPE, local->span, NULL, "%s %s must be a Tensor or a DistributedTensor, got %s", op, put ? "src" : "dst", ty);
    }
    int nbox = !!a.v[3] + !!a.v[4] + !!a.v[5];
    if (nbox && nbox < 3)
        return tc_err(t, CC_DIAG_VALUE, call->span, NULL, "%s dst_offsets, src_offsets, and shape must be provided together", op);
    int64_t rows, cols;
    if (!tk_chunk(t, a.v[6], op, &rows) || !tk_chunk(t, a.v[7], op, &cols)) return NULL;
    const cc_expr *pipe = a.v[8] ? tc_module_constant_ast(t, a.v[8]) : NULL;
    if (pipe && pipe->kind != CC_E_BOOL) return tc_err(t, CC_DIAG_PY_TYPE, a.v[8]->span, NULL, "%s pipeline= must be a bool", op);
    if (pipe && pipe->u.i && (rows <= 0 || cols <= 0))
        return tc_err(t, CC_DIAG_VALUE, call->span, NULL, "%s pipeline=True requires both chunk_rows>0 and chunk_cols>0 (got chunk_rows=%lld, chunk_cols=%lld)",
                      op, (long long)rows, (long long)cols);
    if (src->type.dtype != dst->type.dtype)
        return tc_err(t, CC_DIAG_VALUE, call->span, NULL, "%s: src dtype %s does not match target dtype %s", op, cc_dtype_name((cc_dtype)src->type.dtype),
                      cc_dtype_name((cc_dtype)dst->type.dtype));
    cc_ir_expr *x = tk_new(t, opc, call->span, (cc_type){.kind = CC_T_VOID});
    if (!x) return NULL;
    x->u.op.args[0] = dst, x->u.op.args[1] = peer, x->u.op.args[2] = src;
    if (nbox) {
        int64_t ext[CC_MAX_RANK];
        uint32_t n;
        if (!(x->u.op.args[3] = tk_offsets(t, a.v[3], op, "dst", dst)) || !(x->u.op.args[4] = tk_offsets(t, a.v[4], op, "src", src)) ||
            !tc_shapes(t, a.v[5], op + 4, ext, &n, &x->u.op.args[5]))
            return NULL;
        if (n != dst->type.rank || n != src->type.rank)
            return tc_err(t, CC_DIAG_VALUE, a.v[5]->span, NULL, "%s shape rank (%u) must match the dst and src ranks (%u, %u)", op, n, dst->type.rank,
                          src->type.rank);
        if (!tk_box(t, x->u.op.args[3], ext, dst) || !tk_box(t, x->u.op.args[4], ext, src)) return NULL;
    } else if (dst->type.rank != src->type.rank || memcmp(dst->type.shape, src->type.shape, dst->type.rank * sizeof dst->type.shape[0])) {
        return tc_err(t, CC_DIAG_VALUE, call->span, NULL, "%s dst shape %s and src shape %s differ; pass dst_offsets, src_offsets and shape for a subregion",
                      op, tc_shape_text(t, &dst->type), tc_shape_text(t, &src->type));
    }
    int atomic = put && a.v[9] ? tc_pld_enum(t, a.v[9], "AtomicType") : 0;
    if (atomic < 0) return tc_err(t, CC_DIAG_TYPE, a.v[9]->span, NULL, "%s atomic= must be pld.AtomicType.None_ or pld.AtomicType.Add", op);
    cc_dtype dt = (cc_dtype)dst->type.dtype;
    if (atomic && dt != CC_DT_FP32 && dt != CC_DT_FP16 && dt != CC_DT_BF16 && dt != CC_DT_INT32 && dt != CC_DT_INT8)
        return tc_err(t, CC_DIAG_VALUE, a.v[9]->span, NULL, "%s atomic=AtomicType.Add supports FP32, FP16, BF16, INT32, INT8, got %s", op, cc_dtype_name(dt));
    x->u.op.atomic = (uint8_t)atomic;
    return x;
}

static cc_ir_expr *tk_barrier(tc *t, const cc_expr *call)
{
    static const char *const op = "pld.tensor.barrier", *const ps[] = {"signal"};
    tc_args a;
    if (!tc_pld_bind(t, call, op, ps, 1, &a)) return NULL;
    cc_ir_expr *s = tc_pld_dt(t, a.v[0], "pld.tensor.barrier signal");
    if (!s) return NULL;
    if (s->type.dtype != CC_DT_INT32)
        return tc_err(t, CC_DIAG_TYPE, a.v[0]->span, NULL, "pld.tensor.barrier signal must have INT32 element type, got %s", cc_dtype_name((cc_dtype)s->type.dtype));
    cc_ir_expr *x = tk_new(t, CC_IR_BARRIER, call->span, s->type);
    if (x) x->u.op.args[0] = s;
    return x;
}

cc_ir_expr *tc_pld_kernel_op(tc *t, const cc_expr *call, cc_ir_op op, int spelling)
{
    int anywhere = op == CC_IR_GET_COMM_CTX; /* host: accepted, no use in v1 */
    if (t->c.plane != TC_KERNEL && !anywhere)
        return tc_err(t, CC_DIAG_INVALID_OP, call->span, NULL,
                      "%s can only be called in InCore code (a @pl.jit.incore function or a pl.at(level=pl.Level.CORE_GROUP) body); current "
                      "function: %s '%s'",
                      op == CC_IR_REMOTE_STORE && spelling ? (spelling == 1 ? "pld.tensor.remote_store" : "pld.remote_store") : cc_ir_op_name(op),
                      tc_kind_word(t), t->c.f->name);
    switch (op) {
    case CC_IR_GET_COMM_CTX: case CC_IR_RANK: case CC_IR_NRANKS: return tk_ctx_op(t, call, op);
    case CC_IR_NOTIFY: case CC_IR_WAIT: return tk_signal_op(t, call, op);
    case CC_IR_REMOTE_LOAD: return tk_remote_load(t, call);
    case CC_IR_REMOTE_STORE: return tk_remote_store(t, call, spelling);
    case CC_IR_PUT: case CC_IR_GET: return tk_put_get(t, call, op);
    default: return tk_barrier(t, call);
    }
}
