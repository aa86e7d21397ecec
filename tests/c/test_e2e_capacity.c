/*
 * test_e2e_capacity.c - capacity errors, end to end through the public API.
 *
 * Every capacity error is provoked with tiny rings and checked for its return
 * code, pto_runtime_error()->code and the key fragments of its message
 * (docs/runtime.md, "Errors"); then pto_runtime_finish must return -code and a small run
 * on the same runtime must succeed (the latch clears).  Each capacity is
 * also tried at exactly its limit (fits) and one over.  Tests that expect a
 * stall set a small stall_timeout_ms, all others E2E_NO_STALL_MS (e2e.h).
 * Waits for a head task are checked by events (the head finished before the
 * waiting submit returned), never by durations.  Misuse and latching,
 * back-pressure and memory use: test_e2e_backpressure.c; the helpers both
 * share: capacity_util.h.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include "harness.h"
#include "e2e.h"
#include "capacity_util.h"

/* ---- kernels on the gate ----------------------------------------------- */

static atomic_int g_gate;      /* kernels on a latch wait for it (bounded) */
static atomic_int g_head_done; /* k_head finished */

/* Waits for g_gate; the bound (30 s) only ends a test that failed. */
static void gate_wait(void)
{
    uint64_t end = now_ms() + 30000;
    while (!atomic_load(&g_gate) && now_ms() < end) nap_us(100);
}

/* Waits for g_gate, then writes views[0] := 1. */
static int k_gated(const pto_kernel_args *a)
{
    gate_wait();
    *el(&a->views[0], 0) = 1;
    return 0;
}

/* Waits for g_gate; touches nothing. */
static int k_hold(const pto_kernel_args *a)
{
    (void)a;
    gate_wait();
    return 0;
}

/* A ring's head: waits for g_gate, naps 50 ms more, then sets g_head_done.
 * A submit that must wait for the head to retire returns after that. */
static int k_head(const pto_kernel_args *a)
{
    (void)a;
    gate_wait();
    nap_ms(50);
    atomic_store(&g_head_done, 1);
    return 0;
}

/* ---- small runs -------------------------------------------------------- */

/* In a new scope: n producers of x[i] held on g_gate, then a consumer of all
 * of x into out[0], which must wait for every one.  Opens the gate after that
 * submit and returns its rc. */
static int gated_fanin(pto_runtime *rt, const char *producer, uint64_t *x, int n, uint64_t *out)
{
    atomic_store(&g_gate, 0);
    SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
    for (int i = 0; i < n; i++) {
        pto_arg wa[1] = {arg(PTO_ARG_OUTPUT_EXISTING, v1(x, i, 1))};
        submit_ok(rt, k_gated, producer, wa, 1, NULL, 0, NULL);
    }
    pto_arg ca[2] = {arg(PTO_ARG_IN, v1(x, 0, (uint64_t)n)), arg(PTO_ARG_OUTPUT_EXISTING, v1(out, 0, 1))};
    pto_task c = {k_sum, NULL, "consumer", ca, 2, NULL, 0, NULL, 0, 0};
    int rc = pto_task_submit(rt, &c, NULL);
    atomic_store(&g_gate, 1);
    return rc;
}

/* ---- scope and ring capacity errors ------------------------------------ */

static void test_scope_over_window_is_scope_deadlock(void **state)
{
    (void)state;
    pto_runtime *rt = make_rt_rings(4, 0, 0, 2, E2E_NO_STALL_MS);
    check_ok(rt, pto_scope_begin(rt, PTO_SCOPE_AUTO, "over_window.c", 7), "pto_scope_begin");
    pto_task d = dummy_task();
    int rc = 0, i;
    for (i = 0; i < 8; i++) {
        pto_task_id id;
        rc = pto_task_submit(rt, &d, &id);
        if (rc != 0) {
            assert_true(id == PTO_INVALID_TASK_ID);
            break;
        }
    }
    assert_int_equal(i, 3); /* 3 admitted, the 4th fails */
    EXPECT_FATAL(rt, rc, PTO_SCOPE_DEADLOCK, "FATAL: Scope Deadlock Detected! (ring 0)",
                 "Tasks in current scope (3) reached the usable task window (3 of task_window_size 4)",
                 "depth=0 ring=0 scope_task_count=3",
                 "raise ring_task_window (runtime_env.ring_task_window) or split the scope",
                 "ring 0 has 4 slots (e.g. 8)");
    assert_int_equal(pto_runtime_error(rt)->ring, 0);
    assert_int_equal(pto_task_submit(rt, &d, NULL), -PTO_SCOPE_DEADLOCK);
    assert_int_equal(pto_scope_end(rt), -PTO_SCOPE_DEADLOCK);
    finish_then_recover(rt, PTO_SCOPE_DEADLOCK);
    pto_runtime_destroy(rt);
}

