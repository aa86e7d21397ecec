"""Python's `//` and `%` on integers with mixed signs and exact quotients
(-4 // 2 == -2, -4 % 2 == 0, 6 // -3 == -2, -7 // 2 == -4, 7 % -2 == -1),
the same folded at compile time (constants: the printed program holds the
results) as computed at run time (a loop variable, which is never folded:
the orchestration VM computes them), end to end through the DSL."""
import numpy as np

import pypto.language as pl

CASES = [(-4, "//", 2, -2), (-4, "%", 2, 0), (6, "//", -3, -2), (-7, "//", 2, -4), (7, "%", -2, -1)]


@pl.jit.incore
def _put(a: pl.Tensor, out: pl.InOut[pl.Tensor], row: pl.Scalar[pl.INDEX], v: pl.Scalar[pl.INDEX]):
    pl.store(pl.add(pl.load(a, [0, 0], [1, 8]), v), [row, 0], out)
    return out


@pl.jit
def _folded_and_computed(a: pl.Tensor, out: pl.InOut[pl.Tensor]):
    out = _put(a, out, 0, -4 // 2)
    out = _put(a, out, 1, -4 % 2)
    out = _put(a, out, 2, 6 // -3)
    out = _put(a, out, 3, -7 // 2)
    out = _put(a, out, 4, 7 % -2)
    for i in pl.range(1):  # i == 0 at run time
        out = _put(a, out, 5, (i - 4) // (i + 2))
        out = _put(a, out, 6, (i - 4) % (i + 2))
        out = _put(a, out, 7, (i + 6) // (i - 3))
        out = _put(a, out, 8, (i - 7) // (i + 2))
        out = _put(a, out, 9, (i + 7) % (i - 2))
    return out


def test_floor_division_and_modulo_with_mixed_signs_fold_as_they_run():
    want = [r for _, _, _, r in CASES]
    assert want == [x // y if op == "//" else x % y for x, op, y, _ in CASES]  # Python's own
    a, out = np.zeros((1, 8), np.float32), np.full((10, 8), 99, np.float32)
    text = _folded_and_computed.lower(a, out)
    for row, r in enumerate(want):  # folded by the compiler
        assert "self._put(a, out, %d, %d)" % (row, r) in text, text
    assert "self._put(a, out, 5, (i - 4) // (i + 2))" in text  # left to run time
    _folded_and_computed(a, out)
    assert out[:5, 0].tolist() == want  # the folded constants
    assert out[5:, 0].tolist() == want  # computed at run time
    assert (out == out[:, :1]).all()
