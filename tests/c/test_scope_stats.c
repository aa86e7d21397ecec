/*
 * test_scope_stats.c - scope stats (docs/runtime.md, "Scope stats"), end to end through the
 * public API: one test per rule of section 10 "Scope stats" on the file's
 * layout, true peaks (burst, streaming, nesting), fatal and disabled runs,
 * stats switched between runs (pto_runtime_set_scope_stats), plus the
 * metadata lists and a round trip through pto-scope-stats.  The heap, dep
 * pool and tensormap counters: test_scope_stats_heap.c.
 *
 * Each test runs the runtime with enable_scope_stats on and a fresh mkdtemp
 * directory as output_prefix, then reads <dir>/scope_stats/scope_stats.jsonl
 * back with jansson (helpers: scope_stats_file.h).  Sites are given as string
 * literals (file, line) so each scope is easy to find; gated kernels (one
 * gate per index, opened by the test) keep tasks live for as long as a test
 * needs exact numbers, and the tests wait for retirement with
 * pto_ring_usage_get before the next allocation, so every counter below is
 * derived, not sampled by luck.
 *
 * Rings: depth 0, 1, 2 -> rings 0, 1, 2; depth >= 3 -> ring 3.  Tests that
 * need a scope whose own ring sees tasks retire while it is open use a
 * depth-3 parent with depth-4 children (both ring 3): only there can a
 * scope outlive tasks of its own ring.
 */
#include "harness.h"
#include "base/file.h"

#include <dirent.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "e2e.h"
#include "scope_stats_file.h"

/* Every record's keys, in order (test_stats_file_layout). */
static const char *const rec_keys[] = {
    "site", "phase", "depth", "ring", "task_window_start", "task_window_end", "heap_start", "heap_end",
    "dep_pool_start", "dep_pool_end", "tensormap", "peak_task_window", "peak_heap", "peak_dep_pool",
    "peak_tensormap"};

/* ---- tests ------------------------------------------------------------- */

/* Metadata keys in order, version 6, fatal false, dropped 0, total =
 * records; every record's 15 keys in order and its exact text; the root's
 * begin first and end last; the arrays show the effective sizes (0 = the
 * default); begin/end pairing with proper nesting; site = basename cut to
 * 31 characters, JSON-escaped. */
