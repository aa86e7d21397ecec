"""The rest of the gather / scatter / sort family (docs/dsl.md, Operations):
the per-row pl.tensor.gather / pl.tensor.scatter (dim=-1, also pl.gather /
pl.scatter written with dim=), pl.scatter_update (rank 2 and 4, tile and
tensor level), pl.gatherb (32-byte blocks by byte offset), pl.mgather (rows or
elements of a whole tensor, with its out-of-range policies), pl.gather_row and
pl.mscatter (a load into / a scatter through a tensor), FP16 values in
pl.sort32 / pl.mrgsort, and pl.mrgsort's 2- to 4-tile merge, against
numpy/torch (bit-exact), with narrowed and empty valid regions, indices out
of range (a task error naming it, nothing written), duplicate indices (the
last in row-major order wins), each error text, and the printed programs
parsing back to themselves."""
import numpy as np
import pytest
import torch

import pypto.language as pl
from pypto.runtime import PTORuntimeError
from pypto.language.parser.diagnostics import (InvalidOperationError, ParserSyntaxError, ParserTypeError, UndefinedVariableError,
                                               UnsupportedFeatureError)

TORCH = {"FP32": torch.float32, "FP16": torch.float16, "BF16": torch.bfloat16, "INT32": torch.int32,
         "INT8": torch.int8, "INT16": torch.int16, "INT64": torch.int64}
DTYPES = list(TORCH)

SRC = """
@pl.jit
def gather_dim(s: pl.Tensor, i: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(pl.tensor.gather(s, -1, i), [0, 0], out)
    return out

@pl.jit
def gather_dim_tile(s: pl.Tensor, i: pl.Tensor, out: pl.Out[pl.Tensor], vr: pl.Scalar[pl.INDEX], vc: pl.Scalar[pl.INDEX]):
    with pl.at(level=pl.Level.CORE_GROUP):
        src = pl.load(s, [0, 0], [4, 16])
        idx = pl.load(i, [0, 0], [4, 8], valid_shape=[vr, vc])
        pl.store(pl.fillpad(pl.gather(src, dim=-1, index=idx)), [0, 0], out)
    return out

@pl.jit
def scatter_dim(d: pl.Tensor, s: pl.Tensor, i: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(pl.tensor.scatter(d, -1, i, s), [0, 0], out)
    return out

@pl.jit
def scatter_dim_tile(d: pl.Tensor, s: pl.Tensor, i: pl.Tensor, out: pl.Out[pl.Tensor], dc: pl.Scalar[pl.INDEX],
                     sr: pl.Scalar[pl.INDEX]):
    with pl.at(level=pl.Level.CORE_GROUP):
        dst = pl.load(d, [0, 0], [4, 16], valid_shape=[4, dc])
        src = pl.load(s, [0, 0], [4, 8], valid_shape=[sr, 8])
        dst = pl.scatter(dst, dim=-1, index=pl.load(i, [0, 0], [4, 8]), src=src)
        pl.store(pl.fillpad(dst), [0, 0], out)
    return out

@pl.jit
def scatter_update(d: pl.Tensor, i: pl.Tensor, s: pl.Tensor, out: pl.Out[pl.Tensor], dr: pl.Scalar[pl.INDEX],
                   ic: pl.Scalar[pl.INDEX]):
    with pl.at(level=pl.Level.CORE_GROUP):
        dst = pl.load(d, [0, 0], [8, 16], valid_shape=[dr, 16])
        idx = pl.load(i, [0, 0], [2, 3], valid_shape=[2, ic])
        pl.store(pl.fillpad(pl.scatter_update(dst, dim=-2, index=idx, src=pl.load(s, [0, 0], [6, 16]))), [0, 0], out)
    return out

@pl.jit
def scatter_update_tensor(d: pl.Tensor, i: pl.Tensor, s: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(pl.tensor.scatter_update(d, i, s, dim=-2), [0, 0, 0, 0], out)  # upstream's order
    return out

@pl.jit
def gatherb(s: pl.Tensor, o: pl.Tensor, out: pl.Out[pl.Tensor], vr: pl.Scalar[pl.INDEX]):
    with pl.at(level=pl.Level.CORE_GROUP):
        off = pl.load(o, [0, 0], [4, 2], valid_shape=[vr, 2])
        pl.store(pl.fillpad(pl.gatherb(pl.load(s, [0, 0], [4, 64]), off)), [0, 0], out)
    return out

@pl.jit
def gatherb_as(s: pl.Tensor, o: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(pl.tile.gatherb(pl.load(s, [0, 0], [4, 64]), pl.load(o, [0, 0], [4, 2]), output_dtype=pl.FP16), [0, 0], out)
    return out

@pl.jit
def sort_fp16(s: pl.Tensor, i: pl.Tensor, out: pl.Out[pl.Tensor], vc: pl.Scalar[pl.INDEX], n: pl.Scalar[pl.INDEX]):
    with pl.at(level=pl.Level.CORE_GROUP):
        pairs = pl.sort32(pl.load(s, [0, 0], [2, 256], valid_shape=[2, vc]), pl.load(i, [0, 0], [2, 256]))
        merged = pl.mrgsort(pairs, block_len=64)
        pl.store(pl.mrgsort(merged, block_len=n), [0, 0], out)
    return out

@pl.jit
def sort_tensor(s: pl.Tensor, i: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(pl.tensor.mrgsort(pl.tensor.sort32(s, i), block_len=64), [0, 0], out)
    return out

@pl.jit
def merge(s: pl.Tensor, i: pl.Tensor, out: pl.Out[pl.Tensor], v1: pl.Scalar[pl.INDEX]):
    with pl.at(level=pl.Level.CORE_GROUP):
        a = pl.sort32(pl.load(s, [0, 0], [2, 32]), pl.load(i, [0, 0], [2, 32]))
        b = pl.sort32(pl.load(s, [0, 32], [2, 32], valid_shape=[2, v1]), pl.load(i, [0, 32], [2, 32]))
        c = pl.sort32(pl.load(s, [0, 64], [2, 32]), pl.load(i, [0, 64], [2, 32]))
        d = pl.sort32(pl.load(s, [0, 96], [2, 32]), pl.load(i, [0, 96], [2, 32]))
        t = pl.create_tile([2, 288], dtype=pl.FP32)
        two = pl.mrgsort(a, b, tmp=t)
        three = pl.tile.mrgsort(a, b, c, tmp=t, exhausted=False)
        four = pl.mrgsort(a, b, c, d, t, True)
        pl.store(pl.fillpad(two), [0, 0], out)
        pl.store(pl.fillpad(three), [2, 0], out)
        pl.store(pl.fillpad(four), [4, 0], out)
    return out

@pl.jit
def merge_fp16(s: pl.Tensor, i: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        a = pl.sort32(pl.load(s, [0, 0], [1, 32]), pl.load(i, [0, 0], [1, 32]))
        b = pl.sort32(pl.load(s, [0, 32], [1, 32]), pl.load(i, [0, 32], [1, 32]))
        pl.store(pl.mrgsort(a, b, tmp=pl.create_tile([1, 128], dtype=pl.FP16)), [0, 0], out)
    return out

@pl.jit
def mgather(m: pl.Tensor, i: pl.Tensor, j: pl.Tensor, rows: pl.Out[pl.Tensor], elems: pl.Out[pl.Tensor], vr: pl.Scalar[pl.INDEX]):
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(pl.fillpad(pl.mgather(m, pl.load(i, [0, 0], [4, 1], valid_shape=[vr, 1]))), [0, 0], rows)
        pl.store(pl.mgather(m, pl.load(j, [0, 0], [2, 8]), coalesce="elem"), [0, 0], elems)
    return rows

@pl.jit
def mgather_oob(m: pl.Tensor, i: pl.Tensor, j: pl.Tensor, rows: pl.Out[pl.Tensor], clamp: pl.Out[pl.Tensor],
                wrap: pl.Out[pl.Tensor], zero: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(pl.tile.mgather(m, pl.load(i, [0, 0], [1, 4]), "row", gather_oob="zero"), [0, 0], rows)
        idx = pl.load(j, [0, 0], [2, 8])
        pl.store(pl.mgather(m, idx, coalesce=1, gather_oob=1), [0, 0], clamp)
        pl.store(pl.mgather(m, idx, coalesce="elem", gather_oob="wrap"), [0, 0], wrap)
        pl.store(pl.mgather(m, idx, coalesce="elem", gather_oob="zero"), [0, 0], zero)
    return rows

@pl.jit
def gather_row(p: pl.Tensor, out: pl.Out[pl.Tensor], r: pl.Scalar[pl.INDEX], n: pl.Scalar[pl.INDEX]):
    with pl.at(level=pl.Level.CORE_GROUP):
        acc = pl.full([4, 16], dtype=pl.FP32, value=-1.0)
        for k in pl.range(4):
            acc = pl.gather_row(acc, p, [k, 0], [k * 2 + r, 0], [1, 16], valid_shape=[1, n])
        pl.store(acc, [0, 0], out)
    return out

@pl.jit
def gather_row_t(p: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        acc = pl.create_tile([16, 4], dtype=pl.FP32)
        for k in pl.range(4):
            acc = pl.tile.gather_row(acc, p, [0, k], [9 - k, 0], [1, 16], True)
        pl.store(acc, [0, 0], out)
    return out

@pl.jit
def mscatter(s: pl.Tensor, i: pl.Tensor, out: pl.InOut[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out = pl.mscatter(pl.load(s, [0, 0], [2, 4]), pl.load(i, [0, 0], [2, 4]), out)
    return out

@pl.jit
def paged(p: pl.Tensor, i: pl.Tensor, bt: pl.Tensor, out: pl.Out[pl.Tensor], o2: pl.Out[pl.Tensor], n: pl.Scalar[pl.INDEX]):
    with pl.at(level=pl.Level.CORE_GROUP):
        idx = pl.load(i, [0, 0], [1, 6], valid_shape=[1, n])
        pl.store(pl.fillpad(pl.paged_gather(p, idx, bt, 4, 4, 8, col_off=2, space=pl.Mem.Vec)), [0, 0], out)
        pl.store(pl.fillpad(pl.tensor.paged_gather(p, i, bt, block_size=4, size=4, max_indices=8, is_trans=True)), [0, 0], o2)
    return out

@pl.jit
def merge_odd(s: pl.Tensor, out: pl.Out[pl.Tensor], v: pl.Scalar[pl.INDEX]):
    with pl.at(level=pl.Level.CORE_GROUP):
        a = pl.load(s, [0, 0], [1, 64], valid_shape=[1, v])
        pl.store(pl.mrgsort(a, a, tmp=pl.create_tile([1, 128], dtype=pl.FP32)), [0, 0], out)
    return out
"""


