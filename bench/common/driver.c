/*
 * driver.c - main() of every benchmark driver: parses one benchmark request,
 * runs it on this process's system (bench_sys), checks every result
 * against the sequential reference, and prints result rows.
 *
 *   bench_<system> b1 PATTERN WIDTH [quick]   PATTERN: stencil, nearest3, nearest5, trivial
 *   bench_<system> b2 N DEPS
 *   bench_<system> b2t SHAPE SCOPE TOTAL      SHAPE: slices, rows, cols
 *   bench_<system> b3 STREAMS TILE STEPS INPUTS
 *   bench_<system> b4 N TILE
 *   bench_<system> info                       (its configuration, as JSON)
 *
 * One invocation gives one sample per row: a verified warm-up run (the
 * first call pays for thread start, page faults and lazily built state, in
 * every system alike), then one verified timed run.  Repetitions are
 * separate invocations, interleaved with the other systems' by run.sh, so
 * the spread of a cell covers the machine's drift, not one quiet moment.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#ifndef BENCH_OPT
#define BENCH_OPT "?"
#endif

/* The row "system" value: BENCH_SYSTEM_NAME overrides, e.g. for one binary
 * run under two wait policies. */
static const char *sysname;

static int usage(void)
{
    fprintf(stderr, "usage: %s b1 stencil|nearest3|nearest5|trivial WIDTH [quick] | b2 N DEPS | "
                    "b2t slices|rows|cols SCOPE TOTAL | b3 STREAMS TILE STEPS INPUTS | b4 N TILE | info\n",
            bench_sys.name);
    return 2;
}

static void check(int rc, const char *what)
{
    if (rc) {
        fprintf(stderr, "bench: %s: %s failed (%d)\n", sysname, what, rc);
        exit(3);
    }
}

/* One verified B1 run; returns its wall seconds. */
static double b1_run(const tb_graph *g)
{
    double *data = tb_alloc(g), secs;
    check(bench_sys.run_graph(g, data, &secs), "run_graph");
    if (tb_verify(g, data)) bench_fail(sysname, "B1 graph result differs from serial");
    free(data);
    return secs;
}

/* Efficiency sweep from 256 us down to 0.25 us grains.  METG(50%) is
 * wall x cores / tasks where efficiency crosses 50% (log-linear in grain),
 * at the LAST point still at or above 50%: a noisy dip at a large grain does
 * not end the sweep early.  The warm-up is the first point, run once. */
static int b1(const char *pattern, int width, int quick)
{
    tb_graph g = {TB_STENCIL, width, 0, 3, 0};
    if (!strcmp(pattern, "trivial")) g.pattern = TB_TRIVIAL;
    else if (!strncmp(pattern, "nearest", 7)) g.pattern = TB_NEAREST, g.radix = atoi(pattern + 7);
    else if (strcmp(pattern, "stencil")) return usage();
    char cas[64];
    if (g.pattern == TB_NEAREST) snprintf(cas, sizeof cas, "nearest_r%d", g.radix);
    else snprintf(cas, sizeof cas, "%s_w%d", pattern, width);

    enum { POINTS = 11 };
    double grain_s[POINTS], eff[POINTS], target = quick ? 0.03 : 0.08;
    int n = 0;
    for (double grain = 256000; grain >= 250 && n < POINTS; grain /= 2, n++) {
        g.iters = bench_iters_for_ns(grain);
        grain_s[n] = (double)g.iters * bench_ns_per_iter() * 1e-9;
        int steps = (int)(target * BENCH_CORES / (width * grain_s[n]));
        g.steps = steps < 20 ? 20 : steps > 2000 ? 2000 : steps;
        if (n == 0) b1_run(&g);
        eff[n] = (double)tb_tasks(&g) * grain_s[n] / (b1_run(&g) * BENCH_CORES);
        char metric[32];
        snprintf(metric, sizeof metric, "eff_g%.0f", grain);
        bench_row("B1", cas, sysname, metric, eff[n]);
        if (n >= 2 && eff[n] < 0.25 && eff[n - 1] < 0.25) { n++; break; } /* far past it */
    }
    int last = -1;
    for (int i = 0; i < n; i++)
        if (eff[i] >= 0.5) last = i;
    double metg;
    if (last < 0) metg = grain_s[0] / eff[0];                  /* never efficient: a lower bound */
    else if (last == n - 1) metg = grain_s[last] / eff[last];  /* never crossed: an upper bound */
    else {
        double f = (eff[last] - 0.5) / (eff[last] - eff[last + 1]);
        metg = exp(log(grain_s[last]) + f * (log(grain_s[last + 1]) - log(grain_s[last]))) / 0.5;
    }
    bench_row("B1", cas, sysname, "metg_us", metg * 1e6);
    return 0;
}

static int b2(int n, int deps)
{
    double sub = 0, tot = 0;
    for (int r = 0; r < 2; r++) { /* warm-up, then the timed run */
        double *cells = b2_alloc(n);
        check(bench_sys.submit_cost(cells, n, deps, &sub, &tot), "submit_cost");
        if (b2_verify(cells, n, deps)) bench_fail(sysname, "B2 cells differ from serial");
        free(cells);
    }
    char cas[32];
    snprintf(cas, sizeof cas, "deps%d", deps);
    bench_row("B2", cas, sysname, "submit_ns", sub / n * 1e9);
    bench_row("B2", cas, sysname, "e2e_ns", tot / n * 1e9);
    return 0;
}

