"""pl.read and pl.write in kernel code (docs/dsl.md, Operations) against numpy: tile
elements by full and flat index in scalar arithmetic (every dtype), elements of a kernel
Tensor at run-time indices, elements written into an output tensor (beside a bulk store),
the printed Out/InOut direction and round trip, and the static and run-time out-of-range
texts."""
import numpy as np
import pytest
import torch

import pypto.language as pl
from pypto.language.parser.diagnostics import InvalidOperationError, ParserTypeError
from pypto.runtime import PTORuntimeError

from conftest import line_of

KERNELS = """
    @pl.jit
    def scale_by_elements(a: pl.Tensor, out: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(a, [0, 0], [4, 8])
            s = pl.read(t, [1, 2]) + pl.read(t, 13) * 2
            pl.store(pl.mul(t, s), [0, 0], out)
        return out

    @pl.jit
    def gather(a: pl.Tensor, idx: pl.Tensor, out: pl.Tensor):
        with pl.at(level=pl.Level.CORE_GROUP):
            for k in pl.range(4):
                r = pl.read(idx, [k, 0])
                c = pl.read(idx, [k, 1])
                pl.write(out, k, pl.read(a, [r, c]) * 3.0 - 1.0)
        return out

    @pl.jit
    def mark(a: pl.Tensor, out: pl.Tensor):
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(a, [0, 0], [4, 8])
            pl.store(t, [0, 0], out)
            for i in pl.range(4):
                pl.write(out, [i, i], pl.read(t, [i, 7]))
        return out

    @pl.jit
    def bump(x: pl.Tensor, cfg: pl.Tensor):
        with pl.at(level=pl.Level.CORE_GROUP):
            i = pl.read(cfg, [0])
            x = pl.write(x, i, pl.read(x, i) + 1)
        return x

    @pl.jit
    def narrowed(a: pl.Tensor, out: pl.Tensor, cfg: pl.Tensor):
        with pl.at(level=pl.Level.CORE_GROUP):
            n = pl.read(cfg, [0])
            t = pl.load(a, [0, 0], [4, 8], valid_shape=[4, n])
            pl.write(out, [0], pl.read(t, [2, 5]))
            pl.write(out, [1], pl.read(t, [2, n - 1]))
        return out
"""
ALL = {"FP32": torch.float32, "FP16": torch.float16, "BF16": torch.bfloat16, "INT32": torch.int32, "INT8": torch.int8}


@pytest.fixture
def K(load):
    return load(KERNELS)[0]


def _tensor(shape, dt, seed):
    g = np.random.default_rng(seed)
    if dt in ("INT32", "INT8"):
        return torch.from_numpy(g.integers(-5, 5, shape).astype(np.int32)).to(ALL[dt])
    return torch.from_numpy(g.standard_normal(shape).astype(np.float32)).to(ALL[dt])


@pytest.mark.parametrize("dt", list(ALL))
def test_tile_elements_full_and_flat_in_arithmetic(K, dt):
    a = _tensor((4, 8), dt, 1)
    out = torch.zeros(4, 8, dtype=ALL[dt])
    K.scale_by_elements(a, out)
    an = a.to(torch.float32).numpy()
    s = an[1, 2] + an.reshape(-1)[13] * 2  # flat 13 = [1, 5]
    if dt in ("INT32", "INT8"):
        want = torch.from_numpy((an.astype(np.int64) * int(s)).astype(np.int64)).to(ALL[dt])
    else:  # the scalar is rounded to the tile dtype, the product once
        sv = torch.tensor(float(s), dtype=torch.float32).to(ALL[dt])
        want = (a.to(torch.float32) * sv.to(torch.float32)).to(ALL[dt])
    assert torch.equal(out, want)


def test_tensor_elements_at_run_time_indices(K):
    a = _tensor((4, 8), "FP32", 2)
    idx = torch.tensor([[0, 0], [3, 7], [2, 5], [1, 1]], dtype=torch.int32)
    out = torch.full((4,), 9.0)
    K.gather(a, idx, out)
    an = a.numpy()
    want = np.array([an[r, c] for r, c in idx.numpy()], np.float32) * np.float32(3.0) - np.float32(1.0)
    assert np.array_equal(out.numpy(), want)


def test_write_beside_a_bulk_store(K):
    a = _tensor((4, 8), "FP32", 3)
    out = torch.zeros(4, 8)
    K.mark(a, out)
    want = a.numpy().copy()
    for i in range(4):
        want[i, i] = want[i, 7]
    assert np.array_equal(out.numpy(), want)


