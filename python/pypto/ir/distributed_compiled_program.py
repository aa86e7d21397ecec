"""pypto.ir.distributed_compiled_program: DistributedConfig and DistributedCompiledProgram
(DISTRIBUTED-SPEC §1.4; docs/distributed.md).

DistributedConfig names the world: rank r is device_ids[r].  Its rules are the
library's (pypto._C.dist_config_check).  A DistributedCompiledProgram is the
CompiledProgram of a @pl.jit.host entry: calling it runs the host program as one
distributed call on every rank (pypto._dist).
"""
from dataclasses import dataclass, field
from typing import List

from .. import _C, _dist
from .._compiled import CompiledProgram
from .._kernel import _run


@dataclass
class DistributedConfig:
    """The world of a distributed program: one rank per entry of device_ids (labels, not CPUs).
    runtime and aicpu_thread_num are checked and otherwise ignored."""

    device_ids: List[int] = field(default_factory=lambda: [0])
    num_sub_workers: int = 0
    runtime: str = "tensormap_and_ringbuffer"
    aicpu_thread_num: int = 0

    def __post_init__(self):
        _C.dist_config_check({"device_ids": self.device_ids, "num_sub_workers": self.num_sub_workers,
                              "aicpu_thread_num": self.aicpu_thread_num})


class DistributedCompiledProgram(CompiledProgram):
    """A compiled @pl.jit.host program: prog(*args, config=None) runs one distributed call.
    The world (config.distributed_config, default one rank) is fixed here; only rank 0 writes
    the output directory, whose name is the same on every rank."""

    def __init__(self, kernel, entry, function, who, handle, specs, config, output_dir, program, dump_passes):
        self.distributed_config = config.distributed_config or DistributedConfig()
        if self.distributed_config.num_sub_workers > 0:
            raise ValueError("DistributedConfig.num_sub_workers > 0 (SubWorker callbacks) is not supported in this version")
        self.rank, self.world_size, self._local_size = _dist.world(self.distributed_config.device_ids, entry)
        super().__init__(kernel, entry, function, who, handle, specs, config, output_dir, program, dump_passes)

    def _call_bound(self, handle, call, full, config, runtime):
        given = config.distributed_config
        ids = list(self.distributed_config.device_ids)
        if given is not None and list(given.device_ids) != ids:
            raise ValueError("per-call distributed_config.device_ids %s differ from the compiled program's %s; "
                             "recompile to change the world" % (list(given.device_ids), ids))
        if self.rank != 0:  # D4: rank 0's values are written into every argument
            for name, value in zip(self.param_names, full):
                flags = getattr(value, "flags", None)
                if flags is not None and hasattr(flags, "writeable") and not flags.writeable:
                    raise ValueError("%s: argument '%s' is read-only, but the host data contract writes rank 0's values "
                                     "into it on rank %d" % (self._who, name, self.rank))
        number = _dist.next_call()
        dist = {"device_ids": ids, "dist_call": number, "rank": self.rank, "world": self.world_size}
        if config.num_workers is None and self.world_size > 1:
            dist["num_workers"] = _dist.default_workers(self._local_size)
        _run(self._kernel, self._entry, handle, call, config, runtime, str(self.output_dir), dist)
        _dist.probe(number, self.rank, self.param_names, full)

    def prepare(self, *args, **kwargs):
        raise NotImplementedError("DistributedCompiledProgram.prepare is not supported in this version")

    def __repr__(self):
        return "<DistributedCompiledProgram %s at %s>" % (self._entry, self.output_dir)
