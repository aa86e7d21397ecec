"""Every tile op of docs/dsl.md, "Operations", run through a small @pl.jit kernel on torch
tensors (a few on numpy arrays), against torch as the reference, for every
dtype it supports; `valid_shape`, `clamp=True` and implicit whole-tensor loads
(docs/dsl.md, "Expressions").

References: FP32 and integers are compared exactly where the spec pins the
result (integer ops wrap, integer div truncates toward zero); FP16/BF16
element-wise results are compared with the dtype's tolerance against torch
computing in float32 and rounding to the dtype (the spec's "compute in FP32,
round to nearest even")."""
import importlib.util
import math
import sys
import textwrap

import numpy as np
import pytest
import torch

R, C = 7, 45  # odd sizes: no op may assume a multiple of a vector width
M, KD, N = 7, 45, 13

DT = {"FP32": torch.float32, "FP16": torch.float16, "BF16": torch.bfloat16,
      "INT32": torch.int32, "INT8": torch.int8}
FLOATS = ("FP32", "FP16", "BF16")
INTS = ("INT32", "INT8")
BINOPS = ("add", "sub", "mul", "div", "maximum", "minimum")
UNOPS = ("exp", "neg", "sqrt", "abs", "relu")
MODES = ("round", "rint", "floor", "ceil", "trunc")
INFO = {"INT32": torch.iinfo(torch.int32), "INT8": torch.iinfo(torch.int8)}


def _kernel(name, params, body):
    return textwrap.dedent("""
        @pl.jit
        def {name}({params}, out: pl.Out[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                {body}
            return out
        """).format(name=name, params=params, body=body)


