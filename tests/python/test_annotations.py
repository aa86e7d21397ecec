"""Annotations in a body, from Python: an annotated scalar local given a
constant (docs/dsl.md, "Statements" `x: T = e`) runs in its dtype on both planes, and a
function's `-> T` is checked against what it returns (docs/dsl.md, "Annotations")."""
import pytest
import torch

from pypto.language.parser.diagnostics import ParserTypeError

from conftest import line_of


def test_annotated_scalar_local_constant_runs_on_both_planes(load):
    mod, _ = load("""
        @pl.jit.incore
        def scale(a: pl.Tensor, out: pl.Out[pl.Tensor], k: pl.Scalar[pl.INT32]):
            s: pl.Scalar[pl.FP32] = 2
            pl.store(pl.add(pl.mul(pl.load(a, [0, 0], [4, 8]), s), k), [0, 0], out)
            return out

        @pl.jit
        def f(a: pl.Tensor, out: pl.Out[pl.Tensor]) -> pl.Tensor[[4, 8], pl.FP32]:
            k: pl.Scalar[pl.INT32] = 3
            out = scale(a, out, k)
            return out
        """)
    a = torch.arange(32, dtype=torch.float32).reshape(4, 8)
    out = torch.zeros(4, 8)
    mod.f(a, out)
    assert torch.equal(out, a * 2 + 3)


def test_result_annotation_mismatch_is_a_parser_type_error(load):
    mod, path = load("""
        @pl.jit
        def f(o: pl.Out[pl.Tensor[[4, 8], pl.FP32]]) -> pl.Tensor[[2, 2], pl.INT8]:
            return o
        """)
    with pytest.raises(ParserTypeError) as e:
        mod.f.lower(torch.zeros(4, 8))
    assert e.value.message == "'f' is annotated -> pl.Tensor[[2, 2], pl.INT8] but returns pl.Tensor[[4, 8], pl.FP32]"
    line, col = line_of(path, "return o")
    assert (e.value.span["line"], e.value.span["column"]) == (line, col + len("return "))
