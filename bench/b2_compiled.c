/*
 * b2_compiled.c - "B2 trusted" (BENCHMARKS.md): B2's graphs built by a
 * compiled program.  Task i writes row i of an [N, 16] FP32 tensor and reads
 * the DEPS rows before it, each as its own view (an InCore function of DEPS
 * In parameters and one Out, called on one-row slices), in scopes of 1,024
 * tasks as B2's C API driver makes them (auto_scope=False).
 *
 *   bench_b2c info
 *   bench_b2c b2c N DEPS     submit_ns and e2e_ns per task (case deps<DEPS>, as B2's)
 *
 * The program runs through the executor (exec/orch_vm.h) exactly as
 * pto_program_run runs it, with one difference: every task's kernel is the
 * C function b2c_kernel (row i = 1 + the number of its inputs already
 * written, B2's rule), not the tile VM, so the time is the orchestration's
 * and the runtime's, as in B2.  BENCH_SYSTEM_NAME=ours-checked
 * sends every SUBMIT through pto_task_submit_if, the public path that
 * validates each view, instead of the executor's trusted submit.
 *
 * One invocation: a verified warm-up run, then one verified timed run
 * (run.sh repeats invocations, as for every driver).  submit: from the
 * start of the orchestration to its end (before pto_runtime_finish);
 * total: to the end of pto_runtime_finish.  Rows 0..DEPS-1 are set by the
 * caller (row r = 1 + r), so every row's expected value is 1 + min(i, DEPS).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/program.h"
#include "exec/orch_vm.h"

#include "dsl_util.h"

enum { COLS = 16, CHUNK = 1024, MAX_DEPS = 8 };

static const char *sysname;

/* The program for DEPS inputs: kernel `cell`, orchestration `main`. */
static char *b2c_source(int deps)
{
    size_t cap = 4096;
    char *s = malloc(cap);
    if (!s) bench_die("bench_b2c", "out of memory");
    int n = snprintf(s, cap,
                     "import pypto.language as pl\n\n"
                     "N, D, CHUNKS = 1, 0, 1\n\n"
                     "@pl.program\nclass B2:\n"
                     "    @pl.function(type=pl.FunctionType.InCore)\n    def cell(self");
    for (int k = 0; k < deps; k++) n += snprintf(s + n, cap - n, ", a%d: pl.Tensor[[1, 16], pl.FP32]", k);
    n += snprintf(s + n, cap - n,
                  ", o: pl.Out[pl.Tensor[[1, 16], pl.FP32]]) -> pl.Tensor[[1, 16], pl.FP32]:\n"
                  "        o = pl.store(pl.full([1, 16], dtype=pl.FP32, value=1.0), [0, 0], o)\n"
                  "        return o\n\n"
                  "    @pl.function(type=pl.FunctionType.Orchestration, auto_scope=False)\n"
                  "    def main(self, cells: pl.Tensor[[N, 16], pl.FP32]) -> pl.Tensor[[N, 16], pl.FP32]:\n"
                  "        with pl.scope():\n"
                  "            for c in pl.range(CHUNKS):\n"
                  "                with pl.scope():\n"
                  "                    for j in pl.range(%d):\n"
                  "                        i = D + c * %d + j\n"
                  "                        self.cell(",
                  CHUNK, CHUNK);
    for (int k = 1; k <= deps; k++) n += snprintf(s + n, cap - n, "cells[i - %d:i - %d, :], ", k, k - 1);
    snprintf(s + n, cap - n, "cells[i:i + 1, :])\n        return cells\n");
    return s;
}

/* B2's rule on the views: the last one is the task's row. */
static int b2c_kernel(const cc_lowered *l, const cc_lo_proc *k, const pto_kernel_args *a)
{
    (void)l, (void)k;
    float v = 1.0f;
    for (uint32_t i = 0; i + 1 < a->num_views; i++) v += ((const float *)a->views[i].addr)[a->views[i].offset] > 0;
    const pto_view *o = &a->views[a->num_views - 1];
    ((float *)o->addr)[o->offset] = v;
    return 0;
}

typedef struct b2c {
    int n, deps;
    float *cells;
    pto_program *p;
    pto_runtime *rt;
} b2c;

static void b2c_reset(b2c *b)
{
    memset(b->cells, 0, (size_t)b->n * COLS * sizeof(float));
    for (int r = 0; r < b->deps; r++) b->cells[(size_t)r * COLS] = 1.0f + (float)r;
}

