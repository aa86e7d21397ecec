"""Scope stats plotter: prints the summary of a scope_stats.jsonl file and
writes scope_stats.html next to it (or in --out-dir).

    python -m pypto.tools.scope_stats_plot <jsonl> [--out-dir DIR] [--headroom F]

A thin wrapper over the C tool pto-scope-stats (the copy a pip install puts in
pypto/_bin/, else build/bin/ of this repository, else PATH), which does all the work; see docs/tools.md.  Exit codes are the
tool's: 0 report written, 1 invalid input, 2 usage.  tools/scope_stats_plot.py
runs this module.
"""
import argparse
import os
import shutil
import subprocess
import sys


def find_tool():
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    repo = os.path.dirname(os.path.dirname(package))
    for built in (os.path.join(package, "_bin", "pto-scope-stats"), os.path.join(repo, "build", "bin", "pto-scope-stats")):
        if os.access(built, os.X_OK):
            return built
    return shutil.which("pto-scope-stats")


def main(argv=None, prog="python -m pypto.tools.scope_stats_plot"):
    parser = argparse.ArgumentParser(
        prog=prog, description="Summarize a scope_stats.jsonl file and write scope_stats.html.")
    parser.add_argument("jsonl", help="the scope_stats.jsonl file of a run")
    parser.add_argument("--out-dir", help="where scope_stats.html goes (default: next to the input)")
    parser.add_argument("--headroom", help="headroom factor F for the suggested sizes (default 1.5)")
    args = parser.parse_args(argv)

    tool = find_tool()
    if tool is None:
        print("%s: pto-scope-stats not found: run `make build` in the repository, or put "
              "pto-scope-stats on PATH" % prog, file=sys.stderr)
        return 2
    out_dir = args.out_dir or os.path.dirname(os.path.abspath(args.jsonl))
    os.makedirs(out_dir, exist_ok=True)
    cmd = [tool, args.jsonl, "--html", os.path.join(out_dir, "scope_stats.html")]
    if args.headroom is not None:
        cmd += ["--headroom", args.headroom]
    sys.stdout.flush()
    return subprocess.call(cmd)


if __name__ == "__main__":
    sys.exit(main())
