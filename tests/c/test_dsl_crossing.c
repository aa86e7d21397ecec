/*
 * test_dsl_crossing.c - values crossing a kernel boundary (DSL-V2-SPEC
 * §1.6): T-x (a tensor-level value bound in a CORE_GROUP pl.at body and
 * read after it becomes an Out parameter the call site allocates; a tile
 * keeps v1's live-after text; produced in a loop and read after it is V4),
 * [OutParamNotShadowed] (PartialCodegenError at the rebinding, aliasing
 * results allowed) and T-ret (an entry returning a crossed tensor).
 */
#include <stdio.h>

#include "harness.h"
#include "dsl_compile.h"

/* f(a, w, out): a [256, 128], w [128, 128]; line 4 is the first body line. */
#define HEAD "import pypto.language as pl\n\n@pl.jit\ndef f(a: pl.Tensor, w: pl.Tensor, out: pl.Out[pl.Tensor]):\n"

static const pto_arg_spec args3[] = {
    {.name = "a", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {256, 128}},
    {.name = "w", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {128, 128}},
    {.name = "out", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {256, 128}},
};

static pto_program *compile3(const char *src, int stop) { return dsl_compile_with(src, "f", stop, 0, args3, 3); }

#define CROSS_SRC                                                          \
    HEAD "    with pl.at(level=pl.Level.CORE_GROUP):\n"                    \
         "        acc = pl.matmul(a, w)\n"                                 \
         "        s = pl.add(a, a)\n"                                      \
         "    with pl.at(level=pl.Level.CORE_GROUP):\n"                    \
         "        pl.store(pl.add(acc, s), [0, 0], out)\n"                 \
         "    return out\n"

/* T-x: the crossing names are Out parameters after the captured tensors, in
 * order of first binding, each stored whole at the kernel's end, and
 * allocated at the pl.at. */
static void test_tx_crossing_becomes_out_param_allocated_at_the_pl_at(void **s)
{
    (void)s;
    pto_program *p = compile3(CROSS_SRC, PTO_STAGE_OUTLINE);
    static const char *const want[] = {
        "        acc = pl.create_tensor([256, 128], pl.FP32)\n"
        "        s = pl.create_tensor([256, 128], pl.FP32)\n"
        "        self.f_incore_0(a, w, acc, s)\n"
        "        self.f_incore_1(acc, s, out)\n",
        "    def f_incore_0(self, a: pl.Tensor[[256, 128], pl.FP32], w: pl.Tensor[[128, 128], pl.FP32], "
        "acc_out: pl.Out[pl.Tensor[[256, 128], pl.FP32]], s_out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]):\n",
        "        pl.store(acc, [0, 0], acc_out)\n        pl.store(s, [0, 0], s_out)\n",
        NULL};
    dsl_expect_text_contains(p, want);
    pto_program_free(p);
}

/* The printed program is a fixpoint: compiled again it prints the same. */
static void test_tx_crossing_round_trip(void **s)
{
    (void)s;
    pto_program *a = compile3(CROSS_SRC, PTO_STAGE_ALL);
    dsl_expect_ok(a);
    const char *text = pto_program_text(a);
    pto_compile_options o = {.filename = "printed.py", .source = text, .source_len = strlen(text), .entry = "f",
                             .function = "f", .args = args3, .nargs = 3};
    pto_program *b = NULL;
    assert_true(pto_compile(&o, &b) >= 0);
    dsl_expect_ok(b);
    assert_string_equal(pto_program_text(b), text);
    pto_program_free(a);
    pto_program_free(b);
}

/* A tile (an explicit pl.load: not a tensor-level value) keeps v1's text at the read. */
static void test_tx_tile_crossing_keeps_the_v1_text(void **s)
{
    (void)s;
    DSL_EXPECT_COMPILE_ERROR(compile3(HEAD "    with pl.at(level=pl.Level.CORE_GROUP):\n"
                                           "        t = pl.load(a, [0, 0], [256, 128])\n"
                                           "    with pl.at(level=pl.Level.CORE_GROUP):\n"
                                           "        pl.store(t, [0, 0], out)\n    return out\n",
                                      PTO_STAGE_ALL),
                             "PassError",
                             "'t' is assigned inside a pl.at(level=pl.Level.CORE_GROUP) body and read after it; "
                             "a kernel hands back only the tensors it stores to",
                             8, 9);
}

