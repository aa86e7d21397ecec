/*
 * test_exec_dynamic_shapes.c - dynamic dimensions (docs/dsl.md, "Dynamic
 * shapes") through DSL source and the executor: a DynVar dimension in the
 * printed program and its round trip, the entry's compile-time binding text,
 * pl.tensor.dim folding, lowering to DIM and its range text, the kernel's
 * run-time extent, and the executor's binding of one program to several
 * extents (exec/bind.c) with its conflict text.
 */
#include <stdlib.h>
#include <string.h>

#include "compiler/program.h"
#include "exec/orch_vm.h"
#include "harness.h"
#include "dsl_compile.h"
#include "dsl_text.h"
#include "pto/runtime.h"

#define HDR "import pypto.language as pl\n\nN = pl.dynamic(\"N\")\n\n"
/* line 5 on: a kernel doubling rows in tiles of 8 over the run-time extent, its entry */
#define SRC                                                                                                   \
    HDR "@pl.jit.incore\n"                                                                                    \
        "def k(x: pl.Tensor[[N, 16], pl.FP32], out: pl.Out[pl.Tensor[[N, 16], pl.FP32]]):\n"                  \
        "    for i in pl.range(0, pl.tensor.dim(x, 0), 8):\n"                                                  \
        "        out = pl.store(pl.mul(pl.load(x, [i, 0], [8, pl.tensor.dim(x, -1)]), 2.0), [i, 0], out)\n"  \
        "    return out\n\n"                                                                                  \
        "@pl.jit\n"                                                                                           \
        "def f(x: pl.Tensor[[N, 16], pl.FP32], out: pl.Out[pl.Tensor[[N, 16], pl.FP32]]):\n"                  \
        "    return k(x, out)\n"

#define SPEC(nm, rows) {.name = nm, .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {rows, 16}}

static pto_program *dyn_compile(const char *src, int64_t xrows, int64_t orows)
{
    const pto_arg_spec args[] = {SPEC("x", xrows), SPEC("out", orows)};
    return dsl_compile_with(src, "f", PTO_STAGE_ALL, 0, args, 2);
}

/* The DynVar's line once before the program, its name in every annotation and
 * footprint; compiled again from its text (other extents) it prints the same. */
static void test_dynamic_dimension_printed_once_and_round_trips(void **s)
{
    (void)s;
    pto_program *p = dyn_compile(SRC, 32, 32);
    dsl_expect_ok(p);
    const char *text = pto_program_text(p);
    assert_non_null(strstr(text, "import pypto.language as pl\n\nN = pl.dynamic(\"N\")\n\n@pl.program\n"));
    assert_int_equal(dsl_count(text, "pl.dynamic("), 1);
    assert_non_null(strstr(text, "def k(self, x: pl.Tensor[[N, 16], pl.FP32], out: pl.Out[pl.Tensor[[N, 16], pl.FP32]])"));
    assert_non_null(strstr(text, "x: In [0:N, 0:16]; out: Out [0:N, 0:16]"));
    assert_non_null(strstr(text, "pl.load(x, [i, 0], [8, 16]")); /* the static axis folds */
    const pto_arg_spec other[] = {SPEC("x", 96), SPEC("out", 96)};
    dsl_expect_roundtrip(p, other, 2);
    pto_program_free(p);
}

/* One DynVar given two extents by the entry's arguments: the TypeError at the second parameter. */
static void test_dynamic_entry_two_extents_is_type_error(void **s)
{
    (void)s;
    DSL_EXPECT_COMPILE_ERROR(dyn_compile(SRC, 32, 64), "TypeError",
                             "@pl.jit function 'f': dynamic dimension 'N' is 32 for argument 'x' but 64 for argument 'out'", 12, 39);
}

static void test_dynamic_name_must_be_identifier(void **s)
{
    (void)s;
    const char *src = "import pypto.language as pl\n\nN = pl.dynamic(\"1x\")\n\n@pl.jit\n"
                      "def f(x: pl.Tensor[[N, 16], pl.FP32], out: pl.Out[pl.Tensor[[N, 16], pl.FP32]]):\n    return out\n";
    DSL_EXPECT_COMPILE_ERROR(dyn_compile(src, 8, 8), "ParserTypeError", "DynVar name must be a valid identifier, got '1x'", 3, 16);
}

static void test_tensor_dim_axis_out_of_range(void **s)
{
    (void)s;
    const char *src = HDR "@pl.jit\ndef f(x: pl.Tensor[[N, 16], pl.FP32], out: pl.Out[pl.Tensor[[N, 16], pl.FP32]]):\n"
                          "    n = pl.tensor.dim(x, 2)\n    return out\n";
    DSL_EXPECT_COMPILE_ERROR(dyn_compile(src, 8, 8), "InvalidOperationError", "pl.tensor.dim: axis 2 is out of range for a rank-2 tensor",
                             7, 26);
}

