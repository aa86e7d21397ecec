"""ir.serialize / ir.deserialize: a program as bytes, the UTF-8 printed text
after the header line `# pypto-ir 2` (docs/dsl.md, "Introspection and tools")."""
from .. import _C
from ._program import Program, _syntax

_HEADER = b"# pypto-ir 2\n"
_NOT_A_BLOB = "ir.deserialize: not a pypto IR blob"


def serialize(obj):
    """A pypto.ir.Program (lower()'s or pl.parse's result) or a @pl.program class as bytes."""
    return _HEADER + str(obj if isinstance(obj, Program) else obj.as_python()).encode()


def deserialize(data):
    """The Program serialize(obj) wrote: it prints byte-identical to obj."""
    if not isinstance(data, (bytes, bytearray)) or not bytes(data).startswith(_HEADER):
        raise ValueError(_NOT_A_BLOB)
    try:
        text = bytes(data[len(_HEADER):]).decode()
        entries = _C.entries(_syntax(text, "<string>", None))
    except Exception:
        raise ValueError(_NOT_A_BLOB) from None
    if len(entries) != 1:
        raise ValueError(_NOT_A_BLOB)
    return Program(text, entries[0])
