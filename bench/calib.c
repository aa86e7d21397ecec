/*
 * calib.c - B0, the machine calibration every other number is read
 * against: STREAM-style triad on 1 and 2 threads (DRAM-sized and
 * cache-resident arrays), the core-to-core cache-line round trip, the cost
 * of waking a sleeping thread, ns per iteration of the benchmark kernel,
 * and single-core sgemm GFLOP/s (the B4 peak reference).
 */
#include <cblas.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bench.h"

void openblas_set_num_threads(int);

typedef struct triad_part {
    double *a, *b, *c;
    size_t lo, hi;
    int reps, sweeps;
    pthread_barrier_t *bar;
} triad_part;

static void *triad_worker(void *arg)
{
    triad_part *p = arg;
    for (int r = 0; r < p->reps; r++) {
        pthread_barrier_wait(p->bar);
        for (int k = 0; k < p->sweeps; k++)
            for (size_t i = p->lo; i < p->hi; i++) p->a[i] = p->b[i] + 3.0 * p->c[i];
        pthread_barrier_wait(p->bar);
    }
    return NULL;
}

/* Median GB/s of reps timings of `sweeps` triads over n doubles on
 * `threads` threads (many sweeps per timing keep barrier costs out of the
 * cache-resident case). */
static double triad(size_t n, int threads, int reps, int sweeps)
{
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    for (size_t i = 0; i < n; i++) a[i] = 0, b[i] = 1, c[i] = 2;
    pthread_barrier_t bar;
    pthread_barrier_init(&bar, NULL, (unsigned)threads + 1);
    pthread_t th[BENCH_CORES];
    triad_part part[BENCH_CORES];
    for (int t = 0; t < threads; t++) {
        part[t] = (triad_part){a, b, c, n * t / threads, n * (t + 1) / threads, reps, sweeps, &bar};
        pthread_create(&th[t], NULL, triad_worker, &part[t]);
    }
    double gbs[64];
    for (int r = 0; r < reps; r++) {
        pthread_barrier_wait(&bar);
        double t0 = bench_now();
        pthread_barrier_wait(&bar);
        gbs[r] = 3.0 * sizeof(double) * n * sweeps / (bench_now() - t0) / 1e9;
    }
    for (int t = 0; t < threads; t++) pthread_join(th[t], NULL);
    pthread_barrier_destroy(&bar);
    free(a), free(b), free(c);
    return bench_median(gbs, reps);
}

static void pin(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu % (int)sysconf(_SC_NPROCESSORS_ONLN), &set);
    sched_setaffinity(0, sizeof set, &set);
}

static _Atomic int ball;
enum { ROUNDS = 200000 };

static void *pong(void *arg)
{
    (void)arg;
    pin(1);
    for (int i = 0; i < ROUNDS; i++) {
        while (atomic_load_explicit(&ball, memory_order_acquire) != 1) {
        }
        atomic_store_explicit(&ball, 0, memory_order_release);
    }
    return NULL;
}

/* ns for one cache line to go core 0 -> core 1 -> core 0. */
static double round_trip(void)
{
    pthread_t th;
    pin(0);
    pthread_create(&th, NULL, pong, NULL);
    double t0 = bench_now();
    for (int i = 0; i < ROUNDS; i++) {
        atomic_store_explicit(&ball, 1, memory_order_release);
        while (atomic_load_explicit(&ball, memory_order_acquire) != 0) {
        }
    }
    double ns = (bench_now() - t0) / ROUNDS * 1e9;
    pthread_join(th, NULL);
    return ns;
}

static _Atomic uint32_t wake_word;
static _Atomic int wake_done;
static double wake_sent;
static double wake_total;
enum { WAKES = 2000 };

static void *sleeper(void *arg)
{
    (void)arg;
    pin(1);
    for (int i = 0; i < WAKES; i++) {
        uint32_t w;
        while ((w = atomic_load(&wake_word)) != (uint32_t)i + 1)
            syscall(SYS_futex, &wake_word, FUTEX_WAIT_PRIVATE, w, NULL, NULL, 0);
        wake_total += bench_now() - wake_sent;
        atomic_store(&wake_done, i + 1);
    }
    return NULL;
}

/* us from a futex wake to the sleeper running. */
static double wake_cost(void)
{
    pthread_t th;
    pin(0);
    pthread_create(&th, NULL, sleeper, NULL);
    for (int i = 0; i < WAKES; i++) {
        struct timespec ts = {0, 200000}; /* let it fall asleep */
        nanosleep(&ts, NULL);
        wake_sent = bench_now();
        atomic_store(&wake_word, (uint32_t)i + 1);
        syscall(SYS_futex, &wake_word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
        while (atomic_load(&wake_done) != i + 1) {
        }
    }
    pthread_join(th, NULL);
    return wake_total / WAKES * 1e6;
}

static double sgemm_gflops(int b)
{
    openblas_set_num_threads(1);
    float *A = calloc((size_t)b * b, sizeof *A), *B = calloc((size_t)b * b, sizeof *B),
          *C = calloc((size_t)b * b, sizeof *C);
    for (int i = 0; i < b * b; i++) A[i] = 1.0f / (1 + i % 7), B[i] = 1.0f / (1 + i % 5);
    int reps = 200;
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasTrans, b, b, b, 1, A, b, B, b, 0, C, b);
    double t0 = bench_now();
    for (int r = 0; r < reps; r++)
        cblas_sgemm(CblasColMajor, CblasNoTrans, CblasTrans, b, b, b, -1, A, b, B, b, 1, C, b);
    double gf = 2.0 * b * b * (double)b * reps / (bench_now() - t0) / 1e9;
    free(A), free(B), free(C);
    return gf;
}

int main(void)
{
    bench_calibrate();
    size_t big = 8u << 20, small = 4096; /* 3 x 64 MiB, 3 x 32 KiB */
    bench_row("B0", "triad_dram", "machine", "gbps_1t", triad(big, 1, 5, 1));
    bench_row("B0", "triad_dram", "machine", "gbps_2t", triad(big, 2, 5, 1));
    bench_row("B0", "triad_cache", "machine", "gbps_1t", triad(small, 1, 5, 2000));
    bench_row("B0", "triad_cache", "machine", "gbps_2t", triad(small, 2, 5, 2000));
    bench_row("B0", "core_to_core", "machine", "round_trip_ns", round_trip());
    bench_row("B0", "wake_up", "machine", "futex_wake_us", wake_cost());
    bench_row("B0", "kernel", "machine", "ns_per_iter", bench_ns_per_iter());
    bench_row("B0", "sgemm_b256", "machine", "gflops_1core", sgemm_gflops(256));
    return 0;
}
