"""pypto: the DSL (pypto.language) and its runtime (pypto.runtime) on the CPU."""
from ._errors import InternalError
from .language.parser.diagnostics import CompileWarning

__all__ = ["InternalError", "CompileWarning"]
