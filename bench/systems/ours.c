/*
 * ours.c - the benchmark workloads through libpto's C API.
 *
 * Threads: 1 + 1 by default: one worker plus the calling thread as
 * orchestrator, which runs ready tasks itself while it waits in pto_runtime_finish
 * (PTO_BENCH_WORKERS overrides the worker count).  Each B1 step, B2 chunk,
 * B2t scope, B3 stream step and B4 panel is one scope, so every ring drains
 * as it goes.
 *
 * Ring sizes: the compile-time defaults, as a user gets them (system
 * "ours").  PTO_BENCH_SIZED=1 (run.sh names that row "ours-sized") gives
 * ring 0 a 4 MiB heap, the sizing a user would pick from scope stats for
 * B3: an extra row, never counted as "ours".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "pto/runtime.h"

static pto_runtime *rt;
static char ours_config[512];

void openblas_set_num_threads(int);

static int ours_sized(void)
{
    const char *s = getenv("PTO_BENCH_SIZED");
    return s && !strcmp(s, "1");
}

/* Filled before main, so that `info` prints what init will use. */
__attribute__((constructor)) static void ours_describe(void)
{
    snprintf(ours_config, sizeof ours_config,
             "libpto: 1 worker + the orchestrator (calling thread), which runs ready tasks while it "
             "waits in pto_runtime_finish; idle threads spin 50 us, then park on a futex; no pinning; libpto "
             "built " BENCH_LIB_OPT "; %s",
             ours_sized() ? "rings sized from scope stats: ring-0 heap 4 MiB (B3's intermediates "
                            "stay cache-warm), other sizes default"
                          : "default ring sizes");
}

static int ours_init(int threads)
{
    pto_config c;
    memset(&c, 0, sizeof c);
    const char *w = getenv("PTO_BENCH_WORKERS");
    c.num_workers = w ? atoi(w) : threads - 1; /* 1 + 1: the orchestrator helps in pto_runtime_finish */
    c.stall_timeout_ms = -1; /* 256 us kernels x thousands: never a stall */
    if (ours_sized()) c.runtime_env.ring_heap[0] = 4u << 20;
    openblas_set_num_threads(1); /* B4 tile kernels run serial BLAS, like every peer */
    return pto_runtime_create(&c, &rt, NULL) == 0 ? 0 : 1;
}

static void ours_fini(void)
{
    pto_runtime_destroy(rt);
}

static pto_arg cell_arg(pto_arg_tag tag, double *cell)
{
    pto_arg a = {tag, pto_view_1d(cell, sizeof(double), 0, 1, PTO_INVALID_TASK_ID)};
    return a;
}

/* ---- B1 -------------------------------------------------------------------- */

static int ours_tb_kernel(const pto_kernel_args *a)
{
    tb_task((const tb_graph *)(uintptr_t)a->scalars[0], (double *)(uintptr_t)a->scalars[1],
            (int)a->scalars[2], (int)a->scalars[3]);
    return 0;
}

static int ours_run_graph(const tb_graph *g, double *data, double *secs)
{
    int rc = 0;
    double t0 = bench_now();
    for (int t = 0; t < g->steps && !rc; t++) {
        rc = pto_scope_begin(rt, PTO_SCOPE_AUTO, __FILE__, __LINE__);
        for (int x = 0; x < g->width && !rc; x++) {
            int deps[TB_MAX_DEPS], n = tb_deps(g, t, x, deps);
            pto_arg args[TB_MAX_DEPS + 1];
            for (int k = 0; k < n; k++) args[k] = cell_arg(PTO_ARG_IN, tb_cell(data, g, t - 1, deps[k]));
            args[n] = cell_arg(PTO_ARG_OUTPUT_EXISTING, tb_cell(data, g, t, x));
            uint64_t sc[4] = {(uintptr_t)g, (uintptr_t)data, (uint64_t)t, (uint64_t)x};
            pto_task task = {.kernel = ours_tb_kernel, .name = "tb", .args = args,
                             .num_args = (uint32_t)n + 1, .scalars = sc, .num_scalars = 4};
            rc = pto_task_submit(rt, &task, NULL);
        }
        if (!rc) rc = pto_scope_end(rt);
    }
    int frc = pto_runtime_finish(rt);
    *secs = bench_now() - t0;
    return rc ? rc : frc;
}

/* ---- B2 -------------------------------------------------------------------- */

static int ours_b2_kernel(const pto_kernel_args *a)
{
    b2_task((double *)(uintptr_t)a->scalars[0], (int)a->scalars[1], (int)a->scalars[2]);
    return 0;
}