static void test_stats_file_layout(void **state)
{
    (void)state;
    char dir[64];
    pto_config cfg = ss_setup(dir, sizeof dir);
    cfg.runtime_env.ring_task_window[0] = 16;
    cfg.runtime_env.ring_task_window[3] = 64;
    cfg.runtime_env.ring_heap[2] = 1048576;
    cfg.runtime_env.ring_dep_pool[1] = 64;
    pto_runtime *rt = make_rt(&cfg);
    static uint64_t buf[64];

    submit_dummy(rt); /* the run's first call: the root's begin */
    submit_out1(rt);
    BEGIN(rt, "/src/layout/outer.py", 10); /* depth 0, ring 0 */
    submit_out1(rt);
    BEGIN(rt, "mid.py", 20); /* depth 1 */
    submit_out1(rt);
    submit_dummy(rt);
    BEGIN(rt, "deep.py", 30); /* depth 2 */
    submit_out1(rt);
    BEGIN(rt, "r3.py", 40); /* depth 3, ring 3 */
    submit_out1(rt);
    BEGIN(rt, "r3.py", 50); /* depth 4, ring 3 */
    submit_out1(rt);
    END(rt);
    END(rt);
    END(rt);
    END(rt);
    BEGIN(rt, "mid.py", 60); /* sibling at depth 1 */
    {
        pto_arg a = arg(PTO_ARG_IN, v1(buf, 0, 8));
        pto_task t = {.kernel = k_noop, .name = "reader", .args = &a, .num_args = 1};
        check_submit(rt, &t, NULL);
    }
    END(rt);
    END(rt);
    BEGIN(rt, "dir/abcdefghijklmnopqrstuvwxyz0123456789.py", 70);
    END(rt);
    BEGIN(rt, "x/we\"ird\\name.py", 80);
    END(rt);
    submit_dummy(rt);
    finish_ok(rt);

    ss_file f;
    ss_load(dir, &f);
    static const struct {
        const char *site, *phase;
        int depth;
    } want[] = {
        {"(root):0", "begin", 0},
        {"outer.py:10", "begin", 0},
        {"mid.py:20", "begin", 1},
        {"deep.py:30", "begin", 2},
        {"r3.py:40", "begin", 3},
        {"r3.py:50", "begin", 4},
        {"r3.py:50", "end", 4},
        {"r3.py:40", "end", 3},
        {"deep.py:30", "end", 2},
        {"mid.py:20", "end", 1},
        {"mid.py:60", "begin", 1},
        {"mid.py:60", "end", 1},
        {"outer.py:10", "end", 0},
        {"abcdefghijklmnopqrstuvwxyz01234:70", "begin", 0},
        {"abcdefghijklmnopqrstuvwxyz01234:70", "end", 0},
        {"we\"ird\\name.py:80", "begin", 0},
        {"we\"ird\\name.py:80", "end", 0},
        {"(root):0", "end", 0},
    };
    const size_t nwant = sizeof want / sizeof want[0];
    const uint64_t tw[4] = {16, 16384, 16384, 64}, heap[4] = {268435456, 268435456, 1048576, 268435456},
                   dep[4] = {16384, 64, 16384, 16384};
    expect_meta_line(&f, 0, nwant, tw, heap, dep);
    assert_int_equal(f.n, nwant);
    ss_check_structure(&f, 0);
    for (size_t i = 0; i < f.n; i++) {
        check_key_order(f.rec[i], f.line[i], rec_keys, 15);
        assert_string_equal(rs(&f, i, "site"), want[i].site);
        assert_string_equal(rs(&f, i, "phase"), want[i].phase);
        assert_int_equal(ru(&f, i, "depth"), want[i].depth);
        assert_int_equal(ru(&f, i, "ring"), want[i].depth < 3 ? want[i].depth : 3);
        /* The exact text, rebuilt from the parsed values. */
        char *site = json_dumps(json_object_get(f.rec[i], "site"), JSON_ENCODE_ANY);
        char line[1024];
        snprintf(line, sizeof line,
                 "{\"site\": %s, \"phase\": \"%s\", \"depth\": %d, \"ring\": %d, "
                 "\"task_window_start\": %llu, \"task_window_end\": %llu, \"heap_start\": %llu, "
                 "\"heap_end\": %llu, \"dep_pool_start\": %llu, \"dep_pool_end\": %llu, "
                 "\"tensormap\": %llu, \"peak_task_window\": %llu, \"peak_heap\": %llu, "
                 "\"peak_dep_pool\": %llu, \"peak_tensormap\": %llu}",
                 site, want[i].phase, want[i].depth, want[i].depth < 3 ? want[i].depth : 3,
                 (unsigned long long)ru(&f, i, "task_window_start"),
                 (unsigned long long)ru(&f, i, "task_window_end"), (unsigned long long)ru(&f, i, "heap_start"),
                 (unsigned long long)ru(&f, i, "heap_end"), (unsigned long long)ru(&f, i, "dep_pool_start"),
                 (unsigned long long)ru(&f, i, "dep_pool_end"), (unsigned long long)ru(&f, i, "tensormap"),
                 (unsigned long long)ru(&f, i, "peak_task_window"), (unsigned long long)ru(&f, i, "peak_heap"),
                 (unsigned long long)ru(&f, i, "peak_dep_pool"), (unsigned long long)ru(&f, i, "peak_tensormap"));
        free(site);
        assert_string_equal(f.line[i], line);
        if (is_begin(&f, i)) check_begin_peaks(&f, i, 0);
    }
    /* Each explicit begin is closed by its own end. */
    for (size_t i = 1; i + 1 < f.n; i++)
        if (is_begin(&f, i)) (void)ss_end_of(&f, i);
    /* Task ids: ring 0 took 3 root tasks and 1 of outer.py, ring 3 one task
     * each of r3.py:40 and r3.py:50. */
    assert_int_equal(xe(&f, f.n - 1, "task_window"), 4);
    assert_int_equal(xe(&f, 7, "task_window"), 2);       /* ring 3 at r3.py:40's end */
    ss_teardown(&f, rt, dir);
}

/* 10 tasks on a gate in one scope, behind a backlog of 3 gated tasks of an
 * earlier sibling scope on the same ring -> the scope's end has
 * peak_task_window 10 + 3 and high water 13 (>= 10); the enclosing scope
 * on another ring sees none of it. */
