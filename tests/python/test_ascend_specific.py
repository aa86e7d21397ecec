"""P1-17 (DSL-V2-SPEC §0.8 table A): every hardware-internal spelling is an
UnsupportedFeatureError `<construct> is Ascend-specific: <reason>; it has no
meaning on the CPU backend` at the construct's file:line:col, one case per
spelling of the table (dtype rows: `dtype pl.<DT>`; keyword rows: `<kw>=`).
"""
import numpy as np
import pytest

from pypto.language.parser.diagnostics import UnsupportedFeatureError

from conftest import line_of

LANES = "it places work on the two vector lanes of one core"
RING = "it is a ring primitive between the cube and vector units of one core"
BARRIER = "it is a device barrier or cache-maintenance instruction"
MX = "it uses the A5 micro-scaling formats and their fixed layouts"
LAYOUT = "it selects a hardware fractal layout"
EXTERN = "it links a hand-written Ascend C++ kernel"
KIND = "it selects a compiler-internal function kind or core type"
ADDRESS = "it fixes an on-chip address"

KERNEL = """
@pl.jit
def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(a, [0, 0], [16, 16])
        %s
        pl.store(t, [0, 0], out)
    return out
"""
ORCH = """
@pl.jit
def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    %s
    return out
"""
PROGRAM = """
@pl.program
class P:
    @pl.function(%s)
    def g(self, a: pl.Tensor, out: pl.Out[pl.Tensor]):
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def k(self, a: pl.Tensor, out: pl.Out[pl.Tensor]):
        out = self.g(a, out)
        return out
"""
EXTERN_SRC = """
@pl.jit.extern%s
def g(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    return out

@pl.jit
def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    g(a, out)
    return out
"""
INCORE_LEVEL = """
@pl.jit.incore(level=pl.Level.%s)
def g(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    return out

@pl.jit
def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    g(a, out)
    return out
"""
PARAM = """
@pl.jit
def k(a: %s, out: pl.Out[pl.Tensor]):
    return out
"""


def kern(stmt, needle, construct, reason):
    return pytest.param(KERNEL % stmt, needle, construct, reason, id=construct)


def orch(stmt, needle, construct, reason):
    return pytest.param(ORCH % stmt, needle, construct, reason, id=construct)


def system(name, reason, args="t"):
    return kern("pl.system.%s(%s)" % (name, args), "pl.system.", "pl.system." + name, reason)


def dtype(name):
    return kern("x = pl.cast(t, pl.%s)" % name, "pl.%s)" % name, "dtype pl." + name, MX)


