"""comm_stats.json (DISTRIBUTED-SPEC §2.7, test X15): a program of the 06 shape (three
window buffers, one dispatch per rank, one put of 64 FP32 to the next rank plus one
notify/wait pair), run with PTO_COMM_STATS=1 and again with enable_scope_stats, writes
<work_dir>/dfx_outputs/rank<r>/comm_stats.json on every rank showing exactly 1 put of 256
bytes and 1 notify, both to the next rank, 1 wait, no other traffic, windows of 256 + 256 + 64
bytes (each buffer rounded up to 64).  Run by run.py under
mpirun (any P >= 2; rule comm_stats_count_the_06_shape)."""
import json
import os
import sys
import tempfile

import torch

import pypto.language as pl
import pypto.language.distributed as pld
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import RunConfig

RULE = "comm_stats_count_the_06_shape"
P = int(os.environ["OMPI_COMM_WORLD_SIZE"])
LEN = 64
KINDS = ("put", "acc", "get", "remote_load", "remote_store")
PHASES = ("entry_check", "domains", "window_alloc", "inputs", "run", "results", "release")


def say(line):
    sys.stdout.write(line + "\n")  # one write per line: --tag-output tags each chunk
    sys.stdout.flush()


def check(cond, what):
    if not cond:
        say("FAIL %s: %s" % (RULE, what))
        sys.exit(1)


@pl.jit.incore
def send_right(
    x: pl.Tensor[[1, LEN], pl.FP32],
    y: pl.Out[pl.Tensor[[1, LEN], pl.FP32]],
    outbox: pld.DistributedTensor[[1, LEN], pl.FP32],
    inbox: pld.DistributedTensor[[1, LEN], pl.FP32],
    flag: pld.DistributedTensor[[1, 1], pl.INT32],
):
    ctx = pld.get_comm_ctx(outbox)
    right = (pld.rank(ctx) + 1) % pld.nranks(ctx)
    outbox = pl.store(pl.load(x, [0, 0], [1, LEN]), [0, 0], outbox)
    pld.tensor.put(inbox, peer=right, src=outbox, atomic=pld.AtomicType.None_)
    pld.system.notify(flag, peer=right, offsets=[0, 0], value=1, op=pld.NotifyOp.AtomicAdd)
    pld.system.wait(flag, offsets=[0, 0], expected=1, cmp=pld.WaitCmp.Ge)
    y = pl.store(pl.load(inbox, [0, 0], [1, LEN]), [0, 0], y)
    return y


@pl.jit
def on_rank(x: pl.Tensor[[1, LEN], pl.FP32], y: pl.Out[pl.Tensor[[1, LEN], pl.FP32]],
            outbox: pld.DistributedTensor[[1, LEN], pl.FP32], inbox: pld.DistributedTensor[[1, LEN], pl.FP32],
            flag: pld.DistributedTensor[[1, 1], pl.INT32]):
    return send_right(x, y, outbox, inbox, flag)


NR = pl.dynamic("NR")


@pl.jit.host
def hand_off(x: pl.Tensor[[NR, 1, LEN], pl.FP32], y: pl.Out[pl.Tensor[[NR, 1, LEN], pl.FP32]]):
    outbox_buf = pld.alloc_window_buffer([1, LEN], dtype=pl.FP32)
    inbox_buf = pld.alloc_window_buffer([1, LEN], dtype=pl.FP32)
    flag_buf = pld.alloc_window_buffer([1, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        outbox = pld.window(outbox_buf, [1, LEN], dtype=pl.FP32)
        inbox = pld.window(inbox_buf, [1, LEN], dtype=pl.FP32)
        flag = pld.window(flag_buf, [1, 1], dtype=pl.INT32)
        on_rank(x[r], y[r], outbox, inbox, flag, device=r)


def stats_of(work_dir, rank):
    path = os.path.join(work_dir, "dfx_outputs", "rank%d" % rank, "comm_stats.json")
    check(os.path.exists(path), "no %s" % path)
    with open(path) as f:
        return json.load(f)


def check_counts(s, rank):
    right = (rank + 1) % P
    check((s["version"], s["rank"], s["world"]) == (1, rank, P), "header %r" % ((s["version"], s["rank"], s["world"]),))
    check(s["backends"] == {"[%s]" % ", ".join(map(str, range(P))): "shm"}, "backends %r" % s["backends"])
    check([e["peer"] for e in s["per_peer"]] == list(range(P)), "per_peer peers %r" % [e["peer"] for e in s["per_peer"]])
    for e in s["per_peer"]:
        want = {k: 0 for k in KINDS}
        if e["peer"] == right:
            want["put"] = 1
        for k in KINDS:
            check(e[k + "_ops"] == want[k] and e[k + "_bytes"] == 256 * want[k],
                  "peer %d: %s %d ops, %d bytes" % (e["peer"], k, e[k + "_ops"], e[k + "_bytes"]))
        check(e["notify_ops"] == (e["peer"] == right), "peer %d: %d notifies" % (e["peer"], e["notify_ops"]))
    check(s["collectives"] == {} and s["waits"] == 1 and s["wait_ms"] >= 0, "collectives %r, waits %r" % (s["collectives"], s["waits"]))
    # one wait per rank: a spare takes its slot when it outlasts the spin, or none
    check(s["spare_threads_peak"] in (0, 1) and s["window_bytes"] == 2 * 256 + 64, "spare %r, window_bytes %r" % (s["spare_threads_peak"], s["window_bytes"]))
    check(sorted(s["phase_us"]) == sorted(PHASES) and all(v >= 0 for v in s["phase_us"].values()), "phase_us %r" % s["phase_us"])


def main():
    rank = int(os.environ["OMPI_COMM_WORLD_RANK"])
    ids = list(range(P))
    x = torch.arange(P * LEN, dtype=torch.float32).reshape(P, 1, LEN)
    with tempfile.TemporaryDirectory() as work_dir:  # this rank's own; both calls use it (one compiled program)
        for how, scope_stats in (("PTO_COMM_STATS=1", False), ("enable_scope_stats", True)):
            os.environ["PTO_COMM_STATS"] = "1" if not scope_stats else "0"
            cfg = RunConfig(platform="a2a3sim", distributed_config=DistributedConfig(device_ids=ids),
                            enable_scope_stats=scope_stats, save_kernels_dir=work_dir)
            y = torch.zeros_like(x)
            hand_off(x, y, config=cfg)
            check(torch.equal(y, torch.roll(x, 1, 0)), "%s: y is not x shifted by one rank" % how)
            check_counts(stats_of(work_dir, rank), rank)
            os.remove(os.path.join(work_dir, "dfx_outputs", "rank%d" % rank, "comm_stats.json"))
    say("PASS " + RULE)


main()
