"""§6.2 rule tests that end in success: X01 placement (device=, round robin), X02 the host
data contract (in place and return style), X03's next-call read, X04 window zeroing and
separation, X05 domains of a rank subset, X06 notify/wait semantics, X07 O1 across three
ranks, X09 atomic adds of every dtype from every rank, X10 back-to-back in-kernel barriers, X13
waiters submitted before their publisher (spare threads),
S04's host subscript of a tensor whose dims are all dynamic, a window view written inline as a
dispatch argument (§1.5)."""
import json
import os

import pypto.language as pl
import pypto.language.distributed as pld
import torch

from distcase import case, check, config, equal, rank, seeded

N = 32
W = pl.dynamic("W")
SRC = open(__file__).read().splitlines()


def line_of(fn_name):
    return 1 + next(i for i, text in enumerate(SRC) if text.startswith("def %s(" % fn_name))


@pl.jit.incore
def bump_k(a: pl.Tensor[[1, N], pl.FP32], b: pl.Out[pl.Tensor[[1, N], pl.FP32]], by: pl.Scalar[pl.INT32]):
    b = pl.store(pl.add(pl.load(a, [0, 0], [1, N]), pl.cast(by, target_type=pl.FP32)), [0, 0], b)
    return b


@pl.jit
def bump_a(a: pl.Tensor[[1, N], pl.FP32], b: pl.Out[pl.Tensor[[1, N], pl.FP32]], by: pl.Scalar[pl.INT32]):
    return bump_k(a, b, by)


@pl.jit
def bump_b(a: pl.Tensor[[1, N], pl.FP32], b: pl.Out[pl.Tensor[[1, N], pl.FP32]], by: pl.Scalar[pl.INT32]):
    return bump_k(a, b, by)


@pl.jit
def bump_c(a: pl.Tensor[[1, N], pl.FP32], b: pl.Out[pl.Tensor[[1, N], pl.FP32]], by: pl.Scalar[pl.INT32]):
    return bump_k(a, b, by)


@pl.jit.host
def placed(a: pl.Tensor[[5, 1, N], pl.FP32], b: pl.Out[pl.Tensor[[5, 1, N], pl.FP32]]):
    bump_a(a[0], b[0], 1)
    bump_b(a[1], b[1], 2)
    bump_a(a[2], b[2], 3)
    bump_c(a[3], b[3], 4, device=1)
    bump_b(a[4], b[4], 5)


@case("x01_device_r_runs_only_on_r_and_others_go_round_robin", ranks=(2,))
def placement(P):
    a = torch.randn((5, 1, N), generator=seeded(0))
    b = torch.zeros((5, 1, N))
    cfg = config(P, enable_scope_stats=True)
    prog = placed.compile(a, b, config=cfg)
    prog(a, b, config=cfg)
    equal(b, a + torch.arange(1, 6, dtype=torch.float32).view(5, 1, 1), "b")
    path = os.path.join(str(prog.output_dir), "dfx_outputs", "rank%d" % rank(), "scope_stats", "scope_stats.jsonl")
    with open(path) as f:
        records = [json.loads(line) for line in f][1:]
    sites = [r["site"] for r in records if r["phase"] == "begin" and r["depth"] == 0 and r["site"] != "(root):0"]
    name = os.path.basename(__file__)
    want = {0: ["bump_a", "bump_a"], 1: ["bump_b", "bump_c", "bump_b"]}[rank()]
    check(sites == ["%s:%d" % (name, line_of(f)) for f in want], "rank %d ran %s, want %s" % (rank(), sites, want))


@pl.jit.host
def contract(a: pl.Tensor[[2, 1, N], pl.FP32], u: pl.InOut[pl.Tensor[[2, 1, N], pl.FP32]],
             y: pl.Out[pl.Tensor[[4, 1, N], pl.FP32]], o: pl.Out[pl.Tensor[[2, 1, N], pl.FP32]]):
    for q in pl.range(2):
        bump_a(a[q], y[q], 1, device=q)
    bump_a(u[0], u[0], 10, device=1)
    bump_a(a[0], o[0], 20, device=0)
    bump_a(a[1], o[0], 30, device=1)
    return y, o


