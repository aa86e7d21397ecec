/*
 * test_overlap.c - view footprints and overlap classes (docs/runtime.md, "Tasks and views"),
 * unit tests on rt_overlap_box_of and rt_overlap_classify.
 *
 * rt_overlap_classify(old, now) answers how the new view `now` relates to the
 * existing footprint `old`: COVERED = now contains old in every dimension.
 */
#include "harness.h"

#include <string.h>

#include "base/prng.h"
#include "runtime/overlap.h"

static char mem[1 << 20];
#define A ((void *)mem)

/* A box refers to its view, so the view must outlive it. */
static rt_box box_of(const pto_view *v)
{
    rt_box b;
    const char *reason = NULL;
    memset(&b, 0xa5, sizeof b);
    int rc = rt_overlap_box_of(v, &b, &reason);
    if (rc != 0) fail_msg("view rejected: %s", reason ? reason : "(no reason)");
    return b;
}

static rt_overlap ov(pto_view old, pto_view now)
{
    rt_box a = box_of(&old), b = box_of(&now);
    return rt_overlap_classify(&a, &b);
}

/* Asserts old -> now and now -> old. */
static void expect2(pto_view x, pto_view y, rt_overlap x_then_y, rt_overlap y_then_x)
{
    assert_int_equal(ov(x, y), x_then_y);
    assert_int_equal(ov(y, x), y_then_x);
}

static pto_view v1(uint32_t es, int64_t off, uint64_t n) { return pto_view_1d(A, es, off, n, PTO_INVALID_TASK_ID); }

/* Row-major 2-d tile of a matrix with `ld` columns. */
static pto_view v2(uint32_t es, int64_t row, int64_t col, uint64_t rows, uint64_t cols, int64_t ld)
{
    return pto_view_2d(A, es, row * ld + col, rows, cols, ld, PTO_INVALID_TASK_ID);
}

static void test_overlap_classes(void **state)
{
    (void)state;
    /* [512] over [256]: COVERED; [256] over [512]: OVERLAP */
    assert_int_equal(ov(v1(4, 0, 256), v1(4, 0, 512)), RT_COVERED);
    assert_int_equal(ov(v1(4, 0, 512), v1(4, 0, 256)), RT_OVERLAP);
    /* equal: COVERED, both ways */
    expect2(v1(4, 0, 256), v1(4, 0, 256), RT_COVERED, RT_COVERED);
    expect2(v2(4, 32, 64, 16, 16, 256), v2(4, 32, 64, 16, 16, 256), RT_COVERED, RT_COVERED);

    /* rows [0,128) vs [128,256) of one 256x256 matrix: none */
    expect2(v2(4, 0, 0, 128, 256, 256), v2(4, 128, 0, 128, 256, 256), RT_NO_OVERLAP, RT_NO_OVERLAP);
    expect2(v2(4, 0, 64, 128, 64, 256), v2(4, 128, 64, 128, 64, 256), RT_NO_OVERLAP, RT_NO_OVERLAP);
    expect2(v1(4, 0, 128), v1(4, 128, 128), RT_NO_OVERLAP, RT_NO_OVERLAP);

    /* [0,192) vs [64,256): OVERLAP both ways */
    expect2(v1(4, 0, 192), v1(4, 64, 192), RT_OVERLAP, RT_OVERLAP);
    expect2(v2(4, 0, 0, 192, 256, 256), v2(4, 64, 0, 192, 256, 256), RT_OVERLAP, RT_OVERLAP);

    /* [0,256) over [64,192): COVERED; the reverse is OVERLAP */
    assert_int_equal(ov(v1(4, 64, 128), v1(4, 0, 256)), RT_COVERED);
    assert_int_equal(ov(v1(4, 0, 256), v1(4, 64, 128)), RT_OVERLAP);
    assert_int_equal(ov(v2(4, 64, 0, 128, 256, 256), v2(4, 0, 0, 256, 256, 256)), RT_COVERED);
    assert_int_equal(ov(v2(4, 0, 0, 256, 256, 256), v2(4, 64, 0, 128, 256, 256)), RT_OVERLAP);
    /* a whole-matrix writer covers an inner 2-d tile */
    assert_int_equal(ov(v2(4, 64, 64, 128, 128, 256), v2(4, 0, 0, 256, 256, 256)), RT_COVERED);

    /* other elem_size over the same bytes: OVERLAP (never COVERED) */
    expect2(v1(4, 0, 256), v1(2, 0, 512), RT_OVERLAP, RT_OVERLAP);
    expect2(v1(4, 0, 256), v1(8, 0, 128), RT_OVERLAP, RT_OVERLAP);
    expect2(v1(4, 0, 256), v1(1, 0, 4096), RT_OVERLAP, RT_OVERLAP); /* bigger, still not COVERED */

    /* disjoint bytes: none, adjacent or apart, any elem_size */
    expect2(v1(4, 0, 256), v1(4, 256, 256), RT_NO_OVERLAP, RT_NO_OVERLAP);
    expect2(v1(4, 0, 256), v1(4, 1000, 10), RT_NO_OVERLAP, RT_NO_OVERLAP);
    expect2(v1(4, 0, 256), v1(2, 512, 512), RT_NO_OVERLAP, RT_NO_OVERLAP);
    /* one shared byte is enough to overlap */
    expect2(v1(4, 0, 256), v1(1, 1023, 1), RT_OVERLAP, RT_OVERLAP);
}

