"""Runs the distributed tests (DISTRIBUTED-SPEC §6.1) under mpirun.

    run.py [--bin DIR] [--ext-dir DIR] [--strict] [-k TEXT]

C jobs: one mpirun of a C program of tests/dist/c (built into --bin) each; so are the
whole scripts of tests/dist/py named in PY_SCRIPTS.  Python cases:
the test files tests/dist/py/test_*.py declare cases (distcase.case) with their world sizes
P and backend sets; driver.py --list names them, and the cases of equal P and backend run
batched in one mpirun job of driver.py, in file order; each fault case (and each case
marked alone) gets its own job.  Every mpirun uses the §4.1 test flags under
`timeout -k 5 120`.  Every rank prints "PASS <rule>" per rule it checked; a job passes when
every rank (a fault case may name fewer) printed each of its rules, no rank printed FAIL,
mpirun's exit status and wall time are the job's expected ones (a fault job ends through
MPI_Abort: non-zero) and, in non-fault jobs, every PYPTO_DIST_PROBE=1 hash of a call's
argument is the same on every rank.  -k runs only the jobs whose name or a rule contains
TEXT.  Without mpirun: the SKIP line, exit 0 (exit 2 with --strict, as make test-dist
wants).  Exit 0 when every job passed, else 1.
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SKIP_NO_MPIRUN = "SKIP dist: mpirun not found (make deps installs openmpi-bin)"

OPS_RULES = [
    "domain_of_a_subset_is_made_by_its_members_and_cached",
    "window_maps_every_peer_copy_zeroed",
    "bcast_from_every_root_in_chunks",
    "allreduce_each_dtype_and_op_matches_serial",
    "allgather_places_each_rank_piece",
    "agree_equal_items_pass",
    "agree_diverging_names_the_item_and_two_ranks",
    "coll_post_returns_at_once_and_coll_test_completes_it",
]

AM_RULES = [
    "am_domain_maps_only_the_own_copy_zeroed",
    "am_puts_land_in_order_before_the_notify_behind_them",
    "am_get_returns_the_peers_box",
    "am_adds_from_every_rank_lose_nothing",
    "am_put_of_1_mib_arrives_whole",
    "am_busy_target_is_served_by_its_progress_thread",
]

# (name, P, program or script, arguments, environment, mpirun exits 0, wall-time bound in s, rules)
C_JOBS = [
    ("ops P=2", 2, "test_comm_ops", ["ops"], {}, True, 60, OPS_RULES),
    ("ops P=4", 4, "test_comm_ops", ["ops"], {}, True, 60, OPS_RULES),
    ("backend rma", 2, "test_comm_ops", ["backend"], {"PTO_COMM_BACKEND": "rma"}, True, 20,
     ["backend_rma_is_not_supported_in_this_version"]),
    ("am P=2", 2, "test_am", [], {"PTO_COMM_BACKEND": "am"}, True, 30, AM_RULES),
    ("am P=3", 3, "test_am", [], {"PTO_COMM_BACKEND": "am"}, True, 30, AM_RULES),
    ("am tcp P=2", 2, "test_am", [], {"PTO_COMM_BACKEND": "am", "OMPI_MCA_btl": "tcp,self"}, True, 30, AM_RULES),
    ("thread level", 2, "test_comm_ops", ["single"], {}, True, 20, ["mpi_below_serialized_is_refused"]),
    ("relay P=2", 2, "test_comm_ops", ["relay"], {}, False, 5, ["relay_reaches_every_peer_as_remote_failed"]),
    ("relay P=3", 3, "test_comm_ops", ["relay"], {}, False, 5, ["relay_reaches_every_peer_as_remote_failed"]),
    ("left", 2, "test_comm_ops", ["left"], {}, False, 5, ["rank_that_left_fails_the_waiting_ranks"]),
    ("entry timeout", 2, "test_comm_ops", ["timeout"], {"PTO_DIST_ENTRY_TIMEOUT_S": "1"}, False, 8,
     ["rank_that_never_calls_times_out_the_entry"]),
    ("coll expire", 2, "test_comm_ops", ["expire"], {}, False, 8, ["expired_coll_test_names_the_collective_and_its_domain"]),
]

# Whole scripts of py/ (not case files): one job each, as C_JOBS.
PY_SCRIPTS = [
    ("comm stats P=2", 2, "py/test_comm_stats.py", [], {}, True, 60, ["comm_stats_count_the_06_shape"]),
]

# The [all] backend set of §6.1: backend -> (mpirun arguments, environment): (a) shm,
# (b) am over shared memory, (c) am over TCP loopback.
BACKENDS = {"shm": ([], {}),
            "am": ([], {"PTO_COMM_BACKEND": "am"}),
            "am-tcp": ([], {"PTO_COMM_BACKEND": "am", "OMPI_MCA_btl": "tcp,self"})}

# Not anchored: mpirun may print a rank's tagged line after another rank's unfinished one.
LINE = re.compile(r"\[\d+,(\d+)\]<std(?:out|err)>:(PASS|FAIL) (\S+?):?(?: |$)")
PROBE = re.compile(r"\[\d+,(\d+)\]<stderr>:\[pypto-probe\] call (\d+) rank \d+ (\S+)=([0-9a-f]+)$")


def c_sanitizer_env():
    """The C programs of a sanitizer build (PTO_SANITIZER; the Python jobs' preload dropped: they link
    the runtime).  ASan: leak checks on, with sanitizers/lsan.supp for Open MPI's own allocations
    (full stacks and components kept loaded, so the suppressions can see whose they are).  TSan:
    sanitizers/tsan.supp for Open MPI's uninstrumented libraries."""
    supp = lambda name: os.path.join(HERE, "sanitizers", name)
    if os.environ.get("PTO_SANITIZER") == "address":
        return {"LD_PRELOAD": "", "ASAN_OPTIONS": "detect_leaks=1:fast_unwind_on_malloc=0",
                "LSAN_OPTIONS": "suppressions=%s:print_suppressions=0" % supp("lsan.supp"),
                "OMPI_MCA_mca_base_component_disable_dlclose": "1"}
    if os.environ.get("PTO_SANITIZER") == "thread":
        return {"LD_PRELOAD": "", "TSAN_OPTIONS": "halt_on_error=1:suppressions=%s" % supp("tsan.supp"),
                "OMPI_MCA_mca_base_component_disable_dlclose": "1"}  # called_from_lib needs them loaded
    return {}


