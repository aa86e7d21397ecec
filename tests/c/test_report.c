/*
 * test_report.c - the scope-stats report tool (docs/tools.md), one test
 * per rule of the report tool (docs/tools.md): top peaks, imbalance, pinned and oversized
 * verdicts, suggested sizes, reference-runtime files, bad inputs.  Each test
 * writes its crafted NDJSON into a temp directory and drives the ss_ library
 * (the summary structs and the in-process CLI).
 */
#include "harness.h"

#include <jansson.h>
#include <sys/stat.h>

#include "reportutil.h"

static const long long w16[4] = {16, 16384, 64, 16384};
static const long long mib1[4] = {1048576, 268435456, 268435456, 268435456};
static const long long all16[4] = {16, 16, 16, 16};

/* The line of text that starts with prefix (after leading blanks), or NULL. */
static const char *line_with(const char *text, const char *prefix)
{
    for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        const char *q = p;
        while (*q == ' ') q++;
        if (!strncmp(q, prefix, strlen(prefix))) return q;
    }
    return NULL;
}

static void assert_contains(const char *text, const char *want)
{
    if (!strstr(text, want)) fail_msg("missing \"%s\" in:\n%s", want, text);
}

/* ring 0 holds 12 of 16 slots and 512 KiB of 1 MiB; ring 2 holds 40 of 64. */
static void write_two_rings(ru_file *t, const char *dir)
{
    ru_open(t, dir, "two_rings.jsonl", 6, 0, 0, 6, w16, mib1, NULL, 1);
    ru_begin(t, "(root):0", 0);
    ru_scope(t, "k.py:10", 0, 12, 524288, 3, 5);
    ru_scope(t, "k.py:20", 2, 40, 1024, 0, 7);
    ru_record(t, "(root):0", "end", 0, 0, NULL);
    ru_close(t);
}

static void test_report_top_peaks(void **state)
{
    (void)state;
    char dir[64], *out, *err;
    ru_file t;
    ss_data d;
    ss_summary s;
    ru_tempdir(dir, sizeof dir);
    write_two_rings(&t, dir);
    ru_summarize(t.path, 1.5, &d, &s);
    assert_int_equal(s.paired, 3);
    /* 3 resources x 2 rings with data + the global tensormap row */
    assert_int_equal(s.nrows, 7);
    static const struct { int res, ring; long long peak; const char *site; } want[7] = {
        {SS_TASK_WINDOW, 0, 12, "k.py:10"}, {SS_TASK_WINDOW, 2, 40, "k.py:20"},
        {SS_HEAP, 0, 524288, "k.py:10"},    {SS_DEP_POOL, 0, 3, "k.py:10"},
        {SS_TENSORMAP, -1, 7, "k.py:20"},   {SS_HEAP, 2, 1024, "k.py:20"},
        {SS_DEP_POOL, 2, 0, "k.py:20"}};
    for (int i = 0; i < 7; i++) {
        assert_int_equal(s.rows[i].resource, want[i].res);
        assert_int_equal(s.rows[i].ring, want[i].ring);
        assert_int_equal(s.rows[i].peak, want[i].peak);
        assert_string_equal(s.rows[i].scope->site, want[i].site);
        if (i) assert_true(s.rows[i - 1].use >= s.rows[i].use);
    }
    assert_string_equal(s.rows[0].cls, "warn");
    ss_file_free(&d);

    assert_int_equal(ru_cli(&out, &err, t.path, NULL, NULL, NULL, NULL), 0);
    assert_string_equal(err, "");
    const char *head = line_with(out, "resource");
    assert_non_null(head);
    char cols[9][32];
    assert_int_equal(sscanf(head, "%31s %31s %31s %31s %31s %31s %31s %31s %31s", cols[0],
                            cols[1], cols[2], cols[3], cols[4], cols[5], cols[6], cols[7], cols[8]),
                     9);
    static const char *const names[9] = {"resource", "ring",  "peak", "high_water", "capacity",
                                         "use%",     "class", "site", "scope#"};
    for (int c = 0; c < 9; c++) assert_string_equal(cols[c], names[c]);
    /* use % with 2 decimals; rows in use order; tensormap is global */
    static const char *const rows[7][9] = {
        {"task_window", "0", "12", "12", "16", "75.00", "warn", "k.py:10", "1"},
        {"task_window", "2", "40", "40", "64", "62.50", "warn", "k.py:20", "1"},
        {"heap", "0", "524288", "524288", "1048576", "50.00", "warn", "k.py:10", "1"},
        {"dep_pool", "0", "3", "3", "16384", "0.02", "ok", "k.py:10", "1"},
        {"tensormap", "-", "7", "7", "65536", "0.01", "ok", "k.py:20", "2"},
        {"heap", "2", "1024", "1024", "268435456", "0.00", "ok", "k.py:20", "1"},
        {"dep_pool", "2", "0", "0", "16384", "0.00", "ok", "k.py:20", "1"}};
    const char *line = head;
    for (int i = 0; i < 7; i++) {
        line = strchr(line, '\n') + 1;
        assert_int_equal(sscanf(line, "%31s %31s %31s %31s %31s %31s %31s %31s %31s", cols[0],
                                cols[1], cols[2], cols[3], cols[4], cols[5], cols[6], cols[7],
                                cols[8]),
                         9);
        for (int c = 0; c < 9; c++) assert_string_equal(cols[c], rows[i][c]);
    }
    free(out);
    free(err);

    /* the same rows in --json */
    assert_int_equal(ru_cli(&out, &err, t.path, "--json", NULL, NULL, NULL), 0);
    json_error_t je;
    json_t *j = json_loads(out, 0, &je);
    assert_non_null(j);
    json_t *top = json_object_get(j, "top_peaks");
    assert_int_equal(json_array_size(top), 7);
    assert_string_equal(json_string_value(json_object_get(json_array_get(top, 0), "resource")),
                        "task_window");
    assert_true(json_real_value(json_object_get(json_array_get(top, 0), "use_pct")) == 75.0);
    assert_true(json_is_null(json_object_get(json_array_get(top, 4), "ring")));
    json_decref(j);
    free(out);
    free(err);
    unlink(t.path);
    rmdir(dir);
}

