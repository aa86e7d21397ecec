"""Creation, linear algebra and views of the op catalog (docs/dsl.md, "Creation,
linear algebra and views"): pl.arange / pl.tile.ci / pl.tensor.ci, pl.tri,
pl.random (Philox4x32, against a reference written here), pl.const,
pl.matmul_bias, pl.batch_matmul, pl.gemv, pl.gemv_acc, pl.gemv_bias,
pl.reinterpret_view, pl.dump_tag: every spelling, the dtypes each takes, the
valid regions, wrap-around at the dtype's edge, each error text, the printed
program parsing back to itself, and the torch_codegen translations."""
import numpy as np
import pytest
import torch

import pypto.language as pl
from pypto.debug import torch_codegen
from pypto.language.parser.diagnostics import InvalidOperationError, ParserTypeError, UnsupportedFeatureError

TORCH = {"FP32": torch.float32, "FP16": torch.float16, "BF16": torch.bfloat16, "INT32": torch.int32,
         "INT8": torch.int8, "INT16": torch.int16, "INT64": torch.int64}
NP = {"INT32": np.int32, "INT16": np.int16}

SRC = """
@pl.jit
def arange(out: pl.Out[pl.Tensor], s: pl.Scalar):
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(pl.arange(s, [1, 24]), [0, 0], out)
        pl.store(pl.tile.ci(s, [1, 24], descending=True), [1, 0], out)
        pl.store(pl.tensor.arange(7, [1, 24], pl.INT32), [2, 0], out)
    return out

@pl.jit
def arange16(out: pl.Out[pl.Tensor], s: pl.Scalar):
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(pl.tensor.ci(s, [1, 24], dtype=pl.INT16), [0, 0], out)
        pl.store(pl.tile.arange(s, [1, 24], pl.INT16, True), [1, 0], out)
    return out

@pl.jit
def arange_rank(out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(pl.reshape(pl.arange(-3, [1, 1, 24]), [1, 24]), [0, 0], out)
    return out

@pl.jit
def tri_lo(out: pl.Out[pl.Tensor], d: pl.Scalar):
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(pl.tri(d, [8, 16], dtype=pl.FP32), [0, 0], out)
    return out

@pl.jit
def tri_up(out: pl.Out[pl.Tensor], d: pl.Scalar):
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(pl.tile.tri(d, [8, 16], dtype=pl.INT8, upper=True), [0, 0], out)
    return out

@pl.jit
def tri_valid(out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(pl.fillpad(pl.tri(0, [8, 16], valid_shape=[5, 9]), pad_value=pl.PadValue.max), [0, 0], out)
    return out

@pl.jit
def tri_bf16(out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(pl.tri(-2, [8, 16], None, pl.BF16, True), [0, 0], out)
    return out

@pl.jit
def rand(out: pl.Out[pl.Tensor], k0: pl.Scalar, k1: pl.Scalar, c0: pl.Scalar, c1: pl.Scalar, c2: pl.Scalar, c3: pl.Scalar):
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(pl.random(k0, k1, c0, c1, c2, c3, [4, 24], dtype=pl.INT32), [0, 0], out)
        pl.store(pl.tile.random(k0, k1, c0, c1, c2, c3, [4, 24], dtype=pl.INT32, rounds=7), [4, 0], out)
    return out

@pl.jit
def rand_valid(out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        r = pl.tile.random(1, 2, 3, 4, 5, 6, [4, 24], valid_shape=[3, 10], dtype=pl.INT32)
        pl.store(pl.fillpad(r, pad_value=pl.PadValue.min), [0, 0], out)
    return out

@pl.jit
def consts(out: pl.Out[pl.Tensor], f: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(pl.full([1, 8], dtype=pl.INT32, value=pl.const(-128, pl.INT8) + pl.const(127, pl.INT8)), [0, 0], out)
        pl.store(pl.full([1, 8], dtype=pl.FP32, value=pl.const(0.1, pl.FP16)), [0, 0], f)
    return out

@pl.jit
def reinterp(a: pl.Tensor, i: pl.Out[pl.Tensor], b: pl.Out[pl.Tensor], h: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        x = pl.load(a, [0, 0], [4, 8])
        pl.store(pl.reinterpret_view(x, pl.INT32), [0, 0], i)
        pl.store(pl.tile.reinterpret_view(x, pl.INT8, shape=[8, 16]), [0, 0], b)
        pl.store(pl.tensor.reinterpret_view(a, pl.BF16), [0, 0], h)
    return i

@pl.jit
def reinterp_partial(a: pl.Tensor, i: pl.Out[pl.Tensor], n: pl.Scalar[pl.INDEX]):
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(pl.reinterpret_view(pl.load(a, [0, 0], [4, 8], valid_shape=[n, 8]), pl.INT32), [0, 0], i)
    return i

@pl.jit
def tagged(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    pl.dump_tag(a)
    b = pl.tensor.dump_tag(a)
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(pl.load(b, [0, 0], [4, 8]), [0, 0], out)
    return out
"""
for _dt in ("FP32", "FP16", "BF16", "INT8"):
    SRC += """
@pl.jit
def mm_%s(a: pl.Tensor, b: pl.Tensor, bias: pl.Tensor, v: pl.Tensor, out: pl.Out[pl.Tensor], out2: pl.Out[pl.Tensor],
          vr: pl.Scalar[pl.INDEX], vk: pl.Scalar[pl.INDEX]):
    with pl.at(level=pl.Level.CORE_GROUP):
        x = pl.load(a, [0, 0], [8, 16], valid_shape=[vr, vk])
        y = pl.load(b, [0, 0], [16, 24])
        c = pl.load(bias, [0, 0], [1, 24])
        w = pl.load(v, [0, 0], [1, 16], valid_shape=[1, vk])
        pl.store(pl.matmul_bias(x, y, c), [0, 0], out)
        g = pl.gemv(w, y, acc_phase="partial")
        pl.store(g, [0, 0], out2)
        pl.store(pl.tile.gemv_acc(g, w, y, acc_phase="final"), [1, 0], out2)
        pl.store(pl.gemv_bias(w, y, c), [2, 0], out2)
    return out
""" % _dt
SRC += """
@pl.jit
def bmm(a: pl.Tensor, b: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(pl.batch_matmul(pl.load(a, [0, 0, 0], [3, 4, 8]), pl.load(b, [0, 0, 0], [1, 8, 16])), [0, 0, 0], out)
    return out

@pl.jit
def bmm4(a: pl.Tensor, b: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(pl.tile.batch_matmul(pl.load(a, [0, 0, 0, 0], [2, 1, 4, 8]), pl.load(b, [0, 0, 0], [3, 8, 16])), [0, 0, 0, 0], out)
    return out
"""


