/*
 * test_tile_valid_region.c - a tile_tensor's valid region ([0, shape - hidden)
 * per axis: a view with a valid_shape, or one past its tensor's edge): loads
 * read and stores write only the part of their window inside it, element
 * access outside it fails with its own text, bounds stay the shape's.
 */
#include "harness.h"
#include "tile_ref.h"

/* A 4x8 FP32 tensor over mem whose last `hidden` columns are outside its valid region. */
static tile_tensor cut_cols(float *mem, int64_t hidden)
{
    return (tile_tensor){.addr = (char *)mem, .dtype = TILE_FP32, .rank = 2, .shape = {4, 8}, .strides = {8, 1}, .hidden = {0, hidden}};
}

static void test_load_reads_only_the_valid_region(void **s)
{
    (void)s;
    char msg[256];
    float mem[32];
    for (int i = 0; i < 32; i++) mem[i] = (float)i + 1;
    tile_tensor t = cut_cols(mem, 3);
    tile x = ref_tile2(TILE_FP32, 4, 4);
    assert_int_equal(tile_load(&x, &t, (int64_t[]){0, 2}, (int64_t[]){-1, -1}, 0, "pl.load", msg, sizeof msg), 0);
    assert_int_equal(x.valid[0], 4);
    assert_int_equal(x.valid[1], 3); /* columns 2, 3, 4 */
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++) assert_true(((float *)x.data)[r * 4 + c] == (c < 3 ? mem[r * 8 + 2 + c] : 0.0f));
    /* wholly outside: an empty valid region, no error */
    assert_int_equal(tile_load(&x, &t, (int64_t[]){0, 6}, (int64_t[]){-1, 2}, 0, "pl.load", msg, sizeof msg), 0);
    assert_int_equal(x.valid[1], 0);
    free(x.data);
}

static void test_load_bounds_stay_the_shape(void **s)
{
    (void)s;
    char msg[256];
    float mem[32] = {0};
    tile_tensor t = cut_cols(mem, 3);
    tile x = ref_tile2(TILE_FP32, 4, 4);
    assert_int_equal(tile_load(&x, &t, (int64_t[]){0, 6}, (int64_t[]){-1, -1}, 0, "pl.load", msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.load reads past the end of dimension 1: offset 6 + extent 4 exceeds the source extent 8.");
    free(x.data);
}

static void test_store_writes_only_the_valid_region(void **s)
{
    (void)s;
    char msg[256];
    float mem[32];
    for (int i = 0; i < 32; i++) mem[i] = -1;
    tile_tensor t = cut_cols(mem, 2);
    tile x = ref_tile2(TILE_FP32, 4, 4);
    for (int i = 0; i < 16; i++) ((float *)x.data)[i] = (float)i;
    assert_int_equal(tile_store(&t, (int64_t[]){0, 4}, &x, NULL, msg, sizeof msg), 0);
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 8; c++) assert_true(mem[r * 8 + c] == (c >= 4 && c < 6 ? (float)(r * 4 + c - 4) : -1.0f));
    assert_int_equal(tile_store_add(&t, (int64_t[]){0, 4}, &x, NULL, msg, sizeof msg), 0);
    for (int r = 0; r < 4; r++) assert_true(mem[r * 8 + 6] == -1.0f && mem[r * 8 + 5] == 2.0f * (float)(r * 4 + 1));
    assert_int_equal(tile_store(&t, (int64_t[]){0, 5}, &x, NULL, msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.store writes past the end of dimension 1: offset 5 + extent 4 exceeds the destination extent 8.");
    free(x.data);
}

static void test_element_outside_the_valid_region_fails(void **s)
{
    (void)s;
    char msg[256];
    float mem[32] = {0};
    tile_tensor t = cut_cols(mem, 3);
    tile_scalar v;
    assert_int_equal(tile_tensor_read(&t, (int64_t[]){3, 4}, 2, &v, msg, sizeof msg), 0);
    assert_int_equal(tile_tensor_read(&t, (int64_t[]){3, 5}, 2, &v, msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.read: index 5 is outside the valid region of dimension 1 (5 of 8 valid)");
    assert_int_equal(tile_tensor_write(&t, (int64_t[]){7}, 1, v, msg, sizeof msg), -1); /* flat: row 0, column 7 */
    assert_string_equal(msg, "pl.write: index 7 is outside the valid region of dimension 1 (5 of 8 valid)");
    assert_int_equal(tile_tensor_read(&t, (int64_t[]){0, 8}, 2, &v, msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.read: index 8 is out of range for dimension 1 of extent 8");
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_load_reads_only_the_valid_region),
    cmocka_unit_test(test_load_bounds_stay_the_shape),
    cmocka_unit_test(test_store_writes_only_the_valid_region),
    cmocka_unit_test(test_element_outside_the_valid_region_fails),
};

PTO_TEST_MAIN(tests)
