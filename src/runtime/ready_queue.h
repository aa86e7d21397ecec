/*
 * ready_queue.h - bounded lock-free MPMC queue of ready task ids.
 *
 * Dmitry Vyukov's sequence-number ring: each cell carries a sequence that
 * says whether it is free for the producer of lap n or full for the consumer
 * of lap n.  The capacity (a power of two >= the sum of the task windows)
 * bounds the live tasks, so a push never fails.  Producers: the orchestrator
 * and workers; consumers: workers, and the orchestrator when it helps.
 */
#ifndef RT_READY_QUEUE_H
#define RT_READY_QUEUE_H

#include <stdatomic.h>
#include <stdint.h>

#include "runtime/sync.h"

typedef struct rt_ready_cell {
    _Atomic uint64_t seq;
    uint64_t task; /* written by the pusher before seq (release) */
} rt_ready_cell;

typedef struct rt_ready_queue {
    rt_ready_cell *cells; /* reserved, capacity entries */
    uint64_t mask;
    _Alignas(RT_CACHE_LINE) _Atomic uint64_t head; /* next pop */
    _Alignas(RT_CACHE_LINE) _Atomic uint64_t tail; /* next push */
    _Alignas(RT_CACHE_LINE) char pad;
} rt_ready_queue;

/* capacity: a power of two.  Returns 0, or -1 (errno-style code in *err_no). */
int rt_ready_queue_init(rt_ready_queue *q, uint64_t capacity, int *err_no);
void rt_ready_queue_destroy(rt_ready_queue *q);

void rt_ready_queue_push(rt_ready_queue *q, uint64_t task);
/* Returns 1 and the oldest ready task, or 0 when empty. */
int rt_ready_queue_pop(rt_ready_queue *q, uint64_t *task);
/* Approximate number of queued tasks (diagnostics). */
uint64_t rt_ready_queue_size(rt_ready_queue *q);

#endif
