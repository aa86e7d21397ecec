/*
 * test_ring.c - task window and heap of one ring (docs/runtime.md, "The ring model",
 * "Heap placement"),
 * unit tests on a ring of window 16 and heap 4096, driven single-threaded.
 *
 * An "alloc(n)" is rt_ring_try_alloc followed, on success, by what submit
 * does to the slot (state PENDING, pool marks) and rt_ring_publish.
 * "Retire k" marks the oldest k live tasks CONSUMED, advances the watermark
 * and reclaims.  Offsets are relative to the heap base.
 */
#include "base/prng.h"
#include "harness.h"

#include <stdatomic.h>
#include <string.h>

#include "runtime/ring.h"
#include "runtime/task.h"

#define WINDOW 16u
#define HEAP 4096u
#define DEP_POOL 16u

/* ---- helpers ----------------------------------------------------------- */

static void ring_new(rt_ring *r, uint32_t first_local)
{
    assert_int_equal(rt_ring_init(r, 0, WINDOW, HEAP, DEP_POOL, first_local, NULL), 0);
    assert_non_null(r->slots);
    assert_non_null(r->heap.base);
}

static uint32_t ring_cur(rt_ring *r) { return atomic_load(&r->cur); }
static uint32_t ring_last_alive(rt_ring *r) { return atomic_load(&r->last_alive); }

/* The ring's own sanity walk holds. */
static void ring_ok(rt_ring *r)
{
    const char *why;
    if (rt_ring_check(r, &why) != 0) print_error("rt_ring_check: %s\n", why);
    assert_int_equal(rt_ring_check(r, &why), 0);
}

/* One alloc(n); on RT_ALLOC_OK initialises and publishes the slot.  On any
 * other result asserts that nothing moved (no slot, no heap). */
static rt_alloc_result try_alloc(rt_ring *r, uint64_t n, uint32_t *local, uint64_t *off)
{
    uint32_t cur = ring_cur(r);
    uint64_t top = r->heap.top, tail = r->heap.tail;
    uint32_t l = 0xdeadbeefu;
    uint64_t o = UINT64_MAX;
    rt_alloc_result res = rt_ring_try_alloc(r, n, &l, &o);
    if (res == RT_ALLOC_OK) {
        assert_int_equal(l, cur);
        assert_true(o + rt_heap_request(n) <= r->heap.size);
        rt_slot *s = rt_ring_slot(r, l);
        atomic_store(&s->state, RT_TASK_PENDING);
        s->dep_pool_mark = r->deps.top;
        s->spill_mark = r->spill.top;
        rt_ring_publish(r, l);
        assert_int_equal(ring_cur(r), cur + 1);
        if (local) *local = l;
        if (off) *off = o;
    } else {
        /* a refused request takes no id and commits nothing to the heap */
        assert_int_equal(ring_cur(r), cur);
        assert_int_equal(r->heap.top, top);
        assert_int_equal(r->heap.tail, tail);
    }
    ring_ok(r);
    return res;
}

/* alloc(n) that must succeed; returns the local id, *off = heap offset. */
static uint32_t alloc_ok(rt_ring *r, uint64_t n, uint64_t *off)
{
    uint32_t local = 0;
    uint64_t o = 0;
    assert_int_equal(try_alloc(r, n, &local, &o), RT_ALLOC_OK);
    if (off) *off = o;
    return local;
}

/* Retires the oldest k live tasks (CONSUMED, watermark, reclaim). */
static void retire(rt_ring *r, uint32_t k)
{
    uint32_t la = ring_last_alive(r);
    assert_true(k <= ring_cur(r) - la);
    for (uint32_t i = 0; i < k; i++)
        atomic_store(&rt_ring_slot(r, la + i)->state, RT_TASK_CONSUMED);
    if (k) assert_int_equal(rt_ring_advance(r), 1);
    assert_int_equal(ring_last_alive(r), la + k);
    rt_ring_reclaim(r);
    ring_ok(r);
}

static void retire_all(rt_ring *r) { retire(r, ring_cur(r) - ring_last_alive(r)); }

static void check_used_identity(const rt_heap *h)
{
    assert_int_equal(rt_heap_used(h), rt_heap_alloc_total(h) - rt_heap_reclaim_total(h));
}

/* ---- tests ------------------------------------------------------------- */

