/*
 * test_compiler_rules_more.c - expression and statement rules of the DSL
 * that the other compiler tests leave unexercised: module constants (a
 * cycle, constants given through pto_compile_options), annotations
 * (shaped tensors, scalars, later dtypes), scalar folding and lowering,
 * tile and scalar operators, comparisons, min/max, names that are not
 * callable, assignment targets and bound values, statements kernel code
 * rejects (del, assert), pl.range bounds, load/cast/create_tensor
 * keyword rules (test_compiler_op_rules_more.c
 * has the calls and decorators).  One test per rule; each compiles a small
 * program through pto_compile and checks the first error's class, message
 * and line:column, or the printed program.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "dsl_compile.h"

static void test_module_constant_defined_by_itself_is_type_error(void **s)
{
    (void)s;
    DSL_ERROR("import pypto.language as pl\n"
              "\n"
              "K = K + 1\n"
              "@pl.jit\n"
              "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
              "    with pl.at(level=pl.Level.CORE_GROUP):\n"
              "        t = pl.load(a, [0, 0], [64, 128])\n"
              "        pl.store(pl.mul(t, K), [0, 0], out)\n"
              "    return out\n",
              "f", "ParserTypeError", "module constant 'K' is defined in terms of itself", 3, 5);
}

static void test_module_assignment_of_a_comparison_defines_no_constant(void **s)
{
    (void)s;
    DSL_ERROR("import pypto.language as pl\n"
              "\n"
              "K = 1 < 2\n"
              "@pl.jit\n"
              "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
              "    x = K + 1\n"
              "    return out\n",
              "f", "UndefinedVariableError", "name 'K' is not defined", 6, 9);
}

static void test_later_dtype_in_tensor_annotation_is_unsupported(void **s)
{
    (void)s;
    DSL_ERROR("import pypto.language as pl\n"
              "\n"
              "@pl.jit\n"
              "def f(a: pl.Tensor[[256, 128], pl.INT64], out: pl.Out[pl.Tensor]):\n"
              "    return out\n",
              "f", "UnsupportedFeatureError", "dtype pl.INT64 is not supported in this version", 4, 32);
}

static void test_later_dtype_in_scalar_annotation_is_unsupported(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    x: pl.Scalar[pl.INT64] = 1\n"
              "    return out\n",
              "f", "UnsupportedFeatureError", "dtype pl.INT64 is not supported in this version", 5, 18);
}

static void test_shaped_tensor_annotation_needs_dims_and_dtype(void **s)
{
    (void)s;
    DSL_ERROR("import pypto.language as pl\n"
              "\n"
              "@pl.jit\n"
              "def f(a: pl.Tensor[[256], pl.FP32, 3], out: pl.Out[pl.Tensor]):\n"
              "    return out\n",
              "f", "ParserTypeError", "a shaped tensor annotation reads pl.Tensor[[d0, d1, ...], dtype]", 4, 10);
}

static void test_tensor_annotation_rank_above_four_is_type_error(void **s)
{
    (void)s;
    DSL_ERROR("import pypto.language as pl\n"
              "\n"
              "@pl.jit\n"
              "def f(a: pl.Tensor[[1, 2, 3, 4, 5], pl.FP32], out: pl.Out[pl.Tensor]):\n"
              "    return out\n",
              "f", "ParserTypeError", "tensor rank must be 1 to 4, got 5", 4, 20);
}

static void test_tensor_annotation_zero_dimension_is_type_error(void **s)
{
    (void)s;
    DSL_ERROR("import pypto.language as pl\n"
              "\n"
              "@pl.jit\n"
              "def f(a: pl.Tensor[[0, 128], pl.FP32], out: pl.Out[pl.Tensor]):\n"
              "    return out\n",
              "f", "ParserTypeError", "tensor dimension 0 must be positive, got 0", 4, 21);
}

static void test_tensor_annotation_bool_dtype_is_type_error(void **s)
{
    (void)s;
    DSL_ERROR("import pypto.language as pl\n"
              "\n"
              "@pl.jit\n"
              "def f(a: pl.Tensor[[256, 128], pl.BOOL], out: pl.Out[pl.Tensor]):\n"
              "    return out\n",
              "f", "ParserTypeError", "a tensor dtype must be FP32, FP16, BF16, INT32 or INT8", 4, 32);
}

static void test_tensor_annotation_float_dimension_is_not_constant(void **s)
{
    (void)s;
    DSL_ERROR("import pypto.language as pl\n"
              "\n"
              "@pl.jit\n"
              "def f(a: pl.Tensor[[256, 1.5], pl.FP32], out: pl.Out[pl.Tensor]):\n"
              "    return out\n",
              "f", "ParserTypeError", "tensor annotation shapes must be compile-time constants", 4, 26);
}

static void test_constant_floor_division_by_zero_is_invalid_op(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    n = 7 // 0\n"
              "    return out\n",
              "f", "InvalidOperationError", "integer division or modulo by zero", 5, 14);
}

static void test_tile_floor_division_is_unsupported(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    with pl.at(level=pl.Level.CORE_GROUP):\n"
              "        t = pl.load(a, [0, 0], [64, 128])\n"
              "        u = t // t\n"
              "        pl.store(u, [0, 0], out)\n"
              "    return out\n",
              "f", "UnsupportedFeatureError", "tile operator '//' is not supported in this version", 7, 13);
}

static void test_comparison_of_tiles_is_type_error(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    with pl.at(level=pl.Level.CORE_GROUP):\n"
              "        t = pl.load(a, [0, 0], [64, 128])\n"
              "        u = t < t\n"
              "    return out\n",
              "f", "ParserTypeError", "'<' compares scalars only", 7, 13);
}

static void test_min_with_three_arguments_is_type_error(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    x = min(1, 2, 3)\n"
              "    return out\n",
              "f", "ParserTypeError", "min() takes exactly 2 arguments in kernel code", 5, 9);
}

static void test_max_of_a_tile_points_to_pl_maximum(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    with pl.at(level=pl.Level.CORE_GROUP):\n"
              "        t = pl.load(a, [0, 0], [64, 128])\n"
              "        u = max(t, 1)\n"
              "    return out\n",
              "f", "ParserTypeError", "max() takes scalars", 7, 13);
}

static void test_list_plus_scalar_needs_scalar_operands(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    y = [1, 2] + 1\n"
              "    return out\n",
              "f", "ParserTypeError", "operator '+' needs scalar operands, got list and pl.Scalar[pl.INDEX]", 5, 9);
}

static void test_none_is_not_a_kernel_value(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    x = None\n"
              "    return out\n",
              "f", "ParserTypeError", "None is not a value in kernel code", 5, 9);
}

static void test_subscript_is_unsupported(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    x = a[0]\n"
              "    return out\n",
              "f", "UnsupportedFeatureError", "a subscript is not supported in this version", 5, 9);
}

static void test_attribute_of_a_tensor_is_unsupported(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    x = a.shape\n"
              "    return out\n",
              "f", "UnsupportedFeatureError", "attribute '.shape' is not supported in this version", 5, 9);
}

static void test_call_of_unknown_name_is_undefined(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    x = foo(1)\n"
              "    return out\n",
              "f", "UndefinedVariableError", "name 'foo' is not defined", 5, 9);
}

static void test_call_of_a_local_scalar_is_not_callable(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    x = 1\n"
              "    y = x(2)\n"
              "    return out\n",
              "f", "ParserTypeError", "'x' is not callable", 6, 9);
}

static void test_call_of_a_module_constant_is_not_callable(void **s)
{
    (void)s;
    DSL_ERROR("import pypto.language as pl\n"
              "\n"
              "K = 3\n"
              "@pl.jit\n"
              "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
              "    y = K(2)\n"
              "    return out\n",
              "f", "ParserTypeError", "'K' is not callable", 6, 9);
}

static void test_attribute_assignment_target_is_unsupported(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    a.x = 1\n"
              "    return out\n",
              "f", "UnsupportedFeatureError", "this assignment target is not supported in this version", 5, 5);
}

static void test_annotated_assignment_of_other_type_is_type_error(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    with pl.at(level=pl.Level.CORE_GROUP):\n"
              "        t = pl.load(a, [0, 0], [64, 128])\n"
              "        x: pl.Scalar[pl.INT32] = t\n"
              "    return out\n",
              "f", "ParserTypeError", "'x' is annotated pl.Scalar[pl.INT32] but assigned pl.Tile[[64, 128], pl.FP32]", 7, 12);
}

static void test_if_condition_on_a_tile_is_type_error(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    with pl.at(level=pl.Level.CORE_GROUP):\n"
              "        t = pl.load(a, [0, 0], [64, 128])\n"
              "        if t:\n"
              "            pass\n"
              "    return out\n",
              "f", "ParserTypeError", "if condition must be a scalar expression, got pl.Tile[[64, 128], pl.FP32]", 7, 12);
}

static void test_range_bound_float_is_type_error(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    for i in pl.range(1.5):\n"
              "        pass\n"
              "    return out\n",
              "f", "ParserTypeError", "pl.range() bounds must be integer scalars", 5, 23);
}

static void test_orchestration_returning_a_scalar_is_type_error(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    return 1\n",
              "f", "ParserTypeError", "'f' may return only tensors", 5, 12);
}

static void test_scalar_float_arithmetic_folds_to_a_constant(void **s)
{
    (void)s;
    static const char *const want[] = {"n = 5.0\n", "m = 3.0\n", "k = -2.5\n", NULL};
    dsl_expect_compiles_containing("import pypto.language as pl\n\n@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                     "    n = 2.0 + 3\n    m = 1.5 * 2.0\n    k = -2.5\n"
                     "    with pl.at(level=pl.Level.CORE_GROUP):\n        t = pl.load(a, [0, 0], [64, 128])\n"
                     "        pl.store(pl.add(pl.mul(t, n), m + k), [0, 0], out)\n    return out\n",
                     NULL, 0, want);
}

/* Constants the caller resolved (Python closures and globals) enter
 * kernel code as literals of their kind: int, float and bool. */
