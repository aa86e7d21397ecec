import pypto.language as pl

N = pl.dynamic("N")

@pl.program
class double_rows:
    @pl.function(type=pl.FunctionType.Orchestration, auto_scope=False)
    def double_rows(self, x: pl.Tensor[[N, 64], pl.FP32], out: pl.Out[pl.Tensor[[N, 64], pl.FP32]]) -> pl.Tensor[[N, 64], pl.FP32]:
        with pl.scope():
            self._double_rows(x, out)  # x: In [0:N, 0:64]; out: Out [0:N, 0:64]
            return out

    @pl.function(type=pl.FunctionType.InCore)
    def _double_rows(self, x: pl.Tensor[[N, 64], pl.FP32], out: pl.Out[pl.Tensor[[N, 64], pl.FP32]]) -> pl.Tensor[[N, 64], pl.FP32]:
        n = pl.tensor.dim(x, 0)
        for i in pl.range(0, n, 32):
            out = pl.store(pl.mul(pl.load(x, [i, 0], [32, 64], cache=pl.CachePolicy.DEFAULT), 2.0), [i, 0], out)
        return out
