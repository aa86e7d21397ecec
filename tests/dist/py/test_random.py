"""§6.5 random distributed programs vs a one-process reference: dist_gen.py writes seeded host
programs (1-4 window buffers in one or two comm domains, epochs of local stores, puts,
remote_stores, atomic adds, gets and remote_loads, separated by in-kernel barriers, host
barriers or pairwise notify/wait; every window copied to y[r] at the end) and a numpy model
that runs the same program sequentially over P window copies.  Every rank compares its y
bitwise with the model; run.py checks the probe hashes across ranks.

PTO_DIST_RANDOM_SEED sets the first seed (default 0), PTO_DIST_RANDOM_SCALE multiplies the
program counts (40 at P = 2, 30 at P = 3 and 4).  A failure names the seed and P and prints
the program; `PTO_DIST_RANDOM_SEED=<seed> PTO_DIST_RANDOM_SCALE=...` replays from it, and
`python3 dist_gen.py <seed> <P>` prints the program text."""
import importlib.util
import os
import sys
import tempfile

import torch

import dist_gen
from distcase import case, check, config, equal, rank

COUNTS = {2: 40, 3: 30, 4: 30}
# where the program files go: one path for every rank (the compile's identity is the same),
# each rank writes the same bytes and renames them in place
DIR = os.path.join(tempfile.gettempdir(), "pypto-dist-random-%d" % os.getuid())


def _load(prog):
    os.makedirs(DIR, exist_ok=True)
    name = "dist_random_p%d_s%d" % (prog.P, prog.seed)
    path = os.path.join(DIR, name + ".py")
    tmp = "%s.%d.tmp" % (path, rank())
    with open(tmp, "w") as f:
        f.write(prog.text)
    os.replace(tmp, path)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod, path


def run_one(seed, P):
    prog = dist_gen.make_program(seed, P)
    where = "seed %d P=%d %s" % (seed, P, prog.stats)
    mod = None
    try:
        mod, path = _load(prog)
        g = torch.Generator().manual_seed(seed * 31 + rank())
        x = torch.from_numpy(prog.x0).clone()
        if rank() != 0:  # D4: rank 0's inputs win; the others pass different ones
            x = (x + torch.randint(1, 5, x.shape, generator=g).to(x.dtype)).contiguous()
        y = torch.full(prog.expected.shape, 0, dtype=x.dtype)
        args = [x, y]
        if prog.expected_b is not None:
            args.append(torch.zeros(prog.expected_b.shape, dtype=x.dtype))
        mod.prog(*args, config=config(P, stall_timeout_ms=5000))
        equal(x, torch.from_numpy(prog.x0), "x (rank 0's)")
        equal(y, torch.from_numpy(prog.expected), "y")
        if prog.expected_b is not None:
            equal(args[2], torch.from_numpy(prog.expected_b), "yb (domain B)")
    except Exception as e:
        raise AssertionError("%s: %s: %s\n--- program ---\n%s" % (where, type(e).__name__, e, prog.text)) from e
    finally:
        if mod is not None:
            sys.modules.pop(mod.__name__, None)
    return prog.stats


def run_many(P):
    # §6.5: 100 programs on shm, 50 others on each am variant
    am = os.environ.get("PTO_COMM_BACKEND") == "am"
    first = int(os.environ.get("PTO_DIST_RANDOM_SEED") or 0) + (100000 if am else 0)
    n = (COUNTS[P] // 2 if am else COUNTS[P]) * int(os.environ.get("PTO_DIST_RANDOM_SCALE") or 1)
    kinds = {}
    acts = 0
    for seed in range(first, first + n):
        st = run_one(seed, P)
        acts += st["actions"]
        for t in st["trans"]:
            kinds[t] = kinds.get(t, 0) + 1
    check(n > 0, "no programs")
    if rank() == 0:
        sys.stdout.write("random P=%d: %d programs (seeds %d..%d), %d actions, transitions %s\n" % (
            P, n, first, first + n - 1, acts, dict(sorted(kinds.items()))))
        sys.stdout.flush()


@case("random_programs_match_the_sequential_model", ranks=(2, 3, 4), bound=60)
def random_programs(P):
    run_many(P)
