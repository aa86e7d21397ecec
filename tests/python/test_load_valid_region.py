"""A load's bounds are its valid region: a pl.load window larger than its
source, whose valid_shape fits, reads only the valid region (upstream's
padded-tile idiom); the rows past it read the pad value zero.  The
out-of-range error still fires when the valid region itself leaves the
tensor: at compile time for a constant valid_shape (InvalidOperationError),
when the task runs for a runtime one (PTORuntimeError, code 12).
"""
import numpy as np
import pytest

import pypto.language as pl
from pypto.language.parser.diagnostics import InvalidOperationError
from pypto.runtime import PTORuntimeError

from conftest import line_of

KERNELS = """
@pl.jit
def padded(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(a, [0, 0], [64, 64], valid_shape=[48, 64])
        pl.store(pl.fillpad(t), [0, 0], out)
    return out

@pl.jit
def growing(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        for i in pl.range(3):
            t = pl.load(a, [16, 0], [64, 64], valid_shape=[i * 16, 64])
            pl.store(pl.fillpad(t), [i * 64, 0], out)
    return out

@pl.jit
def static_past(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(a, [8, 0], [64, 64], valid_shape=[48, 64])
        pl.store(t, [0, 0], out)
    return out

@pl.jit
def runtime_past(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        for i in pl.range(2):
            t = pl.load(a, [16, 0], [64, 64], valid_shape=[i * 40, 64])
            pl.store(t, [0, 0], out)
    return out
"""


@pytest.fixture
def K(load):
    return load(KERNELS)


def _src():
    return np.random.default_rng(7).standard_normal((48, 64)).astype(np.float32)


def test_static_valid_region_reads_only_the_valid_rows(K):
    mod, _ = K
    a, out = _src(), np.full((64, 64), -1, np.float32)
    text = mod.padded.lower(a, out)
    assert "# a: In [0:48, 0:64]" in text
    assert pl.parse_program(text).lower(a, out) == text
    mod.padded(a, out)
    want = np.zeros((64, 64), np.float32)
    want[:48] = a
    np.testing.assert_array_equal(out, want)


def test_runtime_valid_region_reads_only_the_valid_rows(K):
    mod, _ = K
    a, out = _src(), np.full((192, 64), -1, np.float32)
    mod.growing(a, out)
    want = np.zeros((192, 64), np.float32)
    for i in range(3):
        want[i * 64:i * 64 + i * 16] = a[16:16 + i * 16]
    np.testing.assert_array_equal(out, want)


def test_static_valid_region_past_the_end_is_invalid(K):
    mod, path = K
    with pytest.raises(InvalidOperationError) as e:
        mod.static_past(_src(), np.zeros((64, 64), np.float32))
    assert e.value.message == ("pl.load reads past the end of dimension 0: offset 8 + extent 48 exceeds the source "
                               "extent 48.")
    assert (e.value.span["line"], e.value.span["column"]) == line_of(path, "8, 0]")


def test_runtime_valid_region_past_the_end_fails_the_task(K):
    mod, path = K
    with pytest.raises(PTORuntimeError) as e:
        mod.runtime_past(_src(), np.zeros((64, 64), np.float32))
    assert e.value.code == 12
    assert ("pl.load reads past the end of dimension 0: offset 16 + extent 40 exceeds the source extent 48."
            in str(e.value))