static void test_root_over_window(void **state)
{
    (void)state;
    pto_runtime *rt = make_rt_rings(4, 0, 0, 2, E2E_NO_STALL_MS);
    pto_task d = dummy_task();
    for (int i = 0; i < 3; i++) check_submit(rt, &d, NULL);
    int rc = pto_task_submit(rt, &d, NULL);
    EXPECT_FATAL(rt, rc, PTO_SCOPE_DEADLOCK, "FATAL: Scope Deadlock Detected! (ring 0)", "depth=root",
                 "raise ring_task_window (runtime_env.ring_task_window) or split the scope");
    finish_then_recover(rt, PTO_SCOPE_DEADLOCK);
    pto_runtime_destroy(rt);
}

static void test_heap_request_too_big(void **state)
{
    (void)state;
    pto_runtime *rt = make_rt_rings(0, 1024, 0, 2, E2E_NO_STALL_MS);
    pto_arg oa[1] = {out_arg(4096)}; /* 32 KiB */
    uint64_t sc[2] = {1, 0};
    pto_task t = {k_write, NULL, "big", oa, 1, sc, 2, NULL, 0, 0};
    int rc = pto_task_submit(rt, &t, NULL);
    EXPECT_FATAL(rt, rc, PTO_HEAP_RING_DEADLOCK, "FATAL: Task Allocator Deadlock - Heap Exhausted! ring=0",
                 "Request of 32768 bytes exceeds ring 0's capacity of 1024 -> can never fit.",
                 "raise ring_heap (runtime_env.ring_heap) for ring 0 (now 1024, e.g. 32768)");
    assert_int_equal(pto_runtime_error(rt)->ring, 0);
    finish_then_recover(rt, PTO_HEAP_RING_DEADLOCK);
    pto_runtime_destroy(rt);
}

static void test_nested_scopes_share_ring3(void **state)
{
    (void)state;
    pto_runtime *rt = make_rt_rings(4, 0, 0, 2, E2E_NO_STALL_MS);
    pto_task d = dummy_task();
    int rc = 0, fail_depth = -1, fail_task = -1;
    for (int depth = 0; depth < 8 && rc == 0; depth++) {
        check_ok(rt, pto_scope_begin(rt, PTO_SCOPE_AUTO, "nested.c", depth), "pto_scope_begin");
        for (int i = 0; i < 3; i++) {
            rc = pto_task_submit(rt, &d, NULL);
            if (rc != 0) {
                fail_depth = depth;
                fail_task = i;
                break;
            }
        }
    }
    /* depth 3 fills ring 3 (3 of 4 slots); depth 4's first task cannot fit */
    assert_int_equal(fail_depth, 4);
    assert_int_equal(fail_task, 0);
    EXPECT_FATAL(rt, rc, PTO_FLOW_CONTROL_DEADLOCK, "FATAL: Task Allocator Deadlock - Task Ring Full! ring=3",
                 "is the oldest task owned by an open scope on this ring -> Provable head-of-line deadlock.",
                 "Task ring 3: current=",
                 "raise ring_task_window (runtime_env.ring_task_window) for ring 3 (now 4, e.g. 8)",
                 "depths >= 3 all share ring 3");
    assert_int_equal(pto_runtime_error(rt)->ring, 3);
    assert_int_equal(pto_scope_begin(rt, PTO_SCOPE_AUTO, "nested.c", 99), -PTO_FLOW_CONTROL_DEADLOCK);
    finish_then_recover(rt, PTO_FLOW_CONTROL_DEADLOCK);
    pto_runtime_destroy(rt);
}

