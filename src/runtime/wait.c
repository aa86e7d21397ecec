/*
 * wait.c - back-pressure: the orchestrator waiting for a ring resource.
 *
 * A full resource is normal; the orchestrator waits for the watermark.  Each
 * step, in order: a fatal latched elsewhere is returned; the structural test
 * (the ring's head task still pinned by an open scope: only this thread
 * could release it) fails at once (V1); no progress anywhere for
 * stall_timeout_ms fails (V3).  Progress is any completion or any watermark
 * move on any ring; a kernel blocked in a comm wait counts as progress (its
 * own bound reports COMM_WAIT_TIMEOUT).  Waiting spins for RT_SPIN_US, then sleeps on the
 * ring's watermark futex in 10 ms slices; when the workers leave a core
 * free (orch_helps) the waiting orchestrator runs ready tasks instead.
 */
#include "runtime/wait.h"

#include <stdio.h>

#include "runtime/diagnose.h"
#include "runtime/error.h"
#include "runtime/progress.h"
#include "runtime/warn.h"
#include "runtime/worker.h"

#define RT_WAIT_SLICE_NS 10000000ull
#define RT_BLOCKED_REPORT_NS 1000000000ull

void rt_wait_begin(pto_runtime *rt, rt_wait *w)
{
    w->start_ns = w->last_progress_ns = base_now_ns();
    w->progress = rt_progress_total(rt);
    w->blocked_printed = 0;
    w->spins = 0;
}

int rt_wait_stalled(pto_runtime *rt, rt_wait *w, uint64_t *stalled_ms)
{
    uint64_t p = rt_progress_total(rt);
    w->now_ns = base_now_ns();
    /* a kernel in a comm wait has its own bound (comm.h): it, not this one, judges the stall */
    if (p != w->progress || atomic_load(&rt->comm_waits) > 0) w->progress = p, w->last_progress_ns = w->now_ns;
    *stalled_ms = (w->now_ns - w->last_progress_ns) / 1000000;
    return rt->cfg.stall_timeout_ms >= 0 && *stalled_ms >= (uint64_t)rt->cfg.stall_timeout_ms;
}

/* V1: head h (the watermark the failed check saw) is live and its scope
 * reference not yet released, so the watermark can never pass it. */
static int rt_head_pinned(rt_ring *ring, uint32_t h)
{
    if (h == atomic_load(&ring->cur)) return 0;
    rt_slot *s = rt_ring_slot(ring, h);
    rt_spin_lock(&s->lock);
    int pinned = s->fanout_refcount < RT_FANOUT_SCOPE_BIT;
    rt_spin_unlock(&s->lock);
    return pinned;
}

static void rt_print_blocked(pto_runtime *rt, int r, rt_resource what, uint64_t waited_ms)
{
    static const char *names[] = {"task", "heap", "dep_pool", "spill", "tensormap"};
    rt_ring *ring = &rt->rings[r];
    rt_warn(&rt->cfg, PTO_WARNING_RING_BLOCKED,
            "[TaskAllocator ring=%d] BLOCKED: tasks=%u/%u, heap_used=%llu/%llu, "
            "heap_available=%llu, heap_cursor=%llu, on=%s, waited_ms=%llu",
            r, rt_ring_live(ring), ring->window, (unsigned long long)rt_heap_used(&ring->heap),
            (unsigned long long)ring->heap.size,
            (unsigned long long)rt_heap_available(&ring->heap),
            (unsigned long long)ring->heap.top, names[what], (unsigned long long)waited_ms);
}

/* done_waiting (seq_cst) pairs with the executor's counter store: either it
 * sees the flag and wakes us, or we see its completion and do not sleep. */
int rt_wait_completion(pto_runtime *rt, uint64_t p)
{
    uint32_t seq = atomic_load(&rt->done_seq);
    atomic_store(&rt->done_waiting, 1);
    atomic_thread_fence(memory_order_seq_cst);
    if (rt_progress_total(rt) == p) rt_futex_wait(&rt->done_seq, seq, RT_WAIT_SLICE_NS);
    atomic_store(&rt->done_waiting, 0);
    return 0;
}

int rt_wait_step(pto_runtime *rt, rt_wait *w, int r, rt_resource what, uint64_t need)
{
    int st = rt_error_latched(rt);
    if (st) return -st;
    rt_ring *ring = &rt->rings[r];
    /* The caller's check used the watermark snapshot reclaimed_at: if the
     * watermark moved since, retry before judging anything. */
    if (what != RT_RES_TENSORMAP) {
        if (atomic_load(&ring->last_alive) != ring->reclaimed_at) return 0;
        /* V1 needs a request that cannot shrink: the dep pool's does, as
         * its producers complete. */
        if (what != RT_RES_DEP_POOL && rt_head_pinned(ring, ring->reclaimed_at))
            return rt_diagnose_capacity(rt, r, what, RT_V1_STRUCTURAL, need, 0);
    }

    uint64_t stalled_ms;
    if (rt_wait_stalled(rt, w, &stalled_ms))
        return rt_diagnose_capacity(rt, r, what, RT_V3_STALL, need, stalled_ms);
    uint64_t now = w->now_ns, p = w->progress;
    if (!w->blocked_printed && now - w->start_ns > RT_BLOCKED_REPORT_NS) {
        w->blocked_printed = 1;
        rt_print_blocked(rt, r, what, (now - w->start_ns) / 1000000);
    }

    /* With a core the workers leave free, run a ready task instead of
     * waiting idle: that is what frees the ring. */
    pto_task_id id;
    if (rt->orch_helps && rt_ready_queue_pop(&rt->ready, &id)) {
        rt_worker *self = &rt->workers[rt->num_workers];
        while (id != PTO_INVALID_TASK_ID) id = rt_worker_execute(rt, self, id);
        return 0;
    }
    if (now - w->start_ns < RT_SPIN_US * 1000ull) {
        for (int i = 0; i < 64; i++) rt_cpu_relax();
        return 0;
    }
    if (what == RT_RES_DEP_POOL) return rt_wait_completion(rt, p);
    /* Sleep only if the watermark is still the one the caller reclaimed
     * from; orch_waiting (seq_cst) pairs with the advancer's store. */
    atomic_store(&ring->orch_waiting, 1);
    uint32_t la = atomic_load(&ring->last_alive);
    if (what == RT_RES_TENSORMAP || la == ring->reclaimed_at)
        rt_futex_wait(&ring->last_alive, la, what == RT_RES_TENSORMAP ? 1000000ull : RT_WAIT_SLICE_NS);
    atomic_store(&ring->orch_waiting, 0);
    return 0;
}
