"""X11 and the §6.3 collective rows: every host collective at P = 2, 3, 4 vs torch.  allreduce
Sum/Max/Min/Prod on FP32 and FP16 windows, with an explicit signal and with a synthesised
one; barrier, broadcast root=1, allgather, reduce_scatter and all_to_all in one call; the
explicit signals are all-zero afterwards.  Data are small integers (and products of ±1, ±2),
so every reduction order gives torch's exact result."""
import pypto.language as pl
import pypto.language.distributed as pld
import torch

from distcase import case, config, equal, seeded

W = pl.dynamic("W")
N = 64


@pl.jit.incore
def fill8_k(x: pl.Tensor[[4, N], pl.FP32],
            s0: pld.DistributedTensor[[1, N], pl.FP32], s1: pld.DistributedTensor[[1, N], pl.FP32],
            s2: pld.DistributedTensor[[1, N], pl.FP32], s3: pld.DistributedTensor[[1, N], pl.FP32],
            h0: pld.DistributedTensor[[1, N], pl.FP16], h1: pld.DistributedTensor[[1, N], pl.FP16],
            h2: pld.DistributedTensor[[1, N], pl.FP16], h3: pld.DistributedTensor[[1, N], pl.FP16]):
    s0 = pl.store(pl.load(x, [0, 0], [1, N]), [0, 0], s0)
    s1 = pl.store(pl.load(x, [1, 0], [1, N]), [0, 0], s1)
    s2 = pl.store(pl.load(x, [2, 0], [1, N]), [0, 0], s2)
    s3 = pl.store(pl.load(x, [3, 0], [1, N]), [0, 0], s3)
    h0 = pl.store(pl.cast(pl.load(x, [0, 0], [1, N]), target_type=pl.FP16), [0, 0], h0)
    h1 = pl.store(pl.cast(pl.load(x, [1, 0], [1, N]), target_type=pl.FP16), [0, 0], h1)
    h2 = pl.store(pl.cast(pl.load(x, [2, 0], [1, N]), target_type=pl.FP16), [0, 0], h2)
    h3 = pl.store(pl.cast(pl.load(x, [3, 0], [1, N]), target_type=pl.FP16), [0, 0], h3)
    return h3


@pl.jit
def fill8_dev(x: pl.Tensor[[4, N], pl.FP32],
              s0: pld.DistributedTensor[[1, N], pl.FP32], s1: pld.DistributedTensor[[1, N], pl.FP32],
              s2: pld.DistributedTensor[[1, N], pl.FP32], s3: pld.DistributedTensor[[1, N], pl.FP32],
              h0: pld.DistributedTensor[[1, N], pl.FP16], h1: pld.DistributedTensor[[1, N], pl.FP16],
              h2: pld.DistributedTensor[[1, N], pl.FP16], h3: pld.DistributedTensor[[1, N], pl.FP16]):
    fill8_k(x, s0, s1, s2, s3, h0, h1, h2, h3)


@pl.jit.incore
def drain8_k(y: pl.Out[pl.Tensor[[8, N], pl.FP32]],
             s0: pld.DistributedTensor[[1, N], pl.FP32], s1: pld.DistributedTensor[[1, N], pl.FP32],
             s2: pld.DistributedTensor[[1, N], pl.FP32], s3: pld.DistributedTensor[[1, N], pl.FP32],
             h0: pld.DistributedTensor[[1, N], pl.FP16], h1: pld.DistributedTensor[[1, N], pl.FP16],
             h2: pld.DistributedTensor[[1, N], pl.FP16], h3: pld.DistributedTensor[[1, N], pl.FP16]):
    y = pl.store(pl.load(s0, [0, 0], [1, N]), [0, 0], y)
    y = pl.store(pl.load(s1, [0, 0], [1, N]), [1, 0], y)
    y = pl.store(pl.load(s2, [0, 0], [1, N]), [2, 0], y)
    y = pl.store(pl.load(s3, [0, 0], [1, N]), [3, 0], y)
    y = pl.store(pl.cast(pl.load(h0, [0, 0], [1, N]), target_type=pl.FP32), [4, 0], y)
    y = pl.store(pl.cast(pl.load(h1, [0, 0], [1, N]), target_type=pl.FP32), [5, 0], y)
    y = pl.store(pl.cast(pl.load(h2, [0, 0], [1, N]), target_type=pl.FP32), [6, 0], y)
    y = pl.store(pl.cast(pl.load(h3, [0, 0], [1, N]), target_type=pl.FP32), [7, 0], y)
    return y


