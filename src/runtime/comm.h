/*
 * comm.h - the transport-independent part of distributed mode
 * (DISTRIBUTED-SPEC §2, §4.3): the process's transport (rt_comm_ops, the
 * P = 1 one unless libpto_mpi registered another), the windows of the
 * running distributed call and the kernel-side operations on them.
 *
 * Invariants:
 *  - libpto never links libmpi: everything MPI is behind rt_comm_ops,
 *    which pypto._C_mpi (through a capsule of pypto._C) or pto_dist_attach
 *    registers once per process; unregistered, the world is one rank and
 *    every operation is local.
 *  - A window is one allocation per domain and call; bases[i] is domain
 *    rank i's copy as mapped in this process (shm and P = 1), so a remote
 *    access is a load or store at bases[peer] + (the local byte offset);
 *    NULL (am) where only the transport's remote table reaches it.
 *  - Every blocking call is bounded: by the transport's entry timeout, or by
 *    the runtime's stall_timeout_ms for kernel waits, and returns early with
 *    -PTO_REMOTE_FAILED once a peer has relayed a failure.
 */
#ifndef RT_COMM_H
#define RT_COMM_H

#include <stddef.h>
#include <stdint.h>

#include "pto/runtime.h"

struct tile_dist_remote;

/* One host collective over a domain (§1.8, §2.3).  op: an rt_cs_coll value
 * (comm_stats.h: barrier, allreduce, broadcast, allgather, reduce_scatter,
 * all_to_all). */
typedef struct rt_comm_coll {
    int op;
    void *data;        /* allreduce, reduce_scatter, broadcast: in place; allgather, all_to_all: the result */
    const void *stage; /* allgather, all_to_all: this rank's part */
    size_t bytes;      /* of data (allreduce, reduce_scatter, broadcast) or of stage (allgather, all_to_all) */
    int dtype, reduce; /* allreduce, reduce_scatter: a pto_dtype and a pld.ReduceOp value */
    int root;          /* broadcast: a domain rank */
} rt_comm_coll;

/* What a transport provides.  s: its session.  dom: a domain handle of
 * domain(); NULL means the whole world.  Every function returns 0 or
 * -code with err filled (RUNTIME-SPEC §6 message). */
typedef struct rt_comm_ops {
    const char *name; /* "local", "mpi" */
    int rank, size;   /* this process's world rank and the world size */
    /* The domain of world ranks ranks[0..n) (sorted, this rank among them),
     * created collectively by those ranks on first use and cached;
     * *backend: "shm", "am", "rma" or "local". */
    int (*domain)(void *s, const int *ranks, int n, void **dom, const char **backend, pto_error *err);
    /* Collective over dom: bytes of zeroed window memory on every domain
     * rank, then a domain barrier; bases[0..n) the copies' addresses in
     * this process (NULL where not mapped). */
    int (*win_alloc)(void *s, void *dom, size_t bytes, void **win, void **bases, pto_error *err);
    int (*win_free)(void *s, void *dom, void *win, pto_error *err); /* barrier, then free */
    int (*barrier)(void *s, void *dom, pto_error *err);
    int (*bcast)(void *s, void *dom, void *buf, size_t bytes, int root, pto_error *err);
    /* in place; dtype a pto_dtype, op a pld.ReduceOp value */
    int (*allreduce)(void *s, void *dom, void *buf, size_t count, int dtype, int op, pto_error *err);
    int (*allgather)(void *s, void *dom, const void *send, void *recv, size_t bytes, pto_error *err);
    /* A collective posted without waiting (the DEFERRED comm task of D9): *req
     * the transport's handle, NULL when it completed at once; coll_test then
     * tells (why: as a deferred task's test is asked) 1 done, 0 not yet, -code failed (an
     * expired one fails with the transport's COMM_WAIT_TIMEOUT); the handle
     * is freed once the answer is not 0, and by PTO_DEFER_ABANDON. */
    int (*coll_post)(void *s, void *dom, const rt_comm_coll *c, void **req, pto_error *err);
    int (*coll_test)(void *s, void *req, pto_defer_why why, pto_error *err);
    /* The divergence check (§2.1 step 2): items[0..n) are "<item> <value>"
     * texts; unequal on some rank: -PTO_RANKS_DIVERGED naming the first
     * differing item and two ranks' values.  call: the call as messages
     * name it, "call #<k> of '<f>'" (the transport's later messages too). */
    int (*agree)(void *s, const char *const *items, int n, const char *call, pto_error *err);
    /* A fatal on this rank: poisons the session and tells every peer (at most once per session),
     * unless everywhere (every rank finds e itself from replicated state: it only poisons). */
    void (*relay)(void *s, const pto_error *e, int everywhere);
    /* Has a peer failed or left?  0, or -PTO_REMOTE_FAILED with err filled.
     * Cheap; callable from any thread. */
    int (*poll)(void *s, pto_error *err);
    /* How kernels reach copies win_alloc left unmapped (bases[i] NULL: am);
     * NULL when every copy is mapped. */
    const struct tile_dist_remote *remote;
} rt_comm_ops;

