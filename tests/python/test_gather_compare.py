"""d, c = pl.gather_compare(src, kvalue, tmp=None, cmp_mode="eq", offset=0, out_cols=, count_dtype=pl.INT32)
(pl.tile.; pl.tensor.gather(x, kvalue=...) its tensor form; docs/dsl.md, Operations): per row, the
indices (+ offset) of the columns whose element compares true with kvalue, the first out_cols of
them, and each row's count of all of them.  Against numpy.  One test per rule."""
import numpy as np
import pytest
import torch

import pypto.language as pl
from pypto.language.parser.diagnostics import InvalidOperationError, ParserSyntaxError, ParserTypeError

MODES = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal}


def _want(x, k, mode, offset, oc, valid_rows=None, valid_cols=None):
    rows, cols = x.shape
    vr, vc = valid_rows or rows, valid_cols or cols
    d, c = np.zeros((rows, oc), np.int32), np.zeros((1, rows), np.int32)
    for r in range(vr):
        hits = [j for j in range(vc) if MODES[mode](x[r, j], k)]
        c[0, r] = len(hits)
        for n, j in enumerate(hits[:oc]):
            d[r, n] = j + offset
    return d, c


def _module(load, dt, expr, oc=8, rows=4, cols=16):
    return load("""
        @pl.jit.incore
        def _k(x: pl.Tensor[[%d, %d], pl.%s], o1: pl.Out[pl.Tensor[[%d, %d], pl.INT32]], o2: pl.Out[pl.Tensor[[1, %d], pl.INT32]]):
            t = pl.load(x, [0, 0], [%d, %d])
            d, c = %s
            o1 = pl.store(d, [0, 0], o1)
            o2 = pl.store(c, [0, 0], o2)
            return o1, o2

        @pl.jit
        def f(x: pl.Tensor[[%d, %d], pl.%s], o1: pl.Out[pl.Tensor[[%d, %d], pl.INT32]], o2: pl.Out[pl.Tensor[[1, %d], pl.INT32]]):
            return _k(x, o1, o2)
        """ % (rows, cols, dt, rows, oc, rows, rows, cols, expr, rows, cols, dt, rows, oc, rows))[0]


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("dt, k", [("FP32", 0.25), ("INT32", 3), ("FP16", -0.5), ("INT16", 0)])
def test_gather_compare_indices_and_counts_match_numpy(load, mode, dt, k):
    torch_dt = {"FP32": torch.float32, "INT32": torch.int32, "FP16": torch.float16, "INT16": torch.int16}[dt]
    g = torch.Generator().manual_seed(5)
    x = (torch.randn(4, 16, generator=g) * 4).round() / (1 if dt.startswith("INT") else 4)
    x = x.to(torch_dt)
    m = _module(load, dt, 'pl.tile.gather_compare(t, %r, cmp_mode="%s", offset=3, out_cols=8)' % (k, mode))
    o1, o2 = torch.full((4, 8), -1, dtype=torch.int32), torch.full((1, 4), -1, dtype=torch.int32)
    m.f(x, o1, o2)
    d, c = _want(x.float().numpy() if dt == "FP16" else x.numpy(), k, mode, 3, 8)
    assert np.array_equal(o1.numpy(), d) and np.array_equal(o2.numpy(), c), mode


def test_gather_compare_counts_every_match_past_out_cols(load):
    m = _module(load, "INT32", "pl.gather_compare(t, 0, cmp_mode=\"ge\", out_cols=2)", oc=2)
    x = torch.arange(64, dtype=torch.int32).reshape(4, 16)
    o1, o2 = torch.zeros(4, 2, dtype=torch.int32), torch.zeros(1, 4, dtype=torch.int32)
    m.f(x, o1, o2)
    assert o1.tolist() == [[0, 1]] * 4 and o2.tolist() == [[16] * 4]


def test_gather_compare_nan_compares_false_but_for_ne(load):
    x = torch.tensor([[float("nan"), 1.0, float("nan"), 2.0] * 4] * 4)
    for mode, want in (("eq", 4), ("lt", 0), ("ge", 8), ("ne", 12)):  # a row: 8 NaN, 4 ones, 4 twos
        m = _module(load, "FP32", 'pl.gather_compare(t, 1.0, cmp_mode="%s", out_cols=16)' % mode, oc=16)
        o1, o2 = torch.zeros(4, 16, dtype=torch.int32), torch.zeros(1, 4, dtype=torch.int32)
        m.f(x, o1, o2)
        assert o2.tolist() == [[want] * 4], mode


