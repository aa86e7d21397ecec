"""Tensor-level operands in kernel code (DSL-V2-SPEC §1.1, §1.2; docs/dsl.md,
"Tensor-level code") against torch: P2-08 (the [M, 1] broadcast), P2-09
(tensor pl.matmul), P2-10 (tensor pl.matmul_acc), P2-11 (pl.full,
kernel-local pl.create_tensor), P2-15 (misplaced tensor ops), P2-19 (a
Tensor next to a Tile, INT32 -> FP16)."""
import numpy as np
import pytest
import torch

import pypto.language as pl
from pypto.language.parser.diagnostics import InvalidOperationError, ParserTypeError, UnsupportedFeatureError

BINARY = {"add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": torch.div, "maximum": torch.maximum,
          "minimum": torch.minimum}


def _kernel(load, params, body, ret="out"):
    src = "@pl.jit\ndef k(%s):\n    with pl.at(level=pl.Level.CORE_GROUP):\n%s    return %s\n" % (
        params, "".join("        %s\n" % line for line in body), ret)
    return load(src)


def _error(load, params, body, args, exc, want, where=None):
    mod, path = _kernel(load, params, body)
    with pytest.raises(exc) as e:
        mod.k(*args)
    assert e.value.message == want
    if where:
        assert (e.value.span["line"], e.value.span["column"]) == where
    return e.value


# ---- P2-08: T-ew, [M, 1] with [M, N] on either side ---------------------------------------------

@pytest.mark.parametrize("op", sorted(BINARY))
@pytest.mark.parametrize("vec_left", [False, True])
def test_p2_08_column_vector_broadcasts_on_either_side(load, op, vec_left):
    call = "pl.%s(v, a)" % op if vec_left else "pl.%s(a, v)" % op
    mod, _ = _kernel(load, "a: pl.Tensor, v: pl.Tensor, out: pl.Out[pl.Tensor]", ["pl.store(%s, [0, 0], out)" % call])
    g = torch.Generator().manual_seed(8)
    a, v = torch.rand(8, 16, generator=g) + 0.5, torch.rand(8, 1, generator=g) + 0.5
    out = torch.zeros(8, 16)
    mod.k(a, v, out)
    want = BINARY[op](v, a) if vec_left else BINARY[op](a, v)
    assert torch.equal(out, want)


def test_p2_08_operators_broadcast_too(load):
    mod, _ = _kernel(load, "a: pl.Tensor, v: pl.Tensor, out: pl.Out[pl.Tensor]", ["pl.store((v - a) / v, [0, 0], out)"])
    a, v = torch.rand(4, 8) + 1, torch.rand(4, 1) + 1
    out = torch.zeros(4, 8)
    mod.k(a, v, out)
    assert torch.equal(out, (v - a) / v)


def test_p2_08_row_vector_is_the_shape_text(load):
    _error(load, "a: pl.Tensor, v: pl.Tensor, out: pl.Out[pl.Tensor]", ["pl.store(pl.add(a, v), [0, 0], out)"],
           (torch.zeros(8, 16), torch.zeros(1, 16), torch.zeros(8, 16)), InvalidOperationError,
           "pl.add: operand shapes [8, 16] and [1, 16] differ", (6, 18))


def test_p2_08_fp16_div_fp32_is_the_dtype_text(load):
    _error(load, "a: pl.Tensor, v: pl.Tensor, out: pl.Out[pl.Tensor]", ["pl.store(pl.div(a, v), [0, 0], out)"],
           (torch.zeros(8, 16, dtype=torch.float16), torch.zeros(8, 1), torch.zeros(8, 16)), ParserTypeError,
           "pl.div: operand dtypes FP16 and FP32 differ; insert pl.cast", (6, 18))


# ---- T-red ----------------------------------------------------------------------------------

@pytest.mark.parametrize("op, ref", [("row_sum", lambda t: t.sum(1, keepdim=True)), ("row_max", lambda t: t.amax(1, keepdim=True)),
                                     ("row_min", lambda t: t.amin(1, keepdim=True)), ("col_sum", lambda t: t.sum(0, keepdim=True)),
                                     ("col_max", lambda t: t.amax(0, keepdim=True)), ("col_min", lambda t: t.amin(0, keepdim=True))])
