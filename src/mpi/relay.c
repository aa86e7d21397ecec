/*
 * relay.c - failures and goodbyes between ranks, on the ctrl communicator
 * (DISTRIBUTED-SPEC §2.2 exit, §3 rows 1 and 3b).
 *
 * A record is a small header (type, origin rank, code, call number) and,
 * for ERROR, the origin's full message; it is sent with the message's own
 * length, so a short one travels eagerly.  One receive from any source is
 * always posted on ctrl; whoever holds the lock drains it (a wait's every
 * round, poll()).  The first ERROR latches REMOTE_FAILED; a BYE only marks
 * its peer gone, and a wait on a domain with that peer fails with the
 * "left the job" text once the peer has been gone for LEFT_GRACE_NS without
 * the wait completing (the peer may have contributed before leaving).
 * MPI orders records of one origin, so a failed rank's ERROR always lands
 * before its BYE.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mpi/mpi_int.h"

#include "base/clock.h"

enum { REC_ERROR = 1, REC_BYE = 2 };
enum { CTRL_TAG = 7 };
#define LEFT_GRACE_NS 1000000000ull
/* A poisoned exit waits this long for the peers' BYE (they are reporting). */
#define ABORT_WAIT_NS 2000000000ull

typedef struct ctrl_record {
    int32_t type, origin, code, pad;
    int64_t call_no;
    char message[]; /* ERROR: the origin's message, NUL-terminated */
} ctrl_record;

#define CTRL_BYTES (sizeof(ctrl_record) + PTO_ERROR_MESSAGE_MAX)

static int relay_post(mpi_session *s)
{
    return MPI_Irecv(s->ctrl_buf, (int)CTRL_BYTES, MPI_BYTE, MPI_ANY_SOURCE, CTRL_TAG, s->ctrl, &s->ctrl_req);
}

int mpi_relay_start(mpi_session *s, pto_error *err)
{
    int n = s->info.size;
    s->ctrl_buf = malloc(CTRL_BYTES);
    s->relay_buf = malloc(CTRL_BYTES);
    s->bye_ns = calloc((size_t)n, sizeof *s->bye_ns);
    s->relay_reqs = malloc((size_t)n * sizeof *s->relay_reqs);
    if (!s->ctrl_buf || !s->relay_buf || !s->bye_ns || !s->relay_reqs)
        return mpi_fail(s, err, PTO_OUT_OF_MEMORY, "FATAL: Out of Memory!", "the MPI session's ctrl buffers",
                        "free host memory");
    for (int i = 0; i < n; i++) s->relay_reqs[i] = MPI_REQUEST_NULL;
    int rc = relay_post(s);
    return rc == MPI_SUCCESS ? 0 : mpi_fail_rc(s, err, "MPI_Irecv", rc);
}

void mpi_relay_poison(mpi_session *s, int origin)
{
    if (atomic_load_explicit(&s->poisoned, memory_order_relaxed)) return;
    s->fail_rank = origin;
    s->fail_call_no = s->call_no;
    snprintf(s->fail_text, sizeof s->fail_text, "%s", s->call_text);
    atomic_store_explicit(&s->poisoned, 1, memory_order_release);
}

static void relay_latch(mpi_session *s, int origin, const char *details)
{
    if (atomic_load_explicit(&s->failed, memory_order_relaxed)) return;
    char hint[96];
    snprintf(hint, sizeof hint, "the cause is on rank %d: read its message above", origin);
    mpi_fail(s, &s->remote, PTO_REMOTE_FAILED, "FATAL: Remote Rank Failed!", details, hint);
    mpi_relay_poison(s, origin);
    atomic_store_explicit(&s->failed, 1, memory_order_release);
}

/* "rank <o> (device_ids[<o>]=<o>) failed:" then the origin's lines, indented. */
static void relay_latch_error(mpi_session *s, const ctrl_record *r, int bytes)
{
    static char details[PTO_ERROR_MESSAGE_MAX + 256];
    size_t len = (size_t)snprintf(details, sizeof details, "rank %d (device_ids[%d]=%d) failed:", r->origin,
                                  r->origin, r->origin);
    int text = bytes - (int)sizeof *r;
    for (const char *p = r->message; text > 0 && *p && len < sizeof details;) {
        const char *nl = memchr(p, '\n', (size_t)text);
        int n = nl ? (int)(nl - p) : (int)strnlen(p, (size_t)text);
        len += (size_t)snprintf(details + len, sizeof details - len, "\n  %.*s", n, p);
        text -= n + (nl ? 1 : 0);
        p += n + (nl ? 1 : 0);
    }
    relay_latch(s, r->origin, details);
}

