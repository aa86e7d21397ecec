/*
 * orch_vm.c - the orchestration interpreter (orch_vm.h): registers and
 * tensor slots per procedure, a call stack for CALL/RETURN, runtime scopes
 * for SCOPE_BEGIN/END, ring allocations for ALLOC, one submit per SUBMIT
 * (the runtime's trusted submit, runtime/trusted.h; pto_task_submit_if when
 * ex_orch_opts.checked) with the boxes evaluated, clamped and turned into views,
 * tensor views (VIEW), copy tasks (COPY), and element access on this
 * thread after pto_view_wait (READ, WRITE).  A view of a manual_dep
 * buffer (ex_tensor.manual), in a task or a copy, and a view marked nodep
 * are PTO_ARG_NO_DEP; a predicate= adds its flag element as a last In view.
 * In a host procedure (ex_orch_opts.host) the host instructions go to the
 * host interpreter, a DISPATCH it runs here is a CALL, and every task of a
 * comm dispatch adds the rank's token view (host_interp.h) as its last In.
 *
 * Recursion is rejected by the compiler, so every procedure has at most one
 * live frame: frames are allocated once per run, one per procedure.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/host_interp.h"
#include "exec/orch_vm.h"
#include "runtime/trusted.h"
#include "tile/tile.h"

/* Per kernel: what a task's ctx points at (valid until pto_runtime_finish). */
typedef struct ex_kctx {
    const cc_lowered *l;
    const cc_lo_proc *k;
    ex_kernel_fn run;
    uint32_t ndyn; /* dynamic dimensions of k's tensor parameters: one scalar each per task */
} ex_kctx;

typedef struct ex_frame {
    ex_reg *regs;
    ex_tensor *tensors;
} ex_frame;

typedef struct ex_ret {
    uint32_t proc, pc; /* the caller and its CALL */
} ex_ret;

typedef struct ex_vm {
    pto_runtime *rt;
    const cc_lowered *l;
    ex_frame *frames;
    ex_kctx *kctx;
    ex_ret *stack;
    uint32_t depth;
    pto_dep *deps;    /* room for the most explicit deps a SUBMIT of the program names */
    int checked;      /* ex_orch_opts.checked */
    ex_host *host;    /* ex_orch_opts.host */
} ex_vm;

#define EX_MAX_CALL_DEPTH 256

static int ex_kernel_entry(const pto_kernel_args *a)
{
    const ex_kctx *c = (const ex_kctx *)a->ctx;
    return c->run(c->l, c->k, a);
}

/* Every task of the program: through the trusted submit (runtime/trusted.h; every view is
 * built here from a tensor bound or allocated by this run), or, checked, through the public
 * pto_task_submit_if. */
static int ex_task_submit(ex_vm *vm, const pto_task *t, const pto_predicate *pred, pto_task_id *id)
{
    return vm->checked ? pto_task_submit_if(vm->rt, t, pred, id) : rt_task_submit_trusted(vm->rt, t, pred, id);
}

static int ex_fail(ex_vm *vm, const cc_lo_insn *in, const char *what)
{
    uint32_t line;
    const char *file = cc_lowered_site(vm->l, in->line, &line);
    return pto_runtime_fail(vm->rt, "%s at %s:%u:%u", what, file, line, in->col);
}

static void ex_contiguous(ex_tensor *t)
{
    int64_t s = 1;
    for (int d = t->rank - 1; d >= 0; d--) t->strides[d] = s, s *= t->shape[d];
}

/* ALLOC's and VIEW's extents into ext: the constants, and each run-time one from its register,
 * which must be positive ("pl.<op>: shape entry <d> must be positive, got <v>"). */
static int ex_extents(ex_vm *vm, const ex_frame *f, const cc_lo_insn *in, const char *op, int64_t *ext)
{
    for (uint32_t d = 0; d < in->u.mem.rank; d++) {
        ext[d] = in->u.mem.ext[d] >= 0 ? f->regs[in->u.mem.ext[d]].i : in->u.mem.shape[d];
        if (ext[d] < 1) {
            char msg[96];
            snprintf(msg, sizeof msg, "pl.%s: shape entry %u must be positive, got %lld", op, d, (long long)ext[d]);
            return ex_fail(vm, in, msg);
        }
    }
    return 0;
}

