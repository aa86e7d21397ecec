/*
 * test_dsl_scopes.c - MaterializeRuntimeScopes and the verifier end to end,
 * from DSL text through every stage (docs/compiler.md, "Scope placement",
 * "Verifier checks", docs/dsl.md, "Runtime scopes and rings").  "stats: ring
 * N" rows are read from the printed text: a task's depth is the number of
 * runtime scopes printed around its call, less one (docs/dsl.md, "Runtime
 * scopes and rings").  Every program compiled here also passes the round trip
 * (M09): its printed text compiled again prints byte-identical.  The seed's
 * `orch` example (E03 as far as text goes) is checked against the page's
 * "after" text.
 */
#include <stdlib.h>

#include "harness.h"
#include "dsl_compile.h"
#include "dsl_examples.h"
#include "dsl_text.h"

#define HDR "import pypto.language as pl\n\n"
/* three InCore kernels reading a into out: calls to them are the markers */
#define KERNEL(k)                                                          \
    "@pl.jit.incore\ndef " k "(a: pl.Tensor, out: pl.InOut[pl.Tensor]):\n" \
    "    t = pl.load(a, [0, 0], [64, 128])\n    pl.store(t, [0, 0], out)\n    return out\n\n"
#define KS HDR KERNEL("k") KERNEL("k1") KERNEL("k2") KERNEL("k3")
/* entry f in default mode / auto_scope=False with body BODY */
#define DEF(body) KS "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar):\n" body "    return out\n"
#define OFF(body) KS "@pl.jit(auto_scope=False)\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar):\n" body "    return out\n"

/* The entry's method of the lowered text, comments stripped. */
static void expect_entry(const char *src, const char *expected)
{
    pto_program *p = dsl_lower(src, "f");
    char *m = dsl_method(pto_program_text(p), "f", 1);
    if (strcmp(m, expected)) fprintf(stderr, "got:\n%s\nexpected:\n%s\n", m, expected);
    assert_string_equal(m, expected);
    free(m);
    pto_program_free(p);
}

/* The ring of the task of the first line holding marker in f's lowering. */
static int ring_in(const char *src, const char *marker)
{
    pto_program *p = dsl_lower(src, "f");
    int r = dsl_ring(pto_program_text(p), marker, 0);
    pto_program_free(p);
    return r;
}

#define ORCH_DEF "@pl.function(type=pl.FunctionType.Orchestration, auto_scope=False)\n"
#define FDEF                                                                                                   \
    "def f(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]], n: pl.Scalar[" \
    "pl.INDEX]) -> pl.Tensor[[256, 128], pl.FP32]:\n"

static void test_dsl_scopes_m01_for_body_and_function_body(void **s)
{
    (void)s;
    pto_program *p = dsl_lower(HDR KERNEL("k") "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                                               "    for i in pl.range(4):\n        out = k(a, out)\n    return out\n",
                               "f");
    dsl_expect_text(p, "import pypto.language as pl\n\n@pl.program\nclass f:\n"
                       "    @pl.function(type=pl.FunctionType.Orchestration, auto_scope=False)\n"
                       "    def f(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> "
                       "pl.Tensor[[256, 128], pl.FP32]:\n"
                       "        with pl.scope():\n"
                       "            for i in pl.range(4):\n"
                       "                with pl.scope():\n"
                       "                    out = self.k(a, out)  # a: In [0:64, 0:128]; out: InOut [0:64, 0:128]\n"
                       "            return out\n\n"
                       "    @pl.function(type=pl.FunctionType.InCore)\n"
                       "    def k(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.InOut[pl.Tensor[[256, 128], pl.FP32]]) -> "
                       "pl.Tensor[[256, 128], pl.FP32]:\n"
                       "        t = pl.load(a, [0, 0], [64, 128], cache=pl.CachePolicy.DEFAULT)\n"
                       "        pl.store(t, [0, 0], out)\n"
                       "        return out\n");
    pto_program_free(p);
    /* a scalar-only loop body is wrapped too (no emptiness test) */
    expect_entry(DEF("    x = 0\n    for i in pl.range(4):\n        x = x + i\n"),
                 ORCH_DEF FDEF "    with pl.scope():\n        x = 0\n        for i in pl.range(4):\n            with pl.scope():\n"
                               "                x = x + i\n        return out\n");
}

