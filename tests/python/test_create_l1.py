"""pl.create_l1(shape, dtype, transpose=False) (docs/dsl.md, Operations): the on-chip buffer a
kernel fills with pl.gather_row and feeds to pl.matmul, a kernel-local tensor-level value of
zeros (where it lives and its transposed layout are hints on the CPU).  One test per rule."""
import pytest
import torch

import pypto.language as pl
from pypto.language.parser.diagnostics import InvalidOperationError, ParserSyntaxError

SRC = """
@pl.jit.incore
def _paged(probs: pl.Tensor[[16, 8], pl.FP32], pool: pl.Tensor[[32, 16], pl.FP32], table: pl.Tensor[[8], pl.INT32],
           out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
    kv = pl.{spelling}([8, 16], pl.FP32)
    for r in pl.range(8):
        kv = pl.gather_row(kv, pool, [r, 0], [pl.read(table, [r]), 0], [1, 16])
    out = pl.store(pl.matmul(probs, kv), [0, 0], out)
    return out


@pl.jit.incore
def _transposed(q: pl.Tensor[[16, 16], pl.FP32], pool: pl.Tensor[[32, 16], pl.FP32], table: pl.Tensor[[8], pl.INT32],
                out: pl.Out[pl.Tensor[[16, 8], pl.FP32]]):
    kt = pl.create_l1([16, 8], pl.FP32, transpose=True)
    for r in pl.range(8):
        kt = pl.gather_row(kt, pool, [0, r], [pl.read(table, [r]), 0], [1, 16], transpose=True)
    out = pl.store(pl.matmul(q, kt), [0, 0], out)
    return out


@pl.jit.incore
def _fresh(out: pl.Out[pl.Tensor[[4, 8], pl.BF16]]):
    out = pl.store(pl.create_l1([4, 8], pl.BF16), [0, 0], out)
    return out


@pl.jit
def paged(probs: pl.Tensor[[16, 8], pl.FP32], pool: pl.Tensor[[32, 16], pl.FP32], table: pl.Tensor[[8], pl.INT32],
          out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
    return _paged(probs, pool, table, out)


@pl.jit
def transposed(q: pl.Tensor[[16, 16], pl.FP32], pool: pl.Tensor[[32, 16], pl.FP32], table: pl.Tensor[[8], pl.INT32],
               out: pl.Out[pl.Tensor[[16, 8], pl.FP32]]):
    return _transposed(q, pool, table, out)


@pl.jit
def fresh(out: pl.Out[pl.Tensor[[4, 8], pl.BF16]]):
    return _fresh(out)
"""

TABLE = torch.tensor([3, 9, 0, 31, 7, 7, 12, 20], dtype=torch.int32)


@pytest.mark.parametrize("spelling", ["create_l1", "tensor.create_l1"])
def test_create_l1_filled_by_gather_row_feeds_matmul(load, spelling):
    mod, _ = load(SRC.replace("{spelling}", spelling))
    p, pool, out = torch.randn(16, 8), torch.randn(32, 16), torch.zeros(16, 16)
    mod.paged(p, pool, TABLE, out)
    torch.testing.assert_close(out, p @ pool[TABLE.long()], rtol=1e-5, atol=1e-5)


def test_create_l1_transpose_holds_gathered_rows_as_columns(load):
    mod, _ = load(SRC.replace("{spelling}", "create_l1"))
    q, pool, out = torch.randn(16, 16), torch.randn(32, 16), torch.zeros(16, 8)
    mod.transposed(q, pool, TABLE, out)
    torch.testing.assert_close(out, q @ pool[TABLE.long()].T, rtol=1e-5, atol=1e-5)


def test_create_l1_starts_as_zeros(load):
    mod, _ = load(SRC.replace("{spelling}", "create_l1"))
    out = torch.full((4, 8), 7.0, dtype=torch.bfloat16)
    mod.fresh(out)
    assert torch.equal(out, torch.zeros(4, 8, dtype=torch.bfloat16))


def test_create_l1_transpose_must_be_a_bool_literal(load):
    mod, _ = load("""
        @pl.jit.incore
        def _k(out: pl.Out[pl.Tensor[[4, 8], pl.FP32]]):
            out = pl.store(pl.create_l1([4, 8], pl.FP32, transpose=1), [0, 0], out)
            return out

        @pl.jit
        def f(out: pl.Out[pl.Tensor[[4, 8], pl.FP32]]):
            return _k(out)
        """)
    with pytest.raises(ParserSyntaxError) as e:
        mod.f(torch.zeros(4, 8))
    assert e.value.message == "pl.create_l1() transpose must be a boolean literal (True/False)"


def test_create_l1_in_orchestration_is_refused(load):
    mod, _ = load("""
        @pl.jit
        def f(out: pl.Out[pl.Tensor[[4, 8], pl.FP32]]):
            t = pl.create_l1([4, 8], pl.FP32)
            return out
        """)
    with pytest.raises(InvalidOperationError) as e:
        mod.f(torch.zeros(4, 8))
    assert e.value.message == "pl.create_l1 applies in kernel code only"
