/*
 * report.c - turns the rows of one benchmark run into the table people read:
 * the machine and run lines, the B0 header (each repetition calibrates
 * once: medians over repetitions), each runtime's configuration,
 * one line per (benchmark, case, metric) with every system side by side,
 * the best peer and the ratio, and every bar of the protocol (docs/performance.md) with its
 * verdict.  Writes every cell to OUT.json.
 *
 *   bench_report ROWS.jsonl CONFIGS.jsonl OUT.json
 *
 * Cells: every row is one sample; the samples of one (bench, case, system,
 * metric) are one cell, shown as its median and its spread (max - min) /
 * median.  Roles: "ours"; extra rows (ours-sized: ours with rings sized
 * from scope stats; ours-create-tensor: B5 with its intermediate in a
 * ring-allocated tensor; ours-checked: B2c's compiled program through the
 * public submit instead of the executor's trusted one) are shown but are neither ours nor a peer; the TBB
 * static graph and B5's hand-written C loop (the bandwidth bound) are
 * floors, shown but not peers; every other system is a peer.  Ratios read "> 1 = ours ahead": peer / ours for costs (times,
 * memory), ours / peer for rates (GB/s, GFLOP/s).
 *
 * Verdicts: a bar "a <= k * b" (or >=) is judged at the ends of both
 * spreads: met when it holds at the least favourable ends, not met when it
 * fails at the most favourable ones, and "within noise" in between - that
 * is, whenever the spread of a overlaps the spread of k * b.  A bar
 * against several peers takes the worst of its verdicts.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_SAMPLES = 64 };

typedef struct cell {
    char bench[8], cas[32], system[32], metric[32];
    double v[MAX_SAMPLES];
    int n;
} cell;

typedef struct stat {
    double med, lo, hi;
    int n; /* 0: no data */
} stat;

typedef enum role { OURS, EXTRA, PEER, FLOOR } role;

static const struct {
    const char *name;
    role role;
} systems[] = {
    {"ours", OURS},           {"ours-sized", EXTRA},      {"ours-create-tensor", EXTRA}, {"ours-no-zero-fill", EXTRA},
    {"ours-checked", EXTRA},  {"omp-gcc", PEER},
    {"omp-gcc-passive", PEER}, {"omp-clang", PEER},        {"omp-clang-active", PEER},
    {"starpu", PEER},         {"tbb", FLOOR},             {"lapacke-mt", PEER},
    {"torch", PEER},          {"numpy", PEER},            {"c-loop", FLOOR},
};
enum { NSYS = sizeof systems / sizeof systems[0] };

static cell *cells;
static int ncells;

static cell *cell_of(const char *b, const char *c, const char *s, const char *m, int create)
{
    for (int i = 0; i < ncells; i++)
        if (!strcmp(cells[i].bench, b) && !strcmp(cells[i].cas, c) && !strcmp(cells[i].system, s) &&
            !strcmp(cells[i].metric, m))
            return &cells[i];
    if (!create) return NULL;
    static int cap;
    if (ncells == cap) cells = realloc(cells, (size_t)(cap = cap ? 2 * cap : 256) * sizeof *cells);
    cell *x = &cells[ncells++];
    memset(x, 0, sizeof *x);
    snprintf(x->bench, sizeof x->bench, "%s", b);
    snprintf(x->cas, sizeof x->cas, "%s", c);
    snprintf(x->system, sizeof x->system, "%s", s);
    snprintf(x->metric, sizeof x->metric, "%s", m);
    return x;
}

