/*
 * b2_submit.c - B2's submit-cost workload: n cells, task i writes cell i
 * and reads the `deps` cells before it.
 *
 * Invariant: cell i ends as 1 + the number of its inputs that were already
 * written when it ran, so b2_verify, which checks every cell, fails if any
 * task ran before one of its producers, or did not run.
 */
#include "bench.h"

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
