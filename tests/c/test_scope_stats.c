/*
 * test_scope_stats.c - scope stats (docs/runtime.md, "Scope stats"), end to end through the
 * public API: one test per rule of section 10 "Scope stats", plus the
 * metadata lists and a round trip through pto-scope-stats.
 *
 * Each test runs the runtime with enable_scope_stats on and a fresh mkdtemp
 * directory as output_prefix, then reads <dir>/scope_stats/scope_stats.jsonl
 * back with jansson.  Sites are given as string literals (file, line) so
 * each scope is easy to find; gated kernels (one gate per index, opened by
 * the test) keep tasks live for as long as a test needs exact numbers, and
 * the tests wait for retirement with pto_ring_usage_get before the next
 * allocation, so every counter below is derived, not sampled by luck.
 *
 * Rings: depth 0, 1, 2 -> rings 0, 1, 2; depth >= 3 -> ring 3.  Tests that
 * need a scope whose own ring sees tasks retire while it is open use a
 * depth-3 parent with depth-4 children (both ring 3): only there can a
 * scope outlive tasks of its own ring.
 */
#include "harness.h"
#include "base/file.h"

#include <dirent.h>
#include <ftw.h>
#include <jansson.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "e2e.h"

/* ---- kernels and gates ------------------------------------------------- */

#define NGATES 256
static atomic_int g_gate[NGATES]; /* 0 = closed */

static void gates_reset(void)
{
    for (int i = 0; i < NGATES; i++) atomic_store(&g_gate[i], 0);
}

static void gate_open(int g) { atomic_store(&g_gate[g], 1); }

/* Waits (at most 10 s) for gate scalars[0]; a gate never opened fails the
 * kernel, so a broken test ends with KERNEL_FAILED instead of hanging. */
static int k_gate(const pto_kernel_args *a)
{
    int g = (int)a->scalars[0];
    uint64_t end = now_ms() + 10000;
    while (!atomic_load(&g_gate[g])) {
        if (now_ms() > end) {
            snprintf(a->message, a->message_len, "gate %d never opened", g);
            return 99;
        }
        nap_us(200);
    }
    return 0;
}

/* views[0][0] := scalars[0] */
static int k_write(const pto_kernel_args *a)
{
    *el(&a->views[0], 0) = a->scalars[0];
    return 0;
}

static int k_noop(const pto_kernel_args *a)
{
    (void)a;
    return 0;
}

/* A task on gate g with the given args (OUT views are filled in). */
static pto_task_id submit_gated(pto_runtime *rt, int g, pto_arg *args, uint32_t nargs)
{
    uint64_t sc[1] = {(uint64_t)g};
    pto_task t = {.kernel = k_gate, .name = "gated", .args = args, .num_args = nargs,
                  .scalars = sc, .num_scalars = 1};
    pto_task_id id;
    check_submit(rt, &t, &id);
    return id;
}

static void submit_dummy(pto_runtime *rt)
{
    pto_task t = {.kernel = NULL, .name = "dummy"};
    check_submit(rt, &t, NULL);
}

/* A task writing one uint64 OUT (1024 bytes of heap after rounding). */
static void submit_out1(pto_runtime *rt)
{
    pto_arg a = out_arg(1);
    uint64_t sc[1] = {7};
    pto_task t = {.kernel = k_write, .name = "out1", .args = &a, .num_args = 1, .scalars = sc,
                  .num_scalars = 1};
    check_submit(rt, &t, NULL);
}

#define BEGIN(rt, file, line) check_ok((rt), pto_scope_begin((rt), PTO_SCOPE_AUTO, (file), (line)), "pto_scope_begin")
#define END(rt) scope_end_ok(rt)

