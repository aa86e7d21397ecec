/*
 * lapacke_mt.c - B4 peer: one multithreaded LAPACKE_spotrf call (OpenBLAS,
 * pthreads build).  Our own adapter code around the installed library.
 *
 * Threads: openblas_set_num_threads(2) in init; the calling thread is one
 * of OpenBLAS's two.  OpenBLAS's default wait: its idle threads spin for a
 * while, then sleep.  No pinning.  The runner does not set
 * OPENBLAS_NUM_THREADS=1 for this system.
 *
 * The driver hands over a tiled matrix (column-major b x b tiles, lower
 * triangle) and checks the tiles afterwards, so each call copies the lower
 * tiles into one column-major n x n matrix, calls
 * LAPACKE_spotrf(LAPACK_COL_MAJOR, 'L', n, A, n) and copies the lower tiles
 * back.  Both copies are inside the timed call, and they are not cheap: the
 * lower half (~n^2/2 floats) is read and written each way at memory speed,
 * against n^3/3 flops of a factorisation that runs at >100 GFLOP/s on two
 * cores.  Measured on the 2-core VM (steady state, quiet machine): ~10% of
 * the call at n = 1024 and ~14-16% at n = 2048, so the gflops row understates
 * spotrf itself by that much.  BENCH_VERBOSE=1 prints the split per call
 * on stderr.  The n x n buffer is kept across calls, so only the first call
 * (the driver's untimed warm-up) pays its page faults.
 *
 * B1, B2, B2t, B3: not taken part in.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lapacke.h>

#include "bench.h"

void openblas_set_num_threads(int);

static float *full;   /* n x n column-major, kept across calls */
static size_t full_n; /* its order */
static int verbose;
static double t_copy, t_potrf; /* accumulated, for BENCH_VERBOSE */

static int lmt_init(int threads)
{
    openblas_set_num_threads(threads);
    verbose = getenv("BENCH_VERBOSE") != NULL;
    return 0;
}

static void lmt_fini(void)
{
    if (verbose && t_copy + t_potrf > 0)
        fprintf(stderr, "lapacke-mt: copies %.3f ms, spotrf %.3f ms, copies = %.1f%% of the call\n",
                t_copy * 1e3, t_potrf * 1e3, 100.0 * t_copy / (t_copy + t_potrf));
    free(full);
    full = NULL, full_n = 0;
}

/* dir 0: tiles -> full; 1: full -> tiles (lower tiles, diagonal included). */
static void lmt_copy(b4_matrix *m, int dir)
{
    size_t n = (size_t)m->n, b = (size_t)m->b;
    for (int ti = 0; ti < m->nt; ti++)
        for (int tj = 0; tj <= ti; tj++) {
            float *t = m->tiles[ti * m->nt + tj];
            float *f = full + (size_t)tj * b * n + (size_t)ti * b; /* element (ti*b, tj*b) */
            for (size_t c = 0; c < b; c++) {
                if (dir == 0) memcpy(f + c * n, t + c * b, b * sizeof(float));
                else memcpy(t + c * b, f + c * n, b * sizeof(float));
            }
        }
}

static int lmt_cholesky(b4_matrix *m, double *secs)
{
    size_t n = (size_t)m->n;
    if (full_n != n) {
        free(full);
        full = malloc(n * n * sizeof(float));
        if (!full) return 1;
        full_n = n;
    }
    double t0 = bench_now();
    lmt_copy(m, 0);
    double t1 = bench_now();
    lapack_int info = LAPACKE_spotrf(LAPACK_COL_MAJOR, 'L', (lapack_int)n, full, (lapack_int)n);
    double t2 = bench_now();
    if (info == 0) lmt_copy(m, 1);
    double t3 = bench_now();
    *secs = t3 - t0;
    t_copy += (t1 - t0) + (t3 - t2);
    t_potrf += t2 - t1;
    if (verbose)
        fprintf(stderr, "lapacke-mt: n %zu: copy in %.3f ms, spotrf %.3f ms, copy out %.3f ms\n", n,
                (t1 - t0) * 1e3, (t2 - t1) * 1e3, (t3 - t2) * 1e3);
    return info != 0;
}

const bench_system bench_sys = {
    .name = "lapacke-mt",
    .config = "one LAPACKE_spotrf call, OpenBLAS pthreads, openblas_set_num_threads(2) "
              "(caller + 1 OpenBLAS thread; idle threads spin, then sleep); tile<->full copies timed",
    .init = lmt_init,
    .fini = lmt_fini,
    .run_graph = NULL,
    .submit_cost = NULL,
    .tiles = NULL,
    .pipeline = NULL,
    .cholesky = lmt_cholesky,
};
