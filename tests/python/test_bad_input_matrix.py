"""The bad-input matrix through pypto (docs/compiler.md, "Arguments", docs/dsl.md, "Errors", "Not in this version", docs/runconfig.md):
one row per bad input, each giving the call, the exception class the spec
names, its message and, where the error has a place in the user's file,
that place (`file:line:col` for compile errors, `(at file:line:col)` for a
task that failed at run time).  Every row must raise exactly that class
and never crash the interpreter; after a run-time failure the next call
works.  Rows that test_args.py, test_bad_input.py, test_lower.py and
test_runconfig.py already hold are not repeated here.
"""
import dataclasses

import numpy as np
import pytest
import torch

import pypto.language as pl
from pypto.language.parser.diagnostics import (InvalidOperationError, ParserSyntaxError, ParserTypeError,
                                               UnsupportedFeatureError)
from pypto.runtime import PTORuntimeError, RunConfig

from conftest import line_of

KERNELS = """
    @pl.jit
    def copy(a: pl.Tensor, out: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.store(pl.load(a, [0, 0], [64, 128]), [0, 0], out)
        return out

    @pl.jit
    def shaped(a: pl.Tensor[[64, 128], pl.FP32], out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]):
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.store(pl.load(a, [0, 0], [64, 128]), [0, 0], out)
        return out

    @pl.jit
    def scale(a: pl.Tensor, out: pl.Out[pl.Tensor], s: pl.Scalar[pl.INT32]):
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.store(pl.mul(pl.load(a, [0, 0], [64, 128]), s), [0, 0], out)
        return out

    @pl.jit
    def sc16(a: pl.Tensor, out: pl.Out[pl.Tensor], s: pl.Scalar[pl.FP16]):
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.store(pl.add(pl.load(a, [0, 0], [64, 128]), s), [0, 0], out)
        return out

    @pl.jit
    def scbf(a: pl.Tensor, out: pl.Out[pl.Tensor], s: pl.Scalar[pl.BF16]):
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.store(pl.add(pl.load(a, [0, 0], [64, 128]), s), [0, 0], out)
        return out

    @pl.jit
    def sc32(a: pl.Tensor, out: pl.Out[pl.Tensor], s: pl.Scalar):
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.store(pl.add(pl.load(a, [0, 0], [64, 128]), s), [0, 0], out)
        return out

    @pl.jit
    def sc8(a: pl.Tensor, out: pl.Out[pl.Tensor], s: pl.Scalar[pl.INT8]):
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.store(pl.add(pl.load(a, [0, 0], [64, 128]), s), [0, 0], out)
        return out

    @pl.jit
    def scb(a: pl.Tensor, out: pl.Out[pl.Tensor], s: pl.Scalar[pl.BOOL]):
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.store(pl.add(pl.load(a, [0, 0], [64, 128]), s), [0, 0], out)
        return out

    @pl.jit
    def at_row(a: pl.Tensor, out: pl.Out[pl.Tensor], r: pl.Scalar[pl.INDEX]):
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(a, [r, 0], [64, 128])
            pl.store(t, [0, 0], out)
        return out

    @pl.jit
    def at_row_i(a: pl.Tensor, out: pl.Out[pl.Tensor], r: pl.Scalar[pl.INDEX]):
        for i in pl.range(2):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(a, [r * i, 0], [64, 128])
                pl.store(t, [i * 64, 0], out)
        return out

    @pl.jit
    def at_col(a: pl.Tensor, out: pl.Out[pl.Tensor], c: pl.Scalar[pl.INDEX]):
        for i in pl.range(2):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(a, [i * 32, c * i], [32, 64])
                pl.store(t, [i * 32, 0], out)
        return out

    @pl.jit.incore
    def k_rows(a: pl.Tensor, out: pl.InOut[pl.Tensor], r: pl.Scalar[pl.INDEX]):
        pl.store(pl.load(a, [0, 0], [64, 128]), [r, 0], out)
        return out

    @pl.jit
    def via_incore(a: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar[pl.INDEX]):
        for i in pl.range(n):
            out = k_rows(a, out, i * 64)
        return out

    @pl.program
    class Prog:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, a: pl.Tensor, out: pl.Out[pl.Tensor]):
            pl.store(pl.load(a, [0, 0], [64, 128]), [0, 0], out)
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor, out: pl.Out[pl.Tensor]):
            out = self.kernel(a, out)
            return out
    """