/* Waits (at most 5 s) until ring holds exactly n live tasks. */
static void wait_live(pto_runtime *rt, int ring, uint64_t n)
{
    pto_ring_usage u;
    uint64_t end = now_ms() + 5000;
    for (;;) {
        assert_int_equal(pto_ring_usage_get(rt, ring, &u), 0);
        if (u.task_window == n || now_ms() > end) break;
        nap_us(100);
    }
    if (u.task_window != n)
        fail_msg("ring %d: %llu live tasks, waited for %llu", ring, (unsigned long long)u.task_window,
                 (unsigned long long)n);
}

/* Opens depths 0, 1 and 2 (rings 0-2, no tasks) so the next scope is at depth 3. */
static void open_to_depth3(pto_runtime *rt)
{
    BEGIN(rt, "d0.py", 1);
    BEGIN(rt, "d1.py", 2);
    BEGIN(rt, "d2.py", 3);
}

static void close_depths(pto_runtime *rt, int n)
{
    for (int i = 0; i < n; i++) END(rt);
}

/* ---- temp dirs and the stats file -------------------------------------- */

static void ss_tempdir(char *dir, size_t n)
{
    snprintf(dir, n, "/tmp/pto_scope_stats_XXXXXX");
    if (!mkdtemp(dir)) fail_msg("mkdtemp failed: %s", strerror(errno));
}

static int rm_entry(const char *p, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)sb, (void)type, (void)ftw;
    return remove(p);
}

static void ss_rmtree(const char *dir) { nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS); }

static void ss_path(const char *dir, char *out, size_t n)
{
    snprintf(out, n, "%s/scope_stats/scope_stats.jsonl", dir);
}

/* Stats on, written under dir; 8 workers so gated tasks never starve the
 * ones a test waits for. */
static pto_config stats_cfg(const char *dir)
{
    pto_config c;
    memset(&c, 0, sizeof c);
    c.num_workers = 8;
    c.enable_scope_stats = 1;
    c.output_prefix = dir;
    return c;
}

typedef struct ss_file {
    char *meta_line; /* raw first line, newline cut */
    json_t *meta;
    size_t n;        /* records */
    json_t **rec;
    char **line;     /* raw record lines */
} ss_file;

/* Reads and parses the whole file; every line must be one JSON object
 * ending in a newline. */
static void ss_load(const char *dir, ss_file *f)
{
    char path[PATH_MAX];
    ss_path(dir, path, sizeof path);
    memset(f, 0, sizeof *f);
    FILE *fp = fopen(path, "r");
    if (!fp) fail_msg("cannot open %s: %s", path, strerror(errno));
    char *buf = NULL;
    size_t cap = 0, lineno = 0, rcap = 0;
    ssize_t len;
    while ((len = getline(&buf, &cap, fp)) >= 0) {
        lineno++;
        if (len == 0 || buf[len - 1] != '\n') fail_msg("%s:%zu: line lacks its newline", path, lineno);
        buf[len - 1] = 0;
        json_error_t err;
        json_t *j = json_loads(buf, 0, &err);
        if (!j || !json_is_object(j)) fail_msg("%s:%zu: invalid JSON (%s): %s", path, lineno, err.text, buf);
        if (lineno == 1) {
            f->meta = j;
            f->meta_line = strdup(buf);
            continue;
        }
        if (f->n == rcap) {
            rcap = rcap ? 2 * rcap : 64;
            f->rec = realloc(f->rec, rcap * sizeof *f->rec);
            f->line = realloc(f->line, rcap * sizeof *f->line);
            assert_non_null(f->rec);
            assert_non_null(f->line);
        }
        f->rec[f->n] = j;
        f->line[f->n] = strdup(buf);
        f->n++;
    }
    free(buf);
    fclose(fp);
    if (!f->meta) fail_msg("%s is empty", path);
}

static void ss_free(ss_file *f)
{
    json_decref(f->meta);
    free(f->meta_line);
    for (size_t i = 0; i < f->n; i++) {
        json_decref(f->rec[i]);
        free(f->line[i]);
    }
    free(f->rec);
    free(f->line);
    memset(f, 0, sizeof *f);
}

