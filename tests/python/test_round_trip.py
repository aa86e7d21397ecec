"""The round trip (docs/dsl.md, "What the compiler does"): lower(parse_program(lower(P))) is
lower(P) byte for byte and the parsed program runs to the same numbers, for
every program here: the seed kernels, the Memory page's program, the run
tests' program, and programs with Opaque helpers (promoted: the printed
program has two Orchestration functions), Inline helpers (whose substituted
constants fold as written ones do), several kernels and scalars.  And
Prog.as_python(): the program as written, needing no arguments, which is the
same program again."""
import pathlib

import numpy as np
import pytest
import torch

import pypto.language as pl

import memory_page as seed

ROOT = pathlib.Path(__file__).resolve().parents[2]

HELPERS = """
SCALE = 3.0
N = 2

@pl.program
class Opaque:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a, o: pl.InOut[pl.Tensor], s: pl.Scalar):
        t = pl.load(o, [0, 0], [4, 8])
        pl.store(pl.add(t, pl.mul(pl.load(a, [0, 0], [4, 8]), s)), [0, 0], o)
        return o

    @pl.function(type=pl.FunctionType.Inline)
    def twice(self, x):
        return x * 2

    @pl.function
    def helper(self, a, o, n):
        for i in pl.range(n):
            o = self.k(a, o, self.twice(SCALE))
        return o

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor, o: pl.InOut[pl.Tensor], n: pl.Scalar):
        o = self.helper(a, o, n)
        o = self.k(s=1.0, o=o, a=a)
        return o

@pl.program
class Inlines:
    @pl.function(type=pl.FunctionType.Inline)
    def scaled(self, t, s):
        return pl.mul(t, s * 2 - 1)

    @pl.function(type=pl.FunctionType.Inline)
    def neg_twice(self, x):
        return -x * 2 + x / 4

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a, o: pl.Out[pl.Tensor]):
        t = pl.load(a, [0, 0], [4, 8])
        pl.store(self.scaled(t, self.neg_twice(SCALE)), [0, 0], o)
        return o

    @pl.function(type=pl.FunctionType.Inline)
    def repeat(self, a, o, m):
        for i in pl.range(m):
            o = self.k(a, o)
        return o

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a, o, m: pl.Scalar):
        o = self.repeat(a, o, m + 1)
        return o

@pl.program
class Kernels:
    @pl.function(type=pl.FunctionType.InCore)
    def add(self, a, b, o: pl.Out[pl.Tensor]):
        pl.store(pl.add(pl.load(a, [0, 0], [4, 8]), pl.load(b, [0, 0], [4, 8])), [0, 0], o)
        return o

    @pl.function(type=pl.FunctionType.InCore)
    def scale(self, a, o: pl.InOut[pl.Tensor], f: pl.Scalar[pl.FP32]):
        pl.store(pl.add(pl.load(o, [0, 0], [4, 8]), pl.mul(pl.load(a, [0, 0], [4, 8]), f)), [0, 0], o)
        return o

    @pl.function(type=pl.FunctionType.Opaque, auto_scope=False)
    def rows(self, a, o, f):
        with pl.scope():
            for i in pl.range(N):
                with pl.at(level=pl.Level.CORE_GROUP):
                    t = pl.load(a, [i * 2, 0], [2, 8])
                    pl.store(pl.mul(t, f), [i * 2, 0], o)
        return o

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a, b, o, f: pl.Scalar[pl.FP32], n: pl.Scalar):
        tmp = pl.create_tensor([4, 8], pl.FP32)
        tmp = self.add(a, b, tmp)
        for i in pl.range(n):
            o = self.scale(tmp, o, f * 0.5 + i)
        o = self.rows(tmp, o, f + 1.0)
        with pl.at(level=pl.Level.CORE_GROUP):
            x = pl.load(o, [0, 0], [4, 8])
            pl.store(pl.add(x, x), [0, 0], o)
        return o

@pl.jit.incore
def bump(x: pl.Tensor, y: pl.InOut[pl.Tensor], s: pl.Scalar[pl.FP32]):
    pl.store(pl.add(pl.load(y, [0, 0], [4, 8]), pl.mul(pl.load(x, [0, 0], [4, 8]), s)), [0, 0], y)
    return y

@pl.jit.inline
def third(v):
    return v / 3.0

@pl.jit.opaque
def steps(x, y, s):
    for j in pl.range(2):
        y = bump(x, y, third(s) - 1)
    return y

@pl.jit
def entry(a: pl.Tensor, out: pl.InOut[pl.Tensor], s: pl.Scalar[pl.FP32]):
    out = bump(a, out, 2.0)
    out = steps(a, out, s)
    return out
"""

