"""dsl_gen.py - random pypto.language programs as source text, each with a
numpy reference of the same program.

make_program(seed) returns a Program: the module text (one @pl.jit entry
`prog` and up to two @pl.jit.incore kernels), the entry's inputs, and the
outputs a serial run of the program gives.  The generator builds a small
tree of statements (dsl_tree.py); every node prints itself (emit) and runs itself on numpy
arrays (run), so the reference is the program the text states - nothing is
parsed back.

What the programs hold: `pl.range` loops (also negative steps) and `while` loops in the entry
and in kernels, `if` on scalars (the parameter n, loop variables), nested
`with pl.scope()` (auto_scope=False entries) or compiler-placed scopes
(default entries), `pl.at(level=pl.Level.CORE_GROUP)` bodies and kernel calls
that load and store tiles over disjoint and overlapping windows, element-wise
add/sub/mul/maximum/minimum with tiles and scalars, neg/abs/relu, pl.move to Mat or Left (a copy; and on FP32
sqrt of abs, log, rsqrt and recip of abs + 1, recip with its hint), row_max/row_min and col_max/col_min
(and row_sum/col_sum on INT32),
row_expand_*/col_expand_* (add, sub, mul, max, min) and row_expand/col_expand of a tile with its
own row/column maxima, fillpad (zero pad), pl.set_validshape (constant or loop-variable extents) and
pl.fillpad_expand at the tile's own shape, expands of an integer literal, pl.reshape through a unit axis and back, a row copied with pl.slice and pl.assemble, pl.transpose_view / pl.transpose (of a square tile, or twice), a tile op on one of
the tile's own elements (pl.read, full or flat index), pl.tile.full / pl.create_tile, a
pl.concat of a tile's halves, pl.matmul_acc (FP32, a zero right operand, a run-time
init_cond), a pl.write of one stored element, ops spelled pl.tile.<op>, orchestration copies of a
pl.slice view with pl.assemble (AUTO scopes only: discovery orders the copy task), atomic stores
(pl.store / pl.assemble with atomic=pl.AtomicType.Add: added in submission order), loads with valid_shape= and
clamp=True, loads spelled as subscripts (tensor-level values) and their [M, N] with [M, 1] broadcasts
(pl.add(t, pl.row_max(t)) and the other binary ops), tiles rebound in place, copied, swapped and rotated by tuple
assignment, and read after stores into their own windows, `pl.create_tensor`
intermediates (some filled by a `for b in pl.spmd(n)` task, one row band per block), and
MANUAL scopes whose tasks are ordered by `deps=` (pl.at ... as t, pl.submit); in place of every few
ops (no draw) the rest of the catalog: rem and fmod (by
|b| + 1), cmp/cmps, prelu, lrelu, part_add/mul/max/min (the union of the valid regions), sel/sels
(of a cmp), addc/subc/addsc, and_/or_/xor and the scalar forms, shl/shr, not_, sin and cos
(FP32, referenced by the C library's sinf/cosf), row_prod/col_prod (INT32) and the arg-extrema,
(INT32) gather by the indices cmp(x, x) (x.flat[1] over x's valid region) and its per-row form
(pl.gather(x, dim=-1, index=cmp(x, x)): each row's column 1); and in place of every
few unary ops the creation ops: a mask of pl.tri, a row of pl.arange, a round trip through
pl.reinterpret_view; and dsl_catalog.py's: a mask pattern's columns (pl.scatter_mask of
pl.gather_mask, every pattern), pl.gather_compare's indices (every cmp_mode; its counts in place
of a reduction), pl.cast mode="odd" (to FP16 and back; INT32 halves to integers), pl.expand_clone
of column 0, a pl.create_l1 operand; scalar operands built with & | ^ ~ << >> (Bits).

Invariants that keep every program valid and its result deterministic:
- tensors are [16, 32], all of one dtype (FP32 or INT32); x0, x1 are inputs
  (never written), y0, y1 are InOut; every window is in bounds for every
  value its loop variables can take;
- a created tensor is fully written by the task right after its
  pl.create_tensor, and used only in the block that created it;
- a MANUAL scope is entered through a fence task (AUTO, InOut on every
  writable tensor) that its tasks depend on, each of its tasks depends on the
  fence and on every earlier task of the scope it may conflict with (boxes
  over all values of the loop variables), and a join task after the scope
  depends on all of them (discovery does not see MANUAL tasks);
- FP32 ops are exact in IEEE single precision (no exp, no FP32 row_sum; log
  is referenced by the C library's logf, which the kernel calls); a
  program whose reference meets a non-finite value is replaced by the next one;
- a task touches few enough tensors that its scalars (its scalar arguments,
  then a box origin per tensor) stay within the runtime's 16 (docs/dsl.md).
"""
import random

import numpy as np

