/*
 * lower.c - stage 7 (docs/compiler.md, "Lowering"): each Orchestration or Opaque function
 * becomes an orchestration procedure, each InCore function a tile program
 * (lower.h has the machine).  This file owns the procedures, statements,
 * control flow and the orchestration statements; lower_expr.c the scalar
 * expressions, lower_tile.c the tile statements.
 *
 * Control flow:
 *   for v in range(s, e, st):  s, e, st into fresh registers (evaluated
 *                              once); n = TRIPS s, e, st; k = 0;
 *                              top: if !(k < n) goto end; v = s + k*st;
 *                              body; k = k + 1; goto top; end:
 *   while c:                   top: if !c goto end; body; goto top; end:
 *   if c / else:               if !c goto else; then; goto end; else: ...
 *   with scope:                SCOPE_BEGIN (site: the scope node's line) body SCOPE_END
 *   pl.at(grouping level):     its body, in place
 *   return:                    RETURN closing the scopes open around it (no
 *                              SCOPE_END follows it); a body that falls off
 *                              its end gets one too
 * A kernel call becomes SUBMIT (its results are the argument tensors the
 * kernel returns, bound by ALIAS; pl.submit's last result is the TaskId);
 * an Orchestration or Opaque call becomes CALL, in a host procedure (kind
 * CC_LO_HOST, procs[0]) DISPATCH; a host procedure starts with
 * lower_dist.c's prologue (WINBUFs, ENTER), and the pld ops are
 * lower_dist.c's (WORLD, WINVIEW, HCOLL, COMM); its subscripts x[r] are
 * VIEWs marked host (u.mem.slice 2).  On Tensors in orchestration
 * (DSL-V2-SPEC §1.3, §1.5, §1.7): pl.slice becomes VIEW (a new slot), pl.assemble
 * COPY (its value is the target), pl.read and pl.write READ and WRITE.
 *
 * Several targets (`a, b = b, a`, `o2, o1 = k(a, o1, o2)`) are bound at
 * once, as in Python: every value first, then the targets in order, a value
 * that an earlier target overwrites through a temporary (lo_bind_all).
 */
#include <stdlib.h>
#include <string.h>

#include "compiler/lower_int.h"
#include "pto/runtime.h" /* PTO_MAX_TENSOR_ARGS, PTO_MAX_SCALAR_ARGS: constants only */

static const cc_type lo_index = {.kind = CC_T_SCALAR, .dtype = CC_DT_INDEX};
static const cc_type lo_bool = {.kind = CC_T_SCALAR, .dtype = CC_DT_BOOL};

static int lo_is_kernel(const lo_b *b) { return b->f->kind == CC_FUNC_INCORE; }

static int32_t lo_func_index(const cc_ir_func **fs, uint32_t n, const cc_ir_func *f)
{
    for (uint32_t k = 0; k < n; k++)
        if (fs[k] == f) return (int32_t)k;
    return -1;
}

static void lo_block(lo_b *b, const cc_ir_block *blk);

static int lo_same(cc_lo_ref x, cc_lo_ref y) { return x.kind == y.kind && x.index == y.index; }

/* Where name lives with type t, as a reference. */
static cc_lo_ref lo_var_ref(lo_b *b, const char *name, cc_type t)
{
    return (cc_lo_ref){(uint8_t)lo_kind_of(&t), (uint32_t)lo_var(b, name, t)};
}

/* The extents of shape list (IR items) of a rank-n tensor type ty into shape (a
 * constant, or CC_DIM_DYN for a run-time one) and ext (its INDEX register, else -1). */
static void lo_extents(lo_b *b, const cc_ir_expr *list, uint32_t n, int64_t *shape, int32_t *ext)
{
    for (uint32_t d = 0; d < n; d++) {
        const cc_ir_expr *it = list->u.list.items[d];
        ext[d] = -1;
        if (!cc_ir_const_int(it, &shape[d])) shape[d] = CC_DIM_DYN(0), ext[d] = lo_scalar(b, it, CC_DT_INDEX);
    }
}

/* pl.create_tensor into tensor slot dst. */
static void lo_alloc_tensor(lo_b *b, const cc_ir_expr *e, int32_t dst)
{
    int32_t init = e->u.op.args[1] ? lo_scalar(b, e->u.op.args[1], -1) : -1;
    int64_t shape[CC_MAX_RANK] = {0};
    int32_t ext[CC_MAX_RANK];
    lo_extents(b, e->u.op.args[0], e->type.rank, shape, ext);
    cc_lo_insn *in = lo_emit(b, CC_LO_ALLOC, e->span);
    if (!in) return;
    in->dst = dst, in->a = init, in->dtype = e->type.dtype, in->u.mem.rank = e->type.rank, in->mode = e->u.op.mode;
    memcpy(in->u.mem.shape, shape, sizeof in->u.mem.shape);
    for (uint32_t d = 0; d < CC_MAX_RANK; d++) in->u.mem.ext[d] = d < e->type.rank ? ext[d] : -1;
}