def contract_args(seed):
    g = seeded(seed)
    return [torch.randn(s, generator=g) for s in ((2, 1, N), (2, 1, N), (4, 1, N), (2, 1, N))]


@case("x02_host_data_contract_gives_every_rank_rank0s_view", ranks=(2,))
def host_contract(P):
    a, u, y, o = contract_args(1000 + rank())
    a0, u0, y0, o0 = contract_args(1000)  # what rank 0 passes
    prog = contract.compile(a, u, y, o, config=config(P))
    prog(a, u, y, o)
    equal(a, a0, "input a")
    equal(u, torch.cat([u0[:1] + 10, u0[1:]]), "InOut u (row 1 unwritten)")
    equal(y, torch.cat([a0 + 1, y0[2:]]), "Out y (rows 2-3 unwritten)")
    equal(o, torch.cat([a0[1:] + 30, o0[1:]]), "Out o (row 0 written by ranks 0 then 1)")
    # return style: only a and u are passed; the Out tensors come back zero-filled where unwritten
    a, u = contract_args(1000 + rank())[:2]
    y, o = prog(a, u)
    equal(a, a0, "input a, return style")
    equal(u, torch.cat([u0[:1] + 10, u0[1:]]), "InOut u, return style")
    equal(y, torch.cat([a0 + 1, torch.zeros((2, 1, N))]), "Out y, return style")
    equal(o, torch.cat([a0[1:] + 30, torch.zeros((1, 1, N))]), "Out o, return style")


@pl.jit.host
def write_on_0(a: pl.Tensor[[2, 1, N], pl.FP32], y: pl.Out[pl.Tensor[[2, 1, N], pl.FP32]]):
    bump_a(a[0], y[0], 1, device=0)


@pl.jit.host
def read_on_1(y: pl.Tensor[[2, 1, N], pl.FP32], z: pl.Out[pl.Tensor[[2, 1, N], pl.FP32]]):
    bump_a(y[0], z[1], 2, device=1)


@case("x03_a_region_written_on_rank0_is_read_on_rank1_in_the_next_call", ranks=(2,))
def next_call_read(P):
    a = torch.randn((2, 1, N), generator=seeded(None))
    y, z = torch.zeros((2, 1, N)), torch.zeros((2, 1, N))
    write_on_0(a, y, config=config(P))
    read_on_1(y, z, config=config(P))
    equal(z[1], a[0] + 1 + 2, "z[1]")


@pl.jit.incore
def peek_k(a: pl.Tensor[[1, N], pl.FP32], y: pl.Out[pl.Tensor[[4, N], pl.FP32]],
           p: pld.DistributedTensor[[1, N], pl.FP32], q: pld.DistributedTensor[[1, N], pl.FP32]):
    y = pl.store(pl.load(p, [0, 0], [1, N]), [0, 0], y)
    y = pl.store(pl.load(q, [0, 0], [1, N]), [1, 0], y)
    t = pl.load(a, [0, 0], [1, N])
    p = pl.store(t, [0, 0], p)
    q = pl.store(pl.add(t, 1.0), [0, 0], q)
    y = pl.store(pl.load(p, [0, 0], [1, N]), [2, 0], y)
    y = pl.store(pl.load(q, [0, 0], [1, N]), [3, 0], y)
    return y


@pl.jit
def peek_dev(a: pl.Tensor[[1, N], pl.FP32], y: pl.Out[pl.Tensor[[4, N], pl.FP32]],
             p: pld.DistributedTensor[[1, N], pl.FP32], q: pld.DistributedTensor[[1, N], pl.FP32]):
    return peek_k(a, y, p, q)


