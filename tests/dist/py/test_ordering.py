"""F7 and X12's second half (DISTRIBUTED-SPEC §6): two independent host collectives on one
domain per call, after kernels whose run time differs at random from rank to rank and
call to call, give torch's result in every one of 200 calls, with no hang.  Each host
collective is a DEFERRED comm task (D9) ordered by the rank's token: the ranks start them
in program order however late each rank's kernels finish.  The delays are a tensor
argument, so every rank runs with rank 0's draw (D4) and each dispatch reads its own row."""
import pypto.language as pl
import pypto.language.distributed as pld
import torch

from distcase import case, config, equal

W = pl.dynamic("W")
N = 32
CALLS = 200


@pl.jit.incore
def spin_fill_k(x: pl.Tensor[[1, N], pl.FP32], d: pl.Tensor[[1], pl.INT32],
                a: pld.DistributedTensor[[1, N], pl.FP32], b: pld.DistributedTensor[[1, N], pl.FP32]):
    t = pl.load(x, [0, 0], [1, N])
    for i in pl.range(pl.read(d, [0])):  # the delay: a chain of no-op adds
        t = pl.add(t, 0.0)
    a = pl.store(t, [0, 0], a)
    b = pl.store(pl.add(t, t), [0, 0], b)
    return b


@pl.jit
def spin_fill_dev(x: pl.Tensor[[1, N], pl.FP32], d: pl.Tensor[[1], pl.INT32],
                  a: pld.DistributedTensor[[1, N], pl.FP32], b: pld.DistributedTensor[[1, N], pl.FP32]):
    spin_fill_k(x, d, a, b)


@pl.jit.incore
def take2_k(y: pl.Out[pl.Tensor[[2, N], pl.FP32]],
            a: pld.DistributedTensor[[1, N], pl.FP32], b: pld.DistributedTensor[[1, N], pl.FP32]):
    y = pl.store(pl.load(a, [0, 0], [1, N]), [0, 0], y)
    y = pl.store(pl.load(b, [0, 0], [1, N]), [1, 0], y)
    return y


@pl.jit
def take2_dev(y: pl.Out[pl.Tensor[[2, N], pl.FP32]],
              a: pld.DistributedTensor[[1, N], pl.FP32], b: pld.DistributedTensor[[1, N], pl.FP32]):
    return take2_k(y, a, b)


@pl.jit.host
def two_reductions(x: pl.Tensor[[W, 1, N], pl.FP32], d: pl.Tensor[[W, 1], pl.INT32],
                   y: pl.Out[pl.Tensor[[W, 2, N], pl.FP32]]):
    ab = pld.alloc_window_buffer([1, N], dtype=pl.FP32)
    bb = pld.alloc_window_buffer([1, N], dtype=pl.FP32)
    a = pld.window(ab, [1, N], dtype=pl.FP32)
    b = pld.window(bb, [1, N], dtype=pl.FP32)
    for q in pl.range(pld.world_size()):
        spin_fill_dev(x[q], d[q], a, b, device=q)
    a = pld.tensor.allreduce(a, op=pld.ReduceOp.Sum)
    b = pld.tensor.allreduce(b, op=pld.ReduceOp.Max)
    for q in pl.range(pld.world_size()):
        take2_dev(y[q], a, b, device=q)


@case("f7_two_host_collectives_under_random_kernel_delays_agree_in_every_call", ranks=(2, 3), bound=60)
def two_collectives_random_delays(P):
    g = torch.Generator().manual_seed(7)  # the same draws on every rank: each call's golden is known everywhere
    for call in range(CALLS):
        x = torch.randint(-8, 9, (P, 1, N), generator=g).float()
        d = torch.randint(0, 400, (P, 1), generator=g, dtype=torch.int32)
        y = torch.zeros((P, 2, N))
        two_reductions(x, d, y, config=config(P, stall_timeout_ms=10000))
        want = torch.stack([x[:, 0].sum(0), (2 * x[:, 0]).amax(0)]).expand(P, 2, N)
        equal(y, want.contiguous(), "y of call %d" % call)