/* Column tiles of a row-major matrix: byte ranges interleave, the boxes don't. */
static void test_overlap_strided_columns(void **state)
{
    (void)state;
    const int64_t ld = 256;
    pto_view left = v2(4, 0, 0, 128, 128, ld), right = v2(4, 0, 128, 128, 128, ld);
    rt_box bl = box_of(&left), br = box_of(&right);
    assert_true(bl.lo < br.hi && br.lo < bl.hi); /* byte ranges do interleave */
    expect2(left, right, RT_NO_OVERLAP, RT_NO_OVERLAP);

    /* narrow column blocks, adjacent and apart */
    expect2(v2(4, 0, 0, 128, 16, ld), v2(4, 0, 16, 128, 16, ld), RT_NO_OVERLAP, RT_NO_OVERLAP);
    expect2(v2(4, 0, 3, 128, 1, ld), v2(4, 0, 200, 128, 1, ld), RT_NO_OVERLAP, RT_NO_OVERLAP);
    /* a 2x2 grid of tiles: each pair is disjoint */
    pto_view q[4] = {v2(4, 0, 0, 64, 128, ld), v2(4, 0, 128, 64, 128, ld),
                     v2(4, 64, 0, 64, 128, ld), v2(4, 64, 128, 64, 128, ld)};
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            assert_int_equal(ov(q[i], q[j]), i == j ? RT_COVERED : RT_NO_OVERLAP);
    /* overlapping column blocks: OVERLAP; a wider block covers a narrower one */
    expect2(v2(4, 0, 0, 128, 160, ld), v2(4, 0, 128, 128, 128, ld), RT_OVERLAP, RT_OVERLAP);
    assert_int_equal(ov(v2(4, 0, 32, 128, 32, ld), v2(4, 0, 0, 128, 128, ld)), RT_COVERED);
    assert_int_equal(ov(v2(4, 0, 0, 128, 128, ld), v2(4, 0, 32, 128, 32, ld)), RT_OVERLAP);
    /* same columns, rows disjoint inside the column block */
    expect2(v2(4, 0, 64, 32, 64, ld), v2(4, 32, 64, 32, 64, ld), RT_NO_OVERLAP, RT_NO_OVERLAP);

    /* 3-d: [8][64][64] tensor, tiles along the last two dims */
    pto_view t0 = {A, 4, 3, {8, 32, 32}, {64 * 64, 64, 1}, 0, PTO_INVALID_TASK_ID};
    pto_view t1 = {A, 4, 3, {8, 32, 32}, {64 * 64, 64, 1}, 32, PTO_INVALID_TASK_ID};
    pto_view t2 = {A, 4, 3, {8, 32, 32}, {64 * 64, 64, 1}, 32 * 64, PTO_INVALID_TASK_ID};
    pto_view all = {A, 4, 3, {8, 64, 64}, {64 * 64, 64, 1}, 0, PTO_INVALID_TASK_ID};
    pto_view t0b = {A, 4, 3, {4, 48, 48}, {64 * 64, 64, 1}, 16 * 64 + 16, PTO_INVALID_TASK_ID};
    expect2(t0, t1, RT_NO_OVERLAP, RT_NO_OVERLAP);
    expect2(t0, t2, RT_NO_OVERLAP, RT_NO_OVERLAP);
    expect2(t1, t2, RT_NO_OVERLAP, RT_NO_OVERLAP);
    expect2(t0, all, RT_COVERED, RT_OVERLAP);
    expect2(t0, t0b, RT_OVERLAP, RT_OVERLAP);
}

/* Layouts the box math does not apply to: shared bytes -> OVERLAP, never
 * NO_OVERLAP or COVERED, even when the element sets happen to be disjoint. */
/* Views outside one box layout are compared conservatively (OVERLAP),
 * except a view identical to the other one: the same elements, COVERED. */
