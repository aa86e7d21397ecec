"""Subscripts and pl.slice / pl.assemble of a Tensor in kernel code (DSL-V2-SPEC §1.3,
§1.4, §12 P2-01, P2-02, P2-04) against torch: `out[:] = e` in a pl.at body and in an
@pl.jit.incore function, column windows at a loop variable's offset, scalar indices
dropping axes, element reads, clamp=True, the run-time bounds failure (code 12), a Tile
into a Tensor target == pl.store, a Tensor into a Tile target, and the printed text
(pl.assemble / pl.slice / pl.read) parsing back to the same program."""
import numpy as np
import pytest
import torch

import pypto.language as pl
from pypto.language.parser.diagnostics import ParserTypeError, UnsupportedFeatureError
from pypto.runtime import PTORuntimeError

from conftest import line_of

KS = 16

KERNELS = """
    KS = 16

    @pl.jit
    def add_at(a: pl.Tensor[[64, 32], pl.FP32], b: pl.Tensor[[64, 32], pl.FP32], out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]):
        with pl.at(level=pl.Level.CORE_GROUP):
            out[:] = pl.add(a, b)
        return out

    @pl.jit.incore
    def add_k(a: pl.Tensor, b: pl.Tensor, out: pl.Out[pl.Tensor]):
        out[:] = pl.add(a, b)
        return out

    @pl.jit
    def add_incore(a: pl.Tensor[[64, 32], pl.FP32], b: pl.Tensor[[64, 32], pl.FP32], out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]):
        out = add_k(a, b, out)
        return out

    @pl.jit
    def split_cols(a: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
        for k in pl.range(4):
            k0 = k * KS
            with pl.at(level=pl.Level.CORE_GROUP):
                t = a[:, k0:k0 + KS]
                out[:, k0:k0 + KS] = pl.mul(t, t)
        return out

    @pl.jit
    def rows(a: pl.Tensor[[4, 64], pl.FP32], out: pl.Out[pl.Tensor[[4, 64], pl.FP32]]):
        with pl.at(level=pl.Level.CORE_GROUP):
            for i in pl.range(4):
                r = a[3 - i]
                out[i, :] = pl.exp(r)
        return out

    @pl.jit
    def element(a: pl.Tensor[[4, 8], pl.FP32], out: pl.Out[pl.Tensor[[4, 8], pl.FP32]]):
        with pl.at(level=pl.Level.CORE_GROUP):
            v = a[1, 2]
            t = pl.load(a, [0, 0], [4, 8])
            out[:] = pl.add(t, v)
        return out

    @pl.jit
    def clamped(a: pl.Tensor[[20, 16], pl.FP32], out: pl.Out[pl.Tensor[[8, 16], pl.FP32]], o: pl.Scalar[pl.INDEX]):
        with pl.at(level=pl.Level.CORE_GROUP):
            w = pl.slice(a, [8, 16], [o, 0], clamp=True)
            pl.store(w, [0, 0], out)
        return out

    @pl.jit
    def runtime_oob(a: pl.Tensor[[20, 16], pl.FP32], out: pl.Out[pl.Tensor[[8, 16], pl.FP32]], o: pl.Scalar[pl.INDEX]):
        with pl.at(level=pl.Level.CORE_GROUP):
            for i in pl.range(o, o + 1):
                out[:] = a[i:i + 8, :]
        return out

    @pl.jit
    def tile_into_tensor(a: pl.Tensor[[16, 16], pl.FP32], x: pl.Out[pl.Tensor[[32, 32], pl.FP32]], y: pl.Out[pl.Tensor[[32, 32], pl.FP32]]):
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(a, [0, 0], [16, 16])
            x[8:24, 16:32] = t
            pl.store(t, [8, 16], y)
        return x, y

    @pl.jit
    def tensor_into_tile(a: pl.Tensor[[8, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]):
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.create_tile([16, 32], dtype=pl.FP32)
            t[4:12, 8:24] = a
            pl.store(t, [0, 0], out)
        return out
"""


@pytest.fixture
def K(load):
    return load(KERNELS)[0]


