"""Loop forms and explicit carries (DSL-V2-SPEC §6; docs/dsl.md, "Loops and carries"),
rows P3-01 .. P3-06 of §12: pl.unroll (expanded: one task per copy, no per-trip scope),
pl.parallel and pl.pipeline (pl.range's results and scopes, printed as written),
init_values= carries of every kind, if/else yields as a phi, pl.while_ with pl.cond;
every error text at its construct, the printed forms and the round trip."""
import numpy as np
import pytest
import torch

import pypto.language as pl
from pypto.language.parser.diagnostics import ParserSyntaxError, ParserTypeError, UnsupportedFeatureError
from pypto.runtime import RunConfig

import run_stats
from conftest import line_of

HEADER = "import pypto.language as pl\nROWS = 256\nSMALL = 64\n"

# one kernel per loop form around a pl.at: {head} is the for header
TASKS = """
@pl.jit
def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    {head}:
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(a, [i * SMALL, 0], [SMALL, 128])
            pl.store(pl.add(pl.mul(t, 2.0), 1.0), [i * SMALL, 0], out)
    return out
"""


def tasks(load, head):
    return load(TASKS.replace("{head}", head), header=HEADER)


def run_with_stats(fn, tmp_path, *args):
    fn(*args, config=RunConfig(enable_scope_stats=True, save_kernels_dir=str(tmp_path)))
    return [(site.rsplit(":", 1)[-1], ring, n) for site, ring, n in run_stats.read(tmp_path)[1] if site != "(root):0"]


def error_at(load, body, cls, text, needle, nth=0, args=None, header=HEADER):
    """Compiling body raises cls with text at the 1-based column of needle (its nth line)."""
    mod, path = load(body, header=header)
    with pytest.raises(cls) as e:
        mod.k.lower(*(args or (torch.zeros(256, 128), torch.zeros(256, 128))))
    line, col = line_of(path, needle, nth)
    assert str(e.value).startswith("%s:%d:%d: error: %s" % (path, line, col, text)), str(e.value)
    return e.value


# ---- P3-01 pl.unroll ----------------------------------------------------------------------

def test_P3_01_unroll_one_task_per_copy_in_the_enclosing_ring(load, tmp_path):
    mod, path = tasks(load, "for i in pl.unroll(ROWS // SMALL)")
    a, out = torch.randn(256, 128), torch.zeros(256, 128)
    scopes = run_with_stats(mod.k, tmp_path, a, out)
    torch.testing.assert_close(out, a * 2 + 1)
    # no per-trip scope: the function's one scope (ring 0) holds the four tasks
    assert [s[1:] for s in scopes] == [(0, 4)], scopes
    text = mod.k.lower(a, out)
    assert "for " not in text
    for k in range(4):  # one kernel per copy, in copy order, the variable a constant
        assert "def k_incore_%d(" % k in text
        assert "pl.load(a, [%d, 0], [64, 128]" % (k * 64) in text
    assert pl.parse_program(text).lower(a, out) == text


def test_P3_01_range_has_a_scope_per_trip(load, tmp_path):
    mod, _ = tasks(load, "for i in pl.range(ROWS // SMALL)")
    a, out = torch.randn(256, 128), torch.zeros(256, 128)
    scopes = run_with_stats(mod.k, tmp_path, a, out)
    torch.testing.assert_close(out, a * 2 + 1)
    # one scope per trip (ring 1, one task each) inside the function's (ring 0, none of its own)
    assert [s[1:] for s in scopes] == [(1, 1)] * 4 + [(0, 0)], scopes


def test_P3_01_unroll_printed_as_written(load):
    mod, _ = load("""
@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def k(self, a: pl.Tensor, out: pl.Out[pl.Tensor]):
        for i in pl.unroll(0, ROWS // SMALL, 1):
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.store(pl.load(a, [i * SMALL, 0], [SMALL, 128]), [i * SMALL, 0], out)
        return out
""", header=HEADER)
    text = mod.P.as_python()
    assert "        for i in pl.unroll(0, ROWS // SMALL, 1):\n" in text
    assert pl.parse_program(text).as_python() == text


