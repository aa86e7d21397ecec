"""Entries calling kernels of kernels.py and other_kernels.py, under their
own names and under aliases; SCALE here is config.py's 2.0."""
import pypto.language as pl

from .config import COLS, ROWS, SCALE
from .kernels import add_then_scale, negate, scale_rows
from .kernels import scale_rows as triple
from .other_kernels import scale_rows as quintuple


@pl.jit
def inline_and_incore(a: pl.Tensor, b: pl.Tensor, out: pl.Out[pl.Tensor]):
    out = add_then_scale(a, b, out)
    return out


@pl.jit.incore
def double(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    pl.store(pl.mul(pl.load(a, [0, 0], [ROWS, COLS]), SCALE), [0, 0], out)
    return out


@pl.jit
def shadowed(a: pl.Tensor, x2: pl.Out[pl.Tensor], x3: pl.Out[pl.Tensor], x5: pl.Out[pl.Tensor]):
    x2 = double(a, x2)
    x3 = scale_rows(a, x3)
    x5 = quintuple(a, x5)
    return x5


@pl.jit
def aliased(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    out = triple(a, out)
    return out


@pl.jit
def calls_standalone(a: pl.Tensor[[8, 16], pl.FP32], o: pl.Out[pl.Tensor[[8, 16], pl.FP32]]):
    o = negate(a, o)
    return o


@pl.program
class Negated:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[8, 16], pl.FP32], o: pl.Out[pl.Tensor[[8, 16], pl.FP32]]):
        o = negate(a, o)
        return o
