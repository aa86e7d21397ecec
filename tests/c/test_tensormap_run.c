/*
 * test_tensormap_run.c - the tensormap's runs (tensormap_run.h): a sweep's
 * tiles held in one record, found by division, never past the end of a
 * row of the layout, exact against a brute-force
 * scan whatever else the allocation holds; covers at either end drop tiles,
 * one in the middle or a query of another layout unfolds the run into
 * entries; retired tiles leave with the cleanup, completed readers with
 * pressure reclaim; RT_TM_RUNS per allocation and kind and RT_TM_RUN_POOL
 * runs in all, at the limit and one past it; and a sweep submitted through
 * the runtime takes a run, not an entry per tile.
 */
#include "harness.h"
#include "tensormap_util.h"
#include "testutil.h"

#define TR_ADDR ((char *)(uintptr_t)0x10000000) /* never dereferenced */
enum { TR_SLICES, TR_ROWS, TR_COLS };

/* Tile i of a sweep over a 64 x 64 FP32 matrix: 1-d slices of 16, rows
 * (1 x 16) or columns (16 x 1). */
static pto_view tr_tile(void *addr, int shape, int64_t i)
{
    if (shape == TR_SLICES) return pto_view_1d(addr, 4, 16 * i, 16, PTO_INVALID_TASK_ID);
    if (shape == TR_ROWS) return pto_view_2d(addr, 4, i * 64, 1, 16, 64, PTO_INVALID_TASK_ID);
    return pto_view_2d(addr, 4, i, 16, 1, 64, PTO_INVALID_TASK_ID);
}

/* Sixteen writers of ring 3 on boxes of the sweep's layout away from it
 * (views outside any record: entries), so the allocation is indexed, as a
 * run needs.  pre must live as long as the tensormap. */
static void tr_index(rt_tensormap *tm, void *addr, int shape, pto_view *pre, tm_shadow *shadow, int *n)
{
    for (int k = 0; k < RT_TM_INDEX_AT; k++) {
        pre[k] = shape == TR_SLICES ? pto_view_1d(addr, 4, 3840 + 16 * k, 16, PTO_INVALID_TASK_ID)
                 : shape == TR_ROWS ? pto_view_2d(addr, 4, 63 * 64 + 4 * k, 1, 4, 64, PTO_INVALID_TASK_ID)
                                    : pto_view_2d(addr, 4, 48 * 64 + 4 * k, 16, 4, 64, PTO_INVALID_TASK_ID);
        rt_tm_key k0 = tm_key_at(&pre[k]);
        rt_tm_insert(tm, &k0, rt_task_id(3, (uint32_t)k % 15), 1);
        if (shadow) shadow[(*n)++] = (tm_shadow){&pre[k], rt_task_id(3, (uint32_t)k % 15), 1, 1};
    }
}

/* Inserts v as argument arg of task (ring, local): the view goes into the
 * task's record first, as the runtime's do.  Returns the record's view. */
static const pto_view *tr_insert(rt_tensormap *tm, pto_view v, int ring, uint32_t local, int arg, int writer)
{
    pto_view *at = tm_slot_view(ring, local, arg);
    *at = v;
    rt_tm_key k = tm_key_at(at);
    rt_tm_insert(tm, &k, rt_task_id(ring, local), writer);
    return at;
}

/* Looks v up (a writer's lookup: both kinds, covered entries removed, when
 * inout) and returns how many tasks it reported; tm_found has them. */
static int tr_lookup(rt_tensormap *tm, const pto_view *v, int inout)
{
    static pto_view view;
    view = *v;
    rt_tm_key k = tm_key_at(&view);
    tm_nfound = 0;
    rt_tm_lookup(tm, &k, inout ? RT_TM_WRITERS | RT_TM_READERS : RT_TM_WRITERS, inout, tm_note, NULL);
    return tm_nfound;
}

/* Four rings and a tensormap whose allocation TR_ADDR is indexed for the
 * layout of shape (tr_index), holding tiles 0..tiles-1 of its sweep, tile i
 * as argument 0 of ring 0's task i (writers, or readers). */
