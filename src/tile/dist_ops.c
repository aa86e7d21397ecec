/*
 * dist_ops.c - signals, remote access and the in-kernel barrier on mapped
 * windows (dist_ops.h).
 *
 * Invariants: every access to a cell or an atomically added element is a
 * C11 atomic on its aligned 32-bit word, so adds from any rank and notifies
 * never lose an update; a notify is preceded by a release fence and a wait
 * ends with an acquire load, which carries O1/O2 for every write before
 * it (plain ones included); a box is addressed only after the caller
 * checked it, so nothing here touches memory outside the tensors.  An
 * unmapped peer's box travels packed row-major in a staging buffer owned
 * by the call (freed before it returns: remote put copies its data).
 */
#include "tile/dist_ops.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/backoff.h"
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

void tile_dist_notify(int32_t *cell, int32_t v, int set)
{
    atomic_thread_fence(memory_order_release);
    _Atomic uint32_t *c = (_Atomic uint32_t *)cell;
    if (set) atomic_store_explicit(c, (uint32_t)v, memory_order_release);
    else atomic_fetch_add_explicit(c, (uint32_t)v, memory_order_acq_rel);
}

/* The end of a wait: observed and unchanged_ms filled, the spare handed back. */
static int dist_wait_end(tile_dist_wait *w, int blocked, int32_t v, uint64_t unchanged_ns, int rc)
{
    w->observed = v, w->unchanged_ms = unchanged_ns / 1000000;
    if (blocked) w->block(w->arg, 0);
    return rc;
}

int tile_dist_wait_until(int (*done)(void *arg, int32_t *observed), void *arg, tile_dist_wait *w)
{
    base_backoff b = base_backoff_begin();
    uint64_t changed = b.start;
    uint64_t prog = w->progress ? w->progress(w->arg) : 0;
    int32_t last = 0, v = 0;
    int blocked = 0;
    done(arg, &last);
    for (uint64_t round = 0;; round++) {
        int ok = done(arg, &v);
        uint64_t now = base_now_ns();
        if (v != last) last = v, changed = now;
        if (ok) return dist_wait_end(w, blocked, v, now - changed, 0);
        if (!blocked && w->block && base_backoff_sleeping(&b, now)) w->block(w->arg, 1), blocked = 1;
        if ((round & 63) == 0 || !base_backoff_spinning(&b, now)) { /* the slow checks: a failure, progress, the bound */
            if (w->stop && w->stop(w->arg)) return dist_wait_end(w, blocked, v, now - changed, 2);
            uint64_t p = w->progress ? w->progress(w->arg) : 0;
            if (p != prog) prog = p, changed = now;
            if (w->timeout_ms >= 0 && now - changed >= (uint64_t)w->timeout_ms * 1000000ull)
                return dist_wait_end(w, blocked, v, now - changed, 1);
        }
        base_backoff_pause(&b, now);
    }
}

typedef struct dist_cell_cond {
    _Atomic uint32_t *cell;
    int ge;
    int32_t expected;
} dist_cell_cond;

static int dist_cell_done(void *arg, int32_t *observed)
{
    const dist_cell_cond *c = arg;
    int32_t v = (int32_t)atomic_load_explicit(c->cell, memory_order_acquire);
    *observed = v;
    return c->ge ? v >= c->expected : v == c->expected;
}

int tile_dist_wait_cell(const int32_t *cell, int ge, int32_t expected, tile_dist_wait *w)
{
    dist_cell_cond c = {(_Atomic uint32_t *)cell, ge, expected};
    return tile_dist_wait_until(dist_cell_done, &c, w);
}

/* ---- windows whose peers are not all mapped ---- */

/* The box [off, off + box) of t (this rank's copy) as a reference into any copy. */
static void dist_ref(const tile_dist_win *w, const tile_tensor *t, const int64_t *off, const int64_t *box, tile_dist_ref *r)
{
    *r = (tile_dist_ref){.offset = (uint64_t)(dist_at(t, off) - w->bases[w->rank]), .dtype = t->dtype, .rank = t->rank};
    for (int d = 0; d < t->rank; d++) r->shape[d] = box[d], r->strides[d] = t->strides[d];
}

