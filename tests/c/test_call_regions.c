/*
 * test_call_regions.c - the footprint region each kernel call prints
 * (docs/dsl.md, "What the compiler does": `# a: In [lo:hi, ...]`), as the
 * call directions pass derives it over control flow: ascending, descending,
 * non-unit and variable steps, symbolic stops, nested loops, while loops
 * and branches, around a kernel and inside one.
 *
 * Invariants: one test per rule; each compiles a program through lowering
 * and checks lines of the printed program, the region comment of each
 * tensor argument (rows first:last of the whole loop, or per iteration in
 * terms of the loop variable) and the scalars the call passes.
 */
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

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_region_of_a_descending_orchestration_loop_is_per_iteration),
    cmocka_unit_test(test_kernel_loop_with_branches_covers_the_loop_range),
    cmocka_unit_test(test_nested_orchestration_loops_pass_both_variables),
    cmocka_unit_test(test_loop_step_from_a_variable_keeps_the_call_region_symbolic),
    cmocka_unit_test(test_descending_kernel_loop_region_spans_first_to_last_iteration),
    cmocka_unit_test(test_kernel_loop_with_variable_step_uses_min_and_max_bounds),
    cmocka_unit_test(test_kernel_loop_with_variable_stop_and_negative_coefficient),
    cmocka_unit_test(test_kernels_in_both_branches_of_an_orchestration_while_loop),
    cmocka_unit_test(test_kernel_loops_with_non_unit_steps_cover_first_to_last_iteration),
    cmocka_unit_test(test_load_and_store_of_one_unary_offset_region_merge_into_inout),
};

PTO_TEST_MAIN(tests)
