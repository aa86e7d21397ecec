"""The seed's cache-policy fragment, run (docs/dsl.md, "Cache policy"):
BYPASS compiles, runs like DEFAULT (bitwise), warns once per compilation for
the declared tensor only, and is rejected on a tensor the scope writes."""
import warnings

import numpy as np
import pytest
import torch

import pypto
from pypto.language.parser.diagnostics import PassError

from conftest import line_of

WARN = ("[CacheBypassUnsupported] tensor '{name}' requests CachePolicy.BYPASS, but this backend has no "
        "cache-bypass path yet; compiling as an ordinary cached access at {path}:{line}")

SEED = """
    @pl.jit
    def linear(activations: pl.Tensor, weights: pl.Tensor, out: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.set_cache_policy(weights, pl.CachePolicy.BYPASS)
            # every read of `weights` in this scope is now declared streaming;
            # the activations keep the default cached path.
            acc = pl.matmul(activations, weights, out_dtype=pl.FP32)
            pl.store(acc, [0, 0], out)
        return out

    @pl.jit
    def linear_default(activations: pl.Tensor, weights: pl.Tensor, out: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            acc = pl.matmul(activations, weights, out_dtype=pl.FP32)
            pl.store(acc, [0, 0], out)
        return out

    @pl.jit
    def linear_declared_default(activations: pl.Tensor, weights: pl.Tensor, out: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.set_cache_policy(weights, pl.CachePolicy.DEFAULT)
            acc = pl.matmul(activations, weights, out_dtype=pl.FP32)
            pl.store(acc, [0, 0], out)
        return out
    """


def template(w):
    """The warning's message: its text is `<file>:<line>:<col>: warning: <message>` plus the source
    line and a caret (the format of compile errors, docs/dsl.md, "Errors"); the file:line must be the cited one."""
    first = str(w.message).splitlines()[0]
    where, sep, msg = first.partition(": warning: ")
    assert sep and where.startswith("%s:%d:" % (w.filename, w.lineno)), first
    return msg


def compile_warnings(record):
    return [w for w in record if issubclass(w.category, pypto.CompileWarning)]


def call_recording(kernel, *args):
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        assert kernel(*args) is None
    return compile_warnings(rec)


def operands(m=64, k=128, n=96, dtype=torch.float32, seed=0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(m, k, generator=g).to(dtype), torch.randn(k, n, generator=g).to(dtype),
            torch.zeros(m, n))


def test_K12_seed_fragment_runs_and_warns_once_for_weights(load):
    mod, path = load(SEED)
    act, w, out = operands()
    got = call_recording(mod.linear, act, w, out)
    torch.testing.assert_close(out, torch.matmul(act, w), rtol=1e-4, atol=1e-4)
    line = line_of(path, "acc = pl.matmul(activations, weights")[0]
    assert len(got) == 1, [str(x.message) for x in got]
    assert template(got[0]) == WARN.format(name="weights", path=path, line=line)
    assert got[0].filename == path and got[0].lineno == line
    assert "activations" not in template(got[0])
    # a second identical call hits the cache: no warning, same numbers
    out2 = torch.zeros_like(out)
    assert call_recording(mod.linear, act, w, out2) == []
    assert torch.equal(out, out2)
    assert mod.linear.cache_info() == (1, 1, 1)


