"""pypto.ir.distributed_compiled_program: upstream's distributed programs (DistributedConfig,
DistributedCompiledProgram) belong to the distributed track (DSL-V2-SPEC §0.8 B)."""
raise ImportError("pypto.ir.distributed_compiled_program is not supported in this version")
