/*
 * test_lexer.c - the DSL's tokens (src/compiler/lexer.c) and how a
 * diagnostic prints: Python's indentation and line-joining rules, numbers,
 * strings, operators, spans, the errors bad input gets, and that no input
 * crashes or hangs the lexer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/lexer.h"
#include "dsl_examples.h"
#include "harness.h"

typedef struct lexed {
    cc_source src;
    cc_diags diags;
    cc_tokens toks;
} lexed;

static void lex(lexed *l, const char *text)
{
    assert_int_equal(cc_source_init(&l->src, "k.py", text, strlen(text)), 0);
    cc_diags_init(&l->diags, &l->src);
    assert_int_equal(cc_lex(&l->src, &l->diags, &l->toks), 0);
}

static void lexed_free(lexed *l)
{
    cc_tokens_free(&l->toks);
    cc_diags_free(&l->diags);
    cc_source_free(&l->src);
}

/* The kinds, as their texts joined by spaces ("name ( ) newline ..."). */
static const char *kinds(const lexed *l)
{
    static char buf[4096];
    size_t n = 0;
    buf[0] = 0;
    for (uint32_t i = 0; i < l->toks.n && n < sizeof buf - 32; i++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", i ? " " : "", cc_token_kind_text(l->toks.items[i].kind));
    return buf;
}

static void expect_kinds(const char *text, const char *want)
{
    lexed l;
    lex(&l, text);
    if (strcmp(kinds(&l), want) != 0) print_error("text:\n%s\ngot:  %s\nwant: %s\n", text, kinds(&l), want);
    assert_string_equal(kinds(&l), want);
    assert_int_equal(l.diags.n, 0);
    lexed_free(&l);
}

/* Lexes text expecting exactly one diagnostic with message msg at line:col. */
static void expect_error(const char *text, const char *msg, uint32_t line, uint32_t col)
{
    lexed l;
    lex(&l, text);
    if (l.diags.n != 1 || strcmp(l.diags.items[0].message, msg) != 0)
        print_error("text:\n%s\n%zu diagnostics, first: %s\nwant: %s\n", text, l.diags.n,
                    l.diags.n ? l.diags.items[0].message : "-", msg);
    assert_int_equal(l.diags.n, 1);
    assert_string_equal(l.diags.items[0].message, msg);
    assert_int_equal(l.diags.items[0].span.line, line);
    assert_int_equal(l.diags.items[0].span.col, col);
    assert_int_equal(l.toks.items[l.toks.n - 1].kind, CC_TOK_EOF);
    lexed_free(&l);
}

static void test_lexer_indent_and_dedent(void **state)
{
    (void)state;
    expect_kinds("def f():\n    x = 1\n\n    # note\n        \n    if x:\n        y\nz\n",
                 "name name ( ) : newline indent name = integer newline name name : newline indent name "
                 "newline dedent dedent name newline end of file");
    /* blocks still open at the end close there; a missing final newline is supplied */
    expect_kinds("a:\n  b:\n    c", "name : newline indent name : newline indent name newline dedent dedent end of file");
    /* a tab advances to the next multiple of 8 */
    expect_kinds("a:\n\tb\n        c\n", "name : newline indent name newline name newline dedent end of file");
}

static void test_lexer_brackets_join_lines(void **state)
{
    (void)state;
    expect_kinds("f(a,\n  b,\n\n    c)\nd\n", "name ( name , name , name ) newline name newline end of file");
    expect_kinds("x = [1,\n# a comment inside\n 2]\n", "name = [ integer , integer ] newline end of file");
}

static void test_lexer_backslash_continues_a_line(void **state)
{
    (void)state;
    expect_kinds("x = 1 + \\\n    2\n", "name = integer + integer newline end of file");
    expect_error("x = 1 \\ 2\n", "unexpected character after line continuation character", 1, 7);
}

static void test_lexer_numbers(void **state)
{
    (void)state;
    static const struct { const char *text; int is_float; int64_t i; double f; } cases[] = {
        {"0", 0, 0, 0}, {"42", 0, 42, 0}, {"1_000_000", 0, 1000000, 0}, {"0x1F", 0, 31, 0},
        {"0o17", 0, 15, 0}, {"0b101", 0, 5, 0}, {"9223372036854775807", 0, INT64_MAX, 0},
        {"2.0", 1, 0, 2.0}, {".5", 1, 0, 0.5}, {"1e-3", 1, 0, 1e-3}, {"1_0.2_5", 1, 0, 10.25},
        {"3.", 1, 0, 3.0}, {"6E+2", 1, 0, 600.0}, {"000", 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        lexed l;
        lex(&l, cases[i].text);
        assert_int_equal(l.diags.n, 0);
        const cc_token *t = &l.toks.items[0];
        assert_int_equal(t->kind, cases[i].is_float ? CC_TOK_FLOAT : CC_TOK_INT);
        if (cases[i].is_float) assert_true(t->value.f == cases[i].f);
        else assert_true(t->value.i == cases[i].i);
        assert_int_equal(t->len, strlen(cases[i].text));
        lexed_free(&l);
    }
}

static void test_lexer_bad_numbers(void **state)
{
    (void)state;
    expect_error("x = 9223372036854775808\n", "integer literal does not fit in 64 bits", 1, 5);
    expect_error("x = 012\n", "leading zeros in decimal integer literals are not permitted", 1, 5);
    expect_error("x = 12abc\n", "invalid number literal", 1, 5);
    expect_error("x = 1j\n", "complex literals are not supported in this version", 1, 5);
}

static void test_lexer_strings(void **state)
{
    (void)state;
    static const struct { const char *text, *value; } cases[] = {
        {"'abc'", "abc"}, {"\"a'b\"", "a'b"}, {"'a\\'b'", "a'b"}, {"'a\\nb'", "a\nb"},
        {"r'a\\nb'", "a\\nb"}, {"\"\"\"doc\nstring\"\"\"", "doc\nstring"}, {"''", ""},
        {"'tab\\there'", "tab\there"}, {"'\\q'", "\\q"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        lexed l;
        lex(&l, cases[i].text);
        assert_int_equal(l.diags.n, 0);
        assert_int_equal(l.toks.items[0].kind, CC_TOK_STRING);
        size_t n;
        char *v = cc_token_string(&l.src, &l.toks.items[0], &n);
        assert_non_null(v);
        assert_string_equal(v, cases[i].value);
        assert_int_equal(n, strlen(cases[i].value));
        free(v);
        lexed_free(&l);
    }
    expect_error("name_hint = 'abc\nx = 1\n", "unterminated string literal", 1, 13);
    expect_error("'''never\nclosed", "unterminated triple-quoted string literal", 1, 1);
}

static void test_lexer_operators_longest_first(void **state)
{
    (void)state;
    expect_kinds("a //= b ** c -> d := e != f <= g << h >>= i ... j @ k",
                 "name //= name ** name -> name := name != name <= name << name >>= name ... name @ name "
                 "newline end of file");
    expect_kinds("x+=-1", "name += - integer newline end of file");
}

/* Every operator kind lexes from its own text, between names and at the
 * end of the input (where the bytes after it are missing). */
static void test_lexer_every_operator_from_its_text(void **state)
{
    (void)state;
    for (int k = CC_TOK_LPAREN; k < CC_TOK_COUNT; k++) {
        const char *op = cc_token_kind_text((cc_token_kind)k);
        if (strchr("([{}])", op[0])) continue; /* they must balance: test_lexer_brackets_join_lines */
        char text[32], want[64];
        snprintf(text, sizeof text, "a %s b", op);
        snprintf(want, sizeof want, "name %s name newline end of file", op);
        expect_kinds(text, want);
        lexed l;
        snprintf(text, sizeof text, "a%s", op);
        lex(&l, text);
        assert_true(l.toks.n >= 2);
        assert_int_equal(l.toks.items[1].kind, k);
        lexed_free(&l);
    }
    expect_kinds("a .. b", "name . . name newline end of file");
    expect_kinds("a **== b", "name **= = name newline end of file");
    expect_kinds("a-->b", "name - -> name newline end of file");
}

static void test_lexer_spans(void **state)
{
    (void)state;
    lexed l;
    lex(&l, "def f(a):\n    return a + 10\n");
    const cc_token *t = l.toks.items;
    /* "10": line 2, columns 16-18 */
    const cc_token *ten = NULL;
    for (uint32_t i = 0; i < l.toks.n; i++)
        if (t[i].kind == CC_TOK_INT) ten = &t[i];
    assert_non_null(ten);
    assert_int_equal(ten->span.line, 2);
    assert_int_equal(ten->span.col, 16);
    assert_int_equal(ten->span.end_line, 2);
    assert_int_equal(ten->span.end_col, 18);
    assert_int_equal(t[0].span.line, 1);
    assert_int_equal(t[0].span.col, 1);
    lexed_free(&l);
}

static void test_lexer_indentation_errors(void **state)
{
    (void)state;
    expect_error("if a:\n        b\n    c\n", "unindent does not match any outer indentation level", 3, 5);
    char deep[16384];
    size_t n = 0;
    for (int d = 0; d < 102; d++) n += (size_t)snprintf(deep + n, sizeof deep - n, "%*sif x:\n", d, "");
    n += (size_t)snprintf(deep + n, sizeof deep - n, "%*sy\n", 102, "");
    lexed l;
    lex(&l, deep);
    assert_true(l.diags.n >= 1);
    assert_string_equal(l.diags.items[0].message, "too many levels of indentation");
    assert_int_equal(l.toks.items[l.toks.n - 1].kind, CC_TOK_EOF);
    lexed_free(&l);
}

static void test_lexer_bracket_errors(void **state)
{
    (void)state;
    expect_error("f(a]\n", "closing parenthesis ']' does not match opening parenthesis '('", 1, 4);
    expect_error("x = 1)\n", "unmatched ')'", 1, 6);
    expect_error("f(a,\n  b\n", "'(' was never closed", 1, 2);
}

static void test_lexer_invalid_characters(void **state)
{
    (void)state;
    expect_error("x = a $ b\n", "invalid character '$' (U+0024)", 1, 7);
    expect_error("x = a ? b\n", "invalid character '?' (U+003F)", 1, 7);
    expect_error("x = \xe2\x82\xac\n", "invalid character '\xe2\x82\xac' (U+20AC)", 1, 5);
    expect_error("x = \xff\n", "invalid byte 0xff: the source is not valid UTF-8", 1, 5);
    lexed l;
    const char nul[] = "x = a\0b\n";
    assert_int_equal(cc_source_init(&l.src, "k.py", nul, sizeof nul - 1), 0);
    cc_diags_init(&l.diags, &l.src);
    assert_int_equal(cc_lex(&l.src, &l.diags, &l.toks), 0);
    assert_int_equal(l.diags.n, 1);
    assert_string_equal(l.diags.items[0].message, "invalid character '' (U+0000)");
    lexed_free(&l);
}

/* The page's script: no diagnostic, balanced blocks. */
static void test_lexer_seed_example(void **state)
{
    (void)state;
    const char *text = dsl_seed_script;
    lexed l;
    lex(&l, text);
    assert_int_equal(l.diags.n, 0);
    int depth = 0, max = 0;
    for (uint32_t i = 0; i < l.toks.n; i++) {
        depth += l.toks.items[i].kind == CC_TOK_INDENT;
        depth -= l.toks.items[i].kind == CC_TOK_DEDENT;
        if (depth > max) max = depth;
        assert_true(depth >= 0);
    }
    assert_int_equal(depth, 0);
    assert_int_equal(max, 5); /* the phase-2 loop body */
    lexed_free(&l);
}

static void test_diag_prints_location_line_caret_and_hint(void **state)
{
    (void)state;
    lexed l;
    lex(&l, "def f():\n\tt = load(x, 0)\n");
    cc_span sp = {2, 11, 2, 12};
    cc_diag_add(&l.diags, CC_DIAG_UNDEFINED, sp, "pass it as an argument", "name '%s' is not defined", "x");
    char buf[512];
    cc_diag_format(&l.diags, 0, buf, sizeof buf);
    assert_string_equal(buf, "k.py:2:11: error: name 'x' is not defined\n"
                             "\tt = load(x, 0)\n"
                             "\t         ^\n"
                             "hint: pass it as an argument");
    assert_string_equal(cc_diag_class_name(l.diags.items[0].cls), "UndefinedVariableError");
    assert_int_equal(l.diags.errors, 1);
    cc_span w = {1, 1, 1, 4};
    cc_diag_add(&l.diags, CC_DIAG_WARNING, w, NULL, "careful");
    cc_diag_format(&l.diags, 1, buf, sizeof buf);
    assert_string_equal(buf, "k.py:1:1: warning: careful\ndef f():\n^^^");
    assert_int_equal(l.diags.errors, 1);
    lexed_free(&l);
}

/* Every prefix of the seed script and random byte mutations of it: the lexer
 * always ends with EOF, balanced INDENT/DEDENT, spans inside the text. */
static void test_lexer_any_bytes_end_well(void **state)
{
    (void)state;
    uint64_t seed = 7;
    size_t len = sizeof dsl_seed_script - 1;
    char *buf = malloc(len);
    assert_non_null(buf);
    for (size_t iter = 0; iter < len + 6000; iter++) {
        size_t n = dsl_mutant(buf, dsl_seed_script, len, iter, &seed);
        lexed l;
        assert_int_equal(cc_source_init(&l.src, "fuzz.py", buf, n), 0);
        cc_diags_init(&l.diags, &l.src);
        assert_int_equal(cc_lex(&l.src, &l.diags, &l.toks), 0);
        int depth = 0;
        for (uint32_t i = 0; i < l.toks.n; i++) {
            const cc_token *t = &l.toks.items[i];
            depth += (t->kind == CC_TOK_INDENT) - (t->kind == CC_TOK_DEDENT);
            assert_true(depth >= 0);
            assert_true(t->off + t->len <= n);
        }
        assert_int_equal(depth, 0);
        assert_int_equal(l.toks.items[l.toks.n - 1].kind, CC_TOK_EOF);
        for (size_t i = 0; i < l.diags.n; i++) {
            char out[2048];
            cc_diag_format(&l.diags, i, out, sizeof out);
        }
        lexed_free(&l);
    }
    free(buf);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_lexer_indent_and_dedent),
    cmocka_unit_test(test_lexer_brackets_join_lines),
    cmocka_unit_test(test_lexer_backslash_continues_a_line),
    cmocka_unit_test(test_lexer_numbers),
    cmocka_unit_test(test_lexer_bad_numbers),
    cmocka_unit_test(test_lexer_strings),
    cmocka_unit_test(test_lexer_operators_longest_first),
    cmocka_unit_test(test_lexer_every_operator_from_its_text),
    cmocka_unit_test(test_lexer_spans),
    cmocka_unit_test(test_lexer_indentation_errors),
    cmocka_unit_test(test_lexer_bracket_errors),
    cmocka_unit_test(test_lexer_invalid_characters),
    cmocka_unit_test(test_lexer_seed_example),
    cmocka_unit_test(test_diag_prints_location_line_caret_and_hint),
    cmocka_unit_test(test_lexer_any_bytes_end_well),
};

PTO_TEST_MAIN(tests)
