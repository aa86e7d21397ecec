/*
 * comm.c - the transport registry, the one-process transport and the
 * running call's window registry (comm.h).
 *
 * Invariants: the registered table is read with acquire and replaced whole
 * (a transport registers once per process, before its first distributed
 * call); the local transport is one rank: every domain is {0}, a window is
 * zeroed memory of this process, collectives leave their data as it is
 * (allgather copies its one contribution), and nothing can fail remotely.
 */
#include "runtime/comm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/comm_stats.h"
#include "runtime/diagnose.h"
#include "runtime/error.h"
#include "runtime/format.h"
#include "runtime/progress.h"
#include "runtime/rt.h"
#include "runtime/spare.h"

/* ---- the local (P = 1) transport ---- */

static int local_bad(pto_error *err, const char *what)
{
    return rt_comm_error(err, PTO_COMM_FAILED, "FATAL: Communication Failed!", what, NULL);
}

static int local_domain(void *s, const int *ranks, int n, void **dom, const char **backend, pto_error *err)
{
    (void)s;
    if (n != 1 || ranks[0] != 0) return local_bad(err, "the one-process transport has only rank 0");
    *dom = NULL, *backend = "local";
    return 0;
}

static int local_win_alloc(void *s, void *dom, size_t bytes, void **win, void **bases, pto_error *err)
{
    (void)s, (void)dom;
    size_t n = (bytes + 63) & ~(size_t)63;
    void *m = aligned_alloc(64, n ? n : 64);
    if (!m) return rt_comm_error(err, PTO_OUT_OF_MEMORY, "FATAL: Out of Memory!", "no memory for a window", "free host memory");
    memset(m, 0, n ? n : 64);
    *win = bases[0] = m;
    return 0;
}

static int local_win_free(void *s, void *dom, void *win, pto_error *err)
{
    (void)s, (void)dom, (void)err;
    free(win);
    return 0;
}

static int local_barrier(void *s, void *dom, pto_error *err) { return (void)s, (void)dom, (void)err, 0; }

static int local_bcast(void *s, void *dom, void *buf, size_t bytes, int root, pto_error *err)
{
    return (void)s, (void)dom, (void)buf, (void)bytes, (void)err, root == 0 ? 0 : local_bad(err, "bcast from a rank that does not exist");
}

static int local_allreduce(void *s, void *dom, void *buf, size_t count, int dtype, int op, pto_error *err)
{
    return (void)s, (void)dom, (void)buf, (void)count, (void)dtype, (void)op, (void)err, 0;
}

static int local_allgather(void *s, void *dom, const void *send, void *recv, size_t bytes, pto_error *err)
{
    (void)s, (void)dom, (void)err;
    if (send != recv) memmove(recv, send, bytes);
    return 0;
}

/* One rank: every collective is done at once. */
static int local_coll_post(void *s, void *dom, const rt_comm_coll *c, void **req, pto_error *err)
{
    *req = NULL;
    switch (c->op) {
    case RT_CS_BROADCAST: return local_bcast(s, dom, c->data, c->bytes, c->root, err);
    case RT_CS_ALLGATHER:
    case RT_CS_ALL_TO_ALL: return local_allgather(s, dom, c->stage, c->data, c->bytes, err);
    default: return 0; /* barrier; a reduction of one rank's data is that data */
    }
}

static int local_coll_test(void *s, void *req, pto_defer_why why, pto_error *err) { return (void)s, (void)req, (void)why, (void)err, 1; }

static int local_agree(void *s, const char *const *items, int n, const char *call, pto_error *err)
{
    return (void)s, (void)items, (void)n, (void)call, (void)err, 0;
}

static void local_relay(void *s, const pto_error *e, int everywhere) { (void)s, (void)e, (void)everywhere; }

static int local_poll(void *s, pto_error *err) { return (void)s, (void)err, 0; }

static const rt_comm_ops local_ops = {
    .name = "local", .rank = 0, .size = 1,
    .domain = local_domain, .win_alloc = local_win_alloc, .win_free = local_win_free, .barrier = local_barrier,
    .bcast = local_bcast, .allreduce = local_allreduce, .allgather = local_allgather,
    .coll_post = local_coll_post, .coll_test = local_coll_test, .agree = local_agree,
    .relay = local_relay, .poll = local_poll,
};

/* ---- the registry ---- */

static _Atomic(const rt_comm_ops *) comm_ops;
static void *_Atomic comm_session;

void rt_comm_register(const rt_comm_ops *ops, void *session)
{
    atomic_store_explicit(&comm_session, ops ? session : NULL, memory_order_relaxed);
    atomic_store_explicit(&comm_ops, ops, memory_order_release);
}

