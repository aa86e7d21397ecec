"""pypto.ir: compiling programs (DSL-V2-SPEC §4.3) and programs as values (§2; docs/dsl.md,
"Introspection and tools").  `compile` is loaded on first use: its module imports the
kernel machinery, which itself imports this package's Program class."""
from ._program import Function, Param, ParamDirection, Program
from ._serialize import deserialize, serialize
from .pass_manager import OptimizationStrategy, PassDumpLevel  # noqa: F401

__all__ = ["Program", "Function", "Param", "ParamDirection", "serialize", "deserialize", "compile", "OptimizationStrategy",
           "PassDumpLevel"]


def __getattr__(name):
    if name == "compile":
        from ._compile import compile
        return compile
    if name == "DistributedConfig":
        from .distributed_compiled_program import DistributedConfig
        return DistributedConfig
    raise AttributeError("module 'pypto.ir' has no attribute %r" % name)
