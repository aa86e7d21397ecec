"""The Memory page's script: its setup, `manual_placement`, `sized` and `scaled`
(the page's code, `__PLATFORM__` = a2a3sim), and a demo that runs them.

    PYTHONPATH=python /usr/bin/python3 examples/python/memory_page.py [WORK_DIR]

runs both kernels, checks each result against A * 2 + 1 as the page's `check` does,
and prints which ring each example's tasks used, read from its scope-stats file
(<work_dir>/dfx_outputs/scope_stats/scope_stats.jsonl).  The same file is what
`ptoc`, `run_dsl`, the compile benchmark and the Python tests compile (the one copy of
the page's kernels outside tests/seed, which keeps the page's blocks verbatim).
"""
import dataclasses
import json
import os
import sys

import pypto.language as pl
import torch
from pypto.runtime import RunConfig

N, TR, TC = 4, 64, 128
ROWS = N * TR

torch.manual_seed(0)
A = torch.randn(ROWS, TC, dtype=torch.float32)


def check(kernel, cfg):
    out = torch.zeros(ROWS, TC, dtype=torch.float32)
    kernel(A, out, config=cfg)
    torch.testing.assert_close(out, A * 2.0 + 1.0, rtol=1e-4, atol=1e-4)


@pl.jit(auto_scope=False)
def manual_placement(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.scope():                       # depth 0 — phase 1's tasks, ring 0
        for i in pl.range(N):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(a, [i * TR, 0], [TR, TC])
                pl.store(pl.mul(t, 2.0), [i * TR, 0], out)
        with pl.scope():                   # depth 1 — phase 2 moves to ring 1
            with pl.at(level=pl.Level.CORE_GROUP):
                for i in pl.range(N):
                    t = pl.load(out, [i * TR, 0], [TR, TC])
                    pl.store(pl.add(t, 1.0), [i * TR, 0], out)
    return out


sized = RunConfig(
    platform="a2a3sim",
    ring_task_window=[8192, 16384, 131072, 524288],
    ring_heap=[134217728, 268435456, 268435456, 536870912],
)


@pl.jit
def scaled(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        for i in pl.range(N):
            t = pl.load(a, [i * TR, 0], [TR, TC])
            pl.store(pl.add(pl.mul(t, 2.0), 1.0), [i * TR, 0], out)
    return out


def tasks_per_scope(stats):
    """[(site, ring, tasks submitted while the scope was open)] from a stats file."""
    with open(stats) as f:
        records = [json.loads(line) for line in f if line.strip()]
    opened, scopes = [], []
    for r in records[1:]:
        if r["phase"] == "begin":
            opened.append(r)
        else:
            b = opened.pop()
            scopes.append((r["site"], r["ring"], r["task_window_end"] - b["task_window_end"]))
    return scopes


def main():
    base = sys.argv[1] if len(sys.argv) > 1 else "build/demo-python"
    for kernel, cfg in ((manual_placement, RunConfig(platform="a2a3sim")), (scaled, sized)):
        work_dir = os.path.join(base, kernel.__name__)
        cfg = dataclasses.replace(cfg, enable_scope_stats=True, save_kernels_dir=work_dir)
        check(kernel, cfg)
        print(f"{kernel.__name__}: out == A * 2 + 1 (torch.testing.assert_close passed)")
        stats = os.path.join(work_dir, "dfx_outputs", "scope_stats", "scope_stats.jsonl")
        for site, ring, tasks in reversed(tasks_per_scope(stats)):  # outermost first
            if site != "(root):0":  # the implicit root scope around the run
                print(f"  scope at {os.path.basename(site)}: ring {ring}, {tasks} task(s)")


if __name__ == "__main__":
    main()
