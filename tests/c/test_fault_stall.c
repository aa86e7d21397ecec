/*
 * test_fault_stall.c - a kernel that does not return within the stall
 * bound while the orchestrator waits for room (docs/runtime.md, "Errors", V3), the
 * cases test_e2e_stall.c (pto_runtime_finish: S1; pto_view_wait: code 8)
 * leaves out.
 *
 * Rules tested: the wait ends after stall_timeout_ms with the capacity
 * error of the resource waited for, its V3 lines naming the stuck task and
 * its kernel; the stuck kernel is not killed (it finishes once released);
 * pto_runtime_finish returns the error and the next run works.  A kernel
 * that polls pto_runtime_failed returns once a stall is latched, so
 * pto_runtime_finish ends with S1 naming it; a DSL kernel looping past the
 * bound is such a kernel (the tile VM polls at each loop's back edge).  The stuck
 * kernel waits on a gate the test opens after the error, bounded so a
 * broken runtime ends the test instead of hanging it.  One worker per CPU
 * (num_workers 0): with a core left free the orchestrator would run tasks
 * itself while it waits, unwatched by the stall bound (docs/runtime.md).
 */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "dsl_compile.h"
#include "e2e.h"
#include "pto/run.h"

static atomic_int g_gate;    /* the stuck kernel returns once it is 1 */
static atomic_int g_stuck;   /* the stuck kernel: 1 started, 2 returned */
static atomic_long g_done;   /* kernels finished */

static int k_stuck(const pto_kernel_args *a)
{
    (void)a;
    atomic_store(&g_stuck, 1);
    uint64_t end = now_ms() + 30000;
    while (!atomic_load(&g_gate) && now_ms() < end) nap_ms(1);
    atomic_fetch_add(&g_done, 1);
    atomic_store(&g_stuck, 2);
    return 0;
}

static int k_quick(const pto_kernel_args *a)
{
    (void)a;
    atomic_fetch_add(&g_done, 1);
    return 0;
}

static void submit_kernel(pto_runtime *rt, pto_kernel_fn k, const char *name, pto_task_id *id)
{
    pto_task t = {k, NULL, name, NULL, 0, NULL, 0, NULL, 0, 0};
    check_submit(rt, &t, id);
}

static void wait_stuck_started(void)
{
    uint64_t end = now_ms() + 30000;
    while (!atomic_load(&g_stuck) && now_ms() < end) nap_ms(1);
    assert_int_equal(atomic_load(&g_stuck), 1);
}

/* Window 4: a closed scope's stuck task heads ring 0, the next scope fills
 * the window behind it, stall 200 ms -> FLOW_CONTROL_DEADLOCK with V3
 * naming the stuck task (not V1: its scope has ended). */
