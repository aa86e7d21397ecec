"""The seed page's examples, verbatim in
seed_*.py (importing one runs the page's check), on the rings the page
predicts."""
import dataclasses
import pathlib
import sys

import pytest

_ROOT = pathlib.Path(__file__).resolve().parents[2]
for _p in (_ROOT / "python", _ROOT / "examples" / "python", _ROOT / "tests" / "python", _ROOT / "tests" / "seed"):
    sys.path.insert(0, str(_p))

from pypto.runtime import RunConfig  # noqa: E402

import run_stats  # noqa: E402
import seed_manual_placement as mp  # noqa: E402
import seed_orch as orch  # noqa: E402
import seed_scaled as sc  # noqa: E402


def line_of(mod, needle):
    lines = open(mod.__file__).read().splitlines()
    return next(i + 1 for i, line in enumerate(lines) if needle in line)


def stats_cfg(tmp_path, base=None, **kw):
    base = base or RunConfig()
    return dataclasses.replace(base, enable_scope_stats=True, save_kernels_dir=str(tmp_path), **kw)


@pytest.mark.parametrize("platform", ["a2a3sim", "a5sim"])
def test_E01_manual_placement(tmp_path, platform, capfd):
    mp.check(mp.manual_placement, stats_cfg(tmp_path, platform=platform))
    assert mp.manual_placement.last_work_dir == str(tmp_path)
    meta, scopes = run_stats.read(tmp_path)
    assert not meta["fatal"]
    outer = "seed_manual_placement.py:%d" % line_of(mp, "# depth 0 — phase 1")
    inner = "seed_manual_placement.py:%d" % line_of(mp, "# depth 1 — phase 2")
    assert (outer, 0, 4) in scopes and (inner, 1, 1) in scopes
    assert run_stats.tasks_per_ring(tmp_path) == [4, 1, 0, 0]
    err = capfd.readouterr().err
    f = run_stats.stats_file(tmp_path)
    assert "scope stats written to %s" % f in err and "pto-scope-stats %s" % f in err
    assert "python -m pypto.tools.scope_stats_plot %s" % f in err


@pytest.mark.parametrize("platform", ["a2a3sim", "a5sim"])
def test_E02_scaled_sized(tmp_path, platform):
    sc.check(sc.scaled, stats_cfg(tmp_path, sc.sized, platform=platform))
    meta, scopes = run_stats.read(tmp_path)
    assert meta["task_window_max"] == [8192, 16384, 131072, 524288]
    assert meta["heap_max"] == [134217728, 268435456, 268435456, 536870912]
    assert run_stats.tasks_per_ring(tmp_path) == [1, 0, 0, 0]
    assert [s for s in scopes if s[2]] and all(ring == 0 for _, ring, n in scopes if n)


def test_E02_rss_growth():
    import resource
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    sc.check(sc.scaled, sc.sized)
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 256 * 1024  # KiB


@pytest.mark.parametrize("platform", ["a2a3sim", "a5sim"])
@pytest.mark.parametrize("program", ["Before", "After"])
def test_E03_orch(tmp_path, program, platform):
    prog = getattr(orch, program)
    orch.check_orch(prog, stats_cfg(tmp_path, platform=platform))
    meta, scopes = run_stats.read(tmp_path)
    assert run_stats.tasks_per_ring(tmp_path) == [0, 4, 0, 0]
    if program == "After":
        body = ["seed_orch.py:%d" % line_of(orch, "# depth 0 — function body")]
    else:  # the compiler's function-body scope: the function's site (the def line;
        # the compiler cites the decorator line above it)
        d = line_of(orch, "# auto_scope=True (default)")
        body = ["seed_orch.py:%d" % d, "seed_orch.py:%d" % (d + 1)]
    assert [n for site, ring, n in scopes if site in body and ring == 0] == [0]
    assert sorted(n for _, ring, n in scopes if ring == 1) == [1, 1, 1, 1]


def test_E03_lower_texts_match():
    import torch
    a = torch.zeros(orch.ROWS, orch.TC)
    before = orch.Before.lower(a, a).replace("class Before", "class P")
    after = orch.After.lower(a, a).replace("class After", "class P")
    assert before == after
