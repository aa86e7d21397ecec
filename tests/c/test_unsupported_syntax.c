/*
 * test_unsupported_syntax.c - Python the DSL does not take (docs/dsl.md,
 * "Not in this version"): subscripts, attributes of a tensor and as
 * assignment targets, positional-only parameters, `...`, f-strings, bytes,
 * `yield`, `*` unpacking in a call, `del` and `assert` in kernel code.
 *
 * Invariants: one test per construct; each is an UnsupportedFeatureError
 * at the construct's line:column with the exact message.
 */
#include "harness.h"
#include "dsl_compile.h"

static void test_subscript_is_unsupported(void **s)
{
    (void)s; /* a subscript of anything but a Tensor or tile */
    DSL_ERROR(DSL_F_HEADER
              "    x = 3\n"
              "    y = x[0]\n"
              "    return out\n",
              "f", "UnsupportedFeatureError", "a subscript is not supported in this version", 6, 9);
}

static void test_attribute_of_a_tensor_is_unsupported(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    x = a.shape\n"
              "    return out\n",
              "f", "UnsupportedFeatureError", "attribute '.shape' is not supported in this version", 5, 9);
}

static void test_attribute_assignment_target_is_unsupported(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    a.x = 1\n"
              "    return out\n",
              "f", "UnsupportedFeatureError", "this assignment target is not supported in this version", 5, 5);
}

static void test_positional_only_parameters_are_unsupported(void **s)
{
    (void)s;
    DSL_ERROR("import pypto.language as pl\n"
              "\n"
              "@pl.jit\n"
              "def f(a: pl.Tensor, /, out: pl.Out[pl.Tensor]):\n"
              "    return out\n",
              "f", "UnsupportedFeatureError", "Python 'positional-only parameters' is not supported in kernel code", 4, 21);
}

static void test_ellipsis_is_unsupported(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    x = ...\n"
              "    return out\n",
              "f", "UnsupportedFeatureError", "'...' is not supported in this version", 5, 9);
}

static void test_f_string_is_unsupported(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    x = f'{a}'\n"
              "    return out\n",
              "f", "UnsupportedFeatureError", "an f-string is not supported in this version", 5, 9);
}

static void test_bytes_literal_is_unsupported(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    x = b'ab'\n"
              "    return out\n",
              "f", "UnsupportedFeatureError", "a bytes literal is not supported in this version", 5, 9);
}

static void test_yield_expression_is_unsupported(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    x = yield 1\n"
              "    return out\n",
              "f", "UnsupportedFeatureError", "Python 'yield' is not supported in kernel code", 5, 9);
}

static void test_star_argument_unpacking_is_unsupported(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    x = max(*a)\n"
              "    return out\n",
              "f", "UnsupportedFeatureError", "'*' argument unpacking is not supported in this version", 5, 13);
}

static void test_del_in_kernel_code_is_unsupported(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    with pl.at(level=pl.Level.CORE_GROUP):\n"
              "        t = pl.load(a, [0, 0], [64, 128])\n"
              "        del t\n"
              "    return out\n",
              "f", "UnsupportedFeatureError", "Python 'del' is not supported in kernel code", 7, 9);
}

static void test_assert_in_kernel_code_is_unsupported(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    with pl.at(level=pl.Level.CORE_GROUP):\n"
              "        t = pl.load(a, [0, 0], [64, 128])\n"
              "        assert t\n"
              "    return out\n",
              "f", "UnsupportedFeatureError", "Python 'assert' is not supported in kernel code", 7, 9);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_subscript_is_unsupported),
    cmocka_unit_test(test_attribute_of_a_tensor_is_unsupported),
    cmocka_unit_test(test_attribute_assignment_target_is_unsupported),
    cmocka_unit_test(test_positional_only_parameters_are_unsupported),
    cmocka_unit_test(test_ellipsis_is_unsupported),
    cmocka_unit_test(test_f_string_is_unsupported),
    cmocka_unit_test(test_bytes_literal_is_unsupported),
    cmocka_unit_test(test_yield_expression_is_unsupported),
    cmocka_unit_test(test_star_argument_unpacking_is_unsupported),
    cmocka_unit_test(test_del_in_kernel_code_is_unsupported),
    cmocka_unit_test(test_assert_in_kernel_code_is_unsupported),
};

PTO_TEST_MAIN(tests)
