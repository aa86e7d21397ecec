/*
 * test_tile_cast_mm.c - tile cast (rounding modes, saturation, NaN, one
 * rounding from INT32 to BF16; a scalar casts as a tile element does),
 * matmul per dtype against a triple loop, and load/store windows (valid
 * regions, clamp, the out-of-bounds messages of docs/dsl.md, "Operations").
 */
#include "compiler/scalar.h"
#include "harness.h"
#include "tile_ref.h"

static void test_tile_cast_float_to_int_modes_saturate_nan_zero(void **state)
{
    (void)state;
    char msg[256];
    const float in[] = {2.5f, -2.5f, 3.5f, -0.5f, 1.7f, -1.7f, 1e10f, -1e10f, NAN, 300.f};
    const int32_t want[5][10] = {
        {3, -3, 4, -1, 2, -2, INT32_MAX, INT32_MIN, 0, 300},  /* round: half away from zero */
        {2, -2, 4, 0, 2, -2, INT32_MAX, INT32_MIN, 0, 300},   /* rint: half to even */
        {2, -3, 3, -1, 1, -2, INT32_MAX, INT32_MIN, 0, 300},  /* floor */
        {3, -2, 4, 0, 2, -1, INT32_MAX, INT32_MIN, 0, 300},   /* ceil */
        {2, -2, 3, 0, 1, -1, INT32_MAX, INT32_MIN, 0, 300}};  /* trunc */
    tile f = ref_tile2(TILE_FP32, 1, 10), i = ref_tile2(TILE_INT32, 1, 10), b = ref_tile2(TILE_INT8, 1, 10);
    memcpy(f.data, in, sizeof in);
    for (int m = 0; m < 5; m++) {
        assert_int_equal(tile_cast(&i, &f, (tile_round)m, msg, sizeof msg), 0);
        assert_memory_equal(i.data, want[m], sizeof want[m]);
        assert_int_equal(tile_cast(&b, &f, (tile_round)m, msg, sizeof msg), 0);
        for (int k = 0; k < 10; k++) {
            int32_t w = want[m][k] < -128 ? -128 : want[m][k] > 127 ? 127 : want[m][k];
            assert_int_equal(((int8_t *)b.data)[k], w);
        }
    }
    /* int -> narrower int saturates; int -> BF16 rounds once */
    ((int32_t *)i.data)[0] = 1000, ((int32_t *)i.data)[1] = -1000, ((int32_t *)i.data)[2] = 16777217 + 65536 * 2;
    assert_int_equal(tile_cast(&b, &i, TILE_ROUND, msg, sizeof msg), 0);
    assert_int_equal(((int8_t *)b.data)[0], 127);
    assert_int_equal(((int8_t *)b.data)[1], -128);
    tile h = ref_tile2(TILE_BF16, 1, 10);
    assert_int_equal(tile_cast(&h, &i, TILE_ROUND, msg, sizeof msg), 0);
    assert_int_equal(((uint16_t *)h.data)[2], ref_bf16((float)(16777217.0 + 131072.0)));
    free(f.data), free(i.data), free(b.data), free(h.data);
}

/* M = 2^24 + 2^16 lies halfway between two BF16 values; an INT32 a step
 * either side of it rounds to the nearer one, M itself to the even one. */
static void test_tile_cast_int32_to_bf16_rounds_once_either_side_of_a_midpoint(void **state)
{
    (void)state;
    char msg[256];
    const int32_t m = (1 << 24) + (1 << 16);
    const int32_t in[] = {m - 1, m + 1, m, -(m - 1), -(m + 1), -m};
    const float want[] = {0x1p24f, 0x1p24f + 0x1p17f, 0x1p24f, -0x1p24f, -0x1p24f - 0x1p17f, -0x1p24f};
    tile i = ref_tile2(TILE_INT32, 1, 6), h = ref_tile2(TILE_BF16, 1, 6);
    memcpy(i.data, in, sizeof in);
    assert_int_equal(tile_cast(&h, &i, TILE_ROUND, msg, sizeof msg), 0);
    for (int k = 0; k < 6; k++) assert_true(ref_get(&h, k) == want[k]);
    free(i.data), free(h.data);
}

/* pl.cast of a scalar (cc_scalar_cast: folded by the compiler, run by both
 * VMs) gives what the tile cast gives an element, for every pair of tile
 * dtypes and every mode, at and past each dtype's limits. */
