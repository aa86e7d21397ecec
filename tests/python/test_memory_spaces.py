"""Memory spaces (docs/dsl.md, "Memory spaces"): a kernel that loads into Mat,
moves to Left/Right, multiplies and stores from Acc gives numpy's product; a
pl.create_tile reads zero in every space; the tags are printed and survive
print -> parse -> print; the error rows reach Python with their class and
text.  On the CPU every space is host memory: no tag changes a value."""
import numpy as np
import pytest

import pypto.language as pl
from pypto.language.parser.diagnostics import ParserSyntaxError

from conftest import line_of

M, KD, N = 7, 45, 13
SPACES = ("Vec", "Mat", "Left", "Right", "Bias")

KERNELS = """
@pl.jit
def mm(a: pl.Tensor, b: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        x = pl.load(a, [0, 0], [%(M)d, %(K)d], target_memory=pl.Mem.Mat)
        y = pl.load(b, [0, 0], [%(K)d, %(N)d], target_memory=pl.MemorySpace.Mat)
        l = pl.move(x, target_memory=pl.Mem.Left)
        r = pl.move(y, pl.Mem.Right)
        c = pl.matmul(l, r)
        pl.store(c, [0, 0], out)
    return out

@pl.jit
def acc_back(a: pl.Tensor, b: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        c = pl.matmul(pl.load(a, [0, 0], [%(M)d, %(K)d]), pl.load(b, [0, 0], [%(K)d, %(N)d]))
        v = pl.move(c, target_memory=pl.Mem.Vec)
        m = pl.move(c, target_memory=pl.Mem.Mat)
        pl.store(pl.sub(pl.add(v, m), c), [0, 0], out)
    return out
""" % {"M": M, "K": KD, "N": N}

ZEROS = """
@pl.jit
def zeros_%(s)s(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        z = pl.create_tile([%(M)d, %(N)d], pl.FP32, target_memory=pl.Mem.%(s)s, transpose=False)
        pl.store(pl.add(z, pl.load(a, [0, 0], [%(M)d, %(N)d])), [0, 0], out)
        pl.store(z, [%(M)d, 0], out)
    return out
"""


@pytest.fixture(scope="module")
def K(tmp_path_factory):
    import importlib.util
    import sys
    src = "import pypto.language as pl\n" + KERNELS + "".join(ZEROS % {"s": s, "M": M, "N": N} for s in SPACES)
    path = tmp_path_factory.mktemp("memory_spaces") / "memory_space_kernels.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location("memory_space_kernels", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["memory_space_kernels"] = mod
    spec.loader.exec_module(mod)
    return mod


def _mats(seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((M, KD)).astype(np.float32), rng.standard_normal((KD, N)).astype(np.float32))


def _product(a, b):
    return (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)


def test_mat_left_right_matmul_store_from_acc(K):
    a, b = _mats()
    out = np.zeros((M, N), np.float32)
    K.mm(a, b, out)
    np.testing.assert_allclose(out, _product(a, b), rtol=1e-5, atol=1e-5)


def test_moves_out_of_acc_keep_values(K):
    a, b = _mats(1)
    out, ref = np.zeros((M, N), np.float32), np.zeros((M, N), np.float32)
    K.acc_back(a, b, out)
    K.mm(a, b, ref)
    np.testing.assert_array_equal(out, ref)  # v + m - c with v == m == c


@pytest.mark.parametrize("space", SPACES)
def test_create_tile_reads_zero(K, space):
    a = np.random.default_rng(2).standard_normal((M, N)).astype(np.float32)
    out = np.full((2 * M, N), 7.0, np.float32)
    getattr(K, "zeros_" + space)(a, out)
    np.testing.assert_array_equal(out[:M], a)
    np.testing.assert_array_equal(out[M:], np.zeros((M, N), np.float32))


@pytest.mark.parametrize("name", ["mm", "acc_back", "zeros_Mat", "zeros_Left"])
def test_tags_survive_the_round_trip(K, name):
    a, b = _mats()
    args = (a, b, np.zeros((M, N), np.float32)) if not name.startswith("zeros") else (a[:, :N].copy(), np.zeros((2 * M, N), np.float32))
    text = getattr(K, name).lower(*args)
    assert pl.parse_program(text).lower(*args) == text
    if name == "mm":
        assert "target_memory=pl.Mem.Mat" in text and "pl.move(x, target_memory=pl.Mem.Left)" in text
        assert "pl.move(y, target_memory=pl.Mem.Right)" in text
    if name == "zeros_Left":
        assert "pl.create_tile([%d, %d], pl.FP32, transpose=False, target_memory=pl.Mem.Left)" % (M, N) in text


