/*
 * test_tensormap.c - the tensormap's bookkeeping: stale entries, cleanup,
 * cover removal, completed-reader pruning, the pool running out; lookups
 * that find exactly what a brute-force overlap scan finds, at a cost that
 * follows the overlapping entries, not the entries of the allocation; the
 * envelope that answers a sweep's lookups without a probe, and stays exact.
 */
#include "harness.h"
#include "tensormap_util.h"
#include "testutil.h"

static rt_tm_key tm_box(void *addr, int64_t offset, uint64_t n)
{
    pto_view v = pto_view_1d(addr, 4, offset, n, PTO_INVALID_TASK_ID);
    return tm_key_of(&v);
}

static void test_stale_entries(void **state)
{
    (void)state;
    static char buf[4096];
    rt_ring rings[PTO_NUM_RINGS];
    rt_tensormap tm;
    tm_rings(rings, &tm, 3);
    rt_tm_key b = tm_box(buf, 0, 16);
    rt_tm_insert(&tm, &b, rt_task_id(0, 0), 1);
    rt_tm_insert(&tm, &b, rt_task_id(0, 1), 1);
    rt_tm_insert(&tm, &b, rt_task_id(1, 0), 1);
    atomic_store(&rings[0].last_alive, 1); /* (0,0) retired */
    rt_tm_refresh(&tm);
    tm_nfound = 0;
    rt_tm_lookup(&tm, &b, RT_TM_WRITERS, 0, tm_note, NULL);
    assert_int_equal(tm_nfound, 2); /* (0,0) skipped; a stale ring-0 entry hides nothing on ring 1 */
    assert_true(tm_found[0] == rt_task_id(1, 0));
    assert_true(tm_found[1] == rt_task_id(0, 1));

    /* cleanup frees exactly the retired ids */
    assert_int_equal(tm.used, 3);
    rt_tm_cleanup_due(&tm, 0, 16); /* slot of 16 is slot 0: due */
    assert_int_equal(tm.used, 2);
    assert_int_equal(rings[0].tm_cleanup_cursor, 1);
    tm_done(rings, &tm);
}

static void test_cover_removes_entries(void **state)
{
    (void)state;
    static char buf[4096];
    rt_ring rings[PTO_NUM_RINGS];
    rt_tensormap tm;
    tm_rings(rings, &tm, 4);
    rt_tm_key small = tm_box(buf, 16, 16), big = tm_box(buf, 0, 64), part = tm_box(buf, 24, 64);
    /* a covering writer frees the reader entry it covers */
    rt_tm_insert(&tm, &small, rt_task_id(0, 0), 0);
    tm_nfound = 0;
    rt_tm_lookup(&tm, &big, RT_TM_WRITERS | RT_TM_READERS, 1, tm_note, NULL);
    assert_int_equal(tm_nfound, 1);
    assert_int_equal(tm.used, 0);
    /* a partial overlap keeps it */
    rt_tm_insert(&tm, &small, rt_task_id(0, 1), 0);
    tm_nfound = 0;
    rt_tm_lookup(&tm, &part, RT_TM_WRITERS | RT_TM_READERS, 1, tm_note, NULL);
    assert_int_equal(tm_nfound, 1);
    assert_int_equal(tm.used, 1);
    /* a completed reader is pruned and yields no edge */
    atomic_store(&rt_ring_slot(&rings[0], 1)->state, RT_TASK_COMPLETED);
    tm_nfound = 0;
    rt_tm_lookup(&tm, &big, RT_TM_WRITERS | RT_TM_READERS, 1, tm_note, NULL);
    assert_int_equal(tm_nfound, 0);
    assert_int_equal(tm.used, 0);
    assert_int_equal(rt_ring_slot(&rings[0], 1)->tm_head, 0);
    tm_done(rings, &tm);
}

