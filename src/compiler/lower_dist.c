/*
 * lower_dist.c - stage 7 for the distributed surface (DISTRIBUTED-SPEC §1,
 * §2.1): a host procedure's prologue (one WINBUF per window buffer, then
 * ENTER), its window views (WINVIEW), dispatches (DISPATCH) and host
 * collectives (HCOLL); pld.world_size() (WORLD); and the kernels' COMM
 * instructions (program.h, "Host procedures only", "Kernels only").
 *
 * Invariants: every WINBUF comes before ENTER, and only the scalar, WORLD
 * and DIM instructions computing their operands come before them; buffers
 * are numbered in the order the host body declares them (all at its top
 * level: tc_pld.c); a COMM's window (a) is a DistributedTensor variable's
 * own slot (a pld.get_comm_ctx handle reads its tensor's), its peer
 * register c, its value, tile or local tensor b (program.h, COMM); a
 * collective's value is the window it updates (its data; a barrier's
 * signal).
 */
#include "compiler/lower_int.h"

#include <string.h>

#include "compiler/ops.h"

static const cc_type ld_index = {.kind = CC_T_SCALAR, .dtype = CC_DT_INDEX};

static int ld_is(const cc_ir_expr *e, cc_ir_op op) { return e && e->kind == CC_X_OP && e->u.op.op == op; }

/* The tensor slot of a window operand: a variable, or the one a pld.get_comm_ctx handle names. */
static int32_t ld_tensor(lo_b *b, const cc_ir_expr *e)
{
    if (ld_is(e, CC_IR_GET_COMM_CTX)) e = e->u.op.args[0];
    if (e->kind != CC_X_VAR || e->type.kind != CC_T_TENSOR) return lo_internal(b, e->span, "a window operand that is not a variable");
    return lo_var(b, e->u.name, e->type);
}

/* ---- host procedures ------------------------------------------------------------------------- */

/* The bytes of buffer declaration e (ALLOC_WINDOW): its size, or its shape's product times the element size. */
static int32_t ld_bytes(lo_b *b, const cc_ir_expr *e)
{
    const cc_ir_expr *size = e->u.op.args[0];
    if (e->u.op.dtype == 255) return lo_scalar(b, size, CC_DT_INDEX);
    cc_ir_expr *prod = cc_ir_int(b->x->a, (int64_t)cc_dtype_size((cc_dtype)e->u.op.dtype), e->span);
    for (uint32_t d = 0; prod && d < size->u.list.n; d++) prod = cc_ir_binary(b->x->a, CC_OP_MUL, prod, size->u.list.items[d], e->span);
    if (prod) prod->type = ld_index;
    if (!prod || !(prod = cc_ir_fold(b->x->a, prod))) return lo_oom(b, e->span);
    return lo_scalar(b, prod, CC_DT_INDEX);
}

void lo_dist_prologue(lo_b *b)
{
    const cc_ir_block *body = &b->f->body;
    for (uint32_t k = 0; k < body->n && !b->x->failed; k++) {
        const cc_ir_stmt *s = body->items[k];
        const cc_ir_expr *v = s->kind == CC_I_ASSIGN && s->u.assign.ntargets == 1 ? s->u.assign.value : NULL;
        if (!ld_is(v, CC_IR_ALLOC_WINDOW)) continue;
        const cc_ir_expr *n = v->u.op.args[1], *ranks = v->u.op.args[2];
        int32_t size = ld_bytes(b, v), upto = n ? lo_scalar(b, n, CC_DT_INDEX) : -1;
        if (b->nwinbufs == LO_MAX_WINBUFS) return (void)lo_internal(b, v->span, "more window buffers than a host procedure holds");
        cc_lo_insn *in = lo_emit(b, CC_LO_WINBUF, v->span);
        if (!in) return;
        in->a = size, in->b = upto, in->u.win.buf = b->nwinbufs, in->u.win.name = s->u.assign.targets[0].name;
        for (uint32_t r = 0; ranks && r < ranks->u.list.n && r < sizeof in->u.win.ranks / sizeof in->u.win.ranks[0]; r++)
            in->u.win.ranks[in->u.win.nranks++] = (int32_t)ranks->u.list.items[r]->u.i;
        b->winbufs[b->nwinbufs++] = s->u.assign.targets[0].name;
    }
    lo_emit(b, CC_LO_ENTER, b->f->span);
}

int32_t lo_dist_view(lo_b *b, const cc_ir_expr *e, int32_t dst)
{
    const char *buf = e->u.op.args[0]->u.name;
    uint32_t k = 0;
    while (k < b->nwinbufs && strcmp(b->winbufs[k], buf)) k++;
    if (k == b->nwinbufs) return lo_internal(b, e->span, "a window view of an undeclared buffer");
    if (dst < 0) dst = lo_new(b, CC_LO_TENSOR, NULL, e->type);
    cc_lo_insn *in = lo_emit(b, CC_LO_WINVIEW, e->span);
    if (!in) return -1;
    in->dst = dst, in->dtype = e->type.dtype, in->u.win.buf = k, in->u.win.name = buf, in->u.win.rank = e->type.rank;
    memcpy(in->u.win.shape, e->type.shape, sizeof in->u.win.shape);
    const cc_ir_expr *shape = e->u.op.args[1];
    for (uint32_t d = 0; d < shape->u.list.n && d < CC_MAX_RANK; d++)
        if (ld_is(shape->u.list.items[d], CC_IR_WORLD_SIZE)) in->u.win.shape[d] = CC_LO_DIM_WORLD;
    return dst;
}