@pytest.fixture(scope="module")
def M(tmp_path_factory):
    import importlib.util
    import sys
    path = tmp_path_factory.mktemp("p5gm") / "p5_gather_more.py"
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


def _idx_dtype(dt):
    return torch.int16 if torch.empty(0, dtype=TORCH[dt]).element_size() <= 2 else torch.int32


# ---- pl.tensor.gather (dim=-1) ---------------------------------------------------------------------

@pytest.mark.parametrize("dt", DTYPES)
def test_tensor_gather_reads_each_row_at_its_index_columns_like_torch_gather(M, dt):
    s = _rand(dt, 1, (4, 16))
    i = torch.from_numpy(np.random.default_rng(2).integers(0, 16, (4, 8))).to(_idx_dtype(dt) if dt in ("FP16", "INT16", "BF16") else torch.int32)
    out = torch.zeros(4, 8, dtype=TORCH[dt])
    M.gather_dim(s, i, out)
    assert (_bits(out) == _bits(torch.gather(s, 1, i.long()))).all()


@pytest.mark.parametrize("vr, vc", [(4, 8), (3, 5), (0, 8), (4, 0)])
def test_gather_with_dim_is_the_per_row_form_over_the_index_valid_region(M, vr, vc):
    s, i = _rand("INT32", 3, (4, 16)), torch.from_numpy(np.random.default_rng(4).integers(0, 16, (4, 8))).to(torch.int32)
    out = torch.full((4, 8), 7, dtype=torch.int32)
    M.gather_dim_tile(s, i, out, vr, vc)
    want = torch.gather(s, 1, i.long()).numpy().copy()
    want[vr:], want[:, vc:] = 0, 0
    assert (out.numpy() == want).all()


@pytest.mark.parametrize("bad", [16, -1])
def test_tensor_gather_index_out_of_range_fails_the_task_and_writes_nothing(M, bad):
    s, i = _rand("FP32", 1, (4, 16)), torch.zeros(4, 8, dtype=torch.int32)
    i[1, 6] = bad
    out = torch.full((4, 8), 7.0)
    with pytest.raises(PTORuntimeError) as e:
        M.gather_dim(s, i, out)
    assert "pl.tensor.gather: index %d at [1, 6] is out of range [0, 16)" % bad in str(e.value)
    assert bool((out == 7).all())


