/*
 * test_verdicts.c - which verdict a full resource gets: V1 (the head task is
 * pinned by an open scope: fails at once), V3 (no progress for
 * stall_timeout_ms), and RESERVE_FAILED at create.  A short dep pool is
 * never V1 or V2: its need (edges to producers still running) shrinks on
 * its own, so it waits, and only a stall fails it.
 */
#include <pthread.h>

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
    assert_int_equal(pto_runtime_finish(rt), -code);
    tu_submit(rt, NULL, NULL, 0);
    assert_int_equal(pto_runtime_finish(rt), 0);
    pto_runtime_destroy(rt);
}

/* Opens the gate after ms milliseconds, from another thread. */
static void *open_gate_later(void *ms)
{
    nap_ms((long)(intptr_t)ms);
    atomic_store(&tu_gate, 1);
    return NULL;
}

/* n latched producers in the open scope, then a consumer of all of them;
 * returns the consumer's rc and how long its submit took. */
static int fanin_of_latched(pto_runtime *rt, int n, uint64_t *took_ms)
{
    pto_dep d[64];
    assert_true(n <= 64);
    for (int i = 0; i < n; i++) d[i] = tu_dep(tu_submit(rt, tu_latch_kernel, NULL, 0), PTO_DEP_WAIT);
    pto_task t = {.kernel = tu_count_kernel, .name = "consumer", .deps = d, .num_deps = (uint32_t)n};
    uint64_t t0 = now_ms();
    int rc = pto_task_submit(rt, &t, NULL);
    *took_ms = now_ms() - t0;
    return rc;
}

/* Exactly the pool's capacity of pending producers fits at once. */
static void test_dep_pool_at_cap_fits_at_once(void **state)
{
    (void)state;
    tu_gate_reset();
    pto_runtime *rt = make_rt_rings(0, 0, 4, 2, E2E_NO_STALL_MS);
    uint64_t took;
    assert_int_equal(pto_scope_begin(rt, PTO_SCOPE_AUTO, __FILE__, __LINE__), 0);
    assert_int_equal(fanin_of_latched(rt, 4, &took), 0);
    assert_int_equal(atomic_load(&tu_runs), 0); /* the producers were still held */
    pto_ring_usage u;
    assert_int_equal(pto_ring_usage_get(rt, 0, &u), 0);
    assert_int_equal(u.dep_pool, 4);
    atomic_store(&tu_gate, 1);
    assert_int_equal(pto_scope_end(rt), 0);
    assert_int_equal(pto_runtime_finish(rt), 0);
    assert_int_equal(atomic_load(&tu_runs), 4 + 1);
    pto_runtime_destroy(rt);
}

/* One over the capacity (5 and 32 producers still running, pool 4; the
 * audit's case): back-pressure, not "can never fit".  The submit waits until
 * enough producers completed, then the run is right. */
static void test_dep_pool_over_cap_waits_for_producers(void **state)
{
    (void)state;
    static const int counts[] = {5, 32};
    for (int c = 0; c < 2; c++) {
        tu_gate_reset();
        pto_runtime *rt = make_rt_rings(0, 0, 4, 2, E2E_NO_STALL_MS);
        pthread_t opener;
        uint64_t took;
        assert_int_equal(pto_scope_begin(rt, PTO_SCOPE_AUTO, __FILE__, __LINE__), 0);
        assert_int_equal(pthread_create(&opener, NULL, open_gate_later, (void *)(intptr_t)150), 0);
        int rc = fanin_of_latched(rt, counts[c], &took);
        check_ok(rt, rc, "consumer of more pending producers than the dep pool holds");
        assert_true(took >= 100); /* it waited for the gate */
        assert_true(atomic_load(&tu_runs) >= counts[c] - 4);
        pthread_join(opener, NULL);
        assert_int_equal(pto_scope_end(rt), 0);
        assert_int_equal(pto_runtime_finish(rt), 0);
        assert_int_equal(atomic_load(&tu_runs), counts[c] + 1);
        pto_runtime_destroy(rt);
    }
}

/* In a new scope: a latched producer and 4 consumers of it, whose nodes
 * fill a 4-entry dep pool; returns a WAIT dependency on the producer. */
static pto_dep fill_dep_pool_behind_latch(pto_runtime *rt)
{
    assert_int_equal(pto_scope_begin(rt, PTO_SCOPE_AUTO, __FILE__, __LINE__), 0);
    pto_dep d = tu_dep(tu_submit(rt, tu_latch_kernel, NULL, 0), PTO_DEP_WAIT);
    for (int i = 0; i < 4; i++) tu_submit(rt, NULL, &d, 1);
    return d;
}

/* Pool full of an open scope's nodes (its head pinned): the need shrinks
 * when the producer completes, so this waits rather than failing V1. */
