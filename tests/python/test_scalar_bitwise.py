"""Bitwise operators on integer scalars (docs/dsl.md, "Scalar arithmetic"): & | ^ << >> and ~
with Python's precedence and meaning (>> floors), results wrapped to 64 bits (a count of 64 or
more shifts every bit out), in orchestration and kernel code, folded or at run time alike;
their errors.  One test per rule."""
import random

import pytest
import torch

import pypto.language as pl
from pypto import debug
from pypto.language.parser.diagnostics import InvalidOperationError, ParserTypeError, UnsupportedFeatureError
from pypto.runtime import PTORuntimeError

from conftest import line_of

MASK = (1 << 4) - 1  # a module constant folds


def _wrap(v):
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >> 63 else v


def _py(op, a, b):
    if op == "<<":
        return 0 if b >= 64 else _wrap(a << b)
    if op == ">>":
        return (-1 if a < 0 else 0) if b >= 64 else a >> b
    return {"&": a & b, "|": a | b, "^": a ^ b}[op]


@pl.jit
def orch_ops(cfg: pl.Tensor[[2], pl.INT64], out: pl.Out[pl.Tensor[[7], pl.INT64]]):
    a = pl.tensor.read(cfg, [0])
    b = pl.tensor.read(cfg, [1])
    pl.tensor.write(out, [0], a & b)
    pl.tensor.write(out, [1], a | b)
    pl.tensor.write(out, [2], a ^ b)
    pl.tensor.write(out, [3], a << b)
    pl.tensor.write(out, [4], a >> b)
    pl.tensor.write(out, [5], ~a)
    pl.tensor.write(out, [6], a & MASK | b << 2 ^ a >> 1)
    return out


@pl.jit.incore
def _kernel_ops(cfg: pl.Tensor[[2], pl.INT64], out: pl.Out[pl.Tensor[[7], pl.INT64]]):
    a = pl.read(cfg, [0])
    b = pl.read(cfg, [1])
    pl.write(out, [0], a & b)
    pl.write(out, [1], a | b)
    pl.write(out, [2], a ^ b)
    pl.write(out, [3], a << b)
    pl.write(out, [4], a >> b)
    pl.write(out, [5], ~a)
    pl.write(out, [6], a & MASK | b << 2 ^ a >> 1)
    return out


@pl.jit
def kernel_ops(cfg: pl.Tensor[[2], pl.INT64], out: pl.Out[pl.Tensor[[7], pl.INT64]]):
    return _kernel_ops(cfg, out)


def _want(a, b):
    return [_py("&", a, b), _py("|", a, b), _py("^", a, b), _py("<<", a, b), _py(">>", a, b), ~a,
            _wrap(a & MASK | _wrap(b << 2) ^ a >> 1)]


@pytest.mark.parametrize("entry", [orch_ops, kernel_ops], ids=["orchestration", "kernel"])
def test_bitwise_operators_match_python(entry):
    rng = random.Random(7)
    cases = [(45, 27), (-45, 3), (-1, 63), (1, 64), (-8, 70), (-(1 << 63), 1), ((1 << 62) + 5, 1), (0x5555, 0)]
    cases += [(rng.randrange(-(1 << 40), 1 << 40), rng.randrange(0, 70)) for _ in range(20)]
    for a, b in cases:
        out = torch.zeros(7, dtype=torch.int64)
        entry(torch.tensor([a, b]), out)
        assert out.tolist() == _want(a, b), (a, b)


@pytest.mark.parametrize("entry, code", [(orch_ops, 9), (kernel_ops, 12)], ids=["orchestration", "kernel"])
def test_negative_shift_count_at_run_time_fails(entry, code):
    with pytest.raises(PTORuntimeError) as e:
        entry(torch.tensor([5, -1]), torch.zeros(7, dtype=torch.int64))
    assert e.value.code == code
    assert "negative shift count" in str(e.value)


def test_constant_operands_fold_as_at_run_time(load):
    mod, _ = load("""
        @pl.jit
        def f(out: pl.Out[pl.Tensor[[4], pl.INT64]]):
            pl.tensor.write(out, [0], -45 >> 2)
            pl.tensor.write(out, [1], 1 << 63)
            pl.tensor.write(out, [2], ~MASK & 0xFF)
            pl.tensor.write(out, [3], MASK ^ 3 | 64)
            return out

        MASK = 15
        """)
    out = torch.zeros(4, dtype=torch.int64)
    mod.f(out)
    assert out.tolist() == [-45 >> 2, -(1 << 63), ~15 & 0xFF, 15 ^ 3 | 64]


def test_constant_negative_shift_count_is_a_compile_error(load):
    mod, path = load("""
        @pl.jit
        def f(cfg: pl.Tensor[[2], pl.INT64], out: pl.Out[pl.Tensor[[1], pl.INT64]]):
            a = pl.tensor.read(cfg, [0])
            pl.tensor.write(out, [0], a << -2)
            return out
        """)
    with pytest.raises(InvalidOperationError) as e:
        mod.f(torch.tensor([1, 2]), torch.zeros(1, dtype=torch.int64))
    assert e.value.message == "negative shift count"


