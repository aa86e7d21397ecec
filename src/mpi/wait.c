/*
 * wait.c - the session lock, the bounded wait every collective completes
 * with, and the shape of libpto_mpi's messages.
 *
 * A wait never holds the lock while it sleeps: each round takes it, tests
 * the requests (MPI_Testall), serves am messages, drains ctrl, and drops it; then it
 * pauses as the blocking-op backoff says (base/backoff.h, §2.5), so other
 * threads' MPI calls and comm progress get in between.  Every round checks
 * the failure latch, the peers that left, and the deadline.
 */
#include <stdio.h>
#include <string.h>

#include "mpi/mpi_int.h"

#include "base/backoff.h"
#include "base/clock.h"
#include "runtime/error.h"

void mpi_lock(mpi_session *s) { pthread_mutex_lock(&s->lock); }
void mpi_unlock(mpi_session *s) { pthread_mutex_unlock(&s->lock); }

uint64_t mpi_deadline(const mpi_session *s) { return base_now_ns() + s->entry_timeout_ns; }

int mpi_test_round(mpi_session *s, const mpi_domain *dom, MPI_Request *reqs, int n, int expired, pto_error *err)
{
    int done = 0, left = 0;
    mpi_lock(s);
    int rc = MPI_Testall(n, reqs, &done, MPI_STATUSES_IGNORE);
    mpi_am_progress_locked(s); /* a peer's kernel may wait for this rank's answer */
    mpi_relay_drain(s);
    if (rc == MPI_SUCCESS && !done) left = mpi_relay_check_left(s, dom);
    int timeout = rc == MPI_SUCCESS && !done && expired;
    if (rc != MPI_SUCCESS || timeout) mpi_relay_poison(s, s->info.rank);
    mpi_unlock(s);
    if (rc != MPI_SUCCESS) return mpi_fail_rc(s, err, "MPI_Testall", rc);
    if (done) return 1;
    if (left || atomic_load_explicit(&s->failed, memory_order_acquire)) {
        rc = mpi_poll(s, err);
        return rc ? rc : 1;
    }
    return timeout ? -PTO_COMM_WAIT_TIMEOUT : 0;
}

int mpi_wait(mpi_session *s, const mpi_domain *dom, MPI_Request *reqs, int n, uint64_t deadline_ns,
             pto_error *err)
{
    base_backoff b = base_backoff_begin();
    for (;;) {
        uint64_t now = base_now_ns();
        int rc = mpi_test_round(s, dom, reqs, n, now >= deadline_ns, err);
        if (rc) return rc == 1 ? 0 : rc;
        base_backoff_pause(&b, now);
    }
}

int mpi_fail(const mpi_session *s, pto_error *err, int code, const char *header, const char *details,
             const char *hint)
{
    char h[1024];
    snprintf(h, sizeof h, "%s [rank %d of %d]", header, s->info.rank, s->info.size);
    rt_error_format(err, code, -1, h, details, hint);
    return -code;
}

/* The MPI error classes by name, for "<fn> returned <class>: <text>". */
#define MPI_CLASS_LIST(X)                                                                               \
    X(MPI_ERR_BUFFER) X(MPI_ERR_COUNT) X(MPI_ERR_TYPE) X(MPI_ERR_TAG) X(MPI_ERR_COMM) X(MPI_ERR_RANK)   \
    X(MPI_ERR_REQUEST) X(MPI_ERR_ROOT) X(MPI_ERR_GROUP) X(MPI_ERR_OP) X(MPI_ERR_ARG) X(MPI_ERR_UNKNOWN) \
    X(MPI_ERR_TRUNCATE) X(MPI_ERR_OTHER) X(MPI_ERR_INTERN) X(MPI_ERR_IN_STATUS) X(MPI_ERR_PENDING)      \
    X(MPI_ERR_NO_MEM) X(MPI_ERR_WIN) X(MPI_ERR_SIZE) X(MPI_ERR_DISP) X(MPI_ERR_INFO) X(MPI_ERR_RMA_SHARED)

