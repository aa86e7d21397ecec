"""pypto.ir: programs as values (DSL-V2-SPEC §2; docs/dsl.md, "Introspection and tools")."""
from ._program import Function, Param, ParamDirection, Program
from ._serialize import deserialize, serialize

__all__ = ["Program", "Function", "Param", "ParamDirection", "serialize", "deserialize"]
