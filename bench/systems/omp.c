/*
 * omp.c - the benchmark workloads as OpenMP `depend` tasks (peer adapter).
 *
 * One source, two drivers: gcc + libgomp (bench_omp_gcc) and clang + LLVM
 * libomp (bench_omp_clang); BENCH_OMP_NAME names the system.  Portable
 * OpenMP 4.5: no depend iterators, no detach, no taskgraph.
 *
 * Threads: omp_set_num_threads(threads), i.e. 2 OpenMP threads.  Every
 * workload is one `parallel` region whose `single` thread is the producer
 * (the orchestrator, like our calling thread); the other thread executes
 * tasks.  The producer also executes tasks whenever the runtime throttles
 * task creation (libgomp past 64 queued tasks per thread, libomp when a
 * deque is full) and at the closing taskwait: that is the peer's own
 * behaviour and is measured as is.  Wait policy and binding come from the
 * environment as users leave it (run.sh: the runtime's default wait policy,
 * OMP_PROC_BIND and OMP_PLACES unset, i.e. no pinning; extra rows set
 * OMP_WAIT_POLICY) and are stated in bench_sys.config.
 *
 * Invariants, mirroring ours.c task for task so the results compare like
 * for like:
 * - B1: task (t, x) has depend(in) on cell(t-1, d)[0] for every d of
 *   tb_deps and depend(out) on cell(t, x)[0].  Cells are double-buffered,
 *   so the out on cell(t, x) == cell(t-2, x) also orders it after the
 *   step t-1 readers of that cell (WAR) - the same edges ours sees.
 * - B2: task i has depend(in) on cells i-1 .. i-deps (those that exist) and
 *   depend(out) on cell i.  submit_s stops when the producer has created
 *   the last task, total_s after the taskwait.
 * - B2t: task k has depend(out) on its tile's first element; tiles are
 *   disjoint, so no two tasks depend on each other.  OpenMP has no scopes:
 *   the same tasks are created in the same order, with a taskwait at the
 *   same pool wrap-arounds as ours (b2t_scope_start), excluded from
 *   submit_s as there.
 * - B3: per step j and stream s (j outer, as ours), the producer mallocs a
 *   fresh X tile; task a: in S[s], out X; task b: in X, inout S[s], then
 *   frees X - after its own last read of X, and every reader of X is task a
 *   or b, which b follows.  A/B inputs are read-only and carry no depend.
 * - B4: right-looking tiled Cholesky in ours.c's order (potrf, trsms,
 *   then per row i: syrk, gemms), depend on each tile's first element:
 *   inputs `in`, the updated tile `inout`.  OpenBLAS runs one thread per
 *   task (openblas_set_num_threads(1); the runner also sets
 *   OPENBLAS_NUM_THREADS=1).
 * Variable dependency counts (B1 0..8, B2 0..5) go through a switch over
 * fixed-arity task pragmas; more than TB_MAX_DEPS is an error.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"

#ifndef BENCH_OMP_NAME
#define BENCH_OMP_NAME "omp"
#endif

void openblas_set_num_threads(int);

static char omp_config[512];

static const char *env_or(const char *name, const char *dflt)
{
    const char *v = getenv(name);
    return v && *v ? v : dflt;
}

/* Thread layout, wait policy and binding, from the environment as the
 * runtime will read it (filled before main so a header can print it). */
static void omp_describe(int threads)
{
#if defined(__clang__)
    const char *rt = "LLVM libomp", *cc = "clang " __clang_version__;
    const char *dflt = "default (KMP_BLOCKTIME, 200 ms spin then sleep)";
    const char *spin = env_or("KMP_BLOCKTIME", "unset");
    const char *spin_name = "KMP_BLOCKTIME";
#else
    const char *rt = "libgomp", *cc = "gcc " __VERSION__;
    const char *dflt = "default (spin GOMP_SPINCOUNT, 300k iterations, then futex sleep)";
    const char *spin = env_or("GOMP_SPINCOUNT", "unset");
    const char *spin_name = "GOMP_SPINCOUNT";
#endif
    snprintf(omp_config, sizeof omp_config,
             "%s (%s, OpenMP %d): %d threads = 1 producer (omp single; also runs tasks when "
             "creation throttles and at taskwait) + %d worker(s); wait policy OMP_WAIT_POLICY=%s "
             "%s=%s; binding OMP_PROC_BIND=%s OMP_PLACES=%s; OpenBLAS 1 thread per task",
             rt, cc, _OPENMP, threads, threads - 1, env_or("OMP_WAIT_POLICY", dflt), spin_name,
             spin, env_or("OMP_PROC_BIND", "unset (not pinned)"), env_or("OMP_PLACES", "unset"));
}

