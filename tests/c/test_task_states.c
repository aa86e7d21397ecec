/*
 * test_task_states.c - edges, pins and task states (docs/runtime.md, "Task states"),
 * observed inside the runtime while latch kernels hold producers PENDING.
 */
#include "harness.h"
#include "testutil.h"

#define SCOPE_BIT RT_FANOUT_SCOPE_BIT

static void test_explicit_dup_one_edge(void **state)
{
    (void)state;
    tu_gate_reset();
    pto_runtime *rt = make_rt_rings(0, 0, 0, 2, E2E_NO_STALL_MS);
    pto_task_id p = tu_submit(rt, tu_latch_kernel, NULL, 0);
    pto_dep d[2] = {tu_dep(p, PTO_DEP_WAIT_RETAIN), tu_dep(p, PTO_DEP_WAIT_RETAIN)};
    pto_task_id q = tu_submit(rt, NULL, d, 2);
    rt_slot *qs = tu_slot(rt, q), *ps = tu_slot(rt, p);
    assert_int_equal(qs->num_fanin, 1);
    assert_true(qs->fanin[0] == (p | RT_DEP_WAIT | RT_DEP_RETAIN));
    assert_int_equal(ps->fanout_count, SCOPE_BIT + 1);
    atomic_store(&tu_gate, 1);
    assert_int_equal(pto_runtime_finish(rt), 0);
    pto_runtime_destroy(rt);
}

static void test_explicit_wait_only(void **state)
{
    (void)state;
    tu_gate_reset();
    pto_runtime *rt = make_rt_rings(0, 0, 0, 2, E2E_NO_STALL_MS);
    pto_task_id p = tu_submit(rt, tu_latch_kernel, NULL, 0);
    rt_slot *ps = tu_slot(rt, p);
    pto_dep w = tu_dep(p, PTO_DEP_WAIT);
    pto_task_id q1 = tu_submit(rt, NULL, &w, 1);
    assert_true(tu_slot(rt, q1)->fanin[0] == (p | RT_DEP_WAIT));
    /* the WAIT-only pin was released right after wiring */
    assert_int_equal(ps->fanout_count - ps->fanout_refcount, SCOPE_BIT);

    pto_dep both[2] = {tu_dep(p, PTO_DEP_WAIT), tu_dep(p, PTO_DEP_WAIT_RETAIN)};
    uint32_t before = ps->fanout_count;
    pto_task_id q2 = tu_submit(rt, NULL, both, 2);
    assert_int_equal(tu_slot(rt, q2)->num_fanin, 1);
    assert_true(tu_slot(rt, q2)->fanin[0] == (p | RT_DEP_WAIT | RT_DEP_RETAIN));
    assert_int_equal(ps->fanout_count, before + 1); /* one pin */
    atomic_store(&tu_gate, 1);
    assert_int_equal(pto_runtime_finish(rt), 0);
    pto_runtime_destroy(rt);
}

static void test_fanin_spill_dedup(void **state)
{
    (void)state;
    tu_gate_reset();
    pto_runtime *rt = make_rt_rings(0, 0, 0, 2, E2E_NO_STALL_MS);
    pto_dep d[66];
    for (int i = 0; i < 65; i++) d[i] = tu_dep(tu_submit(rt, tu_latch_kernel, NULL, 0), PTO_DEP_WAIT);
    d[65] = tu_dep(d[64].id, PTO_DEP_WAIT_RETAIN);
    pto_task_id q = tu_submit(rt, tu_count_kernel, d, 66);
    rt_slot *qs = tu_slot(rt, q);
    rt_ring *ring = &rt->rings[rt_task_ring(q)];
    assert_int_equal(qs->num_fanin, 65);
    assert_int_equal(qs->spill_mark - qs->spill_start, 1);
    uint64_t spilled = *(uint64_t *)rt_pool_at(&ring->spill, qs->spill_start);
    assert_true(spilled == (d[64].id | RT_DEP_WAIT | RT_DEP_RETAIN));
    assert_int_equal(qs->fanin_count, 66);
    atomic_store(&tu_gate, 1);
    assert_int_equal(pto_runtime_finish(rt), 0);
    assert_int_equal(atomic_load(&tu_runs), 66);
    pto_runtime_destroy(rt);
}

