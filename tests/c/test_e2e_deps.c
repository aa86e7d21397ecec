/*
 * test_e2e_deps.c - dependency discovery, end to end through the public API.
 *
 * Every test runs real worker threads.  Ordering is checked two ways: by the
 * data a kernel sees (a reader that ran too early sees the wrong value) and
 * by start/end stamps from one global clock.  Independence (no edge) is
 * checked by rendezvous: two kernels each wait, bounded at 2 s, for the other
 * to have started, which only both can see if they overlap in time.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"
#include "pto/runtime.h"

#define MEET_TIMEOUT_MS 2000
#define NREC 64
#define NFLAG 8

/* ---- helpers ----------------------------------------------------------- */

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void spin_us(uint64_t us)
{
    uint64_t end = now_ns() + us * 1000ull;
    while (now_ns() < end) {
    }
}

static void nap_us(long us)
{
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    nanosleep(&ts, NULL);
}

static uint64_t view_count(const pto_view *v)
{
    uint64_t n = 1;
    for (uint32_t d = 0; d < v->ndims; d++) n *= v->shape[d];
    return n;
}

/* k-th element of a view in row-major order over its shape. */
static uint64_t *el(const pto_view *v, uint64_t k)
{
    int64_t off = v->offset;
    for (int d = (int)v->ndims - 1; d >= 0; d--) {
        uint64_t i = k % v->shape[d];
        k /= v->shape[d];
        off += (int64_t)i * v->strides[d];
    }
    return (uint64_t *)((char *)v->addr + off * (int64_t)v->elem_size);
}

static pto_runtime *make_rt(const pto_config *cfg)
{
    pto_error err;
    memset(&err, 0, sizeof err);
    pto_runtime *rt = pto_runtime_create(cfg, &err);
    if (!rt) print_error("pto_runtime_create failed: code %d: %s\n", err.code, err.message);
    assert_non_null(rt);
    return rt;
}

static pto_config cfg_workers(int workers)
{
    pto_config c;
    memset(&c, 0, sizeof c);
    c.num_workers = workers;
    return c;
}

static void check_finish_ok(pto_runtime *rt)
{
    int rc = pto_finish(rt);
    if (rc != 0) print_error("pto_finish: %d\n%s\n", rc, pto_last_error(rt)->message);
    assert_int_equal(rc, 0);
}

static void check_submit(pto_runtime *rt, const pto_task *t, pto_task_id *id)
{
    int rc = pto_submit(rt, t, id);
    if (rc != 0) print_error("pto_submit(%s): %d\n%s\n", t->name ? t->name : "-", rc,
                             pto_last_error(rt)->message);
    assert_int_equal(rc, 0);
}

static pto_arg arg(pto_arg_tag tag, pto_view v)
{
    pto_arg a;
    a.tag = tag;
    a.view = v;
    return a;
}

static pto_view v1(uint64_t *buf, int64_t off, uint64_t n)
{
    return pto_view_1d(buf, sizeof(uint64_t), off, n, PTO_INVALID_TASK_ID);
}

/* ---- stamps and rendezvous flags --------------------------------------- */

static _Atomic uint64_t g_clock;
static _Atomic uint64_t g_start[NREC], g_end[NREC];
static atomic_int g_flag[NFLAG], g_saw[NFLAG];
static atomic_int g_bad;

static void reset_globals(void)
{
    atomic_store(&g_clock, 0);
    for (int i = 0; i < NREC; i++) {
        atomic_store(&g_start[i], 0);
        atomic_store(&g_end[i], 0);
    }
    for (int i = 0; i < NFLAG; i++) {
        atomic_store(&g_flag[i], 0);
        atomic_store(&g_saw[i], 0);
    }
    atomic_store(&g_bad, 0);
}

#define NO_REC UINT64_MAX

static void stamp_start(uint64_t rec)
{
    if (rec < NREC) atomic_store(&g_start[rec], atomic_fetch_add(&g_clock, 1) + 1);
}

static void stamp_end(uint64_t rec)
{
    if (rec < NREC) atomic_store(&g_end[rec], atomic_fetch_add(&g_clock, 1) + 1);
}

/* start of b after end of a, both ran */
static void assert_after(int a, int b)
{
    uint64_t ea = atomic_load(&g_end[a]), sb = atomic_load(&g_start[b]);
    if (!(ea != 0 && sb != 0 && sb > ea))
        print_error("record %d (end %llu) not before record %d (start %llu)\n", a,
                    (unsigned long long)ea, b, (unsigned long long)sb);
    assert_true(ea != 0 && sb != 0 && sb > ea);
}

static int wait_flag(atomic_int *f, int timeout_ms)
{
    uint64_t end = now_ns() + (uint64_t)timeout_ms * 1000000ull;
    while (!atomic_load(f)) {
        if (now_ns() > end) return 0;
        nap_us(20);
    }
    return 1;
}

/* ---- kernels ----------------------------------------------------------- */

