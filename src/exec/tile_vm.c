/*
 * tile_vm.c - the tile VM (tile_vm.h): a flat switch over the kernel's
 * instructions; scalar ops on 64-bit registers, tile ops handed to
 * pto_tile once per instruction.
 *
 * Invariants: registers hold int64 for integer dtypes (BOOL 0/1, values
 * wrapped to their dtype's width) and double for float dtypes; every tile
 * has its static shape and dtype from kernel->tiles and points into the
 * thread's workspace; nothing is allocated per task once the workspace is
 * big enough for the kernel.  A COMM reaches its window's peers through the
 * distributed call attached to the task's runtime (runtime/comm.h).
 */
#include "exec/tile_vm.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/text.h"
#include "exec/scalar.h"
#include "runtime/comm.h"
#include "runtime/comm_stats.h"
#include "tile/dist_ops.h"
#include "tile/tile.h"

_Static_assert((int)TILE_ODD == (int)CC_CAST_ODD && (int)TILE_TRUNC == (int)CC_CAST_TRUNC, "pl.cast modes are tile_round values");
_Static_assert((int)TILE_FP32 == (int)CC_DT_FP32 && (int)TILE_INT8 == (int)CC_DT_INT8 && (int)TILE_BOOL == (int)CC_DT_BOOL &&
                   (int)TILE_INT64 == (int)CC_DT_INT64 && (int)TILE_INT16 == (int)CC_DT_INT16 && (int)TILE_UINT8 == (int)CC_DT_UINT8 &&
                   (int)TILE_UINT16 == (int)CC_DT_UINT16 && (int)TILE_UINT32 == (int)CC_DT_UINT32,
               "tile dtypes mirror cc_dtype");

/* Each op's tile kernel entry (a tile_binop, tile_unop, tile_rowop, tile_colop, tile_bcastop, tile_ternop or tile_indexop by class), from its row. */
static const int8_t vm_tile_entry[CC_IR_OP_COUNT] = {
#define VM_TILE_ENTRY_(n, s, cls, dt, where, entry, ...) [CC_IR_##n] = (entry),
    CC_IR_OP_LIST(VM_TILE_ENTRY_)
#undef VM_TILE_ENTRY_
};

typedef struct vm_ws {
    char *mem;
    size_t cap;
    tile_scratch scratch;
} vm_ws;

static pthread_key_t vm_key;
static pthread_once_t vm_key_once = PTHREAD_ONCE_INIT;
static _Thread_local vm_ws *vm_tls;

static void vm_ws_free(void *p)
{
    vm_ws *w = p;
    free(w->mem);
    tile_scratch_free(&w->scratch);
    free(w);
}

static void vm_key_make(void) { (void)pthread_key_create(&vm_key, vm_ws_free); }

static vm_ws *vm_ws_get(size_t need)
{
    if (!vm_tls) {
        pthread_once(&vm_key_once, vm_key_make);
        vm_tls = calloc(1, sizeof *vm_tls);
        if (!vm_tls) return NULL;
        pthread_setspecific(vm_key, vm_tls);
    }
    if (vm_tls->cap < need) {
        char *m = realloc(vm_tls->mem, need);
        if (!m) return NULL;
        vm_tls->mem = m, vm_tls->cap = need;
    }
    return vm_tls;
}

typedef struct vm {
    const cc_lowered *l;
    const cc_lo_proc *k;
    const pto_kernel_args *args;
    ex_reg *r;
    tile *v;
    void **own;           /* per tile: its buffer in the workspace */
    int32_t *alias;       /* per tile: the view its data points into (a zero-copy load), -1: its own buffer */
    int32_t *tmap;        /* tensor slot -> view index, -1: none */
    tile_tensor *tensors; /* per view */
    tile_scratch *scratch;
    int remote_writes;    /* a COMM wrote through the transport: quiet before the kernel ends */
    char msg[512];
} vm;

static int vm_fail(vm *m, const cc_lo_insn *in, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int vm_fail(vm *m, const cc_lo_insn *in, const char *fmt, ...)
{
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(m->msg, sizeof m->msg, fmt, ap);
        va_end(ap);
    }
    uint32_t line;
    const char *file = cc_lowered_site(m->l, in ? in->line : m->k->line, &line);
    if (m->args->message && m->args->message_len)
        snprintf(m->args->message, m->args->message_len, "%s (at %s:%u:%u)", m->msg, file, line, in ? in->col : m->k->col);
    return -1;
}

/* Offsets (and extents: -1 stays -1) of a LOAD/STORE (or a window TOP) from its registers. */
static void vm_mem_regs(const vm *m, const cc_lo_insn *in, int64_t *off, int64_t *ext)
{
    for (int d = 0; d < in->u.mem.rank; d++) {
        off[d] = m->r[in->u.mem.off[d]].i;
        ext[d] = in->u.mem.ext[d] < 0 ? -1 : m->r[in->u.mem.ext[d]].i;
    }
}

static const tile_tensor *vm_tensor(vm *m, int32_t slot)
{
    int32_t k = slot >= 0 && (uint32_t)slot < m->k->ntensors ? m->tmap[slot] : -1;
    return k < 0 ? NULL : &m->tensors[k];
}

/* ---- zero-copy loads ----
 * A LOAD whose window is in bounds, has the tile's whole shape as its valid
 * region, and lies in memory in the tile's own dense row-major order (a
 * contiguous tensor, full inner extents: the row bands the seed's kernels
 * load) is not copied: the tile points into the tensor.  Such a tile is read
 * only; before an instruction writes it, it gets its own buffer back (a copy
 * when the instruction also reads it), and before a STORE into the same
 * allocation every tile pointing there is copied out, so a tile keeps the
 * value it was loaded with. */