static int ex_alloc(ex_vm *vm, const cc_lo_proc *p, ex_frame *f, const cc_lo_insn *in)
{
    ex_tensor t = {.dtype = in->dtype, .rank = in->u.mem.rank, .owner = PTO_INVALID_TASK_ID, .manual = in->mode};
    int rc = ex_extents(vm, f, in, "create_tensor", t.shape);
    if (rc) return rc;
    size_t bytes = cc_dtype_size((cc_dtype)in->dtype);
    for (uint32_t d = 0; d < t.rank; d++) {
        if ((uint64_t)t.shape[d] > SIZE_MAX / bytes) return ex_fail(vm, in, "pl.create_tensor: the tensor's size does not fit in memory");
        bytes *= (size_t)t.shape[d];
    }
    ex_contiguous(&t);
    rc = pto_tensor_alloc(vm->rt, bytes ? bytes : 1, &t.base, &t.owner);
    if (rc) return rc;
    f->tensors[in->dst] = t;
    if (in->a >= 0) { /* init_value=: no task can use the tensor yet */
        ex_reg v = f->regs[in->a];
        int vf = cc_dtype_is_float((cc_dtype)p->regs[in->a].type.dtype);
        tile_fill(t.base, (tile_dtype)in->dtype, tile_scalar_for((tile_dtype)in->dtype, vf, v.i, v.f),
                  (int64_t)(bytes / cc_dtype_size((cc_dtype)in->dtype)));
    }
    return 0;
}

/* One task argument: the tensor cut to the box (clamped to its valid
 * region; that whole region, at least one element on each axis, when
 * empty); origin[d] = the box's first index. */
static void ex_box_view(const ex_frame *f, const cc_lo_view *v, pto_arg *arg, int64_t *origin)
{
    const ex_tensor *t = &f->tensors[v->tensor];
    int64_t lo[CC_MAX_RANK], hi[CC_MAX_RANK];
    int empty = 0;
    for (uint32_t d = 0; d < t->rank; d++) {
        int64_t n = t->shape[d] - t->hidden[d];
        lo[d] = 0, hi[d] = n;
        if (d < v->rank && v->lo[d] >= 0) {
            int64_t a = f->regs[v->lo[d]].i, b = f->regs[v->hi[d]].i;
            lo[d] = a < 0 ? 0 : a > n ? n : a;
            hi[d] = b > n ? n : b < 0 ? 0 : b;
        }
        empty |= hi[d] <= lo[d];
    }
    pto_view *pv = &arg->view;
    memset(pv, 0, sizeof *pv);
    pv->addr = t->base;
    pv->elem_size = (uint32_t)cc_dtype_size((cc_dtype)t->dtype);
    pv->ndims = t->rank;
    pv->offset = t->offset;
    pv->owner = t->owner;
    for (uint32_t d = 0; d < t->rank; d++) {
        if (empty) lo[d] = 0, hi[d] = t->shape[d] > t->hidden[d] ? t->shape[d] - t->hidden[d] : 1;
        pv->shape[d] = (uint64_t)(hi[d] - lo[d]);
        pv->strides[d] = t->strides[d];
        pv->offset += lo[d] * t->strides[d];
        origin[d] = lo[d];
    }
    arg->tag = v->nodep || t->manual ? PTO_ARG_NO_DEP
               : v->dir == CC_DIR_IN ? PTO_ARG_IN
               : v->dir == CC_DIR_OUT ? PTO_ARG_OUTPUT_EXISTING : PTO_ARG_INOUT;
}


/* x as the tile library's tensor (whole-tensor coordinates). */
static tile_tensor ex_tile_tensor(const ex_tensor *x)
{
    tile_tensor t = {.addr = x->base, .base = x->offset, .dtype = x->dtype, .rank = x->rank};
    memcpy(t.shape, x->shape, sizeof t.shape);
    memcpy(t.strides, x->strides, sizeof t.strides);
    memcpy(t.hidden, x->hidden, sizeof t.hidden);
    return t;
}

/* predicate= (D-pred): the flag element as one more In argument args[*nv]
 * (one element: the task orders after its writers only), and the predicate
 * on it.  Returns 0, or the failure of an index out of range. */
static int ex_predicate(ex_vm *vm, const ex_frame *f, const cc_lo_insn *in, pto_arg *args, uint32_t *nv, pto_predicate *pr)
{
    const ex_tensor *x = &f->tensors[in->u.submit.pred];
    tile_tensor t = ex_tile_tensor(x);
    int64_t idx[CC_MAX_RANK];
    char msg[160];
    for (uint32_t d = 0; d < in->u.submit.pred_rank; d++) idx[d] = f->regs[in->u.submit.pred_idx[d]].i;
    const char *at = tile_tensor_at(&t, idx, in->u.submit.pred_rank, "predicate=", msg, sizeof msg);
    if (!at) return ex_fail(vm, in, msg);
    pto_arg *a = &args[(*nv)++];
    a->tag = x->manual ? PTO_ARG_NO_DEP : PTO_ARG_IN;
    ex_pto_view(x, &a->view);
    a->view.offset = (at - (const char *)x->base) / (int64_t)a->view.elem_size;
    for (uint32_t d = 0; d < x->rank; d++) a->view.shape[d] = 1;
    static const pto_pred_op ops[] = {PTO_PRED_EQ, PTO_PRED_NE, PTO_PRED_LT, PTO_PRED_LE, PTO_PRED_GT, PTO_PRED_GE};
    memset(pr, 0, sizeof *pr);
    pr->arg = *nv - 1;
    pr->op = ops[in->u.submit.pred_op - CC_OP_EQ];
    pr->elem = x->dtype == CC_DT_FP32 ? PTO_PRED_FP32 : x->dtype == CC_DT_FP16 ? PTO_PRED_FP16
             : x->dtype == CC_DT_BF16 ? PTO_PRED_BF16 : PTO_PRED_INT;
    pr->value = in->u.submit.pred_k;
    return 0;
}

