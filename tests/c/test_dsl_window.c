/*
 * test_dsl_window.c - pl.assemble and pl.slice on tiles (docs/dsl.md,
 * "Operations") through DSL source: the accepted forms with their post-pass
 * text, and every compile-time error with its exact message, class and
 * line:col, and the printed text's round trip (the run-time bounds errors
 * and values are tests/python/test_window.py's).
 */
#include <stdlib.h>

#include "harness.h"
#include "dsl_compile.h"
#include "dsl_text.h"

#define HDR "import pypto.language as pl\n\n"
#define AT "    with pl.at(level=pl.Level.CORE_GROUP):\n"
/* an entry whose pl.at body (line 6 on, indent 8) is BODY */
#define K(body) HDR "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar[pl.INDEX]):\n" AT body "    return out\n"
/* an entry whose orchestration body (line 5 on, indent 4) is BODY */
#define C(body) HDR "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar[pl.INDEX]):\n" body "    return out\n"
/* t [32, 32] and s [8, 16], both FP32 (lines 6 and 7) */
#define LOADS "        t = pl.load(a, [0, 0], [32, 32])\n        s = pl.load(a, [0, 0], [8, 16])\n"

static const pto_arg_spec win_args[] = {
    {.name = "a", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {64, 64}},
    {.name = "out", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {64, 64}},
    {.name = "n", .kind = PTO_ARG_SCALAR, .value = {.kind = PTO_VALUE_INT, .i = 5}},
};

static pto_program *win_compile(const char *src)
{
    return dsl_compile_with(src, "f", PTO_STAGE_LOWER, 0, win_args, sizeof win_args / sizeof win_args[0]);
}

#define WIN_ERROR(src, cls, msg, line, col) DSL_EXPECT_COMPILE_ERROR(win_compile(src), cls, msg, line, col)

static void test_assemble_accepted(void **s)
{
    (void)s;
    static const char *const want[] = {"r = pl.assemble(t, s, [8, i])\n", "q = pl.assemble(r, s, [0, 16])\n",
                                       "h = pl.cast(t, pl.BF16)\n", "g = pl.assemble(h, s, [i * 8, 0])\n", NULL};
    pto_program *p = win_compile(K(LOADS "        for i in pl.range(2):\n            r = pl.assemble(t, s, [8, i])\n"
                                         "            q = pl.assemble(r, s, (0, 16))\n"
                                         "            h = pl.cast(t, pl.BF16)\n            g = pl.assemble(h, s, [i * 8, 0])\n"
                                         "            pl.store(q, [0, 0], out)\n"));
    dsl_expect_text_contains(p, want);
    dsl_expect_roundtrip(p, win_args, sizeof win_args / sizeof win_args[0]);
    pto_program_free(p);
}

static void test_assemble_errors(void **s)
{
    (void)s;
    WIN_ERROR(K(LOADS "        o = [0, 0]\n        r = pl.assemble(t, s, o)\n"), "ParserTypeError",
              "tile.assemble offset must be a literal tuple (e.g., (row, col)), not a variable or computed expression", 9, 31);
    WIN_ERROR(K(LOADS "        u = pl.reshape(s, [1, 8, 16])\n        r = pl.assemble(t, u, [0, 0])\n"), "InvalidOperationError",
              "pl.assemble: source rank 3 does not match target rank 2", 9, 13);
    WIN_ERROR(K(LOADS "        r = pl.assemble(t, s, [0, 20])\n"), "InvalidOperationError",
              "pl.assemble: offset 20 + extent 16 exceeds dimension 1 of extent 32", 8, 35);
    WIN_ERROR(K(LOADS "        r = pl.assemble(t, s, [-1, 0])\n"), "InvalidOperationError", "pl.assemble: offset 0 is negative (-1)", 8, 32);
    WIN_ERROR(K(LOADS "        r = pl.assemble(t, s, [0])\n"), "InvalidOperationError",
              "pl.assemble: expected 2 offsets for a rank-2 target, got 1", 8, 31);
    WIN_ERROR(K(LOADS "        u = pl.cast(s, pl.INT32)\n        r = pl.assemble(t, u, [0, 0])\n"), "ParserTypeError",
              "pl.assemble: source dtype INT32 cannot be inserted into a FP32 target; insert pl.cast", 9, 13);
    WIN_ERROR(K(LOADS "        h = pl.cast(t, pl.FP16)\n        r = pl.assemble(h, pl.cast(s, pl.BF16), [0, 0])\n"), "ParserTypeError",
              "pl.assemble: source dtype BF16 cannot be inserted into a FP16 target; insert pl.cast", 9, 13);
    WIN_ERROR(K(LOADS "        h = pl.cast(s, pl.FP16)\n        r = pl.assemble(t, h, [0, 0])\n"), "ParserTypeError",
              "pl.assemble: source dtype FP16 cannot be inserted into a FP32 target; insert pl.cast", 9, 13);
    WIN_ERROR(K(LOADS "        r = pl.assemble(n, s, [0, 0])\n"), "ParserTypeError", "pl.assemble: the target must be a tile, got pl.Scalar[pl.INDEX]", 8, 25);
    WIN_ERROR(K(LOADS "        r = pl.assemble(t, s)\n"), "ParserTypeError", "pl.assemble() missing required argument 'offset'", 8, 13);
}

