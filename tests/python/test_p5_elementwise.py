"""The rest of the element-wise family (docs/dsl.md, Operations): pl.rem/rems,
fmod/fmods, sin, cos, cmp/cmps, prelu, lrelu, the bitwise ops and shifts, the
products and arg-extrema, part_add/mul/max/min, sel/sels, addc/subc/addsc/subsc, every dtype each accepts, against numpy (exact; sin
and cos within float32 tolerance), with narrowed and empty valid regions,
every spelling (pl.<op>, pl.<op>s, pl.tile., pl.tensor.), each error text, and
the printed program parsing back to itself."""
import numpy as np
import pytest
import torch

import pypto.language as pl
from pypto.runtime import PTORuntimeError
from pypto.language.parser.diagnostics import InvalidOperationError, ParserTypeError

R, C = 8, 40
TORCH = {"FP32": torch.float32, "FP16": torch.float16, "BF16": torch.bfloat16, "INT32": torch.int32,
         "INT8": torch.int8, "INT16": torch.int16, "INT64": torch.int64}
FLOATS, INTS = ["FP32", "FP16", "BF16"], ["INT32", "INT8", "INT16", "INT64"]
BITS = {"INT8": 8, "INT16": 16, "INT32": 32, "INT64": 64}

# (name, call with x and y the operand tiles, s a scalar, dtypes, numpy reference of (x, y, s))
BINARY = [
    ("rem", "pl.rem(x, y)", FLOATS + INTS, lambda x, y, s, W: np.remainder(x, y)),
    ("rems", "pl.rems(x, s)", FLOATS + INTS, lambda x, y, s, W: np.remainder(x, s)),
    ("rem_tmp", "pl.rem(x, y, x)", FLOATS + INTS, lambda x, y, s, W: np.remainder(x, y)),
    ("fmod", "pl.fmod(x, y)", FLOATS + INTS, lambda x, y, s, W: np.fmod(x, y)),
    ("fmods", "pl.fmods(x, s)", FLOATS + INTS, lambda x, y, s, W: np.fmod(x, s)),
    ("prelu", "pl.prelu(x, y)", FLOATS + INTS, lambda x, y, s, W: np.where(x > 0, x, x * y)),
    ("lrelu", "pl.lrelu(x, s)", FLOATS + INTS, lambda x, y, s, W: np.maximum(x, W(x * s))),
    ("and_", "pl.and_(x, y)", INTS, lambda x, y, s, W: x & y),
    ("ands", "pl.ands(x, s)", INTS, lambda x, y, s, W: x & s),
    ("or_", "pl.or_(x, y)", INTS, lambda x, y, s, W: x | y),
    ("ors", "pl.tile.ors(x, s)", INTS, lambda x, y, s, W: x | s),
    ("xor", "pl.xor(x, y, x)", INTS, lambda x, y, s, W: x ^ y),
    ("xors", "pl.xors(x, s)", INTS, lambda x, y, s, W: x ^ s),
    ("not_", "pl.not_(x)", INTS, lambda x, y, s, W: ~x),
]
CMP = [(m, f) for m, f in enumerate([np.equal, np.not_equal, np.less, np.less_equal, np.greater, np.greater_equal])]
UNARY = [("sin", "pl.sin(x)", np.sin), ("cos", "pl.cos(x)", np.cos)]
REDUCE = ["row_prod", "col_prod", "row_argmax", "row_argmin", "col_argmax", "col_argmin"]

