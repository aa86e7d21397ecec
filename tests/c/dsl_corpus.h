/*
 * dsl_corpus.h - DSL programs that together use every construct of the v1
 * surface, with the entry to compile each through.  The round-trip,
 * robustness and compile-time checks run over all of them; the argument
 * specs are dsl_default_args (a, out: [256, 128] FP32; w: [128, 128]).
 */
#ifndef PTO_DSL_CORPUS_H
#define PTO_DSL_CORPUS_H

#include "dsl_examples.h"

typedef struct dsl_program {
    const char *name;
    const char *entry;
    const char *text;
} dsl_program;

static const char dsl_orch_program[] =
    "import pypto.language as pl\n"
    "\n"
    "@pl.program\n"
    "class Orch:\n"
    "    @pl.function(type=pl.FunctionType.Orchestration)   # auto_scope=True (default)\n"
    "    def orch(self, a, out):\n"
    "        for i in pl.range(4):\n"
    "            out = self.kernel(a, out)\n"
    "        return out\n"
    "\n"
    "    @pl.function(type=pl.FunctionType.InCore)\n"
    "    def kernel(self, a, out: pl.InOut[pl.Tensor]):\n"
    "        t = pl.add(pl.load(out, [0, 0], [256, 128]), pl.load(a, [0, 0], [256, 128]))\n"
    "        out = pl.store(t, [0, 0], out)\n"
    "        return out\n";

/* Control flow, scalars, manual scopes, submits with deps, created
 * tensors, grouping levels, cache markers and every op. */
static const char dsl_surface_program[] =
    "import pypto.language as pl\n"
    "\n"
    "R, C = 64, 128\n"
    "\n"
    "@pl.jit.incore\n"
    "def scale(x: pl.Tensor, y: pl.Out[pl.Tensor], row):\n"
    "    t = pl.load(x, [row, 0], [R, C], clamp=True)\n"
    "    u = pl.maximum(pl.relu(t), pl.neg(pl.abs(t)))\n"
    "    v = pl.sqrt(pl.exp(pl.minimum(u, 1.5)))\n"
    "    r = pl.recip(pl.rsqrt(pl.log(pl.abs(v) + 1.0)), high_precision=False)\n"
    "    pl.store(pl.sub(pl.div(r, 2.0), t), [row, 0], y)\n"
    "    return y\n"
    "\n"
    "@pl.jit.opaque\n"
    "def phase(a, out):\n"
    "    for j in pl.range(2):\n"
    "        with pl.at(level=pl.Level.CORE_GROUP, name_hint=\"ph\"):\n"
    "            s = pl.row_sum(pl.load(a, [j * R, 0], [R, C]))\n"
    "            m = pl.row_max(pl.load(out, [j * R, 0], [R, C]))\n"
    "            pl.store(pl.add(s, m), [j * R, 0], out, shapes=[R, 1])\n"
    "    return out\n"
    "\n"
    "@pl.jit\n"
    "def surface(a: pl.Tensor, out: pl.Out[pl.Tensor], w: pl.Tensor[[128, 128], pl.FP32]):\n"
    "    \"\"\"every construct once\"\"\"\n"
    "    n = 0\n"
    "    while n < 3:\n"
    "        n += 1\n"
    "    tmp = pl.create_tensor([256, 128], pl.FP32, init_value=n * 0.5)\n"
    "    for i in pl.range(3, -1, -1):\n"
    "        if i % 2 == 0 and n > 1:\n"
    "            tmp = scale(a, tmp, i * R)\n"
    "        elif i == 1:\n"
    "            with pl.at(level=pl.Level.CORE_GROUP):\n"
    "                pl.set_cache_policy(w, pl.CachePolicy.BYPASS)\n"
    "                acc = pl.matmul(pl.load(a, [0, 0], [R, C]), w, out_dtype=pl.FP32)\n"
    "                h = pl.cast(pl.cast(acc, pl.INT32, mode=\"floor\"), pl.FP32)\n"
    "                pl.store(h, [i * R, 0], tmp)\n"
    "        else:\n"
    "            with pl.at(level=pl.Level.CHIP):\n"
    "                tmp = scale(out, tmp, min(i, 2) * R)\n"
    "    with pl.manual_scope():\n"
    "        o1, t1 = pl.submit(scale, a, out, 0)\n"
    "        with pl.at(level=pl.Level.CORE_GROUP, deps=[t1]) as t2:\n"
    "            q = pl.load(tmp, [0, 0], [R, C], cache=pl.CachePolicy.BYPASS)\n"
    "            pl.store(q * 2.0 + q - -q, [R, 0], out)\n"
    "        o2, t3 = pl.submit(scale, tmp, out, R, deps=[t1, t2])\n"
    "    phase(a, out)\n"
    "    return out\n";

