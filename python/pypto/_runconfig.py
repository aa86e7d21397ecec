"""RunConfig (docs/runconfig.md) and BackendType, re-exported by pypto.runtime.

RunConfig.__post_init__ sends the fields to pypto._C.config_check, which
applies the rules of docs/runconfig.md in order with the library's messages; the shim
only moves the deprecated keyword and stores the normalized values.
"""
import enum
import warnings
from dataclasses import InitVar, dataclass
from typing import Any, Optional

from . import _C


class BackendType(enum.Enum):
    """The device family a platform names (derived from RunConfig.platform); also pypto.backend.BackendType."""

    __module__ = "pypto.runtime"

    Ascend910B = "Ascend910B"
    Ascend950 = "Ascend950"


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

    __module__ = "pypto.runtime"

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
    skip_ptoas: bool = False
    verification_level: Any = None
    enable_pypto_l0c_double_buffer: Any = None
    emit_source_loc: Any = None
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

