"""pl.expand_clone(input, target) (pl.tensor., pl.tile.; docs/dsl.md, Operations): input broadcast
along its unit axes to target's shape; into a Tensor target in kernel code (upstream's output
form: the target is only written), else a value with the target's type and valid region.
Against torch's expand, bit-exact.  One test per rule."""
import pytest
import torch

import pypto.language as pl
from pypto import debug
from pypto.language.parser.diagnostics import InvalidOperationError, ParserTypeError

DT = {"FP32": torch.float32, "FP16": torch.float16, "INT32": torch.int32}


def _rand(shape, dt):
    g = torch.Generator().manual_seed(3)
    x = torch.randn(*shape, generator=g) * 100
    return x.to(DT[dt])


@pytest.mark.parametrize("dt", list(DT))
@pytest.mark.parametrize("ishape", [(2, 4, 8), (1, 4, 8), (2, 1, 8), (2, 4, 1), (1, 1, 8), (1, 1, 1)])
def test_expand_clone_into_a_tensor_target_broadcasts_like_torch(load, dt, ishape):
    shp = list(ishape)
    mod, _ = load("""
        @pl.jit.incore
        def _k(x: pl.Tensor[[%s], pl.%s], o: pl.Out[pl.Tensor[[2, 4, 8], pl.%s]]):
            o = pl.tensor.expand_clone(x, o)
            return o

        @pl.jit
        def f(x: pl.Tensor[[%s], pl.%s], o: pl.Out[pl.Tensor[[2, 4, 8], pl.%s]]):
            return _k(x, o)
        """ % (", ".join(map(str, shp)), dt, dt, ", ".join(map(str, shp)), dt, dt))
    x, o = _rand(ishape, dt), torch.zeros(2, 4, 8, dtype=DT[dt])
    mod.f(x, o)
    assert torch.equal(o, x.expand(2, 4, 8))


def test_expand_clone_of_a_tile_target_takes_its_valid_region(load):
    mod, _ = load("""
        @pl.jit.incore
        def _k(x: pl.Tensor[[1, 16], pl.FP32], t: pl.Tensor[[8, 16], pl.FP32], o: pl.Out[pl.Tensor[[8, 16], pl.FP32]]):
            tg = pl.load(t, [0, 0], [8, 16], valid_shape=[5, 12])
            o = pl.store(pl.expand_clone(x, tg), [0, 0], o)
            return o

        @pl.jit
        def f(x: pl.Tensor[[1, 16], pl.FP32], t: pl.Tensor[[8, 16], pl.FP32], o: pl.Out[pl.Tensor[[8, 16], pl.FP32]]):
            return _k(x, t, o)
        """)
    x, o = torch.randn(1, 16), torch.full((8, 16), -1.0)
    mod.f(x, torch.zeros(8, 16), o)
    want = torch.full((8, 16), -1.0)
    want[:5, :12] = x[:, :12]
    assert torch.equal(o, want)


@pytest.mark.parametrize("ishape, oshape, cls, msg", [
    ("[4, 8]", "[2, 4, 8]", InvalidOperationError, "pl.expand_clone: input rank 2 does not match target rank 3"),
    ("[2, 3, 8]", "[2, 4, 8]", InvalidOperationError, "pl.expand_clone: input dimension 1 (3) must be 1 or the target's (4)"),
])
def test_expand_clone_shape_rules(load, ishape, oshape, cls, msg):
    mod, _ = load("""
        @pl.jit.incore
        def _k(x: pl.Tensor[%s, pl.FP32], o: pl.Out[pl.Tensor[%s, pl.FP32]]):
            o = pl.tensor.expand_clone(x, o)
            return o

        @pl.jit
        def f(x: pl.Tensor[%s, pl.FP32], o: pl.Out[pl.Tensor[%s, pl.FP32]]):
            return _k(x, o)
        """ % (ishape, oshape, ishape, oshape))
    with pytest.raises(cls) as e:
        mod.f(torch.zeros(*eval(ishape)), torch.zeros(*eval(oshape)))
    assert e.value.message == msg


def test_expand_clone_dtypes_must_match(load):
    mod, _ = load("""
        @pl.jit.incore
        def _k(x: pl.Tensor[[1, 8], pl.INT32], o: pl.Out[pl.Tensor[[4, 8], pl.FP32]]):
            o = pl.tensor.expand_clone(x, o)
            return o

        @pl.jit
        def f(x: pl.Tensor[[1, 8], pl.INT32], o: pl.Out[pl.Tensor[[4, 8], pl.FP32]]):
            return _k(x, o)
        """)
    with pytest.raises(ParserTypeError) as e:
        mod.f(torch.zeros(1, 8, dtype=torch.int32), torch.zeros(4, 8))
    assert e.value.message == "pl.expand_clone: operand dtypes INT32 and FP32 differ; insert pl.cast"


PRINTED = '''
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[2, 1, 8], pl.FP32], o: pl.Out[pl.Tensor[[2, 4, 8], pl.FP32]]) -> pl.Tensor[[2, 4, 8], pl.FP32]:
        o = pl.tensor.expand_clone(x, o)
        return o

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[2, 1, 8], pl.FP32], o: pl.Out[pl.Tensor[[2, 4, 8], pl.FP32]]) -> pl.Tensor[[2, 4, 8], pl.FP32]:
        o = self.k(x, o)
        return o
'''


def test_expand_clone_prints_back_and_translates_to_torch():
    prog = pl.parse(PRINTED)
    text = prog.as_python()
    assert "expand_clone(x, o)" in text
    assert pl.parse(text).as_python() == text
    x, o = torch.randn(2, 1, 8), torch.zeros(2, 4, 8)
    prog(x, o)
    assert torch.equal(o, x.expand(2, 4, 8))
    ns = {}
    exec(compile(debug.torch_codegen(prog), "<torch_codegen>", "exec"), ns)
    o2 = torch.zeros(2, 4, 8)
    ns["main"](x, o2)
    assert torch.equal(o2, o)