/* A row-major tensor of shape box over data. */
static tile_tensor dist_packed(void *data, int dtype, int rank, const int64_t *box)
{
    tile_tensor p = {.addr = data, .dtype = (uint8_t)dtype, .rank = (uint8_t)rank};
    for (int d = rank - 1, st = 1; d >= 0; d--) p.shape[d] = box[d], p.strides[d] = st, st *= box[d];
    return p;
}

/* Whether r names a dtype, a rank and non-negative extents (a reference from a peer is
 * checked before use). */
static int dist_ref_valid(const tile_dist_ref *r)
{
    if (r->dtype < 0 || r->dtype > TILE_UINT32 || !tile_dtype_size((tile_dtype)r->dtype) || r->rank < 1 || r->rank > TILE_MAX_RANK)
        return 0;
    for (int d = 0; d < r->rank; d++)
        if (r->shape[d] < 0 || r->strides[d] < 0) return 0;
    return 1;
}

size_t tile_dist_ref_bytes(const tile_dist_ref *r)
{
    if (!dist_ref_valid(r)) return 0;
    size_t n = tile_dtype_size((tile_dtype)r->dtype);
    for (int d = 0; d < r->rank; d++) {
        if (r->shape[d] && n > SIZE_MAX / (size_t)r->shape[d]) return SIZE_MAX;
        n *= (size_t)r->shape[d];
    }
    return n;
}

static int dist_no_memory(size_t bytes, const char *op, char *msg, size_t cap)
{
    snprintf(msg, cap, "%s: out of memory for a %zu-byte staging buffer", op, bytes);
    return -1;
}

int tile_dist_apply(char *copy, size_t bytes, const tile_dist_ref *r, void *data, int put, int atomic, char *msg, size_t cap)
{
    int ok = dist_ref_valid(r);
    uint64_t es = ok ? tile_dtype_size((tile_dtype)r->dtype) : 1, last = 0;
    for (int d = 0; ok && d < r->rank; d++) {
        if (r->shape[d] == 0) return 0;
        last += (uint64_t)(r->shape[d] - 1) * (uint64_t)r->strides[d];
    }
    if (!ok || r->offset > bytes || (last + 1) * es > bytes - r->offset) {
        snprintf(msg, cap, "a remote access names bytes [%llu, +%llu) of a %zu-byte window copy", (unsigned long long)r->offset,
                 (unsigned long long)((last + 1) * es), bytes);
        return -1;
    }
    tile_tensor box = {.addr = copy + r->offset, .dtype = (uint8_t)r->dtype, .rank = (uint8_t)r->rank};
    memcpy(box.shape, r->shape, sizeof r->shape);
    memcpy(box.strides, r->strides, sizeof r->strides);
    tile_tensor p = dist_packed(data, r->dtype, r->rank, r->shape);
    int64_t zero[TILE_MAX_RANK] = {0};
    return put ? tile_dist_copy(&box, zero, &p, zero, r->shape, atomic, msg, cap) : tile_dist_copy(&p, zero, &box, zero, r->shape, 0, msg, cap);
}

int tile_dist_signal(const tile_dist_win *w, const tile_tensor *t, int64_t peer, int32_t *cell, int32_t v, int set,
                     tile_dist_wait *wt, const char *op, char *msg, size_t cap)
{
    tile_tensor pt;
    if (tile_dist_peer(w, t, peer, op, &pt, msg, cap)) return -1;
    if (w->bases[peer]) {
        tile_dist_notify((int32_t *)(pt.addr + ((char *)cell - t->addr)), v, set);
        return 0;
    }
    return w->remote->notify(w->session, w->dom, (int)peer, (uint64_t)((char *)cell - w->bases[w->rank]), v, set, wt, msg, cap);
}

