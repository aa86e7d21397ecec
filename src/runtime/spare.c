/*
 * spare.c - spare threads behind blocking waits (see spare.h).
 *
 * Counters (seq_cst): spare_blocked, kernels now in a blocking wait;
 * spare_running, spares holding a slot; spare_count, threads created
 * (written under spare_lock, read acquire).  A spare takes a slot by CAS
 * while running < blocked, runs tasks until running > blocked (its waiter
 * resumed), gives the slot back and parks on spare_seq, which every block
 * bumps and wakes.
 */
#include "runtime/spare.h"

#include "runtime/worker.h"

int rt_executors(const pto_runtime *rt)
{
    return rt->num_workers + 1 + atomic_load_explicit(&((pto_runtime *)rt)->spare_count, memory_order_acquire);
}

static int rt_spare_take(pto_runtime *rt)
{
    int r = atomic_load(&rt->spare_running);
    while (r < atomic_load(&rt->spare_blocked))
        if (atomic_compare_exchange_weak(&rt->spare_running, &r, r + 1)) return 1;
    return 0;
}

static int rt_spare_over(pto_runtime *rt)
{
    return atomic_load_explicit(&rt->shutdown, memory_order_acquire) ||
           atomic_load(&rt->spare_running) > atomic_load(&rt->spare_blocked);
}

static void *rt_spare_main(void *arg)
{
    rt_worker *w = arg;
    pto_runtime *rt = w->rt;
    while (!atomic_load_explicit(&rt->shutdown, memory_order_acquire)) {
        uint32_t seq = atomic_load(&rt->spare_seq);
        if (!rt_spare_take(rt)) {
            if (!atomic_load_explicit(&rt->shutdown, memory_order_acquire)) rt_futex_wait(&rt->spare_seq, seq, 0);
            continue;
        }
        rt_worker_loop(rt, w, rt_spare_over);
        atomic_fetch_sub(&rt->spare_running, 1);
    }
    return NULL;
}

void rt_spare_block(pto_runtime *rt, int on)
{
    if (!on) {
        atomic_fetch_sub(&rt->spare_blocked, 1);
        return;
    }
    int b = atomic_fetch_add(&rt->spare_blocked, 1) + 1;
    if (b > atomic_load_explicit(&rt->spare_count, memory_order_acquire)) {
        pthread_mutex_lock(&rt->spare_lock);
        int n = atomic_load_explicit(&rt->spare_count, memory_order_relaxed);
        if (b > n && n < PTO_MAX_SPARE_WAITERS && !atomic_load(&rt->shutdown)) {
            rt_worker *w = &rt->workers[rt->num_workers + 1 + n];
            w->rt = rt, w->index = rt->num_workers + 1 + n;
            atomic_store(&w->running, PTO_INVALID_TASK_ID);
            if (pthread_create(&w->thread, NULL, rt_spare_main, w) == 0)
                atomic_store_explicit(&rt->spare_count, n + 1, memory_order_release);
        } else if (b > n) {
            atomic_store(&rt->spare_capped, 1);
        }
        pthread_mutex_unlock(&rt->spare_lock);
    }
    atomic_fetch_add(&rt->spare_seq, 1);
    rt_futex_wake(&rt->spare_seq, 1);
}

void rt_spare_stop_all(pto_runtime *rt)
{
    atomic_fetch_add(&rt->spare_seq, 1);
    rt_futex_wake(&rt->spare_seq, INT32_MAX);
    pthread_mutex_lock(&rt->spare_lock);
    int n = atomic_load(&rt->spare_count);
    pthread_mutex_unlock(&rt->spare_lock);
    for (int k = 0; k < n; k++) pthread_join(rt->workers[rt->num_workers + 1 + k].thread, NULL);
}
