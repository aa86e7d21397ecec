/*
 * reserve.h - address-space reservation for ring arrays.
 *
 * Every ring array is reserved with MAP_NORESERVE and never cleared, so
 * resident memory follows the pages actually touched, not the configured
 * size.  A fault-injection countdown (test-only, per thread) makes the n-th
 * reservation fail, to exercise RESERVE_FAILED.
 */
#ifndef RT_RESERVE_H
#define RT_RESERVE_H

#include <stddef.h>

/* Reserves bytes (rounded up to pages); NULL with *err_no set on failure. */
void *rt_reserve(size_t bytes, int *err_no);
void rt_unreserve(void *p, size_t bytes);

/* Test hook: the countdown-th following rt_reserve on this thread fails with
 * ENOMEM (0 = off). */
void rt_reserve_inject_failure(int countdown);

#endif