/* The address of window off of t read in place as tile d, or NULL. */
static char *vm_window(const tile_tensor *t, const tile *d, const int64_t *off, const int64_t *ext)
{
    if (t->dtype != d->dtype || t->rank != d->rank) return NULL;
    int64_t dense = 1, e = t->base;
    for (int k = d->rank - 1; k >= 0; k--) {
        if ((ext[k] >= 0 && ext[k] < d->shape[k]) || off[k] < 0 || off[k] + d->shape[k] > t->shape[k] - t->hidden[k] || t->strides[k] != dense)
            return NULL;
        e += off[k] * t->strides[k];
        dense *= d->shape[k];
    }
    return t->addr + e * (int64_t)tile_dtype_size((tile_dtype)d->dtype);
}

/* Gives tile i its own buffer back; copy: keep its value. */
static void vm_own(vm *m, int32_t i, int copy)
{
    if (m->alias[i] < 0) return;
    tile *t = &m->v[i];
    if (copy) memcpy(m->own[i], t->data, (size_t)tile_bytes(t));
    t->data = m->own[i];
    m->alias[i] = -1;
}

/* Before a STORE into allocation addr: copies out every tile pointing there. */
static void vm_own_all(vm *m, const char *addr)
{
    for (uint32_t i = 0; i < m->k->ntiles; i++)
        if (m->alias[i] >= 0 && m->tensors[m->alias[i]].addr == addr) vm_own(m, (int32_t)i, 1);
}

/* Register reg as the scalar operand of a dtype-dt tile op. */
static tile_scalar vm_scalar_operand(const vm *m, int32_t reg, uint8_t dt)
{
    ex_reg r = m->r[reg];
    return tile_scalar_for((tile_dtype)dt, cc_dtype_is_float((cc_dtype)m->k->regs[reg].type.dtype), r.i, r.f);
}

/* Runs a TOP on the tiles as they are (their buffers chosen by the caller). */
static int vm_top_run(vm *m, const cc_lo_insn *in)
{
    tile *d = &m->v[in->dst];
    cc_ir_op op = (cc_ir_op)in->op;
    if (op == CC_IR_CREATE_TILE) { /* a fully valid tile of zeros */
        memset(d->data, 0, (size_t)tile_bytes(d));
        memcpy(d->valid, d->shape, sizeof d->valid);
        return 0;
    }
    tile *a = in->a >= 0 ? &m->v[in->a] : d; /* FULL has no tile operand */
    int entry = vm_tile_entry[op] + (op == CC_IR_CMP ? in->mode : 0), rc; /* pl.cmp: its cmp_type's comparison */
    cc_op_class cls = (cc_op_class)cc_ir_op_info(op)->cls;
    switch (cls) {
    case CC_OPC_BINARY:
        if (in->b_scalar) {
            rc = tile_binary_scalar(d, a, vm_scalar_operand(m, in->b, a->dtype), (tile_binop)entry, m->msg, sizeof m->msg);
        } else {
            rc = tile_binary(d, a, &m->v[in->b], (tile_binop)entry, m->msg, sizeof m->msg);
        }
        break;
    case CC_OPC_UNARY: rc = tile_unary(d, a, (tile_unop)entry, m->msg, sizeof m->msg); break;
    case CC_OPC_ROW_REDUCE: rc = tile_row_reduce(d, a, (tile_rowop)entry, m->msg, sizeof m->msg); break;
    case CC_OPC_COL_REDUCE: rc = tile_col_reduce(d, a, (tile_colop)entry, m->msg, sizeof m->msg); break;
    case CC_OPC_EXPANDS: rc = tile_expands(d, a, vm_scalar_operand(m, in->b, a->dtype), m->msg, sizeof m->msg); break;
    case CC_OPC_BROADCAST: rc = tile_broadcast(d, a, &m->v[in->b], m->msg, sizeof m->msg); break;
    case CC_OPC_ROW_EXPAND:
    case CC_OPC_COL_EXPAND:
        rc = tile_expand_binary(d, a, &m->v[in->b], (tile_bcastop)entry, cls == CC_OPC_COL_EXPAND, m->msg, sizeof m->msg);
        break;
    case CC_OPC_CAST: rc = tile_cast(d, a, (tile_round)in->mode, m->msg, sizeof m->msg); break;
    case CC_OPC_MATMUL: rc = tile_matmul(d, a, &m->v[in->b], m->scratch, m->msg, sizeof m->msg); break;
    case CC_OPC_FULL: {
        tile_full(d, vm_scalar_operand(m, in->b, d->dtype));
        rc = 0;
        break;
    }
    case CC_OPC_CONCAT: rc = tile_concat(d, a, &m->v[in->b], m->msg, sizeof m->msg); break;
    case CC_OPC_FILLPAD: rc = tile_fillpad(d, a, (tile_pad)in->mode, m->msg, sizeof m->msg); break;
    case CC_OPC_RESHAPE: rc = tile_reshape(d, a, m->msg, sizeof m->msg); break;
    case CC_OPC_ASSEMBLE:
    case CC_OPC_SLICE: {
        int64_t off[CC_MAX_RANK], ext[CC_MAX_RANK];
        vm_mem_regs(m, in, off, ext);
        rc = cls == CC_OPC_SLICE ? tile_slice(d, a, off, in->u.mem.shape, ext, m->msg, sizeof m->msg)
                                 : tile_assemble(d, a, &m->v[in->b], off, m->msg, sizeof m->msg);
        break;
    }
    case CC_OPC_TRANSPOSE: rc = tile_transpose(d, a, in->mode & 15, in->mode >> 4, m->msg, sizeof m->msg); break;
    case CC_OPC_FILLPAD_EXPAND: rc = tile_fillpad_expand(d, a, (tile_pad)in->mode, m->msg, sizeof m->msg); break;
    case CC_OPC_SET_VALIDSHAPE: rc = tile_set_validshape(d, a, m->r[in->b].i, m->r[in->c].i, m->msg, sizeof m->msg); break;
    case CC_OPC_TERNARY: {
        const tile *c = &m->v[in->c];
        rc = in->b_scalar ? tile_ternary(d, a, NULL, vm_scalar_operand(m, in->b, c->dtype), c, (tile_ternop)entry, m->msg, sizeof m->msg)
                          : tile_ternary(d, a, &m->v[in->b], (tile_scalar){0}, c, (tile_ternop)entry, m->msg, sizeof m->msg);
        break;
    }
    case CC_OPC_INDEXED:
        switch ((tile_indexop)entry) {
        case TILE_GATHER: rc = tile_gather(d, a, &m->v[in->b], m->msg, sizeof m->msg); break;
        case TILE_SCATTER: rc = tile_scatter(d, a, &m->v[in->b], &m->v[in->c], m->msg, sizeof m->msg); break;
        case TILE_SORT32: rc = tile_sort32(d, a, &m->v[in->b], m->msg, sizeof m->msg); break;
        case TILE_MRGSORT: /* block_len's register, or the next sorted tile to merge with */
            rc = in->b_scalar ? tile_mrgsort(d, a, m->r[in->b].i, m->msg, sizeof m->msg) : tile_merge(d, a, &m->v[in->b], m->msg, sizeof m->msg);
            break;
        case TILE_GATHER_DIM: rc = tile_gather_dim(d, a, &m->v[in->b], m->msg, sizeof m->msg); break;
        case TILE_SCATTER_DIM: rc = tile_scatter_dim(d, a, &m->v[in->b], &m->v[in->c], m->msg, sizeof m->msg); break;
        case TILE_SCATTER_UPDATE: rc = tile_scatter_update(d, a, &m->v[in->b], &m->v[in->c], m->msg, sizeof m->msg); break;
        case TILE_GATHERB: rc = tile_gatherb(d, a, &m->v[in->b], m->msg, sizeof m->msg); break;
        case TILE_MGATHER: rc = tile_mgather(d, a, &m->v[in->b], in->mode, m->msg, sizeof m->msg); break;
        case TILE_GATHER_MASK: rc = tile_gather_mask(d, a, in->mode, m->msg, sizeof m->msg); break;
        case TILE_SCATTER_MASK: rc = tile_scatter_mask(d, a, &m->v[in->b], in->mode, m->msg, sizeof m->msg); break;
        case TILE_GATHER_COMPARE: /* mode: the comparison | the part << 3; u.mem.shape[0] the offset */
            rc = tile_gather_compare(d, a, vm_scalar_operand(m, in->b, a->dtype), in->mode & 7, in->u.mem.shape[0], in->mode >> 3, m->msg, sizeof m->msg);
            break;
        case TILE_PAGED_GATHER:
            rc = tile_paged_gather(d, a, &m->v[in->b], &m->v[in->c], in->u.mem.shape[0], in->u.mem.shape[1], in->mode & 1, m->msg, sizeof m->msg);
            break;
        default: return vm_fail(m, in, "internal error: tile op %d", op);
        }
        break;
    case CC_OPC_MATMUL_ACC: {
        int init = in->c >= 0 && !cc_scalar_is_zero(m->r[in->c], (cc_dtype)m->k->regs[in->c].type.dtype);
        rc = tile_matmul_acc(d, a, &m->v[in->b], init, m->scratch, m->msg, sizeof m->msg);
        break;
    }
    case CC_OPC_MATMUL_BIAS: /* the product, then the bias row added down its columns */
        rc = tile_matmul(d, a, &m->v[in->b], m->scratch, m->msg, sizeof m->msg);
        if (!rc) rc = tile_expand_binary(d, d, &m->v[in->c], TILE_BC_ADD, 1, m->msg, sizeof m->msg);
        break;
    case CC_OPC_GENERATE:
        if (op == CC_IR_ARANGE) {
            rc = tile_arange(d, m->r[in->b].i, in->mode, m->msg, sizeof m->msg);
        } else if (op == CC_IR_TRI) {
            rc = tile_tri(d, m->r[in->b].i, in->mode, in->u.mem.shape, m->msg, sizeof m->msg);
        } else {
            uint32_t key[2] = {(uint32_t)m->r[in->u.mem.off[0]].i, (uint32_t)m->r[in->u.mem.off[1]].i};
            uint32_t ctr[4] = {(uint32_t)m->r[in->u.mem.off[2]].i, (uint32_t)m->r[in->u.mem.off[3]].i, (uint32_t)m->r[in->u.mem.ext[0]].i,
                               (uint32_t)m->r[in->u.mem.ext[1]].i};
            rc = tile_random(d, key, ctr, in->mode, in->u.mem.shape, m->msg, sizeof m->msg);
        }
        break;
    case CC_OPC_REINTERPRET: rc = tile_reinterpret(d, a, m->msg, sizeof m->msg); break;
    default: return vm_fail(m, in, "internal error: tile op %d", op);
    }
    return rc ? vm_fail(m, in, NULL) : 0;
}

