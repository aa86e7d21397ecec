/*
 * lower_print.c - the listing of a lowered program (lower.h): per
 * procedure a header `proc <k> <name>(<param>=<where>, ...)` (kernels:
 * `kernel <k> ...` with each tensor parameter's direction), its registers
 * (rN), tensor slots (tN) and tiles (vN) one a line with name and type,
 * then one instruction a line: index, mnemonic, operands, `@line:col`.
 * Binary and unary scalar ops print as their operator (`ADD r3 = r1, r2
 * INDEX`), tile ops with a T prefix (`TMUL v1 = v0, r2 FP32`).  A host
 * procedure's header says Host; its window buffers print as #<buf>
 * <name>, COMM and HCOLL with their operation's name first.
 */
#include <ctype.h>

#include "compiler/program.h"
#include "compiler/names.h"

static const char lo_prefix[] = {'r', 't', 'v'};

static void lo_put_reg(base_strbuf *o, int32_t r)
{
    if (r < 0) base_strbuf_puts(o, "-");
    else base_strbuf_printf(o, "r%d", r);
}

static void lo_put_ref(base_strbuf *o, cc_lo_ref r) { base_strbuf_printf(o, "%c%u", lo_prefix[r.kind], r.index); }

static void lo_put_refs(base_strbuf *o, const cc_lo_ref *r, uint32_t n)
{
    base_strbuf_puts(o, "[");
    for (uint32_t k = 0; k < n; k++) base_strbuf_puts(o, k ? ", " : ""), lo_put_ref(o, r[k]);
    base_strbuf_puts(o, "]");
}

static void lo_put_regs(base_strbuf *o, const int32_t *r, uint32_t n)
{
    base_strbuf_puts(o, "[");
    for (uint32_t k = 0; k < n; k++) base_strbuf_puts(o, k ? ", " : ""), lo_put_reg(o, r[k]);
    base_strbuf_puts(o, "]");
}

static void lo_put_shape(base_strbuf *o, const int64_t *shape, uint32_t rank)
{
    base_strbuf_puts(o, "[");
    for (uint32_t d = 0; d < rank; d++)
        if (shape[d] == CC_LO_DIM_WORLD) base_strbuf_printf(o, "%sP", d ? ", " : "");
        else base_strbuf_printf(o, "%s%lld", d ? ", " : "", (long long)shape[d]);
    base_strbuf_puts(o, "]");
}

/* ALLOC's and VIEW's extents: a constant, or rN for a run-time one. */
static void lo_put_extents(base_strbuf *o, const cc_lo_insn *in)
{
    base_strbuf_puts(o, "[");
    for (uint32_t d = 0; d < in->u.mem.rank; d++)
        if (in->u.mem.ext[d] >= 0) base_strbuf_printf(o, "%sr%d", d ? ", " : "", in->u.mem.ext[d]);
        else base_strbuf_printf(o, "%s%lld", d ? ", " : "", (long long)in->u.mem.shape[d]);
    base_strbuf_puts(o, "]");
}

/* An operator's name in upper case: "FLOORDIV", "ROW_SUM". */
static void lo_put_upper(base_strbuf *o, const char *s)
{
    for (; *s; s++) base_strbuf_printf(o, "%c", toupper((unsigned char)*s));
}

/* The mnemonic of a scalar operator, in cc_op's order (ast.h). */
static const char *lo_cc_op_name(cc_op op)
{
    static const char *const names[] = {"ADD", "SUB", "MUL", "DIV", "FLOORDIV", "MOD", "NEG", "POS", "NOT", "EQ",
                                        "NE", "LT", "LE", "GT", "GE", "AND", "OR", "MIN", "MAX"};
    return (unsigned)op < sizeof names / sizeof names[0] ? names[op] : "?";
}

static void lo_put_view(base_strbuf *o, const cc_lo_view *v)
{
    base_strbuf_printf(o, "t%u %s%s%s [", v->tensor, cc_dir_name((cc_dir)v->dir), v->nodep ? " NoDep" : "", v->check ? " checked" : "");
    for (uint32_t d = 0; d < v->rank; d++) {
        base_strbuf_puts(o, d ? ", " : "");
        if (v->lo[d] < 0) base_strbuf_puts(o, ":");
        else base_strbuf_printf(o, "r%d:r%d", v->lo[d], v->hi[d]);
    }
    base_strbuf_puts(o, "]");
}

