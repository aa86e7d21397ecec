"""pl.mgather's Mat form (docs/dsl.md, Operations): target_memory=pl.Mem.Mat gathers rows or
elements into a Mat tile (the element form with its scratch= workspace, unused on the CPU),
valid_shape= its written region; the printed program parses back.  One test per rule."""
import torch

import pypto.language as pl

SRC = """
@pl.jit.incore
def _k(mem: pl.Tensor[[16, 8], pl.FP32], idx: pl.Tensor[[1, 4], pl.INT32], ie: pl.Tensor[[2, 4], pl.INT32],
       scr: pl.Tensor[[16, 8], pl.FP32], o1: pl.Out[pl.Tensor[[4, 8], pl.FP32]], o2: pl.Out[pl.Tensor[[2, 4], pl.FP32]]):
    r = pl.mgather(mem, idx, target_memory=pl.Mem.Mat, valid_shape=[{rows}, 8])
    o1 = pl.store(pl.move(r, target_memory=pl.Mem.Vec), [0, 0], o1)
    e = pl.mgather(mem, ie, "elem", target_memory=pl.Mem.Mat, scratch=scr)
    o2 = pl.store(pl.move(e, target_memory=pl.Mem.Vec), [0, 0], o2)
    return o1, o2


@pl.jit
def f(mem: pl.Tensor[[16, 8], pl.FP32], idx: pl.Tensor[[1, 4], pl.INT32], ie: pl.Tensor[[2, 4], pl.INT32],
      scr: pl.Tensor[[16, 8], pl.FP32], o1: pl.Out[pl.Tensor[[4, 8], pl.FP32]], o2: pl.Out[pl.Tensor[[2, 4], pl.FP32]]):
    return _k(mem, idx, ie, scr, o1, o2)
"""

MEM = torch.randn(16, 8)
IDX = torch.tensor([[5, 0, 15, 3]], dtype=torch.int32)
IE = torch.tensor([[1, 9, 100, 127], [0, 8, 16, 64]], dtype=torch.int32)


def _run(load, rows):
    mod, _ = load(SRC.replace("{rows}", str(rows)))
    o1, o2 = torch.full((4, 8), -1.0), torch.zeros(2, 4)
    args = (MEM, IDX, IE, torch.zeros(16, 8), o1, o2)
    mod.f(*args)
    return mod, args, o1, o2


def test_mgather_mat_rows_within_the_written_region(load):
    _, _, o1, _ = _run(load, 3)
    assert torch.equal(o1[:3], MEM[IDX[0, :3].long()]) and (o1[3] == -1).all()


def test_mgather_mat_elements_with_a_scratch_workspace(load):
    _, _, _, o2 = _run(load, 4)
    assert torch.equal(o2, MEM.reshape(-1)[IE.long()])


def test_mgather_mat_prints_its_tag_and_parses_back(load):
    mod, args, _, _ = _run(load, 4)
    text = mod.f.lower(*args)
    assert "target_memory=pl.Mem.Mat" in text and "scratch=scr" in text and "pl.Mem.Mat] = pl.set_validshape(" in text
    assert pl.parse_program(text).lower(*args) == text