static int vm_top(vm *m, const cc_lo_insn *in)
{
    int reads_dst = cc_ir_op_info((cc_ir_op)in->op)->cls == CC_OPC_MATMUL_ACC; /* the accumulator */
    vm_own(m, in->dst, reads_dst || in->dst == in->a || (!in->b_scalar && in->dst == in->b));
    return vm_top_run(m, in);
}

/* A TOP whose result the next instruction, a "direct" STORE (program.h), only
 * stores: computed straight into the window when the window can be written
 * as the tile (vm_window), the sources are fully valid and none points
 * elsewhere into that allocation (a row or column expand's vector not even
 * into the window: each of its elements is read for a whole row or column), and the op cannot fail half way (an
 * integer division).  A source pointing into the window itself is
 * overwritten when the STORE says no source is read again (mode 1), else
 * copied out first (mode 2).  Returns 1 when done (skip the STORE), 0 to
 * run both as usual, -1 on error. */
static int vm_top_direct(vm *m, const cc_lo_insn *op, const cc_lo_insn *st)
{
    const tile_tensor *t = vm_tensor(m, st->a);
    tile *d = &m->v[op->dst];
    int32_t src[2] = {op->a, op->b_scalar ? -1 : op->b};
    if (!t || op->dst == src[0] || op->dst == src[1]) return 0;
    if ((op->op == CC_IR_DIV || op->op == CC_IR_REM || op->op == CC_IR_FMOD) && !tile_dtype_is_float((tile_dtype)d->dtype)) return 0;
    int64_t off[CC_MAX_RANK], ext[CC_MAX_RANK];
    vm_mem_regs(m, st, off, ext);
    char *w = vm_window(t, d, off, ext);
    if (!w) return 0;
    cc_op_class cls = (cc_op_class)cc_ir_op_info((cc_ir_op)op->op)->cls;
    int vec = cls == CC_OPC_ROW_EXPAND || cls == CC_OPC_COL_EXPAND; /* b: a vector read by many elements */
    for (int k = 0; k < 2; k++) {
        if (src[k] < 0) continue;
        const tile *x = &m->v[src[k]];
        if (memcmp(x->valid, x->shape, x->rank * sizeof x->valid[0])) return 0;
        if (m->alias[src[k]] >= 0 && m->tensors[m->alias[src[k]]].addr == t->addr && (x->data != w || (k && vec))) return 0;
    }
    for (uint32_t i = 0; i < m->k->ntiles; i++) /* other tiles reading this allocation keep their values */
        if (((int32_t)i != src[0] && (int32_t)i != src[1]) || st->mode == 2)
            if (m->alias[i] >= 0 && m->tensors[m->alias[i]].addr == t->addr) vm_own(m, (int32_t)i, 1);
    vm_own(m, op->dst, 0);
    d->data = w, m->alias[op->dst] = (int32_t)(t - m->tensors);
    return vm_top_run(m, op) ? -1 : 1;
}