WHO = "@pl.jit function 'copy'"
TENSOR_KINDS = "must be a tensor (torch.Tensor or numpy.ndarray), got "
DTYPES = ", which has no pypto dtype (supported: float32, float16, bfloat16, int64, int32, int16, int8, uint32, uint16, uint8, bool)"
CONTIGUOUS = (" is not contiguous; pass a contiguous tensor (torch: x.contiguous(), numpy: "
              "np.ascontiguousarray(x))")


@pytest.fixture(scope="module")
def km(tmp_path_factory):
    import importlib.util
    import sys
    import textwrap
    path = tmp_path_factory.mktemp("matrix") / "matrix_kernels.py"
    path.write_text("import pypto.language as pl\n" + textwrap.dedent(KERNELS))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = mod
    spec.loader.exec_module(mod)
    return mod, str(path)


def f32(*shape):
    return torch.zeros(*shape)


A, OUT = (lambda: f32(64, 128)), (lambda: f32(64, 128))


def unaligned_f32():
    buf = np.zeros(64 * 128 * 4 + 1, np.uint8)
    return np.frombuffer(buf.data, np.float32, 64 * 128, offset=1).reshape(64, 128)


# ---- arguments (docs/compiler.md, "Arguments"): TypeError / ValueError, no place ----------------
# (id, call(mod), class, exact message)
ARGUMENT_ROWS = [
    # dtypes without a pypto dtype
    ("dtype_torch_float64", lambda m: m.copy(A().double(), OUT()), TypeError,
     WHO + ": argument 'a' has dtype float64" + DTYPES),
    ("dtype_torch_complex128", lambda m: m.copy(A().to(torch.complex128), OUT()), TypeError,
     WHO + ": argument 'a' has dtype complex128" + DTYPES),
    ("dtype_torch_float64_out", lambda m: m.copy(A(), OUT().to(torch.float64)), TypeError,
     WHO + ": argument 'out' has dtype float64" + DTYPES),
    ("dtype_torch_complex64", lambda m: m.copy(torch.zeros(64, 128, dtype=torch.complex64), OUT()), TypeError,
     WHO + ": argument 'a' has dtype complex64" + DTYPES),
    ("dtype_numpy_uint64", lambda m: m.copy(np.zeros((64, 128), np.uint64), OUT()), TypeError,
     WHO + ": argument 'a' has dtype uint64" + DTYPES),
    ("dtype_numpy_float64", lambda m: m.copy(np.zeros((64, 128), np.float64), OUT()), TypeError,
     WHO + ": argument 'a' has dtype float64" + DTYPES),
    # layouts
    ("noncontig_expand_stride0", lambda m: m.copy(f32(1, 128).expand(64, 128), OUT()), ValueError,
     WHO + ": argument 'a'" + CONTIGUOUS),
    ("noncontig_numpy_reversed", lambda m: m.copy(np.zeros((64, 128), np.float32)[::-1], OUT()), ValueError,
     WHO + ": argument 'a'" + CONTIGUOUS),
    ("noncontig_out_transposed", lambda m: m.copy(A(), f32(128, 64).t()), ValueError,
     WHO + ": argument 'out'" + CONTIGUOUS),
    ("numpy_unaligned", lambda m: m.copy(unaligned_f32(), OUT()), ValueError, WHO + ": argument 'a'" + CONTIGUOUS),
    # devices
    ("meta_out", lambda m: m.copy(A(), torch.empty(64, 128, device="meta")), ValueError,
     WHO + ": argument 'out' is on device 'meta'; expected a CPU tensor"),
    ("meta_in_program", lambda m: m.Prog(torch.empty(64, 128, device="meta"), OUT()), ValueError,
     "@pl.program function 'Prog.main': argument 'a' is on device 'meta'; expected a CPU tensor"),
    # missing / extra
    ("no_arguments", lambda m: m.copy(), TypeError, WHO + ": missing a required argument: 'a'"),
    ("twice_by_name", lambda m: m.copy(A(), OUT(), a=A()), TypeError,
     WHO + ": multiple values for argument 'a'"),
    ("config_by_position", lambda m: m.copy(A(), OUT(), RunConfig()), TypeError,
     WHO + ": too many positional arguments"),
    ("program_missing", lambda m: m.Prog(A()), TypeError,
     "@pl.program function 'Prog.main': missing a required argument: 'out'"),
    ("program_extra", lambda m: m.Prog.main(A(), OUT(), OUT()), TypeError,
     "@pl.program function 'Prog.main': too many positional arguments"),
    # not tensors, not scalars
    ("none_for_tensor", lambda m: m.copy(None, OUT()), TypeError, WHO + ": argument 'a' " + TENSOR_KINDS + "NoneType"),
    ("dict_for_tensor", lambda m: m.copy(A(), {"x": 1}), TypeError, WHO + ": argument 'out' " + TENSOR_KINDS + "dict"),
    ("str_for_tensor", lambda m: m.copy("a", OUT()), TypeError, WHO + ": argument 'a' " + TENSOR_KINDS + "str"),
    ("kernel_for_tensor", lambda m: m.copy(m.copy, OUT()), TypeError,
     WHO + ": argument 'a' " + TENSOR_KINDS + "JitFunction"),
    ("program_for_tensor", lambda m: m.copy(A(), m.Prog), TypeError,
     WHO + ": argument 'out' " + TENSOR_KINDS + "Program"),
    ("runconfig_for_tensor", lambda m: m.copy(RunConfig(), OUT()), TypeError,
     WHO + ": argument 'a' " + TENSOR_KINDS + "RunConfig"),
    ("kernel_for_scalar", lambda m: m.scale(A(), OUT(), m.copy), TypeError,
     "@pl.jit function 'scale': argument 's' must be a Python int, float or bool, got JitFunction"),
    ("tensor_for_scalar", lambda m: m.scale(A(), OUT(), A()), TypeError,
     "@pl.jit function 'scale': argument 's' must be a Python int, float or bool, got tensor"),
    ("scalar_too_big", lambda m: m.scale(A(), OUT(), 2 ** 40), TypeError,
     "'scale' argument 's' = 1099511627776 does not fit pl.INT32"),
    # a scalar of the wrong kind, or past its dtype's range (at the limit: test_scalar_dtypes.py)
    ("int8_given_a_float", lambda m: m.sc8(A(), OUT(), 5.0), TypeError,
     "@pl.jit function 'sc8': argument 's' must be a Python int for pl.Scalar[pl.INT8], got float"),
    ("int8_one_past_max", lambda m: m.sc8(A(), OUT(), 128), TypeError, "'sc8' argument 's' = 128 does not fit pl.INT8"),
    ("int8_one_past_min", lambda m: m.sc8(A(), OUT(), -129), TypeError, "'sc8' argument 's' = -129 does not fit pl.INT8"),
    ("bool_given_a_float", lambda m: m.scb(A(), OUT(), 1.0), TypeError,
     "@pl.jit function 'scb': argument 's' must be a Python bool for pl.Scalar[pl.BOOL], got float"),
    ("bool_given_2", lambda m: m.scb(A(), OUT(), 2), TypeError, "'scb' argument 's' = 2 does not fit pl.BOOL"),
    ("bool_given_minus_1", lambda m: m.scb(A(), OUT(), -1), TypeError, "'scb' argument 's' = -1 does not fit pl.BOOL"),
    ("fp16_rounds_past_max", lambda m: m.sc16(A(), OUT(), 65520.0), TypeError,
     "'sc16' argument 's' = 65520.0 does not fit pl.FP16"),
    ("fp16_rounds_past_min_int", lambda m: m.sc16(A(), OUT(), -65520), TypeError,
     "'sc16' argument 's' = -65520 does not fit pl.FP16"),
    ("fp16_numpy_70000", lambda m: m.sc16(A(), OUT(), np.float64(70000.0)), TypeError,
     "'sc16' argument 's' = 70000.0 does not fit pl.FP16"),
    ("bf16_rounds_past_max", lambda m: m.scbf(A(), OUT(), 2.0 ** 128 - 2.0 ** 119), TypeError,
     "'scbf' argument 's' = 3.39617752923046e+38 does not fit pl.BF16"),
    ("bf16_1e39", lambda m: m.scbf(A(), OUT(), 1e39), TypeError, "'scbf' argument 's' = 1e+39 does not fit pl.BF16"),
    ("fp32_bare_rounds_past_max", lambda m: m.sc32(A(), OUT(), 2.0 ** 128 - 2.0 ** 103), TypeError,
     "'sc32' argument 's' = 3.4028235677973366e+38 does not fit pl.FP32"),
    # shaped annotations
    ("annotation_dtype", lambda m: m.shaped(A().half(), OUT()), TypeError,
     "@pl.jit function 'shaped': argument 'a' has dtype FP16 but its annotation requires FP32"),
    ("annotation_shape_and_dtype", lambda m: m.shaped(f32(32, 128).half(), OUT()), TypeError,
     "@pl.jit function 'shaped': argument 'a' has shape [32, 128] but its annotation requires [64, 128]"),
    ("annotation_shape_out", lambda m: m.shaped(A(), f32(64, 64)), TypeError,
     "@pl.jit function 'shaped': argument 'out' has shape [64, 64] but its annotation requires [64, 128]"),
    ("annotation_rank", lambda m: m.shaped(f32(64 * 128), OUT()), TypeError,
     "@pl.jit function 'shaped': argument 'a' has shape [8192] but its annotation requires [64, 128]"),
    # config
    ("config_class_not_instance", lambda m: m.copy(A(), OUT(), config=RunConfig), TypeError,
     "config must be a pypto.runtime.RunConfig, got type"),
]