static void lo_put_submit(base_strbuf *o, const cc_lowered *l, const cc_lo_insn *in)
{
    uint32_t k = in->u.submit.kernel;
    base_strbuf_printf(o, "SUBMIT k=%s views=[", k < l->nkernels ? l->kernels[k].name : k == CC_LO_NO_KERNEL ? "-" : "?");
    for (uint32_t i = 0; i < in->u.submit.nviews; i++) base_strbuf_puts(o, i ? ", " : ""), lo_put_view(o, &in->u.submit.views[i]);
    base_strbuf_puts(o, "] scalars=");
    lo_put_regs(o, in->u.submit.scalars, in->u.submit.nscalars);
    if (in->u.submit.ndeps) base_strbuf_puts(o, " deps="), lo_put_regs(o, in->u.submit.deps, in->u.submit.ndeps);
    if (in->u.submit.blocks >= 0) base_strbuf_printf(o, " blocks=r%d", in->u.submit.blocks);
    if (in->u.submit.has_pred) {
        base_strbuf_printf(o, " if t%u", in->u.submit.pred);
        lo_put_regs(o, in->u.submit.pred_idx, in->u.submit.pred_rank);
        base_strbuf_printf(o, " %s %lld", lo_cc_op_name((cc_op)in->u.submit.pred_op), (long long)in->u.submit.pred_k);
    }
    if (in->dst >= 0) base_strbuf_printf(o, " -> r%d", in->dst);
}

/* LOAD and STORE: `t0[r1, r2]` and the optional extents. */
static void lo_put_window(base_strbuf *o, const cc_lo_insn *in, int32_t tensor, const char *ext_name)
{
    base_strbuf_printf(o, "t%d", tensor);
    lo_put_regs(o, in->u.mem.off, in->u.mem.rank);
    int any = 0;
    for (uint32_t d = 0; ext_name && d < in->u.mem.rank; d++) any |= in->u.mem.ext[d] >= 0;
    if (any) base_strbuf_printf(o, " %s=", ext_name), lo_put_regs(o, in->u.mem.ext, in->u.mem.rank);
}

static void lo_put_const(base_strbuf *o, const cc_lo_insn *in)
{
    base_strbuf_printf(o, "CONST r%d = ", in->dst);
    if (cc_dtype_is_float((cc_dtype)in->dtype)) base_strbuf_printf(o, "%.17g", in->u.imm.f);
    else base_strbuf_printf(o, "%lld", (long long)in->u.imm.i);
    base_strbuf_printf(o, " %s", cc_dtype_name((cc_dtype)in->dtype));
}

