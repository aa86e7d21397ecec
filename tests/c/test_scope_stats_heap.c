/*
 * test_scope_stats_heap.c - scope stats (docs/runtime.md, "Scope stats"), end to end through
 * the public API: the rules of section 10 "Scope stats" on the heap, dep pool
 * and tensormap counters - heap_start / heap_end unrolled across wraps
 * (monotonic, live in [0, size], an exactly full heap shows live = size),
 * the dep pool tail moving within a long scope, and reader entries counted
 * in the tensormap.  The file's layout, peaks, fatal and disabled runs:
 * test_scope_stats.c.
 *
 * As there, each test writes the stats into a fresh mkdtemp directory and
 * reads the file back with jansson (scope_stats_file.h); gated kernels keep
 * tasks live and the tests wait for retirement before the next allocation,
 * so every counter is derived.  Heap and dep pool tests run a depth-3
 * parent with depth-4 children (both ring 3): only there can a scope
 * outlive tasks of its own ring.
 */
#include "harness.h"

#include <stdio.h>
#include <stdint.h>

#include "e2e.h"
#include "scope_stats_file.h"

/* ---- child scopes and their heap rows ---------------------------------- */

/* One depth-4 child scope (site "t.py:<line>", ring 3) holding one task on
 * gate g with the given args; returns its first OUT's address. */
static char *child_task(pto_runtime *rt, int line, int g, pto_arg *args, uint32_t n)
{
    BEGIN(rt, "t.py", line);
    submit_gated(rt, g, args, n);
    END(rt);
    return (char *)args[0].view.addr;
}

/* Expected counters of the child scope t.py:<k+1>. */
typedef struct heap_row {
    uint64_t begin_start, begin_end, end_start, end_end, off, peak;
} heap_row;

static void check_heap_rows(const ss_file *f, const heap_row *rows, int n, char *const *addr, char *base)
{
    for (int k = 0; k < n; k++) {
        char site[32];
        snprintf(site, sizeof site, "t.py:%d", k + 1);
        size_t b = ss_find(f, site, "begin", 0), e = ss_end_of(f, b);
        if (xs(f, b, "heap") != rows[k].begin_start || xe(f, b, "heap") != rows[k].begin_end ||
            xs(f, e, "heap") != rows[k].end_start || xe(f, e, "heap") != rows[k].end_end ||
            xp(f, e, "heap") != rows[k].peak || (uint64_t)(addr[k] - base) != rows[k].off)
            fail_msg("T%d: begin %llu/%llu end %llu/%llu peak %llu offset %lld; expected %llu/%llu "
                     "%llu/%llu peak %llu offset %llu\n%s\n%s",
                     k + 1, (unsigned long long)xs(f, b, "heap"), (unsigned long long)xe(f, b, "heap"),
                     (unsigned long long)xs(f, e, "heap"), (unsigned long long)xe(f, e, "heap"),
                     (unsigned long long)xp(f, e, "heap"), (long long)(addr[k] - base),
                     (unsigned long long)rows[k].begin_start, (unsigned long long)rows[k].begin_end,
                     (unsigned long long)rows[k].end_start, (unsigned long long)rows[k].end_end,
                     (unsigned long long)rows[k].peak, (unsigned long long)rows[k].off, f->line[b], f->line[e]);
        check_begin_peaks(f, b, 1);
    }
}

/* ---- tests ------------------------------------------------------------- */

/* heap_start / heap_end are reclaim_total / alloc_total: monotonic across
 * wraps (docs/runtime.md, "Heap placement": alloc_total = top + alloc_wraps * size,
 * reclaim_total = tail + reclaim_wraps * size).  Ring 3, heap 4096 = 4 KiB
 * units; a depth-3 parent P holds depth-4 children, each with one task on
 * its own gate; a task retires when its gate opens (its scope has ended),
 * and the test waits for that before the next allocation.
 *
 *   T1 2 OUTs of 104 B -> 2x1024  A: [0,2048)     top 2048
 *   T2 800 B -> 1024              A: [2048,3072)  top 3072
 *   T3 1024 B                     A: [3072,4096)  top 4096 (exact fill)
 *   open T1: tail 2048
 *   T4 1024                       B (tail 2048 > 1024): [0,1024) top 1024, alloc wrap 1
 *   open T2, T3: tail 4096
 *   T5 1024                       D (4096-1024 > 1024): [1024,2048) top 2048
 *   T6 1024                       D: [2048,3072) top 3072
 *   open T4, T5: tail := T5's end 2048 < 4096 -> reclaim wrap 1
 *   T7 1024                       A (4096-3072 >= 1024): [3072,4096) top 4096
 *   T8 1024                       B (tail 2048 > 1024): [0,1024) top 1024, alloc wrap 2
 *
 * P's end (T6-T8 live): raw tail 2048, raw top 1024, 2 alloc wraps, 1
 * reclaim wrap -> heap_start 2048 + 4096 = 6144, heap_end 1024 + 2*4096 =
 * 9216: live 3072, high water (from P's begin 0/0) 9216, peak 4096 (T3). */
