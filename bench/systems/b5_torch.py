"""B5 peers: the seed's `scaled` (out = a * 2 + 1, FP32) as users write it.

    b5_torch.py info          one config line per system (torch, numpy)
    b5_torch.py b5 ROWS COLS  rows {"bench": "B5", "case": "r4096_c1024", "system": "torch", "metric": "gbps", ...}

torch eager: `out = a * 2.0 + 1.0` (a temporary for a * 2.0, a new tensor
for the result: what a user writes); numpy: the same expression.  Each
system: one verified warm-up, then timed runs (about 1 GiB moved, 5 to
400 runs), the value is their median; the result of the warm-up and of the
last timed run is compared with a * 2 + 1 computed element by element in
FP32, exactly.  Bytes moved per run: 2 * rows * cols * 4, as for ours.
Threads: torch's default (printed in the info line), numpy one thread.
The two systems alternate in an order that changes with the size.
"""
import json
import sys

import numpy as np
import torch

from timing import median_seconds

MAX_RUNS = 400


def row(case, system, value):
    print(json.dumps({"bench": "B5", "case": case, "system": system, "metric": "gbps",
                      "value": round(value, 4)}), flush=True)


def data(rows, cols):
    i = np.arange(rows * cols, dtype=np.int64)
    a = (((i * 37) % 101).astype(np.float32) / np.float32(7.0) - np.float32(5.0)).reshape(rows, cols)
    expect = a * np.float32(2.0) + np.float32(1.0)  # FP32 throughout, as the kernel
    return a, expect


def runs_for(nbytes):
    return max(5, min(MAX_RUNS, (1 << 30) // nbytes))


def measure(fn, check, runs):
    check(fn())
    return median_seconds(fn, check, runs, check_each=False)


def b5(rows, cols):
    a, expect = data(rows, cols)
    nbytes = 2 * rows * cols * 4
    runs = runs_for(nbytes)
    case = f"r{rows}_c{cols}"
    ta = torch.from_numpy(a.copy())
    te = torch.from_numpy(expect)

    def check_torch(out):
        if out.dtype != torch.float32 or not torch.equal(out, te):
            sys.exit(f"b5_torch: torch: out != a * 2 + 1 at {case}")

    def check_numpy(out):
        if out.dtype != np.float32 or not np.array_equal(out, expect):
            sys.exit(f"b5_torch: numpy: out != a * 2 + 1 at {case}")

    systems = [("torch", lambda: ta * 2.0 + 1.0, check_torch),
               ("numpy", lambda: a * 2.0 + 1.0, check_numpy)]
    if rows % 2:
        systems.reverse()
    for name, fn, check in systems:
        row(case, name, nbytes / measure(fn, check, runs) / 1e9)


def info():
    t = {"system": "torch", "config": f"torch {torch.__version__} eager, out = a * 2.0 + 1.0 (user style: "
         f"new tensors per call); {torch.get_num_threads()} intra-op threads (default); no pinning"}
    n = {"system": "numpy", "config": f"numpy {np.__version__}, out = a * 2.0 + 1.0; one thread"}
    print(json.dumps(t))
    print(json.dumps(n))


def main(argv):
    if argv[1:] == ["info"]:
        info()
    elif len(argv) == 4 and argv[1] == "b5":
        b5(int(argv[2]), int(argv[3]))
    elif len(argv) >= 2 and argv[1] in ("b1", "b2", "b2t", "b3", "b4", "b6"):
        pass  # not a peer there
    else:
        sys.exit("usage: b5_torch.py info | b5 ROWS COLS")


if __name__ == "__main__":
    main(sys.argv)