def test_errors_reach_python(load):
    mod, _ = load("""
        @pl.jit
        def bad_load(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.store(pl.load(a, [0, 0], [4, 4], target_memory=pl.Mem.Left), [0, 0], out)
            return out

        @pl.jit
        def bad_move(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.store(pl.move(pl.load(a, [0, 0], [4, 4]), target_memory=pl.Mem.Acc), [0, 0], out)
            return out

        @pl.jit
        def bad_transpose(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.store(pl.create_tile([4, 4], pl.FP32, transpose=1), [0, 0], out)
            return out
        """)
    a, out = np.zeros((4, 4), np.float32), np.zeros((4, 4), np.float32)
    with pytest.raises(Exception, match="target_memory for tile.load must be MemorySpace.Vec or MemorySpace.Mat, got MemorySpace.Left") as e:
        mod.bad_load(a, out)
    assert type(e.value).__name__ == "InvalidOperationError"
    with pytest.raises(Exception, match="pl.move: target_memory must be an on-chip space other than Acc, got MemorySpace.Acc") as e:
        mod.bad_move(a, out)
    assert type(e.value).__name__ == "InvalidOperationError"
    with pytest.raises(ParserSyntaxError, match=r"pl.create_tile\(\) transpose must be None or a boolean literal"):
        mod.bad_transpose(a, out)


def test_tile_annotations(load):
    mod, path = load("""
        @pl.jit
        def tagged(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                x: pl.Tile[[4, 8], pl.FP32, pl.Mem.Mat] = pl.load(a, [0, 0], [4, 8], target_memory=pl.Mem.Mat)
                y: pl.Tile[[4, 8], pl.FP32, pl.Mem.Left] = pl.add(x, x)
                pl.store(y, [0, 0], out)
            return out

        @pl.jit
        def mismatch(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                x: pl.Tile[[4, 8], pl.FP32, pl.Mem.Mat] = pl.load(a, [0, 0], [4, 8])
                pl.store(x, [0, 0], out)
            return out
        """)
    a, out = np.arange(32, dtype=np.float32).reshape(4, 8), np.zeros((4, 8), np.float32)
    text = mod.tagged.lower(a, out)
    assert "y: pl.Tile[[4, 8], pl.FP32, pl.Mem.Left] = pl.add(x, x)" in text
    assert pl.parse_program(text).lower(a, out) == text
    mod.tagged(a, out)
    np.testing.assert_array_equal(out, a * 2)
    with pytest.raises(Exception, match=r"annotation pl.Tile\[\[4, 8\], pl.FP32, pl.Mem.Mat\] does not match the value's type pl.Tile\[\[4, 8\], pl.FP32\]") as e:
        mod.mismatch(a, out)
    assert type(e.value).__name__ == "ParserTypeError"


def test_memref_hint_has_no_effect(load):
    mod, _ = load("""
        @pl.jit
        def plain(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                for i in pl.range(4):
                    t = pl.load(a, [i * 2, 0], [2, 8])
                    x = pl.exp(t)
                    pl.store(x, [i * 2, 0], out)
            return out

        @pl.jit
        def pinned(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                for i in pl.range(4):
                    t = pl.load(a, [i * 2, 0], [2, 8])
                    x: pl.Tile[[2, 8], pl.FP32, pl.MemRef("ub", slots=2)[i % 2], pl.Mem.Vec] = pl.exp(t)
                    pl.store(x, [i * 2, 0], out)
            return out

        @pl.jit
        def zero_slots(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(a, [0, 0], [2, 8])
                x: pl.Tile[[2, 8], pl.FP32, pl.MemRef("ub", slots=0), pl.Mem.Vec] = t
                pl.store(x, [0, 0], out)
            return out
        """)
    a = np.random.default_rng(3).standard_normal((8, 8)).astype(np.float32)
    o1, o2 = np.zeros((8, 8), np.float32), np.zeros((8, 8), np.float32)
    mod.plain(a, o1)
    mod.pinned(a, o2)
    np.testing.assert_array_equal(o1, o2)
    assert mod.pinned.lower(a, o2) == mod.plain.lower(a, o1).replace("plain", "pinned")
    with pytest.raises(Exception, match="pl.MemRef slots must be a positive integer constant, got 0"):
        mod.zero_slots(a, o1)


