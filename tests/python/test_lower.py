"""lower() (docs/dsl.md, "What the compiler does") against `ptoc lower`, compile errors with the user's
file:line:col (docs/dsl.md, "Errors"), the cache (docs/compiler.md, "Specialization and the cache")."""
import warnings

import numpy as np
import pytest
import torch

import pypto
import pypto.language as pl
from pypto.language.parser.diagnostics import (InvalidOperationError, ParserError, ParserTypeError,
                                               UndefinedVariableError, UnsupportedFeatureError)
from pypto.runtime import RunConfig

import memory_page as seed
from conftest import line_of, ptoc_lower

SHAPES = ["--shape", "a=256x128:fp32", "--shape", "out=256x128:fp32"]


@pytest.mark.parametrize("name", ["manual_placement", "scaled"])
def test_seed_lower_equals_ptoc(name):
    kernel = getattr(seed, name)
    text = kernel.lower(seed.A, torch.zeros(seed.ROWS, seed.TC))
    assert isinstance(text, pl.ProgramText) and text.as_python() is text
    assert text == ptoc_lower(seed.__file__, name, *SHAPES)


def test_seed_lower_footprints_F01_F02():
    text = seed.manual_placement.lower(seed.A, torch.zeros(seed.ROWS, seed.TC))
    assert "out: Out [i*64:i*64+64, 0:128]" in text
    assert "out: InOut [0:256, 0:128]" in text


def test_lower_with_meta_and_numpy_arguments():
    meta = torch.empty(seed.ROWS, seed.TC, device="meta")
    arr = np.zeros((seed.ROWS, seed.TC), dtype=np.float32)
    ref = seed.scaled.lower(seed.A, torch.zeros(seed.ROWS, seed.TC))
    assert seed.scaled.lower(meta, meta) == ref
    assert seed.scaled.lower(arr, arr) == ref


def test_program_lower_orch(load):
    import pathlib
    src = (pathlib.Path(__file__).resolve().parents[2] / "examples" / "dsl" / "orch_program.py").read_text()
    mod, path = load(src, header="")
    a = torch.zeros(256, 128)
    before = mod.Before.lower(a, a)
    after = mod.After.lower(a, a)
    assert before.replace("class Before", "class After") == after
    assert before == ptoc_lower(path, "Before", *SHAPES)
    assert mod.Before.orch.lower(a, a) == before


def expect(load, body, cls, needle, message=None, lower=True):
    mod, path = load(body)
    args = (torch.zeros(256, 128), torch.zeros(256, 128))
    with pytest.raises(cls) as e:
        (mod.k.lower if lower else mod.k)(*args)
    line, col = line_of(path, needle)
    assert str(e.value).startswith("%s:%d:%d: error: " % (path, line, col)), str(e.value)
    assert e.value.span["filename"] == path and (e.value.span["line"], e.value.span["column"]) == (line, col)
    if message is not None:
        assert e.value.message == message
    return e.value


def test_B03_static_out_of_bounds(load):
    e = expect(load, """
        @pl.jit
        def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(a, [200, 0], [64, 128])
                pl.store(t, [0, 0], out)
            return out
        """, InvalidOperationError, "200, 0]",
               "pl.load reads past the end of dimension 0: offset 200 + extent 64 exceeds the source extent 256.")
    assert e.hint == "pass clamp=True to cut the read at the tensor's edge"
    assert str(e).rstrip().endswith("hint: " + e.hint)


def test_B02_dtype_and_shape_mismatch(load):
    expect(load, """
        @pl.jit
        def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(a, [0, 0], [64, 128])
                u = pl.cast(t, pl.FP16)
                pl.store(pl.add(u, t), [0, 0], out)
            return out
        """, ParserTypeError, "pl.add(u, t)")
    e = expect(load, """
        @pl.jit
        def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(a, [0, 0], [64, 128])
                u = pl.load(a, [0, 0], [64, 64])
                pl.store(pl.add(t, u), [0, 0], out)
            return out
        """, InvalidOperationError, "pl.add(t, u)")
    assert "operand shapes" in e.message


def test_B02_shaped_annotation(load):
    mod, _ = load("""
        @pl.jit
        def k(a: pl.Tensor[[64, 128], pl.FP32], out: pl.Out[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.store(pl.load(a, [0, 0], [64, 128]), [0, 0], out)
            return out
        """)
    with pytest.raises(TypeError) as e:
        mod.k.lower(torch.zeros(32, 128), torch.zeros(64, 128))
    assert str(e.value) == "@pl.jit function 'k': argument 'a' has shape [32, 128] but its annotation requires [64, 128]"


@pytest.mark.parametrize("stmt,needle", [
    ("t = pl.spmd(4)", "pl.spmd"),
    ("f = lambda: 1", "lambda"),
])
def test_B07_unsupported(load, stmt, needle):
    e = expect(load, """
        @pl.jit
        def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            %s
            return out
        """ % stmt, UnsupportedFeatureError, needle)
    assert "is not supported" in e.message


def test_B07_break(load):
    e = expect(load, """
        @pl.jit
        def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            for i in pl.range(4):
                break
            return out
        """, UnsupportedFeatureError, "break")
    assert e.message == "Python 'break' is not supported in kernel code"