# ---- pl.tensor.scatter (dim=-1) --------------------------------------------------------------------

@pytest.mark.parametrize("dt", DTYPES)
def test_tensor_scatter_writes_each_row_at_its_index_columns_like_torch_scatter(M, dt):
    d, s = _rand(dt, 4, (4, 16)), _rand(dt, 5, (4, 8))
    g = np.random.default_rng(6)
    i = torch.from_numpy(np.stack([g.permutation(16)[:8] for _ in range(4)])).to(_idx_dtype(dt))
    out = torch.zeros(4, 16, dtype=TORCH[dt])
    M.scatter_dim(d, s, i, out)
    assert (_bits(out) == _bits(d.clone().scatter_(1, i.long(), s))).all()


def test_tensor_scatter_duplicate_indices_the_last_in_row_major_order_wins(M):
    d, s = _rand("FP32", 4, (4, 16)), torch.arange(32, dtype=torch.float32).reshape(4, 8) + 100
    i = torch.full((4, 8), 3, dtype=torch.int32)
    out = torch.zeros(4, 16)
    M.scatter_dim(d, s, i, out)
    want = d.clone()
    want[:, 3] = s[:, 7]  # per row, the last column written at column 3
    assert torch.equal(out, want)


@pytest.mark.parametrize("dc, sr", [(16, 4), (4, 2), (4, 0)])
def test_tensor_scatter_grows_the_valid_region_to_hold_the_written_columns(M, dc, sr):
    d, s = _rand("INT32", 4, (4, 16)), _rand("INT32", 5, (4, 8))
    i = torch.from_numpy(np.tile(np.arange(8) + 5, (4, 1))).to(torch.int32)  # columns 5..12
    out = torch.full((4, 16), 9, dtype=torch.int32)
    M.scatter_dim_tile(d, s, i, out, dc, sr)
    want = d.numpy().copy()
    want[:, dc:] = 0
    want[:sr, 5:13] = s.numpy()[:sr]
    assert (out.numpy() == want).all()


def test_tensor_scatter_index_out_of_range_fails_the_task_and_writes_nothing(M):
    d, s, i = _rand("FP32", 4, (4, 16)), _rand("FP32", 5, (4, 8)), torch.zeros(4, 8, dtype=torch.int32)
    i[3, 0] = 16
    out = torch.full((4, 16), 9.0)
    with pytest.raises(PTORuntimeError) as e:
        M.scatter_dim(d, s, i, out)
    assert "pl.tensor.scatter: index 16 at [3, 0] is out of range [0, 16)" in str(e.value)
    assert bool((out == 9).all())


# ---- pl.scatter_update -----------------------------------------------------------------------------

def _update_ref(d, i, s, dr, ic):
    want = d.numpy().copy()
    want[dr:] = 0
    for r in range(2):
        for c in range(ic):
            want[i[r, c]] = s.numpy()[r * 3 + c]
    return want


@pytest.mark.parametrize("dr, ic", [(8, 3), (2, 2), (0, 3), (8, 0)])
def test_scatter_update_writes_src_row_i_s_plus_j_into_input_row_index_i_j(M, dr, ic):
    d, s = _rand("FP32", 7, (8, 16)), _rand("FP32", 8, (6, 16))
    i = torch.tensor([[5, 0, 7], [2, 6, 1]], dtype=torch.int32)
    out = torch.full((8, 16), 3.0)
    M.scatter_update(d, i, s, out, dr, ic)
    assert (out.numpy() == _update_ref(d, i.numpy(), s, dr, ic)).all()


def test_scatter_update_duplicate_rows_the_last_in_row_major_order_wins(M):
    d, s = _rand("INT32", 7, (8, 16)), _rand("INT32", 8, (6, 16))
    i = torch.tensor([[4, 4, 1], [4, 1, 6]], dtype=torch.int32)
    out = torch.zeros(8, 16, dtype=torch.int32)
    M.scatter_update(d, i, s, out, 8, 3)
    want = d.numpy().copy()
    want[4], want[1], want[6] = s.numpy()[3], s.numpy()[4], s.numpy()[5]
    assert (out.numpy() == want).all()


def test_scatter_update_index_out_of_range_fails_the_task_and_writes_nothing(M):
    d, s, i = _rand("FP32", 7, (8, 16)), _rand("FP32", 8, (6, 16)), torch.tensor([[0, 1, 2], [3, 8, 5]], dtype=torch.int32)
    out = torch.full((8, 16), 3.0)
    with pytest.raises(PTORuntimeError) as e:
        M.scatter_update(d, i, s, out, 8, 3)
    assert "pl.scatter_update: index 8 at [1, 1] is out of range [0, 8)" in str(e.value)
    assert bool((out == 3).all())


@pytest.mark.parametrize("dt", ["FP16", "INT8", "INT64"])
def test_scatter_update_rank_4_reads_the_input_as_block_times_size_rows(M, dt):
    d, s = _rand(dt, 9, (2, 4, 1, 16)), _rand(dt, 10, (2, 3, 1, 16))
    i = torch.tensor([[7, 0, 3], [4, 2, 7]], dtype=torch.int32)  # row 7 twice: src row 5 wins
    out = torch.zeros(2, 4, 1, 16, dtype=TORCH[dt])
    M.scatter_update_tensor(d, i, s, out)
    want = _bits(d).reshape(8, 16).copy()
    for k, r in enumerate(i.reshape(-1).tolist()):
        want[r] = _bits(s).reshape(6, 16)[k]
    assert (_bits(out).reshape(8, 16) == want).all()


# ---- pl.gatherb ------------------------------------------------------------------------------------

def _gatherb_ref(s, o, vr, out_dt):
    raw = _bits(s).reshape(-1).view(np.uint8)
    blocks = [[raw[o[r, c]:o[r, c] + 32] for c in range(2)] for r in range(4)]
    want = np.stack([np.concatenate(row) for row in blocks])
    want[vr:] = 0
    return want.view({torch.float32: np.int32, torch.float16: np.int16}[out_dt])