@pytest.fixture(scope="module")
def M(tmp_path_factory):
    import importlib.util
    import sys
    path = tmp_path_factory.mktemp("p5c") / "p5_create.py"
    path.write_text("import pypto.language as pl\n" + SRC)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = mod
    spec.loader.exec_module(mod)
    return mod


def _wrap(v, dt):
    return np.asarray(v, dtype=np.int64).astype(NP[dt])


@pytest.mark.parametrize("s", [5, -7, 2**31 - 10, -2**31 + 3])
def test_arange_counts_from_start_wrapping_at_int32(M, s):
    out = torch.zeros(3, 24, dtype=torch.int32)
    M.arange(out, s)
    k = np.arange(24)
    assert (out[0].numpy() == _wrap(s + k, "INT32")).all()
    assert (out[1].numpy() == _wrap(s - k, "INT32")).all()
    assert (out[2].numpy() == 7 + k).all()


@pytest.mark.parametrize("s", [0, 32760, -32760, 70000])
def test_arange_int16_wraps_at_its_width(M, s):
    out = torch.zeros(2, 24, dtype=torch.int16)
    M.arange16(out, s)
    k = np.arange(24)
    assert (out[0].numpy() == _wrap(s + k, "INT16")).all()
    assert (out[1].numpy() == _wrap(s - k, "INT16")).all()


