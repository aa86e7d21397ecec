/*
 * task_state.c - the transitions of a task that several threads make:
 * releasing references (scope end, consumer completion, WAIT-only pins)
 * and handing a ready task to the workers.
 *
 * A release adds to fanout_refcount under the slot lock; the thread whose
 * release makes a COMPLETED task's count whole flips it to CONSUMED and then
 * tries to move its ring's watermark.
 */
#include "runtime/task_state.h"

void rt_task_release(pto_runtime *rt, pto_task_id id, uint32_t n)
{
    rt_ring *ring = &rt->rings[rt_task_ring(id)];
    rt_slot *s = rt_ring_slot(ring, rt_task_local(id));
    rt_spin_lock(&s->lock);
    s->fanout_refcount += n;
    int consumed = rt_task_try_consume_locked(s);
    rt_spin_unlock(&s->lock);
    if (consumed) rt_ring_advance(ring);
}

void rt_task_push_ready(pto_runtime *rt, pto_task_id id)
{
    rt_ready_queue_push(&rt->ready, id);
    /* Pairs with the fence a worker makes after counting itself parked:
     * either it sees this task or we see it parked. */
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(&rt->parked, memory_order_relaxed)) {
        atomic_fetch_add(&rt->ready_seq, 1);
        rt_futex_wake(&rt->ready_seq, 1);
    }
}
