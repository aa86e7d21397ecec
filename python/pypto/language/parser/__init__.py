"""pypto.language.parser: the compiler's diagnostics as Python exceptions."""
from . import diagnostics  # noqa: F401
