/*
 * testutil.h - helpers for tests that look inside the runtime: a gate that
 * holds latch kernels until the test opens it (bounded: a gate never opened
 * lets go after 10 s and the kernel fails), task slots and waits on task
 * states.  The public-API helpers (clocks, configs, make_rt, ...) come from
 * e2e.h, which it includes.  Include after harness.h.
 */
#ifndef PTO_TESTUTIL_H
#define PTO_TESTUTIL_H

#include <stdatomic.h>

#include "e2e.h"
#include "runtime/rt.h"
#include "runtime/task_state.h"

static _Atomic int tu_gate;      /* 0 = closed */
static _Atomic int tu_runs;      /* kernels that ran */

/* Waits for the gate; counts itself in tu_runs. */
static inline int tu_latch_kernel(const pto_kernel_args *a)
{
    (void)a;
    uint64_t end = now_ms() + 10000;
    while (!atomic_load(&tu_gate))
        if (now_ms() > end) return 99;
        else nap_ms(1);
    atomic_fetch_add(&tu_runs, 1);
    return 0;
}

static inline int tu_count_kernel(const pto_kernel_args *a)
{
    (void)a;
    atomic_fetch_add(&tu_runs, 1);
    return 0;
}

static inline void tu_gate_reset(void)
{
    atomic_store(&tu_gate, 0);
    atomic_store(&tu_runs, 0);
}

/* Submits a task with explicit deps only (kernel may be NULL: dummy). */
static inline pto_task_id tu_submit(pto_runtime *rt, pto_kernel_fn k, const pto_dep *deps, uint32_t n)
{
    pto_task t = {.kernel = k, .name = "tu", .deps = deps, .num_deps = n};
    pto_task_id id;
    assert_int_equal(pto_task_submit(rt, &t, &id), 0);
    return id;
}

static inline rt_slot *tu_slot(pto_runtime *rt, pto_task_id id)
{
    return rt_ring_slot(&rt->rings[rt_task_ring(id)], rt_task_local(id));
}

static inline uint32_t tu_state(pto_runtime *rt, pto_task_id id)
{
    return atomic_load(&tu_slot(rt, id)->state);
}

/* Waits (bounded, 5 s) until the task's state is at least st. */
static inline void tu_wait_state(pto_runtime *rt, pto_task_id id, uint32_t st)
{
    uint64_t end = now_ms() + 5000;
    while (tu_state(rt, id) < st && now_ms() < end) nap_ms(1);
    assert_true(tu_state(rt, id) >= st);
}

static inline pto_dep tu_dep(pto_task_id id, pto_dep_kind k)
{
    pto_dep d = {id, k};
    return d;
}

#endif