/* The dynamic axis lowers to DIM; the kernel receives the whole extent after the box origins. */
static void test_tensor_dim_lowers_to_dim(void **s)
{
    (void)s;
    pto_program *p = dyn_compile(SRC, 8, 8);
    dsl_expect_ok(p);
    const char *listing = pto_program_listing(p);
    assert_non_null(strstr(listing, "DIM r"));
    assert_non_null(strstr(listing, ".shape[0]"));
    assert_null(strstr(listing, ".shape[1]"));
    pto_program_free(p);
}

static int run_rows(pto_program *p, int64_t rows, float *x, float *out, pto_error *err)
{
    pto_runtime *rt = NULL;
    assert_int_equal(pto_runtime_create(NULL, &rt, err), 0);
    pto_run_arg args[] = {
        {"x", {.kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .base = x, .rank = 2, .shape = {rows, 16}}},
        {"out", {.kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .base = out, .rank = 2, .shape = {rows, 16}}},
    };
    int rc = pto_program_run(rt, p, args, 2, err);
    pto_runtime_destroy(rt);
    return rc;
}

/* One compiled program runs at 8, 24 and 40 rows, each element doubled; the extents are
 * multiples of the tile, so every tile is in bounds. */
static void test_dynamic_one_program_runs_every_extent(void **s)
{
    (void)s;
    pto_program *p = dyn_compile(SRC, 8, 8);
    dsl_expect_ok(p);
    static float x[40 * 16], out[40 * 16];
    for (int64_t rows = 8; rows <= 40; rows += 16) {
        for (int i = 0; i < rows * 16; i++) x[i] = (float)i - 7.5f, out[i] = 0;
        pto_error err;
        assert_int_equal(run_rows(p, rows, x, out, &err), 0);
        for (int i = 0; i < rows * 16; i++) assert_true(out[i] == 2 * x[i]);
    }
    pto_program_free(p);
}

/* An extent the kernel's constant tiles overrun: the run-time load check (code 12). */
static void test_dynamic_extent_overrun_is_kernel_failure(void **s)
{
    (void)s;
    pto_program *p = dyn_compile(SRC, 8, 8);
    dsl_expect_ok(p);
    static float x[12 * 16], out[12 * 16];
    pto_error err;
    assert_int_not_equal(run_rows(p, 12, x, out, &err), 0);
    assert_int_equal(err.code, PTO_KERNEL_FAILED);
    if (!strstr(err.message, "pl.load reads past the end of dimension 0: offset 8 + extent 8 exceeds the source extent 12."))
        fail_msg("%s", err.message);
    pto_program_free(p);
}

/* The executor binds each DynVar once per run: two extents fail with the binding text. */
static void test_dynamic_bind_two_extents_fails(void **s)
{
    (void)s;
    pto_program *p = dyn_compile(SRC, 8, 8);
    dsl_expect_ok(p);
    static float x[16 * 16], out[16 * 16];
    pto_run_arg args[] = {
        {"x", {.kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .base = x, .rank = 2, .shape = {16, 16}}},
        {"out", {.kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .base = out, .rank = 2, .shape = {8, 16}}},
    };
    ex_value params[2];
    pto_error err;
    assert_int_equal(ex_bind(cc_program_lowered(p), args, 2, params, &err), -PTO_INVALID_ARGS);
    assert_string_equal(err.message, "function 'f': dynamic dimension 'N' is 16 for argument 'x' but 8 for argument 'out'");
    args[1].value.shape[1] = 8; /* a static dimension still has to match */
    args[1].value.shape[0] = 16;
    assert_int_equal(ex_bind(cc_program_lowered(p), args, 2, params, &err), -PTO_INVALID_ARGS);
    assert_string_equal(err.message, "function 'f': argument 'out' has shape [16, 8] but the program was compiled for [N, 16]");
    pto_program_free(p);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_dynamic_dimension_printed_once_and_round_trips),
    cmocka_unit_test(test_dynamic_entry_two_extents_is_type_error),
    cmocka_unit_test(test_dynamic_name_must_be_identifier),
    cmocka_unit_test(test_tensor_dim_axis_out_of_range),
    cmocka_unit_test(test_tensor_dim_lowers_to_dim),
    cmocka_unit_test(test_dynamic_one_program_runs_every_extent),
    cmocka_unit_test(test_dynamic_extent_overrun_is_kernel_failure),
    cmocka_unit_test(test_dynamic_bind_two_extents_fails),
};

PTO_TEST_MAIN(tests)