def test_arange_of_a_rank_3_shape_fills_its_one_row(M):
    out = torch.zeros(1, 24, dtype=torch.int32)
    M.arange_rank(out)
    assert (out[0].numpy() == np.arange(-3, 21)).all()


@pytest.mark.parametrize("d", [0, 2, -3, 15, 16, -8, -9, 2**40, -2**40])
def test_tri_lower_and_upper_match_numpy(M, d):
    lo, up = torch.zeros(8, 16), torch.zeros(8, 16, dtype=torch.int8)
    M.tri_lo(lo, d)
    M.tri_up(up, d)
    assert (lo.numpy() == np.tril(np.ones((8, 16)), d)).all()
    assert (up.numpy() == np.triu(np.ones((8, 16)), d)).all()


def test_tri_writes_only_its_valid_region(M):
    out = torch.zeros(8, 16, dtype=torch.int32)
    M.tri_valid(out)
    want = np.full((8, 16), np.iinfo(np.int32).max)
    want[:5, :9] = np.tril(np.ones((5, 9)), 0)
    assert (out.numpy() == want).all()


def test_tri_bf16_holds_exact_ones(M):
    out = torch.zeros(8, 16, dtype=torch.bfloat16)
    M.tri_bf16(out)
    assert (out.float().numpy() == np.triu(np.ones((8, 16)), -2)).all()


def _philox(key, ctr, rounds):
    m = 0xFFFFFFFF
    c, k = list(ctr), list(key)
    for _ in range(rounds):
        p0, p1 = 0xD2511F53 * c[0], 0xCD9E8D57 * c[2]
        c = [((p1 >> 32) ^ c[1] ^ k[0]) & m, p1 & m, ((p0 >> 32) ^ c[3] ^ k[1]) & m, p0 & m]
        k = [(k[0] + 0x9E3779B9) & m, (k[1] + 0xBB67AE85) & m]
    return c


