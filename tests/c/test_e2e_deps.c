/*
 * test_e2e_deps.c - dependency discovery, end to end through the public API.
 *
 * Every test runs real worker threads.  Ordering is checked two ways: by the
 * data a kernel sees (a reader that ran too early sees the wrong value) and
 * by start/end stamps from one global clock.  Independence (no edge) is
 * checked by rendezvous: two kernels each wait for the other to have
 * started, which only both can see if they overlap in time.  The wait is
 * bounded (20 s) only to end a failing test: a busy machine delays a
 * rendezvous, it never makes one fail.  Reuse of a retained output is
 * checked by addresses and by the data its late reader sees.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "e2e.h"

#define MEET_TIMEOUT_MS 20000
#define NREC 64
#define NFLAG 8

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
    uint64_t end = base_now_ns() + (uint64_t)timeout_ms * 1000000ull;
    while (!atomic_load(f)) {
        if (base_now_ns() > end) return 0;
        nap_us(20);
    }
    return 1;
}

/* ---- kernels ----------------------------------------------------------- */

/* d[k] := s[k % count(s)] for every element of d. */
static void copy_view(const pto_view *s, const pto_view *d)
{
    for (uint64_t k = 0; k < view_count(d); k++) *el(d, k) = *el(s, k % view_count(s));
}

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
    copy_view(&a->views[0], &a->views[1]);
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
    if (a->num_views == 2) copy_view(&a->views[0], &a->views[1]);
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
    pto_task t = {k_write, NULL, "write", args, 1, sc, 3, deps, ndeps, 0};
    check_submit(rt, &t, id);
}

static void submit_copy(pto_runtime *rt, pto_view src, pto_view dst, uint64_t spin, uint64_t rec,
                        const pto_dep *deps, uint32_t ndeps, pto_task_id *id)
{
    pto_arg args[2] = {arg(PTO_ARG_IN, src), arg(PTO_ARG_OUTPUT_EXISTING, dst)};
    uint64_t sc[2] = {spin, rec};
    pto_task t = {k_copy, NULL, "copy", args, 2, sc, 2, deps, ndeps, 0};
    check_submit(rt, &t, id);
}

/* A rendezvous task (k_meet) on args: raises flag mine, waits for flag other;
 * stamps rec at its end. */
static void submit_meet(pto_runtime *rt, const char *name, pto_arg *args, uint32_t nargs, uint64_t mine,
                        uint64_t other, uint64_t rec)
{
    uint64_t sc[3] = {mine, other, rec};
    pto_task t = {k_meet, NULL, name, args, nargs, sc, 3, NULL, 0, 0};
    check_submit(rt, &t, NULL);
}

/* Rendezvous tasks 0 and 1 each saw the other start: they overlapped. */
static void assert_met(void)
{
    assert_int_equal(atomic_load(&g_saw[0]), 1);
    assert_int_equal(atomic_load(&g_saw[1]), 1);
}

/* A two-task run on a fresh user buffer: proves the runtime works (again). */
static void small_run_ok(pto_runtime *rt)
{
    uint64_t buf[8] = {0}, out[8] = {0};
    SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
    submit_write(rt, PTO_ARG_OUTPUT_EXISTING, v1(buf, 0, 8), 77, 100, NO_REC, NULL, 0, NULL);
    submit_copy(rt, v1(buf, 0, 8), v1(out, 0, 8), 0, NO_REC, NULL, 0, NULL);
    scope_end_ok(rt);
    finish_ok(rt);
    for (int i = 0; i < 8; i++) assert_int_equal(out[i], 77);
    assert_int_equal(pto_runtime_error(rt)->code, 0);
}

/* ---- tests ------------------------------------------------------------- */

/* Writer then reader: the reader waits (RAW).  OUTPUT_EXISTING twice on one
 * tile: the second waits for the first (WAW). */