/* pl.slice of a Tensor in orchestration: VIEW into a new slot. */
static int32_t lo_view_of(lo_b *b, const cc_ir_expr *e, int32_t src)
{
    cc_ir_expr *const *arg = e->u.op.args;
    uint32_t rank = arg[0]->type.rank;
    int32_t off[CC_MAX_RANK], ext[CC_MAX_RANK];
    int64_t shape[CC_MAX_RANK];
    lo_index_list(b, arg[2], off, rank);
    lo_extents(b, arg[1], rank, shape, ext);
    int32_t valid[CC_MAX_RANK]; /* valid_shape='s registers, -1: none */
    for (uint32_t d = 0; d < CC_MAX_RANK; d++) valid[d] = arg[3] && d < rank ? lo_scalar(b, arg[3]->u.list.items[d], CC_DT_INDEX) : -1;
    int32_t t = lo_new(b, CC_LO_TENSOR, NULL, e->type);
    cc_lo_insn *in = lo_emit(b, CC_LO_VIEW, e->span);
    if (!in) return -1;
    in->dst = t, in->a = src, in->dtype = e->type.dtype, in->u.mem.rank = (uint8_t)rank, in->u.mem.slice = b->f->host ? 2 : 0;
    for (uint32_t d = 0; d < rank; d++) in->u.mem.off[d] = off[d], in->u.mem.ext[d] = ext[d], in->u.mem.shape[d] = shape[d];
    memcpy(in->u.mem.valid, valid, sizeof valid);
    for (uint32_t k = 0; arg[4] && k < arg[4]->u.list.n; k++) {
        int64_t d = 0;
        cc_ir_const_int(arg[4]->u.list.items[k], &d);
        in->mode |= (uint8_t)(1u << d);
    }
    return t;
}

/* pl.assemble of two Tensors in orchestration: COPY; returns the target. */
static int32_t lo_copy(lo_b *b, const cc_ir_expr *e, int32_t dst, int32_t src)
{
    int32_t off[CC_MAX_RANK];
    uint32_t rank = e->type.rank;
    lo_index_list(b, e->u.op.args[2], off, rank);
    cc_lo_insn *in = lo_emit(b, CC_LO_COPY, e->span);
    if (!in) return -1;
    in->a = dst, in->b = src, in->dtype = e->type.dtype, in->u.mem.rank = (uint8_t)rank;
    for (uint32_t d = 0; d < rank; d++) in->u.mem.off[d] = off[d], in->u.mem.ext[d] = -1;
    return dst;
}

/* A reference to the value of e: a variable's own place, a register
 * holding a scalar expression, a temporary tile holding a tile expression,
 * the tensor a pl.store wrote, a new pl.create_tensor or window view. */
static cc_lo_ref lo_value(lo_b *b, const cc_ir_expr *e, int dtype)
{
    cc_lo_kind k = lo_kind_of(&e->type);
    if (k == CC_LO_REG) return (cc_lo_ref){CC_LO_REG, (uint32_t)lo_scalar(b, e, dtype)};
    if (e->kind == CC_X_VAR) return lo_var_ref(b, e->u.name, e->type);
    if (lo_is_kernel(b) || (e->kind == CC_X_OP && e->u.op.op == CC_IR_WRITE)) return lo_tile_value(b, e);
    if (e->kind == CC_X_OP && e->u.op.op == CC_IR_SLICE)
        return (cc_lo_ref){CC_LO_TENSOR, (uint32_t)lo_view_of(b, e, (int32_t)lo_value(b, e->u.op.args[0], -1).index)};
    if (e->kind == CC_X_OP && e->u.op.op == CC_IR_WINDOW) /* a window view written inline (a dispatch argument) */
        return (cc_lo_ref){CC_LO_TENSOR, (uint32_t)lo_dist_view(b, e, -1)};
    if (e->kind == CC_X_OP && e->u.op.op == CC_IR_ASSEMBLE) {
        int32_t dst = (int32_t)lo_value(b, e->u.op.args[0], -1).index;
        return (cc_lo_ref){CC_LO_TENSOR, (uint32_t)lo_copy(b, e, dst, (int32_t)lo_value(b, e->u.op.args[1], -1).index)};
    }
    if (e->kind != CC_X_OP || e->u.op.op != CC_IR_CREATE_TENSOR)
        return (cc_lo_ref){(uint8_t)k,
                           (uint32_t)lo_internal(b, e->span, "a tensor value that is not a variable or pl.create_tensor")};
    int32_t t = lo_new(b, CC_LO_TENSOR, NULL, e->type);
    lo_alloc_tensor(b, e, t);
    return (cc_lo_ref){CC_LO_TENSOR, (uint32_t)t};
}