/* Produced in a loop (its AUTO scope), read after it: V4 citing the pl.at line. */
static void test_tx_crossing_in_a_loop_read_after_it_is_scoped_tensor_escapes(void **s)
{
    (void)s;
    DSL_EXPECT_COMPILE_ERROR(compile3(HEAD "    for i in pl.range(2):\n"
                                           "        with pl.at(level=pl.Level.CORE_GROUP):\n" /* line 6 */
                                           "            acc = pl.matmul(a, w)\n"
                                           "    with pl.at(level=pl.Level.CORE_GROUP):\n"
                                           "        pl.store(acc, [0, 0], out)\n    return out\n",
                                      PTO_STAGE_ALL),
                             "PassError",
                             "[ScopedTensorEscapes] tensor 'acc' is created inside a runtime scope (k.py:6) and used after "
                             "that scope ends; create it in an enclosing scope",
                             9, 0);
}

/* T-ret: an entry returning the crossed tensor. */
static void test_tret_entry_returns_a_crossed_tensor(void **s)
{
    (void)s;
    DSL_EXPECT_COMPILE_ERROR(compile3(HEAD "    with pl.at(level=pl.Level.CORE_GROUP):\n" /* line 5 */
                                           "        acc = pl.matmul(a, w)\n    return acc\n",
                                      PTO_STAGE_ALL),
                             "ParserTypeError", "'f' may return only its tensor parameters; 'acc' is a tensor created at k.py:5",
                             7, 12);
}

/* T-ret: `return k(...)` returning the entry's parameter is fine. */
static void test_tret_return_of_a_kernel_call_returning_the_out_parameter(void **s)
{
    (void)s;
    pto_program *p = compile3("import pypto.language as pl\n\n@pl.jit.incore\n"
                              "def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                              "    pl.store(pl.load(a, [0, 0], [256, 128]), [0, 0], out)\n    return out\n\n"
                              "@pl.jit\ndef f(a: pl.Tensor, w: pl.Tensor, out: pl.Out[pl.Tensor]):\n    return k(a, out)\n",
                              PTO_STAGE_ALL);
    dsl_expect_ok(p);
    pto_program_free(p);
}

#define SHADOW_MSG(p, kind, f, line)                                                                               \
    "[OutParamNotShadowed] '" p "' is a pl." kind " parameter of '" f "' but is rebound at k.py:" #line " to a new " \
    "value, so the caller's buffer is never written"

static void expect_shadowed(const char *src, const char *msg, int line, int col, const char *hint)
{
    pto_program *p = compile3(src, PTO_STAGE_ALL);
    const pto_diagnostic *d = dsl_expect_error(p, "PartialCodegenError", msg, line, col);
    assert_non_null(d->hint);
    assert_string_equal(d->hint, hint);
    pto_program_free(p);
    /* lower() (every stage up to lowering) reports it too, and so does the parse stage */
    p = compile3(src, PTO_STAGE_PARSE);
    dsl_expect_error(p, "PartialCodegenError", msg, line, col);
    pto_program_free(p);
}

/* The error_handling pattern: rebinding the Out parameter in a pl.at body. */
static void test_out_param_not_shadowed_in_a_pl_at_body(void **s)
{
    (void)s;
    expect_shadowed(HEAD "    with pl.at(level=pl.Level.CORE_GROUP):\n"
                         "        out = pl.mul(a, 2.0)\n        out = pl.add(a, 1.0)\n    return out\n",
                    SHADOW_MSG("out", "Out", "f", 6), 6, 9, "write into it: 'out[:] = ...' or pl.store(tile, offsets, out)");
}