static void test_raw_and_waw(void **state)
{
    (void)state;
    pto_runtime *rt = make_rt_rings(0, 0, 0, 2, E2E_NO_STALL_MS);
    for (int run = 0; run < 100; run++) {
        uint64_t tile[16] = {0}, out[16] = {0};
        reset_globals();
        /* RAW: a slow writer, then a reader of the same tile */
        submit_write(rt, PTO_ARG_OUTPUT_EXISTING, v1(tile, 0, 16), 1000 + (uint64_t)run, 300, 0,
                     NULL, 0, NULL);
        submit_copy(rt, v1(tile, 4, 8), v1(out, 0, 8), 0, 1, NULL, 0, NULL);
        finish_ok(rt);
        for (int i = 0; i < 8; i++) assert_int_equal(out[i], 1000 + run);
        assert_after(0, 1);

        /* WAW: a slow writer, then a fast writer of the same tile */
        reset_globals();
        submit_write(rt, PTO_ARG_OUTPUT_EXISTING, v1(tile, 0, 16), 1, 300, 0, NULL, 0, NULL);
        submit_write(rt, PTO_ARG_OUTPUT_EXISTING, v1(tile, 0, 16), 2, 0, 1, NULL, 0, NULL);
        finish_ok(rt);
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
    pto_runtime *rt = make_rt_rings(0, 0, 0, 2, E2E_NO_STALL_MS);
    uint64_t tile[32], seen[32];
    for (int run = 0; run < 1000; run++) {
        for (int i = 0; i < 32; i++) tile[i] = (uint64_t)run, seen[i] = UINT64_MAX;
        reset_globals();
        SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
        submit_copy(rt, pto_view_2d(tile, 8, 0, 4, 8, 8, PTO_INVALID_TASK_ID),
                    v1(seen, 0, 32), 30, 0, NULL, 0, NULL);
        submit_write(rt, PTO_ARG_OUTPUT_EXISTING,
                     pto_view_2d(tile, 8, 0, 4, 8, 8, PTO_INVALID_TASK_ID),
                     1000000 + (uint64_t)run, 0, 1, NULL, 0, NULL);
        scope_end_ok(rt);
        finish_ok(rt);
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
    pto_runtime *rt = make_rt_rings(0, 0, 0, 2, E2E_NO_STALL_MS);
    uint64_t *buf = calloc(ROWS * COLS, sizeof *buf);
    uint64_t *out = calloc(64 * COLS, sizeof *out);
    assert_non_null(buf);
    assert_non_null(out);
    for (int i = 0; i < ROWS * COLS; i++) buf[i] = (uint64_t)i;
    reset_globals();

    pto_arg rargs[2] = {
        arg(PTO_ARG_IN, pto_view_2d(buf, 8, 0, 64, COLS, COLS, PTO_INVALID_TASK_ID)),
        arg(PTO_ARG_OUTPUT_EXISTING, v1(out, 0, 64 * COLS))};
    submit_meet(rt, "reader", rargs, 2, 0, 1, NO_REC);
    /* the writer meets the reader, then writes its rows */
    pto_arg wargs[1] = {
        arg(PTO_ARG_OUTPUT_EXISTING, pto_view_2d(buf, 8, 64 * COLS, 64, COLS, COLS, PTO_INVALID_TASK_ID))};
    submit_meet(rt, "writer", wargs, 1, 1, 0, NO_REC);
    finish_ok(rt);
    assert_met();
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
    pto_runtime *rt = make_rt_rings(0, 0, 0, 2, E2E_NO_STALL_MS);
    for (int run = 0; run < 5; run++) {
        uint64_t tile[16], o1[16] = {0}, o2[16] = {0};
        for (int i = 0; i < 16; i++) tile[i] = 500 + (uint64_t)i;
        reset_globals();
        pto_arg a1[2] = {arg(PTO_ARG_IN, v1(tile, 0, 16)), arg(PTO_ARG_OUTPUT_EXISTING, v1(o1, 0, 16))};
        pto_arg a2[2] = {arg(PTO_ARG_IN, v1(tile, 0, 16)), arg(PTO_ARG_OUTPUT_EXISTING, v1(o2, 0, 16))};
        submit_meet(rt, "reader1", a1, 2, 0, 1, 0);
        submit_meet(rt, "reader2", a2, 2, 1, 0, 1);
        submit_write(rt, PTO_ARG_OUTPUT_EXISTING, v1(tile, 0, 16), 9, 0, 2, NULL, 0, NULL);
        finish_ok(rt);
        assert_met();
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
    pto_runtime *rt = make_rt_rings(0, 0, 0, 3, E2E_NO_STALL_MS);
    for (int run = 0; run < 5; run++) {
        uint64_t tile[4 * 8] = {0};
        reset_globals();
        SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
        for (uint64_t i = 0; i < 100; i++) {
            pto_arg args[1] = {arg(PTO_ARG_INOUT, pto_view_2d(tile, 8, 0, 4, 8, 8, PTO_INVALID_TASK_ID))};
            uint64_t sc[2] = {i, 20};
            pto_task t = {k_step, NULL, "step", args, 1, sc, 2, NULL, 0, 0};
            check_submit(rt, &t, NULL);
        }
        scope_end_ok(rt);
        finish_ok(rt);
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
    pto_runtime *rt = make_rt_rings(0, 0, 0, 2, E2E_NO_STALL_MS);
    uint64_t tile[16] = {0}, out[16] = {0};

    /* no lookup: writer W (meets N) then N with NO_DEP on the same tile */
    reset_globals();
    pto_arg wa[1] = {arg(PTO_ARG_OUTPUT_EXISTING, v1(tile, 0, 16))};
    pto_arg na[1] = {arg(PTO_ARG_NO_DEP, v1(tile, 0, 16))};
    submit_meet(rt, "writer", wa, 1, 0, 1, NO_REC);
    submit_meet(rt, "nodep", na, 1, 1, 0, NO_REC);
    finish_ok(rt);
    assert_met();

    /* no insert: N2 (NO_DEP, meets R) then reader R of the tile */
    reset_globals();
    pto_arg n2a[1] = {arg(PTO_ARG_NO_DEP, v1(tile, 0, 16))};
    pto_arg ra[2] = {arg(PTO_ARG_IN, v1(tile, 0, 16)), arg(PTO_ARG_OUTPUT_EXISTING, v1(out, 0, 16))};
    submit_meet(rt, "nodep", n2a, 1, 0, 1, NO_REC);
    submit_meet(rt, "reader", ra, 2, 1, 0, NO_REC);
    finish_ok(rt);
    assert_met();

    /* creator edge kept: B reads A's OUT buffer through a NO_DEP argument */
    for (int run = 0; run < 20; run++) {
        reset_globals();
        memset(out, 0, sizeof out);
        SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
        pto_arg oa[1] = {out_arg(16)};
        uint64_t osc[3] = {42 + (uint64_t)run, 300, 0};
        pto_task a = {k_write, NULL, "producer", oa, 1, osc, 3, NULL, 0, 0};
        pto_task_id aid;
        check_submit(rt, &a, &aid);
        assert_non_null(oa[0].view.addr);
        assert_true(oa[0].view.owner == aid);
        pto_arg ba[2] = {arg(PTO_ARG_NO_DEP, oa[0].view), arg(PTO_ARG_OUTPUT_EXISTING, v1(out, 0, 16))};
        uint64_t bs[2] = {0, 1};
        pto_task b = {k_copy, NULL, "consumer", ba, 2, bs, 2, NULL, 0, 0};
        check_submit(rt, &b, NULL);
        scope_end_ok(rt);
        finish_ok(rt);
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
    pto_runtime *rt = make_rt_rings(0, 0, 0, 2, E2E_NO_STALL_MS);
    uint64_t tile[16] = {0};

    /* no edge: the two "writers" meet (they do not touch the bytes, so the
     * overlap is only what the runtime is told) */
    pto_arg wt[1] = {arg(PTO_ARG_OUTPUT_EXISTING, v1(tile, 0, 16))};
    reset_globals();
    SCOPE_BEGIN_OK(rt, PTO_SCOPE_MANUAL);
    submit_meet(rt, "writer1", wt, 1, 0, 1, NO_REC);
    submit_meet(rt, "writer2", wt, 1, 1, 0, NO_REC);
    scope_end_ok(rt);
    finish_ok(rt);
    assert_met();

    /* no lookup: an AUTO writer of the tile, then a MANUAL writer of it */
    reset_globals();
    submit_meet(rt, "auto_writer", wt, 1, 0, 1, NO_REC);
    SCOPE_BEGIN_OK(rt, PTO_SCOPE_MANUAL);
    submit_meet(rt, "manual_writer", wt, 1, 1, 0, NO_REC);
    scope_end_ok(rt);
    finish_ok(rt);
    assert_met();

    /* no insert: a MANUAL writer of the tile, then (outside the MANUAL
     * scope) an AUTO writer of it: it sees nothing the MANUAL task touched */
    reset_globals();
    SCOPE_BEGIN_OK(rt, PTO_SCOPE_MANUAL);
    submit_meet(rt, "manual_writer", wt, 1, 1, 0, NO_REC);
    scope_end_ok(rt);
    submit_meet(rt, "auto_writer", wt, 1, 0, 1, NO_REC);
    finish_ok(rt);
    assert_met();

    /* with an explicit dependency: ordered */
    for (int run = 0; run < 10; run++) {
        reset_globals();
        SCOPE_BEGIN_OK(rt, PTO_SCOPE_MANUAL);
        pto_task_id id1;
        submit_write(rt, PTO_ARG_OUTPUT_EXISTING, v1(tile, 0, 16), 1, 1000, 0, NULL, 0, &id1);
        pto_dep dep = {id1, PTO_DEP_WAIT};
        submit_write(rt, PTO_ARG_OUTPUT_EXISTING, v1(tile, 0, 16), 2, 0, 1, &dep, 1, NULL);
        scope_end_ok(rt);
        finish_ok(rt);
        for (int i = 0; i < 16; i++) assert_int_equal(tile[i], 2);
        assert_after(0, 1);
    }

    /* MANUAL in MANUAL is allowed; AUTO inside MANUAL is not */
    SCOPE_BEGIN_OK(rt, PTO_SCOPE_MANUAL);
    SCOPE_BEGIN_OK(rt, PTO_SCOPE_MANUAL);
    assert_int_equal(pto_scope_begin(rt, PTO_SCOPE_AUTO, __FILE__, __LINE__), -PTO_INVALID_ARGS);
    assert_int_equal(pto_runtime_error(rt)->code, PTO_INVALID_ARGS);
    expect_frag(rt, "auto scope nested inside manual scope is not supported");
    expect_frag(rt, "FATAL: Invalid Arguments!");
    assert_int_equal(pto_runtime_finish(rt), -PTO_INVALID_ARGS);
    small_run_ok(rt);
    pto_runtime_destroy(rt);
}

/* ---- a retained output is not reused while it is read ------------------ */

static atomic_int g_announced; /* the orchestrator is about to submit filler g_announced */
static atomic_int g_fills_ran; /* filler kernels that ran */
static atomic_int g_reader_done;

/* views[0] := scalars[0] + k everywhere; counts itself in g_fills_ran. */
static int k_fill(const pto_kernel_args *a)
{
    const pto_view *v = &a->views[0];
    for (uint64_t k = 0; k < view_count(v); k++) *el(v, k) = a->scalars[0] + k;
    atomic_fetch_add(&g_fills_ran, 1);
    return 0;
}

/* The late reader B: reads views[0] (A's output) at the end of its run,
 * which lasts until filler scalars[0] either ran or was announced 200 ms
 * ago (it cannot run before B completes unless A's bytes were handed out
 * early).  Every element must still be scalars[1] (else g_bad); copies
 * it to views[1]; sets g_reader_done last. */
static int k_read_late(const pto_kernel_args *a)
{
    stamp_start(1);
    int blocker = (int)a->scalars[0];
    uint64_t seen_ms = 0, deadline = now_ms() + 10000;
    while (atomic_load(&g_fills_ran) <= blocker && now_ms() < deadline) {
        if (!seen_ms && atomic_load(&g_announced) >= blocker) seen_ms = now_ms();
        if (seen_ms && now_ms() - seen_ms >= 200) break;
        nap_us(100);
    }
    const pto_view *v = &a->views[0];
    for (uint64_t k = 0; k < view_count(v); k++)
        if (*el(v, k) != a->scalars[1]) atomic_store(&g_bad, 1);
    copy_view(v, &a->views[1]);
    stamp_end(1);
    atomic_store(&g_reader_done, 1);
    return 0;
}

/* Ring 0's heap is 4096.  A writes a pattern into its 2048-byte output; B
 * reads it (creator edge: WAIT|RETAIN) at the end of a long run.  Meanwhile
 * one-task scopes of fillers with outputs of 1024, 2048, 1024 and 3072 bytes
 * write other patterns into their fresh buffers: the 2048-byte one fits
 * only in A's bytes (a wrap to 0), which the RETAIN pin keeps until B
 * completed.  So no filler's buffer may overlap A's while B runs, and B
 * must see A's pattern intact; after B, the bytes are reused. */
static void test_retained_output_not_reused_while_read(void **state)
{
    (void)state;
    enum { NFILL = 4, BLOCKER = 1 }; /* filler 1 (2048 bytes) needs A's bytes */
    static const uint64_t fill_bytes[NFILL] = {1024, 2048, 1024, 3072};
    pto_config cfg = cfg_rings(0, 0, 0, 2, E2E_NO_STALL_MS);
    cfg.runtime_env.ring_heap[0] = 4096;
    pto_runtime *rt = make_rt(&cfg);
    for (int run = 0; run < 3; run++) {
        uint64_t out[256], pattern = 0xa0000000ull + 1000 * (uint64_t)run;
        memset(out, 0, sizeof out);
        reset_globals();
        atomic_store(&g_announced, -1);
        atomic_store(&g_fills_ran, 0);
        atomic_store(&g_reader_done, 0);
        SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
        pto_arg oa[1] = {out_arg(256)}; /* 2048 bytes */
        uint64_t as[3] = {pattern, 0, 0};
        pto_task a = {k_write, NULL, "A", oa, 1, as, 3, NULL, 0, 0};
        check_submit(rt, &a, NULL);
        const char *a_lo = oa[0].view.addr, *a_hi = a_lo + 2048;
        pto_arg ba[2] = {arg(PTO_ARG_IN, oa[0].view), arg(PTO_ARG_OUTPUT_EXISTING, v1(out, 0, 256))};
        uint64_t bs[2] = {BLOCKER, pattern};
        pto_task b = {k_read_late, NULL, "B", ba, 2, bs, 2, NULL, 0, 0};
        check_submit(rt, &b, NULL);
        scope_end_ok(rt);
        int reused = 0;
        for (int i = 0; i < NFILL; i++) {
            SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
            pto_arg fa[1] = {out_arg(fill_bytes[i] / 8)};
            uint64_t fs = 0xf0000000ull + 0x10000ull * (uint64_t)i;
            pto_task f = {k_fill, NULL, "filler", fa, 1, &fs, 1, NULL, 0, 0};
            atomic_store(&g_announced, i);
            check_submit(rt, &f, NULL);
            const char *lo = fa[0].view.addr, *hi = lo + fill_bytes[i];
            if (lo < a_hi && a_lo < hi) {
                if (!atomic_load(&g_reader_done))
                    print_error("run %d: filler %d got [%p, %p), A's bytes [%p, %p), while B still reads them\n",
                                run, i, (void *)lo, (void *)hi, (void *)a_lo, (void *)a_hi);
                assert_int_equal(atomic_load(&g_reader_done), 1);
                reused = 1;
            }
            scope_end_ok(rt);
        }
        finish_ok(rt);
        assert_int_equal(atomic_load(&g_bad), 0);
        for (int k = 0; k < 256; k++) assert_true(out[k] == pattern);
        assert_after(0, 1);
        assert_true(reused); /* the heap is small enough that A's bytes come back */
    }
    pto_runtime_destroy(rt);
}

/* Dummy tasks (kernel NULL) take full part in dependencies. */
static void test_dummy_tasks(void **state)
{
    (void)state;
    pto_runtime *rt = make_rt_rings(0, 0, 0, 3, E2E_NO_STALL_MS);

    /* a dummy inside an INOUT chain: step, dummy, step, dummy, step */
    for (int run = 0; run < 20; run++) {
        uint64_t tile[8] = {0};
        reset_globals();
        for (uint64_t i = 0; i < 3; i++) {
            pto_arg sa[1] = {arg(PTO_ARG_INOUT, v1(tile, 0, 8))};
            uint64_t sc[2] = {i, i == 0 ? 500 : 0};
            pto_task s = {k_step, NULL, "step", sa, 1, sc, 2, NULL, 0, 0};
            check_submit(rt, &s, NULL);
            if (i < 2) {
                pto_arg da[1] = {arg(PTO_ARG_INOUT, v1(tile, 0, 8))};
                pto_task d = {NULL, NULL, "dummy", da, 1, NULL, 0, NULL, 0, 0};
                check_submit(rt, &d, NULL);
            }
        }
        finish_ok(rt);
        assert_int_equal(atomic_load(&g_bad), 0);
        for (int i = 0; i < 8; i++) assert_int_equal(tile[i], 3);
    }

    /* a 1000-long chain of dummies between a slow writer and a reader, in a
     * MANUAL scope so only the chain orders them */
    {
        uint64_t tile[8] = {0}, out[8] = {0};
        reset_globals();
        SCOPE_BEGIN_OK(rt, PTO_SCOPE_MANUAL);
        pto_task_id prev;
        submit_write(rt, PTO_ARG_OUTPUT_EXISTING, v1(tile, 0, 8), 7, 2000, 0, NULL, 0, &prev);
        for (int i = 0; i < 1000; i++) {
            pto_dep dep = {prev, i % 2 ? PTO_DEP_WAIT : PTO_DEP_WAIT_RETAIN};
            pto_task d = {NULL, NULL, "chain", NULL, 0, NULL, 0, &dep, 1, 0};
            check_submit(rt, &d, &prev);
        }
        pto_dep dep = {prev, PTO_DEP_WAIT_RETAIN};
        submit_copy(rt, v1(tile, 0, 8), v1(out, 0, 8), 0, 1, &dep, 1, NULL);
        scope_end_ok(rt);
        finish_ok(rt);
        for (int i = 0; i < 8; i++) assert_int_equal(out[i], 7);
        assert_after(0, 1);
    }

    /* a barrier of 2: P1, P2 -> dummy -> C (MANUAL) */
    for (int run = 0; run < 10; run++) {
        uint64_t x[4] = {0}, y[4] = {0}, out[1] = {0};
        SCOPE_BEGIN_OK(rt, PTO_SCOPE_MANUAL);
        pto_task_id p1, p2, b;
        submit_write(rt, PTO_ARG_OUTPUT_EXISTING, v1(x, 0, 4), 3, 1000, NO_REC, NULL, 0, &p1);
        submit_write(rt, PTO_ARG_OUTPUT_EXISTING, v1(y, 0, 4), 4, 1000, NO_REC, NULL, 0, &p2);
        pto_dep bd[2] = {{p1, PTO_DEP_WAIT_RETAIN}, {p2, PTO_DEP_WAIT_RETAIN}};
        pto_task barrier = {NULL, NULL, "barrier", NULL, 0, NULL, 0, bd, 2, 0};
        check_submit(rt, &barrier, &b);
        pto_dep cd[1] = {{b, PTO_DEP_WAIT_RETAIN}};
        pto_arg ca[3] = {arg(PTO_ARG_IN, v1(x, 0, 4)), arg(PTO_ARG_IN, v1(y, 0, 4)),
                         arg(PTO_ARG_OUTPUT_EXISTING, v1(out, 0, 1))};
        pto_task c = {k_sum, NULL, "sum", ca, 3, NULL, 0, cd, 1, 0};
        check_submit(rt, &c, NULL);
        scope_end_ok(rt);
        finish_ok(rt);
        assert_int_equal(out[0], 4 * 3 + 4 * 4);
    }

    /* fan 1 -> 18 -> 1 through dummies: S -> D0 -> 18 kernels -> D1 -> F */
    for (int run = 0; run < 10; run++) {
        uint64_t x[1] = {0}, y[18], out[1] = {0};
        memset(y, 0, sizeof y);
        SCOPE_BEGIN_OK(rt, PTO_SCOPE_MANUAL);
        pto_task_id s, d0, d1, mid[18];
        submit_write(rt, PTO_ARG_OUTPUT_EXISTING, v1(x, 0, 1), 5, 1000, NO_REC, NULL, 0, &s);
        pto_dep sd = {s, PTO_DEP_WAIT_RETAIN};
        pto_task join0 = {NULL, NULL, "fan_out", NULL, 0, NULL, 0, &sd, 1, 0};
        check_submit(rt, &join0, &d0);
        for (int i = 0; i < 18; i++) {
            pto_dep md = {d0, PTO_DEP_WAIT_RETAIN};
            pto_arg ma[2] = {arg(PTO_ARG_IN, v1(x, 0, 1)), arg(PTO_ARG_OUTPUT_EXISTING, v1(y, i, 1))};
            uint64_t msc[1] = {(uint64_t)i};
            pto_task m = {k_addc, NULL, "mid", ma, 2, msc, 1, &md, 1, 0};
            check_submit(rt, &m, &mid[i]);
        }
        pto_dep jd[18];
        for (int i = 0; i < 18; i++) jd[i] = (pto_dep){mid[i], PTO_DEP_WAIT_RETAIN};
        pto_task join1 = {NULL, NULL, "fan_in", NULL, 0, NULL, 0, jd, 18, 0};
        check_submit(rt, &join1, &d1);
        pto_dep fd = {d1, PTO_DEP_WAIT_RETAIN};
        pto_arg fa[2] = {arg(PTO_ARG_IN, v1(y, 0, 18)), arg(PTO_ARG_OUTPUT_EXISTING, v1(out, 0, 1))};
        pto_task f = {k_sum, NULL, "sum", fa, 2, NULL, 0, &fd, 1, 0};
        check_submit(rt, &f, NULL);
        scope_end_ok(rt);
        finish_ok(rt);
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
    pto_runtime *rt = make_rt_rings(0, 0, 0, 2, E2E_NO_STALL_MS);
    pto_task_id bad[2] = {((pto_task_id)3 << 32) | 12345, ((pto_task_id)5 << 32) | 0};
    for (int i = 0; i < 2; i++) {
        atomic_store(&g_ran, 0);
        pto_dep dep = {bad[i], PTO_DEP_WAIT_RETAIN};
        pto_task t = {k_mark, NULL, "mark", NULL, 0, NULL, 0, &dep, 1, 0};
        pto_task_id id = 0;
        assert_int_equal(pto_task_submit(rt, &t, &id), -PTO_INVALID_ARGS);
        assert_true(id == PTO_INVALID_TASK_ID);
        assert_int_equal(pto_runtime_error(rt)->code, PTO_INVALID_ARGS);
        expect_frag(rt, "FATAL: Invalid Arguments!");
        expect_frag(rt, "error_code=5 runtime_status=-5");
        assert_int_equal(pto_runtime_finish(rt), -PTO_INVALID_ARGS);
        assert_int_equal(atomic_load(&g_ran), 0);
    }

    /* a retired id: skipped silently */
    atomic_store(&g_ran, 0);
    pto_task first = {k_mark, NULL, "mark", NULL, 0, NULL, 0, NULL, 0, 0};
    pto_task_id fid;
    check_submit(rt, &first, &fid);
    finish_ok(rt);
    pto_dep dep = {fid, PTO_DEP_WAIT_RETAIN};
    pto_task second = {k_mark, NULL, "mark", NULL, 0, NULL, 0, &dep, 1, 0};
    check_submit(rt, &second, NULL);
    finish_ok(rt);
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
    cmocka_unit_test(test_retained_output_not_reused_while_read),
    cmocka_unit_test(test_dummy_tasks),
    cmocka_unit_test(test_explicit_unknown_id),
};

PTO_TEST_MAIN(tests)
