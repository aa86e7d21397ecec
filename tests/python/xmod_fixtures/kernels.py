"""Kernels of their own file: an incore and an inline one, reading constants
this file imports (ROWS, COLS) and one it assigns itself (SCALE, 3.0 here,
2.0 in config.py and in the entry's file)."""
import pypto.language as pl

from .config import COLS, ROWS

SCALE = 3.0


@pl.jit.incore
def scale_rows(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    t = pl.load(a, [0, 0], [ROWS, COLS])
    pl.store(pl.mul(t, SCALE), [0, 0], out)
    return out


@pl.jit.inline
def add_then_scale(a, b, out):
    s = pl.create_tensor([ROWS, COLS], dtype=pl.FP32)
    s = add_kernel(a, b, s)
    out = scale_rows(s, out)
    return out


@pl.jit.incore
def add_kernel(a: pl.Tensor, b: pl.Tensor, out: pl.Out[pl.Tensor]):
    x = pl.load(a, [0, 0], [ROWS, COLS])
    y = pl.load(b, [0, 0], [ROWS, COLS])
    pl.store(pl.add(x, y), [0, 0], out)
    return out


@pl.function(type=pl.FunctionType.InCore)
def negate(a: pl.Tensor[[8, 16], pl.FP32], o: pl.Out[pl.Tensor[[8, 16], pl.FP32]]) -> pl.Tensor[[8, 16], pl.FP32]:
    o = pl.store(pl.mul(pl.load(a, [0, 0], [ROWS, COLS]), -SCALE), [0, 0], o)
    return o
