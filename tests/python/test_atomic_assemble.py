"""pl.assemble(target, source, offset, atomic=pl.AtomicType.Add) — split-K (DSL-V2-SPEC §1.5,
§12 P2-06) — and pl.store(..., atomic=pl.AtomicType.Add): each K slice's task adds into a
zeroed output; the target is InOut, so overlapping adders run in submission order and the
result is the numpy sum accumulated in that order, bit for bit, with 1 or 2 workers and small
rings.  FP16/BF16 round once to nearest even, integers wrap.  The errors (dtype, on-chip
target, orchestration) through a call and through lower(), at their columns, nothing left
behind."""
import numpy as np
import pytest
import torch

import pypto.language as pl
from pypto.language.parser.diagnostics import InvalidOperationError, ParserTypeError
from pypto.runtime import RunConfig

from conftest import line_of

KERNELS = """
    KS = 16

    @pl.jit
    def split_k(a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
        for k in pl.range(4):
            with pl.at(level=pl.Level.CORE_GROUP):
                k0 = k * KS
                out = pl.assemble(out, pl.mul(a[:, k0:k0 + KS], b[:, k0:k0 + KS]), [0, 0], atomic=pl.AtomicType.Add)
        return out

    @pl.jit
    def split_k_zeroed(a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
        with pl.at(level=pl.Level.CORE_GROUP):
            out = pl.assemble(out, pl.full([16, 16], dtype=pl.FP32, value=0.0), [0, 0])
        for k in pl.range(4):
            with pl.at(level=pl.Level.CORE_GROUP):
                k0 = k * KS
                partial = pl.matmul(a[:, k0:k0 + KS], pl.transpose(b[:, k0:k0 + KS], 0, 1), out_dtype=pl.FP32)
                out = pl.assemble(out, partial, [0, 0], atomic=pl.AtomicType.Add)
        return out

    @pl.jit
    def into_fresh(a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
        acc = pl.create_tensor([16, 16], pl.FP32)
        for k in pl.range(4):
            with pl.at(level=pl.Level.CORE_GROUP):
                k0 = k * KS
                acc = pl.assemble(acc, a[:, k0:k0 + KS], [0, 0], atomic=pl.AtomicType.Add)
        out = pl.assemble(out, acc, [0, 0])
        return out

    @pl.jit
    def halves(a: pl.Tensor[[4, 32], pl.FP16], out: pl.Out[pl.Tensor[[4, 8], pl.FP16]]):
        for k in pl.range(4):
            with pl.at(level=pl.Level.CORE_GROUP):
                out = pl.assemble(out, a[:, k * 8:k * 8 + 8], [0, 0], atomic=pl.AtomicType.Add)
        return out

    @pl.jit
    def bhalves(a: pl.Tensor[[4, 32], pl.BF16], out: pl.Out[pl.Tensor[[4, 8], pl.BF16]]):
        for k in pl.range(4):
            with pl.at(level=pl.Level.CORE_GROUP):
                out = pl.assemble(out, a[:, k * 8:k * 8 + 8], [0, 0], atomic=pl.AtomicType.Add)
        return out

    @pl.jit
    def bytes_(a: pl.Tensor[[4, 32], pl.INT8], out: pl.Out[pl.Tensor[[4, 8], pl.INT8]]):
        for k in pl.range(4):
            with pl.at(level=pl.Level.CORE_GROUP):
                out = pl.assemble(out, a[:, k * 8:k * 8 + 8], [0, 0], atomic=pl.AtomicType.Add)
        return out

    @pl.jit
    def stores(a: pl.Tensor[[8, 32], pl.INT32], out: pl.Out[pl.Tensor[[8, 8], pl.INT32]]):
        for k in pl.range(4):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(a, [0, k * 8], [8, 8], valid_shape=[8 - k, 8])
                pl.store(t, [0, 0], out, atomic=pl.AtomicType.Add)
        return out
"""


