/*
 * pto/runtime.h - the PyPTO task runtime, C API.
 *
 * One orchestrator thread (the caller) opens scopes and submits tasks; worker
 * threads run them as soon as their dependencies are met.  A task's scope
 * depth picks its ring, ring = min(depth, 3): each of the four rings has its
 * own task window, output heap and dependency-edge pool, reclaimed FIFO on
 * its own.  Dependencies are discovered from overlapping tensor views
 * (read-after-write, write-after-write and write-after-read) or given
 * explicitly.
 *
 * Every fallible call returns 0 or a negative status, -code, with the code
 * from pto_status below; the first fatal error is latched: later calls do
 * nothing and return it, and pto_runtime_finish returns it, clears it and leaves the
 * runtime reusable.  pto_runtime_error holds the full message.
 *
 * Calls on one runtime must not overlap (any one thread at a time may be the
 * orchestrator).  Several runtimes may live in one process; they share no
 * state.
 */
#ifndef PTO_RUNTIME_H
#define PTO_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#include "pto/config.h"
#include "pto/version.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pto_runtime pto_runtime;

/* (ring << 32) | per-ring local counter. */
typedef uint64_t pto_task_id;
#define PTO_INVALID_TASK_ID UINT64_MAX

#define PTO_MAX_TENSOR_ARGS 32
#define PTO_MAX_SCALAR_ARGS 64
#define PTO_MAX_DIMS 5
#define PTO_MAX_SCOPE_DEPTH 64
#define PTO_PACKED_OUTPUT_ALIGN 1024
#define PTO_TENSORMAP_POOL_SIZE 65536
#define PTO_ERROR_MESSAGE_MAX 4096

/* Status codes, X(NAME, code, when it fires): calls return -code.  Codes 6,
 * 7 and 10 are reserved (the reference runtime's, never raised here). */
#define PTO_STATUS_LIST(X)                                                                  \
    X(OK, 0, "no error")                                                                    \
    X(SCOPE_DEADLOCK, 1, "a submit would give the current scope a w[r]-th task")            \
    X(HEAP_RING_DEADLOCK, 2, "an alloc cannot get heap bytes while the window has room")    \
    X(FLOW_CONTROL_DEADLOCK, 3, "an alloc cannot get a task slot")                          \
    X(DEP_POOL_OVERFLOW, 4, "the dep pool or fanin spill pool is short")                    \
    X(INVALID_ARGS, 5, "a bad call")                                                        \
    X(TENSOR_WAIT_TIMEOUT, 8, "pto_view_wait stalled")                                      \
    X(EXPLICIT_ORCH_FATAL, 9, "orchestration code called pto_runtime_fail")                 \
    X(TENSORMAP_OVERFLOW, 11, "the tensormap pool is short after pressure reclaim")         \
    X(KERNEL_FAILED, 12, "a kernel returned non-zero")                                      \
    X(RESERVE_FAILED, 13, "pto_runtime_create could not reserve a ring array")              \
    X(OUT_OF_MEMORY, 14, "the host could not allocate memory a call needs")                 \
    X(REMOTE_FAILED, 15, "another rank of a distributed call failed")                       \
    X(RANKS_DIVERGED, 16, "the ranks reached a distributed call with different calls")      \
    X(COMM_WAIT_TIMEOUT, 17, "a communication wait did not complete in time")               \
    X(COMM_FAILED, 18, "the MPI session failed or is unusable")                             \
    X(SCHEDULER_TIMEOUT, 100, "pto_runtime_finish stalled with tasks outstanding")

typedef enum pto_status {
#define PTO_STATUS_ENUM_(name, code, text) PTO_##name = code,
    PTO_STATUS_LIST(PTO_STATUS_ENUM_)
#undef PTO_STATUS_ENUM_
} pto_status;

/* "SCOPE_DEADLOCK", ...; "OK" for 0, "UNKNOWN" otherwise. Accepts code or -code. */
const char *pto_status_name(int code);

/* What a status means, in one line ("a kernel returned non-zero"); "unknown
 * status" for a code that is none.  Accepts code or -code. */
const char *pto_status_text(int code);

typedef struct pto_error {
    int code;                          /* pto_status, 0 = none */
    int ring;                          /* ring the error concerns, -1 = none */
    char message[PTO_ERROR_MESSAGE_MAX]; /* full multi-line text */
} pto_error;

/* ---- tensor views ------------------------------------------------------ */

