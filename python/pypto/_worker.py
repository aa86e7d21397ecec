"""ChipWorker, RegistrationHandle and DeviceTensor (DSL-V2-SPEC §4.5; docs/dsl.md,
"Compile once, run many").

On the CPU a worker owns one runtime of its own (pypto._C.runtime_new, sized
by its RunConfig and reused by every run through it) and its tensors;
"device memory" is host memory.  Invariants: a closed worker owns no
runtime, no tensor and no open handle; the active workers (`with w:`) form
a stack, the innermost one runs `compiled(...)`.
"""
import ctypes
import sys

from . import _C
from ._kernel import _check_platform, _runtime_fields
from ._runconfig import RunConfig

_TORCH_OF = {"FP32": "float32", "FP16": "float16", "BF16": "bfloat16", "INT64": "int64", "INT32": "int32",
             "INT16": "int16", "INT8": "int8", "UINT8": "uint8", "BOOL": "bool"}


def torch_dtype(name):
    """The torch dtype of a pypto dtype name ("FP32" -> torch.float32; "UINT32" -> torch.int32,
    its stand-in: torch 1.13 has no uint32)."""
    import torch
    return getattr(torch, _TORCH_OF[_C.pto_dtype_stand_ins.get(name, name)])


class DeviceTensor:
    """A buffer a worker owns (or any host pointer): data_ptr, shape, dtype (a torch dtype)."""

    __slots__ = ("data_ptr", "shape", "dtype")

    def __init__(self, data_ptr, shape, dtype):
        object.__setattr__(self, "data_ptr", int(data_ptr))
        object.__setattr__(self, "shape", tuple(int(d) for d in shape))
        object.__setattr__(self, "dtype", dtype)

    def __setattr__(self, name, value):
        raise AttributeError("DeviceTensor is frozen")

    @property
    def nbytes(self):
        n = 1
        for d in self.shape:
            n *= d
        import torch
        return n * torch.empty((), dtype=self.dtype).element_size()

    def __eq__(self, other):
        return isinstance(other, DeviceTensor) and (self.data_ptr, self.shape, self.dtype) == \
            (other.data_ptr, other.shape, other.dtype)

    def __hash__(self):
        return hash((self.data_ptr, self.shape, str(self.dtype)))

    def __repr__(self):
        return "DeviceTensor(data_ptr=0x%x, shape=%r, dtype=%s)" % (self.data_ptr, self.shape, self.dtype)


_ACTIVE = []  # the workers of the enclosing `with` blocks, innermost last


def active_worker():
    return _ACTIVE[-1] if _ACTIVE else None


class RegistrationHandle:
    """One registration of a CompiledProgram on a worker; calling it dispatches there."""

    def __init__(self, worker, compiled):
        self._worker, self._compiled = worker, compiled

    @property
    def closed(self):
        return self._worker is None

    def _check(self):
        if self._worker is None:
            raise RuntimeError("RegistrationHandle has been unregistered (or its parent Worker was closed).")

    def __call__(self, *args, config=None):
        self._check()
        return self._worker.run(self._compiled, *args, config=config)

    def unregister(self):
        self._worker = None

    def __enter__(self):
        self._check()
        return self

    def __exit__(self, *exc):
        self.unregister()
        return False


