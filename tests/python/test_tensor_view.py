"""DSL-V2-SPEC §5 pl.TensorView (P4-15): the third entry of a pl.Tensor[...] annotation of a
program function, its texts, and its rejection in @pl.jit signatures (docs/dsl.md, "Dynamic
shapes"); its valid_shape= is tests/python/test_view_valid_regions.py's.  One test per rule."""
import pytest
import torch

import pypto.language as pl
from pypto.language.parser.diagnostics import ParserTypeError, UnsupportedFeatureError


def _program(view):
    src = '''
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32, %s], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
        out = pl.store(pl.add(pl.load(x, [0, 0], [16, 16]), 1.0), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
        out = self.k(x, out)
        return out
''' % view
    return pl.parse(src)


@pytest.mark.parametrize("view", ["pl.TensorView(layout=pl.TensorLayout.ND)", "pl.TensorView(layout=pl.ND)",
                                  "pl.TensorView()", "pl.TensorView(stride=None, layout=pl.Layout.ND, valid_shape=None, pad=None)"])
def test_tensor_view_nd_entry_is_accepted(view):
    prog = _program(view)
    x, out = torch.randn(16, 16), torch.zeros(16, 16)
    prog(x, out)
    assert torch.equal(out, x + 1)
    assert pl.TensorLayout.ND is pl.ND


def test_tensor_view_layout_required_with_valid_shape():
    with pytest.raises(ParserTypeError) as e:
        _program("pl.TensorView(valid_shape=[8, 16])")(torch.randn(16, 16), torch.zeros(16, 16))
    assert e.value.message == "pl.TensorView: layout= is required when stride, valid_shape or pad is given"


@pytest.mark.parametrize("kw", ["stride=[16, 1]", "pad=pl.PadValue.zero"])
def test_tensor_view_stride_and_pad_are_later(kw):
    with pytest.raises(UnsupportedFeatureError) as e:
        _program("pl.TensorView(%s, layout=pl.TensorLayout.ND)" % kw)(torch.randn(16, 16), torch.zeros(16, 16))
    assert e.value.message == "pl.TensorView(%s=...) is not supported in this version" % kw.split("=")[0]


def test_tensor_view_in_jit_signature_is_type_error():
    @pl.jit
    def f(x: pl.Tensor[[16, 16], pl.FP32, pl.TensorView(layout=pl.TensorLayout.ND)], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
        with pl.at(level=pl.Level.CORE_GROUP):
            out = pl.store(pl.load(x, [0, 0], [16, 16]), [0, 0], out)
        return out

    with pytest.raises(TypeError) as e:
        f(torch.randn(16, 16), torch.zeros(16, 16))
    assert str(e.value) == ("@pl.jit function 'f': parameter 'x': pl.TensorView annotations are not supported "
                            "in @pl.jit signatures")


def test_tensor_view_dn_layout_is_ascend_specific():
    with pytest.raises(UnsupportedFeatureError) as e:
        _program("pl.TensorView(layout=pl.DN)")(torch.randn(16, 16), torch.zeros(16, 16))
    assert e.value.message == ("pl.DN is Ascend-specific: it selects a hardware fractal layout; "
                               "it has no meaning on the CPU backend")
