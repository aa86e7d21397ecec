/*
 * test_dsl_tensor_ops.c - tensor-level operands in kernel code (DSL-V2-SPEC
 * §1.1, §1.2; docs/dsl.md, "Tensor-level code") through DSL source: the
 * tile ops each tensor-level form lowers to (printed text, round trip) and
 * every rule's exact message, class and line:col: the misplaced tensor op,
 * T-ew's broadcast, T-mm, T-full, T-ct.  Values: tests/python/test_tensor_level_ops.py.
 */
#include <stdlib.h>

#include "harness.h"
#include "dsl_compile.h"
#include "dsl_text.h"

#define HDR "import pypto.language as pl\n\n"
#define AT "    with pl.at(level=pl.Level.CORE_GROUP):\n"
#define PARAMS "a: pl.Tensor, v: pl.Tensor, h: pl.Tensor, b: pl.Tensor, x: pl.Tensor, c3: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar[pl.INDEX]"
/* an entry whose pl.at body (line 6 on, indent 8) is BODY */
#define K(body) HDR "@pl.jit\ndef f(" PARAMS "):\n" AT body "    return out\n"
/* an entry whose body (line 5 on, indent 4) is BODY: orchestration code */
#define ORCH(body) HDR "@pl.jit\ndef f(" PARAMS "):\n" body "    return out\n"

static const pto_arg_spec tt_args[] = {
    {.name = "a", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {8, 16}},
    {.name = "v", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {8, 1}},
    {.name = "h", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP16, .rank = 2, .shape = {8, 1}},
    {.name = "b", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_BF16, .rank = 2, .shape = {16, 4}},
    {.name = "x", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 1, .shape = {16}},
    {.name = "c3", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 3, .shape = {2, 16, 4}},
    {.name = "out", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {8, 16}},
    {.name = "n", .kind = PTO_ARG_SCALAR, .value = {.kind = PTO_VALUE_INT, .i = 5}},
};
#define TT_NARGS (sizeof tt_args / sizeof tt_args[0])

static pto_program *tt_compile(const char *src) { return dsl_compile_with(src, "f", PTO_STAGE_LOWER, 0, tt_args, TT_NARGS); }

#define TT_ERROR(src, cls, msg, line, col) DSL_EXPECT_COMPILE_ERROR(tt_compile(src), cls, msg, line, col)

static void tt_expect(const char *src, const char *const *want)
{
    pto_program *p = tt_compile(src);
    dsl_expect_text_contains(p, want);
    dsl_expect_roundtrip(p, tt_args, TT_NARGS);
    pto_program_free(p);
}

/* §1.1: every tensor-level op in orchestration, the operator spelling too; tile ops keep v1's text. */
static void test_misplaced_tensor_op_in_orchestration(void **s)
{
    (void)s;
    static const struct { const char *stmt, *op; } rows[] = {
        {"    y = pl.add(a, a)\n", "pl.add"}, {"    y = a * a\n", "pl.mul"}, {"    y = pl.exp(a)\n", "pl.exp"},
        {"    y = pl.row_sum(a)\n", "pl.row_sum"}, {"    y = pl.matmul(a, b)\n", "pl.matmul"},
        {"    y = pl.full([4, 4], dtype=pl.FP32, value=1.0)\n", "pl.full"}, {"    y = pl.cast(a, pl.FP16)\n", "pl.cast"},
    };
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        char src[1024], msg[256];
        snprintf(src, sizeof src, ORCH("%s"), rows[k].stmt);
        snprintf(msg, sizeof msg, "Misplaced tensor op '%s' in Orchestration function 'f' (should be inside InCore block)", rows[k].op);
        pto_program *p = tt_compile(src);
        const pto_diagnostic *d = dsl_expect_error(p, "InvalidOperationError", msg, 5, 9);
        assert_non_null(d->hint);
        assert_non_null(strstr(d->hint, "with pl.at(level=pl.Level.CORE_GROUP):"));
        pto_program_free(p);
    }
    TT_ERROR(ORCH("    y = pl.tile.full([4, 4], dtype=pl.FP32, value=1.0)\n"), "InvalidOperationError",
             "Misplaced tile op 'pl.tile.full' in Orchestration function 'f' (should be inside InCore block)", 5, 9);
}

