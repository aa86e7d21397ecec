/*
 * test_tile_store_add.c - tile_store_add, the atomic store of
 * pl.assemble(..., atomic=pl.AtomicType.Add) (DSL-V2-SPEC §1.5): the tile's
 * valid region added into a strided tensor window, per dtype against
 * hand-computed references: FP32 adds, FP16/BF16 round once to nearest even,
 * integers wrap, other dtypes refused, bounds as tile_store's.
 */
#include "harness.h"
#include "tile_ref.h"

static tile_tensor tensor2(void *addr, tile_dtype dt, int64_t rows, int64_t cols, int64_t stride0, int64_t stride1)
{
    return (tile_tensor){.addr = addr, .base = 0, .dtype = dt, .rank = 2, .shape = {rows, cols}, .strides = {stride0, stride1}};
}

/* FP32: window += tile, element by element; twice adds twice. */
static void test_store_add_fp32_adds_into_the_window(void **s)
{
    (void)s;
    char msg[256];
    float dst[4 * 6];
    for (int i = 0; i < 24; i++) dst[i] = (float)i * 0.5f;
    tile x = ref_tile2(TILE_FP32, 2, 3);
    for (int i = 0; i < 6; i++) ((float *)x.data)[i] = 1.25f + (float)i;
    tile_tensor t = tensor2(dst, TILE_FP32, 4, 6, 6, 1);
    assert_int_equal(tile_store_add(&t, (int64_t[]){1, 2}, &x, NULL, msg, sizeof msg), 0);
    assert_int_equal(tile_store_add(&t, (int64_t[]){1, 2}, &x, NULL, msg, sizeof msg), 0);
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 6; c++) {
            float want = (float)(r * 6 + c) * 0.5f;
            if (r >= 1 && r < 3 && c >= 2 && c < 5) {
                float v = 1.25f + (float)((r - 1) * 3 + c - 2);
                want = (want + v) + v;
            }
            assert_true(dst[r * 6 + c] == want);
        }
    free(x.data);
}

/* Only the valid region is added (the rest of the tile is 0 anyway, but a
 * region cut by ext= leaves the window's other elements untouched). */
static void test_store_add_adds_the_valid_region_only(void **s)
{
    (void)s;
    char msg[256];
    float dst[4 * 4];
    for (int i = 0; i < 16; i++) dst[i] = 100.0f;
    tile x = ref_tile2(TILE_FP32, 4, 4);
    for (int i = 0; i < 16; i++) ((float *)x.data)[i] = 1.0f;
    x.valid[0] = 2, x.valid[1] = 3;
    tile_tensor t = tensor2(dst, TILE_FP32, 4, 4, 4, 1);
    assert_int_equal(tile_store_add(&t, (int64_t[]){0, 0}, &x, NULL, msg, sizeof msg), 0);
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++) assert_true(dst[r * 4 + c] == (r < 2 && c < 3 ? 101.0f : 100.0f));
    assert_int_equal(tile_store_add(&t, (int64_t[]){0, 0}, &x, (int64_t[]){1, -1}, msg, sizeof msg), 0); /* shapes= cut */
    for (int c = 0; c < 4; c++) assert_true(dst[c] == (c < 3 ? 102.0f : 100.0f) && dst[4 + c] == (c < 3 ? 101.0f : 100.0f));
    free(x.data);
}

/* A strided window (a column of a row-major tensor): every step honoured. */
static void test_store_add_strided_window(void **s)
{
    (void)s;
    char msg[256];
    int32_t dst[5 * 3] = {0};
    tile_tensor col = {.addr = (char *)dst, .base = 1, .dtype = TILE_INT32, .rank = 1, .shape = {5}, .strides = {3}};
    tile x = ref_tile(TILE_INT32, 1, (int64_t[]){3});
    for (int i = 0; i < 3; i++) ((int32_t *)x.data)[i] = 10 * (i + 1);
    assert_int_equal(tile_store_add(&col, (int64_t[]){2}, &x, NULL, msg, sizeof msg), 0);
    for (int i = 0; i < 15; i++) assert_int_equal(dst[i], i % 3 == 1 && i / 3 >= 2 ? 10 * (i / 3 - 1) : 0);
    free(x.data);
}

/* FP16 and BF16: the exact sum rounded once to nearest even.  FP16
 * 2048 + 1 is a tie between 2048 and 2050: 2048 (even); 2050 + 1 ties to
 * 2052.  BF16 256 + 1 ties to 256, 258 + 1 to 260. */
