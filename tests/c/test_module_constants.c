/*
 * test_module_constants.c - module constants where the DSL expects a
 * literal (docs/dsl.md, "Statements": module constants may hold lists and tuples, pl
 * dtypes and enum members): a list constant as offsets, shapes and a
 * create_tensor shape; a dtype constant as a create_tensor dtype and a cast
 * target; enum-member constants as pl.at's level and a load's cache
 * policy.  Each compiles to what the literal would print; a local of the
 * same name shadows the constant.  A local bound once to a list of integer
 * constants, outside any branch or loop, serves the same way.  Parameter
 * annotations read module constants (a shape list, a dimension, a dtype)
 * even where a parameter has the constant's name: Python evaluates them
 * where the def stands.  A module alias of a type or of a decorated
 * function serves as the type or the function.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "dsl_compile.h"

#define MC_HDR "import pypto.language as pl\n\n"

/* src compiles through lowering and its printed program contains want. */
static void compiles_containing(const char *src, const char *want)
{
    const char *const wants[] = {want, NULL};
    dsl_expect_compiles_containing(src, NULL, 0, wants);
}

static void test_module_constant_list_serves_as_offsets_and_shapes(void **s)
{
    (void)s;
    static const char src[] = MC_HDR "SHAPE = [64, 128]\nORIGIN = (0, 0)\nROW = [SHAPE[0], 0]\n\n"
                                     "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                                     "    tmp = pl.create_tensor(SHAPE, dtype=pl.FP32)\n"
                                     "    with pl.at(level=pl.Level.CORE_GROUP):\n"
                                     "        pl.store(pl.load(a, ORIGIN, SHAPE), ORIGIN, tmp)\n"
                                     "    return out\n";
    /* ROW subscripts a list: not a constant the DSL folds, so it is skipped, and unused */
    compiles_containing(src, "tmp = pl.create_tensor([64, 128], pl.FP32)");
    compiles_containing(src, "pl.load(a, [0, 0], [64, 128]");
}

static void test_module_constant_dtype_and_enum_members(void **s)
{
    (void)s;
    static const char src[] = MC_HDR "DT = pl.FP16\nLVL = pl.Level.CORE_GROUP\nPOL = pl.CachePolicy.BYPASS\nALSO = DT\n\n"
                                     "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                                     "    tmp = pl.create_tensor([64, 128], dtype=ALSO)\n"
                                     "    with pl.at(level=LVL):\n"
                                     "        t = pl.load(a, [0, 0], [64, 128], cache=POL)\n"
                                     "        pl.store(pl.cast(t, DT), [0, 0], tmp)\n"
                                     "    return out\n";
    compiles_containing(src, "tmp = pl.create_tensor([64, 128], pl.FP16)");
    compiles_containing(src, "pl.cast(t, pl.FP16)");
    compiles_containing(src, "cache=pl.CachePolicy.BYPASS");
}

static void test_local_name_shadows_module_constant(void **s)
{
    (void)s;
    static const char src[] = MC_HDR "SHAPE = [64, 128]\n\n"
                                     "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                                     "    SHAPE = 3\n"
                                     "    with pl.at(level=pl.Level.CORE_GROUP):\n"
                                     "        pl.store(pl.load(a, [0, 0], SHAPE), [0, 0], out)\n"
                                     "    return out\n";
    pto_program *p = dsl_compile(src, "f", PTO_STAGE_LOWER);
    dsl_expect_error(p, "ParserTypeError", "shapes must be a list like [0, 0]", 9, 37);
    pto_program_free(p);
}

static void test_module_constant_list_of_floats_is_no_offsets(void **s)
{
    (void)s;
    static const char src[] = MC_HDR "OFF = [0.5, 0]\n\n"
                                     "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                                     "    with pl.at(level=pl.Level.CORE_GROUP):\n"
                                     "        pl.store(pl.load(a, OFF, [64, 128]), [0, 0], out)\n"
                                     "    return out\n";
    pto_program *p = dsl_compile(src, "f", PTO_STAGE_LOWER);
    dsl_expect_error(p, "ParserTypeError", "offsets entries must be integer scalars", 3, 8);
    pto_program_free(p);
}

static void test_local_list_of_constants_serves_as_offsets(void **s)
{
    (void)s;
    static const char src[] = MC_HDR "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                                     "    origin = [0, 0]\n    shape = (64, 128)\n"
                                     "    with pl.at(level=pl.Level.CORE_GROUP):\n"
                                     "        pl.store(pl.load(a, origin, shape), origin, out)\n"
                                     "    return out\n";
    compiles_containing(src, "pl.load(a, [0, 0], [64, 128]");
}

