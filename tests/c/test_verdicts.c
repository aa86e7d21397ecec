/*
 * test_verdicts.c - which verdict a full resource gets: V1 (the head task is
 * pinned by an open scope: fails at once), V3 (no progress for
 * stall_timeout_ms), and RESERVE_FAILED at create.
 */
#include "harness.h"
#include "testutil.h"
#include "runtime/reserve.h"

#define V1 "is the oldest task owned by an open scope on this ring -> Provable head-of-line deadlock."
#define V3 "No progress anywhere for"

static void expect(pto_runtime *rt, int rc, int code, const char *a, const char *b)
{
    expect_code(rt, rc, code);
    expect_frag(rt, a);
    if (b) expect_frag(rt, b);
}

/* After a fatal the run drains and the latch clears: a small run works. */
static void finish_and_reuse(pto_runtime *rt, int code)
{
    atomic_store(&tu_gate, 1);
    assert_int_equal(pto_finish(rt), -code);
    tu_submit(rt, NULL, NULL, 0);
    assert_int_equal(pto_finish(rt), 0);
    pto_runtime_destroy(rt);
}

static void test_dep_pool_head_pinned_is_structural(void **state)
{
    (void)state;
    tu_gate_reset();
    pto_runtime *rt = make_rt_rings(0, 0, 4, 2, 2000);
    uint64_t t0 = now_ms();
    assert_int_equal(pto_scope_begin(rt, PTO_SCOPE_AUTO, __FILE__, __LINE__), 0);
    pto_dep d = tu_dep(tu_submit(rt, tu_latch_kernel, NULL, 0), PTO_DEP_WAIT);
    for (int i = 0; i < 4; i++) tu_submit(rt, NULL, &d, 1); /* 4 nodes: pool full */
    pto_task t = {.kernel = NULL, .deps = &d, .num_deps = 1};
    int rc = pto_submit(rt, &t, NULL);
    expect(rt, rc, PTO_DEP_POOL_OVERFLOW, "FATAL: Dependency Pool Deadlock Detected! ring=0", V1);
    assert_true(now_ms() - t0 < 1000); /* at once, not after the stall bound */
    finish_and_reuse(rt, PTO_DEP_POOL_OVERFLOW);
}

static void test_dep_pool_stall_verdict(void **state)
{
    (void)state;
    tu_gate_reset();
    pto_runtime *rt = make_rt_rings(0, 0, 4, 2, 200);
    assert_int_equal(pto_scope_begin(rt, PTO_SCOPE_AUTO, __FILE__, __LINE__), 0);
    pto_dep d = tu_dep(tu_submit(rt, tu_latch_kernel, NULL, 0), PTO_DEP_WAIT);
    for (int i = 0; i < 4; i++) tu_submit(rt, NULL, &d, 1);
    assert_int_equal(pto_scope_end(rt), 0); /* the head's scope is closed */
    assert_int_equal(pto_scope_begin(rt, PTO_SCOPE_AUTO, __FILE__, __LINE__), 0);
    pto_task t = {.kernel = NULL, .deps = &d, .num_deps = 1};
    int rc = pto_submit(rt, &t, NULL);
    expect(rt, rc, PTO_DEP_POOL_OVERFLOW, "FATAL: Dependency Pool Overflow! ring=0", V3);
    expect_frag(rt, "if a kernel is merely slow, raise stall_timeout_ms");
    finish_and_reuse(rt, PTO_DEP_POOL_OVERFLOW);
}

static pto_task_id submit_out(pto_runtime *rt, pto_kernel_fn k, uint64_t bytes)
{
    pto_arg out = {PTO_ARG_OUT, pto_view_1d(NULL, 1, 0, bytes, PTO_INVALID_TASK_ID)};
    pto_task t = {.kernel = k, .name = "producer", .args = &out, .num_args = 1};
    pto_task_id id;
    int rc = pto_submit(rt, &t, &id);
    return rc ? PTO_INVALID_TASK_ID : id;
}