/* The explicit deps of a SUBMIT into vm->deps, leaving out empty TASK_ID array slots; their count. */
static uint32_t ex_deps(ex_vm *vm, const ex_frame *f, const cc_lo_insn *in)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < in->u.submit.ndeps; i++)
        if (f->regs[in->u.submit.deps[i]].u != PTO_INVALID_TASK_ID)
            vm->deps[n++] = (pto_dep){.id = f->regs[in->u.submit.deps[i]].u, .kind = PTO_DEP_WAIT_RETAIN};
    return n;
}

/* A dummy task (pl.system.task_dummy): no kernel, joins its deps. */
static int ex_dummy(ex_vm *vm, ex_frame *f, const cc_lo_insn *in)
{
    pto_task t = {.name = "pl.system.task_dummy", .deps = vm->deps, .num_deps = ex_deps(vm, f, in)};
    pto_task_id id = PTO_INVALID_TASK_ID;
    int rc = ex_task_submit(vm, &t, NULL, &id);
    if (rc == 0 && in->dst >= 0) f->regs[in->dst].u = id;
    return rc;
}

/* View i of a SUBMIT marked check: the tensor's run-time extents against the constants kernel
 * k was compiled for ("'<k>' parameter '<p>' expects [16, 128], got a tensor of shape [16, 96]"). */
static int ex_extent_check(ex_vm *vm, const ex_frame *f, const cc_lo_insn *in, const cc_lo_proc *k, uint32_t i)
{
    const ex_tensor *x = &f->tensors[in->u.submit.views[i].tensor];
    const cc_lo_slot *s = &k->tensors[i]; /* a kernel's tensor parameters are t0, t1, ... (program.h) */
    int same = s->type.rank == x->rank;
    for (uint32_t d = 0; same && d < x->rank; d++) same = CC_DIM_IS_DYN(s->type.shape[d]) || s->type.shape[d] == x->shape[d];
    if (same) return 0;
    char want[96], got[96], msg[320];
    cc_shape_format(&s->type, want, sizeof want);
    cc_type shape = {.kind = CC_T_TENSOR, .rank = x->rank};
    memcpy(shape.shape, x->shape, sizeof shape.shape);
    cc_shape_format(&shape, got, sizeof got);
    snprintf(msg, sizeof msg, "'%s' parameter '%s' expects shape %s, got a tensor of shape %s (a run-time extent)", k->name,
             s->name ? s->name : "?", want, got);
    return ex_fail(vm, in, msg);
}