static void test_dep_pool_full_head_pinned_waits(void **state)
{
    (void)state;
    tu_gate_reset();
    pto_runtime *rt = make_rt_rings(0, 0, 4, 2, E2E_NO_STALL_MS);
    pto_dep d = fill_dep_pool_behind_latch(rt);
    pthread_t opener;
    assert_int_equal(pthread_create(&opener, NULL, open_gate_later, (void *)(intptr_t)150), 0);
    pto_task t = {.kernel = NULL, .deps = &d, .num_deps = 1};
    uint64_t t0 = now_ms();
    check_ok(rt, pto_task_submit(rt, &t, NULL), "consumer of a running producer, pool full");
    assert_true(now_ms() - t0 >= 100);
    pthread_join(opener, NULL);
    assert_int_equal(pto_scope_end(rt), 0);
    assert_int_equal(pto_runtime_finish(rt), 0);
    pto_runtime_destroy(rt);
}

/* The same with a producer that never completes: a stall (V3), named as a
 * dep-pool overflow, after stall_timeout_ms. */
static void test_dep_pool_stuck_producer_is_stall(void **state)
{
    (void)state;
    tu_gate_reset();
    pto_runtime *rt = make_rt_rings(0, 0, 4, 2, 200);
    pto_dep d = fill_dep_pool_behind_latch(rt);
    pto_task t = {.kernel = NULL, .deps = &d, .num_deps = 1};
    uint64_t t0 = now_ms();
    int rc = pto_task_submit(rt, &t, NULL);
    expect(rt, rc, PTO_DEP_POOL_OVERFLOW, "FATAL: Dependency Pool Overflow! ring=0", V3);
    assert_true(now_ms() - t0 >= 200);
    expect_frag(rt, "needed=1");
    finish_and_reuse(rt, PTO_DEP_POOL_OVERFLOW);
}

static void test_dep_pool_stall_verdict(void **state)
{
    (void)state;
    tu_gate_reset();
    pto_runtime *rt = make_rt_rings(0, 0, 4, 2, 200);
    pto_dep d = fill_dep_pool_behind_latch(rt);
    assert_int_equal(pto_scope_end(rt), 0); /* the head's scope is closed */
    assert_int_equal(pto_scope_begin(rt, PTO_SCOPE_AUTO, __FILE__, __LINE__), 0);
    pto_task t = {.kernel = NULL, .deps = &d, .num_deps = 1};
    int rc = pto_task_submit(rt, &t, NULL);
    expect(rt, rc, PTO_DEP_POOL_OVERFLOW, "FATAL: Dependency Pool Overflow! ring=0", V3);
    expect_frag(rt, "if a kernel is merely slow, raise stall_timeout_ms");
    finish_and_reuse(rt, PTO_DEP_POOL_OVERFLOW);
}

static pto_task_id submit_out(pto_runtime *rt, pto_kernel_fn k, uint64_t bytes)
{
    pto_arg out = {PTO_ARG_OUT, pto_view_1d(NULL, 1, 0, bytes, PTO_INVALID_TASK_ID)};
    pto_task t = {.kernel = k, .name = "producer", .args = &out, .num_args = 1};
    pto_task_id id;
    int rc = pto_task_submit(rt, &t, &id);
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
    expect(rt, -pto_runtime_error(rt)->code, PTO_HEAP_RING_DEADLOCK, "Heap Exhausted! ring=3", V1);
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
    expect(rt, -pto_runtime_error(rt)->code, PTO_HEAP_RING_DEADLOCK, "Heap Exhausted! ring=3", V3);
    expect_frag(rt, "longest running task 3:0 (producer)");
    finish_and_reuse(rt, PTO_HEAP_RING_DEADLOCK);
}

static void test_reserve_failed(void **state)
{
    (void)state;
    pto_error err;
    for (int n = 1; n <= 6; n++) { /* each array of ring 0 in turn */
        rt_reserve_inject_failure(n);
        pto_runtime *rt;
        assert_int_equal(pto_runtime_create(NULL, &rt, &err), -PTO_RESERVE_FAILED);
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
    pto_runtime *rt;
    assert_int_equal(pto_runtime_create(NULL, &rt, &err), -PTO_RESERVE_FAILED);
    rt_reserve_inject_failure(0);
    assert_null(rt);
    assert_non_null(strstr(err.message, "ring=1"));
    assert_non_null(strstr(err.message, "bytes for the task window"));
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_dep_pool_at_cap_fits_at_once),
    cmocka_unit_test(test_dep_pool_over_cap_waits_for_producers),
    cmocka_unit_test(test_dep_pool_full_head_pinned_waits),
    cmocka_unit_test(test_dep_pool_stuck_producer_is_stall),
    cmocka_unit_test(test_dep_pool_stall_verdict),
    cmocka_unit_test(test_heap_structural_depth4),
    cmocka_unit_test(test_heap_closed_child_head_is_stall),
    cmocka_unit_test(test_reserve_failed),
};

PTO_TEST_MAIN(tests)