static void test_store_add_half_rounds_to_nearest_even(void **s)
{
    (void)s;
    char msg[256];
    static const float base[4] = {2048.0f, 2050.0f, 1.0f, -3.5f}, add[4] = {1.0f, 1.0f, 0x1p-11f, 3.5f};
    static const float want16[4] = {2048.0f, 2052.0f, 1.0f, 0.0f};
    uint16_t dst[4];
    tile x = ref_tile2(TILE_FP16, 1, 4);
    for (int i = 0; i < 4; i++) dst[i] = ref_f16(base[i]), ((uint16_t *)x.data)[i] = ref_f16(add[i]);
    tile_tensor t = tensor2(dst, TILE_FP16, 1, 4, 4, 1);
    assert_int_equal(tile_store_add(&t, (int64_t[]){0, 0}, &x, NULL, msg, sizeof msg), 0);
    for (int i = 0; i < 4; i++) assert_int_equal(dst[i], ref_f16(want16[i]));
    static const float bbase[4] = {256.0f, 258.0f, 1.0f, 0x1p127f}, badd[4] = {1.0f, 1.0f, 0x1p-8f, 0x1p127f};
    uint16_t bdst[4];
    tile b = ref_tile2(TILE_BF16, 1, 4);
    for (int i = 0; i < 4; i++) bdst[i] = ref_bf16(bbase[i]), ((uint16_t *)b.data)[i] = ref_bf16(badd[i]);
    tile_tensor bt = tensor2(bdst, TILE_BF16, 1, 4, 4, 1);
    assert_int_equal(tile_store_add(&bt, (int64_t[]){0, 0}, &b, NULL, msg, sizeof msg), 0);
    assert_int_equal(bdst[0], ref_bf16(256.0f));
    assert_int_equal(bdst[1], ref_bf16(260.0f));
    assert_int_equal(bdst[2], ref_bf16(1.0f));       /* 1 + 2^-8: a tie, to even */
    assert_int_equal(bdst[3], 0x7F80);               /* 2^128 overflows to +inf */
    free(x.data), free(b.data);
}

/* Integers wrap at their width: INT8 100 + 100 = -56, INT16 30000 + 30000
 * = -5536, INT32 INT32_MAX + 1 = INT32_MIN. */
static void test_store_add_integers_wrap(void **s)
{
    (void)s;
    char msg[256];
    int8_t d8[2] = {100, -128};
    tile x8 = ref_tile2(TILE_INT8, 1, 2);
    ((int8_t *)x8.data)[0] = 100, ((int8_t *)x8.data)[1] = -1;
    tile_tensor t8 = tensor2(d8, TILE_INT8, 1, 2, 2, 1);
    assert_int_equal(tile_store_add(&t8, (int64_t[]){0, 0}, &x8, NULL, msg, sizeof msg), 0);
    assert_int_equal(d8[0], -56);
    assert_int_equal(d8[1], 127);
    int16_t d16[1] = {30000};
    tile x16 = ref_tile2(TILE_INT16, 1, 1);
    ((int16_t *)x16.data)[0] = 30000;
    tile_tensor t16 = tensor2(d16, TILE_INT16, 1, 1, 1, 1);
    assert_int_equal(tile_store_add(&t16, (int64_t[]){0, 0}, &x16, NULL, msg, sizeof msg), 0);
    assert_int_equal(d16[0], -5536);
    int32_t d32[1] = {INT32_MAX};
    tile x32 = ref_tile2(TILE_INT32, 1, 1);
    ((int32_t *)x32.data)[0] = 1;
    tile_tensor t32 = tensor2(d32, TILE_INT32, 1, 1, 1, 1);
    assert_int_equal(tile_store_add(&t32, (int64_t[]){0, 0}, &x32, NULL, msg, sizeof msg), 0);
    assert_int_equal(d32[0], INT32_MIN);
    free(x8.data), free(x16.data), free(x32.data);
}

/* BOOL and INT64 do not add; bounds are tile_store's, and nothing is written. */
static void test_store_add_refuses_other_dtypes_and_bounds(void **s)
{
    (void)s;
    char msg[256];
    int64_t d64[4] = {0};
    tile x = ref_tile2(TILE_INT64, 2, 2);
    tile_tensor t = tensor2(d64, TILE_INT64, 2, 2, 2, 1);
    assert_int_equal(tile_store_add(&t, (int64_t[]){0, 0}, &x, NULL, msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.store with atomic=AtomicType.Add requires an fp32/bf16/fp16/int32/int16/int8/uint32/uint16/uint8 tile, got INT64");
    uint8_t db[4] = {0};
    tile b = ref_tile2(TILE_BOOL, 2, 2);
    tile_tensor bt = tensor2(db, TILE_BOOL, 2, 2, 2, 1);
    assert_int_equal(tile_store_add(&bt, (int64_t[]){0, 0}, &b, NULL, msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.store with atomic=AtomicType.Add requires an fp32/bf16/fp16/int32/int16/int8/uint32/uint16/uint8 tile, got BOOL");
    float df[4] = {7, 7, 7, 7};
    tile f = ref_tile2(TILE_FP32, 2, 2);
    tile_tensor ft = tensor2(df, TILE_FP32, 2, 2, 2, 1);
    assert_int_equal(tile_store_add(&ft, (int64_t[]){1, 0}, &f, NULL, msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.store writes past the end of dimension 0: offset 1 + extent 2 exceeds the destination extent 2.");
    for (int i = 0; i < 4; i++) assert_true(df[i] == 7);
    free(x.data), free(b.data), free(f.data);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_store_add_fp32_adds_into_the_window),
    cmocka_unit_test(test_store_add_adds_the_valid_region_only),
    cmocka_unit_test(test_store_add_strided_window),
    cmocka_unit_test(test_store_add_half_rounds_to_nearest_even),
    cmocka_unit_test(test_store_add_integers_wrap),
    cmocka_unit_test(test_store_add_refuses_other_dtypes_and_bounds),
};

PTO_TEST_MAIN(tests)
