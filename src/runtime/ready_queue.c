/*
 * ready_queue.c - the MPMC ring of ready tasks (see ready_queue.h).
 *
 * Cell i starts with seq = i.  A pusher that claimed position p writes the
 * task and publishes seq = p + 1; a popper of position p waits for
 * seq == p + 1 and frees the cell for the next lap with seq = p + capacity.
 * Cells store seq - i, so the zero pages of a fresh reservation are already
 * a valid empty queue and nothing is touched at create.
 */
#include "runtime/ready_queue.h"

#include "runtime/reserve.h"

int rt_ready_queue_init(rt_ready_queue *q, uint64_t capacity, int *err_no)
{
    q->cells = rt_reserve(capacity * sizeof(rt_ready_cell), err_no);
    if (!q->cells) return -1;
    q->mask = capacity - 1;
    atomic_store(&q->head, 0);
    atomic_store(&q->tail, 0);
    return 0;
}

void rt_ready_queue_destroy(rt_ready_queue *q)
{
    rt_unreserve(q->cells, (q->mask + 1) * sizeof(rt_ready_cell));
    q->cells = NULL;
}

void rt_ready_queue_push(rt_ready_queue *q, uint64_t task)
{
    uint64_t pos = atomic_load_explicit(&q->tail, memory_order_relaxed);
    for (;;) {
        rt_ready_cell *c = &q->cells[pos & q->mask];
        uint64_t seq = atomic_load_explicit(&c->seq, memory_order_acquire) + (pos & q->mask);
        int64_t dif = (int64_t)(seq - pos);
        if (dif == 0) {
            if (atomic_compare_exchange_weak_explicit(&q->tail, &pos, pos + 1,
                                                      memory_order_relaxed,
                                                      memory_order_relaxed)) {
                c->task = task;
                atomic_store_explicit(&c->seq, pos + 1 - (pos & q->mask), memory_order_release);
                return;
            }
        } else {
            /* dif < 0 cannot happen: capacity bounds the live tasks. */
            pos = atomic_load_explicit(&q->tail, memory_order_relaxed);
        }
    }
}

int rt_ready_queue_pop(rt_ready_queue *q, uint64_t *task)
{
    uint64_t pos = atomic_load_explicit(&q->head, memory_order_relaxed);
    for (;;) {
        rt_ready_cell *c = &q->cells[pos & q->mask];
        uint64_t seq = atomic_load_explicit(&c->seq, memory_order_acquire) + (pos & q->mask);
        int64_t dif = (int64_t)(seq - (pos + 1));
        if (dif == 0) {
            if (atomic_compare_exchange_weak_explicit(&q->head, &pos, pos + 1,
                                                      memory_order_relaxed,
                                                      memory_order_relaxed)) {
                *task = c->task;
                atomic_store_explicit(&c->seq, pos + q->mask + 1 - (pos & q->mask), memory_order_release);
                return 1;
            }
        } else if (dif < 0) {
            return 0;
        } else {
            pos = atomic_load_explicit(&q->head, memory_order_relaxed);
        }
    }
}

uint64_t rt_ready_queue_size(rt_ready_queue *q)
{
    uint64_t t = atomic_load_explicit(&q->tail, memory_order_relaxed);
    uint64_t h = atomic_load_explicit(&q->head, memory_order_relaxed);
    return t > h ? t - h : 0;
}
