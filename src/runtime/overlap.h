/*
 * overlap.h - footprints of tensor views and how two of them overlap.
 *
 * A view's footprint is the N-d box its shape spans from its offset.  Two
 * views of the same allocation are compared in three steps: byte ranges
 * (disjoint -> no overlap), then, when both boxes live in the same strided
 * layout, per-dimension intervals; otherwise the answer is a conservative
 * OVERLAP.  A false overlap costs parallelism, never correctness.
 *
 * The byte range is computed once per argument (rt_box); the per-dimension
 * coordinates only when two byte ranges meet, from the views themselves.
 */
#ifndef RT_OVERLAP_H
#define RT_OVERLAP_H

#include <stdint.h>

#include "pto/runtime.h"

typedef enum rt_overlap {
    RT_NO_OVERLAP = 0,
    RT_OVERLAP = 1,
    RT_COVERED = 2 /* the new view contains the other in every dimension */
} rt_overlap;

/* A view's footprint: its allocation, byte range [lo, hi) from addr, and
 * the view itself (which must outlive the box). */
typedef struct rt_box {
    void *addr;
    uint64_t lo, hi;
    const pto_view *view;
} rt_box;

/* Checks a view (non-NULL addr, ndims in [1, PTO_MAX_DIMS], elem_size > 0,
 * non-negative strides and offset) and computes its box.  Returns 0, or -1
 * with a short reason. */
int rt_overlap_box_of(const pto_view *v, rt_box *box, const char **reason);

/* The box of a view that passes rt_overlap_box_of's checks (the trusted
 * submit's views, trusted.h): the box rt_overlap_box_of computes, without
 * the checks (test_overlap compares the two on random views). */
static inline void rt_overlap_box(const pto_view *v, rt_box *b)
{
    uint64_t span = 0;
    int empty = 0;
    for (uint32_t d = 0; d < v->ndims; d++) {
        if (v->shape[d] == 0) empty = 1;
        else span += (v->shape[d] - 1) * (uint64_t)v->strides[d];
    }
    b->addr = v->addr;
    b->view = v;
    b->lo = (uint64_t)v->offset * v->elem_size;
    b->hi = empty ? b->lo : ((uint64_t)v->offset + span + 1) * v->elem_size;
}

/* Per-dimension start coordinates of v's offset in the layout its strides
 * imply; returns 0 if that layout does not admit box math (then only byte
 * ranges tell two views apart). */
int rt_overlap_coords(const pto_view *v, int64_t *start);

/* How the new view `now` relates to an existing footprint `old` of the same
 * allocation. */
rt_overlap rt_overlap_classify(const rt_box *old, const rt_box *now);

#endif
