"""Run-time extents of orchestration tensors (DSL-V2-SPEC §5, DY; docs/dsl.md, "Dynamic
shapes"): a pl.create_tensor or pl.slice shape entry may be a run-time integer scalar; each
value is one dimension; a kernel compiled for a constant checks it when the task is submitted.
One test per rule."""
import pytest
import torch

import pypto.language as pl
from pypto.language.parser.diagnostics import InvalidOperationError, ParserTypeError
from pypto.runtime import PTORuntimeError

C = pl.dynamic("C")


@pl.function(type=pl.FunctionType.InCore)
def _plus_one(x: pl.Tensor[[16, 64], pl.FP32], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
    r = pl.store(pl.add(pl.load(x, [0, 0], [16, 64]), 1.0), [0, 0], o)
    return r


@pl.function(type=pl.FunctionType.InCore)
def _copy_cols(x: pl.Tensor[[16, C], pl.FP32], o: pl.Out[pl.Tensor[[16, C], pl.FP32]]) -> pl.Tensor[[16, C], pl.FP32]:
    n = pl.tensor.dim(x, 1)
    for j in pl.range(0, n, 16):
        o = pl.store(pl.load(x, [0, j], [16, 16]), [0, j], o)
    return o


@pl.program
class TwoSteps:
    """a [rows, cols] buffer and view, both run-time, through a kernel compiled for [16, 64]"""

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], cfg: pl.Tensor[[2], pl.INT64],
             out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        rows = pl.tensor.read(cfg, [0])
        cols = pl.tensor.read(cfg, [1])
        for i in pl.range(4):
            buf = pl.create_tensor([rows, cols], dtype=pl.FP32)
            t = _plus_one(pl.slice(a, [rows, cols], [i * 16, 0]), buf)
            ov = pl.slice(out, [16, cols], [i * 16, 0])
            ov = _plus_one(t, ov)
        return out


def test_runtime_extent_create_tensor_and_slice_run():
    a, out = torch.randn(64, 64), torch.zeros(64, 64)
    TwoSteps(a, torch.tensor([16, 64]), out)
    torch.testing.assert_close(out, a + 2)


def test_runtime_extent_other_than_kernel_constant_fails_at_submit():
    a, out = torch.randn(64, 64), torch.zeros(64, 64)
    with pytest.raises(PTORuntimeError) as e:
        TwoSteps(a, torch.tensor([16, 48]), out)
    assert "'_plus_one' parameter 'x' expects shape [16, 64], got a tensor of shape [16, 48] (a run-time extent)" in str(e.value)
    assert "test_runtime_extents.py:40:" in str(e.value)
    assert "error_code=9" in str(e.value)


def test_runtime_extent_below_one_fails_the_run():
    a, out = torch.randn(64, 64), torch.zeros(64, 64)
    with pytest.raises(PTORuntimeError) as e:
        TwoSteps(a, torch.tensor([0, 64]), out)
    assert "pl.create_tensor: shape entry 0 must be positive, got 0" in str(e.value)


def test_runtime_extent_slice_past_the_edge_keeps_the_window_shape():
    """the view is [16, 80] (its valid region [16, 64]): the kernel compiled for [16, 64] refuses it"""
    a, out = torch.randn(64, 64), torch.zeros(64, 64)
    with pytest.raises(PTORuntimeError) as e:
        TwoSteps(a, torch.tensor([16, 80]), out)
    assert "'_plus_one' parameter 'x' expects shape [16, 64], got a tensor of shape [16, 80] (a run-time extent)" in str(e.value)


@pl.program
class SameValue:
    """two views sized by one variable: one dimension, so one DynVar binds both"""

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 128], pl.FP32], cfg: pl.Tensor[[1], pl.INT64],
             out: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
        cols = pl.tensor.read(cfg, [0])
        v = pl.slice(a, [16, cols], [0, 0])
        ov = pl.slice(out, [16, cols], [0, 0])
        ov = _copy_cols(v, ov)
        return out


def test_runtime_extent_one_value_is_one_dimension():
    a, out = torch.randn(16, 128), torch.zeros(16, 128)
    SameValue(a, torch.tensor([96]), out)
    torch.testing.assert_close(out[:, :96], a[:, :96])
    assert torch.count_nonzero(out[:, 96:]) == 0


