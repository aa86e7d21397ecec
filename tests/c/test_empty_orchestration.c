/*
 * test_empty_orchestration.c - an Orchestration function whose body is
 * only `pass` (an entry, a program's method, a default-mode one) compiles
 * through every stage: the scopes pass leaves an empty body as it is (no
 * scope to place), so the verifier's "auto_scope still set" check
 * (docs/dsl.md, "What the compiler does": verify) exempts empty bodies.
 */
#include <string.h>

#include "harness.h"
#include "dsl_compile.h"

static void test_an_orchestration_function_of_only_pass_compiles_through_every_stage(void **s)
{
    (void)s;
    static const char *const srcs[][2] = {
        {"import pypto.language as pl\n\n@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n    pass\n", "f"},
        {"import pypto.language as pl\n\n@pl.program\nclass P:\n"
         "    @pl.function(type=pl.FunctionType.Orchestration)\n    def orch(self, a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
         "        pass\n",
         "P"},
    };
    for (size_t k = 0; k < sizeof srcs / sizeof srcs[0]; k++) {
        pto_program *p = dsl_compile(srcs[k][0], srcs[k][1], PTO_STAGE_ALL);
        dsl_expect_ok(p);
        assert_non_null(strstr(pto_program_listing(p), "Orchestration"));
        pto_program_free(p);
    }
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_an_orchestration_function_of_only_pass_compiles_through_every_stage),
};

PTO_TEST_MAIN(tests)
