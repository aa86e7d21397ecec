"""The DSL programs of make bench-dist (DISTRIBUTED-SPEC §7), ours' side of each row.

Tile shapes are compile-time constants, so bench_dist.py loads this file once per size
(sized_module) with the constants set before the body runs:
    L   floats per R1 message          C   floats per R2 allreduce
    W   floats per R3 row              H, G  R4 grid rows (all ranks) and columns
    WORLD  ranks (h = H / WORLD rows per rank in R4)
Every program checks nothing itself; bench_dist.py checks each call's results."""
import pypto.language as pl
import pypto.language.distributed as pld

NR = pl.dynamic("NR")
h = H // WORLD  # noqa: F821 (set by the loader, like every constant above)


# ---- R1: put + notify -> wait ping-pong, and get, inside one kernel per rank ----

@pl.jit.incore
def pingpong_k(n: pl.Scalar[pl.INT64], row: pl.Tensor[[1, L], pl.FP32], out: pl.Out[pl.Tensor[[1, L], pl.FP32]],
               got: pld.DistributedTensor[[1, L], pl.FP32], sig: pld.DistributedTensor[[1, 1], pl.INT32]):
    # round i: rank 0 waits for reply i-1 (none at i = 0), puts, notifies; rank 1 waits for
    # message i, puts back, notifies: 2n one-way messages, each a put and a notify
    ctx = pld.get_comm_ctx(got)
    me = pld.rank(ctx)
    for i in pl.range(n):
        pld.system.wait(sig, offsets=[0, 0], expected=i + me, cmp=pld.WaitCmp.Ge)
        pld.tensor.put(got, peer=1 - me, src=row)
        pld.system.notify(sig, peer=1 - me, offsets=[0, 0], value=1, op=pld.NotifyOp.AtomicAdd)
    pld.system.wait(sig, offsets=[0, 0], expected=n, cmp=pld.WaitCmp.Ge)
    out = pl.store(pl.load(got, [0, 0], [1, L]), [0, 0], out)
    return out


@pl.jit.incore
def get_k(n: pl.Scalar[pl.INT64], row: pl.Tensor[[1, L], pl.FP32], out: pl.Out[pl.Tensor[[1, L], pl.FP32]],
          got: pld.DistributedTensor[[1, L], pl.FP32], sig: pld.DistributedTensor[[1, 1], pl.INT32]):
    # both ranks stage their row and say so; rank 0 then reads rank 1's row n times
    ctx = pld.get_comm_ctx(got)
    me = pld.rank(ctx)
    got = pl.store(pl.load(row, [0, 0], [1, L]), [0, 0], got)
    pld.system.notify(sig, peer=1 - me, offsets=[0, 0], value=1, op=pld.NotifyOp.AtomicAdd)
    pld.system.wait(sig, offsets=[0, 0], expected=1, cmp=pld.WaitCmp.Ge)
    for i in pl.range(n * (1 - me)):
        pld.tensor.get(out, peer=1 - me, src=got)
    return out


@pl.jit
def pingpong_d(n: pl.Scalar[pl.INT64], row: pl.Tensor[[1, L], pl.FP32], out: pl.Out[pl.Tensor[[1, L], pl.FP32]],
               got: pld.DistributedTensor[[1, L], pl.FP32], sig: pld.DistributedTensor[[1, 1], pl.INT32]):
    return pingpong_k(n, row, out, got, sig)


@pl.jit
def get_d(n: pl.Scalar[pl.INT64], row: pl.Tensor[[1, L], pl.FP32], out: pl.Out[pl.Tensor[[1, L], pl.FP32]],
          got: pld.DistributedTensor[[1, L], pl.FP32], sig: pld.DistributedTensor[[1, 1], pl.INT32]):
    return get_k(n, row, out, got, sig)


