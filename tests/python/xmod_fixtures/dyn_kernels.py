"""A kernel module with DynVars of its own (its first constants), for test_cross_module_kernels."""
import pypto.language as pl

K = pl.dynamic("K")
R = pl.dynamic("R")


@pl.jit.incore
def sum_heads(x: pl.Tensor[[R, 16], pl.FP32], y: pl.Tensor[[K, 16], pl.FP32], out: pl.Out[pl.Tensor[[R, 16], pl.FP32]]):
    # rows 0..7 of out = x's first rows + y's last rows; R and K read as values
    t = pl.add(pl.load(x, [0, 0], [8, 16]), pl.load(y, [K - 8, 0], [8, 16]))
    out = pl.store(pl.add(t, pl.cast(R, pl.FP32)), [0, 0], out)
    return out