static int load(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return perror(path), -1;
    char line[1024];
    int ln = 0;
    while (fgets(line, sizeof line, f)) {
        ln++;
        json_error_t e;
        json_t *o = json_loads(line, 0, &e);
        const char *b, *c, *s, *m;
        double v;
        if (!o) fprintf(stderr, "%s:%d: invalid JSON: %s\n", path, ln, e.text);
        else if (json_unpack(o, "{s:s, s:s, s:s, s:s, s:F}", "bench", &b, "case", &c, "system", &s, "metric",
                             &m, "value", &v) == 0) {
            cell *x = cell_of(b, c, s, m, 1);
            if (x->n < MAX_SAMPLES) x->v[x->n++] = v;
            else fprintf(stderr, "%s:%d: more than %d samples of one cell\n", path, ln, MAX_SAMPLES);
        }
        json_decref(o);
    }
    fclose(f);
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static stat stat_of_cell(const cell *x)
{
    stat st = {NAN, NAN, NAN, 0};
    if (!x || !x->n) return st;
    double v[MAX_SAMPLES];
    memcpy(v, x->v, (size_t)x->n * sizeof *v);
    qsort(v, (size_t)x->n, sizeof *v, cmp_double);
    int n = x->n;
    st.med = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    st.lo = v[0], st.hi = v[n - 1], st.n = n;
    return st;
}

static stat stat_of(const char *b, const char *c, const char *s, const char *m)
{
    return stat_of_cell(cell_of(b, c, s, m, 0));
}

static stat constant(double k)
{
    return (stat){k, k, k, 1};
}

static int lower_is_better(const char *metric)
{
    return !strcmp(metric, "metg_us") || !strcmp(metric, "submit_ns") || !strcmp(metric, "e2e_ns") ||
           !strcmp(metric, "peak_rss_mb") || !strcmp(metric, "submit_instr") || !strcmp(metric, "compile_us") ||
           !strcmp(metric, "cached_call_us") || !strcmp(metric, "call_task_us") ||
           !strcmp(metric, "dsl_task_us") || !strcmp(metric, "capi_task_us") || !strcmp(metric, "call_us");
}

/* Metrics that describe the case, not a system's result: no ratio. */
static int context_metric(const char *metric)
{
    return !strcmp(metric, "inputs_mib");
}

/* The peer with the best median, or -1. */
static int best_peer(const char *b, const char *c, const char *m)
{
    int who = -1;
    double best = NAN;
    for (int s = 0; s < NSYS; s++) {
        if (systems[s].role != PEER) continue;
        stat st = stat_of(b, c, systems[s].name, m);
        if (!st.n) continue;
        if (who < 0 || (lower_is_better(m) ? st.med < best : st.med > best)) best = st.med, who = s;
    }
    return who;
}

static double ratio(const char *m, double ours, double peer)
{
    return lower_is_better(m) ? peer / ours : ours / peer;
}

static double spread(stat st)
{
    return st.med != 0 ? (st.hi - st.lo) / fabs(st.med) : 0;
}

/* ---- tables ----------------------------------------------------------------- */

static int in_bench(const char *bench, int s)
{
    for (int i = 0; i < ncells; i++)
        if (!strcmp(cells[i].bench, bench) && !strcmp(cells[i].system, systems[s].name)) return 1;
    return 0;
}

static void table(const char *bench, const char *title)
{
    int shown[NSYS], any = 0;
    for (int s = 0; s < NSYS; s++) any |= shown[s] = in_bench(bench, s);
    if (!any) return;
    int w = 12; /* the case column: as wide as the longest case */
    for (int i = 0; i < ncells; i++)
        if (!strcmp(cells[i].bench, bench) && (int)strlen(cells[i].cas) > w) w = (int)strlen(cells[i].cas);
    printf("\n%s\n%-*s %-14s", title, w, "case", "metric");
    for (int s = 0; s < NSYS; s++)
        if (shown[s]) printf(" %13.13s", systems[s].name);
    printf("  %-16s %s\n", "best peer", "x(>1 ours ahead)");
    for (int i = 0; i < ncells; i++) {
        const cell *x = &cells[i];
        if (strcmp(x->bench, bench) || strcmp(x->system, "ours") || !strncmp(x->metric, "eff_", 4)) continue;
        printf("%-*s %-14s", w, x->cas, x->metric);
        for (int s = 0; s < NSYS; s++) {
            if (!shown[s]) continue;
            stat st = stat_of(bench, x->cas, systems[s].name, x->metric);
            char sp[8];
            if (spread(st) < 9.995) snprintf(sp, sizeof sp, "%.0f%%", 100 * spread(st));
            else snprintf(sp, sizeof sp, ">999%%");
            if (!st.n) printf(" %13s", "-");
            else printf(" %8.3g %4s", st.med, sp);
        }
        int who = context_metric(x->metric) ? -1 : best_peer(bench, x->cas, x->metric);
        if (who < 0) {
            printf("  %-16s %s\n", "-", "-");
            continue;
        }
        stat o = stat_of_cell(x), p = stat_of(bench, x->cas, systems[who].name, x->metric);
        int overlap = o.lo <= p.hi && p.lo <= o.hi;
        printf("  %-16s %.3g%s\n", systems[who].name, ratio(x->metric, o.med, p.med), overlap ? " ~" : "");
    }
}

/* ---- bars ------------------------------------------------------------------- */

typedef enum verdict { V_NONE, V_MET, V_NOISE, V_NOT_MET } verdict;

/* a <= k * b */
static verdict at_most(stat a, double k, stat b)
{
    if (!a.n || !b.n) return V_NONE;
    return a.hi <= k * b.lo ? V_MET : a.lo <= k * b.hi ? V_NOISE : V_NOT_MET;
}

/* a >= k * b */
static verdict at_least(stat a, double k, stat b)
{
    if (!a.n || !b.n) return V_NONE;
    return a.lo >= k * b.hi ? V_MET : a.hi >= k * b.lo ? V_NOISE : V_NOT_MET;
}

static verdict worst(verdict x, verdict y)
{
    return x > y ? x : y;
}

/* Ours against every peer that has the cell, lower or higher is better. */
static verdict against_peers(const char *b, const char *c, const char *m, double k)
{
    verdict v = V_NONE;
    stat o = stat_of(b, c, "ours", m);
    for (int s = 0; s < NSYS; s++)
        if (systems[s].role == PEER) {
            stat p = stat_of(b, c, systems[s].name, m);
            v = worst(v, lower_is_better(m) ? at_most(o, k, p) : at_least(o, k, p));
        }
    return v;
}

static void bar(verdict v, const char *what, const char *measured)
{
    static const char *words[] = {"not measured", "met", "within noise", "NOT MET"};
    printf("  %-14s %s%s%s\n", words[v], what, measured[0] ? ": " : "", measured);
}

/* "2.2 [2.0-2.5]" */
static void show(char *out, size_t len, stat st)
{
    if (!st.n) snprintf(out, len, "-");
    else snprintf(out, len, "%.3g [%.3g-%.3g]", st.med, st.lo, st.hi);
}

/* "ours X; best peer NAME Y" for case c, metric m. */
static void versus_best(char *out, size_t len, const char *b, const char *c, const char *m)
{
    char o[64], p[64];
    int who = best_peer(b, c, m);
    show(o, sizeof o, stat_of(b, c, "ours", m));
    show(p, sizeof p, who < 0 ? (stat){0} : stat_of(b, c, systems[who].name, m));
    snprintf(out, len, "ours %s; best peer %s %s", o, who < 0 ? "-" : systems[who].name, p);
}

static int is_ours_cell(const cell *x, const char *bench, const char *metric)
{
    return !strcmp(x->bench, bench) && !strcmp(x->system, "ours") && !strcmp(x->metric, metric);
}

static void bars_b1(void)
{
    char what[128], got[256];
    for (int i = 0; i < ncells; i++) {
        const cell *x = &cells[i];
        if (!is_ours_cell(x, "B1", "metg_us")) continue;
        snprintf(what, sizeof what, "B1 %s: METG(50%%) below every dynamic-dependency peer", x->cas);
        versus_best(got, sizeof got, "B1", x->cas, "metg_us");
        bar(against_peers("B1", x->cas, "metg_us", 1.0), what, got);
        stat o = stat_of_cell(x), t = stat_of("B1", x->cas, "tbb", "metg_us");
        char a[64], f[64];
        show(a, sizeof a, o), show(f, sizeof f, t);
        snprintf(what, sizeof what, "B1 %s: stretch, at or below the TBB static-graph floor", x->cas);
        snprintf(got, sizeof got, "ours %s; tbb %s", a, f);
        bar(at_most(o, 1.0, t), what, got);
    }
}

static void bars_b2(void)
{
    char what[128], got[256], a[64], p[64];
    static const struct {
        const char *cas;
        double ns;
    } absolute[] = {{"deps0", 100}, {"deps3", 150}};
    /* the same bars for the C API (B2) and for B2's graphs from a compiled program (B2c) */
    static const char *const benches[][2] = {{"B2", "B2"}, {"B2c", "B2 trusted"}};
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < 2; i++) {
            stat o = stat_of(benches[k][0], absolute[i].cas, "ours", "submit_ns");
            show(a, sizeof a, o);
            snprintf(what, sizeof what, "%s %s: submit <= %.0f ns/task", benches[k][1], absolute[i].cas, absolute[i].ns);
            snprintf(got, sizeof got, "ours %s ns", a);
            bar(at_most(o, 1.0, constant(absolute[i].ns)), what, o.n ? got : "");
        }
    for (int i = 0; i < ncells; i++) {
        const cell *x = &cells[i];
        if (!is_ours_cell(x, "B2", "submit_ns")) continue;
        stat o = stat_of_cell(x), sp = stat_of("B2", x->cas, "starpu", "submit_ns");
        show(a, sizeof a, o), show(p, sizeof p, sp);
        snprintf(what, sizeof what, "B2 %s: submit >= 5x below StarPU", x->cas);
        snprintf(got, sizeof got, "ours %s; starpu %s ns", a, p);
        bar(at_most(o, 0.2, sp), what, got);
        stat l1 = stat_of("B2", x->cas, "omp-clang", "submit_ns");
        stat l2 = stat_of("B2", x->cas, "omp-clang-active", "submit_ns");
        char q[64];
        show(p, sizeof p, l1), show(q, sizeof q, l2);
        snprintf(what, sizeof what, "B2 %s: submit below libomp (default and active)", x->cas);
        snprintf(got, sizeof got, "ours %s; omp-clang %s; omp-clang-active %s ns", a, p, q);
        bar(worst(at_most(o, 1.0, l1), at_most(o, 1.0, l2)), what, got);
    }
}

