/*
 * report.c - turns the rows of one benchmark run into the table people read:
 * the B0 header, each runtime's configuration, one line per (benchmark,
 * case, metric) with every system side by side, the best peer, the ratio,
 * and the bars of BENCHMARKS.md.  Writes all rows to latest.json.
 *
 *   bench_report ROWS.jsonl CONFIGS.jsonl OUT.json
 *
 * Ratios always read "> 1 = ours ahead": peer / ours for costs (times,
 * memory), ours / peer for rates (GB/s, GFLOP/s).
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct row {
    char bench[8], cas[32], system[32], metric[32];
    double value;
} row;

static row *rows;
static int nrows;

static const char *systems[] = {"ours", "omp-gcc", "omp-clang", "omp-clang-active", "starpu", "tbb", "lapacke-mt"};
enum { NSYS = sizeof systems / sizeof systems[0] };

static int load(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return perror(path), -1;
    char line[1024];
    int cap = 0, ln = 0;
    while (fgets(line, sizeof line, f)) {
        ln++;
        json_error_t e;
        json_t *o = json_loads(line, 0, &e);
        if (!o) {
            fprintf(stderr, "%s:%d: invalid JSON: %s\n", path, ln, e.text);
            continue;
        }
        const char *b, *c, *s, *m;
        double v;
        if (json_unpack(o, "{s:s, s:s, s:s, s:s, s:F}", "bench", &b, "case", &c, "system", &s, "metric", &m,
                        "value", &v) == 0) {
            if (nrows == cap) rows = realloc(rows, (size_t)(cap = cap ? 2 * cap : 256) * sizeof *rows);
            row *r = &rows[nrows++];
            snprintf(r->bench, sizeof r->bench, "%s", b);
            snprintf(r->cas, sizeof r->cas, "%s", c);
            snprintf(r->system, sizeof r->system, "%s", s);
            snprintf(r->metric, sizeof r->metric, "%s", m);
            r->value = v;
        }
        json_decref(o);
    }
    fclose(f);
    return 0;
}

static const row *find(const char *b, const char *c, const char *s, const char *m)
{
    for (int i = 0; i < nrows; i++)
        if (!strcmp(rows[i].bench, b) && !strcmp(rows[i].cas, c) && !strcmp(rows[i].system, s) &&
            !strcmp(rows[i].metric, m))
            return &rows[i];
    return NULL;
}

static double value(const char *b, const char *c, const char *s, const char *m)
{
    const row *r = find(b, c, s, m);
    return r ? r->value : NAN;
}

static int lower_is_better(const char *metric)
{
    return !strcmp(metric, "metg_us") || !strcmp(metric, "submit_ns") || !strcmp(metric, "e2e_ns") ||
           !strcmp(metric, "peak_rss_mb");
}

/* The best value among peers (the TBB static graph is a floor, not a peer). */
static double best_peer(const char *b, const char *c, const char *m, const char **who)
{
    double best = NAN;
    *who = "-";
    for (int s = 1; s < NSYS; s++) {
        if (!strcmp(systems[s], "tbb")) continue;
        double v = value(b, c, systems[s], m);
        if (isnan(v)) continue;
        if (isnan(best) || (lower_is_better(m) ? v < best : v > best)) best = v, *who = systems[s];
    }
    return best;
}

static double ratio(const char *m, double ours, double peer)
{
    return lower_is_better(m) ? peer / ours : ours / peer;
}

static void table(const char *bench, const char *title)
{
    printf("\n%s\n%-14s %-11s", title, "case", "metric");
    for (int s = 0; s < NSYS; s++) printf(" %10.10s", systems[s]);
    printf("  %-16s %s\n", "best peer", "x(>1 ours ahead)");
    for (int i = 0; i < nrows; i++) {
        const row *r = &rows[i];
        if (strcmp(r->bench, bench) || strcmp(r->system, "ours") || !strncmp(r->metric, "eff_", 4)) continue;
        printf("%-14s %-11s", r->cas, r->metric);
        for (int s = 0; s < NSYS; s++) {
            double v = value(bench, r->cas, systems[s], r->metric);
            if (isnan(v)) printf(" %10s", "-");
            else printf(" %10.3g", v);
        }
        const char *who;
        double best = best_peer(bench, r->cas, r->metric, &who);
        if (isnan(best)) printf("  %-16s %s\n", "-", "-");
        else printf("  %-16s %.2f\n", who, ratio(r->metric, r->value, best));
    }
}

static void bar(const char *what, int met)
{
    printf("  [%s] %s\n", met ? "met" : "NOT MET", what);
}