static void test_stats_heap_unroll(void **state)
{
    (void)state;
    char dir[64];
    pto_config cfg = ss_setup(dir, sizeof dir);
    cfg.runtime_env.ring_heap[3] = 4096;
    pto_runtime *rt = make_rt(&cfg);
    char *addr[8];
    pto_arg a[8][2];
    for (int k = 0; k < 8; k++) a[k][0] = a[k][1] = out_arg(128);
    a[0][0] = a[0][1] = out_arg(13); /* 104 bytes each, each rounded to 1024 */
    a[1][0] = out_arg(100);          /* 800 bytes -> 1024 */

    open_to_depth3(rt);
    BEGIN(rt, "unroll.py", 1);
    addr[0] = child_task(rt, 1, 1, a[0], 2);
    addr[1] = child_task(rt, 2, 2, a[1], 1);
    addr[2] = child_task(rt, 3, 3, a[2], 1);
    gate_open(1);
    wait_live(rt, 3, 2);
    addr[3] = child_task(rt, 4, 4, a[3], 1);
    gate_open(2);
    gate_open(3);
    wait_live(rt, 3, 1);
    addr[4] = child_task(rt, 5, 5, a[4], 1);
    addr[5] = child_task(rt, 6, 6, a[5], 1);
    gate_open(4);
    gate_open(5);
    wait_live(rt, 3, 1);
    addr[6] = child_task(rt, 7, 7, a[6], 1);
    addr[7] = child_task(rt, 8, 8, a[7], 1);
    END(rt);
    pto_ring_usage u;
    assert_int_equal(pto_ring_usage_get(rt, 3, &u), 0);
    assert_int_equal(u.heap, 3072);
    assert_int_equal(u.heap_peak, 4096);
    close_depths(rt, 3);
    for (int g = 6; g <= 8; g++) gate_open(g);
    finish_ok(rt);

    ss_file f;
    ss_load(dir, &f);
    ss_check_structure(&f, 0);
    static const heap_row rows[8] = {
        {0, 0, 0, 2048, 0, 2048},          {0, 2048, 0, 3072, 2048, 3072},
        {0, 3072, 0, 4096, 3072, 4096},    {2048, 4096, 2048, 5120, 0, 3072},
        {4096, 5120, 4096, 6144, 1024, 2048}, {4096, 6144, 4096, 7168, 2048, 3072},
        {6144, 7168, 6144, 8192, 3072, 2048}, {6144, 8192, 6144, 9216, 0, 3072},
    };
    check_heap_rows(&f, rows, 8, addr, addr[0]);
    size_t b = ss_find(&f, "unroll.py:1", "begin", 0), e = ss_end_of(&f, b);
    assert_int_equal(xs(&f, b, "heap"), 0);
    assert_int_equal(xe(&f, b, "heap"), 0);
    assert_int_equal(xs(&f, e, "heap"), 6144);
    assert_int_equal(xe(&f, e, "heap"), 9216);
    assert_int_equal(live_at(&f, e, "heap"), 3072);
    assert_int_equal(high_water(&f, b, e, "heap"), 9216);
    assert_int_equal(xe(&f, e, "heap") - xe(&f, b, "heap"), 9216); /* alloc per scope */
    assert_int_equal(xp(&f, e, "heap"), 4096);
    /* Every ring-3 record: live in [0, size]. */
    for (size_t i = 0; i < f.n; i++)
        if (ru(&f, i, "ring") == 3) assert_true(live_at(&f, i, "heap") <= 4096);
    ss_teardown(&f, rt, dir);
}

