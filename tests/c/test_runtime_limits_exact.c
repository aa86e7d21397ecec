/*
 * test_runtime_limits_exact.c - the runtime's limits at exactly the limit
 * and one past (scope depth, tensor and scalar arguments per task, view
 * rank of an OUT argument), and error paths the other runtime tests leave
 * out: a spill pool full by one entry, pto_runtime_create with a
 * configuration pto_config_check rejects,
 * pto_tensor_alloc without an address, the ring-field helpers with an
 * unknown field or no message buffer.  One test per rule.
 */
#include "harness.h"

#include <stdio.h>
#include <string.h>

#include <stdatomic.h>

#include "e2e.h"
#include "runtime/task.h"

static _Atomic int g_gate_open;

/* Ends a runtime whose status the test already checked. */
static void end_rt(pto_runtime *rt)
{
    (void)pto_runtime_finish(rt);
    pto_runtime_destroy(rt);
}

/* pto_runtime_create applies pto_config_check's rules and reports the
 * rule's message as INVALID_ARGS, creating nothing. */
static void test_runtime_create_rejects_what_config_check_rejects(void **s)
{
    (void)s;
    pto_config cfg = cfg_rings(3, 0, 0, 1, 0);
    pto_runtime *rt = (pto_runtime *)&cfg; /* must be overwritten */
    pto_error err;
    assert_int_equal(pto_runtime_create(&cfg, &rt, &err), -PTO_INVALID_ARGS);
    assert_null(rt);
    assert_int_equal(err.code, PTO_INVALID_ARGS);
    assert_non_null(strstr(err.message, "ring_task_window entries must be a power of 2 >= 4"));
    assert_non_null(strstr(err.message, "got 3"));
    /* Without an error box the status alone says so. */
    assert_int_equal(pto_runtime_create(&cfg, &rt, NULL), -PTO_INVALID_ARGS);
    assert_null(rt);
}

/* Explicit scopes nest to PTO_MAX_SCOPE_DEPTH (64); the 65th is refused
 * and the 64 stay usable. */
static void test_scope_depth_64_opens_and_65_is_invalid(void **s)
{
    (void)s;
    pto_runtime *rt = make_rt_rings(64, 0, 0, 1, 0);
    for (int d = 0; d < PTO_MAX_SCOPE_DEPTH; d++) SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
    int rc = pto_scope_begin(rt, PTO_SCOPE_AUTO, __FILE__, __LINE__);
    expect_code(rt, rc, PTO_INVALID_ARGS);
    expect_frag(rt, "scope depth exceeds PTO_MAX_SCOPE_DEPTH (64)");
    end_rt(rt);
    rt = make_rt_rings(64, 0, 0, 1, 0);
    for (int d = 0; d < PTO_MAX_SCOPE_DEPTH; d++) SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
    pto_task t = {.name = "deepest"};
    pto_task_id id;
    check_submit(rt, &t, &id);
    assert_int_equal((int)(id >> 32), PTO_NUM_RINGS - 1);
    for (int d = 0; d < PTO_MAX_SCOPE_DEPTH; d++) scope_end_ok(rt);
    finish_ok(rt);
    pto_runtime_destroy(rt);
}

/* A task takes up to PTO_MAX_TENSOR_ARGS (32) tensor arguments and
 * PTO_MAX_SCALAR_ARGS (64) scalars; one more of either is INVALID_ARGS. */
static void test_task_args_at_limit_accepted_and_one_past_invalid(void **s)
{
    (void)s;
    static uint64_t buf[64];
    pto_arg args[PTO_MAX_TENSOR_ARGS + 1];
    uint64_t scalars[PTO_MAX_SCALAR_ARGS + 1] = {0};
    for (int i = 0; i <= PTO_MAX_TENSOR_ARGS; i++) args[i] = arg(PTO_ARG_IN, v1(buf, i, 1));
    pto_runtime *rt = make_rt_rings(64, 0, 0, 1, 0);
    pto_task ok = {.name = "max", .args = args, .num_args = PTO_MAX_TENSOR_ARGS, .scalars = scalars,
                   .num_scalars = PTO_MAX_SCALAR_ARGS};
    pto_task_id id;
    check_submit(rt, &ok, &id);
    pto_task many_args = ok;
    many_args.num_args = PTO_MAX_TENSOR_ARGS + 1;
    expect_code(rt, pto_task_submit(rt, &many_args, &id), PTO_INVALID_ARGS);
    expect_frag(rt, "more than 32 tensor arguments (PTO_MAX_TENSOR_ARGS)");
    end_rt(rt);
    rt = make_rt_rings(64, 0, 0, 1, 0);
    pto_task many_scalars = ok;
    many_scalars.num_scalars = PTO_MAX_SCALAR_ARGS + 1;
    expect_code(rt, pto_task_submit(rt, &many_scalars, &id), PTO_INVALID_ARGS);
    expect_frag(rt, "more than 64 scalar arguments (PTO_MAX_SCALAR_ARGS)");
    end_rt(rt);
}

/* An OUT view has 1 to PTO_MAX_DIMS (5) dimensions: 5 is placed, 6 is
 * INVALID_ARGS naming the argument. */