int tile_dist_xfer(const tile_dist_win *w, const tile_tensor *t, int64_t peer, const int64_t *off, const tile_tensor *loc,
                   const int64_t *loff, const int64_t *box, int put, int atomic, tile_dist_wait *wt, const char *op, char *msg,
                   size_t cap)
{
    tile_tensor pt;
    if (tile_dist_peer(w, t, peer, op, &pt, msg, cap)) return -1;
    if (w->bases[peer]) return put ? tile_dist_copy(&pt, off, loc, loff, box, atomic, msg, cap) : tile_dist_copy(loc, loff, &pt, off, box, 0, msg, cap);
    for (int d = 0; d < t->rank; d++)
        if (box[d] <= 0) return 0;
    if (atomic && !dist_can_add((tile_dtype)t->dtype)) return dist_bad_atomic((tile_dtype)t->dtype, msg, cap);
    tile_dist_ref r;
    dist_ref(w, t, off, box, &r);
    size_t bytes = tile_dist_ref_bytes(&r);
    void *data = malloc(bytes);
    if (!data) return dist_no_memory(bytes, op, msg, cap);
    tile_tensor p = dist_packed(data, t->dtype, t->rank, box);
    int64_t zero[TILE_MAX_RANK] = {0};
    int rc;
    if (put) {
        tile_dist_copy(&p, zero, loc, loff, box, 0, msg, cap);
        rc = w->remote->put(w->session, w->dom, (int)peer, &r, data, atomic, wt, msg, cap);
    } else {
        rc = w->remote->get(w->session, w->dom, (int)peer, &r, data, wt, msg, cap);
        if (rc == 0) tile_dist_copy(loc, loff, &p, zero, box, 0, msg, cap);
    }
    free(data);
    return rc;
}

int tile_dist_load(const tile_dist_win *w, const tile_tensor *t, int64_t peer, const int64_t *off, const int64_t *box,
                   const int64_t *ext, tile *d, tile_dist_wait *wt, const char *op, char *msg, size_t cap)
{
    tile_tensor pt;
    if (tile_dist_peer(w, t, peer, op, &pt, msg, cap)) return -1;
    if (w->bases[peer]) return tile_load(d, &pt, off, ext, 0, op, msg, cap);
    tile_dist_ref r;
    dist_ref(w, t, off, box, &r);
    size_t bytes = tile_dist_ref_bytes(&r);
    void *data = malloc(bytes ? bytes : 1);
    if (!data) return dist_no_memory(bytes, op, msg, cap);
    tile_tensor p = dist_packed(data, t->dtype, t->rank, box);
    int64_t zero[TILE_MAX_RANK] = {0};
    int rc = bytes ? w->remote->get(w->session, w->dom, (int)peer, &r, data, wt, msg, cap) : 0;
    if (rc == 0) rc = tile_load(d, &p, zero, ext, 0, op, msg, cap);
    free(data);
    return rc;
}

int tile_dist_store_to(const tile_dist_win *w, const tile_tensor *t, int64_t peer, const int64_t *off, const tile *src, int atomic,
                       tile_dist_wait *wt, const char *op, char *msg, size_t cap)
{
    tile_tensor s = dist_packed(src->data, src->dtype, src->rank, src->shape);
    int64_t zero[TILE_MAX_RANK] = {0};
    return tile_dist_xfer(w, t, peer, off, &s, zero, src->valid, 1, atomic, wt, op, msg, cap);
}

int tile_dist_barrier(const tile_dist_win *w, const tile_tensor *signal, tile_dist_wait *wt, int64_t *src, char *msg, size_t cap)
{
    if (signal->shape[0] != w->size) {
        snprintf(msg, cap, "pld.tensor.barrier signal has %lld rows but the domain has %d ranks", (long long)signal->shape[0], w->size);
        return -1;
    }
    int64_t idx[TILE_MAX_RANK] = {w->rank};
    int32_t *mine = (int32_t *)dist_at(signal, idx);
    for (int p = 0; p < w->size; p++) { /* a credit into every peer's cell [me] */
        int rc = tile_dist_signal(w, signal, p, mine, 1, 0, wt, "pld.tensor.barrier", msg, cap);
        if (rc) return *src = -1, rc;
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