/* dst = the value at src: MOV, ALIAS or TCOPY by their kind; nothing when
 * they are one place. */
static void lo_move(lo_b *b, cc_lo_ref dst, cc_lo_ref src, cc_span sp)
{
    static const cc_lo_opcode code[] = {[CC_LO_REG] = CC_LO_MOV, [CC_LO_TENSOR] = CC_LO_ALIAS,
                                        [CC_LO_TILE] = CC_LO_TCOPY};
    if (b->x->failed || lo_same(dst, src)) return;
    cc_lo_insn *in = lo_emit(b, code[dst.kind], sp);
    if (in) in->dst = (int32_t)dst.index, in->a = (int32_t)src.index;
}

/* Binds dst[k] to the value at src[k] for every k at once, as Python binds
 * `a, b = b, a` (docs/dsl.md, "Statements"): a source that a binding before it
 * overwrites is first copied into a temporary; every other binding is one
 * move, so targets that read no earlier target cost nothing extra. */
static void lo_bind_all(lo_b *b, const cc_lo_ref *dst, cc_lo_ref *src, uint32_t n, cc_span sp)
{
    for (uint32_t k = 1; k < n && !b->x->failed; k++)
        for (uint32_t j = 0; j < k; j++) {
            if (!lo_same(src[k], dst[j]) || lo_same(src[j], dst[j])) continue;
            cc_lo_kind kind = (cc_lo_kind)src[k].kind;
            cc_lo_ref tmp = {src[k].kind, (uint32_t)lo_new(b, kind, NULL, b->slots[kind][src[k].index].type)};
            lo_move(b, tmp, src[k], sp);
            src[k] = tmp;
            break;
        }
    for (uint32_t k = 0; k < n; k++) lo_move(b, dst[k], src[k], sp);
}

/* ---- kernel calls and subroutine calls ------------------------------------------------- */

/* The parameter each value of g's return names (InCore functions return
 * only their tensor parameters), or -1. */
static int lo_returned_param(const cc_ir_func *g, uint32_t k)
{
    const cc_ir_stmt *r = g->body.n ? g->body.items[g->body.n - 1] : NULL;
    if (!r || r->kind != CC_I_RETURN || k >= r->u.ret.n || r->u.ret.values[k]->kind != CC_X_VAR) return -1;
    return cc_ir_func_param(g, r->u.ret.values[k]->u.name);
}

static void lo_view(lo_b *b, const cc_ir_expr *call, uint32_t k, cc_lo_view *v)
{
    const cc_ir_expr *arg = call->u.call.args[k];
    const cc_ir_box *box = call->u.call.boxes ? &call->u.call.boxes[k] : NULL;
    v->tensor = (uint32_t)lo_value(b, arg, -1).index;
    v->dir = box ? box->dir : call->u.call.callee->params[k].dir;
    v->nodep = call->u.call.nodep && call->u.call.nodep[k];
    v->rank = arg->type.rank;
    for (uint32_t d = 0; d < v->rank; d++) /* a run-time extent where the kernel was compiled for a constant */
        v->check |= CC_DIM_IS_DYN(arg->type.shape[d]) && !CC_DIM_IS_DYN(call->u.call.callee->params[k].type.shape[d]);
    for (uint32_t d = 0; d < v->rank; d++) {
        int whole = !box || d >= box->rank || !box->lo[d];
        v->lo[d] = whole ? -1 : lo_scalar(b, box->lo[d], CC_DT_INDEX);
        v->hi[d] = whole ? -1 : lo_scalar(b, box->hi[d], CC_DT_INDEX);
    }
}

