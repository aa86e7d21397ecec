"""§6.3 example matrix, in our own programs: rank identity, a window round trip, a barrier by
hand and the built-in one, ring shifts by remote_load, remote_store, put and get at P = 2, 3, 4,
an in-kernel mesh allreduce.  Every case checks its result on every rank; run.py checks that
the PYPTO_DIST_PROBE=1 hashes agree across ranks."""
import pypto.language as pl
import pypto.language.distributed as pld
import torch

from distcase import case, config, equal, seeded

W = pl.dynamic("W")
N = 96  # elements per rank's row


@pl.jit.incore
def mark_k(a: pl.Tensor[[4, N], pl.FP32], b: pl.Out[pl.Tensor[[4, N], pl.FP32]], who: pl.Scalar[pl.INT32]):
    t = pl.load(a, [0, 0], [4, N])
    b = pl.store(pl.add(pl.add(t, t), pl.cast(who, target_type=pl.FP32)), [0, 0], b)
    return b


@pl.jit
def mark_dev(a: pl.Tensor[[4, N], pl.FP32], b: pl.Out[pl.Tensor[[4, N], pl.FP32]], who: pl.Scalar[pl.INT32]):
    return mark_k(a, b, who)


@pl.jit.host
def mark_all(a: pl.Tensor[[W, 4, N], pl.FP32], b: pl.Out[pl.Tensor[[W, 4, N], pl.FP32]]):
    for q in pl.range(pld.world_size()):
        mark_dev(a[q], b[q], q, device=q)


@case("example_hello_each_rank_marks_its_row", ranks=(2, 3, 4))
def hello(P):
    a = torch.randn((P, 4, N), generator=seeded(None))
    b = torch.zeros((P, 4, N))
    mark_all(a, b, config=config(P))
    equal(b, a + a + torch.arange(P, dtype=torch.float32).view(P, 1, 1), "b")


@pl.jit.incore
def echo_k(a: pl.Tensor[[2, N], pl.FP32], b: pl.Out[pl.Tensor[[2, N], pl.FP32]],
           win: pld.DistributedTensor[[2, N], pl.FP32]):
    win = pl.store(pl.load(a, [0, 0], [2, N]), [0, 0], win)
    b = pl.store(pl.load(win, [0, 0], [2, N]), [0, 0], b)
    return b


@pl.jit
def echo_dev(a: pl.Tensor[[2, N], pl.FP32], b: pl.Out[pl.Tensor[[2, N], pl.FP32]],
             win: pld.DistributedTensor[[2, N], pl.FP32]):
    return echo_k(a, b, win)


@pl.jit.host
def echo_all(a: pl.Tensor[[W, 2, N], pl.FP32], b: pl.Out[pl.Tensor[[W, 2, N], pl.FP32]]):
    wb = pld.alloc_window_buffer([2, N], dtype=pl.FP32)
    for q in pl.range(pld.world_size()):
        win = pld.window(wb, [2, N], dtype=pl.FP32)
        echo_dev(a[q], b[q], win, device=q)


@case("example_window_round_trip", ranks=(2, 3))
def window_round_trip(P):
    a = torch.randn((P, 2, N), generator=seeded(None))
    b = torch.zeros((P, 2, N))
    echo_all(a, b, config=config(P))
    equal(b, a, "b")


@pl.jit.incore
def tally_k(seen: pl.Out[pl.Tensor[[4, 1], pl.INT32]], sig: pld.DistributedTensor[[W, 1], pl.INT32]):
    ctx = pld.get_comm_ctx(sig)
    me = pld.rank(ctx)
    n = pld.nranks(ctx)
    for j in pl.range(n):
        if j != me:
            pld.system.notify(sig, peer=j, offsets=[me, 0], value=j + 10, op=pld.NotifyOp.AtomicAdd)
    for j in pl.range(n):
        if j != me:
            pld.system.wait(sig, offsets=[j, 0], expected=me + 10, cmp=pld.WaitCmp.Eq)
    for j in pl.range(n):
        pl.write(seen, [j, 0], pl.read(sig, [j, 0]))
    return seen