/* A WAIT-only dependency on a producer that already completed is an edge
 * that counts as satisfied at wiring and leaves no pin behind. */
static void test_wait_only_completed_producer(void **state)
{
    (void)state;
    pto_runtime *rt = make_rt_rings(0, 0, 0, 1, E2E_NO_STALL_MS);
    pto_task_id p = tu_submit(rt, NULL, NULL, 0);
    tu_wait_state(rt, p, RT_TASK_COMPLETED);
    pto_dep w = tu_dep(p, PTO_DEP_WAIT);
    pto_task_id q = tu_submit(rt, NULL, &w, 1);
    assert_int_equal(tu_slot(rt, q)->num_fanin, 1);
    assert_int_equal(tu_slot(rt, p)->fanout_count - tu_slot(rt, p)->fanout_refcount, SCOPE_BIT);
    assert_int_equal(pto_runtime_finish(rt), 0);
    pto_runtime_destroy(rt);
}

static void test_consumed_rule(void **state)
{
    (void)state;
    rt_slot s;
    memset(&s, 0, sizeof s);
    s.fanout_count = SCOPE_BIT + 1;
    s.fanout_refcount = SCOPE_BIT;
    atomic_store(&s.state, RT_TASK_PENDING);
    assert_false(rt_task_try_consume_locked(&s));
    s.fanout_refcount = SCOPE_BIT + 1;
    assert_false(rt_task_try_consume_locked(&s)); /* PENDING never */
    atomic_store(&s.state, RT_TASK_COMPLETED);
    s.fanout_refcount = SCOPE_BIT;
    assert_false(rt_task_try_consume_locked(&s));
    assert_int_equal(atomic_load(&s.state), RT_TASK_COMPLETED);
    s.fanout_refcount = SCOPE_BIT + 1;
    assert_true(rt_task_try_consume_locked(&s));
    assert_int_equal(atomic_load(&s.state), RT_TASK_CONSUMED);
    assert_false(rt_task_try_consume_locked(&s)); /* idempotent */
    assert_int_equal(atomic_load(&s.state), RT_TASK_CONSUMED);

    tu_gate_reset();
    pto_runtime *rt = make_rt_rings(0, 0, 0, 2, E2E_NO_STALL_MS);
    pto_task_id ids[4];
    assert_int_equal(pto_scope_begin(rt, PTO_SCOPE_AUTO, __FILE__, __LINE__), 0);
    for (int i = 0; i < 4; i++) ids[i] = tu_submit(rt, tu_latch_kernel, NULL, 0);
    assert_int_equal(pto_scope_end(rt), 0);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(tu_slot(rt, ids[i])->fanout_refcount, SCOPE_BIT);
        assert_int_equal(tu_state(rt, ids[i]), RT_TASK_PENDING);
    }
    atomic_store(&tu_gate, 1);
    assert_int_equal(pto_runtime_finish(rt), 0);
    pto_runtime_destroy(rt);
}