SRC = ""
for _name, _call, _dts, _ref in BINARY:
    SRC += """
    @pl.jit
    def b_%s(a: pl.Tensor, b: pl.Tensor, out: pl.Out[pl.Tensor], s: pl.Scalar, vr: pl.Scalar[pl.INDEX]):
        with pl.at(level=pl.Level.CORE_GROUP):
            x = pl.load(a, [0, 0], [8, 40], valid_shape=[vr, 40])
            y = pl.load(b, [0, 0], [8, 40])
            pl.store(%s, [0, 0], out)
        return out
""" % (_name, _call)
for _m, _f in CMP:
    SRC += """
    @pl.jit
    def cmp_%d(a: pl.Tensor, b: pl.Tensor, out: pl.Out[pl.Tensor], out2: pl.Out[pl.Tensor], s: pl.Scalar):
        with pl.at(level=pl.Level.CORE_GROUP):
            x = pl.load(a, [0, 0], [8, 40])
            pl.store(pl.cmp(x, pl.load(b, [0, 0], [8, 40]), cmp_type=%d), [0, 0], out)
            pl.store(pl.cmps(x, s, %d), [0, 0], out2)
        return out
""" % (_m, _m, _m)
for _name, _call, _ref in UNARY:
    SRC += """
    @pl.jit
    def u_%s(a: pl.Tensor, out: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            x = pl.load(a, [0, 0], [8, 40])
            pl.store(%s, [0, 0], out)
        return out
""" % (_name, _call)
for _name in REDUCE:
    SRC += """
    @pl.jit
    def r_%s(a: pl.Tensor, out: pl.Out[pl.Tensor], vr: pl.Scalar[pl.INDEX], vc: pl.Scalar[pl.INDEX]):
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.store(pl.%s(pl.load(a, [0, 0], [8, 40], valid_shape=[vr, vc])), [0, 0], out)
        return out
""" % (_name, _name)
for _op in ("add", "mul", "max", "min"):
    SRC += """
    @pl.jit
    def part_%s(a: pl.Tensor, b: pl.Tensor, out: pl.Out[pl.Tensor], ra: pl.Scalar[pl.INDEX], ca: pl.Scalar[pl.INDEX],
                rb: pl.Scalar[pl.INDEX], cb: pl.Scalar[pl.INDEX]):
        with pl.at(level=pl.Level.CORE_GROUP):
            x = pl.load(a, [0, 0], [8, 40], valid_shape=[ra, ca])
            pl.store(pl.fillpad(pl.part_%s(x, pl.load(b, [0, 0], [8, 40], valid_shape=[rb, cb]))), [0, 0], out)
        return out
""" % (_op, _op)
SRC += """
    @pl.jit
    def ternary(a: pl.Tensor, b: pl.Tensor, c: pl.Tensor, m: pl.Tensor, o: pl.Out[pl.Tensor], s: pl.Scalar,
                vr: pl.Scalar[pl.INDEX]):
        with pl.at(level=pl.Level.CORE_GROUP):
            x = pl.load(a, [0, 0], [8, 40], valid_shape=[vr, 40])
            y = pl.load(b, [0, 0], [8, 40])
            z = pl.load(c, [0, 0], [8, 40])
            k = pl.load(m, [0, 0], [8, 40])
            pl.store(pl.sel(k, x, y), [0, 0], o)
            pl.store(pl.sels(k, x, z, s), [8, 0], o)
            pl.store(pl.addc(x, y, z), [16, 0], o)
            pl.store(pl.subc(x, y, z), [24, 0], o)
            pl.store(pl.addsc(x, s, z), [32, 0], o)
            pl.store(pl.tile.subsc(x, s, z), [40, 0], o)
        return o
"""
SRC += """
    @pl.jit
    def shifts(a: pl.Tensor, b: pl.Tensor, l: pl.Out[pl.Tensor], r: pl.Out[pl.Tensor], ls: pl.Out[pl.Tensor],
               rs: pl.Out[pl.Tensor], s: pl.Scalar[pl.INDEX]):
        with pl.at(level=pl.Level.CORE_GROUP):
            x = pl.load(a, [0, 0], [8, 40])
            y = pl.load(b, [0, 0], [8, 40])
            pl.store(pl.shl(x, y), [0, 0], l)
            pl.store(pl.shr(x, y), [0, 0], r)
            pl.store(pl.shls(x, s), [0, 0], ls)
            pl.store(pl.tensor.shrs(a, s), [0, 0], rs)
        return l

    @pl.jit
    def tensor_level(a: pl.Tensor, b: pl.Tensor, out: pl.Out[pl.Tensor], out2: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.store(pl.tensor.and_(pl.xor(a, b), pl.tensor.not_(b)), [0, 0], out)
            pl.store(pl.rem(a, pl.tensor.row_argmax(b)), [0, 0], out2)
        return out

    @pl.jit
    def maximums(a: pl.Tensor, out: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.store(pl.minimums(pl.maximums(pl.load(a, [0, 0], [8, 40]), -0.5), 0.5), [0, 0], out)
        return out
"""


