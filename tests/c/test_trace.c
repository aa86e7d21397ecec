/*
 * test_trace.c - the per-task trace (docs/runtime.md, "Tracing"): with
 * pto_config.trace_path (or PTO_TRACE) set, the runtime writes a Chrome
 * trace-event JSON array: metadata naming the process and every executor,
 * then one complete ("X") event per kernel task with its name, worker,
 * ring, task id and times.  Each test reads the file back with jansson.
 */
#include "harness.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/file.h"
#include "e2e.h"

static int k_spin(const pto_kernel_args *a)
{
    (void)a;
    spin_us(200);
    return 0;
}

static int k_fail(const pto_kernel_args *a)
{
    snprintf(a->message, a->message_len, "boom");
    return 3;
}

static void temp_path(char *out, size_t n)
{
    snprintf(out, n, "/tmp/pto_trace_XXXXXX");
    int fd = mkstemp(out);
    assert_true(fd >= 0);
    close(fd);
}

static json_t *load_trace(const char *path)
{
    json_error_t e;
    json_t *root = json_load_file(path, 0, &e);
    if (!root) print_error("%s:%d: %s\n", path, e.line, e.text);
    assert_non_null(root);
    assert_true(json_is_array(root));
    return root;
}

/* The "X" events, in file order. */
static size_t task_events(json_t *root, json_t **out, size_t cap)
{
    size_t n = 0, i;
    json_t *ev;
    json_array_foreach(root, i, ev) {
        if (strcmp(json_string_value(json_object_get(ev, "ph")), "X")) continue;
        assert_true(n < cap);
        out[n++] = ev;
    }
    return n;
}

static json_t *event_named(json_t **ev, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(json_string_value(json_object_get(ev[i], "name")), name)) return ev[i];
    fail_msg("no event named %s", name);
    return NULL;
}

static double num(json_t *ev, const char *key) { return json_number_value(json_object_get(ev, key)); }

static pto_task_id submit_named(pto_runtime *rt, const char *name, pto_kernel_fn k, pto_arg *args, uint32_t nargs)
{
    pto_task t = {.kernel = k, .name = name, .args = args, .num_args = nargs};
    pto_task_id id;
    check_submit(rt, &t, &id);
    return id;
}

/* A RAW chain a -> b -> c on one buffer, an independent task, and a task
 * two scopes deep (ring 1): one event each, names, rings, ids, and the
 * chain's order in time. */
static void test_trace_one_event_per_task_in_dependency_order(void **state)
{
    (void)state;
    char path[64];
    temp_path(path, sizeof path);
    pto_config c = cfg_rings(0, 0, 0, 1, 0);
    c.trace_path = path;
    pto_runtime *rt = make_rt(&c);
    uint64_t buf[8] = {0}, other[8] = {0};
    pto_arg w = arg(PTO_ARG_INOUT, v1(buf, 0, 8)), o = arg(PTO_ARG_INOUT, v1(other, 0, 8));
    submit_named(rt, "a \"quoted\" name", k_spin, &w, 1);
    submit_named(rt, "b", k_spin, &w, 1);
    submit_named(rt, "c", k_spin, &w, 1);
    submit_named(rt, "free", k_spin, &o, 1);
    check_ok(rt, pto_scope_begin(rt, PTO_SCOPE_AUTO, "t.c", 1), "scope");
    check_ok(rt, pto_scope_begin(rt, PTO_SCOPE_AUTO, "t.c", 2), "scope"); /* depth 1: ring 1 */
    pto_task_id inner = submit_named(rt, "inner", k_spin, &o, 1);
    scope_end_ok(rt);
    scope_end_ok(rt);
    finish_ok(rt);
    pto_runtime_destroy(rt);

    json_t *root = load_trace(path), *ev[16];
    assert_int_equal(task_events(root, ev, 16), 5);
    json_t *a = event_named(ev, 5, "a \"quoted\" name"), *b = event_named(ev, 5, "b"), *cc = event_named(ev, 5, "c");
    assert_true(num(b, "ts") >= num(a, "ts") + num(a, "dur"));
    assert_true(num(cc, "ts") >= num(b, "ts") + num(b, "dur"));
    assert_true(num(a, "dur") >= 200.0); /* the kernel spins 200 us */
    json_t *in = event_named(ev, 5, "inner");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(in, "args"), "ring")), 1);
    char want[32];
    snprintf(want, sizeof want, "1:%u", (unsigned)(inner & 0xffffffffu)); /* as error messages print ids */
    assert_string_equal(json_string_value(json_object_get(json_object_get(in, "args"), "task")), want);
    for (int i = 0; i < 5; i++) {
        json_int_t tid = json_integer_value(json_object_get(ev[i], "tid"));
        assert_true(tid == 0 || tid == 1); /* worker 0 or the orchestrator (executor 1) */
        assert_string_equal(json_string_value(json_object_get(ev[i], "cat")), "task");
    }
    json_decref(root);
    unlink(path);
}