static void test_readers_never_wait_for_readers(void **state)
{
    (void)state;
    static char buf[4096];
    rt_ring rings[PTO_NUM_RINGS];
    rt_tensormap tm;
    tm_rings(rings, &tm, 3);
    rt_tm_key b = tm_box(buf, 0, 64);
    rt_tm_insert(&tm, &b, rt_task_id(0, 0), 0);
    rt_tm_insert(&tm, &b, rt_task_id(0, 1), 0);
    tm_nfound = 0;
    rt_tm_lookup(&tm, &b, RT_TM_WRITERS, 0, tm_note, NULL); /* an IN lookup */
    assert_int_equal(tm_nfound, 0);
    rt_tm_lookup(&tm, &b, RT_TM_WRITERS | RT_TM_READERS, 1, tm_note, NULL); /* a writer: 2 WAR */
    assert_int_equal(tm_nfound, 2);
    tm_done(rings, &tm);
}

/* 32 IN views of distinct buffers per task, tasks held by the gate, until
 * the 65536-entry pool is short: TENSORMAP_OVERFLOW after the stall bound. */
static void test_tensormap_overflow(void **state)
{
    (void)state;
    enum { BUFS = 32 };
    static float bufs[BUFS][16];
    tu_gate_reset();
    pto_runtime *rt = make_rt_rings(4096, 0, 0, 2, 300) /* workers on every core: the orchestrator never runs a gated kernel */;
    pto_arg args[BUFS];
    for (int i = 0; i < BUFS; i++)
        args[i] = (pto_arg){PTO_ARG_IN, pto_view_1d(bufs[i], 4, 0, 16, PTO_INVALID_TASK_ID)};
    pto_task t = {.kernel = tu_latch_kernel, .name = "reader", .args = args, .num_args = BUFS};
    int rc = 0, scopes = 0;
    /* 4 rings x 4095 live tasks x 32 entries > 65536: the pool runs out first. */
    for (int s = 0; s < 40 && !rc; s++) {
        rc = pto_scope_begin(rt, PTO_SCOPE_AUTO, __FILE__, __LINE__);
        if (!rc) scopes++;
        for (int i = 0; i < 1000 && !rc; i++) rc = pto_task_submit(rt, &t, NULL);
        if (!rc) rc = pto_scope_end(rt), scopes--;
    }
    assert_int_equal(rc, -PTO_TENSORMAP_OVERFLOW);
    expect_frag(rt, "FATAL: TensorMap Entry Pool Deadlock Detected!");
    expect_frag(rt, "/ 65536");
    expect_frag(rt, "No progress anywhere for");
    atomic_store(&tu_gate, 1);
    assert_int_equal(pto_runtime_finish(rt), -PTO_TENSORMAP_OVERFLOW);
    tu_submit(rt, NULL, NULL, 0);
    assert_int_equal(pto_runtime_finish(rt), 0);
    pto_runtime_destroy(rt);
}


/* Random inserts and lookups (IN: writers; INOUT: writers and readers,
 * removing covered entries): each lookup reports, per kind, the same tasks
 * as a scan of every live entry with rt_overlap_classify, and cover removal
 * frees exactly the covered ones. */
static void test_tensormap_lookup_matches_brute_force(void **state)
{
    (void)state;
    enum { OPS = 400, RUNS = 60 };
    static char mem[2][4096];
    char *bufs[2] = {mem[0], mem[1]};
    static pto_view views[OPS];
    static tm_shadow shadow[OPS];
    uint64_t seed = 0x5eedu;
    for (int run = 0; run < RUNS; run++) {
        rt_ring rings[PTO_NUM_RINGS];
        rt_tensormap tm;
        tm_rings(rings, &tm, 15);
        int n = 0, live = 0;
        for (int op = 0; op < OPS; op++) {
            views[op] = tm_random_view(&seed, bufs);
            rt_tm_key k = tm_key_at(&views[op]);
            if (tm_rand(&seed) % 2) { /* insert */
                pto_task_id task = rt_task_id((int)(tm_rand(&seed) % 4), (uint32_t)(tm_rand(&seed) % 15));
                int writer = (int)(tm_rand(&seed) % 2);
                rt_tm_insert(&tm, &k, task, writer);
                shadow[n++] = (tm_shadow){&views[op], task, writer, 1};
                live++;
                assert_int_equal(tm.used, live);
                continue;
            }
            tm_check_lookup(&tm, &k, shadow, n, (int)(tm_rand(&seed) % 2), 0, &live);
            assert_int_equal(tm.used, live);
        }
        tm_done(rings, &tm);
    }
}