static void lo_submit(lo_b *b, const cc_ir_expr *call, const cc_ir_target *tg, uint32_t nt, cc_span sp)
{
    const cc_ir_func *g = call->u.call.callee;
    uint32_t nviews = 0, nscalars = 0, origins = 0, extents = 0;
    for (uint32_t k = 0; k < g->nparams; k++) {
        if (g->params[k].type.kind != CC_T_TENSOR) {
            nscalars++;
            continue;
        }
        nviews++, origins += g->params[k].type.rank;
        for (uint32_t d = 0; d < g->params[k].type.rank; d++) extents += CC_DIM_IS_DYN(g->params[k].type.shape[d]);
    }
    /* a task carries the kernel's scalars, then each tensor's box origin, then the extent of each
     * dynamic dimension (orch_vm.c) */
    origins += extents;
    if (nviews > PTO_MAX_TENSOR_ARGS || nscalars + origins > PTO_MAX_SCALAR_ARGS) {
        if (!b->x->failed)
            cc_diag_add(b->x->p->diags, CC_DIAG_INVALID_OP, sp, "pass fewer tensors or scalars to this kernel, or split it",
                        "kernel '%s' needs %u tensor and %u scalar task arguments (its %u scalars, then the box origin of "
                        "each tensor argument, one per dimension%s); the runtime takes at most %d and %d",
                        g->name, nviews, nscalars + origins, nscalars, extents ? ", and each dynamic extent" : "", PTO_MAX_TENSOR_ARGS,
                        PTO_MAX_SCALAR_ARGS);
        b->x->failed = 1;
        return;
    }
    cc_lo_view *views = lo_alloc(b, nviews, sizeof *views, sp);
    int32_t *scalars = lo_alloc(b, nscalars, sizeof *scalars, sp);
    uint32_t ndeps;
    int32_t *deps = lo_deps(b, call, &ndeps);
    uint32_t iv = 0, is = 0;
    for (uint32_t k = 0; k < g->nparams && !b->x->failed; k++) {
        if (g->params[k].type.kind == CC_T_TENSOR) lo_view(b, call, k, &views[iv++]);
        else scalars[is++] = lo_scalar(b, call->u.call.args[k], g->params[k].type.dtype);
    }
    int32_t blocks = call->u.call.blocks ? lo_scalar(b, call->u.call.blocks, CC_DT_INDEX) : -1;
    const cc_ir_expr *pred = call->u.call.pred;
    uint32_t pt = pred && !b->x->failed ? lo_value(b, pred->u.list.items[0], -1).index : 0;
    int32_t pidx[CC_MAX_RANK];
    for (uint32_t d = 0; pred && d + 1 < pred->u.list.n && !b->x->failed; d++) pidx[d] = lo_scalar(b, pred->u.list.items[d + 1], CC_DT_INDEX);
    uint32_t nres = call->u.call.submit && nt ? nt - 1 : nt;
    int32_t tid = call->u.call.submit && nt ? lo_var(b, tg[nt - 1].name, tg[nt - 1].type) : -1;
    cc_lo_insn *in = lo_emit(b, CC_LO_SUBMIT, sp);
    if (!in) return;
    in->dst = tid;
    in->u.submit.kernel = (uint32_t)lo_func_index(b->x->kernels, b->x->l->nkernels, g);
    in->u.submit.views = views, in->u.submit.nviews = nviews;
    in->u.submit.scalars = scalars, in->u.submit.nscalars = nscalars;
    in->u.submit.deps = deps, in->u.submit.ndeps = ndeps;
    in->u.submit.blocks = blocks;
    if (pred) {
        in->u.submit.has_pred = 1, in->u.submit.pred = pt;
        in->u.submit.pred_rank = (uint8_t)(pred->u.list.n - 1), in->u.submit.pred_op = call->u.call.pred_op;
        in->u.submit.pred_k = call->u.call.pred_k;
        memcpy(in->u.submit.pred_idx, pidx, in->u.submit.pred_rank * sizeof pidx[0]);
    }
    /* each result is the argument tensor the kernel returns, bound to its target */
    cc_lo_ref *dst = lo_alloc(b, nres, sizeof *dst, sp), *src = lo_alloc(b, nres, sizeof *src, sp);
    for (uint32_t t = 0; t < nres && !b->x->failed; t++) {
        int pk = lo_returned_param(g, t);
        if (pk < 0) return (void)lo_internal(b, sp, "a kernel result that is not a parameter");
        src[t] = lo_value(b, call->u.call.args[pk], -1), dst[t] = lo_var_ref(b, tg[t].name, tg[t].type);
    }
    lo_bind_all(b, dst, src, nres, sp);
}

/* CALL, or in a host procedure DISPATCH (its device= register, -1: round robin; mode 1: a comm dispatch). */
static void lo_subcall(lo_b *b, const cc_ir_expr *call, const cc_ir_target *tg, uint32_t nt, cc_span sp)
{
    const cc_ir_func *g = call->u.call.callee;
    int32_t device = b->f->host && call->u.call.device ? lo_scalar(b, call->u.call.device, CC_DT_INDEX) : -1;
    uint32_t n = call->u.call.nargs;
    cc_lo_ref *args = lo_alloc(b, n, sizeof *args, sp), *res = lo_alloc(b, nt, sizeof *res, sp);
    for (uint32_t k = 0; k < n && !b->x->failed; k++) args[k] = lo_value(b, call->u.call.args[k], g->params[k].type.dtype);
    for (uint32_t k = 0; k < nt && !b->x->failed; k++) res[k] = lo_var_ref(b, tg[k].name, tg[k].type);
    cc_lo_insn *in = lo_emit(b, b->f->host ? CC_LO_DISPATCH : CC_LO_CALL, sp);
    if (!in) return;
    if (b->f->host) in->a = device, in->mode = call->u.call.comm;
    in->u.call.proc = (uint32_t)lo_func_index(b->x->procs, b->x->l->nprocs, g);
    in->u.call.args = args, in->u.call.nargs = n, in->u.call.results = res, in->u.call.nresults = nt;
}