static void tr_start(rt_ring *rings, rt_tensormap *tm, int shape, uint32_t tiles, int writer)
{
    static pto_view pre[RT_TM_INDEX_AT];
    tm_rings(rings, tm, 15);
    tr_index(tm, TR_ADDR, shape, pre, NULL, NULL);
    for (uint32_t i = 0; i < tiles; i++) tr_insert(tm, tr_tile(TR_ADDR, shape, i), 0, i, 0, writer);
}

static int tr_runs_in_use(const rt_tensormap *tm)
{
    int n = 0;
    for (uint32_t ri = tm->run_head; ri; ri = tm->runs[ri].next) n++;
    return n;
}

/* 15 tiles of a sweep by ring 0's tasks 0..14 after 16 entries: one run,
 * no entry; each tile's lookup examines one tile and finds its task (so do
 * its first and its last element's), the next tile's examines nothing. */
static void test_tensormap_run_holds_a_sweep_in_one_record(void **state)
{
    (void)state;
    for (int shape = TR_SLICES; shape <= TR_COLS; shape++) {
        rt_ring rings[PTO_NUM_RINGS];
        rt_tensormap tm;
        tr_start(rings, &tm, shape, 15, 1);
        assert_int_equal(tm.used, RT_TM_INDEX_AT + 15);
        assert_int_equal(tm.writers, RT_TM_INDEX_AT + 15);
        assert_int_equal(tm.bumped, RT_TM_INDEX_AT); /* entries taken: the first sixteen only */
        assert_int_equal(tm.runs_bumped, 1);
        for (uint32_t i = 0; i < 15; i++) {
            pto_view v = tr_tile(TR_ADDR, shape, i);
            tm.visits = 0;
            assert_int_equal(tr_lookup(&tm, &v, 0), 1);
            assert_true(tm_found[0] == rt_task_id(0, i));
            assert_int_equal(tm.visits, 1);
            for (int end = 0; end < 2; end++) { /* its first element, its last */
                pto_view e = v;
                for (uint32_t d = 0; d < v.ndims; d++) {
                    if (end) e.offset += (int64_t)(v.shape[d] - 1) * v.strides[d];
                    e.shape[d] = 1;
                }
                assert_int_equal(tr_lookup(&tm, &e, 0), 1);
                assert_true(tm_found[0] == rt_task_id(0, i));
            }
        }
        pto_view next = tr_tile(TR_ADDR, shape, 15);
        tm.visits = 0;
        assert_int_equal(tr_lookup(&tm, &next, 1), 0);
        assert_int_equal(tm.visits, 0);
        tm_done(rings, &tm);
    }
}

/* Tiles of 1 x 16 going right along row 0 of a 64-column layout: the fifth
 * one's offset (64) is row 1, column 0, not the next tile of the run (it
 * has room for four): a lookup of row 1 finds task 4, of row 0's last
 * quarter task 3 only. */
static void test_tensormap_run_stays_inside_its_rows(void **state)
{
    (void)state;
    rt_ring rings[PTO_NUM_RINGS];
    rt_tensormap tm;
    tr_start(rings, &tm, TR_ROWS, 0, 1);
    for (uint32_t i = 0; i < 8; i++)
        tr_insert(&tm, pto_view_2d(TR_ADDR, 4, 16 * i, 1, 16, 64, PTO_INVALID_TASK_ID), 0, i, 0, 1);
    pto_view row1 = pto_view_2d(TR_ADDR, 4, 64, 1, 16, 64, PTO_INVALID_TASK_ID);
    assert_int_equal(tr_lookup(&tm, &row1, 0), 1);
    assert_true(tm_found[0] == rt_task_id(0, 4));
    pto_view quarter = pto_view_2d(TR_ADDR, 4, 48, 1, 16, 64, PTO_INVALID_TASK_ID);
    assert_int_equal(tr_lookup(&tm, &quarter, 0), 1);
    assert_true(tm_found[0] == rt_task_id(0, 3));
    tm_done(rings, &tm);
}

/* Rows 0..3 (1 x 16) are a run.  Task 4's box of rows 4..5 starts where
 * the next tile would but is not of the run's shape; its row 10 is of the
 * shape but not where the next tile would be: neither joins the run, and
 * each is found where it is. */