static void test_ring_fresh_and_bump(void **state)
{
    (void)state;
    rt_ring r;
    ring_new(&r, 0);
    assert_int_equal(rt_ring_live(&r), 0);
    assert_int_equal(r.heap.top, 0);
    assert_int_equal(r.heap.tail, 0);
    assert_int_equal(rt_heap_used(&r.heap), 0);
    assert_int_equal(rt_heap_available(&r.heap), 4096);

    uint64_t off = 1;
    uint32_t id = alloc_ok(&r, 100, &off);
    assert_int_equal(id, 0);
    assert_ptr_equal(rt_ring_slot(&r, id), &r.slots[0]);
    assert_int_equal(off, 0);
    assert_int_equal(r.heap.top, 128);
    assert_int_equal(rt_ring_live(&r), 1);
    assert_int_equal(rt_heap_used(&r.heap), 128);
    assert_int_equal(rt_ring_slot(&r, id)->packed_end, 128);
    rt_ring_destroy(&r);

    /* Fresh ring: 1, 33, 64 bytes each round up to 64. */
    ring_new(&r, 0);
    assert_int_equal(alloc_ok(&r, 1, &off), 0);
    assert_int_equal(off, 0);
    assert_int_equal(r.heap.top, 64);
    assert_int_equal(alloc_ok(&r, 33, &off), 1);
    assert_int_equal(off, 64);
    assert_int_equal(r.heap.top, 128);
    assert_int_equal(alloc_ok(&r, 64, &off), 2);
    assert_int_equal(off, 128);
    assert_int_equal(r.heap.top, 192);
    assert_int_equal(rt_ring_live(&r), 3);
    assert_int_equal(rt_heap_available(&r.heap), 4096 - 192);
    check_used_identity(&r.heap);
    rt_ring_destroy(&r);
}

static void test_heap_zero_size(void **state)
{
    (void)state;
    rt_ring r;
    ring_new(&r, 0);
    for (uint32_t i = 0; i < 5; i++) {
        uint64_t off = 1;
        uint32_t id = alloc_ok(&r, 0, &off);
        assert_int_equal(id, i);
        assert_ptr_equal(rt_ring_slot(&r, id), &r.slots[id & 15]);
        assert_ptr_equal(r.heap.base + off, r.heap.base); /* one address */
        assert_int_equal(rt_ring_slot(&r, id)->packed_end, off); /* packed_end == packed_base */
        assert_int_equal(r.heap.top, 0);
        assert_int_equal(r.heap.tail, 0);
    }
    assert_int_equal(rt_ring_live(&r), 5);
    assert_int_equal(rt_heap_used(&r.heap), 0);
    assert_int_equal(rt_heap_available(&r.heap), 4096);

    /* A zero-byte request after some bytes: base + top, nothing moves. */
    uint64_t off = 0;
    alloc_ok(&r, 128, &off);
    assert_int_equal(off, 0);
    alloc_ok(&r, 0, &off);
    assert_int_equal(off, 128);
    alloc_ok(&r, 0, &off);
    assert_int_equal(off, 128);
    assert_int_equal(r.heap.top, 128);
    rt_ring_destroy(&r);
}

static void test_window_slots_cycle(void **state)
{
    (void)state;
    rt_ring r;
    ring_new(&r, 0);
    int seen[WINDOW] = {0};
    uint32_t prev = 0;
    for (uint32_t i = 0; i < 2 * WINDOW; i++) {
        if (i) retire(&r, 1);
        uint32_t id = alloc_ok(&r, 64, NULL);
        assert_int_equal(id, i);
        if (i) {
            assert_true(rt_local_before(prev, id));
            assert_false(rt_local_before(id, prev));
        }
        rt_slot *s = rt_ring_slot(&r, id);
        uint32_t slot = (uint32_t)(s - r.slots);
        assert_int_equal(slot, id & (WINDOW - 1));
        if (i < WINDOW) {
            assert_int_equal(seen[slot], 0); /* 16 distinct slots */
            seen[slot] = 1;
        } else {
            assert_int_equal(seen[slot], 1); /* then the same slots again */
        }
        assert_int_equal(rt_ring_live(&r), 1);
        prev = id;
    }
    for (uint32_t i = 0; i < WINDOW; i++) assert_int_equal(seen[i], 1);
    rt_ring_destroy(&r);
}

static void test_heap_empty_after_retire(void **state)
{
    (void)state;
    rt_ring r;
    ring_new(&r, 0);
    alloc_ok(&r, 256, NULL);
    assert_int_equal(rt_heap_available(&r.heap), 4096 - 256);
    retire(&r, 1);
    assert_int_equal(r.heap.tail, 256);
    assert_int_equal(r.heap.top, 256);
    assert_int_equal(rt_heap_used(&r.heap), 0);

    uint64_t off = 0;
    alloc_ok(&r, 0, &off);
    assert_int_equal(off, 256);
    assert_int_equal(rt_heap_available(&r.heap), 4096);
    assert_int_equal(rt_heap_used(&r.heap), 0);

    /* Repeated zero-byte tasks, live or retired, leave the tail where it is. */
    for (int i = 0; i < 20; i++) {
        alloc_ok(&r, 0, &off);
        assert_int_equal(off, 256);
        assert_int_equal(r.heap.tail, 256);
        assert_int_equal(r.heap.top, 256);
        if (i % 3 == 2) retire_all(&r);
        assert_int_equal(r.heap.tail, 256);
        assert_int_equal(rt_heap_available(&r.heap), 4096);
        assert_int_equal(rt_heap_used(&r.heap), 0);
        check_used_identity(&r.heap);
    }
    rt_ring_destroy(&r);
}

