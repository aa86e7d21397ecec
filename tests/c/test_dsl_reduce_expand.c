/*
 * test_dsl_reduce_expand.c - pl.row_min, the column reductions (pl.col_sum,
 * col_max, col_min), the row_expand_* / col_expand_* families and
 * pl.row_expand, pl.col_expand, pl.expands of docs/dsl.md, "Operations"
 * through DSL source: the accepted forms with
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
    {.name = "b", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 3, .shape = {4, 64, 128}},
};

static pto_program *rx_compile(const char *src)
{
    return dsl_compile_with(src, "f", PTO_STAGE_LOWER, 0, rx_args, sizeof rx_args / sizeof rx_args[0]);
}

#define RX_ERROR(src, cls, msg, line, col) DSL_EXPECT_COMPILE_ERROR(rx_compile(src), cls, msg, line, col)

/* src compiles; its post-pass text contains every string of want. */
static void rx_expect_ok(const char *src, const char *const *want)
{
    pto_program *p = rx_compile(src);
    dsl_expect_text_contains(p, want);
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

/* ---- row_expand_* / col_expand_* ------------------------------------------------------------- */

#define ROWV "        r = pl.load(a, [0, 0], [64, 1])\n"
#define COLV "        c = pl.load(a, [0, 0], [1, 128])\n"

static void test_expand_families_accepted(void **s)
{
    (void)s;
    static const char *const rops[] = {"add", "sub", "mul", "div", "max", "min", "expdif"};
    char src[1024], line[128];
    for (size_t k = 0; k < sizeof rops / sizeof rops[0]; k++)
        for (int cols = 0; cols < 2; cols++) {
            snprintf(line, sizeof line, "x = pl.%s_expand_%s(t, %s)\n", cols ? "col" : "row", rops[k], cols ? "c" : "r");
            snprintf(src, sizeof src, "%s", K(LOAD_T ROWV COLV "        XX        pl.store(x, [0, 0], out)\n"));
            char *at = strstr(src, "XX");
            char tail[512];
            snprintf(tail, sizeof tail, "%s", at + 2);
            snprintf(at, sizeof src - (size_t)(at - src), "%s%s", line, tail);
            const char *const want[] = {line, "out: Out [0:64, 0:128]", NULL};
            rx_expect_ok(src, want);
        }
}

static void test_expand_keywords_are_tile_and_vec(void **s)
{
    (void)s;
    static const char *const want[] = {"x = pl.row_expand_sub(t, r)\n", "y = pl.col_expand_mul(t, c)\n", NULL};
    rx_expect_ok(K(LOAD_T ROWV COLV "        x = pl.row_expand_sub(tile=t, row_vec=r)\n        y = pl.col_expand_mul(t, col_vec=c)\n"
                                    "        pl.store(pl.add(x, y), [0, 0], out)\n"),
                 want);
}

static void test_row_expand_vector_last_dimension_is_1(void **s)
{
    (void)s;
    RX_ERROR(K(LOAD_T "        r = pl.load(a, [0, 0], [64, 2])\n        x = pl.row_expand_add(t, r)\n"), "InvalidOperationError",
             "pl.row_expand_add requires second argument's last dimension to be 1, but got 2", 8, 13);
}

static void test_row_expand_rows_match(void **s)
{
    (void)s;
    RX_ERROR(K(LOAD_T "        r = pl.load(a, [0, 0], [32, 1])\n        x = pl.row_expand_expdif(t, r)\n"), "InvalidOperationError",
             "pl.row_expand_expdif requires matching row dimensions, but got tile rows=64 and row_vec rows=32", 8, 13);
}

static void test_col_expand_vector_first_dimension_is_1(void **s)
{
    (void)s;
    RX_ERROR(K(LOAD_T "        c = pl.load(a, [0, 0], [2, 128])\n        x = pl.col_expand_div(t, c)\n"), "InvalidOperationError",
             "pl.col_expand_div requires second argument's first dimension to be 1, but got 2", 8, 13);
}

static void test_col_expand_columns_match(void **s)
{
    (void)s;
    RX_ERROR(K(LOAD_T "        c = pl.load(a, [0, 0], [1, 64])\n        x = pl.col_expand_max(t, c)\n"), "InvalidOperationError",
             "pl.col_expand_max requires matching column dimensions, but got tile cols=128 and col_vec cols=64", 8, 13);
}

static void test_expand_dtypes_must_match(void **s)
{
    (void)s;
    RX_ERROR(KP("a: pl.Tensor, h: pl.Tensor, out: pl.Out[pl.Tensor]", LOAD_T "        r = pl.load(h, [0, 0], [64, 1])\n        x = pl.row_expand_mul(t, r)\n"),
             "ParserTypeError", "pl.row_expand_mul: operand dtypes FP32 and FP16 differ; insert pl.cast", 8, 13);
}

static void test_expdif_is_float_only(void **s)
{
    (void)s;
    RX_ERROR(KP("i: pl.Tensor, out: pl.Out[pl.Tensor]", "        t = pl.load(i, [0, 0], [64, 128])\n        r = pl.load(i, [0, 0], [64, 1])\n"
                                                     "        x = pl.row_expand_expdif(t, r)\n"),
             "ParserTypeError", "pl.row_expand_expdif requires a floating-point tile, got INT32", 8, 13);
    RX_ERROR(KP("i: pl.Tensor, out: pl.Out[pl.Tensor]", "        t = pl.load(i, [0, 0], [64, 128])\n        c = pl.load(i, [0, 0], [1, 128])\n"
                                                     "        x = pl.col_expand_expdif(t, c)\n"),
             "ParserTypeError", "pl.col_expand_expdif requires a floating-point tile, got INT32", 8, 13);
}

static void test_expand_needs_rank_2_and_a_tile(void **s)
{
    (void)s;
    RX_ERROR(KP("a: pl.Tensor, v: pl.Tensor, out: pl.Out[pl.Tensor]", "        x = pl.row_expand_add(v, v)\n"), "InvalidOperationError",
             "pl.row_expand_add requires a rank-2 tile, got rank 1", 6, 13);
    RX_ERROR(K(LOAD_T "        x = pl.col_expand_add(t, 1.0)\n"), "ParserTypeError", "expected a tile, got pl.Scalar[pl.FP32]", 7, 34);
}

static void test_row_expand_leading_axes_are_batch_axes(void **s)
{
    (void)s;
#define KB(body) KP("b: pl.Tensor, out: pl.Out[pl.Tensor]", "        t = pl.load(b, [0, 0, 0], [4, 64, 128])\n" body)
    static const char *const want[] = {"x = pl.row_expand_sub(t, r)\n", NULL};
    rx_expect_ok(KB("        r = pl.load(b, [0, 0, 0], [4, 64, 1])\n        x = pl.row_expand_sub(t, r)\n"), want);
    RX_ERROR(KB("        r = pl.load(b, [0, 0, 0], [2, 64, 1])\n        x = pl.row_expand_sub(t, r)\n"), "InvalidOperationError",
             "pl.row_expand_sub requires matching leading dimensions, but got tile dim 0=4 and row_vec dim 0=2", 8, 13);
    RX_ERROR(KB("        r = pl.load(b, [0, 0, 0], [1, 64, 1])\n        x = pl.row_expand(t, pl.reshape(r, [64, 1]))\n"),
             "InvalidOperationError", "pl.row_expand requires a rank-3 row_vec for a rank-3 tile, got rank 2", 8, 13);
    RX_ERROR(KB("        c = pl.load(b, [0, 0, 0], [1, 1, 128])\n        x = pl.col_expand_add(t, c)\n"), "InvalidOperationError",
             "pl.col_expand_add requires a rank-2 tile, got rank 3", 8, 13);
#undef KB
}

/* ---- row_expand / col_expand / expands ---------------------------------------------------------- */

static void test_vector_and_scalar_broadcasts_accepted(void **s)
{
    (void)s;
    static const char *const want[] = {"x = pl.row_expand(t, r)\n", "y = pl.col_expand(t, c)\n", "z = pl.expands(t, 2.5)\n",
                                       "w = pl.expands(t, 3)\n", "out: Out [0:64, 0:128]", NULL};
    rx_expect_ok(K(LOAD_T ROWV COLV "        x = pl.row_expand(t, r)\n        y = pl.col_expand(target=t, vec=c)\n"
                                    "        z = pl.expands(t, 2.5)\n        w = pl.expands(target=t, scalar=3)\n"
                                    "        pl.store(pl.add(pl.add(x, y), pl.add(z, w)), [0, 0], out)\n"),
                 want);
}

static void test_vector_broadcasts_check_the_vector_shape(void **s)
{
    (void)s;
    RX_ERROR(K(LOAD_T "        r = pl.load(a, [0, 0], [64, 2])\n        x = pl.row_expand(t, r)\n"), "InvalidOperationError",
             "pl.row_expand requires second argument's last dimension to be 1, but got 2", 8, 13);
    RX_ERROR(K(LOAD_T "        r = pl.load(a, [0, 0], [16, 1])\n        x = pl.row_expand(t, r)\n"), "InvalidOperationError",
             "pl.row_expand requires matching row dimensions, but got tile rows=64 and row_vec rows=16", 8, 13);
    RX_ERROR(K(LOAD_T "        c = pl.load(a, [0, 0], [4, 128])\n        x = pl.col_expand(t, c)\n"), "InvalidOperationError",
             "pl.col_expand requires second argument's first dimension to be 1, but got 4", 8, 13);
    RX_ERROR(K(LOAD_T "        c = pl.load(a, [0, 0], [1, 8])\n        x = pl.col_expand(t, c)\n"), "InvalidOperationError",
             "pl.col_expand requires matching column dimensions, but got tile cols=128 and col_vec cols=8", 8, 13);
}

static void test_expands_takes_a_scalar_that_fits(void **s)
{
    (void)s;
    RX_ERROR(K(LOAD_T "        x = pl.expands(t, t)\n"), "ParserTypeError",
             "pl.expands: the value to broadcast must be a scalar, got pl.Tile[[64, 128], pl.FP32]", 7, 27);
    RX_ERROR(KP("i: pl.Tensor, out: pl.Out[pl.Tensor]", "        t = pl.load(i, [0, 0], [64, 128])\n        x = pl.expands(t, 0.5)\n"),
             "ParserTypeError", "pl.expands: float scalar 0.5 with an INT32 tile; cast the tile first", 7, 27);
}

/* ---- round trip ------------------------------------------------------------------------------ */

static void test_reduce_and_expand_round_trip(void **s)
{
    (void)s;
    pto_program *p = dsl_lower_with(K(LOAD_T "        m = pl.row_min(t, tmp_tile=t)\n        c = pl.col_sum(t)\n"
                                             "        x = pl.row_expand_expdif(t, m)\n        y = pl.col_expand_sub(x, pl.col_max(t))\n"
                                             "        z = pl.col_expand_min(pl.row_expand_div(y, pl.row_min(y)), pl.col_min(y))\n"
                                             "        z = pl.row_expand(z, pl.row_max(z))\n        z = pl.col_expand(z, pl.col_sum(z))\n"
                                             "        pl.store(pl.col_expand_add(pl.expands(z, -1.5), c), [0, 0], out)\n"),
                                    "f", rx_args, sizeof rx_args / sizeof rx_args[0]);
    pto_program_free(p);
}

/* ---- the tests --------------------------------------------------------------------------------- */

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_row_min_is_a_row_reduction),
    cmocka_unit_test(test_col_reductions_give_one_row),
    cmocka_unit_test(test_col_reductions_need_rank_2),
    cmocka_unit_test(test_col_reductions_take_no_scratch_tile),
    cmocka_unit_test(test_expand_families_accepted),
    cmocka_unit_test(test_expand_keywords_are_tile_and_vec),
    cmocka_unit_test(test_row_expand_vector_last_dimension_is_1),
    cmocka_unit_test(test_row_expand_rows_match),
    cmocka_unit_test(test_col_expand_vector_first_dimension_is_1),
    cmocka_unit_test(test_col_expand_columns_match),
    cmocka_unit_test(test_expand_dtypes_must_match),
    cmocka_unit_test(test_expdif_is_float_only),
    cmocka_unit_test(test_expand_needs_rank_2_and_a_tile),
    cmocka_unit_test(test_row_expand_leading_axes_are_batch_axes),
    cmocka_unit_test(test_vector_and_scalar_broadcasts_accepted),
    cmocka_unit_test(test_vector_broadcasts_check_the_vector_shape),
    cmocka_unit_test(test_expands_takes_a_scalar_that_fits),
    cmocka_unit_test(test_reduce_and_expand_round_trip),
};

PTO_TEST_MAIN(tests)