/* Metadata: the process, each worker and the orchestrator are named. */
static void test_trace_names_every_executor(void **state)
{
    (void)state;
    char path[64];
    temp_path(path, sizeof path);
    pto_config c = cfg_rings(0, 0, 0, 3, 0);
    c.trace_path = path;
    pto_runtime_destroy(make_rt(&c));
    json_t *root = load_trace(path);
    const char *want[] = {"libpto", "worker 0", "worker 1", "worker 2", "orchestrator"};
    assert_int_equal(json_array_size(root), 5);
    for (size_t i = 0; i < 5; i++) {
        json_t *ev = json_array_get(root, i);
        assert_string_equal(json_string_value(json_object_get(ev, "ph")), "M");
        assert_string_equal(json_string_value(json_object_get(json_object_get(ev, "args"), "name")), want[i]);
        if (i) assert_int_equal(json_integer_value(json_object_get(ev, "tid")), (json_int_t)i - 1);
    }
    json_decref(root);
    unlink(path);
}

/* Each pto_runtime_finish writes its run's events out; runs on one runtime
 * append to the same file; a failed run's kernel is in it too (it ran),
 * and the tasks skipped after the failure are not. */
static void test_trace_spans_runs_and_failures(void **state)
{
    (void)state;
    char path[64];
    temp_path(path, sizeof path);
    pto_config c = cfg_rings(0, 0, 0, 1, 0);
    c.trace_path = path;
    pto_runtime *rt = make_rt(&c);
    uint64_t buf[4] = {0};
    pto_arg w = arg(PTO_ARG_INOUT, v1(buf, 0, 4));
    submit_named(rt, "run1", k_spin, &w, 1);
    finish_ok(rt);
    /* written at finish, before destroy: the file is whole but for its closing bracket */
    size_t len;
    char *text = base_read_file(path, &len), closed[4096];
    assert_non_null(text);
    assert_true(len + 3 < sizeof closed);
    snprintf(closed, sizeof closed, "%s\n]", text);
    free(text);
    json_t *partial = json_loads(closed, 0, NULL), *ev[8];
    assert_non_null(partial);
    assert_int_equal(task_events(partial, ev, 8), 1);
    json_decref(partial);
    submit_named(rt, "fails", k_fail, &w, 1);
    /* "fails" may already have failed (the submit is then refused with the
     * latched status); either way "skipped", which waits for it, never runs. */
    pto_task skipped = {.kernel = k_spin, .name = "skipped", .args = &w, .num_args = 1};
    pto_task_id sid;
    int src = pto_task_submit(rt, &skipped, &sid);
    assert_true(src == 0 || src == -PTO_KERNEL_FAILED);
    expect_code(rt, pto_runtime_finish(rt), PTO_KERNEL_FAILED);
    submit_named(rt, "run3", k_spin, &w, 1);
    finish_ok(rt);
    pto_runtime_destroy(rt);
    json_t *root = load_trace(path);
    assert_int_equal(task_events(root, ev, 8), 3);
    assert_true(num(event_named(ev, 3, "run3"), "ts") > num(event_named(ev, 3, "run1"), "ts"));
    event_named(ev, 3, "fails");
    json_decref(root);
    unlink(path);
}

/* PTO_TRACE turns the trace on when trace_path is NULL; the field wins over it. */
static void test_trace_env_variable_when_field_unset(void **state)
{
    (void)state;
    char env_path[64], field_path[64];
    temp_path(env_path, sizeof env_path);
    temp_path(field_path, sizeof field_path);
    setenv("PTO_TRACE", env_path, 1);
    pto_config c = cfg_rings(0, 0, 0, 1, 0);
    pto_runtime *rt = make_rt(&c);
    uint64_t buf[4] = {0};
    pto_arg w = arg(PTO_ARG_INOUT, v1(buf, 0, 4));
    submit_named(rt, "from_env", k_spin, &w, 1);
    pto_runtime_destroy(rt);
    c.trace_path = field_path;
    rt = make_rt(&c);
    submit_named(rt, "from_field", k_spin, &w, 1);
    pto_runtime_destroy(rt);
    unsetenv("PTO_TRACE");

    json_t *ev[4], *root = load_trace(env_path);
    assert_int_equal(task_events(root, ev, 4), 1);
    event_named(ev, 1, "from_env");
    json_decref(root);
    root = load_trace(field_path);
    assert_int_equal(task_events(root, ev, 4), 1);
    event_named(ev, 1, "from_field");
    json_decref(root);
    unlink(env_path), unlink(field_path);
}

/* A path that cannot be opened fails create, naming the path and the field. */
static void test_trace_unwritable_path_fails_create(void **state)
{
    (void)state;
    pto_config c = cfg_rings(0, 0, 0, 1, 0);
    c.trace_path = "/nonexistent-dir/trace.json";
    pto_runtime *rt = NULL;
    pto_error err;
    assert_int_equal(pto_runtime_create(&c, &rt, &err), -PTO_INVALID_ARGS);
    assert_null(rt);
    assert_non_null(strstr(err.message, "cannot open the trace file '/nonexistent-dir/trace.json': No such file or directory"));
    assert_non_null(strstr(err.message, "set trace_path (or PTO_TRACE)"));
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_trace_one_event_per_task_in_dependency_order),
    cmocka_unit_test(test_trace_names_every_executor),
    cmocka_unit_test(test_trace_spans_runs_and_failures),
    cmocka_unit_test(test_trace_env_variable_when_field_unset),
    cmocka_unit_test(test_trace_unwritable_path_fails_create),
};

PTO_TEST_MAIN(tests)
