/*
 * test_dsl_ops.c - the ops of docs/dsl.md, "Operations" end to end through DSL
 * source: every accepted form (with its post-pass text where it says
 * something) and every error row with its exact message, class and span; the
 * cross-plane rules of docs/dsl.md, "Decorators and function kinds" (B08,
 * B10), the docs/dsl.md, "with pl.at(...)" live-after rule, the operator forms
 * of docs/dsl.md, "Expressions" and the texts of its bound errors.
 */
#include <stdlib.h>

#include "harness.h"
#include "dsl_compile.h"
#include "dsl_text.h"

#define HDR "import pypto.language as pl\n\n"
#define AT "    with pl.at(level=pl.Level.CORE_GROUP):\n"
/* an entry with parameters PARAMS whose pl.at body (line 6 on, indent 8) is BODY */
#define KP(params, body) HDR "@pl.jit\ndef f(" params "):\n" AT body "    return out\n"
#define K(body) KP("a: pl.Tensor, out: pl.Out[pl.Tensor]", body)
#define LOAD_T "        t = pl.load(a, [0, 0], [64, 128])\n"

/* The argument specs every test here compiles against (by name). */
static const pto_arg_spec ops_args[] = {
    {.name = "a", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {256, 128}},
    {.name = "out", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {256, 128}},
    {.name = "w", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {128, 128}},
    {.name = "i", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_INT32, .rank = 2, .shape = {256, 128}},
    {.name = "h", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP16, .rank = 2, .shape = {256, 128}},
    {.name = "q", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_INT8, .rank = 2, .shape = {64, 64}},
    {.name = "r", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_INT32, .rank = 2, .shape = {64, 64}},
    {.name = "v", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 1, .shape = {128}},
    {.name = "n", .kind = PTO_ARG_SCALAR, .value = {.kind = PTO_VALUE_INT, .i = 5}},
};

static pto_program *ops_compile(const char *src)
{
    return dsl_compile_with(src, "f", PTO_STAGE_LOWER, 0, ops_args, sizeof ops_args / sizeof ops_args[0]);
}

static const pto_diagnostic *ops_error_in(pto_program *p, const char *cls, const char *msg, int line, int col)
{
    return dsl_expect_error(p, cls, msg, line, col);
}

#define OPS_ERROR(src, cls, msg, line, col)                        \
    do {                                                           \
        pto_program *p_ = ops_compile(src);                        \
        ops_error_in(p_, cls, msg, line, col);                     \
        pto_program_free(p_);                                      \
    } while (0)

/* src compiles; its post-pass text contains every string of want. */
static void ops_expect_ok(const char *src, const char *const *want)
{
    pto_program *p = ops_compile(src);
    dsl_expect_text_contains(p, want);
    pto_program_free(p);
}

/* ---- pl.load ------------------------------------------------------------------------------ */

static void test_dsl_ops_load_accepted_forms(void **s)
{
    (void)s;
    static const char *const want[] = {
        "t = pl.load(a, [0, 0], [64, 128], valid_shape=[5, 128], cache=pl.CachePolicy.DEFAULT)\n",
        "u = pl.load(a, [64, 0], [64, 128], cache=pl.CachePolicy.BYPASS)\n",
        "x = pl.load(a, [192, 0], [64, 128], target_memory=pl.Mem.Mat, cache=pl.CachePolicy.DEFAULT)\n",
        "# a: In [0:256, 0:128]; out: Out [0:64, 0:128]", NULL};
    ops_expect_ok(KP("a: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar",
                     "        t = pl.load(a, [0, 0], [64, 128], valid_shape=[n, 128], target_memory=pl.Mem.Vec)\n"
                     "        u = pl.load(a, [64, 0], [64, 128], cache=pl.CachePolicy.BYPASS)\n"
                     "        x = pl.load(a, offsets=[192, 0], shapes=[64, 128], target_memory=pl.MemorySpace.Mat)\n"
                     "        pl.store(t, [0, 0], out)\n"),
                 want);
}

static void test_dsl_ops_load_past_end_has_clamp_hint(void **s)
{
    (void)s;
    pto_program *p = ops_compile(K("        t = pl.load(a, [200, 0], [64, 128])\n"));
    const pto_diagnostic *d = ops_error_in(p, "InvalidOperationError",
                                           "pl.load reads past the end of dimension 0: offset 200 + extent 64 exceeds the source extent 256.", 6, 25);
    assert_string_equal(d->message, "pl.load reads past the end of dimension 0: offset 200 + extent 64 exceeds the source extent 256.");
    assert_string_equal(d->hint, "pass clamp=True to cut the read at the tensor's edge");
    pto_program_free(p);
    OPS_ERROR(K("        t = pl.load(a, [0, 64], [64, 128])\n"), "InvalidOperationError",
              "pl.load reads past the end of dimension 1: offset 64 + extent 128 exceeds the source extent 128.", 6, 28);
}

static void test_dsl_ops_load_clamp_true_accepted(void **s)
{
    (void)s;
    static const char *const want[] = {"t = pl.load(a, [200, 0], [64, 128], clamp=True, cache=pl.CachePolicy.DEFAULT)\n",
                                       "pl.store(t, [192, 0], out)\n", NULL};
    ops_expect_ok(K("        t = pl.load(a, [200, 0], [64, 128], clamp=True)\n        pl.store(t, [192, 0], out)\n"), want);
}

/* A load's bounds are its valid region: a [64, 128] window with valid_shape [32, 128] at row 224 of a
 * 256-row tensor reads rows 224..255 (the footprint too); the valid region itself past the end is the
 * out-of-range error; a runtime valid_shape entry is checked when the task runs. */
