"""DSL-V2-SPEC §2 F-sa (P4-12): a module-level @pl.function(type=...) is a
standalone function; a @pl.program method or a @pl.jit body calling it by bare
name pulls it into that program once, under its own name; InCore becomes a
kernel (also through pl.submit), Inline is spliced, Opaque is a subroutine;
calling it from Python is v1's `cannot be called directly` TypeError."""
import pytest
import torch

import pypto.language as pl

FUNCS = """
@pl.function(type=pl.FunctionType.InCore)
def scale(a: pl.Tensor[[8, 16], pl.FP32], o: pl.Out[pl.Tensor[[8, 16], pl.FP32]], s: pl.Scalar[pl.FP32]) -> pl.Tensor[[8, 16], pl.FP32]:
    o = pl.store(pl.mul(pl.load(a, [0, 0], [8, 16]), s), [0, 0], o)
    return o

@pl.function(type=pl.FunctionType.InCore)
def split(a: pl.Tensor[[8, 16], pl.FP32], lo: pl.Out[pl.Tensor[[8, 16], pl.FP32]], hi: pl.Out[pl.Tensor[[8, 16], pl.FP32]]) -> tuple[pl.Tensor[[8, 16], pl.FP32], pl.Tensor[[8, 16], pl.FP32]]:
    x = pl.load(a, [0, 0], [8, 16])
    lo = pl.store(pl.minimum(x, 0.0), [0, 0], lo)
    hi = pl.store(pl.maximum(x, 0.0), [0, 0], hi)
    return lo, hi

@pl.function(type=pl.FunctionType.Inline)
def twice(v):
    return v * 2.0

@pl.function
def repeat(a, o, n):
    for i in pl.range(n):
        o = scale(o, o, twice(1.5))
    return o

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[8, 16], pl.FP32], o: pl.Out[pl.Tensor[[8, 16], pl.FP32]], lo: pl.Out[pl.Tensor[[8, 16], pl.FP32]], hi: pl.Out[pl.Tensor[[8, 16], pl.FP32]]):
        o = scale(a, o, 2.0)
        o = repeat(a, o, 2)
        lo, hi = split(o, lo, hi)
        return o

@pl.jit
def entry(a: pl.Tensor[[8, 16], pl.FP32], o: pl.Out[pl.Tensor[[8, 16], pl.FP32]]):
    o = scale(a, o, twice(2.0))
    o, t = pl.submit(scale, o, o, -1.0)
    return o
"""


def _args():
    a = torch.randn(8, 16, generator=torch.Generator().manual_seed(3))
    return a, torch.zeros(8, 16), torch.zeros(8, 16), torch.zeros(8, 16)


def test_F_sa_program_pulls_standalone_functions_in_once(load):
    mod, _ = load(FUNCS)
    a, o, lo, hi = _args()
    mod.P(a, o, lo, hi)
    want = a * 2 * 3 * 3
    assert torch.equal(o, want) and torch.equal(lo, want.clamp(max=0)) and torch.equal(hi, want.clamp(min=0))
    low = mod.P.lower(*_args())
    assert list(low.functions) == ["main", "repeat", "scale", "split"]  # twice is spliced (Inline)
    assert low.functions["scale"].func_type is pl.FunctionType.InCore
    assert low.functions["repeat"].func_type is pl.FunctionType.Orchestration  # Opaque, promoted as v1's
    assert low.functions["split"].return_types == ["pl.Tensor[[8, 16], pl.FP32]"] * 2
    assert str(low).count("    def scale(self, ") == 1 and "self.scale(a, o, 2.0)" in low
    assert pl.parse(low).lower(*_args()) == low


def test_F_sa_jit_entry_call_and_submit(load):
    mod, _ = load(FUNCS)
    a, o, _, _ = _args()
    mod.entry(a, o)
    assert torch.equal(o, a * 4 * -1)
    low = mod.entry.lower(a, o)
    assert list(low.functions) == ["entry", "scale"] and "pl.submit(self.scale, o, o, -1.0)" in low


@pytest.mark.parametrize("name", ["scale", "twice", "repeat"])
def test_F_sa_calling_from_python_is_a_type_error(load, name):
    mod, _ = load(FUNCS)
    with pytest.raises(TypeError) as e:
        getattr(mod, name)(*_args()[:2])
    assert str(e.value) == ("@pl.function function '%s' cannot be called directly; call it from a @pl.program "
                            "method or a @pl.jit entry" % name)


def test_F_sa_parse_of_one_standalone_function(load):
    f = pl.parse(FUNCS.split("@pl.function(type=pl.FunctionType.Inline)")[0].split("@pl.function(type=pl.FunctionType.InCore)\ndef split")[0])
    assert f.name == "scale" and f.func_type is pl.FunctionType.InCore
