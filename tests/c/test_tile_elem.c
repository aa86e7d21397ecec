/*
 * test_tile_elem.c - the element kernels of pl.read and pl.write
 * (tile_read, tile_tensor_read, tile_tensor_write): every dtype, full and
 * flat indices, the pad outside a tile's valid region, a strided window
 * with a negative base, the write's conversion (FP16 rounding, integer
 * wrap), and the out-of-range texts.
 */
#include <string.h>

#include "harness.h"
#include "base/half.h"
#include "tile/tile.h"

/* A [2, 3] tile of ints 1..6 (valid region valid) in dtype dt at buf. */
static tile el_tile(void *buf, tile_dtype dt, int64_t vrows)
{
    tile t = {.data = buf, .dtype = dt, .rank = 2, .shape = {2, 3}, .valid = {vrows, 3}};
    for (int k = 0; k < 6; k++) tile_fill((char *)buf + k * tile_dtype_size(dt), dt, tile_scalar_for(dt, 0, k + 1, 0), 1);
    tile_clear_outside(&t);
    return t;
}

static void test_tile_read_every_dtype_full_and_flat(void **s)
{
    (void)s;
    char buf[64], msg[128];
    for (int dt = TILE_FP32; dt <= TILE_INT8; dt++) {
        tile t = el_tile(buf, (tile_dtype)dt, 2);
        tile_scalar v;
        int fl = tile_dtype_is_float((tile_dtype)dt);
        assert_int_equal(tile_read(&t, (int64_t[]){1, 2}, 2, &v, msg, sizeof msg), 0);
        assert_true(fl ? v.f == 6.0 : v.i == 6);
        assert_int_equal(tile_read(&t, (int64_t[]){4}, 1, &v, msg, sizeof msg), 0); /* flat 4 = [1, 1] */
        assert_true(fl ? v.f == 5.0 : v.i == 5);
        t = el_tile(buf, (tile_dtype)dt, 1); /* row 1 outside the valid region: the pad */
        assert_int_equal(tile_read(&t, (int64_t[]){1, 0}, 2, &v, msg, sizeof msg), 0);
        assert_true(fl ? v.f == 0.0 : v.i == 0);
    }
    int8_t neg[6] = {-128, 0, 0, 0, 0, 0};
    tile t = {.data = neg, .dtype = TILE_INT8, .rank = 2, .shape = {2, 3}, .valid = {2, 3}};
    tile_scalar v;
    assert_int_equal(tile_read(&t, (int64_t[]){0, 0}, 2, &v, msg, sizeof msg), 0);
    assert_int_equal(v.i, -128);
}

static void test_tile_read_out_of_range_texts(void **s)
{
    (void)s;
    char buf[64], msg[128];
    tile t = el_tile(buf, TILE_FP32, 2);
    tile_scalar v;
    assert_int_equal(tile_read(&t, (int64_t[]){0, 3}, 2, &v, msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.read: index 3 is out of range for dimension 1 of extent 3");
    assert_int_equal(tile_read(&t, (int64_t[]){-1, 0}, 2, &v, msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.read: index -1 is out of range for dimension 0 of extent 2");
    assert_int_equal(tile_read(&t, (int64_t[]){6}, 1, &v, msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.read: index 6 is out of range for dimension 0 of extent 6");
}

/* A [3, 4] tensor viewed through strides {8, 2} (every other column of a
 * wider buffer) with a negative base: whole-tensor coordinates address it. */
static void test_tensor_read_write_strided_window(void **s)
{
    (void)s;
    float mem[32] = {0};
    char msg[128];
    tile_tensor t = {.addr = (char *)(mem + 8), .base = -8, .dtype = TILE_FP32, .rank = 2, .shape = {3, 4}, .strides = {8, 2}};
    for (int k = 0; k < 32; k++) mem[k] = (float)k;
    tile_scalar v;
    assert_int_equal(tile_tensor_read(&t, (int64_t[]){2, 3}, 2, &v, msg, sizeof msg), 0);
    assert_true(v.f == 22.0); /* mem[2*8 + 3*2] */
    assert_int_equal(tile_tensor_read(&t, (int64_t[]){6}, 1, &v, msg, sizeof msg), 0); /* flat 6 = [1, 2] */
    assert_true(v.f == 12.0);
    assert_int_equal(tile_tensor_write(&t, (int64_t[]){9}, 1, (tile_scalar){.f = -1.5}, msg, sizeof msg), 0); /* [2, 1] */
    assert_true(mem[18] == -1.5f && mem[17] == 17.0f && mem[19] == 19.0f);
    assert_int_equal(tile_tensor_write(&t, (int64_t[]){3, 0}, 2, (tile_scalar){.f = 0}, msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.write: index 3 is out of range for dimension 0 of extent 3");
    assert_int_equal(tile_tensor_read(&t, (int64_t[]){12}, 1, &v, msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.read: index 12 is out of range for dimension 0 of extent 12");
}

/* A write converts as tile_fill does: FP16 to nearest even, integers wrap. */
static void test_tensor_write_converts_to_the_element_dtype(void **s)
{
    (void)s;
    uint16_t h[2] = {0, 0};
    int8_t b[2] = {0, 0};
    char msg[128];
    tile_tensor th = {.addr = (char *)h, .dtype = TILE_FP16, .rank = 1, .shape = {2}, .strides = {1}};
    tile_tensor tb = {.addr = (char *)b, .dtype = TILE_INT8, .rank = 1, .shape = {2}, .strides = {1}};
    assert_int_equal(tile_tensor_write(&th, (int64_t[]){1}, 1, tile_scalar_for(TILE_FP16, 1, 0, 65519.0), msg, sizeof msg), 0);
    assert_int_equal(h[1], base_f32_to_f16(65504.0f));
    assert_int_equal(tile_tensor_write(&th, (int64_t[]){0}, 1, tile_scalar_for(TILE_FP16, 0, 3, 0), msg, sizeof msg), 0);
    tile_scalar v;
    assert_int_equal(tile_tensor_read(&th, (int64_t[]){0}, 1, &v, msg, sizeof msg), 0);
    assert_true(v.f == 3.0);
    assert_int_equal(tile_tensor_write(&tb, (int64_t[]){1}, 1, tile_scalar_for(TILE_INT8, 0, 200, 0), msg, sizeof msg), 0);
    assert_int_equal(b[1], -56);
    assert_int_equal(b[0], 0);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_tile_read_every_dtype_full_and_flat),
    cmocka_unit_test(test_tile_read_out_of_range_texts),
    cmocka_unit_test(test_tensor_read_write_strided_window),
    cmocka_unit_test(test_tensor_write_converts_to_the_element_dtype),
};

PTO_TEST_MAIN(tests)
