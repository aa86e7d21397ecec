"""INDEX and INT64 scalars are one 64-bit integer each (docs/dsl.md, "Scalars"): an INDEX
value assigned to a name annotated pl.Scalar[pl.INT64] (or the reverse) is retyped, and a
name bound to one of them keeps its dtype when an expression of the other is assigned to it, so
the two ways of a loop or a branch agree.  Other
dtype pairs keep the annotation and merge texts."""
import pytest
import torch

from pypto.language.parser.diagnostics import ParserTypeError

PROG = """
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]],
          s: pl.Scalar[pl.INT64]) -> pl.Tensor[[16, 16], pl.FP32]:
        t = pl.load(a, [0, 0], [16, 16])
        pl.store(pl.add(t, pl.cast(s, pl.FP32)), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def orch(self, a: pl.Tensor[[16, 16], pl.FP32], cfg: pl.Tensor[[4], pl.INT32],
             out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        n = pl.read(cfg, [0])
        BODY
        out = self.k(a, out, m)
        return out
"""


def _run(load, body):
    mod, _ = load(PROG.replace("BODY", body))
    a, out = torch.randn(16, 16), torch.zeros(16, 16)
    mod.P(a, torch.tensor([7, 0, 0, 0], dtype=torch.int32), out)
    return a, out


def test_an_index_value_for_an_int64_name_is_retyped(load):
    a, out = _run(load, "m: pl.Scalar[pl.INT64] = (n + 3) // 2")
    assert torch.equal(out, a + 5)


def test_int64_and_index_agree_at_a_loop_merge(load):
    a, out = _run(load, "m: pl.Scalar[pl.INT64] = 0\n        for i in pl.range(n):\n            m = pl.max(m, i + 1)")
    assert torch.equal(out, a + 7)


def test_int64_and_index_agree_at_a_branch_merge(load):
    a, out = _run(load, "m: pl.Scalar[pl.INT64] = 1\n        if n > 3:\n            m = n * 2")
    assert torch.equal(out, a + 14)


def test_other_integer_dtypes_keep_the_annotation_text(load):
    with pytest.raises(ParserTypeError) as e:
        _run(load, "m: pl.Scalar[pl.INT32] = (n + 3) // 2")
    assert e.value.message == "'m' is annotated pl.Scalar[pl.INT32] but assigned pl.Scalar[pl.INDEX]"


def test_an_augmented_assignment_keeps_the_int64_dtype(load):
    a, out = _run(load, "m: pl.Scalar[pl.INT64] = 0\n        for i in pl.range(n):\n            m += i")
    assert torch.equal(out, a + 21)