static int ex_submit(ex_vm *vm, ex_frame *f, const cc_lo_insn *in)
{
    if (in->u.submit.kernel == CC_LO_NO_KERNEL) return ex_dummy(vm, f, in);
    const cc_lo_proc *k = &vm->l->kernels[in->u.submit.kernel];
    uint32_t nv = in->u.submit.nviews, ns = in->u.submit.nscalars, nsc = ns, ranks = 0, partial = 0;
    for (uint32_t i = 0; i < nv; i++)
        ranks += f->tensors[in->u.submit.views[i].tensor].rank, partial |= f->tensors[in->u.submit.views[i].tensor].partial;
    uint32_t ndyn = vm->kctx[in->u.submit.kernel].ndyn;
    nsc += (partial ? 2 * ranks : ranks) + ndyn;
    /* The compiler rejects such a kernel (lower.c, lo_submit; a bound tensor has its
     * parameter's rank); this guards the arrays below against a lowered program
     * built some other way. */
    if (nv + in->u.submit.has_pred + (ex_host_token(vm->host) != NULL) > PTO_MAX_TENSOR_ARGS || nsc > PTO_MAX_SCALAR_ARGS)
        return ex_fail(vm, in, "internal error: a task with more arguments than the runtime takes");
    pto_arg args[PTO_MAX_TENSOR_ARGS];
    uint64_t sc[PTO_MAX_SCALAR_ARGS];
    int64_t origin[PTO_MAX_TENSOR_ARGS][CC_MAX_RANK];
    for (uint32_t i = 0; i < nv; i++) {
        int bad = in->u.submit.views[i].check ? ex_extent_check(vm, f, in, k, i) : 0;
        if (bad) return bad;
    }
    for (uint32_t i = 0; i < ns; i++) sc[i] = f->regs[in->u.submit.scalars[i]].u;
    for (uint32_t i = 0; i < nv; i++) ex_box_view(f, &in->u.submit.views[i], &args[i], origin[i]);
    uint32_t n = ns;
    for (uint32_t i = 0; i < nv; i++)
        for (uint32_t d = 0; d < args[i].view.ndims; d++) sc[n++] = (uint64_t)origin[i][d];
    /* then the whole extent of each dynamic dimension of the kernel's tensor parameters (tile_vm.c vm_bind) */
    for (uint32_t p = 0, i = 0; ndyn && p < k->nparams && i < nv; p++) {
        if (k->params[p].kind != CC_LO_TENSOR) continue;
        const cc_type *ty = &k->tensors[k->params[p].index].type;
        const ex_tensor *x = &f->tensors[in->u.submit.views[i++].tensor];
        for (uint32_t d = 0; d < ty->rank; d++)
            if (CC_DIM_IS_DYN(ty->shape[d])) sc[n++] = (uint64_t)x->shape[d];
    }
    /* then, when a view has a valid region, every view's hidden extents (tile_vm.c vm_bind) */
    for (uint32_t i = 0; partial && i < nv; i++)
        for (uint32_t d = 0; d < args[i].view.ndims; d++) sc[n++] = (uint64_t)f->tensors[in->u.submit.views[i].tensor].hidden[d];
    uint32_t nd = ex_deps(vm, f, in);
    pto_predicate pr;
    int rc = in->u.submit.has_pred ? ex_predicate(vm, f, in, args, &nv, &pr) : 0;
    if (rc) return rc;
    const pto_arg *token = ex_host_token(vm->host);
    if (token) args[nv++] = *token;
    pto_task t = {.kernel = ex_kernel_entry, .ctx = &vm->kctx[in->u.submit.kernel], .name = k->name, .args = args,
                  .num_args = nv, .scalars = sc, .num_scalars = n, .deps = vm->deps, .num_deps = nd};
    if (in->u.submit.blocks >= 0) { /* an SPMD task (DSL-V2-SPEC §7) */
        int64_t nb = f->regs[in->u.submit.blocks].i;
        if (nb < 1 || nb > UINT32_MAX) {
            char msg[96];
            snprintf(msg, sizeof msg, "pl.spmd block count must be >= 1, got %lld", (long long)nb);
            return ex_fail(vm, in, msg);
        }
        t.num_blocks = (uint32_t)nb;
    }
    pto_task_id id = PTO_INVALID_TASK_ID;
    rc = ex_task_submit(vm, &t, in->u.submit.has_pred ? &pr : NULL, &id);
    if (rc == 0 && in->dst >= 0) f->regs[in->dst].u = id;
    return rc;
}

/* ---- views, copies and element access (DSL-V2-SPEC §1.3, §1.5, §1.7) ---- */

/* in's window offsets (registers u.mem.off) of extents ext into off, each
 * checked against x: "pl.<op>: offset <o> + extent <e> exceeds ...". */
static int ex_window(ex_vm *vm, const ex_frame *f, const cc_lo_insn *in, const ex_tensor *x, const int64_t *ext, const char *op,
                     int64_t *off)
{
    char msg[160];
    for (uint32_t d = 0; d < x->rank; d++) {
        int64_t o = off[d] = f->regs[in->u.mem.off[d]].i;
        if (o < 0) snprintf(msg, sizeof msg, "pl.%s: offset %u is negative (%lld)", op, d, (long long)o);
        else if (o > x->shape[d] - ext[d])
            snprintf(msg, sizeof msg, "pl.%s: offset %lld + extent %lld exceeds dimension %u of extent %lld", op, (long long)o,
                     (long long)ext[d], d, (long long)x->shape[d]);
        else continue;
        return ex_fail(vm, in, msg);
    }
    return 0;
}

/* VIEW: a slot for ta's window, the dropped axes left out.  Each offset
 * lies inside ta's valid region; the window may run past it: the part
 * inside, cut to valid_shape= (0 <= v <= extent), is the view's valid
 * region. */
