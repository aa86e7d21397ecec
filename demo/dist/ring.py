"""Ring shift: every rank hands its row to a neighbour through windows, with pld.tensor.put
(to the next rank: y[r] = x[r-1]) or pld.tensor.get (from the next rank: y[r] = x[r+1]),
then a notify/wait pair tells the reader the data is there.
    mpirun -np 4 --oversubscribe /usr/bin/python3 demo/dist/ring.py [put|get]"""
import os
import sys

import torch

import pypto.language as pl
import pypto.language.distributed as pld
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import RunConfig

from report import WORLD, check, comm_summary, per_call_ms, work_dir

W = 128
NR = pl.dynamic("NR")


@pl.jit.incore
def push_next(row: pl.Tensor[[1, W], pl.FP32], out: pl.Out[pl.Tensor[[1, W], pl.FP32]],
              mine: pld.DistributedTensor[[1, W], pl.FP32], got: pld.DistributedTensor[[1, W], pl.FP32],
              ready: pld.DistributedTensor[[1, 1], pl.INT32]):
    ctx = pld.get_comm_ctx(mine)
    nxt = (pld.rank(ctx) + 1) % pld.nranks(ctx)
    mine = pl.store(pl.load(row, [0, 0], [1, W]), [0, 0], mine)
    pld.tensor.put(got, peer=nxt, src=mine, atomic=pld.AtomicType.None_)
    pld.system.notify(ready, peer=nxt, offsets=[0, 0], value=1, op=pld.NotifyOp.AtomicAdd)
    pld.system.wait(ready, offsets=[0, 0], expected=1, cmp=pld.WaitCmp.Ge)
    out = pl.store(pl.load(got, [0, 0], [1, W]), [0, 0], out)
    return out


@pl.jit.incore
def pull_next(row: pl.Tensor[[1, W], pl.FP32], out: pl.Out[pl.Tensor[[1, W], pl.FP32]],
              mine: pld.DistributedTensor[[1, W], pl.FP32], got: pld.DistributedTensor[[1, W], pl.FP32],
              ready: pld.DistributedTensor[[1, 1], pl.INT32]):
    ctx = pld.get_comm_ctx(mine)
    me = pld.rank(ctx)
    n = pld.nranks(ctx)
    mine = pl.store(pl.load(row, [0, 0], [1, W]), [0, 0], mine)
    # the previous rank reads from us: tell it our row is staged, then wait for the next one's word
    pld.system.notify(ready, peer=(me + n - 1) % n, offsets=[0, 0], value=1, op=pld.NotifyOp.AtomicAdd)
    pld.system.wait(ready, offsets=[0, 0], expected=1, cmp=pld.WaitCmp.Ge)
    pld.tensor.get(got, peer=(me + 1) % n, src=mine)
    out = pl.store(pl.load(got, [0, 0], [1, W]), [0, 0], out)
    return out


@pl.jit
def push_here(row: pl.Tensor[[1, W], pl.FP32], out: pl.Out[pl.Tensor[[1, W], pl.FP32]],
              mine: pld.DistributedTensor[[1, W], pl.FP32], got: pld.DistributedTensor[[1, W], pl.FP32],
              ready: pld.DistributedTensor[[1, 1], pl.INT32]):
    return push_next(row, out, mine, got, ready)


@pl.jit
def pull_here(row: pl.Tensor[[1, W], pl.FP32], out: pl.Out[pl.Tensor[[1, W], pl.FP32]],
              mine: pld.DistributedTensor[[1, W], pl.FP32], got: pld.DistributedTensor[[1, W], pl.FP32],
              ready: pld.DistributedTensor[[1, 1], pl.INT32]):
    return pull_next(row, out, mine, got, ready)


@pl.jit.host
def ring_push(x: pl.Tensor[[NR, 1, W], pl.FP32], y: pl.Out[pl.Tensor[[NR, 1, W], pl.FP32]]):
    mine_buf = pld.alloc_window_buffer([1, W], dtype=pl.FP32)
    got_buf = pld.alloc_window_buffer([1, W], dtype=pl.FP32)
    ready_buf = pld.alloc_window_buffer([1, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        mine = pld.window(mine_buf, [1, W], dtype=pl.FP32)
        got = pld.window(got_buf, [1, W], dtype=pl.FP32)
        ready = pld.window(ready_buf, [1, 1], dtype=pl.INT32)
        push_here(x[r], y[r], mine, got, ready, device=r)


@pl.jit.host
def ring_pull(x: pl.Tensor[[NR, 1, W], pl.FP32], y: pl.Out[pl.Tensor[[NR, 1, W], pl.FP32]]):
    mine_buf = pld.alloc_window_buffer([1, W], dtype=pl.FP32)
    got_buf = pld.alloc_window_buffer([1, W], dtype=pl.FP32)
    ready_buf = pld.alloc_window_buffer([1, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        mine = pld.window(mine_buf, [1, W], dtype=pl.FP32)
        got = pld.window(got_buf, [1, W], dtype=pl.FP32)
        ready = pld.window(ready_buf, [1, 1], dtype=pl.INT32)
        pull_here(x[r], y[r], mine, got, ready, device=r)


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "put"
    os.environ["PTO_COMM_STATS"] = "1"
    wd = work_dir("ring-" + mode)
    cfg = RunConfig(platform="a2a3sim", distributed_config=DistributedConfig(device_ids=list(range(WORLD))),
                    save_kernels_dir=wd)
    x = torch.arange(WORLD * W, dtype=torch.float32).reshape(WORLD, 1, W)
    y = torch.zeros_like(x)
    ms = per_call_ms(lambda: (ring_push if mode == "put" else ring_pull)(x, y, config=cfg), 20)
    want = torch.roll(x, 1 if mode == "put" else -1, 0)
    check("ring shift by %s at P=%d: y[r] == x[r%s1]" % (mode, WORLD, "-" if mode == "put" else "+"), torch.equal(y, want), ms)
    comm_summary(wd)


main()
