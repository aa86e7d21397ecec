"""The execution API of DSL-V2-SPEC §4.1-§4.4 (docs/dsl.md, "Compile once, run many"):
JITFunction.compile (P4-01, P4-02), CompiledProgram (P4-03), pypto.ir.compile and the
pypto.ir / pypto.backend names (P4-04, P4-16, P4-17), pypto.runtime.run and TensorSpec
(P4-05).  Values against torch; every error text exact."""
import os

import numpy as np
import pytest
import torch

import pypto.language as pl
from pypto import ir
from pypto.ir.distributed_compiled_program import DistributedConfig
from pypto.runtime import DeviceUnavailableError, RunConfig, TensorSpec, run

ADD = """
    @pl.jit
    def add(a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[64, 64], pl.FP32],
            out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.add(pl.load(a, [0, 0], [64, 64]), pl.load(b, [0, 0], [64, 64]))
            pl.store(t, [0, 0], out)
        return out

    @pl.jit
    def bare(a: pl.Tensor, out: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.store(pl.load(a, [0, 0], [64, 64]), [0, 0], out)

    @pl.jit
    def scale(a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]], s: pl.Scalar[pl.FP32]):
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.store(pl.mul(pl.load(a, [0, 0], [16, 16]), s), [0, 0], out)
        return out

    @pl.jit
    def inplace(a: pl.Tensor[[16, 16], pl.FP32], out: pl.InOut[pl.Tensor[[16, 16], pl.FP32]]):
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.store(pl.add(pl.load(a, [0, 0], [16, 16]), pl.load(out, [0, 0], [16, 16])), [0, 0], out)
"""

PROG = """
    @pl.program
    class Sq:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, a: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]):
            t = pl.load(a, [0, 0], [32, 32])
            pl.store(pl.mul(t, t), [0, 0], out)

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[32, 32], pl.FP32],
                 out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
            self.k(a, out)
            return out

    @pl.program
    class Bare:
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor, out: pl.Out[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.store(pl.load(a, [0, 0], [8, 8]), [0, 0], out)
"""


@pytest.fixture(autouse=True)
def build_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("PYPTO_PROG_BUILD_DIR", str(tmp_path / "build_output"))


@pytest.fixture
def k(load):
    return load(ADD)[0]


@pytest.fixture
def prog(load):
    return load(PROG)[0]


def ab():
    return torch.randn(64, 64), torch.randn(64, 64), torch.zeros(64, 64)


# ---- P4-01 ------------------------------------------------------------------------------------

def test_p4_01_compile_returns_one_cached_compiled_program_per_key(k):
    a, b, out = ab()
    c = k.add.compile(a, b, out)
    assert k.add.cache_info() == (0, 1, 1)
    assert k.add.compile(a, b, out) is c
    assert k.add.compile(torch.empty(64, 64, device="meta"), b, out) is c  # contents ignored, meta allowed
    k.add(a, b, out)
    assert k.add.cache_info() == (3, 1, 1)  # the call is a hit
    assert torch.equal(out, a + b)
    assert c.output_dir.is_dir() and c.platform == "a2a3sim" and c.param_names == ["a", "b", "out"]
    assert k.add.lower(a, b, out) == (c.output_dir / "program.py").read_text()


def test_p4_01_compile_binding_uses_v1_texts(k):
    a, b, out = ab()
    with pytest.raises(TypeError) as e:
        k.add.compile(a, b)
    assert str(e.value) == "@pl.jit function 'add': missing a required argument: 'out'"


# ---- P4-02 ------------------------------------------------------------------------------------

def test_p4_02_signature_mode_takes_shapes_from_the_annotations(k):
    c = k.add.compile()
    assert c.param_names == ["a", "b", "out"] and c.output_indices == [2] and c.has_return
    a, b, out = ab()
    k.add(a, b, out)  # the argument key it compiled to: a hit
    assert k.add.cache_info() == (1, 1, 1)
    assert torch.equal(out, a + b)


def test_p4_02_signature_mode_bare_tensor_text(k):
    with pytest.raises(TypeError) as e:
        k.bare.compile()
    assert str(e.value) == ("@pl.jit function 'bare': cannot specialize from the signature because parameter 'a' has "
                            "a bare 'pl.Tensor' annotation with no shape. Pass sample arguments to compile(), or "
                            "annotate the shape.")
    assert k.bare.cache_info() == (0, 0, 0)