@pl.jit
def drain8_dev(y: pl.Out[pl.Tensor[[8, N], pl.FP32]],
               s0: pld.DistributedTensor[[1, N], pl.FP32], s1: pld.DistributedTensor[[1, N], pl.FP32],
               s2: pld.DistributedTensor[[1, N], pl.FP32], s3: pld.DistributedTensor[[1, N], pl.FP32],
               h0: pld.DistributedTensor[[1, N], pl.FP16], h1: pld.DistributedTensor[[1, N], pl.FP16],
               h2: pld.DistributedTensor[[1, N], pl.FP16], h3: pld.DistributedTensor[[1, N], pl.FP16]):
    return drain8_k(y, s0, s1, s2, s3, h0, h1, h2, h3)


@pl.jit.incore
def zeros_k(z: pl.Out[pl.Tensor[[4], pl.INT32]], sig: pld.DistributedTensor[[W], pl.INT32]):
    for j in pl.range(pld.nranks(pld.get_comm_ctx(sig))):
        pl.write(z, [j], pl.read(sig, [j]))
    return z


@pl.jit
def zeros_dev(z: pl.Out[pl.Tensor[[4], pl.INT32]], sig: pld.DistributedTensor[[W], pl.INT32]):
    return zeros_k(z, sig)


@pl.jit.host
def reduce8_signalled(x: pl.Tensor[[W, 4, N], pl.FP32], y: pl.Out[pl.Tensor[[W, 8, N], pl.FP32]],
                      z: pl.Out[pl.Tensor[[W, 4], pl.INT32]]):
    b0 = pld.alloc_window_buffer([1, N], dtype=pl.FP32)
    b1 = pld.alloc_window_buffer([1, N], dtype=pl.FP32)
    b2 = pld.alloc_window_buffer([1, N], dtype=pl.FP32)
    b3 = pld.alloc_window_buffer([1, N], dtype=pl.FP32)
    c0 = pld.alloc_window_buffer([1, N], dtype=pl.FP16)
    c1 = pld.alloc_window_buffer([1, N], dtype=pl.FP16)
    c2 = pld.alloc_window_buffer([1, N], dtype=pl.FP16)
    c3 = pld.alloc_window_buffer([1, N], dtype=pl.FP16)
    gb = pld.alloc_window_buffer([pld.world_size()], dtype=pl.INT32)
    s0 = pld.window(b0, [1, N], dtype=pl.FP32)
    s1 = pld.window(b1, [1, N], dtype=pl.FP32)
    s2 = pld.window(b2, [1, N], dtype=pl.FP32)
    s3 = pld.window(b3, [1, N], dtype=pl.FP32)
    h0 = pld.window(c0, [1, N], dtype=pl.FP16)
    h1 = pld.window(c1, [1, N], dtype=pl.FP16)
    h2 = pld.window(c2, [1, N], dtype=pl.FP16)
    h3 = pld.window(c3, [1, N], dtype=pl.FP16)
    g = pld.window(gb, [W], dtype=pl.INT32)
    for q in pl.range(pld.world_size()):
        fill8_dev(x[q], s0, s1, s2, s3, h0, h1, h2, h3, device=q)
    s0 = pld.tensor.allreduce(s0, g, op=pld.ReduceOp.Sum)
    s1 = pld.tensor.allreduce(s1, g, op=pld.ReduceOp.Max)
    s2 = pld.tensor.allreduce(s2, g, op=pld.ReduceOp.Min)
    s3 = pld.tensor.allreduce(s3, g, op=pld.ReduceOp.Prod)
    h0 = pld.tensor.allreduce(h0, g, op=pld.ReduceOp.Sum)
    h1 = pld.tensor.allreduce(h1, g, op=pld.ReduceOp.Max)
    h2 = pld.tensor.allreduce(h2, g, op=pld.ReduceOp.Min)
    h3 = pld.tensor.allreduce(h3, g, op=pld.ReduceOp.Prod)
    for q in pl.range(pld.world_size()):
        drain8_dev(y[q], s0, s1, s2, s3, h0, h1, h2, h3, device=q)
        zeros_dev(z[q], g, device=q)