def test_P3_01_unroll_in_kernel_code_and_negative_step(load):
    mod, _ = load("""
@pl.jit
def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        for i in pl.unroll(3, -1, -1):
            t = pl.load(a, [i * 16, 0], [16, 32])
            pl.store(pl.mul(t, i + 1.0), [i * 16, 0], out)
    return out
""")
    a, out = torch.randn(64, 32), torch.zeros(64, 32)
    mod.k(a, out)
    want = a.clone()
    for i in range(4):
        want[i * 16:(i + 1) * 16] *= i + 1.0
    torch.testing.assert_close(out, want)
    text = mod.k.lower(a, out)
    assert "pl.range" not in text and "pl.load(a, [48, 0], [16, 32]" in text


@pytest.mark.parametrize("head,cls,text,needle", [
    ("for i in pl.unroll(n)", ParserSyntaxError, "pl.unroll() requires compile-time constant integer bounds", "pl.unroll"),
    ("for i in pl.unroll(0, 4, 0)", ParserSyntaxError, "pl.unroll() step cannot be zero", "pl.unroll"),
    ("for i, (c,) in pl.unroll(4, init_values=(0,))", ParserSyntaxError, "pl.unroll() cannot be combined with init_values",
     "pl.unroll"),
    ("for i in pl.unroll(5000)", UnsupportedFeatureError, "pl.unroll() would make 5000 copies; at most 4096 are supported",
     "pl.unroll"),
    ("for i in pl.unroll(4097)", UnsupportedFeatureError, "pl.unroll() would make 4097 copies; at most 4096 are supported",
     "pl.unroll"),
    ("for i in pl.unroll(0, 8194, 2)", UnsupportedFeatureError, "pl.unroll() would make 4097 copies; at most 4096 are supported",
     "pl.unroll"),
    ("for i in pl.unroll(4, stage=2)", ParserSyntaxError, "stage= is only supported on pl.pipeline(), not pl.unroll()", "stage"),
    ("for i in pl.unroll()", ParserSyntaxError, "pl.unroll() requires at least 1 argument (stop)", "pl.unroll"),
    ("for i in pl.unroll(1, 2, 3, 4)", ParserSyntaxError, "pl.unroll() takes 1 to 3 positional arguments, got 4", "pl.unroll"),
    ("for i in pl.unroll(4, foo=1)", ParserSyntaxError, "Unknown keyword argument 'foo' in pl.unroll()", "foo"),
])
def test_P3_01_unroll_error_texts(load, head, cls, text, needle):
    body = """
@pl.jit
def k(a: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar[pl.INDEX]):
    {head}:
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.store(pl.load(a, [0, 0], [16, 128]), [0, 0], out)
    return out
""".replace("{head}", head)
    error_at(load, body, cls, text, needle, args=(torch.zeros(256, 128), torch.zeros(256, 128), 4))


def test_P3_01_unroll_of_a_runtime_loop_variable_is_refused(load):
    error_at(load, """
@pl.jit
def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    for j in pl.range(2):
        for i in pl.unroll(j):
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.store(pl.load(a, [0, 0], [16, 128]), [0, 0], out)
    return out
""", ParserSyntaxError, "pl.unroll() requires compile-time constant integer bounds", "pl.unroll")


def test_P3_01_unroll_at_most_4096_copies_compile(load):
    mod, _ = load("""
@pl.jit
def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(a, [0, 0], [8, 8])
        for i in pl.unroll(4096):
            t = pl.add(t, 1.0)
        pl.store(t, [0, 0], out)
    return out
""")
    a, out = torch.zeros(8, 8), torch.zeros(8, 8)
    mod.k(a, out)
    torch.testing.assert_close(out, torch.full((8, 8), 4096.0))


# ---- P3-02 pl.parallel ----------------------------------------------------------------------

def test_P3_02_parallel_is_range_results_and_stats(load, tmp_path):
    par, _ = tasks(load, "for i in pl.parallel(ROWS // SMALL)")
    rng, _ = tasks(load, "for i in pl.range(ROWS // SMALL)")
    a = torch.randn(256, 128)
    got, want = torch.zeros(256, 128), torch.zeros(256, 128)
    s_par = run_with_stats(par.k, tmp_path / "par", a, got)
    s_rng = run_with_stats(rng.k, tmp_path / "rng", a, want)
    assert torch.equal(got, want) and torch.equal(got, a * 2 + 1)
    assert [x[1:] for x in s_par] == [x[1:] for x in s_rng]


