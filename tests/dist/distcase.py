"""What the distributed test files share (DISTRIBUTED-SPEC §6.1): the case registry, the
world of this rank, configs, checks and the PASS/FAIL lines run.py reads.

A test file of tests/dist/py declares its cases with @case(name, ranks=..., backends=...);
driver.py runs the cases run.py names in one process per rank, and run.py batches the
cases of equal P and backend into one mpirun job.  A case gets the world size P and
raises AssertionError (via check) when a rule does not hold; a fault case (fault=...)
gets its own job and states the job's expected end instead.
"""
import os
import sys
import time

import torch

ALL = "all"  # the [all] backend set of §6.1 (run.py knows which backends exist)
# A rule decided on the host before or beside any window traffic (entry check, world, host
# contract checks): one backend shows it, the others would only repeat it.
HOST_ONLY = ("shm",)
REGISTRY = []
# A sanitizer build runs several times slower (and CI runs it beside other tests): the time
# bounds a case states are scaled by this factor there.
SLOWDOWN = 3.0 if os.environ.get("PTO_SANITIZER") else 1.0


class Fault:
    """How a fault case's job ends: mpirun's exit status zero or not, the wall-time bound,
    which ranks must print PASS, texts mpirun's output must contain, extra environment."""

    def __init__(self, bound, exit_ok=False, pass_ranks=None, output=(), env=None, mpirun_args=(), no_mpirun=False):
        self.bound, self.exit_ok, self.pass_ranks = bound, exit_ok, pass_ranks
        self.output, self.env, self.mpirun_args, self.no_mpirun = list(output), dict(env or {}), list(mpirun_args), no_mpirun


def case(name, ranks=(2,), backends=ALL, bound=20, fault=None, alone=False):
    """Registers fn(P) as the case `name` for each P in ranks; bound = its share of the job's
    wall-time bound in seconds; alone = its own job (it checks process-wide state)."""
    def deco(fn):
        for p in ranks:
            REGISTRY.append({"name": name, "P": p, "backends": backends, "bound": bound, "fault": fault,
                             "alone": alone or fault is not None, "fn": fn, "file": fn.__module__})
        return fn
    return deco


def rank():
    return int(os.environ.get("OMPI_COMM_WORLD_RANK", "0"))


def say(line):
    # one write per line: mpirun's --tag-output tags each chunk it reads
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def config(P, **run):
    """RunConfig of a P-rank world (device_ids 0..P-1) with the RunConfig fields in run."""
    from pypto.ir.distributed_compiled_program import DistributedConfig
    from pypto.runtime import RunConfig
    return RunConfig(distributed_config=DistributedConfig(device_ids=list(range(P))), **run)


def seeded(seed):
    """A generator seeded per rank when seed is None (ranks must differ: D4), else by seed."""
    return torch.Generator().manual_seed(1000 + rank() if seed is None else seed)


def equal(got, want, what):
    """Bitwise equality of two tensors; the message names the first differing element."""
    check(got.dtype == want.dtype and got.shape == want.shape, "%s: %s %s, want %s %s" % (
        what, got.dtype, tuple(got.shape), want.dtype, tuple(want.shape)))
    diff = (got != want).nonzero()
    if len(diff):
        at = tuple(diff[0].tolist())
        raise AssertionError("%s: %d elements differ, first at %s: got %r, want %r" % (
            what, len(diff), at, got[at].item(), want[at].item()))


def raises(fn, code, *texts, within=None):
    """Calls fn, which must raise PTORuntimeError with code (None: any) and each text in its
    message, within `within` seconds (times SLOWDOWN) when given; returns the error."""
    from pypto.runtime import PTORuntimeError
    start = time.monotonic()
    try:
        fn()
    except PTORuntimeError as e:
        took, msg = time.monotonic() - start, str(e)
        if code is not None and e.code != code:
            raise AssertionError("code %r, want %d: %s" % (e.code, code, msg))
        for t in texts:
            check(t in msg, "%r not in the message:\n%s" % (t, msg))
        if within is not None and took > within * SLOWDOWN:
            raise AssertionError("raised after %.2f s, bound %.1f s" % (took, within * SLOWDOWN))
        return e
    raise AssertionError("no PTORuntimeError (want code %s)" % code)
