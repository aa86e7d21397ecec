"""The gather / scatter / sort family (docs/dsl.md, Operations): pl.gather,
pl.scatter, pl.sort32, pl.mrgsort at tile level (pl.<op> and pl.tile.<op>),
every dtype each accepts, against numpy (exact: elements move as bits), with
narrowed and empty valid regions, out-of-range indices (a task error naming
the index, nothing written), duplicate scatter indices (the last in row-major
order wins), NaN in sorts (ranked above every number), each error text, and
the printed program parsing back to itself (the rest of the family:
test_p5_gather_more.py)."""
import numpy as np
import pytest
import torch

import pypto.language as pl
from pypto.runtime import PTORuntimeError
from pypto.language.parser.diagnostics import InvalidOperationError, ParserTypeError, UnsupportedFeatureError

TORCH = {"FP32": torch.float32, "FP16": torch.float16, "BF16": torch.bfloat16, "INT32": torch.int32,
         "INT8": torch.int8, "INT16": torch.int16, "INT64": torch.int64}
DTYPES = list(TORCH)

SRC = """
@pl.jit
def gather(s: pl.Tensor, i: pl.Tensor, out: pl.Out[pl.Tensor], vr: pl.Scalar[pl.INDEX], vc: pl.Scalar[pl.INDEX]):
    with pl.at(level=pl.Level.CORE_GROUP):
        src = pl.load(s, [0, 0], [8, 16])
        idx = pl.load(i, [0, 0], [4, 24], valid_shape=[vr, vc])
        pl.store(pl.fillpad(pl.gather(src, idx, idx)), [0, 0], out)
    return out

@pl.jit
def gather_tile(s: pl.Tensor, i: pl.Tensor, out: pl.Out[pl.Tensor], sr: pl.Scalar[pl.INDEX]):
    with pl.at(level=pl.Level.CORE_GROUP):
        src = pl.load(s, [0, 0], [8, 16], valid_shape=[sr, 16])
        idx = pl.load(i, [0, 0], [4, 24])
        pl.store(pl.tile.gather(src, indices=idx, tmp=src), [0, 0], out)
    return out

@pl.jit
def scatter(d: pl.Tensor, s: pl.Tensor, i: pl.Tensor, out: pl.Out[pl.Tensor], dr: pl.Scalar[pl.INDEX],
            sr: pl.Scalar[pl.INDEX]):
    with pl.at(level=pl.Level.CORE_GROUP):
        dst = pl.load(d, [0, 0], [8, 16], valid_shape=[dr, 16])
        src = pl.load(s, [0, 0], [4, 8], valid_shape=[sr, 8])
        idx = pl.load(i, [0, 0], [4, 8])
        dst = pl.scatter(dst, src, idx)
        pl.store(pl.fillpad(dst), [0, 0], out)
    return out

@pl.jit
def scatter_tile(d: pl.Tensor, s: pl.Tensor, i: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(pl.tile.scatter(pl.load(d, [0, 0], [8, 16]), pl.load(s, [0, 0], [4, 8]), pl.load(i, [0, 0], [4, 8])),
                 [0, 0], out)
    return out

@pl.jit
def sort32(s: pl.Tensor, i: pl.Tensor, out: pl.Out[pl.Tensor], vr: pl.Scalar[pl.INDEX], vc: pl.Scalar[pl.INDEX]):
    with pl.at(level=pl.Level.CORE_GROUP):
        src = pl.load(s, [0, 0], [4, 64], valid_shape=[vr, vc])
        idx = pl.load(i, [0, 0], [4, 64])
        pl.store(pl.fillpad(pl.sort32(src, idx)), [0, 0], out)
    return out

@pl.jit
def sort_merge(s: pl.Tensor, i: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar[pl.INDEX]):
    with pl.at(level=pl.Level.CORE_GROUP):
        pairs = pl.tile.sort32(pl.load(s, [0, 0], [2, 256]), pl.load(i, [0, 0], [2, 256]))
        merged = pl.mrgsort(pairs, block_len=64)
        pl.store(pl.tile.mrgsort(merged, block_len=n), [0, 0], out)
    return out

@pl.jit
def sort_2048(s: pl.Tensor, i: pl.Tensor, out: pl.Out[pl.Tensor], step: pl.Scalar[pl.INDEX]):
    with pl.at(level=pl.Level.CORE_GROUP):
        pairs = pl.tile.sort32(pl.load(s, [0, 0], [1, 2048]), pl.load(i, [0, 0], [1, 2048]))
        for r, (acc, block_len) in pl.range(3, init_values=(pairs, 64)):  # block_len 64, 256, 1024: run time
            merged = pl.tile.mrgsort(acc, block_len=block_len)
            result, n = pl.yield_(merged, block_len * 4 + step)
        pl.store(result, [0, 0], out)
    return out
"""