/* 128 producers (held on a latch, so all unfinished) and a consumer of all
 * of them, dep pool 4: 64 edges inline, 64 more than the spill pool holds. */
static void test_fanin_128_dep_pool_4(void **state)
{
    (void)state;
    pto_runtime *rt = make_rt_rings(0, 0, 4, 2, E2E_NO_STALL_MS);
    uint64_t x[128] = {0}, out[1] = {0};
    int rc = gated_fanin(rt, "producer", x, 128, out);
    EXPECT_FATAL(rt, rc, PTO_DEP_POOL_OVERFLOW, "FATAL: Fanin Spill Pool Overflow! ring=0",
                 "Request of 64 entries exceeds ring 0's capacity of 4 -> can never fit.",
                 "raise ring_dep_pool (runtime_env.ring_dep_pool) for ring 0 (now 4");
    pto_scope_end(rt);
    finish_then_recover(rt, PTO_DEP_POOL_OVERFLOW);
    pto_runtime_destroy(rt);
}

/* A runtime whose ring 1 has the given window and heap (0: default); the
 * gate is closed and no k_head has finished. */
static pto_runtime *ring1_rt(uint64_t window, uint64_t heap)
{
    pto_config cfg = cfg_rings(0, 0, 0, 2, E2E_NO_STALL_MS);
    cfg.runtime_env.ring_task_window[1] = window;
    cfg.runtime_env.ring_heap[1] = heap;
    atomic_store(&g_gate, 0);
    atomic_store(&g_head_done, 0);
    return make_rt(&cfg);
}

/* Ring 1's heap (4096) is filled by one scope, which ends and drains; a new
 * scope allocates 1024 and 2048, then 2048 cannot fit while its own first
 * task heads the ring: V1 at once. */
static void test_heap_structural_ring1(void **state)
{
    (void)state;
    pto_runtime *rt = ring1_rt(0, 4096);
    SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
    SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
    for (int i = 0; i < 4; i++) {
        pto_arg oa[1] = {out_arg(128)};
        uint64_t sc[2] = {1, 0};
        pto_task_id id;
        submit_ok(rt, k_write, "fill", oa, 1, sc, 2, &id);
        assert_int_equal(id >> 32, 1);
    }
    scope_end_ok(rt);
    SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
    pto_arg a1[1] = {out_arg(128)}, a2[1] = {out_arg(256)}, a3[1] = {out_arg(256)};
    uint64_t sc[2] = {2, 0};
    submit_ok(rt, k_write, "a1024", a1, 1, sc, 2, NULL);
    submit_ok(rt, k_write, "a2048", a2, 1, sc, 2, NULL);
    pto_task t3 = {k_write, NULL, "b2048", a3, 1, sc, 2, NULL, 0, 0};
    uint64_t t0 = base_now_ns();
    int rc = pto_task_submit(rt, &t3, NULL);
    uint64_t waited_ms = (base_now_ns() - t0) / 1000000;
    EXPECT_FATAL(rt, rc, PTO_HEAP_RING_DEADLOCK, "Heap Exhausted! ring=1", "oldest task owned by an open scope",
                 "used=3072", "available=1024", "raise ring_heap (runtime_env.ring_heap) for ring 1");
    assert_int_equal(pto_runtime_error(rt)->ring, 1);
    /* "at once": it never waited for the 30 s stall bound */
    assert_true(waited_ms < 20000);
    finish_then_recover(rt, PTO_HEAP_RING_DEADLOCK);
    pto_runtime_destroy(rt);
}

/* ---- each capacity at its limit, and one over -------------------------- */

/* A task (kernel k; NULL: a dummy) with one OUT arg of `bytes`; returns the
 * submit's rc and (if view) the OUT view. */
