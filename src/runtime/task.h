/*
 * task.h - a task slot and its state machine.
 *
 * A slot holds one task of a ring: the shared hot line (state, the fanout
 * lock and counters, the fanin refcount) and the record the orchestrator
 * writes at submit and workers read once the task is ready.
 *
 * States: PENDING -> COMPLETED -> CONSUMED.  CONSUMED means completed, its
 * scope released it (RT_FANOUT_SCOPE_BIT) and every consumer pin was
 * released: fanout_refcount == fanout_count.  Only then may the ring's
 * watermark pass it and its slot, heap bytes and edges be reused.
 *
 * Ownership: state flips, fanout_count, fanout_refcount and fanout_head
 * change only under `lock`.  fanin_refcount is an atomic counter: exactly one
 * fetch_add observes fanin_count and makes the task ready.  The record is
 * written by the orchestrator before the task can become ready and is
 * published by the lock / ready-queue hand-offs.
 */
#ifndef RT_TASK_H
#define RT_TASK_H

#include <stdatomic.h>
#include <stdint.h>

#include "pto/runtime.h"
#include "runtime/sync.h"

#define RT_FANOUT_SCOPE_BIT 0x80000000u
#define RT_FANIN_INLINE_CAP 64

enum { RT_TASK_PENDING = 0, RT_TASK_COMPLETED = 1, RT_TASK_CONSUMED = 2 };

/* A fanin edge: producer id in the low 34 bits, flags on top. */
#define RT_DEP_WAIT (1ull << 62)
#define RT_DEP_RETAIN (1ull << 63)
#define RT_EDGE_ID(e) ((e) & ((1ull << 34) - 1))

static inline int rt_task_ring(pto_task_id id) { return (int)(id >> 32); }
static inline uint32_t rt_task_local(pto_task_id id) { return (uint32_t)id; }
static inline pto_task_id rt_task_id(int ring, uint32_t local)
{
    return ((pto_task_id)ring << 32) | local;
}
/* Serial comparison of per-ring locals: a before b. */
static inline int rt_local_before(uint32_t a, uint32_t b) { return (int32_t)(a - b) < 0; }

/* One consumer on a producer's fanout list; lives in the consumer's ring's
 * dependency pool and is reclaimed once the consumer retires. */
typedef struct rt_dep_node {
    struct rt_dep_node *next;
    pto_task_id consumer;
} rt_dep_node;

typedef struct rt_slot {
    /* Shared: workers and orchestrator. */
    _Alignas(RT_CACHE_LINE) _Atomic uint32_t state;
    rt_spinlock lock;
    uint32_t fanout_count;    /* lock: scope bit + one per consumer pin */
    uint32_t fanout_refcount; /* lock: releases so far */
    rt_dep_node *fanout_head; /* lock: consumers waiting for completion */
    _Atomic uint32_t fanin_refcount; /* ready iff == fanin_count */
    uint32_t fanin_count;     /* orchestrator, set before any producer sees it */
    /* SPMD tasks only (num_blocks > 1), set at submit: blocks claimed by executors
     * (fetch_add) and blocks finished; the one finishing the last completes it. */
    _Atomic uint32_t block_next, block_done;

    /* Record: orchestrator at submit; workers after the task is ready.  The
     * variable-size parts live in the ring's record arena, packed, so a task
     * touches only the bytes it needs. */
    _Alignas(RT_CACHE_LINE) pto_kernel_fn kernel;
    void *ctx;               /* pto_task.ctx, handed to the kernel */
    const char *name;
    pto_view *views;         /* num_views, in the record arena */
    uint64_t *scalars;       /* num_scalars, in the record arena */
    uint64_t *fanin;         /* min(num_fanin, 64) edges, in the record arena */
    const char *scope_file;  /* site of the scope that submitted it */
    int scope_line;
    int scope_depth;         /* -1 = implicit root */
    uint32_t num_views, num_scalars, num_fanin;
    uint32_t num_blocks;     /* >= 1 */
    uint8_t has_pred;        /* pred holds pto_task.predicate (its kernel runs only when it holds) */
    pto_predicate pred;
    uint32_t tm_head;        /* orchestrator: first tensormap entry of this task */
    uint64_t packed_end;     /* orchestrator: heap alloc_total after its outputs (linear) */
    uint64_t record_end;     /* orchestrator: record arena alloc_total after its record */
    uint64_t dep_pool_mark;  /* orchestrator: dep pool top after its wiring */
    uint64_t spill_start;    /* counter of its first spilled fanin edge */
    uint64_t spill_mark;     /* orchestrator: spill pool top after collection */
} rt_slot;

/* Bytes of the largest record: every view, scalar and inline fanin edge. */
#define RT_RECORD_MAX                                                                       \
    (PTO_MAX_TENSOR_ARGS * sizeof(pto_view) + PTO_MAX_SCALAR_ARGS * sizeof(uint64_t) +     \
     RT_FANIN_INLINE_CAP * sizeof(uint64_t))

#endif
