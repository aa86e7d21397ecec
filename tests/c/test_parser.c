/*
 * test_parser.c - the DSL parser (src/compiler/parser.c): the tree it
 * builds for the supported surface (printed as S-expressions), module
 * constants and the pl alias, the "not supported" errors for Python outside
 * the subset, recovery after an error, and no crash on any input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/parser.h"
#include "dsl_examples.h"
#include "harness.h"

typedef struct parsed {
    cc_source src;
    cc_diags diags;
    cc_tokens toks;
    base_arena arena;
    cc_module mod;
} parsed;

static void parse_n(parsed *x, const char *text, size_t n)
{
    assert_int_equal(cc_source_init(&x->src, "k.py", text, n), 0);
    cc_diags_init(&x->diags, &x->src);
    base_arena_init(&x->arena);
    assert_int_equal(cc_lex(&x->src, &x->diags, &x->toks), 0);
    assert_int_equal(cc_parse(&x->src, &x->toks, &x->arena, &x->diags, &x->mod), 0);
}

static void parse(parsed *x, const char *text) { parse_n(x, text, strlen(text)); }

static void parsed_free(parsed *x)
{
    base_arena_free(&x->arena);
    cc_tokens_free(&x->toks);
    cc_diags_free(&x->diags);
    cc_source_free(&x->src);
}

/* ---- an S-expression dump of the tree ----------------------------------- */

static void dump_expr(char *b, size_t cap, size_t *n, const cc_expr *e);

#define OUT(...) (*n += (size_t)snprintf(b + *n, *n < cap ? cap - *n : 0, __VA_ARGS__))

static void dump_list(char *b, size_t cap, size_t *n, const char *tag, cc_expr **items, uint32_t k)
{
    OUT("(%s", tag);
    for (uint32_t i = 0; i < k; i++) OUT(" "), dump_expr(b, cap, n, items[i]);
    OUT(")");
}

static void dump_expr(char *b, size_t cap, size_t *n, const cc_expr *e)
{
    switch (e->kind) {
    case CC_E_NAME: OUT("%s", e->u.name); break;
    case CC_E_INT: OUT("%lld", (long long)e->u.i); break;
    case CC_E_FLOAT: OUT("%g", e->u.f); break;
    case CC_E_BOOL: OUT("%s", e->u.i ? "True" : "False"); break;
    case CC_E_NONE: OUT("None"); break;
    case CC_E_STRING: OUT("'%s'", e->u.str.text); break;
    case CC_E_ATTR: dump_expr(b, cap, n, e->u.attr.value), OUT(".%s", e->u.attr.name); break;
    case CC_E_CALL:
        OUT("(call "), dump_expr(b, cap, n, e->u.call.fn);
        for (uint32_t i = 0; i < e->u.call.nargs; i++) OUT(" "), dump_expr(b, cap, n, e->u.call.args[i]);
        for (uint32_t i = 0; i < e->u.call.nkws; i++) OUT(" %s=", e->u.call.kws[i].name), dump_expr(b, cap, n, e->u.call.kws[i].value);
        OUT(")");
        break;
    case CC_E_SUBSCRIPT: OUT("(sub "), dump_expr(b, cap, n, e->u.sub.value), OUT(" "), dump_expr(b, cap, n, e->u.sub.index), OUT(")"); break;
    case CC_E_BINARY: case CC_E_COMPARE: case CC_E_BOOLOP:
        OUT("(%s ", cc_op_text(e->u.bin.op)), dump_expr(b, cap, n, e->u.bin.left), OUT(" "), dump_expr(b, cap, n, e->u.bin.right), OUT(")");
        break;
    case CC_E_UNARY: OUT("(%s ", e->u.un.op == CC_OP_NEG ? "neg" : cc_op_text(e->u.un.op)), dump_expr(b, cap, n, e->u.un.operand), OUT(")"); break;
    case CC_E_LIST: dump_list(b, cap, n, "list", e->u.seq.items, e->u.seq.n); break;
    case CC_E_TUPLE: dump_list(b, cap, n, "tuple", e->u.seq.items, e->u.seq.n); break;
    case CC_E_SLICE:
        OUT("(slice");
        const cc_expr *parts[3] = {e->u.slice.lo, e->u.slice.hi, e->u.slice.step};
        for (int i = 0; i < 3; i++) {
            OUT(" ");
            if (parts[i]) dump_expr(b, cap, n, parts[i]);
            else OUT("_");
        }
        OUT(")");
        break;
    }
}

