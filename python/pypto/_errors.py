"""Exceptions shared by pypto's modules (imported first, no dependencies)."""


class InternalError(RuntimeError):
    """A compiler bug; the message ends with '(internal compiler error; please report)'."""
