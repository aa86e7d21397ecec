/*
 * test_kernel_call_rules.c - calling a kernel, and the caller's arguments
 * to the entry (docs/dsl.md, "Decorators and function kinds" and
 * "Statements"): argument count, keywords (unknown, twice, device=), the
 * parameter types a call must match, declared scalar parameters that take
 * any fitting scalar at every call, and argument specs against the entry's
 * parameters.
 *
 * Invariants: one test per rule; each compiles a small program through
 * pto_compile and checks the first error's class, message and line:column,
 * or lines of the printed program; the error cites the argument.
 */
#include <stdint.h>
#include <stdio.h>

#include "harness.h"
#include "dsl_compile.h"

static void test_call_with_too_many_arguments_is_type_error(void **s)
{
    (void)s;
    DSL_ERROR("import pypto.language as pl\n"
              "\n"
              "@pl.jit.incore\n"
              "def k(x: pl.Tensor, y: pl.Out[pl.Tensor]):\n"
              "    return y\n"
              "@pl.jit\n"
              "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
              "    out = k(a, out, a)\n"
              "    return out\n",
              "f", "ParserTypeError", "'k' takes 2 argument(s) but 3 were given", 8, 21);
}

static void test_call_tensor_for_scalar_parameter_is_type_error(void **s)
{
    (void)s;
    DSL_ERROR("import pypto.language as pl\n"
              "\n"
              "@pl.jit.incore\n"
              "def k(x: pl.Tensor, n: pl.Scalar[pl.INT32], y: pl.Out[pl.Tensor]):\n"
              "    return y\n"
              "@pl.jit\n"
              "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
              "    out = k(a, a, out)\n"
              "    return out\n",
              "f", "ParserTypeError", "'k' parameter 'n' expects pl.Scalar[pl.INT32], got pl.Tensor[[256, 128], pl.FP32]", 8, 16);
}

/* The first call of a kernel (which checks its signature) cites the
 * argument, as every later call does, not the parameter. */
static void test_first_call_argument_mismatch_cites_the_argument(void **s)
{
    (void)s;
    DSL_ERROR("import pypto.language as pl\n"
              "\n"
              "@pl.jit.incore\n"
              "def k(x: pl.Tensor[[64, 128], pl.FP32], y: pl.Out[pl.Tensor]):\n"
              "    return y\n"
              "@pl.jit\n"
              "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
              "    out = k(a, out)\n"
              "    return out\n",
              "f", "ParserTypeError", "'k' parameter 'x' expects pl.Tensor[[64, 128], pl.FP32], got pl.Tensor[[256, 128], pl.FP32]", 8, 13);
}

static void test_call_keyword_given_twice_is_type_error(void **s)
{
    (void)s;
    DSL_ERROR("import pypto.language as pl\n"
              "\n"
              "@pl.jit.incore\n"
              "def k(x: pl.Tensor, y: pl.Out[pl.Tensor]):\n"
              "    pl.store(pl.load(x, [0, 0], [64, 128]), [0, 0], y)\n"
              "    return y\n"
              "@pl.jit\n"
              "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
              "    out = k(x=a, y=out, x=a)\n"
              "    return out\n",
              "f", "ParserTypeError", "'k' got an unexpected argument 'x'", 9, 25);
}

static void test_call_unknown_keyword_is_type_error(void **s)
{
    (void)s;
    DSL_ERROR("import pypto.language as pl\n"
              "\n"
              "@pl.jit.incore\n"
              "def k(x: pl.Tensor, y: pl.Out[pl.Tensor]):\n"
              "    pl.store(pl.load(x, [0, 0], [64, 128]), [0, 0], y)\n"
              "    return y\n"
              "@pl.jit\n"
              "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
              "    out = k(y=out, z=a)\n"
              "    return out\n",
              "f", "ParserTypeError", "'k' got an unexpected argument 'z'", 9, 20);
}

static void test_call_device_keyword_on_kernel_is_type_error(void **s)
{
    (void)s;
    DSL_ERROR("import pypto.language as pl\n"
              "\n"
              "@pl.jit.incore\n"
              "def k(x: pl.Tensor, y: pl.Out[pl.Tensor]):\n"
              "    pl.store(pl.load(x, [0, 0], [64, 128]), [0, 0], y)\n"
              "    return y\n"
              "@pl.jit\n"
              "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
              "    out = k(a, out)\n"
              "    out = k(a, out, device=1)\n"
              "    return out\n",
              "f", "ParserTypeError", "Function 'k' does not accept keyword argument 'device'", 10, 21);
}

static void test_second_call_with_another_scalar_type_is_type_error(void **s)
{
    (void)s;
    DSL_ERROR("import pypto.language as pl\n"
              "\n"
              "@pl.jit.incore\n"
              "def k(x: pl.Tensor, n: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor]):\n"
              "    pl.store(pl.load(x, [0, 0], [64, 128]), [0, 0], y)\n"
              "    return y\n"
              "@pl.jit\n"
              "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
              "    out = k(a, 1, out)\n"
              "    out = k(a, 1.5, out)\n"
              "    return out\n",
              "f", "ParserTypeError", "'k' parameter 'n' expects pl.Scalar[pl.INDEX], got pl.Scalar[pl.FP32]", 10, 16);
}

