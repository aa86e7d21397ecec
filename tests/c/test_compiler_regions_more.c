/*
 * test_compiler_regions_more.c - outlining and call directions on the
 * control flow the other compiler tests leave out: descending and
 * variable-step loops (around a kernel and inside one), while loops (with
 * kernels in both branches of an if), nested loops, branches inside a
 * kernel loop, inline functions with loops and branches or a scalar
 * result, a scalar reassigned after the kernel that reads it.  Each rule compiles a
 * program through lowering and checks the printed program: the scalars a
 * kernel call passes and the region comment of each tensor argument
 * (rows first:last, as the call directions pass derived them).
 */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "dsl_compile.h"

/* a loop with step -1 around a kernel: each call's region is its own rows, in terms of the loop variable */
static void test_region_of_a_descending_orchestration_loop_is_per_iteration(void **s)
{
    (void)s;
    static const char *const want[] = {"for i in pl.range(3, -1, -1):", "# a: In [i*64:i*64+64, 0:128]; out: Out [i*64:i*64+64, 0:128]", NULL};
    dsl_expect_compiles_containing(DSL_F_HEADER
                     "    for i in pl.range(3, -1, -1):\n"
                     "        with pl.at(level=pl.Level.CORE_GROUP):\n"
                     "            t = pl.load(a, [i * 64, 0], [64, 128])\n"
                     "            pl.store(t, [i * 64, 0], out)\n"
                     "    return out\n",
                    NULL, 0, want);
}

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

/* a load in a branch of a loop inside the kernel: the region is the loop's whole range; the else branch's while loop stays inside the kernel */
static void test_kernel_loop_with_branches_covers_the_loop_range(void **s)
{
    (void)s;
    static const char *const want[] = {"# a: In [0:256, 0:128]; out: Out [0:256, 0:128]", "                while k < 2:", NULL};
    dsl_expect_compiles_containing(DSL_F_HEADER
                     "    with pl.at(level=pl.Level.CORE_GROUP):\n"
                     "        for i in pl.range(4):\n"
                     "            if i > 1:\n"
                     "                t = pl.load(a, [i * 64, 0], [64, 128])\n"
                     "                pl.store(-t, [i * 64, 0], out)\n"
                     "            else:\n"
                     "                k = 0\n"
                     "                while k < 2:\n"
                     "                    k = k + 1\n"
                     "    return out\n",
                    NULL, 0, want);
}

/* two nested loops around a kernel: both variables become scalars and the offset folds */
static void test_nested_orchestration_loops_pass_both_variables(void **s)
{
    (void)s;
    static const char *const want[] = {"self.f_incore_0(a, out, i, j)  # a: In [(i+j)*32:(i+j)*32+32, 0:128]", NULL};
    dsl_expect_compiles_containing(DSL_F_HEADER
                     "    for i in pl.range(0, 4, 2):\n"
                     "        for j in pl.range(2):\n"
                     "            with pl.at(level=pl.Level.CORE_GROUP):\n"
                     "                t = pl.load(a, [(i + j) * 32 + 64 - 64, 0], [32, 128])\n"
                     "                pl.store(t, [(i + j) * 32, 0], out)\n"
                     "    return out\n",
                    NULL, 0, want);
}

/* a loop whose step is a variable: the region per call stays in terms of i */
static void test_loop_step_from_a_variable_keeps_the_call_region_symbolic(void **s)
{
    (void)s;
    static const char *const want[] = {"# a: In [i*32:i*32+32, 0:128]", NULL};
    dsl_expect_compiles_containing(DSL_F_HEADER
                     "    s = 2\n"
                     "    for i in pl.range(0, 8, s):\n"
                     "        with pl.at(level=pl.Level.CORE_GROUP):\n"
                     "            t = pl.load(a, [i * 32, 0], [32, 128])\n"
                     "            pl.store(t, [i * 32, 0], out)\n"
                     "    return out\n",
                    NULL, 0, want);
}

/* a loop with step -1 inside the kernel (i = 3, 2, 1) */
static void test_descending_kernel_loop_region_spans_first_to_last_iteration(void **s)
{
    (void)s;
    static const char *const want[] = {"# a: In [64:256, 0:128]; out: Out [0:192, 0:128]", NULL};
    dsl_expect_compiles_containing(DSL_F_HEADER
                     "    with pl.at(level=pl.Level.CORE_GROUP):\n"
                     "        for i in pl.range(3, 0, -1):\n"
                     "            t = pl.load(a, [i * 64, 0], [64, 128])\n"
                     "            pl.store(t, [i * 64 - 64, 0], out)\n"
                     "    return out\n",
                    NULL, 0, want);
}

/* a loop inside the kernel whose step is unknown: the region takes min/max of the first and last iteration */
static void test_kernel_loop_with_variable_step_uses_min_and_max_bounds(void **s)
{
    (void)s;
    static const char *const want[] = {"# a: In [min(0,(0--4//s-1)*s*64):max(64,(0--4//s-1)*s*64+64), 0:128]", NULL};
    dsl_expect_compiles_containing(DSL_F_HEADER
                     "    s = 2\n"
                     "    with pl.at(level=pl.Level.CORE_GROUP):\n"
                     "        for i in pl.range(0, 4, s):\n"
                     "            t = pl.load(a, [i * 64, 0], [64, 128])\n"
                     "            pl.store(t, [i * 64, 0], out)\n"
                     "    return out\n",
                    NULL, 0, want);
}

