"""B7 peers and reference: the four kernels of bench/b7.c as users write them in torch and numpy.

    b7_torch.py info                    one config line per system (torch, numpy)
    b7_torch.py ref DIR KERNEL DIMS...  torch's output, raw FP32, to DIR/CASE.f32 (bench_b7 checks against it)
    b7_torch.py b7 KERNEL DIMS...       rows call_us and gbps / gflops of systems torch and numpy
      KERNEL DIMS: softmax|rmsnorm ROWS COLS, ffn ROWS WIDTH HIDDEN, attention SEQ HEAD

torch eager, 2 intra-op threads: torch.softmax(x, -1); x * torch.rsqrt(x.pow(2).mean(-1,
keepdim=True) + eps) * w; F.silu(x @ w1) @ w2; torch.softmax(q @ k.T * scale, -1) @ v.
numpy (OpenBLAS on 2 threads): the same formulas in numpy.  Inputs, case names, the check
(every run against the reference of `ref`, |out - ref| <= rtol * (|ref| + mean |ref|)),
the timing (one checked warm-up, timed runs for about 0.5 s, 5 to 200, their median) and
the work counted are bench/b7.c's.  The two systems alternate in an order that changes with
the size.
"""
import json
import math
import os
import sys
import time

os.environ["OPENBLAS_NUM_THREADS"] = "2"  # numpy's BLAS: 2 threads (run.sh sets 1 for the task peers)
import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from timing import median_seconds  # noqa: E402

MAX_RUNS = 200
EPS = 1e-6


def gen(shape, j, scale):
    i = np.arange(shape[0] * shape[1], dtype=np.int64)
    return (((i * 37 + j * 11) % 101) - 50).astype(np.float32).reshape(shape) * np.float32(scale)


def problem(kernel, dims):
    """(case, input shapes, input scale, rtol, work, rate metric)"""
    if kernel in ("softmax", "rmsnorm") and len(dims) == 2:
        r, c = dims
        shapes = [(r, c)] + ([(1, c)] if kernel == "rmsnorm" else [])
        return (f"{kernel}_r{r}_c{c}", shapes, 0.02 if kernel == "rmsnorm" else 0.1, 1e-5, 2.0 * r * c * 4, "gbps")
    if kernel == "ffn" and len(dims) == 3:
        m, c, h = dims
        return f"ffn_r{m}_c{c}_h{h}", [(m, c), (c, h), (h, c)], 0.01, 1e-4, 4.0 * m * c * h, "gflops"
    if kernel == "attention" and len(dims) == 2:
        s, d = dims
        return f"attention_s{s}_d{d}", [(s, d)] * 3, 0.01, 1e-4, 4.0 * s * s * d, "gflops"
    sys.exit("usage: b7_torch.py info | ref DIR KERNEL DIMS... | b7 KERNEL DIMS...")


def torch_fn(kernel, t):
    if kernel == "softmax":
        return lambda: torch.softmax(t[0], -1)
    if kernel == "rmsnorm":
        return lambda: t[0] * torch.rsqrt(t[0].pow(2).mean(-1, keepdim=True) + EPS) * t[1]
    if kernel == "ffn":
        return lambda: F.silu(t[0] @ t[1]) @ t[2]
    scale = 1.0 / math.sqrt(t[0].shape[1])
    return lambda: torch.softmax(t[0] @ t[1].T * scale, -1) @ t[2]


def numpy_softmax(s):
    e = np.exp(s - s.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def numpy_fn(kernel, a):
    if kernel == "softmax":
        return lambda: numpy_softmax(a[0])
    if kernel == "rmsnorm":
        return lambda: a[0] * (np.float32(1.0) / np.sqrt((a[0] * a[0]).mean(-1, keepdims=True) + np.float32(EPS))) * a[1]
    if kernel == "ffn":
        def ffn():
            h = a[0] @ a[1]
            return (h / (np.float32(1.0) + np.exp(-h))) @ a[2]
        return ffn
    scale = np.float32(1.0 / math.sqrt(a[0].shape[1]))
    return lambda: numpy_softmax(a[0] @ a[1].T * scale) @ a[2]


def inputs(kernel, dims):
    case, shapes, scale, rtol, work, rate = problem(kernel, dims)
    return case, [gen(s, j, scale) for j, s in enumerate(shapes)], rtol, work, rate


def measure(fn, check):
    check(fn())
    t0 = time.perf_counter()
    check(fn())
    runs = max(5, min(MAX_RUNS, int(0.5 / max(time.perf_counter() - t0, 1e-9))))
    return median_seconds(fn, check, runs, check_each=True)


def ref(out_dir, kernel, dims):
    torch.set_num_threads(2)
    case, a, _, _, _ = inputs(kernel, dims)
    out = torch_fn(kernel, [torch.from_numpy(x) for x in a])()
    out.contiguous().numpy().astype(np.float32).tofile(os.path.join(out_dir, case + ".f32"))


def b7(kernel, dims):
    torch.set_num_threads(2)
    case, a, rtol, work, rate = inputs(kernel, dims)
    path = os.path.join(os.environ.get("BENCH_B7_REFS", "."), case + ".f32")
    expect = np.fromfile(path, dtype=np.float32)
    tol = rtol * (np.abs(expect) + np.abs(expect).mean())

    def checker(name):
        def check(out):
            o = out.numpy() if isinstance(out, torch.Tensor) else out
            if o.dtype != np.float32 or o.size != expect.size or not (np.abs(o.reshape(-1) - expect) <= tol).all():
                sys.exit(f"b7_torch: {name}: {case} does not match torch's reference (rtol {rtol})")
        return check

    systems = [("torch", torch_fn(kernel, [torch.from_numpy(x.copy()) for x in a])),
               ("numpy", numpy_fn(kernel, a))]
    if dims[0] % 3 == 1:
        systems.reverse()
    for name, fn in systems:
        med = measure(fn, checker(name))
        for metric, value in (("call_us", med * 1e6), (rate, work / med / 1e9)):
            print(json.dumps({"bench": "B7", "case": case, "system": name, "metric": metric,
                              "value": round(value, 4)}), flush=True)


def info():
    torch.set_num_threads(2)
    t = {"system": "torch", "config": f"torch {torch.__version__} eager, {torch.get_num_threads()} intra-op "
         "threads (set_num_threads(2)); B7: torch.softmax, composed RMSNorm, F.silu(x @ W1) @ W2, "
         "softmax(Q K^T * scale) V; no pinning"}
    n = {"system": "numpy", "config": f"numpy {np.__version__}, B7: the same formulas; OpenBLAS 2 threads"}
    print(json.dumps(t))
    print(json.dumps(n))


def main(argv):
    if argv[1:] == ["info"]:
        info()
    elif len(argv) >= 5 and argv[1] == "ref":
        ref(argv[2], argv[3], [int(x) for x in argv[4:]])
    elif len(argv) >= 4 and argv[1] == "b7":
        b7(argv[2], [int(x) for x in argv[3:]])
    else:
        sys.exit("usage: b7_torch.py info | ref DIR KERNEL DIMS... | b7 KERNEL DIMS...")


if __name__ == "__main__":
    main(sys.argv)
