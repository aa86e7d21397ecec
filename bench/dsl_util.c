/*
 * dsl_util.c - the DSL benchmark drivers' shared helpers (dsl_util.h).
 */
#include "dsl_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void bench_row(const char *bench, const char *cas, const char *system, const char *metric, double value)
{
    printf("{\"bench\": \"%s\", \"case\": \"%s\", \"system\": \"%s\", \"metric\": \"%s\", \"value\": %.4g}\n",
           bench, cas, system, metric, value);
    fflush(stdout);
}

void bench_die(const char *prog, const char *what)
{
    fprintf(stderr, "%s: %s\n", prog, what);
    exit(1);
}

int bench_workers(void)
{
    const char *w = getenv("PTO_BENCH_WORKERS");
    return w ? atoi(w) : 1;
}

int bench_band_rows(int rows, int cols)
{
    int tr = (int)((128u << 10) / ((unsigned)cols * sizeof(float)));
    if (tr < 1) tr = 1;
    while (tr > 1 && (rows / tr < 8 || rows % tr)) tr /= 2;
    return tr;
}

pto_runtime *bench_runtime(const pto_runtime_env *env)
{
    pto_config c;
    memset(&c, 0, sizeof c);
    if (env) c.runtime_env = *env;
    c.num_workers = bench_workers();
    c.stall_timeout_ms = -1;
    pto_runtime *rt;
    pto_error err;
    if (pto_runtime_create(&c, &rt, &err)) fprintf(stderr, "%s\n", err.message), bench_die("bench", "runtime create failed");
    return rt;
}

pto_program *bench_compile(const pto_compile_options *o)
{
    pto_program *p;
    int rc = pto_compile(o, &p);
    char msg[2048];
    for (size_t k = 0; p && k < pto_program_diag_count(p); k++)
        pto_program_diag_format(p, k, msg, sizeof msg), fprintf(stderr, "%s\n", msg);
    if (rc) bench_die("bench", "compile failed");
    return p;
}
