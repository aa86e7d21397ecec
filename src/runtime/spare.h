/*
 * spare.h - spare threads behind blocking waits (DISTRIBUTED-SPEC D10, §2.5).
 *
 * A kernel whose comm wait reaches its sleep phase (3 ms: base/backoff.h;
 * a shorter wait is a slow answer, not a block, and costs no wake-up) hands its executor slot
 * over (rt_spare_block): while `blocked` kernels wait, up to `blocked` spare
 * threads run ready tasks, so waiters submitted before their publisher
 * cannot take every executor.  Spares are created lazily, at most
 * PTO_MAX_SPARE_WAITERS per runtime, in executor slots num_workers + 1 ...; one that
 * finds more spares running than kernels blocked stops taking tasks after
 * the one in hand and parks on spare_seq.  Invariant: spares_running <=
 * blocked, except for the one task a spare may still finish after its waiter
 * resumed.
 */
#ifndef RT_SPARE_H
#define RT_SPARE_H

#include "runtime/rt.h"

/* Kernels blocked past this many on one rank get no further spare (§3 row 4'). */
#define PTO_MAX_SPARE_WAITERS 64

/* A kernel on this thread entered (on = 1) or left (on = 0) a blocking wait. */
void rt_spare_block(pto_runtime *rt, int on);
/* Executor slots in use: workers, the orchestrator, the spares created so far. */
int rt_executors(const pto_runtime *rt);
/* Stops and joins the spares (shutdown is set). */
void rt_spare_stop_all(pto_runtime *rt);

#endif
