"""Exceptions shared by pypto's modules (imported first, no dependencies)."""


class InternalError(RuntimeError):
    """A compiler bug; the message ends with '(internal compiler error; please report)'."""


class PTORuntimeError(RuntimeError):
    """A runtime failure (capacity, deadlock, task error); the text is the runtime's.
    In a distributed call: rank is the rank where the failure began, origin_code and
    origin_name its code there (None outside distributed calls)."""

    __module__ = "pypto.runtime"

    def __init__(self, message, code=None, ring=None, rank=None, origin_code=None, origin_name=None):
        super().__init__(message)
        self.message = message
        self.code = code
        self.ring = ring
        self.rank = rank
        self.origin_code = origin_code
        self.origin_name = origin_name


class DeviceUnavailableError(PTORuntimeError):
    """Dispatch on a platform that needs an Ascend device."""

    __module__ = "pypto.runtime"


class DistributedUnavailableError(PTORuntimeError):
    """A distributed call this process cannot make: no MPI support, or MPI below SERIALIZED."""

    __module__ = "pypto.runtime"
