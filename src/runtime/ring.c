/*
 * ring.c - task window, heap placement and FIFO reclamation of one ring
 * (see ring.h for the invariants).
 */
#include "runtime/ring.h"

#include <string.h>

#include "runtime/check.h"
#include "runtime/reserve.h"

/* Reserves one ring array; on failure records which one, once. */
static void *rt_ring_reserve(uint64_t bytes, const char *what, rt_reserve_failure *fail,
                             int *failed)
{
    if (*failed) return NULL;
    int err = 0;
    void *p = rt_reserve(bytes, &err);
    if (!p) {
        *failed = 1;
        if (fail) *fail = (rt_reserve_failure){what, bytes, err};
    }
    return p;
}

int rt_ring_init(rt_ring *r, int index, uint32_t window, uint64_t heap_size,
                 uint64_t dep_pool, uint32_t first_local, rt_reserve_failure *fail)
{
    int failed = 0;
    *r = (rt_ring){0};
    r->index = index;
    r->window = window;
    r->mask = window - 1;
    r->first_local = r->reclaimed_at = r->tm_cleanup_cursor = first_local;
    atomic_store(&r->last_alive, first_local);
    atomic_store(&r->cur, first_local);
    r->heap.size = heap_size;
    r->deps = (rt_pool){NULL, sizeof(rt_dep_node), dep_pool, 1, 1, 0};
    r->spill = (rt_pool){NULL, sizeof(uint64_t), dep_pool, 1, 1, 0};
    r->slots = rt_ring_reserve((uint64_t)window * sizeof(rt_slot), "task window", fail, &failed);
    r->seen = rt_ring_reserve((uint64_t)window * sizeof(uint64_t), "task window", fail, &failed);
    r->heap.base = rt_ring_reserve(heap_size, "heap", fail, &failed);
    /* Live records <= window - 1, each <= RT_RECORD_MAX + 16 after rounding,
     * plus less than one record wasted at the wrap: room for window + 2. */
    r->records.size = ((uint64_t)window + 2) * (RT_RECORD_MAX + 16);
    r->records.base = rt_ring_reserve(r->records.size, "task window", fail, &failed);
    r->deps.base = rt_ring_reserve(dep_pool * sizeof(rt_dep_node), "dep pool", fail, &failed);
    r->spill.base = rt_ring_reserve(dep_pool * sizeof(uint64_t), "spill pool", fail, &failed);
    if (failed) {
        rt_ring_destroy(r);
        return -1;
    }
    return 0;
}

void rt_ring_destroy(rt_ring *r)
{
    rt_unreserve(r->slots, (uint64_t)r->window * sizeof(rt_slot));
    rt_unreserve(r->seen, (uint64_t)r->window * sizeof(uint64_t));
    rt_unreserve(r->heap.base, r->heap.size);
    rt_unreserve(r->records.base, r->records.size);
    rt_unreserve(r->deps.base, r->deps.cap * sizeof(rt_dep_node));
    rt_unreserve(r->spill.base, r->spill.cap * sizeof(uint64_t));
    r->slots = NULL;
    r->seen = NULL;
    r->heap.base = r->records.base = NULL;
    r->deps.base = r->spill.base = NULL;
}

/* Moves a heap's tail to `mark`, the linear end (alloc_total) of the newest
 * retired task's bytes.  Marks only grow in task order, except those of
 * tasks older than a case-E restart, which point into the abandoned lap:
 * a mark at or behind reclaim_total frees nothing.  The tail is kept in
 * (0, size], so a mark on a lap boundary is the end of the older lap. */
static void rt_heap_reclaim(rt_heap *h, uint64_t mark)
{
    if (mark <= rt_heap_reclaim_total(h)) return;
    h->reclaim_wraps = (mark - 1) / h->size;
    h->tail = mark - h->reclaim_wraps * h->size;
}