static void test_heap_empty_restarts_at_zero(void **state)
{
    (void)state;
    rt_ring r;
    ring_new(&r, 0);
    alloc_ok(&r, 1024, NULL);
    retire(&r, 1);
    assert_int_equal(r.heap.top, 1024);
    assert_int_equal(r.heap.tail, 1024);

    uint64_t off = 1;
    assert_int_equal(alloc_ok(&r, 64, &off), 1);
    assert_int_equal(off, 0); /* case E: at base, not at 1024 */
    assert_ptr_equal(r.heap.base + off, r.heap.base);
    assert_int_equal(r.heap.top, 64);
    assert_int_equal(r.heap.tail, 0);
    assert_int_equal(rt_heap_used(&r.heap), 64);
    assert_int_equal(rt_heap_available(&r.heap), 4096 - 64);
    check_used_identity(&r.heap);

    /* The next one follows it at 64; retiring both drains the heap again. */
    alloc_ok(&r, 64, &off);
    assert_int_equal(off, 64);
    retire(&r, 1);
    assert_int_equal(r.heap.tail, 64);
    retire(&r, 1);
    assert_int_equal(rt_heap_used(&r.heap), 0);
    assert_int_equal(rt_heap_available(&r.heap), 4096);
    rt_ring_destroy(&r);
}

static void test_heap_wrap(void **state)
{
    (void)state;
    rt_ring r;
    ring_new(&r, 0);
    uint64_t off = 0;
    alloc_ok(&r, 2048, &off);
    assert_int_equal(off, 0);
    alloc_ok(&r, 1984, &off);
    assert_int_equal(off, 2048);
    assert_int_equal(r.heap.top, 4032);
    /* Does not fit at the end (64 left) and the tail is at 0: wait. */
    assert_int_equal(try_alloc(&r, 128, NULL, NULL), RT_ALLOC_WAIT_HEAP);

    retire(&r, 1);
    assert_int_equal(r.heap.tail, 2048);
    alloc_ok(&r, 128, &off);
    assert_int_equal(off, 0); /* case B: at base */
    assert_int_equal(r.heap.top, 128);
    assert_int_equal(r.heap.tail, 2048);
    assert_int_equal(rt_heap_available(&r.heap), 1920);
    assert_int_equal(r.heap.alloc_wraps, 1);
    /* used counts the wasted [4032, 4096) until the tail passes it */
    assert_int_equal(rt_heap_used(&r.heap), 1984 + 64 + 128);
    check_used_identity(&r.heap);

    retire(&r, 1);
    assert_int_equal(r.heap.tail, 4032);
    assert_int_equal(rt_heap_used(&r.heap), 128 + 64);
    retire(&r, 1);
    assert_int_equal(r.heap.tail, 128);
    assert_int_equal(r.heap.reclaim_wraps, 1);
    assert_int_equal(rt_heap_used(&r.heap), 0);
    rt_ring_destroy(&r);
}

static void test_heap_exact_fit_end(void **state)
{
    (void)state;
    rt_ring r;
    ring_new(&r, 0);
    uint64_t off = 0;
    alloc_ok(&r, 4032, &off);
    assert_int_equal(off, 0);
    alloc_ok(&r, 64, &off);
    assert_int_equal(off, 4032);
    assert_ptr_equal(r.heap.base + off, r.heap.base + 4032);
    assert_int_equal(r.heap.top, 4096);
    assert_int_equal(r.heap.tail, 0);
    assert_int_equal(rt_heap_used(&r.heap), 4096);
    assert_int_equal(rt_heap_available(&r.heap), 0);
    assert_int_equal(try_alloc(&r, 64, NULL, NULL), RT_ALLOC_WAIT_HEAP);
    /* zero bytes still admitted (moves nothing) */
    alloc_ok(&r, 0, &off);
    assert_int_equal(off, 4096);
    assert_int_equal(r.heap.top, 4096);
    rt_ring_destroy(&r);

    /* A single request of exactly the heap size fits a fresh heap. */
    ring_new(&r, 0);
    alloc_ok(&r, 4096, &off);
    assert_int_equal(off, 0);
    assert_int_equal(r.heap.top, 4096);
    assert_int_equal(rt_heap_available(&r.heap), 0);
    rt_ring_destroy(&r);
}

