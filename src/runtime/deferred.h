/*
 * deferred.h - DEFERRED tasks (pto_task_defer; DISTRIBUTED-SPEC D9, §2.5):
 * a task whose kernel posted work that completes later, without a thread.
 *
 * The DEFERRED state lives here, not in the slot's state word: the slot
 * stays PENDING (what its consumers and the tensormap must see) and the
 * table says the kernel has run.  Invariants: a task is in tasks[] from the
 * kernel's pto_task_defer until one tester sees its test done, failed, or
 * the run failed; only the holder of `lock` tests or removes entries; each
 * removed entry is completed exactly once, by the thread that removed it,
 * on its own executor counter; while count > 0 comm_waits counts each entry
 * (the runtime's other stall bounds leave them to this one), and at most one
 * idle executor (`poller`) tests instead of parking.
 */
#ifndef RT_DEFERRED_H
#define RT_DEFERRED_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "base/backoff.h"
#include "pto/runtime.h"
#include "runtime/sync.h"

struct rt_worker;

typedef struct rt_deferred_task {
    pto_task_id id;
    pto_defer_test test;
    void *arg;
    uint64_t since_ns, progress; /* the stall clock: when the runtime's progress last changed */
} rt_deferred_task;

typedef struct rt_deferred {
    _Alignas(RT_CACHE_LINE) _Atomic int count; /* entries in tasks[] (seq_cst) */
    _Atomic int poller;   /* executor index of the idle tester, -1 none */
    _Atomic uint32_t seq; /* bumped by every entry and removal: the tester's backoff restarts */
    pthread_mutex_t lock; /* tasks[]: trylock by testers, lock by pto_task_defer */
    rt_deferred_task tasks[PTO_MAX_DEFERRED];
} rt_deferred;

void rt_deferred_init(rt_deferred *d);
void rt_deferred_destroy(rt_deferred *d);
/* Tests every deferred task once (unless another thread is testing) and
 * completes on executor w those that are over; returns how many.  A task
 * their completions made ready goes to *run when run is not NULL and *run is
 * PTO_INVALID_TASK_ID (w runs it next, as a worker runs the consumer it
 * readied), the others to the ready queue. */
int rt_deferred_poll(pto_runtime *rt, struct rt_worker *w, pto_task_id *run);
/* Whether task id is DEFERRED now (diagnostics: 0 while a tester holds the table). */
int rt_deferred_has(pto_runtime *rt, pto_task_id id);
/* Workers between two tasks (*run: the next task, PTO_INVALID_TASK_ID when
 * none): rt_deferred_poll at most every 100 us. */
void rt_deferred_between_tasks(pto_runtime *rt, struct rt_worker *w, pto_task_id *run);
/* Idle executor w found no ready task.  0: nothing deferred, or another
 * executor tests them: wait as usual.  1: w tested them or paused (look for
 * ready tasks again).  2: w is the tester and may park for *park_ns at most.
 * 3: a completion made *run ready: w runs it. */
int rt_deferred_idle(pto_runtime *rt, struct rt_worker *w, uint64_t *park_ns, pto_task_id *run);
/* w stops being idle (it found a task, or stops): it hands the tester
 * role over, waking a parked executor while tasks are deferred. */
void rt_deferred_busy(pto_runtime *rt, struct rt_worker *w);

#endif