def _rand(shape, seed):
    return torch.from_numpy(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


@pytest.mark.parametrize("entry", ["add_at", "add_incore"])
def test_whole_subscript_write_is_assemble_at_zero(K, entry):
    a, b, out = _rand((64, 32), 1), _rand((64, 32), 2), torch.zeros(64, 32)
    getattr(K, entry)(a, b, out)
    assert torch.equal(out, a + b)
    text = getattr(K, entry).lower(a, b, out)
    assert "out = pl.assemble(out, pl.add(" in text and ", [0, 0])\n" in text, text
    assert pl.parse_program(text).lower(a, b, out) == text


def test_column_window_at_a_loop_offset(K):
    a, out = _rand((32, 64), 3), torch.zeros(32, 64)
    K.split_cols(a, out)
    assert torch.equal(out, a * a)
    text = K.split_cols.lower(a, out)
    assert "t = pl.slice(a, [32, 16], [0, k0])" in text and "out = pl.assemble(out, pl.mul(t, t), [0, k0])" in text, text
    assert pl.parse_program(text).lower(a, out) == text


def test_scalar_index_drops_the_axis(K):
    a, out = _rand((4, 64), 4), torch.zeros(4, 64)
    K.rows(a, out)
    assert torch.allclose(out, torch.flip(a, [0]).exp(), rtol=1e-6, atol=0)
    text = K.rows.lower(a, out)
    assert "drop_dims=[0]" in text, text
    assert pl.parse_program(text).lower(a, out) == text


def test_all_scalar_indices_read_an_element(K):
    a, out = _rand((4, 8), 5), torch.zeros(4, 8)
    K.element(a, out)
    assert torch.equal(out, a + a[1, 2])
    text = K.element.lower(a, out)
    assert "v = pl.read(a, [1, 2])" in text, text
    assert pl.parse_program(text).lower(a, out) == text


def test_clamp_cuts_the_window_at_the_edge(K):
    a, out = _rand((20, 16), 6), torch.full((8, 16), -7.0)
    K.clamped(a, out, 16)  # rows 16..19 exist: the region is [4, 16]
    assert torch.equal(out[:4], a[16:]) and bool((out[4:] == -7.0).all())
    text = K.clamped.lower(a, out, 16)
    assert "pl.slice(a, [8, 16], [16, 0], clamp=True)" in text, text


def test_runtime_out_of_bounds_fails_the_task(load):
    K, path = load(KERNELS)
    a, out = _rand((20, 16), 7), torch.zeros(8, 16)
    K.runtime_oob(a, out, 10)
    assert torch.equal(out, a[10:18])
    with pytest.raises(PTORuntimeError) as e:
        K.runtime_oob(a, out, 16)
    assert e.value.code == 12
    assert "pl.slice reads past the end of dimension 0: offset 16 + extent 8 exceeds the source extent 20." in str(e.value), str(e.value)
    assert "(at %s:%d:%d)" % ((path,) + line_of(path, "a[i:i + 8, :]")) in str(e.value), str(e.value)  # the subscript


def test_tile_into_tensor_target_is_a_store(K):
    a, x, y = _rand((16, 16), 8), torch.zeros(32, 32), torch.zeros(32, 32)
    K.tile_into_tensor(a, x, y)
    assert torch.equal(x, y) and torch.equal(x[8:24, 16:32], a) and float(x.abs().sum() - a.abs().sum()) == 0.0


def test_tensor_into_tile_target_is_loaded(K):
    a, out = _rand((8, 16), 9), torch.full((16, 32), 5.0)
    K.tensor_into_tile(a, out)
    want = torch.zeros(16, 32)
    want[4:12, 8:24] = a
    assert torch.equal(out, want)


@pytest.mark.parametrize("stmt, exc, want", [
    ("out[0:8, 0:8] = t", ParserTypeError, "Subscript-write shape mismatch on source axis 1: window expects 8 elements, source has 16"),
    ("out[0, 1] = 2.0", UnsupportedFeatureError, "Element-write 'dst[i, j] = scalar' is not supported for tensor targets"),
    ("out[0:8:2, :] = t", UnsupportedFeatureError, "Slice step is not supported in tensor subscript-write"),
    ("out[0, 0, 0] = t", ParserTypeError, "Tensor subscript-write has 3 indices but the tensor is 2D"),
    ("out[0:8, 0:16] = 1.0", ParserTypeError, "Subscript-write source must also be a tensor, got pl.Scalar[pl.FP32]"),
    ("w = a[::2]", UnsupportedFeatureError, "Slice step is not supported in tensor subscript"),
    ("w = a[0, 0, 0]", ParserTypeError, "Tensor subscript has 3 indices but the tensor is 2D"),
])
def test_subscript_compile_errors(load, stmt, exc, want):
    mod, _ = load("""
        @pl.jit
        def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(a, [0, 0], [8, 16])
                %s
            return out
        """ % stmt)
    with pytest.raises(exc) as e:
        mod.k(torch.zeros(64, 64), torch.zeros(64, 64))
    assert e.value.message == want


def test_orchestration_subscripts_are_views_copies_and_element_reads(load):
    """The control plane sees the same desugared calls: a view, a copy task, an element read."""
    mod, _ = load("""
        @pl.jit
        def f(a: pl.Tensor[[64, 16], pl.FP32], out: pl.Out[pl.Tensor[[64, 16], pl.FP32]]):
            out[0:32, :] = a[32:64, :]
            v = a[1, 2]
            with pl.at(level=pl.Level.CORE_GROUP):
                out[32:64, :] = pl.add(pl.load(a, [0, 0], [32, 16]), v)
            return out
        """)
    a, out = _rand((64, 16), 10), torch.zeros(64, 16)
    mod.f(a, out)
    assert torch.equal(out[:32], a[32:]) and torch.equal(out[32:], a[:32] + a[1, 2])
    text = mod.f.lower(a, out)
    assert "out = pl.assemble(out, pl.slice(a, [32, 16], [32, 0]), [0, 0])" in text and "v = pl.read(a, [1, 2])" in text, text
    assert pl.parse_program(text).lower(a, out) == text


SHARED_TERMS = """
    H = 8
    W = 16

    @pl.jit
    def halves_swapped(a: pl.Tensor[[4, 64], pl.FP32], out: pl.Out[pl.Tensor[[4, 64], pl.FP32]]):
        for k in pl.range(4):
            c = k * W
            with pl.at(level=pl.Level.CORE_GROUP):
                lo = a[:, c:c + H]
                hi = a[:, c + H:c + W]
                out[:, k * W:k * W + H] = hi
                out[:, (k * W + H):(k + 1) * W] = lo
        return out
"""


def test_a_window_extent_drops_the_terms_its_bounds_share(load):
    """c+H:c+W is W-H wide and k*W:(k+1)*W is 1*W wide: constants, whatever c and k are."""
    mod, _ = load(SHARED_TERMS)
    a, out = torch.randn(4, 64), torch.zeros(4, 64)
    mod.halves_swapped(a, out)
    want = a.reshape(4, 4, 2, 8).flip(2).reshape(4, 64)
    torch.testing.assert_close(out, want)
