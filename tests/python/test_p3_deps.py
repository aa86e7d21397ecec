"""Dependency directives (DSL-V2-SPEC §8; package P3, rows P3-13..P3-19; docs/dsl.md,
"Dependency directives"): no_dep_args= and pl.no_dep remove a task's edges on one tensor
(scope stats) and keep its lifetime (tiny ring_heap, values against numpy), manual_dep=True
orders only by deps=, task_dummy joins producers and counts as a task, predicate= skips a
task and still releases its consumers, allow_early_resolve= is a checked hint; every text
with its line and column."""
import json
import os

import numpy as np
import pytest
import torch

import run_stats
from pypto.language.parser.diagnostics import (InvalidOperationError, ParserSyntaxError, ParserTypeError, PassError,
                                             UnsupportedFeatureError)
from pypto.runtime import RunConfig

from conftest import line_of


def _peak_dep_pool(work_dir):
    with open(run_stats.stats_file(work_dir)) as f:
        return max(json.loads(line)["peak_dep_pool"] for line in f.readlines()[1:])


# A program whose tasks nothing orders races by design (that is what its test shows);
# ThreadSanitizer would report the race, so under it such runs are left out.
UNORDERED_RUNS = os.environ.get("PTO_SANITIZER") != "thread"
UNORDERED = pytest.mark.skipif(not UNORDERED_RUNS, reason="unordered tasks race by design under ThreadSanitizer")


def _stats(tmp_path, **kw):
    """Scope stats on 2 workers; under a sanitizer the slow tasks may run past the default
    stall bound, so it is raised there."""
    if os.environ.get("PTO_SANITIZER"):
        kw.setdefault("stall_timeout_ms", 60000)
    return RunConfig(enable_scope_stats=True, save_kernels_dir=str(tmp_path), num_workers=2, **kw)


def _error(load, src, args, exc, want, needle, nth=0):
    mod, path = load(src)
    fn = getattr(mod, "k", None) or getattr(mod, "P")
    with pytest.raises(exc) as e:
        fn(*args)
    assert e.value.message == want
    assert (e.value.span["line"], e.value.span["column"]) == line_of(path, needle, nth)
    return e.value


# The first writer's adds: it must still run when the second writer is submitted (a finished
# producer leaves no edge to count), also with the orchestrator descheduled beside other tests.
SLOW_ADDS = 20000


def _slow(text):
    return text.replace("SLOW", str(SLOW_ADDS))


def _a(rows=128, cols=128):
    return torch.from_numpy(np.random.default_rng(3).standard_normal((rows, cols)).astype(np.float32))


# ---- P3-13: pl.at(no_dep_args=[t]) -------------------------------------------------------------

TWO_WRITERS = """
    @pl.jit
    def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(a, [0, 0], [64, 128])
            for j in pl.range(SLOW):
                t = pl.add(t, 1.0)
            pl.store(t, [0, 0], out)
        with pl.at(level=pl.Level.CORE_GROUP NODEP):
            r = 0
            r = r + 64
            pl.store(pl.load(a, [64, 0], [64, 128]), [r, 0], out)
        return out
"""


@pytest.mark.parametrize("nodep, edges", [(", no_dep_args=[out]", False), ("", True)])
def test_p3_13_no_dep_args_removes_the_edge(load, tmp_path, nodep, edges):
    """The second writer's footprint is all of out (a local offset), so it orders after the
    first (WAW: a dep-pool entry) unless out is listed; the values do not change."""
    mod, _ = load(_slow(TWO_WRITERS).replace("NODEP", nodep))
    a, out = _a(), torch.zeros(128, 128)
    mod.k(a, out, config=_stats(tmp_path))
    want = a.numpy().copy()
    for _ in range(SLOW_ADDS):
        want[:64] += np.float32(1.0)
    np.testing.assert_array_equal(out.numpy(), want)
    assert (_peak_dep_pool(tmp_path) > 0) == edges


LIFETIME = """
    @pl.jit
    def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
        for i in pl.range(8):
            tmp = pl.create_tensor([16, 64], pl.FP32)
            with pl.at(level=pl.Level.CORE_GROUP) as t1:
                pl.store(pl.load(a, [i * 16, 0], [16, 64]), [0, 0], tmp)
            with pl.at(level=pl.Level.CORE_GROUP, no_dep_args=[tmp], deps=[t1]):
                t = pl.load(tmp, [0, 0], [16, 64])
                for j in pl.range(300):
                    t = pl.add(t, 1.0)
                pl.store(t, [i * 16, 0], out)
        return out
"""


