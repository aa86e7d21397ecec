"""pl.cast(x, dt, mode="odd") (docs/dsl.md, Operations): round to odd — an exact result stays,
an inexact one takes the neighbour whose last bit is 1 (so a later rounding to a narrower format
is not a double rounding); mode="none" is the default rounding.  Against a numpy reference,
bit-exact.  One test per rule."""
import numpy as np
import pytest
import torch

import pypto.language as pl
from pypto import debug
from pypto.language.parser.diagnostics import ParserSyntaxError, UnsupportedFeatureError


def _odd_half(x, bf16):
    """numpy's round-to-odd of float32 x into FP16 (BF16) bits."""
    out = np.empty(x.shape, np.uint16)
    with np.errstate(over="ignore"):
        return _odd_half_each(x, bf16, out)


def _odd_half_each(x, bf16, out):
    for i, f in np.ndenumerate(x):
        if bf16:
            b = np.array([f], np.float32).view(np.uint32)[0]
            lo = np.uint16(b >> 16)  # toward zero
            exact = (b & 0xFFFF) == 0
        else:
            h = np.float16(f)  # nearest even
            back = np.float32(h)
            hb = np.array([h]).view(np.uint16)[0]
            if np.isnan(f) or back == f or hb & 1:
                out[i] = hb
                continue
            out[i] = hb - 1 if abs(back) > abs(f) else hb + 1
            continue
        out[i] = lo if exact or lo & 1 or np.isnan(f) else lo + 1 if (lo & 0x7F80) != 0x7F80 else lo
    return out


def _kernel(load, src, dst, shape=(4, 16)):
    mod, _ = load("""
        @pl.jit.incore
        def _k(x: pl.Tensor[[%d, %d], pl.%s], o: pl.Out[pl.Tensor[[%d, %d], pl.%s]]):
            o = pl.store(pl.cast(pl.load(x, [0, 0], [%d, %d]), pl.%s, mode="odd"), [0, 0], o)
            return o

        @pl.jit
        def f(x: pl.Tensor[[%d, %d], pl.%s], o: pl.Out[pl.Tensor[[%d, %d], pl.%s]]):
            return _k(x, o)
        """ % ((*shape, src, *shape, dst, *shape, dst, *shape, src, *shape, dst)))
    return mod.f


@pytest.mark.parametrize("dst, bf16", [("FP16", False), ("BF16", True)])
def test_cast_odd_fp32_to_half_takes_the_odd_neighbour(load, dst, bf16):
    g = torch.Generator().manual_seed(9)
    x = torch.randn(4, 16, generator=g) * torch.tensor([1.0, 1e-3, 1e3, 6e4])[:, None]
    x[0, :4] = torch.tensor([1.0 + 2 ** -11, 1.0 + 3 * 2 ** -11, 2.0, -(1.0 + 2 ** -11)])  # FP16 ties and an exact value
    f = _kernel(load, "FP32", dst)
    o = torch.zeros(4, 16, dtype=torch.bfloat16 if bf16 else torch.float16)
    f(x, o)
    assert np.array_equal(o.view(torch.int16).numpy().view(np.uint16), _odd_half(x.numpy(), bf16))


def test_cast_odd_to_an_integer_takes_the_odd_neighbour(load):
    x = torch.tensor([[0.5, 1.5, 2.5, -2.5, 2.0, 3.7, -3.2, 4.0] * 2] * 4)
    f = _kernel(load, "FP32", "INT32")
    o = torch.zeros(4, 16, dtype=torch.int32)
    f(x, o)
    assert o[0, :8].tolist() == [1, 1, 3, -3, 2, 3, -3, 4]


def test_cast_odd_int64_to_fp32_rounds_to_odd(load):
    x = torch.tensor([[2 ** 25 + 2, 2 ** 25 + 6, 2 ** 25 + 4, 7] * 4] * 4, dtype=torch.int64)
    f = _kernel(load, "INT64", "FP32")
    o = torch.zeros(4, 16)
    f(x, o)
    # FP32 steps by 4 above 2^25: 2^25 + 2 and 2^25 + 6 are inexact, and 2^25 + 4 (last bit 1) is the odd neighbour of both
    assert o[0, :4].tolist() == [2 ** 25 + 4, 2 ** 25 + 4, 2 ** 25 + 4, 7.0]


def test_cast_mode_none_is_the_default_rounding(load):
    mod, _ = load("""
        @pl.jit.incore
        def _k(x: pl.Tensor[[4, 16], pl.FP32], o: pl.Out[pl.Tensor[[4, 16], pl.INT32]]):
            o = pl.store(pl.cast(pl.load(x, [0, 0], [4, 16]), pl.INT32, mode="none"), [0, 0], o)
            return o

        @pl.jit
        def f(x: pl.Tensor[[4, 16], pl.FP32], o: pl.Out[pl.Tensor[[4, 16], pl.INT32]]):
            return _k(x, o)
        """)
    x, o = torch.tensor([[0.5, 1.5, -2.5, 2.4] * 4] * 4), torch.zeros(4, 16, dtype=torch.int32)
    mod.f(x, o)
    assert o[0, :4].tolist() == [1, 2, -3, 2]  # round: half away from zero


def test_cast_mode_must_be_named(load):
    mod, _ = load("""
        @pl.jit.incore
        def _k(x: pl.Tensor[[4, 16], pl.FP32], o: pl.Out[pl.Tensor[[4, 16], pl.INT32]]):
            o = pl.store(pl.cast(pl.load(x, [0, 0], [4, 16]), pl.INT32, mode="even"), [0, 0], o)
            return o

        @pl.jit
        def f(x: pl.Tensor[[4, 16], pl.FP32], o: pl.Out[pl.Tensor[[4, 16], pl.INT32]]):
            return _k(x, o)
        """)
    with pytest.raises(ParserSyntaxError) as e:
        mod.f(torch.zeros(4, 16), torch.zeros(4, 16, dtype=torch.int32))
    assert e.value.message == "pl.cast mode must be one of 'round', 'rint', 'floor', 'ceil', 'trunc', 'odd', 'none'"


def test_torch_codegen_has_no_round_to_odd(load):
    src = '''
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[4, 16], pl.FP32], o: pl.Out[pl.Tensor[[4, 16], pl.FP16]]) -> pl.Tensor[[4, 16], pl.FP16]:
        o = pl.store(pl.cast(pl.load(x, [0, 0], [4, 16]), pl.FP16, mode="odd"), [0, 0], o)
        return o

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[4, 16], pl.FP32], o: pl.Out[pl.Tensor[[4, 16], pl.FP16]]) -> pl.Tensor[[4, 16], pl.FP16]:
        o = self.k(x, o)
        return o
'''
    prog = pl.parse(src)
    text = prog.as_python()
    assert 'mode="odd"' in text and pl.parse(text).as_python() == text
    with pytest.raises(UnsupportedFeatureError) as e:
        debug.torch_codegen(prog)
    assert e.value.message == "torch_codegen: 'cast' has no torch translation in this version"
