/*
 * ring.h - one of the four scope-depth rings: a task window, an output heap,
 * a dependency pool and a fanin spill pool, reclaimed FIFO behind one
 * watermark.
 *
 * Allocation is orchestrator-only and lock-free.  The watermark last_alive
 * (oldest unretired local id) is advanced by whichever thread consumes the
 * head task, under the ring's advance lock; the orchestrator derives every
 * reclaim (heap tail, pool tails) from the published watermark and never
 * reclaims ahead of it.
 *
 * Window rule: at most window - 1 tasks live (local - last_alive + 1 <
 * window), so slot(last_alive - 1) is never reused while its reclaim
 * markers are read.  Heap rule: docs/runtime.md, "Heap placement" (cases
 * E, A, B, D; no
 * allocation straddles the end), except that a request equal to the free
 * arc fits in every case: used (alloc_total - reclaim_total) tells a full
 * heap from an empty one when top == tail.  Reclaim marks are linear
 * (alloc_total at the end of a task's bytes), so reclaim never goes back.
 * The record arena follows the same rule, so it too restarts at 0 whenever
 * the ring drains and resident memory follows the live records.
 */
#ifndef RT_RING_H
#define RT_RING_H

#include <stdatomic.h>
#include <stdint.h>

#include "base/bits.h"
#include "runtime/pool.h"
#include "runtime/sync.h"
#include "runtime/task.h"

#define RT_HEAP_ALIGN 64

typedef struct rt_heap {
    char *base;        /* reserved, page aligned */
    uint64_t size;
    uint64_t top, tail;          /* byte offsets */
    uint64_t alloc_wraps, reclaim_wraps;
    uint64_t dirty; /* task-output heap: no byte at or past it was ever handed out, so
                     * [dirty, size) is still the mapping's zero pages */
} rt_heap;

/* Live use of a ring's three resources. */
typedef struct rt_use {
    uint64_t task_window, heap, dep_pool;
} rt_use;

typedef struct rt_ring {
    /* Written by the advance-lock holder (release), read by all (acquire);
     * also the futex the waiting orchestrator sleeps on. */
    _Alignas(RT_CACHE_LINE) _Atomic uint32_t last_alive;
    _Atomic uint32_t orch_waiting; /* orchestrator parked on last_alive */
    /* Written by the orchestrator after a slot is initialised (release). */
    _Alignas(RT_CACHE_LINE) _Atomic uint32_t cur;
    /* Whoever consumes a task of this ring: the lock admits one advancer;
     * pending (seq_cst, set before the trylock, re-read after unlock) makes
     * the holder advance again for a thread that found the lock taken. */
    _Alignas(RT_CACHE_LINE) rt_spinlock advance_lock;
    _Atomic uint32_t advance_pending;

    /* Orchestrator only from here on. */
    _Alignas(RT_CACHE_LINE) int index;
    uint32_t window, mask;
    rt_slot *slots;
    uint32_t first_local;  /* local id of the ring's first task ever */
    uint64_t issued;       /* tasks ever published on this ring */
    uint32_t reclaimed_at; /* watermark the tails were last derived from */
    rt_heap heap;          /* task outputs */
    rt_heap records;       /* task records: views, scalars, inline fanin */
    rt_pool deps;          /* rt_dep_node */
    rt_pool spill;         /* uint64_t edges */
    uint64_t *seen;        /* per slot: submit epoch << 32 | fanin index */
    uint32_t tm_cleanup_cursor; /* oldest retired local not yet cleaned */
    uint64_t task_peak, heap_peak, dep_peak; /* run peaks (pto_ring_usage) */
    rt_use scope_peak; /* peak since the innermost scope on this ring began (scope stats) */
} rt_ring;

typedef enum rt_alloc_result {
    RT_ALLOC_OK = 0,
    RT_ALLOC_WAIT_TASK, /* window full: wait for the watermark */
    RT_ALLOC_WAIT_HEAP, /* heap full: wait for the watermark */
    RT_ALLOC_NEVER      /* request larger than the heap */
} rt_alloc_result;

