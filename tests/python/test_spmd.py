"""SPMD (DSL-V2-SPEC §7, §0.6; docs/dsl.md, "SPMD"): `for i in pl.spmd(n)` is one
task of n blocks (P3-07), its loop errors (P3-08), pl.spmd_submit (P3-10), the block
ops (P3-11) and pl.set_cache_policy in an SPMD body (P3-20): values against torch,
scope stats, the printed footprint, blocks seen on two workers (the per-task trace,
one event per block), each error's text, class and column, and the round trip."""
import json
import os

import pytest
import torch

import pypto.language as pl
from pypto.language.parser.diagnostics import (InvalidOperationError, ParserSyntaxError, ParserTypeError, PassError,
                                               UnsupportedFeatureError)
from pypto.runtime import PTORuntimeError, RunConfig

import run_stats
from conftest import line_of

torch.manual_seed(11)

ROWS = """
@pl.jit
def rows(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    for i in pl.spmd(8):
        t = pl.load(a, [i * 16, 0], [16, 32])
        pl.store(pl.add(pl.mul(t, 2.0), 1.0), [i * 16, 0], out)
    return out
"""


def test_p3_07_spmd_loop_stores_row_block_i(load):
    mod, _ = load(ROWS)
    a, out = torch.randn(128, 32), torch.zeros(128, 32)
    mod.rows(a, out)
    torch.testing.assert_close(out, a * 2 + 1, rtol=0, atol=0)


def test_p3_07_spmd_loop_is_one_task_with_the_union_footprint(load, tmp_path):
    mod, _ = load(ROWS)
    a, out = torch.randn(128, 32), torch.zeros(128, 32)
    mod.rows(a, out, config=RunConfig(enable_scope_stats=True, save_kernels_dir=str(tmp_path)))
    assert sum(run_stats.tasks_per_ring(tmp_path)) == 1
    text = mod.rows.lower(a, out)
    assert "pl.spmd_submit(self.rows_incore_0, a, out, core_num=8)  # a: In [0:128, 0:32]; out: Out [0:128, 0:32]\n" in text
    assert "        i = pl.get_block_idx()\n        t = pl.load(a, [i * 16, 0], [16, 32]" in text


def test_p3_07_spmd_round_trip(load):
    mod, _ = load(ROWS)
    a, out = torch.randn(128, 32), torch.zeros(128, 32)
    text = mod.rows.lower(a, out)
    parsed = pl.parse_program(text)
    assert parsed.lower(a, out) == text
    out2 = torch.zeros(128, 32)
    parsed(a, out2)
    torch.testing.assert_close(out2, a * 2 + 1, rtol=0, atol=0)
    src = mod.rows.as_python() if hasattr(mod.rows, "as_python") else None
    if src is not None:
        assert "for i in pl.spmd(8):\n" in src
        assert pl.parse_program(src).as_python() == src


def _trace_events(path):
    text = open(path).read().rstrip().rstrip(",")
    if not text.endswith("]"):
        text += "\n]"
    return [e for e in json.loads(text) if e.get("ph") == "X"]


def test_p3_07_spmd_blocks_run_on_two_workers(load, tmp_path, monkeypatch):
    """The trace (docs/runtime.md, "Task trace") has one event per block with its
    executor: some run spreads the 8 blocks of its one task over two of them."""
    mod, _ = load("""
        @pl.jit
        def heavy(a: pl.Tensor, b: pl.Tensor, out: pl.Out[pl.Tensor]):
            for i in pl.spmd(8):
                acc = pl.load(a, [i * 64, 0], [64, 64])
                for k in pl.range(8):
                    acc = pl.matmul(acc, pl.load(b, [0, 0], [64, 64]))
                pl.store(acc, [i * 64, 0], out)
            return out
        """)
    trace = tmp_path / "trace.json"
    monkeypatch.setenv("PTO_TRACE", str(trace))
    a, b, out = torch.randn(512, 64) * 0.1, torch.eye(64), torch.zeros(512, 64)
    cfg = RunConfig(num_workers=2, enable_scope_stats=True, save_kernels_dir=str(tmp_path))  # a fresh runtime: traced
    spread = False
    for _ in range(40):
        mod.heavy(a, b, out, config=cfg)
        events = sorted((e for e in _trace_events(trace) if e["args"].get("num_blocks") == 8), key=lambda e: e["ts"])
        assert len(events) % 8 == 0
        runs = [events[k:k + 8] for k in range(0, len(events), 8)]
        for run in runs:
            assert sorted(e["args"]["block"] for e in run) == list(range(8))
            assert len({e["args"]["task"] for e in run}) == 1
        if any(len({e["tid"] for e in run}) >= 2 for run in runs):
            spread = True
            break
    assert spread
    torch.testing.assert_close(out, a, rtol=1e-6, atol=1e-6)


