/*
 * test_compiler_op_rules_more.c - DSL rules of calls and decorators that
 * the other compiler tests leave unexercised: decorator variants, levels
 * and arguments (one from a module constant), pl.at() arguments, pl.submit
 * and pl.set_cache_policy placement, the argument rules of pl.load,
 * pl.store, pl.cast, pl.matmul and pl.create_tensor, and the arguments of
 * a call to a kernel.  One test per rule; each compiles a small program
 * through pto_compile and checks the first error's class, message and
 * line:column.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
              "f", "UnsupportedFeatureError", "pl.at(level=pl.Level.AIV) is not supported in this version", 5, 22);
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

static void test_store_offsets_not_a_list_is_type_error(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    with pl.at(level=pl.Level.CORE_GROUP):\n"
              "        t = pl.load(a, [0, 0], [64, 128])\n"
              "        pl.store(t, 0, out)\n"
              "    return out\n",
              "f", "ParserTypeError", "offsets must be a list like [0, 0]", 7, 21);
}

static void test_store_of_a_scalar_expects_a_tile(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    with pl.at(level=pl.Level.CORE_GROUP):\n"
              "        t = pl.load(a, [0, 0], [64, 128])\n"
              "        pl.store(1, [0, 0], out)\n"
              "    return out\n",
              "f", "ParserTypeError", "expected a tile, got pl.Scalar[pl.INDEX]", 7, 18);
}

static void test_load_valid_shape_rank_mismatch_is_invalid_op(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    with pl.at(level=pl.Level.CORE_GROUP):\n"
              "        t = pl.load(a, [0, 0], [64, 128])\n"
              "        u = pl.load(a, [0, 0], [64, 128], valid_shape=[64])\n"
              "    return out\n",
              "f", "InvalidOperationError", "pl.load: valid_shape has 1 entries for a rank-2 tile", 7, 55);
}

static void test_load_target_memory_must_be_a_mem_member(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    with pl.at(level=pl.Level.CORE_GROUP):\n"
              "        t = pl.load(a, [0, 0], [64, 128])\n"
              "        u = pl.load(a, [0, 0], [64, 128], target_memory=3)\n"
              "    return out\n",
              "f", "ParserTypeError", "pl.load target_memory= must be a pl.Mem member", 7, 57);
}

static void test_matmul_mixed_dtypes_is_type_error(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    with pl.at(level=pl.Level.CORE_GROUP):\n"
              "        t = pl.load(a, [0, 0], [64, 128])\n"
              "        u = pl.matmul(t, pl.cast(pl.load(a, [0, 0], [128, 64]), pl.FP16))\n"
              "    return out\n",
              "f", "ParserTypeError", "pl.matmul: operand dtypes FP32 and FP16 differ; insert pl.cast", 7, 13);
}

static void test_matmul_int32_operands_is_type_error(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    with pl.at(level=pl.Level.CORE_GROUP):\n"
              "        t = pl.load(a, [0, 0], [64, 128])\n"
              "        v = pl.cast(t, pl.INT32)\n"
              "        u = pl.matmul(pl.cast(pl.load(a, [0, 0], [64, 64]), pl.INT32), pl.cast(pl.load(a, [0, 0], [64, 64]), pl.INT32))\n"
              "    return out\n",
              "f", "ParserTypeError", "pl.matmul takes FP32, FP16, BF16 or INT8 operands, got INT32", 8, 13);
}

/* init_value= is an int or float scalar, and a float only for a float tensor. */
static void test_create_tensor_init_value_must_fit_the_dtype(void **s)
{
    (void)s;
    DSL_ERROR("import pypto.language as pl\n\n@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
               "    x = pl.create_tensor([64, 64], pl.INT32, init_value=1.5)\n    return out\n",
               "f", "ParserTypeError", "pl.create_tensor: a float init_value= for an INT32 tensor; pass an int", 5, 57);
    DSL_ERROR("import pypto.language as pl\n\n@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
               "    x = pl.create_tensor([64, 64], pl.FP32, init_value=True)\n    return out\n",
               "f", "ParserTypeError", "pl.create_tensor init_value= must be an int or float scalar", 5, 56);
}

static void test_create_tensor_empty_shape_is_invalid_op(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    x = pl.create_tensor([], pl.FP32)\n"
              "    return out\n",
              "f", "InvalidOperationError", "pl.create_tensor: the shape needs 1 to 4 entries", 5, 26);
}

static void test_create_tensor_bool_dtype_is_type_error(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    x = pl.create_tensor([64, 64], pl.BOOL)\n"
              "    return out\n",
              "f", "ParserTypeError", "a tensor dtype must be FP32, FP16, BF16, INT32 or INT8", 5, 36);
}

