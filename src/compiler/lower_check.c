/*
 * lower_check.c - cc_lower_check (lower.h): the lowered program checked
 * against what the executor relies on, so a compiler bug is a named
 * InternalError ("lowered program check: ...") at compile time instead of
 * a bad read in a VM.  compile.c runs it after lowering in Debug and
 * sanitizer builds (PTO_CHECKS); tests run it on corrupted programs.
 *
 * Rules, per procedure (orchestration) and kernel (tile program):
 *  - the code is not empty and ends with RETURN; every opcode is one its
 *    kind of program runs (SCOPE_*, ALLOC, SUBMIT, CALL: orchestration;
 *    LOAD, STORE, TOP, TCOPY: kernels);
 *  - every operand names a slot in range, of the kind the opcode reads
 *    or writes (a register, a tensor slot or a tile), parameters too;
 *  - a scalar instruction's registers have the dtype class (integer or
 *    float) its dtype says, as the VMs read them;
 *  - jump targets, SUBMIT's kernel and CALL's procedure are in range, and
 *    SUBMIT and CALL pass what the callee's parameters take;
 *  - every slot is written before it is read on every path from the
 *    start (parameters are written at the start): a must-be-defined
 *    dataflow over the jumps, conservative where paths merge;
 *  - a host procedure (procs[0] only) runs WORLD, WINBUF, ENTER, WINVIEW,
 *    DISPATCH and HCOLL (no SUBMIT, CALL or ALLOC), its WINBUFs numbered
 *    0, 1, ... and, with the scalar instructions computing their operands,
 *    before its one ENTER, which precedes every other instruction; COMM
 *    runs in kernels only.
 * The first breach is reported and the check stops.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/lower.h"

typedef struct lc {
    const cc_lowered *l;
    const cc_lo_proc *p;
    int kernel;        /* p is a tile program */
    cc_diags *d;
    uint32_t pc;       /* the instruction being checked */
    int failed;
    /* dataflow: one bit per slot (registers, then tensors, then tiles) per instruction */
    uint32_t words;
    uint64_t *in;      /* ncode * words: defined on entry to each instruction */
    uint64_t *cur;     /* words: the instruction being stepped */
    int checking_uses; /* the dataflow has settled: reads are checked */
} lc;

/* A diagnostic's span at (line, col) of the lowered program: its columns
 * are the file's (lo_emit), a diagnostic's the text's (it adds col_offset). */
static cc_span lc_span(const lc *c, uint32_t line, uint32_t col)
{
    uint32_t shift = cc_diag_source(c->d, line) == c->d->src ? c->d->col_offset : 0;
    return (cc_span){line, col > shift ? col - shift : col, 0, 0};
}

