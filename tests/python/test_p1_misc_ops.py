"""pl.matmul_acc (docs/dsl.md, Operations) against numpy: the K-loop kernel
users write (the first step pl.matmul, or init_cond=(k == 0)), FP32, FP16,
BF16 and INT8 operands, a run-time init_cond, and the printed form parsing
back to the same program."""
import math

import numpy as np
import pytest
import torch

import pypto.language as pl
from pypto.language.parser.diagnostics import InvalidOperationError, ParserTypeError

M, KT, N, STEPS = 16, 32, 24, 4

MMACC = """
    @pl.jit
    def first_matmul(a: pl.Tensor, b: pl.Tensor, out: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            acc = pl.matmul(pl.load(a, [0, 0], [16, 32]), pl.load(b, [0, 0], [32, 24]))
            for k in pl.range(1, 4):
                acc = pl.matmul_acc(acc, pl.load(a, [0, k * 32], [16, 32]), pl.load(b, [k * 32, 0], [32, 24]))
            pl.store(acc, [0, 0], out)
        return out

    @pl.jit
    def init_cond(a: pl.Tensor, b: pl.Tensor, c: pl.Tensor, out: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            acc = pl.load(c, [0, 0], [16, 24])
            for k in pl.range(4):
                acc = pl.matmul_acc(acc, pl.load(a, [0, k * 32], [16, 32]), pl.load(b, [k * 32, 0], [32, 24]), init_cond=(k == 0))
            pl.store(acc, [0, 0], out)
        return out

    @pl.jit
    def plus_c(a: pl.Tensor, b: pl.Tensor, c: pl.Tensor, out: pl.Out[pl.Tensor], first: pl.Scalar[pl.INDEX]):
        with pl.at(level=pl.Level.CORE_GROUP):
            acc = pl.load(c, [0, 0], [16, 24])
            for k in pl.range(4):
                acc = pl.matmul_acc(acc, pl.load(a, [0, k * 32], [16, 32]), pl.load(b, [k * 32, 0], [32, 24]), init_cond=k < first)
            pl.store(acc, [0, 0], out)
        return out
"""

DTYPES = {"FP32": torch.float32, "FP16": torch.float16, "BF16": torch.bfloat16, "INT8": torch.int8}


@pytest.fixture
def K(load):
    return load(MMACC)[0]


def _operands(dt, seed=0):
    g = np.random.default_rng(seed)
    if dt == "INT8":
        a = torch.from_numpy(g.integers(-128, 128, (M, KT * STEPS)).astype(np.int8))
        b = torch.from_numpy(g.integers(-128, 128, (KT * STEPS, N)).astype(np.int8))
        c = torch.from_numpy(g.integers(-1000, 1000, (M, N)).astype(np.int32))
        return a, b, c
    a = torch.from_numpy(g.standard_normal((M, KT * STEPS)).astype(np.float32)).to(DTYPES[dt])
    b = torch.from_numpy(g.standard_normal((KT * STEPS, N)).astype(np.float32)).to(DTYPES[dt])
    return a, b, torch.from_numpy(g.standard_normal((M, N)).astype(np.float32))


def _ref(a, b, c=None, steps=range(STEPS)):
    """c + the sum over the chosen K steps of a_k @ b_k, in float64 (int64 for INT8)."""
    wide = np.int64 if a.dtype == torch.int8 else np.float64
    an, bn = a.to(torch.int64 if wide is np.int64 else torch.float64).numpy(), b.to(
        torch.int64 if wide is np.int64 else torch.float64).numpy()
    acc = np.zeros((M, N), wide) if c is None else c.numpy().astype(wide)
    for k in steps:
        acc = acc + an[:, k * KT:(k + 1) * KT] @ bn[k * KT:(k + 1) * KT, :]
    return acc


def _close(got, want, dt):
    if dt == "INT8":
        assert np.array_equal(got.numpy().astype(np.int64), ((want + 2**31) % 2**32 - 2**31))
    else:
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("dt", list(DTYPES))
def test_matmul_acc_k_loop_first_step_matmul_matches_numpy(K, dt):
    a, b, _ = _operands(dt)
    out = torch.zeros(M, N, dtype=torch.int32 if dt == "INT8" else torch.float32)
    K.first_matmul(a, b, out)
    _close(out, _ref(a, b), dt)


