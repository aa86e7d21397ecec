/*
 * test_dsl_distributed_errors.c - every compile-time error of the
 * distributed surface (DISTRIBUTED-SPEC §1.2-§1.8, §1.10 "later"), one test
 * per rule: the exact text (the compat ones verbatim), its class and the
 * user's line:col.  The programs share one frame (dsl_dist.h's imports): a
 * kernel k with a tensor row and five window parameters, its per-device
 * function dev, two more pairs (k0/dev0 with no windows, k1/dev1 with a
 * rank-1 signal) and a host function h; each test writes k's body (lines 7
 * on), dev's body (line 13 on) or h's body (line 37 on: STD is the five buffers
 * and the rank loop with their views, lines 37-47, DISPATCH line 48).
 */
#include "harness.h"
#include "dsl_compile.h"
#include "dsl_dist.h"

#define ROW "pl.Tensor[[1, 64], pl.FP32]"
#define KP                                                                                                       \
    "src: " ROW ", dst: pl.Out[" ROW "], w: pld.DistributedTensor[[1, 64], pl.FP32], g: pld.DistributedTensor[[2, 1], pl.INT32],\n" \
    "      v: pld.DistributedTensor[[64], pl.FP32], v3: pld.DistributedTensor[[2, 1, 64], pl.FP32], u: pld.DistributedTensor[[1, 64], pl.UINT8]"
#define STORE "    dst = pl.store(pl.load(src, [0, 0], [1, 64]), [0, 0], dst)\n    return dst\n"
#define DEV_CALL "    dst = k(src, dst, w, g, v, v3, u)\n    return dst\n"
#define WINDOWS                                                                                                  \
    "    wb = pld.alloc_window_buffer([1, 64], dtype=pl.FP32)\n    gb = pld.alloc_window_buffer([2, 1], dtype=pl.INT32)\n" \
    "    vb = pld.alloc_window_buffer([64], dtype=pl.FP32)\n    v3b = pld.alloc_window_buffer([2, 1, 64], dtype=pl.FP32)\n" \
    "    ub = pld.alloc_window_buffer([1, 64], dtype=pl.UINT8)\n"
/* lines 43-48: the rank loop and its five window views, under WINDOWS' lines 37-41 */
#define LOOP(range)                                                                                                \
    "    for r in pl.range(" range "):\n        w = pld.window(wb, [1, 64], dtype=pl.FP32)\n"                        \
    "        g = pld.window(gb, [2, 1], dtype=pl.INT32)\n        v = pld.window(vb, [64], dtype=pl.FP32)\n"          \
    "        v3 = pld.window(v3b, [2, 1, 64], dtype=pl.FP32)\n        u = pld.window(ub, [1, 64], dtype=pl.UINT8)\n"
#define STD WINDOWS LOOP("pld.world_size()")
#define DISPATCH "        dev(x[r], y[r], w, g, v, v3, u, device=r)\n"
#define FRAME(kbody, dbody, hbody)                                                                                   \
    DD_HDR "@pl.jit.incore\ndef k(" KP "):\n" kbody STORE "\n@pl.jit\ndef dev(" KP "):\n" dbody "\n"                \
    "@pl.jit.incore\ndef k0(src: " ROW ", dst: pl.Out[" ROW "]):\n" STORE "\n"                                          \
    "@pl.jit\ndef dev0(src: " ROW ", dst: pl.Out[" ROW "]):\n    dst = k0(src, dst)\n    return dst\n\n"                \
    "@pl.jit.incore\ndef k1(src: " ROW ", dst: pl.Out[" ROW "], w: pld.DistributedTensor[[1, 64], pl.FP32], s: pld.DistributedTensor[[2], pl.INT32]):\n" \
    STORE "\n@pl.jit\ndef dev1(src: " ROW ", dst: pl.Out[" ROW "], w: pld.DistributedTensor[[1, 64], pl.FP32], s: pld.DistributedTensor[[2], pl.INT32]):\n" \
    "    return k1(src, dst, w, s)\n\n"                                                                                 \
    "@pl.jit.host\ndef h(x: pl.Tensor[[2, 1, 64], pl.FP32], y: pl.Out[pl.Tensor[[2, 1, 64], pl.FP32]]):\n" hbody
