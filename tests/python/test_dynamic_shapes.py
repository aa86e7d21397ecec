"""DSL-V2-SPEC §5 dynamic shapes (P4-14): pl.dynamic, DynVar dimensions, their binding at
entries and call sites, run-time extents in kernels, pl.tensor.dim, printing and parsing.
One test per rule (docs/dsl.md, "Dynamic shapes")."""
import numpy as np
import pytest
import torch

import pypto.language as pl
from pypto.language.parser.diagnostics import (InvalidOperationError, ParserTypeError,
                                                UnsupportedFeatureError)
from pypto.runtime import PTORuntimeError

N = pl.dynamic("N")
M = pl.dynamic("M")
A = pl.dynamic("R")
B = pl.dynamic("R")  # a second DynVar with the same name: another symbol
TILE = 32


@pl.jit.incore
def _double_rows(x: pl.Tensor[[N, 64], pl.FP32], out: pl.Out[pl.Tensor[[N, 64], pl.FP32]]):
    n = pl.tensor.dim(x, 0)
    for i in pl.range(0, n, TILE):
        out = pl.store(pl.mul(pl.load(x, [i, 0], [TILE, 64]), 2.0), [i, 0], out)
    return out


@pl.jit
def double_rows(x: pl.Tensor[[N, 64], pl.FP32], out: pl.Out[pl.Tensor[[N, 64], pl.FP32]]):
    return _double_rows(x, out)


def test_dynamic_name_must_be_identifier():
    with pytest.raises(ValueError) as e:
        pl.dynamic("1x")
    assert str(e.value) == "DynVar name must be a valid identifier, got '1x'"
    with pytest.raises(ValueError):
        pl.dynamic("a b")
    assert repr(pl.dynamic("K")) == 'pl.dynamic("K")'


def test_dynamic_one_object_is_one_symbol_two_calls_two_symbols():
    assert pl.dynamic("N") is not N

    @pl.jit.incore
    def k(x: pl.Tensor[[A, 64], pl.FP32], y: pl.Tensor[[B, 64], pl.FP32], out: pl.Out[pl.Tensor[[A, 64], pl.FP32]]):
        out = pl.store(pl.add(pl.load(x, [0, 0], [8, 64]), pl.load(y, [0, 0], [8, 64])), [0, 0], out)
        return out

    @pl.jit
    def entry(x: pl.Tensor[[A, 64], pl.FP32], y: pl.Tensor[[B, 64], pl.FP32], out: pl.Out[pl.Tensor[[A, 64], pl.FP32]]):
        return k(x, y, out)

    x, y, out = torch.randn(16, 64), torch.randn(8, 64), torch.zeros(16, 64)
    entry(x, y, out)  # A is 16, B is 8: two symbols, no conflict
    assert torch.equal(out[:8], x[:8] + y[:8])


def test_dynamic_entry_extents_share_one_compiled_program():
    double_rows.cache_clear()
    for extent in (32, 96, 64):
        x, out = torch.randn(extent, 64), torch.zeros(extent, 64)
        double_rows(x, out)
        np.testing.assert_array_equal(out.numpy(), x.numpy() * 2)
    assert double_rows.cache_info() == (2, 1, 1)


def test_dynamic_entry_one_dynvar_two_extents_is_type_error():
    double_rows.cache_clear()
    with pytest.raises(TypeError) as e:
        double_rows(torch.randn(32, 64), torch.zeros(64, 64))
    assert str(e.value) == ("@pl.jit function 'double_rows': dynamic dimension 'N' is 32 for argument 'x' "
                            "but 64 for argument 'out'")
    assert double_rows.cache_info() == (0, 0, 0)
    double_rows(torch.randn(32, 64), torch.zeros(32, 64))  # a cached program, then the conflict again
    with pytest.raises(TypeError, match="dynamic dimension 'N' is 32 for argument 'x' but 96"):
        double_rows(torch.randn(32, 64), torch.zeros(96, 64))
    assert double_rows.cache_info()[2] == 1


def test_dynamic_static_dimension_still_checked():
    with pytest.raises(TypeError, match=r"argument 'x' has shape \[32, 16\] but its annotation requires \[N, 64\]"):
        double_rows(torch.randn(32, 16), torch.zeros(32, 64))


