/*
 * test_statement_rules.c - statement rules (docs/dsl.md, "Statements"): an
 * if condition and pl.range bounds are scalars (integers for a range), an
 * Orchestration function returns tensors, and several statements may share
 * a line.
 *
 * Invariants: one test per rule; each compiles a small program through
 * pto_compile and checks the first error's class, message and line:column,
 * or the printed program and listing.
 */
#include <string.h>

#include "harness.h"
#include "dsl_compile.h"

static void test_if_condition_on_a_tile_is_type_error(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    with pl.at(level=pl.Level.CORE_GROUP):\n"
              "        t = pl.load(a, [0, 0], [64, 128])\n"
              "        if t:\n"
              "            pass\n"
              "    return out\n",
              "f", "ParserTypeError", "if condition must be a scalar expression, got pl.Tile[[64, 128], pl.FP32]", 7, 12);
}

static void test_range_bound_float_is_type_error(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    for i in pl.range(1.5):\n"
              "        pass\n"
              "    return out\n",
              "f", "ParserTypeError", "pl.range() bounds must be integer scalars", 5, 23);
}

static void test_range_float_stop_is_type_error(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    for i in pl.range(1, 2.5):\n"
              "        pass\n"
              "    return out\n",
              "f", "ParserTypeError", "pl.range() bounds must be integer scalars", 5, 26);
}

static void test_orchestration_returning_a_scalar_is_type_error(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    return 1\n",
              "f", "ParserTypeError", "'f' may return only tensors", 5, 12);
}

/* Several statements on one line, separated by ';', and the != and >=
 * comparisons parse, type and lower. */
static void test_semicolon_statements_and_ne_ge_comparisons_compile(void **s)
{
    (void)s;
    pto_program *p = dsl_compile("import pypto.language as pl\n\n@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                                 "    x = 1; y = 2; z = x != y\n    w = x >= y\n    return out\n",
                                 "f", PTO_STAGE_LOWER);
    dsl_expect_ok(p);
    assert_non_null(strstr(pto_program_text(p), "            x = 1\n            y = 2\n            z = x != y\n            w = x >= y\n"));
    assert_non_null(strstr(pto_program_listing(p), "NE "));
    assert_non_null(strstr(pto_program_listing(p), "GE "));
    pto_program_free(p);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_if_condition_on_a_tile_is_type_error),
    cmocka_unit_test(test_range_bound_float_is_type_error),
    cmocka_unit_test(test_range_float_stop_is_type_error),
    cmocka_unit_test(test_orchestration_returning_a_scalar_is_type_error),
    cmocka_unit_test(test_semicolon_statements_and_ne_ge_comparisons_compile),
};

PTO_TEST_MAIN(tests)
