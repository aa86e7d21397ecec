"""dsl_tree.py - the statements dsl_gen.py builds: each node prints itself as
pypto.language source (emit) and runs itself on numpy arrays (run), so a
program's text and its reference are one tree.

Values in the reference: tensors are numpy arrays (stores write into them),
scalars Python ints, tiles as dsl_values.py holds them.  Also here: the
footprint boxes that order MANUAL tasks (conflicts).
"""
import numpy as np

from dsl_values import (Lin, FLOAT_UNARY, P5_UNARY, P5_GATHER, P5_GATHER_DIM, P5_BINARY, P5_SCALAR, P5_PART,
                        apply_binary, apply_unary, _wrap32, _check, _tile)

ROWS, COLS = 16, 32
OPERATORS = {"add": "+", "sub": "-", "mul": "*"}


# ---- kernel statements (tile code) ---------------------------------------------------------------

class KLoad:
    """tile = pl.load(tensor, offs, shape[, valid_shape=valid][, clamp=True]); valid: Lins.
    subscript (whole windows only): spelled tensor[r:(r) + R, c:(c) + C], the same load
    of a tensor-level value (DSL-V2-SPEC §1.3)."""

    def __init__(self, tile, tensor, offs, shape, valid=None, clamp=False, subscript=False):
        self.tile, self.tensor, self.offs, self.shape = tile, tensor, offs, shape
        self.valid, self.clamp, self.subscript = valid, clamp, subscript

    def emit(self, out, ind):
        if self.subscript:
            win = ", ".join("%s:(%s) + %d" % (o.text(), o.text(), n) for o, n in zip(self.offs, self.shape))
            out.append("%s%s = %s[%s]" % (ind, self.tile, self.tensor, win))
            return
        extra = ""
        if self.valid:
            extra += ", valid_shape=[%s]" % ", ".join(v.text() for v in self.valid)
        if self.clamp:
            extra += ", clamp=True"
        out.append("%s%s = pl.load(%s, [%s], [%d, %d]%s)" % (ind, self.tile, self.tensor,
                                                           ", ".join(o.text() for o in self.offs), *self.shape, extra))

    def run(self, env):
        r, c = (o.eval(env) for o in self.offs)
        vr, vc = (v.eval(env) for v in self.valid) if self.valid else self.shape
        src = env[self.tensor]
        if self.clamp:
            vr, vc = min(vr, src.shape[0] - r), min(vc, src.shape[1] - c)
        data = np.zeros(self.shape, src.dtype)
        data[:vr, :vc] = src[r:r + vr, c:c + vc]
        env[self.tile] = (data, (vr, vc))


class KStore:
    """pl.store(tile, offs, tensor): writes the tile's valid region; subscript: spelled
    tensor[r:(r) + R, c:(c) + C] = tile, the same store (DSL-V2-SPEC §1.4); atomic: adds
    the region into the window (atomic=pl.AtomicType.Add, DSL-V2-SPEC §1.5; integers wrap),
    spelled pl.store or (assemble) tensor = pl.assemble(tensor, tile, offs, atomic=...)."""

    def __init__(self, tile, tensor, offs, shape, subscript=False, atomic=False, assemble=False):
        self.tile, self.tensor, self.offs, self.shape, self.subscript = tile, tensor, offs, shape, subscript
        self.atomic, self.assemble = atomic, assemble

    def emit(self, out, ind):
        offs = ", ".join(o.text() for o in self.offs)
        if self.subscript:
            win = ", ".join("%s:(%s) + %d" % (o.text(), o.text(), n) for o, n in zip(self.offs, self.shape))
            out.append("%s%s[%s] = %s" % (ind, self.tensor, win, self.tile))
        elif self.atomic and self.assemble:
            out.append("%s%s = pl.assemble(%s, %s, [%s], atomic=pl.AtomicType.Add)" % (ind, self.tensor, self.tensor, self.tile, offs))
        else:
            out.append("%spl.store(%s, [%s], %s%s)" % (ind, self.tile, offs, self.tensor, ", atomic=pl.AtomicType.Add" if self.atomic else ""))

    def run(self, env):
        r, c = (o.eval(env) for o in self.offs)
        data, (vr, vc) = env[self.tile]
        win = env[self.tensor][r:r + vr, c:c + vc]
        win[...] = win + data[:vr, :vc] if self.atomic else data[:vr, :vc]