def test_dynamic_callee_binds_to_caller_constant():
    @pl.jit.incore
    def scale(x: pl.Tensor[[M, 128], pl.FP32], out: pl.Out[pl.Tensor[[M, 128], pl.FP32]]):
        out = pl.store(pl.mul(pl.load(x, [0, 0], [64, 128]), 3.0), [0, 0], out)
        return out

    @pl.jit
    def entry(x: pl.Tensor[[64, 128], pl.FP32], out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]):
        return scale(x, out)

    x, out = torch.randn(64, 128), torch.zeros(64, 128)
    entry(x, out)
    np.testing.assert_array_equal(out.numpy(), x.numpy() * 3)
    assert "def scale(self, x: pl.Tensor[[64, 128], pl.FP32]" in entry.lower(x, out)


def test_dynamic_callee_two_extents_at_one_call_site_is_kernel_parameter_text():
    @pl.jit.incore
    def pair(x: pl.Tensor[[M, 128], pl.FP32], out: pl.Out[pl.Tensor[[M, 128], pl.FP32]]):
        out = pl.store(pl.load(x, [0, 0], [16, 128]), [0, 0], out)
        return out

    @pl.jit
    def entry(x: pl.Tensor[[64, 128], pl.FP32], out: pl.Out[pl.Tensor[[32, 128], pl.FP32]]):
        return pair(x, out)

    with pytest.raises(ParserTypeError) as e:
        entry(torch.randn(64, 128), torch.zeros(32, 128))
    assert e.value.message == ("'pair' parameter 'out' expects pl.Tensor[[M, 128], pl.FP32], "
                               "got pl.Tensor[[32, 128], pl.FP32]")


def test_dynamic_callee_binds_to_caller_symbol():
    text = double_rows.lower(torch.randn(64, 64), torch.zeros(64, 64))
    assert "def _double_rows(self, x: pl.Tensor[[N, 64], pl.FP32], out: pl.Out[pl.Tensor[[N, 64], pl.FP32]])" in text


def test_dynamic_extent_out_of_bounds_is_runtime_check_code_12():
    with pytest.raises(PTORuntimeError) as e:
        double_rows(torch.randn(48, 64), torch.zeros(48, 64))  # the loop's second tile reads rows 32..63
    assert e.value.code == 12
    assert "pl.load reads past the end of dimension 0: offset 32 + extent 32 exceeds the source extent 48." in str(e.value)