static void test_option_constants_of_every_kind_become_literals(void **s)
{
    (void)s;
    static const pto_constant consts[] = {
        {"SCALE", {.kind = PTO_VALUE_FLOAT, .f = 0.5}},
        {"ROWS", {.kind = PTO_VALUE_INT, .i = 64}},
        {"FLAG", {.kind = PTO_VALUE_BOOL, .i = 7}},
    };
    static const char *const want[] = {"x = 0.5\n", "y = True\n", "[64, 128]", NULL};
    dsl_expect_compiles_containing("import pypto.language as pl\n\n@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                     "    x = SCALE\n    y = FLAG\n"
                     "    with pl.at(level=pl.Level.CORE_GROUP):\n        t = pl.load(a, [0, 0], [ROWS, 128])\n"
                     "        pl.store(pl.mul(t, x), [0, 0], out)\n    return out\n",
                     consts, 3, want);
}


/* Orchestration scalars: a tuple unpacks into one MOV per name; not and
 * unary minus on a variable lower to NOT and NEG of its register. */
static void test_tuple_unpacking_and_unary_ops_lower_to_moves_and_unary_insns(void **s)
{
    (void)s;
    pto_program *p = dsl_compile("import pypto.language as pl\n\n@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                                 "    x, y = 1, 2.5\n    n = x + 1\n    b = not (n > 1)\n    m = -n\n"
                                 "    with pl.at(level=pl.Level.CORE_GROUP):\n        t = pl.load(a, [0, 0], [64, 128])\n"
                                 "        pl.store(pl.mul(t, y), [m + 2, 0], out)\n    return out\n",
                                 "f", PTO_STAGE_LOWER);
    dsl_expect_ok(p);
    const char *l = pto_program_listing(p);
    static const char *const want[] = {"r2 x pl.Scalar[pl.INDEX]", "r3 y pl.Scalar[pl.FP32]", "MOV r2 = r0 @5:5",
                                       "MOV r3 = r1 @5:5", "NOT r6 = r7 BOOL @7:9", "NEG r9 = r4 INDEX @8:9", NULL};
    for (const char *const *w = want; *w; w++) {
        if (!strstr(l, *w)) fprintf(stderr, "missing \"%s\" in:\n%s\n", *w, l);
        assert_non_null(strstr(l, *w));
    }
    pto_program_free(p);
}

