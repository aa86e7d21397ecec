/*
 * test_e2e_predicate.c - a task's predicate (pto/runtime.h, pto_task_submit_if;
 * DSL-V2-SPEC §8 D-pred), end to end through the public API: the flag is
 * read when the task is ready (after its writer), a false predicate skips
 * the kernel and still releases the task's consumers, each op and element
 * kind compares as documented, and a bad predicate is PTO_INVALID_ARGS.
 */
#include <string.h>

#include "harness.h"
#include "e2e.h"

#define ELEMS 16

/* views[0] (uint64) := scalars[0] everywhere. */
static int k_fill(const pto_kernel_args *a)
{
    for (uint64_t k = 0; k < view_count(&a->views[0]); k++) *el(&a->views[0], k) = a->scalars[0];
    return 0;
}

/* views[1] := views[0] + 1, element by element. */
static int k_inc(const pto_kernel_args *a)
{
    for (uint64_t k = 0; k < view_count(&a->views[1]); k++) *el(&a->views[1], k) = *el(&a->views[0], k) + 1;
    return 0;
}

/* The flag's writer runs first (the predicate reads its value, not the
 * buffer's earlier one), the predicated task is skipped or run, and its
 * consumer runs either way. */
static void run_chain(uint64_t flag_value, int64_t k, pto_pred_op op, uint64_t want_mid, uint64_t want_out)
{
    pto_runtime *rt = make_rt_rings(0, 0, 0, 2, E2E_NO_STALL_MS);
    static uint64_t flags[4], mid[ELEMS], out[ELEMS], src[ELEMS];
    memset(flags, 0, sizeof flags), memset(out, 0, sizeof out);
    for (int i = 0; i < ELEMS; i++) mid[i] = 100, src[i] = 5;
    SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
    pto_arg fa = arg(PTO_ARG_OUTPUT_EXISTING, v1(flags, 0, 4));
    pto_task w = {.kernel = k_fill, .name = "flag writer", .args = &fa, .num_args = 1, .scalars = &flag_value, .num_scalars = 1};
    check_submit(rt, &w, NULL);
    pto_arg pa[3] = {arg(PTO_ARG_IN, v1(src, 0, ELEMS)), arg(PTO_ARG_OUTPUT_EXISTING, v1(mid, 0, ELEMS)),
                     arg(PTO_ARG_IN, v1(flags, 0, 4))};
    pto_predicate pr = {.arg = 2, .idx = {3}, .op = op, .elem = PTO_PRED_INT, .value = k};
    pto_task p = {.kernel = k_inc, .name = "predicated", .args = pa, .num_args = 3};
    pto_task_id pid;
    check_ok(rt, pto_task_submit_if(rt, &p, &pr, &pid), "pto_task_submit_if");
    pto_arg ca[2] = {arg(PTO_ARG_IN, v1(mid, 0, ELEMS)), arg(PTO_ARG_OUTPUT_EXISTING, v1(out, 0, ELEMS))};
    pto_dep d = {pid, PTO_DEP_WAIT_RETAIN};
    pto_task c = {.kernel = k_inc, .name = "consumer", .args = ca, .num_args = 2, .deps = &d, .num_deps = 1};
    check_submit(rt, &c, NULL);
    scope_end_ok(rt);
    finish_ok(rt);
    for (int i = 0; i < ELEMS; i++) assert_int_equal(mid[i], want_mid), assert_int_equal(out[i], want_out);
    pto_runtime_destroy(rt);
}

static void test_predicate_false_skips_and_releases(void **state)
{
    (void)state;
    run_chain(0, 1, PTO_PRED_EQ, 100, 101); /* flags[3] = 0 != 1: mid untouched, consumer ran */
}

static void test_predicate_true_runs(void **state)
{
    (void)state;
    run_chain(1, 1, PTO_PRED_EQ, 6, 7); /* flags[3] = 1 (written first): mid = src + 1 */
}

