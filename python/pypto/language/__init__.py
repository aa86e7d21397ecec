"""pypto.language: the DSL surface (docs/dsl.md, "The surface").

Kernel bodies are never run by Python: the compiler (C) reads their source.
The names here exist so that decoration, annotations and attribute lookups
work; the decorators check their keywords and build kernel objects.
"""
import enum

from .. import _C
from .._jit import JitFunction, Program, ProgramText, jit, loads, parse, parse_program, program, function
from .parser import diagnostics  # noqa: F401

__all__ = [
    "jit", "program", "function", "parse", "loads", "parse_program", "ProgramText", "JitFunction", "Program",
    "FunctionType", "Level", "ScopeMode", "CachePolicy", "Mem", "MemorySpace", "DataType", "PadValue", "SplitMode", "AtomicType", "MaskPattern", "Role",
    "Tensor", "Out", "InOut", "Scalar", "TaskId", "RUNTIME", "dynamic", "DynVar", "range", "at", "scope", "manual_scope", "split", "cross_core_slot",
]


# ---- enums: built from the compiler's tables (pto/language.h) -----------------------------------

_ENUMS = dict(_C.language_enums())
DataType = enum.IntEnum("DataType", _ENUMS["DataType"], module=__name__)
Level = enum.IntEnum("Level", _ENUMS["Level"], module=__name__)
ScopeMode = enum.IntEnum("ScopeMode", _ENUMS["ScopeMode"], module=__name__)
CachePolicy = enum.IntEnum("CachePolicy", _ENUMS["CachePolicy"], module=__name__)
FunctionType = enum.IntEnum("FunctionType", _ENUMS["FunctionType"], module=__name__)
MemorySpace = enum.IntEnum("MemorySpace", _ENUMS["MemorySpace"], module=__name__)
Layout = enum.IntEnum("Layout", _ENUMS["Layout"], module=__name__)
PadValue = enum.IntEnum("PadValue", _ENUMS["PadValue"], module=__name__)
SplitMode = enum.IntEnum("SplitMode", _ENUMS["SplitMode"], module=__name__)
AtomicType = enum.IntEnum("AtomicType", _ENUMS["AtomicType"], module=__name__)
MaskPattern = enum.IntEnum("MaskPattern", _ENUMS["MaskPattern"], module=__name__)  # also pl.tile.MaskPattern
Role = enum.IntEnum("Role", _ENUMS["Role"], module=__name__)  # @pl.function(level=pl.Level.HOST, role=...)
Mem = MemorySpace
globals().update(DataType.__members__)
ND = Layout.ND
TensorLayout = Layout  # pl.TensorLayout.ND is pl.ND (pl.TensorView's layout=)


# ---- annotations (docs/dsl.md, "Annotations") ----------------------------------------------------

class _Annotation:
    """A subscripted annotation (pl.Tensor[[64, 128], pl.FP32], pl.Out[...])."""

    def __init__(self, kind, args):
        self.kind, self.args = kind, args

    def __repr__(self):
        return "pl.%s[%s]" % (self.kind, ", ".join(map(repr, self.args)))


class _AnnotationForm:
    def __init__(self, kind):
        self.kind = kind

    def __getitem__(self, args):
        return _Annotation(self.kind, args if isinstance(args, tuple) else (args,))

    def __repr__(self):
        return "pl." + self.kind


Tensor = _AnnotationForm("Tensor")
Out = _AnnotationForm("Out")
InOut = _AnnotationForm("InOut")
Scalar = _AnnotationForm("Scalar")
TaskId = _Annotation("Scalar", (DataType.TASK_ID,))
class _ViewForm(_AnnotationForm):
    """pl.TensorView(...), pl.TileView(...): an annotation entry the compiler reads."""

    def __call__(self, *args, **kwargs):
        return _Annotation(self.kind, args + tuple("%s=%r" % kw for kw in kwargs.items()))


Tile = _AnnotationForm("Tile")
TensorView = _ViewForm("TensorView")
TileView = _ViewForm("TileView")