/* Regression: a list, tuple or str bound to a name (DSL-SPEC: "may be
 * bound to a name") reached lowering as an internal compiler error; it is a
 * compile-time value with no register and lowers to nothing. */
static void expect_binding_lowers_to_nothing(const char *src, const pto_constant *consts, size_t nconsts)
{
    pto_compile_options o = {.filename = "k.py", .source = src, .source_len = strlen(src), .entry = "f",
                             .args = dsl_default_args, .nargs = 3, .constants = consts, .nconstants = nconsts,
                             .stop_after = PTO_STAGE_LOWER};
    pto_program *p = NULL;
    assert_true(pto_compile(&o, &p) >= 0);
    dsl_expect_ok(p);
    const char *l = pto_program_listing(p);
    if (strstr(l, " z ")) fprintf(stderr, "z has a register:\n%s\n", l);
    assert_null(strstr(l, " z "));
    assert_non_null(strstr(l, "SUBMIT"));
    pto_program_free(p);
}

static void test_binding_a_list_to_a_name_lowers_to_nothing(void **s)
{
    (void)s;
    expect_binding_lowers_to_nothing("import pypto.language as pl\n\n@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                                     "    z = [0, 0]\n    with pl.at(level=pl.Level.CORE_GROUP):\n        w = (64, 128)\n"
                                     "        pl.store(pl.load(a, [0, 0], [64, 128]), [0, 0], out)\n    return out\n",
                                     NULL, 0);
}

