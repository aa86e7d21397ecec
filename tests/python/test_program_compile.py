"""A @pl.program class's .compile() (DSL-V2-SPEC §4.1-§4.2 for programs; docs/dsl.md,
"Compile once, run many"): P.compile(*args, config=None, **kwargs) and P.f.compile(...)
bind, key and cache as a call does (sample mode) or take the shapes from the annotations
(signature mode); the CompiledProgram they return runs in place and return-style with every
argument check of §4.2.  Values against torch; every error text exact."""
import os

import numpy as np
import pytest
import torch

import pypto.language as pl
from pypto import ir
from pypto.runtime import ChipWorker, DeviceUnavailableError, RunConfig

PROGRAMS = """
    M = pl.dynamic("M")

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
    class Scale:
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]],
                 s: pl.Scalar[pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.store(pl.mul(pl.load(a, [0, 0], [16, 16]), s), [0, 0], out)
            return out

    @pl.program
    class Acc:
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[16, 16], pl.FP32], out: pl.InOut[pl.Tensor[[16, 16], pl.FP32]]):
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.store(pl.add(pl.load(a, [0, 0], [16, 16]), pl.load(out, [0, 0], [16, 16])), [0, 0], out)

    @pl.program
    class Bare:
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor, out: pl.Out[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.store(pl.load(a, [0, 0], [8, 8]), [0, 0], out)

    @pl.program
    class Dyn:
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[M, 16], pl.FP32],
                 out: pl.Out[pl.Tensor[[M, 16], pl.FP32]]) -> pl.Tensor[[M, 16], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.store(pl.load(a, [0, 0], [16, 16]), [0, 0], out)
            return out

    @pl.program
    class Two:
        @pl.function(type=pl.FunctionType.Orchestration)
        def copy(self, a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.store(pl.load(a, [0, 0], [16, 16]), [0, 0], out)

        @pl.function(type=pl.FunctionType.Orchestration)
        def double(self, a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(a, [0, 0], [16, 16])
                pl.store(pl.add(t, t), [0, 0], out)

    @pl.program
    class Broken:
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[8, 8], pl.FP32], out: pl.Out[pl.Tensor[[8, 8], pl.FP32]]):
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.store(pl.load(a, [0, 0], [16, 16]), [0, 0], out)
"""

WHO = "@pl.program function 'Sq.main'"


@pytest.fixture(autouse=True)
def build_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("PYPTO_PROG_BUILD_DIR", str(tmp_path / "build_output"))


@pytest.fixture
def p(load):
    return load(PROGRAMS)[0]


def a_out():
    return torch.randn(32, 32), torch.zeros(32, 32)


# ---- compile: sample mode, signature mode, the cache ------------------------------------------

def test_program_compile_sample_mode_is_the_calls_cache_entry(p):
    a, out = a_out()
    c = p.Sq.compile(a, out)
    assert p.Sq.cache_info() == (0, 1, 1)
    assert p.Sq.compile(a, out) is c
    assert p.Sq.compile(torch.empty(32, 32, device="meta"), out) is c  # contents ignored, meta allowed
    assert torch.equal(out, torch.zeros(32, 32))  # nothing ran
    p.Sq(a, out)
    assert p.Sq.cache_info() == (3, 1, 1)  # the call is a hit
    assert torch.equal(out, a * a)
    assert c.output_dir.is_dir() and c.platform == "a2a3sim" and c.param_names == ["a", "out"]
    assert c.output_indices == [1] and c.has_return and c.orchestration_names == ["main"]
    assert p.Sq.lower(a, out) == (c.output_dir / "program.py").read_text() == c.program


def test_program_compile_signature_mode_takes_shapes_from_the_annotations(p):
    c = p.Sq.compile()
    assert c.param_names == ["a", "out"] and c.output_indices == [1]
    assert p.Sq.compile() is c
    a, out = a_out()
    assert p.Sq.compile(a, out) is c  # the argument key it compiled to: one entry
    p.Sq(a, out)
    assert p.Sq.cache_info() == (3, 1, 1)
    assert torch.equal(out, a * a)


def test_program_compile_shares_the_cache_with_ir_compile(p):
    c = p.Sq.compile()
    ci = ir.compile(p.Sq)
    assert p.Sq.cache_info() == (1, 1, 1)
    assert ci.program is p.Sq and c.program == (c.output_dir / "program.py").read_text()
    assert ir.compile(p.Sq) is ci and p.Sq.compile() is c  # one object per origin