static void bars_b2t(void)
{
    char what[128], got[256], a[64], b[64], small[32], large[32];
    static const char *shapes[] = {"slices", "rows", "cols"};
    for (int i = 0; i < 3; i++) {
        snprintf(small, sizeof small, "%s_s64", shapes[i]);
        snprintf(large, sizeof large, "%s_s8192", shapes[i]);
        stat s = stat_of("B2t", small, "ours", "submit_ns"), l = stat_of("B2t", large, "ours", "submit_ns");
        show(a, sizeof a, l), show(b, sizeof b, s);
        snprintf(what, sizeof what, "B2t %s: submit per task in scopes of 8192 <= 1.5x in scopes of 64",
                 shapes[i]);
        snprintf(got, sizeof got, "%s ns vs %s ns (x%.2f)", a, b, l.med / s.med);
        bar(at_most(l, 1.5, s), what, l.n && s.n ? got : "");
        /* the same in instructions (callgrind): no machine noise */
        s = stat_of("B2t", small, "ours", "submit_instr"), l = stat_of("B2t", large, "ours", "submit_instr");
        snprintf(what, sizeof what, "B2t %s: instructions per submit in scopes of 8192 <= 1.5x in scopes of 64",
                 shapes[i]);
        snprintf(got, sizeof got, "%.0f vs %.0f (x%.2f)", l.med, s.med, l.med / s.med);
        bar(at_most(l, 1.5, s), what, l.n && s.n ? got : "");
    }
}

