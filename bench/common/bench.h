/*
 * bench.h - what every benchmark driver shares: the clock, the calibrated
 * busy kernel, result rows, each workload's data, task bodies and
 * sequential reference, and the interface a system (ours or a peer)
 * implements.
 *
 * A driver process hosts exactly one system (libgomp and LLVM libomp cannot
 * share a process).  It prints one JSON object per result line on stdout:
 * {"bench": "B1", "case": "stencil_w2", "system": "ours", "metric": "metg_us", "value": 1.2}
 * Every workload checks ALL of its output against a sequential reference
 * before it reports a time; a failed check exits non-zero.
 *
 * Timing: each system measures its own timed region and returns it, so that
 * setup a user does once per data set (StarPU handle registration) stays
 * outside it, as every other system's setup does.
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
/* Peak resident set of this process, KiB. */
long bench_peak_rss_kb(void);
/* Exits with a message when a result check fails. */
void bench_fail(const char *system, const char *what);
/* 64-byte aligned, zeroed; exits when out of memory. */
void *bench_alloc(size_t bytes);

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
/* Data: double-buffered cells, cell(t, x) = data[((t & 1) * width + x) * 8],
 * then the trace: one double per task, the value task (t, x) computed.
 * Task (t, x) reads cell(t-1, d) for each dep d and writes cell(t, x): with
 * two buffers, that write must also wait for step t-1's readers (WAR).
 * Its trace entry is its own: no task reads it, so it adds no edge. */
double *tb_alloc(const tb_graph *g);
static inline double *tb_cell(double *data, const tb_graph *g, int t, int x)
{
    return data + ((size_t)(t & 1) * (size_t)g->width + (size_t)x) * TB_CELL_DOUBLES;
}
/* The task body every system runs. */
void tb_task(const tb_graph *g, double *data, int t, int x);
/* Compares every task's traced value (every step, every point) with a
 * serial execution; 0 = equal. */
int tb_verify(const tb_graph *g, const double *data);
long tb_tasks(const tb_graph *g);

/* ---- B2: submit cost -------------------------------------------------------- */

/* n tasks with empty kernels; task i writes cell i and reads cells
 * i-1 .. i-deps (those that exist): exactly `deps` RAW edges per task.
 * Cells are 64 bytes apart; b2_alloc gives n cells. */
double *b2_alloc(int n);
void b2_task(double *cells, int i, int deps); /* the (empty-ish) body: cell[i] = 1 + sum */
int b2_verify(const double *cells, int n, int deps); /* every cell */

/* ---- B2t: independent tasks on disjoint tiles of one allocation -------------- */

/* The tile shapes, all of one fp32 allocation:
 *   B2T_SLICES: 1-d, 64-byte slices (16 floats) of one buffer;
 *   B2T_ROWS:   2-d, 1 x 1024 row tiles of a 4096 x 4096 matrix;
 *   B2T_COLS:   2-d, 1024 x 1 column tiles of the same matrix (real row
 *               stride 4096: column tiles' byte ranges overlap, only N-d box
 *               math tells them apart).
 * The pool holds B2T_POOL disjoint tiles (two scopes of 8,192).  Task k of
 * a run writes tile k mod B2T_POOL; tile i of the matrix is row/column
 * i mod 4096 in quarter i / 4096, so neighbouring tasks touch different
 * rows/columns.  A run waits for every task before it wraps around the
 * pool, so no two tasks between waits share a tile: every task is
 * independent, and a wait costs the same per task at every scope size. */
typedef enum b2t_shape { B2T_SLICES = 0, B2T_ROWS = 1, B2T_COLS = 2 } b2t_shape;
#define B2T_POOL 16384
#define B2T_DIM 4096

typedef struct b2t_spec {
    b2t_shape shape;
    int scope;  /* tasks per scope, <= B2T_POOL */
    int scopes; /* scopes per run */
} b2t_spec;

/* A tile in elements: offset into the allocation, rows x cols (1-d: 1 x n),
 * rows B2T_DIM elements apart. */
typedef struct b2t_tile {
    int64_t offset;
    uint64_t rows, cols;
} b2t_tile;

const char *b2t_shape_name(b2t_shape s); /* "slices", "rows", "cols" */
float *b2t_alloc(b2t_shape s);
b2t_tile b2t_tile_at(b2t_shape s, int i); /* i < B2T_POOL */
/* Scope k's first tile; returns 1 when every earlier task must have
 * completed before scope k starts (the pool wraps around). */