class KCopy:
    """tile = other (tiles are values)."""

    def __init__(self, tile, other):
        self.tile, self.other = tile, other

    def emit(self, out, ind):
        out.append("%s%s = %s" % (ind, self.tile, self.other))

    def run(self, env):
        data, valid = env[self.other]
        env[self.tile] = (data.copy(), valid)


class KRotate:
    """a, b[, c] = b[, c], a: tiles rebound at once, as Python does (docs/dsl.md, "Statements")."""

    def __init__(self, tiles):
        self.tiles = tiles

    def emit(self, out, ind):
        values = self.tiles[1:] + self.tiles[:1]
        out.append("%s%s = %s" % (ind, ", ".join(self.tiles), ", ".join(values)))

    def run(self, env):
        values = [env[t] for t in self.tiles[1:] + self.tiles[:1]]
        for t, v in zip(self.tiles, values):
            env[t] = v


REDUCTIONS = ("row_sum", "row_max", "row_min", "col_sum", "col_max", "col_min", "row_prod", "col_prod", "row_argmax",
              "row_argmin", "col_argmax", "col_argmin")


class KOp:
    """tile = op(a[, b]); b is a tile name, a literal or a Lin of scalar names; op may be
    a reduction (REDUCTIONS: row_* [R, C] -> [R, 1], col_* [R, C] -> [1, C]) or fillpad (the
    zero pad: fully valid)."""

    def __init__(self, tile, op, a, b, dtype, style):
        self.tile, self.op, self.a, self.b, self.dtype, self.style = tile, op, a, b, dtype, style

    def _operand(self):
        return self.b.text() if isinstance(self.b, Lin) else str(self.b)

    def emit(self, out, ind):
        if self.b is None:
            if self.op in FLOAT_UNARY or self.op in P5_UNARY:
                e = (FLOAT_UNARY.get(self.op) or P5_UNARY[self.op])[0] % self.a
                if self.op == "recip_abs1" and self.style:  # the hint: no effect
                    e = e[:-1] + ", high_precision=True)"
            elif self.op == "gather":
                e = P5_GATHER[0].format(a=self.a)
            elif self.op == "gather_dim":
                e = P5_GATHER_DIM[0].format(a=self.a)
            elif self.op == "neg" and self.style:
                e = "-%s" % self.a
            elif self.op == "move":  # a copy tagged Mat or Left: values never change
                e = "pl.move(%s, target_memory=pl.Mem.%s)" % (self.a, "Mat" if self.style else "Left")
            elif self.op == "fillpad" and self.style:
                e = "pl.fillpad(%s, pad_value=pl.PadValue.zero)" % self.a
            else:  # style: the pl.tile spelling of the same op
                e = "pl.%s%s(%s)" % ("tile." if self.style else "", self.op, self.a)
                if "arg" in self.op and self.dtype == "FP32":  # INT32 indices, stored into an FP32 tensor
                    e = "pl.cast(%s, pl.FP32)" % e
        elif self.op in P5_BINARY or self.op in P5_SCALAR:
            text = (P5_BINARY.get(self.op) or P5_SCALAR[self.op])[0]
            e = text.format(a=self.a, b=self._operand()) if "{a}" in text else text % (self.a, self._operand())
        elif self.style and self.op in OPERATORS and not isinstance(self.b, Lin):
            e = "%s %s %s" % (self.a, OPERATORS[self.op], self._operand())
        else:
            e = "pl.%s%s(%s, %s)" % ("tile." if self.style else "", self.op, self.a, self._operand())
        out.append("%s%s = %s" % (ind, self.tile, e))

    def run(self, env):
        a, va = env[self.a]
        if self.op in REDUCTIONS:
            part = a[:va[0], :va[1]]
            axis = 1 if self.op.startswith("row") else 0
            if self.op.endswith("sum"):  # INT32 only: wraps
                red = _wrap32(part.astype(np.int64).sum(axis=axis, keepdims=True))
            elif self.op.endswith("prod"):  # INT32 only: wraps at every step
                red = np.ones((part.shape[0], 1) if axis else (1, part.shape[1]), np.int32)
                for k in range(part.shape[axis]):
                    red = _wrap32(red.astype(np.int64) * (part[:, k:k + 1] if axis else part[k:k + 1, :]))
            elif "arg" in self.op:  # the first extremum's index, as the program's dtype
                f = np.argmax if self.op.endswith("max") else np.argmin
                red = np.expand_dims(f(part, axis=axis), axis).astype(a.dtype)
            else:
                red = (part.max if self.op.endswith("max") else part.min)(axis=axis, keepdims=True)
            out = np.zeros((a.shape[0], 1) if axis else (1, a.shape[1]), a.dtype)
            out[:red.shape[0], :red.shape[1]] = red
            env[self.tile] = (out, red.shape)
            return
        if self.op == "fillpad":  # zero outside the valid region already: now all of it is valid
            env[self.tile] = (a.copy(), a.shape)
            return
        if self.b is None:
            env[self.tile] = _tile(apply_unary(self.op, a, self.dtype), va)
            return
        if isinstance(self.b, str) and self.op.startswith("part_"):  # the union: op where both are valid, else the valid one
            b, vb = env[self.b]
            r = apply_binary(P5_PART[self.op], a, b, self.dtype)
            rows, cols = np.indices(a.shape)
            ina, inb = (rows < va[0]) & (cols < va[1]), (rows < vb[0]) & (cols < vb[1])
            r = np.where(ina & inb, r, np.where(ina, a, np.where(inb, b, 0))).astype(a.dtype)
            env[self.tile] = _tile(r, (max(va[0], vb[0]), max(va[1], vb[1])))
            return
        if isinstance(self.b, str):
            b, vb = env[self.b]
            env[self.tile] = _tile(apply_binary(self.op, a, b, self.dtype), (min(va[0], vb[0]), min(va[1], vb[1])))
            return
        b = self.b.eval(env) if isinstance(self.b, Lin) else self.b
        env[self.tile] = _tile(apply_binary(self.op, a, b, self.dtype), va)


