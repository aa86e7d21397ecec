/*
 * host_interp.c - the host interpreter (host_interp.h): one distributed
 * call of a @pl.jit.host entry on this rank (DISTRIBUTED-SPEC §2.1).
 *
 * Invariants: every rank interprets the same host instructions in the same
 * order (control replication), so the entry check's items, the round-robin
 * counter, the footprint log and every collective are reached alike; ENTER
 * allocates one zeroed window per domain this rank belongs to (buffers
 * back to back, each rounded up to 64 bytes) and attaches the call to the
 * runtime before any task exists; comm dispatches and host collectives of
 * a rank run in program order through one token (§2.6; one per rank, which
 * orders its domains together); the windows are released only after
 * pto_runtime_finish; an INVALID_ARGS found from replicated state
 * (ex_host_invalid) is raised by every rank itself, so it is not relayed.
 */
#include "exec/host_interp.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/text.h"
#include "exec/host_log.h"
#include "exec/tile_vm.h"
#include "runtime/comm.h"
#include "runtime/comm_stats.h"

#define EX_MAX_BUFS 64
#define EX_MAX_RANKS 64 /* rt_comm_domain's arrays */

_Static_assert(CC_LO_COLL_BARRIER == (int)RT_CS_BARRIER && CC_LO_COLL_ALL_TO_ALL == (int)RT_CS_ALL_TO_ALL, "comm stats name collectives by op");
_Static_assert((int)CC_DT_FP32 == (int)PTO_DTYPE_FP32 && (int)CC_DT_FP16 == (int)PTO_DTYPE_FP16 && (int)CC_DT_BF16 == (int)PTO_DTYPE_BF16,
               "allreduce dtypes are pto_dtype values");

typedef struct ex_wbuf {
    const char *name;
    size_t bytes;
    uint64_t ranks; /* bit r: rank r is in its domain */
} ex_wbuf;

struct ex_host {
    pto_runtime *rt;
    const cc_lowered *l;
    const rt_comm_ops *ops;
    void *s;
    int me, world;
    const pto_run_dist *dist;
    const ex_value *params;
    size_t nparams;
    ex_wbuf wb[EX_MAX_BUFS];
    uint32_t nwb;
    rt_comm_domain dom[EX_MAX_BUFS];
    rt_comm_buf bufs[EX_MAX_BUFS];
    rt_comm_call call;
    uint64_t rr;    /* dispatches without device= so far */
    int in_comm;    /* a comm dispatch of this rank is being interpreted */
    int everywhere; /* the call failed with an ex_host_invalid error: every rank raised it itself */
    pto_arg token;  /* its In view of tok */
    struct ex_coll_task *colls; /* the call's collective tasks (ex_hcoll), freed at its end */
    ex_log log;
    rt_comm_stats stats; /* phase times always; counters once call.stats points here */
    _Alignas(64) char tok[64];
};

/* Adds the time since *t to phase p and restarts *t. */
static void ex_phase(ex_host *h, rt_cs_phase p, uint64_t *t)
{
    uint64_t now = base_now_ns();
    h->stats.phase_ns[p] += now - *t;
    *t = now;
}

/* in's site, "<file>:<line>". */
static const char *ex_host_site(const ex_host *h, const cc_lo_insn *in, char *buf, size_t n)
{
    uint32_t line;
    const char *file = cc_lowered_site(h->l, in->line, &line);
    snprintf(buf, n, "%s:%u", file, line);
    return buf;
}

static int ex_host_vinvalid(ex_host *h, const cc_lo_insn *in, const char *fmt, va_list ap)
{
    char reason[400], site[200], call[240];
    vsnprintf(reason, sizeof reason, fmt, ap);
    snprintf(call, sizeof call, "%s at %s:%u", h->l->procs[0].name, ex_host_site(h, in, site, sizeof site), in->col);
    return rt_comm_invalid(h->rt, call, reason);
}

/* INVALID_ARGS found from replicated state (arguments, host scalars, the footprint log): every
 * rank finds it at the same instruction, so it is not relayed (§2.1 step 6: it fails on every rank). */