static int ex_view(ex_vm *vm, ex_frame *f, const cc_lo_insn *in)
{
    const ex_tensor *x = &f->tensors[in->a];
    int64_t ext[CC_MAX_RANK];
    int rc = ex_extents(vm, f, in, "slice", ext);
    if (rc) return rc;
    /* built in its slot, unless the slot is its own source (then copied there at the end) */
    ex_tensor tmp, *v = in->dst != in->a ? &f->tensors[in->dst] : &tmp;
    memset(v, 0, sizeof *v);
    v->base = x->base, v->dtype = x->dtype, v->offset = x->offset, v->owner = x->owner, v->manual = x->manual;
    char msg[160];
    for (uint32_t d = 0; d < x->rank; d++) {
        int64_t o = f->regs[in->u.mem.off[d]].i, n = x->shape[d] - x->hidden[d];
        int64_t want = in->u.mem.valid[d] >= 0 ? f->regs[in->u.mem.valid[d]].i : ext[d], keep = n - o < want ? n - o : want;
        if (o < 0) snprintf(msg, sizeof msg, "pl.slice: offset %u is negative (%lld)", d, (long long)o);
        else if (o >= n && !x->partial)
            snprintf(msg, sizeof msg, "pl.slice: offset %lld is past the end of dimension %u of extent %lld", (long long)o, d, (long long)n);
        else if (o >= n)
            snprintf(msg, sizeof msg, "pl.slice: offset %lld is past the valid region of dimension %u (%lld of %lld valid)", (long long)o, d,
                     (long long)n, (long long)x->shape[d]);
        else if (want < 0 || want > ext[d])
            snprintf(msg, sizeof msg, "pl.slice: valid_shape entry %u (%lld) is outside 0 to %lld", d, (long long)want, (long long)ext[d]);
        else if ((in->mode & (1u << d)) && keep < 1)
            snprintf(msg, sizeof msg, "pl.slice: dropped axis %u has an empty valid region", d);
        else {
            v->offset += o * x->strides[d];
            if (in->mode & (1u << d)) continue;
            v->hidden[v->rank] = ext[d] - keep, v->partial |= keep < ext[d];
            v->shape[v->rank] = ext[d], v->strides[v->rank++] = x->strides[d];
            continue;
        }
        return ex_fail(vm, in, msg);
    }
    if (v == &tmp) f->tensors[in->dst] = tmp;
    return 0;
}

void ex_pto_view(const ex_tensor *x, pto_view *v)
{
    memset(v, 0, sizeof *v);
    v->addr = x->base, v->elem_size = (uint32_t)cc_dtype_size((cc_dtype)x->dtype), v->ndims = x->rank;
    v->offset = x->offset, v->owner = x->owner;
    for (uint32_t d = 0; d < x->rank; d++) v->shape[d] = (uint64_t)x->shape[d], v->strides[d] = x->strides[d];
}

/* The copy task's kernel: views[0] (In) into views[1] (Out) of the same
 * shape, one row (the last axis) at a time.  Windows of one buffer may
 * overlap (pl.assemble(t, pl.slice(t, ...), ...)): both are in t's layout,
 * so copying from the highest element down when the target lies above
 * reads every source element before it is overwritten. */
static int ex_copy_kernel(const pto_kernel_args *a)
{
    const pto_view *s = &a->views[0], *d = &a->views[1];
    uint32_t last = s->ndims - 1;
    uint64_t rows = 1, n = s->shape[last], idx[PTO_MAX_DIMS] = {0};
    int64_t es = (int64_t)s->elem_size, ss = s->strides[last] * es, ds = d->strides[last] * es;
    int down = d->addr == s->addr && d->offset > s->offset;
    for (uint32_t k = 0; k < last; k++) rows *= s->shape[k];
    for (uint64_t i = 0; i < rows; i++) {
        for (uint64_t q = down ? rows - 1 - i : i, k = last; k-- > 0;) idx[k] = q % s->shape[k], q /= s->shape[k];
        char *dp = pto_view_at(d, idx);
        const char *sp = pto_view_at(s, idx);
        if (ss == es && ds == es) memmove(dp, sp, (size_t)(n * (uint64_t)es));
        else
            for (uint64_t j = 0; j < n; j++) {
                int64_t e = (int64_t)(down ? n - 1 - j : j);
                memmove(dp + e * ds, sp + e * ss, (size_t)es);
            }
    }
    return 0;
}

/* COPY: one task, tb (In) into ta's window (existing Out), ordered like a kernel call:
 * tb's valid region, as far as ta's valid region reaches. */
