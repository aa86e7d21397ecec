/*
 * test_deferred.c - DEFERRED tasks (pto_task_defer, runtime/deferred.h;
 * DISTRIBUTED-SPEC D9, §2.5, §3 row 4): a kernel that defers frees its
 * executor, its task's consumers and pto_runtime_finish wait for its test,
 * a test that never says done fails by stall_timeout_ms, a failing test
 * fails the run with its own message, a fatal elsewhere abandons deferred
 * tasks, and beyond PTO_MAX_DEFERRED a task waits in place.
 */
#include <stdatomic.h>
#include <string.h>
#include <sys/resource.h>

#include "harness.h"
#include "e2e.h"
#include "base/clock.h"
#include "runtime/rt.h"

static _Atomic int released, a_returned, b_saw_a_returned, b_saw_deferred, c_saw_released, polls, expired, abandoned;
static pto_task_id a_id;
static int32_t buf[4];

static void reset(void)
{
    atomic_store(&released, 0), atomic_store(&a_returned, 0), atomic_store(&b_saw_a_returned, -1);
    atomic_store(&b_saw_deferred, -1), atomic_store(&c_saw_released, -1), atomic_store(&polls, 0);
    atomic_store(&expired, 0), atomic_store(&abandoned, 0);
}

/* Done once `released` is set; counts why it was asked.  (A kernel that defers tests in
 * place through the 20 us spin phase first, then hands the task to the testers.) */
static int released_test(void *arg, pto_defer_why why, pto_error *err)
{
    (void)arg, (void)err;
    atomic_fetch_add(&polls, 1);
    if (why == PTO_DEFER_EXPIRED) atomic_fetch_add(&expired, 1);
    if (why == PTO_DEFER_ABANDON) atomic_fetch_add(&abandoned, 1);
    return atomic_load(&released);
}

static int deferring(const pto_kernel_args *a)
{
    int rc = pto_task_defer(a, released_test, NULL);
    atomic_store(&a_returned, 1);
    return rc;
}

/* Waits (at most 2 s) for A's kernel to return (it tests in place for its spin phase first),
 * sees whether it did and A is DEFERRED, then lets A's test say done. */
static int releaser(const pto_kernel_args *a)
{
    uint64_t until = base_now_ns() + 2000000000ull;
    while (!atomic_load(&a_returned) && base_now_ns() < until) sched_yield();
    atomic_store(&b_saw_a_returned, atomic_load(&a_returned));
    int has = 0; /* rt_deferred_has answers 0 while a tester holds the table: ask again */
    while (!has && atomic_load(&a_returned) && base_now_ns() < until) has = rt_deferred_has((pto_runtime *)a->runtime, a_id);
    atomic_store(&b_saw_deferred, has);
    atomic_store(&released, 1);
    return 0;
}

static int consumer(const pto_kernel_args *a)
{
    (void)a;
    atomic_store(&c_saw_released, atomic_load(&released));
    return 0;
}

static pto_arg buf_arg(pto_arg_tag tag)
{
    return (pto_arg){.tag = tag,
                     .view = {.addr = buf, .elem_size = 4, .ndims = 1, .shape = {4}, .strides = {1}, .owner = PTO_INVALID_TASK_ID}};
}

/* A (kernel: deferring, InOut buf), C (In buf: A's consumer), B (independent: releases A), on one worker. */
static pto_runtime *run_abc(pto_kernel_fn kernel, int *rc)
{
    reset();
    pto_runtime *rt = make_rt_rings(0, 0, 0, 1, E2E_NO_STALL_MS);
    pto_arg aa = buf_arg(PTO_ARG_INOUT), ca = buf_arg(PTO_ARG_IN);
    pto_task a = {.kernel = kernel, .name = "deferring", .args = &aa, .num_args = 1};
    pto_task c = {.kernel = consumer, .name = "consumer", .args = &ca, .num_args = 1};
    pto_task b = {.kernel = releaser, .name = "releaser"};
    check_submit(rt, &a, &a_id);
    check_submit(rt, &c, NULL);
    check_submit(rt, &b, NULL);
    *rc = pto_runtime_finish(rt);
    return rt;
}

static void test_deferred_task_frees_its_executor(void **s)
{
    (void)s;
    int rc;
    pto_runtime *rt = run_abc(deferring, &rc);
    check_ok(rt, rc, "deferring, consumer, releaser");
    assert_int_equal(atomic_load(&b_saw_a_returned), 1); /* the kernel returned before its test said done */
    assert_int_equal(atomic_load(&b_saw_deferred), 1);
    assert_int_equal(rt_deferred_has(rt, a_id), 0);
    pto_runtime_destroy(rt);
}