/* pl.system.task_dummy(deps=...): a SUBMIT of no kernel (CC_LO_NO_KERNEL), its TaskId into the target. */
static void lo_dummy(lo_b *b, const cc_ir_expr *call, const cc_ir_target *tg, uint32_t nt)
{
    uint32_t ndeps;
    int32_t *deps = lo_deps(b, call, &ndeps);
    int32_t tid = nt ? lo_var(b, tg[0].name, tg[0].type) : -1;
    cc_lo_insn *in = lo_emit(b, CC_LO_SUBMIT, call->span);
    if (!in) return;
    in->dst = tid;
    in->u.submit.kernel = CC_LO_NO_KERNEL;
    in->u.submit.deps = deps, in->u.submit.ndeps = ndeps;
    in->u.submit.blocks = -1; /* one block */
}

static void lo_call(lo_b *b, const cc_ir_expr *call, const cc_ir_target *tg, uint32_t nt)
{
    cc_span sp = call->span;
    if (cc_ir_is_dummy(call)) return lo_dummy(b, call, tg, nt);
    switch (call->u.call.callee->kind) {
    case CC_FUNC_INCORE: return lo_submit(b, call, tg, nt, sp);
    case CC_FUNC_ORCHESTRATION:
    case CC_FUNC_OPAQUE: return lo_subcall(b, call, tg, nt, sp);
    default: lo_internal(b, call->span, "an Inline call");
    }
}

/* ---- assignments and expression statements ------------------------------------------------ */

/* A list or str bound to a name: a compile-time value the type checker
 * lets no instruction read (offsets, shapes and deps take literals), so it
 * has no register and lowers to nothing. */
static int lo_compile_time_only(const cc_type *t) { return t->kind == CC_T_LIST || t->kind == CC_T_STR; }

/* `a, b = x, y`: every value first, then the targets, all at once. */
static void lo_assign_list(lo_b *b, const cc_ir_stmt *s)
{
    const cc_ir_expr *v = s->u.assign.value;
    uint32_t nt = s->u.assign.ntargets, n = 0;
    cc_lo_ref *dst = lo_alloc(b, nt, sizeof *dst, s->span), *src = lo_alloc(b, nt, sizeof *src, s->span);
    for (uint32_t k = 0; k < nt && !b->x->failed; k++)
        if (!lo_compile_time_only(&s->u.assign.targets[k].type)) src[n++] = lo_value(b, v->u.list.items[k], -1);
    for (uint32_t k = 0, m = 0; k < nt && !b->x->failed; k++) {
        const cc_ir_target *t = &s->u.assign.targets[k];
        if (!lo_compile_time_only(&t->type)) dst[m++] = lo_var_ref(b, t->name, t->type);
    }
    lo_bind_all(b, dst, src, n, s->span);
}

/* `x = <pld op>` of a tensor value: a buffer declaration (the prologue's) and a pld.get_comm_ctx
 * handle (its uses name the tensor) lower to nothing, pld.window to WINVIEW, a barrier to its
 * effect and the signal bound to x. */
static void lo_dist_assign(lo_b *b, const cc_ir_stmt *s)
{
    const cc_ir_expr *v = s->u.assign.value;
    const cc_ir_target *t = s->u.assign.targets;
    if (v->u.op.op == CC_IR_ALLOC_WINDOW || v->u.op.op == CC_IR_GET_COMM_CTX) return;
    if (v->u.op.op == CC_IR_WINDOW) return (void)lo_dist_view(b, v, lo_var(b, t->name, t->type));
    int32_t r = lo_dist_effect(b, v);
    if (r >= 0) lo_move(b, lo_var_ref(b, t->name, t->type), (cc_lo_ref){CC_LO_TENSOR, (uint32_t)r}, s->span);
}