/* Case B fills [0, tail) exactly: top == tail then means full (used tells). */
static void test_heap_wrap_fills_tail_exactly(void **state)
{
    (void)state;
    rt_ring r;
    ring_new(&r, 0);
    alloc_ok(&r, 64, NULL);
    alloc_ok(&r, 4032, NULL);
    retire(&r, 1);
    assert_int_equal(r.heap.top, 4096);
    assert_int_equal(r.heap.tail, 64);
    assert_int_equal(rt_heap_available(&r.heap), 64);
    assert_int_equal(try_alloc(&r, 128, NULL, NULL), RT_ALLOC_WAIT_HEAP); /* one past */
    uint64_t off = 1;
    uint32_t id = alloc_ok(&r, 64, &off);
    assert_int_equal(id, 2); /* the refused attempt took no id */
    assert_int_equal(off, 0);
    assert_int_equal(r.heap.top, 64);
    assert_int_equal(r.heap.tail, 64);
    assert_int_equal(rt_heap_used(&r.heap), 4096);
    assert_int_equal(rt_heap_available(&r.heap), 0);
    assert_int_equal(try_alloc(&r, 64, NULL, NULL), RT_ALLOC_WAIT_HEAP); /* full, not empty */
    check_used_identity(&r.heap);
    retire(&r, 2); /* everything: the tail laps to 64 of the next lap */
    assert_int_equal(rt_heap_used(&r.heap), 0);
    assert_int_equal(rt_heap_available(&r.heap), 4096);
    check_used_identity(&r.heap);
    rt_ring_destroy(&r);
}

/* Case D fills the gap [top, tail) exactly. */
static void test_heap_gap_fills_exactly(void **state)
{
    (void)state;
    rt_ring r;
    ring_new(&r, 0);
    /* Reach top 128, tail 4032 through real placements. */
    alloc_ok(&r, 4032, NULL);
    alloc_ok(&r, 64, NULL);
    retire(&r, 1);
    assert_int_equal(r.heap.tail, 4032);
    uint64_t off = 1;
    alloc_ok(&r, 128, &off);
    assert_int_equal(off, 0);
    assert_int_equal(r.heap.top, 128);
    assert_int_equal(r.heap.tail, 4032);
    assert_int_equal(rt_heap_available(&r.heap), 3904);

    assert_int_equal(try_alloc(&r, 3968, NULL, NULL), RT_ALLOC_WAIT_HEAP); /* one past */
    alloc_ok(&r, 3900, &off); /* rounds to 3904: exactly the gap */
    assert_int_equal(off, 128);
    assert_int_equal(r.heap.top, 4032);
    assert_int_equal(rt_heap_available(&r.heap), 0);
    assert_int_equal(rt_heap_used(&r.heap), 4096);
    assert_int_equal(try_alloc(&r, 64, NULL, NULL), RT_ALLOC_WAIT_HEAP);
    check_used_identity(&r.heap);
    rt_ring_destroy(&r);
}

/* The audit's case: with an earlier allocation still live after a wrap, a
 * request equal to the free arc fits, as four 1 KiB outputs fit a fresh
 * 4 KiB heap. */
static void test_heap_exact_fill_after_wrap(void **state)
{
    (void)state;
    rt_ring r;
    ring_new(&r, 0);
    for (int i = 0; i < 4; i++) alloc_ok(&r, 1024, NULL);
    assert_int_equal(rt_heap_available(&r.heap), 0);
    retire(&r, 1);
    uint64_t off = 1;
    alloc_ok(&r, 1024, &off); /* B: [0, 1024) while [1024, 4096) is live */
    assert_int_equal(off, 0);
    assert_int_equal(rt_heap_used(&r.heap), 4096);
    retire(&r, 2);
    assert_int_equal(rt_heap_available(&r.heap), 2048);
    alloc_ok(&r, 1024, &off);
    assert_int_equal(off, 1024);
    alloc_ok(&r, 1024, &off); /* D fills [2048, 3072) exactly */
    assert_int_equal(off, 2048);
    assert_int_equal(rt_heap_available(&r.heap), 0);
    check_used_identity(&r.heap);
    rt_ring_destroy(&r);
}

/* Randomized: a request fits iff it is at most `available` (the number the
 * error message prints), in every placement case; used stays exact. */
