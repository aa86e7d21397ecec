"""ChipWorker, RegistrationHandle and DeviceTensor (DSL-V2-SPEC §4.5; docs/dsl.md,
"Compile once, run many"): P4-06 (the worker and its handles) and P4-07 (its memory).
Values against torch; every error text exact."""
import ctypes

import pytest
import torch

import pypto.language as pl
from pypto.runtime import ChipWorker, DeviceTensor, DeviceUnavailableError, RegistrationHandle, RunConfig

KERNELS = """
    @pl.jit
    def sq(a: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]):
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(a, [0, 0], [32, 32])
            pl.store(pl.mul(t, t), [0, 0], out)
        return out

    @pl.jit
    def staged(a: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]):
        tmp = pl.create_tensor([32, 32], dtype=pl.FP32)
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.store(pl.load(a, [0, 0], [32, 32]), [0, 0], tmp)
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(tmp, [0, 0], [32, 32])
            pl.store(pl.add(t, t), [0, 0], out)
        return out
"""


@pytest.fixture(autouse=True)
def build_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("PYPTO_PROG_BUILD_DIR", str(tmp_path / "build_output"))


@pytest.fixture
def compiled(load):
    return load(KERNELS)[0].sq.compile()


def init_text(op):
    return ("ChipWorker.%s() requires an initialized ChipWorker. Use `with chipworker:` or call "
            "`chipworker.init()` first." % op)


# ---- P4-06 ------------------------------------------------------------------------------------

def test_p4_06_with_block_makes_the_active_worker(compiled):
    a = torch.randn(32, 32)
    with ChipWorker() as w:
        assert w.initialized
        assert torch.equal(compiled(a), a * a)  # through w
        out = torch.zeros(32, 32)
        assert w.run(compiled, a, out) is None and torch.equal(out, a * a)
    assert not w.initialized
    assert torch.equal(compiled(a), a * a)  # no active worker: the process's runtime


def test_p4_06_register_gives_handles_of_one_registration(compiled):
    a = torch.randn(32, 32)
    w = ChipWorker()
    h1, h2 = w.register(compiled), w.register(compiled)
    assert isinstance(h1, RegistrationHandle) and w.aicpu_dlopen_count == 1
    assert torch.equal(h1(a), a * a) and torch.equal(h2(a), a * a)
    h1.unregister()
    with pytest.raises(RuntimeError) as e:
        h1(a)
    assert str(e.value) == "RegistrationHandle has been unregistered (or its parent Worker was closed)."
    with w.register(compiled) as h3:
        assert torch.equal(h3(a), a * a)
    with pytest.raises(RuntimeError):
        h3(a)
    w.close()
    with pytest.raises(RuntimeError) as e:
        h2(a)
    assert str(e.value) == "RegistrationHandle has been unregistered (or its parent Worker was closed)."
    w.close()  # idempotent


def test_p4_06_nested_worker_text():
    with ChipWorker():
        with pytest.raises(RuntimeError) as e:
            with ChipWorker():
                pass
        assert str(e.value) == ("A ChipWorker for (2, a2a3sim, 0, tensormap_and_ringbuffer) is already active in an "
                                "enclosing scope.")


def test_p4_06_level_text():
    with pytest.raises(ValueError) as e:
        ChipWorker(level=3)
    assert str(e.value) == "ChipWorker only supports level=2; got level=3."


def test_p4_06_platform_mismatch_text(compiled):
    w = ChipWorker(RunConfig(platform="a5sim"))
    with pytest.raises(ValueError) as e:
        w.run(compiled, torch.zeros(32, 32))
    assert str(e.value) == ("CompiledProgram.platform=a2a3sim does not match ChipWorker.platform=a5sim. Compile for "
                            "the matching platform, or construct ChipWorker(config=RunConfig(platform=a2a3sim)).")
    with pytest.raises(ValueError):
        w.register(compiled)


def test_p4_06_uninitialised_text(compiled):
    w = ChipWorker(auto_init=False)
    assert not w.initialized
    for op, call in (("run", lambda: w.run(compiled, torch.zeros(32, 32))), ("register", lambda: w.register(compiled)),
                     ("alloc_tensor", lambda: w.alloc_tensor((2,), torch.float32))):
        with pytest.raises(RuntimeError) as e:
            call()
        assert str(e.value) == init_text(op)
    w.init()
    w.init()  # idempotent
    assert w.initialized and (w.platform, w.device_id, w.level, w.runtime) == ("a2a3sim", 0, 2,
                                                                               "tensormap_and_ringbuffer")


def test_p4_06_ascend_platform_raises_at_initialisation():
    with pytest.raises(DeviceUnavailableError):
        ChipWorker(RunConfig(platform="a2a3"))
    w = ChipWorker(RunConfig(platform="a5"), auto_init=False)
    with pytest.raises(DeviceUnavailableError):
        w.init()


def test_p4_06_worker_runtime_is_sized_by_its_config(load):
    """The worker's runtime is its own: a 1 KiB heap per ring cannot hold the 4 KiB pl.create_tensor
    that the process's default runtime holds; the worker stays usable after the failure."""
    from pypto.runtime import PTORuntimeError
    staged = load(KERNELS)[0].staged.compile()
    a = torch.randn(32, 32)
    w = ChipWorker(RunConfig(ring_heap=1024))
    with pytest.raises(PTORuntimeError):
        w.run(staged, a)
    assert torch.equal(staged(a), a + a)
    big = ChipWorker(RunConfig(ring_heap=8192))
    assert torch.equal(big.run(staged, a), a + a) and torch.equal(big.run(staged, a), a + a)


