/*
 * test_dsl_p5_gather.c - the gather / scatter / sort family through DSL
 * source (docs/dsl.md, Operations): each compile-time error template of
 * pl.gather, pl.scatter, pl.sort32 and pl.mrgsort with its class and the
 * offending construct's line and column, and the accepted forms' post-pass
 * text (pl.tile spellings and keywords printed as the op, positionally).
 */
#include "harness.h"
#include "dsl_compile.h"
#include "dsl_text.h"

#define HDR "import pypto.language as pl\n\n"
#define AT "    with pl.at(level=pl.Level.CORE_GROUP):\n"
#define K(body) HDR "@pl.jit\ndef f(a: pl.Tensor, i: pl.Tensor, out: pl.Out[pl.Tensor]):\n" AT LOADS body "    return out\n"
/* lines 6 and 7; the op under test is on line 8 */
#define LOADS "        t = pl.load(a, [0, 0], [16, 32])\n        k = pl.load(i, [0, 0], [16, 32])\n"

static const pto_arg_spec gs_args[] = {
    {.name = "a", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {16, 32}},
    {.name = "i", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_INT32, .rank = 2, .shape = {16, 32}},
    {.name = "out", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {16, 64}},
};

static pto_program *gs_compile(const char *src)
{
    return dsl_compile_with(src, "f", PTO_STAGE_LOWER, 0, gs_args, sizeof gs_args / sizeof gs_args[0]);
}

#define GS_ERROR(stmt, cls, msg, col)                                        \
    do {                                                                     \
        pto_program *p_ = gs_compile(K("        " stmt "\n"));               \
        dsl_expect_error(p_, cls, msg, 8, col);                              \
        pto_program_free(p_);                                                \
    } while (0)

static void test_dsl_gather_indices_are_int32_at_the_indices(void **s)
{
    (void)s;
    GS_ERROR("x = pl.gather(t, t, t)", "ParserTypeError", "pl.gather: indices must be INT32 (INT16 with a 2-byte source), got FP32", 26);
}

static void test_dsl_scatter_indexes_have_the_source_shape(void **s)
{
    (void)s;
    GS_ERROR("x = pl.scatter(t, pl.load(a, [0, 0], [8, 32]), k)", "InvalidOperationError",
             "pl.scatter: indexes [16, 32] and src [8, 32] differ in shape", 13);
}

static void test_dsl_sorts_take_fp32_values_at_the_source(void **s)
{
    (void)s;
    GS_ERROR("x = pl.sort32(k, k)", "ParserTypeError", "pl.sort32 sorts FP32 or FP16 values, got INT32; pl.cast first", 23);
    GS_ERROR("x = pl.tile.mrgsort(k, block_len=64)", "ParserTypeError", "pl.mrgsort sorts FP32 or FP16 values, got INT32; pl.cast first", 29);
}

static void test_dsl_mrgsort_constant_block_len_at_the_value(void **s)
{
    (void)s;
    GS_ERROR("x = pl.mrgsort(t, block_len=96)", "InvalidOperationError", "pl.mrgsort: block_len 96 is not a positive multiple of 64", 37);
}

static void test_dsl_mrgsort_multi_tile_form_needs_a_tmp_as_wide_as_the_sources(void **s)
{
    (void)s;
    GS_ERROR("x = pl.mrgsort(t, t, tmp=t)", "InvalidOperationError", "pl.mrgsort: tmp has 32 columns, fewer than the sources' 64", 34);
}

static void test_dsl_gather_family_prints_as_the_op(void **s)
{
    (void)s;
    static const char *const want[] = {"x = pl.gather(t, k, t)\n", "y = pl.scatter(t, x, k)\n",
                                       "pl.store(pl.mrgsort(pl.sort32(y, k), block_len=64), [0, 0], out)", NULL};
    pto_program *p = gs_compile(K("        x = pl.tile.gather(t, indices=k, tmp=t)\n        y = pl.tile.scatter(t, x, indexes=k)\n"
                                  "        pl.store(pl.tile.mrgsort(pl.sort32(y, k), block_len=64), [0, 0], out)\n"));
    dsl_expect_text_contains(p, want);
    pto_program_free(p);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_dsl_gather_indices_are_int32_at_the_indices),
    cmocka_unit_test(test_dsl_scatter_indexes_have_the_source_shape),
    cmocka_unit_test(test_dsl_sorts_take_fp32_values_at_the_source),
    cmocka_unit_test(test_dsl_mrgsort_constant_block_len_at_the_value),
    cmocka_unit_test(test_dsl_mrgsort_multi_tile_form_needs_a_tmp_as_wide_as_the_sources),
    cmocka_unit_test(test_dsl_gather_family_prints_as_the_op),
};

PTO_TEST_MAIN(tests)
