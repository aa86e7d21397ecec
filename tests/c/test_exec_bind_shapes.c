/*
 * test_exec_bind_shapes.c - binding a tensor argument checks every
 * dimension of its shape against the compiled one (docs/dsl.md, "Running
 * a compiled program from C"): a buffer that differs in any one dimension,
 * the last included (which would let a kernel run past the buffer), is
 * -PTO_INVALID_ARGS before anything runs, naming the argument and both
 * shapes; the right shape runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "dsl_compile.h"
#include "dsl_corpus.h"
#include "pto/run.h"

static void test_binding_a_tensor_checks_every_dimension_of_its_shape(void **s)
{
    (void)s;
    float *a = calloc(256 * 128, sizeof *a), *out = calloc(256 * 128, sizeof *out);
    pto_runtime *rt;
    pto_error err;
    assert_int_equal(pto_runtime_create(NULL, &rt, &err), 0);
    pto_program *p = dsl_compile(dsl_seed_script, "scaled", PTO_STAGE_ALL); /* a, out: [256, 128] FP32 */
    dsl_expect_ok(p);
    static const char *const names[] = {"a", "out"};
    static const int64_t wrong[][2] = {{128, 128}, {256, 64}, {256, 129}};
    for (int arg = 0; arg < 2; arg++) {
        for (size_t w = 0; w < sizeof wrong / sizeof wrong[0]; w++) {
            pto_run_arg args[] = {
                {"a", {.kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .base = a, .rank = 2, .shape = {256, 128}}},
                {"out", {.kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .base = out, .rank = 2, .shape = {256, 128}}},
            };
            memcpy(args[arg].value.shape, wrong[w], sizeof wrong[w]);
            char want[256];
            snprintf(want, sizeof want, "argument '%s' has shape [%lld, %lld] but the program was compiled for [256, 128]",
                     names[arg], (long long)wrong[w][0], (long long)wrong[w][1]);
            assert_int_equal(pto_program_run(rt, p, args, 2, &err), -PTO_INVALID_ARGS);
            if (!strstr(err.message, want)) fprintf(stderr, "got: %s\nwant: %s\n", err.message, want);
            assert_non_null(strstr(err.message, want));
        }
    }
    pto_run_arg right[] = {
        {"a", {.kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .base = a, .rank = 2, .shape = {256, 128}}},
        {"out", {.kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .base = out, .rank = 2, .shape = {256, 128}}},
    };
    assert_int_equal(pto_program_run(rt, p, right, 2, &err), 0);
    assert_true(out[256 * 128 - 1] == 1.0f); /* a == 0: out = a * 2 + 1 */
    pto_program_free(p);
    pto_runtime_destroy(rt);
    free(a), free(out);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_binding_a_tensor_checks_every_dimension_of_its_shape),
};

PTO_TEST_MAIN(tests)