def test_reductions_of_a_tensor(load, op, ref):
    mod, _ = _kernel(load, "a: pl.Tensor, out: pl.Out[pl.Tensor]", ["pl.store(pl.%s(a), [0, 0], out)" % op])
    a = torch.arange(8 * 16, dtype=torch.float32).reshape(8, 16).remainder(7) - 3
    out = torch.zeros(ref(a).shape)
    mod.k(a, out)
    assert torch.allclose(out, ref(a))


# ---- P2-09: tensor pl.matmul ---------------------------------------------------------------------

def _mm(load, call, a, b, out):
    rank = out.dim()
    mod, _ = _kernel(load, "a: pl.Tensor, b: pl.Tensor, out: pl.Out[pl.Tensor]", ["pl.store(%s, %s, out)" % (call, [0] * rank)])
    mod.k(a, b, out)
    return out


def test_p2_09_bf16_at_bf16_is_bf16(load):
    g = torch.Generator().manual_seed(9)
    a, b = torch.randn(16, 32, generator=g).bfloat16(), torch.randn(32, 24, generator=g).bfloat16()
    out = _mm(load, "pl.matmul(a, b)", a, b, torch.zeros(16, 24, dtype=torch.bfloat16))
    assert torch.equal(out, (a.double() @ b.double()).float().bfloat16()) or torch.equal(out, (a.float() @ b.float()).bfloat16())


