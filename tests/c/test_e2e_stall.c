/*
 * test_e2e_stall.c - stall detection, end to end.
 *
 * A stall is "no progress anywhere for stall_timeout_ms" (RUNTIME-SPEC
 * section 6): slow kernels that keep completing, or progress on another ring,
 * must never trip it; a kernel that runs past the bound while nothing else
 * completes must.  The scales are cut down from the spec's (seconds) so each
 * test takes at most about 3 s.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "e2e.h"

static atomic_long g_done;

/* Sleeps scalars[0] ms, then adds 1 to views[0][0] (if any view). */
static int k_sleep_inc(const pto_kernel_args *a)
{
    nap_ms((long)a->scalars[0]);
    if (a->num_views) *(uint64_t *)pto_view_at(&a->views[0], (const uint64_t[PTO_MAX_DIMS]){0}) += 1;
    atomic_fetch_add(&g_done, 1);
    return 0;
}

static void submit_sleep(pto_runtime *rt, const char *name, uint64_t ms, uint64_t *cell, pto_task_id *id)
{
    pto_arg a[1] = {arg(PTO_ARG_INOUT, v1(cell, 0, 1))};
    uint64_t sc[1] = {ms};
    pto_task t = {k_sleep_inc, name, a, cell ? 1 : 0, sc, 1, NULL, 0};
    check_submit(rt, &t, id);
}

/* Window 4, 1000 one-task scopes of 1 ms kernels, stall 400 ms: the
 * orchestrator is held back on every submit for well over 400 ms in total,
 * but progress never stops, so the run completes. */
static void test_slow_but_progressing_no_timeout(void **state)
{
    (void)state;
    pto_runtime *rt = make_rt_rings(4, 0, 0, 2, 400);
    uint64_t cell[1] = {0};
    atomic_store(&g_done, 0);
    uint64_t t0 = now_ms();
    for (int i = 0; i < 1000; i++) {
        SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
        submit_sleep(rt, "slow", 1, cell, NULL);
        scope_end_ok(rt);
    }
    finish_ok(rt);
    print_message("1000 x 1 ms in %llu ms\n", (unsigned long long)(now_ms() - t0));
    assert_int_equal(cell[0], 1000);
    assert_int_equal(atomic_load(&g_done), 1000);
    pto_runtime_destroy(rt);
}

/* The orchestrator is blocked on ring 1 (window 4) behind a 1.5 s kernel,
 * while a ring-2 chain completes a task every 100 ms; stall 500 ms -> no
 * error: progress anywhere resets the clock. */
static void test_progress_elsewhere_resets_clock(void **state)
{
    (void)state;
    pto_config cfg = cfg_rings(0, 0, 0, 2, 500);
    cfg.runtime_env.ring_task_window[1] = 4;
    pto_runtime *rt = make_rt(&cfg);
    uint64_t longcell[1] = {0}, chain[1] = {0}, quick[1] = {0};
    atomic_store(&g_done, 0);
    SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO); /* depth 0 */

    /* a closed depth-1 scope holding the long kernel: heads ring 1 */
    SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
    pto_task_id lid;
    submit_sleep(rt, "long", 1500, longcell, &lid);
    assert_int_equal(lid >> 32, 1);
    scope_end_ok(rt);

    SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO); /* depth 1 */
    /* ring 2: 18 chained 100 ms tasks, one completion every 100 ms */
    SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO); /* depth 2 */
    for (int i = 0; i < 18; i++) submit_sleep(rt, "tick", 100, chain, NULL);
    scope_end_ok(rt);
    /* ring 1 again: the third task must wait for the long kernel to retire */
    uint64_t t0 = now_ms();
    for (int i = 0; i < 3; i++) submit_sleep(rt, "quick", 0, quick, NULL);
    uint64_t blocked = now_ms() - t0;
    scope_end_ok(rt);
    scope_end_ok(rt);
    finish_ok(rt);
    print_message("orchestrator blocked %llu ms on ring 1\n", (unsigned long long)blocked);
    /* it really was held back longer than the stall bound */
    assert_true(blocked >= 700);
    assert_int_equal(longcell[0], 1);
    assert_int_equal(chain[0], 18);
    assert_int_equal(quick[0], 3);
    pto_runtime_destroy(rt);
}

/* One kernel sleeps 1.2 s, stall 300 ms -> pto_finish fails with
 * SCHEDULER_TIMEOUT, sub-class S1 naming the task; with stall -1 the same
 * graph completes. */
static void test_finish_stall_is_s1(void **state)
{
    (void)state;
    pto_runtime *rt = make_rt_rings(0, 0, 0, 2, 300);
    uint64_t cell[1] = {0};
    pto_task_id id;
    submit_sleep(rt, "quick", 0, NULL, NULL); /* so the stuck task is not the first */
    submit_sleep(rt, "sleeper", 1200, cell, &id);
    int rc = pto_finish(rt);
    expect_code(rt, rc, PTO_SCHEDULER_TIMEOUT);
    expect_frag(rt, "PTO runtime failed: error_code=100 runtime_status=-100");
    expect_frag(rt, "FATAL: Scheduler Timeout! no progress for");
    expect_frag(rt, "sub_class=S1:running-stalled");
    /* the id prints as a number or as ring:local */
    char dec[64], pair[64];
    snprintf(dec, sizeof dec, "stuck_task_id=%llu ", (unsigned long long)id);
    snprintf(pair, sizeof pair, "stuck_task_id=%u:%u ", (unsigned)(id >> 32), (unsigned)(uint32_t)id);
    const char *m = pto_last_error(rt)->message;
    if (!strstr(m, dec) && !strstr(m, pair)) print_error("stuck task %s not named in:\n%s\n", pair, m);
    assert_true(strstr(m, dec) || strstr(m, pair));
    expect_frag(rt, "(sleeper)");
    expect_frag(rt, "raise stall_timeout_ms");
    pto_runtime_destroy(rt);

    rt = make_rt_rings(0, 0, 0, 2, -1);
    cell[0] = 0;
    submit_sleep(rt, "sleeper", 1200, cell, NULL);
    finish_ok(rt);
    assert_int_equal(cell[0], 1);
    pto_runtime_destroy(rt);
}

/* pto_wait_view on a view whose writer sleeps 1.2 s, stall 300 ms ->
 * TENSOR_WAIT_TIMEOUT. */
static void test_wait_view_timeout(void **state)
{
    (void)state;
    pto_runtime *rt = make_rt_rings(0, 0, 0, 2, 300);
    uint64_t cell[4] = {0};
    submit_sleep(rt, "sleeper", 1200, cell, NULL);
    pto_view v = v1(cell, 0, 1);
    uint64_t t0 = now_ms();
    int rc = pto_wait_view(rt, &v, 0);
    uint64_t waited = now_ms() - t0;
    expect_code(rt, rc, PTO_TENSOR_WAIT_TIMEOUT);
    expect_frag(rt, "PTO runtime failed: error_code=8 runtime_status=-8");
    expect_frag(rt, "FATAL: Tensor Wait Timeout! ring=0");
    expect_frag(rt, "waiting to read view");
    expect_frag(rt, "No progress anywhere for");
    /* it gave up on the stall bound, not on the kernel finishing */
    assert_true(waited < 1100);
    assert_int_equal(pto_finish(rt), -PTO_TENSOR_WAIT_TIMEOUT);

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