#define KER(body) FRAME(body, DEV_CALL, STD DISPATCH)
#define DEV(body) FRAME("", body, STD DISPATCH)
#define HOST(body) FRAME("", DEV_CALL, body)
#define ERR(src, cls, msg, line, col) DD_ERROR(src, "h", cls, msg, line, col)

static void test_host_tile_op_is_misplaced(void **s)
{
    (void)s;
    ERR(HOST("    t = pl.load(x, [0, 0, 0], [1, 1, 64])\n"),
        "InvalidOperationError", "Misplaced tile op 'pl.load' in Host function 'h' (should be inside InCore block)", 37, 9);
}

static void test_host_kernel_call_is_invalid(void **s)
{
    (void)s;
    ERR(HOST(STD "        k(x[r], y[r], w, g, v, v3, u)\n"),
        "InvalidOperationError", "calling kernel 'k' is not allowed in a @pl.jit.host function; put it in the per-device @pl.jit function it dispatches", 48, 9);
}

static void test_host_pl_at_is_invalid(void **s)
{
    (void)s;
    ERR(HOST("    with pl.at(level=pl.Level.CORE_GROUP):\n"
            "        pass\n"),
        "InvalidOperationError",
        "pl.at(level=pl.Level.CORE_GROUP) is not allowed in a @pl.jit.host function; put it in the per-device @pl.jit function it dispatches", 37, 10);
}

static void test_host_submit_is_invalid(void **s)
{
    (void)s;
    ERR(HOST(STD "        pl.submit(k, x[r], y[r], w, g, v, v3, u)\n"),
        "InvalidOperationError", "pl.submit is not allowed in a @pl.jit.host function; put it in the per-device @pl.jit function it dispatches", 48, 9);
}

static void test_host_create_tensor_is_invalid(void **s)
{
    (void)s;
    ERR(HOST("    t = pl.create_tensor([4, 4], dtype=pl.FP32)\n"),
        "InvalidOperationError", "pl.create_tensor is not allowed in a @pl.jit.host function; put it in the per-device @pl.jit function it dispatches", 37, 9);
}

static void test_device_kw_on_kernel_is_type_error(void **s)
{
    (void)s;
    ERR(DEV("    dst = k(src, dst, w, g, v, v3, u, device=0)\n"
            "    return dst\n"),
        "ParserTypeError", "Function 'k' does not accept keyword argument 'device'", 13, 39);
}

static void test_dt_dispatch_without_device_is_type_error(void **s)
{
    (void)s;
    ERR(HOST(STD "        dev(x[r], y[r], w, g, v, v3, u)\n"),
        "ParserTypeError", "'dev' receives DistributedTensor 'w' and needs device=", 48, 9);
}

static void test_device_loop_not_from_zero_is_pass_error(void **s)
{
    (void)s;
    ERR(HOST(WINDOWS LOOP("1, 2") DISPATCH),
        "PassError", "MaterializeCommDomainScopes: device=r loop range must be [0, N) with N>=0", 42, 5);
}

static void test_device_loop_step_is_pass_error(void **s)
{
    (void)s;
    ERR(HOST(WINDOWS LOOP("0, 2, 2") DISPATCH),
        "PassError", "MaterializeCommDomainScopes: non-unit-step loop is not supported (step=2)", 42, 5);
}

static void test_device_other_expression_is_pass_error(void **s)
{
    (void)s;
    ERR(HOST(STD "        dev(x[r], y[r], w, g, v, v3, u, device=(r + 1) % 2)\n"),
        "PassError", "device= of a dispatch that passes windows must be a rank-loop variable or a constant, got (r + 1) % 2", 48, 49);
}

static void test_dt_for_tensor_parameter_is_type_error(void **s)
{
    (void)s;
    ERR(HOST(STD "        dev0(w, y[r], device=r)\n"),
        "ParserTypeError", "'dev0' parameter 'src' expects pl.Tensor[[1, 64], pl.FP32], got pld.DistributedTensor[[1, 64], pl.FP32]", 48, 14);
}