EXPAND_OPS = {"add": "add", "sub": "sub", "mul": "mul", "max": "maximum", "min": "minimum", "": None}


class KExpand:
    """tile = pl.<axis>_expand_<op>(a, pl.<axis>_max(a)): a broadcast of a's own row
    maxima ([R, 1], axis "row") or column maxima ([1, C], axis "col"); op "" is
    pl.<axis>_expand(a, ...), the maxima themselves over a's valid region.  tensor_level
    (a a tensor-level value, axis "row", op not ""): spelled pl.<binary op>(a, pl.row_max(a)),
    the [M, N] with [M, 1] broadcast of DSL-V2-SPEC §1.2."""

    def __init__(self, tile, axis, op, a, dtype, tensor_level=False):
        self.tile, self.axis, self.op, self.a, self.dtype = tile, axis, op, a, dtype
        self.tensor_level = tensor_level

    def emit(self, out, ind):
        if self.tensor_level:
            out.append("%s%s = pl.%s(%s, pl.row_max(%s))" % (ind, self.tile, EXPAND_OPS[self.op], self.a, self.a))
            return
        op = "_" + self.op if self.op else ""
        out.append("%s%s = pl.%s_expand%s(%s, pl.%s_max(%s))" % (ind, self.tile, self.axis, op, self.a, self.axis, self.a))

    def run(self, env):
        a, va = env[self.a]
        part = a[:va[0], :va[1]]
        out = np.zeros_like(a)
        if part.size:
            vec = part.max(axis=1 if self.axis == "row" else 0, keepdims=True)
            if self.op:
                out[:va[0], :va[1]] = apply_binary(EXPAND_OPS[self.op], part, vec, self.dtype)
            else:
                out[:va[0], :va[1]] = np.broadcast_to(vec, part.shape)
        env[self.tile] = _tile(out, va)