def test_B08_misplaced_tile_op(load):
    for lower in (True, False):
        expect(load, """
            @pl.jit
            def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
                t = pl.load(a, [0, 0], [64, 128])
                return out
            """, InvalidOperationError, "pl.load",
               "Misplaced tile op 'pl.load' in Orchestration function 'k' (should be inside InCore block)",
               lower=lower)


def test_B09_names(load):
    expect(load, """
        @pl.jit
        def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.store(pl.load(a, [0, 0], [64, nope]), [0, 0], out)
            return out
        """, UndefinedVariableError, "nope", "name 'nope' is not defined")
    expect(load, """
        @pl.jit
        def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.store(pl.lod(a, [0, 0], [64, 128]), [0, 0], out)
            return out
        """, UndefinedVariableError, "pl.lod", "pl.lod is not a pypto.language name")
    e = expect(load, """
        TABLE = {"rows": 64}

        @pl.jit
        def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.store(pl.load(a, [0, 0], [TABLE, 128]), [0, 0], out)
            return out
        """, ParserTypeError, "TABLE,")
    assert e.message == ("'TABLE' refers to a dict object, which kernel code cannot capture; "
                         "pass it as an argument")


def test_errors_are_parser_errors_and_pass_errors_are_value_errors():
    from pypto.language.parser import diagnostics as d
    assert issubclass(d.PassError, ValueError) and issubclass(d.PassError, ParserError)
    assert issubclass(d.CompileWarning, UserWarning) and pypto.CompileWarning is d.CompileWarning
    assert issubclass(pypto.InternalError, RuntimeError)


def test_C04_cache_without_runs(load):
    mod, _ = load("""
        SCALE = 2.0

        @pl.jit
        def k(a: pl.Tensor, out: pl.Out[pl.Tensor], s: pl.Scalar):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(a, [0, 0], [64, 128])
                pl.store(pl.mul(pl.mul(t, s), SCALE), [0, 0], out)
            return out
        """)
    a, out = torch.zeros(64, 128), torch.zeros(64, 128)
    k = mod.k
    k.lower(a, out, 2.0)
    k.lower(a, out, 3.0)
    assert k.cache_info() == (0, 2, 2)
    k.lower(a, out, 2.0)
    assert k.cache_info() == (1, 2, 2)
    k.lower(torch.zeros(128, 128), torch.zeros(128, 128), 2.0)  # new shape
    assert k.cache_info() == (1, 3, 3)
    k.lower(a, out, 2.0, config=RunConfig(ring_heap=2**20, enable_scope_stats=True))  # not in the key
    assert k.cache_info() == (2, 3, 3)
    k.lower(a, out, 2.0, config=RunConfig(platform="a5sim"))  # platform: new key
    assert k.cache_info() == (2, 4, 4)
    k.lower(a, out, 2)  # int 2 is not float 2.0
    assert k.cache_info() == (2, 5, 5)
    mod.SCALE = 3.0  # a rebound module constant is a new key, and its value is used
    text = k.lower(a, out, 2.0)
    assert k.cache_info() == (2, 6, 6) and "3.0" in text
    k(a, out, 2.0)  # a call reuses lower()'s compilation
    assert k.cache_info() == (3, 6, 6)
    k.cache_clear()
    assert k.cache_info() == (0, 0, 0)


def test_compile_warning_reissued(load):
    mod, path = load("""
        @pl.jit
        def k(w: pl.Tensor, out: pl.Out[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.set_cache_policy(w, pl.CachePolicy.BYPASS)
                t = pl.load(w, [0, 0], [64, 128])
                pl.store(t, [0, 0], out)
            return out
        """)
    a = torch.zeros(64, 128)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        mod.k.lower(a, a)
        mod.k.lower(a, a)  # cached: no second warning
    got = [x for x in w if issubclass(x.category, pypto.CompileWarning)]
    assert len(got) == 1
    assert got[0].filename == path and got[0].lineno == line_of(path, "pl.load(w")[0]


def test_program_as_python_round_trip(load):
    """The pre-pass text, as written; the rest of the round trip: test_round_trip.py."""
    import pathlib
    src = (pathlib.Path(__file__).resolve().parents[2] / "examples" / "dsl" / "orch_program.py").read_text()
    mod, _ = load(src, header="")
    pre = mod.Before.as_python()
    assert "for i in pl.range(4):" in pre and "auto_scope=False" not in pre  # before the passes
    assert "def orch(self, a, out):" in pre  # as written: no shapes, no directions
    assert pl.parse_program(pre).as_python() == pre


def test_nested_kernel_errors_point_into_the_file(load):
    """A kernel defined inside a function is compiled from its file (the line of
    its definition picks it); its diagnostics give the file's line and column."""
    mod, path = load("""
        def make():
            @pl.jit
            def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
                with pl.at(level=pl.Level.CORE_GROUP):
                    t = pl.lod(a, [0, 0], [64, 128])
                return out
            return k
        """)
    from pypto.language.parser.diagnostics import UndefinedVariableError
    with pytest.raises(UndefinedVariableError) as e:
        mod.make().lower(torch.zeros(256, 128), torch.zeros(256, 128))
    line, col = line_of(path, "pl.lod")
    assert str(e.value).startswith("%s:%d:%d: error: pl.lod is not a pypto.language name" % (path, line, col)), str(e.value)
    assert (e.value.span["line"], e.value.span["column"]) == (line, col)