static int ours_submit_cost(double *cells, int n, int deps, double *submit_s, double *total_s)
{
    enum { CHUNK = 1024 };
    int rc = 0;
    double t0 = bench_now();
    for (int i = 0; i < n && !rc; i++) {
        if (i % CHUNK == 0) rc = pto_scope_begin(rt, PTO_SCOPE_AUTO, __FILE__, __LINE__);
        pto_arg args[8];
        int k = 0;
        for (int d = 1; d <= deps && i - d >= 0; d++)
            args[k++] = cell_arg(PTO_ARG_IN, cells + (size_t)(i - d) * TB_CELL_DOUBLES);
        args[k++] = cell_arg(PTO_ARG_OUTPUT_EXISTING, cells + (size_t)i * TB_CELL_DOUBLES);
        uint64_t sc[3] = {(uintptr_t)cells, (uint64_t)i, (uint64_t)deps};
        pto_task task = {.kernel = ours_b2_kernel, .name = "b2", .args = args, .num_args = (uint32_t)k,
                         .scalars = sc, .num_scalars = 3};
        if (!rc) rc = pto_task_submit(rt, &task, NULL);
        if (!rc && (i % CHUNK == CHUNK - 1 || i == n - 1)) rc = pto_scope_end(rt);
    }
    *submit_s = bench_now() - t0;
    int frc = pto_runtime_finish(rt);
    *total_s = bench_now() - t0;
    return rc ? rc : frc;
}

/* ---- B2t ------------------------------------------------------------------- */

static int ours_b2t_kernel(const pto_kernel_args *a)
{
    (void)a;
    b2t_task();
    return 0;
}

/* Disjoint tiles must give no dependency edge: any edge to a pending
 * producer takes a dep-pool entry, so every ring's pool peak stays 0. */
static void ours_b2t_no_edges(void)
{
    for (int r = 0; r < PTO_NUM_RINGS; r++) {
        pto_ring_usage u;
        if (pto_ring_usage_get(rt, r, &u) == 0 && u.dep_pool_peak != 0)
            bench_fail("ours", "B2t: dependency edges between tasks on disjoint tiles");
    }
}

static int ours_tiles(const b2t_spec *p, float *base, double *submit_s, double *total_s)
{
    int rc = 0, first;
    double t0 = bench_now(), waited = 0;
    for (int k = 0; k < p->scopes && !rc; k++) {
        if (b2t_scope_start(p, k, &first)) {
            double w = bench_now();
            rc = pto_runtime_finish(rt);
            waited += bench_now() - w;
        }
        if (!rc) rc = pto_scope_begin(rt, PTO_SCOPE_AUTO, __FILE__, __LINE__);
        for (int j = 0; j < p->scope && !rc; j++) {
            b2t_tile t = b2t_tile_at(p->shape, first + j);
            pto_arg a = {PTO_ARG_OUTPUT_EXISTING,
                         p->shape == B2T_SLICES
                             ? pto_view_1d(base, sizeof(float), t.offset, t.cols, PTO_INVALID_TASK_ID)
                             : pto_view_2d(base, sizeof(float), t.offset, t.rows, t.cols, B2T_DIM,
                                           PTO_INVALID_TASK_ID)};
            pto_task task = {.kernel = ours_b2t_kernel, .name = "b2t", .args = &a, .num_args = 1};
            rc = pto_task_submit(rt, &task, NULL);
        }
        if (!rc) rc = pto_scope_end(rt);
    }
    *submit_s = bench_now() - t0 - waited;
    int frc = pto_runtime_finish(rt);
    *total_s = bench_now() - t0;
    ours_b2t_no_edges();
    return rc ? rc : frc;
}

/* ---- B3 -------------------------------------------------------------------- */

static int ours_b3_a(const pto_kernel_args *a)
{
    b3_task_a(a->views[0].addr, a->views[1].addr, a->views[2].addr, (int)a->scalars[0]);
    return 0;
}

static int ours_b3_b(const pto_kernel_args *a)
{
    b3_task_b(a->views[0].addr, a->views[1].addr, a->views[2].addr, (int)a->scalars[0]);
    return 0;
}

