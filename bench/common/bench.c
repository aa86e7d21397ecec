/*
 * bench.c - what every workload shares: the clock, the calibrated kernel,
 * result rows, peak RSS, failing a check, aligned allocation.
 */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A dependent multiply-add chain: one iteration cannot start before the
 * previous one ends, so time is linear in iters and not vectorised away. */
double bench_spin(uint64_t iters, double seed)
{
    double x = seed;
    for (uint64_t i = 0; i < iters; i++) x = x * 0.999999 + 1e-7;
    return x;
}

static double bench_ns_iter = 0;

void bench_calibrate(void)
{
    uint64_t n = 1u << 22;
    double best = 1e30;
    for (int r = 0; r < 5; r++) {
        double t0 = bench_now();
        volatile double sink = bench_spin(n, 1.0);
        (void)sink;
        double dt = (bench_now() - t0) * 1e9 / (double)n;
        if (dt < best) best = dt;
    }
    bench_ns_iter = best;
}

double bench_ns_per_iter(void)
{
    if (bench_ns_iter == 0) bench_calibrate();
    return bench_ns_iter;
}

uint64_t bench_iters_for_ns(double ns)
{
    double it = ns / bench_ns_per_iter();
    return it < 1 ? 1 : (uint64_t)(it + 0.5);
}

void bench_row(const char *bench, const char *cas, const char *system, const char *metric,
               double value)
{
    printf("{\"bench\": \"%s\", \"case\": \"%s\", \"system\": \"%s\", \"metric\": \"%s\", "
           "\"value\": %.6g}\n",
           bench, cas, system, metric, value);
    fflush(stdout);
}

long bench_peak_rss_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

void bench_fail(const char *system, const char *what)
{
    fprintf(stderr, "bench: %s: result check failed: %s\n", system, what);
    exit(3);
}

void *bench_alloc(size_t bytes)
{
    void *p = NULL;
    if (posix_memalign(&p, 64, bytes ? bytes : 64) != 0) {
        fprintf(stderr, "bench: out of memory (%zu bytes)\n", bytes);
        exit(4);
    }
    memset(p, 0, bytes);
    return p;
}