static void test_publish_counts(void **state)
{
    (void)state;
    tu_gate_reset();
    pto_runtime *rt = make_rt_rings(0, 0, 0, 2, E2E_NO_STALL_MS);
    /* no fanin: 1/1, ready at once */
    pto_task_id a = tu_submit(rt, NULL, NULL, 0);
    assert_int_equal(tu_slot(rt, a)->fanin_count, 1);
    tu_wait_state(rt, a, RT_TASK_COMPLETED);
    assert_int_equal(atomic_load(&tu_slot(rt, a)->fanin_refcount), 1);
    /* two completed producers (retained): 3/3, ready */
    pto_task_id b = tu_submit(rt, NULL, NULL, 0);
    tu_wait_state(rt, b, RT_TASK_COMPLETED);
    pto_dep ab[2] = {tu_dep(a, PTO_DEP_WAIT_RETAIN), tu_dep(b, PTO_DEP_WAIT_RETAIN)};
    pto_task_id q = tu_submit(rt, NULL, ab, 2);
    assert_int_equal(tu_slot(rt, q)->fanin_count, 3);
    tu_wait_state(rt, q, RT_TASK_COMPLETED);
    assert_int_equal(atomic_load(&tu_slot(rt, q)->fanin_refcount), 3);
    /* two pending producers: refcount 1, not ready, on both fanout lists */
    pto_task_id x = tu_submit(rt, tu_latch_kernel, NULL, 0);
    pto_task_id y = tu_submit(rt, tu_latch_kernel, NULL, 0);
    pto_dep xy[2] = {tu_dep(x, PTO_DEP_WAIT_RETAIN), tu_dep(y, PTO_DEP_WAIT_RETAIN)};
    pto_task_id z = tu_submit(rt, NULL, xy, 2);
    assert_int_equal(atomic_load(&tu_slot(rt, z)->fanin_refcount), 1);
    assert_int_equal(tu_state(rt, z), RT_TASK_PENDING);
    assert_non_null(tu_slot(rt, x)->fanout_head);
    assert_true(tu_slot(rt, x)->fanout_head->consumer == z);
    assert_true(tu_slot(rt, y)->fanout_head->consumer == z);
    atomic_store(&tu_gate, 1);
    assert_int_equal(pto_runtime_finish(rt), 0);
    pto_runtime_destroy(rt);
}

static void test_concurrent_fanin_one_ready(void **state)
{
    (void)state;
    for (int round = 0; round < 50; round++) {
        tu_gate_reset();
        pto_runtime *rt = make_rt_rings(0, 0, 0, 3, E2E_NO_STALL_MS);
        pto_dep d[3];
        for (int i = 0; i < 3; i++) d[i] = tu_dep(tu_submit(rt, tu_latch_kernel, NULL, 0), PTO_DEP_WAIT);
        tu_submit(rt, tu_count_kernel, d, 3);
        atomic_store(&tu_gate, 1);
        assert_int_equal(pto_runtime_finish(rt), 0);
        assert_int_equal(atomic_load(&tu_runs), 4); /* the consumer ran exactly once */
        pto_runtime_destroy(rt);
    }
}

/* Unit: a ring whose first slots are marked by hand. */
static void ring_with_states(rt_ring *r, uint32_t first, const uint32_t *states, int n)
{
    assert_int_equal(rt_ring_init(r, 0, 16, 4096, 16, first, NULL), 0);
    for (int i = 0; i < n; i++) {
        uint32_t local;
        uint64_t off64;
        assert_int_equal(rt_ring_try_alloc(r, 0, &local, &off64), RT_ALLOC_OK);
        rt_ring_slot(r, local)->dep_pool_mark = r->deps.top;
        rt_ring_slot(r, local)->spill_mark = r->spill.top;
        atomic_store(&rt_ring_slot(r, local)->state, states[i]);
        rt_ring_publish(r, local);
    }
}

static void test_advance_stops_at_live(void **state)
{
    (void)state;
    rt_ring r;
    const uint32_t st[4] = {RT_TASK_CONSUMED, RT_TASK_CONSUMED, RT_TASK_CONSUMED, RT_TASK_PENDING};
    ring_with_states(&r, 0, st, 4);
    assert_true(rt_ring_advance(&r));
    assert_int_equal(atomic_load(&r.last_alive), 3);
    assert_false(rt_ring_advance(&r));
    assert_int_equal(atomic_load(&r.last_alive), 3);
    rt_ring_destroy(&r);
}

/* The watermark passes CONSUMED tasks only, in id order: a consumed task
 * behind a live head (COMPLETED but still retained, or PENDING) waits for
 * it; once the head is released, one advance passes both. */
