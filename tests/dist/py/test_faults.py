"""§6.4 fault cases and the rule tests that end in a fatal, each in its own mpirun job with
its expected exit and wall-time bound (run.py); each asserts its code and message on every
rank that can still speak: F1 with X18, F3 (shape, scalar, program, a rank that skips the
call), F4 (wrong peer, wrong expected), F4', F6, F8, F9, X03's same-call read (D6), X04's
oversized view, X16.
stall_timeout_ms = 500 unless the case says otherwise."""
import os
import re
import sys
import time

import pypto.language as pl
import pypto.language.distributed as pld
import torch

from distcase import HOST_ONLY, Fault, case, check, config, equal, raises, rank

N = 16
INVALID_ARGS, KERNEL_FAILED, REMOTE_FAILED, RANKS_DIVERGED, WAIT_TIMEOUT, COMM_FAILED = 5, 12, 15, 16, 17, 18


def stall(P, ms=500):
    return config(P, stall_timeout_ms=ms)


@pl.jit.incore
def ping_k(a: pl.Tensor[[1, N], pl.FP32], y: pl.Out[pl.Tensor[[1, N], pl.FP32]],
           box: pld.DistributedTensor[[1, N], pl.FP32], bell: pld.DistributedTensor[[1, 1], pl.INT32],
           to: pl.Scalar[pl.INT32], want: pl.Scalar[pl.INT32]):
    me = pld.rank(pld.get_comm_ctx(box))
    pld.tensor.put(box, peer=1 - me, src=a)
    pld.system.notify(bell, peer=to, offsets=[0, 0], value=1, op=pld.NotifyOp.AtomicAdd)
    pld.system.wait(bell, offsets=[0, 0], expected=want, cmp=pld.WaitCmp.Ge)
    y = pl.store(pl.load(box, [0, 0], [1, N]), [0, 0], y)
    return y


@pl.jit
def ping_dev(a: pl.Tensor[[1, N], pl.FP32], y: pl.Out[pl.Tensor[[1, N], pl.FP32]],
             box: pld.DistributedTensor[[1, N], pl.FP32], bell: pld.DistributedTensor[[1, 1], pl.INT32],
             to: pl.Scalar[pl.INT32], want: pl.Scalar[pl.INT32]):
    return ping_k(a, y, box, bell, to, want)


@pl.jit.host
def ping(a: pl.Tensor[[2, 1, N], pl.FP32], y: pl.Out[pl.Tensor[[2, 1, N], pl.FP32]], wrong: pl.Scalar[pl.INT32],
         want: pl.Scalar[pl.INT32]):
    """Rank r notifies rank 1 - r, or itself when wrong == 1; waits for want notifies."""
    bb = pld.alloc_window_buffer([1, N], dtype=pl.FP32)
    sb = pld.alloc_window_buffer([1, 1], dtype=pl.INT32)
    for r in pl.range(2):
        box = pld.window(bb, [1, N], dtype=pl.FP32)
        bell = pld.window(sb, [1, 1], dtype=pl.INT32)
        ping_dev(a[r], y[r], box, bell, (1 - r) * (1 - wrong) + r * wrong, want, device=r)


def ping_args():
    return torch.ones((2, 1, N)), torch.zeros((2, 1, N))


@case("f4_notify_to_the_wrong_peer_times_out_and_is_relayed", ranks=(2,), fault=Fault(bound=12))
def f4_wrong_peer(P):
    # each rank notifies itself: each wait sees 1 of the 2 it wants, stays put, times out
    a, y = ping_args()
    e = raises(lambda: ping(a, y, 1, 2, config=stall(P)), None, within=2.5)
    check(e.code in (WAIT_TIMEOUT, REMOTE_FAILED), "code %r: %s" % (e.code, e))
    if e.code == WAIT_TIMEOUT:
        for text in ("pld.system.wait on 'sb'[0, 0] >= 2; observed 1", "ping_k", "task="):
            check(text in str(e), "%r not in:\n%s" % (text, e))
        # the bound (stall_timeout_ms=500), read at the wait's next check
        check(re.search(r"last changed 5\d\d ms ago", str(e)), "no 'last changed 5xx ms ago' in:\n%s" % e)
    else:
        check("rank %d (device_ids[%d]=%d) failed:" % ((1 - rank(),) * 3) in str(e), "no origin line in:\n%s" % e)


