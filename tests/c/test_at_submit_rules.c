/*
 * test_at_submit_rules.c - the arguments and places of pl.at, pl.submit
 * and pl.set_cache_policy (docs/dsl.md, "`with pl.at(...)`" and "Cache
 * policy"): pl.at's positional arguments, level, name_hint and deps=, only
 * as a with item; pl.submit of a kernel; pl.set_cache_policy as a
 * statement of a pl.at body, with a pl.CachePolicy member.
 *
 * Invariants: one test per rule; each compiles a small program through
 * pto_compile and checks the first error's class, message and line:column.
 */
#include "harness.h"
#include "dsl_compile.h"

static void test_submit_of_a_non_kernel_is_syntax_error(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    pl.submit(3)\n"
              "    return out\n",
              "f", "ParserSyntaxError", "pl.submit(...) first argument must be a self.<kernel> method reference or a @pl.jit.incore function", 5, 15);
}

static void test_set_cache_policy_as_expression_is_syntax_error(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    pl.tensor.set_cache_policy(a, 1)\n"
              "    return out\n",
              "f", "ParserSyntaxError", "pl.set_cache_policy() must be a standalone statement directly inside a pl.at(...) / pl.spmd(...) scope body", 5, 5);
}

static void test_at_with_three_positional_arguments_is_syntax_error(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    with pl.at(pl.Level.CORE_GROUP, 1, 2):\n"
              "        pass\n"
              "    return out\n",
              "f", "ParserSyntaxError", "pl.at() takes at most 2 positional arguments, got 3", 5, 10);
}

static void test_at_name_hint_must_be_a_string_literal(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    with pl.at(level=pl.Level.CORE_GROUP, name_hint=3):\n"
              "        pass\n"
              "    return out\n",
              "f", "ParserSyntaxError", "pl.at() 'name_hint' argument must be a string literal", 5, 53);
}

static void test_at_name_hint_keyword_is_not_an_identifier(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    with pl.at(level=pl.Level.CORE_GROUP, name_hint='for'):\n"
              "        pass\n"
              "    return out\n",
              "f", "ParserSyntaxError", "pl.at() 'name_hint' must be a valid non-keyword identifier, got 'for'", 5, 53);
}

static void test_at_level_aiv_is_unsupported(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    with pl.at(level=pl.Level.AIV):\n"
              "        pass\n"
              "    return out\n",
              "f", "UnsupportedFeatureError", "pl.Level.AIV is Ascend-specific: it selects a compiler-internal function kind or core type; it has no meaning on the CPU backend", 5, 22);
}

static void test_at_host_level_with_deps_is_syntax_error(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    with pl.at(level=pl.Level.HOST, deps=[]):\n"
              "        pass\n"
              "    return out\n",
              "f", "ParserSyntaxError", "pl.at(level=pl.Level.HOST) creates no task; deps= and 'as' need level=pl.Level.CORE_GROUP", 5, 42);
}

static void test_at_without_level_is_syntax_error(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    with pl.at():\n"
              "        pass\n"
              "    return out\n",
              "f", "ParserSyntaxError", "pl.at() requires a level argument", 5, 10);
}

static void test_at_called_as_expression_is_syntax_error(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    x = pl.at(level=pl.Level.CORE_GROUP)\n"
              "    return out\n",
              "f", "ParserSyntaxError", "pl.at(...) is only valid as the item of a with statement", 5, 9);
}

static void test_set_cache_policy_policy_must_be_a_member(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    with pl.at(level=pl.Level.CORE_GROUP):\n"
              "        t = pl.load(a, [0, 0], [64, 128])\n"
              "        pl.set_cache_policy(a, 1)\n"
              "        x = pl.set_cache_policy(a, 1)\n"
              "    return out\n",
              "f", "ParserSyntaxError", "pl.set_cache_policy() second argument must be pl.CachePolicy.DEFAULT or pl.CachePolicy.BYPASS", 7, 32);
}

static void test_at_deps_not_a_list_is_syntax_error(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    with pl.at(level=pl.Level.CORE_GROUP, deps=3):\n"
              "        pass\n"
              "    return out\n",
              "f", "ParserSyntaxError", "deps= entries must be a TaskId variable", 5, 48);
}

static void test_at_deps_entry_not_a_task_id_is_syntax_error(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    with pl.at(level=pl.Level.CORE_GROUP, deps=[1]):\n"
              "        pass\n"
              "    return out\n",
              "f", "ParserSyntaxError", "deps= entries must be a TaskId variable", 5, 49);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_submit_of_a_non_kernel_is_syntax_error),
    cmocka_unit_test(test_set_cache_policy_as_expression_is_syntax_error),
    cmocka_unit_test(test_at_with_three_positional_arguments_is_syntax_error),
    cmocka_unit_test(test_at_name_hint_must_be_a_string_literal),
    cmocka_unit_test(test_at_name_hint_keyword_is_not_an_identifier),
    cmocka_unit_test(test_at_level_aiv_is_unsupported),
    cmocka_unit_test(test_at_host_level_with_deps_is_syntax_error),
    cmocka_unit_test(test_at_without_level_is_syntax_error),
    cmocka_unit_test(test_at_called_as_expression_is_syntax_error),
    cmocka_unit_test(test_set_cache_policy_policy_must_be_a_member),
    cmocka_unit_test(test_at_deps_not_a_list_is_syntax_error),
    cmocka_unit_test(test_at_deps_entry_not_a_task_id_is_syntax_error),
};

PTO_TEST_MAIN(tests)