static void test_tensormap_run_takes_only_its_next_tile(void **state)
{
    (void)state;
    for (int c = 0; c < 2; c++) {
        rt_ring rings[PTO_NUM_RINGS];
        rt_tensormap tm;
        tr_start(rings, &tm, TR_ROWS, 4, 1);
        pto_view next = c ? tr_tile(TR_ADDR, TR_ROWS, 10)
                          : pto_view_2d(TR_ADDR, 4, 4 * 64, 2, 16, 64, PTO_INVALID_TASK_ID);
        tr_insert(&tm, next, 0, 4, 0, 1);
        pto_view at = tr_tile(TR_ADDR, TR_ROWS, c ? 10 : 5), row4 = tr_tile(TR_ADDR, TR_ROWS, 4);
        assert_int_equal(tr_lookup(&tm, &at, 0), 1);
        assert_true(tm_found[0] == rt_task_id(0, 4));
        assert_int_equal(tr_lookup(&tm, &row4, 0), !c);
        tm_done(rings, &tm);
    }
}

/* Ring 0's tasks put sweeps (each argument its own, of random start, one
 * row or column or slice further per task) mixed with random boxes of the
 * layout and views of other layouts, on one allocation, into their records;
 * other rings add entries; lookups of every kind (cover removal too)
 * report exactly what a brute-force scan of the live entries finds, while
 * ring 0's oldest tasks retire, reader runs unfold under pressure reclaim
 * and retired tiles leave with the cleanup.  Without retirement `used`
 * counts exactly the live entries and tiles. */
static void test_tensormap_run_matches_brute_force(void **state)
{
    (void)state;
    enum { RUNS = 120, OPS = 1024 };
    static char mem[2][16384];
    char *bufs[2] = {mem[0], mem[1]};
    static pto_view pre[RT_TM_INDEX_AT], views[OPS];
    static tm_shadow shadow[OPS];
    uint64_t seed = 0x7a11u;
    long runs_made = 0;
    for (int run = 0; run < RUNS; run++) {
        rt_ring rings[PTO_NUM_RINGS];
        rt_tensormap tm;
        tm_rings(rings, &tm, 15);
        int n = 0, live = 0, nv = 0, shape = run % 3, retire = run % 2;
        uint32_t alive = 0;
        tr_index(&tm, mem[0], shape, pre, shadow, &n);
        live = n;
        int64_t start[4];
        int writer_of[4];
        for (int a = 0; a < 4; a++) start[a] = (int64_t)(tm_rand(&seed) % 40), writer_of[a] = (int)(tm_rand(&seed) % 2);
        for (uint32_t l = 0; l < 15; l++) {
            for (int a = 0; a < 4; a++) {
                uint64_t pick = tm_rand(&seed) % 10;
                pto_view v;
                if (pick < 7) v = tr_tile(mem[0], shape, start[a] + l);
                else if (pick < 9) {
                    int64_t r = (int64_t)(tm_rand(&seed) % 64), c = (int64_t)(tm_rand(&seed) % 64);
                    v = shape == TR_SLICES ? pto_view_1d(mem[0], 4, r * 64 + c, 1 + tm_rand(&seed) % 40,
                                                         PTO_INVALID_TASK_ID)
                                           : pto_view_2d(mem[0], 4, r * 64 + c, 1 + tm_rand(&seed) % (uint64_t)(64 - r),
                                                         1 + tm_rand(&seed) % (uint64_t)(64 - c), 64,
                                                         PTO_INVALID_TASK_ID);
                } else {
                    v = tm_random_view(&seed, bufs);
                }
                int writer = tm_rand(&seed) % 8 ? writer_of[a] : !writer_of[a];
                const pto_view *at = tr_insert(&tm, v, 0, l, a, writer);
                shadow[n++] = (tm_shadow){at, rt_task_id(0, l), writer, 1};
                live++;
            }
            if (tm_rand(&seed) % 2) { /* an entry of another ring */
                views[nv] = tr_tile(mem[0], shape, (int64_t)(tm_rand(&seed) % 60));
                rt_tm_key k = tm_key_at(&views[nv]);
                pto_task_id task = rt_task_id(1 + (int)(tm_rand(&seed) % 2), (uint32_t)(tm_rand(&seed) % 15));
                int writer = (int)(tm_rand(&seed) % 2);
                rt_tm_insert(&tm, &k, task, writer);
                shadow[n++] = (tm_shadow){&views[nv++], task, writer, 1};
                live++;
            }
            for (int q = 0; q < 6; q++) {
                uint64_t pick = tm_rand(&seed) % 8;
                if (pick < 4) views[nv] = tr_tile(mem[0], shape, (int64_t)(tm_rand(&seed) % 60));
                else if (pick < 6) { /* a box over several tiles */
                    int64_t r = (int64_t)(tm_rand(&seed) % 60);
                    views[nv] = shape == TR_SLICES ? pto_view_1d(mem[0], 4, 16 * r, 16 * (1 + tm_rand(&seed) % 4),
                                                                 PTO_INVALID_TASK_ID)
                                : shape == TR_ROWS ? pto_view_2d(mem[0], 4, r * 64, 1 + tm_rand(&seed) % 4, 16, 64,
                                                                 PTO_INVALID_TASK_ID)
                                                   : pto_view_2d(mem[0], 4, r, 16, 1 + tm_rand(&seed) % 4, 64,
                                                                 PTO_INVALID_TASK_ID);
                } else views[nv] = tm_random_view(&seed, bufs);
                rt_tm_key k = tm_key_at(&views[nv++]);
                tm_check_lookup(&tm, &k, shadow, n, (int)(tm_rand(&seed) % 2), alive, &live);
                if (!retire) assert_int_equal(tm.used, live);
            }
            if (retire && l > 3 && tm_rand(&seed) % 3 == 0) { /* the oldest retire; cleanup or reclaim */
                alive = l - 3;
                atomic_store(&rings[0].last_alive, alive);
                rt_tm_refresh(&tm);
                if (tm_rand(&seed) % 2) rt_tm_cleanup_due(&tm, 0, alive + 16);
                else rt_tm_reclaim_all(&tm);
            }
        }
        runs_made += tm.runs_bumped;
        tm_done(rings, &tm);
    }
    assert_true(runs_made > RUNS); /* the sweeps did take runs */
}