static void test_slice_accepted(void **s)
{
    (void)s;
    static const char *const want[] = {"w = pl.slice(t, [1, 16], [i, 0])\n", "v = pl.slice(t, [8, 16], [0, 16], valid_shape=[i, 16])\n",
                                       "d = pl.slice(t, [1, 16], [0, 0], drop_dims=[0])\n",
                                       "z = pl.slice(t, [4, 4], [i, i], pad_value=pl.PadValue.zero)\n",
                                       "y = pl.slice(t, [4, 4], [0, 0], pad_value=pl.PadValue.zero)\n", NULL};
    pto_program *p = win_compile(K(LOADS "        for i in pl.range(2):\n            w = pl.slice(t, [1, 16], [i, 0])\n"
                                         "            v = pl.slice(t, [8, 16], [0, 16], valid_shape=[i, 16])\n"
                                         "            d: pl.Tile[[1, 16], pl.FP32] = pl.slice(t, [1, 16], [0, 0], drop_dims=[0])\n"
                                         "            z = pl.slice(t, [4, 4], [i, i], pad_value=pl.PadValue.zero, clamp=False)\n"
                                         "            y = pl.slice(t, [4, 4], [0, 0], pad_value=0)\n"
                                         "            pl.store(v, [0, 0], out)\n"));
    dsl_expect_text_contains(p, want);
    dsl_expect_roundtrip(p, win_args, sizeof win_args / sizeof win_args[0]);
    pto_program_free(p);
}

static void test_slice_errors(void **s)
{
    (void)s;
    WIN_ERROR(K(LOADS "        for i in pl.range(1, 4):\n            w = pl.slice(t, [i, 16], [0, 0])\n"), "ParserTypeError",
              "tile.slice shape element 0 must be a compile-time constant", 9, 30);
    WIN_ERROR(K(LOADS "        w = pl.slice(t, [16, 16], [24, 0])\n"), "InvalidOperationError",
              "pl.slice: offset 24 + extent 16 exceeds dimension 0 of extent 32", 8, 36);
    WIN_ERROR(K(LOADS "        w = pl.slice(t, [16, 16], [0, -2])\n"), "InvalidOperationError", "pl.slice: offset 1 is negative (-2)", 8, 39);
    WIN_ERROR(K(LOADS "        w = pl.slice(t, [16], [0, 0])\n"), "InvalidOperationError",
              "pl.slice: expected 2 shape entries and 2 offsets for a rank-2 tile, got 1 and 2", 8, 13);
    WIN_ERROR(K(LOADS "        w = pl.slice(t, [0, 16], [0, 0])\n"), "InvalidOperationError", "pl.slice: shape element 0 must be positive, got 0", 8, 26);
    WIN_ERROR(K(LOADS "        w = pl.slice(t, [8, 16], [0, 0], clamp=True)\n"), "ParserTypeError", "pl.slice: clamp=True is not supported for a Tile", 8, 48);
    WIN_ERROR(K(LOADS "        w = pl.slice(t, [2, 16], [0, 0], drop_dims=[0])\n"), "InvalidOperationError",
              "pl.slice: drop_dims axis 0 has extent 2; only unit axes can be dropped", 8, 53);
    WIN_ERROR(K(LOADS "        w = pl.slice(t, [1, 16], [0, 0], drop_dims=[a])\n"), "ParserTypeError",
              "pl.slice drop_dims entry 0 must be a compile-time constant", 8, 53);
    WIN_ERROR(K(LOADS "        w = pl.slice(t, [1, 1], [0, 0], drop_dims=[0, 0])\n"), "InvalidOperationError",
              "pl.slice: drop_dims axis 0 appears twice", 8, 55);
    WIN_ERROR(K(LOADS "        w = pl.slice(t, [1, 16], [0, 0], drop_dims=[2])\n"), "InvalidOperationError",
              "pl.slice: drop_dims axis 2 is out of range for rank 2", 8, 53);
    WIN_ERROR(K(LOADS "        w = pl.slice(t, [8, 16], [0, 0], valid_shape=[n])\n"), "InvalidOperationError",
              "pl.slice: valid_shape has 1 entries for a rank-2 window", 8, 54);
    WIN_ERROR(K(LOADS "        w = pl.slice(t, [8, 16], [0, 0], pad_value=pl.PadValue.null)\n"), "ParserTypeError",
              "pl.slice pad_value cannot be PadValue.null", 8, 52);
    WIN_ERROR(K(LOADS "        w = pl.slice(t, [8, 16], [0, 0], pad_value=5)\n"), "ParserTypeError",
              "pl.slice pad_value only accepts PadValue.zero, PadValue.max, PadValue.min, 0, math.inf or -math.inf, got 5", 8, 52);
    WIN_ERROR(K(LOADS "        w = pl.slice(t, [8, 16], [0, 0], pad_value=pl.PadValue.max)\n"), "UnsupportedFeatureError",
              "pl.slice pad_value=PadValue.max is not supported in this version", 8, 52);
    WIN_ERROR(K(LOADS "        w = pl.slice(s, [8, 16])\n"), "ParserTypeError", "pl.slice() missing required argument 'offset'", 8, 13);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_assemble_accepted),
    cmocka_unit_test(test_assemble_errors),
    cmocka_unit_test(test_slice_accepted),
    cmocka_unit_test(test_slice_errors),
};

PTO_TEST_MAIN(tests)
