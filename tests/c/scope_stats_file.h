/*
 * scope_stats_file.h - helpers of the scope-stats tests (test_scope_stats.c,
 * test_scope_stats_heap.c): gated kernels (one gate per index, opened by the
 * test), small submits and the wait for a ring's live count; mkdtemp output
 * directories; the stats file <dir>/scope_stats/scope_stats.jsonl loaded
 * with jansson, accessors of its metadata and records, and the checks every
 * well-formed file passes (nesting, monotonic counters, key order, the exact
 * metadata line).  The executables that include it link jansson.
 */
#ifndef PTO_TEST_SCOPE_STATS_FILE_H
#define PTO_TEST_SCOPE_STATS_FILE_H

#include <ftw.h>
#include <jansson.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "e2e.h"
#include "harness.h"

/* ---- kernels and gates ------------------------------------------------- */

#define NGATES 256
static atomic_int g_gate[NGATES]; /* 0 = closed */

static inline void gates_reset(void)
{
    for (int i = 0; i < NGATES; i++) atomic_store(&g_gate[i], 0);
}

static inline void gate_open(int g) { atomic_store(&g_gate[g], 1); }

/* Waits (at most 10 s) for gate scalars[0]; a gate never opened fails the
 * kernel, so a broken test ends with KERNEL_FAILED instead of hanging. */
static inline int k_gate(const pto_kernel_args *a)
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
static inline int k_write(const pto_kernel_args *a)
{
    *el(&a->views[0], 0) = a->scalars[0];
    return 0;
}

static inline int k_noop(const pto_kernel_args *a)
{
    (void)a;
    return 0;
}

/* A task on gate g with the given args (OUT views are filled in). */
static inline pto_task_id submit_gated(pto_runtime *rt, int g, pto_arg *args, uint32_t nargs)
{
    uint64_t sc[1] = {(uint64_t)g};
    pto_task t = {.kernel = k_gate, .name = "gated", .args = args, .num_args = nargs,
                  .scalars = sc, .num_scalars = 1};
    pto_task_id id;
    check_submit(rt, &t, &id);
    return id;
}

static inline void submit_dummy(pto_runtime *rt)
{
    pto_task t = {.kernel = NULL, .name = "dummy"};
    check_submit(rt, &t, NULL);
}

/* A task writing one uint64 OUT (1024 bytes of heap after rounding). */
static inline void submit_out1(pto_runtime *rt)
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
static inline void wait_live(pto_runtime *rt, int ring, uint64_t n)
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
static inline void open_to_depth3(pto_runtime *rt)
{
    BEGIN(rt, "d0.py", 1);
    BEGIN(rt, "d1.py", 2);
    BEGIN(rt, "d2.py", 3);
}

static inline void close_depths(pto_runtime *rt, int n)
{
    for (int i = 0; i < n; i++) END(rt);
}

/* ---- temp dirs and the stats file -------------------------------------- */

static inline void ss_tempdir(char *dir, size_t n)
{
    snprintf(dir, n, "/tmp/pto_scope_stats_XXXXXX");
    if (!mkdtemp(dir)) fail_msg("mkdtemp failed: %s", strerror(errno));
}

static inline int rm_entry(const char *p, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)sb, (void)type, (void)ftw;
    return remove(p);
}

static inline void ss_rmtree(const char *dir) { nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS); }

static inline void ss_path(const char *dir, char *out, size_t n)
{
    snprintf(out, n, "%s/scope_stats/scope_stats.jsonl", dir);
}

/* Stats on, written under dir; 8 workers so gated tasks never starve the
 * ones a test waits for. */
static inline pto_config stats_cfg(const char *dir)
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
static inline void ss_load(const char *dir, ss_file *f)
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

static inline void ss_free(ss_file *f)
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

/* A test's start: every gate closed, a fresh directory, the stats config
 * writing into it. */
static inline pto_config ss_setup(char *dir, size_t n)
{
    gates_reset();
    ss_tempdir(dir, n);
    return stats_cfg(dir);
}

/* A test's end: the loaded file, the runtime and the directory go. */
static inline void ss_teardown(ss_file *f, pto_runtime *rt, const char *dir)
{
    ss_free(f);
    pto_runtime_destroy(rt);
    ss_rmtree(dir);
}

static inline int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static inline int64_t meta_int(const ss_file *f, const char *key)
{
    json_t *v = json_object_get(f->meta, key);
    if (!json_is_integer(v)) fail_msg("metadata lacks integer \"%s\": %s", key, f->meta_line);
    return json_integer_value(v);
}

