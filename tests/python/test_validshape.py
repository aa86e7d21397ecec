"""pl.fillpad_expand and pl.set_validshape (docs/dsl.md, Operations) against numpy
on FP32, FP16 and INT32, with valid shapes given as scalar arguments and as
loop variables (run-time values in the kernel): the expanded tile's pad
values, the store after pl.set_validshape writing only the new region,
elements that become valid again reading 0; the compile-time texts with
their columns, the run-time text as a task failure (code 12) citing the op;
the printed program parsing back to the same text."""
import numpy as np
import pytest
import torch

import pypto.language as pl
from pypto.language.parser.diagnostics import InvalidOperationError, ParserTypeError
from pypto.runtime import PTORuntimeError

from conftest import line_of

DTYPES = {"FP32": torch.float32, "FP16": torch.float16, "INT32": torch.int32}
PADS = {"pl.PadValue.zero": "zero", "pl.PadValue.max": "max", "pl.PadValue.min": "min", "0": "zero",
        "math.inf": "max", "-math.inf": "min"}

KERNELS = """
    import math

    @pl.jit
    def expand_at(a: pl.Tensor, out: pl.Out[pl.Tensor], vr: pl.Scalar[pl.INDEX], vc: pl.Scalar[pl.INDEX]):
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(a, [0, 0], [6, 10], valid_shape=[vr, vc])
            pl.store(pl.fillpad_expand(t, [8, 16]), [0, 0], out)
        return out

    @pl.jit
    def expand_loop(a: pl.Tensor, out: pl.Out[pl.Tensor], lo: pl.Scalar[pl.INDEX], vc: pl.Scalar[pl.INDEX]):
        with pl.at(level=pl.Level.CORE_GROUP):
            for i in pl.range(lo, lo + 1):
                t = pl.load(a, [0, 0], [6, 10], valid_shape=[i, vc])
                pl.store(pl.fillpad_expand(t, [8, 16], pad_value=pl.PadValue.min), [0, 0], out)
        return out

    @pl.jit
    def valid_loop(a: pl.Tensor, out: pl.Out[pl.Tensor], r0: pl.Scalar[pl.INDEX], c0: pl.Scalar[pl.INDEX]):
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(a, [0, 0], [16, 8])
            for i in pl.range(r0, r0 + 1):
                for j in pl.range(c0, c0 + 1):
                    pl.store(pl.set_validshape(t, i, j), [0, 0], out)
        return out

    @pl.jit
    def shrink_grow(a: pl.Tensor, out: pl.Out[pl.Tensor], r0: pl.Scalar[pl.INDEX], c0: pl.Scalar[pl.INDEX]):
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(a, [0, 0], [16, 8])
            for i in pl.range(r0, r0 + 1):
                t = pl.set_validshape(t, i, c0)
            t = pl.set_validshape(t, 16, 8)
            pl.store(t, [0, 0], out)
        return out

    @pl.jit
    def over(a: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar[pl.INDEX]):
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(a, [0, 0], [16, 8])
            for i in pl.range(n):
                u = pl.set_validshape(t, 4, i * 3)
                pl.store(u, [0, 0], out)
        return out
"""
for _k, _v in enumerate(PADS):
    KERNELS += """
    @pl.jit
    def expand_%d(a: pl.Tensor, out: pl.Out[pl.Tensor], vr: pl.Scalar[pl.INDEX], vc: pl.Scalar[pl.INDEX]):
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(a, [0, 0], [6, 10], valid_shape=[vr, vc])
            pl.store(pl.fillpad_expand(t, [8, 16], pad_value=%s), [0, 0], out)
        return out
""" % (_k, _v)


@pytest.fixture
def K(load):
    return load(KERNELS)


def _tensor(shape, dt, seed):
    g = np.random.default_rng(seed)
    if dt == "INT32":
        return torch.from_numpy(g.integers(-100, 100, shape).astype(np.int32))
    return torch.from_numpy(g.standard_normal(shape).astype(np.float32)).to(DTYPES[dt])


def _pad_of(dt, kind):
    if kind == "zero":
        return 0
    if dt == "INT32":
        return np.iinfo(np.int32).max if kind == "max" else np.iinfo(np.int32).min
    return float("inf") if kind == "max" else float("-inf")


def _expanded(a, vr, vc, dt, kind):
    want = torch.full((8, 16), _pad_of(dt, kind), dtype=DTYPES[dt])
    want[:vr, :vc] = a[:vr, :vc]
    return want


@pytest.mark.parametrize("dt", list(DTYPES))
@pytest.mark.parametrize("k", range(len(PADS)))
def test_fillpad_expand_pads_outside_the_source_region(K, dt, k):
    mod, _ = K
    kind = list(PADS.values())[k]
    a = _tensor((6, 10), dt, k)
    for vr, vc in ((6, 10), (4, 7), (0, 3), (6, 0)):
        out = torch.full((8, 16), 5, dtype=DTYPES[dt])
        getattr(mod, "expand_%d" % k)(a, out, vr, vc)
        assert torch.equal(out, _expanded(a, vr, vc, dt, kind)), (dt, kind, vr, vc)


@pytest.mark.parametrize("dt", list(DTYPES))
def test_fillpad_expand_default_zero_and_a_run_time_valid_shape(K, dt):
    mod, _ = K
    a = _tensor((6, 10), dt, 7)
    for vr, vc in ((3, 5), (6, 10)):
        out = torch.full((8, 16), 5, dtype=DTYPES[dt])
        mod.expand_at(a, out, vr, vc)
        assert torch.equal(out, _expanded(a, vr, vc, dt, "zero"))
        out = torch.full((8, 16), 5, dtype=DTYPES[dt])
        mod.expand_loop(a, out, vr, vc)  # the rows a loop variable: known at run time only
        assert torch.equal(out, _expanded(a, vr, vc, dt, "min"))