def test_program_compile_of_a_named_function(p):
    with pytest.raises(TypeError) as e:
        p.Two.compile()
    assert str(e.value) == "program 'Two' has 2 Orchestration functions; call one as Two.<name>(...)"
    c = p.Two.double.compile()
    assert c.orchestration_names == ["copy", "double"] and c["double"] is c
    a = torch.randn(16, 16)
    out = torch.zeros(16, 16)
    c(a, out)
    assert torch.equal(out, a + a)
    c["copy"](a, out)
    assert torch.equal(out, a)
    p.Two.double(a, out)
    assert p.Two.cache_info() == (1, 2, 2)


def test_program_compile_binding_uses_v1_texts(p):
    a, _ = a_out()
    with pytest.raises(TypeError) as e:
        p.Sq.compile(a)
    assert str(e.value) == WHO + ": missing a required argument: 'out'"
    with pytest.raises(TypeError) as e:
        p.Sq.compile(a, a, a)
    assert str(e.value) == WHO + ": too many positional arguments"


def test_program_compile_signature_mode_bare_tensor_text(p, tmp_path):
    with pytest.raises(TypeError) as e:
        p.Bare.compile()
    assert str(e.value) == ("@pl.program function 'Bare.main': cannot specialize from the signature because "
                            "parameter 'a' has a bare 'pl.Tensor' annotation with no shape. Pass sample arguments "
                            "to compile(), or annotate the shape.")
    assert p.Bare.cache_info() == (0, 0, 0) and not (tmp_path / "build_output").exists()
    c = p.Bare.compile(torch.randn(8, 8), torch.zeros(8, 8))  # sample mode specializes it
    assert c.param_names == ["a", "out"]


def test_program_compile_runtime_scalar_one_program_two_values(p):
    c = p.Scale.compile(s=pl.RUNTIME)
    a = torch.randn(16, 16)
    assert torch.equal(c(a, 2.0), a * 2) and torch.equal(c(a, 3.0), a * 3)
    assert p.Scale.cache_info() == (0, 1, 1)
    assert "s: pl.Scalar[pl.FP32]" in (c.output_dir / "program.py").read_text()


def test_program_compile_specialized_scalar_by_keyword(p):
    c = p.Scale.compile(s=2.0)
    a = torch.randn(16, 16)
    assert torch.equal(c(a, 2.0), a * 2)
    assert p.Scale.cache_info() == (0, 1, 1)
    assert torch.equal(c(a, 5.0), a * 5)  # another value: that specialization, compiled once
    assert p.Scale.cache_info() == (0, 2, 2)


def test_program_compile_unknown_keyword_text(p):
    with pytest.raises(TypeError) as e:
        p.Sq.compile(skip_ptoas=True)
    assert str(e.value) == "compile() got an unexpected keyword argument 'skip_ptoas'"
    assert p.Sq.cache_info() == (0, 0, 0)


def test_program_compile_some_tensors_given_others_not(p):
    a, _ = a_out()
    with pytest.raises(TypeError) as e:
        p.Scale.compile(a, s=2.0)
    assert str(e.value) == "@pl.program function 'Scale.main': missing a required argument: 'out'"


def test_program_compile_failed_compile_leaves_nothing_half_written(p, tmp_path):
    with pytest.raises(Exception) as e:
        p.Broken.compile()
    assert type(e.value).__name__ != "InternalError"
    assert p.Broken.cache_info() == (0, 0, 0)
    assert not (tmp_path / "build_output").exists()
    assert p.Sq.compile().output_dir.is_dir()  # the next good compile works


def test_program_compile_dump_passes_writes_every_stage(p):
    c = p.Sq.compile(config=RunConfig(dump_passes=True))
    names = sorted(os.listdir(c.output_dir / "passes"))
    assert names[0] == "01_parse.py" and names[-1] == "07_cache.py"
    assert (c.output_dir / "passes" / "07_cache.py").read_text() == (c.output_dir / "program.py").read_text()


# ---- the CompiledProgram's call -------------------------------------------------------------

def test_program_compiled_in_place_and_return_style(p):
    c = p.Sq.compile()
    a, out = a_out()
    assert c(a, out) is None and torch.equal(out, a * a)
    r = c(a)
    assert isinstance(r, torch.Tensor) and torch.equal(r, a * a)
    x, o = np.random.rand(32, 32).astype(np.float32), np.zeros((32, 32), np.float32)
    c(x, o)
    assert np.array_equal(o, x * x)
    acc = p.Acc.compile()
    b, total = torch.randn(16, 16), torch.ones(16, 16)
    acc(b, total)
    assert torch.equal(total, b + 1)