/* offsets decreasing in i with a symbolic stop: the low bound comes from the last iteration */
static void test_kernel_loop_with_variable_stop_and_negative_coefficient(void **s)
{
    (void)s;
    static const char *const want[] = {"# a: In [64-(n-1)*16:64, 0:128]; out: Out [0:-16+(n-1)*16+16, 0:128]", NULL};
    dsl_expect_compiles_containing(DSL_F_HEADER
                     "    n = 4\n"
                     "    with pl.at(level=pl.Level.CORE_GROUP):\n"
                     "        for i in pl.range(1, n):\n"
                     "            t = pl.load(a, [64 - i * 16, 0], [16, 128])\n"
                     "            pl.store(t, [0 - 16 + i * 16, 0], out)\n"
                     "    return out\n",
                    NULL, 0, want);
}


/* a while loop whose body branches to two kernels: each is outlined on its own with the loop counter as a scalar; unary minus in an offset resolves through 0 - x */
static void test_kernels_in_both_branches_of_an_orchestration_while_loop(void **s)
{
    (void)s;
    static const char *const want[] = {"self.f_incore_0(a, out, n)  # a: In [n*64:n*64+64, 0:128]", "self.f_incore_1(a, out, n)  # a: In [(0-(0-n))*64:(0-(0-n))*64+64, 0:128]", "pl.store(pl.neg(t), [n * 64, 0], out)", NULL};
    dsl_expect_compiles_containing(DSL_F_HEADER
                     "    n = 0\n"
                     "    while n < 4:\n"
                     "        if n > 1:\n"
                     "            with pl.at(level=pl.Level.CORE_GROUP):\n"
                     "                t = pl.load(a, [n * 64, 0], [64, 128])\n"
                     "                pl.store(-t, [n * 64, 0], out)\n"
                     "        else:\n"
                     "            with pl.at(level=pl.Level.CORE_GROUP):\n"
                     "                t = pl.load(a, [-(0 - n) * 64, 0], [64, 128])\n"
                     "                pl.store(t, [n * 64, 0], out)\n"
                     "        n = n + 1\n"
                     "    return out\n",
                    NULL, 0, want);
}

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

/* loops inside a kernel with steps 3 and -4: the region runs from the first to the last iteration (i = 0..9, j = 9..1) */
static void test_kernel_loops_with_non_unit_steps_cover_first_to_last_iteration(void **s)
{
    (void)s;
    static const char *const want[] = {"# a: In [0:160, 0:128]; out: Out [0:160, 0:128]", NULL};
    dsl_expect_compiles_containing(DSL_F_HEADER
                     "    with pl.at(level=pl.Level.CORE_GROUP):\n"
                     "        for i in pl.range(0, 10, 3):\n"
                     "            t = pl.load(a, [i * 16, 0], [16, 128])\n"
                     "            pl.store(t, [i * 16, 0], out)\n"
                     "        for j in pl.range(9, 0, -4):\n"
                     "            t = pl.load(a, [j * 16, 0], [16, 128])\n"
                     "            pl.store(t, [j * 16, 0], out)\n"
                     "    return out\n",
                    NULL, 0, want);
}


/* a kernel that loads and stores the same region, written with a unary minus offset: the two boxes are equal and merge into one InOut argument */
static void test_load_and_store_of_one_unary_offset_region_merge_into_inout(void **s)
{
    (void)s;
    static const char *const want[] = {"self.f_incore_0(out, n)  # out: InOut [(0-(0-n))*64:(0-(0-n))*64+64, 0:128]", NULL};
    dsl_expect_compiles_containing(DSL_F_HEADER
                     "    for n in pl.range(4):\n"
                     "        with pl.at(level=pl.Level.CORE_GROUP):\n"
                     "            t = pl.load(out, [-(0 - n) * 64, 0], [64, 128])\n"
                     "            pl.store(pl.add(t, 1.0), [-(0 - n) * 64, 0], out)\n"
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


static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_region_of_a_descending_orchestration_loop_is_per_iteration),
    cmocka_unit_test(test_while_loop_variable_becomes_a_kernel_scalar),
    cmocka_unit_test(test_kernel_loop_with_branches_covers_the_loop_range),
    cmocka_unit_test(test_nested_orchestration_loops_pass_both_variables),
    cmocka_unit_test(test_loop_step_from_a_variable_keeps_the_call_region_symbolic),
    cmocka_unit_test(test_descending_kernel_loop_region_spans_first_to_last_iteration),
    cmocka_unit_test(test_kernel_loop_with_variable_step_uses_min_and_max_bounds),
    cmocka_unit_test(test_kernel_loop_with_variable_stop_and_negative_coefficient),
    cmocka_unit_test(test_kernels_in_both_branches_of_an_orchestration_while_loop),
    cmocka_unit_test(test_inline_function_with_loops_and_branches_is_expanded_into_the_kernel),
    cmocka_unit_test(test_scalar_read_by_a_kernel_is_passed_before_its_reassignment),
    cmocka_unit_test(test_inline_function_returning_a_scalar_folds_into_the_region),
    cmocka_unit_test(test_inline_calls_inside_unary_and_list_expressions_expand),
    cmocka_unit_test(test_inline_calls_inside_op_and_call_arguments_expand),
    cmocka_unit_test(test_task_id_annotation_and_tuple_dims_are_accepted),
    cmocka_unit_test(test_kernel_loops_with_non_unit_steps_cover_first_to_last_iteration),
    cmocka_unit_test(test_load_and_store_of_one_unary_offset_region_merge_into_inout),
    cmocka_unit_test(test_name_assigned_in_both_branches_is_bound_after_the_if),
};

PTO_TEST_MAIN(tests)
