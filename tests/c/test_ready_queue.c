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
 *    consumers: no loss, no duplicate, no torn or invented value.
 *  - Per-producer order: the items of one producer that one consumer pops
 *    come out in push order.  This holds for this ring: a producer claims
 *    increasing positions from the monotonic tail, a consumer increasing
 *    positions from the monotonic head, and the item at a position is the
 *    one pushed there.  Nothing is asserted about order across consumers.
 *
 * Like the runtime (which sizes the ring to the sum of the task windows),
 * the tests never have more than `capacity` items live (credited to a push
 * and not yet popped): the header promises nothing beyond that.  The credit
 * counters are relaxed atomics, so they add no happens-before edges: the
 * queue alone must publish each task value to its popper (TSan checks it).
 */
#include "harness.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/ready_queue.h"
#include "runtime/reserve.h"
#include "runtime/sync.h"

/* A stuck thread gives up after this long (a lost item never comes back);
 * the test then fails instead of hanging. */
#define RQ_DEADLINE_NS (120ull * 1000000000ull)

/* Own clock: the test needs nothing from the runtime but the queue. */
static uint64_t rq_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void rq_backoff(unsigned *spins)
{
    if (++*spins < 64) {
        rt_cpu_relax();
    } else {
        *spins = 0;
        sched_yield(); /* 2 cores, more threads: let the others run */
    }
}

/* Takes one free place from *credits, waiting while there is none; 0 when
 * the deadline passed first. */