/* A run of 15 rows: a partial overlap of the last row drops nothing; a
 * writer covering the last row or the first drops it from the run; one
 * covering a middle row, once tasks 0..2 retired, unfolds the run (its 11
 * live rows become entries, the covered one then freed); every other live
 * row is still found by its task. */
static void test_tensormap_run_cover_at_an_end_shrinks_in_the_middle_unfolds(void **state)
{
    (void)state;
    rt_ring rings[PTO_NUM_RINGS];
    rt_tensormap tm;
    tr_start(rings, &tm, TR_ROWS, 15, 1);
    pto_view half = pto_view_2d(TR_ADDR, 4, 14 * 64, 1, 8, 64, PTO_INVALID_TASK_ID);
    assert_int_equal(tr_lookup(&tm, &half, 1), 1);
    assert_int_equal(tm.used, 31);
    pto_view last = tr_tile(TR_ADDR, TR_ROWS, 14), first = tr_tile(TR_ADDR, TR_ROWS, 0);
    assert_int_equal(tr_lookup(&tm, &last, 1), 1);
    assert_true(tm_found[0] == rt_task_id(0, 14));
    assert_int_equal(tm.used, 30);
    assert_int_equal(tr_lookup(&tm, &first, 1), 1);
    assert_true(tm_found[0] == rt_task_id(0, 0));
    assert_int_equal(tm.used, 29);
    assert_int_equal(tr_runs_in_use(&tm), 1);
    assert_int_equal(tm.bumped, RT_TM_INDEX_AT);
    atomic_store(&rings[0].last_alive, 3); /* tasks 0..2 retired, not yet cleaned */
    rt_tm_refresh(&tm);
    pto_view mid = tr_tile(TR_ADDR, TR_ROWS, 7);
    assert_int_equal(tr_lookup(&tm, &mid, 1), 1);
    assert_true(tm_found[0] == rt_task_id(0, 7));
    assert_int_equal(tr_runs_in_use(&tm), 0);
    assert_int_equal(tm.bumped, RT_TM_INDEX_AT + 11); /* rows 3..13: the live ones */
    assert_int_equal(tm.used, RT_TM_INDEX_AT + 10);
    for (uint32_t i = 0; i < 15; i++) {
        pto_view v = tr_tile(TR_ADDR, TR_ROWS, i);
        int gone = i <= 2 || i == 7 || i == 14;
        assert_int_equal(tr_lookup(&tm, &v, 0), !gone);
        if (!gone) assert_true(tm_found[0] == rt_task_id(0, i));
    }
    tm_done(rings, &tm);
}

