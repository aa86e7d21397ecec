/*
 * test_config.c - the configuration rules (docs/runtime.md, "Sizing"), one test per
 * rule: defaults, per-ring forms, scalar and list rejects with their exact
 * messages, workers and stall, retired environment variables, the ring-size
 * log line, and check order.
 */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/config.h"

#define MSG_LEN 512

/* Asserts that the scalar (entry -1) or list entry (0..3) value is rejected with want. */
static void expect_ring_reject(pto_ring_field field, int entry, int is_int, int64_t value,
                               const char *shown, const char *want)
{
    char msg[MSG_LEN];
    assert_int_equal(
        pto_config_check_ring_value(field, entry, is_int, value, shown, msg, sizeof msg), -1);
    assert_string_equal(msg, want);
}

static void expect_ring_accept(pto_ring_field field, int entry, int64_t value)
{
    char msg[MSG_LEN];
    assert_int_equal(
        pto_config_check_ring_value(field, entry, 1, value, NULL, msg, sizeof msg), 0);
}

static void expect_config_reject(const pto_config *cfg, const char *want)
{
    char msg[MSG_LEN];
    assert_int_equal(pto_config_check(cfg, msg, sizeof msg), -1);
    assert_string_equal(msg, want);
    pto_config out;
    assert_int_equal(rt_config_resolve(cfg, &out, msg, sizeof msg), -1);
    assert_string_equal(msg, want);
}

static void set_ring(uint64_t *ring, uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    ring[0] = a;
    ring[1] = b;
    ring[2] = c;
    ring[3] = d;
}

/* Runs fn with stderr redirected to a temp file; returns what it wrote (caller frees). */
static char *capture_stderr(void (*fn)(const void *), const void *arg)
{
    char path[] = "/tmp/pto_test_config_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    unlink(path);
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    assert_true(saved >= 0);
    assert_true(dup2(fd, STDERR_FILENO) >= 0);
    fn(arg);
    fflush(stderr);
    assert_true(dup2(saved, STDERR_FILENO) >= 0);
    close(saved);

    off_t size = lseek(fd, 0, SEEK_END);
    assert_true(size >= 0);
    char *text = calloc((size_t)size + 1, 1);
    assert_non_null(text);
    assert_int_equal(pread(fd, text, (size_t)size, 0), size);
    close(fd);
    return text;
}

static int count_lines_starting(const char *text, const char *prefix)
{
    int n = 0;
    size_t plen = strlen(prefix);
    for (const char *line = text; *line;) {
        if (strncmp(line, prefix, plen) == 0) n++;
        const char *nl = strchr(line, '\n');
        if (!nl) break;
        line = nl + 1;
    }
    return n;
}

static void test_config_defaults(void **state)
{
    (void)state;
    pto_config zero = {0};
    pto_config out;
    char msg[MSG_LEN];
    assert_int_equal(pto_config_check(&zero, msg, sizeof msg), 0);
    assert_int_equal(pto_config_check(NULL, msg, sizeof msg), 0);
    assert_int_equal(rt_config_resolve(&zero, &out, msg, sizeof msg), 0);
    for (int i = 0; i < PTO_NUM_RINGS; i++) {
        assert_int_equal(out.runtime_env.ring_task_window[i], 16384);
        assert_int_equal(out.runtime_env.ring_heap[i], 268435456ull);
        assert_int_equal(out.runtime_env.ring_dep_pool[i], 16384);
    }
    assert_true(out.num_workers >= 1 && out.num_workers <= 1024);
    assert_int_equal(out.stall_timeout_ms, 2000);
    assert_int_equal(out.enable_scope_stats, 0);
    assert_null(out.output_prefix);

    pto_config from_null;
    assert_int_equal(rt_config_resolve(NULL, &from_null, msg, sizeof msg), 0);
    assert_memory_equal(&from_null.runtime_env, &out.runtime_env, sizeof out.runtime_env);
    assert_int_equal(from_null.stall_timeout_ms, 2000);

    assert_string_equal(pto_ring_field_name(PTO_FIELD_RING_TASK_WINDOW), "ring_task_window");
    assert_string_equal(pto_ring_field_name(PTO_FIELD_RING_HEAP), "ring_heap");
    assert_string_equal(pto_ring_field_name(PTO_FIELD_RING_DEP_POOL), "ring_dep_pool");
}