static void lo_put_top(base_strbuf *o, const cc_lo_insn *in)
{
    base_strbuf_puts(o, "T"), lo_put_upper(o, cc_ir_op_name((cc_ir_op)in->op));
    base_strbuf_printf(o, " v%d", in->dst);
    if (in->a >= 0) base_strbuf_printf(o, " = v%d", in->a);
    if (in->b >= 0) base_strbuf_printf(o, ", %c%d", in->b_scalar ? 'r' : 'v', in->b);
    cc_op_class cls = (cc_op_class)cc_ir_op_info((cc_ir_op)in->op)->cls;
    if (cls == CC_OPC_MATMUL_ACC && in->c >= 0) base_strbuf_printf(o, " init r%d", in->c);
    if (cls == CC_OPC_MATMUL_BIAS) base_strbuf_printf(o, ", v%d", in->c);
    if (in->op == CC_IR_SET_VALIDSHAPE) base_strbuf_printf(o, ", r%d", in->c);
    if (cc_ir_op_reads_c_tile((cc_ir_op)in->op)) base_strbuf_printf(o, ", v%d", in->c);
    base_strbuf_printf(o, " %s", cc_dtype_name((cc_dtype)in->dtype));
    if (in->op == CC_IR_FILLPAD || in->op == CC_IR_FILLPAD_EXPAND) base_strbuf_printf(o, " %s", cc_pad_value_name(in->mode));
    if (in->op == CC_IR_CMP) base_strbuf_printf(o, " cmp_type %d", in->mode);
    if (cc_ir_op_info((cc_ir_op)in->op)->cls == CC_OPC_TRANSPOSE) base_strbuf_printf(o, " axes %d %d", in->mode & 15, in->mode >> 4);
    if (in->op == CC_IR_CAST && !cc_dtype_is_float((cc_dtype)in->dtype)) base_strbuf_printf(o, " %s", cc_cast_mode_name((cc_cast_mode)in->mode));
    if (in->op == CC_IR_MGATHER || in->op == CC_IR_PAGED_GATHER) base_strbuf_printf(o, " mode %d", in->mode);
    if (in->op == CC_IR_PAGED_GATHER)
        base_strbuf_printf(o, " block_size %lld col_off %lld", (long long)in->u.mem.shape[0], (long long)in->u.mem.shape[1]);
    if (cls == CC_OPC_GENERATE) { /* `TRANDOM v3 INT32 mode 10 seeds [r0, r1, r2, r3] [r4, r5] valid=[4, 16, 0, 0]` */
        base_strbuf_printf(o, " mode %d", in->mode);
        if (in->op == CC_IR_RANDOM)
            base_strbuf_puts(o, " seeds "), lo_put_regs(o, in->u.mem.off, 4), base_strbuf_puts(o, " "), lo_put_regs(o, in->u.mem.ext, 2);
        base_strbuf_puts(o, " valid="), lo_put_shape(o, in->u.mem.shape, CC_MAX_RANK); /* unused axes 0 */
        return;
    }
    if (in->op != CC_IR_ASSEMBLE && in->op != CC_IR_SLICE) return;
    base_strbuf_puts(o, " at"), lo_put_regs(o, in->u.mem.off, in->u.mem.rank); /* `TSLICE v2 = v0 FP32 at [r3, r4] shape=[1, 16]` */
    if (in->op == CC_IR_ASSEMBLE) return;
    base_strbuf_puts(o, " shape="), lo_put_shape(o, in->u.mem.shape, in->u.mem.rank);
    int any = 0;
    for (uint32_t d = 0; d < in->u.mem.rank; d++) any |= in->u.mem.ext[d] >= 0;
    if (any) base_strbuf_puts(o, " valid="), lo_put_regs(o, in->u.mem.ext, in->u.mem.rank);
}

/* ---- the distributed instructions (program.h, "Host procedures only", "Kernels only") ---- */

static const char *const lo_comm_names[] = {
#define LO_NAME_(n) #n,
    CC_LO_COMM_LIST(LO_NAME_)
};
static const char *const lo_coll_names[] = {CC_LO_COLL_LIST(LO_NAME_)
#undef LO_NAME_
};

/* `WINBUF #0 sig bytes=r2 ranks=[0, r3) + [1, 2]` */
static void lo_put_winbuf(base_strbuf *o, const cc_lo_insn *in)
{
    base_strbuf_printf(o, "WINBUF #%u %s bytes=r%d", in->u.win.buf, in->u.win.name ? in->u.win.name : "-", in->a);
    if (in->b >= 0) base_strbuf_printf(o, " ranks=[0, r%d)", in->b);
    for (uint32_t k = 0; k < in->u.win.nranks && k < 8; k++) /* the constant ranks */
        base_strbuf_printf(o, "%s%d%s", k ? ", " : " + [", in->u.win.ranks[k], k + 1 < in->u.win.nranks ? "" : "]");
}

/* `HCOLL ALLREDUCE data=t1 signal=t2 Sum ring` */
static void lo_put_hcoll(base_strbuf *o, const cc_lo_insn *in)
{
    uint8_t op = in->u.coll.op;
    base_strbuf_printf(o, "HCOLL %s", op < sizeof lo_coll_names / sizeof lo_coll_names[0] ? lo_coll_names[op] : "?");
    const int32_t slots[] = {in->u.coll.stage, in->u.coll.data, in->u.coll.signal};
    static const char *const roles[] = {"stage", "data", "signal"};
    for (int k = 0; k < 3; k++)
        if (slots[k] >= 0) base_strbuf_printf(o, " %s=t%d", roles[k], slots[k]);
    if (in->u.coll.root >= 0) base_strbuf_printf(o, " root=r%d", in->u.coll.root);
    if (op == CC_LO_COLL_ALLREDUCE || op == CC_LO_COLL_REDUCE_SCATTER) base_strbuf_printf(o, " %s", cc_reduce_op_name(in->u.coll.reduce));
    if (in->mode) base_strbuf_puts(o, " ring");
}

