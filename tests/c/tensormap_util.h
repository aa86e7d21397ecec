/*
 * tensormap_util.h - the tensormap tests' fixtures (test_tensormap.c,
 * test_tensormap_run.c): four small rings of pending tasks whose records
 * hold TM_ARGS views each, keys of views, an edge callback that collects
 * the tasks it is given, random views of every layout kind, and a lookup
 * checked against a brute-force scan of every live entry.
 */
#ifndef PTO_TEST_TENSORMAP_UTIL_H
#define PTO_TEST_TENSORMAP_UTIL_H

#include <stdlib.h>

#include "base/prng.h"
#include "harness.h"
#include "runtime/tensormap.h"

enum { TM_ARGS = PTO_MAX_TENSOR_ARGS };
static pto_view tm_records[PTO_NUM_RINGS][16][TM_ARGS];

/* Argument arg of task (ring, local)'s record: a view there is what the runtime inserts. */
static inline pto_view *tm_slot_view(int ring, uint32_t local, int arg)
{
    return &tm_records[ring][local % 16][arg];
}

static pto_task_id tm_found[16];
static int tm_nfound;

static inline int tm_note(void *ctx, pto_task_id id)
{
    (void)ctx;
    assert_true(tm_nfound < 16);
    tm_found[tm_nfound++] = id;
    return 0;
}

/* The same into a caller's array of any size. */
static pto_task_id *tm_found_big;
static inline int tm_note_big(void *ctx, pto_task_id id)
{
    (void)ctx;
    tm_found_big[tm_nfound++] = id;
    return 0;
}

/* Views of the boxes below: a box refers to its view, which must live on. */
static pto_view tm_views[16];
static int tm_nviews;

static inline rt_tm_key tm_key_of(const pto_view *view)
{
    pto_view *v = &tm_views[tm_nviews++ % 16];
    *v = *view;
    rt_tm_key k;
    const char *why;
    assert_int_equal(rt_overlap_box_of(v, &k.box, &why), 0);
    rt_tm_key_init(&k);
    return k;
}

/* The key of a view that outlives it (its box refers to the view). */
static inline rt_tm_key tm_key_at(const pto_view *v)
{
    rt_tm_key k;
    const char *why;
    assert_int_equal(rt_overlap_box_of(v, &k.box, &why), 0);
    rt_tm_key_init(&k);
    return k;
}

/* Four small rings with n (<= 16) tasks each, all PENDING and published,
 * each task's record TM_ARGS views (tm_slot_view). */
static inline void tm_rings(rt_ring *rings, rt_tensormap *tm, int n)
{
    int e;
    for (int r = 0; r < PTO_NUM_RINGS; r++) {
        assert_int_equal(rt_ring_init(&rings[r], r, 16, 4096, 16, 0, NULL), 0);
        for (int i = 0; i < n; i++) {
            uint32_t local;
            uint64_t off;
            assert_int_equal(rt_ring_try_alloc(&rings[r], 0, &local, &off), RT_ALLOC_OK);
            rt_slot *s = rt_ring_slot(&rings[r], local);
            s->tm_head = 0;
            s->views = tm_records[r][local % 16];
            s->num_views = TM_ARGS;
            atomic_store(&s->state, RT_TASK_PENDING);
            rt_ring_publish(&rings[r], local);
        }
    }
    assert_int_equal(rt_tm_init(tm, rings, &e), 0);
    rt_tm_refresh(tm);
}

static inline void tm_done(rt_ring *rings, rt_tensormap *tm)
{
    rt_tm_destroy(tm);
    for (int r = 0; r < PTO_NUM_RINGS; r++) rt_ring_destroy(&rings[r]);
}

static inline uint64_t tm_rand(uint64_t *s) { return base_splitmix64(s) >> 33; }

/* A random view of one of two allocations: tiles of a 2-d or 3-d row-major
 * layout, 1-d ranges, other element sizes, transposed (no box math) and
 * empty views, so every group kind and level mix occurs. */
