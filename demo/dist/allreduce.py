"""Host allreduce: each rank stages its row in a window, the host program sums the window
over all ranks with pld.tensor.allreduce, and each rank copies the sum back out, so every
y[r] holds the sum of all x rows.
    mpirun -np 2 /usr/bin/python3 demo/dist/allreduce.py"""
import os

import torch

import pypto.language as pl
import pypto.language.distributed as pld
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import RunConfig

from report import WORLD, check, comm_summary, per_call_ms, work_dir

W = 256
NR = pl.dynamic("NR")


@pl.jit.incore
def stage(row: pl.Tensor[[1, W], pl.FP32], acc: pld.DistributedTensor[[1, W], pl.FP32],
          sig: pld.DistributedTensor[[WORLD], pl.INT32]):
    acc = pl.store(pl.load(row, [0, 0], [1, W]), [0, 0], acc)
    return acc


@pl.jit.incore
def unstage(acc: pld.DistributedTensor[[1, W], pl.FP32], out: pl.Out[pl.Tensor[[1, W], pl.FP32]]):
    out = pl.store(pl.load(acc, [0, 0], [1, W]), [0, 0], out)
    return out


@pl.jit
def stage_here(row: pl.Tensor[[1, W], pl.FP32], acc: pld.DistributedTensor[[1, W], pl.FP32],
               sig: pld.DistributedTensor[[WORLD], pl.INT32]):
    return stage(row, acc, sig)  # sig: the allreduce's signal, handed to a dispatch as every window must be


@pl.jit
def unstage_here(acc: pld.DistributedTensor[[1, W], pl.FP32], out: pl.Out[pl.Tensor[[1, W], pl.FP32]]):
    return unstage(acc, out)


@pl.jit.host
def sum_rows(x: pl.Tensor[[NR, 1, W], pl.FP32], y: pl.Out[pl.Tensor[[NR, 1, W], pl.FP32]]):
    acc_buf = pld.alloc_window_buffer([1, W], dtype=pl.FP32)
    sig_buf = pld.alloc_window_buffer([WORLD], dtype=pl.INT32)
    acc = pld.window(acc_buf, [1, W], dtype=pl.FP32)
    sig = pld.window(sig_buf, [WORLD], dtype=pl.INT32)  # the rank count of this launch
    for r in pl.range(pld.world_size()):
        stage_here(x[r], acc, sig, device=r)
    acc = pld.tensor.allreduce(acc, sig, op=pld.ReduceOp.Sum)
    for r in pl.range(pld.world_size()):
        unstage_here(acc, y[r], device=r)


def main():
    os.environ["PTO_COMM_STATS"] = "1"
    wd = work_dir("allreduce")
    cfg = RunConfig(platform="a2a3sim", distributed_config=DistributedConfig(device_ids=list(range(WORLD))),
                    save_kernels_dir=wd)
    x = torch.arange(WORLD * W, dtype=torch.float32).reshape(WORLD, 1, W)
    y = torch.zeros_like(x)
    ms = per_call_ms(lambda: sum_rows(x, y, config=cfg), 20)
    check("host allreduce at P=%d: y[r] == sum of x rows" % WORLD, torch.equal(y, x.sum(0, keepdim=True).expand_as(y)), ms)
    comm_summary(wd)


main()