/* `COMM NOTIFY t2 peer=r3 [r4, r5] AtomicAdd r6`, `COMM REMOTE_LOAD v1 = t0 peer=r2 [r3, r4] [4, 8] FP32` */
static void lo_put_comm(base_strbuf *o, const cc_lo_insn *in)
{
    uint8_t op = in->u.comm.op, rank = in->u.comm.rank < CC_MAX_RANK ? in->u.comm.rank : CC_MAX_RANK;
    base_strbuf_printf(o, "COMM %s ", op < sizeof lo_comm_names / sizeof lo_comm_names[0] ? lo_comm_names[op] : "?");
    if (op == CC_LO_COMM_RANK || op == CC_LO_COMM_NRANKS) return (void)base_strbuf_printf(o, "r%d = t%d", in->dst, in->a);
    if (op == CC_LO_COMM_REMOTE_LOAD) base_strbuf_printf(o, "v%d = ", in->dst);
    base_strbuf_printf(o, "t%d", in->a);
    if (in->c >= 0) base_strbuf_printf(o, " peer=r%d", in->c);
    if (op == CC_LO_COMM_BARRIER) return;
    if (in->u.comm.has_box || (op != CC_LO_COMM_PUT && op != CC_LO_COMM_GET)) base_strbuf_puts(o, " "), lo_put_regs(o, in->u.comm.dst_off, rank);
    switch (op) {
    case CC_LO_COMM_NOTIFY: base_strbuf_printf(o, " %s r%d", cc_notify_op_name(in->mode), in->b); break;
    case CC_LO_COMM_WAIT: base_strbuf_printf(o, " %s r%d", cc_wait_cmp_name(in->mode), in->b); break;
    case CC_LO_COMM_REMOTE_LOAD:
        base_strbuf_puts(o, " "), lo_put_shape(o, in->u.comm.shape, rank);
        if (in->u.comm.valid[0] >= 0) base_strbuf_puts(o, " valid="), lo_put_regs(o, in->u.comm.valid, rank);
        break;
    case CC_LO_COMM_REMOTE_STORE: base_strbuf_printf(o, " %s v%d", in->u.comm.atomic ? "+=" : "=", in->b); break;
    default: /* PUT, GET: the local tensor, its offsets and the box */
        base_strbuf_printf(o, " %s t%d", op == CC_LO_COMM_GET ? "->" : in->u.comm.atomic ? "+=" : "=", in->b);
        if (in->u.comm.has_box) lo_put_regs(o, in->u.comm.src_off, rank), base_strbuf_puts(o, " box="), lo_put_shape(o, in->u.comm.shape, rank);
        break;
    }
    base_strbuf_printf(o, " %s", cc_dtype_name((cc_dtype)in->dtype));
}

