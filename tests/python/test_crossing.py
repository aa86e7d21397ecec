"""Values crossing a kernel boundary (DSL-V2-SPEC §1.6; docs/dsl.md, "Values crossing a
pl.at"): T-x through a pl.at (P2-12) and through an InCore function's returns (P2-13),
checked against torch; [OutParamNotShadowed] and T-ret (P2-14)."""
import pytest
import torch

from pypto.language.parser.diagnostics import ParserTypeError, PartialCodegenError, PassError

from conftest import docs_example, line_of

torch.manual_seed(7)


def test_p2_12_matmul_in_one_pl_at_added_in_the_next(load):
    mod, _ = load("""
        @pl.jit
        def f(a: pl.Tensor, b: pl.Tensor, bias: pl.Tensor, out: pl.Out[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                acc = pl.matmul(a, b)
            with pl.at(level=pl.Level.CORE_GROUP):
                out_t = pl.add(acc, bias)
                pl.store(out_t, [0, 0], out)
            return out
        """)
    a, b, bias = torch.randn(32, 64), torch.randn(64, 16), torch.randn(32, 16)
    out = torch.zeros(32, 16)
    mod.f(a, b, bias, out)
    torch.testing.assert_close(out, a @ b + bias, rtol=1e-5, atol=1e-4)
    text = mod.f.lower(a, b, bias, out)
    assert "acc = pl.create_tensor([32, 16], pl.FP32)\n" in text
    assert "acc_out: pl.Out[pl.Tensor[[32, 16], pl.FP32]]" in text
    assert "pl.store(acc, [0, 0], acc_out)" in text


def test_p2_12_crossing_in_a_loop_each_iteration(load):
    """A crossing inside a loop body is read in the same iteration: one allocation per trip."""
    mod, _ = load("""
        @pl.jit
        def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            for i in pl.range(4):
                with pl.at(level=pl.Level.CORE_GROUP):
                    t = pl.mul(a, 2.0)
                with pl.at(level=pl.Level.CORE_GROUP):
                    pl.store(pl.add(pl.load(out, [0, 0], [8, 8]), pl.load(t, [0, 0], [8, 8])), [0, 0], out)
            return out
        """)
    a = torch.randn(8, 8)
    out = torch.zeros(8, 8)
    mod.f(a, out)
    torch.testing.assert_close(out, 8 * a, rtol=0, atol=1e-5)


def test_p2_12_tile_crossing_keeps_the_v1_text(load):
    mod, path = load("""
        @pl.jit
        def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(a, [0, 0], [8, 8])
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.store(t, [0, 0], out)
            return out
        """)
    with pytest.raises(PassError) as e:
        mod.f(torch.zeros(8, 8), torch.zeros(8, 8))
    assert e.value.message == ("'t' is assigned inside a pl.at(level=pl.Level.CORE_GROUP) body and read after it; "
                               "a kernel hands back only the tensors it stores to")
    assert (e.value.span["line"], e.value.span["column"]) == line_of(path, "pl.store(t")


def test_p2_12_produced_in_a_loop_read_after_it_is_v4(load):
    mod, path = load("""
        @pl.jit
        def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            for i in pl.range(2):
                with pl.at(level=pl.Level.CORE_GROUP):
                    t = pl.mul(a, 2.0)
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.store(t, [0, 0], out)
            return out
        """)
    with pytest.raises(PassError) as e:
        mod.f(torch.zeros(8, 8), torch.zeros(8, 8))
    at_line = line_of(path, "with pl.at")[0]
    assert e.value.message.startswith("[ScopedTensorEscapes] tensor 't' is created inside a runtime scope (%s:%d)"
                                      % (path, at_line))


def test_p2_13_incore_function_returns_one_and_two_values(load):
    mod, _ = load("""
        @pl.jit.incore
        def k1(a: pl.Tensor, b: pl.Tensor):
            return pl.add(a, b)

        @pl.jit.incore
        def k2(a: pl.Tensor, b: pl.Tensor):
            s = pl.sub(a, b)
            return s, pl.mul(a, b)

        @pl.jit
        def f(a: pl.Tensor, b: pl.Tensor, out: pl.Out[pl.Tensor]):
            c = k1(a, b)
            d, e = k2(c, b)
            x = k1(d, e)
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.store(x, [0, 0], out)
            return out
        """)
    a, b = torch.randn(16, 32), torch.randn(16, 32)
    out = torch.zeros(16, 32)
    mod.f(a, b, out)
    c = a + b
    torch.testing.assert_close(out, (c - b) + c * b, rtol=1e-6, atol=1e-6)
    text = mod.f.lower(a, b, out)
    assert "k1_ret0 = pl.create_tensor([16, 32], pl.FP32)\n" in text
    assert "d, e = self.k2(c, b, k2_ret0, k2_ret1)" in text


