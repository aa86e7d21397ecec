"""Run-time failures inside tile programs and concurrent calls (docs/dsl.md, "Errors"), beyond what
test_args.py and test_run.py cover: a run-time out-of-bounds store, a negative
run-time offset and an out-of-bounds load in an outlined `pl.at` body; integer
division by zero (tile and scalar divisors, INT32 and INT8); concurrent
threads where one thread's calls fail."""
import threading

import numpy as np
import pytest
import torch

from pypto.runtime import PTORuntimeError

from conftest import line_of

KERNELS = """
    @pl.jit
    def load_rows(a: pl.Tensor, out: pl.Out[pl.Tensor], start: pl.Scalar[pl.INDEX], n: pl.Scalar[pl.INDEX]):
        for i in pl.range(start, n):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(a, [i * 8, 0], [8, 16])
                pl.store(t, [0, 0], out)
        return out

    @pl.jit
    def store_rows(a: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar[pl.INDEX]):
        for i in pl.range(n):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(a, [0, 0], [8, 16])
                pl.store(pl.add(t, i), [i * 8, 0], out)
        return out

    @pl.jit
    def div_tiles(a: pl.Tensor, b: pl.Tensor, out: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(a, [0, 0], [8, 16])
            q = pl.div(t, pl.load(b, [0, 0], [8, 16]))
            pl.store(q, [0, 0], out)
        return out

    @pl.jit
    def div_scalar(a: pl.Tensor, s: pl.Scalar, out: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(a, [0, 0], [8, 16])
            pl.store(pl.div(t, s), [0, 0], out)
        return out
    """


@pytest.fixture
def kmod(load):
    return load(KERNELS)


def assert_task_failed(e, text, path, at, ring):
    """at: (line, col) of the failing op."""
    assert isinstance(e, PTORuntimeError) and e.code == 12, (getattr(e, "code", None), str(e))
    assert e.ring == ring
    assert "%s (at %s:%d:%d)" % (text, path, *at) in str(e)
    assert e.message == str(e)


def test_B04_load_past_the_end_in_an_outlined_body(kmod):
    mod, path = kmod
    a = torch.arange(16 * 16, dtype=torch.float32).reshape(16, 16)
    out = torch.zeros(8, 16)
    with pytest.raises(PTORuntimeError) as e:
        mod.load_rows(a, out, 0, 3)  # i = 2 reads rows 16..23 of 16
    assert_task_failed(e.value, "pl.load reads past the end of dimension 0: offset 16 + extent 8 exceeds "
                       "the source extent 16.", path, line_of(path, "pl.load(a, [i * 8"), 1)
    mod.load_rows(a, out, 0, 2)  # the next call works
    torch.testing.assert_close(out, a[8:16])


def test_B04_negative_offset_at_run_time(kmod):
    mod, path = kmod
    a = torch.randn(16, 16)
    out = torch.zeros(8, 16)
    with pytest.raises(PTORuntimeError) as e:
        mod.load_rows(a, out, -1, 1)  # i = -1: offset -8
    assert e.value.code == 12
    assert "pl.load: offset 0 is negative (-8)" in str(e.value)
    assert "(at %s:%d:%d)" % (path, *line_of(path, "pl.load(a, [i * 8")) in str(e.value)
    mod.load_rows(a, out, 0, 1)
    torch.testing.assert_close(out, a[:8])


def test_B04_store_past_the_end_at_run_time(kmod):
    mod, path = kmod
    a = torch.ones(8, 16)
    out = torch.full((16, 16), -1.0)
    with pytest.raises(PTORuntimeError) as e:
        mod.store_rows(a, out, 3)  # i = 2 writes rows 16..23 of 16
    assert_task_failed(e.value, "pl.store writes past the end of dimension 0: offset 16 + extent 8 exceeds "
                       "the destination extent 16.", path, line_of(path, "pl.store(pl.add(t, i)"), 1)
    out = torch.full((16, 16), -1.0)
    mod.store_rows(a, out, 2)
    torch.testing.assert_close(out, torch.cat([torch.ones(8, 16), torch.full((8, 16), 2.0)]))