static void test_stats_true_peak_burst(void **state)
{
    (void)state;
    char dir[64];
    pto_config cfg = ss_setup(dir, sizeof dir);
    cfg.num_workers = 16;
    pto_runtime *rt = make_rt(&cfg);

    BEGIN(rt, "outer.py", 1); /* depth 0, ring 0 */
    BEGIN(rt, "backlog.py", 2); /* depth 1, ring 1 */
    for (int i = 0; i < 3; i++) {
        pto_arg o = out_arg(128); /* 1024 bytes */
        submit_gated(rt, 0, &o, 1);
    }
    END(rt);
    BEGIN(rt, "burst.py", 3); /* depth 1, ring 1 */
    for (int i = 0; i < 10; i++) {
        pto_arg o = out_arg(100); /* 800 bytes -> 1024 */
        submit_gated(rt, 1, &o, 1);
    }
    END(rt);
    END(rt);
    gate_open(0);
    gate_open(1);
    finish_ok(rt);

    ss_file f;
    ss_load(dir, &f);
    ss_check_structure(&f, 0);
    size_t b = ss_find(&f, "burst.py:3", "begin", 0), e = ss_end_of(&f, b);
    /* Nothing could retire while both gates were closed: exact values. */
    assert_int_equal(live_at(&f, b, "task_window"), 3); /* the backlog */
    check_begin_peaks(&f, b, 1);
    assert_int_equal(xp(&f, e, "task_window"), 13);      /* 10 + backlog */
    assert_true(xp(&f, e, "task_window") >= 10);
    assert_int_equal(high_water(&f, b, e, "task_window"), 13);
    assert_int_equal(live_at(&f, e, "task_window"), 13);
    assert_int_equal(xe(&f, e, "task_window") - xe(&f, b, "task_window"), 10); /* alloc per scope */
    assert_int_equal(xp(&f, e, "heap"), 13 * 1024);
    assert_int_equal(high_water(&f, b, e, "heap"), 13 * 1024);
    size_t bb = ss_find(&f, "backlog.py:2", "begin", 0), be = ss_end_of(&f, bb);
    assert_int_equal(xp(&f, be, "task_window"), 3);
    /* Ring 0's scope holds no task: its peak is ring 0's, 0. */
    size_t ob = ss_find(&f, "outer.py:1", "begin", 0), oe = ss_end_of(&f, ob);
    assert_int_equal(ru(&f, oe, "ring"), 0);
    assert_int_equal(xp(&f, oe, "task_window"), 0);
    assert_int_equal(xp(&f, oe, "heap"), 0);
    ss_teardown(&f, rt, dir);
}

/* A depth-3 scope (ring 3) runs 1000 one-task depth-4 scopes, each waiting
 * (pto_view_wait on the task's OUT) before it ends.  Asserted exactly:
 * peak_task_window 1 and high water 1000.  Why exactly 1: the task has
 * completed when its scope ends, so that scope_end consumes it and moves
 * ring 3's watermark on the orchestrator thread itself (no other thread
 * ever advances ring 3 here: nothing consumes these tasks), so the next
 * child's submit sees 0 live tasks.  Heap (ring 3 heap 4096, 1024 bytes per
 * task): every child after the first finds the heap drained mid-ring and
 * restarts at 0 (case E), an alloc wrap and a reclaim wrap each, so the
 * counters advance by the ring size per child: heap_end at the parent's end
 * = 1024 + 999 * 4096, live 0, peak 1024. */
