"""SC-dtype and SC-cast (DSL-V2-SPEC §9, P1-11 casts, P1-12): INT64, INT16 and
BOOL tensors from torch and numpy through load/store, tile casts among FP32,
INT32, INT64, INT16 and BOOL against numpy, integer element-wise ops wrapping
at the dtype's limits, a BOOL tile in arithmetic -> text at the op, the
float64 argument text listing the new dtypes, and scalar casts to and from
INDEX and INT64 in kernel code."""
import numpy as np
import pytest
import torch

from conftest import line_of
from pypto.language.parser.diagnostics import ParserTypeError

R, C = 8, 16

KERNELS = """
    @pl.jit
    def copy(a: pl.Tensor, out: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.store(pl.load(a, [0, 0], [8, 16]), [0, 0], out)
        return out

    @pl.jit
    def add(a: pl.Tensor, b: pl.Tensor, out: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.store(pl.add(pl.load(a, [0, 0], [8, 16]), pl.load(b, [0, 0], [8, 16])), [0, 0], out)
        return out

    @pl.jit
    def mul_neg(a: pl.Tensor, b: pl.Tensor, out: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.store(pl.neg(pl.mul(pl.load(a, [0, 0], [8, 16]), pl.load(b, [0, 0], [8, 16]))), [0, 0], out)
        return out

    @pl.jit
    def sub_scalar(a: pl.Tensor, out: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.store(pl.sub(pl.load(a, [0, 0], [8, 16]), 1), [0, 0], out)
        return out

    @pl.jit
    def row_sum(a: pl.Tensor, out: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.store(pl.row_sum(pl.load(a, [0, 0], [8, 16])), [0, 0], out)
        return out
"""

CAST = """
    @pl.jit
    def cast(a: pl.Tensor, out: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.store(pl.cast(pl.load(a, [0, 0], [8, 16]), pl.%s), [0, 0], out)
        return out
"""

TORCH = {"FP32": torch.float32, "INT32": torch.int32, "INT64": torch.int64, "INT16": torch.int16, "BOOL": torch.bool}
NUMPY = {"FP32": np.float32, "INT32": np.int32, "INT64": np.int64, "INT16": np.int16, "BOOL": np.bool_}


@pytest.fixture
def K(load):
    return load(KERNELS)[0]


def _values(dt, seed=0):
    g = np.random.default_rng(seed)
    if dt == "BOOL":
        return g.integers(0, 2, (R, C)).astype(np.bool_)
    if dt == "FP32":
        return (g.standard_normal((R, C)) * 50).astype(np.float32)
    info = np.iinfo(NUMPY[dt])
    v = g.integers(info.min, info.max, (R, C), dtype=np.int64, endpoint=True).astype(NUMPY[dt])
    v[0, :4] = [info.min, info.max, 0, -1]
    return v


@pytest.mark.parametrize("dt", ["INT64", "INT16", "BOOL"])
def test_sc_dtype_round_trip_through_load_store_torch_and_numpy(K, dt):
    a = _values(dt)
    out = np.zeros_like(a)
    K.copy(a, out)
    assert out.dtype == a.dtype and np.array_equal(out, a)
    ta, tout = torch.from_numpy(a.copy()), torch.zeros(R, C, dtype=TORCH[dt])
    K.copy(ta, tout)
    assert torch.equal(tout, ta)


PAIRS = [(s, t) for s in TORCH for t in TORCH if s != t]


@pytest.mark.parametrize("src, dst", PAIRS)
def test_sc_dtype_tile_casts_match_numpy(load, src, dst):
    mod = load(CAST % dst)[0]
    a = _values(src, seed=1)
    if src == "FP32" and dst != "BOOL":  # in range of the target (saturation is v1's rule; numpy's is undefined there)
        info = np.iinfo(NUMPY[dst])
        a = np.clip(a, max(info.min, -1e6), min(info.max, 1e6)).astype(np.float32)
    if dst in ("INT32", "INT16") and src in ("INT64", "INT32"):  # in range: numpy wraps, v1 saturates
        info = np.iinfo(NUMPY[dst])
        a = np.clip(a, info.min, info.max).astype(a.dtype)
    out = np.zeros((R, C), NUMPY[dst])
    mod.cast(a, out)
    want = np.round(a).astype(NUMPY[dst]) if src == "FP32" and dst != "BOOL" else a.astype(NUMPY[dst])
    assert np.array_equal(out, want), (a, out, want)