/* READ (of a tile, or of a tensor in place) into its register, or WRITE
 * of one tensor element (tiles pointing into that allocation are copied
 * out first, as before a STORE). */
static int vm_element(vm *m, const cc_lo_insn *in)
{
    int64_t idx[CC_MAX_RANK], ext[CC_MAX_RANK];
    vm_mem_regs(m, in, idx, ext);
    const tile_tensor *t = in->code == CC_LO_WRITE || in->mode ? vm_tensor(m, in->a) : NULL;
    if ((in->code == CC_LO_WRITE || in->mode) && !t)
        return vm_fail(m, in, "internal error: %s of tensor slot %d without an argument", cc_lo_opcode_name((cc_lo_opcode)in->code), in->a);
    tile_scalar v;
    int rc;
    if (in->code == CC_LO_WRITE) {
        vm_own_all(m, t->addr);
        rc = tile_tensor_write(t, idx, in->u.mem.rank, vm_scalar_operand(m, in->b, t->dtype), m->msg, sizeof m->msg);
    } else {
        rc = t ? tile_tensor_read(t, idx, in->u.mem.rank, &v, m->msg, sizeof m->msg)
               : tile_read(&m->v[in->a], idx, in->u.mem.rank, &v, m->msg, sizeof m->msg);
        if (!rc && cc_dtype_is_float((cc_dtype)in->dtype)) m->r[in->dst].f = v.f;
        else if (!rc) m->r[in->dst].i = v.i;
    }
    return rc ? vm_fail(m, in, NULL) : 0;
}

/* ---- COMM: the kernel side of distributed mode (program.h, "Kernels only") ----
 * The window of a DistributedTensor is found by its allocation in the call the runtime has
 * attached (runtime/comm.h); outside a distributed call a tensor is a window of one rank.  Peers
 * not mapped here (am) go through the transport's remote table; a kernel that wrote through it
 * waits for its writes to be applied before it ends (O4, vm_comm_quiet). */

typedef struct vm_comm {
    vm *m;
    const cc_lo_insn *in;
    const tile_tensor *t; /* the window operand, this rank's copy */
    const char *name;     /* its buffer's name */
    const rt_comm_domain *dom;
    rt_comm_stats *st;    /* the call's counters, NULL: not counted */
    char *one[1];         /* the one-rank window outside a call */
    tile_dist_win w;
    tile_dist_wait wt;    /* every blocking step's bound */
} vm_comm;

static int vm_comm_stop(void *arg)
{
    const pto_runtime *rt = arg;
    void *s;
    pto_error e;
    return rt && (pto_runtime_failed(rt) || rt_comm_transport(&s)->poll(s, &e) != 0);
}

/* The runtime's progress and the messages the transport handled here (am): a waiter also runs
 * comm progress, and a rank its peers' messages still reach is not stalled. */
static uint64_t vm_comm_progress(void *arg)
{
    void *s;
    const rt_comm_ops *o = rt_comm_transport(&s);
    uint64_t handled = o->remote ? o->remote->progress(s) : 0;
    return handled + (arg ? rt_comm_progress(arg) : 0);
}

static void vm_comm_block(void *arg, int on) { rt_comm_block(arg, on); }

static tile_dist_wait vm_comm_bound(const vm *m)
{
    const pto_runtime *rt = m->args->runtime;
    return (tile_dist_wait){.timeout_ms = rt ? pto_runtime_config(rt)->stall_timeout_ms : -1, .stop = vm_comm_stop,
                            .progress = vm_comm_progress, .block = rt ? vm_comm_block : NULL, .arg = (void *)rt};
}

static void vm_comm_find(vm *m, const cc_lo_insn *in, const tile_tensor *t, vm_comm *c)
{
    const rt_comm_call *call = rt_comm_attached(m->args->runtime);
    const rt_comm_buf *b = rt_comm_find(call, t->addr);
    *c = (vm_comm){.m = m, .in = in, .t = t, .name = m->k->tensors[in->a].name ? m->k->tensors[in->a].name : "?", .wt = vm_comm_bound(m)};
    if (b) {
        c->dom = &call->domains[b->domain], c->name = b->name, c->st = call->stats;
        c->w = (tile_dist_win){(char *const *)c->dom->bases, c->dom->rank, c->dom->n, call->ops->remote, call->session, c->dom->dom};
    } else {
        c->one[0] = t->addr;
        c->w = (tile_dist_win){c->one, 0, 1, NULL, NULL, NULL};
    }
}

