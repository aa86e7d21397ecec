/*
 * test_shared_core.c - idle executors yield while they spin when the process is bound to
 * fewer CPUs than the machine has and the workers and the orchestrator outnumber them
 * (rt.h shared_core: under mpirun each rank is bound to one core, and an idle worker's
 * 50 us spin would hold the core the orchestrator needs to submit the next task); a
 * process that may use every CPU spins as before.
 */
#include <sched.h>
#include <unistd.h>

#include "harness.h"
#include "e2e.h"
#include "runtime/rt.h"

static void test_shared_core_when_bound_to_fewer_cpus_than_its_threads(void **s)
{
    (void)s;
    if (sysconf(_SC_NPROCESSORS_ONLN) < 2) skip();
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

static void test_no_shared_core_for_a_process_that_may_use_every_cpu(void **s)
{
    (void)s;
    cpu_set_t mask;
    assert_int_equal(sched_getaffinity(0, sizeof mask, &mask), 0);
    int cpus = CPU_COUNT(&mask);
    if (cpus < sysconf(_SC_NPROCESSORS_ONLN)) skip(); /* started bound */
    pto_runtime *rt = make_rt_rings(0, 0, 0, cpus, E2E_NO_STALL_MS); /* one worker per CPU, the default */
    assert_int_equal(rt->shared_core, 0);
    pto_runtime_destroy(rt);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_shared_core_when_bound_to_fewer_cpus_than_its_threads),
    cmocka_unit_test(test_no_shared_core_for_a_process_that_may_use_every_cpu),
};

PTO_TEST_MAIN(tests)