static void test_kernel_op_in_orchestration_is_invalid(void **s)
{
    (void)s;
    ERR(DEV("    n = pld.rank(pld.get_comm_ctx(w))\n"
            "    dst = k(src, dst, w, g, v, v3, u)\n"
            "    return dst\n"),
        "InvalidOperationError", "pld.rank can only be called in InCore code (a @pl.jit.incore function or a pl.at(level=pl.Level.CORE_GROUP) body); current function: Orchestration 'dev'", 13, 9);
}

static void test_world_size_outside_host_is_syntax_error(void **s)
{
    (void)s;
    ERR(KER("    n = pld.world_size()\n"),
        "ParserSyntaxError", "pld.system.world_size() can only be called in HOST orchestration context (not inside InCore / SPMD scopes); current function level: CORE_GROUP", 7, 9);
}

static void test_dt_out_parameter_is_type_error(void **s)
{
    (void)s;
    ERR(DD_HDR "@pl.jit.incore\n"
            "def k2(a: pl.Out[pld.DistributedTensor[[1, 64], pl.FP32]]):\n"
            "    return a\n"
            "\n"
            "@pl.jit\n"
            "def dev2(a: pld.DistributedTensor[[1, 64], pl.FP32]):\n"
            "    a = k2(a)\n"
            "    return a\n"
            "\n"
            "@pl.jit.host\n"
            "def h(x: pl.Tensor[[2, 1, 64], pl.FP32], y: pl.Out[pl.Tensor[[2, 1, 64], pl.FP32]]):\n"
            "    wb = pld.alloc_window_buffer([1, 64], dtype=pl.FP32)\n"
            "    for r in pl.range(2):\n"
            "        w = pld.window(wb, [1, 64], dtype=pl.FP32)\n"
            "        dev2(w, device=r)\n",
        "ParserTypeError", "a DistributedTensor parameter is always InOut", 5, 11);
}

static void test_window_shape_is_constant_or_world_size(void **s)
{
    (void)s;
    ERR(HOST("    wb = pld.alloc_window_buffer([1, 64], dtype=pl.FP32)\n"
             "    for r in pl.range(2):\n        w = pld.window(wb, [r + 1, 64], dtype=pl.FP32)\n"),
        "ParserTypeError", "pld.tensor.window shapes must be compile-time constants or pld.world_size()", 39, 29);
}

static void test_alloc_window_outside_host_is_syntax_error(void **s)
{
    (void)s;
    ERR(DEV("    b = pld.alloc_window_buffer(64)\n"
            "    dst = k(src, dst, w, g, v, v3, u)\n"
            "    return dst\n"),
        "ParserSyntaxError", "pld.tensor.alloc_window_buffer() can only be called in HOST orchestration context (not inside InCore / SPMD scopes); current function level: CHIP", 13, 9);
}

static void test_alloc_window_not_assigned_is_syntax_error(void **s)
{
    (void)s;
    ERR(HOST("    pld.alloc_window_buffer(64)\n"),
        "ParserSyntaxError", "pld.tensor.alloc_window_buffer must appear as the RHS of a simple assignment (its result must be bound to a named variable)", 37, 5);
}

static void test_alloc_window_name_twice_is_syntax_error(void **s)
{
    (void)s;
    ERR(HOST("    wb = pld.alloc_window_buffer(64)\n"
            "    wb = pld.alloc_window_buffer(64)\n"),
        "ParserSyntaxError", "pld.tensor.alloc_window_buffer name 'wb' is already declared in this program", 38, 10);
}

static void test_alloc_window_shape_needs_dtype(void **s)
{
    (void)s;
    ERR(HOST("    wb = pld.alloc_window_buffer([1, 64])\n"),
        "ParserTypeError", "pld.tensor.alloc_window_buffer requires dtype= when the first argument is a shape (list / tuple of per-rank dimensions)", 37, 10);
}