def test_program_compiled_argument_count_texts(p):
    with pytest.raises(TypeError) as e:
        p.Sq.compile()()
    assert str(e.value) == "CompiledProgram expects 2 (in-place) or 1 (return) arguments, got 0. Parameters: [a, out]"
    with pytest.raises(TypeError) as e:
        p.Acc.compile()(torch.zeros(16, 16))
    assert str(e.value) == "CompiledProgram expects 2 arguments, got 1. Parameters: [a, out]"


def test_program_compiled_tensor_shape_rank_dtype_texts(p):
    c = p.Sq.compile()
    cases = [(torch.zeros(3, 3), "Parameter 'a' expects shape (32, 32); got tensor shape (3, 3)"),
             (torch.zeros(32), "Parameter 'a' expects rank 2; got tensor rank 1"),
             (torch.zeros(32, 32, dtype=torch.float16),
              "Parameter 'a' expects dtype torch.float32; got tensor dtype torch.float16")]
    for a, text in cases:
        with pytest.raises(TypeError) as e:
            c(a)
        assert str(e.value) == text


def test_program_compiled_device_tensor_shape_rank_dtype_texts(p):
    c = p.Sq.compile()
    with ChipWorker() as w:
        cases = [(w.alloc_tensor((3, 3), torch.float32), "shape (32, 32); got DeviceTensor shape (3, 3)"),
                 (w.alloc_tensor((32,), torch.float32), "rank 2; got DeviceTensor rank 1"),
                 (w.alloc_tensor((32, 32), torch.float16),
                  "dtype torch.float32; got DeviceTensor dtype torch.float16")]
        for a, text in cases:
            with pytest.raises(TypeError) as e:
                w.run(c, a)
            assert str(e.value) == "Parameter 'a' expects " + text
        a = torch.randn(32, 32)
        da, dout = w.alloc_tensor((32, 32), torch.float32, init=a), w.alloc_tensor((32, 32), torch.float32)
        c(da, dout)  # the active worker runs it; DeviceTensors accepted
        assert torch.equal(w.tensor(dout), a * a)


def test_program_compiled_dynamic_out_return_style_text(p):
    c = p.Dyn.compile()
    a, out = torch.randn(32, 16), torch.zeros(32, 16)
    c(a, out)  # in place: the dimension binds to 32
    assert torch.equal(out[:16], a[:16])
    with pytest.raises(ValueError) as e:
        c(a)
    assert str(e.value) == ("Cannot allocate output tensor 'out': shape [-1, 16] contains dynamic dimensions. "
                            "Call it in-place with a preallocated tensor.")


def test_program_compiled_v1_argument_texts(p):
    c = p.Sq.compile()
    a, out = a_out()
    with pytest.raises(ValueError) as e:
        c(torch.zeros(32, 64)[:, ::2], out)
    assert str(e.value) == (WHO + ": argument 'a' is not contiguous; pass a contiguous tensor "
                            "(torch: x.contiguous(), numpy: np.ascontiguousarray(x))")
    ro = np.zeros((32, 32), np.float32)
    ro.flags.writeable = False
    with pytest.raises(ValueError) as e:
        c(a.numpy(), ro)
    assert str(e.value) == WHO + ": argument 'out' is read-only but the kernel writes it"
    with pytest.raises(ValueError) as e:
        c(torch.empty(32, 32, device="meta"), out)
    assert str(e.value) == WHO + ": argument 'a' is on device 'meta'; expected a CPU tensor"
    with pytest.raises(TypeError) as e:
        p.Scale.compile(s=2.0)(torch.zeros(16, 16), "x")
    assert str(e.value) == "@pl.program function 'Scale.main': argument 's' must be a Python int, float or bool, got str"


def test_program_compiled_scalar_is_converted_to_the_parameter_dtype(p):
    c = p.Scale.compile(s=pl.RUNTIME)
    a = torch.randn(16, 16)
    assert torch.equal(c(a, 2), a * 2) and torch.equal(c(a, np.float32(0.5)), a * 0.5)


def test_program_compiled_a2a3_compiles_but_does_not_dispatch(p):
    c = p.Sq.compile(config=RunConfig(platform="a2a3"))
    assert c.platform == "a2a3" and (c.output_dir / "program.py").exists()
    with pytest.raises(DeviceUnavailableError):
        c(*a_out())


def test_program_compiled_config_platform_is_ignored_by_the_call(p):
    c = p.Sq.compile()
    a, out = a_out()
    c(a, out, config=RunConfig(platform="a2a3"))  # the compiled platform wins
    assert torch.equal(out, a * a)


def test_program_compiled_program_is_a_path(p):
    c = p.Sq.compile()
    assert str(c) == os.fspath(c) == str(c.output_dir)
    assert {"program.py", "lowered.txt"} <= {f for _, _, fs in os.walk(c) for f in fs}
