"""§0.1 zero-fill (docs/dsl.md, "Operations", pl.create_tensor): a fresh
pl.create_tensor buffer reads as zero unless init_value= is given, also when
its heap bytes held an earlier scope's tensor (P2-18: a ring_heap that holds
one buffer, so every loop iteration's scope reuses the bytes the one before
it wrote); init_value= fills it instead."""
import pytest
import torch

from pypto.runtime import RunConfig

R, C = 16, 32  # one FP32 buffer: 2048 bytes, the whole heap below

PROGRAM = """
    R, C = %d, %d

    @pl.jit
    def reuse(a: pl.Tensor, out: pl.Out[pl.Tensor]):
        for i in pl.range(3):
            tmp = pl.create_tensor([R, C], dtype=pl.FP32{init})
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.store(pl.load(tmp, [0, 0], [R, C]), [i * R, 0], out)
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.store(pl.load(a, [i * R, 0], [R, C]), [0, 0], tmp)
        return out
    """ % (R, C)


@pytest.mark.parametrize("init,want", [("", 0.0), (", init_value=1.5", 1.5)])
def test_P2_18_create_tensor_reads_zero_after_its_heap_bytes_were_reused(load, init, want):
    mod, _ = load(PROGRAM.replace("{init}", init))
    a = torch.arange(1, 3 * R * C + 1, dtype=torch.float32).reshape(3 * R, C)
    out = torch.full((3 * R, C), 99.0)
    mod.reuse(a, out, config=RunConfig(ring_heap=2048))
    assert torch.equal(out, torch.full((3 * R, C), want)), out
