/*
 * starpu.c - the benchmark workloads through StarPU 1.3 (the peer adapter
 * behind bench_starpu).  Our own code around the installed library.
 *
 * Threads: STARPU_NCPU = 2 CPU workers under the lws scheduler; binding as
 * the environment says (run.sh sets STARPU_WORKERS_NOBIND=1: no runtime is
 * pinned), stated in the config line.  The calling (submitting) thread is
 * not a worker and shares a core with one.  This StarPU build uses
 * non-blocking drivers, so idle workers poll.  No CUDA/OpenCL workers, no
 * calibration and no performance models (the codelets carry none);
 * STARPU_HOME is a private temporary folder, removed again at fini.
 *
 * Invariants:
 * - Dependencies come only from StarPU's sequential consistency over
 *   registered handles (STARPU_R / STARPU_W / STARPU_RW), the analogue of
 *   OpenMP `depend`: no explicit task dependencies, no tags.
 * - Every workload submits the same tasks, in the same order and with the
 *   same accesses, as ours.c.
 * - Existing memory is registered with home node STARPU_MAIN_RAM; only CPU
 *   workers exist, so a kernel's buffers are that memory itself.  Every
 *   handle is unregistered (which waits and writes back) before a workload
 *   returns, so the driver checks the results in place.
 * - The timed region runs from the first task inserted until
 *   starpu_task_wait_for_all returns: registering the workload's existing
 *   data before it and unregistering it after are setup, outside the
 *   clock, like every other system's setup.  B3's per-step temporary X
 *   handle is per-task allocation (the peers' malloc/free) and stays inside.
 * - B2t: not taken part in.  StarPU orders tasks by handle, not by view:
 *   tiles of one allocation would first have to be partitioned into
 *   sub-handles (starpu_data_partition), a different operation from the one
 *   B2t measures.
 * - init runs starpu_init once before all repetitions; fini runs
 *   starpu_shutdown, so no StarPU thread outlives this section.
 */
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <starpu.h>

#include "bench.h"

void openblas_set_num_threads(int);

static char home_dir[256]; /* the STARPU_HOME we created, or "" */
static char starpu_config[512];