static int submit_out(pto_runtime *rt, pto_kernel_fn k, uint64_t bytes, pto_view *view)
{
    pto_arg oa[1] = {out_arg(bytes / sizeof(uint64_t))};
    pto_task t = {k, NULL, "out", oa, 1, NULL, 0, NULL, 0, 0};
    int rc = pto_task_submit(rt, &t, NULL);
    if (view) *view = oa[0].view;
    return rc;
}

static pto_ring_usage ring_usage(pto_runtime *rt, int r)
{
    pto_ring_usage u;
    check_ok(rt, pto_ring_usage_get(rt, r, &u), "pto_ring_usage_get");
    return u;
}

/* A scope holds exactly window - 1 tasks of its ring and the window-th
 * submit fails at once with SCOPE_DEADLOCK: on each ring (windows 4, 8, 16,
 * 32 at depths 0-3) and at the root.  The count is the scope's own: a
 * sibling scope on the same ring holds window - 1 again. */
static void test_scope_holds_window_minus_one(void **state)
{
    (void)state;
    static const int win[4] = {4, 8, 16, 32};
    pto_config cfg = cfg_rings(0, 0, 0, 2, E2E_NO_STALL_MS);
    for (int r = 0; r < 4; r++) cfg.runtime_env.ring_task_window[r] = (uint64_t)win[r];
    pto_runtime *rt = make_rt(&cfg);
    pto_task d = dummy_task();
    char frag[3][160];
    for (int r = -1; r < 4; r++) { /* -1: the implicit root */
        int w = win[r < 0 ? 0 : r], ring = r < 0 ? 0 : r;
        for (int depth = 0; depth < r; depth++) SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
        for (int sibling = 0; sibling < (r < 0 ? 1 : 2); sibling++) {
            if (r >= 0) SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
            for (int i = 0; i < w - 1; i++) {
                pto_task_id id;
                check_submit(rt, &d, &id);
                assert_int_equal(id >> 32, ring);
            }
            if (r >= 0 && sibling == 0) scope_end_ok(rt);
        }
        pto_task_id id = 0;
        int rc = pto_task_submit(rt, &d, &id);
        assert_true(id == PTO_INVALID_TASK_ID);
        snprintf(frag[0], sizeof frag[0], "FATAL: Scope Deadlock Detected! (ring %d)", ring);
        snprintf(frag[1], sizeof frag[1],
                 "Tasks in current scope (%d) reached the usable task window (%d of task_window_size %d)", w - 1,
                 w - 1, w);
        if (r < 0) snprintf(frag[2], sizeof frag[2], "depth=root ring=0 scope_task_count=%d", w - 1);
        else snprintf(frag[2], sizeof frag[2], "depth=%d ring=%d scope_task_count=%d", r, r, w - 1);
        EXPECT_FATAL(rt, rc, PTO_SCOPE_DEADLOCK, frag[0], frag[1], frag[2]);
        assert_int_equal(pto_runtime_error(rt)->ring, ring);
        finish_then_recover(rt, PTO_SCOPE_DEADLOCK);
    }
    pto_runtime_destroy(rt);
}

/* Ring 1 (window 8) holds exactly 7 live tasks, the oldest a head that runs
 * until the gate opens: all 7 are admitted while the head runs; the 8th
 * waits until the head retires, then proceeds (back-pressure, no error). */
static void test_ring_window_full_waits_for_head(void **state)
{
    (void)state;
    pto_runtime *rt = ring1_rt(8, 0);
    pto_task head = {k_head, NULL, "head", NULL, 0, NULL, 0, NULL, 0, 0}, d = dummy_task();
    SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
    for (int i = 0; i < 7; i++) { /* one closed depth-1 scope each */
        SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
        pto_task_id id;
        check_submit(rt, i == 0 ? &head : &d, &id);
        assert_int_equal(id >> 32, 1);
        scope_end_ok(rt);
    }
    assert_int_equal(atomic_load(&g_head_done), 0); /* admitted while the head runs */
    assert_int_equal(ring_usage(rt, 1).task_window, 7);
    SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
    atomic_store(&g_gate, 1); /* the head ends 50 ms from now */
    check_submit(rt, &d, NULL);
    assert_int_equal(atomic_load(&g_head_done), 1); /* the 8th waited for it */
    scope_end_ok(rt);
    scope_end_ok(rt);
    finish_ok(rt);
    assert_int_equal(ring_usage(rt, 1).task_window_peak, 7);
    pto_runtime_destroy(rt);
}