@pl.jit.host
def peek(a: pl.Tensor[[W, 1, N], pl.FP32], y: pl.Out[pl.Tensor[[W, 4, N], pl.FP32]]):
    pb = pld.alloc_window_buffer([1, N], dtype=pl.FP32)
    qb = pld.alloc_window_buffer([1, N], dtype=pl.FP32)
    for r in pl.range(pld.world_size()):
        p = pld.window(pb, [1, N], dtype=pl.FP32)
        q = pld.window(qb, [1, N], dtype=pl.FP32)
        peek_dev(a[r], y[r], p, q, device=r)


@case("x04_windows_are_zero_at_every_call_entry_and_do_not_overlap", ranks=(2, 3))
def windows_zero(P):
    for call in range(2):
        a = torch.randn((P, 1, N), generator=seeded(None)) + call
        y = torch.full((P, 4, N), 5.0)
        peek(a, y, config=config(P))
        equal(y, torch.cat([torch.zeros((P, 2, N)), a, a + 1], dim=1), "y of call %d" % call)


@pl.jit.incore
def whoami_k(o: pl.Out[pl.Tensor[[1, 2], pl.INT32]], s: pld.DistributedTensor[[1, 8], pl.INT32]):
    ctx = pld.get_comm_ctx(s)
    pl.write(o, [0, 0], pld.rank(ctx))
    pl.write(o, [0, 1], pld.nranks(ctx))
    return o


@pl.jit
def whoami_dev(o: pl.Out[pl.Tensor[[1, 2], pl.INT32]], s: pld.DistributedTensor[[1, 8], pl.INT32]):
    return whoami_k(o, s)


@pl.jit.host
def subsets(o: pl.Out[pl.Tensor[[4, 1, 2], pl.INT32]]):
    lo = pld.alloc_window_buffer([1, 8], dtype=pl.INT32)
    hi = pld.alloc_window_buffer([1, 8], dtype=pl.INT32)
    for r in pl.range(2):
        s = pld.window(lo, [1, 8], dtype=pl.INT32)
        whoami_dev(o[r], s, device=r)
    t = pld.window(hi, [1, 8], dtype=pl.INT32)
    whoami_dev(o[2], t, device=1)
    whoami_dev(o[3], t, device=2)


@case("x05_a_rank_loop_of_2_at_P3_and_constant_devices_make_their_own_domains", ranks=(3,))
def domains(P):
    for _ in range(2):  # the second call finds both domains cached
        o = torch.full((4, 1, 2), -1, dtype=torch.int32)
        subsets(o, config=config(P))
        equal(o, torch.tensor([[[0, 2]], [[1, 2]], [[0, 2]], [[1, 2]]], dtype=torch.int32), "(rank, nranks)")


@pl.jit.incore
def cells_k(o: pl.Out[pl.Tensor[[4, 1], pl.INT32]], c: pld.DistributedTensor[[4, 1], pl.INT32]):
    ctx = pld.get_comm_ctx(c)
    me = pld.rank(ctx)
    other = 1 - me
    pld.system.notify(c, peer=other, offsets=[0, 0], value=-5, op=pld.NotifyOp.AtomicAdd)
    pld.system.notify(c, peer=me, offsets=[0, 0], value=2, op=pld.NotifyOp.AtomicAdd)
    pld.system.wait(c, offsets=[0, 0], expected=-3, cmp=pld.WaitCmp.Eq)
    pld.system.notify(c, peer=other, offsets=[1, 0], value=40 + me, op=pld.NotifyOp.Set)
    pld.system.wait(c, offsets=[1, 0], expected=41 - me, cmp=pld.WaitCmp.Eq)
    pld.system.notify(c, peer=other, offsets=[2, 0], value=1, op=pld.NotifyOp.AtomicAdd)
    pld.system.wait(c, offsets=[2, 0], expected=-1, cmp=pld.WaitCmp.Ge)  # unsigned, 0 or 1 never reaches it
    pld.system.wait(c, offsets=[2, 0], expected=1, cmp=pld.WaitCmp.Eq)  # the peer's add, before the cell is read
    pld.system.notify(c, peer=me, offsets=[3, 0], value=-7, op=pld.NotifyOp.Set)
    pld.system.wait(c, offsets=[3, 0], expected=-8, cmp=pld.WaitCmp.Ge)
    for i in pl.range(4):
        pl.write(o, [i, 0], pl.read(c, [i, 0]))
    return o


