"""A kernel with an error in its body (a name defined nowhere): the entry
of bad_entry.py reaches it."""
import pypto.language as pl

from .config import COLS, ROWS


@pl.jit.incore
def broken(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    t = pl.load(a, [0, 0], [ROWS, COLS])
    pl.store(pl.mul(t, not_defined_anywhere), [0, 0], out)
    return out