static void test_watermark_stops_at_retained_head(void **state)
{
    (void)state;
    static const uint32_t live[2] = {RT_TASK_COMPLETED, RT_TASK_PENDING};
    for (int k = 0; k < 2; k++) {
        rt_ring r;
        const uint32_t st[3] = {RT_TASK_CONSUMED, live[k], RT_TASK_CONSUMED};
        ring_with_states(&r, 0, st, 3);
        assert_true(rt_ring_advance(&r));
        assert_int_equal(atomic_load(&r.last_alive), 1);
        assert_false(rt_ring_advance(&r));
        assert_int_equal(atomic_load(&r.last_alive), 1);
        atomic_store(&rt_ring_slot(&r, 1)->state, RT_TASK_CONSUMED);
        assert_true(rt_ring_advance(&r));
        assert_int_equal(atomic_load(&r.last_alive), 3);
        rt_ring_destroy(&r);
    }

    /* In a runtime: A completes, retained by B (held on the gate); C, in a
     * later scope, is consumed at its scope end.  The watermark stays at A
     * until B completes, then passes all three. */
    tu_gate_reset();
    pto_runtime *rt = make_rt_rings(0, 0, 0, 2, E2E_NO_STALL_MS);
    rt_ring *ring0 = &rt->rings[0];
    assert_int_equal(pto_scope_begin(rt, PTO_SCOPE_AUTO, __FILE__, __LINE__), 0);
    pto_arg out = {PTO_ARG_OUT, pto_view_1d(NULL, 4, 0, 256, PTO_INVALID_TASK_ID)};
    pto_task ta = {.kernel = NULL, .name = "A", .args = &out, .num_args = 1};
    pto_task_id a, c;
    assert_int_equal(pto_task_submit(rt, &ta, &a), 0);
    pto_arg in = {PTO_ARG_IN, out.view};
    pto_task tb = {.kernel = tu_latch_kernel, .name = "B", .args = &in, .num_args = 1};
    assert_int_equal(pto_task_submit(rt, &tb, NULL), 0);
    tu_wait_state(rt, a, RT_TASK_COMPLETED);
    assert_int_equal(pto_scope_end(rt), 0);
    assert_int_equal(pto_scope_begin(rt, PTO_SCOPE_AUTO, __FILE__, __LINE__), 0);
    c = tu_submit(rt, NULL, NULL, 0);
    tu_wait_state(rt, c, RT_TASK_COMPLETED);
    assert_int_equal(pto_scope_end(rt), 0); /* consumes C and advances, on this thread */
    assert_int_equal(tu_state(rt, c), RT_TASK_CONSUMED);
    assert_int_equal(tu_state(rt, a), RT_TASK_COMPLETED);
    assert_int_equal(atomic_load(&ring0->last_alive), rt_task_local(a));
    atomic_store(&tu_gate, 1);
    assert_int_equal(pto_runtime_finish(rt), 0);
    assert_int_equal(atomic_load(&ring0->last_alive), rt_task_local(c) + 1);
    pto_runtime_destroy(rt);
}

static void test_advance_contended(void **state)
{
    (void)state;
    for (uint32_t first = 100; first < 104; first++) { /* ids > window, each offset */
        rt_ring r;
        const uint32_t st[2] = {RT_TASK_CONSUMED, RT_TASK_PENDING};
        ring_with_states(&r, first, st, 2);
        atomic_store(&r.advance_lock, 1); /* held elsewhere */
        assert_false(rt_ring_advance(&r));
        assert_int_equal(atomic_load(&r.advance_pending), 1);
        assert_int_equal(atomic_load(&r.last_alive), first);
        atomic_store(&r.advance_lock, 0);
        assert_true(rt_ring_advance(&r)); /* the drain */
        assert_int_equal(atomic_load(&r.last_alive), first + 1);
        assert_int_equal(atomic_load(&r.advance_pending), 0);
        rt_ring_destroy(&r);
    }
}