int b2t_scope_start(const b2t_spec *p, int k, int *first);
/* The empty task body: counts itself (per thread, no shared line). */
void b2t_task(void);
/* Tasks counted since the last call (call when none is running). */
long b2t_ran(void);

/* ---- B3: tile pipeline ---------------------------------------------------- */

/* K independent streams of L steps over tiles of T x T floats.  Per stream s
 * and step j (in its own scope for ours), two tasks:
 *   task a: X    = S[s] + A[s][j % M]   (X: a new tile, freed after b)
 *   task b: S[s] = X    + B[s][j % M]
 * Each task reads 2 tiles and writes 1.  bytes = K * L * 2 * 3 * T*T*4.
 * Inputs are small multiples of 1/4, so every sum is exact in fp32 and
 * S[s] ends as the exact sum of all its steps' inputs: a step missed,
 * repeated or run out of order (a stale S or X read) changes the final
 * state, which b3_verify compares in full. */
typedef struct b3_spec {
    int streams, steps, tile, inputs; /* K, L, T, M */
} b3_spec;
typedef struct b3_data {
    float **A, **B; /* [K * M] tiles */
    float **S;      /* [K] tiles */
    float **ref;    /* [K] tiles: the serial result */
} b3_data;
void b3_alloc(const b3_spec *p, b3_data *d); /* inputs, zeroed S, the reference */
void b3_reset(const b3_spec *p, b3_data *d); /* S back to zero before a run */
void b3_free(const b3_spec *p, b3_data *d);
void b3_task_a(float *X, const float *S, const float *A, int n); /* n = T*T */
void b3_task_b(float *S, const float *X, const float *B, int n);
int b3_verify(const b3_spec *p, const b3_data *d); /* every element of every stream */
double b3_bytes(const b3_spec *p);
double b3_input_bytes(const b3_spec *p); /* the A and B tiles: the working set streamed */

/* ---- B4: tiled Cholesky -------------------------------------------------- */

/* n x n SPD matrix in nt x nt tiles of b x b floats, each tile column-major
 * and contiguous: tile (i, j) at tiles[i * nt + j]; lower triangle used. */
typedef struct b4_matrix {
    int n, b, nt;
    float **tiles;
    float *ref; /* n x n column-major: the serial LAPACKE_spotrf factor */
} b4_matrix;
/* Fills a deterministic SPD matrix and computes the reference factor. */
void b4_alloc(b4_matrix *m, int n, int b);
void b4_fill(b4_matrix *m); /* refills the matrix before a run */
void b4_free(b4_matrix *m);
/* Serial OpenBLAS tile kernels (the task bodies). */
void b4_potrf(float *akk, int b);
void b4_trsm(const float *akk, float *aik, int b);          /* aik = aik * L_kk^-T */
void b4_syrk(const float *aik, float *aii, int b);          /* aii -= aik aik^T */
void b4_gemm(const float *aik, const float *ajk, float *aij, int b); /* aij -= aik ajk^T */
/* Checks every element of the factor against the reference; 0 = close. */
int b4_verify(const b4_matrix *factored);
double b4_flops(int n);

/* ---- the system interface --------------------------------------------------- */

/* Every workload returns 0 or non-zero and its timed seconds through *secs
 * (B1, B3, B4) or *submit_s / *total_s (B2, B2t): from the first task
 * submitted until all completed, registration of data with the runtime
 * excluded. */
typedef struct bench_system {
    const char *name;   /* row "system" value, e.g. "ours", "omp-gcc" */
    const char *config; /* thread layout and wait policy, for the header */
    int (*init)(int threads);
    void (*fini)(void);
    /* B1: run every task of g on data (zeroed by the caller). */
    int (*run_graph)(const tb_graph *g, double *data, double *secs);
    /* B2: submit n tasks; *submit_s = until the last submit returned,
     * *total_s = until all completed. */
    int (*submit_cost)(double *cells, int n, int deps, double *submit_s, double *total_s);
    /* B2t: p->scopes scopes of p->scope tasks on tiles of base; *submit_s =
     * time in submission (the pool-wrap waits excluded), *total_s = until
     * all completed.  NULL: not taken part in. */
    int (*tiles)(const b2t_spec *p, float *base, double *submit_s, double *total_s);
    /* B3: run the pipeline on d. */
    int (*pipeline)(const b3_spec *p, b3_data *d, double *secs);
    /* B4: factor m in place (lower). */
    int (*cholesky)(b4_matrix *m, double *secs);
} bench_system;

/* Each driver defines its system. */
extern const bench_system bench_sys;

#ifdef __cplusplus
}
#endif
#endif
