"""pl.transpose_view and pl.transpose in kernel code (docs/dsl.md, Operations) against numpy:
a [16, 32] transpose_view for every dtype, the valid region of a narrowed load transposed,
rank-3 transposes with negative axes, pl.tile.transpose_view feeding pl.matmul (q @ k.T), the
docs example, the compile-time texts with their spans, and the printed form parsing back
to the same program."""
import importlib.util
import pathlib

import numpy as np
import pytest
import torch

import pypto.language as pl
from pypto.language.parser.diagnostics import InvalidOperationError, UnsupportedFeatureError

from conftest import line_of

TRANSPOSES = """
    @pl.jit
    def view(a: pl.Tensor, out: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(a, [0, 0], [16, 32])
            pl.store(pl.transpose_view(t), [0, 0], out)
        return out

    @pl.jit
    def narrowed(a: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar[pl.INDEX], m: pl.Scalar[pl.INDEX]):
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(a, [0, 0], [16, 32], valid_shape=[n, m])
            v = pl.transpose_view(t)
            pl.store(pl.row_sum(v), [0, 0], out)
        return out

    @pl.jit
    def narrowed_store(a: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar[pl.INDEX]):
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(a, [0, 0], [16, 32], valid_shape=[n, 32])
            pl.store(pl.transpose_view(t), [0, 0], out)
        return out

    @pl.jit
    def rank3(a: pl.Tensor, out02: pl.Out[pl.Tensor], out12: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(a, [0, 0, 0], [2, 3, 4])
            pl.store(pl.transpose(t, -1, 0), [0, 0, 0], out02)
            pl.store(pl.transpose(t, axis1=-2, axis2=-1), [0, 0, 0], out12)
        return out02, out12

    @pl.jit
    def qk(q: pl.Tensor, k: pl.Tensor, out: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            ql = pl.load(q, [0, 0], [16, 64], target_memory=pl.Mem.Mat)
            kl = pl.load(k, [0, 0], [32, 64], target_memory=pl.Mem.Mat)
            kt = pl.tile.transpose_view(kl)  # upstream's spelling, printed pl.transpose_view
            s = pl.matmul(pl.move(ql, target_memory=pl.Mem.Left), pl.move(kt, target_memory=pl.Mem.Right))
            pl.store(s, [0, 0], out)
        return out
"""
ALL = {"FP32": torch.float32, "FP16": torch.float16, "BF16": torch.bfloat16, "INT32": torch.int32, "INT8": torch.int8}


@pytest.fixture
def T(load):
    return load(TRANSPOSES)[0]


def _tensor(shape, dt, seed):
    g = np.random.default_rng(seed)
    if dt in ("INT32", "INT8"):
        return torch.from_numpy(g.integers(-50, 50, shape).astype(np.int32)).to(ALL[dt])
    return torch.from_numpy(g.standard_normal(shape).astype(np.float32)).to(ALL[dt])


@pytest.mark.parametrize("dt", list(ALL))
def test_transpose_view_of_sixteen_by_thirty_two(T, dt):
    a = _tensor((16, 32), dt, 1)
    out = torch.full((32, 16), 3, dtype=ALL[dt])
    T.view(a, out)
    assert torch.equal(out, a.T.contiguous())


@pytest.mark.parametrize("n, m", [(16, 32), (10, 32), (16, 7), (5, 20), (0, 32)])
def test_transpose_view_transposes_the_valid_region(T, n, m):
    a = _tensor((16, 32), "FP32", 2)
    out = torch.full((32, 1), 9.0)
    T.narrowed(a, out, n, m)
    # rows of the transposed tile: the first m valid, each summing the n valid entries of a column
    want = np.full((32, 1), 9.0, np.float32)
    if n:  # no valid column in the transposed tile: an empty row sum, nothing stored
        want[:m, 0] = a.numpy()[:n, :m].sum(axis=0, dtype=np.float32)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("n", [16, 10, 0])
def test_a_stored_transposed_tile_writes_its_valid_region_only(T, n):
    a = _tensor((16, 32), "FP32", 3)
    out = torch.full((32, 16), 5.0)
    T.narrowed_store(a, out, n)
    want = np.full((32, 16), 5.0, np.float32)
    want[:, :n] = a.numpy()[:n].T
    assert np.array_equal(out.numpy(), want)


