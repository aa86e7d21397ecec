"""pypto.language.distributed (`pld`): the distributed surface (DISTRIBUTED-SPEC §1;
docs/distributed.md).

Like pypto.language, nothing here runs kernel or host code: the compiler (C) reads the
source of @pl.jit.host functions, per-device @pl.jit functions and kernels, and these
names only make decoration, annotations and attribute lookups work.  Importing this
module never loads libmpi (the MPI session starts at the first distributed call).
The enums come from the compiler's tables, so their values are the compiler's.
"""
import enum

from ... import _C
from .. import AtomicType, _AnnotationForm, _KernelName, _Namespace  # noqa: F401  (AtomicType: pld's too)

__all__ = [
    "AtomicType", "CommCtx", "DistributedTensor", "NotifyOp", "ReduceOp", "WaitCmp", "alloc_window_buffer",
    "get_comm_ctx", "nranks", "rank", "remote_load", "remote_store", "system", "tensor", "tile", "window", "world_size",
]

_ENUMS = dict(_C.language_enums())
NotifyOp = enum.IntEnum("NotifyOp", _ENUMS["NotifyOp"], module=__name__)
WaitCmp = enum.IntEnum("WaitCmp", _ENUMS["WaitCmp"], module=__name__)
ReduceOp = enum.IntEnum("ReduceOp", _ENUMS["ReduceOp"], module=__name__)


class _DistForm(_AnnotationForm):
    def __repr__(self):
        return "pld." + self.kind


DistributedTensor = _DistForm("DistributedTensor")  # pld.DistributedTensor[[shape], dtype]
CommCtx = _DistForm("CommCtx")

system = _Namespace("system.", "pld")
tensor = _Namespace("tensor.", "pld")
tile = _Namespace("tile.", "pld")

# The top-level spellings the compiler knows (pld.world_size, pld.rank, pld.remote_store, ...;
# the dotted ones are the namespaces' attributes).
globals().update({name: _KernelName(name, "pld") for name, _status, kind in _C.language_pld_names()
                  if kind == "op" and "." not in name})
