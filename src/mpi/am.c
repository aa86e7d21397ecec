/*
 * am.c - the am backend (DISTRIBUTED-SPEC §2.3, §2.4): a window is
 * ordinary memory of each rank; a kernel reaches a peer's copy by active
 * messages over two-sided MPI on the domain's communicator, applied by
 * whichever thread of the target runs comm progress.
 *
 * Invariants:
 *  - PUT, ACC, NOTIFY and GET travel on one tag, so MPI's non-overtaking
 *    rule keeps them in send order per (origin, target) and communicator;
 *    the target takes them strictly in arrival order (MPI_Improbe, then
 *    MPI_Mrecv), so that order is the one they are applied in.  ACK and
 *    REPLY use the second tag.
 *  - Every PUT, ACC and NOTIFY is acknowledged once applied.  A thread's
 *    record counts its unacknowledged ones per target; a notify waits until
 *    only those to its own target on its own communicator are left (they
 *    are ahead of it on that channel: O1), and a kernel ends after all are
 *    acknowledged (O4), so no message is in flight when a window is freed.
 *  - A GET is synchronous per thread: the record holds the one request in
 *    flight (id and staging buffer, set under the lock before the send); a
 *    REPLY for another id is dropped.
 *  - The records outlive every message naming them: a thread's record is
 *    freed at the thread's exit only when nothing of it is outstanding.
 *  - MPI is entered only under the session lock, and only by nonblocking
 *    calls; sent buffers are owned by the pending list until their send
 *    completes.  A progress thread serves targets whose threads are all
 *    busy or asleep while an am window exists.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mpi/mpi_int.h"

#include "base/clock.h"
#include "tile/dist_ops.h"

enum { AM_TAG_REQ = 21, AM_TAG_RSP = 22 };
enum { AM_PUT, AM_ACC, AM_NOTIFY, AM_GET, AM_ACK, AM_REPLY };
enum { AM_MAX_OUTSTANDING = 4096 }; /* a thread's unacknowledged writes before it waits */
enum { AM_IDLE_SLEEP_MIN_NS = 50000, AM_IDLE_SLEEP_MAX_NS = 200000, AM_BUSY_NS = 1000000 }; /* the progress thread's pace */

typedef struct am_hdr {
    uint32_t kind;
    int32_t origin;   /* world rank of the sender */
    int32_t value, set;
    uint64_t cookie;  /* the origin thread's record (echoed by ACK and REPLY) */
    uint64_t req;     /* GET / REPLY */
    tile_dist_ref ref;
} am_hdr;

struct am_thread {
    _Atomic int32_t total;    /* unacknowledged PUT, ACC, NOTIFY */
    _Atomic int32_t *to;      /* [world size]: of them, to each world rank */
    MPI_Comm *comm;           /* [world size]: the communicator they went on */
    uint64_t req;             /* the GET in flight (under the lock) */
    _Atomic int replied;
    char *reply;
    size_t reply_cap;
};

struct am_send {
    MPI_Request req;
    void *buf;
};

static pthread_key_t am_key;
static pthread_once_t am_key_once = PTHREAD_ONCE_INIT;
static _Thread_local am_thread *am_self;

static void am_thread_free(void *p)
{
    am_thread *t = p;
    if (atomic_load(&t->total) != 0) return; /* a late ACK may still name it */
    free(t->to);
    free(t->comm);
    free(t->reply);
    free(t);
}

static void am_key_make(void) { pthread_key_create(&am_key, am_thread_free); }

static am_thread *am_me(mpi_session *s)
{
    if (am_self) return am_self;
    pthread_once(&am_key_once, am_key_make);
    am_thread *t = calloc(1, sizeof *t);
    if (t) t->to = calloc((size_t)s->info.size, sizeof *t->to), t->comm = calloc((size_t)s->info.size, sizeof *t->comm);
    if (!t || !t->to || !t->comm) {
        if (t) free(t->to), free(t->comm), free(t);
        return NULL;
    }
    pthread_setspecific(am_key, t);
    return am_self = t;
}

