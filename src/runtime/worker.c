/*
 * worker.c - worker threads: pop a ready task, run its kernel, complete it.
 *
 * Completing a task, in order: release the producers it retained (its fanin
 * list lives in its own slot, which cannot be reused before it completes);
 * under its lock flip it to COMPLETED, take its fanout list and, if nothing
 * else holds it, flip it on to CONSUMED; then count one arrival on each
 * consumer (reading the node's `next` and the consumer's fanin_count before
 * the arrival: once it lands, the consumer may run and retire, and its node
 * and slot be reused).  A worker that makes several consumers
 * ready keeps the first to run next and pushes the rest.
 *
 * An SPMD task (num_blocks > 1) is run n times, block by block, by whichever
 * executors pop it (rt_worker_execute); the executor finishing the last
 * block completes it, so its consumers see every block's writes (acq_rel on
 * block_done).
 *
 * Idle workers spin for RT_SPIN_US, then park on the ready_seq futex,
 * counted in `parked` so pushers wake exactly when someone sleeps.  The
 * orchestrator uses the same loop while it waits in pto_runtime_finish: it runs
 * ready tasks as executor number num_workers.  After a latched fatal,
 * popped tasks complete without running, so the graph drains.
 */
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "runtime/worker.h"

#include "runtime/check.h"
#include "runtime/deferred.h"
#include "runtime/error.h"
#include "runtime/format.h"
#include "runtime/predicate.h"
#include "runtime/progress.h"
#include "runtime/spare.h"
#include "runtime/task_state.h"

static void rt_release_retained(pto_runtime *rt, rt_ring *ring, const rt_slot *s)
{
    for (uint32_t i = 0; i < s->num_fanin; i++) {
        uint64_t e = rt_slot_fanin_edge(s, &ring->spill, i);
        if (e & RT_DEP_RETAIN) rt_task_release(rt, RT_EDGE_ID(e), 1);
    }
}

/* Completes task id; returns a consumer it made ready (to run next) or
 * PTO_INVALID_TASK_ID. */
static pto_task_id rt_complete(pto_runtime *rt, pto_task_id id)
{
    rt_ring *ring = &rt->rings[rt_task_ring(id)];
    rt_slot *s = rt_ring_slot(ring, rt_task_local(id));
    rt_release_retained(rt, ring, s);

    rt_spin_lock(&s->lock);
    RT_ASSERT(atomic_load_explicit(&s->state, memory_order_relaxed) == RT_TASK_PENDING);
    atomic_store_explicit(&s->state, RT_TASK_COMPLETED, memory_order_release);
    rt_dep_node *node = s->fanout_head;
    int consumed = rt_task_try_consume_locked(s);
    rt_spin_unlock(&s->lock);

    pto_task_id next_task = PTO_INVALID_TASK_ID;
    while (node) {
        rt_dep_node *next = node->next;
        pto_task_id c = node->consumer;
        rt_slot *cs = rt_ring_slot(&rt->rings[rt_task_ring(c)], rt_task_local(c));
        /* fanin_count first: after our arrival the consumer may run, retire
         * and have its slot reused. */
        uint32_t need = cs->fanin_count;
        if (atomic_fetch_add_explicit(&cs->fanin_refcount, 1, memory_order_acq_rel) + 1 == need) {
            if (next_task == PTO_INVALID_TASK_ID) next_task = c;
            else rt_task_push_ready(rt, c);
        }
        node = next;
    }
    if (consumed) rt_ring_advance(ring);
    return next_task;
}

static void rt_run(pto_runtime *rt, rt_worker *w, pto_task_id id, const rt_slot *s, uint32_t block)
{
    if (!s->kernel || rt_error_latched(rt)) return;
    if (s->has_pred && !rt_pred_holds(&s->pred, s->views)) return; /* retires unrun (D-pred) */
    pto_kernel_args args = {
        .task_id = id,
        .worker = w->index,
        .ctx = s->ctx,
        .num_views = s->num_views,
        .views = s->views,
        .num_scalars = s->num_scalars,
        .scalars = s->scalars,
        .message = w->message,
        .message_len = sizeof w->message,
        .runtime = rt,
        .block_idx = block,
        .num_blocks = s->num_blocks,
    };
    w->message[0] = 0;
    uint64_t start = base_now_ns();
    atomic_store_explicit(&w->running_since, start, memory_order_relaxed);
    atomic_store_explicit(&w->running, id, memory_order_release);
    int rc = s->kernel(&args);
    atomic_store_explicit(&w->running, PTO_INVALID_TASK_ID, memory_order_release);
    if (rt->trace.file) rt_trace_record(&w->trace, id, s->name, start, base_now_ns(), block, s->num_blocks);
    if (rc == 0) return;

    char header[96], details[1024], tid[32], blk[48] = "";
    rt_where at = rt_format_where(s->scope_file, s->scope_line, s->scope_depth);
    w->message[sizeof w->message - 1] = 0;
    rt_format_id(id, tid, sizeof tid);
    if (s->num_blocks > 1) snprintf(blk, sizeof blk, " (block %u of %u)", block, s->num_blocks);
    snprintf(header, sizeof header, "FATAL: Kernel Failed! task=%s ring=%d", tid, rt_task_ring(id));
    snprintf(details, sizeof details, "kernel=%s rc=%d worker=%d message=%s%s; scope=%s depth=%s",
             s->name, rc, w->index, w->message[0] ? w->message : "-", blk, at.site, at.depth);
    rt_error_fail(rt, PTO_KERNEL_FAILED, rt_task_ring(id), header, details,
            "the kernel itself reported the failure; tasks not yet started were skipped; no "
            "RunConfig field helps");
}