/* views[0] := scalars[0] everywhere after spinning scalars[1] us; stamps rec scalars[2]. */
static int k_write(const pto_kernel_args *a)
{
    stamp_start(a->scalars[2]);
    spin_us(a->scalars[1]);
    const pto_view *v = &a->views[0];
    for (uint64_t k = 0; k < view_count(v); k++) *el(v, k) = a->scalars[0];
    stamp_end(a->scalars[2]);
    return 0;
}

/* spins scalars[0] us, then views[1][k] := views[0][k]; stamps rec scalars[1]. */
static int k_copy(const pto_kernel_args *a)
{
    stamp_start(a->scalars[1]);
    spin_us(a->scalars[0]);
    const pto_view *s = &a->views[0], *d = &a->views[1];
    for (uint64_t k = 0; k < view_count(d); k++) *el(d, k) = *el(s, k % view_count(s));
    stamp_end(a->scalars[1]);
    return 0;
}

/* INOUT views[0]: every element must equal scalars[0]; spin scalars[1] us;
 * then every element := scalars[0] + 1.  A mismatch sets g_bad. */
static int k_step(const pto_kernel_args *a)
{
    const pto_view *v = &a->views[0];
    uint64_t n = view_count(v);
    for (uint64_t k = 0; k < n; k++)
        if (*el(v, k) != a->scalars[0]) atomic_store(&g_bad, 1);
    spin_us(a->scalars[1]);
    for (uint64_t k = 0; k < n; k++) *el(v, k) = a->scalars[0] + 1;
    return 0;
}

/* Rendezvous: raise flag scalars[0], wait for flag scalars[1]; g_saw[mine]
 * says whether the other started while this one ran.  Then, if it has two
 * views, copies views[0] to views[1] (a reader that reads after meeting). */
static int k_meet(const pto_kernel_args *a)
{
    int mine = (int)a->scalars[0], other = (int)a->scalars[1];
    atomic_store(&g_flag[mine], 1);
    atomic_store(&g_saw[mine], wait_flag(&g_flag[other], MEET_TIMEOUT_MS));
    if (a->num_views == 2) {
        const pto_view *s = &a->views[0], *d = &a->views[1];
        for (uint64_t k = 0; k < view_count(d); k++) *el(d, k) = *el(s, k % view_count(s));
    }
    if (a->num_scalars > 2) stamp_end(a->scalars[2]);
    return 0;
}

/* views[1][0] := sum(views[0]) (+ sum(views[1..n-2]) when more inputs). Last view is the output. */
static int k_sum(const pto_kernel_args *a)
{
    uint64_t s = 0;
    for (uint32_t i = 0; i + 1 < a->num_views; i++)
        for (uint64_t k = 0; k < view_count(&a->views[i]); k++) s += *el(&a->views[i], k);
    *el(&a->views[a->num_views - 1], 0) = s;
    return 0;
}

/* views[1][k] := views[0][0] + scalars[0] */
static int k_addc(const pto_kernel_args *a)
{
    uint64_t x = *el(&a->views[0], 0);
    for (uint64_t k = 0; k < view_count(&a->views[1]); k++) *el(&a->views[1], k) = x + a->scalars[0];
    return 0;
}

static atomic_int g_ran;
static int k_mark(const pto_kernel_args *a)
{
    (void)a;
    atomic_fetch_add(&g_ran, 1);
    return 0;
}

/* ---- small builders ---------------------------------------------------- */

static void submit_write(pto_runtime *rt, pto_arg_tag tag, pto_view v, uint64_t value,
                         uint64_t spin, uint64_t rec, const pto_dep *deps, uint32_t ndeps,
                         pto_task_id *id)
{
    pto_arg args[1] = {arg(tag, v)};
    uint64_t sc[3] = {value, spin, rec};
    pto_task t = {k_write, "write", args, 1, sc, 3, deps, ndeps};
    check_submit(rt, &t, id);
}

static void submit_copy(pto_runtime *rt, pto_view src, pto_view dst, uint64_t spin, uint64_t rec,
                        const pto_dep *deps, uint32_t ndeps, pto_task_id *id)
{
    pto_arg args[2] = {arg(PTO_ARG_IN, src), arg(PTO_ARG_OUTPUT_EXISTING, dst)};
    uint64_t sc[2] = {spin, rec};
    pto_task t = {k_copy, "copy", args, 2, sc, 2, deps, ndeps};
    check_submit(rt, &t, id);
}

/* A two-task run on a fresh user buffer: proves the runtime works (again). */
static void small_run_ok(pto_runtime *rt)
{
    uint64_t buf[8] = {0}, out[8] = {0};
    assert_int_equal(pto_scope_begin(rt, PTO_SCOPE_AUTO, __FILE__, __LINE__), 0);
    submit_write(rt, PTO_ARG_OUTPUT_EXISTING, v1(buf, 0, 8), 77, 100, NO_REC, NULL, 0, NULL);
    submit_copy(rt, v1(buf, 0, 8), v1(out, 0, 8), 0, NO_REC, NULL, 0, NULL);
    assert_int_equal(pto_scope_end(rt), 0);
    check_finish_ok(rt);
    for (int i = 0; i < 8; i++) assert_int_equal(out[i], 77);
    assert_int_equal(pto_last_error(rt)->code, 0);
}