def test_p4_02_runtime_scalar_one_program_two_values(k):
    c = k.scale.compile(s=pl.RUNTIME)
    a = torch.randn(16, 16)
    assert torch.equal(c(a, 2.0), a * 2) and torch.equal(c(a, 3.0), a * 3)
    assert k.scale.cache_info() == (0, 1, 1)
    assert "s: pl.Scalar[pl.FP32]" in (c.output_dir / "program.py").read_text()


def test_p4_02_specialized_scalar_by_keyword(k):
    c = k.scale.compile(s=2.0)
    a = torch.randn(16, 16)
    assert torch.equal(c(a, 2.0), a * 2)
    assert torch.equal(c(a, 5.0), a * 5)  # another value: that specialization, compiled once


def test_p4_02_unknown_keyword_text(k):
    with pytest.raises(TypeError) as e:
        k.add.compile(skip_ptoas=True)
    assert str(e.value) == "compile() got an unexpected keyword argument 'skip_ptoas'"


def test_p4_02_some_tensors_given_others_not(k):
    a, _, _ = ab()
    with pytest.raises(TypeError) as e:
        k.add.compile(a)
    assert str(e.value) == "@pl.jit function 'add': missing a required argument: 'b'"


def test_p4_02_lower_binds_the_same_way(k):
    text = k.add.lower()
    assert text == (k.add.compile().output_dir / "program.py").read_text()
    assert k.add.cache_info() == (1, 1, 1)


# ---- P4-03 ------------------------------------------------------------------------------------

def test_p4_03_v1_argument_texts_hold_for_compiled_calls(k):
    c = k.add.compile()
    a, b, out = ab()
    with pytest.raises(ValueError) as e:
        c(a, torch.zeros(64, 128)[:, ::2], out)
    assert str(e.value) == ("@pl.jit function 'add': argument 'b' is not contiguous; pass a contiguous tensor "
                            "(torch: x.contiguous(), numpy: np.ascontiguousarray(x))")
    ro = np.zeros((64, 64), np.float32)
    ro.flags.writeable = False
    with pytest.raises(ValueError) as e:
        c(a.numpy(), b.numpy(), ro)
    assert str(e.value) == "@pl.jit function 'add': argument 'out' is read-only but the kernel writes it"
    with pytest.raises(TypeError) as e:
        k.scale.compile(s=2.0)(torch.zeros(16, 16), "x")
    assert str(e.value) == "@pl.jit function 'scale': argument 's' must be a Python int, float or bool, got str"


def test_p4_03_in_place_and_return_style(k):
    c = k.add.compile()
    a, b, out = ab()
    assert c(a, b, out) is None and torch.equal(out, a + b)
    r = c(a, b)
    assert isinstance(r, torch.Tensor) and torch.equal(r, a + b)
    x, y = np.random.rand(64, 64).astype(np.float32), np.random.rand(64, 64).astype(np.float32)
    o = np.zeros((64, 64), np.float32)
    c(x, y, o)
    assert np.array_equal(o, x + y)


def test_p4_03_argument_count_texts(k):
    c = k.add.compile()
    with pytest.raises(TypeError) as e:
        c(torch.zeros(64, 64))
    assert str(e.value) == "CompiledProgram expects 3 (in-place) or 2 (return) arguments, got 1. Parameters: [a, b, out]"
    ci = k.inplace.compile()
    with pytest.raises(TypeError) as e:
        ci(torch.zeros(16, 16))
    assert str(e.value) == "CompiledProgram expects 2 arguments, got 1. Parameters: [a, out]"


def test_p4_03_shape_rank_dtype_texts(k):
    c = k.add.compile()
    a = torch.zeros(64, 64)
    cases = [(torch.zeros(3, 3), "Parameter 'b' expects shape (64, 64); got tensor shape (3, 3)"),
             (torch.zeros(64), "Parameter 'b' expects rank 2; got tensor rank 1"),
             (torch.zeros(64, 64, dtype=torch.float16),
              "Parameter 'b' expects dtype torch.float32; got tensor dtype torch.float16")]
    for b, text in cases:
        with pytest.raises(TypeError) as e:
            c(a, b)
        assert str(e.value) == text


