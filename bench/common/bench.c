/*
 * bench.c - the clock, the calibrated kernel, rows, and the four workloads'
 * data, task bodies and sequential references (see bench.h).
 */
#include "bench.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
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

static int bench_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, bench_cmp);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
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

static void *bench_alloc(size_t bytes)
{
    void *p = NULL;
    if (posix_memalign(&p, 64, bytes ? bytes : 64) != 0) {
        fprintf(stderr, "bench: out of memory (%zu bytes)\n", bytes);
        exit(4);
    }
    memset(p, 0, bytes);
    return p;
}

/* ---- B1 ------------------------------------------------------------------------ */

int tb_deps(const tb_graph *g, int t, int x, int *deps)
{
    if (t == 0 || g->pattern == TB_TRIVIAL) return 0;
    int n = 0, half = (g->pattern == TB_STENCIL ? 3 : g->radix) / 2;
    for (int d = x - half; d <= x + half; d++) {
        int p = g->pattern == TB_STENCIL ? d : ((d % g->width) + g->width) % g->width;
        if (p < 0 || p >= g->width) continue;
        int dup = 0;
        for (int k = 0; k < n; k++) dup |= deps[k] == p;
        if (!dup) deps[n++] = p;
    }
    return n;
}

double *tb_alloc(const tb_graph *g)
{
    return bench_alloc(2 * (size_t)g->width * TB_CELL_DOUBLES * sizeof(double));
}

long tb_tasks(const tb_graph *g)
{
    return (long)g->width * g->steps;
}

/* Values stay exact small integers, so every system must match bit for bit. */
void tb_task(const tb_graph *g, double *data, int t, int x)
{
    int deps[TB_MAX_DEPS];
    int n = tb_deps(g, t, x, deps);
    double v = (double)(t * 7 + x);
    for (int k = 0; k < n; k++) v += 3.0 * tb_cell(data, g, t - 1, deps[k])[0];
    v = fmod(v, 1000003.0);
    double s = bench_spin(g->iters, v);
    tb_cell(data, g, t, x)[0] = s > 1e300 ? 0.0 : v;
}

int tb_verify(const tb_graph *g, const double *data)
{
    tb_graph ref = *g;
    ref.iters = 0;
    double *r = tb_alloc(&ref);
    for (int t = 0; t < ref.steps; t++)
        for (int x = 0; x < ref.width; x++) tb_task(&ref, r, t, x);
    int bad = 0;
    for (int x = 0; x < g->width; x++)
        bad |= tb_cell(r, g, g->steps - 1, x)[0] != tb_cell((double *)data, g, g->steps - 1, x)[0];
    free(r);
    return bad;
}

/* ---- B2 ------------------------------------------------------------------------ */

double *b2_alloc(int n)
{
    return bench_alloc((size_t)n * TB_CELL_DOUBLES * sizeof(double));
}

void b2_task(double *cells, int i, int deps)
{
    double v = 1.0;
    for (int k = 1; k <= deps && i - k >= 0; k++) v += cells[(size_t)(i - k) * TB_CELL_DOUBLES] > 0;
    cells[(size_t)i * TB_CELL_DOUBLES] = v;
}

int b2_verify(const double *cells, int n, int deps)
{
    for (int i = 0; i < n; i++) {
        int expect = 1 + (i < deps ? i : deps);
        if (cells[(size_t)i * TB_CELL_DOUBLES] != expect) return 1;
    }
    return 0;
}

/* ---- B3 ------------------------------------------------------------------------ */

int b3_alloc(const b3_spec *p, b3_data *d)
{
    size_t n = (size_t)p->tile * p->tile, tiles = (size_t)p->streams * p->inputs;
    d->A = malloc(tiles * sizeof *d->A);
    d->B = malloc(tiles * sizeof *d->B);
    d->S = malloc((size_t)p->streams * sizeof *d->S);
    for (size_t t = 0; t < tiles; t++) {
        d->A[t] = bench_alloc(n * sizeof(float));
        d->B[t] = bench_alloc(n * sizeof(float));
        for (size_t e = 0; e < n; e++) {
            d->A[t][e] = (float)((t * 31 + e) % 17) * 0.25f;
            d->B[t][e] = (float)((t * 7 + e) % 13) * 0.5f;
        }
    }
    for (int s = 0; s < p->streams; s++) d->S[s] = bench_alloc(n * sizeof(float));
    return 0;
}

