/*
 * array.h - growing a heap array by doubling.
 *
 * The caller keeps the items pointer and the capacity; on failure nothing
 * changes, so the caller can report the error with its data intact.
 */
#ifndef BASE_ARRAY_H
#define BASE_ARRAY_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* The array is full: doubles *cap (from `first` when 0) and returns the
 * reallocated items, or NULL with items and *cap unchanged. */
static inline void *base_array_grow(void *items, uint64_t *cap, size_t elem, uint64_t first)
{
    uint64_t n = *cap ? 2 * *cap : first;
    if (n > SIZE_MAX / elem) return NULL;
    void *p = realloc(items, (size_t)n * elem);
    if (p) *cap = n;
    return p;
}

#endif
