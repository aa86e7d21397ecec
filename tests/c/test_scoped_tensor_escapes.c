/*
 * test_scoped_tensor_escapes.c - a pl.create_tensor made in a runtime
 * scope and read after the scope ended is the verifier's
 * [ScopedTensorEscapes] error (docs/dsl.md, "Errors"), citing the line
 * that created it, also where the name is bound only on some ways to the
 * read: a for body and an if arm of an auto_scope entry are AUTO scopes of
 * their own, so their end, not the loop that may run zero times, is what
 * is wrong.  Where no scope ended (auto_scope=False, a while body), the
 * read is still "may be used before assignment".
 */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "dsl_compile.h"

#define KERNEL                                                                \
    "import pypto.language as pl\n\n"                                         \
    "@pl.jit.incore\ndef k(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"          \
    "    pl.store(pl.load(a, [0, 0], [256, 128]), [0, 0], out)\n"             \
    "    return out\n\n"
/* line 8: the entry's decorator; its body starts at line 10 */
#define ENTRY(deco, body) KERNEL deco "\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n" body "    return out\n"

static const char escape_msg[] =
    "[ScopedTensorEscapes] tensor 'tmp' is created inside a runtime scope (k.py:11) and used after that scope ends; "
    "create it in an enclosing scope";

static void test_a_tensor_created_in_a_for_body_and_read_after_the_loop_is_scoped_tensor_escapes(void **s)
{
    (void)s;
    static const char *const bodies[] = {
        "    for i in pl.range(2):\n        tmp = pl.create_tensor([256, 128], pl.FP32)\n        tmp = k(a, tmp)\n"
        "    out = k(tmp, out)\n",
        "    for i in pl.range(2):\n        tmp = pl.create_tensor([256, 128], pl.FP32)\n    out = k(tmp, out)\n",
    };
    for (size_t b = 0; b < sizeof bodies / sizeof bodies[0]; b++) {
        char src[2048];
        snprintf(src, sizeof src, ENTRY("@pl.jit", "%s"), bodies[b]);
        DSL_ERROR(src, "f", "PassError", escape_msg, b ? 12 : 13, 13);
    }
}

static void test_a_tensor_created_in_an_if_arm_and_read_after_the_if_is_scoped_tensor_escapes(void **s)
{
    (void)s;
    /* the if arm's own scope ended (the loop body's has not) */
    DSL_ERROR(ENTRY("@pl.jit", "    for i in pl.range(2):\n        if i > 0:\n"
                               "            tmp = pl.create_tensor([256, 128], pl.FP32)\n        out = k(tmp, out)\n"),
              "f", "PassError", "[ScopedTensorEscapes] tensor 'tmp' is created inside a runtime scope (k.py:12)", 13, 17);
    /* auto_scope=False: a hand-placed scope around the loop and the if ended */
    DSL_ERROR(ENTRY("@pl.jit(auto_scope=False)", "    with pl.scope():\n        for i in pl.range(2):\n            if i > 0:\n"
                                                 "                tmp = pl.create_tensor([256, 128], pl.FP32)\n"
                                                 "    out = k(tmp, out)\n"),
              "f", "PassError", "[ScopedTensorEscapes] tensor 'tmp' is created inside a runtime scope (k.py:13)", 14, 13);
}

static void test_a_maybe_bound_tensor_whose_scope_did_not_end_is_used_before_assignment(void **s)
{
    (void)s;
    DSL_ERROR(ENTRY("@pl.jit(auto_scope=False)", "    for i in pl.range(2):\n        tmp = pl.create_tensor([256, 128], pl.FP32)\n"
                                                 "    out = k(tmp, out)\n"),
              "f", "UndefinedVariableError", "'tmp' may be used before assignment", 12, 13);
    DSL_ERROR(ENTRY("@pl.jit", "    for i in pl.range(2):\n        while i < 1:\n"
                               "            tmp = pl.create_tensor([256, 128], pl.FP32)\n            i = i + 1\n"
                               "        out = k(tmp, out)\n"),
              "f", "UndefinedVariableError", "'tmp' may be used before assignment", 14, 17);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_a_tensor_created_in_a_for_body_and_read_after_the_loop_is_scoped_tensor_escapes),
    cmocka_unit_test(test_a_tensor_created_in_an_if_arm_and_read_after_the_if_is_scoped_tensor_escapes),
    cmocka_unit_test(test_a_maybe_bound_tensor_whose_scope_did_not_end_is_used_before_assignment),
};

PTO_TEST_MAIN(tests)
