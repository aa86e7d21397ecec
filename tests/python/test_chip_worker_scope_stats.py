"""Scope stats of runs through a ChipWorker (docs/dsl.md, "Compile once, run many"; docs/runconfig.md):
a run whose RunConfig sets enable_scope_stats writes
<output_dir>/dfx_outputs/scope_stats/scope_stats.jsonl as a plain call does, the same
text for the same program on a fresh runtime; the choice is each run's, the ring sizes in
the file are the worker's own."""
import json
import os

import pytest
import torch

import pypto.language as pl  # noqa: F401  (the loaded module's name)
from pypto.runtime import ChipWorker, PTORuntimeError, RunConfig

PROGRAMS = """
    @pl.program
    class Sq:
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[32, 32], pl.FP32],
                 out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(a, [0, 0], [32, 32])
                pl.store(pl.mul(t, t), [0, 0], out)
            return out

    @pl.program
    class Rows:
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]],
                 i: pl.Scalar[pl.INDEX]):
            w = pl.slice(out, [8, 16], [i * 8, 0])
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.store(pl.load(a, [0, 0], [8, 16]), [0, 0], w)
"""

STATS = RunConfig(enable_scope_stats=True)


@pytest.fixture(autouse=True)
def build_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("PYPTO_PROG_BUILD_DIR", str(tmp_path / "build_output"))


@pytest.fixture
def p(load):
    return load(PROGRAMS)[0]


def stats_path(compiled):
    return compiled.output_dir / "dfx_outputs" / "scope_stats" / "scope_stats.jsonl"


def take(compiled):
    """The stats file's text, removed (so the next run's is its own)."""
    path = stats_path(compiled)
    text = path.read_text()
    os.remove(path)
    return text


def test_worker_run_with_scope_stats_writes_the_file(p, capsys):
    c = p.Sq.compile()
    a = torch.randn(32, 32)
    with ChipWorker() as w:
        assert torch.equal(w.run(c, a, config=STATS), a * a)
    lines = [json.loads(line) for line in stats_path(c).read_text().splitlines()]
    assert lines[0]["version"] == 6 and not lines[0]["fatal"] and lines[0]["total"] == len(lines) - 1
    assert lines[1]["site"] == "(root):0" and lines[-1]["phase"] == "end"
    assert "pypto: scope stats written to %s" % stats_path(c) in capsys.readouterr().err


def test_worker_scope_stats_match_a_plain_call(p):
    c = p.Sq.compile()
    a = torch.randn(32, 32)
    c(a, config=STATS)  # the process's runtime: a fresh one for this output directory
    plain = take(c)
    with ChipWorker() as w:
        w.run(c, a, config=STATS)
    assert take(c) == plain
    assert len(plain.splitlines()) == 5  # metadata, the root's and the task's scope's begin and end


def test_worker_scope_stats_through_a_handle_and_a_with_block(p):
    c = p.Sq.compile()
    a = torch.randn(32, 32)
    c(a, config=STATS)
    plain = take(c)
    with ChipWorker() as w:
        w.register(c)(a, config=STATS)
    assert take(c) == plain
    with ChipWorker():
        c(a, config=STATS)  # the active worker runs it
    assert take(c) == plain


def test_worker_scope_stats_are_each_runs_choice(p):
    c = p.Sq.compile()
    a = torch.randn(32, 32)
    with ChipWorker(config=RunConfig(enable_scope_stats=True)) as w:
        w.run(c, a)  # no run config: none asked for
        assert not stats_path(c).exists()
        w.run(c, a, config=STATS)
        take(c)
        w.run(c, a, config=RunConfig())
        assert not stats_path(c).exists()
        w.run(c, a, config=STATS)  # and on again
        assert stats_path(c).exists()


def test_worker_scope_stats_show_the_workers_ring_sizes(p):
    c = p.Sq.compile()
    with ChipWorker(config=RunConfig(ring_task_window=64, ring_heap=1 << 20)) as w:
        w.run(c, torch.randn(32, 32), config=RunConfig(enable_scope_stats=True, ring_task_window=16))
    meta = json.loads(stats_path(c).read_text().splitlines()[0])
    assert meta["task_window_max"] == [64] * 4 and meta["heap_max"] == [1 << 20] * 4


def test_worker_failed_run_writes_fatal_scope_stats_like_a_plain_call(p):
    c = p.Rows.compile(i=pl.RUNTIME)
    a, out = torch.randn(16, 16), torch.zeros(16, 16)
    with pytest.raises(PTORuntimeError) as e:
        c(a, out, 2, config=STATS)  # rows 16..23 of 16: the orchestration fails
    assert e.value.code == 9
    plain = take(c)
    assert json.loads(plain.splitlines()[0])["fatal"] is True
    with ChipWorker() as w:
        with pytest.raises(PTORuntimeError) as e:
            w.run(c, a, out, 2, config=STATS)
        assert e.value.code == 9
        assert take(c) == plain
        w.run(c, a, out, 1, config=STATS)  # the worker runs again, its stats too
        assert torch.equal(out[8:], a[:8])
        assert json.loads(take(c).splitlines()[0])["fatal"] is False
