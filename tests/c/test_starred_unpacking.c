/*
 * test_starred_unpacking.c - a starred target or item (`x, *rest = ...`,
 * `[*a, b]`) is starred unpacking, a construct of a later version
 * (docs/dsl.md, "Not in this version"): UnsupportedFeatureError with the
 * later template at the `*`, not a syntax error; a call's `f(*a)` keeps
 * its own name ('*' argument unpacking).
 */
#include "harness.h"
#include "dsl_compile.h"

static void test_a_starred_target_is_unsupported_starred_unpacking(void **s)
{
    (void)s;
    static const struct { const char *line; int col; const char *msg; } cases[] = {
        {"    x, *y = 1, 2, 3\n", 8, "starred unpacking is not supported in this version"},
        {"    *y, x = 1, 2, 3\n", 5, "starred unpacking is not supported in this version"},
        {"    x = [*out]\n", 10, "starred unpacking is not supported in this version"},
        {"    f(*a)\n", 7, "'*' argument unpacking is not supported in this version"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char src[512];
        snprintf(src, sizeof src, DSL_F_HEADER "%s    return out\n", cases[k].line);
        DSL_ERROR(src, "f", "UnsupportedFeatureError", cases[k].msg, 5, cases[k].col);
    }
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_a_starred_target_is_unsupported_starred_unpacking),
};

PTO_TEST_MAIN(tests)
