"""Exceptions shared by pypto's modules (imported first, no dependencies)."""


class InternalError(RuntimeError):
    """A compiler bug; the message ends with '(internal compiler error; please report)'."""


class PTORuntimeError(RuntimeError):
    """A runtime failure (capacity, deadlock, task error); the text is the runtime's."""

    __module__ = "pypto.runtime"

    def __init__(self, message, code=None, ring=None):
        super().__init__(message)
        self.message = message
        self.code = code
        self.ring = ring


class DeviceUnavailableError(PTORuntimeError):
    """Dispatch on a platform that needs an Ascend device."""

    __module__ = "pypto.runtime"