static int ours_pipeline(const b3_spec *p, b3_data *d, double *secs)
{
    uint64_t n = (uint64_t)p->tile * p->tile;
    int rc = 0;
    double t0 = bench_now();
    for (int j = 0; j < p->steps && !rc; j++) {
        for (int s = 0; s < p->streams && !rc; s++) {
            float *A = d->A[s * p->inputs + j % p->inputs], *B = d->B[s * p->inputs + j % p->inputs];
            pto_view S = pto_view_1d(d->S[s], sizeof(float), 0, n, PTO_INVALID_TASK_ID);
            rc = pto_scope_begin(rt, PTO_SCOPE_AUTO, __FILE__, __LINE__);
            pto_arg aa[3] = {{PTO_ARG_OUT, pto_view_1d(NULL, sizeof(float), 0, n, PTO_INVALID_TASK_ID)},
                             {PTO_ARG_IN, S},
                             {PTO_ARG_IN, pto_view_1d(A, sizeof(float), 0, n, PTO_INVALID_TASK_ID)}};
            uint64_t sc = n;
            pto_task ta = {.kernel = ours_b3_a, .name = "b3a", .args = aa, .num_args = 3, .scalars = &sc,
                           .num_scalars = 1};
            if (!rc) rc = pto_task_submit(rt, &ta, NULL);
            pto_arg ba[3] = {{PTO_ARG_OUTPUT_EXISTING, S}, {PTO_ARG_IN, aa[0].view},
                             {PTO_ARG_IN, pto_view_1d(B, sizeof(float), 0, n, PTO_INVALID_TASK_ID)}};
            pto_task tb = {.kernel = ours_b3_b, .name = "b3b", .args = ba, .num_args = 3, .scalars = &sc,
                           .num_scalars = 1};
            if (!rc) rc = pto_task_submit(rt, &tb, NULL);
            if (!rc) rc = pto_scope_end(rt);
        }
    }
    int frc = pto_runtime_finish(rt);
    *secs = bench_now() - t0;
    return rc ? rc : frc;
}

/* ---- B4 -------------------------------------------------------------------- */

enum { POTRF, TRSM, SYRK, GEMM };

static int ours_b4_kernel(const pto_kernel_args *a)
{
    int b = (int)a->scalars[1];
    const pto_view *v = a->views;
    switch (a->scalars[0]) {
    case POTRF: b4_potrf(v[0].addr, b); break;
    case TRSM: b4_trsm(v[0].addr, v[1].addr, b); break;
    case SYRK: b4_syrk(v[0].addr, v[1].addr, b); break;
    default: b4_gemm(v[0].addr, v[1].addr, v[2].addr, b); break;
    }
    return 0;
}

static int ours_tile_task(int op, int b, float *t0, float *t1, float *t2)
{
    uint64_t n = (uint64_t)b * b;
    float *tiles[3] = {t0, t1, t2};
    int nargs = op == POTRF ? 1 : op == GEMM ? 3 : 2;
    pto_arg args[3];
    for (int i = 0; i < nargs; i++)
        args[i] = (pto_arg){i == nargs - 1 ? PTO_ARG_INOUT : PTO_ARG_IN,
                            pto_view_1d(tiles[i], sizeof(float), 0, n, PTO_INVALID_TASK_ID)};
    uint64_t sc[2] = {(uint64_t)op, (uint64_t)b};
    pto_task t = {.kernel = ours_b4_kernel, .name = "chol", .args = args, .num_args = (uint32_t)nargs,
                  .scalars = sc, .num_scalars = 2};
    return pto_task_submit(rt, &t, NULL);
}

static int ours_cholesky(b4_matrix *m, double *secs)
{
    int nt = m->nt, b = m->b, rc = 0;
    float **T = m->tiles;
    double t0 = bench_now();
    for (int k = 0; k < nt && !rc; k++) {
        rc = pto_scope_begin(rt, PTO_SCOPE_AUTO, __FILE__, __LINE__);
        if (!rc) rc = ours_tile_task(POTRF, b, T[k * nt + k], NULL, NULL);
        for (int i = k + 1; i < nt && !rc; i++) rc = ours_tile_task(TRSM, b, T[k * nt + k], T[i * nt + k], NULL);
        for (int i = k + 1; i < nt && !rc; i++) {
            rc = ours_tile_task(SYRK, b, T[i * nt + k], T[i * nt + i], NULL);
            for (int j = k + 1; j < i && !rc; j++)
                rc = ours_tile_task(GEMM, b, T[i * nt + k], T[j * nt + k], T[i * nt + j]);
        }
        if (!rc) rc = pto_scope_end(rt);
    }
    int frc = pto_runtime_finish(rt);
    *secs = bench_now() - t0;
    return rc ? rc : frc;
}

const bench_system bench_sys = {
    .name = "ours",
    .config = ours_config,
    .init = ours_init,
    .fini = ours_fini,
    .run_graph = ours_run_graph,
    .submit_cost = ours_submit_cost,
    .tiles = ours_tiles,
    .pipeline = ours_pipeline,
    .cholesky = ours_cholesky,
};