def test_P3_02_parallel_printed_as_written_and_round_trip(load):
    mod, _ = tasks(load, "for i in pl.parallel(1, 4)")
    a, out = torch.zeros(256, 128), torch.zeros(256, 128)
    text = mod.k.lower(a, out)
    assert "for i in pl.parallel(1, 4):\n" in text
    assert pl.parse_program(text).lower(a, out) == text


# ---- P3-03 pl.pipeline -----------------------------------------------------------------------

def test_P3_03_pipeline_is_range(load, tmp_path):
    pipe, _ = tasks(load, "for i in pl.pipeline(ROWS // SMALL, stage=2)")
    rng, _ = tasks(load, "for i in pl.range(ROWS // SMALL)")
    a = torch.randn(256, 128)
    got, want = torch.zeros(256, 128), torch.zeros(256, 128)
    s_pipe = run_with_stats(pipe.k, tmp_path / "pipe", a, got)
    s_rng = run_with_stats(rng.k, tmp_path / "rng", a, want)
    assert torch.equal(got, want) and torch.equal(got, a * 2 + 1)
    assert [x[1:] for x in s_pipe] == [x[1:] for x in s_rng]
    text = pipe.k.lower(a, got)
    assert "for i in pl.pipeline(4, stage=2):\n" in text
    assert pl.parse_program(text).lower(a, got) == text


@pytest.mark.parametrize("head,text,needle", [
    ("for i in pl.pipeline(4)", "pl.pipeline() requires stage= (positive integer)", "pl.pipeline"),
    ("for i in pl.pipeline(4, stage=n)", "pl.pipeline() stage must be a compile-time constant integer", "pl.pipeline"),
    ("for i in pl.pipeline(4, stage=0)", "pl.pipeline() stage must be >= 1, got 0", "pl.pipeline"),
    ("for i in pl.pipeline(4, stage=1 - 3)", "pl.pipeline() stage must be >= 1, got -2", "pl.pipeline"),
    ("for i in pl.range(4, stage=2)", "stage= is only supported on pl.pipeline(), not pl.range()", "stage"),
    ("for i in pl.parallel(4, stage=2)", "stage= is only supported on pl.pipeline(), not pl.parallel()", "stage"),
    ("for i in pl.pipeline(stage=2)", "pl.pipeline() requires at least 1 argument (stop)", "pl.pipeline"),
    ("for i in pl.parallel(1, 2, 3, 4)", "pl.parallel() takes 1 to 3 positional arguments, got 4", "pl.parallel"),
    ("for i in pl.parallel(4, foo=1)", "Unknown keyword argument 'foo' in pl.parallel()", "foo"),
    ("for i in pl.parallel(0, 4, 0)", "pl.parallel() step must be non-zero", "0)"),
    ("for i in [1, 2]", "for loops must iterate over pl.range(...), pl.parallel(...), pl.pipeline(...), pl.unroll(...) or "
                        "pl.while_(...)", "[1, 2]"),
])
def test_P3_03_loop_form_error_texts(load, head, text, needle):
    body = """
@pl.jit
def k(a: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar[pl.INDEX]):
    {head}:
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.store(pl.load(a, [0, 0], [16, 128]), [0, 0], out)
    return out
""".replace("{head}", head)
    mod, path = load(body, header=HEADER)
    with pytest.raises(ParserSyntaxError) as e:
        mod.k.lower(torch.zeros(256, 128), torch.zeros(256, 128), 4)
    line, col = line_of(path, head)
    col = open(path).read().splitlines()[line - 1].rindex(needle) + 1 if needle == "0)" else \
        open(path).read().splitlines()[line - 1].index(needle) + 1
    assert str(e.value).startswith("%s:%d:%d: error: %s" % (path, line, col, text)), str(e.value)