static int ex_copy(ex_vm *vm, ex_frame *f, const cc_lo_insn *in)
{
    const ex_tensor *dst = &f->tensors[in->a], *src = &f->tensors[in->b];
    int64_t off[CC_MAX_RANK];
    int rc = ex_window(vm, f, in, dst, src->shape, "assemble", off);
    if (rc) return rc;
    pto_arg args[3] = {{.tag = src->manual ? PTO_ARG_NO_DEP : PTO_ARG_IN}, {.tag = dst->manual ? PTO_ARG_NO_DEP : PTO_ARG_OUTPUT_EXISTING}};
    const pto_arg *token = ex_host_token(vm->host);
    ex_pto_view(src, &args[0].view), ex_pto_view(dst, &args[1].view);
    for (uint32_t d = 0; d < dst->rank; d++) { /* the source's valid region, where the target's covers it */
        int64_t n = src->shape[d] - src->hidden[d], room = dst->shape[d] - dst->hidden[d] - off[d];
        if (room < n) n = room;
        if (n < 1) return 0; /* nothing to copy */
        args[0].view.shape[d] = (uint64_t)n;
        args[1].view.offset += off[d] * dst->strides[d], args[1].view.shape[d] = (uint64_t)n;
    }
    if (token) args[2] = *token;
    pto_task t = {.kernel = ex_copy_kernel, .name = "pl.assemble", .args = args, .num_args = token ? 3 : 2};
    return ex_task_submit(vm, &t, NULL, NULL);
}

/* READ of a tensor element into rdst, or WRITE of rb into one, on this
 * thread once the live tasks writing the element (WRITE: or reading it)
 * are done: pto_view_wait on that element. */
static int ex_element(ex_vm *vm, const cc_lo_proc *p, ex_frame *f, const cc_lo_insn *in)
{
    const ex_tensor *x = &f->tensors[in->a];
    tile_tensor t = ex_tile_tensor(x);
    int write = in->code == CC_LO_WRITE;
    int64_t idx[CC_MAX_RANK];
    char msg[160];
    for (uint32_t d = 0; d < in->u.mem.rank; d++) idx[d] = f->regs[in->u.mem.off[d]].i;
    const char *at = tile_tensor_at(&t, idx, in->u.mem.rank, write ? "pl.write" : "pl.read", msg, sizeof msg);
    if (!at) return ex_fail(vm, in, msg);
    pto_view v;
    ex_pto_view(x, &v);
    v.offset = (at - (const char *)x->base) / (int64_t)v.elem_size;
    for (uint32_t d = 0; d < x->rank; d++) v.shape[d] = 1;
    int rc = pto_view_wait(vm->rt, &v, write);
    if (rc) return rc;
    if (write) {
        ex_reg r = f->regs[in->b];
        int vf = cc_dtype_is_float((cc_dtype)p->regs[in->b].type.dtype);
        rc = tile_tensor_write(&t, idx, in->u.mem.rank, tile_scalar_for((tile_dtype)x->dtype, vf, r.i, r.f), msg, sizeof msg);
    } else {
        tile_scalar e;
        rc = tile_tensor_read(&t, idx, in->u.mem.rank, &e, msg, sizeof msg);
        if (!rc && cc_dtype_is_float((cc_dtype)in->dtype)) f->regs[in->dst].f = e.f;
        else if (!rc) f->regs[in->dst].i = e.i;
    }
    return rc ? ex_fail(vm, in, msg) : 0;
}

/* AGET / ASET: one slot of a TASK_ID array (u.imm.i registers from ra, or rdst). */
static int ex_array(ex_vm *vm, ex_frame *f, const cc_lo_insn *in)
{
    int64_t i = f->regs[in->b].i, n = in->u.imm.i;
    if (i < 0 || i >= n) {
        char msg[96];
        snprintf(msg, sizeof msg, "pl.array index %lld is out of range for an array of %lld", (long long)i, (long long)n);
        return ex_fail(vm, in, msg);
    }
    if (in->code == CC_LO_AGET) f->regs[in->dst] = f->regs[in->a + i];
    else f->regs[in->dst + i] = f->regs[in->a];
    return 0;
}

/* A value of the caller's frame into a slot of the callee's (or back). */
static void ex_copy_ref(ex_frame *to, cc_lo_ref tr, const ex_frame *from, cc_lo_ref fr)
{
    if (tr.kind == CC_LO_REG) to->regs[tr.index] = from->regs[fr.index];
    else if (tr.kind == CC_LO_TENSOR) to->tensors[tr.index] = from->tensors[fr.index];
}

static int ex_call(ex_vm *vm, uint32_t *proc, uint32_t *pc, const cc_lo_insn *in)
{
    if (vm->depth >= EX_MAX_CALL_DEPTH) return ex_fail(vm, in, "calls nested too deeply");
    const cc_lo_proc *callee = &vm->l->procs[in->u.call.proc];
    ex_frame *cf = &vm->frames[in->u.call.proc], *f = &vm->frames[*proc];
    for (uint32_t k = 0; k < in->u.call.nargs && k < callee->nparams; k++) ex_copy_ref(cf, callee->params[k], f, in->u.call.args[k]);
    vm->stack[vm->depth++] = (ex_ret){*proc, *pc};
    *proc = in->u.call.proc;
    *pc = 0;
    return 0;
}