static void bars_b3(void)
{
    char what[128], got[256], a[64], t[64];
    stat triad = stat_of("B0", "triad_dram", "machine", "gbps_2t"); /* best runs, one per repetition */
    double llc = stat_of("B0", "llc", "machine", "mib").med;
    for (int i = 0; i < ncells; i++) {
        const cell *x = &cells[i];
        if (!is_ours_cell(x, "B3", "gbps")) continue;
        stat o = stat_of_cell(x);
        if (strstr(x->cas, "_t256")) {
            double in = stat_of("B3", x->cas, "ours", "inputs_mib").med;
            show(a, sizeof a, o), show(t, sizeof t, triad);
            snprintf(what, sizeof what, "B3 %s: >= 80%% of B0 DRAM triad (2 threads)", x->cas);
            snprintf(got, sizeof got, "ours %s GB/s; triad %s GB/s; inputs %.0f MiB = %.1fx LLC", a, t, in,
                     in / llc);
            bar(at_least(o, 0.8, triad), what, got);
        } else if (strstr(x->cas, "_t64")) {
            snprintf(what, sizeof what, "B3 %s: ahead of both peers (OpenMP, StarPU)", x->cas);
            versus_best(got, sizeof got, "B3", x->cas, "gbps");
            bar(against_peers("B3", x->cas, "gbps", 1.0), what, got);
        }
    }
}