void rt_ring_reclaim(rt_ring *r)
{
    uint32_t la = atomic_load_explicit(&r->last_alive, memory_order_acquire);
    if (la == r->reclaimed_at) return;
    r->reclaimed_at = la;
    const rt_slot *newest = rt_ring_slot(r, la - 1);
    rt_heap_reclaim(&r->heap, newest->packed_end);
    rt_heap_reclaim(&r->records, newest->record_end);
    rt_pool_reclaim_to(&r->deps, newest->dep_pool_mark);
    rt_pool_reclaim_to(&r->spill, newest->spill_mark);
}

uint64_t rt_heap_used(const rt_heap *h)
{
    return rt_heap_alloc_total(h) - rt_heap_reclaim_total(h);
}

uint64_t rt_heap_available(const rt_heap *h)
{
    if (rt_heap_used(h) == 0) return h->size;
    if (h->top == h->tail) return 0; /* full */
    if (h->top > h->tail) return h->size - h->top > h->tail ? h->size - h->top : h->tail;
    return h->tail - h->top;
}

/* Places s bytes; returns the offset or UINT64_MAX when it must wait.  The
 * live bytes are [tail, top) (or [tail, size) + [0, top) once top wrapped);
 * used (from the monotonic counters) tells full from empty when
 * top == tail, so every case may fill its free arc exactly. */
static uint64_t rt_heap_place(rt_heap *h, uint64_t s)
{
    if (s == 0) return h->top;
    uint64_t used = rt_heap_used(h);
    if (used == 0 && h->top != 0) { /* E: drained mid-ring, restart at 0 */
        h->alloc_wraps++;
        h->reclaim_wraps = h->alloc_wraps;
        h->top = s;
        h->tail = 0;
        return 0;
    }
    if (used != 0 && h->top == h->tail) return UINT64_MAX; /* full */
    uint64_t off = h->top;
    if (h->top >= h->tail) {
        if (h->size - h->top >= s) { /* A */
            h->top += s;
            return off;
        }
        if (h->tail >= s) { /* B: wrap, [top, size) wasted until the tail passes */
            h->alloc_wraps++;
            h->top = s;
            return 0;
        }
        return UINT64_MAX;
    }
    if (h->tail - h->top >= s) { /* D */
        h->top += s;
        return off;
    }
    return UINT64_MAX;
}

rt_alloc_result rt_ring_try_alloc(rt_ring *r, uint64_t bytes, uint32_t *local,
                                  uint64_t *heap_off)
{
    uint64_t s = rt_heap_request(bytes);
    if (s > r->heap.size) return RT_ALLOC_NEVER; /* also catches a request too big to round */
    /* One watermark snapshot (reclaimed_at) serves the heap and the window
     * check, so a waiter can tell whether anything moved since. */
    rt_ring_reclaim(r);
    uint32_t cur = atomic_load_explicit(&r->cur, memory_order_relaxed);
    if (cur - r->reclaimed_at + 1 >= r->window) return RT_ALLOC_WAIT_TASK;
    uint64_t off = rt_heap_place(&r->heap, s);
    if (off == UINT64_MAX) return RT_ALLOC_WAIT_HEAP;
    if (off + s > r->heap.dirty) r->heap.dirty = off + s;
    rt_ring_slot(r, cur)->packed_end = rt_heap_alloc_total(&r->heap);
    *local = cur;
    *heap_off = off;
    return RT_ALLOC_OK;
}

int rt_heap_zero_fill_skipped;

void rt_heap_zero_reused(rt_heap *h, uint64_t dirty, uint64_t off, uint64_t bytes)
{
    if (off < dirty && !rt_heap_zero_fill_skipped) memset(h->base + off, 0, bytes < dirty - off ? bytes : dirty - off);
}

void *rt_ring_record(rt_ring *r, uint32_t local, uint64_t bytes)
{
    uint64_t off = rt_heap_place(&r->records, (bytes + 15) & ~(uint64_t)15);
    RT_ASSERT(off != UINT64_MAX); /* sized so that it never fills */
    rt_ring_slot(r, local)->record_end = rt_heap_alloc_total(&r->records);
    return r->records.base + off;
}

