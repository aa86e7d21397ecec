/*
 * bench.h - what every benchmark driver shares: the clock, the calibrated
 * busy kernel, result rows, and the interface a system (ours or a peer)
 * implements.
 *
 * A driver process hosts exactly one system (libgomp and LLVM libomp cannot
 * share a process).  It prints one JSON object per result line on stdout:
 * {"bench": "B1", "case": "stencil_w2", "system": "ours", "metric": "metg_us", "value": 1.2}
 * Every workload checks its result against a sequential reference before it
 * reports a time; a failed check exits non-zero.
 */
#ifndef BENCH_H
#define BENCH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BENCH_CORES 2

double bench_now(void); /* seconds, monotonic */

/* The calibrated compute kernel: `iters` dependent floating-point steps.
 * bench_calibrate measures ns per iteration once per process. */
double bench_spin(uint64_t iters, double seed);
void bench_calibrate(void);
double bench_ns_per_iter(void);
uint64_t bench_iters_for_ns(double ns);

/* One result row on stdout. */
void bench_row(const char *bench, const char *cas, const char *system, const char *metric,
               double value);
/* Median of n values (sorts v). */
double bench_median(double *v, int n);
/* Peak resident set of this process, KiB. */
long bench_peak_rss_kb(void);
/* Exits with a message when a result check fails. */
void bench_fail(const char *system, const char *what);

/* ---- B1: Task-Bench-style graphs ------------------------------------------ */

typedef enum tb_pattern { TB_TRIVIAL = 0, TB_STENCIL = 1, TB_NEAREST = 2 } tb_pattern;

typedef struct tb_graph {
    tb_pattern pattern;
    int width;      /* points per step */
    int steps;
    int radix;      /* nearest: dependencies per point (odd); stencil: 3 */
    uint64_t iters; /* kernel iterations per task */
} tb_graph;

#define TB_MAX_DEPS 8
#define TB_CELL_DOUBLES 8 /* one cell per cache line */

/* Points of step t-1 that task (t, x) reads (none at t = 0); returns count. */
int tb_deps(const tb_graph *g, int t, int x, int *deps);
/* Data: double-buffered cells, cell(t, x) = data[((t & 1) * width + x) * 8].
 * Task (t, x) reads cell(t-1, d) for each dep d and writes cell(t, x): with
 * two buffers, that write must also wait for step t-1's readers (WAR). */
double *tb_alloc(const tb_graph *g);
static inline double *tb_cell(double *data, const tb_graph *g, int t, int x)
{
    return data + ((size_t)(t & 1) * (size_t)g->width + (size_t)x) * TB_CELL_DOUBLES;
}
/* The task body every system runs. */
void tb_task(const tb_graph *g, double *data, int t, int x);
/* Compares data after a run with a serial execution; 0 = equal. */
int tb_verify(const tb_graph *g, const double *data);
long tb_tasks(const tb_graph *g);

/* ---- B2: submit cost -------------------------------------------------------- */

/* n tasks with empty kernels; task i writes cell i and reads cells
 * i-1 .. i-deps (those that exist): exactly `deps` RAW edges per task.
 * Cells are 64 bytes apart; b2_alloc gives n cells. */
double *b2_alloc(int n);
void b2_task(double *cells, int i, int deps); /* the (empty-ish) body: cell[i] = 1 + sum */
int b2_verify(const double *cells, int n, int deps);

/* ---- B3: tile pipeline ---------------------------------------------------- */

/* K independent streams of L steps over tiles of T x T floats.  Per stream s
 * and step j (in its own scope for ours), two tasks:
 *   task a: X   = 0.5 * S[s] + A[s][j % M]   (X: a new tile, freed after b)
 *   task b: S[s] = 0.5 * X    + B[s][j % M]
 * Each task reads 2 tiles and writes 1.  bytes = K * L * 2 * 3 * T*T*4. */
typedef struct b3_spec {
    int streams, steps, tile, inputs; /* K, L, T, M */
} b3_spec;
typedef struct b3_data {
    float **A, **B; /* [K * M] tiles */
    float **S;      /* [K] tiles */
} b3_data;
int b3_alloc(const b3_spec *p, b3_data *d);
void b3_free(const b3_spec *p, b3_data *d);
void b3_task_a(float *X, const float *S, const float *A, int n); /* n = T*T */
void b3_task_b(float *S, const float *X, const float *B, int n);
int b3_verify(const b3_spec *p, const b3_data *d);
double b3_bytes(const b3_spec *p);

/* ---- B4: tiled Cholesky -------------------------------------------------- */

/* n x n SPD matrix in nt x nt tiles of b x b floats, each tile column-major
 * and contiguous: tile (i, j) at tiles[i * nt + j]; lower triangle used. */
typedef struct b4_matrix {
    int n, b, nt;
    float **tiles;
} b4_matrix;
int b4_alloc(b4_matrix *m, int n, int b); /* fills a deterministic SPD matrix */
void b4_free(b4_matrix *m);
/* Serial OpenBLAS tile kernels (the task bodies). */
void b4_potrf(float *akk, int b);
void b4_trsm(const float *akk, float *aik, int b);          /* aik = aik * L_kk^-T */
void b4_syrk(const float *aik, float *aii, int b);          /* aii -= aik aik^T */
void b4_gemm(const float *aik, const float *ajk, float *aij, int b); /* aij -= aik ajk^T */
/* Checks the factor against the original (residual on sampled entries). */
int b4_verify(const b4_matrix *factored, int n, int b);
double b4_flops(int n);

/* ---- the system interface --------------------------------------------------- */

typedef struct bench_system {
    const char *name;   /* row "system" value, e.g. "ours", "omp-gcc" */
    const char *config; /* thread layout and wait policy, for the header */
    int (*init)(int threads);
    void (*fini)(void);
    /* B1: run every task of g on data (zeroed by the caller). */
    int (*run_graph)(const tb_graph *g, double *data);
    /* B2: submit n tasks; *submit_s = until the last submit returned,
     * *total_s = until all completed. */
    int (*submit_cost)(double *cells, int n, int deps, double *submit_s, double *total_s);
    /* B3: run the pipeline on d. */
    int (*pipeline)(const b3_spec *p, b3_data *d);
    /* B4: factor m in place (lower). */
    int (*cholesky)(b4_matrix *m);
} bench_system;

/* Each driver defines its system. */
extern const bench_system bench_sys;

#ifdef __cplusplus
}
#endif
#endif
