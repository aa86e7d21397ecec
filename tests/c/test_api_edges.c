/*
 * test_api_edges.c - the public API at its edges: a NULL runtime (every
 * call returns INVALID_ARGS, destroy and last_error are documented no-ops),
 * status codes anywhere in the int range, views that end past the address
 * space, and what messages name: the submitted task, a hint that fits the
 * request, the head task's derived state.
 */
#include <limits.h>
#include <stdatomic.h>

#include "harness.h"
#include "e2e.h"

static void test_null_runtime_is_invalid_args(void **state)
{
    (void)state;
    uint64_t buf[4];
    pto_view v = v1(buf, 0, 4);
    pto_task t = {0};
    pto_task_id id = 7;
    pto_ring_usage u;
    assert_int_equal(pto_scope_begin(NULL, PTO_SCOPE_AUTO, __FILE__, __LINE__), -PTO_INVALID_ARGS);
    assert_int_equal(pto_scope_end(NULL), -PTO_INVALID_ARGS);
    assert_int_equal(pto_task_submit(NULL, &t, &id), -PTO_INVALID_ARGS);
    assert_true(id == PTO_INVALID_TASK_ID);
    id = 7;
    void *addr = &addr;
    assert_int_equal(pto_tensor_alloc(NULL, 64, &addr, &id), -PTO_INVALID_ARGS);
    assert_null(addr);
    assert_true(id == PTO_INVALID_TASK_ID);
    assert_int_equal(pto_view_wait(NULL, &v, 0), -PTO_INVALID_ARGS);
    assert_int_equal(pto_runtime_fail(NULL, "boom %d", 1), -PTO_INVALID_ARGS);
    assert_int_equal(pto_runtime_finish(NULL), -PTO_INVALID_ARGS);
    assert_int_equal(pto_ring_usage_get(NULL, 0, &u), -PTO_INVALID_ARGS);
    assert_int_equal(pto_runtime_set_scope_stats(NULL, "/tmp"), -PTO_INVALID_ARGS);
    assert_null(pto_runtime_config(NULL));
    const pto_error *e = pto_runtime_error(NULL);
    assert_non_null(e);
    assert_int_equal(e->code, PTO_INVALID_ARGS);
    assert_non_null(strstr(e->message, "runtime is NULL"));
    pto_runtime_destroy(NULL);
    assert_int_equal(pto_runtime_create(NULL, NULL, NULL), -PTO_INVALID_ARGS); /* nowhere to put it */
}

static void test_status_name_and_text_any_int(void **state)
{
    (void)state;
    assert_string_equal(pto_status_name(INT_MIN), "UNKNOWN");
    assert_string_equal(pto_status_name(INT_MIN + 1), "UNKNOWN");
    assert_string_equal(pto_status_name(INT_MAX), "UNKNOWN");
    assert_string_equal(pto_status_name(0), "OK");
    assert_string_equal(pto_status_name(5), "INVALID_ARGS");
    assert_string_equal(pto_status_name(-5), "INVALID_ARGS");
    assert_string_equal(pto_status_name(-100), "SCHEDULER_TIMEOUT");
    assert_string_equal(pto_status_name(6), "UNKNOWN");
    /* the one-line meaning, from the same table */
    assert_string_equal(pto_status_text(12), "a kernel returned non-zero");
    assert_string_equal(pto_status_text(-5), "a bad call");
    assert_string_equal(pto_status_text(0), "no error");
    assert_string_equal(pto_status_text(INT_MIN), "unknown status");
    assert_string_equal(pto_status_text(7), "unknown status");
}

/* A view whose bytes would run past 2^64 from its addr is INVALID_ARGS, as
 * one past INT64_MAX from its offset already was; the last addressable
 * byte is accepted. */
static void test_view_past_address_space_is_invalid(void **state)
{
    (void)state;
    pto_runtime *rt = make_rt_rings(0, 0, 0, 1, 0);
    void *top = (void *)(uintptr_t)(UINTPTR_MAX - 63); /* never dereferenced: NO_DEP-free dummy */
    pto_arg ok = arg(PTO_ARG_IN, pto_view_1d(top, 1, 0, 63, PTO_INVALID_TASK_ID));
    pto_task t = {.kernel = NULL, .name = "edge", .args = &ok, .num_args = 1};
    check_ok(rt, pto_task_submit(rt, &t, NULL), "a view ending at 2^64 - 1");
    pto_arg past = arg(PTO_ARG_IN, pto_view_1d(top, 1, 0, 64, PTO_INVALID_TASK_ID));
    t.args = &past;
    expect_code(rt, pto_task_submit(rt, &t, NULL), PTO_INVALID_ARGS);
    expect_frag(rt, "argument 0: view extends past the 64-bit address range");
    expect_frag(rt, "call: pto_task_submit task=- (edge) scope=(root):0");
    expect_code(rt, pto_runtime_finish(rt), PTO_INVALID_ARGS);
    pto_runtime_destroy(rt);
}