def test_p3_13_no_dep_args_keeps_the_tensor_alive(load):
    """tmp is NO_DEP for its reader, whose scope (the trip) ends at once: a 4 KiB ring heap
    holds one tmp, so the next trip's tmp would reuse its bytes under the running reader
    unless the reader keeps it (the creator edge): every band still holds a + 300."""
    mod, _ = load(LIFETIME)
    a, out = _a(128, 64), torch.zeros(128, 64)
    mod.k(a, out, config=RunConfig(ring_heap=4096, num_workers=2))
    want = a.numpy().copy()
    for _ in range(300):
        want += np.float32(1.0)
    np.testing.assert_array_equal(out.numpy(), want)


NDA = """
    @pl.jit
    def k(a: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar[pl.INDEX]):
        with pl.at(level=pl.Level.CORE_GROUP, no_dep_args=LIST):
            pl.store(pl.load(a, [0, 0], [8, 8]), [0, 0], out)
        return out
"""


@pytest.mark.parametrize("lst, exc, want, needle", [
    ("out", ParserTypeError, "pl.at(no_dep_args=...) must be a list literal of tensor names", "out):"),
    ("(out,)", ParserTypeError, "pl.at(no_dep_args=...) must be a list literal of tensor names", "(out,)"),
    ("[out[0]]", ParserTypeError, "pl.at(no_dep_args=...) entries must be bare tensor names", "out[0]"),
    ("[zz]", ParserTypeError, "pl.at(no_dep_args=...) references unknown name 'zz'", "zz"),
    ("[n]", ParserTypeError, "pl.at(no_dep_args=...) entry 'n' is not a tensor (got type pl.Scalar[pl.INDEX])", "n]"),
    ("[out, a, out]", ParserTypeError, "pl.at(no_dep_args=...) lists 'out' more than once", "out]"),
    ("[a, w]", PassError, "pl.at(no_dep_args=...) lists 'w', which the scope body does not use", "w]"),
])
def test_p3_13_no_dep_args_texts(load, lst, exc, want, needle):
    src = NDA.replace("LIST", lst)
    if "w]" in lst:
        src = src.replace("n: pl.Scalar[pl.INDEX]", "n: pl.Scalar[pl.INDEX], w: pl.Tensor")
    args = (torch.zeros(8, 8), torch.zeros(8, 8), 2) + ((torch.zeros(8, 8),) if "w]" in lst else ())
    _error(load, src, args, exc, want, needle)


def test_p3_13_no_dep_args_in_an_inline_function(load):
    """The names of a spliced pl.at follow the callee's renaming: o is the caller's out."""
    mod, _ = load("""
    @pl.jit.inline
    def helper(x: pl.Tensor, o: pl.Tensor):
        with pl.at(level=pl.Level.CORE_GROUP, no_dep_args=[o]):
            pl.store(pl.load(x, [0, 0], [8, 8]), [0, 0], o)
        return o

    @pl.jit
    def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
        out = helper(a, out)
        return out
    """)
    a, out = _a(8, 8), torch.zeros(8, 8)
    mod.k(a, out)
    assert torch.equal(out, a)
    assert "self.k_incore_0(a, pl.no_dep(out))" in mod.k.lower(a, out)


def test_p3_13_no_dep_args_round_trip(load):
    mod, _ = load(NDA.replace("LIST", "[out, a]").replace("CORE_GROUP,", "CORE_GROUP, allow_early_resolve=True,"))
    text = mod.k.lower(torch.zeros(8, 8), torch.zeros(8, 8), 2)
    assert "self.k_incore_0(pl.no_dep(a), pl.no_dep(out))" in text


# ---- P3-14: pl.no_dep(t) -----------------------------------------------------------------------

