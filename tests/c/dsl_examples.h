/*
 * dsl_examples.h - DSL texts the compiler's tests share: the seed page's
 * script (its two kernels around plain Python test code), and how the
 * robustness tests derive bad inputs from it.
 */
#ifndef PTO_TEST_DSL_EXAMPLES_H
#define PTO_TEST_DSL_EXAMPLES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/prng.h"

static const char dsl_seed_script[] =
    "import pypto.language as pl\n"
    "import torch\n"
    "from pypto.runtime import RunConfig\n"
    "\n"
    "N, TR, TC = 4, 64, 128\n"
    "ROWS = N * TR\n"
    "\n"
    "torch.manual_seed(0)\n"
    "A = torch.randn(ROWS, TC, dtype=torch.float32)\n"
    "\n"
    "\n"
    "def check(kernel, cfg):\n"
    "    out = torch.zeros(ROWS, TC, dtype=torch.float32)\n"
    "    kernel(A, out, config=cfg)\n"
    "    torch.testing.assert_close(out, A * 2.0 + 1.0, rtol=1e-4, atol=1e-4)\n"
    "\n"
    "@pl.jit(auto_scope=False)\n"
    "def manual_placement(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
    "    with pl.scope():                       # depth 0 — phase 1's tasks, ring 0\n"
    "        for i in pl.range(N):\n"
    "            with pl.at(level=pl.Level.CORE_GROUP):\n"
    "                t = pl.load(a, [i * TR, 0], [TR, TC])\n"
    "                pl.store(pl.mul(t, 2.0), [i * TR, 0], out)\n"
    "        with pl.scope():                   # depth 1 — phase 2 moves to ring 1\n"
    "            with pl.at(level=pl.Level.CORE_GROUP):\n"
    "                for i in pl.range(N):\n"
    "                    t = pl.load(out, [i * TR, 0], [TR, TC])\n"
    "                    pl.store(pl.add(t, 1.0), [i * TR, 0], out)\n"
    "    return out\n"
    "\n"
    "\n"
    "check(manual_placement, RunConfig(platform=\"a2a3sim\"))\n"
    "\n"
    "sized = RunConfig(\n"
    "    platform=\"a2a3sim\",\n"
    "    ring_task_window=[8192, 16384, 131072, 524288],\n"
    "    ring_heap=[134217728, 268435456, 268435456, 536870912],\n"
    ")\n"
    "\n"
    "\n"
    "@pl.jit\n"
    "def scaled(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
    "    with pl.at(level=pl.Level.CORE_GROUP):\n"
    "        for i in pl.range(N):\n"
    "            t = pl.load(a, [i * TR, 0], [TR, TC])\n"
    "            pl.store(pl.add(pl.mul(t, 2.0), 1.0), [i * TR, 0], out)\n"
    "    return out\n"
    "\n"
    "\n"
    "check(scaled, sized)\n";

/* Input number iter of a robustness run over base (len bytes) into buf:
 * first every prefix (iter < len), then base with 1 to 6 random bytes
 * replaced, half by bytes that matter to the grammar.  Returns its length. */
static inline size_t dsl_mutant(char *buf, const char *base, size_t len, size_t iter, uint64_t *seed)
{
    memcpy(buf, base, len);
    if (iter < len) return iter;
    for (int m = 0; m < 1 + (int)(iter % 6); m++) {
        size_t at = base_splitmix64(seed) % len;
        uint64_t r = base_splitmix64(seed);
        buf[at] = (r & 1) ? (char)(r >> 8) : "():,.=[]\n @#'\"\t"[(r >> 8) % 16];
    }
    return len;
}

#endif
