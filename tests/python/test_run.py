"""Running programs through pypto._C.run: RunConfig reaching the runtime
(docs/runconfig.md), the calling convention (docs/compiler.md, "One call from Python") and
run-time failures (B04, B11)."""
import dataclasses
import threading

import numpy as np
import pytest
import torch

import pypto.language as pl
from pypto.runtime import DeviceUnavailableError, PTORuntimeError, RunConfig

import run_stats
import memory_page as seed

DEFAULTS = {"task_window_max": [16384] * 4, "heap_max": [268435456] * 4, "dep_pool_max": [16384] * 4}


def run_seed(cfg, a=None, out=None):
    a = seed.A if a is None else a
    out = torch.zeros(seed.ROWS, seed.TC) if out is None else out
    assert seed.scaled(a, out, config=cfg) is None
    return out


def meta_of(tmp_path):
    return run_stats.read(tmp_path)[0]


def stats(tmp_path, **kw):
    return RunConfig(enable_scope_stats=True, save_kernels_dir=str(tmp_path), **kw)


def test_R20_ring_heap_scalar_list_none(tmp_path):
    run_seed(stats(tmp_path, ring_heap=2**20))
    assert meta_of(tmp_path)["heap_max"] == [1048576] * 4
    run_seed(stats(tmp_path, ring_heap=[2048, 0, 4096, 2**20], ring_task_window=[16, 32, 0, 64],
                   ring_dep_pool=[8, 100, 0, 256]))
    m = meta_of(tmp_path)
    assert m["heap_max"] == [2048, 268435456, 4096, 1048576]
    assert m["task_window_max"] == [16, 32, 16384, 64]
    assert m["dep_pool_max"] == [8, 100, 16384, 256]
    run_seed(stats(tmp_path))
    m = meta_of(tmp_path)
    assert {k: m[k] for k in DEFAULTS} == DEFAULTS


def test_R20_through_programs_and_parsed(tmp_path, load):
    mod, _ = load("""
        import torch
        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.InCore)
            def kernel(self, a, out: pl.InOut[pl.Tensor]):
                pl.store(pl.add(pl.load(out, [0, 0], [64, 128]), pl.load(a, [0, 0], [64, 128])), [0, 0], out)
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def orch(self, a, out):
                for i in pl.range(2):
                    out = self.kernel(a, out)
                return out
        """)
    import pypto.language as pl
    a = torch.randn(64, 128)
    for prog in (mod.P, pl.parse_program(mod.P.lower(a, a))):
        out = torch.zeros(64, 128)
        prog(a, out, config=stats(tmp_path, ring_heap=2**20, ring_task_window=[0, 64, 0, 0]))
        torch.testing.assert_close(out, 2 * a)
        m = meta_of(tmp_path)
        assert m["heap_max"] == [1048576] * 4 and m["task_window_max"] == [16384, 64, 16384, 16384]
        assert run_stats.tasks_per_ring(tmp_path) == [0, 2, 0, 0]
        assert prog.last_work_dir == str(tmp_path)


def test_R21_retired_env_is_not_read(tmp_path, monkeypatch, capfd):
    monkeypatch.setenv("PTO2_RING_HEAP", "4096")
    run_seed(stats(tmp_path, num_workers=3))  # a fresh runtime (a config not seen before)
    m = meta_of(tmp_path)
    assert {k: m[k] for k in DEFAULTS} == DEFAULTS
    run_seed(stats(tmp_path, num_workers=5))
    err = capfd.readouterr().err
    assert err.count("PTO2_RING_HEAP") == 1


def test_R19_a2a3_dispatch():
    for platform in ("a2a3", "a5"):
        cfg = RunConfig(platform=platform, enable_scope_stats=True, save_kernels=True)
        with pytest.raises(DeviceUnavailableError) as e:
            run_seed(cfg)
        assert str(e.value) == ("platform '%s' needs an Ascend device; this build runs kernels only on "
                                "'a2a3sim' and 'a5sim' (CPU)" % platform)
        assert isinstance(e.value, PTORuntimeError)
        seed.scaled.lower(seed.A, torch.zeros(seed.ROWS, seed.TC), config=cfg)