@pytest.fixture(scope="module")
def M(tmp_path_factory):
    import importlib.util
    import sys
    import textwrap
    path = tmp_path_factory.mktemp("p5") / "p5_elem.py"
    path.write_text("import pypto.language as pl\n" + textwrap.dedent(SRC))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = mod
    spec.loader.exec_module(mod)
    return mod


def _rand(dt, seed, shape=(R, C), lo=-100, hi=100, nonzero=False):
    g = np.random.default_rng(seed)
    if dt in INTS:
        v = g.integers(lo, hi, shape)
        if nonzero:
            v[v == 0] = 7
        return torch.from_numpy(v.astype(np.int64)).to(TORCH[dt])
    v = (g.integers(-80, 80, shape) / 8 + g.integers(0, 3, shape) * 0.1).astype(np.float32)
    if nonzero:
        v[v == 0] = 0.75
    return torch.from_numpy(v).to(TORCH[dt])


def _np(t):
    """t as numpy: floats widened to float32 (exactly), ints to int64."""
    return (t.float() if t.is_floating_point() else t.long()).numpy()


def _as(v, dt):
    """A numpy result rounded once to dt (floats from float32, ints wrapped)."""
    if dt in INTS:
        return torch.from_numpy(np.asarray(v).astype(np.int64)).to(TORCH[dt]) if dt == "INT64" else \
            torch.from_numpy(np.asarray(v).astype(np.int64).astype({8: np.int8, 16: np.int16, 32: np.int32}[BITS[dt]]))
    return torch.from_numpy(np.asarray(v, dtype=np.float32)).to(TORCH[dt])


def _equal(got, want):
    assert got.dtype == want.dtype
    g, w = _np(got), _np(want)
    ok = (g == w) | (np.isnan(g) & np.isnan(w)) if got.is_floating_point() else g == w
    assert ok.all(), (g[~ok][:8], w[~ok][:8])


@pytest.mark.parametrize("name, call, dts, ref", BINARY, ids=[b[0] for b in BINARY])
@pytest.mark.parametrize("dt", FLOATS + INTS)
@pytest.mark.parametrize("vr", [8, 5, 0])
def test_binary_ops_match_numpy_over_the_valid_region(M, name, call, dts, ref, dt, vr):
    if dt not in dts:
        pytest.skip("not a dtype of pl.%s" % name)
    a, b = _rand(dt, 1), _rand(dt, 2, nonzero=True)
    s = 3 if dt in INTS else -1.375
    out = torch.zeros(R, C, dtype=TORCH[dt])
    getattr(M, "b_" + name)(a, b, out, s, vr)
    x, y = _np(a), _np(b)
    sv = np.float32(s) if dt in FLOATS else np.int64(s)
    if dt == "FP16":
        sv = np.float32(np.float16(s))
    with np.errstate(all="ignore"):
        want = _as(ref(x, y, sv, lambda v: _np(_as(v, dt))), dt)  # W: a product wrapped to the dtype
    want[vr:] = 0
    _equal(out, want)


@pytest.mark.parametrize("mode, f", CMP)
@pytest.mark.parametrize("dt", FLOATS + INTS)
def test_cmp_every_mode_gives_one_or_zero_in_the_dtype_nan_compares_unequal(M, mode, f, dt):
    a, b = _rand(dt, 3, lo=-3, hi=3), _rand(dt, 4, lo=-3, hi=3)
    if dt in FLOATS:
        a[0, :5] = float("nan")
        b[1, :5] = float("nan")
        b[2] = a[2]  # equal elements
    out, out2 = torch.zeros(R, C, dtype=TORCH[dt]), torch.zeros(R, C, dtype=TORCH[dt])
    s = 1 if dt in INTS else 0.5
    getattr(M, "cmp_%d" % mode)(a, b, out, out2, s)
    x, y = _np(a), _np(b)
    _equal(out, _as(f(x, y).astype(np.float32), dt))
    _equal(out2, _as(f(x, np.float32(s) if dt in FLOATS else s).astype(np.float32), dt))