static void test_stats_true_peak_streaming(void **state)
{
    (void)state;
    char dir[64];
    pto_config cfg = ss_setup(dir, sizeof dir);
    cfg.num_workers = 2;
    cfg.runtime_env.ring_heap[3] = 4096;
    pto_runtime *rt = make_rt(&cfg);
    const int n = 1000;

    open_to_depth3(rt);
    BEGIN(rt, "stream.py", 3);
    for (int i = 0; i < n; i++) {
        BEGIN(rt, "step.py", 4);
        pto_arg o = out_arg(1);
        uint64_t sc[1] = {(uint64_t)i + 1};
        pto_task t = {.kernel = k_write, .name = "step", .args = &o, .num_args = 1, .scalars = sc,
                      .num_scalars = 1};
        check_submit(rt, &t, NULL);
        check_ok(rt, pto_view_wait(rt, &o.view, 0), "pto_view_wait");
        assert_int_equal(*el(&o.view, 0), (uint64_t)i + 1);
        END(rt);
    }
    END(rt);
    close_depths(rt, 3);
    finish_ok(rt);

    ss_file f;
    ss_load(dir, &f);
    ss_check_structure(&f, 0);
    assert_int_equal(f.n, 2 + 2 * (4 + (size_t)n));
    size_t b = ss_find(&f, "stream.py:3", "begin", 0), e = ss_end_of(&f, b);
    assert_int_equal(ru(&f, e, "ring"), 3);
    assert_int_equal(xs(&f, b, "task_window"), 0);
    assert_int_equal(xe(&f, b, "task_window"), 0);
    assert_int_equal(xp(&f, e, "task_window"), 1);
    assert_int_equal(high_water(&f, b, e, "task_window"), (uint64_t)n);
    assert_int_equal(live_at(&f, e, "task_window"), 0);
    assert_int_equal(xp(&f, e, "heap"), 1024);
    assert_int_equal(xs(&f, b, "heap"), 0);
    assert_int_equal(xe(&f, e, "heap"), 1024 + (uint64_t)(n - 1) * 4096);
    assert_int_equal(xs(&f, e, "heap"), 1024 + (uint64_t)(n - 1) * 4096);
    assert_int_equal(ss_count(&f, "step.py:4", "end"), (size_t)n);
    size_t k = 0;
    for (size_t sb = b + 1; sb < e; sb++) {
        if (!is_begin(&f, sb)) continue;
        assert_string_equal(rs(&f, sb, "site"), "step.py:4");
        size_t se = ss_end_of(&f, sb);
        assert_int_equal(se, sb + 1);
        assert_int_equal(live_at(&f, sb, "task_window"), 0);
        assert_int_equal(xs(&f, sb, "task_window"), k);
        assert_int_equal(xp(&f, se, "task_window"), 1);
        k++;
    }
    assert_int_equal(k, (size_t)n);
    ss_teardown(&f, rt, dir);
}

/* A ring-3 child's peak folds into the enclosing ring-3 scope's peak.
 * (a) parent (depth 3) submits 1 gated task, its child (depth 4) 5 gated
 * tasks -> child's end peak 6, parent's end peak 6 though the parent itself
 * submitted only 1.  (b) the fold survives the child's tasks retiring: a
 * parent whose child peaked at 5 and drained, then 1 more child task and 1
 * own task -> parent's end peak 5 while its live at exit is 2; the later
 * sibling's own peak starts afresh (1).  Peaks do not cross rings: the
 * enclosing depth-2 scope (ring 2) reports 0. */
static void test_stats_peak_nesting(void **state)
{
    (void)state;
    char dir[64];
    pto_config cfg = ss_setup(dir, sizeof dir);
    cfg.num_workers = 16;
    pto_runtime *rt = make_rt(&cfg);

    open_to_depth3(rt);
    /* (a) */
    BEGIN(rt, "parent.py", 1);
    submit_gated(rt, 0, NULL, 0);
    BEGIN(rt, "child.py", 2);
    for (int i = 0; i < 5; i++) submit_gated(rt, 1, NULL, 0);
    END(rt);
    END(rt);
    gate_open(0);
    gate_open(1);
    wait_live(rt, 3, 0);
    /* (b) */
    BEGIN(rt, "parent2.py", 3);
    BEGIN(rt, "child2.py", 4);
    for (int i = 0; i < 5; i++) submit_gated(rt, 2, NULL, 0);
    END(rt);
    gate_open(2);
    wait_live(rt, 3, 0);
    BEGIN(rt, "child3.py", 5);
    submit_gated(rt, 3, NULL, 0);
    END(rt);
    submit_gated(rt, 3, NULL, 0); /* the parent's own */
    END(rt);
    close_depths(rt, 3);
    gate_open(3);
    finish_ok(rt);

    ss_file f;
    ss_load(dir, &f);
    ss_check_structure(&f, 0);
    size_t pb = ss_find(&f, "parent.py:1", "begin", 0), pe = ss_end_of(&f, pb);
    size_t cb = ss_find(&f, "child.py:2", "begin", 0), ce = ss_end_of(&f, cb);
    assert_int_equal(ru(&f, pe, "ring"), 3);
    assert_int_equal(ru(&f, ce, "ring"), 3);
    assert_int_equal(live_at(&f, pb, "task_window"), 0);
    assert_int_equal(live_at(&f, cb, "task_window"), 1); /* the parent's task */
    assert_int_equal(xp(&f, ce, "task_window"), 6);
    assert_int_equal(xp(&f, pe, "task_window"), 6);
    assert_true(xp(&f, pe, "task_window") >= 6);
    /* The parent's own tasks: 1 before the child began. */
    assert_int_equal(xe(&f, cb, "task_window") - xe(&f, pb, "task_window"), 1);

    size_t p2b = ss_find(&f, "parent2.py:3", "begin", 0), p2e = ss_end_of(&f, p2b);
    size_t c2b = ss_find(&f, "child2.py:4", "begin", 0), c2e = ss_end_of(&f, c2b);
    size_t c3b = ss_find(&f, "child3.py:5", "begin", 0), c3e = ss_end_of(&f, c3b);
    assert_int_equal(xp(&f, c2e, "task_window"), 5);
    assert_int_equal(live_at(&f, c3b, "task_window"), 0);
    assert_int_equal(xp(&f, c3b, "task_window"), 0);
    assert_int_equal(xp(&f, c3e, "task_window"), 1);
    assert_int_equal(live_at(&f, p2e, "task_window"), 2);
    assert_int_equal(xp(&f, p2e, "task_window"), 5);

    size_t r2b = ss_find(&f, "d2.py:3", "begin", 0), r2e = ss_end_of(&f, r2b);
    assert_int_equal(ru(&f, r2e, "ring"), 2);
    assert_int_equal(xp(&f, r2e, "task_window"), 0);
    ss_teardown(&f, rt, dir);
}

