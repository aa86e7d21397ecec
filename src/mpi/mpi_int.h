/*
 * mpi_int.h - libpto_mpi's internals: the session (one per process), its
 * domains and the helpers every file of src/mpi uses.
 *
 * Invariants:
 *  - Every MPI call runs under mpi_lock (MPI_THREAD_SERIALIZED), and every
 *    one a peer can delay is nonblocking inside it, completed by mpi_wait,
 *    which drops the lock between tests; only session start and end, domain
 *    creation and window allocation block inside the lock, on the
 *    orchestrator while no task of the call exists.
 *  - The failure latch (failed, remote) is written once, under the lock,
 *    published by a release store of failed; any thread reads it.
 *  - Once poisoned the session makes no new collective: every operation
 *    fails with COMM_FAILED, and exit uses MPI_Abort.
 */
#ifndef MPI_INT_H
#define MPI_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "pto/mpi.h"
#include "runtime/comm.h"

/* A domain: a sorted rank set, its communicator (world_dup for the full
 * world) and its backend.  Created on first use, kept for the session. */
typedef struct mpi_domain {
    int n;
    int *ranks; /* world ranks, sorted */
    MPI_Comm comm;
    const char *backend; /* "shm" or "am" */
    char *am_base;       /* am: this rank's copy of the live window (under the lock), NULL: none */
    size_t am_bytes;
    MPI_Win pool;        /* shm: the pooled window (pool_bytes > 0), every copy mapped at pool_bases */
    size_t pool_bytes;
    void *pool_bases[64];
    struct mpi_domain *next;
} mpi_domain;

typedef struct am_thread am_thread; /* am.c: a thread's outstanding messages */
typedef struct am_send am_send;     /* am.c: a send in flight and its buffer */

typedef struct mpi_session {
    rt_comm_ops ops;     /* the table registered with libpto */
    pto_dist_info info;
    MPI_Comm world;      /* world_dup: collectives, entry check, the full-world domain */
    MPI_Comm ctrl;       /* ERROR and BYE records */
    int initialised_mpi; /* MPI_Init_thread was ours: exit finalises */
    pthread_mutex_t lock;
    uint64_t entry_timeout_ns; /* PTO_DIST_ENTRY_TIMEOUT_S: bound on every blocking wait */
    const char *forced_backend; /* PTO_COMM_BACKEND, NULL when unset */

    /* The call in progress as agree() named it ("call #<k> of '<f>'") and its
     * number k, for messages (agree writes them under the lock). */
    long call_no;
    char call_text[200];

    /* ctrl: one receive from any source always posted (under the lock). */
    MPI_Request ctrl_req;
    unsigned char *ctrl_buf;
    uint64_t *bye_ns;   /* [size]: when peer i's BYE arrived, 0 = not yet */
    int byes;
    unsigned char *relay_buf; /* our ERROR record */
    MPI_Request *relay_reqs;  /* [size]: its sends (left pending when a peer never takes it) */
    int relayed;

    /* The failure latch: 0, or 1 once remote (REMOTE_FAILED) or a local
     * fatal poisoned the session; fail_rank and fail_text (the call) name it,
     * fail_call_no is that call's number. */
    _Atomic int poisoned;
    _Atomic int ended;  /* the session ended: every operation fails, poll reports the latch only */
    _Atomic int failed; /* remote holds a REMOTE_FAILED (release-published) */
    pto_error remote;
    int fail_rank;
    long fail_call_no;
    char fail_text[200];

    /* The entry check's reduced pair and broadcast texts: session memory, as
     * an abandoned (timed-out) request may still complete into it. */
    int64_t entry_v[2];
    int entry_len;
    char entry_text[2][1024];

    /* am (am.c): live windows, sends in flight, the receive buffer, GET ids (all
     * under the lock but am_live), the progress thread (parked on am_wake under
     * am_park while no am window exists). */
    _Atomic int am_live;
    _Atomic uint64_t am_handled; /* messages taken so far (progress for waits' bounds) */
    _Atomic uint64_t am_polled_ns; /* when progress last ran (the progress thread stands back) */
    am_send *am_sends;
    int am_nsends, am_sends_cap;
    char *am_rbuf;
    size_t am_rcap;
    uint64_t am_req;
    pthread_mutex_t am_park;
    pthread_cond_t am_wake;
    pthread_t am_thread;
    int am_thread_on, am_stop;

    MPI_Datatype f16, bf16;    /* 2-byte types the 16-bit float MPI_Ops recognise */
    MPI_Op half_ops[4];        /* Sum, Max, Min, Prod on f16 and bf16 */
    mpi_domain world_domain;
    mpi_domain *domains;       /* the others, newest first */
} mpi_session;

/* ---- wait.c: lock, bounded waits, messages ---- */
void mpi_lock(mpi_session *s);
void mpi_unlock(mpi_session *s);
/* Waits for reqs[0..n) of a collective over dom (NULL: the world), testing
 * under the lock with the backoff of §2.5 and draining ctrl each round.
 * Returns 0; -PTO_REMOTE_FAILED (err filled) once a peer failed or a domain
 * peer left; -PTO_COMM_FAILED (err filled) on an MPI error; or
 * -PTO_COMM_WAIT_TIMEOUT past deadline_ns (err not filled: the caller words it).
 * A failed wait abandons its requests and poisons the session. */
