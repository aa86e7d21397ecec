/*
 * test_ready_queue.c - the bounded lock-free MPMC ready queue
 * (runtime/ready_queue.h) on its own, without the runtime around it.
 *
 * Invariants:
 *  - FIFO: on one thread, pops return the pushed values in push order, a pop
 *    of an empty queue returns 0, size = pushes - pops, and exactly
 *    `capacity` items fit, at every offset of the ring and over many laps.
 *  - init reports a failed reservation as -1 with the errno code.
 *  - Every pushed item is popped exactly once under concurrent producers and
 *    consumers, and under workers that both pop and push: no loss, no
 *    duplicate, no torn or invented value.
 *  - Per-producer order: the items of one producer that one consumer pops
 *    come out in push order.  This holds for this ring: a producer claims
 *    increasing positions from the monotonic tail, a consumer increasing
 *    positions from the monotonic head, and the item at a position is the
 *    one pushed there.  Nothing is asserted about order across consumers.
 *
 * Like the runtime (which sizes the ring to the sum of the task windows),
 * the tests never have more than `capacity` items live (credited to a push
 * and not yet popped): the header promises nothing beyond that.  The credit
 * and bookkeeping counters are relaxed atomics, so they add no
 * happens-before edges: the queue alone must publish each task value to its
 * popper (TSan checks it).  A broken ring can spin forever inside push, so
 * a watchdog ends a stuck threaded test with a message instead of a hang.
 */
#include "harness.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "runtime/ready_queue.h"
#include "runtime/reserve.h"
#include "runtime/sync.h"

/* ---- helpers for the threaded tests -------------------------------------- */

#define RQ_WATCHDOG_S 60
#define RQ_MAX_PRODUCERS 8u

static void rq_backoff(unsigned *spins)
{
    if (++*spins < 64) {
        rt_cpu_relax();
    } else {
        *spins = 0;
        sched_yield(); /* 2 cores, more threads: let the others run */
    }
}

/* Takes one free place from *credits, waiting while there is none. */
static void rq_take_credit(_Atomic int64_t *credits)
{
    unsigned spins = 0;
    int64_t c = atomic_load_explicit(credits, memory_order_relaxed);
    for (;;) {
        if (c > 0) {
            if (atomic_compare_exchange_weak_explicit(credits, &c, c - 1, memory_order_relaxed,
                                                      memory_order_relaxed))
                return;
        } else {
            rq_backoff(&spins);
            c = atomic_load_explicit(credits, memory_order_relaxed);
        }
    }
}

/* Takes one free place if there is one now. */
static int rq_try_credit(_Atomic int64_t *credits)
{
    int64_t c = atomic_load_explicit(credits, memory_order_relaxed);
    while (c > 0)
        if (atomic_compare_exchange_weak_explicit(credits, &c, c - 1, memory_order_relaxed,
                                                  memory_order_relaxed))
            return 1;
    return 0;
}

static void rq_give_credit(_Atomic int64_t *credits)
{
    atomic_fetch_add_explicit(credits, 1, memory_order_relaxed);
}

/* Items of the threaded tests: producer p (0-based) and its sequence number;
 * never 0, so a cell read before its value was published shows up. */
static uint64_t rq_item(uint32_t p, uint32_t seq) { return ((uint64_t)(p + 1) << 32) | seq; }
static uint32_t rq_item_producer(uint64_t item) { return (uint32_t)(item >> 32) - 1; }
static uint32_t rq_item_seq(uint64_t item) { return (uint32_t)item; }

/* Pops of every item: seen[p * seq_cap + seq] (sized for the most a producer
 * can push) and the total. */
typedef struct {
    _Atomic uint8_t *seen;
    uint32_t producers;
    uint64_t seq_cap;
    _Atomic uint64_t popped;
} rq_ledger;

/* One consumer's checks, kept on its own stack while it runs. */
typedef struct {
    uint64_t pops, invented, out_of_order;
    uint64_t first_bad; /* the first invented or out-of-order item */
    int64_t last[RQ_MAX_PRODUCERS]; /* last seq popped per producer, -1: none */
} rq_consumer;

static void rq_ledger_init(rq_ledger *l, uint32_t producers, uint64_t seq_cap)
{
    assert_true(producers <= RQ_MAX_PRODUCERS);
    l->seen = calloc((size_t)producers * seq_cap, 1);
    assert_non_null(l->seen);
    l->producers = producers;
    l->seq_cap = seq_cap;
    atomic_store(&l->popped, 0);
}

