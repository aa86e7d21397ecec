/*
 * test_dsl_distributed.c - the distributed surface (DISTRIBUTED-SPEC §1)
 * compiled: our own programs in the shapes of the seven distributed
 * examples (a rank stamp, round robin, a window round trip, barriers,
 * remote load and store, put and get, a dynamic rank count), the host
 * collectives and the @pl.program form; each lowers to the host
 * instructions and COMM lines program.h describes, and its printed text
 * compiles again to the same text and listing.  The compile-time errors
 * are test_dsl_distributed_errors.c's.
 */
#include "harness.h"
#include "dsl_compile.h"
#include "dsl_dist.h"

#define NARGS (sizeof dd_args / sizeof dd_args[0])
#define ROW "pl.Tensor[[1, 64], pl.FP32]"
#define HOST_SIG "(x: pl.Tensor[[2, 1, 64], pl.FP32], y: pl.Out[pl.Tensor[[2, 1, 64], pl.FP32]]):\n"

/* A kernel doubling a row, and its per-device function. */
#define TWICE                                                                                        \
    "@pl.jit.incore\ndef twice(src: " ROW ", dst: pl.Out[" ROW "]):\n"                               \
    "    t = pl.load(src, [0, 0], [1, 64])\n    dst = pl.store(pl.add(t, t), [0, 0], dst)\n    return dst\n\n" \
    "@pl.jit\ndef on_device(src: " ROW ", dst: pl.Out[" ROW "]):\n    dst = twice(src, dst)\n    return dst\n\n"

/* Compiles src (entry host), checks its listing holds want[] and its round trip. */
static void dd_check(const char *src, const char *host, const pto_arg_spec *args, size_t nargs, const char *const *want)
{
    pto_program *p = dd_compile_fn(src, host, NULL, args, nargs);
    dd_expect_listing(p, want);
    dd_expect_roundtrip(p, host, args, nargs);
    pto_program_free(p);
}

static void test_host_dispatch_per_rank(void **s)
{
    (void)s;
    static const char *const want[] = {") Host @", "ENTER", "WORLD r", " host @", "DISPATCH on_device device=r", NULL};
    dd_check(DD_HDR TWICE "@pl.jit.host\ndef doubled" HOST_SIG "    for d in pl.range(pld.world_size()):\n        on_device(x[d], y[d], device=d)\n",
             "doubled", dd_args, NARGS, want);
    pto_program *p = dd_compile(DD_HDR TWICE "@pl.jit.host\ndef doubled" HOST_SIG "    for d in pl.range(pld.world_size()):\n"
                                "        on_device(x[d], y[d], device=d)\n", "doubled");
    assert_null(strstr(pto_program_listing(p), " comm ")); /* no windows: not a comm dispatch */
    assert_null(strstr(pto_program_listing(p), "WINBUF"));
    pto_program_free(p);
}

static void test_host_dispatch_without_device_is_round_robin(void **s)
{
    (void)s;
    static const char *const want[] = {"DISPATCH on_device device=- args=", NULL};
    dd_check(DD_HDR TWICE "@pl.jit.host\ndef spread" HOST_SIG "    for d in pl.range(2):\n        on_device(x[d], y[d])\n", "spread", dd_args,
             NARGS, want);
}