static void test_dsl_ops_load_bounds_are_its_valid_region(void **s)
{
    (void)s;
    static const char *const want[] = {"t = pl.load(a, [224, 0], [64, 128], valid_shape=[32, 128], cache=pl.CachePolicy.DEFAULT)\n",
                                       "a: In [224:256, 0:128]", NULL};
    ops_expect_ok(K("        t = pl.load(a, [224, 0], [64, 128], valid_shape=[32, 128])\n        pl.store(t, [0, 0], out)\n"), want);
    static const char *const runtime[] = {"valid_shape=[i * 16, 128]", "a: In [224:288, 0:128]", NULL};
    ops_expect_ok(K("        for i in pl.range(3):\n            t = pl.load(a, [224, 0], [64, 128], valid_shape=[i * 16, 128])\n"
                    "            pl.store(t, [0, 0], out)\n"),
                  runtime);
    OPS_ERROR(K("        t = pl.load(a, [224, 0], [64, 128], valid_shape=[48, 128])\n"), "InvalidOperationError",
              "pl.load reads past the end of dimension 0: offset 224 + extent 48 exceeds the source extent 256.", 6, 25);
    OPS_ERROR(K("        t = pl.load(a, [0, 64], [64, 128], valid_shape=[64, 65])\n"), "InvalidOperationError",
              "pl.load reads past the end of dimension 1: offset 64 + extent 65 exceeds the source extent 128.", 6, 28);
}

static void test_dsl_ops_load_negative_offset(void **s)
{
    (void)s;
    OPS_ERROR(K("        t = pl.load(a, [0, -8], [64, 128])\n"), "InvalidOperationError", "pl.load: offset 1 is negative (-8)", 6, 28);
    OPS_ERROR(K("        t = pl.load(a, [0, -8], [64, 64], clamp=True)\n"), "InvalidOperationError", "pl.load: offset 1 is negative (-8)", 6, 28);
}

static void test_dsl_ops_load_rank_mismatch(void **s)
{
    (void)s;
    OPS_ERROR(K("        t = pl.load(a, [0], [64, 128])\n"), "InvalidOperationError",
              "pl.load: expected 2 offsets and 2 shape entries for a rank-2 tensor, got 1 and 2", 6, 13);
    OPS_ERROR(KP("v: pl.Tensor, out: pl.Out[pl.Tensor]", "        t = pl.load(v, [0, 0], [64, 64])\n"), "InvalidOperationError",
              "pl.load: expected 1 offsets and 1 shape entries for a rank-1 tensor, got 2 and 2", 6, 13);
}

static void test_dsl_ops_load_shapes_not_constant(void **s)
{
    (void)s;
    OPS_ERROR(K("        for j in pl.range(4):\n            t = pl.load(a, [0, 0], [j, 128])\n"), "ParserTypeError",
              "pl.load shapes must be compile-time constants", 7, 37);
}

static void test_dsl_ops_load_cache_value(void **s)
{
    (void)s;
    OPS_ERROR(K("        t = pl.load(a, [0, 0], [64, 128], cache=1)\n"), "ParserSyntaxError",
              "pl.load() cache= must be pl.CachePolicy.DEFAULT or pl.CachePolicy.BYPASS", 6, 49);
    OPS_ERROR(K("        t = pl.load(a, [0, 0], [64, 128], cache=pl.CachePolicy.NONE)\n"), "ParserSyntaxError",
              "pl.load() cache= must be pl.CachePolicy.DEFAULT or pl.CachePolicy.BYPASS", 6, 49);
}

/* ---- pl.store ----------------------------------------------------------------------------- */

static void test_dsl_ops_store_accepted_returns_tensor(void **s)
{
    (void)s;
    static const char *const want[] = {"out = pl.store(t, [64, 0], out)\n", "pl.store(t, [0, 0], out, shapes=[64, 128])\n",
                                       "# a: In [0:64, 0:128]; out: Out [0:128, 0:128]", NULL};
    ops_expect_ok(K(LOAD_T "        out = pl.store(t, [64, 0], out)\n        pl.store(t, [0, 0], out, shapes=[64, 128])\n"), want);
}

static void test_dsl_ops_store_past_end(void **s)
{
    (void)s;
    OPS_ERROR(K(LOAD_T "        pl.store(t, [224, 0], out)\n"), "InvalidOperationError",
              "pl.store writes past the end of dimension 0: offset 224 + extent 64 exceeds the destination extent 256.", 7, 22);
}

/* offset + extent would overflow int64 and slip past a naive check */
static void test_dsl_ops_offset_near_int64_max_is_past_the_end(void **s)
{
    (void)s;
    OPS_ERROR(K("        t = pl.load(a, [9223372036854775807, 0], [64, 128])\n"), "InvalidOperationError",
              "pl.load reads past the end of dimension 0: offset 9223372036854775807 + extent 64 exceeds the source extent 256.", 6, 25);
    OPS_ERROR(K(LOAD_T "        pl.store(t, [9223372036854775806, 0], out)\n"), "InvalidOperationError",
              "pl.store writes past the end of dimension 0: offset 9223372036854775806 + extent 64 exceeds the destination extent 256.", 7, 22);
}

static void test_dsl_ops_store_negative_offset_and_rank(void **s)
{
    (void)s;
    OPS_ERROR(K(LOAD_T "        pl.store(t, [-1, 0], out)\n"), "InvalidOperationError", "pl.store: offset 0 is negative (-1)", 7, 22);
    OPS_ERROR(K(LOAD_T "        pl.store(t, [0, 0, 0], out)\n"), "InvalidOperationError",
              "pl.store: expected 2 offsets and 2 shape entries for a rank-2 tensor, got 3 and 2", 7, 9);
}