static int rq_take_credit(_Atomic int64_t *credits, uint64_t deadline)
{
    unsigned spins = 0;
    int64_t c = atomic_load_explicit(credits, memory_order_relaxed);
    for (;;) {
        if (c > 0) {
            if (atomic_compare_exchange_weak_explicit(credits, &c, c - 1, memory_order_relaxed,
                                                      memory_order_relaxed))
                return 1;
        } else {
            if (rq_now_ns() > deadline) return 0;
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

/* Items of the threaded tests: producer p (0-based) and its sequence number;
 * never 0, so a cell read before its value was published shows up. */
static uint64_t rq_item(uint32_t p, uint32_t seq) { return ((uint64_t)(p + 1) << 32) | seq; }
static uint32_t rq_item_producer(uint64_t item) { return (uint32_t)(item >> 32) - 1; }
static uint32_t rq_item_seq(uint64_t item) { return (uint32_t)item; }

/* What the consumers popped, checked on the main thread after the join:
 * every (producer, seq < pushed[producer]) exactly once, nothing else, and
 * per consumer each producer's sequence numbers strictly increasing.
 * Returns the number of violations (0 = all good). */
static uint64_t rq_check_logs(uint64_t *const *logs, const uint64_t *log_len, uint32_t consumers,
                              const uint64_t *pushed, uint32_t producers)
{
    uint64_t bad = 0, total = 0;
    uint8_t **count = calloc(producers, sizeof *count);
    uint64_t *last = malloc(producers * sizeof *last);
    assert_non_null(count);
    assert_non_null(last);
    for (uint32_t p = 0; p < producers; p++) {
        count[p] = calloc(pushed[p] ? pushed[p] : 1, 1);
        assert_non_null(count[p]);
        total += pushed[p];
    }
    for (uint32_t c = 0; c < consumers; c++) {
        for (uint32_t p = 0; p < producers; p++) last[p] = UINT64_MAX; /* none yet */
        for (uint64_t i = 0; i < log_len[c]; i++) {
            uint64_t item = logs[c][i];
            uint32_t p = rq_item_producer(item), seq = rq_item_seq(item);
            if (p >= producers || seq >= pushed[p]) {
                print_message("consumer %u popped invented item %#llx\n", c, (unsigned long long)item);
                bad++;
                continue;
            }
            if (count[p][seq]++) {
                print_message("item p%u/%u popped twice\n", p, seq);
                bad++;
            }
            if (last[p] != UINT64_MAX && seq <= last[p]) {
                print_message("consumer %u saw p%u/%u after p%u/%llu\n", c, p, seq, p,
                              (unsigned long long)last[p]);
                bad++;
            }
            last[p] = seq;
        }
    }
    uint64_t missing = 0;
    for (uint32_t p = 0; p < producers; p++) {
        for (uint64_t s = 0; s < pushed[p]; s++) missing += count[p][s] == 0;
        free(count[p]);
    }
    if (missing) print_message("%llu of %llu items never popped\n", (unsigned long long)missing,
                               (unsigned long long)total);
    free(count);
    free(last);
    return bad + missing;
}

/* ---- single thread ------------------------------------------------------ */

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

/* ---- producers and consumers -------------------------------------------- */

#define EO_PRODUCERS 3u
#define EO_CONSUMERS 3u
#define EO_CAPACITY 256u /* small, so the ring laps thousands of times */
#ifdef PTO_SANITIZER
#define EO_PER_PRODUCER 20000u
#else
#define EO_PER_PRODUCER 200000u
#endif
#define EO_TOTAL ((uint64_t)EO_PRODUCERS * EO_PER_PRODUCER)
#define EO_LOG_CAP (EO_TOTAL + EO_CONSUMERS) /* pops past the total: a bug */

typedef struct {
    rt_ready_queue q;
    pthread_barrier_t start;
    _Atomic int64_t credits; /* free places: capacity - live items */
    _Atomic uint64_t popped; /* all pops; the consumers stop at EO_TOTAL */
    _Atomic int timed_out;
    uint64_t deadline;
    uint64_t *log[EO_CONSUMERS];
    uint64_t log_len[EO_CONSUMERS];
    uint64_t pushed[EO_PRODUCERS];
} eo_shared;

typedef struct {
    eo_shared *s;
    uint32_t index;
} eo_arg;

static void *eo_producer(void *arg)
{
    eo_arg *a = arg;
    eo_shared *s = a->s;
    pthread_barrier_wait(&s->start);
    for (uint32_t seq = 0; seq < EO_PER_PRODUCER; seq++) {
        if (!rq_take_credit(&s->credits, s->deadline)) {
            atomic_store(&s->timed_out, 1);
            break;
        }
        rt_ready_queue_push(&s->q, rq_item(a->index, seq));
        s->pushed[a->index] = seq + 1u;
    }
    return NULL;
}

static void *eo_consumer(void *arg)
{
    eo_arg *a = arg;
    eo_shared *s = a->s;
    uint64_t *log = s->log[a->index], n = 0, item;
    unsigned spins = 0;
    pthread_barrier_wait(&s->start);
    while (atomic_load_explicit(&s->popped, memory_order_relaxed) < EO_TOTAL && n < EO_LOG_CAP) {
        if (rt_ready_queue_pop(&s->q, &item)) {
            atomic_fetch_add_explicit(&s->credits, 1, memory_order_relaxed);
            atomic_fetch_add_explicit(&s->popped, 1, memory_order_relaxed);
            log[n++] = item;
        } else {
            if (atomic_load_explicit(&s->timed_out, memory_order_relaxed) || rq_now_ns() > s->deadline) {
                atomic_store(&s->timed_out, 1);
                break;
            }
            rq_backoff(&spins);
        }
    }
    s->log_len[a->index] = n;
    return NULL;
}

static void test_ready_queue_every_item_once(void **state)
{
    (void)state;
    static eo_shared s;
    memset(&s, 0, sizeof s);
    int err = 0;
    assert_int_equal(rt_ready_queue_init(&s.q, EO_CAPACITY, &err), 0);
    atomic_store(&s.credits, EO_CAPACITY);
    s.deadline = rq_now_ns() + RQ_DEADLINE_NS;
    for (uint32_t c = 0; c < EO_CONSUMERS; c++) {
        s.log[c] = malloc(EO_LOG_CAP * sizeof(uint64_t));
        assert_non_null(s.log[c]);
    }
    /* All threads start together, so pushes and pops overlap. */
    assert_int_equal(pthread_barrier_init(&s.start, NULL, EO_PRODUCERS + EO_CONSUMERS), 0);

    pthread_t th[EO_PRODUCERS + EO_CONSUMERS];
    eo_arg args[EO_PRODUCERS + EO_CONSUMERS];
    for (uint32_t i = 0; i < EO_PRODUCERS + EO_CONSUMERS; i++) {
        int prod = i < EO_PRODUCERS;
        args[i] = (eo_arg){&s, prod ? i : i - EO_PRODUCERS};
        assert_int_equal(pthread_create(&th[i], NULL, prod ? eo_producer : eo_consumer, &args[i]), 0);
    }
    for (uint32_t i = 0; i < EO_PRODUCERS + EO_CONSUMERS; i++) pthread_join(th[i], NULL);

    assert_int_equal(atomic_load(&s.timed_out), 0);
    for (uint32_t p = 0; p < EO_PRODUCERS; p++) assert_int_equal(s.pushed[p], EO_PER_PRODUCER);
    assert_int_equal(rq_check_logs(s.log, s.log_len, EO_CONSUMERS, s.pushed, EO_PRODUCERS), 0);
    assert_int_equal(atomic_load(&s.popped), EO_TOTAL);
    assert_int_equal(atomic_load(&s.credits), EO_CAPACITY);

    /* Quiescent again: empty, and still FIFO. */
    uint64_t t;
    assert_false(rt_ready_queue_pop(&s.q, &t));
    assert_int_equal(rt_ready_queue_size(&s.q), 0);
    rt_ready_queue_push(&s.q, 42);
    assert_true(rt_ready_queue_pop(&s.q, &t));
    assert_int_equal(t, 42);

    pthread_barrier_destroy(&s.start);
    for (uint32_t c = 0; c < EO_CONSUMERS; c++) free(s.log[c]);
    rt_ready_queue_destroy(&s.q);
}

/* ---- workers that pop and push ------------------------------------------ */

/* Each worker pops an item and, like a finished task making its consumers
 * ready, pushes 0, 1 or 2 new items (chosen by a hash of the item), as far
 * as the credits and the item budget allow: 1.5 on average for 512 pops,
 * then 0.5 for the next 512, and so on, so the live count swings between
 * full and empty many times.  The worker whose pop left nothing
 * live pushes at least one, so the walk never dies before the budget is
 * spent.  Item producer index MX_WORKERS is the main thread's seeds. */
#define MX_WORKERS 4u
#define MX_CAPACITY 64u
#define MX_SEEDS 8u
#ifdef PTO_SANITIZER
#define MX_ITEMS 40000u
#else
#define MX_ITEMS 400000u
#endif
#define MX_LOG_CAP ((uint64_t)MX_ITEMS + MX_WORKERS)

typedef struct {
    rt_ready_queue q;
    pthread_barrier_t start;
    _Atomic int64_t credits;  /* free places: capacity - live items */
    _Atomic uint64_t budget;  /* items handed out so far, stops at MX_ITEMS */
    _Atomic uint64_t popped;  /* all pops; the workers stop at MX_ITEMS */
    _Atomic int timed_out;
    uint64_t deadline;
    uint64_t *log[MX_WORKERS];
    uint64_t log_len[MX_WORKERS];
    uint64_t pushed[MX_WORKERS + 1];
} mx_shared;

typedef struct {
    mx_shared *s;
    uint32_t index;
} mx_arg;

/* One more item from the budget and a free place for it: 1, or 0 (credit
 * given back) when the budget is spent or no place is free now. */
static int mx_claim(mx_shared *s)
{
    if (!rq_try_credit(&s->credits)) return 0;
    if (atomic_fetch_add_explicit(&s->budget, 1, memory_order_relaxed) < MX_ITEMS) return 1;
    atomic_fetch_add_explicit(&s->credits, 1, memory_order_relaxed);
    return 0;
}

static void *mx_worker(void *arg)
{
    mx_arg *a = arg;
    mx_shared *s = a->s;
    uint64_t *log = s->log[a->index], n = 0, item;
    uint32_t seq = 0;
    unsigned spins = 0;
    pthread_barrier_wait(&s->start);
    while (atomic_load_explicit(&s->popped, memory_order_relaxed) < MX_ITEMS && n < MX_LOG_CAP) {
        if (!rt_ready_queue_pop(&s->q, &item)) {
            if (atomic_load_explicit(&s->timed_out, memory_order_relaxed) || rq_now_ns() > s->deadline) {
                atomic_store(&s->timed_out, 1);
                break;
            }
            rq_backoff(&spins);
            continue;
        }
        log[n++] = item;
        atomic_fetch_add_explicit(&s->popped, 1, memory_order_relaxed);
        int64_t before = atomic_fetch_add_explicit(&s->credits, 1, memory_order_relaxed);
        uint32_t children = (uint32_t)((item * 0x9E3779B97F4A7C15ull) >> 63); /* 0 or 1 */
        if (!((n >> 9) & 1)) children++; /* alternating: 1.5 on average, then 0.5 */
        if (before == MX_CAPACITY - 1 && children == 0) children = 1; /* last live item */
        for (uint32_t c = 0; c < children && mx_claim(s); c++) {
            rt_ready_queue_push(&s->q, rq_item(a->index, seq++));
            s->pushed[a->index] = seq;
        }
    }
    s->log_len[a->index] = n;
    return NULL;
}

static void test_ready_queue_mixed_push_pop_every_item_once(void **state)
{
    (void)state;
    static mx_shared s;
    memset(&s, 0, sizeof s);
    int err = 0;
    assert_int_equal(rt_ready_queue_init(&s.q, MX_CAPACITY, &err), 0);
    atomic_store(&s.credits, MX_CAPACITY);
    s.deadline = rq_now_ns() + RQ_DEADLINE_NS;
    for (uint32_t w = 0; w < MX_WORKERS; w++) {
        s.log[w] = malloc(MX_LOG_CAP * sizeof(uint64_t));
        assert_non_null(s.log[w]);
    }
    for (uint32_t i = 0; i < MX_SEEDS; i++) {
        assert_true(mx_claim(&s));
        rt_ready_queue_push(&s.q, rq_item(MX_WORKERS, i));
    }
    s.pushed[MX_WORKERS] = MX_SEEDS;
    assert_int_equal(pthread_barrier_init(&s.start, NULL, MX_WORKERS), 0);

    pthread_t th[MX_WORKERS];
    mx_arg args[MX_WORKERS];
    for (uint32_t w = 0; w < MX_WORKERS; w++) {
        args[w] = (mx_arg){&s, w};
        assert_int_equal(pthread_create(&th[w], NULL, mx_worker, &args[w]), 0);
    }
    for (uint32_t w = 0; w < MX_WORKERS; w++) pthread_join(th[w], NULL);

    assert_int_equal(atomic_load(&s.timed_out), 0);
    uint64_t pushed = 0;
    for (uint32_t p = 0; p <= MX_WORKERS; p++) pushed += s.pushed[p];
    assert_int_equal(pushed, MX_ITEMS);
    assert_int_equal(rq_check_logs(s.log, s.log_len, MX_WORKERS, s.pushed, MX_WORKERS + 1), 0);
    assert_int_equal(atomic_load(&s.popped), MX_ITEMS);
    assert_int_equal(atomic_load(&s.credits), MX_CAPACITY);
    uint64_t t;
    assert_false(rt_ready_queue_pop(&s.q, &t));
    assert_int_equal(rt_ready_queue_size(&s.q), 0);

    pthread_barrier_destroy(&s.start);
    for (uint32_t w = 0; w < MX_WORKERS; w++) free(s.log[w]);
    rt_ready_queue_destroy(&s.q);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_ready_queue_fifo_single_thread),
    cmocka_unit_test(test_ready_queue_init_failure_reports_errno),
    cmocka_unit_test(test_ready_queue_every_item_once),
    cmocka_unit_test(test_ready_queue_mixed_push_pop_every_item_once),
};

PTO_TEST_MAIN(tests)