/* An exactly full heap after wraps shows live = size, not 0.  Ring 3, heap
 * 4096:
 *
 *   T1 2048  A: [0,2048)     top 2048
 *   T2 2048  A: [2048,4096)  top 4096 = size (exact fill; tail 0)
 *   open T1: tail 2048
 *   T3 1024  B (tail 2048 > 1024): [0,1024) top 1024, alloc wrap 1
 *   open T2, T3: tail := T3's end 1024 < previous -> reclaim wrap 1;
 *            top == tail == 1024: drained mid-ring
 *   T4 4096  E: [0,4096) top 4096, tail 0, alloc wrap 2, reclaim wrap 2
 *
 * P's end (T4 live): heap_start = 0 + 2*4096 = 8192, heap_end = 4096 +
 * 2*4096 = 12288: live = 4096 = size, peak 4096.  (Here an exactly full
 * ring keeps raw top = size, tail = 0 - only case A fills exactly, and
 * case E counts a reclaim wrap - where the reference's raw offsets read
 * 0/0 with one alloc wrap more; either way end - start = size.) */
static void test_stats_heap_exact_full(void **state)
{
    (void)state;
    char dir[64];
    pto_config cfg = ss_setup(dir, sizeof dir);
    cfg.runtime_env.ring_heap[3] = 4096;
    pto_runtime *rt = make_rt(&cfg);
    char *addr[4];
    pto_arg a[4];
    a[0] = out_arg(256); /* 2048 */
    a[1] = out_arg(256);
    a[2] = out_arg(128); /* 1024 */
    a[3] = out_arg(512); /* 4096 */

    open_to_depth3(rt);
    BEGIN(rt, "full.py", 1);
    addr[0] = child_task(rt, 1, 1, &a[0], 1);
    addr[1] = child_task(rt, 2, 2, &a[1], 1);
    gate_open(1);
    wait_live(rt, 3, 1);
    addr[2] = child_task(rt, 3, 3, &a[2], 1);
    gate_open(2);
    gate_open(3);
    wait_live(rt, 3, 0);
    addr[3] = child_task(rt, 4, 4, &a[3], 1);
    END(rt);
    pto_ring_usage u;
    assert_int_equal(pto_ring_usage_get(rt, 3, &u), 0);
    assert_int_equal(u.heap, 4096);
    assert_int_equal(u.heap_cap, 4096);
    close_depths(rt, 3);
    gate_open(4);
    finish_ok(rt);

    ss_file f;
    ss_load(dir, &f);
    ss_check_structure(&f, 0);
    static const heap_row rows[4] = {
        {0, 0, 0, 2048, 0, 2048},
        {0, 2048, 0, 4096, 2048, 4096},       /* full, no wrap yet */
        {2048, 4096, 2048, 5120, 0, 3072},
        {5120, 5120, 8192, 12288, 0, 4096},   /* drained, then full after E */
    };
    check_heap_rows(&f, rows, 4, addr, addr[0]);
    size_t b = ss_find(&f, "full.py:1", "begin", 0), e = ss_end_of(&f, b);
    assert_int_equal(xs(&f, e, "heap"), 8192);
    assert_int_equal(xe(&f, e, "heap"), 12288);
    assert_int_equal(live_at(&f, e, "heap"), 4096);
    assert_int_equal(xp(&f, e, "heap"), 4096);
    assert_int_equal(high_water(&f, b, e, "heap"), 12288);
    ss_teardown(&f, rt, dir);
}

/* Small window (ring 3: 4 slots) and dep pool (8): a long depth-3 scope runs
 * 40 depth-4 children, each a gated producer A and a consumer B of A's OUT
 * (one dep node on ring 3, wired while A is pending); each child's gate
 * opens after it ends and the test waits for both tasks to retire.  The dep
 * pool tail is B's dep_pool_mark, so child k begins with dep_pool_start =
 * dep_pool_end = 1 + k: the tail advances within the long scope (and wraps
 * the 8-entry pool 5 times); each child's peak is 1, the long scope's high
 * water 40 > capacity. */