static void test_scalar_cast_is_the_tile_cast_for_every_dtype_pair(void **state)
{
    (void)state;
    char msg[256];
    const float specials[] = {0.f, -0.f, 0.5f, 1.5f, 2.5f, -2.5f, 126.5f, 127.5f, 128.f, -128.5f, -129.f, 300.f,
                              65504.f, 65519.f, 65520.f, -65520.f, 0x1p-24f, 0x1p-25f, 0x1.8p-25f, 1.f + 0x1p-8f,
                              1.f + 0x3p-8f, 0x1.fep127f, 0x1.ff8p127f, 3.4e38f, 1e10f, -1e10f, 2147483520.f,
                              2147483648.f, -2147483904.f, INFINITY, -INFINITY, NAN};
    const int32_t ints[] = {127, 128, -128, -129, 65504, 65520, 16842751, 16842753, INT32_MAX, INT32_MIN};
    enum { NS = sizeof specials / sizeof specials[0], N = NS + 64 };
    tile f = ref_tile2(TILE_FP32, 1, N);
    ref_fill(&f, 7, 0);
    for (int k = 0; k < N; k++) ((float *)f.data)[k] = k < NS ? specials[k] : ((float *)f.data)[k] * 3e3f;
    for (int s = TILE_FP32; s <= TILE_INT8; s++) {
        tile src = ref_tile2((tile_dtype)s, 1, N);
        assert_int_equal(tile_cast(&src, &f, TILE_RINT, msg, sizeof msg), 0);
        if (s == TILE_INT32) memcpy(src.data, ints, sizeof ints); /* past FP32's exact integers */
        for (int t = TILE_FP32; t <= TILE_INT8; t++)
            for (int m = TILE_ROUND; m <= TILE_TRUNC; m++) {
                tile dst = ref_tile2((tile_dtype)t, 1, N);
                assert_int_equal(tile_cast(&dst, &src, (tile_round)m, msg, sizeof msg), 0);
                for (int k = 0; k < N; k++) {
                    double x = ref_get(&src, k), want = ref_get(&dst, k);
                    cc_scalar a = tile_dtype_is_float((tile_dtype)s) ? (cc_scalar){.f = x} : (cc_scalar){.i = (int64_t)x};
                    cc_scalar got = cc_scalar_cast((cc_dtype)s, (cc_dtype)t, (cc_cast_mode)m, a);
                    if (!tile_dtype_is_float((tile_dtype)t)) assert_int_equal(got.i, (int64_t)want);
                    else if (isnan(want)) assert_true(isnan(got.f));
                    else assert_true(got.f == want && signbit(got.f) == signbit(want));
                }
                free(dst.data);
            }
        free(src.data);
    }
    free(f.data);
}

static void test_tile_matmul_each_dtype_against_a_triple_loop(void **state)
{
    (void)state;
    char msg[256];
    tile_scratch s = {0};
    const tile_dtype dts[] = {TILE_FP32, TILE_FP16, TILE_BF16, TILE_INT8};
    for (int k = 0; k < 4; k++) {
        tile_dtype dt = dts[k], rt = dt == TILE_INT8 ? TILE_INT32 : TILE_FP32;
        tile a = ref_tile2(dt, 9, 13), b = ref_tile2(dt, 13, 11), c = ref_tile2(rt, 9, 11);
        a.valid[0] = 8, b.valid[1] = 10;
        ref_fill(&a, 21, 0), ref_fill(&b, 22, 0);
        assert_int_equal(tile_matmul(&c, &a, &b, &s, msg, sizeof msg), 0);
        assert_int_equal(c.valid[0], 8);
        assert_int_equal(c.valid[1], 10);
        for (int64_t i = 0; i < 9; i++)
            for (int64_t j = 0; j < 11; j++) {
                double acc = 0;
                for (int64_t q = 0; q < 13; q++) acc += ref_get(&a, i * 13 + q) * ref_get(&b, q * 11 + j);
                double got = ref_get(&c, i * 11 + j);
                if (i >= 8 || j >= 10) assert_true(got == 0);
                else if (fabs(got - acc) > 1e-3 * (1 + fabs(acc))) fail_msg("%s [%lld,%lld]: %g vs %g", tile_dtype_name(dt), (long long)i, (long long)j, got, acc);
            }
        free(a.data), free(b.data), free(c.data);
    }
    tile_scratch_free(&s);
}