static void test_stall_in_task_window_wait_names_the_stuck_task(void **state)
{
    (void)state;
    atomic_store(&g_gate, 0), atomic_store(&g_stuck, 0), atomic_store(&g_done, 0);
    pto_runtime *rt = make_rt_rings(4, 0, 0, 0, 200);
    pto_task_id stuck;
    SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
    submit_kernel(rt, k_stuck, "stuck", &stuck);
    scope_end_ok(rt);
    wait_stuck_started();
    SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
    for (int i = 0; i < 2; i++) submit_kernel(rt, k_quick, "quick", NULL);
    pto_task t = {k_quick, NULL, "quick", NULL, 0, NULL, 0, NULL, 0, 0};
    uint64_t t0 = now_ms();
    int rc = pto_task_submit(rt, &t, NULL); /* the 4th live task of a 4-slot window: waits */
    uint64_t waited = now_ms() - t0;
    expect_code(rt, rc, PTO_FLOW_CONTROL_DEADLOCK);
    assert_int_equal(atomic_load(&g_stuck), 1); /* the stuck kernel still runs */
    expect_frag(rt, "FATAL: Task Allocator Deadlock - Task Ring Full! ring=0\n");
    expect_frag(rt, "\n  No progress anywhere for ");
    expect_frag(rt, " ms (stall_timeout_ms=200).\n");
    char who[96];
    snprintf(who, sizeof who, "longest running task %u:%u (stuck) for ", (unsigned)(stuck >> 32),
             (unsigned)(uint32_t)stuck);
    expect_frag(rt, who);
    expect_frag(rt, "  Task ring 0: current=3, last_alive=0, active=3/4 (75.0%)\n");
    expect_frag(rt, "  Head task 0:0: state=RUNNING, consumers=0/0, scope_released=1, site=test_fault_stall.c:");
    expect_frag(rt, "PTO runtime failed: error_code=3 runtime_status=-3\n");
    expect_frag(rt, "; if a kernel is merely slow, raise stall_timeout_ms");
    assert_true(waited >= 200);
    assert_null(strstr(pto_runtime_error(rt)->message, "Provable head-of-line deadlock"));

    atomic_store(&g_gate, 1);
    assert_int_equal(pto_scope_end(rt), -PTO_FLOW_CONTROL_DEADLOCK); /* latched: a no-op */
    expect_code(rt, pto_runtime_finish(rt), PTO_FLOW_CONTROL_DEADLOCK);
    assert_int_equal(atomic_load(&g_stuck), 2); /* finish waited for the stuck kernel */
    assert_int_equal(atomic_load(&g_done), 3);

    atomic_store(&g_done, 0);
    for (int i = 0; i < 10; i++) PTO_SCOPE(rt, PTO_SCOPE_AUTO) submit_kernel(rt, k_quick, "quick", NULL);
    finish_ok(rt);
    assert_int_equal(atomic_load(&g_done), 10);
    pto_runtime_destroy(rt);
}

/* Loops until the run fails (or the bounded gate opens); records the code it saw. */
static atomic_int g_seen_code;

static int k_poller(const pto_kernel_args *a)
{
    atomic_store(&g_stuck, 1);
    uint64_t end = now_ms() + 30000;
    int code = 0;
    while (!(code = pto_runtime_failed(a->runtime)) && !atomic_load(&g_gate) && now_ms() < end) nap_ms(1);
    atomic_store(&g_seen_code, code);
    return 0;
}

/* pto_runtime_finish behind a polling kernel, stall 200 ms: SCHEDULER_TIMEOUT
 * S1 naming it; the kernel returned because the run failed (the gate stays
 * shut); the next run works. */
static void test_polling_kernel_returns_on_finish_stall(void **state)
{
    (void)state;
    atomic_store(&g_gate, 0), atomic_store(&g_stuck, 0), atomic_store(&g_done, 0), atomic_store(&g_seen_code, -1);
    pto_runtime *rt = make_rt_rings(0, 0, 0, 0, 200);
    assert_int_equal(pto_runtime_failed(rt), 0);
    pto_task_id id;
    submit_kernel(rt, k_poller, "poller", &id);
    wait_stuck_started();
    expect_code(rt, pto_runtime_finish(rt), PTO_SCHEDULER_TIMEOUT);
    assert_int_equal(atomic_load(&g_seen_code), PTO_SCHEDULER_TIMEOUT);
    expect_frag(rt, "FATAL: Scheduler Timeout! no progress for ");
    char frag[128];
    snprintf(frag, sizeof frag, "sub_class=S1:running-stalled (detail=1) completed=0/1 running=1 ready=0 waiting=0 "
             "orch_done=1 stuck_task_id=%u:%u stuck_worker=", (unsigned)(id >> 32), (unsigned)(uint32_t)id);
    expect_frag(rt, frag);
    snprintf(frag, sizeof frag, "error hint: S1: task %u:%u (poller) has run for ", (unsigned)(id >> 32),
             (unsigned)(uint32_t)id);
    expect_frag(rt, frag);
    assert_int_equal(pto_runtime_failed(rt), 0); /* finish cleared the latch */
    submit_kernel(rt, k_quick, "quick", NULL);
    finish_ok(rt);
    assert_int_equal(atomic_load(&g_done), 1);
    pto_runtime_destroy(rt);
    assert_int_equal(pto_runtime_failed(NULL), PTO_INVALID_ARGS);
}