PROGRAM = """
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def slow(self, a: pl.Tensor[[128, 128], pl.FP32], out: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
            t = pl.load(a, [0, 0], [64, 128])
            for j in pl.range(SLOW):
                t = pl.add(t, 1.0)
            pl.store(t, [0, 0], out)
            return out

        @pl.function(type=pl.FunctionType.InCore)
        def other(self, a: pl.Tensor[[128, 128], pl.FP32], out: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
            r = 0
            r = r + 64
            pl.store(pl.load(a, [64, 0], [64, 128]), [r, 0], out)
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[128, 128], pl.FP32], out: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
            out = self.slow(a, out)
            SECOND
            return out
"""


@pytest.mark.parametrize("second, edges", [
    ("out = self.other(a, pl.no_dep(out))", False),
    ("out = self.other(out=pl.no_dep(out), a=a)", False),
    ("out = self.other(pl.no_dep(a), out)", True),  # only that argument: out still orders
    ("out, tid = pl.submit(self.other, a, pl.no_dep(out))", False),
])
def test_p3_14_no_dep_argument_removes_that_edge(load, tmp_path, second, edges):
    mod, _ = load(_slow(PROGRAM).replace("SECOND", second))
    a, out = _a(), torch.zeros(128, 128)
    mod.P(a, out, config=_stats(tmp_path))
    want = a.numpy().copy()
    for _ in range(SLOW_ADDS):
        want[:64] += np.float32(1.0)
    np.testing.assert_array_equal(out.numpy(), want)
    assert (_peak_dep_pool(tmp_path) > 0) == edges


@pytest.mark.parametrize("stmt, exc, want, needle", [
    ("x = pl.no_dep(a)", ParserSyntaxError, "pl.no_dep() is only allowed as a kernel-call argument", "pl.no_dep"),
    ("with pl.at(level=pl.Level.CORE_GROUP):\n            pl.store(pl.load(pl.no_dep(a), [0, 0], [8, 8]), [0, 0], out)",
     ParserSyntaxError, "pl.no_dep() is only allowed as a kernel-call argument", "pl.no_dep"),
    ("out = g(pl.no_dep(s), out)", ParserTypeError, "pl.no_dep() expects a tensor, got pl.Scalar[pl.FP32]", "s), out"),
    ("out = h(pl.no_dep(a), out)", ParserSyntaxError, "pl.no_dep() is only allowed as a kernel-call argument", "pl.no_dep"),
])
def test_p3_14_no_dep_texts(load, stmt, exc, want, needle):
    src = """
    @pl.jit.incore
    def g(s: pl.Scalar[pl.FP32], out: pl.Out[pl.Tensor]):
        pl.store(pl.full([8, 8], dtype=pl.FP32, value=s), [0, 0], out)
        return out

    @pl.jit.inline
    def h(a: pl.Tensor, out: pl.Tensor):
        return out

    @pl.jit
    def k(a: pl.Tensor, out: pl.Out[pl.Tensor], s: pl.Scalar[pl.FP32]):
        STMT
        return out
    """.replace("STMT", stmt)
    _error(load, src, (torch.zeros(8, 8), torch.zeros(8, 8), 1.0), exc, want, needle)


# ---- P3-15: pl.create_tensor(..., manual_dep=True) ---------------------------------------------

MANUAL = """
    @pl.jit
    def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
        for i in pl.range(8):
            tmp = pl.create_tensor([16, 64], pl.FP32, manual_dep=True)
            with pl.at(level=pl.Level.CORE_GROUP) as t1:
                t = pl.load(a, [i * 16, 0], [16, 64])
                for j in pl.range(SLOW):
                    t = pl.add(t, 1.0)
                pl.store(t, [0, 0], tmp)
            with pl.at(level=pl.Level.CORE_GROUP DEPS):
                t = pl.load(tmp, [0, 0], [16, 64])
                for j in pl.range(300):
                    t = pl.add(t, 1.0)
                pl.store(t, [i * 16, 0], out)
        return out
"""


def test_p3_15_manual_dep_orders_only_by_deps(load, tmp_path):
    """With deps=[t1] the reader follows its producer (values), and a 4 KiB ring heap (one
    tmp) never hands tmp's bytes to the next trip under the running reader."""
    mod, _ = load(MANUAL.replace("SLOW", "200").replace(" DEPS", ", deps=[t1]"))
    a, out = _a(128, 64), torch.zeros(128, 64)
    mod.k(a, out, config=RunConfig(ring_heap=4096, num_workers=2))
    want = a.numpy().copy()
    for _ in range(500):
        want += np.float32(1.0)
    np.testing.assert_array_equal(out.numpy(), want)


