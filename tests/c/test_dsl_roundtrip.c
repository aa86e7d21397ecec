/*
 * test_dsl_roundtrip.c - the printer's round-trip law over the corpus
 * (docs/dsl.md, "What the compiler does"): the post-pass text compiled again is byte-identical,
 * and so is the pre-pass (after parse) text; the text as written (after
 * syntax) is the same program; and the compiler's
 * robustness: every prefix and thousands of random mutations of each
 * corpus program compile to a result or to diagnostics, never a crash or
 * a hang (the sanitizer builds run this too); the nesting limits hold at
 * the limit and one past it, and very deep input is an error.
 */
#include <stdlib.h>

#include "harness.h"
#include "dsl_compile.h"
#include "dsl_corpus.h"

#define ARGS dsl_default_args, sizeof dsl_default_args / sizeof dsl_default_args[0]

/* The program's printed class name and its first method (the entry). */
static void printed_entry(const char *text, char *cls, char *fn, size_t cap)
{
    const char *c = strstr(text, "\nclass "), *d = strstr(text, "    def ");
    assert_non_null(c);
    assert_non_null(d);
    c += 7, d += 8;
    size_t n = strcspn(c, ":");
    assert_true(n < cap);
    memcpy(cls, c, n), cls[n] = 0;
    n = strcspn(d, "(");
    assert_true(n < cap);
    memcpy(fn, d, n), fn[n] = 0;
}

/* Compiles text (the printed form) through its class and entry method. */
static pto_program *recompile(const char *text, int stop)
{
    char cls[128], fn[128];
    printed_entry(text, cls, fn, sizeof cls);
    pto_compile_options o = {.filename = "printed.py", .source = text, .source_len = strlen(text), .entry = cls,
                             .function = fn, .args = dsl_default_args, .nargs = 3, .stop_after = stop};
    pto_program *p;
    assert_true(pto_compile(&o, &p) >= 0);
    return p;
}

static void roundtrip(int stop)
{
    for (size_t k = 0; k < DSL_CORPUS_N; k++) {
        pto_program *a = dsl_compile_with(dsl_corpus[k].text, dsl_corpus[k].entry, stop, 0, ARGS);
        dsl_expect_ok(a);
        pto_program *b = recompile(pto_program_text(a), stop);
        dsl_expect_ok(b);
        if (strcmp(pto_program_text(a), pto_program_text(b)))
            fprintf(stderr, "%s:\n%s\n---\n%s\n", dsl_corpus[k].name, pto_program_text(a), pto_program_text(b));
        assert_string_equal(pto_program_text(a), pto_program_text(b));
        pto_program_free(a);
        pto_program_free(b);
    }
}

static void test_roundtrip_post_pass_text_is_a_fixpoint(void **s)
{
    (void)s;
    roundtrip(PTO_STAGE_ALL);
}

static void test_roundtrip_pre_pass_text_is_a_fixpoint(void **s)
{
    (void)s;
    roundtrip(PTO_STAGE_PARSE);
}

/* The program as written (SYNTAX: no argument specs) parses back to the
 * same text, and compiles through every stage to what its source does:
 * parse_program(P.as_python()) is P. */
static void test_roundtrip_as_written_text_is_the_same_program(void **s)
{
    (void)s;
    for (size_t k = 0; k < DSL_CORPUS_N; k++) {
        pto_program *w = dsl_compile_with(dsl_corpus[k].text, dsl_corpus[k].entry, PTO_STAGE_SYNTAX, 0, NULL, 0);
        dsl_expect_ok(w);
        const char *written = pto_program_text(w);
        pto_program *again = dsl_compile_with(written, dsl_corpus[k].entry, PTO_STAGE_SYNTAX, 0, NULL, 0);
        dsl_expect_ok(again);
        assert_string_equal(pto_program_text(again), written);
        pto_program *a = dsl_compile_with(dsl_corpus[k].text, dsl_corpus[k].entry, PTO_STAGE_ALL, 0, ARGS);
        pto_program *b = dsl_compile_with(written, dsl_corpus[k].entry, PTO_STAGE_ALL, 0, ARGS);
        dsl_expect_ok(b);
        if (strcmp(pto_program_text(a), pto_program_text(b))) fprintf(stderr, "%s:\n%s\n", dsl_corpus[k].name, written);
        assert_string_equal(pto_program_text(b), pto_program_text(a));
        pto_program_free(a);
        pto_program_free(b);
        pto_program_free(again);
        pto_program_free(w);
    }
}

/* Every stage's text parses back to the same text at that stage. */
static void test_roundtrip_every_stage_text_reparses(void **s)
{
    (void)s;
    for (int stage = PTO_STAGE_PARSE; stage < PTO_STAGE_LOWER; stage++) {
        pto_program *a = dsl_compile_with(dsl_seed_script, "manual_placement", stage, 0, ARGS);
        dsl_expect_ok(a);
        pto_program *b = recompile(pto_program_text(a), PTO_STAGE_ALL);
        dsl_expect_ok(b);
        pto_program_free(a);
        pto_program_free(b);
    }
}

