/*
 * dist_ops.c - signals, remote access and the in-kernel barrier on mapped
 * windows (dist_ops.h).
 *
 * Invariants: every access to a cell or an atomically added element is a
 * C11 atomic on its aligned 32-bit word, so adds from any rank and notifies
 * never lose an update; a notify is preceded by a release fence and a wait
 * ends with an acquire load, which carries O1/O2 for every write before
 * it (plain ones included); a box is addressed only after the caller
 * checked it, so nothing here touches memory outside the tensors.
 */
#include "tile/dist_ops.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "base/half.h"
#include "base/text.h"

int tile_dist_peer(const tile_dist_win *w, const tile_tensor *t, int64_t peer, const char *op, tile_tensor *out, char *msg,
                   size_t cap)
{
    if (peer < 0 || peer >= w->size) {
        snprintf(msg, cap, "%s peer %lld is outside the comm domain [0, %d)", op, (long long)peer, w->size);
        return -1;
    }
    *out = *t;
    out->addr = w->bases[peer] + (t->addr - w->bases[w->rank]);
    return 0;
}

int tile_dist_box(const tile_tensor *t, const int64_t *off, const int64_t *shape, const char *op, const char *name, char *msg,
                  size_t cap)
{
    int ok = 1;
    for (int d = 0; d < t->rank; d++) ok &= off[d] >= 0 && shape[d] >= 0 && off[d] + shape[d] <= t->shape[d] - t->hidden[d];
    if (ok) return 0;
    size_t n = 0;
    base_appendf(msg, cap, &n, "%s box [", op);
    for (int d = 0; d < t->rank; d++)
        base_appendf(msg, cap, &n, "%s%lld:%lld", d ? ", " : "", (long long)off[d], (long long)(off[d] + shape[d]));
    base_appendf(msg, cap, &n, "] exceeds '%s' of shape [", name ? name : "?");
    for (int d = 0; d < t->rank; d++) base_appendf(msg, cap, &n, "%s%lld", d ? ", " : "", (long long)t->shape[d]);
    base_appendf(msg, cap, &n, "]");
    return -1;
}

/* The aligned 32-bit word holding the element at p, and the element's bit shift in it. */
static _Atomic uint32_t *dist_word(void *p, unsigned *shift)
{
    uintptr_t a = (uintptr_t)p;
    *shift = (unsigned)(a & 3) * 8; /* little-endian */
    return (_Atomic uint32_t *)(a & ~(uintptr_t)3);
}

static int dist_can_add(tile_dtype dt)
{
    return dt == TILE_FP32 || dt == TILE_FP16 || dt == TILE_BF16 || dt == TILE_INT32 || dt == TILE_INT8;
}

int tile_dist_add(void *p, tile_dtype dt, const void *v)
{
    if (!dist_can_add(dt)) return -1;
    if (dt == TILE_INT32) {
        int32_t x;
        memcpy(&x, v, 4);
        atomic_fetch_add_explicit((_Atomic uint32_t *)p, (uint32_t)x, memory_order_relaxed);
        return 0;
    }
    unsigned sh;
    _Atomic uint32_t *w = dist_word(p, &sh);
    uint32_t old = atomic_load_explicit(w, memory_order_relaxed), neu;
    do {
        if (dt == TILE_FP32) {
            float a;
            memcpy(&a, v, 4);
            neu = base_f32_bits(base_f32_from_bits(old) + a);
        } else if (dt == TILE_INT8) {
            uint32_t e = (uint8_t)((uint8_t)(old >> sh) + *(const uint8_t *)v);
            neu = (old & ~(0xffu << sh)) | e << sh;
        } else {
            uint16_t h = (uint16_t)(old >> sh), x;
            memcpy(&x, v, 2);
            float s = dt == TILE_FP16 ? base_f16_to_f32(h) + base_f16_to_f32(x) : base_bf16_to_f32(h) + base_bf16_to_f32(x);
            uint32_t e = dt == TILE_FP16 ? base_f32_to_f16(s) : base_f32_to_bf16(s);
            neu = (old & ~(0xffffu << sh)) | e << sh;
        }
    } while (!atomic_compare_exchange_weak_explicit(w, &old, neu, memory_order_relaxed, memory_order_relaxed));
    return 0;
}

/* Element idx (whole-tensor coordinates) of t. */
static char *dist_at(const tile_tensor *t, const int64_t *idx)
{
    int64_t e = t->base;
    for (int d = 0; d < t->rank; d++) e += idx[d] * t->strides[d];
    return t->addr + e * (int64_t)tile_dtype_size((tile_dtype)t->dtype);
}

/* Steps idx through the box [0, shape) row-major; 0 when done. */
static int dist_next(int64_t *idx, const int64_t *shape, int rank)
{
    for (int d = rank - 1; d >= 0; d--) {
        if (++idx[d] < shape[d]) return 1;
        idx[d] = 0;
    }
    return 0;
}

static int dist_bad_atomic(tile_dtype dt, char *msg, size_t cap)
{
    snprintf(msg, cap, "atomic=AtomicType.Add supports FP32, FP16, BF16, INT32, INT8, got %s", tile_dtype_name(dt));
    return -1;
}

