"""Prints line and branch coverage per layer from a gcovr JSON summary.

Usage: coverage_layers.py SUMMARY.json
A layer is a path prefix (src/base, src/runtime, ...); each file counts in
the first layer whose prefix it starts with, files under no layer in
"other".  Percentages are covered / total over the layer's files.
"""
import json
import sys

LAYERS = ["src/base", "src/runtime", "src/compiler", "src/tile", "src/exec", "tools", "python"]


def layer_of(path):
    for layer in LAYERS:
        if path.startswith(layer + "/"):
            return layer
    return "other"


def percent(covered, total):
    return "%6.1f%%" % (100.0 * covered / total) if total else "     -"


def main(summary_path):
    with open(summary_path) as f:
        files = json.load(f)["files"]
    sums = {}
    for entry in files:
        s = sums.setdefault(layer_of(entry["filename"]), [0, 0, 0, 0])
        s[0] += entry["line_covered"]
        s[1] += entry["line_total"]
        s[2] += entry["branch_covered"]
        s[3] += entry["branch_total"]
    print("%-14s %8s %13s %9s %13s" % ("layer", "lines", "(cov/total)", "branches", "(cov/total)"))
    for layer in LAYERS + ["other"]:
        if layer not in sums:
            continue
        lc, lt, bc, bt = sums[layer]
        print("%-14s %8s %13s %9s %13s" % (layer, percent(lc, lt), "%d/%d" % (lc, lt),
                                           percent(bc, bt), "%d/%d" % (bc, bt)))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: coverage_layers.py SUMMARY.json")
    main(sys.argv[1])
