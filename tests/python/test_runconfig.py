"""RunConfig's rules (docs/runconfig.md), one test each; the C side of the
ring rules is tests/c/test_config.c, the rules that need runs tests/python/test_run.py."""
import dataclasses
import warnings

import pytest
import torch

from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import BackendType, DeviceUnavailableError, PTORuntimeError, RunConfig

TW, HEAP, DEP = "ring_task_window", "ring_heap", "ring_dep_pool"
PHRASE = {TW: "be a power of 2 >= 4", HEAP: "be a power of 2 >= 1024 (bytes per ring)", DEP: "be in [4, INT32_MAX]"}


def scalar_msg(field, v):
    return "%s must %s, got %r" % (field, PHRASE[field], v)


def entry_msg(field, v):
    return "%s entries must %s (or 0 to keep default), got %r" % (field, PHRASE[field], v)


def raises(exc, **kw):
    with pytest.raises(exc) as e:
        RunConfig(**kw)
    return str(e.value)


def test_R01_defaults():
    c = RunConfig()
    assert c.platform == "a2a3sim"
    assert (c.ring_task_window, c.ring_heap, c.ring_dep_pool) == (None, None, None)
    assert c.save_kernels is False and c.any_dfx_enabled() is False


def test_R02_platform():
    assert raises(ValueError, platform="x") == \
        "Invalid platform 'x'. Expected 'a2a3sim', 'a2a3', 'a5sim', or 'a5'."


def test_R03_backend_type():
    for p, b in (("a2a3", "Ascend910B"), ("a2a3sim", "Ascend910B"), ("a5", "Ascend950"), ("a5sim", "Ascend950")):
        c = RunConfig(platform=p, backend_type=BackendType.Ascend950 if b == "Ascend910B" else BackendType.Ascend910B)
        assert c.platform == p and c.backend_type == BackendType(b)


@pytest.mark.parametrize("kw", [dict(enable_chip_swimlane=1), dict(enable_dump_args=1), dict(enable_pmu=2),
                                dict(enable_dep_gen=True), dict(enable_scope_stats=True)])
def test_R04_dfx_flags(kw):
    c = RunConfig(**kw)
    assert c.save_kernels is True and c.any_dfx_enabled() is True
    d = RunConfig()
    for f in ("enable_chip_swimlane", "enable_dump_args", "enable_pmu", "enable_dep_gen", "enable_scope_stats"):
        if f not in kw:
            assert getattr(c, f) == getattr(d, f)
    assert RunConfig(enable_pmu=0).any_dfx_enabled() is False
    assert RunConfig(enable_pmu=4).enable_pmu == 4


def test_R05_swimlane():
    assert RunConfig(enable_chip_swimlane=True).enable_chip_swimlane == 4
    assert RunConfig(enable_chip_swimlane=False).enable_chip_swimlane == 0
    for v in (-1, 5, 99):
        assert raises(ValueError, enable_chip_swimlane=v) == \
            "enable_chip_swimlane must be a collection level in [0, 4], got %d" % v
    assert raises(TypeError, enable_chip_swimlane="full") == \
        "enable_chip_swimlane must be an int collection level (0-4) or a bool, got str"


def test_R05_dump_args_and_pmu():
    assert RunConfig(enable_dump_args=True).enable_dump_args == 1
    assert raises(ValueError, enable_dump_args=3) == "enable_dump_args must be a level in [0, 2], got 3"
    assert raises(ValueError, enable_pmu=-1) == "enable_pmu must be a non-negative int, got -1"
    assert raises(ValueError, enable_pmu=1.5) == "enable_pmu must be a non-negative int, got 1.5"


def test_R06_l2_swimlane_alias():
    with pytest.warns(DeprecationWarning, match="enable_l2_swimlane is deprecated; use enable_chip_swimlane"):
        c = RunConfig(enable_l2_swimlane=2)
    assert c.enable_chip_swimlane == 2
    assert "pass only enable_chip_swimlane" in raises(ValueError, enable_l2_swimlane=2, enable_chip_swimlane=1)


def test_R07_scalars_and_boundaries():
    c = RunConfig(ring_task_window=128, ring_heap=8388608, ring_dep_pool=256)
    assert (c.ring_task_window, c.ring_heap, c.ring_dep_pool) == (128, 8388608, 256)
    c = RunConfig(ring_task_window=4, ring_heap=1024, ring_dep_pool=4)
    assert (c.ring_task_window, c.ring_heap, c.ring_dep_pool) == (4, 1024, 4)
    assert RunConfig(ring_dep_pool=100).ring_dep_pool == 100


@pytest.mark.parametrize("v", [3, 5, 0, 6, 100])
def test_R08_task_window(v):
    assert raises(ValueError, ring_task_window=v) == scalar_msg(TW, v)


@pytest.mark.parametrize("v", [512, 1000, 1536, 0])
def test_R09_heap(v):
    assert raises(ValueError, ring_heap=v) == scalar_msg(HEAP, v)


