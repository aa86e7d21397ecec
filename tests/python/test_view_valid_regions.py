"""Valid regions of orchestration views (docs/dsl.md, "Views and valid regions"): a pl.slice
window may run past its tensor's edge at run time, keeping the part inside as its valid region;
valid_shape= cuts a view's valid region; a kernel parameter's pl.TensorView(valid_shape=) cuts
what the kernel sees.  Loads and stores act on the part of their window inside the valid
region; an element outside it is an error.  One test per rule."""
import numpy as np
import pytest
import torch

import pypto.language as pl
from pypto.language.parser.diagnostics import InvalidOperationError, ParserTypeError
from pypto.runtime import PTORuntimeError

from conftest import line_of

V = pl.dynamic("V")

KERNELS = """
@pl.function(type=pl.FunctionType.InCore)
def bump(x: pl.Tensor[[8], pl.INT32], n: pl.Scalar[pl.INDEX], o: pl.Out[pl.Tensor[[8], pl.INT32]]) -> pl.Tensor[[8], pl.INT32]:
    for i in pl.range(n):
        pl.write(o, [i], pl.read(x, [i]) + 1)
    return o


@pl.function(type=pl.FunctionType.InCore)
def padded(x: pl.Tensor[[4, 8], pl.FP32], o: pl.Out[pl.Tensor[[4, 8], pl.FP32]]) -> pl.Tensor[[4, 8], pl.FP32]:
    t = pl.tile.fillpad(pl.load(x, [0, 0], [4, 8]), pad_value=pl.PadValue.zero)
    r = pl.store(pl.add(t, 1.0), [0, 0], o)
    return r


@pl.function(type=pl.FunctionType.InCore)
def capped(x: pl.Tensor[[4, 8], pl.FP32, pl.TensorView(valid_shape=[4, 5], layout=pl.TensorLayout.ND)],
           o: pl.Out[pl.Tensor[[4, 8], pl.FP32]]) -> pl.Tensor[[4, 8], pl.FP32]:
    t = pl.tile.fillpad(pl.load(x, [0, 0], [4, 8]), pad_value=pl.PadValue.zero)
    r = pl.store(t, [0, 0], o)
    return r


@pl.function(type=pl.FunctionType.InCore)
def uncapped(x: pl.Tensor[[4, 8], pl.FP32, pl.TensorView(valid_shape=[4, V], layout=pl.TensorLayout.ND)],
             o: pl.Out[pl.Tensor[[4, 8], pl.FP32]]) -> pl.Tensor[[4, 8], pl.FP32]:
    t = pl.tile.fillpad(pl.load(x, [0, 0], [4, 8]), pad_value=pl.PadValue.zero)
    r = pl.store(t, [0, 0], o)
    return r
"""

HEADER = "import pypto.language as pl\nfrom test_view_valid_regions import V\n"


@pytest.fixture
def mod(load):
    return load(KERNELS + """

@pl.program
class Edge:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, t: pl.Tensor[[20], pl.INT32], off: pl.Scalar[pl.INDEX], n: pl.Scalar[pl.INDEX],
             out: pl.Out[pl.Tensor[[8], pl.INT32]]) -> pl.Tensor[[8], pl.INT32]:
        out = bump(pl.slice(t, [8], [off]), n, out)
        return out


@pl.program
class Walk:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, t: pl.Tensor[[20], pl.INT32], out: pl.Out[pl.Tensor[[8], pl.INT32]]) -> pl.Tensor[[8], pl.INT32]:
        for j in pl.range(3):
            out = bump(pl.slice(t, [8], [j * 10]), 1, out)
        return out


@pl.program
class Stores:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[4, 8], pl.FP32], off: pl.Scalar[pl.INDEX],
             out: pl.Out[pl.Tensor[[4, 20], pl.FP32]]) -> pl.Tensor[[4, 20], pl.FP32]:
        w = padded(a, pl.slice(out, [4, 8], [0, off]))
        return out


@pl.program
class Valid:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[4, 8], pl.FP32], cfg: pl.Tensor[[1], pl.INT64],
             out: pl.Out[pl.Tensor[[4, 8], pl.FP32]]) -> pl.Tensor[[4, 8], pl.FP32]:
        cols = pl.tensor.read(cfg, [0])
        out = padded(pl.slice(a, [4, 8], [0, 0], valid_shape=[4, cols]), out)
        return out


@pl.program
class Caps:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[4, 8], pl.FP32], cols: pl.Scalar[pl.INDEX], o1: pl.Out[pl.Tensor[[4, 8], pl.FP32]],
             o2: pl.Out[pl.Tensor[[4, 8], pl.FP32]]) -> tuple[pl.Tensor[[4, 8], pl.FP32], pl.Tensor[[4, 8], pl.FP32]]:
        v = pl.slice(a, [4, 8], [0, 0], valid_shape=[4, cols])
        o1 = capped(v, o1)
        o2 = uncapped(v, o2)
        return o1, o2


@pl.program
class Copies:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, t: pl.Tensor[[20], pl.INT32], off: pl.Scalar[pl.INDEX],
             out: pl.Out[pl.Tensor[[8], pl.INT32]]) -> pl.Tensor[[8], pl.INT32]:
        out = pl.assemble(out, pl.slice(t, [8], [off]), [0])
        return out


@pl.program
class Reads:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, t: pl.Tensor[[20], pl.INT32], off: pl.Scalar[pl.INDEX], i: pl.Scalar[pl.INDEX],
             out: pl.Out[pl.Tensor[[8], pl.INT32]]) -> pl.Tensor[[8], pl.INT32]:
        v = pl.slice(t, [8], [off])
        pl.write(out, [0], pl.read(v, [i]))
        return out
""", header=HEADER)