static void test_report_imbalance(void **state)
{
    (void)state;
    char dir[64], *out, *err;
    ru_file t;
    ru_tempdir(dir, sizeof dir);
    /* ring 0: 15 of its 16 slots (all it can hold); rings 1-3 never used */
    ru_open(&t, dir, "flat.jsonl", 6, 0, 0, 12, all16, NULL, NULL, 1);
    ru_begin(&t, "(root):0", 0);
    ru_scope(&t, "a.py:10", 0, 15, 4096, 2, 1);
    ru_scope(&t, "b.py:20", 0, 9, 4096, 2, 1);
    ru_scope(&t, "c.py:30", 0, 5, 4096, 2, 1);
    ru_scope(&t, "d.py:40", 0, 2, 4096, 2, 1);
    ru_scope(&t, "a.py:10", 0, 3, 4096, 2, 1);
    ru_record(&t, "(root):0", "end", 0, 0, NULL);
    ru_close(&t);

    ss_data d;
    ss_summary s;
    ru_summarize(t.path, 1.5, &d, &s);
    int found = 0;
    for (int i = 0; i < s.nverdicts; i++) {
        if (s.verdicts[i].kind != SS_V_IMBALANCE) continue;
        found++;
        assert_int_equal(s.verdicts[i].resource, SS_TASK_WINDOW);
        assert_int_equal(s.verdicts[i].ring, 0);
        assert_string_equal(s.verdicts[i].text,
                            "ring 0 carries task_window at 93.75% while ring(s) 1, 2, 3 are idle: "
                            "rebalance scopes before enlarging anything; top sites by peak: "
                            "a.py:10 (15), b.py:20 (9), c.py:30 (5)");
    }
    assert_int_equal(found, 1);
    assert_true(s.imbalanced[SS_TASK_WINDOW]);
    assert_false(s.imbalanced[SS_HEAP]);
    ss_file_free(&d);

    /* the imbalanced resource's sizes come after "after rebalancing scopes:" */
    assert_int_equal(ru_cli(&out, &err, t.path, NULL, NULL, NULL, NULL), 0);
    assert_contains(out, "  - ring 0 carries task_window at 93.75% while ring(s) 1, 2, 3 are idle");
    const char *after = strstr(out, "after rebalancing scopes:\n");
    assert_non_null(after);
    assert_contains(after, "RunConfig(ring_task_window=[32, 0, 0, 0])");
    const char *first = strstr(out, "RunConfig(ring_heap=[8192, 0, 0, 0], ring_dep_pool=[4, 0, 0, 0])");
    assert_non_null(first);
    assert_true(first < after);
    free(out);
    free(err);
    unlink(t.path);
    rmdir(dir);
}