def test_p3_07_spmd_failing_block_names_its_block(load):
    mod, path = load("""
        @pl.jit
        def bad(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            for i in pl.spmd(8):
                t = pl.load(a, [i * 16, 0], [16, 8])
                u = pl.set_validshape(t, 16, 9 - min((i - 3) * (i - 3), 1))
                pl.store(u, [i * 16, 0], out)
            return out
        """)
    with pytest.raises(PTORuntimeError) as e:
        mod.bad(torch.randn(128, 8), torch.zeros(128, 8))
    assert e.value.code == 12
    line, col = line_of(path, "pl.set_validshape(")
    assert "message=pl.set_validshape: 9 exceeds dimension 1 of extent 8 (at %s:%d:%d) (block 3 of 8);" % (path, line, col) \
        in str(e.value)


def test_p3_07_spmd_runtime_block_count_below_one_is_code_9(load):
    mod, path = load("""
        @pl.jit
        def f(n: pl.Tensor, a: pl.Tensor, out: pl.Out[pl.Tensor]):
            for i in pl.spmd(pl.read(n, [0])):
                pl.store(pl.load(a, [i * 4, 0], [4, 8]), [i * 4, 0], out)
            return out
        """)
    a, out = torch.randn(16, 8), torch.zeros(16, 8)
    mod.f(torch.tensor([4], dtype=torch.int32), a, out)
    torch.testing.assert_close(out, a, rtol=0, atol=0)
    with pytest.raises(PTORuntimeError) as e:
        mod.f(torch.tensor([0], dtype=torch.int32), a, out)
    assert e.value.code == 9
    line, col = line_of(path, "for i in pl.spmd(")
    assert "pl.spmd block count must be >= 1, got 0 at %s:%d:%d" % (path, line, col) in str(e.value)


def test_p3_07_spmd_core_num_keyword_and_hints(load):
    mod, _ = load("""
        @pl.jit
        def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            for i in pl.spmd(core_num=4, sync_start=True, name_hint="quad",
                             optimizations=[pl.split(pl.SplitMode.UP_DOWN)]):
                pl.store(pl.load(a, [i * 4, 0], [4, 8]), [i * 4, 0], out)
            return out
        """)
    a, out = torch.randn(16, 8), torch.zeros(16, 8)
    mod.f(a, out)
    torch.testing.assert_close(out, a, rtol=0, atol=0)
    text = mod.f.lower(a, out)
    assert "pl.spmd_submit(self.quad, a, out, core_num=4, sync_start=True)" in text
    assert pl.parse_program(text).lower(a, out) == text


# ---- P3-08: loop errors --------------------------------------------------------------------------

def _error(load, body, cls, args=None):
    mod, path = load(body)
    with pytest.raises(cls) as e:
        mod.f(*(args or (torch.zeros(16, 8), torch.zeros(16, 8))))
    return e.value, path


LOOP = """
@pl.jit
def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    for %s in pl.spmd(%s):
        pl.store(pl.load(a, [0, 0], [4, 8]), [0, 0], out)
    return out
"""