/* A host collective (HCOLL); returns the slot of its value: the data it updates (a barrier's signal). */
static int32_t ld_collective(lo_b *b, const cc_ir_expr *e)
{
    static const uint8_t colls[][2] = {{CC_IR_BARRIER, CC_LO_COLL_BARRIER}, {CC_IR_ALLREDUCE, CC_LO_COLL_ALLREDUCE},
                                       {CC_IR_BROADCAST, CC_LO_COLL_BROADCAST}, {CC_IR_ALLGATHER, CC_LO_COLL_ALLGATHER},
                                       {CC_IR_REDUCE_SCATTER, CC_LO_COLL_REDUCE_SCATTER}, {CC_IR_ALL_TO_ALL, CC_LO_COLL_ALL_TO_ALL}};
    cc_ir_expr *const *arg = e->u.op.args;
    int32_t data = -1, signal = -1, stage = -1, root = -1;
    switch (e->u.op.op) {
    case CC_IR_BARRIER: signal = ld_tensor(b, arg[0]); break;
    case CC_IR_ALLREDUCE: data = ld_tensor(b, arg[0]), signal = arg[1] ? ld_tensor(b, arg[1]) : -1; break;
    case CC_IR_REDUCE_SCATTER: data = ld_tensor(b, arg[0]), signal = ld_tensor(b, arg[1]); break;
    case CC_IR_BROADCAST:
        data = ld_tensor(b, arg[0]), signal = ld_tensor(b, arg[1]);
        root = arg[2] ? lo_scalar(b, arg[2], CC_DT_INDEX) : -1;
        break;
    default: stage = ld_tensor(b, arg[0]), data = ld_tensor(b, arg[1]), signal = ld_tensor(b, arg[2]); break;
    }
    cc_lo_insn *in = lo_emit(b, CC_LO_HCOLL, e->span);
    if (!in) return -1;
    for (size_t k = 0; k < sizeof colls / sizeof colls[0]; k++)
        if (colls[k][0] == e->u.op.op) in->u.coll.op = colls[k][1];
    in->u.coll.reduce = e->u.op.mode, in->mode = e->u.op.op == CC_IR_ALLREDUCE && e->u.op.implicit;
    in->u.coll.data = data, in->u.coll.signal = signal, in->u.coll.stage = stage, in->u.coll.root = root;
    return data >= 0 ? data : signal;
}

/* ---- kernels ------------------------------------------------------------------------------- */

/* A COMM of op on window operand w (a variable or a pld.get_comm_ctx handle) with peer register
 * peer (-1: none); the offsets and boxes are the caller's. */
static cc_lo_insn *ld_comm(lo_b *b, const cc_ir_expr *e, cc_lo_comm op, const cc_ir_expr *w, int32_t peer)
{
    int32_t win = ld_tensor(b, w);
    cc_lo_insn *in = lo_emit(b, CC_LO_COMM, e->span);
    if (!in) return NULL;
    in->a = win, in->c = peer;
    in->u.comm.op = (uint8_t)op, in->u.comm.rank = w->type.rank;
    for (uint32_t d = 0; d < CC_MAX_RANK; d++) in->u.comm.dst_off[d] = in->u.comm.src_off[d] = in->u.comm.valid[d] = -1;
    return in;
}

/* The constant extents of shape list l into shape. */
static void ld_shape(const cc_ir_expr *l, int64_t *shape)
{
    for (uint32_t d = 0; l && d < l->u.list.n; d++) cc_ir_const_int(l->u.list.items[d], &shape[d]);
}

void lo_dist_scalar_into(lo_b *b, const cc_ir_expr *e, int32_t dst)
{
    if (e->u.op.op == CC_IR_WORLD_SIZE) {
        cc_lo_insn *in = lo_emit(b, CC_LO_WORLD, e->span);
        if (in) in->dst = dst, in->dtype = CC_DT_INDEX;
        return;
    }
    if (e->u.op.op != CC_IR_RANK && e->u.op.op != CC_IR_NRANKS) return (void)lo_internal(b, e->span, "a pld op that is not a scalar");
    cc_lo_insn *in = ld_comm(b, e, e->u.op.op == CC_IR_RANK ? CC_LO_COMM_RANK : CC_LO_COMM_NRANKS, e->u.op.args[0], -1);
    if (in) in->dst = dst, in->dtype = CC_DT_INT32;
}

