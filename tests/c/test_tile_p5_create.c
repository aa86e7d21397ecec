/*
 * test_tile_p5_create.c - the edge cases of the generator and view kernels
 * (tile_generate.c; docs/dsl.md, "Creation, linear algebra and views"):
 * pl.arange wrapping at its dtype's edge, pl.tri's boundary at and past the
 * tile's edge with a narrowed region, Philox4x32 against the published
 * known answers, pl.random's 128-bit counter carry and its valid region,
 * pl.reinterpret_view's zero bytes outside the source's region and the
 * dtypes it refuses; the matmul_bias pair (a product, then the bias row).
 */
#include "harness.h"
#include "tile_ref.h"

static void test_tile_arange_wraps_at_the_dtype_width(void **s)
{
    (void)s;
    char msg[256];
    tile a = ref_tile2(TILE_INT16, 1, 4), b = ref_tile2(TILE_INT32, 1, 3), f = ref_tile2(TILE_FP32, 1, 2);
    assert_int_equal(tile_arange(&a, 32766, 0, msg, sizeof msg), 0);
    assert_true(ref_get(&a, 0) == 32766 && ref_get(&a, 1) == 32767 && ref_get(&a, 2) == -32768 && ref_get(&a, 3) == -32767);
    assert_int_equal(tile_arange(&b, INT32_MIN + 1, 1, msg, sizeof msg), 0);
    assert_true(ref_get(&b, 0) == INT32_MIN + 1 && ref_get(&b, 1) == INT32_MIN && ref_get(&b, 2) == INT32_MAX);
    assert_int_equal(tile_arange(&b, INT64_MIN, 1, msg, sizeof msg), 0); /* the start itself wraps: no overflow */
    assert_true(ref_get(&b, 0) == 0 && ref_get(&b, 1) == -1);
    assert_int_equal(tile_arange(&f, 0, 0, msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.arange: FP32 tiles are not supported");
    free(a.data), free(b.data), free(f.data);
}

static void test_tile_tri_boundary_at_and_past_the_edges(void **s)
{
    (void)s;
    char msg[256];
    tile t = ref_tile2(TILE_FP16, 4, 5);
    int64_t full[2] = {4, 5}, part[2] = {3, 2};
    int64_t diags[] = {0, 4, 5, -3, -4, INT64_MAX, INT64_MIN};
    for (size_t k = 0; k < sizeof diags / sizeof diags[0]; k++)
        for (int upper = 0; upper < 2; upper++) {
            assert_int_equal(tile_tri(&t, diags[k], upper, full, msg, sizeof msg), 0);
            for (int64_t i = 0; i < 4; i++)
                for (int64_t j = 0; j < 5; j++) {
                    int in = upper ? (double)j >= (double)i + (double)diags[k] : (double)j <= (double)i + (double)diags[k];
                    if (ref_get(&t, i * 5 + j) != in) fail_msg("diag %lld upper %d [%lld, %lld]", (long long)diags[k], upper, (long long)i, (long long)j);
                }
        }
    assert_int_equal(tile_tri(&t, 0, 0, part, msg, sizeof msg), 0);
    static const double want[] = {1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0};
    for (int64_t i = 0; i < 20; i++) assert_true(ref_get(&t, i) == want[i]);
    assert_true(t.valid[0] == 3 && t.valid[1] == 2);
    free(t.data);
}

static void test_tile_philox_matches_the_published_known_answers(void **s)
{
    (void)s;
    uint32_t out[4];
    tile_philox4x32((uint32_t[]){0, 0}, (uint32_t[]){0, 0, 0, 0}, 10, out);
    assert_true(out[0] == 0x6627e8d5u && out[1] == 0xe169c58du && out[2] == 0xbc57ac4cu && out[3] == 0x9b00dbd8u);
    tile_philox4x32((uint32_t[]){0xffffffffu, 0xffffffffu}, (uint32_t[]){0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}, 10, out);
    assert_true(out[0] == 0x408f276du && out[1] == 0x41c83b0eu && out[2] == 0xa20bc7c6u && out[3] == 0x6d5451fdu);
    tile_philox4x32((uint32_t[]){0xa4093822u, 0x299f31d0u}, (uint32_t[]){0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}, 10, out);
    assert_true(out[0] == 0xd16cfe09u && out[1] == 0x94fdccebu && out[2] == 0x5001e420u && out[3] == 0x24126ea1u);
}

static void test_tile_random_counter_carries_across_128_bits(void **s)
{
    (void)s;
    char msg[256];
    tile t = ref_tile2(TILE_INT32, 1, 8);
    uint32_t key[2] = {5, 6}, ctr[4] = {0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}, out[4];
    int64_t full[2] = {1, 8};
    assert_int_equal(tile_random(&t, key, ctr, 7, full, msg, sizeof msg), 0);
    tile_philox4x32(key, ctr, 7, out);
    for (int w = 0; w < 4; w++) assert_true((uint32_t)(int32_t)ref_get(&t, w) == out[w]);
    tile_philox4x32(key, (uint32_t[]){0, 0, 0, 0}, 7, out); /* block 1: the counter wrapped to 0 */
    for (int w = 0; w < 4; w++) assert_true((uint32_t)(int32_t)ref_get(&t, 4 + w) == out[w]);
    assert_int_equal(tile_random(&t, key, ctr, 8, full, msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.random: 8 rounds; 7 or 10");
    free(t.data);
}

static void test_tile_random_valid_region_keeps_the_values_inside(void **s)
{
    (void)s;
    char msg[256];
    tile a = ref_tile2(TILE_INT32, 3, 5), b = ref_tile2(TILE_INT32, 3, 5), e = ref_tile2(TILE_INT32, 3, 5);
    uint32_t key[2] = {1, 2}, ctr[4] = {3, 4, 5, 6};
    assert_int_equal(tile_random(&a, key, ctr, 10, (int64_t[]){3, 5}, msg, sizeof msg), 0);
    assert_int_equal(tile_random(&b, key, ctr, 10, (int64_t[]){2, 3}, msg, sizeof msg), 0);
    for (int64_t i = 0; i < 15; i++) assert_true(ref_get(&b, i) == (i / 5 < 2 && i % 5 < 3 ? ref_get(&a, i) : 0));
    assert_int_equal(tile_random(&e, key, ctr, 10, (int64_t[]){0, 5}, msg, sizeof msg), 0); /* empty */
    for (int64_t i = 0; i < 15; i++) assert_true(ref_get(&e, i) == 0);
    free(a.data), free(b.data), free(e.data);
}

static void test_tile_reinterpret_zeroes_bytes_outside_the_source_region(void **s)
{
    (void)s;
    char msg[256];
    tile a = ref_tile2(TILE_INT16, 2, 4), d = ref_tile2(TILE_INT8, 2, 8), w = ref_tile2(TILE_INT32, 1, 3), bo = ref_tile2(TILE_BOOL, 2, 8);
    for (int64_t i = 0; i < 8; i++) ref_set(&a, i, 0x0102 * (i + 1));
    a.valid[1] = 3;
    assert_int_equal(tile_reinterpret(&d, &a, msg, sizeof msg), 0);
    const int8_t *p = d.data;
    for (int64_t i = 0; i < 8; i++) {
        int16_t v = i % 4 < 3 ? (int16_t)(0x0102 * (i + 1)) : 0, got;
        memcpy(&got, p + 2 * i, 2);
        assert_int_equal(got, v);
    }
    assert_true(d.valid[0] == 2 && d.valid[1] == 8);
    assert_int_equal(tile_reinterpret(&w, &a, msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.reinterpret_view: the result tile does not hold the source's bytes");
    assert_int_equal(tile_reinterpret(&bo, &a, msg, sizeof msg), -1);
    free(a.data), free(d.data), free(w.data), free(bo.data);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_tile_arange_wraps_at_the_dtype_width),
    cmocka_unit_test(test_tile_tri_boundary_at_and_past_the_edges),
    cmocka_unit_test(test_tile_philox_matches_the_published_known_answers),
    cmocka_unit_test(test_tile_random_counter_carries_across_128_bits),
    cmocka_unit_test(test_tile_random_valid_region_keeps_the_values_inside),
    cmocka_unit_test(test_tile_reinterpret_zeroes_bytes_outside_the_source_region),
};

PTO_TEST_MAIN(tests)
