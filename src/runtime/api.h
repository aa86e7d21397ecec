/*
 * api.h - what every public call does first and last.  Entering, it
 * returns the latched status (a NULL runtime is INVALID_ARGS: there is
 * nothing to latch it in); leaving with an error, or entering after a
 * fatal another thread latched, freezes and writes the scope stats once.
 */
#ifndef RT_API_H
#define RT_API_H

#include <stdatomic.h>

#include "runtime/stats.h"

static inline int rt_api_enter(pto_runtime *rt)
{
    if (!rt) return PTO_INVALID_ARGS;
    int st = atomic_load_explicit(&rt->status, memory_order_acquire);
    if (st) rt_stats_freeze(rt);
    return st;
}

static inline int rt_api_leave(pto_runtime *rt, int rc)
{
    if (rc && rt && atomic_load_explicit(&rt->status, memory_order_acquire)) rt_stats_freeze(rt);
    return rc;
}

#endif
