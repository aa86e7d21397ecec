/*
 * test_pool.c - the circular pools of a ring (docs/runtime.md, "The ring model"): the
 * dependency pool (16-byte fanout nodes) and the fanin spill pool (8-byte
 * edges beyond the 64 inline), unit tests on rt_pool directly.
 */
#include "harness.h"

#include <string.h>

#include "runtime/ring.h"
#include "runtime/task.h"

#define D 4u

static void test_dep_pool_basics(void **state)
{
    (void)state;
    rt_dep_node buf[D];
    memset(buf, 0, sizeof buf);
    rt_pool p = {(char *)buf, sizeof(rt_dep_node), D, 1, 1, 0};

    /* Fresh: top = tail = 1, nothing used. */
    assert_int_equal(p.top, 1);
    assert_int_equal(p.tail, 1);
    assert_int_equal(rt_pool_used(&p), 0);
    assert_true(rt_pool_has_room(&p, D));
    assert_false(rt_pool_has_room(&p, D + 1));

    /* D allocations pass, one more does not; prepend builds a LIFO list. */
    rt_dep_node *head = NULL;
    void *taken[D];
    for (uint32_t i = 0; i < D; i++) {
        assert_true(rt_pool_has_room(&p, 1));
        uint64_t counter = p.top;
        rt_dep_node *n = rt_pool_take(&p);
        assert_ptr_equal(n, &buf[counter % D]);
        assert_ptr_equal(n, rt_pool_at(&p, counter));
        for (uint32_t j = 0; j < i; j++) assert_ptr_not_equal(n, taken[j]); /* no aliasing */
        taken[i] = n;
        n->consumer = rt_task_id(1, 100 + i);
        n->next = head;
        head = n;
        assert_int_equal(rt_pool_used(&p), i + 1);
        assert_int_equal(p.high_water, i + 1);
    }
    assert_int_equal(p.top, 1 + D);
    assert_false(rt_pool_has_room(&p, 1));
    assert_true(rt_pool_has_room(&p, 0));

    uint32_t k = 0;
    for (rt_dep_node *n = head; n; n = n->next, k++)
        assert_int_equal(n->consumer, rt_task_id(1, 100 + (D - 1 - k)));
    assert_int_equal(k, D);

    /* Tail forward frees; backward is a no-op. */
    rt_pool_reclaim_to(&p, 3);
    assert_int_equal(p.tail, 3);
    assert_int_equal(rt_pool_used(&p), D - 2);
    assert_true(rt_pool_has_room(&p, 2));
    assert_false(rt_pool_has_room(&p, 3));
    rt_pool_reclaim_to(&p, 2);
    assert_int_equal(p.tail, 3);
    rt_pool_reclaim_to(&p, 0);
    assert_int_equal(p.tail, 3);
    rt_pool_reclaim_to(&p, 3);
    assert_int_equal(p.tail, 3);
    assert_int_equal(rt_pool_used(&p), D - 2);

    /* High water never falls. */
    assert_int_equal(p.high_water, D);
    rt_pool_take(&p);
    assert_int_equal(p.high_water, D);
    rt_pool_reclaim_to(&p, p.top);
    assert_int_equal(rt_pool_used(&p), 0);
    assert_int_equal(p.high_water, D);
    for (uint32_t i = 0; i < 2; i++) rt_pool_take(&p);
    assert_int_equal(rt_pool_used(&p), 2);
    assert_int_equal(p.high_water, D);

    /* Many laps: entries of live counters never alias, counters keep growing. */
    rt_pool_reclaim_to(&p, p.top);
    uint64_t last_top = p.top;
    for (int lap = 0; lap < 50; lap++) {
        void *live[D];
        for (uint32_t i = 0; i < D; i++) {
            live[i] = rt_pool_take(&p);
            for (uint32_t j = 0; j < i; j++) assert_ptr_not_equal(live[i], live[j]);
        }
        assert_false(rt_pool_has_room(&p, 1));
        rt_pool_reclaim_to(&p, p.top - 1); /* free all but the newest */
        assert_int_equal(rt_pool_used(&p), 1);
        rt_pool_reclaim_to(&p, p.top);
        assert_true(p.top > last_top);
        last_top = p.top;
    }
    assert_int_equal(p.high_water, D);
}

static uint64_t edge_of(uint32_t i) { return RT_DEP_WAIT | rt_task_id(2, 1000 + i); }

/* Collects n fanin edges into s the way submit does: 64 inline, the rest
 * spilled; records spill_start and spill_mark. */
static void collect_fanin(rt_slot *s, rt_pool *spill, uint32_t n)
{
    s->num_fanin = n;
    s->spill_start = spill->top;
    uint32_t inl = n < RT_FANIN_INLINE_CAP ? n : RT_FANIN_INLINE_CAP;
    for (uint32_t i = 0; i < inl; i++) s->fanin[i] = edge_of(i);
    assert_true(rt_pool_has_room(spill, n - inl));
    for (uint32_t i = inl; i < n; i++) *(uint64_t *)rt_pool_take(spill) = edge_of(i);
    s->spill_mark = spill->top;
}