def _t():
    return torch.arange(20, dtype=torch.int32)


def test_view_past_the_edge_keeps_the_part_inside(mod):
    m, _ = mod
    out = torch.zeros(8, dtype=torch.int32)
    m.Edge(_t(), 16, 4, out)
    assert out.tolist() == [17, 18, 19, 20, 0, 0, 0, 0]


def test_view_past_the_edge_element_outside_fails(mod):
    m, path = mod
    with pytest.raises(PTORuntimeError) as e:
        m.Edge(_t(), 16, 5, torch.zeros(8, dtype=torch.int32))
    assert e.value.code == 12
    line, col = line_of(path, "pl.read(x, [i])")
    assert "pl.read: index 4 is outside the valid region of dimension 0 (4 of 8 valid) (at %s:%d:%d)" % (path, line, col) in str(e.value)


def test_view_start_past_the_end_fails(mod):
    m, path = mod
    with pytest.raises(InvalidOperationError) as e:  # a scalar argument is a constant of the compile
        m.Edge(_t(), 20, 1, torch.zeros(8, dtype=torch.int32))
    assert e.value.message == "pl.slice: offset 20 is past the end of dimension 0 of extent 20"
    with pytest.raises(PTORuntimeError) as e:
        m.Walk(_t(), torch.zeros(8, dtype=torch.int32))
    assert e.value.code == 9
    line, col = line_of(path, "pl.slice(t, [8], [j * 10])")
    assert "pl.slice: offset 20 is past the end of dimension 0 of extent 20 at %s:%d:%d" % (path, line, col) in str(e.value)


def test_store_into_view_past_the_edge_writes_the_part_inside(mod):
    m, _ = mod
    a = torch.arange(32, dtype=torch.float32).reshape(4, 8)
    out = torch.full((4, 20), -1.0)
    m.Stores(a, 15, out)
    want = np.full((4, 20), -1.0, np.float32)
    want[:, 15:] = a.numpy()[:, :5] + 1
    np.testing.assert_array_equal(out.numpy(), want)


@pytest.mark.parametrize("cols", [0, 3, 8])
def test_valid_shape_cuts_what_a_kernel_loads(mod, cols):
    m, _ = mod
    a = torch.arange(32, dtype=torch.float32).reshape(4, 8)
    out = torch.full((4, 8), -1.0)
    m.Valid(a, torch.tensor([cols]), out)
    want = np.ones((4, 8), np.float32)
    want[:, :cols] += a.numpy()[:, :cols]
    np.testing.assert_array_equal(out.numpy(), want)


@pytest.mark.parametrize("cols, msg", [(9, "pl.slice: valid_shape entry 1 (9) is outside 0 to 8"),
                                       (-1, "pl.slice: valid_shape entry 1 (-1) is outside 0 to 8")])
def test_valid_shape_run_time_entry_is_checked(mod, cols, msg):
    m, _ = mod
    with pytest.raises(PTORuntimeError) as e:
        m.Valid(torch.zeros(4, 8), torch.tensor([cols]), torch.zeros(4, 8))
    assert e.value.code == 9 and msg in str(e.value)