def test_P3_03_unknown_keyword_lists_the_supported_ones(load):
    e = error_at(load, """
@pl.jit
def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    for i in pl.pipeline(4, stage=2, depth=3):
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.store(pl.load(a, [0, 0], [16, 128]), [0, 0], out)
    return out
""", ParserSyntaxError, "Unknown keyword argument 'depth' in pl.pipeline()", "depth")
    assert e.hint == "Supported keywords for pl.pipeline(): init_values, stage"


# ---- P3-04 init_values carries -------------------------------------------------------------------

CARRIES = """
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor, out: pl.InOut[pl.Tensor], n: pl.Scalar[pl.INDEX]):
        x = pl.load(a, [0, 0], [16, 32])
        for i, (acc, s) in pl.range(n, init_values=(x, 0)):
            acc2 = pl.add(acc, pl.load(a, [0, 0], [16, 32]))
            acc_out, s_out = pl.yield_(acc2, s + i)
        pl.store(pl.add(acc_out, s_out * 1.0), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor, out: pl.InOut[pl.Tensor], n: pl.Scalar[pl.INDEX]):
        o0, t0 = pl.submit(self.k, a, out, n)
        for j, (o, tid) in pl.range(2, init_values=(o0, t0)):
            o2, t2 = pl.submit(self.k, a, o, n, deps=[tid])
            out, t_out = pl.yield_(o2, t2)
        return out
"""


def carries_want(a, n):
    one = a.clone()
    for i in range(n):
        one = one + a
    return one + sum(range(n))


@pytest.mark.parametrize("n", [0, 1, 3])
def test_P3_04_carries_of_every_kind(load, n):
    mod, _ = load(CARRIES)
    a = torch.randn(16, 32)
    out = torch.zeros(16, 32)
    mod.P(a, out, n)  # three tasks, each overwriting out with the same values
    torch.testing.assert_close(out, carries_want(a, n))


def test_P3_04_printed_form_kept_and_round_trip(load):
    mod, _ = load(CARRIES)
    a, out = torch.randn(16, 32), torch.zeros(16, 32)
    text = mod.P.lower(a, out, 3)
    assert "for i, (acc, s) in pl.range(n, init_values=(x, 0)):\n" in text
    assert "acc_out, s_out = pl.yield_(acc2, s + i)\n" in text
    assert "for j, (o, tid) in pl.range(2, init_values=(o0, t0)):\n" in text
    q = pl.parse_program(text)
    assert q.lower(a, out, 3) == text
    got = torch.zeros(16, 32)
    q(a, got, 3)
    torch.testing.assert_close(got, carries_want(a, 3))
    written = mod.P.as_python()
    assert "for i, (acc, s) in pl.range(n, init_values=(x, 0)):" in written
    assert pl.parse_program(written).as_python() == written


def test_P3_04_implicit_rebinding_printed_as_written(load):
    mod, _ = load("""
@pl.jit
def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(a, [0, 0], [16, 32])
        for i in pl.range(3):
            t = pl.add(t, 1.0)
        pl.store(t, [0, 0], out)
    return out
""")
    a, out = torch.randn(16, 32), torch.zeros(16, 32)
    text = mod.k.lower(a, out)
    assert "pl.yield_" not in text and "init_values" not in text
    mod.k(a, out)
    torch.testing.assert_close(out, a + 3)


def test_P3_04_single_carry_and_tensor_level_value(load):
    mod, _ = load("""
@pl.jit
def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        x = pl.slice(a, [16, 32], [0, 0])
        for i, (c,) in pl.range(1, 4, init_values=(x,)):
            r = pl.yield_(pl.mul(c, 2.0))
        pl.store(r, [0, 0], out)
    return out
""")
    a, out = torch.randn(16, 32), torch.zeros(16, 32)
    mod.k(a, out)
    torch.testing.assert_close(out, a * 8)
    text = mod.k.lower(a, out)
    assert "for i, (c,) in pl.range(1, 4, init_values=(x,)):\n" in text
    assert pl.parse_program(text).lower(a, out) == text


CARRY_ERR = """
@pl.jit
def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        x = pl.load(a, [0, 0], [16, 32])
        {loop}
            y = pl.add(c, 1.0)
            {yield_}
        pl.store(r, [0, 0], out)
    return out
"""