/* Offsets u.comm.dst_off (src: src_off) of a COMM into off; a -1 register is 0 (no box). */
static void vm_comm_offsets(const vm *m, const cc_lo_insn *in, int src, int rank, int64_t *off)
{
    const int32_t *r = src ? in->u.comm.src_off : in->u.comm.dst_off;
    for (int d = 0; d < rank; d++) off[d] = r[d] >= 0 ? m->r[r[d]].i : 0;
}

/* Counts an access of the box shape (of t's dtype) to domain rank peer. */
static void vm_comm_count(const vm_comm *c, int64_t peer, rt_cs_kind kind, const tile_tensor *t, const int64_t *shape)
{
    if (!c->st) return;
    uint64_t bytes = tile_dtype_size((tile_dtype)t->dtype);
    for (int d = 0; d < t->rank; d++) bytes *= (uint64_t)shape[d];
    rt_cs_access(c->st, c->dom->ranks[peer], kind, bytes);
}

/* A blocking step that gave up (rc 1: timed out, COMM_WAIT_TIMEOUT latched; 2: stopped; -1: m->msg).  A
 * cell wait names its cell (off, cmp, expected); a transport step (cmp NULL) what it waited for. */
static int vm_comm_gave_up(vm_comm *c, int rc, const char *what, const int64_t *off, int nidx, const char *cmp, int64_t expected)
{
    vm *m = c->m;
    if (rc < 0) return vm_fail(m, c->in, NULL);
    if (rc != 1) return vm_fail(m, c->in, "stopped: the run failed while this kernel was in %s", what);
    uint32_t line;
    const char *file = cc_lowered_site(m->l, c->in ? c->in->line : m->k->line, &line);
    char detail[768];
    size_t n = 0;
    base_appendf(detail, sizeof detail, &n, "kernel=%s at %s:%u: %s on '%s'", m->k->name, file, line, what, c->name);
    if (cmp) {
        base_appendf(detail, sizeof detail, &n, "[");
        for (int d = 0; d < nidx; d++) base_appendf(detail, sizeof detail, &n, "%s%lld", d ? ", " : "", (long long)off[d]);
        base_appendf(detail, sizeof detail, &n, "] %s %lld; observed %d, last changed %llu ms ago", cmp, (long long)expected,
                     c->wt.observed, (unsigned long long)c->wt.unchanged_ms);
    } else {
        base_appendf(detail, sizeof detail, &n, ": the am transport's peers did not answer for %llu ms (%d messages outstanding)",
                     (unsigned long long)c->wt.unchanged_ms, c->wt.observed);
    }
    base_appendf(detail, sizeof detail, &n, "; domain ranks [");
    for (int i = 0; i < c->w.size; i++) base_appendf(detail, sizeof detail, &n, "%s%d", i ? ", " : "", c->dom ? c->dom->ranks[i] : 0);
    base_appendf(detail, sizeof detail, &n, "]");
    if (m->args->runtime) rt_comm_fail_wait(m->args->runtime, m->args->task_id, detail);
    return vm_fail(m, c->in, "%s timed out", what);
}

/* A write through the transport: the kernel must see it applied before it ends. */
static void vm_comm_wrote(vm_comm *c, int64_t peer)
{
    if (peer >= 0 && peer < c->w.size && !c->w.bases[peer]) c->m->remote_writes = 1;
}

/* NOTIFY and WAIT: one INT32 cell of the window (the peer's, the own). */
static int vm_comm_signal(vm_comm *c)
{
    vm *m = c->m;
    const cc_lo_insn *in = c->in;
    int notify = in->u.comm.op == CC_LO_COMM_NOTIFY;
    const char *op = notify ? "pld.system.notify" : "pld.system.wait";
    int64_t off[CC_MAX_RANK];
    vm_comm_offsets(m, in, 0, c->t->rank, off);
    char *at = tile_tensor_at(c->t, off, c->t->rank, op, m->msg, sizeof m->msg);
    if (!at) return vm_fail(m, in, NULL);
    int32_t v = (int32_t)m->r[in->b].i;
    if (notify) {
        int64_t peer = m->r[in->c].i;
        vm_own_all(m, c->t->addr);
        vm_comm_wrote(c, peer);
        int rc = tile_dist_signal(&c->w, c->t, peer, (int32_t *)at, v, in->mode == 1, &c->wt, op, m->msg, sizeof m->msg);
        if (rc) return vm_comm_gave_up(c, rc, op, NULL, 0, NULL, 0);
        if (c->st) rt_cs_notify(c->st, c->dom->ranks[peer]);
        return 0;
    }
    const pto_runtime *rt = m->args->runtime;
    uint64_t t0 = c->st ? base_now_ns() : 0;
    if (rt) rt_comm_wait_enter(rt);
    int rc = tile_dist_wait_cell((const int32_t *)at, in->mode == 1, v, &c->wt);
    if (rt) rt_comm_wait_leave(rt);
    if (c->st) rt_cs_wait(c->st, base_now_ns() - t0);
    return rc ? vm_comm_gave_up(c, rc, op, off, c->t->rank, in->mode == 1 ? ">=" : "==", v) : 0;
}