/* Filled before main, so that `info` prints the binding the run uses. */
__attribute__((constructor)) static void starpu_describe(void)
{
    const char *nobind = getenv("STARPU_WORKERS_NOBIND");
    snprintf(starpu_config, sizeof starpu_config,
             "StarPU %d.%d (starpu_task_insert, sched lws): STARPU_NCPU=2 CPU workers, %s; the "
             "submitting main thread is not a worker and shares a core; idle workers poll "
             "(non-blocking drivers build); no calibration, no perf models; handle "
             "(un)registration outside the timed region",
             STARPU_MAJOR_VERSION, STARPU_MINOR_VERSION,
             nobind && !strcmp(nobind, "1") ? "not pinned (STARPU_WORKERS_NOBIND=1)"
                                            : "bound to cores (StarPU default binding)");
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static int starpu_bench_init(int threads)
{
    char n[16];
    snprintf(n, sizeof n, "%d", threads);
    setenv("STARPU_SCHED", "lws", 1);
    setenv("STARPU_NCPU", n, 1);
    setenv("STARPU_NCUDA", "0", 1);
    setenv("STARPU_NOPENCL", "0", 1);
    setenv("STARPU_SILENT", "1", 1);
    setenv("STARPU_CALIBRATE", "0", 1);
    home_dir[0] = '\0';
    if (!getenv("STARPU_HOME")) {
        const char *tmp = getenv("TMPDIR");
        snprintf(home_dir, sizeof home_dir, "%s/bench-starpu-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(home_dir)) {
            perror("bench_starpu: mkdtemp");
            return 1;
        }
        setenv("STARPU_HOME", home_dir, 1);
    }
    openblas_set_num_threads(1); /* serial BLAS inside tasks */
    int rc = starpu_init(NULL);
    if (rc) fprintf(stderr, "bench_starpu: starpu_init: %d\n", rc);
    return rc ? 1 : 0;
}

static void starpu_bench_fini(void)
{
    starpu_shutdown();
    if (home_dir[0]) nftw(home_dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---- B1 -------------------------------------------------------------------- */

static void tb_kernel(void *buffers[], void *arg)
{
    (void)buffers;
    const tb_graph *g;
    double *data;
    int t, x;
    starpu_codelet_unpack_args(arg, &g, &data, &t, &x);
    tb_task(g, data, t, x);
}

/* Variable arity: the accesses come from each task's descriptor array. */
static struct starpu_codelet tb_cl = {
    .where = STARPU_CPU,
    .cpu_funcs = {tb_kernel},
    .nbuffers = STARPU_VARIABLE_NBUFFERS,
    .name = "tb",
};

static int starpu_run_graph(const tb_graph *g, double *data, double *secs)
{
    int w = g->width, rc = 0;
    starpu_data_handle_t *h = malloc(2 * (size_t)w * sizeof *h); /* h[(t & 1) * w + x] */
    if (!h) return 1;
    for (int b = 0; b < 2; b++)
        for (int x = 0; x < w; x++)
            starpu_variable_data_register(&h[b * w + x], STARPU_MAIN_RAM,
                                          (uintptr_t)tb_cell(data, g, b, x),
                                          TB_CELL_DOUBLES * sizeof(double));
    double t0 = bench_now();
    for (int t = 0; t < g->steps && !rc; t++)
        for (int x = 0; x < w && !rc; x++) {
            int deps[TB_MAX_DEPS], n = tb_deps(g, t, x, deps);
            struct starpu_data_descr d[TB_MAX_DEPS + 1];
            for (int k = 0; k < n; k++)
                d[k] = (struct starpu_data_descr){h[((t - 1) & 1) * w + deps[k]], STARPU_R};
            d[n] = (struct starpu_data_descr){h[(t & 1) * w + x], STARPU_W};
            rc = starpu_task_insert(&tb_cl, STARPU_DATA_MODE_ARRAY, d, n + 1,
                                    STARPU_VALUE, &g, sizeof g, STARPU_VALUE, &data, sizeof data,
                                    STARPU_VALUE, &t, sizeof t, STARPU_VALUE, &x, sizeof x, 0);
        }
    starpu_task_wait_for_all();
    *secs = bench_now() - t0;
    for (int i = 0; i < 2 * w; i++) starpu_data_unregister(h[i]);
    free(h);
    return rc;
}

/* ---- B2 -------------------------------------------------------------------- */

static void b2_kernel(void *buffers[], void *arg)
{
    (void)buffers;
    double *cells;
    int i, deps;
    starpu_codelet_unpack_args(arg, &cells, &i, &deps);
    b2_task(cells, i, deps);
}

static struct starpu_codelet b2_cl = {
    .where = STARPU_CPU,
    .cpu_funcs = {b2_kernel},
    .nbuffers = STARPU_VARIABLE_NBUFFERS,
    .name = "b2",
};

/* Registration (one handle per cell) happens before the clock starts and
 * unregistration after it stops: the timed part is submission and run. */
static int starpu_submit_cost(double *cells, int n, int deps, double *submit_s, double *total_s)
{
    if (deps > 7) return 1;
    starpu_data_handle_t *h = malloc((size_t)n * sizeof *h);
    if (!h) return 1;
    for (int i = 0; i < n; i++)
        starpu_variable_data_register(&h[i], STARPU_MAIN_RAM,
                                      (uintptr_t)(cells + (size_t)i * TB_CELL_DOUBLES),
                                      TB_CELL_DOUBLES * sizeof(double));
    int rc = 0;
    double t0 = bench_now();
    for (int i = 0; i < n && !rc; i++) {
        struct starpu_data_descr d[8];
        int k = 0;
        for (int j = 1; j <= deps && i - j >= 0; j++)
            d[k++] = (struct starpu_data_descr){h[i - j], STARPU_R};
        d[k++] = (struct starpu_data_descr){h[i], STARPU_W};
        rc = starpu_task_insert(&b2_cl, STARPU_DATA_MODE_ARRAY, d, k, STARPU_VALUE, &cells, sizeof cells,
                                STARPU_VALUE, &i, sizeof i, STARPU_VALUE, &deps, sizeof deps, 0);
    }
    *submit_s = bench_now() - t0;
    starpu_task_wait_for_all();
    *total_s = bench_now() - t0;
    for (int i = 0; i < n; i++) starpu_data_unregister(h[i]);
    free(h);
    return rc;
}

/* ---- B3 -------------------------------------------------------------------- */

static void b3a_kernel(void *buffers[], void *arg)
{
    (void)arg;
    b3_task_a((float *)STARPU_VECTOR_GET_PTR(buffers[0]), (const float *)STARPU_VECTOR_GET_PTR(buffers[1]),
              (const float *)STARPU_VECTOR_GET_PTR(buffers[2]), (int)STARPU_VECTOR_GET_NX(buffers[0]));
}

static void b3b_kernel(void *buffers[], void *arg)
{
    (void)arg;
    b3_task_b((float *)STARPU_VECTOR_GET_PTR(buffers[0]), (const float *)STARPU_VECTOR_GET_PTR(buffers[1]),
              (const float *)STARPU_VECTOR_GET_PTR(buffers[2]), (int)STARPU_VECTOR_GET_NX(buffers[0]));
}

static struct starpu_codelet b3a_cl = {
    .where = STARPU_CPU,
    .cpu_funcs = {b3a_kernel},
    .nbuffers = 3,
    .modes = {STARPU_W, STARPU_R, STARPU_R}, /* X, S[s], A */
    .name = "b3a",
};

static struct starpu_codelet b3b_cl = {
    .where = STARPU_CPU,
    .cpu_funcs = {b3b_kernel},
    .nbuffers = 3,
    .modes = {STARPU_RW, STARPU_R, STARPU_R}, /* S[s], X, B */
    .name = "b3b",
};

/* X is a temporary handle per stream step: registered without memory (home
 * node -1), so StarPU allocates it for task a's write, and handed back with
 * starpu_data_unregister_submit once task b is submitted. */
static int starpu_pipeline(const b3_spec *p, b3_data *d, double *secs)
{
    uint32_t n = (uint32_t)p->tile * (uint32_t)p->tile;
    int K = p->streams, M = p->inputs, rc = 0;
    size_t tiles = (size_t)K * M;
    starpu_data_handle_t *hA = malloc(tiles * sizeof *hA), *hB = malloc(tiles * sizeof *hB),
                         *hS = malloc((size_t)K * sizeof *hS);
    if (!hA || !hB || !hS) {
        free(hA), free(hB), free(hS);
        return 1;
    }
    for (size_t i = 0; i < tiles; i++) {
        starpu_vector_data_register(&hA[i], STARPU_MAIN_RAM, (uintptr_t)d->A[i], n, sizeof(float));
        starpu_vector_data_register(&hB[i], STARPU_MAIN_RAM, (uintptr_t)d->B[i], n, sizeof(float));
    }
    for (int s = 0; s < K; s++)
        starpu_vector_data_register(&hS[s], STARPU_MAIN_RAM, (uintptr_t)d->S[s], n, sizeof(float));
    double t0 = bench_now();
    for (int j = 0; j < p->steps && !rc; j++)
        for (int s = 0; s < K && !rc; s++) {
            int in = s * M + j % M;
            starpu_data_handle_t X;
            starpu_vector_data_register(&X, -1, 0, n, sizeof(float));
            rc = starpu_task_insert(&b3a_cl, STARPU_W, X, STARPU_R, hS[s], STARPU_R, hA[in], 0);
            if (!rc) rc = starpu_task_insert(&b3b_cl, STARPU_RW, hS[s], STARPU_R, X, STARPU_R, hB[in], 0);
            starpu_data_unregister_submit(X);
        }
    starpu_task_wait_for_all();
    *secs = bench_now() - t0;
    for (size_t i = 0; i < tiles; i++) starpu_data_unregister(hA[i]), starpu_data_unregister(hB[i]);
    for (int s = 0; s < K; s++) starpu_data_unregister(hS[s]);
    free(hA), free(hB), free(hS);
    return rc;
}

/* ---- B4 -------------------------------------------------------------------- */

#define TILE(i) ((float *)STARPU_MATRIX_GET_PTR(buffers[i]))

static void potrf_kernel(void *buffers[], void *arg)
{
    (void)arg;
    b4_potrf(TILE(0), (int)STARPU_MATRIX_GET_NX(buffers[0]));
}

static void trsm_kernel(void *buffers[], void *arg)
{
    (void)arg;
    b4_trsm(TILE(0), TILE(1), (int)STARPU_MATRIX_GET_NX(buffers[0]));
}

static void syrk_kernel(void *buffers[], void *arg)
{
    (void)arg;
    b4_syrk(TILE(0), TILE(1), (int)STARPU_MATRIX_GET_NX(buffers[0]));
}

static void gemm_kernel(void *buffers[], void *arg)
{
    (void)arg;
    b4_gemm(TILE(0), TILE(1), TILE(2), (int)STARPU_MATRIX_GET_NX(buffers[0]));
}

/* The last buffer is the tile a kernel updates (RW), as in ours.c. */
static struct starpu_codelet potrf_cl = {
    .where = STARPU_CPU, .cpu_funcs = {potrf_kernel}, .nbuffers = 1, .modes = {STARPU_RW}, .name = "potrf"};
static struct starpu_codelet trsm_cl = {
    .where = STARPU_CPU, .cpu_funcs = {trsm_kernel}, .nbuffers = 2, .modes = {STARPU_R, STARPU_RW},
    .name = "trsm"};
static struct starpu_codelet syrk_cl = {
    .where = STARPU_CPU, .cpu_funcs = {syrk_kernel}, .nbuffers = 2, .modes = {STARPU_R, STARPU_RW},
    .name = "syrk"};
static struct starpu_codelet gemm_cl = {
    .where = STARPU_CPU, .cpu_funcs = {gemm_kernel}, .nbuffers = 3, .modes = {STARPU_R, STARPU_R, STARPU_RW},
    .name = "gemm"};

/* Right-looking tiled Cholesky, lower triangle, in ours.c's order. */
static int starpu_cholesky(b4_matrix *m, double *secs)
{
    int nt = m->nt, b = m->b, rc = 0;
    starpu_data_handle_t *h = calloc((size_t)nt * nt, sizeof *h); /* lower tiles only */
    if (!h) return 1;
    for (int i = 0; i < nt; i++)
        for (int j = 0; j <= i; j++)
            starpu_matrix_data_register(&h[i * nt + j], STARPU_MAIN_RAM, (uintptr_t)m->tiles[i * nt + j],
                                        (uint32_t)b, (uint32_t)b, (uint32_t)b, sizeof(float));
    double t0 = bench_now();
    for (int k = 0; k < nt && !rc; k++) {
        rc = starpu_task_insert(&potrf_cl, STARPU_RW, h[k * nt + k], 0);
        for (int i = k + 1; i < nt && !rc; i++)
            rc = starpu_task_insert(&trsm_cl, STARPU_R, h[k * nt + k], STARPU_RW, h[i * nt + k], 0);
        for (int i = k + 1; i < nt && !rc; i++) {
            rc = starpu_task_insert(&syrk_cl, STARPU_R, h[i * nt + k], STARPU_RW, h[i * nt + i], 0);
            for (int j = k + 1; j < i && !rc; j++)
                rc = starpu_task_insert(&gemm_cl, STARPU_R, h[i * nt + k], STARPU_R, h[j * nt + k], STARPU_RW,
                                        h[i * nt + j], 0);
        }
    }
    starpu_task_wait_for_all();
    *secs = bench_now() - t0;
    for (int i = 0; i < nt; i++)
        for (int j = 0; j <= i; j++) starpu_data_unregister(h[i * nt + j]);
    free(h);
    return rc;
}

const bench_system bench_sys = {
    .name = "starpu",
    .config = starpu_config,
    .init = starpu_bench_init,
    .fini = starpu_bench_fini,
    .run_graph = starpu_run_graph,
    .submit_cost = starpu_submit_cost,
    .tiles = NULL,
    .pipeline = starpu_pipeline,
    .cholesky = starpu_cholesky,
};
