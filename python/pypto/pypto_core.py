"""pypto.pypto_core: upstream's C++ binding; importing it is an ImportError (DSL-V2-SPEC §0.8 B)."""
raise ImportError("pypto.pypto_core is Ascend-specific: it binds the C++ pass and code-generation library; it has no "
                  "meaning on the CPU backend")