@case("f4_expected_2_where_1_arrives_times_out_on_every_rank", ranks=(2,), fault=Fault(bound=12))
def f4_expected_2(P):
    a, y = ping_args()
    e = raises(lambda: ping(a, y, 0, 2, config=stall(P)), None, within=2.5)
    check(e.code in (WAIT_TIMEOUT, REMOTE_FAILED), "code %r: %s" % (e.code, e))
    if e.code == WAIT_TIMEOUT:
        check("observed 1" in str(e) and ">= 2" in str(e), "no cell state in:\n%s" % e)


@case("f4_prime_a_late_notify_within_the_stall_bound_succeeds", ranks=(2,))
def f4_prime(P):
    a, y = ping_args()
    if rank() == 1:
        time.sleep(0.3)  # rank 0 enters first and waits (entry, then its bell) for rank 1
    ping(a, y, 0, 1, config=stall(P, 1000))
    equal(y, torch.ones((2, 1, N)), "y")


@pl.jit.incore
def split_k(y: pl.Out[pl.Tensor[[1, N], pl.INT32]], bell: pld.DistributedTensor[[1, 1], pl.INT32]):
    me = pld.rank(pld.get_comm_ctx(bell))
    share = 12 // (1 - me)  # rank 1 divides by zero before it notifies
    pld.system.notify(bell, peer=1 - me, offsets=[0, 0], value=share, op=pld.NotifyOp.AtomicAdd)
    pld.system.wait(bell, offsets=[0, 0], expected=1, cmp=pld.WaitCmp.Ge)
    pl.write(y, [0, 0], pl.read(bell, [0, 0]))
    return y


@pl.jit
def split_dev(y: pl.Out[pl.Tensor[[1, N], pl.INT32]], bell: pld.DistributedTensor[[1, 1], pl.INT32]):
    return split_k(y, bell)


@pl.jit.host
def split(y: pl.Out[pl.Tensor[[2, 1, N], pl.INT32]]):
    sb = pld.alloc_window_buffer([1, 1], dtype=pl.INT32)
    for r in pl.range(2):
        bell = pld.window(sb, [1, 1], dtype=pl.INT32)
        split_dev(y[r], bell, device=r)


@pl.jit.incore
def scale_k(a: pl.Tensor[[1, N], pl.FP32], y: pl.Out[pl.Tensor[[1, N], pl.FP32]], k: pl.Scalar[pl.INT32]):
    y = pl.store(pl.add(pl.load(a, [0, 0], [1, N]), pl.cast(k, target_type=pl.FP32)), [0, 0], y)
    return y


@pl.jit
def scale_dev(a: pl.Tensor[[1, N], pl.FP32], y: pl.Out[pl.Tensor[[1, N], pl.FP32]], k: pl.Scalar[pl.INT32]):
    return scale_k(a, y, k)


@case("f1_x18_kernel_failure_on_rank1_is_relayed_then_the_session_is_poisoned", ranks=(2,), fault=Fault(bound=10))
def f1_x18(P):
    y = torch.zeros((2, 1, N), dtype=torch.int32)
    e = raises(lambda: split(y, config=stall(P)), KERNEL_FAILED if rank() == 1 else REMOTE_FAILED, within=2.0)
    if rank() == 0:
        check("rank 1 (device_ids[1]=1) failed:" in str(e) and "split_k" in str(e), "no origin text in:\n%s" % e)
        check(e.rank == 1 and e.origin_code == KERNEL_FAILED, "rank %r, origin_code %r" % (e.rank, e.origin_code))
    raises(lambda: split(y, config=stall(P)), COMM_FAILED,
           "distributed session unusable after the failure on rank 1 in call #1 of 'split'; restart the job")
    a, b = torch.arange(N, dtype=torch.float32).view(1, N), torch.zeros((1, N))
    scale_dev(a, b, 3)
    equal(b, a + 3, "plain @pl.jit call after the fatal")


V = pl.dynamic("V")


@pl.jit.host
def scaled(a: pl.Tensor[[V, 1, N], pl.FP32], y: pl.Out[pl.Tensor[[V, 1, N], pl.FP32]], k: pl.Scalar[pl.INT32]):
    for r in pl.range(2):
        scale_dev(a[r], y[r], k, device=r)


def scaled_plus_one():
    """A program of the same name as scaled with another body: only its listing tells them apart."""
    @pl.jit.host
    def scaled(a: pl.Tensor[[V, 1, N], pl.FP32], y: pl.Out[pl.Tensor[[V, 1, N], pl.FP32]], k: pl.Scalar[pl.INT32]):
        for r in pl.range(2):
            scale_dev(a[r], y[r], k + 1, device=r)
    return scaled


scaled_too = scaled_plus_one()