@pytest.mark.parametrize("name, call, ref", UNARY, ids=[u[0] for u in UNARY])
@pytest.mark.parametrize("dt", FLOATS)
def test_sin_cos_match_numpy_float32(M, name, call, ref, dt):
    a = _rand(dt, 5) * 4
    out = torch.zeros(R, C, dtype=TORCH[dt])
    getattr(M, "u_" + name)(a, out)
    want = _as(ref(_np(a)), dt)
    tol = {"FP32": 2e-6, "FP16": 1e-3, "BF16": 8e-3}[dt]
    torch.testing.assert_close(out.float(), want.float(), rtol=0, atol=tol)
    # deterministic: the same bits on every run
    again = torch.zeros(R, C, dtype=TORCH[dt])
    getattr(M, "u_" + name)(a, again)
    assert torch.equal(out, again)


def _seq_prod(x, axis, dt):
    """The product along axis, sequentially in float32 (int64 wrapping for ints), rounded once."""
    x = np.moveaxis(x, axis, -1)
    acc = np.ones(x.shape[:-1], dtype=np.float32 if dt in FLOATS else np.int64)
    with np.errstate(over="ignore"):
        for k in range(x.shape[-1]):
            acc = (acc * x[..., k]).astype(acc.dtype)
    return np.expand_dims(acc, axis)


@pytest.mark.parametrize("name", REDUCE)
@pytest.mark.parametrize("dt", FLOATS + INTS)
@pytest.mark.parametrize("vr, vc", [(8, 40), (5, 33), (0, 40), (8, 0)])
def test_reductions_match_numpy_over_the_valid_region(M, name, dt, vr, vc):
    a = _rand(dt, 6, lo=-4, hi=5)  # small ints: ties, and products that wrap
    if dt in FLOATS:
        a = (1 + a.float() / 64).to(TORCH[dt])
    if dt == "FP32":
        a[1, 3] = a[4, 9] = float("nan")  # the first NaN is both extrema
    row = name.startswith("row")
    argx = "arg" in name
    shape = (R, 1) if row else (1, C)
    out = torch.zeros(shape, dtype=torch.int32 if argx else TORCH[dt])
    getattr(M, "r_" + name)(a, out, vr, vc)
    x = _np(a)[:vr, :vc]
    axis = 1 if row else 0
    want = np.zeros(shape, dtype=np.float64)
    if x.size:
        if argx:
            r = (np.argmax if "max" in name else np.argmin)(x, axis=axis)
            r = np.expand_dims(r, axis)
        else:
            r = _seq_prod(x, axis, dt)
        want[:r.shape[0], :r.shape[1]] = r
    _equal(out, torch.from_numpy(want.astype(np.int32)) if argx else _as(want, dt))


@pytest.mark.parametrize("op, f", [("add", np.add), ("mul", np.multiply), ("max", np.maximum), ("min", np.minimum)])
@pytest.mark.parametrize("dt", FLOATS + INTS)
@pytest.mark.parametrize("va, vb", [((8, 40), (8, 40)), ((5, 33), (8, 12)), ((0, 0), (3, 7)), ((6, 40), (0, 40))])
def test_part_ops_over_the_union_of_the_valid_regions(M, op, f, dt, va, vb):
    a, b = _rand(dt, 14), _rand(dt, 15)
    out = torch.full((R, C), 9, dtype=TORCH[dt])
    getattr(M, "part_" + op)(a, b, out, *va, *vb)
    rows, cols = np.indices((R, C))
    ina, inb = (rows < va[0]) & (cols < va[1]), (rows < vb[0]) & (cols < vb[1])
    x, y = _np(a), _np(b)
    with np.errstate(all="ignore"):
        want = np.where(ina & inb, f(x, y), np.where(ina, x, np.where(inb, y, 0)))  # 0: the pad fillpad keeps
    _equal(out, _as(want, dt))