@pytest.mark.parametrize("loop,yield_,cls,text,needle", [
    ("for i in pl.range(4, init_values=(x,)):", "r = pl.yield_(y)", ParserSyntaxError,
     "For loop target must be a tuple when init_values is provided", "i in"),
    ("for i, (c, d) in pl.range(4, init_values=(x,)):", "r = pl.yield_(y)", ParserSyntaxError,
     "Mismatch: 2 iter_args but 1 init_values", "(c, d)"),
    ("for i, c in pl.range(4, init_values=(x,)):", "r = pl.yield_(y)", ParserSyntaxError, "Iter args must be a tuple", "c in"),
    ("for i, (c,) in pl.range(4, init_values=x):", "r = pl.yield_(y)", ParserSyntaxError, "init_values must be a list or tuple",
     "x):"),
    ("for i, (c,) in pl.range(4, init_values=(x,)):", "r = y", ParserSyntaxError,
     "a loop with init_values must end with pl.yield_(...)", "r = y"),
    ("for i, (c,) in pl.range(4, init_values=(x,)):", "r, q = pl.yield_(y, y)", ParserSyntaxError,
     "pl.yield_ yields 2 value(s) but the loop carries 1", "pl.yield_"),
    ("for i, (c,) in pl.parallel(4, init_values=(x,)):", "r = pl.yield_(pl.cast(y, pl.FP16))", ParserTypeError,
     "'c' changes from pl.Tile[[16, 32], pl.FP32] to pl.Tile[[16, 32], pl.FP16] across a loop or branch merge", "pl.cast"),
    ("for i, (c,) in pl.pipeline(4, stage=2, init_values=(x,)):", "r = pl.yield_(1.0)", ParserTypeError,
     "'c' changes from pl.Tile[[16, 32], pl.FP32] to pl.Scalar[pl.FP32] across a loop or branch merge", "1.0)"),
])
def test_P3_04_carry_error_texts(load, loop, yield_, cls, text, needle):
    body = CARRY_ERR.replace("{loop}", loop).replace("{yield_}", yield_)
    error_at(load, body, cls, text, needle, nth=1 if needle == "1.0)" else 0, args=(torch.zeros(16, 32), torch.zeros(16, 32)))


def test_P3_04_carries_out_of_scope_after_the_loop(load):
    mod, path = load("""
@pl.jit
def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        x = pl.load(a, [0, 0], [16, 32])
        for i, (c,) in pl.range(4, init_values=(x,)):
            r = pl.yield_(pl.add(c, 1.0))
        pl.store(c, [0, 0], out)
    return out
""")
    with pytest.raises(Exception) as e:
        mod.k.lower(torch.zeros(16, 32), torch.zeros(16, 32))
    line, col = line_of(path, "pl.store(c")
    assert "%s:%d:%d: error:" % (path, line, col + len("pl.store(")) in str(e.value), str(e.value)


# ---- P3-05 if/else yields -------------------------------------------------------------------------

def test_P3_05_if_else_yields_a_phi_inside_a_carried_loop(load):
    mod, _ = load("""
@pl.jit
def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        x = pl.load(a, [0, 0], [16, 32])
        for i, (c,) in pl.range(5, init_values=(x,)):
            if i % 2 == 0:
                u = pl.yield_(pl.add(c, 1.0))
            else:
                u = pl.yield_(pl.mul(c, 2.0))
            r = pl.yield_(u)
        if r is_big:
            pass
        pl.store(r, [0, 0], out)
    return out
""".replace("        if r is_big:\n            pass\n", ""))
    a, out = torch.randn(16, 32), torch.zeros(16, 32)
    mod.k(a, out)
    want = a.clone()
    for i in range(5):
        want = want + 1 if i % 2 == 0 else want * 2
    torch.testing.assert_close(out, want)
    text = mod.k.lower(a, out)
    assert "u = pl.yield_(pl.add(c, 1.0))\n" in text and "u = pl.yield_(pl.mul(c, 2.0))\n" in text
    assert pl.parse_program(text).lower(a, out) == text


