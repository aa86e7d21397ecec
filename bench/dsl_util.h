/*
 * dsl_util.h - what the DSL benchmark drivers (bench_dsl: B5/B6, bench_b7:
 * B7) share: the clock, medians, result rows, and compiling DSL text and
 * creating the runtime they run it on.
 *
 * Threads: PTO_BENCH_WORKERS workers (default 1) + the calling thread
 * (orchestrator, which runs ready tasks while it waits in
 * pto_runtime_finish): 2 cores in total; no pinning.
 */
#ifndef BENCH_DSL_UTIL_H
#define BENCH_DSL_UTIL_H

#include <stddef.h>

#include "pto/compile.h"
#include "pto/runtime.h"

double bench_now(void);
/* Sorts v. */
double bench_median(double *v, int n);
/* One JSON result row on stdout. */
void bench_row(const char *bench, const char *cas, const char *system, const char *metric, double value);
/* "bench_dsl: what" on stderr, exit 1. */
void bench_die(const char *prog, const char *what);
int bench_workers(void);
/* Rows per band of a [rows, cols] FP32 tensor: a tile of about 128 KiB, at
 * least 8 bands, dividing rows. */
int bench_band_rows(int rows, int cols);
/* env: NULL for the default ring sizes.  Dies on failure. */
pto_runtime *bench_runtime(const pto_runtime_env *env);
/* Compiles o (diagnostics to stderr); dies on failure. */
pto_program *bench_compile(const pto_compile_options *o);

#endif
