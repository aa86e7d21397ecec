/*
 * test_dsl_orch_views.c - the compile-time rules of orchestration views,
 * copies and element access (DSL-V2-SPEC §1.3 T-ov, §1.5, §1.7): each
 * rule's exact text, class and column, and the accepted forms printed back
 * (print -> parse -> print byte-identical).
 */
#include <stdlib.h>

#include "harness.h"
#include "dsl_compile.h"
#include "dsl_text.h"

#define HDR "import pypto.language as pl\n\n"
/* an entry whose orchestration body (line 4 on, indent 4) is BODY */
#define E(body) HDR "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar[pl.INDEX]):\n" body "    return out\n"

static const pto_arg_spec ov_args[] = {
    {.name = "a", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {128, 128}},
    {.name = "out", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {128, 128}},
    {.name = "n", .kind = PTO_ARG_SCALAR, .value = {.kind = PTO_VALUE_INT, .i = 5}},
};

static pto_program *ov_compile(const char *src)
{
    return dsl_compile_with(src, "f", PTO_STAGE_LOWER, 0, ov_args, sizeof ov_args / sizeof ov_args[0]);
}

#define OV_ERROR(src, cls, msg, line, col) DSL_EXPECT_COMPILE_ERROR(ov_compile(src), cls, msg, line, col)

static void test_orch_slice_view_accepted(void **s)
{
    (void)s;
    pto_program *p = ov_compile(E("    v = pl.slice(a, [64, 128], [64, 0])\n"
                                  "    r = pl.slice(a, [1, 128], [3, 0], drop_dims=[0])\n"
                                  "    out = pl.assemble(out, v, [0, 0])\n"
                                  "    x = pl.read(r, [5])\n"
                                  "    pl.write(out, [1, 2], x)\n"));
    dsl_expect_ok(p);
    static const char *const want[] = {"v = pl.slice(a, [64, 128], [64, 0])\n", "r = pl.slice(a, [1, 128], [3, 0], drop_dims=[0])\n",
                                       "out = pl.assemble(out, v, [0, 0])\n", "x = pl.read(r, [5])\n", "pl.write(out, [1, 2], x)\n", NULL};
    dsl_expect_text_contains(p, want);
    dsl_expect_roundtrip(p, ov_args, sizeof ov_args / sizeof ov_args[0]);
    pto_program_free(p);
}

/* A window may run past the edge (its valid region stops there: tests/python/test_view_valid_regions.py);
 * its start may not. */
static void test_orch_slice_offset_inside_the_tensor(void **s)
{
    (void)s;
    OV_ERROR(E("    v = pl.slice(a, [64, 128], [128, 0])\n"), "InvalidOperationError",
             "pl.slice: offset 128 is past the end of dimension 0 of extent 128", 5, 33);
    OV_ERROR(E("    v = pl.slice(a, [64, 128], [0, -1])\n"), "InvalidOperationError", "pl.slice: offset 1 is negative (-1)", 5, 36);
    pto_program *p = ov_compile(E("    v = pl.slice(a, [64, 128], [96, 0])\n"));
    assert_non_null(p);
    pto_program_free(p);
}

/* valid_shape=: one integer per axis, a constant one 0 <= v <= the extent. */
static void test_orch_slice_valid_shape_entries(void **s)
{
    (void)s;
    OV_ERROR(E("    v = pl.slice(a, [64, 128], [0, 0], valid_shape=[8])\n"), "InvalidOperationError",
             "pl.slice: valid_shape has 1 entries for a rank-2 view", 5, 52);
    OV_ERROR(E("    v = pl.slice(a, [64, 128], [0, 0], valid_shape=[65, 128])\n"), "InvalidOperationError",
             "pl.slice: valid_shape entry 0 (65) is outside 0 to 64", 5, 53);
    OV_ERROR(E("    v = pl.slice(a, [64, 128], [0, 0], valid_shape=[1.5, 128])\n"), "ParserTypeError",
             "pl.slice valid_shape entries must be integer scalars", 5, 53);
    pto_program *p = ov_compile(E("    v = pl.slice(a, [64, 128], [0, 0], valid_shape=[n, 0])\n"));
    assert_non_null(p);
    pto_program_free(p);
}