static void test_report_pinned_and_oversized(void **state)
{
    (void)state;
    char dir[64];
    ru_file t;
    ru_tempdir(dir, sizeof dir);
    /* every ring busy (no imbalance); ring 0 at window - 1; the heap tiny everywhere */
    ru_open(&t, dir, "pinned.jsonl", 6, 0, 0, 10, all16, NULL, NULL, 1);
    ru_begin(&t, "(root):0", 0);
    ru_scope(&t, "p.py:1", 0, 15, 1048576, 1, 1);
    ru_scope(&t, "p.py:2", 1, 8, 0, 1, 1);
    ru_scope(&t, "p.py:3", 2, 8, 0, 1, 1);
    ru_scope(&t, "p.py:4", 3, 8, 0, 1, 1);
    ru_record(&t, "(root):0", "end", 0, 0, NULL);
    ru_close(&t);

    ss_data d;
    ss_summary s;
    ru_summarize(t.path, 1.5, &d, &s);
    int constraints = 0, heap_oversized = 0;
    for (int i = 0; i < s.nverdicts; i++) {
        const ss_verdict *v = &s.verdicts[i];
        assert_int_not_equal(v->kind, SS_V_IMBALANCE);
        if (v->kind == SS_V_CONSTRAINT) {
            constraints++;
            assert_string_equal(v->text, "task_window on ring 0 is pinned at capacity: that ring "
                                         "is the constraint");
        }
        if (v->kind == SS_V_OVERSIZED && v->resource == SS_HEAP) {
            heap_oversized++;
            /* 256 MiB each; suggested 2 MiB on ring 0, 1024 on rings 1-3 */
            assert_string_equal(v->text,
                                "heap never exceeds 0.39% on any ring: smaller rings would save "
                                "1071641600 bytes (1022.00 MiB) of reservation");
        }
        if (v->kind == SS_V_OVERSIZED) assert_int_not_equal(v->resource, SS_TASK_WINDOW);
    }
    assert_int_equal(constraints, 1);
    assert_int_equal(heap_oversized, 1);
    assert_true(s.pinned[SS_TASK_WINDOW][0]);
    assert_false(s.pinned[SS_TASK_WINDOW][1]);
    ss_file_free(&d);
    unlink(t.path);
    rmdir(dir);
}