/* A SCOPE_DEADLOCK run (window 4, 8 tasks in one scope): the file exists
 * right after the failing submit, says "fatal": true and holds the records
 * up to the fatal - the root's begin and the scope's begin, no end at all.
 * Later calls change nothing; after pto_runtime_finish the file is unchanged.  A
 * clean run on the same runtime overwrites it (fatal false).  A nested
 * variant keeps a closed sibling's pair and ends with the open scopes'
 * begins. */
static void test_stats_fatal_run(void **state)
{
    (void)state;
    char dir[64], path[PATH_MAX], tmp[PATH_MAX + 8];
    ss_tempdir(dir, sizeof dir);
    ss_path(dir, path, sizeof path);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    pto_config cfg = cfg_rings(4, 0, 0, 4, 2000);
    cfg.enable_scope_stats = 1;
    cfg.output_prefix = dir;
    pto_runtime *rt = make_rt(&cfg);

    BEGIN(rt, "fatal.py", 1);
    int rc = 0, admitted = 0;
    for (int i = 0; i < 8 && rc == 0; i++) {
        pto_task t = {.kernel = NULL, .name = "dummy"};
        rc = pto_task_submit(rt, &t, NULL);
        if (rc == 0) admitted++;
    }
    expect_code(rt, rc, PTO_SCOPE_DEADLOCK);
    assert_int_equal(admitted, 3);
    /* Written when the fatal was first seen, before pto_runtime_finish. */
    assert_true(file_exists(path));
    assert_false(file_exists(tmp));
    ss_file f;
    ss_load(dir, &f);
    const uint64_t w4[4] = {4, 4, 4, 4}, dh[4] = {268435456, 268435456, 268435456, 268435456},
                   dd[4] = {16384, 16384, 16384, 16384};
    expect_meta_line(&f, 1, 2, w4, dh, dd);
    ss_check_structure(&f, 1);
    assert_int_equal(f.n, 2);
    assert_string_equal(rs(&f, 0, "site"), "(root):0");
    assert_string_equal(rs(&f, 1, "site"), "fatal.py:1");
    assert_true(is_begin(&f, f.n - 1));
    for (size_t i = 0; i < f.n; i++) assert_true(is_begin(&f, i));
    ss_free(&f);
    char *before = base_read_file(path, NULL);
    assert_non_null(before);
    /* Calls after the fatal are no-ops: no records, no rewrite. */
    pto_task t = {.kernel = NULL, .name = "dummy"};
    assert_int_equal(pto_task_submit(rt, &t, NULL), -PTO_SCOPE_DEADLOCK);
    assert_int_equal(pto_scope_begin(rt, PTO_SCOPE_AUTO, "late.py", 9), -PTO_SCOPE_DEADLOCK);
    assert_int_equal(pto_scope_end(rt), -PTO_SCOPE_DEADLOCK);
    assert_int_equal(pto_runtime_finish(rt), -PTO_SCOPE_DEADLOCK);
    char *after = base_read_file(path, NULL);
    assert_non_null(after);
    assert_string_equal(after, before);
    assert_false(file_exists(tmp));
    free(before);
    free(after);

    /* A clean run on the same runtime overwrites the file. */
    BEGIN(rt, "clean.py", 2);
    submit_dummy(rt);
    submit_dummy(rt);
    END(rt);
    finish_ok(rt);
    ss_load(dir, &f);
    expect_meta_line(&f, 0, 4, w4, dh, dd);
    ss_check_structure(&f, 0);
    assert_int_equal(f.n, 4);
    assert_string_equal(rs(&f, 1, "site"), "clean.py:2");
    assert_string_equal(rs(&f, 2, "site"), "clean.py:2");
    ss_free(&f);

    /* Nested: a closed sibling keeps its pair; open scopes keep their begin. */
    BEGIN(rt, "nest_a.py", 3); /* depth 0 */
    BEGIN(rt, "nest_b.py", 4); /* depth 1 */
    submit_dummy(rt);
    END(rt);
    BEGIN(rt, "nest_c.py", 5); /* depth 1 */
    rc = 0;
    for (int i = 0; i < 8 && rc == 0; i++) rc = pto_task_submit(rt, &t, NULL);
    expect_code(rt, rc, PTO_SCOPE_DEADLOCK);
    ss_load(dir, &f);
    ss_check_structure(&f, 1);
    assert_int_equal(f.n, 5);
    static const char *const nest[5][2] = {{"(root):0", "begin"},  {"nest_a.py:3", "begin"},
                                           {"nest_b.py:4", "begin"}, {"nest_b.py:4", "end"},
                                           {"nest_c.py:5", "begin"}};
    for (size_t i = 0; i < 5; i++) {
        assert_string_equal(rs(&f, i, "site"), nest[i][0]);
        assert_string_equal(rs(&f, i, "phase"), nest[i][1]);
    }
    ss_free(&f);
    assert_int_equal(pto_runtime_finish(rt), -PTO_SCOPE_DEADLOCK);
    ss_load(dir, &f);
    assert_int_equal(meta_fatal(&f), 1);
    assert_int_equal(f.n, 5);
    ss_teardown(&f, rt, dir);
}