static void test_dsl_scopes_m02_if_else_both_branches(void **s)
{
    (void)s;
    expect_entry(DEF("    if n > 2:\n        out = k1(a, out)\n    else:\n        out = k2(a, out)\n"),
                 ORCH_DEF FDEF "    with pl.scope():\n        if 3 > 2:\n            with pl.scope():\n                out = self.k1(a, out)\n"
                               "        else:\n            with pl.scope():\n                out = self.k2(a, out)\n        return out\n");
}

static void test_dsl_scopes_m03_if_without_else(void **s)
{
    (void)s;
    const char *src = DEF("    if n > 2:\n        out = k1(a, out)\n");
    expect_entry(src, ORCH_DEF FDEF "    with pl.scope():\n        if 3 > 2:\n            with pl.scope():\n"
                                    "                out = self.k1(a, out)\n        return out\n");
    pto_program *p = dsl_lower(src, "f");
    assert_null(strstr(pto_program_text(p), "else"));
    pto_program_free(p);
}

static void test_dsl_scopes_m04_elif_chain_rings(void **s)
{
    (void)s;
    const char *src = DEF("    if n > 2:\n        out = k1(a, out)\n    elif n > 1:\n        out = k2(a, out)\n"
                          "    else:\n        out = k3(a, out)\n");
    expect_entry(src, ORCH_DEF FDEF "    with pl.scope():\n        if 3 > 2:\n            with pl.scope():\n"
                                    "                out = self.k1(a, out)\n        else:\n            with pl.scope():\n"
                                    "                if 3 > 1:\n                    with pl.scope():\n"
                                    "                        out = self.k2(a, out)\n                else:\n"
                                    "                    with pl.scope():\n                        out = self.k3(a, out)\n"
                                    "        return out\n");
    assert_int_equal(ring_in(src, "self.k1("), 1);
    assert_int_equal(ring_in(src, "self.k2("), 2);
    assert_int_equal(ring_in(src, "self.k3("), 2);
}

static void test_dsl_scopes_m05_manual_suppresses_nested_wrapping(void **s)
{
    (void)s;
    expect_entry(DEF("    with pl.manual_scope():\n        for i in pl.range(2):\n            for j in pl.range(2):\n"
                     "                if i == j:\n                    out = k(a, out)\n"),
                 ORCH_DEF FDEF "    with pl.scope():\n        with pl.scope(mode=pl.ScopeMode.MANUAL):\n"
                               "            for i in pl.range(2):\n                for j in pl.range(2):\n"
                               "                    if i == j:\n                        out = self.k(a, out)\n        return out\n");
}

static void test_dsl_scopes_m06_manual_submit_untouched(void **s)
{
    (void)s;
    expect_entry(DEF("    with pl.manual_scope():\n        for i in pl.range(2):\n            out, t = pl.submit(k, a, out)\n"),
                 ORCH_DEF FDEF "    with pl.scope():\n        with pl.scope(mode=pl.ScopeMode.MANUAL):\n"
                               "            for i in pl.range(2):\n                out, t = pl.submit(self.k, a, out)\n"
                               "        return out\n");
}

static void test_dsl_scopes_m07_for_body_one_manual_scope(void **s)
{
    (void)s;
    const char *src = DEF("    for i in pl.range(2):\n        with pl.manual_scope():\n            out = k(a, out)\n");
    expect_entry(src, ORCH_DEF FDEF "    with pl.scope():\n        for i in pl.range(2):\n            with pl.scope():\n"
                                    "                with pl.scope(mode=pl.ScopeMode.MANUAL):\n"
                                    "                    out = self.k(a, out)\n        return out\n");
    assert_int_equal(ring_in(src, "self.k("), 2);
}

static void test_dsl_scopes_m08_while_never_wrapped(void **s)
{
    (void)s;
    const char *src = DEF("    m = 0\n    while m < 4:\n        out = k(a, out)\n        m = m + 1\n");
    expect_entry(src, ORCH_DEF FDEF "    with pl.scope():\n        m = 0\n        while m < 4:\n            out = self.k(a, out)\n"
                                    "            m = m + 1\n        return out\n");
    assert_int_equal(ring_in(src, "self.k("), 0); /* the enclosing (function-body) scope's */
    /* inside a for: the task stays on the for body's ring */
    assert_int_equal(ring_in(DEF("    for i in pl.range(2):\n        m = 0\n        while m < i:\n            out = k(a, out)\n"
                                 "            m = m + 1\n"),
                             "self.k("),
                     1);
}