/* A program with helpers: an Opaque function (promoted, so the printed
 * program has two Orchestration functions), Inline functions whose
 * substituted constants fold, keyword arguments, several kernels. */
static const char dsl_helpers_program[] =
    "import pypto.language as pl\n"
    "\n"
    "SCALE = 3.0\n"
    "\n"
    "@pl.program\n"
    "class Helpers:\n"
    "    @pl.function(type=pl.FunctionType.InCore)\n"
    "    def k(self, a, out: pl.InOut[pl.Tensor], s: pl.Scalar[pl.FP32]):\n"
    "        t = pl.load(a, [0, 0], [256, 128])\n"
    "        pl.store(pl.add(pl.load(out, [0, 0], [256, 128]), pl.mul(t, s)), [0, 0], out)\n"
    "        return out\n"
    "\n"
    "    @pl.function(type=pl.FunctionType.InCore)\n"
    "    def copy(self, a, out: pl.Out[pl.Tensor]):\n"
    "        pl.store(pl.load(a, [0, 0], [256, 128]), [0, 0], out)\n"
    "        return out\n"
    "\n"
    "    @pl.function(type=pl.FunctionType.Inline)\n"
    "    def twice(self, x):\n"
    "        return -x * 2\n"
    "\n"
    "    @pl.function(type=pl.FunctionType.Inline)\n"
    "    def halve(self, x):\n"
    "        return x / 2 + 1\n"
    "\n"
    "    @pl.function\n"
    "    def helper(self, a, out, n):\n"
    "        for i in pl.range(n):\n"
    "            out = self.k(a, out, self.twice(SCALE))\n"
    "        return out\n"
    "\n"
    "    @pl.function(type=pl.FunctionType.Orchestration)\n"
    "    def main(self, a, out):\n"
    "        out = self.copy(a, out)\n"
    "        out = self.helper(a, out, 2)\n"
    "        out = self.k(s=self.halve(SCALE * 2), out=out, a=a)\n"
    "        return out\n";

/* Loop forms and explicit carries (DSL-V2-SPEC §6): pl.unroll, pl.parallel,
 * pl.pipeline, pl.while_, init_values= and pl.yield_ in loops and if arms. */
static const char dsl_loops_program[] =
    "import pypto.language as pl\n"
    "\n"
    "N = 4\n"
    "\n"
    "@pl.program\n"
    "class Loops:\n"
    "    @pl.function(type=pl.FunctionType.InCore)\n"
    "    def k(self, a, out: pl.InOut[pl.Tensor], r: pl.Scalar[pl.INDEX]):\n"
    "        x = pl.load(a, [r * 64, 0], [64, 128])\n"
    "        for i, (acc, s) in pl.pipeline(3, stage=2, init_values=(x, 0)):\n"
    "            if i % 2 == 0:\n"
    "                y = pl.yield_(pl.add(acc, 1.0))\n"
    "            else:\n"
    "                y = pl.yield_(pl.mul(acc, 2.0))\n"
    "            acc_out, s_out = pl.yield_(y, s + i)\n"
    "        for (m, t) in pl.while_(init_values=(0, acc_out)):\n"
    "            pl.cond(m < s_out)\n"
    "            m2, t2 = pl.yield_(m + 1, pl.add(t, 1.0))\n"
    "        pl.store(t2, [r * 64, 0], out)\n"
    "        return out\n"
    "\n"
    "    @pl.function(type=pl.FunctionType.Orchestration)\n"
    "    def main(self, a, out):\n"
    "        for r in pl.unroll(N // 2):\n"
    "            out = self.k(a, out, r)\n"
    "        for j, (o,) in pl.parallel(2, N, init_values=(out,)):\n"
    "            o2 = self.k(a, o, j)\n"
    "            out = pl.yield_(o2)\n"
    "        return out\n";

static const dsl_program dsl_corpus[] = {
    {"seed manual_placement", "manual_placement", dsl_seed_script},
    {"seed scaled", "scaled", dsl_seed_script},
    {"seed orch", "Orch", dsl_orch_program},
    {"surface", "surface", dsl_surface_program},
    {"helpers", "Helpers", dsl_helpers_program},
    {"loops", "Loops", dsl_loops_program},
};

#define DSL_CORPUS_N (sizeof dsl_corpus / sizeof dsl_corpus[0])

#endif
