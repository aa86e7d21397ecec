"""Reading a run's scope-stats file (docs/runtime.md, "Scope stats")."""
import json
import os

from memory_page import tasks_per_scope  # examples/python: the page demo reads stats the same way


def stats_file(work_dir):
    return os.path.join(str(work_dir), "dfx_outputs", "scope_stats", "scope_stats.jsonl")


def read(work_dir):
    """(metadata, scopes): scopes = [(site, ring, tasks)] in closing order, where a scope's
    tasks are its ring's task cursor at its end minus at its begin (tasks submitted on that
    ring while it was open, nested same-ring scopes included)."""
    path = stats_file(work_dir)
    with open(path) as f:
        metadata = json.loads(f.readline())
    return metadata, tasks_per_scope(path)


def tasks_per_ring(work_dir):
    """Tasks submitted per ring during the run."""
    with open(stats_file(work_dir)) as f:
        lines = [json.loads(line) for line in f if line.strip()]
    rings = []
    for ring in range(4):
        cur = [r["task_window_end"] for r in lines[1:] if r["ring"] == ring]
        rings.append(max(cur) - min(cur) if cur else 0)
    return rings
