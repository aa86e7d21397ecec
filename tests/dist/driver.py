"""Runs distributed test cases in this process (one rank of an mpirun job), or lists them.

    driver.py --list                 one JSON line per (case, P) of the case files tests/dist/py/test_*.py
    driver.py P FILE:CASE ...        runs those cases at world size P, in order

Each case that returns prints "PASS <case>"; one that raises prints "FAIL <case>: <why>"
(the first line of the why) and the traceback, and the driver exits 1 after the rest ran.
"""
import glob
import importlib
import json
import os
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "py"))

import distcase  # noqa: E402


def is_cases(path):
    """A file of cases (it uses distcase); the others are whole scripts run.py runs itself."""
    with open(path) as f:
        return "from distcase import" in f.read()


def load(names):
    for n in names:
        importlib.import_module(n)


def main(argv):
    if argv[:1] == ["--list"]:
        load(os.path.basename(f)[:-3] for f in sorted(glob.glob(os.path.join(HERE, "py", "test_*.py"))) if is_cases(f))
        for c in distcase.REGISTRY:
            f = c["fault"]
            print(json.dumps({"name": c["name"], "P": c["P"], "backends": c["backends"], "bound": c["bound"],
                              "alone": c["alone"], "file": c["file"],
                              "fault": f and {"bound": f.bound, "exit_ok": f.exit_ok, "pass_ranks": f.pass_ranks,
                                              "output": f.output, "env": f.env, "mpirun_args": f.mpirun_args,
                                              "no_mpirun": f.no_mpirun}}))
        return 0
    P = int(argv[0])
    wanted = [a.split(":", 1) for a in argv[1:]]
    load(sorted({f for f, _ in wanted}))
    ok = True
    for f, name in wanted:
        fn = next(c["fn"] for c in distcase.REGISTRY if c["file"] == f and c["name"] == name and c["P"] == P)
        try:
            fn(P)
        except Exception as e:  # noqa: BLE001 - every failure is reported as this case's FAIL line
            ok = False
            why = (str(e) or type(e).__name__).splitlines()[0]
            distcase.say("FAIL %s: %s: %s" % (name, type(e).__name__, why))
            sys.stdout.write(traceback.format_exc(limit=-2))
            sys.stdout.flush()
            continue
        distcase.say("PASS " + name)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