@pytest.mark.parametrize("vr", [4, 1, 0])
def test_gatherb_copies_the_32_byte_block_at_each_byte_offset(M, vr):
    s = _rand("FP32", 11, (4, 64))
    o = torch.tensor([[0, 992], [32, 64], [512, 0], [96, 96]], dtype=torch.int32)  # 992: the last block of 1024 bytes
    out = torch.full((4, 16), 5.0)
    M.gatherb(s, o, out, vr)
    assert (_bits(out) == _gatherb_ref(s, o.numpy(), vr, torch.float32)).all()


def test_gatherb_output_dtype_reads_the_blocks_as_that_dtype(M):
    s, o = _rand("FP32", 12, (4, 64)), torch.tensor([[0, 32], [64, 96], [128, 160], [992, 0]], dtype=torch.int32)
    out = torch.zeros(4, 32, dtype=torch.float16)  # 16 FP16 elements a block
    M.gatherb_as(s, o, out)
    assert (_bits(out) == _gatherb_ref(s, o.numpy(), 4, torch.float16)).all()


@pytest.mark.parametrize("bad, want", [
    (1024, "pl.gatherb: offset 1024 at [2, 1] is out of range [0, 993)"),
    (-32, "pl.gatherb: offset -32 at [2, 1] is out of range [0, 993)"),
    (40, "pl.gatherb: offset 40 at [2, 1] is not a multiple of 32 bytes"),
])
def test_gatherb_offset_out_of_range_or_unaligned_fails_the_task_and_writes_nothing(M, bad, want):
    s, o = _rand("FP32", 11, (4, 64)), torch.zeros(4, 2, dtype=torch.int32)
    o[2, 1] = bad
    out = torch.full((4, 16), 5.0)
    with pytest.raises(PTORuntimeError) as e:
        M.gatherb(s, o, out, 4)
    assert want in str(e.value)
    assert bool((out == 5).all())


# ---- pl.mgather, pl.gather_row, pl.mscatter --------------------------------------------------------

@pytest.mark.parametrize("vr", [4, 2, 0])
def test_mgather_gathers_rows_by_a_column_index_and_elements_by_flat_index(M, vr):
    m = _rand("FP32", 17, (8, 16))
    i, j = torch.tensor([[3], [0], [7], [3]], dtype=torch.int32), torch.from_numpy(np.random.default_rng(18).integers(0, 128, (2, 8))).to(torch.int32)
    rows, elems = torch.full((4, 16), 9.0), torch.zeros(2, 8)
    M.mgather(m, i, j, rows, elems, vr)
    want = m[i[:, 0].long()].clone()
    want[vr:] = 0
    assert torch.equal(rows, want) and torch.equal(elems, m.reshape(-1)[j.long()])


def test_mgather_out_of_range_policies_clamp_wrap_and_zero(M):
    m = _rand("INT32", 19, (8, 16))
    i = torch.tensor([[2, 8, -1, 5]], dtype=torch.int32)  # a row vector: rows 8 and -1 read 0
    j = torch.tensor([[0, 127, 128, -1, 300, -129, 5, 64]] * 2, dtype=torch.int32)
    outs = [torch.full((4, 16), 7, dtype=torch.int32)] + [torch.zeros(2, 8, dtype=torch.int32) for _ in range(3)]
    M.mgather_oob(m, i, j, *outs)
    want_rows = torch.zeros(4, 16, dtype=torch.int32)
    want_rows[0], want_rows[3] = m[2], m[5]
    flat, jl = m.reshape(-1), j.long()
    assert torch.equal(outs[0], want_rows)
    assert torch.equal(outs[1], flat[jl.clamp(0, 127)])
    assert torch.equal(outs[2], flat[jl % 128])
    assert torch.equal(outs[3], torch.where((jl >= 0) & (jl < 128), flat[jl.clamp(0, 127)], 0))


@pytest.mark.parametrize("bad, where", [(8, "[2, 0]"), (-1, "[2, 0]")])
def test_mgather_undefined_policy_fails_the_task_on_an_index_out_of_range(M, bad, where):
    m, i, j = _rand("FP32", 17, (8, 16)), torch.tensor([[3], [0], [bad], [3]], dtype=torch.int32), torch.zeros(2, 8, dtype=torch.int32)
    rows = torch.full((4, 16), 9.0)
    with pytest.raises(PTORuntimeError) as e:
        M.mgather(m, i, j, rows, torch.zeros(2, 8), 4)
    assert "pl.mgather: index %d at %s is out of range [0, 8)" % (bad, where) in str(e.value)
    assert bool((rows == 9).all())


@pytest.mark.parametrize("r, n", [(1, 16), (0, 5), (2, 0)])
def test_gather_row_loads_a_tensor_row_window_into_the_accumulator_at_its_offset(M, r, n):
    p, out = _rand("FP32", 20, (10, 16)), torch.zeros(4, 16)
    M.gather_row(p, out, r, n)
    want = p[[r, r + 2, r + 4, r + 6]].clone()
    want[:, n:] = 0  # outside valid_shape the loaded row holds the pad, which the write carries
    assert torch.equal(out, want)


def test_gather_row_transpose_places_each_row_as_a_column(M):
    p, out = _rand("FP32", 21, (10, 16)), torch.zeros(16, 4)
    M.gather_row_t(p, out)
    assert torch.equal(out, p[[9, 8, 7, 6]].T)


def test_mscatter_writes_src_into_the_tensor_at_flat_indices_the_last_duplicate_winning(M):
    s = torch.arange(8, dtype=torch.float32).reshape(2, 4) + 100
    i = torch.tensor([[0, 5, 9, 63], [1, 5, 5, 40]], dtype=torch.int32)
    out = _rand("FP32", 22, (8, 8))
    want = out.clone().reshape(-1)
    for k, v in zip(i.reshape(-1).tolist(), s.reshape(-1).tolist()):
        want[k] = v
    M.mscatter(s, i, out)
    assert torch.equal(out.reshape(-1), want)


def test_mscatter_index_out_of_range_fails_the_task_and_writes_nothing(M):
    s, i, out = torch.zeros(2, 4), torch.tensor([[0, 1, 2, 64], [0, 0, 0, 0]], dtype=torch.int32), torch.full((8, 8), 3.0)
    with pytest.raises(PTORuntimeError) as e:
        M.mscatter(s, i, out)
    assert "pl.scatter: index 64 at [0, 3] is out of range [0, 64)" in str(e.value)
    assert bool((out == 3).all())