static void dump_block(char *b, size_t cap, size_t *n, const cc_block *blk);

static void dump_stmt(char *b, size_t cap, size_t *n, const cc_stmt *s)
{
    switch (s->kind) {
    case CC_S_EXPR: dump_expr(b, cap, n, s->u.expr); break;
    case CC_S_ASSIGN:
        OUT("(=");
        for (uint32_t i = 0; i < s->u.assign.ntargets; i++) OUT(" "), dump_expr(b, cap, n, s->u.assign.targets[i]);
        if (s->u.assign.annotation) OUT(" :"), dump_expr(b, cap, n, s->u.assign.annotation);
        OUT(" "), dump_expr(b, cap, n, s->u.assign.value), OUT(")");
        break;
    case CC_S_AUGASSIGN: OUT("(%s= ", cc_op_text(s->u.aug.op)), dump_expr(b, cap, n, s->u.aug.target), OUT(" "), dump_expr(b, cap, n, s->u.aug.value), OUT(")"); break;
    case CC_S_FOR: OUT("(for %s ", s->u.for_.var), dump_expr(b, cap, n, s->u.for_.iter), dump_block(b, cap, n, &s->u.for_.body), OUT(")"); break;
    case CC_S_WHILE: OUT("(while "), dump_expr(b, cap, n, s->u.while_.cond), dump_block(b, cap, n, &s->u.while_.body), OUT(")"); break;
    case CC_S_IF:
        OUT("(if "), dump_expr(b, cap, n, s->u.if_.cond), dump_block(b, cap, n, &s->u.if_.then);
        if (s->u.if_.orelse.n) OUT(" else"), dump_block(b, cap, n, &s->u.if_.orelse);
        OUT(")");
        break;
    case CC_S_WITH:
        OUT("(with");
        for (uint32_t i = 0; i < s->u.with.nitems; i++) {
            OUT(" "), dump_expr(b, cap, n, s->u.with.items[i].context);
            if (s->u.with.items[i].as_name) OUT(" as %s", s->u.with.items[i].as_name);
        }
        dump_block(b, cap, n, &s->u.with.body), OUT(")");
        break;
    case CC_S_RETURN: dump_list(b, cap, n, "return", s->u.ret.values, s->u.ret.n); break;
    case CC_S_PASS: OUT("pass"); break;
    case CC_S_DEF: case CC_S_CLASS:
        OUT("(%s %s", s->kind == CC_S_DEF ? "def" : "class", s->u.def.name);
        for (uint32_t i = 0; i < s->u.def.ndecorators; i++) OUT(" @"), dump_expr(b, cap, n, s->u.def.decorators[i]);
        for (uint32_t i = 0; i < s->u.def.nparams; i++) {
            OUT(" [%s", s->u.def.params[i].name);
            if (s->u.def.params[i].annotation) OUT(": "), dump_expr(b, cap, n, s->u.def.params[i].annotation);
            OUT("]");
        }
        dump_block(b, cap, n, &s->u.def.body), OUT(")");
        break;
    }
}

static void dump_block(char *b, size_t cap, size_t *n, const cc_block *blk)
{
    OUT(" {");
    for (uint32_t i = 0; i < blk->n; i++) OUT(i ? " " : ""), dump_stmt(b, cap, n, blk->items[i]);
    OUT("}");
}