@pytest.fixture
def K(load):
    return load(KERNELS)[0]


def _f32(shape, seed, scale=1.0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32) * np.float32(scale)


def _in_order(parts):
    """The sum of parts accumulated in order, each step rounded like the kernel's."""
    acc = np.zeros_like(parts[0])
    for p in parts:
        acc = (acc + p).astype(parts[0].dtype)
    return acc


def test_split_k_atomic_add_is_the_sum_in_submission_order(K):
    """P2-06: 4 tasks, each a K slice, add into a zeroed FP32 output: numpy's FP32 sum in
    submission order bit for bit, with 1 and 2 workers and small rings (an order that the
    data tells apart: the reverse order differs)."""
    a, b = _f32((16, 64), 1), _f32((16, 64), 2)
    a[:, 16:32] *= np.float32(1e4)
    a[:, 48:64] *= np.float32(1e-4)
    parts = [a[:, k * 16:(k + 1) * 16] * b[:, k * 16:(k + 1) * 16] for k in range(4)]
    want = _in_order(parts)
    assert not np.array_equal(want.view(np.uint32), _in_order(parts[::-1]).view(np.uint32))
    for workers in (1, 2):
        for rings in ({}, {"ring_task_window": 16, "ring_heap": 65536}):
            out = torch.zeros(16, 16)
            K.split_k(torch.from_numpy(a), torch.from_numpy(b), out, config=RunConfig(num_workers=workers, **rings))
            assert np.array_equal(out.numpy().view(np.uint32), want.view(np.uint32)), (workers, rings)


def test_split_k_target_is_printed_inout_and_round_trips(K):
    a, b, out = torch.zeros(16, 64), torch.zeros(16, 64), torch.zeros(16, 16)
    text = K.split_k.lower(a, b, out)
    assert "out = pl.assemble(out, pl.mul(pl.slice(a, [16, 16], [0, k0]), pl.slice(b, [16, 16], [0, k0])), [0, 0], " \
           "atomic=pl.AtomicType.Add)\n" in text, text
    assert "out: pl.InOut[pl.Tensor[[16, 16], pl.FP32]]" in text and "out: InOut [0:16, 0:16]" in text, text
    assert pl.parse_program(text).lower(a, b, out) == text


def test_split_k_after_a_zeroing_task_like_upstream(K):
    """Upstream's form: a zeroing task first (the output starts as garbage), matmul partials:
    a @ b.T within matmul's tolerance, the same bits with 1 and 2 workers."""
    a, b = torch.from_numpy(_f32((16, 64), 3)), torch.from_numpy(_f32((16, 64), 4))
    got = []
    for workers in (1, 2):
        out = torch.full((16, 16), 7.0)
        K.split_k_zeroed(a, b, out, config=RunConfig(num_workers=workers))
        got.append(out.numpy().view(np.uint32).copy())
    assert np.array_equal(got[0], got[1])
    ref = a.double() @ b.double().T
    assert float((torch.from_numpy(got[0].view(np.float32)).double() - ref).abs().max()) <= 1e-5 * 64 * (1 + float(ref.abs().max()))


def test_atomic_into_a_fresh_buffer_starts_from_zero(K):
    """§0.1: a pl.create_tensor buffer reads as zero, so atomic adds into it start from 0."""
    a = _f32((16, 64), 5)
    for workers in (1, 2):
        out = torch.full((16, 16), 3.0)
        K.into_fresh(torch.from_numpy(a), out, config=RunConfig(num_workers=workers, ring_task_window=16, ring_heap=65536))
        want = _in_order([a[:, k * 16:(k + 1) * 16] for k in range(4)])
        assert np.array_equal(out.numpy().view(np.uint32), want.view(np.uint32))