# ---- P4-07 ------------------------------------------------------------------------------------

def test_p4_07_alloc_tensor_and_device_tensor_arguments(compiled):
    a = torch.randn(32, 32)
    with ChipWorker() as w:
        x = w.alloc_tensor((32, 32), torch.float32, init=a)
        y = w.alloc_tensor([32, 32], torch.float32)
        assert isinstance(x, DeviceTensor) and x.shape == (32, 32) and x.nbytes == 4096
        assert not w.tensor(y).any()  # zeros (§0.1)
        compiled(x, y)
        assert torch.equal(w.tensor(y), a * a)
        h = w.register(compiled)
        for _ in range(20):
            h(x, y)
        assert w.aicpu_dlopen_count == 1
        w.free_tensor(x)
        w.free_tensor(x)  # a second free is a no-op
        with pytest.raises(AttributeError):
            x.shape = (1,)


def test_p4_07_device_tensor_texts(compiled):
    with ChipWorker() as w:
        x = w.alloc_tensor((16, 32), torch.float32)
        with pytest.raises(TypeError) as e:
            compiled(x)
        assert str(e.value) == "Parameter 'a' expects shape (32, 32); got DeviceTensor shape (16, 32)"
        z = w.alloc_tensor((32, 32), torch.int32)
        with pytest.raises(TypeError) as e:
            compiled(z)
        assert str(e.value) == "Parameter 'a' expects dtype torch.float32; got DeviceTensor dtype torch.int32"
        r = w.alloc_tensor((32,), torch.float32)
        with pytest.raises(TypeError) as e:
            compiled(r)
        assert str(e.value) == "Parameter 'a' expects rank 2; got DeviceTensor rank 1"


def test_p4_07_worker_id_and_init_texts():
    with ChipWorker() as w:
        with pytest.raises(ValueError) as e:
            w.alloc_tensor((2,), torch.float32, worker_id=1)
        assert str(e.value) == "ChipWorker.alloc_tensor() only supports worker_id=0, got 1"
        t = w.alloc_tensor((2,), torch.float32)
        with pytest.raises(ValueError) as e:
            w.free_tensor(t, worker_id=2)
        assert str(e.value) == "ChipWorker.free_tensor() only supports worker_id=0, got 2"
        with pytest.raises(TypeError) as e:
            w.alloc_tensor((2,), torch.float32, init=torch.zeros(3))
        assert str(e.value) == ("alloc_tensor init has shape (3,) and dtype torch.float32, expected (2,) and "
                                "torch.float32")
        other = ChipWorker()
        with pytest.raises(ValueError) as e:
            other.free_tensor(t)
        assert str(e.value) == "free_tensor(..., worker_id=0) does not match the owning worker"


def test_p4_07_close_frees_forgotten_tensors():
    w = ChipWorker()
    t = w.alloc_tensor((4,), torch.float32)
    w.close()
    w.free_tensor(t)  # freed by close: a no-op


def test_p4_07_raw_memory_and_nbytes_text():
    with ChipWorker() as w:
        p = w.malloc(16)
        src = torch.arange(4, dtype=torch.float32)
        w.copy_to(p, src.data_ptr(), 16)
        back = torch.zeros(4)
        w.copy_from(back.data_ptr(), p, 16)
        assert torch.equal(back, src)
        w.free(p)
        for bad in (0, -1, 1.5):
            with pytest.raises(ValueError) as e:
                w.malloc(bad)
            assert str(e.value) == "nbytes must be a positive int, got %r" % (bad,)


def test_p4_07_device_tensor_to_a_jit_call_text(load):
    mod = load(KERNELS)[0]
    buf = (ctypes.c_float * 1024)()
    x = DeviceTensor(ctypes.addressof(buf), (32, 32), torch.float32)
    with pytest.raises(TypeError) as e:
        mod.sq(x, torch.zeros(32, 32))
    assert str(e.value) == ("@pl.jit function 'sq': argument 'a' is a DeviceTensor (missing inferred tensor metadata "
                            "for parameter 'a'); pass it to a CompiledProgram or ChipWorker.run")


def test_p4_06_a_closed_runtime_runs_nothing(compiled):
    """pypto._C.run on a Runtime that runtime_close destroyed (the shim never does: a closed
    worker has no runtime) fails with the runtime's error, not a crash."""
    from pypto import _C
    from pypto.runtime import PTORuntimeError
    rt = _C.runtime_new({})
    _C.runtime_close(rt)
    _C.runtime_close(rt)  # idempotent
    a, out = torch.zeros(32, 32), torch.zeros(32, 32)
    bufs = [(n, t, t.data_ptr(), 0, t.numel() * 4, True) for n, t in (("a", a), ("out", out))]
    with pytest.raises(PTORuntimeError) as e:
        _C.run(compiled._handle, "w", list(compiled._specs), bufs, {}, rt)
    assert str(e.value) == "pypto: the runtime was closed"
