# The seed page's setup block, then its orch example ("Why the default placement
# can waste them"): the "before" and "after" methods verbatim, each in a
# @pl.program class with an InCore kernel that adds a to out.
import pypto.language as pl
import torch
from pypto.runtime import RunConfig

N, TR, TC = 4, 64, 128
ROWS = N * TR

torch.manual_seed(0)
A = torch.randn(ROWS, TC, dtype=torch.float32)


def check(kernel, cfg):
    out = torch.zeros(ROWS, TC, dtype=torch.float32)
    kernel(A, out, config=cfg)
    torch.testing.assert_close(out, A * 2.0 + 1.0, rtol=1e-4, atol=1e-4)


@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a, out: pl.InOut[pl.Tensor]):
        pl.store(pl.add(pl.load(out, [0, 0], [ROWS, TC]), pl.load(a, [0, 0], [ROWS, TC])), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)   # auto_scope=True (default)
    def orch(self, a, out):
        for i in pl.range(4):
            out = self.kernel(a, out)
        return out


@pl.program
class After:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a, out: pl.InOut[pl.Tensor]):
        pl.store(pl.add(pl.load(out, [0, 0], [ROWS, TC]), pl.load(a, [0, 0], [ROWS, TC])), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration, auto_scope=False)
    def orch(self, a, out):
        with pl.scope():            # depth 0 — function body
            for i in pl.range(4):
                with pl.scope():    # depth 1 — loop body: every task lands in ring 1
                    out = self.kernel(a, out)
            return out


def check_orch(program, cfg):
    out = torch.zeros(ROWS, TC, dtype=torch.float32)
    program(A, out, config=cfg)
    torch.testing.assert_close(out, A * 4.0, rtol=1e-4, atol=1e-4)


check_orch(Before, RunConfig(platform="a2a3sim"))
check_orch(After, RunConfig(platform="a2a3sim"))
