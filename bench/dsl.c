/*
 * dsl.c - B5 and B6: the seed's `scaled` kernel (out = a * 2 + 1, FP32)
 * compiled from DSL text (pto/compile.h) and run from C (pto/run.h) on one
 * runtime, many times; and what the DSL costs on top of the C API.
 *
 *   bench_dsl info                  the configuration line
 *   bench_dsl b5 ROWS COLS          B5 gbps of systems "ours" and "ours-create-tensor"
 *                                   (BENCH_SYSTEM_NAME=c-loop: the hand-written
 *                                   single-thread C loop instead)
 *   bench_dsl b6 tasks ROWS COLS    B6 dsl_task_us and capi_task_us: the same N row-band
 *                                   tasks through the DSL and through pto_task_submit
 *   bench_dsl b6 call               B6 cached_call_us: one pto_program_run of the page's
 *                                   `scaled` on 256 x 128 (1 task), and call_task_us, that
 *                                   task's own time in the tile VM
 *   bench_dsl b6 rss                B6 peak_rss_mb of a process running `scaled` on
 *                                   256 x 128 with the page's `sized` RunConfig
 *   bench_dsl b6 spmd ROWS COLS     B6 at_call_us and spmd_call_us: one pto_program_run of
 *                                   ROWS one-row bands as ROWS pl.at tasks (`bands`) and as
 *                                   one task of ROWS blocks (`bands_spmd`, DSL-V2-SPEC §0.6)
 *
 * Programs: `bands` is `scaled` with the pl.at inside the loop, so each
 * iteration is one task on a row band of TR rows (the module constants N,
 * TR, TC are passed per size: a tile of about 128 KiB, at least 8 tasks);
 * `scaled` is the page's text (pl.at around the loop: one task).
 *
 * Timing: one verified warm-up run, then RUNS timed runs (more for small
 * sizes), the value is their median; out is checked against a * 2 + 1
 * exactly (every element) after the warm-up and after the timed runs.
 * bytes moved per run: 2 * rows * cols * 4 (a read, out written).
 *
 * Threads: 1 worker + the calling thread (orchestrator, which runs ready
 * tasks while it waits in pto_runtime_finish), as bench_ours; no pinning.
 * PTO_BENCH_WORKERS overrides the worker count.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "compiler/program.h"
#include "exec/orch_vm.h"
#include "base/file.h"
#include "exec/tile_vm.h"
#include "pto/compile.h"
#include "pto/run.h"
#include "pto/runtime.h"

#include "dsl_util.h"

enum { MAX_RUNS = 400 };

/* B5's kernels: the page's `scaled` with the pl.at inside the loop, one task
 * per row band (`bands`), and the same with the intermediate a * 2 in a
 * band-sized pl.create_tensor of the loop body's ring, two tasks per band
 * (`bands_tmp`, system "ours-create-tensor").  The page's own `scaled` (B6's cached call, the RSS run) is
 * compiled from the page's script, PTO_PAGE_SCRIPT. */
static const char bands_source[] =
    "import pypto.language as pl\n"
    "\n"
    "N, TR, TC = 4, 64, 128\n"
    "\n"
    "\n"
    "@pl.jit\n"
    "def bands(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
    "    for i in pl.range(N):\n"
    "        with pl.at(level=pl.Level.CORE_GROUP):\n"
    "            t = pl.load(a, [i * TR, 0], [TR, TC])\n"
    "            pl.store(pl.add(pl.mul(t, 2.0), 1.0), [i * TR, 0], out)\n"
    "    return out\n"
    "\n"
    "\n"
    "@pl.jit\n"
    "def bands_tmp(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
    "    for i in pl.range(N):\n"
    "        tmp = pl.create_tensor([TR, TC], dtype=pl.FP32)\n"
    "        with pl.at(level=pl.Level.CORE_GROUP):\n"
    "            t = pl.load(a, [i * TR, 0], [TR, TC])\n"
    "            pl.store(pl.mul(t, 2.0), [0, 0], tmp)\n"
    "        with pl.at(level=pl.Level.CORE_GROUP):\n"
    "            u = pl.load(tmp, [0, 0], [TR, TC])\n"
    "            pl.store(pl.add(u, 1.0), [i * TR, 0], out)\n"
    "    return out\n"
    "\n"
    "\n"
    "@pl.jit\n"
    "def bands_spmd(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
    "    for i in pl.spmd(N):\n"
    "        t = pl.load(a, [i * TR, 0], [TR, TC])\n"
    "        pl.store(pl.add(pl.mul(t, 2.0), 1.0), [i * TR, 0], out)\n"
    "    return out\n";