/* Straight-line rebinding of a pl.InOut parameter (to another tensor). */
static void test_out_param_not_shadowed_inout_straight_line(void **s)
{
    (void)s;
    expect_shadowed("import pypto.language as pl\n\n@pl.jit\n"
                    "def f(a: pl.Tensor, w: pl.Tensor, out: pl.InOut[pl.Tensor]):\n    out = a\n    return out\n",
                    SHADOW_MSG("out", "InOut", "f", 5), 5, 5, "write into it: 'out[:] = ...' or pl.store(tile, offsets, out)");
}

/* In a kernel: a pl.Out parameter rebound to a fresh tile. */
static void test_out_param_not_shadowed_in_a_kernel(void **s)
{
    (void)s;
    expect_shadowed("import pypto.language as pl\n\n@pl.jit.incore\n"
                    "def k(a: pl.Tensor, o: pl.Out[pl.Tensor]):\n    o = pl.load(a, [0, 0], [256, 128])\n"
                    "    pl.store(o, [0, 0], a)\n\n"
                    "@pl.jit\ndef f(a: pl.Tensor, w: pl.Tensor, out: pl.Out[pl.Tensor]):\n    k(a, out)\n    return out\n",
                    SHADOW_MSG("o", "Out", "k", 5), 5, 5, "write into it: 'o[:] = ...' or pl.store(tile, offsets, o)");
}

/* Aliasing results are no rebinding: pl.store into it, a kernel call
 * returning its Out argument, a local bound to it, a branch merge of both. */
static void test_out_param_not_shadowed_aliasing_results_are_fine(void **s)
{
    (void)s;
    pto_program *p = compile3("import pypto.language as pl\n\n@pl.jit.incore\n"
                              "def k(a: pl.Tensor, o: pl.Out[pl.Tensor]):\n"
                              "    o = pl.store(pl.load(a, [0, 0], [256, 128]), [0, 0], o)\n    return o\n\n"
                              "@pl.jit\ndef f(a: pl.Tensor, w: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                              "    out = k(a, out)\n    x = out\n    x = k(a, x)\n    out = x\n"
                              "    with pl.at(level=pl.Level.CORE_GROUP):\n"
                              "        out = pl.store(pl.load(a, [0, 0], [256, 128]), [0, 0], out)\n    return out\n",
                              PTO_STAGE_ALL);
    dsl_expect_ok(p);
    pto_program_free(p);
}

#define RET_SRC                                                                                       \
    "import pypto.language as pl\n\n"                                                               \
    "@pl.jit.incore\ndef k1(a: pl.Tensor, b: pl.Tensor):\n    return pl.add(a, b)\n\n"              \
    "@pl.jit.incore\ndef k2(a: pl.Tensor, b: pl.Tensor):\n    s = pl.add(a, b)\n    return s, pl.mul(a, b)\n\n" \
    "@pl.jit\ndef f(a: pl.Tensor, w: pl.Tensor, out: pl.Out[pl.Tensor]):\n"                         \
    "    c = k1(a, a)\n    d, e = k2(c, a)\n    x = k1(d, e)\n"                                     \
    "    with pl.at(level=pl.Level.CORE_GROUP):\n        pl.store(x, [0, 0], out)\n    return out\n"

/* P2-13: one and two returned tensor-level values; each becomes an implicit
 * Out parameter, every call allocates it before its statement, the call's
 * result is that tensor. */
static void test_tx_incore_returns_tensor_level_values_callers_allocate(void **s)
{
    (void)s;
    pto_program *p = compile3(RET_SRC, PTO_STAGE_PARSE);
    static const char *const want[] = {
        "        k1_ret0 = pl.create_tensor([256, 128], pl.FP32)\n"
        "        c = self.k1(a, a, k1_ret0)\n"
        "        k2_ret0 = pl.create_tensor([256, 128], pl.FP32)\n"
        "        k2_ret1 = pl.create_tensor([256, 128], pl.FP32)\n"
        "        d, e = self.k2(c, a, k2_ret0, k2_ret1)\n"
        "        k1_ret0_1 = pl.create_tensor([256, 128], pl.FP32)\n"
        "        x = self.k1(d, e, k1_ret0_1)\n",
        "    def k1(self, a: pl.Tensor[[256, 128], pl.FP32], b: pl.Tensor[[256, 128], pl.FP32], "
        "ret0: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:\n"
        "        pl.store(pl.add(pl.load(a, [0, 0], [256, 128]), pl.load(b, [0, 0], [256, 128])), [0, 0], ret0)\n        return ret0\n",
        "        s = pl.add(pl.load(a, [0, 0], [256, 128]), pl.load(b, [0, 0], [256, 128]))\n        pl.store(s, [0, 0], ret0)\n        pl.store(pl.mul(pl.load(a, [0, 0], [256, 128]), pl.load(b, [0, 0], [256, 128])), [0, 0], ret1)\n"
        "        return ret0, ret1\n",
        NULL};
    dsl_expect_text_contains(p, want);
    pto_program_free(p);
}