static const char *dump_defs(const parsed *x)
{
    static char buf[16384];
    size_t n = 0;
    buf[0] = 0;
    for (uint32_t i = 0; i < x->mod.ndefs; i++) {
        if (i) n += (size_t)snprintf(buf + n, sizeof buf - n, "\n");
        dump_stmt(buf, sizeof buf, &n, x->mod.defs[i]);
    }
    return buf;
}

/* The first function's body, parsed from "@pl.jit\ndef f():\n" + body. */
static const char *dump_body(parsed *x, const char *body)
{
    static char text[8192];
    snprintf(text, sizeof text, "import pypto.language as pl\n@pl.jit\ndef f():\n%s", body);
    parse(x, text);
    if (x->diags.n) {
        char m[1024];
        cc_diag_format(&x->diags, 0, m, sizeof m);
        print_error("unexpected diagnostic:\n%s\n", m);
    }
    assert_int_equal(x->diags.n, 0);
    assert_int_equal(x->mod.ndefs, 1);
    static char buf[8192];
    size_t n = 0;
    dump_block(buf, sizeof buf, &n, &x->mod.defs[0]->u.def.body);
    return buf + 1; /* without dump_block's leading space */
}

static void expect_body(const char *body, const char *want)
{
    parsed x;
    const char *got = dump_body(&x, body);
    if (strcmp(got, want) != 0) print_error("body:\n%s\ngot:  %s\nwant: %s\n", body, got, want);
    assert_string_equal(got, want);
    parsed_free(&x);
}

/* One diagnostic (the first) of class cls with message msg at line:col of
 * the function body (line 1 = the body's first line). */
static void expect_body_error(const char *body, cc_diag_class cls, const char *msg, uint32_t line, uint32_t col)
{
    parsed x;
    char text[4096];
    snprintf(text, sizeof text, "import pypto.language as pl\n@pl.jit\ndef f():\n%s", body);
    parse(&x, text);
    if (!x.diags.n || strcmp(x.diags.items[0].message, msg) != 0)
        print_error("body:\n%s\nfirst diagnostic: %s\nwant: %s\n", body, x.diags.n ? x.diags.items[0].message : "-", msg);
    assert_true(x.diags.n >= 1);
    assert_string_equal(x.diags.items[0].message, msg);
    if (x.diags.items[0].span.line != line + 3 || x.diags.items[0].span.col != col)
        print_error("body:\n%s\nat %u:%u, want %u:%u\n", body, x.diags.items[0].span.line - 3,
                    x.diags.items[0].span.col, line, col);
    assert_int_equal(x.diags.items[0].cls, cls);
    assert_int_equal(x.diags.items[0].span.line, line + 3);
    assert_int_equal(x.diags.items[0].span.col, col);
    parsed_free(&x);
}

/* ---- tests ----------------------------------------------------------------- */


static void test_parser_dsl_seed_script(void **state)
{
    (void)state;
    parsed x;
    parse(&x, dsl_seed_script);
    assert_int_equal(x.diags.n, 0);
    assert_string_equal(x.mod.pl_name, "pl");
    assert_int_equal(x.mod.nconstants, 4); /* N, TR, TC and ROWS = N * TR (constant expressions) */
    assert_string_equal(x.mod.constants[3].name, "ROWS");
    assert_string_equal(x.mod.constants[1].name, "TR");
    assert_int_equal(x.mod.constants[1].value->u.i, 64);
    assert_string_equal(dump_defs(&x),
        "(def manual_placement @(call pl.jit auto_scope=False) [a: pl.Tensor] [out: (sub pl.Out pl.Tensor)] {"
        "(with (call pl.scope) {(for i (call pl.range N) {(with (call pl.at level=pl.Level.CORE_GROUP) {"
        "(= t (call pl.load a (list (* i TR) 0) (list TR TC))) "
        "(call pl.store (call pl.mul t 2) (list (* i TR) 0) out)})}) "
        "(with (call pl.scope) {(with (call pl.at level=pl.Level.CORE_GROUP) {(for i (call pl.range N) {"
        "(= t (call pl.load out (list (* i TR) 0) (list TR TC))) "
        "(call pl.store (call pl.add t 1) (list (* i TR) 0) out)})})})}) (return out)})\n"
        "(def scaled @pl.jit [a: pl.Tensor] [out: (sub pl.Out pl.Tensor)] {"
        "(with (call pl.at level=pl.Level.CORE_GROUP) {(for i (call pl.range N) {"
        "(= t (call pl.load a (list (* i TR) 0) (list TR TC))) "
        "(call pl.store (call pl.add (call pl.mul t 2) 1) (list (* i TR) 0) out)})}) (return out)})");
    parsed_free(&x);
}