static void test_heap_fits_iff_available(void **state)
{
    (void)state;
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    for (int run = 0; run < 40; run++) {
        rt_ring r;
        ring_new(&r, 0);
        uint64_t live_bytes[16], sum = 0;
        uint32_t n = 0;
        for (int step = 0; step < 4000; step++) {
            uint32_t x = (uint32_t)(base_splitmix64(&seed) >> 33);
            if (n > 0 && (n == 14 || x % 3 == 0)) {
                uint32_t k = 1 + x / 3 % n;
                retire(&r, k);
                for (uint32_t i = 0; i < k; i++) sum -= live_bytes[i];
                memmove(live_bytes, live_bytes + k, (n - k) * sizeof *live_bytes);
                n -= k;
                continue;
            }
            uint64_t req = (uint64_t)(x >> 4) % 66 * 64; /* 0 .. 4160: some over the heap */
            uint64_t avail = rt_heap_available(&r.heap);
            uint64_t off;
            uint32_t id;
            rt_alloc_result res = try_alloc(&r, req, &id, &off);
            if (req > 4096) assert_int_equal(res, RT_ALLOC_NEVER);
            else if (req <= avail) assert_int_equal(res, RT_ALLOC_OK);
            else assert_int_equal(res, RT_ALLOC_WAIT_HEAP);
            if (res == RT_ALLOC_OK) {
                assert_true(off + req <= 4096);
                live_bytes[n++] = req;
                sum += req;
            }
            assert_true(rt_heap_used(&r.heap) >= sum); /* plus bytes wasted at a wrap */
            assert_true(rt_heap_used(&r.heap) <= 4096);
            check_used_identity(&r.heap);
        }
        rt_ring_destroy(&r);
    }
}

static void test_heap_rebase_anchor(void **state)
{
    (void)state;
    rt_ring r;
    ring_new(&r, 0);
    uint32_t t0 = alloc_ok(&r, 1024, NULL);
    uint32_t t1 = alloc_ok(&r, 0, NULL); /* zero-byte, packed_end 1024 */
    assert_int_equal(rt_ring_slot(&r, t1)->packed_end, 1024);
    retire(&r, 1); /* t0 */
    assert_int_equal(t0, 0);
    assert_int_equal(r.heap.top, 1024);
    assert_int_equal(r.heap.tail, 1024);

    uint64_t off = 1;
    uint32_t anchor = alloc_ok(&r, 64, &off); /* case E */
    assert_int_equal(off, 0);
    assert_int_equal(r.heap.top, 64);
    assert_int_equal(r.heap.tail, 0);
    assert_int_equal(rt_heap_used(&r.heap), 64);
    uint64_t reclaimed = rt_heap_reclaim_total(&r.heap);

    retire(&r, 1); /* t1: older than the anchor, its mark (1024) is ignored */
    assert_int_equal(ring_last_alive(&r), anchor);
    assert_int_equal(r.heap.tail, 0);
    assert_int_equal(r.heap.top, 64);
    assert_int_equal(rt_heap_used(&r.heap), 64);
    assert_int_equal(rt_heap_reclaim_total(&r.heap), reclaimed);
    assert_int_equal(rt_heap_available(&r.heap), 4096 - 64);

    /* Placements after the anchor still go on from 64. */
    uint32_t t3 = alloc_ok(&r, 128, &off);
    assert_int_equal(off, 64);

    retire(&r, 1); /* the anchor */
    assert_int_equal(r.heap.tail, 64);
    assert_int_equal(rt_heap_used(&r.heap), 128);
    retire(&r, 1); /* t3 */
    assert_int_equal(t3, anchor + 1);
    assert_int_equal(rt_heap_used(&r.heap), 0);
    assert_int_equal(r.heap.tail, 192);
    check_used_identity(&r.heap);
    rt_ring_destroy(&r);

    /* Spec wording: retiring the anchor itself -> used 0. */
    ring_new(&r, 0);
    alloc_ok(&r, 1024, NULL);
    alloc_ok(&r, 0, NULL);
    retire(&r, 1);
    alloc_ok(&r, 64, NULL);
    retire(&r, 1);
    assert_int_equal(rt_heap_used(&r.heap), 64);
    retire(&r, 1);
    assert_int_equal(rt_heap_used(&r.heap), 0);
    assert_int_equal(rt_heap_available(&r.heap), 4096);
    rt_ring_destroy(&r);
}

static void test_heap_available_is_max_not_sum(void **state)
{
    (void)state;
    rt_ring r;

    /* End arc larger: top 3072, tail 512 -> max(1024, 512) = 1024, not 1536. */
    ring_new(&r, 0);
    alloc_ok(&r, 512, NULL);
    alloc_ok(&r, 2560, NULL);
    retire(&r, 1);
    assert_int_equal(r.heap.top, 3072);
    assert_int_equal(r.heap.tail, 512);
    assert_int_equal(rt_heap_available(&r.heap), 1024);
    /* ... and 1024 does fit (at the end), 1088 does not. */
    assert_int_equal(try_alloc(&r, 1088, NULL, NULL), RT_ALLOC_WAIT_HEAP);
    uint64_t off = 0;
    alloc_ok(&r, 1024, &off);
    assert_int_equal(off, 3072);
    rt_ring_destroy(&r);

    /* Begin arc larger: top 3584, tail 2048 -> max(512, 2048) = 2048, not 2560. */
    ring_new(&r, 0);
    alloc_ok(&r, 2048, NULL);
    alloc_ok(&r, 1536, NULL);
    retire(&r, 1);
    assert_int_equal(r.heap.top, 3584);
    assert_int_equal(r.heap.tail, 2048);
    assert_int_equal(rt_heap_available(&r.heap), 2048);
    assert_int_equal(try_alloc(&r, 2560, NULL, NULL), RT_ALLOC_WAIT_HEAP);
    alloc_ok(&r, 1024, &off);
    assert_int_equal(off, 0); /* wrapped into the begin arc */
    rt_ring_destroy(&r);

    /* After a wrap: the wasted [4032, 4096) is not available. */
    ring_new(&r, 0);
    alloc_ok(&r, 2048, NULL);
    alloc_ok(&r, 1984, NULL);
    retire(&r, 1);
    alloc_ok(&r, 128, &off); /* wraps */
    assert_int_equal(off, 0);
    retire(&r, 1); /* tail 4032 */
    assert_int_equal(r.heap.top, 128);
    assert_int_equal(r.heap.tail, 4032);
    assert_int_equal(rt_heap_available(&r.heap), 3904);
    assert_true(rt_heap_available(&r.heap) < 4096 - 128); /* below size - live bytes */
    assert_int_equal(rt_heap_used(&r.heap), 128 + 64);
    rt_ring_destroy(&r);
}

