/*
 * rt.h - the runtime object and the internal interfaces between its files.
 *
 * struct pto_runtime owns everything of one runtime; nothing is global.
 * Field comments say who writes and who reads.  The orchestrator (the thread
 * calling the pto_* API) owns allocation and the scope stack; workers run,
 * complete and release tasks and advance watermarks.
 */
#ifndef RT_RT_H
#define RT_RT_H

#include <pthread.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <stdint.h>

#include "base/array.h"
#include "base/bits.h"
#include "base/text.h"
#include "pto/runtime.h"
#include "runtime/ready_queue.h"
#include "runtime/ring.h"
#include "runtime/sync.h"
#include "runtime/tensormap.h"

typedef struct rt_worker {
    /* Written only by this executor (seq_cst store: the finish wake-up test
     * reads all of them); read by anyone summing progress (acquire). */
    _Alignas(RT_CACHE_LINE) _Atomic uint64_t completed;
    /* Written by this executor around each kernel (release); read by
     * diagnostics (census) only. */
    _Atomic uint64_t running;       /* task id or PTO_INVALID_TASK_ID */
    _Atomic uint64_t running_since; /* ns */
    struct pto_runtime *rt;
    int index;
    pthread_t thread;
    char message[512]; /* a failing kernel's text; own worker */
} rt_worker;

/* One open scope; scopes[0] is the implicit root. */
typedef struct rt_scope {
    uint32_t start; /* first index in scope_tasks */
    int depth;      /* explicit depth; -1 = root */
    int ring;
    pto_scope_mode mode;
    const char *file;
    int line;
    rt_use saved_peak;        /* the enclosing context's peaks on this ring */
    uint64_t saved_tm_peak;   /* ... and of the tensormap */
} rt_scope;

/* One scope-stats record (RUNTIME-SPEC 8). */
typedef struct rt_stats_record {
    const char *file; /* NULL = the implicit root */
    int line, depth, ring, end;
    uint64_t tw_start, tw_end, heap_start, heap_end, dep_start, dep_end, tensormap;
    rt_use peak;
    uint64_t peak_tm;
} rt_stats_record;

typedef struct rt_stats {
    rt_stats_record *recs;
    uint64_t n, cap, dropped, total;
    int fatal;      /* a fatal was seen: records are frozen */
    int written;    /* this run's file is written */
} rt_stats;

/* State of one back-pressure wait (orchestrator). */
typedef struct rt_wait {
    uint64_t start_ns, last_progress_ns, progress;
    uint64_t now_ns; /* the clock at the last rt_wait_stalled */
    int blocked_printed;
    int spins;
} rt_wait;

struct pto_runtime {
    pto_config cfg; /* resolved; output_prefix points at our copy */
    char *output_prefix;
    rt_ring rings[PTO_NUM_RINGS];
    rt_tensormap tm;
    rt_ready_queue ready;

    /* Workers. */
    int num_workers;
    int orch_helps;     /* workers leave a core free: pto_runtime_finish runs ready tasks */
    rt_worker *workers; /* num_workers threads, then the orchestrator's own slot */
    /* Parking (all seq_cst: a pusher and a parker each see the other).
     * ready_seq: futex word, bumped by any pusher that saw parked > 0;
     * parked: threads counted in before they sleep on it (executors). */
    _Alignas(RT_CACHE_LINE) _Atomic uint32_t ready_seq;
    _Atomic uint32_t parked;
    /* The orchestrator's sleeps, set by it, tested by executors after each
     * completion: done_seq is the futex of waits for any completion
     * (pto_view_wait, a short dep pool); finish_target is the
     * executed-task count pto_runtime_finish waits for (it sleeps on ready_seq). */
    _Alignas(RT_CACHE_LINE) _Atomic uint32_t done_seq;
    _Atomic uint32_t done_waiting;
    _Atomic uint32_t finish_waiting;
    _Atomic uint64_t finish_target;
    _Atomic uint32_t shutdown; /* set once by pto_runtime_destroy; read by workers (acquire) */

    /* Error latch: CAS on status from 0; the winner writes error, then sets
     * error_ready (release). */
    _Alignas(RT_CACHE_LINE) _Atomic int status; /* any thread, CAS from 0; read acquire */
    _Atomic int error_ready;                    /* the CAS winner, release */
    pto_error error;
    pto_error last_error; /* orchestrator: what pto_runtime_error shows */

    /* Orchestrator only. */
    _Alignas(RT_CACHE_LINE) rt_scope scopes[PTO_MAX_SCOPE_DEPTH + 1];
    int num_scopes;       /* including the root */
    int manual_depth;     /* open MANUAL scopes */
    pto_task_id *scope_tasks;
    uint32_t scope_tasks_top, scope_tasks_cap;
    uint64_t submitted;   /* tasks handed to workers (kernel and dummy) */
    uint64_t orch_completed; /* alloc tasks */
    uint32_t epoch;       /* submit counter for fanin dedup */
    uint64_t *edges;      /* scratch: fanin edges of the task being submitted */
    uint64_t edges_cap;
    uint32_t num_edges;
    pto_task_id submitting; /* id of the task being submitted */
    const char *submitting_name; /* its name (pto_task_submit only), for messages */
    int run_open;         /* the implicit root has begun (first call of a run) */
    uint64_t tm_peak;     /* tensormap peak since the innermost scope began */
    rt_stats stats;
    uint32_t req_outputs;   /* OUT args of the task being submitted (messages) */
};

/* Returns 1 if id names a task this runtime has issued (orchestrator): at
 * most `issued` (and 2^31, the serial-arithmetic horizon) behind cur. */