/* Registers the process's transport (NULL: back to the local one). */
void rt_comm_register(const rt_comm_ops *ops, void *session);
/* The registered transport and its session. */
const rt_comm_ops *rt_comm_transport(void **session);

/* ---- the running distributed call (written by the host interpreter, read by kernels) ---- */

/* One comm domain of the call and its window. */
typedef struct rt_comm_domain {
    int ranks[64];        /* its world ranks, sorted */
    int n, rank;          /* its size; this process's domain rank */
    void *dom, *win;      /* the transport's handles */
    const char *backend;
    size_t bytes;         /* the window's size per rank */
    void *bases[64];      /* domain rank i's copy (bases[rank]: this rank's) */
} rt_comm_domain;

/* One window buffer: bytes at offset of its domain's window. */
typedef struct rt_comm_buf {
    const char *name;
    uint32_t domain;
    size_t offset, bytes;
} rt_comm_buf;

typedef struct rt_comm_call {
    const rt_comm_ops *ops;
    void *session;
    uint64_t number;      /* the process's distributed call number (messages: call #<k>) */
    const char *func;     /* the host function */
    rt_comm_domain *domains;
    uint32_t ndomains;
    rt_comm_buf *bufs;
    uint32_t nbufs;
    struct rt_comm_stats *stats; /* the call's counters (comm_stats.h), NULL: not counted */
} rt_comm_call;

/* Makes c (NULL: none) the call rt's kernels see; the host interpreter
 * attaches it before the call's first task and detaches it after
 * pto_runtime_finish. */
void rt_comm_attach(pto_runtime *rt, const rt_comm_call *c);
const rt_comm_call *rt_comm_attached(const pto_runtime *rt);
/* The buffer of c holding this rank's byte at addr, or NULL. */
const rt_comm_buf *rt_comm_find(const rt_comm_call *c, const void *addr);

/* A kernel blocked in a comm wait: while one is (enter .. leave), the
 * runtime's own no-progress bound leaves the verdict to the wait's. */
void rt_comm_wait_enter(const pto_runtime *rt);
void rt_comm_wait_leave(const pto_runtime *rt);
/* A kernel's wait reached its sleep phase (on = 1) or, after that, returned (on = 0): while it
 * waits a spare thread takes its executor slot (D10, spare.h). */
void rt_comm_block(const pto_runtime *rt, int on);
/* rt's progress counter (completions and watermarks): a wait's bound restarts when it moves. */
uint64_t rt_comm_progress(const pto_runtime *rt);
/* Latches e (a message formatted by rt_comm_error or a transport) on rt; INVALID_ARGS of
 * the named call with reason; both return -(the winning code). */
int rt_comm_latch(pto_runtime *rt, const pto_error *e);
int rt_comm_invalid(pto_runtime *rt, const char *call, const char *reason);
/* Latches COMM_WAIT_TIMEOUT for task (§3 row 4: the header, detail, the
 * progress line, the hint) and relays it; returns -(the winning code). */
int rt_comm_fail_wait(const pto_runtime *rt, pto_task_id task, const char *detail);
/* Fills err with a RUNTIME-SPEC §6 message of a distributed code (REMOTE_FAILED,
 * RANKS_DIVERGED, COMM_WAIT_TIMEOUT, COMM_FAILED: that code's hint) or of any
 * other code with the given hint; returns -code. */
int rt_comm_error(pto_error *err, int code, const char *header, const char *details, const char *hint);

#endif