static void test_binding_a_string_to_a_name_lowers_to_nothing(void **s)
{
    (void)s;
    static const pto_constant label = {"LABEL", {.kind = PTO_VALUE_STR, .s = "tag"}};
    expect_binding_lowers_to_nothing("import pypto.language as pl\n\n@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                                     "    x, z = 1, LABEL\n    with pl.at(level=pl.Level.CORE_GROUP):\n        w = \"tag\"\n"
                                     "        pl.store(pl.load(a, [0, 0], [64, 128]), [0, 0], out)\n    return out\n",
                                     &label, 1);
}

static void test_positional_only_parameters_are_unsupported(void **s)
{
    (void)s;
    DSL_ERROR("import pypto.language as pl\n"
              "\n"
              "@pl.jit\n"
              "def f(a: pl.Tensor, /, out: pl.Out[pl.Tensor]):\n"
              "    return out\n",
              "f", "UnsupportedFeatureError", "Python 'positional-only parameters' is not supported in kernel code", 4, 21);
}

static void test_ellipsis_is_unsupported(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    x = ...\n"
              "    return out\n",
              "f", "UnsupportedFeatureError", "'...' is not supported in this version", 5, 9);
}

static void test_f_string_is_unsupported(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    x = f'{a}'\n"
              "    return out\n",
              "f", "UnsupportedFeatureError", "an f-string is not supported in this version", 5, 9);
}

static void test_bytes_literal_is_unsupported(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    x = b'ab'\n"
              "    return out\n",
              "f", "UnsupportedFeatureError", "a bytes literal is not supported in this version", 5, 9);
}

static void test_yield_expression_is_unsupported(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    x = yield 1\n"
              "    return out\n",
              "f", "UnsupportedFeatureError", "Python 'yield' is not supported in kernel code", 5, 9);
}

static void test_star_argument_unpacking_is_unsupported(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    x = max(*a)\n"
              "    return out\n",
              "f", "UnsupportedFeatureError", "'*' argument unpacking is not supported in this version", 5, 13);
}

/* Several statements on one line, separated by ';', and the != and >=
 * comparisons parse, type and lower. */
static void test_semicolon_statements_and_ne_ge_comparisons_compile(void **s)
{
    (void)s;
    pto_program *p = dsl_compile("import pypto.language as pl\n\n@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                                 "    x = 1; y = 2; z = x != y\n    w = x >= y\n    return out\n",
                                 "f", PTO_STAGE_LOWER);
    dsl_expect_ok(p);
    assert_non_null(strstr(pto_program_text(p), "            x = 1\n            y = 2\n            z = x != y\n            w = x >= y\n"));
    assert_non_null(strstr(pto_program_listing(p), "NE "));
    assert_non_null(strstr(pto_program_listing(p), "GE "));
    pto_program_free(p);
}

