/*
 * test_dsl_op_namespaces.c - the pl.tile.<op> and pl.tensor.<op> spellings
 * (docs/dsl.md, "Operations"): each spells the pl.<op> it names and prints
 * as it; pl.tile takes Tile operands only, pl.tensor Tensor operands only;
 * the scalar spellings (pl.tile.adds) take a scalar right operand; names
 * outside a namespace, later and unknown names are reported by name at
 * the callee's line:col.
 */
#include <stdlib.h>

#include "harness.h"
#include "dsl_compile.h"
#include "dsl_text.h"

#define HDR "import pypto.language as pl\n\n"
/* an entry whose pl.at body (line 7 on, indent 8) follows a load t of a */
#define K(body)                                                                                   \
    HDR "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"                                 \
        "    with pl.at(level=pl.Level.CORE_GROUP):\n        t = pl.load(a, [0, 0], [16, 32])\n" \
        body "    return out\n"

static const pto_arg_spec ns_args[] = {
    {.name = "a", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {16, 32}},
    {.name = "out", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {16, 32}},
};

static pto_program *ns_compile(const char *src)
{
    return dsl_compile_with(src, "f", PTO_STAGE_LOWER, 0, ns_args, sizeof ns_args / sizeof ns_args[0]);
}

#define NS_ERROR(body, cls, msg, line, col) DSL_EXPECT_COMPILE_ERROR(ns_compile(K(body)), cls, msg, line, col)

static void test_tile_namespace_spells_the_pl_op(void **s)
{
    (void)s;
    static const char *const want[] = {"u = pl.add(t, 1.0)\n", "v = pl.mul(u, u)\n", "w = pl.fillpad(v, pad_value=pl.PadValue.max)\n",
                                       "c = pl.create_tile([16, 32], pl.FP32)\n", "f = pl.tile.full([16, 32], pl.FP32, value=2.0)\n",
                                       "m = pl.maximum(w, c)\n", "pl.store(m, [0, 0], out)\n", NULL};
    pto_program *p = ns_compile(K("        u = pl.tile.adds(t, 1.0)\n        v = pl.tile.mul(u, u)\n"
                                  "        w = pl.tile.fillpad(v, pad_value=pl.PadValue.max)\n"
                                  "        c = pl.tile.create([16, 32], dtype=pl.FP32)\n"
                                  "        f = pl.tile.full([16, 32], dtype=pl.FP32, value=2.0)\n"
                                  "        m = pl.tile.maximums(w, 0.5)\n        m = pl.tile.maximum(w, c)\n"
                                  "        pl.tile.store(m, [0, 0], out)\n"));
    dsl_expect_text_contains(p, want);
    pto_program_free(p);
}

static void test_tensor_namespace_spells_the_pl_op(void **s)
{
    (void)s;
    static const char *const want[] = {"u = pl.exp(pl.load(a, [0, 0], [16, 32]", "pl.store(u, [0, 0], out)\n", NULL};
    pto_program *p = ns_compile(K("        u = pl.tensor.exp(a)\n        pl.store(u, [0, 0], out)\n"));
    dsl_expect_text_contains(p, want);
    pto_program_free(p);
}

static void test_tile_namespace_takes_tile_operands(void **s)
{
    (void)s;
    NS_ERROR("        u = pl.tile.add(a, t)\n", "ParserTypeError", "pl.tile.add expects Tile operands, got pl.Tensor[[16, 32], pl.FP32]", 7,
             25);
    NS_ERROR("        u = pl.tile.row_sum(t)\n        v = pl.tile.row_expand_add(a, u)\n", "ParserTypeError",
             "pl.tile.row_expand_add expects Tile operands, got pl.Tensor[[16, 32], pl.FP32]", 8, 36);
}

static void test_tensor_namespace_takes_tensor_operands(void **s)
{
    (void)s;
    NS_ERROR("        u = pl.tensor.add(a, t)\n", "ParserTypeError", "pl.tensor.add expects Tensor operands, got pl.Tile[[16, 32], pl.FP32]",
             7, 30);
    NS_ERROR("        u = pl.tensor.exp(t)\n", "ParserTypeError", "pl.tensor.exp expects Tensor operands, got pl.Tile[[16, 32], pl.FP32]", 7,
             27);
}

static void test_scalar_spelling_takes_a_scalar_right_operand(void **s)
{
    (void)s;
    NS_ERROR("        u = pl.tile.adds(t, t)\n", "ParserTypeError",
             "pl.tile.adds expects a scalar right operand, got pl.Tile[[16, 32], pl.FP32]", 7, 29);
}

static void test_namespace_names_outside_it_are_reported(void **s)
{
    (void)s;
    NS_ERROR("        u = pl.tensor.load(a, [0, 0], [16, 32])\n", "UndefinedVariableError",
             "pl.tensor.load is not a pl.tensor op; use pl.load", 7, 13);
    NS_ERROR("        u = pl.tile.create_tensor([4], dtype=pl.FP32)\n", "UndefinedVariableError",
             "pl.tile.create_tensor is not a pl.tile op; use pl.create_tensor", 7, 13);
    NS_ERROR("        u = pl.tile.dim()\n", "UnsupportedFeatureError", "pl.tile.dim is not supported in this version", 7, 13);
    NS_ERROR("        u = pl.tile.nosuch(t)\n", "UndefinedVariableError", "pl.tile.nosuch is not a pypto.language name", 7, 13);
    NS_ERROR("        u = pl.tensor.full([4], dtype=pl.FP32, value=1.0)\n", "UndefinedVariableError",
             "pl.tensor.full is not a pypto.language name", 7, 13);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_tile_namespace_spells_the_pl_op),
    cmocka_unit_test(test_tensor_namespace_spells_the_pl_op),
    cmocka_unit_test(test_tile_namespace_takes_tile_operands),
    cmocka_unit_test(test_tensor_namespace_takes_tensor_operands),
    cmocka_unit_test(test_scalar_spelling_takes_a_scalar_right_operand),
    cmocka_unit_test(test_namespace_names_outside_it_are_reported),
};

PTO_TEST_MAIN(tests)