int rt_worker_wait_ready(pto_runtime *rt, rt_worker *w, pto_task_id *id, int (*stop)(pto_runtime *), uint64_t timeout_ns)
{
    uint64_t spin_until = 0;
    for (;;) {
        if (rt_ready_queue_pop(&rt->ready, id)) return rt_deferred_busy(rt, w), 1;
        if (stop(rt)) return rt_deferred_busy(rt, w), 0;
        uint64_t park_ns = timeout_ns;
        int tester = rt_deferred_idle(rt, w, &park_ns, id);
        if (tester == 3) return rt_deferred_busy(rt, w), 1;
        if (tester == 1) continue;
        uint64_t now = base_now_ns();
        if (!spin_until) spin_until = now + RT_SPIN_US * 1000ull;
        if (!tester && now < spin_until) {
            if (rt->shared_core) sched_yield();
            else for (int i = 0; i < 32; i++) rt_cpu_relax();
            continue;
        }
        uint32_t seq = atomic_load(&rt->ready_seq);
        atomic_fetch_add(&rt->parked, 1);
        atomic_thread_fence(memory_order_seq_cst);
        int got = rt_ready_queue_pop(&rt->ready, id);
        /* a tester that left saw us parked and woke someone, or we see the role free here */
        int untested = atomic_load(&rt->deferred.count) && atomic_load(&rt->deferred.poller) < 0;
        if (!got && !untested && !stop(rt)) rt_futex_wait(&rt->ready_seq, seq, park_ns);
        atomic_fetch_sub(&rt->parked, 1);
        if (got) return rt_deferred_busy(rt, w), 1;
        if (timeout_ns) {
            if (rt_ready_queue_pop(&rt->ready, id)) return rt_deferred_busy(rt, w), 1;
            return 0; /* still idle: a tester keeps its role */
        }
        spin_until = 0;
    }
}

pto_task_id rt_worker_complete(pto_runtime *rt, rt_worker *w, pto_task_id id)
{
    pto_task_id next = rt_complete(rt, id);
    /* Only this executor writes its counter: no read-modify-write needed. */
    atomic_store_explicit(&w->completed, atomic_load_explicit(&w->completed, memory_order_relaxed) + 1,
                          memory_order_seq_cst);
    if (atomic_load(&rt->done_waiting)) {
        atomic_fetch_add(&rt->done_seq, 1);
        rt_futex_wake(&rt->done_seq, 1);
    }
    /* The last completion a finishing orchestrator waits for wakes it. */
    if (atomic_load(&rt->finish_waiting) && rt_progress_executed(rt) == atomic_load(&rt->finish_target)) {
        atomic_fetch_add(&rt->ready_seq, 1);
        rt_futex_wake(&rt->ready_seq, INT32_MAX);
    }
    return next;
}

pto_task_id rt_worker_execute(pto_runtime *rt, rt_worker *w, pto_task_id id)
{
    const rt_slot *s = rt_ring_slot(&rt->rings[rt_task_ring(id)], rt_task_local(id));
    if (s->num_blocks > 1) {
        /* One queue entry per SPMD task at a time: claim a block and, while
         * blocks are left, hand the task back so another executor claims the
         * next (n claims in all, each of a different block).  The slot stays
         * ours until the last block is done and the task completes. */
        rt_slot *m = (rt_slot *)s;
        uint32_t n = s->num_blocks, b = atomic_fetch_add_explicit(&m->block_next, 1, memory_order_relaxed);
        if (b + 1 < n) rt_task_push_ready(rt, id);
        rt_run(rt, w, id, s, b);
        if (atomic_fetch_add_explicit(&m->block_done, 1, memory_order_acq_rel) + 1 < n) return PTO_INVALID_TASK_ID;
    } else {
        rt_run(rt, w, id, s, 0);
        if (w->deferred) { /* DEFERRED: a tester completes it */
            w->deferred = 0;
            return PTO_INVALID_TASK_ID;
        }
    }
    return rt_worker_complete(rt, w, id);
}

static int rt_shutting_down(pto_runtime *rt)
{
    return atomic_load_explicit(&rt->shutdown, memory_order_acquire);
}

void rt_worker_loop(pto_runtime *rt, rt_worker *w, int (*stop)(pto_runtime *))
{
    pto_task_id id;
    while (rt_worker_wait_ready(rt, w, &id, stop, 0))
        while (id != PTO_INVALID_TASK_ID) {
            id = rt_worker_execute(rt, w, id);
            rt_deferred_between_tasks(rt, w, &id);
        }
}

static void *rt_worker_main(void *arg)
{
    rt_worker *w = arg;
    rt_worker_loop(w->rt, w, rt_shutting_down);
    return NULL;
}

int rt_worker_start_all(pto_runtime *rt)
{
    for (int k = 0; k < rt->num_workers; k++) {
        rt_worker *w = &rt->workers[k];
        w->rt = rt;
        w->index = k;
        atomic_store(&w->running, PTO_INVALID_TASK_ID);
        if (pthread_create(&w->thread, NULL, rt_worker_main, w) != 0) {
            rt->num_workers = k;
            rt_worker_stop_all(rt);
            return -1;
        }
    }
    return 0;
}

void rt_worker_stop_all(pto_runtime *rt)
{
    atomic_store(&rt->shutdown, 1);
    atomic_fetch_add(&rt->ready_seq, 1);
    rt_futex_wake(&rt->ready_seq, INT32_MAX);
    for (int k = 0; k < rt->num_workers; k++) pthread_join(rt->workers[k].thread, NULL);
    rt_spare_stop_all(rt);
}