from dsl_values import FLOAT_UNARY, P5_UNARY, P5_BINARY, P5_SCALAR, NonFinite, Lin, Bits
from dsl_catalog import KCatalog, PARAM_RANGE
from dsl_tree import (EXPAND_OPS, ROWS, COLS, KLoad, KStore, KCopy, KRotate, KOp, KExpand, KExpands, KGen, KReshape, KWindow, KTranspose, KRead, KValid, KMisc, KWrite, OCopy, For, If, At, Spmd, Call,
                      Scope, Create, Alias, Kernel, SubFn, SubCall, While, box, conflicts, emit_block, run_block)

TILE_SHAPES = ((4, 8), (8, 8), (4, 16), (2, 32), (8, 16), (16, 32), (1, 8))
FLOAT_SCALARS = (0.5, -0.5, 1.5, 2.0, -1.0, 0.25, 3.0)
BINOPS = ("add", "sub", "mul", "maximum", "minimum")
GEN_KINDS = ("tri", "arange", "reinterpret")  # KGen's, in turn
CATALOG_UNARY = ("mask", "gcmp_idx", "cast_odd", "expand_clone", "create_l1")  # KCatalog's in place of unary ops, in turn
P5_UNARY_OPS = {"INT32": ("not_", "gather", "gather_dim"), "FP32": tuple(P5_UNARY)}
P5_REDUCTIONS = {"INT32": ("row_prod", "col_prod", "row_argmax", "row_argmin", "col_argmax", "col_argmin"),
                 "FP32": ("row_argmax", "row_argmin", "col_argmax", "col_argmin")}
# optimizations= of the AUTO create tasks, picked by the tensor's number (no draw: seeds keep their programs)
HINTS = ("", ", optimizations=[pl.split(pl.SplitMode.UP_DOWN), pl.cross_core_slot(slot_num=4)]",
         ", optimizations=[pl.cross_core_slot(slot_num=2)]", ", allow_early_resolve=True")
MAX_BODY_TENSORS = 5   # tensors one pl.at body reads or writes: 5 box origins of 2 + 6 scalars <= 16
MAX_LIVE_WRITABLE = 7  # y0, y1 and created tensors in reach: a fence's 7 box origins of 2 <= 16


# ---- the generator -------------------------------------------------------------------------------

class Ctx:
    """What a block may use: scalar ranges, readable and writable tensors, TaskIds defined."""

    def __init__(self, ranges, readable, writable, tids, depth, manual=None, hand=False, entry=False):
        self.ranges, self.readable, self.writable = dict(ranges), list(readable), list(writable)
        self.tids, self.depth, self.manual = list(tids), depth, manual
        # hand: hand-placed AUTO scopes allowed; entry: in the entry, where sub-functions and MANUAL
        # scopes may be (a sub-function's fences would not cover its parameters it only reads)
        self.hand, self.entry = hand, entry

    def child(self, **kw):
        c = Ctx(self.ranges, self.readable, self.writable, self.tids, self.depth + 1, self.manual, self.hand,
                self.entry)
        for k, v in kw.items():
            setattr(c, k, v)
        return c


class Manual:
    """The open MANUAL scope: its fence and its tasks [(name, footprint)]."""

    def __init__(self, fence):
        self.fence, self.tasks = fence, []