static void test_creator_edge_pins_producer(void **state)
{
    (void)state;
    tu_gate_reset();
    pto_runtime *rt = make_rt_rings(0, 0, 0, 2, E2E_NO_STALL_MS);
    assert_int_equal(pto_scope_begin(rt, PTO_SCOPE_AUTO, __FILE__, __LINE__), 0);
    pto_arg out = {PTO_ARG_OUT, pto_view_1d(NULL, 4, 0, 256, PTO_INVALID_TASK_ID)};
    pto_task ta = {.kernel = NULL, .name = "A", .args = &out, .num_args = 1};
    pto_task_id a;
    assert_int_equal(pto_task_submit(rt, &ta, &a), 0);
    assert_true(out.view.owner == a);
    pto_arg in = {PTO_ARG_IN, out.view};
    pto_task tb = {.kernel = tu_latch_kernel, .name = "B", .args = &in, .num_args = 1};
    pto_task_id b;
    assert_int_equal(pto_task_submit(rt, &tb, &b), 0);
    assert_true(tu_slot(rt, b)->fanin[0] == (a | RT_DEP_WAIT | RT_DEP_RETAIN));
    assert_int_equal(pto_scope_end(rt), 0);
    tu_wait_state(rt, a, RT_TASK_COMPLETED);
    /* retained by B: its pin is one reference the scope's end did not release */
    rt_slot *as = tu_slot(rt, a);
    rt_spin_lock(&as->lock);
    uint32_t count = as->fanout_count, released = as->fanout_refcount;
    rt_spin_unlock(&as->lock);
    assert_int_equal(count, SCOPE_BIT + 1);
    assert_int_equal(released, SCOPE_BIT);
    assert_int_equal(tu_state(rt, a), RT_TASK_COMPLETED);
    atomic_store(&tu_gate, 1);
    tu_wait_state(rt, b, RT_TASK_COMPLETED);
    tu_wait_state(rt, a, RT_TASK_CONSUMED);
    assert_int_equal(pto_runtime_finish(rt), 0);
    pto_runtime_destroy(rt);
}

/* Views are compared only under one allocation base: the same bytes named
 * through two different addr values make no edge (adapters must pass the
 * allocation's base). */
static void test_different_addr_never_compared(void **state)
{
    (void)state;
    static float buf[256];
    tu_gate_reset();
    pto_runtime *rt = make_rt_rings(0, 0, 0, 2, E2E_NO_STALL_MS);
    pto_arg w = {PTO_ARG_OUTPUT_EXISTING, pto_view_1d(buf, 4, 16, 16, PTO_INVALID_TASK_ID)};
    pto_arg r = {PTO_ARG_IN, pto_view_1d(buf + 16, 4, 0, 16, PTO_INVALID_TASK_ID)}; /* same bytes */
    pto_task tw = {.kernel = tu_latch_kernel, .name = "writer", .args = &w, .num_args = 1};
    pto_task tr = {.kernel = NULL, .name = "reader", .args = &r, .num_args = 1};
    pto_task_id id;
    assert_int_equal(pto_task_submit(rt, &tw, NULL), 0);
    assert_int_equal(pto_task_submit(rt, &tr, &id), 0);
    assert_int_equal(tu_slot(rt, id)->num_fanin, 0);
    tu_wait_state(rt, id, RT_TASK_COMPLETED); /* ran while the writer is still held */
    /* the same view under the base address does wait */
    pto_arg r2 = {PTO_ARG_IN, pto_view_1d(buf, 4, 16, 16, PTO_INVALID_TASK_ID)};
    pto_task tr2 = {.kernel = NULL, .name = "reader2", .args = &r2, .num_args = 1};
    assert_int_equal(pto_task_submit(rt, &tr2, &id), 0);
    assert_int_equal(tu_slot(rt, id)->num_fanin, 1);
    atomic_store(&tu_gate, 1);
    assert_int_equal(pto_runtime_finish(rt), 0);
    pto_runtime_destroy(rt);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_different_addr_never_compared),
    cmocka_unit_test(test_explicit_dup_one_edge),
    cmocka_unit_test(test_explicit_wait_only),
    cmocka_unit_test(test_fanin_spill_dedup),
    cmocka_unit_test(test_wait_only_completed_producer),
    cmocka_unit_test(test_consumed_rule),
    cmocka_unit_test(test_publish_counts),
    cmocka_unit_test(test_concurrent_fanin_one_ready),
    cmocka_unit_test(test_advance_stops_at_live),
    cmocka_unit_test(test_watermark_stops_at_retained_head),
    cmocka_unit_test(test_advance_contended),
    cmocka_unit_test(test_creator_edge_pins_producer),
};

PTO_TEST_MAIN(tests)
