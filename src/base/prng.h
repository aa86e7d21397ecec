/*
 * prng.h - a seeded pseudo-random generator (splitmix64), for tests and
 * generators that must replay a run from its seed.  Not for security.
 */
#ifndef BASE_PRNG_H
#define BASE_PRNG_H

#include <stdint.h>

/* The next 64 random bits; advances *state. */
static inline uint64_t base_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

#endif