@pl.jit.host
def reduce8_bare(x: pl.Tensor[[W, 4, N], pl.FP32], y: pl.Out[pl.Tensor[[W, 8, N], pl.FP32]]):
    b0 = pld.alloc_window_buffer([1, N], dtype=pl.FP32)
    b1 = pld.alloc_window_buffer([1, N], dtype=pl.FP32)
    b2 = pld.alloc_window_buffer([1, N], dtype=pl.FP32)
    b3 = pld.alloc_window_buffer([1, N], dtype=pl.FP32)
    c0 = pld.alloc_window_buffer([1, N], dtype=pl.FP16)
    c1 = pld.alloc_window_buffer([1, N], dtype=pl.FP16)
    c2 = pld.alloc_window_buffer([1, N], dtype=pl.FP16)
    c3 = pld.alloc_window_buffer([1, N], dtype=pl.FP16)
    s0 = pld.window(b0, [1, N], dtype=pl.FP32)
    s1 = pld.window(b1, [1, N], dtype=pl.FP32)
    s2 = pld.window(b2, [1, N], dtype=pl.FP32)
    s3 = pld.window(b3, [1, N], dtype=pl.FP32)
    h0 = pld.window(c0, [1, N], dtype=pl.FP16)
    h1 = pld.window(c1, [1, N], dtype=pl.FP16)
    h2 = pld.window(c2, [1, N], dtype=pl.FP16)
    h3 = pld.window(c3, [1, N], dtype=pl.FP16)
    for q in pl.range(pld.world_size()):
        fill8_dev(x[q], s0, s1, s2, s3, h0, h1, h2, h3, device=q)
    s0 = pld.tensor.allreduce(s0, op=pld.ReduceOp.Sum)
    s1 = pld.tensor.allreduce(s1, op=pld.ReduceOp.Max)
    s2 = pld.tensor.allreduce(s2, op=pld.ReduceOp.Min)
    s3 = pld.tensor.allreduce(s3, op=pld.ReduceOp.Prod)
    h0 = pld.tensor.allreduce(h0, op=pld.ReduceOp.Sum)
    h1 = pld.tensor.allreduce(h1, op=pld.ReduceOp.Max)
    h2 = pld.tensor.allreduce(h2, op=pld.ReduceOp.Min)
    h3 = pld.tensor.allreduce(h3, op=pld.ReduceOp.Prod)
    for q in pl.range(pld.world_size()):
        drain8_dev(y[q], s0, s1, s2, s3, h0, h1, h2, h3, device=q)


def reduced8(x):
    """What every rank's y holds: rows 0-3 Sum/Max/Min/Prod of x's rows 0-3 over ranks, rows 4-7 the same."""
    r = torch.stack([x[:, 0].sum(0), x[:, 1].amax(0), x[:, 2].amin(0), x[:, 3].prod(0)])
    return torch.cat([r, r]).expand(x.shape[0], 8, N).contiguous()


def pm12(P):
    """Rank-seeded values from {-2, -1, 1, 2}: every sum and product over <= 4 ranks is exact in FP16."""
    g = seeded(None)
    mag = torch.randint(1, 3, (P, 4, N), generator=g).float()
    return torch.where(torch.randint(0, 2, (P, 4, N), generator=g) == 1, mag, -mag)