def _random_ref(seeds, shape, rounds, valid=None):
    key = [s & 0xFFFFFFFF for s in seeds[:2]]
    ctr = [s & 0xFFFFFFFF for s in seeds[2:]]
    base = ctr[0] | ctr[1] << 32 | ctr[2] << 64 | ctr[3] << 96
    n = int(np.prod(shape))
    out = np.zeros(n, dtype=np.uint32)
    for b in range((n + 3) // 4):
        c = (base + b) % 2**128
        words = _philox(key, [(c >> (32 * w)) & 0xFFFFFFFF for w in range(4)], rounds)
        for w in range(4):
            if 4 * b + w < n:
                out[4 * b + w] = words[w]
    out = out.view(np.int32).reshape(shape)
    if valid is not None:
        mask = np.zeros(shape, dtype=bool)
        mask[:valid[0], :valid[1]] = True
        out = np.where(mask, out, 0)
    return out


def test_philox_reference_matches_the_published_answers():
    # Random123's known answers for Philox4x32-10
    assert _philox([0, 0], [0, 0, 0, 0], 10) == [0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]
    assert _philox([0xFFFFFFFF] * 2, [0xFFFFFFFF] * 4, 10) == [0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD]


@pytest.mark.parametrize("seeds", [(0, 0, 0, 0, 0, 0), (1, 2, 3, 4, 5, 6), (-1, -1, -1, -1, -1, -1),
                                   (7, 9, 0xFFFFFFF0, 0xFFFFFFFF, 3, 0)])
def test_random_is_philox_over_the_counter_and_position(M, seeds):
    out = torch.zeros(8, 24, dtype=torch.int32)
    M.rand(out, *seeds)
    assert (out[:4].numpy() == _random_ref(seeds, (4, 24), 10)).all()
    assert (out[4:].numpy() == _random_ref(seeds, (4, 24), 7)).all()


def test_random_same_seeds_same_values_and_valid_region_keeps_them(M):
    out = torch.zeros(4, 24, dtype=torch.int32)
    M.rand_valid(out)
    want = _random_ref((1, 2, 3, 4, 5, 6), (4, 24), 10)
    mask = np.zeros((4, 24), dtype=bool)
    mask[:3, :10] = True
    assert (out.numpy() == np.where(mask, want, np.iinfo(np.int32).min)).all()


def test_const_in_orchestration_is_a_typed_scalar(load):
    mod, _ = load("""
        @pl.jit
        def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            for i in pl.range(pl.const(2, pl.INDEX)):
                with pl.at(level=pl.Level.CORE_GROUP):
                    pl.store(pl.add(pl.load(a, [i * 4, 0], [4, 8]), pl.const(True, pl.BOOL) + pl.const(-1, pl.INT64)), [i * 4, 0], out)
            return out
        """)
    a = torch.randn(8, 8)
    out = torch.ones(8, 8)
    mod.k(a, out)
    assert torch.equal(out, a)


def test_dump_tag_in_kernel_code_is_misplaced(load):
    mod, _ = load("""
        @pl.jit
        def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.dump_tag(a)
                pl.store(pl.load(a, [0, 0], [4, 8]), [0, 0], out)
            return out
        """)
    with pytest.raises(InvalidOperationError) as e:
        mod.k(torch.zeros(4, 8), torch.zeros(4, 8))
    assert "pl.dump_tag is control-plane work and is not allowed in kernel code" in e.value.message


@pytest.mark.parametrize("call, kind", [("pl.gemv(a, a)", "tile"), ("pl.tri(0, [8, 8])", "tile"), ("pl.arange(0, [1, 8])", "tensor"),
                                        ("pl.random(1, 2, 3, 4, 5, 6, [8, 8], dtype=pl.INT32)", "tensor")])
def test_creation_and_linalg_ops_in_orchestration_are_misplaced(load, call, kind):
    mod, _ = load("""
        @pl.jit
        def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            x = %s
            return out
        """ % call)
    with pytest.raises(InvalidOperationError) as e:
        mod.k(torch.zeros(8, 8), torch.zeros(8, 8))
    assert e.value.message.startswith("Misplaced %s op 'pl.%s' in Orchestration function 'k'" % (kind, call[3:call.index("(")]))


def test_reinterpret_view_of_a_tensor_in_orchestration_is_not_supported(load):
    mod, _ = load("""
        @pl.jit
        def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            b = pl.reinterpret_view(a, pl.INT32)
            return out
        """)
    with pytest.raises(UnsupportedFeatureError) as e:
        mod.k(torch.zeros(8, 8), torch.zeros(8, 8))
    assert e.value.message == "pl.reinterpret_view of a Tensor is not supported in this version"


def test_dump_tag_of_a_scalar_is_an_error(load):
    mod, _ = load("""
        @pl.jit
        def k(a: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar):
            pl.dump_tag(n)
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.store(pl.load(a, [0, 0], [4, 8]), [0, 0], out)
            return out
        """)
    with pytest.raises(ParserTypeError) as e:
        mod.k(torch.zeros(4, 8), torch.zeros(4, 8), 3)
    assert e.value.message.startswith("pl.dump_tag expects a tensor, got pl.Scalar")


def test_const_gives_the_dtype_s_value(M):
    out, f = torch.zeros(1, 8, dtype=torch.int32), torch.zeros(1, 8)
    M.consts(out, f)
    assert (out.numpy() == -1).all()
    assert (f.numpy() == np.float32(np.float16(0.1))).all()


def test_reinterpret_view_keeps_the_bytes(M):
    a = torch.randn(4, 8)
    i, b, h = torch.zeros(4, 8, dtype=torch.int32), torch.zeros(8, 16, dtype=torch.int8), torch.zeros(4, 16, dtype=torch.bfloat16)
    M.reinterp(a, i, b, h)
    assert (i.numpy() == a.numpy().view(np.int32)).all()
    assert (b.numpy() == a.numpy().view(np.int8).reshape(8, 16)).all()
    assert (h.view(torch.int16).numpy() == a.numpy().view(np.int16)).all()


def test_reinterpret_view_of_a_partial_tile_reads_zero_bytes_outside(M):
    a = torch.randn(4, 8)
    i = torch.full((4, 8), 5, dtype=torch.int32)
    M.reinterp_partial(a, i, 2)
    want = a.numpy().view(np.int32).copy()
    want[2:] = 0
    assert (i.numpy() == want).all()


def test_dump_tag_is_accepted_and_changes_nothing(M):
    a = torch.randn(4, 8)
    out = torch.zeros(4, 8)
    M.tagged(a, out)
    assert torch.equal(out, a)


def _mm_data(dt, seed):
    g = np.random.default_rng(seed)
    if dt == "INT8":
        mk = lambda *s: torch.from_numpy(g.integers(-128, 128, s).astype(np.int8))  # noqa: E731
        bias = torch.from_numpy(g.integers(-2**31, 2**31, (1, 24)).astype(np.int32))
    else:
        mk = lambda *s: torch.from_numpy((g.integers(-64, 64, s) / 16).astype(np.float32)).to(TORCH[dt])  # noqa: E731
        bias = torch.from_numpy(g.standard_normal((1, 24)).astype(np.float32))
    return mk(8, 16), mk(16, 24), bias, mk(1, 16)


def _mm_ref(x, y, dt):
    if dt == "INT8":
        return (x.astype(np.int64) @ y.astype(np.int64)).astype(np.int32)
    return (x.astype(np.float64) @ y.astype(np.float64)).astype(np.float32)


@pytest.mark.parametrize("dt", ["FP32", "FP16", "BF16", "INT8"])
@pytest.mark.parametrize("vr, vk", [(8, 16), (5, 11), (0, 16), (8, 0)])
def test_matmul_bias_and_gemv_family_match_numpy(M, dt, vr, vk):
    a, b, bias, v = _mm_data(dt, vr * 100 + vk)
    rt = torch.int32 if dt == "INT8" else torch.float32
    out, out2 = torch.zeros(8, 24, dtype=rt), torch.zeros(3, 24, dtype=rt)
    getattr(M, "mm_" + dt)(a, b, bias, v, out, out2, vr, vk)
    x, y, w = (t.float().numpy() if dt != "INT8" else t.numpy() for t in (a, b, v))
    x, w = x[:vr, :vk], w[:, :vk]
    yk = y[:vk]
    bb = bias.numpy()
    with np.errstate(over="ignore"):
        mb = np.zeros((8, 24), dtype=bb.dtype)
        mb[:vr] = (_mm_ref(x, yk, dt) + bb) if dt != "INT8" else (_mm_ref(x, yk, dt).astype(np.int64) + bb).astype(np.int32)
        g = _mm_ref(w, yk, dt)
        ga = (g.astype(np.int64) * 2).astype(np.int32) if dt == "INT8" else g * 2
        gb = (g.astype(np.int64) + bb).astype(np.int32) if dt == "INT8" else g + bb
    tol = 0 if dt in ("INT8",) else 1e-5
    np.testing.assert_allclose(out.numpy(), mb, rtol=tol, atol=tol)
    np.testing.assert_allclose(out2.numpy(), np.concatenate([g, ga, gb]), rtol=tol, atol=tol)


def test_batch_matmul_broadcasts_the_batch_axes(M):
    a, b = torch.randn(3, 4, 8), torch.randn(1, 8, 16)
    out = torch.zeros(3, 4, 16)
    M.bmm(a, b, out)
    np.testing.assert_allclose(out.numpy(), np.matmul(a.numpy(), b.numpy()), rtol=1e-5, atol=1e-5)
    a, b = torch.randn(2, 1, 4, 8), torch.randn(3, 8, 16)
    out = torch.zeros(2, 3, 4, 16)
    M.bmm4(a, b, out)
    np.testing.assert_allclose(out.numpy(), np.matmul(a.numpy(), b.numpy()), rtol=1e-5, atol=1e-5)


def test_new_ops_print_back_to_the_same_program(M):
    cases = [(M.arange, (torch.zeros(3, 24, dtype=torch.int32), 1)),
             (M.arange16, (torch.zeros(2, 24, dtype=torch.int16), 1)),
             (M.tri_valid, (torch.zeros(8, 16, dtype=torch.int32),)),
             (M.tri_up, (torch.zeros(8, 16, dtype=torch.int8), 1)),
             (M.rand, (torch.zeros(8, 24, dtype=torch.int32), 1, 2, 3, 4, 5, 6)),
             (M.reinterp, (torch.zeros(4, 8), torch.zeros(4, 8, dtype=torch.int32), torch.zeros(8, 16, dtype=torch.int8),
                           torch.zeros(4, 16, dtype=torch.bfloat16))),
             (M.mm_FP32, (*_mm_data("FP32", 1), torch.zeros(8, 24), torch.zeros(3, 24), 8, 16)),
             (M.bmm, (torch.zeros(3, 4, 8), torch.zeros(1, 8, 16), torch.zeros(3, 4, 16))),
             (M.tagged, (torch.zeros(4, 8), torch.zeros(4, 8)))]
    for k, args in cases:
        text = k.lower(*args)
        assert pl.parse_program(text).lower(*args) == text
    text = M.mm_FP32.lower(*cases[6][1])
    assert 'pl.gemv(w, y, acc_phase="partial")' in text and 'pl.gemv_acc(g, w, y, acc_phase="final")' in text
    text = M.arange.lower(*cases[0][1])
    assert "[1, 24], pl.INT32, descending=True)" in text and "pl.tile.arange(" in text and "pl.arange(7, [1, 24], pl.INT32)" in text
    assert "dump_tag" not in M.tagged.lower(*cases[8][1])


def _torch_run(k, args):
    src = torch_codegen(k.lower(*args))
    ns = {}
    exec(compile(src, "<torch_codegen>", "exec"), ns)
    fn = [v for n, v in ns.items() if callable(v) and n != "torch"][-1]
    copies = [a.clone() if isinstance(a, torch.Tensor) else a for a in args]
    fn(*copies)
    k(*args)
    return copies


@pytest.mark.parametrize("name, args", [
    ("arange", lambda: (torch.zeros(3, 24, dtype=torch.int32), 2**31 - 5)),
    ("arange16", lambda: (torch.zeros(2, 24, dtype=torch.int16), 32765)),
    ("tri_lo", lambda: (torch.zeros(8, 16), -2)),
    ("tri_up", lambda: (torch.zeros(8, 16, dtype=torch.int8), 3)),
    ("tri_valid", lambda: (torch.zeros(8, 16, dtype=torch.int32),)),
    ("reinterp", lambda: (torch.tensor([[float("nan"), -0.0, float("inf"), 1e-40] * 2] * 4)  # NaN, -0, inf, a subnormal
                          + torch.randn(4, 8, generator=torch.Generator().manual_seed(5)) * torch.tensor([0.0, 0.0, 0.0, 0.0, 1, 1, 1, 1]),
                          torch.zeros(4, 8, dtype=torch.int32), torch.zeros(8, 16, dtype=torch.int8),
                          torch.zeros(4, 16, dtype=torch.bfloat16))),
    ("rand", lambda: (torch.zeros(8, 24, dtype=torch.int32), 7, -1, 0xFFFFFFF0, 0xFFFFFFFF, -1, 2**31)),
    ("rand_valid", lambda: (torch.full((4, 24), 3, dtype=torch.int32),)),
    ("mm_FP32", lambda: (*_mm_data("FP32", 3), torch.zeros(8, 24), torch.zeros(3, 24), 5, 11)),
    ("mm_INT8", lambda: (*_mm_data("INT8", 4), torch.zeros(8, 24, dtype=torch.int32), torch.zeros(3, 24, dtype=torch.int32), 8, 16)),
])
def test_torch_codegen_translations_compute_what_the_vm_computes(M, name, args):
    a = args()
    got = _torch_run(getattr(M, name), a)
    for x, y in zip(got, a):
        if isinstance(x, torch.Tensor):
            assert torch.equal(x, y) if not x.is_floating_point() else torch.allclose(x, y, rtol=1e-6, atol=1e-6, equal_nan=True)




@pytest.mark.parametrize("call, exc, want", [
    ("pl.arange(0, [2, 8])", InvalidOperationError, "pl.arange fills one row: the leading extents of shape [2, 8] must be 1"),
    ("pl.arange(0, [1, 8], pl.FP32)", ParserTypeError, "pl.arange dtype must be pl.INT32, pl.INT16, pl.UINT32 or pl.UINT16, got pl.FP32"),
    ("pl.arange(1.5, [1, 8])", ParserTypeError, "pl.arange start must be an integer scalar, got pl.Scalar[pl.FP32]"),
    ("pl.arange(0, [1, 8], descending=1)", ParserTypeError, "pl.arange descending= must be True or False"),
    ("pl.arange(0, [1, pl.read(k, [0, 0])])", ParserTypeError, "pl.arange shape element 1 must be a compile-time constant"),
    ("pl.tri(0, [8])", InvalidOperationError, "pl.tri needs a rank-2 shape, got 1 entries"),
    ("pl.tri(0, [8, 8], valid_shape=[9, 8])", InvalidOperationError, "pl.tri: valid_shape entry 0 (9) is outside 0 to 8"),
    ("pl.tri(0, [8, 8], valid_shape=[8])", InvalidOperationError, "pl.tri: valid_shape has 1 entries for a rank-2 shape"),
    ("pl.tri(0, [8, 8], valid_shape=[pl.read(k, [0, 0]), 8])", ParserTypeError, "pl.tri valid_shape entries must be compile-time constants"),
    ("pl.tri(t, [8, 8])", ParserTypeError, "pl.tri diagonal must be an integer scalar, got pl.Tile[[8, 40], pl.FP32]"),
    ("pl.tri(0, [8, 8], dtype=pl.BOOL)", ParserTypeError, "a tile dtype must be FP32, FP16, BF16, INT64, INT32, INT16, INT8, UINT32, UINT16 or UINT8"),
    ("pl.random(1, 2, 3, 4, 5, 6, [8, 8], dtype=pl.FP32)", ParserTypeError, "pl.random dtype must be pl.UINT32 or pl.INT32, got pl.FP32"),
    ("pl.random(1, 2, 3, 4, 5, 6, [8, 8], dtype=pl.INT32, rounds=8)", ParserTypeError, "pl.random rounds= must be the constant 7 or 10"),
    ("pl.random(1, 2, 3, 4, 5, 0.5, [8, 8], dtype=pl.INT32)", ParserTypeError,
     "pl.random counter3 must be an integer scalar, got pl.Scalar[pl.FP32]"),
    ("pl.random(1, 2, 3, 4, 5, [8, 8])", ParserTypeError, "pl.random() missing required argument 'shape'"),
    ("pl.matmul_bias(t, pl.load(a, [0, 0], [40, 8]), pl.load(a, [0, 0], [1, 4]))", InvalidOperationError,
     "pl.matmul_bias: bias shape [1, 4], want [1, 8]"),
    ("pl.matmul_bias(t, pl.load(a, [0, 0], [40, 8]), pl.load(i, [0, 0], [1, 8]))", ParserTypeError,
     "pl.matmul_bias requires bias dtype FP32, got INT32"),
    ("pl.matmul_bias(t, t, t)", InvalidOperationError, "pl.matmul_bias: inner dimensions differ: [8, 40] vs [8, 40]"),
    ("pl.matmul_bias(t, pl.load(i, [0, 0], [40, 8]), t)", ParserTypeError, "pl.matmul_bias: operand dtypes FP32 and INT32 differ; insert pl.cast"),
    ("pl.matmul_bias(k, pl.load(i, [0, 0], [40, 8]), k)", ParserTypeError, "pl.matmul_bias takes FP32, FP16, BF16, INT8 or UINT8 operands, got INT32"),
    ("pl.gemv(t, pl.load(a, [0, 0], [40, 8]))", InvalidOperationError, "pl.gemv: lhs must be one row [1, K], got [8, 40]"),
    ("pl.gemv(pl.load(a, [0, 0], [1, 40]), pl.load(a, [0, 0], [40, 8]), acc_phase=\"done\")", ParserTypeError,
     "pl.gemv acc_phase= must be \"unspecified\", \"partial\" or \"final\""),
    ("pl.gemv_acc(pl.load(a, [0, 0], [1, 4]), pl.load(a, [0, 0], [1, 40]), pl.load(a, [0, 0], [40, 8]))", InvalidOperationError,
     "pl.gemv_acc: accumulator shape [1, 4], want [1, 8]"),
    ("pl.gemv_bias(pl.load(a, [0, 0], [1, 40]), pl.load(a, [0, 0], [40, 8]), pl.load(i, [0, 0], [1, 8]))", ParserTypeError,
     "pl.gemv_bias requires bias dtype FP32, got INT32"),
    ("pl.batch_matmul(pl.load(a, [0, 0], [1, 8]), pl.reshape(t, [320]))", InvalidOperationError,
     "pl.batch_matmul needs operands of rank 2 or more, got [1, 8] and [320]"),
    ("pl.batch_matmul(a, a)", ParserTypeError, "pl.batch_matmul takes Tile operands; for Tensors call pl.matmul"),
    ("pl.reinterpret_view(t, pl.FP32)", ParserTypeError, "pl.reinterpret_view: dtype pl.FP32 is the source's own; pass another dtype"),
    ("pl.reinterpret_view(pl.load(a, [0, 0], [8, 3]), pl.INT8, shape=[8, 8])", InvalidOperationError,
     "pl.reinterpret_view: shape [8, 8] of INT8 holds 64 bytes, the source 96"),
    ("pl.reinterpret_view(pl.cast(pl.load(i, [0, 0], [8, 3]), pl.INT8), pl.INT32)", InvalidOperationError,
     "pl.reinterpret_view: the last extent 3 of a INT8 tile is not a whole number of INT32 elements"),
    ("pl.reinterpret_view(t, pl.BOOL)", ParserTypeError, "a tile dtype must be FP32, FP16, BF16, INT64, INT32, INT16, INT8, UINT32, UINT16 or UINT8"),
    ("pl.full([1, 8], dtype=pl.INT32, value=pl.const(128, pl.INT8))", InvalidOperationError,
     "pl.const: 128 is out of range for INT8 (-128 to 127)"),
    ("pl.full([1, 8], dtype=pl.INT32, value=pl.const(1.5, pl.INT32))", ParserTypeError,
     "pl.const: float value 1.5 for a INT32 constant; pass an int"),
    ("pl.full([1, 8], dtype=pl.FP32, value=pl.const(70000, pl.FP16))", InvalidOperationError, "pl.const: 70000 is past the largest finite FP16"),
    ("pl.full([1, 8], dtype=pl.FP32, value=pl.const(1e39, pl.FP32))", InvalidOperationError, "pl.const: 1e+39 is past the largest finite FP32"),
    ("pl.full([1, 8], dtype=pl.INT32, value=pl.const(pl.read(k, [0, 0]), pl.INT32))", ParserTypeError, "pl.const value must be an int or float literal"),
])
def test_p5_create_errors(load, call, exc, want):
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
        mod.k(torch.zeros(64, 64), torch.zeros(64, 64, dtype=torch.int32), torch.zeros(8, 40), 2)
    assert e.value.message == want
