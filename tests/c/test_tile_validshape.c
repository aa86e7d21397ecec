/*
 * test_tile_validshape.c - the pl.fillpad_expand and pl.set_validshape tile
 * kernels (tile_fillpad_expand, tile_set_validshape) against loops here:
 * every dtype and pad, rank 3, shrinking and growing a region, in place,
 * the texts; and both ops through the tile VM on a compiled kernel: a
 * store after pl.set_validshape writes the region only, a run-time value
 * over the extent fails the task with the op's file:line:col.
 */
#include <stdlib.h>

#include "harness.h"
#include "dsl_compile.h"
#include "tile_ref.h"

#include "compiler/program.h"
#include "exec/tile_vm.h"

/* pad kind pad for dtype dt, as a value. */
static double pad_of(tile_dtype dt, int pad)
{
    int fl = tile_dtype_is_float(dt);
    double hi = fl ? (double)INFINITY : dt == TILE_INT8 ? 127.0 : (double)INT32_MAX;
    double lo = fl ? -(double)INFINITY : dt == TILE_INT8 ? -128.0 : (double)INT32_MIN;
    return pad == TILE_PAD_ZERO ? 0 : pad == TILE_PAD_MAX ? hi : lo;
}

static void test_tile_fillpad_expand_every_dtype_and_pad(void **state)
{
    (void)state;
    char msg[256];
    static const tile_dtype dts[] = {TILE_FP32, TILE_FP16, TILE_BF16, TILE_INT32, TILE_INT8};
    for (size_t k = 0; k < sizeof dts / sizeof dts[0]; k++)
        for (int pad = TILE_PAD_ZERO; pad <= TILE_PAD_MIN; pad++) {
            /* [4, 6] valid [3, 5] -> [8, 8]: x's region at the origin, the pad elsewhere */
            tile x = ref_tile2(dts[k], 4, 6), y = ref_tile2(dts[k], 8, 8);
            for (int64_t e = 0; e < 24; e++) ref_set(&x, e, 1 + e % 7);
            x.valid[0] = 3, x.valid[1] = 5;
            tile_clear_outside(&x);
            memset(y.valid, 0, sizeof y.valid);
            assert_int_equal(tile_fillpad_expand(&y, &x, (tile_pad)pad, msg, sizeof msg), 0);
            for (int64_t i = 0; i < 8; i++)
                for (int64_t j = 0; j < 8; j++) {
                    double want = i < 3 && j < 5 ? 1 + (i * 6 + j) % 7 : pad_of(dts[k], pad);
                    if (ref_get(&y, i * 8 + j) != want) fail_msg("dtype %d pad %d at [%lld, %lld]: %g, want %g", dts[k], pad, (long long)i, (long long)j, ref_get(&y, i * 8 + j), want);
                }
            assert_true(y.valid[0] == 8 && y.valid[1] == 8);
            /* an empty region: the pad everywhere */
            x.valid[1] = 0;
            assert_int_equal(tile_fillpad_expand(&y, &x, (tile_pad)pad, msg, sizeof msg), 0);
            for (int64_t e = 0; e < 64; e++) assert_true(ref_get(&y, e) == pad_of(dts[k], pad));
            free(x.data), free(y.data);
        }
}