class KExpands:
    """tile = pl.expands(a, value): the integer literal value over a's shape and valid region."""

    def __init__(self, tile, a, value):
        self.tile, self.a, self.value = tile, a, value

    def emit(self, out, ind):
        out.append("%s%s = pl.expands(%s, %d)" % (ind, self.tile, self.a, self.value))

    def run(self, env):
        a, va = env[self.a]
        env[self.tile] = _tile(np.full_like(a, self.value), va)


class KGen:
    """tile = a combined with a generator of the creation ops (docs/dsl.md, Operations), by kind:
    "tri": pl.mul(a, pl.tri(k, [R, C], dtype, upper=k even)) (a's valid region); "arange":
    pl.col_expand_add(a, pl.arange(k, [1, C]) in a's dtype) (a + k + column); "reinterpret":
    a through INT16 and back with pl.reinterpret_view (the same bits; fully valid, the zeros
    outside a's valid region kept)."""

    def __init__(self, tile, kind, a, shape, dtype, k):
        self.tile, self.kind, self.a, self.shape, self.dtype, self.k = tile, kind, a, shape, dtype, k

    def emit(self, out, ind):
        r, c = self.shape
        dt = "pl." + self.dtype
        if self.kind == "tri":
            e = "pl.mul(%s, pl.tri(%d, [%d, %d], dtype=%s, upper=%s))" % (self.a, self.k, r, c, dt, self.k % 2 == 0)
        elif self.kind == "arange":
            g = "pl.arange(%d, [1, %d])" % (self.k, c)
            e = "pl.col_expand_add(%s, %s)" % (self.a, g if self.dtype == "INT32" else "pl.cast(%s, %s)" % (g, dt))
        else:
            e = "pl.reinterpret_view(pl.reinterpret_view(%s, pl.INT16), %s)" % (self.a, dt)
        out.append("%s%s = %s" % (ind, self.tile, e))

    def run(self, env):
        a, va = env[self.a]
        r, c = self.shape
        if self.kind == "tri":
            m = (np.triu if self.k % 2 == 0 else np.tril)(np.ones((r, c), np.int64), self.k)
            env[self.tile] = _tile((a * m).astype(a.dtype), va)
        elif self.kind == "arange":
            env[self.tile] = _tile((a + (self.k + np.arange(c))[None, :]).astype(a.dtype), va)
        else:
            env[self.tile] = (np.array(a), (r, c))


class KReshape:
    """tile = pl.reshape(pl.reshape(a, [1, R, C]), [R, C]): a unit axis added and removed, so
    the data and the valid region (narrowed or not) come back unchanged."""

    def __init__(self, tile, a, shape):
        self.tile, self.a, self.shape = tile, a, shape

    def emit(self, out, ind):
        r, c = self.shape
        out.append("%s%s = pl.reshape(pl.reshape(%s, [1, %d, %d]), [%d, %d])" % (ind, self.tile, self.a, r, c, r, c))

    def run(self, env):
        data, valid = env[self.a]
        env[self.tile] = (data.copy(), valid)


class KWindow:
    """tile = pl.assemble(a, pl.slice(a, [1, C], [k, 0]), [j, 0]): row k of a (the window's
    valid region: a's shifted up by k, cut to one row; zeros outside it) written over row j;
    the result's valid region is the prefix box holding a's and row j (the cells it adds read 0)."""

    def __init__(self, tile, a, shape, k, j):
        self.tile, self.a, self.shape, self.k, self.j = tile, a, shape, k, j

    def emit(self, out, ind):
        out.append("%s%s = pl.assemble(%s, pl.slice(%s, [1, %d], [%d, 0]), [%d, 0])" % (ind, self.tile, self.a, self.a, self.shape[1], self.k, self.j))

    def run(self, env):
        a, va = env[self.a]
        data = a.copy()
        data[self.j] = a[self.k] if self.k < va[0] else 0
        rows = self.j + 1 if va[0] == 0 or va[1] == 0 else max(va[0], self.j + 1)
        env[self.tile] = (data, (rows, self.shape[1]))


