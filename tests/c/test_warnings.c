/*
 * test_warnings.c - every warning the library emits reaches the callback
 * in pto_config, once, with its code and text, and nothing goes to stderr
 * while a callback is installed.  Each test triggers one warning.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

#include "harness.h"
#include "e2e.h"

typedef struct seen {
    int count[16];
    char last[4096];
} seen;

static void on_warning(void *ctx, pto_warning code, const char *text)
{
    seen *s = ctx;
    assert_true(code > 0 && code < 16);
    s->count[code]++;
    snprintf(s->last, sizeof s->last, "%s", text);
}

/* Asserts that warning `code` (and no other) was seen exactly once, with
 * frag in its text. */
static void expect_once(const seen *s, pto_warning code, const char *frag)
{
    for (int c = 1; c < 16; c++) assert_int_equal(s->count[c], c == (int)code ? 1 : 0);
    if (!strstr(s->last, frag)) print_error("warning %s lacks \"%s\":\n%s\n", pto_warning_name(code), frag, s->last);
    assert_non_null(strstr(s->last, frag));
}

/* stderr goes to a file while a test runs; it must stay empty. */
static int saved_stderr = -1;
static char stderr_path[64];

static void capture_stderr(void)
{
    snprintf(stderr_path, sizeof stderr_path, "/tmp/pto_warnings_XXXXXX");
    int fd = mkstemp(stderr_path);
    assert_true(fd >= 0);
    fflush(stderr);
    saved_stderr = dup(2);
    dup2(fd, 2);
    close(fd);
}

static void expect_stderr_empty(void)
{
    fflush(stderr);
    dup2(saved_stderr, 2);
    close(saved_stderr);
    FILE *f = fopen(stderr_path, "r");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fclose(f);
    unlink(stderr_path);
    assert_int_equal(n, 0);
}

static pto_config warn_cfg(seen *s, int window, int stall_ms)
{
    pto_config c = cfg_rings((uint64_t)window, 0, 0, 2, stall_ms);
    c.warning = on_warning;
    c.warning_ctx = s;
    return c;
}

static _Atomic int gate, started;

static int k_gated(const pto_kernel_args *a)
{
    (void)a;
    atomic_store(&started, 1);
    uint64_t end = now_ms() + 20000;
    while (!atomic_load(&gate) && now_ms() < end) nap_ms(1);
    return 0;
}

static void *open_gate_after(void *ms)
{
    nap_ms((long)(intptr_t)ms);
    atomic_store(&gate, 1);
    return NULL;
}

static void test_warning_retired_env_once_per_process(void **state)
{
    (void)state;
    seen s = {0};
    capture_stderr();
    setenv("PTO2_RING_HEAP", "1073741824", 1);
    pto_config c = warn_cfg(&s, 0, 0);
    pto_runtime *rt = make_rt(&c);
    pto_runtime_destroy(rt);
    rt = make_rt(&c); /* once per process */
    pto_runtime_destroy(rt);
    unsetenv("PTO2_RING_HEAP");
    expect_stderr_empty();
    expect_once(&s, PTO_WARNING_RETIRED_ENV, "PTO2_RING_HEAP is no longer read and is ignored");
}

static void test_warning_ring_sizes_at_create(void **state)
{
    (void)state;
    seen s = {0};
    capture_stderr();
    pto_config c = warn_cfg(&s, 0, 0);
    c.log_ring_sizes = 1;
    pto_runtime_destroy(make_rt(&c));
    expect_stderr_empty();
    expect_once(&s, PTO_WARNING_RING_SIZES, "Ring buffer sizes: task_window=[16384, 16384, 16384, 16384]");
}

static void test_warning_scopes_left_open(void **state)
{
    (void)state;
    seen s = {0};
    capture_stderr();
    pto_config c = warn_cfg(&s, 0, 0);
    pto_runtime *rt = make_rt(&c);
    check_ok(rt, pto_scope_begin(rt, PTO_SCOPE_AUTO, __FILE__, __LINE__), "scope_begin");
    finish_ok(rt);
    pto_runtime_destroy(rt);
    expect_stderr_empty();
    expect_once(&s, PTO_WARNING_SCOPES_LEFT_OPEN, "pto_runtime_finish closed 1 scope(s) left open");
}

/* Window 4: three live tasks behind a gated head; the fourth submit waits
 * until a thread opens the gate, more than a second later. */