static void test_local_list_of_run_time_values_is_no_offsets(void **s)
{
    (void)s;
    static const char src[] = MC_HDR "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                                     "    for i in pl.range(2):\n"
                                     "        row = [i * 64, 0]\n"
                                     "        with pl.at(level=pl.Level.CORE_GROUP):\n"
                                     "            pl.store(pl.load(a, row, [64, 128]), [0, 0], out)\n"
                                     "    return out\n";
    pto_program *p = dsl_compile(src, "f", PTO_STAGE_LOWER);
    const pto_diagnostic *d = dsl_expect_error(p, "ParserTypeError", "offsets must be a list like [0, 0]", 8, 33);
    assert_non_null(strstr(d->hint, "outside any branch or loop"));
    pto_program_free(p);
}

/* Assigned again (here in the loop, after the read): the name may hold
 * another list where it is read, so it is not taken for its first value. */
static void test_local_list_assigned_twice_is_no_offsets(void **s)
{
    (void)s;
    static const char src[] = MC_HDR "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                                     "    o = [0, 0]\n"
                                     "    for i in pl.range(2):\n"
                                     "        with pl.at(level=pl.Level.CORE_GROUP):\n"
                                     "            pl.store(pl.load(a, o, [64, 128]), [0, 0], out)\n"
                                     "        o = [64, 0]\n"
                                     "    return out\n";
    pto_program *p = dsl_compile(src, "f", PTO_STAGE_LOWER);
    dsl_expect_error(p, "ParserTypeError", "offsets must be a list like [0, 0]", 8, 33);
    pto_program_free(p);
}

/* Every parameter's annotation names module constants, one of them also the
 * name of a parameter (before and after it).  The annotations used to read
 * the names of parameters not yet checked, still NULL (a fuzz_compile
 * finding: strcmp of NULL). */
static void test_signature_annotations_read_module_constants_not_parameters(void **s)
{
    (void)s;
    static const char src[] = MC_HDR "DT = pl.FP16\nSHAPE = [64, 128]\nN = 64\nM = N * 2\n\n"
                                     "@pl.jit\ndef f(a: pl.Tensor[SHAPE, DT], DT: pl.Tensor[[64, 128], DT], N: pl.Scalar,\n"
                                     "      out: pl.Out[pl.Tensor[[N, M], DT]]):\n"
                                     "    with pl.at(level=pl.Level.CORE_GROUP):\n"
                                     "        pl.store(pl.add(pl.load(a, [0, 0], SHAPE), pl.load(DT, [0, 0], SHAPE)), [0, 0], out)\n"
                                     "    return out\n";
    const pto_arg_spec args[] = {
        {.name = "a", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP16, .rank = 2, .shape = {64, 128}},
        {.name = "DT", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP16, .rank = 2, .shape = {64, 128}},
        {.name = "N", .kind = PTO_ARG_SCALAR, .value = {.kind = PTO_VALUE_INT, .i = 3}},
        {.name = "out", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP16, .rank = 2, .shape = {64, 128}},
    };
    const char *const want[] = {"def f(self, a: pl.Tensor[[64, 128], pl.FP16], DT: pl.Tensor[[64, 128], pl.FP16], N: pl.Scalar[pl.INDEX], "
                                "out: pl.Out[pl.Tensor[[64, 128], pl.FP16]])",
                                "self.f_incore_0(a, DT, out)", NULL};
    pto_program *p = dsl_compile_with(src, "f", PTO_STAGE_LOWER, 0, args, sizeof args / sizeof args[0]);
    dsl_expect_text_contains(p, want);
    pto_program_free(p);
}

/* A module name bound to a type (T = pl.Tensor[...]) serves as an
 * annotation, alone and inside pl.Out; one bound to a decorated function
 * (FN = k) calls it (docs/dsl.md, "Expressions": decorated functions are constants). */
static void test_module_alias_of_a_type_and_of_a_kernel(void **s)
{
    (void)s;
    static const char src[] = MC_HDR "@pl.jit.incore\ndef k(x: pl.Tensor, y: pl.Out[pl.Tensor]):\n"
                                     "    pl.store(pl.load(x, [0, 0], [256, 128]), [0, 0], y)\n    return y\n\n"
                                     "FN = k\nT = pl.Tensor[[256, 128], pl.FP32]\n\n"
                                     "@pl.jit\ndef f(a: T, out: pl.Out[T]):\n"
                                     "    out = FN(a, out)\n"
                                     "    return out\n";
    compiles_containing(src, "def f(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]])");
    compiles_containing(src, "out = self.k(a, out)");
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_module_constant_list_serves_as_offsets_and_shapes),
    cmocka_unit_test(test_module_constant_dtype_and_enum_members),
    cmocka_unit_test(test_local_name_shadows_module_constant),
    cmocka_unit_test(test_module_constant_list_of_floats_is_no_offsets),
    cmocka_unit_test(test_local_list_of_constants_serves_as_offsets),
    cmocka_unit_test(test_local_list_of_run_time_values_is_no_offsets),
    cmocka_unit_test(test_local_list_assigned_twice_is_no_offsets),
    cmocka_unit_test(test_signature_annotations_read_module_constants_not_parameters),
    cmocka_unit_test(test_module_alias_of_a_type_and_of_a_kernel),
};

PTO_TEST_MAIN(tests)
