"""pypto.ir.compile (DSL-V2-SPEC §4.3): a @pl.program class or a Program
(printed text, e.g. lower()'s, re-parsed) compiled from its signature into a
CompiledProgram (pypto._compiled).  Honoured: output_dir, dump_passes,
platform, backend_type; the knobs in _IGNORED are accepted and ignored."""
from .._compiled import compiled_program
from .._program import Program as _ProgramClass, parse_program
from .._runconfig import BackendType, RunConfig
from .pass_manager import OptimizationStrategy, PassDumpLevel

# Compile options of the Ascend tool chain (DSL-V2-SPEC §0.8 B): accepted, never inspected.
_IGNORED = ("diagnostic_phase", "disabled_diagnostics", "analyze_auto_scopes_for_deps", "skip_ptoas", "memory_planner",
            "dump_ptoas_passes", "verification_level", "enable_pypto_l0c_double_buffer", "emit_source_loc", "runtime")


def _as_program(program):
    if isinstance(program, _ProgramClass):
        return program
    if isinstance(program, str):  # a printed program (lower()'s ProgramText, a pypto.ir.Program)
        return parse_program(program)
    if callable(getattr(program, "as_python", None)):  # a Program that prints itself
        return parse_program(program.as_python())
    raise TypeError("ir.compile() expects a @pl.program class or a pypto.ir.Program, got %s" % type(program).__name__)


def platform_of(backend_type, platform):
    """platform=None: a2a3sim for Ascend910B, a5sim for Ascend950; a given platform wins."""
    if platform is not None:
        return platform
    return "a5sim" if backend_type == BackendType.Ascend950 else "a2a3sim"


def compile_function(prog, method, config, output_dir, dump_passes, program=None):
    """The CompiledProgram of one Orchestration method of prog, from its signature."""
    handle = prog._compiled(prog.__name__, method, [], config, 2)
    return compiled_program(prog, prog.__name__, method, "@pl.program function '%s.%s'" % (prog.__name__, method),
                            handle, [], config, output_dir, program if program is not None else prog, dump_passes)


def compile(program, output_dir=None, strategy=OptimizationStrategy.Default, dump_passes=True,
            backend_type=BackendType.Ascend910B, *, platform=None, profiling=False, distributed_config=None, **knobs):
    """A CompiledProgram of program (shapes from its annotations)."""
    for kw in knobs:
        if kw not in _IGNORED:
            raise TypeError("compile() got an unexpected keyword argument '%s'" % kw)
    config = RunConfig(platform=platform_of(backend_type, platform), distributed_config=distributed_config)
    if distributed_config is not None:
        raise ValueError("pypto.ir.compile(distributed_config=) is not supported in this version; compile a "
                         "@pl.jit.host function with RunConfig(distributed_config=)")
    prog = _as_program(program)
    dump = dump_passes is not PassDumpLevel.NONE and bool(dump_passes)
    return compile_function(prog, prog._single(), config, output_dir, dump, program)
