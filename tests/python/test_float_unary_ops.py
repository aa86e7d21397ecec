"""pl.log, pl.rsqrt and pl.recip (docs/dsl.md, Operations): float-only
element-wise ops, run on FP32, FP16 and BF16 tensors against numpy (FP16
and BF16 computed in FP32 and rounded to nearest even once) and recip's high_precision= hint (a boolean literal, no
effect, printed back as written).

rsqrt is 1 / sqrt(x) and recip 1 / x in FP32, so numpy's float32 gives the
same bits; log is libm's logf, which numpy's log may miss by one unit in
the last place.  Their float-only error is test_ops.py's
test_unary_float_only."""
import importlib.util
import sys
import textwrap

import numpy as np
import pytest
import torch

import pypto.language as pl
from pypto.language.parser.diagnostics import ParserSyntaxError

R, C = 7, 45
OPS = ("log", "rsqrt", "recip")
FLOATS = {"FP32": torch.float32, "FP16": torch.float16, "BF16": torch.bfloat16}
LOAD = "pl.load(a, [0, 0], [%d, %d])" % (R, C)


def _kernel(name, expr):
    return textwrap.dedent("""
        @pl.jit
        def {name}(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.store({expr}, [0, 0], out)
            return out
        """).format(name=name, expr=expr)


@pytest.fixture(scope="module")
def K(tmp_path_factory):
    src = ["import pypto.language as pl\n"]
    src += [_kernel("un_" + op, "pl.%s(%s)" % (op, LOAD)) for op in OPS]
    src += [_kernel("whole_" + op, "pl.%s(a)" % op) for op in OPS]
    src.append(_kernel("recip_precise", "pl.recip(%s, high_precision=True)" % LOAD))
    src.append(_kernel("recip_plain", "pl.recip(%s, high_precision=False)" % LOAD))
    path = tmp_path_factory.mktemp("float_unary") / "float_unary_kernels.py"
    path.write_text("".join(src))
    spec = importlib.util.spec_from_file_location("float_unary_kernels", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["float_unary_kernels"] = mod
    spec.loader.exec_module(mod)
    return mod


def _input(op, seed):
    x = np.random.default_rng(seed).standard_normal((R, C)).astype(np.float32) * 8
    if op != "recip":
        x = np.abs(x)
    x.reshape(-1)[:4] = [0.0, 1.0, 0.25, 1e-3] if op != "recip" else [0.0, -0.0, 3.0, -0.125]
    return x


def _ref32(op, x):
    with np.errstate(divide="ignore", invalid="ignore"):
        return {"log": np.log(x), "rsqrt": np.float32(1) / np.sqrt(x), "recip": np.float32(1) / x}[op].astype(np.float32)


def _round(dt, x):
    """float32 -> the dtype's value (as float32), to nearest even."""
    if dt == "FP32":
        return x
    if dt == "FP16":
        return x.astype(np.float16).astype(np.float32)
    u = x.view(np.uint32).astype(np.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) >> 16 << 16  # BF16: no NaN in these inputs
    return u.astype(np.uint32).view(np.float32)


def _ordered(x, dt):
    """The dtype's bit patterns as integers ordered like the values."""
    bits = {"FP32": x.view(np.int32).astype(np.int64), "FP16": x.astype(np.float16).view(np.int16).astype(np.int64),
            "BF16": (x.view(np.int32) >> 16).astype(np.int64)}[dt]
    top = 1 << (31 if dt == "FP32" else 15)
    return np.where(bits < 0, -(bits + top), bits)


def _check(got, want, dt, max_ulp):
    assert np.array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    diff = np.abs(_ordered(got[ok], dt) - _ordered(want[ok], dt))
    assert diff.max(initial=0) <= max_ulp, (dt, diff.max())


@pytest.mark.parametrize("dt", list(FLOATS))
@pytest.mark.parametrize("op", OPS)
def test_float_unary_ops_match_numpy_on_every_float_dtype(K, op, dt):
    x = torch.from_numpy(_input(op, seed=OPS.index(op))).to(FLOATS[dt])
    want = _round(dt, _ref32(op, x.float().numpy()))
    for kern in (getattr(K, "un_" + op), getattr(K, "whole_" + op)):
        out = torch.zeros(R, C, dtype=FLOATS[dt])
        kern(x, out)
        _check(out.float().numpy(), want, dt, 1 if op == "log" else 0)


def test_recip_high_precision_is_a_hint_printed_as_written(K):
    x = torch.from_numpy(_input("recip", seed=5))
    a, b = torch.zeros(R, C), torch.zeros(R, C)
    K.recip_precise(x, a)
    K.recip_plain(x, b)
    assert torch.equal(a, b) and torch.equal(a, torch.from_numpy(_ref32("recip", x.numpy())))
    for kern, hint in ((K.recip_precise, "True"), (K.recip_plain, "False")):
        text = kern.lower(x, a)
        assert "pl.recip(pl.load(a, [0, 0], [7, 45], cache=pl.CachePolicy.DEFAULT), high_precision=%s)" % hint in text
        assert pl.parse_program(text).lower(x, a) == text


@pytest.mark.parametrize("value", ["1", "None", "flag", "not True"])
def test_recip_high_precision_must_be_a_boolean_literal(load, value):
    mod, path = load("""
        flag = True

        @pl.jit
        def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.store(pl.recip(pl.load(a, [0, 0], [8, 8]), high_precision=%s), [0, 0], out)
            return out
        """ % value)
    a = torch.zeros(8, 8)
    with pytest.raises(ParserSyntaxError) as e:
        mod.k(a, a)
    assert e.value.message == "pl.recip() high_precision must be a boolean literal (True/False)"