static void rq_consumer_init(rq_consumer *c)
{
    memset(c, 0, sizeof *c);
    for (uint32_t p = 0; p < RQ_MAX_PRODUCERS; p++) c->last[p] = -1;
}

static void rq_record(rq_ledger *l, rq_consumer *c, uint64_t item)
{
    uint32_t p = rq_item_producer(item), seq = rq_item_seq(item);
    c->pops++;
    atomic_fetch_add_explicit(&l->popped, 1, memory_order_relaxed);
    if (p >= l->producers || seq >= l->seq_cap) {
        if (!c->invented++ && !c->out_of_order) c->first_bad = item;
        return;
    }
    atomic_fetch_add_explicit(&l->seen[p * l->seq_cap + seq], 1, memory_order_relaxed);
    if ((int64_t)seq <= c->last[p]) {
        if (!c->out_of_order++ && !c->invented) c->first_bad = item;
    }
    c->last[p] = seq;
}

typedef struct {
    uint64_t pops, missing, duplicated, invented, out_of_order;
} rq_verdict;

/* After the join: every (p, seq < pushed[p]) popped exactly once, nothing
 * else popped; per consumer, each producer's items in push order. */
static rq_verdict rq_verdict_of(rq_ledger *l, const rq_consumer *cs, uint32_t consumers,
                                const uint64_t *pushed)
{
    rq_verdict v = {0};
    for (uint32_t c = 0; c < consumers; c++) {
        v.pops += cs[c].pops;
        v.invented += cs[c].invented;
        v.out_of_order += cs[c].out_of_order;
        if (cs[c].invented || cs[c].out_of_order)
            print_message("consumer %u: first bad item %#llx (producer %u, seq %u)\n", c,
                          (unsigned long long)cs[c].first_bad, rq_item_producer(cs[c].first_bad),
                          rq_item_seq(cs[c].first_bad));
    }
    for (uint32_t p = 0; p < l->producers; p++) {
        for (uint64_t seq = 0; seq < l->seq_cap; seq++) {
            uint8_t n = atomic_load_explicit(&l->seen[p * l->seq_cap + seq], memory_order_relaxed);
            if (seq >= pushed[p]) {
                v.invented += n;
            } else if (n != 1) {
                if (!v.missing && !v.duplicated)
                    print_message("item producer %u seq %llu popped %u times\n", p,
                                  (unsigned long long)seq, n);
                if (n == 0) v.missing++;
                else v.duplicated++;
            }
        }
    }
    free(l->seen);
    l->seen = NULL;
    return v;
}

/* Ends the process when the threads of a test have not finished within
 * RQ_WATCHDOG_S: a lost item or a wedged cell never lets them. */
typedef struct {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int done;
    const char *test;
} rq_watchdog;

static void *rq_watchdog_main(void *arg)
{
    rq_watchdog *w = arg;
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += RQ_WATCHDOG_S;
    pthread_mutex_lock(&w->mu);
    while (!w->done && pthread_cond_timedwait(&w->cv, &w->mu, &until) != ETIMEDOUT) {
    }
    int done = w->done;
    pthread_mutex_unlock(&w->mu);
    if (!done) {
        fprintf(stderr, "%s: threads still running after %d s (item lost or ring wedged)\n",
                w->test, RQ_WATCHDOG_S);
        _exit(3);
    }
    return NULL;
}

static void rq_watchdog_start(rq_watchdog *w, const char *test)
{
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&w->cv, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&w->mu, NULL);
    w->done = 0;
    w->test = test;
    assert_int_equal(pthread_create(&w->thread, NULL, rq_watchdog_main, w), 0);
}

static void rq_watchdog_stop(rq_watchdog *w)
{
    pthread_mutex_lock(&w->mu);
    w->done = 1;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->thread, NULL);
    pthread_cond_destroy(&w->cv);
    pthread_mutex_destroy(&w->mu);
}

/* ---- single thread ------------------------------------------------------- */

static uint64_t rq_value(uint64_t i) { return i * 0x9E3779B97F4A7C15ull; } /* i = 0 -> 0 */

