/*
 * test_dsl_subscript.c - subscripts in kernel code (DSL-V2-SPEC §1.3,
 * §1.4) through DSL source: reads print as pl.read / pl.slice, writes as
 * pl.assemble, pl.slice and pl.assemble of a Tensor are a load and a
 * store, and every §1.3 index-form and §1.4 template with its class and
 * line:col; the printed text parses back to itself (values against numpy
 * are tests/python/test_subscript.py's).
 */
#include <stdlib.h>

#include "harness.h"
#include "dsl_compile.h"
#include "dsl_text.h"

#define HDR "import pypto.language as pl\n\n"
#define AT "    with pl.at(level=pl.Level.CORE_GROUP):\n"
/* an entry whose pl.at body (line 6 on, indent 8) is BODY */
#define K(body) HDR "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar[pl.INDEX]):\n" AT body "    return out\n"
/* t [32, 32] and s [8, 16], both FP32 (lines 6 and 7) */
#define LOADS "        t = pl.load(a, [0, 0], [32, 32])\n        s = pl.load(a, [0, 0], [8, 16])\n"

static const pto_arg_spec sub_args[] = {
    {.name = "a", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {64, 64}},
    {.name = "out", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {64, 64}},
    {.name = "n", .kind = PTO_ARG_SCALAR, .value = {.kind = PTO_VALUE_INT, .i = 5}},
};
#define NARGS (sizeof sub_args / sizeof sub_args[0])

static pto_program *sub_compile(const char *src) { return dsl_compile_with(src, "f", PTO_STAGE_LOWER, 0, sub_args, NARGS); }

#define SUB_ERROR(src, cls, msg, line, col) DSL_EXPECT_COMPILE_ERROR(sub_compile(src), cls, msg, line, col)

static void expect_text(const char *src, const char *const *want)
{
    pto_program *p = sub_compile(src);
    dsl_expect_text_contains(p, want);
    dsl_expect_roundtrip(p, sub_args, NARGS);
    pto_program_free(p);
}

/* §1.3: a slice keeps its axis (omitted bounds 0 and the extent), a scalar
 * drops it, missing trailing indices are ':', all scalars are pl.read; the
 * extent k0+16 - k0 folds to 16. */
static void test_subscript_read_desugars(void **s)
{
    (void)s;
    static const char *const want[] = {"w = pl.slice(a, [32, 32], [0, 16])\n", "u = pl.slice(a, [64, 16], [0, k0])\n",
                                       "r = pl.slice(pl.slice(a, [1, 64], [i, 0]), [1, 64], [0, 0], drop_dims=[0])\n",
                                       "e = pl.read(a, [i, 3])\n", "v = pl.slice(t, [8, 24], [4, 8])\n", "x = pl.slice(a, [4, 64], [60, 0])\n",
                                       NULL};
    expect_text(K(LOADS "        for i in pl.range(4):\n            k0 = i * 16\n            w = a[0:32, 16:48]\n"
                        "            u = a[:, k0:k0 + 16]\n            r = a[i]\n            e = a[i, 3]\n"
                        "            v = t[4:12, 8:]\n            x = a[60:, :]\n"
                        "            pl.store(w, [0, 0], out)\n"),
                want);
}

/* §1.3 row 1: pl.slice of a Tensor in kernel code is a load of the window;
 * valid_shape= and clamp=True print back. */
static void test_slice_of_a_tensor_is_a_load(void **s)
{
    (void)s;
    static const char *const want[] = {"w = pl.slice(a, [8, 16], [i, 0], valid_shape=[i, 16])\n",
                                       "c = pl.slice(a, [16, 16], [60, 0], clamp=True)\n", NULL};
    expect_text(K("        c = pl.slice(a, [16, 16], [60, 0], clamp=True)\n        pl.store(c, [0, 0], out)\n"
                  "        for i in pl.range(1, n):\n            w = pl.slice(a, [8, 16], [i, 0], valid_shape=[i, 16])\n"
                  "            pl.store(w, [16, 0], out)\n"),
                want);
}