class DynVar:
    """pl.dynamic(name): a tensor dimension whose extent is bound at each call (docs/dsl.md,
    "Dynamic shapes").  One object is one symbol; the compiler reads the source that names it."""

    __slots__ = ("name",)

    def __init__(self, name):
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError("DynVar name must be a valid identifier, got %r" % (name,))
        self.name = name

    def __repr__(self):
        return 'pl.dynamic("%s")' % self.name

    def _expr(self, op, other, right=False):
        return _DimExpr(op, (other, self) if right else (self, other))

    __add__ = lambda self, o: self._expr("+", o)
    __radd__ = lambda self, o: self._expr("+", o, True)
    __sub__ = lambda self, o: self._expr("-", o)
    __rsub__ = lambda self, o: self._expr("-", o, True)
    __mul__ = lambda self, o: self._expr("*", o)
    __rmul__ = lambda self, o: self._expr("*", o, True)
    __floordiv__ = lambda self, o: self._expr("//", o)
    __rfloordiv__ = lambda self, o: self._expr("//", o, True)
    __mod__ = lambda self, o: self._expr("%", o)
    __rmod__ = lambda self, o: self._expr("%", o, True)
    __truediv__ = lambda self, o: self._expr("/", o)  # the compiler names it as not supported
    __rtruediv__ = lambda self, o: self._expr("/", o, True)


class _DimExpr(DynVar):
    """Integer arithmetic over DynVars as Python evaluates an annotation: only its text matters
    (the compiler reads the annotation from the source)."""

    __slots__ = ("op", "operands")

    def __init__(self, op, operands):
        self.name, self.op, self.operands = None, op, operands

    def __repr__(self):
        return "(%s %s %s)" % (self.operands[0], self.op, self.operands[1])


def dynamic(name):
    """A DynVar named name (docs/dsl.md, "Dynamic shapes")."""
    return DynVar(name)


class _RuntimeScalar:
    """pl.RUNTIME: passed for a scalar to JITFunction.compile(), the parameter stays a run-time
    scalar; the CompiledProgram takes its value at every call (docs/dsl.md, "Compile once, run many")."""

    def __repr__(self):
        return "pl.RUNTIME"


RUNTIME = _RuntimeScalar()


# ---- operations and statements (docs/dsl.md) --------------------------------------------

class _KernelName:
    """A language name that only means something inside kernel code."""

    def __init__(self, name, ns="pl"):
        self.__name__ = self._name = name
        self._ns = ns

    def __call__(self, *args, **kwargs):
        raise RuntimeError("%s.%s can only be used inside kernel code (a @pl.jit or @pl.program "
                           "function), which the compiler reads; Python does not run it" % (self._ns, self._name))

    def __repr__(self):
        return "<pypto.language%s.%s>" % ("" if self._ns == "pl" else ".distributed", self._name)


class _Namespace:
    """pl.tile / pl.tensor: every attribute names a kernel-code op (pl.tile.add); the compiler
    checks the spelling."""

    def __init__(self, prefix, ns="pl", **members):
        self._prefix, self._ns = prefix, ns
        self.__dict__.update(members)  # its enums (pl.tile.MaskPattern)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _KernelName(self._prefix + name, self._ns)


tensor = _Namespace("tensor.")
tile = _Namespace("tile.", MaskPattern=MaskPattern)
system = _Namespace("system.")  # pl.system.task_dummy (the hardware-internal members: the compiler's)
array = _Namespace("array.")    # pl.array.create


class _Hint(_KernelName):
    """pl.split / pl.cross_core_slot: an optimizations= entry (docs/dsl.md, "Hints").  Python
    evaluates it only in a @pl.function decorator (a printed program's InCore kernels); the
    compiler reads and checks the source, so the call just records its arguments."""

    def __call__(self, *args, **kwargs):
        return (self._name, args, kwargs)


split = _Hint("split")
cross_core_slot = _Hint("cross_core_slot")


# Every other pl name the compiler knows (ops, statement forms, later and hardware-internal
# names): the compiler reads and rejects or accepts them, Python only names them.
globals().update({name: _KernelName(name) for name, _status, _kind in _C.language_names() if name not in globals()})
