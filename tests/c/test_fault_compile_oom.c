/*
 * test_fault_compile_oom.c - the compiler when memory runs out.
 *
 * Allocations are refused through fault_alloc.h (ld --wrap): the n-th, or
 * the n-th and every later one.
 *
 * Rule tested, for n swept over every allocation of compiling each source:
 * pto_compile returns -1 (out of memory), never crashes, and once the
 * handle (if any) is freed no block the compile allocated is still held
 * (LeakSanitizer checks the same under make test-asan).  A partial handle
 * answers every accessor.  After the sweep the same compile succeeds with
 * the same text, so no failure left state behind.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "dsl_compile.h"
#include "dsl_examples.h"

#include "fault_alloc.h"

/* ---- compiling under refusal ------------------------------------------- */

static int compile(const char *src, const char *entry, pto_program **p)
{
    pto_compile_options o = {.filename = "k.py", .source = src, .source_len = strlen(src), .entry = entry,
                             .args = dsl_default_args,
                             .nargs = sizeof dsl_default_args / sizeof dsl_default_args[0]};
    return pto_compile(&o, p);
}

/* Every accessor of a handle, partial or not, answers without crashing. */
static void touch_handle(pto_program *p)
{
    char buf[512];
    (void)pto_program_text(p);
    (void)pto_program_entry(p, 0);
    for (size_t k = 0; k < pto_program_diag_count(p); k++) {
        (void)pto_program_diag(p, k);
        pto_program_diag_format(p, k, buf, sizeof buf);
    }
    (void)pto_program_listing(p);
}

/* Compiles src once per allocation with that allocation refused (and, when
 * persistent, every later one too).  want_rc is what a compile with memory
 * enough returns (0, or 1 for a source with errors). */
static void sweep(const char *src, const char *entry, int want_rc, int persistent)
{
    /* the reference compile */
    pto_program *p = NULL;
    assert_int_equal(compile(src, entry, &p), want_rc);
    char *ref_text = strdup(pto_program_text(p));
    char *ref_listing = strdup(pto_program_listing(p));
    pto_program_free(p);
    /* how many allocations a compile makes; every block freed with the handle */
    fault_arm(0, 0);
    assert_int_equal(compile(src, entry, &p), want_rc);
    fault_disarm();
    size_t total = fault_calls();
    pto_program_free(p);
    assert_true(total > 10);
    assert_int_equal(fault_held(), 0);

    for (size_t n = 1; n <= total; n++) {
        fault_arm(n, persistent);
        p = NULL;
        int rc = compile(src, entry, &p);
        if (p) touch_handle(p); /* still refusing, when persistent */
        fault_disarm();
        char first[512] = "";
        if (rc != -1 && p) pto_program_diag_format(p, 0, first, sizeof first);
        pto_program_free(p);
        if (rc != -1)
            fail_msg("%s: allocation %zu of %zu refused%s: pto_compile returned %d, not -1 (out of memory); "
                     "first diagnostic: %s", entry, n, total, persistent ? " (and every later one)" : "", rc, first);
        assert_true(fault_refused() >= 1);
        long held = fault_held();
        if (held)
            fail_msg("%s: allocation %zu of %zu refused: %ld blocks still held after pto_program_free (-1: too many to track)",
                     entry, n, total, held);
    }

    /* no failure left anything behind: the same compile gives the same program */
    assert_int_equal(compile(src, entry, &p), want_rc);
    assert_string_equal(pto_program_text(p), ref_text);
    assert_string_equal(pto_program_listing(p), ref_listing);
    pto_program_free(p);
    free(ref_text);
    free(ref_listing);
}

/* The seed's manual_placement: scopes, pl.at outlining, both phases. */
static void test_compile_out_of_memory_manual_placement(void **state)
{
    (void)state;
    sweep(dsl_seed_script, "manual_placement", 0, 0);
    sweep(dsl_seed_script, "manual_placement", 0, 1);
}

/* A program class, an inline function, a kernel call and a cast: the
 * passes the seed does not reach. */
