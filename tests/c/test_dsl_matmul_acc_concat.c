/*
 * test_dsl_matmul_acc_concat.c - pl.matmul_acc, pl.concat and pl.fillpad of
 * docs/dsl.md, "Operations" through DSL source: the accepted forms with
 * their post-pass text and every error row with its exact message, class
 * and line:col.
 */
#include <stdlib.h>

#include "harness.h"
#include "dsl_compile.h"
#include "dsl_text.h"

#define HDR "import pypto.language as pl\n\n"
#define AT "    with pl.at(level=pl.Level.CORE_GROUP):\n"
/* an entry with parameters PARAMS whose pl.at body (line 6 on, indent 8) is BODY */
#define KP(params, body) HDR "@pl.jit\ndef f(" params "):\n" AT body "    return out\n"
#define PARAMS "a: pl.Tensor, w: pl.Tensor, i: pl.Tensor, q: pl.Tensor, r: pl.Tensor, v: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar[pl.INDEX]"
#define K(body) KP(PARAMS, body)
#define LOADS "        t = pl.load(a, [0, 0], [64, 128])\n        u = pl.load(w, [0, 0], [128, 128])\n"

static const pto_arg_spec misc_args[] = {
    {.name = "a", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {256, 128}},
    {.name = "w", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {128, 128}},
    {.name = "i", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_INT32, .rank = 2, .shape = {256, 128}},
    {.name = "q", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_INT8, .rank = 2, .shape = {64, 64}},
    {.name = "r", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_INT32, .rank = 2, .shape = {64, 64}},
    {.name = "v", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 1, .shape = {128}},
    {.name = "out", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {256, 256}},
    {.name = "n", .kind = PTO_ARG_SCALAR, .value = {.kind = PTO_VALUE_INT, .i = 5}},
};

static pto_program *misc_compile(const char *src)
{
    return dsl_compile_with(src, "f", PTO_STAGE_LOWER, 0, misc_args, sizeof misc_args / sizeof misc_args[0]);
}

#define MISC_ERROR(src, cls, msg, line, col) DSL_EXPECT_COMPILE_ERROR(misc_compile(src), cls, msg, line, col)

/* src compiles; its post-pass text contains every string of want. */
static void misc_expect_ok(const char *src, const char *const *want)
{
    pto_program *p = misc_compile(src);
    dsl_expect_text_contains(p, want);
    pto_program_free(p);
}

/* ---- pl.matmul_acc ------------------------------------------------------------------------ */

static void test_matmul_acc_accepted(void **s)
{
    (void)s;
    static const char *const want[] = {"m = pl.matmul_acc(m, t, u)\n", "m = pl.matmul_acc(m, t, u, init_cond=k == 0)\n",
                                       "k2 = pl.matmul_acc(k2, b, b, init_cond=5)\n", "k3 = pl.matmul_acc(k2, b, b)\n", NULL};
    misc_expect_ok(K(LOADS "        m = pl.matmul(t, u)\n        for k in pl.range(4):\n"
                           "            m = pl.matmul_acc(m, t, u)\n            m = pl.matmul_acc(m, t, u, init_cond=(k == 0))\n"
                           "        b = pl.load(q, [0, 0], [64, 64])\n        k2 = pl.load(r, [0, 0], [64, 64])\n"
                           "        k2 = pl.matmul_acc(k2, b, b, init_cond=n)\n        k3 = pl.matmul_acc(k2, b, b, init_cond=None)\n"
                           "        pl.store(m, [0, 0], out)\n"),
                   want);
}