static void test_config_forms(void **state)
{
    (void)state;
    pto_config cfg = {0};
    set_ring(cfg.runtime_env.ring_task_window, 16, 0, 0, 256);
    set_ring(cfg.runtime_env.ring_heap, 0, 4096, 0, 1024);
    set_ring(cfg.runtime_env.ring_dep_pool, 100, 0, 7, 0);
    cfg.num_workers = 3;
    cfg.stall_timeout_ms = -1;
    cfg.enable_scope_stats = 1;
    cfg.output_prefix = "/tmp/out";
    cfg.log_ring_sizes = 1;

    pto_config out;
    char msg[MSG_LEN];
    assert_int_equal(rt_config_resolve(&cfg, &out, msg, sizeof msg), 0);
    const uint64_t window[] = {16, 16384, 16384, 256};
    const uint64_t heap[] = {268435456ull, 4096, 268435456ull, 1024};
    const uint64_t dep[] = {100, 16384, 7, 16384};
    for (int i = 0; i < PTO_NUM_RINGS; i++) {
        assert_int_equal(out.runtime_env.ring_task_window[i], window[i]);
        assert_int_equal(out.runtime_env.ring_heap[i], heap[i]);
        assert_int_equal(out.runtime_env.ring_dep_pool[i], dep[i]);
    }
    assert_int_equal(out.num_workers, 3);
    assert_int_equal(out.stall_timeout_ms, -1);
    assert_int_equal(out.enable_scope_stats, 1);
    assert_ptr_equal(out.output_prefix, cfg.output_prefix);
    assert_int_equal(out.log_ring_sizes, 1);

    /* The input is left as written. */
    assert_int_equal(cfg.runtime_env.ring_task_window[1], 0);

    /* The largest accepted values. */
    set_ring(cfg.runtime_env.ring_task_window, 1073741824ull, 4, 4, 4);
    set_ring(cfg.runtime_env.ring_heap, 1099511627776ull, 1024, 1024, 1024);
    set_ring(cfg.runtime_env.ring_dep_pool, 2147483647ull, 4, 4, 4);
    cfg.num_workers = 1024;
    assert_int_equal(pto_config_check(&cfg, msg, sizeof msg), 0);
    assert_string_equal(msg, "");
}