@pytest.mark.parametrize("name,call,cls,message", ARGUMENT_ROWS, ids=[r[0] for r in ARGUMENT_ROWS])
def test_bad_argument(km, name, call, cls, message):
    mod, _ = km
    with pytest.raises(Exception) as e:
        call(mod)
    assert type(e.value) is cls, (type(e.value), str(e.value))
    assert str(e.value) == message


# ---- compile errors with their place (docs/dsl.md, "Errors"): class, message, needle for line:col ----
BODY = """
    @pl.jit
    def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            %s
        return out
    """
ORCH = """
    @pl.jit
    def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
        %s
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.store(pl.load(a, [0, 0], [64, 128]), [0, 0], out)
        return out
    """
# (id, template, statement, class, message (exact; None: only "is not supported"), needle)
COMPILE_ROWS = [
    # shapes, ranks and static bounds (a and out are [256, 128])
    ("store_past_end_static", BODY, "pl.store(pl.load(a, [0, 0], [64, 128]), [224, 0], out)",
     InvalidOperationError, "pl.store writes past the end of dimension 0: offset 224 + extent 64 exceeds the "
     "destination extent 256.", "224, 0]"),
    ("load_past_end_dim1_static", BODY, "pl.store(pl.load(a, [0, 96], [64, 64]), [0, 0], out)",
     InvalidOperationError, "pl.load reads past the end of dimension 1: offset 96 + extent 64 exceeds the source "
     "extent 128.", "96], [64"),
    ("load_negative_static", BODY, "pl.store(pl.load(a, [-64, 0], [64, 128]), [0, 0], out)",
     InvalidOperationError, "pl.load: offset 0 is negative (-64)", "-64, 0]"),
    ("load_rank", BODY, "pl.store(pl.load(a, [0], [64]), [0, 0], out)", InvalidOperationError,
     "pl.load: expected 2 offsets and 2 shape entries for a rank-2 tensor, got 1 and 1", "pl.load(a, [0]"),
    ("load_shape_tensor", BODY, "pl.store(pl.load(a, [0, 0], [a, 128]), [0, 0], out)", ParserTypeError,
     "shapes entries must be integer scalars", "a, 128]"),
    ("load_shape_not_constant", BODY, "for i in pl.range(2):\n                pl.store(pl.load(a, [0, 0], [64 + i, 128]), "
     "[0, 0], out)", ParserTypeError, "pl.load shapes must be compile-time constants", "64 + i"),
    ("store_dtype", BODY, "pl.store(pl.cast(pl.load(a, [0, 0], [64, 128]), pl.INT32), [0, 0], out)",
     ParserTypeError, "pl.store: tile dtype INT32 does not match tensor 'out' dtype FP32; insert pl.cast",
     "pl.store(pl.cast"),
    ("scalar_on_the_left", BODY, "pl.store(pl.sub(2.0, pl.load(a, [0, 0], [64, 128])), [0, 0], out)",
     InvalidOperationError, "pl.sub: the scalar operand must be on the right", "pl.sub(2.0"),
    ("scalar_operator_on_the_left", BODY, "pl.store(2.0 * pl.load(a, [0, 0], [64, 128]), [0, 0], out)",
     InvalidOperationError, "pl.mul: the scalar operand must be on the right", "2.0 * pl.load"),
    ("scalar_operator_on_the_left_of_a_tensor", BODY, "out[:] = 2.0 - a", InvalidOperationError,
     "pl.sub: the scalar operand must be on the right", "2.0 - a"),
    ("matmul_inner_dims", BODY, "pl.store(pl.matmul(pl.load(a, [0, 0], [64, 128]), pl.load(a, [0, 0], [64, 128])),"
     " [0, 0], out)", InvalidOperationError, "pl.matmul: inner dimensions differ: [64, 128] vs [64, 128]",
     "pl.matmul("),
    # unsupported syntax: statements (docs/dsl.md, "Statements") and later constructs (docs/dsl.md, "Not in this version")
    ("stmt_try", ORCH, "try:\n            pass\n        except Exception:\n            pass", UnsupportedFeatureError,
     "Python 'try' is not supported in kernel code", "try:"),
    ("stmt_import", ORCH, "import os", UnsupportedFeatureError, "Python 'import' is not supported in kernel code",
     "import os"),
    ("stmt_assert", ORCH, "assert a", UnsupportedFeatureError, "Python 'assert' is not supported in kernel code",
     "assert a"),
    ("stmt_raise", ORCH, "raise ValueError()", UnsupportedFeatureError,
     "Python 'raise' is not supported in kernel code", "raise ValueError"),
    ("stmt_nested_def", ORCH, "def g():\n            pass", UnsupportedFeatureError, None, "def g"),
    ("stmt_continue", ORCH, "for i in pl.range(2):\n            continue", UnsupportedFeatureError,
     "Python 'continue' is not supported in kernel code", "continue"),
    ("subscript_store", ORCH, "out[0] = 7", ParserTypeError,
     "Subscript-write source must also be a tensor, got pl.Scalar[pl.INDEX]", "7"),
    ("pl_spmd", ORCH, "pl.spmd(4)", ParserSyntaxError,
     "pl.spmd(...) is only valid as a for loop's iterable or the item of a with statement", "pl.spmd"),
    ("pl_while_", ORCH, "pl.while_(1)", ParserSyntaxError, "pl.while_(...) can only be iterated by a for loop",
     "pl.while_"),
    ("comprehension", ORCH, "x = [i for i in pl.range(2)]", UnsupportedFeatureError, "a comprehension is not supported in this version",
     "for i in pl.range(2)]"),
    ("conditional_expr", ORCH, "x = 1 if a else 2", UnsupportedFeatureError,
     "a conditional expression is not supported in this version", "if a else"),
    ("fstring", ORCH, "x = f'{a}'", UnsupportedFeatureError, None, "f'{a}'"),
    ("with_open", ORCH, "with open('x'):\n            pass", UnsupportedFeatureError,
     "Unsupported context manager in with statement", "open('x')"),
    ("pl_range_keyword", ORCH, "for i in pl.range(stop=2):\n            pass", ParserSyntaxError,
     "Unknown keyword argument 'stop' in pl.range()", "stop=2"),
    ("for_over_list", ORCH, "for i in [1, 2]:\n            pass", ParserSyntaxError,
     "for loops must iterate over pl.range(...), pl.parallel(...), pl.pipeline(...), pl.unroll(...) or pl.while_(...)", "[1, 2]:"),
    ("true_division_ints", ORCH, "x = 3 / 2", ParserTypeError,
     "true division of integers is not supported in kernel code; use //", "3 / 2"),
    ("unsupported_dtype", BODY, "pl.store(pl.cast(pl.load(a, [0, 0], [64, 128]), pl.UINT64), [0, 0], out)",
     UnsupportedFeatureError, "dtype pl.UINT64 is not supported in this version", "pl.UINT64"),
]