R20 = """
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a, out: pl.InOut[pl.Tensor]):
        pl.store(pl.add(pl.load(out, [0, 0], [64, 128]), pl.load(a, [0, 0], [64, 128])), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def orch(self, a, out):
        for i in pl.range(2):
            out = self.kernel(a, out)
        return out
"""

rng = np.random.default_rng(7)
A4 = rng.random((4, 8), dtype=np.float32)
B4 = rng.random((4, 8), dtype=np.float32)
A256 = torch.randn(256, 128)
A64 = torch.randn(64, 128)


def zeros(shape):
    return np.zeros(shape, np.float32)


# name -> (source: "helpers" / "r20" / "orch" / "seed", object name, fresh arguments, index of the output)
PROGRAMS = {
    "opaque_helper": ("helpers", "Opaque", lambda: (A4, zeros((4, 8)), 2), 1),
    "inline_helpers": ("helpers", "Inlines", lambda: (A4, zeros((4, 8)), 2), 1),
    "several_kernels_and_scalars": ("helpers", "Kernels", lambda: (A4, B4, zeros((4, 8)), 1.5, 3), 2),
    "jit_with_opaque_and_inline": ("helpers", "entry", lambda: (A4, zeros((4, 8)), 1.5), 1),
    "seed_manual_placement": ("seed", "manual_placement", lambda: (seed.A, torch.zeros(256, 128)), 1),
    "seed_scaled": ("seed", "scaled", lambda: (seed.A, torch.zeros(256, 128)), 1),
    "orch_program_before": ("orch", "Before", lambda: (A256, torch.zeros(256, 128)), 1),
    "orch_program_after": ("orch", "After", lambda: (A256, torch.zeros(256, 128)), 1),
    "run_tests_program": ("r20", "P", lambda: (A64, torch.zeros(64, 128)), 1),
}


@pytest.fixture
def program(load):
    """program(name) -> (the kernel or program object, make_args, output index)."""
    loaded = {}

    def get(name):
        where, obj, make_args, out = PROGRAMS[name]
        if where == "seed":
            return getattr(seed, obj), make_args, out
        if where not in loaded:
            if where == "orch":
                loaded[where] = load((ROOT / "examples" / "dsl" / "orch_program.py").read_text(), header="")[0]
            else:
                loaded[where] = load(HELPERS if where == "helpers" else R20)[0]
        return getattr(loaded[where], obj), make_args, out
    return get


def same(x, y):
    return torch.equal(x, y) if isinstance(x, torch.Tensor) else np.array_equal(x, y)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_round_trip_law_holds(program, name):
    kernel, make_args, out = program(name)
    text = kernel.lower(*make_args())
    parsed = pl.parse_program(text)
    assert parsed.lower(*make_args()) == text
    first, again = make_args(), make_args()
    kernel(*first)
    parsed(*again)
    assert same(first[out], again[out]) and float(abs(first[out]).sum()) > 0


def test_round_trip_law_holds_with_opaque_helper(program):
    prog, make_args, _ = program("opaque_helper")
    text = prog.lower(*make_args())
    assert text.count("type=pl.FunctionType.Orchestration") == 2  # main and the promoted helper
    parsed = pl.parse_program(text)
    assert parsed.lower(*make_args()) == text and parsed.main.lower(*make_args()) == text
    first, again = make_args(), make_args()
    prog(*first)
    assert parsed(*again) is None
    np.testing.assert_array_equal(again[1], first[1])
    np.testing.assert_allclose(first[1], A4 * 13.0, rtol=1e-6)  # 2 * (3.0 * 2) + 1


