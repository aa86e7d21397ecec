/*
 * calib.c - B0, the machine calibration every other number is read
 * against: STREAM-style triad on 1 and 2 threads (DRAM-sized and
 * cache-resident arrays), the core-to-core cache-line round trip, the cost
 * of waking a sleeping thread, ns per iteration of the benchmark kernel,
 * single-core sgemm GFLOP/s (the B4 peak reference), and the machine itself
 * (CPU model, CPUs, last-level cache).
 *
 *   bench_calib          B0 rows
 *   bench_calib info     {"system": "machine", "config": "<CPU model, CPUs, LLC>"}
 *   bench_calib llc      the last-level cache size in bytes (run.sh sizes B3 by it)
 *
 * Triad invariants: every worker first touches its own slices (all pages
 * faulted in, by the thread that uses them, before any timing) and times
 * its own sweeps between two barriers, so a thread that gets its core late
 * only delays its own start, never stretches another thread's time.  A run
 * moves 3 arrays x sweeps; its rate is all threads' bytes / the slowest
 * thread's time.  Rows give the best and the worst of the runs.
 */
#include <cblas.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bench.h"

void openblas_set_num_threads(int);

enum { TRIAD_RUNS = 7 };

typedef struct triad_part {
    double *a, *b, *c;
    size_t lo, hi;
    int sweeps;
    pthread_barrier_t *bar;
    double secs[TRIAD_RUNS]; /* written by this worker, read after join */
} triad_part;

static void *triad_worker(void *arg)
{
    triad_part *p = arg;
    double *restrict a = p->a + p->lo, *restrict b = p->b + p->lo, *restrict c = p->c + p->lo;
    size_t n = p->hi - p->lo;
    for (size_t i = 0; i < n; i++) a[i] = 0, b[i] = 1, c[i] = 2;
    for (int r = 0; r < TRIAD_RUNS; r++) {
        pthread_barrier_wait(p->bar);
        double t0 = bench_now();
        for (int k = 0; k < p->sweeps; k++)
            for (size_t i = 0; i < n; i++) a[i] = b[i] + 3.0 * c[i];
        p->secs[r] = bench_now() - t0;
    }
    return NULL;
}

/* Best and worst GB/s of TRIAD_RUNS runs of `sweeps` triads over n doubles
 * (n a multiple of 16: slices start on their own cache lines) on `threads`
 * threads.  The arrays are not touched here: their pages belong to the
 * workers. */
static void triad(const char *cas, size_t n, int threads, int sweeps)
{
    size_t bytes = n * sizeof(double);
    double *a = aligned_alloc(64, bytes), *b = aligned_alloc(64, bytes), *c = aligned_alloc(64, bytes);
    pthread_barrier_t bar;
    pthread_barrier_init(&bar, NULL, (unsigned)threads);
    pthread_t th[BENCH_CORES];
    triad_part part[BENCH_CORES];
    for (int t = 0; t < threads; t++) {
        part[t] = (triad_part){a, b, c, n * t / threads, n * (t + 1) / threads, sweeps, &bar, {0}};
        pthread_create(&th[t], NULL, triad_worker, &part[t]);
    }
    for (int t = 0; t < threads; t++) pthread_join(th[t], NULL);
    double best = 0, worst = 1e30;
    for (int r = 0; r < TRIAD_RUNS; r++) {
        double slowest = 0;
        for (int t = 0; t < threads; t++)
            if (part[t].secs[r] > slowest) slowest = part[t].secs[r];
        double gbs = 3.0 * sizeof(double) * (double)n * sweeps / slowest / 1e9;
        if (gbs > best) best = gbs;
        if (gbs < worst) worst = gbs;
    }
    pthread_barrier_destroy(&bar);
    free(a), free(b), free(c);
    char metric[32];
    snprintf(metric, sizeof metric, "gbps_%dt", threads);
    bench_row("B0", cas, "machine", metric, best);
    snprintf(metric, sizeof metric, "gbps_%dt_worst", threads);
    bench_row("B0", cas, "machine", metric, worst);
}

