/*
 * test_entry_return.c - what an entry may return (docs/dsl.md,
 * "Statements"): only its tensor parameters.  A tensor it made with
 * pl.create_tensor never reaches the caller, so `return tmp` is a
 * ParserTypeError at the returned name, naming it and the line that
 * created it; a parameter rebound to a kernel's result is still the
 * parameter.  A function the entry calls without arguments is a callee,
 * not a second entry.
 */
#include <string.h>

#include "harness.h"
#include "dsl_compile.h"

#define KERNEL                                                                \
    "import pypto.language as pl\n\n"                                         \
    "@pl.jit.incore\ndef k(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"          \
    "    pl.store(pl.load(a, [0, 0], [256, 128]), [0, 0], out)\n"             \
    "    return out\n\n"

static void test_an_entry_may_return_only_its_tensor_parameters_not_a_created_tensor(void **s)
{
    (void)s;
    DSL_ERROR(KERNEL "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                     "    tmp = pl.create_tensor([256, 128], pl.FP32)\n" /* line 10 */
                     "    tmp = k(a, tmp)\n"
                     "    return tmp\n",
              "f", "ParserTypeError",
              "@pl.jit function 'f' may return only its tensor parameters, not 'tmp': a tensor made by pl.create_tensor "
              "at k.py:10, which the caller never sees",
              12, 12);
    DSL_ERROR(KERNEL "@pl.program\nclass P:\n"
                     "    @pl.function(type=pl.FunctionType.Orchestration)\n"
                     "    def orch(self, a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                     "        x = pl.create_tensor([256, 128], pl.FP32)\n" /* line 12 */
                     "        return out, x\n",
              "P", "ParserTypeError", "@pl.program function 'P.orch' may return only its tensor parameters, not 'x': "
                                      "a tensor made by pl.create_tensor at k.py:12", 13, 21);
    /* a parameter rebound to the kernel's result is the parameter */
    pto_program *p = dsl_compile(KERNEL "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                                        "    out = k(a, out)\n    return out\n",
                                 "f", PTO_STAGE_LOWER);
    dsl_expect_ok(p);
    pto_program_free(p);
}

static void test_a_callee_without_parameters_is_not_taken_for_the_entry(void **s)
{
    (void)s;
    pto_program *p = dsl_compile(KERNEL "@pl.jit.opaque\ndef g():\n    t = pl.create_tensor([64, 128], pl.FP32)\n\n"
                                        "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                                        "    g()\n    out = k(a, out)\n    return out\n",
                                 "f", PTO_STAGE_LOWER);
    dsl_expect_ok(p);
    assert_non_null(strstr(pto_program_listing(p), "proc 0 f(a=t0, out=t1) Orchestration")); /* the entry runs first */
    pto_program_free(p);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_an_entry_may_return_only_its_tensor_parameters_not_a_created_tensor),
    cmocka_unit_test(test_a_callee_without_parameters_is_not_taken_for_the_entry),
};

PTO_TEST_MAIN(tests)