def test_p4_03_platform_a2a3_compiles_but_does_not_dispatch(k):
    c = k.add.compile(config=RunConfig(platform="a2a3"))
    assert c.platform == "a2a3" and (c.output_dir / "program.py").exists()
    with pytest.raises(DeviceUnavailableError):
        c(*ab())


def test_p4_03_compiled_program_is_a_path(k):
    c = k.add.compile()
    assert str(c) == os.fspath(c) == str(c.output_dir)
    files = {f for _, _, fs in os.walk(c) for f in fs}
    assert {"program.py", "lowered.txt"} <= files


def test_p4_03_config_platform_is_ignored_by_the_call(k):
    c = k.add.compile()
    a, b, out = ab()
    c(a, b, out, config=RunConfig(platform="a2a3"))  # the compiled platform wins
    assert torch.equal(out, a + b)


def test_p4_03_dump_passes_writes_every_stage(k):
    c = k.add.compile(config=RunConfig(dump_passes=True))
    names = sorted(os.listdir(c.output_dir / "passes"))
    assert names == ["01_parse.py", "02_inline.py", "03_outline.py", "04_directions.py", "05_scopes.py",
                     "06_verify.py", "07_cache.py"]
    assert (c.output_dir / "passes" / "07_cache.py").read_text() == (c.output_dir / "program.py").read_text()


def test_p4_03_failed_compile_leaves_nothing_half_written(load, tmp_path):
    mod, _ = load("""
        @pl.jit
        def broken(a: pl.Tensor[[8, 8], pl.FP32], out: pl.Out[pl.Tensor[[8, 8], pl.FP32]]):
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.store(pl.load(a, [0, 0], [16, 16]), [0, 0], out)
    """)
    with pytest.raises(Exception):
        mod.broken.compile()
    assert mod.broken.cache_info() == (0, 0, 0)
    assert not (tmp_path / "build_output").exists()


# ---- P4-04 ------------------------------------------------------------------------------------

def test_p4_04_ir_compile_of_a_class(prog, tmp_path):
    c = ir.compile(prog.Sq, output_dir=str(tmp_path / "sq"))
    assert c.output_dir == tmp_path / "sq" and c.program is prog.Sq
    assert c.param_names == ["a", "out"] and c.output_indices == [1] and c.has_return
    assert c.orchestration_names == ["main"] and c["main"] is c
    assert sorted(os.listdir(c.output_dir / "passes"))[0] == "01_parse.py"  # dump_passes=True by default
    a = torch.randn(32, 32)
    assert torch.equal(c(a), a * a)


def test_p4_04_ir_compile_of_lowered_text_and_a_parsed_program(k):
    low = k.add.lower(*ab())
    c = ir.compile(low, dump_passes=False)
    assert not (c.output_dir / "passes").exists()
    a, b, out = ab()
    c(a, b, out)
    assert torch.equal(out, a + b)
    c2 = ir.compile(pl.parse_program(low))
    assert torch.equal(c2(a, b), a + b)


def test_p4_04_ir_compile_of_an_object_that_prints_a_program(k):
    class Printed:
        def __init__(self, text):
            self.text = text

        def as_python(self):
            return self.text

    c = ir.compile(Printed(k.add.lower(*ab())))
    a, b, _ = ab()
    assert torch.equal(c(a, b), a + b)


def test_p4_04_ir_compile_wrong_type_text():
    with pytest.raises(TypeError) as e:
        ir.compile(3)
    assert str(e.value) == "ir.compile() expects a @pl.program class or a pypto.ir.Program, got int"


def test_p4_04_ir_compile_bare_parameter_text(prog):
    with pytest.raises(TypeError) as e:
        ir.compile(prog.Bare)
    assert str(e.value) == ("program 'Bare': cannot compile 'main' from its signature because parameter 'a' has a "
                            "bare 'pl.Tensor' annotation with no shape")


