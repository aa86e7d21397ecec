/*
 * test_exec_run.c - DSL programs end to end through the public API:
 * pto_compile, then pto_program_run on a runtime, the tile programs run by
 * the tile VM on the workers.  The seed page's examples give the page's
 * numbers (out == a*2+1; the orch program out == 4*a from zeros); a
 * kernel's run-time error fails the run with its file:line:col and the
 * next run works; a program runs many times on one runtime;
 * pto_program_writes names the tensors a run writes.
 */
#include <math.h>
#include <stdlib.h>

#include "harness.h"
#include "dsl_compile.h"
#include "dsl_corpus.h"
#include "pto/run.h"

#define ROWS 256
#define COLS 128

static pto_runtime *make_rt(void)
{
    pto_runtime *rt;
    pto_error err;
    assert_int_equal(pto_runtime_create(NULL, &rt, &err), 0);
    return rt;
}

static pto_run_arg tensor(const char *name, float *base)
{
    return (pto_run_arg){name, {.kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .base = base, .rank = 2, .shape = {ROWS, COLS}}};
}

/* Fills a with a deterministic pattern and out with fill. */
static void fill(float *a, float *out, float outv)
{
    for (int i = 0; i < ROWS * COLS; i++) a[i] = (float)((i * 37) % 101) / 7.0f - 5.0f, out[i] = outv;
}

static void run_ok(pto_runtime *rt, const pto_program *p, float *a, float *out)
{
    pto_run_arg args[] = {tensor("a", a), tensor("out", out)};
    pto_error err;
    int rc = pto_program_run(rt, p, args, 2, &err);
    if (rc) fprintf(stderr, "%s\n", err.message);
    assert_int_equal(rc, 0);
}

/* manual_placement and scaled: out == a * 2 + 1, exactly (FP32). */
static void test_exec_run_seed_examples_compute_a_times_2_plus_1(void **s)
{
    (void)s;
    static const char *const entries[] = {"manual_placement", "scaled"};
    float *a = malloc(sizeof(float) * ROWS * COLS), *out = malloc(sizeof(float) * ROWS * COLS);
    pto_runtime *rt = make_rt();
    for (int e = 0; e < 2; e++) {
        pto_program *p = dsl_compile(dsl_seed_script, entries[e], PTO_STAGE_ALL);
        dsl_expect_ok(p);
        fill(a, out, NAN);
        run_ok(rt, p, a, out);
        for (int i = 0; i < ROWS * COLS; i++) assert_true(out[i] == a[i] * 2.0f + 1.0f);
        pto_program_free(p);
    }
    pto_runtime_destroy(rt);
    free(a), free(out);
}

/* The page's orch example (4 iterations of out = load(out) + load(a)). */
static void test_exec_run_orch_program_accumulates_four_times(void **s)
{
    (void)s;
    float *a = malloc(sizeof(float) * ROWS * COLS), *out = malloc(sizeof(float) * ROWS * COLS);
    pto_runtime *rt = make_rt();
    pto_program *p = dsl_compile(dsl_orch_program, "Orch", PTO_STAGE_ALL);
    dsl_expect_ok(p);
    fill(a, out, 0.0f);
    run_ok(rt, p, a, out);
    for (int i = 0; i < ROWS * COLS; i++) assert_true(out[i] == 4.0f * a[i]);
    pto_program_free(p);
    pto_runtime_destroy(rt);
    free(a), free(out);
}

/* One compiled program, many runs on one runtime: each gives the numbers. */
static void test_exec_run_program_reruns_on_one_runtime(void **s)
{
    (void)s;
    float *a = malloc(sizeof(float) * ROWS * COLS), *out = malloc(sizeof(float) * ROWS * COLS);
    pto_runtime *rt = make_rt();
    pto_program *p = dsl_compile(dsl_seed_script, "manual_placement", PTO_STAGE_ALL);
    for (int r = 0; r < 50; r++) {
        fill(a, out, (float)r);
        run_ok(rt, p, a, out);
        assert_true(out[ROWS * COLS - 1] == a[ROWS * COLS - 1] * 2.0f + 1.0f);
    }
    pto_program_free(p);
    pto_runtime_destroy(rt);
    free(a), free(out);
}

/* B04: a load past the tensor that only the run can see (the offset is a
 * kernel scalar) fails the run with the load's file:line:col; the next run
 * on the same runtime works. */