static void lo_put_insn(base_strbuf *o, const cc_lowered *l, const cc_lo_insn *in)
{
    const char *name = cc_lo_opcode_name((cc_lo_opcode)in->code);
    switch (in->code) {
    case CC_LO_CONST: lo_put_const(o, in); break;
    case CC_LO_MOV: base_strbuf_printf(o, "MOV r%d = r%d", in->dst, in->a); break;
    case CC_LO_CAST:
        base_strbuf_printf(o, "CAST r%d = r%d %s", in->dst, in->a, cc_dtype_name((cc_dtype)in->dtype));
        if (!cc_dtype_is_float((cc_dtype)in->dtype)) base_strbuf_printf(o, " %s", cc_cast_mode_name((cc_cast_mode)in->mode));
        break;
    case CC_LO_BIN:
        base_strbuf_printf(o, "%s r%d = r%d, r%d %s", lo_cc_op_name((cc_op)in->op), in->dst, in->a, in->b, cc_dtype_name((cc_dtype)in->dtype));
        break;
    case CC_LO_UN: base_strbuf_printf(o, "%s r%d = r%d %s", lo_cc_op_name((cc_op)in->op), in->dst, in->a, cc_dtype_name((cc_dtype)in->dtype)); break;
    case CC_LO_TRIPS: base_strbuf_printf(o, "TRIPS r%d = r%d, r%d, r%d", in->dst, in->a, in->b, in->c); break;
    case CC_LO_JUMP: base_strbuf_printf(o, "JUMP -> %u", in->u.target); break;
    case CC_LO_JUMP_IF_FALSE: base_strbuf_printf(o, "JUMP_IF_FALSE r%d -> %u", in->a, in->u.target); break;
    case CC_LO_RETURN:
        base_strbuf_printf(o, "RETURN close=%u ", in->u.ret.close), lo_put_refs(o, in->u.ret.refs, in->u.ret.nrefs);
        break;
    case CC_LO_SCOPE_BEGIN:
    {
        uint32_t line;
        const char *file = cc_lowered_site(l, in->line, &line);
        base_strbuf_printf(o, "SCOPE_BEGIN %s %s:%u", in->mode == CC_SCOPE_MANUAL ? "MANUAL" : "AUTO", file, line);
        break;
    }
    case CC_LO_ALLOC:
        base_strbuf_printf(o, "ALLOC t%d = ", in->dst), lo_put_extents(o, in);
        base_strbuf_printf(o, " %s", cc_dtype_name((cc_dtype)in->dtype));
        if (in->a >= 0) base_strbuf_printf(o, " fill=r%d", in->a);
        if (in->mode) base_strbuf_puts(o, " manual_dep");
        break;
    case CC_LO_ALIAS: base_strbuf_printf(o, "ALIAS t%d = t%d", in->dst, in->a); break;
    case CC_LO_SUBMIT: lo_put_submit(o, l, in); break;
    case CC_LO_AGET: base_strbuf_printf(o, "AGET r%d = r%d[r%d] n=%lld", in->dst, in->a, in->b, (long long)in->u.imm.i); break;
    case CC_LO_ASET: base_strbuf_printf(o, "ASET r%d[r%d] = r%d n=%lld", in->dst, in->b, in->a, (long long)in->u.imm.i); break;
    case CC_LO_CALL:
    case CC_LO_DISPATCH:
        base_strbuf_printf(o, "%s %s", name, in->u.call.proc < l->nprocs ? l->procs[in->u.call.proc].name : "?");
        if (in->code == CC_LO_DISPATCH) base_strbuf_puts(o, " device="), lo_put_reg(o, in->a), base_strbuf_puts(o, in->mode ? " comm" : "");
        base_strbuf_puts(o, " args=");
        lo_put_refs(o, in->u.call.args, in->u.call.nargs), base_strbuf_puts(o, " -> ");
        lo_put_refs(o, in->u.call.results, in->u.call.nresults);
        break;
    case CC_LO_LOAD:
        base_strbuf_printf(o, "LOAD v%d = ", in->dst), lo_put_window(o, in, in->a, "valid");
        base_strbuf_puts(o, " "), lo_put_shape(o, in->u.mem.shape, in->u.mem.rank);
        base_strbuf_printf(o, " %s%s cache=%s", cc_dtype_name((cc_dtype)in->dtype), in->u.mem.clamp ? " clamp" : "",
                           cc_cache_policy_name((cc_cache_policy)in->mode));
        break;
    case CC_LO_STORE:
        base_strbuf_puts(o, "STORE "), lo_put_window(o, in, in->a, "shapes");
        base_strbuf_printf(o, " %s v%d", in->u.mem.atomic ? "+=" : "=", in->b); /* `STORE t0[r1, r2] += v3`: atomic=Add */
        break;
    case CC_LO_TOP: lo_put_top(o, in); break;
    case CC_LO_TCOPY: base_strbuf_printf(o, "TCOPY v%d = v%d", in->dst, in->a); break;
    case CC_LO_BLOCK: base_strbuf_printf(o, "BLOCK r%d = %s", in->dst, in->mode ? "num" : "idx"); break;
    case CC_LO_DIM: base_strbuf_printf(o, "DIM r%d = t%d.shape[%lld]", in->dst, in->a, (long long)in->u.imm.i); break;
    case CC_LO_READ:
        base_strbuf_printf(o, "READ r%d = %c%d", in->dst, in->mode ? 't' : 'v', in->a), lo_put_regs(o, in->u.mem.off, in->u.mem.rank);
        base_strbuf_printf(o, " %s", cc_dtype_name((cc_dtype)in->dtype));
        break;
    case CC_LO_WRITE:
        base_strbuf_puts(o, "WRITE "), lo_put_window(o, in, in->a, "");
        base_strbuf_printf(o, " = r%d %s", in->b, cc_dtype_name((cc_dtype)in->dtype));
        break;
    case CC_LO_VIEW:
        base_strbuf_printf(o, "VIEW t%d = ", in->dst), lo_put_window(o, in, in->a, NULL);
        base_strbuf_puts(o, " shape="), lo_put_extents(o, in);
        for (uint32_t d = 0; in->u.mem.valid[0] >= 0 && d < in->u.mem.rank; d++) /* valid_shape= gives every entry */
            base_strbuf_printf(o, "%sr%d%s", d ? ", " : " valid=[", in->u.mem.valid[d], d + 1 < in->u.mem.rank ? "" : "]");
        if (in->mode) base_strbuf_printf(o, " drop=%u", in->mode);
        if (in->u.mem.slice == 2) base_strbuf_puts(o, " host");
        break;
    case CC_LO_COPY: base_strbuf_puts(o, "COPY "), lo_put_window(o, in, in->a, ""), base_strbuf_printf(o, " = t%d", in->b); break;
    case CC_LO_WORLD: base_strbuf_printf(o, "WORLD r%d", in->dst); break;
    case CC_LO_WINBUF: lo_put_winbuf(o, in); break;
    case CC_LO_WINVIEW:
        base_strbuf_printf(o, "WINVIEW t%d = #%u %s ", in->dst, in->u.win.buf, in->u.win.name ? in->u.win.name : "-");
        lo_put_shape(o, in->u.win.shape, in->u.win.rank < CC_MAX_RANK ? in->u.win.rank : CC_MAX_RANK);
        base_strbuf_printf(o, " %s", cc_dtype_name((cc_dtype)in->dtype));
        break;
    case CC_LO_HCOLL: lo_put_hcoll(o, in); break;
    case CC_LO_COMM: lo_put_comm(o, in); break;
    default: base_strbuf_puts(o, name); break;
    }
}

