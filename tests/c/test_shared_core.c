/*
 * test_shared_core.c - idle executors yield while they spin when the workers and the
 * orchestrator outnumber the CPUs the process may run on (rt.h shared_core: under mpirun
 * each rank is bound to one core, and an idle worker's 50 us spin would hold the core the
 * orchestrator needs to submit the next task), and spin plainly when a core is left.
 */
#include <sched.h>
#include <unistd.h>

#include "harness.h"
#include "e2e.h"
#include "runtime/rt.h"

static void test_shared_core_when_the_threads_outnumber_the_affinity_mask(void **s)
{
    (void)s;
    cpu_set_t saved, one;
    assert_int_equal(sched_getaffinity(0, sizeof saved, &saved), 0);
    CPU_ZERO(&one);
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &saved)) {
            CPU_SET(c, &one);
            break;
        }
    assert_int_equal(sched_setaffinity(0, sizeof one, &one), 0);
    pto_runtime *rt = make_rt_rings(0, 0, 0, 1, E2E_NO_STALL_MS); /* 1 worker + the orchestrator on 1 CPU */
    assert_int_equal(sched_setaffinity(0, sizeof saved, &saved), 0);
    assert_int_equal(rt->shared_core, 1);
    pto_runtime_destroy(rt);
}

static void test_no_shared_core_with_a_core_left_for_the_orchestrator(void **s)
{
    (void)s;
    cpu_set_t mask;
    assert_int_equal(sched_getaffinity(0, sizeof mask, &mask), 0);
    int cpus = CPU_COUNT(&mask);
    if (cpus < 2) skip();
    pto_runtime *rt = make_rt_rings(0, 0, 0, cpus - 1, E2E_NO_STALL_MS);
    assert_int_equal(rt->shared_core, 0);
    pto_runtime_destroy(rt);
    rt = make_rt_rings(0, 0, 0, cpus, E2E_NO_STALL_MS); /* one per CPU: the orchestrator shares one */
    assert_int_equal(rt->shared_core, 1);
    pto_runtime_destroy(rt);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_shared_core_when_the_threads_outnumber_the_affinity_mask),
    cmocka_unit_test(test_no_shared_core_with_a_core_left_for_the_orchestrator),
};

PTO_TEST_MAIN(tests)
