"""The unsigned dtypes pl.UINT8, pl.UINT16, pl.UINT32 (DSL-V2-SPEC §0.10; docs/dsl.md,
"Dtypes"): one test per rule of the docs' table, against numpy's uint8/uint16/uint32
(whose + - * wrap exactly as ours): loads and stores, each element-wise op at 0 and at
the maximum, unsigned division, comparisons above the signed maximum, logical shifts,
casts both ways (saturating), reductions, pl.read/pl.write of elements above the signed
maximum, scalars, printing, torch_codegen and argument binding (torch.uint8, and
torch.int16 / torch.int32 standing in for UINT16 / UINT32)."""
import numpy as np
import pytest
import torch

import pypto.language as pl
from pypto.debug import torch_codegen
from pypto.language.parser.diagnostics import ParserTypeError, UnsupportedFeatureError
from pypto.runtime import PTORuntimeError

R, C = 4, 16
UNSIGNED = {"UINT8": np.uint8, "UINT16": np.uint16, "UINT32": np.uint32}
DTS = list(UNSIGNED)

# Element-wise kernels on bare pl.Tensor parameters: the dtype is the argument's.
BINARY = """
    @pl.jit
    def k(a: pl.Tensor, b: pl.Tensor, out: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            x = pl.load(a, [0, 0], [4, 16])
            y = pl.load(b, [0, 0], [4, 16])
            pl.store(%s, [0, 0], out)
        return out
"""
UNARY = """
    @pl.jit
    def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            x = pl.load(a, [0, 0], [4, 16])
            pl.store(%s, [0, 0], out)
        return out
"""


