/*
 * test_dsl_cache.c - cache policy end to end, from DSL text through every
 * stage (docs/dsl.md, "Cache policy"):
 * where pl.set_cache_policy may stand, its argument errors, the pass errors,
 * the per-load precedence as printed (`cache=` on every load) and the
 * CacheBypassUnsupported warning.  Lowered programs also pass the round
 * trip (dsl_lower).
 */
#include <stdlib.h>

#include "harness.h"
#include "dsl_compile.h"
#include "dsl_text.h"

#define HDR "import pypto.language as pl\n\n"
/* entry f; BODY is the body of one CORE_GROUP pl.at (indented 8), from line 6 */
#define CG(body)                                                                         \
    HDR "@pl.jit\ndef f(a: pl.Tensor, w: pl.Tensor, out: pl.Out[pl.Tensor]):\n"          \
        "    with pl.at(level=pl.Level.CORE_GROUP):\n" body "    return out\n"
#define LA "        t = pl.load(a, [0, 0], [64, 128])\n"
#define LW "        u = pl.load(w, [0, 0], [64, 128])\n"
#define LW2 "        v = pl.load(w, [64, 0], [64, 128])\n"
#define ST "        pl.store(pl.add(t, pl.add(u, v)), [0, 0], out)\n"
#define POL(t, p) "        pl.set_cache_policy(" t ", pl.CachePolicy." p ")\n"
#define BYPASS "cache=pl.CachePolicy.BYPASS)"
#define DEFAULT "cache=pl.CachePolicy.DEFAULT)"

static const size_t NARGS = sizeof dsl_default_args / sizeof dsl_default_args[0];

static pto_program *lower(const char *src) { return dsl_lower_with(src, "f", dsl_default_args, NARGS); }

static size_t warnings(const pto_program *p)
{
    size_t n = 0;
    for (size_t k = 0; k < pto_program_diag_count(p); k++) n += pto_program_diag(p, k)->is_warning != 0;
    return n;
}

/* Warning number i (among warnings). */
static const pto_diagnostic *warning(const pto_program *p, size_t i)
{
    for (size_t k = 0; k < pto_program_diag_count(p); k++)
        if (pto_program_diag(p, k)->is_warning && !i--) return pto_program_diag(p, k);
    fail();
    return NULL;
}

/* The line of the outlined kernel that loads from `tensor` at `offsets`. */
static void expect_load(const char *text, const char *tensor_offsets, const char *policy)
{
    char want[256];
    snprintf(want, sizeof want, "pl.load(%s, [64, 128], %s", tensor_offsets, policy);
    if (!strstr(text, want)) fprintf(stderr, "no \"%s\" in:\n%s\n", want, text);
    assert_non_null(strstr(text, want));
}

static void test_dsl_cache_k01_marker_first(void **s)
{
    (void)s;
    const char *src = CG(POL("w", "BYPASS") LA LW LW2 ST);
    pto_program *p = lower(src);
    const char *text = pto_program_text(p);
    char *k = dsl_method(text, "f_incore_0", 0);
    assert_null(strstr(text, "set_cache_policy"));
    expect_load(k, "w, [0, 0]", BYPASS);
    expect_load(k, "w, [64, 0]", BYPASS);
    expect_load(k, "a, [0, 0]", DEFAULT);
    free(k);
    pto_program_free(p);
    /* as_python(): the marker first in the body; reparse prints the same */
    p = dsl_compile(src, "f", PTO_STAGE_PARSE);
    dsl_expect_ok(p);
    assert_non_null(strstr(pto_program_text(p), "        with pl.at(level=pl.Level.CORE_GROUP):\n"
                                                "            pl.set_cache_policy(w, pl.CachePolicy.BYPASS)\n"
                                                "            t = pl.load(a, [0, 0], [64, 128])\n"));
    dsl_expect_roundtrip_at(p, PTO_STAGE_PARSE, dsl_default_args, NARGS);
    pto_program_free(p);
}