static void test_warning_ring_blocked_after_a_second(void **state)
{
    (void)state;
    seen s = {0};
    atomic_store(&gate, 0);
    capture_stderr();
    pto_config c = warn_cfg(&s, 4, E2E_NO_STALL_MS);
    pto_runtime *rt = make_rt(&c);
    pto_task head = {.kernel = k_gated, .name = "head"}, d = {.kernel = NULL, .name = "dummy"};
    for (int i = 0; i < 3; i++) {
        check_ok(rt, pto_scope_begin(rt, PTO_SCOPE_AUTO, __FILE__, __LINE__), "scope_begin");
        check_submit(rt, i ? &d : &head, NULL);
        scope_end_ok(rt);
    }
    pthread_t opener;
    assert_int_equal(pthread_create(&opener, NULL, open_gate_after, (void *)(intptr_t)1300), 0);
    check_ok(rt, pto_scope_begin(rt, PTO_SCOPE_AUTO, __FILE__, __LINE__), "scope_begin");
    check_submit(rt, &d, NULL);
    scope_end_ok(rt);
    pthread_join(opener, NULL);
    finish_ok(rt);
    pto_runtime_destroy(rt);
    expect_stderr_empty();
    expect_once(&s, PTO_WARNING_RING_BLOCKED, "[TaskAllocator ring=0] BLOCKED: tasks=3/4");
}

/* A kernel that runs 2 s, past a 200 ms stall bound, while
 * pto_runtime_finish waits for it; with fail_first the run has already
 * failed (pto_runtime_fail) while it runs.  Returns finish's status. */
static int finish_behind_slow_kernel(seen *s, int fail_first)
{
    atomic_store(&gate, 0);
    atomic_store(&started, 0);
    pto_config c = warn_cfg(s, 0, 200);
    pto_runtime *rt = make_rt(&c);
    pto_task slow = {.kernel = k_gated, .name = "slow"};
    check_submit(rt, &slow, NULL);
    uint64_t end = now_ms() + 20000;
    while (!atomic_load(&started) && now_ms() < end) nap_ms(1); /* running, not skipped */
    if (fail_first) expect_code(rt, pto_runtime_fail(rt, "boom"), PTO_EXPLICIT_ORCH_FATAL);
    pthread_t opener;
    assert_int_equal(pthread_create(&opener, NULL, open_gate_after, (void *)(intptr_t)2000), 0);
    int rc = pto_runtime_finish(rt);
    pthread_join(opener, NULL);
    pto_runtime_destroy(rt);
    return rc;
}

/* The stall is said at once, as the run's error, then the kernel is waited
 * for. */
static void test_warning_stall_reported_at_once(void **state)
{
    (void)state;
    seen s = {0};
    capture_stderr();
    assert_int_equal(finish_behind_slow_kernel(&s, 0), -PTO_SCHEDULER_TIMEOUT);
    expect_stderr_empty();
    expect_once(&s, PTO_WARNING_STALL_REPORTED, "FATAL: Scheduler Timeout!");
}

/* The same after the run already failed: a warning instead of an error. */
static void test_warning_stall_after_fatal(void **state)
{
    (void)state;
    seen s = {0};
    capture_stderr();
    assert_int_equal(finish_behind_slow_kernel(&s, 1), -PTO_EXPLICIT_ORCH_FATAL);
    expect_stderr_empty();
    expect_once(&s, PTO_WARNING_STALL_AFTER_FATAL, "waiting for 1 running kernel(s), longest task 0:0 (slow)");
}

static void test_warning_stats_not_written(void **state)
{
    (void)state;
    seen s = {0};
    capture_stderr();
    pto_config c = warn_cfg(&s, 0, 0);
    c.enable_scope_stats = 1;
    c.output_prefix = "/proc/pto-no-such-dir";
    pto_runtime *rt = make_rt(&c);
    pto_task d = {.kernel = NULL, .name = "dummy"};
    check_submit(rt, &d, NULL);
    finish_ok(rt); /* the run's status is left alone */
    pto_runtime_destroy(rt);
    expect_stderr_empty();
    expect_once(&s, PTO_WARNING_STATS_NOT_WRITTEN, "warning: scope stats: cannot write /proc/pto-no-such-dir/");
}

static void test_warning_names(void **state)
{
    (void)state;
    assert_string_equal(pto_warning_name(PTO_WARNING_RETIRED_ENV), "RETIRED_ENV");
    assert_string_equal(pto_warning_name(PTO_WARNING_STATS_NOT_WRITTEN), "STATS_NOT_WRITTEN");
    assert_string_equal(pto_warning_name(0), "UNKNOWN");
    assert_string_equal(pto_warning_name(99), "UNKNOWN");
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_warning_retired_env_once_per_process),
    cmocka_unit_test(test_warning_ring_sizes_at_create),
    cmocka_unit_test(test_warning_scopes_left_open),
    cmocka_unit_test(test_warning_ring_blocked_after_a_second),
    cmocka_unit_test(test_warning_stall_reported_at_once),
    cmocka_unit_test(test_warning_stall_after_fatal),
    cmocka_unit_test(test_warning_stats_not_written),
    cmocka_unit_test(test_warning_names),
};

PTO_TEST_MAIN(tests)
