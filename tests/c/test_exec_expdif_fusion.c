/*
 * test_exec_expdif_fusion.c - the lowering runs an FP32
 * pl.exp(pl.row_expand_sub(t, v)) as one row_expand_expdif (lower_tile.c,
 * lo_expdif_of): the listing shows the fused op, and the result has the
 * bits of the unfused program (the difference in a named tile, so that no
 * fusion applies), including rows whose difference overflows or
 * underflows exp and a narrowed valid region; FP16 is not fused (its
 * difference rounds to FP16 first).
 */
#include <math.h>
#include <stdlib.h>

#include "harness.h"
#include "dsl_compile.h"
#include "pto/run.h"

#define ROWS 256
#define COLS 128

static const char src[] =
    "import pypto.language as pl\n\n"
    "@pl.jit\n"
    "def fused(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
    "    for i in pl.range(4):\n"
    "        with pl.at(level=pl.Level.CORE_GROUP):\n"
    "            t = pl.set_validshape(pl.load(a, [i * 64, 0], [64, 128]), 64, 120)\n"
    "            pl.store(pl.exp(pl.row_expand_sub(t, pl.row_min(t))), [i * 64, 0], out)\n"
    "    return out\n\n"
    "@pl.jit\n"
    "def unfused(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
    "    for i in pl.range(4):\n"
    "        with pl.at(level=pl.Level.CORE_GROUP):\n"
    "            t = pl.set_validshape(pl.load(a, [i * 64, 0], [64, 128]), 64, 120)\n"
    "            d = pl.row_expand_sub(t, pl.row_min(t))\n"
    "            pl.store(pl.exp(d), [i * 64, 0], out)\n"
    "    return out\n\n"
    "@pl.jit\n"
    "def half(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
    "    with pl.at(level=pl.Level.CORE_GROUP):\n"
    "        t = pl.cast(pl.load(a, [0, 0], [64, 128]), pl.FP16)\n"
    "        pl.store(pl.cast(pl.exp(pl.row_expand_sub(t, pl.row_max(t))), pl.FP32), [0, 0], out)\n"
    "    return out\n";

static void run(const char *entry, const float *a, float *out)
{
    pto_program *p = dsl_compile(src, entry, PTO_STAGE_ALL);
    dsl_expect_ok(p);
    pto_runtime *rt;
    pto_error err;
    assert_int_equal(pto_runtime_create(NULL, &rt, &err), 0);
    pto_run_arg args[] = {
        {"a", {.kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .base = (void *)a, .rank = 2, .shape = {ROWS, COLS}}},
        {"out", {.kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .base = out, .rank = 2, .shape = {ROWS, COLS}}},
    };
    int rc = pto_program_run(rt, p, args, 2, &err);
    if (rc) fprintf(stderr, "%s\n", err.message);
    assert_int_equal(rc, 0);
    pto_runtime_destroy(rt);
    pto_program_free(p);
}

static const char *listing_of(pto_program **p, const char *entry)
{
    *p = dsl_compile(src, entry, PTO_STAGE_ALL);
    dsl_expect_ok(*p);
    return pto_program_listing(*p);
}

static void test_exec_expdif_fusion_listing_shows_one_expdif_for_fp32_only(void **s)
{
    (void)s;
    pto_program *p;
    const char *l = listing_of(&p, "fused");
    assert_non_null(strstr(l, "TROW_EXPAND_EXPDIF"));
    assert_null(strstr(l, "TROW_EXPAND_SUB"));
    assert_null(strstr(l, "TEXP"));
    pto_program_free(p);
    l = listing_of(&p, "unfused");
    assert_null(strstr(l, "TROW_EXPAND_EXPDIF"));
    assert_non_null(strstr(l, "TEXP"));
    pto_program_free(p);
    l = listing_of(&p, "half");
    assert_null(strstr(l, "TROW_EXPAND_EXPDIF"));
    assert_non_null(strstr(l, "TROW_EXPAND_SUB"));
    pto_program_free(p);
}

static void test_exec_expdif_fusion_gives_the_unfused_bits(void **s)
{
    (void)s;
    float *a = malloc(sizeof(float) * ROWS * COLS), *f = malloc(sizeof(float) * ROWS * COLS),
          *u = malloc(sizeof(float) * ROWS * COLS);
    for (int i = 0; i < ROWS * COLS; i++) {
        int r = i / COLS;
        a[i] = (float)((i * 37) % 101) / 7.0f - 5.0f;
        if (r % 16 == 1) a[i] *= 30.0f;                   /* differences past exp's overflow edge */
        if (r % 16 == 2 && i % COLS == 3) a[i] = -200.0f; /* a row minimum far below: others overflow */
        if (r % 16 == 3 && i % COLS == 5) a[i] = NAN;
        if (r % 16 == 4 && i % COLS == 7) a[i] = INFINITY;
    }
    memset(f, 0x5a, sizeof(float) * ROWS * COLS), memset(u, 0x5a, sizeof(float) * ROWS * COLS);
    run("fused", a, f);
    run("unfused", a, u);
    assert_memory_equal(f, u, sizeof(float) * ROWS * COLS);
    float m = a[0];
    for (int c = 1; c < 120; c++) m = a[c] < m ? a[c] : m;
    for (int c = 0; c < 120; c++) /* row 0 against a double exp */
        assert_true(fabs(f[c] - exp((double)a[c] - (double)m)) <= 3e-7 * exp((double)a[c] - (double)m));
    free(a), free(f), free(u);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_exec_expdif_fusion_listing_shows_one_expdif_for_fp32_only),
    cmocka_unit_test(test_exec_expdif_fusion_gives_the_unfused_bits),
};

PTO_TEST_MAIN(tests)