@pytest.mark.parametrize("dt", list(DTYPES))
def test_matmul_acc_init_cond_first_step_ignores_the_accumulator(K, dt):
    a, b, c = _operands(dt, seed=1)
    out = torch.zeros(M, N, dtype=c.dtype)
    K.init_cond(a, b, c, out)
    _close(out, _ref(a, b), dt)


@pytest.mark.parametrize("first", [0, 1, 3])
def test_matmul_acc_run_time_init_cond(K, first):
    a, b, c = _operands("FP32", seed=2)
    out = torch.zeros(M, N)
    K.plus_c(a, b, c, out, first)
    want = _ref(a, b, c) if first == 0 else _ref(a, b, None, range(first - 1, STEPS))
    _close(out, want, "FP32")


def test_matmul_acc_prints_back_to_the_same_program(K):
    a, b, c = _operands("FP32")
    out = torch.zeros(M, N)
    text = K.init_cond.lower(a, b, c, out)
    assert "pl.matmul_acc(acc, pl.load(a, " in text and "init_cond=k == 0)" in text
    assert pl.parse_program(text).lower(a, b, c, out) == text


@pytest.mark.parametrize("acc, exc, want", [
    ("pl.load(c, [0, 0], [16, 24])", ParserTypeError, "tile.matmul_acc requires accumulator dtype FP32, but got INT32"),
    ("pl.load(d, [0, 0], [8, 24])", InvalidOperationError,
     "tile.matmul_acc requires matching physical M dimensions, but got acc M=8 and lhs M=16"),
    ("pl.load(d, [0, 0], [16, 8])", InvalidOperationError,
     "tile.matmul_acc requires matching physical N dimensions, but got acc N=8 and rhs N=24"),
])
def test_matmul_acc_errors(load, acc, exc, want):
    mod, _ = load("""
        @pl.jit
        def k(a: pl.Tensor, b: pl.Tensor, c: pl.Tensor, d: pl.Tensor, out: pl.Out[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.store(pl.matmul_acc(%s, pl.load(a, [0, 0], [16, 32]), pl.load(b, [0, 0], [32, 24])), [0, 0], out)
            return out
        """ % acc)
    x = torch.zeros(32, 32)
    with pytest.raises(exc) as e:
        mod.k(x, x, torch.zeros(16, 24, dtype=torch.int32), x, x)
    assert e.value.message == want


# ---- pl.concat, pl.fillpad ---------------------------------------------------------------------

SHAPE_OPS = """
    import math

    @pl.jit
    def concat(a: pl.Tensor, b: pl.Tensor, out: pl.Out[pl.Tensor], vr: pl.Scalar[pl.INDEX], vc: pl.Scalar[pl.INDEX]):
        with pl.at(level=pl.Level.CORE_GROUP):
            x = pl.load(a, [0, 0], [8, 5], valid_shape=[vr, vc])
            y = pl.load(b, [0, 0], [8, 3])
            pl.store(pl.concat(x, y), [0, 0], out)
        return out
"""
PADS = {"pl.PadValue.zero": "zero", "pl.PadValue.max": "max", "pl.PadValue.min": "min", "0": "zero", "math.inf": "max",
        "-math.inf": "min"}
for _k, (_v, _n) in enumerate(PADS.items()):
    SHAPE_OPS += """
    @pl.jit
    def fillpad_%d(a: pl.Tensor, out: pl.Out[pl.Tensor], vr: pl.Scalar[pl.INDEX], vc: pl.Scalar[pl.INDEX]):
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.store(pl.fillpad(pl.load(a, [0, 0], [6, 10], valid_shape=[vr, vc]), pad_value=%s), [0, 0], out)
        return out
""" % (_k, _v)
SHAPE_OPS += """
    @pl.jit
    def fillpad_default(a: pl.Tensor, out: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(a, [0, 0], [6, 10], valid_shape=[2, 7])
            t = pl.fillpad(t)
            pl.store(t, [0, 0], out)
        return out
"""
ALL = {"FP32": torch.float32, "FP16": torch.float16, "BF16": torch.bfloat16, "INT32": torch.int32, "INT8": torch.int8}


