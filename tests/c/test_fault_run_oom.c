/*
 * test_fault_run_oom.c - running a DSL program when memory runs out.
 *
 * This executable is linked with ld --wrap for malloc, calloc, realloc and
 * free (tests/c/CMakeLists.txt), like test_fault_compile_oom.c, but the
 * wrappers are thread-safe: the executor allocates on the calling thread
 * (the orchestration VM) and on the workers (each one's tile workspace).
 * While armed the n-th allocation of a run is refused; which allocation
 * that is depends on which thread gets there first, so each rule is a
 * property of every outcome rather than one expected trace.
 *
 * Rules tested, for n swept past the number of allocations one run makes:
 * pto_program_run never crashes; it returns 0 with the right numbers, or a
 * negative status with a message saying what ran out; the next run on the
 * same runtime gives the right numbers; and once the runtime is destroyed
 * (its workers' workspaces freed) no block the run allocated is held.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "dsl_compile.h"
#include "dsl_examples.h"
#include "pto/run.h"

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);
void __wrap_free(void *p);

/* ---- the interposed allocator ----------------------------------------- */

static atomic_int g_armed;
static atomic_size_t g_calls;   /* allocations while armed */
static atomic_size_t g_fail_at; /* 1-based; 0 = none */
static atomic_size_t g_refused;

/* Blocks handed out while armed and not yet freed (FAULT_GONE: a freed slot). */
#define FAULT_LIVE_CAP (1u << 14)
#define FAULT_GONE ((void *)1)
static pthread_mutex_t g_live_lock = PTHREAD_MUTEX_INITIALIZER;
static void *g_live[FAULT_LIVE_CAP];
static size_t g_nlive;
static int g_overflow;

static size_t fault_slot(const void *p) { return ((uintptr_t)p >> 4) * 0x9E3779B97F4A7C15ull >> 50; }

static void fault_remember(void *p)
{
    if (!p || !atomic_load(&g_armed)) return;
    pthread_mutex_lock(&g_live_lock);
    if (g_nlive >= FAULT_LIVE_CAP / 2) {
        g_overflow = 1;
    } else {
        size_t i = fault_slot(p);
        while (g_live[i] && g_live[i] != FAULT_GONE) i = (i + 1) & (FAULT_LIVE_CAP - 1);
        g_live[i] = p;
        g_nlive++;
    }
    pthread_mutex_unlock(&g_live_lock);
}

static void fault_forget(void *p)
{
    if (!p) return;
    pthread_mutex_lock(&g_live_lock);
    for (size_t i = fault_slot(p); g_live[i]; i = (i + 1) & (FAULT_LIVE_CAP - 1))
        if (g_live[i] == p) {
            g_live[i] = FAULT_GONE;
            g_nlive--;
            break;
        }
    pthread_mutex_unlock(&g_live_lock);
}

static int fault_refuse(void)
{
    if (!atomic_load(&g_armed)) return 0;
    size_t n = atomic_fetch_add(&g_calls, 1) + 1;
    if (n != atomic_load(&g_fail_at)) return 0;
    atomic_fetch_add(&g_refused, 1);
    errno = ENOMEM;
    return 1;
}

void *__wrap_malloc(size_t n)
{
    void *p = fault_refuse() ? NULL : __real_malloc(n);
    fault_remember(p);
    return p;
}

void *__wrap_calloc(size_t n, size_t size)
{
    void *p = fault_refuse() ? NULL : __real_calloc(n, size);
    fault_remember(p);
    return p;
}

void *__wrap_realloc(void *old, size_t n)
{
    if (fault_refuse()) return NULL; /* the old block stays, as glibc leaves it */
    void *p = __real_realloc(old, n);
    if (p || !n) fault_forget(old);
    fault_remember(p);
    return p;
}

void __wrap_free(void *p)
{
    fault_forget(p);
    __real_free(p);
}

static void fault_arm(size_t fail_at)
{
    pthread_mutex_lock(&g_live_lock);
    memset(g_live, 0, sizeof g_live);
    g_nlive = 0;
    g_overflow = 0;
    pthread_mutex_unlock(&g_live_lock);
    atomic_store(&g_calls, 0);
    atomic_store(&g_refused, 0);
    atomic_store(&g_fail_at, fail_at);
    atomic_store(&g_armed, 1);
}

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
        fault_arm(0);
        assert_int_equal(run(rt, p, &err), 0);
        atomic_store(&g_armed, 0);
        expect_right_numbers("no refusal");
        if (atomic_load(&g_calls) > most) most = atomic_load(&g_calls);
        pto_runtime_destroy(rt);
    }
    assert_true(most > 0);

    int failed = 0;
    for (size_t n = 1; n <= most + 2; n++) {
        pto_runtime *rt = new_runtime();
        fault_arm(n);
        int rc = run(rt, p, &err);
        atomic_store(&g_armed, 0);
        if (rc == 0) {
            expect_right_numbers("a refusal the run survived");
        } else {
            failed++;
            if (rc >= 0 || !strstr(err.message, "out of memory"))
                fail_msg("allocation %zu refused: rc %d, message:\n%s", n, rc, err.message);
        }
        assert_int_equal(run(rt, p, &err), 0); /* the next run works */
        expect_right_numbers("the run after a refusal");
        atomic_store(&g_fail_at, 0);
        atomic_store(&g_armed, 1); /* track what destroy frees, refusing nothing */
        pto_runtime_destroy(rt);
        atomic_store(&g_armed, 0);
        assert_false(g_overflow);
        if (g_nlive) fail_msg("allocation %zu refused: %zu blocks still held after pto_runtime_destroy", n, g_nlive);
    }
    assert_true(failed > 0); /* some refusal reached a caller */
    pto_program_free(p);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_run_out_of_memory_manual_placement),
};

PTO_TEST_MAIN(tests)