static void test_dsl_ops_store_dtype_mismatch(void **s)
{
    (void)s;
    OPS_ERROR(KP("i: pl.Tensor, out: pl.Out[pl.Tensor]", "        t = pl.load(i, [0, 0], [64, 128])\n        pl.store(t, [0, 0], out)\n"),
              "ParserTypeError", "pl.store: tile dtype INT32 does not match tensor 'out' dtype FP32; insert pl.cast", 7, 9);
}

/* ---- element-wise binary ops -------------------------------------------------------------- */

static void test_dsl_ops_binary_all_ops_tile_and_scalar(void **s)
{
    (void)s;
    static const char *const want[] = {"b0 = pl.add(t, t)\n", "b1 = pl.sub(t, 2.5)\n", "b2 = pl.mul(t, 3)\n", "b3 = pl.div(t, 5)\n",
                                       "b4 = pl.maximum(t, t)\n", "b5 = pl.minimum(t, 0.0)\n", "c0 = pl.add(j, 7)\n", "c1 = pl.div(j, 2)\n", NULL};
    ops_expect_ok(KP("a: pl.Tensor, i: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar",
                     LOAD_T "        b0 = pl.add(t, t)\n        b1 = pl.sub(t, 2.5)\n        b2 = pl.mul(t, 3)\n        b3 = pl.div(t, n)\n"
                            "        b4 = pl.maximum(lhs=t, rhs=t)\n        b5 = pl.minimum(t, 0.0)\n"
                            "        j = pl.load(i, [0, 0], [64, 128])\n        c0 = pl.add(j, 7)\n        c1 = pl.div(j, 2)\n"
                            "        pl.store(b5, [0, 0], out)\n"),
                  want);
}

static void test_dsl_ops_binary_scalar_constant_and_loop_variable(void **s)
{
    (void)s;
    static const char *const want[] = {"x = pl.mul(t, 0.5)\n", "y = pl.add(x, j)\n", "z = pl.sub(y, 3)\n", NULL};
    ops_expect_ok(HDR "SCALE = 0.5\nBIAS = 3\n\n@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n" AT LOAD_T
                      "        x = pl.mul(t, SCALE)\n        for j in pl.range(4):\n            y = pl.add(x, j)\n            z = pl.sub(y, BIAS)\n"
                      "            pl.store(z, [j * 64, 0], out)\n    return out\n",
                  want);
}

static void test_dsl_ops_binary_shapes_differ(void **s)
{
    (void)s;
    OPS_ERROR(K(LOAD_T "        u = pl.load(a, [0, 0], [64, 64])\n        x = pl.sub(t, u)\n"), "InvalidOperationError",
              "pl.sub: operand shapes [64, 128] and [64, 64] differ", 8, 13);
}

static void test_dsl_ops_binary_dtypes_differ(void **s)
{
    (void)s;
    OPS_ERROR(KP("a: pl.Tensor, i: pl.Tensor, out: pl.Out[pl.Tensor]", LOAD_T "        j = pl.load(i, [0, 0], [64, 128])\n        x = pl.maximum(t, j)\n"),
              "ParserTypeError", "pl.maximum: operand dtypes FP32 and INT32 differ; insert pl.cast", 8, 13);
}

static void test_dsl_ops_binary_float_scalar_with_int_tile(void **s)
{
    (void)s;
    OPS_ERROR(KP("i: pl.Tensor, out: pl.Out[pl.Tensor]", "        j = pl.load(i, [0, 0], [64, 128])\n        x = pl.mul(j, 0.5)\n"),
              "ParserTypeError", "pl.mul: float scalar 0.5 with an INT32 tile; cast the tile first", 7, 23);
}

static void test_dsl_ops_binary_scalar_on_the_left(void **s)
{
    (void)s;
    OPS_ERROR(K(LOAD_T "        x = pl.div(2.0, t)\n"), "InvalidOperationError", "pl.div: the scalar operand must be on the right", 7, 13);
    OPS_ERROR(K(LOAD_T "        x = pl.minimum(1, t)\n"), "InvalidOperationError", "pl.minimum: the scalar operand must be on the right", 7, 13);
}

/* ---- unary and row ops -------------------------------------------------------------------- */

static void test_dsl_ops_unary_accepted(void **s)
{
    (void)s;
    static const char *const want[] = {"e = pl.exp(t)\n", "g = pl.neg(e)\n", "q = pl.sqrt(g)\n", "b = pl.abs(q)\n", "c = pl.relu(b)\n",
                                       "x = pl.neg(j)\n", "y = pl.abs(x)\n", "z = pl.relu(y)\n", "hs = pl.sqrt(hh)\n", NULL};
    ops_expect_ok(KP("a: pl.Tensor, i: pl.Tensor, h: pl.Tensor, out: pl.Out[pl.Tensor]",
                     LOAD_T "        e = pl.exp(t)\n        g = pl.neg(e)\n        q = pl.sqrt(x=g)\n        b = pl.abs(q)\n        c = pl.relu(b)\n"
                            "        j = pl.load(i, [0, 0], [64, 128])\n        x = pl.neg(j)\n        y = pl.abs(x)\n        z = pl.relu(y)\n"
                            "        hh = pl.load(h, [0, 0], [64, 128])\n        hs = pl.sqrt(hh)\n        pl.store(c, [0, 0], out)\n"),
                  want);
}

static void test_dsl_ops_unary_float_only(void **s)
{
    (void)s;
    OPS_ERROR(KP("i: pl.Tensor, out: pl.Out[pl.Tensor]", "        j = pl.load(i, [0, 0], [64, 128])\n        x = pl.exp(j)\n"),
              "ParserTypeError", "pl.exp requires a floating-point tile, got INT32", 7, 13);
    OPS_ERROR(KP("q: pl.Tensor, out: pl.Out[pl.Tensor]", "        j = pl.load(q, [0, 0], [64, 64])\n        x = pl.sqrt(j)\n"),
              "ParserTypeError", "pl.sqrt requires a floating-point tile, got INT8", 7, 13);
}