static void pin(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu % (int)sysconf(_SC_NPROCESSORS_ONLN), &set);
    sched_setaffinity(0, sizeof set, &set);
}

static _Atomic int ball;
/* Batches of round trips; the fastest batch is the answer, so a batch in
 * which either thread lost its core does not count. */
enum { ROUNDS = 1000, BATCHES = 50 };

static void *pong(void *arg)
{
    (void)arg;
    pin(1);
    for (int i = 0; i < ROUNDS * BATCHES; i++) {
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
    double best = 1e30;
    for (int b = 0; b < BATCHES; b++) {
        double t0 = bench_now();
        for (int i = 0; i < ROUNDS; i++) {
            atomic_store_explicit(&ball, 1, memory_order_release);
            while (atomic_load_explicit(&ball, memory_order_acquire) != 0) {
            }
        }
        double ns = (bench_now() - t0) / ROUNDS * 1e9;
        if (ns < best) best = ns;
    }
    pthread_join(th, NULL);
    return best;
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

/* The highest-level cache of CPU 0 (sysfs): its size in bytes and level. */
static long llc_bytes(int *level)
{
    long best = 0;
    *level = 0;
    for (int i = 0; i < 16; i++) {
        char path[128], buf[64];
        int lv = 0;
        long kb = 0;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        FILE *f = fopen(path, "r");
        if (!f) break;
        if (fscanf(f, "%d", &lv) != 1) lv = 0;
        fclose(f);
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        if (!(f = fopen(path, "r"))) continue;
        if (fgets(buf, sizeof buf, f)) kb = atol(buf) * (strchr(buf, 'M') ? 1024 : 1);
        fclose(f);
        if (lv > *level || (lv == *level && kb * 1024 > best)) *level = lv, best = kb * 1024;
    }
    return best;
}

/* "model name" from /proc/cpuinfo, trailing newline dropped. */
static void cpu_model(char *out, size_t len)
{
    snprintf(out, len, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[256];
    while (f && fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) || !colon) continue;
        snprintf(out, len, "%s", colon + 2);
        out[strcspn(out, "\n")] = '\0';
        break;
    }
    if (f) fclose(f);
}

static void machine_info(void)
{
    char model[128];
    int level;
    cpu_model(model, sizeof model);
    long llc = llc_bytes(&level);
    printf("{\"system\": \"machine\", \"config\": \"%s; %ld CPUs online; LLC %.0f MiB (L%d)\"}\n", model,
           sysconf(_SC_NPROCESSORS_ONLN), llc / 1048576.0, level);
}

int main(int argc, char **argv)
{
    int level;
    if (argc > 1 && !strcmp(argv[1], "info")) return machine_info(), 0;
    if (argc > 1 && !strcmp(argv[1], "llc")) return printf("%ld\n", llc_bytes(&level)), 0;
    bench_calibrate();
    /* DRAM: 3 x 64 MiB, far beyond any LLC here; cache-resident: 3 x 32 KiB. */
    size_t big = 8u << 20, small = 4096;
    triad("triad_dram", big, 1, 8);
    triad("triad_dram", big, 2, 8);
    triad("triad_cache", small, 1, 20000);
    triad("triad_cache", small, 2, 20000);
    bench_row("B0", "core_to_core", "machine", "round_trip_ns", round_trip());
    bench_row("B0", "wake_up", "machine", "futex_wake_us", wake_cost());
    bench_row("B0", "kernel", "machine", "ns_per_iter", bench_ns_per_iter());
    bench_row("B0", "sgemm_b256", "machine", "gflops_1core", sgemm_gflops(256));
    bench_row("B0", "llc", "machine", "mib", llc_bytes(&level) / 1048576.0);
    return 0;
}