static void lo_put_slots(base_strbuf *o, char prefix, const cc_lo_slot *s, uint32_t n)
{
    for (uint32_t k = 0; k < n; k++) {
        char ty[96];
        cc_type_format(&s[k].type, ty, sizeof ty);
        base_strbuf_printf(o, "  %c%u %s %s\n", prefix, k, s[k].name ? s[k].name : "-", ty);
    }
}

static void lo_put_proc(base_strbuf *o, const cc_lowered *l, const cc_lo_proc *p, const char *what, uint32_t index)
{
    base_strbuf_printf(o, "%s %u %s(", what, index, p->name);
    for (uint32_t k = 0; k < p->nparams; k++) {
        const cc_lo_slot *s = p->params[k].kind == CC_LO_REG ? p->regs : p->params[k].kind == CC_LO_TENSOR ? p->tensors : p->tiles;
        base_strbuf_printf(o, "%s%s=", k ? ", " : "", s[p->params[k].index].name);
        lo_put_ref(o, p->params[k]);
        if (p->dirs[k] != CC_DIR_NONE && p->kind == CC_FUNC_INCORE) base_strbuf_printf(o, " %s", cc_dir_name((cc_dir)p->dirs[k]));
    }
    base_strbuf_printf(o, ") %s @%u\n", p->kind == CC_LO_HOST ? "Host" : cc_func_kind_name((cc_func_kind)p->kind), p->line);
    lo_put_slots(o, 'r', p->regs, p->nregs);
    lo_put_slots(o, 't', p->tensors, p->ntensors);
    lo_put_slots(o, 'v', p->tiles, p->ntiles);
    for (uint32_t i = 0; i < p->ncode; i++) {
        base_strbuf_printf(o, "%6u  ", i);
        lo_put_insn(o, l, &p->code[i]);
        base_strbuf_printf(o, " @%u:%u\n", p->code[i].line, p->code[i].col);
    }
}

void cc_lowered_print(const cc_lowered *l, base_strbuf *out)
{
    for (uint32_t k = 0; k < l->nprocs; k++) lo_put_proc(out, l, &l->procs[k], "proc", k);
    for (uint32_t k = 0; k < l->nkernels; k++) lo_put_proc(out, l, &l->kernels[k], "kernel", k);
}
