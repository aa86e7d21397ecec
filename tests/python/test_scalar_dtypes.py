"""Scalars of every dtype (docs/dsl.md, "Annotations", "Operations"): `pl.cast` of a scalar
to each dtype, run in kernel code, in orchestration code and folded at
compile time, against numpy at and past each dtype's limits (the tile
cast's rule: integers saturate, floats round to nearest even once); the
promotion of FP16/BF16/INT8 scalars in arithmetic and tile ops; and a
specialized pl.Scalar[dtype] argument rounded to its dtype (the value the
kernel sees).  The arguments that do not fit are rows of
test_bad_input_matrix.py.

BF16 has no numpy dtype: its reference rounds the exact value with
fractions (torch rounds a double to BF16 through FP32, twice)."""
import importlib.util
import math
import sys
import textwrap
from fractions import Fraction

import numpy as np
import pytest

import pypto.language as pl

BF16_MAX = 3.3895313892515355e+38  # (2 - 2**-7) * 2**127
BF16_HALFWAY = 2.0 ** 128 - 2.0 ** 119  # halfway from BF16_MAX to 2**128: rounds (to even) to inf

# Sources read at run time (chosen by the loop variable) and specialized
# (folded); floats are FP32 values, so both readings of a float agree.
INT_SOURCES = {
    "FP32": [16777217, -16777219, 2 ** 53 + 1, 3],
    "FP16": [65504, 65519, 65520, -65520, 2049, 2051, -1],
    "BF16": [16842751, 16842752, 16842753, 257, 259, -16842751],
    "INT32": [2 ** 31 - 1, 2 ** 31, -2 ** 31, -2 ** 31 - 1, 5],
    "INT8": [127, 128, -128, -129, 300, -1000, 0],
    "BOOL": [0, 1, 2, -1],
}
FLOAT_SOURCES = {
    "FP32": [0.5, -3.4028234663852886e+38, 1.401298464324817e-45, 16777216.0],
    "FP16": [65504.0, 65519.0, 65520.0, -65520.0, 65536.0, 2.0 ** -24, 2.0 ** -25, 1.5 * 2.0 ** -25,
             1.5 * 2.0 ** -24, 1 + 2.0 ** -11, 1 + 3 * 2.0 ** -11, 2.0 ** -30],
    "BF16": [1 + 2.0 ** -8, 1 + 3 * 2.0 ** -8, 1 + 2.0 ** -8 + 2.0 ** -20, BF16_MAX, BF16_HALFWAY,
             BF16_HALFWAY - 2.0 ** 104, -BF16_HALFWAY, 2.0 ** -133, 2.0 ** -134, 3 * 2.0 ** -135],
    "INT32": [2147483520.0, 2147483648.0, -2147483648.0, -2147483904.0, 2.5, -2.5, 1e10],
    "INT8": [127.0, 127.25, 127.5, 128.0, -128.0, -128.5, -129.0, 0.5, -0.5, 1e10, -1e10],
    "BOOL": [0.0, 0.5, -0.0, 2.0],
}
FLOATS = ("FP32", "FP16", "BF16")
PLANES = ("kernel", "orchestration")


