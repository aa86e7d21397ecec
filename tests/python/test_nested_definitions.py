"""Programs and @pl.jit functions defined inside a function, a method or a
class body (as test code and factories build them): they compile from the
whole file, see the constants of their factory (arguments named in the body
or only in annotations) and the kernels beside them, and their diagnostics
point into the file."""
import pytest
import torch

import pypto.language as pl
from pypto.language.parser.diagnostics import ParserTypeError

from conftest import line_of

FACTORY = """
    SHAPE = (64, 128)

    def make(shape, dt, scale):
        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, a: pl.Tensor[shape, dt], out: pl.Out[pl.Tensor[shape, dt]]):
                pl.store(pl.mul(pl.load(a, [0, 0], shape), scale), [0, 0], out)

            @pl.function(type=pl.FunctionType.Orchestration)
            def orch(self, a: pl.Tensor[shape, dt], out: pl.Out[pl.Tensor[shape, dt]]):
                self.k(a, out)
        return P

    class Suite:
        def program(self):
            @pl.program
            class P:
                @pl.function(type=pl.FunctionType.InCore)
                def k(self, a, out: pl.Out[pl.Tensor]):
                    pl.store(pl.add(pl.load(a, [0, 0], SHAPE), 1.0), [0, 0], out)

                @pl.function(type=pl.FunctionType.Orchestration)
                def orch(self, a, out):
                    self.k(a, out)
            return P
    """


def test_a_program_defined_in_a_factory_runs_with_the_factory_arguments_as_constants(load):
    mod, _ = load(FACTORY)
    a = torch.randn(64, 128)
    for shape, scale in (([64, 128], 3.0), ((64, 128), 2)):  # a list, a tuple; a float, an int
        out = torch.zeros(64, 128)
        prog = mod.make(shape, pl.FP32, scale)
        prog(a, out)
        torch.testing.assert_close(out, a * scale)
        assert "scale = %r" % scale in prog.as_python()
        out2 = torch.zeros(64, 128)
        pl.parse_program(prog.lower(a, out2))(a, out2)  # the printed program stands alone
        torch.testing.assert_close(out2, a * scale)


def test_a_program_defined_in_a_method_runs_and_sees_module_constants(load):
    mod, _ = load(FACTORY)
    a, out = torch.randn(64, 128), torch.zeros(64, 128)
    mod.Suite().program()(a, out)
    torch.testing.assert_close(out, a + 1)


def test_a_nested_jit_function_sees_the_kernels_beside_it_before_the_module_ones(load):
    mod, _ = load("""
        @pl.jit.incore
        def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            pl.store(pl.mul(pl.load(a, [0, 0], [64, 128]), 9.0), [0, 0], out)

        class Kernels:
            @pl.jit
            def module_k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
                k(a, out)

        def make(rows, n):
            @pl.jit.incore
            def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
                pl.store(pl.mul(pl.load(a, [0, 0], [rows, 128]), n), [0, 0], out)

            @pl.jit
            def entry(a: pl.Tensor[[rows, 128], pl.FP32], out: pl.Out[pl.Tensor]):
                k(a, out)
            return entry
        """)
    a = torch.randn(64, 128)
    for kernel, scale in ((mod.make(64, 5.0), 5.0), (mod.Kernels.module_k, 9.0)):
        out = torch.zeros(64, 128)
        kernel(a, out)
        torch.testing.assert_close(out, a * scale)


def test_a_nested_program_error_points_at_its_line_and_column_in_the_file(load):
    mod, path = load("""
        def make(rows):
            @pl.program
            class P:
                @pl.function(type=pl.FunctionType.InCore)
                def k(self, a, out: pl.Out[pl.Tensor]):
                    pl.store(pl.load(a, [0, 0], rows), [0, 0], out)

                @pl.function(type=pl.FunctionType.Orchestration)
                def orch(self, a, out):
                    self.k(a, out)
            return P
        """)
    with pytest.raises(ParserTypeError) as e:
        mod.make(64)(torch.zeros(64, 128), torch.zeros(64, 128))
    line, col = line_of(path, "rows), [0, 0]")
    assert str(e.value).startswith("%s:%d:%d: error: shapes must be a list like [0, 0]" % (path, line, col)), str(e.value)
    assert "\n            pl.store(pl.load(a, [0, 0], rows), [0, 0], out)\n" in str(e.value)  # the file's line, as it stands
