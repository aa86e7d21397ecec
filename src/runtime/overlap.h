/*
 * overlap.h - footprints of tensor views and how two of them overlap.
 *
 * A view's footprint is the N-d box its shape spans from its offset.  Two
 * views of the same allocation are compared in three steps: byte ranges
 * (disjoint -> no overlap), then, when both boxes live in the same strided
 * layout, per-dimension intervals; otherwise the answer is a conservative
 * OVERLAP.  A false overlap costs parallelism, never correctness.
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

/* A view's footprint, precomputed once per argument. */
typedef struct rt_box {
    void *addr;
    uint64_t lo, hi; /* byte range [lo, hi) from addr */
    uint32_t elem_size;
    uint32_t ndims;
    uint32_t boxable; /* layout admits per-dimension comparison */
    int64_t strides[PTO_MAX_DIMS];
    int64_t start[PTO_MAX_DIMS]; /* per-dimension coordinate of offset */
    uint64_t shape[PTO_MAX_DIMS];
} rt_box;

/* Checks a view (non-NULL addr, ndims in [1, PTO_MAX_DIMS], elem_size > 0,
 * non-negative strides and offset) and computes its box.  Returns 0, or -1
 * with a short reason. */
int rt_box_from_view(const pto_view *v, rt_box *box, const char **reason);

/* How the new view `now` relates to an existing footprint `old`. */
rt_overlap rt_box_overlap(const rt_box *old, const rt_box *now);

#endif
