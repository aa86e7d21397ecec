/*
 * diagnose.h - the capacity and stall error messages (docs/runtime.md, "Errors").
 *
 * Each builder gathers the numbers a user needs (ring state, the head task,
 * what was requested, which RunConfig field to change) and latches the
 * error through rt_error_fail.  Orchestrator only.
 */
#ifndef RT_DIAGNOSE_H
#define RT_DIAGNOSE_H

#include "runtime/rt.h"
#include "runtime/wait.h"

typedef enum rt_verdict {
    RT_V1_STRUCTURAL = 1, /* the head task is pinned by an open scope */
    RT_V2_NEVER_FITS = 2, /* the request exceeds the ring's capacity */
    RT_V3_STALL = 3       /* no progress anywhere for stall_timeout_ms */
} rt_verdict;

/* Latches the capacity error for `what` on ring r; returns -code. */
int rt_diagnose_capacity(pto_runtime *rt, int r, rt_resource what, rt_verdict v, uint64_t need,
                         uint64_t stalled_ms);
/* SCOPE_DEADLOCK for the current scope. */
int rt_diagnose_scope_deadlock(pto_runtime *rt);
/* The V3 lines ("No progress anywhere ..." and "progress: ..."). */
void rt_diagnose_progress(pto_runtime *rt, uint64_t stalled_ms, char *buf, size_t cap, size_t *len);
/* "Task ring <r>: ..." line. */
void rt_diagnose_task_line(pto_runtime *rt, int r, char *buf, size_t cap, size_t *len);
/* Counts of running / ready / waiting tasks and the longest-running one. */
typedef struct rt_census {
    uint64_t running, ready, deferred, waiting, completed;
    pto_task_id longest;
    const char *longest_kernel;
    uint64_t longest_ms;
    int longest_worker;
} rt_census;
void rt_diagnose_census(pto_runtime *rt, rt_census *c);
/* Fails at once: a request that can never fit (V2). */
int rt_diagnose_never_fits(pto_runtime *rt, int r, rt_resource what, uint64_t need);

#endif
