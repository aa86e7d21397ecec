"""Orchestration views, copy tasks and element access (DSL-V2-SPEC §1.3 T-ov, §1.5, §1.7;
packages P2-07, P2-16) against numpy: pl.slice windows handed to kernels with run-time
offsets, disjoint views without dependency edges (scope stats), an orchestration
pl.assemble copy after its producer, pl.read values as loop bounds, offsets and kernel
arguments, pl.write, and the texts of static and run-time bounds errors."""
import json
import os

import numpy as np
import pytest
import torch

import run_stats
from pypto.language.parser.diagnostics import InvalidOperationError
from pypto.runtime import PTORuntimeError, RunConfig

from conftest import line_of

PROGRAMS = """
    @pl.jit
    def halves(a: pl.Tensor, out: pl.Out[pl.Tensor]):
        for i in pl.range(2):
            v = pl.slice(a, [64, 128], [i * 64, 0])
            w = pl.slice(out, [64, 128], [i * 64, 0])
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(v, [0, 0], [64, 128])
                pl.store(pl.add(t, t), [0, 0], w)
        return out

    @pl.jit
    def slow_pair(a: pl.Tensor, out: pl.Out[pl.Tensor]):
        for i in pl.range(2):
            w = pl.slice(out, [64, 128], [i * ROW, 0])
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(a, [0, 0], [64, 128])
                for k in pl.range(8000):  # long enough to still run when the second is submitted
                    t = pl.add(pl.mul(t, 0.5), t)
                pl.store(t, [0, 0], w)
        return out

    @pl.jit
    def copy_back(a: pl.Tensor, out: pl.Out[pl.Tensor]):
        tmp = pl.create_tensor([64, 128], pl.FP32)
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(a, [0, 0], [64, 128])
            for k in pl.range(200):
                t = pl.add(t, 1.0)
            pl.store(t, [0, 0], tmp)
        out = pl.assemble(out, tmp, [64, 0])
        return out

    @pl.jit
    def driven(a: pl.Tensor, cfg: pl.Tensor, out: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            c = pl.load(cfg, [0, 0], [1, 8])
            pl.store(pl.add(c, 2), [0, 0], cfg)
        n = pl.read(cfg, [0, 3])
        row = pl.read(cfg, [0, 1])
        for i in pl.range(n):
            v = pl.slice(a, [8, 128], [row + i * 8, 0])
            w = pl.slice(out, [8, 128], [i * 8, 0])
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.store(pl.mul(pl.load(v, [0, 0], [8, 128]), pl.cast(n, pl.FP32)), [0, 0], w)
        pl.write(out, [255, 127], pl.cast(row, pl.FP32))
        return out

    @pl.jit
    def oob(a: pl.Tensor, out: pl.Out[pl.Tensor]):
        for i in pl.range(3):
            w = pl.slice(out, [64, 128], [i * 130, 0])
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.store(pl.load(a, [0, 0], [64, 128]), [0, 0], w)
        return out
"""


def _load(load, row):
    return load(PROGRAMS.replace("ROW", str(row)))


def _a():
    return torch.from_numpy(np.random.default_rng(7).standard_normal((256, 128)).astype(np.float32))


def test_orch_slice_views_numpy(load):
    mod, _ = _load(load, 64)
    a, out = _a(), torch.zeros(256, 128)
    mod.halves(a, out)
    want = np.zeros((256, 128), np.float32)
    want[:128] = 2 * a.numpy()[:128]
    np.testing.assert_array_equal(out.numpy(), want)


def _peak_dep_pool(work_dir):
    with open(run_stats.stats_file(work_dir)) as f:
        return max(json.loads(line)["peak_dep_pool"] for line in f.readlines()[1:])


@pytest.mark.parametrize("row, edges", [(64, False), (32, True)])
def test_orch_disjoint_views_have_no_dep_edges(load, tmp_path, row, edges):
    """Views [0:64] and [64:128] of out: no edge (peak dep pool 0); [0:64] and [32:96]: WAW."""
    mod, _ = _load(load, row)
    a, out = _a(), torch.zeros(256, 128)
    slow = {"stall_timeout_ms": 60000} if os.environ.get("PTO_SANITIZER") else {}
    mod.slow_pair(a, out, config=RunConfig(enable_scope_stats=True, save_kernels_dir=str(tmp_path), num_workers=2, **slow))
    assert (_peak_dep_pool(tmp_path) > 0) == edges


def test_orch_assemble_copy_after_producer(load):
    mod, _ = _load(load, 64)
    a, out = _a(), torch.zeros(256, 128)
    mod.copy_back(a, out)
    want = np.zeros((256, 128), np.float32)
    t = a.numpy()[:64].copy()
    for _ in range(200):
        t = t + np.float32(1.0)
    want[64:128] = t
    np.testing.assert_array_equal(out.numpy(), want)


def test_orch_read_drives_loops_offsets_and_kernels(load):
    mod, _ = _load(load, 64)
    a, out = _a(), torch.zeros(256, 128)
    cfg = torch.tensor([[0, 14, 0, 1, 0, 0, 0, 0]], dtype=torch.int32)  # a kernel adds 2: n = 3, row = 16
    mod.driven(a, cfg, out)
    want = np.zeros((256, 128), np.float32)
    want[:24] = a.numpy()[16:40] * np.float32(3)
    want[255, 127] = 16
    np.testing.assert_array_equal(out.numpy(), want)
    assert cfg.tolist() == [[2, 16, 2, 3, 2, 2, 2, 2]]


def test_orch_slice_runtime_oob(load):
    mod, path = _load(load, 64)
    with pytest.raises(PTORuntimeError) as e:
        mod.oob(_a(), torch.zeros(256, 128))
    assert e.value.code == 9
    line, col = line_of(path, "pl.slice(out, [64, 128], [i * 130")
    assert "pl.slice: offset 260 is past the end of dimension 0 of extent 256 at %s:%d:%d" % (path, line, col) in str(e.value)


@pytest.mark.parametrize("stmt, want", [
    ("v = pl.slice(a, [64, 128], [256, 0])", "pl.slice: offset 256 is past the end of dimension 0 of extent 256"),
    ("v = pl.slice(a, [64, 128], [0, 0], valid_shape=[65, 128])", "pl.slice: valid_shape entry 0 (65) is outside 0 to 64"),
    ("x = pl.read(a, [0, 128])", "pl.read: index 128 is out of range for dimension 1 of extent 128"),
])
def test_orch_static_errors(load, stmt, want):
    mod, _ = load("""
        @pl.jit
        def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            %s
            return out
        """ % stmt)
    with pytest.raises(InvalidOperationError) as e:
        mod.k(_a(), torch.zeros(256, 128))
    assert e.value.message == want


@pytest.mark.parametrize("src, dst", [((0, 0), (2, 1)), ((2, 1), (0, 0))])
def test_orch_assemble_overlapping_windows_of_one_tensor(load, src, dst):
    """pl.assemble(t, pl.slice(t, ...), ...) with overlapping windows copies the window's old values."""
    mod, _ = load("""
        @pl.jit
        def k(out: pl.InOut[pl.Tensor]):
            out = pl.assemble(out, pl.slice(out, [5, 6], [%d, %d]), [%d, %d])
            return out
        """ % (src + dst))
    out = torch.arange(64, dtype=torch.float32).reshape(8, 8)
    want = out.numpy().copy()
    want[dst[0]:dst[0] + 5, dst[1]:dst[1] + 6] = out.numpy()[src[0]:src[0] + 5, src[1]:src[1] + 6].copy()
    mod.k(out)
    np.testing.assert_array_equal(out.numpy(), want)