/* REMOTE_LOAD, REMOTE_STORE, PUT, GET: box checks on both sides, then the copy. */
static int vm_comm_access(vm_comm *c)
{
    vm *m = c->m;
    const cc_lo_insn *in = c->in;
    static const char *const names[] = {[CC_LO_COMM_REMOTE_LOAD] = "pld.tile.remote_load", [CC_LO_COMM_REMOTE_STORE] = "pld.tile.remote_store",
                                        [CC_LO_COMM_PUT] = "pld.tensor.put", [CC_LO_COMM_GET] = "pld.tensor.get"};
    const char *op = names[in->u.comm.op];
    int rank = c->t->rank, rc;
    int64_t off[CC_MAX_RANK], loff[CC_MAX_RANK], box[CC_MAX_RANK], peer = m->r[in->c].i;
    vm_comm_offsets(m, in, 0, rank, off);
    if (in->u.comm.op == CC_LO_COMM_REMOTE_LOAD) {
        tile *d = &m->v[in->dst];
        int64_t ext[CC_MAX_RANK];
        for (int k = 0; k < rank; k++) ext[k] = in->u.comm.valid[k] >= 0 ? m->r[in->u.comm.valid[k]].i : -1, box[k] = ext[k] >= 0 ? ext[k] : d->shape[k];
        if (tile_dist_box(c->t, off, box, op, c->name, m->msg, sizeof m->msg)) return vm_fail(m, in, NULL);
        vm_own(m, in->dst, 0);
        vm_comm_count(c, peer, RT_CS_REMOTE_LOAD, c->t, box);
        rc = tile_dist_load(&c->w, c->t, peer, off, box, ext, d, &c->wt, op, m->msg, sizeof m->msg);
    } else if (in->u.comm.op == CC_LO_COMM_REMOTE_STORE) {
        const tile *src = &m->v[in->b];
        if (tile_dist_box(c->t, off, src->valid, op, c->name, m->msg, sizeof m->msg)) return vm_fail(m, in, NULL);
        vm_own_all(m, c->t->addr);
        vm_comm_wrote(c, peer);
        vm_comm_count(c, peer, RT_CS_REMOTE_STORE, c->t, src->valid);
        rc = tile_dist_store_to(&c->w, c->t, peer, off, src, in->u.comm.atomic, &c->wt, op, m->msg, sizeof m->msg);
    } else {
        const tile_tensor *loc = vm_tensor(m, in->b);
        if (!loc) return vm_fail(m, in, "internal error: %s of tensor slot %d without an argument", op, in->b);
        int put = in->u.comm.op == CC_LO_COMM_PUT;
        vm_comm_offsets(m, in, 1, loc->rank, loff);
        const tile_tensor *whole = put ? loc : c->t; /* no box: all of the source */
        for (int k = 0; k < rank; k++) box[k] = in->u.comm.has_box ? in->u.comm.shape[k] : whole->shape[k] - whole->hidden[k];
        const char *lname = m->k->tensors[in->b].name ? m->k->tensors[in->b].name : "?";
        if (tile_dist_box(c->t, off, box, op, c->name, m->msg, sizeof m->msg) || tile_dist_box(loc, loff, box, op, lname, m->msg, sizeof m->msg))
            return vm_fail(m, in, NULL);
        vm_own_all(m, put ? c->t->addr : loc->addr);
        if (put) vm_comm_wrote(c, peer);
        vm_comm_count(c, peer, !put ? RT_CS_GET : in->u.comm.atomic ? RT_CS_ACC : RT_CS_PUT, c->t, box);
        rc = tile_dist_xfer(&c->w, c->t, peer, off, loc, loff, box, put, in->u.comm.atomic, &c->wt, op, m->msg, sizeof m->msg);
    }
    return rc ? vm_comm_gave_up(c, rc, op, NULL, 0, NULL, 0) : 0;
}

static int vm_comm_run(vm *m, const cc_lo_insn *in)
{
    const tile_tensor *t = vm_tensor(m, in->a);
    if (!t) return vm_fail(m, in, "internal error: COMM on tensor slot %d without an argument", in->a);
    vm_comm c;
    vm_comm_find(m, in, t, &c);
    switch (in->u.comm.op) {
    case CC_LO_COMM_RANK: m->r[in->dst].i = c.w.rank; return 0;
    case CC_LO_COMM_NRANKS: m->r[in->dst].i = c.w.size; return 0;
    case CC_LO_COMM_NOTIFY: case CC_LO_COMM_WAIT: return vm_comm_signal(&c);
    case CC_LO_COMM_BARRIER: {
        const pto_runtime *rt = m->args->runtime;
        int64_t src = 0;
        vm_own_all(m, t->addr);
        for (int p = 0; p < c.w.size; p++) vm_comm_wrote(&c, p);
        uint64_t t0 = c.st ? base_now_ns() : 0;
        if (rt) rt_comm_wait_enter(rt);
        int rc = tile_dist_barrier(&c.w, t, &c.wt, &src, m->msg, sizeof m->msg);
        if (rt) rt_comm_wait_leave(rt);
        if (c.st) rt_cs_wait(c.st, base_now_ns() - t0);
        if (rc && src < 0) return vm_comm_gave_up(&c, rc, "pld.tensor.barrier", NULL, 0, NULL, 0);
        return rc < 0 ? vm_fail(m, in, NULL) : rc ? vm_comm_gave_up(&c, rc, "pld.tensor.barrier", &src, 1, ">=", 1) : 0;
    }
    default: return vm_comm_access(&c);
    }
}

/* O4: the kernel's writes through the transport all applied before it ends. */
static int vm_comm_quiet(vm *m)
{
    void *s;
    const rt_comm_ops *o = rt_comm_transport(&s);
    vm_comm c = {.m = m, .name = "(the kernel's writes)", .wt = vm_comm_bound(m), .one = {NULL}};
    c.w = (tile_dist_win){c.one, 0, 1, NULL, NULL, NULL};
    int rc = o->remote ? o->remote->quiet(s, &c.wt, m->msg, sizeof m->msg) : 0;
    return rc ? vm_comm_gave_up(&c, rc, "the kernel's end", NULL, 0, NULL, 0) : 0;
}