/* 8192 disjoint tiles of one allocation (1-d 64-byte slices, row tiles and
 * column tiles of a 4096 x 4096 matrix): looking up one tile examines a
 * handful of entries, as with 64 tiles, and finds only its own. */
static void test_tensormap_lookup_cost_follows_overlap(void **state)
{
    (void)state;
    enum { TILES = 8192 };
    static pto_view views[TILES];
    char *addr = (char *)(uintptr_t)0x10000000; /* never dereferenced */
    for (int shape = 0; shape < 3; shape++) {
        for (int tiles = 64; tiles <= TILES; tiles *= 128) {
            rt_ring rings[PTO_NUM_RINGS];
            rt_tensormap tm;
            tm_rings(rings, &tm, 15);
            for (int i = 0; i < tiles; i++) {
                if (shape == 0) views[i] = pto_view_1d(addr, 4, 16 * (int64_t)i, 16, PTO_INVALID_TASK_ID);
                else if (shape == 1) /* rows: two tiles of 2048 columns per row */
                    views[i] = pto_view_2d(addr, 4, (int64_t)(i / 2) * 4096 + (i % 2) * 2048, 1, 2048, 4096,
                                           PTO_INVALID_TASK_ID);
                else /* columns: two tiles of 2048 rows per column */
                    views[i] = pto_view_2d(addr, 4, (int64_t)(i % 2) * 2048 * 4096 + i / 2, 2048, 1, 4096,
                                           PTO_INVALID_TASK_ID);
                rt_tm_key k = tm_key_at(&views[i]);
                rt_tm_insert(&tm, &k, rt_task_id(i % 4, (uint32_t)(i / 4 % 15)), 1);
            }
            tm.visits = 0;
            for (int j = 0; j < 100; j++) {
                int i = (int)((uint64_t)j * 7919 % (uint64_t)tiles);
                rt_tm_key k = tm_key_at(&views[i]);
                tm_nfound = 0;
                rt_tm_lookup(&tm, &k, RT_TM_WRITERS, 0, tm_note, NULL);
                assert_int_equal(tm_nfound, 1);
            }
            /* cells probed: the tile's own and the one before, per dimension */
            assert_true(tm.visits <= 100 * 8);
            tm_done(rings, &tm);
        }
    }
}

/* ---- the envelope (the fast path) ------------------------------------------ */

/* Tile i of a sweep over a 64 x 64 FP32 matrix (or 4096 floats) in four
 * quarters: 1-d slices of 16, rows of 16 (1 x 16; every row of a quarter of
 * the columns, then the next quarter) or columns of 16 (16 x 1; every column
 * of a quarter of the rows, then the next).  A turn to the next quarter
 * takes another envelope box. */
static pto_view tm_sweep_tile(void *addr, int shape, int i)
{
    int64_t line = i % 64, quarter = i / 64;
    if (shape == 0) return pto_view_1d(addr, 4, 16 * (int64_t)i, 16, PTO_INVALID_TASK_ID);
    if (shape == 1) return pto_view_2d(addr, 4, line * 64 + quarter * 16, 1, 16, 64, PTO_INVALID_TASK_ID);
    return pto_view_2d(addr, 4, quarter * 16 * 64 + line, 16, 1, 64, PTO_INVALID_TASK_ID);
}

/* Each tile of a sweep, looked up (as a writer) before it is inserted,
 * examines no entry once its allocation is indexed: the envelope answers,
 * across the quarter turns too; every tile is then found by itself. */
static void test_tensormap_envelope_sweep_lookups_visit_no_entry(void **state)
{
    (void)state;
    enum { TILES = 256 };
    static pto_view views[TILES];
    char *addr = (char *)(uintptr_t)0x10000000; /* never dereferenced */
    for (int shape = 0; shape < 3; shape++) {
        rt_ring rings[PTO_NUM_RINGS];
        rt_tensormap tm;
        tm_rings(rings, &tm, 15);
        for (int i = 0; i < TILES; i++) {
            views[i] = tm_sweep_tile(addr, shape, i);
            rt_tm_key k = tm_key_at(&views[i]);
            tm.visits = 0;
            tm_nfound = 0;
            rt_tm_lookup(&tm, &k, RT_TM_WRITERS | RT_TM_READERS, 1, tm_note, NULL);
            assert_int_equal(tm_nfound, 0);
            if (i >= RT_TM_INDEX_AT) assert_int_equal(tm.visits, 0);
            rt_tm_insert(&tm, &k, rt_task_id(0, (uint32_t)(i % 15)), 1);
        }
        for (int i = 0; i < TILES; i++) {
            rt_tm_key k = tm_key_at(&views[i]);
            tm_nfound = 0;
            rt_tm_lookup(&tm, &k, RT_TM_WRITERS, 0, tm_note, NULL);
            assert_int_equal(tm_nfound, 1);
            assert_true(tm_found[0] == rt_task_id(0, (uint32_t)(i % 15)));
        }
        tm_done(rings, &tm);
    }
}