/* Two runs, of ring 0's tasks 0..14 and of its even tasks (step 2): once
 * ring 3's entries retired the record stays for the runs; tasks 0..4
 * retiring drop 5 tiles of the first and 3 of the second (used falls by
 * 8, their lookups find nothing); once all retired both runs are freed,
 * and the allocation record with them. */
static void test_tensormap_run_cleanup_drops_retired_tiles(void **state)
{
    (void)state;
    rt_ring rings[PTO_NUM_RINGS];
    rt_tensormap tm;
    tr_start(rings, &tm, TR_SLICES, 15, 1);
    for (uint32_t i = 0; i < 15; i += 2) tr_insert(&tm, tr_tile(TR_ADDR, TR_SLICES, 100 + i / 2), 0, i, 1, 1);
    assert_int_equal(tr_runs_in_use(&tm), 2);
    atomic_store(&rings[3].last_alive, 15);
    rt_tm_refresh(&tm);
    rt_tm_cleanup_due(&tm, 3, 31);
    assert_int_equal(tm.used, 15 + 8);
    pto_view v = tr_tile(TR_ADDR, TR_SLICES, 7);
    assert_int_equal(tr_lookup(&tm, &v, 0), 1);
    atomic_store(&rings[0].last_alive, 5);
    rt_tm_refresh(&tm);
    rt_tm_cleanup_due(&tm, 0, 16);
    assert_int_equal(tm.used, 10 + 5);
    assert_int_equal(tm.writers, 10 + 5);
    for (uint32_t i = 0; i < 15; i++) {
        v = tr_tile(TR_ADDR, TR_SLICES, i);
        assert_int_equal(tr_lookup(&tm, &v, 0), i >= 5);
        v = tr_tile(TR_ADDR, TR_SLICES, 100 + i / 2);
        if (i % 2 == 0) assert_int_equal(tr_lookup(&tm, &v, 0), i >= 5);
    }
    assert_int_equal(tm.alloc_free_top, 0);
    atomic_store(&rings[0].last_alive, 15);
    rt_tm_refresh(&tm);
    rt_tm_cleanup_due(&tm, 0, 31);
    assert_int_equal(tm.used, 0);
    assert_int_equal(tr_runs_in_use(&tm), 0);
    assert_int_equal(tm.alloc_free_top, 1); /* the record went with its last run */
    tm_done(rings, &tm);
}

/* A query a run cannot answer by division (another layout's view, an
 * empty view) unfolds it, and still reports what the scan does. */
static void test_tensormap_run_query_of_another_layout_unfolds(void **state)
{
    (void)state;
    static char mem[16384];
    static pto_view pre[RT_TM_INDEX_AT], q[3];
    static tm_shadow shadow[64];
    q[0] = (pto_view){.addr = mem, .elem_size = 4, .ndims = 2, .shape = {4, 4}, .strides = {1, 64},
                      .owner = PTO_INVALID_TASK_ID}; /* transposed: no box math */
    q[1] = pto_view_1d(mem, 8, 100, 10, PTO_INVALID_TASK_ID);                  /* another element size */
    q[2] = pto_view_2d(mem, 4, 3 * 64 + 5, 1, 0, 64, PTO_INVALID_TASK_ID);     /* empty, inside row 3 */
    for (int i = 0; i < 3; i++) {
        rt_ring rings[PTO_NUM_RINGS];
        rt_tensormap tm;
        tm_rings(rings, &tm, 15);
        int n = 0, live;
        tr_index(&tm, mem, TR_ROWS, pre, shadow, &n);
        for (uint32_t t = 0; t < 15; t++) {
            const pto_view *at = tr_insert(&tm, tr_tile(mem, TR_ROWS, t), 0, t, 0, 1);
            shadow[n++] = (tm_shadow){at, rt_task_id(0, t), 1, 1};
        }
        live = n;
        assert_int_equal(tr_runs_in_use(&tm), 1);
        rt_tm_key k = tm_key_at(&q[i]);
        tm_check_lookup(&tm, &k, shadow, n, 1, 0, &live);
        assert_int_equal(tr_runs_in_use(&tm), 0);
        assert_int_equal(tm.used, live);
        tm_done(rings, &tm);
    }
}