/* ---- tests ------------------------------------------------------------- */

/* Writer then reader: the reader waits (RAW).  OUTPUT_EXISTING twice on one
 * tile: the second waits for the first (WAW). */
static void test_raw_and_waw(void **state)
{
    (void)state;
    pto_config cfg = cfg_workers(2);
    pto_runtime *rt = make_rt(&cfg);
    for (int run = 0; run < 100; run++) {
        uint64_t tile[16] = {0}, out[16] = {0};
        reset_globals();
        /* RAW: a slow writer, then a reader of the same tile */
        submit_write(rt, PTO_ARG_OUTPUT_EXISTING, v1(tile, 0, 16), 1000 + (uint64_t)run, 300, 0,
                     NULL, 0, NULL);
        submit_copy(rt, v1(tile, 4, 8), v1(out, 0, 8), 0, 1, NULL, 0, NULL);
        check_finish_ok(rt);
        for (int i = 0; i < 8; i++) assert_int_equal(out[i], 1000 + run);
        assert_after(0, 1);

        /* WAW: a slow writer, then a fast writer of the same tile */
        reset_globals();
        submit_write(rt, PTO_ARG_OUTPUT_EXISTING, v1(tile, 0, 16), 1, 300, 0, NULL, 0, NULL);
        submit_write(rt, PTO_ARG_OUTPUT_EXISTING, v1(tile, 0, 16), 2, 0, 1, NULL, 0, NULL);
        check_finish_ok(rt);
        for (int i = 0; i < 16; i++) assert_int_equal(tile[i], 2);
        assert_after(0, 1);
    }
    pto_runtime_destroy(rt);
}

/* A slow reader, then an OUTPUT_EXISTING writer of the same tile: the writer
 * waits for the reader (WAR), so the reader sees the old value. */
static void test_war_writer_waits_reader(void **state)
{
    (void)state;
    pto_config cfg = cfg_workers(2);
    pto_runtime *rt = make_rt(&cfg);
    uint64_t tile[32], seen[32];
    for (int run = 0; run < 1000; run++) {
        for (int i = 0; i < 32; i++) tile[i] = (uint64_t)run, seen[i] = UINT64_MAX;
        reset_globals();
        assert_int_equal(pto_scope_begin(rt, PTO_SCOPE_AUTO, __FILE__, __LINE__), 0);
        submit_copy(rt, pto_view_2d(tile, 8, 0, 4, 8, 8, PTO_INVALID_TASK_ID),
                    v1(seen, 0, 32), 30, 0, NULL, 0, NULL);
        submit_write(rt, PTO_ARG_OUTPUT_EXISTING,
                     pto_view_2d(tile, 8, 0, 4, 8, 8, PTO_INVALID_TASK_ID),
                     1000000 + (uint64_t)run, 0, 1, NULL, 0, NULL);
        assert_int_equal(pto_scope_end(rt), 0);
        check_finish_ok(rt);
        for (int i = 0; i < 32; i++) {
            if (seen[i] != (uint64_t)run)
                print_error("run %d: reader saw %llu at %d\n", run, (unsigned long long)seen[i], i);
            assert_int_equal(seen[i], run);
            assert_int_equal(tile[i], 1000000 + run);
        }
        assert_after(0, 1);
    }
    pto_runtime_destroy(rt);
}

/* Reader of rows 0-63 and writer of rows 64-127 of one buffer: no edge, the
 * two kernels overlap in time. */
static void test_war_disjoint_concurrent(void **state)
{
    (void)state;
    enum { ROWS = 128, COLS = 16 };
    pto_config cfg = cfg_workers(2);
    pto_runtime *rt = make_rt(&cfg);
    uint64_t *buf = calloc(ROWS * COLS, sizeof *buf);
    uint64_t *out = calloc(64 * COLS, sizeof *out);
    assert_non_null(buf);
    assert_non_null(out);
    for (int i = 0; i < ROWS * COLS; i++) buf[i] = (uint64_t)i;
    reset_globals();

    pto_arg rargs[2] = {
        arg(PTO_ARG_IN, pto_view_2d(buf, 8, 0, 64, COLS, COLS, PTO_INVALID_TASK_ID)),
        arg(PTO_ARG_OUTPUT_EXISTING, v1(out, 0, 64 * COLS))};
    uint64_t rsc[2] = {0, 1};
    pto_task reader = {k_meet, "reader", rargs, 2, rsc, 2, NULL, 0};
    /* the writer meets the reader, then writes its rows */
    pto_arg wargs[1] = {
        arg(PTO_ARG_OUTPUT_EXISTING, pto_view_2d(buf, 8, 64 * COLS, 64, COLS, COLS, PTO_INVALID_TASK_ID))};
    uint64_t wsc[2] = {1, 0};
    pto_task writer = {k_meet, "writer", wargs, 1, wsc, 2, NULL, 0};
    check_submit(rt, &reader, NULL);
    check_submit(rt, &writer, NULL);
    check_finish_ok(rt);
    assert_int_equal(atomic_load(&g_saw[0]), 1);
    assert_int_equal(atomic_load(&g_saw[1]), 1);
    for (int i = 0; i < 64 * COLS; i++) assert_int_equal(out[i], i);
    free(buf);
    free(out);
    pto_runtime_destroy(rt);
}

