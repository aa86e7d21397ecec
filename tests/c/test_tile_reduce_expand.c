/*
 * test_tile_reduce_expand.c - the column reductions, row_min and the
 * broadcast kernels (tile_col_reduce, tile_row_reduce's ROW_MIN,
 * tile_expand_binary, tile_expands) dtype by dtype against plain scalar
 * references: narrowed valid regions, the zeros outside them, integer
 * wrap-around (INT8 included) and division by a zero vector element; the
 * FP32 row reductions' bits against the in-order scan.
 */
#include "harness.h"
#include "tile_ref.h"
#include "tile/tile_expf.h"

static const tile_dtype all_dtypes[] = {TILE_FP32, TILE_FP16, TILE_BF16, TILE_INT32, TILE_INT8};

static void expect_equal(double got, double want, const char *what, tile_dtype dt, int op, int64_t i)
{
    if (got == want || (got != got && want != want)) return;
    fail_msg("%s %s op %d element %lld: got %.9g, want %.9g", what, tile_dtype_name(dt), op, (long long)i, got, want);
}

static void test_tile_col_reduce_and_row_min_over_the_valid_region(void **state)
{
    (void)state;
    char msg[256];
    for (size_t k = 0; k < 5; k++) {
        tile_dtype dt = all_dtypes[k];
        for (int op = 0; op <= TILE_COL_MIN; op++) { /* the others: test_tile_p5_reduce.c */
            tile a = ref_tile2(dt, 9, 300), d = ref_tile2(dt, 1, 300);
            a.valid[0] = 7, a.valid[1] = 290; /* more than one accumulator block */
            ref_fill(&a, 5u + (unsigned)op, 0);
            assert_int_equal(tile_col_reduce(&d, &a, (tile_colop)op, msg, sizeof msg), 0);
            assert_int_equal(d.valid[0], 1);
            assert_int_equal(d.valid[1], 290);
            for (int64_t c = 0; c < 300; c++) {
                float fs = 0, fm = 0;
                int64_t is = 0;
                for (int64_t r = 0; r < 7 && c < 290; r++) {
                    double x = ref_get(&a, r * 300 + c);
                    fs += (float)x, is += (int64_t)x;
                    if (r == 0 || (op == TILE_COL_MAX ? x > fm : x < fm)) fm = (float)x;
                }
                double want = c >= 290 ? 0 : op != TILE_COL_SUM ? fm : tile_dtype_is_float(dt) ? ref_round(dt, fs) : ref_round(dt, (double)is);
                expect_equal(ref_get(&d, c), want, "col reduce", dt, op, c);
            }
            free(a.data), free(d.data);
        }
        tile a = ref_tile2(dt, 4, 10), m = ref_tile2(dt, 4, 1);
        a.valid[0] = 3, a.valid[1] = 6;
        ref_fill(&a, 77, 0);
        assert_int_equal(tile_row_reduce(&m, &a, TILE_ROW_MIN, msg, sizeof msg), 0);
        for (int64_t r = 0; r < 4; r++) {
            double mn = r < 3 ? ref_get(&a, r * 10) : 0;
            for (int64_t c = 1; c < 6 && r < 3; c++)
                if (ref_get(&a, r * 10 + c) < mn) mn = ref_get(&a, r * 10 + c);
            expect_equal(ref_get(&m, r), mn, "row_min", dt, 0, r);
        }
        free(a.data), free(m.data);
    }
    tile a = ref_tile2(TILE_FP32, 2, 3), bad = ref_tile2(TILE_FP32, 2, 3);
    assert_int_equal(tile_col_reduce(&bad, &a, TILE_COL_SUM, msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.col_sum: the result tile is not [1, 3] of the input dtype");
    free(a.data), free(bad.data);
}

static void test_tile_col_sum_int8_wraps(void **state)
{
    (void)state;
    char msg[256];
    tile a = ref_tile2(TILE_INT8, 3, 2), d = ref_tile2(TILE_INT8, 1, 2);
    for (int64_t i = 0; i < 6; i++) ref_set(&a, i, 100);
    assert_int_equal(tile_col_reduce(&d, &a, TILE_COL_SUM, msg, sizeof msg), 0);
    assert_int_equal(((int8_t *)d.data)[0], (int8_t)(uint8_t)300u);
    free(a.data), free(d.data);
}

static double ref_bcast(tile_dtype dt, tile_bcastop op, double x, double y)
{
    if (!tile_dtype_is_float(dt)) {
        int64_t a = (int64_t)x, b = (int64_t)y, r = 0;
        switch (op) {
        case TILE_BC_ADD: r = a + b; break;
        case TILE_BC_SUB: r = a - b; break;
        case TILE_BC_MUL: r = a * b; break;
        case TILE_BC_DIV: r = a / b; break;
        case TILE_BC_MAX: r = a > b ? a : b; break;
        case TILE_BC_MIN: r = a < b ? a : b; break;
        case TILE_BC_EXPDIF: break;
        case TILE_BC_COPY: r = b; break;
        }
        return ref_round(dt, (double)r);
    }
    float a = (float)x, b = (float)y, r = 0;
    switch (op) {
    case TILE_BC_ADD: r = a + b; break;
    case TILE_BC_SUB: r = a - b; break;
    case TILE_BC_MUL: r = a * b; break;
    case TILE_BC_DIV: r = a / b; break;
    case TILE_BC_MAX: r = a > b ? a : b; break;
    case TILE_BC_MIN: r = a < b ? a : b; break;
    case TILE_BC_EXPDIF: r = tile_expf(a - b); break;
    case TILE_BC_COPY: r = b; break;
    }
    return ref_round(dt, r);
}

static void test_tile_expand_every_op_dtype_and_axis(void **state)
{
    (void)state;
    char msg[256];
    for (size_t k = 0; k < 5; k++) {
        tile_dtype dt = all_dtypes[k];
        for (int op = 0; op < TILE_BCASTOP_COUNT; op++)
            for (int cols = 0; cols < 2; cols++) {
                int64_t R = 6, C = 300;
                tile a = ref_tile2(dt, R, C), d = ref_tile2(dt, R, C), v = cols ? ref_tile2(dt, 1, C) : ref_tile2(dt, R, 1);
                a.valid[0] = 5, a.valid[1] = 290;
                ref_fill(&a, 3u + (unsigned)op, 0);
                ref_fill(&v, 40u + (unsigned)op, 1);
                int rc = tile_expand_binary(&d, &a, &v, (tile_bcastop)op, cols, msg, sizeof msg);
                if (op == TILE_BC_EXPDIF && !tile_dtype_is_float(dt)) {
                    assert_int_equal(rc, -1);
                    assert_non_null(strstr(msg, "requires a floating-point tile"));
                } else {
                    assert_int_equal(rc, 0);
                    assert_int_equal(d.valid[0], 5);
                    assert_int_equal(d.valid[1], 290);
                    for (int64_t r = 0; r < R; r++)
                        for (int64_t c = 0; c < C; c++) {
                            double y = ref_get(&v, cols ? c : r);
                            double want = r < 5 && c < 290 ? ref_bcast(dt, (tile_bcastop)op, ref_get(&a, r * C + c), y) : 0;
                            expect_equal(ref_get(&d, r * C + c), want, cols ? "col expand" : "row expand", dt, op, r * C + c);
                        }
                }
                free(a.data), free(d.data), free(v.data);
            }
    }
}

static void test_tile_expand_integer_division_by_zero(void **state)
{
    (void)state;
    char msg[256];
    tile a = ref_tile2(TILE_INT32, 4, 3), d = ref_tile2(TILE_INT32, 4, 3), v = ref_tile2(TILE_INT32, 4, 1);
    ref_fill(&a, 1, 0);
    ref_fill(&v, 2, 1);
    ref_set(&v, 3, 0);
    assert_int_equal(tile_expand_binary(&d, &a, &v, TILE_BC_DIV, 0, msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.row_expand_div: integer division by zero");
    a.valid[0] = 3; /* the zero's row is outside the valid region: never read */
    assert_int_equal(tile_expand_binary(&d, &a, &v, TILE_BC_DIV, 0, msg, sizeof msg), 0);
    free(a.data), free(d.data), free(v.data);
}

static void test_tile_expands_fills_the_valid_region(void **state)
{
    (void)state;
    char msg[256];
    for (size_t k = 0; k < 5; k++) {
        tile_dtype dt = all_dtypes[k];
        tile a = ref_tile2(dt, 4, 9), d = ref_tile2(dt, 4, 9);
        a.valid[0] = 3, a.valid[1] = 5;
        tile_scalar s = tile_scalar_for(dt, 1, 0, 300.1);
        assert_int_equal(tile_expands(&d, &a, s, msg, sizeof msg), 0);
        double v = tile_dtype_is_float(dt) ? ref_round(dt, 300.1) : ref_round(dt, 300);
        for (int64_t i = 0; i < 36; i++) expect_equal(ref_get(&d, i), i / 9 < 3 && i % 9 < 5 ? v : 0, "expands", dt, 0, i);
        free(a.data), free(d.data);
    }
}

/* FP32 row sums, maxes and mins: the bits of the in-order scan (acc = 0 or
 * row[0], then acc + x or x OP acc ? x : acc, left to right) whatever the
 * kernel's interleaving: rows of many lengths (more and fewer than the 8
 * rows and 32 lanes the kernels interleave), extremes of +0 and -0 in both
 * orders, a NaN first or later, infinities. */
static void test_tile_row_reduce_fp32_gives_the_in_order_scan_bits(void **state)
{
    (void)state;
    char msg[256];
    enum { R = 37, C = 1100 };
    static const int64_t widths[] = {1, 7, 31, 32, 33, 100, 1024, 1100};
    uint64_t lcg = 99;
    for (size_t wi = 0; wi < sizeof widths / sizeof widths[0]; wi++) {
        tile a = ref_tile2(TILE_FP32, R, C), d = ref_tile2(TILE_FP32, R, 1);
        a.valid[1] = widths[wi];
        float *x = a.data;
        for (int64_t i = 0; i < R * C; i++) {
            lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
            int64_t r = i / C, c = i % C;
            unsigned pick = (unsigned)(lcg >> 33) % 64;
            float v = (float)((int64_t)(lcg >> 40) % 2001 - 1000) * 0.37f;
            if (r % 4 == 1) v = c == 0 ? -1.0f : pick < 32 ? 0.0f : -0.0f; /* extremes of signed zeros */
            if (r % 4 == 2) v = -(float)(pick + 1);                        /* negative, a zero now and then */
            if (r % 4 == 2 && pick % 8 == 3) v = (lcg >> 20) & 1 ? -0.0f : 0.0f;
            if (r == 3 && c == 0) v = NAN;                                 /* a NaN first */
            if (r == 7 && c == 5) v = NAN;                                 /* a NaN later */
            if (r == 11 && c == 2) v = INFINITY;
            if (r == 15 && c == 9) v = -INFINITY;
            x[i] = v;
        }
        for (int op = TILE_ROW_SUM; op <= TILE_ROW_MIN; op++) { /* the scans; products and arg-extrema: test_tile_p5_reduce.c */
            d.valid[0] = R, d.valid[1] = 1;
            assert_int_equal(tile_row_reduce(&d, &a, (tile_rowop)op, msg, sizeof msg), 0);
            for (int64_t r = 0; r < R; r++) {
                const float *row = x + r * C;
                float acc = op == TILE_ROW_SUM ? 0.0f : row[0];
                for (int64_t c = op == TILE_ROW_SUM ? 0 : 1; c < widths[wi]; c++) {
                    float v = row[c];
                    acc = op == TILE_ROW_SUM ? acc + v : op == TILE_ROW_MAX ? (v > acc ? v : acc) : (v < acc ? v : acc);
                }
                float got = ((float *)d.data)[r];
                uint32_t gb, wb;
                memcpy(&gb, &got, 4), memcpy(&wb, &acc, 4);
                if (gb != wb && !(got != got && acc != acc))
                    fail_msg("op %d width %lld row %lld: got %a, want %a", op, (long long)widths[wi], (long long)r, (double)got, (double)acc);
            }
        }
        free(a.data), free(d.data);
    }
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_tile_col_reduce_and_row_min_over_the_valid_region),
    cmocka_unit_test(test_tile_col_sum_int8_wraps),
    cmocka_unit_test(test_tile_expand_every_op_dtype_and_axis),
    cmocka_unit_test(test_tile_expand_integer_division_by_zero),
    cmocka_unit_test(test_tile_expands_fills_the_valid_region),
    cmocka_unit_test(test_tile_row_reduce_fp32_gives_the_in_order_scan_bits),
};

PTO_TEST_MAIN(tests)
