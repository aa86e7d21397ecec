/*
 * test_tensormap.c - the tensormap's bookkeeping: stale entries, cleanup,
 * cover removal, completed-reader pruning, and the pool running out.
 */
#include "harness.h"
#include "testutil.h"

static pto_task_id tm_found[16];
static int tm_nfound;

static int tm_note(void *ctx, pto_task_id id)
{
    (void)ctx;
    tm_found[tm_nfound++] = id;
    return 0;
}

/* Views of the boxes below: a box refers to its view, which must live on. */
static pto_view tm_views[16];
static int tm_nviews;

static rt_tm_key tm_key_of(const pto_view *view)
{
    pto_view *v = &tm_views[tm_nviews++ % 16];
    *v = *view;
    rt_tm_key k;
    const char *why;
    assert_int_equal(rt_box_from_view(v, &k.box, &why), 0);
    rt_tm_key_init(&k);
    return k;
}

static rt_tm_key tm_box(void *addr, int64_t offset, uint64_t n)
{
    pto_view v = pto_view_1d(addr, 4, offset, n, PTO_INVALID_TASK_ID);
    return tm_key_of(&v);
}

/* Four small rings with n tasks each, all PENDING and published. */
static void tm_rings(rt_ring *rings, rt_tensormap *tm, int n)
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
            atomic_store(&s->state, RT_TASK_PENDING);
            rt_ring_publish(&rings[r], local);
        }
    }
    assert_int_equal(rt_tm_init(tm, rings, &e), 0);
    rt_tm_refresh(tm);
}

static void tm_done(rt_ring *rings, rt_tensormap *tm)
{
    rt_tm_destroy(tm);
    for (int r = 0; r < PTO_NUM_RINGS; r++) rt_ring_destroy(&rings[r]);
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
        for (int i = 0; i < 1000 && !rc; i++) rc = pto_submit(rt, &t, NULL);
        if (!rc) rc = pto_scope_end(rt), scopes--;
    }
    assert_int_equal(rc, -PTO_TENSORMAP_OVERFLOW);
    expect_frag(rt, "FATAL: TensorMap Entry Pool Deadlock Detected!");
    expect_frag(rt, "/ 65536");
    expect_frag(rt, "No progress anywhere for");
    atomic_store(&tu_gate, 1);
    assert_int_equal(pto_finish(rt), -PTO_TENSORMAP_OVERFLOW);
    tu_submit(rt, NULL, NULL, 0);
    assert_int_equal(pto_finish(rt), 0);
    pto_runtime_destroy(rt);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_stale_entries),
    cmocka_unit_test(test_cover_removes_entries),
    cmocka_unit_test(test_readers_never_wait_for_readers),
    cmocka_unit_test(test_tensormap_overflow),
};

PTO_TEST_MAIN(tests)