static void test_alloc_window_nonpositive_dimension(void **s)
{
    (void)s;
    ERR(HOST("    wb = pld.alloc_window_buffer([1, 0], dtype=pl.FP32)\n"),
        "ParserTypeError", "pld.tensor.alloc_window_buffer shape dimension[1] is 0; all dimensions must be positive", 37, 38);
}

static void test_alloc_window_in_loop_is_pass_error(void **s)
{
    (void)s;
    ERR(HOST("    for r in pl.range(2):\n"
            "        wb = pld.alloc_window_buffer(64)\n"),
        "PassError", "pld.tensor.alloc_window_buffer must be at the top level of the @pl.jit.host body (not inside a loop or branch)", 38, 14);
}

static void test_alloc_window_size_not_entry_computable_is_pass_error(void **s)
{
    (void)s;
    ERR(HOST("    n = 1\n"
            "    for r in pl.range(2):\n"
            "        n = n + 1\n"
            "    wb = pld.alloc_window_buffer(n * 4)\n"),
        "PassError", "pld.tensor.alloc_window_buffer size must be computable at call entry (constants, pld.world_size(), argument shapes), got n * 4", 40, 34);
}

static void test_alloc_window_dead_is_pass_error(void **s)
{
    (void)s;
    ERR(HOST("    wb = pld.alloc_window_buffer(64)\n"),
        "PassError", "pld.tensor.alloc_window_buffer 'wb' has no pld.tensor.window materialisation (dead allocation)", 37, 10);
}

static void test_alloc_window_unconsumed_is_pass_error(void **s)
{
    (void)s;
    ERR(HOST("    wb = pld.alloc_window_buffer(256)\n"
            "    w = pld.window(wb, [1, 64], dtype=pl.FP32)\n"),
        "PassError", "pld.tensor.alloc_window_buffer 'wb' is not consumed by any chip_orch dispatch", 37, 10);
}

static void test_get_comm_ctx_of_plain_tensor_is_type_error(void **s)
{
    (void)s;
    ERR(KER("    c = pld.get_comm_ctx(src)\n"),
        "ParserTypeError", "pld.system.get_comm_ctx expects a DistributedTensor (window-bound), got pl.Tensor[[1, 64], pl.FP32]", 7, 26);
}

static void test_notify_target_not_dt_is_type_error(void **s)
{
    (void)s;
    ERR(KER("    pld.system.notify(src, 0, [0, 0], 1)\n"),
        "ParserTypeError", "pld.system.notify target must be a DistributedTensor (window-bound), got pl.Tensor[[1, 64], pl.FP32]", 7, 23);
}

static void test_notify_offsets_rank_is_type_error(void **s)
{
    (void)s;
    ERR(KER("    pld.system.notify(g, 0, [0], 1)\n"),
        "ParserTypeError", "pld.system.notify offsets rank (1) must match target tensor rank (2)", 7, 29);
}

static void test_notify_op_int_is_type_error(void **s)
{
    (void)s;
    ERR(KER("    pld.system.notify(g, 0, [0, 0], 1, op=3)\n"),
        "ParserTypeError", "pld.system.notify op must be NotifyOp.AtomicAdd or NotifyOp.Set (got int 3)", 7, 43);
}

static void test_notify_target_not_int32_is_type_error(void **s)
{
    (void)s;
    ERR(KER("    pld.system.notify(w, 0, [0, 0], 1)\n"),
        "ParserTypeError", "pld.system.notify target must have INT32 element type, got FP32", 7, 23);
}

static void test_wait_signal_not_dt_is_type_error(void **s)
{
    (void)s;
    ERR(KER("    pld.system.wait(src, [0, 0], 1)\n"),
        "ParserTypeError", "pld.system.wait signal must be a DistributedTensor (window-bound), got pl.Tensor[[1, 64], pl.FP32]", 7, 21);
}

static void test_wait_offsets_rank_is_type_error(void **s)
{
    (void)s;
    ERR(KER("    pld.system.wait(g, [0, 0, 0], 1)\n"),
        "ParserTypeError", "pld.system.wait offsets rank (3) must match signal tensor rank (2)", 7, 24);
}