/* ---- sending (under the lock) ---- */

/* Sends buf (malloc'd; the pending list owns it from here, also on failure) to rank peer of comm. */
static int am_post(mpi_session *s, MPI_Comm comm, int peer, int tag, void *buf, size_t bytes)
{
    if (s->am_nsends == s->am_sends_cap) {
        int cap = s->am_sends_cap ? 2 * s->am_sends_cap : 64;
        am_send *n = realloc(s->am_sends, (size_t)cap * sizeof *n);
        if (!n) return free(buf), MPI_ERR_NO_MEM;
        s->am_sends = n, s->am_sends_cap = cap;
    }
    am_send *q = &s->am_sends[s->am_nsends];
    int rc = MPI_Isend(buf, (int)bytes, MPI_BYTE, peer, tag, comm, &q->req);
    if (rc != MPI_SUCCESS) return free(buf), rc;
    q->buf = buf;
    s->am_nsends++;
    return MPI_SUCCESS;
}

/* Completed sends give back their buffers; returns how many. */
static int am_reap(mpi_session *s)
{
    int n = 0;
    for (int i = 0; i < s->am_nsends;) {
        int done = 0;
        MPI_Test(&s->am_sends[i].req, &done, MPI_STATUS_IGNORE);
        if (!done) {
            i++;
            continue;
        }
        free(s->am_sends[i].buf);
        s->am_sends[i] = s->am_sends[--s->am_nsends];
        n++;
    }
    return n;
}

static am_hdr *am_new(size_t payload, uint32_t kind, int origin)
{
    am_hdr *h = payload <= SIZE_MAX - sizeof *h ? calloc(1, sizeof *h + payload) : NULL;
    if (h) h->kind = kind, h->origin = origin;
    return h;
}

/* ---- the target's side (under the lock) ---- */

/* A message the target cannot apply: the origin and this rank fail with COMM_FAILED. */
static void am_refuse(mpi_session *s, const mpi_domain *d, int src, const char *why)
{
    char details[512];
    pto_error e;
    snprintf(details, sizeof details, "an am message from domain rank %d (world rank %d) cannot be applied: %s", src, d->ranks[src], why);
    mpi_fail(s, &e, PTO_COMM_FAILED, "FATAL: Communication Failed!", details, "the MPI session cannot be recovered: restart the job");
    mpi_relay_locked(s, &e);
}

static void am_answer(mpi_session *s, const mpi_domain *d, int src, const am_hdr *in, uint32_t kind, size_t payload, am_hdr **out)
{
    am_hdr *h = am_new(payload, kind, s->info.rank);
    *out = h;
    if (!h) return am_refuse(s, d, src, "no memory for the answer");
    h->cookie = in->cookie, h->req = in->req;
}

static void am_handle_req(mpi_session *s, mpi_domain *d, int src, am_hdr *h, size_t n)
{
    char why[256];
    am_hdr *ans = NULL;
    size_t bytes = 0;
    if (h->kind == AM_NOTIFY) {
        if (h->ref.offset % 4 || h->ref.offset + 4 > d->am_bytes) {
            snprintf(why, sizeof why, "a notify of byte %llu of a %zu-byte window", (unsigned long long)h->ref.offset, d->am_bytes);
            return am_refuse(s, d, src, why);
        }
        tile_dist_notify((int32_t *)(d->am_base + h->ref.offset), h->value, h->set);
        am_answer(s, d, src, h, AM_ACK, 0, &ans);
    } else if (h->kind == AM_PUT || h->kind == AM_ACC) {
        if (tile_dist_apply(d->am_base, d->am_bytes, &h->ref, h + 1, 1, h->kind == AM_ACC, why, sizeof why)) return am_refuse(s, d, src, why);
        am_answer(s, d, src, h, AM_ACK, 0, &ans);
    } else if (h->kind == AM_GET) {
        bytes = tile_dist_ref_bytes(&h->ref);
        am_answer(s, d, src, h, AM_REPLY, bytes, &ans);
        if (ans && tile_dist_apply(d->am_base, d->am_bytes, &h->ref, ans + 1, 0, 0, why, sizeof why)) {
            free(ans);
            return am_refuse(s, d, src, why);
        }
    } else {
        snprintf(why, sizeof why, "kind %u, %zu bytes", h->kind, n);
        return am_refuse(s, d, src, why);
    }
    if (ans && am_post(s, d->comm, src, AM_TAG_RSP, ans, sizeof *ans + bytes) != MPI_SUCCESS) am_refuse(s, d, src, "its answer could not be sent");
}

