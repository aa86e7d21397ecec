"""pl.matmul_acc (docs/dsl.md, Operations) against numpy: the K-loop kernel
users write (the first step pl.matmul, or init_cond=(k == 0)), FP32, FP16,
BF16 and INT8 operands, a run-time init_cond, and the printed form parsing
back to the same program."""
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