/* A parameter of declared scalar dtype takes, at every call, an integer for
 * any dtype and a float for a float dtype; a constant is converted, or does
 * not fit.  The second call used to demand the first call's exact type, so
 * k(a, 5, o); k(a, 6, o) was refused. */
#define K_INT8 "import pypto.language as pl\n\n@pl.jit.incore\n" \
               "def k(x: pl.Tensor, n: pl.Scalar[pl.INT8], y: pl.Out[pl.Tensor]):\n" \
               "    pl.store(pl.load(x, [0, 0], [64, 128]), [0, 0], y)\n    return y\n" \
               "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
static void test_declared_scalar_parameter_takes_a_fitting_scalar_at_every_call(void **s)
{
    (void)s;
    static const char *const want[] = {"self.k(a, 5, out)", "self.k(a, 6, out)", NULL};
    dsl_expect_compiles_containing(K_INT8 "    out = k(a, 5, out)\n    out = k(a, 6, out)\n    return out\n", NULL, 0, want);
    DSL_ERROR(K_INT8 "    out = k(a, 5, out)\n    out = k(a, 300, out)\n    return out\n", "f", "ParserTypeError",
              "'k' parameter 'n' = 300 does not fit pl.INT8", 10, 16);
    DSL_ERROR(K_INT8 "    out = k(a, 2.5, out)\n    return out\n", "f", "ParserTypeError",
              "'k' parameter 'n' expects pl.Scalar[pl.INT8], got pl.Scalar[pl.FP32]", 9, 16);
}

/* The caller's argument specs against the entry's parameters: a tensor
 * spec of rank 5 or a dtype past INT8, a scalar where a tensor is
 * declared, and scalar values outside the annotated dtype. */
static void spec_error(const char *params, const pto_arg_spec *args, size_t nargs, const char *msg)
{
    char src[512];
    snprintf(src, sizeof src, "import pypto.language as pl\n\n@pl.jit\ndef f(%s):\n    return out\n", params);
    pto_program *p = dsl_compile_with(src, "f", PTO_STAGE_LOWER, 0, args, nargs);
    dsl_expect_error(p, "TypeError", msg, 4, 0);
    pto_program_free(p);
}

static void test_argument_specs_must_fit_the_parameters(void **s)
{
    (void)s;
    const char *tensors = "a: pl.Tensor, out: pl.Out[pl.Tensor]";
    pto_arg_spec a[3] = {
        {.name = "a", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 5, .shape = {2, 2, 2, 2}},
        {.name = "out", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {256, 128}},
        {.name = "n", .kind = PTO_ARG_SCALAR, .value = {.kind = PTO_VALUE_INT, .i = 1}},
    };
    spec_error(tensors, a, 2, "argument 'a' must be a tensor of rank 1 to 4 and a tensor dtype");
    a[0].rank = 2, a[0].dtype = (pto_dtype)(PTO_DTYPE_INT8 + 1);
    spec_error(tensors, a, 2, "argument 'a' must be a tensor of rank 1 to 4 and a tensor dtype");
    a[0] = (pto_arg_spec){.name = "a", .kind = PTO_ARG_SCALAR, .value = {.kind = PTO_VALUE_FLOAT, .f = 1.5}};
    spec_error(tensors, a, 2, "argument 'a' must be a tensor (torch.Tensor or numpy.ndarray), got float");
    a[0].value = (pto_value){.kind = PTO_VALUE_BOOL, .i = 1};
    spec_error(tensors, a, 2, "argument 'a' must be a tensor (torch.Tensor or numpy.ndarray), got bool");
    a[0] = (pto_arg_spec){.name = "a", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {256, 128}};
    const char *with_n = "a: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar[pl.INT32]";
    a[2].value.i = (int64_t)INT32_MAX + 1;
    spec_error(with_n, a, 3, "'f' argument 'n' = 2147483648 does not fit pl.INT32");
    a[2].value.i = INT32_MIN;
    pto_program *p = dsl_compile_with("import pypto.language as pl\n\n@pl.jit\n"
                                      "def f(a: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar[pl.INT32]):\n    return out\n",
                                      "f", PTO_STAGE_LOWER, 0, a, 3);
    dsl_expect_ok(p); /* exactly the lowest INT32 fits */
    pto_program_free(p);
    a[2].value = (pto_value){.kind = PTO_VALUE_FLOAT, .f = 1.5};
    spec_error(with_n, a, 3, "@pl.jit function 'f': argument 'n' must be a Python int for pl.Scalar[pl.INT32], got float");
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_call_with_too_many_arguments_is_type_error),
    cmocka_unit_test(test_call_tensor_for_scalar_parameter_is_type_error),
    cmocka_unit_test(test_first_call_argument_mismatch_cites_the_argument),
    cmocka_unit_test(test_call_keyword_given_twice_is_type_error),
    cmocka_unit_test(test_call_unknown_keyword_is_type_error),
    cmocka_unit_test(test_call_device_keyword_on_kernel_is_type_error),
    cmocka_unit_test(test_second_call_with_another_scalar_type_is_type_error),
    cmocka_unit_test(test_declared_scalar_parameter_takes_a_fitting_scalar_at_every_call),
    cmocka_unit_test(test_argument_specs_must_fit_the_parameters),
};

PTO_TEST_MAIN(tests)