static void b2c_verify(const b2c *b)
{
    for (int i = 0; i < b->n; i++) {
        float want = 1.0f + (float)(i < b->deps ? i : b->deps);
        if (b->cells[(size_t)i * COLS] != want) {
            fprintf(stderr, "bench_b2c: %s: row %d is %g, expected %g\n", sysname, i, (double)b->cells[(size_t)i * COLS],
                    (double)want);
            exit(1);
        }
    }
}

static void b2c_orch_end(void *arg)
{
    *(double *)arg = bench_now();
}

/* One verified run; its submit and total seconds. */
static void b2c_run(b2c *b, const ex_orch_opts *opts, double *submit_s, double *total_s)
{
    b2c_reset(b);
    pto_run_arg arg = {"cells", {.kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {b->n, COLS}}};
    arg.value.base = b->cells;
    const cc_lowered *l = cc_program_lowered(b->p);
    ex_value param;
    pto_error err;
    if (ex_bind(l, &arg, 1, &param, &err)) fprintf(stderr, "%s\n", err.message), bench_die("bench_b2c", "bind failed");
    ex_orch_opts o = *opts;
    double orch_end = 0;
    o.orch_end = b2c_orch_end, o.orch_end_arg = &orch_end;
    double t0 = bench_now();
    int rc = ex_orch_run_with(b->rt, l, b2c_kernel, &param, 1, &o);
    *total_s = bench_now() - t0;
    *submit_s = orch_end - t0;
    if (rc) fprintf(stderr, "%s\n", pto_runtime_error(b->rt)->message), bench_die("bench_b2c", "run failed");
    b2c_verify(b);
}

static int b2(int n, int deps)
{
    if (n < CHUNK + MAX_DEPS || deps < 0 || deps > MAX_DEPS) bench_die("bench_b2c", "b2c N DEPS: N >= 1032, DEPS in [0, 8]");
    int chunks = (n - deps) / CHUNK;
    b2c b = {.n = deps + chunks * CHUNK, .deps = deps};
    b.cells = aligned_alloc(64, (size_t)b.n * COLS * sizeof(float));
    if (!b.cells) bench_die("bench_b2c", "out of memory");
    char *text = b2c_source(deps);
    pto_constant consts[] = {
        {"N", {.kind = PTO_VALUE_INT, .i = b.n}},
        {"D", {.kind = PTO_VALUE_INT, .i = deps}},
        {"CHUNKS", {.kind = PTO_VALUE_INT, .i = chunks}},
    };
    pto_arg_spec spec = {.name = "cells", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {b.n, COLS}};
    pto_compile_options co = {.filename = "b2_compiled.py", .source = text, .source_len = strlen(text), .entry = "B2",
                              .constants = consts, .nconstants = 3, .args = &spec, .nargs = 1};
    b.p = bench_compile(&co);
    free(text);
    b.rt = bench_runtime(NULL);
    ex_orch_opts opts = {.checked = !strcmp(sysname, "ours-checked")};
    double submit_s, total_s;
    b2c_run(&b, &opts, &submit_s, &total_s); /* warm-up */
    b2c_run(&b, &opts, &submit_s, &total_s);
    char cas[32];
    snprintf(cas, sizeof cas, "deps%d", deps);
    bench_row("B2c", cas, sysname, "submit_ns", submit_s * 1e9 / b.n);
    bench_row("B2c", cas, sysname, "e2e_ns", total_s * 1e9 / b.n);
    pto_runtime_destroy(b.rt);
    pto_program_free(b.p);
    free(b.cells);
    return 0;
}

int main(int argc, char **argv)
{
    sysname = getenv("BENCH_SYSTEM_NAME");
    sysname = sysname ? sysname : "ours";
    if (argc == 2 && !strcmp(argv[1], "info")) {
        printf("{\"system\": \"%s\", \"config\": \"B2's graphs from a compiled program (pto_compile, executor %s); "
               "kernels: a C function (B2's rule); libpto: %d worker + the orchestrator (calling thread); no "
               "pinning; default ring sizes\"}\n",
               strcmp(sysname, "ours-checked") ? "ours (B2c)" : "ours-checked",
               strcmp(sysname, "ours-checked") ? "trusted submit" : "through pto_task_submit_if",
               bench_workers());
        return 0;
    }
    if (argc == 4 && !strcmp(argv[1], "b2c")) return b2(atoi(argv[2]), atoi(argv[3]));
    fprintf(stderr, "usage: bench_b2c info | b2c N DEPS\n");
    return 2;
}
