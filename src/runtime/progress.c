/*
 * progress.c - counts of work done (see progress.h).  Each executor writes
 * only its own counter; readers sum them (acquire), so a total may lag a
 * completion but never runs ahead of one.
 */
#include "runtime/progress.h"

#include "runtime/spare.h"

uint64_t rt_progress_executed(pto_runtime *rt)
{
    uint64_t n = 0;
    for (int k = 0, e = rt_executors(rt); k < e; k++)
        n += atomic_load_explicit(&rt->workers[k].completed, memory_order_acquire);
    return n;
}

uint64_t rt_progress_completed(pto_runtime *rt)
{
    return __atomic_load_n(&rt->orch_completed, __ATOMIC_RELAXED) + rt_progress_executed(rt);
}

uint64_t rt_progress_total(pto_runtime *rt)
{
    uint64_t p = rt_progress_completed(rt);
    for (int r = 0; r < PTO_NUM_RINGS; r++)
        p += atomic_load_explicit(&rt->rings[r].last_alive, memory_order_acquire);
    return p;
}
