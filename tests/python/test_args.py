"""Argument errors (docs/compiler.md, "Arguments"), the adapted buffers (
C02)."""
import inspect

import numpy as np
import pytest
import torch

import pypto.language as pl
from pypto import _args

import memory_page as seed

WHO = "@pl.jit function 'scaled'"


def out_t():
    return torch.zeros(seed.ROWS, seed.TC)


def call(*args, **kw):
    """A call that runs and returns None."""
    assert seed.scaled(*args, **kw) is None


def test_C01_torch_numpy_mixed_reach_dispatch():
    call(seed.A, out_t())
    call(seed.A.numpy(), np.zeros((seed.ROWS, seed.TC), np.float32))
    call(seed.A, np.zeros((seed.ROWS, seed.TC), np.float32))


def test_B01_binding():
    with pytest.raises(TypeError) as e:
        seed.scaled(seed.A)
    assert str(e.value) == WHO + ": missing a required argument: 'out'"
    with pytest.raises(TypeError) as e:
        seed.scaled(seed.A, out_t(), out_t())
    assert str(e.value) == WHO + ": too many positional arguments"
    with pytest.raises(TypeError) as e:
        seed.scaled(seed.A, out_t(), bogus=1)
    assert str(e.value) == WHO + ": got an unexpected keyword argument 'bogus'"
    with pytest.raises(TypeError, match="config must be a pypto.runtime.RunConfig"):
        seed.scaled(seed.A, out_t(), config={})


@pytest.mark.parametrize("make", [
    lambda: torch.zeros(seed.TC, seed.ROWS).t(),
    lambda: np.asfortranarray(np.zeros((seed.ROWS, seed.TC), np.float32)),
    lambda: torch.zeros(seed.ROWS, 2 * seed.TC)[:, ::2],
])
def test_B05_not_contiguous(make):
    with pytest.raises(ValueError) as e:
        seed.scaled(make(), out_t())
    assert str(e.value) == (WHO + ": argument 'a' is not contiguous; pass a contiguous tensor (torch: "
                            "x.contiguous(), numpy: np.ascontiguousarray(x))")


def test_B06_device_dtype_readonly():
    meta = torch.empty(seed.ROWS, seed.TC, device="meta")
    with pytest.raises(ValueError) as e:
        seed.scaled(meta, out_t())
    assert str(e.value) == WHO + ": argument 'a' is on device 'meta'; expected a CPU tensor"
    seed.scaled.lower(meta, out_t())  # lower() takes meta tensors
    with pytest.raises(TypeError) as e:
        seed.scaled(seed.A.double(), out_t())
    assert str(e.value) == (WHO + ": argument 'a' has dtype float64, which has no pypto dtype "
                            "(supported: float32, float16, bfloat16, int64, int32, int16, int8, uint32, uint16, uint8, bool)")
    with pytest.raises(TypeError, match="has dtype float64"):
        seed.scaled(seed.A, np.zeros((seed.ROWS, seed.TC)))
    ro = np.zeros((seed.ROWS, seed.TC), np.float32)
    ro.setflags(write=False)
    with pytest.raises(ValueError) as e:
        seed.scaled(seed.A, ro)
    assert str(e.value) == WHO + ": argument 'out' is read-only but the kernel writes it"
    call(ro, out_t())  # read-only input: fine


def test_non_tensor_and_non_scalar_arguments(load):
    with pytest.raises(TypeError) as e:
        seed.scaled([1, 2], out_t())
    assert str(e.value) == WHO + ": argument 'a' must be a tensor (torch.Tensor or numpy.ndarray), got list"
    mod, _ = load("""
        @pl.jit
        def k(a: pl.Tensor, out: pl.Out[pl.Tensor], s: pl.Scalar):
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.store(pl.mul(pl.load(a, [0, 0], [64, 128]), s), [0, 0], out)
            return out
        """)
    a = torch.zeros(64, 128)
    with pytest.raises(TypeError) as e:
        mod.k(a, a, "x")
    assert str(e.value) == "@pl.jit function 'k': argument 's' must be a Python int, float or bool, got str"
    assert "2.0" in mod.k.lower(a, a, np.float32(2.0))  # numpy scalars specialize like Python ones
    with pytest.raises(TypeError) as e:
        mod.k.lower(a, a, a)
    assert str(e.value) == "@pl.jit function 'k': argument 's' must be a Python int, float or bool, got tensor"


def test_C02_views_keep_their_storage():
    big = torch.zeros(512, seed.TC)
    view = big[64:320]
    sig = inspect.signature(seed.scaled.__wrapped__)
    bound = sig.bind(seed.A, view)
    specs, buffers = _args.adapt_args(WHO, sig, bound, False)
    assert specs[1] == ("tensor", "out", "FP32", (256, seed.TC))
    name, obj, base, offset, nbytes, writable = buffers[1]
    assert obj is view and base == big.data_ptr() and offset == 64 * seed.TC * 4
    assert nbytes == 256 * seed.TC * 4 and writable
    arr = np.zeros((512, seed.TC), np.float32)
    bound = sig.bind(arr[64:320], arr[64:320])
    _, buffers = _args.adapt_args(WHO, sig, bound, False)
    assert buffers[0][2] == arr.__array_interface__["data"][0] and buffers[0][3] == 64 * seed.TC * 4
