/*
 * worker.h - the executors (worker.c): worker threads, and the
 * orchestrator when it helps.
 */
#ifndef RT_WORKER_H
#define RT_WORKER_H

#include "runtime/rt.h"

int rt_worker_start_all(pto_runtime *rt);
void rt_worker_stop_all(pto_runtime *rt);
/* Runs and completes task id on executor w; returns a task it made ready
 * to run next, or PTO_INVALID_TASK_ID. */
pto_task_id rt_worker_execute(pto_runtime *rt, rt_worker *w, pto_task_id id);
/* Completes task id (its kernel has run) on executor w's counter; returns a
 * task it made ready, or PTO_INVALID_TASK_ID. */
pto_task_id rt_worker_complete(pto_runtime *rt, rt_worker *w, pto_task_id id);
/* Executor w waits for a ready task: spins RT_SPIN_US, then parks on
 * ready_seq; while tasks are DEFERRED, one idle executor tests them instead
 * (deferred.h).  Returns 1 with *id, or 0 once stop(rt) holds (or a park of
 * timeout_ns, if non-zero, ended empty). */
int rt_worker_wait_ready(pto_runtime *rt, rt_worker *w, pto_task_id *id, int (*stop)(pto_runtime *), uint64_t timeout_ns);
/* Runs ready tasks on executor w until stop(rt) holds with none ready. */
void rt_worker_loop(pto_runtime *rt, rt_worker *w, int (*stop)(pto_runtime *));

#endif
