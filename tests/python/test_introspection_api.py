"""DSL-V2-SPEC §2, I-fn (P4-08, P4-09, P4-11): prog.name, prog.functions,
get_function, Function members, as_python(prefix=, concise=) and the
round-trip law, ir.serialize / ir.deserialize; on lower() results, on
@pl.program classes (pre-pass) and on pl.parse results."""
import numpy as np
import pytest
import torch

import pypto.language as pl
from pypto import ir

import dsl_gen

KERNELS = """
@pl.program
class Prog:
    @pl.function(type=pl.FunctionType.InCore)
    def scale(self, a: pl.Tensor[[8, 16], pl.FP32], o: pl.Out[pl.Tensor[[8, 16], pl.FP32]], s: pl.Scalar[pl.FP32]) -> pl.Tensor[[8, 16], pl.FP32]:
        t: pl.Tile[[8, 16], pl.FP32] = pl.load(a, [0, 0], [8, 16])
        u: pl.Tile[[8, 16], pl.FP32] = pl.mul(t, s)
        o = pl.store(u, [0, 0], o)
        return o

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[8, 16], pl.FP32], o: pl.InOut[pl.Tensor[[8, 16], pl.FP32]]) -> pl.Tensor[[8, 16], pl.FP32]:
        o = self.scale(a, o, 2.0)
        with pl.at(level=pl.Level.CORE_GROUP):
            x: pl.Tile[[8, 16], pl.FP32] = pl.load(o, [0, 0], [8, 16])
            o = pl.store(pl.add(x, x), [0, 0], o)
        return o
"""


def _args():
    return torch.arange(128, dtype=torch.float32).reshape(8, 16), torch.zeros(8, 16)


def test_I_fn_lower_returns_an_ir_program_that_is_its_text(load):
    mod, _ = load(KERNELS)
    low = mod.Prog.lower(*_args())
    assert isinstance(low, ir.Program) and isinstance(low, str) and isinstance(low, pl.ProgramText)
    assert low.name == "Prog" and low.as_python() is low
    assert str(low).startswith("import pypto.language as pl\n\n@pl.program\nclass Prog:\n")


def test_I_fn_functions_sorted_with_outlined_kernels_and_members(load):
    mod, _ = load(KERNELS)
    low = mod.Prog.lower(*_args())
    fns = low.functions
    assert list(fns.keys()) == ["main", "main_incore_0", "scale"] and len(fns) == 3
    assert [f.name for f in fns.values()] == list(fns) and [k for k, _ in fns.items()] == list(fns)
    assert list(iter(fns)) == list(fns)
    with pytest.raises(TypeError):
        fns["x"] = None
    assert low.get_function("nope") is None
    sc = low.get_function("scale")
    assert sc is fns["scale"] and sc.func_type is pl.FunctionType.InCore
    assert fns["main"].func_type is pl.FunctionType.Orchestration
    assert fns["main_incore_0"].func_type is pl.FunctionType.InCore
    assert [(p.name, str(p.type), p.direction) for p in sc.params] == [
        ("a", "pl.Tensor[[8, 16], pl.FP32]", ir.ParamDirection.In),
        ("o", "pl.Tensor[[8, 16], pl.FP32]", ir.ParamDirection.Out),
        ("s", "pl.Scalar[pl.FP32]", None)]
    assert [p.direction for p in fns["main"].params] == [ir.ParamDirection.In, ir.ParamDirection.InOut]
    assert sc.return_types == ["pl.Tensor[[8, 16], pl.FP32]"]


def test_I_fn_pre_pass_class_exposes_the_same_members(load):
    mod, _ = load(KERNELS)
    assert mod.Prog.name == "Prog"
    assert list(mod.Prog.functions) == ["main", "scale"]  # as written: nothing outlined
    assert mod.Prog.get_function("scale").func_type is pl.FunctionType.InCore
    assert isinstance(mod.Prog.as_python(), ir.Program) and mod.Prog.as_python().name == "Prog"


