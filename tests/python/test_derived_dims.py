"""Dimensions computed from DynVars (DSL-V2-SPEC §5 DY; docs/dsl.md, "Dynamic shapes"):
`pl.Tensor[[N * 2, 16], ...]` is one dimension of the program, its value checked where its
DynVars are known: each call of an entry, each call site of a kernel (constants), each task of
a kernel (the caller's symbols).  One test per rule."""
import pytest
import torch

import pypto.language as pl
from pypto.language.parser.diagnostics import ParserTypeError, UnsupportedFeatureError
from pypto.runtime import PTORuntimeError

N = pl.dynamic("N")
M = pl.dynamic("M")
K = pl.dynamic("K")


@pl.jit.incore
def _twice(x: pl.Tensor[[K, 16], pl.FP32], y: pl.Tensor[[K * 2, 16], pl.FP32], o: pl.Out[pl.Tensor[[K * 2, 16], pl.FP32]]):
    n = pl.tensor.dim(y, 0)
    for i in pl.range(0, n, 8):
        o = pl.store(pl.add(pl.load(y, [i, 0], [8, 16]), pl.load(x, [0, 0], [8, 16])), [i, 0], o)
    return o


@pl.jit
def same_n(x: pl.Tensor[[N, 16], pl.FP32], y: pl.Tensor[[N * 2, 16], pl.FP32], o: pl.Out[pl.Tensor[[N * 2, 16], pl.FP32]]):
    return _twice(x, y, o)


@pl.jit
def two_vars(x: pl.Tensor[[N, 16], pl.FP32], y: pl.Tensor[[M, 16], pl.FP32], o: pl.Out[pl.Tensor[[M, 16], pl.FP32]]):
    return _twice(x, y, o)


@pl.jit
def constants(x: pl.Tensor[[8, 16], pl.FP32], y: pl.Tensor[[24, 16], pl.FP32], o: pl.Out[pl.Tensor[[24, 16], pl.FP32]]):
    return _twice(x, y, o)


def _want(x, y):
    return y + x[:8].repeat(y.shape[0] // 8, 1)


def test_derived_dim_one_compile_serves_every_extent():
    for n in (8, 16, 32):
        x, y, o = torch.randn(n, 16), torch.randn(2 * n, 16), torch.zeros(2 * n, 16)
        same_n(x, y, o)
        torch.testing.assert_close(o, _want(x, y))
    assert same_n.cache_info()[1] == 1


def test_derived_dim_of_an_entry_is_checked_at_each_call():
    same_n(torch.randn(8, 16), torch.randn(16, 16), torch.zeros(16, 16))
    with pytest.raises(PTORuntimeError) as e:
        same_n(torch.randn(8, 16), torch.randn(24, 16), torch.zeros(24, 16))
    assert "argument 'y' has extent 24 in dimension 0, but its annotation's N * 2 is 16" in str(e.value)


def test_derived_dim_at_a_call_of_constants_is_checked_there():
    with pytest.raises(ParserTypeError) as e:
        constants(torch.randn(8, 16), torch.randn(24, 16), torch.zeros(24, 16))
    assert e.value.message == "'_twice' parameter 'y': its dimension K * 2 is 16 at this call, got 24"


def test_derived_dim_over_the_callers_symbols_is_checked_by_the_task():
    x, y, o = torch.randn(8, 16), torch.randn(16, 16), torch.zeros(16, 16)
    two_vars(x, y, o)
    torch.testing.assert_close(o, _want(x, y))
    with pytest.raises(PTORuntimeError) as e:
        two_vars(torch.randn(8, 16), torch.randn(24, 16), torch.zeros(24, 16))
    assert e.value.code == 12
    assert "kernel '_twice' argument 'y' has extent 24 in dimension 0, but its annotation's N * 2 is 16" in str(e.value)


@pytest.mark.parametrize("dim, text", [("N * 2", "N * 2"), ("(N + 1) // 2", "(N + 1) // 2"), ("N - (M - 1)", "N - (M - 1)"),
                                       ("N * M % 7", "N * M % 7"), ("2 * (N + M)", "2 * (N + M)")])
def test_derived_dim_prints_back_and_parses_to_the_same_program(dim, text):
    src = '''
import pypto.language as pl

N = pl.dynamic("N")
M = pl.dynamic("M")

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[N, M], pl.FP32], x: pl.Tensor[[%s, 16], pl.FP32], o: pl.Out[pl.Tensor[[%s, 16], pl.FP32]]):
        o = pl.store(pl.load(x, [0, 0], [1, 16]), [0, 0], o)
        return o

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[N, M], pl.FP32], x: pl.Tensor[[%s, 16], pl.FP32], o: pl.Out[pl.Tensor[[%s, 16], pl.FP32]]):
        o = self.k(a, x, o)
        return o
''' % (dim, dim, dim, dim)
    text_out = pl.parse(src).as_python()
    assert "pl.Tensor[[%s, 16], pl.FP32]" % text in text_out
    assert text_out.count("pl.dynamic(") == 2
    assert pl.parse(text_out).as_python() == text_out


def test_derived_dim_python_semantics_of_floor_division():
    @pl.jit
    def halves(a: pl.Tensor[[N, 16], pl.FP32], x: pl.Tensor[[(N + 1) // 2, 16], pl.FP32], o: pl.Out[pl.Tensor[[(N + 1) // 2, 16], pl.FP32]]):
        with pl.at(level=pl.Level.CORE_GROUP):
            o = pl.store(pl.load(x, [0, 0], [1, 16]), [0, 0], o)
        return o

    for n, rows in ((7, 4), (8, 4), (9, 5)):
        halves(torch.randn(n, 16), torch.randn(rows, 16), torch.zeros(rows, 16))
    with pytest.raises(PTORuntimeError):
        halves(torch.randn(9, 16), torch.randn(4, 16), torch.zeros(4, 16))


def test_true_division_over_a_dynvar_is_unsupported():
    @pl.jit.incore
    def k(x: pl.Tensor[[N / 2, 64], pl.FP32], out: pl.Out[pl.Tensor[[N / 2, 64], pl.FP32]]):
        out = pl.store(pl.load(x, [0, 0], [8, 64]), [0, 0], out)
        return out

    @pl.jit
    def entry(x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        return k(x, out)

    with pytest.raises(UnsupportedFeatureError) as e:
        entry(torch.randn(64, 64), torch.zeros(64, 64))
    assert e.value.message == "the operator '/' over pl.dynamic dimensions is not supported in this version"