/* Ring 3 (window 8): a depth-3 scope holds 4 tasks, its depth-4 child 3
 * more: 7 live fit.  The child's next task finds the ring full behind a head
 * its own open parent pins: FLOW_CONTROL_DEADLOCK at once (V1). */
static void test_ring_window_full_head_pinned_is_v1(void **state)
{
    (void)state;
    pto_config cfg = cfg_rings(0, 0, 0, 2, E2E_NO_STALL_MS);
    cfg.runtime_env.ring_task_window[3] = 8;
    pto_runtime *rt = make_rt(&cfg);
    pto_task d = dummy_task();
    for (int depth = 0; depth < 5; depth++) {
        SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
        for (int i = 0; i < (depth == 3 ? 4 : depth == 4 ? 3 : 0); i++) check_submit(rt, &d, NULL);
    }
    assert_int_equal(ring_usage(rt, 3).task_window, 7);
    uint64_t t0 = now_ms();
    int rc = pto_task_submit(rt, &d, NULL);
    uint64_t waited_ms = now_ms() - t0;
    EXPECT_FATAL(rt, rc, PTO_FLOW_CONTROL_DEADLOCK, "FATAL: Task Allocator Deadlock - Task Ring Full! ring=3",
                 "Head task 3:0 is the oldest task owned by an open scope on this ring -> Provable head-of-line "
                 "deadlock.",
                 "Task ring 3: current=7, last_alive=0, active=7/8");
    /* "at once": it never waited for the 30 s stall bound */
    assert_true(waited_ms < 20000);
    finish_then_recover(rt, PTO_FLOW_CONTROL_DEADLOCK);
    pto_runtime_destroy(rt);
}

/* Ring 1 (window 4) is full behind a head in a closed scope that never
 * finishes (held on the gate): the next submit waits, and with no progress
 * anywhere fails after the stall bound (V3). */
static void test_ring_window_full_head_stuck_is_stall(void **state)
{
    (void)state;
    pto_config cfg = cfg_rings(0, 0, 0, 2, 300);
    cfg.runtime_env.ring_task_window[1] = 4;
    pto_runtime *rt = make_rt(&cfg);
    atomic_store(&g_gate, 0);
    pto_task hold = {k_hold, NULL, "stuck", NULL, 0, NULL, 0, NULL, 0, 0}, d = dummy_task();
    SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
    for (int i = 0; i < 3; i++) {
        SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
        check_submit(rt, i == 0 ? &hold : &d, NULL);
        scope_end_ok(rt);
    }
    SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
    uint64_t t0 = now_ms();
    int rc = pto_task_submit(rt, &d, NULL);
    uint64_t waited_ms = now_ms() - t0;
    atomic_store(&g_gate, 1);
    EXPECT_FATAL(rt, rc, PTO_FLOW_CONTROL_DEADLOCK, "FATAL: Task Allocator Deadlock - Task Ring Full! ring=1",
                 "No progress anywhere for", "(stall_timeout_ms=300)", "(stuck)",
                 "if a kernel is merely slow, raise stall_timeout_ms");
    assert_true(waited_ms >= 300);
    finish_then_recover(rt, PTO_FLOW_CONTROL_DEADLOCK);
    pto_runtime_destroy(rt);
}

/* Ring 1's heap (4096): outputs of 1024, 2048 and 1024 bytes in one open
 * scope fill it exactly and fit; one more 1024-byte output cannot, behind a
 * head the open scope pins (V1 at once).  One task whose outputs sum to 4096
 * fits; 5120 never can (V2). */
