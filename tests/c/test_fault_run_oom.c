/*
 * test_fault_run_oom.c - running a DSL program when memory runs out.
 *
 * Allocations are refused through fault_alloc.h (ld --wrap, thread-safe:
 * the executor allocates on the calling thread, the orchestration VM, and
 * on the workers, each one's tile workspace).  The n-th allocation of a
 * run is refused; which allocation
 * that is depends on which thread gets there first, so each rule is a
 * property of every outcome rather than one expected trace.
 *
 * Rules tested, for n swept past the number of allocations one run makes:
 * pto_program_run never crashes; it returns 0 with the right numbers, or a
 * negative status with a message saying what ran out (a kernel out of
 * memory for its workspace returns -PTO_OUT_OF_MEMORY: rc=-14); the next
 * run on the same runtime gives the right numbers; and once the runtime is
 * destroyed (its workers' workspaces freed) no block the run allocated is
 * held.  And: a refusal before anything runs (the arguments, the
 * interpreter's frames) is PTO_OUT_OF_MEMORY, never PTO_INVALID_ARGS.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/program.h"
#include "harness.h"
#include "dsl_compile.h"
#include "dsl_examples.h"
#include "pto/run.h"

#include "fault_alloc.h"

/* ---- running under refusal --------------------------------------------- */

#define ROWS 256
#define COLS 128

static float g_a[ROWS * COLS], g_out[ROWS * COLS];

static int run(pto_runtime *rt, const pto_program *p, pto_error *err)
{
    for (int k = 0; k < ROWS * COLS; k++) g_a[k] = (float)(k % 97) - 40.0f, g_out[k] = 0.0f;
    pto_run_arg args[] = {
        {"a", {.kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .base = g_a, .rank = 2, .shape = {ROWS, COLS}}},
        {"out", {.kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .base = g_out, .rank = 2, .shape = {ROWS, COLS}}},
    };
    return pto_program_run(rt, p, args, 2, err);
}

static void expect_right_numbers(const char *when)
{
    for (int k = 0; k < ROWS * COLS; k++)
        if (g_out[k] != g_a[k] * 2.0f + 1.0f) fail_msg("%s: out[%d] = %g, want %g", when, k, g_out[k], g_a[k] * 2.0f + 1.0f);
}

/* One worker per CPU (the default): the calling thread then runs no task,
 * so every tile workspace belongs to a worker and is freed when it exits. */
static pto_runtime *new_runtime(void)
{
    pto_runtime *rt = NULL;
    pto_error err;
    assert_int_equal(pto_runtime_create(NULL, &rt, &err), 0);
    return rt;
}

/* The seed's manual_placement, run with each allocation refused in turn. */
static void test_run_out_of_memory_manual_placement(void **state)
{
    (void)state;
    pto_program *p = dsl_compile(dsl_seed_script, "manual_placement", PTO_STAGE_ALL);
    dsl_expect_ok(p);
    pto_error err;

    /* how many allocations a run on a fresh runtime makes (the workers' first workspaces too) */
    size_t most = 0;
    for (int k = 0; k < 3; k++) {
        pto_runtime *rt = new_runtime();
        fault_arm(0, 0);
        assert_int_equal(run(rt, p, &err), 0);
        fault_disarm();
        expect_right_numbers("no refusal");
        if (fault_calls() > most) most = fault_calls();
        pto_runtime_destroy(rt);
    }
    assert_true(most > 0);

    int failed = 0;
    for (size_t n = 1; n <= most + 2; n++) {
        pto_runtime *rt = new_runtime();
        fault_arm(n, 0);
        int rc = run(rt, p, &err);
        fault_disarm();
        if (rc == 0) {
            expect_right_numbers("a refusal the run survived");
        } else {
            failed++;
            if (rc >= 0 || !strstr(err.message, "out of memory"))
                fail_msg("allocation %zu refused: rc %d, message:\n%s", n, rc, err.message);
            if (strstr(err.message, "tile workspace") && !strstr(err.message, " rc=-14 "))
                fail_msg("allocation %zu refused: a workspace out of memory without rc=-14:\n%s", n, err.message);
        }
        assert_int_equal(run(rt, p, &err), 0); /* the next run works */
        expect_right_numbers("the run after a refusal");
        fault_track_only(); /* what destroy frees is forgotten; nothing is refused */
        pto_runtime_destroy(rt);
        fault_disarm();
        long held = fault_held();
        if (held) fail_msg("allocation %zu refused: %ld blocks still held after pto_runtime_destroy (-1: too many to track)", n, held);
    }
    assert_true(failed > 0); /* some refusal reached a caller */
    pto_program_free(p);
}

/* pto_program_run's own allocations come first: the arguments, then the
 * interpreter's frames, kernel contexts, call stack and dependency room,
 * then each procedure's registers and tensor slots.  Each refused, the run
 * ends before anything ran with PTO_OUT_OF_MEMORY. */
static void test_run_out_of_memory_before_anything_runs_is_out_of_memory(void **state)
{
    (void)state;
    pto_program *p = dsl_compile(dsl_seed_script, "manual_placement", PTO_STAGE_ALL);
    dsl_expect_ok(p);
    size_t before = 5 + 2 * (size_t)cc_program_lowered(p)->nprocs;
    pto_runtime *rt = new_runtime();
    pto_error err;
    for (size_t n = 1; n <= before; n++) {
        fault_arm(n, 0);
        int rc = run(rt, p, &err);
        fault_disarm();
        if (rc != -PTO_OUT_OF_MEMORY || err.code != PTO_OUT_OF_MEMORY || !strstr(err.message, "out of memory"))
            fail_msg("allocation %zu refused: rc %d, code %d, message: %s", n, rc, err.code, err.message);
        assert_int_equal(run(rt, p, &err), 0);
        expect_right_numbers("the run after a refusal");
    }
    pto_runtime_destroy(rt);
    pto_program_free(p);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_run_out_of_memory_manual_placement),
    cmocka_unit_test(test_run_out_of_memory_before_anything_runs_is_out_of_memory),
};

PTO_TEST_MAIN(tests)