@pl.jit
def tally_dev(seen: pl.Out[pl.Tensor[[4, 1], pl.INT32]], sig: pld.DistributedTensor[[W, 1], pl.INT32]):
    return tally_k(seen, sig)


@pl.jit.host
def tally_all(seen: pl.Out[pl.Tensor[[W, 4, 1], pl.INT32]]):
    sb = pld.alloc_window_buffer([pld.world_size(), 1], dtype=pl.INT32)
    for q in pl.range(pld.world_size()):
        sig = pld.window(sb, [W, 1], dtype=pl.INT32)
        tally_dev(seen[q], sig, device=q)


@case("example_barrier_by_hand_leaves_each_peers_tally", ranks=(2, 3, 4))
def barrier_by_hand(P):
    # rows past P of each rank's tally are not written: they keep rank 0's -7
    seen = torch.full((P, 4, 1), -7, dtype=torch.int32)
    tally_all(seen, config=config(P))
    want = torch.tensor([[[-7 if j >= P else 0 if j == q else q + 10] for j in range(4)] for q in range(P)],
                        dtype=torch.int32)
    equal(seen, want, "seen")


@pl.jit.incore
def shift_load_k(a: pl.Tensor[[1, N], pl.FP32], b: pl.Out[pl.Tensor[[1, N], pl.FP32]],
                 win: pld.DistributedTensor[[1, N], pl.FP32], sig: pld.DistributedTensor[[W, 1], pl.INT32]):
    ctx = pld.get_comm_ctx(win)
    me = pld.rank(ctx)
    n = pld.nranks(ctx)
    win = pl.store(pl.load(a, [0, 0], [1, N]), [0, 0], win)
    sig = pld.tensor.barrier(sig)
    b = pl.store(pld.tile.remote_load(win, peer=(me + 1) % n, offsets=[0, 0], shape=[1, N]), [0, 0], b)
    return b


@pl.jit
def shift_load_dev(a: pl.Tensor[[1, N], pl.FP32], b: pl.Out[pl.Tensor[[1, N], pl.FP32]],
                   win: pld.DistributedTensor[[1, N], pl.FP32], sig: pld.DistributedTensor[[W, 1], pl.INT32]):
    return shift_load_k(a, b, win, sig)


@pl.jit.host
def shift_load_all(a: pl.Tensor[[W, 1, N], pl.FP32], b: pl.Out[pl.Tensor[[W, 1, N], pl.FP32]]):
    wb = pld.alloc_window_buffer([1, N], dtype=pl.FP32)
    sb = pld.alloc_window_buffer([pld.world_size(), 1], dtype=pl.INT32)
    for q in pl.range(pld.world_size()):
        win = pld.window(wb, [1, N], dtype=pl.FP32)
        sig = pld.window(sb, [W, 1], dtype=pl.INT32)
        shift_load_dev(a[q], b[q], win, sig, device=q)


def rolled(a, by):
    """Row q of the result is row (q + by) mod P of a."""
    return torch.roll(a, shifts=-by, dims=0)


@case("example_builtin_barrier_orders_a_ring_shift_by_remote_load", ranks=(2, 3, 4))
def shift_by_remote_load(P):
    a = torch.randn((P, 1, N), generator=seeded(None))
    b = torch.zeros((P, 1, N))
    shift_load_all(a, b, config=config(P))
    equal(b, rolled(a, 1), "b")


@pl.jit.incore
def shift_store_k(a: pl.Tensor[[1, N], pl.FP32], b: pl.Out[pl.Tensor[[1, N], pl.FP32]],
                  win: pld.DistributedTensor[[1, N], pl.FP32], sig: pld.DistributedTensor[[W, 1], pl.INT32]):
    ctx = pld.get_comm_ctx(win)
    me = pld.rank(ctx)
    n = pld.nranks(ctx)
    pld.tile.remote_store(pl.load(a, [0, 0], [1, N]), win, (me + n - 1) % n, [0, 0])
    sig = pld.tensor.barrier(sig)
    b = pl.store(pl.load(win, [0, 0], [1, N]), [0, 0], b)
    return b