static inline int rt_id_issued(pto_runtime *rt, pto_task_id id)
{
    if (id == PTO_INVALID_TASK_ID || (id >> 32) >= PTO_NUM_RINGS) return 0;
    rt_ring *ring = &rt->rings[rt_task_ring(id)];
    uint32_t back = atomic_load_explicit(&ring->cur, memory_order_relaxed) - rt_task_local(id);
    uint64_t horizon = ring->issued < 0x7fffffffu ? ring->issued : 0x7fffffffu;
    return back >= 1 && back <= horizon;
}

/* error.c */
int rt_latched(const pto_runtime *rt);
/* Latches code with a message made of a header line, detail lines (separated
 * by '\n', indented on output) and a hint; returns -(the winning code). */
int rt_fail(pto_runtime *rt, int code, int ring, const char *header, const char *details,
            const char *hint);
void rt_format_id(pto_task_id id, char *out, size_t n);
/* The scope a message names: its site "<basename>:<line>" (basename cut to
 * 31 chars; "(root):0" for the implicit root, depth < 0) and its depth
 * ("root" or the number). */
typedef struct rt_where {
    char site[48];
    char depth[16];
} rt_where;
rt_where rt_format_where(const char *file, int line, int depth);
/* Wakes every thread that may sleep, so it sees the latch. */
void rt_wake_all(pto_runtime *rt);
/* INVALID_ARGS from the named call, with the current scope. */
int rt_fail_invalid(pto_runtime *rt, const char *call, const char *reason);

/* scope_stats.c */
/* Marks the start of a run at its first call (the root's begin record). */
void rt_run_open(pto_runtime *rt);
/* The records of scope boundaries; no-ops when scope stats are off. */
void rt_stats_begin(pto_runtime *rt, rt_scope *s);
void rt_stats_end(pto_runtime *rt, rt_scope *s);
/* Writes the file (first time a fatal is seen, and at pto_runtime_finish). */
void rt_stats_write(pto_runtime *rt);
/* The latched status, seen by the orchestrator: freezes and writes the
 * stats once.  Every API call starts with it; a NULL runtime is
 * INVALID_ARGS (nothing to latch it in). */
static inline int rt_enter(pto_runtime *rt)
{
    if (!rt) return PTO_INVALID_ARGS;
    int st = atomic_load_explicit(&rt->status, memory_order_acquire);
    if (st && !rt->stats.fatal) {
        rt->stats.fatal = 1;
        rt_stats_write(rt);
    }
    return st;
}

/* scope.c */
static inline rt_scope *rt_scope_current(pto_runtime *rt) { return &rt->scopes[rt->num_scopes - 1]; }
/* Releases the scope's reference on every task of scopes[i] and pops it. */
void rt_scope_release(pto_runtime *rt);

/* task_state.c: transitions shared by orchestrator and workers. */
/* Under the slot lock: flips a COMPLETED task to CONSUMED when every
 * reference is released; returns 1 if it flipped. */
static inline int rt_slot_try_consume_locked(rt_slot *s)
{
    if (atomic_load_explicit(&s->state, memory_order_relaxed) == RT_TASK_COMPLETED &&
        s->fanout_refcount == s->fanout_count) {
        atomic_store_explicit(&s->state, RT_TASK_CONSUMED, memory_order_release);
        return 1;
    }
    return 0;
}
/* Adds n releases to producer id and advances its ring if it was consumed. */
void rt_task_release(pto_runtime *rt, pto_task_id id, uint32_t n);
/* Makes a task ready: queue it and wake a parked worker. */
void rt_task_push_ready(pto_runtime *rt, pto_task_id id);

/* wait.c: back-pressure and stall detection for the orchestrator. */
typedef enum rt_resource {
    RT_RES_TASK = 0, RT_RES_HEAP, RT_RES_DEP_POOL, RT_RES_SPILL, RT_RES_TENSORMAP
} rt_resource;
void rt_wait_begin(pto_runtime *rt, rt_wait *w);
/* One wait step for `what` on ring r (need = the request); returns 0 to
 * retry, or a latched -code (V1 structural deadlock, V3 stall, or a fatal
 * latched elsewhere). */
int rt_wait_step(pto_runtime *rt, rt_wait *w, int r, rt_resource what, uint64_t need);
/* Notes progress (any completion or watermark move) since the last call;
 * returns 1 when there was none for stall_timeout_ms (never with -1), with
 * *stalled_ms set either way. */
int rt_wait_stalled(pto_runtime *rt, rt_wait *w, uint64_t *stalled_ms);
/* Sleeps (10 ms at most) until the next task completes, unless there was
 * progress since the caller's snapshot p = rt_progress(rt); returns 0. */
int rt_wait_completion(pto_runtime *rt, uint64_t p);
/* Fails at once: a request that can never fit (V2). */
int rt_fail_never_fits(pto_runtime *rt, int r, rt_resource what, uint64_t need);
uint64_t rt_progress(pto_runtime *rt);
uint64_t rt_completed_total(pto_runtime *rt);

/* worker.c */
int rt_workers_start(pto_runtime *rt);
void rt_workers_stop(pto_runtime *rt);
/* Runs and completes task id on executor w; returns a task it made ready
 * to run next, or PTO_INVALID_TASK_ID. */
pto_task_id rt_execute(pto_runtime *rt, rt_worker *w, pto_task_id id);
/* Waits for a ready task: spins PTO_SPIN_US, then parks on ready_seq.
 * Returns 1 with *id, or 0 once stop(rt) holds (or a park of timeout_ns,
 * if non-zero, ended empty). */
int rt_ready_wait(pto_runtime *rt, pto_task_id *id, int (*stop)(pto_runtime *), uint64_t timeout_ns);
/* Tasks completed by all executors (workers and orchestrator). */
uint64_t rt_executed_total(pto_runtime *rt);

#endif