static void test_dsl_cache_k02_marker_anywhere_and_order(void **s)
{
    (void)s;
    pto_program *first = lower(CG(POL("w", "BYPASS") LA LW LW2 ST));
    pto_program *later = lower(CG(LA LW POL("w", "BYPASS") LW2 ST));
    assert_string_equal(pto_program_text(later), pto_program_text(first));
    pto_program_free(first);
    pto_program_free(later);
    /* two declarations: both kept, in written order */
    const char *src = CG(LA POL("w", "BYPASS") LW POL("a", "DEFAULT") LW2 ST);
    pto_program *p = dsl_compile(src, "f", PTO_STAGE_PARSE);
    dsl_expect_ok(p);
    assert_non_null(strstr(pto_program_text(p), "            pl.set_cache_policy(w, pl.CachePolicy.BYPASS)\n"
                                                "            pl.set_cache_policy(a, pl.CachePolicy.DEFAULT)\n"));
    dsl_expect_roundtrip_at(p, PTO_STAGE_PARSE, dsl_default_args, NARGS);
    pto_program_free(p);
    p = lower(src);
    expect_load(pto_program_text(p), "a, [0, 0]", DEFAULT);
    expect_load(pto_program_text(p), "w, [64, 0]", BYPASS);
    pto_program_free(p);
}

static void test_dsl_cache_k03_duplicates_and_conflicts(void **s)
{
    (void)s;
    pto_program *p = dsl_compile(CG(POL("w", "BYPASS") LA LW POL("w", "BYPASS") LW2 ST), "f", PTO_STAGE_PARSE);
    dsl_expect_ok(p);
    assert_int_equal(dsl_count(pto_program_text(p), "set_cache_policy"), 1);
    pto_program_free(p);
    DSL_ERROR(CG(POL("w", "BYPASS") LA LW POL("w", "DEFAULT") LW2 ST), "f", "ParserSyntaxError",
              "pl.set_cache_policy() declares conflicting policies for 'w' (BYPASS at line 6, DEFAULT at line 9)", 9, 0);
}

static void test_dsl_cache_k04_tensor_namespace_spelling(void **s)
{
    (void)s;
    const char *src = CG("        pl.tensor.set_cache_policy(w, pl.CachePolicy.BYPASS)\n" LA LW LW2 ST);
    pto_program *p = dsl_compile(src, "f", PTO_STAGE_PARSE);
    dsl_expect_ok(p);
    assert_non_null(strstr(pto_program_text(p), "            pl.set_cache_policy(w, pl.CachePolicy.BYPASS)\n"));
    assert_null(strstr(pto_program_text(p), "pl.tensor."));
    pto_program_free(p);
    pto_program *a = lower(src), *b = lower(CG(POL("w", "BYPASS") LA LW LW2 ST));
    assert_string_equal(pto_program_text(a), pto_program_text(b));
    pto_program_free(a);
    pto_program_free(b);
}

#define STANDALONE "pl.set_cache_policy() must be a standalone statement directly inside a pl.at(...) / pl.spmd(...) scope body"

static void test_dsl_cache_k05_placement(void **s)
{
    (void)s;
    DSL_ERROR(CG(LA "        if 1 > 0:\n    " POL("w", "BYPASS") LW LW2 ST), "f", "ParserSyntaxError", STANDALONE, 8, 13);
    DSL_ERROR(CG(LA "        for i in pl.range(2):\n    " POL("w", "BYPASS") LW LW2 ST), "f", "ParserSyntaxError", STANDALONE, 8, 13);
    DSL_ERROR(HDR "@pl.jit\ndef f(a: pl.Tensor, w: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                  "    pl.set_cache_policy(w, pl.CachePolicy.BYPASS)\n    return out\n",
              "f", "ParserSyntaxError", STANDALONE, 5, 5);
    DSL_ERROR(CG("        x = pl.set_cache_policy(w, pl.CachePolicy.BYPASS)\n" LA LW LW2 ST), "f", "ParserSyntaxError", STANDALONE, 6, 0);
    /* the top of an InCore function: with the hint to use cache= */
    pto_program *p = dsl_compile(HDR "@pl.jit.incore\ndef k(w: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                                     "    pl.set_cache_policy(w, pl.CachePolicy.BYPASS)\n"
                                     "    pl.store(pl.load(w, [0, 0], [64, 128]), [0, 0], out)\n    return out\n\n"
                                     "@pl.jit\ndef f(w: pl.Tensor, out: pl.Out[pl.Tensor]):\n    out = k(w, out)\n    return out\n",
                                 "f", PTO_STAGE_ALL);
    const pto_diagnostic *d = dsl_expect_error(p, "ParserSyntaxError", STANDALONE, 5, 5);
    assert_non_null(d->hint);
    assert_non_null(strstr(d->hint, "cache="));
    pto_program_free(p);
    /* inside a runtime scope */
    DSL_ERROR(HDR "@pl.jit(auto_scope=False)\ndef f(a: pl.Tensor, w: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                  "    with pl.scope():\n        pl.set_cache_policy(w, pl.CachePolicy.BYPASS)\n    return out\n",
              "f", "ParserSyntaxError", "pl.set_cache_policy() has nothing to attach to on this Runtime scope", 6, 9);
    DSL_ERROR(HDR "@pl.jit\ndef f(a: pl.Tensor, w: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                  "    with pl.manual_scope():\n        pl.set_cache_policy(w, pl.CachePolicy.BYPASS)\n    return out\n",
              "f", "ParserSyntaxError", "pl.set_cache_policy() has nothing to attach to on this Runtime scope", 6, 9);
}

