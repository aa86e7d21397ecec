"""pypto.debug: torch_codegen, a program as executable torch source (DSL-V2-SPEC §2 I-tc;
docs/dsl.md, "Introspection and tools").  The translation is the compiler's (C)."""
from .. import _C

__all__ = ["torch_codegen"]


def torch_codegen(program, check_shapes=False):
    """Python source: `import torch`, one def per Orchestration function of
    program (a lower() result, a parsed or deserialized Program, a
    @pl.program class with fully annotated parameters), its kernels inlined
    as torch ops; check_shapes=True asserts every tensor parameter's shape."""
    from .._kernel import _raise_diagnostics
    from ..ir import Program
    text = program if isinstance(program, Program) else program.as_python()
    handle, diags = _C.compile(str(text), "<string>", 1, 0, text.name, None, [], [], None, emit_torch=2 if check_shapes else 1)
    _raise_diagnostics(diags)
    return _C.text(handle)