class KMisc:
    """The tile catalog's constructors and combiners, each with a result numpy knows:
    full: tile = pl.tile.full([R, C], dtype=.., value=v) (v 0: pl.create_tile([R, C], ..));
    tensor_full: the same spelled pl.full (its tensor-level spelling);
    concat: tile = pl.concat of a's two column halves (pl.slice) = a, fully valid (zeros
    outside a's valid region); matmul_acc (FP32): tile = pl.matmul_acc(pl.fillpad(a),
    pl.fillpad(a), a zero [C, C] pl.create_tile[, init_cond=lin > k]) = pl.fillpad(a), or
    zeros when init_cond holds."""

    def __init__(self, tile, kind, a, shape, dtype, value=0, cond=None):
        self.tile, self.kind, self.a, self.shape, self.dtype, self.value, self.cond = tile, kind, a, shape, dtype, value, cond

    def emit(self, out, ind):
        (r, c), dt = self.shape, self.dtype
        if self.kind in ("full", "tensor_full"):
            e = ("pl.%s([%d, %d], dtype=pl.%s, value=%r)" % ("tile.full" if self.kind == "full" else "full", r, c, dt, self.value)
                 if self.value else "pl.create_tile([%d, %d], pl.%s)" % (r, c, dt))
        elif self.kind == "concat":
            h = c // 2
            e = "pl.concat(pl.slice(%s, [%d, %d], [0, 0]), pl.slice(%s, [%d, %d], [0, %d]))" % (self.a, r, h, self.a, r, c - h, h)
        else:
            cond = "" if self.cond is None else ", init_cond=%s > %d" % (self.cond[0].text(), self.cond[1])
            e = "pl.matmul_acc(pl.fillpad(%s), pl.fillpad(%s), pl.create_tile([%d, %d], pl.FP32)%s)" % (self.a, self.a, c, c, cond)
        out.append("%s%s = %s" % (ind, self.tile, e))

    def run(self, env):
        if self.kind in ("full", "tensor_full"):
            np_dt = np.float32 if self.dtype == "FP32" else np.int32
            env[self.tile] = (np.full(self.shape, self.value, np_dt), self.shape)
            return
        data = env[self.a][0].copy()  # zero outside the valid region already
        if self.kind == "matmul" and self.cond is not None and self.cond[0].eval(env) > self.cond[1]:
            data[:] = 0
        env[self.tile] = (data, self.shape)


class KWrite:
    """pl.write(tensor, offs, pl.read(tile, [0, 0])) after the store of tile at offs (inside
    the store's footprint): the tensor's element at offs becomes the tile's first element (0
    when outside its valid region)."""

    def __init__(self, tensor, offs, tile):
        self.tensor, self.offs, self.tile = tensor, offs, tile

    def emit(self, out, ind):
        out.append("%spl.write(%s, [%s], pl.read(%s, [0, 0]))" % (ind, self.tensor, ", ".join(o.text() for o in self.offs), self.tile))

    def run(self, env):
        r, c = (o.eval(env) for o in self.offs)
        env[self.tensor][r, c] = env[self.tile][0][0, 0]


class KTranspose:
    """tile = a transposed: for a square shape pl.tile.transpose_view(a) or pl.transpose(a, -1, 0)
    (the data and the valid region swapped), else pl.transpose(pl.transpose_view(a), 0, -1)
    (style: pl.tile.transpose_view; swapped twice: unchanged)."""

    def __init__(self, tile, a, shape, style):
        self.tile, self.a, self.shape, self.style = tile, a, shape, style

    def emit(self, out, ind):
        if self.shape[0] != self.shape[1]:
            e = "pl.transpose(pl.%stranspose_view(%s), 0, -1)" % ("tile." if self.style else "", self.a)
        else:
            e = ("pl.transpose(%s, -1, 0)" if self.style else "pl.tile.transpose_view(%s)") % self.a
        out.append("%s%s = %s" % (ind, self.tile, e))

    def run(self, env):
        data, valid = env[self.a]
        if self.shape[0] != self.shape[1]:
            env[self.tile] = (data.copy(), valid)
        else:
            env[self.tile] = (data.T.copy(), (valid[1], valid[0]))