@pytest.mark.parametrize("dt", list(ALL))
def test_rank3_transpose_with_negative_axes(T, dt):
    a = _tensor((2, 3, 4), dt, 4)
    out02, out12 = torch.zeros(4, 3, 2, dtype=ALL[dt]), torch.zeros(2, 4, 3, dtype=ALL[dt])
    T.rank3(a, out02, out12)
    assert np.array_equal(out02.float().numpy(), np.swapaxes(a.float().numpy(), -1, 0))
    assert np.array_equal(out12.float().numpy(), np.swapaxes(a.float().numpy(), -2, -1))


def test_transpose_view_feeds_matmul(T):
    q, k = _tensor((16, 64), "BF16", 5), _tensor((32, 64), "BF16", 6)
    out = torch.zeros(16, 32)
    T.qk(q, k, out)
    want = q.float().numpy() @ k.float().numpy().T
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-5, atol=1e-4)


def test_transposes_print_back_to_the_same_program(T):
    a, out02, out12 = _tensor((2, 3, 4), "FP32", 1), torch.zeros(4, 3, 2), torch.zeros(2, 4, 3)
    text = T.rank3.lower(a, out02, out12)
    assert "pl.transpose(t, -1, 0)" in text and "pl.transpose(t, -2, -1)" in text, text
    assert pl.parse_program(text).lower(a, out02, out12) == text
    q, k, out = _tensor((16, 64), "BF16", 5), _tensor((32, 64), "BF16", 6), torch.zeros(16, 32)
    text = T.qk.lower(q, k, out)
    assert "kt = pl.transpose_view(kl)" in text, text
    assert pl.parse_program(text).lower(q, k, out) == text


def test_docs_transpose_example(tmp_path):
    """docs/dsl.md's transpose example, as written there, against numpy."""
    doc = (pathlib.Path(__file__).resolve().parents[2] / "docs" / "dsl.md").read_text()
    start = doc.index("```python\n@pl.jit\ndef scores(")
    code = doc[start + len("```python\n"):doc.index("```", start + 3)]
    path = tmp_path / "docs_transpose.py"
    path.write_text("import pypto.language as pl\n" + code)
    spec = importlib.util.spec_from_file_location("docs_transpose", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    q, k, x = _tensor((16, 64), "FP32", 7), _tensor((32, 64), "FP32", 8), _tensor((4, 8, 16), "FP32", 9)
    s, y = torch.zeros(16, 32), torch.zeros(16, 8, 4)
    mod.scores(q, k, x, s, y)
    np.testing.assert_allclose(s.numpy(), q.numpy() @ k.numpy().T, rtol=1e-5, atol=1e-4)
    assert np.array_equal(y.numpy(), np.swapaxes(x.numpy(), 0, -1))


@pytest.mark.parametrize("call, needle, want", [
    ("pl.transpose_view(pl.reshape(t, [512]))", "pl.transpose_view", "tile.transpose_view requires at least 2 dimensions, but got 1"),
    ("pl.transpose(t, 1, -1)", "-1)", "pl.transpose: axis1 and axis2 must differ, got 1 twice"),
    ("pl.transpose(t, 0, 0)", "0)", "pl.transpose: axis1 and axis2 must differ, got 0 twice"),
    ("pl.transpose(t, 0, 2)", "2)", "pl.transpose: axis 2 is out of range for rank 2"),
    ("pl.transpose(t, -3, 1)", "-3", "pl.transpose: axis -3 is out of range for rank 2"),
])
def test_transpose_compile_errors(load, call, needle, want):
    mod, path = load("""
        @pl.jit
        def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(a, [0, 0], [16, 32])
                v = %s
                pl.store(t, [0, 0], out)
            return out
        """ % call)
    with pytest.raises(InvalidOperationError) as e:
        mod.k(torch.zeros(16, 32), torch.zeros(16, 32))
    assert e.value.message == want
    line, col = line_of(path, "v = ")
    col += len("v = ") + call.index(needle)
    assert (e.value.span["line"], e.value.span["column"]) == (line, col)


def test_transpose_of_a_tensor_in_orchestration_is_not_supported(load):
    mod, _ = load("""
        @pl.jit
        def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            b = pl.transpose(a, 0, 1)
            return out
        """)
    with pytest.raises(UnsupportedFeatureError) as e:
        mod.k(torch.zeros(4, 16), torch.zeros(4, 16))
    assert e.value.message == "pl.transpose of a Tensor is not supported in this version"