@pytest.fixture(scope="module")
def M(tmp_path_factory):
    import importlib.util
    import sys
    path = tmp_path_factory.mktemp("p5g") / "p5_gather.py"
    path.write_text("import pypto.language as pl\n" + SRC)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = mod
    spec.loader.exec_module(mod)
    return mod


def _rand(dt, seed, shape):
    g = np.random.default_rng(seed)
    if dt.startswith("INT"):
        return torch.from_numpy(g.integers(-100, 100, shape).astype(np.int64)).to(TORCH[dt])
    return torch.from_numpy((g.integers(-80, 80, shape) / 8).astype(np.float32)).to(TORCH[dt])


def _bits(t):
    """t's elements as integers of their width (compared bit for bit)."""
    return t.view({1: torch.int8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[t.element_size()]).numpy()


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("vr, vc", [(4, 24), (3, 10), (0, 24)])
def test_gather_copies_src_flat_at_each_index_over_the_index_valid_region(M, dt, vr, vc):
    s = _rand(dt, 1, (8, 16))
    idt = torch.int16 if torch.empty(0, dtype=TORCH[dt]).element_size() == 2 else torch.int32
    i = torch.from_numpy(np.random.default_rng(2).integers(0, 128, (4, 24))).to(idt)
    out = torch.full((4, 24), 7, dtype=TORCH[dt])
    M.gather(s, i, out, vr, vc)
    want = _bits(s).reshape(-1)[i.long().numpy()]
    want[vr:] = 0
    want[:, vc:] = 0
    assert (_bits(out) == want).all()


def test_gather_reads_the_pad_outside_the_source_valid_region(M):
    s, i = _rand("FP32", 3, (8, 16)), torch.arange(0, 96, dtype=torch.int32).reshape(4, 24) + 16
    out = torch.zeros(4, 24)
    M.gather_tile(s, i, out, 5)  # rows 5.. of src read 0: flat indices 80..
    want = s.reshape(-1)[i.long()].numpy().copy()
    want[i.numpy() >= 80] = 0
    assert (out.numpy() == want).all()


@pytest.mark.parametrize("bad", [128, -1])
def test_gather_index_out_of_range_fails_the_task_and_writes_nothing(M, bad):
    s = _rand("FP32", 1, (8, 16))
    i = torch.zeros(4, 24, dtype=torch.int32)
    i[2, 5] = bad
    out = torch.full((4, 24), 7.0)
    with pytest.raises(PTORuntimeError) as e:
        M.gather(s, i, out, 4, 24)
    assert "pl.gather: index %d at [2, 5] is out of range [0, 128)" % bad in str(e.value)
    assert bool((out == 7).all())


def test_gather_index_just_inside_the_range_is_the_last_element(M):
    s = _rand("INT32", 1, (8, 16))
    i = torch.full((4, 24), 127, dtype=torch.int32)
    out = torch.zeros(4, 24, dtype=torch.int32)
    M.gather(s, i, out, 4, 24)
    assert bool((out == s[7, 15]).all())


def _scatter_ref(d, s, i, dr, sr):
    want = _bits(d).copy()
    want[dr:] = 0
    flat = want.reshape(-1)
    for r in range(sr):
        for c in range(8):
            flat[i[r, c]] = _bits(s)[r, c]
    return want


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("dr, sr", [(8, 4), (2, 3), (0, 0)])
def test_scatter_writes_src_at_each_flat_index_into_a_copy_of_dst(M, dt, dr, sr):
    d, s = _rand(dt, 4, (8, 16)), _rand(dt, 5, (4, 8))
    idt = torch.int32 if torch.empty(0, dtype=TORCH[dt]).element_size() >= 4 else torch.int16
    i = torch.from_numpy(np.random.default_rng(6).permutation(128)[:32].reshape(4, 8)).to(idt)
    out = torch.full((8, 16), 9, dtype=TORCH[dt])
    M.scatter(d, s, i, out, dr, sr)
    want = _scatter_ref(d, s, i.long().numpy(), dr, sr)
    assert (_bits(out) == want).all()


def test_scatter_duplicate_indices_the_last_in_row_major_order_wins(M):
    d, s = _rand("FP32", 4, (8, 16)), torch.arange(32, dtype=torch.float32).reshape(4, 8) + 1000
    i = torch.full((4, 8), 17, dtype=torch.int32)
    i[0, 0] = 3
    out = torch.zeros(8, 16)
    M.scatter_tile(d, s, i, out)
    want = d.clone()
    want[0, 3], want[1, 1] = 1000, 1031  # s[3, 7] is the last element written at flat index 17
    assert torch.equal(out, want)


def test_scatter_grows_the_valid_region_to_hold_the_written_elements(M):
    d, s = _rand("INT32", 4, (8, 16)), _rand("INT32", 5, (4, 8))
    i = torch.zeros(4, 8, dtype=torch.int32)
    i[0, 0] = 5 * 16 + 2  # row 5 of a dst valid over 2 rows: rows 2..5 become valid, unwritten ones 0
    out = torch.full((8, 16), 9, dtype=torch.int32)
    M.scatter(d, s, i, out, 2, 1)
    want = _scatter_ref(d, s, i.numpy(), 2, 1)
    assert (out.numpy() == want).all()


def test_scatter_index_out_of_range_fails_the_task_and_writes_nothing(M):
    d, s = _rand("FP32", 4, (8, 16)), _rand("FP32", 5, (4, 8))
    i = torch.zeros(4, 8, dtype=torch.int32)
    i[3, 7] = 128
    out = torch.full((8, 16), 9.0)
    with pytest.raises(PTORuntimeError) as e:
        M.scatter(d, s, i, out, 8, 4)
    assert "pl.scatter: index 128 at [3, 7] is out of range [0, 128)" in str(e.value)
    assert bool((out == 9).all())


def _rank_order(v):
    """Positions of v in descending order, NaN first, ties by position (stable)."""
    return sorted(range(len(v)), key=lambda k: (0 if np.isnan(v[k]) else 1, 0 if np.isnan(v[k]) else -v[k], k))


def _sort32_ref(s, i, vr, vc):
    want = np.zeros((4, 128), dtype=np.int32)
    for r in range(vr):
        for b in range(0, vc, 32):
            n = min(32, vc - b)
            for k, p in enumerate(_rank_order(s[r, b:b + n])):
                want[r, 2 * (b + k)] = s[r, b + p:b + p + 1].view(np.int32)[0]
                want[r, 2 * (b + k) + 1] = i[r, b + p]
    return want


@pytest.mark.parametrize("vr, vc", [(4, 64), (3, 40), (4, 0), (0, 64)])
def test_sort32_sorts_each_32_block_descending_into_value_index_pairs(M, vr, vc):
    s = _rand("FP32", 7, (4, 64))
    s[1, 3], s[1, 9], s[2, 40] = float("nan"), float("nan"), float("inf")
    s[0, :8] = 1.5  # ties keep their order
    i = torch.arange(256, dtype=torch.int32).reshape(4, 64) * 3
    out = torch.full((4, 128), 5.0)
    M.sort32(s, i, out, vr, vc)
    assert (_bits(out) == _sort32_ref(s.numpy(), i.numpy(), vr, vc)).all()


@pytest.mark.parametrize("n", [256])
def test_mrgsort_merges_four_runs_at_a_time_into_one_descending_order(M, n):
    s = _rand("FP32", 8, (2, 256))
    s[0, 100], s[1, 7] = float("nan"), 2.0
    s[1, 200] = 2.0  # a tie across runs: the earlier run's first
    i = torch.arange(512, dtype=torch.int32).reshape(2, 256)
    out = torch.zeros(2, 512)
    M.sort_merge(s, i, out, n)
    v = out.numpy()[:, 0::2]
    got_idx = _bits(out)[:, 1::2]
    for r in range(2):
        order = _rank_order(s.numpy()[r])  # one stable descending order of the whole row
        assert (got_idx[r] == i.numpy()[r][order]).all()
        assert (_bits(torch.from_numpy(v[r].copy())) == _bits(s[r][order])).all()


def test_mrgsort_one_run_per_row_leaves_the_row_as_it_is(M):
    s, i = _rand("FP32", 8, (2, 256)), torch.arange(512, dtype=torch.int32).reshape(2, 256)
    full, once = torch.zeros(2, 512), torch.zeros(2, 512)
    M.sort_merge(s, i, full, 256)
    M.sort_merge(s, i, once, 512)  # the second merge sees one 512-column run: a copy
    assert not torch.equal(full, once)
    v = once.numpy()[:, 0::2]
    assert all((np.diff(v[r, g:g + 128]) <= 0).all() for r in range(2) for g in (0, 128))


def test_mrgsort_block_len_of_a_specialized_scalar_is_checked_at_compile_time(M):
    s, i = _rand("FP32", 8, (2, 256)), torch.zeros(2, 256, dtype=torch.int32)
    with pytest.raises(InvalidOperationError) as e:
        M.sort_merge(s, i, torch.zeros(2, 512), 96)
    assert e.value.message == "pl.mrgsort: block_len 96 is not a positive multiple of 64"


def test_gather_scatter_sort_print_back_to_the_same_program(M):
    s, i, out = _rand("FP32", 1, (8, 16)), torch.zeros(4, 24, dtype=torch.int32), torch.zeros(4, 24)
    text = M.gather.lower(s, i, out, 4, 24)
    assert "pl.gather(src, idx, idx)" in text
    assert pl.parse_program(text).lower(s, i, out, 4, 24) == text
    args = (_rand("FP32", 8, (2, 256)), torch.zeros(2, 256, dtype=torch.int32), torch.zeros(2, 512), 256)
    text = M.sort_merge.lower(*args)
    assert "pl.mrgsort(pairs, block_len=64)" in text and "pl.sort32(" in text
    assert pl.parse_program(text).lower(*args) == text


@pytest.mark.parametrize("call, exc, want", [
    ("pl.gather(t, t, t)", ParserTypeError, "pl.gather: indices must be INT32 (INT16 with a 2-byte source), got FP32"),
    ("pl.gather(t, pl.cast(k, pl.INT16), t)", ParserTypeError,
     "pl.gather: indices must be INT32 (INT16 with a 2-byte source), got INT16"),
    ("pl.gather(t, k)", ParserTypeError, "pl.gather() missing required argument 'tmp'"),
    ("pl.gather(pl.cast(t, pl.BOOL), k, t)", ParserTypeError, "pl.gather does not accept BOOL tiles; cast first"),
    ("pl.scatter(t, k, k)", ParserTypeError, "pl.scatter: operand dtypes FP32 and INT32 differ; insert pl.cast"),
    ("pl.scatter(t, t, pl.cast(k, pl.INT16))", ParserTypeError,
     "pl.scatter: indexes must be INT32 for a 4- or 8-byte destination, got INT16"),
    ("pl.scatter(pl.cast(t, pl.FP16), pl.cast(t, pl.FP16), k)", ParserTypeError,
     "pl.scatter: indexes must be INT16 for a 1- or 2-byte destination, got INT32"),
    ("pl.scatter(t, t, pl.load(i, [0, 0], [8, 8]))", InvalidOperationError,
     "pl.scatter: indexes [8, 8] and src [8, 64] differ in shape"),
    ("pl.sort32(k, k)", ParserTypeError, "pl.sort32 sorts FP32 or FP16 values, got INT32; pl.cast first"),
    ("pl.sort32(pl.cast(t, pl.BF16), k)", ParserTypeError, "pl.sort32 sorts FP32 or FP16 values, got BF16; pl.cast first"),
    ("pl.sort32(pl.cast(t, pl.FP16), k)", ParserTypeError, "pl.sort32: idx must be INT16 for FP16 values, got INT32"),
    ("pl.sort32(t, t)", ParserTypeError, "pl.sort32: idx must be INT32 for FP32 values, got FP32"),
    ("pl.sort32(t, pl.load(i, [0, 0], [8, 32]))", InvalidOperationError, "pl.sort32: src [8, 64] and idx [8, 32] differ in shape"),
    ("pl.sort32(pl.load(a, [0, 0], [8, 40]), pl.load(i, [0, 0], [8, 40]))", InvalidOperationError,
     "pl.sort32: src has 40 columns, not a multiple of 32"),
    ("pl.sort32(pl.reshape(t, [1, 8, 64]), k)", ParserTypeError, "pl.sort32: src must be a rank-2 tile, got pl.Tile[[1, 8, 64], pl.FP32]"),
    ("pl.mrgsort(t, block_len=96)", InvalidOperationError, "pl.mrgsort: block_len 96 is not a positive multiple of 64"),
    ("pl.mrgsort(t, block_len=0)", InvalidOperationError, "pl.mrgsort: block_len 0 is not a positive multiple of 64"),
    ("pl.mrgsort(t, block_len=1.5)", ParserTypeError, "pl.mrgsort: block_len must be an integer scalar, got pl.Scalar[pl.FP32]"),
    ("pl.mrgsort(k, block_len=64)", ParserTypeError, "pl.mrgsort sorts FP32 or FP16 values, got INT32; pl.cast first"),
    ("pl.mrgsort(pl.load(a, [0, 0], [8, 63]), block_len=64)", InvalidOperationError,
     "pl.mrgsort: src0 has 63 columns, not whole (value, index) pairs"),
])
def test_gather_scatter_sort_errors(load, call, exc, want):
    mod, _ = load("""
        @pl.jit
        def k(a: pl.Tensor, i: pl.Tensor, out: pl.Out[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(a, [0, 0], [8, 64])
                k = pl.load(i, [0, 0], [8, 64])
                pl.store(%s, [0, 0], out)
            return out
        """ % call)
    with pytest.raises(exc) as e:
        mod.k(torch.zeros(8, 64), torch.zeros(8, 64, dtype=torch.int32), torch.zeros(8, 64))
    assert e.value.message == want


@pytest.mark.parametrize("kernel, op", [("scatter", "scatter"), ("sort32", "sort32"), ("sort_merge", "sort32")])
def test_torch_codegen_has_no_translation_of_the_family(M, kernel, op):
    from pypto.debug import torch_codegen
    args = {"scatter": (torch.zeros(8, 16), torch.zeros(4, 8), torch.zeros(4, 8, dtype=torch.int32), torch.zeros(8, 16), 8, 4),
            "sort32": (torch.zeros(4, 64), torch.zeros(4, 64, dtype=torch.int32), torch.zeros(4, 128), 4, 64),
            "sort_merge": (torch.zeros(2, 256), torch.zeros(2, 256, dtype=torch.int32), torch.zeros(2, 512), 256)}[kernel]
    with pytest.raises(UnsupportedFeatureError) as e:
        torch_codegen(getattr(M, kernel).lower(*args))
    assert e.value.message == "torch_codegen: '%s' has no torch translation in this version" % op


@pytest.mark.parametrize("sr", [8, 5])
def test_torch_codegen_translates_gather_as_the_tile_vm_computes_it(M, sr):
    from pypto.debug import torch_codegen
    s = _rand("FP32", 3, (8, 16))
    i = torch.from_numpy(np.random.default_rng(4).integers(0, 128, (4, 24))).to(torch.int32)
    want, got = torch.zeros(4, 24), torch.zeros(4, 24)
    M.gather_tile(s, i, want, sr)
    ns = {}
    exec(torch_codegen(M.gather_tile.lower(s, i, got, sr)), ns)
    ns["gather_tile"](s, i, got, sr)
    assert torch.equal(got, want)


def test_sort32_then_three_mrgsorts_with_a_run_time_block_len_sort_2048_values(M):
    s = torch.from_numpy(np.random.default_rng(9).integers(-50, 50, (1, 2048)).astype(np.float32) / 4)  # many ties
    s[0, 77] = float("nan")
    i = torch.arange(2048, dtype=torch.int32).reshape(1, 2048)
    out = torch.zeros(1, 4096)
    M.sort_2048(s, i, out, 0)
    order = _rank_order(s.numpy()[0])
    assert (_bits(out)[0, 1::2] == np.array(order)).all()
    assert (_bits(out)[0, 0::2] == _bits(s[0])[order]).all()


def test_mrgsort_run_time_block_len_not_a_multiple_of_64_fails_the_task(M):
    s, i = _rand("FP32", 8, (1, 2048)), torch.zeros(1, 2048, dtype=torch.int32)
    with pytest.raises(PTORuntimeError) as e:
        M.sort_2048(s, i, torch.zeros(1, 4096), 32)  # 64, then 288
    assert "pl.mrgsort: block_len 288 is not a positive multiple of 64" in str(e.value)
