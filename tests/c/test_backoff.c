/*
 * test_backoff.c - the blocking-op backoff (base/backoff.h, DISTRIBUTED-SPEC
 * §2.5) that kernel waits and the MPI waits share: it spins for its first
 * 20 us, yields until 3 ms, then sleeps doubling from 50 us to 1 ms, so a
 * long wait keeps its thread off the CPU.
 */
#include <time.h>

#include "harness.h"
#include "base/backoff.h"

static void test_backoff_spins_for_its_first_20_us_and_yields_until_3_ms(void **s)
{
    (void)s;
    base_backoff b = {.start = 1000000000ull};
    assert_true(base_backoff_spinning(&b, b.start));
    assert_true(base_backoff_spinning(&b, b.start + BASE_BACKOFF_SPIN_NS - 1));
    assert_false(base_backoff_spinning(&b, b.start + BASE_BACKOFF_SPIN_NS));
    base_backoff_pause(&b, b.start + BASE_BACKOFF_SPIN_NS);      /* a yield: no sleep chosen */
    base_backoff_pause(&b, b.start + BASE_BACKOFF_YIELD_NS - 1);
    assert_int_equal(b.sleep_us, 0);
    assert_false(base_backoff_sleeping(&b, b.start + BASE_BACKOFF_YIELD_NS - 1));
    assert_true(base_backoff_sleeping(&b, b.start + BASE_BACKOFF_YIELD_NS)); /* where a kernel hands its slot over */
}

static void test_backoff_sleeps_double_from_50_us_to_1_ms(void **s)
{
    (void)s;
    base_backoff b = {.start = 1000000000ull};
    const uint64_t want[] = {50, 100, 200, 400, 800, 1000, 1000};
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        base_backoff_pause(&b, b.start + BASE_BACKOFF_YIELD_NS);
        assert_int_equal(b.sleep_us, want[k]);
    }
}

static uint64_t thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* 300 ms of waiting: 3 ms of yields, then sleeps; the thread's CPU time stays
 * under a tenth of the wait (a spinning wait would use all of it). */
static void test_backoff_keeps_a_long_wait_off_the_cpu(void **s)
{
    (void)s;
    base_backoff b = base_backoff_begin();
    uint64_t cpu = thread_cpu_ns(), now;
    while ((now = base_now_ns()) - b.start < 300000000ull) base_backoff_pause(&b, now);
    uint64_t used = thread_cpu_ns() - cpu;
    assert_true(used < 30000000ull);
    assert_int_equal(b.sleep_us, 1000);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_backoff_spins_for_its_first_20_us_and_yields_until_3_ms),
    cmocka_unit_test(test_backoff_sleeps_double_from_50_us_to_1_ms),
    cmocka_unit_test(test_backoff_keeps_a_long_wait_off_the_cpu),
};

PTO_TEST_MAIN(tests)