@pytest.fixture
def S(load):
    return load(SHAPE_OPS)[0]


def _tensor(shape, dt, seed):
    g = np.random.default_rng(seed)
    if dt in ("INT32", "INT8"):
        return torch.from_numpy(g.integers(-100, 100, shape).astype(np.int32)).to(ALL[dt])
    return torch.from_numpy(g.standard_normal(shape).astype(np.float32)).to(ALL[dt])


@pytest.mark.parametrize("dt", list(ALL))
@pytest.mark.parametrize("vr, vc", [(8, 5), (3, 2), (0, 5), (8, 0)])
def test_concat_is_fully_valid_with_the_zero_pad(S, dt, vr, vc):
    a, b = _tensor((8, 5), dt, 1), _tensor((8, 3), dt, 2)
    out = torch.full((8, 8), 7, dtype=ALL[dt])
    S.concat(a, b, out, vr, vc)
    want = torch.zeros(8, 8, dtype=ALL[dt])
    want[:vr, :vc] = a[:vr, :vc]
    want[:, 5:] = b
    assert torch.equal(out, want)


def _pad_of(dt, kind):
    if kind == "zero":
        return 0
    if dt in ("INT32", "INT8"):
        info = torch.iinfo(ALL[dt])
        return info.max if kind == "max" else info.min
    return math.inf if kind == "max" else -math.inf


@pytest.mark.parametrize("dt", list(ALL))
@pytest.mark.parametrize("k", range(len(PADS)))
def test_fillpad_sets_the_pad_outside_the_valid_region(S, dt, k):
    kind = list(PADS.values())[k]
    a = _tensor((6, 10), dt, 3)
    for vr, vc in ((6, 10), (4, 7), (0, 3), (6, 0)):
        out = torch.full((6, 10), 5, dtype=ALL[dt])
        getattr(S, "fillpad_%d" % k)(a, out, vr, vc)
        want = torch.full((6, 10), _pad_of(dt, kind), dtype=ALL[dt])
        want[:vr, :vc] = a[:vr, :vc]
        assert torch.equal(out, want), (dt, kind, vr, vc)


def test_fillpad_default_is_zero_and_prints_back(S):
    a = _tensor((6, 10), "FP32", 4)
    out = torch.full((6, 10), 5.0)
    S.fillpad_default(a, out)
    want = torch.zeros(6, 10)
    want[:2, :7] = a[:2, :7]
    assert torch.equal(out, want)
    for kern, args, needle in ((S.fillpad_default, (a, out), "t = pl.fillpad(t)\n"),
                               (S.fillpad_2, (a, out, 3, 3), "pad_value=pl.PadValue.min)"),
                               (S.fillpad_4, (a, out, 3, 3), "pad_value=pl.PadValue.max)"),
                               (S.concat, (_tensor((8, 5), "FP32", 1), _tensor((8, 3), "FP32", 2), torch.zeros(8, 8), 2, 2),
                                "pl.store(pl.concat(x, y), [0, 0], out)")):
        text = kern.lower(*args)
        assert needle in text, text
        assert pl.parse_program(text).lower(*args) == text


def test_pad_value_enum_comes_from_the_compiler():
    assert [(m.name, m.value) for m in pl.PadValue] == [("null", 0), ("zero", 1), ("max", 2), ("min", 3)]


@pytest.mark.parametrize("call, exc, want", [
    ("pl.concat(x, z)", ParserTypeError, "tile.concat: inputs must have same dtype, got FP32 vs INT32"),
    ("pl.concat(x, w)", InvalidOperationError, "tile.concat: row count must match, got 8 vs 4"),
    ("pl.concat(x, v)", InvalidOperationError, "tile.concat requires 2D tiles"),
    ("pl.fillpad(x, pad_value=pl.PadValue.null)", ParserTypeError, "fillpad pad_value cannot be PadValue.null"),
    ("pl.fillpad(x, pad_value=1)", ParserTypeError,
     "fillpad pad_value only accepts PadValue.zero, PadValue.max, PadValue.min, 0, math.inf or -math.inf, got 1"),
    ("pl.fillpad(x, pad_value=2.5)", ParserTypeError,
     "fillpad pad_value only accepts PadValue.zero, PadValue.max, PadValue.min, 0, math.inf or -math.inf, got 2.5"),
])
def test_concat_and_fillpad_errors(load, call, exc, want):
    mod, _ = load("""
        @pl.jit
        def k(a: pl.Tensor, i: pl.Tensor, r: pl.Tensor, out: pl.Out[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                x = pl.load(a, [0, 0], [8, 4])
                w = pl.load(a, [0, 0], [4, 4])
                z = pl.load(i, [0, 0], [8, 4])
                v = pl.load(r, [0], [8])
                pl.store(%s, [0, 0], out)
            return out
        """ % call)
    with pytest.raises(exc) as e:
        mod.k(torch.zeros(8, 8), torch.zeros(8, 8, dtype=torch.int32), torch.zeros(8), torch.zeros(8, 8))
    assert e.value.message == want