static void test_config_scalar_rejects(void **state)
{
    (void)state;
    const pto_ring_field W = PTO_FIELD_RING_TASK_WINDOW;
    const pto_ring_field H = PTO_FIELD_RING_HEAP;
    const pto_ring_field D = PTO_FIELD_RING_DEP_POOL;

    expect_ring_reject(W, -1, 1, 3, NULL, "ring_task_window must be a power of 2 >= 4, got 3");
    expect_ring_reject(W, -1, 1, 5, NULL, "ring_task_window must be a power of 2 >= 4, got 5");
    expect_ring_reject(W, -1, 1, 0, NULL, "ring_task_window must be a power of 2 >= 4, got 0");
    expect_ring_reject(W, -1, 1, 6, NULL, "ring_task_window must be a power of 2 >= 4, got 6");
    expect_ring_reject(W, -1, 1, 100, NULL, "ring_task_window must be a power of 2 >= 4, got 100");
    expect_ring_reject(W, -1, 1, 2, NULL, "ring_task_window must be a power of 2 >= 4, got 2");
    expect_ring_reject(W, -1, 1, -4, NULL, "ring_task_window must be a power of 2 >= 4, got -4");
    expect_ring_reject(W, -1, 1, 2147483648ll, NULL,
                       "ring_task_window must be <= 1073741824, got 2147483648");
    expect_ring_accept(W, -1, 4);
    expect_ring_accept(W, -1, 1073741824ll);

    expect_ring_reject(H, -1, 1, 512, NULL,
                       "ring_heap must be a power of 2 >= 1024 (bytes per ring), got 512");
    expect_ring_reject(H, -1, 1, 1000, NULL,
                       "ring_heap must be a power of 2 >= 1024 (bytes per ring), got 1000");
    expect_ring_reject(H, -1, 1, 1536, NULL,
                       "ring_heap must be a power of 2 >= 1024 (bytes per ring), got 1536");
    expect_ring_reject(H, -1, 1, 0, NULL,
                       "ring_heap must be a power of 2 >= 1024 (bytes per ring), got 0");
    expect_ring_reject(H, -1, 1, 2199023255552ll, NULL,
                       "ring_heap must be <= 1099511627776 (bytes per ring), got 2199023255552");
    expect_ring_accept(H, -1, 1024);

    expect_ring_reject(D, -1, 1, 3, NULL, "ring_dep_pool must be in [4, INT32_MAX], got 3");
    expect_ring_reject(D, -1, 1, 0, NULL, "ring_dep_pool must be in [4, INT32_MAX], got 0");
    expect_ring_reject(D, -1, 1, -1, NULL, "ring_dep_pool must be in [4, INT32_MAX], got -1");
    expect_ring_reject(D, -1, 1, 2147483648ll, NULL,
                       "ring_dep_pool must be in [4, INT32_MAX], got 2147483648");
    expect_ring_reject(D, -1, 1, INT64_MIN, NULL,
                       "ring_dep_pool must be in [4, INT32_MAX], got -9223372036854775808");
    expect_ring_accept(D, -1, 100);
    expect_ring_accept(D, -1, 2147483647ll);

    /* Python bool and float: rejected whatever their value, printed as shown. */
    expect_ring_reject(W, -1, 0, 16, "16.0", "ring_task_window must be a power of 2 >= 4, got 16.0");
    expect_ring_reject(W, -1, 0, 1, "True", "ring_task_window must be a power of 2 >= 4, got True");
    expect_ring_reject(W, -1, 0, 0, "False",
                       "ring_task_window must be a power of 2 >= 4, got False");
    expect_ring_reject(H, -1, 0, 4096, "4096.0",
                       "ring_heap must be a power of 2 >= 1024 (bytes per ring), got 4096.0");
    expect_ring_reject(D, -1, 0, 1, "True", "ring_dep_pool must be in [4, INT32_MAX], got True");

    /* A short buffer gets a truncated, NUL-terminated message. */
    char small[10];
    assert_int_equal(pto_config_check_ring_value(W, -1, 1, 3, NULL, small, sizeof small), -1);
    assert_string_equal(small, "ring_task");
    assert_int_equal(pto_config_check_ring_value(W, -1, 1, 3, NULL, NULL, 0), -1);
}