def test_write_after_read_is_inout_and_prints_back(K):
    x = torch.arange(6, dtype=torch.int32)
    K.bump(x, torch.tensor([4], dtype=torch.int32))
    assert x.tolist() == [0, 1, 2, 3, 5, 5]
    text = K.bump.lower(x, torch.tensor([4], dtype=torch.int32))
    assert "x: pl.InOut[pl.Tensor[[6], pl.INT32]]" in text, text
    assert "x = pl.write(x, i, pl.read(x, i) + 1)" in text, text
    assert pl.parse_program(text).lower(x, torch.tensor([4], dtype=torch.int32)) == text
    out = torch.zeros(4, 8)
    text = K.mark.lower(_tensor((4, 8), "FP32", 3), out)
    assert "out: pl.Out[pl.Tensor[[4, 8], pl.FP32]]" in text, text


@pytest.mark.parametrize("n", [8, 6, 3])
def test_read_outside_the_valid_region_is_the_pad(K, n):
    a = _tensor((4, 8), "FP32", 4)
    out = torch.full((2,), 7.0)
    K.narrowed(a, out, torch.tensor([n], dtype=torch.int32))
    assert out[0].item() == (a[2, 5].item() if n > 5 else 0.0)
    assert out[1].item() == a[2, n - 1].item()


def test_run_time_index_out_of_range(K, load):
    x = torch.arange(6, dtype=torch.int32)
    with pytest.raises(PTORuntimeError) as e:
        K.bump(x, torch.tensor([6], dtype=torch.int32))
    assert "pl.read: index 6 is out of range for dimension 0 of extent 6" in str(e.value)
    assert x.tolist() == list(range(6))
    mod, path = load("""
        @pl.jit
        def w(out: pl.Tensor, cfg: pl.Tensor):
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.write(out, [pl.read(cfg, [0]), 0], 1.0)
            return out
        """)
    with pytest.raises(PTORuntimeError) as e:
        mod.w(torch.zeros(4, 2), torch.tensor([-1], dtype=torch.int32))
    assert "pl.write: index -1 is out of range for dimension 0 of extent 4" in str(e.value)
    line, col = line_of(path, "pl.write(")
    assert "(at %s:%d:%d)" % (path, line, col) in str(e.value) and "error_code=12" in str(e.value)


@pytest.mark.parametrize("stmt, exc, want", [
    ("v = pl.read(t, [4, 0])", InvalidOperationError, "pl.read: index 4 is out of range for dimension 0 of extent 4"),
    ("v = pl.read(t, 32)", InvalidOperationError, "pl.read: index 32 is out of range for dimension 0 of extent 32"),
    ("v = pl.read(t, [1])", InvalidOperationError, "pl.read: expected 2 indices for a rank-2 tile, got 1"),
    ("v = pl.read(a, [0, 0, 0])", InvalidOperationError, "pl.read: expected 2 indices for a rank-2 tensor, got 3"),
    ("pl.write(out, [0, 8], 1.0)", InvalidOperationError, "pl.write: index 8 is out of range for dimension 1 of extent 8"),
    ("pl.write(t, [0, 0], 1.0)", ParserTypeError, "pl.write expects a Tensor, got pl.Tile[[4, 8], pl.FP32]"),
])
def test_compile_errors(load, stmt, exc, want):
    mod, _ = load("""
        @pl.jit
        def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(a, [0, 0], [4, 8])
                %s
                pl.store(t, [0, 0], out)
            return out
        """ % stmt)
    with pytest.raises(exc) as e:
        mod.k(torch.zeros(4, 8), torch.zeros(4, 8))
    assert e.value.message == want


def test_docs_pick_example(tmp_path):
    """docs/dsl.md's element-access example, as written there, against numpy."""
    import importlib.util
    import pathlib
    doc = (pathlib.Path(__file__).resolve().parents[2] / "docs" / "dsl.md").read_text()
    start = doc.index("```python\n@pl.jit\ndef pick(")
    code = doc[start + len("```python\n"):doc.index("```", start + 3)]
    path = tmp_path / "docs_pick.py"
    path.write_text("import pypto.language as pl\n" + code)
    spec = importlib.util.spec_from_file_location("docs_pick", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    x, rows, out = _tensor((8, 16), "FP32", 5), torch.tensor([3, 0, 7, 3], dtype=torch.int32), torch.zeros(4, 16)
    mod.pick(x, rows, out)
    xs = x.numpy()[rows.numpy()]
    s = xs[:, :1] + xs[:, 15:16]
    want = xs + s
    want[:, 15] = s[:, 0]
    assert np.array_equal(out.numpy(), want)
    text = mod.pick.lower(x, rows, out)
    assert "out: pl.Out[pl.Tensor[[4, 16], pl.FP32]]" in text and "rows: In [0:4]" in text, text