def test_C01_torch_numpy_mixed():
    want = seed.A * 2.0 + 1.0
    torch.testing.assert_close(run_seed(RunConfig()), want)
    out = np.zeros((seed.ROWS, seed.TC), np.float32)
    assert seed.scaled(seed.A.numpy(), out) is None
    np.testing.assert_allclose(out, want.numpy(), rtol=1e-5)
    out2 = torch.zeros(seed.ROWS, seed.TC)
    seed.manual_placement(seed.A.numpy(), out2)
    torch.testing.assert_close(out2, want)


def test_C02_rows_of_a_bigger_tensor():
    big = torch.full((512, seed.TC), -7.0)
    view = big[64:320]
    ptr = view.data_ptr()
    run_seed(RunConfig(), out=view)
    assert view.data_ptr() == ptr
    torch.testing.assert_close(big[64:320], seed.A * 2.0 + 1.0)
    assert bool((big[:64] == -7.0).all()) and bool((big[320:] == -7.0).all())
    arr = np.full((512, seed.TC), -7.0, np.float32)
    seed.scaled(seed.A.numpy(), arr[64:320])
    np.testing.assert_allclose(arr[64:320], (seed.A * 2.0 + 1.0).numpy(), rtol=1e-5)
    assert (arr[:64] == -7.0).all() and (arr[320:] == -7.0).all()


def test_C03_aliasing(load):
    mod, _ = load("""
        @pl.jit
        def twice(x: pl.InOut[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.store(pl.mul(pl.load(x, [0, 0], [64, 128]), 2.0), [0, 0], x)
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.store(pl.add(pl.load(x, [0, 0], [64, 128]), 1.0), [0, 0], x)
            return x

        @pl.jit
        def add_into(a: pl.Tensor, out: pl.InOut[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.store(pl.add(pl.load(out, [0, 0], [64, 128]), pl.load(a, [0, 0], [64, 128])), [0, 0], out)
            return out
        """)
    x0 = torch.randn(64, 128)
    x = x0.clone()
    mod.twice(x)
    torch.testing.assert_close(x, x0 * 2 + 1)
    mod.add_into(x, x)  # the same tensor as input and InOut
    torch.testing.assert_close(x, (x0 * 2 + 1) * 2)
    big = torch.randn(128, 128)
    want = big.clone()
    want[32:96] += want[0:64].clone()
    mod.add_into(big[0:64], big[32:96])  # overlapping views of one allocation
    torch.testing.assert_close(big, want)


def test_C05_two_threads():
    errors, results = [], {}

    def work(key, kernel):
        try:
            for k in range(20):
                out = torch.zeros(seed.ROWS, seed.TC)
                kernel(seed.A, out, config=RunConfig(num_workers=2 + k % 2))
                torch.testing.assert_close(out, seed.A * 2.0 + 1.0)
            results[key] = True
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=work, args=(n, k))
               for n, k in (("a", seed.scaled), ("b", seed.manual_placement))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and results == {"a": True, "b": True}


def test_B04_out_of_bounds_at_run_time(load):
    mod, path = load("""
        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, a, out: pl.Out[pl.Tensor], i: pl.Scalar[pl.INDEX]):
                t = pl.load(a, [i * 64, 0], [64, 128])
                pl.store(t, [0, 0], out)
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def orch(self, a, out, n: pl.Scalar[pl.INDEX]):
                for i in pl.range(n):
                    out = self.k(a, out, i)
                return out
        """)
    from conftest import line_of
    a, out = torch.randn(256, 128), torch.zeros(64, 128)
    with pytest.raises(PTORuntimeError) as e:
        mod.P(a, out, 5)
    at = line_of(path, "pl.load(a")
    assert e.value.code == 12 and e.value.ring == 1
    assert ("pl.load reads past the end of dimension 0: offset 256 + extent 64 exceeds the source extent 256. "
            "(at %s:%d:%d)" % (path, *at)) in str(e.value)
    assert e.value.message == str(e.value)
    mod.P(a, out, 4)  # the next call succeeds
    torch.testing.assert_close(out, a[192:256])


