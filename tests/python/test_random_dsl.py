"""Random pypto.language programs (dsl_gen.py) run through pypto against
their numpy reference: loops, ifs, nested AUTO and MANUAL scopes with deps=,
pl.at bodies and pl.submit calls over disjoint and overlapping windows,
element-wise ops with tiles and scalars, the rest of the catalog (dsl_values.py,
dsl_catalog.py), pl.create_tensor intermediates; and
dsl_unsigned.py's kernels over UINT8/UINT16/UINT32 tiles.

Every op the generator uses is exact (INT32 wraps; FP32 add/sub/mul/max/min,
neg/abs/relu, sqrt and recip are correctly rounded, rsqrt is sqrt then a
division, log is the C library's logf in kernel and reference alike), so
results compare exactly.

PTO_SOAK_PROGRAMS sets how many programs run (default 200, 40 in sanitizer
builds), PTO_DSL_SEED the first seed (default 0).  A failure names the seed
and keeps the program's file; PTO_DSL_SEED=<seed> PTO_SOAK_PROGRAMS=1
replays it."""
import contextlib
import importlib.util
import os
import sys

import numpy as np

import dsl_gen
import dsl_unsigned
from pypto.runtime import RunConfig


def _count():
    dflt = 40 if os.environ.get("PTO_SANITIZER") else 200
    return int(os.environ.get("PTO_SOAK_PROGRAMS") or dflt)


@contextlib.contextmanager
def _loaded(tmp_path, name, text):
    """text written to tmp_path/<name>.py (kept for a failure's replay) and imported: (module, path)."""
    path = tmp_path / (name + ".py")
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    try:
        spec.loader.exec_module(mod)
        yield mod, path
    finally:
        sys.modules.pop(name, None)


def _run_one(tmp_path, seed, config=None):
    prog = dsl_gen.make_program(seed)
    name = "random_dsl_%d" % seed
    where = "seed %d (%s program, %d task statements, config %r) in %s; replay: PTO_DSL_SEED=%d PTO_SOAK_PROGRAMS=1" % (
        seed, prog.dtype, prog.ntasks, config, tmp_path / (name + ".py"), seed)
    arrays, n = prog.inputs
    x0, x1, y0, y1 = (a.copy() for a in arrays)
    try:
        with _loaded(tmp_path, name, prog.text) as (mod, _):
            mod.prog(x0, x1, y0, y1, n, config=config)
    except Exception as e:
        raise AssertionError("%s: %s: %s" % (where, type(e).__name__, e)) from e
    for got, want, which in ((y0, prog.expected[0], "y0"), (y1, prog.expected[1], "y1")):
        bad = np.argwhere(got != want)
        assert bad.size == 0, "%s: %s differs at %d elements, first %s: got %r, want %r" % (
            where, which, len(bad), tuple(bad[0]), got[tuple(bad[0])], want[tuple(bad[0])])
    for a, b in zip((x0, x1), arrays[:2]):
        assert np.array_equal(a, b), "%s: an input was written" % where
    return prog.ntasks


def test_random_programs_match_numpy(tmp_path):
    first = int(os.environ.get("PTO_DSL_SEED") or 0)
    count = _count()
    tasks = sum(_run_one(tmp_path, seed) for seed in range(first, first + count))
    print("random DSL programs: %d (seeds %d..%d), %d task statements" % (count, first, first + count - 1, tasks))


