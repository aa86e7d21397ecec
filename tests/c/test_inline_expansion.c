/*
 * test_inline_expansion.c - Inline functions spliced into kernel code
 * (docs/dsl.md, "Decorators and function kinds"): a body with loops and
 * branches, a scalar result folded into a region, and calls nested in
 * unary, list, op and call arguments, each bound to its own value name
 * before the statement.
 *
 * Invariants: one test per rule; each compiles a program through lowering
 * and checks lines of the printed program (the spliced statements and the
 * regions of the kernel they landed in).
 */
#include "harness.h"
#include "dsl_compile.h"

/* an inline function with a while loop and an if/else, called in a kernel loop: its body is expanded in place and the region covers every iteration of both branches */
static void test_inline_function_with_loops_and_branches_is_expanded_into_the_kernel(void **s)
{
    (void)s;
    static const char *const want[] = {"# a: In [0:256, 0:128]; out: Out [0:256, 0:128]", "            while k < 1:", "                t = pl.load(a, [-(0 - i) * 64, 0], [64, 128]", NULL};
    dsl_expect_compiles_containing("import pypto.language as pl\n"
                     "\n"
                     "@pl.jit.inline\n"
                     "def body(x: pl.Tensor, y: pl.Out[pl.Tensor], i: pl.Scalar[pl.INDEX]):\n"
                     "    k = 0\n"
                     "    while k < 1:\n"
                     "        k = k + 1\n"
                     "    if i > 0:\n"
                     "        t = pl.load(x, [-(0 - i) * 64, 0], [64, 128])\n"
                     "        pl.store(t, [i * 64, 0], y)\n"
                     "    else:\n"
                     "        t = pl.load(x, [0, 0], [64, 128])\n"
                     "        pl.store(t, [0, 0], y)\n"
                     "    return y\n"
                     "@pl.jit\n"
                     "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                     "    with pl.at(level=pl.Level.CORE_GROUP):\n"
                     "        for i in pl.range(4):\n"
                     "            body(a, out, i)\n"
                     "    return out\n",
                    NULL, 0, want);
}

/* an inline function returning n * 2 with n = 3: the kernel's offset folds to a constant region */
static void test_inline_function_returning_a_scalar_folds_into_the_region(void **s)
{
    (void)s;
    static const char *const want[] = {"# a: In [192:256, 0:128]; out: Out [0:64, 0:128]", "        m = 6", NULL};
    dsl_expect_compiles_containing("import pypto.language as pl\n"
                     "\n"
                     "@pl.jit.inline\n"
                     "def two(x: pl.Tensor, n: pl.Scalar[pl.INDEX]):\n"
                     "    return n * 2\n"
                     "@pl.jit\n"
                     "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                     "    with pl.at(level=pl.Level.CORE_GROUP):\n"
                     "        m = two(a, 3)\n"
                     "        t = pl.load(a, [m * 32, 0], [64, 128])\n"
                     "        pl.store(t, [0, 0], out)\n"
                     "    return out\n",
                    NULL, 0, want);
}

/* an inline function called under unary minus and inside an offset list: each call expands to its own value name before the statement */
static void test_inline_calls_inside_unary_and_list_expressions_expand(void **s)
{
    (void)s;
    static const char *const want[] = {"        two_value = 6\n        m = -two_value\n", "two_value_1 = 2", "# a: In [64:128, 0:128]; out: Out [0:64, 0:128]", NULL};
    dsl_expect_compiles_containing("import pypto.language as pl\n"
                     "\n"
                     "@pl.jit.inline\n"
                     "def two(x: pl.Tensor, n: pl.Scalar[pl.INDEX]):\n"
                     "    return n * 2\n"
                     "@pl.jit\n"
                     "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                     "    with pl.at(level=pl.Level.CORE_GROUP):\n"
                     "        m = -two(a, 3)\n"
                     "        t = pl.load(a, [two(a, 1) * 32, 0], [64, 128])\n"
                     "        pl.store(t, [m + 6, 0], out)\n"
                     "    return out\n",
                    NULL, 0, want);
}

/* inline calls as a tile op's operand and as another inline call's argument: both expand before the statement, and the region covers both stores */
static void test_inline_calls_inside_op_and_call_arguments_expand(void **s)
{
    (void)s;
    static const char *const want[] = {"two_value = 4\n        pl.store(pl.mul(t, two_value), [0, 0], out)", "two_value_1 = 2", "# a: In [0:96, 0:128]; out: Out [0:96, 0:128]", NULL};
    dsl_expect_compiles_containing("import pypto.language as pl\n"
                     "\n"
                     "@pl.jit.inline\n"
                     "def two(x: pl.Tensor, n: pl.Scalar[pl.INDEX]):\n"
                     "    return n * 2\n"
                     "@pl.jit.inline\n"
                     "def put(x: pl.Tensor, y: pl.Out[pl.Tensor], r: pl.Scalar[pl.INDEX]):\n"
                     "    pl.store(pl.load(x, [r * 32, 0], [32, 128]), [r * 32, 0], y)\n"
                     "    return y\n"
                     "@pl.jit\n"
                     "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                     "    with pl.at(level=pl.Level.CORE_GROUP):\n"
                     "        t = pl.load(a, [0, 0], [64, 128])\n"
                     "        pl.store(pl.mul(t, two(a, 2)), [0, 0], out)\n"
                     "        put(a, out, two(a, 1))\n"
                     "    return out\n",
                    NULL, 0, want);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_inline_function_with_loops_and_branches_is_expanded_into_the_kernel),
    cmocka_unit_test(test_inline_function_returning_a_scalar_folds_into_the_region),
    cmocka_unit_test(test_inline_calls_inside_unary_and_list_expressions_expand),
    cmocka_unit_test(test_inline_calls_inside_op_and_call_arguments_expand),
};

PTO_TEST_MAIN(tests)
