"""pl.assemble and pl.slice on tiles in kernel code (docs/dsl.md, Operations) against numpy:
inserts at static and run-time offsets, the prefix-box valid region of an insert (the newly
valid cells read 0), the FP32 -> BF16/FP16 insert rounded to nearest even, windows with
run-time offsets, valid_shape= and drop_dims=, the run-time bounds texts (code 12 citing the
op), the compile-time texts, and the printed form parsing back to the same program."""
import numpy as np
import pytest
import torch

import pypto.language as pl
from pypto.language.parser.diagnostics import InvalidOperationError, ParserTypeError, UnsupportedFeatureError
from pypto.runtime import PTORuntimeError

KERNELS = """
    @pl.jit
    def rows(x: pl.Tensor, src: pl.Tensor, y: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(x, [0, 0], [32, 32])
            s = pl.load(src, [0, 0], [32, 16])
            for i in pl.range(32):
                r = pl.slice(s, [1, 16], [i, 0])
                t = pl.assemble(t, r, [31 - i, 16])
            pl.store(t, [0, 0], y)
        return y

    @pl.jit
    def tiles(x: pl.Tensor, src: pl.Tensor, y: pl.Out[pl.Tensor], n: pl.Scalar[pl.INDEX]):
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(x, [0, 0], [32, 32])
            s = pl.load(src, [0, 0], [8, 8])
            for b in pl.range(n):
                for c in pl.range(n):
                    t = pl.assemble(t, s, (b * 8, c * 8))
            pl.store(t, [0, 0], y)
        return y

    @pl.jit
    def grow(x: pl.Tensor, src: pl.Tensor, y: pl.Out[pl.Tensor], n: pl.Scalar[pl.INDEX]):
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(x, [0, 0], [16, 16], valid_shape=[n, n])
            s = pl.load(src, [0, 0], [4, 4], valid_shape=[2, 2])
            t = pl.assemble(t, s, [8, 2])
            pl.store(t, [0, 0], y)
        return y

    @pl.jit
    def narrow(x: pl.Tensor, src: pl.Tensor, y: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(x, [0, 0], [4, 8])
            s = pl.load(src, [0, 0], [2, 4])
            for i in pl.range(2):
                t = pl.assemble(t, s, [i * 2, 4])
            pl.store(t, [0, 0], y)
        return y

    @pl.jit
    def window(x: pl.Tensor, y: pl.Out[pl.Tensor], n: pl.Scalar[pl.INDEX]):
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(x, [0, 0], [32, 32], valid_shape=[20, 32])
            for i in pl.range(n):
                w = pl.slice(t, [8, 16], [i * 8, 16], valid_shape=[8, 12])
                pl.store(w, [i * 8, 0], y)
        return y

    @pl.jit
    def dropped(x: pl.Tensor, y: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(x, [0, 0, 0], [2, 4, 8])
            for i in pl.range(2):
                w = pl.slice(t, [1, 4, 8], [i, 0, 0], drop_dims=[0])
                pl.store(pl.add(w, w), [i * 4, 0], y)
        return y
"""


@pytest.fixture
def K(load):
    return load(KERNELS)[0]