static inline pto_view tm_random_view(uint64_t *seed, char *bufs[2])
{
    pto_view v = {0};
    v.addr = bufs[tm_rand(seed) % 2];
    v.owner = PTO_INVALID_TASK_ID;
    v.elem_size = tm_rand(seed) % 8 == 0 ? 8 : 4;
    uint64_t kind = tm_rand(seed) % 10;
    if (kind < 3) { /* 1-d */
        v.ndims = 1;
        v.shape[0] = 1 + tm_rand(seed) % 40;
        v.strides[0] = 1;
        v.offset = (int64_t)(tm_rand(seed) % 200);
    } else if (kind < 8) { /* 2-d tiles of a 16 x 24 layout */
        v.ndims = 2;
        int common = tm_rand(seed) % 2; /* one tile shape often: its group gets indexed by cell */
        v.shape[0] = common ? 3 : 1 + tm_rand(seed) % 8;
        v.shape[1] = common ? 5 : 1 + tm_rand(seed) % 12;
        v.strides[0] = 24;
        v.strides[1] = 1;
        uint64_t r = tm_rand(seed) % (17 - v.shape[0]), c = tm_rand(seed) % (25 - v.shape[1]);
        v.offset = (int64_t)(r * 24 + c);
        if (tm_rand(seed) % 16 == 0) v.shape[1] = 0; /* empty */
    } else if (kind < 9) { /* 3-d tiles of a 4 x 6 x 8 layout */
        v.ndims = 3;
        v.strides[0] = 48, v.strides[1] = 8, v.strides[2] = 1;
        uint64_t o = 0;
        for (int d = 0; d < 3; d++) {
            uint64_t ext = d == 0 ? 4 : d == 1 ? 6 : 8;
            v.shape[d] = 1 + tm_rand(seed) % ext;
            o += tm_rand(seed) % (ext - v.shape[d] + 1) * (uint64_t)v.strides[d];
        }
        v.offset = (int64_t)o;
    } else { /* transposed: innermost stride 24, no box math */
        v.ndims = 2;
        v.shape[0] = 1 + tm_rand(seed) % 12;
        v.shape[1] = 1 + tm_rand(seed) % 8;
        v.strides[0] = 1;
        v.strides[1] = 24;
        v.offset = (int64_t)(tm_rand(seed) % 12);
    }
    return v;
}

typedef struct tm_shadow {
    const pto_view *view;
    pto_task_id task;
    int writer, live;
} tm_shadow;

static inline int tm_cmp_id(const void *a, const void *b)
{
    pto_task_id x = *(const pto_task_id *)a, y = *(const pto_task_id *)b;
    return x < y ? -1 : x > y;
}

/* One lookup of k (IN: writers; INOUT: writers, then readers, removing
 * covered entries) checked against a scan of shadow[0, n): it reports, per
 * kind, the tasks of the live entries rt_overlap_classify says overlap
 * (ring 0's tasks before `alive` are stale), and cover removal frees
 * exactly the covered ones (*live counts the entries left). */
static inline void tm_check_lookup(rt_tensormap *tm, rt_tm_key *k, tm_shadow *shadow, int n, int inout, uint32_t alive,
                            int *live)
{
    enum { MAX = 1024 };
    assert_true(n <= MAX);
    for (int kind = 0; kind < 2 && (kind == 0 || inout); kind++) {
        static pto_task_id want[MAX], found[MAX];
        int nwant = 0;
        for (int i = 0; i < n; i++) {
            rt_box b;
            const char *why;
            assert_int_equal(rt_overlap_box_of(shadow[i].view, &b, &why), 0);
            int stale = rt_task_ring(shadow[i].task) == 0 && rt_task_local(shadow[i].task) < alive;
            if (!shadow[i].live || stale || shadow[i].writer != (kind == 0) || b.addr != k->box.addr ||
                rt_overlap_classify(&b, &k->box) == RT_NO_OVERLAP)
                continue;
            want[nwant++] = shadow[i].task;
            if (inout && rt_overlap_classify(&b, &k->box) == RT_COVERED) shadow[i].live = 0, (*live)--;
        }
        tm_nfound = 0;
        tm_found_big = found;
        rt_tm_lookup(tm, k, kind == 0 ? RT_TM_WRITERS : RT_TM_READERS, inout, tm_note_big, NULL);
        assert_int_equal(tm_nfound, nwant);
        qsort(want, (size_t)nwant, sizeof *want, tm_cmp_id);
        qsort(found, (size_t)nwant, sizeof *found, tm_cmp_id);
        assert_memory_equal(want, found, (size_t)nwant * sizeof *want);
    }
}

#endif