/* Task ids (pl.at(...) as tid) are handles, not numbers. */
static void test_comparing_task_ids_is_type_error(void **s)
{
    (void)s;
    DSL_ERROR("import pypto.language as pl\n\n@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
               "    with pl.at(level=pl.Level.CORE_GROUP) as tid:\n        pl.store(pl.load(a, [0, 0], [64, 128]), [0, 0], out)\n"
               "    with pl.at(level=pl.Level.CORE_GROUP, deps=[tid]) as t2:\n"
               "        pl.store(pl.load(a, [64, 0], [64, 128]), [64, 0], out)\n"
               "    x = tid == t2\n    return out\n",
               "f", "ParserTypeError", "a TaskId can only be passed in deps=", 9, 9);
}

static void test_load_unknown_keyword_is_type_error(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    with pl.at(level=pl.Level.CORE_GROUP):\n"
              "        t = pl.load(a, [0, 0], [64, 128])\n"
              "        u = pl.load(a, [0, 0], [64, 128], foo=1)\n"
              "    return out\n",
              "f", "ParserTypeError", "pl.load() got an unexpected keyword argument 'foo'", 7, 43);
}

static void test_cast_mode_odd_is_unsupported(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    with pl.at(level=pl.Level.CORE_GROUP):\n"
              "        t = pl.load(a, [0, 0], [64, 128])\n"
              "        u = pl.cast(t, pl.INT32, mode=\"odd\")\n"
              "        v = pl.cast(t, pl.INT32, mode=\"none\")\n"
              "        w = pl.cast(t, pl.INT32, mode=\"bogus\")\n"
              "    return out\n",
              "f", "UnsupportedFeatureError", "pl.cast mode 'odd' is not supported in this version", 7, 39);
}

static void test_create_tensor_in_kernel_code_is_invalid_op(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    with pl.at(level=pl.Level.CORE_GROUP):\n"
              "        t = pl.load(a, [0, 0], [64, 128])\n"
              "        x = pl.create_tensor([64, 64], pl.FP32)\n"
              "    return out\n",
              "f", "InvalidOperationError", "pl.create_tensor is control-plane work and is not allowed in kernel code", 7, 13);
}

static void test_del_in_kernel_code_is_unsupported(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    with pl.at(level=pl.Level.CORE_GROUP):\n"
              "        t = pl.load(a, [0, 0], [64, 128])\n"
              "        del t\n"
              "    return out\n",
              "f", "UnsupportedFeatureError", "Python 'del' is not supported in kernel code", 7, 9);
}

static void test_assert_in_kernel_code_is_unsupported(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    with pl.at(level=pl.Level.CORE_GROUP):\n"
              "        t = pl.load(a, [0, 0], [64, 128])\n"
              "        assert t\n"
              "    return out\n",
              "f", "UnsupportedFeatureError", "Python 'assert' is not supported in kernel code", 7, 9);
}

static void test_scalar_annotation_of_a_float_value_is_type_error(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    x: pl.Scalar[pl.INT32] = 1.5\n"
              "    return out\n",
              "f", "ParserTypeError", "'x' = 1.5 does not fit pl.INT32", 5, 30);
}

static void test_tile_annotation_is_unsupported(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    with pl.at(level=pl.Level.CORE_GROUP):\n"
              "        t = pl.load(a, [0, 0], [64, 128])\n"
              "        x: pl.Tile[[64, 128], pl.FP32] = t\n"
              "    return out\n",
              "f", "UnsupportedFeatureError", "pl.Tile is not supported in this version", 7, 12);
}

static void test_range_float_stop_is_type_error(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    for i in pl.range(1, 2.5):\n"
              "        pass\n"
              "    return out\n",
              "f", "ParserTypeError", "pl.range() bounds must be integer scalars", 5, 26);
}


static void test_name_assigned_in_one_branch_only_may_be_unbound(void **s)
{
    (void)s;
    DSL_ERROR(DSL_F_HEADER
              "    n = 1\n"
              "    if n > 0:\n"
              "        m = 2\n"
              "    with pl.at(level=pl.Level.CORE_GROUP):\n"
              "        t = pl.load(a, [m * 64, 0], [64, 128])\n"
              "        pl.store(t, [0, 0], out)\n"
              "    return out\n",
              "f", "UndefinedVariableError", "'m' may be used before assignment (assigned only in some branches)", 9, 25);
}