/* RETURN: closes its scopes; returns 1 when the entry ended. */
static int ex_return(ex_vm *vm, uint32_t *proc, uint32_t *pc, const cc_lo_insn *in, int *rc)
{
    for (uint32_t k = 0; k < in->u.ret.close && *rc == 0; k++) *rc = pto_scope_end(vm->rt);
    if (*rc || vm->depth == 0) return 1;
    ex_ret r = vm->stack[--vm->depth];
    const cc_lo_insn *call = &vm->l->procs[r.proc].code[r.pc];
    ex_frame *from = &vm->frames[*proc], *to = &vm->frames[r.proc];
    for (uint32_t k = 0; k < call->u.call.nresults && k < in->u.ret.nrefs; k++)
        ex_copy_ref(to, call->u.call.results[k], from, in->u.ret.refs[k]);
    *proc = r.proc;
    *pc = r.pc + 1;
    if (call->code == CC_LO_DISPATCH) *rc = ex_host_dispatch_end(vm->host, call);
    return *rc != 0;
}

static int ex_scalar(ex_vm *vm, const cc_lo_proc *p, ex_frame *f, const cc_lo_insn *in)
{
    const char *why;
    return ex_scalar_step(p, f->regs, in, &why) ? ex_fail(vm, in, why) : 0;
}

static int ex_loop(ex_vm *vm)
{
    uint32_t proc = 0, pc = 0;
    int rc = 0;
    const cc_lo_proc *p = &vm->l->procs[0]; /* procs[proc] and its frame: they change at CALL and RETURN only */
    ex_frame *f = &vm->frames[0];
    for (;;) {
        const cc_lo_insn *in = &p->code[pc];
        switch (in->code) {
        case CC_LO_JUMP: pc = in->u.target; continue;
        case CC_LO_JUMP_IF_FALSE: {
            pc = cc_scalar_is_zero(f->regs[in->a], (cc_dtype)p->regs[in->a].type.dtype) ? in->u.target : pc + 1;
            continue;
        }
        case CC_LO_RETURN:
            if (ex_return(vm, &proc, &pc, in, &rc)) return rc;
            p = &vm->l->procs[proc], f = &vm->frames[proc];
            continue;
        case CC_LO_DISPATCH:
            if (!vm->host) return ex_fail(vm, in, "internal error: DISPATCH outside a host procedure");
            if ((rc = ex_host_dispatch(vm->host, p, f->regs, f->tensors, in)) < 0) return rc;
            if (rc == 0) break; /* another rank's; else it runs here, as a CALL */
            rc = 0;
            /* fall through */
        case CC_LO_CALL:
            if ((rc = ex_call(vm, &proc, &pc, in)) != 0) return rc;
            p = &vm->l->procs[proc], f = &vm->frames[proc];
            continue;
        case CC_LO_WORLD: case CC_LO_WINBUF: case CC_LO_ENTER: case CC_LO_WINVIEW: case CC_LO_HCOLL:
            rc = vm->host ? ex_host_insn(vm->host, p, f->regs, f->tensors, in) : ex_fail(vm, in, "internal error: a host instruction outside a host procedure");
            break;
        case CC_LO_SCOPE_BEGIN: {
            uint32_t line;
            const char *file = cc_lowered_site(vm->l, in->line, &line);
            rc = pto_scope_begin(vm->rt, in->mode == CC_SCOPE_MANUAL ? PTO_SCOPE_MANUAL : PTO_SCOPE_AUTO, file, (int)line);
            break;
        }
        case CC_LO_SCOPE_END: rc = pto_scope_end(vm->rt); break;
        case CC_LO_ALLOC: rc = ex_alloc(vm, p, f, in); break;
        case CC_LO_ALIAS: f->tensors[in->dst] = f->tensors[in->a]; break;
        case CC_LO_SUBMIT: rc = ex_submit(vm, f, in); break;
        case CC_LO_VIEW:
            rc = in->u.mem.slice == 2 && vm->host ? ex_host_subscript(vm->host, p, f->regs, f->tensors, in) : 0;
            if (!rc) rc = ex_view(vm, f, in);
            break;
        case CC_LO_COPY: rc = ex_copy(vm, f, in); break;
        case CC_LO_READ: case CC_LO_WRITE: rc = ex_element(vm, p, f, in); break;
        case CC_LO_AGET: case CC_LO_ASET: rc = ex_array(vm, f, in); break;
        case CC_LO_DIM: f->regs[in->dst].i = f->tensors[in->a].shape[in->u.imm.i]; break;
        case CC_LO_CONST: ex_const(f->regs, in); break;
        case CC_LO_BIN: /* loop and box arithmetic inline; the rest through ex_scalar_step */
            rc = cc_scalar_bin_index((cc_op)in->op, (cc_dtype)in->dtype, f->regs[in->a], f->regs[in->b], &f->regs[in->dst])
                     ? 0 : ex_scalar(vm, p, f, in);
            break;
        default: rc = ex_scalar(vm, p, f, in); break;
        }
        if (rc) return rc;
        pc++;
    }
}