@case("x11_allreduce_four_ops_fp32_fp16_with_signal_and_signal_stays_zero", ranks=(2, 3, 4))
def allreduce_signalled(P):
    x = pm12(P)
    y = torch.zeros((P, 8, N))
    z = torch.full((P, 4), -3, dtype=torch.int32)
    reduce8_signalled(x, y, z, config=config(P))
    equal(y, reduced8(x), "y")
    equal(z, torch.tensor([[0 if j < P else -3 for j in range(4)]] * P, dtype=torch.int32), "signal cells")


@case("x11_allreduce_four_ops_fp32_fp16_with_synthesised_signal", ranks=(2, 3, 4))
def allreduce_bare(P):
    x = pm12(P)
    y = torch.zeros((P, 8, N))
    reduce8_bare(x, y, config=config(P))
    equal(y, reduced8(x), "y")


@pl.jit.incore
def stage_k(x: pl.Tensor[[4, N], pl.FP32], bc: pld.DistributedTensor[[1, N], pl.FP32],
            gs: pld.DistributedTensor[[1, N], pl.FP32], rs: pld.DistributedTensor[[W, N], pl.FP32],
            ts: pld.DistributedTensor[[W, N], pl.FP32]):
    n = pld.nranks(pld.get_comm_ctx(bc))
    bc = pl.store(pl.load(x, [0, 0], [1, N]), [0, 0], bc)
    gs = pl.store(pl.load(x, [1, 0], [1, N]), [0, 0], gs)
    for j in pl.range(n):
        rs = pl.store(pl.load(x, [j, 0], [1, N]), [j, 0], rs)
        ts = pl.store(pl.add(pl.load(x, [j, 0], [1, N]), 0.5), [j, 0], ts)
    return ts


@pl.jit
def stage_dev(x: pl.Tensor[[4, N], pl.FP32], bc: pld.DistributedTensor[[1, N], pl.FP32],
              gs: pld.DistributedTensor[[1, N], pl.FP32], rs: pld.DistributedTensor[[W, N], pl.FP32],
              ts: pld.DistributedTensor[[W, N], pl.FP32]):
    stage_k(x, bc, gs, rs, ts)


@pl.jit.incore
def collect_k(ob: pl.Out[pl.Tensor[[1, N], pl.FP32]], og: pl.Out[pl.Tensor[[4, N], pl.FP32]],
              orr: pl.Out[pl.Tensor[[1, N], pl.FP32]], ot: pl.Out[pl.Tensor[[4, N], pl.FP32]],
              z: pl.Out[pl.Tensor[[4], pl.INT32]],
              bc: pld.DistributedTensor[[1, N], pl.FP32], gd: pld.DistributedTensor[[W, N], pl.FP32],
              rs: pld.DistributedTensor[[W, N], pl.FP32], td: pld.DistributedTensor[[W, N], pl.FP32],
              sig: pld.DistributedTensor[[W], pl.INT32]):
    ctx = pld.get_comm_ctx(bc)
    me = pld.rank(ctx)
    ob = pl.store(pl.load(bc, [0, 0], [1, N]), [0, 0], ob)
    orr = pl.store(pl.load(rs, [me, 0], [1, N]), [0, 0], orr)
    for j in pl.range(pld.nranks(ctx)):
        og = pl.store(pl.load(gd, [j, 0], [1, N]), [j, 0], og)
        ot = pl.store(pl.load(td, [j, 0], [1, N]), [j, 0], ot)
        pl.write(z, [j], pl.read(sig, [j]))
    return ob, og, orr, ot, z


@pl.jit
def collect_dev(ob: pl.Out[pl.Tensor[[1, N], pl.FP32]], og: pl.Out[pl.Tensor[[4, N], pl.FP32]],
                orr: pl.Out[pl.Tensor[[1, N], pl.FP32]], ot: pl.Out[pl.Tensor[[4, N], pl.FP32]],
                z: pl.Out[pl.Tensor[[4], pl.INT32]],
                bc: pld.DistributedTensor[[1, N], pl.FP32], gd: pld.DistributedTensor[[W, N], pl.FP32],
                rs: pld.DistributedTensor[[W, N], pl.FP32], td: pld.DistributedTensor[[W, N], pl.FP32],
                sig: pld.DistributedTensor[[W], pl.INT32]):
    return collect_k(ob, og, orr, ot, z, bc, gd, rs, td, sig)