def test_p3_15_manual_dep_without_deps_has_no_edge(load, tmp_path):
    """Without deps= nothing orders the reader after the writer of tmp: no dep-pool entry
    on either side, where the same program without manual_dep has one (RAW).  Under
    ThreadSanitizer only the ordered half runs."""
    for manual, edges in ((True, False), (False, True))[0 if UNORDERED_RUNS else 1:]:
        src = MANUAL.replace("SLOW", "3000").replace(" DEPS", "")
        if not manual:
            src = src.replace(", manual_dep=True", "")
        mod, _ = load(src)
        d = tmp_path / str(manual)
        mod.k(_a(128, 64), torch.zeros(128, 64), config=_stats(d))
        assert (_peak_dep_pool(d) > 0) == edges


def test_p3_15_manual_dep_round_trip(load):
    mod, _ = load(MANUAL.replace("SLOW", "2").replace(" DEPS", ", deps=[t1]"))
    text = mod.k.lower(torch.zeros(128, 64), torch.zeros(128, 64))
    assert "tmp = pl.create_tensor([16, 64], pl.FP32, manual_dep=True)" in text


# ---- P3-17: pl.system.task_dummy ---------------------------------------------------------------

DUMMY = """
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def band(self, a: pl.Tensor[[128, 64], pl.FP32], out: pl.Out[pl.Tensor[[128, 64], pl.FP32]], i: pl.Scalar[pl.INDEX]) -> pl.Tensor[[128, 64], pl.FP32]:
            t = pl.load(a, [i * 32, 0], [32, 64])
            for j in pl.range(500):
                t = pl.add(t, 1.0)
            pl.store(t, [i * 32, 0], out)
            return out

        @pl.function(type=pl.FunctionType.InCore)
        def twice(self, x: pl.Tensor[[128, 64], pl.FP32], out: pl.Out[pl.Tensor[[128, 64], pl.FP32]]) -> pl.Tensor[[128, 64], pl.FP32]:
            t = pl.load(x, [0, 0], [128, 64])
            pl.store(pl.add(t, t), [0, 0], out)
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[128, 64], pl.FP32], mid: pl.Out[pl.Tensor[[128, 64], pl.FP32]], out: pl.Out[pl.Tensor[[128, 64], pl.FP32]]) -> pl.Tensor[[128, 64], pl.FP32]:
            with pl.manual_scope():
                m0, t0 = pl.submit(self.band, a, mid, 0)
                m1, t1 = pl.submit(self.band, a, mid, 1)
                m2, t2 = pl.submit(self.band, a, mid, 2)
                m3, t3 = pl.submit(self.band, a, mid, 3)
                d = pl.system.task_dummy(deps=[t0, t1, t2, t3])
                o, t4 = pl.submit(self.twice, mid, out, deps=[d])
            return out
"""


def test_p3_17_task_dummy_joins_four_producers(load, tmp_path):
    """In a manual scope only deps= orders: the reader of all four bands waits on the dummy
    alone, and sees every band written; the scope counts 4 + 1 dummy + 1 tasks."""
    mod, _ = load(DUMMY)
    a, mid, out = _a(128, 64), torch.zeros(128, 64), torch.zeros(128, 64)
    mod.P(a, mid, out, config=_stats(tmp_path))
    want = a.numpy().copy()
    for _ in range(500):
        want += np.float32(1.0)
    np.testing.assert_array_equal(out.numpy(), want + want)
    _, scopes = run_stats.read(tmp_path)
    assert max(tasks for _site, _ring, tasks in scopes) == 6


def test_p3_17_task_dummy_round_trip(load):
    mod, _ = load(DUMMY)
    text = mod.P.lower(torch.zeros(128, 64), torch.zeros(128, 64), torch.zeros(128, 64))
    assert "d = pl.system.task_dummy(deps=[t0, t1, t2, t3])" in text


def test_p3_17_task_dummy_texts(load):
    _error(load, """
    @pl.jit
    def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            d = pl.system.task_dummy(deps=[])
            pl.store(pl.load(a, [0, 0], [8, 8]), [0, 0], out)
        return out
    """, (torch.zeros(8, 8), torch.zeros(8, 8)), InvalidOperationError,
           "pl.system.task_dummy is control-plane work and is not allowed in kernel code "
           "(inside a pl.at(level=pl.Level.CORE_GROUP) body)", "pl.system.task_dummy")
    import pypto.language as pl
    with pytest.raises(RuntimeError) as e:
        pl.system.task_dummy(deps=[])
    assert str(e.value).startswith("pl.system.task_dummy can only be used inside kernel code")


