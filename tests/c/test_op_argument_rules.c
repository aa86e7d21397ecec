/*
 * test_op_argument_rules.c - the arguments of the pl ops (docs/dsl.md,
 * "Operations"): pl.load (its tensor, keywords, valid_shape,
 * target_memory), pl.store (offsets, a tile), pl.cast modes, pl.matmul
 * operand dtypes, and pl.create_tensor (shape, dtype, layout, init_value,
 * control-plane code only).
 *
 * Invariants: one test per rule; each compiles a small program through
 * pto_compile and checks the first error's class, message and line:column.
 */
#include "harness.h"
#include "dsl_compile.h"

static void test_load_of_a_value_that_is_no_tensor_names_its_type(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER "    with pl.at(level=pl.Level.CORE_GROUP):\n"
                           "        t = pl.load(3, [0, 0], [64, 128])\n"
                           "        pl.store(t, [0, 0], out)\n"
                           "    return out\n",
              "f", "ParserTypeError", "pl.load expects a tensor here, got pl.Scalar[pl.INDEX]", 6, 21);
}

static void test_store_offsets_not_a_list_is_type_error(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    with pl.at(level=pl.Level.CORE_GROUP):\n"
              "        t = pl.load(a, [0, 0], [64, 128])\n"
              "        pl.store(t, 0, out)\n"
              "    return out\n",
              "f", "ParserTypeError", "offsets must be a list like [0, 0]", 7, 21);
}

static void test_store_of_a_scalar_expects_a_tile(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    with pl.at(level=pl.Level.CORE_GROUP):\n"
              "        t = pl.load(a, [0, 0], [64, 128])\n"
              "        pl.store(1, [0, 0], out)\n"
              "    return out\n",
              "f", "ParserTypeError", "expected a tile, got pl.Scalar[pl.INDEX]", 7, 18);
}

static void test_load_valid_shape_rank_mismatch_is_invalid_op(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    with pl.at(level=pl.Level.CORE_GROUP):\n"
              "        t = pl.load(a, [0, 0], [64, 128])\n"
              "        u = pl.load(a, [0, 0], [64, 128], valid_shape=[64])\n"
              "    return out\n",
              "f", "InvalidOperationError", "pl.load: valid_shape has 1 entries for a rank-2 tile", 7, 55);
}

static void test_load_target_memory_must_be_a_mem_member(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    with pl.at(level=pl.Level.CORE_GROUP):\n"
              "        t = pl.load(a, [0, 0], [64, 128])\n"
              "        u = pl.load(a, [0, 0], [64, 128], target_memory=3)\n"
              "    return out\n",
              "f", "ParserTypeError", "pl.load target_memory= must be a pl.Mem member", 7, 57);
}

static void test_load_unknown_keyword_is_type_error(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    with pl.at(level=pl.Level.CORE_GROUP):\n"
              "        t = pl.load(a, [0, 0], [64, 128])\n"
              "        u = pl.load(a, [0, 0], [64, 128], foo=1)\n"
              "    return out\n",
              "f", "ParserTypeError", "pl.load() got an unexpected keyword argument 'foo'", 7, 43);
}

static void test_cast_mode_unknown_is_syntax_error(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    with pl.at(level=pl.Level.CORE_GROUP):\n"
              "        t = pl.load(a, [0, 0], [64, 128])\n"
              "        u = pl.cast(t, pl.INT32, mode=\"odd\")\n"
              "        v = pl.cast(t, pl.INT32, mode=\"none\")\n"
              "        w = pl.cast(t, pl.INT32, mode=\"bogus\")\n"
              "    return out\n",
              "f", "ParserSyntaxError", "pl.cast mode must be one of 'round', 'rint', 'floor', 'ceil', 'trunc', 'odd', 'none'", 9, 39);
}

static void test_matmul_mixed_dtypes_is_type_error(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    with pl.at(level=pl.Level.CORE_GROUP):\n"
              "        t = pl.load(a, [0, 0], [64, 128])\n"
              "        u = pl.matmul(t, pl.cast(pl.load(a, [0, 0], [128, 64]), pl.FP16))\n"
              "    return out\n",
              "f", "ParserTypeError", "pl.matmul: operand dtypes FP32 and FP16 differ; insert pl.cast", 7, 13);
}