class KRead:
    """tile = pl.<op>(a, pl.read(a, index)): one element of a (by [i, j], or flat i * C + j)
    as the scalar operand; an element outside a's valid region reads as 0."""

    def __init__(self, tile, op, a, ij, flat, dtype):
        self.tile, self.op, self.a, self.ij, self.flat, self.dtype = tile, op, a, ij, flat, dtype

    def emit(self, out, ind):
        out.append("%s%s = pl.%s(%s, pl.read(%s, %s))" % (ind, self.tile, self.op, self.a, self.a, self.index_text()))

    def index_text(self):
        return "[%d, %d]" % self.ij if self.flat is None else "%d" % self.flat

    def run(self, env):
        a, va = env[self.a]
        env[self.tile] = _tile(apply_binary(self.op, a, a[self.ij], self.dtype), va)


class KValid:
    """tile = pl.set_validshape(a, rows, cols) (Lins within a's shape): the valid region
    replaced, zero outside it, so elements that become valid read 0; or, with pad (a
    pl.PadValue member name), tile = pl.fillpad_expand(a, [R, C], pad_value=...) at a's own
    shape: fully valid, the pad outside a's valid region."""

    def __init__(self, tile, a, shape, rows=None, cols=None, pad=None):
        self.tile, self.a, self.shape, self.rows, self.cols, self.pad = tile, a, shape, rows, cols, pad

    def emit(self, out, ind):
        if self.pad is None:
            out.append("%s%s = pl.set_validshape(%s, %s, %s)" % (ind, self.tile, self.a, self.rows.text(), self.cols.text()))
            return
        kw = "" if self.pad == "zero" else ", pad_value=pl.PadValue.%s" % self.pad
        out.append("%s%s = pl.fillpad_expand(%s, [%d, %d]%s)" % (ind, self.tile, self.a, self.shape[0], self.shape[1], kw))

    def run(self, env):
        data, valid = env[self.a]
        if self.pad is None:
            env[self.tile] = _tile(data, (self.rows.eval(env), self.cols.eval(env)))
            return
        info = np.iinfo(data.dtype) if data.dtype.kind == "i" else None
        fill = {"zero": 0, "max": info.max if info else np.inf, "min": info.min if info else -np.inf}[self.pad]
        out = np.full(data.shape, fill, data.dtype)
        out[:valid[0], :valid[1]] = data[:valid[0], :valid[1]]
        env[self.tile] = (_check(out), data.shape)


class For:
    """for var in pl.<form>(...): every form runs as pl.range (pl.unroll's copies too,
    DSL-V2-SPEC §6); pl.pipeline gets stage=2.  carry (a fresh name, not pl.unroll): an
    explicit scalar carry summing the loop variable, `for var, (carry,) in ...,
    init_values=(0,)):` ending with `<carry>_o = pl.yield_(carry + var)` (read by nothing)."""

    def __init__(self, var, start, stop, step, body, form="range", carry=None):
        self.var, self.start, self.stop, self.step, self.body, self.form = var, start, stop, step, body, form
        self.carry = carry

    def emit(self, out, ind):
        args = [self.start, self.stop] if self.step == 1 else [self.start, self.stop, self.step]
        args += ["stage=2"] if self.form == "pipeline" else []
        args += ["init_values=(0,)"] if self.carry else []
        target = "%s, (%s,)" % (self.var, self.carry) if self.carry else self.var
        out.append("%sfor %s in pl.%s(%s):" % (ind, target, self.form, ", ".join(map(str, args))))
        emit_block(self.body, out, ind + "    ")
        if self.carry:
            out.append("%s    %s_o = pl.yield_(%s + %s)" % (ind, self.carry, self.carry, self.var))

    def run(self, env):
        for v in range(self.start, self.stop, self.step):
            env[self.var] = v
            run_block(self.body, env)
        env.pop(self.var, None)