def test_sc_dtype_int_to_narrower_int_saturates(load):
    mod = load(CAST % "INT16")[0]
    a = np.array([[2**40, -2**40, 32768, -32769] * 4] * R, np.int64)
    out = np.zeros((R, C), np.int16)
    mod.cast(a, out)
    assert np.array_equal(out[0, :4], [32767, -32768, 32767, -32768])


def test_sc_dtype_float_to_int64_saturates_and_nan_is_zero(load):
    mod = load(CAST % "INT64")[0]
    a = np.zeros((R, C), np.float32)
    a[0, :5] = [1e30, -1e30, np.nan, 2.5, -2.5]
    out = np.ones((R, C), np.int64)
    mod.cast(a, out)
    assert list(out[0, :5]) == [2**63 - 1, -2**63, 0, 3, -3]


@pytest.mark.parametrize("dt", ["INT64", "INT16"])
def test_sc_dtype_integer_ops_wrap_at_the_limits(K, dt):
    info = np.iinfo(NUMPY[dt])
    a, b = _values(dt, seed=2), _values(dt, seed=3)
    a[1, :3], b[1, :3] = [info.max, info.min, info.max], [1, -1, info.max]
    out = np.zeros_like(a)
    with np.errstate(over="ignore"):
        K.add(a, b, out)
        assert np.array_equal(out, a + b)
        K.mul_neg(a, b, out)
        assert np.array_equal(out, -(a * b))
        K.sub_scalar(a, out)
        assert np.array_equal(out, a - NUMPY[dt](1))
    rs = np.zeros((R, 1), NUMPY[dt])
    K.row_sum(a, rs)
    with np.errstate(over="ignore"):
        assert np.array_equal(rs[:, 0], a.sum(axis=1, dtype=NUMPY[dt]))


def test_sc_dtype_int64_add_wraps_torch(K):
    a = torch.tensor([[2**63 - 1] * C] * R, dtype=torch.int64)
    b = torch.ones(R, C, dtype=torch.int64)
    out = torch.zeros(R, C, dtype=torch.int64)
    K.add(a, b, out)
    assert torch.equal(out, torch.full((R, C), -2**63, dtype=torch.int64))


def test_sc_dtype_bool_add_is_a_type_error_at_the_op(load):
    mod, path = load("""
        @pl.jit
        def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(a, [0, 0], [8, 16])
                pl.store(pl.add(t, t), [0, 0], out)
            return out
        """)
    a = np.zeros((R, C), np.bool_)
    with pytest.raises(ParserTypeError) as e:
        mod.k(a, a.copy())
    assert e.value.message == "pl.add does not accept BOOL tiles; cast first"
    line, col = line_of(path, "pl.add(")
    assert (e.value.span["line"], e.value.span["column"]) == (line, col)


def test_sc_dtype_float64_argument_lists_the_new_dtypes(K):
    with pytest.raises(TypeError) as e:
        K.copy(np.zeros((R, C)), np.zeros((R, C), np.float32))
    assert str(e.value).endswith("argument 'a' has dtype float64, which has no pypto dtype "
                                 "(supported: float32, float16, bfloat16, int64, int32, int16, int8, uint32, uint16, uint8, bool)")


def test_sc_cast_scalars_to_and_from_index_and_int64_in_kernel_code(load):
    mod = load("""
        @pl.jit
        def k(a: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar[pl.INT32], f: pl.Scalar[pl.FP32]):
            with pl.at(level=pl.Level.CORE_GROUP):
                i = pl.cast(n, pl.INDEX)
                w = pl.cast(f, pl.INT64)
                x = pl.cast(w, pl.FP32)
                y = pl.cast(i * 3, pl.INT32)
                t = pl.load(a, [0, 0], [8, 16])
                pl.store(pl.add(pl.add(t, x), pl.cast(y, pl.FP32)), [0, 0], out)
            return out
        """)[0]
    a = np.ones((R, C), np.float32)
    out = np.zeros_like(a)
    mod.k(a, out, 7, 2.5)
    assert np.array_equal(out, a + 3 + 21)  # round(2.5) = 3 (half away from zero)


@pytest.mark.parametrize("dt", ["INT64", "INT16", "BOOL"])
def test_sc_dtype_read_and_write_one_element(load, dt):
    mod = load("""
        @pl.jit
        def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                v = pl.read(pl.load(a, [0, 0], [8, 16]), [1, 2])
                pl.write(out, [3, 4], v)
            return out
        """)[0]
    a = _values(dt, seed=4)
    a[1, 2] = np.iinfo(NUMPY[dt]).min if dt != "BOOL" else True
    out = np.zeros_like(a)
    mod.k(a, out)
    assert out[3, 4] == a[1, 2] and np.count_nonzero(out) == 1