@pytest.mark.parametrize("dt", list(DTYPES))
@pytest.mark.parametrize("r, c", [(16, 8), (5, 3), (0, 8), (16, 0), (1, 1)])
def test_set_validshape_store_writes_only_the_region(K, dt, r, c):
    mod, _ = K
    a = _tensor((16, 8), dt, 3)
    out = torch.full((16, 8), 9, dtype=DTYPES[dt])
    mod.valid_loop(a, out, r, c)
    want = torch.full((16, 8), 9, dtype=DTYPES[dt])
    want[:r, :c] = a[:r, :c]
    assert torch.equal(out, want), (dt, r, c)


@pytest.mark.parametrize("dt", list(DTYPES))
def test_set_validshape_elements_that_become_valid_read_zero(K, dt):
    mod, _ = K
    a = _tensor((16, 8), dt, 4)
    out = torch.full((16, 8), 9, dtype=DTYPES[dt])
    mod.shrink_grow(a, out, 6, 5)
    want = torch.zeros(16, 8, dtype=DTYPES[dt])
    want[:6, :5] = a[:6, :5]
    assert torch.equal(out, want)


def test_set_validshape_over_the_extent_at_run_time_fails_at_the_op(K):
    mod, path = K
    a = _tensor((16, 8), "FP32", 5)
    out = torch.full((16, 8), 9.0)
    with pytest.raises(PTORuntimeError) as e:
        mod.over(a, out, 4)  # i = 3 asks for 9 columns of 8
    assert e.value.code == 12 and e.value.message == str(e.value)
    assert "pl.set_validshape: 9 exceeds dimension 1 of extent 8 (at %s:%d:%d)" % (
        path, *line_of(path, "pl.set_validshape(t, 4, i * 3)")) in str(e.value)
    want = torch.full((16, 8), 9.0)
    want[:4, :6] = a[:4, :6]  # i = 0..2 stored before the failure
    assert torch.equal(out, want)
    out = torch.full((16, 8), 9.0)
    mod.over(a, out, 3)  # the next call works
    assert torch.equal(out, want)


def test_validshape_ops_print_back_to_the_same_program(K):
    mod, _ = K
    a, out = _tensor((6, 10), "FP32", 1), torch.zeros(8, 16)
    for kern, args, needle in ((mod.expand_at, (a, out, 3, 4), "pl.fillpad_expand(t, [8, 16])"),
                               (mod.expand_2, (a, out, 3, 4), "pl.fillpad_expand(t, [8, 16], pad_value=pl.PadValue.min)"),
                               (mod.expand_loop, (a, out, 3, 4), "pad_value=pl.PadValue.min)"),
                               (mod.valid_loop, (_tensor((16, 8), "FP32", 2), torch.zeros(16, 8), 3, 4),
                                "pl.store(pl.set_validshape(t, i, j), [0, 0], out)"),
                               (mod.shrink_grow, (_tensor((16, 8), "FP32", 2), torch.zeros(16, 8), 3, 4),
                                "t = pl.set_validshape(t, 16, 8)")):
        text = kern.lower(*args)
        assert needle in text, text
        assert pl.parse_program(text).lower(*args) == text


@pytest.mark.parametrize("call, exc, want, at", [
    ("pl.fillpad_expand(t, [4, 16])", InvalidOperationError,
     "pl.fillpad_expand: shape [4, 16] is smaller than the source [8, 8]", "pl.fillpad_expand("),
    ("pl.fillpad_expand(t, [8, 8, 1])", InvalidOperationError,
     "pl.fillpad_expand: shape [8, 8, 1] has rank 3, the source [8, 8] rank 2", "[8, 8, 1]"),
    ("pl.fillpad_expand(t, [16, 8], pad_value=pl.PadValue.null)", ParserTypeError,
     "fillpad pad_value cannot be PadValue.null", "pl.PadValue.null"),
    ("pl.fillpad_expand(t, [16, 8], pad_value=5)", ParserTypeError,
     "fillpad pad_value only accepts PadValue.zero, PadValue.max, PadValue.min, 0, math.inf or -math.inf, got 5", "5)"),
    ("pl.set_validshape(t, 9, 8)", InvalidOperationError, "pl.set_validshape: 9 exceeds dimension 0 of extent 8",
     "pl.set_validshape("),
    ("pl.set_validshape(t, n, 8)", InvalidOperationError, "pl.set_validshape: 12 exceeds dimension 0 of extent 8",
     "pl.set_validshape("),
    ("pl.set_validshape(t, 8, -1)", InvalidOperationError, "pl.set_validshape: -1 is negative for dimension 1",
     "pl.set_validshape("),
    ("pl.set_validshape(pl.reshape(t, [1, 8, 8]), 1, 8)", InvalidOperationError,
     "pl.set_validshape requires a rank-2 tile, got rank 3", "pl.reshape("),
    ("pl.set_validshape(t, 1.5, 8)", ParserTypeError, "pl.set_validshape valid_rows must be an integer scalar", "1.5"),
])
def test_validshape_compile_errors(load, call, exc, want, at):
    mod, path = load("""
        import math

        @pl.jit
        def k(a: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar[pl.INDEX]):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(a, [0, 0], [8, 8])
                pl.store(%s, [0, 0], out)
            return out
        """ % call)
    with pytest.raises(exc) as e:
        mod.k(torch.zeros(8, 8), torch.zeros(16, 16), 12)
    assert e.value.message == want
    line, col = line_of(path, "pl.store(")
    assert (e.value.span["line"], e.value.span["column"]) == (line, open(path).read().splitlines()[line - 1].index(at) + 1)
