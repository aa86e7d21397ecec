/*
 * test_dsl_validshape.c - pl.fillpad_expand and pl.set_validshape of
 * docs/dsl.md, "Operations" through DSL source: the accepted forms with
 * their post-pass text (and its round trip; the pl.tile.<op> spellings
 * print as pl.<op>), their lowering (one TOP each),
 * and every compile-time error with its exact message, class and line:col.
 */
#include <stdlib.h>

#include "harness.h"
#include "dsl_compile.h"
#include "dsl_text.h"

#define HDR "import pypto.language as pl\nimport math\n"
#define AT "    with pl.at(level=pl.Level.CORE_GROUP):\n"
/* an entry whose pl.at body (line 6 on, indent 8) is BODY */
#define K(body) HDR "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar[pl.INDEX]):\n" AT body "    return out\n"
#define LOAD "        t = pl.load(a, [0, 0], [8, 8], valid_shape=[n, 6])\n"

static const pto_arg_spec vs_args[] = {
    {.name = "a", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {64, 64}},
    {.name = "out", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {64, 64}},
    {.name = "n", .kind = PTO_ARG_SCALAR, .value = {.kind = PTO_VALUE_INT, .i = 5}},
};
#define VS_NARGS (sizeof vs_args / sizeof vs_args[0])

static pto_program *vs_compile(const char *src, int stop) { return dsl_compile_with(src, "f", stop, 0, vs_args, VS_NARGS); }

#define VS_ERROR(src, cls, msg, line, col) DSL_EXPECT_COMPILE_ERROR(vs_compile(src, PTO_STAGE_LOWER), cls, msg, line, col)

/* ---- pl.fillpad_expand ----------------------------------------------------------------------- */

static void test_fillpad_expand_accepted_and_printed_back(void **s)
{
    (void)s;
    static const char *const want[] = {"e = pl.fillpad_expand(t, [16, 8])\n", "g = pl.fillpad_expand(t, [8, 32], pad_value=pl.PadValue.max)\n",
                                       "h = pl.fillpad_expand(t, [8, 8], pad_value=pl.PadValue.min)\n",
                                       "k = pl.fillpad_expand(t, [9, 9])\n", NULL};
    pto_program *p = vs_compile(K(LOAD "        e: pl.Tile[[16, 8], pl.FP32] = pl.fillpad_expand(t, [16, 8], pad_value=0)\n"
                                       "        g = pl.fillpad_expand(t, (8, 32), pad_value=math.inf)\n"
                                       "        h = pl.fillpad_expand(t, shape=[8, 8], pad_value=-math.inf)\n"
                                       "        k = pl.tile.fillpad_expand(t, [9, 9])\n"
                                       "        pl.store(g, [0, 0], out)\n"),
                                PTO_STAGE_ALL);
    dsl_expect_text_contains(p, want);
    dsl_expect_roundtrip(p, vs_args, VS_NARGS);
    pto_program_free(p);
}

static void test_fillpad_expand_errors(void **s)
{
    (void)s;
    VS_ERROR(K(LOAD "        e = pl.fillpad_expand(t, [4, 16])\n"), "InvalidOperationError",
             "pl.fillpad_expand: shape [4, 16] is smaller than the source [8, 8]", 7, 13);
    VS_ERROR(K(LOAD "        e = pl.fillpad_expand(t, [8, 8, 8])\n"), "InvalidOperationError",
             "pl.fillpad_expand: shape [8, 8, 8] has rank 3, the source [8, 8] rank 2", 7, 34);
    VS_ERROR(K(LOAD "        for i in pl.range(n):\n            e = pl.fillpad_expand(t, [16, i])\n"), "ParserTypeError",
             "pl.fillpad_expand shapes must be compile-time constants", 8, 43);
    VS_ERROR(K(LOAD "        e = pl.fillpad_expand(t, 16)\n"), "ParserTypeError", "shapes must be a list like [0, 0]", 7, 34);
    VS_ERROR(K(LOAD "        e = pl.fillpad_expand(t, [16, 8], pad_value=pl.PadValue.null)\n"), "ParserTypeError",
             "fillpad pad_value cannot be PadValue.null", 7, 53);
    VS_ERROR(K(LOAD "        e = pl.fillpad_expand(t, [16, 8], pad_value=5)\n"), "ParserTypeError",
             "fillpad pad_value only accepts PadValue.zero, PadValue.max, PadValue.min, 0, math.inf or -math.inf, got 5", 7, 53);
    VS_ERROR(K(LOAD "        e = pl.fillpad_expand(t)\n"), "ParserTypeError", "pl.fillpad_expand() missing required argument 'shape'", 7, 13);
    VS_ERROR(K(LOAD "        e = pl.fillpad_expand(n, [16, 8])\n"), "ParserTypeError", "expected a tile, got pl.Scalar[pl.INDEX]", 7, 31);
}