/* M09: the pass is idempotent - the printed (materialized) program compiled
 * again is unchanged, for default and opted-out entries, programs and the
 * seed script.  (Every dsl_lower in this file checks the same law.) */
static void test_dsl_scopes_m09_idempotent_round_trip(void **s)
{
    (void)s;
    static const char *const srcs[] = {
        DEF("    for i in pl.range(2):\n        for j in pl.range(2):\n            out = k(a, out)\n"),
        DEF("    if n > 2:\n        out = k1(a, out)\n    elif n > 1:\n        out = k2(a, out)\n"),
        OFF("    with pl.scope():\n        out = k(a, out)\n        with pl.manual_scope():\n            out = k1(a, out)\n"),
        /* a kernel call before a pl.at: the printed order of functions survives */
        DEF("    out = k(a, out)\n    with pl.at(level=pl.Level.CORE_GROUP):\n"
            "        pl.store(pl.load(a, [0, 0], [64, 128]), [64, 0], out)\n"),
    };
    for (size_t i = 0; i < sizeof srcs / sizeof srcs[0]; i++) {
        pto_program *p = dsl_lower(srcs[i], "f");
        /* the round trip of the text after the scopes stage alone, too */
        pto_program *q = dsl_compile_with(srcs[i], "f", PTO_STAGE_SCOPES, 0, dsl_args_n, 4);
        dsl_expect_ok(q);
        assert_non_null(strstr(pto_program_text(p), "auto_scope=False"));
        assert_int_equal(dsl_count(pto_program_text(q), "with pl.scope"), dsl_count(pto_program_text(p), "with pl.scope"));
        pto_program_free(q);
        pto_program_free(p);
    }
    pto_program_free(dsl_lower(dsl_seed_script, "manual_placement"));
    pto_program_free(dsl_lower(dsl_seed_script, "scaled"));
}

static void test_dsl_scopes_m10_opt_out_adds_nothing(void **s)
{
    (void)s;
    const char *none = OFF("    for i in pl.range(2):\n        out = k(a, out)\n");
    expect_entry(none, ORCH_DEF FDEF "    for i in pl.range(2):\n        out = self.k(a, out)\n    return out\n");
    pto_program *p = dsl_lower(none, "f");
    assert_int_equal(dsl_count(pto_program_text(p), "pl.scope"), 0);
    assert_int_equal(dsl_ring(pto_program_text(p), "self.k(", 0), 0); /* implicit root */
    pto_program_free(p);
    p = dsl_lower(OFF("    with pl.scope():\n        for i in pl.range(2):\n            out = k(a, out)\n"), "f");
    assert_int_equal(dsl_count(pto_program_text(p), "with pl.scope"), 1);
    assert_int_equal(dsl_ring(pto_program_text(p), "self.k(", 0), 0);
    pto_program_free(p);
}

static void test_dsl_scopes_m11_kernel_loops_get_no_scopes(void **s)
{
    (void)s;
    pto_program *p = dsl_lower(KS "@pl.jit.incore\ndef kl(a: pl.Tensor, out: pl.InOut[pl.Tensor]):\n"
                                  "    for j in pl.range(2):\n        pl.store(pl.load(a, [j * 64, 0], [64, 128]), [j * 64, 0], out)\n"
                                  "    return out\n\n"
                                  "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n    for i in pl.range(4):\n"
                                  "        with pl.at(level=pl.Level.CORE_GROUP):\n            for j in pl.range(2):\n"
                                  "                pl.store(pl.load(a, [i * 64, 0], [64, 128]), [i * 64, 0], out)\n"
                                  "    out = kl(a, out)\n    return out\n",
                               "f");
    const char *text = pto_program_text(p);
    char *outlined = dsl_method(text, "f_incore_0", 1), *kl = dsl_method(text, "kl", 1);
    assert_non_null(strstr(outlined, "for j in pl.range(2):"));
    assert_non_null(strstr(kl, "for j in pl.range(2):"));
    assert_null(strstr(outlined, "pl.scope"));
    assert_null(strstr(kl, "pl.scope"));
    assert_int_equal(dsl_count(text, "with pl.scope"), 2); /* body, the entry's for */
    assert_int_equal(dsl_ring(text, "self.f_incore_0(", 0), 1);
    assert_int_equal(dsl_ring(text, "self.kl(", 0), 0);
    free(outlined);
    free(kl);
    pto_program_free(p);
}