/* ---- what messages say --------------------------------------------------- */

static _Atomic int started, gate;

static int k_started_then_gate(const pto_kernel_args *a)
{
    (void)a;
    atomic_store(&started, 1);
    uint64_t end = now_ms() + 10000;
    while (!atomic_load(&gate) && now_ms() < end) nap_ms(1);
    return 0;
}

/* Ring 3 full behind its head, which the open depth-3 scope pins (V1): the
 * head line says RUNNING while a worker runs it, PENDING while it waits for
 * a producer (running on ring 2). */
static void head_state_case(int running, const char *want)
{
    atomic_store(&started, 0);
    atomic_store(&gate, 0);
    pto_runtime *rt = make_rt_rings(4, 0, 0, 2, E2E_NO_STALL_MS);
    for (int d = 0; d < 3; d++) check_ok(rt, pto_scope_begin(rt, PTO_SCOPE_AUTO, __FILE__, __LINE__), "scope");
    pto_task_id blocker = PTO_INVALID_TASK_ID;
    pto_task gated = {.kernel = k_started_then_gate, .name = "gated"};
    if (!running) check_submit(rt, &gated, &blocker);
    check_ok(rt, pto_scope_begin(rt, PTO_SCOPE_AUTO, __FILE__, __LINE__), "depth 3");
    pto_dep d = {blocker, PTO_DEP_WAIT};
    pto_task waiter = {.kernel = NULL, .name = "waiter", .deps = &d, .num_deps = 1};
    check_submit(rt, running ? &gated : &waiter, NULL);
    uint64_t end = now_ms() + 10000;
    while (!atomic_load(&started) && now_ms() < end) nap_ms(1);
    check_ok(rt, pto_scope_begin(rt, PTO_SCOPE_AUTO, __FILE__, __LINE__), "depth 4");
    pto_task filler = {.kernel = NULL, .name = "filler"};
    check_submit(rt, &filler, NULL);
    check_submit(rt, &filler, NULL);
    expect_code(rt, pto_task_submit(rt, &filler, NULL), PTO_FLOW_CONTROL_DEADLOCK);
    expect_frag(rt, "Provable head-of-line deadlock.");
    expect_frag(rt, want);
    atomic_store(&gate, 1);
    expect_code(rt, pto_runtime_finish(rt), PTO_FLOW_CONTROL_DEADLOCK);
    pto_runtime_destroy(rt);
}

static void test_head_state_is_derived(void **state)
{
    (void)state;
    head_state_case(1, "Head task 3:0: state=RUNNING,");
    head_state_case(0, "Head task 3:0: state=PENDING,");
}

/* The heap hint's example fits the request: the first power of two at
 * least the request when that is more than twice the heap. */
static void test_heap_hint_fits_the_request(void **state)
{
    (void)state;
    pto_runtime *rt = make_rt_rings(0, 1024, 0, 1, 0);
    pto_arg big = out_arg(4096 + 1); /* 32776 bytes: packed to 33792 */
    pto_task t = {.kernel = NULL, .name = "big", .args = &big, .num_args = 1};
    expect_code(rt, pto_task_submit(rt, &t, NULL), PTO_HEAP_RING_DEADLOCK);
    expect_frag(rt, "Request of 33792 bytes exceeds ring 0's capacity of 1024 -> can never fit.");
    expect_frag(rt, "for ring 0 (now 1024, e.g. 65536)");
    expect_code(rt, pto_runtime_finish(rt), PTO_HEAP_RING_DEADLOCK);
    pto_runtime_destroy(rt);
}

/* pto_task.ctx reaches the kernel as pto_kernel_args.ctx, per task; a
 * task without one gets NULL. */
static int k_count_ctx(const pto_kernel_args *a)
{
    if (a->ctx) atomic_fetch_add((_Atomic int *)a->ctx, 1);
    return 0;
}

static void test_ctx_reaches_the_kernel(void **state)
{
    (void)state;
    pto_runtime *rt = make_rt_rings(0, 0, 0, 2, 0);
    _Atomic int count[2] = {0, 0};
    for (int i = 0; i < 10; i++) {
        pto_task t = {.kernel = k_count_ctx, .ctx = i < 8 ? (void *)&count[i % 2] : NULL, .name = "ctx"};
        check_submit(rt, &t, NULL);
    }
    finish_ok(rt);
    assert_int_equal(atomic_load(&count[0]), 4);
    assert_int_equal(atomic_load(&count[1]), 4);
    pto_runtime_destroy(rt);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_ctx_reaches_the_kernel),
    cmocka_unit_test(test_null_runtime_is_invalid_args),
    cmocka_unit_test(test_status_name_and_text_any_int),
    cmocka_unit_test(test_view_past_address_space_is_invalid),
    cmocka_unit_test(test_head_state_is_derived),
    cmocka_unit_test(test_heap_hint_fits_the_request),
};

PTO_TEST_MAIN(tests)
