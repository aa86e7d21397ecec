/*
 * test_exec_host.c - @pl.jit.host programs end to end at P = 1 (the
 * one-process transport, DISTRIBUTED-SPEC §4.2) through pto_compile and
 * pto_program_run: a ring shift through put, notify and wait; windows
 * zeroed at every call; a dispatch outside the world, a host subscript
 * outside its dimension and a wait nobody answers fail with their texts;
 * the footprint log finds a read of another rank's write (D6).
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "dsl_compile.h"
#include "base/clock.h"
#include "exec/host_log.h"
#include "pto/run.h"

#define W 64

#define HDR "import pypto.language as pl\nimport pypto.language.distributed as pld\n\n"

/* A kernel of the 06 shape: stage a, put it into the next rank's window, signal it, wait, read. */
static const char ring_src[] = HDR
    "@pl.jit.incore\n"
    "def shift(a: pl.Tensor[[1, 64], pl.FP32], b: pl.Out[pl.Tensor[[1, 64], pl.FP32]],\n"
    "          mine: pld.DistributedTensor[[1, 64], pl.FP32], theirs: pld.DistributedTensor[[1, 64], pl.FP32],\n"
    "          flag: pld.DistributedTensor[[1, 1], pl.INT32]):\n"
    "    ctx = pld.get_comm_ctx(mine)\n"
    "    nxt = (pld.rank(ctx) + 1) % pld.nranks(ctx)\n"
    "    t = pl.load(a, [0, 0], [1, 64])\n"
    "    mine = pl.store(t, [0, 0], mine)\n"
    "    pld.tensor.put(theirs, peer=nxt, src=mine, atomic=pld.AtomicType.None_)\n"
    "    pld.system.notify(flag, peer=nxt, offsets=[0, 0], value=1, op=pld.NotifyOp.AtomicAdd)\n"
    "    pld.system.wait(flag, offsets=[0, 0], expected=1, cmp=pld.WaitCmp.Ge)\n"
    "    got = pl.load(theirs, [0, 0], [1, 64])\n"
    "    b = pl.store(got, [0, 0], b)\n"
    "    return b\n"
    "\n"
    "@pl.jit.incore\n"
    "def stale(b: pl.Out[pl.Tensor[[1, 64], pl.FP32]], mine: pld.DistributedTensor[[1, 64], pl.FP32],\n"
    "          theirs: pld.DistributedTensor[[1, 64], pl.FP32], flag: pld.DistributedTensor[[1, 1], pl.INT32]):\n"
    "    old = pl.load(mine, [0, 0], [1, 64])\n"
    "    b = pl.store(old, [0, 0], b)\n"
    "    ones = pl.full([1, 64], dtype=pl.FP32, value=1.0)\n"
    "    mine = pl.store(ones, [0, 0], mine)\n"
    "    return b\n"
    "\n"
    "@pl.jit.incore\n"
    "def lonely(b: pl.Out[pl.Tensor[[1, 64], pl.FP32]], mine: pld.DistributedTensor[[1, 64], pl.FP32],\n"
    "           theirs: pld.DistributedTensor[[1, 64], pl.FP32], flag: pld.DistributedTensor[[1, 1], pl.INT32]):\n"
    "    pld.system.wait(flag, offsets=[0, 0], expected=1, cmp=pld.WaitCmp.Ge)\n"
    "    t = pl.load(mine, [0, 0], [1, 64])\n"
    "    b = pl.store(t, [0, 0], b)\n"
    "    return b\n"
    "\n"
    "@pl.jit.incore\n"
    "def twice(a: pl.Tensor[[1, 64], pl.FP32], b: pl.Out[pl.Tensor[[1, 64], pl.FP32]]):\n"
    "    t = pl.load(a, [0, 0], [1, 64])\n"
    "    u = pl.add(t, t)\n"
    "    b = pl.store(u, [0, 0], b)\n"
    "    return b\n"
    "\n"
    "@pl.jit\n"
    "def per_rank(a: pl.Tensor[[1, 64], pl.FP32], b: pl.Out[pl.Tensor[[1, 64], pl.FP32]],\n"
    "             mine: pld.DistributedTensor[[1, 64], pl.FP32], theirs: pld.DistributedTensor[[1, 64], pl.FP32],\n"
    "             flag: pld.DistributedTensor[[1, 1], pl.INT32]):\n"
    "    return shift(a, b, mine, theirs, flag)\n"
    "\n"
    "@pl.jit\n"
    "def per_rank_stale(b: pl.Out[pl.Tensor[[1, 64], pl.FP32]], mine: pld.DistributedTensor[[1, 64], pl.FP32],\n"
    "                   theirs: pld.DistributedTensor[[1, 64], pl.FP32], flag: pld.DistributedTensor[[1, 1], pl.INT32]):\n"
    "    return stale(b, mine, theirs, flag)\n"
    "\n"
    "@pl.jit\n"
    "def per_rank_lonely(b: pl.Out[pl.Tensor[[1, 64], pl.FP32]], mine: pld.DistributedTensor[[1, 64], pl.FP32],\n"
    "                    theirs: pld.DistributedTensor[[1, 64], pl.FP32], flag: pld.DistributedTensor[[1, 1], pl.INT32]):\n"
    "    return lonely(b, mine, theirs, flag)\n"
    "\n"
    "@pl.jit\n"
    "def per_rank_twice(a: pl.Tensor[[1, 64], pl.FP32], b: pl.Out[pl.Tensor[[1, 64], pl.FP32]]):\n"
    "    return twice(a, b)\n"
    "\n"
    "@pl.jit.host\n"
    "def ring(x: pl.Tensor[[1, 1, 64], pl.FP32], y: pl.Out[pl.Tensor[[1, 1, 64], pl.FP32]]):\n"
    "    mine_buf = pld.alloc_window_buffer([1, 64], dtype=pl.FP32)\n"
    "    theirs_buf = pld.alloc_window_buffer([1, 64], dtype=pl.FP32)\n"
    "    flag_buf = pld.alloc_window_buffer([1, 1], dtype=pl.INT32)\n"
    "    for r in pl.range(pld.world_size()):\n"
    "        mine = pld.window(mine_buf, [1, 64], dtype=pl.FP32)\n"
    "        theirs = pld.window(theirs_buf, [1, 64], dtype=pl.FP32)\n"
    "        flag = pld.window(flag_buf, [1, 1], dtype=pl.INT32)\n"
    "        per_rank(x[r], y[r], mine, theirs, flag, device=r)\n"
    "\n"
    "@pl.jit.host\n"
    "def zeroed(x: pl.Tensor[[1, 1, 64], pl.FP32], y: pl.Out[pl.Tensor[[1, 1, 64], pl.FP32]]):\n"
    "    mine_buf = pld.alloc_window_buffer([1, 64], dtype=pl.FP32)\n"
    "    theirs_buf = pld.alloc_window_buffer([1, 64], dtype=pl.FP32)\n"
    "    flag_buf = pld.alloc_window_buffer([1, 1], dtype=pl.INT32)\n"
    "    for r in pl.range(pld.world_size()):\n"
    "        mine = pld.window(mine_buf, [1, 64], dtype=pl.FP32)\n"
    "        theirs = pld.window(theirs_buf, [1, 64], dtype=pl.FP32)\n"
    "        flag = pld.window(flag_buf, [1, 1], dtype=pl.INT32)\n"
    "        per_rank_stale(y[r], mine, theirs, flag, device=r)\n"
    "\n"
    "@pl.jit.host\n"
    "def unanswered(x: pl.Tensor[[1, 1, 64], pl.FP32], y: pl.Out[pl.Tensor[[1, 1, 64], pl.FP32]]):\n"
    "    mine_buf = pld.alloc_window_buffer([1, 64], dtype=pl.FP32)\n"
    "    theirs_buf = pld.alloc_window_buffer([1, 64], dtype=pl.FP32)\n"
    "    flag_buf = pld.alloc_window_buffer([1, 1], dtype=pl.INT32)\n"
    "    for r in pl.range(pld.world_size()):\n"
    "        mine = pld.window(mine_buf, [1, 64], dtype=pl.FP32)\n"
    "        theirs = pld.window(theirs_buf, [1, 64], dtype=pl.FP32)\n"
    "        flag = pld.window(flag_buf, [1, 1], dtype=pl.INT32)\n"
    "        per_rank_lonely(y[r], mine, theirs, flag, device=r)\n"
    "\n"
    "@pl.jit.host\n"
    "def robin(x: pl.Tensor[[1, 1, 64], pl.FP32], y: pl.Out[pl.Tensor[[1, 1, 64], pl.FP32]]):\n"
    "    per_rank_twice(x[0], y[0])\n"
    "    per_rank_twice(y[0], y[0])\n"
    "\n"
    "@pl.jit.host\n"
    "def far(x: pl.Tensor[[1, 1, 64], pl.FP32], y: pl.Out[pl.Tensor[[1, 1, 64], pl.FP32]]):\n"
    "    per_rank_twice(x[0], y[0], device=1)\n"
    "\n"
    "@pl.jit.host\n"
    "def past(x: pl.Tensor[[1, 1, 64], pl.FP32], y: pl.Out[pl.Tensor[[1, 1, 64], pl.FP32]]):\n"
    "    for r in pl.range(2):\n"
    "        per_rank_twice(x[r], y[r])\n";

