/*
 * overlap.c - box math for dependency discovery (see overlap.h).
 *
 * Invariant: rt_box_overlap never answers NO_OVERLAP for views that share a
 * byte, and answers COVERED only when every element of `old` lies inside
 * `now`; both follow from comparing coordinates only when the two boxes sit
 * in one identical row-major-like layout.
 */
#include "runtime/overlap.h"

int rt_box_from_view(const pto_view *v, rt_box *b, const char **reason)
{
    if (!v->addr) { *reason = "view addr is NULL"; return -1; }
    if (v->ndims < 1 || v->ndims > PTO_MAX_DIMS) { *reason = "view ndims must be in [1, 5]"; return -1; }
    if (v->elem_size == 0) { *reason = "view elem_size is 0"; return -1; }
    if (v->offset < 0) { *reason = "view offset is negative"; return -1; }

    b->addr = v->addr;
    b->elem_size = v->elem_size;
    b->ndims = v->ndims;
    uint64_t span = 0;
    int empty = 0;
    for (uint32_t d = 0; d < v->ndims; d++) {
        if (v->strides[d] < 0) { *reason = "view strides must be non-negative"; return -1; }
        b->strides[d] = v->strides[d];
        b->shape[d] = v->shape[d];
        if (v->shape[d] == 0) empty = 1;
        else span += (v->shape[d] - 1) * (uint64_t)v->strides[d];
    }
    b->lo = (uint64_t)v->offset * v->elem_size;
    b->hi = empty ? b->lo : ((uint64_t)v->offset + span + 1) * v->elem_size;

    /* Box math needs: innermost stride 1, each stride a multiple of the next
     * inner one, and every inner extent inside the row the outer stride
     * implies; then the offset decomposes into unique coordinates. */
    b->boxable = b->strides[v->ndims - 1] == 1;
    int64_t rest = v->offset;
    for (uint32_t d = 0; d < v->ndims && b->boxable; d++) {
        int64_t s = b->strides[d];
        if (s == 0 || (d + 1 < v->ndims && s % b->strides[d + 1] != 0)) { b->boxable = 0; break; }
        if (d == 0) {
            b->start[0] = rest / s;
        } else {
            int64_t row = b->strides[d - 1] / s; /* extent of dim d in the layout */
            b->start[d] = rest / s;
            if (b->start[d] + (int64_t)b->shape[d] > row) b->boxable = 0;
        }
        rest %= s;
    }
    return 0;
}

rt_overlap rt_box_overlap(const rt_box *old, const rt_box *now)
{
    if (now->hi <= old->lo || old->hi <= now->lo) return RT_NO_OVERLAP;

    int same_layout = old->boxable && now->boxable && old->elem_size == now->elem_size &&
                      old->ndims == now->ndims;
    for (uint32_t d = 0; same_layout && d < old->ndims; d++)
        same_layout = old->strides[d] == now->strides[d];
    if (!same_layout) return RT_OVERLAP;

    int covered = 1;
    for (uint32_t d = 0; d < old->ndims; d++) {
        int64_t a0 = old->start[d], a1 = a0 + (int64_t)old->shape[d];
        int64_t b0 = now->start[d], b1 = b0 + (int64_t)now->shape[d];
        if (a1 <= b0 || b1 <= a0) return RT_NO_OVERLAP;
        if (b0 > a0 || b1 < a1) covered = 0;
    }
    return covered ? RT_COVERED : RT_OVERLAP;
}