def test_dynamic_dimension_read_as_value_in_kernel():
    @pl.jit.incore
    def k(x: pl.Tensor[[N, 64], pl.FP32], out: pl.Out[pl.Tensor[[N, 64], pl.FP32]]):
        for i in pl.range(0, N // TILE):
            out = pl.store(pl.add(pl.load(x, [i * TILE, 0], [TILE, 64]), 1.0), [i * TILE, 0], out)
        return out

    @pl.jit
    def entry(x: pl.Tensor[[N, 64], pl.FP32], out: pl.Out[pl.Tensor[[N, 64], pl.FP32]]):
        return k(x, out)

    for extent in (32, 128):
        x, out = torch.randn(extent, 64), torch.zeros(extent, 64)
        entry(x, out)
        np.testing.assert_array_equal(out.numpy(), x.numpy() + 1)
    assert entry.cache_info()[1] == 1
    assert "pl.tensor.dim(x, 0) // 32" in entry.lower(torch.randn(32, 64), torch.zeros(32, 64))


def test_dynamic_closure_dynvar():
    def build():
        rows = pl.dynamic("ROWS")

        @pl.jit.incore
        def k(x: pl.Tensor[[rows, 16], pl.FP32], out: pl.Out[pl.Tensor[[rows, 16], pl.FP32]]):
            out = pl.store(pl.neg(pl.load(x, [0, 0], [8, 16])), [0, 0], out)
            return out

        @pl.jit
        def entry(x: pl.Tensor[[rows, 16], pl.FP32], out: pl.Out[pl.Tensor[[rows, 16], pl.FP32]]):
            return k(x, out)
        return entry

    entry = build()
    for extent in (8, 24):
        x, out = torch.randn(extent, 16), torch.zeros(extent, 16)
        entry(x, out)
        np.testing.assert_array_equal(out[:8].numpy(), -x[:8].numpy())
    assert entry.cache_info()[1] == 1
    assert 'ROWS = pl.dynamic("ROWS")' in entry.lower(x, out)


def test_dynamic_in_tile_shape_is_constant_shape_text():
    @pl.jit.incore
    def k(x: pl.Tensor[[N, 64], pl.FP32], out: pl.Out[pl.Tensor[[N, 64], pl.FP32]]):
        out = pl.store(pl.load(x, [0, 0], [N, 64]), [0, 0], out)
        return out

    @pl.jit
    def entry(x: pl.Tensor[[N, 64], pl.FP32], out: pl.Out[pl.Tensor[[N, 64], pl.FP32]]):
        return k(x, out)

    with pytest.raises(ParserTypeError) as e:
        entry(torch.randn(32, 64), torch.zeros(32, 64))
    assert e.value.message == "pl.load shapes must be compile-time constants"


def test_dynamic_tensor_as_whole_tile_is_constant_shape_text():
    @pl.jit.incore
    def k(x: pl.Tensor[[N, 64], pl.FP32], out: pl.Out[pl.Tensor[[N, 64], pl.FP32]]):
        out = pl.store(pl.add(x, 1.0), [0, 0], out)
        return out

    @pl.jit
    def entry(x: pl.Tensor[[N, 64], pl.FP32], out: pl.Out[pl.Tensor[[N, 64], pl.FP32]]):
        return k(x, out)

    with pytest.raises(ParserTypeError) as e:
        entry(torch.randn(32, 64), torch.zeros(32, 64))
    assert e.value.message.startswith("pl.load shapes must be compile-time constants: dimension 0 of this tensor "
                                      "is the dynamic dimension 'N'")


def _dim_entry(axis_src):
    ns = {}
    src = '''
import pypto.language as pl
N = pl.dynamic("N")

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[N, 16], pl.FP32], out: pl.Out[pl.Tensor[[8, 1], pl.INDEX]]):
        pl.write(out, [0, 0], pl.tensor.dim(x, %s))
        return out
''' % axis_src
    return src, ns


def test_tensor_dim_folds_static_dimension():
    @pl.jit.incore
    def k(x: pl.Tensor[[N, 16], pl.FP32], out: pl.Out[pl.Tensor[[N, 16], pl.FP32]]):
        out = pl.store(pl.load(x, [0, 0], [8, pl.tensor.dim(x, 1)]), [0, 0], out)
        return out

    @pl.jit
    def entry(x: pl.Tensor[[N, 16], pl.FP32], out: pl.Out[pl.Tensor[[N, 16], pl.FP32]]):
        return k(x, out)

    x, out = torch.randn(8, 16), torch.zeros(8, 16)
    text = entry.lower(x, out)
    assert "pl.load(x, [0, 0], [8, 16]" in text and "pl.tensor.dim(x, 1)" not in text
    entry(x, out)
    assert torch.equal(out, x)


def test_tensor_dim_negative_axis_counts_from_end():
    @pl.jit.incore
    def k(x: pl.Tensor[[N, 16], pl.FP32], out: pl.Out[pl.Tensor[[N, 16], pl.FP32]]):
        n = pl.tensor.dim(x, -2)
        for i in pl.range(0, n, 8):
            out = pl.store(pl.neg(pl.load(x, [i, 0], [8, 16])), [i, 0], out)
        return out

    @pl.jit
    def entry(x: pl.Tensor[[N, 16], pl.FP32], out: pl.Out[pl.Tensor[[N, 16], pl.FP32]]):
        return k(x, out)

    x, out = torch.randn(24, 16), torch.zeros(24, 16)
    entry(x, out)
    np.testing.assert_array_equal(out.numpy(), -x.numpy())
    assert "pl.tensor.dim(x, 0)" in entry.lower(x, out)


@pytest.mark.parametrize("axis", [2, -3])
def test_tensor_dim_axis_out_of_range_text(axis):
    @pl.jit.incore
    def k(x: pl.Tensor[[N, 16], pl.FP32], out: pl.Out[pl.Tensor[[N, 16], pl.FP32]]):
        n = pl.tensor.dim(x, axis)
        out = pl.store(pl.load(x, [0, 0], [8, 16]), [0, 0], out)
        return out

    @pl.jit
    def entry(x: pl.Tensor[[N, 16], pl.FP32], out: pl.Out[pl.Tensor[[N, 16], pl.FP32]]):
        return k(x, out)

    with pytest.raises(InvalidOperationError) as e:
        entry(torch.randn(8, 16), torch.zeros(8, 16))
    assert e.value.message == "pl.tensor.dim: axis %d is out of range for a rank-2 tensor" % axis


def test_tensor_dim_in_orchestration():
    @pl.jit.incore
    def k(x: pl.Tensor[[N, 16], pl.FP32], out: pl.Out[pl.Tensor[[N, 16], pl.FP32]], r: pl.Scalar[pl.INDEX]):
        out = pl.store(pl.load(x, [r, 0], [8, 16]), [r, 0], out)
        return out

    @pl.jit
    def entry(x: pl.Tensor[[N, 16], pl.FP32], out: pl.Out[pl.Tensor[[N, 16], pl.FP32]]):
        n = pl.tensor.dim(x, 0)
        for i in pl.range(0, n, 8):
            out = k(x, out, i)
        return out

    for extent in (8, 40):
        x, out = torch.randn(extent, 16), torch.zeros(extent, 16)
        entry(x, out)
        assert torch.equal(out, x)
    assert entry.cache_info()[1] == 1


def test_dynamic_printed_once_before_program():
    text = double_rows.lower(torch.randn(32, 64), torch.zeros(32, 64))
    assert text.startswith('import pypto.language as pl\n\nN = pl.dynamic("N")\n\n@pl.program\n')
    assert text.count('pl.dynamic(') == 1
    assert "self._double_rows(x, out)  # x: In [0:N, 0:64]; out: Out [0:N, 0:64]" in text  # the whole dynamic dimension


def test_dynamic_round_trip_byte_identical():
    x, out = torch.randn(64, 64), torch.zeros(64, 64)
    text = double_rows.lower(x, out)
    again = pl.parse(str(text))
    assert again.as_python().startswith('import pypto.language as pl\n\nN = pl.dynamic("N")\n\n')
    assert again.lower(x, out) == text
    assert pl.parse(str(again.as_python())).as_python() == again.as_python()


def test_parse_undefined_dimension_name_is_dynvar():
    text = str(double_rows.lower(torch.randn(32, 64), torch.zeros(32, 64)))
    bare = text.replace('N = pl.dynamic("N")\n\n', "")
    prog = pl.parse(bare)
    assert prog.lower(torch.randn(32, 64), torch.zeros(32, 64)) == text
    x, out = torch.randn(64, 64), torch.zeros(64, 64)
    prog(x, out)
    np.testing.assert_array_equal(out.numpy(), x.numpy() * 2)


def test_dynamic_signature_compile_serves_every_extent(tmp_path, monkeypatch):
    monkeypatch.setenv("PYPTO_PROG_BUILD_DIR", str(tmp_path))  # compile() makes its output_dir there
    double_rows.cache_clear()
    compiled = double_rows.compile()
    for extent in (32, 64):
        x, out = torch.randn(extent, 64), torch.zeros(extent, 64)
        compiled(x, out)
        np.testing.assert_array_equal(out.numpy(), x.numpy() * 2)
        double_rows(x, out)
    assert double_rows.cache_info()[1] == 1
    with pytest.raises(PTORuntimeError, match="dynamic dimension 'N' is 32 for argument 'x' but 64 for argument 'out'"):
        compiled(torch.randn(32, 64), torch.zeros(64, 64))
    with pytest.raises(ValueError, match="Cannot allocate output tensor 'out'"):
        compiled(torch.randn(32, 64))


@pl.jit.incore
def _two_r(x: pl.Tensor[[A, 64], pl.FP32], y: pl.Tensor[[B, 64], pl.FP32], out: pl.Out[pl.Tensor[[A, 64], pl.FP32]]):
    out = pl.store(pl.add(pl.load(x, [0, 0], [8, 64]), pl.load(y, [0, 0], [8, 64])), [0, 0], out)
    return out


@pl.jit
def two_r(x: pl.Tensor[[A, 64], pl.FP32], y: pl.Tensor[[B, 64], pl.FP32], out: pl.Out[pl.Tensor[[A, 64], pl.FP32]]):
    return _two_r(x, y, out)


def test_dynamic_two_dynvars_of_one_name_print_apart():
    x, y, out = torch.randn(16, 64), torch.randn(8, 64), torch.zeros(16, 64)
    text = str(two_r.lower(x, y, out))
    assert 'R = pl.dynamic("R")\nR_2 = pl.dynamic("R_2")\n' in text, text
    assert "y: pl.Tensor[[R_2, 64], pl.FP32]" in text, text
    again = pl.parse(text)
    again(x, y, out)  # two symbols after the round trip too: 16 and 8 do not conflict
    assert torch.equal(out[:8], x[:8] + y[:8])
    assert str(again.lower(x, y, out)) == text