/* Every op on integers, and the float element kinds, through the chain. */
static void test_predicate_ops(void **state)
{
    (void)state;
    static const struct { uint64_t v; int64_t k; pto_pred_op op; int holds; } cases[] = {
        {2, 2, PTO_PRED_NE, 0}, {2, 3, PTO_PRED_NE, 1}, {2, 3, PTO_PRED_LT, 1}, {3, 3, PTO_PRED_LT, 0},
        {3, 3, PTO_PRED_LE, 1}, {4, 3, PTO_PRED_LE, 0}, {4, 3, PTO_PRED_GT, 1}, {3, 3, PTO_PRED_GT, 0},
        {3, 3, PTO_PRED_GE, 1}, {2, 3, PTO_PRED_GE, 0}, {(uint64_t)-1, 0, PTO_PRED_LT, 1}, /* signed */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_chain(cases[i].v, cases[i].k, cases[i].op, cases[i].holds ? 6 : 100, cases[i].holds ? 7 : 101);
}

static int k_nop(const pto_kernel_args *a)
{
    *el(&a->views[1], 0) = 1;
    return 0;
}

/* One element of a float or narrow-int flag buffer against value. */
static int pred_on(const void *buf, uint32_t es, pto_pred_elem elem, pto_pred_op op, int64_t value)
{
    pto_runtime *rt = make_rt_rings(0, 0, 0, 1, E2E_NO_STALL_MS);
    static uint64_t ran[1];
    ran[0] = 0;
    pto_arg a[2] = {arg(PTO_ARG_IN, pto_view_1d((void *)buf, es, 0, 2, PTO_INVALID_TASK_ID)),
                    arg(PTO_ARG_OUTPUT_EXISTING, v1(ran, 0, 1))};
    pto_predicate pr = {.arg = 0, .idx = {1}, .op = op, .elem = elem, .value = value};
    pto_task t = {.kernel = k_nop, .args = a, .num_args = 2};
    check_ok(rt, pto_task_submit_if(rt, &t, &pr, NULL), "pto_task_submit_if");
    finish_ok(rt);
    pto_runtime_destroy(rt);
    return (int)ran[0];
}

static void test_predicate_element_kinds(void **state)
{
    (void)state;
    static const float f32[2] = {0.0f, 2.5f};
    static const uint16_t f16[2] = {0, 0x4000}, bf16[2] = {0, 0xc000}; /* 2.0, -2.0 */
    static const int8_t i8[2] = {0, -3};
    static const int16_t i16[2] = {0, 300};
    static const int32_t i32[2] = {0, -70000};
    assert_int_equal(pred_on(f32, 4, PTO_PRED_FP32, PTO_PRED_GT, 2), 1);
    assert_int_equal(pred_on(f32, 4, PTO_PRED_FP32, PTO_PRED_LT, 2), 0);
    assert_int_equal(pred_on(f16, 2, PTO_PRED_FP16, PTO_PRED_EQ, 2), 1);
    assert_int_equal(pred_on(bf16, 2, PTO_PRED_BF16, PTO_PRED_EQ, -2), 1);
    assert_int_equal(pred_on(i8, 1, PTO_PRED_INT, PTO_PRED_EQ, -3), 1);
    assert_int_equal(pred_on(i16, 2, PTO_PRED_INT, PTO_PRED_EQ, 300), 1);
    assert_int_equal(pred_on(i32, 4, PTO_PRED_INT, PTO_PRED_LE, -70001), 0);
}

static void expect_bad(pto_predicate pr, pto_arg_tag tag, uint32_t es, const char *frag)
{
    pto_runtime *rt = make_rt_rings(0, 0, 0, 1, E2E_NO_STALL_MS);
    static uint64_t buf[4];
    pto_arg a = arg(tag, pto_view_1d(buf, es, 0, 4, PTO_INVALID_TASK_ID));
    if (tag == PTO_ARG_OUT) a = out_arg(4);
    pto_task t = {.kernel = k_nop, .args = &a, .num_args = 1};
    expect_code(rt, pto_task_submit_if(rt, &t, &pr, NULL), PTO_INVALID_ARGS);
    expect_frag(rt, frag);
    pto_runtime_finish(rt);
    pto_runtime_destroy(rt);
}

static void test_predicate_invalid_args(void **state)
{
    (void)state;
    expect_bad((pto_predicate){.arg = 1}, PTO_ARG_IN, 8, "predicate: arg is not one of the task's arguments");
    expect_bad((pto_predicate){.arg = 0}, PTO_ARG_OUT, 8, "predicate: arg is a PTO_ARG_OUT argument");
    expect_bad((pto_predicate){.idx = {4}}, PTO_ARG_IN, 8, "predicate: idx lies outside the argument's view");
    expect_bad((pto_predicate){.op = (pto_pred_op)6}, PTO_ARG_IN, 8, "predicate: unknown op");
    expect_bad((pto_predicate){.elem = (pto_pred_elem)4}, PTO_ARG_IN, 8, "predicate: unknown elem");
    expect_bad((pto_predicate){.elem = PTO_PRED_INT}, PTO_ARG_IN, 3, "predicate: an INT element must be 1, 2, 4 or 8 bytes");
    expect_bad((pto_predicate){.elem = PTO_PRED_FP32}, PTO_ARG_IN, 8, "predicate: an FP32 element must be 4 bytes");
    expect_bad((pto_predicate){.elem = PTO_PRED_BF16}, PTO_ARG_IN, 4, "predicate: an FP16 or BF16 element must be 2 bytes");
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_predicate_false_skips_and_releases),
    cmocka_unit_test(test_predicate_true_runs),
    cmocka_unit_test(test_predicate_ops),
    cmocka_unit_test(test_predicate_element_kinds),
    cmocka_unit_test(test_predicate_invalid_args),
};

PTO_TEST_MAIN(tests)