static void test_config_list_rejects(void **state)
{
    (void)state;
    const pto_ring_field W = PTO_FIELD_RING_TASK_WINDOW;
    const pto_ring_field H = PTO_FIELD_RING_HEAP;
    const pto_ring_field D = PTO_FIELD_RING_DEP_POOL;
    char msg[MSG_LEN];

    const size_t bad_lengths[] = {0, 1, 3, 5};
    for (size_t i = 0; i < sizeof bad_lengths / sizeof bad_lengths[0]; i++) {
        char want[MSG_LEN];
        snprintf(want, sizeof want,
                 "ring_heap must have exactly 4 entries (one per scope-depth ring), got %zu",
                 bad_lengths[i]);
        assert_int_equal(pto_config_check_ring_list_len(H, bad_lengths[i], msg, sizeof msg), -1);
        assert_string_equal(msg, want);
    }
    assert_int_equal(pto_config_check_ring_list_len(W, 3, msg, sizeof msg), -1);
    assert_string_equal(
        msg, "ring_task_window must have exactly 4 entries (one per scope-depth ring), got 3");
    assert_int_equal(pto_config_check_ring_list_len(D, 4, msg, sizeof msg), 0);

    /* C arrays through pto_config_check: the first bad entry is reported. */
    const char *window_msg =
        "ring_task_window entries must be a power of 2 >= 4 (or 0 to keep default), got 48";
    const char *heap_msg =
        "ring_heap entries must be a power of 2 >= 1024 (bytes per ring) (or 0 to keep default), "
        "got 512";
    const char *dep_msg = "ring_dep_pool entries must be in [4, INT32_MAX] (or 0 to keep default), "
                          "got 2";
    pto_config cfg = {0};
    set_ring(cfg.runtime_env.ring_task_window, 16, 32, 48, 64);
    expect_config_reject(&cfg, window_msg);
    cfg = (pto_config){0};
    set_ring(cfg.runtime_env.ring_heap, 1024, 2048, 512, 4096);
    expect_config_reject(&cfg, heap_msg);
    cfg = (pto_config){0};
    set_ring(cfg.runtime_env.ring_dep_pool, 8, 16, 2, 256);
    expect_config_reject(&cfg, dep_msg);

    /* The same entries one at a time, as RunConfig checks them. */
    expect_ring_reject(W, 2, 1, 48, NULL, window_msg);
    expect_ring_reject(H, 2, 1, 512, NULL, heap_msg);
    expect_ring_reject(D, 2, 1, 2, NULL, dep_msg);
    expect_ring_accept(W, 2, 0);
    expect_ring_accept(H, 2, 0);
    expect_ring_accept(D, 2, 0);
    expect_ring_accept(W, 2, 16);
    /* An entry index past the four rings is itself an error. */
    char bad[MSG_LEN];
    assert_int_equal(pto_config_check_ring_value(W, 4, 1, 16, NULL, bad, sizeof bad), -1);
    assert_string_equal(bad, "ring_task_window has no entry 4 (rings 0..3)");

    /* Entries are type-checked before the 0 test: True and False are no sentinels. */
    expect_ring_reject(W, 2, 0, 1, "True",
                       "ring_task_window entries must be a power of 2 >= 4 (or 0 to keep "
                       "default), got True");
    expect_ring_reject(D, 2, 0, 0, "False",
                       "ring_dep_pool entries must be in [4, INT32_MAX] (or 0 to keep default), "
                       "got False");
    expect_ring_reject(H, 2, 0, 2048, "2048.0",
                       "ring_heap entries must be a power of 2 >= 1024 (bytes per ring) (or 0 "
                       "to keep default), got 2048.0");

    /* Upper bounds apply to entries, in the entry form. */
    const char *window_max =
        "ring_task_window entries must be <= 1073741824 (or 0 to keep default), got 2147483648";
    expect_ring_reject(W, 3, 1, 2147483648ll, NULL, window_max);
    cfg = (pto_config){0};
    set_ring(cfg.runtime_env.ring_task_window, 0, 0, 0, 2147483648ull);
    expect_config_reject(&cfg, window_max);
    cfg = (pto_config){0};
    set_ring(cfg.runtime_env.ring_heap, 2199023255552ull, 0, 0, 0);
    expect_config_reject(&cfg, "ring_heap entries must be <= 1099511627776 (bytes per ring) (or 0 "
                               "to keep default), got 2199023255552");
    cfg = (pto_config){0};
    set_ring(cfg.runtime_env.ring_dep_pool, 0, 2147483648ull, 0, 0);
    expect_config_reject(&cfg, "ring_dep_pool entries must be in [4, INT32_MAX] (or 0 to keep "
                               "default), got 2147483648");
    /* A C entry above INT64_MAX prints as the unsigned value it is. */
    cfg = (pto_config){0};
    set_ring(cfg.runtime_env.ring_heap, 0, UINT64_MAX, 0, 0);
    expect_config_reject(&cfg, "ring_heap entries must be a power of 2 >= 1024 (bytes per ring) "
                               "(or 0 to keep default), got 18446744073709551615");
    cfg = (pto_config){0};
    set_ring(cfg.runtime_env.ring_heap, 0, 0, 9223372036854775808ull, 0);
    expect_config_reject(&cfg, "ring_heap entries must be <= 1099511627776 (bytes per ring) (or 0 "
                               "to keep default), got 9223372036854775808");
}