@pytest.mark.parametrize("name,template,stmt,cls,message,needle", COMPILE_ROWS, ids=[r[0] for r in COMPILE_ROWS])
def test_bad_source(load, name, template, stmt, cls, message, needle):
    mod, path = load(template % stmt)
    a, out = f32(256, 128), f32(256, 128)
    for entry in (mod.k.lower, mod.k):  # lower() and a call report the same error
        with pytest.raises(Exception) as e:
            entry(a, out)
        assert type(e.value) is cls, (type(e.value), str(e.value))
        line, col = line_of(path, needle)
        assert str(e.value).startswith("%s:%d:%d: error: " % (path, line, col)), str(e.value)
        if message is None:
            assert "is not supported" in e.value.message, e.value.message
        else:
            assert e.value.message == message
    assert not out.any()  # nothing ran


# ---- offsets from a specialized scalar argument: known at compile time (docs/compiler.md, "Specialization and the cache"), so the call raises
# the compile error, with the load's place, and runs nothing ----------------------------------------
SPECIALIZED_ROWS = [
    ("scalar_load_past_end", (200,), InvalidOperationError,
     "pl.load reads past the end of dimension 0: offset 200 + extent 64 exceeds the source extent 256."),
    ("scalar_load_negative", (-1,), InvalidOperationError, "pl.load: offset 0 is negative (-1)"),
]


