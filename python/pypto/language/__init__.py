"""pypto.language: the DSL surface (DSL-SPEC §1).

Kernel bodies are never run by Python: the compiler (C) reads their source.
The names here exist so that decoration, annotations and attribute lookups
work; the decorators check their keywords (§4.2) and build kernel objects.
"""
import enum

from .._jit import JitFunction, Program, ProgramText, jit, parse_program, program, function
from .parser import diagnostics  # noqa: F401

__all__ = [
    "jit", "program", "function", "parse_program", "ProgramText", "JitFunction", "Program",
    "FunctionType", "Level", "ScopeMode", "CachePolicy", "Mem", "MemorySpace", "DataType",
    "Tensor", "Out", "InOut", "Scalar", "TaskId", "range", "at", "scope", "manual_scope",
]


# ---- enums (§1.6; values mirror the C ones) ---------------------------------------------------

class DataType(enum.IntEnum):
    FP32 = 0
    FP16 = 1
    BF16 = 2
    INT32 = 3
    INT8 = 4
    INDEX = 5
    BOOL = 6
    TASK_ID = 7
    # Later: named, rejected when used ("dtype pl.<DT> is not supported in this version").
    INT4 = 8
    INT16 = 9
    INT64 = 10
    UINT8 = 11
    UINT16 = 12
    UINT32 = 13
    UINT64 = 14
    FP4 = 15
    FP8E4M3FN = 16
    FP8E5M2 = 17
    HF4 = 18
    HF8 = 19


globals().update(DataType.__members__)


class Level(enum.IntEnum):
    AIV = 0
    AIC = 1
    CORE_GROUP = 2
    CHIP_DIE = 3
    L2CACHE = 3
    CHIP = 4
    PROCESSOR = 4
    UMA = 4
    HOST = 5
    NODE = 5
    CLUSTER_0 = 6
    POD = 6
    CLUSTER_1 = 7
    CLOS1 = 7
    CLUSTER_2 = 8
    CLOS2 = 8
    GLOBAL = 9
    UNDEFINED = 255


class ScopeMode(enum.IntEnum):
    AUTO = 0
    MANUAL = 1


class CachePolicy(enum.IntEnum):
    DEFAULT = 0
    BYPASS = 1


class FunctionType(enum.IntEnum):
    Opaque = 0
    Orchestration = 1
    InCore = 2
    AIC = 3
    AIV = 4
    Group = 5
    Spmd = 6
    Inline = 7
    Graph = 8


class MemorySpace(enum.IntEnum):
    DDR = 0
    Vec = 1
    Mat = 2
    Left = 3
    Right = 4
    Acc = 5
    Bias = 6


Mem = MemorySpace


class Layout(enum.IntEnum):
    ND = 0


ND = Layout.ND


# ---- annotations (§1.5) -----------------------------------------------------------------------

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
Tile = _AnnotationForm("Tile")
TensorView = _AnnotationForm("TensorView")


# ---- operations and statements (§1.3, §1.8, §1.10) --------------------------------------------

class _KernelName:
    """A language name that only means something inside kernel code."""

    def __init__(self, name):
        self.__name__ = self._name = name

    def __call__(self, *args, **kwargs):
        raise RuntimeError("pl.%s can only be used inside kernel code (a @pl.jit or @pl.program "
                           "function), which the compiler reads; Python does not run it" % self._name)

    def __repr__(self):
        return "<pypto.language.%s>" % self._name


_NAMES = (
    # v1
    "range", "at", "scope", "manual_scope", "load", "store", "add", "sub", "mul", "div",
    "maximum", "minimum", "exp", "neg", "sqrt", "abs", "relu", "row_sum", "row_max", "cast",
    "matmul", "create_tensor", "submit", "set_cache_policy",
    # later (the compiler rejects them by name)
    "spmd", "spmd_submit", "cluster", "split_aiv", "aiv_shard", "aic_gather", "parallel",
    "unroll", "pipeline", "while_", "cond", "yield_", "slice", "assemble", "move", "create_tile",
    "read", "write", "array", "no_dep", "dynamic", "func_attr", "inline", "log", "rsqrt",
    "recip", "row_min", "col_sum", "col_max", "col_min", "cmp", "sel", "matmul_acc",
    "matmul_bias", "batch_matmul",
)
globals().update({n: _KernelName(n) for n in _NAMES})


class _Namespace:
    def __init__(self, prefix, names):
        for n in names:
            setattr(self, n, _KernelName(prefix + n))


tensor = _Namespace("tensor.", ("set_cache_policy",))
tile = _Namespace("tile.", ("get_block_idx",))