@pl.jit
def cells_dev(o: pl.Out[pl.Tensor[[4, 1], pl.INT32]], c: pld.DistributedTensor[[4, 1], pl.INT32]):
    return cells_k(o, c)


@pl.jit.host
def cells(o: pl.Out[pl.Tensor[[2, 4, 1], pl.INT32]]):
    cb = pld.alloc_window_buffer([4, 1], dtype=pl.INT32)
    for r in pl.range(2):
        c = pld.window(cb, [4, 1], dtype=pl.INT32)
        cells_dev(o[r], c, device=r)


@case("x06_negative_atomic_add_set_self_notify_signed_ge_and_eq", ranks=(2,))
def notify_wait(P):
    o = torch.zeros((2, 4, 1), dtype=torch.int32)
    cells(o, config=config(P))
    # the Ge -1 wait passes on a cell holding 1 only when compared signed
    equal(o, torch.tensor([[[-3], [41], [1], [-7]], [[-3], [40], [1], [-7]]], dtype=torch.int32), "cells")


REPS = 1000


@pl.jit.incore
def relay_k(y: pl.Out[pl.Tensor[[1, 8], pl.FP32]], stage: pld.DistributedTensor[[1, 8], pl.FP32],
            box: pld.DistributedTensor[[1, 8], pl.FP32], flag: pld.DistributedTensor[[2, 1], pl.INT32]):
    me = pld.rank(pld.get_comm_ctx(box))
    t = pl.load(stage, [0, 0], [1, 8])
    for i in pl.range(REPS):
        t = pl.add(t, 1.0)
        if me == 0:
            pld.system.wait(flag, offsets=[1, 0], expected=i, cmp=pld.WaitCmp.Ge)
            stage = pl.store(t, [0, 0], stage)
            pld.tensor.put(box, peer=1, src=stage)
            pld.system.notify(flag, peer=2, offsets=[0, 0], value=1, op=pld.NotifyOp.AtomicAdd)
        if me == 2:
            pld.system.wait(flag, offsets=[0, 0], expected=i + 1, cmp=pld.WaitCmp.Ge)
            box = pl.store(pl.add(pl.load(box, [0, 0], [1, 8]), pld.tile.remote_load(box, peer=1, offsets=[0, 0],
                                                                                       shape=[1, 8])), [0, 0], box)
            pld.system.notify(flag, peer=0, offsets=[1, 0], value=1, op=pld.NotifyOp.AtomicAdd)
    if me == 0:
        pld.system.notify(flag, peer=1, offsets=[0, 0], value=1, op=pld.NotifyOp.AtomicAdd)
    if me == 1:
        pld.system.wait(flag, offsets=[0, 0], expected=1, cmp=pld.WaitCmp.Ge)
    y = pl.store(pl.load(box, [0, 0], [1, 8]), [0, 0], y)
    return y


@pl.jit
def relay_dev(y: pl.Out[pl.Tensor[[1, 8], pl.FP32]], stage: pld.DistributedTensor[[1, 8], pl.FP32],
              box: pld.DistributedTensor[[1, 8], pl.FP32], flag: pld.DistributedTensor[[2, 1], pl.INT32]):
    return relay_k(y, stage, box, flag)


@pl.jit.host
def relay(y: pl.Out[pl.Tensor[[3, 1, 8], pl.FP32]]):
    sb = pld.alloc_window_buffer([1, 8], dtype=pl.FP32)
    bb = pld.alloc_window_buffer([1, 8], dtype=pl.FP32)
    fb = pld.alloc_window_buffer([2, 1], dtype=pl.INT32)
    for r in pl.range(3):
        stage = pld.window(sb, [1, 8], dtype=pl.FP32)
        box = pld.window(bb, [1, 8], dtype=pl.FP32)
        flag = pld.window(fb, [2, 1], dtype=pl.INT32)
        relay_dev(y[r], stage, box, flag, device=r)