static void test_matmul_int32_operands_is_type_error(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    with pl.at(level=pl.Level.CORE_GROUP):\n"
              "        t = pl.load(a, [0, 0], [64, 128])\n"
              "        v = pl.cast(t, pl.INT32)\n"
              "        u = pl.matmul(pl.cast(pl.load(a, [0, 0], [64, 64]), pl.INT32), pl.cast(pl.load(a, [0, 0], [64, 64]), pl.INT32))\n"
              "    return out\n",
              "f", "ParserTypeError", "pl.matmul takes FP32, FP16, BF16, INT8 or UINT8 operands, got INT32", 8, 13);
}

/* init_value= is an int or float scalar, and a float only for a float tensor. */
static void test_create_tensor_init_value_must_fit_the_dtype(void **s)
{
    (void)s;
    DSL_ERROR("import pypto.language as pl\n\n@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
               "    x = pl.create_tensor([64, 64], pl.INT32, init_value=1.5)\n    return out\n",
               "f", "ParserTypeError", "pl.create_tensor: a float init_value= for an INT32 tensor; pass an int", 5, 57);
    DSL_ERROR("import pypto.language as pl\n\n@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
               "    x = pl.create_tensor([64, 64], pl.FP32, init_value=True)\n    return out\n",
               "f", "ParserTypeError", "pl.create_tensor init_value= must be an int or float scalar", 5, 56);
}

static void test_create_tensor_empty_shape_is_invalid_op(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    x = pl.create_tensor([], pl.FP32)\n"
              "    return out\n",
              "f", "InvalidOperationError", "pl.create_tensor: the shape needs 1 to 4 entries", 5, 26);
}

static void test_create_tensor_index_dtype_is_type_error(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    x = pl.create_tensor([64, 64], pl.INDEX)\n"
              "    return out\n",
              "f", "ParserTypeError", "a tensor dtype must be FP32, FP16, BF16, INT64, INT32, INT16, INT8, UINT32, UINT16, UINT8 or BOOL", 5, 36);
}

static void test_create_tensor_layout_other_than_nd_is_unsupported(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    x = 1\n"
              "    y = x < 2 and x > 0\n"
              "    z = pl.create_tensor([64, 64], pl.FP32, pl.ND)\n"
              "    w = pl.create_tensor([64, 64], pl.FP32, 5)\n"
              "    return out\n",
              "f", "UnsupportedFeatureError", "a layout other than pl.ND is not supported in this version", 8, 45);
}

static void test_create_tensor_in_kernel_code_with_manual_dep_is_invalid_op(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    with pl.at(level=pl.Level.CORE_GROUP):\n"
              "        t = pl.load(a, [0, 0], [64, 128])\n"
              "        x = pl.create_tensor([64, 64], pl.FP32, manual_dep=True)\n"
              "    return out\n",
              "f", "InvalidOperationError", "pl.create_tensor(manual_dep=...) is not allowed in kernel code", 7, 60);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_load_of_a_value_that_is_no_tensor_names_its_type),
    cmocka_unit_test(test_store_offsets_not_a_list_is_type_error),
    cmocka_unit_test(test_store_of_a_scalar_expects_a_tile),
    cmocka_unit_test(test_load_valid_shape_rank_mismatch_is_invalid_op),
    cmocka_unit_test(test_load_target_memory_must_be_a_mem_member),
    cmocka_unit_test(test_load_unknown_keyword_is_type_error),
    cmocka_unit_test(test_cast_mode_unknown_is_syntax_error),
    cmocka_unit_test(test_matmul_mixed_dtypes_is_type_error),
    cmocka_unit_test(test_matmul_int32_operands_is_type_error),
    cmocka_unit_test(test_create_tensor_init_value_must_fit_the_dtype),
    cmocka_unit_test(test_create_tensor_empty_shape_is_invalid_op),
    cmocka_unit_test(test_create_tensor_index_dtype_is_type_error),
    cmocka_unit_test(test_create_tensor_layout_other_than_nd_is_unsupported),
    cmocka_unit_test(test_create_tensor_in_kernel_code_with_manual_dep_is_invalid_op),
};

PTO_TEST_MAIN(tests)