def _paged_ref(p, i, bt, n, off, size, trans):
    phys = [int(bt.reshape(-1)[v // 4]) * 4 + v % 4 for v in i.reshape(-1).tolist()[:n]]
    w = torch.zeros(8, size)
    w[:n] = p[phys, off:off + size]
    return w.T if trans else w


@pytest.mark.parametrize("n", [6, 2, 0])
def test_paged_gather_reads_each_logical_row_through_the_block_table(M, n):
    p = _rand("FP32", 23, (16, 8))
    bt, i = torch.tensor([[2, 0, 3, 1]], dtype=torch.int32), torch.tensor([[0, 5, 9, 15, 3, 6]], dtype=torch.int32)
    out, o2 = torch.full((8, 4), 9.0), torch.full((4, 8), 9.0)
    M.paged(p, i, bt, out, o2, n)
    assert torch.equal(out, _paged_ref(p, i, bt, n, 2, 4, False))
    assert torch.equal(o2, _paged_ref(p, i, bt, 6, 0, 4, True))


@pytest.mark.parametrize("bt, i, want", [
    ([[2, 0, 3, 1]], [[0, 5, 16, 1, 1, 1]], "pl.paged_gather: index 16 at 2 is out of range [0, 16) (4 blocks of 4 rows)"),
    ([[2, 0, 3, 1]], [[-1, 5, 1, 1, 1, 1]], "pl.paged_gather: index -1 at 0 is out of range [0, 16) (4 blocks of 4 rows)"),
    ([[5, 0, 3, 1]], [[1, 5, 1, 1, 1, 1]], "pl.paged_gather: index 1 at 0 maps to row 21, out of range [0, 16)"),
])
def test_paged_gather_index_or_block_out_of_range_fails_the_task_and_writes_nothing(M, bt, i, want):
    out = torch.full((8, 4), 9.0)
    with pytest.raises(PTORuntimeError) as e:
        M.paged(torch.zeros(16, 8), torch.tensor(i, dtype=torch.int32), torch.tensor(bt, dtype=torch.int32), out, torch.zeros(4, 8), 6)
    assert want in str(e.value)
    assert bool((out == 9).all())


# ---- FP16 sorts ------------------------------------------------------------------------------------

def _rank_order(v):
    """Positions of v in descending order, NaN first, ties by position (stable)."""
    return sorted(range(len(v)), key=lambda k: (0 if np.isnan(v[k]) else 1, 0 if np.isnan(v[k]) else -v[k], k))


@pytest.mark.parametrize("vc", [256, 200])
def test_fp16_sort32_and_mrgsort_sort_value_int16_index_pairs(M, vc):
    s = _rand("FP16", 13, (2, 256))
    s[0, 10], s[1, 99] = float("nan"), float("-inf")
    i = torch.arange(512, dtype=torch.int16).reshape(2, 256)
    out = torch.zeros(2, 512, dtype=torch.float16)
    M.sort_fp16(s, i, out, vc, 256)
    for r in range(2):
        order = _rank_order(s.float().numpy()[r, :vc])
        assert (_bits(out)[r, 1:2 * vc:2] == i.numpy()[r][order]).all()
        assert (_bits(out)[r, 0:2 * vc:2] == _bits(s)[r][order]).all()
        assert (_bits(out)[r, 2 * vc:] == 0).all()


def test_tensor_level_sort32_and_mrgsort_take_tensors(M):
    s, i = _rand("FP32", 14, (2, 128)), torch.arange(256, dtype=torch.int32).reshape(2, 128)
    out = torch.zeros(2, 256)
    M.sort_tensor(s, i, out)
    for r in range(2):
        assert (_bits(out)[r, 1::2] == i.numpy()[r][_rank_order(s.numpy()[r])]).all()


# ---- pl.mrgsort of 2 to 4 tiles --------------------------------------------------------------------

@pytest.mark.parametrize("v1", [32, 10, 0])
def test_mrgsort_merges_2_3_and_4_sorted_tiles_into_tmp_earlier_source_first(M, v1):
    s = torch.from_numpy(np.random.default_rng(15).integers(-6, 6, (2, 128)).astype(np.float32))  # many ties across sources
    s[1, 40] = float("nan")
    i = torch.arange(256, dtype=torch.int32).reshape(2, 128)
    out = torch.full((6, 288), 4.0)
    M.merge(s, i, out, v1)
    cols = [np.arange(32), np.arange(32, 32 + v1), np.arange(64, 96), np.arange(96, 128)]
    for k, n in enumerate((2, 3, 4)):
        for r in range(2):
            # each source sorted on its own, then merged stably: one stable sort of the sources concatenated
            take = np.concatenate([c[_rank_order(s.numpy()[r, c])] for c in cols[:n]])
            order = take[_rank_order(s.numpy()[r, take])]
            got = _bits(out)[2 * k + r]
            assert (got[1:2 * len(order):2] == i.numpy()[r, order]).all()
            assert (got[0:2 * len(order):2] == _bits(s)[r, order]).all()
            assert (got[2 * len(order):] == 0).all()


def test_mrgsort_merges_fp16_pairs(M):
    s, i = _rand("FP16", 16, (1, 64)), torch.arange(64, dtype=torch.int16).reshape(1, 64)
    out = torch.zeros(1, 128, dtype=torch.float16)
    M.merge_fp16(s, i, out)
    order = _rank_order(s.float().numpy()[0])
    assert (_bits(out)[0, 1::2] == i.numpy()[0][order]).all()


def test_mrgsort_merge_of_an_odd_valid_column_count_fails_the_task(M):
    with pytest.raises(PTORuntimeError) as e:
        M.merge_odd(torch.zeros(1, 64), torch.zeros(1, 128), 7)
    assert "pl.mrgsort: a source's valid region has 7 columns, not whole (value, index) pairs" in str(e.value)


# ---- printing and torch_codegen --------------------------------------------------------------------

@pytest.mark.parametrize("kernel, args, want", [
    ("gather_dim_tile", lambda: (torch.zeros(4, 16), torch.zeros(4, 8, dtype=torch.int32), torch.zeros(4, 8), 4, 8),
     "pl.gather(src, -1, idx)"),
    ("scatter_dim", lambda: (torch.zeros(4, 16), torch.zeros(4, 8), torch.zeros(4, 8, dtype=torch.int32), torch.zeros(4, 16)),
     "pl.scatter(pl.load(d"),
    ("scatter_update_tensor", lambda: (torch.zeros(2, 4, 1, 16), torch.zeros(2, 3, dtype=torch.int32), torch.zeros(2, 3, 1, 16),
                                       torch.zeros(2, 4, 1, 16)), "pl.scatter_update(pl.load(d"),
    ("gatherb_as", lambda: (torch.zeros(4, 64), torch.zeros(4, 2, dtype=torch.int32), torch.zeros(4, 32, dtype=torch.float16)),
     "output_dtype=pl.FP16)"),
    ("mgather_oob", lambda: (torch.zeros(8, 16, dtype=torch.int32), torch.zeros(1, 4, dtype=torch.int32), torch.zeros(2, 8, dtype=torch.int32),
                             *[torch.zeros(4, 16, dtype=torch.int32)] + [torch.zeros(2, 8, dtype=torch.int32)] * 3),
     'coalesce="elem", gather_oob="wrap")'),
    ("gather_row_t", lambda: (torch.zeros(10, 16), torch.zeros(16, 4)), "pl.assemble(acc, pl.transpose(pl.load(p"),
    ("mscatter", lambda: (torch.zeros(2, 4), torch.zeros(2, 4, dtype=torch.int32), torch.zeros(8, 8)), "pl.store(pl.scatter(pl.load(out"),
    ("paged", lambda: (torch.zeros(16, 8), torch.zeros(1, 6, dtype=torch.int32), torch.zeros(1, 4, dtype=torch.int32), torch.zeros(8, 4),
                       torch.zeros(4, 8), 6), "4, 4, 8, col_off=2, space=pl.Mem.Vec)"),
    ("merge", lambda: (torch.zeros(2, 128), torch.zeros(2, 128, dtype=torch.int32), torch.zeros(6, 288), 32),
     "pl.mrgsort(a, src1=b, src2=c, src3=d, tmp=t, exhausted=True)"),
])
def test_the_new_ops_print_back_to_the_same_program(M, kernel, args, want):
    a = args()
    text = getattr(M, kernel).lower(*a)
    assert want in text
    assert pl.parse_program(text).lower(*a) == text


@pytest.mark.parametrize("vr", [4, 2])
def test_torch_codegen_translates_tensor_gather_as_the_tile_vm_computes_it(M, vr):
    from pypto.debug import torch_codegen
    s = _rand("FP32", 3, (4, 16))
    i = torch.from_numpy(np.random.default_rng(4).integers(0, 16, (4, 8))).to(torch.int32)
    want, got = torch.zeros(4, 8), torch.zeros(4, 8)
    M.gather_dim_tile(s, i, want, vr, 8)
    ns = {}
    exec(torch_codegen(M.gather_dim_tile.lower(s, i, got, vr, 8)), ns)
    ns["gather_dim_tile"](s, i, got, vr, 8)
    assert torch.equal(got, want)


@pytest.mark.parametrize("vr", [4, 2])
def test_torch_codegen_translates_mgather_and_its_policies_as_the_tile_vm_computes_them(M, vr):
    from pypto.debug import torch_codegen
    m = _rand("INT32", 19, (8, 16))
    i, j = torch.tensor([[2, 8, -1, 5]], dtype=torch.int32), torch.tensor([[0, 127, 128, -1, 300, -129, 5, 64]] * 2, dtype=torch.int32)
    c = torch.tensor([[3], [0], [7], [3]], dtype=torch.int32)
    for kernel, args in (("mgather_oob", (m, i, j)), ("mgather", (m.float(), c, j))):
        outs = [torch.zeros(4, 16, dtype=torch.int32)] + [torch.zeros(2, 8, dtype=torch.int32) for _ in range(3)]
        if kernel == "mgather":
            outs = [torch.zeros(4, 16), torch.zeros(2, 8)]
            args = args[:2] + (torch.zeros(2, 8, dtype=torch.int32) + 9,)
        want, got = [o.clone() for o in outs], [o.clone() for o in outs]
        extra = (vr,) if kernel == "mgather" else ()
        getattr(M, kernel)(*args, *want, *extra)
        ns = {}
        exec(torch_codegen(getattr(M, kernel).lower(*args, *got, *extra)), ns)
        ns[kernel](*args, *got, *extra)
        assert all(torch.equal(g, w) for g, w in zip(got, want))


@pytest.mark.parametrize("kernel, op, args", [
    ("scatter_dim", "tensor.scatter", lambda: (torch.zeros(4, 16), torch.zeros(4, 8), torch.zeros(4, 8, dtype=torch.int32), torch.zeros(4, 16))),
    ("scatter_update", "scatter_update", lambda: (torch.zeros(8, 16), torch.zeros(2, 3, dtype=torch.int32), torch.zeros(6, 16),
                                                  torch.zeros(8, 16), 8, 3)),
    ("gatherb_as", "gatherb", lambda: (torch.zeros(4, 64), torch.zeros(4, 2, dtype=torch.int32), torch.zeros(4, 32, dtype=torch.float16))),
])
def test_torch_codegen_has_no_translation_of_the_scatters_and_gatherb(M, kernel, op, args):
    from pypto.debug import torch_codegen
    with pytest.raises(UnsupportedFeatureError) as e:
        torch_codegen(getattr(M, kernel).lower(*args()))
    assert e.value.message == "torch_codegen: '%s' has no torch translation in this version" % op


# ---- error templates -------------------------------------------------------------------------------

ERRORS = [
    # pl.tensor.gather / pl.gather(dim=)
    ("pl.gather(t, dim=0, index=k)", InvalidOperationError, "pl.tensor.gather: dim must be -1 (the last axis) in this version, got 0"),
    ("pl.gather(t, dim=pl.read(k, [0, 0]), index=k)", ParserTypeError, "pl.tensor.gather: dim must be an integer constant"),
    ("pl.gather(t, -1, t)", ParserTypeError, "pl.tensor.gather: index must be INT32 (INT16 with a 2-byte input), got FP32"),
    ("pl.gather(t, -1, pl.load(i, [0, 0], [4, 8]))", InvalidOperationError, "pl.tensor.gather: index has 4 rows and input 8; they must match"),
    ("pl.tensor.gather(a, -1, k)", ParserTypeError, "pl.tensor.gather expects Tensor operands, got pl.Tile[[8, 64], pl.INT32]"),
    # pl.tensor.scatter / pl.scatter(dim=)
    ("pl.scatter(t, dim=1, index=k, src=k)", ParserTypeError, "pl.tensor.scatter: operand dtypes FP32 and INT32 differ; insert pl.cast"),
    ("pl.scatter(t, dim=-2, index=k, src=t)", InvalidOperationError, "pl.tensor.scatter: dim must be -1 (the last axis) in this version, got -2"),
    ("pl.scatter(t, dim=-1, index=pl.cast(k, pl.INT16), src=t)", ParserTypeError,
     "pl.tensor.scatter: index must be INT32 for a 4- or 8-byte destination, got INT16"),
    ("pl.scatter(t, dim=-1, index=pl.load(i, [0, 0], [8, 8]), src=t)", InvalidOperationError,
     "pl.tensor.scatter: index [8, 8] and src [8, 64] differ in shape"),
    ("pl.scatter(pl.load(a, [0, 0], [8, 32]), dim=-1, index=k, src=t)", InvalidOperationError,
     "pl.tensor.scatter: src [8, 64] must have input [8, 32]'s rows and no more columns"),
    ("pl.tensor.scatter(t, -1, k, t)", ParserTypeError, "pl.tensor.scatter expects Tensor operands, got pl.Tile[[8, 64], pl.FP32]"),
    # pl.scatter_update
    ("pl.scatter_update(t, -1, pl.load(i, [0, 0], [2, 4]), t)", InvalidOperationError,
     "pl.scatter_update: dim must be -2 (the row axis) in this version, got -1"),
    ("pl.scatter_update(t, -2, pl.load(i, [0, 0], [2, 4]), k)", ParserTypeError,
     "pl.scatter_update: operand dtypes FP32 and INT32 differ; insert pl.cast"),
    ("pl.scatter_update(t, 0, pl.cast(pl.load(i, [0, 0], [2, 4]), pl.INT16), t)", ParserTypeError,
     "pl.scatter_update: index must be INT32, got INT16"),
    ("pl.scatter_update(t, -2, pl.load(i, [0, 0], [2, 4]), pl.reshape(t, [2, 4, 1, 64]))", InvalidOperationError,
     "pl.scatter_update: input [8, 64] and src [2, 4, 1, 64] must both be [rows, d] or both [n, b, 1, d]"),
    ("pl.scatter_update(t, -2, pl.load(i, [0, 0], [2, 4]), pl.load(a, [0, 0], [8, 32]))", InvalidOperationError,
     "pl.scatter_update: src rows have 32 elements and input rows 64"),
    ("pl.scatter_update(t, -2, pl.load(i, [0, 0], [2, 3]), t)", InvalidOperationError,
     "pl.scatter_update: src has 8 rows, index [2, 3] names 6"),
    ("pl.scatter_update(t, -2, pl.load(i, [0, 0], [2, 4]))", ParserTypeError, "pl.scatter_update() missing required argument 'src'"),
    # pl.gatherb
    ("pl.gatherb(t, t)", ParserTypeError, "pl.gatherb: offset must be UINT32 or INT32 byte offsets, got FP32"),
    ("pl.gatherb(t, k, output_dtype=pl.BOOL)", ParserTypeError, "a tile dtype must be FP32, FP16, BF16, INT64, INT32, INT16, INT8, UINT32, UINT16 or UINT8"),
    ("pl.gatherb(pl.cast(t, pl.BOOL), k)", ParserTypeError, "pl.gatherb does not accept BOOL tiles; cast first"),
    ("pl.tensor.gatherb(a, i)", UndefinedVariableError, "pl.tensor.gatherb is not a pl.tensor op; use pl.gatherb"),
    # pl.mgather
    ("pl.mgather(a, k)", InvalidOperationError, "pl.mgather: a row gather's idx must be [1, n] or [n, 1], got [8, 64]"),
    ("pl.mgather(a, t, coalesce=\"elem\")", ParserTypeError, "pl.mgather: idx must be INT32, got FP32"),
    ("pl.mgather(a, k, coalesce=\"col\")", ParserTypeError, "pl.mgather() coalesce must be \"row\" or \"elem\" (or 0, 1)"),
    ("pl.mgather(a, k, coalesce=\"elem\", gather_oob=4)", ParserTypeError,
     "pl.mgather() gather_oob must be \"undefined\", \"clamp\", \"wrap\" or \"zero\" (or 0 to 3)"),
    ("pl.mgather(a, k, target_memory=pl.Mem.Acc)", InvalidOperationError,
     "pl.mgather target_memory= must be pl.Mem.Vec or pl.Mem.Mat, got pl.Mem.Acc"),
    ("pl.mgather(a, k, coalesce=\"elem\", scratch=a)", InvalidOperationError, "pl.mgather: scratch= applies to the Mat element form only"),
    ("pl.mgather(a, k, coalesce=\"elem\", target_memory=pl.Mem.Mat)", InvalidOperationError,
     "pl.mgather: the Mat element form needs scratch= (a tensor of mem's dtype)"),
    ("pl.mgather(a, k, coalesce=\"elem\", valid_shape=[1, 1])", InvalidOperationError, "pl.mgather: valid_shape= applies to the Mat form only"),
    ("pl.mgather(a, k, coalesce=\"elem\", target_memory=pl.Mem.Mat, scratch=i)", ParserTypeError,
     "pl.mgather: scratch= must be a tensor of mem's dtype FP32"),
    ("pl.mgather(a, k, coalesce=\"elem\", target_memory=pl.Mem.Mat, scratch=a, valid_shape=[9, 1])", InvalidOperationError,
     "pl.mgather: valid_shape must be two constants within the result's shape [8, 64]"),
    # pl.gather_row, pl.mscatter
    ("pl.gather_row(w, a, [0, 0], [0, 0], [1, 64], transpose=1)", ParserSyntaxError,
     "pl.gather_row() transpose must be a boolean literal (True/False)"),
    ("pl.gather_row(w, a, [0, 0], [0, 0], [1, 64], True, valid_shape=[1, 8])", InvalidOperationError,
     "pl.gather_row: valid_shape= and transpose=True cannot be combined"),
    ("pl.gather_row(w, a, [0, 0], [0, 0])", ParserTypeError, "pl.gather_row() missing required argument 'shapes'"),
    ("pl.mscatter(t, k, t)", ParserTypeError, "pl.mscatter: output_tensor must be a Tensor, got pl.Tile[[8, 64], pl.FP32]"),
    ("pl.tensor.mscatter(t, k, a)", UndefinedVariableError, "pl.tensor.mscatter is not a pypto.language name"),
    # pl.paged_gather
    ("pl.paged_gather(a, pl.load(i, [0, 0], [1, 4]), pl.load(i, [0, 0], [1, 4]), pl.read(k, [0, 0]), 4, 8)", ParserTypeError,
     "pl.paged_gather: block_size must be an integer constant"),
    ("pl.paged_gather(a, pl.load(i, [0, 0], [1, 4]), i, 4, 0, 8)", InvalidOperationError, "pl.paged_gather: size must be at least 1, got 0"),
    ("pl.paged_gather(a, pl.load(i, [0, 0], [1, 4]), i, 4, 8, 8, col_off=60)", InvalidOperationError,
     "pl.paged_gather: col_off 60 + size 8 exceed src's 64 columns"),
    ("pl.paged_gather(a, pl.load(i, [0, 0], [1, 9]), i, 4, 8, 8)", InvalidOperationError,
     "pl.paged_gather: indices hold 9 entries, more than max_indices 8"),
    ("pl.paged_gather(pl.reshape(t, [1, 8, 64]), pl.load(i, [0, 0], [1, 4]), i, 4, 8, 8)", ParserTypeError,
     "pl.paged_gather: src must be a rank-2 pool, got pl.Tile[[1, 8, 64], pl.FP32]"),
    ("pl.paged_gather(a, k, i, 4, 8, 8)", ParserTypeError, "pl.paged_gather: indices must be [n] or [1, n], got pl.Tile[[8, 64], pl.INT32]"),
    ("pl.paged_gather(a, pl.load(a, [0, 0], [1, 4]), i, 4, 8, 8)", ParserTypeError, "pl.paged_gather: indices must be INT32, got FP32"),
    ("pl.paged_gather(a, pl.load(i, [0, 0], [1, 4]), i, 4, 8, 8, space=pl.Mem.Vec, is_trans=True)", InvalidOperationError,
     "pl.paged_gather: is_trans=True needs space=pl.Mem.Mat"),
    ("pl.paged_gather(a, pl.load(i, [0, 0], [1, 4]), i, 4, 8, 8, space=pl.Mem.Acc)", InvalidOperationError,
     "pl.paged_gather: space must be pl.Mem.Mat or pl.Mem.Vec, got pl.Mem.Acc"),
    ("pl.paged_gather(a, pl.load(i, [0, 0], [1, 4]), i, 4, 8, 8, is_trans=1)", ParserSyntaxError,
     "pl.paged_gather() is_trans must be a boolean literal (True/False)"),
    # pl.mrgsort's two forms
    ("pl.mrgsort(t, t, tmp=t, block_len=64)", ParserTypeError,
     "pl.mrgsort: block_len= (one tile of sorted runs) and src1, ..., tmp=, exhausted= (2 to 4 sorted tiles) are two forms; pass one"),
    ("pl.mrgsort(t)", ParserTypeError, "pl.mrgsort() needs block_len= (one tile of sorted runs) or src1 and tmp= (2 to 4 sorted tiles)"),
    ("pl.mrgsort(t, t)", ParserTypeError, "pl.mrgsort() missing required argument 'tmp' (the merge of 2 to 4 sorted tiles)"),
    ("pl.mrgsort(t, t, src3=t, tmp=w)", ParserTypeError, "pl.mrgsort: src3 without src2"),
    ("pl.mrgsort(t, t, tmp=w, exhausted=n)", ParserSyntaxError, "pl.mrgsort() exhausted must be a boolean literal (True/False)"),
    ("pl.mrgsort(t, pl.cast(t, pl.FP16), tmp=w)", ParserTypeError, "pl.mrgsort: src1 is FP16 and src0 FP32; the sources share one dtype"),
    ("pl.mrgsort(t, pl.load(a, [0, 0], [8, 63]), tmp=w)", InvalidOperationError,
     "pl.mrgsort: src1 has 63 columns, not whole (value, index) pairs"),
    ("pl.mrgsort(t, pl.load(a, [0, 0], [4, 64]), tmp=w)", InvalidOperationError, "pl.mrgsort: src1 has 4 rows and tmp 8; they must match"),
    ("pl.mrgsort(t, t, t, tmp=w)", InvalidOperationError, "pl.mrgsort: tmp has 128 columns, fewer than the sources' 192"),
    ("pl.mrgsort(k, k, tmp=w)", ParserTypeError, "pl.mrgsort sorts FP32 or FP16 values, got INT32; pl.cast first"),
]


@pytest.mark.parametrize("call, exc, want", ERRORS)
def test_gather_more_errors(load, call, exc, want):
    mod, _ = load("""
        @pl.jit
        def k(a: pl.Tensor, i: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar[pl.INDEX]):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(a, [0, 0], [8, 64])
                k = pl.load(i, [0, 0], [8, 64])
                w = pl.create_tile([8, 128], dtype=pl.FP32)
                pl.store(%s, [0, 0], out)
            return out
        """ % call)
    with pytest.raises(exc) as e:
        mod.k(torch.zeros(8, 64), torch.zeros(8, 64, dtype=torch.int32), torch.zeros(8, 64), 1)
    assert e.value.message == want


def test_an_error_names_the_offending_argument_by_line_and_column(load):
    mod, _ = load("""
        @pl.jit
        def k(a: pl.Tensor, i: pl.Tensor, out: pl.Out[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(a, [0, 0], [8, 64])
                pl.store(pl.gather(t, dim=0, index=pl.load(i, [0, 0], [8, 8])), [0, 0], out)
            return out
        """)
    with pytest.raises(InvalidOperationError) as e:
        mod.k(torch.zeros(8, 64), torch.zeros(8, 64, dtype=torch.int32), torch.zeros(8, 8))
    assert (e.value.span["line"], e.value.span["column"]) == (8, 35)


@pytest.mark.parametrize("call, kind", [("pl.tensor.gather(x, -1, i)", "tensor"), ("pl.sort32(x, i)", "tensor"),
                                        ("pl.scatter_update(x, -2, i, x)", "tensor"), ("pl.gatherb(x, i)", "tile"),
                                        ("pl.mgather(x, i)", "tile")])
def test_the_family_in_orchestration_code_is_a_misplaced_tensor_or_tile_op(load, call, kind):
    mod, _ = load("""
        @pl.jit
        def k(x: pl.Tensor, i: pl.Tensor, out: pl.Out[pl.Tensor]):
            y = %s
            return out
        """ % call)
    with pytest.raises(InvalidOperationError) as e:
        mod.k(torch.zeros(4, 32), torch.zeros(4, 32, dtype=torch.int32), torch.zeros(4, 32))
    assert e.value.message.startswith("Misplaced %s op 'pl.%s' in Orchestration function 'k'" % (kind, call.split("(")[0][3:]))
