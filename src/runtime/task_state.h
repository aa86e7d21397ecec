/*
 * task_state.h - the transitions of a task that several threads make
 * (task_state.c).
 */
#ifndef RT_TASK_STATE_H
#define RT_TASK_STATE_H

#include "runtime/rt.h"

/* Under the slot lock: flips a COMPLETED task to CONSUMED when every
 * reference is released; returns 1 if it flipped. */
static inline int rt_task_try_consume_locked(rt_slot *s)
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

#endif