#define OPQ(flag)                                                                                        \
    HDR "@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.Opaque" flag ")\n"                       \
        "    def op(self, a, out: pl.InOut[pl.Tensor]):\n        for j in pl.range(2):\n"                      \
        "            with pl.at(level=pl.Level.CORE_GROUP):\n"                                                 \
        "                pl.store(pl.load(a, [j * 64, 0], [64, 128]), [j * 64, 0], out)\n        return out\n\n" \
        "    @pl.function(type=pl.FunctionType.Orchestration)\n    def f(self, a, out: pl.Out[pl.Tensor]):\n"      \
        "        for i in pl.range(2):\n            out = self.op(a, out)\n        return out\n"

static void test_dsl_scopes_m12_opaque_wrapped_under_its_own_flag(void **s)
{
    (void)s;
    /* @pl.jit.opaque: promoted, wrapped (its default); tasks at depth 3 */
    pto_program *p = dsl_lower(KS "@pl.jit.opaque\ndef op(a: pl.Tensor, out: pl.InOut[pl.Tensor]):\n    for j in pl.range(2):\n"
                                  "        with pl.at(level=pl.Level.CORE_GROUP):\n"
                                  "            pl.store(pl.load(a, [j * 64, 0], [64, 128]), [j * 64, 0], out)\n    return out\n\n"
                                  "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n    for i in pl.range(2):\n"
                                  "        out = op(a, out)\n    return out\n",
                               "f");
    const char *text = pto_program_text(p);
    char *op = dsl_method(text, "op", 1);
    assert_true(!strncmp(op, ORCH_DEF, strlen(ORCH_DEF)));
    assert_int_equal(dsl_count(op, "with pl.scope():"), 2);
    int outer = dsl_scopes_around(text, "self.op(");
    assert_int_equal(outer, 2);
    assert_int_equal(dsl_ring(text, "self.op_incore_0(", outer), 3);
    free(op);
    pto_program_free(p);
    /* the same subroutine in a program: default flag wraps, False does not */
    p = dsl_lower_with(OPQ(""), "P", dsl_default_args, 2);
    op = dsl_method(pto_program_text(p), "op", 1);
    assert_int_equal(dsl_count(op, "with pl.scope():"), 2);
    assert_int_equal(dsl_ring(pto_program_text(p), "self.op_incore_0(", 2), 3);
    free(op);
    pto_program_free(p);
    p = dsl_lower_with(OPQ(", auto_scope=False"), "P", dsl_default_args, 2);
    op = dsl_method(pto_program_text(p), "op", 1);
    assert_int_equal(dsl_count(op, "pl.scope"), 0);
    assert_int_equal(dsl_ring(pto_program_text(p), "self.op_incore_0(", 2), 1);
    free(op);
    pto_program_free(p);
}

static void test_dsl_scopes_m13_grouping_at_adds_no_depth(void **s)
{
    (void)s;
    const char *src = DEF("    with pl.at(level=pl.Level.CHIP):\n        for i in pl.range(2):\n            out = k(a, out)\n");
    expect_entry(src, ORCH_DEF FDEF "    with pl.scope():\n        with pl.at(level=pl.Level.CHIP):\n"
                                    "            for i in pl.range(2):\n                with pl.scope():\n"
                                    "                    out = self.k(a, out)\n        return out\n");
    assert_int_equal(ring_in(src, "self.k("), 1);
}

static void test_dsl_scopes_v01_skipped_pass_on_default(void **s)
{
    (void)s;
    pto_program *p = dsl_compile_with(DEF("    for i in pl.range(2):\n        out = k(a, out)\n"), "f", PTO_STAGE_ALL,
                                      1u << PTO_STAGE_SCOPES, dsl_args_n, 4);
    const pto_diagnostic *d = dsl_expect_error(p, "PassError", "[RuntimeScopesMaterialized] Orchestration function 'f' still has "
                                                               "auto_scope=True; MaterializeRuntimeScopes must run before lowering",
                                               28, 5);
    assert_non_null(strstr(d->message, "never inferred from for/if bodies"));
    pto_program_free(p);
}