static void test_orch_slice_kernel_keywords(void **s)
{
    (void)s;
    OV_ERROR(E("    v = pl.slice(a, [64, 128], [0, 0], pad_value=pl.PadValue.zero)\n"), "InvalidOperationError",
             "pl.slice(pad_value=) applies in kernel code only", 5, 50);
    OV_ERROR(E("    v = pl.slice(a, [64, 128], [0, 0], clamp=True)\n"), "InvalidOperationError",
             "pl.slice(clamp=) applies in kernel code only", 5, 46);
}

/* A run-time extent is allowed (tests/python/test_runtime_extents.py); a float one is not. */
static void test_orch_slice_extent_must_be_an_integer(void **s)
{
    (void)s;
    OV_ERROR(E("    v = pl.slice(a, [2.0, 128], [0, 0])\n"), "ParserTypeError", "pl.slice shape element 0 must be an integer", 5, 22);
}

static void test_orch_assemble_rules(void **s)
{
    (void)s;
    OV_ERROR(E("    v = pl.create_tensor([64, 128], pl.FP16)\n    out = pl.assemble(out, v, [0, 0])\n"), "ParserTypeError",
             "pl.assemble: source dtype FP16 cannot be inserted into a FP32 target; insert pl.cast", 6, 11);
    OV_ERROR(E("    v = pl.slice(a, [64, 128], [0, 0])\n    out = pl.assemble(out, v, [80, 0])\n"), "InvalidOperationError",
             "pl.assemble: offset 80 + extent 64 exceeds dimension 0 of extent 128", 6, 32);
    OV_ERROR(E("    v = pl.slice(a, [64, 128], [0, 0])\n    out = pl.assemble(out, v, [0, 0], atomic=pl.AtomicType.Add)\n"),
             "InvalidOperationError", "pl.assemble(..., atomic=pl.AtomicType.Add) is only supported inside an InCore function", 6, 46);
}

static void test_orch_read_static_oob(void **s)
{
    (void)s;
    OV_ERROR(E("    x = pl.read(a, [128, 0])\n"), "InvalidOperationError", "pl.read: index 128 is out of range for dimension 0 of extent 128",
             5, 21);
    OV_ERROR(E("    pl.write(out, [0, 200], 1.0)\n"), "InvalidOperationError",
             "pl.write: index 200 is out of range for dimension 1 of extent 128", 5, 23);
}

/* An Inline function's view and copy are orchestration forms: inlined into
 * orchestration they compile, into a pl.at body they are kernel Tensor forms (later). */
static void test_orch_views_in_inline_functions(void **s)
{
    (void)s;
#define INL HDR "@pl.jit.inline\ndef h(x: pl.Tensor, y: pl.Tensor):\n    v = pl.slice(x, [4, 8], [0, 0])\n    y = pl.assemble(y, v, [0, 0])\n    return y\n\n"
    pto_program *p = ov_compile(INL "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar[pl.INDEX]):\n    out = h(a, out)\n    return out\n");
    dsl_expect_ok(p);
    pto_program_free(p);
    OV_ERROR(INL "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar[pl.INDEX]):\n"
                 "    with pl.at(level=pl.Level.CORE_GROUP):\n        out = h(a, out)\n    return out\n",
             "UnsupportedFeatureError", "pl.slice of a Tensor in an Inline function called from kernel code is not supported in this version", 5, 9);
#undef INL
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_orch_slice_view_accepted), cmocka_unit_test(test_orch_slice_offset_inside_the_tensor),
    cmocka_unit_test(test_orch_slice_valid_shape_entries),
    cmocka_unit_test(test_orch_slice_kernel_keywords), cmocka_unit_test(test_orch_slice_extent_must_be_an_integer),
    cmocka_unit_test(test_orch_assemble_rules), cmocka_unit_test(test_orch_read_static_oob),
    cmocka_unit_test(test_orch_views_in_inline_functions),
};

PTO_TEST_MAIN(tests)