@pytest.mark.parametrize("dt", FLOATS + INTS)
@pytest.mark.parametrize("mdt", ["FP32", "FP16", "INT8", "INT64"])
@pytest.mark.parametrize("vr", [8, 3, 0])
def test_sel_sels_addc_subc_match_numpy(M, dt, mdt, vr):
    a, b, c = _rand(dt, 16), _rand(dt, 17), _rand(dt, 18)
    mask = _rand(mdt, 19, lo=-1, hi=2)  # about a third zero
    if mdt == "FP32":
        mask[0, :3] = float("nan")  # a NaN is not 0: true
    out = torch.zeros(6 * R, C, dtype=TORCH[dt])
    s = 3 if dt in INTS else -1.375
    M.ternary(a, b, c, mask, out, s, vr)
    outs = out.split(R)
    x, y, z, k = _np(a), _np(b), _np(c), _np(mask) != 0
    sv = np.float32(s) if dt in FLOATS else np.int64(s)
    wants = [np.where(k, x, y), np.where(k, x, sv), x + y + z, x - y - z, x + sv + z, x - sv - z]
    for got, want in zip(outs, wants):
        want = _as(want, dt)
        want[vr:] = 0
        _equal(got, want)


@pytest.mark.parametrize("dt", INTS)
def test_shift_counts_outside_the_bit_width_shift_every_bit_out(M, dt):
    w = BITS[dt]
    a = _rand(dt, 7)
    b = _rand(dt, 8, lo=-3, hi=w + 3)
    outs = [torch.zeros(R, C, dtype=TORCH[dt]) for _ in range(4)]
    x, y = _np(a), _np(b)

    def shl(x, y):
        return np.where((y < 0) | (y >= w), 0, np.left_shift(x, np.clip(y, 0, w - 1) % 64))

    def shr(x, y):
        return np.where((y < 0) | (y >= w), np.where(x < 0, -1, 0), np.right_shift(x, np.clip(y, 0, w - 1)))

    for s in [0, 3, w - 1, w, 1000]:
        M.shifts(a, b, *outs, s)
        _equal(outs[0], _as(shl(x, y), dt))
        _equal(outs[1], _as(shr(x, y), dt))
        _equal(outs[2], _as(shl(x, np.full_like(x, s)), dt))
        _equal(outs[3], _as(shr(x, np.full_like(x, s)), dt))


def test_tensor_level_spellings(M):
    a, b = _rand("INT32", 9), _rand("INT32", 10)
    for r in range(R):
        b[r, r + 1] = 1000  # row r's maximum at column r + 1: the [8, 1] divisor broadcast along the row
    out, out2 = torch.zeros(R, C, dtype=torch.int32), torch.zeros(R, C, dtype=torch.int32)
    M.tensor_level(a, b, out, out2)
    x, y = _np(a), _np(b)
    _equal(out, _as((x ^ y) & ~y, "INT32"))
    _equal(out2, _as(np.remainder(x, np.arange(1, R + 1)[:, None]), "INT32"))


def test_maximums_and_minimums_are_pl_names(M):
    a = _rand("FP32", 11)
    out = torch.zeros(R, C)
    M.maximums(a, out)
    _equal(out, _as(np.clip(_np(a), -0.5, 0.5), "FP32"))


def test_rem_by_an_integer_zero_fails_the_task(M):
    a, b = _rand("INT32", 12), _rand("INT32", 13, nonzero=True)
    b[3, 4] = 0
    out = torch.full((R, C), 77, dtype=torch.int32)
    with pytest.raises(PTORuntimeError) as e:
        M.b_rem(a, b, out, 3, R)
    assert "pl.rem: integer division by zero" in str(e.value)
    assert bool((out == 77).all())


def test_new_ops_print_back_to_the_same_program(M):
    a, b = _rand("INT32", 1), _rand("INT32", 2, nonzero=True)
    out = torch.zeros(R, C, dtype=torch.int32)
    for k in [M.b_xor, M.b_rems, M.b_lrelu, M.b_rem_tmp]:
        text = k.lower(a, b, out, 3, R)
        assert pl.parse_program(text).lower(a, b, out, 3, R) == text
    text = M.cmp_4.lower(a, b, out, out, 1)
    assert "cmp_type=4), [0, 0], out)" in text and "pl.cmp(x, 1, cmp_type=4)" in text  # pl.cmps prints as pl.cmp
    assert pl.parse_program(text).lower(a, b, out, out, 1) == text
    text = M.r_row_argmax.lower(a, torch.zeros(R, 1, dtype=torch.int32), R, C)
    assert "pl.row_argmax(" in text
    assert pl.parse_program(text).lower(a, torch.zeros(R, 1, dtype=torch.int32), R, C) == text