def diverged(fn, *texts):
    e = raises(fn, RANKS_DIVERGED, *texts, within=1.5)
    check("rank 0 has" in str(e) and "rank 1 has" in str(e), "no two ranks' values in:\n%s" % e)


@case("f3_another_leading_dim_on_rank1_diverges", backends=HOST_ONLY, ranks=(2,), fault=Fault(bound=8))
def f3_shape(P):
    n = 2 + rank()
    diverged(lambda: scaled(torch.zeros((n, 1, N)), torch.zeros((n, 1, N)), 1, config=config(P)), "differs")


@case("f3_another_scalar_on_rank1_diverges", backends=HOST_ONLY, ranks=(2,), fault=Fault(bound=8))
def f3_scalar(P):
    diverged(lambda: scaled(torch.zeros((2, 1, N)), torch.zeros((2, 1, N)), 1 + rank(), config=config(P)), "differs")


@case("f3_another_program_on_rank1_diverges", backends=HOST_ONLY, ranks=(2,), fault=Fault(bound=8))
def f3_program(P):
    fn = scaled if rank() == 0 else scaled_too
    diverged(lambda: fn(torch.zeros((2, 1, N)), torch.zeros((2, 1, N)), 1, config=config(P)), "differs", "program scaled ")


@case("f3_a_rank_that_skips_the_call_and_ends_fails_the_waiting_rank", backends=HOST_ONLY, ranks=(2,),
      fault=Fault(bound=8, pass_ranks=[0]))
def f3_skip(P):
    args = (torch.zeros((2, 1, N)), torch.zeros((2, 1, N)), 1)
    scaled(*args, config=config(P))
    if rank() == 1:
        sys.exit(0)
    raises(lambda: scaled(*args, config=config(P)), REMOTE_FAILED,
           "rank 1 left the job (its script ended) during call #2 of 'scaled'", within=2.5)


@case("f8_three_device_ids_under_np_2_is_a_value_error", backends=HOST_ONLY, ranks=(2,), fault=Fault(bound=8, exit_ok=True))
def f8_mpirun(P):
    try:
        scaled(torch.zeros((2, 1, N)), torch.zeros((2, 1, N)), 1, config=config(3))
    except ValueError as e:
        check(str(e) == "DistributedConfig.device_ids has 3 entries but the MPI world has 2 ranks (mpirun -np 2); "
                        "launch with mpirun -np 3 or pass 2 device ids", str(e))
        check(not any("libmpi.so" in line for line in open("/proc/self/maps")), "libmpi mapped: an MPI call was made")
        return
    raise AssertionError("no ValueError")


@case("f8_two_device_ids_without_mpirun_is_a_value_error", backends=HOST_ONLY, ranks=(1,),
      fault=Fault(bound=8, exit_ok=True, no_mpirun=True))
def f8_plain(P):
    try:
        scaled(torch.zeros((2, 1, N)), torch.zeros((2, 1, N)), 1, config=config(2))
    except ValueError as e:
        check(str(e).startswith("DistributedConfig.device_ids has 2 entries but this process was not started by "
                                "mpirun; run: mpirun -np 2 "), str(e))
        return
    raise AssertionError("no ValueError")


@pl.jit.incore
def wide_k(y: pl.Out[pl.Tensor[[1, N], pl.FP32]], w: pld.DistributedTensor[[4, N], pl.FP32]):
    y = pl.store(pl.load(w, [0, 0], [1, N]), [0, 0], y)
    return y


@pl.jit
def wide_dev(y: pl.Out[pl.Tensor[[1, N], pl.FP32]], w: pld.DistributedTensor[[4, N], pl.FP32]):
    return wide_k(y, w)


@pl.jit.host
def too_wide(y: pl.Out[pl.Tensor[[2, 1, N], pl.FP32]]):
    wb = pld.alloc_window_buffer([2, N], dtype=pl.FP32)
    for r in pl.range(2):
        w = pld.window(wb, [4, N], dtype=pl.FP32)
        wide_dev(y[r], w, device=r)


@case("x04_a_window_view_larger_than_its_buffer_is_invalid", backends=HOST_ONLY, ranks=(2,), fault=Fault(bound=8))
def x04_too_wide(P):
    raises(lambda: too_wide(torch.zeros((2, 1, N)), config=config(P)), INVALID_ARGS,
           "pld.window of 'wb' needs %d bytes ([4, %d] FP32) but the buffer holds %d" % (16 * N, N, 8 * N))


