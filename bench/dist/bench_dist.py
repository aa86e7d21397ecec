"""make bench-dist (DISTRIBUTED-SPEC §7): ours (DSL programs of programs.py) against raw
Open MPI (peer.c, loaded with ctypes into the same ranks), back to back in one mpirun.

    mpirun -np P python3 bench_dist.py measure MODE ROWS REPS OUT.jsonl PEER.so
        ROWS: comma list of R1, R2, R3, R4, R4b; appends one JSON line per sample to OUT
    python3 bench_dist.py report MODE IN.jsonl OUT.json    prints the table, writes OUT

Protocol: each repetition runs every case once for ours and once for the peer, the order
swapped every repetition; a sample is rank 0's wall time (perf_counter for ours,
MPI_Wtime inside the peer).  Ours is timed around whole host calls, so a kernel's work is
the difference of two calls that differ only in their loop count (n rounds minus 0
rounds): entry check, windows, the data contract and dispatch cancel out.  Every call's
results are checked; a failed check is a "failed" line and makes the report fail."""
import ctypes
import importlib.util
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
KIB, MIB = 1024, 1024 * 1024


def sized_module(**consts):
    """programs.py as a fresh module with the given constants (one per tile size)."""
    name = "bench_dist_programs_" + "_".join("%s%d" % kv for kv in sorted(consts.items()))
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, "programs.py"))
    mod = importlib.util.module_from_spec(spec)
    mod.__dict__.update(consts)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


# sizes and loop counts: (full, quick)
R1_SIZES = ([8, KIB, 64 * KIB, MIB], [8])
R1_ROUNDS = {8: 2000, KIB: 2000, 64 * KIB: 400, MIB: 40}
R2_SIZES = ([256 * 4, MIB], [256 * 4])
R2_K = 100
CALLS = 3                        # R1, R2: calls per loop count and repetition (median)
R3_CALLS = (50, 20)
R3_W = 128
R4_GRID = (256, 256)             # H rows (split over ranks) x G columns
R4_SWEEPS = (200, 40)
R4B_SWEEPS = (10, 4)
R4B_SLEEP_S = 0.1
R4B_PROBE = 50000


