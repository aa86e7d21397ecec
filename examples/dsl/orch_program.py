# The Memory page's `orch` example as a program: "before" (the compiler
# places the scopes) and "after" (the page's text, placed by hand).
# `ptoc lower` prints the same program for both, apart from the class name:
#
#   build/bin/ptoc lower examples/dsl/orch_program.py --func Before \
#       --shape a=256x128:fp32 --shape out=256x128:fp32
import pypto.language as pl


@pl.program
class Before:
    @pl.function(type=pl.FunctionType.Orchestration)   # auto_scope=True (default)
    def orch(self, a, out):
        for i in pl.range(4):
            out = self.kernel(a, out)
        return out

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a, out: pl.InOut[pl.Tensor]):
        t = pl.add(pl.load(out, [0, 0], [256, 128]), pl.load(a, [0, 0], [256, 128]))
        out = pl.store(t, [0, 0], out)
        return out


@pl.program
class After:
    @pl.function(type=pl.FunctionType.Orchestration, auto_scope=False)
    def orch(self, a, out):
        with pl.scope():            # depth 0 — function body
            for i in pl.range(4):
                with pl.scope():    # depth 1 — loop body: every task lands in ring 1
                    out = self.kernel(a, out)
            return out

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a, out: pl.InOut[pl.Tensor]):
        t = pl.add(pl.load(out, [0, 0], [256, 128]), pl.load(a, [0, 0], [256, 128]))
        out = pl.store(t, [0, 0], out)
        return out