static void test_dsl_scopes_v02_skipped_pass_on_opt_out(void **s)
{
    (void)s;
    const char *src = OFF("    with pl.scope():\n        for i in pl.range(2):\n            out = k(a, out)\n");
    pto_program *p = dsl_compile_with(src, "f", PTO_STAGE_ALL, 1u << PTO_STAGE_SCOPES, dsl_args_n, 4);
    pto_program *q = dsl_lower(src, "f");
    dsl_expect_ok(p);
    assert_string_equal(pto_program_text(p), pto_program_text(q));
    pto_program_free(p);
    pto_program_free(q);
}

static void test_dsl_scopes_v03_inlined_auto_in_manual(void **s)
{
    (void)s;
    DSL_ERROR(KS "@pl.jit.inline(auto_scope=False)\ndef g(a: pl.Tensor, out: pl.InOut[pl.Tensor]):\n    with pl.scope():\n"
                 "        out = k(a, out)\n    return out\n\n"
                 "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n    with pl.manual_scope():\n        out = g(a, out)\n"
                 "    return out\n",
              "f", "PassError", "an AUTO scope may not be nested inside a manual scope (after inlining 'g' at k.py:36)", 29, 10);
}

/* An auto_scope=False inline function's hand AUTO scope lands in
 * a default entry's lowering. */
static void test_dsl_scopes_d04_inline_hand_scope_lands_in_caller(void **s)
{
    (void)s;
    const char *src = KS "@pl.jit.inline(auto_scope=False)\ndef g(a: pl.Tensor, out: pl.InOut[pl.Tensor]):\n    with pl.scope():\n"
                         "        out = k(a, out)\n    return out\n\n"
                         "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n    out = g(a, out)\n    return out\n";
    pto_program *p = dsl_lower_with(src, "f", dsl_default_args, 2);
    char *m = dsl_method(pto_program_text(p), "f", 1);
    /* the body's scope, then g's hand scope around the spliced call (out is
     * rebound inside g, so it is passed through g's renamed parameter) */
    assert_non_null(strstr(m, "    with pl.scope():\n        out_g = out\n        with pl.scope():\n            out_g = self.k(a, out_g)\n"));
    assert_null(strstr(pto_program_text(p), "def g("));
    free(m);
    pto_program_free(p);
}

static void test_dsl_scopes_v04_created_tensor_escapes_loop(void **s)
{
    (void)s;
    pto_program *p = dsl_compile_with(DEF("    tmp = a\n    for i in pl.range(2):\n        tmp = pl.create_tensor([256, 128], pl.FP32)\n"
                                          "        tmp = k(a, tmp)\n    out = k(tmp, out)\n"),
                                      "f", PTO_STAGE_ALL, 0, dsl_args_n, 4);
    dsl_expect_error(p, "PassError",
              "[ScopedTensorEscapes] tensor 'tmp' is created inside a runtime scope (k.py:31) and used after that scope ends; "
              "create it in an enclosing scope",
              33, 13);
    pto_program_free(p);
    /* used inside its scope only: fine */
    pto_program_free(dsl_lower(DEF("    for i in pl.range(2):\n        tmp = pl.create_tensor([256, 128], pl.FP32)\n"
                                   "        tmp = k(a, tmp)\n        out = k(tmp, out)\n"),
                               "f"));
}

/* docs/dsl.md, "Runtime scopes and rings", the seed's examples: manual_placement and scaled. */
static void test_dsl_scopes_rings_seed_examples(void **s)
{
    (void)s;
    pto_program *p = dsl_lower_with(dsl_seed_script, "manual_placement", dsl_default_args, 2);
    const char *text = pto_program_text(p);
    assert_int_equal(dsl_ring(text, "self.manual_placement_incore_0(", 0), 0);
    assert_int_equal(dsl_ring(text, "self.manual_placement_incore_1(", 0), 1);
    assert_int_equal(dsl_count(text, "with pl.scope"), 2); /* auto_scope=False: only the hand scopes */
    pto_program_free(p);
    p = dsl_lower_with(dsl_seed_script, "scaled", dsl_default_args, 2);
    text = pto_program_text(p);
    char *m = dsl_method(text, "scaled", 1);
    assert_int_equal(dsl_count(m, "self.scaled_incore_0("), 1);
    assert_null(strstr(m, "for "));                          /* the loop is inside the kernel */
    assert_int_equal(dsl_count(m, "with pl.scope():"), 1);   /* scope0{ k; return } */
    assert_int_equal(dsl_ring(text, "self.scaled_incore_0(", 0), 0);
    free(m);
    pto_program_free(p);
}