static void test_heap_oversize_fails_at_once(void **state)
{
    (void)state;
    rt_ring r;
    ring_new(&r, 0);
    assert_int_equal(try_alloc(&r, 8192, NULL, NULL), RT_ALLOC_NEVER);
    assert_int_equal(try_alloc(&r, 4097, NULL, NULL), RT_ALLOC_NEVER); /* rounds to 4160 */
    assert_int_equal(rt_ring_live(&r), 0);
    assert_int_equal(r.heap.top, 0);

    /* Never, not wait: also when the heap is busy and the window is full. */
    for (int i = 0; i < 15; i++) alloc_ok(&r, 64, NULL);
    assert_int_equal(try_alloc(&r, 64, NULL, NULL), RT_ALLOC_WAIT_TASK);
    assert_int_equal(try_alloc(&r, 8192, NULL, NULL), RT_ALLOC_NEVER);
    assert_int_equal(try_alloc(&r, UINT64_MAX - 4096, NULL, NULL), RT_ALLOC_NEVER);
    assert_int_equal(rt_ring_live(&r), 15);
    rt_ring_destroy(&r);
}

static void test_window_minus_one(void **state)
{
    (void)state;
    rt_ring r;
    ring_new(&r, 0);
    for (uint32_t i = 0; i < WINDOW - 1; i++) assert_int_equal(alloc_ok(&r, 64, NULL), i);
    assert_int_equal(rt_ring_live(&r), 15);
    assert_int_equal(r.heap.top, 15 * 64);
    assert_int_equal(try_alloc(&r, 64, NULL, NULL), RT_ALLOC_WAIT_TASK);
    assert_int_equal(try_alloc(&r, 0, NULL, NULL), RT_ALLOC_WAIT_TASK);
    assert_int_equal(r.heap.top, 15 * 64); /* the heap was not touched */
    retire(&r, 1);
    assert_int_equal(alloc_ok(&r, 64, NULL), 15);
    assert_int_equal(try_alloc(&r, 64, NULL, NULL), RT_ALLOC_WAIT_TASK);
    rt_ring_destroy(&r);
}