static void am_handle_rsp(am_hdr *h, size_t n)
{
    am_thread *t = (am_thread *)(uintptr_t)h->cookie;
    if (h->kind == AM_ACK) {
        atomic_fetch_sub(&t->to[h->origin], 1);
        atomic_fetch_sub(&t->total, 1);
    } else if (h->kind == AM_REPLY && h->req == t->req && n - sizeof *h <= t->reply_cap) {
        memcpy(t->reply, h + 1, n - sizeof *h);
        atomic_store_explicit(&t->replied, 1, memory_order_release);
    }
}

/* Takes every message of tag that arrived on d; returns how many. */
static int am_drain(mpi_session *s, mpi_domain *d, int tag)
{
    int got = 0;
    for (;;) {
        int flag = 0, count = 0;
        MPI_Message msg;
        MPI_Status st;
        if (MPI_Improbe(MPI_ANY_SOURCE, tag, d->comm, &flag, &msg, &st) != MPI_SUCCESS || !flag) return got;
        MPI_Get_count(&st, MPI_BYTE, &count);
        if ((size_t)count > s->am_rcap) {
            char *b = realloc(s->am_rbuf, (size_t)count);
            if (!b) {
                MPI_Mrecv(NULL, 0, MPI_BYTE, &msg, MPI_STATUS_IGNORE); /* truncated: refused below */
                am_refuse(s, d, st.MPI_SOURCE, "no memory to receive it");
                return got;
            }
            s->am_rbuf = b, s->am_rcap = (size_t)count;
        }
        MPI_Mrecv(s->am_rbuf, count, MPI_BYTE, &msg, MPI_STATUS_IGNORE);
        got++;
        atomic_fetch_add_explicit(&s->am_handled, 1, memory_order_relaxed);
        if ((size_t)count < sizeof(am_hdr)) {
            am_refuse(s, d, st.MPI_SOURCE, "shorter than its header");
            continue;
        }
        if (tag == AM_TAG_REQ) am_handle_req(s, d, st.MPI_SOURCE, (am_hdr *)s->am_rbuf, (size_t)count);
        else am_handle_rsp((am_hdr *)s->am_rbuf, (size_t)count);
    }
}

/* Completes sends, applies what arrived (under the lock); returns how much happened. */
static int am_run(mpi_session *s)
{
    int n = s->am_nsends ? am_reap(s) : 0;
    if (!atomic_load_explicit(&s->am_live, memory_order_acquire)) return n;
    mpi_domain *d = &s->world_domain;
    for (mpi_domain *next = s->domains; d; d = next, next = next ? next->next : NULL) {
        if (!d->am_base) continue;
        n += am_drain(s, d, AM_TAG_REQ);
        n += am_drain(s, d, AM_TAG_RSP);
    }
    return n;
}

int mpi_am_progress_locked(mpi_session *s)
{
    atomic_store_explicit(&s->am_polled_ns, base_now_ns(), memory_order_relaxed); /* the progress thread stands back */
    return am_run(s);
}

static uint64_t am_progress(void *sv)
{
    mpi_session *s = sv;
    if (atomic_load_explicit(&s->am_live, memory_order_acquire) && pthread_mutex_trylock(&s->lock) == 0) {
        mpi_am_progress_locked(s);
        mpi_unlock(s);
    }
    return atomic_load_explicit(&s->am_handled, memory_order_relaxed);
}

/* ---- the progress thread: serves the rank while an am window exists ---- */