# ---- P3-18: predicate= -------------------------------------------------------------------------

PRED = """
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def inc(self, x: pl.Tensor[[8, 16], pl.FP32], out: pl.Out[pl.Tensor[[8, 16], pl.FP32]]) -> pl.Tensor[[8, 16], pl.FP32]:
            pl.store(pl.add(pl.load(x, [0, 0], [8, 16]), 1.0), [0, 0], out)
            return out

        @pl.function(type=pl.FunctionType.InCore)
        def setflag(self, f: pl.Out[pl.Tensor[[4], pl.INT32]]) -> pl.Tensor[[4], pl.INT32]:
            pl.write(f, [2], 1)
            return f

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[8, 16], pl.FP32], flags: pl.Tensor[[4], pl.INT32], mid: pl.Out[pl.Tensor[[8, 16], pl.FP32]], out: pl.Out[pl.Tensor[[8, 16], pl.FP32]]) -> pl.Tensor[[8, 16], pl.FP32]:
            flags = self.setflag(flags)
            m, t0 = pl.submit(self.inc, a, mid, predicate=(flags[I] == 1))
            o, t1 = pl.submit(self.inc, mid, out, deps=[t0])
            return out
"""


@pytest.mark.parametrize("i, runs", [(1, False), (2, True)])
def test_p3_18_predicate_skips_or_runs(load, i, runs):
    """flags[2] is set by a task before (the flag is an In argument: the predicate reads it
    after its writer); a false predicate leaves mid untouched and still releases its
    consumer."""
    mod, _ = load(PRED.replace("[I]", "[%d]" % i))
    a = _a(8, 16)
    flags, mid, out = torch.zeros(4, dtype=torch.int32), torch.full((8, 16), 5.0), torch.zeros(8, 16)
    mod.P(a, flags, mid, out)
    want_mid = a.numpy() + np.float32(1) if runs else np.full((8, 16), 5, np.float32)
    np.testing.assert_array_equal(mid.numpy(), want_mid)
    np.testing.assert_array_equal(out.numpy(), want_mid + np.float32(1))


def test_p3_18_predicate_round_trip(load):
    mod, _ = load(PRED.replace("[I] == 1", "[2] >= -3"))
    text = mod.P.lower(torch.zeros(8, 16), torch.zeros(4, dtype=torch.int32), torch.zeros(8, 16), torch.zeros(8, 16))
    assert "m, t0 = pl.submit(self.inc, a, mid, predicate=(flags[2] >= -3))" in text


SHAPE = "predicate= must be one comparison 't[i] <op> <int literal>'"


@pytest.mark.parametrize("pred, exc, want, needle", [
    ("(flags[1])", ParserSyntaxError, SHAPE, "flags[1])"),
    ("(flags[1] == 1.5)", ParserSyntaxError, SHAPE, "flags[1] == 1.5"),
    ("(flags[1] == n)", ParserSyntaxError, SHAPE, "flags[1] == n"),
    ("(1 == flags[1])", ParserSyntaxError, SHAPE, "1 == flags[1]"),
    ("(flags[0:2] == 1)", ParserSyntaxError, SHAPE, "0:2"),
])
def test_p3_18_predicate_texts(load, pred, exc, want, needle):
    src = PRED.replace("predicate=(flags[I] == 1)", "predicate=" + pred).replace(
        "out: pl.Out[pl.Tensor[[8, 16], pl.FP32]]) -> pl.Tensor[[8, 16], pl.FP32]:\n            flags",
        "out: pl.Out[pl.Tensor[[8, 16], pl.FP32]], n: pl.Scalar[pl.INT32]) -> pl.Tensor[[8, 16], pl.FP32]:\n            flags")
    args = (torch.zeros(8, 16), torch.zeros(4, dtype=torch.int32), torch.zeros(8, 16), torch.zeros(8, 16), 1)
    _error(load, src, args, exc, want, needle)


