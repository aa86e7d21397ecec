/*
 * test_decorator_rules.c - decorators and entries (docs/dsl.md,
 * "Decorators and function kinds"): the @pl.jit variants, @pl.function
 * inside @pl.program only, its level= for InCore functions only,
 * auto_scope= a bool (also from a module constant), and that only a
 * @pl.jit entry is called directly.
 *
 * Invariants: one test per rule; each compiles a small program through
 * pto_compile and checks the first error's class, message and line:column,
 * or lines of the printed program.
 */
#include <stdio.h>

#include "harness.h"
#include "dsl_compile.h"

static void test_jit_auto_scope_int_is_type_error(void **s)
{
    (void)s;
    DSL_ERROR("import pypto.language as pl\n"
              "\n"
              "@pl.jit(auto_scope=3)\n"
              "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
              "    return out\n",
              "f", "TypeError", "auto_scope must be a bool, got int", 3, 20);
}

/* DSL-V2-SPEC §2 F-sa: a module-level @pl.function is a standalone function, never an entry. */
static void test_f_sa_standalone_function_is_not_an_entry(void **s)
{
    (void)s;
    DSL_ERROR("import pypto.language as pl\n"
              "\n"
              "@pl.function\n"
              "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
              "    return out\n",
              "f", "TypeError", "@pl.function function 'f' cannot be called directly; call it from a @pl.program method or a @pl.jit entry", 3, 1);
}

static void test_jit_unknown_variant_is_unsupported(void **s)
{
    (void)s;
    DSL_ERROR("import pypto.language as pl\n"
              "\n"
              "@pl.jit.foo\n"
              "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
              "    return out\n",
              "f", "UnsupportedFeatureError", "@pl.jit.foo is not supported in this version", 3, 2);
}

static void test_function_level_on_orchestration_is_syntax_error(void **s)
{
    (void)s;
    DSL_ERROR("import pypto.language as pl\n"
              "\n"
              "@pl.program\n"
              "class P:\n"
              "    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CORE_GROUP)\n"
              "    def f(self, a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
              "        return out\n",
              "P", "ParserSyntaxError", "@pl.function(level=...) applies to InCore functions only", 5, 54);
}

static void test_function_level_host_is_unsupported(void **s)
{
    (void)s;
    DSL_ERROR("import pypto.language as pl\n"
              "\n"
              "@pl.program\n"
              "class P:\n"
              "    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.HOST)\n"
              "    def k(self, a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
              "        return out\n"
              "    @pl.function(type=pl.FunctionType.Orchestration)\n"
              "    def f(self, a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
              "        out = self.k(a, out)\n"
              "        return out\n",
              "P", "UnsupportedFeatureError", "@pl.function(level=pl.Level.HOST) is not supported in this version", 5, 53);
}

static void test_jit_auto_scope_from_a_module_constant(void **s)
{
    (void)s;
    static const char *const want[] = {"auto_scope=False)", "with pl.scope():", NULL};
    dsl_expect_compiles_containing("import pypto.language as pl\n\nFLAG = False\n@pl.jit(auto_scope=FLAG)\n"
                     "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n    with pl.scope():\n        pass\n    return out\n",
                     NULL, 0, want);
}

/* A decorator's auto_scope= must be a bool; the message names the Python
 * type it got. */
static void test_jit_auto_scope_non_bool_names_the_python_type(void **s)
{
    (void)s;
    static const char *const values[] = {"1.5", "None", "[1]", "(1, 2)"};
    static const char *const types[] = {"float", "NoneType", "list", "tuple"};
    for (int k = 0; k < 4; k++) {
        char src[256], msg[64];
        snprintf(src, sizeof src, "import pypto.language as pl\n\n@pl.jit(auto_scope=%s)\n"
                                  "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n    return out\n", values[k]);
        snprintf(msg, sizeof msg, "auto_scope must be a bool, got %s", types[k]);
        DSL_ERROR(src, "f", "TypeError", msg, 3, 20);
    }
}

static void test_incore_function_as_entry_is_type_error(void **s)
{
    (void)s;
    DSL_ERROR("import pypto.language as pl\n"
              "\n"
              "@pl.jit.incore\n"
              "def k(x: pl.Tensor, y: pl.Out[pl.Tensor]):\n"
              "    pl.store(pl.load(x, [0, 0], [64, 128]), [0, 0], y)\n"
              "    return y\n"
              "@pl.jit.inline\n"
              "def g(x: pl.Tensor, y: pl.Out[pl.Tensor]):\n"
              "    return y\n",
              "k", "TypeError", "@pl.jit.incore function 'k' cannot be called directly; call it from a @pl.jit entry", 3, 1);
}

static void test_inline_function_as_entry_is_type_error(void **s)
{
    (void)s;
    DSL_ERROR("import pypto.language as pl\n"
              "\n"
              "@pl.jit.incore\n"
              "def k(x: pl.Tensor, y: pl.Out[pl.Tensor]):\n"
              "    pl.store(pl.load(x, [0, 0], [64, 128]), [0, 0], y)\n"
              "    return y\n"
              "@pl.jit.inline\n"
              "def g(x: pl.Tensor, y: pl.Out[pl.Tensor]):\n"
              "    return y\n",
              "g", "TypeError", "@pl.jit.inline function 'g' cannot be called directly; call it from a @pl.jit entry", 7, 1);
}

static void test_opaque_function_as_entry_is_type_error(void **s)
{
    (void)s;
    DSL_ERROR("import pypto.language as pl\n"
              "\n"
              "@pl.jit.opaque\n"
              "def g(x: pl.Tensor, y: pl.Out[pl.Tensor]):\n"
              "    return y\n",
              "g", "TypeError", "@pl.jit.opaque function 'g' cannot be called directly; call it from a @pl.jit entry", 3, 1);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_jit_auto_scope_int_is_type_error),
    cmocka_unit_test(test_f_sa_standalone_function_is_not_an_entry),
    cmocka_unit_test(test_jit_unknown_variant_is_unsupported),
    cmocka_unit_test(test_function_level_on_orchestration_is_syntax_error),
    cmocka_unit_test(test_function_level_host_is_unsupported),
    cmocka_unit_test(test_jit_auto_scope_from_a_module_constant),
    cmocka_unit_test(test_jit_auto_scope_non_bool_names_the_python_type),
    cmocka_unit_test(test_incore_function_as_entry_is_type_error),
    cmocka_unit_test(test_inline_function_as_entry_is_type_error),
    cmocka_unit_test(test_opaque_function_as_entry_is_type_error),
};

PTO_TEST_MAIN(tests)