class If:
    """if <text>: then [else: els]; test(env) is the condition.  An else holding exactly
    one If prints as elif."""

    def __init__(self, text, test, then, els):
        self.text, self.test, self.then, self.els = text, test, then, els

    def emit(self, out, ind, keyword="if"):
        out.append("%s%s %s:" % (ind, keyword, self.text))
        emit_block(self.then, out, ind + "    ")
        if len(self.els) == 1 and isinstance(self.els[0], If):
            self.els[0].emit(out, ind, "elif")
        elif self.els:
            out.append("%selse:" % ind)
            emit_block(self.els, out, ind + "    ")

    def run(self, env):
        run_block(self.then if self.test(env) else self.els, env)


class While:
    """var = 0; while var < count: body; var = var + 1 (never scope-wrapped)."""

    def __init__(self, var, count, body):
        self.var, self.count, self.body = var, count, body

    def emit(self, out, ind):
        out.append("%s%s = 0" % (ind, self.var))
        out.append("%swhile %s < %d:" % (ind, self.var, self.count))
        emit_block(self.body, out, ind + "    ")
        out.append("%s    %s = %s + 1" % (ind, self.var, self.var))

    def run(self, env):
        env[self.var] = 0
        while env[self.var] < self.count:
            run_block(self.body, env)
            env[self.var] += 1


def emit_block(stmts, out, ind):
    if not stmts:
        out.append(ind + "pass")
    for s in stmts:
        s.emit(out, ind)


def run_block(stmts, env):
    for s in stmts:
        s.run(env)


# ---- control-plane statements --------------------------------------------------------------------

def _deps_text(deps):
    return ", deps=[%s]" % ", ".join(deps) if deps else ""


class At:
    """opts: an optimizations= text (hints: no effect, printed back), or ""."""
    def __init__(self, body, deps, tid, opts=""):
        self.body, self.deps, self.tid, self.opts = body, deps, tid, opts

    def emit(self, out, ind):
        out.append("%swith pl.at(level=pl.Level.CORE_GROUP%s%s)%s:" % (ind, self.opts, _deps_text(self.deps),
                                                                     " as %s" % self.tid if self.tid else ""))
        emit_block(self.body, out, ind + "    ")

    def run(self, env):
        run_block(self.body, dict(env))


class Spmd:
    """for var in pl.spmd(n): body (kernel code; blocks write disjoint windows and read no
    window another block writes, so running them in order is every order)."""
    def __init__(self, var, n, body):
        self.var, self.n, self.body = var, n, body

    def emit(self, out, ind):
        out.append("%sfor %s in pl.spmd(%d):" % (ind, self.var, self.n))
        emit_block(self.body, out, ind + "    ")

    def run(self, env):
        for b in range(self.n):
            run_block(self.body, dict(env, **{self.var: b}))


class Call:
    """dst = kern(src, dst, k) or dst, tid = pl.submit(kern, src, dst, k, deps=[...])."""

    def __init__(self, kern, src, dst, k, submit, deps, tid):
        self.kern, self.src, self.dst, self.k = kern, src, dst, k
        self.submit, self.deps, self.tid = submit, deps, tid

    def emit(self, out, ind):
        args = "%s, %s, %s" % (self.src, self.dst, self.k.text())
        if self.submit:
            out.append("%s%s, %s = pl.submit(%s, %s%s)" % (ind, self.dst, self.tid, self.kern.name, args,
                                                         _deps_text(self.deps)))
        else:
            out.append("%s%s = %s(%s)" % (ind, self.dst, self.kern.name, args))

    def run(self, env):
        run_block(self.kern.body, {"src": env[self.src], "dst": env[self.dst], "k": self.k.eval(env)})


class Scope:
    def __init__(self, manual, body):
        self.manual, self.body = manual, body

    def emit(self, out, ind):
        out.append(ind + ("with pl.manual_scope():" if self.manual else "with pl.scope():"))
        emit_block(self.body, out, ind + "    ")

    def run(self, env):
        run_block(self.body, env)