/* ---- data ------------------------------------------------------------------ */

typedef struct data {
    int rows, cols;
    size_t n;
    float *a, *out;
} data;

static data data_make(int rows, int cols)
{
    data d = {rows, cols, (size_t)rows * (size_t)cols, NULL, NULL};
    size_t bytes = (d.n * sizeof(float) + 63) / 64 * 64;
    d.a = aligned_alloc(64, bytes), d.out = aligned_alloc(64, bytes);
    if (!d.a || !d.out) bench_die("bench_dsl", "out of memory");
    for (size_t i = 0; i < d.n; i++) d.a[i] = (float)((i * 37) % 101) / 7.0f - 5.0f, d.out[i] = 0;
    return d;
}

static void data_free(data *d)
{
    free(d->a), free(d->out);
}

/* out must be a * 2 + 1 exactly; out is then poisoned (NaN) so that the
 * next check sees only what later runs wrote. */
static void verify(const data *d, const char *who)
{
    for (size_t i = 0; i < d->n; i++)
        if (!(d->out[i] == d->a[i] * 2.0f + 1.0f)) {
            fprintf(stderr, "bench_dsl: %s: out[%zu] = %g, expected %g\n", who, i, (double)d->out[i],
                    (double)(d->a[i] * 2.0f + 1.0f));
            exit(1);
        }
    memset(d->out, 0xff, d->n * sizeof(float));
}

/* Timed runs for a size: about 1 GiB moved, 5 to MAX_RUNS runs. */
static int runs_for(const data *d)
{
    double per = 2.0 * (double)d->n * sizeof(float);
    int r = (int)((double)(1u << 30) / per);
    return r < 5 ? 5 : r > MAX_RUNS ? MAX_RUNS : r;
}

/* ---- compile and run ---------------------------------------------------------- */

static pto_program *compile(const char *entry, int rows, int cols, int n, int tr)
{
    pto_arg_spec specs[] = {
        {.name = "a", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {rows, cols}},
        {.name = "out", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {rows, cols}},
    };
    pto_constant consts[] = {
        {"N", {.kind = PTO_VALUE_INT, .i = n}},
        {"TR", {.kind = PTO_VALUE_INT, .i = tr}},
        {"TC", {.kind = PTO_VALUE_INT, .i = cols}},
    };
    int page = !strcmp(entry, "scaled");
    size_t len = sizeof bands_source - 1;
    char *text = page ? base_read_file(PTO_PAGE_SCRIPT, &len) : NULL;
    if (page && !text) bench_die("bench_dsl", "cannot read " PTO_PAGE_SCRIPT);
    pto_compile_options o = {.filename = page ? PTO_PAGE_SCRIPT : "bands.py", .source = page ? text : bands_source,
                             .source_len = len, .entry = entry, .constants = consts, .nconstants = 3, .args = specs, .nargs = 2};
    pto_program *p = bench_compile(&o);
    free(text);
    return p;
}

static void tensor_args(const data *d, pto_run_arg args[2])
{
    pto_arg_value v = {.kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {d->rows, d->cols}};
    args[0] = (pto_run_arg){"a", v}, args[1] = (pto_run_arg){"out", v};
    args[0].value.base = d->a, args[1].value.base = d->out;
}