static void test_window_buffer_round_trip(void **s)
{
    (void)s;
    static const char *const want[] = {"WINBUF #0 scratch bytes=r", "ranks=[0, r", "ENTER", "WINVIEW t", "= #0 scratch [1, 64] FP32",
                                       "DISPATCH keep device=r", " comm args=", "win=t2 InOut", NULL};
    dd_check(DD_HDR "@pl.jit.incore\ndef via_window(src: " ROW ", dst: pl.Out[" ROW "], win: pld.DistributedTensor[[1, 64], pl.FP32]):\n"
             "    win = pl.store(pl.load(src, [0, 0], [1, 64]), [0, 0], win)\n"
             "    dst = pl.store(pl.load(win, [0, 0], [1, 64]), [0, 0], dst)\n    return dst\n\n"
             "@pl.jit\ndef keep(src: " ROW ", dst: pl.Out[" ROW "], win: pld.DistributedTensor[[1, 64], pl.FP32]):\n"
             "    return via_window(src, dst, win)\n\n"
             "@pl.jit.host\ndef bounce" HOST_SIG "    scratch = pld.alloc_window_buffer(256)\n    for d in pl.range(pld.world_size()):\n"
             "        w = pld.window(scratch, [1, 64], dtype=pl.FP32)\n        keep(x[d], y[d], w, device=d)\n",
             "bounce", dd_args, NARGS, want);
}

/* A kernel's hand-made credit barrier (notify each peer's cell [me], wait on each own cell) and the built-in one. */
static void test_kernel_barriers(void **s)
{
    (void)s;
    static const char *const want[] = {"COMM RANK r", "COMM NRANKS r", "COMM NOTIFY t2 peer=r", "AtomicAdd r", "COMM WAIT t2 [r",
                                       "] Ge r", "COMM NOTIFY t2 peer=r", "] AtomicAdd r", "COMM BARRIER t3", NULL};
    dd_check(DD_HDR "@pl.jit.incore\ndef meet(src: " ROW ", dst: pl.Out[" ROW "], flags: pld.DistributedTensor[[2, 1], pl.INT32],\n"
             "         gate: pld.DistributedTensor[[2, 1], pl.INT32]):\n"
             "    me = pld.rank(pld.get_comm_ctx(flags))\n    n = pld.nranks(pld.get_comm_ctx(flags))\n"
             "    for p in pl.range(n):\n        pld.system.notify(flags, p, [me, 0], 1, op=pld.NotifyOp.AtomicAdd)\n"
             "    for p in pl.range(n):\n        pld.system.wait(flags, [p, 0], 1, cmp=pld.WaitCmp.Ge)\n"
             "        pld.system.notify(flags, me, [p, 0], -1, op=pld.NotifyOp.AtomicAdd)\n"
             "    gate = pld.tensor.barrier(gate)\n"
             "    dst = pl.store(pl.load(src, [0, 0], [1, 64]), [0, 0], dst)\n    return dst\n\n"
             "@pl.jit\ndef rendezvous_dev(src: " ROW ", dst: pl.Out[" ROW "], flags: pld.DistributedTensor[[2, 1], pl.INT32],\n"
             "                   gate: pld.DistributedTensor[[2, 1], pl.INT32]):\n    return meet(src, dst, flags, gate)\n\n"
             "@pl.jit.host\ndef rendezvous" HOST_SIG "    flag_buf = pld.alloc_window_buffer([2, 1], dtype=pl.INT32)\n"
             "    gate_buf = pld.alloc_window_buffer([2, 1], dtype=pl.INT32)\n    for d in pl.range(2):\n"
             "        f = pld.window(flag_buf, [2, 1], dtype=pl.INT32)\n        g = pld.window(gate_buf, [2, 1], dtype=pl.INT32)\n"
             "        rendezvous_dev(x[d], y[d], f, g, device=d)\n",
             "rendezvous", dd_args, NARGS, want);
}

#define SHIFT_PARAMS "(src: " ROW ", dst: pl.Out[" ROW "], buf: pld.DistributedTensor[[1, 64], pl.FP32], sig: pld.DistributedTensor[[2, 1], pl.INT32])"
#define SHIFT_ARGS "(src, dst, buf, sig)"