static int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static int64_t meta_int(const ss_file *f, const char *key)
{
    json_t *v = json_object_get(f->meta, key);
    if (!json_is_integer(v)) fail_msg("metadata lacks integer \"%s\": %s", key, f->meta_line);
    return json_integer_value(v);
}

static int meta_fatal(const ss_file *f)
{
    json_t *v = json_object_get(f->meta, "fatal");
    if (!json_is_boolean(v)) fail_msg("metadata \"fatal\" is not a boolean: %s", f->meta_line);
    return json_is_true(v);
}

/* Integer key of record i. */
static uint64_t ru(const ss_file *f, size_t i, const char *key)
{
    assert_true(i < f->n);
    json_t *v = json_object_get(f->rec[i], key);
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        fail_msg("record %zu: \"%s\" missing or not a non-negative integer: %s", i, key, f->line[i]);
    return (uint64_t)json_integer_value(v);
}

static const char *rs(const ss_file *f, size_t i, const char *key)
{
    assert_true(i < f->n);
    json_t *v = json_object_get(f->rec[i], key);
    if (!json_is_string(v)) fail_msg("record %zu: \"%s\" missing or not a string: %s", i, key, f->line[i]);
    return json_string_value(v);
}

static int is_begin(const ss_file *f, size_t i) { return strcmp(rs(f, i, "phase"), "begin") == 0; }

/* X_start / X_end / peak_X of record i for X = task_window, heap, dep_pool. */
static uint64_t xs(const ss_file *f, size_t i, const char *x)
{
    char k[64];
    snprintf(k, sizeof k, "%s_start", x);
    return ru(f, i, k);
}
static uint64_t xe(const ss_file *f, size_t i, const char *x)
{
    char k[64];
    snprintf(k, sizeof k, "%s_end", x);
    return ru(f, i, k);
}
static uint64_t xp(const ss_file *f, size_t i, const char *x)
{
    char k[64];
    snprintf(k, sizeof k, "peak_%s", x);
    return ru(f, i, k);
}

/* Index of the nth (from 0) record of site in phase. */
static size_t ss_find(const ss_file *f, const char *site, const char *phase, size_t nth)
{
    size_t left = nth;
    for (size_t i = 0; i < f->n; i++)
        if (!strcmp(rs(f, i, "site"), site) && !strcmp(rs(f, i, "phase"), phase) && left-- == 0) return i;
    fail_msg("no record #%zu for %s %s", nth, site, phase);
    return 0;
}

static size_t ss_count(const ss_file *f, const char *site, const char *phase)
{
    size_t n = 0;
    for (size_t i = 0; i < f->n; i++)
        if (!strcmp(rs(f, i, "site"), site) && !strcmp(rs(f, i, "phase"), phase)) n++;
    return n;
}

/* The end record that closes begin record b (records nest properly). */
static size_t ss_end_of(const ss_file *f, size_t b)
{
    assert_true(is_begin(f, b));
    int open = 0;
    for (size_t j = b + 1; j < f->n; j++) {
        if (is_begin(f, j)) {
            open++;
        } else if (open-- == 0) {
            if (strcmp(rs(f, j, "site"), rs(f, b, "site")) || ru(f, j, "depth") != ru(f, b, "depth") ||
                ru(f, j, "ring") != ru(f, b, "ring"))
                fail_msg("begin %zu (%s) is closed by a foreign end %zu (%s)", b, f->line[b], j, f->line[j]);
            return j;
        }
    }
    fail_msg("begin record %zu has no end: %s", b, f->line[b]);
    return 0;
}

/* High water: end.X_end - begin.X_start; live at exit: end.X_end - end.X_start. */
static uint64_t high_water(const ss_file *f, size_t b, size_t e, const char *x) { return xe(f, e, x) - xs(f, b, x); }
static uint64_t live_at(const ss_file *f, size_t i, const char *x) { return xe(f, i, x) - xs(f, i, x); }