static void test_create_tensor_layout_other_than_nd_is_unsupported(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    x = 1\n"
              "    y = x < 2 and x > 0\n"
              "    z = pl.create_tensor([64, 64], pl.FP32, pl.ND)\n"
              "    w = pl.create_tensor([64, 64], pl.FP32, 5)\n"
              "    return out\n",
              "f", "UnsupportedFeatureError", "a layout other than pl.ND is not supported in this version", 8, 45);
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

static void test_jit_auto_scope_int_is_type_error(void **s)
{
    (void)s;
    DSL_ERROR("import pypto.language as pl\n"
              "\n"
              "@pl.jit(auto_scope=3)\n"
              "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
              "    return out\n",
              "f", "TypeError", "auto_scope must be a bool, got int", 3, 20);
}

static void test_function_decorator_outside_program_is_unsupported(void **s)
{
    (void)s;
    DSL_ERROR("import pypto.language as pl\n"
              "\n"
              "@pl.function\n"
              "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
              "    return out\n",
              "f", "UnsupportedFeatureError", "@pl.function outside @pl.program is not supported in this version", 3, 2);
}

static void test_jit_unknown_variant_is_unsupported(void **s)
{
    (void)s;
    DSL_ERROR("import pypto.language as pl\n"
              "\n"
              "@pl.jit.foo\n"
              "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
              "    return out\n",
              "f", "UnsupportedFeatureError", "@pl.jit.foo is not supported in this version", 3, 2);
}

static void test_function_level_on_orchestration_is_syntax_error(void **s)
{
    (void)s;
    DSL_ERROR("import pypto.language as pl\n"
              "\n"
              "@pl.program\n"
              "class P:\n"
              "    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CORE_GROUP)\n"
              "    def f(self, a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
              "        return out\n",
              "P", "ParserSyntaxError", "@pl.function(level=...) applies to InCore functions only", 5, 54);
}

static void test_function_level_host_is_unsupported(void **s)
{
    (void)s;
    DSL_ERROR("import pypto.language as pl\n"
              "\n"
              "@pl.program\n"
              "class P:\n"
              "    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.HOST)\n"
              "    def k(self, a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
              "        return out\n"
              "    @pl.function(type=pl.FunctionType.Orchestration)\n"
              "    def f(self, a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
              "        out = self.k(a, out)\n"
              "        return out\n",
              "P", "UnsupportedFeatureError", "@pl.function(level=pl.Level.HOST) is not supported in this version", 5, 53);
}

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

static void test_jit_auto_scope_from_a_module_constant(void **s)
{
    (void)s;
    static const char *const want[] = {"auto_scope=False)", "with pl.scope():", NULL};
    dsl_expect_compiles_containing("import pypto.language as pl\n\nFLAG = False\n@pl.jit(auto_scope=FLAG)\n"
                     "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n    with pl.scope():\n        pass\n    return out\n",
                     NULL, 0, want);
}

/* A decorator's auto_scope= must be a bool; the message names the Python
 * type it got. */
static void test_jit_auto_scope_non_bool_names_the_python_type(void **s)
{
    (void)s;
    static const char *const values[] = {"1.5", "None", "[1]", "(1, 2)"};
    static const char *const types[] = {"float", "NoneType", "list", "tuple"};
    for (int k = 0; k < 4; k++) {
        char src[256], msg[64];
        snprintf(src, sizeof src, "import pypto.language as pl\n\n@pl.jit(auto_scope=%s)\n"
                                  "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n    return out\n", values[k]);
        snprintf(msg, sizeof msg, "auto_scope must be a bool, got %s", types[k]);
        DSL_ERROR(src, "f", "TypeError", msg, 3, 20);
    }
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

static void test_call_device_keyword_is_unsupported(void **s)
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
              "f", "UnsupportedFeatureError", "device= is not supported in this version", 10, 21);
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

static void test_incore_function_as_entry_is_type_error(void **s)
{
    (void)s;
    DSL_ERROR("import pypto.language as pl\n"
              "\n"
              "@pl.jit.incore\n"
              "def k(x: pl.Tensor, y: pl.Out[pl.Tensor]):\n"
              "    pl.store(pl.load(x, [0, 0], [64, 128]), [0, 0], y)\n"
              "    return y\n"
              "@pl.jit.inline\n"
              "def g(x: pl.Tensor, y: pl.Out[pl.Tensor]):\n"
              "    return y\n",
              "k", "TypeError", "@pl.jit.incore function 'k' cannot be called directly; call it from a @pl.jit entry", 3, 1);
}

static void test_inline_function_as_entry_is_type_error(void **s)
{
    (void)s;
    DSL_ERROR("import pypto.language as pl\n"
              "\n"
              "@pl.jit.incore\n"
              "def k(x: pl.Tensor, y: pl.Out[pl.Tensor]):\n"
              "    pl.store(pl.load(x, [0, 0], [64, 128]), [0, 0], y)\n"
              "    return y\n"
              "@pl.jit.inline\n"
              "def g(x: pl.Tensor, y: pl.Out[pl.Tensor]):\n"
              "    return y\n",
              "g", "TypeError", "@pl.jit.inline function 'g' cannot be called directly; call it from a @pl.jit entry", 7, 1);
}