def test_K12_new_specialization_warns_again(load):
    mod, path = load(SEED)
    call_recording(mod.linear, *operands())
    act, w, out = operands(32, 64, 16, dtype=torch.float16, seed=1)  # new key: a new compilation
    got = call_recording(mod.linear, act, w, out)
    assert [template(x) for x in got] == [
        WARN.format(name="weights", path=path, line=line_of(path, "acc = pl.matmul(activations, weights")[0])]
    torch.testing.assert_close(out, torch.matmul(act.float(), w.float()), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_K10_bypass_and_default_bitwise_equal(load, dtype):
    mod, _ = load(SEED)
    act, w, out_b = operands(dtype=dtype, seed=2)
    out_d, out_dd = torch.zeros_like(out_b), torch.zeros_like(out_b)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        mod.linear(act, w, out_b)
    assert call_recording(mod.linear_default, act, w, out_d) == []  # no BYPASS load: no warning
    assert call_recording(mod.linear_declared_default, act, w, out_dd) == []
    assert torch.equal(out_b, out_d) and torch.equal(out_b, out_dd)
    torch.testing.assert_close(out_b, torch.matmul(act.float(), w.float()), rtol=1e-4, atol=1e-4)


def test_K10_numpy_operands(load):
    mod, _ = load(SEED)
    rng = np.random.default_rng(3)
    act = rng.standard_normal((16, 32)).astype(np.float32)
    w = rng.standard_normal((32, 8)).astype(np.float32)
    out_b, out_d = np.zeros((16, 8), np.float32), np.zeros((16, 8), np.float32)
    assert len(call_recording(mod.linear, act, w, out_b)) == 1
    mod.linear_default(act, w, out_d)
    assert np.array_equal(out_b, out_d)
    np.testing.assert_allclose(out_b, act @ w, rtol=1e-4, atol=1e-4)


def test_K12_lowered_loads_carry_the_policy(load):
    mod, _ = load(SEED)
    act, w, out = operands()
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        text = mod.linear.lower(act, w, out)
    assert text.count("cache=pl.CachePolicy.BYPASS") == 1
    assert "set_cache_policy" not in text  # hoisted onto the loads


TILED = """
    @pl.jit
    def tiled(activations: pl.Tensor, weights: pl.Tensor, out: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.set_cache_policy(weights, pl.CachePolicy.BYPASS)
            w0 = pl.load(weights, [0, 0], [64, 32])
            w1 = pl.load(weights, [64, 0], [64, 32])
            a0 = pl.load(activations, [0, 0], [16, 64])
            a1 = pl.load(activations, [0, 64], [16, 64])
            pl.store(pl.add(pl.matmul(a0, w0), pl.matmul(a1, w1)), [0, 0], out)
        return out

    @pl.jit
    def tiled_both(activations: pl.Tensor, weights: pl.Tensor, out: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.set_cache_policy(weights, pl.CachePolicy.BYPASS)
            pl.set_cache_policy(activations, pl.CachePolicy.BYPASS)
            w0 = pl.load(weights, [0, 0], [64, 32])
            w1 = pl.load(weights, [64, 0], [64, 32])
            a0 = pl.load(activations, [0, 0], [16, 64])
            a1 = pl.load(activations, [0, 64], [16, 64])
            pl.store(pl.add(pl.matmul(a0, w0), pl.matmul(a1, w1)), [0, 0], out)
        return out

    @pl.jit
    def tiled_plain(activations: pl.Tensor, weights: pl.Tensor, out: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            w0 = pl.load(weights, [0, 0], [64, 32])
            w1 = pl.load(weights, [64, 0], [64, 32])
            a0 = pl.load(activations, [0, 0], [16, 64])
            a1 = pl.load(activations, [0, 64], [16, 64])
            pl.store(pl.add(pl.matmul(a0, w0), pl.matmul(a1, w1)), [0, 0], out)
        return out
    """


def test_K10_one_warning_per_tensor_citing_its_first_load(load):
    mod, path = load(TILED)
    act, w, _ = operands(16, 128, 32, seed=4)
    outs = [torch.zeros(16, 32) for _ in range(3)]
    w_line = line_of(path, "w0 = pl.load(weights", 0)[0]
    a_line = line_of(path, "a0 = pl.load(activations", 1)[0]  # in tiled_both
    got = call_recording(mod.tiled, act, w, outs[0])
    assert [template(x) for x in got] == [WARN.format(name="weights", path=path, line=w_line)]
    got = call_recording(mod.tiled_both, act, w, outs[1])
    w_line_both = line_of(path, "w0 = pl.load(weights", 1)[0]
    assert sorted(template(x) for x in got) == sorted([
        WARN.format(name="weights", path=path, line=w_line_both),
        WARN.format(name="activations", path=path, line=a_line)])
    assert call_recording(mod.tiled_plain, act, w, outs[2]) == []
    assert call_recording(mod.tiled, act, w, outs[0]) == []  # cached
    assert torch.equal(outs[0], outs[2]) and torch.equal(outs[1], outs[2])
    torch.testing.assert_close(outs[0], act @ w, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("body,direction", [
    ("pl.store(pl.matmul(activations, weights), [0, 0], out)", "Out"),
    ("pl.store(pl.add(pl.matmul(activations, weights), pl.load(out, [0, 0], [16, 32])), [0, 0], out)", "InOut"),
])
def test_K08_bypass_on_a_written_tensor_is_rejected(load, body, direction):
    mod, path = load("""
        @pl.jit
        def k(activations: pl.Tensor, weights: pl.Tensor, out: pl.InOut[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.set_cache_policy(out, pl.CachePolicy.BYPASS)
                %s
            return out
        """ % body)
    act, w, _ = operands(16, 64, 32, seed=5)
    out = torch.full((16, 32), 3.0)
    msg = ("pl.set_cache_policy(out, CachePolicy.BYPASS) is not allowed on a tensor this scope writes (%s). "
           "A bypassing read of bytes the same kernel writes is a coherency bug." % direction)
    with pytest.raises(PassError) as e:
        mod.k(act, w, out)
    assert e.value.message == msg
    assert isinstance(e.value, ValueError)
    assert str(e.value).startswith(path + ":")
    assert bool((out == 3.0).all())  # nothing ran
    with pytest.raises(PassError, match="not allowed on a tensor this scope writes"):
        mod.k.lower(act, w, out)


def test_K08_default_on_a_written_tensor_runs(load):
    mod, _ = load("""
        @pl.jit
        def k(activations: pl.Tensor, weights: pl.Tensor, out: pl.InOut[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.set_cache_policy(out, pl.CachePolicy.DEFAULT)
                pl.set_cache_policy(weights, pl.CachePolicy.BYPASS)
                pl.store(pl.add(pl.matmul(activations, weights), pl.load(out, [0, 0], [16, 32])), [0, 0], out)
            return out
        """)
    act, w, _ = operands(16, 64, 32, seed=6)
    out = torch.full((16, 32), 3.0)
    got = call_recording(mod.k, act, w, out)
    assert len(got) == 1 and "tensor 'weights'" in str(got[0].message)
    torch.testing.assert_close(out, act @ w + 3.0, rtol=1e-4, atol=1e-4)