class ChipWorker:
    """A worker on one chip; on the CPU: a runtime and the tensors it owns."""

    def __init__(self, config=None, *, level=2, runtime="tensormap_and_ringbuffer", enable_sdma=False, auto_init=None):
        if level != 2:
            raise ValueError("ChipWorker only supports level=2; got level=%s." % (level,))
        self.config = config if config is not None else RunConfig()
        self.level, self.runtime, self.enable_sdma = level, runtime, enable_sdma
        self._rt = None
        self._tensors = {}    # data_ptr -> the torch tensor behind an alloc_tensor
        self._freed = set()   # data_ptrs freed by free_tensor (a second free is a no-op)
        self._raw = {}        # malloc'd pointer -> its ctypes buffer
        self._registered = {}  # id(compiled) -> (compiled, [handles])
        self.aicpu_dlopen_count = 0
        if auto_init is not False:
            self.init()

    platform = property(lambda self: self.config.platform)
    device_id = property(lambda self: self.config.device_id)
    initialized = property(lambda self: self._rt is not None)

    def _ident(self):
        return (self.level, self.platform, self.device_id, self.runtime)

    def init(self):
        if self._rt is None:
            _check_platform(self.platform)
            self._rt = _C.runtime_new(_runtime_fields(self.config))
        return self

    def close(self):
        """Frees the tensors it owns, invalidates its handles, destroys its runtime (idempotent)."""
        for _, handles in self._registered.values():
            for h in handles:
                h.unregister()
        self._registered.clear()
        self._freed.update(self._tensors)
        self._tensors.clear()
        self._raw.clear()
        if self._rt is not None:
            _C.runtime_close(self._rt)
            self._rt = None

    def __enter__(self):
        if any(w._ident() == self._ident() for w in _ACTIVE):
            raise RuntimeError("A ChipWorker for (%s, %s, %s, %s) is already active in an enclosing scope."
                               % self._ident())
        self.init()
        _ACTIVE.append(self)
        return self

    def __exit__(self, *exc):
        if self in _ACTIVE:
            _ACTIVE.remove(self)
        self.close()
        return False

    def _require(self, op):
        if self._rt is None:
            raise RuntimeError("ChipWorker.%s() requires an initialized ChipWorker. Use `with chipworker:` or call "
                               "`chipworker.init()` first." % op)

    def _check_program(self, compiled, op):
        self._require(op)
        if compiled.platform != self.platform:
            raise ValueError("CompiledProgram.platform=%s does not match ChipWorker.platform=%s. Compile for the "
                             "matching platform, or construct ChipWorker(config=RunConfig(platform=%s))."
                             % (compiled.platform, self.platform, compiled.platform))

    def run(self, compiled, *args, config=None):
        """Binding checks and a dispatch of compiled on this worker's runtime; returns like compiled(...)."""
        self._check_program(compiled, "run")
        return compiled._dispatch(args, config, self._rt)

    def register(self, compiled):
        """Eager preparation: a handle; one registration per program (aicpu_dlopen_count counts them)."""
        self._check_program(compiled, "register")
        entry = self._registered.get(id(compiled))
        if entry is None:
            entry = self._registered[id(compiled)] = (compiled, [])
            self.aicpu_dlopen_count += 1
        handle = RegistrationHandle(self, compiled)
        entry[1].append(handle)
        return handle

    # ---- memory --------------------------------------------------------------------------------

    def _worker_id(self, op, worker_id):
        if worker_id != 0:
            raise ValueError("ChipWorker.%s() only supports worker_id=0, got %s" % (op, worker_id))

    def alloc_tensor(self, shape, dtype, *, init=None, worker_id=0):
        """A worker-owned buffer of zeros, init (a tensor of that shape and dtype) copied in."""
        import torch
        self._worker_id("alloc_tensor", worker_id)
        self._require("alloc_tensor")
        shape = tuple(int(d) for d in shape)
        if init is not None and (tuple(init.shape) != shape or init.dtype != dtype):
            raise TypeError("alloc_tensor init has shape %s and dtype %s, expected %s and %s"
                            % (tuple(init.shape), init.dtype, shape, dtype))
        t = torch.zeros(shape, dtype=dtype)
        if init is not None:
            t.copy_(init)
        self._tensors[t.data_ptr()] = t
        self._freed.discard(t.data_ptr())
        return DeviceTensor(t.data_ptr(), shape, dtype)

    def free_tensor(self, t, *, worker_id=0):
        self._worker_id("free_tensor", worker_id)
        if self._tensors.pop(t.data_ptr, None) is not None:
            self._freed.add(t.data_ptr)
        elif t.data_ptr not in self._freed:
            raise ValueError("free_tensor(..., worker_id=%s) does not match the owning worker" % worker_id)

    def tensor(self, t):
        """The torch tensor behind a DeviceTensor this worker owns (a view of its memory)."""
        return self._tensors[t.data_ptr]

    def malloc(self, nbytes):
        if type(nbytes) is not int or nbytes <= 0:
            raise ValueError("nbytes must be a positive int, got %r" % (nbytes,))
        self._require("malloc")
        buf = ctypes.create_string_buffer(nbytes)
        self._raw[ctypes.addressof(buf)] = buf
        return ctypes.addressof(buf)

    def free(self, ptr):
        self._raw.pop(ptr, None)

    def _copy(self, dst, src, nbytes):
        if type(nbytes) is not int or nbytes <= 0:
            raise ValueError("nbytes must be a positive int, got %r" % (nbytes,))
        ctypes.memmove(_address(dst), _address(src), nbytes)

    def copy_to(self, dst, src, nbytes):
        """Host -> "device": memcpy(dst, src, nbytes)."""
        self._copy(dst, src, nbytes)

    def copy_from(self, dst, src, nbytes):
        """"Device" -> host: memcpy(dst, src, nbytes)."""
        self._copy(dst, src, nbytes)

    def __del__(self):
        if sys.is_finalizing():
            return
        try:
            self.close()
        except Exception:
            pass

    def __repr__(self):
        return "<ChipWorker platform=%s device_id=%s%s>" % (self.platform, self.device_id,
                                                          "" if self.initialized else " (not initialized)")


def _address(x):
    """An int pointer, a DeviceTensor's data_ptr, or a tensor's data pointer."""
    if isinstance(x, int):
        return x
    if isinstance(x, DeviceTensor):
        return x.data_ptr
    ptr = getattr(x, "data_ptr", None)
    if callable(ptr):
        return ptr()
    return x.__array_interface__["data"][0]
