/*
 * tile_int.h - internals shared by the tile kernels: walking a region of a
 * tile as contiguous runs; the integer classes; TILE_CLONES.
 *
 * A region (a prefix box of the shape) is a set of runs: trailing
 * dimensions where the region spans the whole shape merge into one run,
 * so a full tile is a single run of count(shape) elements.
 */
#ifndef TILE_INT_H
#define TILE_INT_H

#include <stdio.h>

#include "tile/tile.h"

typedef struct tile_iter {
    int outer;                   /* dimensions enumerated (those before the run's) */
    int64_t idx[TILE_MAX_RANK];  /* current index in each outer dimension */
    int64_t ext[TILE_MAX_RANK];  /* region extent of each outer dimension */
    int64_t pitch[TILE_MAX_RANK];/* elements between consecutive indices */
    int64_t start, len;          /* the current run: element offset and length */
    int64_t left;                /* runs left, the current one included */
} tile_iter;

void tile_iter_begin(tile_iter *it, const int64_t *shape, const int64_t *region, int rank);
void tile_iter_next(tile_iter *it);

#define TILE_FOR_RUNS(it, shape, region, rank) \
    for (tile_iter_begin(&(it), (shape), (region), (rank)); (it).left > 0; tile_iter_next(&(it)))

/* The region of both a and b (same rank). */
void tile_region_meet(int64_t *out, const int64_t *a, const int64_t *b, int rank);

/* The integer dtype classes the arithmetic kernels are built for:
 * X(element type, the unsigned type its wrapping arithmetic runs in (wide
 * enough that no promotion to int can overflow), suffix, tile_dtype).  The
 * element type's signedness gives each class its semantics: comparisons,
 * division, >> and widening are those of T.  A kernel expression written
 * for both kinds guards its signed-only cases with TILE_SIGNED(T) (a
 * constant); its sign tests (x < 0) are constant false for the unsigned
 * classes, so the files instantiating them turn off -Wtype-limits. */
#define TILE_INT_CLASSES(X)                          \
    X(int32_t, uint32_t, i32, TILE_INT32)            \
    X(int8_t, uint8_t, i8, TILE_INT8)                \
    X(int64_t, uint64_t, i64, TILE_INT64)            \
    X(int16_t, uint32_t, i16, TILE_INT16)            \
    X(uint8_t, uint8_t, u8, TILE_UINT8)              \
    X(uint16_t, uint32_t, u16, TILE_UINT16)          \
    X(uint32_t, uint32_t, u32, TILE_UINT32)

/* Is integer type T signed? (A comparison of two constants: no warning.) */
#define TILE_SIGNED(T) ((T)-1 < (T)1)

/* v wrapped to integer dtype dt's width (read back as its element type: an
 * unsigned one zero-extended); a float or BOOL dt gives v. */
int64_t tile_int_wrap(tile_dtype dt, int64_t v);
/* The range of integer dtype d (BOOL: 0..1; the unsigned ones from 0). */
void tile_int_range(tile_dtype d, int64_t *lo, int64_t *hi);

/* Fails (-1, "pl.<op> does not accept BOOL tiles; cast first") when a is a
 * BOOL tile, for the kernels that compute on elements; else 0. */
int tile_no_bool(const tile *a, const char *op, char *msg, size_t cap);

/* Writes a message and returns -1. */
int tile_fail(char *msg, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Row kernels built three times, for AVX-512F, AVX2 and the baseline, the
 * loader picking one per machine (ifunc): the same IEEE operations per
 * element every way (the library builds with -ffp-contract=off: no fused
 * multiply-add), more elements per instruction with the wider vectors.  Not in sanitizer builds: an ifunc resolver runs
 * before the sanitizer's runtime is up (TSan crashes). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(PTO_SANITIZER)
#define TILE_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define TILE_CLONES
#endif

#endif
