/*
 * test_exec_spmd.c - SPMD programs end to end through the public C API
 * (DSL-V2-SPEC §7; docs/dsl.md, "SPMD"): `for i in pl.spmd(16)` compiled
 * with pto_compile and run with pto_program_run on a runtime of 2 workers,
 * many times, so the blocks of each task run on both workers at once (the
 * tile VM on several threads for one task: TSan runs this file).
 *
 * Rules tested: every block stores its own row band (out == a * 3 + block
 * index, exactly); the printed program shows one pl.spmd_submit of 16
 * blocks whose footprint is the union of the bands; a block count read at
 * run time below 1 fails the run with code 9 and the statement's
 * file:line:col, and the next run works.
 */
#include <stdlib.h>

#include "harness.h"
#include "dsl_compile.h"
#include "pto/run.h"

#define ROWS 256
#define COLS 128

static const char spmd_source[] =
    "import pypto.language as pl\n"
    "\n"
    "@pl.jit\n"
    "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
    "    for i in pl.spmd(16):\n"
    "        t = pl.load(a, [i * 16, 0], [16, 128])\n"
    "        pl.store(pl.add(pl.mul(t, 3.0), pl.cast(i, pl.FP32)), [i * 16, 0], out)\n"
    "    return out\n"
    "\n"
    "@pl.jit\n"
    "def g(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
    "    for i in pl.spmd(pl.cast(pl.read(a, [0, 0]), pl.INDEX)):\n"
    "        pl.store(pl.load(a, [i * 16, 0], [16, 128]), [i * 16, 0], out)\n"
    "    return out\n";

static pto_run_arg tensor(const char *name, float *base)
{
    return (pto_run_arg){name, {.kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .base = base, .rank = 2, .shape = {ROWS, COLS}}};
}

static pto_runtime *two_workers(void)
{
    pto_config cfg = {.num_workers = 2};
    pto_runtime *rt;
    pto_error err;
    assert_int_equal(pto_runtime_create(&cfg, &rt, &err), 0);
    return rt;
}

static void test_exec_spmd_blocks_store_their_bands_on_two_workers(void **s)
{
    (void)s;
    float *a = malloc(sizeof(float) * ROWS * COLS), *out = malloc(sizeof(float) * ROWS * COLS);
    pto_runtime *rt = two_workers();
    pto_program *p = dsl_compile(spmd_source, "f", PTO_STAGE_ALL);
    dsl_expect_ok(p);
    static const char *const want[] = {
        "pl.spmd_submit(self.f_incore_0, a, out, core_num=16)  # a: In [0:256, 0:128]; out: Out [0:256, 0:128]\n",
        "        i = pl.get_block_idx()\n", NULL};
    dsl_expect_text_contains(p, want);
    for (int run = 0; run < 50; run++) {
        for (int k = 0; k < ROWS * COLS; k++) a[k] = (float)((k * 37 + run) % 101) / 8.0f - 6.0f, out[k] = -1.0f;
        pto_run_arg args[] = {tensor("a", a), tensor("out", out)};
        pto_error err;
        int rc = pto_program_run(rt, p, args, 2, &err);
        if (rc) fprintf(stderr, "%s\n", err.message);
        assert_int_equal(rc, 0);
        for (int k = 0; k < ROWS * COLS; k++) assert_true(out[k] == a[k] * 3.0f + (float)(k / COLS / 16));
    }
    pto_program_free(p);
    pto_runtime_destroy(rt);
    free(a), free(out);
}

static void test_exec_spmd_runtime_block_count_below_one_is_code_9(void **s)
{
    (void)s;
    float *a = calloc((size_t)ROWS * COLS, sizeof(float)), *out = calloc((size_t)ROWS * COLS, sizeof(float));
    pto_runtime *rt = two_workers();
    pto_program *p = dsl_compile(spmd_source, "g", PTO_STAGE_ALL);
    dsl_expect_ok(p);
    pto_run_arg args[] = {tensor("a", a), tensor("out", out)};
    pto_error err;
    assert_int_equal(pto_program_run(rt, p, args, 2, &err), -PTO_EXPLICIT_ORCH_FATAL);
    assert_non_null(strstr(err.message, "pl.spmd block count must be >= 1, got 0 at k.py:12:5"));
    a[0] = 16.0f;
    assert_int_equal(pto_program_run(rt, p, args, 2, &err), 0);
    for (int k = 0; k < ROWS * COLS; k++) assert_true(out[k] == a[k]);
    pto_program_free(p);
    pto_runtime_destroy(rt);
    free(a), free(out);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_exec_spmd_blocks_store_their_bands_on_two_workers),
    cmocka_unit_test(test_exec_spmd_runtime_block_count_below_one_is_code_9),
};

PTO_TEST_MAIN(tests)