def test_p3_18_predicate_on_pl_at(load):
    _error(load, """
    @pl.jit
    def k(a: pl.Tensor, flags: pl.Tensor, out: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP, predicate=(flags[0] == 1)):
            pl.store(pl.load(a, [0, 0], [8, 8]), [0, 0], out)
        return out
    """, (torch.zeros(8, 8), torch.zeros(4, dtype=torch.int32), torch.zeros(8, 8)), ParserSyntaxError,
           "pl.at() does not accept predicate=; use pl.submit(...)", "predicate=")


def test_p3_18_predicate_index_out_of_range(load):
    from pypto.runtime import PTORuntimeError
    mod, path = load(PRED.replace("[I]", "[7]"))
    with pytest.raises(PTORuntimeError) as e:
        mod.P(_a(8, 16), torch.zeros(4, dtype=torch.int32), torch.zeros(8, 16), torch.zeros(8, 16))
    assert e.value.code == 9
    assert "predicate=" in str(e.value) and ":%d:" % line_of(path, "predicate=")[0] in str(e.value)


# ---- P3-19: allow_early_resolve= ---------------------------------------------------------------

@pytest.mark.parametrize("form", ["at", "submit"])
def test_p3_19_allow_early_resolve_is_a_checked_hint(load, form):
    for value in ("True", "False"):
        mod, _ = load(PRED.replace("predicate=(flags[I] == 1)", "allow_early_resolve=" + value))
        a, mid, out = _a(8, 16), torch.zeros(8, 16), torch.zeros(8, 16)
        mod.P(a, torch.zeros(4, dtype=torch.int32), mid, out)
        np.testing.assert_array_equal(out.numpy(), a.numpy() + np.float32(1) + np.float32(1))
    if form == "submit":
        src = PRED.replace("predicate=(flags[I] == 1)", 'allow_early_resolve="yes"')
        args = (torch.zeros(8, 16), torch.zeros(4, dtype=torch.int32), torch.zeros(8, 16), torch.zeros(8, 16))
        _error(load, src, args, ParserSyntaxError, "pl.submit() allow_early_resolve must be a boolean literal (True/False)", '"yes"')
    else:
        _error(load, NDA.replace("no_dep_args=LIST", "allow_early_resolve=None"), (torch.zeros(8, 8), torch.zeros(8, 8), 2),
               ParserSyntaxError, "pl.at() allow_early_resolve must be a boolean literal (True/False)", "None")


# ---- P3-16: TASK_ID arrays ---------------------------------------------------------------------

ARRAY = """
    @pl.jit
    def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
        scratch = pl.create_tensor([64, 32], pl.FP32, manual_dep=True)
        writers = pl.array.create(6, pl.TASK_ID)
        for i in pl.range(4):
            with pl.at(level=pl.Level.CORE_GROUP) as tid:
                t = pl.load(a, [i * 16, 0], [16, 32])
                for j in pl.range(400):
                    t = pl.add(t, 1.0)
                pl.store(t, [i * 16, 0], scratch)
            writers[i] = tid
        with pl.at(level=pl.Level.CORE_GROUP DEPS):
            pl.store(pl.load(scratch, [0, 0], [64, 32]), [0, 0], out)
        return out
"""


def _bands(a, n=400):
    w = a.numpy().copy()
    for _ in range(n):
        w += np.float32(1.0)
    return w


@pytest.mark.parametrize("deps", [", deps=[writers]", ", deps=[writers[0], writers[1], writers[2], writers[3], None]",
                                  pytest.param(", deps=[writers[4]]", marks=UNORDERED)])
def test_p3_16_array_deps_wait_for_every_filled_slot(load, tmp_path, deps):
    """Four of six slots filled in a loop (implicit rebinding); deps=[writers] waits on the four
    (the two empty slots add nothing), as do the four elements; an empty slot alone orders
    nothing: the reader has no edge (scope stats)."""
    mod, _ = load(ARRAY.replace(" DEPS", deps))
    a, out = _a(64, 32), torch.zeros(64, 32)
    mod.k(a, out, config=_stats(tmp_path))
    if "writers[4]]" in deps:
        assert _peak_dep_pool(tmp_path) == 0
    else:
        np.testing.assert_array_equal(out.numpy(), _bands(a))
        assert _peak_dep_pool(tmp_path) > 0