@pytest.mark.parametrize("name,args,cls,message", SPECIALIZED_ROWS, ids=[r[0] for r in SPECIALIZED_ROWS])
def test_bad_specialized_offset(km, name, args, cls, message):
    mod, path = km
    out = f32(64, 128)
    with pytest.raises(Exception) as e:
        mod.at_row(f32(256, 128) + 1, out, *args)
    assert type(e.value) is cls, (type(e.value), str(e.value))
    line, col = line_of(path, "r, 0], [64, 128]")
    assert str(e.value).startswith("%s:%d:%d: error: " % (path, line, col)), str(e.value)
    assert e.value.message == message
    assert not out.any()
    mod.at_row(f32(256, 128) + 1, out, 192)  # a fitting value compiles and runs
    assert bool((out == 1).all())


# ---- run-time failures in tasks (docs/dsl.md, "Errors"): PTORuntimeError code 12 at the op's line ----
# (id, kernel, message, needle at the failing op, bad args, good args); the offsets come from
# the orchestration's loop variable, so only the run knows them
RUNTIME_ROWS = [
    ("dynamic_load_past_end_dim0", "at_row_i",
     "pl.load reads past the end of dimension 0: offset 200 + extent 64 exceeds the source extent 256.",
     "pl.load(a, [r * i, 0]", (200,), (192,)),
    ("dynamic_load_negative", "at_row_i", "pl.load: offset 0 is negative (-1)", "pl.load(a, [r * i, 0]", (-1,),
     (0,)),
    ("dynamic_load_past_end_dim1", "at_col",
     "pl.load reads past the end of dimension 1: offset 100 + extent 64 exceeds the source extent 128.",
     "pl.load(a, [i * 32, c * i]", (100,), (64,)),
    ("dynamic_store_past_end_in_incore", "via_incore",
     "pl.store writes past the end of dimension 0: offset 256 + extent 64 exceeds the destination extent 256.",
     "pl.store(pl.load(a, [0, 0], [64, 128]), [r, 0], out)", (5,), (4,)),
]