__attribute__((constructor)) static void omp_describe_default(void)
{
    omp_describe(BENCH_CORES);
}

static int omp_init(int threads)
{
    if (threads < 1) return 1;
    omp_set_num_threads(threads);
    openblas_set_num_threads(1);
    omp_describe(threads);
    /* Start the team once so the first measured region does not pay for
     * thread creation. */
    int seen = 0;
#pragma omp parallel
    {
#pragma omp atomic
        seen++;
    }
    return seen == threads ? 0 : 1;
}

static void omp_fini(void)
{
}

/* ---- variable-arity task creation (B1, B2) ------------------------------- */

/* A task body with its captured arguments (copied into the task). */
typedef struct omp_job {
    void (*fn)(const struct omp_job *);
    const void *p;
    void *q;
    int a, b;
} omp_job;

/* One task: depend(in) on in[k][0] for k < n, depend(out) on out[0]. */
static int omp_spawn(int n, double *const *in, double *out, omp_job j)
{
    (void)in, (void)out; /* gcc does not count a depend clause as a use */
    switch (n) {
    case 0:
#pragma omp task firstprivate(j) depend(out: out[0])
        j.fn(&j);
        break;
    case 1:
#pragma omp task firstprivate(j) depend(in: in[0][0]) depend(out: out[0])
        j.fn(&j);
        break;
    case 2:
#pragma omp task firstprivate(j) depend(in: in[0][0], in[1][0]) depend(out: out[0])
        j.fn(&j);
        break;
    case 3:
#pragma omp task firstprivate(j) depend(in: in[0][0], in[1][0], in[2][0]) depend(out: out[0])
        j.fn(&j);
        break;
    case 4:
#pragma omp task firstprivate(j) depend(in: in[0][0], in[1][0], in[2][0], in[3][0]) \
    depend(out: out[0])
        j.fn(&j);
        break;
    case 5:
#pragma omp task firstprivate(j) depend(in: in[0][0], in[1][0], in[2][0], in[3][0], in[4][0]) \
    depend(out: out[0])
        j.fn(&j);
        break;
    case 6:
#pragma omp task firstprivate(j) \
    depend(in: in[0][0], in[1][0], in[2][0], in[3][0], in[4][0], in[5][0]) depend(out: out[0])
        j.fn(&j);
        break;
    case 7:
#pragma omp task firstprivate(j) \
    depend(in: in[0][0], in[1][0], in[2][0], in[3][0], in[4][0], in[5][0], in[6][0]) \
    depend(out: out[0])
        j.fn(&j);
        break;
    case 8:
#pragma omp task firstprivate(j) \
    depend(in: in[0][0], in[1][0], in[2][0], in[3][0], in[4][0], in[5][0], in[6][0], in[7][0]) \
    depend(out: out[0])
        j.fn(&j);
        break;
    default:
        return 1;
    }
    return 0;
}

/* ---- B1 -------------------------------------------------------------------- */

static void omp_tb_body(const omp_job *j)
{
    tb_task((const tb_graph *)j->p, (double *)j->q, j->a, j->b);
}

static int omp_run_graph(const tb_graph *g, double *data, double *secs)
{
    int rc = 0;
    double t0 = bench_now();
#pragma omp parallel shared(rc)
#pragma omp single
    {
        for (int t = 0; t < g->steps && !rc; t++)
            for (int x = 0; x < g->width && !rc; x++) {
                int deps[TB_MAX_DEPS], n = tb_deps(g, t, x, deps);
                double *in[TB_MAX_DEPS];
                for (int k = 0; k < n; k++) in[k] = tb_cell(data, g, t - 1, deps[k]);
                omp_job j = {omp_tb_body, g, data, t, x};
                rc = omp_spawn(n, in, tb_cell(data, g, t, x), j);
            }
#pragma omp taskwait
    }
    *secs = bench_now() - t0;
    return rc;
}

/* ---- B2 -------------------------------------------------------------------- */

static void omp_b2_body(const omp_job *j)
{
    b2_task(j->q, j->a, j->b);
}