static void ex_vm_free(ex_vm *vm)
{
    for (uint32_t k = 0; vm->frames && k < vm->l->nprocs; k++) free(vm->frames[k].regs), free(vm->frames[k].tensors);
    free(vm->frames), free(vm->kctx), free(vm->stack), free(vm->deps);
}

static int ex_vm_init(ex_vm *vm)
{
    const cc_lowered *l = vm->l;
    vm->frames = calloc(l->nprocs, sizeof *vm->frames);
    vm->kctx = calloc(l->nkernels ? l->nkernels : 1, sizeof *vm->kctx);
    vm->stack = calloc(EX_MAX_CALL_DEPTH, sizeof *vm->stack);
    uint32_t ndeps = 1;
    for (uint32_t k = 0; k < l->nprocs; k++)
        for (uint32_t i = 0; i < l->procs[k].ncode; i++)
            if (l->procs[k].code[i].code == CC_LO_SUBMIT && l->procs[k].code[i].u.submit.ndeps > ndeps)
                ndeps = l->procs[k].code[i].u.submit.ndeps;
    vm->deps = calloc(ndeps, sizeof *vm->deps);
    if (!vm->frames || !vm->kctx || !vm->stack || !vm->deps) return -1;
    for (uint32_t k = 0; k < l->nprocs; k++) {
        vm->frames[k].regs = calloc(l->procs[k].nregs ? l->procs[k].nregs : 1, sizeof(ex_reg));
        vm->frames[k].tensors = calloc(l->procs[k].ntensors ? l->procs[k].ntensors : 1, sizeof(ex_tensor));
        if (!vm->frames[k].regs || !vm->frames[k].tensors) return -1;
    }
    return 0;
}

int ex_orch_run(pto_runtime *rt, const cc_lowered *l, ex_kernel_fn run_kernel, const ex_value *params, size_t nparams)
{
    const char *c = getenv("PTO_CHECKED_SUBMIT");
    ex_orch_opts o = {.checked = c && !strcmp(c, "1")};
    return ex_orch_run_with(rt, l, run_kernel, params, nparams, &o);
}

int ex_orch_run_with(pto_runtime *rt, const cc_lowered *l, ex_kernel_fn run_kernel, const ex_value *params, size_t nparams,
                     const ex_orch_opts *opts)
{
    if (!rt) return -PTO_INVALID_ARGS;
    if (!l || !l->nprocs || !run_kernel || nparams != l->procs[0].nparams || (nparams && !params)) {
        pto_runtime_fail(rt, "pto_program_run: no program to run, or %zu arguments for %u parameters", nparams,
                         l && l->nprocs ? l->procs[0].nparams : 0);
        return pto_runtime_finish(rt);
    }
    ex_vm vm = {.rt = rt, .l = l, .checked = opts && opts->checked, .host = opts ? opts->host : NULL};
    int rc = 0;
    if (ex_vm_init(&vm)) { /* nothing has run: the caller reports it */
        ex_vm_free(&vm);
        pto_runtime_finish(rt);
        return -PTO_OUT_OF_MEMORY;
    }
    for (uint32_t k = 0; rc == 0 && k < l->nkernels; k++) {
        const cc_lo_proc *kp = &l->kernels[k];
        uint32_t ndyn = 0;
        for (uint32_t p = 0; p < kp->nparams; p++)
            for (uint32_t d = 0; kp->params[p].kind == CC_LO_TENSOR && d < kp->tensors[kp->params[p].index].type.rank; d++)
                ndyn += CC_DIM_IS_DYN(kp->tensors[kp->params[p].index].type.shape[d]);
        vm.kctx[k] = (ex_kctx){l, kp, run_kernel, ndyn};
    }
    const cc_lo_proc *e = &l->procs[0];
    for (uint32_t k = 0; rc == 0 && k < e->nparams; k++) {
        if (e->params[k].kind == CC_LO_REG) vm.frames[0].regs[e->params[k].index] = params[k].reg;
        else if (e->params[k].kind == CC_LO_TENSOR) vm.frames[0].tensors[e->params[k].index] = params[k].tensor;
    }
    if (rc == 0) rc = ex_loop(&vm);
    if (opts && opts->orch_end) opts->orch_end(opts->orch_end_arg);
    /* after an error, scopes left open are closed by pto_runtime_finish (which warns): a latched
     * runtime ignores pto_scope_end, and the error's message keeps the scope it happened in */
    int frc = pto_runtime_finish(rt); /* every task has run: the contexts may go */
    ex_vm_free(&vm);
    return frc ? frc : rc;
}
