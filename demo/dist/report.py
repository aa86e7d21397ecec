"""What every distributed demo prints (make demo-dist): its check, its time per call and,
from this rank's comm_stats.json (DISTRIBUTED-SPEC §2.7), one summary line per rank.
Each rank prints its own lines; mpirun --tag-output says which rank wrote them."""
import json
import os
import sys
import time

RANK = int(os.environ.get("OMPI_COMM_WORLD_RANK", "0"))
WORLD = int(os.environ.get("OMPI_COMM_WORLD_SIZE", "1"))
KINDS = ("put", "acc", "get", "remote_load", "remote_store")


def say(text):
    sys.stdout.write(text + "\n")  # one write per line: --tag-output tags each chunk
    sys.stdout.flush()


def work_dir(demo):
    """The demo's <work_dir>, alike on every rank (comm_stats.json under dfx_outputs/rank<r>)."""
    return os.path.join(os.environ.get("DEMO_DIST_DIR", "build/demo-dist"), "%s-np%d" % (demo, WORLD))


def per_call_ms(call, calls):
    """Runs call() calls times (after one warm-up call that compiles); the mean ms per call."""
    call()
    start = time.perf_counter()
    for _ in range(calls):
        call()
    return (time.perf_counter() - start) * 1e3 / calls


def check(name, ok, ms):
    say("%s: %s, %.3f ms per call" % (name, "check passed" if ok else "CHECK FAILED", ms))
    if not ok:
        sys.exit(1)


def comm_summary(wd):
    """This rank's comm-stats line: traffic by kind and peer, notifies, waits, collectives, phases."""
    with open(os.path.join(wd, "dfx_outputs", "rank%d" % RANK, "comm_stats.json")) as f:
        s = json.load(f)
    traffic = []
    for e in s["per_peer"]:
        for k in KINDS:
            if e[k + "_ops"]:
                traffic.append("%s->%d %dx%dB" % (k, e["peer"], e[k + "_ops"], e[k + "_bytes"] // e[k + "_ops"]))
        if e["notify_ops"]:
            traffic.append("notify->%d %dx" % (e["peer"], e["notify_ops"]))
    colls = ["%s %dx%dB" % (op, v["ops"], v["bytes"] // max(1, v["ops"])) for op, v in sorted(s["collectives"].items())]
    phases = " ".join("%s=%.0f" % (k, v) for k, v in s["phase_us"].items())
    say("comm stats rank %d of %d (%s): %s; %d waits %.3f ms; window %d B; last call us: %s" % (
        s["rank"], s["world"], ", ".join("%s %s" % kv for kv in s["backends"].items()) or "no domain",
        ", ".join(traffic + colls) or "no traffic", s["waits"], s["wait_ms"], s["window_bytes"], phases))