static void test_parser_precedence_and_associativity(void **state)
{
    (void)state;
    expect_body("    x = a + b * c - -d // 2 % e\n", "{(= x (- (+ a (* b c)) (% (// (neg d) 2) e)))}");
    expect_body("    y = not a < b and c or d == e\n", "{(= y (or (and (not (< a b)) c) (== d e)))}");
    expect_body("    z = (a + b) * c\n", "{(= z (* (+ a b) c))}");
    expect_body("    w = a.b.c(d)(e).f\n", "{(= w (call (call a.b.c d) e).f)}");
}

/* Subscript items are expressions or slices lo:hi[:step], any part omitted;
 * a subscript is an assignment target too. */
static void test_parser_subscript_slices(void **state)
{
    (void)state;
    expect_body("    x = a[1:2, :, ::2, i:, :j, k]\n",
                "{(= x (sub a (tuple (slice 1 2 _) (slice _ _ _) (slice _ _ 2) (slice i _ _) (slice _ j _) k)))}");
    expect_body("    out[:] = y\n    out[i, k0:k0 + KS] = y\n",
                "{(= (sub out (slice _ _ _)) y) (= (sub out (tuple i (slice k0 (+ k0 KS) _))) y)}");
    expect_body("    x = a[b[0]:n][0]\n", "{(= x (sub (sub a (slice (sub b 0) n _)) 0))}");
    expect_body_error("    x = a[1:2:3:4]\n", CC_DIAG_SYNTAX, "expected ']', got :", 1, 16);
}

static void test_parser_statements(void **state)
{
    (void)state;
    expect_body("    a, b = 1, 2.5\n    c: pl.Scalar = a\n    c += 1\n    c -= 2\n    c *= 3\n    c //= 4\n",
                "{(= a b (tuple 1 2.5)) (= c :pl.Scalar a) (+= c 1) (-= c 2) (*= c 3) (//= c 4)}");
    expect_body("    if a:\n        pass\n    elif b:\n        x = 1\n    else:\n        x = 2\n",
                "{(if a {pass} else {(if b {(= x 1)} else {(= x 2)})})}");
    expect_body("    while i < 3: i += 1\n", "{(while (< i 3) {(+= i 1)})}");
    expect_body("    with pl.at(level=pl.Level.CORE_GROUP, name_hint=\"k\") as tid:\n        pass\n",
                "{(with (call pl.at level=pl.Level.CORE_GROUP name_hint='k') as tid {pass})}");
    expect_body("    \"\"\"docstring\"\"\"\n    x = True; y = None\n    return a, b\n",
                "{'docstring' (= x True) (= y None) (return a b)}");
}