static void test_heap_outputs_fill_heap_exactly(void **state)
{
    (void)state;
    pto_runtime *rt = ring1_rt(0, 4096);
    SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
    SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
    static const uint64_t sizes[3] = {1024, 2048, 1024};
    for (int i = 0; i < 3; i++) check_ok(rt, submit_out(rt, NULL, sizes[i], NULL), "pto_task_submit");
    assert_int_equal(ring_usage(rt, 1).heap, 4096);
    int rc = submit_out(rt, NULL, 1024, NULL);
    EXPECT_FATAL(rt, rc, PTO_HEAP_RING_DEADLOCK, "FATAL: Task Allocator Deadlock - Heap Exhausted! ring=1",
                 "is the oldest task owned by an open scope on this ring -> Provable head-of-line deadlock.",
                 "Requested:  1024 bytes", "used=4096, available=0");
    finish_then_recover(rt, PTO_HEAP_RING_DEADLOCK);

    pto_arg oa[5];
    for (int i = 0; i < 5; i++) oa[i] = out_arg(128); /* 1024 bytes each */
    pto_task four = {NULL, NULL, "four", oa, 4, NULL, 0, NULL, 0, 0}, five = {NULL, NULL, "five", oa, 5, NULL, 0, NULL, 0, 0};
    SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
    SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
    check_submit(rt, &four, NULL);
    scope_end_ok(rt);
    SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
    rc = pto_task_submit(rt, &five, NULL);
    EXPECT_FATAL(rt, rc, PTO_HEAP_RING_DEADLOCK,
                 "Request of 5120 bytes exceeds ring 1's capacity of 4096 -> can never fit.");
    finish_then_recover(rt, PTO_HEAP_RING_DEADLOCK);
    pto_runtime_destroy(rt);
}

/* Ring 1's heap (4096) is full behind a head (1024 bytes) in a closed scope
 * that runs until the gate opens; the next scope's 1024-byte output waits
 * until the head retires, then takes the head's bytes (a wrap to 0). */
static void test_heap_full_waits_for_head(void **state)
{
    (void)state;
    pto_runtime *rt = ring1_rt(0, 4096);
    pto_view head, v;
    SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
    SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
    check_ok(rt, submit_out(rt, k_head, 1024, &head), "pto_task_submit");
    check_ok(rt, submit_out(rt, NULL, 2048, NULL), "pto_task_submit");
    check_ok(rt, submit_out(rt, NULL, 1024, NULL), "pto_task_submit");
    scope_end_ok(rt);
    assert_int_equal(ring_usage(rt, 1).heap, 4096);
    SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
    atomic_store(&g_gate, 1); /* the head ends 50 ms from now */
    check_ok(rt, submit_out(rt, NULL, 1024, &v), "pto_task_submit");
    assert_int_equal(atomic_load(&g_head_done), 1); /* it waited for the head */
    assert_ptr_equal(v.addr, head.addr);
    scope_end_ok(rt);
    scope_end_ok(rt);
    finish_ok(rt);
    pto_runtime_destroy(rt);
}

/* A consumer of exactly 64 + D producers, dep pool and spill pool D = 4:
 * its 4 spilled edges fill the spill pool exactly and fit, whether the
 * producers already completed (held by the open scope) or still run (then
 * the short dep pool waits for them). */
static void test_spill_pool_at_cap_fits(void **state)
{
    (void)state;
    enum { N = 64 + 4 };
    pto_runtime *rt = make_rt_rings(0, 0, 4, 2, E2E_NO_STALL_MS);
    for (int running = 0; running < 2; running++) {
        uint64_t x[N], out[1] = {0}, want = 0;
        SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
        for (int i = 0; i < N; i++) {
            pto_arg wa[1] = {arg(PTO_ARG_OUTPUT_EXISTING, v1(x, i, 1))};
            uint64_t ws[2] = {(uint64_t)i + 1, running ? 2000 : 0};
            submit_ok(rt, k_write, "producer", wa, 1, ws, 2, NULL);
            want += (uint64_t)i + 1;
        }
        if (!running) {
            pto_view all = v1(x, 0, N);
            check_ok(rt, pto_view_wait(rt, &all, 0), "pto_view_wait");
        }
        pto_arg ca[2] = {arg(PTO_ARG_IN, v1(x, 0, N)), arg(PTO_ARG_OUTPUT_EXISTING, v1(out, 0, 1))};
        submit_ok(rt, k_sum, "consumer", ca, 2, NULL, 0, NULL);
        scope_end_ok(rt);
        finish_ok(rt);
        assert_true(out[0] == want);
    }
    pto_runtime_destroy(rt);
}

