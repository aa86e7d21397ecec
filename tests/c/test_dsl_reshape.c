/*
 * test_dsl_reshape.c - pl.reshape of docs/dsl.md, "Operations" through DSL
 * source: the accepted forms with their post-pass text, and every
 * compile-time error with its exact message, class and line:col.
 */
#include <stdlib.h>

#include "harness.h"
#include "dsl_compile.h"
#include "dsl_text.h"

#define HDR "import pypto.language as pl\n\n"
#define AT "    with pl.at(level=pl.Level.CORE_GROUP):\n"
/* an entry whose pl.at body (line 6 on, indent 8) is BODY */
#define K(body) HDR "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar[pl.INDEX]):\n" AT body "    return out\n"
#define LOAD "        t = pl.load(a, [0, 0], [32, 1])\n"

static const pto_arg_spec rs_args[] = {
    {.name = "a", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {64, 64}},
    {.name = "out", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {64, 64}},
    {.name = "n", .kind = PTO_ARG_SCALAR, .value = {.kind = PTO_VALUE_INT, .i = 5}},
};

static pto_program *rs_compile(const char *src)
{
    return dsl_compile_with(src, "f", PTO_STAGE_LOWER, 0, rs_args, sizeof rs_args / sizeof rs_args[0]);
}

#define RS_ERROR(src, cls, msg, line, col) DSL_EXPECT_COMPILE_ERROR(rs_compile(src), cls, msg, line, col)

static void test_reshape_accepted(void **s)
{
    (void)s;
    static const char *const want[] = {"r = pl.reshape(t, [1, 32])\n", "b = pl.reshape(r, [32, 1])\n",
                                       "q = pl.reshape(u, [2, 4, 8])\n", "v = pl.reshape(w, [1, 1, 32])\n", NULL};
    pto_program *p = rs_compile(K(LOAD "        r: pl.Tile[[1, 32], pl.FP32] = pl.reshape(t, [1, 32])\n"
                                       "        b = pl.reshape(r, [32, 1])\n        u = pl.load(a, [0, 0], [8, 8])\n"
                                       "        q = pl.reshape(u, (2, 4, 8))\n"
                                       "        w = pl.load(a, [0, 0], [32, 1], valid_shape=[n, 1])\n"
                                       "        v = pl.reshape(w, [1, 1, 32])\n        pl.store(b, [0, 0], out)\n"));
    dsl_expect_text_contains(p, want);
    pto_program_free(p);
}

static void test_reshape_errors(void **s)
{
    (void)s;
    RS_ERROR(K(LOAD "        r = pl.reshape(t, [8, 8])\n"), "InvalidOperationError",
             "tile.reshape: cannot reshape tile of size 32 into shape with size 64", 7, 13);
    RS_ERROR(K(LOAD "        for i in pl.range(1, n):\n            r = pl.reshape(t, [1, i])\n"), "ParserTypeError",
             "pl.reshape shape element 1 must be a compile-time constant", 8, 35);
    RS_ERROR(K(LOAD "        r = pl.reshape(t, [32, 1.0])\n"), "ParserTypeError",
             "pl.reshape shape element 1 must be a compile-time constant", 7, 32);
    RS_ERROR(K(LOAD "        r = pl.reshape(t, [-32, -1])\n"), "InvalidOperationError",
             "pl.reshape: shape element 0 must be positive, got -32", 7, 28);
    RS_ERROR(K(LOAD "        r = pl.reshape(t, [1, 1, 1, 1, 32])\n"), "InvalidOperationError",
             "pl.reshape: the shape needs 1 to 4 entries", 7, 27);
    RS_ERROR(K(LOAD "        r = pl.reshape(t, 32)\n"), "ParserTypeError", "pl.reshape: shape must be a list like [1, 32]", 7, 27);
    RS_ERROR(K(LOAD "        r = pl.reshape(t)\n"), "ParserTypeError", "pl.reshape() missing required argument 'shape'", 7, 13);
    RS_ERROR(HDR "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar[pl.INDEX]):\n    b = pl.reshape(a, [4096])\n"
                 "    return out\n",
             "UnsupportedFeatureError", "pl.reshape of a Tensor is not supported in this version", 5, 9);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_reshape_accepted),
    cmocka_unit_test(test_reshape_errors),
};

PTO_TEST_MAIN(tests)