static void test_remote_load_and_store(void **s)
{
    (void)s;
    static const char *const want[] = {"COMM REMOTE_LOAD v", "= t2 peer=r", "[1, 64] FP32", "COMM REMOTE_STORE t2 peer=r", "+= v",
                                       "COMM BARRIER t3", "DISPATCH pull_dev device=r", "DISPATCH push_dev device=r", NULL};
    dd_check(DD_HDR "@pl.jit.incore\ndef pull_next" SHIFT_PARAMS ":\n"
             "    me = pld.rank(pld.get_comm_ctx(buf))\n    n = pld.nranks(pld.get_comm_ctx(buf))\n"
             "    buf = pl.store(pl.load(src, [0, 0], [1, 64]), [0, 0], buf)\n    sig = pld.tensor.barrier(sig)\n"
             "    t = pld.tile.remote_load(buf, (me + 1) % n, [0, 0], [1, 64])\n    dst = pl.store(t, [0, 0], dst)\n    return dst\n\n"
             "@pl.jit.incore\ndef push_prev" SHIFT_PARAMS ":\n"
             "    me = pld.rank(pld.get_comm_ctx(buf))\n    n = pld.nranks(pld.get_comm_ctx(buf))\n"
             "    t = pl.load(src, [0, 0], [1, 64])\n"
             "    pld.tile.remote_store(t, buf, (me + n - 1) % n, [0, 0], atomic=pld.AtomicType.Add)\n    sig = pld.tensor.barrier(sig)\n"
             "    dst = pl.store(pl.load(buf, [0, 0], [1, 64]), [0, 0], dst)\n    return dst\n\n"
             "@pl.jit\ndef pull_dev" SHIFT_PARAMS ":\n    return pull_next" SHIFT_ARGS "\n\n"
             "@pl.jit\ndef push_dev" SHIFT_PARAMS ":\n    return push_prev" SHIFT_ARGS "\n\n"
             "@pl.jit.host\ndef shift_both" HOST_SIG "    data = pld.alloc_window_buffer([1, 64], dtype=pl.FP32)\n"
             "    sigs = pld.alloc_window_buffer([2, 1], dtype=pl.INT32)\n    for d in pl.range(pld.world_size()):\n"
             "        b = pld.window(data, [1, 64], dtype=pl.FP32)\n        g = pld.window(sigs, [2, 1], dtype=pl.INT32)\n"
             "        pull_dev(x[d], y[d], b, g, device=d)\n        push_dev(x[d], y[d], b, g, device=d)\n",
             "shift_both", dd_args, NARGS, want);
}

#define PG_PARAMS                                                                                                   \
    "(src: " ROW ", dst: pl.Out[" ROW "], stage: pld.DistributedTensor[[2, 64], pl.FP32],\n"                          \
    "        inbox: pld.DistributedTensor[[2, 64], pl.FP32], sig: pld.DistributedTensor[[1, 1], pl.INT32])"
#define PG_HEAD                                                                                                     \
    "    ctx = pld.get_comm_ctx(stage)\n    me = pld.rank(ctx)\n    n = pld.nranks(ctx)\n"                            \
    "    stage = pl.store(pl.load(src, [0, 0], [1, 64]), [0, 0], stage)\n"