static void lo_assign(lo_b *b, const cc_ir_stmt *s)
{
    const cc_ir_expr *v = s->u.assign.value;
    const cc_ir_target *t = s->u.assign.targets;
    uint32_t n = s->u.assign.ntargets;
    if (v->kind == CC_X_CALL) return lo_call(b, v, t, n);
    if (n > 1) {
        if (v->kind == CC_X_LIST && v->u.list.n == n) return lo_assign_list(b, s);
        return (void)lo_internal(b, s->span, "an unpacking of a value that is not a call or a list");
    }
    if (lo_compile_time_only(&t->type)) return;
    if (lo_is_dist(v) && lo_kind_of(&t->type) == CC_LO_TENSOR) return lo_dist_assign(b, s);
    if (t->type.kind == CC_T_ARRAY) return lo_array_assign(b, v, lo_var(b, t->name, t->type));
    cc_lo_kind k = lo_kind_of(&t->type);
    if (k == CC_LO_REG) return lo_scalar_into(b, v, lo_var(b, t->name, t->type));
    if (k == CC_LO_TENSOR && v->kind == CC_X_VAR) return lo_move(b, lo_var_ref(b, t->name, t->type), lo_value(b, v, -1), s->span);
    if (lo_is_kernel(b)) return lo_tile_stmt(b, s);
    if (v->kind == CC_X_OP && v->u.op.op == CC_IR_CREATE_TENSOR) return lo_alloc_tensor(b, v, lo_var(b, t->name, t->type));
    if (k == CC_LO_TENSOR) return lo_move(b, lo_var_ref(b, t->name, t->type), lo_value(b, v, -1), s->span); /* a view, a copy, a write */
    lo_internal(b, v->span, "a tile value in orchestration code");
}

static void lo_expr_stmt(lo_b *b, const cc_ir_stmt *s)
{
    if (s->u.expr->kind == CC_X_CALL) return lo_call(b, s->u.expr, NULL, 0);
    if (lo_is_dist(s->u.expr)) return (void)lo_dist_effect(b, s->u.expr);
    if (lo_is_kernel(b)) return lo_tile_stmt(b, s);
    if (s->u.expr->type.kind == CC_T_TENSOR) return (void)lo_value(b, s->u.expr, -1); /* pl.write, pl.assemble */
    lo_internal(b, s->span, "an expression statement that is not a call");
}

/* ---- control flow -------------------------------------------------------------------------- */

static uint32_t lo_here(const lo_b *b) { return b->ncode; }

static void lo_patch(lo_b *b, uint32_t at, uint32_t target)
{
    if (!b->x->failed) b->code[at].u.target = target;
}

static uint32_t lo_jump(lo_b *b, cc_lo_opcode code, int32_t cond, uint32_t target, cc_span sp)
{
    uint32_t at = lo_here(b);
    cc_lo_insn *in = lo_emit(b, code, sp);
    if (in) in->a = cond, in->u.target = target;
    return at;
}

static void lo_bin(lo_b *b, cc_op op, int32_t dst, int32_t l, int32_t r, cc_span sp)
{
    cc_lo_insn *in = lo_emit(b, CC_LO_BIN, sp);
    if (in) in->op = (uint8_t)op, in->dtype = CC_DT_INDEX, in->dst = dst, in->a = l, in->b = r;
}

static void lo_const_index(lo_b *b, int32_t dst, int64_t v, cc_span sp)
{
    cc_lo_insn *in = lo_emit(b, CC_LO_CONST, sp);
    if (in) in->dst = dst, in->dtype = CC_DT_INDEX, in->u.imm.i = v;
}

static void lo_for(lo_b *b, const cc_ir_stmt *s)
{
    cc_span sp = s->span;
    int32_t start = lo_new(b, CC_LO_REG, NULL, lo_index), stop = lo_new(b, CC_LO_REG, NULL, lo_index);
    int32_t step = lo_new(b, CC_LO_REG, NULL, lo_index), n = lo_new(b, CC_LO_REG, NULL, lo_index);
    int32_t k = lo_new(b, CC_LO_REG, NULL, lo_index), one = lo_new(b, CC_LO_REG, NULL, lo_index);
    int32_t c = lo_new(b, CC_LO_REG, NULL, lo_bool), v = lo_var(b, s->u.for_.var, lo_index);
    lo_scalar_into(b, s->u.for_.start, start);
    lo_scalar_into(b, s->u.for_.stop, stop);
    lo_scalar_into(b, s->u.for_.step, step);
    cc_lo_insn *in = lo_emit(b, CC_LO_TRIPS, sp);
    if (in) in->dst = n, in->a = start, in->b = stop, in->c = step;
    lo_const_index(b, k, 0, sp);
    lo_const_index(b, one, 1, sp);
    uint32_t top = lo_here(b);
    lo_bin(b, CC_OP_LT, c, k, n, sp);
    uint32_t exit = lo_jump(b, CC_LO_JUMP_IF_FALSE, c, 0, sp);
    lo_bin(b, CC_OP_MUL, v, k, step, sp);
    lo_bin(b, CC_OP_ADD, v, start, v, sp);
    lo_block(b, &s->u.for_.body);
    lo_bin(b, CC_OP_ADD, k, k, one, sp);
    lo_jump(b, CC_LO_JUMP, -1, top, sp);
    lo_patch(b, exit, lo_here(b));
}