static void test_matmul_acc_errors(void **s)
{
    (void)s;
    MISC_ERROR(K(LOADS "        c = pl.load(i, [0, 0], [64, 128])\n        m = pl.matmul_acc(c, t, u)\n"), "ParserTypeError",
               "tile.matmul_acc requires accumulator dtype FP32, but got INT32", 9, 27);
    MISC_ERROR(K("        b = pl.load(q, [0, 0], [64, 64])\n        c = pl.load(a, [0, 0], [64, 64])\n        m = pl.matmul_acc(c, b, b)\n"),
               "ParserTypeError", "tile.matmul_acc requires accumulator dtype INT32, but got FP32", 8, 27);
    MISC_ERROR(K(LOADS "        c = pl.load(a, [0, 0], [32, 128])\n        m = pl.matmul_acc(c, t, u)\n"), "InvalidOperationError",
               "tile.matmul_acc requires matching physical M dimensions, but got acc M=32 and lhs M=64", 9, 13);
    MISC_ERROR(K(LOADS "        c = pl.load(a, [0, 0], [64, 64])\n        m = pl.matmul_acc(c, t, u)\n"), "InvalidOperationError",
               "tile.matmul_acc requires matching physical N dimensions, but got acc N=64 and rhs N=128", 9, 13);
    MISC_ERROR(K(LOADS "        m = pl.matmul_acc(u, t, t)\n"), "InvalidOperationError",
               "pl.matmul_acc: inner dimensions differ: [64, 128] vs [64, 128]", 8, 13);
    MISC_ERROR(K(LOADS "        m = pl.matmul_acc(u, u, u, init_cond=1.5)\n"), "ParserTypeError",
               "pl.matmul_acc init_cond= must be a BOOL or integer scalar", 8, 46);
    MISC_ERROR(K(LOADS "        m = pl.matmul_acc(u, u)\n"), "ParserTypeError", "pl.matmul_acc() missing required argument 'rhs'", 8, 13);
}

/* ---- pl.concat, pl.fillpad ---------------------------------------------------------------- */

#define XY "        x = pl.load(a, [0, 0], [8, 4], valid_shape=[n, 2])\n        y = pl.load(a, [0, 0], [8, 6])\n"

static void test_concat_fillpad_accepted(void **s)
{
    (void)s;
    static const char *const want[] = {"c = pl.concat(x, y)\n", "f = pl.fillpad(x)\n", "g = pl.fillpad(x, pad_value=pl.PadValue.max)\n",
                                       "h = pl.fillpad(x, pad_value=pl.PadValue.min)\n", "z = pl.fillpad(y)\n", NULL};
    misc_expect_ok(K(XY "        c = pl.concat(x, y)\n        f = pl.fillpad(x, pad_value=0)\n"
                        "        g = pl.fillpad(x, pad_value=math.inf)\n        h = pl.fillpad(x, pad_value=-math.inf)\n"
                        "        z = pl.fillpad(y, pad_value=pl.PadValue.zero)\n        g = pl.fillpad(x, pad_value=pl.PadValue.max)\n"
                        "        pl.store(c, [0, 0], out)\n"),
                   want);
}

static void test_concat_fillpad_errors(void **s)
{
    (void)s;
    MISC_ERROR(K(XY "        z = pl.load(i, [0, 0], [8, 4])\n        c = pl.concat(x, z)\n"), "ParserTypeError",
               "tile.concat: inputs must have same dtype, got FP32 vs INT32", 9, 13);
    MISC_ERROR(K(XY "        z = pl.load(a, [0, 0], [4, 4])\n        c = pl.concat(x, z)\n"), "InvalidOperationError",
               "tile.concat: row count must match, got 8 vs 4", 9, 13);
    MISC_ERROR(K(XY "        v1 = pl.load(v, [0], [8])\n        c = pl.concat(x, v1)\n"), "InvalidOperationError",
               "tile.concat requires 2D tiles", 9, 13);
    MISC_ERROR(K(XY "        f = pl.fillpad(x, pad_value=pl.PadValue.null)\n"), "ParserTypeError",
               "fillpad pad_value cannot be PadValue.null", 8, 37);
    MISC_ERROR(K(XY "        f = pl.fillpad(x, pad_value=-1)\n"), "ParserTypeError",
               "fillpad pad_value only accepts PadValue.zero, PadValue.max, PadValue.min, 0, math.inf or -math.inf, got this value", 8, 37);
    MISC_ERROR(K(XY "        f = pl.fillpad(x, pad_value=7)\n"), "ParserTypeError",
               "fillpad pad_value only accepts PadValue.zero, PadValue.max, PadValue.min, 0, math.inf or -math.inf, got 7", 8, 37);
    MISC_ERROR(K(XY "        f = pl.fillpad(x, pad=0)\n"), "ParserTypeError", "pl.fillpad() got an unexpected keyword argument 'pad'", 8, 27);
}