/* pl.log, pl.rsqrt, pl.recip: a float tile in, the same tile out; recip's
 * high_precision= (a boolean literal, no effect) printed as written; the
 * printed program compiles back to itself. */
static void test_dsl_ops_float_unary_accepted(void **s)
{
    (void)s;
    static const char *const want[] = {"l = pl.log(t)\n", "q = pl.rsqrt(l)\n", "r = pl.recip(q)\n", "p = pl.recip(r, high_precision=True)\n",
                                       "f = pl.recip(p, high_precision=False)\n", "hl = pl.log(pl.rsqrt(pl.recip(hh)))\n", NULL};
    const char *src = KP("a: pl.Tensor, h: pl.Tensor, out: pl.Out[pl.Tensor]",
                         LOAD_T "        l = pl.log(t)\n        q = pl.rsqrt(x=l)\n        r = pl.recip(q)\n"
                                "        p = pl.recip(r, high_precision=True)\n        f = pl.recip(x=p, high_precision=False)\n"
                                "        hh = pl.load(h, [0, 0], [64, 128])\n        hl = pl.log(pl.rsqrt(pl.recip(hh)))\n"
                                "        pl.store(f, [0, 0], out)\n");
    ops_expect_ok(src, want);
    pto_program *p = ops_compile(src);
    dsl_expect_roundtrip(p, ops_args, sizeof ops_args / sizeof ops_args[0]);
    pto_program_free(p);
}

static void test_dsl_ops_float_unary_float_only(void **s)
{
    (void)s;
    OPS_ERROR(KP("i: pl.Tensor, out: pl.Out[pl.Tensor]", "        j = pl.load(i, [0, 0], [64, 128])\n        x = pl.log(j)\n"),
              "ParserTypeError", "pl.log requires a floating-point tile, got INT32", 7, 13);
    OPS_ERROR(KP("q: pl.Tensor, out: pl.Out[pl.Tensor]", "        j = pl.load(q, [0, 0], [64, 64])\n        x = pl.rsqrt(j)\n"),
              "ParserTypeError", "pl.rsqrt requires a floating-point tile, got INT8", 7, 13);
    OPS_ERROR(KP("i: pl.Tensor, out: pl.Out[pl.Tensor]", "        x = pl.recip(i, high_precision=True)\n"),
              "ParserTypeError", "pl.recip requires a floating-point tile, got INT32", 6, 13);
}

static void test_dsl_ops_recip_high_precision_is_a_boolean_literal(void **s)
{
    (void)s;
    static const char *const values[] = {"1", "None", "n > 1", "not True"};
    char src[512];
    for (size_t k = 0; k < sizeof values / sizeof values[0]; k++) {
        snprintf(src, sizeof src, KP("a: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar", LOAD_T "        x = pl.recip(t, high_precision=%s)\n"),
                 values[k]);
        OPS_ERROR(src, "ParserSyntaxError", "pl.recip() high_precision must be a boolean literal (True/False)", 7, 40);
    }
    OPS_ERROR(K(LOAD_T "        x = pl.log(t, high_precision=True)\n"), "ParserTypeError", "pl.log() got an unexpected keyword argument 'high_precision'",
              7, 23);
}

static void test_dsl_ops_row_reductions(void **s)
{
    (void)s;
    static const char *const want[] = {"x = pl.row_sum(t)\n", "y = pl.row_max(t, tmp_tile=t)\n", "pl.store(x, [0, 0], out)\n",
                                       "out: Out [0:64, 0:1]", NULL};
    ops_expect_ok(K(LOAD_T "        x = pl.row_sum(t)\n        y = pl.row_max(t, tmp_tile=t)\n        x = pl.add(x, y)\n        pl.store(x, [0, 0], out)\n"),
                  want);
}

static void test_dsl_ops_row_reductions_need_rank_2(void **s)
{
    (void)s;
    OPS_ERROR(KP("v: pl.Tensor, out: pl.Out[pl.Tensor]", "        t = pl.load(v, [0], [128])\n        x = pl.row_sum(t)\n"),
              "InvalidOperationError", "pl.row_sum requires a rank-2 tile, got rank 1", 7, 13);
    OPS_ERROR(KP("v: pl.Tensor, out: pl.Out[pl.Tensor]", "        x = pl.row_max(v)\n"), "InvalidOperationError",
              "pl.row_max requires a rank-2 tile, got rank 1", 6, 13);
}

/* ---- pl.cast ------------------------------------------------------------------------------ */

static void test_dsl_ops_cast_modes_accepted(void **s)
{
    (void)s;
    static const char *const want[] = {"c0 = pl.cast(t, pl.INT32)\n", "c1 = pl.cast(t, pl.INT32, mode=\"rint\")\n",
                                       "c2 = pl.cast(t, pl.INT8, mode=\"floor\")\n", "c3 = pl.cast(t, pl.INT32, mode=\"ceil\")\n",
                                       "c4 = pl.cast(t, pl.INT32, mode=\"trunc\")\n", "c5 = pl.cast(c4, pl.FP16)\n", "x = 5.0\n", NULL};
    ops_expect_ok(KP("a: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar",
                     LOAD_T "        c0 = pl.cast(t, pl.INT32, mode=\"round\")\n        c1 = pl.cast(t, pl.INT32, mode=\"rint\")\n"
                            "        c2 = pl.cast(t, pl.INT8, mode=\"floor\")\n        c3 = pl.cast(t, pl.INT32, mode=\"ceil\")\n"
                            "        c4 = pl.cast(t, target_type=pl.INT32, mode=\"trunc\")\n        c5 = pl.cast(c4, pl.FP16)\n"
                            "        x = pl.cast(n, pl.FP32)\n        pl.store(pl.cast(c5, pl.FP32), [0, 0], out)\n"),
                  want);
}