@pl.jit
def shift_store_dev(a: pl.Tensor[[1, N], pl.FP32], b: pl.Out[pl.Tensor[[1, N], pl.FP32]],
                    win: pld.DistributedTensor[[1, N], pl.FP32], sig: pld.DistributedTensor[[W, 1], pl.INT32]):
    return shift_store_k(a, b, win, sig)


@pl.jit.host
def shift_store_all(a: pl.Tensor[[W, 1, N], pl.FP32], b: pl.Out[pl.Tensor[[W, 1, N], pl.FP32]]):
    wb = pld.alloc_window_buffer([1, N], dtype=pl.FP32)
    sb = pld.alloc_window_buffer([pld.world_size(), 1], dtype=pl.INT32)
    for q in pl.range(pld.world_size()):
        win = pld.window(wb, [1, N], dtype=pl.FP32)
        sig = pld.window(sb, [W, 1], dtype=pl.INT32)
        shift_store_dev(a[q], b[q], win, sig, device=q)


@case("example_ring_shift_by_remote_store", ranks=(2, 3, 4))
def shift_by_remote_store(P):
    a = torch.randn((P, 1, N), generator=seeded(None))
    b = torch.zeros((P, 1, N))
    shift_store_all(a, b, config=config(P))
    equal(b, rolled(a, 1), "b")


@pl.jit.incore
def push_k(a: pl.Tensor[[1, N], pl.FP32], b: pl.Out[pl.Tensor[[1, N], pl.FP32]],
           mine: pld.DistributedTensor[[1, N], pl.FP32], inbox: pld.DistributedTensor[[1, N], pl.FP32],
           bell: pld.DistributedTensor[[1, 1], pl.INT32]):
    ctx = pld.get_comm_ctx(mine)
    me = pld.rank(ctx)
    n = pld.nranks(ctx)
    mine = pl.store(pl.load(a, [0, 0], [1, N]), [0, 0], mine)
    to = (me + 1) % n
    pld.tensor.put(inbox, peer=to, src=mine)
    pld.system.notify(bell, peer=to, offsets=[0, 0], value=1, op=pld.NotifyOp.AtomicAdd)
    pld.system.wait(bell, offsets=[0, 0], expected=1, cmp=pld.WaitCmp.Ge)
    b = pl.store(pl.load(inbox, [0, 0], [1, N]), [0, 0], b)
    return b


@pl.jit
def push_dev(a: pl.Tensor[[1, N], pl.FP32], b: pl.Out[pl.Tensor[[1, N], pl.FP32]],
             mine: pld.DistributedTensor[[1, N], pl.FP32], inbox: pld.DistributedTensor[[1, N], pl.FP32],
             bell: pld.DistributedTensor[[1, 1], pl.INT32]):
    return push_k(a, b, mine, inbox, bell)


@pl.jit.host
def push_all(a: pl.Tensor[[W, 1, N], pl.FP32], b: pl.Out[pl.Tensor[[W, 1, N], pl.FP32]]):
    mb = pld.alloc_window_buffer([1, N], dtype=pl.FP32)
    ib = pld.alloc_window_buffer([1, N], dtype=pl.FP32)
    bb = pld.alloc_window_buffer([1, 1], dtype=pl.INT32)
    for q in pl.range(pld.world_size()):
        mine = pld.window(mb, [1, N], dtype=pl.FP32)
        inbox = pld.window(ib, [1, N], dtype=pl.FP32)
        bell = pld.window(bb, [1, 1], dtype=pl.INT32)
        push_dev(a[q], b[q], mine, inbox, bell, device=q)


@case("example_ring_shift_by_put", ranks=(2, 3, 4))
def shift_by_put(P):
    a = torch.randn((P, 1, N), generator=seeded(None))
    b = torch.zeros((P, 1, N))
    push_all(a, b, config=config(P))
    equal(b, rolled(a, -1), "b")