def test_atomic_fp16_rounds_to_nearest_even(K):
    """FP16 adds through FP32 with one rounding to nearest even, like numpy's float16 add
    (2048 + 1 ties to 2048, 2050 + 1 to 2052)."""
    a = (np.random.default_rng(6).standard_normal((4, 32)) * 300).astype(np.float16)
    a[0, :8], a[0, 8:16] = np.float16(2048), np.float16(1)
    a[1, :8], a[1, 8:16] = np.float16(2050), np.float16(1)
    out = torch.zeros(4, 8, dtype=torch.float16)
    K.halves(torch.from_numpy(a), out)
    want = _in_order([a[:, k * 8:(k + 1) * 8] for k in range(4)])
    assert np.array_equal(out.numpy().view(np.uint16), want.view(np.uint16))
    assert _in_order([np.float16([2048]), np.float16([1])])[0] == 2048 and _in_order([np.float16([2050]), np.float16([1])])[0] == 2052


def test_atomic_bf16_rounds_to_nearest_even(K):
    a = (torch.randn(4, 32, generator=torch.Generator().manual_seed(7)) * 300).bfloat16()
    out = torch.zeros(4, 8, dtype=torch.bfloat16)
    K.bhalves(a, out)
    want = torch.zeros(4, 8, dtype=torch.bfloat16)
    for k in range(4):
        want = (want.float() + a[:, k * 8:(k + 1) * 8].float()).bfloat16()
    assert torch.equal(out.view(torch.int16), want.view(torch.int16))


def test_atomic_int8_wraps(K):
    a = np.full((4, 32), 100, dtype=np.int8)
    a[1] = -100
    a[2] = np.arange(32, dtype=np.int8) * 7
    out = torch.zeros(4, 8, dtype=torch.int8)
    K.bytes_(torch.from_numpy(a), out)
    want = _in_order([a[:, k * 8:(k + 1) * 8] for k in range(4)])  # numpy int8 arrays wrap
    assert np.array_equal(out.numpy(), want) and int(want[0, 0]) == (400 + 128) % 256 - 128


def test_atomic_store_adds_the_valid_region_only(K):
    """pl.store(..., atomic=Add): the same adding store; task k's region is its first 8 - k rows."""
    a = np.arange(8 * 32, dtype=np.int32).reshape(8, 32)
    out = torch.zeros(8, 8, dtype=torch.int32)
    K.stores(torch.from_numpy(a), out)
    want = np.zeros((8, 8), np.int32)
    for k in range(4):
        want[:8 - k] += a[:8 - k, k * 8:(k + 1) * 8]
    assert np.array_equal(out.numpy(), want)
    text = K.stores.lower(torch.from_numpy(a), out)
    assert "pl.store(t, [0, 0], out, atomic=pl.AtomicType.Add)\n" in text and "out: pl.InOut[" in text, text
    assert pl.parse_program(text).lower(torch.from_numpy(a), out) == text


ERRORS = """
    @pl.jit
    def bools(m: pl.Tensor[[8, 8], pl.BOOL], out: pl.Out[pl.Tensor[[8, 8], pl.BOOL]]):
        with pl.at(level=pl.Level.CORE_GROUP):
            out = pl.assemble(out, m, [0, 0], atomic=pl.AtomicType.Add)
        return out

    @pl.jit
    def on_chip(a: pl.Tensor[[8, 8], pl.FP32], out: pl.Out[pl.Tensor[[8, 8], pl.FP32]]):
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(a, [0, 0], [8, 8])
            t = pl.assemble(t, a, [0, 0], atomic=pl.AtomicType.Add)
            pl.store(t, [0, 0], out)
        return out

    @pl.jit
    def orch(a: pl.Tensor[[8, 8], pl.FP32], out: pl.Out[pl.Tensor[[8, 8], pl.FP32]]):
        out = pl.assemble(out, a, [0, 0], atomic=pl.AtomicType.Add)
        return out

    @pl.jit
    def not_enum(a: pl.Tensor[[8, 8], pl.FP32], out: pl.Out[pl.Tensor[[8, 8], pl.FP32]]):
        with pl.at(level=pl.Level.CORE_GROUP):
            out = pl.assemble(out, a, [0, 0], atomic=True)
        return out
"""


