/*
 * test_dsl_p5_ops.c - the rest of the element-wise family through DSL source
 * (docs/dsl.md, Operations): each error template of pl.rem ... pl.col_argmin
 * with its class and the offending construct's line and column, and the
 * accepted forms' post-pass text (spellings printed as their op, optional
 * slots kept as written, the arg-extrema's INT32 result).
 */
#include "harness.h"
#include "dsl_compile.h"
#include "dsl_text.h"

#define HDR "import pypto.language as pl\n\n"
#define AT "    with pl.at(level=pl.Level.CORE_GROUP):\n"
#define K(body) HDR "@pl.jit\ndef f(a: pl.Tensor, i: pl.Tensor, out: pl.Out[pl.Tensor]):\n" AT LOADS body "    return out\n"
/* lines 6 and 7; the op under test is on line 8 */
#define LOADS "        t = pl.load(a, [0, 0], [16, 32])\n        k = pl.load(i, [0, 0], [16, 32])\n"

static const pto_arg_spec p5_args[] = {
    {.name = "a", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {16, 32}},
    {.name = "i", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_INT32, .rank = 2, .shape = {16, 32}},
    {.name = "out", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {16, 32}},
};

static pto_program *p5_compile(const char *src)
{
    return dsl_compile_with(src, "f", PTO_STAGE_LOWER, 0, p5_args, sizeof p5_args / sizeof p5_args[0]);
}

#define P5_ERROR(stmt, cls, msg, col)                                        \
    do {                                                                     \
        pto_program *p_ = p5_compile(K("        " stmt "\n"));               \
        dsl_expect_error(p_, cls, msg, 8, col);                              \
        pto_program_free(p_);                                                \
    } while (0)

static void test_dsl_p5_lrelu_slope_must_be_a_scalar(void **s)
{
    (void)s;
    P5_ERROR("x = pl.lrelu(t, t)", "ParserTypeError", "pl.lrelu: slope must be a scalar, got pl.Tile[[16, 32], pl.FP32]", 25);
}

static void test_dsl_p5_prelu_slope_must_be_a_tile(void **s)
{
    (void)s;
    P5_ERROR("x = pl.prelu(t, 0.5)", "ParserTypeError", "pl.prelu: slope must be a tile, got pl.Scalar[pl.FP32]", 25);
}

static void test_dsl_p5_shift_count_constant_must_not_be_negative(void **s)
{
    (void)s;
    P5_ERROR("x = pl.shls(k, -2)", "InvalidOperationError", "pl.shl: shift count -2 is negative", 24);
    P5_ERROR("x = pl.tensor.shr(i, -1)", "InvalidOperationError", "pl.shr: shift count -1 is negative", 30);
}

static void test_dsl_p5_cmp_type_must_be_a_constant_from_0_to_5(void **s)
{
    (void)s;
    P5_ERROR("x = pl.cmp(t, t, cmp_type=6)", "ParserTypeError", "pl.cmp cmp_type must be an integer constant from 0 (eq) to 5 (ge)", 35);
    P5_ERROR("x = pl.cmps(t, 0.5, -1)", "ParserTypeError", "pl.cmp cmp_type must be an integer constant from 0 (eq) to 5 (ge)", 29);
}

static void test_dsl_p5_bitwise_ops_require_an_integer_tile(void **s)
{
    (void)s;
    P5_ERROR("x = pl.xor(t, t)", "ParserTypeError", "pl.xor requires an integer tile, got FP32", 13);
    P5_ERROR("x = pl.not_(t)", "ParserTypeError", "pl.not_ requires an integer tile, got FP32", 13);
    P5_ERROR("x = pl.sin(k)", "ParserTypeError", "pl.sin requires a floating-point tile, got INT32", 13);
}

static void test_dsl_p5_scalar_spelling_requires_a_scalar_right_operand(void **s)
{
    (void)s;
    P5_ERROR("x = pl.fmods(t, t)", "ParserTypeError", "pl.fmods expects a scalar right operand, got pl.Tile[[16, 32], pl.FP32]", 25);
    P5_ERROR("x = pl.maximums(t, t)", "ParserTypeError", "pl.maximums expects a scalar right operand, got pl.Tile[[16, 32], pl.FP32]", 28);
    P5_ERROR("x = pl.tensor.ands(i, i)", "ParserTypeError",
             "pl.tensor.ands expects a scalar right operand, got pl.Tensor[[16, 32], pl.INT32]", 31);
}