static void test_report_suggestions(void **state)
{
    (void)state;
    char dir[64], *out, *err;
    ru_file t;
    ss_data d;
    ss_summary s;
    ru_tempdir(dir, sizeof dir);

    /* peaks 5000 slots / 100 MiB / 300 entries on ring 0, F 1.5 */
    ru_open(&t, dir, "big.jsonl", 6, 0, 0, 4, NULL, NULL, NULL, 1);
    ru_begin(&t, "(root):0", 0);
    ru_scope(&t, "s.py:1", 0, 5000, 104857600, 300, 1);
    ru_record(&t, "(root):0", "end", 0, 0, NULL);
    ru_close(&t);
    assert_int_equal(ru_cli(&out, &err, t.path, "--headroom", "1.5", NULL, NULL), 0);
    assert_contains(out, "  RunConfig(ring_task_window=[8192, 0, 0, 0], ring_heap=[268435456, 0, 0, "
                         "0], ring_dep_pool=[450, 0, 0, 0])\n");
    assert_contains(out, "  .runtime_env.ring_task_window = {8192, 0, 0, 0},\n"
                         "  .runtime_env.ring_heap = {268435456, 0, 0, 0},\n"
                         "  .runtime_env.ring_dep_pool = {450, 0, 0, 0},\n");
    assert_null(strstr(out, "lower bound"));
    assert_null(strstr(out, "after rebalancing"));
    free(out);
    free(err);
    assert_int_equal(ru_cli(&out, &err, t.path, "--json", NULL, NULL, NULL), 0);
    json_t *j = json_loads(out, 0, NULL);
    assert_non_null(j);
    json_t *sug = json_object_get(j, "suggested");
    assert_int_equal(json_integer_value(json_array_get(json_object_get(sug, "ring_heap"), 0)),
                     268435456);
    assert_int_equal(json_integer_value(json_array_get(json_object_get(sug, "ring_heap"), 1)), 0);
    json_decref(j);
    free(out);
    free(err);
    unlink(t.path);

    /* pinned dep pool: max(formula, 2 x current), marked; other rings by formula */
    static const long long dep100[4] = {100, 100, 100, 100};
    ru_open(&t, dir, "pinned.jsonl", 6, 0, 0, 10, NULL, NULL, dep100, 1);
    ru_begin(&t, "(root):0", 0);
    ru_scope(&t, "q.py:1", 0, 1, 0, 100, 1);
    ru_scope(&t, "q.py:2", 1, 1, 0, 50, 1);
    ru_scope(&t, "q.py:3", 2, 1, 0, 50, 1);
    ru_scope(&t, "q.py:4", 3, 1, 0, 50, 1);
    ru_record(&t, "(root):0", "end", 0, 0, NULL);
    ru_close(&t);
    ru_summarize(t.path, 1.5, &d, &s);
    assert_int_equal(s.suggested[SS_DEP_POOL][0], 200);
    assert_true(s.lower_bound[SS_DEP_POOL][0]);
    assert_int_equal(s.suggested[SS_DEP_POOL][1], 75);
    assert_false(s.lower_bound[SS_DEP_POOL][1]);
    assert_int_equal(s.suggested[SS_TASK_WINDOW][3], 4);
    assert_int_equal(s.suggested[SS_HEAP][2], 1024);
    ss_file_free(&d);
    assert_int_equal(ru_cli(&out, &err, t.path, NULL, NULL, NULL, NULL), 0);
    assert_contains(out, "ring_dep_pool=[200, 75, 75, 75])");
    assert_contains(out, "  ring_dep_pool[0] = 200 (lower bound: rerun to confirm)\n");
    free(out);
    free(err);
    unlink(t.path);

    /* fatal run: every ring with data is a lower bound; rings without data 0 */
    ru_open(&t, dir, "fatal.jsonl", 6, 1, 0, 3, all16, NULL, NULL, 1);
    ru_begin(&t, "(root):0", 0);
    ru_scope(&t, "f.py:1", 0, 3, 2048, 1, 1);
    ru_begin(&t, "f.py:2", 1);
    ru_close(&t);
    ru_summarize(t.path, 1.5, &d, &s);
    assert_int_equal(s.suggested[SS_TASK_WINDOW][0], 32);
    assert_true(s.lower_bound[SS_TASK_WINDOW][0]);
    assert_int_equal(s.suggested[SS_TASK_WINDOW][1], 0);
    assert_int_equal(s.suggested[SS_HEAP][0], 536870912);
    assert_string_equal(s.verdicts[s.nverdicts - 1].text,
                        "peaks are lower bounds: rerun after resizing");
    ss_file_free(&d);
    assert_int_equal(ru_cli(&out, &err, t.path, NULL, NULL, NULL, NULL), 0);
    assert_contains(out, "  status:        Fatal\n");
    assert_contains(out, "  ring_task_window[0] = 32 (lower bound: rerun to confirm)\n");
    assert_contains(err, "run ended inside scope f.py:2 (no end record)");
    free(out);
    free(err);

    /* headroom below 1.0 is a usage error */
    assert_int_equal(ru_cli(&out, &err, t.path, "--headroom", "0.9", NULL, NULL), 2);
    assert_contains(err, "--headroom must be a number >= 1.0, got 0.9");
    free(out);
    free(err);
    unlink(t.path);
    rmdir(dir);
}

