"""pl.gather_mask(src, mask_pattern, output_dtype=None) (pl.tile.; pl.tensor.gather(x,
mask_pattern=) is its tensor form; docs/dsl.md, Operations): each row's columns a fixed pattern
selects (pl.tile.MaskPattern, read right to left), the bits read as output_dtype; and its inverse
pl.scatter_mask (pl.tensor.scatter(input, mask_pattern=, dst=)).  Against numpy slicing,
bit-exact.  One test per rule."""
import numpy as np
import pytest
import torch

import pypto.language as pl
from pypto import debug
from pypto.language.parser.diagnostics import InvalidOperationError, ParserTypeError

PATTERNS = {"P0101": (0, 2), "P1010": (1, 2), "P0001": (0, 4), "P0010": (1, 4), "P0100": (2, 4), "P1000": (3, 4), "P1111": (0, 1)}
DT = {"FP32": torch.float32, "INT32": torch.int32, "FP16": torch.float16, "INT16": torch.int16}


def _src(dt):
    x = torch.arange(4 * 16, dtype=torch.float32).reshape(4, 16) * 3 - 50
    return x.to(DT[dt])


@pytest.mark.parametrize("dt", list(DT))
@pytest.mark.parametrize("name", list(PATTERNS))
@pytest.mark.parametrize("form", ["pl.tile.gather_mask(pl.load(x, [0, 0], [4, 16]), pl.tile.MaskPattern.{p})",
                                  "pl.gather_mask(pl.load(x, [0, 0], [4, 16]), pl.MaskPattern.{p})",
                                  "pl.tensor.gather(x, mask_pattern={v})"])
def test_gather_mask_selects_the_patterns_columns(load, dt, name, form):
    phase, stride = PATTERNS[name]
    cols = 16 // stride
    expr = form.format(p=name, v=list(PATTERNS).index(name) + 1)
    mod, _ = load("""
        @pl.jit.incore
        def _k(x: pl.Tensor[[4, 16], pl.%s], o: pl.Out[pl.Tensor[[4, %d], pl.%s]]):
            o = pl.store(%s, [0, 0], o)
            return o

        @pl.jit
        def f(x: pl.Tensor[[4, 16], pl.%s], o: pl.Out[pl.Tensor[[4, %d], pl.%s]]):
            return _k(x, o)
        """ % (dt, cols, dt, expr, dt, cols, dt))
    x, o = _src(dt), torch.zeros(4, cols, dtype=DT[dt])
    mod.f(x, o)
    assert torch.equal(o, x[:, phase::stride])


def test_gather_mask_output_dtype_reads_the_bits(load):
    mod, _ = load("""
        @pl.jit.incore
        def _k(x: pl.Tensor[[4, 16], pl.FP32], o: pl.Out[pl.Tensor[[4, 8], pl.INT32]]):
            o = pl.store(pl.gather_mask(pl.load(x, [0, 0], [4, 16]), 2, output_dtype=pl.INT32), [0, 0], o)
            return o

        @pl.jit
        def f(x: pl.Tensor[[4, 16], pl.FP32], o: pl.Out[pl.Tensor[[4, 8], pl.INT32]]):
            return _k(x, o)
        """)
    x, o = torch.randn(4, 16), torch.zeros(4, 8, dtype=torch.int32)
    mod.f(x, o)
    assert np.array_equal(o.numpy(), x.numpy()[:, 1::2].copy().view(np.int32))


def test_gather_mask_valid_region_is_the_selected_valid_columns(load):
    mod, _ = load("""
        @pl.jit.incore
        def _k(x: pl.Tensor[[4, 16], pl.FP32], o: pl.Out[pl.Tensor[[4, 8], pl.FP32]]):
            t = pl.load(x, [0, 0], [4, 16], valid_shape=[3, 7])
            o = pl.store(pl.gather_mask(t, pl.tile.MaskPattern.P1010), [0, 0], o)
            return o

        @pl.jit
        def f(x: pl.Tensor[[4, 16], pl.FP32], o: pl.Out[pl.Tensor[[4, 8], pl.FP32]]):
            return _k(x, o)
        """)
    x, o = torch.randn(4, 16), torch.full((4, 8), -7.0)
    mod.f(x, o)
    want = torch.full((4, 8), -7.0)
    want[:3, :3] = x[:3, 1:7:2]  # columns 1, 3, 5 of the 7 valid ones
    assert torch.equal(o, want)


