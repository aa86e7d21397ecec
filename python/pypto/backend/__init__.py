"""pypto.backend: BackendType (pypto.runtime's enum) and pto_backend; any other
name binds upstream's C++ library (DSL-V2-SPEC §0.8 B)."""
from .._runconfig import BackendType  # noqa: F401
from . import pto_backend  # noqa: F401


def __getattr__(name):
    raise AttributeError("pypto.backend.%s is Ascend-specific: it binds the C++ pass and code-generation library; "
                         "it has no meaning on the CPU backend" % name)
