/*
 * soak_dag.c - random task graphs against a serial reference, for a bounded
 * time: the graph engine of the randomized end-to-end tests (random_graph.h)
 * with every option on - tags IN, OUT, INOUT and OUTPUT_EXISTING, both
 * dependency kinds, AUTO and MANUAL scopes (explicit dependencies) nested to
 * depth 5, overlapping and disjoint 1-d, 2-d, 3-d and 4-d boxes,
 * pto_tensor_alloc buffers - on random ring sizes (tiny windows included).
 *
 * Graph gi has seed base + gi * 0x100000001; graphs run eight to a runtime
 * whose configuration comes from the seed of the group's first graph.  A
 * failure prints the graph, its seed and the command that replays it.
 *
 * Usage: soak_dag [--seconds S] [--graphs N] [--seed BASE] [--first GI]
 * (or PTO_SOAK_SECONDS, PTO_SOAK_GRAPHS, PTO_SOAK_SEED).  Runs graphs
 * GI, GI + 1, ... until N have run or S seconds have passed; prints graphs,
 * tasks and the seeds covered.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "random_graph.h"

#define ROWS 8
#define COLS 16
#define PER_RUNTIME 8
#define SEED_STEP 0x100000001ull

static uint64_t g_seconds = 20, g_graphs = UINT64_MAX, g_base = 0x50a6da6ull, g_first = 0;

static uint64_t arg_u64(int argc, char **argv, const char *flag, const char *env, uint64_t dflt)
{
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], flag) == 0) return strtoull(argv[i + 1], NULL, 0);
    const char *e = getenv(env);
    return e && *e ? strtoull(e, NULL, 0) : dflt;
}

static void soak_random_dags(void **state)
{
    (void)state;
    graph *g = malloc(sizeof *g);
    assert_non_null(g);
    static uint64_t bufs_mem[MAXB][ROWS * COLS], ref_mem[MAXB][ROWS * COLS];
    uint64_t *bufs[MAXB], *ref[MAXB];
    for (int b = 0; b < MAXB; b++) {
        bufs[b] = bufs_mem[b];
        ref[b] = ref_mem[b];
    }
    pto_runtime *rt = NULL;
    pto_config cfg;
    uint64_t t0 = now_ms(), deadline = t0 + g_seconds * 1000, ran = 0, tasks = 0, manual = 0, allocs = 0;
    uint64_t gi = g_first;
    for (; ran < g_graphs && now_ms() < deadline; gi++, ran++) {
        uint64_t seed = g_base + gi * SEED_STEP, s = seed;
        if (rt == NULL || gi % PER_RUNTIME == 0) {
            pto_runtime_destroy(rt);
            uint64_t cs = (g_base + gi / PER_RUNTIME * PER_RUNTIME * SEED_STEP) ^ 0xc0ffee;
            rand_ring_config(&cs, &cfg);
            rt = make_rt(&cfg);
        }
        genopt o;
        memset(&o, 0, sizeof o);
        o.nb = 2 + (int)rnd(&s, MAXB - 1);
        o.rows = ROWS;
        o.cols = COLS;
        for (int r = 0; r < 4; r++)
            o.w[r] = cfg.runtime_env.ring_task_window[r] ? cfg.runtime_env.ring_task_window[r]
                                                         : PTO_DEFAULT_TASK_WINDOW;
        o.max_open = MAXOPEN;
        o.allow_root = (int)rnd(&s, 2);
        o.allow_manual = 1;
        o.max_scope_tasks = MAXT;
        o.max_temp = 128;
        o.max_view = 1 + (int)rnd(&s, 8);
        o.delay_pct = (int)rnd(&s, 20);
        o.nd_views = 1;
        o.allow_alloc = 1;
        gen_graph(g, &o, &s, 5 + (int)rnd(&s, MAXT - 4));
        tasks += (uint64_t)g->ntasks;
        for (int i = 0; i < g->ntasks; i++) {
            manual += (uint64_t)g->t[i].manual;
            allocs += g->t[i].op == OP_ALLOC;
        }
        snprintf(g_ctx, sizeof g_ctx,
                 "soak_dag graph %llu seed 0x%llx: %d tasks, workers %d, windows [%llu %llu %llu %llu]\n"
                 "replay: soak_dag --seed 0x%llx --first %llu --graphs 1",
                 (unsigned long long)gi, (unsigned long long)seed, g->ntasks, cfg.num_workers,
                 (unsigned long long)o.w[0], (unsigned long long)o.w[1], (unsigned long long)o.w[2],
                 (unsigned long long)o.w[3], (unsigned long long)g_base, (unsigned long long)gi);
        for (int b = 0; b < o.nb; b++)
            for (int k = 0; k < ROWS * COLS; k++) bufs[b][k] = ref[b][k] = base_splitmix64(&s);
        run_graph(rt, g, bufs);
        int rc = pto_runtime_finish(rt);
        if (rc != 0) fail_rt(rt, "pto_runtime_finish", rc);
        run_serial(g, ref);
        for (int b = 0; b < o.nb; b++)
            for (int k = 0; k < ROWS * COLS; k++)
                if (bufs[b][k] != ref[b][k]) {
                    print_error("%s\nbuffer %d element %d: runtime %llu, serial %llu\n", g_ctx, b, k,
                                (unsigned long long)bufs[b][k], (unsigned long long)ref[b][k]);
                    fail();
                }
    }
    pto_runtime_destroy(rt);
    free(g);
    double secs = (double)(now_ms() - t0) / 1000.0;
    printf("soak_dag: %llu graphs (seeds 0x%llx + gi * 0x%llx, gi %llu..%llu), %llu tasks (%llu in MANUAL scopes, "
           "%llu allocs) in %.1f s, all equal to the serial run\n",
           (unsigned long long)ran, (unsigned long long)g_base, (unsigned long long)SEED_STEP,
           (unsigned long long)g_first, (unsigned long long)(gi - 1), (unsigned long long)tasks,
           (unsigned long long)manual, (unsigned long long)allocs, secs);
    assert_true(ran > 0);
}

int main(int argc, char **argv)
{
    g_seconds = arg_u64(argc, argv, "--seconds", "PTO_SOAK_SECONDS", g_seconds);
    g_graphs = arg_u64(argc, argv, "--graphs", "PTO_SOAK_GRAPHS", g_graphs);
    g_base = arg_u64(argc, argv, "--seed", "PTO_SOAK_SEED", g_base);
    g_first = arg_u64(argc, argv, "--first", "PTO_SOAK_FIRST", g_first);
    const struct CMUnitTest tests[] = {cmocka_unit_test(soak_random_dags)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