def _source():
    src = ["import pypto.language as pl\n",
           "R, C = %d, %d\nM, K, N = %d, %d, %d\n" % (R, C, M, KD, N)]
    lt = "pl.load(a, [0, 0], [R, C])"
    for op in BINOPS:
        src.append(_kernel("tt_" + op, "a: pl.Tensor, b: pl.Tensor",
                           "pl.store(pl.%s(%s, pl.load(b, [0, 0], [R, C])), [0, 0], out)" % (op, lt)))
        src.append(_kernel("ts_" + op, "a: pl.Tensor, s: pl.Scalar",
                           "pl.store(pl.%s(%s, s), [0, 0], out)" % (op, lt)))
        src.append(_kernel("whole_" + op, "a: pl.Tensor, b: pl.Tensor",  # implicit whole loads
                           "pl.store(pl.%s(a, b), [0, 0], out)" % op))
    for op in UNOPS:
        src.append(_kernel("un_" + op, "a: pl.Tensor", "pl.store(pl.%s(%s), [0, 0], out)" % (op, lt)))
        src.append(_kernel("whole_" + op, "a: pl.Tensor", "pl.store(pl.%s(a), [0, 0], out)" % op))
    for op in ("row_sum", "row_max"):
        src.append(_kernel("red_" + op, "a: pl.Tensor", "pl.store(pl.%s(%s), [0, 0], out)" % (op, lt)))
        src.append(_kernel("whole_" + op, "a: pl.Tensor", "pl.store(pl.%s(a), [0, 0], out)" % op))
        # reduces over the valid region only
        src.append(_kernel("vred_" + op, "a: pl.Tensor",
                           "pl.store(pl.%s(pl.load(a, [0, 0], [R, C], valid_shape=[R, 20])), [0, 0], out)" % op))
    for dt in DT:
        src.append(_kernel("cast_%s" % dt, "a: pl.Tensor", "pl.store(pl.cast(%s, pl.%s), [0, 0], out)" % (lt, dt)))
        for mode in MODES:
            src.append(_kernel("cast_%s_%s" % (dt, mode), "a: pl.Tensor",
                               "pl.store(pl.cast(%s, pl.%s, mode=\"%s\"), [0, 0], out)" % (lt, dt, mode)))
    src.append(_kernel("mm", "a: pl.Tensor, b: pl.Tensor",
                       "pl.store(pl.matmul(pl.load(a, [0, 0], [M, K]), pl.load(b, [0, 0], [K, N])), [0, 0], out)"))
    src.append(_kernel("mm_whole", "a: pl.Tensor, b: pl.Tensor", "pl.store(pl.matmul(a, b), [0, 0], out)"))
    src.append(_kernel("operators", "a: pl.Tensor, b: pl.Tensor",
                       "t = pl.load(a, [0, 0], [R, C])\n"
                       "        u = pl.load(b, [0, 0], [R, C])\n"
                       "        pl.store(-((t + u) * t - u / 2.0), [0, 0], out)"))
    # valid_shape / clamp
    src.append(_kernel("vs_static", "a: pl.Tensor",
                       "pl.store(pl.load(a, [0, 0], [8, C], valid_shape=[5, C]), [0, 0], out)"))
    src.append(_kernel("vs_dynamic", "a: pl.Tensor, n: pl.Scalar[pl.INDEX]",
                       "pl.store(pl.add(pl.load(a, [0, 0], [8, C], valid_shape=[n, C]), 1), [0, 0], out)"))
    src.append(_kernel("clamp_rows", "a: pl.Tensor",
                       "pl.store(pl.mul(pl.load(a, [16, 0], [8, C], clamp=True), 2), [0, 0], out)"))
    src.append(_kernel("clamp_rows_at", "a: pl.Tensor",  # store at the same window: the edge is respected
                       "pl.store(pl.load(a, [16, 0], [8, C], clamp=True), [16, 0], out)"))
    src.append(_kernel("clamp_tail_loop", "a: pl.Tensor",
                       "for i in pl.range(3):\n"
                       "            pl.store(pl.load(a, [i * 8, 0], [8, C], clamp=True), [i * 8, 0], out)"))
    src.append(_kernel("clamp_k_rhs", "a: pl.Tensor, b: pl.Tensor",  # rhs rows past b's edge read as 0
                       "pl.store(pl.matmul(pl.load(a, [0, 0], [M, 8]), pl.load(b, [16, 0], [8, N], clamp=True)),"
                       " [0, 0], out)"))
    src.append(_kernel("clamp_k_lhs", "a: pl.Tensor, b: pl.Tensor",  # lhs columns past a's edge read as 0
                       "pl.store(pl.matmul(pl.load(a, [0, 40], [M, 8], clamp=True), pl.load(b, [0, 0], [8, N])),"
                       " [0, 0], out)"))
    src.append(_kernel("dirty", "a: pl.Tensor",  # fills tile buffers with a's values
                       "pl.store(pl.matmul(pl.load(a, [0, 0], [M, 8]), pl.load(a, [0, 0], [8, N])), [0, 0], out)"))
    src.append(_kernel("clamp_div", "a: pl.Tensor, b: pl.Tensor",  # the zero padding is never divided
                       "pl.store(pl.div(pl.load(a, [16, 0], [8, C], clamp=True), pl.load(b, [16, 0], [8, C], clamp=True)),"
                       " [0, 0], out)"))
    src.append(_kernel("clamp_row_sum", "a: pl.Tensor",
                       "pl.store(pl.row_sum(pl.load(a, [0, 40], [R, 8], clamp=True)), [0, 0], out)"))
    src.append(_kernel("mixed_whole", "a: pl.Tensor, b: pl.Tensor",  # a tile with a whole-tensor operand
                       "pl.store(pl.sub(pl.load(a, [0, 0], [R, C]), b), [0, 0], out)"))
    return "".join(src)