const rt_comm_ops *rt_comm_transport(void **session)
{
    const rt_comm_ops *o = atomic_load_explicit(&comm_ops, memory_order_acquire);
    if (session) *session = o ? atomic_load_explicit(&comm_session, memory_order_relaxed) : NULL;
    return o ? o : &local_ops;
}

/* ---- the running call ---- */

void rt_comm_attach(pto_runtime *rt, const rt_comm_call *c) { rt->comm = c; }

const rt_comm_call *rt_comm_attached(const pto_runtime *rt) { return rt ? rt->comm : NULL; }

const rt_comm_buf *rt_comm_find(const rt_comm_call *c, const void *addr)
{
    for (uint32_t i = 0; c && i < c->nbufs; i++) {
        const rt_comm_buf *b = &c->bufs[i];
        const rt_comm_domain *d = &c->domains[b->domain];
        const char *lo = (const char *)d->bases[d->rank] + b->offset;
        if ((const char *)addr >= lo && (const char *)addr < lo + b->bytes) return b;
    }
    return NULL;
}

uint64_t rt_comm_progress(const pto_runtime *rt) { return rt_progress_total((pto_runtime *)rt); }

int rt_comm_latch(pto_runtime *rt, const pto_error *e) { return rt_error_latch(rt, e); }

int rt_comm_invalid(pto_runtime *rt, const char *call, const char *reason) { return rt_error_invalid(rt, call, reason); }

void *pto_comm_register_entry(void)
{
    void (*fn)(const rt_comm_ops *, void *) = rt_comm_register;
    void *p;
    _Static_assert(sizeof p == sizeof fn, "a function pointer fits a void *");
    memcpy(&p, &fn, sizeof p);
    return p;
}

void rt_comm_wait_enter(const pto_runtime *rt) { atomic_fetch_add(&((pto_runtime *)rt)->comm_waits, 1); }

void rt_comm_wait_leave(const pto_runtime *rt) { atomic_fetch_sub(&((pto_runtime *)rt)->comm_waits, 1); }

void rt_comm_block(const pto_runtime *rt, int on) { rt_spare_block((pto_runtime *)rt, on); }

static const char *comm_hint(int code)
{
    switch (code) {
    case PTO_REMOTE_FAILED: return "the cause is on the failing rank: read its message above";
    case PTO_RANKS_DIVERGED:
        return "every rank must make the same distributed calls in the same order with the same program, argument shapes, "
               "dtypes, scalar values and PTO_COMM_BACKEND; avoid rank-dependent control flow around them";
    case PTO_COMM_WAIT_TIMEOUT:
        return "a notify or collective partner never arrived: check peer, offsets, value and expected on both sides; raise "
               "stall_timeout_ms only if a peer is legitimately slow";
    case PTO_COMM_FAILED: return "the MPI session cannot be recovered: restart the job";
    default: return "no RunConfig field helps";
    }
}

int rt_comm_error(pto_error *err, int code, const char *header, const char *details, const char *hint)
{
    if (err) rt_error_format(err, code, -1, header, details, hint ? hint : comm_hint(code));
    return -code;
}

int rt_comm_fail_wait(const pto_runtime *crt, pto_task_id task, const char *detail)
{
    pto_runtime *rt = (pto_runtime *)crt;
    char header[96], id[32], v3[1024], details[2048];
    size_t n = 0;
    rt_format_id(task, id, sizeof id);
    snprintf(header, sizeof header, "FATAL: Communication Wait Timeout! task=%s", id);
    rt_diagnose_progress(rt, 0, v3, sizeof v3, &n); /* its second line, "progress: ..." */
    const char *line = strstr(v3, "progress: ");
    n = (size_t)snprintf(details, sizeof details, "%s\n%.*s", detail, line ? (int)strcspn(line, "\n") : 0, line ? line : "");
    if (atomic_load(&rt->spare_capped) && n < sizeof details) /* §3 row 4': a wait found no spare left */
        snprintf(details + n, sizeof details - n, "\nnote: %d blocking waits in progress; spare-thread cap PTO_MAX_SPARE_WAITERS=%d reached",
                 atomic_load(&rt->spare_blocked) + 1, PTO_MAX_SPARE_WAITERS); /* + 1: the caller, out of its wait */
    int rc = rt_error_fail(rt, PTO_COMM_WAIT_TIMEOUT, -1, header, details, comm_hint(PTO_COMM_WAIT_TIMEOUT));
    void *s;
    const rt_comm_ops *o = rt_comm_transport(&s);
    if (rc == -PTO_COMM_WAIT_TIMEOUT) o->relay(s, &rt->error, 0);
    return rc;
}
