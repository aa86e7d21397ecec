/*
 * test_dsl_reduce_expand.c - pl.row_min, the column reductions (pl.col_sum,
 * col_max, col_min) and the row_expand_* / col_expand_* families of
 * docs/dsl.md, "Operations" through DSL source: the accepted forms with
 * their printed text and result shapes, and every error with its exact
 * message, class and span.  Values are tests/python/test_reduce_expand_ops.py's.
 */
#include <stdlib.h>

#include "harness.h"
#include "dsl_compile.h"
#include "dsl_text.h"

#define HDR "import pypto.language as pl\n\n"
#define AT "    with pl.at(level=pl.Level.CORE_GROUP):\n"
/* an entry with parameters PARAMS whose pl.at body (line 6 on, indent 8) is BODY */
#define KP(params, body) HDR "@pl.jit\ndef f(" params "):\n" AT body "    return out\n"
#define K(body) KP("a: pl.Tensor, out: pl.Out[pl.Tensor]", body)
#define LOAD_T "        t = pl.load(a, [0, 0], [64, 128])\n"

static const pto_arg_spec rx_args[] = {
    {.name = "a", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {256, 128}},
    {.name = "out", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {256, 128}},
    {.name = "h", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP16, .rank = 2, .shape = {256, 128}},
    {.name = "i", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_INT32, .rank = 2, .shape = {256, 128}},
    {.name = "v", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 1, .shape = {128}},
};

static pto_program *rx_compile(const char *src)
{
    return dsl_compile_with(src, "f", PTO_STAGE_LOWER, 0, rx_args, sizeof rx_args / sizeof rx_args[0]);
}

#define RX_ERROR(src, cls, msg, line, col)                 \
    do {                                                   \
        pto_program *p_ = rx_compile(src);                 \
        dsl_expect_error(p_, cls, msg, line, col);         \
        pto_program_free(p_);                              \
    } while (0)

/* src compiles; its post-pass text contains every string of want. */
static void rx_expect_ok(const char *src, const char *const *want)
{
    pto_program *p = rx_compile(src);
    dsl_expect_ok(p);
    for (; want && *want; want++)
        if (!strstr(pto_program_text(p), *want)) {
            fprintf(stderr, "missing \"%s\" in:\n%s\n", *want, pto_program_text(p));
            fail();
        }
    pto_program_free(p);
}

/* ---- reductions ---------------------------------------------------------------------------- */

static void test_row_min_is_a_row_reduction(void **s)
{
    (void)s;
    static const char *const want[] = {"x = pl.row_min(t)\n", "y = pl.row_min(t, tmp_tile=t)\n", "out: Out [0:64, 0:1]", NULL};
    rx_expect_ok(K(LOAD_T "        x = pl.row_min(t)\n        y = pl.row_min(t, tmp_tile=t)\n        x = pl.add(x, y)\n"
                          "        pl.store(x, [0, 0], out)\n"),
                 want);
}

static void test_col_reductions_give_one_row(void **s)
{
    (void)s;
    static const char *const want[] = {"x = pl.col_sum(t)\n", "y = pl.col_max(t)\n", "z = pl.col_min(t)\n", "out: Out [0:1, 0:128]", NULL};
    rx_expect_ok(K(LOAD_T "        x = pl.col_sum(t)\n        y = pl.col_max(t)\n        z = pl.col_min(t)\n"
                          "        x = pl.add(pl.add(x, y), z)\n        pl.store(x, [0, 0], out)\n"),
                 want);
}

static void test_col_reductions_need_rank_2(void **s)
{
    (void)s;
    RX_ERROR(KP("v: pl.Tensor, out: pl.Out[pl.Tensor]", "        t = pl.load(v, [0], [128])\n        x = pl.col_sum(t)\n"),
             "InvalidOperationError", "pl.col_sum requires a rank-2 tile, got rank 1", 7, 13);
    RX_ERROR(KP("v: pl.Tensor, out: pl.Out[pl.Tensor]", "        x = pl.row_min(v)\n"), "InvalidOperationError",
             "pl.row_min requires a rank-2 tile, got rank 1", 6, 13);
}

static void test_col_reductions_take_no_scratch_tile(void **s)
{
    (void)s;
    RX_ERROR(K(LOAD_T "        x = pl.col_max(t, tmp_tile=t)\n"), "ParserTypeError",
             "pl.col_max() got an unexpected keyword argument 'tmp_tile'", 7, 27);
}

/* ---- the tests --------------------------------------------------------------------------------- */

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_row_min_is_a_row_reduction),
    cmocka_unit_test(test_col_reductions_give_one_row),
    cmocka_unit_test(test_col_reductions_need_rank_2),
    cmocka_unit_test(test_col_reductions_take_no_scratch_tile),
};

PTO_TEST_MAIN(tests)