@pytest.mark.parametrize("how", ["call", "lower"])
@pytest.mark.parametrize("fn, exc, needle, want, hint", [
    ("bools", ParserTypeError, "m, [0, 0], atomic",
     "pl.assemble with atomic=AtomicType.Add requires an fp32/bf16/fp16/int32/int16/int8/uint32/uint16/uint8 tile, got BOOL", None),
    ("on_chip", InvalidOperationError, "t, a, [0, 0], atomic",
     "tensor.assemble with atomic=AtomicType.Add requires a global-memory destination (a function output tensor), "
     "but this assemble targets an on-chip tile", None),
    ("orch", InvalidOperationError, ("pl.AtomicType.Add", 2),  # the third line naming it
     "pl.assemble(..., atomic=pl.AtomicType.Add) is only supported inside an InCore function",
     "move it inside the scope that produces the partial result"),
    ("not_enum", ParserTypeError, "True", "pl.assemble atomic= must be pl.AtomicType.None_ or pl.AtomicType.Add", None),
])
def test_atomic_errors_at_their_columns_leave_nothing_behind(load, how, fn, exc, needle, want, hint):
    mod, path = load(ERRORS)
    kern = getattr(mod, fn)
    dt = torch.bool if fn == "bools" else torch.float32
    args = (torch.zeros(8, 8, dtype=dt), torch.zeros(8, 8, dtype=dt))
    with pytest.raises(exc) as e:
        kern(*args) if how == "call" else kern.lower(*args)
    assert e.value.message == want
    assert e.value.hint == hint
    assert (e.value.span["filename"], e.value.span["line"], e.value.span["column"]) == (path,) + line_of(path, *(needle if isinstance(needle, tuple) else (needle,)))
    assert kern.cache_info()[2] == 0


def test_atomic_in_a_program_prints_back_as_written_and_lowered(load):
    """A @pl.program InCore function with a declared pl.Out target: as_python() keeps the
    keyword and its annotation as written; lower() prints the parameter InOut; both round
    trip, and the program adds."""
    mod, _ = load("""
        @pl.program
        class Acc:
            @pl.function(type=pl.FunctionType.InCore)
            def add_part(self, a: pl.Tensor[[8, 32], pl.FP32], o: pl.Out[pl.Tensor[[8, 8], pl.FP32]], k: pl.Scalar[pl.INDEX]):
                t = pl.load(a, [0, k * 8], [8, 8])
                o = pl.assemble(o, t, [0, 0], atomic=pl.AtomicType.Add)
                return o

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, a: pl.Tensor[[8, 32], pl.FP32], o: pl.Out[pl.Tensor[[8, 8], pl.FP32]]):
                for k in pl.range(4):
                    o = self.add_part(a, o, k)
                return o
        """)
    pre = mod.Acc.as_python()
    assert "o = pl.assemble(o, t, [0, 0], atomic=pl.AtomicType.Add)" in pre and "o: pl.Out[pl.Tensor[[8, 8], pl.FP32]], k" in pre, pre
    assert pl.parse_program(pre).as_python() == pre
    a, o = _f32((8, 32), 8), torch.zeros(8, 8)
    text = mod.Acc.lower(torch.from_numpy(a), o)
    assert "def add_part(self, a: pl.Tensor[[8, 32], pl.FP32], o: pl.InOut[pl.Tensor[[8, 8], pl.FP32]]" in text, text
    assert pl.parse_program(text).lower(torch.from_numpy(a), o) == text
    mod.Acc(torch.from_numpy(a), o)
    assert np.array_equal(o.numpy().view(np.uint32), _in_order([a[:, k * 8:(k + 1) * 8] for k in range(4)]).view(np.uint32))
