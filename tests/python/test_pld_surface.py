"""The distributed surface as Python sees it (DISTRIBUTED-SPEC §1.1, §1.4, §3 rows 5-7, §4.2):
pypto.language.distributed's names and enums, DistributedConfig's rules, the world a process
finds (mpirun or not) and what is later.  One test per rule."""
import subprocess
import sys

import numpy as np
import pytest

import pypto.language.distributed as pld
from pypto import _C, _dist, ir
from pypto.ir.distributed_compiled_program import DistributedCompiledProgram, DistributedConfig
from pypto.runtime import DistributedUnavailableError, DistributedWorker, PTORuntimeError


def test_importing_pld_never_loads_libmpi():
    code = ("import pypto.language.distributed, pypto.ir.distributed_compiled_program, sys\n"
            "maps = open('/proc/self/maps').read()\n"
            "print('libmpi' in maps, 'pypto._C_mpi' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": ":".join(sys.path)}).stdout
    assert out.split() == ["False", "False"]


def test_pld_enum_values_are_upstreams():
    assert {m.name: int(m) for m in pld.NotifyOp} == {"AtomicAdd": 0, "Set": 1}
    assert {m.name: int(m) for m in pld.WaitCmp} == {"Eq": 0, "Ge": 1}
    assert {m.name: int(m) for m in pld.ReduceOp} == {"Sum": 0, "Max": 1, "Min": 2, "Prod": 3}
    assert (int(pld.AtomicType.None_), int(pld.AtomicType.Add)) == (0, 1)


def test_pld_names_and_aliases_exist():
    for name in pld.__all__:
        assert hasattr(pld, name), name
    for ns, names in ((pld.system, ("world_size", "get_comm_ctx", "rank", "nranks", "notify", "wait")),
                      (pld.tensor, ("alloc_window_buffer", "window", "remote_store", "put", "get", "barrier",
                                    "allreduce", "broadcast", "allgather", "reduce_scatter", "all_to_all")),
                      (pld.tile, ("remote_load", "remote_store"))):
        for name in names:
            assert callable(getattr(ns, name))


def test_pld_ops_are_not_run_by_python():
    with pytest.raises(RuntimeError) as e:
        pld.tensor.put(None, 0, None)
    assert str(e.value).startswith("pld.tensor.put can only be used inside kernel code")
    with pytest.raises(RuntimeError) as e:
        pld.world_size()
    assert str(e.value).startswith("pld.world_size can only be used inside kernel code")


def test_every_compiler_pld_name_is_a_pld_name():
    names = _C.language_pld_names()
    assert ("tensor.put", "supported", "op") in names and ("system.defer_wait", "later", "op") in names
    for name, _status, _kind in names:
        obj = pld
        for part in name.split("."):
            obj = getattr(obj, part)


def test_distributed_tensor_annotation_names_itself():
    assert repr(pld.DistributedTensor) == "pld.DistributedTensor"
    assert pld.DistributedTensor[[4, 1], 3].kind == "DistributedTensor"


@pytest.mark.parametrize("kwargs, text", [
    ({"device_ids": []}, "DistributedConfig.device_ids must not be empty"),
    ({"device_ids": [0, -1]}, "DistributedConfig.device_ids must be non-negative device indices, got [0, -1]"),
    ({"device_ids": [1, 1]}, "DistributedConfig.device_ids must be distinct, got [1, 1]"),
    ({"num_sub_workers": -2}, "DistributedConfig.num_sub_workers must be non-negative, got -2"),
    ({"aicpu_thread_num": 1}, "DistributedConfig.aicpu_thread_num must be 0 (architecture default) or at least 2, got 1"),
])
def test_distributed_config_rules(kwargs, text):
    with pytest.raises(ValueError) as e:
        DistributedConfig(**kwargs)
    assert str(e.value) == text