# ---- scalar pl.min / pl.max, bare-dtype annotations --------------------------------------------

MINMAX = """
    @pl.jit
    def clip(a: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.INDEX, f: pl.FP32, flag: pl.BOOL):
        with pl.at(level=pl.Level.CORE_GROUP):
            rows = pl.max(pl.min(n, 6), 1)
            t = pl.fillpad(pl.load(a, [0, 0], [6, 4], valid_shape=[rows, 4]))
            if flag:
                t = pl.add(t, pl.min(f, 2.5))
            pl.store(t, [0, 0], out)
        return out
"""


@pytest.mark.parametrize("n, f, flag", [(3, 1.0, True), (9, 7.0, True), (0, -4.0, False), (-5, 0.5, True)])
def test_scalar_min_max_and_bare_dtype_annotations(load, n, f, flag):
    mod, _ = load(MINMAX)
    a = torch.from_numpy(np.arange(24, dtype=np.float32).reshape(6, 4))
    out = torch.full((6, 4), 99.0)
    mod.clip(a, out, n, f, flag)
    rows = max(min(n, 6), 1)
    want = np.zeros((6, 4), np.float32)
    want[:rows] = a.numpy()[:rows]
    if flag:
        want += np.float32(min(f, 2.5))
    assert np.array_equal(out.numpy(), want)


def test_scalar_min_max_on_tiles_is_a_type_error(load):
    mod, _ = load("""
        @pl.jit
        def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.store(pl.max(pl.load(a, [0, 0], [4, 4]), 1.0), [0, 0], out)
            return out
        """)
    with pytest.raises(ParserTypeError) as e:
        mod.k(torch.zeros(4, 4), torch.zeros(4, 4))
    assert e.value.message == "pl.min/pl.max take scalars; use pl.minimum/pl.maximum for tiles"


# ---- pl.tile.full ----------------------------------------------------------------------------

FULL = """
    @pl.jit
    def full(a: pl.Tensor, out: pl.Out[pl.Tensor], v: pl.Scalar):
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.tile.full([5, 9], pl.%s, v)
            c = pl.tile.full([5, 9], pl.%s, 3)
            pl.store(pl.add(pl.add(t, c), pl.load(a, [0, 0], [5, 9])), [0, 0], out)
        return out
"""


@pytest.mark.parametrize("dt", list(ALL))
def test_tile_full_is_a_constant_fully_valid_tile(load, dt):
    mod, _ = load(FULL % (dt, dt))
    a = _tensor((5, 9), dt, 6)
    out = torch.zeros(5, 9, dtype=ALL[dt])
    v = 2.75 if dt in ("FP32", "FP16", "BF16") else -7
    mod.full(a, out, v)
    want = ((torch.full((5, 9), v, dtype=ALL[dt]) + torch.full((5, 9), 3, dtype=ALL[dt])) + a)
    assert torch.equal(out, want)
    text = mod.full.lower(a, out, v)
    assert "pl.tile.full([5, 9], pl.%s, value=" % dt in text
    assert pl.parse_program(text).lower(a, out, v) == text


def test_tile_full_float_value_for_an_integer_tile(load):
    mod, _ = load(FULL % ("INT32", "INT32"))
    x = torch.zeros(5, 9, dtype=torch.int32)
    with pytest.raises(ParserTypeError) as e:
        mod.full(x, x, 1.5)
    assert e.value.message == "pl.tile.full: a float value for an INT32 tile; pass an int"
