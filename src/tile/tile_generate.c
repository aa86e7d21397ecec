/*
 * tile_generate.c - the generators (pl.arange, pl.tri, pl.random) and
 * pl.reinterpret_view.
 *
 * A generator writes its whole tile: the values over the valid region it is
 * given, 0 outside it, and sets that region.  Integers are exact, wrapped
 * to the dtype's width; float tiles hold 0 and 1 exactly.
 *
 * pl.random is Philox4x32 (Salmon et al., "Parallel random numbers: as
 * easy as 1, 2, 3", SC 2011) with 7 or 10 rounds: the key (key0, key1),
 * the 128-bit counter (counter0 the low word .. counter3 the high word).
 * The element at flat row-major index i of the tile's shape is word i % 4
 * of the block for counter + i / 4 (a 128-bit add), as a UINT32 or an
 * INT32 of the same bits.  Elements outside the valid region are 0 and consume no
 * randomness of their own, so a valid region never changes the values
 * inside it.
 */
#include <string.h>

#include "tile/tile_int.h"

int tile_arange(tile *dst, int64_t start, int descending, char *msg, size_t cap)
{
    tile_dtype dt = (tile_dtype)dst->dtype;
    int64_t n = tile_count(dst);
    if (dt != TILE_INT32 && dt != TILE_INT16 && dt != TILE_UINT32 && dt != TILE_UINT16)
        return tile_fail(msg, cap, "pl.arange: %s tiles are not supported", tile_dtype_name(dt));
    uint64_t s = (uint64_t)start, step = descending ? UINT64_MAX : 1; /* modular: start - k is start + k * (2^64 - 1) */
    if (tile_dtype_size(dt) == 4) { /* the low bits, signed or not */
        uint32_t *d = dst->data;
        for (int64_t k = 0; k < n; k++) d[k] = (uint32_t)(s + (uint64_t)k * step);
    } else {
        uint16_t *d = dst->data;
        for (int64_t k = 0; k < n; k++) d[k] = (uint16_t)(s + (uint64_t)k * step);
    }
    memcpy(dst->valid, dst->shape, sizeof dst->valid);
    return 0;
}

/* Sets row r of dst (elements [from, to) of it) to v. */
static void gen_fill_row(tile *dst, int64_t r, int64_t from, int64_t to, tile_scalar v)
{
    if (to <= from) return;
    size_t es = tile_dtype_size((tile_dtype)dst->dtype);
    tile_fill((char *)dst->data + (size_t)(r * dst->shape[1] + from) * es, (tile_dtype)dst->dtype, v, to - from);
}

static int64_t gen_clamp(int64_t x, int64_t lo, int64_t hi) { return x < lo ? lo : x > hi ? hi : x; }

int tile_tri(tile *dst, int64_t diagonal, int upper, const int64_t *valid, char *msg, size_t cap)
{
    if (dst->rank != 2) return tile_fail(msg, cap, "pl.tri requires a rank-2 tile");
    int fl = tile_dtype_is_float((tile_dtype)dst->dtype);
    tile_scalar one = fl ? (tile_scalar){.f = 1.0} : (tile_scalar){.i = 1}, zero = fl ? (tile_scalar){.f = 0.0} : (tile_scalar){.i = 0};
    int64_t R = dst->shape[0], C = dst->shape[1], VR = valid[0], VC = valid[1];
    diagonal = gen_clamp(diagonal, -C - 1, C + 1); /* a boundary past either edge is all or nothing; no overflow below */
    for (int64_t i = 0; i < R; i++) {
        if (i >= VR) {
            gen_fill_row(dst, i, 0, C, zero);
            continue;
        }
        /* lower: ones at j <= i + diagonal; upper: ones at j >= i + diagonal */
        int64_t b = gen_clamp(upper ? i + diagonal : i + diagonal + 1, 0, VC);
        gen_fill_row(dst, i, 0, b, upper ? zero : one);
        gen_fill_row(dst, i, b, VC, upper ? one : zero);
        gen_fill_row(dst, i, VC, C, zero);
    }
    dst->valid[0] = VR, dst->valid[1] = VC;
    return 0;
}

#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u
#define PHILOX_W1 0xBB67AE85u

void tile_philox4x32(const uint32_t key[2], const uint32_t ctr[4], int rounds, uint32_t out[4])
{
    uint32_t c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3], k0 = key[0], k1 = key[1];
    for (int r = 0; r < rounds; r++) {
        uint64_t p0 = (uint64_t)PHILOX_M0 * c0, p1 = (uint64_t)PHILOX_M1 * c2;
        uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0, n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
        c0 = n0, c1 = (uint32_t)p1, c2 = n2, c3 = (uint32_t)p0;
        k0 += PHILOX_W0, k1 += PHILOX_W1;
    }
    out[0] = c0, out[1] = c1, out[2] = c2, out[3] = c3;
}

int tile_random(tile *dst, const uint32_t key[2], const uint32_t ctr[4], int rounds, const int64_t *valid, char *msg, size_t cap)
{
    if (dst->dtype != TILE_INT32 && dst->dtype != TILE_UINT32)
        return tile_fail(msg, cap, "pl.random: %s tiles are not supported", tile_dtype_name((tile_dtype)dst->dtype));
    if (rounds != 7 && rounds != 10) return tile_fail(msg, cap, "pl.random: %d rounds; 7 or 10", rounds);
    uint32_t *d = dst->data;
    int64_t n = tile_count(dst);
    memset(d, 0, (size_t)n * sizeof *d);
    memcpy(dst->valid, valid, dst->rank * sizeof valid[0]);
    tile_iter it;
    uint64_t have = UINT64_MAX; /* the block in out[] */
    uint32_t out[4];
    TILE_FOR_RUNS(it, dst->shape, dst->valid, dst->rank) {
        for (uint64_t i = (uint64_t)it.start; i < (uint64_t)(it.start + it.len); i++) {
            uint64_t blk = i / 4;
            if (blk != have) {
                uint32_t c[4];
                uint64_t lo = (uint64_t)ctr[0] | (uint64_t)ctr[1] << 32, sum = lo + blk, carry = sum < lo;
                uint64_t hi = ((uint64_t)ctr[2] | (uint64_t)ctr[3] << 32) + carry;
                c[0] = (uint32_t)sum, c[1] = (uint32_t)(sum >> 32), c[2] = (uint32_t)hi, c[3] = (uint32_t)(hi >> 32);
                tile_philox4x32(key, c, rounds, out);
                have = blk;
            }
            d[i] = out[i % 4];
        }
    }
    return 0;
}

int tile_reinterpret(tile *dst, const tile *a, char *msg, size_t cap)
{
    if (tile_bytes(dst) != tile_bytes(a) || dst->dtype == TILE_BOOL || a->dtype == TILE_BOOL || dst->data == a->data)
        return tile_fail(msg, cap, "pl.reinterpret_view: the result tile does not hold the source's bytes");
    memcpy(dst->data, a->data, (size_t)tile_bytes(a));
    tile outside = *a; /* the source's padding reads as zero bytes */
    outside.data = dst->data;
    tile_clear_outside(&outside);
    memcpy(dst->valid, dst->shape, sizeof dst->valid);
    return 0;
}
