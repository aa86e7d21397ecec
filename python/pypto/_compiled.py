"""CompiledProgram: one compiled program, its output directory and its call
(DSL-V2-SPEC §4.2; docs/dsl.md, "Compile once, run many").

Made by JITFunction.compile() and a program's .compile() (compile_entry;
one object per specialization key, kept in the kernel's cache beside the
handle) and by pypto.ir.compile (an object of its own).  The parameters,
directions and returns are the compiler's (pypto._C.signature);
a call binds to them, allocates return-style outputs, and dispatches through
the kernel's executor path (_kernel._run) on the active ChipWorker's
runtime or the process's.  A scalar argument other than the compiled value
compiles (and caches) that specialization in the kernel.
"""
import pathlib
import sys

from . import _C, _dist
from ._args import adapt_value, binds, is_tensor, signature_specs
from ._kernel import ProgramText, _config, _run, _spec_key, _work_dir
from ._worker import DeviceTensor, active_worker, torch_dtype
from ._runconfig import BackendType

_HARDWARE = ("chip_callable", "runtime_name", "runtime_config", "build_orch_args", "build_call_config", "from_dir",
             "load", "validate_ir")


def backend_of(platform):
    return BackendType.Ascend950 if platform.startswith("a5") else BackendType.Ascend910B


def compile_entry(kernel, function, who, sig, args, kwargs, config, prepare, entry_check=None):
    """X-jc (DSL-V2-SPEC §4.1) of a @pl.jit entry (function None) or of a program's function:
    with a tensor argument, prepare(args, kwargs, config, True) binds and compiles as a call
    does (same key, same cache entry); without one, shapes and dtypes come from sig's
    annotations (signature mode).  Nothing runs.  sig excludes a method's `self`."""
    for kw in kwargs:
        if kw not in sig.parameters:
            raise TypeError("compile() got an unexpected keyword argument '%s'" % kw)
    config = _config(config)
    if any(is_tensor(v) for v in list(args) + list(kwargs.values())):
        handle, (_, specs, _) = prepare(args, kwargs, config, True)
    else:
        if entry_check is not None:
            entry_check()
        specs = signature_specs(who, sig, args, kwargs)
        handle = kernel._compiled(kernel.__name__, function, specs, config, 1)
    return compiled_program(kernel, kernel.__name__, function, who, handle, specs, config,
                            dump_passes=config.dump_passes)


def compiled_program(kernel, entry, function, who, handle, specs, config, output_dir=None, program=None,
                     dump_passes=False):
    """The CompiledProgram of handle: one per compiled program and origin (kept in the kernel beside
    its cache): .compile()'s (program None: its `program` is the lowered text) or ir.compile's
    (`program` is what it was given); output_dir None: v1's <work_dir>."""
    dc = config.distributed_config
    slot = (id(handle), program is None, tuple(dc.device_ids) if dc is not None else None)  # a host program's world
    kept = kernel._objects.get(slot)
    if kept is not None and kept[0] is handle and (output_dir is None or str(kept[1].output_dir) == str(output_dir)):
        if dump_passes:
            kept[1]._write(True)
        return kept[1]
    cls = CompiledProgram
    if getattr(kernel, "kind", None) == "host":
        from .ir.distributed_compiled_program import DistributedCompiledProgram as cls
    elif config.distributed_config is not None:
        raise ValueError("distributed_config applies to @pl.jit.host functions; '%s' is a @pl.jit entry" % entry)
    if cls is not CompiledProgram and output_dir is None:  # the session first: <work_dir> is named from rank 0's clock
        _dist.world(dc.device_ids if dc is not None else [0], entry)
    obj = cls(kernel, entry, function, who, handle, specs, config,
              output_dir or _work_dir(kernel, function or entry, handle, config), program, dump_passes)
    kernel._objects[slot] = (handle, obj)
    return obj