int mpi_wait(mpi_session *s, const mpi_domain *dom, MPI_Request *reqs, int n, uint64_t deadline_ns,
             pto_error *err);
/* One round of such a wait: 1 complete, 0 not yet, or what mpi_wait
 * returns on failure (expired: the wait's bound has passed). */
int mpi_test_round(mpi_session *s, const mpi_domain *dom, MPI_Request *reqs, int n, int expired, pto_error *err);
/* The deadline of a wait starting now (entry timeout). */
uint64_t mpi_deadline(const mpi_session *s);
/* Fills err with code's message: header + " [rank r of P]", details, hint;
 * returns -code. */
int mpi_fail(const mpi_session *s, pto_error *err, int code, const char *header, const char *details,
             const char *hint);
/* COMM_FAILED for MPI call fn returning rc (not MPI_SUCCESS). */
int mpi_fail_rc(const mpi_session *s, pto_error *err, const char *fn, int rc);
/* When the session is poisoned: the latched REMOTE_FAILED while the failed call
 * is still the one in progress (a later step of it), else COMM_FAILED (a later
 * call); 0 when usable. */
int mpi_check_usable(const mpi_session *s, pto_error *err);
/* COMM_WAIT_TIMEOUT for op on dom not complete after waiting since start_ns. */
int mpi_fail_timeout(const mpi_session *s, pto_error *err, const char *op, const mpi_domain *dom,
                     uint64_t start_ns);
/* COMM_WAIT_TIMEOUT (§3 row 3c): the ranks did not all reach s->call_text in time. */
int mpi_fail_entry_timeout(const mpi_session *s, pto_error *err);
/* "[0, 1, 2]" of dom's ranks into out. */
void mpi_format_ranks(const mpi_domain *dom, char *out, size_t n);

/* ---- relay.c ---- */
int mpi_relay_start(mpi_session *s, pto_error *err); /* posts the ctrl receive */
/* Under the lock: handles every record that arrived on ctrl. */
void mpi_relay_drain(mpi_session *s);
/* Under the lock: the first failure poisons the session, naming its origin. */
void mpi_relay_poison(mpi_session *s, int origin);
/* Under the lock: -PTO_REMOTE_FAILED (latched) when a peer of dom (NULL:
 * the world) said BYE more than the grace period ago, else 0. */
int mpi_relay_check_left(mpi_session *s, const mpi_domain *dom);
void mpi_relay(void *s, const pto_error *e, int everywhere);
void mpi_relay_locked(mpi_session *s, const pto_error *e); /* mpi_relay of a local fatal, the lock held */
int mpi_poll(void *s, pto_error *err);
/* Exit without a failure: BYE to every peer, every peer's BYE awaited
 * (bounded); returns 0, or -1 when the session must abort instead. */
int mpi_relay_goodbye(mpi_session *s);

/* ---- domain.c ---- */
void mpi_domain_init_world(mpi_session *s);
mpi_domain *mpi_domain_of(mpi_session *s, void *dom); /* NULL: the world domain */
void mpi_domain_free_all(mpi_session *s);
int mpi_domain_get(void *s, const int *ranks, int n, void **dom, const char **backend, pto_error *err);

/* ---- shm.c: windows of either backend ---- */
int mpi_win_alloc(void *s, void *dom, size_t bytes, void **win, void **bases, pto_error *err);
int mpi_win_free(void *s, void *dom, void *win, pto_error *err);
void mpi_shm_pool_free(mpi_domain *d); /* under the lock, collective over d */

/* ---- am.c ---- */
extern const struct tile_dist_remote mpi_am_remote;
void mpi_am_init(mpi_session *s);
void mpi_am_fini(mpi_session *s); /* stops the progress thread, drops sends in flight */
int mpi_am_win_alloc(mpi_session *s, mpi_domain *d, size_t bytes, void **win, void **bases, pto_error *err);
int mpi_am_win_free(mpi_session *s, mpi_domain *d, void *win, pto_error *err);
/* Under the lock: completes sends, applies what arrived; returns how much happened. */
int mpi_am_progress_locked(mpi_session *s);

/* ---- collective.c ---- */
int mpi_coll_init(mpi_session *s);
void mpi_coll_fini(mpi_session *s);
int mpi_barrier(void *s, void *dom, pto_error *err);
int mpi_bcast(void *s, void *dom, void *buf, size_t bytes, int root, pto_error *err);
int mpi_allreduce(void *s, void *dom, void *buf, size_t count, int dtype, int op, pto_error *err);
int mpi_allgather(void *s, void *dom, const void *send, void *recv, size_t bytes, pto_error *err);
int mpi_coll_post(void *s, void *dom, const rt_comm_coll *c, void **req, pto_error *err);
int mpi_coll_test(void *s, void *req, pto_defer_why why, pto_error *err);

/* ---- entry_check.c ---- */
int mpi_agree(void *s, const char *const *items, int n, const char *call, pto_error *err);

#endif