static void test_slice_of_a_tensor_errors(void **s)
{
    (void)s;
    SUB_ERROR(K("        for i in pl.range(1, n):\n            w = pl.slice(a, [i, 16], [0, 0])\n"), "ParserTypeError",
              "pl.slice shape element 0 must be a compile-time constant in kernel code; pass valid_shape= for a runtime extent", 7, 30);
    SUB_ERROR(K("        w = pl.slice(a, [16, 16], [56, 0])\n"), "InvalidOperationError",
              "pl.slice reads past the end of dimension 0: offset 56 + extent 16 exceeds the source extent 64.", 6, 36);
    SUB_ERROR(K("        w = pl.slice(a, [16, 16], [0, -1])\n"), "InvalidOperationError", "pl.slice: offset 1 is negative (-1)", 6, 39);
    SUB_ERROR(K("        w = pl.slice(a, [2, 16], [0, 0], drop_dims=[0])\n"), "InvalidOperationError",
              "pl.slice: drop_dims axis 0 has extent 2; only unit axes can be dropped", 6, 53);
}

/* §1.3 index-form texts (compat). */
static void test_subscript_read_errors(void **s)
{
    (void)s;
    SUB_ERROR(K("        w = a[0, 0, 0]\n"), "ParserTypeError", "Tensor subscript has 3 indices but the tensor is 2D", 6, 13);
    SUB_ERROR(K(LOADS "        w = t[0, 0:4, 1]\n"), "ParserTypeError", "Tile subscript has 3 indices but the tile is 2D", 8, 13);
    SUB_ERROR(K("        w = a[0:8:2, :]\n"), "UnsupportedFeatureError", "Slice step is not supported in tensor subscript", 6, 15);
    SUB_ERROR(K(LOADS "        w = t[:, ::2]\n"), "UnsupportedFeatureError", "Slice step is not supported in tile subscript", 8, 18);
    SUB_ERROR(K("        for i in pl.range(1, n):\n            w = a[0:i, :]\n"), "ParserTypeError",
              "pl.slice shape element 0 must be a compile-time constant in kernel code; pass valid_shape= for a runtime extent", 7, 21);
    SUB_ERROR(K("        w = a[60:68, :]\n"), "InvalidOperationError",
              "pl.slice reads past the end of dimension 0: offset 60 + extent 8 exceeds the source extent 64.", 6, 15);
    SUB_ERROR(K(LOADS "        w = t[30:34, :]\n"), "InvalidOperationError", "pl.slice: offset 30 + extent 4 exceeds dimension 0 of extent 32", 8, 15);
}

/* §1.4: dst[...] = src is dst = pl.assemble(dst, src, offsets); a Tensor
 * target is a store (pl.assemble of a Tensor), a rank-reduced source is
 * re-viewed to the window. */
static void test_subscript_write_desugars(void **s)
{
    (void)s;
    static const char *const want[] = {"out = pl.assemble(out, pl.add(u, u), [0, 0])\n", "out = pl.assemble(out, s, [8, 16])\n",
                                       "out = pl.assemble(out, pl.reshape(r, [1, 64]), [i, 0])\n", "t = pl.assemble(t, s, [i, 0])\n",
                                       "out = pl.assemble(out, pl.exp(s), [0, 0])\n", NULL};
    expect_text(K(LOADS "        u = pl.load(a, [0, 0], [64, 64])\n        out[:] = pl.add(u, u)\n        out[8:16, 16:32] = s\n        out[0:8, :16] = pl.exp(s)\n"
                        "        for i in pl.range(4):\n            r = pl.reshape(pl.load(a, [0, 0], [1, 64]), [64])\n            out[i, :] = r\n"
                        "            t[i:i + 8, 0:16] = s\n"),
                want);
}

