/*
 * test_dsl_transpose.c - pl.transpose and pl.transpose_view of docs/dsl.md,
 * "Operations" through DSL source: the accepted forms (pl.tile.transpose_view
 * too) with their printed text, result shapes and lowered axes, the round
 * trip, and every compile-time error with its exact message, class and
 * line:col.
 */
#include <stdlib.h>

#include "harness.h"
#include "dsl_compile.h"
#include "dsl_text.h"

#define HDR "import pypto.language as pl\n\n"
#define AT "    with pl.at(level=pl.Level.CORE_GROUP):\n"
/* an entry whose pl.at body (line 6 on, indent 8) is BODY */
#define K(body) HDR "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar[pl.INDEX]):\n" AT body "    return out\n"
#define LOAD "        t = pl.load(a, [0, 0], [16, 32])\n"

static const pto_arg_spec tr_args[] = {
    {.name = "a", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {64, 64}},
    {.name = "out", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {64, 64}},
    {.name = "n", .kind = PTO_ARG_SCALAR, .value = {.kind = PTO_VALUE_INT, .i = 5}},
};
#define TR_NARGS (sizeof tr_args / sizeof tr_args[0])

static pto_program *tr_compile(const char *src, int stop)
{
    return dsl_compile_with(src, "f", stop, 0, tr_args, TR_NARGS);
}

#define TR_ERROR(src, cls, msg, line, col) DSL_EXPECT_COMPILE_ERROR(tr_compile(src, PTO_STAGE_LOWER), cls, msg, line, col)

/* Both spellings: the shapes they give (annotations that must match), the
 * printed calls (axes as written, keywords as positions), the lowered TOPs
 * with their axes counted from 0, and print -> parse -> print. */
static void test_transpose_accepted_forms(void **s)
{
    (void)s;
    static const char *const want[] = {"v = pl.transpose_view(t)\n", "w = pl.transpose(t, -1, 0)\n", "y = pl.transpose_view(t)\n",
                                       "q = pl.transpose(u, 0, -1)\n", "z = pl.transpose(pl.transpose(u, 2, 1), -3, 1)\n", NULL};
    pto_program *p = tr_compile(K(LOAD "        v: pl.Tile[[32, 16], pl.FP32] = pl.transpose_view(t)\n"
                                       "        w: pl.Tile[[32, 16], pl.FP32] = pl.transpose(t, -1, 0)\n"
                                       "        y = pl.tile.transpose_view(t)\n"
                                       "        u = pl.reshape(t, [2, 8, 32])\n"
                                       "        q: pl.Tile[[32, 8, 2], pl.FP32] = pl.transpose(x=u, axis1=0, axis2=-1)\n"
                                       "        z: pl.Tile[[32, 2, 8], pl.FP32] = pl.transpose(pl.transpose(u, 2, 1), -3, 1)\n"
                                       "        pl.store(pl.add(pl.add(v, w), y), [0, 0], out)\n"),
                                PTO_STAGE_ALL);
    dsl_expect_text_contains(p, want);
    const char *l = pto_program_listing(p);
    assert_non_null(strstr(l, "TTRANSPOSE_VIEW v1 = v0 FP32 axes 0 1 @7:"));
    assert_non_null(strstr(l, "TTRANSPOSE v2 = v0 FP32 axes 1 0 @8:"));
    assert_non_null(strstr(l, "FP32 axes 0 2 @11:"));
    assert_non_null(strstr(l, "FP32 axes 2 1 @12:"));
    assert_non_null(strstr(l, "FP32 axes 0 1 @12:"));
    dsl_expect_roundtrip(p, tr_args, TR_NARGS);
    pto_program_free(p);
}

static void test_transpose_view_requires_two_dimensions(void **s)
{
    (void)s;
    TR_ERROR(K(LOAD "        v = pl.transpose_view(pl.reshape(t, [512]))\n"), "InvalidOperationError",
             "tile.transpose_view requires at least 2 dimensions, but got 1", 7, 13);
    TR_ERROR(K(LOAD "        v = pl.transpose_view()\n"), "ParserTypeError", "pl.transpose_view() missing required argument 'tile'", 7, 13);
}

static void test_transpose_axes_must_differ(void **s)
{
    (void)s;
    TR_ERROR(K(LOAD "        v = pl.transpose(t, 1, -1)\n"), "InvalidOperationError",
             "pl.transpose: axis1 and axis2 must differ, got 1 twice", 7, 32);
    TR_ERROR(K(LOAD "        v = pl.transpose(t, 0, 0)\n"), "InvalidOperationError",
             "pl.transpose: axis1 and axis2 must differ, got 0 twice", 7, 32);
}

static void test_transpose_axis_out_of_range(void **s)
{
    (void)s;
    TR_ERROR(K(LOAD "        v = pl.transpose(t, 0, 2)\n"), "InvalidOperationError", "pl.transpose: axis 2 is out of range for rank 2",
             7, 32);
    TR_ERROR(K(LOAD "        v = pl.transpose(t, -3, 1)\n"), "InvalidOperationError",
             "pl.transpose: axis -3 is out of range for rank 2", 7, 29);
    TR_ERROR(K(LOAD "        v = pl.transpose(pl.reshape(t, [512]), 0, 1)\n"), "InvalidOperationError",
             "pl.transpose: axis 1 is out of range for rank 1", 7, 51);
}

static void test_transpose_axes_are_integer_constants(void **s)
{
    (void)s;
    TR_ERROR(K(LOAD "        for i in pl.range(0, n):\n            v = pl.transpose(t, i, 1)\n"), "ParserTypeError",
             "pl.transpose axis1 must be a compile-time integer constant", 8, 33);
    TR_ERROR(K(LOAD "        v = pl.transpose(t, 0, 1.0)\n"), "ParserTypeError",
             "pl.transpose axis2 must be a compile-time integer constant", 7, 32);
    TR_ERROR(K(LOAD "        v = pl.transpose(t, True, 0)\n"), "ParserTypeError",
             "pl.transpose axis1 must be a compile-time integer constant", 7, 29);
    TR_ERROR(K(LOAD "        v = pl.transpose(t, 0)\n"), "ParserTypeError", "pl.transpose() missing required argument 'axis2'", 7, 13);
}

static void test_transpose_of_a_tensor_in_orchestration_is_not_supported(void **s)
{
    (void)s;
    TR_ERROR(HDR "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar[pl.INDEX]):\n    b = pl.transpose(a, 0, 1)\n"
                 "    return out\n",
             "UnsupportedFeatureError", "pl.transpose of a Tensor is not supported in this version", 5, 9);
    TR_ERROR(HDR "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar[pl.INDEX]):\n    b = pl.transpose_view(a)\n"
                 "    return out\n",
             "InvalidOperationError", "Misplaced tile op 'pl.transpose_view' in Orchestration function 'f'", 5, 9);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_transpose_accepted_forms),
    cmocka_unit_test(test_transpose_view_requires_two_dimensions),
    cmocka_unit_test(test_transpose_axes_must_differ),
    cmocka_unit_test(test_transpose_axis_out_of_range),
    cmocka_unit_test(test_transpose_axes_are_integer_constants),
    cmocka_unit_test(test_transpose_of_a_tensor_in_orchestration_is_not_supported),
};

PTO_TEST_MAIN(tests)