CASES = [
    kern("x = pl.split_aiv(t)", "pl.split_aiv", "pl.split_aiv", LANES),
    kern("x = pl.aiv_shard(t)", "pl.aiv_shard", "pl.aiv_shard", LANES),
    kern("x = pl.aic_gather(t)", "pl.aic_gather", "pl.aic_gather", LANES),
    *[system(n, RING) for n in ("tpush_to_aiv", "tpush_to_aic", "tpop_from_aiv", "tpop_from_aic", "tfree_to_aiv",
                                "tfree_to_aic", "aic_initialize_pipe", "aiv_initialize_pipe", "reserve_buffer",
                                "import_peer_buffer")],
    kern("x = pl.AUTO", "pl.AUTO", "pl.AUTO", RING),
    *[system(n, BARRIER, "") for n in ("syncall", "cacheinvalid", "fence", "available_cluster_count",
                                       "available_aiv_count")],
    orch("pl.system.syncall()", "pl.system", "pl.system.syncall", BARRIER),
    kern("x = pl.matmul_mx(t, t)", "pl.matmul_mx", "pl.matmul_mx", MX),
    kern("x = pl.matmul_mx_acc(t, t, t)", "pl.matmul_mx_acc", "pl.matmul_mx_acc", MX),
    kern("x = pl.matmul_mx_bias(t, t, t)", "pl.matmul_mx_bias", "pl.matmul_mx_bias", MX),
    kern("x = pl.gemv_mx(t, t)", "pl.gemv_mx", "pl.gemv_mx", MX),
    kern("x = pl.gemv_mx_acc(t, t, t)", "pl.gemv_mx_acc", "pl.gemv_mx_acc", MX),
    kern("x = pl.gemv_mx_bias(t, t, t)", "pl.gemv_mx_bias", "pl.gemv_mx_bias", MX),
    kern("x = pl.move(t, target_memory=pl.Mem.LeftScale)", "pl.Mem.LeftScale", "pl.Mem.LeftScale", MX),
    kern("x = pl.move(t, target_memory=pl.Mem.RightScale)", "pl.Mem.RightScale", "pl.Mem.RightScale", MX),
    kern("x: pl.Tile[[16, 16], pl.FP32, pl.MemorySpace.LeftScale] = t", "pl.MemorySpace", "pl.MemorySpace.LeftScale", MX),
    orch("x = pl.MX_A_ZZ", "pl.MX_A_ZZ", "pl.MX_A_ZZ", MX),
    orch("x = pl.MX_B_NN", "pl.MX_B_NN", "pl.MX_B_NN", MX),
    *[dtype(n) for n in ("FP4", "FP8", "FP8E4M3FN", "FP8E5M2", "HF4", "HF8", "INT4")],
    kern("x = pl.create_tile([16, 16], pl.FP8E5M2)", "pl.FP8E5M2", "dtype pl.FP8E5M2", MX),
    pytest.param(PARAM % "pl.Tensor[[16, 16], pl.HF8]", "pl.HF8", "dtype pl.HF8", MX, id="dtype pl.HF8 (parameter)"),
    pytest.param(PARAM % "pl.Tensor[[16, 16], pl.FP32, pl.NZ]", "pl.NZ", "pl.NZ", LAYOUT, id="pl.NZ (annotation)"),
    pytest.param(PARAM % "pl.Tensor[[16, 16], pl.FP32, pl.DN]", "pl.DN", "pl.DN", LAYOUT, id="pl.DN (annotation)"),
    pytest.param(PARAM % "pl.Tensor[[16, 16], pl.FP32, pl.TensorView(layout=pl.NZ)]", "pl.NZ", "pl.NZ", LAYOUT,
                 id="pl.TensorView(layout=pl.NZ) (annotation)"),
    orch("x = pl.create_tensor([16, 16], pl.FP32, layout=pl.NZ)", "pl.NZ", "pl.NZ", LAYOUT),
    orch("x = pl.create_tensor([16, 16], pl.FP32, layout=pl.DN)", "pl.DN", "pl.DN", LAYOUT),
    orch("x = pl.create_tensor([16, 16], pl.FP32, layout=pl.Layout.NZ)", "pl.Layout.NZ", "pl.Layout.NZ", LAYOUT),
    orch("x = pl.TensorView(stride=[16, 1], layout=pl.DN)", "pl.DN", "pl.DN", LAYOUT),
    kern("x: pl.Tile[[16, 16], pl.FP32, pl.NZ] = t", "pl.NZ", "pl.NZ", LAYOUT),
    kern("x = pl.move(t, target_memory=pl.Mem.Mat, blayout=pl.NZ)", "blayout", "blayout=", LAYOUT),
    kern("x = pl.move(t, target_memory=pl.Mem.Mat, slayout=pl.NZ)", "slayout", "slayout=", LAYOUT),
    kern("x = pl.matmul(t, t, c_matrix_nz=True)", "c_matrix_nz", "c_matrix_nz=", LAYOUT),
    pytest.param(EXTERN_SRC % "", "pl.jit.extern", "@pl.jit.extern", EXTERN, id="@pl.jit.extern"),
    pytest.param(EXTERN_SRC % '(include_dirs=["inc"])', "pl.jit.extern", "@pl.jit.extern", EXTERN,
                 id="@pl.jit.extern(...)"),
    pytest.param(PROGRAM % 'type=pl.FunctionType.InCore, external_source="k.cpp"', "external_source",
                 "external_source=", EXTERN, id="external_source="),
    *[pytest.param(PROGRAM % ("type=pl.FunctionType.%s" % m), "pl.FunctionType.%s" % m, "pl.FunctionType.%s" % m,
                   KIND, id="pl.FunctionType.%s" % m) for m in ("AIC", "AIV", "Group", "Spmd")],
    orch("x = pl.FunctionType.AIV", "pl.FunctionType", "pl.FunctionType.AIV", KIND),
    pytest.param(PROGRAM % "type=pl.FunctionType.InCore, role=1", "role", "role=", KIND, id="role= (function)"),
    orch("with pl.at(level=pl.Level.CORE_GROUP, role=1):\n        pass", "role", "role=", KIND),
    *[orch("with pl.at(level=pl.Level.%s):\n        pass" % m, "pl.Level.", "pl.Level." + m, KIND) for m in ("AIC", "AIV")],
    *[pytest.param(INCORE_LEVEL % m, "pl.Level.", "pl.Level." + m, KIND, id="@pl.jit.incore(level=pl.Level.%s)" % m)
      for m in ("AIC", "AIV")],
    pytest.param(PROGRAM % "type=pl.FunctionType.InCore, level=pl.Level.AIV", "pl.Level.AIV", "pl.Level.AIV", KIND,
                 id="@pl.function(level=pl.Level.AIV)"),
    kern("x: pl.Tile[[16, 16], pl.FP32, pl.MemRef(0, 0, 1024), pl.Mem.Vec] = t", "pl.MemRef",
         "pl.MemRef(<base or addr>, <offset>, <size>)", ADDRESS),
    pytest.param(KERNEL % 'x: pl.Tile[[16, 16], pl.FP32, pl.MemRef("ub", 0, 1024), pl.Mem.Vec] = t', "pl.MemRef",
                 "pl.MemRef(<base or addr>, <offset>, <size>)", ADDRESS, id="pl.MemRef(name, offset, size)"),
    kern('x: pl.Tile[[16, 16], pl.FP32, pl.MemRef("ub", addr=0), pl.Mem.Vec] = t', "addr", "addr=", ADDRESS),
]


@pytest.mark.parametrize("src,needle,construct,reason", CASES)
def test_ascend_specific_spelling(load, src, needle, construct, reason):
    mod, path = load(src)
    a, out = np.zeros((16, 16), np.float32), np.zeros((16, 16), np.float32)
    with pytest.raises(UnsupportedFeatureError) as e:
        (mod.P if hasattr(mod, "P") else mod.k).lower(a, out)
    assert e.value.message == "%s is Ascend-specific: %s; it has no meaning on the CPU backend" % (construct, reason)
    line, col = line_of(path, needle)
    assert (e.value.span["filename"], e.value.span["line"], e.value.span["column"]) == (path, line, col)
    assert str(e.value).startswith("%s:%d:%d: error: " % (path, line, col))