static void test_stats_dep_pool_tail_moves(void **state)
{
    (void)state;
    char dir[64];
    pto_config cfg = ss_setup(dir, sizeof dir);
    cfg.runtime_env.ring_task_window[3] = 4;
    cfg.runtime_env.ring_dep_pool[3] = 8;
    pto_runtime *rt = make_rt(&cfg);
    const int n = 40;

    open_to_depth3(rt);
    BEGIN(rt, "long.py", 1);
    for (int k = 0; k < n; k++) {
        BEGIN(rt, "dep_child.py", 2);
        pto_arg o = out_arg(1);
        submit_gated(rt, k, &o, 1);
        pto_arg in = arg(PTO_ARG_IN, o.view);
        pto_task t = {.kernel = k_noop, .name = "consumer", .args = &in, .num_args = 1};
        check_submit(rt, &t, NULL);
        END(rt);
        gate_open(k);
        wait_live(rt, 3, 0);
    }
    END(rt);
    close_depths(rt, 3);
    finish_ok(rt);

    ss_file f;
    ss_load(dir, &f);
    ss_check_structure(&f, 0);
    size_t lb = ss_find(&f, "long.py:1", "begin", 0), le = ss_end_of(&f, lb);
    uint64_t first = 0, prev = 0;
    for (size_t k = 0; k < (size_t)n; k++) {
        size_t b = ss_find(&f, "dep_child.py:2", "begin", k), e = ss_end_of(&f, b);
        assert_true(b > lb && e < le);
        assert_int_equal(xs(&f, b, "dep_pool"), 1 + k);
        assert_int_equal(xe(&f, b, "dep_pool"), 1 + k);
        assert_int_equal(xs(&f, e, "dep_pool"), 1 + k);
        assert_int_equal(xe(&f, e, "dep_pool"), 2 + k);
        assert_int_equal(xp(&f, e, "dep_pool"), 1);
        if (k == 0) first = xs(&f, b, "dep_pool");
        else assert_true(xs(&f, b, "dep_pool") > prev);
        prev = xs(&f, b, "dep_pool");
    }
    assert_true(prev > first); /* the tail moved within the long scope */
    assert_int_equal(xs(&f, lb, "dep_pool"), 1);
    assert_int_equal(xs(&f, le, "dep_pool"), 1 + (uint64_t)n);
    assert_int_equal(xe(&f, le, "dep_pool"), 1 + (uint64_t)n);
    assert_int_equal(xp(&f, le, "dep_pool"), 1);
    assert_int_equal(high_water(&f, lb, le, "dep_pool"), (uint64_t)n);
    assert_int_equal(xp(&f, le, "task_window"), 2);
    ss_teardown(&f, rt, dir);
}

/* Reader entries count: 5 gated tasks, each with 3 IN views of distinct
 * user buffers (and a NO_DEP arg, which makes no entry), in a depth-1 scope
 * of a fresh runtime -> that scope's end shows tensormap 15 and
 * peak_tensormap 15 (its begin 0), and the enclosing scope's peak 15. */
static void test_stats_tensormap_counts_readers(void **state)
{
    (void)state;
    char dir[64];
    pto_config cfg = ss_setup(dir, sizeof dir);
    pto_runtime *rt = make_rt(&cfg);
    static uint64_t bufs[5][4][8];

    BEGIN(rt, "outer.py", 1);
    BEGIN(rt, "readers.py", 2);
    for (int i = 0; i < 5; i++) {
        pto_arg a[4];
        for (int j = 0; j < 3; j++) a[j] = arg(PTO_ARG_IN, v1(bufs[i][j], 0, 8));
        a[3] = arg(PTO_ARG_NO_DEP, v1(bufs[i][3], 0, 8));
        submit_gated(rt, 0, a, 4);
    }
    END(rt);
    END(rt);
    gate_open(0);
    finish_ok(rt);

    ss_file f;
    ss_load(dir, &f);
    ss_check_structure(&f, 0);
    size_t b = ss_find(&f, "readers.py:2", "begin", 0), e = ss_end_of(&f, b);
    assert_int_equal(ru(&f, b, "tensormap"), 0);
    assert_int_equal(ru(&f, b, "peak_tensormap"), 0);
    assert_int_equal(ru(&f, e, "tensormap"), 15);
    assert_int_equal(ru(&f, e, "peak_tensormap"), 15);
    size_t ob = ss_find(&f, "outer.py:1", "begin", 0), oe = ss_end_of(&f, ob);
    assert_int_equal(ru(&f, oe, "tensormap"), 15); /* still gated */
    assert_int_equal(ru(&f, oe, "peak_tensormap"), 15);
    assert_true(ru(&f, f.n - 1, "peak_tensormap") >= 15); /* the root's */
    ss_teardown(&f, rt, dir);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_stats_heap_unroll),
    cmocka_unit_test(test_stats_heap_exact_full),
    cmocka_unit_test(test_stats_dep_pool_tail_moves),
    cmocka_unit_test(test_stats_tensormap_counts_readers),
};

PTO_TEST_MAIN(tests)