/* ---- pl.set_validshape ----------------------------------------------------------------------- */

static void test_set_validshape_accepted_and_printed_back(void **s)
{
    (void)s;
    static const char *const want[] = {"u = pl.set_validshape(t, 3, 8)\n", "v = pl.set_validshape(t, i, i + 1)\n",
                                       "w = pl.set_validshape(w, 0, 0)\n", "x = pl.set_validshape(u, 1, 2)\n", NULL};
    pto_program *p = vs_compile(K(LOAD "        u = pl.set_validshape(t, 3, n + 3)\n"
                                       "        for i in pl.range(n):\n"
                                       "            v = pl.set_validshape(t, i, valid_cols=i + 1)\n"
                                       "            pl.store(v, [0, 0], out)\n"
                                       "        w = pl.set_validshape(tile=u, valid_rows=0, valid_cols=0)\n"
                                       "        w = pl.set_validshape(w, 0, 0)\n"
                                       "        x = pl.tile.set_validshape(u, 1, 2)\n"
                                       "        pl.store(u, [0, 0], out)\n"),
                                PTO_STAGE_ALL);
    dsl_expect_text_contains(p, want);
    dsl_expect_roundtrip(p, vs_args, VS_NARGS);
    pto_program_free(p);
}

static void test_set_validshape_errors(void **s)
{
    (void)s;
    VS_ERROR(K(LOAD "        u = pl.set_validshape(t, 9, 8)\n"), "InvalidOperationError",
             "pl.set_validshape: 9 exceeds dimension 0 of extent 8", 7, 13);
    VS_ERROR(K(LOAD "        u = pl.set_validshape(t, 8, n + 4)\n"), "InvalidOperationError",
             "pl.set_validshape: 9 exceeds dimension 1 of extent 8", 7, 13);
    VS_ERROR(K(LOAD "        u = pl.set_validshape(t, -1, 8)\n"), "InvalidOperationError",
             "pl.set_validshape: -1 is negative for dimension 0", 7, 13);
    VS_ERROR(K("        t = pl.reshape(pl.load(a, [0, 0], [8, 8]), [2, 4, 8])\n        u = pl.set_validshape(t, 1, 8)\n"), "InvalidOperationError",
             "pl.set_validshape requires a rank-2 tile, got rank 3", 7, 31);
    VS_ERROR(K(LOAD "        u = pl.set_validshape(t, 2.0, 8)\n"), "ParserTypeError", "pl.set_validshape valid_rows must be an integer scalar", 7, 34);
    VS_ERROR(K(LOAD "        u = pl.set_validshape(t, 2, n > 1)\n"), "ParserTypeError", "pl.set_validshape valid_cols must be an integer scalar", 7, 37);
    VS_ERROR(K(LOAD "        u = pl.set_validshape(t, 2)\n"), "ParserTypeError", "pl.set_validshape() missing required argument 'valid_cols'", 7, 13);
    VS_ERROR(HDR "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar[pl.INDEX]):\n    u = pl.set_validshape(a, 2, 2)\n"
                 "    return out\n",
             "InvalidOperationError", "Misplaced tile op 'pl.set_validshape' in Orchestration function 'f'", 5, 9);
}

/* ---- lowering ------------------------------------------------------------------------------- */

/* fillpad_expand: one TOP with its pad; set_validshape: one TOP reading
 * the tile and two INDEX registers (in place when it rebinds its tile). */
static void test_validshape_ops_lower_to_one_top_each(void **s)
{
    (void)s;
    pto_program *p = vs_compile(K(LOAD "        e = pl.fillpad_expand(t, [16, 8], pad_value=pl.PadValue.min)\n"
                                       "        for i in pl.range(n):\n"
                                       "            e = pl.set_validshape(e, i, 8)\n"
                                       "            pl.store(e, [0, 0], out)\n"),
                                PTO_STAGE_ALL);
    dsl_expect_ok(p);
    const char *l = pto_program_listing(p);
    if (!strstr(l, "TFILLPAD_EXPAND v1 = v0 FP32 min @7:13\n") || !strstr(l, "TSET_VALIDSHAPE v1 = v1, r") ||
        !strstr(l, " FP32 @9:17\n"))
        fail_msg("listing:\n%s", l);
    assert_int_equal(dsl_count(l, "TSET_VALIDSHAPE"), 1);
    assert_int_equal(dsl_count(l, "TCOPY"), 0);
    pto_program_free(p);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_fillpad_expand_accepted_and_printed_back),
    cmocka_unit_test(test_fillpad_expand_errors),
    cmocka_unit_test(test_set_validshape_accepted_and_printed_back),
    cmocka_unit_test(test_set_validshape_errors),
    cmocka_unit_test(test_validshape_ops_lower_to_one_top_each),
};

PTO_TEST_MAIN(tests)