static void bars_b4(void)
{
    char what[128], got[256];
    for (int i = 0; i < ncells; i++) {
        const cell *x = &cells[i];
        if (!is_ours_cell(x, "B4", "gflops")) continue;
        int b = atoi(strstr(x->cas, "_b") ? strstr(x->cas, "_b") + 2 : "0");
        versus_best(got, sizeof got, "B4", x->cas, "gflops");
        if (b >= 256) {
            snprintf(what, sizeof what, "B4 %s: within 5%% of the best", x->cas);
            bar(against_peers("B4", x->cas, "gflops", 0.95), what, got);
        } else if (b <= 64) {
            snprintf(what, sizeof what, "B4 %s: ahead of every peer", x->cas);
            bar(against_peers("B4", x->cas, "gflops", 1.0), what, got);
        }
    }
}

/* C1: every seed example compiles in < 5 ms of CPU; pl.unroll's compile
 * time is linear in its copies: 4,096 copies cost at most 4.096 x 1.5 of
 * 1,000 (bench/programs/unroll.py). */
static void bars_c1(void)
{
    char what[128], got[192], a[64], b[64];
    stat u1 = stat_of("C1", "unroll_1000", "ours", "compile_us"), u4 = stat_of("C1", "unroll_4096", "ours", "compile_us");
    show(a, sizeof a, u4), show(b, sizeof b, u1);
    snprintf(got, sizeof got, "ours %s us at 4096, %s us at 1000", a, b);
    bar(at_most(u4, 4.096 * 1.5, u1), "C1 pl.unroll: compile time linear in the copies (4096 <= 1.5 x 4.096 x 1000)", got);
    for (int i = 0; i < ncells; i++) {
        const cell *x = &cells[i];
        if (!is_ours_cell(x, "C1", "compile_us") || !strncmp(x->cas, "unroll_", 7)) continue;
        stat o = stat_of_cell(x);
        show(a, sizeof a, o);
        snprintf(what, sizeof what, "C1 %s: compile < 5 ms of CPU time", x->cas);
        snprintf(got, sizeof got, "ours %s us", a);
        bar(at_most(o, 1.0, constant(5000)), what, got);
    }
}

/* B5 at the largest size run (case rROWS_cCOLS): >= 1.5x torch eager and
 * >= 70% of the B0 DRAM triad on 2 threads. */
static void bars_b5(void)
{
    char what[160], got[256], a[64], p[64], t[64];
    const cell *big = NULL;
    double elems = 0;
    for (int i = 0; i < ncells; i++) {
        const cell *x = &cells[i];
        int r, c;
        if (!is_ours_cell(x, "B5", "gbps") || sscanf(x->cas, "r%d_c%d", &r, &c) != 2) continue;
        if ((double)r * c > elems) elems = (double)r * c, big = x;
    }
    const char *cas = big ? big->cas : "-";
    stat o = big ? stat_of_cell(big) : (stat){0}, torch = stat_of("B5", cas, "torch", "gbps");
    stat triad = stat_of("B0", "triad_dram", "machine", "gbps_2t"), loop = stat_of("B5", cas, "c-loop", "gbps");
    show(a, sizeof a, o), show(p, sizeof p, torch), show(t, sizeof t, triad);
    snprintf(what, sizeof what, "B5 %s (largest size): >= 1.5x torch eager", cas);
    snprintf(got, sizeof got, "ours %s; torch %s GB/s (x%.2f)", a, p, o.med / torch.med);
    bar(at_least(o, 1.5, torch), what, o.n && torch.n ? got : "");
    snprintf(what, sizeof what, "B5 %s (largest size): >= 70%% of B0 DRAM triad (2 threads)", cas);
    snprintf(got, sizeof got, "ours %s; triad %s GB/s (%.0f%%); C loop, 1 thread, %.3g GB/s", a, t,
             100 * o.med / triad.med, loop.med);
    bar(at_least(o, 0.7, triad), what, o.n && triad.n ? got : "");
}

