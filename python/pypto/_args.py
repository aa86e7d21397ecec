"""Argument binding and adaptation (docs/compiler.md, "Arguments").

A tensor becomes ("tensor", name, dtype, shape) for the compiler plus a
buffer record for the executor (the object, base address, byte offset,
byte size, writable); a scalar becomes ("scalar", name, value), specialized.
Shapes, ranks and kinds against the annotations are the compiler's checks.
"""
import sys

from . import _C

# torch 1.13 has no uint16 / uint32: an int16 / int32 tensor binds to a UINT16 / UINT32
# parameter in their place (pypto._C.pto_dtype_stand_ins; the compiler checks it).
_TORCH_DTYPES = {"float32": "FP32", "float16": "FP16", "bfloat16": "BF16", "int64": "INT64", "int32": "INT32", "int16": "INT16",
                 "int8": "INT8", "uint8": "UINT8", "bool": "BOOL"}
_NUMPY_DTYPES = {"float32": "FP32", "float16": "FP16", "int64": "INT64", "int32": "INT32", "int16": "INT16", "int8": "INT8",
                 "uint32": "UINT32", "uint16": "UINT16", "uint8": "UINT8", "bool": "BOOL"}
_SUPPORTED = "float32, float16, bfloat16, int64, int32, int16, int8, uint32, uint16, uint8, bool"


def binds(vdtype, dt):
    """Does a tensor of torch or numpy dtype vdtype bind to a parameter of pypto dtype dt
    (the same dtype, or dt's stand-in)?"""
    name = str(vdtype)
    got = _TORCH_DTYPES.get(name[6:]) if name.startswith("torch.") else _NUMPY_DTYPES.get(name)
    return got is not None and got in (dt, _C.pto_dtype_stand_ins.get(dt))


def bind_args(who, sig, args, kwargs):
    """Binds to the Python signature; every parameter is required."""
    try:
        return sig.bind(*args, **kwargs)
    except TypeError as e:
        raise TypeError("%s: %s" % (who, e)) from None


def annotation_kind(param):
    ann = param.annotation
    kind = getattr(ann, "kind", None)
    if kind in ("Out", "InOut"):
        return kind
    return "Scalar" if kind == "Scalar" else "In"


def _contiguity(who, name):
    return ValueError("%s: argument '%s' is not contiguous; pass a contiguous tensor (torch: x.contiguous(), "
                      "numpy: np.ascontiguousarray(x))" % (who, name))


def _dtype_error(who, name, dt):
    return TypeError("%s: argument '%s' has dtype %s, which has no pypto dtype (supported: %s)"
                     % (who, name, dt, _SUPPORTED))


def _torch_arg(who, name, t, for_lower):
    if not t.is_contiguous():
        raise _contiguity(who, name)
    dev = t.device
    if dev.type != "cpu" and not (for_lower and dev.type == "meta"):
        raise ValueError("%s: argument '%s' is on device '%s'; expected a CPU tensor" % (who, name, dev))
    dt = str(t.dtype).replace("torch.", "")
    if dt not in _TORCH_DTYPES:
        raise _dtype_error(who, name, dt)
    spec = ("tensor", name, _TORCH_DTYPES[dt], tuple(int(d) for d in t.shape))
    if dev.type == "meta":
        return spec, None
    storage = t.untyped_storage() if hasattr(t, "untyped_storage") else t.storage()
    base = storage.data_ptr()
    nbytes = t.numel() * t.element_size()
    return spec, (t, base, t.data_ptr() - base, nbytes, True)


def _numpy_arg(who, name, a, kind):
    if not (a.flags.c_contiguous and a.flags.aligned):
        raise _contiguity(who, name)
    dt = a.dtype.name
    if dt not in _NUMPY_DTYPES:
        raise _dtype_error(who, name, dt)
    # Directions the annotation states; the executor checks derived ones too.
    if not a.flags.writeable and kind in ("Out", "InOut"):
        raise ValueError("%s: argument '%s' is read-only but the kernel writes it" % (who, name))
    root = a
    while getattr(root, "base", None) is not None and hasattr(root.base, "__array_interface__"):
        root = root.base
    base = root.__array_interface__["data"][0]
    addr = a.__array_interface__["data"][0]
    return ("tensor", name, _NUMPY_DTYPES[dt], tuple(int(d) for d in a.shape)), \
        (a, base, addr - base, a.nbytes, bool(a.flags.writeable))


def adapt_value(who, name, value, kind, for_lower=False):
    """(spec, buffer record or None) of one argument; kind: the parameter's
    annotated kind (In, Out, InOut or Scalar)."""
    torch = sys.modules.get("torch")
    np = sys.modules.get("numpy")
    if torch is not None and isinstance(value, torch.Tensor):
        spec, buf = _torch_arg(who, name, value, for_lower)
    elif np is not None and isinstance(value, np.ndarray):
        spec, buf = _numpy_arg(who, name, value, kind)
    elif type(value) in (bool, int, float):
        spec, buf = ("scalar", name, value), None
    elif type(value).__name__ == "_RuntimeScalar" and type(value).__module__ == "pypto.language":
        spec, buf = ("runtime", name, None), None  # pl.RUNTIME: a run-time scalar parameter
    elif np is not None and isinstance(value, np.generic) and isinstance(value, (np.bool_, np.integer, np.floating)):
        spec, buf = ("scalar", name, value.item()), None
    elif type(value).__name__ == "DeviceTensor" and type(value).__module__ == "pypto._worker":
        raise TypeError("%s: argument '%s' is a DeviceTensor (missing inferred tensor metadata for parameter '%s'); "
                        "pass it to a CompiledProgram or ChipWorker.run" % (who, name, name))
    elif kind == "Scalar":
        raise TypeError("%s: argument '%s' must be a Python int, float or bool, got %s"
                        % (who, name, type(value).__name__))
    else:
        raise TypeError("%s: argument '%s' must be a tensor (torch.Tensor or numpy.ndarray), got %s"
                        % (who, name, type(value).__name__))
    return spec, (None if buf is None else (name,) + buf)


def signature_specs(who, sig, args, kwargs):
    """Signature mode (no tensor argument): the scalars given, specialized (pl.RUNTIME: a run-time
    parameter); the tensors' shapes and dtypes come from the annotations."""
    try:
        bound = sig.bind_partial(*args, **kwargs)
    except TypeError as e:
        raise TypeError("%s: %s" % (who, e)) from None
    return [adapt_value(who, n, v, annotation_kind(sig.parameters[n]))[0] for n, v in bound.arguments.items()]


def is_tensor(value):
    """A torch tensor, a numpy array or a DeviceTensor (compile(): no such argument = signature mode)."""
    torch, np = sys.modules.get("torch"), sys.modules.get("numpy")
    return (torch is not None and isinstance(value, torch.Tensor) or np is not None and isinstance(value, np.ndarray)
            or type(value).__name__ == "DeviceTensor" and type(value).__module__ == "pypto._worker")


def adapt_args(who, sig, bound, for_lower):
    """(specs, buffers): one spec per parameter in order; buffers for tensors."""
    specs, buffers = [], []
    for name, value in bound.arguments.items():
        spec, buf = adapt_value(who, name, value, annotation_kind(sig.parameters[name]), for_lower)
        specs.append(spec)
        if buf is not None:
            buffers.append(buf)
    return specs, buffers