@case("x07_data_put_to_rank1_is_seen_by_rank2_after_rank0s_notify", ranks=(3,), bound=40)
def o1_three_ranks(P):
    y = torch.zeros((3, 1, 8))
    relay(y, config=config(P))
    # rank 2 sums what it read from rank 1's box each round (the round number): 1 + ... + REPS
    # only when it always saw round i's data; rank 1's box holds the last round's, rank 0's is never written
    equal(y, torch.tensor([0.0, float(REPS), REPS * (REPS + 1) / 2]).view(3, 1, 1).expand(3, 1, 8).contiguous(), "y")


@pl.jit.incore
def heap_k(x: pl.Tensor[[1, N], pl.FP32], f32: pld.DistributedTensor[[1, N], pl.FP32],
           f16: pld.DistributedTensor[[1, N], pl.FP16], b16: pld.DistributedTensor[[1, N], pl.BF16],
           i32: pld.DistributedTensor[[1, N], pl.INT32], i8: pld.DistributedTensor[[1, N], pl.INT8],
           p32: pld.DistributedTensor[[1, N], pl.FP32], sig: pld.DistributedTensor[[W, 1], pl.INT32]):
    t = pl.load(x, [0, 0], [1, N])
    pld.tile.remote_store(t, f32, 0, [0, 0], atomic=pld.AtomicType.Add)
    pld.tile.remote_store(pl.cast(t, target_type=pl.FP16), f16, 0, [0, 0], atomic=pld.AtomicType.Add)
    pld.tile.remote_store(pl.cast(t, target_type=pl.BF16), b16, 0, [0, 0], atomic=pld.AtomicType.Add)
    pld.tile.remote_store(pl.cast(t, target_type=pl.INT32), i32, 0, [0, 0], atomic=pld.AtomicType.Add)
    pld.tile.remote_store(pl.cast(t, target_type=pl.INT8), i8, 0, [0, 0], atomic=pld.AtomicType.Add)
    pld.tensor.put(p32, peer=0, src=x, atomic=pld.AtomicType.Add)
    sig = pld.tensor.barrier(sig)
    return sig


@pl.jit
def heap_dev(x: pl.Tensor[[1, N], pl.FP32], f32: pld.DistributedTensor[[1, N], pl.FP32],
             f16: pld.DistributedTensor[[1, N], pl.FP16], b16: pld.DistributedTensor[[1, N], pl.BF16],
             i32: pld.DistributedTensor[[1, N], pl.INT32], i8: pld.DistributedTensor[[1, N], pl.INT8],
             p32: pld.DistributedTensor[[1, N], pl.FP32], sig: pld.DistributedTensor[[W, 1], pl.INT32]):
    heap_k(x, f32, f16, b16, i32, i8, p32, sig)


@pl.jit.incore
def sums_k(y: pl.Out[pl.Tensor[[6, N], pl.FP32]], f32: pld.DistributedTensor[[1, N], pl.FP32],
           f16: pld.DistributedTensor[[1, N], pl.FP16], b16: pld.DistributedTensor[[1, N], pl.BF16],
           i32: pld.DistributedTensor[[1, N], pl.INT32], i8: pld.DistributedTensor[[1, N], pl.INT8],
           p32: pld.DistributedTensor[[1, N], pl.FP32]):
    y = pl.store(pl.load(f32, [0, 0], [1, N]), [0, 0], y)
    y = pl.store(pl.cast(pl.load(f16, [0, 0], [1, N]), target_type=pl.FP32), [1, 0], y)
    y = pl.store(pl.cast(pl.load(b16, [0, 0], [1, N]), target_type=pl.FP32), [2, 0], y)
    y = pl.store(pl.cast(pl.load(i32, [0, 0], [1, N]), target_type=pl.FP32), [3, 0], y)
    y = pl.store(pl.cast(pl.load(i8, [0, 0], [1, N]), target_type=pl.FP32), [4, 0], y)
    y = pl.store(pl.load(p32, [0, 0], [1, N]), [5, 0], y)
    return y


