/*
 * test_operator_rules.c - operators on scalars and tiles (docs/dsl.md,
 * "Expressions"): which operand kinds each takes (`//` and comparisons on
 * tiles, a scalar on the left of a tile op, true division of integers,
 * lists, task ids), min/max arity and operands, and how scalar unpacking
 * and unary operators lower.
 *
 * Invariants: one test per rule; each compiles a small program through
 * pto_compile and checks the first error's class, message and line:column,
 * or lines of the listing.
 */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "dsl_compile.h"

static void test_tile_floor_division_is_unsupported(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    with pl.at(level=pl.Level.CORE_GROUP):\n"
              "        t = pl.load(a, [0, 0], [64, 128])\n"
              "        u = t // t\n"
              "        pl.store(u, [0, 0], out)\n"
              "    return out\n",
              "f", "UnsupportedFeatureError", "tile operator '//' is not supported in this version", 7, 13);
}

static void test_comparison_of_tiles_is_type_error(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    with pl.at(level=pl.Level.CORE_GROUP):\n"
              "        t = pl.load(a, [0, 0], [64, 128])\n"
              "        u = t < t\n"
              "    return out\n",
              "f", "ParserTypeError", "'<' compares scalars only", 7, 13);
}

static void test_min_with_three_arguments_is_type_error(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    x = min(1, 2, 3)\n"
              "    return out\n",
              "f", "ParserTypeError", "min() takes exactly 2 arguments in kernel code", 5, 9);
}

static void test_max_of_a_tile_points_to_pl_maximum(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    with pl.at(level=pl.Level.CORE_GROUP):\n"
              "        t = pl.load(a, [0, 0], [64, 128])\n"
              "        u = max(t, 1)\n"
              "    return out\n",
              "f", "ParserTypeError", "max() takes scalars", 7, 13);
}

static void test_list_plus_scalar_needs_scalar_operands(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    y = [1, 2] + 1\n"
              "    return out\n",
              "f", "ParserTypeError", "operator '+' needs scalar operands, got list and pl.Scalar[pl.INDEX]", 5, 9);
}

/* Orchestration scalars: a tuple unpacks into one MOV per name; not and
 * unary minus on a variable lower to NOT and NEG of its register. */
static void test_tuple_unpacking_and_unary_ops_lower_to_moves_and_unary_insns(void **s)
{
    (void)s;
    pto_program *p = dsl_compile("import pypto.language as pl\n\n@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                                 "    x, y = 1, 2.5\n    n = x + 1\n    b = not (n > 1)\n    m = -n\n"
                                 "    with pl.at(level=pl.Level.CORE_GROUP):\n        t = pl.load(a, [0, 0], [64, 128])\n"
                                 "        pl.store(pl.mul(t, y), [m + 2, 0], out)\n    return out\n",
                                 "f", PTO_STAGE_LOWER);
    dsl_expect_ok(p);
    const char *l = pto_program_listing(p);
    static const char *const want[] = {"r2 x pl.Scalar[pl.INDEX]", "r3 y pl.Scalar[pl.FP32]", "MOV r2 = r0 @5:5",
                                       "MOV r3 = r1 @5:5", "NOT r6 = r7 BOOL @7:9", "NEG r9 = r4 INDEX @8:9", NULL};
    for (const char *const *w = want; *w; w++) {
        if (!strstr(l, *w)) fprintf(stderr, "missing \"%s\" in:\n%s\n", *w, l);
        assert_non_null(strstr(l, *w));
    }
    pto_program_free(p);
}

/* Task ids (pl.at(...) as tid) are handles, not numbers. */
static void test_comparing_task_ids_is_type_error(void **s)
{
    (void)s;
    DSL_ERROR("import pypto.language as pl\n\n@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
               "    with pl.at(level=pl.Level.CORE_GROUP) as tid:\n        pl.store(pl.load(a, [0, 0], [64, 128]), [0, 0], out)\n"
               "    with pl.at(level=pl.Level.CORE_GROUP, deps=[tid]) as t2:\n"
               "        pl.store(pl.load(a, [64, 0], [64, 128]), [64, 0], out)\n"
               "    x = tid == t2\n    return out\n",
               "f", "ParserTypeError", "a TaskId can only be passed in deps=", 9, 9);
}

static void test_tile_op_scalar_on_the_left_is_invalid_op(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    with pl.at(level=pl.Level.CORE_GROUP):\n"
              "        t = pl.load(a, [0, 0], [64, 128])\n"
              "        pl.store(pl.sub(1.0, t), [0, 0], out)\n"
              "        u = 2.0 * t\n"
              "        v = 1 - t\n"
              "        w = 3 / t\n"
              "    return out\n",
              "f", "InvalidOperationError", "pl.sub: the scalar operand must be on the right", 7, 18);
}

static void test_true_division_of_integers_is_type_error(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    x = 1.5 - 1\n"
              "    y = 3 / 2.0\n"
              "    z = 2.0 * 3\n"
              "    w = 7 / 2\n"
              "    return out\n",
              "f", "ParserTypeError", "true division of integers is not supported in kernel code; use //", 8, 9);
}

static void test_scalar_floor_division_by_a_tile_is_type_error(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    with pl.at(level=pl.Level.CORE_GROUP):\n"
              "        t = pl.load(a, [0, 0], [64, 128])\n"
              "        u = 2 // t\n"
              "    return out\n",
              "f", "ParserTypeError", "operator '//' needs scalar operands, got pl.Scalar[pl.INDEX] and pl.Tile[[64, 128], pl.FP32]", 7, 13);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_tile_floor_division_is_unsupported),
    cmocka_unit_test(test_comparison_of_tiles_is_type_error),
    cmocka_unit_test(test_min_with_three_arguments_is_type_error),
    cmocka_unit_test(test_max_of_a_tile_points_to_pl_maximum),
    cmocka_unit_test(test_list_plus_scalar_needs_scalar_operands),
    cmocka_unit_test(test_tuple_unpacking_and_unary_ops_lower_to_moves_and_unary_insns),
    cmocka_unit_test(test_comparing_task_ids_is_type_error),
    cmocka_unit_test(test_tile_op_scalar_on_the_left_is_invalid_op),
    cmocka_unit_test(test_true_division_of_integers_is_type_error),
    cmocka_unit_test(test_scalar_floor_division_by_a_tile_is_type_error),
};

PTO_TEST_MAIN(tests)