static void test_tile_load_store_valid_shape_and_clamp(void **state)
{
    (void)state;
    char msg[256];
    float src[10 * 6];
    for (int i = 0; i < 60; i++) src[i] = (float)i;
    tile_tensor t = {.addr = (char *)src, .base = 0, .dtype = TILE_FP32, .rank = 2, .shape = {10, 6}, .strides = {6, 1}};
    tile x = ref_tile2(TILE_FP32, 4, 4);
    /* valid_shape narrows; the rest reads as 0 */
    assert_int_equal(tile_load(&x, &t, (int64_t[]){1, 1}, (int64_t[]){2, 3}, 0, "pl.load", msg, sizeof msg), 0);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) assert_true(((float *)x.data)[i * 4 + j] == (i < 2 && j < 3 ? src[(1 + i) * 6 + 1 + j] : 0));
    /* past the edge: an error, or with clamp a smaller valid region */
    assert_int_equal(tile_load(&x, &t, (int64_t[]){8, 0}, (int64_t[]){-1, -1}, 0, "pl.load", msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.load reads past the end of dimension 0: offset 8 + extent 4 exceeds the source extent 10.");
    assert_int_equal(tile_load(&x, &t, (int64_t[]){8, 4}, (int64_t[]){-1, -1}, 1, "pl.load", msg, sizeof msg), 0);
    assert_int_equal(x.valid[0], 2);
    assert_int_equal(x.valid[1], 2);
    assert_true(((float *)x.data)[1 * 4 + 1] == src[9 * 6 + 5] && ((float *)x.data)[2 * 4] == 0);
    assert_int_equal(tile_load(&x, &t, (int64_t[]){-1, 0}, (int64_t[]){-1, -1}, 0, "pl.load", msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.load: offset 0 is negative (-1)");
    /* a store writes the valid region only */
    float dst[10 * 6] = {0};
    tile_tensor o = t;
    o.addr = (char *)dst;
    assert_int_equal(tile_store(&o, (int64_t[]){0, 0}, &x, NULL, msg, sizeof msg), 0);
    assert_true(dst[0] == src[8 * 6 + 4] && dst[7] == src[9 * 6 + 5] && dst[2] == 0 && dst[12] == 0);
    assert_int_equal(tile_store(&o, (int64_t[]){9, 0}, &x, NULL, msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.store writes past the end of dimension 0: offset 9 + extent 2 exceeds the destination extent 10.");
    /* a strided (column) view */
    tile_tensor col = {.addr = (char *)src, .base = 2, .dtype = TILE_FP32, .rank = 1, .shape = {10}, .strides = {6}};
    tile c = ref_tile(TILE_FP32, 1, (int64_t[]){3});
    assert_int_equal(tile_load(&c, &col, (int64_t[]){4}, (int64_t[]){-1}, 0, "pl.load", msg, sizeof msg), 0);
    assert_true(((float *)c.data)[2] == src[6 * 6 + 2]);
    free(x.data), free(c.data);
}

/* An offset near INT64_MAX: offset + extent would overflow and pass a naive
 * check; both fail with the past-the-end message, and nothing is touched. */
static void test_tile_offset_near_int64_max_is_past_the_end(void **state)
{
    (void)state;
    char msg[256];
    float src[4 * 8] = {0}, dst[4 * 8] = {0};
    tile_tensor t = {.addr = (char *)src, .base = 0, .dtype = TILE_FP32, .rank = 2, .shape = {4, 8}, .strides = {8, 1}};
    tile_tensor o = t;
    o.addr = (char *)dst;
    tile x = ref_tile2(TILE_FP32, 4, 8);
    assert_int_equal(tile_load(&x, &t, (int64_t[]){INT64_MAX, 0}, (int64_t[]){-1, -1}, 0, "pl.load", msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.load reads past the end of dimension 0: offset 9223372036854775807 + extent 4 exceeds the source extent 4.");
    assert_int_equal(tile_load(&x, &t, (int64_t[]){0, 0}, (int64_t[]){-1, -1}, 0, "pl.load", msg, sizeof msg), 0);
    assert_int_equal(tile_store(&o, (int64_t[]){INT64_MAX - 1, 0}, &x, NULL, msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.store writes past the end of dimension 0: offset 9223372036854775806 + extent 4 exceeds the destination extent 4.");
    for (int i = 0; i < 32; i++) assert_true(dst[i] == 0);
    free(x.data);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_tile_cast_float_to_int_modes_saturate_nan_zero),
    cmocka_unit_test(test_tile_cast_int32_to_bf16_rounds_once_either_side_of_a_midpoint),
    cmocka_unit_test(test_scalar_cast_is_the_tile_cast_for_every_dtype_pair),
    cmocka_unit_test(test_tile_matmul_each_dtype_against_a_triple_loop),
    cmocka_unit_test(test_tile_load_store_valid_shape_and_clamp),
    cmocka_unit_test(test_tile_offset_near_int64_max_is_past_the_end),
};

PTO_TEST_MAIN(tests)