/* Runs fn-free checks common to every well-formed file: total = records,
 * dropped 0, proper nesting (each begin closed by an end with the same
 * site, depth and ring; depth = explicit scopes open, ring = min(depth, 3)),
 * counters monotonic per ring, start <= end, and an end's peaks at least its
 * live values.  Files of fatal runs may end with open begins. */
static void ss_check_structure(const ss_file *f, int fatal)
{
    assert_int_equal(meta_int(f, "total"), (int64_t)f->n);
    assert_int_equal(meta_int(f, "dropped"), 0);
    assert_int_equal(meta_fatal(f), fatal);
    assert_true(f->n >= 1);
    assert_string_equal(rs(f, 0, "site"), "(root):0");
    assert_string_equal(rs(f, 0, "phase"), "begin");
    size_t stack[PTO_MAX_SCOPE_DEPTH + 2];
    int top = 0;
    uint64_t last[4][6];
    memset(last, 0, sizeof last);
    static const char *const ctr[6] = {"task_window_start", "task_window_end", "heap_start",
                                       "heap_end", "dep_pool_start", "dep_pool_end"};
    for (size_t i = 0; i < f->n; i++) {
        uint64_t depth = ru(f, i, "depth"), ring = ru(f, i, "ring");
        assert_int_equal(ring, depth < 3 ? depth : 3);
        /* top counts the open scopes, the root included: explicit depth = top - 1 */
        if (i > 0 && is_begin(f, i)) assert_int_equal(depth, (uint64_t)(top - 1));
        if (is_begin(f, i)) {
            assert_true(top < PTO_MAX_SCOPE_DEPTH + 2);
            stack[top++] = i;
        } else {
            if (top == 0) fail_msg("end without begin at record %zu: %s", i, f->line[i]);
            size_t b = stack[--top];
            if (strcmp(rs(f, i, "site"), rs(f, b, "site")) || ru(f, i, "depth") != ru(f, b, "depth") ||
                ru(f, i, "ring") != ru(f, b, "ring"))
                fail_msg("end %zu (%s) does not match begin %zu (%s)", i, f->line[i], b, f->line[b]);
            /* An end's peaks bound its live values from above. */
            assert_true(xp(f, i, "task_window") >= live_at(f, i, "task_window"));
            assert_true(xp(f, i, "heap") >= live_at(f, i, "heap"));
            assert_true(xp(f, i, "dep_pool") >= live_at(f, i, "dep_pool"));
            assert_true(ru(f, i, "peak_tensormap") >= ru(f, i, "tensormap"));
        }
        for (int k = 0; k < 6; k += 2) assert_true(ru(f, i, ctr[k]) <= ru(f, i, ctr[k + 1]));
        for (int k = 0; k < 6; k++) {
            uint64_t v = ru(f, i, ctr[k]);
            if (v < last[ring][k]) fail_msg("%s went back on ring %llu at record %zu: %s", ctr[k],
                                            (unsigned long long)ring, i, f->line[i]);
            last[ring][k] = v;
        }
    }
    if (!fatal) {
        assert_int_equal(top, 0);
        assert_string_equal(rs(f, f->n - 1, "site"), "(root):0");
        assert_string_equal(rs(f, f->n - 1, "phase"), "end");
    }
}

/* A begin record's peaks equal its live values (task window optional: a
 * retirement racing the sample may lower the recorded live count). */
static void check_begin_peaks(const ss_file *f, size_t i, int with_task_window)
{
    assert_true(is_begin(f, i));
    if (with_task_window) assert_int_equal(xp(f, i, "task_window"), live_at(f, i, "task_window"));
    assert_int_equal(xp(f, i, "heap"), live_at(f, i, "heap"));
    assert_int_equal(xp(f, i, "dep_pool"), live_at(f, i, "dep_pool"));
    assert_int_equal(ru(f, i, "peak_tensormap"), ru(f, i, "tensormap"));
}

