"""pypto.runtime: RunConfig (docs/runconfig.md) and the runtime's exceptions (docs/dsl.md, "Errors").

RunConfig.__post_init__ sends the fields to pypto._C.config_check, which
applies the rules of docs/runconfig.md in order with the library's messages; the shim
only moves the deprecated keyword and stores the normalized values.
"""
import dataclasses
import enum
import warnings
from dataclasses import InitVar, dataclass
from typing import Any, Optional

from . import _C

__all__ = ["RunConfig", "BackendType", "PTORuntimeError", "DeviceUnavailableError"]


class BackendType(enum.Enum):
    """The device family a platform names (derived from RunConfig.platform)."""

    Ascend910B = "Ascend910B"
    Ascend950 = "Ascend950"


class PTORuntimeError(RuntimeError):
    """A runtime failure (capacity, deadlock, task error); the text is the runtime's."""

    def __init__(self, message, code=None, ring=None):
        super().__init__(message)
        self.message = message
        self.code = code
        self.ring = ring


class DeviceUnavailableError(PTORuntimeError):
    """Dispatch on a platform that needs an Ascend device."""


# The fields config_check judges; the rest are kept as given.
_CHECKED = (
    "platform", "enable_chip_swimlane", "enable_dump_args", "enable_pmu", "enable_dep_gen",
    "enable_scope_stats", "save_kernels", "ring_task_window", "ring_heap", "ring_dep_pool",
    "num_workers", "stall_timeout_ms", "device_id", "distributed_config",
)
_NORMALIZED = (
    "platform", "enable_chip_swimlane", "enable_dump_args", "enable_pmu", "save_kernels",
    "ring_task_window", "ring_heap", "ring_dep_pool", "num_workers", "stall_timeout_ms",
    "device_id",
)


@dataclass
class RunConfig:
    """How one call runs: platform, ring sizes, DFX outputs (docs/runconfig.md, "Fields")."""

    platform: str = "a2a3sim"
    device_id: int = 0
    enable_scope_stats: bool = False
    save_kernels: bool = False
    save_kernels_dir: Optional[str] = None
    ring_task_window: Any = None
    ring_heap: Any = None
    ring_dep_pool: Any = None
    rtol: float = 1e-5
    atol: float = 1e-5
    num_workers: Optional[int] = None
    stall_timeout_ms: Optional[int] = None
    dump_passes: bool = False
    enable_chip_swimlane: Any = 0
    enable_dump_args: Any = 0
    enable_pmu: int = 0
    enable_dep_gen: bool = False
    backend_type: Optional[BackendType] = None
    # Accepted for PyPTO compatibility and ignored.
    strategy: Any = None
    codegen_only: bool = False
    compile_profiling: bool = False
    diagnostic_phase: Any = None
    disabled_diagnostics: Any = None
    golden_data_dir: Optional[str] = None
    aicpu_thread_num: Optional[int] = None
    analyze_auto_scopes_for_deps: bool = False
    memory_planner: Any = None
    dump_ptoas_passes: bool = False
    distributed_config: Any = None
    enable_l2_swimlane: InitVar[Any] = None

    def __post_init__(self, enable_l2_swimlane=None):
        # 1. The deprecated alias (a constructor keyword, not a field).
        if enable_l2_swimlane is not None:
            if self.enable_chip_swimlane != 0 or type(self.enable_chip_swimlane) is not int:
                raise ValueError("enable_l2_swimlane and enable_chip_swimlane were both given; "
                                 "pass only enable_chip_swimlane.")
            warnings.warn("enable_l2_swimlane is deprecated; use enable_chip_swimlane",
                          DeprecationWarning, stacklevel=3)
            self.enable_chip_swimlane = enable_l2_swimlane
        # 2-9 in C.
        out = _C.config_check({name: getattr(self, name) for name in _CHECKED})
        for name in _NORMALIZED:
            setattr(self, name, out[name])
        self.backend_type = BackendType(out["backend_type"])
        self._any_dfx = out["any_dfx"]

    def any_dfx_enabled(self) -> bool:
        """True when swimlane > 0, dump_args > 0, pmu > 0, dep_gen or scope stats."""
        return self._any_dfx