/* pl.cast of a constant scalar folds, to every dtype, by the rule the VMs
 * run: integers saturate, floats round to nearest even; a cast to inf has
 * no literal and stays a cast. */
static void test_dsl_ops_cast_scalar_constant_folds_to_each_dtype(void **s)
{
    (void)s;
    static const char *const want[] = {"c0 = 127\n", "c1 = -128\n", "c2 = 2147483647\n", "c3 = 65504.0\n",
                                       "c4 = pl.cast(65520.0, pl.FP16)\n", "c5 = 1.0\n", "c6 = 1.015625\n",
                                       "c7 = 1.1920928955078125e-07\n", "c8 = 0.0\n", "c9 = True\n", "c10 = 3\n", NULL};
    ops_expect_ok(K("        c0 = pl.cast(128, pl.INT8)\n        c1 = pl.cast(-129.0, pl.INT8)\n"
                    "        c2 = pl.cast(2147483648, pl.INT32)\n        c3 = pl.cast(65519.0, pl.FP16)\n"
                    "        c4 = pl.cast(65520.0, pl.FP16)\n        c5 = pl.cast(1.00390625, pl.BF16)\n"
                    "        c6 = pl.cast(1.01171875, pl.BF16)\n        c7 = pl.cast(8.940696716308594e-08, pl.FP16)\n"
                    "        c8 = pl.cast(2.9802322387695312e-08, pl.FP16)\n        c9 = pl.cast(2, pl.BOOL)\n"
                    "        c10 = pl.cast(2.5, pl.INDEX)\n" LOAD_T "        pl.store(t, [0, 0], out)\n"),
                  want);
}

static void test_dsl_ops_cast_unknown_mode(void **s)
{
    (void)s;
    OPS_ERROR(K(LOAD_T "        c = pl.cast(t, pl.INT32, mode=\"up\")\n"), "ParserSyntaxError",
              "pl.cast mode must be one of 'round', 'rint', 'floor', 'ceil', 'trunc', 'odd', 'none'", 7, 39);
    OPS_ERROR(K(LOAD_T "        c = pl.cast(t, pl.INT32, mode=2)\n"), "ParserSyntaxError",
              "pl.cast mode must be one of 'round', 'rint', 'floor', 'ceil', 'trunc', 'odd', 'none'", 7, 39);
}

/* mode="odd" prints back; mode="none" is the default rounding (printed as no mode). */
static void test_dsl_ops_cast_odd_and_none(void **s)
{
    (void)s;
    pto_program *p = ops_compile(K(LOAD_T "        c = pl.cast(t, pl.FP16, mode=\"odd\")\n        d = pl.cast(t, pl.FP16, mode=\"none\")\n"));
    assert_non_null(p);
    const char *const want[] = {"c = pl.cast(t, pl.FP16, mode=\"odd\")\n", "d = pl.cast(t, pl.FP16)\n", NULL};
    dsl_expect_text_contains(p, want);
    pto_program_free(p);
}

static void test_dsl_ops_cast_scalar_with_mode(void **s)
{
    (void)s;
    OPS_ERROR(KP("a: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar", "        x = 2.5\n        y = pl.cast(x, pl.INDEX, mode=\"floor\")\n"),
              "ParserTypeError", "pl.cast of a scalar takes no mode=", 7, 39);
}

/* ---- pl.matmul ---------------------------------------------------------------------------- */

static void test_dsl_ops_matmul_accepted_fp32(void **s)
{
    (void)s;
    static const char *const want[] = {"m = pl.matmul(t, u)\n", "m2 = pl.matmul(t, u, out_dtype=pl.FP32)\n",
                                       "out: Out [0:64, 0:128]", NULL};
    ops_expect_ok(KP("a: pl.Tensor, w: pl.Tensor, out: pl.Out[pl.Tensor]",
                     LOAD_T "        u = pl.load(w, [0, 0], [128, 128])\n        m = pl.matmul(t, u)\n        m2 = pl.matmul(t, u, out_dtype=pl.FP32)\n"
                            "        pl.store(pl.add(m, m2), [0, 0], out)\n"),
                  want);
}

static void test_dsl_ops_matmul_fp16_and_int8_results(void **s)
{
    (void)s;
    static const char *const want[] = {"m = pl.matmul(x, y)\n", "pl.store(m, [0, 0], out)\n", "k = pl.matmul(b, b, out_dtype=pl.INT32)\n",
                                       "pl.store(k, [0, 0], r)\n", NULL};
    ops_expect_ok(KP("h: pl.Tensor, q: pl.Tensor, r: pl.Out[pl.Tensor], out: pl.Out[pl.Tensor]",
                     "        x = pl.load(h, [0, 0], [64, 128])\n        y = pl.load(h, [0, 0], [128, 128])\n        m = pl.matmul(x, y)\n"
                     "        pl.store(m, [0, 0], out)\n        b = pl.load(q, [0, 0], [64, 64])\n"
                     "        k = pl.matmul(b, b, out_dtype=pl.INT32)\n        pl.store(k, [0, 0], r)\n"),
                  want);
    /* INT8 x INT8 is INT32: storing it to an FP32 tensor needs a cast */
    OPS_ERROR(KP("q: pl.Tensor, out: pl.Out[pl.Tensor]", "        b = pl.load(q, [0, 0], [64, 64])\n        pl.store(pl.matmul(b, b), [0, 0], out)\n"),
              "ParserTypeError", "pl.store: tile dtype INT32 does not match tensor 'out' dtype FP32; insert pl.cast", 7, 9);
}