/* T-ew: [M, 1] with [M, N] on either side lowers to pl.row_expand_<op> (or pl.row_expand first). */
static void test_column_vector_broadcast_lowers_to_row_expand(void **s)
{
    (void)s;
    static const char *const want[] = {"pl.row_expand_add(pl.load(a", "pl.row_expand_div(pl.load(a",
                                       "pl.sub(pl.row_expand(pl.load(a, [0, 0], [8, 16]", NULL};
    tt_expect(K("        pl.store(pl.add(a, v) + a / v, [0, 0], out)\n        pl.store(v - a, [0, 0], out)\n"), want);
}

static void test_broadcast_other_shapes_are_the_shape_text(void **s)
{
    (void)s;
    TT_ERROR(K("        y = pl.add(a, pl.row_sum(pl.col_sum(a)))\n"), "InvalidOperationError", "pl.add: operand shapes [8, 16] and [1, 1] differ", 6, 13);
    TT_ERROR(K("        y = pl.maximum(c3, a)\n"), "InvalidOperationError", "pl.maximum: operand shapes [2, 16, 4] and [8, 16] differ", 6, 13);
}

static void test_broadcast_dtypes_must_be_equal(void **s)
{
    (void)s;
    TT_ERROR(K("        y = pl.div(a, h)\n"), "ParserTypeError", "pl.div: operand dtypes FP32 and FP16 differ; insert pl.cast", 6, 13);
}

/* T-mm: transposes, 1-D operands, batch axes, the result dtype: the tile ops they lower to. */
static void test_tensor_matmul_lowers_to_tile_ops(void **s)
{
    (void)s;
    static const char *const want[] = {"y = pl.cast(pl.matmul(pl.transpose_view(pl.load(b", "z = pl.reshape(pl.matmul(pl.load(a",
                                       "pl.reshape(pl.load(x, [0], [16], cache=pl.CachePolicy.DEFAULT), [16, 1])), [8])",
                                       "pl.transpose_view(pl.load(a, [0, 0], [8, 16], cache=pl.CachePolicy.DEFAULT))), pl.FP16)",
                                       "q = pl.reshape(pl.matmul(pl.transpose(pl.load(c3, [0, 0, 0], [2, 16, 4]", "[16, 1])), [2, 4])", NULL};
    tt_expect(K("        y = pl.matmul(b, b, a_trans=True)\n        z = pl.matmul(a, x)\n"
                "        w = pl.matmul(pl.transpose(c3, 1, 2), a, b_trans=True, out_dtype=pl.FP16)\n"
                "        q = pl.matmul(pl.transpose(c3, 1, 2), x)\n"),
              want);
}

static void test_tensor_matmul_errors(void **s)
{
    (void)s;
    TT_ERROR(K("        y = pl.matmul(a, a)\n"), "InvalidOperationError", "pl.matmul: inner dimensions differ: [8, 16] vs [8, 16]", 6, 13);
    TT_ERROR(K("        y = pl.matmul(a, b, a_trans=True)\n"), "InvalidOperationError", "pl.matmul: inner dimensions differ: [16, 8] vs [16, 4]", 6, 13);
    TT_ERROR(K("        y = pl.matmul(x, a, a_trans=True)\n"), "InvalidOperationError", "tensor.matmul: a_trans does not apply to a 1D lhs", 6, 37);
    TT_ERROR(K("        y = pl.matmul(a, x, b_trans=True)\n"), "InvalidOperationError", "tensor.matmul: b_trans does not apply to a 1D rhs", 6, 37);
    TT_ERROR(K("        y = pl.matmul(pl.reshape(c3, [2, 4, 16]), pl.reshape(c3, [4, 16, 2]))\n"),
             "InvalidOperationError", "pl.matmul: batch dimensions [2] and [4] do not broadcast", 6, 13);
    TT_ERROR(K("        y = pl.matmul(a, b)\n"), "ParserTypeError", "pl.matmul: operand dtypes FP32 and BF16 differ; insert pl.cast", 6, 13);
    TT_ERROR(K("        y = pl.matmul(b, pl.transpose_view(b), out_dtype=pl.INT8)\n"), "ParserTypeError",
             "pl.matmul: out_dtype=INT8 is not valid for BF16 operands", 6, 58);
    TT_ERROR(K("        y = pl.matmul(a, a, b_trans=True, c_matrix_nz=True)\n"), "UnsupportedFeatureError",
             "c_matrix_nz= is Ascend-specific: it selects a hardware fractal layout; it has no meaning on the CPU backend", 6, 43);
}

