/*
 * test_exec_compile_signature.c - what the execution API of DSL-V2-SPEC §4
 * asks of the compiler (pto/compile.h): a compile from the signature alone
 * (signature = 1 / 2: a bare pl.Tensor is a TypeError naming that mode),
 * the compiled entry's parameters and results (pto_program_param,
 * pto_program_nresults), the text after every stage (keep_stages,
 * pto_program_stage_text), and a pl.RUNTIME scalar (PTO_VALUE_RUNTIME)
 * that stays a run-time parameter: one program, two values.
 */
#include <string.h>

#include "harness.h"
#include "dsl_compile.h"
#include "pto/run.h"

#define SHAPED                                                                                        \
    "import pypto.language as pl\n\n"                                                                \
    "@pl.jit\ndef f(a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]],\n"   \
    "      s: pl.Scalar[pl.FP32]):\n"                                                                 \
    "    with pl.at(level=pl.Level.CORE_GROUP):\n"                                                    \
    "        pl.store(pl.mul(pl.load(a, [0, 0], [16, 16]), s), [0, 0], out)\n"                         \
    "    return out\n"

#define BARE                                                                                         \
    "import pypto.language as pl\n\n"                                                                \
    "@pl.program\nclass P:\n"                                                                        \
    "    @pl.function(type=pl.FunctionType.Orchestration)\n"                                         \
    "    def main(self, a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"                                    \
    "        with pl.at(level=pl.Level.CORE_GROUP):\n"                                               \
    "            pl.store(pl.load(a, [0, 0], [8, 8]), [0, 0], out)\n"

static pto_program *compile_sig(const char *src, const char *entry, int signature, const pto_arg_spec *args, size_t n)
{
    pto_compile_options o = {.filename = "k.py", .source = src, .source_len = strlen(src), .entry = entry, .args = args,
                             .nargs = n, .signature = signature, .keep_stages = 1};
    pto_program *p = NULL;
    assert_true(pto_compile(&o, &p) >= 0);
    assert_non_null(p);
    return p;
}

/* The first error is a TypeError with exactly msg, at line. */
static void expect_type_error(const pto_program *p, const char *msg, int line)
{
    const pto_diagnostic *d = dsl_expect_error(p, "TypeError", msg, line, 0);
    assert_string_equal(d->message, msg);
}

static const pto_arg_spec runtime_s[] = {{.name = "s", .kind = PTO_ARG_SCALAR, .value = {.kind = PTO_VALUE_RUNTIME}}};

static void test_signature_mode_bare_tensor_texts(void **s)
{
    (void)s;
    pto_program *p = compile_sig(BARE, "P", 2, NULL, 0);
    expect_type_error(p, "program 'P': cannot compile 'main' from its signature because parameter 'a' has a "
                                     "bare 'pl.Tensor' annotation with no shape", 6);
    assert_int_equal(pto_program_param(p, 0, &(pto_param){0}), 0); /* nothing compiled */
    assert_null(pto_program_stage_text(p, PTO_STAGE_PARSE));         /* a failed compile keeps no stage text */
    pto_program_free(p);
    p = compile_sig(BARE, "P", 1, NULL, 0);
    expect_type_error(p, "@pl.program function 'P.main': cannot specialize from the signature because "
                                     "parameter 'a' has a bare 'pl.Tensor' annotation with no shape. Pass sample "
                                     "arguments to compile(), or annotate the shape.", 6);
    pto_program_free(p);
}

static void test_compiled_entry_parameters_and_results(void **s)
{
    (void)s;
    pto_program *p = compile_sig(SHAPED, "f", 1, runtime_s, 1);
    dsl_expect_ok(p);
    pto_param pp;
    assert_int_equal(pto_program_param(p, 0, &pp), 1);
    assert_string_equal(pp.name, "a");
    assert_true(pp.kind == PTO_ARG_TENSOR && pp.dtype == PTO_DTYPE_FP32 && pp.rank == 2 && pp.shape[1] == 16);
    assert_int_equal(pp.direction, 1);
    assert_int_equal(pto_program_param(p, 1, &pp), 1);
    assert_int_equal(pp.direction, 2);
    assert_int_equal(pto_program_param(p, 2, &pp), 1);
    assert_true(pp.kind == PTO_ARG_SCALAR && pp.dtype == PTO_DTYPE_FP32 && pp.direction == 0);
    assert_int_equal(pto_program_param(p, 3, &pp), 0);
    assert_int_equal(pto_program_nresults(p), 1);
    pto_program_free(p);
}

static void test_keep_stages_keeps_the_text_after_every_pass(void **s)
{
    (void)s;
    pto_program *p = compile_sig(SHAPED, "f", 1, runtime_s, 1);
    dsl_expect_ok(p);
    for (int st = PTO_STAGE_PARSE; st < PTO_STAGE_LOWER; st++) assert_non_null(pto_program_stage_text(p, (pto_stage)st));
    assert_null(strstr(pto_program_stage_text(p, PTO_STAGE_PARSE), "f_incore_0")); /* before the outliner */
    assert_non_null(strstr(pto_program_stage_text(p, PTO_STAGE_OUTLINE), "f_incore_0"));
    assert_string_equal(pto_program_stage_text(p, PTO_STAGE_CACHE), pto_program_text(p));
    assert_null(pto_program_stage_text(p, PTO_STAGE_LOWER));
    pto_program_free(p);
}

static void test_runtime_scalar_one_program_two_values(void **s)
{
    (void)s;
    pto_program *p = compile_sig(SHAPED, "f", 1, runtime_s, 1);
    dsl_expect_ok(p);
    pto_runtime *rt;
    pto_error err;
    assert_int_equal(pto_runtime_create(NULL, &rt, &err), 0);
    float a[256], out[256];
    for (int i = 0; i < 256; i++) a[i] = (float)i - 100.0f;
    for (int v = 2; v <= 3; v++) {
        pto_run_arg args[] = {
            {"a", {.kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .base = a, .rank = 2, .shape = {16, 16}}},
            {"out", {.kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .base = out, .rank = 2, .shape = {16, 16}}},
            {"s", {.kind = PTO_ARG_SCALAR, .value = {.kind = PTO_VALUE_FLOAT, .f = v}}},
        };
        int rc = pto_program_run(rt, p, args, 3, &err);
        if (rc) fprintf(stderr, "%s\n", err.message);
        assert_int_equal(rc, 0);
        for (int i = 0; i < 256; i++) assert_true(out[i] == a[i] * (float)v);
    }
    pto_runtime_destroy(rt);
    pto_program_free(p);
}

static void test_runtime_value_for_a_tensor_parameter_text(void **s)
{
    (void)s;
    static const pto_arg_spec bad[] = {{.name = "a", .kind = PTO_ARG_SCALAR, .value = {.kind = PTO_VALUE_RUNTIME}}};
    pto_program *p = compile_sig(SHAPED, "f", 1, bad, 1);
    expect_type_error(p, "@pl.jit function 'f': argument 'a' must be a tensor (torch.Tensor or numpy.ndarray), "
                                     "got pl.RUNTIME", 4);
    pto_program_free(p);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_signature_mode_bare_tensor_texts),
    cmocka_unit_test(test_compiled_entry_parameters_and_results),
    cmocka_unit_test(test_keep_stages_keeps_the_text_after_every_pass),
    cmocka_unit_test(test_runtime_scalar_one_program_two_values),
    cmocka_unit_test(test_runtime_value_for_a_tensor_parameter_text),
};

PTO_TEST_MAIN(tests)