void rt_ring_publish(rt_ring *r, uint32_t local)
{
    RT_ASSERT(local + 1 - atomic_load_explicit(&r->last_alive, memory_order_acquire) < r->window);
    r->issued++;
    atomic_store_explicit(&r->cur, local + 1, memory_order_release);
}

rt_use rt_ring_use(rt_ring *r)
{
    rt_ring_reclaim(r);
    uint32_t cur = atomic_load_explicit(&r->cur, memory_order_relaxed);
    return (rt_use){cur - r->reclaimed_at, rt_heap_used(&r->heap), rt_pool_used(&r->deps)};
}

/* Live counts only rise at allocations, so sampling here catches maxima. */
void rt_ring_note_peaks(rt_ring *r)
{
    uint64_t live = rt_ring_live(r);
    uint64_t heap = rt_heap_used(&r->heap);
    uint64_t deps = rt_pool_used(&r->deps);
    if (live > r->task_peak) r->task_peak = live;
    if (heap > r->heap_peak) r->heap_peak = heap;
    if (deps > r->dep_peak) r->dep_peak = deps;
    if (live > r->scope_peak.task_window) r->scope_peak.task_window = live;
    if (heap > r->scope_peak.heap) r->scope_peak.heap = heap;
    if (deps > r->scope_peak.dep_pool) r->scope_peak.dep_pool = deps;
}

int rt_ring_advance(rt_ring *r)
{
    int moved = 0;
    atomic_store(&r->advance_pending, 1);
    while (atomic_load(&r->advance_pending)) {
        if (!rt_spin_trylock(&r->advance_lock)) return moved; /* the holder drains */
        atomic_store(&r->advance_pending, 0);
        uint32_t h = atomic_load_explicit(&r->last_alive, memory_order_relaxed);
        uint32_t end = atomic_load_explicit(&r->cur, memory_order_acquire);
        uint32_t start = h;
        while (h != end &&
               atomic_load_explicit(&rt_ring_slot(r, h)->state, memory_order_acquire) ==
                   RT_TASK_CONSUMED)
            h++;
        if (h != start) {
            moved = 1;
            atomic_store(&r->last_alive, h); /* seq_cst: pairs with orch_waiting */
        }
        /* Unlock before the pending re-check, with seq_cst, so a thread that
         * failed the trylock after setting pending is always seen. */
        atomic_store(&r->advance_lock, 0);
        if (moved && atomic_load(&r->orch_waiting)) rt_futex_wake(&r->last_alive, INT32_MAX);
    }
    return moved;
}

int rt_ring_check(rt_ring *r, const char **why)
{
    uint32_t la = atomic_load_explicit(&r->last_alive, memory_order_acquire);
    uint32_t cur = atomic_load_explicit(&r->cur, memory_order_acquire);
    const rt_heap *heaps[2] = {&r->heap, &r->records};
    *why = NULL;
    if (rt_local_before(cur, la)) *why = "watermark past the current task";
    else if (cur - la >= r->window) *why = "window - 1 live tasks exceeded";
    for (int i = 0; i < 2 && !*why; i++) {
        const rt_heap *h = heaps[i];
        uint64_t used = rt_heap_used(h);
        if (h->top > h->size || h->tail > h->size) *why = "heap cursor past the heap";
        else if (rt_heap_alloc_total(h) < rt_heap_reclaim_total(h)) *why = "heap reclaimed more than allocated";
        else if (used > h->size) *why = "heap uses more than its size";
        else if (h->top == h->tail && used != 0 && used != h->size) *why = "heap top == tail but neither empty nor full";
    }
    if (!*why && (r->deps.top < r->deps.tail || rt_pool_used(&r->deps) > r->deps.cap))
        *why = "dep pool counters out of range";
    if (!*why && (r->spill.top < r->spill.tail || rt_pool_used(&r->spill) > r->spill.cap))
        *why = "spill pool counters out of range";
    for (uint32_t l = la; !*why && l != cur; l++) {
        uint32_t st = atomic_load_explicit(&rt_ring_slot(r, l)->state, memory_order_acquire);
        if (st > RT_TASK_CONSUMED) *why = "a live slot in no known state";
    }
    return *why ? -1 : 0;
}