@pytest.mark.parametrize("head, cls, text, at", [
    ("i, j|4", ParserSyntaxError, "for ... in pl.spmd(...) must use a single loop variable", "i, j"),
    ("i|4, init_values=(1,)", ParserSyntaxError, "pl.spmd() loop form does not accept 'init_values='", "init_values"),
    ("i|4, chunk=2", ParserSyntaxError, "pl.spmd() loop form does not accept 'chunk='", "chunk"),
    ("i|4, step=2", ParserSyntaxError, "pl.spmd() loop form does not accept 'step='", "step"),
    ("i|4, stage=2", ParserSyntaxError, "pl.spmd() loop form does not accept 'stage='", "stage"),
    ("i|4, deps=[]", ParserSyntaxError, "pl.spmd() does not accept 'deps=' here", "deps"),
    ("i|", ParserSyntaxError, "pl.spmd() requires core_num (first positional argument)", "pl.spmd("),
    ("i|4, 2", ParserSyntaxError, "pl.spmd() accepts at most one positional argument (core_num)", "2)"),
    ("i|4, core_num=4", ParserSyntaxError, "pl.spmd() got multiple values for argument 'core_num'", "core_num"),
    ("i|1.5", ParserTypeError, "core_num must be an integer expression, got pl.Scalar[pl.FP32]", "1.5"),
    ("i|0", InvalidOperationError, "core_num must be a positive integer, got 0", "0)"),
    ("i|2 - 3", InvalidOperationError, "core_num must be a positive integer, got -1", "2 - 3"),
    ("i|4, sync_start=1", ParserSyntaxError, "pl.spmd() sync_start must be a boolean literal (True/False)", "1)"),
    ("i|4, predicate=True", UnsupportedFeatureError, "pl.spmd(predicate=...) is not supported in this version", "predicate"),
    ("i|4, allow_early_resolve=True", UnsupportedFeatureError,
     "pl.spmd(allow_early_resolve=...) is not supported in this version", "allow_early_resolve"),
])
def test_p3_08_spmd_loop_errors(load, head, cls, text, at):
    var, args = head.split("|")
    err, path = _error(load, LOOP % (var, args), cls)
    assert err.message == text
    assert (err.span["line"], err.span["column"]) == line_of(path, at, 0 if at != "0)" else 0)


def test_p3_08_spmd_inside_kernel_code_is_control_plane_text(load):
    err, path = _error(load, """
        @pl.jit
        def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                for i in pl.spmd(4):
                    pl.store(pl.load(a, [0, 0], [4, 8]), [0, 0], out)
            return out
        """, InvalidOperationError)
    assert err.message == ("pl.spmd is control-plane work and is not allowed in kernel code "
                           "(inside a pl.at(level=pl.Level.CORE_GROUP) body)")
    assert (err.span["line"], err.span["column"]) == line_of(path, "pl.spmd(4)")


def test_p3_08_spmd_body_where_text(load):
    err, path = _error(load, """
        @pl.jit
        def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            for i in pl.spmd(4):
                with pl.at(level=pl.Level.CORE_GROUP):
                    pl.store(pl.load(a, [0, 0], [4, 8]), [0, 0], out)
            return out
        """, InvalidOperationError)
    assert err.message == "pl.at is control-plane work and is not allowed in kernel code (inside a pl.spmd body)"


def test_p3_08_spmd_tensor_level_value_read_after_the_loop(load):
    err, path = _error(load, """
        @pl.jit
        def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            for i in pl.spmd(4):
                t = pl.mul(a, 2.0)
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.store(t, [0, 0], out)
            return out
        """, PassError)
    assert err.message == ("'t' is assigned inside a pl.spmd body and read after it; all 4 blocks would write it — "
                           "store each block's part into a tensor created before the loop")
    assert (err.span["line"], err.span["column"]) == line_of(path, "pl.store(t")