def test_runtime_extent_two_values_are_two_dimensions():
    src = '''
import pypto.language as pl
C = pl.dynamic("C")

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, C], pl.FP32], o: pl.Out[pl.Tensor[[16, C], pl.FP32]]) -> pl.Tensor[[16, C], pl.FP32]:
        o = pl.store(pl.load(x, [0, 0], [16, 16]), [0, 0], o)
        return o

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 128], pl.INT64], out: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
        m = pl.tensor.read(a, [0, 0])
        n = pl.tensor.read(a, [0, 1])
        x = pl.create_tensor([16, m], dtype=pl.FP32)
        y = pl.create_tensor([16, n], dtype=pl.FP32)
        y = self.k(x, y)
        return out
'''
    with pytest.raises(ParserTypeError) as e:
        pl.parse(src)(torch.zeros(16, 128, dtype=torch.int64), torch.zeros(16, 128))
    assert e.value.message == "'k' parameter 'o' expects pl.Tensor[[16, C], pl.FP32], got pl.Tensor[[16, n], pl.FP32]"


@pl.program
class DimOfRuntime:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, cfg: pl.Tensor[[1], pl.INT64], out: pl.Out[pl.Tensor[[1], pl.INT64]]) -> pl.Tensor[[1], pl.INT64]:
        n = pl.tensor.read(cfg, [0])
        b = pl.create_tensor([4, n * 2], dtype=pl.FP32)
        pl.tensor.write(out, [0], pl.tensor.dim(b, 1))
        return out


def test_runtime_extent_tensor_dim_reads_it():
    out = torch.zeros(1, dtype=torch.int64)
    DimOfRuntime(torch.tensor([21]), out)
    assert out.item() == 42


def _orch(body):
    return ('''
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
''' + body + '''        return out
''')


def _compile(body):
    pl.parse(_orch(body))(torch.zeros(64, 64), torch.zeros(64, 64))


def test_runtime_extent_must_be_an_integer():
    with pytest.raises(ParserTypeError) as e:
        _compile("        b = pl.create_tensor([4, 2.5], dtype=pl.FP32)\n")
    assert e.value.message == "shapes entries must be integer scalars"


def test_runtime_extent_bool_is_not_an_integer():
    with pytest.raises(ParserTypeError) as e:
        _compile("        b = pl.create_tensor([4, True], dtype=pl.FP32)\n")
    assert e.value.message == "pl.create_tensor shape element 1 must be an integer"


def test_runtime_extent_constant_still_positive():
    with pytest.raises(InvalidOperationError) as e:
        _compile("        b = pl.create_tensor([4, 0], dtype=pl.FP32)\n")
    assert e.value.message == "pl.create_tensor: shape entry 1 must be positive, got 0"


def test_runtime_extent_cannot_be_dropped():
    with pytest.raises(InvalidOperationError) as e:
        _compile("        n = pl.cast(pl.tensor.read(a, [0, 0]), pl.INDEX)\n        v = pl.slice(a, [n, 64], [0, 0], drop_dims=[0])\n")
    assert e.value.message == "pl.slice: drop_dims axis 0 has a run-time extent; only unit axes can be dropped"


def test_runtime_extent_printed_by_its_value():
    text = str(TwoSteps.lower(torch.randn(64, 64), torch.tensor([16, 64]), torch.zeros(64, 64)))
    assert "buf = pl.create_tensor([rows, cols], pl.FP32)" in text, text
    assert "pl.slice(a, [rows, cols], [i * 16, 0])" in text, text


@pl.function(type=pl.FunctionType.InCore)
def _store_under_own_name(x: pl.Tensor[[16, 64], pl.FP32], output: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
    res = pl.store(pl.mul(pl.load(x, [0, 0], [16, 64]), 3.0), [0, 0], output)
    return res


@pl.program
class OwnName:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        out = _store_under_own_name(a, out)
        return out


def test_kernel_returns_store_result_under_its_own_name():
    a, out = torch.randn(16, 64), torch.zeros(16, 64)
    OwnName(a, out)
    torch.testing.assert_close(out, a * 3)


@pl.function(type=pl.FunctionType.InCore)
def _init(o: pl.Out[pl.Tensor[[16, C], pl.FP32]]) -> pl.Tensor[[16, C], pl.FP32]:
    return o


@pl.program
class ResultBound:
    """a callee's DynVar result annotation takes the call site's binding"""

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 128], pl.FP32], cfg: pl.Tensor[[1], pl.INT64],
             out: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
        cols = pl.tensor.read(cfg, [0])
        acc = _init(pl.create_tensor([16, cols], dtype=pl.FP32))
        acc = _copy_cols(pl.slice(a, [16, cols], [0, 0]), acc)
        ov = pl.slice(out, [16, cols], [0, 0])
        ov = _copy_cols(acc, ov)
        return out


def test_callee_result_annotation_binds_per_call_site():
    a, out = torch.randn(16, 128), torch.zeros(16, 128)
    ResultBound(a, torch.tensor([64]), out)
    torch.testing.assert_close(out[:, :64], a[:, :64])