static void test_report_reference_file(void **state)
{
    (void)state;
    char dir[64], path[600], *out, *err;
    ru_tempdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/reference.jsonl", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    /* the reference runtime: 11-key records, no tensormap_max, no peaks */
    fprintf(f, "{\"version\": 6, \"fatal\": false, \"dropped\": 0, \"total\": 4, "
               "\"task_window_max\": [16, 16, 16, 16], \"heap_max\": [4096, 4096, 4096, 4096], "
               "\"dep_pool_max\": [64, 64, 64, 64]}\n");
    const char *rec = "{\"site\": \"%s\", \"phase\": \"%s\", \"depth\": %d, \"ring\": %d, "
                      "\"task_window_start\": %d, \"task_window_end\": %d, \"heap_start\": %d, "
                      "\"heap_end\": %d, \"dep_pool_start\": 1, \"dep_pool_end\": %d, "
                      "\"tensormap\": %d}\n";
    fprintf(f, rec, "(root):0", "begin", 0, 0, 0, 0, 0, 0, 1, 0);
    /* a streaming scope: 100 tasks through a 16-slot window, one live at exit */
    fprintf(f, rec, "stream.py:7", "begin", 1, 1, 0, 0, 0, 0, 1, 0);
    fprintf(f, rec, "stream.py:7", "end", 1, 1, 99, 100, 99 * 1024, 100 * 1024, 1, 2);
    fprintf(f, rec, "(root):0", "end", 0, 0, 0, 0, 0, 0, 1, 0);
    fclose(f);

    ss_data d;
    ss_summary s;
    ru_summarize(path, 1.5, &d, &s);
    assert_false(d.has_peaks);
    assert_int_equal(d.tm_capacity, 65536);
    assert_int_equal(s.paired, 2);
    assert_int_equal(d.scopes[0].peak[SS_TASK_WINDOW], 100); /* falls back to high water */
    assert_int_equal(d.scopes[0].live_exit[SS_TASK_WINDOW], 1);
    assert_int_equal(s.rows[0].resource, SS_HEAP); /* 102400 / 4096 = 2500% */
    assert_int_equal(s.rows[0].peak, 102400);
    ss_file_free(&d);

    char html[640];
    snprintf(html, sizeof html, "%s/reference.html", dir);
    assert_int_equal(ru_cli(&out, &err, path, "--html", html, NULL, NULL), 0);
    assert_string_equal(err, "");
    assert_contains(out, "  risk metric:   high water (no peak_* keys in this file: an upper "
                         "bound, not the true peak)\n");
    assert_contains(out, "tensormap=65536");
    free(out);
    free(err);
    /* the page draws no True peak series: High water and Live at exit only */
    f = fopen(html, "r");
    assert_non_null(f);
    static char page[1 << 20];
    size_t n = fread(page, 1, sizeof page - 1, f);
    page[n] = '\0';
    fclose(f);
    assert_contains(page, "data-kind=\"pressure\" data-scopes=\"1\" data-series=\"2\"");
    assert_null(strstr(page, "True peak,"));
    unlink(html);
    unlink(path);
    rmdir(dir);
}

