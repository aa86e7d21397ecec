"""pl.tile.<op> and pl.tensor.<op> (docs/dsl.md, Operations): the same ops as pl.<op>, run
against torch; the namespaces' restrictions and the printed pl.<op> spelling; Python-side, the
namespaces name kernel-only ops."""
import pytest
import torch

from conftest import docs_example, line_of
import pypto.language as pl


def test_docs_namespace_example_matches_torch(load):
    mod = docs_example(load, "@pl.jit\ndef shift(")
    x = torch.randn(16, 32, generator=torch.Generator().manual_seed(2))
    out = torch.zeros(16, 32)
    mod.shift(x, out)
    assert torch.equal(out, torch.clamp(x + 1.0, min=0.0))
    assert "pl.maximum(pl.add(t, 1.0), 0.0)" in mod.shift.lower(x, out)


def test_tile_namespace_softmax_matches_torch(load):
    mod, _ = load("""
        @pl.jit
        def softmax(x: pl.Tensor, out: pl.Out[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.tile.load(x, [0, 0], [32, 64])
                e = pl.tile.exp(pl.tile.row_expand_sub(t, pl.tile.row_max(t)))
                s = pl.tile.muls(pl.tile.row_expand_div(e, pl.tile.row_sum(e)), 2.0)
                pl.tile.store(pl.tile.fillpad(s), [0, 0], out)
            return out
    """)
    x = torch.randn(32, 64, generator=torch.Generator().manual_seed(3))
    out = torch.zeros(32, 64)
    mod.softmax(x, out)
    torch.testing.assert_close(out, 2 * torch.softmax(x, dim=1), rtol=1e-5, atol=1e-6)


def test_tensor_namespace_loads_its_tensor_operands(load):
    mod, _ = load("""
        @pl.jit
        def k(x: pl.Tensor, y: pl.Tensor, out: pl.Out[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.store(pl.tensor.subs(pl.tensor.mul(x, y), 1.5), [0, 0], out)
            return out
    """)
    x, y = torch.randn(8, 16), torch.randn(8, 16)
    out = torch.zeros(8, 16)
    mod.k(x, y, out)
    assert torch.equal(out, x * y - 1.5)


@pytest.mark.parametrize("call, message, at", [
    ("pl.tile.exp(x)", "pl.tile.exp expects Tile operands, got pl.Tensor[[8, 16], pl.FP32]", "x), [0"),
    ("pl.tensor.exp(t)", "pl.tensor.exp expects Tensor operands, got pl.Tile[[8, 16], pl.FP32]", "t), [0"),
    ("pl.tensor.exp(pl.add(x, t))", "pl.tensor.exp expects Tensor operands, got pl.Tile[[8, 16], pl.FP32]", "pl.add("),
    ("pl.tile.divs(t, t)", "pl.tile.divs expects a scalar right operand, got pl.Tile[[8, 16], pl.FP32]", "t), [0"),
])
def test_namespace_operand_rules(load, call, message, at):
    mod, path = load("""
        @pl.jit
        def k(x: pl.Tensor, out: pl.Out[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(x, [0, 0], [8, 16])
                pl.store(%s, [0, 0], out)
            return out
    """ % call)
    with pytest.raises(pl.diagnostics.ParserTypeError) as e:
        mod.k(torch.zeros(8, 16), torch.zeros(8, 16))
    assert e.value.message == message
    assert (e.value.span["line"], e.value.span["column"]) == line_of(path, at)


def test_namespace_names_are_kernel_only():
    with pytest.raises(RuntimeError, match=r"pl\.tile\.add can only be used inside kernel code"):
        pl.tile.add(1, 2)
    assert repr(pl.tensor.exp) == "<pypto.language.tensor.exp>"