static void test_wait_cmp_int_is_type_error(void **s)
{
    (void)s;
    ERR(KER("    pld.system.wait(g, [0, 0], 1, cmp=7)\n"),
        "ParserTypeError", "pld.system.wait cmp must be WaitCmp.Eq or WaitCmp.Ge (got int 7)", 7, 39);
}

static void test_remote_load_offsets_rank_is_type_error(void **s)
{
    (void)s;
    ERR(KER("    t = pld.tile.remote_load(w, 0, [0], [1, 64])\n"),
        "ParserTypeError", "pld.tile.remote_load offsets rank (1) must match target tensor rank (2)", 7, 36);
}

static void test_remote_load_target_not_dt_is_type_error(void **s)
{
    (void)s;
    ERR(KER("    t = pld.tile.remote_load(src, 0, [0, 0], [1, 64])\n"),
        "ParserTypeError", "pld.tile.remote_load target must be a DistributedTensor (window-bound), got pl.Tensor[[1, 64], pl.FP32]", 7, 30);
}

static void test_remote_store_target_rank_below_two_is_type_error(void **s)
{
    (void)s;
    ERR(KER("    pld.tile.remote_store(pl.load(src, [0, 0], [1, 64]), v, 0, [0])\n"),
        "ParserTypeError", "pld.tile.remote_store target rank must be >= 2 to hold a 2-D push, got 1", 7, 58);
}

static void test_remote_store_leading_dimension_is_type_error(void **s)
{
    (void)s;
    ERR(KER("    t = pl.load(v3, [0, 0, 0], [2, 1, 64])\n"
            "    pld.tile.remote_store(t, v3, 0, [0, 0, 0])\n"),
        "ParserTypeError", "pld.tile.remote_store src leading dimension 0 must be 1 (got 2)", 8, 27);
}

static void test_remote_store_dtype_mismatch_is_type_error(void **s)
{
    (void)s;
    ERR(KER("    pld.tile.remote_store(pl.load(src, [0, 0], [1, 64]), g, 0, [0, 0])\n"),
        "ParserTypeError", "pld.tile.remote_store: src dtype FP32 does not match target dtype INT32", 7, 27);
}

static void test_put_box_arguments_together_is_value_error(void **s)
{
    (void)s;
    ERR(KER("    pld.tensor.put(w, 0, src, dst_offsets=[0, 0])\n"),
        "ValueError", "pld.tensor.put dst_offsets, src_offsets, and shape must be provided together", 7, 5);
}

static void test_put_pipeline_needs_chunks_is_value_error(void **s)
{
    (void)s;
    ERR(KER("    pld.tensor.put(w, 0, src, pipeline=True, chunk_rows=1)\n"),
        "ValueError", "pld.tensor.put pipeline=True requires both chunk_rows>0 and chunk_cols>0 (got chunk_rows=1, chunk_cols=0)", 7, 5);
}

static void test_put_negative_chunk_is_value_error(void **s)
{
    (void)s;
    ERR(KER("    pld.tensor.put(w, 0, src, chunk_rows=-1)\n"),
        "ValueError", "pld.tensor.put chunk_rows and chunk_cols must be static ints >= 0", 7, 42);
}

static void test_put_dtype_mismatch_is_value_error(void **s)
{
    (void)s;
    ERR(KER("    pld.tensor.put(w, 0, g)\n"),
        "ValueError", "pld.tensor.put: src dtype INT32 does not match target dtype FP32", 7, 5);
}

static void test_put_whole_shapes_differ_is_value_error(void **s)
{
    (void)s;
    ERR(KER("    pld.tensor.put(w, 0, v)\n"),
        "ValueError", "pld.tensor.put dst shape [1, 64] and src shape [64] differ; pass dst_offsets, src_offsets and shape for a subregion", 7, 5);
}

static void test_put_add_dtype_is_value_error(void **s)
{
    (void)s;
    ERR(KER("    pld.tensor.put(u, 0, u, atomic=pld.AtomicType.Add)\n"),
        "ValueError", "pld.tensor.put atomic=AtomicType.Add supports FP32, FP16, BF16, INT32, INT8, got UINT8", 7, 36);
}