@pl.jit
def sums_dev(y: pl.Out[pl.Tensor[[6, N], pl.FP32]], f32: pld.DistributedTensor[[1, N], pl.FP32],
             f16: pld.DistributedTensor[[1, N], pl.FP16], b16: pld.DistributedTensor[[1, N], pl.BF16],
             i32: pld.DistributedTensor[[1, N], pl.INT32], i8: pld.DistributedTensor[[1, N], pl.INT8],
             p32: pld.DistributedTensor[[1, N], pl.FP32]):
    return sums_k(y, f32, f16, b16, i32, i8, p32)


@pl.jit.host
def pile_up(x: pl.Tensor[[W, 1, N], pl.FP32], y: pl.Out[pl.Tensor[[6, N], pl.FP32]]):
    b1 = pld.alloc_window_buffer([1, N], dtype=pl.FP32)
    b2 = pld.alloc_window_buffer([1, N], dtype=pl.FP16)
    b3 = pld.alloc_window_buffer([1, N], dtype=pl.BF16)
    b4 = pld.alloc_window_buffer([1, N], dtype=pl.INT32)
    b5 = pld.alloc_window_buffer([1, N], dtype=pl.INT8)
    b6 = pld.alloc_window_buffer([1, N], dtype=pl.FP32)
    sb = pld.alloc_window_buffer([pld.world_size(), 1], dtype=pl.INT32)
    f32 = pld.window(b1, [1, N], dtype=pl.FP32)
    f16 = pld.window(b2, [1, N], dtype=pl.FP16)
    b16 = pld.window(b3, [1, N], dtype=pl.BF16)
    i32 = pld.window(b4, [1, N], dtype=pl.INT32)
    i8 = pld.window(b5, [1, N], dtype=pl.INT8)
    p32 = pld.window(b6, [1, N], dtype=pl.FP32)
    sig = pld.window(sb, [W, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        heap_dev(x[r], f32, f16, b16, i32, i8, p32, sig, device=r)
    sums_dev(y, f32, f16, b16, i32, i8, p32, device=0)


@case("x09_atomic_add_of_every_dtype_from_every_rank_sums_exactly", ranks=(2, 4))
def atomic_adds(P):
    x = torch.randint(-30, 30, (P, 1, N), generator=seeded(None)).float()
    y = torch.zeros((6, N))
    pile_up(x, y, config=config(P))
    equal(y, x.sum(0).expand(6, N).contiguous(), "sums (FP32, FP16, BF16, INT32, INT8, put FP32)")


@pl.jit.incore
def laps_k(z: pl.Out[pl.Tensor[[5], pl.INT32]], sig: pld.DistributedTensor[[W, 1], pl.INT32],
           hits: pld.DistributedTensor[[1, 1], pl.INT32]):
    ctx = pld.get_comm_ctx(sig)
    me = pld.rank(ctx)
    n = pld.nranks(ctx)
    for _ in pl.range(100):
        pld.system.notify(hits, peer=(me + 1) % n, offsets=[0, 0], value=1, op=pld.NotifyOp.AtomicAdd)
        sig = pld.tensor.barrier(sig)
    pl.write(z, [4], pl.read(hits, [0, 0]))
    return z


@pl.jit
def laps_dev(z: pl.Out[pl.Tensor[[5], pl.INT32]], sig: pld.DistributedTensor[[W, 1], pl.INT32],
             hits: pld.DistributedTensor[[1, 1], pl.INT32]):
    return laps_k(z, sig, hits)


@pl.jit.incore
def after_k(z: pl.Out[pl.Tensor[[5], pl.INT32]], sig: pld.DistributedTensor[[W, 1], pl.INT32]):
    for j in pl.range(pld.nranks(pld.get_comm_ctx(sig))):
        pl.write(z, [j], pl.read(sig, [j, 0]))
    return z


@pl.jit
def after_dev(z: pl.Out[pl.Tensor[[5], pl.INT32]], sig: pld.DistributedTensor[[W, 1], pl.INT32]):
    return after_k(z, sig)


@pl.jit.host
def laps(z: pl.InOut[pl.Tensor[[W, 5], pl.INT32]]):
    sb = pld.alloc_window_buffer([pld.world_size(), 1], dtype=pl.INT32)
    hb = pld.alloc_window_buffer([1, 1], dtype=pl.INT32)
    sig = pld.window(sb, [W, 1], dtype=pl.INT32)
    hits = pld.window(hb, [1, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        laps_dev(z[r], sig, hits, device=r)
    for r in pl.range(pld.world_size()):
        after_dev(z[r], sig, device=r)


@case("x10_a_hundred_barriers_back_to_back_leave_the_signal_zero", ranks=(2, 3))
def hundred_barriers(P):
    z = torch.full((P, 5), -9, dtype=torch.int32)
    laps(z, config=config(P))
    want = torch.tensor([[0 if j < P else -9 for j in range(4)] + [100]] * P, dtype=torch.int32)
    equal(z, want, "signal cells and notify count")


@pl.jit.incore
def diag_k(seen: pl.Out[pl.Tensor[[W, 1], pl.INT32]], q: pl.Scalar[pl.INT32]):
    pl.write(seen, [q, 0], q + 1)
    return seen


@pl.jit
def diag_dev(seen: pl.Out[pl.Tensor[[W, 1], pl.INT32]], q: pl.Scalar[pl.INT32]):
    return diag_k(seen, q)


@pl.jit.host
def diag(seen: pl.Out[pl.Tensor[[W, W, 1], pl.INT32]]):
    for q in pl.range(pld.world_size()):
        diag_dev(seen[q], q, device=q)


@case("s04_a_host_subscript_of_a_tensor_with_dynamic_dims_is_a_view", ranks=(1, 2, 3))
def dynamic_subscript(P):
    seen = torch.full((P, P, 1), -7, dtype=torch.int32)
    diag(seen, config=config(P))
    want = torch.full((P, P, 1), -7, dtype=torch.int32)
    for q in range(P):
        want[q, q, 0] = q + 1
    equal(seen, want, "seen")


@pl.jit.incore
def echo_k(a: pl.Tensor[[2, N], pl.FP32], b: pl.Out[pl.Tensor[[2, N], pl.FP32]],
           win: pld.DistributedTensor[[2, N], pl.FP32]):
    win = pl.store(pl.load(a, [0, 0], [2, N]), [0, 0], win)
    b = pl.store(pl.add(pl.load(win, [0, 0], [2, N]), 1.0), [0, 0], b)
    return b


@pl.jit
def echo_dev(a: pl.Tensor[[2, N], pl.FP32], b: pl.Out[pl.Tensor[[2, N], pl.FP32]],
             win: pld.DistributedTensor[[2, N], pl.FP32]):
    return echo_k(a, b, win)


@pl.jit.host
def echo_inline(a: pl.Tensor[[W, 2, N], pl.FP32], b: pl.Out[pl.Tensor[[W, 2, N], pl.FP32]]):
    wb = pld.alloc_window_buffer([2, N], dtype=pl.FP32)
    for q in pl.range(pld.world_size()):
        echo_dev(a[q], b[q], pld.window(wb, [2, N], dtype=pl.FP32), device=q)


@case("x04_a_window_view_written_inline_as_a_dispatch_argument_is_a_window", ranks=(1, 2))
def inline_window(P):
    a = torch.randn((P, 2, N), generator=seeded(0))
    b = torch.zeros((P, 2, N))
    echo_inline(a, b, config=config(P))
    equal(b, a + 1, "b")


# X13: on rank 0 three waiters (3 x num_workers=1) are submitted before the kernel whose notify
# lets rank 1 ring their bells; each waiter hands its executor to a spare thread (D10).
Bell = pld.DistributedTensor[[1, 1], pl.INT32]
Cell = pl.Out[pl.Tensor[[1, 1], pl.INT32]]


@pl.jit.incore
def park_k(o: Cell, bell: Bell):
    pld.system.wait(bell, offsets=[0, 0], expected=1, cmp=pld.WaitCmp.Ge)
    pl.write(o, [0, 0], pl.read(bell, [0, 0]))
    return o


@pl.jit.incore
def go_k(o: Cell, go: Bell):
    pld.system.notify(go, peer=1, offsets=[0, 0], value=1, op=pld.NotifyOp.AtomicAdd)
    pl.write(o, [0, 0], 7)
    return o


@pl.jit.incore
def ring_k(o: Cell, go: Bell, b0: Bell, b1: Bell, b2: Bell):
    pld.system.wait(go, offsets=[0, 0], expected=1, cmp=pld.WaitCmp.Ge)
    pld.system.notify(b0, peer=0, offsets=[0, 0], value=1, op=pld.NotifyOp.AtomicAdd)
    pld.system.notify(b1, peer=0, offsets=[0, 0], value=2, op=pld.NotifyOp.AtomicAdd)
    pld.system.notify(b2, peer=0, offsets=[0, 0], value=3, op=pld.NotifyOp.AtomicAdd)
    pl.write(o, [0, 0], pl.read(go, [0, 0]))
    return o


@pl.jit
def parked_dev(o0: Cell, o1: Cell, o2: Cell, o3: Cell, go: Bell, b0: Bell, b1: Bell, b2: Bell):
    park_k(o0, b0)
    park_k(o1, b1)
    park_k(o2, b2)
    go_k(o3, go)


@pl.jit
def ring_dev(o0: Cell, go: Bell, b0: Bell, b1: Bell, b2: Bell):
    return ring_k(o0, go, b0, b1, b2)


@pl.jit.host
def parked(o: pl.Out[pl.Tensor[[2, 4, 1, 1], pl.INT32]]):
    gb = pld.alloc_window_buffer([1, 1], dtype=pl.INT32)
    bb0 = pld.alloc_window_buffer([1, 1], dtype=pl.INT32)
    bb1 = pld.alloc_window_buffer([1, 1], dtype=pl.INT32)
    bb2 = pld.alloc_window_buffer([1, 1], dtype=pl.INT32)
    go = pld.window(gb, [1, 1], dtype=pl.INT32)
    b0 = pld.window(bb0, [1, 1], dtype=pl.INT32)
    b1 = pld.window(bb1, [1, 1], dtype=pl.INT32)
    b2 = pld.window(bb2, [1, 1], dtype=pl.INT32)
    parked_dev(o[0][0], o[0][1], o[0][2], o[0][3], go, b0, b1, b2, device=0)
    ring_dev(o[1][0], go, b0, b1, b2, device=1)


@case("x13_waiters_submitted_before_their_publisher_complete_on_spare_threads", ranks=(2,))
def spare_threads(P):
    o = torch.zeros((2, 4, 1, 1), dtype=torch.int32)
    stats = os.path.join(os.environ.get("TMPDIR", "/tmp"), "pto-x13-%d" % os.getuid())
    os.environ["PTO_COMM_STATS"] = "1"
    try:
        parked(o, config=config(P, num_workers=1, stall_timeout_ms=5000, save_kernels_dir=stats))
    finally:
        del os.environ["PTO_COMM_STATS"]
    equal(o[0].flatten(), torch.tensor([1, 2, 3, 7], dtype=torch.int32), "rank 0's cells")
    check(o[1][0].item() == 1, "rank 1 saw %d go notifies" % o[1][0].item())
    if rank() == 0:
        with open(os.path.join(stats, "dfx_outputs", "rank0", "comm_stats.json")) as f:
            peak = json.load(f)["spare_threads_peak"]
        # at least one waiter handed its slot over (am's acknowledged notifies may add their own)
        check(1 <= peak <= 64, "spare_threads_peak %d, want 1..64" % peak)