/* A strided N-d view of one allocation.  addr is the allocation's base (the
 * key for dependency discovery: views with different addr are never
 * compared); slicing goes into offset.  shape, strides and offset count
 * elements.  owner is the task that created the allocation
 * (pto_tensor_alloc or an OUT argument), or PTO_INVALID_TASK_ID for user
 * memory. */
typedef struct pto_view {
    void *addr;
    uint32_t elem_size;
    uint32_t ndims;
    uint64_t shape[PTO_MAX_DIMS];
    int64_t strides[PTO_MAX_DIMS];
    int64_t offset;
    pto_task_id owner;
} pto_view;

/* A row-major 2-d tile: rows x cols elements starting at element offset,
 * rows row_stride elements apart. */
static inline pto_view pto_view_2d(void *addr, uint32_t elem_size,
                                   int64_t offset, uint64_t rows,
                                   uint64_t cols, int64_t row_stride,
                                   pto_task_id owner)
{
    pto_view v = {addr, elem_size, 2, {rows, cols}, {row_stride, 1}, offset, owner};
    return v;
}

/* A contiguous 1-d range of n elements starting at element offset. */
static inline pto_view pto_view_1d(void *addr, uint32_t elem_size,
                                   int64_t offset, uint64_t n, pto_task_id owner)
{
    pto_view v = {addr, elem_size, 1, {n}, {1}, offset, owner};
    return v;
}

/* Address of the element at offset + sum(idx[d] * strides[d]) - for kernels. */
void *pto_view_at(const pto_view *v, const uint64_t *idx);

/* ---- tasks ------------------------------------------------------------- */

typedef enum pto_arg_tag {
    PTO_ARG_IN = 0,              /* read: waits for earlier writers */
    PTO_ARG_OUT = 1,             /* new buffer from the ring heap */
    PTO_ARG_INOUT = 2,           /* read and write */
    PTO_ARG_OUTPUT_EXISTING = 3, /* write existing memory */
    PTO_ARG_NO_DEP = 4           /* passed through, no ordering */
} pto_arg_tag;

typedef struct pto_arg {
    pto_arg_tag tag;
    /* For PTO_ARG_OUT give elem_size, ndims and shape: pto_task_submit allocates
     * the bytes, fills in addr, contiguous strides, offset 0 and owner. */
    pto_view view;
} pto_arg;

typedef enum pto_dep_kind {
    PTO_DEP_WAIT_RETAIN = 0, /* wait for it; keep it (and its outputs) alive until this task completes */
    PTO_DEP_WAIT = 1         /* wait for it only */
} pto_dep_kind;

typedef struct pto_dep {
    pto_task_id id;
    pto_dep_kind kind;
} pto_dep;

/* A task's predicate (pto_task_submit_if): when the task's dependencies
 * are met, the worker reads one element of argument arg (any tag but
 * PTO_ARG_OUT; give it as PTO_ARG_IN to order the task after the flag's
 * writers) at index idx of that view (idx[d] < shape[d]) and compares it
 * with value: element <op> value.  False: the kernel does not run; the
 * task completes as if it had (its fan-out is released, its outputs keep
 * whatever they held).  The element is read as elem says, with the view's
 * elem_size (INT: a signed integer of 1, 2, 4 or 8 bytes; FP32: 4 bytes;
 * FP16, BF16: 2 bytes; a float compares as a double). */
typedef enum pto_pred_op {
    PTO_PRED_EQ = 0, PTO_PRED_NE = 1, PTO_PRED_LT = 2, PTO_PRED_LE = 3, PTO_PRED_GT = 4, PTO_PRED_GE = 5
} pto_pred_op;

typedef enum pto_pred_elem { PTO_PRED_INT = 0, PTO_PRED_FP32 = 1, PTO_PRED_FP16 = 2, PTO_PRED_BF16 = 3 } pto_pred_elem;

typedef struct pto_predicate {
    uint32_t arg;                /* index into pto_task.args */
    uint64_t idx[PTO_MAX_DIMS];  /* the element, in the view's coordinates */
    pto_pred_op op;
    pto_pred_elem elem;
    int64_t value;
} pto_predicate;

/* What a kernel receives, on a worker thread.  message may be filled (up to
 * message_len bytes) to explain a failure.  ctx is the task's pto_task.ctx,
 * handed over untouched (an executor tells the kernel what to run). */