static int b2t(const char *shape, int scope, int total)
{
    b2t_spec p = {B2T_SLICES, scope, 0};
    while (p.shape <= B2T_COLS && strcmp(shape, b2t_shape_name(p.shape))) p.shape++;
    if (p.shape > B2T_COLS || scope < 1 || scope > B2T_POOL) return usage();
    p.scopes = (total + scope / 2) / scope;
    if (p.scopes < 3) p.scopes = 3;
    long tasks = (long)p.scopes * scope;
    float *base = b2t_alloc(p.shape);
    double sub = 0, tot = 0;
    b2t_ran();
    /* warm-up: one scope (all a scope's tasks are fresh, as in every run),
     * then the timed run */
    b2t_spec warm = p;
    warm.scopes = 1;
    check(bench_sys.tiles(&warm, base, &sub, &tot), "tiles");
    if (b2t_ran() != scope) bench_fail(sysname, "B2t: not every task ran exactly once");
    check(bench_sys.tiles(&p, base, &sub, &tot), "tiles");
    if (b2t_ran() != tasks) bench_fail(sysname, "B2t: not every task ran exactly once");
    free(base);
    char cas[32];
    snprintf(cas, sizeof cas, "%s_s%d", b2t_shape_name(p.shape), scope);
    bench_row("B2t", cas, sysname, "submit_ns", sub / (double)tasks * 1e9);
    bench_row("B2t", cas, sysname, "e2e_ns", tot / (double)tasks * 1e9);
    return 0;
}

static int b3(int streams, int tile, int steps, int inputs)
{
    b3_spec p = {streams, steps, tile, inputs};
    b3_data d;
    b3_alloc(&p, &d);
    double secs = 0;
    for (int r = 0; r < 2; r++) { /* warm-up, then the timed run */
        b3_reset(&p, &d);
        check(bench_sys.pipeline(&p, &d, &secs), "pipeline");
        if (b3_verify(&p, &d)) bench_fail(sysname, "B3 stream state differs from serial");
    }
    char cas[32];
    snprintf(cas, sizeof cas, "k%d_t%d", streams, tile);
    bench_row("B3", cas, sysname, "gbps", b3_bytes(&p) / secs / 1e9);
    bench_row("B3", cas, sysname, "peak_rss_mb", bench_peak_rss_kb() / 1024.0);
    bench_row("B3", cas, sysname, "inputs_mib", b3_input_bytes(&p) / (1 << 20));
    b3_free(&p, &d);
    return 0;
}

static int b4(int n, int tile)
{
    b4_matrix m;
    b4_alloc(&m, n, tile);
    double secs = 0;
    for (int r = 0; r < 2; r++) { /* warm-up, then the timed run */
        b4_fill(&m);
        check(bench_sys.cholesky(&m, &secs), "cholesky");
        if (b4_verify(&m)) bench_fail(sysname, "B4 factor differs from the serial LAPACKE_spotrf");
    }
    b4_free(&m);
    char cas[32];
    snprintf(cas, sizeof cas, "n%d_b%d", n, tile);
    bench_row("B4", cas, sysname, "gflops", b4_flops(n) / secs / 1e9);
    return 0;
}

int main(int argc, char **argv)
{
    sysname = getenv("BENCH_SYSTEM_NAME") ? getenv("BENCH_SYSTEM_NAME") : bench_sys.name;
    if (argc < 2) return usage();
    const char *b = argv[1];
    if (!strcmp(b, "info")) { /* the runtime's configuration, for the report header */
        printf("{\"system\": \"%s\", \"config\": \"%s; drivers built " BENCH_OPT "\"}\n", sysname,
               bench_sys.config);
        return 0;
    }
    int need = !strcmp(b, "b1") || !strcmp(b, "b2") || !strcmp(b, "b4") ? 4
             : !strcmp(b, "b2t") ? 5 : !strcmp(b, "b3") ? 6 : 0;
    if (!need || argc < need) return usage();
    if ((!strcmp(b, "b1") && !bench_sys.run_graph) || (!strcmp(b, "b2") && !bench_sys.submit_cost) ||
        (!strcmp(b, "b2t") && !bench_sys.tiles) || (!strcmp(b, "b3") && !bench_sys.pipeline) ||
        (!strcmp(b, "b4") && !bench_sys.cholesky))
        return 0; /* this system does not take part in that benchmark */
    bench_calibrate();
    check(bench_sys.init(BENCH_CORES), "init");
    int rc;
    if (!strcmp(b, "b1")) rc = b1(argv[2], atoi(argv[3]), argc > 4 && !strcmp(argv[4], "quick"));
    else if (!strcmp(b, "b2")) rc = b2(atoi(argv[2]), atoi(argv[3]));
    else if (!strcmp(b, "b2t")) rc = b2t(argv[2], atoi(argv[3]), atoi(argv[4]));
    else if (!strcmp(b, "b3")) rc = b3(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]), atoi(argv[5]));
    else rc = b4(atoi(argv[2]), atoi(argv[3]));
    bench_sys.fini();
    return rc;
}
