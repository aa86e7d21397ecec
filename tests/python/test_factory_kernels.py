"""Kernels a factory makes (docs/dsl.md, "Decorators and function kinds"): a @pl.function
defined in a function body is a standalone kernel with that body's closure values; a program
or an entry elsewhere that names the factory's result calls it.  And tensors a kernel names
another way (docs/compiler.md, "Footprints"): a loop carrying a parameter's tensor, a store's
result, are that parameter's accesses.  One test per rule."""
import pytest
import torch

import pypto.language as pl
from pypto.language.parser.diagnostics import UnsupportedFeatureError


def make_scale(k: float, rows: int):
    @pl.function(type=pl.FunctionType.InCore)
    def scale(x: pl.Tensor[[rows, 32], pl.FP32], o: pl.Out[pl.Tensor[[rows, 32], pl.FP32]]) -> pl.Tensor[[rows, 32], pl.FP32]:
        r = pl.store(pl.mul(pl.load(x, [0, 0], [rows, 32]), k), [0, 0], o)
        return r
    return scale


def build(k2: float, k3: float):
    twice, thrice = make_scale(k2, 8), make_scale(k3, 8)

    @pl.program
    class Chain:
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[8, 32], pl.FP32], out: pl.Out[pl.Tensor[[8, 32], pl.FP32]]) -> pl.Tensor[[8, 32], pl.FP32]:
            t = pl.create_tensor([8, 32], dtype=pl.FP32)
            t = twice(a, t)
            out = thrice(t, out)
            return out
    return Chain


def test_factory_kernels_run_with_their_own_closure_values():
    a, out = torch.randn(8, 32), torch.zeros(8, 32)
    build(2.0, 3.0)(a, out)
    torch.testing.assert_close(out, a * 6.0)
    build(0.5, 4.0)(a, out)  # another factory call: other values, another program
    torch.testing.assert_close(out, a * 2.0)


def test_factory_kernels_are_distinct_functions_of_the_program():
    text = str(build(2.0, 3.0).lower(torch.randn(8, 32), torch.zeros(8, 32)))
    assert text.count("def scale") == 2, text


@pl.function(type=pl.FunctionType.InCore)
def _rows_by_carry(x: pl.Tensor[[32, 16], pl.FP32], o: pl.Out[pl.Tensor[[32, 16], pl.FP32]], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[32, 16], pl.FP32]:
    for i, (acc,) in pl.range(n, init_values=(o,)):
        upd = pl.store(pl.add(pl.load(x, [i * 8, 0], [8, 16]), 1.0), [i * 8, 0], acc)
        (res,) = pl.yield_(upd)
    return res


@pl.program
class Carry:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[32, 16], pl.FP32], out: pl.Out[pl.Tensor[[32, 16], pl.FP32]]) -> pl.Tensor[[32, 16], pl.FP32]:
        out = _rows_by_carry(a, out, 4)
        return out


def test_kernel_loop_carrying_a_parameter_tensor_is_its_access():
    a, out = torch.randn(32, 16), torch.zeros(32, 16)
    Carry(a, out)
    torch.testing.assert_close(out, a + 1.0)
    text = str(Carry.lower(a, out))
    assert "out: Out" in text, text  # the stores through the carry are out's


def test_a_local_naming_two_parameters_is_still_unsupported():
    src = '''
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[8, 16], pl.FP32], o1: pl.Out[pl.Tensor[[8, 16], pl.FP32]], o2: pl.Out[pl.Tensor[[8, 16], pl.FP32]], f: pl.Scalar[pl.INDEX]):
        if f == 0:
            d = pl.yield_(o1)
        else:
            d = pl.yield_(o2)
        d = pl.store(pl.load(x, [0, 0], [8, 16]), [0, 0], d)
        return o1, o2

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[8, 16], pl.FP32], o1: pl.Out[pl.Tensor[[8, 16], pl.FP32]], o2: pl.Out[pl.Tensor[[8, 16], pl.FP32]]):
        o1, o2 = self.k(x, o1, o2, 0)
        return o1
'''
    with pytest.raises(UnsupportedFeatureError) as e:
        pl.parse(src)(torch.zeros(8, 16), torch.zeros(8, 16), torch.zeros(8, 16))
    assert e.value.message == "a tensor bound to another name ('d') in kernel code is not supported in this version"