static inline int meta_fatal(const ss_file *f)
{
    json_t *v = json_object_get(f->meta, "fatal");
    if (!json_is_boolean(v)) fail_msg("metadata \"fatal\" is not a boolean: %s", f->meta_line);
    return json_is_true(v);
}

/* Integer key of record i. */
static inline uint64_t ru(const ss_file *f, size_t i, const char *key)
{
    assert_true(i < f->n);
    json_t *v = json_object_get(f->rec[i], key);
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        fail_msg("record %zu: \"%s\" missing or not a non-negative integer: %s", i, key, f->line[i]);
    return (uint64_t)json_integer_value(v);
}

static inline const char *rs(const ss_file *f, size_t i, const char *key)
{
    assert_true(i < f->n);
    json_t *v = json_object_get(f->rec[i], key);
    if (!json_is_string(v)) fail_msg("record %zu: \"%s\" missing or not a string: %s", i, key, f->line[i]);
    return json_string_value(v);
}

static inline int is_begin(const ss_file *f, size_t i) { return strcmp(rs(f, i, "phase"), "begin") == 0; }

/* X_start / X_end / peak_X of record i for X = task_window, heap, dep_pool. */
static inline uint64_t xs(const ss_file *f, size_t i, const char *x)
{
    char k[64];
    snprintf(k, sizeof k, "%s_start", x);
    return ru(f, i, k);
}
static inline uint64_t xe(const ss_file *f, size_t i, const char *x)
{
    char k[64];
    snprintf(k, sizeof k, "%s_end", x);
    return ru(f, i, k);
}
static inline uint64_t xp(const ss_file *f, size_t i, const char *x)
{
    char k[64];
    snprintf(k, sizeof k, "peak_%s", x);
    return ru(f, i, k);
}

/* Index of the nth (from 0) record of site in phase. */
static inline size_t ss_find(const ss_file *f, const char *site, const char *phase, size_t nth)
{
    size_t left = nth;
    for (size_t i = 0; i < f->n; i++)
        if (!strcmp(rs(f, i, "site"), site) && !strcmp(rs(f, i, "phase"), phase) && left-- == 0) return i;
    fail_msg("no record #%zu for %s %s", nth, site, phase);
    return 0;
}

static inline size_t ss_count(const ss_file *f, const char *site, const char *phase)
{
    size_t n = 0;
    for (size_t i = 0; i < f->n; i++)
        if (!strcmp(rs(f, i, "site"), site) && !strcmp(rs(f, i, "phase"), phase)) n++;
    return n;
}

/* The end record that closes begin record b (records nest properly). */
static inline size_t ss_end_of(const ss_file *f, size_t b)
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
static inline uint64_t high_water(const ss_file *f, size_t b, size_t e, const char *x) { return xe(f, e, x) - xs(f, b, x); }
static inline uint64_t live_at(const ss_file *f, size_t i, const char *x) { return xe(f, i, x) - xs(f, i, x); }

/* Runs fn-free checks common to every well-formed file: total = records,
 * dropped 0, proper nesting (each begin closed by an end with the same
 * site, depth and ring; depth = explicit scopes open, ring = min(depth, 3)),
 * counters monotonic per ring, start <= end, and an end's peaks at least its
 * live values.  Files of fatal runs may end with open begins. */
static inline void ss_check_structure(const ss_file *f, int fatal)
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
static inline void check_begin_peaks(const ss_file *f, size_t i, int with_task_window)
{
    assert_true(is_begin(f, i));
    if (with_task_window) assert_int_equal(xp(f, i, "task_window"), live_at(f, i, "task_window"));
    assert_int_equal(xp(f, i, "heap"), live_at(f, i, "heap"));
    assert_int_equal(xp(f, i, "dep_pool"), live_at(f, i, "dep_pool"));
    assert_int_equal(ru(f, i, "peak_tensormap"), ru(f, i, "tensormap"));
}

/* The object's keys are exactly keys[0..n), in this order, both as parsed
 * (jansson keeps insertion order) and in the raw text. */
static inline void check_key_order(json_t *o, const char *raw, const char *const *keys, size_t n)
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

/* The metadata line's text, exactly (separators ", " and ": ", as the reference runtime writes it). */
static inline void expect_meta_line(const ss_file *f, int fatal, size_t total, const uint64_t tw[4],
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

#endif
