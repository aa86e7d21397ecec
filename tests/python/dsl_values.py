"""dsl_values.py - the values of dsl_tree.py's reference: scalar expressions (Lin), INT32 and
FP32 element-wise arithmetic as the tile kernels compute it, and the tables of the ops of the
rest of the catalog (text template and reference per op).

Tiles in the reference are (data, (rows, cols)): data of the tile's shape, zero outside the
valid region (a prefix box), as docs/dsl.md, "Expressions" says.  INT32 arithmetic wraps; FP32
arithmetic is numpy's float32, correctly rounded per op like the tile kernels (log, sin, cos:
the C library's functions, the ones the kernels call); a non-finite FP32 value raises NonFinite.
"""
import ctypes
import ctypes.util

import numpy as np


class NonFinite(Exception):
    """The reference met inf or NaN: the candidate program is dropped."""


# ---- scalar expressions: c + sum(coef * var) -------------------------------------------------

class Lin:
    def __init__(self, c=0, terms=()):
        self.c, self.terms = c, tuple(terms)

    def text(self):
        parts = [v if k == 1 else "%s * %d" % (v, k) for v, k in self.terms]
        if self.c or not parts:
            parts.append(str(self.c))
        return " + ".join(parts)

    def eval(self, env):
        return self.c + sum(k * env[v] for v, k in self.terms)

    def bounds(self, ranges):
        lo = hi = self.c
        for v, k in self.terms:
            a, b = ranges[v]
            lo += min(k * a, k * b)
            hi += max(k * a, k * b)
        return lo, hi



class Bits(Lin):
    """A scalar operand of integer bit operations on a Lin: form (a Python expression of x, with
    Python's semantics - docs/dsl.md, "Scalars" - so the reference is the expression itself)."""

    FORMS = ("(%s ^ 5) & 7", "(~%s | 2) >> 1", "(%s << 3) | 1", "(%s & 6) << 1 ^ -3")

    def __init__(self, lin, form):
        super().__init__(lin.c, lin.terms)
        self.form = form

    def text(self):
        return self.form % ("(%s)" % super().text())

    def eval(self, env):
        return eval(self.form % ("(%d)" % super().eval(env)))


# ---- values --------------------------------------------------------------------------------------

def _wrap32(x):
    return np.asarray(x, dtype=np.int64).astype(np.int32)


def _check(x):
    if x.dtype == np.float32 and not np.isfinite(x).all():
        raise NonFinite()
    return x


def _shift(a64, b64, left):
    """INT32 shifts: a count outside [0, 32) shifts every bit out (shl 0, shr the sign)."""
    out = (b64 < 0) | (b64 >= 32)
    k = np.where(out, 0, b64)
    r = np.left_shift(a64, k) if left else np.right_shift(a64, k)
    return np.where(out, 0 if left else np.where(a64 < 0, -1, 0), r)


def _divisor(b):
    """|b| + 1 as the kernels compute it (INT32: wrapped; never 0)."""
    return _wrap32(np.abs(b) + 1).astype(np.int64) if b.dtype == np.int64 else np.abs(b) + np.float32(1)


# The element-wise ops of the rest of the catalog: name -> (text of (a, b), reference of (a, b) on
# int64 (INT32 programs, wrapped after) or float32 arrays, dtypes).  rem/fmod divide by |b| + 1 (never 0).
P5_BINARY = {
    "rem": ("pl.rem(%s, pl.add(pl.abs(%s), 1))", lambda a, b: np.remainder(a, _divisor(b)), ("INT32", "FP32")),
    "fmod": ("pl.fmod(%s, pl.add(pl.abs(%s), 1))", lambda a, b: np.fmod(a, _divisor(b)), ("INT32", "FP32")),
    "cmp_lt": ("pl.cmp(%s, %s, cmp_type=2)", lambda a, b: (a < b).astype(a.dtype), ("INT32", "FP32")),
    "prelu": ("pl.prelu(%s, %s)", lambda a, b: np.where(a > 0, a, a * b), ("INT32", "FP32")),
    "and_": ("pl.and_(%s, %s)", lambda a, b: a & b, ("INT32",)),
    "or_": ("pl.or_(%s, %s)", lambda a, b: a | b, ("INT32",)),
    "xor": ("pl.xor(%s, %s)", lambda a, b: a ^ b, ("INT32",)),
    "shl": ("pl.shl(%s, %s)", lambda a, b: _shift(a, b, 1), ("INT32",)),
    "shr": ("pl.shr(%s, %s)", lambda a, b: _shift(a, b, 0), ("INT32",)),
    "sel": ("pl.sel(pl.cmp({a}, {b}, cmp_type=4), {a}, {b})", lambda a, b: np.where(a > b, a, b), ("INT32", "FP32")),
    "addc": ("pl.addc({a}, {b}, {a})", lambda a, b: a + b + a, ("INT32", "FP32")),
    "subc": ("pl.subc({a}, {b}, {b})", lambda a, b: a - b - b, ("INT32", "FP32")),
    "part_add": ("pl.part_add(%s, %s)", None, ("INT32", "FP32")),
    "part_mul": ("pl.part_mul(%s, %s)", None, ("INT32", "FP32")),
    "part_max": ("pl.part_max(%s, %s)", None, ("INT32", "FP32")),
    "part_min": ("pl.part_min(%s, %s)", None, ("INT32", "FP32")),
}
P5_PART = {"part_add": "add", "part_mul": "mul", "part_max": "maximum", "part_min": "minimum"}  # KOp.run's
# ... and with a scalar right operand (any value)
P5_SCALAR = {
    "lrelu": ("pl.lrelu(%s, %s)", lambda a, b: np.maximum(a, _wrap32(a * b) if a.dtype == np.int64 else a * b), ("INT32", "FP32")),
    "cmp_ne": ("pl.cmp(%s, %s, cmp_type=1)", lambda a, b: (a != b).astype(a.dtype), ("INT32", "FP32")),
    "cmp_ge": ("pl.cmps(%s, %s, 5)", lambda a, b: (a >= b).astype(a.dtype), ("INT32", "FP32")),
    "ands": ("pl.ands(%s, %s)", lambda a, b: a & b, ("INT32",)),
    "xors": ("pl.tile.xors(%s, %s)", lambda a, b: a ^ b, ("INT32",)),
    "ors": ("pl.ors(%s, %s)", lambda a, b: a | b, ("INT32",)),
    "addsc": ("pl.addsc({a}, {b}, {a})", lambda a, b: a + b + a, ("INT32", "FP32")),
    "sels": ("pl.sels(pl.cmps({a}, 0, 4), {a}, {a}, {b})", lambda a, b: np.where(a > 0, a, b), ("INT32", "FP32")),
}