static void lo_while(lo_b *b, const cc_ir_stmt *s)
{
    uint32_t top = lo_here(b);
    int32_t c = lo_scalar(b, s->u.while_.cond, -1);
    uint32_t exit = lo_jump(b, CC_LO_JUMP_IF_FALSE, c, 0, s->span);
    lo_block(b, &s->u.while_.body);
    lo_jump(b, CC_LO_JUMP, -1, top, s->span);
    lo_patch(b, exit, lo_here(b));
}

static void lo_if(lo_b *b, const cc_ir_stmt *s)
{
    int32_t c = lo_scalar(b, s->u.if_.cond, -1);
    uint32_t to_else = lo_jump(b, CC_LO_JUMP_IF_FALSE, c, 0, s->span);
    lo_block(b, &s->u.if_.then);
    if (!s->u.if_.orelse.n) return lo_patch(b, to_else, lo_here(b));
    uint32_t to_end = lo_jump(b, CC_LO_JUMP, -1, 0, s->span);
    lo_patch(b, to_else, lo_here(b));
    lo_block(b, &s->u.if_.orelse);
    lo_patch(b, to_end, lo_here(b));
}

/* Does blk end with the function's return (possibly inside trailing
 * scopes)?  Then nothing after it runs. */
static int lo_ends_in_return(const cc_ir_block *blk)
{
    const cc_ir_stmt *s = blk->n ? blk->items[blk->n - 1] : NULL;
    if (!s) return 0;
    return s->kind == CC_I_RETURN || (s->kind == CC_I_SCOPE && lo_ends_in_return(&s->u.scope.body));
}

static void lo_scope(lo_b *b, const cc_ir_stmt *s)
{
    if (lo_is_kernel(b)) return (void)lo_internal(b, s->span, "a runtime scope in kernel code");
    cc_lo_insn *in = lo_emit(b, CC_LO_SCOPE_BEGIN, s->span);
    if (in) in->mode = s->u.scope.mode;
    b->depth++;
    lo_block(b, &s->u.scope.body);
    b->depth--;
    if (!lo_ends_in_return(&s->u.scope.body)) lo_emit(b, CC_LO_SCOPE_END, s->span);
}

static void lo_return(lo_b *b, const cc_ir_stmt *s)
{
    uint32_t n = s->u.ret.n;
    cc_lo_ref *refs = lo_alloc(b, n, sizeof *refs, s->span);
    for (uint32_t k = 0; k < n && !b->x->failed; k++) refs[k] = lo_value(b, s->u.ret.values[k], -1);
    cc_lo_insn *in = lo_emit(b, CC_LO_RETURN, s->span);
    if (in) in->u.ret.close = b->depth, in->u.ret.refs = refs, in->u.ret.nrefs = n;
}

static void lo_stmt(lo_b *b, const cc_ir_stmt *s)
{
    b->at = s->span;
    switch (s->kind) {
    case CC_I_ASSIGN: return lo_assign(b, s);
    case CC_I_EXPR: return lo_expr_stmt(b, s);
    case CC_I_FOR: return lo_for(b, s);
    case CC_I_WHILE: return lo_while(b, s);
    case CC_I_IF: return lo_if(b, s);
    case CC_I_SCOPE: return lo_scope(b, s);
    case CC_I_AT:
        if (s->u.at.level == CC_LEVEL_CORE_GROUP || lo_is_kernel(b))
            return (void)lo_internal(b, s->span, "a pl.at(level=pl.Level.CORE_GROUP) body that was not outlined");
        return lo_block(b, &s->u.at.body);
    case CC_I_RETURN: return lo_return(b, s);
    default: lo_internal(b, s->span, "an unknown statement");
    }
}

static void lo_block(lo_b *b, const cc_ir_block *blk)
{
    for (uint32_t i = 0; i < blk->n && !b->x->failed; i++) lo_stmt(b, blk->items[i]);
}

/* ---- procedures ------------------------------------------------------------------------------ */

static void *lo_keep(lo_b *b, void *heap, uint32_t n, size_t elem)
{
    void *m = lo_alloc(b, n, elem, b->f->span);
    if (m) memcpy(m, heap, n * elem);
    free(heap);
    return m;
}

