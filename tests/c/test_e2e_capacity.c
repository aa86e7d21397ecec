/*
 * test_e2e_capacity.c - capacity errors, back-pressure and memory use, end to
 * end through the public API.
 *
 * Every capacity error is provoked with tiny rings and checked for its return
 * code, pto_runtime_error()->code and the key fragments of its message
 * (docs/runtime.md, "Errors"); then pto_runtime_finish must return -code and a small run
 * on the same runtime must succeed (the latch clears).  Each capacity is
 * also tried at exactly its limit (fits) and one over.  Tests that expect a
 * stall set a small stall_timeout_ms, all others E2E_NO_STALL_MS (e2e.h).
 * Waits for a head task are checked by events (the head finished before the
 * waiting submit returned), never by durations.  The streaming and stress
 * tests compare against a serial execution; PTO_TEST_SCALE scales their
 * task counts (default 1, or 0.1 in sanitizer builds).
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "e2e.h"

/* The graph engine below is the one of test_e2e_random.c (AUTO-only use here). */
#include "random_graph.h"

/* ---- helpers ----------------------------------------------------------- */

/* n scaled by PTO_TEST_SCALE (default 1, or 0.1 in sanitizer builds), at least 1. */
static long scaled(long n)
{
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    const double dflt = 0.1;
#else
    const double dflt = 1.0;
#endif
    long m = (long)((double)n * test_scale(dflt));
    return m < 1 ? 1 : m;
}

/* rc is -code; the latched error has code and the fixed lines of section 6
 * plus every fragment. */
static void expect_fatal_(pto_runtime *rt, int rc, int code, const char *const *frags)
{
    expect_code(rt, rc, code);
    char line[256];
    snprintf(line, sizeof line, "PTO runtime failed: error_code=%d runtime_status=-%d", code, code);
    expect_frag(rt, line);
    snprintf(line, sizeof line, "error detail: error_code=%d %s - ", code, pto_status_name(code));
    expect_frag(rt, line);
    expect_frag(rt, "error hint: ");
    for (int i = 0; frags[i]; i++) expect_frag(rt, frags[i]);
}

#define EXPECT_FATAL(rt, rc, code, ...) \
    expect_fatal_((rt), (rc), (code), (const char *const[]){__VA_ARGS__, NULL})

/* ---- kernels ----------------------------------------------------------- */

static atomic_int g_gate;      /* kernels on a latch wait for it (bounded) */
static atomic_int g_head_done; /* k_head finished */
static atomic_int g_ran[8]; /* which chain tasks ran */

/* views[0] := scalars[0] everywhere after spinning scalars[1] us */
static int k_write(const pto_kernel_args *a)
{
    spin_us(a->num_scalars > 1 ? a->scalars[1] : 0);
    const pto_view *v = &a->views[0];
    for (uint64_t k = 0; k < view_count(v); k++) *el(v, k) = a->scalars[0];
    return 0;
}

/* views[0][k] := scalars[0] + k */
static int k_iota(const pto_kernel_args *a)
{
    const pto_view *v = &a->views[0];
    for (uint64_t k = 0; k < view_count(v); k++) *el(v, k) = a->scalars[0] + k;
    return 0;
}

/* last view [0] := sum of every other view's elements + scalars[0] */
static int k_sum(const pto_kernel_args *a)
{
    uint64_t s = a->num_scalars ? a->scalars[0] : 0;
    for (uint32_t i = 0; i + 1 < a->num_views; i++)
        for (uint64_t k = 0; k < view_count(&a->views[i]); k++) s += *el(&a->views[i], k);
    *el(&a->views[a->num_views - 1], 0) = s;
    return 0;
}

#define MIX 6364136223846793005ull

/* INOUT views[n-1][0] := views[n-1][0] * MIX + (views[0][0] if two views, else scalars[0]) */
static int k_mix(const pto_kernel_args *a)
{
    uint64_t x = a->num_views == 2 ? *el(&a->views[0], 0) : a->scalars[0];
    uint64_t *acc = el(&a->views[a->num_views - 1], 0);
    *acc = *acc * MIX + x;
    return 0;
}

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

/* Chain step scalars[0] on INOUT views[0]: adds 1; step scalars[1] != 0 fails
 * with rc 7 and a message instead. */