static void test_dsl_ops_matmul_tensors_are_implicit_loads(void **s)
{
    (void)s;
    static const char *const want[] = {
        "m = pl.matmul(pl.load(a, [0, 0], [256, 128], cache=pl.CachePolicy.DEFAULT), pl.load(w, [0, 0], [128, 128], cache=pl.CachePolicy.DEFAULT))\n",
        "# a: In [0:256, 0:128]; w: In [0:128, 0:128]; out: Out [0:256, 0:128]", NULL};
    ops_expect_ok(KP("a: pl.Tensor, w: pl.Tensor, out: pl.Out[pl.Tensor]", "        m = pl.matmul(a, w)\n        pl.store(m, [0, 0], out)\n"), want);
}

static void test_dsl_ops_matmul_inner_dimensions(void **s)
{
    (void)s;
    OPS_ERROR(KP("a: pl.Tensor, w: pl.Tensor, out: pl.Out[pl.Tensor]", LOAD_T "        u = pl.load(w, [0, 0], [64, 128])\n        m = pl.matmul(t, u)\n"),
              "InvalidOperationError", "pl.matmul: inner dimensions differ: [64, 128] vs [64, 128]", 8, 13);
}

static void test_dsl_ops_matmul_out_dtype_rule(void **s)
{
    (void)s;
    OPS_ERROR(KP("a: pl.Tensor, w: pl.Tensor, out: pl.Out[pl.Tensor]", LOAD_T "        m = pl.matmul(t, w, out_dtype=pl.FP16)\n"), "ParserTypeError",
              "pl.matmul: out_dtype=FP16 is not supported for Tile operands — the result dtype is deduced as FP32", 7, 39);
    OPS_ERROR(KP("q: pl.Tensor, out: pl.Out[pl.Tensor]", "        b = pl.load(q, [0, 0], [64, 64])\n        m = pl.matmul(b, b, out_dtype=pl.FP32)\n"),
              "ParserTypeError", "pl.matmul: out_dtype=FP32 is not supported for Tile operands — the result dtype is deduced as INT32", 7, 39);
    OPS_ERROR(KP("a: pl.Tensor, w: pl.Tensor, out: pl.Out[pl.Tensor]", LOAD_T "        m = pl.matmul(t, w, b_trans=True)\n"), "ParserTypeError",
              "pl.matmul: b_trans=True is not supported for Tile operands; use pl.tile.transpose_view", 7, 37);
}

/* ---- cross-plane rules (docs/dsl.md, "Decorators and function kinds", B08, B10) -------------- */

#define INCORE_K(body) HDR "@pl.jit.incore\ndef k(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n" body "    return out\n\n"
#define CALL_K "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n    out = k(a, out)\n    return out\n"

static void test_dsl_ops_create_tensor_in_kernel_code(void **s)
{
    (void)s;
    OPS_ERROR(K("        x = pl.create_tensor([64, 128], pl.FP32, init_value=1.0)\n"), "InvalidOperationError",
              "pl.create_tensor(init_value=...) is not allowed in kernel code (inside a pl.at(level=pl.Level.CORE_GROUP) body)", 6, 61);
    OPS_ERROR(INCORE_K("    x = pl.create_tensor([64, 128], pl.FP32, manual_dep=True)\n") CALL_K, "InvalidOperationError",
              "pl.create_tensor(manual_dep=...) is not allowed in kernel code (in InCore function 'k')", 5, 57);
}

static void test_dsl_ops_create_tensor_accepted_in_control_code(void **s)
{
    (void)s;
    static const char *const want[] = {"x = pl.create_tensor([64, 128], pl.FP32)\n", NULL};
    ops_expect_ok(HDR "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n    x = pl.create_tensor([64, 128], pl.FP32, layout=pl.ND)\n" AT
                      "        pl.store(pl.load(a, [0, 0], [64, 128]), [0, 0], x)\n        pl.store(pl.load(x, [0, 0], [64, 128]), [0, 0], out)\n"
                      "    return out\n",
                  want);
}

static void test_dsl_ops_b08_misplaced_tile_op(void **s)
{
    (void)s;
    pto_program *p = ops_compile(HDR "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n    t = pl.load(a, [0, 0], [64, 128])\n    return out\n");
    const pto_diagnostic *d = ops_error_in(p, "InvalidOperationError",
                                           "Misplaced tile op 'pl.load' in Orchestration function 'f' (should be inside InCore block)", 5, 9);
    assert_non_null(d->hint);
    assert_non_null(strstr(d->hint, "with pl.at(level=pl.Level.CORE_GROUP):"));
    pto_program_free(p);
    OPS_ERROR(HDR "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n    x = pl.exp(a)\n    return out\n", "InvalidOperationError",
              "Misplaced tensor op 'pl.exp' in Orchestration function 'f' (should be inside InCore block)", 5, 9);
    OPS_ERROR(HDR "@pl.jit.opaque\ndef g(a, out):\n    pl.store(a, [0, 0], out)\n    return out\n\n"
                  "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n    g(a, out)\n    return out\n",
              "InvalidOperationError", "Misplaced tile op 'pl.store' in Opaque function 'g' (should be inside InCore block)", 5, 5);
}