typedef struct pto_kernel_args {
    pto_task_id task_id;
    int worker;
    void *ctx;
    uint32_t num_views;
    const pto_view *views; /* in the task's argument order, OUT addr filled */
    uint32_t num_scalars;
    const uint64_t *scalars;
    char *message;
    size_t message_len;
    const pto_runtime *runtime; /* the task's runtime, for pto_runtime_failed */
    uint32_t block_idx;         /* this run's block, in [0, num_blocks) */
    uint32_t num_blocks;        /* the task's block count (1 unless pto_task.num_blocks > 1) */
} pto_kernel_args;

/* Returns 0, or non-zero: the run fails with PTO_KERNEL_FAILED and that rc. */
typedef int (*pto_kernel_fn)(const pto_kernel_args *args);

/* Why a deferred task's test is called (pto_task_defer). */
typedef enum pto_defer_why {
    PTO_DEFER_POLL = 0,    /* is the work done? */
    PTO_DEFER_EXPIRED = 1, /* stall_timeout_ms passed with no task of the runtime completing */
    PTO_DEFER_ABANDON = 2  /* the run failed: release what the work holds; the answer is ignored */
} pto_defer_why;

/* A deferred task's completion test: 1 done, 0 not yet, or -code with err
 * filled (the run then fails with that error).  Called on any executor of
 * the runtime, never on two at once.  Asked with PTO_DEFER_EXPIRED, a test
 * that is still not done should return its own timeout error; 0 there
 * fails the run with PTO_COMM_WAIT_TIMEOUT naming the task. */
typedef int (*pto_defer_test)(void *arg, pto_defer_why why, pto_error *err);

/* Inside a kernel (not of an SPMD task), at most once per run of it: the
 * task does not complete when the kernel returns, but once test(arg) says
 * so.  It is DEFERRED meanwhile: its executor is free, its consumers wait,
 * pto_runtime_finish waits for it, and the stall bounds leave it to its own
 * (stall_timeout_ms, tested above).  Idle executors test it (one at a time,
 * spinning, then yielding, then parking 50 us to 1 ms at a time), workers
 * also between two tasks, and a finishing orchestrator when no executor is
 * idle.  At most PTO_MAX_DEFERRED tasks are deferred at once; beyond that
 * this call tests in place until done (a blocking wait on this thread).
 * After a fatal, deferred tasks complete as skipped (tested once with
 * PTO_DEFER_ABANDON).  Returns 0 or -PTO_INVALID_ARGS (args not a running
 * kernel's, an SPMD task, test NULL, deferred twice). */
#define PTO_MAX_DEFERRED 64
int pto_task_defer(const pto_kernel_args *args, pto_defer_test test, void *arg);

typedef struct pto_task {
    pto_kernel_fn kernel; /* NULL: a dummy task (a join or barrier) */
    void *ctx;            /* passed to the kernel as pto_kernel_args.ctx; the runtime never reads it;
                           * it must stay valid until the task has run */
    const char *name;     /* shown in errors; NULL prints as "-" */
    pto_arg *args;        /* up to PTO_MAX_TENSOR_ARGS; OUT views written back */
    uint32_t num_args;
    const uint64_t *scalars; /* up to PTO_MAX_SCALAR_ARGS */
    uint32_t num_scalars;
    const pto_dep *deps;  /* explicit dependencies, honoured in AUTO and MANUAL */
    uint32_t num_deps;
    /* SPMD: 0 or 1 = one kernel run; n > 1 = n runs (blocks 0..n-1, any workers,
     * concurrently) of one task: one id, one slot, one fan-out, released after
     * the last block.  The views must cover every block's accesses (their union).
     * A failing block fails the task (PTO_KERNEL_FAILED, "(block b of n)"). */
    uint32_t num_blocks;
} pto_task;

/* ---- lifecycle --------------------------------------------------------- */

/* Validates cfg (NULL = all defaults), reserves the rings (reserved, not
 * committed), starts the workers and stores the runtime in *rt.  Returns 0,
 * or -code with *rt NULL and err (if given) filled: PTO_INVALID_ARGS for a
 * bad config, PTO_RESERVE_FAILED when address space or threads could not be
 * had. */
int pto_runtime_create(const pto_config *cfg, pto_runtime **rt, pto_error *err);

/* Finishes outstanding work (as pto_runtime_finish) and frees everything. NULL is ok. */
void pto_runtime_destroy(pto_runtime *rt);

/* ---- orchestration ----------------------------------------------------- */

typedef enum pto_scope_mode {
    PTO_SCOPE_AUTO = 0,  /* dependencies discovered from views */
    PTO_SCOPE_MANUAL = 1 /* explicit dependencies only */
} pto_scope_mode;

