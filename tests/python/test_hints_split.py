"""H-split (DSL-V2-SPEC §0.8 C; docs/dsl.md, "Hints"): optimizations=[pl.split(...),
pl.cross_core_slot(...)] on a CORE_GROUP pl.at is checked, changes nothing and is printed
back as written, on the outlined kernel's @pl.function (P2-17): the same bits with and
without it, the round trip, the error texts at their construct, and the one warning of
the deprecated pl.split(slot_num=)."""
import warnings

import pytest
import torch

import pypto
import pypto.language as pl
from pypto.language.parser.diagnostics import ParserSyntaxError, ParserTypeError

from conftest import line_of

HINTS = "[pl.split(pl.SplitMode.UP_DOWN), pl.cross_core_slot(slot_num=4)]"

PROGRAM = """
    @pl.jit
    def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
        for i in pl.range(4):
            with pl.at(level=pl.Level.CORE_GROUP{opts}):
                t = pl.load(a, [i * 16, 0], [16, 64])
                pl.store(pl.add(pl.mul(t, t), t), [i * 16, 0], out)
        return out
    """


def program(load, opts):
    return load(PROGRAM.replace("{opts}", opts))


def test_P2_17_optimizations_give_the_same_bits(load):
    a = torch.randn(64, 64)
    plain, _ = program(load, "")
    hinted, _ = program(load, ", optimizations=" + HINTS)
    want, got = torch.zeros(64, 64), torch.zeros(64, 64)
    plain.k(a, want)
    hinted.k(a, got)
    assert torch.equal(got, want)
    assert torch.equal(got, a * a + a)


@pytest.mark.parametrize("opts", [HINTS, "[]", "[pl.split(pl.SplitMode.NONE)]", "[pl.split(pl.SplitMode.LEFT_RIGHT)]",
                                  "[pl.cross_core_slot(slot_num=1)]"])
def test_P2_17_optimizations_printed_back_and_round_trip(load, opts):
    mod, _ = program(load, ", optimizations=" + opts)
    a, o = torch.zeros(64, 64), torch.zeros(64, 64)
    text = mod.k.lower(a, o)
    assert "@pl.function(type=pl.FunctionType.InCore, optimizations=%s)\n" % opts in text, text
    assert pl.parse_program(text).lower(a, o) == text
    assert "optimizations" not in program(load, "")[0].k.lower(a, o)


def test_P2_17_split_mode_enum_from_the_compiler_tables():
    assert [(m.name, m.value) for m in pl.SplitMode] == [("NONE", 0), ("UP_DOWN", 1), ("LEFT_RIGHT", 2)]


@pytest.mark.parametrize("opts,needle,cls,text", [
    ("pl.split(pl.SplitMode.UP_DOWN)", "pl.split", ParserSyntaxError,
     "optimizations= must be a list literal of pl.split(...) / pl.cross_core_slot(...) entries"),
    ("[pl.split(pl.SplitMode.UP_DOWN), 4]", "4]", ParserSyntaxError,
     "optimizations= must be a list literal of pl.split(...) / pl.cross_core_slot(...) entries"),
    ("[pl.cross_core_slot(4)]", "pl.cross_core_slot", ParserSyntaxError,
     "optimizations= must be a list literal of pl.split(...) / pl.cross_core_slot(...) entries"),
    ("[pl.cross_core_slot(slot_num=0)]", "0)", ParserTypeError, "pl.cross_core_slot slot_num must be a positive integer, got 0"),
    ("[pl.cross_core_slot(slot_num=1.5)]", "1.5", ParserTypeError,
     "pl.cross_core_slot slot_num must be a positive integer, got 1.5"),
    ("[pl.split(pl.SplitMode.NONE, slot_num=-2)]", "-2", ParserTypeError, "pl.split slot_num must be a positive integer, got -2"),
    ("[pl.split(pl.Level.HOST)]", "pl.Level.HOST", ParserSyntaxError,
     "pl.split() mode must be a pl.SplitMode member (NONE, UP_DOWN, LEFT_RIGHT)"),
])
def test_P2_17_optimizations_error_texts(load, opts, needle, cls, text):
    mod, path = program(load, ", optimizations=" + opts)
    with pytest.raises(cls) as e:
        mod.k.lower(torch.zeros(64, 64), torch.zeros(64, 64))
    line, col = line_of(path, "optimizations=")
    col = open(path).read().splitlines()[line - 1].index(needle, col + len("optimizations=") - 1) + 1
    assert str(e.value).startswith("%s:%d:%d: error: %s" % (path, line, col, text)), str(e.value)


def test_P2_17_optimizations_need_a_task_level(load):
    mod, path = load("""
        @pl.jit
        def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            with pl.at(level=pl.Level.HOST, optimizations=[pl.cross_core_slot(slot_num=2)]):
                with pl.at(level=pl.Level.CORE_GROUP):
                    pl.store(pl.load(a, [0, 0], [16, 64]), [0, 0], out)
            return out
        """)
    with pytest.raises(ParserSyntaxError) as e:
        mod.k.lower(torch.zeros(16, 64), torch.zeros(16, 64))
    line, col = line_of(path, "[pl.cross_core_slot")
    assert str(e.value).startswith(
        "%s:%d:%d: error: pl.at(level=pl.Level.HOST) creates no task; optimizations= needs level=pl.Level.CORE_GROUP"
        % (path, line, col)), str(e.value)


def test_P2_17_split_slot_num_warns_once(load):
    mod, path = program(load, ", optimizations=[pl.split(pl.SplitMode.UP_DOWN, slot_num=2)]")
    a, o = torch.zeros(64, 64), torch.zeros(64, 64)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        text = mod.k.lower(a, o)
    got = [x for x in w if issubclass(x.category, pypto.CompileWarning)]
    assert len(got) == 1
    line, col = line_of(path, "slot_num=")
    assert str(got[0].message).startswith(
        "%s:%d:%d: warning: pl.split(slot_num=...) is deprecated; use pl.cross_core_slot(slot_num=...)" % (path, line, col))
    assert (got[0].filename, got[0].lineno) == (path, line)
    assert "optimizations=[pl.split(pl.SplitMode.UP_DOWN, slot_num=2)])" in text
