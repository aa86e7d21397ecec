"""An entry whose own DynVars are its file's first constants, calling dyn_kernels.sum_heads."""
import pypto.language as pl

from .dyn_kernels import sum_heads

A = pl.dynamic("A")
B = pl.dynamic("B")


@pl.jit
def two_files(x: pl.Tensor[[A, 16], pl.FP32], y: pl.Tensor[[B, 16], pl.FP32], out: pl.Out[pl.Tensor[[A, 16], pl.FP32]]):
    return sum_heads(x, y, out)