static void test_deferred_task_holds_its_consumers_until_done(void **s)
{
    (void)s;
    int rc;
    pto_runtime *rt = run_abc(deferring, &rc);
    check_ok(rt, rc, "deferring, consumer, releaser");
    assert_int_equal(atomic_load(&c_saw_released), 1);
    assert_int_equal(atomic_load(&rt->deferred.count), 0);
    assert_int_equal(atomic_load(&rt->comm_waits), 0);
    pto_runtime_destroy(rt);
}

/* Done scalars[0] ns after its first test. */
static uint64_t first_ns;
static int timed_test(void *arg, pto_defer_why why, pto_error *err)
{
    (void)why, (void)err;
    uint64_t now = base_now_ns();
    if (!first_ns) first_ns = now;
    return now - first_ns >= *(const uint64_t *)arg;
}

static int timed(const pto_kernel_args *a) { return pto_task_defer(a, timed_test, (void *)a->scalars); }

/* One task deferred for ns, on two workers, through pto_runtime_finish. */
static void run_timed(uint64_t ns)
{
    first_ns = 0;
    pto_runtime *rt = make_rt_rings(0, 0, 0, 2, E2E_NO_STALL_MS);
    pto_task t = {.kernel = timed, .name = "timed", .scalars = &ns, .num_scalars = 1};
    check_submit(rt, &t, NULL);
    finish_ok(rt);
    pto_runtime_destroy(rt);
}

static void test_deferred_finish_waits_for_deferred_tasks(void **s)
{
    (void)s;
    uint64_t t0 = base_now_ns();
    run_timed(60000000ull);
    assert_true(base_now_ns() - t0 >= 60000000ull);
    assert_true(first_ns && base_now_ns() - first_ns >= 60000000ull);
}

static void test_deferred_task_never_done_fails_by_stall_timeout_ms(void **s)
{
    (void)s;
    reset();
    pto_runtime *rt = make_rt_rings(0, 0, 0, 1, 300);
    pto_task a = {.kernel = deferring, .name = "never"};
    uint64_t t0 = base_now_ns();
    check_submit(rt, &a, NULL);
    int rc = pto_runtime_finish(rt);
    uint64_t ms = (base_now_ns() - t0) / 1000000u;
    expect_code(rt, rc, PTO_COMM_WAIT_TIMEOUT);
    assert_true(ms >= 300 && ms < 2300);
    const char *m = pto_runtime_error(rt)->message;
    assert_non_null(strstr(m, "FATAL: Communication Wait Timeout! task="));
    assert_non_null(strstr(m, "deferred task 'never' not complete after"));
    assert_non_null(strstr(m, "stall_timeout_ms=300"));
    assert_int_equal(atomic_load(&expired), 1);
    pto_runtime_destroy(rt);
}

static int failing_test(void *arg, pto_defer_why why, pto_error *err)
{
    (void)arg, (void)why;
    snprintf(err->message, sizeof err->message, "FATAL: Communication Failed! the posted work broke");
    err->code = PTO_COMM_FAILED;
    return atomic_load(&released) ? -PTO_COMM_FAILED : 0;
}

static int deferring_failing(const pto_kernel_args *a)
{
    int rc = pto_task_defer(a, failing_test, NULL);
    atomic_store(&a_returned, 1);
    return rc;
}

static void test_deferred_test_error_fails_the_run_with_its_message(void **s)
{
    (void)s;
    int rc;
    pto_runtime *rt = run_abc(deferring_failing, &rc);
    expect_code(rt, rc, PTO_COMM_FAILED);
    assert_non_null(strstr(pto_runtime_error(rt)->message, "the posted work broke"));
    assert_int_equal(atomic_load(&c_saw_released), -1); /* the consumer was skipped */
    pto_runtime_destroy(rt);
}

static int failing_kernel(const pto_kernel_args *a)
{
    (void)a;
    return 7;
}

static void test_deferred_tasks_are_abandoned_after_a_fatal(void **s)
{
    (void)s;
    reset();
    pto_runtime *rt = make_rt_rings(0, 0, 0, 1, E2E_NO_STALL_MS);
    pto_task a = {.kernel = deferring, .name = "never"};
    pto_task k = {.kernel = failing_kernel, .name = "failing"};
    uint64_t t0 = base_now_ns();
    check_submit(rt, &a, NULL);
    check_submit(rt, &k, NULL);
    int rc = pto_runtime_finish(rt);
    expect_code(rt, rc, PTO_KERNEL_FAILED);
    assert_true(base_now_ns() - t0 < 2000000000ull); /* not the 30 s stall bound */
    assert_int_equal(atomic_load(&abandoned), 1);
    assert_int_equal(atomic_load(&rt->deferred.count), 0);
    pto_runtime_destroy(rt);
}