def test_p3_08_spmd_self_store_stays_valid_after(load):
    mod, _ = load("""
        @pl.jit
        def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            for i in pl.spmd(4):
                out = pl.store(pl.load(a, [i * 4, 0], [4, 8]), [i * 4, 0], out)
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.store(pl.add(pl.load(out, [0, 0], [16, 8]), 1.0), [0, 0], out)
            return out
        """)
    a, out = torch.randn(16, 8), torch.zeros(16, 8)
    mod.f(a, out)
    torch.testing.assert_close(out, a + 1, rtol=0, atol=0)


# ---- P3-10: pl.spmd_submit -------------------------------------------------------------------------

SUBMIT = """
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor, out: pl.Out[pl.Tensor]):
        i = pl.tile.get_block_idx()
        pl.store(pl.add(pl.load(a, [i * 4, 0], [4, 8]), pl.tile.get_block_num()), [i * 4, 0], out)
        return out

    @pl.function(type=pl.FunctionType.InCore)
    def twice(self, out: pl.InOut[pl.Tensor]):
        pl.store(pl.mul(pl.load(out, [0, 0], [16, 8]), 2.0), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor, out: pl.Out[pl.Tensor]):
        with pl.manual_scope():
            out, tid = pl.spmd_submit(self.k, a, out, core_num=%s)
            out, t2 = pl.submit(self.twice, out, deps=[tid])
        return out
"""


def test_p3_10_spmd_submit_returns_outs_and_task_id(load):
    mod, _ = load(SUBMIT % "4")
    a, out = torch.randn(16, 8), torch.zeros(16, 8)
    mod.P(a, out)
    torch.testing.assert_close(out, (a + 4) * 2, rtol=0, atol=0)
    text = mod.P.lower(a, out)
    assert "out, tid = pl.spmd_submit(self.k, a, out, core_num=4)  # a: In [0:16, 0:8]; out: Out [0:16, 0:8]\n" in text
    assert pl.parse_program(text).lower(a, out) == text


@pytest.mark.parametrize("n, cls, text, at", [
    ("0", InvalidOperationError, "core_num must be a positive integer, got 0", "core_num=0"),
    ("1.0", ParserTypeError, "core_num must be an integer expression, got pl.Scalar[pl.FP32]", "1.0"),
    ("4, sync_start=0", ParserSyntaxError, "pl.spmd() sync_start must be a boolean literal (True/False)", "sync_start=0"),
])
def test_p3_10_spmd_submit_core_num_texts(load, n, cls, text, at):
    mod, path = load(SUBMIT % n)
    with pytest.raises(cls) as e:
        mod.P(torch.zeros(16, 8), torch.zeros(16, 8))
    assert e.value.message == text
    line, col = line_of(path, at)
    if "=" in at:
        col += at.index("=") + 1
    assert (e.value.span["line"], e.value.span["column"]) == (line, col)


def test_p3_10_spmd_submit_requires_core_num(load):
    mod, path = load((SUBMIT % "4").replace(", core_num=4", ""))
    with pytest.raises(ParserSyntaxError) as e:
        mod.P(torch.zeros(16, 8), torch.zeros(16, 8))
    assert e.value.message == "pl.spmd() requires core_num (first positional argument)"
    assert (e.value.span["line"], e.value.span["column"]) == line_of(path, "pl.spmd_submit(")


# ---- P3-11: block ops outside SPMD -----------------------------------------------------------------

def test_p3_11_block_ops_outside_spmd_are_0_and_1(load):
    mod, _ = load("""
        @pl.jit
        def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                i = pl.get_block_idx()
                n = pl.tensor.get_block_num()
                s = pl.tile.get_subblock_idx()
                pl.store(pl.add(pl.load(a, [i * 4, 0], [4, 8]), n * 10 + s + 1), [0, 0], out)
            return out
        """)
    a, out = torch.randn(16, 8), torch.zeros(16, 8)
    mod.f(a, out)
    want = torch.zeros(16, 8)
    want[:4] = a[:4] + 11
    torch.testing.assert_close(out, want, rtol=0, atol=0)


