/*
 * b4_cholesky.c - B4's tiled Cholesky: the matrix, the serial OpenBLAS tile
 * kernels every system runs, and the check against a sequential reference.
 *
 * The matrix is the Toeplitz matrix a(i, j) = 1 / (1 + |i - j|) with 2 on
 * the diagonal: symmetric positive definite by Polya's criterion (its
 * eigenvalues lie in about [1.39, 17], so it is well conditioned), and its
 * off-diagonal entries are large enough that every tile update changes the
 * factor visibly.  b4_alloc also factors the same matrix with one
 * LAPACKE_spotrf call (the reference, once per process); b4_verify compares
 * every element of the lower triangle with it.
 */
#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>

#include "bench.h"

/* Bound on |tiled - reference| per element.  Measured at n = 1024-2048,
 * tiles 64-256: a correct factor differs by one ulp of the diagonal
 * (2.4e-7); skipping any single tile update moves an element by 1.7e-6
 * (the farthest gemm at k = 0) to 6e-3. */
#define B4_TOLERANCE 1e-6

static float b4_value(int i, int j)
{
    return i == j ? 2.0f : 1.0f / (float)(1 + (i > j ? i - j : j - i));
}

static float *b4_at(const b4_matrix *m, int i, int j)
{
    float *t = m->tiles[(i / m->b) * m->nt + j / m->b];
    return &t[(size_t)(j % m->b) * m->b + i % m->b];
}

void b4_fill(b4_matrix *m)
{
    for (int j = 0; j < m->n; j++)
        for (int i = j; i < m->n; i++) *b4_at(m, i, j) = b4_value(i, j);
}

void b4_alloc(b4_matrix *m, int n, int b)
{
    m->n = n, m->b = b, m->nt = n / b;
    m->tiles = calloc((size_t)m->nt * m->nt, sizeof *m->tiles);
    for (int ti = 0; ti < m->nt; ti++)
        for (int tj = 0; tj <= ti; tj++) m->tiles[ti * m->nt + tj] = bench_alloc((size_t)b * b * sizeof(float));
    b4_fill(m);
    m->ref = bench_alloc((size_t)n * n * sizeof(float));
    for (int j = 0; j < n; j++)
        for (int i = j; i < n; i++) m->ref[(size_t)j * n + i] = b4_value(i, j);
    if (LAPACKE_spotrf(LAPACK_COL_MAJOR, 'L', n, m->ref, n) != 0) bench_fail("reference", "B4 spotrf");
}

void b4_free(b4_matrix *m)
{
    for (int i = 0; i < m->nt * m->nt; i++) free(m->tiles[i]);
    free(m->tiles);
    free(m->ref);
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

int b4_verify(const b4_matrix *f)
{
    double worst = 0;
    for (int j = 0; j < f->n; j++)
        for (int i = j; i < f->n; i++) {
            double d = fabs((double)*b4_at(f, i, j) - f->ref[(size_t)j * f->n + i]);
            if (!(d <= worst)) worst = d; /* NaN counts as the worst */
        }
    return !(worst <= B4_TOLERANCE);
}

double b4_flops(int n)
{
    return (double)n * n * n / 3.0;
}
