/*
 * test_runtime_ordering_rules.c - dependency rules of the tensormap the
 * end-to-end ordering tests do not pin down, read off the consumer's fanin
 * right after its submit (deterministic: every producer is held open by a
 * closed gate, so no edge can be skipped as already done):
 *   - OUTPUT_EXISTING registers its task as a writer: a later reader of
 *     the region waits for it (RAW) and a later writer too (WAW);
 *   - a reader never removes the writer entry it covers: a second reader
 *     still finds the writer;
 *   - a writer removes only the entries it covers: an older writer's entry
 *     that it overlaps in part stays, so a reader of the uncovered part
 *     still waits for the older writer;
 *   - a reader cannot pin a producer that is already consumed.
 */
#include "harness.h"

#include "testutil.h"

static uint64_t g_buf[64];

/* Whether task c has a WAIT edge to producer p. */
static int waits_for(pto_runtime *rt, pto_task_id c, pto_task_id p)
{
    const rt_slot *s = tu_slot(rt, c);
    for (uint32_t i = 0; i < s->num_fanin && i < RT_FANIN_INLINE_CAP; i++)
        if (RT_EDGE_ID(s->fanin[i]) == p && (s->fanin[i] & RT_DEP_WAIT)) return 1;
    return 0;
}

/* Submits one task on g_buf[off, off + n) with tag; the gate holds it. */
static pto_task_id submit_on(pto_runtime *rt, pto_arg_tag tag, int64_t off, uint64_t n)
{
    pto_arg a = arg(tag, v1(g_buf, off, n));
    pto_task t = {.kernel = tu_latch_kernel, .name = "held", .args = &a, .num_args = 1};
    pto_task_id id;
    check_submit(rt, &t, &id);
    return id;
}

static pto_runtime *held_rt(void)
{
    tu_gate_reset();
    return make_rt_rings(64, 0, 0, 1, 0);
}

static void release_and_finish(pto_runtime *rt)
{
    atomic_store(&tu_gate, 1);
    finish_ok(rt);
    pto_runtime_destroy(rt);
}

static void test_output_existing_is_a_writer_for_later_readers_and_writers(void **s)
{
    (void)s;
    pto_runtime *rt = held_rt();
    pto_task_id w = submit_on(rt, PTO_ARG_OUTPUT_EXISTING, 0, 8);
    pto_task_id r = submit_on(rt, PTO_ARG_IN, 0, 8);
    pto_task_id w2 = submit_on(rt, PTO_ARG_OUTPUT_EXISTING, 4, 8);
    assert_true(waits_for(rt, r, w));   /* RAW */
    assert_true(waits_for(rt, w2, w));  /* WAW */
    assert_true(waits_for(rt, w2, r));  /* WAR */
    release_and_finish(rt);
}

static void test_reader_keeps_the_writer_entry_it_covers(void **s)
{
    (void)s;
    pto_runtime *rt = held_rt();
    pto_task_id w = submit_on(rt, PTO_ARG_INOUT, 0, 8);
    pto_task_id r1 = submit_on(rt, PTO_ARG_IN, 0, 16);
    pto_task_id r2 = submit_on(rt, PTO_ARG_IN, 0, 8);
    assert_true(waits_for(rt, r1, w));
    assert_true(waits_for(rt, r2, w));
    assert_false(waits_for(rt, r2, r1)); /* readers never wait for readers */
    release_and_finish(rt);
}

static void test_writer_keeps_entries_it_overlaps_only_in_part(void **s)
{
    (void)s;
    pto_runtime *rt = held_rt();
    pto_task_id w1 = submit_on(rt, PTO_ARG_INOUT, 0, 16);
    pto_task_id w2 = submit_on(rt, PTO_ARG_INOUT, 0, 8);
    pto_task_id r = submit_on(rt, PTO_ARG_IN, 8, 8);
    assert_true(waits_for(rt, w2, w1));
    assert_true(waits_for(rt, r, w1));  /* [8, 16) is still w1's */
    assert_false(waits_for(rt, r, w2)); /* disjoint */
    /* A writer covering w2's region removes its entry, and only w3 is
     * then found there. */
    pto_task_id w3 = submit_on(rt, PTO_ARG_INOUT, 0, 8);
    pto_task_id r2 = submit_on(rt, PTO_ARG_IN, 0, 4);
    assert_true(waits_for(rt, w3, w2));
    assert_true(waits_for(rt, r2, w3));
    assert_false(waits_for(rt, r2, w2));
    release_and_finish(rt);
}

/* A reader of an output whose producer is already CONSUMED (its scope
 * ended, nothing reads it) but not yet retired (an older task holds the
 * ring's head) cannot pin it any more: the producer's fanout count stays,
 * and the reader keeps no RETAIN edge that would release, at its
 * completion, whatever task reuses the producer's slot by then. */
static void test_consumed_producer_is_not_pinned_by_a_late_reader(void **s)
{
    (void)s;
    tu_gate_reset();
    pto_runtime *rt = make_rt_rings(64, 0, 0, 2, 0);
    pto_task head = {.kernel = tu_latch_kernel, .name = "head"};
    pto_task_id hid;
    check_submit(rt, &head, &hid); /* holds the ring's head, and one worker */
    SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
    pto_arg out = out_arg(4);
    pto_task producer = {.name = "producer", .args = &out, .num_args = 1};
    pto_task_id pid;
    check_submit(rt, &producer, &pid);
    scope_end_ok(rt);
    tu_wait_state(rt, pid, RT_TASK_CONSUMED);
    uint32_t count = tu_slot(rt, pid)->fanout_count;
    pto_arg in = arg(PTO_ARG_IN, out.view);
    pto_task reader = {.kernel = tu_latch_kernel, .name = "reader", .args = &in, .num_args = 1};
    pto_task_id rid;
    check_submit(rt, &reader, &rid);
    assert_int_equal(tu_slot(rt, pid)->fanout_count, count);
    const rt_slot *rs = tu_slot(rt, rid);
    for (uint32_t i = 0; i < rs->num_fanin; i++)
        if (RT_EDGE_ID(rs->fanin[i]) == pid) assert_false(rs->fanin[i] & RT_DEP_RETAIN);
    release_and_finish(rt);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_output_existing_is_a_writer_for_later_readers_and_writers),
    cmocka_unit_test(test_reader_keeps_the_writer_entry_it_covers),
    cmocka_unit_test(test_writer_keeps_entries_it_overlaps_only_in_part),
    cmocka_unit_test(test_consumed_producer_is_not_pinned_by_a_late_reader),
};

PTO_TEST_MAIN(tests)