/* Two readers of one tile run concurrently (no edge); a later writer waits
 * for both (two WAR edges). */
static void test_readers_independent(void **state)
{
    (void)state;
    pto_config cfg = cfg_workers(2);
    pto_runtime *rt = make_rt(&cfg);
    for (int run = 0; run < 5; run++) {
        uint64_t tile[16], o1[16] = {0}, o2[16] = {0};
        for (int i = 0; i < 16; i++) tile[i] = 500 + (uint64_t)i;
        reset_globals();
        pto_arg a1[2] = {arg(PTO_ARG_IN, v1(tile, 0, 16)), arg(PTO_ARG_OUTPUT_EXISTING, v1(o1, 0, 16))};
        pto_arg a2[2] = {arg(PTO_ARG_IN, v1(tile, 0, 16)), arg(PTO_ARG_OUTPUT_EXISTING, v1(o2, 0, 16))};
        uint64_t s1[3] = {0, 1, 0}, s2[3] = {1, 0, 1};
        pto_task r1 = {k_meet, "reader1", a1, 2, s1, 3, NULL, 0};
        pto_task r2 = {k_meet, "reader2", a2, 2, s2, 3, NULL, 0};
        check_submit(rt, &r1, NULL);
        check_submit(rt, &r2, NULL);
        submit_write(rt, PTO_ARG_OUTPUT_EXISTING, v1(tile, 0, 16), 9, 0, 2, NULL, 0, NULL);
        check_finish_ok(rt);
        assert_int_equal(atomic_load(&g_saw[0]), 1);
        assert_int_equal(atomic_load(&g_saw[1]), 1);
        for (int i = 0; i < 16; i++) {
            assert_int_equal(o1[i], 500 + i);
            assert_int_equal(o2[i], 500 + i);
            assert_int_equal(tile[i], 9);
        }
        assert_after(0, 2);
        assert_after(1, 2);
    }
    pto_runtime_destroy(rt);
}

/* 100 INOUT tasks on one tile, each adding 1: they run one after another. */
static void test_inout_chain(void **state)
{
    (void)state;
    pto_config cfg = cfg_workers(3);
    pto_runtime *rt = make_rt(&cfg);
    for (int run = 0; run < 5; run++) {
        uint64_t tile[4 * 8] = {0};
        reset_globals();
        assert_int_equal(pto_scope_begin(rt, PTO_SCOPE_AUTO, __FILE__, __LINE__), 0);
        for (uint64_t i = 0; i < 100; i++) {
            pto_arg args[1] = {arg(PTO_ARG_INOUT, pto_view_2d(tile, 8, 0, 4, 8, 8, PTO_INVALID_TASK_ID))};
            uint64_t sc[2] = {i, 20};
            pto_task t = {k_step, "step", args, 1, sc, 2, NULL, 0};
            check_submit(rt, &t, NULL);
        }
        assert_int_equal(pto_scope_end(rt), 0);
        check_finish_ok(rt);
        assert_int_equal(atomic_load(&g_bad), 0);
        for (int i = 0; i < 32; i++) assert_int_equal(tile[i], 100);
    }
    pto_runtime_destroy(rt);
}

/* NO_DEP: no lookup (a NO_DEP task does not wait for a writer), no insert (a
 * later reader does not wait for it), and the creator edge is kept. */