#define TWO "pl.set_cache_policy() takes exactly two positional arguments (no keywords)"
#define BARE "pl.set_cache_policy() first argument must be a bare variable name"

static void test_dsl_cache_k06_argument_errors(void **s)
{
    (void)s;
    DSL_ERROR(CG("        pl.set_cache_policy(w)\n" LA LW LW2 ST), "f", "ParserSyntaxError", TWO, 6, 0);
    DSL_ERROR(CG("        pl.set_cache_policy(w, pl.CachePolicy.BYPASS, 1)\n" LA LW LW2 ST), "f", "ParserSyntaxError", TWO, 6, 0);
    DSL_ERROR(CG("        pl.set_cache_policy(w, policy=pl.CachePolicy.BYPASS)\n" LA LW LW2 ST), "f", "ParserSyntaxError", TWO, 6, 0);
    DSL_ERROR(CG("        pl.set_cache_policy(w.x, pl.CachePolicy.BYPASS)\n" LA LW LW2 ST), "f", "ParserSyntaxError", BARE, 6, 0);
    DSL_ERROR(CG("        pl.set_cache_policy(w[0], pl.CachePolicy.BYPASS)\n" LA LW LW2 ST), "f", "ParserSyntaxError", BARE, 6, 0);
    DSL_ERROR(CG("        pl.set_cache_policy(f(w), pl.CachePolicy.BYPASS)\n" LA LW LW2 ST), "f", "ParserSyntaxError", BARE, 6, 0);
    DSL_ERROR(CG("        pl.set_cache_policy(zz, pl.CachePolicy.BYPASS)\n" LA LW LW2 ST), "f", "ParserSyntaxError",
              "pl.set_cache_policy() argument 'zz' is not defined at this point", 6, 0);
    DSL_ERROR(CG(LA LW LW2 "        pl.set_cache_policy(u, pl.CachePolicy.BYPASS)\n" ST), "f", "ParserSyntaxError",
              "pl.set_cache_policy() argument 'u' is not defined at this point", 9, 0);
    pto_arg_spec args[] = {dsl_default_args[0], dsl_default_args[1], dsl_default_args[2],
                           {.name = "n", .kind = PTO_ARG_SCALAR, .value = {.kind = PTO_VALUE_INT, .i = 3}}};
    pto_program *p = dsl_compile_with(HDR "@pl.jit\ndef f(a: pl.Tensor, w: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar):\n"
                                          "    with pl.at(level=pl.Level.CORE_GROUP):\n" POL("n", "BYPASS") LA LW LW2 ST "    return out\n",
                                      "f", PTO_STAGE_ALL, 0, args, 4);
    dsl_expect_error(p, "ParserTypeError", "pl.set_cache_policy() argument 'n' is not a tensor", 6, 0);
    pto_program_free(p);
    DSL_ERROR(CG("        pl.set_cache_policy(w, 1)\n" LA LW LW2 ST), "f", "ParserSyntaxError",
              "pl.set_cache_policy() second argument must be pl.CachePolicy.DEFAULT or pl.CachePolicy.BYPASS", 6, 0);
}

static void test_dsl_cache_k07_declared_not_captured(void **s)
{
    (void)s;
    DSL_ERROR(CG(POL("w", "BYPASS") LA "        pl.store(t, [0, 0], out)\n"), "f", "PassError",
              "pl.set_cache_policy(...) references tensor 'w', which is not captured by the scope body", 6, 0);
}