class Create:
    def __init__(self, name, dtype):
        self.name, self.dtype = name, dtype

    def emit(self, out, ind):
        out.append("%s%s = pl.create_tensor([%d, %d], pl.%s)" % (ind, self.name, ROWS, COLS, self.dtype))

    def run(self, env):  # contents undefined: a value no program may read
        env[self.name] = np.full((ROWS, COLS), 7777, np.float32 if self.dtype == "FP32" else np.int32)


class OCopy:
    """dst = pl.assemble(dst, pl.slice(src, shape, src_offs), dst_offs): an orchestration view
    copied by one copy task (windows of one tensor may overlap: the old values move)."""

    def __init__(self, dst, src, shape, src_offs, dst_offs):
        self.dst, self.src, self.shape, self.src_offs, self.dst_offs = dst, src, shape, src_offs, dst_offs

    def emit(self, out, ind):
        so, do = ", ".join(o.text() for o in self.src_offs), ", ".join(o.text() for o in self.dst_offs)
        out.append("%s%s = pl.assemble(%s, pl.slice(%s, [%d, %d], [%s]), [%s])" % (ind, self.dst, self.dst, self.src, self.shape[0],
                                                                               self.shape[1], so, do))

    def run(self, env):
        (r0, c0), (r1, c1) = [o.eval(env) for o in self.src_offs], [o.eval(env) for o in self.dst_offs]
        h, w = self.shape
        env[self.dst][r1:r1 + h, c1:c1 + w] = env[self.src][r0:r0 + h, c0:c0 + w].copy()


class Alias:
    """name = other (a TaskId)."""

    def __init__(self, name, other):
        self.name, self.other = name, other

    def emit(self, out, ind):
        out.append("%s%s = %s" % (ind, self.name, self.other))

    def run(self, env):
        pass


class Kernel:
    """@pl.jit.incore def name(src, dst: InOut, k): body; return dst (k in [0, kmax])."""

    def __init__(self, name, body, kmax):
        self.name, self.body, self.kmax, self.accesses = name, body, kmax, []

    def emit(self, out):
        out.append("@pl.jit.incore")
        out.append("def %s(src: pl.Tensor, dst: pl.InOut[pl.Tensor], k: pl.Scalar[pl.INDEX]):" % self.name)
        emit_block(self.body, out, "    ")
        out.append("    return dst")
        out.append("")


# ---- footprints (for the order of MANUAL tasks) --------------------------------------------------

def box(offs, shape, ranges):
    (r0, r1), (c0, c1) = offs[0].bounds(ranges), offs[1].bounds(ranges)
    return (r0, r1 + shape[0], c0, c1 + shape[1])


def _meet(a, b):
    return a[0] < b[1] and b[0] < a[1] and a[2] < b[3] and b[2] < a[3]


def conflicts(fa, fb):
    """fa, fb: [(tensor, is_write, box)]; True if some pair touches common elements and one writes."""
    return any(ta == tb and (wa or wb) and _meet(ba, bb) for ta, wa, ba in fa for tb, wb, bb in fb)


class SubFn:
    """@pl.jit.opaque or @pl.jit.inline def name(a, b, y, k): body; return y
    (a control-plane subroutine; k in [0, kmax])."""

    def __init__(self, name, kind, auto_scope, kmax):
        self.name, self.kind, self.auto_scope, self.kmax, self.body = name, kind, auto_scope, kmax, []

    def emit(self, out):
        out.append("@pl.jit.%s%s" % (self.kind, "" if self.auto_scope else "(auto_scope=False)"))
        out.append("def %s(a, b, y, k):" % self.name)
        emit_block(self.body, out, "    ")
        out.append("    return y")
        out.append("")


class SubCall:
    """y = sub(a, b, y, k)."""

    def __init__(self, fn, a, b, y, k):
        self.fn, self.a, self.b, self.y, self.k = fn, a, b, y, k

    def emit(self, out, ind):
        out.append("%s%s = %s(%s, %s, %s, %s)" % (ind, self.y, self.fn.name, self.a, self.b, self.y, self.k.text()))

    def run(self, env):
        run_block(self.fn.body, {"a": env[self.a], "b": env[self.b], "y": env[self.y], "k": self.k.eval(env)})