static int dir_entries(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
    closedir(d);
    return n;
}

/* enable_scope_stats off (output_prefix set) -> no scope_stats directory,
 * no file, after a clean run and after a fatal one. */
static void test_stats_disabled(void **state)
{
    (void)state;
    char dir[64], sub[PATH_MAX];
    ss_tempdir(dir, sizeof dir);
    snprintf(sub, sizeof sub, "%s/scope_stats", dir);
    pto_config cfg = cfg_rings(4, 0, 0, 2, 2000);
    cfg.enable_scope_stats = 0;
    cfg.output_prefix = dir;
    pto_runtime *rt = make_rt(&cfg);

    submit_dummy(rt);
    BEGIN(rt, "off.py", 1);
    submit_out1(rt);
    BEGIN(rt, "off.py", 2);
    submit_out1(rt);
    END(rt);
    END(rt);
    finish_ok(rt);
    assert_false(file_exists(sub));
    assert_int_equal(dir_entries(dir), 0);

    BEGIN(rt, "off.py", 3);
    int rc = 0;
    for (int i = 0; i < 8 && rc == 0; i++) {
        pto_task t = {.kernel = NULL, .name = "dummy"};
        rc = pto_task_submit(rt, &t, NULL);
    }
    expect_code(rt, rc, PTO_SCOPE_DEADLOCK);
    assert_false(file_exists(sub));
    assert_int_equal(pto_runtime_finish(rt), -PTO_SCOPE_DEADLOCK);
    assert_false(file_exists(sub));
    assert_int_equal(dir_entries(dir), 0);
    pto_runtime_destroy(rt);
    ss_rmtree(dir);
}

/* pto_runtime_set_scope_stats between runs: a runtime created with stats off
 * writes the next run's file below the prefix it is given, the prefix copied
 * (the caller's buffer may change); another prefix moves the next file there;
 * NULL turns them off (no file).  While a run is open, or with a NULL runtime
 * or an empty prefix, it returns -PTO_INVALID_ARGS and changes nothing. */
