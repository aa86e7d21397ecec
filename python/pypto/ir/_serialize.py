"""ir.serialize / ir.deserialize: a program or a function as bytes, the UTF-8
printed text after the header line `# pypto-ir 2` (docs/dsl.md,
"Introspection and tools")."""
from .. import _C
from ._program import Function, Program, _syntax

_HEADER = b"# pypto-ir 2\n"
_NOT_A_BLOB = "ir.deserialize: not a pypto IR blob"


def serialize(obj):
    """A pypto.ir.Program (lower()'s or pl.parse's result), a @pl.program class or a Function as bytes."""
    return _HEADER + str(obj if isinstance(obj, Program) else obj.as_python()).encode()


def deserialize(data):
    """The Program (or Function) serialize(obj) wrote: it prints byte-identical to obj."""
    if not isinstance(data, (bytes, bytearray)) or not bytes(data).startswith(_HEADER):
        raise ValueError(_NOT_A_BLOB)
    try:
        text = bytes(data[len(_HEADER):]).decode()
        handle = _syntax(text, "<string>", None)
    except Exception:
        raise ValueError(_NOT_A_BLOB) from None
    entries, functions = _C.entries(handle), _C.functions(handle)
    if len(entries) == 1 and not functions:
        return Program(text, entries[0])
    if len(functions) == 1 and not entries:
        return Function(functions[0], text, "<string>", None)
    raise ValueError(_NOT_A_BLOB)