static void bars(void)
{
    printf("\nBars (BENCHMARKS.md)\n");
    const char *who;
    int all = 1, any = 0;
    for (int i = 0; i < nrows; i++) {
        const row *r = &rows[i];
        if (strcmp(r->bench, "B1") || strcmp(r->system, "ours") || strcmp(r->metric, "metg_us")) continue;
        double best = best_peer("B1", r->cas, "metg_us", &who);
        any = 1;
        if (!isnan(best) && r->value >= best) all = 0;
    }
    if (any) bar("B1: METG(50%) below every dynamic-dependency peer on every pattern", all);
    double s3 = value("B2", "deps3", "ours", "submit_ns");
    if (!isnan(s3)) {
        bar("B2: submit <= 150 ns/task with 3 deps", s3 <= 150);
        double sp = value("B2", "deps3", "starpu", "submit_ns");
        if (!isnan(sp)) bar("B2: >= 5x below StarPU", sp / s3 >= 5);
        double l1 = value("B2", "deps3", "omp-clang", "submit_ns"), l2 = value("B2", "deps3", "omp-clang-active", "submit_ns");
        if (!isnan(l1)) bar("B2: below libomp", s3 < l1 && (isnan(l2) || s3 < l2));
    }
    double triad = value("B0", "triad_dram", "machine", "gbps_2t");
    for (int i = 0; i < nrows; i++) {
        const row *r = &rows[i];
        if (strcmp(r->bench, "B3") || strcmp(r->system, "ours") || strcmp(r->metric, "gbps")) continue;
        char what[128];
        if (strstr(r->cas, "_t256")) {
            snprintf(what, sizeof what, "B3 %s: >= 80%% of B0 DRAM triad (%.1f of %.1f GB/s)", r->cas, r->value, triad);
            bar(what, r->value >= 0.8 * triad);
        } else {
            double best = best_peer("B3", r->cas, "gbps", &who);
            snprintf(what, sizeof what, "B3 %s: ahead of both peers", r->cas);
            if (!isnan(best)) bar(what, r->value > best);
        }
    }
    for (int i = 0; i < nrows; i++) {
        const row *r = &rows[i];
        if (strcmp(r->bench, "B4") || strcmp(r->system, "ours")) continue;
        double best = best_peer("B4", r->cas, "gflops", &who);
        if (isnan(best)) continue;
        char what[128];
        int b = atoi(strstr(r->cas, "_b") + 2);
        if (b >= 256) snprintf(what, sizeof what, "B4 %s: within 5%% of the best (%s)", r->cas, who), bar(what, r->value >= 0.95 * best);
        else if (b <= 64) snprintf(what, sizeof what, "B4 %s: ahead of every peer", r->cas), bar(what, r->value > best);
    }
}

static void header(const char *configs)
{
    printf("Machine (B0): triad DRAM %.1f GB/s (1 thread) / %.1f GB/s (2 threads); cache-resident %.1f / %.1f GB/s\n",
           value("B0", "triad_dram", "machine", "gbps_1t"), value("B0", "triad_dram", "machine", "gbps_2t"),
           value("B0", "triad_cache", "machine", "gbps_1t"), value("B0", "triad_cache", "machine", "gbps_2t"));
    printf("              core-to-core round trip %.0f ns; futex wake-up %.1f us; kernel %.3f ns/iter; sgemm %.1f GFLOP/s on 1 core\n",
           value("B0", "core_to_core", "machine", "round_trip_ns"), value("B0", "wake_up", "machine", "futex_wake_us"),
           value("B0", "kernel", "machine", "ns_per_iter"), value("B0", "sgemm_b256", "machine", "gflops_1core"));
    FILE *f = fopen(configs, "r");
    char line[1024];
    printf("Runtimes (2 cores in total for each):\n");
    while (f && fgets(line, sizeof line, f)) {
        json_t *o = json_loads(line, 0, NULL);
        const char *s, *c;
        if (o && json_unpack(o, "{s:s, s:s}", "system", &s, "config", &c) == 0) printf("  %-17s %s\n", s, c);
        json_decref(o);
    }
    if (f) fclose(f);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: bench_report ROWS.jsonl CONFIGS.jsonl OUT.json\n");
        return 2;
    }
    if (load(argv[1])) return 1;
    header(argv[2]);
    table("B1", "B1 METG(50%), us (lower is better; tbb = static-graph floor, not counted as a peer)");
    table("B2", "B2 submit cost, ns per task (submit_ns: orchestrator only; e2e_ns: until all done)");
    table("B3", "B3 tile pipeline through the ring allocator (GB/s; peak RSS MiB)");
    table("B4", "B4 tiled Cholesky, GFLOP/s");
    bars();
    json_t *out = json_array();
    for (int i = 0; i < nrows; i++)
        json_array_append_new(out, json_pack("{s:s, s:s, s:s, s:s, s:f}", "bench", rows[i].bench, "case",
                                             rows[i].cas, "system", rows[i].system, "metric",
                                             rows[i].metric, "value", rows[i].value));
    int rc = json_dump_file(out, argv[3], JSON_INDENT(1)) ? 1 : 0;
    json_decref(out);
    free(rows);
    printf("\nrows: %s\n", argv[3]);
    return rc;
}