static void test_get_box_arguments_together_is_value_error(void **s)
{
    (void)s;
    ERR(KER("    pld.tensor.get(dst, 0, w, shape=[1, 64])\n"),
        "ValueError", "pld.tensor.get dst_offsets, src_offsets, and shape must be provided together", 7, 5);
}

static void test_kernel_barrier_signal_not_int32_is_type_error(void **s)
{
    (void)s;
    ERR(KER("    w = pld.tensor.barrier(w)\n"),
        "ParserTypeError", "pld.tensor.barrier signal must have INT32 element type, got FP32", 7, 28);
}

static void test_host_barrier_signal_rank_is_type_error(void **s)
{
    (void)s;
    ERR(HOST(STD DISPATCH "        pld.tensor.barrier(v3)\n"),
        "ParserTypeError", "pld.tensor.barrier signal must be a rank-1 DistributedTensor, got rank 3", 49, 28);
}

static void test_allreduce_without_signal_in_loop_is_pass_error(void **s)
{
    (void)s;
    ERR(HOST(STD DISPATCH "        pld.tensor.allreduce(w)\n"),
        "PassError", "pld.tensor.allreduce without an explicit signal is not supported inside a for/while loop; allocate a signal window and pass it", 49, 9);
}

static void test_allreduce_ring_dtype_is_type_error(void **s)
{
    (void)s;
    ERR(HOST(STD DISPATCH "        pld.tensor.allreduce(w, g, op=pld.ReduceOp.Max, mode=\"ring\")\n"),
        "ParserTypeError", "pld.tensor.allreduce ring does not support FP32/Max", 49, 9);
}

static void test_collective_windows_one_buffer_is_pass_error(void **s)
{
    (void)s;
    ERR(HOST("    wb = pld.alloc_window_buffer([1, 64], dtype=pl.FP32)\n"
            "    sb = pld.alloc_window_buffer([2], dtype=pl.INT32)\n"
            "    w = pld.window(wb, [1, 64], dtype=pl.FP32)\n"
            "    s = pld.window(sb, [2], dtype=pl.INT32)\n"
            "    for r in pl.range(2):\n"
            "        dev1(x[r], y[r], w, s, device=r)\n"
            "    pld.tensor.allgather(w, w, s)\n"),
        "PassError", "pld.tensor.allgather windows must be distinct buffers of one comm domain", 43, 5);
}

static void test_defer_wait_is_later(void **s)
{
    (void)s;
    ERR(KER("    pld.system.defer_wait(g, [0, 0], 1)\n"),
        "UnsupportedFeatureError", "pld.system.defer_wait is not supported in this version", 7, 5);
}

static void test_all_to_all_v_is_later(void **s)
{
    (void)s;
    ERR(HOST("    pld.tensor.all_to_all_v(x)\n"),
        "UnsupportedFeatureError", "pld.tensor.all_to_all_v is not supported in this version", 37, 5);
}

static void test_role_subworker_is_later(void **s)
{
    (void)s;
    DSL_EXPECT_COMPILE_ERROR(dd_compile_fn(DD_HDR "@pl.program\nclass P:\n    @pl.function(level=pl.Level.HOST, role=pl.Role.SubWorker)\n"
              "    def h(self, x: pl.Tensor[[2, 1, 64], pl.FP32], y: pl.Out[pl.Tensor[[2, 1, 64], pl.FP32]]):\n        pass\n", "P", "h", dd_args, 2),
                             "UnsupportedFeatureError", "pl.Role.SubWorker is not supported in this version", 6, 44);
}

static void test_in_kernel_allreduce_is_later(void **s)
{
    (void)s;
    ERR(KER("    pld.tensor.allreduce(w)\n"),
        "UnsupportedFeatureError", "in-kernel pld.tensor.allreduce is not supported in this version", 7, 5);
}