/* §1.4's templates, each with its class and column. */
static void test_subscript_write_errors(void **s)
{
    (void)s;
    SUB_ERROR(K(LOADS "        a.b[0:8, 0:16] = s\n"), "ParserSyntaxError", "Subscript-write target must be a variable name, got a.b", 8, 9);
    SUB_ERROR(K(LOADS "        n[0:8] = s\n"), "ParserTypeError", "Subscript-write requires a Tensor, Tile, or Array target, got pl.Scalar[pl.INDEX]", 8, 9);
    SUB_ERROR(K(LOADS "        out[0:8, 0:16] = n\n"), "ParserTypeError", "Subscript-write source must also be a tensor, got pl.Scalar[pl.INDEX]", 8, 26);
    SUB_ERROR(K(LOADS "        t[0:8, 0:16] = 1.0\n"), "ParserTypeError", "Subscript-write source must also be a tile, got pl.Scalar[pl.FP32]", 8, 24);
    SUB_ERROR(K(LOADS "        out[0, 0, 0:8] = s\n"), "ParserTypeError", "Tensor subscript-write has 3 indices but the tensor is 2D", 8, 9);
    SUB_ERROR(K(LOADS "        t[0, 0, 0:8] = s\n"), "ParserTypeError", "Tile subscript-write has 3 indices but the tile is 2D", 8, 9);
    SUB_ERROR(K(LOADS "        out[0, 1] = 1.0\n"), "UnsupportedFeatureError",
              "Element-write 'dst[i, j] = scalar' is not supported for tensor targets", 8, 9);
    SUB_ERROR(K(LOADS "        t[0, 1] = 1.0\n"), "UnsupportedFeatureError", "Element-write 'dst[i, j] = scalar' is not supported for tile targets", 8, 9);
    SUB_ERROR(K(LOADS "        out[0:8:2, 0:16] = s\n"), "UnsupportedFeatureError", "Slice step is not supported in tensor subscript-write", 8, 13);
    SUB_ERROR(K(LOADS "        out[0, 0:16] = pl.reshape(s, [1, 8, 16])\n"), "ParserTypeError",
              "Subscript-write source must be 1D or 2D to match the rank-reduced tensor window, got 3D", 8, 24);
    SUB_ERROR(K(LOADS "        out[0, :] = a\n"), "ParserTypeError", "Subscript-write source must be 1D to match the rank-reduced tensor window, got 2D", 8, 21);
    SUB_ERROR(K(LOADS "        out[0:8, 0:8] = s\n"), "ParserTypeError",
              "Subscript-write shape mismatch on source axis 1: window expects 8 elements, source has 16", 8, 25);
    SUB_ERROR(K(LOADS "        t[0, 0:16] = s\n"), "ParserTypeError",
              "Subscript-write shape mismatch on source axis 0: window expects 1 elements, source has 8", 8, 22);
    SUB_ERROR(K("        r = pl.reshape(pl.load(a, [0, 0], [1, 64], valid_shape=[1, n]), [64])\n        out[0, :] = r\n"),
              "UnsupportedFeatureError",
              "Subscript-write with rank reduction is not supported when the source tile carries an explicit valid_shape — tile.reshape "
              "cannot carry valid_shape across the rank lift.",
              7, 21);
}

/* A Tile into a Tensor target is pl.store's rule: the static bounds text. */
static void test_subscript_write_tensor_bounds(void **s)
{
    (void)s;
    SUB_ERROR(K(LOADS "        out[60:68, 0:16] = s\n"), "InvalidOperationError",
              "pl.store writes past the end of dimension 0: offset 60 + extent 8 exceeds the destination extent 64.", 8, 13);
    SUB_ERROR(K(LOADS "        out[0:8, 0:16] = pl.cast(s, pl.FP16)\n"), "ParserTypeError",
              "pl.store: tile dtype FP16 does not match tensor 'out' dtype FP32; insert pl.cast", 8, 9);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_subscript_read_desugars),
    cmocka_unit_test(test_slice_of_a_tensor_is_a_load),
    cmocka_unit_test(test_slice_of_a_tensor_errors),
    cmocka_unit_test(test_subscript_read_errors),
    cmocka_unit_test(test_subscript_write_desugars),
    cmocka_unit_test(test_subscript_write_errors),
    cmocka_unit_test(test_subscript_write_tensor_bounds),
};

PTO_TEST_MAIN(tests)
