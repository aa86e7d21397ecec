"""dist_gen.py - random distributed host programs as source text, each with a numpy
reference that runs the same program sequentially over P simulated window copies
(DISTRIBUTED-SPEC §6.5).

make_program(seed, P) returns a Program: the module text (one @pl.jit.host entry `prog`,
per-segment per-device @pl.jit functions and their @pl.jit.incore kernels), the inputs and
the outputs the reference gives.

What a program holds:
- domain A (all P ranks): 1-3 window buffers [R, 16] (R in 2, 4), one dtype per program
  (FP32 or INT32, integer-valued data so every sum is exact);
- optionally (P >= 3) domain B: one buffer used only by the dispatches of a
  `for r in pl.range(K)` loop, K < P, with its own signal;
- E epochs of per-rank actions (`if me == k:` blocks in one kernel per dispatch segment):
  local stores into the rank's own copy, remote_store and put (from x or a local window box)
  into a peer's copy (the peer may be the rank itself), atomic=Add remote_stores and puts on
  regions shared in that epoch, gets into the rank's own copy and remote_loads; tiles are
  loads, loads + constants and sums of two loads;
- epochs separated by an in-kernel pld.tensor.barrier, by a host barrier (the next epochs
  are a new dispatch after `sig = pld.tensor.barrier(sig)` in the host body) or by pairwise
  notify/wait on a flag window (a -> b exactly where a's epoch conflicts with a later epoch
  of b; the cells count up, waits use Ge with the running count);
- finally every window is copied into the Out tensor y[r] (yb[r] for domain B), after an
  in-kernel barrier, pairwise waits, or a host barrier and a separate copy dispatch.

Invariants that make the result deterministic: within one epoch a window cell (buffer,
copy, row, half of the columns) is either written by exactly one action, or only
atomically added to, or only read; every conflicting access pair of two epochs is ordered
by the synchronisation between them.  So any interleaving of the ranks' actions within an
epoch gives the reference's (sequential) values.
"""
import random

import numpy as np

C = 16       # columns of every buffer and of x
HALF = C // 2
Q = 4        # columns of one cell (the unit of ownership)
XR = 4       # rows of x[r]
SHAPES = ((1, 4), (1, HALF), (1, C), (2, 4), (2, HALF), (2, C), (1, 12), (4, C), (3, HALF))


class Program:
    def __init__(self, seed, P, text, dtype, x0, expected, expected_b, stats):
        self.seed, self.P, self.text, self.dtype = seed, P, text, dtype
        self.x0, self.expected, self.expected_b, self.stats = x0, expected, expected_b, stats


class Buf:
    def __init__(self, idx, rows, dom, yrow):
        self.idx, self.rows, self.dom, self.yrow = idx, rows, dom, yrow
        self.name = "w%d" % idx