/* One pto_program_run; returns its wall time. */
static double dsl_run(pto_runtime *rt, const pto_program *p, const data *d)
{
    pto_run_arg args[2];
    tensor_args(d, args);
    pto_error err;
    double t0 = bench_now();
    if (pto_program_run(rt, p, args, 2, &err)) fprintf(stderr, "%s\n", err.message), bench_die("bench_dsl", "run failed");
    return bench_now() - t0;
}

/* ---- the C loop and the C API ------------------------------------------------- */

static void scale(const float *restrict a, float *restrict out, size_t n)
{
    for (size_t i = 0; i < n; i++) out[i] = a[i] * 2.0f + 1.0f;
}

static double cloop_run(const data *d)
{
    double t0 = bench_now();
    scale(d->a, d->out, d->n);
    return bench_now() - t0;
}

/* views[0] = the band of a, views[1] = the band of out: contiguous rows. */
static int capi_kernel(const pto_kernel_args *k)
{
    const pto_view *a = &k->views[0], *o = &k->views[1];
    size_t n = (size_t)(a->shape[0] * a->shape[1]);
    scale((const float *)a->addr + a->offset, (float *)o->addr + o->offset, n);
    return 0;
}

/* N tasks, one per band of tr rows, in one scope, then finish. */
static double capi_run(pto_runtime *rt, const data *d, int tr)
{
    double t0 = bench_now();
    int rc = pto_scope_begin(rt, PTO_SCOPE_AUTO, __FILE__, __LINE__);
    for (int i = 0; i < d->rows / tr && !rc; i++) {
        int64_t off = (int64_t)i * tr * d->cols;
        pto_arg args[2] = {
            {PTO_ARG_IN, pto_view_2d(d->a, 4, off, (uint64_t)tr, (uint64_t)d->cols, d->cols, PTO_INVALID_TASK_ID)},
            {PTO_ARG_OUTPUT_EXISTING,
             pto_view_2d(d->out, 4, off, (uint64_t)tr, (uint64_t)d->cols, d->cols, PTO_INVALID_TASK_ID)},
        };
        pto_task t = {.kernel = capi_kernel, .name = "scaled", .args = args, .num_args = 2};
        rc = pto_task_submit(rt, &t, NULL);
    }
    if (!rc) rc = pto_scope_end(rt);
    int frc = pto_runtime_finish(rt);
    if (rc || frc) bench_die("bench_dsl", "C API run failed");
    return bench_now() - t0;
}

/* ---- B5 ------------------------------------------------------------------------ */

static int b5(int rows, int cols, const char *system)
{
    data d = data_make(rows, cols);
    char cas[32];
    snprintf(cas, sizeof cas, "r%d_c%d", rows, cols);
    int runs = runs_for(&d);
    double t[MAX_RUNS], bytes = 2.0 * (double)d.n * sizeof(float);
    if (!strcmp(system, "c-loop")) {
        cloop_run(&d), verify(&d, "c-loop warm-up");
        for (int r = 0; r < runs; r++) t[r] = cloop_run(&d);
        verify(&d, "c-loop");
        bench_row("B5", cas, system, "gbps", bytes / bench_median(t, runs) / 1e9);
    } else {
        int tr = bench_band_rows(rows, cols);
        pto_runtime *rt = bench_runtime(NULL);
        static const char *const entries[] = {"bands", "bands_tmp"}, *const names[] = {"ours", "ours-create-tensor"};
        for (int e = 0; e < 2; e++) {
            pto_program *p = compile(entries[e], rows, cols, rows / tr, tr);
            dsl_run(rt, p, &d), verify(&d, "warm-up");
            for (int r = 0; r < runs; r++) t[r] = dsl_run(rt, p, &d);
            verify(&d, names[e]);
            bench_row("B5", cas, names[e], "gbps", bytes / bench_median(t, runs) / 1e9);
            pto_program_free(p);
        }
        pto_runtime_destroy(rt);
    }
    data_free(&d);
    return 0;
}