@pytest.fixture(scope="module")
def K(tmp_path_factory):
    path = tmp_path_factory.mktemp("ops") / "ops_kernels.py"
    path.write_text(_source())
    spec = importlib.util.spec_from_file_location("ops_kernels", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["ops_kernels"] = mod
    spec.loader.exec_module(mod)
    return mod


def gen(seed=0):
    return torch.Generator().manual_seed(seed)


def rand(dt, shape=(R, C), seed=0, lo=None, hi=None, nonzero=False, positive=False):
    g = gen(seed)
    if dt in FLOATS:
        x = torch.randn(*shape, generator=g) * 4
        if positive:
            x = x.abs() + 0.01
        if nonzero:
            x = torch.where(x.abs() < 0.25, torch.full_like(x, 0.5), x)
        return x.to(DT[dt])
    info = INFO[dt]
    lo = info.min if lo is None else lo
    hi = info.max if hi is None else hi
    x = torch.randint(lo, hi + 1, shape, generator=g, dtype=torch.int64)
    if nonzero:
        x = torch.where(x == 0, torch.ones_like(x), x)
    return x.to(DT[dt])


def wrap(x64, dt):
    """int64 -> dt keeping the low bits (two's-complement wrap)."""
    bits = 32 if dt == "INT32" else 8
    x = x64 & ((1 << bits) - 1)
    return torch.where(x >= (1 << (bits - 1)), x - (1 << bits), x).to(DT[dt])


def ref_binary(op, x, y, dt):
    if dt in FLOATS:
        a, b = x.float(), y.float()
        r = {"add": a + b, "sub": a - b, "mul": a * b, "div": a / b,
             "maximum": torch.maximum(a, b), "minimum": torch.minimum(a, b)}[op]
        return r.to(DT[dt])
    a, b = x.long(), y.long()
    if op == "div":
        r = torch.div(a, b, rounding_mode="trunc")
    else:
        r = {"add": a + b, "sub": a - b, "mul": a * b,
             "maximum": torch.maximum(a, b), "minimum": torch.minimum(a, b)}[op]
    return wrap(r, dt)


def check(got, want, dt, exact=False):
    got = torch.as_tensor(got)
    want = torch.as_tensor(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    if dt in ("FP16", "BF16") and not exact:
        torch.testing.assert_close(got, want, equal_nan=True)
    else:
        torch.testing.assert_close(got, want, rtol=0, atol=0, equal_nan=True)


def zeros(dt, shape=(R, C)):
    return torch.zeros(*shape, dtype=DT[dt])


# ---- element-wise binary -------------------------------------------------------------------

@pytest.mark.parametrize("dt", list(DT))
@pytest.mark.parametrize("op", BINOPS)
def test_binary_tile_tile(K, op, dt):
    x = rand(dt, seed=1)
    y = rand(dt, seed=2, nonzero=(op == "div"))
    out = zeros(dt)
    assert getattr(K, "tt_" + op)(x, y, out) is None
    check(out, ref_binary(op, x, y, dt), dt)


@pytest.mark.parametrize("dt", list(DT))
@pytest.mark.parametrize("op", BINOPS)
def test_binary_tile_scalar(K, op, dt):
    x = rand(dt, seed=3)
    scalars = (1.75, -0.3) if dt in FLOATS else (3, -7, 1, -1)
    for s in scalars:
        out = zeros(dt)
        getattr(K, "ts_" + op)(x, s, out)
        y = torch.full((R, C), s, dtype=torch.float32 if dt in FLOATS else torch.int64).to(DT[dt])
        check(out, ref_binary(op, x, y, dt), dt)


@pytest.mark.parametrize("dt", ["FP32", "FP16", "BF16"])
def test_binary_int_literal_scalar_on_float_tile(K, dt):
    """An int as the scalar operand of an FP tile op is converted to the tile dtype."""
    x = rand(dt, seed=4)
    out = zeros(dt)
    K.ts_mul(x, 3, out)
    check(out, (x.float() * 3).to(DT[dt]), dt)


@pytest.mark.parametrize("dt", INTS)
def test_integer_ops_wrap_and_div_truncates(K, dt):
    info = INFO[dt]
    x = torch.tensor([info.max, info.min, info.min, -7, 7, -7, 7, info.max, info.min, 0], dtype=torch.int64)
    y = torch.tensor([1, -1, 1, 2, -2, -2, 2, info.max, info.min, -5], dtype=torch.int64)
    xs = torch.zeros(R, C, dtype=torch.int64)
    ys = torch.ones(R, C, dtype=torch.int64)
    xs.view(-1)[:10], ys.view(-1)[:10] = x, y
    xs, ys = xs.to(DT[dt]), ys.to(DT[dt])
    for op in ("add", "sub", "mul", "div"):
        out = zeros(dt)
        getattr(K, "tt_" + op)(xs, ys, out)
        check(out, ref_binary(op, xs, ys, dt), dt)
    out = zeros(dt)
    K.tt_div(xs, ys, out)
    # MIN / -1 wraps to MIN; -7 / 2 == -3 (toward zero, not floor)
    assert out.view(-1)[:7].tolist() == [info.max, info.min, info.min, -3, -3, 3, 3]


def test_float_binary_exact_rounding(K):
    """FP16/BF16: computed in FP32 then rounded to nearest even -- bit for bit."""
    for dt in ("FP16", "BF16"):
        for op in BINOPS:
            x, y = rand(dt, seed=5), rand(dt, seed=6, nonzero=True)
            out = zeros(dt)
            getattr(K, "tt_" + op)(x, y, out)
            check(out, ref_binary(op, x, y, dt), dt, exact=True)
            out = zeros(dt)
            getattr(K, "ts_" + op)(x, 0.1, out)  # the scalar is converted to the tile dtype first
            check(out, ref_binary(op, x, torch.full((R, C), 0.1).to(DT[dt]), dt), dt, exact=True)


def test_operators_match_functions(K):
    x, y = rand("FP32", seed=7), rand("FP32", seed=8, nonzero=True)
    out = zeros("FP32")
    K.operators(x, y, out)
    torch.testing.assert_close(out, -((x + y) * x - y / 2.0), rtol=0, atol=0)


def test_binary_numpy_inputs(K):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((R, C)).astype(np.float32)
    y = rng.standard_normal((R, C)).astype(np.float32)
    out = np.zeros((R, C), np.float32)
    K.tt_mul(x, y, out)
    np.testing.assert_array_equal(out, x * y)
    xi = rng.integers(-128, 128, (R, C)).astype(np.int8)
    yi = rng.integers(-128, 128, (R, C)).astype(np.int8)
    outi = np.zeros((R, C), np.int8)
    K.tt_add(xi, yi, outi)
    np.testing.assert_array_equal(outi, (xi.astype(np.int64) + yi).astype(np.int8))  # wraps
    xh = rng.standard_normal((R, C)).astype(np.float16)
    outh = np.zeros((R, C), np.float16)
    K.ts_add(xh, 1.5, outh)
    np.testing.assert_array_equal(outh, (xh.astype(np.float32) + np.float32(1.5)).astype(np.float16))
    x32 = rng.integers(-1000, 1000, (R, C)).astype(np.int32)
    out32 = np.zeros((R, C), np.int32)
    K.ts_div(x32, -3, out32)
    np.testing.assert_array_equal(out32, np.trunc(x32 / -3.0).astype(np.int32))


# ---- unary ---------------------------------------------------------------------------------

def ref_unary(op, x, dt):
    if dt in FLOATS:
        a = x.float()
        r = {"exp": torch.exp(a), "neg": -a, "sqrt": torch.sqrt(a), "abs": a.abs(), "relu": torch.relu(a)}[op]
        return r.to(DT[dt])
    a = x.long()
    r = {"neg": -a, "abs": a.abs(), "relu": torch.relu(a)}[op]
    return wrap(r, dt)


@pytest.mark.parametrize("op,dt", [(op, dt) for op in UNOPS for dt in DT
                                   if not (op in ("exp", "sqrt") and dt in INTS)])  # ints: test_unary_float_only
def test_unary(K, op, dt):
    x = rand(dt, seed=9, positive=(op == "sqrt"))
    if op == "exp" and dt in FLOATS:
        x = (x.float() / 2).to(DT[dt])  # stay inside FP16's range
    if dt in INTS:
        x.view(-1)[0] = INFO[dt].min  # -MIN and |MIN| wrap to MIN
    out = zeros(dt)
    getattr(K, "un_" + op)(x, out)
    want = ref_unary(op, x, dt)
    if op == "exp" and dt == "FP32":
        torch.testing.assert_close(out, want, rtol=2e-6, atol=0)  # libm's exp need not be correctly rounded
    else:
        check(out, want, dt)


@pytest.mark.parametrize("dt", ["INT32", "INT8"])
@pytest.mark.parametrize("op", ["exp", "sqrt", "log", "rsqrt", "recip"])
def test_unary_float_only(load, op, dt):
    from pypto.language.parser.diagnostics import ParserTypeError
    mod, _ = load("""
        @pl.jit
        def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.store(pl.%s(pl.load(a, [0, 0], [8, 8])), [0, 0], out)
            return out
        """ % op)
    a = torch.zeros(8, 8, dtype=getattr(torch, dt.lower()))
    with pytest.raises(ParserTypeError) as e:
        mod.k(a, a)
    assert e.value.message == "pl.%s requires a floating-point tile, got %s" % (op, dt)


def test_sqrt_of_negative_is_nan(K):
    x = torch.tensor([-1.0, 4.0, 0.0, -0.0] + [1.0] * (R * C - 4)).reshape(R, C)
    out = zeros("FP32")
    K.un_sqrt(x, out)
    assert math.isnan(out.view(-1)[0]) and out.view(-1)[1] == 2.0 and out.view(-1)[2] == 0.0


# ---- row reductions --------------------------------------------------------------------------

@pytest.mark.parametrize("dt", list(DT))
@pytest.mark.parametrize("op", ["row_sum", "row_max"])
def test_row_reductions(K, op, dt):
    # small integers: the sums stay in range (overflow of a reduction is not specified)
    x = rand(dt, seed=10, lo=-2, hi=2) if dt == "INT8" else rand(dt, seed=10, lo=-1000, hi=1000)
    for kern, cols in ((getattr(K, "red_" + op), C), (getattr(K, "whole_" + op), C),
                       (getattr(K, "vred_" + op), 20)):
        out = zeros(dt, (R, 1))
        kern(x, out)
        a = x[:, :cols]
        if dt in FLOATS:
            a = a.float()
            want = (a.sum(1, keepdim=True) if op == "row_sum" else a.amax(1, keepdim=True)).to(DT[dt])
        else:
            a = a.long()
            want = (a.sum(1, keepdim=True) if op == "row_sum" else a.amax(1, keepdim=True)).to(DT[dt])
        if dt == "FP32" and op == "row_sum":
            torch.testing.assert_close(out, want, rtol=1e-5, atol=1e-5)
        else:
            check(out, want, dt)


def test_row_max_all_negative(K):
    """The max of an all-negative row is negative (no 0 from an identity of 0)."""
    x = -(torch.rand(R, C, generator=gen(11)) + 1.0)
    out = zeros("FP32", (R, 1))
    K.red_row_max(x, out)
    torch.testing.assert_close(out, x.amax(1, keepdim=True), rtol=0, atol=0)
    out = zeros("FP32", (R, 1))
    K.vred_row_max(x, out)
    torch.testing.assert_close(out, x[:, :20].amax(1, keepdim=True), rtol=0, atol=0)


def test_row_sum_fp16_accumulates_in_fp32(K):
    # 45 * 2049 in FP16 steps would stall at 2048 + ... ; in FP32 the sum is exact, then rounded
    x = torch.full((R, C), 2049.0).to(torch.float16)  # 2049 rounds to 2048 in FP16
    x[:, 0] = 1.0
    out = zeros("FP16", (R, 1))
    K.red_row_sum(x, out)
    assert out.float().view(-1).tolist() == [float(torch.tensor(2048.0 * (C - 1) + 1.0).half())] * R
    y = torch.ones(R, C).half()
    y[:, 0] = 2048.0
    out = zeros("FP16", (R, 1))
    K.red_row_sum(y, out)  # 2048 + 1 + 1 + ... : FP16 accumulation would stay at 2048
    assert out.float().view(-1).tolist() == [2048.0 + C - 1] * R


# ---- cast -------------------------------------------------------------------------------------

SPECIALS = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999997, -0.49999997, 3.7, -3.7, 126.5, 127.5, 128.0,
            -128.5, -129.0, 1e10, -1e10, float("inf"), float("-inf"), float("nan"), 2147483520.0,
            2147483648.0, -2147483648.0, -2147483904.0, 0.0, -0.0, 1e-3, -1e-3]


def float_input(dt, seed):
    x = rand(dt, seed=seed).float() * 20
    x.view(-1)[:len(SPECIALS)] = torch.tensor(SPECIALS)
    return x.to(DT[dt])


def ref_float_to_int(x, dt, mode):
    a = x.double().numpy()
    r = {"round": np.where(a >= 0, np.floor(a + 0.5), np.ceil(a - 0.5)), "rint": np.rint(a),
         "floor": np.floor(a), "ceil": np.ceil(a), "trunc": np.trunc(a)}[mode]
    info = INFO[dt]
    r = np.nan_to_num(r, nan=0.0, posinf=info.max, neginf=info.min)
    r = np.clip(r, info.min, info.max)
    return torch.from_numpy(r.astype(np.int64)).to(DT[dt])


@pytest.mark.parametrize("mode", MODES + ("default",))
@pytest.mark.parametrize("dst", INTS)
@pytest.mark.parametrize("src", FLOATS)
def test_cast_float_to_int(K, src, dst, mode):
    x = float_input(src, seed=12)
    out = zeros(dst)
    kern = getattr(K, "cast_" + dst) if mode == "default" else getattr(K, "cast_%s_%s" % (dst, mode))
    kern(x, out)
    check(out, ref_float_to_int(x, dst, "round" if mode == "default" else mode), dst)


def test_cast_rounding_table(K):
    """The modes on the halves, spelled out."""
    vals = [2.5, -2.5, 1.5, -1.5, 0.5, -0.5, 2.4, -2.6]
    want = {"round": [3, -3, 2, -2, 1, -1, 2, -3], "rint": [2, -2, 2, -2, 0, 0, 2, -3],
            "floor": [2, -3, 1, -2, 0, -1, 2, -3], "ceil": [3, -2, 2, -1, 1, 0, 3, -2],
            "trunc": [2, -2, 1, -1, 0, 0, 2, -2]}
    x = torch.zeros(R, C)
    x.view(-1)[:len(vals)] = torch.tensor(vals)
    for mode, w in want.items():
        out = zeros("INT32")
        getattr(K, "cast_INT32_" + mode)(x, out)
        assert out.view(-1)[:len(vals)].tolist() == w, mode


@pytest.mark.parametrize("dst", FLOATS)
@pytest.mark.parametrize("src", FLOATS)
def test_cast_float_to_float(K, src, dst):
    x = rand(src, seed=13).float() * 1000
    x.view(-1)[:8] = torch.tensor([70000.0, -70000.0, 65520.0, 65519.0, float("nan"), float("inf"), 1e-8, 3.0e38])
    x = x.to(DT[src])
    out = zeros(dst)
    getattr(K, "cast_" + dst)(x, out)
    check(out, x.float().to(DT[dst]), dst, exact=True)  # round to nearest even, overflow -> inf


@pytest.mark.parametrize("dst", FLOATS)
@pytest.mark.parametrize("src", INTS)
def test_cast_int_to_float(K, src, dst):
    x = rand(src, seed=14, lo=-(1 << 24), hi=1 << 24) if src == "INT32" else rand(src, seed=14)
    out = zeros(dst)
    getattr(K, "cast_" + dst)(x, out)
    check(out, x.float().to(DT[dst]), dst, exact=True)  # |x| <= 2**24: exact in FP32, one rounding


def test_cast_int32_to_narrow_float_rounds_once(K):
    """INT32 -> BF16/FP32 round to nearest even once (no double rounding through FP32)."""
    vals = [(1 << 24) + (1 << 16) + 1, (1 << 24) + 1, (1 << 24) + 3, 2147483647, -2147483648, -(1 << 24) - (1 << 16) - 1]
    x = torch.zeros(R, C, dtype=torch.int32)
    x.view(-1)[:len(vals)] = torch.tensor(vals, dtype=torch.int32)
    out = zeros("BF16")
    K.cast_BF16(x, out)
    assert out.float().view(-1)[:len(vals)].tolist() == [
        (1 << 24) + (1 << 17), 1 << 24, (1 << 24), 2.0 ** 31, -2.0 ** 31, -(1 << 24) - (1 << 17)]
    out = zeros("FP32")
    K.cast_FP32(x, out)
    assert out.view(-1)[:3].tolist() == [(1 << 24) + (1 << 16), 1 << 24, (1 << 24) + 4]


@pytest.mark.parametrize("dst", INTS)
@pytest.mark.parametrize("src", INTS)
def test_cast_int_to_int(K, src, dst):
    x = rand(src, seed=15)
    x.view(-1)[:2] = torch.tensor([INFO[src].max, INFO[src].min])
    for mode in ("default",) + MODES:  # the mode does not matter between integers
        out = zeros(dst)
        kern = getattr(K, "cast_" + dst) if mode == "default" else getattr(K, "cast_%s_%s" % (dst, mode))
        kern(x, out)
        check(out, x.long().clamp(INFO[dst].min, INFO[dst].max).to(DT[dst]), dst)  # saturating


def test_cast_numpy(K):
    x = np.array([[2.5, -2.5, 1e10, -1e10] * 11 + [np.nan]] * R, np.float32)
    out = np.zeros((R, C), np.int32)
    K.cast_INT32_rint(x, out)
    want = np.array([[2, -2, 2147483647, -2147483648] * 11 + [0]] * R, np.int32)
    np.testing.assert_array_equal(out, want)


# ---- matmul -------------------------------------------------------------------------------------

@pytest.mark.parametrize("whole", [False, True])
@pytest.mark.parametrize("dt", ["FP32", "FP16", "BF16", "INT8"])
def test_matmul(K, dt, whole):
    a = rand(dt, (M, KD), seed=16)
    b = rand(dt, (KD, N), seed=17)
    kern = K.mm_whole if whole else K.mm
    if whole:  # tensor-level (DSL-V2-SPEC T-mm): the operands' dtype, one rounding (INT8 saturates)
        out = zeros(dt, (M, N))
        kern(a, b, out)
        wide = a.long() @ b.long() if dt == "INT8" else a.double() @ b.double()
        want = wide.clamp(-128, 127).to(torch.int8) if dt == "INT8" else wide.to(out.dtype)
        torch.testing.assert_close(out, want, rtol=0 if dt == "INT8" else 1e-2, atol=0 if dt == "INT8" else 1e-2)
    elif dt == "INT8":
        out = zeros("INT32", (M, N))
        kern(a, b, out)
        torch.testing.assert_close(out, (a.long() @ b.long()).to(torch.int32), rtol=0, atol=0)
    else:
        out = zeros("FP32", (M, N))
        kern(a, b, out)
        want = torch.matmul(a, b).float() if dt == "FP32" else torch.matmul(a.float(), b.float())
        torch.testing.assert_close(out, want, rtol=1e-4, atol=1e-4)


def test_matmul_int8_extremes_exact(K):
    a = torch.full((M, KD), -128, dtype=torch.int8)
    b = torch.full((KD, N), -128, dtype=torch.int8)
    out = zeros("INT32", (M, N))
    K.mm(a, b, out)
    assert bool((out == 128 * 128 * KD).all())


def test_matmul_numpy(K):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((M, KD)).astype(np.float16)
    b = rng.standard_normal((KD, N)).astype(np.float16)
    out = np.zeros((M, N), np.float16)  # tensor-level: FP16 @ FP16 -> FP16
    K.mm_whole(a, b, out)
    np.testing.assert_allclose(out, (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16), rtol=1e-3, atol=1e-3)


# ---- valid_shape, clamp, implicit loads ----------------------------------------------------------

def test_valid_shape_static_stores_only_valid_rows(K):
    a = rand("FP32", (8, C), seed=18)
    out = torch.full((8, C), -7.0)
    K.vs_static(a, out)
    torch.testing.assert_close(out[:5], a[:5], rtol=0, atol=0)
    assert bool((out[5:] == -7.0).all())


@pytest.mark.parametrize("n", [0, 3, 8])
def test_valid_shape_dynamic(K, n):
    a = rand("INT32", (8, C), seed=19, lo=-100, hi=100)
    out = torch.full((8, C), -7, dtype=torch.int32)
    K.vs_dynamic(a, n, out)
    torch.testing.assert_close(out[:n], a[:n] + 1, rtol=0, atol=0)
    assert bool((out[n:] == -7).all())


@pytest.mark.parametrize("dt", list(DT))
def test_clamp_rows_past_the_edge(K, dt):
    a = rand(dt, (20, C), seed=20, lo=-50, hi=50)
    out = torch.full((8, C), 9).to(DT[dt])
    K.clamp_rows(a, out)
    check(out[:4], ref_binary("mul", a[16:20], torch.full((4, C), 2).to(DT[dt]), dt), dt, exact=True)
    assert bool((out[4:] == 9).all())  # the store writes only the valid rows


@pytest.mark.parametrize("dt", ["FP32", "INT8"])
def test_clamp_tail_loop_stores_at_the_edge(K, dt):
    """The tail pattern with run-time offsets: load clamped at [i*8, 0], store at the same offsets."""
    a = rand(dt, (20, C), seed=30, lo=-50, hi=50)
    big = torch.full((24, C), 9).to(DT[dt])
    K.clamp_tail_loop(a, big[:20])  # out is a view of rows 0..19 of a larger tensor
    check(big[:20], a, dt, exact=True)
    assert bool((big[20:] == 9).all())


# A clamped tile stored at constant offsets at the tensor's edge: only its valid rows are
# written, so the compile-time bounds check leaves it to the run (which checks the valid region).
def test_clamp_store_at_the_edge_constant_offsets(K):
    a = rand("FP32", (20, C), seed=20)
    big = torch.full((24, C), 9.0)
    K.clamp_rows_at(a, big[:20])
    check(big[16:20], a[16:20], "FP32", exact=True)
    assert bool((big[:16] == 9).all()) and bool((big[20:] == 9).all())


def test_clamp_padding_reads_as_zero(K):
    for rep in range(3):
        K.dirty(torch.full((M + 8, N + 8), 1e6), torch.zeros(M, N))  # leaves large values in tile buffers
        a = rand("FP32", (M, 8), seed=21 + rep)
        b = rand("FP32", (20, N), seed=22 + rep)
        out = torch.full((M, N), -7.0)
        K.clamp_k_rhs(a, b, out)
        torch.testing.assert_close(out, a[:, :4] @ b[16:20], rtol=1e-5, atol=1e-5)
        K.dirty(torch.full((M + 8, N + 8), 1e6), torch.zeros(M, N))
        a2 = rand("FP32", (M, C), seed=23 + rep)
        b2 = rand("FP32", (8, N), seed=24 + rep)
        out = torch.full((M, N), -7.0)
        K.clamp_k_lhs(a2, b2, out)
        torch.testing.assert_close(out, a2[:, 40:] @ b2[:5], rtol=1e-5, atol=1e-5)


def test_clamp_row_sum_over_valid_columns(K):
    a = rand("FP32", (R, C), seed=25)
    out = torch.zeros(R, 1)
    K.clamp_row_sum(a, out)
    torch.testing.assert_close(out, a[:, 40:].sum(1, keepdim=True), rtol=1e-5, atol=1e-5)


def test_clamp_integer_div_ignores_padding(K):
    a = rand("INT32", (20, C), seed=26, lo=-1000, hi=1000)
    b = rand("INT32", (20, C), seed=27, lo=-9, hi=9, nonzero=True)
    out = torch.full((8, C), 5, dtype=torch.int32)
    K.clamp_div(a, b, out)  # the rows past the edge are 0 / 0, outside the valid region: no failure
    check(out[:4], torch.div(a[16:20], b[16:20], rounding_mode="trunc"), "INT32")
    assert bool((out[4:] == 5).all())


@pytest.mark.parametrize("dt", list(DT))
def test_implicit_whole_tensor_loads(K, dt):
    x = rand(dt, seed=28)
    y = rand(dt, seed=29, nonzero=True)
    for op in BINOPS:
        out = zeros(dt)
        getattr(K, "whole_" + op)(x, y, out)
        check(out, ref_binary(op, x, y, dt), dt)
    out = zeros(dt)
    K.mixed_whole(x, y, out)
    check(out, ref_binary("sub", x, y, dt), dt)
    for op in ("neg", "abs", "relu") + (("exp", "sqrt") if dt in FLOATS else ()):
        z = x.abs() if op == "sqrt" else (x.float() / 8).to(DT[dt]) if op == "exp" else x
        out = zeros(dt)
        getattr(K, "whole_" + op)(z, out)
        want = ref_unary(op, z, dt)
        if op == "exp" and dt == "FP32":
            torch.testing.assert_close(out, want, rtol=2e-6, atol=0)
        else:
            check(out, want, dt)


def test_implicit_whole_numpy(K):
    x = np.arange(R * C, dtype=np.int32).reshape(R, C) - 100
    y = np.full((R, C), 7, np.int32)
    out = np.zeros((R, C), np.int32)
    K.whole_div(x, y, out)
    np.testing.assert_array_equal(out, np.trunc(x / 7).astype(np.int32))
