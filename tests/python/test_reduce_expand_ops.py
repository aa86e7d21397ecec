"""pl.row_min, pl.col_sum/col_max/col_min, the row_expand_* / col_expand_*
families and pl.row_expand, pl.col_expand, pl.expands (docs/dsl.md, Operations) run on FP32, FP16, BF16 and INT32
tensors against numpy, over whole and narrowed valid regions.

Sums use small integer values, so every order of addition gives the same
exact result (FP16/BF16 sums accumulate in FP32 and round once); max/min
and the expands are exact per element (FP16/BF16 computed in FP32 and
rounded to nearest even once: numpy's float32 then a rounding)."""
import importlib.util
import sys
import textwrap

import numpy as np
import pytest
import torch

from conftest import docs_example
from pypto.runtime import PTORuntimeError

R, C = 7, 45
VR, VC = 5, 20  # the narrowed valid region
DT = {"FP32": torch.float32, "FP16": torch.float16, "BF16": torch.bfloat16, "INT32": torch.int32}
FLOATS = ("FP32", "FP16", "BF16")
REDUCE = ("row_min", "col_sum", "col_max", "col_min")
ROW_EXPAND = ("add", "sub", "mul", "div", "max", "min", "expdif")
COL_EXPAND = ("add", "sub", "mul", "div", "max", "min", "expdif")


def _kernel(name, params, expr):
    return textwrap.dedent("""
        @pl.jit
        def {name}({params}, out: pl.Out[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.store({expr}, [0, 0], out)
            return out
        """).format(name=name, params=params, expr=expr)


def _sources():
    whole = "pl.load(a, [0, 0], [%d, %d])" % (R, C)
    narrow = "pl.load(a, [0, 0], [%d, %d], valid_shape=[%d, %d])" % (R, C, VR, VC)
    src = ["import pypto.language as pl\n"]
    for op in REDUCE:
        src.append(_kernel("red_" + op, "a: pl.Tensor", "pl.%s(%s)" % (op, whole)))
        src.append(_kernel("vred_" + op, "a: pl.Tensor", "pl.%s(%s)" % (op, narrow)))
    for op in ROW_EXPAND:
        vec = "pl.load(v, [0, 0], [%d, 1])" % R
        src.append(_kernel("rx_" + op, "a: pl.Tensor, v: pl.Tensor", "pl.row_expand_%s(%s, %s)" % (op, whole, vec)))
        src.append(_kernel("vrx_" + op, "a: pl.Tensor, v: pl.Tensor", "pl.row_expand_%s(%s, %s)" % (op, narrow, vec)))
    for op in COL_EXPAND:
        vec = "pl.load(v, [0, 0], [1, %d])" % C
        src.append(_kernel("cx_" + op, "a: pl.Tensor, v: pl.Tensor", "pl.col_expand_%s(%s, %s)" % (op, whole, vec)))
        src.append(_kernel("vcx_" + op, "a: pl.Tensor, v: pl.Tensor", "pl.col_expand_%s(%s, %s)" % (op, narrow, vec)))
    for axis, vshape in (("row", (R, 1)), ("col", (1, C))):
        vec = "pl.load(v, [0, 0], [%d, %d])" % vshape
        src.append(_kernel(axis + "_bcast", "a: pl.Tensor, v: pl.Tensor", "pl.%s_expand(%s, %s)" % (axis, whole, vec)))
        src.append(_kernel("v" + axis + "_bcast", "a: pl.Tensor, v: pl.Tensor", "pl.%s_expand(%s, vec=%s)" % (axis, narrow, vec)))
    for tag, value in (("f", "0.1"), ("i", "-7")):
        src.append(_kernel("expands_" + tag, "a: pl.Tensor", "pl.expands(%s, %s)" % (whole, value)))
        src.append(_kernel("vexpands_" + tag, "a: pl.Tensor", "pl.expands(target=%s, scalar=%s)" % (narrow, value)))
    return "".join(src)


