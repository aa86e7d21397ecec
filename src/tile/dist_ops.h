/*
 * dist_ops.h - the kernel side of distributed mode (DISTRIBUTED-SPEC
 * §1.6-§1.8): signals, remote loads and stores, put and get, the in-kernel
 * barrier, on windows whose peers' copies are mapped here (shm, the
 * one-process world) or reached through a remote-access table (am).
 *
 * A window is the domain's copies, domain rank i's at bases[i]; a tensor
 * in it is given as this rank's view (a tile_tensor into bases[rank]), and
 * the same bytes of peer p are at bases[p] + (the local byte offset).  A
 * peer whose bases[p] is NULL is not mapped: its accesses go through
 * w->remote, which names a box by its byte offset in the copy and carries
 * the elements packed row-major.
 * Depends on pto_base only: the caller supplies the wait's bound and its
 * way to learn that the run failed.
 */
#ifndef TILE_DIST_OPS_H
#define TILE_DIST_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "tile/tile.h"

struct tile_dist_remote;

typedef struct tile_dist_win {
    char *const *bases; /* [size]; NULL: that peer's copy is reached through remote */
    int rank, size;     /* this rank's domain rank, the domain's size */
    const struct tile_dist_remote *remote;
    void *session, *dom; /* remote's arguments */
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
    /* on = 1 once the wait reaches its sleep phase (D10: the caller's executor slot goes to a
     * spare thread), on = 0 when such a wait returns; NULL: none */
    void (*block)(void *arg, int on);
    void *arg;
    int32_t observed;      /* out: the cell's last value */
    uint64_t unchanged_ms; /* out: since it last changed */
} tile_dist_wait;

/* Waits (spin 20 us, then sched_yield to 3 ms, then sleeps doubling from 50 us to 1 ms)
 * until done(arg, &observed) is non-zero; a change of observed restarts the
 * bound.  Returns 0 when done, 1 on the timeout, 2 when stop() asked. */
int tile_dist_wait_until(int (*done)(void *arg, int32_t *observed), void *arg, tile_dist_wait *w);

/* tile_dist_wait_until on acquire loads of *cell == expected (ge: >=, signed). */
int tile_dist_wait_cell(const int32_t *cell, int ge, int32_t expected, tile_dist_wait *w);

/* ---- windows whose peers are not all mapped ---- */

/* A box of a peer's copy: its first element at byte offset of the copy,
 * shape and strides in elements (non-negative). */
typedef struct tile_dist_ref {
    uint64_t offset;
    int32_t dtype, rank;
    int64_t shape[TILE_MAX_RANK], strides[TILE_MAX_RANK];
} tile_dist_ref;

/* The bytes of r's box packed row-major; 0 when r is not a valid reference (no dtype, rank
 * or a negative extent: tile_dist_apply refuses it), SIZE_MAX when they overflow. */
size_t tile_dist_ref_bytes(const tile_dist_ref *r);

/* How a transport reaches unmapped copies.  peer: a domain rank; data: the
 * box's elements row-major.  Each returns 0, 1 (wt's timeout), 2 (wt's
 * stop) or -1 with msg filled. */
typedef struct tile_dist_remote {
    /* data (copied before it returns) into dst; atomic: added.  Acknowledged later (quiet). */
    int (*put)(void *session, void *dom, int peer, const tile_dist_ref *dst, const void *data, int atomic, tile_dist_wait *wt,
               char *msg, size_t cap);
    /* src into data; returns once it arrived */
    int (*get)(void *session, void *dom, int peer, const tile_dist_ref *src, void *data, tile_dist_wait *wt, char *msg, size_t cap);
    /* the INT32 cell at offset += v (set: = v), behind every earlier put of this thread (O1) */
    int (*notify)(void *session, void *dom, int peer, uint64_t offset, int32_t v, int set, tile_dist_wait *wt, char *msg,
                  size_t cap);
    /* every put and notify of this thread has been applied (O4: a kernel's end) */
    int (*quiet)(void *session, tile_dist_wait *wt, char *msg, size_t cap);
    /* handles what arrived, unless another thread is doing so; returns how many
     * messages this rank has handled so far (a wait's bound restarts when it moves) */
    uint64_t (*progress)(void *session);
} tile_dist_remote;

/* The target's side of a remote access on its copy (bytes long): put copies
 * data (r's box packed row-major) into r's box (atomic: added), get the box
 * into data.  A box reaching outside the copy or a bad dtype: -1 with msg. */
int tile_dist_apply(char *copy, size_t bytes, const tile_dist_ref *r, void *data, int put, int atomic, char *msg, size_t cap);

/* Peer (checked as tile_dist_peer does)'s copy of the cell at cell (in t, this rank's copy) += v (set: = v). */
int tile_dist_signal(const tile_dist_win *w, const tile_tensor *t, int64_t peer, int32_t *cell, int32_t v, int set,
                     tile_dist_wait *wt, const char *op, char *msg, size_t cap);

/* put: the box of loc at loff into peer's copy of t at off (atomic: added); get: the
 * reverse.  Both boxes checked by the caller. */
int tile_dist_xfer(const tile_dist_win *w, const tile_tensor *t, int64_t peer, const int64_t *off, const tile_tensor *loc,
                   const int64_t *loff, const int64_t *box, int put, int atomic, tile_dist_wait *wt, const char *op, char *msg,
                   size_t cap);

/* remote_load: peer's box of t at off into d (ext: tile_load's valid extents, -1 = the box's). */
int tile_dist_load(const tile_dist_win *w, const tile_tensor *t, int64_t peer, const int64_t *off, const int64_t *box,
                   const int64_t *ext, tile *d, tile_dist_wait *wt, const char *op, char *msg, size_t cap);

/* remote_store: src's valid region into peer's copy of t at off (atomic: added). */
int tile_dist_store_to(const tile_dist_win *w, const tile_tensor *t, int64_t peer, const int64_t *off, const tile *src, int atomic,
                       tile_dist_wait *wt, const char *op, char *msg, size_t cap);

/* The in-kernel barrier on INT32 signal ([n] or [n, k], n the domain size:
 * else -1 with "pld.tensor.barrier signal has <r> rows but the domain has
 * <n> ranks"): +1 into every peer's cell [me], waits >= 1 on each own cell
 * [src], then -1 on it.  Returns tile_dist_wait_cell's codes (*src: the
 * row it gave up on; -1 while signalling) or -1. */
int tile_dist_barrier(const tile_dist_win *w, const tile_tensor *signal, tile_dist_wait *wt, int64_t *src, char *msg, size_t cap);

#endif