/* ---- B6 ------------------------------------------------------------------------ */

/* DSL and C API runs of the same N bands alternate on one runtime. */
static int b6_tasks(int rows, int cols)
{
    data d = data_make(rows, cols);
    int tr = bench_band_rows(rows, cols), n = rows / tr, runs = runs_for(&d);
    pto_program *p = compile("bands", rows, cols, n, tr);
    pto_runtime *rt = bench_runtime(NULL);
    dsl_run(rt, p, &d), verify(&d, "dsl warm-up");
    capi_run(rt, &d, tr), verify(&d, "C API warm-up");
    double td[MAX_RUNS], tc[MAX_RUNS];
    for (int r = 0; r < runs; r++) td[r] = dsl_run(rt, p, &d);
    verify(&d, "dsl");
    for (int r = 0; r < runs; r++) tc[r] = capi_run(rt, &d, tr);
    verify(&d, "C API");
    char cas[48];
    snprintf(cas, sizeof cas, "r%d_c%d_n%d", rows, cols, n);
    bench_row("B6", cas, "ours", "dsl_task_us", bench_median(td, runs) * 1e6 / n);
    bench_row("B6", cas, "ours", "capi_task_us", bench_median(tc, runs) * 1e6 / n);
    pto_runtime_destroy(rt);
    pto_program_free(p);
    data_free(&d);
    return 0;
}

/* The same ROWS one-row bands as ROWS tasks and as one SPMD task of ROWS blocks. */
static int b6_spmd(int rows, int cols)
{
    data d = data_make(rows, cols);
    pto_program *at = compile("bands", rows, cols, rows, 1), *spmd = compile("bands_spmd", rows, cols, rows, 1);
    pto_runtime *rt = bench_runtime(NULL);
    dsl_run(rt, at, &d), verify(&d, "pl.at warm-up");
    dsl_run(rt, spmd, &d), verify(&d, "pl.spmd warm-up");
    double ta[MAX_RUNS], ts[MAX_RUNS];
    for (int r = 0; r < MAX_RUNS; r++) ta[r] = dsl_run(rt, at, &d);
    verify(&d, "pl.at");
    for (int r = 0; r < MAX_RUNS; r++) ts[r] = dsl_run(rt, spmd, &d);
    verify(&d, "pl.spmd");
    char cas[48];
    snprintf(cas, sizeof cas, "spmd_r%d_c%d", rows, cols);
    bench_row("B6", cas, "ours", "at_call_us", bench_median(ta, MAX_RUNS) * 1e6);
    bench_row("B6", cas, "ours", "spmd_call_us", bench_median(ts, MAX_RUNS) * 1e6);
    pto_runtime_destroy(rt);
    pto_program_free(at), pto_program_free(spmd);
    data_free(&d);
    return 0;
}

/* The tile VM's time per task, summed over the run's tasks. */
static double task_seconds;

static int timed_tile_run(const cc_lowered *l, const cc_lo_proc *k, const pto_kernel_args *a)
{
    double t0 = bench_now();
    int rc = ex_tile_run(l, k, a);
    task_seconds += bench_now() - t0; /* one task per run: no other thread adds */
    return rc;
}

/* The run of pto_program_run, with the tile VM timed: its task's seconds. */
static double dsl_task_time(pto_runtime *rt, const pto_program *p, const data *d)
{
    const cc_lowered *l = cc_program_lowered(p);
    pto_run_arg args[2];
    tensor_args(d, args);
    ex_value params[2];
    pto_error err;
    if (!l || l->procs[0].nparams != 2 || ex_bind(l, args, 2, params, &err)) bench_die("bench_dsl", "bind failed");
    task_seconds = 0;
    if (ex_orch_run(rt, l, timed_tile_run, params, 2)) bench_die("bench_dsl", "timed run failed");
    return task_seconds;
}