static const char program_src[] =
    "import pypto.language as pl\n"
    "\n"
    "@pl.jit.inline\n"
    "def twice(t):\n"
    "    return pl.add(t, t)\n"
    "\n"
    "@pl.jit.incore\n"
    "def k(a: pl.Tensor, out: pl.InOut[pl.Tensor], i: pl.Scalar[pl.INDEX]):\n"
    "    t = pl.cast(pl.load(a, [i * 64, 0], [64, 128]), pl.FP16)\n"
    "    pl.store(pl.cast(twice(t), pl.FP32), [i * 64, 0], out)\n"
    "    return out\n"
    "\n"
    "@pl.jit\n"
    "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
    "    for i in pl.range(4):\n"
    "        if i % 2 == 0:\n"
    "            out = k(a, out, i)\n"
    "        else:\n"
    "            with pl.at(level=pl.Level.CORE_GROUP):\n"
    "                pl.store(pl.row_sum(pl.load(a, [i * 64, 0], [64, 128])), [i * 64, 0], out)\n"
    "    return out\n";

static void test_compile_out_of_memory_program_with_calls(void **state)
{
    (void)state;
    sweep(program_src, "f", 0, 0);
    sweep(program_src, "f", 0, 1);
}

/* A source with errors: the diagnostics' own allocations fail too. */
static const char error_src[] =
    "import pypto.language as pl\n"
    "\n"
    "@pl.jit\n"
    "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
    "    with pl.at(level=pl.Level.CORE_GROUP):\n"
    "        t = pl.load(a, [200, 0], [64, 128])\n"
    "        pl.store(pl.add(t, nope), [0, 0], out)\n"
    "    return out\n";

static void test_compile_out_of_memory_with_diagnostics(void **state)
{
    (void)state;
    sweep(error_src, "f", 1, 0);
    sweep(error_src, "f", 1, 1);
}

/* Control flow and expansion the other sources leave out: a while loop
 * with kernels in both branches of an if, loops with non-unit and
 * variable steps inside a kernel, inline functions with loops, branches
 * and a scalar result called inside expressions, tuple unpacking, unary
 * operators, task ids and deps=, a manual scope. */
static const char flow_src[] =
    "import pypto.language as pl\n"
    "\n"
    "@pl.jit.inline\n"
    "def two(x: pl.Tensor, n: pl.Scalar[pl.INDEX]):\n"
    "    return n * 2\n"
    "\n"
    "@pl.jit.inline\n"
    "def body(x: pl.Tensor, y: pl.Out[pl.Tensor], i: pl.Scalar[pl.INDEX]):\n"
    "    k = 0\n"
    "    while k < 1:\n"
    "        k = k + 1\n"
    "    if i > 0:\n"
    "        pl.store(pl.load(x, [-(0 - i) * 32, 0], [32, 128]), [i * 32, 0], y)\n"
    "    else:\n"
    "        pl.store(pl.load(x, [0, 0], [32, 128]), [0, 0], y)\n"
    "    return y\n"
    "\n"
    "@pl.jit(auto_scope=False)\n"
    "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
    "    x, s = 1, 2\n"
    "    b = not (x > 1)\n"
    "    n = 0\n"
    "    with pl.scope():\n"
    "        while n < 2:\n"
    "            if n > x:\n"
    "                with pl.at(level=pl.Level.CORE_GROUP) as tid:\n"
    "                    t = pl.load(a, [n * 64, 0], [64, 128])\n"
    "                    pl.store(-t, [n * 64, 0], out)\n"
    "            else:\n"
    "                with pl.at(level=pl.Level.CORE_GROUP):\n"
    "                    for i in pl.range(3, 0, -1):\n"
    "                        body(a, out, i)\n"
    "            n = n + 1\n"
    "    with pl.manual_scope():\n"
    "        with pl.at(level=pl.Level.CORE_GROUP) as t1:\n"
    "            for j in pl.range(0, 4, s):\n"
    "                u = pl.load(a, [two(a, j) * 16, 0], [16, 128])\n"
    "                pl.store(pl.mul(u, two(a, 1)), [j * 16, 0], out)\n"
    "        with pl.at(level=pl.Level.CORE_GROUP, deps=[t1]):\n"
    "            pl.store(pl.load(out, [0, 0], [16, 128]), [16, 0], out)\n"
    "    return out\n";

static void test_compile_out_of_memory_control_flow_and_inline(void **state)
{
    (void)state;
    sweep(flow_src, "f", 0, 0);
    sweep(flow_src, "f", 0, 1);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_compile_out_of_memory_manual_placement),
    cmocka_unit_test(test_compile_out_of_memory_program_with_calls),
    cmocka_unit_test(test_compile_out_of_memory_with_diagnostics),
    cmocka_unit_test(test_compile_out_of_memory_control_flow_and_inline),
};

PTO_TEST_MAIN(tests)
