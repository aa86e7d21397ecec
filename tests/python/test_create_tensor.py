"""pl.create_tensor (docs/dsl.md, "Operations"): a tensor in the current ring's heap,
with init_value= setting every element when it is allocated (converted to
the tensor's dtype: FP16/BF16 rounded to nearest even, integers wrapped),
from a constant or from a scalar computed at run time; the type rules of
init_value=; and the printed program showing it."""
import pytest
import torch

from pypto.language.parser.diagnostics import ParserTypeError

from conftest import line_of

DT = {"FP32": torch.float32, "FP16": torch.float16, "BF16": torch.bfloat16,
      "INT32": torch.int32, "INT8": torch.int8, "INT64": torch.int64, "INT16": torch.int16, "BOOL": torch.bool}

KERNEL = """
    R, C = 5, 33

    @pl.jit
    def filled(out: pl.Out[pl.Tensor], v: pl.Scalar):
        for i in pl.range(2):
            tmp = pl.create_tensor([R, C], dtype=pl.{dt}, init_value=v)
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(tmp, [0, 0], [R, C])
                pl.store(t, [i * R, 0], out)
        return out
    """


@pytest.mark.parametrize("dt,value,want", [
    ("FP32", 1.25, 1.25), ("FP32", 3, 3.0),
    ("FP16", 0.1, float(torch.tensor(0.1).half())), ("BF16", 0.1, float(torch.tensor(0.1).bfloat16())),
    ("INT32", -7, -7), ("INT32", 2**31 + 5, -(2**31) + 5),
    ("INT8", 300, 44), ("INT8", -129, 127),
    ("INT64", 2**40 + 3, 2**40 + 3), ("INT64", -2**63, -2**63), ("INT16", 40000, -25536), ("BOOL", 5, True), ("BOOL", 0, False),
])
def test_create_tensor_init_value_fills_every_element(load, dt, value, want):
    mod, _ = load(KERNEL.replace("{dt}", dt))
    out = torch.full((10, 33), 99, dtype=DT[dt])
    mod.filled(out, value)
    assert torch.equal(out, torch.full((10, 33), want, dtype=DT[dt])), out


def test_create_tensor_init_value_from_loop_scalar(load):
    mod, _ = load("""
        @pl.jit
        def per_row(a: pl.Tensor, out: pl.Out[pl.Tensor]):
            for i in pl.range(4):
                tmp = pl.create_tensor([8, 16], dtype=pl.FP32, init_value=i * 2 + 0.5)
                with pl.at(level=pl.Level.CORE_GROUP):
                    t = pl.load(a, [i * 8, 0], [8, 16])
                    pl.store(pl.add(t, pl.load(tmp, [0, 0], [8, 16])), [i * 8, 0], out)
            return out
        """)
    a = torch.arange(32 * 16, dtype=torch.float32).reshape(32, 16)
    out = torch.zeros_like(a)
    mod.per_row(a, out)
    want = a + (torch.arange(4, dtype=torch.float32) * 2 + 0.5).repeat_interleave(8)[:, None]
    torch.testing.assert_close(out, want, rtol=0, atol=0)


@pytest.mark.parametrize("dt,value,text", [
    ("INT32", "1.5", "pl.create_tensor: a float init_value= for an INT32 tensor; pass an int"),
    ("INT8", "v * 0.5", "pl.create_tensor: a float init_value= for an INT8 tensor; pass an int"),
    ("FP32", "True", "pl.create_tensor init_value= must be an int or float scalar"),
    ("FP32", "v > 0", "pl.create_tensor init_value= must be an int or float scalar"),
])
def test_create_tensor_init_value_type_rules(load, dt, value, text):
    mod, path = load("""
        @pl.jit
        def bad(out: pl.Out[pl.Tensor], v: pl.Scalar[pl.INDEX]):
            tmp = pl.create_tensor([4, 4], dtype=pl.%s, init_value=%s)
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.store(pl.load(tmp, [0, 0], [4, 4]), [0, 0], out)
            return out
        """ % (dt, value))
    with pytest.raises(ParserTypeError) as e:
        mod.bad(torch.zeros(4, 4, dtype=DT[dt]), 3)
    line, col = line_of(path, "init_value=")
    assert text in str(e.value)
    assert "%s:%d:%d" % (path, line, col + len("init_value=")) in str(e.value)


def test_create_tensor_init_value_printed_after_dtype(load):
    mod, _ = load(KERNEL.replace("{dt}", "FP16"))
    text = mod.filled.lower(torch.zeros(10, 33, dtype=torch.float16), 0.5)
    assert "tmp = pl.create_tensor([5, 33], pl.FP16, init_value=0.5)" in text  # a Python scalar is specialized (docs/compiler.md, "Specialization and the cache")
