/*
 * test_dsl_p5_create.c - creation, linear algebra and views through DSL
 * source (docs/dsl.md, "Creation, linear algebra and views"): the error
 * templates of pl.arange ... pl.dump_tag with their class and the offending
 * construct's line and column, the tile-only spellings, and the accepted
 * forms' post-pass text (the pl.tile spelling of a generator kept, a
 * gemv's acc_phase, pl.const folded to its literal, pl.dump_tag gone).
 */
#include "harness.h"
#include "dsl_compile.h"
#include "dsl_text.h"

#define HDR "import pypto.language as pl\n\n"
#define AT "    with pl.at(level=pl.Level.CORE_GROUP):\n"
#define K(body) HDR "@pl.jit\ndef f(a: pl.Tensor, i: pl.Tensor, out: pl.Out[pl.Tensor]):\n" AT LOADS body "    return out\n"
/* lines 6 and 7; the op under test is on line 8 */
#define LOADS "        t = pl.load(a, [0, 0], [16, 32])\n        k = pl.load(i, [0, 0], [16, 32])\n"

static const pto_arg_spec cr_args[] = {
    {.name = "a", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {64, 64}},
    {.name = "i", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_INT32, .rank = 2, .shape = {64, 64}},
    {.name = "out", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {16, 32}},
};

static pto_program *cr_compile(const char *src)
{
    return dsl_compile_with(src, "f", PTO_STAGE_LOWER, 0, cr_args, sizeof cr_args / sizeof cr_args[0]);
}

#define CR_ERROR(stmt, cls, msg, col)                                        \
    do {                                                                     \
        pto_program *p_ = cr_compile(K("        " stmt "\n"));               \
        dsl_expect_error(p_, cls, msg, 8, col);                              \
        pto_program_free(p_);                                                \
    } while (0)

static void test_dsl_p5_arange_fills_one_row_of_int32_int16_uint32_or_uint16(void **s)
{
    (void)s;
    CR_ERROR("x = pl.arange(0, [2, 8])", "InvalidOperationError", "pl.arange fills one row: the leading extents of shape [2, 8] must be 1", 26);
    CR_ERROR("x = pl.tile.ci(0, [1, 8], pl.INT8)", "ParserTypeError", "pl.arange dtype must be pl.INT32, pl.INT16, pl.UINT32 or pl.UINT16, got pl.INT8",
             35);
    CR_ERROR("x = pl.arange(t, [1, 8])", "ParserTypeError", "pl.arange start must be an integer scalar, got pl.Tile[[16, 32], pl.FP32]", 23);
}

static void test_dsl_p5_tri_is_rank_2_and_tile_only(void **s)
{
    (void)s;
    CR_ERROR("x = pl.tri(0, [4, 4, 4])", "InvalidOperationError", "pl.tri needs a rank-2 shape, got 3 entries", 23);
    CR_ERROR("x = pl.tri(0, [4, 4], valid_shape=[4, -1])", "InvalidOperationError", "pl.tri: valid_shape entry 1 (-1) is outside 0 to 4", 47);
    CR_ERROR("x = pl.tensor.tri(0, [4, 4])", "UndefinedVariableError", "pl.tensor.tri is not a pl.tensor op; use pl.tri", 13);
    CR_ERROR("x = pl.tensor.gemv(t, t)", "UndefinedVariableError", "pl.tensor.gemv is not a pl.tensor op; use pl.gemv", 13);
}

static void test_dsl_p5_random_is_uint32_or_int32_with_7_or_10_rounds(void **s)
{
    (void)s;
    CR_ERROR("x = pl.random(1, 2, 3, 4, 5, 6, [4, 4], dtype=pl.FP32)", "ParserTypeError", "pl.random dtype must be pl.UINT32 or pl.INT32, got pl.FP32", 55);
    CR_ERROR("x = pl.random(1, 2, 3, 4, 5, 6, [4, 4], dtype=pl.INT32, rounds=9)", "ParserTypeError", "pl.random rounds= must be the constant 7 or 10", 72);
}

static void test_dsl_p5_matmul_relatives_check_shapes_and_dtypes(void **s)
{
    (void)s;
    CR_ERROR("x = pl.gemv(t, pl.load(a, [0, 0], [32, 8]))", "InvalidOperationError", "pl.gemv: lhs must be one row [1, K], got [16, 32]", 13);
    CR_ERROR("x = pl.matmul_bias(t, pl.load(a, [0, 0], [32, 8]), pl.load(a, [0, 0], [2, 8]))", "InvalidOperationError",
             "pl.matmul_bias: bias shape [2, 8], want [1, 8]", 60);
    CR_ERROR("x = pl.gemv_acc(pl.load(i, [0, 0], [1, 8]), pl.load(a, [0, 0], [1, 32]), pl.load(a, [0, 0], [32, 8]))", "ParserTypeError",
             "pl.gemv_acc requires accumulator dtype FP32, got INT32", 25);
    CR_ERROR("x = pl.gemv(pl.load(a, [0, 0], [1, 32]), pl.load(a, [0, 0], [32, 8]), acc_phase=1)", "ParserTypeError",
             "pl.gemv acc_phase= must be \"unspecified\", \"partial\" or \"final\"", 89);
}