static const pto_arg_spec ring_args[] = {
    {.name = "x", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 3, .shape = {1, 1, W}},
    {.name = "y", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 3, .shape = {1, 1, W}},
};

static pto_runtime *make_rt(int stall_ms)
{
    pto_config cfg = {.stall_timeout_ms = stall_ms, .num_workers = 2};
    pto_runtime *rt;
    pto_error err;
    assert_int_equal(pto_runtime_create(&cfg, &rt, &err), 0);
    return rt;
}

static pto_program *compile_entry(const char *entry)
{
    pto_program *p = dsl_compile_with(ring_src, entry, PTO_STAGE_ALL, 0, ring_args, 2);
    dsl_expect_ok(p);
    return p;
}

static int run(pto_runtime *rt, const pto_program *p, float *x, float *y, pto_error *err)
{
    pto_run_arg args[] = {{"x", {.kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .base = x, .rank = 3, .shape = {1, 1, W}}},
                          {"y", {.kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .base = y, .rank = 3, .shape = {1, 1, W}}}};
    int rc = pto_program_run(rt, p, args, 2, err);
    if (rc) fprintf(stderr, "%s\n", err->message);
    return rc;
}

/* put + notify + wait to rank (0 + 1) % 1 = 0: y[0] = x[0], call after call. */
static void test_exec_host_ring_put_notify_wait_at_one_rank(void **s)
{
    (void)s;
    pto_program *p = compile_entry("ring");
    pto_runtime *rt = make_rt(0);
    float x[W], y[W];
    pto_error err;
    for (int call = 0; call < 3; call++) {
        for (int i = 0; i < W; i++) x[i] = (float)(i * 3 + call), y[i] = -1.0f;
        assert_int_equal(run(rt, p, x, y, &err), 0);
        for (int i = 0; i < W; i++) assert_true(y[i] == x[i]);
    }
    pto_runtime_destroy(rt);
    pto_program_free(p);
}

