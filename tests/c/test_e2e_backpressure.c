/*
 * test_e2e_backpressure.c - misuse and the error latch, back-pressure and
 * pools, and memory use (reserved, not committed), end to end through the
 * public API.
 *
 * Scope misuse, an orchestration's own fatal and a failing kernel are checked
 * as the capacity errors of test_e2e_capacity.c are: the return code,
 * pto_runtime_error()->code and the key fragments of the message
 * (docs/runtime.md, "Errors"), then pto_runtime_finish returns -code and a
 * small run on the same runtime succeeds; the first failure latched wins.
 * Back-pressure: many tasks through tiny rings and pools complete without an
 * error (all tests use E2E_NO_STALL_MS, e2e.h).  The streaming and stress
 * tests compare against a serial execution; PTO_TEST_SCALE scales their
 * task counts (default 1, or 0.1 in sanitizer builds).  Memory: a run adds
 * to the resident set what it touches, not what the rings reserve.  The
 * helpers both files share: capacity_util.h.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "e2e.h"
#include "capacity_util.h"

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

/* ---- kernels ----------------------------------------------------------- */

static atomic_int g_ran[8]; /* which chain tasks ran */

/* views[0][k] := scalars[0] + k */
static int k_iota(const pto_kernel_args *a)
{
    const pto_view *v = &a->views[0];
    for (uint64_t k = 0; k < view_count(v); k++) *el(v, k) = a->scalars[0] + k;
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
    pto_task m = {k_mark, NULL, "mark", NULL, 0, NULL, 0, NULL, 0, 0};
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
    pto_task m = {k_mark, NULL, "mark", NULL, 0, NULL, 0, NULL, 0, 0};
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
        pto_task t = {k_step_or_fail, NULL, i == 2 ? "failer" : "step", a, 1, sc, 2, NULL, 0, 0};
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