static int ex_host_invalid(ex_host *h, const cc_lo_insn *in, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int ex_host_invalid(ex_host *h, const cc_lo_insn *in, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = ex_host_vinvalid(h, in, fmt, ap);
    va_end(ap);
    h->everywhere = 1;
    return rc;
}

/* INVALID_ARGS that only this rank (a domain's ranks) may find: relayed. */
static int ex_host_invalid_here(ex_host *h, const cc_lo_insn *in, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int ex_host_invalid_here(ex_host *h, const cc_lo_insn *in, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = ex_host_vinvalid(h, in, fmt, ap);
    va_end(ap);
    return rc;
}

/* ---- the entry: WINBUF, ENTER ---- */

static int ex_winbuf(ex_host *h, const ex_reg *r, const cc_lo_insn *in)
{
    ex_wbuf *b = &h->wb[in->u.win.buf];
    if (in->u.win.buf >= EX_MAX_BUFS) return ex_host_invalid(h, in, "more than %d window buffers", EX_MAX_BUFS);
    int64_t bytes = r[in->a].i, upto = in->b >= 0 ? r[in->b].i : 0;
    if (bytes < 1) return ex_host_invalid(h, in, "pld.tensor.alloc_window_buffer '%s' has %lld bytes", in->u.win.name, (long long)bytes);
    if (upto > h->world) return ex_host_invalid(h, in, "rank loop covers [0, %lld) but the world has %d ranks", (long long)upto, h->world);
    *b = (ex_wbuf){.name = in->u.win.name, .bytes = (size_t)bytes};
    for (int64_t k = 0; k < upto; k++) b->ranks |= 1ull << k;
    for (uint32_t k = 0; k < in->u.win.nranks; k++) {
        int32_t d = in->u.win.ranks[k];
        if (d < 0 || d >= h->world) return ex_host_invalid(h, in, "device=%d is outside [0, %d) (pld.world_size())", d, h->world);
        b->ranks |= 1ull << d;
    }
    if (in->u.win.buf >= h->nwb) h->nwb = in->u.win.buf + 1;
    return 0;
}

static void ex_ranks_text(uint64_t set, char *buf, size_t cap)
{
    size_t n = 0;
    base_appendf(buf, cap, &n, "[");
    for (int k = 0, first = 1; k < EX_MAX_RANKS; k++)
        if (set >> k & 1) base_appendf(buf, cap, &n, "%s%d", first ? "" : ", ", k), first = 0;
    base_appendf(buf, cap, &n, "]");
}

/* The divergence check (§2.1 step 2): the call's items, agreed by every rank. */
static int ex_agree(ex_host *h, pto_error *err)
{
    size_t n = 4 + h->nparams + h->nwb, len = 0;
    char (*item)[320] = calloc(n, sizeof *item);
    const char **ptr = calloc(n, sizeof *ptr);
    if (!item || !ptr) return free(item), free(ptr), rt_comm_error(err, PTO_OUT_OF_MEMORY, "FATAL: Out of Memory!", "no memory for the entry check", NULL);
    const cc_lo_proc *e = &h->l->procs[0];
    size_t k = 0;
    snprintf(item[k++], sizeof item[0], "call %llu", (unsigned long long)(h->dist ? h->dist->call : 0));
    snprintf(item[k++], sizeof item[0], "program %s %016llx", e->name, (unsigned long long)h->l->digest);
    for (size_t i = 0; i < h->nparams; i++) {
        const ex_value *v = &h->params[i];
        const char *name = e->params[i].kind == CC_LO_TENSOR ? e->tensors[e->params[i].index].name : e->regs[e->params[i].index].name;
        len = 0;
        base_appendf(item[k], sizeof item[0], &len, "argument %s", name ? name : "?");
        if (v->kind == CC_LO_TENSOR) {
            base_appendf(item[k], sizeof item[0], &len, " %s [", cc_dtype_name((cc_dtype)v->tensor.dtype));
            for (uint32_t d = 0; d < v->tensor.rank; d++) base_appendf(item[k], sizeof item[0], &len, "%s%lld", d ? ", " : "", (long long)v->tensor.shape[d]);
            base_appendf(item[k], sizeof item[0], &len, "]");
        } else {
            base_appendf(item[k], sizeof item[0], &len, " = %016llx", (unsigned long long)v->reg.u);
        }
        k++;
    }
    len = 0;
    base_appendf(item[k], sizeof item[0], &len, "device_ids [");
    for (int r = 0; r < h->world; r++)
        base_appendf(item[k], sizeof item[0], &len, "%s%lld", r ? ", " : "", (long long)(h->dist && h->dist->device_ids ? h->dist->device_ids[r] : r));
    base_appendf(item[k++], sizeof item[0], &len, "]");
    for (uint32_t b = 0; b < h->nwb; b++) {
        char ranks[200];
        ex_ranks_text(h->wb[b].ranks, ranks, sizeof ranks);
        snprintf(item[k++], sizeof item[0], "window %s %zu bytes on ranks %s", h->wb[b].name, h->wb[b].bytes, ranks);
    }
    const char *backend = getenv("PTO_COMM_BACKEND");
    snprintf(item[k++], sizeof item[0], "backend PTO_COMM_BACKEND=%s", backend ? backend : "");
    for (size_t i = 0; i < k; i++) ptr[i] = item[i];
    char call[200];
    snprintf(call, sizeof call, "call #%llu of '%s'", (unsigned long long)h->call.number, e->name);
    int rc = h->ops->agree(h->s, ptr, (int)k, call, err);
    free(item), free(ptr);
    return rc;
}

/* Domains (one per distinct rank set, in first-use order) and their windows (§2.1 steps 3-4). */
static int ex_windows(ex_host *h, pto_error *err)
{
    for (uint32_t b = 0; b < h->nwb; b++) {
        uint32_t d;
        for (d = 0; d < h->call.ndomains; d++) {
            uint64_t set = 0;
            for (int i = 0; i < h->dom[d].n; i++) set |= 1ull << h->dom[d].ranks[i];
            if (set == h->wb[b].ranks) break;
        }
        rt_comm_domain *dm = &h->dom[d];
        if (d == h->call.ndomains) {
            h->call.ndomains++;
            dm->rank = -1;
            for (int r = 0; r < EX_MAX_RANKS; r++)
                if (h->wb[b].ranks >> r & 1) {
                    if (r == h->me) dm->rank = dm->n;
                    dm->ranks[dm->n++] = r;
                }
        }
        h->bufs[b] = (rt_comm_buf){.name = h->wb[b].name, .domain = d, .offset = dm->bytes, .bytes = h->wb[b].bytes};
        dm->bytes += (h->wb[b].bytes + 63) & ~(size_t)63;
    }
    for (uint32_t d = 0; d < h->call.ndomains; d++) {
        rt_comm_domain *dm = &h->dom[d];
        if (dm->rank < 0) continue; /* not this rank's */
        uint64_t t = base_now_ns();
        int rc = h->ops->domain(h->s, dm->ranks, dm->n, &dm->dom, &dm->backend, err);
        ex_phase(h, RT_CS_DOMAINS, &t);
        if (!rc) rc = h->ops->win_alloc(h->s, dm->dom, dm->bytes, &dm->win, dm->bases, err);
        ex_phase(h, RT_CS_WINDOW_ALLOC, &t);
        if (rc) return rc;
        h->stats.window_bytes += dm->bytes;
    }
    return 0;
}

/* Every tensor argument from rank 0, in place (§2.1 step 5). */
static int ex_inputs(ex_host *h, pto_error *err)
{
    for (size_t i = 0; h->world > 1 && i < h->nparams; i++) {
        if (h->params[i].kind != CC_LO_TENSOR) continue;
        ex_fp f = {.view = h->params[i].tensor};
        ex_log_span(&f);
        int rc = h->ops->bcast(h->s, NULL, (char *)f.view.base + f.lo, (size_t)(f.hi - f.lo), 0, err);
        if (rc) return rc;
    }
    return 0;
}

static int ex_enter(ex_host *h)
{
    pto_error err = {0};
    uint64_t t = base_now_ns();
    int rc = ex_agree(h, &err);
    ex_phase(h, RT_CS_ENTRY_CHECK, &t);
    if (!rc) rc = ex_windows(h, &err);
    t = base_now_ns();
    if (!rc) rc = ex_inputs(h, &err);
    ex_phase(h, RT_CS_INPUTS, &t);
    if (rc) return rt_comm_latch(h->rt, &err);
    h->call.domains = h->dom, h->call.bufs = h->bufs, h->call.nbufs = h->nwb;
    rt_comm_attach(h->rt, &h->call);
    return 0;
}

/* ---- views and dispatches ---- */

/* A dynamic dimension's extent, as an entry argument binds it. */
static int ex_dyn_extent(const ex_host *h, int64_t dim, int64_t *v)
{
    const cc_lo_proc *e = &h->l->procs[0];
    for (size_t i = 0; i < h->nparams; i++) {
        if (e->params[i].kind != CC_LO_TENSOR) continue;
        const cc_type *ty = &e->tensors[e->params[i].index].type;
        for (uint32_t d = 0; d < ty->rank; d++)
            if (ty->shape[d] == dim) return *v = h->params[i].tensor.shape[d], 1;
    }
    return 0;
}

static int ex_winview(ex_host *h, ex_tensor *t, const cc_lo_insn *in)
{
    const rt_comm_buf *b = &h->bufs[in->u.win.buf];
    const rt_comm_domain *dm = &h->dom[b->domain];
    ex_tensor v = {.dtype = in->dtype, .rank = in->u.win.rank, .owner = PTO_INVALID_TASK_ID};
    size_t need = cc_dtype_size((cc_dtype)in->dtype);
    char shape[160];
    size_t n = 0;
    base_appendf(shape, sizeof shape, &n, "[");
    for (uint32_t d = 0; d < v.rank; d++) {
        v.shape[d] = in->u.win.shape[d] == CC_LO_DIM_WORLD ? h->world : in->u.win.shape[d];
        if (CC_DIM_IS_DYN(v.shape[d]) && !ex_dyn_extent(h, in->u.win.shape[d], &v.shape[d]))
            return ex_host_invalid(h, in, "pld.window of '%s': a dimension no argument binds", b->name);
        need *= (size_t)v.shape[d];
        base_appendf(shape, sizeof shape, &n, "%s%lld", d ? ", " : "", (long long)v.shape[d]);
    }
    base_appendf(shape, sizeof shape, &n, "]");
    if (need > b->bytes)
        return ex_host_invalid(h, in, "pld.window of '%s' needs %zu bytes (%s %s) but the buffer holds %zu", b->name, need, shape,
                               cc_dtype_name((cc_dtype)in->dtype), b->bytes);
    for (int64_t d = v.rank - 1, s = 1; d >= 0; d--) v.strides[d] = s, s *= v.shape[d];
    v.base = dm->rank >= 0 ? (char *)dm->bases[dm->rank] + b->offset : NULL; /* NULL: a domain of other ranks */
    t[in->dst] = v;
    return 0;
}

int ex_host_subscript(ex_host *h, const cc_lo_proc *p, const ex_reg *r, const ex_tensor *t, const cc_lo_insn *in)
{
    const ex_tensor *x = &t[in->a];
    for (uint32_t d = 0; d < x->rank; d++) {
        int64_t i = r[in->u.mem.off[d]].i;
        if ((in->mode >> d & 1) && (i < 0 || i >= x->shape[d]))
            return ex_host_invalid(h, in, "host subscript %lld is outside dimension %u of '%s' (extent %lld)", (long long)i, d,
                                   p->tensors[in->a].name ? p->tensors[in->a].name : "?", (long long)x->shape[d]);
    }
    return 0;
}

/* The entry parameter whose memory t views (its name), or NULL. */
static const ex_value *ex_root(const ex_host *h, const ex_tensor *t, const char **name)
{
    const cc_lo_proc *e = &h->l->procs[0];
    for (size_t i = 0; i < h->nparams; i++)
        if (h->params[i].kind == CC_LO_TENSOR && h->params[i].tensor.base == t->base)
            return *name = e->tensors[e->params[i].index].name, &h->params[i];
    return NULL;
}

/* f's span as a box of the entry argument it views ("[1:2, 0:1, 0:64]"), or as bytes. */
static void ex_box_text(const ex_fp *f, const ex_value *root, char *buf, size_t cap)
{
    size_t n = 0, es = cc_dtype_size((cc_dtype)f->view.dtype);
    if (!root) return (void)snprintf(buf, cap, "bytes [%lld:%lld]", (long long)f->lo, (long long)f->hi);
    const ex_tensor *x = &root->tensor;
    int64_t lo = f->lo / (int64_t)es - x->offset, hi = f->hi / (int64_t)es - 1 - x->offset;
    base_appendf(buf, cap, &n, "[");
    for (uint32_t d = 0; d < x->rank; d++) {
        int64_t a = x->strides[d] ? lo / x->strides[d] : 0, b = x->strides[d] ? hi / x->strides[d] : 0;
        lo -= a * x->strides[d], hi -= b * x->strides[d];
        base_appendf(buf, cap, &n, "%s%lld:%lld", d ? ", " : "", (long long)a, (long long)b + 1);
    }
    base_appendf(buf, cap, &n, "]");
}

/* The static results of a skipped dispatch: each returned parameter is the caller's argument. */
static void ex_skip_results(const cc_lo_proc *callee, ex_reg *r, ex_tensor *t, const cc_lo_insn *in)
{
    const cc_lo_insn *ret = &callee->code[callee->ncode - 1];
    for (uint32_t j = 0; j < in->u.call.nresults && j < ret->u.ret.nrefs; j++)
        for (uint32_t k = 0; k < callee->nparams && k < in->u.call.nargs; k++) {
            if (callee->params[k].kind != ret->u.ret.refs[j].kind || callee->params[k].index != ret->u.ret.refs[j].index) continue;
            cc_lo_ref to = in->u.call.results[j], from = in->u.call.args[k];
            if (to.kind == CC_LO_TENSOR) t[to.index] = t[from.index];
            else if (to.kind == CC_LO_REG) r[to.index] = r[from.index];
        }
}

int ex_host_dispatch(ex_host *h, const cc_lo_proc *p, ex_reg *r, ex_tensor *t, const cc_lo_insn *in)
{
    const cc_lo_proc *callee = &h->l->procs[in->u.call.proc];
    int64_t dev = in->a >= 0 ? r[in->a].i : (int64_t)(h->rr++ % (uint64_t)h->world);
    if (dev < 0 || dev >= h->world) return ex_host_invalid(h, in, "device=%lld is outside [0, %d) (pld.world_size())", (long long)dev, h->world);
    uint32_t line;
    const char *file = cc_lowered_site(h->l, in->line, &line);
    for (uint32_t k = 0; k < in->u.call.nargs && k < callee->nparams; k++) {
        cc_lo_ref a = in->u.call.args[k];
        if (a.kind != CC_LO_TENSOR) continue;
        ex_fp f = {.view = t[a.index], .rank = (int)dev, .callee = callee->name, .line = line, .file = file};
        if (!f.view.base || rt_comm_find(&h->call, f.view.base)) continue; /* a window view */
        ex_log_span(&f);
        uint8_t dir = callee->dirs[k];
        const ex_fp *w = dir != CC_DIR_OUT ? ex_log_conflict(&h->log, &f) : NULL;
        if (w) {
            const char *name = p->tensors[a.index].name;
            char box[160];
            const ex_value *root = ex_root(h, &f.view, &name);
            ex_box_text(&f, root, box, sizeof box);
            return ex_host_invalid(h, in,
                                   "host tensor '%s' %s is read by '%s' on rank %lld but was written on rank %d earlier in this call "
                                   "(%s:%u); in this version data moves between ranks only through windows and host collectives",
                                   name ? name : "?", box, callee->name, (long long)dev, w->rank, w->file, w->line);
        }
        if (dir != CC_DIR_IN && ex_log_write(&h->log, &f)) return ex_host_invalid_here(h, in, "out of memory for the footprint log");
    }
    if (dev != h->me) {
        ex_skip_results(callee, r, t, in);
        return 0;
    }
    h->in_comm = in->mode;
    return 1;
}

const pto_arg *ex_host_token(const ex_host *h) { return h && h->in_comm ? &h->token : NULL; }

int ex_host_dispatch_end(ex_host *h, const cc_lo_insn *dispatch)
{
    if (!dispatch->mode) return 0;
    h->in_comm = 0;
    pto_arg join = h->token;
    join.tag = PTO_ARG_INOUT;
    pto_task t = {.name = "pld comm dispatch token", .args = &join, .num_args = 1};
    return pto_task_submit(h->rt, &t, NULL);
}

/* ---- host collectives (§1.8) ---- */

static const char *const ex_coll_names[] = {"pld.tensor.barrier", "pld.tensor.allreduce", "pld.tensor.broadcast", "pld.tensor.allgather",
                                            "pld.tensor.reduce_scatter", "pld.tensor.all_to_all"};

static size_t ex_bytes(const ex_tensor *x)
{
    size_t n = cc_dtype_size((cc_dtype)x->dtype);
    for (uint32_t d = 0; d < x->rank; d++) n *= (size_t)x->shape[d];
    return n;
}

/* A host collective on this rank: one DEFERRED comm task (D9, §2.6) whose kernel posts
 * the transport's nonblocking work and defers; InOut on the token orders it among the
 * rank's comm dispatches and collectives (O6, O7), its data (InOut) and stage (In) views
 * among the tasks touching those windows.  Kept until the call ends. */
typedef struct ex_coll_task {
    const ex_host *h;
    void *dom;
    rt_comm_coll c;
    void *req;
    struct ex_coll_task *next;
} ex_coll_task;

static int ex_coll_test(void *arg, pto_defer_why why, pto_error *err)
{
    ex_coll_task *k = arg;
    return k->h->ops->coll_test(k->h->s, k->req, why, err);
}

static int ex_coll_kernel(const pto_kernel_args *a)
{
    ex_coll_task *k = a->ctx;
    pto_error err = {0};
    int rc = k->h->ops->coll_post(k->h->s, k->dom, &k->c, &k->req, &err);
    if (rc < 0) rt_comm_latch((pto_runtime *)a->runtime, &err);
    else if (k->req) return pto_task_defer(a, ex_coll_test, k);
    return 0;
}

static int ex_coll_submit(ex_host *h, const rt_comm_domain *dm, const rt_comm_coll *c, const ex_tensor *data, const ex_tensor *stage,
                          const char *op)
{
    ex_coll_task *k = calloc(1, sizeof *k);
    if (!k) return rt_comm_invalid(h->rt, op, "no memory for the collective's task");
    *k = (ex_coll_task){.h = h, .dom = dm->dom, .c = *c, .next = h->colls};
    h->colls = k;
    pto_arg args[3] = {h->token};
    uint32_t n = 1;
    args[0].tag = PTO_ARG_INOUT;
    if (data) args[n].tag = PTO_ARG_INOUT, ex_pto_view(data, &args[n++].view);
    if (stage) args[n].tag = PTO_ARG_IN, ex_pto_view(stage, &args[n++].view);
    pto_task t = {.kernel = ex_coll_kernel, .ctx = k, .name = op, .args = args, .num_args = n};
    return pto_task_submit(h->rt, &t, NULL);
}

static int ex_hcoll(ex_host *h, ex_reg *r, ex_tensor *t, const cc_lo_insn *in)
{
    const char *op = ex_coll_names[in->u.coll.op];
    ex_tensor *data = in->u.coll.data >= 0 ? &t[in->u.coll.data] : NULL, *stage = in->u.coll.stage >= 0 ? &t[in->u.coll.stage] : NULL;
    const ex_tensor *key = data ? data : &t[in->u.coll.signal];
    const rt_comm_buf *b = key->base ? rt_comm_find(&h->call, key->base) : NULL;
    if (!b) return 0; /* a domain of other ranks */
    const rt_comm_domain *dm = &h->dom[b->domain];
    const rt_comm_buf *sbuf = stage && stage->base ? rt_comm_find(&h->call, stage->base) : NULL;
    if (stage && (!sbuf || sbuf == b || sbuf->domain != b->domain)) return ex_host_invalid_here(h, in, "%s windows must be distinct buffers of one comm domain", op);
    rt_comm_coll c = {.op = in->u.coll.op, .data = data ? data->base : NULL, .stage = stage ? stage->base : NULL,
                      .bytes = stage ? ex_bytes(stage) : data ? ex_bytes(data) : 0};
    switch (in->u.coll.op) {
    case CC_LO_COLL_BARRIER: break;
    case CC_LO_COLL_ALLREDUCE:
    case CC_LO_COLL_REDUCE_SCATTER: { /* reduce_scatter: every chunk reduced, data[me] among them */
        int dt = data->dtype;
        if ((dt != CC_DT_FP32 && dt != CC_DT_FP16 && dt != CC_DT_BF16) || in->u.coll.reduce > 3) {
            static const char *const rops[] = {"Sum", "Max", "Min", "Prod"};
            return ex_host_invalid_here(h, in, "%s mesh does not support %s/%s", op, cc_dtype_name((cc_dtype)dt),
                                   in->u.coll.reduce <= 3 ? rops[in->u.coll.reduce] : "?");
        }
        c.dtype = dt, c.reduce = in->u.coll.reduce;
        break;
    }
    case CC_LO_COLL_BROADCAST: {
        int64_t root = in->u.coll.root >= 0 ? r[in->u.coll.root].i : 0;
        if (root < 0 || root >= dm->n) return ex_host_invalid_here(h, in, "root=%lld is outside the comm domain [0, %d)", (long long)root, dm->n);
        c.root = (int)root;
        break;
    }
    case CC_LO_COLL_ALLGATHER:
    case CC_LO_COLL_ALL_TO_ALL:
        if (ex_bytes(data) < ex_bytes(stage) * (in->u.coll.op == CC_LO_COLL_ALLGATHER ? (size_t)dm->n : 1))
            return ex_host_invalid_here(h, in, "%s data holds %zu bytes, less than the domain's %d stages of %zu", op, ex_bytes(data), dm->n,
                                   ex_bytes(stage));
        break;
    default: return ex_host_invalid_here(h, in, "internal error: host collective %d", in->u.coll.op);
    }
    h->stats.coll_ops[in->u.coll.op]++;
    h->stats.coll_bytes[in->u.coll.op] += data ? ex_bytes(data) : 0;
    return ex_coll_submit(h, dm, &c, data, in->u.coll.op == CC_LO_COLL_BARRIER ? NULL : stage, op);
}

int ex_host_insn(ex_host *h, const cc_lo_proc *p, ex_reg *r, ex_tensor *t, const cc_lo_insn *in)
{
    (void)p;
    switch (in->code) {
    case CC_LO_WORLD: r[in->dst].i = h->world; return 0;
    case CC_LO_WINBUF: return ex_winbuf(h, r, in);
    case CC_LO_ENTER: return ex_enter(h);
    case CC_LO_WINVIEW: return ex_winview(h, t, in);
    case CC_LO_HCOLL: return ex_hcoll(h, r, t, in);
    default: return ex_host_invalid(h, in, "internal error: %s is not a host instruction", cc_lo_opcode_name((cc_lo_opcode)in->code));
    }
}

/* ---- the call ---- */

static void ex_release(ex_host *h)
{
    pto_error err;
    for (uint32_t d = 0; d < h->call.ndomains; d++)
        if (h->dom[d].rank >= 0 && h->dom[d].win) h->ops->win_free(h->s, h->dom[d].dom, h->dom[d].win, &err);
}

int ex_host_run(pto_runtime *rt, const cc_lowered *l, const ex_value *params, size_t nparams, const pto_run_dist *dist, pto_error *err)
{
    pto_error local;
    if (!err) err = &local;
    ex_host *h = aligned_alloc(64, (sizeof *h + 63) & ~(size_t)63);
    if (!h) return rt_comm_error(err, PTO_OUT_OF_MEMORY, "FATAL: Out of Memory!", "pto_program_run: no memory for the host interpreter", NULL);
    memset(h, 0, sizeof *h);
    h->rt = rt, h->l = l, h->dist = dist, h->params = params, h->nparams = nparams;
    h->ops = rt_comm_transport(&h->s);
    h->me = h->ops->rank, h->world = h->ops->size;
    h->call = (rt_comm_call){.ops = h->ops, .session = h->s, .number = dist ? dist->call : 0, .func = l->procs[0].name};
    h->token = (pto_arg){.tag = PTO_ARG_IN,
                         .view = {.addr = h->tok, .elem_size = 1, .ndims = 1, .shape = {1}, .strides = {1}, .owner = PTO_INVALID_TASK_ID}};
    int rc;
    if (h->world > EX_MAX_RANKS || (dist && dist->ndevice_ids && dist->ndevice_ids != (size_t)h->world)) {
        char what[160];
        snprintf(what, sizeof what, "pto_program_run: the call names %zu ranks but the world (transport '%s') has %d%s",
                 dist ? dist->ndevice_ids : 0, h->ops->name, h->world, h->world > EX_MAX_RANKS ? " (at most 64)" : "");
        rc = rt_comm_error(err, PTO_INVALID_ARGS, "FATAL: Invalid Arguments!", what, "pass one device id per rank");
        free(h);
        return rc;
    }
    const char *c = getenv("PTO_CHECKED_SUBMIT");
    ex_orch_opts o = {.checked = c && !strcmp(c, "1"), .host = h};
    h->call.stats = dist && dist->comm_stats_dir ? &h->stats : NULL;
    uint64_t t = base_now_ns();
    rc = ex_orch_run_with(rt, l, ex_tile_run, params, nparams, &o); /* pto_runtime_finish included */
    ex_phase(h, RT_CS_RUN, &t);
    for (int p = RT_CS_ENTRY_CHECK; p <= RT_CS_INPUTS; p++) h->stats.phase_ns[RT_CS_RUN] -= h->stats.phase_ns[p]; /* ENTER ran inside */
    rt_comm_attach(rt, NULL);
    if (rc == -PTO_OUT_OF_MEMORY && !pto_runtime_error(rt)->code)
        rt_comm_error(err, PTO_OUT_OF_MEMORY, "FATAL: Out of Memory!", "pto_program_run: out of memory for the interpreter's frames", NULL);
    else if (rc) *err = *pto_runtime_error(rt);
    /* A kernel the relay stopped (§3 row 1): the cause is the peer's failure, not this rank's. */
    pto_error remote;
    if (rc && h->world > 1 && err->code == PTO_KERNEL_FAILED && h->ops->poll(h->s, &remote) == -PTO_REMOTE_FAILED)
        *err = remote, rc = -PTO_REMOTE_FAILED;
    if (rc == 0) rc = ex_log_exchange(&h->log, h->ops, h->s, h->me, err);
    ex_phase(h, RT_CS_RESULTS, &t);
    if (rc && err->code != PTO_REMOTE_FAILED && h->world > 1) h->ops->relay(h->s, err, h->everywhere && err->code == PTO_INVALID_ARGS);
    if (rc == 0 || h->world == 1) ex_release(h); /* after a failure peers may still touch a window (§3) */
    ex_phase(h, RT_CS_RELEASE, &t);
    if (h->call.stats) rt_cs_write(rt, &h->stats, &h->call, dist->comm_stats_dir, h->me, h->world);
    ex_log_free(&h->log);
    for (struct ex_coll_task *k = h->colls, *next; k; k = next) next = k->next, free(k);
    free(h);
    return rc;
}