static void test_parser_program_class(void **state)
{
    (void)state;
    parsed x;
    parse(&x, "import pypto.language as pl\n"
              "@pl.program\nclass P:\n"
              "    @pl.function(type=pl.FunctionType.InCore)\n"
              "    def kernel(self, a: pl.Tensor, out: pl.Out[pl.Tensor]) -> pl.Tensor:\n        return out\n"
              "    @pl.function(type=pl.FunctionType.Orchestration)\n"
              "    def orch(self, a, out):\n        for i in pl.range(4):\n            out = self.kernel(a, out)\n        return out\n");
    assert_int_equal(x.diags.n, 0);
    assert_string_equal(dump_defs(&x),
        "(class P @pl.program {(def kernel @(call pl.function type=pl.FunctionType.InCore) [self] [a: pl.Tensor] "
        "[out: (sub pl.Out pl.Tensor)] {(return out)}) (def orch @(call pl.function type=pl.FunctionType.Orchestration) "
        "[self] [a] [out] {(for i (call pl.range 4) {(= out (call self.kernel a out))}) (return out)})})");
    parsed_free(&x);
}

/* Every Python statement outside the subset, by name and where it is. */
static void test_parser_rejects_python_statements(void **state)
{
    (void)state;
    static const struct { const char *body, *msg; uint32_t col; } cases[] = {
        {"    break\n", "Python 'break' is not supported in kernel code", 5},
        {"    continue\n", "Python 'continue' is not supported in kernel code", 5},
        {"    raise E\n", "Python 'raise' is not supported in kernel code", 5},
        {"    try:\n        pass\n    except E:\n        pass\n", "Python 'try' is not supported in kernel code", 5},
        {"    assert a\n", "Python 'assert' is not supported in kernel code", 5},
        {"    del a\n", "Python 'del' is not supported in kernel code", 5},
        {"    global g\n", "Python 'global' is not supported in kernel code", 5},
        {"    nonlocal g\n", "Python 'nonlocal' is not supported in kernel code", 5},
        {"    import os\n", "Python 'import' is not supported in kernel code", 5},
        {"    def g():\n        pass\n", "Python 'nested def' is not supported in kernel code", 5},
        {"    class C:\n        pass\n", "Python 'nested class' is not supported in kernel code", 5},
        {"    yield a\n", "Python 'yield' is not supported in kernel code", 5},
        {"    async with a:\n        pass\n", "Python 'async' is not supported in kernel code", 5},
        {"    match a:\n        case 1:\n            pass\n", "Python 'match' is not supported in kernel code", 5},
        {"    x = (y := 3)\n", "Python ':=' is not supported in kernel code", 12},
        {"    a = b = 1\n", "Python 'chained assignment' is not supported in kernel code", 11},
        {"    a /= 2\n", "Python '/=' is not supported in kernel code", 7},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_body_error(cases[i].body, CC_DIAG_UNSUPPORTED, cases[i].msg, 1, cases[i].col);
    expect_body_error("    for i in pl.range(3):\n        pass\n    else:\n        pass\n", CC_DIAG_UNSUPPORTED,
                      "Python 'else after a loop' is not supported in kernel code", 3, 5);
}

static void test_parser_rejects_later_expressions(void **state)
{
    (void)state;
    static const struct { const char *body, *msg; uint32_t col; } cases[] = {
        {"    x = [i for i in r]\n", "a comprehension is not supported in this version", 12},
        {"    x = a if c else b\n", "a conditional expression is not supported in this version", 11},
        {"    x = a < b < c\n", "a chained comparison is not supported in this version", 15},
        {"    x = f\"{a}\"\n", "an f-string is not supported in this version", 9},
        {"    x = {1: 2}\n", "a dict or set literal is not supported in this version", 9},
        {"    x = a ** 2\n", "the '**' operator is not supported in this version", 11},
        {"    x = a @ b\n", "the '@' operator is not supported in this version", 11},
        {"    x = a in b\n", "an 'in' or 'is' comparison is not supported in this version", 11},
        {"    x = lambda: 1\n", "a lambda is not supported in this version", 9},
        {"    f(*a)\n", "'*' argument unpacking is not supported in this version", 7},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_body_error(cases[i].body, CC_DIAG_UNSUPPORTED, cases[i].msg, 1, cases[i].col);
}

static void test_parser_syntax_errors(void **state)
{
    (void)state;
    expect_body_error("    if a\n        pass\n", CC_DIAG_SYNTAX, "expected ':', got newline", 1, 9);
    expect_body_error("    f(a=1, b)\n", CC_DIAG_SYNTAX, "positional argument follows keyword argument", 1, 12);
    expect_body_error("    x = \n", CC_DIAG_SYNTAX, "expected an expression, got newline", 1, 9);
    expect_body_error("    else:\n        pass\n", CC_DIAG_SYNTAX, "'elif' or 'else' without an 'if'", 1, 5);
    expect_body_error("    x = 1 2\n", CC_DIAG_SYNTAX, "expected the end of the statement, got '2'", 1, 11);
}

/* After an error the parser goes on: every error of the body is reported,
 * and the statements around them are kept. */
static void test_parser_reports_every_error(void **state)
{
    (void)state;
    parsed x;
    parse(&x, "import pypto.language as pl\n@pl.jit\ndef f():\n    break\n    x = 1\n    for a b in r:\n"
              "        y = 2\n    z = a ** 2\n    return x\n");
    assert_int_equal(x.diags.n, 3);
    assert_int_equal(x.diags.items[0].span.line, 4);
    assert_int_equal(x.diags.items[1].span.line, 6);
    assert_int_equal(x.diags.items[2].span.line, 8);
    assert_string_equal(dump_defs(&x), "(def f @pl.jit {(= x 1) (return x)})");
    parsed_free(&x);
}

/* Plain Python at module level (helpers, test code, other decorators) is
 * skipped, whatever it holds. */
static void test_parser_skips_plain_python(void **state)
{
    (void)state;
    parsed x;
    parse(&x, "import pypto.language as P\nimport numpy as np\n"
              "@functools.cache\ndef helper(x):\n    return [y ** 2 for y in x if y]\n"
              "data = {k: v for k, v in zip(a, b)}\nprint(f\"{data}\")\nscale = -2.5\nname = 'x'\n"
              "try:\n    import torch\nexcept ImportError:\n    torch = None\n"
              "@P.jit\ndef k(a):\n    return a\n");
    assert_int_equal(x.diags.n, 0);
    assert_string_equal(x.mod.pl_name, "P");
    assert_int_equal(x.mod.nconstants, 2);
    assert_string_equal(x.mod.constants[0].name, "scale");
    assert_string_equal(dump_defs(&x), "(def k @P.jit [a] {(return a)})");
    parsed_free(&x);
}

/* Every prefix of the seed script and random byte mutations of it: the
 * parser ends, and every diagnostic prints. */
static void test_parser_any_bytes_end_well(void **state)
{
    (void)state;
    uint64_t seed = 11;
    size_t len = sizeof dsl_seed_script - 1;
    char *buf = malloc(len);
    assert_non_null(buf);
    for (size_t iter = 0; iter < len + 3000; iter++) {
        size_t n = dsl_mutant(buf, dsl_seed_script, len, iter, &seed);
        parsed x;
        parse_n(&x, buf, n);
        for (size_t i = 0; i < x.diags.n; i++) {
            char out[2048];
            cc_diag_format(&x.diags, i, out, sizeof out);
        }
        parsed_free(&x);
    }
    free(buf);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_parser_dsl_seed_script),
    cmocka_unit_test(test_parser_precedence_and_associativity),
    cmocka_unit_test(test_parser_subscript_slices),
    cmocka_unit_test(test_parser_statements),
    cmocka_unit_test(test_parser_program_class),
    cmocka_unit_test(test_parser_rejects_python_statements),
    cmocka_unit_test(test_parser_rejects_later_expressions),
    cmocka_unit_test(test_parser_syntax_errors),
    cmocka_unit_test(test_parser_reports_every_error),
    cmocka_unit_test(test_parser_skips_plain_python),
    cmocka_unit_test(test_parser_any_bytes_end_well),
};

PTO_TEST_MAIN(tests)