static void test_dsl_ops_control_plane_in_kernel_code(void **s)
{
    (void)s;
    const char *kk = INCORE_K("    pl.store(pl.load(a, [0, 0], [8, 8]), [0, 0], out)\n");
    char src[1024];
    snprintf(src, sizeof src, "%s@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n" AT "        out = k(a, out)\n    return out\n", kk);
    OPS_ERROR(src, "InvalidOperationError",
              "calling 'k' is control-plane work and is not allowed in kernel code (inside a pl.at(level=pl.Level.CORE_GROUP) body)", 11, 15);
    snprintf(src, sizeof src, "%s@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n" AT "        o, tid = pl.submit(k, a, out)\n    return out\n", kk);
    OPS_ERROR(src, "InvalidOperationError",
              "pl.submit is control-plane work and is not allowed in kernel code (inside a pl.at(level=pl.Level.CORE_GROUP) body)", 11, 18);
    OPS_ERROR(K("        with pl.at(level=pl.Level.CORE_GROUP):\n            pass\n"), "InvalidOperationError",
              "pl.at is control-plane work and is not allowed in kernel code (inside a pl.at(level=pl.Level.CORE_GROUP) body)", 6, 14);
    OPS_ERROR(INCORE_K("    with pl.at(level=pl.Level.CHIP):\n        pass\n") CALL_K, "InvalidOperationError",
              "pl.at is control-plane work and is not allowed in kernel code (in InCore function 'k')", 5, 10);
    OPS_ERROR(HDR "@pl.jit.incore\ndef j(out: pl.Out[pl.Tensor]):\n    return out\n\n" INCORE_K("    out = j(out)\n") CALL_K,
              "InvalidOperationError", "calling 'j' is control-plane work and is not allowed in kernel code (in InCore function 'k')", 11, 11);
    OPS_ERROR(HDR "@pl.jit.opaque\ndef j(out):\n    return out\n\n" INCORE_K("    out = j(out)\n") CALL_K, "InvalidOperationError",
              "calling 'j' is control-plane work and is not allowed in kernel code (in InCore function 'k')", 11, 11);
}

static void test_dsl_ops_inline_call_allowed_in_kernel_code(void **s)
{
    (void)s;
    ops_expect_ok(HDR "@pl.jit.inline\ndef g(x):\n    return pl.exp(x)\n\n"
                      "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n" AT LOAD_T "        pl.store(g(t), [0, 0], out)\n    return out\n",
                  NULL);
}

static void test_dsl_ops_b10_incore_returning_a_tile(void **s)
{
    (void)s;
    OPS_ERROR(HDR "@pl.jit.incore\ndef k(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n    t = pl.load(a, [0, 0], [64, 128])\n    return t\n\n" CALL_K,
              "ParserTypeError", "InCore function 'k' may return only its Out/InOut tensor parameters", 6, 12);
    OPS_ERROR(HDR "@pl.jit.incore\ndef k(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n    return a\n\n" CALL_K, "ParserTypeError",
              "InCore function 'k' may return only its Out/InOut tensor parameters", 5, 12);
}

/* ---- docs/dsl.md, "with pl.at(...)": values crossing a pl.at boundary ------------------------ */

static void test_dsl_ops_value_read_after_pl_at(void **s)
{
    (void)s;
    OPS_ERROR(HDR "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n" AT "        x = 3\n        pl.store(pl.load(a, [0, 0], [64, 128]), [0, 0], out)\n"
                  "    y = 1\n    z = x + y\n    return out\n",
              "PassError",
              "'x' is assigned inside a pl.at(level=pl.Level.CORE_GROUP) body and read after it; a kernel hands back only the tensors it stores to",
              9, 5);
    OPS_ERROR(HDR "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n" AT LOAD_T "        pl.store(t, [0, 0], out)\n" AT "        pl.store(t, [0, 0], out)\n"
                  "    return out\n",
              "PassError", "'t' is assigned inside a pl.at(level=pl.Level.CORE_GROUP) body and read after it", 9, 9);
}

static void test_dsl_ops_self_store_rebinding_is_fine(void **s)
{
    (void)s;
    static const char *const want[] = {"out = pl.store(t, [0, 0], out)\n", NULL};
    ops_expect_ok(HDR "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n" AT LOAD_T "        out = pl.store(t, [0, 0], out)\n"
                      "    x = 1\n" AT "        pl.store(pl.load(out, [0, 0], [64, 128]), [64, 0], out)\n    return out\n",
                  want);
}

/* ---- operator forms (docs/dsl.md, "Expressions") --------------------------------------------- */

static void test_dsl_ops_operator_forms(void **s)
{
    (void)s;
    static const char *const want[] = {"x = pl.add(t, 1.0)\n", "y = pl.neg(t)\n", "z = pl.mul(t, t)\n", "d = pl.sub(z, y)\n",
                                        "e = pl.div(d, 2)\n", NULL};
    ops_expect_ok(K(LOAD_T "        x = t + 1.0\n        y = -t\n        z = t * t\n        d = z - y\n        e = d / 2\n        pl.store(e, [0, 0], out)\n"),
                  want);
}

static void test_dsl_ops_operator_scalar_on_the_left(void **s)
{
    (void)s;
    OPS_ERROR(K(LOAD_T "        x = 1.0 + t\n"), "InvalidOperationError", "pl.add: the scalar operand must be on the right", 7, 13);
    OPS_ERROR(K(LOAD_T "        x = 2 * t\n"), "InvalidOperationError", "pl.mul: the scalar operand must be on the right", 7, 13);
}

/* ---- bound errors ---------------------------------------------------------------------------- */