static void test_no_dep_tag(void **state)
{
    (void)state;
    pto_config cfg = cfg_workers(2);
    pto_runtime *rt = make_rt(&cfg);
    uint64_t tile[16] = {0}, out[16] = {0};

    /* no lookup: writer W (meets N) then N with NO_DEP on the same tile */
    reset_globals();
    pto_arg wa[1] = {arg(PTO_ARG_OUTPUT_EXISTING, v1(tile, 0, 16))};
    uint64_t ws[2] = {0, 1};
    pto_task w = {k_meet, "writer", wa, 1, ws, 2, NULL, 0};
    pto_arg na[1] = {arg(PTO_ARG_NO_DEP, v1(tile, 0, 16))};
    uint64_t ns[2] = {1, 0};
    pto_task n = {k_meet, "nodep", na, 1, ns, 2, NULL, 0};
    check_submit(rt, &w, NULL);
    check_submit(rt, &n, NULL);
    check_finish_ok(rt);
    assert_int_equal(atomic_load(&g_saw[0]), 1);
    assert_int_equal(atomic_load(&g_saw[1]), 1);

    /* no insert: N2 (NO_DEP, meets R) then reader R of the tile */
    reset_globals();
    pto_arg n2a[1] = {arg(PTO_ARG_NO_DEP, v1(tile, 0, 16))};
    uint64_t n2s[2] = {0, 1};
    pto_task n2 = {k_meet, "nodep", n2a, 1, n2s, 2, NULL, 0};
    pto_arg ra[2] = {arg(PTO_ARG_IN, v1(tile, 0, 16)), arg(PTO_ARG_OUTPUT_EXISTING, v1(out, 0, 16))};
    uint64_t rs[2] = {1, 0};
    pto_task r = {k_meet, "reader", ra, 2, rs, 2, NULL, 0};
    check_submit(rt, &n2, NULL);
    check_submit(rt, &r, NULL);
    check_finish_ok(rt);
    assert_int_equal(atomic_load(&g_saw[0]), 1);
    assert_int_equal(atomic_load(&g_saw[1]), 1);

    /* creator edge kept: B reads A's OUT buffer through a NO_DEP argument */
    for (int run = 0; run < 20; run++) {
        reset_globals();
        memset(out, 0, sizeof out);
        assert_int_equal(pto_scope_begin(rt, PTO_SCOPE_AUTO, __FILE__, __LINE__), 0);
        pto_arg oa[1];
        memset(oa, 0, sizeof oa);
        oa[0].tag = PTO_ARG_OUT;
        oa[0].view.elem_size = 8;
        oa[0].view.ndims = 1;
        oa[0].view.shape[0] = 16;
        uint64_t osc[3] = {42 + (uint64_t)run, 300, 0};
        pto_task a = {k_write, "producer", oa, 1, osc, 3, NULL, 0};
        pto_task_id aid;
        check_submit(rt, &a, &aid);
        assert_non_null(oa[0].view.addr);
        assert_true(oa[0].view.owner == aid);
        pto_arg ba[2] = {arg(PTO_ARG_NO_DEP, oa[0].view), arg(PTO_ARG_OUTPUT_EXISTING, v1(out, 0, 16))};
        uint64_t bs[2] = {0, 1};
        pto_task b = {k_copy, "consumer", ba, 2, bs, 2, NULL, 0};
        check_submit(rt, &b, NULL);
        assert_int_equal(pto_scope_end(rt), 0);
        check_finish_ok(rt);
        for (int i = 0; i < 16; i++) assert_int_equal(out[i], 42 + run);
        assert_after(0, 1);
    }
    pto_runtime_destroy(rt);
}

/* MANUAL: two writers of a tile get no edge; an explicit dep orders them;
 * AUTO inside MANUAL is INVALID_ARGS with its message. */
