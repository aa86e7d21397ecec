"""docs/dsl.md's catalog program (Operations, "Every op in one program"), as written there:
its values against torch, and every op of the compiler's table called in it."""
import re

import torch

from conftest import ROOT, docs_example
from pypto import _C

HEAD = "@pl.jit\ndef catalog("


def _catalog_reference(x, w):
    t = x
    a = t.abs()
    u = torch.sqrt(1 / torch.rsqrt(a + 1))
    v = torch.log(torch.exp(u - 1))
    m = torch.maximum(torch.minimum(v * 2, torch.tensor(1.0)), t / 4)
    rv = a.amax(1, keepdim=True) + 1
    cv = a.sum(0, keepdim=True) + 1
    r = (a + rv) + (a - rv) + (a * rv + a / rv) + (torch.maximum(a, rv) + torch.minimum(a, rv)) + torch.exp(a - rv)
    c = (a + cv) + (a - cv) + (a * cv + a / cv) + (torch.maximum(a, cv) + torch.minimum(a, cv))
    e = a.amin(1, keepdim=True).expand(16, 32) + a.amax(0, keepdim=True).expand(16, 32)
    e = e + (0.5 + (a.amin(0, keepdim=True).expand(16, 32).sum(1, keepdim=True)).expand(16, 32))
    f = x.clone()
    f[12:] = 0
    h = m.to(torch.bfloat16).to(torch.float32)
    k = (t * 8).trunc().to(torch.int32)
    b = ((k & 12) | (k << 1)) ^ ~(k >> 1)
    g = torch.sin(t) + torch.cos(torch.remainder(t, 0.75)) + torch.fmod(t, 0.5)
    g = g + ((t > 0).float() + torch.where(t > 0, t, t * a))
    g = g + torch.maximum(t, 0.125 * t) + b.float()
    top = torch.arange(16)[:, None] < 12  # q's valid rows
    g = g + (torch.where(top, t + a, a) + torch.where(top, t * a, a))
    g = g + (torch.where(top, torch.maximum(t, a), a) + torch.where(top, torch.minimum(t, a), a))
    g = g + torch.where(t < 0, t + a + a, torch.where(t > 0.5, t, torch.tensor(2.0)))
    g = g + (t - a - (a + 1 + (t - 2 - a)))
    p = a * 0.0625 + 1
    g = g + (p.prod(1, keepdim=True).expand(16, 32) + p.prod(0, keepdim=True).expand(16, 32))
    ix = t.argmax(1, keepdim=True) + t.argmin(1, keepdim=True) + t.argmax(0, keepdim=True)
    ix = t.argmin(0, keepdim=True) + ix
    gs = torch.full((16, 32), float(t[0, 1]))
    gs[0, 0] = t[15, 31]
    tiny = torch.tensor([1], dtype=torch.int32).view(torch.float32)  # the bits of index 1
    g = g + (gs + torch.maximum(t.amax(1, keepdim=True), tiny).expand(16, 32))
    left = ((r + c) + ((e + f) + h)) + (g + ix.float())
    acc = 2 * (t @ w)
    tw = t @ w
    gv = t[0:1] @ w + t[1:2] @ w + t[2:3] @ w
    z = 0.25 + torch.tril(tw + gv) + tw + (1 + torch.arange(16, dtype=torch.float32)[None, :])
    right = torch.cat([acc, z], 1)
    full = torch.cat([left, right], 1)
    res = full * 0.5
    res[15, 63] = full[0, 0]
    return res


def test_docs_catalog_matches_torch(load):
    mod = docs_example(load, HEAD)
    g = torch.Generator().manual_seed(11)
    x, w = torch.randn(16, 32, generator=g), torch.randn(32, 16, generator=g)
    out = torch.zeros(16, 64)
    mod.catalog(x, w, out)
    torch.testing.assert_close(out, _catalog_reference(x, w), rtol=2e-5, atol=2e-5)


def test_docs_catalog_calls_every_op():
    doc = (ROOT / "docs" / "dsl.md").read_text()
    start = doc.index("```python\n" + HEAD)
    code = doc[start:doc.index("```", start + 3)]
    called = set(re.findall(r"\bpl\.((?:tile\.|tensor\.)?\w+)\(", code))
    ops = [name for name, status, kind in _C.language_names() if kind == "op" and status == "supported"]
    missing = [op for op in ops if op not in called]
    assert not missing, "docs/dsl.md's catalog program calls no pl.%s" % ", pl.".join(missing)
