/*
 * overlap.c - box math for dependency discovery (see overlap.h).
 *
 * Invariant: rt_overlap_classify never answers NO_OVERLAP for views that share a
 * byte, and answers COVERED only when every element of `old` lies inside
 * `now`; both follow from comparing coordinates only when the two boxes sit
 * in one identical layout: innermost stride 1, each stride a multiple of the
 * next inner one, and every inner extent inside the row the outer stride
 * implies (then an offset decomposes into unique coordinates).
 */
#include "runtime/overlap.h"

int rt_overlap_box_of(const pto_view *v, rt_box *b, const char **reason)
{
    if (!v->addr) { *reason = "view addr is NULL"; return -1; }
    if (v->ndims < 1 || v->ndims > PTO_MAX_DIMS) { *reason = "view ndims must be in [1, 5]"; return -1; }
    if (v->elem_size == 0) { *reason = "view elem_size is 0"; return -1; }
    if (v->offset < 0) { *reason = "view offset is negative"; return -1; }
    uint64_t span = 0, end, lo, hi;
    int empty = 0, wraps = 0;
    for (uint32_t d = 0; d < v->ndims; d++) {
        if (v->strides[d] < 0) { *reason = "view strides must be non-negative"; return -1; }
        uint64_t step;
        if (v->shape[d] == 0) empty = 1;
        else wraps |= __builtin_mul_overflow(v->shape[d] - 1, (uint64_t)v->strides[d], &step) ||
                      __builtin_add_overflow(span, step, &span);
    }
    /* Byte range and coordinates are computed in 64 bits: the view's last
     * byte must be addressable, below INT64_MAX from addr and below 2^64. */
    uint64_t last;
    wraps |= __builtin_add_overflow((uint64_t)v->offset, span + 1, &end) ||
             __builtin_mul_overflow(end, (uint64_t)v->elem_size, &hi) ||
             __builtin_mul_overflow((uint64_t)v->offset, (uint64_t)v->elem_size, &lo) || hi > INT64_MAX ||
             __builtin_add_overflow((uint64_t)(uintptr_t)v->addr, hi, &last);
    if (wraps) { *reason = "view extends past the 64-bit address range"; return -1; }
    b->addr = v->addr;
    b->view = v;
    b->lo = lo;
    b->hi = empty ? lo : hi;
    return 0;
}

int rt_overlap_coords(const pto_view *v, int64_t *start)
{
    uint32_t n = v->ndims;
    if (v->strides[n - 1] != 1) return 0;
    if (n == 1) { /* contiguous 1-d: the offset is the coordinate */
        start[0] = v->offset;
        return 1;
    }
    int64_t rest = v->offset;
    for (uint32_t d = 0; d < n; d++) {
        int64_t s = v->strides[d];
        if (s == 0 || (d + 1 < n && (v->strides[d + 1] == 0 || s % v->strides[d + 1] != 0))) return 0;
        start[d] = rest / s;
        if (d > 0 && start[d] + (int64_t)v->shape[d] > v->strides[d - 1] / s) return 0;
        rest %= s;
    }
    return 1;
}

rt_overlap rt_overlap_classify(const rt_box *old, const rt_box *now)
{
    if (now->hi <= old->lo || old->hi <= now->lo) return RT_NO_OVERLAP;
    const pto_view *a = old->view, *b = now->view;
    if (a->elem_size != b->elem_size || a->ndims != b->ndims) return RT_OVERLAP;
    /* Contiguous 1-d views: the byte ranges are the boxes.  Identical views
     * (below) are the same elements whatever the layout: COVERED. */
    if (a->ndims == 1 && a->strides[0] == 1 && b->strides[0] == 1)
        return now->lo <= old->lo && old->hi <= now->hi ? RT_COVERED : RT_OVERLAP;
    for (uint32_t d = 0; d < a->ndims; d++)
        if (a->strides[d] != b->strides[d]) return RT_OVERLAP;
    /* The same view again (a tile read, then written). */
    if (a->offset == b->offset) {
        int same = 1;
        for (uint32_t d = 0; d < a->ndims; d++) same &= a->shape[d] == b->shape[d];
        if (same) return RT_COVERED;
    }
    int64_t sa[PTO_MAX_DIMS], sb[PTO_MAX_DIMS];
    if (!rt_overlap_coords(a, sa) || !rt_overlap_coords(b, sb)) return RT_OVERLAP;

    int covered = 1;
    for (uint32_t d = 0; d < a->ndims; d++) {
        int64_t a0 = sa[d], a1 = a0 + (int64_t)a->shape[d];
        int64_t b0 = sb[d], b1 = b0 + (int64_t)b->shape[d];
        if (a1 <= b0 || b1 <= a0) return RT_NO_OVERLAP;
        if (b0 > a0 || b1 < a1) covered = 0;
    }
    return covered ? RT_COVERED : RT_OVERLAP;
}