def test_p4_04_platform_and_backend_derivation(prog):
    from pypto.backend import BackendType
    assert ir.compile(prog.Sq).platform == "a2a3sim"
    c = ir.compile(prog.Sq, backend_type=BackendType.Ascend950)
    assert (c.platform, c.backend_type) == ("a5sim", BackendType.Ascend950)
    c = ir.compile(prog.Sq, backend_type=BackendType.Ascend950, platform="a2a3sim")  # a given platform wins
    assert (c.platform, c.backend_type) == ("a2a3sim", BackendType.Ascend910B)


def test_p4_04_distributed_config_text(prog):
    with pytest.raises(TypeError) as e:
        ir.compile(prog.Sq, distributed_config=object())
    assert str(e.value) == "distributed_config must be a DistributedConfig or None, got object"
    with pytest.raises(ValueError) as e:
        ir.compile(prog.Sq, distributed_config=DistributedConfig())
    assert str(e.value).startswith("pypto.ir.compile(distributed_config=) is not supported in this version")


def test_p4_04_knobs_accepted_and_ignored_others_rejected(prog):
    c = ir.compile(prog.Sq, strategy=ir.OptimizationStrategy.Default, profiling=True, skip_ptoas=True,
                   memory_planner=None, dump_ptoas_passes=True, verification_level=None,
                   enable_pypto_l0c_double_buffer=True, emit_source_loc=True, diagnostic_phase=None,
                   disabled_diagnostics=None, analyze_auto_scopes_for_deps=True, dump_passes=ir.PassDumpLevel.EXPLICIT)
    assert (c.output_dir / "passes").is_dir()
    with pytest.raises(TypeError) as e:
        ir.compile(prog.Sq, bogus=1)
    assert str(e.value) == "compile() got an unexpected keyword argument 'bogus'"
    RunConfig(skip_ptoas=True, verification_level=1, enable_pypto_l0c_double_buffer=True, emit_source_loc=True)


def test_p4_04_pass_manager_names():
    from pypto.ir.pass_manager import OptimizationStrategy
    assert OptimizationStrategy is ir.OptimizationStrategy and ir.OptimizationStrategy.Default


# ---- P4-05 ------------------------------------------------------------------------------------

def test_p4_05_run_compile_only_with_tensors_and_codegen_only(prog, tmp_path):
    c = run(prog.Sq, config=RunConfig(save_kernels_dir=str(tmp_path / "k")))
    assert c.output_dir == tmp_path / "k" and (c.output_dir / "program.py").exists()
    a, out = torch.randn(32, 32), torch.zeros(32, 32)
    run(prog.Sq, a, out)
    assert torch.equal(out, a * a)
    out2 = torch.zeros(32, 32)
    run(prog.Sq, a, out2, config=RunConfig(codegen_only=True))
    assert not out2.any()


def test_p4_05_tensor_spec_init_forms(prog):
    assert not TensorSpec("z", [2, 3], torch.float32).create_tensor().any()
    assert torch.equal(TensorSpec("f", [2], torch.float32, init_value=1.5).create_tensor(), torch.full([2], 1.5))
    t = TensorSpec("t", [2, 2], torch.float16, init_value=torch.ones(2, 2)).create_tensor()
    assert t.dtype == torch.float16 and torch.equal(t, torch.ones(2, 2, dtype=torch.float16))
    assert torch.equal(TensorSpec("c", [3], torch.int32, init_value=lambda s, d: torch.arange(3, dtype=d))
                       .create_tensor(), torch.arange(3, dtype=torch.int32))
    a = torch.randn(32, 32)
    out = TensorSpec("out", [32, 32], torch.float32, is_output=True)
    run(prog.Sq, TensorSpec("a", [32, 32], torch.float32, init_value=a), out)


def test_p4_05_tensor_spec_factories_and_argument_free_callables():
    """torch's factories get the shape and dtype=; a callable without required parameters
    is called with none and its result converted (upstream's examples use both)."""
    r = TensorSpec("r", [4, 3], torch.bfloat16, init_value=torch.randn).create_tensor()
    assert r.shape == (4, 3) and r.dtype == torch.bfloat16
    assert torch.equal(TensorSpec("o", [2], torch.int32, init_value=torch.ones).create_tensor(),
                       torch.ones(2, dtype=torch.int32))
    t = TensorSpec("l", [3], torch.int32, init_value=lambda: [5, 6, 7]).create_tensor()
    assert t.dtype == torch.int32 and t.tolist() == [5, 6, 7]
    with pytest.raises(ValueError) as e:
        TensorSpec("l", [2], torch.int32, init_value=lambda: [5, 6, 7]).create_tensor()
    assert str(e.value) == "TensorSpec 'l': init_value has shape [3], expected [2]"


