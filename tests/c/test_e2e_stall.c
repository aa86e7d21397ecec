/*
 * test_e2e_stall.c - stall detection, end to end.
 *
 * A stall is "no progress anywhere for stall_timeout_ms" (docs/runtime.md,
 * "Errors", V3): slow kernels that keep completing, or progress on another ring,
 * must never trip it; a kernel that runs past the bound while nothing else
 * completes must.  The scales are cut down from the spec's (seconds) so each
 * test takes at most about 2 s.  Waits that must outlast the stall bound are
 * gated on events where the API allows it: a kernel that must still run
 * when pto_view_wait gives up waits on a gate the test opens afterwards, and
 * "the orchestrator was blocked longer than the bound" follows from sleeps
 * that run one after another.  Only pto_runtime_finish, which waits for running
 * kernels even after a stall, needs a kernel that runs ten times the bound.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "e2e.h"

static atomic_long g_done;     /* kernels finished */
static atomic_int g_gate;      /* gated kernels wait for it (bounded) */
static atomic_int g_started;   /* kernels started (k_sleep_inc, k_gated_inc) */

/* Waits until *n >= want; the bound (30 s) only ends a failing test. */
static void wait_count(atomic_int *n, int want)
{
    uint64_t end = now_ms() + 30000;
    while (atomic_load(n) < want && now_ms() < end) nap_ms(1);
}

static void wait_flag(atomic_int *flag) { wait_count(flag, 1); }

/* Counts itself started, sleeps scalars[0] ms, then adds 1 to views[0][0]
 * (if any view). */
static int k_sleep_inc(const pto_kernel_args *a)
{
    atomic_fetch_add(&g_started, 1);
    nap_ms((long)a->scalars[0]);
    if (a->num_views) *(uint64_t *)pto_view_at(&a->views[0], (const uint64_t[PTO_MAX_DIMS]){0}) += 1;
    atomic_fetch_add(&g_done, 1);
    return 0;
}

/* Counts itself started, waits for g_gate, then adds 1 to views[0][0] (if any). */
static int k_gated_inc(const pto_kernel_args *a)
{
    atomic_fetch_add(&g_started, 1);
    wait_flag(&g_gate);
    if (a->num_views) *(uint64_t *)pto_view_at(&a->views[0], (const uint64_t[PTO_MAX_DIMS]){0}) += 1;
    atomic_fetch_add(&g_done, 1);
    return 0;
}

static void submit_k(pto_runtime *rt, pto_kernel_fn k, const char *name, uint64_t ms, uint64_t *cell,
                     pto_task_id *id)
{
    pto_arg a[1] = {arg(PTO_ARG_INOUT, v1(cell, 0, 1))};
    uint64_t sc[1] = {ms};
    pto_task t = {k, NULL, name, a, cell ? 1 : 0, sc, 1, NULL, 0, 0};
    check_submit(rt, &t, id);
}

static void submit_sleep(pto_runtime *rt, const char *name, uint64_t ms, uint64_t *cell, pto_task_id *id)
{
    submit_k(rt, k_sleep_inc, name, ms, cell, id);
}

static void gate_reset(void)
{
    atomic_store(&g_gate, 0);
    atomic_store(&g_started, 0);
    atomic_store(&g_done, 0);
}

/* Window 4, 1500 one-task scopes of 1 ms kernels chained on one cell, stall
 * 1000 ms: the orchestrator is held back on every submit, in all longer than
 * the bound (1500 sleeps of 1 ms, one after another), but progress never
 * stops, so the run completes. */
static void test_slow_but_progressing_no_timeout(void **state)
{
    (void)state;
    pto_runtime *rt = make_rt_rings(4, 0, 0, 2, 1000);
    uint64_t cell[1] = {0};
    atomic_store(&g_done, 0);
    uint64_t t0 = now_ms();
    for (int i = 0; i < 1500; i++) {
        SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
        submit_sleep(rt, "slow", 1, cell, NULL);
        scope_end_ok(rt);
    }
    finish_ok(rt);
    uint64_t took = now_ms() - t0;
    print_message("1500 x 1 ms in %llu ms\n", (unsigned long long)took);
    assert_true(took >= 1000);
    assert_int_equal(cell[0], 1500);
    assert_int_equal(atomic_load(&g_done), 1500);
    pto_runtime_destroy(rt);
}

