"""The world a distributed call runs in, from Python's side (DISTRIBUTED-SPEC §1.4, §2.2,
§3 rows 5-7, §4.2; docs/distributed.md).

Outside mpirun the world is one rank and libmpi is never loaded.  Under mpirun
(told by the environment mpirun gives its ranks) the first distributed compile
or call imports pypto._C_mpi, which starts the MPI session and registers its
transport with pypto._C; every later call uses that session.  What a call does
on the ranks is C's (the host interpreter); this module only finds the world,
numbers the calls and writes the probe lines tests read.
"""
import hashlib
import os
import shutil
import sys

from ._errors import DistributedUnavailableError

_NO_MPI = ("this pypto was built without MPI support (pypto._C_mpi is missing): install openmpi-bin and "
           "libopenmpi-dev (make deps) and rebuild")

_session = None   # (rank, size, local_size, rank 0's start time) once the MPI session runs
_calls = 0        # distributed calls made by this process


def env_world_size():
    """The world size mpirun gave this process, or None when it was not started by mpirun."""
    size = os.environ.get("OMPI_COMM_WORLD_SIZE")
    if size is not None:
        return int(size)
    return None if os.environ.get("PMIX_RANK") is None else 0  # 0: under mpirun, size from the session


def world(device_ids, entry=None):
    """(rank, size, local_size) of the world device_ids names; starts the MPI session on first use
    (for the next call of entry: a rank that never arrives times it out naming that call).
    Raises the §3 row 5-7 errors before any MPI call."""
    global _session
    n = len(device_ids)
    size = env_world_size()
    if size is None:
        if n > 1:
            cmd = " ".join([sys.executable] + sys.argv)
            text = ("DistributedConfig.device_ids has %d entries but this process was not started by mpirun; "
                    "run: mpirun -np %d %s" % (n, n, cmd))
            if shutil.which("mpirun") is None:
                text += " (mpirun is not installed: make deps, or apt-get install openmpi-bin libopenmpi-dev)"
            raise ValueError(text)
        return 0, 1, 1
    if size and n != size:
        raise _world_mismatch(n, size)
    if _session is None:
        try:
            from . import _C_mpi
        except ImportError:
            raise DistributedUnavailableError(_NO_MPI) from None
        _session = _C_mpi.init(None if entry is None else "call #%d of '%s'" % (_calls + 1, entry))
    rank, size, local_size = _session[0], _session[1], _session[2]
    if n != size:
        raise _world_mismatch(n, size)
    return rank, size, local_size


def _world_mismatch(n, size):
    return ValueError("DistributedConfig.device_ids has %d entries but the MPI world has %d ranks (mpirun -np %d); "
                      "launch with mpirun -np %d or pass %d device ids" % (n, size, size, n, size))


def rank():
    """This process's rank (0 outside mpirun or before the session started)."""
    return _session[0] if _session else 0


def start_time():
    """Rank 0's clock at session start (names <work_dir> alike on every rank), or None."""
    return _session[3] if _session and len(_session) > 3 else None


def default_workers(local_size):
    """D18: CPUs in this rank's affinity mask, shared by the local ranks when they share the mask."""
    cpus = len(os.sched_getaffinity(0))
    if cpus >= (os.cpu_count() or cpus):  # not bound: every local rank shares the machine
        return max(1, cpus // max(1, local_size))
    return max(1, cpus)


def next_call():
    """The number of the distributed call about to run (1, 2, ...)."""
    global _calls
    _calls += 1
    return _calls


def probe(call, rank_, names, values):
    """PYPTO_DIST_PROBE=1: one line per tensor argument with the sha256 of its bytes."""
    if os.environ.get("PYPTO_DIST_PROBE") != "1":
        return
    for name, value in zip(names, values):
        if not hasattr(value, "shape"):
            continue
        data = value.detach().contiguous().numpy().tobytes() if hasattr(value, "detach") else value.tobytes()
        # one write per line: mpirun's --tag-output tags each chunk it reads
        sys.stderr.write("[pypto-probe] call %d rank %d %s=%s\n" % (call, rank_, name, hashlib.sha256(data).hexdigest()))
        sys.stderr.flush()