def _values(dt, seed=0, nonzero=False):
    """Random values of dt's whole range, row 0 starting with 0, 1, the maximum, the signed maximum and one above it."""
    np_dt = UNSIGNED[dt]
    info = np.iinfo(np_dt)
    v = np.random.default_rng(seed).integers(1 if nonzero else 0, info.max, (R, C), dtype=np.int64, endpoint=True).astype(np_dt)
    v[0, :5] = [0 if not nonzero else 3, 1, info.max, info.max // 2, info.max // 2 + 1]
    return v


def _run(load, template, expr, *args, out_dtype=None):
    mod = load(template % expr)[0]
    out = np.zeros((R, C), out_dtype or args[0].dtype)
    mod.k(*args, out)
    return out


@pytest.mark.parametrize("dt", DTS)
def test_unsigned_elements_are_unsigned_load_store_round_trip(load, dt):
    a = _values(dt)
    assert np.array_equal(_run(load, UNARY, "x", a), a)
    if dt == "UINT8":
        mod = load(UNARY % "x")[0]
        t, out = torch.from_numpy(a.copy()), torch.zeros(R, C, dtype=torch.uint8)
        mod.k(t, out)
        assert torch.equal(out, t)


@pytest.mark.parametrize("dt", DTS)
@pytest.mark.parametrize("op, ref", [("pl.add(x, y)", np.add), ("pl.sub(x, y)", np.subtract), ("pl.mul(x, y)", np.multiply),
                                     ("x + y", np.add), ("x - y", np.subtract)])
def test_unsigned_add_sub_mul_wrap_modulo_2_bits(load, dt, op, ref):
    a, b = _values(dt, 1), _values(dt, 2)
    b[0, :3] = [1, UNSIGNED[dt](np.iinfo(UNSIGNED[dt]).max), 1]  # 0 - 1, 1 - max, max + 1 and max * 1
    assert np.array_equal(_run(load, BINARY, op, a, b), ref(a, b))


@pytest.mark.parametrize("dt", DTS)
def test_unsigned_add_sub_mul_wrap_modulo_2_bits_neg(load, dt):
    a = _values(dt, 3)
    assert np.array_equal(_run(load, UNARY, "pl.neg(x)", a), np.negative(a))
    assert np.array_equal(_run(load, UNARY, "-x", a), np.negative(a))


@pytest.mark.parametrize("dt", DTS)
def test_unsigned_a_scalar_operand_wraps_to_the_tiles_dtype(load, dt):
    a = _values(dt, 4)
    np_dt = UNSIGNED[dt]
    minus_one = np.array(-1).astype(np_dt)
    assert np.array_equal(_run(load, UNARY, "pl.add(x, -1)", a), a + minus_one)  # adds 2^bits - 1: x - 1 modulo 2^bits
    assert np.array_equal(_run(load, UNARY, "pl.sub(x, 1)", a), a - np_dt(1))
    assert np.array_equal(_run(load, UNARY, "pl.maximum(x, -1)", a), np.full_like(a, minus_one))
    assert np.array_equal(_run(load, UNARY, "pl.add(x, 300)", a), a + np.array(300).astype(np_dt))


@pytest.mark.parametrize("dt", DTS)
def test_unsigned_division_and_remainders_are_unsigned(load, dt):
    a, b = _values(dt, 5), _values(dt, 6, nonzero=True)
    b[0, :3] = [7, np.iinfo(UNSIGNED[dt]).max, 1]  # a divisor of all ones (-1 signed) is a plain divisor: 1 // max is 0
    assert np.array_equal(_run(load, BINARY, "pl.div(x, y)", a, b), a // b)
    assert np.array_equal(_run(load, BINARY, "pl.rem(x, y)", a, b), a % b)
    assert np.array_equal(_run(load, BINARY, "pl.fmod(x, y)", a, b), np.fmod(a, b))
    assert np.array_equal(_run(load, UNARY, "pl.div(x, 3)", a), a // UNSIGNED[dt](3))


def test_unsigned_division_and_remainders_are_unsigned_zero_divisor_fails(load):
    a, b = _values("UINT32", 7), _values("UINT32", 8, nonzero=True)
    b[2, 3] = 0
    with pytest.raises(PTORuntimeError) as e:
        _run(load, BINARY, "pl.div(x, y)", a, b)
    assert "pl.div: integer division by zero" in str(e.value)


@pytest.mark.parametrize("dt", DTS)
@pytest.mark.parametrize("cmp, ref", [(0, np.equal), (1, np.not_equal), (2, np.less), (3, np.less_equal), (4, np.greater),
                                      (5, np.greater_equal)])
def test_unsigned_comparisons_above_the_signed_max(load, dt, cmp, ref):
    a, b = _values(dt, 9), _values(dt, 10)
    top = np.iinfo(UNSIGNED[dt]).max // 2 + 1  # 0x80000000 for UINT32: negative if read signed
    a[1, :4], b[1, :4] = [top, 1, top, top + 1], [1, top, top, top]
    assert np.array_equal(_run(load, BINARY, "pl.cmp(x, y, cmp_type=%d)" % cmp, a, b), ref(a, b).astype(a.dtype))


@pytest.mark.parametrize("dt", DTS)
def test_unsigned_comparisons_above_the_signed_max_maximum_minimum_abs_relu(load, dt):
    a, b = _values(dt, 11), _values(dt, 12)
    assert np.array_equal(_run(load, BINARY, "pl.maximum(x, y)", a, b), np.maximum(a, b))
    assert np.array_equal(_run(load, BINARY, "pl.minimum(x, y)", a, b), np.minimum(a, b))
    assert np.array_equal(_run(load, UNARY, "pl.abs(x)", a), a)
    assert np.array_equal(_run(load, UNARY, "pl.relu(x)", a), a)
    assert np.array_equal(_run(load, UNARY, "pl.cmps(x, 1, cmp_type=4)", a), (a > 1).astype(a.dtype))


@pytest.mark.parametrize("dt", DTS)
def test_unsigned_bitwise_ops(load, dt):
    a, b = _values(dt, 13), _values(dt, 14)
    assert np.array_equal(_run(load, BINARY, "pl.and_(x, y)", a, b), a & b)
    assert np.array_equal(_run(load, BINARY, "pl.or_(x, y)", a, b), a | b)
    assert np.array_equal(_run(load, BINARY, "pl.xor(x, y)", a, b), a ^ b)
    assert np.array_equal(_run(load, UNARY, "pl.not_(x)", a), ~a)


@pytest.mark.parametrize("dt", DTS)
def test_unsigned_shifts_are_logical(load, dt):
    a = _values(dt, 15)
    bits = 8 * a.itemsize
    a[0, 5] = 1 << (bits - 1)  # the top bit: 0x80 >> 1 is 0x40, not 0xC0
    counts = np.random.default_rng(16).integers(0, bits, (R, C)).astype(a.dtype)
    counts[0, :2] = [bits, bits + 3]  # outside [0, bits): every bit out
    want_shr = np.where(counts < bits, a >> np.minimum(counts, bits - 1), 0).astype(a.dtype)
    want_shl = np.where(counts < bits, a << np.minimum(counts, bits - 1), 0).astype(a.dtype)
    assert np.array_equal(_run(load, BINARY, "pl.shr(x, y)", a, counts), want_shr)
    assert np.array_equal(_run(load, BINARY, "pl.shl(x, y)", a, counts), want_shl)
    assert np.array_equal(_run(load, UNARY, "pl.shrs(x, 1)", a), a >> 1)
    assert _run(load, UNARY, "pl.shrs(x, 1)", a)[0, 5] == 1 << (bits - 2)


CAST = """
    @pl.jit
    def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.store(pl.cast(pl.load(a, [0, 0], [4, 16]), pl.%s, mode="%s"), [0, 0], out)
        return out
"""
OTHERS = {"FP32": np.float32, "INT64": np.int64, "INT32": np.int32, "INT16": np.int16, "INT8": np.int8, "BOOL": np.bool_,
          **UNSIGNED}


def _saturated(values, dst):
    """values (any numeric dtype) as dst by our rule: NaN 0, saturate to dst's range."""
    if dst == "BOOL":
        return values != 0
    np_dt = OTHERS[dst]
    if np.issubdtype(np_dt, np.floating):
        return values.astype(np_dt)
    info = np.iinfo(np_dt)
    v = np.nan_to_num(values.astype(np.float64) if values.dtype.kind == "f" else values.astype(object), nan=0)
    return np.array([[min(max(x, info.min), info.max) for x in row] for row in v.tolist()]).astype(np_dt)


@pytest.mark.parametrize("src", DTS)
@pytest.mark.parametrize("dst", list(OTHERS))
def test_unsigned_casts_saturate_from_unsigned(load, src, dst):
    if src == dst:
        return
    a = _values(src, 17)
    got = _run(load, CAST, (dst, "round"), a, out_dtype=OTHERS[dst])
    want = _saturated(a, dst)
    if dst == "FP32":
        want = a.astype(np.float64).astype(np.float32)  # nearest even
    assert np.array_equal(got, want), (a, got, want)


@pytest.mark.parametrize("dst", DTS)
@pytest.mark.parametrize("src", ["INT64", "INT32", "INT16", "INT8", "BOOL"])
def test_unsigned_casts_saturate_into_unsigned(load, src, dst):
    np_src = OTHERS[src]
    if src == "BOOL":
        a = np.random.default_rng(18).integers(0, 2, (R, C)).astype(np.bool_)
    else:
        info = np.iinfo(np_src)
        a = np.random.default_rng(18).integers(info.min, info.max, (R, C), dtype=np.int64, endpoint=True).astype(np_src)
        a[0, :4] = [-1, info.min, info.max, 0]
    assert np.array_equal(_run(load, CAST, (dst, "round"), a, out_dtype=UNSIGNED[dst]), _saturated(a, dst))


@pytest.mark.parametrize("dt", DTS)
@pytest.mark.parametrize("mode, rnd", [("round", lambda x: np.sign(x) * np.floor(np.abs(x) + 0.5)), ("trunc", np.trunc),
                                       ("floor", np.floor), ("ceil", np.ceil), ("rint", np.rint)])
def test_unsigned_casts_saturate_float_negatives_past_max_and_nan(load, dt, mode, rnd):
    info = np.iinfo(UNSIGNED[dt])
    a = (np.random.default_rng(19).standard_normal((R, C)) * info.max / 3).astype(np.float32)
    a[0, :8] = [-1.5, -0.4, -1e30, 1e30, float(info.max) * 2, np.nan, 2.5, 0.5]
    got = _run(load, CAST, (dt, mode), a, out_dtype=UNSIGNED[dt])
    assert np.array_equal(got, _saturated(rnd(a.astype(np.float64)), dt))
    assert got[0, :6].tolist() == [0, 0, 0, info.max, info.max, 0]


REDUCE = """
    @pl.jit
    def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.store(pl.%s(pl.load(a, [0, 0], [4, 16])), [0, 0], out)
        return out
"""


@pytest.mark.parametrize("dt", DTS)
@pytest.mark.parametrize("op", ["row_sum", "row_max", "row_min", "row_prod", "row_argmax", "row_argmin",
                                "col_sum", "col_max", "col_min", "col_prod", "col_argmax", "col_argmin"])
def test_unsigned_reductions_wrap_and_order_by_value(load, dt, op):
    a = _values(dt, 20)
    axis = 1 if op.startswith("row") else 0
    fn = {"sum": np.sum, "max": np.max, "min": np.min, "prod": np.prod, "argmax": np.argmax, "argmin": np.argmin}[op[4:]]
    want = fn(a, axis=axis, keepdims=True)
    if op.endswith(("sum", "prod")):
        want = want.astype(a.dtype)  # numpy widens; ours wraps in the dtype: the same low bits
    mod = load(REDUCE % op)[0]
    out = np.zeros(want.shape, np.int32 if "arg" in op else a.dtype)
    mod.k(a, out)
    assert np.array_equal(out, want), (out, want)


READ_WRITE = """
    @pl.jit
    def k(a: pl.Tensor, out: pl.Out[pl.Tensor], flags: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            v = pl.read(a, [0, 0])
            w = pl.read(pl.load(a, [0, 0], [4, 16]), [0, 1])
            out = pl.write(out, [0, 0], v)
            out = pl.write(out, [0, 1], w + 1)
            out = pl.write(out, [0, 2], -1)
            flags = pl.write(flags, [0], pl.cast(v > 0, pl.INT64))
            flags = pl.write(flags, [1], v)
            flags = pl.write(flags, [2], w + 1)
        return out
"""


@pytest.mark.parametrize("dt", DTS)
def test_unsigned_elements_are_unsigned_read_write_above_the_signed_max(load, dt):
    info = np.iinfo(UNSIGNED[dt])
    a = _values(dt, 21)
    a[0, :2] = [info.max, info.max // 2 + 1]
    out, flags = np.zeros_like(a), np.zeros(3, np.int64)
    load(READ_WRITE)[0].k(a, out, flags)
    assert out[0, :3].tolist() == [info.max, info.max // 2 + 2, info.max]  # -1 written wraps
    assert flags.tolist() == [1, info.max, info.max // 2 + 2]  # zero-extended reads, INDEX arithmetic


SCALAR = """
    @pl.jit
    def k(a: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar[pl.%s]):
        with pl.at(level=pl.Level.CORE_GROUP):
            out = pl.write(out, [0], n)
            out = pl.write(out, [1], pl.cast(n - 256, pl.%s))
            out = pl.write(out, [2], pl.cast(n + 1, pl.%s))
            pl.store(pl.load(a, [0], [4]), [3], out)
        return out
"""


@pytest.mark.parametrize("dt", DTS)
def test_unsigned_a_uint_scalar_is_an_integer_scalar(load, dt):
    info = np.iinfo(UNSIGNED[dt])
    mod = load(SCALAR % (dt, dt, dt))[0]
    a, out = np.zeros(4, np.int64), np.zeros(8, np.int64)
    mod.k(a, out, int(info.max))
    assert out[:3].tolist() == [info.max, max(info.max - 256, 0), info.max]  # pl.cast saturates: -1 is 0, max + 1 the max
    with pytest.raises(TypeError) as e:
        mod.k(a, out, -1)
    assert "'n' = -1 does not fit pl.%s" % dt in str(e.value)
    with pytest.raises(TypeError):
        mod.k(a, out, int(info.max) + 1)


FILLPAD = """
    @pl.jit
    def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            x = pl.load(a, [0, 0], [4, 16], valid_shape=[2, 5])
            pl.store(pl.fillpad(x, pad_value=pl.PadValue.%s), [0, 0], out)
        return out
"""


@pytest.mark.parametrize("dt", DTS)
@pytest.mark.parametrize("pad", ["max", "min"])
def test_unsigned_fills_and_pads(load, dt, pad):
    a = _values(dt, 22)
    want = np.full_like(a, np.iinfo(a.dtype).max if pad == "max" else 0)
    want[:2, :5] = a[:2, :5]
    assert np.array_equal(_run(load, FILLPAD, pad, a), want)
    full = _run(load, UNARY, "pl.add(pl.tile.full([4, 16], pl.%s, -1), x)" % dt, a)
    assert np.array_equal(full, a + np.array(-1).astype(a.dtype))


GENERATE = """
    @pl.jit
    def k(a: pl.Tensor, out: pl.Out[pl.Tensor], r: pl.Out[pl.Tensor], g: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.store(pl.tile.arange(4294967294, [1, 16], pl.UINT32), [0, 0], out)
            pl.store(pl.tile.random(1, 2, 3, 4, 5, 6, [4, 16]), [0, 0], r)
            src = pl.load(a, [0, 0], [4, 16])
            offs = pl.tile.arange(0, [1, 2], pl.UINT32)
            pl.store(pl.gatherb(src, pl.mul(offs, 32)), [0, 0], g)
        return out
"""


def test_unsigned_generators_and_indices(load):
    mod = load(GENERATE)[0]
    a = _values("UINT32", 23)
    out, r, g = np.zeros((1, 16), np.uint32), np.zeros((R, C), np.uint32), np.zeros((1, 16), np.uint32)
    mod.k(a, out, r, g)
    assert out[0].tolist() == [(4294967294 + k) % 2**32 for k in range(16)]  # wraps past the max
    signed = load(GENERATE.replace("[4, 16])", "[4, 16], dtype=pl.INT32)", 1).replace("pl.UINT32), [0, 0], out)", "pl.INT32), [0, 0], out)"))[0]
    r32 = np.zeros((R, C), np.int32)
    signed.k(a, np.zeros((1, 16), np.int32), r32, g.copy())
    assert np.array_equal(r, r32.view(np.uint32))  # UINT32 (the default) is INT32's bits
    assert np.array_equal(g[0], a.reshape(-1)[:16])  # two 32-byte blocks at offsets 0 and 32


MATMUL = """
    @pl.jit
    def k(a: pl.Tensor, b: pl.Tensor, out: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.store(pl.matmul(pl.load(a, [0, 0], [4, 64]), pl.load(b, [0, 0], [64, 16])), [0, 0], out)
        return out
"""


def test_unsigned_generators_and_indices_matmul_of_uint8_is_int32(load):
    g = np.random.default_rng(24)
    a, b = g.integers(0, 256, (4, 64)).astype(np.uint8), g.integers(0, 256, (64, 16)).astype(np.uint8)
    a[0, :] = 255
    b[:, 0] = 255
    out = np.zeros((4, 16), np.int32)
    load(MATMUL)[0].k(a, b, out)
    assert np.array_equal(out, a.astype(np.int64) @ b.astype(np.int64))  # 64 * 255 * 255 fits: exact


ATOMIC = """
    @pl.jit
    def k(a: pl.Tensor, out: pl.InOut[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.store(pl.load(a, [0, 0], [4, 16]), [0, 0], out, atomic=pl.AtomicType.Add)
        return out
"""


@pytest.mark.parametrize("dt", DTS)
def test_unsigned_add_sub_mul_wrap_modulo_2_bits_atomic_add(load, dt):
    a, acc = _values(dt, 25), _values(dt, 26)
    out = acc.copy()
    load(ATOMIC)[0].k(a, out)
    assert np.array_equal(out, acc + a)


EXPAND = """
    @pl.jit
    def k(a: pl.Tensor, v: pl.Tensor, out: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.store(pl.row_expand_%s(pl.load(a, [0, 0], [4, 16]), pl.load(v, [0, 0], [4, 1])), [0, 0], out)
        return out
"""


@pytest.mark.parametrize("dt", DTS)
@pytest.mark.parametrize("op, ref", [("div", np.floor_divide), ("max", np.maximum), ("sub", np.subtract)])
def test_unsigned_division_and_remainders_are_unsigned_row_expand(load, dt, op, ref):
    a, v = _values(dt, 27), _values(dt, 28, nonzero=True)[:, :1].copy()
    v[0, 0] = np.iinfo(a.dtype).max
    mod = load(EXPAND % op)[0]
    out = np.zeros_like(a)
    mod.k(a, v, out)
    assert np.array_equal(out, ref(a, v))


ROUND_TRIP = """
    @pl.jit
    def k(a: pl.Tensor[[4, 16], pl.UINT16], out: pl.Out[pl.Tensor[[4, 16], pl.UINT32]]):
        with pl.at(level=pl.Level.CORE_GROUP):
            x = pl.cast(pl.load(a, [0, 0], [4, 16]), pl.UINT8)
            y: pl.Tile[[4, 16], pl.UINT32] = pl.cast(x, pl.UINT32)
            pl.store(y, [0, 0], out)
        return out
"""


def test_unsigned_printing_round_trip(load):
    mod = load(ROUND_TRIP)[0]
    a, out = np.arange(64, dtype=np.uint16).reshape(4, 16) * 700, np.zeros((4, 16), np.uint32)
    text = mod.k.lower(a, out)
    for want in ("a: pl.Tensor[[4, 16], pl.UINT16]", "out: pl.Out[pl.Tensor[[4, 16], pl.UINT32]]", "pl.cast(", "pl.UINT8)"):
        assert want in text, text
    assert pl.parse_program(text).lower(a, out) == text
    mod.k(a, out)
    assert np.array_equal(out, np.minimum(a, 255).astype(np.uint32))


def test_unsigned_torch_codegen_uint8_translates(load):
    mod = load(BINARY % "pl.add(pl.mul(x, y), pl.shr(x, 1))")[0]
    g = np.random.default_rng(29)
    a, b = (torch.from_numpy(g.integers(0, 256, (R, C)).astype(np.uint8)) for _ in range(2))
    ours, theirs = torch.zeros(R, C, dtype=torch.uint8), torch.zeros(R, C, dtype=torch.uint8)
    low = mod.k.lower(a, b, ours)
    src = torch_codegen(low)
    assert "pl." not in src
    mod.k(a, b, ours)
    ns = {}
    exec(compile(src, "<torch_codegen>", "exec"), ns)
    ns[low.name](a, b, theirs)
    assert torch.equal(ours, theirs)
    assert torch.equal(ours, torch.from_numpy(a.numpy() * b.numpy() + (a.numpy() >> 1)))  # numpy's uint8 wraps


@pytest.mark.parametrize("dt, stand_in", [("UINT16", torch.int16), ("UINT32", torch.int32)])
def test_unsigned_torch_codegen_uint16_and_uint32_have_no_translation(load, dt, stand_in):
    mod = load("""
    @pl.jit
    def k(a: pl.Tensor[[4, 16], pl.%s], out: pl.Out[pl.Tensor[[4, 16], pl.%s]]):
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.store(pl.load(a, [0, 0], [4, 16]), [0, 0], out)
        return out
    """ % (dt, dt))[0]
    low = mod.k.lower(torch.zeros(R, C, dtype=stand_in), torch.zeros(R, C, dtype=stand_in))
    with pytest.raises(UnsupportedFeatureError) as e:
        torch_codegen(low)
    assert e.value.message == "torch_codegen: dtype pl.%s ('load') has no torch translation in this version" % dt


STAND_IN = """
    @pl.jit
    def k(a: pl.Tensor[[4, 16], pl.%s], out: pl.Out[pl.Tensor[[4, 16], pl.%s]]):
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.store(pl.shr(pl.load(a, [0, 0], [4, 16]), 1), [0, 0], out)
        return out
"""


@pytest.mark.parametrize("dt, stand_in", [("UINT16", torch.int16), ("UINT32", torch.int32)])
def test_unsigned_torch_arguments_int16_and_int32_stand_in(load, dt, stand_in, tmp_path, monkeypatch):
    monkeypatch.setenv("PYPTO_PROG_BUILD_DIR", str(tmp_path / "build_output"))  # compile()'s files
    np_dt = UNSIGNED[dt]
    a = _values(dt, 30)
    mod = load(STAND_IN % (dt, dt))[0]
    t = torch.from_numpy(a.view(np.dtype(str(stand_in).replace("torch.", ""))).copy())
    out = torch.zeros(R, C, dtype=stand_in)
    mod.k(t, out)
    assert np.array_equal(out.numpy().view(np_dt), a >> 1)  # the bits read unsigned: >> is logical
    got = np.zeros_like(a)
    mod.k(a, got)  # numpy's own uint16 / uint32
    assert np.array_equal(got, a >> 1)
    compiled = mod.k.compile(t, out)
    res = compiled(t)  # the output it allocates is the stand-in dtype
    assert res.dtype == stand_in and np.array_equal(res.numpy().view(np_dt), a >> 1)
    with pytest.raises(TypeError) as e:
        mod.k(torch.zeros(R, C), out)
    assert str(e.value).endswith("argument 'a' has dtype FP32 but its annotation requires %s" % dt)


def test_unsigned_torch_arguments_uint8_binds_and_a_bare_tensor_keeps_the_tensors_dtype(load):
    mod = load(UNARY % "pl.shrs(x, 1)")[0]
    t = torch.tensor([[0x80, 0xFF] * 8] * R, dtype=torch.uint8)
    out = torch.zeros(R, C, dtype=torch.uint8)
    mod.k(t, out)
    assert out[0, :2].tolist() == [0x40, 0x7F]
    s = torch.tensor([[-0x8000, -1] * 8] * R, dtype=torch.int16)  # a bare pl.Tensor: INT16, >> arithmetic
    out16 = torch.zeros(R, C, dtype=torch.int16)
    mod.k(s, out16)
    assert out16[0, :2].tolist() == [-0x4000, -1]


def test_unsigned_uint4_and_uint64_are_not_supported(load):
    for dt in ("UINT4", "UINT64"):
        mod = load(UNARY % ("pl.cast(x, pl.%s)" % dt))[0]
        with pytest.raises(UnsupportedFeatureError) as e:
            mod.k(np.zeros((R, C), np.uint8), np.zeros((R, C), np.uint8))
        assert e.value.message == "dtype pl.%s is not supported in this version" % dt


def test_unsigned_a_float_scalar_with_a_uint_tile_is_the_existing_error(load):
    mod = load(UNARY % "pl.add(x, 1.5)")[0]
    with pytest.raises(ParserTypeError) as e:
        mod.k(np.zeros((R, C), np.uint8), np.zeros((R, C), np.uint8))
    assert e.value.message == "pl.add: float scalar 1.5 with an UINT8 tile; cast the tile first"


GATHER_COMPARE = """
    @pl.jit
    def k(a: pl.Tensor, d: pl.Out[pl.Tensor], c: pl.Out[pl.Tensor[[1, 4], pl.UINT32]]):
        with pl.at(level=pl.Level.CORE_GROUP):
            x, n = pl.gather_compare(pl.load(a, [0, 0], [4, 16]), %s, cmp_mode="ge", out_cols=16, count_dtype=pl.UINT32)
            pl.store(x, [0, 0], d)
            pl.store(n, [0, 0], c)
        return d
"""


@pytest.mark.parametrize("dt", DTS)
def test_unsigned_comparisons_above_the_signed_max_gather_compare(load, dt):
    a = _values(dt, 31)
    top = int(np.iinfo(a.dtype).max // 2 + 1)
    for kvalue, k in ((str(top), top), ("-1", int(np.iinfo(a.dtype).max))):  # -1 converts as pl.add's scalar: the max
        d, c = np.zeros((R, C), np.int32), np.zeros((1, R), np.uint32)
        load(GATHER_COMPARE % kvalue)[0].k(a, d, c)
        hits = [[j for j in range(C) if a[r, j] >= k] for r in range(R)]
        assert c[0].tolist() == [len(h) for h in hits]
        assert [d[r, :len(h)].tolist() for r, h in enumerate(hits)] == hits
