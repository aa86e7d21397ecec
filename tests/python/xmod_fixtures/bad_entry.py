"""An entry whose imported kernel (bad_kernels.broken) does not compile."""
import pypto.language as pl

from .bad_kernels import broken


@pl.jit
def calls_broken(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    out = broken(a, out)
    return out