def test_gather_compare_reads_only_the_valid_region(load):
    mod, _ = load("""
        @pl.jit.incore
        def _k(x: pl.Tensor[[4, 16], pl.INT32], o1: pl.Out[pl.Tensor[[4, 8], pl.INT32]], o2: pl.Out[pl.Tensor[[1, 4], pl.INT32]]):
            t = pl.load(x, [0, 0], [4, 16], valid_shape=[3, 10])
            d, c = pl.gather_compare(t, 5, cmp_mode="ge", out_cols=8)
            o1 = pl.store(d, [0, 0], o1)
            o2 = pl.store(c, [0, 0], o2)
            return o1, o2

        @pl.jit
        def f(x: pl.Tensor[[4, 16], pl.INT32], o1: pl.Out[pl.Tensor[[4, 8], pl.INT32]], o2: pl.Out[pl.Tensor[[1, 4], pl.INT32]]):
            return _k(x, o1, o2)
        """)
    x = torch.arange(64, dtype=torch.int32).reshape(4, 16) % 9
    o1, o2 = torch.full((4, 8), -1, dtype=torch.int32), torch.full((1, 4), -1, dtype=torch.int32)
    mod.f(x, o1, o2)
    d, c = _want(x.numpy(), 5, "ge", 0, 8, valid_rows=3, valid_cols=10)
    assert np.array_equal(o1.numpy()[:3], d[:3]) and (o1.numpy()[3] == -1).all()
    assert np.array_equal(o2.numpy()[0, :3], c[0, :3]) and o2[0, 3] == -1


def test_gather_compare_tensor_form(load):
    m = _module(load, "FP32", 'pl.tensor.gather(x, kvalue=0.0, cmp_mode="lt", out_cols=8)')
    x = torch.randn(4, 16)
    o1, o2 = torch.zeros(4, 8, dtype=torch.int32), torch.zeros(1, 4, dtype=torch.int32)
    m.f(x, o1, o2)
    d, c = _want(x.numpy(), 0.0, "lt", 0, 8)
    assert np.array_equal(o1.numpy(), d) and np.array_equal(o2.numpy(), c)


@pytest.mark.parametrize("expr, cls, msg", [
    ('pl.gather_compare(t, 1.0, cmp_mode="xx", out_cols=8)', InvalidOperationError,
     'pl.gather_compare: cmp_mode must be "eq", "ne", "lt", "le", "gt", "ge" or 0 to 5'),
    ("pl.gather_compare(t, 1.0)", ParserTypeError, "pl.gather_compare requires out_cols= (a positive integer)"),
    ("pl.gather_compare(t, 1.0, out_cols=0)", InvalidOperationError, "pl.gather_compare: out_cols must be positive, got 0"),
    ("pl.gather_compare(t, 1.0, out_cols=8, count_dtype=pl.FP32)", ParserTypeError,
     "pl.gather_compare: count_dtype must be pl.INT32 or pl.UINT32, got pl.FP32"),
])
def test_gather_compare_rules(load, expr, cls, msg):
    m = _module(load, "FP32", expr)
    with pytest.raises(cls) as e:
        m.f(torch.zeros(4, 16), torch.zeros(4, 8, dtype=torch.int32), torch.zeros(1, 4, dtype=torch.int32))
    assert e.value.message == msg


def test_gather_compare_must_be_unpacked(load):
    mod, _ = load("""
        @pl.jit.incore
        def _k(x: pl.Tensor[[4, 16], pl.FP32], o1: pl.Out[pl.Tensor[[4, 8], pl.INT32]]):
            o1 = pl.store(pl.gather_compare(pl.load(x, [0, 0], [4, 16]), 1.0, out_cols=8), [0, 0], o1)
            return o1

        @pl.jit
        def f(x: pl.Tensor[[4, 16], pl.FP32], o1: pl.Out[pl.Tensor[[4, 8], pl.INT32]]):
            return _k(x, o1)
        """)
    with pytest.raises(ParserSyntaxError) as e:
        mod.f(torch.zeros(4, 16), torch.zeros(4, 8, dtype=torch.int32))
    assert e.value.message == "pl.gather_compare gives two tiles (dst, cdst): unpack them"


def test_gather_compare_prints_as_one_call_and_parses_back(load):
    m = _module(load, "FP32", 'pl.tile.gather_compare(t, 0.5, cmp_mode="le", offset=2, out_cols=8)')
    args = (torch.zeros(4, 16), torch.zeros(4, 8, dtype=torch.int32), torch.zeros(1, 4, dtype=torch.int32))
    text = m.f.lower(*args)
    assert 'd, c = pl.gather_compare(t, 0.5, offset=2, out_cols=8, cmp_mode="le")' in text
    assert pl.parse_program(text).lower(*args) == text