static void test_manual_scope_no_discovery(void **state)
{
    (void)state;
    pto_config cfg = cfg_workers(2);
    pto_runtime *rt = make_rt(&cfg);
    uint64_t tile[16] = {0};

    /* no edge: the two "writers" meet (they do not touch the bytes, so the
     * overlap is only what the runtime is told) */
    reset_globals();
    assert_int_equal(pto_scope_begin(rt, PTO_SCOPE_MANUAL, __FILE__, __LINE__), 0);
    pto_arg wa1[1] = {arg(PTO_ARG_OUTPUT_EXISTING, v1(tile, 0, 16))};
    pto_arg wa2[1] = {arg(PTO_ARG_OUTPUT_EXISTING, v1(tile, 0, 16))};
    uint64_t s1[2] = {0, 1}, s2[2] = {1, 0};
    pto_task w1 = {k_meet, "writer1", wa1, 1, s1, 2, NULL, 0};
    pto_task w2 = {k_meet, "writer2", wa2, 1, s2, 2, NULL, 0};
    check_submit(rt, &w1, NULL);
    check_submit(rt, &w2, NULL);
    assert_int_equal(pto_scope_end(rt), 0);
    check_finish_ok(rt);
    assert_int_equal(atomic_load(&g_saw[0]), 1);
    assert_int_equal(atomic_load(&g_saw[1]), 1);

    /* no lookup: an AUTO writer of the tile, then a MANUAL writer of it */
    reset_globals();
    pto_arg aa[1] = {arg(PTO_ARG_OUTPUT_EXISTING, v1(tile, 0, 16))};
    pto_arg ma[1] = {arg(PTO_ARG_OUTPUT_EXISTING, v1(tile, 0, 16))};
    pto_task auto_w = {k_meet, "auto_writer", aa, 1, s1, 2, NULL, 0};
    pto_task manual_w = {k_meet, "manual_writer", ma, 1, s2, 2, NULL, 0};
    check_submit(rt, &auto_w, NULL);
    assert_int_equal(pto_scope_begin(rt, PTO_SCOPE_MANUAL, __FILE__, __LINE__), 0);
    check_submit(rt, &manual_w, NULL);
    assert_int_equal(pto_scope_end(rt), 0);
    check_finish_ok(rt);
    assert_int_equal(atomic_load(&g_saw[0]), 1);
    assert_int_equal(atomic_load(&g_saw[1]), 1);

    /* no insert: a MANUAL writer of the tile, then (outside the MANUAL
     * scope) an AUTO writer of it: it sees nothing the MANUAL task touched */
    reset_globals();
    assert_int_equal(pto_scope_begin(rt, PTO_SCOPE_MANUAL, __FILE__, __LINE__), 0);
    check_submit(rt, &manual_w, NULL);
    assert_int_equal(pto_scope_end(rt), 0);
    check_submit(rt, &auto_w, NULL);
    check_finish_ok(rt);
    assert_int_equal(atomic_load(&g_saw[0]), 1);
    assert_int_equal(atomic_load(&g_saw[1]), 1);

    /* with an explicit dependency: ordered */
    for (int run = 0; run < 10; run++) {
        reset_globals();
        assert_int_equal(pto_scope_begin(rt, PTO_SCOPE_MANUAL, __FILE__, __LINE__), 0);
        pto_task_id id1;
        submit_write(rt, PTO_ARG_OUTPUT_EXISTING, v1(tile, 0, 16), 1, 1000, 0, NULL, 0, &id1);
        pto_dep dep = {id1, PTO_DEP_WAIT};
        submit_write(rt, PTO_ARG_OUTPUT_EXISTING, v1(tile, 0, 16), 2, 0, 1, &dep, 1, NULL);
        assert_int_equal(pto_scope_end(rt), 0);
        check_finish_ok(rt);
        for (int i = 0; i < 16; i++) assert_int_equal(tile[i], 2);
        assert_after(0, 1);
    }

    /* MANUAL in MANUAL is allowed; AUTO inside MANUAL is not */
    assert_int_equal(pto_scope_begin(rt, PTO_SCOPE_MANUAL, __FILE__, __LINE__), 0);
    assert_int_equal(pto_scope_begin(rt, PTO_SCOPE_MANUAL, __FILE__, __LINE__), 0);
    assert_int_equal(pto_scope_begin(rt, PTO_SCOPE_AUTO, __FILE__, __LINE__), -PTO_INVALID_ARGS);
    const pto_error *e = pto_last_error(rt);
    assert_int_equal(e->code, PTO_INVALID_ARGS);
    if (!strstr(e->message, "auto scope nested inside manual scope is not supported"))
        print_error("message:\n%s\n", e->message);
    assert_non_null(strstr(e->message, "auto scope nested inside manual scope is not supported"));
    assert_non_null(strstr(e->message, "FATAL: Invalid Arguments!"));
    assert_int_equal(pto_finish(rt), -PTO_INVALID_ARGS);
    small_run_ok(rt);
    pto_runtime_destroy(rt);
}

/* B reads A's OUT view: B sees A's data, and A's bytes are not reused before
 * B completed (the creator edge retains A).  Ring 0's heap holds 4 outputs;
 * later scopes allocate more while B is still reading. */
static void test_creator_edge_retains(void **state)
{
    (void)state;
    pto_config cfg = cfg_workers(2);
    cfg.runtime_env.ring_heap[0] = 4096;
    pto_runtime *rt = make_rt(&cfg);
    for (int run = 0; run < 3; run++) {
        uint64_t out[128];
        memset(out, 0, sizeof out);
        reset_globals();
        assert_int_equal(pto_scope_begin(rt, PTO_SCOPE_AUTO, __FILE__, __LINE__), 0);
        pto_arg oa[1];
        memset(oa, 0, sizeof oa);
        oa[0].tag = PTO_ARG_OUT;
        oa[0].view.elem_size = 8;
        oa[0].view.ndims = 1;
        oa[0].view.shape[0] = 128; /* 1024 bytes */
        uint64_t asc[3] = {1234 + (uint64_t)run, 0, 0};
        pto_task a = {k_write, "A", oa, 1, asc, 3, NULL, 0};
        check_submit(rt, &a, NULL);
        /* B reads late: 30 ms after it starts */
        submit_copy(rt, oa[0].view, v1(out, 0, 128), 30000, 1, NULL, 0, NULL);
        assert_int_equal(pto_scope_end(rt), 0);
        for (int i = 0; i < 6; i++) {
            assert_int_equal(pto_scope_begin(rt, PTO_SCOPE_AUTO, __FILE__, __LINE__), 0);
            pto_arg ca[1];
            memset(ca, 0, sizeof ca);
            ca[0].tag = PTO_ARG_OUT;
            ca[0].view.elem_size = 8;
            ca[0].view.ndims = 1;
            ca[0].view.shape[0] = 128;
            uint64_t csc[3] = {0xdeadbeefull, 0, NO_REC};
            pto_task c = {k_write, "C", ca, 1, csc, 3, NULL, 0};
            check_submit(rt, &c, NULL);
            assert_int_equal(pto_scope_end(rt), 0);
        }
        check_finish_ok(rt);
        for (int i = 0; i < 128; i++) assert_int_equal(out[i], 1234 + run);
        assert_after(0, 1);
    }
    pto_runtime_destroy(rt);
}