static int k_step_or_fail(const pto_kernel_args *a)
{
    atomic_store(&g_ran[a->scalars[0]], 1);
    if (a->scalars[1]) {
        snprintf(a->message, a->message_len, "bad tile");
        return 7;
    }
    spin_us(200);
    *el(&a->views[0], 0) += 1;
    return 0;
}

/* ---- small runs -------------------------------------------------------- */

static void submit_ok(pto_runtime *rt, pto_kernel_fn k, const char *name, pto_arg *args,
                      uint32_t nargs, const uint64_t *sc, uint32_t nsc, pto_task_id *id)
{
    pto_task t = {k, NULL, name, args, nargs, sc, nsc, NULL, 0};
    check_submit(rt, &t, id);
}

/* A producer of n elements p, p + 1, ... in a runtime-allocated buffer, and
 * a consumer summing them into sums[i]; returns the producer's id. */
static pto_task_id produce_and_sum(pto_runtime *rt, uint64_t n, uint64_t p, uint64_t *sums, int64_t i)
{
    pto_arg pa[1] = {out_arg(n)};
    uint64_t ps[1] = {p};
    pto_task_id pid;
    submit_ok(rt, k_iota, "produce", pa, 1, ps, 1, &pid);
    pto_arg ca[2] = {arg(PTO_ARG_IN, pa[0].view), arg(PTO_ARG_OUTPUT_EXISTING, v1(sums, i, 1))};
    submit_ok(rt, k_sum, "sum", ca, 2, NULL, 0, NULL);
    return pid;
}

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
    pto_task c = {k_sum, NULL, "consumer", ca, 2, NULL, 0, NULL, 0};
    int rc = pto_task_submit(rt, &c, NULL);
    atomic_store(&g_gate, 1);
    return rc;
}

/* Two tasks in one scope on a user buffer, then pto_runtime_finish == 0. */
static void small_run_ok(pto_runtime *rt)
{
    uint64_t buf[8] = {0}, out[1] = {0};
    SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
    pto_arg wa[1] = {arg(PTO_ARG_OUTPUT_EXISTING, v1(buf, 0, 8))};
    uint64_t ws[2] = {5, 100};
    submit_ok(rt, k_write, "write", wa, 1, ws, 2, NULL);
    pto_arg sa[2] = {arg(PTO_ARG_IN, v1(buf, 0, 8)), arg(PTO_ARG_OUTPUT_EXISTING, v1(out, 0, 1))};
    uint64_t ss[1] = {1};
    submit_ok(rt, k_sum, "sum", sa, 2, ss, 1, NULL);
    scope_end_ok(rt);
    finish_ok(rt);
    assert_int_equal(out[0], 41);
    assert_int_equal(pto_runtime_error(rt)->code, 0);
}

/* After an expected fatal: pto_runtime_finish returns -code, then a run succeeds. */
static void finish_then_recover(pto_runtime *rt, int code)
{
    expect_code(rt, pto_runtime_finish(rt), code);
    small_run_ok(rt);
}

static pto_task dummy_task(void)
{
    pto_task t = {NULL, NULL, "dummy", NULL, 0, NULL, 0, NULL, 0};
    return t;
}