/* With a Tile operand: v1's rules (FP32 result), a_trans/b_trans the transpose_view text. */
static void test_tile_operand_matmul_keeps_v1_rules(void **s)
{
    (void)s;
    TT_ERROR(K("        t = pl.load(a, [0, 0], [8, 16])\n        y = pl.matmul(t, a, b_trans=True)\n"), "ParserTypeError",
             "pl.matmul: b_trans=True is not supported for Tile operands; use pl.tile.transpose_view", 7, 37);
    static const char *const want[] = {"y = pl.matmul(t, pl.transpose_view(pl.load(b", NULL};
    tt_expect(K("        t = pl.load(b, [0, 0], [16, 4])\n        y: pl.Tile[[16, 16], pl.FP32] = pl.matmul(t, pl.transpose_view(b))\n"), want);
}

static void test_tensor_matmul_acc_errors(void **s)
{
    (void)s;
    TT_ERROR(K("        y = pl.matmul_acc(pl.full([16, 4], dtype=pl.FP32, value=0.0), b, b)\n"), "InvalidOperationError",
             "pl.matmul_acc: inner dimensions differ: [16, 4] vs [16, 4]", 6, 13);
    TT_ERROR(K("        y = pl.matmul_acc(pl.full([4, 4], dtype=pl.FP16, value=0.0), b, b, a_trans=True)\n"), "ParserTypeError",
             "tensor.matmul_acc requires accumulator dtype FP32, but got FP16", 6, 27);
    TT_ERROR(K("        y = pl.matmul_acc(pl.create_tensor([4, 8], pl.FP32), b, b, a_trans=True)\n"), "InvalidOperationError",
             "pl.matmul_acc: accumulator shape [4, 8] does not match the product shape [4, 4]", 6, 27);
    TT_ERROR(K("        t = pl.load(b, [0, 0], [16, 4])\n        y = pl.matmul_acc(a, t, t, b_trans=True)\n"), "ParserTypeError",
             "pl.matmul_acc: b_trans=True is not supported for Tile operands; use pl.tile.transpose_view", 7, 44);
}

/* T-full, T-ct: the tile ops they are, and their texts. */
static void test_full_and_local_create_tensor(void **s)
{
    (void)s;
    static const char *const want[] = {"f = pl.tile.full([8, 16], pl.FP32, value=5)\n", "z = pl.create_tile([8, 16], pl.FP32)\n", NULL};
    tt_expect(K("        f = pl.full([8, 16], dtype=pl.FP32, value=n)\n        z = pl.create_tensor([8, 16], pl.FP32)\n"
                "        pl.store(f + z + a, [0, 0], out)\n"),
              want);
    TT_ERROR(K("        for i in pl.range(1, n):\n            f = pl.full([i, 16], dtype=pl.FP32, value=1.0)\n"), "ParserTypeError",
             "pl.full shape element 0 must be a compile-time constant", 7, 26);
    TT_ERROR(K("        for i in pl.range(1, n):\n            z = pl.create_tensor([8, i], pl.FP32)\n"), "ParserTypeError",
             "pl.create_tensor in kernel code: shape element 1 must be a compile-time constant", 7, 38);
    pto_program *p = tt_compile(K("        z = pl.create_tensor([8, 16], pl.FP32, init_value=2.0)\n"));
    const pto_diagnostic *d = dsl_expect_error(p, "InvalidOperationError",
                                               "pl.create_tensor(init_value=...) is not allowed in kernel code (inside a pl.at(level=pl.Level.CORE_GROUP) body)", 6, 59);
    assert_string_equal(d->hint, "start from pl.full(shape, dtype=..., value=...)");
    pto_program_free(p);
    TT_ERROR(K("        z = pl.create_tensor([8, 16], pl.FP32)\n        pl.store(pl.load(a, [0, 0], [8, 16]), [0, 0], z)\n"), "InvalidOperationError",
             "pl.store: 'z' is a kernel-local tensor; write into it with pl.assemble or a subscript write", 7, 55);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_misplaced_tensor_op_in_orchestration),
    cmocka_unit_test(test_column_vector_broadcast_lowers_to_row_expand),
    cmocka_unit_test(test_broadcast_other_shapes_are_the_shape_text),
    cmocka_unit_test(test_broadcast_dtypes_must_be_equal),
    cmocka_unit_test(test_tensor_matmul_lowers_to_tile_ops),
    cmocka_unit_test(test_tensor_matmul_errors),
    cmocka_unit_test(test_tile_operand_matmul_keeps_v1_rules),
    cmocka_unit_test(test_tensor_matmul_acc_errors),
    cmocka_unit_test(test_full_and_local_create_tensor),
};

PTO_TEST_MAIN(tests)