def test_p3_11_subblock_is_0_in_spmd(load):
    mod, _ = load("""
        @pl.jit
        def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            for i in pl.spmd(4):
                j = pl.get_subblock_idx() + pl.tile.get_block_idx()
                pl.store(pl.add(pl.load(a, [j * 4, 0], [4, 8]), pl.get_block_num()), [i * 4, 0], out)
            return out
        """)
    a, out = torch.randn(16, 8), torch.zeros(16, 8)
    mod.f(a, out)
    torch.testing.assert_close(out, a + 4, rtol=0, atol=0)


@pytest.mark.parametrize("op", ["pl.tile.get_block_idx", "pl.get_block_num", "pl.tensor.get_block_idx",
                                "pl.tile.get_subblock_idx"])
def test_p3_11_block_ops_in_orchestration_are_misplaced(load, op):
    err, path = _error(load, """
        @pl.jit
        def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            i = %s()
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.store(pl.load(a, [0, 0], [4, 8]), [0, 0], out)
            return out
        """ % op, InvalidOperationError)
    name = op.split(".")[-1]
    assert err.message == "Misplaced tile op 'pl.%s' in Orchestration function 'f' (should be inside InCore block)" % name
    assert (err.span["line"], err.span["column"]) == line_of(path, op)


# ---- P3-20: pl.set_cache_policy first in an SPMD body ---------------------------------------------

def test_p3_20_set_cache_policy_in_spmd_body(load):
    mod, path = load("""
        @pl.jit
        def f(w: pl.Tensor, a: pl.Tensor, out: pl.Out[pl.Tensor]):
            for i in pl.spmd(4):
                pl.set_cache_policy(w, pl.CachePolicy.BYPASS)
                t = pl.add(pl.load(a, [i * 4, 0], [4, 8]), pl.load(w, [0, 0], [4, 8]))
                pl.store(t, [i * 4, 0], out)
            return out
        """)
    w, a, out = torch.randn(4, 8), torch.randn(16, 8), torch.zeros(16, 8)
    with pytest.warns(pl.CompileWarning if hasattr(pl, "CompileWarning") else Warning) as rec:
        mod.f(w, a, out)
    torch.testing.assert_close(out, a + w.repeat(4, 1), rtol=0, atol=0)
    text = mod.f.lower(w, a, out)
    assert "pl.load(w, [0, 0], [4, 8], cache=pl.CachePolicy.BYPASS)" in text
    assert any("BYPASS" in str(r.message) for r in rec)
    src = pl.parse_program(text)
    assert src.lower(w, a, out) == text


# ---- P3-09: with pl.spmd(...) ------------------------------------------------------------------------

WITH = """
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor, out: pl.Out[pl.Tensor]):
        i = pl.tile.get_block_idx()
        pl.store(pl.add(pl.load(a, [i * 4, 0], [4, 8]), 1.0), [i * 4, 0], out)
        return out

    @pl.function(type=pl.FunctionType.InCore)
    def twice(self, out: pl.InOut[pl.Tensor]):
        pl.store(pl.mul(pl.load(out, [0, 0], [16, 8]), 2.0), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor, out: pl.Out[pl.Tensor]):
%s
        return out
"""


def _with(load, body):
    return load(WITH % "\n".join("        " + line for line in body.strip("\n").split("\n")))


def test_p3_09_with_spmd_as_tid_then_deps(load, tmp_path):
    mod, _ = _with(load, """
with pl.manual_scope():
    with pl.spmd(4) as tid:
        out = self.k(a, out)
    out, t2 = pl.submit(self.twice, out, deps=[tid])
""")
    a, out = torch.randn(16, 8), torch.zeros(16, 8)
    mod.P(a, out, config=RunConfig(enable_scope_stats=True, save_kernels_dir=str(tmp_path)))
    torch.testing.assert_close(out, (a + 1) * 2, rtol=0, atol=0)
    assert sum(run_stats.tasks_per_ring(tmp_path)) == 2
    text = mod.P.lower(a, out)
    assert "out, tid = pl.spmd_submit(self.k, a, out, core_num=4)  # a: In [0:16, 0:8]; out: Out [0:16, 0:8]\n" in text
    assert pl.parse_program(text).lower(a, out) == text