static void test_host_slice_is_later(void **s)
{
    (void)s;
    ERR(HOST("    for r in pl.range(2):\n"
            "        dev0(x[0:1], y[r])\n"),
        "UnsupportedFeatureError", "a slice in a host subscript is not supported in this version", 38, 16);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_host_tile_op_is_misplaced),
        cmocka_unit_test(test_host_kernel_call_is_invalid),
        cmocka_unit_test(test_host_pl_at_is_invalid),
        cmocka_unit_test(test_host_submit_is_invalid),
        cmocka_unit_test(test_host_create_tensor_is_invalid),
        cmocka_unit_test(test_device_kw_on_kernel_is_type_error),
        cmocka_unit_test(test_dt_dispatch_without_device_is_type_error),
        cmocka_unit_test(test_device_loop_not_from_zero_is_pass_error),
        cmocka_unit_test(test_device_loop_step_is_pass_error),
        cmocka_unit_test(test_device_other_expression_is_pass_error),
        cmocka_unit_test(test_dt_for_tensor_parameter_is_type_error),
        cmocka_unit_test(test_kernel_op_in_orchestration_is_invalid),
        cmocka_unit_test(test_world_size_outside_host_is_syntax_error),
        cmocka_unit_test(test_dt_out_parameter_is_type_error),
        cmocka_unit_test(test_window_shape_is_constant_or_world_size),
        cmocka_unit_test(test_alloc_window_outside_host_is_syntax_error),
        cmocka_unit_test(test_alloc_window_not_assigned_is_syntax_error),
        cmocka_unit_test(test_alloc_window_name_twice_is_syntax_error),
        cmocka_unit_test(test_alloc_window_shape_needs_dtype),
        cmocka_unit_test(test_alloc_window_nonpositive_dimension),
        cmocka_unit_test(test_alloc_window_in_loop_is_pass_error),
        cmocka_unit_test(test_alloc_window_size_not_entry_computable_is_pass_error),
        cmocka_unit_test(test_alloc_window_dead_is_pass_error),
        cmocka_unit_test(test_alloc_window_unconsumed_is_pass_error),
        cmocka_unit_test(test_get_comm_ctx_of_plain_tensor_is_type_error),
        cmocka_unit_test(test_notify_target_not_dt_is_type_error),
        cmocka_unit_test(test_notify_offsets_rank_is_type_error),
        cmocka_unit_test(test_notify_op_int_is_type_error),
        cmocka_unit_test(test_notify_target_not_int32_is_type_error),
        cmocka_unit_test(test_wait_signal_not_dt_is_type_error),
        cmocka_unit_test(test_wait_offsets_rank_is_type_error),
        cmocka_unit_test(test_wait_cmp_int_is_type_error),
        cmocka_unit_test(test_remote_load_offsets_rank_is_type_error),
        cmocka_unit_test(test_remote_load_target_not_dt_is_type_error),
        cmocka_unit_test(test_remote_store_target_rank_below_two_is_type_error),
        cmocka_unit_test(test_remote_store_leading_dimension_is_type_error),
        cmocka_unit_test(test_remote_store_dtype_mismatch_is_type_error),
        cmocka_unit_test(test_put_box_arguments_together_is_value_error),
        cmocka_unit_test(test_put_pipeline_needs_chunks_is_value_error),
        cmocka_unit_test(test_put_negative_chunk_is_value_error),
        cmocka_unit_test(test_put_dtype_mismatch_is_value_error),
        cmocka_unit_test(test_put_whole_shapes_differ_is_value_error),
        cmocka_unit_test(test_put_add_dtype_is_value_error),
        cmocka_unit_test(test_get_box_arguments_together_is_value_error),
        cmocka_unit_test(test_kernel_barrier_signal_not_int32_is_type_error),
        cmocka_unit_test(test_host_barrier_signal_rank_is_type_error),
        cmocka_unit_test(test_allreduce_without_signal_in_loop_is_pass_error),
        cmocka_unit_test(test_allreduce_ring_dtype_is_type_error),
        cmocka_unit_test(test_collective_windows_one_buffer_is_pass_error),
        cmocka_unit_test(test_defer_wait_is_later),
        cmocka_unit_test(test_all_to_all_v_is_later),
        cmocka_unit_test(test_role_subworker_is_later),
        cmocka_unit_test(test_in_kernel_allreduce_is_later),
        cmocka_unit_test(test_host_slice_is_later),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