static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_module_constant_defined_by_itself_is_type_error),
    cmocka_unit_test(test_module_assignment_of_a_comparison_defines_no_constant),
    cmocka_unit_test(test_later_dtype_in_tensor_annotation_is_unsupported),
    cmocka_unit_test(test_later_dtype_in_scalar_annotation_is_unsupported),
    cmocka_unit_test(test_shaped_tensor_annotation_needs_dims_and_dtype),
    cmocka_unit_test(test_tensor_annotation_rank_above_four_is_type_error),
    cmocka_unit_test(test_tensor_annotation_zero_dimension_is_type_error),
    cmocka_unit_test(test_tensor_annotation_bool_dtype_is_type_error),
    cmocka_unit_test(test_tensor_annotation_float_dimension_is_not_constant),
    cmocka_unit_test(test_constant_floor_division_by_zero_is_invalid_op),
    cmocka_unit_test(test_tile_floor_division_is_unsupported),
    cmocka_unit_test(test_comparison_of_tiles_is_type_error),
    cmocka_unit_test(test_min_with_three_arguments_is_type_error),
    cmocka_unit_test(test_max_of_a_tile_points_to_pl_maximum),
    cmocka_unit_test(test_list_plus_scalar_needs_scalar_operands),
    cmocka_unit_test(test_none_is_not_a_kernel_value),
    cmocka_unit_test(test_subscript_is_unsupported),
    cmocka_unit_test(test_attribute_of_a_tensor_is_unsupported),
    cmocka_unit_test(test_call_of_unknown_name_is_undefined),
    cmocka_unit_test(test_call_of_a_local_scalar_is_not_callable),
    cmocka_unit_test(test_call_of_a_module_constant_is_not_callable),
    cmocka_unit_test(test_attribute_assignment_target_is_unsupported),
    cmocka_unit_test(test_annotated_assignment_of_other_type_is_type_error),
    cmocka_unit_test(test_if_condition_on_a_tile_is_type_error),
    cmocka_unit_test(test_range_bound_float_is_type_error),
    cmocka_unit_test(test_orchestration_returning_a_scalar_is_type_error),
    cmocka_unit_test(test_scalar_float_arithmetic_folds_to_a_constant),
    cmocka_unit_test(test_option_constants_of_every_kind_become_literals),
    cmocka_unit_test(test_tuple_unpacking_and_unary_ops_lower_to_moves_and_unary_insns),
    cmocka_unit_test(test_binding_a_list_to_a_name_lowers_to_nothing),
    cmocka_unit_test(test_binding_a_string_to_a_name_lowers_to_nothing),
    cmocka_unit_test(test_positional_only_parameters_are_unsupported),
    cmocka_unit_test(test_ellipsis_is_unsupported),
    cmocka_unit_test(test_f_string_is_unsupported),
    cmocka_unit_test(test_bytes_literal_is_unsupported),
    cmocka_unit_test(test_yield_expression_is_unsupported),
    cmocka_unit_test(test_star_argument_unpacking_is_unsupported),
    cmocka_unit_test(test_semicolon_statements_and_ne_ge_comparisons_compile),
    cmocka_unit_test(test_comparing_task_ids_is_type_error),
    cmocka_unit_test(test_load_unknown_keyword_is_type_error),
    cmocka_unit_test(test_cast_mode_odd_is_unsupported),
    cmocka_unit_test(test_create_tensor_in_kernel_code_is_invalid_op),
    cmocka_unit_test(test_del_in_kernel_code_is_unsupported),
    cmocka_unit_test(test_assert_in_kernel_code_is_unsupported),
    cmocka_unit_test(test_scalar_annotation_of_a_float_value_is_type_error),
    cmocka_unit_test(test_tile_annotation_is_unsupported),
    cmocka_unit_test(test_range_float_stop_is_type_error),
    cmocka_unit_test(test_name_assigned_in_one_branch_only_may_be_unbound),
};

PTO_TEST_MAIN(tests)