@pl.jit.incore
def peek_k(y: pl.Out[pl.Tensor[[1, N], pl.FP32]], w: pld.DistributedTensor[[2, N], pl.FP32],
           sig: pld.DistributedTensor[[2, 1], pl.INT32], row: pl.Scalar[pl.INT32]):
    me = pld.rank(pld.get_comm_ctx(w))
    w = pl.store(pl.add(pl.load(w, [0, 0], [1, N]), 7.0), [1, 0], w)
    sig = pld.tensor.barrier(sig)
    if me == 0:
        y = pl.store(pld.tile.remote_load(w, peer=1, offsets=[row, 0], shape=[1, N]), [0, 0], y)
    sig = pld.tensor.barrier(sig)
    y = pl.store(pl.load(w, [1, 0], [1, N]), [0, 0], y)
    return y


@pl.jit
def peek_dev(y: pl.Out[pl.Tensor[[1, N], pl.FP32]], w: pld.DistributedTensor[[2, N], pl.FP32],
             sig: pld.DistributedTensor[[2, 1], pl.INT32], row: pl.Scalar[pl.INT32]):
    return peek_k(y, w, sig, row)


@pl.jit.host
def peek_past(y: pl.Out[pl.Tensor[[2, 1, N], pl.FP32]], row: pl.Scalar[pl.INT32]):
    wb = pld.alloc_window_buffer([2, N], dtype=pl.FP32)
    sb = pld.alloc_window_buffer([2, 1], dtype=pl.INT32)
    for r in pl.range(2):
        w = pld.window(wb, [2, N], dtype=pl.FP32)
        sig = pld.window(sb, [2, 1], dtype=pl.INT32)
        peek_dev(y[r], w, sig, row, device=r)


@case("f6_remote_load_past_the_peers_window_fails_on_the_origin", ranks=(2,), fault=Fault(bound=10))
def f6(P):
    y = torch.zeros((2, 1, N))
    e = raises(lambda: peek_past(y, 2, config=stall(P)), KERNEL_FAILED if rank() == 0 else REMOTE_FAILED, within=2.5)
    text = "pld.tile.remote_load box [2:3, 0:%d] exceeds 'wb' of shape [2, %d]" % (N, N)
    check(text in str(e), "%r not in:\n%s" % (text, e))


@case("x16_pto_comm_backend_set_on_one_rank_only_diverges", backends=HOST_ONLY, ranks=(2,), fault=Fault(bound=8))
def x16(P):
    if rank() == 1:
        os.environ["PTO_COMM_BACKEND"] = "shm"
    diverged(lambda: ping(*ping_args(), 0, 1, config=config(P)), "PTO_COMM_BACKEND")


@case("f9_a_rank_that_stays_alive_and_never_calls_times_out_the_entry", backends=HOST_ONLY, ranks=(2,),
      fault=Fault(bound=12, pass_ranks=[0], env={"PTO_DIST_ENTRY_TIMEOUT_S": "3"}))
def f9(P):
    args = (torch.zeros((2, 1, N)), torch.zeros((2, 1, N)), 1)
    if rank() == 1:
        # compiled (the session started: Open MPI 4.1's MPI_Init itself waits for every rank), then
        # alive and never calling: the job ends when rank 0 aborts it
        scaled.compile(*args, config=config(P))
        time.sleep(30)
    raises(lambda: scaled(*args, config=config(P)), WAIT_TIMEOUT,
           "ranks did not all reach call #1 of 'scaled' within 3 s (PTO_DIST_ENTRY_TIMEOUT_S)", within=5.0)


@pl.jit.host
def write_then_read(a: pl.Tensor[[2, 1, N], pl.FP32], y: pl.Out[pl.Tensor[[2, 1, N], pl.FP32]]):
    scale_dev(a[0], y[0], 1, device=0)
    scale_dev(y[0], y[1], 2, device=1)


@case("x03_a_region_written_on_rank0_and_read_on_rank1_in_the_same_call_is_invalid_on_every_rank", backends=HOST_ONLY, ranks=(2,),
      fault=Fault(bound=8))
def x03_same_call(P):
    a = torch.zeros((2, 1, N))
    if rank() == 1:
        time.sleep(0.5)  # rank 0 finds it first: rank 1 must still find it itself
    raises(lambda: write_then_read(a, torch.zeros((2, 1, N)), config=config(P)), INVALID_ARGS,
           "host tensor 'y' [0:1, 0:1, 0:%d] is read by 'scale_dev' on rank 1 but was written on rank 0 earlier in this "
           "call" % N, "in this version data moves between ranks only through windows and host collectives", within=2.0)