def cells(buf, copy, box):
    r0, c0, h, w = box
    return [(buf.idx, copy, r, c // Q) for r in range(r0, r0 + h) for c in range(c0, c0 + w, Q)]


class Gen:
    def __init__(self, seed, P):
        self.rng = random.Random(seed * 7919 + P)
        self.P = P

    # ---- random pieces --------------------------------------------------------------
    def box_in(self, rows, shape):
        h, w = shape
        return (self.rng.randrange(0, rows - h + 1), self.rng.randrange(0, C - w + 1, Q), h, w)

    def epoch(self, ranks, bufs, nact):
        """Per-rank action lists of one epoch over the buffers bufs (copies = ranks)."""
        rng = self.rng
        state = {}  # cell -> 'r' | 'a' | ('w', rank, 'local' or 'remote'): one writer and path per epoch (O3)
        acts = {k: [] for k in ranks}

        def ok(cs, mode):
            for c in cs:
                s = state.get(c)
                if s is None or s == mode:
                    continue
                return False
            return True

        def mark(cs, mode):
            for c in cs:
                state[c] = mode

        def source(me, shape, tries=6):
            """('x', box) | ('local', buf, box) | ('remote', buf, peer, box), its cells marked read."""
            for _ in range(tries):
                kind = rng.choice(("x", "x", "local", "remote", "remote"))
                if kind == "x":
                    return ("x", self.box_in(XR, shape))
                b = rng.choice(bufs)
                if b.rows < shape[0]:
                    continue
                if b.rows < shape[0]:
                    continue
                box = self.box_in(b.rows, shape)
                peer = me if kind == "local" else rng.choice(ranks)
                cs = cells(b, peer, box)
                if ok(cs, 'r'):
                    mark(cs, 'r')
                    return ("local", b, box) if peer == me else ("remote", b, peer, box)
            return ("x", self.box_in(XR, shape))

        def value(me, shape):
            r = rng.random()
            if r < 0.4:
                return ("load", source(me, shape))
            if r < 0.7:
                return ("addc", source(me, shape), rng.choice((1, 2, 3, -1, 5)))
            return ("add2", source(me, shape), source(me, shape))

        for _ in range(nact):
            me = rng.choice(ranks)
            kind = rng.choice(("store", "rstore", "rstore", "put", "put", "get", "atomic", "atomic"))
            shape = rng.choice(SHAPES)
            fits = [b for b in bufs if b.rows >= shape[0]]
            if not fits:
                continue
            b = rng.choice(fits)
            dbox = self.box_in(b.rows, shape)
            if kind == "store":
                cs = cells(b, me, dbox)
                if ok(cs, ('w', me, 'local')):
                    mark(cs, ('w', me, 'local'))
                    acts[me].append(("store", value(me, shape), b, dbox))
            elif kind in ("rstore", "atomic") and rng.random() < 0.5:
                peer = rng.choice(ranks)
                mode = 'a' if kind == "atomic" else ('w', me, 'remote')
                cs = cells(b, peer, dbox)
                if ok(cs, mode):
                    mark(cs, mode)
                    acts[me].append(("rstore", value(me, shape), b, peer, dbox, mode == 'a'))
            elif kind in ("put", "rstore", "atomic"):
                peer = rng.choice(ranks)
                mode = 'a' if kind == "atomic" else ('w', me, 'remote')
                cs = cells(b, peer, dbox)
                if not ok(cs, mode):
                    continue
                mark(cs, mode)
                src = source(me, shape)
                if src[0] == "remote":  # put reads a local tensor: take x instead
                    src = ("x", self.box_in(XR, shape))
                acts[me].append(("put", src, b, peer, dbox, mode == 'a'))
            else:  # get into my copy from a peer's copy
                cs = cells(b, me, dbox)
                if not ok(cs, ('w', me, 'local')):
                    continue
                sb = rng.choice([s for s in bufs if s.rows >= shape[0]])
                peer = rng.choice(ranks)
                sbox = self.box_in(sb.rows, shape)
                scs = cells(sb, peer, sbox)
                if set(scs) & set(cs) or not ok(scs, 'r'):
                    continue
                mark(cs, ('w', me, 'local'))
                mark(scs, 'r')
                acts[me].append(("get", sb, peer, sbox, b, dbox))
        return acts


def accesses(act, me):
    """(cell, mode) pairs of one action; mode 'r', 'w' or 'a'."""
    out = []

    def src_cells(s):
        if s[0] == "local":
            out.extend((c, 'r') for c in cells(s[1], me, s[2]))
        elif s[0] == "remote":
            out.extend((c, 'r') for c in cells(s[1], s[2], s[3]))

    def val_cells(v):
        for s in v[1:]:
            if isinstance(s, tuple):
                src_cells(s)

    k = act[0]
    if k == "store":
        val_cells(act[1])
        out.extend((c, 'w') for c in cells(act[2], me, act[3]))
    elif k == "rstore":
        val_cells(act[1])
        out.extend((c, 'a' if act[5] else 'w') for c in cells(act[2], act[3], act[4]))
    elif k == "put":
        src_cells(act[1])
        out.extend((c, 'a' if act[5] else 'w') for c in cells(act[2], act[3], act[4]))
    else:
        out.extend((c, 'r') for c in cells(act[1], act[2], act[3]))
        out.extend((c, 'w') for c in cells(act[4], me, act[5]))
    return out


def conflict(xs, ys):
    d = {}
    for c, m in xs:
        d.setdefault(c, set()).add(m)
    for c, m in ys:
        for m2 in d.get(c, ()):
            if not (m == 'r' and m2 == 'r') and not (m == 'a' and m2 == 'a'):
                return True
    return False


# ---- the reference -------------------------------------------------------------------
class Model:
    def __init__(self, bufs, P, np_dt, x):
        self.win = {(b.idx, r): np.zeros((b.rows, C), np_dt) for b in bufs for r in range(P)}
        self.x, self.np_dt = x, np_dt

    def src(self, s, me):
        if s[0] == "x":
            r0, c0, h, w = s[1]
            return self.x[me, r0:r0 + h, c0:c0 + w].copy()
        b, copy, box = (s[1], me, s[2]) if s[0] == "local" else (s[1], s[2], s[3])
        r0, c0, h, w = box
        return self.win[(b.idx, copy)][r0:r0 + h, c0:c0 + w].copy()

    def value(self, v, me):
        if v[0] == "load":
            return self.src(v[1], me)
        if v[0] == "addc":
            return self.src(v[1], me) + self.np_dt(v[2])
        return self.src(v[1], me) + self.src(v[2], me)

    def put_at(self, b, copy, box, t, add):
        r0, c0, h, w = box
        dst = self.win[(b.idx, copy)][r0:r0 + h, c0:c0 + w]
        if add:
            dst += t
        else:
            dst[...] = t

    def run(self, act, me):
        k = act[0]
        if k == "store":
            self.put_at(act[2], me, act[3], self.value(act[1], me), False)
        elif k == "rstore":
            self.put_at(act[2], act[3], act[4], self.value(act[1], me), act[5])
        elif k == "put":
            self.put_at(act[2], act[3], act[4], self.src(act[1], me), act[5])
        else:
            self.put_at(act[4], me, act[5], self.src(("remote", act[1], act[2], act[3]), me), False)


# ---- text ----------------------------------------------------------------------------
class Emit:
    def __init__(self, dt):
        self.dt, self.n = dt, 0
        self.fp = dt == "FP32"

    def const(self, k):
        return ("%d.0" % k) if self.fp else ("%d" % k)

    def tile(self, s, lines, ind):
        self.n += 1
        t = "t%d" % self.n
        if s[0] == "x":
            r0, c0, h, w = s[1]
            lines.append("%s%s = pl.load(x, [%d, %d], [%d, %d])" % (ind, t, r0, c0, h, w))
        elif s[0] == "local":
            r0, c0, h, w = s[2]
            lines.append("%s%s = pl.load(%s, [%d, %d], [%d, %d])" % (ind, t, s[1].name, r0, c0, h, w))
        else:
            r0, c0, h, w = s[3]
            lines.append("%s%s = pld.tile.remote_load(%s, peer=%d, offsets=[%d, %d], shape=[%d, %d])" % (
                ind, t, s[1].name, s[2], r0, c0, h, w))
        return t

    def value(self, v, lines, ind):
        a = self.tile(v[1], lines, ind)
        if v[0] == "load":
            return a
        if v[0] == "addc":
            return "pl.add(%s, %s)" % (a, self.const(v[2]))
        return "pl.add(%s, %s)" % (a, self.tile(v[2], lines, ind))

    def action(self, act, lines, ind):
        k = act[0]
        atomic = ", atomic=pld.AtomicType.Add"
        if k == "store":
            r0, c0 = act[3][:2]
            e = self.value(act[1], lines, ind)
            lines.append("%s%s = pl.store(%s, [%d, %d], %s)" % (ind, act[2].name, e, r0, c0, act[2].name))
        elif k == "rstore":
            r0, c0 = act[4][:2]
            e = self.value(act[1], lines, ind)
            lines.append("%spld.tile.remote_store(%s, %s, %d, [%d, %d]%s)" % (
                ind, e, act[2].name, act[3], r0, c0, atomic if act[5] else ""))
        elif k == "put":
            s = act[1]
            src, sbox = ("x", s[1]) if s[0] == "x" else (s[1].name, s[2])
            d = act[4]
            lines.append("%spld.tensor.put(%s, peer=%d, src=%s, dst_offsets=[%d, %d], src_offsets=[%d, %d], "
                         "shape=[%d, %d]%s)" % (ind, act[2].name, act[3], src, d[0], d[1], sbox[0], sbox[1], d[2],
                                                 d[3], atomic if act[5] else ""))
        else:
            sb, peer, sbox, db, dbox = act[1:]
            lines.append("%spld.tensor.get(%s, peer=%d, src=%s, dst_offsets=[%d, %d], src_offsets=[%d, %d], "
                         "shape=[%d, %d])" % (ind, db.name, peer, sb.name, dbox[0], dbox[1], sbox[0], sbox[1],
                                              dbox[2], dbox[3]))


def make_program(seed, P):
    g = Gen(seed, P)
    rng = g.rng
    dt = rng.choice(("FP32", "INT32"))
    np_dt = np.float32 if dt == "FP32" else np.int32
    na = rng.randint(1, 3)
    has_b = P >= 3 and rng.random() < 0.4
    K = rng.randint(2, P - 1) if has_b else 0
    bufs_a, yrow = [], 0
    for i in range(na):
        rows = rng.choice((2, 4))
        bufs_a.append(Buf(i, rows, "A", yrow))
        yrow += rows
    ya_rows = yrow
    buf_b = Buf(na, rng.choice((2, 4)), "B", 0) if has_b else None

    # domain plans: a list of segments, each a list of epochs and the transitions between them
    def plan(ranks, bufs, pairwise_ok):
        E = rng.randint(2, 5)
        epochs = [g.epoch(ranks, bufs, rng.randint(len(ranks), 3 * len(ranks))) for _ in range(E)]
        kinds = ["kbar", "host", "pair", "pair", "kbar2", "pair2"]
        trans = [rng.choice(kinds) for _ in range(E)]  # after each epoch; the last precedes the copy
        return epochs, trans

    ranks_a = list(range(P))
    ep_a, tr_a = plan(ranks_a, bufs_a, True)
    ep_b, tr_b = plan(list(range(K)), [buf_b], True) if has_b else ([], [])

    # pairwise edges: after epoch e, a -> b when a's epoch e conflicts with a later epoch of b
    # (the final copy reads every cell of b's copies)
    def edges(epochs, trans, ranks, bufs):
        acc = [{k: [x for act in ep[k] for x in accesses(act, k)] for k in ranks} for ep in epochs]
        final = {k: [(c, 'r') for b in bufs for c in cells(b, k, (0, 0, b.rows, C))] for k in ranks}
        out = []
        for e, kind in enumerate(trans):
            es = []
            if kind in ("pair", "pair2"):
                for a in ranks:
                    for b in ranks:
                        if a != b and any(conflict(acc[e][a], later[b]) for later in acc[e + 1:] + [final]):
                            es.append((a, b))
            out.append(es)
        return out

    pe_a = edges(ep_a, tr_a, ranks_a, bufs_a)
    pe_b = edges(ep_b, tr_b, list(range(K)), [buf_b]) if has_b else []

    # the reference
    gx = np.random.RandomState(seed % (2 ** 31))
    x0 = gx.randint(-8, 9, size=(P, XR, C)).astype(np_dt)
    model = Model(bufs_a + ([buf_b] if has_b else []), P, np_dt, x0)
    for ep in ep_a + ep_b:
        for k in sorted(ep):
            for act in ep[k]:
                model.run(act, k)
    expected = np.zeros((P, ya_rows, C), np_dt)
    for r in range(P):
        for b in bufs_a:
            expected[r, b.yrow:b.yrow + b.rows] = model.win[(b.idx, r)]
    expected_b = None
    if has_b:
        expected_b = np.zeros((P, buf_b.rows, C), np_dt)
        for r in range(K):
            expected_b[r] = model.win[(buf_b.idx, r)]

    # the text
    em = Emit(dt)
    T = "pl.%s" % dt
    uses_pair = {"a": any(pe_a), "b": any(pe_b)}
    out = ["import pypto.language as pl", "import pypto.language.distributed as pld", "", 'W = pl.dynamic("W")', "", ""]
    host_body = []
    cnt = {}  # (a, b) -> notifies so far

    def segments(epochs, trans):
        """[(first epoch, last epoch + 1, ends with the copy)]: a new dispatch after each host
        barrier, and after each kbar2 / pair2 transition, whose sync opens the next dispatch."""
        segs, start = [], 0
        for e, kind in enumerate(trans):
            if kind in ("host", "kbar2", "pair2"):
                segs.append((start, e + 1, False))
                start = e + 1
        segs.append((start, len(epochs), True))  # start == len(epochs): copy only
        return segs

    def emit_domain(tag, epochs, trans, pedges, bufs, ranks, yname, yshape, nrange, sig_shape):
        seg_list = segments(epochs, trans)
        texts = []
        for si, (e0, e1, copy) in enumerate(seg_list):
            fname = "%s%d" % (tag, si)
            params = [("x", "pl.Tensor[[%d, %d], %s]" % (XR, C, T))]
            if copy:
                params.append((yname, "pl.Out[pl.Tensor[[%d, %d], %s]]" % (yshape, C, T)))
            for b in bufs:
                params.append((b.name, "pld.DistributedTensor[[%d, %d], %s]" % (b.rows, C, T)))
            params.append(("sig%s" % tag, "pld.DistributedTensor[[%s], pl.INT32]" % sig_shape))
            if uses_pair[tag]:
                params.append(("fl%s" % tag, "pld.DistributedTensor[[%s], pl.INT32]" % sig_shape))
            sigt = ", ".join("%s: %s" % p for p in params)
            names = ", ".join(p[0] for p in params)
            body = ["    me = pld.rank(pld.get_comm_ctx(%s))" % bufs[0].name]
            def sync(kind, e):
                if kind in ("kbar", "kbar2"):
                    body.append("    sig%s = pld.tensor.barrier(sig%s)" % (tag, tag))
                elif kind in ("pair", "pair2"):
                    es = pedges[e]
                    for a, b in es:
                        cnt[(tag, a, b)] = cnt.get((tag, a, b), 0) + 1
                    for k in ranks:
                        outs = [b for a, b in es if a == k]
                        ins = [a for a, b in es if b == k]
                        if not outs and not ins:
                            continue
                        body.append("    if me == %d:" % k)
                        for b in outs:
                            body.append("        pld.system.notify(fl%s, peer=%d, offsets=[%d], value=1, "
                                        "op=pld.NotifyOp.AtomicAdd)" % (tag, b, k))
                        for a in ins:
                            body.append("        pld.system.wait(fl%s, offsets=[%d], expected=%d, cmp=pld.WaitCmp.Ge)"
                                        % (tag, a, cnt[(tag, a, k)]))

            if e0 > 0 and trans[e0 - 1] in ("kbar2", "pair2"):
                sync(trans[e0 - 1], e0 - 1)  # the sync that ended the previous dispatch opens this one
            for e in range(e0, e1):
                for k in sorted(epochs[e]):
                    if not epochs[e][k]:
                        continue
                    body.append("    if me == %d:" % k)
                    for act in epochs[e][k]:
                        em.action(act, body, "        ")
                if trans[e] in ("kbar", "pair"):
                    sync(trans[e], e)
            if copy:
                for b in bufs:
                    body.append("    %s = pl.store(pl.load(%s, [0, 0], [%d, %d]), [%d, 0], %s)" % (
                        yname, b.name, b.rows, C, b.yrow, yname))
                body.append("    return %s" % yname)
            else:
                body.append("    return sig%s" % tag)
            texts += ["@pl.jit.incore", "def %s_k(%s):" % (fname, sigt)] + body + ["", ""]
            texts += ["@pl.jit", "def %s_dev(%s):" % (fname, sigt),
                      "    %s%s_k(%s)" % ("return " if copy else "", fname, names), "", ""]
            call = []
            if si > 0 and trans[e0 - 1] == "host":
                call.append("    sig%s = pld.tensor.barrier(sig%s)" % (tag, tag))
            args = ", ".join("x[r]" if p[0] == "x" else "%s[r]" % yname if p[0] == yname else p[0] for p in params)
            call += ["    for r in pl.range(%s):" % nrange, "        %s_dev(%s, device=r)" % (fname, args)]
            host_body.append((tag, call))
        return texts

    text_a = emit_domain("a", ep_a, tr_a, pe_a, bufs_a, ranks_a, "y", ya_rows, "pld.world_size()", "W")
    text_b = []
    if has_b:
        text_b = emit_domain("b", ep_b, tr_b, pe_b, [buf_b], list(range(K)), "yb", buf_b.rows,
                             str(K), str(K))
    out += text_a + text_b

    params = ["x: pl.Tensor[[W, %d, %d], %s]" % (XR, C, T), "y: pl.Out[pl.Tensor[[W, %d, %d], %s]]" % (ya_rows, C, T)]
    if has_b:
        params.append("yb: pl.Out[pl.Tensor[[W, %d, %d], %s]]" % (buf_b.rows, C, T))
    out += ["@pl.jit.host", "def prog(%s):" % ", ".join(params)]
    allb = bufs_a + ([buf_b] if has_b else [])
    for b in allb:
        out.append("    b%d = pld.alloc_window_buffer([%d, %d], dtype=%s)" % (b.idx, b.rows, C, T))
    out.append("    sba = pld.alloc_window_buffer([pld.world_size()], dtype=pl.INT32)")
    if uses_pair["a"]:
        out.append("    fba = pld.alloc_window_buffer([pld.world_size()], dtype=pl.INT32)")
    if has_b:
        out.append("    sbb = pld.alloc_window_buffer([%d], dtype=pl.INT32)" % K)
        if uses_pair["b"]:
            out.append("    fbb = pld.alloc_window_buffer([%d], dtype=pl.INT32)" % K)
    for b in allb:
        out.append("    %s = pld.window(b%d, [%d, %d], dtype=%s)" % (b.name, b.idx, b.rows, C, T))
    out.append("    siga = pld.window(sba, [W], dtype=pl.INT32)")
    if uses_pair["a"]:
        out.append("    fla = pld.window(fba, [W], dtype=pl.INT32)")
    if has_b:
        out.append("    sigb = pld.window(sbb, [%d], dtype=pl.INT32)" % K)
        if uses_pair["b"]:
            out.append("    flb = pld.window(fbb, [%d], dtype=pl.INT32)" % K)
    # interleave the two domains' dispatch segments, each domain's in order
    qa = [c for t, c in host_body if t == "a"]
    qb = [c for t, c in host_body if t == "b"]
    while qa or qb:
        q = qa if (qa and (not qb or rng.random() < 0.6)) else qb
        out += q.pop(0)
    out.append("")
    nact = sum(len(v) for ep in ep_a + ep_b for v in ep.values())
    stats = {"epochs": len(ep_a) + len(ep_b), "actions": nact, "buffers": len(allb), "K": K,
             "trans": tr_a + tr_b}
    return Program(seed, P, "\n".join(out), dt, x0, expected, expected_b, stats)


if __name__ == "__main__":
    import sys
    p = make_program(int(sys.argv[1]), int(sys.argv[2]))
    print(p.text)
    print("#", p.stats)