static void bars_b6(void)
{
    char what[160], got[256], a[64], b[64];
    for (int i = 0; i < ncells; i++) {
        const cell *x = &cells[i];
        if (!is_ours_cell(x, "B6", "dsl_task_us")) continue;
        stat d = stat_of_cell(x), c = stat_of("B6", x->cas, "ours", "capi_task_us");
        show(a, sizeof a, d), show(b, sizeof b, c);
        snprintf(what, sizeof what, "B6 %s: DSL per task <= 2x the C API (same bands, same runtime)", x->cas);
        snprintf(got, sizeof got, "dsl %s us; C API %s us (x%.2f)", a, b, d.med / c.med);
        bar(at_most(d, 2.0, c), what, c.n ? got : "");
    }
    for (int i = 0; i < ncells; i++) {
        const cell *x = &cells[i];
        if (!is_ours_cell(x, "B6", "cached_call_us")) continue;
        stat call = stat_of_cell(x), task = stat_of("B6", x->cas, "ours", "call_task_us");
        stat limit = {task.med + 20, task.lo + 20, task.hi + 20, task.n};
        show(a, sizeof a, call), show(b, sizeof b, task);
        snprintf(what, sizeof what, "B6 %s: cached call <= 20 us + its task", x->cas);
        snprintf(got, sizeof got, "call %s us; the task (tile VM) %s us", a, b);
        bar(at_most(call, 1.0, limit), what, task.n ? got : "");
    }
    for (int i = 0; i < ncells; i++) { /* runtime perf III step 4: n blocks, one submit */
        const cell *x = &cells[i];
        if (!is_ours_cell(x, "B6", "spmd_call_us")) continue;
        stat sp = stat_of_cell(x), at = stat_of("B6", x->cas, "ours", "at_call_us");
        show(a, sizeof a, sp), show(b, sizeof b, at);
        snprintf(what, sizeof what, "B6 %s: one pl.spmd task of N blocks <= 0.5x N pl.at tasks (one submit, not N)",
                 x->cas);
        snprintf(got, sizeof got, "spmd %s us; pl.at %s us", a, b);
        bar(at_most(sp, 0.5, at), what, at.n ? got : "");
    }
    for (int i = 0; i < ncells; i++) {
        const cell *x = &cells[i];
        if (!is_ours_cell(x, "B6", "peak_rss_mb")) continue;
        stat o = stat_of_cell(x);
        show(a, sizeof a, o);
        snprintf(what, sizeof what, "B6 %s: peak RSS <= 64 MiB with the sized config (1.15 GiB of rings)", x->cas);
        snprintf(got, sizeof got, "%s MiB", a);
        bar(at_most(o, 1.0, constant(64)), what, got);
    }
}

/* The product of a case's numbers ("ffn_r1024_c1024_h1024": 1024^3). */
static double case_size(const char *cas)
{
    double p = 1;
    for (const char *c = cas; *c; c++)
        if (*c >= '0' && *c <= '9' && (c == cas || c[-1] < '0' || c[-1] > '9')) p *= atof(c);
    return p;
}

/* B7 at each kernel's largest size run: softmax and RMSNorm >= 1.5x torch
 * eager and >= 50% of B0's DRAM triad (2 threads), FFN and attention
 * >= 0.9x torch eager and >= 50% of twice B0's single-core sgemm rate;
 * every kernel's first-call compile <= 5 ms (CPU time of pto_compile). */
