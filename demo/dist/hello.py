"""Hello ranks: every rank stamps its own row with its rank number (y[r] = x[r] + r), one
dispatch per rank placed by device=r; afterwards every rank holds all rows.
    mpirun -np 2 /usr/bin/python3 demo/dist/hello.py"""
import os

import torch

import pypto.language as pl
import pypto.language.distributed as pld
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import RunConfig

from report import WORLD, check, comm_summary, per_call_ms, say, work_dir

W = 16
NR = pl.dynamic("NR")


@pl.jit.incore
def stamp(row: pl.Tensor[[1, W], pl.FP32], out: pl.Out[pl.Tensor[[1, W], pl.FP32]], who: pl.Scalar[pl.INT32]):
    t = pl.add(pl.load(row, [0, 0], [1, W]), pl.cast(who, target_type=pl.FP32))
    out = pl.store(t, [0, 0], out)
    return out


@pl.jit
def stamp_here(row: pl.Tensor[[1, W], pl.FP32], out: pl.Out[pl.Tensor[[1, W], pl.FP32]], who: pl.Scalar[pl.INT32]):
    return stamp(row, out, who)


@pl.jit.host
def stamp_all(x: pl.Tensor[[NR, 1, W], pl.FP32], y: pl.Out[pl.Tensor[[NR, 1, W], pl.FP32]]):
    for r in pl.range(pld.world_size()):
        stamp_here(x[r], y[r], r, device=r)


def main():
    os.environ["PTO_COMM_STATS"] = "1"
    wd = work_dir("hello")
    cfg = RunConfig(platform="a2a3sim", distributed_config=DistributedConfig(device_ids=list(range(WORLD))),
                    save_kernels_dir=wd)
    x = torch.ones(WORLD, 1, W)
    y = torch.zeros_like(x)
    ms = per_call_ms(lambda: stamp_all(x, y, config=cfg), 20)
    want = x + torch.arange(WORLD, dtype=torch.float32).reshape(WORLD, 1, 1)
    say("hello from rank %s of %d" % (os.environ.get("OMPI_COMM_WORLD_RANK", "0"), WORLD))
    check("hello ranks: y[r] == x[r] + r on every row", torch.equal(y, want), ms)
    comm_summary(wd)


main()