@pl.jit.host
def five_collectives(x: pl.Tensor[[W, 4, N], pl.FP32], ob: pl.Out[pl.Tensor[[W, 1, N], pl.FP32]],
                     og: pl.Out[pl.Tensor[[W, 4, N], pl.FP32]], orr: pl.Out[pl.Tensor[[W, 1, N], pl.FP32]],
                     ot: pl.Out[pl.Tensor[[W, 4, N], pl.FP32]], z: pl.Out[pl.Tensor[[W, 4], pl.INT32]]):
    bcb = pld.alloc_window_buffer([1, N], dtype=pl.FP32)
    gsb = pld.alloc_window_buffer([1, N], dtype=pl.FP32)
    gdb = pld.alloc_window_buffer([pld.world_size(), N], dtype=pl.FP32)
    rsb = pld.alloc_window_buffer([pld.world_size(), N], dtype=pl.FP32)
    tsb = pld.alloc_window_buffer([pld.world_size(), N], dtype=pl.FP32)
    tdb = pld.alloc_window_buffer([pld.world_size(), N], dtype=pl.FP32)
    sgb = pld.alloc_window_buffer([pld.world_size()], dtype=pl.INT32)
    bc = pld.window(bcb, [1, N], dtype=pl.FP32)
    gs = pld.window(gsb, [1, N], dtype=pl.FP32)
    gd = pld.window(gdb, [W, N], dtype=pl.FP32)
    rs = pld.window(rsb, [W, N], dtype=pl.FP32)
    ts = pld.window(tsb, [W, N], dtype=pl.FP32)
    td = pld.window(tdb, [W, N], dtype=pl.FP32)
    sig = pld.window(sgb, [W], dtype=pl.INT32)
    for q in pl.range(pld.world_size()):
        stage_dev(x[q], bc, gs, rs, ts, device=q)
    sig = pld.tensor.barrier(sig)
    pld.tensor.broadcast(bc, sig, root=1)
    pld.tensor.allgather(gs, gd, sig)
    pld.tensor.reduce_scatter(rs, sig, op=pld.ReduceOp.Sum)
    pld.tensor.all_to_all(ts, td, sig)
    for q in pl.range(pld.world_size()):
        collect_dev(ob[q], og[q], orr[q], ot[q], z[q], bc, gd, rs, td, sig, device=q)


@case("x11_barrier_broadcast_root1_allgather_reduce_scatter_all_to_all", ranks=(2, 3, 4))
def five(P):
    x = torch.randint(-40, 40, (P, 4, N), generator=seeded(None)).float()
    ob, orr = torch.zeros((P, 1, N)), torch.zeros((P, 1, N))
    og, ot = torch.full((P, 4, N), 9.0), torch.full((P, 4, N), 9.0)
    z = torch.full((P, 4), -3, dtype=torch.int32)
    five_collectives(x, ob, og, orr, ot, z, config=config(P))
    ranks = range(P)
    equal(ob, x[1, 0].expand(P, 1, N).contiguous(), "broadcast root=1")
    gathered = torch.cat([x[:, 1], torch.full((4 - P, N), 9.0)])
    equal(og, gathered.expand(P, 4, N).contiguous(), "allgather")
    equal(orr, torch.stack([x[:, q].sum(0, keepdim=True) for q in ranks]), "reduce_scatter")
    want = torch.full((P, 4, N), 9.0)
    for q in ranks:
        for j in ranks:
            want[q, j] = x[j, q] + 0.5
    equal(ot, want, "all_to_all")
    equal(z, torch.tensor([[0 if j < P else -3 for j in range(4)]] * P, dtype=torch.int32), "signal cells")