static void bars_b7(void)
{
    static const char *const kernels[] = {"softmax", "rmsnorm", "ffn", "attention"};
    char what[160], got[256], a[64], p[64], m[64];
    stat triad = stat_of("B0", "triad_dram", "machine", "gbps_2t");
    stat sgemm2 = stat_of("B0", "sgemm_b256", "machine", "gflops_1core");
    sgemm2.med *= 2, sgemm2.lo *= 2, sgemm2.hi *= 2;
    for (int k = 0; k < 4; k++) {
        int bw = k < 2;
        const char *rate = bw ? "gbps" : "gflops";
        const cell *big = NULL;
        size_t len = strlen(kernels[k]);
        for (int i = 0; i < ncells; i++) {
            const cell *x = &cells[i];
            if (is_ours_cell(x, "B7", rate) && !strncmp(x->cas, kernels[k], len) && x->cas[len] == '_' &&
                (!big || case_size(x->cas) > case_size(big->cas)))
                big = x;
        }
        if (!big) continue;
        stat o = stat_of_cell(big), torch = stat_of("B7", big->cas, "torch", rate), mach = bw ? triad : sgemm2;
        show(a, sizeof a, o), show(p, sizeof p, torch), show(m, sizeof m, mach);
        snprintf(what, sizeof what, "B7 %s (largest size): >= %sx torch eager", big->cas, bw ? "1.5" : "0.9");
        snprintf(got, sizeof got, "ours %s; torch %s %s (x%.2f)", a, p, bw ? "GB/s" : "GFLOP/s", o.med / torch.med);
        bar(at_least(o, bw ? 1.5 : 0.9, torch), what, o.n && torch.n ? got : "");
        snprintf(what, sizeof what, "B7 %s (largest size): >= 50%% of %s", big->cas,
                 bw ? "B0 DRAM triad (2 threads)" : "twice B0's 1-core sgemm");
        snprintf(got, sizeof got, "ours %s; %s %s (%.0f%%)", a, bw ? "triad" : "2 x sgemm", m, 100 * o.med / mach.med);
        bar(at_least(o, 0.5, mach), what, o.n && mach.n ? got : "");
    }
    const cell *slow = NULL;
    for (int i = 0; i < ncells; i++)
        if (is_ours_cell(&cells[i], "B7", "compile_us") &&
            (!slow || stat_of_cell(&cells[i]).hi > stat_of_cell(slow).hi))
            slow = &cells[i];
    if (!slow) return;
    stat o = stat_of_cell(slow);
    show(a, sizeof a, o);
    snprintf(what, sizeof what, "B7 first-call compile of every kernel <= 5 ms");
    snprintf(got, sizeof got, "slowest %s: %s us (max %.0f)", slow->cas, a, o.hi);
    bar(at_most(o, 1.0, constant(5000)), what, got);
}

static void bars(void)
{
    printf("\nBars (the protocol's; met / NOT MET / within noise: the spreads overlap)\n");
    bars_b1();
    bars_b2();
    bars_b2t();
    bars_b3();
    bars_b4();
    bars_c1();
    bars_b5();
    bars_b6();
    bars_b7();
}

/* ---- header ----------------------------------------------------------------- */

/* Prints the config of `which` ("machine", "run") or, with NULL, every
 * runtime's. */
static void configs(const char *path, const char *which, const char *label)
{
    FILE *f = fopen(path, "r");
    char line[2048];
    while (f && fgets(line, sizeof line, f)) {
        json_t *o = json_loads(line, 0, NULL);
        const char *s, *c;
        if (o && json_unpack(o, "{s:s, s:s}", "system", &s, "config", &c) == 0) {
            int special = !strcmp(s, "machine") || !strcmp(s, "run");
            if (which && !strcmp(s, which)) printf("%s%s\n", label, c);
            else if (!which && !special) printf("%s%-17s %s\n", label, s, c);
        }
        json_decref(o);
    }
    if (f) fclose(f);
}

/* "15.0 [14.1-16.2] (worst run 9.8)": the best run of each repetition's
 * calibration, as a cell, and the worst single run of all. */
