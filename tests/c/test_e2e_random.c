/*
 * test_e2e_random.c - random task graphs against a serial execution.
 *
 * Each graph: a few small buffers of integers, tasks whose kernels do
 * order-sensitive arithmetic on random 1-d and 2-d views (tags IN, INOUT,
 * OUTPUT_EXISTING, OUT with consumers of the created buffer, dummy tasks),
 * random scope nesting up to depth 5 and MANUAL scopes.  The graph runs on
 * the runtime and, as a reference, serially (the same kernels in submit
 * order); the final buffers must match.
 *
 * MANUAL tasks get explicit dependencies on every earlier task they conflict
 * with (same buffer, overlapping bytes, one of them writes), and AUTO tasks
 * get them on the MANUAL tasks they conflict with (discovery does not see
 * what MANUAL tasks touched), so the result is deterministic.  Everything
 * else is left to dependency discovery.
 *
 * The generator keeps each graph within the capacity of the configured
 * rings (no ring is ever asked for more than its open scopes leave free), so
 * tiny rings exercise back-pressure and never a capacity error.
 *
 * PTO_TEST_SCALE (default 1) scales the number of graphs; PTO_TEST_SEED sets
 * the base seed.  A failure prints the graph's seed and configuration.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "random_graph.h"
#include "runtime/rt.h"

/* Random graphs against their serial run, every task through pto_task_submit, or (trusted)
 * each one without a PTO_ARG_OUT argument through the executor's trusted submit. */
static void random_dags(int trusted, int sweeps)
{
    rg_trusted = trusted;
    const char *se = getenv("PTO_TEST_SEED");
    uint64_t base = se ? strtoull(se, NULL, 0) : 0x5eed2024ull;
    int ngraphs = (int)(1000 * test_scale(1.0));
    if (ngraphs < 1) ngraphs = 1;
    enum { PER_RUNTIME = 8 };
    graph *g = malloc(sizeof *g);
    assert_non_null(g);
    uint64_t *bufs[MAXB], *ref[MAXB];
    for (int b = 0; b < MAXB; b++) {
        bufs[b] = malloc(8 * 16 * sizeof(uint64_t));
        ref[b] = malloc(8 * 16 * sizeof(uint64_t));
        assert_non_null(bufs[b]);
        assert_non_null(ref[b]);
    }
    pto_runtime *rt = NULL;
    pto_config cfg;
    long total_tasks = 0, runs = 0;
    for (int gi = 0; gi < ngraphs; gi++) {
        uint64_t seed = base + (uint64_t)gi * 0x100000001ull;
        uint64_t s = seed;
        if (gi % PER_RUNTIME == 0) {
            if (rt) runs += rt->tm.runs_bumped;
            pto_runtime_destroy(rt);
            uint64_t cs = seed ^ 0xc0ffee;
            rand_ring_config(&cs, &cfg);
            rt = make_rt(&cfg);
        }
        genopt o;
        memset(&o, 0, sizeof o);
        o.nb = 2 + (int)rnd(&s, 3);
        o.rows = 8;
        o.cols = 16;
        for (int r = 0; r < 4; r++)
            o.w[r] = cfg.runtime_env.ring_task_window[r] ? cfg.runtime_env.ring_task_window[r]
                                                         : PTO_DEFAULT_TASK_WINDOW;
        o.max_open = MAXOPEN;
        o.allow_root = rnd(&s, 2);
        o.allow_manual = 1;
        o.max_scope_tasks = MAXT;
        o.max_temp = 128;
        o.max_view = 8;
        o.delay_pct = 10;
        o.sweeps = sweeps;
        gen_graph(g, &o, &s, 5 + (int)rnd(&s, 196));
        total_tasks += g->ntasks;
        snprintf(g_ctx, sizeof g_ctx,
                 "graph %d seed 0x%llx (PTO_TEST_SEED=0x%llx): %d tasks, workers %d, windows "
                 "[%llu %llu %llu %llu], dep pools [%llu %llu %llu %llu]",
                 gi, (unsigned long long)seed, (unsigned long long)base, g->ntasks, cfg.num_workers,
                 (unsigned long long)o.w[0], (unsigned long long)o.w[1], (unsigned long long)o.w[2],
                 (unsigned long long)o.w[3], (unsigned long long)cfg.runtime_env.ring_dep_pool[0],
                 (unsigned long long)cfg.runtime_env.ring_dep_pool[1],
                 (unsigned long long)cfg.runtime_env.ring_dep_pool[2],
                 (unsigned long long)cfg.runtime_env.ring_dep_pool[3]);
        for (int b = 0; b < o.nb; b++)
            for (int k = 0; k < o.rows * o.cols; k++) bufs[b][k] = ref[b][k] = base_splitmix64(&s);
        run_graph(rt, g, bufs);
        int rc = pto_runtime_finish(rt);
        if (rc != 0) fail_rt(rt, "pto_runtime_finish", rc);
        run_serial(g, ref);
        for (int b = 0; b < o.nb; b++)
            for (int k = 0; k < o.rows * o.cols; k++)
                if (bufs[b][k] != ref[b][k]) {
                    print_error("%s\nbuffer %d element %d: runtime %llu, serial %llu\n", g_ctx, b, k,
                                (unsigned long long)bufs[b][k], (unsigned long long)ref[b][k]);
                    fail();
                }
    }
    runs += rt->tm.runs_bumped;
    pto_runtime_destroy(rt);
    print_message("%d graphs, %ld tasks, %ld tensormap runs\n", ngraphs, total_tasks, runs);
    if (sweeps) assert_true(runs > ngraphs / 8); /* the graphs went through runs */
    for (int b = 0; b < MAXB; b++) {
        free(bufs[b]);
        free(ref[b]);
    }
    free(g);
    rg_trusted = 0;
}

static void test_random_dags(void **state)
{
    (void)state;
    random_dags(0, 0);
}

/* The trusted submit builds the graphs the C API builds: the same results as the serial run. */
static void test_random_dags_through_the_trusted_submit(void **state)
{
    (void)state;
    random_dags(1, 0);
}

/* Arguments that walk tile by tile (the tensormap's runs, dropped at either end, unfolded
 * in the middle) through both submits: the same results as the serial run. */
static void test_random_dags_with_sweeps(void **state)
{
    (void)state;
    random_dags(0, 1);
    random_dags(1, 1);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_random_dags),
    cmocka_unit_test(test_random_dags_through_the_trusted_submit),
    cmocka_unit_test(test_random_dags_with_sweeps),
};

PTO_TEST_MAIN(tests)