/* A reader run of 15 whose first 10 tasks completed: a writer's lookup
 * meets no edge from those; pressure reclaim unfolds the run and prunes
 * them. */
static void test_tensormap_run_pressure_reclaim_prunes_completed_readers(void **state)
{
    (void)state;
    rt_ring rings[PTO_NUM_RINGS];
    rt_tensormap tm;
    tr_start(rings, &tm, TR_COLS, 15, 0);
    for (uint32_t i = 0; i < 10; i++) atomic_store(&rt_ring_slot(&rings[0], i)->state, RT_TASK_COMPLETED);
    pto_view v = pto_view_2d(TR_ADDR, 4, 2, 8, 1, 64, PTO_INVALID_TASK_ID); /* half of column 2 */
    assert_int_equal(tr_lookup(&tm, &v, 1), 0); /* a completed reader: no edge */
    v = tr_tile(TR_ADDR, TR_COLS, 14);
    assert_int_equal(tr_lookup(&tm, &v, 1), 1);
    assert_int_equal(tm.used, RT_TM_INDEX_AT + 14); /* the cover dropped the last */
    assert_int_equal(tr_runs_in_use(&tm), 1);
    rt_tm_reclaim_all(&tm);
    assert_int_equal(tm.used, RT_TM_INDEX_AT + 4);
    assert_int_equal(tr_runs_in_use(&tm), 0);
    tm_done(rings, &tm);
}

/* Five sweeps (arguments 0..4) on one allocation: four runs, the fifth's
 * tiles are entries; each tile is found by its task. */
static void test_tensormap_run_limit_per_allocation_and_kind(void **state)
{
    (void)state;
    rt_ring rings[PTO_NUM_RINGS];
    rt_tensormap tm;
    tr_start(rings, &tm, TR_ROWS, 0, 1);
    assert_int_equal(RT_TM_RUNS, 4);
    for (uint32_t i = 0; i < 15; i++)
        for (int a = 0; a <= RT_TM_RUNS; a++)
            tr_insert(&tm, pto_view_2d(TR_ADDR, 4, i * 64 + a * 8, 1, 8, 64, PTO_INVALID_TASK_ID), 0, i, a, 1);
    assert_int_equal(tr_runs_in_use(&tm), RT_TM_RUNS);
    assert_int_equal(tm.bumped, RT_TM_INDEX_AT + 15);
    assert_int_equal(tm.used, RT_TM_INDEX_AT + 15 * (RT_TM_RUNS + 1));
    for (uint32_t i = 0; i < 15; i++)
        for (int a = 0; a <= RT_TM_RUNS; a++) {
            pto_view v = pto_view_2d(TR_ADDR, 4, i * 64 + a * 8, 1, 8, 64, PTO_INVALID_TASK_ID);
            assert_int_equal(tr_lookup(&tm, &v, 0), 1);
            assert_true(tm_found[0] == rt_task_id(0, i));
        }
    tm_done(rings, &tm);
}

/* RT_TM_RUN_POOL + 1 indexed allocations, each given one tile of a task's
 * record: the first RT_TM_RUN_POOL take a run each, the last an entry, and
 * each tile is found by its task. */
