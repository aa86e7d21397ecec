"""pypto.runtime: RunConfig (docs/runconfig.md), the runtime's exceptions (docs/dsl.md,
"Errors"), and the execution API of DSL-V2-SPEC §4.4-§4.5 (docs/dsl.md, "Compile once,
run many"): run(), TensorSpec, ChipWorker, RegistrationHandle, DeviceTensor.
"""
from ._errors import DeviceUnavailableError, DistributedUnavailableError, PTORuntimeError
from ._runconfig import BackendType, RunConfig
from ._worker import ChipWorker, DeviceTensor, RegistrationHandle

__all__ = ["RunConfig", "BackendType", "PTORuntimeError", "DeviceUnavailableError", "DistributedUnavailableError",
           "run", "TensorSpec", "ChipWorker", "RegistrationHandle", "DeviceTensor", "DistributedWorker"]


class DistributedWorker:
    """Upstream's persistent distributed worker: later (DISTRIBUTED-SPEC §1.10)."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError("DistributedWorker is not supported in this version")


def _takes_nothing(fn):
    """Whether fn can be called without arguments (a signature Python cannot read: no)."""
    import inspect
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return all(p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params)


class TensorSpec:
    """A tensor to create for run(): init_value None (zeros), a number, a tensor, one of
    torch's factories (randn, rand, zeros, ones: called with the shape and dtype=), or a
    callable: with no required parameter called with none, else with (shape, dtype); its
    result converted to dtype."""

    def __init__(self, name, shape, dtype, init_value=None, is_output=False):
        self.name, self.shape, self.dtype = name, [int(d) for d in shape], dtype
        self.init_value, self.is_output = init_value, is_output

    def create_tensor(self):
        import torch
        v = self.init_value
        if v is None:
            return torch.zeros(self.shape, dtype=self.dtype)
        if isinstance(v, (bool, int, float)):
            return torch.full(self.shape, v, dtype=self.dtype)
        if callable(v) and not hasattr(v, "shape"):
            if any(v is f for f in (torch.randn, torch.rand, torch.zeros, torch.ones)):  # identity: == on a tensor is elementwise
                return v(self.shape, dtype=self.dtype)
            v = v() if _takes_nothing(v) else v(self.shape, self.dtype)
        t = torch.as_tensor(v)
        if list(t.shape) != self.shape:
            raise ValueError("TensorSpec '%s': init_value has shape %s, expected %s"
                             % (self.name, list(t.shape), self.shape))
        return t.to(self.dtype).contiguous().clone()

    def __repr__(self):
        return "TensorSpec(%r, %r, %s)" % (self.name, self.shape, self.dtype)


def run(program, *tensors, config=None):
    """ir.compile(program, ...) from config's fields; then, with tensors and not
    config.codegen_only, one call with them.  Returns the CompiledProgram."""
    from . import ir
    config = config if config is not None else RunConfig()
    compiled = ir.compile(program, output_dir=config.save_kernels_dir, strategy=config.strategy or
                          ir.OptimizationStrategy.Default, backend_type=config.backend_type,
                          dump_passes=config.dump_passes, platform=config.platform, profiling=config.compile_profiling)
    if tensors and not config.codegen_only:
        compiled(*[t.create_tensor() if isinstance(t, TensorSpec) else t for t in tensors], config=config)
    return compiled