def test_P3_05_phi_of_scalars_in_orchestration(load):
    mod, _ = load("""
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor, out: pl.Out[pl.Tensor], s: pl.Scalar[pl.FP32]):
        pl.store(pl.mul(pl.load(a, [0, 0], [16, 32]), s), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar[pl.INDEX]):
        if n > 2:
            s, t = pl.yield_(3.0, 1.0)
        else:
            s, t = pl.yield_(5.0, 2.0)
        out = self.k(a, out, s + t)
        return out
""")
    a = torch.randn(16, 32)
    for n, f in ((3, 4.0), (1, 7.0)):
        out = torch.zeros(16, 32)
        mod.P(a, out, n)
        torch.testing.assert_close(out, a * f)


@pytest.mark.parametrize("then,orelse,cls,text,needle", [
    ("u = pl.yield_(x)", None, ParserSyntaxError, "an if that yields needs an else branch", "if i"),
    ("u = pl.yield_(x)", "u, v = pl.yield_(x, x)", ParserSyntaxError,
     "both branches of an if must yield the same number of values (1 vs 2)", "u, v"),
    ("u = pl.yield_(x)", "u = x", ParserSyntaxError, "both branches of an if must yield the same number of values (1 vs 0)",
     "u = pl.yield_(x)"),
    ("u = pl.yield_(x)", "u = pl.yield_(pl.cast(x, pl.FP16))", ParserTypeError,
     "'u' changes from pl.Tile[[16, 32], pl.FP16] to pl.Tile[[16, 32], pl.FP32] across a loop or branch merge", "u = pl.yield_(pl.cast"),
])
def test_P3_05_phi_error_texts(load, then, orelse, cls, text, needle):
    arms = "            " + then + "\n" + ("        else:\n            " + orelse + "\n" if orelse else "")
    body = """
@pl.jit
def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        x = pl.load(a, [0, 0], [16, 32])
        for i in pl.range(2):
        if i > 0:
{arms}        pl.store(u, [0, 0], out)
    return out
""".replace("        for i in pl.range(2):\n        if i > 0:", "        i = 1\n        if i > 0:").replace("{arms}", arms)
    error_at(load, body, cls, text, needle, args=(torch.zeros(16, 32), torch.zeros(16, 32)))


def test_P3_05_yield_elsewhere_is_refused(load):
    error_at(load, """
@pl.jit
def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        x = pl.load(a, [0, 0], [16, 32])
        y = pl.yield_(x)
        pl.store(y, [0, 0], out)
    return out
""", ParserSyntaxError, "pl.yield_(...) must end a loop with init_values or an if/else branch", "pl.yield_",
        args=(torch.zeros(16, 32), torch.zeros(16, 32)))


# ---- P3-06 pl.while_ -----------------------------------------------------------------------------

WHILE = """
@pl.jit
def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(a, [0, 0], [16, 32])
        for (x, acc) in pl.while_(init_values=(0, t)):
            pl.cond(x < 10)
            x2, acc2 = pl.yield_(x + 1, pl.add(acc, 1.0))
        pl.store(pl.add(acc2, x2 * 1.0), [0, 0], out)
    return out
"""


def test_P3_06_while_counts_to_10(load):
    mod, _ = load(WHILE)
    a, out = torch.randn(16, 32), torch.zeros(16, 32)
    mod.k(a, out)
    torch.testing.assert_close(out, a + 20)
    text = mod.k.lower(a, out)
    assert "for (x, acc) in pl.while_(init_values=(0, t)):\n" in text and "pl.cond(x < 10)\n" in text
    assert pl.parse_program(text).lower(a, out) == text


def test_P3_06_while_zero_trips_keeps_the_initial_values(load):
    mod, _ = load(WHILE.replace("x < 10", "x > 10"))
    a, out = torch.randn(16, 32), torch.zeros(16, 32)
    mod.k(a, out)
    torch.testing.assert_close(out, a)