static void test_tensormap_run_pool_at_its_limit_and_one_past(void **state)
{
    (void)state;
    enum { ALLOCS = RT_TM_RUN_POOL + 1 };
    static pto_view pre[ALLOCS][RT_TM_INDEX_AT];
    rt_ring rings[PTO_NUM_RINGS];
    rt_tensormap tm;
    tm_rings(rings, &tm, 15);
    for (int k = 0; k < ALLOCS; k++) {
        char *addr = TR_ADDR + (uintptr_t)k * 0x100000;
        tr_index(&tm, addr, TR_SLICES, pre[k], NULL, NULL);
        tr_insert(&tm, tr_tile(addr, TR_SLICES, 0), k % 4, (uint32_t)(k / 4 % 15), k / 60, 1);
        assert_int_equal(tm.runs_bumped, k < RT_TM_RUN_POOL ? k + 1 : RT_TM_RUN_POOL);
    }
    assert_int_equal(tm.bumped, ALLOCS * RT_TM_INDEX_AT + 1);
    for (int k = 0; k < ALLOCS; k++) {
        pto_view v = tr_tile(TR_ADDR + (uintptr_t)k * 0x100000, TR_SLICES, 0);
        assert_int_equal(tr_lookup(&tm, &v, 0), 1);
        assert_true(tm_found[0] == rt_task_id(k % 4, (uint32_t)(k / 4 % 15)));
    }
    tm_done(rings, &tm);
}

/* ---- through the runtime --------------------------------------------------- */

static int tr_next_kernel(const pto_kernel_args *a)
{
    float *out = (float *)a->views[0].addr + a->views[0].offset;
    const float *in = a->num_views > 1 ? (const float *)a->views[1].addr + a->views[1].offset : NULL;
    for (int k = 0; k < 4; k++) out[k] = in ? in[k] + 1 : 1;
    return 0;
}

/* 2,000 tasks, task i writing slice i of one tensor from slice i - 1: every
 * slice ends as i + 1 (each task ran after its producer), and the sweep took
 * a few runs and entries only until the allocation was indexed. */
static void test_tensormap_run_sweep_through_submit(void **state)
{
    (void)state;
    enum { N = 2000 };
    static float data[4 * N];
    pto_runtime *rt = make_rt_rings(0, 0, 0, 2, 10000);
    check_ok(rt, pto_scope_begin(rt, PTO_SCOPE_AUTO, __FILE__, __LINE__), "pto_scope_begin");
    for (int i = 0; i < N; i++) {
        pto_arg args[2] = {{PTO_ARG_OUTPUT_EXISTING, pto_view_1d(data, 4, 4 * i, 4, PTO_INVALID_TASK_ID)},
                           {PTO_ARG_IN, pto_view_1d(data, 4, 4 * (i - 1), 4, PTO_INVALID_TASK_ID)}};
        pto_task t = {.kernel = tr_next_kernel, .name = "next", .args = args, .num_args = i ? 2 : 1};
        check_ok(rt, pto_task_submit(rt, &t, NULL), "pto_task_submit");
    }
    check_ok(rt, pto_scope_end(rt), "pto_scope_end");
    check_ok(rt, pto_runtime_finish(rt), "pto_runtime_finish");
    for (int i = 0; i < N; i++) assert_true(data[4 * i] == (float)(i + 1) && data[4 * i + 3] == (float)(i + 1));
    assert_true(rt->tm.runs_bumped <= 4);
    assert_true(rt->tm.bumped <= 2 * RT_TM_INDEX_AT);
    pto_runtime_destroy(rt);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_tensormap_run_holds_a_sweep_in_one_record),
    cmocka_unit_test(test_tensormap_run_stays_inside_its_rows),
    cmocka_unit_test(test_tensormap_run_takes_only_its_next_tile),
    cmocka_unit_test(test_tensormap_run_matches_brute_force),
    cmocka_unit_test(test_tensormap_run_cover_at_an_end_shrinks_in_the_middle_unfolds),
    cmocka_unit_test(test_tensormap_run_cleanup_drops_retired_tiles),
    cmocka_unit_test(test_tensormap_run_query_of_another_layout_unfolds),
    cmocka_unit_test(test_tensormap_run_pressure_reclaim_prunes_completed_readers),
    cmocka_unit_test(test_tensormap_run_limit_per_allocation_and_kind),
    cmocka_unit_test(test_tensormap_run_pool_at_its_limit_and_one_past),
    cmocka_unit_test(test_tensormap_run_sweep_through_submit),
};

PTO_TEST_MAIN(tests)