@pytest.mark.parametrize("cols", [3, 7])
def test_tensor_view_valid_shape_caps_a_kernel_parameter(mod, cols):
    """a constant entry cuts the argument's valid region; a DynVar entry keeps the argument's own"""
    m, _ = mod
    a = torch.arange(1, 33, dtype=torch.float32).reshape(4, 8)
    o1, o2 = torch.full((4, 8), -1.0), torch.full((4, 8), -1.0)
    m.Caps(a, cols, o1, o2)
    for got, keep in ((o1, min(cols, 5)), (o2, cols)):
        want = np.zeros((4, 8), np.float32)
        want[:, :keep] = a.numpy()[:, :keep]
        np.testing.assert_array_equal(got.numpy(), want)


def test_copy_of_a_view_past_the_edge_copies_the_part_inside(mod):
    m, _ = mod
    out = torch.full((8,), -1, dtype=torch.int32)
    m.Copies(_t(), 17, out)
    assert out.tolist() == [17, 18, 19, -1, -1, -1, -1, -1]


def test_orchestration_read_outside_the_valid_region_fails(mod):
    m, _ = mod
    out = torch.zeros(8, dtype=torch.int32)
    m.Reads(_t(), 16, 3, out)
    assert out[0] == 19
    with pytest.raises(PTORuntimeError) as e:
        m.Reads(_t(), 16, 4, out)
    assert e.value.code == 9
    assert "pl.read: index 4 is outside the valid region of dimension 0 (4 of 8 valid)" in str(e.value)


PRINTED = '''
import pypto.language as pl

V = pl.dynamic("V")

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def capped(self, x: pl.Tensor[[4, 8], pl.FP32, pl.TensorView(valid_shape=[4, 5], layout=pl.TensorLayout.ND)],
               y: pl.Tensor[[4, 8], pl.FP32, pl.TensorView(valid_shape=[4, V], layout=pl.TensorLayout.ND)],
               o: pl.Out[pl.Tensor[[4, 8], pl.FP32]]) -> pl.Tensor[[4, 8], pl.FP32]:
        r = pl.store(pl.add(pl.load(x, [0, 0], [4, 8]), pl.load(y, [0, 0], [4, 8])), [0, 0], o)
        return r

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[4, 8], pl.FP32], cfg: pl.Tensor[[1], pl.INT64],
             o: pl.Out[pl.Tensor[[4, 8], pl.FP32]]) -> pl.Tensor[[4, 8], pl.FP32]:
        cols = pl.tensor.read(cfg, [0])
        o = self.capped(a, pl.slice(a, [4, 8], [0, 0], valid_shape=[4, cols]), o)
        return o
'''


def test_valid_shape_and_tensor_view_print_back():
    text = pl.parse(PRINTED).as_python()
    assert "valid_shape=[4, cols]" in text
    assert "pl.TensorView(valid_shape=[4, 5], layout=pl.TensorLayout.ND)" in text
    assert "pl.TensorView(valid_shape=[4, V], layout=pl.TensorLayout.ND)" in text
    assert 'V = pl.dynamic("V")' in text
    assert pl.parse(text).as_python() == text


@pytest.mark.parametrize("entry, cls, msg", [
    ("[4]", ParserTypeError, "pl.TensorView valid_shape must be a list of 2 entries, one per dimension"),
    ("[4, 9]", ParserTypeError, "pl.TensorView valid_shape entry 1 (9) is outside 0 to 8"),
    ("[4, 1.5]", ParserTypeError, "pl.TensorView valid_shape entries (or pl.dynamic dimensions) must be compile-time constants"),
])
def test_tensor_view_valid_shape_entries(entry, cls, msg):
    src = '''
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[4, 8], pl.FP32, pl.TensorView(valid_shape=%s, layout=pl.TensorLayout.ND)],
          out: pl.Out[pl.Tensor[[4, 8], pl.FP32]]):
        out = pl.store(pl.load(x, [0, 0], [4, 8]), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[4, 8], pl.FP32], out: pl.Out[pl.Tensor[[4, 8], pl.FP32]]):
        out = self.k(x, out)
        return out
''' % entry
    with pytest.raises(cls) as e:
        pl.parse(src)(torch.zeros(4, 8), torch.zeros(4, 8))
    assert e.value.message == msg


def test_torch_codegen_refuses_a_view_valid_shape():
    from pypto import debug
    from pypto.language.parser.diagnostics import UnsupportedFeatureError
    with pytest.raises(UnsupportedFeatureError) as e:
        debug.torch_codegen(pl.parse(PRINTED))
    assert e.value.message == "torch_codegen: 'slice' has no torch translation in this version"