/* Ids cross `boundary` (2^31 or 2^32): slots stay local & 15, order holds. */
static void ids_near(uint32_t boundary)
{
    rt_ring r;
    uint32_t first = boundary - 8;
    ring_new(&r, first);
    assert_int_equal(ring_last_alive(&r), first);

    /* The window fills across the boundary: 15 admitted, the 16th not. */
    uint32_t prev = 0;
    for (uint32_t i = 0; i < WINDOW - 1; i++) {
        uint32_t id = alloc_ok(&r, 64, NULL);
        assert_int_equal(id, first + i);
        assert_ptr_equal(rt_ring_slot(&r, id), &r.slots[id & 15]);
        if (i) {
            assert_true(rt_local_before(prev, id));
            assert_false(rt_local_before(id, prev));
        }
        assert_true(rt_local_before(first, id) || id == first);
        prev = id;
    }
    assert_int_equal(rt_ring_live(&r), 15);
    assert_int_equal(try_alloc(&r, 64, NULL, NULL), RT_ALLOC_WAIT_TASK);
    assert_ptr_equal(rt_ring_slot(&r, boundary - 1), &r.slots[15]);
    assert_ptr_equal(rt_ring_slot(&r, boundary), &r.slots[0]);
    assert_true(rt_local_before(boundary - 1, boundary));
    assert_false(rt_local_before(boundary, boundary - 1));

    /* Retire across the boundary, one at a time. */
    for (uint32_t i = 0; i < 15; i++) {
        retire(&r, 1);
        assert_int_equal(ring_last_alive(&r), first + i + 1);
        assert_int_equal(rt_ring_live(&r), 14 - i);
    }
    assert_int_equal(rt_heap_used(&r.heap), 0);

    /* Keep cycling: 40 more tasks, up to 10 live. */
    for (uint32_t i = 0; i < 40; i++) {
        if (rt_ring_live(&r) == 10) retire(&r, 3);
        uint32_t id = alloc_ok(&r, 64, NULL);
        assert_int_equal(id, first + 15 + i);
        assert_ptr_equal(rt_ring_slot(&r, id), &r.slots[id & 15]);
        assert_true(rt_local_before(prev, id));
        prev = id;
    }
    retire_all(&r);
    assert_int_equal(rt_ring_live(&r), 0);
    assert_int_equal(rt_heap_used(&r.heap), 0);
    rt_ring_destroy(&r);

    /* The case-E anchor across the boundary: the zero-byte task at
     * boundary - 1 is older than the anchor at boundary. */
    ring_new(&r, boundary - 2);
    alloc_ok(&r, 1024, NULL);
    assert_int_equal(alloc_ok(&r, 0, NULL), boundary - 1);
    retire(&r, 1);
    uint64_t off = 1;
    assert_int_equal(alloc_ok(&r, 64, &off), boundary);
    assert_int_equal(off, 0);
    retire(&r, 1);
    assert_int_equal(r.heap.tail, 0);
    assert_int_equal(rt_heap_used(&r.heap), 64);
    retire(&r, 1);
    assert_int_equal(r.heap.tail, 64);
    assert_int_equal(rt_heap_used(&r.heap), 0);
    rt_ring_destroy(&r);
}

static void test_ids_near_int32_max(void **state)
{
    (void)state;
    ids_near(0x80000000u); /* first local 2147483640 */
    ids_near(0u);          /* wrap of the 32-bit counter: first 0xFFFFFFF8 */
}

/* Pseudo-random allocs and retires over several wraps: the monotonic
 * counters never fall, used == alloc_total - reclaim_total, live extents
 * never overlap, and a drained heap has used 0. */
static void test_heap_counters_monotonic(void **state)
{
    (void)state;
    static const uint64_t sizes[] = {0, 1, 64, 100, 512, 1000, 1024, 1984, 2048, 4032};
    rt_ring r;
    ring_new(&r, 0);
    uint64_t lo[WINDOW], hi[WINDOW];
    uint32_t head = 0; /* local id of the oldest live task = lo/hi index base */
    uint64_t prev_alloc = 0, prev_reclaim = 0;
    uint32_t rng = 12345;
    for (int step = 0; step < 3000; step++) {
        rng = rng * 1103515245u + 12345u;
        uint64_t n = sizes[(rng >> 16) % (sizeof sizes / sizeof sizes[0])];
        uint32_t id;
        uint64_t off;
        rt_alloc_result res = try_alloc(&r, n, &id, &off);
        if (res == RT_ALLOC_OK) {
            uint64_t s = rt_heap_request(n);
            lo[id % WINDOW] = off;
            hi[id % WINDOW] = off + s;
            /* no overlap with any other live extent */
            for (uint32_t t = head; t != id; t++) {
                if (s == 0 || hi[t % WINDOW] == lo[t % WINDOW]) continue;
                assert_true(off + s <= lo[t % WINDOW] || hi[t % WINDOW] <= off);
            }
        } else {
            assert_true(res == RT_ALLOC_WAIT_HEAP || res == RT_ALLOC_WAIT_TASK);
            assert_true(rt_ring_live(&r) > 0);
            uint32_t k = 1 + (rng >> 8) % rt_ring_live(&r);
            retire(&r, k);
            head += k;
        }
        if (((rng >> 20) & 63) == 0) { /* drain now and then */
            head += rt_ring_live(&r);
            retire_all(&r);
            assert_int_equal(rt_heap_used(&r.heap), 0);
        }
        const rt_heap *h = &r.heap;
        uint64_t at = rt_heap_alloc_total(h), rt = rt_heap_reclaim_total(h);
        assert_true(at >= prev_alloc);
        assert_true(rt >= prev_reclaim);
        assert_true(at >= rt);
        assert_int_equal(rt_heap_used(h), at - rt);
        assert_true(rt_heap_used(h) <= h->size);
        uint64_t live = 0;
        for (uint32_t t = head; t != ring_cur(&r); t++) live += hi[t % WINDOW] - lo[t % WINDOW];
        assert_true(rt_heap_used(h) >= live);
        assert_true(h->top <= h->size && h->tail <= h->size);
        prev_alloc = at;
        prev_reclaim = rt;
    }
    assert_true(r.heap.alloc_wraps >= 3);
    assert_true(r.heap.reclaim_wraps >= 3);
    head += rt_ring_live(&r);
    retire_all(&r);
    assert_int_equal(rt_heap_used(&r.heap), 0);
    assert_int_equal(rt_heap_alloc_total(&r.heap), rt_heap_reclaim_total(&r.heap));
    assert_true(rt_heap_alloc_total(&r.heap) >= prev_alloc);
    rt_ring_destroy(&r);
}

