/*
 * test_tile_expf.c - the tile kernels' FP32 exp (tile/tile_expf.h) as
 * pl.exp (tile_unary) and row_expand_expdif (tile_expand_binary) run it:
 * within 2 ulp of a double exp over the float range (every 997th bit
 * pattern and 10^6 points of [-104, 89]), the special values (+-inf, NaN,
 * the overflow and underflow edges, subnormal results), and the same bits
 * from the kernels the loader picked, AVX-512, AVX2 and SSE2 loops and a
 * scalar one.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "tile/tile.h"
#include "tile/tile_expf.h"

enum { N = 4096 };

/* |got - ref| in ulps of ref at float precision (+inf, and any ref above,
 * count as 2^128). */
static double ulps(float got, double ref)
{
    double g = isinf(got) && got > 0 ? ldexp(1.0, 128) : (double)got;
    ref = ref > ldexp(1.0, 128) ? ldexp(1.0, 128) : ref;
    int e = 0;
    if (ref != 0) frexp(ref, &e);
    double u = ldexp(1.0, (e - 24 < -149 || ref == 0) ? -149 : e - 24);
    return fabs(g - ref) / u;
}

static float from_bits(uint32_t b)
{
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

static uint32_t bits_of(float f)
{
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}

/* pl.exp of the n values of in into out (one [1, n] FP32 tile). */
static void tile_exp_run(float *out, float *in, int64_t n)
{
    char msg[256];
    tile a = {.data = in, .dtype = TILE_FP32, .rank = 2, .shape = {1, n}, .valid = {1, n}};
    tile d = {.data = out, .dtype = TILE_FP32, .rank = 2, .shape = {1, n}, .valid = {1, n}};
    assert_int_equal(tile_unary(&d, &a, TILE_EXP, msg, sizeof msg), 0);
}

/* The worst error of pl.exp over in (NaNs must give NaN). */
static double worst_of(float *in, int64_t n, float *at)
{
    static float out[N];
    tile_exp_run(out, in, n);
    double worst = 0;
    for (int64_t i = 0; i < n; i++) {
        if (isnan(in[i])) {
            assert_true(isnan(out[i]));
            continue;
        }
        double e = ulps(out[i], exp((double)in[i]));
        if (e > worst) worst = e, *at = in[i];
    }
    return worst;
}

static void test_tile_expf_is_within_2_ulp_over_the_float_range(void **s)
{
    (void)s;
    static float in[N];
    double worst = 0;
    float at = 0;
    int64_t k = 0;
    for (uint64_t u = 0; u < (1ull << 32); u += 997) {
        in[k++] = from_bits((uint32_t)u);
        if (k == N || u + 997 >= (1ull << 32)) {
            float x;
            double w = worst_of(in, k, &x);
            if (w > worst) worst = w, at = x;
            k = 0;
        }
    }
    uint64_t lcg = 12345;
    for (int b = 0; b < 1000000 / N + 1; b++) {
        for (int i = 0; i < N; i++) {
            lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
            in[i] = (float)(-104.0 + 193.0 * (double)(lcg >> 11) / 9007199254740992.0);
        }
        float x;
        double w = worst_of(in, N, &x);
        if (w > worst) worst = w, at = x;
    }
    if (worst > 2.0) fail_msg("exp(%a) is %.3f ulp off", (double)at, worst);
}

static void test_tile_expf_special_values(void **s)
{
    (void)s;
    float in[] = {INFINITY, -INFINITY, NAN, -NAN, 0.0f, -0.0f, 1.0f, -1.0f, 88.72283f, 88.7229f, 89.0f, 1e30f,
                  -87.33654f, -87.5f, -100.0f, -103.2789f, -103.9f, -103.98f, -104.0f, -1e30f, 1e-30f, FLT_TRUE_MIN};
    enum { K = sizeof in / sizeof in[0] };
    float out[K];
    tile_exp_run(out, in, K);
    assert_true(isinf(out[0]) && out[0] > 0);
    assert_true(bits_of(out[1]) == 0);
    assert_true(isnan(out[2]) && isnan(out[3]));
    assert_true(out[4] == 1.0f && out[5] == 1.0f && out[20] == 1.0f && out[21] == 1.0f);
    assert_true(out[6] == (float)M_E || ulps(out[6], M_E) <= 1.0);
    assert_true(ulps(out[7], exp(-1.0)) <= 1.0);
    assert_true(out[8] == FLT_MAX || ulps(out[8], exp((double)in[8])) <= 2.0); /* just below the overflow edge */
    assert_true(isinf(out[9]) && isinf(out[10]) && isinf(out[11]));
    for (int i = 12; i <= 16; i++) /* the normal edge and subnormal results */
        if (ulps(out[i], exp((double)in[i])) > 2.0) fail_msg("exp(%a) = %a", (double)in[i], (double)out[i]);
    assert_true(out[15] == FLT_TRUE_MIN && out[16] == FLT_TRUE_MIN);
    assert_true(bits_of(out[17]) == 0 && bits_of(out[18]) == 0 && bits_of(out[19]) == 0);
}

/* The same formula compiled four ways: scalar, SSE2, AVX2 and AVX-512 loops. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("no-tree-vectorize"), noinline)) static void exp_scalar(float *d, const float *a, int n)
{
    for (int i = 0; i < n; i++) d[i] = tile_expf(a[i]);
}
__attribute__((optimize("O3"), noinline)) static void exp_sse2(float *d, const float *a, int n)
{
    for (int i = 0; i < n; i++) d[i] = tile_expf(a[i]);
}
__attribute__((target("avx2"), optimize("O3"), noinline)) static void exp_avx2(float *d, const float *a, int n)
{
    for (int i = 0; i < n; i++) d[i] = tile_expf(a[i]);
}
__attribute__((target("avx512f"), optimize("O3"), noinline)) static void exp_avx512(float *d, const float *a, int n)
{
    for (int i = 0; i < n; i++) d[i] = tile_expf(a[i]);
}
#endif

static void test_tile_expf_same_bits_at_every_vector_width(void **s)
{
    (void)s;
    static float in[N], zero[N], got[N], dif[N], w[N];
    char msg[256];
    for (int i = 0; i < N; i++) in[i] = from_bits((uint32_t)i * 1048573u), zero[i] = 0.0f;
    in[0] = NAN, in[1] = INFINITY, in[2] = -INFINITY;
    tile_exp_run(got, in, N);
    /* row_expand_expdif against 0: exp(x - 0) */
    tile a = {.data = in, .dtype = TILE_FP32, .rank = 2, .shape = {1, N}, .valid = {1, N}};
    tile v = {.data = zero, .dtype = TILE_FP32, .rank = 2, .shape = {1, 1}, .valid = {1, 1}};
    tile d = {.data = dif, .dtype = TILE_FP32, .rank = 2, .shape = {1, N}, .valid = {1, N}};
    assert_int_equal(tile_expand_binary(&d, &a, &v, TILE_BC_EXPDIF, 0, msg, sizeof msg), 0);
    for (int i = 0; i < N; i++) {
        assert_true(bits_of(dif[i]) == bits_of(got[i]) || (isnan(dif[i]) && isnan(got[i])));
        float one = tile_expf(in[i]);
        assert_true(bits_of(one) == bits_of(got[i]) || (isnan(one) && isnan(got[i])));
    }
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
    exp_scalar(w, in, N);
    assert_memory_equal(w + 1, got + 1, (N - 1) * sizeof(float));
    exp_sse2(w, in, N);
    assert_memory_equal(w + 1, got + 1, (N - 1) * sizeof(float));
    if (__builtin_cpu_supports("avx2")) {
        exp_avx2(w, in, N);
        assert_memory_equal(w + 1, got + 1, (N - 1) * sizeof(float));
    }
    if (__builtin_cpu_supports("avx512f")) {
        exp_avx512(w, in, N);
        assert_memory_equal(w + 1, got + 1, (N - 1) * sizeof(float));
    }
#else
    (void)w;
#endif
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_tile_expf_is_within_2_ulp_over_the_float_range),
    cmocka_unit_test(test_tile_expf_special_values),
    cmocka_unit_test(test_tile_expf_same_bits_at_every_vector_width),
};

PTO_TEST_MAIN(tests)