static void test_stats_switched_between_runs(void **state)
{
    (void)state;
    char a[64], b[64], path[PATH_MAX];
    ss_tempdir(a, sizeof a);
    ss_tempdir(b, sizeof b);
    pto_config cfg = stats_cfg(a);
    cfg.enable_scope_stats = 0;
    cfg.output_prefix = NULL;
    pto_runtime *rt = make_rt(&cfg);
    assert_int_equal(pto_runtime_set_scope_stats(NULL, a), -PTO_INVALID_ARGS);
    assert_int_equal(pto_runtime_set_scope_stats(rt, ""), -PTO_INVALID_ARGS);

    char given[64];
    snprintf(given, sizeof given, "%s", a);
    assert_int_equal(pto_runtime_set_scope_stats(rt, given), 0);
    given[0] = 0; /* copied: the runtime keeps its own */
    assert_int_equal(pto_runtime_config(rt)->enable_scope_stats, 1);
    BEGIN(rt, "switch.py", 1);
    submit_out1(rt);
    assert_int_equal(pto_runtime_set_scope_stats(rt, b), -PTO_INVALID_ARGS); /* a run is open */
    END(rt);
    finish_ok(rt);
    ss_file f;
    ss_load(a, &f);
    ss_check_structure(&f, 0);
    assert_int_equal(ss_count(&f, "switch.py:1", "begin"), 1);
    ss_free(&f);

    assert_int_equal(pto_runtime_set_scope_stats(rt, b), 0);
    BEGIN(rt, "switch.py", 2);
    submit_out1(rt);
    END(rt);
    finish_ok(rt);
    ss_load(b, &f);
    assert_int_equal(ss_count(&f, "switch.py:2", "begin"), 1);
    ss_free(&f);
    ss_load(a, &f); /* the first run's file, untouched */
    assert_int_equal(ss_count(&f, "switch.py:1", "begin"), 1);
    assert_int_equal(ss_count(&f, "switch.py:2", "begin"), 0);
    ss_free(&f);

    ss_rmtree(a);
    ss_rmtree(b);
    assert_int_equal(pto_runtime_set_scope_stats(rt, NULL), 0);
    assert_int_equal(pto_runtime_config(rt)->enable_scope_stats, 0);
    BEGIN(rt, "switch.py", 3);
    submit_out1(rt);
    END(rt);
    finish_ok(rt);
    ss_path(a, path, sizeof path);
    assert_false(file_exists(path));
    ss_path(b, path, sizeof path);
    assert_false(file_exists(path));
    pto_runtime_destroy(rt);
}

/* Per-ring lists with 0 entries: task_window [16, 0, 0, 256], heap [0, 2048,
 * 0, 0], dep_pool [8, 0, 0, 0] -> the metadata shows the effective sizes;
 * an all-default config shows the defaults. */
static void test_stats_metadata_lists(void **state)
{
    (void)state;
    char dir[64];
    pto_config cfg = ss_setup(dir, sizeof dir);
    cfg.runtime_env.ring_task_window[0] = 16;
    cfg.runtime_env.ring_task_window[3] = 256;
    cfg.runtime_env.ring_heap[1] = 2048;
    cfg.runtime_env.ring_dep_pool[0] = 8;
    pto_runtime *rt = make_rt(&cfg);
    for (int d = 0; d < 4; d++) {
        BEGIN(rt, "lists.py", d + 1);
        pto_arg o = out_arg(256); /* 2048 bytes: exactly ring 1's heap */
        pto_task t = {.kernel = k_noop, .name = "t", .args = &o, .num_args = 1};
        check_submit(rt, &t, NULL);
    }
    close_depths(rt, 4);
    finish_ok(rt);
    ss_file f;
    ss_load(dir, &f);
    const uint64_t tw[4] = {16, 16384, 16384, 256}, heap[4] = {268435456, 2048, 268435456, 268435456},
                   dep[4] = {8, 16384, 16384, 16384};
    expect_meta_line(&f, 0, 10, tw, heap, dep);
    ss_check_structure(&f, 0);
    /* The same as the runtime's resolved configuration. */
    const pto_config *rc = pto_runtime_config(rt);
    for (int r = 0; r < 4; r++) {
        assert_int_equal(rc->runtime_env.ring_task_window[r], tw[r]);
        assert_int_equal(rc->runtime_env.ring_heap[r], heap[r]);
        assert_int_equal(rc->runtime_env.ring_dep_pool[r], dep[r]);
    }
    ss_teardown(&f, rt, dir);

    ss_tempdir(dir, sizeof dir);
    cfg = stats_cfg(dir);
    rt = make_rt(&cfg);
    submit_dummy(rt);
    finish_ok(rt);
    ss_load(dir, &f);
    const uint64_t dtw[4] = {16384, 16384, 16384, 16384},
                   dheap[4] = {268435456, 268435456, 268435456, 268435456};
    expect_meta_line(&f, 0, 2, dtw, dheap, dtw);
    ss_teardown(&f, rt, dir);
}