def mpirun(np_, argv, extra=()):
    return ["timeout", "-k", "5", "120", "mpirun", "--allow-run-as-root", "--oversubscribe", "--tag-output",
            "-np", str(np_), "-x", "OPENBLAS_NUM_THREADS=1"] + list(extra) + argv


def probe_problems(out, np_):
    """Calls whose argument hashes differ across ranks, or that some rank did not probe."""
    seen = {}
    for line in out.splitlines():
        m = PROBE.search(line)
        if m:
            seen.setdefault((int(m.group(2)), m.group(3)), {})[int(m.group(1))] = m.group(4)
    bad = []
    for (call, param), by_rank in sorted(seen.items()):
        if len(by_rank) != np_ or len(set(by_rank.values())) != 1:
            bad.append("probe of call %d '%s' differs across ranks: %s" % (call, param, by_rank))
    return bad


def run_job(*args, **kwargs):
    """A job, run once more after a failure: a rank's output lost under load has been seen (one
    rank's last PASS line missing though it exited 0); the first failure is printed in full as
    FLAKY, so it stays visible, and a job that fails twice fails."""
    if run_job_once(*args, **kwargs):
        return True
    print("FLAKY %s: failed once (above); running it again" % args[0][0])
    return run_job_once(*args, **kwargs)


def run_job_once(job, argv, env_extra, extra_args=(), pass_ranks=None, output=(), probe=False, plain=False):
    """plain: argv runs without mpirun, as rank 0 of one (rank lines are then untagged)."""
    name, np_, _, _, _, exit_ok, bound, rules = job
    env = dict(os.environ)
    env.update(env_extra)
    start = time.monotonic()
    cmd = ["timeout", "-k", "5", "120"] + argv if plain else mpirun(np_, argv, extra_args)
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    wall = time.monotonic() - start
    passed, failed = {}, []
    for line in p.stdout.splitlines():
        m = LINE.search("[0,0]<stdout>:" + line if plain else line)
        if m and m.group(2) == "PASS":
            passed.setdefault(m.group(3), set()).add(int(m.group(1)))
        elif m:
            failed.append(line)
    problems = list(failed)
    for text in output:
        if text not in p.stdout:
            problems.append("output lacks %r" % text)
    if probe:
        problems += probe_problems(p.stdout, np_)
    if (p.returncode == 0) != exit_ok:
        problems.append("mpirun exited %d, expected %s" % (p.returncode, "0" if exit_ok else "non-zero"))
    if p.returncode in (124, 137):
        problems.append("timed out")
    if wall > bound:
        problems.append("took %.1f s, bound %d s" % (wall, bound))
    for rule in rules:
        missing = set(range(np_) if pass_ranks is None else pass_ranks) - passed.get(rule, set())
        if missing:
            problems.append("%s: no PASS from ranks %s" % (rule, sorted(missing)))
    if problems:
        print("FAIL %s (%.1f s):\n  %s\n--- output ---\n%s" % (name, wall, "\n  ".join(problems), p.stdout[-20000:]))
        return False
    for rule in rules:
        print("PASS %s [%s, %.1f s]" % (rule, name, wall))
    return True