def test_B11_task_window_capacity(load, tmp_path):
    mod, _ = load("""
        @pl.jit(auto_scope=False)
        def many(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            with pl.scope():
                for i in pl.range(16):
                    with pl.at(level=pl.Level.CORE_GROUP):
                        pl.store(pl.add(pl.load(a, [i * 16, 0], [16, 128]), 1.0), [i * 16, 0], out)
            return out
        """)
    a, out = torch.randn(256, 128), torch.zeros(256, 128)
    with pytest.raises(PTORuntimeError) as e:
        mod.many(a, out, config=stats(tmp_path, ring_task_window=4))
    assert "ring_task_window" in str(e.value)
    assert "raise ring_task_window (runtime_env.ring_task_window) or split the scope" in str(e.value)
    assert e.value.ring == 0
    assert meta_of(tmp_path)["fatal"] is True
    mod.many(a, out)  # the next call works
    torch.testing.assert_close(out, a + 1.0)


def test_runtime_reused_only_when_sizes_match(tmp_path):
    # Alternating sizes: each call's metadata shows its own sizes (never a stale runtime).
    for heap in (2**20, 2**21, 2**20):
        run_seed(stats(tmp_path, ring_heap=heap))
        assert meta_of(tmp_path)["heap_max"] == [heap] * 4
    cfg = stats(tmp_path)
    run_seed(dataclasses.replace(cfg, ring_heap=[0, 0, 0, 0]))
    assert meta_of(tmp_path)["heap_max"] == DEFAULTS["heap_max"]


def test_B06_read_only_numpy_for_a_derived_out(load):
    # A bare parameter of an Orchestration function takes its direction from use (Out here):
    # the executor's check, after the shim's annotation check saw nothing to reject.
    mod, _ = load("""
        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, a, out: pl.Out[pl.Tensor]):
                pl.store(pl.load(a, [0, 0], [64, 128]), [0, 0], out)
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def orch(self, a, out):
                out = self.k(a, out)
                return out
        """)
    a = np.ones((64, 128), np.float32)
    ro = np.zeros((64, 128), np.float32)
    ro.setflags(write=False)
    with pytest.raises(ValueError) as e:
        mod.P(a, ro)
    assert str(e.value) == "@pl.program function 'P.orch': argument 'out' is read-only but the kernel writes it"
    a.setflags(write=False)  # a read-only input is fine
    out = np.zeros((64, 128), np.float32)
    mod.P(a, out)
    assert (out == 1.0).all()


@pl.jit
def _empty_bodies(a: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar):
    with pl.at(level=pl.Level.CORE_GROUP):
        pass
    with pl.at(level=pl.Level.CORE_GROUP):
        x = n * 2
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(pl.add(pl.load(a, [0, 0], [4, 8]), 1.0), [0, 0], out)
    return out


def test_at_body_without_tensors_runs_as_a_task_of_no_arguments():
    a, out = np.ones((4, 8), np.float32), np.zeros((4, 8), np.float32)
    _empty_bodies(a, out, 3)
    assert (out == 2.0).all()


@pl.jit
def _reassigned_in_loop(a: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar):
    for i in pl.range(3):
        y = n + 1
        n = y
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.store(pl.add(pl.load(a, [0, 0], [4, 8]), y), [i, 0], out, shapes=[1, 8])
    return out


def test_specialized_scalar_reassigned_in_a_loop_changes_each_iteration():
    a, out = np.zeros((4, 8), np.float32), np.zeros((4, 8), np.float32)
    _reassigned_in_loop(a, out, 3)
    assert out[:3, 0].tolist() == [4.0, 5.0, 6.0]