static void test_dsl_cache_k08_bypass_on_written_tensor(void **s)
{
    (void)s;
    DSL_ERROR(CG(POL("out", "BYPASS") LA LW LW2 ST), "f", "PassError",
              "pl.set_cache_policy(out, CachePolicy.BYPASS) is not allowed on a tensor this scope writes (Out). A bypassing read "
              "of bytes the same kernel writes is a coherency bug.",
              6, 0);
    DSL_ERROR(CG(POL("out", "BYPASS") LA "        u = pl.load(out, [0, 0], [64, 128])\n        pl.store(pl.add(t, u), [0, 0], out)\n"),
              "f", "PassError", "pl.set_cache_policy(out, CachePolicy.BYPASS) is not allowed on a tensor this scope writes (InOut).", 6, 0);
    pto_program *p = lower(CG(POL("out", "DEFAULT") LA "        u = pl.load(out, [0, 0], [64, 128])\n"
                                                      "        pl.store(pl.add(t, u), [0, 0], out)\n"));
    assert_int_equal(warnings(p), 0);
    pto_program_free(p);
    /* an explicit cache=BYPASS load of a tensor the same InCore function writes */
    DSL_ERROR(HDR "@pl.jit.incore\ndef k(a: pl.Tensor, out: pl.InOut[pl.Tensor]):\n"
                  "    t = pl.load(out, [0, 0], [64, 128], cache=pl.CachePolicy.BYPASS)\n"
                  "    pl.store(pl.add(t, pl.load(a, [0, 0], [64, 128])), [0, 0], out)\n    return out\n\n"
                  "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n    out = k(a, out)\n    return out\n",
              "f", "PassError",
              "pl.load(..., cache=pl.CachePolicy.BYPASS) reads 'out', which this kernel also writes (InOut); a bypassing read of "
              "written bytes is a coherency bug",
              5, 0);
}

static void test_dsl_cache_k09_precedence(void **s)
{
    (void)s;
    pto_program *p = lower(CG(POL("w", "BYPASS") LA LW "        v = pl.load(w, [64, 0], [64, 128], cache=pl.CachePolicy.DEFAULT)\n" ST));
    expect_load(pto_program_text(p), "w, [0, 0]", BYPASS);
    expect_load(pto_program_text(p), "w, [64, 0]", DEFAULT);
    assert_int_equal(warnings(p), 1);
    pto_program_free(p);
    p = lower(CG(POL("w", "DEFAULT") LA LW "        v = pl.load(w, [64, 0], [64, 128], cache=pl.CachePolicy.BYPASS)\n" ST));
    expect_load(pto_program_text(p), "w, [0, 0]", DEFAULT);
    expect_load(pto_program_text(p), "w, [64, 0]", BYPASS);
    expect_load(pto_program_text(p), "a, [0, 0]", DEFAULT);
    assert_int_equal(warnings(p), 1);
    pto_program_free(p);
}

#define WARN "[CacheBypassUnsupported] tensor '%s' requests CachePolicy.BYPASS, but this backend has no cache-bypass path yet; compiling " \
             "as an ordinary cached access at k.py:%d"

static void expect_warning(const pto_program *p, size_t i, const char *tensor, int line, int col)
{
    char want[512];
    snprintf(want, sizeof want, WARN, tensor, line);
    const pto_diagnostic *d = warning(p, i);
    assert_string_equal(d->cls, "CompileWarning");
    assert_string_equal(d->message, want);
    assert_string_equal(d->filename, "k.py");
    assert_int_equal(d->line, line);
    if (col) assert_int_equal(d->column, col);
}

static void test_dsl_cache_k10_one_warning_per_kernel_and_tensor(void **s)
{
    (void)s;
    /* one BYPASS tensor loaded twice: one warning, citing the first load */
    const char *src = CG(LA LW LW2 POL("w", "BYPASS") ST);
    for (int round = 0; round < 2; round++) { /* each compile is a compilation */
        pto_program *p = lower(src);
        assert_int_equal(warnings(p), 1);
        expect_warning(p, 0, "w", 7, 13);
        pto_program_free(p);
    }
    /* two BYPASS tensors: two, in source order of their first loads */
    pto_program *p = lower(CG(POL("w", "BYPASS") POL("a", "BYPASS") LW LA LW2 ST));
    assert_int_equal(warnings(p), 2);
    expect_warning(p, 0, "w", 8, 0);
    expect_warning(p, 1, "a", 9, 0);
    pto_program_free(p);
    /* none */
    p = lower(CG(POL("w", "DEFAULT") LA LW LW2 ST));
    assert_int_equal(warnings(p), 0);
    pto_program_free(p);
    /* per kernel: the same tensor bypassed in two regions warns twice */
    p = lower(HDR "@pl.jit\ndef f(a: pl.Tensor, w: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                  "    with pl.at(level=pl.Level.CORE_GROUP):\n" POL("w", "BYPASS") LA LW LW2 ST
                  "    with pl.at(level=pl.Level.CORE_GROUP):\n" POL("w", "BYPASS") LA LW LW2 ST "    return out\n");
    assert_int_equal(warnings(p), 2);
    expect_warning(p, 0, "w", 8, 0);
    expect_warning(p, 1, "w", 14, 0);
    pto_program_free(p);
    /* an explicit cache= load in a @pl.jit.incore kernel cites that load */
    p = lower(HDR "@pl.jit.incore\ndef k(w: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                  "    t = pl.load(w, [0, 0], [64, 128])\n    u = pl.load(w, [64, 0], [64, 128], cache=pl.CachePolicy.BYPASS)\n"
                  "    pl.store(pl.add(t, u), [0, 0], out)\n    return out\n\n"
                  "@pl.jit\ndef f(w: pl.Tensor, out: pl.Out[pl.Tensor]):\n    out = k(w, out)\n    return out\n");
    assert_int_equal(warnings(p), 1);
    expect_warning(p, 0, "w", 6, 9);
    pto_program_free(p);
}