static void test_tx_incore_returns_round_trip(void **s)
{
    (void)s;
    for (int stop = PTO_STAGE_PARSE; stop <= PTO_STAGE_LOWER; stop += PTO_STAGE_LOWER - PTO_STAGE_PARSE) {
        pto_program *a = compile3(RET_SRC, stop);
        dsl_expect_ok(a);
        const char *text = pto_program_text(a);
        pto_compile_options o = {.filename = "printed.py", .source = text, .source_len = strlen(text), .entry = "f",
                                 .function = "f", .args = args3, .nargs = 3, .stop_after = stop};
        pto_program *b = NULL;
        assert_true(pto_compile(&o, &b) >= 0);
        dsl_expect_ok(b);
        assert_string_equal(pto_program_text(b), text);
        pto_program_free(a);
        pto_program_free(b);
    }
}

/* A returned tile (an explicit pl.load) keeps v1's text; an entry returning
 * a call's implicit tensor is T-ret, citing the call. */
static void test_tx_incore_returning_a_tile_keeps_the_v1_text(void **s)
{
    (void)s;
    DSL_EXPECT_COMPILE_ERROR(compile3("import pypto.language as pl\n\n@pl.jit.incore\n"
                                      "def k(a: pl.Tensor):\n    return pl.load(a, [0, 0], [256, 128])\n\n"
                                      "@pl.jit\ndef f(a: pl.Tensor, w: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                                      "    x = k(a)\n    return out\n",
                                      PTO_STAGE_ALL),
                             "ParserTypeError", "InCore function 'k' may return only its Out/InOut tensor parameters", 5, 12);
    DSL_EXPECT_COMPILE_ERROR(compile3("import pypto.language as pl\n\n@pl.jit.incore\n"
                                      "def k(a: pl.Tensor):\n    return pl.add(a, a)\n\n"
                                      "@pl.jit\ndef f(a: pl.Tensor, w: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                                      "    x = k(a)\n    return x\n",
                                      PTO_STAGE_ALL),
                             "ParserTypeError", "'f' may return only its tensor parameters; 'x' is a tensor created at k.py:9", 10, 12);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_tx_incore_returns_tensor_level_values_callers_allocate),
    cmocka_unit_test(test_tx_incore_returns_round_trip),
    cmocka_unit_test(test_tx_incore_returning_a_tile_keeps_the_v1_text),
    cmocka_unit_test(test_tx_crossing_becomes_out_param_allocated_at_the_pl_at),
    cmocka_unit_test(test_tx_crossing_round_trip),
    cmocka_unit_test(test_tx_tile_crossing_keeps_the_v1_text),
    cmocka_unit_test(test_tx_crossing_in_a_loop_read_after_it_is_scoped_tensor_escapes),
    cmocka_unit_test(test_tret_entry_returns_a_crossed_tensor),
    cmocka_unit_test(test_tret_return_of_a_kernel_call_returning_the_out_parameter),
    cmocka_unit_test(test_out_param_not_shadowed_in_a_pl_at_body),
    cmocka_unit_test(test_out_param_not_shadowed_inout_straight_line),
    cmocka_unit_test(test_out_param_not_shadowed_in_a_kernel),
    cmocka_unit_test(test_out_param_not_shadowed_aliasing_results_are_fine),
};

PTO_TEST_MAIN(tests)