static void test_out_view_rank_5_placed_and_6_invalid(void **s)
{
    (void)s;
    pto_runtime *rt = make_rt_rings(64, 0, 0, 1, 0);
    pto_arg out = out_arg(1);
    out.view.ndims = PTO_MAX_DIMS;
    for (int d = 0; d < PTO_MAX_DIMS; d++) out.view.shape[d] = 2;
    pto_task t = {.name = "rank5", .args = &out, .num_args = 1};
    pto_task_id id;
    check_submit(rt, &t, &id);
    assert_non_null(out.view.addr);
    assert_int_equal(out.view.strides[0], 16);
    end_rt(rt);
    rt = make_rt_rings(64, 0, 0, 1, 0);
    out = out_arg(1);
    out.view.ndims = PTO_MAX_DIMS + 1;
    expect_code(rt, pto_task_submit(rt, &t, &id), PTO_INVALID_ARGS);
    expect_frag(rt, "argument 0: view ndims must be in [1, 5]");
    end_rt(rt);
}

static void test_tensor_alloc_without_addr_is_invalid(void **s)
{
    (void)s;
    pto_runtime *rt = make_rt_rings(64, 0, 0, 1, 0);
    pto_task_id id = 0;
    expect_code(rt, pto_tensor_alloc(rt, 64, NULL, &id), PTO_INVALID_ARGS);
    expect_frag(rt, "addr is NULL");
    assert_int_equal(id, PTO_INVALID_TASK_ID);
    end_rt(rt);
}

/* The ring-field helpers know fields 0..2 only, and write no message when
 * given no buffer. */
static void test_ring_field_helpers_reject_unknown_fields(void **s)
{
    (void)s;
    char msg[128];
    assert_null(pto_ring_field_name((pto_ring_field)3));
    assert_null(pto_ring_field_name((pto_ring_field)-1));
    assert_string_equal(pto_ring_field_name(PTO_FIELD_RING_DEP_POOL), "ring_dep_pool");
    assert_int_equal(pto_config_check_ring_value((pto_ring_field)3, 0, 1, 8, NULL, msg, sizeof msg), -1);
    assert_string_equal(msg, "unknown ring field 3 (expected 0..2)");
    assert_int_equal(pto_config_check_ring_list_len((pto_ring_field)7, 4, msg, sizeof msg), -1);
    assert_string_equal(msg, "unknown ring field 7 (expected 0..2)");
    assert_int_equal(pto_config_check_ring_value(PTO_FIELD_RING_HEAP, 0, 1, 3, NULL, NULL, 0), -1);
    msg[0] = 'x';
    assert_int_equal(pto_config_check_ring_value(PTO_FIELD_RING_HEAP, 0, 1, 3, NULL, msg, 0), -1);
    assert_int_equal(msg[0], 'x');
}

static int never_opened_until_finish(const pto_kernel_args *a)
{
    (void)a;
    uint64_t end = now_ms() + 10000;
    while (!atomic_load(&g_gate_open) && now_ms() < end) nap_ms(1);
    return 0;
}

/* The spill pool (as large as the dep pool, 4) holds the fanin edges past
 * the 64 a task keeps inline.  A task with 64 + 4 edges that runs (held
 * open) fills it; another with exactly 64 + 1 edges then needs one entry
 * and must wait for it: nothing retires while the first is held, so the
 * wait ends in the stall timeout instead of a submit that overwrites the
 * held task's spilled edges. */
static void test_one_spilled_edge_waits_for_a_full_spill_pool(void **s)
{
    (void)s;
    pto_runtime *rt = make_rt_rings(256, 0, 4, 1, 300);
    enum { NP = RT_FANIN_INLINE_CAP + 4 };
    pto_dep deps[NP];
    pto_task_id ids[NP];
    atomic_store(&g_gate_open, 0);
    for (int i = 0; i < NP; i++) {
        pto_task p = {.name = "producer"};
        check_submit(rt, &p, &ids[i]);
        deps[i] = (pto_dep){ids[i], PTO_DEP_WAIT};
    }
    pto_task holder = {.kernel = never_opened_until_finish, .name = "holder", .deps = deps, .num_deps = NP};
    pto_task_id hid;
    check_submit(rt, &holder, &hid);
    pto_task one_more = {.name = "one_spilled", .deps = deps, .num_deps = RT_FANIN_INLINE_CAP + 1};
    pto_task_id id;
    int rc = pto_task_submit(rt, &one_more, &id);
    atomic_store(&g_gate_open, 1);
    if (rc == 0) print_error("a 65-edge task was placed while the spill pool was full\n");
    assert_int_not_equal(rc, 0);
    expect_frag(rt, "spill");
    (void)pto_runtime_finish(rt);
    pto_runtime_destroy(rt);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_runtime_create_rejects_what_config_check_rejects),
    cmocka_unit_test(test_scope_depth_64_opens_and_65_is_invalid),
    cmocka_unit_test(test_task_args_at_limit_accepted_and_one_past_invalid),
    cmocka_unit_test(test_out_view_rank_5_placed_and_6_invalid),
    cmocka_unit_test(test_tensor_alloc_without_addr_is_invalid),
    cmocka_unit_test(test_ring_field_helpers_reject_unknown_fields),
    cmocka_unit_test(test_one_spilled_edge_waits_for_a_full_spill_pool),
};

PTO_TEST_MAIN(tests)
