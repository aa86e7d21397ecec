"""A kernel may return a name bound only inside a loop (or a branch) when every binding of
it is a pl.store into one Out parameter: the return is that parameter (docs/dsl.md,
"Statements").  Any other maybe-unassigned name keeps the use-before-assignment text."""
import pytest
import torch

from pypto.language.parser.diagnostics import UndefinedVariableError

PROG = """
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 16], pl.FP32], n: pl.Scalar[pl.INDEX],
          out: pl.Out[pl.Tensor[[64, 16], pl.FP32]]) -> pl.Tensor[[64, 16], pl.FP32]:
        for b in pl.range(n):
            t = pl.load(a, [b * 16, 0], [16, 16])
            RESULT = pl.store(pl.add(t, 1.0), [b * 16, 0], out)
        return RETURNED

    @pl.function(type=pl.FunctionType.Orchestration)
    def orch(self, a: pl.Tensor[[64, 16], pl.FP32], n: pl.Scalar[pl.INDEX],
             out: pl.Out[pl.Tensor[[64, 16], pl.FP32]]) -> pl.Tensor[[64, 16], pl.FP32]:
        out = self.k(a, n, out)
        return out
"""


@pytest.mark.parametrize("n", [4, 2, 0])
def test_a_loop_bound_store_result_returns_its_out_parameter(load, n):
    mod, _ = load(PROG.replace("RESULT", "res").replace("RETURNED", "res"))
    a, out = torch.randn(64, 16), torch.zeros(64, 16)
    mod.P(a, n, out)
    want = torch.zeros(64, 16)
    want[:n * 16] = a[:n * 16] + 1
    assert torch.equal(out, want)


def test_another_maybe_unassigned_name_keeps_the_text(load):
    mod, _ = load(PROG.replace("RESULT", "res").replace("RETURNED", "t"))
    with pytest.raises(UndefinedVariableError) as e:
        mod.P(torch.zeros(64, 16), 4, torch.zeros(64, 16))
    assert e.value.message == "'t' may be used before assignment (assigned only in some branches)"
