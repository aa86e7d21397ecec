/*
 * testutil.h - helpers for tests that look inside the runtime: a gate that
 * holds latch kernels until the test opens it (bounded: a gate never opened
 * lets go after 10 s and the kernel fails), small configs, and waits on task
 * states.  Include after harness.h.
 */
#ifndef PTO_TESTUTIL_H
#define PTO_TESTUTIL_H

#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "pto/runtime.h"
#include "runtime/rt.h"

static _Atomic int tu_gate;      /* 0 = closed */
static _Atomic int tu_runs;      /* kernels that ran */

static inline uint64_t tu_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000ull + (uint64_t)ts.tv_nsec / 1000000ull;
}

static inline void tu_nap_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Waits for the gate; counts itself in tu_runs. */
static inline int tu_latch_kernel(const pto_kernel_args *a)
{
    (void)a;
    uint64_t end = tu_now_ms() + 10000;
    while (!atomic_load(&tu_gate))
        if (tu_now_ms() > end) return 99;
        else tu_nap_ms(1);
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

static inline pto_config tu_config(uint64_t window, uint64_t heap, uint64_t deps, int workers, int stall_ms)
{
    pto_config c;
    memset(&c, 0, sizeof c);
    for (int r = 0; r < PTO_NUM_RINGS; r++) {
        c.runtime_env.ring_task_window[r] = window;
        c.runtime_env.ring_heap[r] = heap;
        c.runtime_env.ring_dep_pool[r] = deps;
    }
    c.num_workers = workers;
    c.stall_timeout_ms = stall_ms;
    return c;
}

static inline pto_runtime *tu_create(const pto_config *c)
{
    pto_error err;
    pto_runtime *rt = pto_runtime_create(c, &err);
    if (!rt) print_error("create failed: %s\n", err.message);
    assert_non_null(rt);
    return rt;
}

/* Submits a task with explicit deps only (kernel may be NULL: dummy). */
static inline pto_task_id tu_submit(pto_runtime *rt, pto_kernel_fn k, const pto_dep *deps, uint32_t n)
{
    pto_task t = {.kernel = k, .name = "tu", .deps = deps, .num_deps = n};
    pto_task_id id;
    assert_int_equal(pto_submit(rt, &t, &id), 0);
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
    uint64_t end = tu_now_ms() + 5000;
    while (tu_state(rt, id) < st && tu_now_ms() < end) tu_nap_ms(1);
    assert_true(tu_state(rt, id) >= st);
}

static inline pto_dep tu_dep(pto_task_id id, pto_dep_kind k)
{
    pto_dep d = {id, k};
    return d;
}

#endif
