"""dsl_catalog.py - kernel statements over the ops of the rest of the catalog whose reference is
more than an element-wise rule: broadcasts (pl.expand_clone), the column patterns of
pl.gather_mask / pl.scatter_mask, pl.gather_compare's indices and counts, rounding to odd
(pl.cast mode="odd") and pl.create_l1.  dsl_gen.py picks them without a draw (by its name
counter), in place of a unary op or a reduction.

Each op: name -> (lines(t, a, shape, dtype, k, style): the statements, run(a, valid, dtype, k):
the result tile (data, valid) as dsl_values.py holds tiles).  k is the op's parameter (a mask
pattern, a compare mode); style picks the other spelling (pl.tile. / pl.tensor., an enum member
for an integer).  Every result keeps the operand's dtype; all but gcmp_count its shape.
"""
import numpy as np

from dsl_values import _tile

PATTERNS = ("P0101", "P1010", "P0001", "P0010", "P0100", "P1000", "P1111")  # pl.tile.MaskPattern 1..7
CMP_MODES = ("eq", "ne", "lt", "le", "gt", "ge")  # cmp_mode 0..5
_CMP = (np.equal, np.not_equal, np.less, np.less_equal, np.greater, np.greater_equal)


def _selected(k, cols):
    """The columns mask pattern k (1..7) selects: read right to left, 2 or 4 columns a period."""
    j = np.arange(cols)
    return np.ones(cols, bool) if k == 7 else (j % 2 == k - 1) if k <= 2 else (j % 4 == k - 3)


def _mask_lines(t, a, shape, dtype, k, style):
    pat = "pl.tile.MaskPattern.%s" % PATTERNS[k - 1] if style else str(k)
    return ["%s = pl.scatter_mask(pl.expands(%s, 0), pl.gather_mask(%s, %s), %s)" % (t, a, a, pat, pat)]


def _mask_run(a, va, dtype, k):
    """The pattern's columns of a's valid region, zero elsewhere (the gather's valid columns land
    back on the columns they came from)."""
    return _tile(np.where(_selected(k, a.shape[1]), a, 0).astype(a.dtype), va)


def _gcmp_call(a, shape, dtype, k, style):
    mode = str(k) if style else '"%s"' % CMP_MODES[k]
    kvalue = "1" if dtype == "INT32" else "0.5"
    return "pl.gather_compare(%s, %s, cmp_mode=%s, offset=1, out_cols=%d)" % (a, kvalue, mode, shape[1])


def _gcmp_hits(a, va, dtype, k):
    """Per valid row, the valid columns whose element compares true with the kvalue."""
    kvalue = np.int32(1) if dtype == "INT32" else np.float32(0.5)
    return [np.nonzero(_CMP[k](a[i, :va[1]], kvalue))[0] for i in range(va[0])]


def _gcmp_idx_lines(t, a, shape, dtype, k, style):
    if dtype == "INT32":
        return ["%s, %sn = %s" % (t, t, _gcmp_call(a, shape, dtype, k, style))]
    return ["%si, %sn = %s" % (t, t, _gcmp_call(a, shape, dtype, k, style)), "%s = pl.cast(%si, pl.FP32)" % (t, t)]


def _gcmp_idx_run(a, va, dtype, k):
    """d: each valid row's hits as j + 1 (offset=1), then zeros; valid [a's rows, out_cols]."""
    out = np.zeros(a.shape, a.dtype)
    for i, js in enumerate(_gcmp_hits(a, va, dtype, k)):
        out[i, :len(js)] = js + 1
    return _tile(out, (va[0], a.shape[1]))


def _gcmp_count_lines(t, a, shape, dtype, k, style):
    if dtype == "INT32":
        return ["%sd, %s = %s" % (t, t, _gcmp_call(a, shape, dtype, k, style))]
    return ["%sd, %si = %s" % (t, t, _gcmp_call(a, shape, dtype, k, style)), "%s = pl.cast(%si, pl.FP32)" % (t, t)]