static void test_opaque_function_as_entry_is_type_error(void **s)
{
    (void)s;
    DSL_ERROR("import pypto.language as pl\n"
              "\n"
              "@pl.jit.opaque\n"
              "def g(x: pl.Tensor, y: pl.Out[pl.Tensor]):\n"
              "    return y\n",
              "g", "TypeError", "@pl.jit.opaque function 'g' cannot be called directly; call it from a @pl.jit entry", 3, 1);
}


static void test_load_of_a_value_that_is_no_tensor_names_its_type(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER "    with pl.at(level=pl.Level.CORE_GROUP):\n"
                           "        t = pl.load(3, [0, 0], [64, 128])\n"
                           "        pl.store(t, [0, 0], out)\n"
                           "    return out\n",
              "f", "ParserTypeError", "pl.load expects a tensor here, got pl.Scalar[pl.INDEX]", 6, 21);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_load_of_a_value_that_is_no_tensor_names_its_type),
    cmocka_unit_test(test_submit_of_a_non_kernel_is_syntax_error),
    cmocka_unit_test(test_set_cache_policy_as_expression_is_syntax_error),
    cmocka_unit_test(test_at_with_three_positional_arguments_is_syntax_error),
    cmocka_unit_test(test_at_name_hint_must_be_a_string_literal),
    cmocka_unit_test(test_at_name_hint_keyword_is_not_an_identifier),
    cmocka_unit_test(test_at_level_aiv_is_unsupported),
    cmocka_unit_test(test_at_host_level_with_deps_is_syntax_error),
    cmocka_unit_test(test_at_without_level_is_syntax_error),
    cmocka_unit_test(test_store_offsets_not_a_list_is_type_error),
    cmocka_unit_test(test_store_of_a_scalar_expects_a_tile),
    cmocka_unit_test(test_load_valid_shape_rank_mismatch_is_invalid_op),
    cmocka_unit_test(test_load_target_memory_must_be_a_mem_member),
    cmocka_unit_test(test_matmul_mixed_dtypes_is_type_error),
    cmocka_unit_test(test_matmul_int32_operands_is_type_error),
    cmocka_unit_test(test_create_tensor_init_value_must_fit_the_dtype),
    cmocka_unit_test(test_create_tensor_empty_shape_is_invalid_op),
    cmocka_unit_test(test_create_tensor_bool_dtype_is_type_error),
    cmocka_unit_test(test_create_tensor_layout_other_than_nd_is_unsupported),
    cmocka_unit_test(test_at_called_as_expression_is_syntax_error),
    cmocka_unit_test(test_set_cache_policy_policy_must_be_a_member),
    cmocka_unit_test(test_jit_auto_scope_int_is_type_error),
    cmocka_unit_test(test_function_decorator_outside_program_is_unsupported),
    cmocka_unit_test(test_jit_unknown_variant_is_unsupported),
    cmocka_unit_test(test_function_level_on_orchestration_is_syntax_error),
    cmocka_unit_test(test_function_level_host_is_unsupported),
    cmocka_unit_test(test_call_with_too_many_arguments_is_type_error),
    cmocka_unit_test(test_call_tensor_for_scalar_parameter_is_type_error),
    cmocka_unit_test(test_first_call_argument_mismatch_cites_the_argument),
    cmocka_unit_test(test_jit_auto_scope_from_a_module_constant),
    cmocka_unit_test(test_jit_auto_scope_non_bool_names_the_python_type),
    cmocka_unit_test(test_argument_specs_must_fit_the_parameters),
    cmocka_unit_test(test_at_deps_not_a_list_is_syntax_error),
    cmocka_unit_test(test_at_deps_entry_not_a_task_id_is_syntax_error),
    cmocka_unit_test(test_tile_op_scalar_on_the_left_is_invalid_op),
    cmocka_unit_test(test_true_division_of_integers_is_type_error),
    cmocka_unit_test(test_scalar_floor_division_by_a_tile_is_type_error),
    cmocka_unit_test(test_call_keyword_given_twice_is_type_error),
    cmocka_unit_test(test_call_unknown_keyword_is_type_error),
    cmocka_unit_test(test_call_device_keyword_is_unsupported),
    cmocka_unit_test(test_second_call_with_another_scalar_type_is_type_error),
    cmocka_unit_test(test_declared_scalar_parameter_takes_a_fitting_scalar_at_every_call),
    cmocka_unit_test(test_incore_function_as_entry_is_type_error),
    cmocka_unit_test(test_inline_function_as_entry_is_type_error),
    cmocka_unit_test(test_opaque_function_as_entry_is_type_error),
};

PTO_TEST_MAIN(tests)