/* The sanity walk reports each broken invariant it checks. */
static void test_ring_check_finds_broken_state(void **state)
{
    (void)state;
    const char *why;
    rt_ring r;
    ring_new(&r, 0);
    alloc_ok(&r, 1024, NULL);
    r.heap.top = HEAP + 64;
    assert_int_equal(rt_ring_check(&r, &why), -1);
    assert_string_equal(why, "heap cursor past the heap");
    r.heap.top = 1024; /* restored */
    assert_int_equal(rt_ring_check(&r, &why), 0);
    r.heap.tail = 2048; /* reclaimed past the allocation */
    assert_int_equal(rt_ring_check(&r, &why), -1);
    assert_string_equal(why, "heap reclaimed more than allocated");
    r.heap.tail = 0;
    atomic_store(&r.last_alive, 5); /* watermark ahead of cur (1) */
    assert_int_equal(rt_ring_check(&r, &why), -1);
    assert_string_equal(why, "watermark past the current task");
    atomic_store(&r.last_alive, 0);
    r.deps.tail = r.deps.top + 1;
    assert_int_equal(rt_ring_check(&r, &why), -1);
    assert_string_equal(why, "dep pool counters out of range");
    rt_ring_destroy(&r);
}

/* Zero-fill (docs/runtime.md, "Heap placement"): the dirty mark is the end of
 * the highest byte ever placed; an allocation clears only its part below the
 * mark as it was before it (reused bytes) and never touches the fresh part. */
static void test_heap_zero_reused_clears_only_bytes_below_the_dirty_mark(void **state)
{
    (void)state;
    rt_ring r;
    ring_new(&r, 0);
    assert_int_equal(r.heap.dirty, 0);
    uint64_t off;
    alloc_ok(&r, 1000, &off); /* [0, 1024) */
    assert_int_equal(off, 0);
    assert_int_equal(r.heap.dirty, 1024);
    memset(r.heap.base, 0x5a, 3072); /* the task wrote its bytes; a sentinel past them */
    retire_all(&r);
    uint64_t dirty = r.heap.dirty;
    alloc_ok(&r, 2048, &off); /* case E: at 0 again, [0, 1024) reused, [1024, 2048) fresh */
    assert_int_equal(off, 0);
    assert_int_equal(r.heap.dirty, 2048);
    rt_heap_zero_reused(&r.heap, dirty, off, 2048);
    for (uint64_t i = 0; i < 1024; i++) assert_int_equal(r.heap.base[i], 0);
    for (uint64_t i = 1024; i < 3072; i++) assert_int_equal((unsigned char)r.heap.base[i], 0x5a); /* not touched */
    /* only the asked-for bytes of a reused block */
    memset(r.heap.base, 0x5a, 2048);
    retire_all(&r);
    dirty = r.heap.dirty;
    alloc_ok(&r, 64, &off);
    rt_heap_zero_reused(&r.heap, dirty, off, 10);
    for (uint64_t i = 0; i < 10; i++) assert_int_equal(r.heap.base[i], 0);
    assert_int_equal((unsigned char)r.heap.base[10], 0x5a);
    assert_int_equal(r.heap.dirty, 2048); /* the mark never goes back */
    rt_ring_destroy(&r);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_ring_check_finds_broken_state),
    cmocka_unit_test(test_ring_fresh_and_bump),
    cmocka_unit_test(test_heap_zero_size),
    cmocka_unit_test(test_window_slots_cycle),
    cmocka_unit_test(test_heap_empty_after_retire),
    cmocka_unit_test(test_heap_empty_restarts_at_zero),
    cmocka_unit_test(test_heap_wrap),
    cmocka_unit_test(test_heap_exact_fit_end),
    cmocka_unit_test(test_heap_wrap_fills_tail_exactly),
    cmocka_unit_test(test_heap_gap_fills_exactly),
    cmocka_unit_test(test_heap_exact_fill_after_wrap),
    cmocka_unit_test(test_heap_fits_iff_available),
    cmocka_unit_test(test_heap_rebase_anchor),
    cmocka_unit_test(test_heap_available_is_max_not_sum),
    cmocka_unit_test(test_heap_oversize_fails_at_once),
    cmocka_unit_test(test_window_minus_one),
    cmocka_unit_test(test_ids_near_int32_max),
    cmocka_unit_test(test_heap_counters_monotonic),
    cmocka_unit_test(test_heap_zero_reused_clears_only_bytes_below_the_dirty_mark),
};

PTO_TEST_MAIN(tests)
