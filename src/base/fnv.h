/*
 * fnv.h - FNV-1a, the 64-bit hash every layer uses where a digest need only be
 * the same for the same bytes (hash maps, program identity, the entry check).
 * Never used where an adversary chooses the input.
 */
#ifndef BASE_FNV_H
#define BASE_FNV_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define BASE_FNV_BASIS 14695981039346656037ull

/* h extended by the n bytes at p (start from BASE_FNV_BASIS). */
static inline uint64_t base_fnv(uint64_t h, const void *p, size_t n)
{
    for (const unsigned char *c = p; n--; c++) h = (h ^ *c) * 1099511628211ull;
    return h;
}

/* h extended by the bytes of the string s. */
static inline uint64_t base_fnv_str(uint64_t h, const char *s) { return base_fnv(h, s, strlen(s)); }

#endif