static void test_heap_structural_depth4(void **state)
{
    (void)state;
    tu_gate_reset();
    pto_runtime *rt = make_rt_rings(0, 4096, 0, 2, 2000);
    for (int i = 0; i < 4; i++) assert_int_equal(pto_scope_begin(rt, PTO_SCOPE_AUTO, __FILE__, __LINE__), 0);
    assert_true(submit_out(rt, NULL, 3072) != PTO_INVALID_TASK_ID); /* depth 3 holds ring 3's heap */
    assert_int_equal(pto_scope_begin(rt, PTO_SCOPE_AUTO, __FILE__, __LINE__), 0); /* depth 4: ring 3 too */
    uint64_t t0 = now_ms();
    assert_true(submit_out(rt, NULL, 2048) == PTO_INVALID_TASK_ID);
    expect(rt, -pto_last_error(rt)->code, PTO_HEAP_RING_DEADLOCK, "Heap Exhausted! ring=3", V1);
    assert_true(now_ms() - t0 < 1000);
    finish_and_reuse(rt, PTO_HEAP_RING_DEADLOCK);
}

static void test_heap_closed_child_head_is_stall(void **state)
{
    (void)state;
    tu_gate_reset();
    pto_runtime *rt = make_rt_rings(0, 4096, 0, 2, 200);
    for (int i = 0; i < 3; i++) assert_int_equal(pto_scope_begin(rt, PTO_SCOPE_AUTO, __FILE__, __LINE__), 0);
    /* depth 3 (parent, open) ; its child at depth 4 holds ring 3's heap, then closes */
    assert_int_equal(pto_scope_begin(rt, PTO_SCOPE_AUTO, __FILE__, __LINE__), 0);
    assert_int_equal(pto_scope_begin(rt, PTO_SCOPE_AUTO, __FILE__, __LINE__), 0);
    assert_true(submit_out(rt, tu_latch_kernel, 3072) != PTO_INVALID_TASK_ID);
    assert_int_equal(pto_scope_end(rt), 0);
    assert_true(submit_out(rt, NULL, 2048) == PTO_INVALID_TASK_ID);
    expect(rt, -pto_last_error(rt)->code, PTO_HEAP_RING_DEADLOCK, "Heap Exhausted! ring=3", V3);
    expect_frag(rt, "longest running task 3:0 (producer)");
    finish_and_reuse(rt, PTO_HEAP_RING_DEADLOCK);
}

static void test_reserve_failed(void **state)
{
    (void)state;
    pto_error err;
    for (int n = 1; n <= 6; n++) { /* each array of ring 0 in turn */
        rt_reserve_inject_failure(n);
        pto_runtime *rt = pto_runtime_create(NULL, &err);
        rt_reserve_inject_failure(0);
        assert_null(rt);
        assert_int_equal(err.code, PTO_RESERVE_FAILED);
        assert_int_equal(err.ring, 0);
        assert_non_null(strstr(err.message, "FATAL: Ring Reservation Failed! ring=0"));
        assert_non_null(strstr(err.message, "(mmap: Cannot allocate memory)"));
        assert_non_null(strstr(err.message, "error_code=13 runtime_status=-13"));
    }
    assert_non_null(strstr(err.message, "for the spill pool"));
    rt_reserve_inject_failure(7); /* ring 1's first array */
    pto_runtime *rt = pto_runtime_create(NULL, &err);
    rt_reserve_inject_failure(0);
    assert_null(rt);
    assert_non_null(strstr(err.message, "ring=1"));
    assert_non_null(strstr(err.message, "bytes for the task window"));
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_dep_pool_head_pinned_is_structural),
    cmocka_unit_test(test_dep_pool_stall_verdict),
    cmocka_unit_test(test_heap_structural_depth4),
    cmocka_unit_test(test_heap_closed_child_head_is_stall),
    cmocka_unit_test(test_reserve_failed),
};

PTO_TEST_MAIN(tests)