@pytest.mark.parametrize("dtype", [torch.int32, torch.int8])
def test_B10_integer_division_by_a_zero_tile(kmod, dtype):
    mod, path = kmod
    a = torch.arange(128).reshape(8, 16).to(dtype)
    b = torch.full((8, 16), 3, dtype=dtype)
    b[5, 7] = 0
    out = torch.full((8, 16), 77, dtype=dtype)
    with pytest.raises(PTORuntimeError) as e:
        mod.div_tiles(a, b, out)
    assert_task_failed(e.value, "pl.div: integer division by zero", path, line_of(path, "pl.div(t, pl.load"), 0)
    assert bool((out == 77).all())  # the failed task stored nothing
    b[5, 7] = -3
    mod.div_tiles(a, b, out)  # the next call works
    torch.testing.assert_close(out, torch.div(a.long(), b.long(), rounding_mode="trunc").to(dtype))


@pytest.mark.parametrize("dtype", [np.int32, np.int8])
def test_B10_integer_division_by_a_zero_scalar(kmod, dtype):
    mod, path = kmod
    a = np.arange(128).reshape(8, 16).astype(dtype)
    out = np.zeros((8, 16), dtype)
    with pytest.raises(PTORuntimeError) as e:
        mod.div_scalar(a, 0, out)
    assert_task_failed(e.value, "pl.div: integer division by zero", path,
                       line_of(path, "pl.div(t, s)"), 0)
    mod.div_scalar(a, -5, out)
    np.testing.assert_array_equal(out, np.trunc(a / -5.0).astype(dtype))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_float_division_by_zero_is_not_an_error(kmod, dtype):
    mod, _ = kmod
    a = torch.tensor([1.0, -1.0, 0.0] + [2.0] * 125).reshape(8, 16).to(dtype)
    b = torch.zeros(8, 16, dtype=dtype)
    out = torch.zeros(8, 16, dtype=dtype)
    mod.div_tiles(a, b, out)
    flat = out.float().view(-1)
    assert flat[0] == float("inf") and flat[1] == float("-inf") and bool(torch.isnan(flat[2]))
    mod.div_scalar(a, 0.0, out)
    assert out.float().view(-1)[0] == float("inf")


def test_C05_threads_with_different_kernels_and_a_failing_thread(kmod):
    """Calls from several threads are serialized or isolated: a thread whose calls fail
    (division by zero) never corrupts another thread's results."""
    mod, _ = kmod
    errors, done = [], {}
    a_int = torch.arange(128, dtype=torch.int32).reshape(8, 16)
    zero = torch.zeros(8, 16, dtype=torch.int32)
    big = torch.randn(64, 16)

    def failing():
        try:
            for _ in range(15):
                with pytest.raises(PTORuntimeError) as e:
                    mod.div_tiles(a_int, zero, torch.zeros(8, 16, dtype=torch.int32))
                assert e.value.code == 12 and "integer division by zero" in str(e.value)
            done["failing"] = True
        except BaseException as e:  # noqa: BLE001
            errors.append(("failing", e))

    def rows():
        try:
            for k in range(15):
                out = torch.full((64, 16), -1.0)
                mod.store_rows(big[:8], out, 8)
                want = torch.cat([big[:8] + i for i in range(8)])
                torch.testing.assert_close(out, want)
            done["rows"] = True
        except BaseException as e:  # noqa: BLE001
            errors.append(("rows", e))

    def divs():
        try:
            for k in range(15):
                a = np.arange(128, dtype=np.int8).reshape(8, 16)
                out = np.zeros((8, 16), np.int8)
                mod.div_scalar(a, 3 + k % 2, out)
                np.testing.assert_array_equal(out, (a // (3 + k % 2)).astype(np.int8))
            done["divs"] = True
        except BaseException as e:  # noqa: BLE001
            errors.append(("divs", e))

    threads = [threading.Thread(target=f) for f in (failing, rows, divs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not any(t.is_alive() for t in threads), "a thread hung"
    assert not errors, errors
    assert done == {"failing": True, "rows": True, "divs": True}