@pytest.mark.parametrize("name,kernel,message,needle,bad,good", RUNTIME_ROWS, ids=[r[0] for r in RUNTIME_ROWS])
def test_bad_run(km, name, kernel, message, needle, bad, good):
    mod, path = km
    k = getattr(mod, kernel)
    a = torch.arange(256 * 128, dtype=torch.float32).reshape(256, 128)
    out = torch.zeros(256, 128)
    with pytest.raises(Exception) as e:
        k(a, out, *bad)
    assert type(e.value) is PTORuntimeError, (type(e.value), str(e.value))
    assert e.value.code == 12 and e.value.message == str(e.value)
    assert "FATAL: Kernel Failed! task=" in str(e.value)
    assert "%s (at %s:%d:%d)" % (message, path, *line_of(path, needle)) in str(e.value)
    k(a, out, *good)  # the next call works
    assert out.any()


# ---- RunConfig values (docs/runconfig.md): ValueError / TypeError, exact -------------------------
CONFIG_ROWS = [
    ("num_workers_too_many", dict(num_workers=1025), ValueError, "num_workers must be in [1, 1024], got 1025"),
    ("num_workers_negative", dict(num_workers=-1), ValueError, "num_workers must be in [1, 1024], got -1"),
    ("num_workers_float", dict(num_workers=2.0), ValueError, "num_workers must be in [1, 1024], got 2.0"),
    ("num_workers_str", dict(num_workers="4"), ValueError, "num_workers must be in [1, 1024], got '4'"),
    ("num_workers_bool", dict(num_workers=True), ValueError, "num_workers must be in [1, 1024], got True"),
    ("stall_minus_two", dict(stall_timeout_ms=-2), ValueError,
     "stall_timeout_ms must be a positive number of milliseconds or -1 (never), got -2"),
    ("stall_float", dict(stall_timeout_ms=1.5), ValueError,
     "stall_timeout_ms must be a positive number of milliseconds or -1 (never), got 1.5"),
    ("stall_str", dict(stall_timeout_ms="10"), ValueError,
     "stall_timeout_ms must be a positive number of milliseconds or -1 (never), got '10'"),
    ("platform_none", dict(platform=None), ValueError,
     "Invalid platform 'None'. Expected 'a2a3sim', 'a2a3', 'a5sim', or 'a5'."),
    ("platform_case", dict(platform="A2A3SIM"), ValueError,
     "Invalid platform 'A2A3SIM'. Expected 'a2a3sim', 'a2a3', 'a5sim', or 'a5'."),
    ("device_id_str", dict(device_id="0"), ValueError, "device_id must be a non-negative int, got '0'"),
    ("device_id_float", dict(device_id=1.5), ValueError, "device_id must be a non-negative int, got 1.5"),
    ("dump_args_negative", dict(enable_dump_args=-1), ValueError, "enable_dump_args must be a level in [0, 2], got -1"),
    ("dump_args_str", dict(enable_dump_args="1"), ValueError, "enable_dump_args must be a level in [0, 2], got '1'"),
    ("pmu_str", dict(enable_pmu="2"), ValueError, "enable_pmu must be a non-negative int, got '2'"),
    ("swimlane_float", dict(enable_chip_swimlane=1.5), TypeError,
     "enable_chip_swimlane must be an int collection level (0-4) or a bool, got float"),
    ("window_str", dict(ring_task_window="1024"), ValueError, "ring_task_window must be a power of 2 >= 4, got '1024'"),
    ("heap_dict", dict(ring_heap={"a": 1}), ValueError,
     "ring_heap must be a power of 2 >= 1024 (bytes per ring), got {'a': 1}"),
    ("heap_too_big", dict(ring_heap=2 ** 41), ValueError,
     "ring_heap must be <= 1099511627776 (bytes per ring), got 2199023255552"),
    ("window_entry_none", dict(ring_task_window=[None, 0, 0, 16]), ValueError,
     "ring_task_window entries must be a power of 2 >= 4 (or 0 to keep default), got None"),
    ("window_entry_str", dict(ring_task_window=[16, "32", 0, 16]), ValueError,
     "ring_task_window entries must be a power of 2 >= 4 (or 0 to keep default), got '32'"),
    ("dep_entry_too_big", dict(ring_dep_pool=[4, 2 ** 31, 0, 4]), ValueError,
     "ring_dep_pool entries must be in [4, INT32_MAX] (or 0 to keep default), got 2147483648"),
    ("window_entry_too_big", dict(ring_task_window=[2 ** 31, 0, 0, 0]), ValueError,
     "ring_task_window entries must be <= 1073741824 (or 0 to keep default), got 2147483648"),
]


@pytest.mark.parametrize("name,kw,cls,message", CONFIG_ROWS, ids=[r[0] for r in CONFIG_ROWS])
def test_bad_runconfig(name, kw, cls, message):
    with pytest.raises(Exception) as e:
        RunConfig(**kw)
    assert type(e.value) is cls, (type(e.value), str(e.value))
    assert str(e.value) == message
    with pytest.raises(cls):  # dataclasses.replace judges the same way
        dataclasses.replace(RunConfig(), **kw)



def test_matrix_runs_on_the_extension_its_build_made():
    """Under make test-asan the matrix must drive the sanitizer build's pypto._C (PYPTO_EXT_DIR,
    with the ASan runtime preloaded), not the plain one in python/pypto."""
    import os
    import pypto._C
    ext_dir = os.environ.get("PYPTO_EXT_DIR")
    if not ext_dir:
        pytest.skip("run outside ctest: whichever pypto._C is on the path")
    assert os.path.dirname(os.path.realpath(pypto._C.__file__)) == os.path.realpath(ext_dir)
    if "build-asan" in ext_dir:
        assert "libasan" in os.environ.get("LD_PRELOAD", "")