def bf16(x):
    """x (exact) rounded to BF16, nearest even, as a float."""
    q = Fraction(x)
    if q == 0:
        return 0.0
    sign, q = (-1 if q < 0 else 1), abs(q)
    e = q.numerator.bit_length() - q.denominator.bit_length()
    if Fraction(2) ** e > q:
        e -= 1
    ulp = Fraction(2) ** (max(e, -126) - 7)
    n = int(q // ulp)
    rem = q - n * ulp
    if rem * 2 > ulp or (rem * 2 == ulp and n % 2):
        n += 1
    v = n * ulp
    return sign * (math.inf if v >= 2 ** 128 else float(v))


def round_half_away(x):
    return math.floor(abs(x) + 0.5) * (1 if x >= 0 else -1)


def reference(dt, x):
    """pl.cast(x, pl.<dt>) of a Python int or float, as the kernel stores it."""
    if dt == "FP32":
        return float(np.float32(x))
    if dt == "FP16":
        with np.errstate(over="ignore"):  # past 65504: inf, which is the point
            return float(np.float16(x))
    if dt == "BF16":
        return bf16(x)
    if dt == "BOOL":
        return int(x != 0)
    info = np.iinfo(np.int32 if dt == "INT32" else np.int8)
    v = round_half_away(x) if isinstance(x, float) else x
    return int(np.clip(v, info.min, info.max))


def _chain(values, zero):
    """Orchestration lines choosing values[i] at run time."""
    lines = ["v = %s" % zero]
    for k, x in enumerate(values):
        lines += ["if i == %d:" % k, "    v = %r" % x]
    return "\n        ".join(lines)


def _source():
    src = ["import pypto.language as pl\n"]
    for dt in INT_SOURCES:
        for kind, values, zero in (("int", INT_SOURCES[dt], "0"), ("float", FLOAT_SOURCES[dt], "0.0")):
            chain = _chain(values, zero)
            src.append(textwrap.dedent("""
                @pl.jit
                def kernel_{dt}_{kind}(a: pl.Tensor, out: pl.Out[pl.Tensor]):
                    for i in pl.range({n}):
                        {chain}
                        with pl.at(level=pl.Level.CORE_GROUP):
                            c = pl.cast(v, pl.{dt})
                            pl.store(pl.add(pl.load(a, [i, 0], [1, 8]), c), [i, 0], out)
                    return out

                @pl.jit
                def orchestration_{dt}_{kind}(a: pl.Tensor, out: pl.Out[pl.Tensor]):
                    for i in pl.range({n}):
                        {chain}
                        c = pl.cast(v, pl.{dt})
                        with pl.at(level=pl.Level.CORE_GROUP):
                            pl.store(pl.add(pl.load(a, [i, 0], [1, 8]), c), [i, 0], out)
                    return out
                """).replace("{chain}", chain).format(dt=dt, kind=kind, n=len(values)))
        src.append(textwrap.dedent("""
            @pl.jit
            def folded_{dt}(a: pl.Tensor, out: pl.Out[pl.Tensor], x: pl.Scalar):
                with pl.at(level=pl.Level.CORE_GROUP):
                    pl.store(pl.add(pl.load(a, [0, 0], [1, 8]), pl.cast(x, pl.{dt})), [0, 0], out)
                return out
            """).format(dt=dt))
    for dt in ("FP32", "FP16", "BF16", "INT8", "BOOL"):
        src.append(textwrap.dedent("""
            @pl.jit
            def arg_{dt}(a: pl.Tensor, out: pl.Out[pl.Tensor], s: pl.Scalar[pl.{dt}]):
                with pl.at(level=pl.Level.CORE_GROUP):
                    pl.store(pl.add(pl.load(a, [0, 0], [1, 8]), s), [0, 0], out)
                return out
            """).format(dt=dt))
    src.append(textwrap.dedent("""
        @pl.jit
        def promote(a: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar):
            for i in pl.range(n):
                h = pl.cast(65504.0 + i, pl.FP16)
                b = pl.cast(127 + i, pl.INT8)
                m = pl.cast(-128 - i, pl.INT8)
                y = h + 16.0
                z = b * 2 - m
                with pl.at(level=pl.Level.CORE_GROUP):
                    t = pl.load(a, [0, 0], [1, 8])
                    pl.store(pl.add(t, h + 16.0), [0, 0], out)
                    pl.store(pl.add(t, b * 2 + (-m)), [1, 0], out)
                    pl.store(pl.add(t, h * 2.0 - b), [2, 0], out)
                    pl.store(pl.add(t, pl.cast(65504.0, pl.FP16) + 16.0), [3, 0], out)
                    pl.store(pl.add(t, y), [4, 0], out)
                    pl.store(pl.add(t, z), [5, 0], out)
                    pl.store(pl.add(t, -pl.cast(-128, pl.INT8)), [6, 0], out)
            return out

        @pl.jit
        def int8_tile(a: pl.Tensor[[4, 8], pl.INT8], o: pl.Out[pl.Tensor[[4, 8], pl.INT8]], x: pl.Scalar):
            with pl.at(level=pl.Level.CORE_GROUP):
                s = pl.cast(x, pl.INT8)
                pl.store(pl.add(pl.load(a, [0, 0], [4, 8]), s), [0, 0], o)
            return o

        @pl.jit
        def fp16_tile(a: pl.Tensor, o: pl.Out[pl.Tensor], n: pl.Scalar):
            for i in pl.range(n):
                h = pl.cast(2049 + i, pl.FP16)
                with pl.at(level=pl.Level.CORE_GROUP):
                    pl.store(pl.add(pl.load(a, [0, 0], [4, 8]), h), [0, 0], o)
            return o
        """))
    return "".join(src)


@pytest.fixture(scope="module")
def K(tmp_path_factory):
    path = tmp_path_factory.mktemp("scalar_dtypes") / "scalar_dtype_kernels.py"
    path.write_text(_source())
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = mod
    spec.loader.exec_module(mod)
    return mod


def _out_dtype(dt):
    return np.float32 if dt in FLOATS else np.int32


def _stored(dt, out):
    return [float(v) if dt in FLOATS else int(v) for v in out[:, 0]]


@pytest.mark.parametrize("kind", ["int", "float"])
@pytest.mark.parametrize("plane", PLANES)
@pytest.mark.parametrize("dt", list(INT_SOURCES))
def test_scalar_cast_at_run_time_matches_numpy(K, dt, plane, kind):
    values = (INT_SOURCES if kind == "int" else FLOAT_SOURCES)[dt]
    out = np.zeros((len(values), 8), _out_dtype(dt))
    getattr(K, "%s_%s_%s" % (plane, dt, kind))(np.zeros_like(out), out)
    assert _stored(dt, out) == [reference(dt, x) for x in values]
    assert (out == out[:, :1]).all()


@pytest.mark.parametrize("dt", list(INT_SOURCES))
def test_scalar_cast_of_a_constant_folds_to_the_run_time_value(K, dt):
    kern = getattr(K, "folded_" + dt)
    for x in INT_SOURCES[dt] + FLOAT_SOURCES[dt]:
        out = np.zeros((1, 8), _out_dtype(dt))
        kern(np.zeros_like(out), out, x)
        want = reference(dt, x)
        assert _stored(dt, out) == [want], x
        text = kern.lower(np.zeros_like(out), out, x)
        assert ("pl.cast(" in text) == (isinstance(want, float) and math.isinf(want)), text  # inf has no literal


def test_fp16_and_int8_scalars_promote_in_arithmetic(K):
    """Scalar arithmetic is int64 or FP32 (docs/dsl.md, "Expressions"): FP16 + FP32 is FP32 (65520, not FP16's inf); INT8 * 2 and -INT8
    are int64 (254 and 128, not INT8's wrap)."""
    out = np.zeros((7, 8), np.float32)
    K.promote(np.zeros_like(out), out, 1)
    assert out[:, 0].tolist() == [65520.0, 382.0, 130881.0, 65520.0, 65520.0, 382.0, 128.0]


@pytest.mark.parametrize("x,add", [(3.0, 3), (3.5, 4), (127.0, 127), (128.0, 127), (-129.0, -128), (1e10, 127)])
def test_int8_scalar_cast_with_an_int8_tile(K, x, add):
    """The audit's repro: a float scalar cast to INT8 (saturating) added to an INT8 tile (wrapping)."""
    a = np.arange(-16, 16, dtype=np.int8).reshape(4, 8)
    o = np.zeros((4, 8), np.int8)
    K.int8_tile(a, o, x)
    np.testing.assert_array_equal(o, (a.astype(np.int16) + add).astype(np.int8))


def test_fp16_scalar_with_an_fp16_tile(K):
    a = np.full((4, 8), 1.0, np.float16)
    o = np.zeros((4, 8), np.float16)
    K.fp16_tile(a, o, 1)  # 2049 -> FP16 2048; 2048 + 1 -> 2049 -> FP16 2048 (ties to even)
    np.testing.assert_array_equal(o, np.float16(np.float32(np.float16(2049)) + np.float32(1)))
    assert o[0, 0] == 2048


# ---- a specialized pl.Scalar[dtype] argument: rounded to its dtype, at its limits -------------

ARG_VALUES = {
    "FP16": [65504.0, -65504.0, 65519.99999999999, 65519, 1e-8, 1e-7, 0.1, 2049, float("inf")],
    "BF16": [BF16_MAX, math.nextafter(BF16_HALFWAY, 0), 1 + 2.0 ** -8, 1 + 2.0 ** -8 + 2.0 ** -40, 1e-39, 0.1],
    "FP32": [0.1, math.nextafter(2.0 ** 128 - 2.0 ** 103, 0), 16777217, True],
    "INT8": [127, -128, True, 0],
    "BOOL": [True, False, 0, 1],
}


@pytest.mark.parametrize("dt", list(ARG_VALUES))
def test_specialized_scalar_argument_is_rounded_to_its_dtype(K, dt):
    kern = getattr(K, "arg_" + dt)
    for x in ARG_VALUES[dt]:
        want = reference(dt if dt != "BOOL" else "INT8", x)
        out = np.zeros((1, 8), np.float32)
        kern(np.zeros_like(out), out, x)
        assert out[0, 0] == want, x
        text = kern.lower(np.zeros_like(out), out, x)
        literal = repr(bool(x)) if dt == "BOOL" else repr(want) if dt in FLOATS else repr(int(x))
        assert "pl.add(pl.load(a, [0, 0], [1, 8], cache=pl.CachePolicy.DEFAULT), %s)" % literal in text, (x, text)