/* Compiles input number iter of the robustness run of program k. */
static void robust_one(const dsl_program *prog, char *buf, size_t len, size_t iter, uint64_t *seed)
{
    size_t n = dsl_mutant(buf, prog->text, len, iter, seed);
    pto_compile_options o = {.filename = "m.py", .source = buf, .source_len = n, .entry = prog->entry, .args = dsl_default_args,
                             .nargs = 3};
    pto_program *p = NULL;
    int rc = pto_compile(&o, &p);
    assert_true(rc == 0 || rc == 1);
    char msg[512];
    for (size_t d = 0; d < pto_program_diag_count(p); d++) {
        const pto_diagnostic *x = pto_program_diag(p, d);
        assert_true(x->line >= 1 && x->column >= 1);
        assert_true(pto_program_diag_format(p, d, msg, sizeof msg) > 0);
        assert_null(strstr(x->message, "internal compiler error"));
    }
    if (rc == 0) assert_true(strlen(pto_program_text(p)) > 0);
    pto_program_free(p);
}

static void test_robust_prefixes_and_mutations_compile_or_diagnose(void **s)
{
    (void)s;
    uint64_t seed = 0x5eed;
    for (size_t k = 0; k < DSL_CORPUS_N; k++) {
        size_t len = strlen(dsl_corpus[k].text);
        char *buf = malloc(len + 1);
        assert_non_null(buf);
        for (size_t iter = 0; iter < len + 2000; iter++) robust_one(&dsl_corpus[k], buf, len, iter, &seed);
        free(buf);
    }
}

/* A program whose entry reads `x = ` + pre + k copies of unit + post +
 * k copies of close (close may be ""): one deep expression on line 5. */
static char *deep_program(const char *pre, const char *unit, size_t k, const char *post, const char *close)
{
    const char *head = "import pypto.language as pl\n\n@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n    x = ";
    size_t n = strlen(head) + strlen(pre) + k * (strlen(unit) + strlen(close)) + strlen(post) + 32;
    char *s = malloc(n), *w = s;
    assert_non_null(s);
    w += sprintf(w, "%s%s", head, pre);
    for (size_t i = 0; i < k; i++) w += sprintf(w, "%s", unit);
    w += sprintf(w, "%s", post);
    for (size_t i = 0; i < k; i++) w += sprintf(w, "%s", close);
    sprintf(w, "\n    return out\n");
    return s;
}

/* The three deep forms: unary minus, a left-deep operator chain, nested
 * parentheses (which group: they add no level to the tree). */
static const struct { const char *pre, *unit, *post, *close; size_t at; } deep_forms[] = {
    {"", "-", "1", "", 199},   /* 199 signs + the literal: 200 levels */
    {"1", " + 1", "", "", 199}, /* 200 terms */
    {"", "(", "1", ")", 200},
};

/* Expressions nest at most 200 levels (CC_MAX_EXPR_DEPTH): each deep form
 * at the limit compiles; one more level is an error at the expression. */
static void test_robust_expression_depth_limit_at_200(void **s)
{
    (void)s;
    for (int f = 0; f < 3; f++)
        for (size_t k = deep_forms[f].at; k <= deep_forms[f].at + 1; k++) {
            char *src = deep_program(deep_forms[f].pre, deep_forms[f].unit, k, deep_forms[f].post, deep_forms[f].close);
            pto_program *p = dsl_compile(src, "f", PTO_STAGE_ALL);
            if (k == deep_forms[f].at) dsl_expect_ok(p);
            else dsl_expect_error(p, "ParserSyntaxError", f == 2 ? "too many nested parentheses" : "expression nests too deeply (more than 200 levels)", 5, 0);
            pto_program_free(p);
            free(src);
        }
}

/* 100,000 levels of parentheses, of unary minus, of an operator chain,
 * and 3,000 levels of indentation: a few errors (at most 50, then one line
 * saying it stopped), never a crash. */
static void test_robust_very_deep_input_is_an_error_not_a_crash(void **s)
{
    (void)s;
    for (int f = 0; f < 3; f++) {
        char *src = deep_program(deep_forms[f].pre, deep_forms[f].unit, 100000, deep_forms[f].post, deep_forms[f].close);
        pto_program *p = dsl_compile(src, "f", PTO_STAGE_ALL);
        assert_true(pto_program_diag_count(p) >= 1 && pto_program_diag_count(p) <= 3);
        pto_program_free(p);
        free(src);
    }
    size_t n = 200 + 4 * 3001 + 16;
    for (int d = 1; d <= 3000; d++) n += 4 * (size_t)d + 10;
    char *src = malloc(n), *w = src;
    assert_non_null(src);
    w += sprintf(w, "import pypto.language as pl\n\n@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n");
    for (int d = 1; d <= 3000; d++) w += sprintf(w, "%*sif 1 > 0:\n", 4 * d, "");
    sprintf(w, "%*sx = 1\n    return out\n", 4 * 3001, "");
    pto_program *p = dsl_compile(src, "f", PTO_STAGE_ALL);
    assert_int_equal(pto_program_diag_count(p), 51);
    assert_string_equal(pto_program_diag(p, 0)->message, "too many levels of indentation");
    assert_string_equal(pto_program_diag(p, 50)->message, "too many errors (50); stopping here");
    pto_program_free(p);
    free(src);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_roundtrip_post_pass_text_is_a_fixpoint),
    cmocka_unit_test(test_roundtrip_pre_pass_text_is_a_fixpoint),
    cmocka_unit_test(test_roundtrip_as_written_text_is_the_same_program),
    cmocka_unit_test(test_roundtrip_every_stage_text_reparses),
    cmocka_unit_test(test_robust_prefixes_and_mutations_compile_or_diagnose),
    cmocka_unit_test(test_robust_expression_depth_limit_at_200),
    cmocka_unit_test(test_robust_very_deep_input_is_an_error_not_a_crash),
};

PTO_TEST_MAIN(tests)
