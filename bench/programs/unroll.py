# C1's unroll rows (bench/run.sh): pl.unroll with 100, 1,000 and 4,096
# copies of a one-task body (4,096 is the copy limit), compiled with
# a, out = [256, 128] FP32; the compile time should grow linearly in the copies.
import pypto.language as pl


@pl.jit
def unroll_100(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    for i in pl.unroll(100):
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(a, [(i % 16) * 16, 0], [16, 128])
            pl.store(pl.add(t, 1.0), [(i % 16) * 16, 0], out)
    return out


@pl.jit
def unroll_1000(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    for i in pl.unroll(1000):
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(a, [(i % 16) * 16, 0], [16, 128])
            pl.store(pl.add(t, 1.0), [(i % 16) * 16, 0], out)
    return out


@pl.jit
def unroll_4096(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    for i in pl.unroll(4096):
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(a, [(i % 16) * 16, 0], [16, 128])
            pl.store(pl.add(t, 1.0), [(i % 16) * 16, 0], out)
    return out