static void test_dsl_ops_b02_dtype_and_shape_mismatch(void **s)
{
    (void)s;
    OPS_ERROR(KP("a: pl.Tensor, h: pl.Tensor, out: pl.Out[pl.Tensor]",
                 "        x = pl.load(h, [0, 0], [64, 128])\n" LOAD_T "        y = x + t\n"),
              "ParserTypeError", "pl.add: operand dtypes FP16 and FP32 differ; insert pl.cast", 8, 13);
    pto_program *p = ops_compile(K(LOAD_T "        u = pl.load(a, [0, 0], [64, 64])\n        y = t + u\n"));
    ops_error_in(p, "InvalidOperationError", "pl.add: operand shapes [64, 128] and [64, 64] differ", 8, 13);
    char buf[1024];
    pto_program_diag_format(p, 0, buf, sizeof buf);
    assert_true(!strncmp(buf, "k.py:8:13: error: pl.add: operand shapes [64, 128] and [64, 64] differ", 70));
    pto_program_free(p);
}

static void test_dsl_ops_b03_static_out_of_bounds(void **s)
{
    (void)s;
    pto_program *p = ops_compile(K("        t = pl.load(a, [200, 0], [64, 128])\n        pl.store(t, [0, 0], out)\n"));
    char buf[1024];
    pto_program_diag_format(p, 0, buf, sizeof buf);
    assert_string_equal(buf, "k.py:6:25: error: pl.load reads past the end of dimension 0: offset 200 + extent 64 exceeds the source extent 256.\n"
                             "        t = pl.load(a, [200, 0], [64, 128])\n"
                             "                        ^^^\n"
                             "hint: pass clamp=True to cut the read at the tensor's edge");
    pto_program_free(p);
    static const char *const want[] = {"t = pl.load(a, [200, 0], [64, 128], clamp=True, cache=pl.CachePolicy.DEFAULT)\n", NULL};
    ops_expect_ok(K("        t = pl.load(a, [200, 0], [64, 128], clamp=True)\n        pl.store(t, [0, 0], out)\n"), want);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_dsl_ops_load_accepted_forms),
    cmocka_unit_test(test_dsl_ops_load_past_end_has_clamp_hint),
    cmocka_unit_test(test_dsl_ops_load_clamp_true_accepted),
    cmocka_unit_test(test_dsl_ops_load_bounds_are_its_valid_region),
    cmocka_unit_test(test_dsl_ops_load_negative_offset),
    cmocka_unit_test(test_dsl_ops_load_rank_mismatch),
    cmocka_unit_test(test_dsl_ops_load_shapes_not_constant),
    cmocka_unit_test(test_dsl_ops_load_cache_value),
    cmocka_unit_test(test_dsl_ops_store_accepted_returns_tensor),
    cmocka_unit_test(test_dsl_ops_store_past_end),
    cmocka_unit_test(test_dsl_ops_offset_near_int64_max_is_past_the_end),
    cmocka_unit_test(test_dsl_ops_store_negative_offset_and_rank),
    cmocka_unit_test(test_dsl_ops_store_dtype_mismatch),
    cmocka_unit_test(test_dsl_ops_binary_all_ops_tile_and_scalar),
    cmocka_unit_test(test_dsl_ops_binary_scalar_constant_and_loop_variable),
    cmocka_unit_test(test_dsl_ops_binary_shapes_differ),
    cmocka_unit_test(test_dsl_ops_binary_dtypes_differ),
    cmocka_unit_test(test_dsl_ops_binary_float_scalar_with_int_tile),
    cmocka_unit_test(test_dsl_ops_binary_scalar_on_the_left),
    cmocka_unit_test(test_dsl_ops_unary_accepted),
    cmocka_unit_test(test_dsl_ops_unary_float_only),
    cmocka_unit_test(test_dsl_ops_float_unary_accepted),
    cmocka_unit_test(test_dsl_ops_float_unary_float_only),
    cmocka_unit_test(test_dsl_ops_recip_high_precision_is_a_boolean_literal),
    cmocka_unit_test(test_dsl_ops_row_reductions),
    cmocka_unit_test(test_dsl_ops_row_reductions_need_rank_2),
    cmocka_unit_test(test_dsl_ops_cast_modes_accepted),
    cmocka_unit_test(test_dsl_ops_cast_scalar_constant_folds_to_each_dtype),
    cmocka_unit_test(test_dsl_ops_cast_unknown_mode),
    cmocka_unit_test(test_dsl_ops_cast_odd_and_none),
    cmocka_unit_test(test_dsl_ops_cast_scalar_with_mode),
    cmocka_unit_test(test_dsl_ops_matmul_accepted_fp32),
    cmocka_unit_test(test_dsl_ops_matmul_fp16_and_int8_results),
    cmocka_unit_test(test_dsl_ops_matmul_tensors_are_implicit_loads),
    cmocka_unit_test(test_dsl_ops_matmul_inner_dimensions),
    cmocka_unit_test(test_dsl_ops_matmul_out_dtype_rule),
    cmocka_unit_test(test_dsl_ops_create_tensor_in_kernel_code),
    cmocka_unit_test(test_dsl_ops_create_tensor_accepted_in_control_code),
    cmocka_unit_test(test_dsl_ops_b08_misplaced_tile_op),
    cmocka_unit_test(test_dsl_ops_control_plane_in_kernel_code),
    cmocka_unit_test(test_dsl_ops_inline_call_allowed_in_kernel_code),
    cmocka_unit_test(test_dsl_ops_b10_incore_returning_a_tile),
    cmocka_unit_test(test_dsl_ops_value_read_after_pl_at),
    cmocka_unit_test(test_dsl_ops_self_store_rebinding_is_fine),
    cmocka_unit_test(test_dsl_ops_operator_forms),
    cmocka_unit_test(test_dsl_ops_operator_scalar_on_the_left),
    cmocka_unit_test(test_dsl_ops_b02_dtype_and_shape_mismatch),
    cmocka_unit_test(test_dsl_ops_b03_static_out_of_bounds),
};

PTO_TEST_MAIN(tests)