@pl.jit.host
def pingpong(n: pl.Scalar[pl.INT64], x: pl.Tensor[[NR, 1, L], pl.FP32], y: pl.Out[pl.Tensor[[NR, 1, L], pl.FP32]]):
    got_buf = pld.alloc_window_buffer([1, L], dtype=pl.FP32)
    sig_buf = pld.alloc_window_buffer([1, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        got = pld.window(got_buf, [1, L], dtype=pl.FP32)
        sig = pld.window(sig_buf, [1, 1], dtype=pl.INT32)
        pingpong_d(n, x[r], y[r], got, sig, device=r)


@pl.jit.host
def get_rounds(n: pl.Scalar[pl.INT64], x: pl.Tensor[[NR, 1, L], pl.FP32], y: pl.Out[pl.Tensor[[NR, 1, L], pl.FP32]]):
    got_buf = pld.alloc_window_buffer([1, L], dtype=pl.FP32)
    sig_buf = pld.alloc_window_buffer([1, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        got = pld.window(got_buf, [1, L], dtype=pl.FP32)
        sig = pld.window(sig_buf, [1, 1], dtype=pl.INT32)
        get_d(n, x[r], y[r], got, sig, device=r)


# ---- R2: k back-to-back host allreduces (Sum, FP32) ----

@pl.jit.incore
def stage_k(row: pl.Tensor[[1, C], pl.FP32], acc: pld.DistributedTensor[[1, C], pl.FP32],
            sig: pld.DistributedTensor[[WORLD], pl.INT32]):
    acc = pl.store(pl.load(row, [0, 0], [1, C]), [0, 0], acc)
    return acc


@pl.jit.incore
def unstage_k(acc: pld.DistributedTensor[[1, C], pl.FP32], out: pl.Out[pl.Tensor[[1, C], pl.FP32]]):
    out = pl.store(pl.load(acc, [0, 0], [1, C]), [0, 0], out)
    return out


@pl.jit
def stage_d(row: pl.Tensor[[1, C], pl.FP32], acc: pld.DistributedTensor[[1, C], pl.FP32],
            sig: pld.DistributedTensor[[WORLD], pl.INT32]):
    return stage_k(row, acc, sig)


@pl.jit
def unstage_d(acc: pld.DistributedTensor[[1, C], pl.FP32], out: pl.Out[pl.Tensor[[1, C], pl.FP32]]):
    return unstage_k(acc, out)


@pl.jit.host
def allreduces(k: pl.Scalar[pl.INT64], x: pl.Tensor[[NR, 1, C], pl.FP32], y: pl.Out[pl.Tensor[[NR, 1, C], pl.FP32]]):
    acc_buf = pld.alloc_window_buffer([1, C], dtype=pl.FP32)
    sig_buf = pld.alloc_window_buffer([WORLD], dtype=pl.INT32)
    acc = pld.window(acc_buf, [1, C], dtype=pl.FP32)
    sig = pld.window(sig_buf, [WORLD], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        stage_d(x[r], acc, sig, device=r)
    for i in pl.range(k):
        acc = pld.tensor.allreduce(acc, sig, op=pld.ReduceOp.Sum)
    for r in pl.range(pld.world_size()):
        unstage_d(acc, y[r], device=r)


# ---- R3: upstream's 06 shape (3 windows, one dispatch per rank, rows exchanged) ----

@pl.jit.incore
def push_k(row: pl.Tensor[[1, W], pl.FP32], out: pl.Out[pl.Tensor[[1, W], pl.FP32]],
           mine: pld.DistributedTensor[[1, W], pl.FP32], got: pld.DistributedTensor[[1, W], pl.FP32],
           ready: pld.DistributedTensor[[1, 1], pl.INT32]):
    ctx = pld.get_comm_ctx(mine)
    nxt = (pld.rank(ctx) + 1) % pld.nranks(ctx)
    mine = pl.store(pl.load(row, [0, 0], [1, W]), [0, 0], mine)
    pld.tensor.put(got, peer=nxt, src=mine)
    pld.system.notify(ready, peer=nxt, offsets=[0, 0], value=1, op=pld.NotifyOp.AtomicAdd)
    pld.system.wait(ready, offsets=[0, 0], expected=1, cmp=pld.WaitCmp.Ge)
    out = pl.store(pl.load(got, [0, 0], [1, W]), [0, 0], out)
    return out


@pl.jit
def push_d(row: pl.Tensor[[1, W], pl.FP32], out: pl.Out[pl.Tensor[[1, W], pl.FP32]],
           mine: pld.DistributedTensor[[1, W], pl.FP32], got: pld.DistributedTensor[[1, W], pl.FP32],
           ready: pld.DistributedTensor[[1, 1], pl.INT32]):
    return push_k(row, out, mine, got, ready)


@pl.jit.host
def put_get(x: pl.Tensor[[NR, 1, W], pl.FP32], y: pl.Out[pl.Tensor[[NR, 1, W], pl.FP32]]):
    mine_buf = pld.alloc_window_buffer([1, W], dtype=pl.FP32)
    got_buf = pld.alloc_window_buffer([1, W], dtype=pl.FP32)
    ready_buf = pld.alloc_window_buffer([1, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        mine = pld.window(mine_buf, [1, W], dtype=pl.FP32)
        got = pld.window(got_buf, [1, W], dtype=pl.FP32)
        ready = pld.window(ready_buf, [1, 1], dtype=pl.INT32)
        push_d(x[r], y[r], mine, got, ready, device=r)


@pl.jit.incore
def copy_k(row: pl.Tensor[[1, W], pl.FP32], out: pl.Out[pl.Tensor[[1, W], pl.FP32]]):
    out = pl.store(pl.load(row, [0, 0], [1, W]), [0, 0], out)
    return out


@pl.jit
def copy_row(row: pl.Tensor[[1, W], pl.FP32], out: pl.Out[pl.Tensor[[1, W], pl.FP32]]):
    """R3's single-process reference: the kernel's local work, no windows."""
    return copy_k(row, out)


# ---- R4: periodic-row 2-D Jacobi stencil, halos by put + notify/wait ----
# Rank r holds rows [r*h, (r+1)*h) of the H x G grid in a window of h+2 rows and G+2
# columns (row 0 and h+1: halos; columns 0 and G+1: zero borders).  Two windows, a and b,
# alternate as source and destination.  After a step writes dst, the rank puts dst's first
# and last interior rows into the halos of its up and down neighbours' dst and notifies
# each, in one counter per direction (sig[0, 0]: from the rank above, sig[0, 1]: from the
# rank below; one counter for both would let a neighbour one step ahead stand in for the
# other); the next step reads dst once both counters reached the step.  The halo writes of
# step s+1 into a neighbour's copy follow that neighbour's notify of step s, which it
# issues after reading that copy as its source: no write-after-read race.

@pl.jit.incore
def stencil_k(n2: pl.Scalar[pl.INT64], delay: pl.Tensor[[1, 1], pl.INT32], x: pl.Tensor[[h, G], pl.FP32],
              out: pl.Out[pl.Tensor[[h, G], pl.FP32]], a: pld.DistributedTensor[[h + 2, G + 2], pl.FP32],
              b: pld.DistributedTensor[[h + 2, G + 2], pl.FP32], busy: pld.DistributedTensor[[1, G], pl.FP32],
              sig: pld.DistributedTensor[[1, 2], pl.INT32]):
    # n2 double steps (a -> b -> a); delay: iterations of a busy loop run before each publish
    # (R4b: rank 0 only; the DSL has no sleep)
    ctx = pld.get_comm_ctx(a)
    me = pld.rank(ctx)
    up = (me + pld.nranks(ctx) - 1) % pld.nranks(ctx)
    dn = (me + 1) % pld.nranks(ctx)
    d = pl.read(delay, [0, 0])
    a = pl.store(pl.load(x, [0, 0], [h, G]), [1, 1], a)
    pld.tensor.put(a, peer=up, src=a, dst_offsets=[h + 1, 0], src_offsets=[1, 0], shape=[1, G + 2])
    pld.tensor.put(a, peer=dn, src=a, dst_offsets=[0, 0], src_offsets=[h, 0], shape=[1, G + 2])
    pld.system.notify(sig, peer=up, offsets=[0, 1], value=1, op=pld.NotifyOp.AtomicAdd)
    pld.system.notify(sig, peer=dn, offsets=[0, 0], value=1, op=pld.NotifyOp.AtomicAdd)
    pld.system.wait(sig, offsets=[0, 0], expected=1, cmp=pld.WaitCmp.Ge)
    pld.system.wait(sig, offsets=[0, 1], expected=1, cmp=pld.WaitCmp.Ge)
    for i in pl.range(n2):
        s = pl.add(pl.add(pl.load(a, [0, 1], [h, G]), pl.load(a, [2, 1], [h, G])),
                   pl.add(pl.load(a, [1, 0], [h, G]), pl.load(a, [1, 2], [h, G])))
        b = pl.store(pl.mul(s, 0.25), [1, 1], b)
        for j in pl.range(d):
            busy = pl.store(pl.exp(pl.load(busy, [0, 0], [1, G])), [0, 0], busy)
        pld.tensor.put(b, peer=up, src=b, dst_offsets=[h + 1, 0], src_offsets=[1, 0], shape=[1, G + 2])
        pld.tensor.put(b, peer=dn, src=b, dst_offsets=[0, 0], src_offsets=[h, 0], shape=[1, G + 2])
        pld.system.notify(sig, peer=up, offsets=[0, 1], value=1, op=pld.NotifyOp.AtomicAdd)
        pld.system.notify(sig, peer=dn, offsets=[0, 0], value=1, op=pld.NotifyOp.AtomicAdd)
        pld.system.wait(sig, offsets=[0, 0], expected=2 * i + 2, cmp=pld.WaitCmp.Ge)
        pld.system.wait(sig, offsets=[0, 1], expected=2 * i + 2, cmp=pld.WaitCmp.Ge)
        s = pl.add(pl.add(pl.load(b, [0, 1], [h, G]), pl.load(b, [2, 1], [h, G])),
                   pl.add(pl.load(b, [1, 0], [h, G]), pl.load(b, [1, 2], [h, G])))
        a = pl.store(pl.mul(s, 0.25), [1, 1], a)
        for j in pl.range(d):
            busy = pl.store(pl.exp(pl.load(busy, [0, 0], [1, G])), [0, 0], busy)
        pld.tensor.put(a, peer=up, src=a, dst_offsets=[h + 1, 0], src_offsets=[1, 0], shape=[1, G + 2])
        pld.tensor.put(a, peer=dn, src=a, dst_offsets=[0, 0], src_offsets=[h, 0], shape=[1, G + 2])
        pld.system.notify(sig, peer=up, offsets=[0, 1], value=1, op=pld.NotifyOp.AtomicAdd)
        pld.system.notify(sig, peer=dn, offsets=[0, 0], value=1, op=pld.NotifyOp.AtomicAdd)
        pld.system.wait(sig, offsets=[0, 0], expected=2 * i + 3, cmp=pld.WaitCmp.Ge)
        pld.system.wait(sig, offsets=[0, 1], expected=2 * i + 3, cmp=pld.WaitCmp.Ge)
    out = pl.store(pl.load(a, [1, 1], [h, G]), [0, 0], out)
    return out


@pl.jit
def stencil_d(n2: pl.Scalar[pl.INT64], delay: pl.Tensor[[1, 1], pl.INT32], x: pl.Tensor[[h, G], pl.FP32],
              out: pl.Out[pl.Tensor[[h, G], pl.FP32]], a: pld.DistributedTensor[[h + 2, G + 2], pl.FP32],
              b: pld.DistributedTensor[[h + 2, G + 2], pl.FP32], busy: pld.DistributedTensor[[1, G], pl.FP32],
              sig: pld.DistributedTensor[[1, 2], pl.INT32]):
    return stencil_k(n2, delay, x, out, a, b, busy, sig)


@pl.jit.host
def stencil(n2: pl.Scalar[pl.INT64], delay: pl.Tensor[[NR, 1, 1], pl.INT32], x: pl.Tensor[[NR, h, G], pl.FP32],
            y: pl.Out[pl.Tensor[[NR, h, G], pl.FP32]]):
    a_buf = pld.alloc_window_buffer([h + 2, G + 2], dtype=pl.FP32)
    b_buf = pld.alloc_window_buffer([h + 2, G + 2], dtype=pl.FP32)
    busy_buf = pld.alloc_window_buffer([1, G], dtype=pl.FP32)
    sig_buf = pld.alloc_window_buffer([1, 2], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        a = pld.window(a_buf, [h + 2, G + 2], dtype=pl.FP32)
        b = pld.window(b_buf, [h + 2, G + 2], dtype=pl.FP32)
        busy = pld.window(busy_buf, [1, G], dtype=pl.FP32)
        sig = pld.window(sig_buf, [1, 2], dtype=pl.INT32)
        stencil_d(n2, delay[r], x[r], y[r], a, b, busy, sig, device=r)
