"""Decorators and the auto_scope matrix (docs/dsl.md, "Decorators and function kinds")."""
import pytest
import torch

import pypto.language as pl
from pypto.language.parser.diagnostics import ParserSyntaxError, UnsupportedFeatureError
from pypto.runtime import RunConfig

from conftest import line_of

INCORE_MSG = ("@pl.jit.%s does not accept an auto_scope= argument (auto_scope is only meaningful for the "
              "Orchestration entry, the HOST orchestrator, and inline sub-functions)")


def _f(a, out):
    return out


def t64():
    return torch.zeros(64, 128), torch.zeros(64, 128)


KERNEL = """
        @pl.jit.incore
        def body(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            t = pl.load(a, [0, 0], [64, 128])
            pl.store(t, [0, 0], out)
            return out
"""


def test_D01_jit_spellings():
    for k in (pl.jit(_f), pl.jit()(_f)):
        assert k.kind == "jit" and k.auto_scope is True
    assert pl.jit(auto_scope=False)(_f).auto_scope is False
    with pytest.raises(TypeError, match="unexpected keyword argument 'level'"):
        pl.jit(level=pl.Level.CORE_GROUP)
    with pytest.raises(TypeError) as e:
        pl.jit(auto_scope="no")
    assert str(e.value) == "auto_scope must be a bool, got str"


@pytest.mark.parametrize("flag", [False, True])
def test_D02_incore_rejects_auto_scope(flag):
    with pytest.raises(TypeError) as e:
        pl.jit.incore(auto_scope=flag)
    assert str(e.value) == INCORE_MSG % "incore"


def test_D03_opaque():
    with pytest.raises(TypeError) as e:
        pl.jit.opaque(auto_scope=False)
    assert str(e.value) == INCORE_MSG % "opaque"
    with pytest.raises(TypeError) as e:
        pl.jit.opaque(level=pl.Level.CORE_GROUP, auto_scope=False)
    assert str(e.value) == "@pl.jit.opaque does not accept a level= argument"
    assert pl.jit.opaque(_f).kind == "opaque" and pl.jit.opaque()(_f).kind == "opaque"


def test_D03_inline_and_host_level():
    for kind in ("inline", "host"):
        with pytest.raises(TypeError) as e:
            getattr(pl.jit, kind)(level=pl.Level.CORE_GROUP, auto_scope=False)
        assert str(e.value) == "@pl.jit.%s does not accept a level= argument" % kind
    with pytest.raises(TypeError, match="auto_scope must be a bool, got int"):
        pl.jit.inline(auto_scope=1)


def test_D04_inline_hand_scope_in_entry_lower(load):
    mod, _ = load("""
        @pl.jit.inline(auto_scope=False)
        def helper(a, out):
            with pl.scope():
                out = body(a, out)
            return out
        """ + KERNEL + """
        @pl.jit
        def entry(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            out = helper(a, out)
            return out
        """)
    text = mod.entry.lower(*t64())
    # The function body's scope (compiler) and the inline function's hand scope inside it.
    assert text.count("with pl.scope():") == 2
    assert "auto_scope=False" in text


def test_D05_host(load):
    for k in (pl.jit.host(_f), pl.jit.host()(_f), pl.jit.host(auto_scope=False)(_f)):
        assert k.kind == "host"
    with pytest.raises(TypeError, match="@pl.jit.host does not accept a level= argument"):
        pl.jit.host(level=pl.Level.HOST)
    mod, path = load("""
        @pl.jit.host
        def h(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            return out
        """)
    # DISTRIBUTED-SPEC §8: a host call runs at P = 1 without distributed_config; in place it returns None
    assert mod.h(*t64()) is None
    text = mod.h.lower(*t64())
    assert "@pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)" in text


