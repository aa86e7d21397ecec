/*
 * test_annotation_rules.c - type annotations (docs/dsl.md, "Annotations"):
 * shaped tensors (dims and dtype, rank, positive and constant dimensions,
 * tensor dtypes), dtypes of a later version, annotated locals whose value
 * does not have or fit the annotated type, pl.Tile, pl.TaskId and tuple
 * dimensions.
 *
 * Invariants: one test per rule; each compiles a small program through
 * pto_compile and checks the first error's class, message and line:column,
 * or lines of the printed program.
 */
#include "harness.h"
#include "dsl_compile.h"

static void test_later_dtype_in_tensor_annotation_is_unsupported(void **s)
{
    (void)s;
    DSL_ERROR("import pypto.language as pl\n"
              "\n"
              "@pl.jit\n"
              "def f(a: pl.Tensor[[256, 128], pl.UINT64], out: pl.Out[pl.Tensor]):\n"
              "    return out\n",
              "f", "UnsupportedFeatureError", "dtype pl.UINT64 is not supported in this version", 4, 32);
}

static void test_later_dtype_in_scalar_annotation_is_unsupported(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    x: pl.Scalar[pl.UINT64] = 1\n"
              "    return out\n",
              "f", "UnsupportedFeatureError", "dtype pl.UINT64 is not supported in this version", 5, 18);
}

static void test_shaped_tensor_annotation_needs_dims_and_dtype(void **s)
{
    (void)s;
    DSL_ERROR("import pypto.language as pl\n"
              "\n"
              "@pl.jit\n"
              "def f(a: pl.Tensor[[256], pl.FP32, 3], out: pl.Out[pl.Tensor]):\n"
              "    return out\n",
              "f", "ParserTypeError", "a shaped tensor annotation reads pl.Tensor[[d0, d1, ...], dtype]", 4, 10);
}

static void test_tensor_annotation_rank_above_four_is_type_error(void **s)
{
    (void)s;
    DSL_ERROR("import pypto.language as pl\n"
              "\n"
              "@pl.jit\n"
              "def f(a: pl.Tensor[[1, 2, 3, 4, 5], pl.FP32], out: pl.Out[pl.Tensor]):\n"
              "    return out\n",
              "f", "ParserTypeError", "tensor rank must be 1 to 4, got 5", 4, 20);
}

static void test_tensor_annotation_zero_dimension_is_type_error(void **s)
{
    (void)s;
    DSL_ERROR("import pypto.language as pl\n"
              "\n"
              "@pl.jit\n"
              "def f(a: pl.Tensor[[0, 128], pl.FP32], out: pl.Out[pl.Tensor]):\n"
              "    return out\n",
              "f", "ParserTypeError", "tensor dimension 0 must be positive, got 0", 4, 21);
}

static void test_tensor_annotation_index_dtype_is_type_error(void **s)
{
    (void)s;
    DSL_ERROR("import pypto.language as pl\n"
              "\n"
              "@pl.jit\n"
              "def f(a: pl.Tensor[[256, 128], pl.INDEX], out: pl.Out[pl.Tensor]):\n"
              "    return out\n",
              "f", "ParserTypeError", "a tensor dtype must be FP32, FP16, BF16, INT64, INT32, INT16, INT8, UINT32, UINT16, UINT8 or BOOL", 4, 32);
}

static void test_tensor_annotation_float_dimension_is_not_constant(void **s)
{
    (void)s;
    DSL_ERROR("import pypto.language as pl\n"
              "\n"
              "@pl.jit\n"
              "def f(a: pl.Tensor[[256, 1.5], pl.FP32], out: pl.Out[pl.Tensor]):\n"
              "    return out\n",
              "f", "ParserTypeError", "tensor annotation shapes must be compile-time constants", 4, 26);
}

static void test_annotated_assignment_of_other_type_is_type_error(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    with pl.at(level=pl.Level.CORE_GROUP):\n"
              "        t = pl.load(a, [0, 0], [64, 128])\n"
              "        x: pl.Scalar[pl.INT32] = t\n"
              "    return out\n",
              "f", "ParserTypeError", "'x' is annotated pl.Scalar[pl.INT32] but assigned pl.Tile[[64, 128], pl.FP32]", 7, 12);
}

static void test_scalar_annotation_of_a_float_value_is_type_error(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    x: pl.Scalar[pl.INT32] = 1.5\n"
              "    return out\n",
              "f", "ParserTypeError", "'x' = 1.5 does not fit pl.INT32", 5, 30);
}

static void test_tile_annotation_mismatch(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    with pl.at(level=pl.Level.CORE_GROUP):\n"
              "        t = pl.load(a, [0, 0], [64, 128])\n"
              "        x: pl.Tile[[64, 64], pl.FP32] = t\n"
              "    return out\n",
              "f", "ParserTypeError", "annotation pl.Tile[[64, 64], pl.FP32] does not match the value's type pl.Tile[[64, 128], pl.FP32]", 7, 12);
}

/* a pl.TaskId-annotated copy of a task id, and a shaped annotation with tuple dims */
static void test_task_id_annotation_and_tuple_dims_are_accepted(void **s)
{
    (void)s;
    static const char *const want[] = {"tid = pl.submit(self.f_incore_0, a, out)", "            x = tid", NULL};
    dsl_expect_compiles_containing("import pypto.language as pl\n"
                     "\n"
                     "@pl.jit\n"
                     "def f(a: pl.Tensor[(256, 128), pl.FP32], out: pl.Out[pl.Tensor]):\n"
                     "    with pl.at(level=pl.Level.CORE_GROUP) as tid:\n"
                     "        pl.store(pl.load(a, [0, 0], [64, 128]), [0, 0], out)\n"
                     "    x: pl.TaskId = tid\n"
                     "    return out\n",
                    NULL, 0, want);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_later_dtype_in_tensor_annotation_is_unsupported),
    cmocka_unit_test(test_later_dtype_in_scalar_annotation_is_unsupported),
    cmocka_unit_test(test_shaped_tensor_annotation_needs_dims_and_dtype),
    cmocka_unit_test(test_tensor_annotation_rank_above_four_is_type_error),
    cmocka_unit_test(test_tensor_annotation_zero_dimension_is_type_error),
    cmocka_unit_test(test_tensor_annotation_index_dtype_is_type_error),
    cmocka_unit_test(test_tensor_annotation_float_dimension_is_not_constant),
    cmocka_unit_test(test_annotated_assignment_of_other_type_is_type_error),
    cmocka_unit_test(test_scalar_annotation_of_a_float_value_is_type_error),
    cmocka_unit_test(test_tile_annotation_mismatch),
    cmocka_unit_test(test_task_id_annotation_and_tuple_dims_are_accepted),
};

PTO_TEST_MAIN(tests)