def test_p3_09_with_spmd_dispatch_prints_back_as_written(load):
    mod, _ = _with(load, """
with pl.spmd(core_num=4, sync_start=True):
    out = self.k(a, out)
""")
    a, out = torch.randn(16, 8), torch.zeros(16, 8)
    mod.P(a, out)
    torch.testing.assert_close(out, a + 1, rtol=0, atol=0)
    text = mod.P.lower(a, out)
    assert ("            with pl.spmd(4, sync_start=True):\n"
            "                out = self.k(a, out)  # a: In [0:16, 0:8]; out: Out [0:16, 0:8]\n") in text
    assert pl.parse_program(text).lower(a, out) == text


def test_p3_09_with_spmd_kernel_code_is_outlined(load):
    mod, _ = _with(load, """
with pl.spmd(4) as t:
    j = pl.tile.get_block_idx()
    pl.store(pl.mul(pl.load(a, [j * 4, 0], [4, 8]), 3.0), [j * 4, 0], out)
""")
    a, out = torch.randn(16, 8), torch.zeros(16, 8)
    mod.P(a, out)
    torch.testing.assert_close(out, a * 3, rtol=0, atol=0)
    text = mod.P.lower(a, out)
    assert "t = pl.spmd_submit(self.main_incore_0, a, out, core_num=4)  # a: In [0:16, 0:8]; out: Out [0:16, 0:8]\n" in text
    assert pl.parse_program(text).lower(a, out) == text


@pytest.mark.parametrize("body, text, at", [
    ("with pl.spmd(4):\n    out = self.k(a, out)\n    out = self.twice(out)",
     "`with pl.spmd(...)` dispatch body launches 2 kernels; only one kernel dispatch per SPMD scope is supported.",
     "pl.spmd(4)"),
    ("with pl.spmd(4):\n    x = pl.create_tensor([4], dtype=pl.FP32)",
     "`with pl.spmd(...)` body neither reads the per-block index via `pl.tile.get_block_idx()` nor dispatches a "
     "`self.<kernel>(...)` call, so every block would run identical work.", "pl.spmd(4)"),
    ("with pl.spmd(4, deps=[]):\n    out = self.k(a, out)", "`with pl.spmd(...)` takes deps= only with an 'as' name", "[]"),
])
def test_p3_09_with_spmd_texts(load, body, text, at):
    mod, path = _with(load, body)
    with pytest.raises(ParserSyntaxError) as e:
        mod.P(torch.zeros(16, 8), torch.zeros(16, 8))
    assert e.value.message == text
    assert (e.value.span["line"], e.value.span["column"]) == line_of(path, at)


# ---- P3-12: pl.cluster() --------------------------------------------------------------------------

def test_p3_12_cluster_is_transparent(load, tmp_path):
    inner = "with pl.spmd(4):\n    out = self.k(a, out)"
    plain, _ = _with(load, inner)
    grouped, _ = _with(load, "with pl.cluster():\n" + "\n".join("    " + l for l in inner.split("\n")))
    a = torch.randn(16, 8)
    outs = []
    for k, mod in enumerate((plain, grouped)):
        out = torch.zeros(16, 8)
        d = tmp_path / str(k)
        mod.P(a, out, config=RunConfig(enable_scope_stats=True, save_kernels_dir=str(d)))
        outs.append((out, run_stats.tasks_per_ring(d)))
    torch.testing.assert_close(outs[1][0], outs[0][0], rtol=0, atol=0)
    assert outs[0][1] == outs[1][1]
    t_plain, t_grouped = plain.P.lower(a, out), grouped.P.lower(a, out)
    lines = t_grouped.split("\n")
    i = next(k for k, l in enumerate(lines) if l.strip() == "with pl.cluster():")
    depth = len(lines[i]) - len(lines[i].lstrip())
    k = i + 1
    while k < len(lines) and len(lines[k]) - len(lines[k].lstrip()) > depth:
        lines[k] = lines[k][4:]
        k += 1
    assert "\n".join(lines[:i] + lines[i + 1:]) == t_plain
    assert pl.parse_program(t_grouped).lower(a, out) == t_grouped


