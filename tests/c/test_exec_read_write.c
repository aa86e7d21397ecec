/*
 * test_exec_read_write.c - pl.read and pl.write end to end (pto_compile,
 * pto_program_run, the tile VM): elements of a tile and of a kernel Tensor
 * at a run-time index in scalar arithmetic, an element written beside a
 * bulk store, a write under a tile loaded from the same tensor (the tile
 * keeps its value), and a run-time index out of range failing the task
 * with the read's file:line:col (the next run works).
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "dsl_compile.h"
#include "pto/run.h"

static const char *const rw_src =
    "import pypto.language as pl\n\n@pl.jit\ndef f(a: pl.Tensor, cfg: pl.Tensor, out: pl.Tensor):\n"
    "    with pl.at(level=pl.Level.CORE_GROUP):\n"
    "        t = pl.load(a, [0, 0], [4, 8])\n"
    "        r = pl.read(cfg, [0])\n"
    "        s = pl.read(t, [r, 2]) + pl.read(t, 9)\n"
    "        pl.write(a, [0, 0], 100.0)\n"
    "        pl.store(pl.add(t, s), [0, 0], out)\n"
    "        pl.write(out, [r, 7], s * 10.0)\n"
    "    return out\n";

static const pto_arg_spec rw_specs[] = {
    {.name = "a", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {4, 8}},
    {.name = "cfg", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_INT32, .rank = 1, .shape = {2}},
    {.name = "out", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {4, 8}},
};

static int rw_run(pto_runtime *rt, const pto_program *p, float *a, int32_t *cfg, float *out, pto_error *err)
{
    pto_run_arg args[] = {
        {"a", {.kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .base = a, .rank = 2, .shape = {4, 8}}},
        {"cfg", {.kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_INT32, .base = cfg, .rank = 1, .shape = {2}}},
        {"out", {.kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .base = out, .rank = 2, .shape = {4, 8}}},
    };
    return pto_program_run(rt, p, args, 3, err);
}

/* cfg[0] = 2: s = a[2, 2] + a.flat[9] = 18 + 9; out = a + s, out[2, 7] = 10 s;
 * a[0, 0] becomes 100 after t was loaded (out[0, 0] still 0 + s). */
static void test_exec_read_write_values_and_runtime_out_of_range(void **s)
{
    (void)s;
    float a[32], out[32];
    int32_t cfg[2] = {2, 0};
    pto_runtime *rt;
    pto_error err;
    assert_int_equal(pto_runtime_create(NULL, &rt, &err), 0);
    pto_program *p = dsl_compile_with(rw_src, "f", PTO_STAGE_ALL, 0, rw_specs, 3);
    dsl_expect_ok(p);
    assert_int_equal(pto_program_writes(p, "a"), 1); /* InOut: read, then written */
    for (int k = 0; k < 32; k++) a[k] = (float)k, out[k] = -1.0f;
    assert_int_equal(rw_run(rt, p, a, cfg, out, &err), 0);
    for (int k = 0; k < 32; k++) assert_true(out[k] == (k == 23 ? 270.0f : (float)k + 27.0f));
    assert_true(a[0] == 100.0f && a[1] == 1.0f);
    cfg[0] = 4;
    assert_int_equal(rw_run(rt, p, a, cfg, out, &err), -PTO_KERNEL_FAILED);
    if (!strstr(err.message, "pl.read: index 4 is out of range for dimension 0 of extent 4 (at k.py:8:13)"))
        fprintf(stderr, "%s\n", err.message), fail();
    cfg[0] = 0;
    assert_int_equal(rw_run(rt, p, a, cfg, out, &err), 0);
    assert_true(out[7] == 10.0f * (2.0f + 9.0f) && out[0] == 100.0f + 11.0f); /* a[0, 2] + a.flat[9]; a[0, 0] is 100 */
    pto_program_free(p);
    pto_runtime_destroy(rt);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_exec_read_write_values_and_runtime_out_of_range),
};

PTO_TEST_MAIN(tests)
