"""pypto.backend.pto_backend: PartialCodegenError, the class the compiler raises for
[OutParamNotShadowed] (DSL-V2-SPEC §1.6)."""
from ..language.parser.diagnostics import PartialCodegenError  # noqa: F401