@pytest.mark.parametrize("call, exc, want", [
    ("pl.lrelu(t, t)", ParserTypeError, "pl.lrelu: slope must be a scalar, got pl.Tile[[8, 40], pl.FP32]"),
    ("pl.prelu(t, 0.5)", ParserTypeError, "pl.prelu: slope must be a tile, got pl.Scalar[pl.FP32]"),
    ("pl.shls(k, -1)", InvalidOperationError, "pl.shl: shift count -1 is negative"),
    ("pl.cmp(t, t, cmp_type=6)", ParserTypeError, "pl.cmp cmp_type must be an integer constant from 0 (eq) to 5 (ge)"),
    ("pl.cmp(t, t, cmp_type=1.5)", ParserTypeError, "pl.cmp cmp_type must be an integer constant from 0 (eq) to 5 (ge)"),
    ("pl.and_(t, t)", ParserTypeError, "pl.and_ requires an integer tile, got FP32"),
    ("pl.not_(t)", ParserTypeError, "pl.not_ requires an integer tile, got FP32"),
    ("pl.shr(t, 1)", ParserTypeError, "pl.shr requires an integer tile, got FP32"),
    ("pl.sin(k)", ParserTypeError, "pl.sin requires a floating-point tile, got INT32"),
    ("pl.rems(t, t)", ParserTypeError, "pl.rems expects a scalar right operand, got pl.Tile[[8, 40], pl.FP32]"),
    ("pl.tile.cmps(t, t)", ParserTypeError, "pl.tile.cmps expects a scalar right operand, got pl.Tile[[8, 40], pl.FP32]"),
    ("pl.ands(k, 1.5)", ParserTypeError, "pl.and_: float scalar 1.5 with an INT32 tile; cast the tile first"),
    ("pl.rem(t, k)", ParserTypeError, "pl.rem: operand dtypes FP32 and INT32 differ; insert pl.cast"),
    ("pl.row_argmax(pl.cast(k, pl.BOOL))", ParserTypeError, "pl.row_argmax does not accept BOOL tiles; cast first"),
    ("pl.xor(k, k, 1)", ParserTypeError, "expected a tile, got pl.Scalar[pl.INDEX]"),
    ("pl.part_max(t, 1.0)", ParserTypeError, "pl.part_max: rhs must be a tile, got pl.Scalar[pl.FP32]"),
    ("pl.sel(k, t, k)", ParserTypeError, "pl.sel: operand dtypes INT32 and FP32 differ; insert pl.cast"),
    ("pl.addc(t, t, k)", ParserTypeError, "pl.addc: operand dtypes FP32 and INT32 differ; insert pl.cast"),
    ("pl.sel(pl.load(a, [0, 0], [8, 8]), t, t)", InvalidOperationError, "pl.sel: operand shapes [8, 8] and [8, 40] differ"),
    ("pl.sel(pl.cast(k, pl.BOOL), t, t)", ParserTypeError, "pl.sel does not accept BOOL tiles; cast first"),
    ("pl.sels(k, k, k, 1.5)", ParserTypeError, "pl.sels: float scalar 1.5 with an INT32 tile; cast the tile first"),
    ("pl.addsc(t, t, t)", ParserTypeError, "pl.addsc expects a scalar right operand, got pl.Tile[[8, 40], pl.FP32]"),
    ("pl.sels(k, t, t)", ParserTypeError, "pl.sels() missing required argument 'scalar'"),
])
def test_p5_op_errors(load, call, exc, want):
    mod, _ = load("""
        @pl.jit
        def k(a: pl.Tensor, i: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar[pl.INDEX]):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(a, [0, 0], [8, 40])
                k = pl.load(i, [0, 0], [8, 40])
                pl.store(%s, [0, 0], out)
            return out
        """ % call)
    with pytest.raises(exc) as e:
        mod.k(torch.zeros(R, C), torch.zeros(R, C, dtype=torch.int32), torch.zeros(R, C), 2)
    assert e.value.message == want
