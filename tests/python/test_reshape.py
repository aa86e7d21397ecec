"""pl.reshape in kernel code (docs/dsl.md, Operations) against numpy: [32, 1] <-> [1, 32]
and [4, 16] -> [8, 8] for every dtype, a narrowed tile through a unit-axis reshape, the
run-time box check of a narrowed tile, the compile-time texts, and the printed form
parsing back to the same program."""
import numpy as np
import pytest
import torch

import pypto.language as pl
from pypto.language.parser.diagnostics import InvalidOperationError, ParserTypeError, UnsupportedFeatureError
from pypto.runtime import PTORuntimeError

RESHAPES = """
    @pl.jit
    def col_row_col(a: pl.Tensor, out: pl.Out[pl.Tensor], back: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(a, [0, 0], [32, 1])
            r: pl.Tile[[1, 32], pl.FP32] = pl.reshape(t, [1, 32])
            r = pl.add(r, r)
            pl.store(r, [0, 0], out)
            pl.store(pl.reshape(r, [32, 1]), [0, 0], back)
        return out, back

    @pl.jit
    def square(a: pl.Tensor, out: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(a, [0, 0], [4, 16])
            pl.store(pl.reshape(t, [8, 8]), [0, 0], out)
        return out

    @pl.jit
    def narrowed_unit(a: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar[pl.INDEX]):
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(a, [0, 0], [32, 1], valid_shape=[n, 1])
            r = pl.reshape(t, [1, 1, 32])
            pl.store(pl.reshape(r, [1, 32]), [0, 0], out)
        return out

    @pl.jit
    def narrowed_box(a: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar[pl.INDEX]):
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(a, [0, 0], [4, 16], valid_shape=[n, 16])
            pl.store(pl.reshape(t, [8, 8]), [0, 0], out)
        return out
"""
ALL = {"FP32": torch.float32, "FP16": torch.float16, "BF16": torch.bfloat16, "INT32": torch.int32, "INT8": torch.int8}


@pytest.fixture
def R(load):
    return load(RESHAPES)[0]


def _tensor(shape, dt, seed):
    g = np.random.default_rng(seed)
    if dt in ("INT32", "INT8"):
        return torch.from_numpy(g.integers(-50, 50, shape).astype(np.int32)).to(ALL[dt])
    return torch.from_numpy(g.standard_normal(shape).astype(np.float32)).to(ALL[dt])


def test_column_to_row_and_back_matches_numpy(R):
    a = _tensor((32, 1), "FP32", 1)
    out, back = torch.zeros(1, 32), torch.zeros(32, 1)
    R.col_row_col(a, out, back)
    want = a.numpy().reshape(1, 32) * 2
    assert np.array_equal(out.numpy(), want)
    assert np.array_equal(back.numpy(), want.reshape(32, 1))


@pytest.mark.parametrize("dt", list(ALL))
def test_four_by_sixteen_to_eight_by_eight(R, dt):
    a = _tensor((4, 16), dt, 2)
    out = torch.full((8, 8), 3, dtype=ALL[dt])
    R.square(a, out)
    assert torch.equal(out, a.reshape(8, 8))


@pytest.mark.parametrize("n", [32, 20, 0])
def test_unit_axis_reshape_keeps_a_narrowed_region(R, n):
    a = _tensor((32, 1), "FP32", 3)
    out = torch.full((1, 32), 9.0)
    R.narrowed_unit(a, out, n)
    want = np.full((1, 32), 9.0, np.float32)
    want[0, :n] = a.numpy()[:n, 0]
    assert np.array_equal(out.numpy(), want)


def test_a_narrowed_region_that_is_not_a_box_fails_the_task(R):
    a = _tensor((4, 16), "FP32", 4)
    out = torch.full((8, 8), 5.0)
    R.narrowed_box(a, out, 4)  # fully valid at run time: a plain reshape
    assert torch.equal(out, a.reshape(8, 8))
    out = torch.full((8, 8), 5.0)
    with pytest.raises(PTORuntimeError) as e:
        R.narrowed_box(a, out, 2)
    assert "pl.reshape: the valid region [2, 16] of a [4, 16] tile is not a box in shape [8, 8]; pl.fillpad it first" in str(e.value)
    assert bool((out == 5.0).all())


def test_reshape_prints_back_to_the_same_program(R):
    a, out, back = _tensor((32, 1), "FP32", 1), torch.zeros(1, 32), torch.zeros(32, 1)
    text = R.col_row_col.lower(a, out, back)
    assert "pl.reshape(t, [1, 32])" in text and "pl.reshape(r, [32, 1])" in text, text
    assert pl.parse_program(text).lower(a, out, back) == text


@pytest.mark.parametrize("call, exc, want", [
    ("pl.reshape(t, [8, 16])", InvalidOperationError, "tile.reshape: cannot reshape tile of size 64 into shape with size 128"),
    ("pl.reshape(t, [8, i])", ParserTypeError, "pl.reshape shape element 1 must be a compile-time constant"),
    ("pl.reshape(t, [-1, 64])", InvalidOperationError, "pl.reshape: shape element 0 must be positive, got -1"),
])
def test_reshape_compile_errors(load, call, exc, want):
    mod, _ = load("""
        @pl.jit
        def k(a: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar[pl.INDEX]):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(a, [0, 0], [4, 16])
                for i in pl.range(1, n):
                    pl.store(%s, [0, 0], out)
            return out
        """ % call)
    with pytest.raises(exc) as e:
        mod.k(torch.zeros(4, 16), torch.zeros(8, 16), 8)
    assert e.value.message == want


def test_reshape_of_a_tensor_in_orchestration_is_not_supported(load):
    mod, _ = load("""
        @pl.jit
        def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            b = pl.reshape(a, [64])
            return out
        """)
    with pytest.raises(UnsupportedFeatureError) as e:
        mod.k(torch.zeros(4, 16), torch.zeros(4, 16))
    assert e.value.message == "pl.reshape of a Tensor is not supported in this version"
