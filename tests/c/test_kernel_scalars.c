/*
 * test_kernel_scalars.c - the orchestration scalars an outlined kernel
 * reads (docs/dsl.md, "`with pl.at(...)`"): a loop counter becomes a
 * kernel parameter, the value at the call is what the kernel gets, and a
 * name must be assigned on every path before the kernel reads it.
 *
 * Invariants: one test per rule; each compiles a program through lowering
 * and checks the printed call (its scalar arguments and regions) or the
 * first error's class, message and line:column.
 */
#include "harness.h"
#include "dsl_compile.h"

/* a while loop's counter, read by the kernel, is passed as a scalar and bounds the regions */
static void test_while_loop_variable_becomes_a_kernel_scalar(void **s)
{
    (void)s;
    static const char *const want[] = {"while n < 4:", "self.f_incore_0(a, out, n)  # a: In [n*64:n*64+64, 0:128]", "n: pl.Scalar[pl.INDEX]", NULL};
    dsl_expect_compiles_containing(DSL_F_HEADER
                     "    n = 0\n"
                     "    while n < 4:\n"
                     "        with pl.at(level=pl.Level.CORE_GROUP):\n"
                     "            t = pl.load(a, [n * 64, 0], [64, 128])\n"
                     "            pl.store(t, [n * 64, 0], out)\n"
                     "        n = n + 1\n"
                     "    return out\n",
                    NULL, 0, want);
}

/* a scalar the kernel reads and the scope reassigns afterwards: the call passes the value it has at the call */
static void test_scalar_read_by_a_kernel_is_passed_before_its_reassignment(void **s)
{
    (void)s;
    static const char *const want[] = {"self.f_incore_0(a, out, m)  # a: In [m*64:m*64+64, 0:128]", "            m = 3", NULL};
    dsl_expect_compiles_containing("import pypto.language as pl\n"
                     "\n"
                     "@pl.jit(auto_scope=False)\n"
                     "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                     "    m = 2\n"
                     "    with pl.scope():\n"
                     "        with pl.at(level=pl.Level.CORE_GROUP):\n"
                     "            t = pl.load(a, [m * 64, 0], [64, 128])\n"
                     "            pl.store(t, [m * 64, 0], out)\n"
                     "        m = 3\n"
                     "    return out\n",
                    NULL, 0, want);
}

/* a scalar assigned in both branches of an if is bound after it and passed to the kernel */
static void test_name_assigned_in_both_branches_is_bound_after_the_if(void **s)
{
    (void)s;
    static const char *const want[] = {"self.f_incore_0(a, out, m)  # a: In [m*64:m*64+64, 0:128]; out: Out [m*64:m*64+64, 0:128]", NULL};
    dsl_expect_compiles_containing(DSL_F_HEADER
                     "    n = 1\n"
                     "    if n > 0:\n"
                     "        m = 2\n"
                     "    else:\n"
                     "        m = 3\n"
                     "    with pl.at(level=pl.Level.CORE_GROUP):\n"
                     "        t = pl.load(a, [m * 64, 0], [64, 128])\n"
                     "        pl.store(t, [m * 64, 0], out)\n"
                     "    return out\n",
                    NULL, 0, want);
}

static void test_name_assigned_in_one_branch_only_may_be_unbound(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    n = 1\n"
              "    if n > 0:\n"
              "        m = 2\n"
              "    with pl.at(level=pl.Level.CORE_GROUP):\n"
              "        t = pl.load(a, [m * 64, 0], [64, 128])\n"
              "        pl.store(t, [0, 0], out)\n"
              "    return out\n",
              "f", "UndefinedVariableError", "'m' may be used before assignment (assigned only in some branches)", 9, 25);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_while_loop_variable_becomes_a_kernel_scalar),
    cmocka_unit_test(test_scalar_read_by_a_kernel_is_passed_before_its_reassignment),
    cmocka_unit_test(test_name_assigned_in_both_branches_is_bound_after_the_if),
    cmocka_unit_test(test_name_assigned_in_one_branch_only_may_be_unbound),
};

PTO_TEST_MAIN(tests)