static const char *mpi_class_name(int cls)
{
#define MPI_CLASS_CASE_(c) if (cls == c) return #c;
    MPI_CLASS_LIST(MPI_CLASS_CASE_)
#undef MPI_CLASS_CASE_
    return NULL;
}

int mpi_fail_rc(const mpi_session *s, pto_error *err, const char *fn, int rc)
{
    int cls = rc, len = 0;
    char text[MPI_MAX_ERROR_STRING] = "", name[32], details[MPI_MAX_ERROR_STRING + 128];
    MPI_Error_class(rc, &cls);
    MPI_Error_string(rc, text, &len);
    const char *known = mpi_class_name(cls);
    if (known) snprintf(name, sizeof name, "%s", known);
    else snprintf(name, sizeof name, "error class %d", cls);
    snprintf(details, sizeof details, "%s returned %s: %s", fn, name, text);
    return mpi_fail(s, err, PTO_COMM_FAILED, "FATAL: Communication Failed!", details,
                    "the MPI session cannot be recovered: restart the job");
}

int mpi_check_usable(const mpi_session *s, pto_error *err)
{
    if (atomic_load_explicit(&((mpi_session *)s)->ended, memory_order_acquire))
        return mpi_fail(s, err, PTO_COMM_FAILED, "FATAL: Communication Failed!",
                        "the MPI session has ended (process exit or pto_dist_detach)",
                        "the MPI session cannot be recovered: restart the job");
    if (!atomic_load_explicit(&((mpi_session *)s)->poisoned, memory_order_acquire)) return 0;
    if (atomic_load_explicit(&((mpi_session *)s)->failed, memory_order_acquire) && s->fail_call_no == s->call_no) {
        if (err) *err = s->remote;
        return -PTO_REMOTE_FAILED;
    }
    char details[512];
    snprintf(details, sizeof details,
             "distributed session unusable after the failure on rank %d in %s; restart the job", s->fail_rank,
             s->fail_text);
    return mpi_fail(s, err, PTO_COMM_FAILED, "FATAL: Communication Failed!", details,
                    "the MPI session cannot be recovered: restart the job");
}

int mpi_fail_entry_timeout(const mpi_session *s, pto_error *err)
{
    char details[320];
    snprintf(details, sizeof details, "ranks did not all reach %s within %g s (PTO_DIST_ENTRY_TIMEOUT_S)", s->call_text,
             (double)s->entry_timeout_ns * 1e-9);
    return mpi_fail(s, err, PTO_COMM_WAIT_TIMEOUT, "FATAL: Communication Wait Timeout! task=-", details,
                    "a notify or collective partner never arrived: check peer, offsets, value and expected on both "
                    "sides; raise stall_timeout_ms only if a peer is legitimately slow");
}

void mpi_format_ranks(const mpi_domain *dom, char *out, size_t n)
{
    size_t len = 0;
    out[0] = 0;
    len += (size_t)snprintf(out, n, "[");
    for (int i = 0; i < dom->n && len < n; i++)
        len += (size_t)snprintf(out + len, n - len, "%s%d", i ? ", " : "", dom->ranks[i]);
    if (len < n) snprintf(out + len, n - len, "]");
}

int mpi_fail_timeout(const mpi_session *s, pto_error *err, const char *op, const mpi_domain *dom,
                     uint64_t start_ns)
{
    char ranks[256], details[512];
    mpi_format_ranks(dom, ranks, sizeof ranks);
    snprintf(details, sizeof details, "%s on domain %s (call #%ld) not complete after %llu ms", op, ranks,
             s->call_no, (unsigned long long)((base_now_ns() - start_ns) / 1000000u));
    return mpi_fail(s, err, PTO_COMM_WAIT_TIMEOUT, "FATAL: Communication Wait Timeout! task=-", details,
                    "a notify or collective partner never arrived: check peer, offsets, value and expected on "
                    "both sides; raise stall_timeout_ms only if a peer is legitimately slow");
}