def _gcmp_count_run(a, va, dtype, k):
    """c [1, R]: each valid row's number of hits; valid [1, a's rows]."""
    out = np.zeros((1, a.shape[0]), a.dtype)
    for i, js in enumerate(_gcmp_hits(a, va, dtype, k)):
        out[0, i] = len(js)
    return _tile(out, (1, va[0]))


def _half_odd(f):
    """FP32 -> FP16 rounded to odd, back to FP32: exact stays; else of the two FP16 neighbours the
    one whose encoding is odd (the nearest is one of them: its encoding, or the next one toward
    the other side of f; beyond 65504 the neighbours are 65504 and inf)."""
    with np.errstate(over="ignore"):
        h = f.astype(np.float16)
    bits = h.view(np.uint16)
    back = h.astype(np.float32)
    keep = (back == f) | (bits & 1 == 1)
    other = np.where(np.abs(back) > np.abs(f), bits - 1, bits + 1).astype(np.uint16)
    return np.where(keep, bits, other).view(np.float16).astype(np.float32)


def _int_odd(v):
    """FP32 -> integer rounded to odd: exact stays, else the truncation made odd (away from 0)."""
    t = np.trunc(v)
    return np.where((t != v) & (t % 2 == 0), t + np.sign(v), t)


def _cast_odd_lines(t, a, shape, dtype, k, style):
    if dtype == "INT32":
        return ['%s = pl.cast(pl.mul(pl.cast(%s, pl.FP32), 0.5), pl.INT32, mode="odd")' % (t, a)]
    return ['%s = pl.cast(pl.cast(%s, pl.FP16, mode="odd"), pl.FP32)' % (t, a)]


def _cast_odd_run(a, va, dtype, k):
    if dtype == "INT32":
        return _tile(_int_odd(a.astype(np.float32) * np.float32(0.5)).astype(np.int32), va)
    return _tile(_half_odd(a.astype(np.float32)), va)


def _expand_lines(t, a, shape, dtype, k, style):
    return ["%s = pl.%sexpand_clone(pl.slice(%s, [%d, 1], [0, 0]), %s)" % (t, "tile." if style else "", a, shape[0], a)]


def _expand_run(a, va, dtype, k):
    """Column 0 across every column of a's valid region."""
    return _tile(np.repeat(a[:, :1], a.shape[1], axis=1), va)


def _l1_lines(t, a, shape, dtype, k, style):
    return ["%s = pl.add(%s, pl.%screate_l1([%d, %d], pl.%s))" % (t, a, "tensor." if style else "", shape[0], shape[1], dtype)]


CATALOG = {
    "mask": (_mask_lines, _mask_run),
    "gcmp_idx": (_gcmp_idx_lines, _gcmp_idx_run),
    "gcmp_count": (_gcmp_count_lines, _gcmp_count_run),
    "cast_odd": (_cast_odd_lines, _cast_odd_run),
    "expand_clone": (_expand_lines, _expand_run),
    "create_l1": (_l1_lines, lambda a, va, dtype, k: _tile(a, va)),  # + zeros
}
PARAM_RANGE = {"mask": (1, 8), "gcmp_idx": (0, 6), "gcmp_count": (0, 6)}  # k's range; the others take none


class KCatalog:
    """tile = one of CATALOG's ops of tile a (shape: a's)."""

    def __init__(self, tile, op, a, shape, dtype, k, style):
        self.tile, self.op, self.a, self.shape, self.dtype, self.k, self.style = tile, op, a, shape, dtype, k, style

    def emit(self, out, ind):
        out.extend(ind + line for line in CATALOG[self.op][0](self.tile, self.a, self.shape, self.dtype, self.k, self.style))

    def run(self, env):
        a, va = env[self.a]
        env[self.tile] = CATALOG[self.op][1](a, va, self.dtype, self.k)