static void test_overlap_non_box_layout_is_conservative(void **state)
{
    (void)state;
    /* different row strides over shared bytes */
    pto_view every_row = v2(4, 0, 0, 64, 64, 256);
    pto_view every_other_row = pto_view_2d(A, 4, 0, 32, 64, 512, PTO_INVALID_TASK_ID);
    expect2(every_row, every_other_row, RT_OVERLAP, RT_OVERLAP);
    /* disjoint elements (cols 0-63 vs cols 128-191 of even rows), other strides */
    pto_view far_cols = pto_view_2d(A, 4, 128, 64, 64, 512, PTO_INVALID_TASK_ID);
    pto_view near_cols = v2(4, 0, 0, 128, 64, 256);
    expect2(near_cols, far_cols, RT_OVERLAP, RT_OVERLAP);
    /* different ndims over the same bytes: a 1-d view of a 2-d tile's rows */
    expect2(v2(4, 0, 0, 4, 256, 256), v1(4, 0, 1024), RT_OVERLAP, RT_OVERLAP);

    /* innermost stride not 1: even vs odd elements share the byte range */
    pto_view even = {A, 4, 1, {128}, {2}, 0, PTO_INVALID_TASK_ID};
    pto_view odd = {A, 4, 1, {128}, {2}, 1, PTO_INVALID_TASK_ID};
    expect2(even, odd, RT_OVERLAP, RT_OVERLAP);
    expect2(even, even, RT_COVERED, RT_COVERED); /* the very same elements */
    /* stride 0 (broadcast) */
    pto_view bcast = {A, 4, 2, {4, 64}, {0, 1}, 0, PTO_INVALID_TASK_ID};
    expect2(bcast, bcast, RT_COVERED, RT_COVERED);
    expect2(bcast, v1(4, 32, 4), RT_OVERLAP, RT_OVERLAP);
    /* a zero middle stride (broadcast rows of a 3-d view): no box math, and
     * no division by that stride */
    pto_view zero_mid = {A, 4, 3, {2, 3, 4}, {8, 0, 1}, 0, PTO_INVALID_TASK_ID};
    pto_view zero_mid_shifted = {A, 4, 3, {1, 3, 4}, {8, 0, 1}, 2, PTO_INVALID_TASK_ID};
    int64_t start[PTO_MAX_DIMS];
    assert_int_equal(rt_overlap_coords(&zero_mid, start), 0);
    expect2(zero_mid, zero_mid_shifted, RT_OVERLAP, RT_OVERLAP);
    /* outer stride not a multiple of the inner one */
    pto_view odd_strides = {A, 4, 2, {4, 8}, {3, 2}, 0, PTO_INVALID_TASK_ID};
    expect2(odd_strides, odd_strides, RT_COVERED, RT_COVERED);
    /* innermost stride 1 but an outer stride not a multiple of the next
     * inner one (rows of 3 padded to 10): conservative, though the element
     * sets {0..2, 10..12} and {3..5} are disjoint */
    pto_view pad_a = {A, 4, 3, {2, 1, 3}, {10, 3, 1}, 0, PTO_INVALID_TASK_ID};
    pto_view pad_b = {A, 4, 3, {1, 1, 3}, {10, 3, 1}, 3, PTO_INVALID_TASK_ID};
    expect2(pad_a, pad_b, RT_OVERLAP, RT_OVERLAP);
    expect2(pad_a, pad_a, RT_COVERED, RT_COVERED);
    /* different ndims, even where the leading strides agree: [256] vs [256][1] */
    pto_view col = {A, 4, 2, {256, 1}, {1, 1}, 0, PTO_INVALID_TASK_ID};
    expect2(v1(4, 0, 256), col, RT_OVERLAP, RT_OVERLAP);
    /* transposed (column-major) view of the same matrix */
    pto_view colmaj = {A, 4, 2, {64, 64}, {1, 256}, 0, PTO_INVALID_TASK_ID};
    expect2(colmaj, every_row, RT_OVERLAP, RT_OVERLAP);
    /* a box wider than the row its stride implies (wraps into the next row):
     * identical strides, but not a box - conservative both ways */
    pto_view wide = v2(4, 0, 200, 2, 100, 256);     /* cols 200..299 of a 256-col row */
    pto_view next_row = v2(4, 1, 0, 1, 40, 256);    /* bytes the wide view really touches */
    pto_view gap = v2(4, 1, 50, 1, 100, 256);       /* cols 50..149 of row 1 */
    expect2(wide, next_row, RT_OVERLAP, RT_OVERLAP);
    expect2(wide, gap, RT_OVERLAP, RT_OVERLAP);
    expect2(wide, wide, RT_COVERED, RT_COVERED);
    /* ... and a box that fits nowhere else: still no false NO_OVERLAP */
    expect2(wide, v2(4, 0, 0, 4, 256, 256), RT_OVERLAP, RT_OVERLAP);
}