static void b0_triad(const char *cas, const char *threads)
{
    char m[32];
    snprintf(m, sizeof m, "gbps_%s", threads);
    stat best = stat_of("B0", cas, "machine", m);
    snprintf(m, sizeof m, "gbps_%s_worst", threads);
    printf("%.1f [%.1f-%.1f] (worst run %.1f)", best.med, best.lo, best.hi, stat_of("B0", cas, "machine", m).lo);
}

static void header(const char *cfg)
{
    configs(cfg, "machine", "Machine: ");
    configs(cfg, "run", "Run:     ");
    printf("B0:      triad GB/s, best of 7 runs per repetition, 1 / 2 threads: DRAM (3 x 64 MiB) ");
    b0_triad("triad_dram", "1t");
    printf(" / ");
    b0_triad("triad_dram", "2t");
    printf("; cache-resident (3 x 32 KiB) ");
    b0_triad("triad_cache", "1t");
    printf(" / ");
    b0_triad("triad_cache", "2t");
    printf("\n         core-to-core round trip %.0f ns; futex wake-up %.1f us; kernel %.3f ns/iter; "
           "sgemm %.1f GFLOP/s on 1 core\n",
           stat_of("B0", "core_to_core", "machine", "round_trip_ns").med,
           stat_of("B0", "wake_up", "machine", "futex_wake_us").med,
           stat_of("B0", "kernel", "machine", "ns_per_iter").med,
           stat_of("B0", "sgemm_b256", "machine", "gflops_1core").med);
    printf("Runtimes (2 cores in total for each):\n");
    configs(cfg, NULL, "  ");
}

static int write_json(const char *path)
{
    json_t *out = json_array();
    for (int i = 0; i < ncells; i++) {
        stat st = stat_of_cell(&cells[i]);
        json_array_append_new(out, json_pack("{s:s, s:s, s:s, s:s, s:f, s:f, s:f, s:i}", "bench",
                                             cells[i].bench, "case", cells[i].cas, "system", cells[i].system,
                                             "metric", cells[i].metric, "value", st.med, "min", st.lo, "max",
                                             st.hi, "runs", st.n));
    }
    int rc = json_dump_file(out, path, JSON_INDENT(1)) ? 1 : 0;
    json_decref(out);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: bench_report ROWS.jsonl CONFIGS.jsonl OUT.json\n");
        return 2;
    }
    if (load(argv[1])) return 1;
    header(argv[2]);
    printf("\nEach cell: median of the runs, then their spread (max - min) / median.  x: ours vs the "
           "best peer's median,\n\"~\" = the two spreads overlap (within noise).  ours-sized and "
           "ours-create-tensor are extra rows, neither ours nor a peer.\n");
    table("B1", "B1 METG(50%), us (lower is better; tbb = static-graph floor, not counted as a peer)");
    table("B2", "B2 submit cost, ns per task (submit_ns: orchestrator only; e2e_ns: until all done)");
    table("B2c", "B2 trusted: B2's graphs from a compiled program, ns per task (ours: the executor's trusted "
                 "submit; ours-checked: through pto_task_submit_if)");
    table("B2t", "B2t tiles of one tensor: independent tasks on disjoint tiles, ns per task "
                 "(case: shape_sSCOPE-SIZE)");
    table("B3", "B3 tile pipeline (GB/s; peak RSS MiB; inputs_mib: the A/B tiles streamed)");
    table("B4", "B4 tiled Cholesky, GFLOP/s");
    table("B5", "B5 the seed's scaled (out = a * 2 + 1, FP32) through the DSL, GB/s (2 x rows x cols x 4 "
                "bytes per run; c-loop: one thread, the bandwidth reference, not a peer)");
    table("B6", "B6 DSL costs, us per task or per call (cached_call_us / call_task_us: one run of 1 "
                "task; dsl/capi_task_us: N bands), peak RSS MiB");
    table("B7", "B7 four FP32 kernels in the DSL (upstream's examples' style): us per cached call, GB/s "
                "(tensor read + written once) or GFLOP/s (matmuls), first-call compile us");
    table("C1", "C1 DSL compile of the seed examples and of pl.unroll programs, CPU microseconds per compile (every stage)");
    bars();
    int rc = write_json(argv[3]);
    free(cells);
    printf("\ncells: %s\n", argv[3]);
    return rc;
}