static void test_exec_run_out_of_bounds_load_fails_at_its_line_and_column(void **s)
{
    (void)s;
    const char *src = "import pypto.language as pl\n\n@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                      "    for i in pl.range(5):\n        with pl.at(level=pl.Level.CORE_GROUP):\n"
                      "            t = pl.load(a, [i * 64, 0], [64, 128])\n            pl.store(t, [0, 0], out)\n"
                      "    return out\n";
    float *a = malloc(sizeof(float) * ROWS * COLS), *out = malloc(sizeof(float) * ROWS * COLS);
    pto_runtime *rt = make_rt();
    pto_program *p = dsl_compile(src, "f", PTO_STAGE_ALL);
    dsl_expect_ok(p);
    fill(a, out, 0.0f);
    pto_run_arg args[] = {tensor("a", a), tensor("out", out)};
    pto_error err;
    assert_int_equal(pto_program_run(rt, p, args, 2, &err), -PTO_KERNEL_FAILED);
    if (!strstr(err.message, "pl.load reads past the end of dimension 0: offset 256 + extent 64 exceeds the source extent 256.") ||
        !strstr(err.message, "(at k.py:7:17)"))
        fprintf(stderr, "%s\n", err.message), fail();
    pto_program_free(p);
    p = dsl_compile(dsl_seed_script, "scaled", PTO_STAGE_ALL);
    run_ok(rt, p, a, out);
    assert_true(out[5] == a[5] * 2.0f + 1.0f);
    pto_program_free(p);
    pto_runtime_destroy(rt);
    free(a), free(out);
}

/* Arguments by position, and a wrong shape refused before anything runs. */
static void test_exec_run_binds_by_position_and_checks_shapes(void **s)
{
    (void)s;
    float *a = malloc(sizeof(float) * ROWS * COLS), *out = malloc(sizeof(float) * ROWS * COLS);
    pto_runtime *rt = make_rt();
    pto_program *p = dsl_compile(dsl_seed_script, "scaled", PTO_STAGE_ALL);
    fill(a, out, 0.0f);
    pto_run_arg args[] = {tensor(NULL, a), tensor(NULL, out)};
    pto_error err;
    assert_int_equal(pto_program_run(rt, p, args, 2, &err), 0);
    assert_true(out[7] == a[7] * 2.0f + 1.0f);
    args[1].value.shape[0] = 128;
    assert_int_equal(pto_program_run(rt, p, args, 2, &err), -PTO_INVALID_ARGS);
    assert_non_null(strstr(err.message, "out"));
    pto_program_free(p);
    pto_runtime_destroy(rt);
    free(a), free(out);
}

/* Out and InOut tensor parameters are written; In ones, scalars, unknown
 * names and programs without lowered code are not. */
static void test_exec_run_program_writes_names_out_and_inout_tensors(void **s)
{
    (void)s;
    pto_program *p = dsl_compile(dsl_seed_script, "scaled", PTO_STAGE_ALL);
    assert_int_equal(pto_program_writes(p, "out"), 1);
    assert_int_equal(pto_program_writes(p, "a"), 0);
    assert_int_equal(pto_program_writes(p, "b"), 0);
    assert_int_equal(pto_program_writes(p, NULL), 0);
    assert_int_equal(pto_program_writes(NULL, "out"), 0);
    pto_program_free(p);
    const char *src = "import pypto.language as pl\n\n@pl.jit\n"
                      "def f(a: pl.InOut[pl.Tensor], out: pl.Out[pl.Tensor], n: pl.Scalar[pl.INDEX]):\n"
                      "    with pl.at(level=pl.Level.CORE_GROUP):\n"
                      "        t = pl.load(a, [0, 0], [64, 128])\n"
                      "        pl.store(t, [n, 0], a)\n"
                      "        pl.store(t, [0, 0], out)\n"
                      "    return a, out\n";
    static const pto_arg_spec args[] = {
        {.name = "a", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {256, 128}},
        {.name = "out", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {256, 128}},
        {.name = "n", .kind = PTO_ARG_SCALAR, .value = {.kind = PTO_VALUE_INT, .i = 64}},
    };
    p = dsl_compile_with(src, "f", PTO_STAGE_ALL, 0, args, 3);
    dsl_expect_ok(p);
    assert_int_equal(pto_program_writes(p, "a"), 1);
    assert_int_equal(pto_program_writes(p, "out"), 1);
    assert_int_equal(pto_program_writes(p, "n"), 0);
    pto_program_free(p);
    p = dsl_compile(dsl_seed_script, "scaled", PTO_STAGE_VERIFY); /* stopped before lowering */
    assert_int_equal(pto_program_writes(p, "out"), 0);
    pto_program_free(p);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_exec_run_seed_examples_compute_a_times_2_plus_1),
    cmocka_unit_test(test_exec_run_orch_program_accumulates_four_times),
    cmocka_unit_test(test_exec_run_program_reruns_on_one_runtime),
    cmocka_unit_test(test_exec_run_out_of_bounds_load_fails_at_its_line_and_column),
    cmocka_unit_test(test_exec_run_program_writes_names_out_and_inout_tensors),
    cmocka_unit_test(test_exec_run_binds_by_position_and_checks_shapes),
};

PTO_TEST_MAIN(tests)
