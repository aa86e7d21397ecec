/*
 * b1_graph.c - B1's Task-Bench-style graphs: dependencies of a point, the
 * task body, and the serial reference.
 *
 * Invariants: values stay exact small integers, so every system must match
 * the serial run bit for bit; every task records its value in its own trace
 * entry (trace[x * steps + t]: one point's steps are adjacent, points are a
 * whole column apart), and tb_verify compares the whole trace, so a wrong
 * value at any step of any point fails - not only the last step's.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

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

static size_t tb_cells(const tb_graph *g)
{
    return 2 * (size_t)g->width * TB_CELL_DOUBLES;
}

static double *tb_trace(double *data, const tb_graph *g)
{
    return data + tb_cells(g);
}

double *tb_alloc(const tb_graph *g)
{
    return bench_alloc((tb_cells(g) + (size_t)tb_tasks(g)) * sizeof(double));
}

long tb_tasks(const tb_graph *g)
{
    return (long)g->width * g->steps;
}

void tb_task(const tb_graph *g, double *data, int t, int x)
{
    int deps[TB_MAX_DEPS];
    int n = tb_deps(g, t, x, deps);
    double v = (double)(t * 7 + x);
    for (int k = 0; k < n; k++) v += 3.0 * tb_cell(data, g, t - 1, deps[k])[0];
    v = fmod(v, 1000003.0);
    double s = bench_spin(g->iters, v);
    tb_cell(data, g, t, x)[0] = s > 1e300 ? 0.0 : v;
    tb_trace(data, g)[(size_t)x * (size_t)g->steps + (size_t)t] = v;
}

int tb_verify(const tb_graph *g, const double *data)
{
    tb_graph ref = *g;
    ref.iters = 0;
    double *r = tb_alloc(&ref);
    for (int t = 0; t < ref.steps; t++)
        for (int x = 0; x < ref.width; x++) tb_task(&ref, r, t, x);
    int bad = memcmp(tb_trace(r, g), tb_trace((double *)data, g), (size_t)tb_tasks(g) * sizeof(double)) != 0;
    free(r);
    return bad;
}