@pytest.mark.parametrize("body, text, at", [
    ("with pl.cluster(2):\n    pass", "pl.cluster() does not accept arguments", "pl.cluster(2)"),
    ("with pl.cluster() as c:\n    pass", "`with pl.cluster() as ...:` is not supported — the `as` clause only applies to pl.at",
     "pl.cluster()"),
    ("with pl.cluster():\n    with pl.spmd(4, predicate=True):\n        out = self.k(a, out)",
     "pl.spmd(predicate=...) is not allowed inside pl.cluster()", "predicate"),
    ("with pl.cluster():\n    for i in pl.spmd(4, allow_early_resolve=False):\n        pass",
     "pl.spmd(allow_early_resolve=...) is not allowed inside pl.cluster()", "allow_early_resolve"),
])
def test_p3_12_cluster_texts(load, body, text, at):
    mod, path = _with(load, body)
    with pytest.raises(ParserSyntaxError) as e:
        mod.P(torch.zeros(16, 8), torch.zeros(16, 8))
    assert e.value.message == text
    assert (e.value.span["line"], e.value.span["column"]) == line_of(path, at)


def test_p3_08_spmd_body_is_kernel_code_without_shapes(tmp_path):
    """`ptoc check` of an entry with unshaped parameters: a runtime scope in an SPMD loop body
    is the kernel-code text (docs/dsl.md, "pl.scope() and pl.manual_scope()")."""
    import subprocess
    from conftest import ptoc
    path = tmp_path / "unshaped.py"
    path.write_text("import pypto.language as pl\n\n@pl.jit\ndef f(a, out):\n    for i in pl.spmd(4):\n"
                    "        with pl.scope():\n            pass\n    return out\n")
    r = subprocess.run([ptoc(), "check", str(path)], capture_output=True, text=True)
    assert r.returncode == 1
    assert "%s:6:14: error: a runtime scope is not allowed in kernel code (inside a pl.spmd body)" % path in r.stderr


def test_p3_10_spmd_submit_of_a_jit_incore_kernel(load):
    mod, _ = load("""
        @pl.jit.incore
        def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            i = pl.get_block_idx()
            pl.store(pl.mul(pl.load(a, [i * 4, 0], [4, 8]), 5.0), [i * 4, 0], out)
            return out

        @pl.jit
        def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            out, tid = pl.spmd_submit(k, a, out, core_num=4, sync_start=False)
            with pl.spmd(2):
                out = k(a, out)
            return out
        """)
    a, out = torch.randn(16, 8), torch.zeros(16, 8)
    mod.f(a, out)
    torch.testing.assert_close(out, a * 5, rtol=0, atol=0)
    text = mod.f.lower(a, out)
    assert "out, tid = pl.spmd_submit(self.k, a, out, core_num=4)  # a: In [0:16, 0:8]; out: Out [0:16, 0:8]\n" in text
    assert "with pl.spmd(2):\n                out = self.k(a, out)  # a: In [0:8, 0:8]; out: Out [0:8, 0:8]\n" in text
    assert pl.parse_program(text).lower(a, out) == text


def test_p3_08_spmd_tile_read_after_the_loop(load):
    err, path = _error(load, """
        @pl.jit
        def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            for i in pl.spmd(4):
                t = pl.load(a, [i * 4, 0], [4, 8])
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.store(t, [0, 0], out)
            return out
        """, PassError)
    assert err.message == ("'t' is assigned inside a pl.spmd body and read after it; "
                           "a kernel hands back only the tensors it stores to")
    assert (err.span["line"], err.span["column"]) == line_of(path, "pl.store(t")