/* Opens a scope one level deeper (the outermost explicit scope is depth 0);
 * its tasks go to ring min(depth, 3).  file/line name the site in scope
 * stats and errors; file must stay valid until pto_runtime_finish (__FILE__ does). */
int pto_scope_begin(pto_runtime *rt, pto_scope_mode mode, const char *file, int line);

/* Closes the innermost scope: its tasks are released (never waits). */
int pto_scope_end(pto_runtime *rt);

/* Runs the statement or block that follows inside a scope.  Leave it by
 * falling off the end: a break or return would skip the scope's end. */
#define PTO_SCOPE(rt, mode)                                                   \
    for (int pto_scope_once_ =                                                \
             (pto_scope_begin((rt), (mode), __FILE__, __LINE__), 1);           \
         pto_scope_once_; pto_scope_once_ = 0, pto_scope_end(rt))

/* Submits a task to the current scope's ring; waits (back-pressure) while
 * the ring is full.  *id (if given) receives its id, or
 * PTO_INVALID_TASK_ID on error. */
int pto_task_submit(pto_runtime *rt, const pto_task *task, pto_task_id *id);

/* pto_task_submit with a predicate (copied; NULL: none, the kernel always
 * runs).  A bad predicate (arg out of range or an OUT argument, idx outside
 * the view, unknown op or elem, an elem_size elem cannot read) is
 * PTO_INVALID_ARGS. */
int pto_task_submit_if(pto_runtime *rt, const pto_task *task, const pto_predicate *pred, pto_task_id *id);

/* Allocates bytes (1024-byte aligned, zeroed) from the current scope's ring
 * heap into *addr (NULL on error), valid until the scope ends.  Made by a hidden
 * task whose id (*id, if given) is the buffer's owner and works as an
 * explicit dependency.  Returns 0 or -code. */
int pto_tensor_alloc(pto_runtime *rt, size_t bytes, void **addr, pto_task_id *id);

/* Waits until view may be read (for_write = 0: earlier writers done) or
 * written (for_write = 1: earlier readers and writers done). */
int pto_view_wait(pto_runtime *rt, const pto_view *view, int for_write);

/* Latches PTO_EXPLICIT_ORCH_FATAL with a printf-style message. */
int pto_runtime_fail(pto_runtime *rt, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Closes scopes left open (with a warning), waits for every task, releases
 * them, writes scope stats if enabled.  Returns 0 or the latched -code, and
 * clears the latch: the runtime can run again. */
int pto_runtime_finish(pto_runtime *rt);

/* The latched error (code 0 when none); after pto_runtime_finish, the last run's. */
const pto_error *pto_runtime_error(const pto_runtime *rt);

/* Distributed mode (DISTRIBUTED-SPEC §4.3): the address of this runtime's
 * transport registration entry, a void (*)(const rt_comm_ops *, void *)
 * (src/runtime/comm.h), through which an MPI extension registers its
 * transport with this copy of the runtime (pypto._C's capsule
 * "pypto._C.comm_register"). */
void *pto_comm_register_entry(void);

/* The code latched in the current run, 0 while none.  Any thread may ask,
 * kernels included: a kernel that runs long (a loop) may poll it and
 * return early once the run has failed (a stall, another task's failure),
 * since no thread can be cancelled; its rc then changes nothing. */
int pto_runtime_failed(const pto_runtime *rt);

/* Between runs (none open): scope stats on, written below output_prefix (copied), or
 * off (NULL) for the runs that follow; a runtime created with stats on may turn them off
 * and back on.  Lets one runtime (a Python ChipWorker) take the choice per run.
 * Returns 0, or -PTO_INVALID_ARGS (nothing changed, nothing latched) for a NULL rt, an
 * empty prefix, a run open, or no memory for the copy. */
int pto_runtime_set_scope_stats(pto_runtime *rt, const char *output_prefix);

/* ---- introspection ----------------------------------------------------- */

typedef struct pto_ring_usage {
    uint64_t task_window, task_window_peak, task_window_cap; /* live slots */
    uint64_t heap, heap_peak, heap_cap;                      /* bytes */
    uint64_t dep_pool, dep_pool_peak, dep_pool_cap;          /* entries */
} pto_ring_usage;

/* Current and run-peak use of ring's resources (peaks since create). */
int pto_ring_usage_get(const pto_runtime *rt, int ring, pto_ring_usage *out);

/* Effective (resolved) configuration of a runtime. */
const pto_config *pto_runtime_config(const pto_runtime *rt);

#ifdef __cplusplus
}
#endif
#endif