static void test_dsl_p5_scratch_tile_must_be_a_tile(void **s)
{
    (void)s;
    P5_ERROR("x = pl.rem(t, t, tmp=1)", "ParserTypeError", "expected a tile, got pl.Scalar[pl.INDEX]", 30);
}

static void test_dsl_p5_arg_extrema_are_int32(void **s)
{
    (void)s;
    pto_program *p = p5_compile(K("        pl.store(pl.row_argmax(t), [0, 0], out)\n"));
    dsl_expect_error(p, "ParserTypeError", "pl.store: tile dtype INT32 does not match tensor 'out' dtype FP32; insert pl.cast", 8, 9);
    pto_program_free(p);
}

static void test_dsl_p5_ops_print_as_written(void **s)
{
    (void)s;
    static const char *const want[] = {
        "x = pl.rem(t, 2.0, tmp=t)\n", "y = pl.cmp(t, x, cmp_type=3)\n", "z = pl.maximum(t, 0.5)\n", "w = pl.xor(k, 3, tmp=k)\n",
        "v = pl.col_argmin(t, tmp_tile=t)\n", "u = pl.shl(k, pl.not_(k))\n", "r = pl.lrelu(pl.sin(pl.cos(t)), 0.25)\n", NULL};
    pto_program *p = p5_compile(K("        x = pl.rems(t, 2.0, t)\n        y = pl.cmp(t, x, 3)\n        z = pl.maximums(t, 0.5)\n"
                                  "        w = pl.tile.xors(k, 3, k)\n        v = pl.col_argmin(t, t)\n"
                                  "        u = pl.shl(k, pl.not_(k))\n        r = pl.lrelu(pl.sin(pl.cos(t)), 0.25)\n"
                                  "        pl.store(pl.add(pl.add(x, y), pl.add(z, r)), [0, 0], out)\n"));
    dsl_expect_text_contains(p, want);
    pto_program_free(p);
}

static void test_dsl_p5_ternary_operands_share_one_dtype_and_shape(void **s)
{
    (void)s;
    P5_ERROR("x = pl.subc(t, t, k)", "ParserTypeError", "pl.subc: operand dtypes FP32 and INT32 differ; insert pl.cast", 13);
    P5_ERROR("x = pl.sel(pl.load(a, [0, 0], [8, 32]), t, t)", "InvalidOperationError", "pl.sel: operand shapes [8, 32] and [16, 32] differ", 13);
    P5_ERROR("x = pl.sels(k, t, t)", "ParserTypeError", "pl.sels() missing required argument 'scalar'", 13);
    pto_program *p = p5_compile(K("        pl.store(pl.sel(k, pl.addsc(t, 1.0, t), pl.subc(t, t, t), tmp=t), [0, 0], out)\n"));
    static const char *const want[] = {"pl.store(pl.sel(k, pl.addc(t, 1.0, t), pl.subc(t, t, t), tmp=t), [0, 0], out)", NULL};
    dsl_expect_text_contains(p, want);
    pto_program_free(p);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_dsl_p5_ternary_operands_share_one_dtype_and_shape),
    cmocka_unit_test(test_dsl_p5_lrelu_slope_must_be_a_scalar),
    cmocka_unit_test(test_dsl_p5_prelu_slope_must_be_a_tile),
    cmocka_unit_test(test_dsl_p5_shift_count_constant_must_not_be_negative),
    cmocka_unit_test(test_dsl_p5_cmp_type_must_be_a_constant_from_0_to_5),
    cmocka_unit_test(test_dsl_p5_bitwise_ops_require_an_integer_tile),
    cmocka_unit_test(test_dsl_p5_scalar_spelling_requires_a_scalar_right_operand),
    cmocka_unit_test(test_dsl_p5_scratch_tile_must_be_a_tile),
    cmocka_unit_test(test_dsl_p5_arg_extrema_are_int32),
    cmocka_unit_test(test_dsl_p5_ops_print_as_written),
};

PTO_TEST_MAIN(tests)