class Bench:
    def __init__(self, mode, out, peer_path):
        import torch
        from pypto.ir.distributed_compiled_program import DistributedConfig
        from pypto.runtime import RunConfig
        self.torch = torch
        self.quick = mode == "quick"
        self.path = path_suffix()
        self.world = int(os.environ.get("OMPI_COMM_WORLD_SIZE", "1"))
        self.rank = int(os.environ.get("OMPI_COMM_WORLD_RANK", "0"))
        self.wd = os.path.join(os.environ.get("TMPDIR", "/tmp"), "pto-bench-dist-%d" % os.getuid())
        self.cfg = RunConfig(platform="a2a3sim", save_kernels_dir=self.wd,
                             distributed_config=DistributedConfig(device_ids=list(range(self.world))))
        self.out = out
        self.mods = {}
        self.mod().put_get(*self.r3_data(), config=self.cfg)  # the first distributed call starts MPI
        self.peer = ctypes.CDLL(peer_path)
        for f in ("bdp_pingpong", "bdp_allreduce", "bdp_window_cycle"):
            getattr(self.peer, f).restype = ctypes.c_double
            getattr(self.peer, f).argtypes = [ctypes.c_long, ctypes.c_long]
        if self.peer.bdp_init() != 0:
            raise SystemExit("bench_dist: MPI is not running")

    def mod(self, **sizes):
        c = dict(L=2, C=256, W=R3_W, H=R4_GRID[0], G=R4_GRID[1], WORLD=self.world)
        c.update(sizes)
        return sized_module(**c)

    def gather(self, values):
        """Every rank's list of floats, on rank 0 (rank-major); None elsewhere."""
        n = len(values)
        mine = (ctypes.c_double * n)(*values)
        every = (ctypes.c_double * (n * self.world))()
        self.peer.bdp_gather(mine, n, every)
        return [list(every[r * n:(r + 1) * n]) for r in range(self.world)] if self.rank == 0 else None

    def emit(self, **rec):
        if self.rank == 0:
            self.out.write(json.dumps(rec) + "\n")
            self.out.flush()

    def check(self, ok, row, case, system, what):
        oks = self.gather([1.0 if ok else 0.0])
        if oks is not None and min(v[0] for v in oks) < 1:
            self.emit(row=row, case=case, system=system, failed=what)
        return ok

    def timed(self, f, *args):
        t = time.perf_counter()
        f(*args, config=self.cfg)
        return time.perf_counter() - t

    def call_pair(self, f, n, x, check):
        """Median times of CALLS calls of f(k, x, y) for k = 0 and k = n (alternating), each
        result checked by check(k, y): a kernel loop's time is their difference."""
        times = {0: [], n: []}
        for _ in range(CALLS):
            for k in (0, n):
                y = self.torch.zeros_like(x)
                times[k].append(self.timed(f, k, x, y))
                check(k, y)
        return statistics.median(times[n]) - statistics.median(times[0])

    # ---- R1 ----
    def r1(self, rep):
        torch = self.torch
        for size in R1_SIZES[self.quick]:
            L = size // 4
            m, n = self.mod(L=L), R1_ROUNDS[size]
            x = torch.arange(self.world * L, dtype=torch.float32).reshape(self.world, 1, L) + 1
            for side in self.order(rep, ("ours", "mpi")):
                if side == "mpi":
                    t = self.peer.bdp_pingpong(size, n)
                    if not self.check(t >= 0, "R1", "put %s%s" % (label(size), self.path), "mpi", "received bytes differ"):
                        continue
                    self.emit(row="R1", case="put %s%s" % (label(size), self.path), system="mpi", us=t / (2 * n) * 1e6, rep=rep)
                    self.emit(row="R1", case="get %s%s" % (label(size), self.path), system="mpi", us=t / n * 1e6, rep=rep)
                    continue
                for case, prog, div in (("put", m.pingpong, 2 * n), ("get", m.get_rounds, n)):
                    name = "%s %s%s" % (case, label(size), self.path)
                    t = self.call_pair(prog, n, x, lambda k, y: k == 0 or self.check(
                        torch.equal(y[0], x[1]), "R1", name, "ours", "rank 0's row (rank 1's) after %d rounds" % k))
                    self.emit(row="R1", case=name, system="ours", us=t / div * 1e6, rep=rep)

    # ---- R2 ----
    def r2(self, rep):
        torch = self.torch
        for size in R2_SIZES[self.quick]:
            C = size // 4
            m, case = self.mod(C=C), "allreduce %s" % label(size)
            x = (torch.arange(self.world * C, dtype=torch.float32).reshape(self.world, 1, C) % 7)
            want = x.sum(0) * float(self.world) ** (R2_K - 1)  # each allreduce after the first: x P
            for side in self.order(rep, ("ours", "mpi")):
                if side == "mpi":
                    t = self.peer.bdp_allreduce(C, R2_K)
                    if not self.check(t >= 0, "R2", case, "mpi", "sums differ"):
                        continue
                    self.emit(row="R2", case=case, system="mpi", us=t / R2_K * 1e6, rep=rep)
                    continue
                t = self.call_pair(m.allreduces, R2_K, x, lambda k, y: self.check(
                    torch.equal(y[0], want if k else x[0]), "R2", case, "ours", "sums after %d allreduces" % k))
                self.emit(row="R2", case=case, system="ours", us=t / R2_K * 1e6, rep=rep)

    # ---- R3 ----
    def r3_data(self):
        x = self.torch.arange(self.world * R3_W, dtype=self.torch.float32).reshape(self.world, 1, R3_W)
        return x, self.torch.zeros_like(x)

    def r3_call(self, m, x, y):
        t = self.timed(m.put_get, x, y)
        self.check(self.torch.equal(y, self.torch.roll(x, 1, 0)), "R3", "06 shape", "ours", "rows after the exchange")
        return t

    def r3(self, rep):
        m, calls = self.mod(), R3_CALLS[self.quick]
        x, y = self.r3_data()
        for side in self.order(rep, ("ours", "mpi", "plain")):
            if side == "mpi":
                t = self.peer.bdp_window_cycle(2 * R3_W * 4 + 4, calls)
                if self.check(t >= 0, "R3", "06 shape", "mpi", "peer's window copy not zero"):
                    self.emit(row="R3", case="06 shape", system="mpi", us=t / calls * 1e6, rep=rep)
            elif side == "plain":
                times = []
                for _ in range(calls):
                    t = time.perf_counter()
                    m.copy_row(x[0], y[0])
                    times.append(time.perf_counter() - t)
                self.check(self.torch.equal(y[0], x[0]), "R3", "06 shape", "plain", "copied row")
                self.emit(row="R3", case="06 shape", system="plain", us=statistics.median(times) * 1e6, rep=rep)
            else:
                times = [self.r3_call(m, x, y) for _ in range(calls)]
                os.environ["PTO_COMM_STATS"] = "1"
                self.r3_call(m, x, y)
                del os.environ["PTO_COMM_STATS"]
                with open(os.path.join(self.wd, "dfx_outputs", "rank0", "comm_stats.json")) as f:
                    phases = json.load(f)["phase_us"]
                self.emit(row="R3", case="06 shape", system="ours", us=statistics.median(times) * 1e6,
                          phase_us=phases, rep=rep)

    # ---- R4 / R4b ----
    def stencil_data(self):
        H, G = R4_GRID
        h = H // self.world
        x = (self.torch.arange(H * G, dtype=self.torch.float32).reshape(self.world, h, G) % 13) / 13
        return x, self.torch.zeros_like(x)

    def stencil_ref(self, x, sweeps):
        torch = self.torch
        g = torch.nn.functional.pad(x.reshape(R4_GRID), (1, 1))
        for _ in range(sweeps):
            g = torch.cat([g[-1:], g, g[:1]])
            nxt = torch.zeros_like(g[1:-1])
            nxt[:, 1:-1] = ((g[:-2, 1:-1] + g[2:, 1:-1]) + (g[1:-1, :-2] + g[1:-1, 2:])) * 0.25
            g = nxt
        return g[:, 1:-1]

    def stencil_call(self, m, sweeps, delay, case):
        x, y = self.stencil_data()
        d = self.torch.zeros(self.world, 1, 1, dtype=self.torch.int32)
        d[0] = delay
        cpu = time.process_time()
        t = self.timed(m.stencil, sweeps // 2, d, x, y)
        cpu = time.process_time() - cpu
        self.check(self.torch.equal(y.reshape(R4_GRID), self.stencil_ref(x, sweeps)), "R4", case, "ours", "grid")
        return t, cpu

    def r4(self, rep):
        m, sweeps = self.mod(), R4_SWEEPS[self.quick]
        case = "stencil %dx%d, %d sweeps" % (R4_GRID + (sweeps,))
        self.stencil_call(m, 2, 0, case)  # compile
        t, _ = self.stencil_call(m, sweeps, 0, case)
        self.emit(row="R4", case=case, system="ours P=%d" % self.world, us=t * 1e6, rep=rep)

    def r4b(self, rep):
        m, sweeps = self.mod(), R4B_SWEEPS[self.quick]
        case = "stencil, rank 0 busy %.0f ms per sweep, %d sweeps" % (R4B_SLEEP_S * 1e3, sweeps)
        if not hasattr(self, "r4b_iters"):  # busy-loop iterations for R4B_SLEEP_S, from 2 sweeps
            # R4B_PROBE iterations take tens of ms: far above a call's noise (2000 did not, and a
            # negative difference once gave 10^8 iterations); only rank 0's count is used (D4)
            t0, _ = self.stencil_call(m, 2, 0, case)
            t1, _ = self.stencil_call(m, 2, R4B_PROBE, case)
            self.r4b_iters = max(1, int(R4B_SLEEP_S / max((t1 - t0) / (2 * R4B_PROBE), 1e-7)))
        t0, c0 = self.stencil_call(m, sweeps, 0, case)
        t1, c1 = self.stencil_call(m, sweeps, self.r4b_iters, case)
        every = self.gather([t1 - t0, c1 - c0])
        if every is not None:
            slept = every[0][0]
            others = max(v[1] for v in every[1:])
            self.emit(row="R4b", case=case, system="ours", slept_ms=slept * 1e3, others_cpu_ms=others * 1e3,
                      fraction=others / slept, rep=rep)

    def order(self, rep, sides):
        return sides if rep % 2 == 0 else sides[::-1]

    def header(self):
        import torch
        aff = sorted(os.sched_getaffinity(0))
        every = self.gather([float(len(aff)), float(sum(1 << c for c in aff))])
        if every is None:
            return
        v = ctypes.create_string_buffer(256)
        self.peer.bdp_library_version(v, 256)
        masks = [int(m) for _, m in every]
        self.emit(config="ranks", text="P=%d; binding (CPU masks per rank): %s; workers per rank: D18 default, %s" % (
            self.world, " ".join("r%d=%#x" % (r, m) for r, m in enumerate(masks)),
            " ".join("r%d=%d" % (r, max(1, int(n) // masks.count(masks[r]))) for r, (n, _) in enumerate(every))))
        self.emit(config="mpi", text=v.value.decode().split(",")[0].strip() + "; torch " + torch.__version__)


def path_suffix():
    """R1's case suffix for the transport this run uses: "" (shm), " am", " am-tcp" (raw MPI takes the same path)."""
    if os.environ.get("PTO_COMM_BACKEND") != "am":
        return ""
    return " am-tcp" if os.environ.get("OMPI_MCA_btl") == "tcp,self" else " am"


def label(size):
    return "%d B" % size if size < KIB else "%d KiB" % (size // KIB) if size < MIB else "%d MiB" % (size // MIB)


def measure(mode, rows, reps, out_path, peer_path):
    with open(out_path, "a") as out:
        b = Bench(mode, out, peer_path)
        b.header()
        rows = rows.split(",")
        if "R4" in rows:
            b.r4(int(os.environ.get("BENCH_DIST_REP", "0")))
        for rep in range(reps):
            for r in rows:
                if r != "R4":
                    getattr(b, r.lower())(rep)


# ---- report ----

def spread(vals):
    return (min(vals), statistics.median(vals), max(vals))


def verdict(lo_hi_ours, lo_hi_bar, bigger_is_better=False):
    """met when the bar holds at the unfavourable ends, NOT MET when it fails at the
    favourable ones, within noise otherwise (docs/performance.md)."""
    (olo, ohi), (blo, bhi) = lo_hi_ours, lo_hi_bar
    if bigger_is_better:
        olo, ohi, blo, bhi = -ohi, -olo, -bhi, -blo
    return "met" if ohi <= blo else "NOT MET" if olo > bhi else "within noise"


def report(mode, in_path, out_path):
    recs = [json.loads(line) for line in open(in_path)]
    fails = [r for r in recs if "failed" in r]
    cfgs = {}
    for r in recs:
        if "config" in r:
            cfgs.setdefault(r["config"], []).append(r["text"])
    cells = {}
    for r in recs:
        if "us" in r:
            cells.setdefault((r["row"], r["case"], r["system"]), []).append(r["us"])
    lines, bars, table = [], [], []
    mach = open("/proc/cpuinfo").read().split("model name")[1].split("\n")[0].strip(": \t")
    lines.append("Machine: %s; %d CPUs online; kernel %s" % (mach, os.cpu_count(), os.uname().release))
    lines.append("MPI:     %s" % cfgs.get("mpi", ["?"])[0])
    for t in sorted(set(cfgs.get("ranks", []))):
        lines.append("Ranks:   %s" % t)
    lines.append("Run:     %s; medians of >= 5 repetitions, ours and the peer interleaved (order swapped each "
                 "repetition); backend shm (R1 also am and am-tcp: raw MPI on the same path); ours timed around host calls: a row's kernel work = call(n) - call(0)"
                 % mode)
    lines.append("")
    lines.append("%-4s %-40s %14s %14s %8s" % ("row", "case", "ours", "peer", "ours/peer"))
    keys = sorted({(k[0], k[1]) for k in cells}, key=lambda k: (k[0], k[1]))
    for row, case in keys:
        peer_sys = "mpi" if row != "R4" else "ours P=2"
        ours_sys = "ours" if row != "R4" else "ours P=4"
        o, p = cells.get((row, case, ours_sys)), cells.get((row, case, peer_sys))
        if not o or not p:
            continue
        os_, ps = spread(o), spread(p)
        unit = "us"
        rec = {"row": row, "case": case, "ours": os_[1], "ours_min": os_[0], "ours_max": os_[2], "peer": ps[1],
               "peer_min": ps[0], "peer_max": ps[2], "runs": len(o), "unit": unit, "ratio": os_[1] / ps[1]}
        table.append(rec)
        lines.append("%-4s %-40s %14s %14s %8.2f" % (row, case if row != "R4" else case + " P=4 vs P=2",
                                                     cell(os_), cell(ps), os_[1] / ps[1]))
        if row == "R3" and (row, case, "plain") in cells:
            pl_ = spread(cells[(row, case, "plain")])
            rec["plain"] = pl_[1]
            ph = [r["phase_us"] for r in recs if r.get("row") == "R3" and "phase_us" in r]
            rec["phase_us"] = {k: statistics.median(p[k] for p in ph) for k in ph[0]}
            lines.append("     %-40s %14s  (plain single-process @pl.jit call of the kernel)" % ("", cell(pl_)))
            lines.append("     phase_us (rank 0, median): " + " ".join("%s=%.0f" % kv for kv in rec["phase_us"].items()))
        if row == "R1" and case.endswith("1 MiB"):
            lines.append("     bandwidth GB/s: ours %.2f, peer %.2f" % (MIB / os_[1] / 1e3, MIB / ps[1] / 1e3))
    r4b = [r for r in recs if r.get("row") == "R4b"]
    if r4b:
        fr = spread([r["fraction"] for r in r4b])
        table.append({"row": "R4b", "case": r4b[0]["case"], "fraction": fr[1], "fraction_min": fr[0],
                      "fraction_max": fr[2], "slept_ms": statistics.median(r["slept_ms"] for r in r4b),
                      "others_cpu_ms": statistics.median(r["others_cpu_ms"] for r in r4b), "runs": len(r4b)})
        lines.append("%-4s %-40s %14s  other ranks' CPU / rank 0's busy time (busy %.0f ms, CPU %.1f ms)" % (
            "R4b", r4b[0]["case"][:40], "%.3f [%.3f-%.3f]" % (fr[1], fr[0], fr[2]), table[-1]["slept_ms"],
            table[-1]["others_cpu_ms"]))
    lines.append("")
    by = {(t["row"], t["case"]): t for t in table}

    def bar(name, key, value_lohi, bound_lohi, text, better=False):
        t = by.get(key)
        v = verdict(value_lohi(t), bound_lohi(t), better) if t else "not measured"
        bars.append({"bar": name, "verdict": v})
        lines.append("Bar %-48s %-13s %s" % (name, v, text(t) if t else ""))

    bar("R1 put 8 B <= 1.3x raw MPI one-way", ("R1", "put 8 B"), lambda t: (t["ours_min"], t["ours_max"]),
        lambda t: (1.3 * t["peer_min"], 1.3 * t["peer_max"]), lambda t: "%.2f vs 1.3 x %.2f us" % (t["ours"], t["peer"]))
    bar("R1 shm one-way 8 B <= 2 us", ("R1", "put 8 B"), lambda t: (t["ours_min"], t["ours_max"]),
        lambda t: (2.0, 2.0), lambda t: "%.2f us" % t["ours"])
    for path in ("", " am", " am-tcp"):
        if path:
            bar("R1 put 8 B%s <= 1.3x raw MPI one-way" % path, ("R1", "put 8 B" + path), lambda t: (t["ours_min"], t["ours_max"]),
                lambda t: (1.3 * t["peer_min"], 1.3 * t["peer_max"]), lambda t: "%.2f vs 1.3 x %.2f us" % (t["ours"], t["peer"]))
        bar("R1 put 1 MiB%s >= 90%% of raw MPI bandwidth" % path, ("R1", "put 1 MiB" + path),
            lambda t: (t["ours_min"], t["ours_max"]), lambda t: (t["peer_min"] / 0.9, t["peer_max"] / 0.9),
            lambda t: "%.2f vs %.2f GB/s" % (MIB / t["ours"] / 1e3, MIB / t["peer"] / 1e3))
    for size in ("1 KiB", "1 MiB"):
        key = ("R2", "allreduce %s" % size)
        bar("R2 allreduce %s <= 1.2x MPI_Allreduce" % size, key, lambda t: (t["ours_min"], t["ours_max"]),
            lambda t: (1.2 * t["peer_min"], 1.2 * t["peer_max"]), lambda t: "%.1f vs 1.2 x %.1f us" % (
                t["ours"], t["peer"]))
    bar("R3 per-call overhead <= 250 us", ("R3", "06 shape"), lambda t: (t["ours_min"], t["ours_max"]),
        lambda t: (250, 250), lambda t: "%.0f us" % t["ours"])
    r4 = [t for t in table if t["row"] == "R4"]
    bar("R4 P=4 <= 2x P=2", ("R4", r4[0]["case"]) if r4 else None, lambda t: (t["ours_min"], t["ours_max"]),
        lambda t: (2 * t["peer_min"], 2 * t["peer_max"]), lambda t: "%.0f vs 2 x %.0f ms" % (
            t["ours"] / 1e3, t["peer"] / 1e3))
    bar("R4b other ranks' CPU <= 10% of rank 0's delay", ("R4b", r4b[0]["case"]) if r4b else None,
        lambda t: (t["fraction_min"], t["fraction_max"]), lambda t: (0.1, 0.1), lambda t: "%.1f%%" % (100 * t["fraction"]))
    for f in fails:
        lines.append("FAILED %s %s %s: %s" % (f["row"], f["case"], f["system"], f["failed"]))
    print("\n".join(lines))
    with open(out_path, "w") as f:
        json.dump({"mode": mode, "header": lines[:lines.index("")], "rows": table, "bars": bars,
                   "failures": fails}, f, indent=1)
    return 1 if fails else 0


def cell(s):
    lo, med, hi = s
    return "%.1f ±%.0f%%" % (med, 100 * (hi - lo) / med if med else 0)


if __name__ == "__main__":
    if sys.argv[1] == "measure":
        measure(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5], sys.argv[6])
    else:
        sys.exit(report(*sys.argv[2:5]))