@pytest.mark.parametrize("v", [3, 0, -1, 2**31])
def test_R10_dep_pool(v):
    assert raises(ValueError, ring_dep_pool=v) == scalar_msg(DEP, v)


@pytest.mark.parametrize("field", [TW, HEAP, DEP])
@pytest.mark.parametrize("v", [16.0, 64.5, True, False])
def test_R11_non_int_scalars(field, v):
    assert raises(ValueError, **{field: v}) == scalar_msg(field, v)


def test_R12_lists():
    assert RunConfig(ring_task_window=[16, 32, 128, 256]).ring_task_window == [16, 32, 128, 256]
    assert RunConfig(ring_heap=[1024, 2048, 4096, 8192]).ring_heap == [1024, 2048, 4096, 8192]
    assert RunConfig(ring_dep_pool=[8, 16, 100, 256]).ring_dep_pool == [8, 16, 100, 256]
    assert RunConfig(ring_task_window=[16, 0, 0, 256]).ring_task_window == [16, 0, 0, 256]
    c = RunConfig(ring_heap=(1024, 0, 0, 2048))
    assert c.ring_heap == [1024, 0, 0, 2048] and isinstance(c.ring_heap, list)


@pytest.mark.parametrize("field", [TW, HEAP, DEP])
@pytest.mark.parametrize("n", [0, 1, 3, 5])
def test_R13_list_length(field, n):
    assert raises(ValueError, **{field: [1024] * n}) == \
        "%s must have exactly 4 entries (one per scope-depth ring), got %d" % (field, n)


def test_R14_bad_entries():
    assert raises(ValueError, ring_task_window=[16, 32, 48, 64]) == entry_msg(TW, 48)
    assert raises(ValueError, ring_heap=[1024, 2048, 512, 4096]) == entry_msg(HEAP, 512)
    assert raises(ValueError, ring_dep_pool=[8, 16, 2, 256]) == entry_msg(DEP, 2)


def test_R15_non_int_entries():
    assert raises(ValueError, ring_task_window=[16, 32, True, 64]) == entry_msg(TW, True)
    assert raises(ValueError, ring_dep_pool=[8, False, 16, 32]) == entry_msg(DEP, False)
    assert raises(ValueError, ring_heap=[1024, 2048.0, 4096, 8192]) == entry_msg(HEAP, 2048.0)


def test_R16_order():
    assert raises(ValueError, ring_task_window=3, ring_heap=512) == scalar_msg(TW, 3)


def test_R17_device_id_distributed_replace():
    for v in (-1, True):
        assert raises(ValueError, device_id=v) == "device_id must be a non-negative int, got %r" % v
    assert raises(TypeError, distributed_config=object()) == "distributed_config must be a DistributedConfig or None, got object"
    assert RunConfig(distributed_config=DistributedConfig(device_ids=[0, 1])).distributed_config.device_ids == [0, 1]
    with pytest.raises(ValueError, match="ring_heap must be"):
        dataclasses.replace(RunConfig(), ring_heap=1000)
    with pytest.raises(ValueError, match="ring_heap must be"):
        RunConfig(ring_heap=1000)


def test_R19_device_platform(load):
    import memory_page as s
    cfg = RunConfig(platform="a2a3", enable_scope_stats=True, save_kernels=True)
    out = torch.zeros(s.ROWS, s.TC)
    with pytest.raises(DeviceUnavailableError, match="needs an Ascend device") as e:
        s.manual_placement(s.A, out, config=cfg)
    assert isinstance(e.value, PTORuntimeError) and isinstance(e.value, RuntimeError)
    assert str(e.value) == ("platform 'a2a3' needs an Ascend device; this build runs kernels only on "
                            "'a2a3sim' and 'a5sim' (CPU)")
    assert "pl.scope()" in s.manual_placement.lower(s.A, out, config=cfg)


def test_R21_retired_env_is_not_read(monkeypatch):
    monkeypatch.setenv("PTO2_RING_HEAP", "4096")
    c = RunConfig()
    assert c.ring_heap is None  # the variable never sizes anything in the shim
    # The warning and the metadata's defaults at dispatch: test_run.py.


def test_runtime_fields_num_workers_stall():
    assert RunConfig(num_workers=4, stall_timeout_ms=-1).num_workers == 4
    assert raises(ValueError, num_workers=0) == "num_workers must be in [1, 1024], got 0"
    assert raises(ValueError, stall_timeout_ms=0).startswith("stall_timeout_ms must be")


def test_dfx_warning_at_dispatch_once(load):
    import pypto._kernel as j
    import memory_page as s
    j._WARNED.discard("enable_dep_gen")
    cfg = RunConfig(enable_dep_gen=True)
    out = torch.zeros(s.ROWS, s.TC)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        for _ in range(2):
            s.scaled(s.A, out, config=cfg)
    msgs = [str(x.message) for x in w if x.category is UserWarning]
    assert msgs == ["RunConfig.enable_dep_gen produces no output in this version"]