@pl.jit.incore
def pull_k(a: pl.Tensor[[1, N], pl.FP32], b: pl.Out[pl.Tensor[[1, N], pl.FP32]],
           mine: pld.DistributedTensor[[1, N], pl.FP32], bell: pld.DistributedTensor[[1, 1], pl.INT32]):
    ctx = pld.get_comm_ctx(mine)
    me = pld.rank(ctx)
    n = pld.nranks(ctx)
    mine = pl.store(pl.load(a, [0, 0], [1, N]), [0, 0], mine)
    pld.system.notify(bell, peer=(me + n - 1) % n, offsets=[0, 0], value=1, op=pld.NotifyOp.AtomicAdd)
    pld.system.wait(bell, offsets=[0, 0], expected=1, cmp=pld.WaitCmp.Ge)
    pld.tensor.get(b, peer=(me + 1) % n, src=mine)
    return b


@pl.jit
def pull_dev(a: pl.Tensor[[1, N], pl.FP32], b: pl.Out[pl.Tensor[[1, N], pl.FP32]],
             mine: pld.DistributedTensor[[1, N], pl.FP32], bell: pld.DistributedTensor[[1, 1], pl.INT32]):
    return pull_k(a, b, mine, bell)


@pl.jit.host
def pull_all(a: pl.Tensor[[W, 1, N], pl.FP32], b: pl.Out[pl.Tensor[[W, 1, N], pl.FP32]]):
    mb = pld.alloc_window_buffer([1, N], dtype=pl.FP32)
    bb = pld.alloc_window_buffer([1, 1], dtype=pl.INT32)
    for q in pl.range(pld.world_size()):
        mine = pld.window(mb, [1, N], dtype=pl.FP32)
        bell = pld.window(bb, [1, 1], dtype=pl.INT32)
        pull_dev(a[q], b[q], mine, bell, device=q)


@case("example_ring_shift_by_get_into_a_tensor", ranks=(2, 3, 4))
def shift_by_get(P):
    a = torch.randn((P, 1, N), generator=seeded(None))
    b = torch.zeros((P, 1, N))
    pull_all(a, b, config=config(P))
    equal(b, rolled(a, 1), "b")


@pl.jit.incore
def mesh_sum_k(a: pl.Tensor[[1, N], pl.FP32], b: pl.Out[pl.Tensor[[1, N], pl.FP32]],
               win: pld.DistributedTensor[[1, N], pl.FP32], sig: pld.DistributedTensor[[W, 1], pl.INT32]):
    ctx = pld.get_comm_ctx(win)
    me = pld.rank(ctx)
    n = pld.nranks(ctx)
    acc = pl.load(a, [0, 0], [1, N])
    win = pl.store(acc, [0, 0], win)
    sig = pld.tensor.barrier(sig)
    for j in pl.range(n):
        if j != me:
            acc = pl.add(acc, pld.tile.remote_load(win, peer=j, offsets=[0, 0], shape=[1, N]))
    b = pl.store(acc, [0, 0], b)
    return b


@pl.jit
def mesh_sum_dev(a: pl.Tensor[[1, N], pl.FP32], b: pl.Out[pl.Tensor[[1, N], pl.FP32]],
                 win: pld.DistributedTensor[[1, N], pl.FP32], sig: pld.DistributedTensor[[W, 1], pl.INT32]):
    return mesh_sum_k(a, b, win, sig)


@pl.jit.host
def mesh_sum_all(a: pl.Tensor[[W, 1, N], pl.FP32], b: pl.Out[pl.Tensor[[W, 1, N], pl.FP32]]):
    wb = pld.alloc_window_buffer([1, N], dtype=pl.FP32)
    sb = pld.alloc_window_buffer([pld.world_size(), 1], dtype=pl.INT32)
    for q in pl.range(pld.world_size()):
        win = pld.window(wb, [1, N], dtype=pl.FP32)
        sig = pld.window(sb, [W, 1], dtype=pl.INT32)
        mesh_sum_dev(a[q], b[q], win, sig, device=q)


@case("example_mesh_allreduce_in_a_kernel", ranks=(2, 3, 4))
def mesh_allreduce(P):
    # small integers: every rank's summation order gives the same exact FP32 sum
    a = torch.randint(-50, 50, (P, 1, N), generator=seeded(None)).float()
    b = torch.zeros((P, 1, N))
    mesh_sum_all(a, b, config=config(P))
    equal(b, a.sum(0, keepdim=True).expand(P, 1, N).contiguous(), "b")