/* docs/dsl.md, "Runtime scopes and rings", the nesting rows. */
static void test_dsl_scopes_rings_nesting_examples(void **s)
{
    (void)s;
    assert_int_equal(ring_in(DEF("    out = k(a, out)\n"), "self.k("), 0);
    assert_int_equal(ring_in(DEF("    for i in pl.range(2):\n        for j in pl.range(2):\n            out = k(a, out)\n"), "self.k("), 2);
    assert_int_equal(ring_in(DEF("    for i in pl.range(2):\n        for j in pl.range(2):\n            for l in pl.range(2):\n"
                                 "                for m in pl.range(2):\n                    out = k(a, out)\n"),
                             "self.k("),
                     3); /* depth 4 saturates */
    assert_int_equal(ring_in(DEF("    for i in pl.range(4):\n        with pl.at(level=pl.Level.CORE_GROUP):\n"
                                 "            pl.store(pl.load(a, [i * 64, 0], [64, 128]), [i * 64, 0], out)\n"),
                             "self.f_incore_0("),
                     1);
    const char *man = DEF("    with pl.manual_scope():\n        for i in pl.range(4):\n            out = k(a, out)\n");
    assert_int_equal(ring_in(man, "self.k("), 1);
    pto_program *p = dsl_lower(man, "f");
    assert_int_equal(dsl_count(pto_program_text(p), "with pl.scope"), 2); /* no per-iteration scopes */
    pto_program_free(p);
    assert_int_equal(ring_in(OFF("    out = k(a, out)\n"), "self.k("), 0);
    assert_int_equal(ring_in(OFF("    with pl.manual_scope():\n        for i in pl.range(4):\n            out = k(a, out)\n"), "self.k("),
                     0);
    assert_int_equal(ring_in(DEF("    m = 0\n    while m < 4:\n        out = k(a, out)\n        m = m + 1\n"), "self.k("), 0);
}

/* The seed's `orch` example: the page's "before" method in a default
 * program and its "after" method pasted verbatim print the same program. */
#define ORCH_PROGRAM(cls, orch)                                                                    \
    HDR "@pl.program\nclass " cls ":\n" orch "\n"                                                  \
        "    @pl.function(type=pl.FunctionType.InCore)\n"                                          \
        "    def kernel(self, a, out: pl.InOut[pl.Tensor]):\n"                                     \
        "        t = pl.add(pl.load(out, [0, 0], [256, 128]), pl.load(a, [0, 0], [256, 128]))\n" \
        "        pl.store(t, [0, 0], out)\n        return out\n"
#define ORCH_BEFORE                                                                   \
    "    @pl.function(type=pl.FunctionType.Orchestration)   # auto_scope=True (default)\n" \
    "    def orch(self, a, out):\n"                                                   \
    "        for i in pl.range(4):\n"                                                 \
    "            out = self.kernel(a, out)\n"                                         \
    "        return out\n"
#define ORCH_AFTER                                                                                   \
    "    @pl.function(type=pl.FunctionType.Orchestration, auto_scope=False)\n"                          \
    "    def orch(self, a, out):\n"                                                                  \
    "        with pl.scope():            # depth 0 \xe2\x80\x94 function body\n"                      \
    "            for i in pl.range(4):\n"                                                            \
    "                with pl.scope():    # depth 1 \xe2\x80\x94 loop body: every task lands in ring 1\n" \
    "                    out = self.kernel(a, out)\n"                                                \
    "            return out\n"