def py_jobs(ext_dir):
    """The Python jobs: (job, driver arguments, environment, mpirun arguments, pass ranks, output texts, probe, plain)."""
    env = {"PYTHONPATH": os.path.join(ROOT, "python"), "PYPTO_EXT_DIR": ext_dir}
    driver = ["/usr/bin/python3", os.path.join(HERE, "driver.py")]
    listing = subprocess.run(driver + ["--list"], env=dict(os.environ, **env), stdout=subprocess.PIPE, text=True,
                             check=True).stdout
    cases = [json.loads(line) for line in listing.splitlines()]
    jobs, batches = [], {}
    for c in cases:
        backends = list(BACKENDS) if c["backends"] == "all" else c["backends"]
        for b in backends:
            args, benv = BACKENDS[b]
            spec = "%s:%s" % (c["file"], c["name"])
            f = c["fault"]
            if c["alone"]:
                fenv = dict(env, **benv, **(f["env"] if f else {}))
                exit_ok, bound = (f["exit_ok"], f["bound"]) if f else (True, c["bound"] + 10)
                job = ("%s P=%d %s" % (c["name"], c["P"], b), c["P"], None, None, None, exit_ok, bound, [c["name"]])
                jobs.append((job, driver + [str(c["P"]), spec], fenv, args + (f["mpirun_args"] if f else []),
                             f and f["pass_ranks"], f["output"] if f else [], f is None, bool(f and f["no_mpirun"])))
            else:
                batches.setdefault((c["P"], b), []).append((spec, c))
    for (P, b), members in sorted(batches.items()):
        args, benv = BACKENDS[b]
        job = ("cases P=%d %s" % (P, b), P, None, None, None, True, 10 + sum(c["bound"] for _, c in members),
               [c["name"] for _, c in members])
        jobs.append((job, driver + [str(P)] + [spec for spec, _ in members], dict(env, PYPTO_DIST_PROBE="1", **benv),
                     args, None, [], True, False))
    return jobs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", help="where the C test programs are")
    ap.add_argument("--ext-dir", help="where pypto._C and pypto._C_mpi were built")
    ap.add_argument("--strict", action="store_true", help="exit 2 when mpirun is absent")
    ap.add_argument("-k", dest="only", help="run only the jobs whose name or a rule contains this text")
    a = ap.parse_args()
    if shutil.which("mpirun") is None:
        print(SKIP_NO_MPIRUN)
        return 2 if a.strict else 0
    wanted = lambda job: a.only is None or a.only in job[0] or any(a.only in r for r in job[7])
    ok = True
    start = time.monotonic()
    exe = lambda prog: os.path.join(a.bin or "", prog)
    c_jobs = [j for j in C_JOBS if a.bin and os.access(exe(j[2]), os.X_OK)]
    if len(c_jobs) < len(C_JOBS):
        print("SKIP dist C tests: %s not built (libpto_mpi needs mpicc)" % exe("test_comm_ops"))
    for job in c_jobs:
        if wanted(job):
            ok &= run_job(job, [exe(job[2])] + job[3], dict(c_sanitizer_env(), **job[4]))
    ext_dir = os.path.abspath(a.ext_dir or os.path.join(ROOT, "python", "pypto"))
    if not glob.glob(os.path.join(ext_dir, "_C_mpi*.so")):
        print("SKIP dist Python tests: no pypto._C_mpi in %s" % ext_dir)
    elif os.environ.get("PTO_SANITIZER") == "thread":  # mpirun and every rank's interpreter would need the preload
        print("SKIP dist Python tests under TSan: the C tests check the transport's threads (§6.6)")
    else:
        env = {"PYTHONPATH": os.path.join(ROOT, "python"), "PYPTO_EXT_DIR": ext_dir}
        for job in PY_SCRIPTS:
            if wanted(job) and os.path.exists(os.path.join(HERE, job[2])):
                ok &= run_job(job, ["/usr/bin/python3", os.path.join(HERE, job[2])] + job[3], dict(env, **job[4]))
        for job, argv, env, args, pass_ranks, output, probe, plain in py_jobs(ext_dir):
            if wanted(job):
                ok &= run_job(job, argv, env, args, pass_ranks, output, probe, plain)
    print("dist suite: %.1f s" % (time.monotonic() - start))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