/* Which array failed, for RESERVE_FAILED. */
typedef struct rt_reserve_failure {
    const char *what; /* "task window", "heap", "dep pool", "spill pool"; shared arrays: "scope task list", "tensormap", "ready queue" */
    uint64_t bytes;
    int err_no;
} rt_reserve_failure;

int rt_ring_init(rt_ring *r, int index, uint32_t window, uint64_t heap_size,
                 uint64_t dep_pool, uint32_t first_local, rt_reserve_failure *fail);
void rt_ring_destroy(rt_ring *r);

/* Bytes a request takes, rounded to 64; UINT64_MAX if it cannot be rounded. */
static inline uint64_t rt_heap_request(uint64_t bytes)
{
    return base_align_up(bytes, RT_HEAP_ALIGN);
}

/* Reclaims heap and pools up to the published watermark. */
void rt_ring_reclaim(rt_ring *r);

/* Tries to take the next slot plus bytes of heap (rounded to 64).  On
 * success *local is the new task's id and *heap_off its bytes' offset; the
 * caller initialises the slot and then calls rt_ring_publish. */
rt_alloc_result rt_ring_try_alloc(rt_ring *r, uint64_t bytes, uint32_t *local,
                                  uint64_t *heap_off);
void rt_ring_publish(rt_ring *r, uint32_t local);

/* Zeroes bytes at heap offset off (just placed) that an earlier allocation
 * may have written: those below dirty, the heap's dirty mark before this
 * allocation; the rest are untouched zero pages and are left alone. */
void rt_heap_zero_reused(rt_heap *h, uint64_t dirty, uint64_t off, uint64_t bytes);
/* Bench-only (bench/b7.c, PTO_BENCH_NO_ZERO_FILL): nonzero makes
 * rt_heap_zero_reused clear nothing, to measure what the zero-fill costs.
 * A pl.create_tensor buffer then reads stale bytes: never set elsewhere. */
extern int rt_heap_zero_fill_skipped;

/* Takes bytes (rounded to 16) of task local's record from the record arena;
 * never waits: the arena holds window + 1 records of the largest size. */
void *rt_ring_record(rt_ring *r, uint32_t local, uint64_t bytes);

static inline rt_slot *rt_ring_slot(const rt_ring *r, uint32_t local)
{
    return &r->slots[local & r->mask];
}
static inline uint32_t rt_ring_live(rt_ring *r)
{
    return atomic_load_explicit(&r->cur, memory_order_relaxed) -
           atomic_load_explicit(&r->last_alive, memory_order_acquire);
}

/* The i-th fanin edge of a task of this ring: the first 64 inline in its
 * record, the rest in the ring's spill pool from spill_start. */
static inline uint64_t rt_slot_fanin_edge(const rt_slot *s, const rt_pool *spill, uint32_t i)
{
    return i < RT_FANIN_INLINE_CAP
               ? s->fanin[i]
               : *(const uint64_t *)rt_pool_at(spill, s->spill_start + i - RT_FANIN_INLINE_CAP);
}

/* Heap accounting (orchestrator). */
uint64_t rt_heap_used(const rt_heap *h);
uint64_t rt_heap_available(const rt_heap *h);
static inline uint64_t rt_heap_alloc_total(const rt_heap *h) { return h->top + h->alloc_wraps * h->size; }
static inline uint64_t rt_heap_reclaim_total(const rt_heap *h) { return h->tail + h->reclaim_wraps * h->size; }

/* Moves the watermark past every CONSUMED task at the head; any thread.
 * Returns 1 if it moved.  A contended call leaves a pending flag that the
 * lock holder drains before it lets go. */
int rt_ring_advance(rt_ring *r);

/* Sanity walk for tests: watermark, window, heap and record-arena cursors
 * and counters, pool counters, live slot states.  Returns 0, or -1 with
 * *why saying which invariant does not hold.  Orchestrator only. */
int rt_ring_check(rt_ring *r, const char **why);

/* Current live use, all three from one watermark snapshot (reclaimed_at). */
rt_use rt_ring_use(rt_ring *r);
/* Records current use in the run and scope peaks (after each allocation). */
void rt_ring_note_peaks(rt_ring *r);

#endif