static void test_ready_queue_fifo_single_thread(void **state)
{
    (void)state;
    for (uint64_t cap = 1; cap <= 64; cap *= 2) {
        rt_ready_queue q;
        int err = 0;
        assert_int_equal(rt_ready_queue_init(&q, cap, &err), 0);
        uint64_t t, in = 0, out = 0;

        /* Fresh: empty. */
        assert_int_equal(rt_ready_queue_size(&q), 0);
        assert_false(rt_ready_queue_pop(&q, &t));

        /* Fill to exactly capacity and drain, several laps. */
        for (int lap = 0; lap < 4; lap++) {
            for (uint64_t i = 0; i < cap; i++) {
                rt_ready_queue_push(&q, rq_value(in++));
                assert_int_equal(rt_ready_queue_size(&q), i + 1);
            }
            for (uint64_t i = 0; i < cap; i++) {
                assert_true(rt_ready_queue_pop(&q, &t));
                assert_int_equal(t, rq_value(out++));
                assert_int_equal(rt_ready_queue_size(&q), cap - i - 1);
            }
            assert_false(rt_ready_queue_pop(&q, &t));
            assert_int_equal(rt_ready_queue_size(&q), 0);
        }

        /* Sliding window of k live items (1..capacity): push one, pop one,
         * so the head and tail cross the wrap at every offset. */
        for (uint64_t k = 1; k <= cap; k++) {
            for (uint64_t i = 0; i < k; i++) rt_ready_queue_push(&q, rq_value(in++));
            for (uint64_t step = 0; step < 3 * cap + 1; step++) {
                assert_true(rt_ready_queue_pop(&q, &t));
                assert_int_equal(t, rq_value(out++));
                rt_ready_queue_push(&q, rq_value(in++));
                assert_int_equal(rt_ready_queue_size(&q), k);
            }
            for (uint64_t i = 0; i < k; i++) {
                assert_true(rt_ready_queue_pop(&q, &t));
                assert_int_equal(t, rq_value(out++));
            }
            assert_false(rt_ready_queue_pop(&q, &t));
            assert_int_equal(rt_ready_queue_size(&q), 0);
        }

        /* Any 64-bit value round-trips. */
        rt_ready_queue_push(&q, UINT64_MAX);
        assert_true(rt_ready_queue_pop(&q, &t));
        assert_int_equal(t, UINT64_MAX);
        rt_ready_queue_push(&q, 0);
        assert_true(rt_ready_queue_pop(&q, &t));
        assert_int_equal(t, 0);
        assert_false(rt_ready_queue_pop(&q, &t));
        rt_ready_queue_destroy(&q);
        assert_null(q.cells);
    }
}

static void test_ready_queue_init_failure_reports_errno(void **state)
{
    (void)state;
    rt_ready_queue q;
    int err = 0;
    rt_reserve_inject_failure(1);
    assert_int_equal(rt_ready_queue_init(&q, 8, &err), -1);
    assert_int_equal(err, ENOMEM);
    rt_reserve_inject_failure(0);
    assert_int_equal(rt_ready_queue_init(&q, 8, &err), 0);
    rt_ready_queue_destroy(&q);
}

/* ---- producers and consumers --------------------------------------------- */

/* Producers push per_producer items each, taking a credit first; consumers
 * pop until all are popped, giving the credit back.  All threads start at a
 * barrier so pushes and pops overlap; a small capacity makes the ring lap
 * thousands of times and run full often. */
#ifdef PTO_SANITIZER
#define PC_PER_PRODUCER 100000u
#else
#define PC_PER_PRODUCER 500000u
#endif
#define PC_CAPACITY 256u
#define PC_MAX_THREADS 8u

typedef struct {
    rt_ready_queue q;
    pthread_barrier_t start;
    _Atomic int64_t credits; /* free places: capacity - live items */
    rq_ledger ledger;
    uint64_t total;
    uint32_t per_producer;
    rq_consumer cons[PC_MAX_THREADS];
    uint64_t pushed[PC_MAX_THREADS];
} pc_shared;

typedef struct {
    pc_shared *s;
    uint32_t index;
} pc_arg;

static void *pc_producer(void *arg)
{
    pc_arg *a = arg;
    pc_shared *s = a->s;
    uint32_t seq = 0;
    pthread_barrier_wait(&s->start);
    for (; seq < s->per_producer; seq++) {
        rq_take_credit(&s->credits);
        rt_ready_queue_push(&s->q, rq_item(a->index, seq));
    }
    s->pushed[a->index] = seq;
    return NULL;
}