static void lo_proc(lo_ctx *x, const cc_ir_func *f, cc_lo_proc *out)
{
    lo_b b = {.x = x, .f = f, .at = f->span};
    const cc_diags *d = x->p->diags;
    uint32_t shift = d && f->span.col && cc_diag_source(d, f->span.line) == d->src ? d->col_offset : 0; /* the file's column, as lo_emit's */
    out->name = f->name, out->kind = f->host ? CC_LO_HOST : f->kind, out->line = f->span.line, out->col = f->span.col + shift, out->nparams = f->nparams;
    out->params = lo_alloc(&b, f->nparams, sizeof *out->params, f->span);
    out->dirs = lo_alloc(&b, f->nparams, sizeof *out->dirs, f->span);
    for (uint32_t k = 0; k < f->nparams && !x->failed; k++) {
        const cc_ir_param *pm = &f->params[k];
        out->params[k] = (cc_lo_ref){(uint8_t)lo_kind_of(&pm->type), (uint32_t)lo_var(&b, pm->name, pm->type)};
        out->dirs[k] = pm->type.kind == CC_T_TENSOR ? pm->dir : CC_DIR_NONE;
        if (pm->valid.n && !x->failed) b.slots[CC_LO_TENSOR][out->params[k].index].valid = pm->valid;
    }
    if (f->host) lo_dist_prologue(&b);
    lo_block(&b, &f->body);
    if (!lo_ends_in_return(&f->body)) lo_emit(&b, CC_LO_RETURN, f->span);
    if (f->kind == CC_FUNC_INCORE && lo_tile_mark_direct_stores(b.code, b.ncode, b.nslots[CC_LO_TILE]) != 0)
        lo_oom(&b, f->span);
    out->ncode = b.ncode;
    out->code = lo_keep(&b, b.code, b.ncode, sizeof *b.code);
    out->nregs = b.nslots[CC_LO_REG], out->ntensors = b.nslots[CC_LO_TENSOR], out->ntiles = b.nslots[CC_LO_TILE];
    out->regs = lo_keep(&b, b.slots[CC_LO_REG], out->nregs, sizeof(cc_lo_slot));
    out->tensors = lo_keep(&b, b.slots[CC_LO_TENSOR], out->ntensors, sizeof(cc_lo_slot));
    out->tiles = lo_keep(&b, b.slots[CC_LO_TILE], out->ntiles, sizeof(cc_lo_slot));
    if (f->kind != CC_FUNC_INCORE && !x->failed && lo_hoist_consts(out) != 0) lo_oom(&b, f->span);
    free(b.names);
    base_strmap_free(&b.name_index);
}

/* Orders the functions: procedures (the entry first) and kernels. */
static int lo_plan(lo_ctx *x)
{
    const cc_ir_program *p = x->p;
    cc_lowered *l = x->l;
    x->procs = base_arena_alloc(x->a, (p->nfuncs + 1) * sizeof *x->procs);
    x->kernels = base_arena_alloc(x->a, (p->nfuncs + 1) * sizeof *x->kernels);
    if (!x->procs || !x->kernels) return -1;
    for (uint32_t k = 0; k < p->nfuncs; k++) {
        const cc_ir_func *f = p->funcs[k];
        if (f->kind == CC_FUNC_INCORE) x->kernels[l->nkernels++] = f;
        else x->procs[l->nprocs++] = f;
    }
    for (uint32_t k = 1; k < l->nprocs; k++) {
        if (!x->procs[k]->entry) continue;
        const cc_ir_func *e = x->procs[k];
        memmove(x->procs + 1, x->procs, k * sizeof *x->procs);
        x->procs[0] = e;
        break;
    }
    l->procs = base_arena_alloc(x->a, (l->nprocs + 1) * sizeof *l->procs);
    l->kernels = base_arena_alloc(x->a, (l->nkernels + 1) * sizeof *l->kernels);
    return l->procs && l->kernels ? 0 : -1;
}

const char *cc_lowered_site(const cc_lowered *l, uint32_t line, uint32_t *file_line)
{
    *file_line = l->sites ? cc_diag_line(l->sites, line) : line;
    return l->sites && l->sites->nsrcs > 1 ? cc_diag_file(l->sites, line) : l->file ? l->file : "<string>";
}

int cc_lower(const cc_ir_program *p, base_arena *a, cc_lowered **out)
{
    lo_ctx x = {.p = p, .a = a};
    *out = NULL;
    cc_span none = {0, 0, 0, 0};
    if (!(x.l = base_arena_alloc(a, sizeof *x.l)) || lo_plan(&x) < 0) {
        cc_diag_oom(p->diags, none, "out of memory while lowering");
        return -1;
    }
    x.l->file = p->src && p->src->file ? p->src->file : "<string>";
    x.l->sites = p->diags;
    x.l->dims = p->dims, x.l->ndims = p->ndims;
    for (uint32_t k = 0; k < x.l->nprocs && !x.failed; k++) lo_proc(&x, x.procs[k], &x.l->procs[k]);
    for (uint32_t k = 0; k < x.l->nkernels && !x.failed; k++) lo_proc(&x, x.kernels[k], &x.l->kernels[k]);
    if (x.failed) return -1;
    *out = x.l;
    return 0;
}
