#!/usr/bin/python3
"""Scope stats plotter: prints the summary of a scope_stats.jsonl file and
writes scope_stats.html next to it (or in --out-dir).

    scope_stats_plot.py <jsonl> [--out-dir DIR] [--headroom F]

Runs pypto.tools.scope_stats_plot (python/pypto/tools/scope_stats_plot.py),
a thin wrapper over the C tool pto-scope-stats; see docs/tools.md.  Exit
codes are the tool's: 0 report written, 1 invalid input, 2 usage.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))

from pypto.tools.scope_stats_plot import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(prog="scope_stats_plot.py"))