def test_I_fn_tuple_returns_and_untyped_parameters(load):
    mod, _ = load("""
    @pl.program
    class T:
        @pl.function
        def helper(self, a, n):
            return a

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor, b: pl.Out[pl.Tensor]) -> tuple[pl.Tensor, pl.Tensor]:
            return a, b
    """)
    fns = mod.T.functions
    assert fns["helper"].func_type is pl.FunctionType.Opaque
    assert [(p.name, p.type, p.direction) for p in fns["helper"].params] == [("a", None, None), ("n", None, None)]
    assert fns["helper"].return_types == []
    assert fns["main"].return_types == ["pl.Tensor", "pl.Tensor"]
    assert [(p.type, p.direction) for p in fns["main"].params] == [("pl.Tensor", ir.ParamDirection.In),
                                                                   ("pl.Tensor", ir.ParamDirection.Out)]


def test_I_fn_jit_program_name_is_the_entry(load):
    mod, _ = load("""
    @pl.jit
    def entry(a: pl.Tensor, o: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.store(pl.exp(pl.load(a, [0, 0], [8, 16])), [0, 0], o)
        return o
    """)
    low = mod.entry.lower(*_args())
    assert low.name == "entry" and list(low.functions) == ["entry", "entry_incore_0"]


def test_I_fn_as_python_concise_drops_local_annotations_only(load):
    mod, _ = load(KERNELS)
    text = mod.Prog.as_python()
    concise = mod.Prog.as_python(concise=True)
    assert "t: pl.Tile" in text and "t: pl.Tile" not in concise and "t = pl.load(a, [0, 0], [8, 16])" in concise
    assert "o: pl.Out[pl.Tensor[[8, 16], pl.FP32]]" in concise and "-> pl.Tensor[[8, 16], pl.FP32]:" in concise
    assert concise.count("\n") == text.count("\n")


def test_I_fn_as_python_concise_keeps_a_memory_space_tag(load):
    mod, _ = load("""
    @pl.program
    class M:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, a: pl.Tensor[[8, 16], pl.FP32], o: pl.Out[pl.Tensor[[8, 16], pl.FP32]]):
            t: pl.Tile[[8, 16], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [8, 16])
            m: pl.Tile[[8, 16], pl.FP32, pl.Mem.Mat] = pl.load(a, [0, 0], [8, 16], target_memory=pl.Mem.Mat)
            pl.store(t, [0, 0], o)
            return o
    """)
    concise = mod.M.as_python(concise=True)
    assert "t = pl.load" in concise and "m: pl.Tile[[8, 16], pl.FP32, pl.Mem.Mat] = " in concise


def test_I_fn_as_python_prefix_renames_every_name(load):
    mod, _ = load(KERNELS)
    low = mod.Prog.lower(*_args())
    ppl = low.as_python(prefix="ppl")
    assert ppl.startswith("import pypto.language as ppl\n\n@ppl.program\nclass Prog:\n")
    assert "pl." not in ppl.replace("ppl.", "")
    assert ppl.as_python(prefix="ppl") is ppl
    assert ppl.as_python() == low.as_python(prefix="pl", concise=False).as_python(prefix="ppl").as_python()


def _law(prog, args):
    """print -> parse -> print byte-identical for the concise and prefix forms;
    lower(parse(as_python(concise=True))) == lower(P)."""
    low = prog.lower(*args)
    for form in ({"concise": True}, {"prefix": "ppl"}, {"prefix": "ppl", "concise": True}):
        text = low.as_python(**form)
        parsed = pl.parse(text)
        assert parsed.as_python(**form) == text, form
        assert parsed.lower(*args) == low, form
    pre = prog.as_python(concise=True)
    if hasattr(prog, "functions"):
        assert pl.parse(pre).as_python(concise=True) == pre