def test_augmented_bitwise_assignments(load):
    mod, _ = load("""
        @pl.jit
        def f(cfg: pl.Tensor[[2], pl.INT64], out: pl.Out[pl.Tensor[[1], pl.INT64]]):
            c = pl.tensor.read(cfg, [0])
            c <<= 3
            c |= 5
            c &= 0xFFF
            c ^= 0x10
            c >>= 1
            pl.tensor.write(out, [0], c)
            return out
        """)
    out = torch.zeros(1, dtype=torch.int64)
    mod.f(torch.tensor([1234, 0]), out)
    c = 1234
    c <<= 3; c |= 5; c &= 0xFFF; c ^= 0x10; c >>= 1
    assert out.tolist() == [c]


@pytest.mark.parametrize("expr, op, dt", [("a & 1.5", "&", "FP32"), ("x << 1", "<<", "FP32"), ("1 | x", "|", "FP32")])
def test_bitwise_operator_of_a_float_is_a_type_error(load, expr, op, dt):
    mod, _ = load("""
        @pl.jit
        def f(cfg: pl.Tensor[[2], pl.INT64], out: pl.Out[pl.Tensor[[1], pl.INT64]]):
            a = pl.tensor.read(cfg, [0])
            x = 2.5
            pl.tensor.write(out, [0], %s)
            return out
        """ % expr)
    with pytest.raises(ParserTypeError) as e:
        mod.f(torch.tensor([1, 2]), torch.zeros(1, dtype=torch.int64))
    assert e.value.message == "operator '%s' needs integer scalars, got %s" % (op, dt)


def test_invert_of_a_float_is_a_type_error(load):
    mod, _ = load("""
        @pl.jit
        def f(out: pl.Out[pl.Tensor[[1], pl.INT64]]):
            x = 2.5
            pl.tensor.write(out, [0], pl.cast(~x, pl.INT64))
            return out
        """)
    with pytest.raises(ParserTypeError) as e:
        mod.f(torch.zeros(1, dtype=torch.int64))
    assert e.value.message == "operator '~' needs an integer scalar, got FP32"


@pytest.mark.parametrize("op, hint", [("&", "use pl.and_ / pl.ands"), ("<<", "use pl.shl / pl.shls")])
def test_bitwise_operator_of_a_tile_names_the_tile_op(load, op, hint):
    mod, _ = load("""
        @pl.jit.incore
        def k(x: pl.Tensor[[8, 8], pl.INT32], out: pl.Out[pl.Tensor[[8, 8], pl.INT32]]):
            t = pl.load(x, [0, 0], [8, 8])
            out = pl.store(t %s 1, [0, 0], out)
            return out

        @pl.jit
        def f(x: pl.Tensor[[8, 8], pl.INT32], out: pl.Out[pl.Tensor[[8, 8], pl.INT32]]):
            return k(x, out)
        """ % op)
    with pytest.raises(UnsupportedFeatureError) as e:
        mod.f(torch.zeros(8, 8, dtype=torch.int32), torch.zeros(8, 8, dtype=torch.int32))
    assert e.value.message == "tile operator '%s' is not supported in this version" % op
    assert e.value.hint == hint


PRINTED = '''
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, cfg: pl.Tensor[[2], pl.INT64], out: pl.Out[pl.Tensor[[3], pl.INT64]]):
        a = pl.tensor.read(cfg, [0])
        b = pl.tensor.read(cfg, [1])
        pl.tensor.write(out, [0], (a | b) & ~(a ^ b) << 2)
        pl.tensor.write(out, [1], a & b | a ^ b >> 1)
        pl.tensor.write(out, [2], (a + b) << 1 | -a)
        return out
'''


def test_bitwise_operators_print_with_pythons_parentheses():
    text = pl.parse(PRINTED).as_python()
    assert "(a | b) & ~(a ^ b) << 2" in text
    assert "a & b | a ^ b >> 1" in text
    assert "a + b << 1 | -a" in text
    assert pl.parse(text).as_python() == text
    out = torch.zeros(3, dtype=torch.int64)
    pl.parse(PRINTED)(torch.tensor([45, 27]), out)
    a, b = 45, 27
    assert out.tolist() == [(a | b) & ~(a ^ b) << 2, a & b | a ^ b >> 1, (a + b) << 1 | -a]


def test_torch_codegen_translates_bitwise_operators():
    src = debug.torch_codegen(pl.parse(PRINTED))
    assert "<<" in src and "~" in src
    ns = {}
    exec(compile(src, "<torch_codegen>", "exec"), ns)
    out = torch.zeros(3, dtype=torch.int64)
    ns["main"](torch.tensor([45, 27]), out)
    a, b = 45, 27
    assert out.tolist() == [(a | b) & ~(a ^ b) << 2, a & b | a ^ b >> 1, (a + b) << 1 | -a]
