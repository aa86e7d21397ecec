"""pypto: the DSL (pypto.language) and its runtime (pypto.runtime) on the CPU."""
import os as _os

# A build other than `make build` (sanitizers) keeps its _C in its own tree.
if _os.environ.get("PYPTO_EXT_DIR"):
    __path__.insert(0, _os.environ["PYPTO_EXT_DIR"])

from ._C import version as __version__  # noqa: E402  (the library's, pto/version.h)
from ._errors import InternalError  # noqa: E402
from .language.parser.diagnostics import CompileWarning  # noqa: E402

__all__ = ["InternalError", "CompileWarning", "__version__"]

from . import ir, runtime  # noqa: E402,F401  (pypto.ir.compile, pypto.runtime.run without their own import)
