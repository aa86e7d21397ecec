"""The column a run-time error cites, "(at file:line:col)", is the column of
the failing construct in the user's file, as a compile-time diagnostic's is
(docs/dsl.md, "Errors"): for a method of a @pl.program class at module
level and one defined in a factory (indented further), and for a program
whose text is handed over dedented with the columns it lost
(pto_compile_options.first_column, the C API's rule for a nested
definition), where lowering adds them back to every instruction's column
as the diagnostics add them to theirs."""
import types

import pytest
import torch

from pypto.runtime import PTORuntimeError
from pypto.language.parser.diagnostics import UndefinedVariableError

from conftest import line_of

KERNELS = """
    @pl.program
    class Rows:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, a: pl.Tensor, out: pl.Out[pl.Tensor], i: pl.Scalar[pl.INDEX]):
            t = pl.load(a, [i * 8, 0], [8, 16])
            pl.store(t, [0, 0], out)

        @pl.function(type=pl.FunctionType.Orchestration)
        def orch(self, a: pl.Tensor, out: pl.Out[pl.Tensor], i: pl.Scalar[pl.INDEX]):
            self.k(a, out, i)


    def make():
        @pl.program
        class Div:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, a: pl.Tensor, out: pl.Out[pl.Tensor], d: pl.Scalar[pl.INT32]):
                t = pl.load(a, [0, 0], [8, 16])
                pl.store(pl.div(t, d), [0, 0], out)

            @pl.function(type=pl.FunctionType.Orchestration)
            def orch(self, a: pl.Tensor, out: pl.Out[pl.Tensor], d: pl.Scalar[pl.INT32]):
                self.k(a, out, d)
        return Div
    """


@pytest.fixture
def kmod(load):
    return load(KERNELS)


def at(path, needle):
    return "(at %s:%d:%d)" % (path, *line_of(path, needle))


def test_an_out_of_bounds_load_cites_its_column_in_the_file(kmod):
    mod, path = kmod
    a, out = torch.zeros(16, 16), torch.zeros(8, 16)
    with pytest.raises(PTORuntimeError) as e:
        mod.Rows(a, out, 2)  # rows 16..23 of 16, known only at run time
    assert "pl.load reads past the end of dimension 0" in str(e.value)
    assert at(path, "pl.load(a, [i * 8") in str(e.value), str(e.value)


def test_a_division_by_zero_in_a_factory_program_cites_its_column_in_the_file(kmod):
    mod, path = kmod
    a, out = torch.ones(8, 16, dtype=torch.int32), torch.zeros(8, 16, dtype=torch.int32)
    with pytest.raises(PTORuntimeError) as e:
        mod.make()(a, out, 0)
    assert "pl.div: integer division by zero" in str(e.value)
    assert at(path, "pl.div(t, d)") in str(e.value), str(e.value)


def dedented(prog, path, first_line, last_line, edit=("", "")):
    """prog compiled from lines first_line..last_line of path, dedented by
    their common indent, which is handed over as first_column (edit: one
    replacement in the text, of the same length)."""
    lines = open(path).read().splitlines(True)[first_line - 1:last_line]
    indent = min(len(l) - len(l.lstrip(" ")) for l in lines if l.strip())
    text = "".join(l[indent:] if l.strip() else l for l in lines).replace(*edit)
    prog._src = types.SimpleNamespace(text=text, filename=path, first_line=first_line, first_column=indent,
                                      entry_line=0, hash="dedented" + edit[1])
    return indent


def test_a_dedented_text_gets_its_columns_back_at_run_time_as_at_compile_time(kmod):
    mod, path = kmod
    first, last = line_of(path, "@pl.program", 1)[0], line_of(path, "self.k(a, out, d)")[0]
    prog = mod.make()
    assert dedented(prog, path, first, last) == 4
    a, out = torch.ones(8, 16, dtype=torch.int32), torch.zeros(8, 16, dtype=torch.int32)
    with pytest.raises(PTORuntimeError) as e:
        prog(a, out, 0)
    assert at(path, "pl.div(t, d)") in str(e.value), str(e.value)
    prog(a, out, 1)  # the same text runs where nothing fails
    assert bool((out == 1).all())
    # a compile-time diagnostic of the same text cites the same file column
    prog = mod.make()
    dedented(prog, path, first, last, ("pl.div(t, d)", "pl.div(t, e)"))
    with pytest.raises(UndefinedVariableError) as c:
        prog(a, out, 0)
    line, col = line_of(path, "pl.div(t, d)")
    assert str(c.value).startswith("%s:%d:%d:" % (path, line, col + len("pl.div(t, "))), str(c.value)