def test_distributed_config_defaults_and_ir_alias():
    c = DistributedConfig()
    assert (c.device_ids, c.num_sub_workers, c.runtime, c.aicpu_thread_num) == ([0], 0, "tensormap_and_ringbuffer", 0)
    assert ir.DistributedConfig is DistributedConfig
    DistributedConfig(device_ids=[3, 7], aicpu_thread_num=2)  # labels, not CPUs


@pytest.fixture
def no_mpirun_env(monkeypatch):
    for var in ("OMPI_COMM_WORLD_SIZE", "PMIX_RANK"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(_dist, "_session", None)


def test_one_rank_without_mpirun(no_mpirun_env):
    assert _dist.world([5]) == (0, 1, 1)


@pytest.mark.parametrize("installed", [True, False])
def test_more_ranks_without_mpirun_names_mpirun(no_mpirun_env, monkeypatch, installed):
    monkeypatch.setattr(_dist.shutil, "which", lambda name: "/usr/bin/" + name if installed else None)
    with pytest.raises(ValueError) as e:
        _dist.world([0, 1, 2])
    text = str(e.value)
    assert text.startswith("DistributedConfig.device_ids has 3 entries but this process was not started by mpirun; "
                           "run: mpirun -np 3 " + sys.executable)
    tail = " (mpirun is not installed: make deps, or apt-get install openmpi-bin libopenmpi-dev)"
    assert text.endswith(tail) != installed
    assert "pypto._C_mpi" not in sys.modules


def test_world_size_differs_from_device_ids(no_mpirun_env, monkeypatch):
    monkeypatch.setenv("OMPI_COMM_WORLD_SIZE", "4")
    with pytest.raises(ValueError) as e:
        _dist.world([0, 1])
    assert str(e.value) == ("DistributedConfig.device_ids has 2 entries but the MPI world has 4 ranks (mpirun -np 4); "
                            "launch with mpirun -np 2 or pass 4 device ids")


def test_mpirun_without_mpi_support_is_unavailable(no_mpirun_env, monkeypatch):
    monkeypatch.setenv("OMPI_COMM_WORLD_SIZE", "2")
    monkeypatch.setitem(sys.modules, "pypto._C_mpi", None)  # this build has no pypto._C_mpi
    with pytest.raises(DistributedUnavailableError) as e:
        _dist.world([0, 1])
    assert str(e.value) == ("this pypto was built without MPI support (pypto._C_mpi is missing): install openmpi-bin "
                            "and libopenmpi-dev (make deps) and rebuild")
    assert isinstance(e.value, PTORuntimeError)


def test_default_workers_share_an_unbound_machine(monkeypatch):
    monkeypatch.setattr(_dist.os, "sched_getaffinity", lambda pid: set(range(8)))
    monkeypatch.setattr(_dist.os, "cpu_count", lambda: 8)
    assert [_dist.default_workers(n) for n in (1, 2, 3, 16)] == [8, 4, 2, 1]
    monkeypatch.setattr(_dist.os, "sched_getaffinity", lambda pid: {3})  # bound to one core by mpirun
    assert _dist.default_workers(2) == 1


def test_probe_lines_hash_each_tensor(monkeypatch, capsys):
    monkeypatch.setenv("PYPTO_DIST_PROBE", "1")
    _dist.probe(3, 1, ["x", "n"], [np.arange(4, dtype=np.float32), 7])
    import hashlib
    digest = hashlib.sha256(np.arange(4, dtype=np.float32).tobytes()).hexdigest()
    assert capsys.readouterr().err == "[pypto-probe] call 3 rank 1 x=%s\n" % digest
    monkeypatch.delenv("PYPTO_DIST_PROBE")
    _dist.probe(3, 1, ["x"], [np.zeros(1)])
    assert capsys.readouterr().err == ""


def test_distributed_worker_is_later():
    with pytest.raises(NotImplementedError) as e:
        DistributedWorker()
    assert str(e.value) == "DistributedWorker is not supported in this version"
    with pytest.raises(NotImplementedError) as e:
        DistributedCompiledProgram.prepare(None)
    assert str(e.value) == "DistributedCompiledProgram.prepare is not supported in this version"