/* The kernel reads its window, then fills it with ones: every call reads zeros. */
static void test_exec_host_windows_are_zeroed_at_every_call(void **s)
{
    (void)s;
    pto_program *p = compile_entry("zeroed");
    pto_runtime *rt = make_rt(0);
    float x[W] = {0}, y[W];
    pto_error err;
    for (int call = 0; call < 3; call++) {
        for (int i = 0; i < W; i++) y[i] = 5.0f;
        assert_int_equal(run(rt, p, x, y, &err), 0);
        for (int i = 0; i < W; i++) assert_true(y[i] == 0.0f);
    }
    pto_runtime_destroy(rt);
    pto_program_free(p);
}

/* Dispatches without device= go round robin: at P = 1 all on rank 0, in order. */
static void test_exec_host_round_robin_runs_every_dispatch_at_one_rank(void **s)
{
    (void)s;
    pto_program *p = compile_entry("robin");
    pto_runtime *rt = make_rt(0);
    float x[W], y[W];
    pto_error err;
    for (int i = 0; i < W; i++) x[i] = (float)i, y[i] = 0.0f;
    assert_int_equal(run(rt, p, x, y, &err), 0);
    for (int i = 0; i < W; i++) assert_true(y[i] == 4.0f * x[i]);
    pto_runtime_destroy(rt);
    pto_program_free(p);
}