/* 64 + D + 1 producers (held on the gate): 5 spilled edges never fit a
 * spill pool of 4 (V2, at once). */
static void test_spill_pool_one_over_never_fits(void **state)
{
    (void)state;
    pto_runtime *rt = make_rt_rings(0, 0, 4, 2, E2E_NO_STALL_MS);
    uint64_t x[69] = {0}, out[1] = {0};
    int rc = gated_fanin(rt, "producer", x, 69, out);
    EXPECT_FATAL(rt, rc, PTO_DEP_POOL_OVERFLOW, "FATAL: Fanin Spill Pool Overflow! ring=0",
                 "Request of 5 entries exceeds ring 0's capacity of 4 -> can never fit.",
                 "raise ring_dep_pool (runtime_env.ring_dep_pool) for ring 0 (now 4");
    finish_then_recover(rt, PTO_DEP_POOL_OVERFLOW);
    pto_runtime_destroy(rt);
}

/* 2048 tasks held on the gate, each reading 32 distinct buffers: exactly
 * 65536 live tensormap entries fit, at once.  One more entry cannot: with
 * nothing retiring, TENSORMAP_OVERFLOW after the stall bound (V3). */
static void test_tensormap_at_pool_size_fits(void **state)
{
    (void)state;
    enum { BUFS = 32, TASKS = PTO_TENSORMAP_POOL_SIZE / BUFS };
    static uint64_t bufs[BUFS][4];
    pto_runtime *rt = make_rt_rings(4096, 0, 0, 2, 300);
    atomic_store(&g_gate, 0);
    pto_arg args[BUFS];
    for (int i = 0; i < BUFS; i++) args[i] = arg(PTO_ARG_IN, v1(bufs[i], 0, 4));
    pto_task t = {k_hold, NULL, "reader", args, BUFS, NULL, 0, NULL, 0, 0};
    SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
    for (int i = 0; i < TASKS; i++) check_submit(rt, &t, NULL);
    t.num_args = 1;
    uint64_t t0 = now_ms();
    int rc = pto_task_submit(rt, &t, NULL);
    uint64_t waited_ms = now_ms() - t0;
    atomic_store(&g_gate, 1);
    EXPECT_FATAL(rt, rc, PTO_TENSORMAP_OVERFLOW, "FATAL: TensorMap Entry Pool Deadlock Detected!",
                 "Pool used: 65536 / 65536 (100.0%), needed=1, readers=65536, writers=0",
                 "No progress anywhere for");
    assert_true(waited_ms >= 300);
    finish_then_recover(rt, PTO_TENSORMAP_OVERFLOW);
    pto_runtime_destroy(rt);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_scope_over_window_is_scope_deadlock),
    cmocka_unit_test(test_root_over_window),
    cmocka_unit_test(test_heap_request_too_big),
    cmocka_unit_test(test_nested_scopes_share_ring3),
    cmocka_unit_test(test_fanin_128_dep_pool_4),
    cmocka_unit_test(test_heap_structural_ring1),
    cmocka_unit_test(test_scope_holds_window_minus_one),
    cmocka_unit_test(test_ring_window_full_waits_for_head),
    cmocka_unit_test(test_ring_window_full_head_pinned_is_v1),
    cmocka_unit_test(test_ring_window_full_head_stuck_is_stall),
    cmocka_unit_test(test_heap_outputs_fill_heap_exactly),
    cmocka_unit_test(test_heap_full_waits_for_head),
    cmocka_unit_test(test_spill_pool_at_cap_fits),
    cmocka_unit_test(test_spill_pool_one_over_never_fits),
    cmocka_unit_test(test_tensormap_at_pool_size_fits),
};

PTO_TEST_MAIN(tests)