static void test_put_and_get(void **s)
{
    (void)s;
    static const char *const want[] = {"COMM PUT t3 peer=r", "+= t2[r", "box=[1, 64] FP32", "COMM GET t2 peer=r", "-> t3 FP32",
                                       "COMM NOTIFY t4 peer=r", "] Set r", "COMM WAIT t4 [r", "] Eq r", NULL};
    dd_check(DD_HDR "@pl.jit.incore\ndef send" PG_PARAMS ":\n" PG_HEAD
             "    pld.tensor.put(inbox, (me + 1) % n, stage, dst_offsets=[1, 0], src_offsets=[0, 0], shape=[1, 64], atomic=pld.AtomicType.Add)\n"
             "    pld.system.notify(sig, (me + 1) % n, [0, 0], 1, op=pld.NotifyOp.Set)\n"
             "    pld.system.wait(sig, [0, 0], 1, cmp=pld.WaitCmp.Eq)\n"
             "    dst = pl.store(pl.load(inbox, [1, 0], [1, 64]), [0, 0], dst)\n    return dst\n\n"
             "@pl.jit.incore\ndef fetch" PG_PARAMS ":\n" PG_HEAD
             "    pld.system.notify(sig, (me + n - 1) % n, [0, 0], 1)\n    pld.system.wait(sig, [0, 0], 1, cmp=pld.WaitCmp.Ge)\n"
             "    pld.tensor.get(inbox, (me + 1) % n, stage)\n"
             "    dst = pl.store(pl.load(inbox, [0, 0], [1, 64]), [0, 0], dst)\n    return dst\n\n"
             "@pl.jit\ndef send_dev" PG_PARAMS ":\n    return send(src, dst, stage, inbox, sig)\n\n"
             "@pl.jit\ndef fetch_dev" PG_PARAMS ":\n    return fetch(src, dst, stage, inbox, sig)\n\n"
             "@pl.jit.host\ndef exchange" HOST_SIG "    st = pld.alloc_window_buffer([2, 64], dtype=pl.FP32)\n"
             "    ib = pld.alloc_window_buffer([2, 64], dtype=pl.FP32)\n    sg = pld.alloc_window_buffer([1, 1], dtype=pl.INT32)\n"
             "    for d in pl.range(pld.world_size()):\n        a = pld.window(st, [2, 64], dtype=pl.FP32)\n"
             "        b = pld.window(ib, [2, 64], dtype=pl.FP32)\n        c = pld.window(sg, [1, 1], dtype=pl.INT32)\n"
             "        send_dev(x[d], y[d], a, b, c, device=d)\n        fetch_dev(x[d], y[d], a, b, c, device=d)\n",
             "exchange", dd_args, NARGS, want);
}

static void test_dynamic_rank_count(void **s)
{
    (void)s;
    static const pto_arg_spec three[] = {
        {.name = "x", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 3, .shape = {3, 1, 64}},
        {.name = "y", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 3, .shape = {3, 1, 64}},
    };
    static const char *const want[] = {"WORLD r", "WINBUF #0 tally bytes=r", "DIM r", "DISPATCH count_dev device=r", " comm ", NULL};
    dd_check(DD_HDR "W = pl.dynamic(\"W\")\n\n"
             "@pl.jit.incore\ndef count(src: " ROW ", dst: pl.Out[" ROW "], cell: pld.DistributedTensor[[1, 1], pl.INT32]):\n"
             "    pld.system.notify(cell, 0, [0, 0], 1)\n"
             "    dst = pl.store(pl.load(src, [0, 0], [1, 64]), [0, 0], dst)\n    return dst\n\n"
             "@pl.jit\ndef count_dev(src: " ROW ", dst: pl.Out[" ROW "], cell: pld.DistributedTensor[[1, 1], pl.INT32]):\n"
             "    return count(src, dst, cell)\n\n"
             "@pl.jit.host\ndef census(x: pl.Tensor[[W, 1, 64], pl.FP32], y: pl.Out[pl.Tensor[[W, 1, 64], pl.FP32]]):\n"
             "    tally = pld.alloc_window_buffer(pl.tensor.dim(x, 0) * 4)\n"
             "    for d in pl.range(pld.world_size()):\n        c = pld.window(tally, [1, 1], dtype=pl.INT32)\n"
             "        count_dev(x[d], y[d], c, device=d)\n",
             "census", three, 2, want);
}

/* A window view's pld.world_size() rows are P at run time (WINVIEW's `P`), the callee's
 * dynamic dimension binds to them; pl.<DT>.get_byte() is the element size. */