int tile_dist_copy(const tile_tensor *dst, const int64_t *doff, const tile_tensor *src, const int64_t *soff, const int64_t *shape,
                   int atomic, char *msg, size_t cap)
{
    int rank = dst->rank;
    size_t es = tile_dtype_size((tile_dtype)dst->dtype);
    int64_t idx[TILE_MAX_RANK] = {0}, di[TILE_MAX_RANK], si[TILE_MAX_RANK];
    for (int d = 0; d < rank; d++)
        if (shape[d] <= 0) return 0;
    if (atomic && !dist_can_add((tile_dtype)dst->dtype)) return dist_bad_atomic((tile_dtype)dst->dtype, msg, cap);
    int rows = dst->strides[rank - 1] == 1 && src->strides[rank - 1] == 1 && !atomic;
    do {
        for (int d = 0; d < rank; d++) di[d] = doff[d] + idx[d], si[d] = soff[d] + idx[d];
        if (rows) {
            memmove(dist_at(dst, di), dist_at(src, si), (size_t)shape[rank - 1] * es);
            idx[rank - 1] = shape[rank - 1] - 1; /* the row is done */
        } else if (atomic) {
            tile_dist_add(dist_at(dst, di), (tile_dtype)dst->dtype, dist_at(src, si));
        } else {
            memmove(dist_at(dst, di), dist_at(src, si), es);
        }
    } while (dist_next(idx, shape, rank));
    return 0;
}

int tile_dist_store(const tile_tensor *dst, const int64_t *off, const tile *src, int atomic, char *msg, size_t cap)
{
    tile_tensor s = {.addr = src->data, .dtype = src->dtype, .rank = src->rank};
    int64_t zero[TILE_MAX_RANK] = {0};
    for (int d = src->rank - 1, st = 1; d >= 0; d--) s.shape[d] = src->shape[d], s.strides[d] = st, st *= (int)src->shape[d];
    return tile_dist_copy(dst, off, &s, zero, src->valid, atomic, msg, cap);
}

void tile_dist_notify(int32_t *cell, int32_t v, int set)
{
    atomic_thread_fence(memory_order_release);
    _Atomic uint32_t *c = (_Atomic uint32_t *)cell;
    if (set) atomic_store_explicit(c, (uint32_t)v, memory_order_release);
    else atomic_fetch_add_explicit(c, (uint32_t)v, memory_order_acq_rel);
}

#define DIST_SPIN_NS 20000ull

int tile_dist_wait_cell(const int32_t *cell, int ge, int32_t expected, tile_dist_wait *w)
{
    _Atomic uint32_t *c = (_Atomic uint32_t *)cell;
    uint64_t start = base_now_ns(), changed = start, sleep_us = 0;
    uint64_t prog = w->progress ? w->progress(w->arg) : 0;
    int32_t last = (int32_t)atomic_load_explicit(c, memory_order_acquire);
    for (uint64_t round = 0;; round++) {
        int32_t v = (int32_t)atomic_load_explicit(c, memory_order_acquire);
        uint64_t now = base_now_ns();
        if (v != last) last = v, changed = now;
        if (ge ? v >= expected : v == expected) {
            w->observed = v, w->unchanged_ms = (now - changed) / 1000000;
            return 0;
        }
        if ((round & 63) == 0 || sleep_us) { /* the slow checks: a failure, progress, the bound */
            if (w->stop && w->stop(w->arg)) return w->observed = v, w->unchanged_ms = (now - changed) / 1000000, 2;
            uint64_t p = w->progress ? w->progress(w->arg) : 0;
            if (p != prog) prog = p, changed = now;
            if (w->timeout_ms >= 0 && now - changed >= (uint64_t)w->timeout_ms * 1000000ull)
                return w->observed = v, w->unchanged_ms = (now - changed) / 1000000, 1;
        }
        if (now - start < DIST_SPIN_NS) continue;
        if (now - start < 2 * DIST_SPIN_NS) {
            sched_yield();
            continue;
        }
        sleep_us = sleep_us ? (sleep_us * 2 > 1000 ? 1000 : sleep_us * 2) : 50;
        struct timespec ts = {0, (long)sleep_us * 1000};
        nanosleep(&ts, NULL);
    }
}

int tile_dist_barrier(const tile_dist_win *w, const tile_tensor *signal, tile_dist_wait *wt, int64_t *src, char *msg, size_t cap)
{
    if (signal->shape[0] != w->size) {
        snprintf(msg, cap, "pld.tensor.barrier signal has %lld rows but the domain has %d ranks", (long long)signal->shape[0], w->size);
        return -1;
    }
    int64_t idx[TILE_MAX_RANK] = {w->rank};
    for (int p = 0; p < w->size; p++) { /* a credit into every peer's cell [me] */
        tile_tensor peer;
        tile_dist_peer(w, signal, p, "pld.tensor.barrier", &peer, msg, cap);
        tile_dist_notify((int32_t *)dist_at(&peer, idx), 1, 0);
    }
    for (int64_t s = 0; s < w->size; s++) { /* every rank's credit, then it is taken back */
        idx[0] = s;
        int32_t *cell = (int32_t *)dist_at(signal, idx);
        int rc = tile_dist_wait_cell(cell, 1, 1, wt);
        if (rc) return *src = s, rc;
        tile_dist_notify(cell, -1, 0);
    }
    return 0;
}
