/*
 * wait.h - back-pressure and stall detection for the orchestrator (wait.c).
 */
#ifndef RT_WAIT_H
#define RT_WAIT_H

#include "runtime/rt.h"

/* State of one back-pressure wait (orchestrator). */
typedef struct rt_wait {
    uint64_t start_ns, last_progress_ns, progress;
    uint64_t now_ns; /* the clock at the last rt_wait_stalled */
    int blocked_printed;
    int spins;
} rt_wait;

typedef enum rt_resource {
    RT_RES_TASK = 0, RT_RES_HEAP, RT_RES_DEP_POOL, RT_RES_SPILL, RT_RES_TENSORMAP
} rt_resource;

void rt_wait_begin(pto_runtime *rt, rt_wait *w);
/* One wait step for `what` on ring r (need = the request); returns 0 to
 * retry, or a latched -code (V1 structural deadlock, V3 stall, or a fatal
 * latched elsewhere). */
int rt_wait_step(pto_runtime *rt, rt_wait *w, int r, rt_resource what, uint64_t need);
/* Notes progress (any completion or watermark move) since the last call;
 * returns 1 when there was none for stall_timeout_ms (never with -1), with
 * *stalled_ms set either way. */
int rt_wait_stalled(pto_runtime *rt, rt_wait *w, uint64_t *stalled_ms);
/* Sleeps (10 ms at most) until the next task completes, unless there was
 * progress since the caller's snapshot p = rt_progress_total(rt); returns 0. */
int rt_wait_completion(pto_runtime *rt, uint64_t p);

#endif
