/*
 * test_constant_rules.c - compile-time values (docs/dsl.md, "Expressions"):
 * module constants (a cycle, an assignment that defines none), constants
 * the caller passes in pto_compile_options, scalar folding (float
 * arithmetic, a constant division by zero), and lists and strings bound to
 * a name, which have no register.
 *
 * Invariants: one test per rule; each compiles a small program through
 * pto_compile and checks the first error's class, message and line:column,
 * the printed program or the listing.
 */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "dsl_compile.h"

static void test_module_constant_defined_by_itself_is_type_error(void **s)
{
    (void)s;
    DSL_ERROR("import pypto.language as pl\n"
              "\n"
              "K = K + 1\n"
              "@pl.jit\n"
              "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
              "    with pl.at(level=pl.Level.CORE_GROUP):\n"
              "        t = pl.load(a, [0, 0], [64, 128])\n"
              "        pl.store(pl.mul(t, K), [0, 0], out)\n"
              "    return out\n",
              "f", "ParserTypeError", "module constant 'K' is defined in terms of itself", 3, 5);
}

static void test_module_assignment_of_a_comparison_defines_no_constant(void **s)
{
    (void)s;
    DSL_ERROR("import pypto.language as pl\n"
              "\n"
              "K = 1 < 2\n"
              "@pl.jit\n"
              "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
              "    x = K + 1\n"
              "    return out\n",
              "f", "UndefinedVariableError", "name 'K' is not defined", 6, 9);
}

/* Constants the caller resolved (Python closures and globals) enter
 * kernel code as literals of their kind: int, float and bool. */
static void test_option_constants_of_every_kind_become_literals(void **s)
{
    (void)s;
    static const pto_constant consts[] = {
        {"SCALE", {.kind = PTO_VALUE_FLOAT, .f = 0.5}},
        {"ROWS", {.kind = PTO_VALUE_INT, .i = 64}},
        {"FLAG", {.kind = PTO_VALUE_BOOL, .i = 7}},
    };
    static const char *const want[] = {"x = 0.5\n", "y = True\n", "[64, 128]", NULL};
    dsl_expect_compiles_containing("import pypto.language as pl\n\n@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                     "    x = SCALE\n    y = FLAG\n"
                     "    with pl.at(level=pl.Level.CORE_GROUP):\n        t = pl.load(a, [0, 0], [ROWS, 128])\n"
                     "        pl.store(pl.mul(t, x), [0, 0], out)\n    return out\n",
                     consts, 3, want);
}

static void test_constant_floor_division_by_zero_is_invalid_op(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    n = 7 // 0\n"
              "    return out\n",
              "f", "InvalidOperationError", "integer division or modulo by zero", 5, 14);
}

static void test_scalar_float_arithmetic_folds_to_a_constant(void **s)
{
    (void)s;
    static const char *const want[] = {"n = 5.0\n", "m = 3.0\n", "k = -2.5\n", NULL};
    dsl_expect_compiles_containing("import pypto.language as pl\n\n@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                     "    n = 2.0 + 3\n    m = 1.5 * 2.0\n    k = -2.5\n"
                     "    with pl.at(level=pl.Level.CORE_GROUP):\n        t = pl.load(a, [0, 0], [64, 128])\n"
                     "        pl.store(pl.add(pl.mul(t, n), m + k), [0, 0], out)\n    return out\n",
                     NULL, 0, want);
}

/* Regression: a list, tuple or str bound to a name reached lowering as an
 * internal compiler error; it is a compile-time value with no register and
 * lowers to nothing. */
static void expect_binding_lowers_to_nothing(const char *src, const pto_constant *consts, size_t nconsts)
{
    pto_compile_options o = {.filename = "k.py", .source = src, .source_len = strlen(src), .entry = "f",
                             .args = dsl_default_args, .nargs = 3, .constants = consts, .nconstants = nconsts,
                             .stop_after = PTO_STAGE_LOWER};
    pto_program *p = NULL;
    assert_true(pto_compile(&o, &p) >= 0);
    dsl_expect_ok(p);
    const char *l = pto_program_listing(p);
    if (strstr(l, " z ")) fprintf(stderr, "z has a register:\n%s\n", l);
    assert_null(strstr(l, " z "));
    assert_non_null(strstr(l, "SUBMIT"));
    pto_program_free(p);
}

static void test_binding_a_list_to_a_name_lowers_to_nothing(void **s)
{
    (void)s;
    expect_binding_lowers_to_nothing("import pypto.language as pl\n\n@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                                     "    z = [0, 0]\n    with pl.at(level=pl.Level.CORE_GROUP):\n        w = (64, 128)\n"
                                     "        pl.store(pl.load(a, [0, 0], [64, 128]), [0, 0], out)\n    return out\n",
                                     NULL, 0);
}

static void test_binding_a_string_to_a_name_lowers_to_nothing(void **s)
{
    (void)s;
    static const pto_constant label = {"LABEL", {.kind = PTO_VALUE_STR, .s = "tag"}};
    expect_binding_lowers_to_nothing("import pypto.language as pl\n\n@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                                     "    x, z = 1, LABEL\n    with pl.at(level=pl.Level.CORE_GROUP):\n        w = \"tag\"\n"
                                     "        pl.store(pl.load(a, [0, 0], [64, 128]), [0, 0], out)\n    return out\n",
                                     &label, 1);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_module_constant_defined_by_itself_is_type_error),
    cmocka_unit_test(test_module_assignment_of_a_comparison_defines_no_constant),
    cmocka_unit_test(test_option_constants_of_every_kind_become_literals),
    cmocka_unit_test(test_constant_floor_division_by_zero_is_invalid_op),
    cmocka_unit_test(test_scalar_float_arithmetic_folds_to_a_constant),
    cmocka_unit_test(test_binding_a_list_to_a_name_lowers_to_nothing),
    cmocka_unit_test(test_binding_a_string_to_a_name_lowers_to_nothing),
};

PTO_TEST_MAIN(tests)