def _expect_error(load, expr, ucols, cls, msg):
    """expr in a kernel with t = x's [4, 16] tile and u its first ucols columns: the compile's error."""
    mod, _ = load("""
        @pl.jit.incore
        def _k(x: pl.Tensor[[4, 16], pl.FP32], o: pl.Out[pl.Tensor[[4, 16], pl.FP32]]):
            t = pl.load(x, [0, 0], [4, 16])
            u = pl.load(x, [0, 0], [4, %d])
            g = %s
            o = pl.store(t, [0, 0], o)
            return o

        @pl.jit
        def f(x: pl.Tensor[[4, 16], pl.FP32], o: pl.Out[pl.Tensor[[4, 16], pl.FP32]]):
            return _k(x, o)
        """ % (ucols, expr))
    with pytest.raises(cls) as e:
        mod.f(torch.zeros(4, 16), torch.zeros(4, 16))
    assert e.value.message == msg


@pytest.mark.parametrize("args, cls, msg", [
    ("t, 8", InvalidOperationError, "pl.gather_mask: mask_pattern must be 1 to 7 (a pl.tile.MaskPattern member), got 8"),
    ("t, 0", InvalidOperationError, "pl.gather_mask: mask_pattern must be 1 to 7 (a pl.tile.MaskPattern member), got 0"),
    ("t, 1, output_dtype=pl.FP16", ParserTypeError, "pl.gather_mask: output_dtype FP16 has 2-byte elements, src FP32 4-byte ones"),
    ("u, pl.tile.MaskPattern.P0001", InvalidOperationError,
     "pl.gather_mask with mask_pattern=P0001 requires src columns divisible by 4, got 6"),
])
def test_gather_mask_rules(load, args, cls, msg):
    _expect_error(load, "pl.gather_mask(%s)" % args, 6, cls, msg)


PRINTED = '''
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[4, 16], pl.FP32], o: pl.Out[pl.Tensor[[4, 4], pl.INT32]]) -> pl.Tensor[[4, 4], pl.INT32]:
        o = pl.store(pl.gather_mask(pl.load(x, [0, 0], [4, 16]), pl.tile.MaskPattern.P0100, output_dtype=pl.INT32), [0, 0], o)
        return o

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[4, 16], pl.FP32], o: pl.Out[pl.Tensor[[4, 4], pl.INT32]]) -> pl.Tensor[[4, 4], pl.INT32]:
        o = self.k(x, o)
        return o
'''


def test_gather_mask_prints_back_and_translates_to_torch():
    prog = pl.parse(PRINTED)
    text = prog.as_python()
    assert "MaskPattern.P0100, output_dtype=pl.INT32" in text
    assert pl.parse(text).as_python() == text
    x, o = torch.randn(4, 16), torch.zeros(4, 4, dtype=torch.int32)
    prog(x, o)
    assert np.array_equal(o.numpy(), x.numpy()[:, 2::4].copy().view(np.int32))
    ns = {}
    exec(compile(debug.torch_codegen(prog), "<torch_codegen>", "exec"), ns)
    o2 = torch.zeros(4, 4, dtype=torch.int32)
    ns["main"](x, o2)
    assert torch.equal(o2, o)


def test_gather_mask_lowered_text_names_the_pattern_and_parses_back(load):
    mod, _ = load("""
        @pl.jit
        def f(x: pl.Tensor[[4, 16], pl.FP32], o: pl.Out[pl.Tensor[[4, 8], pl.INT32]]):
            with pl.at(level=pl.Level.CORE_GROUP):
                o = pl.store(pl.tensor.gather(x, mask_pattern=2, output_dtype=pl.INT32), [0, 0], o)
            return o
        """)
    args = (torch.zeros(4, 16), torch.zeros(4, 8, dtype=torch.int32))
    text = mod.f.lower(*args)
    assert "pl.MaskPattern.P1010, output_dtype=pl.INT32)" in text and "pl.gather_mask(" in text
    assert pl.parse_program(text).lower(*args) == text


# ---- pl.scatter_mask(dst, src, mask_pattern), pl.tensor.scatter(input, mask_pattern=, dst=): the inverse ----

@pytest.mark.parametrize("name", list(PATTERNS))
@pytest.mark.parametrize("form", ["pl.scatter_mask(pl.load(d, [0, 0], [4, 16]), pl.load(s, [0, 0], [4, {c}]), pl.tile.MaskPattern.{p})",
                                  "pl.tensor.scatter(s, mask_pattern={v}, dst=d)"])