def test_tileview_hint_is_checked_and_has_no_effect(load):
    mod, path = load("""
        @pl.jit
        def viewed(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                t: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[6, 8])] = pl.load(a, [0, 0], [8, 8], valid_shape=[6, 8])
                x: pl.Tile[[8, 8], pl.FP32, pl.TileView(pad=pl.PadValue.zero)] = pl.fillpad(t)
                pl.store(x, [0, 0], out)
            return out

        @pl.jit
        def mismatch(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                t: pl.Tile[[8, 8], pl.FP32, pl.TileView(valid_shape=[8, 8])] = pl.load(a, [0, 0], [8, 8], valid_shape=[6, 8])
                pl.store(t, [0, 0], out)
            return out

        @pl.jit
        def layout(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                t: pl.Tile[[8, 8], pl.FP32, pl.TileView(blayout=pl.NZ)] = pl.load(a, [0, 0], [8, 8])
                pl.store(t, [0, 0], out)
            return out
        """)
    a, out = np.arange(64, dtype=np.float32).reshape(8, 8), np.full((8, 8), -1, np.float32)
    text = mod.viewed.lower(a, out)
    assert pl.parse_program(text).lower(a, out) == text
    mod.viewed(a, out)
    want = a.copy()
    want[6:] = 0
    np.testing.assert_array_equal(out, want)
    with pytest.raises(Exception) as e:
        mod.mismatch(a, out)
    assert type(e.value).__name__ == "ParserTypeError"
    assert e.value.message == ("annotation pl.Tile[[8, 8], pl.FP32, pl.TileView(valid_shape=[8, 8])] does not match the "
                               "value's type pl.Tile[[8, 8], pl.FP32, pl.TileView(valid_shape=[6, 8])]")
    assert (e.value.span["line"], e.value.span["column"]) == line_of(path, "pl.Tile[[8, 8], pl.FP32, pl.TileView(valid_shape=[8")
    with pytest.raises(Exception) as e:
        mod.layout(a, out)
    assert type(e.value).__name__ == "UnsupportedFeatureError"
    assert e.value.message == ("blayout= is Ascend-specific: it selects a hardware fractal layout; it has no meaning on "
                               "the CPU backend")
    assert (e.value.span["line"], e.value.span["column"]) == line_of(path, "blayout")


def test_tile_annotations_of_an_inline_signature(load):
    mod, path = load("""
        @pl.jit.inline
        def scaled(x: pl.Tile[[8, 8], pl.FP32], y: pl.Tile[[8, 8], pl.FP32, pl.TileView(valid_shape=[8, 8])]) -> pl.Tile[[8, 8], pl.FP32, pl.Mem.Mat]:
            return pl.add(x, y)

        @pl.jit.inline
        def narrow(x: pl.Tile[[8, 4], pl.FP32]):
            return x

        @pl.jit
        def good(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(a, [0, 0], [8, 8])
                pl.store(scaled(pl.exp(t), t), [0, 0], out)
            return out

        @pl.jit
        def bad(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.store(narrow(pl.load(a, [0, 0], [8, 8])), [0, 0], out)
            return out
        """)
    a, out = np.linspace(-1, 1, 64, dtype=np.float32).reshape(8, 8), np.zeros((8, 8), np.float32)
    text = mod.good.lower(a, out)
    assert "scaled_value: pl.Tile[[8, 8], pl.FP32, pl.Mem.Mat] = pl.add(x, t)" in text
    assert pl.parse_program(text).lower(a, out) == text
    mod.good(a, out)
    np.testing.assert_allclose(out, np.exp(a) + a, rtol=1e-6)
    with pytest.raises(Exception) as e:
        mod.bad(a, out)
    assert type(e.value).__name__ == "ParserTypeError"
    assert e.value.message == "annotation pl.Tile[[8, 4], pl.FP32] does not match the value's type pl.Tile[[8, 8], pl.FP32]"
    assert (e.value.span["line"], e.value.span["column"]) == line_of(path, "pl.Tile[[8, 4]")