def test_p2_09_out_dtype_fp32(load):
    g = torch.Generator().manual_seed(10)
    a, b = torch.randn(16, 32, generator=g).half(), torch.randn(32, 24, generator=g).half()
    out = _mm(load, "pl.matmul(a, b, out_dtype=pl.FP32)", a, b, torch.zeros(16, 24))
    torch.testing.assert_close(out, a.float() @ b.float(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("kw, ashape, bshape, ref", [
    ("a_trans=True", (32, 16), (32, 24), lambda a, b: a.T @ b),
    ("b_trans=True", (16, 32), (24, 32), lambda a, b: a @ b.T),
    ("a_trans=True, b_trans=True", (32, 16), (24, 32), lambda a, b: a.T @ b.T),
])
def test_p2_09_transposed_operands(load, kw, ashape, bshape, ref):
    g = torch.Generator().manual_seed(11)
    a, b = torch.randn(*ashape, generator=g), torch.randn(*bshape, generator=g)
    out = _mm(load, "pl.matmul(a, b, %s)" % kw, a, b, torch.zeros(16, 24))
    torch.testing.assert_close(out, ref(a, b), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("ashape, bshape", [((32,), (32, 24)), ((16, 32), (32,)), ((32,), (32,))])
def test_p2_09_one_dimensional_operands_drop_their_unit_axis(load, ashape, bshape):
    g = torch.Generator().manual_seed(12)
    a, b = torch.randn(*ashape, generator=g), torch.randn(*bshape, generator=g)
    want = a @ b
    out = _mm(load, "pl.matmul(a, b)", a, b, torch.zeros(want.shape if want.dim() else (1,)))
    torch.testing.assert_close(out, want.reshape(out.shape), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("ashape, bshape", [((3, 8, 16), (3, 16, 4)), ((2, 1, 8, 16), (3, 16, 4)), ((8, 16), (2, 16, 4))])
def test_p2_09_batched_with_broadcast(load, ashape, bshape):
    g = torch.Generator().manual_seed(13)
    a, b = torch.randn(*ashape, generator=g), torch.randn(*bshape, generator=g)
    want = a @ b
    out = _mm(load, "pl.matmul(a, b)", a, b, torch.zeros(want.shape))
    torch.testing.assert_close(out, want, rtol=1e-5, atol=1e-5)


def test_p2_09_int8_accumulates_in_int32(load):
    g = torch.Generator().manual_seed(14)
    a, b = torch.randint(-128, 128, (8, 64), generator=g, dtype=torch.int8), torch.randint(-128, 128, (64, 8), generator=g, dtype=torch.int8)
    out = _mm(load, "pl.matmul(a, b, out_dtype=pl.INT32)", a, b, torch.zeros(8, 8, dtype=torch.int32))
    assert torch.equal(out, a.int() @ b.int())


MM2 = "a: pl.Tensor, b: pl.Tensor, out: pl.Out[pl.Tensor]"


@pytest.mark.parametrize("call, ashape, bshape, exc, want, col", [
    ("pl.matmul(a, b, b_trans=True)", (16, 32), (32, 24), InvalidOperationError, "pl.matmul: inner dimensions differ: [16, 32] vs [24, 32]", 18),
    ("pl.matmul(a, b, a_trans=True)", (32,), (32, 24), InvalidOperationError, "tensor.matmul: a_trans does not apply to a 1D lhs", 42),
    ("pl.matmul(a, b, b_trans=True)", (16, 32), (32,), InvalidOperationError, "tensor.matmul: b_trans does not apply to a 1D rhs", 42),
    ("pl.matmul(a, b)", (2, 8, 16), (3, 16, 4), InvalidOperationError, "pl.matmul: batch dimensions [2] and [3] do not broadcast", 18),
    ("pl.matmul(a, b, out_dtype=pl.INT32)", (8, 16), (16, 4), ParserTypeError, "pl.matmul: out_dtype=INT32 is not valid for FP32 operands", 44),
])
def test_p2_09_tensor_matmul_errors(load, call, ashape, bshape, exc, want, col):
    _error(load, MM2, ["pl.store(%s, [0, 0], out)" % call], (torch.zeros(*ashape), torch.zeros(*bshape), torch.zeros(16, 24)), exc, want,
           (6, col))


def test_p2_09_c_matrix_nz_is_ascend_specific(load):
    _error(load, MM2, ["pl.store(pl.matmul(a, b, c_matrix_nz=True), [0, 0], out)"], (torch.zeros(8, 16), torch.zeros(16, 4), torch.zeros(8, 4)),
           UnsupportedFeatureError, "c_matrix_nz= is Ascend-specific: it selects a hardware fractal layout; it has no meaning on the CPU backend")


def test_p2_09_tile_a_trans_is_the_transpose_view_text(load):
    _error(load, MM2, ["t = pl.load(a, [0, 0], [8, 16])", "pl.store(pl.matmul(t, b, a_trans=True), [0, 0], out)"],
           (torch.zeros(8, 16), torch.zeros(16, 4), torch.zeros(8, 4)), ParserTypeError,
           "pl.matmul: a_trans=True is not supported for Tile operands; use pl.tile.transpose_view", (7, 42))


def test_p2_09_v1_tile_fp16_matmul_is_still_fp32(load):
    mod, _ = _kernel(load, MM2, ["t = pl.load(a, [0, 0], [8, 16])", "pl.store(pl.matmul(t, pl.load(b, [0, 0], [16, 4])), [0, 0], out)"])
    g = torch.Generator().manual_seed(15)
    a, b = torch.randn(8, 16, generator=g).half(), torch.randn(16, 4, generator=g).half()
    out = torch.zeros(8, 4)
    mod.k(a, b, out)
    torch.testing.assert_close(out, a.float() @ b.float(), rtol=1e-5, atol=1e-5)


# ---- P2-10: tensor pl.matmul_acc --------------------------------------------------------------

def test_p2_10_matmul_acc_with_init_cond_in_a_k_loop(load):
    mod, _ = _kernel(load, "a: pl.Tensor, b: pl.Tensor, c: pl.Tensor, out: pl.Out[pl.Tensor]",
                     ["acc = pl.create_tensor([16, 24], pl.FP32)", "for k in pl.range(3):", "    acc = pl.matmul_acc(acc, a, b, init_cond=(k == 0))",
                      "pl.store(acc, [0, 0], out)"])
    g = np.random.default_rng(16)
    a, b, c = (torch.from_numpy(g.standard_normal(s).astype(np.float32)) for s in ((16, 32), (32, 24), (16, 24)))
    out = torch.zeros(16, 24)
    mod.k(a, b, c, out)
    want = 3 * (a.double().numpy() @ b.double().numpy())  # the zeros are dropped at k == 0
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-5, atol=1e-4)


def test_p2_10_matmul_acc_wrong_accumulator_dtype(load):
    _error(load, "a: pl.Tensor, b: pl.Tensor, c: pl.Tensor, out: pl.Out[pl.Tensor]", ["pl.store(pl.matmul_acc(c, a, b), [0, 0], out)"],
           (torch.zeros(8, 16), torch.zeros(16, 4), torch.zeros(8, 4, dtype=torch.float16), torch.zeros(8, 4, dtype=torch.float16)),
           ParserTypeError, "tensor.matmul_acc requires accumulator dtype FP32, but got FP16", (6, 32))


def test_p2_10_matmul_acc_wrong_accumulator_shape(load):
    _error(load, "a: pl.Tensor, b: pl.Tensor, c: pl.Tensor, out: pl.Out[pl.Tensor]", ["pl.store(pl.matmul_acc(c, a, b), [0, 0], out)"],
           (torch.zeros(8, 16), torch.zeros(16, 4), torch.zeros(8, 8), torch.zeros(8, 8)), InvalidOperationError,
           "pl.matmul_acc: accumulator shape [8, 8] does not match the product shape [8, 4]", (6, 32))


# ---- P2-11: pl.full, kernel-local pl.create_tensor ----------------------------------------------

def test_p2_11_full_and_local_create_tensor_values(load):
    mod, _ = _kernel(load, "a: pl.Tensor, out: pl.Out[pl.Tensor], s: pl.Scalar[pl.FP32]",
                     ["z = pl.create_tensor([4, 8], pl.FP32)", "f = pl.full([4, 8], dtype=pl.FP32, value=s)",
                      "pl.store(a + f + z, [0, 0], out)"])
    a = torch.rand(4, 8)
    out = torch.zeros(4, 8)
    mod.k(a, out, 1.5)
    assert torch.equal(out, a + 1.5)


def test_p2_11_local_create_tensor_reads_zero(load):
    mod, _ = _kernel(load, "out: pl.Out[pl.Tensor]", ["pl.store(pl.create_tensor([4, 8], pl.INT32), [0, 0], out)"])
    out = torch.full((4, 8), 7, dtype=torch.int32)
    mod.k(out)
    assert torch.equal(out, torch.zeros(4, 8, dtype=torch.int32))


@pytest.mark.parametrize("line, exc, want, col", [
    ("x = pl.full([4, n], dtype=pl.FP32, value=1.0)", ParserTypeError, "pl.full shape element 1 must be a compile-time constant", 25),
    ("x = pl.create_tensor([n, 8], pl.FP32)", InvalidOperationError, None, 0),
    ("x = pl.create_tensor([4, 8], pl.FP32, manual_dep=True)", InvalidOperationError,
     "pl.create_tensor(manual_dep=...) is not allowed in kernel code (inside a pl.at(level=pl.Level.CORE_GROUP) body)", 58),
    ("x = pl.create_tensor([4, 8], pl.FP32, init_value=1.0)", InvalidOperationError,
     "pl.create_tensor(init_value=...) is not allowed in kernel code (inside a pl.at(level=pl.Level.CORE_GROUP) body)", 58),
])
def test_p2_11_kernel_value_errors(load, line, exc, want, col):
    if want is None:  # the T-ct shape text is a Type error
        exc, want, col = ParserTypeError, "pl.create_tensor in kernel code: shape element 0 must be a compile-time constant", 31
    e = _error(load, "a: pl.Tensor, out: pl.Out[pl.Tensor], m: pl.Scalar[pl.INDEX]", ["for n in pl.range(1, m):", "    " + line],
               (torch.zeros(4, 8), torch.zeros(4, 8), 4), exc, want, (7, col + 4))
    if "create_tensor(" in want:
        assert e.hint == "start from pl.full(shape, dtype=..., value=...)"


def test_p2_11_store_into_a_local_tensor(load):
    _error(load, "a: pl.Tensor, out: pl.Out[pl.Tensor]", ["x = pl.create_tensor([4, 8], pl.FP32)", "pl.store(pl.load(a, [0, 0], [4, 8]), [0, 0], x)"],
           (torch.zeros(4, 8), torch.zeros(4, 8)), InvalidOperationError,
           "pl.store: 'x' is a kernel-local tensor; write into it with pl.assemble or a subscript write", (7, 54))


# ---- P2-15: tensor ops in orchestration ----------------------------------------------------------

@pytest.mark.parametrize("stmt, op", [("x = pl.add(a, a)", "pl.add"), ("x = pl.full([4, 8], dtype=pl.FP32, value=0.0)", "pl.full"),
                                      ("x = pl.matmul(a, a)", "pl.matmul"), ("x = a + a", "pl.add"),
                                      ("x = 2.0 * a", "pl.mul"), ("x = 1.0 - a", "pl.sub")])
def test_p2_15_misplaced_tensor_op_call_and_lower(load, stmt, op):
    mod, _ = load("@pl.jit\ndef k(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n    %s\n    return out\n" % stmt)
    want = "Misplaced tensor op '%s' in Orchestration function 'k' (should be inside InCore block)" % op
    args = (torch.zeros(8, 8), torch.zeros(8, 8))
    for run in (lambda: mod.k(*args), lambda: mod.k.lower(*args)):
        with pytest.raises(InvalidOperationError) as e:
            run()
        assert e.value.message == want
        assert e.value.hint == "wrap it in `with pl.at(level=pl.Level.CORE_GROUP):` or move it to a @pl.jit.incore function"
        assert (e.value.span["line"], e.value.span["column"]) == (5, 9)


def test_p2_15_legal_orchestration_ops_are_accepted(load):
    mod, _ = load("""
        @pl.jit
        def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            tmp = pl.create_tensor([8, 8], dtype=pl.FP32)
            s = pl.slice(a, [4, 8], [4, 0])
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.store(a + 1.0, [0, 0], tmp)
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.store(pl.mul(tmp, 2.0), [0, 0], out)
                pl.store(s + 1.0, [0, 0], out)
            pl.write(out, [7, 7], pl.read(a, [0, 1]))
            return out
        """)
    a, out = torch.rand(8, 8), torch.zeros(8, 8)
    mod.k(a, out)
    want = (a + 1) * 2
    want[:4] = a[4:] + 1
    want[7, 7] = a[0, 1]
    assert torch.equal(out, want)


# ---- P2-19: a Tensor next to a Tile; INT32 -> FP16 ---------------------------------------------

@pytest.mark.parametrize("op", sorted(BINARY))
@pytest.mark.parametrize("tile_left", [False, True])
def test_p2_19_tensor_next_to_tile_in_each_binary_op(load, op, tile_left):
    call = "pl.%s(t, b)" % op if tile_left else "pl.%s(b, t)" % op
    mod, _ = _kernel(load, "a: pl.Tensor, b: pl.Tensor, out: pl.Out[pl.Tensor]",
                     ["t = pl.load(a, [0, 0], [4, 8])", "pl.store(%s, [0, 0], out)" % call])
    a, b = torch.rand(4, 8) + 0.5, torch.rand(4, 8) + 0.5
    out = torch.zeros(4, 8)
    mod.k(a, b, out)
    assert torch.equal(out, BINARY[op](a, b) if tile_left else BINARY[op](b, a))


def test_p2_19_row_max_with_tmp_tile_of_a_tensor(load):
    mod, _ = _kernel(load, "a: pl.Tensor, out: pl.Out[pl.Tensor]",
                     ["tmp = pl.create_tile([4, 8], pl.FP32)", "pl.store(pl.row_max(a, tmp_tile=tmp), [0, 0], out)"])
    a = torch.rand(4, 8)
    out = torch.zeros(4, 1)
    mod.k(a, out)
    assert torch.equal(out, a.amax(1, keepdim=True))


def test_p2_19_int32_to_fp16_is_bit_equal_to_torch(load):
    mod, _ = _kernel(load, "a: pl.Tensor, out: pl.Out[pl.Tensor]", ["pl.store(pl.cast(a, pl.FP16), [0, 0], out)"])
    a = torch.tensor([[65519, 65520, -65520, 65504, -65519, 1, 0, 2049]], dtype=torch.int32)
    out = torch.zeros(1, 8, dtype=torch.float16)
    mod.k(a, out)
    assert torch.equal(out.view(torch.int16), a.to(torch.float16).view(torch.int16))


# ---- the printed form ----------------------------------------------------------------------

def test_tensor_level_code_prints_back_to_the_same_program(load):
    mod, _ = _kernel(load, "a: pl.Tensor, v: pl.Tensor, b3: pl.Tensor, x: pl.Tensor, out: pl.Out[pl.Tensor], o3: pl.Out[pl.Tensor]",
                     ["w = pl.sub(v, a) * pl.full([8, 16], dtype=pl.BF16, value=2.0) + pl.create_tensor([8, 16], pl.BF16)",
                      "pl.store(pl.matmul(w, a, b_trans=True), [0, 0], out)",
                      "pl.store(pl.matmul(b3, pl.matmul(a, x)), [0, 0], o3)"])
    g = torch.Generator().manual_seed(20)
    args = [torch.randn(8, 16, generator=g).bfloat16(), torch.randn(8, 1, generator=g).bfloat16(),
            torch.randn(2, 4, 8, generator=g).bfloat16(), torch.randn(16, generator=g).bfloat16(),
            torch.zeros(8, 8, dtype=torch.bfloat16), torch.zeros(2, 4, dtype=torch.bfloat16)]
    text = mod.k.lower(*args)
    assert pl.parse_program(text).lower(*args) == text
    mod.k(*args)
    a, v, b3, x = (t.float() for t in args[:4])
    w = ((v - a) * 2).bfloat16().float()
    torch.testing.assert_close(args[4].float(), (w @ a.T).bfloat16().float(), rtol=1e-2, atol=1e-2)
    torch.testing.assert_close(args[5].float(), (b3 @ (a @ x).bfloat16().float()).bfloat16().float(), rtol=2e-2, atol=2e-2)


def test_docs_tensor_level_example_compiles_as_shown_and_matches_torch(load):
    from conftest import docs_example, ROOT
    mod = docs_example(load, "@pl.jit\ndef softmax_scores(")
    g = torch.Generator().manual_seed(21)
    q, k, bias = torch.randn(16, 64, generator=g).bfloat16(), torch.randn(16, 64, generator=g).bfloat16(), torch.randn(16, 1, generator=g)
    out = torch.zeros(16, 16)
    text = mod.softmax_scores.lower(q, k, bias, out)
    doc = (ROOT / "docs" / "dsl.md").read_text()
    shown = doc[doc.index("compiles to the kernel\n\n```python\n") + len("compiles to the kernel\n\n```python\n"):]
    for line in shown[:shown.index("```")].splitlines():
        assert line in text.splitlines()
    mod.softmax_scores(q, k, bias, out)
    s = (q.float() @ k.float().T).bfloat16().float() - bias
    torch.testing.assert_close(out, torch.softmax(s, 1), rtol=1e-6, atol=1e-6)


def test_p2_09_int8_default_result_is_int8_saturated(load):
    a = torch.full((4, 64), 100, dtype=torch.int8)
    b = torch.tensor([[1], [-1]] * 32, dtype=torch.int8).repeat(1, 4)
    b[:, 0], b[:, 1] = 3, -3
    out = _mm(load, "pl.matmul(a, b)", a, b, torch.zeros(4, 4, dtype=torch.int8))
    assert torch.equal(out, (a.int() @ b.int()).clamp(-128, 127).to(torch.int8))
    assert out[0].tolist() == [127, -128, 0, 0]