/* Runs progress only when no other thread did for AM_IDLE_SLEEP_MIN_NS (a waiting kernel
 * polls faster than it could, and sharing the lock with it would slow both).  For
 * AM_BUSY_NS after a message it yields between looks (the next request of an exchange
 * usually follows within it); otherwise it sleeps from AM_IDLE_SLEEP_MIN_NS doubling to
 * AM_IDLE_SLEEP_MAX_NS. */
static void *am_progress_main(void *arg)
{
    mpi_session *s = arg;
    uint64_t sleep_ns = AM_IDLE_SLEEP_MIN_NS, busy_until = 0;
    pthread_mutex_lock(&s->am_park);
    for (;;) {
        while (!s->am_stop && !atomic_load(&s->am_live)) pthread_cond_wait(&s->am_wake, &s->am_park);
        if (s->am_stop) break;
        pthread_mutex_unlock(&s->am_park);
        uint64_t now = base_now_ns();
        int act = 0, idle = now - atomic_load_explicit(&s->am_polled_ns, memory_order_relaxed) >= AM_IDLE_SLEEP_MIN_NS;
        if (idle && pthread_mutex_trylock(&s->lock) == 0) {
            act = am_run(s);
            mpi_relay_drain(s);
            mpi_unlock(s);
        }
        if (act) busy_until = now + AM_BUSY_NS;
        if (now < busy_until) {
            sched_yield();
        } else {
            sleep_ns = !idle ? AM_IDLE_SLEEP_MIN_NS : sleep_ns * 2 > AM_IDLE_SLEEP_MAX_NS ? AM_IDLE_SLEEP_MAX_NS : sleep_ns * 2;
            struct timespec ts = {0, (long)sleep_ns};
            while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {}
        }
        pthread_mutex_lock(&s->am_park);
    }
    pthread_mutex_unlock(&s->am_park);
    return NULL;
}

void mpi_am_init(mpi_session *s)
{
    pthread_mutex_init(&s->am_park, NULL);
    pthread_cond_init(&s->am_wake, NULL);
}

void mpi_am_fini(mpi_session *s)
{
    if (s->am_thread_on) {
        pthread_mutex_lock(&s->am_park);
        s->am_stop = 1;
        pthread_cond_signal(&s->am_wake);
        pthread_mutex_unlock(&s->am_park);
        pthread_join(s->am_thread, NULL);
        s->am_thread_on = 0;
    }
    for (int i = 0; i < s->am_nsends; i++) {
        MPI_Cancel(&s->am_sends[i].req);
        MPI_Request_free(&s->am_sends[i].req);
        free(s->am_sends[i].buf);
    }
    free(s->am_sends);
    free(s->am_rbuf);
    s->am_sends = NULL, s->am_nsends = s->am_sends_cap = 0;
    s->am_rbuf = NULL, s->am_rcap = 0;
}

/* ---- windows ---- */

int mpi_am_win_alloc(mpi_session *s, mpi_domain *d, size_t bytes, void **win, void **bases, pto_error *err)
{
    size_t n = (bytes + 63) & ~(size_t)63;
    char *m = aligned_alloc(64, n ? n : 64);
    if (!m) return mpi_fail(s, err, PTO_OUT_OF_MEMORY, "FATAL: Out of Memory!", "no memory for an am window", "free host memory");
    memset(m, 0, n ? n : 64);
    int me = 0;
    mpi_lock(s);
    MPI_Comm_rank(d->comm, &me);
    d->am_base = m, d->am_bytes = bytes;
    atomic_fetch_add_explicit(&s->am_live, 1, memory_order_release);
    mpi_unlock(s);
    for (int i = 0; i < d->n; i++) bases[i] = i == me ? m : NULL;
    pthread_mutex_lock(&s->am_park);
    if (!s->am_thread_on) s->am_thread_on = pthread_create(&s->am_thread, NULL, am_progress_main, s) == 0;
    pthread_cond_signal(&s->am_wake);
    pthread_mutex_unlock(&s->am_park);
    *win = m;
    return mpi_barrier(s, d == &s->world_domain ? NULL : d, err);
}

