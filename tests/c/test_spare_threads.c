/*
 * test_spare_threads.c - spare threads behind blocking waits (runtime/spare.h,
 * DISTRIBUTED-SPEC D10, §3 row 4'): with one worker, waiters submitted
 * before their publisher complete, because each waiter that outlasts its
 * spin and yield phases (3 ms) hands its slot to a spare; at most PTO_MAX_SPARE_WAITERS spares
 * exist, so one waiter more than the executors then give fails by the
 * wait's bound with the cap's note, never a hang.
 */
#include <stdatomic.h>
#include <string.h>

#include "harness.h"
#include "e2e.h"
#include "runtime/comm.h"
#include "runtime/rt.h"
#include "runtime/spare.h"
#include "tile/dist_ops.h"

static _Alignas(64) int32_t flag;

static void block_hook(void *arg, int on) { rt_comm_block(arg, on); }

/* Waits for flag >= 1 within scalars[0] ms, handing its slot over once it sleeps. */
static int waiter(const pto_kernel_args *a)
{
    tile_dist_wait wt = {.timeout_ms = (int64_t)a->scalars[0], .block = block_hook, .arg = (void *)a->runtime};
    int rc = tile_dist_wait_cell(&flag, 1, 1, &wt);
    if (rc == 1) rt_comm_fail_wait(a->runtime, a->task_id, "waiter: flag >= 1 never held");
    return rc;
}

static int publisher(const pto_kernel_args *a)
{
    (void)a;
    atomic_store_explicit((_Atomic int32_t *)&flag, 1, memory_order_release);
    return 0;
}

/* k independent waiters, then the publisher, on one worker; pto_runtime_finish's code. */
static int run_waiters(int k, uint64_t timeout_ms, pto_runtime **out)
{
    atomic_store((_Atomic int32_t *)&flag, 0);
    pto_runtime *rt = make_rt_rings(0, 0, 0, 1, E2E_NO_STALL_MS);
    pto_task w = {.kernel = waiter, .name = "waiter", .scalars = &timeout_ms, .num_scalars = 1};
    pto_task p = {.kernel = publisher, .name = "publisher"};
    for (int i = 0; i < k; i++) check_submit(rt, &w, NULL);
    check_submit(rt, &p, NULL);
    *out = rt;
    return pto_runtime_finish(rt);
}

/* The executors a run has before any spare: the worker, and the orchestrator when it helps. */
static int plain_executors(const pto_runtime *rt) { return rt->num_workers + rt->orch_helps; }

static void test_spare_threads_let_waiters_submitted_before_their_publisher_complete(void **s)
{
    (void)s;
    pto_runtime *rt;
    int rc = run_waiters(3 * 2, 5000, &rt); /* 3 x the executors of one worker and the orchestrator */
    check_ok(rt, rc, "six waiters then their publisher");
    int spares = atomic_load(&rt->spare_count);
    assert_true(spares >= 6 - plain_executors(rt) && spares <= 6);
    assert_int_equal(atomic_load(&rt->spare_blocked), 0);
    pto_runtime_destroy(rt);
}

static void test_spare_threads_at_the_cap_still_leave_the_publisher_an_executor(void **s)
{
    (void)s;
    pto_runtime *rt;
    int k = PTO_MAX_SPARE_WAITERS + 2 - 1; /* every executor but one waits */
    int rc = run_waiters(k, 5000, &rt);
    if (!rt->orch_helps) k--, pto_runtime_destroy(rt), rc = run_waiters(k, 5000, &rt);
    check_ok(rt, rc, "the cap's waiters then their publisher");
    assert_int_equal(atomic_load(&rt->spare_count), PTO_MAX_SPARE_WAITERS);
    pto_runtime_destroy(rt);
}

static void test_spare_threads_one_waiter_past_the_cap_times_out_with_the_caps_note(void **s)
{
    (void)s;
    pto_runtime *rt;
    int k = PTO_MAX_SPARE_WAITERS + 2;
    int rc = run_waiters(k, 2000, &rt);
    if (!rt->orch_helps) k--, pto_runtime_destroy(rt), rc = run_waiters(k, 2000, &rt);
    assert_int_equal(rc, -PTO_COMM_WAIT_TIMEOUT);
    const char *m = pto_runtime_error(rt)->message;
    assert_non_null(strstr(m, "FATAL: Communication Wait Timeout! task="));
    assert_non_null(strstr(m, "blocking waits in progress; spare-thread cap PTO_MAX_SPARE_WAITERS=64 reached"));
    assert_int_equal(atomic_load(&rt->spare_count), PTO_MAX_SPARE_WAITERS);
    pto_runtime_destroy(rt);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_spare_threads_let_waiters_submitted_before_their_publisher_complete),
    cmocka_unit_test(test_spare_threads_at_the_cap_still_leave_the_publisher_an_executor),
    cmocka_unit_test(test_spare_threads_one_waiter_past_the_cap_times_out_with_the_caps_note),
};

PTO_TEST_MAIN(tests)