static void check_fanin(const rt_slot *s, const rt_pool *spill, uint32_t n)
{
    uint32_t count = 0;
    for (uint32_t i = 0; i < s->num_fanin; i++, count++)
        assert_int_equal(rt_slot_fanin_edge(s, spill, i), edge_of(i));
    assert_int_equal(count, n);
    uint32_t spilled = n > RT_FANIN_INLINE_CAP ? n - RT_FANIN_INLINE_CAP : 0;
    assert_int_equal(s->spill_mark - s->spill_start, spilled);
}

static void test_spill_pool_index(void **state)
{
    (void)state;
    enum { CAP = 8 };
    uint64_t buf[CAP];
    memset(buf, 0, sizeof buf);
    rt_pool p = {(char *)buf, sizeof(uint64_t), CAP, 1, 1, 0};

    /* index = counter % cap; the first counter is 1 -> entry 1. */
    for (uint64_t c = 0; c < 3 * CAP; c++)
        assert_ptr_equal(rt_pool_at(&p, c), &buf[c % CAP]);
    uint64_t *e = rt_pool_take(&p);
    assert_ptr_equal(e, &buf[1]);
    for (uint32_t i = 2; i < CAP; i++) assert_ptr_equal(rt_pool_take(&p), &buf[i]);
    assert_int_equal(p.top, CAP);
    assert_int_equal(rt_pool_used(&p), CAP - 1);

    /* After a drain the next counter (8) wraps to entry 0, then 1, ... */
    rt_pool_reclaim_to(&p, p.top);
    assert_int_equal(rt_pool_used(&p), 0);
    assert_ptr_equal(rt_pool_take(&p), &buf[0]);
    assert_ptr_equal(rt_pool_take(&p), &buf[1]);
    rt_pool_reclaim_to(&p, p.top);

    /* Fanin iteration. */
    static rt_slot s;
    static uint64_t inline_edges[RT_FANIN_INLINE_CAP]; /* the record's inline part */

    /* zero fanin: nothing inline, nothing spilled */
    memset(&s, 0, sizeof s);
    s.fanin = inline_edges;
    uint64_t top = p.top;
    collect_fanin(&s, &p, 0);
    assert_int_equal(p.top, top);
    check_fanin(&s, &p, 0);

    /* inline only: up to 64 edges take no spill entries */
    collect_fanin(&s, &p, 10);
    assert_int_equal(p.top, top);
    check_fanin(&s, &p, 10);
    collect_fanin(&s, &p, RT_FANIN_INLINE_CAP);
    assert_int_equal(p.top, top);
    check_fanin(&s, &p, RT_FANIN_INLINE_CAP);

    /* spill: 70 edges -> 64 inline + 6 spilled, no wrap (counters 10..15 -> 2..7) */
    assert_int_equal(p.top, 10);
    collect_fanin(&s, &p, RT_FANIN_INLINE_CAP + 6);
    assert_int_equal(s.spill_start, 10);
    assert_int_equal(p.top, 16);
    for (uint32_t i = 0; i < 6; i++) assert_int_equal(buf[2 + i], edge_of(RT_FANIN_INLINE_CAP + i));
    check_fanin(&s, &p, RT_FANIN_INLINE_CAP + 6);
    rt_pool_reclaim_to(&p, s.spill_mark); /* the consumer retired */
    assert_int_equal(rt_pool_used(&p), 0);

    /* spill with wrap: start at counter 21 (entry 5), 6 edges -> entries 5,6,7,0,1,2 */
    for (int i = 0; i < 5; i++) rt_pool_take(&p);
    rt_pool_reclaim_to(&p, p.top);
    assert_int_equal(p.top, 21);
    memset(buf, 0, sizeof buf);
    collect_fanin(&s, &p, RT_FANIN_INLINE_CAP + 6);
    assert_int_equal(s.spill_start, 21);
    assert_int_equal(s.spill_mark, 27);
    static const int idx[6] = {5, 6, 7, 0, 1, 2};
    for (uint32_t i = 0; i < 6; i++)
        assert_int_equal(buf[idx[i]], edge_of(RT_FANIN_INLINE_CAP + i));
    check_fanin(&s, &p, RT_FANIN_INLINE_CAP + 6);

    /* A full pool of spilled edges (cap) still iterates right. */
    rt_pool_reclaim_to(&p, s.spill_mark);
    collect_fanin(&s, &p, RT_FANIN_INLINE_CAP + CAP);
    assert_false(rt_pool_has_room(&p, 1));
    check_fanin(&s, &p, RT_FANIN_INLINE_CAP + CAP);
    assert_int_equal(p.high_water, CAP);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_dep_pool_basics),
    cmocka_unit_test(test_spill_pool_index),
};

PTO_TEST_MAIN(tests)