def _rand(shape, seed):
    return torch.from_numpy(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


def test_rows_sliced_and_assembled_at_runtime_offsets(K):
    x, src, y = _rand((32, 32), 1), _rand((32, 16), 2), torch.zeros(32, 32)
    K.rows(x, src, y)
    want = x.numpy().copy()
    want[:, 16:] = src.numpy()[::-1]
    assert np.array_equal(y.numpy(), want)


@pytest.mark.parametrize("n", [4, 2])
def test_tiles_broadcast_at_runtime_offsets(K, n):
    x, src, y = _rand((32, 32), 3), _rand((8, 8), 4), torch.zeros(32, 32)
    K.tiles(x, src, y, n)
    want = x.numpy().copy()
    want[:8 * n, :8 * n] = np.tile(src.numpy(), (n, n))
    assert np.array_equal(y.numpy(), want)


@pytest.mark.parametrize("n", [4, 12, 0])
def test_insert_region_is_the_prefix_box_and_new_cells_read_zero(K, n):
    x, src, y = _rand((16, 16), 5), _rand((4, 4), 6), torch.full((16, 16), 7.0)
    K.grow(x, src, y, n)
    want = np.full((16, 16), 7.0, np.float32)
    r, c = max(n, 12), max(n, 6)
    if n == 0:
        r, c = 12, 6
    want[:r, :c] = 0
    want[:n, :n] = x.numpy()[:n, :n]
    want[8:12, 2:6] = 0  # the whole physical source: outside its [2, 2] region it is 0
    want[8:10, 2:4] = src.numpy()[:2, :2]
    assert np.array_equal(y.numpy(), want)


@pytest.mark.parametrize("dt, tdt", [(pl.BF16, torch.bfloat16), (pl.FP16, torch.float16)])
def test_fp32_into_a_half_target_rounds_to_nearest_even(load, dt, tdt):
    mod, _ = load("""
        @pl.jit
        def k(x: pl.Tensor, src: pl.Tensor, y: pl.Out[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(x, [0, 0], [4, 8])
                s = pl.load(src, [0, 0], [2, 4])
                for i in pl.range(2):
                    t = pl.assemble(t, s, [i * 2, 4])
                pl.store(t, [0, 0], y)
            return y
        """)
    x = _rand((4, 8), 7).to(tdt)
    src = _rand((2, 4), 8) * 3
    src[0, 0] = 1 + 2 ** -8 if tdt == torch.bfloat16 else 1 + 2 ** -11  # a tie: even keeps 1
    y = torch.zeros(4, 8, dtype=tdt)
    mod.k(x, src, y)
    want = x.clone()
    want[:, 4:] = src.to(tdt).repeat(2, 1)  # torch rounds to nearest even
    assert torch.equal(y, want)
    assert y[0, 4].item() == 1.0


def test_window_with_runtime_offsets_and_valid_shape(K):
    x, y = _rand((32, 32), 9), torch.full((32, 16), 5.0)
    K.window(x, y, 4)
    want = np.full((32, 16), 5.0, np.float32)
    for i in range(4):  # the source region [20, 32] shifted by -i*8, cut to [8, 16], then to [8, 12]
        rows = max(0, min(8, 20 - i * 8))
        want[i * 8:i * 8 + rows, :12] = x.numpy()[i * 8:i * 8 + rows, 16:28]
    assert np.array_equal(y.numpy(), want)


def test_dropped_unit_axis(K):
    x, y = _rand((2, 4, 8), 10), torch.zeros(8, 8)
    K.dropped(x, y)
    assert np.array_equal(y.numpy(), (x.numpy() * 2).reshape(8, 8))


def test_runtime_slice_out_of_bounds_fails_the_task(K, tmp_path):
    x, y = _rand((32, 32), 11), torch.zeros(32, 16)
    with pytest.raises(PTORuntimeError) as e:
        K.window(x, y, 5)
    assert "pl.slice: offset 32 + extent 8 exceeds dimension 0 of extent 32" in str(e.value)
    assert "kmod_" in str(e.value) and ".py:50:17)" in str(e.value), str(e.value)  # the pl.slice call in the module file


def test_runtime_assemble_out_of_bounds_fails_the_task(K):
    x, src, y = _rand((32, 32), 12), _rand((8, 8), 13), torch.zeros(32, 32)
    with pytest.raises(PTORuntimeError) as e:
        K.tiles(x, src, y, 5)
    assert "pl.assemble: offset 32 + extent 8 exceeds dimension 1 of extent 32" in str(e.value)


def test_window_ops_print_back_to_the_same_program(K):
    x, src, y = _rand((32, 32), 1), _rand((32, 16), 2), torch.zeros(32, 32)
    text = K.rows.lower(x, src, y)
    assert "r = pl.slice(s, [1, 16], [i, 0])" in text and "t = pl.assemble(t, r, [31 - i, 16])" in text, text
    assert pl.parse_program(text).lower(x, src, y) == text
    x, y = _rand((2, 4, 8), 10), torch.zeros(8, 8)
    text = K.dropped.lower(x, y)
    assert "drop_dims=[0]" in text
    assert pl.parse_program(text).lower(x, y) == text


@pytest.mark.parametrize("call, exc, want", [
    ("pl.assemble(t, s, o)", ParserTypeError,
     "tile.assemble offset must be a literal tuple (e.g., (row, col)), not a variable or computed expression"),
    ("pl.assemble(t, pl.reshape(s, [1, 8, 16]), [0, 0])", InvalidOperationError, "pl.assemble: source rank 3 does not match target rank 2"),
    ("pl.assemble(t, s, [0, 20])", InvalidOperationError, "pl.assemble: offset 20 + extent 16 exceeds dimension 1 of extent 32"),
    ("pl.assemble(t, pl.cast(s, pl.INT32), [0, 0])", ParserTypeError,
     "pl.assemble: source dtype INT32 cannot be inserted into a FP32 target; insert pl.cast"),
    ("pl.assemble(out, s, o)", ParserTypeError,
     "pl.assemble offset must be a literal tuple (e.g., (row, col)), not a variable or computed expression"),
    ("pl.assemble(t, s, [0, 0], atomic=pl.AtomicType.Add)", InvalidOperationError,
     "tensor.assemble with atomic=AtomicType.Add requires a global-memory destination (a function output tensor), but this assemble targets an on-chip tile"),
    ("pl.slice(t, [i, 16], [0, 0])", ParserTypeError, "tile.slice shape element 0 must be a compile-time constant"),
    ("pl.slice(t, [16, 16], [24, 0])", InvalidOperationError, "pl.slice: offset 24 + extent 16 exceeds dimension 0 of extent 32"),
    ("pl.slice(t, [8, 16], [0, 0], clamp=True)", ParserTypeError, "pl.slice: clamp=True is not supported for a Tile"),
    ("pl.slice(t, [2, 16], [0, 0], drop_dims=[0])", InvalidOperationError,
     "pl.slice: drop_dims axis 0 has extent 2; only unit axes can be dropped"),
    ("pl.slice(t, [8, 16], [0, 0], pad_value=pl.PadValue.null)", ParserTypeError, "pl.slice pad_value cannot be PadValue.null"),
    ("pl.slice(a, [i, 16], [0, 0])", ParserTypeError,
     "pl.slice shape element 0 must be a compile-time constant in kernel code; pass valid_shape= for a runtime extent"),
])
def test_window_compile_errors(load, call, exc, want):
    mod, _ = load("""
        @pl.jit
        def k(a: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar[pl.INDEX]):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(a, [0, 0], [32, 32])
                s = pl.load(a, [0, 0], [8, 16])
                o = [0, 0]
                for i in pl.range(1, n):
                    w = %s
            return out
        """ % call)
    with pytest.raises(exc) as e:
        mod.k(torch.zeros(64, 64), torch.zeros(64, 64), 8)
    assert e.value.message == want


def test_window_ops_in_orchestration_run(load):
    """pl.slice and pl.assemble of Tensors in orchestration: a view and a copy task
    (test_orch_views.py has their rules)."""
    mod, _ = load("""
        @pl.jit
        def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            b = pl.slice(a, [4, 8], [4, 0])
            out = pl.assemble(out, b, [0, 0])
            return out
        """)
    a, out = torch.arange(64, dtype=torch.float32).reshape(8, 8), torch.zeros(8, 8)
    mod.k(a, out)
    want = np.zeros((8, 8), np.float32)
    want[:4] = a.numpy()[4:]
    np.testing.assert_array_equal(out.numpy(), want)


def test_docs_window_example(tmp_path):
    """docs/dsl.md's window example, as written there, against numpy."""
    import importlib.util
    import pathlib
    doc = (pathlib.Path(__file__).resolve().parents[2] / "docs" / "dsl.md").read_text()
    start = doc.index("```python\n@pl.jit\ndef flip_rows(")
    code = doc[start + len("```python\n"):doc.index("```", start + 3)]
    path = tmp_path / "docs_window.py"
    path.write_text("import pypto.language as pl\n" + code)
    spec = importlib.util.spec_from_file_location("docs_window", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    x, src, y = _rand((32, 32), 14), _rand((32, 16), 15), torch.zeros(32, 32)
    mod.flip_rows(x, src, y)
    want = x.numpy().copy()
    want[:, 16:] = src.numpy()[::-1]
    assert np.array_equal(y.numpy(), want)


# ---- P2-03 / P2-05: what lies outside a valid region -------------------------------------------

def test_assemble_into_a_tensor_stores_the_valid_region_only(load):
    """P2-05: pl.assemble(tensor, source, offset) in kernel code is pl.store: only the
    source's valid region (n rows, a run-time extent) lands; the rest of out keeps its bytes."""
    mod, _ = load("""
        @pl.jit
        def k(a: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar[pl.INDEX]):
            with pl.at(level=pl.Level.CORE_GROUP):
                s = pl.load(a, [0, 0], [8, 16], valid_shape=[n, 16])
                out = pl.assemble(out, s, [4, 0])
            return out
        """)
    a = _rand((16, 16), 20)
    for n in (0, 3, 8):
        out = torch.full((16, 16), -2.0)
        mod.k(a, out, n)
        want = np.full((16, 16), -2.0, np.float32)
        want[4:4 + n] = a.numpy()[:n]
        assert np.array_equal(out.numpy(), want), n


def test_matmul_reads_the_zero_pad_of_a_narrowed_k(load):
    """P2-03: a window whose K extent is narrowed by valid_shape= reads 0 past it, so the
    matmul over the whole physical K is the product over the valid K only."""
    mod, _ = load("""
        @pl.jit
        def k(a: pl.Tensor, b: pl.Tensor, out: pl.Out[pl.Tensor], kv: pl.Scalar[pl.INDEX]):
            with pl.at(level=pl.Level.CORE_GROUP):
                x = pl.slice(a, [16, 32], [0, 0], valid_shape=[16, kv])
                y = pl.load(b, [0, 0], [32, 8])
                out[:] = pl.matmul(x, y)
            return out
        """)
    a, b = _rand((16, 32), 21), _rand((32, 8), 22)
    for kv in (32, 20, 1):
        out = torch.zeros(16, 8)
        mod.k(a, b, out, kv)
        want = a.numpy()[:, :kv].astype(np.float64) @ b.numpy()[:kv].astype(np.float64)
        assert np.allclose(out.numpy(), want, rtol=1e-5, atol=1e-5 * kv), kv


def test_slice_pad_value_max_is_named_as_unsupported(load):
    """pl.slice(pad_value=PadValue.max|min): every tile reads 0 outside its valid region in
    this version; the construct is named, with the pl.fillpad hint."""
    mod, _ = load("""
        @pl.jit
        def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(a, [0, 0], [8, 16])
                out[:] = pl.slice(t, [8, 16], [0, 0], valid_shape=[8, 4], pad_value=pl.PadValue.max)
            return out
        """)
    with pytest.raises(UnsupportedFeatureError) as e:
        mod.k(torch.zeros(8, 16), torch.zeros(8, 16))
    assert e.value.message == "pl.slice pad_value=PadValue.max is not supported in this version"
    assert e.value.hint == "pl.fillpad the slice instead"