/* The object's keys are exactly keys[0..n), in this order, both as parsed
 * (jansson keeps insertion order) and in the raw text. */
static void check_key_order(json_t *o, const char *raw, const char *const *keys, size_t n)
{
    size_t i = 0;
    for (void *it = json_object_iter(o); it; it = json_object_iter_next(o, it), i++) {
        if (i >= n) fail_msg("extra key \"%s\" in %s", json_object_iter_key(it), raw);
        if (strcmp(json_object_iter_key(it), keys[i]))
            fail_msg("key %zu is \"%s\", expected \"%s\" in %s", i, json_object_iter_key(it), keys[i], raw);
    }
    if (i != n) fail_msg("%zu keys, expected %zu in %s", i, n, raw);
    const char *p = raw;
    for (i = 0; i < n; i++) {
        char k[64];
        snprintf(k, sizeof k, "\"%s\": ", keys[i]);
        const char *q = strstr(p, k);
        if (!q) fail_msg("raw text lacks %s after position %td: %s", k, p - raw, raw);
        p = q + strlen(k);
    }
}

static const char *const meta_keys[] = {"version", "fatal", "dropped", "total", "task_window_max",
                                        "heap_max", "dep_pool_max", "tensormap_max"};
static const char *const rec_keys[] = {
    "site", "phase", "depth", "ring", "task_window_start", "task_window_end", "heap_start", "heap_end",
    "dep_pool_start", "dep_pool_end", "tensormap", "peak_task_window", "peak_heap", "peak_dep_pool",
    "peak_tensormap"};

/* The metadata line's text, exactly (separators ", " and ": ", as the reference runtime writes it). */
static void expect_meta_line(const ss_file *f, int fatal, size_t total, const uint64_t tw[4],
                             const uint64_t heap[4], const uint64_t dep[4])
{
    char want[1024];
    snprintf(want, sizeof want,
             "{\"version\": 6, \"fatal\": %s, \"dropped\": 0, \"total\": %zu, "
             "\"task_window_max\": [%llu, %llu, %llu, %llu], \"heap_max\": [%llu, %llu, %llu, %llu], "
             "\"dep_pool_max\": [%llu, %llu, %llu, %llu], \"tensormap_max\": 65536}",
             fatal ? "true" : "false", total, (unsigned long long)tw[0], (unsigned long long)tw[1],
             (unsigned long long)tw[2], (unsigned long long)tw[3], (unsigned long long)heap[0],
             (unsigned long long)heap[1], (unsigned long long)heap[2], (unsigned long long)heap[3],
             (unsigned long long)dep[0], (unsigned long long)dep[1], (unsigned long long)dep[2],
             (unsigned long long)dep[3]);
    assert_string_equal(f->meta_line, want);
    check_key_order(f->meta, f->meta_line, meta_keys, 8);
    /* The same, through the parser. */
    const char *arr[3] = {"task_window_max", "heap_max", "dep_pool_max"};
    const uint64_t *vals[3] = {tw, heap, dep};
    for (int a = 0; a < 3; a++) {
        json_t *v = json_object_get(f->meta, arr[a]);
        assert_true(json_is_array(v));
        assert_int_equal(json_array_size(v), 4);
        for (int r = 0; r < 4; r++) assert_int_equal(json_integer_value(json_array_get(v, r)), vals[a][r]);
    }
    assert_int_equal(meta_int(f, "version"), 6);
    assert_int_equal(meta_int(f, "tensormap_max"), 65536);
}

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
    ss_tempdir(dir, sizeof dir);
    pto_config cfg = stats_cfg(dir);
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
    ss_free(&f);
    pto_runtime_destroy(rt);
    ss_rmtree(dir);
}

/* 10 tasks on a gate in one scope, behind a backlog of 3 gated tasks of an
 * earlier sibling scope on the same ring -> the scope's end has
 * peak_task_window 10 + 3 and high water 13 (>= 10); the enclosing scope
 * on another ring sees none of it. */