/* Ring 2's ticks: each waits for g_gate, then sleeps 50 ms while the long
 * kernel runs (not at all after it). */
static atomic_int g_long_done;
static int k_tick(const pto_kernel_args *a)
{
    wait_flag(&g_gate);
    if (!atomic_load(&g_long_done)) nap_ms(50);
    *(uint64_t *)pto_view_at(&a->views[0], (const uint64_t[PTO_MAX_DIMS]){0}) += 1;
    atomic_fetch_add(&g_done, 1);
    return 0;
}

/* The long kernel: after g_gate opens, runs until 25 more ticks completed. */
static int k_long(const pto_kernel_args *a)
{
    wait_flag(&g_gate);
    long want = atomic_load(&g_done) + 25;
    uint64_t end = now_ms() + 30000;
    while (atomic_load(&g_done) < want && now_ms() < end) nap_ms(1);
    *(uint64_t *)pto_view_at(&a->views[0], (const uint64_t[PTO_MAX_DIMS]){0}) += 1;
    atomic_store(&g_long_done, 1);
    return 0;
}

/* The orchestrator is blocked on ring 1 (window 4) behind a long kernel
 * while a ring-2 chain completes a task every 50 ms; stall 1000 ms -> no
 * error: progress anywhere resets the clock.  The gate opens just before the
 * blocking submit, and the long kernel lasts 25 ticks after that, so the
 * orchestrator is blocked for at least 25 x 50 ms. */
static void test_progress_elsewhere_resets_clock(void **state)
{
    (void)state;
    enum { TICKS = 80 };
    pto_config cfg = cfg_rings(0, 0, 0, 2, 1000);
    cfg.runtime_env.ring_task_window[1] = 4;
    pto_runtime *rt = make_rt(&cfg);
    uint64_t longcell[1] = {0}, chain[1] = {0}, quick[1] = {0};
    gate_reset();
    atomic_store(&g_long_done, 0);
    SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO); /* depth 0 */

    /* a closed depth-1 scope holding the long kernel: heads ring 1 */
    SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
    pto_task_id lid;
    submit_k(rt, k_long, "long", 0, longcell, &lid);
    assert_int_equal(lid >> 32, 1);
    scope_end_ok(rt);

    SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO); /* depth 1 */
    SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO); /* depth 2: the ring-2 chain */
    for (int i = 0; i < TICKS; i++) submit_k(rt, k_tick, "tick", 0, chain, NULL);
    scope_end_ok(rt);
    /* ring 1 again: two fit beside the long kernel, the third waits for it */
    for (int i = 0; i < 2; i++) submit_sleep(rt, "quick", 0, quick, NULL);
    atomic_store(&g_gate, 1);
    uint64_t t0 = now_ms();
    submit_sleep(rt, "quick", 0, quick, NULL);
    uint64_t blocked = now_ms() - t0;
    assert_int_equal(atomic_load(&g_long_done), 1);
    scope_end_ok(rt);
    scope_end_ok(rt);
    finish_ok(rt);
    print_message("orchestrator blocked %llu ms on ring 1\n", (unsigned long long)blocked);
    assert_true(blocked >= 1000); /* longer than the stall bound */
    assert_int_equal(longcell[0], 1);
    assert_int_equal(chain[0], TICKS);
    assert_int_equal(quick[0], 3);
    pto_runtime_destroy(rt);
}

/* A kernel runs 2 s while pto_runtime_finish waits, stall 200 ms -> SCHEDULER_TIMEOUT,
 * sub-class S1 naming the task (pto_runtime_finish still waits for the kernel); with
 * stall -1 a 600 ms kernel completes. */
