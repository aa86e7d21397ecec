/*
 * test_e2e_manual.c - MANUAL scopes: explicit dependencies are the only
 * ordering, but lifetime is never dropped.  A view naming a runtime buffer
 * (owner set) keeps its creator, and the creator's heap bytes, alive until
 * the task completes, whatever kind of dependency orders it.  Tasks outside
 * the MANUAL scope and pto_view_wait see nothing MANUAL tasks touched; an
 * explicit dependency (or a wait on the buffer's owner) orders them.
 */
#include <stdatomic.h>

#include "harness.h"
#include "e2e.h"

enum { ELEMS = 256 }; /* 2048 bytes of uint64 */

static _Atomic int reader_done;
static _Atomic int reader_saw_other;

static int k_fill(const pto_kernel_args *a)
{
    const pto_view *v = &a->views[a->num_views - 1];
    for (uint64_t k = 0; k < view_count(v); k++) *el(v, k) = a->scalars[0];
    return 0;
}

/* Copies views[0] into views[1]. */
static int k_copy(const pto_kernel_args *a)
{
    for (uint64_t k = 0; k < view_count(&a->views[1]); k++) *el(&a->views[1], k) = *el(&a->views[0], k);
    return 0;
}

/* Fills its view after a pause, so an unordered reader would run first. */
static int k_slow_fill(const pto_kernel_args *a)
{
    nap_ms(30);
    return k_fill(a);
}

/* Reads its buffer for a while: every element must keep the producer's
 * value (0xAA...) throughout. */
static int k_slow_reader(const pto_kernel_args *a)
{
    const pto_view *v = &a->views[0];
    uint64_t end = now_ms() + a->scalars[0];
    do {
        for (uint64_t k = 0; k < view_count(v); k++)
            if (*(volatile uint64_t *)el(v, k) != 0xAAAAAAAAAAAAAAAAull) atomic_store(&reader_saw_other, 1);
        nap_us(200);
    } while (now_ms() < end);
    atomic_store(&reader_done, 1);
    return 0;
}

static int overlaps(const void *a, const void *b, size_t n)
{
    return (const char *)a < (const char *)b + n && (const char *)b < (const char *)a + n;
}

/* The audit's corruption: in a MANUAL scope a reader of a runtime buffer
 * lists its producer with PTO_DEP_WAIT only; the scope ends while it still
 * reads.  Later OUT buffers of the ring must not take those bytes before the
 * reader completed, and the reader must see its data unchanged. */
static void test_manual_wait_only_keeps_owner_alive(void **state)
{
    (void)state;
    for (int retain = 0; retain < 2; retain++) {
        atomic_store(&reader_done, 0);
        atomic_store(&reader_saw_other, 0);
        pto_config cfg = cfg_rings(0, 0, 0, 2, E2E_NO_STALL_MS);
        cfg.runtime_env.ring_heap[0] = 4096;
        pto_runtime *rt = make_rt(&cfg);

        check_ok(rt, pto_scope_begin(rt, PTO_SCOPE_MANUAL, __FILE__, __LINE__), "scope_begin");
        pto_arg pout = out_arg(ELEMS);
        uint64_t aa = 0xAAAAAAAAAAAAAAAAull, read_ms = 300;
        pto_task p = {.kernel = k_fill, .name = "producer", .args = &pout, .num_args = 1,
                      .scalars = &aa, .num_scalars = 1};
        pto_task_id pid;
        check_submit(rt, &p, &pid);
        void *pbuf = pout.view.addr;
        pto_arg rin = arg(PTO_ARG_IN, pout.view);
        pto_dep dep = {pid, retain ? PTO_DEP_WAIT_RETAIN : PTO_DEP_WAIT};
        pto_task r = {.kernel = k_slow_reader, .name = "reader", .args = &rin, .num_args = 1,
                      .scalars = &read_ms, .num_scalars = 1, .deps = &dep, .num_deps = 1};
        check_submit(rt, &r, NULL);
        scope_end_ok(rt);

        /* New buffers on the same ring's heap, each filled with another value. */
        for (int i = 0; i < 6; i++) {
            check_ok(rt, pto_scope_begin(rt, PTO_SCOPE_MANUAL, __FILE__, __LINE__), "scope_begin");
            pto_arg o = out_arg(ELEMS);
            uint64_t v55 = 0x5555555555555555ull;
            pto_task w = {.kernel = k_fill, .name = "writer", .args = &o, .num_args = 1,
                          .scalars = &v55, .num_scalars = 1};
            check_submit(rt, &w, NULL);
            /* the reader's bytes are handed out only once it has finished */
            if (overlaps(o.view.addr, pbuf, ELEMS * sizeof(uint64_t))) assert_true(atomic_load(&reader_done));
            scope_end_ok(rt);
        }
        finish_ok(rt);
        assert_true(atomic_load(&reader_done));
        assert_false(atomic_load(&reader_saw_other));
        pto_runtime_destroy(rt);
    }
}

/* MANUAL skips discovery: pto_view_wait and later AUTO tasks do not see a
 * MANUAL writer; waiting on the buffer's owner (the producer of an OUT
 * buffer) or an explicit dependency orders them. */
static void test_manual_writer_ordered_by_explicit_dep(void **state)
{
    (void)state;
    pto_runtime *rt = make_rt_rings(0, 0, 0, 2, E2E_NO_STALL_MS);
    static uint64_t buf[ELEMS];
    memset(buf, 0, sizeof buf);
    check_ok(rt, pto_scope_begin(rt, PTO_SCOPE_MANUAL, __FILE__, __LINE__), "scope_begin");
    pto_arg wa = arg(PTO_ARG_OUTPUT_EXISTING, v1(buf, 0, ELEMS));
    uint64_t seven = 7;
    pto_task w = {.kernel = k_slow_fill, .name = "manual writer", .args = &wa, .num_args = 1,
                  .scalars = &seven, .num_scalars = 1};
    pto_task_id wid;
    check_submit(rt, &w, &wid);
    scope_end_ok(rt);
    /* An AUTO reader orders itself with an explicit dependency. */
    check_ok(rt, pto_scope_begin(rt, PTO_SCOPE_AUTO, __FILE__, __LINE__), "scope_begin");
    static uint64_t out[ELEMS];
    pto_arg ra[2] = {arg(PTO_ARG_IN, v1(buf, 0, ELEMS)), arg(PTO_ARG_OUTPUT_EXISTING, v1(out, 0, ELEMS))};
    pto_dep d = {wid, PTO_DEP_WAIT};
    pto_task copy = {.kernel = k_copy, .name = "reader", .args = ra, .num_args = 2,
                     .deps = &d, .num_deps = 1};
    check_submit(rt, &copy, NULL);
    scope_end_ok(rt);
    /* pto_view_wait does not wait for the MANUAL writer (no tensormap entry),
     * but returns at once without error. */
    check_ok(rt, pto_view_wait(rt, &wa.view, 0), "pto_view_wait");
    finish_ok(rt);
    for (int k = 0; k < ELEMS; k++) assert_int_equal(out[k], 7);
    pto_runtime_destroy(rt);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_manual_wait_only_keeps_owner_alive),
    cmocka_unit_test(test_manual_writer_ordered_by_explicit_dep),
};

PTO_TEST_MAIN(tests)
