/*
 * two_phase.c - the seed page's computation, out = a * 2 + 1, through the C
 * API: phase 1 (x2, one task per 64-row tile) in the outer scope, depth 0 ->
 * ring 0; phase 2 (+1) in a nested scope, depth 1 -> ring 1.  Prints which
 * ring each phase used and each ring's peak use.
 *
 *   two_phase [OUTPUT_DIR]   with OUTPUT_DIR, scope stats are written to
 *                            OUTPUT_DIR/scope_stats/scope_stats.jsonl
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "pto/runtime.h"

enum { N = 4, TR = 64, TC = 128, ROWS = N * TR };

/* views[0] = input tile, views[1] = output tile; scalars[0], [1] = mul, add as float bits */
static int scale_add(const pto_kernel_args *a)
{
    const pto_view *in = &a->views[0], *out = &a->views[1];
    float mul, add;
    unsigned m = (unsigned)a->scalars[0], d = (unsigned)a->scalars[1];
    __builtin_memcpy(&mul, &m, sizeof mul);
    __builtin_memcpy(&add, &d, sizeof add);
    for (uint64_t r = 0; r < in->shape[0]; r++) {
        uint64_t idx[2] = {r, 0};
        const float *src = pto_view_at(in, idx);
        float *dst = pto_view_at(out, idx);
        for (uint64_t c = 0; c < in->shape[1]; c++) dst[c] = src[c] * mul + add;
    }
    return 0;
}

static uint64_t float_bits(float f)
{
    unsigned u;
    __builtin_memcpy(&u, &f, sizeof u);
    return u;
}

/* One task per row tile: out[tile] = src[tile] * mul + add. */
static int phase(pto_runtime *rt, float *src, float *dst, float mul, float add, pto_task_id *ids)
{
    for (int i = 0; i < N; i++) {
        pto_arg args[2] = {
            {PTO_ARG_IN, pto_view_2d(src, sizeof(float), (int64_t)i * TR * TC, TR, TC, TC, PTO_INVALID_TASK_ID)},
            {PTO_ARG_OUTPUT_EXISTING, pto_view_2d(dst, sizeof(float), (int64_t)i * TR * TC, TR, TC, TC, PTO_INVALID_TASK_ID)},
        };
        uint64_t scalars[2] = {float_bits(mul), float_bits(add)};
        pto_task t = {.kernel = scale_add, .name = mul != 1.0f ? "mul2" : "add1", .args = args,
                      .num_args = 2, .scalars = scalars, .num_scalars = 2};
        int rc = pto_task_submit(rt, &t, &ids[i]);
        if (rc) return rc;
    }
    return 0;
}

int main(int argc, char **argv)
{
    float *a = malloc(sizeof(float) * ROWS * TC), *out = calloc((size_t)ROWS * TC, sizeof(float));
    for (int i = 0; i < ROWS * TC; i++) a[i] = (float)((i * 7919) % 1000) / 100.0f - 5.0f;

    pto_error err;
    pto_config cfg = {0};
    if (argc > 1) {
        cfg.enable_scope_stats = 1;
        cfg.output_prefix = argv[1];
    }
    pto_runtime *rt;
    if (pto_runtime_create(&cfg, &rt, &err) != 0) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    pto_task_id p1[N], p2[N];
    int rc = pto_scope_begin(rt, PTO_SCOPE_AUTO, __FILE__, __LINE__); /* depth 0 -> ring 0 */
    if (!rc) rc = phase(rt, a, out, 2.0f, 0.0f, p1);
    if (!rc) rc = pto_scope_begin(rt, PTO_SCOPE_AUTO, __FILE__, __LINE__); /* depth 1 -> ring 1 */
    if (!rc) rc = phase(rt, out, out, 1.0f, 1.0f, p2);
    if (!rc) rc = pto_scope_end(rt);
    if (!rc) rc = pto_scope_end(rt);
    int frc = pto_runtime_finish(rt);
    if (rc || frc) {
        fprintf(stderr, "%s\n", pto_runtime_error(rt)->message);
        pto_runtime_destroy(rt);
        return 1;
    }

    int bad = 0;
    for (int i = 0; i < ROWS * TC; i++) bad += fabsf(out[i] - (a[i] * 2.0f + 1.0f)) > 1e-4f;
    printf("out = a * 2 + 1 over %d x %d fp32, %d row tiles of %d x %d: %s\n", ROWS, TC, N, TR, TC,
           bad ? "WRONG" : "correct");
    printf("phase 1 (x2, %d tasks): ring %d\n", N, (int)(p1[0] >> 32));
    printf("phase 2 (+1, %d tasks): ring %d\n", N, (int)(p2[0] >> 32));
    printf("ring  peak tasks  window  peak heap  heap       peak deps  dep pool\n");
    for (int r = 0; r < 4; r++) {
        pto_ring_usage u;
        pto_ring_usage_get(rt, r, &u);
        printf("%-5d %-11llu %-7llu %-10llu %-10llu %-10llu %llu\n", r,
               (unsigned long long)u.task_window_peak, (unsigned long long)u.task_window_cap,
               (unsigned long long)u.heap_peak, (unsigned long long)u.heap_cap,
               (unsigned long long)u.dep_pool_peak, (unsigned long long)u.dep_pool_cap);
    }
    if (argc > 1) printf("scope stats: %s/scope_stats/scope_stats.jsonl\n", argv[1]);
    pto_runtime_destroy(rt);
    free(a);
    free(out);
    return bad != 0;
}