static void test_exec_host_device_outside_the_world_is_invalid_args(void **s)
{
    (void)s;
    pto_program *p = compile_entry("far");
    pto_runtime *rt = make_rt(0);
    float x[W] = {0}, y[W] = {0};
    pto_error err;
    assert_int_equal(run(rt, p, x, y, &err), -PTO_INVALID_ARGS);
    assert_non_null(strstr(err.message, "device=1 is outside [0, 1) (pld.world_size())"));
    for (int i = 0; i < W; i++) x[i] = 1.0f;
    pto_program *q = compile_entry("robin"); /* the runtime is reusable */
    assert_int_equal(run(rt, q, x, y, &err), 0);
    assert_true(y[0] == 4.0f);
    pto_runtime_destroy(rt);
    pto_program_free(p), pto_program_free(q);
}

static void test_exec_host_subscript_outside_its_dimension_is_invalid_args(void **s)
{
    (void)s;
    pto_program *p = compile_entry("past");
    pto_runtime *rt = make_rt(0);
    float x[W] = {0}, y[W] = {0};
    pto_error err;
    assert_int_equal(run(rt, p, x, y, &err), -PTO_INVALID_ARGS);
    assert_non_null(strstr(err.message, "host subscript 1 is outside dimension 0 of 'x' (extent 1)"));
    pto_runtime_destroy(rt);
    pto_program_free(p);
}

/* A wait nobody notifies: COMM_WAIT_TIMEOUT once the cell has not changed for stall_timeout_ms. */
static void test_exec_host_unanswered_wait_times_out_with_its_detail(void **s)
{
    (void)s;
    pto_program *p = compile_entry("unanswered");
    pto_runtime *rt = make_rt(300);
    float x[W] = {0}, y[W] = {0};
    pto_error err;
    uint64_t t0 = base_now_ns();
    assert_int_equal(run(rt, p, x, y, &err), -PTO_COMM_WAIT_TIMEOUT);
    uint64_t ms = (base_now_ns() - t0) / 1000000;
    assert_true(ms >= 300 && ms < 5000);
    assert_non_null(strstr(err.message, "FATAL: Communication Wait Timeout! task="));
    assert_non_null(strstr(err.message, "kernel=lonely at k.py:"));
    assert_non_null(strstr(err.message, "pld.system.wait on 'flag_buf'[0, 0] >= 1; observed 0, last changed"));
    assert_non_null(strstr(err.message, "domain ranks [0]"));
    assert_non_null(strstr(err.message, "error_code=17 COMM_WAIT_TIMEOUT"));
    pto_runtime_destroy(rt);
    pto_program_free(p);
}

/* D6: the log answers a read of a region another rank wrote, and no other. */
static void test_exec_host_footprint_log_finds_a_read_of_another_ranks_write(void **s)
{
    (void)s;
    float y[2 * W];
    ex_log g = {0};
    ex_fp row1 = {.view = {.base = y, .dtype = CC_DT_FP32, .rank = 2, .shape = {1, W}, .strides = {W, 1}, .offset = W}, .rank = 1};
    ex_log_span(&row1);
    assert_int_equal(row1.lo, W * 4), assert_int_equal(row1.hi, 2 * W * 4);
    assert_int_equal(ex_log_write(&g, &row1), 0);
    ex_fp row0 = row1, whole = row1, mine = row1;
    row0.view.offset = 0, row0.rank = 0;
    whole.view.offset = 0, whole.view.shape[0] = 2, whole.rank = 0;
    ex_log_span(&row0), ex_log_span(&whole), ex_log_span(&mine);
    assert_null(ex_log_conflict(&g, &row0));  /* another row */
    assert_null(ex_log_conflict(&g, &mine));  /* its own writer */
    assert_ptr_equal(ex_log_conflict(&g, &whole), &g.w[0]);
    ex_log_free(&g);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_exec_host_ring_put_notify_wait_at_one_rank),
    cmocka_unit_test(test_exec_host_windows_are_zeroed_at_every_call),
    cmocka_unit_test(test_exec_host_round_robin_runs_every_dispatch_at_one_rank),
    cmocka_unit_test(test_exec_host_device_outside_the_world_is_invalid_args),
    cmocka_unit_test(test_exec_host_subscript_outside_its_dimension_is_invalid_args),
    cmocka_unit_test(test_exec_host_unanswered_wait_times_out_with_its_detail),
    cmocka_unit_test(test_exec_host_footprint_log_finds_a_read_of_another_ranks_write),
};

PTO_TEST_MAIN(tests)
