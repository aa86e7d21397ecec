"""pypto.ir.Program and Function: a printed program (a str) and its functions
(docs/dsl.md, "Introspection and tools").

Every fact comes from the compiler (pypto._C): the function table
(_C.functions) and the other spellings of the text (as_python's prefix and
concise forms, a function alone) are a SYNTAX compile of the text itself,
so a program as written, lower()'s text and a parsed one answer alike.
"""
import enum
import types

from .. import _C

ParamDirection = enum.Enum("ParamDirection", ["In", "Out", "InOut"], module=__name__)


def _syntax(text, filename, entry, prefix=None, concise=False, alone=None):
    """The compile of text that stops after reading it (entry None: the file only parsed)."""
    from .._kernel import _raise_diagnostics
    handle, diags = _C.compile(str(text), filename, 1, 0, entry, None, [], [], "syntax" if entry else None,
                               print_prefix=prefix, print_concise=concise, print_function=alone)
    _raise_diagnostics(diags)
    return handle


class Param:
    """A function parameter: .name, .type (its annotation text, None if none), .direction."""

    __slots__ = ("name", "type", "direction")

    def __init__(self, name, type_text, direction):
        self.name, self.type = name, type_text
        self.direction = ParamDirection[direction] if direction else None

    def __repr__(self):
        return "Param(%s: %s%s)" % (self.name, self.type, ", %s" % self.direction.name if self.direction else "")


class Function:
    """One function: .name, .func_type (pl.FunctionType), .params, .return_types, .as_python()."""

    def __init__(self, row, text, filename, entry):
        from .. import language as pl
        name, kind, params, returns = row
        self.name, self.func_type = name, pl.FunctionType[kind]
        self.params = tuple(Param(*p) for p in params)
        self.return_types = list(returns)
        self._text, self._filename, self._entry = text, filename, entry

    def as_python(self, *, prefix="pl", concise=False, format=True):
        """The function alone, as a module-level @pl.function def (a method without self)."""
        return _C.text(_syntax(self._text, self._filename, self._entry, prefix, concise, self.name))

    def __repr__(self):
        return "<pypto.ir.Function %s (%s)>" % (self.name, self.func_type.name)


class Program(str):
    """A printed program: the text (a str, unchanged) and .name, .functions,
    .get_function(name), .as_python(prefix=, concise=, format=)."""

    def __new__(cls, text, name, filename="<string>", form=("pl", False)):
        self = super().__new__(cls, text)
        self._name, self._filename, self._functions, self._form = name, filename, None, form
        return self

    @property
    def name(self):
        return self._name

    @property
    def functions(self):
        """name -> Function, ordered by name (read-only)."""
        if self._functions is None:
            handle = _syntax(self, self._filename, self._name)
            self._functions = types.MappingProxyType(
                {row[0]: Function(row, str(self), self._filename, self._name) for row in _C.functions(handle)})
        return self._functions

    def get_function(self, name):
        return self.functions.get(name)

    def as_python(self, *, prefix="pl", concise=False, format=True):
        """The text with pypto.language named prefix, local annotations dropped
        when concise; the text itself when it is that form already."""
        if (prefix, bool(concise)) == self._form:
            return self
        return Program(_C.text(_syntax(self, self._filename, self._name, prefix, concise)), self._name,
                       self._filename, (prefix, bool(concise)))
