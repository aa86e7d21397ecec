/*
 * fuzz_input.h - reads a fuzz input as a stream of numbers, for the
 * harnesses that decode structured calls (configs, call sequences, compile
 * options) from raw bytes.
 *
 * Invariants: a read never goes past the input; once it is used up every
 * read returns 0, so any byte string decodes to some call sequence and a
 * shorter input decodes to a prefix-like, smaller one.
 */
#ifndef PTO_FUZZ_INPUT_H
#define PTO_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>

typedef struct fuzz_input {
    const uint8_t *p;
    size_t n;
} fuzz_input;

static inline int fuzz_empty(const fuzz_input *in) { return in->n == 0; }

static inline uint8_t fuzz_u8(fuzz_input *in)
{
    if (!in->n) return 0;
    in->n--;
    return *in->p++;
}

/* n bytes, little-endian (n <= 8). */
static inline uint64_t fuzz_bytes_le(fuzz_input *in, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++) v |= (uint64_t)fuzz_u8(in) << (8 * i);
    return v;
}

static inline uint16_t fuzz_u16(fuzz_input *in) { return (uint16_t)fuzz_bytes_le(in, 2); }
static inline uint32_t fuzz_u32(fuzz_input *in) { return (uint32_t)fuzz_bytes_le(in, 4); }
static inline uint64_t fuzz_u64(fuzz_input *in) { return fuzz_bytes_le(in, 8); }

/* A number below n (n > 0), from one byte (n <= 256) or two. */
static inline uint32_t fuzz_below(fuzz_input *in, uint32_t n)
{
    return n <= 256 ? fuzz_u8(in) % n : fuzz_u16(in) % n;
}

/* One 64-bit value, biased to the edges: a selector byte picks one of the
 * interesting values (0, 1, -1, powers of two and their neighbours, the
 * signed and unsigned extremes) or eight raw bytes. */
static inline uint64_t fuzz_edge_u64(fuzz_input *in)
{
    uint8_t sel = fuzz_u8(in);
    uint8_t arg = fuzz_u8(in);
    switch (sel % 8) {
    case 0: return 0;
    case 1: return (uint64_t)arg;                          /* small */
    case 2: return 1ull << (arg % 64);                     /* a power of two */
    case 3: return (1ull << (arg % 64)) - 1;               /* just below one */
    case 4: return (1ull << (arg % 64)) + 1;               /* just above one */
    case 5: {                                              /* the extremes, and around them */
        static const uint64_t extremes[] = {UINT64_MAX, UINT64_MAX - 1, (uint64_t)INT64_MAX,
                                            (uint64_t)INT64_MIN, (uint64_t)INT32_MAX,
                                            (uint64_t)INT32_MAX + 1, (uint64_t)(int64_t)INT32_MIN,
                                            UINT32_MAX, (uint64_t)-2, (uint64_t)-1024};
        return extremes[arg % (sizeof extremes / sizeof extremes[0])];
    }
    case 6: return (uint64_t)-(int64_t)(arg + 1);          /* small negative */
    default: return fuzz_u64(in);
    }
}

#endif