static long read_status_kb(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    assert_non_null(f);
    char line[256];
    long v = -1;
    size_t n = strlen(key);
    while (fgets(line, sizeof line, f))
        if (strncmp(line, key, n) == 0) v = atol(line + n);
    fclose(f);
    assert_true(v >= 0);
    return v;
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
    pto_task t = {k_write, NULL, "big", oa, 1, sc, 2, NULL, 0};
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
    pto_task t3 = {k_write, NULL, "b2048", a3, 1, sc, 2, NULL, 0};
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
    pto_task t = {k, NULL, "out", oa, 1, NULL, 0, NULL, 0};
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
    pto_task head = {k_head, NULL, "head", NULL, 0, NULL, 0, NULL, 0}, d = dummy_task();
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
    pto_task hold = {k_hold, NULL, "stuck", NULL, 0, NULL, 0, NULL, 0}, d = dummy_task();
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
    pto_task four = {NULL, NULL, "four", oa, 4, NULL, 0, NULL, 0}, five = {NULL, NULL, "five", oa, 5, NULL, 0, NULL, 0};
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
    pto_task t = {k_hold, NULL, "reader", args, BUFS, NULL, 0, NULL, 0};
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

/* ---- misuse and latching ----------------------------------------------- */

/* Runs fn's pto_runtime_finish with stderr captured into buf. */
static int finish_capturing_stderr(pto_runtime *rt, char *buf, size_t len)
{
    fflush(stderr);
    FILE *tmp = tmpfile();
    assert_non_null(tmp);
    int saved = dup(2);
    assert_true(saved >= 0);
    assert_true(dup2(fileno(tmp), 2) >= 0);
    int rc = pto_runtime_finish(rt);
    fflush(stderr);
    assert_true(dup2(saved, 2) >= 0);
    close(saved);
    rewind(tmp);
    size_t n = fread(buf, 1, len - 1, tmp);
    buf[n] = 0;
    fclose(tmp);
    return rc;
}

static void test_scope_misuse(void **state)
{
    (void)state;
    pto_runtime *rt = make_rt_rings(0, 0, 0, 2, E2E_NO_STALL_MS);

    /* the 65th nested scope */
    for (int i = 0; i < 64; i++) check_ok(rt, pto_scope_begin(rt, PTO_SCOPE_AUTO, "deep.c", i), "pto_scope_begin");
    int rc = pto_scope_begin(rt, PTO_SCOPE_AUTO, "deep.c", 64);
    EXPECT_FATAL(rt, rc, PTO_INVALID_ARGS, "FATAL: Invalid Arguments!",
                 "scope depth exceeds PTO_MAX_SCOPE_DEPTH (64)",
                 "this is an orchestration bug; no RunConfig field helps");
    char err[8192];
    rc = finish_capturing_stderr(rt, err, sizeof err);
    assert_int_equal(rc, -PTO_INVALID_ARGS);
    small_run_ok(rt);

    /* scope_end with no scope open */
    rc = pto_scope_end(rt);
    EXPECT_FATAL(rt, rc, PTO_INVALID_ARGS, "FATAL: Invalid Arguments!", "scope_end without a matching scope_begin");
    finish_then_recover(rt, PTO_INVALID_ARGS);

    /* two scopes left open at pto_runtime_finish: closed with a warning, results right */
    uint64_t tile[4] = {0}, out[1] = {0};
    SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
    pto_arg wa[1] = {arg(PTO_ARG_OUTPUT_EXISTING, v1(tile, 0, 4))};
    uint64_t ws[2] = {10, 200};
    submit_ok(rt, k_write, "write", wa, 1, ws, 2, NULL);
    SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
    pto_arg sa[2] = {arg(PTO_ARG_IN, v1(tile, 0, 4)), arg(PTO_ARG_OUTPUT_EXISTING, v1(out, 0, 1))};
    uint64_t ss[1] = {2};
    pto_task_id sid;
    submit_ok(rt, k_sum, "sum", sa, 2, ss, 1, &sid);
    assert_int_equal(sid >> 32, 1);
    rc = finish_capturing_stderr(rt, err, sizeof err);
    check_ok(rt, rc, "pto_runtime_finish");
    if (!strstr(err, "warning: pto_runtime_finish closed 2 scope(s) left open")) print_error("stderr:\n%s\n", err);
    assert_non_null(strstr(err, "warning: pto_runtime_finish closed 2 scope(s) left open"));
    assert_int_equal(out[0], 42);

    /* reusable: depth starts again at 0 (ring 0), then 1 (ring 1) */
    SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
    pto_task_id id0, id1;
    submit_ok(rt, k_write, "write", wa, 1, ws, 2, &id0);
    SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
    submit_ok(rt, k_sum, "sum", sa, 2, ss, 1, &id1);
    scope_end_ok(rt);
    scope_end_ok(rt);
    finish_ok(rt);
    assert_int_equal(id0 >> 32, 0);
    assert_int_equal(id1 >> 32, 1);
    assert_int_equal(out[0], 42);
    pto_runtime_destroy(rt);
}

static atomic_int g_marks;
static int k_mark(const pto_kernel_args *a)
{
    (void)a;
    atomic_fetch_add(&g_marks, 1);
    return 0;
}

static void test_latch_first_wins(void **state)
{
    (void)state;
    pto_runtime *rt = make_rt_rings(4, 0, 0, 2, E2E_NO_STALL_MS);
    atomic_store(&g_marks, 0);
    SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
    pto_task d = dummy_task();
    for (int i = 0; i < 3; i++) check_submit(rt, &d, NULL);
    int rc = pto_task_submit(rt, &d, NULL);
    EXPECT_FATAL(rt, rc, PTO_SCOPE_DEADLOCK, "FATAL: Scope Deadlock Detected! (ring 0)");
    static char first[PTO_ERROR_MESSAGE_MAX];
    memcpy(first, pto_runtime_error(rt)->message, sizeof first);

    /* every call is a no-op returning -1 */
    pto_task m = {k_mark, NULL, "mark", NULL, 0, NULL, 0, NULL, 0};
    pto_task_id id = 0;
    assert_int_equal(pto_task_submit(rt, &m, &id), -PTO_SCOPE_DEADLOCK);
    assert_true(id == PTO_INVALID_TASK_ID);
    assert_int_equal(pto_scope_begin(rt, PTO_SCOPE_AUTO, __FILE__, __LINE__), -PTO_SCOPE_DEADLOCK);
    void *addr = &addr;
    assert_int_equal(pto_tensor_alloc(rt, 1024, &addr, NULL), -PTO_SCOPE_DEADLOCK);
    assert_null(addr);
    uint64_t buf[4] = {0};
    pto_view v = v1(buf, 0, 4);
    assert_int_equal(pto_view_wait(rt, &v, 1), -PTO_SCOPE_DEADLOCK);
    /* a later failure does not replace the first */
    assert_int_equal(pto_runtime_fail(rt, "second failure %d", 2), -PTO_SCOPE_DEADLOCK);
    assert_int_equal(pto_scope_end(rt), -PTO_SCOPE_DEADLOCK);
    assert_int_equal(pto_scope_end(rt), -PTO_SCOPE_DEADLOCK); /* would be unmatched */
    assert_int_equal(pto_runtime_error(rt)->code, PTO_SCOPE_DEADLOCK);
    assert_string_equal(pto_runtime_error(rt)->message, first);
    assert_null(strstr(pto_runtime_error(rt)->message, "second failure"));

    assert_int_equal(pto_runtime_finish(rt), -PTO_SCOPE_DEADLOCK);
    assert_int_equal(pto_runtime_error(rt)->code, PTO_SCOPE_DEADLOCK);
    assert_int_equal(atomic_load(&g_marks), 0);
    small_run_ok(rt);
    assert_int_equal(pto_runtime_error(rt)->code, 0);
    pto_runtime_destroy(rt);
}

static void test_report_fatal(void **state)
{
    (void)state;
    pto_runtime *rt = make_rt_rings(0, 0, 0, 2, E2E_NO_STALL_MS);
    atomic_store(&g_marks, 0);
    check_ok(rt, pto_scope_begin(rt, PTO_SCOPE_AUTO, "orch.c", 12), "pto_scope_begin");
    int rc = pto_runtime_fail(rt, "boom %d", 7);
    EXPECT_FATAL(rt, rc, PTO_EXPLICIT_ORCH_FATAL, "FATAL: Orchestration Reported Fatal: boom 7",
                 "EXPLICIT_ORCH_FATAL",
                 "reported by the orchestration code itself; no RunConfig field helps");
    assert_string_equal(pto_status_name(PTO_EXPLICIT_ORCH_FATAL), "EXPLICIT_ORCH_FATAL");
    pto_task m = {k_mark, NULL, "mark", NULL, 0, NULL, 0, NULL, 0};
    assert_int_equal(pto_task_submit(rt, &m, NULL), -PTO_EXPLICIT_ORCH_FATAL);
    finish_then_recover(rt, PTO_EXPLICIT_ORCH_FATAL);
    assert_int_equal(atomic_load(&g_marks), 0);
    pto_runtime_destroy(rt);
}

/* The middle kernel of a 5-task INOUT chain returns 7. */
static void test_kernel_failed(void **state)
{
    (void)state;
    pto_runtime *rt = make_rt_rings(0, 0, 0, 2, E2E_NO_STALL_MS);
    for (int i = 0; i < 8; i++) atomic_store(&g_ran[i], 0);
    uint64_t tile[1] = {0};
    SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
    pto_task_id ids[5];
    int rcs[5];
    for (uint64_t i = 0; i < 5; i++) {
        pto_arg a[1] = {arg(PTO_ARG_INOUT, v1(tile, 0, 1))};
        uint64_t sc[2] = {i, i == 2};
        pto_task t = {k_step_or_fail, NULL, i == 2 ? "failer" : "step", a, 1, sc, 2, NULL, 0};
        rcs[i] = pto_task_submit(rt, &t, &ids[i]);
    }
    pto_scope_end(rt);
    /* the first three submits precede any possible failure */
    for (int i = 0; i < 3; i++) assert_int_equal(rcs[i], 0);
    for (int i = 3; i < 5; i++) assert_true(rcs[i] == 0 || rcs[i] == -PTO_KERNEL_FAILED);
    int rc = pto_runtime_finish(rt);
    char task_frag[64];
    snprintf(task_frag, sizeof task_frag, "FATAL: Kernel Failed! task=");
    EXPECT_FATAL(rt, rc, PTO_KERNEL_FAILED, task_frag, "kernel=failer", "rc=7", "message=bad tile",
                 "tasks not yet started were skipped");
    assert_int_equal(atomic_load(&g_ran[0]), 1);
    assert_int_equal(atomic_load(&g_ran[1]), 1);
    assert_int_equal(atomic_load(&g_ran[2]), 1);
    assert_int_equal(atomic_load(&g_ran[3]), 0);
    assert_int_equal(atomic_load(&g_ran[4]), 0);
    assert_int_equal(tile[0], 2);

    /* the next run on the same runtime works */
    for (int i = 0; i < 8; i++) atomic_store(&g_ran[i], 0);
    tile[0] = 0;
    for (uint64_t i = 0; i < 5; i++) {
        pto_arg a[1] = {arg(PTO_ARG_INOUT, v1(tile, 0, 1))};
        uint64_t sc[2] = {i, 0};
        submit_ok(rt, k_step_or_fail, "step", a, 1, sc, 2, NULL);
    }
    finish_ok(rt);
    assert_int_equal(tile[0], 5);
    for (int i = 0; i < 5; i++) assert_int_equal(atomic_load(&g_ran[i]), 1);
    pto_runtime_destroy(rt);
}

/* ---- back-pressure and pools ------------------------------------------- */

/* 1,000,000 tiny tasks through 4-slot windows, scopes of 2: a producer with
 * a runtime-allocated output and a consumer folding it into one of 16
 * accumulators (order-sensitive). */
static void test_stream_backpressure(void **state)
{
    (void)state;
    enum { K = 16 };
    pto_runtime *rt = make_rt_rings(4, 4096, 8, 2, E2E_NO_STALL_MS);
    uint64_t acc[K], ref[K];
    for (int k = 0; k < K; k++) acc[k] = ref[k] = (uint64_t)k;
    long pairs = scaled(1000000) / 2;
    for (long i = 0; i < pairs; i++) {
        uint64_t val = (uint64_t)i * 2654435761ull + 1;
        SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
        pto_arg pa[1] = {out_arg(1)};
        uint64_t ps[2] = {val, 0};
        submit_ok(rt, k_write, "produce", pa, 1, ps, 2, NULL);
        pto_arg ca[2] = {arg(PTO_ARG_IN, pa[0].view), arg(PTO_ARG_INOUT, v1(acc, i % K, 1))};
        submit_ok(rt, k_mix, "fold", ca, 2, NULL, 0, NULL);
        scope_end_ok(rt);
        ref[i % K] = ref[i % K] * MIX + val;
    }
    finish_ok(rt);
    for (int k = 0; k < K; k++) assert_true(acc[k] == ref[k]);
    pto_ring_usage u;
    for (int r = 0; r < 4; r++) {
        check_ok(rt, pto_ring_usage_get(rt, r, &u), "pto_ring_usage_get");
        assert_true(u.task_window_peak <= 3);
        assert_true(u.heap_peak <= 4096);
    }
    pto_runtime_destroy(rt);
}

/* Ring 1's heap is 2 MiB; two consecutive scopes each allocate 1.5 MiB: the
 * second fits only because a drained heap restarts at offset 0. */
static void test_empty_ring_rebase_e2e(void **state)
{
    (void)state;
    enum { N = 196608 }; /* 1.5 MiB of uint64 */
    pto_config cfg = cfg_rings(0, 0, 0, 2, E2E_NO_STALL_MS);
    cfg.runtime_env.ring_heap[1] = 2097152;
    pto_runtime *rt = make_rt(&cfg);
    uint64_t sums[4] = {0};
    SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
    for (int s = 0; s < 4; s++) {
        SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
        pto_task_id pid = produce_and_sum(rt, N, 1000u * (uint64_t)(s + 1), sums, s);
        assert_int_equal(pid >> 32, 1);
        scope_end_ok(rt);
    }
    scope_end_ok(rt);
    finish_ok(rt);
    for (int s = 0; s < 4; s++) {
        uint64_t p = 1000u * (uint64_t)(s + 1);
        uint64_t want = (uint64_t)N * p + (uint64_t)N * (N - 1) / 2;
        assert_true(sums[s] == want);
    }
    pto_runtime_destroy(rt);
}

/* Window 64, heap 4 MiB, dep pool 256: a 100k-task DAG of random views over
 * 8 buffers (outputs up to 64 KiB) equals its serial execution.  Scopes hold
 * at most 4 tasks, so no ring can deadlock structurally (4 pinned tasks x at
 * most 63 edges <= 256). */
static void test_small_rings_stress(void **state)
{
    (void)state;
    enum { NB = 8, ROWS = 64, COLS = 64 };
    pto_runtime *rt = make_rt_rings(64, 4194304, 256, 2, E2E_NO_STALL_MS);
    graph *g = malloc(sizeof *g);
    assert_non_null(g);
    uint64_t *bufs[MAXB], *ref[MAXB];
    uint64_t s = 0x57e55ull;
    for (int b = 0; b < NB; b++) {
        bufs[b] = malloc(ROWS * COLS * sizeof(uint64_t));
        ref[b] = malloc(ROWS * COLS * sizeof(uint64_t));
        assert_non_null(bufs[b]);
        assert_non_null(ref[b]);
        for (int k = 0; k < ROWS * COLS; k++) bufs[b][k] = ref[b][k] = base_splitmix64(&s);
    }
    genopt o;
    memset(&o, 0, sizeof o);
    o.nb = NB;
    o.rows = ROWS;
    o.cols = COLS;
    for (int r = 0; r < 4; r++) o.w[r] = 64;
    o.max_open = 1;
    o.allow_root = 0;
    o.allow_manual = 0;
    o.max_scope_tasks = 4;
    o.max_temp = 8192;
    o.max_view = 16;
    long target = scaled(100000), done = 0;
    int chunk = 0;
    while (done < target) {
        gen_graph(g, &o, &s, 150);
        snprintf(g_ctx, sizeof g_ctx, "test_small_rings_stress chunk %d (tasks before it: %ld)", chunk, done);
        run_graph(rt, g, bufs);
        run_serial(g, ref);
        done += g->ntasks;
        chunk++;
    }
    int rc = pto_runtime_finish(rt);
    if (rc != 0) fail_rt(rt, "pto_runtime_finish", rc);
    for (int b = 0; b < NB; b++)
        for (int k = 0; k < ROWS * COLS; k++)
            if (bufs[b][k] != ref[b][k]) {
                print_error("buffer %d element %d: runtime %llu, serial %llu\n", b, k,
                            (unsigned long long)bufs[b][k], (unsigned long long)ref[b][k]);
                fail();
            }
    pto_ring_usage u;
    check_ok(rt, pto_ring_usage_get(rt, 0, &u), "pto_ring_usage_get");
    assert_true(u.task_window_peak <= 63);
    assert_true(u.dep_pool_peak <= 256);
    pto_runtime_destroy(rt);
    for (int b = 0; b < NB; b++) {
        free(bufs[b]);
        free(ref[b]);
    }
    free(g);
}

/* 64 producers, 64 consumers each depending on all 64 (64 inline edges). */
static void test_fanin_64x64(void **state)
{
    (void)state;
    pto_runtime *rt = make_rt_rings(0, 0, 0, 3, E2E_NO_STALL_MS);
    for (int run = 0; run < 3; run++) {
        uint64_t x[64] = {0}, y[64] = {0}, want = 0;
        SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
        for (int i = 0; i < 64; i++) {
            pto_arg wa[1] = {arg(PTO_ARG_OUTPUT_EXISTING, v1(x, i, 1))};
            uint64_t ws[2] = {(uint64_t)(i * 7 + 1 + run), 50};
            submit_ok(rt, k_write, "producer", wa, 1, ws, 2, NULL);
            want += (uint64_t)(i * 7 + 1 + run);
        }
        for (int j = 0; j < 64; j++) {
            pto_arg ca[2] = {arg(PTO_ARG_IN, v1(x, 0, 64)), arg(PTO_ARG_OUTPUT_EXISTING, v1(y, j, 1))};
            uint64_t cs[1] = {(uint64_t)j};
            submit_ok(rt, k_sum, "consumer", ca, 2, cs, 1, NULL);
        }
        scope_end_ok(rt);
        finish_ok(rt);
        for (int j = 0; j < 64; j++) assert_true(y[j] == want + (uint64_t)j);
    }
    pto_runtime_destroy(rt);
}

/* Window 4, dep pool 4: 10000 chained tasks in scopes of 2 complete (the
 * pool is reclaimed whenever the watermark moves, not only periodically). */
static void test_dep_pool_reclaims_on_any_move(void **state)
{
    (void)state;
    pto_runtime *rt = make_rt_rings(4, 0, 4, 2, E2E_NO_STALL_MS);
    uint64_t tile[1] = {3}, ref = 3;
    for (int i = 0; i < 10000; i += 2) {
        SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
        for (int j = 0; j < 2; j++) {
            pto_arg a[1] = {arg(PTO_ARG_INOUT, v1(tile, 0, 1))};
            uint64_t sc[1] = {(uint64_t)(i + j)};
            submit_ok(rt, k_mix, "chain", a, 1, sc, 1, NULL);
            ref = ref * MIX + (uint64_t)(i + j);
        }
        scope_end_ok(rt);
    }
    finish_ok(rt);
    assert_true(tile[0] == ref);

    pto_runtime_destroy(rt);

    /* a fan-out (window 16384, dep pool 4): a slow head task, then 6 readers
     * of its tile, one per scope.  Readers 1-4 fill the pool while the head
     * runs; reader 5 waits for room, which appears once the head and the
     * first readers retire. */
    rt = make_rt_rings(0, 0, 4, 2, E2E_NO_STALL_MS);
    uint64_t x[1] = {0}, outs[6] = {0};
    SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
    pto_arg ha[1] = {arg(PTO_ARG_OUTPUT_EXISTING, v1(x, 0, 1))};
    uint64_t hs[2] = {9, 50000}; /* 50 ms */
    submit_ok(rt, k_write, "head", ha, 1, hs, 2, NULL);
    scope_end_ok(rt);
    for (int i = 0; i < 6; i++) {
        SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
        pto_arg ra[2] = {arg(PTO_ARG_IN, v1(x, 0, 1)), arg(PTO_ARG_OUTPUT_EXISTING, v1(outs, i, 1))};
        uint64_t rs[1] = {(uint64_t)i};
        submit_ok(rt, k_sum, "reader", ra, 2, rs, 1, NULL);
        scope_end_ok(rt);
    }
    finish_ok(rt);
    for (int i = 0; i < 6; i++) assert_true(outs[i] == 9u + (uint64_t)i);
    pto_runtime_destroy(rt);
}

/* ---- memory: reserved, not committed ----------------------------------- */

/* A producer with an OUT buffer and a consumer summing it, at depths 0..3. */
static void small_graph_all_rings(pto_runtime *rt, uint64_t *sums)
{
    for (int d = 0; d < 4; d++) {
        SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
        produce_and_sum(rt, 512, (uint64_t)d, sums, d);
    }
    for (int d = 0; d < 4; d++) scope_end_ok(rt);
    finish_ok(rt);
    for (int d = 0; d < 4; d++) assert_true(sums[d] == 512u * (uint64_t)d + 511u * 512u / 2);
}

/* What a small run may add to the resident set (KiB): it touches a few
 * pages per ring array and of the tensormap (about 300 KiB measured), never
 * what is only reserved.  Sanitizers add shadow and allocator metadata. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define RSS_BUDGET_KB (16 * 1024)
#else
#define RSS_BUDGET_KB (2 * 1024)
#endif

/* A run on a throw-away runtime first: thread stacks, allocator arenas and
 * the library's own pages are committed before the measured run. */
static void rss_warm_up(void)
{
    uint64_t sums[4] = {0};
    pto_runtime *rt = make_rt_rings(0, 0, 0, 2, E2E_NO_STALL_MS);
    small_graph_all_rings(rt, sums);
    pto_runtime_destroy(rt);
}

/* The seed's sized configuration (1.15 GiB of heap) with large dep pools
 * (33 MiB of dep and spill pool): a small graph on every ring adds what it
 * touches, within RSS_BUDGET_KB, not what is reserved. */
static void test_reserve_not_commit(void **state)
{
    (void)state;
    pto_config cfg = cfg_rings(0, 0, 0, 2, E2E_NO_STALL_MS);
    static const uint64_t win[4] = {8192, 16384, 131072, 524288};
    static const uint64_t heap[4] = {134217728, 268435456, 268435456, 536870912};
    static const uint64_t dep[4] = {16384, 65536, 262144, 1048576};
    for (int r = 0; r < 4; r++) {
        cfg.runtime_env.ring_task_window[r] = win[r];
        cfg.runtime_env.ring_heap[r] = heap[r];
        cfg.runtime_env.ring_dep_pool[r] = dep[r];
    }
    rss_warm_up();
    long rss0 = read_status_kb("VmRSS:"), vm0 = read_status_kb("VmSize:");
    pto_runtime *rt = make_rt(&cfg);
    uint64_t sums[4] = {0};
    small_graph_all_rings(rt, sums);
    long rss1 = read_status_kb("VmRSS:"), vm1 = read_status_kb("VmSize:");
    print_message("VmRSS +%ld KiB (budget %d), VmSize +%ld KiB\n", rss1 - rss0, RSS_BUDGET_KB, vm1 - vm0);
    assert_true(rss1 - rss0 < RSS_BUDGET_KB);
    assert_true((double)(vm1 - vm0) >= 1.15 * 1024 * 1024);
    pto_runtime_destroy(rt);
}

/* 10000 scopes on ring 1 (256 MiB heap, window 1024, dep pool 2^20), each
 * writing 64 KiB and waiting for its task before ending: the drained heap
 * restarts at 0 each time, so the resident set grows by what one scope
 * touches (64 KiB of heap, the window's slots), within RSS_BUDGET_KB, not
 * with the number of scopes (625 MiB written in all). */
static void test_rss_follows_use(void **state)
{
    (void)state;
    pto_config cfg = cfg_rings(0, 0, 0, 2, E2E_NO_STALL_MS);
    cfg.runtime_env.ring_task_window[1] = 1024;
    cfg.runtime_env.ring_dep_pool[1] = 1048576;
    rss_warm_up();
    long rss0 = read_status_kb("VmRSS:");
    pto_runtime *rt = make_rt(&cfg);
    SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
    for (int i = 0; i < 10000; i++) {
        SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
        pto_arg pa[1] = {out_arg(8192)}; /* 64 KiB */
        uint64_t ps[1] = {(uint64_t)i};
        pto_task_id id;
        submit_ok(rt, k_iota, "write64k", pa, 1, ps, 1, &id);
        assert_true(id >> 32 == 1);
        check_ok(rt, pto_view_wait(rt, &pa[0].view, 0), "pto_view_wait");
        const uint64_t *p = pa[0].view.addr;
        assert_true(p[0] == (uint64_t)i && p[8191] == (uint64_t)i + 8191);
        scope_end_ok(rt);
    }
    scope_end_ok(rt);
    finish_ok(rt);
    long rss1 = read_status_kb("VmRSS:");
    print_message("VmRSS +%ld KiB after 10000 x 64 KiB (budget %d)\n", rss1 - rss0, RSS_BUDGET_KB);
#if !defined(__SANITIZE_THREAD__) && !defined(__SANITIZE_ADDRESS__)
    /* (not under sanitizers: TSan's history and ASan's free quarantine grow
     * with the work done) */
    assert_true(rss1 - rss0 < RSS_BUDGET_KB);
#endif
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
    cmocka_unit_test(test_scope_misuse),
    cmocka_unit_test(test_latch_first_wins),
    cmocka_unit_test(test_report_fatal),
    cmocka_unit_test(test_kernel_failed),
    cmocka_unit_test(test_stream_backpressure),
    cmocka_unit_test(test_empty_ring_rebase_e2e),
    cmocka_unit_test(test_small_rings_stress),
    cmocka_unit_test(test_fanin_64x64),
    cmocka_unit_test(test_dep_pool_reclaims_on_any_move),
    cmocka_unit_test(test_reserve_not_commit),
    cmocka_unit_test(test_rss_follows_use),
};

PTO_TEST_MAIN(tests)