static int b6_call(void)
{
    enum { ROWS = 256, COLS = 128, CALLS = 400 };
    data d = data_make(ROWS, COLS);
    pto_program *p = compile("scaled", ROWS, COLS, 4, 64);
    pto_runtime *rt = bench_runtime(NULL);
    dsl_run(rt, p, &d), verify(&d, "warm-up");
    static double call[CALLS], task[CALLS];
    for (int r = 0; r < CALLS; r++) call[r] = dsl_run(rt, p, &d), task[r] = dsl_task_time(rt, p, &d);
    verify(&d, "cached calls");
    bench_row("B6", "r256_c128_n1", "ours", "cached_call_us", bench_median(call, CALLS) * 1e6);
    bench_row("B6", "r256_c128_n1", "ours", "call_task_us", bench_median(task, CALLS) * 1e6);
    pto_runtime_destroy(rt);
    pto_program_free(p);
    data_free(&d);
    return 0;
}

/* The page's `sized` RunConfig: 1.15 GiB of rings reserved. */
static int b6_rss(void)
{
    pto_runtime_env env = {
        .ring_task_window = {8192, 16384, 131072, 524288},
        .ring_heap = {1ull << 27, 1ull << 28, 1ull << 28, 1ull << 29},
    };
    data d = data_make(256, 128);
    pto_program *p = compile("scaled", 256, 128, 4, 64);
    pto_runtime *rt = bench_runtime(&env);
    for (int r = 0; r < 10; r++) dsl_run(rt, p, &d);
    verify(&d, "sized");
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    bench_row("B6", "sized_r256_c128", "ours", "peak_rss_mb", (double)ru.ru_maxrss / 1024.0);
    pto_runtime_destroy(rt);
    pto_program_free(p);
    data_free(&d);
    return 0;
}

int main(int argc, char **argv)
{
    const char *sys = getenv("BENCH_SYSTEM_NAME");
    sys = sys ? sys : "ours";
    int cloop = !strcmp(sys, "c-loop");
    if (argc == 2 && !strcmp(argv[1], "info")) {
        if (cloop)
            printf("{\"system\": \"c-loop\", \"config\": \"B5 bandwidth reference: out[i] = a[i] * 2 + 1, one "
                   "thread, gcc " BENCH_OPT "\"}\n");
        else
            printf("{\"system\": \"ours (DSL)\", \"config\": \"B5/B6: pto_compile + pto_program_run, tile VM "
                   "kernels; libpto: %d worker + the orchestrator (calling thread), which runs ready tasks "
                   "in pto_runtime_finish; no pinning; default ring sizes (B6 rss: the page's sized config); "
                   "a task = a row band of about 128 KiB\"}\n",
                   bench_workers());
        return 0;
    }
    if (argc == 4 && !strcmp(argv[1], "b5")) return b5(atoi(argv[2]), atoi(argv[3]), sys);
    if (cloop) return 0; /* c-loop takes part in B5 only */
    if (argc == 5 && !strcmp(argv[1], "b6") && !strcmp(argv[2], "tasks")) return b6_tasks(atoi(argv[3]), atoi(argv[4]));
    if (argc == 3 && !strcmp(argv[1], "b6") && !strcmp(argv[2], "call")) return b6_call();
    if (argc == 3 && !strcmp(argv[1], "b6") && !strcmp(argv[2], "rss")) return b6_rss();
    if (argc == 5 && !strcmp(argv[1], "b6") && !strcmp(argv[2], "spmd")) return b6_spmd(atoi(argv[3]), atoi(argv[4]));
    fprintf(stderr, "usage: bench_dsl info | b5 ROWS COLS | b6 tasks ROWS COLS | b6 call | b6 rss | b6 spmd ROWS COLS\n");
    return 2;
}