int mpi_am_win_free(mpi_session *s, mpi_domain *d, void *win, pto_error *err)
{
    int rc = mpi_barrier(s, d == &s->world_domain ? NULL : d, err);
    if (rc < 0) return rc; /* a peer may still send to it: kept (the session is poisoned) */
    mpi_lock(s);
    d->am_base = NULL, d->am_bytes = 0;
    atomic_fetch_sub_explicit(&s->am_live, 1, memory_order_release);
    mpi_unlock(s);
    free(win);
    return 0;
}

/* ---- the origin's side: what kernels call (tile_dist_remote) ---- */

typedef struct am_wait {
    mpi_session *s;
    tile_dist_wait *outer;
    am_thread *t;
    int peer;       /* world rank */
    MPI_Comm comm;
} am_wait;

static int am_wait_stop(void *arg)
{
    const am_wait *w = arg;
    return atomic_load_explicit(&w->s->poisoned, memory_order_acquire) || (w->outer->stop && w->outer->stop(w->outer->arg));
}

static uint64_t am_wait_progress(void *arg)
{
    const am_wait *w = arg;
    uint64_t handled = am_progress(w->s);
    return handled + (w->outer->progress ? w->outer->progress(w->outer->arg) : 0);
}

static void am_wait_block(void *arg, int on)
{
    const am_wait *w = arg;
    w->outer->block(w->outer->arg, on);
}

/* Waits (outer's bound, its spare handoff) until done; observed: what is still outstanding. */
static int am_await(am_wait *w, int (*done)(void *, int32_t *))
{
    tile_dist_wait in = *w->outer;
    in.stop = am_wait_stop, in.progress = am_wait_progress, in.block = w->outer->block ? am_wait_block : NULL, in.arg = w;
    int rc = tile_dist_wait_until(done, w, &in);
    w->outer->observed = in.observed, w->outer->unchanged_ms = in.unchanged_ms;
    return rc;
}

static int am_all_acked(void *arg, int32_t *observed)
{
    const am_wait *w = arg;
    return (*observed = atomic_load(&w->t->total)) == 0;
}

/* Only writes to peer on comm are left: they travel ahead of the next message to it. */
static int am_others_acked(void *arg, int32_t *observed)
{
    const am_wait *w = arg;
    int32_t same = w->t->comm[w->peer] == w->comm ? atomic_load(&w->t->to[w->peer]) : 0;
    return (*observed = atomic_load(&w->t->total) - same) == 0;
}

static int am_below_limit(void *arg, int32_t *observed)
{
    const am_wait *w = arg;
    return (*observed = atomic_load(&w->t->total)) < AM_MAX_OUTSTANDING;
}

static int am_got_reply(void *arg, int32_t *observed)
{
    const am_wait *w = arg;
    int r = atomic_load_explicit(&w->t->replied, memory_order_acquire);
    *observed = !r;
    return r;
}

static int am_no_memory(char *msg, size_t cap)
{
    snprintf(msg, cap, "the am transport is out of memory");
    return -1;
}

static int am_mpi_error(mpi_session *s, int rc, const char *fn, char *msg, size_t cap)
{
    pto_error e;
    mpi_fail_rc(s, &e, fn, rc);
    snprintf(msg, cap, "%s", e.message);
    return -1;
}