static void test_dsl_p5_reinterpret_view_keeps_the_byte_count(void **s)
{
    (void)s;
    CR_ERROR("x = pl.reinterpret_view(t, pl.INT16, shape=[16, 16])", "InvalidOperationError",
             "pl.reinterpret_view: shape [16, 16] of INT16 holds 512 bytes, the source 2048", 52);
    CR_ERROR("x = pl.reinterpret_view(k, pl.INT32)", "ParserTypeError", "pl.reinterpret_view: dtype pl.INT32 is the source's own; pass another dtype", 36);
}

static void test_dsl_p5_const_and_dump_tag_rules(void **s)
{
    (void)s;
    CR_ERROR("x = pl.add(t, pl.const(40000, pl.INT16))", "InvalidOperationError", "pl.const: 40000 is out of range for INT16 (-32768 to 32767)", 32);
    CR_ERROR("x = pl.dump_tag(a)", "InvalidOperationError", "pl.dump_tag is control-plane work and is not allowed in kernel code (inside a pl.at(level=pl.Level.CORE_GROUP) body)", 13);
}

static void test_dsl_p5_create_ops_print_as_written(void **s)
{
    (void)s;
    static const char *const want[] = {
        "x = pl.tile.arange(3, [1, 32], pl.INT32, descending=True)\n", "y = pl.tri(-1, [16, 32], valid_shape=[8, 8], dtype=pl.FP32, upper=True)\n",
        "z = pl.random(1, 2, 3, 4, 5, 6, [16, 32], dtype=pl.INT32, rounds=7)\n", "w = pl.gemv_bias(v, wt, g, acc_phase=\"final\")\n",
        "r = pl.reinterpret_view(t, pl.INT32)\n", "c = pl.add(t, 3)\n", NULL};
    pto_program *p = cr_compile(K("        x = pl.tile.ci(3, [1, 32], descending=True)\n"
                                  "        y = pl.tri(-1, [16, 32], valid_shape=[8, 8], dtype=pl.FP32, upper=True)\n"
                                  "        z = pl.tensor.random(1, 2, 3, 4, 5, 6, [16, 32], dtype=pl.INT32, rounds=7)\n"
                                  "        v = pl.load(a, [0, 0], [1, 32])\n        wt = pl.load(a, [0, 0], [32, 32])\n"
                                  "        g = pl.gemv(v, wt)\n        w = pl.gemv_bias(v, wt, g, acc_phase=\"final\")\n"
                                  "        r = pl.reinterpret_view(t, pl.INT32)\n        c = pl.add(t, pl.const(3, pl.INT8))\n"
                                  "        pl.store(pl.add(c, y), [0, 0], out)\n        pl.store(pl.cast(pl.add(z, r), pl.FP32), [0, 0], out)\n"
                                  "        pl.store(pl.add(pl.cast(x, pl.FP32), w), [0, 0], out)\n"));
    dsl_expect_text_contains(p, want);
    pto_program_free(p);
}

/* The generators lower to one TOP each without a tile operand (random's six seed registers, the
 * valid region); the bias forms to one TOP reading the bias as its third tile. */
static void test_dsl_p5_create_ops_lower_to_one_top_each(void **s)
{
    (void)s;
    pto_program *p = dsl_compile_with(K("        x = pl.tri(2, [16, 32], valid_shape=[8, 4], dtype=pl.FP32)\n"
                                        "        r = pl.random(1, 2, 3, 4, 5, 6, [16, 32], dtype=pl.INT32)\n"
                                        "        wt = pl.load(a, [0, 0], [32, 32])\n"
                                        "        b = pl.matmul_bias(t, wt, pl.load(a, [0, 0], [1, 32]))\n"
                                        "        pl.store(pl.add(pl.add(x, b), pl.cast(r, pl.FP32)), [0, 0], out)\n"),
                                      "f", PTO_STAGE_ALL, 0, cr_args, sizeof cr_args / sizeof cr_args[0]);
    dsl_expect_ok(p);
    const char *l = pto_program_listing(p);
    if (!strstr(l, "TTRI v") || !strstr(l, " FP32 mode 0 valid=[8, 4, 0, 0] @8:13\n") || !strstr(l, "TRANDOM v") ||
        !strstr(l, " INT32 mode 10 seeds [r") || !strstr(l, "] valid=[16, 32, 0, 0] @9:13\n") || !strstr(l, "TMATMUL_BIAS v"))
        fail_msg("listing:\n%s", strstr(l, "TTRI") ? strstr(l, "TTRI") : l);
    assert_int_equal(dsl_count(l, "TTRI"), 1);
    assert_int_equal(dsl_count(l, "TRANDOM"), 1);
    assert_int_equal(dsl_count(l, "TMATMUL_BIAS"), 1);
    pto_program_free(p);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_dsl_p5_create_ops_lower_to_one_top_each),
    cmocka_unit_test(test_dsl_p5_arange_fills_one_row_of_int32_int16_uint32_or_uint16),
    cmocka_unit_test(test_dsl_p5_tri_is_rank_2_and_tile_only),
    cmocka_unit_test(test_dsl_p5_random_is_uint32_or_int32_with_7_or_10_rounds),
    cmocka_unit_test(test_dsl_p5_matmul_relatives_check_shapes_and_dtypes),
    cmocka_unit_test(test_dsl_p5_reinterpret_view_keeps_the_byte_count),
    cmocka_unit_test(test_dsl_p5_const_and_dump_tag_rules),
    cmocka_unit_test(test_dsl_p5_create_ops_print_as_written),
};

PTO_TEST_MAIN(tests)