static void test_dsl_scopes_e03_orch_before_and_after_agree(void **s)
{
    (void)s;
    pto_program *b = dsl_lower_with(ORCH_PROGRAM("Before", ORCH_BEFORE), "Before", dsl_default_args, 2);
    pto_program *a = dsl_lower_with(ORCH_PROGRAM("After", ORCH_AFTER), "After", dsl_default_args, 2);
    const char *tb = strstr(pto_program_text(b), "class Before:\n"), *ta = strstr(pto_program_text(a), "class After:\n");
    assert_non_null(tb);
    assert_non_null(ta);
    assert_int_equal(tb - pto_program_text(b), ta - pto_program_text(a));
    assert_memory_equal(pto_program_text(b), pto_program_text(a), (size_t)(tb - pto_program_text(b)));
    assert_string_equal(tb + strlen("class Before:\n"), ta + strlen("class After:\n"));
    /* 4 tasks ring 1; nothing is submitted at depth 0 */
    assert_int_equal(dsl_ring(tb, "self.kernel(", 0), 1);
    assert_int_equal(dsl_count(tb, "self.kernel("), 1);
    pto_program_free(a);
    pto_program_free(b);
}

/* The page's "becomes" text, verbatim (comments and all). */
static const char seed_orch_becomes[] =
    "@pl.function(type=pl.FunctionType.Orchestration, auto_scope=False)\n"
    "def orch(self, a, out):\n"
    "    with pl.scope():            # depth 0 \xe2\x80\x94 function body\n"
    "        for i in pl.range(4):\n"
    "            with pl.scope():    # depth 1 \xe2\x80\x94 loop body: every task lands in ring 1\n"
    "                out = self.kernel(a, out)\n"
    "        return out\n";

static void test_dsl_scopes_e03_orch_golden_becomes(void **s)
{
    (void)s;
    pto_program *p = dsl_lower_with(ORCH_PROGRAM("Before", ORCH_BEFORE), "Before", dsl_default_args, 2);
    char *m = dsl_method(pto_program_text(p), "orch", 0);
    char *got = dsl_strip_types(m), *want = dsl_strip_types(seed_orch_becomes);
    if (strcmp(got, want)) fprintf(stderr, "got:\n%s\nexpected:\n%s\n", got, want);
    assert_string_equal(got, want);
    free(want);
    free(got);
    free(m);
    pto_program_free(p);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_dsl_scopes_m01_for_body_and_function_body),
    cmocka_unit_test(test_dsl_scopes_m02_if_else_both_branches),
    cmocka_unit_test(test_dsl_scopes_m03_if_without_else),
    cmocka_unit_test(test_dsl_scopes_m04_elif_chain_rings),
    cmocka_unit_test(test_dsl_scopes_m05_manual_suppresses_nested_wrapping),
    cmocka_unit_test(test_dsl_scopes_m06_manual_submit_untouched),
    cmocka_unit_test(test_dsl_scopes_m07_for_body_one_manual_scope),
    cmocka_unit_test(test_dsl_scopes_m08_while_never_wrapped),
    cmocka_unit_test(test_dsl_scopes_m09_idempotent_round_trip),
    cmocka_unit_test(test_dsl_scopes_m10_opt_out_adds_nothing),
    cmocka_unit_test(test_dsl_scopes_m11_kernel_loops_get_no_scopes),
    cmocka_unit_test(test_dsl_scopes_m12_opaque_wrapped_under_its_own_flag),
    cmocka_unit_test(test_dsl_scopes_m13_grouping_at_adds_no_depth),
    cmocka_unit_test(test_dsl_scopes_v01_skipped_pass_on_default),
    cmocka_unit_test(test_dsl_scopes_v02_skipped_pass_on_opt_out),
    cmocka_unit_test(test_dsl_scopes_v04_created_tensor_escapes_loop),
    cmocka_unit_test(test_dsl_scopes_v03_inlined_auto_in_manual),
    cmocka_unit_test(test_dsl_scopes_d04_inline_hand_scope_lands_in_caller),
    cmocka_unit_test(test_dsl_scopes_rings_seed_examples),
    cmocka_unit_test(test_dsl_scopes_rings_nesting_examples),
    cmocka_unit_test(test_dsl_scopes_e03_orch_before_and_after_agree),
    cmocka_unit_test(test_dsl_scopes_e03_orch_golden_becomes),
};

PTO_TEST_MAIN(tests)
