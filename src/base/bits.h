/*
 * bits.h - powers of two and alignment, for sizes that may be huge.
 *
 * Every helper is total: a value that cannot be rounded up within 64 bits
 * gives UINT64_MAX, which callers treat as "too large" rather than wrapping
 * to a small number.
 */
#ifndef BASE_BITS_H
#define BASE_BITS_H

#include <stdint.h>

static inline int base_is_pow2(uint64_t v) { return v && !(v & (v - 1)); }

/* Smallest power of two >= v (1 for 0 and 1); UINT64_MAX past 2^63. */
static inline uint64_t base_next_pow2(uint64_t v)
{
    if (v > (1ull << 63)) return UINT64_MAX;
    return v <= 1 ? 1 : (uint64_t)1 << (64 - __builtin_clzll(v - 1));
}

/* v rounded up to a multiple of align (a power of two); UINT64_MAX when
 * that does not fit in 64 bits. */
static inline uint64_t base_align_up(uint64_t v, uint64_t align)
{
    if (v > UINT64_MAX - (align - 1)) return UINT64_MAX;
    return (v + align - 1) & ~(align - 1);
}

#endif