static void test_window_rows_of_world_size(void **s)
{
    (void)s;
    static const char *const want[] = {"WORLD r", "WINVIEW t", " flags [P, 1] INT32", "DISPATCH mark_dev device=r", NULL};
    dd_check(DD_HDR "R = pl.dynamic(\"R\")\n\n"
             "@pl.jit.incore\ndef mark(src: " ROW ", dst: pl.Out[" ROW "], f: pld.DistributedTensor[[R, 1], pl.INT32]):\n"
             "    me = pld.rank(pld.get_comm_ctx(f))\n"
             "    pld.system.notify(f, me, [me, 0], 1)\n"
             "    dst = pl.store(pl.load(src, [0, 0], [1, 64]), [0, 0], dst)\n    return dst\n\n"
             "@pl.jit\ndef mark_dev(src: " ROW ", dst: pl.Out[" ROW "], f: pld.DistributedTensor[[R, 1], pl.INT32]):\n"
             "    return mark(src, dst, f)\n\n"
             "@pl.jit.host\ndef tag(x: pl.Tensor[[2, 1, 64], pl.FP32], y: pl.Out[pl.Tensor[[2, 1, 64], pl.FP32]]):\n"
             "    flags = pld.alloc_window_buffer(pld.world_size() * pl.INT32.get_byte())\n"
             "    for d in pl.range(pld.world_size()):\n        f = pld.window(flags, [pld.world_size(), 1], dtype=pl.INT32)\n"
             "        mark_dev(x[d], y[d], f, device=d)\n",
             "tag", dd_args, 2, want);
}

/* Constant device= forms give a buffer the constant ranks (WINBUF's `+ [...]`). */
static void test_constant_devices_form_a_rank_set(void **s)
{
    (void)s;
    static const char *const want[] = {"WINBUF #0 cells bytes=r", " + [1, 0]", "DISPATCH count_dev device=r", NULL};
    dd_check(DD_HDR "@pl.jit.incore\ndef count(src: " ROW ", dst: pl.Out[" ROW "], cell: pld.DistributedTensor[[1, 1], pl.INT32]):\n"
             "    pld.system.notify(cell, 0, [0, 0], 1)\n"
             "    dst = pl.store(pl.load(src, [0, 0], [1, 64]), [0, 0], dst)\n    return dst\n\n"
             "@pl.jit\ndef count_dev(src: " ROW ", dst: pl.Out[" ROW "], cell: pld.DistributedTensor[[1, 1], pl.INT32]):\n"
             "    return count(src, dst, cell)\n\n"
             "@pl.jit.host\ndef pair" HOST_SIG "    cells = pld.alloc_window_buffer([1, 1], dtype=pl.INT32)\n"
             "    c = pld.window(cells, [1, 1], dtype=pl.INT32)\n"
             "    count_dev(x[1], y[1], c, device=1)\n    count_dev(x[0], y[0], c, device=0)\n",
             "pair", dd_args, NARGS, want);
}