def test_I_fn_round_trip_law_on_the_kernels_program(load):
    mod, _ = load(KERNELS)
    _law(mod.Prog, _args())


def test_I_fn_round_trip_law_on_random_programs(tmp_path, load):
    for seed in range(12):
        prog = dsl_gen.make_program(seed)
        mod, _ = load(prog.text, header="")
        arrays, n = prog.inputs
        low = mod.prog.lower(*[a.copy() for a in arrays], n)
        for form in ({"concise": True}, {"prefix": "ppl"}):
            text = low.as_python(**form)
            parsed = pl.parse(text)
            assert parsed.as_python(**form) == text, (seed, form)
            assert parsed.lower(*[a.copy() for a in arrays], n) == low, (seed, form)


def test_I_fn_function_as_python_is_the_method_alone(load):
    mod, _ = load(KERNELS)
    f = mod.Prog.lower(*_args()).get_function("scale")
    text = f.as_python()
    assert text.startswith("import pypto.language as pl\n\n@pl.function(type=pl.FunctionType.InCore)\ndef scale(a: ")
    again = pl.parse(text)
    assert isinstance(again, ir.Function) and again.name == "scale" and again.as_python() == text
    assert "ppl.store" in f.as_python(prefix="ppl")


def test_I_parse_serialize_deserialize_prints_identically(load):
    mod, _ = load(KERNELS)
    low = mod.Prog.lower(*_args())
    blob = ir.serialize(low)
    assert isinstance(blob, bytes) and blob.startswith(b"# pypto-ir 2\n") and blob[13:] == str(low).encode()
    back = ir.deserialize(blob)
    assert isinstance(back, ir.Program) and back == low and back.name == "Prog"
    assert ir.deserialize(ir.serialize(mod.Prog)) == mod.Prog.as_python()
    parsed = pl.parse(str(low))
    assert ir.deserialize(ir.serialize(parsed)) == parsed.as_python()


@pytest.mark.parametrize("bad", [b"", b"import pypto.language as pl\n", b"# pypto-ir 1\nx", b"# pypto-ir 2\n\xff\xfe",
                                 b"# pypto-ir 2\ndef (:\n", "# pypto-ir 2\n"])
def test_I_parse_deserialize_bad_bytes(bad):
    with pytest.raises(ValueError) as e:
        ir.deserialize(bad)
    assert str(e.value) == "ir.deserialize: not a pypto IR blob"


def test_I_fn_parsed_program_runs_like_the_original(load):
    mod, _ = load(KERNELS)
    a, o = _args()
    parsed = pl.parse(mod.Prog.lower(a, o).as_python(concise=True))
    want = torch.zeros(8, 16)
    mod.Prog(a, want)
    parsed(a, o)
    assert np.array_equal(o.numpy(), want.numpy()) and np.array_equal(want.numpy(), (a * 4).numpy())


def test_I_parse_serialize_a_function():
    f = pl.parse("@pl.function\ndef g(x: pl.Tensor[[32], pl.FP32]) -> pl.Tensor[[32], pl.FP32]:\n    return x\n")
    back = ir.deserialize(ir.serialize(f))
    assert isinstance(back, ir.Function) and back.name == "g" and back.as_python() == f.as_python()


from test_round_trip import PROGRAMS, program  # noqa: E402,F401  (the seed, docs and examples programs)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_I_fn_round_trip_law_on_the_seed_docs_and_examples_programs(program, name):
    kernel, make_args, _ = program(name)
    low = kernel.lower(*make_args())
    for form in ({"concise": True}, {"prefix": "ppl"}, {"prefix": "ppl", "concise": True}):
        text = low.as_python(**form)
        parsed = pl.parse(text)
        assert parsed.as_python(**form) == text, form
        assert parsed.lower(*make_args()) == low, form
    assert list(low.functions) == sorted(low.functions) and len(low.functions) == str(low).count("    def ")
