"""Random kernels over the unsigned dtypes (UINT8, UINT16, UINT32): dsl_tree.py's programs
are INT32 or FP32 throughout (their references are signed int64 arithmetic wrapped to
32 bits), so the unsigned part lives here.  A program loads two [4, 16] tensors of one
unsigned dtype, then each step applies one op to tiles of the pool (or a tile and a
scalar, a negative one wrapping to the dtype), most steps to the previous step's tile,
and stores the last tile.  The numpy
reference computes in the same dtype (numpy's unsigned arithmetic wraps as ours does), so
results compare exactly.  A divisor is `or_(y, 1)` (never 0), a shift count `and_(y,
bits - 1)` (inside the width)."""
import random

import numpy as np

DTYPES = {"UINT8": np.uint8, "UINT16": np.uint16, "UINT32": np.uint32}
SHAPE = (4, 16)

# name: (DSL text of tiles x, y (and the width b), numpy of a, b in the dtype (and the width))
BINARY = {
    "add": ("pl.add({x}, {y})", lambda a, b, w: a + b),
    "sub": ("pl.sub({x}, {y})", lambda a, b, w: a - b),
    "mul": ("pl.mul({x}, {y})", lambda a, b, w: a * b),
    "maximum": ("pl.maximum({x}, {y})", lambda a, b, w: np.maximum(a, b)),
    "minimum": ("pl.minimum({x}, {y})", lambda a, b, w: np.minimum(a, b)),
    "and_": ("pl.and_({x}, {y})", lambda a, b, w: a & b),
    "or_": ("pl.or_({x}, {y})", lambda a, b, w: a | b),
    "xor": ("pl.xor({x}, {y})", lambda a, b, w: a ^ b),
    "div": ("pl.div({x}, pl.or_({y}, 1))", lambda a, b, w: a // (b | 1)),
    "rem": ("pl.rem({x}, pl.or_({y}, 1))", lambda a, b, w: a % (b | 1)),
    "shr": ("pl.shr({x}, pl.and_({y}, {b} - 1))", lambda a, b, w: a >> (b & (w - 1))),
    "shl": ("pl.shl({x}, pl.and_({y}, {b} - 1))", lambda a, b, w: a << (b & (w - 1))),
    "cmp_lt": ("pl.cmp({x}, {y}, cmp_type=2)", lambda a, b, w: (a < b).astype(a.dtype)),
    "cmp_ge": ("pl.cmp({x}, {y}, cmp_type=5)", lambda a, b, w: (a >= b).astype(a.dtype)),
}
UNARY = {
    "neg": ("pl.neg({x})", lambda a: -a),
    "not_": ("pl.not_({x})", lambda a: ~a),
    "abs": ("pl.abs({x})", lambda a: a),
    "relu": ("pl.relu({x})", lambda a: a),
}
SCALAR = {  # a tile and an int scalar s (wrapped to the dtype, as the tile op converts it)
    "add": ("pl.add({x}, {s})", lambda a, s: a + s),
    "sub": ("pl.sub({x}, {s})", lambda a, s: a - s),
    "mul": ("pl.mul({x}, {s})", lambda a, s: a * s),
    "maximum": ("pl.maximum({x}, {s})", lambda a, s: np.maximum(a, s)),
}


class Program:
    def __init__(self, seed, text, dtype, expected):
        self.seed, self.text, self.dtype, self.expected = seed, text, dtype, expected


def inputs(seed, dtype):
    g = np.random.default_rng(seed)
    top = np.iinfo(DTYPES[dtype]).max
    a, b = (g.integers(0, top, SHAPE, dtype=np.int64, endpoint=True).astype(DTYPES[dtype]) for _ in range(2))
    a[0, :3], b[0, :3] = [0, top, top // 2 + 1], [1, top, 0]  # the ends and the signed maximum's neighbour
    return a, b


def make_program(seed, steps=8):
    """One random kernel `k(a, b, out)` and its numpy result for inputs(seed, dtype)."""
    rng = random.Random(seed)
    dtype = rng.choice(list(DTYPES))
    np_dt, width = DTYPES[dtype], 8 * np.dtype(DTYPES[dtype]).itemsize
    a, b = inputs(seed, dtype)
    env, lines = {"x0": a, "x1": b}, ["x0 = pl.load(a, [0, 0], [4, 16])", "x1 = pl.load(b, [0, 0], [4, 16])"]
    for k in range(steps):
        name, kind = "t%d" % k, rng.random()
        x = list(env)[-1] if rng.random() < 0.75 else rng.choice(list(env))  # mostly a chain: each step reaches the store
        if kind < 0.55:
            op = rng.choice(list(BINARY))
            y = rng.choice(list(env))
            text, ref = BINARY[op]
            lines.append("%s = %s" % (name, text.format(x=x, y=y, b=width)))
            env[name] = ref(env[x], env[y], np_dt(width)).astype(np_dt)
        elif kind < 0.75:
            op = rng.choice(list(UNARY))
            text, ref = UNARY[op]
            lines.append("%s = %s" % (name, text.format(x=x)))
            env[name] = ref(env[x]).astype(np_dt)
        else:
            op = rng.choice(list(SCALAR))
            s = rng.choice((-1, -300, 0, 1, 7, 255, 65537, 2**31 + 5))
            text, ref = SCALAR[op]
            lines.append("%s = %s" % (name, text.format(x=x, s=s)))
            env[name] = ref(env[x], np.array(s).astype(np_dt)).astype(np_dt)
    body = "".join("        %s\n" % line for line in lines)
    text = ("import pypto.language as pl\n\n\n@pl.jit\ndef k(a: pl.Tensor, b: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
            "    with pl.at(level=pl.Level.CORE_GROUP):\n%s        pl.store(t%d, [0, 0], out)\n    return out\n" % (body, steps - 1))
    return Program(seed, text, dtype, env["t%d" % (steps - 1)])
