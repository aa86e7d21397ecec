/*
 * rt.h - the runtime object: struct pto_runtime and what it is made of.
 *
 * struct pto_runtime owns everything of one runtime; nothing is global.
 * Each module declares its functions in its own header next to its .c
 * (error.h, scope.h, wait.h, ...) and names them rt_<module>_<verb>.
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
#include "runtime/deferred.h"
#include "runtime/ready_queue.h"
#include "runtime/ring.h"
#include "runtime/sync.h"
#include "runtime/tensormap.h"
#include "runtime/trace.h"

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
    /* Own executor: its kernel deferred its task (pto_task_defer); the tester
     * role's backoff and the table change it counts from; the next between-tasks test
     * (deferred.h). */
    int deferred;
    base_backoff defer_b;
    uint32_t defer_seq; /* the table's seq when defer_b began */
    uint64_t defer_next_ns;
    rt_trace_buf trace; /* own worker; written out by the orchestrator when no task runs */
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

/* One scope-stats record (docs/runtime.md, "Scope stats"; the keys: pto/scope_stats.h). */
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

struct pto_runtime {
    pto_config cfg; /* resolved; output_prefix points at our copy */
    char *output_prefix;
    rt_ring rings[PTO_NUM_RINGS];
    rt_tensormap tm;
    rt_ready_queue ready;

    /* Workers. */
    int num_workers;
    int orch_helps;     /* workers leave a core free: pto_runtime_finish runs ready tasks */
    int shared_core;    /* the process is bound to fewer CPUs than the machine has (one core per
                         * rank under mpirun) and the workers and the orchestrator outnumber them:
                         * idle executors yield while they spin, so a thread with work gets the core */
    rt_worker *workers; /* num_workers threads, the orchestrator's own slot, PTO_MAX_SPARE_WAITERS spares' */
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
    /* The distributed call running (comm.h): set by the orchestrator while no task runs, read by
     * kernels; comm_waits: kernels blocked in a comm wait (any thread). */
    const struct rt_comm_call *comm;
    _Atomic int comm_waits;
    /* Spare threads (spare.c): executor slots after the orchestrator's in workers[]. */
    _Alignas(RT_CACHE_LINE) _Atomic int spare_blocked, spare_running, spare_count;
    _Atomic int spare_capped; /* a blocking wait found every spare taken and the cap reached */
    _Atomic uint32_t spare_seq;
    pthread_mutex_t spare_lock;
    rt_deferred deferred; /* DEFERRED tasks (deferred.h) */

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
    uint64_t submitted;   /* tasks handed to workers (kernel and dummy); written by the orchestrator only,
                           * with relaxed atomic stores (diagnose.c reads it from a worker too) */
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
    rt_trace trace;       /* per-task trace; trace.file NULL: off */
    char *trace_path;     /* our copy; cfg.trace_path points at it */
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

#endif