static void test_stats_true_peak_burst(void **state)
{
    (void)state;
    gates_reset();
    char dir[64];
    ss_tempdir(dir, sizeof dir);
    pto_config cfg = stats_cfg(dir);
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
    ss_free(&f);
    pto_runtime_destroy(rt);
    ss_rmtree(dir);
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
    ss_tempdir(dir, sizeof dir);
    pto_config cfg = stats_cfg(dir);
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
    ss_free(&f);
    pto_runtime_destroy(rt);
    ss_rmtree(dir);
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
    gates_reset();
    char dir[64];
    ss_tempdir(dir, sizeof dir);
    pto_config cfg = stats_cfg(dir);
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
    ss_free(&f);
    pto_runtime_destroy(rt);
    ss_rmtree(dir);
}

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
    gates_reset();
    char dir[64];
    ss_tempdir(dir, sizeof dir);
    pto_config cfg = stats_cfg(dir);
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
    ss_free(&f);
    pto_runtime_destroy(rt);
    ss_rmtree(dir);
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
    gates_reset();
    char dir[64];
    ss_tempdir(dir, sizeof dir);
    pto_config cfg = stats_cfg(dir);
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
    ss_free(&f);
    pto_runtime_destroy(rt);
    ss_rmtree(dir);
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
    gates_reset();
    char dir[64];
    ss_tempdir(dir, sizeof dir);
    pto_config cfg = stats_cfg(dir);
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
    ss_free(&f);
    pto_runtime_destroy(rt);
    ss_rmtree(dir);
}

/* Reader entries count: 5 gated tasks, each with 3 IN views of distinct
 * user buffers (and a NO_DEP arg, which makes no entry), in a depth-1 scope
 * of a fresh runtime -> that scope's end shows tensormap 15 and
 * peak_tensormap 15 (its begin 0), and the enclosing scope's peak 15. */
static void test_stats_tensormap_counts_readers(void **state)
{
    (void)state;
    gates_reset();
    char dir[64];
    ss_tempdir(dir, sizeof dir);
    pto_config cfg = stats_cfg(dir);
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
    ss_free(&f);
    pto_runtime_destroy(rt);
    ss_rmtree(dir);
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
    ss_free(&f);
    pto_runtime_destroy(rt);
    ss_rmtree(dir);
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

/* Per-ring lists with 0 entries: task_window [16, 0, 0, 256], heap [0, 2048,
 * 0, 0], dep_pool [8, 0, 0, 0] -> the metadata shows the effective sizes;
 * an all-default config shows the defaults. */
static void test_stats_metadata_lists(void **state)
{
    (void)state;
    char dir[64];
    ss_tempdir(dir, sizeof dir);
    pto_config cfg = stats_cfg(dir);
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
    ss_free(&f);
    pto_runtime_destroy(rt);
    ss_rmtree(dir);

    ss_tempdir(dir, sizeof dir);
    cfg = stats_cfg(dir);
    rt = make_rt(&cfg);
    submit_dummy(rt);
    finish_ok(rt);
    ss_load(dir, &f);
    const uint64_t dtw[4] = {16384, 16384, 16384, 16384},
                   dheap[4] = {268435456, 268435456, 268435456, 268435456};
    expect_meta_line(&f, 0, 2, dtw, dheap, dtw);
    ss_free(&f);
    pto_runtime_destroy(rt);
    ss_rmtree(dir);
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
    cmocka_unit_test(test_stats_heap_unroll),
    cmocka_unit_test(test_stats_heap_exact_full),
    cmocka_unit_test(test_stats_dep_pool_tail_moves),
    cmocka_unit_test(test_stats_tensormap_counts_readers),
    cmocka_unit_test(test_stats_fatal_run),
    cmocka_unit_test(test_stats_disabled),
    cmocka_unit_test(test_stats_metadata_lists),
    cmocka_unit_test(test_stats_report_roundtrip),
};

PTO_TEST_MAIN(tests)
