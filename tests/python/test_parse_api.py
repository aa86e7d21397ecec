"""DSL-V2-SPEC §2, I-parse (P4-10): pl.parse, pl.loads, pl.parse_program and
their texts."""
import pytest
import torch

import pypto.language as pl
from pypto import ir

FUNC = """
@pl.function(type=pl.FunctionType.InCore)
def k(a: pl.Tensor[[8, 8], pl.FP32], o: pl.Out[pl.Tensor[[8, 8], pl.FP32]]) -> pl.Tensor[[8, 8], pl.FP32]:
    t: pl.Tile[[8, 8], pl.FP32] = pl.load(a, [0, 0], [8, 8])
    o = pl.store(t, [0, 0], o)
    return o
"""

PROG = """
@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[8, 8], pl.FP32], o: pl.Out[pl.Tensor[[8, 8], pl.FP32]]):
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.store(pl.add(pl.load(a, [0, 0], [8, 8]), 1.0), [0, 0], o)
        return o
"""

NONE = ("No @pl.function or @pl.program found in %s. Make sure your code contains a function decorated with "
        "@pl.function or a class decorated with @pl.program.")


def test_I_parse_one_function_is_a_Function():
    f = pl.parse("import pypto.language as pl\n" + FUNC)
    assert isinstance(f, ir.Function) and f.name == "k" and f.func_type is pl.FunctionType.InCore
    assert [p.direction for p in f.params] == [ir.ParamDirection.In, ir.ParamDirection.Out]
    assert f.return_types == ["pl.Tensor[[8, 8], pl.FP32]"]


def test_I_parse_function_without_type_is_Opaque():
    f = pl.parse("@pl.function\ndef g(a, n):\n    return a\n")
    assert f.func_type is pl.FunctionType.Opaque and [p.name for p in f.params] == ["a", "n"]


def test_I_parse_one_program_is_a_Program_and_runs():
    p = pl.parse(PROG)  # the import is supplied
    assert p.name == "P" and list(p.functions) == ["main"]
    a, o = torch.ones(8, 8), torch.zeros(8, 8)
    p(a, o)
    assert torch.equal(o, torch.full((8, 8), 2.0))


def test_I_parse_import_under_another_alias():
    p = pl.parse("import pypto.language as ppl\n" + PROG.replace("pl.", "ppl."))
    assert p.as_python(prefix="ppl").startswith("import pypto.language as ppl\n")
    assert p.as_python().startswith("import pypto.language as pl\n\n@pl.program\nclass P:\n")


@pytest.mark.parametrize("filename", ["<string>", "kernels.py"])
def test_I_parse_nothing_found(filename):
    with pytest.raises(ValueError) as e:
        pl.parse("x = 1\n", filename=filename)
    assert str(e.value) == NONE % filename


def test_I_parse_two_found():
    with pytest.raises(ValueError) as e:
        pl.parse(FUNC + PROG)
    assert str(e.value) == (
        "Multiple functions/programs found in <string>: ['k', 'P']. pl.parse() can only parse code containing a "
        "single function or program. Consider using separate calls or parsing from separate files.")


def test_I_parse_syntax_error():
    with pytest.raises(SyntaxError) as e:
        pl.parse("def (:\n", filename="bad.py")
    assert str(e.value).startswith("Failed to compile code from bad.py: invalid syntax")


def test_I_parse_dsl_errors_keep_their_class_and_point_into_code():
    p = pl.parse(PROG.replace("pl.add(", "pl.nosuchop("), filename="mine.py")
    with pytest.raises(pl.diagnostics.ParserError) as e:
        p(torch.ones(8, 8), torch.zeros(8, 8))
    assert e.value.span["filename"] == "mine.py" and e.value.span["line"] == 7


def test_I_parse_loads_reads_the_file(tmp_path):
    path = tmp_path / "k.py"
    path.write_text(FUNC)
    f = pl.loads(str(path))
    assert isinstance(f, ir.Function) and f.name == "k"
    with pytest.raises(FileNotFoundError):
        pl.loads(str(tmp_path / "missing.py"))
    path.write_text("y = 2\n")
    with pytest.raises(ValueError) as e:
        pl.loads(str(path))
    assert str(e.value) == NONE % path


def test_I_parse_parse_program_of_a_function():
    with pytest.raises(ValueError) as e:
        pl.parse_program(FUNC, filename="f.py")
    assert str(e.value) == ("Expected @pl.program but found @pl.function in f.py. Use pl.parse() for "
                            "auto-detection or ensure your code contains @pl.program.")
    assert pl.parse_program(PROG).name == "P"