/* PTO_MAX_DEFERRED + 1 deferring tasks, then one that releases them once all have entered. */
static _Atomic int entered, peak;
static int counting(const pto_kernel_args *a)
{
    atomic_fetch_add(&entered, 1);
    int rc = pto_task_defer(a, released_test, NULL);
    int n = atomic_load(&((pto_runtime *)a->runtime)->deferred.count), p = atomic_load(&peak);
    while (n > p && !atomic_compare_exchange_weak(&peak, &p, n)) {}
    return rc;
}

static int late_releaser(const pto_kernel_args *a)
{
    (void)a;
    uint64_t until = base_now_ns() + 10000000000ull;
    while (atomic_load(&entered) < PTO_MAX_DEFERRED + 1 && base_now_ns() < until) sched_yield();
    atomic_store(&released, 1);
    return 0;
}

static void test_deferred_past_PTO_MAX_DEFERRED_waits_in_place(void **s)
{
    (void)s;
    reset();
    atomic_store(&entered, 0), atomic_store(&peak, 0);
    pto_runtime *rt = make_rt_rings(0, 0, 0, 1, E2E_NO_STALL_MS);
    pto_task t = {.kernel = counting, .name = "counting"};
    pto_task r = {.kernel = late_releaser, .name = "late releaser"};
    for (int i = 0; i < PTO_MAX_DEFERRED + 1; i++) check_submit(rt, &t, NULL);
    check_submit(rt, &r, NULL);
    finish_ok(rt);
    assert_int_equal(atomic_load(&entered), PTO_MAX_DEFERRED + 1);
    assert_int_equal(atomic_load(&peak), PTO_MAX_DEFERRED);
    pto_runtime_destroy(rt);
}

static int twice(const pto_kernel_args *a)
{
    int first = pto_task_defer(a, released_test, NULL);
    int second = pto_task_defer(a, released_test, NULL);
    atomic_store(&released, 1);
    return first != 0 || second != -PTO_INVALID_ARGS;
}

static int spmd_defer(const pto_kernel_args *a) { return pto_task_defer(a, released_test, NULL) != -PTO_INVALID_ARGS; }

static int null_test(const pto_kernel_args *a) { return pto_task_defer(a, NULL, NULL) != -PTO_INVALID_ARGS; }

static void test_deferred_defer_refuses_bad_calls(void **s)
{
    (void)s;
    reset();
    assert_int_equal(pto_task_defer(NULL, released_test, NULL), -PTO_INVALID_ARGS);
    pto_runtime *rt = make_rt_rings(0, 0, 0, 1, E2E_NO_STALL_MS);
    pto_kernel_args outside = {.task_id = 1, .runtime = rt};
    assert_int_equal(pto_task_defer(&outside, released_test, NULL), -PTO_INVALID_ARGS); /* no kernel runs it */
    pto_task t2 = {.kernel = twice, .name = "twice"};
    pto_task sp = {.kernel = spmd_defer, .name = "spmd", .num_blocks = 2};
    pto_task nt = {.kernel = null_test, .name = "null test"};
    check_submit(rt, &t2, NULL);
    check_submit(rt, &sp, NULL);
    check_submit(rt, &nt, NULL);
    finish_ok(rt); /* each kernel returns 1 when its call was not refused as it should be */
    pto_runtime_destroy(rt);
}

static uint64_t process_cpu_ns(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (uint64_t)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1000000000ull +
           (uint64_t)(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1000ull;
}

static void test_deferred_waiting_executors_do_not_spin_a_core(void **s)
{
    (void)s;
    uint64_t cpu0 = process_cpu_ns(), t0 = base_now_ns();
    run_timed(300000000ull);
    uint64_t cpu = process_cpu_ns() - cpu0, wall = base_now_ns() - t0;
    print_message("300 ms deferred: %.1f %% of one core\n", 100.0 * (double)cpu / (double)wall);
    assert_true(cpu * 4 < wall); /* the 3 ms spin-and-yield phase, then parks */
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_deferred_task_frees_its_executor),
    cmocka_unit_test(test_deferred_task_holds_its_consumers_until_done),
    cmocka_unit_test(test_deferred_finish_waits_for_deferred_tasks),
    cmocka_unit_test(test_deferred_task_never_done_fails_by_stall_timeout_ms),
    cmocka_unit_test(test_deferred_test_error_fails_the_run_with_its_message),
    cmocka_unit_test(test_deferred_tasks_are_abandoned_after_a_fatal),
    cmocka_unit_test(test_deferred_past_PTO_MAX_DEFERRED_waits_in_place),
    cmocka_unit_test(test_deferred_defer_refuses_bad_calls),
    cmocka_unit_test(test_deferred_waiting_executors_do_not_spin_a_core),
};

PTO_TEST_MAIN(tests)