ERROR_HANDLING = """
    @pl.jit
    def test_ssa_violation(x: pl.Tensor, result: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            result = pl.mul(x, 2.0)
            result = pl.add(x, 1.0)
        return result
    """


@pytest.mark.parametrize("how", ["call", "lower"])
def test_p2_14_out_param_not_shadowed(load, how):
    mod, path = load(ERROR_HANDLING)
    x, result = torch.randn(64), torch.zeros(64)
    with pytest.raises(PartialCodegenError) as e:
        if how == "call":
            mod.test_ssa_violation(x, result)
        else:
            mod.test_ssa_violation.lower(x, result)
    line, col = line_of(path, "result = pl.mul")
    assert e.value.message == ("[OutParamNotShadowed] 'result' is a pl.Out parameter of 'test_ssa_violation' but is "
                               "rebound at %s:%d to a new value, so the caller's buffer is never written" % (path, line))
    assert e.value.hint == "write into it: 'result[:] = ...' or pl.store(tile, offsets, result)"
    assert (e.value.span["line"], e.value.span["column"]) == (line, col)
    assert "[OutParamNotShadowed]" in str(e.value)
    assert isinstance(e.value, PassError) and isinstance(e.value, ValueError)
    assert torch.equal(result, torch.zeros(64))


def test_p2_14_inout_rebinding(load):
    mod, path = load("""
        @pl.jit
        def f(a: pl.Tensor, acc: pl.InOut[pl.Tensor]):
            acc = a
            return acc
        """)
    with pytest.raises(PartialCodegenError) as e:
        mod.f(torch.zeros(4, 4), torch.zeros(4, 4))
    assert e.value.message.startswith("[OutParamNotShadowed] 'acc' is a pl.InOut parameter of 'f' but is rebound at")


def test_p2_14_return_of_a_kernel_call_is_fine(load):
    mod, _ = load("""
        @pl.jit.incore
        def k(x: pl.Tensor, out: pl.Out[pl.Tensor]):
            pl.store(pl.mul(x, 3.0), [0, 0], out)
            return out

        @pl.jit
        def f(x: pl.Tensor, out: pl.Out[pl.Tensor]):
            return k(x, out)
        """)
    x = torch.randn(8, 8)
    out = torch.zeros(8, 8)
    mod.f(x, out)
    torch.testing.assert_close(out, 3 * x, rtol=0, atol=1e-6)


def test_p2_14_returning_a_created_tensor_is_t_ret(load):
    mod, path = load("""
        @pl.jit
        def f(x: pl.Tensor, out: pl.Out[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.mul(x, 2.0)
            return t
        """)
    with pytest.raises(ParserTypeError) as e:
        mod.f(torch.zeros(8, 8), torch.zeros(8, 8))
    assert e.value.message == "'f' may return only its tensor parameters; 't' is a tensor created at %s:%d" % (
        path, line_of(path, "with pl.at")[0])
    line, col = line_of(path, "return t")
    assert (e.value.span["line"], e.value.span["column"]) == (line, col + len("return "))


def test_docs_crossing_example(load):
    mod = docs_example(load, "@pl.jit\ndef staged(")
    a, b, bias = torch.randn(32, 64), torch.randn(64, 16), torch.randn(32, 16)
    out = torch.zeros(32, 16)
    mod.staged(a, b, bias, out)
    torch.testing.assert_close(out, a @ b + bias, rtol=1e-5, atol=1e-4)
    text = mod.staged.lower(a, b, bias, out)
    for want in ["acc = pl.create_tensor([32, 16], pl.FP32)\n", "self.staged_incore_0(a, b, acc)",
                 "self.staged_incore_1(acc, bias, out)", "acc_out: pl.Out[pl.Tensor[[32, 16], pl.FP32]]):\n",
                 "pl.store(acc, [0, 0], acc_out)\n"]:
        assert want in text, want
