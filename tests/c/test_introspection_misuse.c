/*
 * test_introspection_misuse.c - the introspection calls (pto_ring_usage_get,
 * docs/runtime.md "Errors") given bad arguments (no runtime, a ring out of
 * range, no output) return -PTO_INVALID_ARGS and nothing else: unlike a bad
 * submit or scope call they read the runtime (a const one) and latch no
 * error, so the run they are made in goes on and pto_runtime_finish
 * returns 0.
 */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "e2e.h"

static void test_introspection_with_bad_arguments_latches_no_error_and_finish_returns_0(void **state)
{
    (void)state;
    pto_runtime *rt = make_rt_rings(16, 16384, 64, 2, E2E_NO_STALL_MS);
    uint64_t buf[4] = {0}, one = 1;
    pto_arg a = arg(PTO_ARG_INOUT, v1(buf, 0, 4));
    pto_task t = {.kernel = e2e_touch_kernel, .name = "t", .args = &a, .num_args = 1, .scalars = &one, .num_scalars = 1};
    pto_task_id id;
    SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
    check_submit(rt, &t, &id); /* in the middle of a run */
    pto_ring_usage u;
    assert_int_equal(pto_ring_usage_get(rt, -1, &u), -PTO_INVALID_ARGS);
    assert_int_equal(pto_ring_usage_get(rt, PTO_NUM_RINGS, &u), -PTO_INVALID_ARGS);
    assert_int_equal(pto_ring_usage_get(rt, 0, NULL), -PTO_INVALID_ARGS);
    assert_int_equal(pto_ring_usage_get(NULL, 0, &u), -PTO_INVALID_ARGS);
    assert_int_equal(pto_runtime_failed(rt), 0);
    assert_int_equal(pto_runtime_error(rt)->code, 0);
    check_submit(rt, &t, &id); /* the run goes on */
    scope_end_ok(rt);
    assert_int_equal(pto_runtime_finish(rt), 0);
    assert_int_equal(pto_runtime_error(rt)->code, 0);
    assert_int_equal(buf[0], 2); /* both tasks ran */
    e2e_valid_run(rt, "after pto_ring_usage_get misuse");
    pto_runtime_destroy(rt);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_introspection_with_bad_arguments_latches_no_error_and_finish_returns_0),
};

PTO_TEST_MAIN(tests)
