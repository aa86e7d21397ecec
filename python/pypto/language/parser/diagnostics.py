"""Compile-time error classes (docs/dsl.md, "Errors"; PyPTO-compatible names).

The compiler (C) decides the class, message, hint and span of every
diagnostic and formats it; these classes only carry what it reported.
"""

__all__ = [
    "ParserError", "ParserSyntaxError", "ParserTypeError", "UndefinedVariableError",
    "UnsupportedFeatureError", "InvalidOperationError", "PassError", "CompileWarning",
    "PartialCodegenError",
]


class ParserError(Exception):
    """A compile error: `message`, `hint` (or None), `span` (dict, 1-based);
    str(e) is the compiler's formatted text (file:line:col, source line, caret, hint)."""

    def __init__(self, message, hint=None, span=None, formatted=None):
        self.message = message
        self.hint = hint
        self.span = dict(span or {})
        self.formatted = formatted if formatted is not None else message
        super().__init__(self.formatted)

    def __str__(self):
        return self.formatted


class ParserSyntaxError(ParserError):
    """DSL structure, misplaced statements, bad keyword shapes."""


class ParserTypeError(ParserError):
    """Annotations, dtype mismatches, uncapturable values."""


class UndefinedVariableError(ParserError):
    """Unknown or unbound names."""


class UnsupportedFeatureError(ParserError):
    """Constructs outside v1."""


class InvalidOperationError(ParserError):
    """Invalid op arguments (bounds, rank, shapes, misplaced ops)."""


class PassError(ParserError, ValueError):
    """Errors found by passes (outliner, directions, verifier, cache policy)."""


class PartialCodegenError(PassError):
    """A program that would leave a caller's buffer unwritten (a pl.Out/pl.InOut parameter rebound)."""


class CompileWarning(UserWarning):
    """A compiler warning; it carries the construct's file:line."""