/* A DSL kernel whose while loop would run 10^12 times, stall 300 ms:
 * pto_program_run ends with SCHEDULER_TIMEOUT S1 naming the task and its
 * kernel, and the next run (3 trips) gives a + 3. */
static const char spin_src[] =
    "import pypto.language as pl\n"
    "\n"
    "@pl.jit\n"
    "def spin(a: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar[pl.INDEX]):\n"
    "    with pl.at(level=pl.Level.CORE_GROUP):\n"
    "        t = pl.load(a, [0, 0], [64, 128])\n"
    "        i = 0\n"
    "        while i < n:\n"
    "            t = pl.add(t, 1.0)\n"
    "            i = i + 1\n"
    "        pl.store(t, [0, 0], out)\n"
    "    return out\n";

static int run_spin(pto_runtime *rt, float *a, float *out, int64_t trips, pto_error *err)
{
    pto_arg_spec specs[] = {
        {.name = "a", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {64, 128}},
        {.name = "out", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {64, 128}},
        {.name = "n", .kind = PTO_ARG_SCALAR, .value = {.kind = PTO_VALUE_INT, .i = trips}},
    };
    pto_program *p = dsl_compile_with(spin_src, "spin", PTO_STAGE_ALL, 0, specs, 3);
    dsl_expect_ok(p);
    pto_run_arg args[] = {
        {"a", {.kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .base = a, .rank = 2, .shape = {64, 128}}},
        {"out", {.kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .base = out, .rank = 2, .shape = {64, 128}}},
        {"n", {.kind = PTO_ARG_SCALAR, .value = {.kind = PTO_VALUE_INT, .i = trips}}},
    };
    int rc = pto_program_run(rt, p, args, 3, err);
    pto_program_free(p);
    return rc;
}

static void test_dsl_kernel_looping_past_the_stall_bound_is_stopped(void **state)
{
    (void)state;
    pto_runtime *rt = make_rt_rings(0, 0, 0, 0, 300);
    static float a[64 * 128], out[64 * 128];
    for (int k = 0; k < 64 * 128; k++) a[k] = (float)(k % 100), out[k] = -1.0f;
    pto_error err;
    int rc = run_spin(rt, a, out, 1000000000000, &err);
    if (rc != -PTO_SCHEDULER_TIMEOUT) fail_msg("rc %d:\n%s", rc, err.message);
    if (strncmp(err.message, "FATAL: Scheduler Timeout! no progress for ", 42) ||
        !strstr(err.message, "sub_class=S1:running-stalled (detail=1) completed=0/1 running=1 ready=0 waiting=0 "
                             "orch_done=1 stuck_task_id=0:0 stuck_worker=") ||
        !strstr(err.message, "error hint: S1: task 0:0 (spin_incore_0) has run for "))
        fail_msg("%s", err.message);
    assert_true(out[0] == -1.0f); /* the stopped kernel stored nothing */
    assert_int_equal(run_spin(rt, a, out, 3, &err), 0);
    for (int k = 0; k < 64 * 128; k++)
        if (out[k] != a[k] + 3.0f) fail_msg("out[%d] = %g, want %g", k, out[k], a[k] + 3.0f);
    pto_runtime_destroy(rt);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_stall_in_task_window_wait_names_the_stuck_task),
    cmocka_unit_test(test_polling_kernel_returns_on_finish_stall),
    cmocka_unit_test(test_dsl_kernel_looping_past_the_stall_bound_is_stopped),
};

PTO_TEST_MAIN(tests)
