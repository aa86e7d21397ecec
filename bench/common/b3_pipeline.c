/*
 * b3_pipeline.c - B3's tile pipeline (see bench.h): input tiles, the two
 * task bodies, the serial reference and the check.
 *
 * Invariants: A and B are read-only; S starts at zero before every run
 * (b3_reset); ref holds the serial result, computed once per process, and
 * b3_verify compares every element of every stream's S with it.
 */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static size_t b3_elems(const b3_spec *p)
{
    return (size_t)p->tile * (size_t)p->tile;
}

void b3_task_a(float *X, const float *S, const float *A, int n)
{
    for (int e = 0; e < n; e++) X[e] = S[e] + A[e];
}

void b3_task_b(float *S, const float *X, const float *B, int n)
{
    for (int e = 0; e < n; e++) S[e] = X[e] + B[e];
}

void b3_alloc(const b3_spec *p, b3_data *d)
{
    size_t n = b3_elems(p), tiles = (size_t)p->streams * p->inputs;
    d->A = malloc(tiles * sizeof *d->A);
    d->B = malloc(tiles * sizeof *d->B);
    d->S = malloc((size_t)p->streams * sizeof *d->S);
    d->ref = malloc((size_t)p->streams * sizeof *d->ref);
    for (size_t t = 0; t < tiles; t++) {
        d->A[t] = bench_alloc(n * sizeof(float));
        d->B[t] = bench_alloc(n * sizeof(float));
        for (size_t e = 0; e < n; e++) {
            d->A[t][e] = (float)((t * 31 + e) % 17) * 0.25f;
            d->B[t][e] = (float)((t * 7 + e) % 13) * 0.5f;
        }
    }
    float *x = bench_alloc(n * sizeof(float));
    for (int s = 0; s < p->streams; s++) {
        d->S[s] = bench_alloc(n * sizeof(float));
        d->ref[s] = bench_alloc(n * sizeof(float));
        for (int j = 0; j < p->steps; j++) {
            b3_task_a(x, d->ref[s], d->A[s * p->inputs + j % p->inputs], (int)n);
            b3_task_b(d->ref[s], x, d->B[s * p->inputs + j % p->inputs], (int)n);
        }
    }
    free(x);
}

void b3_reset(const b3_spec *p, b3_data *d)
{
    for (int s = 0; s < p->streams; s++) memset(d->S[s], 0, b3_elems(p) * sizeof(float));
}

void b3_free(const b3_spec *p, b3_data *d)
{
    size_t tiles = (size_t)p->streams * p->inputs;
    for (size_t t = 0; t < tiles; t++) free(d->A[t]), free(d->B[t]);
    for (int s = 0; s < p->streams; s++) free(d->S[s]), free(d->ref[s]);
    free(d->A), free(d->B), free(d->S), free(d->ref);
}

int b3_verify(const b3_spec *p, const b3_data *d)
{
    int bad = 0;
    for (int s = 0; s < p->streams; s++) bad |= memcmp(d->S[s], d->ref[s], b3_elems(p) * sizeof(float)) != 0;
    return bad;
}

double b3_bytes(const b3_spec *p)
{
    return (double)p->streams * p->steps * 2 * 3 * (double)b3_elems(p) * sizeof(float);
}

double b3_input_bytes(const b3_spec *p)
{
    return 2.0 * p->streams * p->inputs * (double)b3_elems(p) * sizeof(float);
}