static int omp_submit_cost(double *cells, int n, int deps, double *submit_s, double *total_s)
{
    int rc = 0;
    double t0 = 0, t1 = 0, t2 = 0;
#pragma omp parallel shared(rc, t0, t1, t2)
#pragma omp single
    {
        t0 = bench_now();
        for (int i = 0; i < n && !rc; i++) {
            double *in[TB_MAX_DEPS];
            int k = 0;
            for (int d = 1; d <= deps && i - d >= 0; d++) in[k++] = cells + (size_t)(i - d) * TB_CELL_DOUBLES;
            omp_job j = {omp_b2_body, NULL, cells, i, deps};
            rc = omp_spawn(k, in, cells + (size_t)i * TB_CELL_DOUBLES, j);
        }
        t1 = bench_now();
#pragma omp taskwait
        t2 = bench_now();
    }
    *submit_s = t1 - t0;
    *total_s = t2 - t0;
    return rc;
}

/* ---- B2t ------------------------------------------------------------------- */

static int omp_tiles(const b2t_spec *p, float *base, double *submit_s, double *total_s)
{
    double t0 = 0, t1 = 0, t2 = 0, waited = 0;
#pragma omp parallel shared(t0, t1, t2, waited)
#pragma omp single
    {
        t0 = bench_now();
        int first;
        for (int k = 0; k < p->scopes; k++) {
            if (b2t_scope_start(p, k, &first)) {
                double w = bench_now();
#pragma omp taskwait
                waited += bench_now() - w;
            }
            for (int j = 0; j < p->scope; j++) {
                float *tile = base + b2t_tile_at(p->shape, first + j).offset;
                (void)tile; /* gcc does not count a depend clause as a use */
#pragma omp task depend(out: tile[0])
                b2t_task();
            }
        }
        t1 = bench_now();
#pragma omp taskwait
        t2 = bench_now();
    }
    *submit_s = t1 - t0 - waited;
    *total_s = t2 - t0;
    return 0;
}

/* ---- B3 -------------------------------------------------------------------- */

static int omp_pipeline(const b3_spec *p, b3_data *d, double *secs)
{
    int n = p->tile * p->tile, rc = 0;
    double t0 = bench_now();
#pragma omp parallel shared(rc)
#pragma omp single
    {
        for (int j = 0; j < p->steps && !rc; j++)
            for (int s = 0; s < p->streams && !rc; s++) {
                float *A = d->A[s * p->inputs + j % p->inputs], *B = d->B[s * p->inputs + j % p->inputs];
                float *S = d->S[s];
                float *X = malloc((size_t)n * sizeof(float));
                if (!X) {
                    rc = 1;
                    break;
                }
#pragma omp task firstprivate(X, S, A, n) depend(in: S[0]) depend(out: X[0])
                b3_task_a(X, S, A, n);
#pragma omp task firstprivate(X, S, B, n) depend(in: X[0]) depend(inout: S[0])
                {
                    b3_task_b(S, X, B, n);
                    free(X);
                }
            }
#pragma omp taskwait
    }
    *secs = bench_now() - t0;
    return rc;
}

/* ---- B4 -------------------------------------------------------------------- */

static int omp_cholesky(b4_matrix *m, double *secs)
{
    int nt = m->nt, b = m->b;
    float **T = m->tiles;
    double t0 = bench_now();
#pragma omp parallel
#pragma omp single
    {
        for (int k = 0; k < nt; k++) {
            float *akk = T[k * nt + k];
#pragma omp task firstprivate(akk, b) depend(inout: akk[0])
            b4_potrf(akk, b);
            for (int i = k + 1; i < nt; i++) {
                float *aik = T[i * nt + k];
#pragma omp task firstprivate(akk, aik, b) depend(in: akk[0]) depend(inout: aik[0])
                b4_trsm(akk, aik, b);
            }
            for (int i = k + 1; i < nt; i++) {
                float *aik = T[i * nt + k], *aii = T[i * nt + i];
#pragma omp task firstprivate(aik, aii, b) depend(in: aik[0]) depend(inout: aii[0])
                b4_syrk(aik, aii, b);
                for (int j = k + 1; j < i; j++) {
                    float *ajk = T[j * nt + k], *aij = T[i * nt + j];
#pragma omp task firstprivate(aik, ajk, aij, b) depend(in: aik[0], ajk[0]) depend(inout: aij[0])
                    b4_gemm(aik, ajk, aij, b);
                }
            }
        }
#pragma omp taskwait
    }
    *secs = bench_now() - t0;
    return 0;
}

const bench_system bench_sys = {
    .name = BENCH_OMP_NAME,
    .config = omp_config,
    .init = omp_init,
    .fini = omp_fini,
    .run_graph = omp_run_graph,
    .submit_cost = omp_submit_cost,
    .tiles = omp_tiles,
    .pipeline = omp_pipeline,
    .cholesky = omp_cholesky,
};