static void test_config_workers_stall(void **state)
{
    (void)state;
    char msg[MSG_LEN];
    const char *workers_msg0 = "num_workers must be in [1, 1024], got 0";
    assert_int_equal(pto_config_check_num_workers(1, 0, NULL, msg, sizeof msg), -1);
    assert_string_equal(msg, workers_msg0);
    assert_int_equal(pto_config_check_num_workers(1, 1025, NULL, msg, sizeof msg), -1);
    assert_string_equal(msg, "num_workers must be in [1, 1024], got 1025");
    assert_int_equal(pto_config_check_num_workers(0, 1, "True", msg, sizeof msg), -1);
    assert_string_equal(msg, "num_workers must be in [1, 1024], got True");
    assert_int_equal(pto_config_check_num_workers(1, 1, NULL, msg, sizeof msg), 0);
    assert_int_equal(pto_config_check_num_workers(1, 1024, NULL, msg, sizeof msg), 0);

    const char *stall_fmt = "stall_timeout_ms must be a positive number of milliseconds or -1 "
                            "(never), got %s";
    char want[MSG_LEN];
    assert_int_equal(pto_config_check_stall_timeout(1, 0, NULL, msg, sizeof msg), -1);
    snprintf(want, sizeof want, stall_fmt, "0");
    assert_string_equal(msg, want);
    assert_int_equal(pto_config_check_stall_timeout(1, -2, NULL, msg, sizeof msg), -1);
    snprintf(want, sizeof want, stall_fmt, "-2");
    assert_string_equal(msg, want);
    assert_int_equal(pto_config_check_stall_timeout(0, 2, "2.5", msg, sizeof msg), -1);
    snprintf(want, sizeof want, stall_fmt, "2.5");
    assert_string_equal(msg, want);
    assert_int_equal(pto_config_check_stall_timeout(1, 2147483648ll, NULL, msg, sizeof msg), -1);
    snprintf(want, sizeof want, stall_fmt, "2147483648");
    assert_string_equal(msg, want);
    assert_int_equal(pto_config_check_stall_timeout(1, -1, NULL, msg, sizeof msg), 0);
    assert_int_equal(pto_config_check_stall_timeout(1, 1, NULL, msg, sizeof msg), 0);

    /* C: 0 is the default for both; negatives other than stall -1 are rejected. */
    pto_config cfg = {0};
    cfg.num_workers = -3;
    expect_config_reject(&cfg, "num_workers must be in [1, 1024], got -3");
    cfg = (pto_config){0};
    cfg.stall_timeout_ms = -2;
    snprintf(want, sizeof want, stall_fmt, "-2");
    expect_config_reject(&cfg, want);
    cfg.stall_timeout_ms = -1;
    assert_int_equal(pto_config_check(&cfg, msg, sizeof msg), 0);

    const char *stats_msg = "enable_scope_stats requires output_prefix (the directory that "
                            "receives scope_stats/scope_stats.jsonl)";
    cfg = (pto_config){0};
    cfg.enable_scope_stats = 1;
    expect_config_reject(&cfg, stats_msg);
    cfg.output_prefix = "";
    expect_config_reject(&cfg, stats_msg);
    cfg.output_prefix = "out";
    assert_int_equal(pto_config_check(&cfg, msg, sizeof msg), 0);
}

static void warn_twice(const void *arg)
{
    (void)arg;
    rt_config_warn_retired_env(NULL);
    rt_config_warn_retired_env(NULL);
}

static void test_retired_env_vars(void **state)
{
    (void)state;
    unsetenv("PTO2_RING_TASK_WINDOW");
    unsetenv("PTO2_RING_DEP_POOL");
    assert_int_equal(setenv("PTO2_RING_HEAP", "1073741824", 1), 0);

    char *text = capture_stderr(warn_twice, NULL);
    assert_string_equal(text, "warning: PTO2_RING_HEAP is no longer read and is ignored; size "
                              "the rings with RunConfig ring_heap (runtime_env.ring_heap)\n");
    free(text);

    /* A later runtime creation warns no more. */
    text = capture_stderr(warn_twice, NULL);
    assert_string_equal(text, "");
    free(text);

    pto_config out;
    char msg[MSG_LEN];
    assert_int_equal(rt_config_resolve(NULL, &out, msg, sizeof msg), 0);
    for (int i = 0; i < PTO_NUM_RINGS; i++)
        assert_int_equal(out.runtime_env.ring_heap[i], 268435456ull);
    unsetenv("PTO2_RING_HEAP");
}