static void *pc_consumer(void *arg)
{
    pc_arg *a = arg;
    pc_shared *s = a->s;
    rq_consumer me;
    uint64_t item;
    unsigned spins = 0;
    rq_consumer_init(&me);
    pthread_barrier_wait(&s->start);
    while (atomic_load_explicit(&s->ledger.popped, memory_order_relaxed) < s->total) {
        if (rt_ready_queue_pop(&s->q, &item)) {
            rq_give_credit(&s->credits);
            rq_record(&s->ledger, &me, item);
        } else {
            rq_backoff(&spins);
        }
    }
    s->cons[a->index] = me;
    return NULL;
}

/* Runs producers x consumers; the queue must be empty again after. */
static rq_verdict pc_run(uint32_t producers, uint32_t consumers, const char *test)
{
    static pc_shared s;
    memset(&s, 0, sizeof s);
    int err = 0;
    assert_int_equal(rt_ready_queue_init(&s.q, PC_CAPACITY, &err), 0);
    atomic_store(&s.credits, PC_CAPACITY);
    s.per_producer = PC_PER_PRODUCER;
    s.total = (uint64_t)producers * PC_PER_PRODUCER;
    rq_ledger_init(&s.ledger, producers, PC_PER_PRODUCER);
    assert_int_equal(pthread_barrier_init(&s.start, NULL, producers + consumers), 0);

    rq_watchdog w;
    rq_watchdog_start(&w, test);
    pthread_t th[2 * PC_MAX_THREADS];
    pc_arg args[2 * PC_MAX_THREADS];
    for (uint32_t i = 0; i < producers + consumers; i++) {
        int prod = i < producers;
        args[i] = (pc_arg){&s, prod ? i : i - producers};
        assert_int_equal(pthread_create(&th[i], NULL, prod ? pc_producer : pc_consumer, &args[i]), 0);
    }
    for (uint32_t i = 0; i < producers + consumers; i++) pthread_join(th[i], NULL);
    rq_watchdog_stop(&w);

    rq_verdict v = rq_verdict_of(&s.ledger, s.cons, consumers, s.pushed); /* prints first */
    for (uint32_t p = 0; p < producers; p++) assert_int_equal(s.pushed[p], PC_PER_PRODUCER);
    assert_int_equal(atomic_load(&s.credits), PC_CAPACITY);
    uint64_t t;
    assert_false(rt_ready_queue_pop(&s.q, &t));
    assert_int_equal(rt_ready_queue_size(&s.q), 0);
    pthread_barrier_destroy(&s.start);
    rt_ready_queue_destroy(&s.q);
    return v;
}

static void test_ready_queue_every_item_once(void **state)
{
    (void)state;
    rq_verdict v = pc_run(3, 3, "test_ready_queue_every_item_once");
    assert_int_equal(v.missing, 0);
    assert_int_equal(v.duplicated, 0);
    assert_int_equal(v.invented, 0);
    assert_int_equal(v.pops, 3ull * PC_PER_PRODUCER);
}

static void test_ready_queue_one_consumer_sees_each_producer_in_order(void **state)
{
    (void)state;
    rq_verdict v = pc_run(4, 2, "test_ready_queue_one_consumer_sees_each_producer_in_order");
    assert_int_equal(v.out_of_order, 0);
    assert_int_equal(v.invented, 0);
    assert_int_equal(v.pops, 4ull * PC_PER_PRODUCER);
}

/* ---- workers that pop and push ------------------------------------------- */

/* Each worker pops an item and, like a finished task making its consumers
 * ready, pushes 0, 1 or 2 new items (chosen by a hash of the item), as far
 * as the credits and the item budget allow: 1.5 on average for 512 pops,
 * then 0.5 for the next 512, and so on, so the live count swings between
 * full and empty many times.  The worker whose pop left nothing live pushes
 * at least one, so the work never dies out before the budget is spent.
 * Producer index MX_WORKERS is the main thread's seeds. */
#define MX_WORKERS 4u
#define MX_CAPACITY 64u
#define MX_SEEDS 8u
#ifdef PTO_SANITIZER
#define MX_ITEMS 200000u
#else
#define MX_ITEMS 2000000u
#endif

typedef struct {
    rt_ready_queue q;
    pthread_barrier_t start;
    _Atomic int64_t credits; /* free places: capacity - live items */
    _Atomic uint64_t budget; /* items handed out so far, up to MX_ITEMS */
    rq_ledger ledger;
    rq_consumer cons[MX_WORKERS];
    uint64_t pushed[MX_WORKERS + 1];
} mx_shared;

