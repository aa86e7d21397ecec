/*
 * test_outline_live_after.c - a name assigned inside a
 * pl.at(level=pl.Level.CORE_GROUP) body and read after it is an error at
 * the read (docs/dsl.md, "with pl.at(...)": a kernel hands back only the
 * tensors it stores to), whatever control flow lies between: a for loop
 * between the body and the read does not hide it, also when the loop
 * reassigns the name (it may run zero times); and a pl.at inside a loop
 * that reads the name before assigning it is read again by the next
 * iteration (the back edge reaches the pl.at itself).
 */
#include <stdio.h>

#include "harness.h"
#include "dsl_compile.h"

#define HEAD                                                                              \
    "import pypto.language as pl\n\n"                                                     \
    "@pl.jit.incore\ndef k(a: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar[pl.INDEX]):\n" \
    "    pl.store(pl.add(pl.load(a, [0, 0], [64, 128]), n), [0, 0], out)\n"                \
    "    return out\n\n"                                                                  \
    "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n" /* line 8 */

static const char live_msg[] = "'%s' is assigned inside a pl.at(level=pl.Level.CORE_GROUP) body and read after it; "
                               "a kernel hands back only the tensors it stores to";

static void test_a_for_loop_between_a_pl_at_assignment_and_a_read_does_not_hide_it(void **s)
{
    (void)s;
    static const char *const loops[] = {
        "    for i in pl.range(2):\n        out = k(a, out, i)\n", /* the loop leaves x alone */
        "    for i in pl.range(2):\n        x = i\n",             /* it reassigns x, but may run zero times */
    };
    char msg[256];
    snprintf(msg, sizeof msg, live_msg, "x");
    for (size_t k = 0; k < sizeof loops / sizeof loops[0]; k++) {
        char src[1024];
        snprintf(src, sizeof src,
                 HEAD "    with pl.at(level=pl.Level.CORE_GROUP):\n        x = 3\n"
                      "        pl.store(pl.load(a, [0, 0], [64, 128]), [0, 0], out)\n"
                      "%s    out = k(a, out, x)\n    return out\n",
                 loops[k]);
        DSL_ERROR(src, "f", "PassError", msg, 15, 5);
    }
}

static void test_a_pl_at_in_a_loop_reading_a_name_it_then_assigns_is_reported_at_the_read(void **s)
{
    (void)s;
    char msg[256];
    snprintf(msg, sizeof msg, live_msg, "n");
    DSL_ERROR(HEAD "    n = 0\n    for i in pl.range(2):\n        with pl.at(level=pl.Level.CORE_GROUP):\n"
                   "            t = pl.load(a, [n, 0], [64, 128])\n" /* line 13: read by the next iteration */
                   "            n = 64\n"
                   "            pl.store(t, [0, 0], out)\n    return out\n",
              "f", "PassError", msg, 13, 13);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_a_for_loop_between_a_pl_at_assignment_and_a_read_does_not_hide_it),
    cmocka_unit_test(test_a_pl_at_in_a_loop_reading_a_name_it_then_assigns_is_reported_at_the_read),
};

PTO_TEST_MAIN(tests)
