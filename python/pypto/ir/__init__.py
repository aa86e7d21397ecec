"""pypto.ir: compiling programs (DSL-V2-SPEC §4.3) and the program classes (§2)."""
from ._compile import compile  # noqa: F401  (pypto.ir.compile)
from .pass_manager import OptimizationStrategy, PassDumpLevel  # noqa: F401