@pytest.mark.parametrize("loop,first,text,needle", [
    ("for (x,) in pl.while_(init_values=(0,)):", "y = x + 1\n            pl.cond(x < 10)",
     "pl.cond() must be the first statement of a pl.while_ body", "pl.cond"),
    ("for (x,) in pl.while_():", "pl.cond(x < 10)", "while_() requires init_values to be specified", "pl.while_"),
    ("for (x,) in pl.while_(init_values=(0,)):", "pl.cond(x < 10)\n            pl.cond(x < 5)",
     "pl.cond() must be the first statement of a pl.while_ body", "pl.cond(x < 5)"),
    ("for (x,) in pl.while_(init_values=(0,)):", "pl.cond(x < 10)\n            x3 = x",
     "a loop with init_values must end with pl.yield_(...)", "x3 = x"),
])
def test_P3_06_while_error_texts(load, loop, first, text, needle):
    body = """
@pl.jit
def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        {loop}
            {first}
            x2 = pl.yield_(x + 1)
        pl.store(pl.load(a, [0, 0], [16, 32]), [0, 0], out)
    return out
""".replace("{loop}", loop).replace("{first}", first)
    if "x3 = x" in first:
        body = body.replace("            x2 = pl.yield_(x + 1)\n", "")
    error_at(load, body, ParserSyntaxError, text, needle, args=(torch.zeros(16, 32), torch.zeros(16, 32)))


def test_P3_docs_loops_and_carries_example_compiles_and_runs(load):
    from conftest import docs_example
    mod = docs_example(load, "@pl.jit\ndef carried(")
    a, out = torch.randn(64, 32), torch.zeros(64, 32)
    mod.carried(a, out)
    torch.testing.assert_close(out, ((a + 1) * 2 + 1) + 3)
    text = mod.carried.lower(a, out)
    assert text.count("def carried_incore_") == 4 and "pl.pipeline(3, stage=2, init_values=(x, 0))" in text
    assert pl.parse_program(text).lower(a, out) == text


def test_P3_01_unroll_copy_that_assigns_its_variable(load):
    mod, _ = load("""
@pl.jit
def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(a, [0, 0], [8, 8])
        for i in pl.unroll(3):
            for j in pl.range(2):
                t = pl.add(t, i * 1.0)
                i = i + 1
        pl.store(t, [0, 0], out)
    return out
""")
    a, out = torch.zeros(8, 8), torch.zeros(8, 8)
    mod.k(a, out)
    torch.testing.assert_close(out, torch.full((8, 8), float(0 + 1 + 1 + 2 + 2 + 3)))
    text = mod.k.lower(a, out)
    assert pl.parse_program(text).lower(a, out) == text


ORCH_CARRIES = """
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor, out: pl.InOut[pl.Tensor]):
        pl.store(pl.add(pl.load(out, [0, 0], [8, 16]), pl.load(a, [0, 0], [8, 16])), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Inline)
    def twice(self, a, o):
        for j, (c,) in pl.parallel(2, init_values=(o,)):
            c2 = self.k(a, c)
            o = pl.yield_(c2)
        return o

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor, out: pl.InOut[pl.Tensor]):
        out = self.twice(a, out)
        for (m, c) in pl.while_(init_values=(0, out)):
            pl.cond(m < 3)
            c2 = self.k(a, c)
            m2, out = pl.yield_(m + 1, c2)
        return out
"""


def test_P3_02_parallel_and_while_carry_tensors_in_orchestration(load, tmp_path):
    mod, _ = load(ORCH_CARRIES)
    a, out = torch.randn(8, 16), torch.zeros(8, 16)
    scopes = run_with_stats(mod.P, tmp_path, a, out)
    torch.testing.assert_close(out, 5 * a)
    # pl.parallel: a scope per trip (ring 1); pl.while_: its three tasks in the function's scope (ring 0)
    assert [s[1:] for s in scopes] == [(1, 1), (1, 1), (0, 3)], scopes
    text = mod.P.lower(a, out)
    assert "for j, (c_twice,) in pl.parallel(2, init_values=(o,)):\n" in text  # inlined: renamed alike
    assert "for (m, c) in pl.while_(init_values=(0, out)):\n" in text
    q = pl.parse_program(text)
    assert q.lower(a, out) == text
    again = torch.zeros(8, 16)
    q(a, again)
    assert torch.equal(again, out)