/* A box retires with its newest task, unless it holds tasks of two rings:
 * rows of ring 0's task (0,0), one of ring 1's beside them, a turn to the
 * next quarter by (0,5); once (0,0) retired the first box still answers for
 * ring 1's row, and a box of ring 0 alone no longer hides anything. */
static void test_tensormap_envelope_box_of_two_rings_never_retires(void **state)
{
    (void)state;
    static pto_view views[24];
    char *addr = (char *)(uintptr_t)0x10000000;
    rt_ring rings[PTO_NUM_RINGS];
    rt_tensormap tm;
    tm_rings(rings, &tm, 15);
    for (int i = 0; i < 24; i++) {
        views[i] = tm_sweep_tile(addr, 1, i < 21 ? i : 64 + i - 21); /* rows 0..20, then row 0.. of quarter 1 */
        rt_tm_key k = tm_key_at(&views[i]);
        rt_tm_insert(&tm, &k, i < 20 ? rt_task_id(0, 0) : i == 20 ? rt_task_id(1, 0) : rt_task_id(0, 5), 1);
    }
    atomic_store(&rings[0].last_alive, 3); /* (0,0) retired */
    rt_tm_refresh(&tm);
    rt_tm_key k = tm_key_of(&views[20]);
    tm_nfound = 0;
    rt_tm_lookup(&tm, &k, RT_TM_WRITERS, 0, tm_note, NULL);
    assert_int_equal(tm_nfound, 1);
    assert_true(tm_found[0] == rt_task_id(1, 0));
    k = tm_key_of(&views[3]);
    tm.visits = 0;
    tm_nfound = 0;
    rt_tm_lookup(&tm, &k, RT_TM_WRITERS, 0, tm_note, NULL);
    assert_int_equal(tm_nfound, 0);
    tm_done(rings, &tm);
}

/* RT_TM_ENV_MISSES lookups in a row inside a live box (reading the tiles the last tasks wrote:
 * B2's graph on one tensor) stop the boxes: then a lookup the boxes would answer probes its
 * cells, and every lookup still finds its entries.  A lookup the boxes answer resets the count:
 * one miss fewer keeps them.  Rows 0..31 of quarter 0 are written; row 0 of quarter 1 is apart
 * from their box in columns but inside their byte range. */
static void test_tensormap_envelope_stops_after_lookups_inside_its_boxes(void **state)
{
    (void)state;
    static pto_view views[32], inside, apart;
    char *addr = (char *)(uintptr_t)0x10000000;
    rt_ring rings[PTO_NUM_RINGS];
    rt_tensormap tm;
    tm_rings(rings, &tm, 15);
    for (int i = 0; i < 32; i++) {
        views[i] = tm_sweep_tile(addr, 1, i);
        rt_tm_key k = tm_key_at(&views[i]);
        rt_tm_insert(&tm, &k, rt_task_id(0, (uint32_t)(i % 15)), 1);
    }
    inside = views[5], apart = tm_sweep_tile(addr, 1, 64);
    for (int round = 0; round < 3; round++) { /* one miss fewer, again (after the restart), then exactly */
        int misses = round < 2 ? RT_TM_ENV_MISSES - 1 : RT_TM_ENV_MISSES;
        for (int m = 0; m < misses; m++) {
            rt_tm_key k = tm_key_at(&inside);
            tm_nfound = 0;
            rt_tm_lookup(&tm, &k, RT_TM_WRITERS, 0, tm_note, NULL);
            assert_int_equal(tm_nfound, 1);
            assert_true(tm_found[0] == rt_task_id(0, 5));
        }
        rt_tm_key k = tm_key_at(&apart);
        tm.visits = 0;
        tm_nfound = 0;
        rt_tm_lookup(&tm, &k, RT_TM_WRITERS, 0, tm_note, NULL);
        assert_int_equal(tm_nfound, 0);
        if (round < 2) assert_int_equal(tm.visits, 0); /* the boxes still answer (and the count restarts) */
        else assert_true(tm.visits > 0);                /* stopped: the cells are probed */
    }
    tm_done(rings, &tm);
}