static void expect_reject(pto_view v, const char *word)
{
    rt_box b;
    const char *reason = NULL;
    assert_int_equal(rt_overlap_box_of(&v, &b, &reason), -1);
    assert_non_null(reason);
    assert_true(strlen(reason) > 0);
    if (!strstr(reason, word)) fail_msg("reason \"%s\" does not mention \"%s\"", reason, word);
}

static void expect_accept(pto_view v)
{
    rt_box b;
    const char *reason = NULL;
    assert_int_equal(rt_overlap_box_of(&v, &b, &reason), 0);
}

static void test_view_validation(void **state)
{
    (void)state;
    pto_view ok = v2(4, 0, 0, 8, 8, 16);
    expect_accept(ok);

    pto_view v = ok;
    v.addr = NULL;
    /* bytes that would end past INT64_MAX: the box math could not hold them */
    pto_view far = {A, 8, 1, {2}, {1}, INT64_MAX - 4, PTO_INVALID_TASK_ID};
    expect_reject(far, "64-bit address range");
    pto_view wide = {A, 4, 2, {4, 4}, {INT64_MAX / 2, 1}, 0, PTO_INVALID_TASK_ID};
    expect_reject(wide, "64-bit address range");
    expect_reject(v, "addr");

    v = ok;
    v.ndims = 0;
    expect_reject(v, "ndims");
    v.ndims = 6;
    expect_reject(v, "ndims");
    v.ndims = UINT32_MAX;
    expect_reject(v, "ndims");
    pto_view five = {A, 4, 5, {2, 2, 2, 2, 2}, {16, 8, 4, 2, 1}, 0, PTO_INVALID_TASK_ID};
    expect_accept(five);
    pto_view one = v1(4, 0, 1);
    expect_accept(one);

    v = ok;
    v.elem_size = 0;
    expect_reject(v, "elem_size");

    v = ok;
    v.strides[0] = -16;
    expect_reject(v, "stride");
    v = ok;
    v.strides[1] = -1;
    expect_reject(v, "stride");
    v = five;
    v.strides[4] = -1;
    expect_reject(v, "stride");

    v = ok;
    v.offset = -1;
    expect_reject(v, "offset");
    v.offset = INT64_MIN;
    expect_reject(v, "offset");

    /* zero strides and zero offset are non-negative: accepted */
    pto_view zero = {A, 4, 2, {4, 4}, {0, 0}, 0, PTO_INVALID_TASK_ID};
    expect_accept(zero);

    /* byte range of an accepted view: [offset*es, (offset + span + 1)*es) */
    pto_view tile = v2(4, 2, 3, 4, 5, 16);
    rt_box b = box_of(&tile);
    assert_int_equal(b.lo, (2 * 16 + 3) * 4);
    assert_int_equal(b.hi, (2 * 16 + 3 + 3 * 16 + 4 + 1) * 4);
}

/* The trusted submit's rt_overlap_box (trusted.h) gives rt_overlap_box_of's box for every view
 * the checks accept: random ranks, extents (0 among them), strides and offsets. */
static void test_unchecked_box_is_the_checked_box(void **state)
{
    (void)state;
    uint64_t seed = 26;
    for (int n = 0; n < 20000; n++) {
        pto_view v;
        memset(&v, 0, sizeof v);
        v.addr = A, v.elem_size = (uint32_t)(1 + base_splitmix64(&seed) % 8);
        v.ndims = (uint32_t)(1 + base_splitmix64(&seed) % PTO_MAX_DIMS);
        for (uint32_t d = 0; d < v.ndims; d++) {
            v.shape[d] = base_splitmix64(&seed) % 9;
            v.strides[d] = (int64_t)(base_splitmix64(&seed) % 300);
        }
        v.offset = (int64_t)(base_splitmix64(&seed) % 5000);
        v.owner = PTO_INVALID_TASK_ID;
        rt_box checked, unchecked;
        const char *why = NULL;
        assert_int_equal(rt_overlap_box_of(&v, &checked, &why), 0);
        rt_overlap_box(&v, &unchecked);
        assert_ptr_equal(checked.addr, unchecked.addr);
        assert_ptr_equal(checked.view, unchecked.view);
        assert_int_equal(checked.lo, unchecked.lo);
        assert_int_equal(checked.hi, unchecked.hi);
    }
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_overlap_classes),
    cmocka_unit_test(test_overlap_strided_columns),
    cmocka_unit_test(test_overlap_non_box_layout_is_conservative),
    cmocka_unit_test(test_view_validation),
    cmocka_unit_test(test_unchecked_box_is_the_checked_box),
};

PTO_TEST_MAIN(tests)