def test_p3_16_array_round_trip(load):
    mod, _ = load(ARRAY.replace(" DEPS", ", deps=[writers]"))
    text = mod.k.lower(torch.zeros(64, 32), torch.zeros(64, 32))
    assert "writers = pl.array.create(6, pl.TASK_ID)" in text and "writers[i] = tid" in text
    assert "deps=[writers])" in text


CARRIED = """
    @pl.jit
    def k(a: pl.Tensor, out: pl.Out[pl.Tensor], cfg: pl.Tensor):
        ids = pl.array.create(4, pl.TASK_ID)
        n = pl.read(cfg, [0])
        with pl.manual_scope():
            for i in pl.range(4):
                with pl.at(level=pl.Level.CORE_GROUP) as tid:
                    t = pl.load(a, [i * 16, 0], [16, 32])
                    for j in pl.range(400):
                        t = pl.add(t, 1.0)
                    pl.store(t, [i * 16, 0], out)
                ids[i] = tid
            last = ids[n]
            with pl.at(level=pl.Level.CORE_GROUP, deps=[last]):
                pl.store(pl.mul(pl.load(out, [n * 16, 0], [16, 32]), 2.0), [n * 16, 0], out)
        return out
"""


def test_p3_16_array_element_read_at_run_time(load):
    """x = ids[n] with a run-time n (pl.read: AGET) orders the doubling after band n's writer,
    in a MANUAL scope where nothing else would."""
    mod, _ = load(CARRIED)
    a, out = _a(64, 32), torch.zeros(64, 32)
    mod.k(a, out, torch.tensor([2], dtype=torch.int32))
    want = _bands(a)
    want[32:48] *= np.float32(2)
    np.testing.assert_array_equal(out.numpy(), want)


def test_p3_16_array_index_out_of_range_at_run_time(load):
    from pypto.runtime import PTORuntimeError
    mod, path = load(CARRIED)
    with pytest.raises(PTORuntimeError) as e:
        mod.k(_a(64, 32), torch.zeros(64, 32), torch.tensor([5], dtype=torch.int32))
    assert e.value.code == 9
    line, col = line_of(path, "ids[n]")
    assert "pl.array index 5 is out of range for an array of 4 at %s:%d:%d" % (path, line, col) in str(e.value)


ARR_ERR = """
    @pl.jit.inline
    def g(x, out: pl.Tensor):
        return out

    @pl.jit
    def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
        ids = pl.array.create(4, pl.TASK_ID)
        with pl.at(level=pl.Level.CORE_GROUP) as t0:
            pl.store(pl.load(a, [0, 0], [8, 8]), [0, 0], out)
        STMT
        return out
"""


@pytest.mark.parametrize("stmt, exc, want, needle", [
    ("ids[0, 1] = t0", ParserTypeError, "Array subscript-write requires a single index (rank-1 in v1)", "ids[0, 1]"),
    ("ids[4] = t0", InvalidOperationError, "pl.array index 4 is out of range for an array of 4", "4] = t0"),
    ("x = ids[-1]", InvalidOperationError, "pl.array index -1 is out of range for an array of 4", "-1"),
    ("with pl.at(level=pl.Level.CORE_GROUP, deps=[ids, t0]):\n            pass", ParserSyntaxError,
     "'pl.at' deps= cannot mix a whole TASK_ID array with per-element entries", "t0]"),
    ("with pl.at(level=pl.Level.CORE_GROUP, deps=[ids[0], ids]):\n            pass", ParserSyntaxError,
     "'pl.at' deps= cannot mix a whole TASK_ID array with per-element entries", "ids]"),
    ("with pl.at(level=pl.Level.CORE_GROUP, deps=[t0, 1 + 2]):\n            pass", ParserSyntaxError,
     "'pl.at' deps= entries must be a TaskId variable, a TASK_ID array element (e.g. arr[i]), or None — got '1 + 2'", "1 + 2"),
    ("d = pl.system.task_dummy(deps=[a])", ParserSyntaxError,
     "'pl.system.task_dummy' deps= entries must be a TaskId variable, a TASK_ID array element (e.g. arr[i]), or None — got 'a'",
     "a])"),
    ("x = pl.array.create(4, pl.INT32)", UnsupportedFeatureError, "pl.array of pl.INT32 is not supported in this version",
     "pl.INT32"),
    ("x = pl.array.create(0, pl.TASK_ID)", ParserTypeError, "pl.array.create() size must be a constant integer >= 1", "0, pl"),
    ("with pl.at(level=pl.Level.CORE_GROUP) as t1:\n            ids[0] = t1", InvalidOperationError,
     "a TASK_ID array element is control-plane work and is not allowed in kernel code "
     "(inside a pl.at(level=pl.Level.CORE_GROUP) body)", "ids[0] = t1"),
    ("with pl.at(level=pl.Level.CORE_GROUP):\n            ids = pl.array.create(2, pl.TASK_ID)", InvalidOperationError,
     "pl.array.create is control-plane work and is not allowed in kernel code (inside a pl.at(level=pl.Level.CORE_GROUP) body)",
     "pl.array.create(2"),
    ("ids[0] = 3", ParserTypeError, "an element of a TASK_ID array is a TaskId, got pl.Scalar[pl.INDEX]", "3"),
    ("out = g(ids, out)", ParserTypeError, "a TaskId can only be passed in deps=", "ids, out"),
])
def test_p3_16_array_texts(load, stmt, exc, want, needle):
    _error(load, ARR_ERR.replace("STMT", stmt), (torch.zeros(8, 8), torch.zeros(8, 8)), exc, want, needle)