/* Sweeps (rows or columns, turning corners) mixed with random boxes of their
 * layout in one buffer and random views of other layouts in two others,
 * tasks of ring 0 retiring as they go (so envelope boxes retire and are
 * taken again) and of ring 1 never: every lookup reports exactly the live
 * entries a brute-force scan finds. */
static void test_tensormap_envelope_matches_brute_force(void **state)
{
    (void)state;
    enum { OPS = 600, RUNS = 40 };
    static char mem[3][16384];
    char *bufs[3] = {mem[0], mem[1], mem[2]};
    static pto_view views[OPS];
    static tm_shadow shadow[OPS];
    uint64_t seed = 0xe2e1u;
    for (int run = 0; run < RUNS; run++) {
        rt_ring rings[PTO_NUM_RINGS];
        rt_tensormap tm;
        tm_rings(rings, &tm, 15);
        int n = 0, next = 0, live = 0, shape = 1 + run % 2;
        uint32_t alive = 0;
        for (int op = 0; op < OPS; op++) {
            uint32_t local = (uint32_t)(op * 15 / OPS); /* ring 0's tasks in order */
            if (tm_rand(&seed) % 16 == 0 && alive + 3 < local) { /* the oldest retire */
                alive = local - 3;
                atomic_store(&rings[0].last_alive, alive);
                rt_tm_refresh(&tm);
            }
            uint64_t pick = tm_rand(&seed) % 8;
            if (pick < 5) {
                views[op] = tm_sweep_tile(mem[0], shape, next++ % 256);
            } else if (pick < 7) { /* a random box of the sweep's layout */
                int64_t r = (int64_t)(tm_rand(&seed) % 64), c = (int64_t)(tm_rand(&seed) % 64);
                views[op] = pto_view_2d(mem[0], 4, r * 64 + c, 1 + tm_rand(&seed) % (uint64_t)(64 - r),
                                        1 + tm_rand(&seed) % (uint64_t)(64 - c), 64, PTO_INVALID_TASK_ID);
            } else {
                views[op] = tm_random_view(&seed, bufs + 1); /* other layouts: the other buffer */
            }
            rt_tm_key k = tm_key_at(&views[op]);
            if (tm_rand(&seed) % 2) {
                int ring = tm_rand(&seed) % 3 == 0;
                pto_task_id task = rt_task_id(ring, ring ? (uint32_t)(tm_rand(&seed) % 15) : local);
                int writer = (int)(tm_rand(&seed) % 2);
                rt_tm_insert(&tm, &k, task, writer);
                shadow[n++] = (tm_shadow){&views[op], task, writer, 1};
                continue;
            }
            tm_check_lookup(&tm, &k, shadow, n, (int)(tm_rand(&seed) % 2), alive, &live);
        }
        tm_done(rings, &tm);
    }
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_tensormap_lookup_matches_brute_force),
    cmocka_unit_test(test_tensormap_lookup_cost_follows_overlap),
    cmocka_unit_test(test_tensormap_envelope_sweep_lookups_visit_no_entry),
    cmocka_unit_test(test_tensormap_envelope_matches_brute_force),
    cmocka_unit_test(test_tensormap_envelope_stops_after_lookups_inside_its_boxes),
    cmocka_unit_test(test_tensormap_envelope_box_of_two_rings_never_retires),
    cmocka_unit_test(test_stale_entries),
    cmocka_unit_test(test_cover_removes_entries),
    cmocka_unit_test(test_readers_never_wait_for_readers),
    cmocka_unit_test(test_tensormap_overflow),
};

PTO_TEST_MAIN(tests)
