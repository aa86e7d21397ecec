/*
 * dist_ops.h - the kernel side of distributed mode (DISTRIBUTED-SPEC
 * §1.6-§1.8) on directly mapped windows (shm, and the one-process world):
 * signals, remote loads and stores, put and get, the in-kernel barrier.
 *
 * A window is the domain's copies, domain rank i's at bases[i]; a tensor
 * in it is given as this rank's view (a tile_tensor into bases[rank]), and
 * the same bytes of peer p are at bases[p] + (the local byte offset).
 * Depends on pto_base only: the caller supplies the wait's bound and its
 * way to learn that the run failed.
 */
#ifndef TILE_DIST_OPS_H
#define TILE_DIST_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "tile/tile.h"

typedef struct tile_dist_win {
    char *const *bases; /* [size] */
    int rank, size;     /* this rank's domain rank, the domain's size */
} tile_dist_win;

/* t (a view of this rank's copy) as peer's copy into *out; a peer outside
 * [0, size): "<op> peer <p> is outside the comm domain [0, <n>)". */
int tile_dist_peer(const tile_dist_win *w, const tile_tensor *t, int64_t peer, const char *op, tile_tensor *out, char *msg,
                   size_t cap);

/* The box [off, off + shape) inside t's valid region, else
 * "<op> box [<o>:<e>, ...] exceeds '<name>' of shape [<s>, ...]". */
int tile_dist_box(const tile_tensor *t, const int64_t *off, const int64_t *shape, const char *op, const char *name, char *msg,
                  size_t cap);

/* The box shape of src at soff into dst at doff (one dtype, one rank, both
 * boxes checked by the caller); atomic: added element-wise (tile_dist_add). */
int tile_dist_copy(const tile_tensor *dst, const int64_t *doff, const tile_tensor *src, const int64_t *soff, const int64_t *shape,
                   int atomic, char *msg, size_t cap);

/* remote_store: src's valid region into dst at off (checked by the caller); atomic: added. */
int tile_dist_store(const tile_tensor *dst, const int64_t *off, const tile *src, int atomic, char *msg, size_t cap);

/* *p += *v atomically against every other tile_dist_add and notify of the
 * element: FP32 and INT32 by a 32-bit CAS (INT32: fetch_add), FP16, BF16
 * (added in FP32, rounded to nearest even) and INT8 (wrapping) by a CAS on
 * their aligned 32-bit word.  Another dtype: -1. */
int tile_dist_add(void *p, tile_dtype dt, const void *v);

/* notify: a release fence, then *cell += v (set: *cell = v), atomically. */
void tile_dist_notify(int32_t *cell, int32_t v, int set);

/* How a wait is bounded: it gives up once the cell has not changed (and
 * progress() has not moved) for timeout_ms (-1: never), or as soon as
 * stop() returns non-zero; either may be NULL. */
typedef struct tile_dist_wait {
    int64_t timeout_ms;
    int (*stop)(void *arg);
    uint64_t (*progress)(void *arg);
    void *arg;
    int32_t observed;      /* out: the cell's last value */
    uint64_t unchanged_ms; /* out: since it last changed */
} tile_dist_wait;

/* Waits (acquire loads: spin, then sched_yield, then sleeps doubling from
 * 50 us to 1 ms) until *cell == expected (ge: >=, signed).  Returns 0 when
 * it holds, 1 on the timeout, 2 when stop() asked. */
int tile_dist_wait_cell(const int32_t *cell, int ge, int32_t expected, tile_dist_wait *w);

/* The in-kernel barrier on INT32 signal ([n] or [n, k], n the domain size:
 * else -1 with "pld.tensor.barrier signal has <r> rows but the domain has
 * <n> ranks"): +1 into every peer's cell [me], waits >= 1 on each own cell
 * [src], then -1 on it.  Returns tile_dist_wait_cell's codes (*src: the
 * row it gave up on) or -1. */
int tile_dist_barrier(const tile_dist_win *w, const tile_tensor *signal, tile_dist_wait *wt, int64_t *src, char *msg, size_t cap);

#endif