def test_random_programs_match_numpy_through_the_checked_submit(tmp_path, monkeypatch):
    """PTO_CHECKED_SUBMIT=1: every task through pto_task_submit_if, each view validated, instead of
    the executor's trusted submit (which the test above runs).  The reference is exact, so both
    paths give the same bits; test_exec_trusted_submit compares their graphs edge by edge."""
    monkeypatch.setenv("PTO_CHECKED_SUBMIT", "1")
    first = int(os.environ.get("PTO_DSL_SEED") or 0)
    for seed in range(first, first + max(1, _count() // 4)):
        _run_one(tmp_path, seed)


def test_random_unsigned_kernels_match_numpy(tmp_path):
    """dsl_unsigned.py's kernels: chains of the ops the unsigned dtypes take, against numpy's uint arithmetic."""
    first = int(os.environ.get("PTO_DSL_SEED") or 0)
    for seed in range(first, first + _count()):
        prog = dsl_unsigned.make_program(seed)
        a, b = dsl_unsigned.inputs(seed, prog.dtype)
        out = np.zeros_like(a)
        with _loaded(tmp_path, "random_unsigned_%d" % seed, prog.text) as (mod, path):
            mod.k(a, b, out)
        bad = np.argwhere(out != prog.expected)
        assert bad.size == 0, "seed %d (%s) in %s: %d elements differ, first %s: got %r, want %r" % (
            seed, prog.dtype, path, len(bad), tuple(bad[0]), out[tuple(bad[0])], prog.expected[tuple(bad[0])])


def test_random_programs_same_bits_with_small_rings_and_one_or_two_workers(tmp_path):
    """The reference is exact, so equal to it is identical bits across the configurations.  A
    program whose one scope holds more tasks than 16 slots fails with the capacity error naming
    ring_task_window (the rule of test_e2e_capacity); most programs fit."""
    first = int(os.environ.get("PTO_DSL_SEED") or 0)
    count = max(1, _count() // 5)
    for workers in (1, 2):
        config = RunConfig(ring_task_window=16, ring_heap=65536, num_workers=workers)
        ran = 0
        for seed in range(first, first + count):
            try:
                _run_one(tmp_path, seed, config)
                ran += 1
            except AssertionError as e:
                if "raise ring_task_window" not in str(e.__cause__):
                    raise
        assert ran >= count * 3 // 4, "only %d of %d programs fit 16 task slots" % (ran, count)


def test_generator_is_deterministic():
    a, b = dsl_gen.make_program(7), dsl_gen.make_program(7)
    assert a.text == b.text
    for x, y in zip(a.expected, b.expected):
        assert np.array_equal(x, y)
    assert dsl_gen.make_program(8).text != a.text


def test_random_programs_print_back_and_the_printed_text_runs_the_same(tmp_path):
    """The printer's round trip over the generator's programs (every op it uses): the post-pass
    text parsed and lowered again is byte-identical, and it runs to the reference's bits."""
    import pypto.language as pl
    first = int(os.environ.get("PTO_DSL_SEED") or 0)
    for seed in range(first, first + _count()):
        prog = dsl_gen.make_program(seed)
        arrays, n = prog.inputs
        with _loaded(tmp_path, "random_dsl_printed_%d" % seed, prog.text) as (mod, path):
            text = str(mod.prog.lower(*arrays, n))
        printed = pl.parse(text)
        assert str(printed.lower(*arrays, n)) == text, "seed %d: the printed text lowers to other text (%s)" % (seed, path)
        x0, x1, y0, y1 = (a.copy() for a in arrays)
        printed(x0, x1, y0, y1, n)
        for got, want in zip((y0, y1), prog.expected):
            assert np.array_equal(got, want), "seed %d: the printed program differs from the reference (%s)" % (seed, path)


def _via_compiled(tmp_path, seed, runtime_n):
    """One random program through JITFunction.compile() and a ChipWorker (a handle and
    compiled(...) inside `with w:`), then a plain call: all three give the reference's bits.
    runtime_n: compile n as pl.RUNTIME (a run-time scalar); returns False when the program
    needs n at compile time (a shape or a static bound), which that compile then reports."""
    import pypto.language as pl
    from pypto.runtime import ChipWorker
    prog = dsl_gen.make_program(seed)
    arrays, n = prog.inputs
    with _loaded(tmp_path, "random_dsl_compiled_%d" % seed, prog.text) as (mod, _):
        try:
            compiled = mod.prog.compile(*arrays, n=pl.RUNTIME if runtime_n else n)
        except Exception:
            if runtime_n:
                return False
            raise
        results = []
        with ChipWorker() as w:
            for call in (w.register(compiled), compiled):
                x0, x1, y0, y1 = (a.copy() for a in arrays)
                assert call(x0, x1, y0, y1, n) is None
                results.append((y0, y1))
        x0, x1, y0, y1 = (a.copy() for a in arrays)
        mod.prog(x0, x1, y0, y1, n)
        results.append((y0, y1))
    for got in results:
        for g, want in zip(got, prog.expected):
            assert np.array_equal(g, want), "seed %d: compiled (runtime n: %s) differs from the reference" % (
                seed, runtime_n)
    return True


def test_random_programs_through_compile_and_chip_worker(tmp_path, monkeypatch):
    """Every 8th program of the stream (the stream itself unchanged) through compile() and a
    ChipWorker, n specialized and n as pl.RUNTIME: identical to the plain call and the reference."""
    monkeypatch.setenv("PYPTO_PROG_BUILD_DIR", str(tmp_path / "build_output"))
    first = int(os.environ.get("PTO_DSL_SEED") or 0)
    seeds = range(first, first + _count(), 8)
    for seed in seeds:
        _via_compiled(tmp_path, seed, False)
    runtime = sum(_via_compiled(tmp_path, seed, True) for seed in seeds)
    print("random DSL programs through compile(): %d, %d of them with n as pl.RUNTIME" % (len(seeds), runtime))


def test_random_dynamic_programs_one_compile_every_extent(tmp_path):
    """dsl_gen.make_dynamic_program: one compiled program per seed, each extent == numpy."""
    count = max(1, _count() // 4)
    for seed in range(count):
        prog = dsl_gen.make_dynamic_program(seed)
        with _loaded(tmp_path, "random_dyn_%d" % seed, prog.text) as (mod, path):
            for extent in prog.extents:
                x = prog.inputs(extent)
                y = np.zeros_like(x)
                mod.prog(*((x, np.array([extent], dtype=np.int64), y) if prog.runtime else (x, y)))
                np.testing.assert_array_equal(y, prog.expected(x), err_msg="seed %d extent %d in %s" % (seed, extent, path))
            assert mod.prog.cache_info()[1] == 1, (seed, mod.prog.cache_info())