static int vm_exec(vm *m)
{
    const cc_lo_proc *k = m->k;
    for (uint32_t pc = 0; pc < k->ncode;) {
        const cc_lo_insn *in = &k->code[pc++];
        switch ((cc_lo_opcode)in->code) {
        case CC_LO_CONST: case CC_LO_MOV: case CC_LO_CAST: case CC_LO_BIN: case CC_LO_UN: case CC_LO_TRIPS: {
            const char *why;
            if (ex_scalar_step(k, m->r, in, &why)) return vm_fail(m, in, "%s", why);
            break;
        }
        case CC_LO_JUMP:
            /* A loop's back edge: stop once the run has failed (a stall, another task's error),
             * so a kernel looping past the stall bound never holds pto_runtime_finish. */
            if (in->u.target < pc && m->args->runtime && pto_runtime_failed(m->args->runtime))
                return vm_fail(m, in, "stopped: the run failed while this kernel was looping");
            pc = in->u.target;
            break;
        case CC_LO_JUMP_IF_FALSE:
            if (cc_scalar_is_zero(m->r[in->a], (cc_dtype)k->regs[in->a].type.dtype)) pc = in->u.target;
            break;
        case CC_LO_RETURN: return 0;
        case CC_LO_ALIAS: m->tmap[in->dst] = m->tmap[in->a]; break;
        case CC_LO_LOAD: {
            const tile_tensor *t = vm_tensor(m, in->a);
            if (!t) return vm_fail(m, in, "internal error: LOAD from tensor slot %d without an argument", in->a);
            int64_t off[CC_MAX_RANK], ext[CC_MAX_RANK];
            vm_mem_regs(m, in, off, ext);
            tile *d = &m->v[in->dst];
            vm_own(m, in->dst, 0);
            char *w = vm_window(t, d, off, ext);
            if (w) {
                d->data = w, m->alias[in->dst] = (int32_t)(t - m->tensors);
                memcpy(d->valid, d->shape, sizeof d->valid);
            } else if (tile_load(d, t, off, ext, in->u.mem.clamp, in->u.mem.slice ? "pl.slice" : "pl.load", m->msg, sizeof m->msg)) {
                return vm_fail(m, in, NULL);
            }
            break;
        }
        case CC_LO_STORE: {
            const tile_tensor *t = vm_tensor(m, in->a);
            if (!t) return vm_fail(m, in, "internal error: STORE to tensor slot %d without an argument", in->a);
            int64_t off[CC_MAX_RANK], ext[CC_MAX_RANK];
            vm_mem_regs(m, in, off, ext);
            tile *src = &m->v[in->b];
            if (in->u.mem.atomic) { /* adds into the window; the tiles viewing it get their own copy first */
                vm_own_all(m, t->addr);
                if (tile_store_add(t, off, src, ext, m->msg, sizeof m->msg)) return vm_fail(m, in, NULL);
                break;
            }
            if (m->alias[in->b] >= 0 && vm_window(t, src, off, ext) == src->data) break; /* already there */
            vm_own_all(m, t->addr);
            if (tile_store(t, off, src, ext, m->msg, sizeof m->msg)) return vm_fail(m, in, NULL);
            break;
        }
        case CC_LO_TOP: {
            /* a direct STORE of this result: run the scalar instructions between (its
             * offsets; they touch no tile) first, then compute into the window */
            uint32_t st = pc;
            while (st < k->ncode && cc_lo_is_scalar(&k->code[st])) st++;
            int done = 0;
            if (st < k->ncode && k->code[st].code == CC_LO_STORE && k->code[st].mode != 0 && k->code[st].b == in->dst) {
                for (; pc < st; pc++) {
                    const char *why;
                    if (ex_scalar_step(k, m->r, &k->code[pc], &why)) return vm_fail(m, &k->code[pc], "%s", why);
                }
                done = vm_top_direct(m, in, &k->code[st]);
            }
            if (done < 0 || (!done && vm_top(m, in))) return -1;
            if (done) pc++; /* the STORE's work is done */
            break;
        }
        case CC_LO_READ:
        case CC_LO_WRITE:
            if (vm_element(m, in)) return -1;
            break;
        case CC_LO_COMM:
            if (vm_comm_run(m, in)) return -1;
            break;
        case CC_LO_BLOCK: m->r[in->dst].i = in->mode ? (int64_t)m->args->num_blocks : (int64_t)m->args->block_idx; break;
        case CC_LO_DIM: m->r[in->dst].i = vm_tensor(m, in->a)->shape[in->u.imm.i]; break;
        case CC_LO_TCOPY: {
            vm_own(m, in->dst, in->dst == in->a);
            tile *d = &m->v[in->dst], *a = &m->v[in->a];
            memcpy(d->data, a->data, (size_t)tile_bytes(a));
            memcpy(d->valid, a->valid, sizeof d->valid);
            break;
        }
        default: return vm_fail(m, in, "internal error: %s in a tile program", cc_lo_opcode_name((cc_lo_opcode)in->code));
        }
    }
    return 0;
}

#define VM_ALIGN(x) (((x) + 63) & ~(size_t)63)

/* Binds parameters: scalar registers, tensor views (their box origins;
 * the whole shape is the parameter's compiled type, a dynamic dimension's
 * extent the scalar after the origins). */
/* The extent a tensor argument gives DynVar dimension dim (dim_expr.h's extent callback). */
static int vm_extent(void *ctx, int64_t dim, int64_t *v)
{
    const vm *m = ctx;
    for (uint32_t i = 0; i < m->k->nparams; i++) {
        const cc_lo_ref p = m->k->params[i];
        const cc_type *ty = &m->k->tensors[p.index].type;
        for (int d = 0; p.kind == CC_LO_TENSOR && d < ty->rank; d++)
            if (ty->shape[d] == dim) return *v = m->tensors[m->tmap[p.index]].shape[d], 1;
    }
    return 0;
}

/* A derived dimension (N * 2) of a parameter is its expression's value where the arguments give its DynVars. */
static int vm_bind_derived(vm *m)
{
    const cc_lo_proc *k = m->k;
    for (uint32_t i = 0; m->l->ndims && i < k->nparams; i++) {
        const cc_lo_ref p = k->params[i];
        const cc_type *ty = &k->tensors[p.index].type;
        for (int d = 0; p.kind == CC_LO_TENSOR && d < ty->rank; d++) {
            const cc_dim_expr *x = CC_DIM_IS_DERIVED(ty->shape[d]) ? cc_dim_expr_find(m->l->dims, m->l->ndims, ty->shape[d]) : NULL;
            int64_t want, got = m->tensors[m->tmap[p.index]].shape[d];
            if (x && cc_dim_expr_eval(x, vm_extent, m, &want) && want != got)
                return vm_fail(m, NULL, "kernel '%s' argument '%s' has extent %lld in dimension %d, but its annotation's %s is %lld", k->name,
                               k->tensors[p.index].name ? k->tensors[p.index].name : "?", (long long)got, d, x->text, (long long)want);
        }
    }
    return 0;
}