/* The host collectives on windows of one domain, and the host barrier. */
static void test_host_collectives(void **s)
{
    (void)s;
    static const char *const want[] = {"HCOLL BARRIER signal=t", "HCOLL ALLREDUCE data=t", "Max", "HCOLL ALLREDUCE data=t", "ring",
                                       "HCOLL BROADCAST data=t", "root=r", "HCOLL ALLGATHER stage=t", "HCOLL REDUCE_SCATTER data=t",
                                       "HCOLL ALL_TO_ALL stage=t", NULL};
    dd_check(DD_HDR "@pl.jit.incore\ndef fill(src: " ROW ", dst: pl.Out[" ROW "], v: pld.DistributedTensor[[2, 64], pl.FP32],\n"
             "         u: pld.DistributedTensor[[2, 64], pl.FP32], g: pld.DistributedTensor[[2], pl.INT32],\n"
             "         ring: pld.DistributedTensor[[3, 2], pl.INT32]):\n"
             "    v = pl.store(pl.load(src, [0, 0], [1, 64]), [0, 0], v)\n"
             "    dst = pl.store(pl.load(src, [0, 0], [1, 64]), [0, 0], dst)\n    return dst\n\n"
             "@pl.jit\ndef fill_dev(src: " ROW ", dst: pl.Out[" ROW "], v: pld.DistributedTensor[[2, 64], pl.FP32],\n"
             "             u: pld.DistributedTensor[[2, 64], pl.FP32], g: pld.DistributedTensor[[2], pl.INT32],\n"
             "             ring: pld.DistributedTensor[[3, 2], pl.INT32]):\n"
             "    return fill(src, dst, v, u, g, ring)\n\n"
             "@pl.jit.host\ndef reduce_all" HOST_SIG "    vb = pld.alloc_window_buffer([2, 64], dtype=pl.FP32)\n"
             "    ub = pld.alloc_window_buffer([2, 64], dtype=pl.FP32)\n    gb = pld.alloc_window_buffer([2], dtype=pl.INT32)\n"
             "    rb = pld.alloc_window_buffer([3, 2], dtype=pl.INT32)\n"
             "    v = pld.window(vb, [2, 64], dtype=pl.FP32)\n    u = pld.window(ub, [2, 64], dtype=pl.FP32)\n"
             "    g = pld.window(gb, [2], dtype=pl.INT32)\n    rs = pld.window(rb, [3, 2], dtype=pl.INT32)\n"
             "    for d in pl.range(pld.world_size()):\n        fill_dev(x[d], y[d], v, u, g, rs, device=d)\n"
             "    g = pld.tensor.barrier(g)\n    v = pld.tensor.allreduce(v, g, op=pld.ReduceOp.Max)\n"
             "    pld.tensor.allreduce(v, rs, mode=\"ring\")\n"
             "    pld.tensor.broadcast(v, g, root=1)\n    pld.tensor.allgather(u, v, g)\n"
             "    pld.tensor.reduce_scatter(v, g, op=pld.ReduceOp.Sum)\n    pld.tensor.all_to_all(u, v, g)\n",
             "reduce_all", dd_args, NARGS, want);
}

/* The form lower() prints: a host function in a @pl.program. */
static void test_host_function_in_a_program(void **s)
{
    (void)s;
    static const char *const want[] = {"proc 0 mirror(x=t0, y=t1) Host", "DISPATCH dev device=r", NULL};
    const char *src = DD_HDR "@pl.program\nclass mirror:\n"
                             "    @pl.function(type=pl.FunctionType.InCore)\n"
                             "    def k(self, src: " ROW ", dst: pl.Out[" ROW "]):\n"
                             "        dst = pl.store(pl.load(src, [0, 0], [1, 64]), [0, 0], dst)\n        return dst\n\n"
                             "    @pl.function(type=pl.FunctionType.Orchestration)\n"
                             "    def dev(self, src: " ROW ", dst: pl.Out[" ROW "]):\n        dst = self.k(src, dst)\n        return dst\n\n"
                             "    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)\n"
                             "    def mirror" "(self, x: pl.Tensor[[2, 1, 64], pl.FP32], y: pl.Out[pl.Tensor[[2, 1, 64], pl.FP32]]):\n"
                             "        for d in pl.range(2):\n            self.dev(x[d], y[d], device=d)\n";
    pto_program *p = dd_compile_fn(src, "mirror", "mirror", dd_args, NARGS);
    dd_expect_listing(p, want);
    assert_non_null(strstr(pto_program_text(p), "@pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)\n    def mirror(self"));
    dd_expect_roundtrip(p, "mirror", dd_args, NARGS);
    pto_program_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_host_dispatch_per_rank),
        cmocka_unit_test(test_host_dispatch_without_device_is_round_robin),
        cmocka_unit_test(test_window_buffer_round_trip),
        cmocka_unit_test(test_kernel_barriers),
        cmocka_unit_test(test_remote_load_and_store),
        cmocka_unit_test(test_put_and_get),
        cmocka_unit_test(test_dynamic_rank_count),
        cmocka_unit_test(test_window_rows_of_world_size),
        cmocka_unit_test(test_constant_devices_form_a_rank_set),
        cmocka_unit_test(test_host_collectives),
        cmocka_unit_test(test_host_function_in_a_program),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