static void test_tile_fillpad_expand_rank3_and_texts(void **state)
{
    (void)state;
    char msg[256];
    tile x = ref_tile(TILE_FP32, 3, (int64_t[]){2, 3, 4}), y = ref_tile(TILE_FP32, 3, (int64_t[]){3, 4, 5});
    for (int64_t e = 0; e < 24; e++) ref_set(&x, e, e + 1);
    x.valid[0] = 2, x.valid[1] = 2, x.valid[2] = 3;
    tile_clear_outside(&x);
    assert_int_equal(tile_fillpad_expand(&y, &x, TILE_PAD_MIN, msg, sizeof msg), 0);
    for (int64_t a = 0; a < 3; a++)
        for (int64_t b = 0; b < 4; b++)
            for (int64_t c = 0; c < 5; c++) {
                double want = a < 2 && b < 2 && c < 3 ? (double)(a * 12 + b * 4 + c + 1) : -(double)INFINITY;
                assert_true(ref_get(&y, a * 20 + b * 5 + c) == want);
            }
    assert_true(y.valid[0] == 3 && y.valid[1] == 4 && y.valid[2] == 5);
    tile z = ref_tile(TILE_FP32, 3, (int64_t[]){3, 2, 5});
    assert_int_equal(tile_fillpad_expand(&z, &x, TILE_PAD_ZERO, msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.fillpad_expand: shape [3, 2, 5] is smaller than the source [2, 3, 4]");
    assert_int_equal(tile_fillpad_expand(&y, &x, TILE_PAD_NULL, msg, sizeof msg), -1);
    assert_string_equal(msg, "fillpad pad_value cannot be PadValue.null");
    free(x.data), free(y.data), free(z.data);
}

static void test_tile_set_validshape_shrinks_and_grows_with_zeros(void **state)
{
    (void)state;
    char msg[256];
    static const tile_dtype dts[] = {TILE_FP32, TILE_FP16, TILE_INT32, TILE_INT8};
    for (size_t k = 0; k < sizeof dts / sizeof dts[0]; k++) {
        tile x = ref_tile2(dts[k], 6, 8), y = ref_tile2(dts[k], 6, 8);
        for (int64_t e = 0; e < 48; e++) ref_set(&x, e, 1 + e % 9);
        /* into another tile: x's data, region [4, 3], zeros outside it */
        assert_int_equal(tile_set_validshape(&y, &x, 4, 3, msg, sizeof msg), 0);
        assert_true(y.valid[0] == 4 && y.valid[1] == 3 && y.valid[2] == 0);
        for (int64_t e = 0; e < 48; e++) assert_true(ref_get(&y, e) == (e / 8 < 4 && e % 8 < 3 ? 1 + e % 9 : 0));
        assert_true(x.valid[0] == 6 && x.valid[1] == 8 && ref_get(&x, 47) == 1 + 47 % 9); /* the source is unchanged */
        /* in place, grown to [6, 5]: the newly valid elements read 0 */
        assert_int_equal(tile_set_validshape(&y, &y, 6, 5, msg, sizeof msg), 0);
        assert_true(y.valid[0] == 6 && y.valid[1] == 5);
        for (int64_t e = 0; e < 48; e++) assert_true(ref_get(&y, e) == (e / 8 < 4 && e % 8 < 3 ? 1 + e % 9 : 0));
        /* an empty region, then the whole tile: all zeros */
        assert_int_equal(tile_set_validshape(&y, &y, 0, 8, msg, sizeof msg), 0);
        assert_int_equal(tile_set_validshape(&y, &y, 6, 8, msg, sizeof msg), 0);
        for (int64_t e = 0; e < 48; e++) assert_true(ref_get(&y, e) == 0);
        free(x.data), free(y.data);
    }
    tile x = ref_tile2(TILE_FP32, 16, 8);
    assert_int_equal(tile_set_validshape(&x, &x, 20, 8, msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.set_validshape: 20 exceeds dimension 0 of extent 16");
    assert_int_equal(tile_set_validshape(&x, &x, 16, 9, msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.set_validshape: 9 exceeds dimension 1 of extent 8");
    assert_int_equal(tile_set_validshape(&x, &x, 3, -2, msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.set_validshape: -2 is negative for dimension 1");
    assert_true(x.valid[0] == 16 && x.valid[1] == 8); /* a failed call changes nothing */
    tile r3 = ref_tile(TILE_FP32, 3, (int64_t[]){2, 2, 2});
    assert_int_equal(tile_set_validshape(&r3, &r3, 1, 1, msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.set_validshape requires a rank-2 tile, got rank 3");
    free(x.data), free(r3.data);
}

/* ---- through the tile VM ---- */

#define R 16
#define C 16

static const char vm_src[] =
    "import pypto.language as pl\n"
    "@pl.jit\n"
    "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
    "    with pl.at(level=pl.Level.CORE_GROUP):\n"
    "        t = pl.load(a, [0, 0], [8, 8], valid_shape=[5, 6])\n"
    "        e = pl.fillpad_expand(t, [16, 8], pad_value=pl.PadValue.max)\n"
    "        pl.store(pl.set_validshape(pl.set_validshape(e, 2, 3), 4, 5), [0, 40], out)\n"
    "        for i in pl.range(4):\n"
    "            u = pl.set_validshape(e, i + 6 * i, 7 - i)\n"
    "            pl.store(u, [0, i * 8], out)\n"
    "    return out\n";

static const pto_arg_spec vm_args[] = {
    {.name = "a", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {R, C}},
    {.name = "out", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {R, C + 32}},
};

/* Runs f's kernel on a [R, C] and out [R, C + 32]; the result of ex_tile_run. */
static int vm_run(const cc_lowered *l, float *a, float *out, char *msg, size_t cap)
{
    pto_view views[] = {pto_view_2d(a, 4, 0, R, C, C, 0), pto_view_2d(out, 4, 0, R, C + 32, C + 32, 0)};
    uint64_t s[] = {0, 0, 0, 0};
    pto_kernel_args args = {.num_views = 2, .views = views, .num_scalars = 4, .scalars = s, .message = msg, .message_len = cap};
    return ex_tile_run(l, &l->kernels[0], &args);
}

/* [2, 3] then [4, 5] of the expanded tile, stored at column 40: the
 * elements that became valid again read 0, not the tile's old +inf.  Step i
 * of the loop stores the [7i, 7 - i] region at column 8i; step 3 asks for
 * 21 rows of 16: the task fails there, at the op. */
static void test_tile_vm_set_validshape_store_writes_the_region_and_fails_at_the_op(void **state)
{
    (void)state;
    pto_program *p = dsl_compile_with(vm_src, "f", PTO_STAGE_ALL, 0, vm_args, 2);
    dsl_expect_ok(p);
    const cc_lowered *l = cc_program_lowered(p);
    assert_non_null(l);
    float a[R * C], out[R * (C + 32)];
    for (int k = 0; k < R * C; k++) a[k] = (float)k;
    for (int k = 0; k < R * (C + 32); k++) out[k] = -7.0f;
    char msg[256] = "";
    assert_int_equal(vm_run(l, a, out, msg, sizeof msg), -1);
    assert_string_equal(msg, "pl.set_validshape: 21 exceeds dimension 0 of extent 16 (at k.py:9:17)");
    float want[R * (C + 32)];
    for (int k = 0; k < R * (C + 32); k++) want[k] = -7.0f;
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 5; c++) want[r * (C + 32) + 40 + c] = r < 2 && c < 3 ? a[r * C + c] : 0.0f;
    /* steps 0-2 wrote their regions */
    for (int i = 0; i < 3; i++)
        for (int r = 0; r < 7 * i; r++)
            for (int c = 0; c < 7 - i; c++)
                want[r * (C + 32) + 8 * i + c] = r < 5 && c < 6 ? a[r * C + c] : INFINITY;
    for (int k = 0; k < R * (C + 32); k++)
        if (out[k] != want[k]) fail_msg("out[%d, %d] = %g, want %g", k / (C + 32), k % (C + 32), (double)out[k], (double)want[k]);
    pto_program_free(p);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_tile_fillpad_expand_every_dtype_and_pad),
    cmocka_unit_test(test_tile_fillpad_expand_rank3_and_texts),
    cmocka_unit_test(test_tile_set_validshape_shrinks_and_grows_with_zeros),
    cmocka_unit_test(test_tile_vm_set_validshape_store_writes_the_region_and_fails_at_the_op),
};

PTO_TEST_MAIN(tests)