@pytest.fixture(scope="module")
def K(tmp_path_factory):
    path = tmp_path_factory.mktemp("reduce_expand") / "reduce_expand_kernels.py"
    path.write_text(_sources())
    spec = importlib.util.spec_from_file_location("reduce_expand_kernels", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["reduce_expand_kernels"] = mod
    spec.loader.exec_module(mod)
    return mod


def _round(dt, x):
    """float32 -> the dtype's value (as float32), to nearest even."""
    x = np.asarray(x, dtype=np.float32)
    if dt == "FP16":
        return x.astype(np.float16).astype(np.float32)
    if dt == "BF16":
        u = x.view(np.uint32).astype(np.uint64)
        u = (u + 0x7FFF + ((u >> 16) & 1)) >> 16 << 16  # no NaN in these inputs
        return u.astype(np.uint32).view(np.float32)
    return x


def _input(dt, shape, seed, ints=False, positive=False):
    rng = np.random.default_rng(seed)
    if dt == "INT32" or ints:
        x = rng.integers(1 if positive else -30, 31, size=shape).astype(np.float32)
    else:
        x = rng.standard_normal(shape).astype(np.float32) * 4
        if positive:
            x = np.abs(x) + 0.5
    x = _round(dt, x)
    if dt == "INT32":
        return torch.from_numpy(x.astype(np.int32))
    return torch.from_numpy(x).to(DT[dt])


def _np(t):
    return t.numpy() if t.dtype in (torch.float32, torch.int32) else t.float().numpy()


def _bits(t):
    """Comparable bits of a result (the dtype's own patterns)."""
    if t.dtype in (torch.float16, torch.bfloat16):
        return t.view(torch.int16).numpy()
    return t.view(torch.int32).numpy() if t.dtype == torch.float32 else t.numpy()


def _as(dt, ref):
    """A float32/int64 numpy reference as a tensor of dtype dt (one rounding)."""
    if dt == "INT32":
        return torch.from_numpy(ref.astype(np.int64).astype(np.int32))
    return torch.from_numpy(_round(dt, ref.astype(np.float32))).to(DT[dt])


# ---- reductions -------------------------------------------------------------------------------

def _reduce_ref(op, a):
    fn = {"sum": np.sum, "max": np.max, "min": np.min}[op[4:]]
    return fn(a, axis=1 if op.startswith("row") else 0, keepdims=True)


@pytest.mark.parametrize("dt", list(DT))
@pytest.mark.parametrize("op", REDUCE)
def test_reductions_match_numpy(K, op, dt):
    x = _input(dt, (R, C), seed=3, ints=op == "col_sum")
    a = _np(x).astype(np.int64 if dt == "INT32" else np.float32)
    for kern, rows, cols in ((getattr(K, "red_" + op), R, C), (getattr(K, "vred_" + op), VR, VC)):
        shape = (R, 1) if op.startswith("row") else (1, C)
        out = torch.zeros(shape, dtype=DT[dt])
        kern(x, out)
        want = np.zeros(shape, dtype=a.dtype)
        ref = _reduce_ref(op, a[:rows, :cols])
        want[:ref.shape[0], :ref.shape[1]] = ref  # the store writes the valid region only
        assert np.array_equal(_bits(out), _bits(_as(dt, want))), (op, dt, rows, cols)


def test_col_sum_fp16_accumulates_in_fp32(K):
    x = torch.ones(R, C).half()
    x[0, :] = 2048.0  # 2048 + 1 in FP16 stays 2048; in FP32 the sum is exact, then rounded
    out = torch.zeros(1, C).half()
    K.red_col_sum(x, out)
    assert out.float().view(-1).tolist() == [2048.0 + R - 1] * C


def test_col_sum_int32_wraps(K):
    x = torch.full((R, C), 2**30, dtype=torch.int32)
    out = torch.zeros(1, C, dtype=torch.int32)
    K.red_col_sum(x, out)
    assert out.view(-1).tolist() == [int(np.int64(R * 2**30).astype(np.int32))] * C


# ---- row_expand_* / col_expand_* ---------------------------------------------------------------

def _expand_ref(op, a, v, dt):
    """a <op> v broadcast, in float32 (floats) or int64 (INT32, wrapped after)."""
    if op == "expdif":
        return np.exp((a - v).astype(np.float64)).astype(np.float32)  # x - v in FP32, exp correctly rounded
    if op == "div" and dt == "INT32":
        return np.trunc(a / v)
    return {"add": a + v, "sub": a - v, "mul": a * v, "div": a / v if dt != "INT32" else None,
            "max": np.maximum(a, v), "min": np.minimum(a, v)}[op]


def _expand_case(K, prefix, op, dt, rows_vec):
    if op == "expdif" and dt == "INT32":
        return
    x = _input(dt, (R, C), seed=5)
    vshape = (R, 1) if rows_vec else (1, C)
    v = _input(dt, vshape, seed=6, positive=op == "div")
    if op == "expdif":  # keep exp in range
        x, v = (x.float() / 4).to(DT[dt]), (v.float() / 4).to(DT[dt])
    a, b = _np(x).astype(np.float32), _np(v).astype(np.float32)
    if dt == "INT32":
        a, b = a.astype(np.int64), b.astype(np.int64)
    for kern, rows, cols in ((getattr(K, prefix + op), R, C), (getattr(K, "v" + prefix + op), VR, VC)):
        out = torch.zeros((R, C), dtype=DT[dt])
        kern(x, v, out)
        want = np.zeros((R, C), dtype=a.dtype)
        ref = _expand_ref(op, a, b, dt)
        want[:rows, :cols] = ref[:rows, :cols]
        if dt == "INT32":
            want = (want.astype(np.int64) & 0xFFFFFFFF).astype(np.uint32).view(np.int32).astype(np.int64)
        got, exp = _bits(out), _bits(_as(dt, want))
        if op == "expdif" and dt == "FP32":  # libm's expf: within one unit in the last place
            assert np.abs(got.astype(np.int64) - exp.astype(np.int64)).max() <= 1, (op, dt)
        elif op == "expdif":
            np.testing.assert_allclose(out.float().numpy(), _np(_as(dt, want)), rtol=1e-2)
        else:
            assert np.array_equal(got, exp), (prefix, op, dt, rows, cols)


@pytest.mark.parametrize("dt", list(DT))
@pytest.mark.parametrize("op", ROW_EXPAND)
def test_row_expand_matches_numpy(K, op, dt):
    _expand_case(K, "rx_", op, dt, True)


@pytest.mark.parametrize("dt", list(DT))
@pytest.mark.parametrize("op", COL_EXPAND)
def test_col_expand_matches_numpy(K, op, dt):
    _expand_case(K, "cx_", op, dt, False)


# ---- row_expand / col_expand / expands ---------------------------------------------------------

@pytest.mark.parametrize("dt", list(DT))
@pytest.mark.parametrize("axis", ["row", "col"])
def test_vector_broadcast_over_the_target(K, axis, dt):
    x = _input(dt, (R, C), seed=8)
    v = _input(dt, (R, 1) if axis == "row" else (1, C), seed=9)
    for kern, rows, cols in ((getattr(K, axis + "_bcast"), R, C), (getattr(K, "v" + axis + "_bcast"), VR, VC)):
        out = torch.full((R, C), 99, dtype=DT[dt])
        kern(x, v, out)
        want = torch.full((R, C), 99, dtype=DT[dt])
        want[:rows, :cols] = v.expand(R, C)[:rows, :cols]  # the store writes the target's valid region only
        assert torch.equal(out, want), (axis, dt, rows, cols)


@pytest.mark.parametrize("dt", list(DT))
def test_expands_fills_the_target(K, dt):
    x = _input(dt, (R, C), seed=10)
    tag = "i" if dt == "INT32" else "f"
    value = -7 if dt == "INT32" else float(_as(dt, np.array([0.1], np.float32)).float()[0])
    for kern, rows, cols in ((getattr(K, "expands_" + tag), R, C), (getattr(K, "vexpands_" + tag), VR, VC)):
        out = torch.full((R, C), 99, dtype=DT[dt])
        kern(x, out)
        want = torch.full((R, C), 99, dtype=DT[dt])
        want[:rows, :cols] = value
        assert torch.equal(out, want), (dt, rows, cols)


@pytest.mark.parametrize("axis", ["row", "col"])
def test_integer_division_by_a_zero_vector_element(K, axis):
    """A zero the valid region divides by fails the task before it writes; one outside it
    (row VR or column VC of the narrowed tile) is never read."""
    x = torch.arange(R * C, dtype=torch.int32).reshape(R, C)
    v = torch.full((R, 1) if axis == "row" else (1, C), 3, dtype=torch.int32)
    v.view(-1)[VR if axis == "row" else VC] = 0
    out = torch.full((R, C), 77, dtype=torch.int32)
    prefix = "rx_" if axis == "row" else "cx_"
    with pytest.raises(PTORuntimeError) as e:
        getattr(K, prefix + "div")(x, v, out)
    assert "pl.%s_expand_div: integer division by zero" % axis in str(e.value)
    assert bool((out == 77).all())
    getattr(K, "v" + prefix + "div")(x, v, out)
    assert torch.equal(out[:VR, :VC], torch.div(x, 3, rounding_mode="trunc")[:VR, :VC])


def test_docs_softmax_example(load):
    """docs/dsl.md's reductions-and-broadcasts example, as written there, against torch."""
    mod = docs_example(load, "@pl.jit\ndef softmax(")
    x = torch.randn(64, 128, generator=torch.Generator().manual_seed(4))
    out, shifted = torch.zeros(64, 128), torch.zeros(64, 128)
    mod.softmax(x, out, shifted)
    torch.testing.assert_close(out, torch.softmax(x, dim=1), rtol=1e-5, atol=1e-6)
    assert torch.equal(shifted, x - x.amin(0, keepdim=True))


@pytest.mark.parametrize("op, ref", [("row_expand_sub", lambda a, v: a - v), ("row_expand_div", lambda a, v: a / v),
                                     ("row_expand_expdif", lambda a, v: np.exp(a - v)), ("row_expand", lambda a, v: v + 0 * a)])
def test_row_expand_batched_leading_axes_match_numpy(load, op, ref):
    """[B, R, C] with [B, R, 1]: each batch's rows with its own vector; a narrowed batch and row
    count leave the rest zero."""
    mod, _ = load("""
        @pl.jit
        def k(x: pl.Tensor, v: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar[pl.INDEX]):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(x, [0, 0, 0], [3, 8, 16], valid_shape=[2, n, 16])
                w = pl.load(v, [0, 0, 0], [3, 8, 1])
                pl.store(pl.%s(t, w), [0, 0, 0], out)
            return out
    """ % op)
    g = torch.Generator().manual_seed(5)
    x, v = torch.randn(3, 8, 16, generator=g), torch.rand(3, 8, 1, generator=g) + 0.5
    out = torch.full((3, 8, 16), 7.0)
    mod.k(x, v, out, 5)
    want = np.full((3, 8, 16), 7.0, np.float32)
    want[:2, :5] = ref(x.numpy(), v.numpy())[:2, :5]
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-6)


def test_row_expand_batched_integer_division_checks_only_valid_rows(load):
    mod, _ = load("""
        @pl.jit
        def k(x: pl.Tensor, v: pl.Tensor, out: pl.Out[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(x, [0, 0, 0], [2, 4, 8], valid_shape=[1, 4, 8])
                pl.store(pl.row_expand_div(t, pl.load(v, [0, 0, 0], [2, 4, 1])), [0, 0, 0], out)
            return out
    """)
    x = torch.arange(64, dtype=torch.int32).reshape(2, 4, 8)
    v = torch.full((2, 4, 1), 3, dtype=torch.int32)
    v[1, 2, 0] = 0  # in the batch outside the valid region: never read
    out = torch.zeros(2, 4, 8, dtype=torch.int32)
    mod.k(x, v, out)
    assert torch.equal(out[0], torch.div(x[0], 3, rounding_mode="trunc"))
    v[0, 1, 0] = 0
    with pytest.raises(PTORuntimeError, match="pl.row_expand_div: integer division by zero"):
        mod.k(x, v, out)