/* pto-scope-stats (built next to this test in bin/) reads a file this
 * runtime wrote: --json exits 0 and prints one object with header,
 * top_peaks, verdicts and suggested, consistent with the file. */
static void test_stats_report_roundtrip(void **state)
{
    (void)state;
    gates_reset();
    char dir[64], path[PATH_MAX], exe[PATH_MAX], tool[PATH_MAX + 32];
    ss_tempdir(dir, sizeof dir);
    ss_path(dir, path, sizeof path);
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    assert_true(len > 0);
    exe[len] = 0;
    char *slash = strrchr(exe, '/');
    assert_non_null(slash);
    *slash = 0;
    snprintf(tool, sizeof tool, "%s/pto-scope-stats", exe);
    if (access(tool, X_OK) != 0) fail_msg("%s not found (build the pto-scope-stats target)", tool);

    pto_config cfg = stats_cfg(dir);
    cfg.num_workers = 12;
    pto_runtime *rt = make_rt(&cfg);
    BEGIN(rt, "rt.py", 1);
    BEGIN(rt, "burst.py", 2); /* ring 1: 10 live at once */
    for (int i = 0; i < 10; i++) {
        pto_arg o = out_arg(128);
        submit_gated(rt, 0, &o, 1);
    }
    END(rt);
    END(rt);
    gate_open(0);
    finish_ok(rt);
    ss_file f;
    ss_load(dir, &f);
    ss_check_structure(&f, 0);
    size_t nrec = f.n;
    ss_free(&f);

    char cmd[2 * PATH_MAX + 64];
    snprintf(cmd, sizeof cmd, "'%s' '%s' --json", tool, path);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t cap = 1 << 16, n = 0, k;
    char *out = malloc(cap);
    assert_non_null(out);
    while ((k = fread(out + n, 1, cap - n - 1, p)) > 0) {
        n += k;
        if (n + 1 == cap) {
            out = realloc(out, cap *= 2);
            assert_non_null(out);
        }
    }
    out[n] = 0;
    int st = pclose(p);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) fail_msg("%s: status %d, output:\n%s", cmd, st, out);
    json_error_t err;
    json_t *j = json_loads(out, 0, &err);
    if (!j) fail_msg("--json output is not JSON (%s):\n%s", err.text, out);
    json_t *h = json_object_get(j, "header"), *tp = json_object_get(j, "top_peaks"),
           *vd = json_object_get(j, "verdicts"), *sg = json_object_get(j, "suggested");
    assert_true(json_is_object(h));
    assert_true(json_is_array(tp));
    assert_true(json_is_array(vd));
    assert_true(json_is_object(sg));
    assert_int_equal(json_integer_value(json_object_get(h, "records")), nrec);
    assert_int_equal(json_integer_value(json_object_get(h, "total")), nrec);
    assert_int_equal(json_integer_value(json_object_get(h, "dropped")), 0);
    assert_true(json_is_false(json_object_get(h, "fatal")));
    assert_string_equal(json_string_value(json_object_get(h, "risk_metric")), "true_peak");
    assert_true(json_array_size(tp) > 0);
    int found = 0;
    for (size_t i = 0; i < json_array_size(tp); i++) {
        json_t *row = json_array_get(tp, i);
        const char *res = json_string_value(json_object_get(row, "resource"));
        json_t *ring = json_object_get(row, "ring");
        if (res && !strcmp(res, "task_window") && json_is_integer(ring) && json_integer_value(ring) == 1) {
            assert_int_equal(json_integer_value(json_object_get(row, "peak")), 10);
            assert_string_equal(json_string_value(json_object_get(row, "site")), "burst.py:2");
            found = 1;
        }
    }
    if (!found) fail_msg("no task_window row for ring 1:\n%s", out);
    json_decref(j);
    free(out);
    pto_runtime_destroy(rt);
    ss_rmtree(dir);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_stats_file_layout),
    cmocka_unit_test(test_stats_true_peak_burst),
    cmocka_unit_test(test_stats_true_peak_streaming),
    cmocka_unit_test(test_stats_peak_nesting),
    cmocka_unit_test(test_stats_fatal_run),
    cmocka_unit_test(test_stats_disabled),
    cmocka_unit_test(test_stats_switched_between_runs),
    cmocka_unit_test(test_stats_metadata_lists),
    cmocka_unit_test(test_stats_report_roundtrip),
};

PTO_TEST_MAIN(tests)