static void test_dsl_cache_k11_grouping_level_marker_has_no_effect(void **s)
{
    (void)s;
    const char *src = HDR "@pl.jit\ndef f(a: pl.Tensor, w: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                          "    with pl.at(level=pl.Level.CHIP):\n" POL("w", "BYPASS")
                          "        with pl.at(level=pl.Level.CORE_GROUP):\n"
                          "            u = pl.load(w, [0, 0], [64, 128])\n            pl.store(u, [0, 0], out)\n"
                          "    return out\n";
    pto_program *p = dsl_compile(src, "f", PTO_STAGE_PARSE);
    dsl_expect_ok(p);
    assert_non_null(strstr(pto_program_text(p), "        with pl.at(level=pl.Level.CHIP):\n"
                                                "            pl.set_cache_policy(w, pl.CachePolicy.BYPASS)\n"));
    pto_program_free(p);
    p = lower(src);
    assert_non_null(strstr(pto_program_text(p), "with pl.at(level=pl.Level.CHIP):\n"
                                                "                pl.set_cache_policy(w, pl.CachePolicy.BYPASS)\n"));
    expect_load(pto_program_text(p), "w, [0, 0]", DEFAULT);
    assert_int_equal(warnings(p), 0);
    pto_program_free(p);
}

static void test_dsl_cache_k12_seed_fragment(void **s)
{
    (void)s;
    static const pto_arg_spec args[] = {
        {.name = "activations", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {64, 128}},
        {.name = "weights", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {128, 128}},
        {.name = "out", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {64, 128}},
    };
    pto_program *p = dsl_lower_with(HDR "@pl.jit\ndef f(activations: pl.Tensor, weights: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                                        "    with pl.at(level=pl.Level.CORE_GROUP):\n"
                                        "        pl.set_cache_policy(weights, pl.CachePolicy.BYPASS)\n"
                                        "        # every read of `weights` in this scope is now declared streaming;\n"
                                        "        # the activations keep the default cached path.\n"
                                        "        acc = pl.matmul(activations, weights, out_dtype=pl.FP32)\n"
                                        "        pl.store(acc, [0, 0], out)\n    return out\n",
                                    "f", args, 3);
    const char *text = pto_program_text(p);
    assert_non_null(strstr(text, "pl.load(activations, [0, 0], [64, 128], " DEFAULT));
    assert_non_null(strstr(text, "pl.load(weights, [0, 0], [128, 128], " BYPASS));
    assert_int_equal(warnings(p), 1);
    expect_warning(p, 0, "weights", 9, 0);
    pto_program_free(p);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_dsl_cache_k01_marker_first),
    cmocka_unit_test(test_dsl_cache_k02_marker_anywhere_and_order),
    cmocka_unit_test(test_dsl_cache_k03_duplicates_and_conflicts),
    cmocka_unit_test(test_dsl_cache_k04_tensor_namespace_spelling),
    cmocka_unit_test(test_dsl_cache_k05_placement),
    cmocka_unit_test(test_dsl_cache_k06_argument_errors),
    cmocka_unit_test(test_dsl_cache_k07_declared_not_captured),
    cmocka_unit_test(test_dsl_cache_k08_bypass_on_written_tensor),
    cmocka_unit_test(test_dsl_cache_k09_precedence),
    cmocka_unit_test(test_dsl_cache_k10_one_warning_per_kernel_and_tensor),
    cmocka_unit_test(test_dsl_cache_k11_grouping_level_marker_has_no_effect),
    cmocka_unit_test(test_dsl_cache_k12_seed_fragment),
};

PTO_TEST_MAIN(tests)