/* Writes text to dir/name and returns the path in buf. */
static const char *write_text(const char *dir, const char *name, const char *text, char *buf,
                              size_t len)
{
    snprintf(buf, len, "%s/%s", dir, name);
    FILE *f = fopen(buf, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return buf;
}

#define META "{\"version\": 6, \"fatal\": false, \"dropped\": 0, \"total\": 2, " \
             "\"task_window_max\": [16, 16, 16, 16], \"heap_max\": [4096, 4096, 4096, 4096], " \
             "\"dep_pool_max\": [64, 64, 64, 64], \"tensormap_max\": 65536}\n"
#define REC(site, phase, tw_end, heap_end)                                                 \
    "{\"site\": \"" site "\", \"phase\": \"" phase "\", \"depth\": 0, \"ring\": 0, "       \
    "\"task_window_start\": 0, \"task_window_end\": " #tw_end ", \"heap_start\": 0, "      \
    "\"heap_end\": " #heap_end ", \"dep_pool_start\": 1, \"dep_pool_end\": 1, "            \
    "\"tensormap\": 0, \"peak_task_window\": 0, \"peak_heap\": 0, \"peak_dep_pool\": 0, "   \
    "\"peak_tensormap\": 0}"

static void expect_cli(const char *path, int code, const char *want_err, const char *want_out)
{
    char *out, *err;
    assert_int_equal(ru_cli(&out, &err, path, NULL, NULL, NULL, NULL), code);
    if (strncmp(err, want_err, strlen(want_err)))
        fail_msg("stderr \"%s\" does not start with \"%s\"", err, want_err);
    if (want_out) assert_contains(out, want_out);
    else assert_string_equal(out, "");
    free(out);
    free(err);
}

static void test_report_bad_inputs(void **state)
{
    (void)state;
    char dir[64], p[600], want[1024];
    ru_tempdir(dir, sizeof dir);

    /* malformed line 3 -> exit 1 */
    write_text(dir, "bad3.jsonl", META REC("k.py:1", "begin", 0, 0) "\n{\"site\": \"k.py:1\", \"phase\"\n",
               p, sizeof p);
    snprintf(want, sizeof want, "%s:3: invalid JSON: ", p);
    expect_cli(p, 1, want, NULL);

    /* version 5 -> exit 1 */
    write_text(dir, "v5.jsonl", "{\"version\": 5, \"fatal\": false}\n", p, sizeof p);
    snprintf(want, sizeof want, "%s:1: unsupported scope stats version 5 (need 6)\n", p);
    expect_cli(p, 1, want, NULL);

    /* a record without heap_end -> exit 1 */
    write_text(dir, "missing.jsonl",
               META "{\"site\": \"k.py:1\", \"phase\": \"begin\", \"depth\": 0, \"ring\": 0, "
                    "\"task_window_start\": 0, \"task_window_end\": 0, \"heap_start\": 0, "
                    "\"dep_pool_start\": 1, \"dep_pool_end\": 1, \"tensormap\": 0}\n",
               p, sizeof p);
    snprintf(want, sizeof want, "%s:2: record lacks \"heap_end\"\n", p);
    expect_cli(p, 1, want, NULL);

    /* truncated tail: reported anyway, with the warning -> exit 0 */
    write_text(dir, "cut.jsonl",
               META REC("(root):0", "begin", 0, 0) "\n" REC("k.py:7", "begin", 0, 0) "\n"
                    REC("k.py:7", "end", 3, 1024) "\n" REC("k.py:9", "begin", 3, 1024) "\n"
                    "{\"site\": \"k.py:9\", \"phase\": \"en",
               p, sizeof p);
    snprintf(want, sizeof want, "warning: %s: run ended inside scope k.py:9 (no end record)\n", p);
    expect_cli(p, 0, want, "paired scopes: 1 ");

    /* a begin without end at the tail (fatal run) -> same warning, exit 0 */
    write_text(dir, "open.jsonl", META REC("(root):0", "begin", 0, 0) "\n", p, sizeof p);
    snprintf(want, sizeof want, "warning: %s: run ended inside scope (root):0 (no end record)\n",
             p);
    expect_cli(p, 0, want, "paired scopes: 0 ");

    /* end without begin: skipped with a warning naming its line -> exit 0 */
    write_text(dir, "orphan.jsonl",
               META REC("x.py:9", "end", 2, 0) "\n" REC("k.py:1", "begin", 2, 0) "\n"
                    REC("k.py:1", "end", 4, 0) "\n",
               p, sizeof p);
    snprintf(want, sizeof want, "warning: %s:2: end without begin for x.py:9\n", p);
    expect_cli(p, 0, want, "paired scopes: 1 ");

    /* no such file -> 1; no FILE or an unknown option -> usage, 2 */
    snprintf(p, sizeof p, "%s/none.jsonl", dir);
    expect_cli(p, 1, p, NULL);
    char *out, *err;
    assert_int_equal(ru_cli(&out, &err, NULL, NULL, NULL, NULL, NULL), 2);
    assert_contains(err, "usage: pto-scope-stats FILE [--html OUT] [--json] [--headroom F]");
    free(out);
    free(err);
    assert_int_equal(ru_cli(&out, &err, "x.jsonl", "--plot", NULL, NULL, NULL), 2);
    assert_contains(err, "unknown option --plot");
    free(out);
    free(err);

    static const char *const names[] = {"bad3.jsonl", "v5.jsonl", "missing.jsonl", "cut.jsonl",
                                        "open.jsonl", "orphan.jsonl"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        unlink(p);
    }
    rmdir(dir);
}

/* Several FILEs (a distributed call's rank<r>/ files) are shown side by side: one column per
 * file, labelled by its rank directory, each with that file's own numbers and suggestion;
 * --json and --html take one FILE. */
static void test_report_ranks_side_by_side(void **state)
{
    (void)state;
    char dir[64], sub[2][96], path[2][sizeof ((ru_file *)0)->path];
    ru_tempdir(dir, sizeof dir);
    for (int r = 0; r < 2; r++) {
        snprintf(sub[r], sizeof sub[r], "%s/rank%d", dir, r);
        assert_int_equal(mkdir(sub[r], 0700), 0);
        ru_file t;
        ru_open(&t, sub[r], "scope_stats.jsonl", 6, 0, 0, 6, w16, mib1, NULL, 1);
        ru_begin(&t, "(root):0", 0);
        ru_scope(&t, "k.py:10", 0, r ? 4 : 12, 1024, 0, 1);
        ru_record(&t, "(root):0", "end", 0, 0, NULL);
        ru_close(&t);
        snprintf(path[r], sizeof path[r], "%s", t.path);
    }
    char *out, *err;
    assert_int_equal(ru_cli(&out, &err, path[0], path[1], NULL, NULL, NULL), 0);
    const char *head = line_with(out, "resource / ring"), *row = line_with(out, "ring_task_window 0");
    assert_non_null(head);
    assert_non_null(row);
    assert_true(strstr(head, "rank 0") && strstr(head, "rank 1") && strstr(head, "rank 0") < strstr(head, "rank 1"));
    assert_true(strstr(row, "12/16 (75%)") && strstr(row, "4/16 (25%)") && strstr(row, "12/16") < strstr(row, "4/16"));
    assert_contains(out, "rank 1: Healthy: no fatal, no dropped");
    free(out), free(err);
    assert_int_equal(ru_cli(&out, &err, path[0], path[1], "--json", NULL, NULL), 2);
    assert_contains(err, "--json and --html take one FILE");
    free(out), free(err);
    for (int r = 0; r < 2; r++) unlink(path[r]), rmdir(sub[r]);
    rmdir(dir);
}

/* A load message is one line: control characters the input puts in it (here
 * jansson quoting the newline after a bad escape) come out as \xHH. */
static void test_report_load_message_is_one_line(void **state)
{
    (void)state;
    char dir[64], p[600], err[1024];
    ru_tempdir(dir, sizeof dir);
    write_text(dir, "ctl.jsonl", "{\"version\": 6, \"k\\ud\n\t{\"x\"\n", p, sizeof p);
    ss_data d;
    assert_int_equal(ss_file_load(p, &d, err, sizeof err), SS_EINPUT);
    for (const char *c = err; *c; c++)
        if ((unsigned char)*c < 0x20) fail_msg("control character 0x%02x in \"%s\"", *c, err);
    assert_non_null(strstr(err, "invalid JSON: "));
    assert_non_null(strstr(err, "invalid escape near '\"k\\ud\\x0a'"));
    /* A buffer too short for the escape ends the message before it, terminated. */
    char small[8];
    assert_int_equal(ss_file_load(p, &d, small, sizeof small), SS_EINPUT);
    assert_true(strlen(small) < sizeof small);
    unlink(p);
    rmdir(dir);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_report_top_peaks),
    cmocka_unit_test(test_report_imbalance),
    cmocka_unit_test(test_report_pinned_and_oversized),
    cmocka_unit_test(test_report_suggestions),
    cmocka_unit_test(test_report_reference_file),
    cmocka_unit_test(test_report_bad_inputs),
    cmocka_unit_test(test_report_ranks_side_by_side),
    cmocka_unit_test(test_report_load_message_is_one_line),
};

PTO_TEST_MAIN(tests)