/* Dummy tasks (kernel NULL) take full part in dependencies. */
static void test_dummy_tasks(void **state)
{
    (void)state;
    pto_config cfg = cfg_workers(3);
    pto_runtime *rt = make_rt(&cfg);

    /* a dummy inside an INOUT chain: step, dummy, step, dummy, step */
    for (int run = 0; run < 20; run++) {
        uint64_t tile[8] = {0};
        reset_globals();
        for (uint64_t i = 0; i < 3; i++) {
            pto_arg sa[1] = {arg(PTO_ARG_INOUT, v1(tile, 0, 8))};
            uint64_t sc[2] = {i, i == 0 ? 500 : 0};
            pto_task s = {k_step, "step", sa, 1, sc, 2, NULL, 0};
            check_submit(rt, &s, NULL);
            if (i < 2) {
                pto_arg da[1] = {arg(PTO_ARG_INOUT, v1(tile, 0, 8))};
                pto_task d = {NULL, "dummy", da, 1, NULL, 0, NULL, 0};
                check_submit(rt, &d, NULL);
            }
        }
        check_finish_ok(rt);
        assert_int_equal(atomic_load(&g_bad), 0);
        for (int i = 0; i < 8; i++) assert_int_equal(tile[i], 3);
    }

    /* a 1000-long chain of dummies between a slow writer and a reader, in a
     * MANUAL scope so only the chain orders them */
    {
        uint64_t tile[8] = {0}, out[8] = {0};
        reset_globals();
        assert_int_equal(pto_scope_begin(rt, PTO_SCOPE_MANUAL, __FILE__, __LINE__), 0);
        pto_task_id prev;
        submit_write(rt, PTO_ARG_OUTPUT_EXISTING, v1(tile, 0, 8), 7, 2000, 0, NULL, 0, &prev);
        for (int i = 0; i < 1000; i++) {
            pto_dep dep = {prev, i % 2 ? PTO_DEP_WAIT : PTO_DEP_WAIT_RETAIN};
            pto_task d = {NULL, "chain", NULL, 0, NULL, 0, &dep, 1};
            check_submit(rt, &d, &prev);
        }
        pto_dep dep = {prev, PTO_DEP_WAIT_RETAIN};
        submit_copy(rt, v1(tile, 0, 8), v1(out, 0, 8), 0, 1, &dep, 1, NULL);
        assert_int_equal(pto_scope_end(rt), 0);
        check_finish_ok(rt);
        for (int i = 0; i < 8; i++) assert_int_equal(out[i], 7);
        assert_after(0, 1);
    }

    /* a barrier of 2: P1, P2 -> dummy -> C (MANUAL) */
    for (int run = 0; run < 10; run++) {
        uint64_t x[4] = {0}, y[4] = {0}, out[1] = {0};
        assert_int_equal(pto_scope_begin(rt, PTO_SCOPE_MANUAL, __FILE__, __LINE__), 0);
        pto_task_id p1, p2, b;
        submit_write(rt, PTO_ARG_OUTPUT_EXISTING, v1(x, 0, 4), 3, 1000, NO_REC, NULL, 0, &p1);
        submit_write(rt, PTO_ARG_OUTPUT_EXISTING, v1(y, 0, 4), 4, 1000, NO_REC, NULL, 0, &p2);
        pto_dep bd[2] = {{p1, PTO_DEP_WAIT_RETAIN}, {p2, PTO_DEP_WAIT_RETAIN}};
        pto_task barrier = {NULL, "barrier", NULL, 0, NULL, 0, bd, 2};
        check_submit(rt, &barrier, &b);
        pto_dep cd[1] = {{b, PTO_DEP_WAIT_RETAIN}};
        pto_arg ca[3] = {arg(PTO_ARG_IN, v1(x, 0, 4)), arg(PTO_ARG_IN, v1(y, 0, 4)),
                         arg(PTO_ARG_OUTPUT_EXISTING, v1(out, 0, 1))};
        pto_task c = {k_sum, "sum", ca, 3, NULL, 0, cd, 1};
        check_submit(rt, &c, NULL);
        assert_int_equal(pto_scope_end(rt), 0);
        check_finish_ok(rt);
        assert_int_equal(out[0], 4 * 3 + 4 * 4);
    }

    /* fan 1 -> 18 -> 1 through dummies: S -> D0 -> 18 kernels -> D1 -> F */
    for (int run = 0; run < 10; run++) {
        uint64_t x[1] = {0}, y[18], out[1] = {0};
        memset(y, 0, sizeof y);
        assert_int_equal(pto_scope_begin(rt, PTO_SCOPE_MANUAL, __FILE__, __LINE__), 0);
        pto_task_id s, d0, d1, mid[18];
        submit_write(rt, PTO_ARG_OUTPUT_EXISTING, v1(x, 0, 1), 5, 1000, NO_REC, NULL, 0, &s);
        pto_dep sd = {s, PTO_DEP_WAIT_RETAIN};
        pto_task join0 = {NULL, "fan_out", NULL, 0, NULL, 0, &sd, 1};
        check_submit(rt, &join0, &d0);
        for (int i = 0; i < 18; i++) {
            pto_dep md = {d0, PTO_DEP_WAIT_RETAIN};
            pto_arg ma[2] = {arg(PTO_ARG_IN, v1(x, 0, 1)), arg(PTO_ARG_OUTPUT_EXISTING, v1(y, i, 1))};
            uint64_t msc[1] = {(uint64_t)i};
            pto_task m = {k_addc, "mid", ma, 2, msc, 1, &md, 1};
            check_submit(rt, &m, &mid[i]);
        }
        pto_dep jd[18];
        for (int i = 0; i < 18; i++) jd[i] = (pto_dep){mid[i], PTO_DEP_WAIT_RETAIN};
        pto_task join1 = {NULL, "fan_in", NULL, 0, NULL, 0, jd, 18};
        check_submit(rt, &join1, &d1);
        pto_dep fd = {d1, PTO_DEP_WAIT_RETAIN};
        pto_arg fa[2] = {arg(PTO_ARG_IN, v1(y, 0, 18)), arg(PTO_ARG_OUTPUT_EXISTING, v1(out, 0, 1))};
        pto_task f = {k_sum, "sum", fa, 2, NULL, 0, &fd, 1};
        check_submit(rt, &f, NULL);
        assert_int_equal(pto_scope_end(rt), 0);
        check_finish_ok(rt);
        for (int i = 0; i < 18; i++) assert_int_equal(y[i], 5 + i);
        assert_int_equal(out[0], 18 * 5 + 17 * 18 / 2);
    }
    pto_runtime_destroy(rt);
}