class CompiledProgram:
    """A compiled program: call it, inspect its output directory."""

    def __init__(self, kernel, entry, function, who, handle, specs, config, output_dir, program, dump_passes):
        self._kernel, self._entry, self._function, self._who = kernel, entry, function, who
        self._handle, self._config = handle, config
        self.platform = config.platform
        self.backend_type = backend_of(self.platform)
        params, nresults = _C.signature(handle)
        self._params = params  # [(name, dtype, shape, direction or None)]
        given = {s[1]: s for s in specs}
        self._specs = [given.get(n) if d is None else ("tensor", n, dt, shape) for n, dt, shape, d in params]
        self.param_names = [p[0] for p in params]
        self.output_indices = [i for i, p in enumerate(params) if p[3] == "Out"]
        self.has_return = nresults > 0
        self.program = program if program is not None else ProgramText(_C.text(handle), entry)
        self.output_dir = pathlib.Path(output_dir)
        self._write(dump_passes)

    def _write(self, dump_passes):
        """program.py (post-pass text), lowered.txt (the orchestration and kernel listing), passes/;
        under mpirun only rank 0 writes them (the ranks of a node share <work_dir>)."""
        if _dist.rank() != 0:
            return
        self.output_dir.mkdir(parents=True, exist_ok=True)
        (self.output_dir / "program.py").write_text(_C.text(self._handle))
        (self.output_dir / "lowered.txt").write_text(_C.listing(self._handle))
        if dump_passes:
            passes = self.output_dir / "passes"
            passes.mkdir(exist_ok=True)
            for number, stage, text in _C.stage_texts(self._handle):
                (passes / ("%02d_%s.py" % (number, stage))).write_text(text)

    def __fspath__(self):
        return str(self.output_dir)

    def __str__(self):
        return str(self.output_dir)

    def __repr__(self):
        return "<CompiledProgram %s at %s>" % (self._function or self._entry, self.output_dir)

    @property
    def orchestration_names(self):
        return self._kernel._orchestration_names()

    def __getitem__(self, name):
        if name == (self._function or self._entry):
            return self
        if name not in self.orchestration_names:
            raise KeyError(name)
        from .ir._compile import compile_function
        return compile_function(self._kernel, name, self._config, None, False)

    def __getattr__(self, name):
        if name in _HARDWARE:
            raise AttributeError("CompiledProgram.%s is Ascend-specific: it is a handle into the device runtime's "
                                 "artifacts; it has no meaning on the CPU backend (call the program, or use ChipWorker)"
                                 % name)
        raise AttributeError("'CompiledProgram' object has no attribute '%s'" % name)

    # ---- calls ---------------------------------------------------------------------------------

    def __call__(self, *args, config=None):
        worker = active_worker()
        if worker is not None:
            return worker.run(self, *args, config=config)
        return self._dispatch(args, config, None)

    def _bind(self, args):
        """The full argument list (return-style outputs allocated) and the outputs to return (or None)."""
        n, k = len(self._params), len(args)
        m = n - len(self.output_indices)
        if k == n:
            full, outs = list(args), None
        elif self.has_return and k == m:
            full, it, outs = [], iter(args), []
            for i, (name, dt, shape, _) in enumerate(self._params):
                if i in self.output_indices:
                    import torch
                    if any(d < 0 for d in shape):
                        raise ValueError("Cannot allocate output tensor '%s': shape %s contains dynamic dimensions. "
                                         "Call it in-place with a preallocated tensor." % (name, list(shape)))
                    t = torch.zeros(shape, dtype=torch_dtype(dt))
                    full.append(t)
                    outs.append(t)
                else:
                    full.append(next(it))
        elif self.has_return and m != n:
            raise TypeError("%s expects %d (in-place) or %d (return) arguments, got %d. Parameters: [%s]"
                            % (type(self).__name__, n, m, k, ", ".join(self.param_names)))
        else:
            raise TypeError("%s expects %d arguments, got %d. Parameters: [%s]"
                            % (type(self).__name__, n, k, ", ".join(self.param_names)))
        return full, outs

    def _dispatch(self, args, config, runtime):
        config = _config(config)
        if config.platform != self.platform:
            import dataclasses
            config = dataclasses.replace(config, platform=self.platform)
        full, outs = self._bind(args)
        handle, specs, key_specs = self._handle, list(self._specs), list(self._specs)
        buffers = []
        for i, ((name, dt, shape, direction), value) in enumerate(zip(self._params, full)):
            if direction is None:
                specs[i] = _scalar_spec(self._who, name, value)
                if self._specs[i][0] != "runtime":
                    key_specs[i] = specs[i]
                continue
            _check_tensor(name, dt, shape, value)
            if isinstance(value, DeviceTensor):
                buffers.append((name, value, value.data_ptr, 0, value.nbytes, True))
                specs[i] = ("tensor", name, dt, tuple(value.shape))  # a dynamic dimension: this call's extent
            else:
                specs[i], buffer = adapt_value(self._who, name, value, direction)
                buffers.append(buffer)
        if _spec_key(key_specs) != _spec_key(self._specs):  # another specialized value: from the kernel's cache
            handle = self._kernel._compiled(self._entry, self._function, key_specs, config)
        self._call_bound(handle, (self._who, specs, buffers), full, config, runtime)
        if outs is None:
            return None
        return outs[0] if len(outs) == 1 else tuple(outs)

    def _call_bound(self, handle, call, full, config, runtime):
        """One call of handle with the bound arguments full."""
        _run(self._kernel, self._function or self._entry, handle, call, config, runtime, str(self.output_dir))


def _scalar_spec(who, name, value):
    np = sys.modules.get("numpy")
    if np is not None and isinstance(value, np.generic):
        value = value.item()
    if type(value) not in (bool, int, float):
        raise TypeError("%s: argument '%s' must be a Python int, float or bool, got %s" % (who, name, type(value).__name__))
    return ("scalar", name, value)


def _check_tensor(name, dt, shape, value):
    """Shape, rank and dtype of a tensor argument against the compiled parameter."""
    if isinstance(value, DeviceTensor):
        what, vshape, vdtype = "DeviceTensor", tuple(value.shape), value.dtype
    elif hasattr(value, "shape") and hasattr(value, "dtype"):
        what, vshape, vdtype = "tensor", tuple(int(d) for d in value.shape), value.dtype
    else:
        return  # adapt_args names what it is
    if len(vshape) != len(shape):
        raise TypeError("Parameter '%s' expects rank %d; got %s rank %d" % (name, len(shape), what, len(vshape)))
    if any(d >= 0 and d != v for d, v in zip(shape, vshape)):
        raise TypeError("Parameter '%s' expects shape %s; got %s shape %s" % (name, tuple(shape), what, vshape))
    if not binds(vdtype, dt):
        raise TypeError("Parameter '%s' expects dtype %s; got %s dtype %s" % (name, torch_dtype(dt), what, vdtype))