def apply_binary(op, a, b, dtype):
    p5 = P5_BINARY.get(op) or P5_SCALAR.get(op)
    if p5 and dtype == "INT32":
        return _wrap32(p5[1](np.asarray(a, np.int64), np.asarray(b, np.int64)))
    if p5:
        b = np.float32(b) if np.isscalar(b) else b
        with np.errstate(over="ignore", invalid="ignore"):
            return _check(np.asarray(p5[1](np.asarray(a, np.float32), b), np.float32))
    if dtype == "INT32":
        a64 = np.asarray(a, np.int64)
        b64 = np.asarray(b, np.int64)
        r = {"add": a64 + b64, "sub": a64 - b64, "mul": a64 * b64,
             "maximum": np.maximum(a64, b64), "minimum": np.minimum(a64, b64)}[op]
        return _wrap32(r)
    b = np.float32(b) if np.isscalar(b) else b
    with np.errstate(over="ignore", invalid="ignore"):  # _check drops such programs
        r = {"add": a + b, "sub": a - b, "mul": a * b, "maximum": np.maximum(a, b), "minimum": np.minimum(a, b)}[op]
    return _check(np.asarray(r, np.float32))


_LIBM = ctypes.CDLL(ctypes.util.find_library("m"))
_LIBM.logf.restype, _LIBM.logf.argtypes = ctypes.c_float, [ctypes.c_float]


_LIBM.sinf.restype, _LIBM.sinf.argtypes = ctypes.c_float, [ctypes.c_float]
_LIBM.cosf.restype, _LIBM.cosf.argtypes = ctypes.c_float, [ctypes.c_float]


def _logf(a):
    """log per element as the tile kernel computes it: the C library's logf."""
    return np.array([_LIBM.logf(float(v)) for v in a.reshape(-1)], np.float32).reshape(a.shape)


def _libm(f, a):
    """f (sinf, cosf) per element as the tile kernel computes it."""
    return np.array([f(float(v)) for v in a.reshape(-1)], np.float32).reshape(a.shape)


# FP32 composites of a float-only op with an argument kept positive: name -> (text template, reference)
FLOAT_UNARY = {
    "sqrt_abs": ("pl.sqrt(pl.abs(%s))", lambda a: np.sqrt(np.abs(a))),
    "log_abs1": ("pl.log(pl.add(pl.abs(%s), 1.0))", lambda a: _logf(np.abs(a) + np.float32(1))),
    "rsqrt_abs1": ("pl.rsqrt(pl.add(pl.abs(%s), 1.0))", lambda a: np.float32(1) / np.sqrt(np.abs(a) + np.float32(1))),
    "recip_abs1": ("pl.recip(pl.add(pl.abs(%s), 1.0))", lambda a: np.float32(1) / (np.abs(a) + np.float32(1))),
}
# FP32 trigonometry, picked without a draw (dsl_gen.py): name -> (text template, reference)
P5_UNARY = {"sin": ("pl.sin(%s)", lambda a: _libm(_LIBM.sinf, a)), "cos": ("pl.cos(%s)", lambda a: _libm(_LIBM.cosf, a))}
# An INT32 gather by the indices cmp(x, x), all 1: x.flat[1] over x's valid region (the whole
# buffer is addressed: outside the valid region it reads 0, as the model holds)
P5_GATHER = ("pl.gather({a}, pl.cmp({a}, {a}), {a})", lambda a: np.full_like(a, a.reshape(-1)[1]))
# Its per-row form (pl.tensor.gather's, dim=-1) by the same indices: each row's column 1 across the row
P5_GATHER_DIM = ("pl.gather({a}, dim=-1, index=pl.cmp({a}, {a}))", lambda a: np.repeat(a[..., 1:2], a.shape[-1], axis=-1))


def apply_unary(op, a, dtype):
    if op == "gather":
        return P5_GATHER[1](np.asarray(a))
    if op == "gather_dim":
        return P5_GATHER_DIM[1](np.asarray(a))
    if dtype == "INT32":
        a64 = np.asarray(a, np.int64)
        return _wrap32({"neg": -a64, "abs": np.abs(a64), "relu": np.maximum(a64, 0), "move": a64, "not_": ~a64}[op])
    if op in FLOAT_UNARY or op in P5_UNARY:
        return (FLOAT_UNARY.get(op) or P5_UNARY[op])[1](np.asarray(a, np.float32))
    return {"neg": -a, "abs": np.abs(a), "relu": np.maximum(a, np.float32(0)), "move": np.array(a)}[op]


# A tile in the reference: (data of the tile's shape, zero outside the valid region; (rows, cols)
# of the valid region, a prefix box).

def _tile(data, valid):
    data = np.array(data)
    data[valid[0]:, :] = 0
    data[:, valid[1]:] = 0
    return data, valid
