/*
 * test_name_rules.c - what a name may stand for in kernel code (docs/dsl.md,
 * "Expressions"): None is no value, an unknown name is undefined, and a
 * local scalar or a module constant is not callable.
 *
 * Invariants: one test per rule; each compiles a small program through
 * pto_compile and checks the first error's class, message and line:column.
 */
#include "harness.h"
#include "dsl_compile.h"

static void test_none_is_not_a_kernel_value(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    x = None\n"
              "    return out\n",
              "f", "ParserTypeError", "None is not a value in kernel code", 5, 9);
}

static void test_call_of_unknown_name_is_undefined(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    x = foo(1)\n"
              "    return out\n",
              "f", "UndefinedVariableError", "name 'foo' is not defined", 5, 9);
}

static void test_call_of_a_local_scalar_is_not_callable(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    x = 1\n"
              "    y = x(2)\n"
              "    return out\n",
              "f", "ParserTypeError", "'x' is not callable", 6, 9);
}

static void test_call_of_a_module_constant_is_not_callable(void **s)
{
    (void)s;
    DSL_ERROR("import pypto.language as pl\n"
              "\n"
              "K = 3\n"
              "@pl.jit\n"
              "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
              "    y = K(2)\n"
              "    return out\n",
              "f", "ParserTypeError", "'K' is not callable", 6, 9);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_none_is_not_a_kernel_value),
    cmocka_unit_test(test_call_of_unknown_name_is_undefined),
    cmocka_unit_test(test_call_of_a_local_scalar_is_not_callable),
    cmocka_unit_test(test_call_of_a_module_constant_is_not_callable),
};

PTO_TEST_MAIN(tests)