static int lc_fail(lc *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int lc_fail(lc *c, const char *fmt, ...)
{
    if (c->failed) return -1;
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    const cc_lo_insn *in = c->pc < c->p->ncode ? &c->p->code[c->pc] : NULL;
    cc_span sp = lc_span(c, in ? in->line : c->p->line, in ? in->col : c->p->col);
    cc_diag_add(c->d, CC_DIAG_INTERNAL, sp, NULL,
                "lowered program check: %s '%s' instruction %u (%s): %s (internal compiler error; please report)",
                c->kernel ? "kernel" : "procedure", c->p->name ? c->p->name : "?", c->pc,
                in ? cc_lo_opcode_name((cc_lo_opcode)in->code) : "-", what);
    c->failed = 1;
    return -1;
}

static const char *const lc_kind_names[] = {"register", "tensor slot", "tile"};

static uint32_t lc_count(const lc *c, cc_lo_kind k)
{
    return k == CC_LO_REG ? c->p->nregs : k == CC_LO_TENSOR ? c->p->ntensors : c->p->ntiles;
}

static uint32_t lc_bit(const lc *c, cc_lo_kind k, uint32_t i)
{
    return k == CC_LO_REG ? i : k == CC_LO_TENSOR ? c->p->nregs + i : c->p->nregs + c->p->ntensors + i;
}

static int lc_in_range(lc *c, cc_lo_kind k, int64_t i, const char *role)
{
    if (i >= 0 && i < lc_count(c, k)) return 0;
    return lc_fail(c, "%s %s %lld out of range (%u)", role, lc_kind_names[k], (long long)i, lc_count(c, k));
}

/* A slot the instruction reads: in range and, once the dataflow settled, written before. */
static int lc_use(lc *c, cc_lo_kind k, int64_t i, const char *role)
{
    if (lc_in_range(c, k, i, role)) return -1;
    uint32_t b = lc_bit(c, k, (uint32_t)i);
    if (c->checking_uses && !(c->cur[b / 64] >> (b % 64) & 1))
        return lc_fail(c, "%s %s %lld is read before it is written on some path", role, lc_kind_names[k], (long long)i);
    return 0;
}

/* A slot the instruction writes. */
static int lc_def(lc *c, cc_lo_kind k, int64_t i, const char *role)
{
    if (lc_in_range(c, k, i, role)) return -1;
    uint32_t b = lc_bit(c, k, (uint32_t)i);
    c->cur[b / 64] |= 1ull << (b % 64);
    return 0;
}

/* Register r has dtype class float (fl) or integer. */
static int lc_reg_class(lc *c, int32_t r, int fl, const char *role)
{
    if (r < 0 || (uint32_t)r >= c->p->nregs || cc_dtype_is_float((cc_dtype)c->p->regs[r].type.dtype) == fl) return 0;
    return lc_fail(c, "%s register %d is %s, the instruction reads it as %s", role, r,
                   cc_dtype_name((cc_dtype)c->p->regs[r].type.dtype), fl ? "a float" : "an integer");
}

static int lc_rank(lc *c, const cc_lo_insn *in)
{
    return in->u.mem.rank > CC_MAX_RANK ? lc_fail(c, "rank %u past %d", in->u.mem.rank, CC_MAX_RANK) : 0;
}

/* A LOAD's or STORE's window: its offsets and extents (-1: none) are registers it reads. */
static void lc_window(lc *c, const cc_lo_insn *in)
{
    if (lc_rank(c, in)) return;
    for (uint32_t d = 0; d < in->u.mem.rank; d++) {
        lc_use(c, CC_LO_REG, in->u.mem.off[d], "offset");
        if (in->u.mem.ext[d] >= 0) lc_use(c, CC_LO_REG, in->u.mem.ext[d], "extent");
    }
}

static void lc_refs(lc *c, const cc_lo_ref *refs, uint32_t n, int def, const char *role)
{
    for (uint32_t k = 0; k < n && !c->failed; k++) {
        if (refs[k].kind > CC_LO_TILE) lc_fail(c, "%s %u has no slot kind (%u)", role, k, refs[k].kind);
        else if (def) lc_def(c, (cc_lo_kind)refs[k].kind, refs[k].index, role);
        else lc_use(c, (cc_lo_kind)refs[k].kind, refs[k].index, role);
    }
}

static void lc_submit(lc *c, const cc_lo_insn *in)
{
    if (in->u.submit.kernel == CC_LO_NO_KERNEL && !in->u.submit.nviews && !in->u.submit.nscalars && !in->u.submit.has_pred) {
        for (uint32_t i = 0; i < in->u.submit.ndeps; i++) lc_use(c, CC_LO_REG, in->u.submit.deps[i], "dependency");
        if (in->dst >= 0) lc_def(c, CC_LO_REG, in->dst, "task id");
        return;
    }
    if (in->u.submit.kernel >= c->l->nkernels)
        return (void)lc_fail(c, "kernel %u out of range (%u)", in->u.submit.kernel, c->l->nkernels);
    const cc_lo_proc *k = &c->l->kernels[in->u.submit.kernel];
    uint32_t nt = 0, ns = 0;
    for (uint32_t i = 0; i < k->nparams; i++) nt += k->params[i].kind == CC_LO_TENSOR, ns += k->params[i].kind == CC_LO_REG;
    if (in->u.submit.nviews != nt || in->u.submit.nscalars != ns)
        return (void)lc_fail(c, "%u views and %u scalars for kernel '%s', which takes %u and %u", in->u.submit.nviews,
                             in->u.submit.nscalars, k->name, nt, ns);
    for (uint32_t i = 0; i < in->u.submit.nviews; i++) {
        const cc_lo_view *v = &in->u.submit.views[i];
        lc_use(c, CC_LO_TENSOR, v->tensor, "view");
        if (v->rank > CC_MAX_RANK) return (void)lc_fail(c, "view %u of rank %u", i, v->rank);
        for (uint32_t d = 0; d < v->rank; d++)
            if (v->lo[d] >= 0) lc_use(c, CC_LO_REG, v->lo[d], "box bound"), lc_use(c, CC_LO_REG, v->hi[d], "box bound");
    }
    for (uint32_t i = 0; i < in->u.submit.nscalars; i++) lc_use(c, CC_LO_REG, in->u.submit.scalars[i], "task scalar");
    for (uint32_t i = 0; i < in->u.submit.ndeps; i++) lc_use(c, CC_LO_REG, in->u.submit.deps[i], "dependency");
    if (in->u.submit.blocks >= 0) lc_use(c, CC_LO_REG, in->u.submit.blocks, "block count");
    if (in->u.submit.has_pred) {
        lc_use(c, CC_LO_TENSOR, in->u.submit.pred, "predicate tensor");
        if (in->u.submit.pred_rank > CC_MAX_RANK || in->u.submit.pred_op < CC_OP_EQ || in->u.submit.pred_op > CC_OP_GE)
            return (void)lc_fail(c, "predicate of rank %u, op %u", in->u.submit.pred_rank, in->u.submit.pred_op);
        for (uint32_t d = 0; d < in->u.submit.pred_rank; d++) lc_use(c, CC_LO_REG, in->u.submit.pred_idx[d], "predicate index");
    }
    if (in->dst >= 0) lc_def(c, CC_LO_REG, in->dst, "task id");
}

static void lc_call(lc *c, const cc_lo_insn *in)
{
    if (in->u.call.proc >= c->l->nprocs) return (void)lc_fail(c, "procedure %u out of range (%u)", in->u.call.proc, c->l->nprocs);
    const cc_lo_proc *q = &c->l->procs[in->u.call.proc];
    if (in->u.call.nargs != q->nparams)
        return (void)lc_fail(c, "%u arguments for '%s', which takes %u", in->u.call.nargs, q->name, q->nparams);
    for (uint32_t k = 0; k < q->nparams && !c->failed; k++)
        if (in->u.call.args[k].kind != q->params[k].kind) lc_fail(c, "argument %u is not of the kind parameter %u takes", k, k);
    lc_refs(c, in->u.call.args, in->u.call.nargs, 0, "argument");
    lc_refs(c, in->u.call.results, in->u.call.nresults, 1, "result");
}

static int lc_gives_bool(cc_op op) { return op >= CC_OP_EQ && op <= CC_OP_OR; }

/* A scalar instruction: its reads (a, b, c as na says), its write (dst)
 * and the dtype class of each as the VMs read them (cls[0] for dst). */
static void lc_scalar(lc *c, const cc_lo_insn *in, int na, const int *cls)
{
    const int32_t ops[] = {in->a, in->b, in->c};
    static const char *const roles[] = {"first operand", "second operand", "third operand"};
    for (int k = 0; k < na; k++) lc_use(c, CC_LO_REG, ops[k], roles[k]);
    lc_def(c, CC_LO_REG, in->dst, "destination");
    for (int k = 0; k < na && cls; k++) lc_reg_class(c, ops[k], cls[k + 1], roles[k]);
    if (cls) lc_reg_class(c, in->dst, cls[0], "destination");
}

/* A COMM: its window and peer, its offsets, and per operation the value, tile or local tensor. */
static void lc_comm(lc *c, const cc_lo_insn *in)
{
    uint8_t op = in->u.comm.op;
    if (op > CC_LO_COMM_BARRIER || in->u.comm.rank > CC_MAX_RANK) return (void)lc_fail(c, "COMM operation %u of rank %u", op, in->u.comm.rank);
    lc_use(c, CC_LO_TENSOR, in->a, "window");
    if (in->c >= 0) lc_use(c, CC_LO_REG, in->c, "peer");
    int rma = op == CC_LO_COMM_PUT || op == CC_LO_COMM_GET, cell = op >= CC_LO_COMM_NOTIFY && op <= CC_LO_COMM_REMOTE_STORE;
    for (uint32_t d = 0; (cell || (rma && in->u.comm.has_box)) && d < in->u.comm.rank; d++) {
        lc_use(c, CC_LO_REG, in->u.comm.dst_off[d], "offset");
        if (rma) lc_use(c, CC_LO_REG, in->u.comm.src_off[d], "local offset");
        if (in->u.comm.valid[d] >= 0) lc_use(c, CC_LO_REG, in->u.comm.valid[d], "valid extent");
    }
    switch (op) {
    case CC_LO_COMM_RANK: case CC_LO_COMM_NRANKS: lc_def(c, CC_LO_REG, in->dst, "destination"); break;
    case CC_LO_COMM_NOTIFY: case CC_LO_COMM_WAIT: lc_use(c, CC_LO_REG, in->b, "value"); break;
    case CC_LO_COMM_REMOTE_LOAD: lc_def(c, CC_LO_TILE, in->dst, "destination"); break;
    case CC_LO_COMM_REMOTE_STORE: lc_use(c, CC_LO_TILE, in->b, "source"); break;
    case CC_LO_COMM_PUT: case CC_LO_COMM_GET: lc_use(c, CC_LO_TENSOR, in->b, "local tensor"); break;
    default: break;
    }
}

static void lc_hcoll(lc *c, const cc_lo_insn *in)
{
    const int32_t slots[] = {in->u.coll.data, in->u.coll.signal, in->u.coll.stage};
    if (in->u.coll.op > CC_LO_COLL_ALL_TO_ALL) return (void)lc_fail(c, "collective %u", in->u.coll.op);
    for (int k = 0; k < 3; k++)
        if (slots[k] >= 0) lc_use(c, CC_LO_TENSOR, slots[k], "window");
    if (in->u.coll.root >= 0) lc_use(c, CC_LO_REG, in->u.coll.root, "root");
}

/* Checks instruction pc's operands and steps c->cur over its writes. */
static void lc_insn(lc *c, const cc_lo_insn *in)
{
    int fl = cc_dtype_is_float((cc_dtype)in->dtype);
    switch ((cc_lo_opcode)in->code) {
    case CC_LO_CONST: lc_scalar(c, in, 0, (const int[]){fl}); break;
    case CC_LO_MOV:
        lc_scalar(c, in, 1, NULL);
        if (!c->failed) lc_reg_class(c, in->dst, cc_dtype_is_float((cc_dtype)c->p->regs[in->a].type.dtype), "destination");
        break;
    case CC_LO_CAST: lc_scalar(c, in, 1, NULL), lc_reg_class(c, in->dst, fl, "destination"); break;
    case CC_LO_BIN: lc_scalar(c, in, 2, (const int[]){lc_gives_bool((cc_op)in->op) ? 0 : fl, fl, fl}); break;
    case CC_LO_UN: lc_scalar(c, in, 1, (const int[]){in->op == CC_OP_NOT ? 0 : fl, fl}); break;
    case CC_LO_TRIPS: lc_scalar(c, in, 3, (const int[]){0, 0, 0, 0}); break;
    case CC_LO_JUMP: break;
    case CC_LO_JUMP_IF_FALSE: lc_use(c, CC_LO_REG, in->a, "condition"); break;
    case CC_LO_RETURN: lc_refs(c, in->u.ret.refs, in->u.ret.nrefs, 0, "returned value"); break;
    case CC_LO_SCOPE_BEGIN: case CC_LO_SCOPE_END: break;
    case CC_LO_ALLOC:
        if (in->a >= 0) lc_use(c, CC_LO_REG, in->a, "init value");
        if (!lc_rank(c, in))
            for (uint32_t d = 0; d < in->u.mem.rank; d++)
                if (in->u.mem.ext[d] >= 0) lc_use(c, CC_LO_REG, in->u.mem.ext[d], "extent");
        lc_def(c, CC_LO_TENSOR, in->dst, "destination");
        break;
    case CC_LO_ALIAS: lc_use(c, CC_LO_TENSOR, in->a, "source"), lc_def(c, CC_LO_TENSOR, in->dst, "destination"); break;
    case CC_LO_SUBMIT: lc_submit(c, in); break;
    case CC_LO_CALL: lc_call(c, in); break;
    case CC_LO_DISPATCH:
        if (in->a >= 0) lc_use(c, CC_LO_REG, in->a, "device");
        lc_call(c, in);
        break;
    case CC_LO_WORLD: lc_scalar(c, in, 0, (const int[]){0}); break;
    case CC_LO_WINBUF:
        lc_use(c, CC_LO_REG, in->a, "byte count");
        if (in->b >= 0) lc_use(c, CC_LO_REG, in->b, "rank count");
        if (in->u.win.nranks > 8) lc_fail(c, "%u constant ranks", in->u.win.nranks);
        break;
    case CC_LO_ENTER: break;
    case CC_LO_WINVIEW:
        if (in->u.win.rank < 1 || in->u.win.rank > CC_MAX_RANK) lc_fail(c, "a window view of rank %u", in->u.win.rank);
        lc_def(c, CC_LO_TENSOR, in->dst, "destination");
        break;
    case CC_LO_HCOLL: lc_hcoll(c, in); break;
    case CC_LO_COMM: lc_comm(c, in); break;
    case CC_LO_LOAD: lc_use(c, CC_LO_TENSOR, in->a, "source"), lc_window(c, in), lc_def(c, CC_LO_TILE, in->dst, "destination"); break;
    case CC_LO_STORE: lc_use(c, CC_LO_TENSOR, in->a, "destination"), lc_use(c, CC_LO_TILE, in->b, "source"), lc_window(c, in); break;
    case CC_LO_TOP:
        if (in->a >= 0 || cc_ir_op_operands((cc_ir_op)in->op)) lc_use(c, CC_LO_TILE, in->a, "operand");
        if (in->b_scalar) lc_use(c, CC_LO_REG, in->b, "scalar operand");
        else if (in->b >= 0) lc_use(c, CC_LO_TILE, in->b, "operand");
        if (cc_ir_op_info((cc_ir_op)in->op)->cls == CC_OPC_MATMUL_ACC) {
            lc_use(c, CC_LO_TILE, in->dst, "accumulator");
            if (in->c >= 0) lc_use(c, CC_LO_REG, in->c, "condition");
        }
        if (cc_ir_op_info((cc_ir_op)in->op)->cls == CC_OPC_MATMUL_BIAS) lc_use(c, CC_LO_TILE, in->c, "bias");
        if (in->op == CC_IR_ASSEMBLE || in->op == CC_IR_SLICE || in->op == CC_IR_RANDOM) lc_window(c, in); /* the window's offsets (and valid extents); pl.random's seeds */
        if (in->op == CC_IR_SET_VALIDSHAPE) lc_use(c, CC_LO_REG, in->c, "scalar operand");
        if (cc_ir_op_reads_c_tile((cc_ir_op)in->op)) lc_use(c, CC_LO_TILE, in->c, "operand");
        lc_def(c, CC_LO_TILE, in->dst, "destination");
        break;
    case CC_LO_TCOPY: lc_use(c, CC_LO_TILE, in->a, "source"), lc_def(c, CC_LO_TILE, in->dst, "destination"); break;
    case CC_LO_READ:
        lc_use(c, in->mode ? CC_LO_TENSOR : CC_LO_TILE, in->a, "source"), lc_window(c, in);
        lc_def(c, CC_LO_REG, in->dst, "destination"), lc_reg_class(c, in->dst, fl, "destination");
        break;
    case CC_LO_WRITE: lc_use(c, CC_LO_TENSOR, in->a, "destination"), lc_window(c, in), lc_use(c, CC_LO_REG, in->b, "value"); break;
    case CC_LO_VIEW:
        lc_use(c, CC_LO_TENSOR, in->a, "source"), lc_window(c, in);
        for (uint32_t d = 0; d < in->u.mem.rank && d < CC_MAX_RANK; d++)
            if (in->u.mem.valid[d] >= 0) lc_use(c, CC_LO_REG, in->u.mem.valid[d], "valid extent");
        lc_def(c, CC_LO_TENSOR, in->dst, "destination");
        break;
    case CC_LO_COPY: lc_use(c, CC_LO_TENSOR, in->a, "target"), lc_use(c, CC_LO_TENSOR, in->b, "source"), lc_window(c, in); break;
    case CC_LO_BLOCK: lc_scalar(c, in, 0, (const int[]){0}); break;
    case CC_LO_DIM:
        lc_use(c, CC_LO_TENSOR, in->a, "tensor"), lc_def(c, CC_LO_REG, in->dst, "destination");
        if (in->u.imm.i < 0 || in->u.imm.i >= CC_MAX_RANK) lc_fail(c, "DIM of axis %lld", (long long)in->u.imm.i);
        break;
    case CC_LO_AGET: case CC_LO_ASET: { /* every slot of the array is read (an ASET leaves the others) */
        int32_t base = in->code == CC_LO_AGET ? in->a : in->dst;
        if (in->u.imm.i < 1 || base < 0 || (int64_t)base + in->u.imm.i > (int64_t)c->p->nregs)
            return (void)lc_fail(c, "an array of %lld registers from r%d", (long long)in->u.imm.i, base);
        for (int64_t k = 0; k < in->u.imm.i; k++) lc_use(c, CC_LO_REG, base + (int32_t)k, "array slot");
        lc_use(c, CC_LO_REG, in->b, "array index");
        if (in->code == CC_LO_AGET) lc_def(c, CC_LO_REG, in->dst, "destination");
        else lc_use(c, CC_LO_REG, in->a, "value");
        break;
    }
    default: lc_fail(c, "no such opcode (%u)", in->code); break;
    }
}

/* Is code a kind of instruction p's kind of program runs? */
static int lc_runs_here(const lc *c, cc_lo_opcode code)
{
    int host_only = code == CC_LO_WORLD || code == CC_LO_WINBUF || code == CC_LO_ENTER || code == CC_LO_WINVIEW ||
                    code == CC_LO_DISPATCH || code == CC_LO_HCOLL;
    int orch_only = code == CC_LO_SCOPE_BEGIN || code == CC_LO_SCOPE_END || code == CC_LO_ALLOC || code == CC_LO_SUBMIT ||
                    code == CC_LO_CALL || code == CC_LO_VIEW || code == CC_LO_COPY || code == CC_LO_AGET || code == CC_LO_ASET;
    int tile_only = code == CC_LO_LOAD || code == CC_LO_STORE || code == CC_LO_TOP || code == CC_LO_TCOPY || code == CC_LO_BLOCK ||
                    code == CC_LO_COMM;
    if (c->p->kind == CC_LO_HOST) /* it submits nothing itself: its dispatches do */
        return !tile_only && code != CC_LO_SUBMIT && code != CC_LO_CALL && code != CC_LO_ALLOC;
    if (host_only) return 0;
    return c->kernel ? !orch_only : !tile_only;
}

/* A host procedure's prologue: WINBUFs numbered in order, then one ENTER, only scalar
 * instructions among them (program.h, ENTER). */
static int lc_host_prologue(lc *c)
{
    uint32_t nbufs = 0, enter = c->p->ncode;
    for (c->pc = 0; c->pc < c->p->ncode && c->p->code[c->pc].code != CC_LO_ENTER; c->pc++) {}
    if (c->pc == c->p->ncode) return lc_fail(c, "a host procedure without ENTER");
    for (c->pc = 0; c->pc < c->p->ncode; c->pc++) {
        const cc_lo_insn *in = &c->p->code[c->pc];
        if (in->code == CC_LO_ENTER && enter < c->p->ncode) return lc_fail(c, "a second ENTER");
        if (in->code == CC_LO_ENTER) enter = c->pc;
        else if (in->code == CC_LO_WINBUF && (enter < c->p->ncode || in->u.win.buf != nbufs++))
            return lc_fail(c, "WINBUF #%u after ENTER or out of order", in->u.win.buf);
        else if (enter == c->p->ncode && in->code != CC_LO_WINBUF && !cc_lo_is_scalar(in) && in->code != CC_LO_WORLD && in->code != CC_LO_DIM)
            return lc_fail(c, "an instruction before ENTER");
    }
    return 0;
}

/* in[s] &= cur; returns whether in[s] changed. */
static int lc_meet(lc *c, uint32_t s)
{
    uint64_t *w = &c->in[(size_t)s * c->words];
    int changed = 0;
    for (uint32_t k = 0; k < c->words; k++) {
        uint64_t v = w[k] & c->cur[k];
        changed |= v != w[k];
        w[k] = v;
    }
    return changed;
}

/* One pass over the code: each instruction from its in-set; returns whether an in-set changed. */
static int lc_pass(lc *c)
{
    int changed = 0;
    for (c->pc = 0; c->pc < c->p->ncode && !c->failed; c->pc++) {
        const cc_lo_insn *in = &c->p->code[c->pc];
        memcpy(c->cur, &c->in[(size_t)c->pc * c->words], c->words * sizeof *c->cur);
        lc_insn(c, in);
        if (c->failed) break;
        int jumps = in->code == CC_LO_JUMP || in->code == CC_LO_JUMP_IF_FALSE;
        if (jumps && in->u.target >= c->p->ncode) return lc_fail(c, "jump target %u out of range (%u)", in->u.target, c->p->ncode), 0;
        if (jumps) changed |= lc_meet(c, in->u.target);
        if (in->code != CC_LO_JUMP && in->code != CC_LO_RETURN && c->pc + 1 < c->p->ncode) changed |= lc_meet(c, c->pc + 1);
    }
    return changed;
}

static int lc_proc(lc *c, const cc_lo_proc *p, int kernel)
{
    *c = (lc){.l = c->l, .d = c->d, .p = p, .kernel = kernel, .pc = p->ncode};
    if (!p->ncode || p->code[p->ncode - 1].code != CC_LO_RETURN) return lc_fail(c, "the code does not end with RETURN");
    for (c->pc = 0; c->pc < p->ncode; c->pc++)
        if (!lc_runs_here(c, (cc_lo_opcode)p->code[c->pc].code))
            return lc_fail(c, "not an instruction of %s",
                           kernel ? "a tile program" : p->kind == CC_LO_HOST ? "a host procedure" : "an orchestration procedure");
    if (p->kind == CC_LO_HOST && lc_host_prologue(c)) return -1;
    c->pc = p->ncode;
    c->words = (p->nregs + p->ntensors + p->ntiles) / 64 + 1;
    c->in = malloc((size_t)p->ncode * c->words * sizeof *c->in);
    c->cur = malloc(c->words * sizeof *c->cur);
    if (!c->in || !c->cur) {
        free(c->in), free(c->cur);
        cc_diag_oom(c->d, lc_span(c, p->line, p->col), "out of memory while checking the lowered program");
        return -1;
    }
    memset(c->in, 0xff, (size_t)p->ncode * c->words * sizeof *c->in); /* unreached: everything defined */
    memset(c->cur, 0, c->words * sizeof *c->cur);
    lc_refs(c, p->params, p->nparams, 1, "parameter");
    memcpy(c->in, c->cur, c->words * sizeof *c->cur);
    while (!c->failed && lc_pass(c)) {}
    c->checking_uses = 1;
    if (!c->failed) lc_pass(c);
    free(c->in), free(c->cur);
    return c->failed ? -1 : 0;
}

int cc_lower_check(const cc_lowered *l, cc_diags *d)
{
    lc c = {.l = l, .d = d};
    for (uint32_t k = 0; k < l->nprocs; k++) {
        if (k && l->procs[k].kind == CC_LO_HOST) {
            c.p = &l->procs[k], c.pc = l->procs[k].ncode;
            return lc_fail(&c, "a host procedure that is not procs[0]");
        }
        if (lc_proc(&c, &l->procs[k], 0)) return -1;
    }
    for (uint32_t k = 0; k < l->nkernels; k++)
        if (lc_proc(&c, &l->kernels[k], 1)) return -1;
    return 0;
}