void mpi_relay_drain(mpi_session *s)
{
    while (s->ctrl_req != MPI_REQUEST_NULL) {
        int flag = 0, bytes = 0;
        MPI_Status st;
        if (MPI_Test(&s->ctrl_req, &flag, &st) != MPI_SUCCESS || !flag) return;
        MPI_Get_count(&st, MPI_BYTE, &bytes);
        const ctrl_record *r = (const ctrl_record *)s->ctrl_buf;
        if (bytes >= (int)sizeof *r && r->type == REC_ERROR) relay_latch_error(s, r, bytes);
        else if (bytes >= (int)sizeof *r && r->type == REC_BYE && !s->bye_ns[st.MPI_SOURCE]) {
            s->bye_ns[st.MPI_SOURCE] = base_now_ns();
            s->byes++;
        }
        if (relay_post(s) != MPI_SUCCESS) s->ctrl_req = MPI_REQUEST_NULL;
    }
}

int mpi_relay_check_left(mpi_session *s, const mpi_domain *dom)
{
    uint64_t now = base_now_ns();
    for (int i = 0; i < dom->n; i++) {
        int p = dom->ranks[i];
        if (p == s->info.rank || !s->bye_ns[p] || now - s->bye_ns[p] < LEFT_GRACE_NS) continue;
        char details[320];
        snprintf(details, sizeof details, "rank %d left the job (its script ended) during %s", p, s->call_text);
        relay_latch(s, p, details);
        return -PTO_REMOTE_FAILED;
    }
    return 0;
}

/* Under the lock: poisons the session and, unless every rank finds e itself, tells every peer (once). */
static void relay_locked(mpi_session *s, const pto_error *e, int everywhere)
{
    mpi_relay_poison(s, s->info.rank);
    /* A REMOTE_FAILED came from a peer that already told everyone; every rank finds a
     * RANKS_DIVERGED itself (the check is collective) and reports it as its own (§3 row 3a). */
    if (!everywhere && e->code != PTO_REMOTE_FAILED && e->code != PTO_RANKS_DIVERGED && !s->relayed) {
        s->relayed = 1;
        ctrl_record *r = (ctrl_record *)s->relay_buf;
        size_t len = strnlen(e->message, sizeof e->message - 1);
        *r = (ctrl_record){.type = REC_ERROR, .origin = s->info.rank, .code = e->code, .call_no = s->call_no};
        memcpy(r->message, e->message, len);
        r->message[len] = 0;
        for (int p = 0; p < s->info.size; p++)
            if (p != s->info.rank)
                MPI_Isend(r, (int)(sizeof *r + len + 1), MPI_BYTE, p, CTRL_TAG, s->ctrl, &s->relay_reqs[p]);
    }
}

void mpi_relay_locked(mpi_session *s, const pto_error *e) { relay_locked(s, e, 0); }

void mpi_relay(void *sv, const pto_error *e, int everywhere)
{
    mpi_session *s = sv;
    if (atomic_load_explicit(&s->ended, memory_order_acquire)) return;
    mpi_lock(s);
    relay_locked(s, e, everywhere);
    mpi_unlock(s);
}

int mpi_poll(void *sv, pto_error *err)
{
    mpi_session *s = sv;
    if (pthread_mutex_trylock(&s->lock) == 0) {
        mpi_relay_drain(s);
        mpi_unlock(s);
    }
    if (!atomic_load_explicit(&s->failed, memory_order_acquire)) return 0;
    if (err) *err = s->remote;
    return -PTO_REMOTE_FAILED;
}

int mpi_relay_goodbye(mpi_session *s)
{
    int n = s->info.size, poisoned = atomic_load(&s->poisoned);
    ctrl_record bye = {.type = REC_BYE, .origin = s->info.rank, .call_no = s->call_no};
    MPI_Request *reqs = malloc((size_t)n * sizeof *reqs);
    if (!reqs) return -1;
    uint64_t deadline = base_now_ns() + (poisoned ? ABORT_WAIT_NS : s->entry_timeout_ns);
    mpi_lock(s);
    for (int p = 0; p < n; p++) {
        reqs[p] = MPI_REQUEST_NULL;
        if (p != s->info.rank) MPI_Isend(&bye, (int)sizeof bye, MPI_BYTE, p, CTRL_TAG, s->ctrl, &reqs[p]);
    }
    mpi_unlock(s);
    int sent = 0;
    for (;;) {
        mpi_lock(s);
        mpi_relay_drain(s);
        if (!sent) MPI_Testall(n, reqs, &sent, MPI_STATUSES_IGNORE);
        int all = s->byes == n - 1;
        mpi_unlock(s);
        if ((all && sent) || base_now_ns() >= deadline) break;
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
    free(reqs);
    /* A failure reported while saying goodbye ends the job as one before it. */
    return sent && s->byes == n - 1 && !atomic_load(&s->poisoned) ? 0 : -1;
}