typedef struct {
    mx_shared *s;
    uint32_t index;
} mx_arg;

/* A free place and one more item from the budget: 1, or 0 (credit given
 * back) when no place is free now or the budget is spent. */
static int mx_claim(mx_shared *s)
{
    if (!rq_try_credit(&s->credits)) return 0;
    if (atomic_fetch_add_explicit(&s->budget, 1, memory_order_relaxed) < MX_ITEMS) return 1;
    rq_give_credit(&s->credits);
    return 0;
}

static void *mx_worker(void *arg)
{
    mx_arg *a = arg;
    mx_shared *s = a->s;
    rq_consumer me;
    uint64_t item;
    uint32_t seq = 0;
    unsigned spins = 0;
    rq_consumer_init(&me);
    pthread_barrier_wait(&s->start);
    while (atomic_load_explicit(&s->ledger.popped, memory_order_relaxed) < MX_ITEMS) {
        if (!rt_ready_queue_pop(&s->q, &item)) {
            rq_backoff(&spins);
            continue;
        }
        rq_record(&s->ledger, &me, item);
        int64_t before = atomic_fetch_add_explicit(&s->credits, 1, memory_order_relaxed);
        uint32_t children = (uint32_t)((item * 0x9E3779B97F4A7C15ull) >> 63); /* 0 or 1 */
        if (!((me.pops >> 9) & 1)) children++;
        if (before == MX_CAPACITY - 1 && children == 0) children = 1; /* nothing else live */
        for (uint32_t c = 0; c < children && mx_claim(s); c++)
            rt_ready_queue_push(&s->q, rq_item(a->index, seq++));
    }
    s->pushed[a->index] = seq;
    s->cons[a->index] = me;
    return NULL;
}

static void test_ready_queue_mixed_workers_every_item_once(void **state)
{
    (void)state;
    static mx_shared s;
    memset(&s, 0, sizeof s);
    int err = 0;
    assert_int_equal(rt_ready_queue_init(&s.q, MX_CAPACITY, &err), 0);
    atomic_store(&s.credits, MX_CAPACITY);
    rq_ledger_init(&s.ledger, MX_WORKERS + 1, MX_ITEMS);
    for (uint32_t i = 0; i < MX_SEEDS; i++) {
        assert_true(mx_claim(&s));
        rt_ready_queue_push(&s.q, rq_item(MX_WORKERS, i));
    }
    s.pushed[MX_WORKERS] = MX_SEEDS;
    assert_int_equal(pthread_barrier_init(&s.start, NULL, MX_WORKERS), 0);

    rq_watchdog w;
    rq_watchdog_start(&w, "test_ready_queue_mixed_workers_every_item_once");
    pthread_t th[MX_WORKERS];
    mx_arg args[MX_WORKERS];
    for (uint32_t i = 0; i < MX_WORKERS; i++) {
        args[i] = (mx_arg){&s, i};
        assert_int_equal(pthread_create(&th[i], NULL, mx_worker, &args[i]), 0);
    }
    for (uint32_t i = 0; i < MX_WORKERS; i++) pthread_join(th[i], NULL);
    rq_watchdog_stop(&w);

    rq_verdict v = rq_verdict_of(&s.ledger, s.cons, MX_WORKERS, s.pushed);
    assert_int_equal(v.missing, 0);
    assert_int_equal(v.duplicated, 0);
    assert_int_equal(v.invented, 0);
    assert_int_equal(v.out_of_order, 0);
    assert_int_equal(v.pops, MX_ITEMS);

    uint64_t pushed = 0;
    for (uint32_t p = 0; p <= MX_WORKERS; p++) pushed += s.pushed[p];
    assert_int_equal(pushed, MX_ITEMS);
    assert_int_equal(atomic_load(&s.credits), MX_CAPACITY);
    uint64_t t;
    assert_false(rt_ready_queue_pop(&s.q, &t));
    assert_int_equal(rt_ready_queue_size(&s.q), 0);
    pthread_barrier_destroy(&s.start);
    rt_ready_queue_destroy(&s.q);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_ready_queue_fifo_single_thread),
    cmocka_unit_test(test_ready_queue_init_failure_reports_errno),
    cmocka_unit_test(test_ready_queue_every_item_once),
    cmocka_unit_test(test_ready_queue_one_consumer_sees_each_producer_in_order),
    cmocka_unit_test(test_ready_queue_mixed_workers_every_item_once),
};

PTO_TEST_MAIN(tests)