def test_round_trip_law_holds_with_several_orchestration_functions_written(load):
    """A program written with two Orchestration functions, one calling the other,
    runs the one no other method calls, as its compile does (ptoc, docs/dsl.md, "Decorators and function kinds");
    two that no method calls: P(...) says how many there are."""
    mod, _ = load("""
        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, a, o: pl.InOut[pl.Tensor]):
                pl.store(pl.add(pl.load(o, [0, 0], [4, 8]), pl.load(a, [0, 0], [4, 8])), [0, 0], o)
                return o

            @pl.function(type=pl.FunctionType.Orchestration)
            def inner(self, a, o):
                o = self.k(a, o)
                return o

            @pl.function(type=pl.FunctionType.Orchestration)
            def outer(self, a, o):
                o = self.inner(a, o)
                o = self.k(a, o)
                return o

        @pl.program
        class Two:
            @pl.function(type=pl.FunctionType.Orchestration)
            def f(self, a, o):
                return o

            @pl.function(type=pl.FunctionType.Orchestration)
            def g(self, a, o):
                return o
        """)
    o = zeros((4, 8))
    mod.P(A4, o)
    np.testing.assert_allclose(o, 2 * A4)
    assert pl.parse_program(mod.P.lower(A4, o)).lower(A4, o) == mod.P.lower(A4, o) == mod.P.outer.lower(A4, o)
    for call in (mod.Two, mod.Two.lower):
        with pytest.raises(TypeError) as e:
            call(A4, o)
        assert str(e.value) == "program 'Two' has 2 Orchestration functions; call one as Two.<name>(...)"


def test_lowering_folds_constants_an_inline_call_substituted(program):
    """`x * 2` inlined with x = 3.0 prints 6.0, as `3.0 * 2` written does
    (the printed form folds constants): lowering prints the same text from the
    user's program as from its own output."""
    prog, make_args, _ = program("opaque_helper")
    text = prog.lower(*make_args())
    assert "twice_value = 6.0\n" in text and "3.0 * 2" not in text
    inl, make_args, _ = program("inline_helpers")
    text = inl.lower(*make_args())
    assert "neg_twice_value = -5.25\n" in text  # -3.0 * 2 + 3.0 / 4


# The Opaque program exactly as HELPERS writes it, with the one constant its code names.
AS_WRITTEN = "import pypto.language as pl\n\nSCALE = 3.0\n\n" + HELPERS[HELPERS.index("@pl.program\nclass Opaque"):
                                                                      HELPERS.index("@pl.program\nclass Inlines")].rstrip("\n") + "\n"


def test_as_python_needs_no_arguments_bare_tensors(program):
    """Bare pl.Tensor, unannotated and pl.Scalar parameters: as_python() takes no
    arguments and prints the program as written (nothing specialized, no shapes
    invented), with the constant its code names."""
    prog, _, _ = program("opaque_helper")
    text = prog.as_python()
    assert isinstance(text, pl.ProgramText) and text.as_python() is text
    assert text == AS_WRITTEN
    with pytest.raises(TypeError):
        prog.as_python(A4, zeros((4, 8)), 2)


@pytest.mark.parametrize("name", sorted(n for n, p in PROGRAMS.items() if p[0] != "seed" and p[1] != "entry"))
def test_as_python_needs_no_arguments_and_is_the_same_program(program, name):
    """parse_program(P.as_python()) is P: it prints the same, lowers the same and
    runs to the same numbers."""
    prog, make_args, out = program(name)
    text = prog.as_python()
    parsed = pl.parse_program(text)
    assert parsed.as_python() == text
    assert parsed.lower(*make_args()) == prog.lower(*make_args())
    first, again = make_args(), make_args()
    prog(*first)
    parsed(*again)
    assert same(first[out], again[out])