void lo_dist_tile_into(lo_b *b, const cc_ir_expr *e, int32_t dst)
{
    cc_ir_expr *const *arg = e->u.op.args;
    if (e->u.op.op != CC_IR_REMOTE_LOAD) return (void)lo_internal(b, e->span, "a pld op that is not a tile");
    uint32_t rank = arg[0]->type.rank;
    int32_t peer = lo_scalar(b, arg[1], CC_DT_INDEX), off[CC_MAX_RANK], valid[CC_MAX_RANK];
    lo_index_list(b, arg[2], off, rank);
    lo_index_list(b, arg[4], valid, rank);
    cc_lo_insn *in = ld_comm(b, e, CC_LO_COMM_REMOTE_LOAD, arg[0], peer);
    if (!in) return;
    in->dst = dst, in->dtype = e->type.dtype, in->u.comm.has_box = 1;
    memcpy(in->u.comm.dst_off, off, rank * sizeof off[0]);
    if (arg[4]) memcpy(in->u.comm.valid, valid, rank * sizeof valid[0]);
    ld_shape(arg[3], in->u.comm.shape);
}

/* pld.system.notify / wait: the cell's offsets and the value (expected) register. */
static void ld_signal(lo_b *b, const cc_ir_expr *e)
{
    cc_ir_expr *const *arg = e->u.op.args;
    int notify = e->u.op.op == CC_IR_NOTIFY;
    uint32_t rank = arg[0]->type.rank;
    int32_t peer = notify ? lo_scalar(b, arg[1], CC_DT_INDEX) : -1, off[CC_MAX_RANK];
    lo_index_list(b, arg[1 + notify], off, rank);
    int32_t v = lo_scalar(b, arg[2 + notify], CC_DT_INT32);
    cc_lo_insn *in = ld_comm(b, e, notify ? CC_LO_COMM_NOTIFY : CC_LO_COMM_WAIT, arg[0], peer);
    if (!in) return;
    in->b = v, in->mode = e->u.op.mode, in->dtype = CC_DT_INT32;
    memcpy(in->u.comm.dst_off, off, rank * sizeof off[0]);
}

static void ld_remote_store(lo_b *b, const cc_ir_expr *e)
{
    cc_ir_expr *const *arg = e->u.op.args;
    uint32_t rank = arg[1]->type.rank;
    int32_t tile = (int32_t)lo_tile_value(b, arg[0]).index, peer = lo_scalar(b, arg[2], CC_DT_INDEX), off[CC_MAX_RANK];
    lo_index_list(b, arg[3], off, rank);
    cc_lo_insn *in = ld_comm(b, e, CC_LO_COMM_REMOTE_STORE, arg[1], peer);
    if (!in) return;
    in->b = tile, in->dtype = arg[0]->type.dtype, in->u.comm.atomic = e->u.op.atomic;
    memcpy(in->u.comm.dst_off, off, rank * sizeof off[0]);
}

/* pld.tensor.put / get: the window is put's dst, get's src; the local tensor the other. */
static void ld_put_get(lo_b *b, const cc_ir_expr *e)
{
    cc_ir_expr *const *arg = e->u.op.args;
    int put = e->u.op.op == CC_IR_PUT;
    const cc_ir_expr *win = put ? arg[0] : arg[2], *local = put ? arg[2] : arg[0];
    int32_t peer = lo_scalar(b, arg[1], CC_DT_INDEX), loc = ld_tensor(b, local);
    int32_t woff[CC_MAX_RANK], loff[CC_MAX_RANK];
    lo_index_list(b, put ? arg[3] : arg[4], woff, win->type.rank);
    lo_index_list(b, put ? arg[4] : arg[3], loff, local->type.rank);
    cc_lo_insn *in = ld_comm(b, e, put ? CC_LO_COMM_PUT : CC_LO_COMM_GET, win, peer);
    if (!in) return;
    in->b = loc, in->dtype = win->type.dtype, in->u.comm.atomic = e->u.op.atomic, in->u.comm.has_box = arg[5] != NULL;
    memcpy(in->u.comm.dst_off, woff, sizeof woff);
    memcpy(in->u.comm.src_off, loff, sizeof loff);
    ld_shape(arg[5], in->u.comm.shape);
}

int lo_is_dist(const cc_ir_expr *e) { return e && e->kind == CC_X_OP && cc_ir_op_info((cc_ir_op)e->u.op.op)->cls == CC_OPC_DIST; }

int32_t lo_dist_effect(lo_b *b, const cc_ir_expr *e)
{
    if (b->f->kind != CC_FUNC_INCORE) return ld_collective(b, e);
    switch (e->u.op.op) {
    case CC_IR_NOTIFY: case CC_IR_WAIT: ld_signal(b, e); return -1;
    case CC_IR_REMOTE_STORE: ld_remote_store(b, e); return -1;
    case CC_IR_PUT: case CC_IR_GET: ld_put_get(b, e); return -1;
    case CC_IR_BARRIER: {
        ld_comm(b, e, CC_LO_COMM_BARRIER, e->u.op.args[0], -1);
        return ld_tensor(b, e->u.op.args[0]);
    }
    default: return lo_internal(b, e->span, "a pld op of no effect in a statement");
    }
}