def test_scatter_mask_writes_src_into_the_patterns_columns(load, name, form):
    phase, stride = PATTERNS[name]
    cols = 16 // stride
    mod, _ = load("""
        @pl.jit.incore
        def _k(d: pl.Tensor[[4, 16], pl.INT32], s: pl.Tensor[[4, %d], pl.INT32], o: pl.Out[pl.Tensor[[4, 16], pl.INT32]]):
            o = pl.store(%s, [0, 0], o)
            return o

        @pl.jit
        def f(d: pl.Tensor[[4, 16], pl.INT32], s: pl.Tensor[[4, %d], pl.INT32], o: pl.Out[pl.Tensor[[4, 16], pl.INT32]]):
            return _k(d, s, o)
        """ % (cols, form.format(p=name, c=cols, v=list(PATTERNS).index(name) + 1), cols))
    d, s, o = _src("INT32"), -_src("INT32")[:, :cols].contiguous(), torch.zeros(4, 16, dtype=torch.int32)
    mod.f(d, s, o)
    want = d.clone()
    want[:, phase::stride] = s
    assert torch.equal(o, want)


def test_scatter_mask_grows_the_valid_region_to_the_written_cells(load):
    mod, _ = load("""
        @pl.jit.incore
        def _k(d: pl.Tensor[[4, 16], pl.FP32], s: pl.Tensor[[4, 8], pl.FP32], o: pl.Out[pl.Tensor[[4, 16], pl.FP32]]):
            t = pl.load(d, [0, 0], [4, 16], valid_shape=[2, 4])
            o = pl.store(pl.scatter_mask(t, pl.load(s, [0, 0], [4, 8], valid_shape=[3, 4]), pl.tile.MaskPattern.P1010), [0, 0], o)
            return o

        @pl.jit
        def f(d: pl.Tensor[[4, 16], pl.FP32], s: pl.Tensor[[4, 8], pl.FP32], o: pl.Out[pl.Tensor[[4, 16], pl.FP32]]):
            return _k(d, s, o)
        """)
    d, s, o = torch.randn(4, 16), torch.randn(4, 8), torch.full((4, 16), -9.0)
    mod.f(d, s, o)
    want = torch.full((4, 16), -9.0)
    want[:3, :8] = 0.0                  # the grown region: rows 0..2, columns 0..7 (the last written is 7)
    want[:2, :4] = d[:2, :4]            # dst's own valid part
    want[:3, 1:8:2] = s[:3, :4]         # the written cells
    assert torch.equal(o, want)


@pytest.mark.parametrize("expr, cls, msg", [
    ("pl.scatter_mask(t, pl.cast(u, pl.INT32), 2)", ParserTypeError, "pl.scatter_mask: operand dtypes FP32 and INT32 differ; insert pl.cast"),
    ("pl.scatter_mask(t, u, 3)", InvalidOperationError,
     "pl.scatter_mask with mask_pattern=P0001: dst [4, 16] must be src [4, 8] with 4 times its columns"),
    ("pl.tensor.scatter(x, mask_pattern=2)", ParserTypeError, "pl.tensor.scatter's mask form takes input, mask_pattern= and dst="),
])
def test_scatter_mask_rules(load, expr, cls, msg):
    _expect_error(load, expr, 8, cls, msg)


def test_scatter_mask_prints_back_and_translates_to_torch(load):
    mod, _ = load("""
        @pl.jit
        def f(d: pl.Tensor[[4, 16], pl.FP32], s: pl.Tensor[[4, 4], pl.FP32], o: pl.Out[pl.Tensor[[4, 16], pl.FP32]]):
            with pl.at(level=pl.Level.CORE_GROUP):
                o = pl.store(pl.tensor.scatter(s, mask_pattern=6, dst=d), [0, 0], o)
            return o
        """)
    d, s, o = torch.randn(4, 16), torch.randn(4, 4), torch.zeros(4, 16)
    text = mod.f.lower(d, s, o)
    assert "pl.MaskPattern.P1000)" in text and "pl.scatter_mask(" in text
    assert pl.parse_program(text).lower(d, s, o) == text
    mod.f(d, s, o)
    want = d.clone()
    want[:, 3::4] = s
    assert torch.equal(o, want)
    ns = {}
    exec(compile(debug.torch_codegen(pl.parse_program(text)), "<torch_codegen>", "exec"), ns)
    o2 = torch.zeros(4, 16)
    ns["f"](d, s, o2)
    assert torch.equal(o2, want)