def test_D06_incore_level(load):
    mod, path = load("""
        @pl.jit.incore(level=pl.Level.AIV)
        def body(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            t = pl.load(a, [0, 0], [64, 128])
            pl.store(t, [0, 0], out)
            return out

        @pl.jit
        def entry(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            out = body(a, out)
            return out
        """)  # decoration is fine; the first compile rejects the level
    with pytest.raises(UnsupportedFeatureError) as e:
        mod.entry(*t64())
    line, col = line_of(path, "pl.Level.AIV")
    assert str(e.value).startswith("%s:%d:%d: error: " % (path, line, col))
    mod, _ = load(KERNEL.replace("@pl.jit.incore", "@pl.jit.incore(level=pl.Level.CORE_GROUP)") + """
        @pl.jit
        def entry(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            out = body(a, out)
            return out
        """)
    assert "def body" in mod.entry.lower(*t64())


def test_D07_function_auto_scope(load):
    mod, path = load("""
        FLAG = True

        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.Orchestration, auto_scope=FLAG)
            def orch(self, a, out):
                return out
        """)
    with pytest.raises(ParserSyntaxError) as e:
        mod.P.lower(*t64())
    assert e.value.message == "`@pl.function(auto_scope=...)` must be a bool literal (True/False)"
    assert (e.value.span["line"], e.value.span["column"]) == line_of(path, "FLAG)")
    mod, path = load("""
        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.InCore, auto_scope=False)
            def k(self, a, out: pl.Out[pl.Tensor]):
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def orch(self, a, out):
                out = self.k(a, out)
                return out
        """)
    with pytest.raises(ParserSyntaxError) as e:
        mod.P.lower(*t64())
    assert e.value.message == ("@pl.function(type=pl.FunctionType.InCore) does not accept auto_scope= "
                               "(an InCore function has no orchestration body)")


def test_D08_reserved_config_and_direct_calls(load):
    def k(a, config):
        return a
    with pytest.raises(TypeError) as e:
        pl.jit(k)
    assert str(e.value) == "@pl.jit function 'k': parameter name 'config' is reserved"
    mod, _ = load(KERNEL)
    with pytest.raises(TypeError) as e:
        mod.body(*t64())
    assert str(e.value) == ("@pl.jit.incore function 'body' cannot be called directly; "
                            "call it from a @pl.jit entry")
    for kind in ("inline", "opaque"):
        with pytest.raises(TypeError, match="@pl.jit.%s function '_f' cannot be called directly" % kind):
            getattr(pl.jit, kind)(_f)(*t64())


def test_D08_program_functions_may_name_a_parameter_config(load):
    """Only a @pl.jit call consumes config=; a @pl.program function's parameter may be
    called config (upstream's paged-attention programs read a config tensor), passed by
    position, while config= stays the RunConfig."""
    mod, _ = load("""
        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, a: pl.Tensor[[64, 64], pl.FP32], config: pl.Tensor[[2], pl.INT32],
                  out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
                t = pl.load(a, [0, 0], [64, 64])
                pl.store(pl.add(t, 1.0), [0, 0], out)
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def orch(self, a: pl.Tensor[[64, 64], pl.FP32], config: pl.Tensor[[2], pl.INT32],
                     out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
                out = self.k(a, config, out)
                return out
        """)
    a, out = torch.randn(64, 64), torch.zeros(64, 64)
    mod.P(a, torch.zeros(2, dtype=torch.int32), out, config=RunConfig())
    assert torch.equal(out, a + 1)


def test_incore_may_return_its_store(load):
    """`return pl.store(tile, offsets, out)` in a kernel returns the tensor the store wrote."""
    mod, _ = load("""
        @pl.jit.incore
        def twice(a: pl.Tensor[[64, 128], pl.FP32], out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]):
            t = pl.load(a, [0, 0], [64, 128])
            return pl.store(pl.add(t, t), [0, 0], out)

        @pl.jit
        def entry(a: pl.Tensor[[64, 128], pl.FP32], out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]):
            out = twice(a, out)
            return out
        """)
    a, out = torch.randn(64, 128), torch.zeros(64, 128)
    mod.entry(a, out)
    assert torch.equal(out, a + a)