def test_p4_05_tensor_spec_shape_text():
    with pytest.raises(ValueError) as e:
        TensorSpec("x", [2, 2], torch.float32, init_value=torch.ones(3)).create_tensor()
    assert str(e.value) == "TensorSpec 'x': init_value has shape [3], expected [2, 2]"


# ---- P4-16, P4-17 ----------------------------------------------------------------------------

def test_p4_16_partial_codegen_error_is_the_compilers_class(load):
    from pypto.backend.pto_backend import PartialCodegenError
    mod, _ = load("""
        @pl.jit
        def f(a: pl.Tensor[[8, 8], pl.FP32], out: pl.InOut[pl.Tensor[[8, 8], pl.FP32]]):
            out = a
            return out
    """)
    with pytest.raises(PartialCodegenError) as e:
        mod.f.compile()
    assert "[OutParamNotShadowed]" in e.value.message
    assert PartialCodegenError is pl.diagnostics.PartialCodegenError


def test_p4_17_hardware_surfaces_texts(k):
    c = k.add.compile()
    for name in ("chip_callable", "runtime_name", "runtime_config", "build_orch_args", "build_call_config",
                 "from_dir", "load", "validate_ir"):
        with pytest.raises(AttributeError) as e:
            getattr(c, name)
        assert str(e.value) == ("CompiledProgram.%s is Ascend-specific: it is a handle into the device runtime's "
                                "artifacts; it has no meaning on the CPU backend (call the program, or use ChipWorker)"
                                % name)
    with pytest.raises(ImportError) as e:
        import pypto.pypto_core  # noqa: F401
    assert str(e.value) == ("pypto.pypto_core is Ascend-specific: it binds the C++ pass and code-generation library; "
                            "it has no meaning on the CPU backend")
    import pypto.backend
    with pytest.raises(AttributeError) as e:
        pypto.backend.PTOCodegen
    assert str(e.value) == ("pypto.backend.PTOCodegen is Ascend-specific: it binds the C++ pass and code-generation "
                            "library; it has no meaning on the CPU backend")


def test_p4_04_import_pypto_gives_ir_and_runtime():
    import pypto
    assert pypto.ir.compile is ir.compile and pypto.runtime.run is run


def test_docs_compile_once_run_many_example(load):
    """docs/dsl.md, "Compile once, run many": the axpy block and the calls the page shows."""
    from conftest import docs_example
    from pypto.runtime import ChipWorker
    mod = docs_example(load, "@pl.jit\ndef axpy(")
    x, y = torch.randn(64, 64), torch.randn(64, 64)
    compiled = mod.axpy.compile(alpha=pl.RUNTIME)
    assert torch.equal(compiled(x, y, 2.0), x * 2.0 + y)
    out = torch.zeros(64, 64)
    assert compiled(x, y, out, 3.0) is None and torch.equal(out, x * 3.0 + y)
    assert (compiled.param_names, compiled.output_indices, compiled.has_return) == (["x", "y", "out", "alpha"], [2],
                                                                                    True)
    with pytest.raises(TypeError) as e:
        compiled(x)
    assert str(e.value) == ("CompiledProgram expects 4 (in-place) or 3 (return) arguments, got 1. "
                            "Parameters: [x, y, out, alpha]")
    with ChipWorker(RunConfig(ring_heap=1 << 20)) as w:
        h = w.register(compiled)
        wt = w.alloc_tensor((64, 64), torch.float32, init=x)
        res = w.alloc_tensor((64, 64), torch.float32)
        h(wt, y, res, 2.0)
        assert torch.equal(w.tensor(res), x * 2.0 + y)
        compiled(wt, y, res, 4.0)
        assert torch.equal(w.tensor(res), x * 4.0 + y)
    assert h.closed and not w.initialized