void b3_free(const b3_spec *p, b3_data *d)
{
    size_t tiles = (size_t)p->streams * p->inputs;
    for (size_t t = 0; t < tiles; t++) free(d->A[t]), free(d->B[t]);
    for (int s = 0; s < p->streams; s++) free(d->S[s]);
    free(d->A), free(d->B), free(d->S);
}

void b3_task_a(float *X, const float *S, const float *A, int n)
{
    for (int e = 0; e < n; e++) X[e] = 0.5f * S[e] + A[e];
}

void b3_task_b(float *S, const float *X, const float *B, int n)
{
    for (int e = 0; e < n; e++) S[e] = 0.5f * X[e] + B[e];
}

int b3_verify(const b3_spec *p, const b3_data *d)
{
    int n = p->tile * p->tile, bad = 0;
    float *s = bench_alloc((size_t)n * sizeof(float)), *x = bench_alloc((size_t)n * sizeof(float));
    for (int k = 0; k < p->streams && !bad; k++) {
        memset(s, 0, (size_t)n * sizeof(float));
        for (int j = 0; j < p->steps; j++) {
            b3_task_a(x, s, d->A[k * p->inputs + j % p->inputs], n);
            b3_task_b(s, x, d->B[k * p->inputs + j % p->inputs], n);
        }
        bad = memcmp(s, d->S[k], (size_t)n * sizeof(float)) != 0;
    }
    free(s), free(x);
    return bad;
}

double b3_bytes(const b3_spec *p)
{
    return (double)p->streams * p->steps * 2 * 3 * (double)p->tile * p->tile * sizeof(float);
}

/* ---- B4 ------------------------------------------------------------------------ */

static float b4_value(int i, int j, int n)
{
    if (i == j) return (float)n + 1.0f;
    return 1.0f / (float)(1 + (i > j ? i - j : j - i)) * 0.5f;
}

int b4_alloc(b4_matrix *m, int n, int b)
{
    m->n = n, m->b = b, m->nt = n / b;
    m->tiles = calloc((size_t)m->nt * m->nt, sizeof *m->tiles);
    for (int ti = 0; ti < m->nt; ti++)
        for (int tj = 0; tj <= ti; tj++) {
            float *t = bench_alloc((size_t)b * b * sizeof(float));
            for (int c = 0; c < b; c++)
                for (int r = 0; r < b; r++) t[(size_t)c * b + r] = b4_value(ti * b + r, tj * b + c, n);
            m->tiles[ti * m->nt + tj] = t;
        }
    return 0;
}

void b4_free(b4_matrix *m)
{
    for (int i = 0; i < m->nt * m->nt; i++) free(m->tiles[i]);
    free(m->tiles);
}

void b4_potrf(float *akk, int b)
{
    LAPACKE_spotrf(LAPACK_COL_MAJOR, 'L', b, akk, b);
}

void b4_trsm(const float *akk, float *aik, int b)
{
    cblas_strsm(CblasColMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, b, b, 1.0f, akk, b,
                aik, b);
}

void b4_syrk(const float *aik, float *aii, int b)
{
    cblas_ssyrk(CblasColMajor, CblasLower, CblasNoTrans, b, b, -1.0f, aik, b, 1.0f, aii, b);
}

void b4_gemm(const float *aik, const float *ajk, float *aij, int b)
{
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasTrans, b, b, b, -1.0f, aik, b, ajk, b, 1.0f, aij, b);
}

/* (L L^T)(i, j) on a sample of entries, against the original matrix. */
int b4_verify(const b4_matrix *f, int n, int b)
{
    double worst = 0;
    for (int s = 0; s < 2000; s++) {
        int i = (int)((s * 7919L) % n), j = (int)((s * 104729L) % n);
        if (j > i) { int t = i; i = j; j = t; }
        double sum = 0;
        for (int k = 0; k <= j; k++) {
            const float *li = f->tiles[(i / b) * f->nt + k / b], *lj = f->tiles[(j / b) * f->nt + k / b];
            sum += (double)li[(size_t)(k % b) * b + i % b] * lj[(size_t)(k % b) * b + j % b];
        }
        double err = fabs(sum - b4_value(i, j, n)) / (double)n;
        if (err > worst) worst = err;
    }
    return worst > 1e-4;
}

double b4_flops(int n)
{
    return (double)n * n * n / 3.0;
}