# ---- the lowered program (docs/compiler.md, "Lowering") -----------------------------------------

LISTING = """
    @pl.jit
    def k(a: pl.Tensor, out: pl.Out[pl.Tensor], cfg: pl.Tensor):
        tmp = pl.create_tensor([64, 128], pl.FP32, manual_dep=True)
        ids = pl.array.create(2, pl.TASK_ID)
        n = pl.read(cfg, [0])
        with pl.at(level=pl.Level.CORE_GROUP, no_dep_args=[out]) as t0:
            pl.store(pl.load(a, [0, 0], [64, 128]), [0, 0], out)
        ids[n] = t0
        x = ids[n]
        d = pl.system.task_dummy(deps=[ids, None])
        with pl.at(level=pl.Level.CORE_GROUP, deps=[d, x]):
            pl.store(pl.load(a, [0, 0], [64, 128]), [0, 0], tmp)
        return out
"""


def test_p3_directives_in_the_listing(load):
    from conftest import ptoc_lower
    _, path = load(LISTING)
    text = ptoc_lower(path, "k", "--shape", "a=64x128:fp32", "--shape", "out=64x128:fp32", "--shape", "cfg=4:int32", "--listing")
    for want in ("ALLOC t3 = [64, 128] FP32 manual_dep @6:11", "CONST r0 = -1 TASK_ID @7:11", "CONST r1 = -1 TASK_ID @7:11",
                 "t1 Out NoDep [r8:r9, r10:r11]] scalars=[] -> r12 @9:10", "ASET r0[r2] = r12 n=2 @11:5",
                 "AGET r13 = r0[r2] n=2 @12:9", "SUBMIT k=- views=[] scalars=[] deps=[r0, r1] -> r14 @13:9",
                 "deps=[r14, r13] @14:10"):
        assert want in text, want


def test_p3_16_array_through_unroll_and_init_values(load):
    """Slots filled in a pl.unroll (constant indices), the array carried through a loop's
    init_values= and pl.yield_: the doubling waits on all four writers (MANUAL scope)."""
    mod, _ = load("""
    @pl.jit
    def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
        ids = pl.array.create(4, pl.TASK_ID)
        with pl.manual_scope():
            for i in pl.unroll(4):
                with pl.at(level=pl.Level.CORE_GROUP) as tid:
                    t = pl.load(a, [i * 16, 0], [16, 32])
                    for j in pl.range(400):
                        t = pl.add(t, 1.0)
                    pl.store(t, [i * 16, 0], out)
                ids[i] = tid
            for i, (c,) in pl.range(4, init_values=(ids,)):
                o = pl.yield_(c)
            with pl.at(level=pl.Level.CORE_GROUP, deps=[o]):
                pl.store(pl.mul(pl.load(out, [0, 0], [64, 32]), 2.0), [0, 0], out)
        return out
    """)
    a, out = _a(64, 32), torch.zeros(64, 32)
    mod.k(a, out)
    np.testing.assert_array_equal(out.numpy(), _bands(a) * np.float32(2))