static void log_sizes(const void *arg)
{
    rt_config_log_sizes(arg);
}

static void test_log_ring_sizes(void **state)
{
    (void)state;
    pto_config cfg = {0};
    cfg.num_workers = 2;
    cfg.log_ring_sizes = 1;
    pto_config out;
    char msg[MSG_LEN];
    assert_int_equal(rt_config_resolve(&cfg, &out, msg, sizeof msg), 0);

    char *text = capture_stderr(log_sizes, &out);
    assert_int_equal(count_lines_starting(text, "Ring buffer sizes:"), 1);
    assert_string_equal(
        text, "Ring buffer sizes: task_window=[16384, 16384, 16384, 16384] "
              "heap=[268435456, 268435456, 268435456, 268435456] "
              "dep_pool=[16384, 16384, 16384, 16384] tensormap=65536 workers=2 "
              "stall_timeout_ms=2000\n");
    free(text);

    set_ring(cfg.runtime_env.ring_task_window, 16, 0, 0, 256);
    set_ring(cfg.runtime_env.ring_heap, 0, 4096, 0, 0);
    cfg.stall_timeout_ms = -1;
    assert_int_equal(rt_config_resolve(&cfg, &out, msg, sizeof msg), 0);
    text = capture_stderr(log_sizes, &out);
    assert_string_equal(
        text, "Ring buffer sizes: task_window=[16, 16384, 16384, 256] "
              "heap=[268435456, 4096, 268435456, 268435456] "
              "dep_pool=[16384, 16384, 16384, 16384] tensormap=65536 workers=2 "
              "stall_timeout_ms=-1\n");
    free(text);
}

static void test_config_check_order(void **state)
{
    (void)state;
    pto_config cfg = {0};
    /* Every row wrong: each fix reveals the next row in table order. */
    set_ring(cfg.runtime_env.ring_task_window, 0, 3, 0, 0);
    set_ring(cfg.runtime_env.ring_heap, 0, 0, 512, 0);
    set_ring(cfg.runtime_env.ring_dep_pool, 2, 0, 0, 0);
    cfg.num_workers = 2000;
    cfg.stall_timeout_ms = -5;
    cfg.enable_scope_stats = 1;

    expect_config_reject(&cfg, "ring_task_window entries must be a power of 2 >= 4 (or 0 to keep "
                               "default), got 3");
    cfg.runtime_env.ring_task_window[1] = 0;
    expect_config_reject(&cfg, "ring_heap entries must be a power of 2 >= 1024 (bytes per ring) "
                               "(or 0 to keep default), got 512");
    cfg.runtime_env.ring_heap[2] = 0;
    expect_config_reject(&cfg, "ring_dep_pool entries must be in [4, INT32_MAX] (or 0 to keep "
                               "default), got 2");
    cfg.runtime_env.ring_dep_pool[0] = 0;
    expect_config_reject(&cfg, "num_workers must be in [1, 1024], got 2000");
    cfg.num_workers = 0;
    expect_config_reject(&cfg, "stall_timeout_ms must be a positive number of milliseconds or -1 "
                               "(never), got -5");
    cfg.stall_timeout_ms = 0;
    expect_config_reject(&cfg, "enable_scope_stats requires output_prefix (the directory that "
                               "receives scope_stats/scope_stats.jsonl)");
    cfg.output_prefix = "out";
    char msg[MSG_LEN];
    assert_int_equal(pto_config_check(&cfg, msg, sizeof msg), 0);

    /* Within a ring field, the first bad ring is reported. */
    set_ring(cfg.runtime_env.ring_task_window, 16, 6, 12, 0);
    expect_config_reject(&cfg, "ring_task_window entries must be a power of 2 >= 4 (or 0 to keep "
                               "default), got 6");
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_config_defaults),
    cmocka_unit_test(test_config_forms),
    cmocka_unit_test(test_config_scalar_rejects),
    cmocka_unit_test(test_config_list_rejects),
    cmocka_unit_test(test_config_workers_stall),
    cmocka_unit_test(test_retired_env_vars),
    cmocka_unit_test(test_log_ring_sizes),
    cmocka_unit_test(test_config_check_order),
};

PTO_TEST_MAIN(tests)