/* Sends a counted write h (PUT, ACC or NOTIFY; sizeof *h + payload bytes) to domain rank peer of d. */
static int am_write(mpi_session *s, mpi_domain *d, int peer, am_hdr *h, size_t payload, tile_dist_wait *wt, char *msg, size_t cap)
{
    am_thread *t = am_me(s);
    if (!t) return free(h), am_no_memory(msg, cap);
    am_wait w = {s, wt, t, d->ranks[peer], d->comm};
    int rc = 0;
    if (atomic_load(&t->total) >= AM_MAX_OUTSTANDING) rc = am_await(&w, am_below_limit);
    if (!rc && h->kind == AM_NOTIFY) rc = am_await(&w, am_others_acked);
    else if (!rc && atomic_load(&t->to[w.peer]) && t->comm[w.peer] != d->comm) rc = am_await(&w, am_others_acked);
    if (rc) return free(h), rc;
    h->cookie = (uint64_t)(uintptr_t)t;
    mpi_lock(s);
    atomic_fetch_add(&t->to[w.peer], 1);
    atomic_fetch_add(&t->total, 1);
    t->comm[w.peer] = d->comm;
    rc = am_post(s, d->comm, peer, AM_TAG_REQ, h, sizeof *h + payload);
    if (rc != MPI_SUCCESS) atomic_fetch_sub(&t->to[w.peer], 1), atomic_fetch_sub(&t->total, 1);
    mpi_unlock(s);
    return rc == MPI_SUCCESS ? 0 : am_mpi_error(s, rc, "MPI_Isend", msg, cap);
}

static int am_put(void *sv, void *dom, int peer, const tile_dist_ref *dst, const void *data, int atomic, tile_dist_wait *wt, char *msg,
                  size_t cap)
{
    mpi_session *s = sv;
    size_t bytes = tile_dist_ref_bytes(dst);
    am_hdr *h = am_new(bytes, atomic ? AM_ACC : AM_PUT, s->info.rank);
    if (!h) return am_no_memory(msg, cap);
    h->ref = *dst;
    memcpy(h + 1, data, bytes);
    return am_write(s, mpi_domain_of(s, dom), peer, h, bytes, wt, msg, cap);
}

static int am_notify(void *sv, void *dom, int peer, uint64_t offset, int32_t v, int set, tile_dist_wait *wt, char *msg, size_t cap)
{
    mpi_session *s = sv;
    am_hdr *h = am_new(0, AM_NOTIFY, s->info.rank);
    if (!h) return am_no_memory(msg, cap);
    h->ref.offset = offset, h->value = v, h->set = set;
    return am_write(s, mpi_domain_of(s, dom), peer, h, 0, wt, msg, cap);
}

static int am_get(void *sv, void *dom, int peer, const tile_dist_ref *src, void *data, tile_dist_wait *wt, char *msg, size_t cap)
{
    mpi_session *s = sv;
    mpi_domain *d = mpi_domain_of(s, dom);
    am_thread *t = am_me(s);
    size_t bytes = tile_dist_ref_bytes(src);
    am_hdr *h = t ? am_new(0, AM_GET, s->info.rank) : NULL;
    if (!h) return am_no_memory(msg, cap);
    h->ref = *src, h->cookie = (uint64_t)(uintptr_t)t;
    mpi_lock(s);
    if (bytes > t->reply_cap) {
        char *b = realloc(t->reply, bytes);
        if (!b) return mpi_unlock(s), free(h), am_no_memory(msg, cap);
        t->reply = b, t->reply_cap = bytes;
    }
    h->req = t->req = ++s->am_req;
    atomic_store(&t->replied, 0);
    int rc = am_post(s, d->comm, peer, AM_TAG_REQ, h, sizeof *h);
    mpi_unlock(s);
    if (rc != MPI_SUCCESS) return am_mpi_error(s, rc, "MPI_Isend", msg, cap);
    am_wait w = {s, wt, t, d->ranks[peer], d->comm};
    rc = am_await(&w, am_got_reply);
    if (rc == 0) memcpy(data, t->reply, bytes);
    return rc;
}

static int am_quiet(void *sv, tile_dist_wait *wt, char *msg, size_t cap)
{
    mpi_session *s = sv;
    am_thread *t = am_me(s);
    if (!t) return am_no_memory(msg, cap);
    am_wait w = {s, wt, t, 0, MPI_COMM_NULL};
    return atomic_load(&t->total) ? am_await(&w, am_all_acked) : 0;
}

const tile_dist_remote mpi_am_remote = {am_put, am_get, am_notify, am_quiet, am_progress};
