/*
 * test_runtime_blocks.c - SPMD tasks: pto_task.num_blocks (docs/runtime.md,
 * "SPMD tasks"; DSL-V2-SPEC §0.6, §7).
 *
 * Rules tested: a task of n blocks is one task (one id) whose kernel runs n
 * times, once per block index in [0, n), told its index and n, on any
 * executors at once (a test hook: each block records the executor that ran
 * it, and block 0 waits, bounded, until a block ran elsewhere); it completes
 * and releases its consumers only after its last block; a failing block
 * fails the task with code 12 whose kernel text ends "(block <b> of <n>)";
 * num_blocks 0 and 1 are one plain run (index 0 of 1).  Written to be
 * TSan-clean: every cross-thread datum is atomic or ordered by the runtime.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "e2e.h"

#define NB 64

static uint64_t g_cells[NB];
static atomic_int g_worker[NB];   /* executor of block b, -1 = not run */
static atomic_int g_runs[NB];     /* runs of block b */
static atomic_int g_done;         /* blocks finished */
static atomic_int g_seen_at_consumer;
static atomic_uint g_num_blocks_seen;

static int k_block(const pto_kernel_args *a)
{
    uint32_t b = a->block_idx;
    if (b >= NB) return 99;
    atomic_store(&g_num_blocks_seen, a->num_blocks);
    atomic_store(&g_worker[b], a->worker);
    atomic_fetch_add(&g_runs[b], 1);
    if (b == 0) { /* wait (bounded) until another executor ran a block */
        uint64_t end = now_ms() + 10000;
        for (int other = 0; !other && now_ms() < end;) {
            for (int k = 1; k < NB && !other; k++) {
                int w = atomic_load(&g_worker[k]);
                other = w >= 0 && w != a->worker;
            }
            if (!other) nap_us(100);
        }
    }
    *el(&a->views[0], b) = b + 1;
    atomic_fetch_add(&g_done, 1);
    return 0;
}

static int k_consumer(const pto_kernel_args *a)
{
    atomic_store(&g_seen_at_consumer, atomic_load(&g_done));
    uint64_t sum = 0;
    for (uint64_t k = 0; k < NB; k++) sum += *el(&a->views[0], k);
    *el(&a->views[1], 0) = sum;
    return 0;
}

static void reset(void)
{
    memset(g_cells, 0, sizeof g_cells);
    for (int k = 0; k < NB; k++) atomic_store(&g_worker[k], -1), atomic_store(&g_runs[k], 0);
    atomic_store(&g_done, 0);
    atomic_store(&g_seen_at_consumer, -1);
    atomic_store(&g_num_blocks_seen, 0);
}

static void test_runtime_blocks_one_task_runs_every_block_on_two_workers(void **state)
{
    (void)state;
    reset();
    pto_runtime *rt = make_rt_rings(0, 0, 0, 2, 0);
    uint64_t sum = 0;
    pto_task_id spmd, consumer;
    SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
    pto_arg a1[1] = {arg(PTO_ARG_OUTPUT_EXISTING, v1(g_cells, 0, NB))};
    pto_task t1 = {.kernel = k_block, .name = "blocks", .args = a1, .num_args = 1, .num_blocks = NB};
    check_submit(rt, &t1, &spmd);
    pto_arg a2[2] = {arg(PTO_ARG_IN, v1(g_cells, 0, NB)), arg(PTO_ARG_OUTPUT_EXISTING, v1(&sum, 0, 1))};
    pto_task t2 = {.kernel = k_consumer, .name = "consumer", .args = a2, .num_args = 2};
    check_submit(rt, &t2, &consumer);
    scope_end_ok(rt);
    finish_ok(rt);
    assert_int_equal(consumer, spmd + 1); /* one id for the 64 blocks */
    int workers_seen = 0, first = -1;
    for (int b = 0; b < NB; b++) {
        assert_int_equal(atomic_load(&g_runs[b]), 1);
        assert_int_equal(g_cells[b], b + 1);
        int w = atomic_load(&g_worker[b]);
        if (first < 0) first = w, workers_seen = 1;
        else if (w != first) workers_seen = 2;
    }
    assert_int_equal(workers_seen, 2);
    assert_int_equal(atomic_load(&g_num_blocks_seen), NB);
    assert_int_equal(atomic_load(&g_seen_at_consumer), NB); /* released after the last block */
    assert_int_equal(sum, (uint64_t)NB * (NB + 1) / 2);
    pto_runtime_destroy(rt);
}

static int k_fail_block3(const pto_kernel_args *a)
{
    if (a->block_idx != 3) return 0;
    snprintf(a->message, a->message_len, "refused");
    return 7;
}

static void test_runtime_blocks_failing_block_fails_task_with_block_text(void **state)
{
    (void)state;
    pto_runtime *rt = make_rt_rings(0, 0, 0, 2, 0);
    SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
    pto_task t = {.kernel = k_fail_block3, .name = "failer", .num_blocks = 8};
    check_submit(rt, &t, NULL);
    int end = pto_scope_end(rt); /* the failure may be latched before the scope ends */
    assert_true(end == 0 || end == -PTO_KERNEL_FAILED);
    expect_code(rt, pto_runtime_finish(rt), PTO_KERNEL_FAILED);
    expect_frag(rt, "kernel=failer rc=7");
    expect_frag(rt, "message=refused (block 3 of 8);");
    /* the runtime stays usable */
    SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
    pto_task ok = {.kernel = k_fail_block3, .name = "fine", .num_blocks = 3};
    check_submit(rt, &ok, NULL);
    scope_end_ok(rt);
    finish_ok(rt);
    pto_runtime_destroy(rt);
}

static atomic_uint g_plain_idx, g_plain_num;

static int k_plain(const pto_kernel_args *a)
{
    atomic_store(&g_plain_idx, a->block_idx);
    atomic_store(&g_plain_num, a->num_blocks);
    return 0;
}

static void test_runtime_blocks_zero_or_one_is_one_plain_run(void **state)
{
    (void)state;
    pto_runtime *rt = make_rt_rings(0, 0, 0, 2, 0);
    for (uint32_t n = 0; n <= 1; n++) {
        atomic_store(&g_plain_idx, 99);
        atomic_store(&g_plain_num, 99);
        pto_task t = {.kernel = k_plain, .name = "plain", .num_blocks = n};
        check_submit(rt, &t, NULL);
        finish_ok(rt);
        assert_int_equal(atomic_load(&g_plain_idx), 0);
        assert_int_equal(atomic_load(&g_plain_num), 1);
    }
    pto_runtime_destroy(rt);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_runtime_blocks_one_task_runs_every_block_on_two_workers),
    cmocka_unit_test(test_runtime_blocks_failing_block_fails_task_with_block_text),
    cmocka_unit_test(test_runtime_blocks_zero_or_one_is_one_plain_run),
};

PTO_TEST_MAIN(tests)