class Gen:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.dtype = "INT32" if self.rng.random() < 0.5 else "FP32"
        self.counter = 0
        self.budget = self.rng.randint(3, 14)  # task statements, at most
        self.auto_scope = self.rng.random() < 0.5
        self.kernels, self.subs = [], []

    def p5(self, op, choices, every):
        """Every every-th op (by the name counter, no draw: the stream stays) one of choices, in turn:
        the ops of the rest of the catalog (docs/dsl.md, Operations)."""
        if not choices or self.counter % every:
            return op
        return choices[self.counter // every % len(choices)]

    def catalog(self, t, op, a, shape, style):
        """One of dsl_catalog.py's ops, its parameter (if it takes one) picked by the name counter."""
        lo, hi = PARAM_RANGE.get(op, (0, 1))
        return KCatalog(t, op, a, shape, self.dtype, lo + self.counter % (hi - lo), style)

    def fresh(self, prefix):
        self.counter += 1
        return "%s%d" % (prefix, self.counter)

    # -- windows and scalars
    def offset(self, extent, size, ranges):
        """A Lin in [0, extent - size] for every value of the variables it uses."""
        rng = self.rng
        room = extent - size
        names = [v for v in ranges if ranges[v][0] >= 0]
        if names and room > 0 and rng.random() < 0.6:
            v = rng.choice(names)
            vmax = ranges[v][1]
            if vmax > 0:
                coefs = [k for k in (size, 1, 2, 3) if k * vmax <= room]
                if coefs:
                    k = rng.choice(coefs)
                    left = room - k * vmax
                    c = rng.choice([0, (left // size) * size]) if rng.random() < 0.5 else rng.randint(0, left)
                    return Lin(c, [(v, k)])
        if rng.random() < 0.5:  # aligned: tiles of one shape never overlap
            return Lin(rng.randrange(0, room + 1, size) if room >= 0 else 0)
        return Lin(rng.randint(0, room))

    def offsets(self, shape, ranges):
        return [self.offset(ROWS, shape[0], ranges), self.offset(COLS, shape[1], ranges)]

    def scalar(self, ranges):
        rng = self.rng
        if ranges and rng.random() < 0.25:
            lin = Lin(0, [(rng.choice(sorted(ranges)), 1)])
            if self.counter % 3 == 1:  # no draw: integer bit operations on it
                return Bits(lin, Bits.FORMS[self.counter // 3 % len(Bits.FORMS)])
            return lin
        if self.dtype == "FP32":
            return rng.choice(FLOAT_SCALARS)
        return rng.randint(-5, 7)

    # -- kernel code
    def kchunk(self, ranges, readable, writable, shape, acc, depth, pool):
        """Loads, ops, one store; accesses go to acc as (tensor, is_write, offs, shape, ranges).
        pool: tiles of earlier top-level chunks, operands here too (read after stores that may
        overwrite the windows they were loaded from); a top-level chunk adds its own."""
        rng = self.rng
        body = []
        if depth < 2 and rng.random() < 0.25:
            var = self.fresh("j")
            n = rng.randint(1, 3)
            if rng.random() < 0.3:
                loop = (n - 1, -1, -1)
            else:
                loop = (0, n, 1)
            inner = dict(ranges)
            inner[var] = (0, n - 1)
            return [For(var, *loop, self.kchunk(inner, readable, writable, shape, acc, depth + 1, pool))]
        if depth < 2 and rng.random() < 0.08:
            var, count = self.fresh("w"), rng.randint(1, 3)
            inner = dict(ranges)
            inner[var] = (0, count - 1)
            return [While(var, count, self.kchunk(inner, readable, writable, shape, acc, depth + 1, pool))]
        if depth < 2 and ranges and rng.random() < 0.15:
            v = rng.choice(sorted(ranges))
            m = rng.randint(2, 3)
            then = self.kchunk(ranges, readable, writable, shape, acc, depth + 1, pool)
            els = self.kchunk(ranges, readable, writable, shape, acc, depth + 1, pool) if rng.random() < 0.5 else []
            return [If("%s %% %d == 0" % (v, m), lambda env, v=v, m=m: env[v] % m == 0, then, els)]
        tiles = []
        for _ in range(rng.randint(1, 2)):
            # a new tile, or (reloading) one of an earlier chunk
            t = rng.choice(pool) if pool and rng.random() < 0.1 else self.fresh("t")
            body.append(self.load(t, rng.choice(readable), shape, ranges, acc))
            if getattr(body[-1], "subscript", False) and self.counter % 3 == 0:  # no draw: the stream stays
                body.append(KExpand(t, "row", ("add", "sub", "mul", "max", "min")[len(body) % 5], t, self.dtype, tensor_level=True))
            tiles.append(t)
        cur = tiles[0]
        for _ in range(rng.randint(0, 3)):
            r = rng.random()
            if r < 0.1:  # a copy: cur may change below, the copy keeps its value
                t = self.fresh("t")
                body.append(KCopy(t, cur))
                tiles.append(t)
                continue
            others = [t for t in dict.fromkeys(tiles + pool) if t != cur]
            if r < 0.15 and others:  # cur, o1[, o2] = o1[, o2], cur
                body.append(KRotate([cur] + rng.sample(others, min(len(others), rng.randint(1, 2)))))
                continue
            # the result into a new tile, into cur itself, or into an earlier chunk's tile
            t = cur if r < 0.3 else rng.choice(pool) if pool and r < 0.4 else self.fresh("t")
            style = rng.random() < 0.4
            r = rng.random()
            if r < 0.3:
                ops = ("neg", "abs", "relu", "move", "fillpad") + (tuple(FLOAT_UNARY) if self.dtype == "FP32" else ())
                op = self.p5(rng.choice(ops), P5_UNARY_OPS[self.dtype], 5)
                if self.counter % 7 == 6:  # no draw: a generator of the creation ops in place of the unary op
                    body.append(KGen(t, GEN_KINDS[self.counter // 7 % 3], cur, shape, self.dtype, self.counter % 5 - 2))
                elif self.counter % 5 == 3:  # no draw: one of dsl_catalog.py's ops in place of the unary op
                    body.append(self.catalog(t, CATALOG_UNARY[self.counter // 5 % len(CATALOG_UNARY)], cur, shape, style))
                else:
                    body.append(KOp(t, op, cur, None, self.dtype, style))
            elif r < 0.38:
                body.append(KExpand(t, rng.choice(("row", "col")), rng.choice(tuple(EXPAND_OPS)), cur, self.dtype))
            elif r < 0.40:
                body.append(KExpands(t, cur, rng.randint(-9, 9)))
            elif r < 0.43:
                body.append(KReshape(t, cur, shape))
            elif r < 0.46:
                body.append(KTranspose(t, cur, shape, style))
            elif r < 0.48:  # one of cur's elements as the scalar operand
                ij = (rng.randrange(shape[0]), rng.randrange(shape[1]))
                flat = ij[0] * shape[1] + ij[1] if rng.random() < 0.5 else None
                body.append(KRead(t, rng.choice(BINOPS), cur, ij, flat, self.dtype))
            elif r < 0.51:
                body.append(self.valid_op(t, cur, shape, ranges))
            elif r < 0.54:
                body.append(KWindow(t, cur, shape, rng.randrange(shape[0]), rng.randrange(shape[0])))
            elif r < 0.58:
                body.append(self.misc_op(t, cur, shape, ranges))
            elif r < 0.65 and len(tiles) + len(pool) > 1:
                op = self.p5(rng.choice(BINOPS), [k for k, v in P5_BINARY.items() if self.dtype in v[2]], 3)
                body.append(KOp(t, op, cur, rng.choice(tiles + pool), self.dtype, style))
            else:
                op = self.p5(rng.choice(BINOPS), [k for k, v in P5_SCALAR.items() if self.dtype in v[2]], 3)
                body.append(KOp(t, op, cur, self.scalar(ranges), self.dtype, style))
            if t not in tiles:
                tiles.append(t)
            cur = t
        dst = rng.choice(writable)
        if rng.random() < 0.15:  # a reduction, stored as a column (row_*) or a row (col_*)
            reductions = ("row_max", "row_min", "col_max", "col_min")
            if self.dtype == "INT32":
                reductions += ("row_sum", "col_sum")
            red, op = self.fresh("t"), rng.choice(reductions)
            op = self.p5(op, [n for n in P5_REDUCTIONS[self.dtype] if n[:3] == op[:3]], 2)  # the same axis
            if self.counter % 5 == 2:  # no draw: gather_compare's counts [1, R] in place of the reduction
                body.append(self.catalog(red, "gcmp_count", cur, shape, style=self.counter % 2))
                rshape = (1, shape[0])
            else:
                body.append(KOp(red, op, cur, None, self.dtype, False))
                rshape = (shape[0], 1) if op.startswith("row") else (1, shape[1])
            offs = self.offsets(rshape, ranges)
            body.append(KStore(red, dst, offs, rshape))
            acc.append((dst, True, offs, rshape, dict(ranges)))
        else:
            offs = self.offsets(shape, ranges)
            # no draw: the stream stays; an atomic store (adds) on some of the others
            body.append(KStore(cur, dst, offs, shape, subscript=len(body) % 3 == 0, atomic=len(body) % 3 == 1 and len(acc) % 2 == 1,
                               assemble=len(acc) % 4 == 1))
            acc.append((dst, True, offs, shape, dict(ranges)))
            if rng.random() < 0.1:
                body.append(KWrite(dst, offs, cur))
        if depth == 0:
            pool += [t for t in tiles if t not in pool]
        return body

    def load(self, tile, src, shape, ranges, acc):
        """A load into tile: the whole window, a valid_shape (constant, or n + c), or clamp=True
        on a window that may cross the tensor's edge."""
        rng = self.rng
        r = rng.random()
        if r < 0.15:
            offs = [Lin(rng.randint(0, ROWS - 1)), Lin(rng.randint(0, COLS - 1))]
            acc.append((src, False, offs, shape, dict(ranges)))
            return KLoad(tile, src, offs, shape, clamp=True)
        offs = self.offsets(shape, ranges)
        acc.append((src, False, offs, shape, dict(ranges)))
        if r < 0.3:
            valid = []
            for d in shape:
                hi = ranges.get("n", (0, 99))[1]
                if "n" in ranges and hi + 1 <= d and rng.random() < 0.5:
                    valid.append(Lin(rng.randint(1, d - hi), [("n", 1)]))
                else:
                    valid.append(Lin(rng.randint(1, d)))
            return KLoad(tile, src, offs, shape, valid=valid)
        return KLoad(tile, src, offs, shape, subscript=self.counter % 4 == 0)  # no draw: the stream stays

    def misc_op(self, tile, a, shape, ranges):
        """pl.tile.full / pl.full / pl.create_tile, a pl.concat of a's halves (two columns or more), or
        (FP32) pl.matmul_acc with a zero right operand and maybe a run-time init_cond."""
        rng = self.rng
        kinds = ("full",) + (("concat",) if shape[1] >= 2 else ()) + (("matmul",) if self.dtype == "FP32" else ())
        kind = rng.choice(kinds)
        if kind == "full":
            value = rng.choice((0, 1.5, -2.0)) if self.dtype == "FP32" else rng.randint(-5, 5)
            return KMisc(tile, "tensor_full" if value and rng.random() < 0.5 else kind, a, shape, self.dtype, value=value)
        cond = (Lin(0, [(rng.choice(sorted(ranges)), 1)]), rng.randint(-1, 2)) if kind == "matmul" and ranges and rng.random() < 0.6 else None
        return KMisc(tile, kind, a, shape, self.dtype, cond=cond)

    def valid_op(self, tile, a, shape, ranges):
        """pl.set_validshape of a to extents (constants, or a loop variable or n plus a
        constant) from 1 to the shape's (reductions need a row and a column), or pl.fillpad_expand at a's shape (zero pad; the integer
        extremes too on INT32)."""
        rng = self.rng
        if rng.random() < 0.3:
            return KValid(tile, a, shape, pad=rng.choice(("zero", "max", "min") if self.dtype == "INT32" else ("zero",)))
        ext = []
        for d in shape:
            names = [v for v in sorted(ranges) if ranges[v][0] >= 0 and ranges[v][1] < d]
            if names and rng.random() < 0.5:
                v = rng.choice(names)
                ext.append(Lin(rng.randint(1, d - ranges[v][1]), [(v, 1)]))
            else:
                ext.append(Lin(rng.randint(1, d)))
        return KValid(tile, a, shape, ext[0], ext[1])

    def kbody(self, ranges, readable, writable, acc):
        shape = self.rng.choice(TILE_SHAPES)
        body, pool = [], []
        for _ in range(self.rng.randint(1, 3)):
            body += self.kchunk(ranges, readable, writable, shape, acc, 0, pool)
        return body

    def kernel(self):
        kmax = self.rng.randint(0, 3)
        k = Kernel(self.fresh("kern_"), None, kmax)
        k.body = self.kbody({"k": (0, kmax)}, ["src", "dst"], ["dst"], k.accesses)
        self.kernels.append(k)
        return k

    # -- tasks
    def footprint(self, acc, ranges, rename=None):
        out = []
        for tensor, is_write, offs, shape, inner in acc:
            r = dict(inner)
            r.update(ranges)
            out.append(((rename or {}).get(tensor, tensor), is_write, box(offs, shape, r)))
        return out

    def manual_deps(self, ctx, fp):
        deps = [ctx.manual.fence] + [n for n, f in ctx.manual.tasks if conflicts(f, fp)]
        extra = [n for n, _ in ctx.manual.tasks if n not in deps]
        if extra and self.rng.random() < 0.3:
            deps.append(self.rng.choice(extra))
        return deps

    def task(self, ctx, readable=None, writable=None, chain=None):
        """One pl.at body or kernel call; in a MANUAL scope named and ordered by deps."""
        rng = self.rng
        readable, writable = readable or ctx.readable, writable or ctx.writable
        manual = ctx.manual is not None
        if rng.random() < 0.3:
            kern = rng.choice(self.kernels) if self.kernels and rng.random() < 0.5 else self.kernel()
            src, dst = rng.choice(readable), rng.choice(writable)
            scalars = {v: r for v, r in ctx.ranges.items() if 0 <= r[0] and r[1] <= kern.kmax}
            k = Lin(0, [(rng.choice(sorted(scalars)), 1)]) if scalars and rng.random() < 0.6 \
                else Lin(rng.randint(0, kern.kmax))
            fp = self.footprint(kern.accesses, {"k": k.bounds(ctx.ranges)}, {"src": src, "dst": dst})
            submit = manual or rng.random() < 0.3
            tid = chain or (self.fresh("t") if submit else None)
            deps = self.manual_deps(ctx, fp) if manual else self.auto_deps(ctx)
            if chain:
                deps = [chain] + deps
            stmt = Call(kern, src, dst, k, submit, deps if submit else [], tid)
        else:
            acc = []
            readable, writable = self.few_tensors(readable, writable)
            body = self.kbody(ctx.ranges, readable, writable, acc)
            fp = self.footprint(acc, ctx.ranges)
            tid = chain or (self.fresh("t") if manual or rng.random() < 0.3 else None)
            deps = self.manual_deps(ctx, fp) if manual else self.auto_deps(ctx)
            if chain:
                deps = [chain] + deps
            stmt = At(body, deps, tid)
        if manual:
            ctx.manual.tasks.append((tid, fp))
        elif tid:
            ctx.tids.append(tid)
        self.budget -= 1
        return stmt

    def few_tensors(self, readable, writable):
        """At most MAX_BODY_TENSORS of them, one writable at least: a task's scalars are
        its scalar arguments and each tensor's box origin, at most 16 (docs/dsl.md)."""
        rng = self.rng
        if len(readable) <= MAX_BODY_TENSORS:
            return readable, writable
        keep = [rng.choice(writable)]
        keep += rng.sample([t for t in readable if t not in keep], MAX_BODY_TENSORS - 1)
        return keep, [t for t in keep if t in writable]

    def auto_deps(self, ctx):
        if ctx.tids and self.rng.random() < 0.3:
            return self.rng.sample(ctx.tids, min(len(ctx.tids), self.rng.randint(1, 2)))
        return []

    def fence(self, ctx, deps, tid):
        """An AUTO task that reads and writes every writable tensor whole."""
        body = []
        for t in ctx.writable:
            tile = self.fresh("t")
            offs = [Lin(0), Lin(0)]
            body += [KLoad(tile, t, offs, (ROWS, COLS)), KStore(tile, t, offs, (ROWS, COLS))]
        return At(body, deps, tid)

    def create(self, ctx):
        """pl.create_tensor and the task that fills it; the tensor joins ctx."""
        name = self.fresh("c")
        shape = self.rng.choice(((ROWS, COLS), (ROWS, COLS // 2), (ROWS // 4, COLS)))
        body, acc = [], []
        src = self.rng.choice(ctx.readable)
        for r in range(0, ROWS, shape[0]):
            for c in range(0, COLS, shape[1]):
                tile = self.fresh("t")
                offs = [Lin(r), Lin(c)]
                body.append(KLoad(tile, src, offs, shape))
                out = self.fresh("t")
                body.append(KOp(out, self.rng.choice(BINOPS), tile, self.scalar({}), self.dtype, False))
                body.append(KStore(out, name, offs, shape))
                acc += [(src, False, offs, shape, {}), (name, True, offs, shape, {})]
        fp = self.footprint(acc, ctx.ranges)
        stmts = [Create(name, self.dtype)]
        if ctx.manual is None and ROWS // shape[0] > 1 and self.rng.random() < 0.5:  # one block per row band
            var = self.fresh("b")
            band = []
            for c in range(0, COLS, shape[1]):
                tile, out = self.fresh("t"), self.fresh("t")
                offs = [Lin(0, [(var, shape[0])]), Lin(c)]
                band += [KLoad(tile, src, offs, shape),
                         KOp(out, self.rng.choice(BINOPS), tile, self.scalar({}), self.dtype, False),
                         KStore(out, name, offs, shape)]
            stmts.append(Spmd(var, ROWS // shape[0], band))
        elif ctx.manual is not None:
            tid = self.fresh("t")
            stmts.append(At(body, self.manual_deps(ctx, fp), tid))
            ctx.manual.tasks.append((tid, fp))
        else:
            stmts.append(At(body, [], None, HINTS[int(name[1:]) % len(HINTS)]))
        ctx.readable.append(name)
        ctx.writable.append(name)
        self.budget -= 1
        return stmts

    # -- control-plane blocks
    def block(self, ctx, nmax):
        rng = self.rng
        out = []
        for _ in range(rng.randint(1, nmax)):
            if self.budget <= 0:
                break
            r = rng.random()
            can_create = len(ctx.writable) < MAX_LIVE_WRITABLE
            if ctx.manual is not None:
                if r < 0.15 and can_create:
                    out += self.create(ctx)
                elif r < 0.35 and ctx.depth < 4:
                    out += self.manual_loop(ctx)
                else:
                    out.append(self.task(ctx))
            elif r < 0.31:
                out.append(self.task(ctx))
            elif r < 0.35:  # an orchestration view copied into a writable tensor
                shape = rng.choice(TILE_SHAPES)
                out.append(OCopy(rng.choice(ctx.writable), rng.choice(ctx.readable), shape, self.offsets(shape, ctx.ranges),
                                 self.offsets(shape, ctx.ranges)))
            elif r < 0.45 and ctx.depth < 4:
                out.append(self.loop(ctx))
            elif r < 0.5 and ctx.depth < 4:
                var, count = self.fresh("w"), rng.randint(1, 3)
                inner = ctx.child()
                inner.ranges[var] = (0, count - 1)
                out.append(While(var, count, self.block(inner, 2)))
            elif r < 0.6 and ctx.depth < 4:
                out.append(self.branch(ctx))
            elif r < 0.7 and ctx.depth < 5 and ctx.hand:
                out.append(Scope(False, self.block(ctx.child(), 3)))
            elif r < 0.76 and ctx.entry:
                out.append(self.sub_call(ctx))
            elif r < 0.85 and ctx.entry:
                out += self.manual_scope(ctx)
            elif can_create:
                out += self.create(ctx)
        return out

    def loop(self, ctx):
        rng = self.rng
        var = self.fresh("i")
        n = rng.randint(1, 4)
        lo = rng.randint(0, 1)
        if rng.random() < 0.25:
            spec, vals = (lo + n - 1, lo - 1, -1), (lo, lo + n - 1)
        elif rng.random() < 0.25:
            spec, vals = (lo, lo + 2 * n - 1, 2), (lo, lo + 2 * (n - 1))
        else:
            spec, vals = (lo, lo + n, 1), (lo, lo + n - 1)
        inner = ctx.child()
        inner.ranges[var] = vals
        form = rng.choice(("range", "range", "parallel", "pipeline", "unroll"))
        carry = self.fresh("c") if form != "unroll" and rng.random() < 0.3 else None
        return For(var, *spec, self.block(inner, 3), form, carry)

    def branch(self, ctx):
        rng = self.rng
        loops = sorted(v for v in ctx.ranges if v != "n")
        if loops and (rng.random() < 0.6 or "n" not in ctx.ranges):
            v = rng.choice(loops)
            text, test = "%s %% 2 == 1" % v, (lambda env, v=v: env[v] % 2 == 1)
        else:
            m = rng.randint(0, 6)
            text, test = "n > %d" % m, (lambda env, m=m: env["n"] > m)
        then = self.block(ctx.child(), 2)
        r = rng.random()
        els = [self.branch(ctx.child())] if r < 0.2 and ctx.depth < 4 else self.block(ctx.child(), 2) if r < 0.6 else []
        return If(text, test, then, els)

    def sub_call(self, ctx):
        """A call of an Opaque or Inline sub-function (a new one, or one made before): its body
        is control-plane code over its parameters, AUTO only (discovery orders it), no calls
        of sub-functions (ctx.entry False).  Not from MANUAL scopes: its tasks would have no
        order there."""
        rng = self.rng
        if self.subs and rng.random() < 0.5:
            fn = rng.choice(self.subs)
        else:
            kind = rng.choice(("opaque", "inline"))
            fn = SubFn(self.fresh("sub_"), kind, kind == "opaque" or rng.random() < 0.5, rng.randint(0, 3))
            inner = Ctx({"k": (0, fn.kmax)}, ["a", "b", "y"], ["y"], [], ctx.depth + 1, hand=not fn.auto_scope)
            fn.body = self.block(inner, 3) or [self.task(inner)]
            self.subs.append(fn)
        scalars = sorted(v for v, r in ctx.ranges.items() if 0 <= r[0] and r[1] <= fn.kmax)
        k = Lin(0, [(rng.choice(scalars), 1)]) if scalars and rng.random() < 0.6 else Lin(rng.randint(0, fn.kmax))
        return SubCall(fn, rng.choice(ctx.readable), rng.choice(ctx.readable), rng.choice(ctx.writable), k)

    def manual_scope(self, ctx):
        fence = self.fresh("f")
        inner = ctx.child(manual=Manual(fence))
        body = self.block(inner, 4)
        if not inner.manual.tasks:
            body.append(self.task(inner))
        join = [n for n, _ in inner.manual.tasks]
        return [self.fence(ctx, [], fence), Scope(True, body), self.fence(ctx, join, None)]

    def manual_loop(self, ctx):
        """A loop in a MANUAL scope: one task per iteration, each depending on the last."""
        rng = self.rng
        chain, var, n = self.fresh("c"), self.fresh("i"), rng.randint(1, 3)
        inner = ctx.child()
        inner.ranges[var] = (0, n - 1)
        inner.manual = Manual(ctx.manual.fence)
        inner.manual.tasks = list(ctx.manual.tasks)
        stmt = self.task(inner, chain=chain)
        ctx.manual.tasks.append(inner.manual.tasks[-1])
        return [Alias(chain, ctx.manual.fence), For(var, 0, n, 1, [stmt])]


class Program:
    def __init__(self, seed, text, dtype, inputs, expected, ntasks):
        self.seed, self.text, self.dtype = seed, text, dtype
        self.inputs, self.expected, self.ntasks = inputs, expected, ntasks


def _inputs(seed, dtype):
    g = np.random.default_rng(seed)
    arrays = []
    for _ in range(4):
        if dtype == "FP32":
            arrays.append((g.integers(-8, 9, (ROWS, COLS)) / 4.0).astype(np.float32))
        else:
            a = g.integers(-20, 21, (ROWS, COLS)).astype(np.int32)
            extreme = g.random((ROWS, COLS)) < 0.05
            a[extreme] = g.choice(np.array([-2**31, 2**31 - 1, -2**31 + 1], np.int64), int(extreme.sum()))
            arrays.append(a)
    return arrays, int(g.integers(0, 8))


def _candidate(seed):
    gen = Gen(seed)
    ctx = Ctx({"n": (0, 7)}, ["x0", "x1", "y0", "y1"], ["y0", "y1"], [], 0, hand=not gen.auto_scope, entry=True)
    body = gen.block(ctx, 6)
    if not body:
        body = [gen.task(ctx)]
    out = ["import pypto.language as pl", ""]
    for k in gen.kernels + gen.subs:
        k.emit(out)
    out.append("@pl.jit" if gen.auto_scope else "@pl.jit(auto_scope=False)")
    out.append("def prog(x0: pl.Tensor, x1: pl.Tensor, y0: pl.InOut[pl.Tensor], y1: pl.InOut[pl.Tensor], "
               "n: pl.Scalar[pl.INDEX]):")
    emit_block(body, out, "    ")
    out.append("    return y0, y1")
    text = "\n".join(out) + "\n"
    arrays, n = _inputs(seed, gen.dtype)
    env = {"x0": arrays[0].copy(), "x1": arrays[1].copy(), "y0": arrays[2].copy(), "y1": arrays[3].copy(), "n": n}
    run_block(body, env)
    ntasks = text.count("with pl.at(") + text.count("pl.submit(") + text.count(" = kern_") + text.count(" in pl.spmd(")
    return Program(seed, text, gen.dtype, (arrays, n), (env["y0"], env["y1"]), ntasks)


def make_program(seed):
    """The first candidate from seed on whose reference stays finite."""
    for attempt in range(100):
        try:
            return _candidate(seed * 1000 + attempt)
        except NonFinite:
            continue
    raise RuntimeError("dsl_gen: no finite program for seed %d" % seed)


# ---- dynamic dimensions (docs/dsl.md, "Dynamic shapes") ----------------------------------------
# A program whose entry and kernel take x: [N, C] and y: pl.Out[[N, C]] with N = pl.dynamic("N"):
# the kernel walks the rows in tiles of TH up to pl.tensor.dim(x, 0) (or the DynVar read as a value)
# and stores an element-wise chain of FP32 ops exact in single precision; one compile serves every
# extent in .extents (multiples of TH, so every tile is in bounds).  With .runtime the entry also
# takes cfg = [extent] (INT64) and runs the kernel on run-time-shaped tensors: a view
# pl.slice(x, [rows, C], [0, 0]) into pl.create_tensor([rows, C]) with rows = pl.tensor.read(cfg, [0]),
# copied into y with pl.assemble (docs/dsl.md, "Dynamic shapes", run-time extents).

class DynamicProgram:
    def __init__(self, seed, text, extents, cols, steps, runtime):
        self.seed, self.text, self.extents, self.cols, self.steps = seed, text, extents, cols, steps
        self.runtime = runtime

    def inputs(self, extent):
        g = np.random.default_rng(self.seed * 7919 + extent)
        return (g.integers(-8, 9, (extent, self.cols)) / 4.0).astype(np.float32)

    def expected(self, x):
        """The numpy reference: the chain on every element."""
        v = x.copy()
        for op, k in self.steps:
            v = {"add": lambda a: a + np.float32(k), "sub": lambda a: a - np.float32(k),
                 "mul": lambda a: a * np.float32(k), "maximum": lambda a: np.maximum(a, np.float32(k)),
                 "minimum": lambda a: np.minimum(a, np.float32(k)), "neg": lambda a: -a, "abs": np.abs,
                 "relu": lambda a: np.maximum(a, np.float32(0))}[op](v).astype(np.float32)
        return v


def make_dynamic_program(seed):
    r = random.Random(seed)
    th, cols = r.choice(((4, 8), (8, 16), (2, 32), (16, 8)))
    extents = sorted(r.sample(range(1, 9), 3))
    steps = []
    for _ in range(r.randint(1, 5)):
        op = r.choice(BINOPS + ("neg", "abs", "relu"))
        steps.append((op, r.choice(FLOAT_SCALARS) if op in BINOPS else None))
    expr = "t"
    for op, k in steps:
        expr = "pl.%s(%s, %r)" % (op, expr, k) if k is not None else "pl.%s(%s)" % (op, expr)
    bound = r.choice(("pl.tensor.dim(x, 0)", "pl.tensor.dim(x, -2)", "N"))
    runtime = r.random() < 0.5
    if runtime:
        entry = [
            "def prog(x: pl.Tensor[[N, %d], pl.FP32], cfg: pl.Tensor[[1], pl.INT64], y: pl.Out[pl.Tensor[[N, %d], pl.FP32]]):"
            % (cols, cols),
            "    rows = pl.tensor.read(cfg, [0])",
            "    buf = pl.create_tensor([rows, %d], dtype=pl.FP32)" % cols,
            "    buf = kern(pl.slice(x, [rows, %d], [0, 0]), buf)" % cols,
            "    y = pl.assemble(y, buf, [0, 0])",
            "    return y", ""]
    else:
        entry = ["def prog(x: pl.Tensor[[N, %d], pl.FP32], y: pl.Out[pl.Tensor[[N, %d], pl.FP32]]):" % (cols, cols),
                 "    return kern(x, y)", ""]
    text = "\n".join([
        "import pypto.language as pl", "", 'N = pl.dynamic("N")', "", "",
        "@pl.jit.incore",
        "def kern(x: pl.Tensor[[N, %d], pl.FP32], y: pl.Out[pl.Tensor[[N, %d], pl.FP32]]):" % (cols, cols),
        "    for i in pl.range(0, %s, %d):" % (bound, th),
        "        t = pl.load(x, [i, 0], [%d, %d])" % (th, cols),
        "        y = pl.store(%s, [i, 0], y)" % expr,
        "    return y", "", "",
        "@pl.jit"] + entry)
    return DynamicProgram(seed, text, [e * th for e in extents], cols, steps, runtime)