/* An explicit dependency on a never-issued id is INVALID_ARGS; on a retired
 * id it is skipped. */
static void test_explicit_unknown_id(void **state)
{
    (void)state;
    pto_config cfg = cfg_workers(2);
    pto_runtime *rt = make_rt(&cfg);
    pto_task_id bad[2] = {((pto_task_id)3 << 32) | 12345, ((pto_task_id)5 << 32) | 0};
    for (int i = 0; i < 2; i++) {
        atomic_store(&g_ran, 0);
        pto_dep dep = {bad[i], PTO_DEP_WAIT_RETAIN};
        pto_task t = {k_mark, "mark", NULL, 0, NULL, 0, &dep, 1};
        pto_task_id id = 0;
        assert_int_equal(pto_submit(rt, &t, &id), -PTO_INVALID_ARGS);
        assert_true(id == PTO_INVALID_TASK_ID);
        const pto_error *e = pto_last_error(rt);
        assert_int_equal(e->code, PTO_INVALID_ARGS);
        assert_non_null(strstr(e->message, "FATAL: Invalid Arguments!"));
        assert_non_null(strstr(e->message, "error_code=5 runtime_status=-5"));
        assert_int_equal(pto_finish(rt), -PTO_INVALID_ARGS);
        assert_int_equal(atomic_load(&g_ran), 0);
    }

    /* a retired id: skipped silently */
    atomic_store(&g_ran, 0);
    pto_task first = {k_mark, "mark", NULL, 0, NULL, 0, NULL, 0};
    pto_task_id fid;
    check_submit(rt, &first, &fid);
    check_finish_ok(rt);
    pto_dep dep = {fid, PTO_DEP_WAIT_RETAIN};
    pto_task second = {k_mark, "mark", NULL, 0, NULL, 0, &dep, 1};
    check_submit(rt, &second, NULL);
    check_finish_ok(rt);
    assert_int_equal(atomic_load(&g_ran), 2);
    pto_runtime_destroy(rt);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_raw_and_waw),
    cmocka_unit_test(test_war_writer_waits_reader),
    cmocka_unit_test(test_war_disjoint_concurrent),
    cmocka_unit_test(test_readers_independent),
    cmocka_unit_test(test_inout_chain),
    cmocka_unit_test(test_no_dep_tag),
    cmocka_unit_test(test_manual_scope_no_discovery),
    cmocka_unit_test(test_creator_edge_retains),
    cmocka_unit_test(test_dummy_tasks),
    cmocka_unit_test(test_explicit_unknown_id),
};

PTO_TEST_MAIN(tests)