static void test_finish_stall_is_s1(void **state)
{
    (void)state;
    pto_runtime *rt = make_rt_rings(0, 0, 0, 2, 200);
    uint64_t cell[1] = {0}, first[1] = {0};
    pto_task_id id;
    gate_reset();
    submit_sleep(rt, "quick", 0, first, NULL); /* so the stuck task is not the first */
    submit_sleep(rt, "sleeper", 2000, cell, &id);
    pto_view v = v1(first, 0, 1);
    check_ok(rt, pto_view_wait(rt, &v, 0), "pto_view_wait"); /* quick completed */
    wait_count(&g_started, 2);                               /* the sleeper runs */
    uint64_t t0 = now_ms();
    int rc = pto_runtime_finish(rt);
    uint64_t waited = now_ms() - t0;
    expect_code(rt, rc, PTO_SCHEDULER_TIMEOUT);
    expect_frag(rt, "PTO runtime failed: error_code=100 runtime_status=-100");
    expect_frag(rt, "FATAL: Scheduler Timeout! no progress for");
    expect_frag(rt, "sub_class=S1:running-stalled");
    /* the id prints as a number or as ring:local */
    char dec[64], pair[64];
    snprintf(dec, sizeof dec, "stuck_task_id=%llu ", (unsigned long long)id);
    snprintf(pair, sizeof pair, "stuck_task_id=%u:%u ", (unsigned)(id >> 32), (unsigned)(uint32_t)id);
    const char *m = pto_runtime_error(rt)->message;
    if (!strstr(m, dec) && !strstr(m, pair)) print_error("stuck task %s not named in:\n%s\n", pair, m);
    assert_true(strstr(m, dec) || strstr(m, pair));
    expect_frag(rt, "(sleeper)");
    expect_frag(rt, "raise stall_timeout_ms");
    assert_true(waited >= 200);
    assert_int_equal(cell[0], 1); /* pto_runtime_finish waited for it */
    pto_runtime_destroy(rt);

    rt = make_rt_rings(0, 0, 0, 2, -1);
    cell[0] = 0;
    submit_sleep(rt, "sleeper", 600, cell, NULL);
    finish_ok(rt);
    assert_int_equal(cell[0], 1);
    pto_runtime_destroy(rt);
}

/* pto_view_wait on a view whose writer is held on the gate, stall 300 ms ->
 * TENSOR_WAIT_TIMEOUT, while the writer still runs. */
static void test_wait_view_timeout(void **state)
{
    (void)state;
    pto_runtime *rt = make_rt_rings(0, 0, 0, 2, 300);
    uint64_t cell[4] = {0};
    gate_reset();
    submit_k(rt, k_gated_inc, "sleeper", 0, cell, NULL);
    pto_view v = v1(cell, 0, 1);
    uint64_t t0 = now_ms();
    int rc = pto_view_wait(rt, &v, 0);
    uint64_t waited = now_ms() - t0;
    /* it gave up on the stall bound, not on the writer finishing */
    assert_int_equal(atomic_load(&g_done), 0);
    atomic_store(&g_gate, 1);
    expect_code(rt, rc, PTO_TENSOR_WAIT_TIMEOUT);
    expect_frag(rt, "PTO runtime failed: error_code=8 runtime_status=-8");
    expect_frag(rt, "FATAL: Tensor Wait Timeout! ring=0");
    expect_frag(rt, "waiting to read view");
    expect_frag(rt, "No progress anywhere for");
    assert_true(waited >= 300);
    assert_int_equal(pto_runtime_finish(rt), -PTO_TENSOR_WAIT_TIMEOUT);

    /* the latch is cleared: the next run succeeds */
    submit_sleep(rt, "quick", 0, cell + 1, NULL);
    finish_ok(rt);
    assert_int_equal(cell[1], 1);
    pto_runtime_destroy(rt);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_slow_but_progressing_no_timeout),
    cmocka_unit_test(test_progress_elsewhere_resets_clock),
    cmocka_unit_test(test_finish_stall_is_s1),
    cmocka_unit_test(test_wait_view_timeout),
};

PTO_TEST_MAIN(tests)