static int vm_bind(vm *m)
{
    const cc_lo_proc *k = m->k;
    const pto_kernel_args *a = m->args;
    uint32_t nscal = 0, nten = 0, ranks = 0, tranks = 0;
    for (uint32_t i = 0; i < k->nparams; i++) {
        if (k->params[i].kind == CC_LO_REG) nscal++;
        if (k->params[i].kind != CC_LO_TENSOR) continue;
        const cc_type *ty = &k->tensors[k->params[i].index].type;
        nten++, ranks += ty->rank, tranks += ty->rank;
        for (int d = 0; d < ty->rank; d++) ranks += CC_DIM_IS_DYN(ty->shape[d]);
    }
    /* views after the kernel's are a predicate's flag and a comm token (orch_vm.c), not the kernel's; after
     * the origins and extents, when a view has a valid region, each view's hidden extents */
    int partial = a->num_scalars == nscal + ranks + tranks && tranks;
    if (a->num_views < nten || a->num_views > nten + 2 || (a->num_scalars != nscal + ranks && !partial))
        return vm_fail(m, NULL, "kernel '%s' expects %u views and %u scalars (%u parameters, then box origins), got %u and %u",
                       k->name, nten, nscal + ranks, nscal, a->num_views, a->num_scalars);
    for (uint32_t t = 0; t < k->ntensors; t++) m->tmap[t] = -1;
    uint32_t si = 0, vi = 0, oi = nscal, xi = nscal + ranks, hi = nscal + ranks;
    for (uint32_t i = 0; i < k->nparams; i++)
        if (k->params[i].kind == CC_LO_TENSOR)
            for (int d = 0; d < k->tensors[k->params[i].index].type.rank; d++)
                xi -= CC_DIM_IS_DYN(k->tensors[k->params[i].index].type.shape[d]);
    for (uint32_t i = 0; i < k->nparams; i++) {
        cc_lo_ref p = k->params[i];
        if (p.kind == CC_LO_REG) {
            memcpy(&m->r[p.index], &a->scalars[si++], sizeof(ex_reg));
            continue;
        }
        if (p.kind != CC_LO_TENSOR) continue;
        const cc_type *ty = &k->tensors[p.index].type;
        const pto_view *v = &a->views[vi];
        tile_tensor *t = &m->tensors[vi];
        if (v->ndims != ty->rank || v->elem_size != tile_dtype_size((tile_dtype)ty->dtype))
            return vm_fail(m, NULL, "kernel '%s' tensor argument %u: a view of rank %u and %u-byte elements for %s", k->name, vi,
                           v->ndims, v->elem_size, k->tensors[p.index].name ? k->tensors[p.index].name : "-");
        t->addr = v->addr, t->dtype = ty->dtype, t->rank = ty->rank, t->base = v->offset;
        for (int d = 0; d < ty->rank; d++) {
            t->strides[d] = v->strides[d];
            t->base -= (int64_t)a->scalars[oi++] * v->strides[d];
            t->shape[d] = CC_DIM_IS_DYN(ty->shape[d]) ? (int64_t)a->scalars[xi++] : ty->shape[d];
            t->hidden[d] = partial ? (int64_t)a->scalars[hi++] : 0;
            const cc_valid_shape *cap = &k->tensors[p.index].valid; /* pl.TensorView(valid_shape=) cuts it further */
            if (cap->n && !cap->dyn[d] && t->shape[d] - cap->cap[d] > t->hidden[d]) t->hidden[d] = t->shape[d] - cap->cap[d];
        }
        m->tmap[p.index] = (int32_t)vi++;
    }
    return vm_bind_derived(m);
}

int ex_tile_run(const cc_lowered *l, const cc_lo_proc *kernel, const pto_kernel_args *args)
{
    vm m = {.l = l, .k = kernel, .args = args};
    size_t regs = VM_ALIGN(kernel->nregs * sizeof(ex_reg)), tiles = VM_ALIGN(kernel->ntiles * sizeof(tile));
    size_t owns = VM_ALIGN(kernel->ntiles * sizeof(void *)), aliases = VM_ALIGN(kernel->ntiles * sizeof(int32_t));
    size_t tmap = VM_ALIGN(kernel->ntensors * sizeof(int32_t)), tens = VM_ALIGN(args->num_views * sizeof(tile_tensor));
    size_t need = regs + tiles + owns + aliases + tmap + tens;
    for (uint32_t i = 0; i < kernel->ntiles; i++) {
        const cc_type *ty = &kernel->tiles[i].type;
        tile t = {.dtype = ty->dtype, .rank = ty->rank};
        memcpy(t.shape, ty->shape, sizeof t.shape);
        need += VM_ALIGN((size_t)tile_bytes(&t));
    }
    vm_ws *w = vm_ws_get(need);
    if (!w) return vm_fail(&m, NULL, "kernel '%s': out of memory for a %zu-byte tile workspace", kernel->name, need), -PTO_OUT_OF_MEMORY;
    char *p = w->mem;
    m.r = (ex_reg *)p, p += regs;
    m.v = (tile *)p, p += tiles;
    m.own = (void **)p, p += owns;
    m.alias = (int32_t *)p, p += aliases;
    m.tmap = (int32_t *)p, p += tmap;
    m.tensors = (tile_tensor *)p, p += tens;
    m.scratch = &w->scratch;
    for (uint32_t i = 0; i < kernel->ntiles; i++) {
        const cc_type *ty = &kernel->tiles[i].type;
        tile *t = &m.v[i];
        memset(t, 0, sizeof *t);
        t->dtype = ty->dtype, t->rank = ty->rank, t->data = m.own[i] = p;
        m.alias[i] = -1;
        memcpy(t->shape, ty->shape, sizeof t->shape);
        memcpy(t->valid, ty->shape, sizeof t->valid);
        p += VM_ALIGN((size_t)tile_bytes(t));
    }
    if (vm_bind(&m)) return -1;
    int rc = vm_exec(&m);
    return m.remote_writes && vm_comm_quiet(&m) ? -1 : rc;
}