/* ---- scalar pl.min / pl.max, bare-dtype annotations --------------------------------------- */

static void test_scalar_min_max_and_bare_dtype_annotations(void **s)
{
    (void)s;
    static const char *const want[] = {"x = pl.load(a, [0, 0], [8, 4], valid_shape=[3, 2], cache=", NULL};
    misc_expect_ok(K("        x = pl.load(a, [0, 0], [8, 4], valid_shape=[pl.min(n, 3), pl.max(1, 2)])\n        pl.store(x, [0, 0], out)\n"),
                   want);
    /* n: pl.INDEX is pl.Scalar[pl.INDEX]: the same program text */
    misc_expect_ok(KP("a: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.INDEX",
                      "        x = pl.load(a, [0, 0], [8, 4], valid_shape=[n, 4])\n        pl.store(x, [0, 0], out)\n"),
                   (const char *const[]){"n: pl.Scalar[pl.INDEX]", "valid_shape=[5, 4]", NULL});
    MISC_ERROR(KP("a: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.FP32", "        x = pl.load(a, [0, 0], [8, 4], valid_shape=[n, 4])\n"),
               "ParserTypeError", "valid_shape entries must be integer scalars", 6, 53);
    MISC_ERROR(K("        x = pl.load(a, [0, 0], [8, 4])\n        y = pl.min(x, 1.0)\n"), "ParserTypeError",
               "pl.min/pl.max take scalars; use pl.minimum/pl.maximum for tiles", 7, 13);
    MISC_ERROR(K("        y = pl.max(n)\n"), "ParserTypeError", "pl.max() takes exactly 2 arguments", 6, 13);
}

/* ---- pl.tile.full --------------------------------------------------------------------------- */

static void test_tile_full(void **s)
{
    (void)s;
    misc_expect_ok(K("        t = pl.tile.full([8, 16], pl.FP16, 1.5)\n        u = pl.tile.full([4, 4], dtype=pl.INT8, value=n)\n"
                     "        pl.store(pl.cast(t, pl.FP32), [0, 0], out)\n"),
                   (const char *const[]){"t = pl.tile.full([8, 16], pl.FP16, value=1.5)\n", "u = pl.tile.full([4, 4], pl.INT8, value=5)\n", NULL});
    MISC_ERROR(K("        t = pl.tile.full([8, 16], pl.INT32, 1.5)\n"), "ParserTypeError",
               "pl.tile.full: a float value for an INT32 tile; pass an int", 6, 45);
    MISC_ERROR(K("        t = pl.tile.full([8, 16], pl.INDEX, 1)\n"), "ParserTypeError",
               "a tile dtype must be FP32, FP16, BF16, INT64, INT32, INT16, INT8, UINT32, UINT16 or UINT8", 6, 35);
    MISC_ERROR(K("        for k in pl.range(2):\n            t = pl.tile.full([8, k], pl.FP32, 1)\n"), "ParserTypeError",
               "pl.tile.full shapes must be compile-time constants", 7, 34);
    MISC_ERROR(K("        t = pl.tile.full([8, 8], pl.FP32)\n"), "ParserTypeError",
               "pl.tile.full() missing required argument 'value'", 6, 13);
    MISC_ERROR(K("        t = pl.tile.expand(a)\n"), "UnsupportedFeatureError", "pl.tile.expand is not supported in this version", 6, 13);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_tile_full),
    cmocka_unit_test(test_scalar_min_max_and_bare_dtype_annotations),
    cmocka_unit_test(test_concat_fillpad_accepted),
    cmocka_unit_test(test_concat_fillpad_errors),
    cmocka_unit_test(test_matmul_acc_accepted),
    cmocka_unit_test(test_matmul_acc_errors),
};

PTO_TEST_MAIN(tests)
