/*
 * test_printer.c - the IR printer (src/compiler/printer.c): each rule of the
 * printed form (docs/dsl.md, "What the compiler does") on a program built by hand, compared as
 * exact text.  Every test builds in its own arena.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "compiler/printer.h"
#include "harness.h"

static base_arena A;
static const cc_span SP;

/* A test whose body builds in A, fresh for it and freed after it (after a
 * failed assertion A stays reachable until the process ends). */
#define PRINTER_TEST(name)          \
    static void name##_body(void);  \
    static void name(void **state)  \
    {                               \
        (void)state;                \
        base_arena_init(&A);        \
        name##_body();              \
        base_arena_free(&A);        \
    }                               \
    static void name##_body(void)

/* ---- building IR -------------------------------------------------------------------------- */

static cc_type scalar(cc_dtype d) { return (cc_type){.kind = CC_T_SCALAR, .dtype = (uint8_t)d}; }
static cc_type tensor(int64_t rows, int64_t cols)
{
    return (cc_type){.kind = CC_T_TENSOR, .dtype = CC_DT_FP32, .rank = 2, .shape = {rows, cols}};
}
static cc_type tile(void) { return (cc_type){.kind = CC_T_TILE, .dtype = CC_DT_FP32, .rank = 2, .shape = {64, 128}}; }

static void *alloc(size_t n)
{
    void *p = base_arena_alloc(&A, n);
    assert_non_null(p);
    return p;
}

static cc_ir_expr *I(int64_t v) { return cc_ir_int(&A, v, SP); }
static cc_ir_expr *V(const char *name) { return cc_ir_var(&A, name, scalar(CC_DT_INDEX), SP); }
static cc_ir_expr *T(const char *name) { return cc_ir_var(&A, name, tensor(256, 128), SP); }
static cc_ir_expr *X(const char *name) { return cc_ir_var(&A, name, tile(), SP); }
static cc_ir_expr *B(cc_op op, cc_ir_expr *l, cc_ir_expr *r) { return cc_ir_binary(&A, op, l, r, SP); }

static cc_ir_expr *U(cc_op op, cc_ir_expr *x)
{
    cc_ir_expr *e = cc_ir_expr_new(&A, CC_X_UNARY, SP);
    e->u.un.op = op, e->u.un.x = x;
    return e;
}

static cc_ir_expr *F(double v)
{
    cc_ir_expr *e = cc_ir_expr_new(&A, CC_X_FLOAT, SP);
    e->u.f = v;
    return e;
}

static cc_ir_expr *S(const char *s)
{
    cc_ir_expr *e = cc_ir_expr_new(&A, CC_X_STR, SP);
    e->u.str = s;
    return e;
}

static cc_ir_expr **exprs(uint32_t n, va_list ap)
{
    cc_ir_expr **xs = alloc((n + 1) * sizeof *xs);
    for (uint32_t k = 0; k < n; k++) xs[k] = va_arg(ap, cc_ir_expr *);
    return xs;
}

static cc_ir_expr *L(uint32_t n, ...)
{
    va_list ap;
    va_start(ap, n);
    cc_ir_expr *e = cc_ir_expr_new(&A, CC_X_LIST, SP);
    e->u.list.items = exprs(n, ap), e->u.list.n = n;
    va_end(ap);
    return e;
}

/* An op with its slots in order (NULL: absent). */
static cc_ir_expr *OP(cc_ir_op op, ...)
{
    va_list ap;
    va_start(ap, op);
    cc_ir_expr *e = cc_ir_op_new(&A, op, SP);
    for (uint32_t k = 0; k < cc_ir_op_nslots(op); k++) e->u.op.args[k] = va_arg(ap, cc_ir_expr *);
    va_end(ap);
    return e;
}

static cc_ir_func *fn(const char *name, cc_func_kind kind, int auto_scope)
{
    cc_ir_func *f = alloc(sizeof *f);
    f->name = name, f->kind = (uint8_t)kind, f->auto_scope = (uint8_t)auto_scope;
    return f;
}

static void add_param(cc_ir_func *f, const char *name, cc_type t, cc_dir dir)
{
    cc_ir_param *ps = alloc((f->nparams + 1) * sizeof *ps);
    if (f->nparams) memcpy(ps, f->params, f->nparams * sizeof *ps);
    ps[f->nparams++] = (cc_ir_param){.name = name, .type = t, .dir = (uint8_t)dir};
    f->params = ps;
}

static cc_ir_expr *CALL(cc_ir_func *callee, uint32_t n, ...)
{
    va_list ap;
    va_start(ap, n);
    cc_ir_expr *e = cc_ir_expr_new(&A, CC_X_CALL, SP);
    e->u.call.callee = callee, e->u.call.args = exprs(n, ap), e->u.call.nargs = n;
    va_end(ap);
    return e;
}

static cc_ir_block blk(uint32_t n, ...)
{
    va_list ap;
    va_start(ap, n);
    cc_ir_block b = {.items = alloc((n + 1) * sizeof *b.items), .n = n};
    for (uint32_t k = 0; k < n; k++) b.items[k] = va_arg(ap, cc_ir_stmt *);
    va_end(ap);
    return b;
}

static cc_ir_stmt *st(cc_ir_stmt_kind k) { return cc_ir_stmt_new(&A, k, SP); }

static cc_ir_stmt *st_expr(cc_ir_expr *e)
{
    cc_ir_stmt *s = st(CC_I_EXPR);
    s->u.expr = e;
    return s;
}

static cc_ir_stmt *st_assign(const char *name, cc_ir_expr *value)
{
    cc_ir_stmt *s = st(CC_I_ASSIGN);
    s->u.assign.targets = alloc(sizeof *s->u.assign.targets);
    s->u.assign.targets[0].name = name, s->u.assign.ntargets = 1, s->u.assign.value = value;
    return s;
}

static cc_ir_stmt *st_for(const char *var, cc_ir_expr *start, cc_ir_expr *stop, cc_ir_expr *step, cc_ir_block body)
{
    cc_ir_stmt *s = st(CC_I_FOR);
    s->u.for_.var = var, s->u.for_.start = start, s->u.for_.stop = stop, s->u.for_.step = step, s->u.for_.body = body;
    return s;
}

static cc_ir_stmt *st_if(cc_ir_expr *cond, cc_ir_block then, cc_ir_block orelse)
{
    cc_ir_stmt *s = st(CC_I_IF);
    s->u.if_.cond = cond, s->u.if_.then = then, s->u.if_.orelse = orelse;
    return s;
}

static cc_ir_stmt *st_at(cc_ir_block body)
{
    cc_ir_stmt *s = st(CC_I_AT);
    s->u.at.level = CC_LEVEL_CORE_GROUP, s->u.at.body = body;
    return s;
}

/* ---- printing ----------------------------------------------------------------------------- */

static const char *keep(base_strbuf *b)
{
    assert_false(b->oom);
    const char *s = base_arena_strndup(&A, base_strbuf_str(b), b->len);
    base_strbuf_free(b);
    return s;
}

static const char *expr_text(const cc_ir_expr *e, int compact)
{
    base_strbuf b = {0};
    cc_print_expr(e, compact, &b);
    return keep(&b);
}

static const char *prog_text(uint32_t n, ...)
{
    va_list ap;
    va_start(ap, n);
    cc_ir_program p = {.name = "P", .funcs = alloc((n + 1) * sizeof(cc_ir_func *)), .nfuncs = n, .arena = &A};
    for (uint32_t k = 0; k < n; k++) p.funcs[k] = va_arg(ap, cc_ir_func *);
    va_end(ap);
    base_strbuf b = {0};
    cc_print_program(&p, &b);
    return keep(&b);
}

/* The program of one Orchestration function f(self) with body. */
static const char *body_text(cc_ir_block body)
{
    cc_ir_func *f = fn("f", CC_FUNC_ORCHESTRATION, 1);
    f->body = body;
    return prog_text(1, f);
}

#define HEAD "import pypto.language as pl\n\n@pl.program\nclass P:\n"
#define ORCH_F HEAD "    @pl.function(type=pl.FunctionType.Orchestration)\n    def f(self):\n"

#define assert_expr(e, want) assert_string_equal(expr_text(e, 0), want)
#define assert_compact(e, want) assert_string_equal(expr_text(e, 1), want)

/* ---- the program and functions ----------------------------------------------------------- */

PRINTER_TEST(test_printer_empty_body_prints_pass)
{
    assert_string_equal(body_text(blk(0)), ORCH_F "        pass\n");
    assert_string_equal(prog_text(0), HEAD "    pass\n");
}

PRINTER_TEST(test_printer_functions_separated_by_one_blank_line)
{
    cc_ir_func *a = fn("a", CC_FUNC_OPAQUE, 1), *b = fn("b", CC_FUNC_OPAQUE, 1);
    assert_string_equal(prog_text(2, a, b), HEAD
                        "    @pl.function(type=pl.FunctionType.Opaque)\n    def a(self):\n        pass\n\n"
                        "    @pl.function(type=pl.FunctionType.Opaque)\n    def b(self):\n        pass\n");
}

PRINTER_TEST(test_printer_decorator_auto_scope)
{
    const char *want = HEAD
        "    @pl.function(type=pl.FunctionType.Orchestration, auto_scope=False)\n    def o(self):\n        pass\n\n"
        "    @pl.function(type=pl.FunctionType.Opaque, auto_scope=False)\n    def q(self):\n        pass\n\n"
        "    @pl.function(type=pl.FunctionType.Inline, auto_scope=False)\n    def i(self):\n        pass\n\n"
        "    @pl.function(type=pl.FunctionType.InCore)\n    def k(self):\n        pass\n\n"
        "    @pl.function(type=pl.FunctionType.Inline)\n    def j(self):\n        pass\n";
    cc_ir_func *k = fn("k", CC_FUNC_INCORE, 0);
    k->level = CC_LEVEL_CORE_GROUP;
    assert_string_equal(prog_text(5, fn("o", CC_FUNC_ORCHESTRATION, 0), fn("q", CC_FUNC_OPAQUE, 0),
                                  fn("i", CC_FUNC_INLINE, 0), k, fn("j", CC_FUNC_INLINE, 1)),
                        want);
}

PRINTER_TEST(test_printer_param_types_and_directions)
{
    cc_ir_func *f = fn("f", CC_FUNC_OPAQUE, 1);
    add_param(f, "a", tensor(256, 128), CC_DIR_IN);
    add_param(f, "b", tensor(64, 8), CC_DIR_NONE);
    add_param(f, "c", tensor(256, 128), CC_DIR_OUT);
    add_param(f, "d", tensor(256, 128), CC_DIR_INOUT);
    add_param(f, "n", scalar(CC_DT_INDEX), CC_DIR_NONE);
    add_param(f, "t", scalar(CC_DT_TASK_ID), CC_DIR_NONE);
    add_param(f, "u", (cc_type){.kind = CC_T_VOID}, CC_DIR_NONE);
    assert_string_equal(prog_text(1, f), HEAD
                        "    @pl.function(type=pl.FunctionType.Opaque)\n"
                        "    def f(self, a: pl.Tensor[[256, 128], pl.FP32], b: pl.Tensor[[64, 8], pl.FP32], "
                        "c: pl.Out[pl.Tensor[[256, 128], pl.FP32]], d: pl.InOut[pl.Tensor[[256, 128], pl.FP32]], "
                        "n: pl.Scalar[pl.INDEX], t: pl.TaskId, u):\n        pass\n");
}

PRINTER_TEST(test_printer_result_types)
{
    cc_ir_func *one = fn("one", CC_FUNC_OPAQUE, 1), *two = fn("two", CC_FUNC_OPAQUE, 1);
    cc_type *r = alloc(2 * sizeof *r);
    r[0] = tensor(256, 128), r[1] = tensor(64, 8);
    one->results = r, one->nresults = 1;
    two->results = r, two->nresults = 2;
    assert_string_equal(prog_text(2, one, two), HEAD
                        "    @pl.function(type=pl.FunctionType.Opaque)\n"
                        "    def one(self) -> pl.Tensor[[256, 128], pl.FP32]:\n        pass\n\n"
                        "    @pl.function(type=pl.FunctionType.Opaque)\n"
                        "    def two(self) -> tuple[pl.Tensor[[256, 128], pl.FP32], pl.Tensor[[64, 8], pl.FP32]]:\n"
                        "        pass\n");
}

/* ---- statements ---------------------------------------------------------------------------- */

PRINTER_TEST(test_printer_assign_expr_return)
{
    cc_ir_stmt *two = st(CC_I_ASSIGN), *ret = st(CC_I_RETURN), *ret0 = st(CC_I_RETURN);
    two->u.assign.targets = alloc(2 * sizeof *two->u.assign.targets);
    two->u.assign.targets[0].name = "a", two->u.assign.targets[1].name = "b";
    two->u.assign.ntargets = 2, two->u.assign.value = L(2, I(1), I(2));
    ret->u.ret.values = alloc(2 * sizeof(cc_ir_expr *)), ret->u.ret.n = 2;
    ret->u.ret.values[0] = V("a"), ret->u.ret.values[1] = V("b");
    assert_string_equal(body_text(blk(4, st_assign("x", I(3)), two, st_expr(V("x")), ret)),
                        ORCH_F "        x = 3\n        a, b = 1, 2\n        x\n        return a, b\n");
    assert_string_equal(body_text(blk(1, ret0)), ORCH_F "        return\n");
}

PRINTER_TEST(test_printer_range_forms)
{
    cc_ir_block body = blk(1, st_expr(V("i")));
    assert_string_equal(body_text(blk(4, st_for("i", I(0), V("n"), I(1), body), st_for("i", I(2), V("n"), I(1), body),
                                      st_for("i", I(0), V("n"), I(2), body), st_for("i", V("s"), I(8), I(-1), blk(0)))),
                        ORCH_F
                        "        for i in pl.range(n):\n            i\n"
                        "        for i in pl.range(2, n):\n            i\n"
                        "        for i in pl.range(0, n, 2):\n            i\n"
                        "        for i in pl.range(s, 8, -1):\n            pass\n");
}

PRINTER_TEST(test_printer_while)
{
    cc_ir_stmt *w = st(CC_I_WHILE);
    w->u.while_.cond = B(CC_OP_LT, V("i"), V("n"));
    w->u.while_.body = blk(1, st_assign("i", B(CC_OP_ADD, V("i"), I(1))));
    assert_string_equal(body_text(blk(1, w)), ORCH_F "        while i < n:\n            i = i + 1\n");
}

PRINTER_TEST(test_printer_elif_as_else)
{
    cc_ir_stmt *inner = st_if(V("b"), blk(1, st_assign("x", I(2))), blk(1, st_assign("x", I(3))));
    inner->u.if_.elif = 1;
    cc_ir_stmt *outer = st_if(V("a"), blk(1, st_assign("x", I(1))), blk(1, inner));
    cc_ir_stmt *plain = st_if(V("c"), blk(0), blk(0));
    assert_string_equal(body_text(blk(2, outer, plain)), ORCH_F
                        "        if a:\n            x = 1\n"
                        "        else:\n            if b:\n                x = 2\n"
                        "            else:\n                x = 3\n"
                        "        if c:\n            pass\n");
}

PRINTER_TEST(test_printer_scopes_both_modes)
{
    cc_ir_stmt *manual = cc_ir_scope_new(&A, CC_SCOPE_MANUAL, 0, blk(0), SP);
    cc_ir_stmt *autos = cc_ir_scope_new(&A, CC_SCOPE_AUTO, 1, blk(1, manual), SP);
    assert_string_equal(body_text(blk(1, autos)), ORCH_F
                        "        with pl.scope():\n"
                        "            with pl.scope(mode=pl.ScopeMode.MANUAL):\n                pass\n");
}

PRINTER_TEST(test_printer_at_deps_name_hint_as_cache_decls)
{
    cc_ir_stmt *bare = st_at(blk(0));
    cc_ir_stmt *full = st_at(blk(1, st_assign("y", V("x"))));
    full->u.at.level = CC_LEVEL_CHIP;
    full->u.at.has_deps = 1, full->u.at.deps = alloc(2 * sizeof(cc_ir_expr *)), full->u.at.ndeps = 2;
    full->u.at.deps[0] = V("t0"), full->u.at.deps[1] = V("t1");
    full->u.at.name_hint = "mm", full->u.at.as_name = "tid";
    full->u.at.decls = alloc(2 * sizeof *full->u.at.decls), full->u.at.ndecls = 2;
    full->u.at.decls[0] = (cc_ir_cache_decl){.tensor = "a", .policy = CC_CACHE_BYPASS};
    full->u.at.decls[1] = (cc_ir_cache_decl){.tensor = "b", .policy = CC_CACHE_DEFAULT};
    cc_ir_stmt *empty_deps = st_at(blk(0));
    empty_deps->u.at.has_deps = 1, empty_deps->u.at.decls = full->u.at.decls, empty_deps->u.at.ndecls = 1;
    assert_string_equal(body_text(blk(3, bare, full, empty_deps)), ORCH_F
                        "        with pl.at(level=pl.Level.CORE_GROUP):\n            pass\n"
                        "        with pl.at(level=pl.Level.CHIP, deps=[t0, t1], name_hint=\"mm\") as tid:\n"
                        "            pl.set_cache_policy(a, pl.CachePolicy.BYPASS)\n"
                        "            pl.set_cache_policy(b, pl.CachePolicy.DEFAULT)\n"
                        "            y = x\n"
                        "        with pl.at(level=pl.Level.CORE_GROUP, deps=[]):\n"
                        "            pl.set_cache_policy(a, pl.CachePolicy.BYPASS)\n");
}

/* ---- expressions --------------------------------------------------------------------------- */

PRINTER_TEST(test_printer_literals)
{
    cc_ir_expr *t = cc_ir_expr_new(&A, CC_X_BOOL, SP), *f = cc_ir_expr_new(&A, CC_X_BOOL, SP);
    t->u.i = 1;
    assert_expr(I(42), "42");
    assert_expr(I(-3), "-3");
    assert_expr(I(INT64_MIN), "-9223372036854775808");
    assert_expr(t, "True");
    assert_expr(f, "False");
    assert_expr(V("abc"), "abc");
    assert_expr(L(0), "[]");
    assert_expr(L(3, I(1), V("b"), L(1, I(2))), "[1, b, [2]]");
}

PRINTER_TEST(test_printer_float_forms)
{
    static const struct { double v; const char *want; } cases[] = {
        {2.0, "2.0"}, {0.1, "0.1"}, {1e20, "1e+20"}, {1.5e-07, "1.5e-07"}, {0.0, "0.0"}, {-0.0, "-0.0"},
        {-2.5, "-2.5"}, {100.0, "100.0"}, {1e15, "1000000000000000.0"}, {1e16, "1e+16"}, {0.0001, "0.0001"},
        {0.00001, "1e-05"}, {1.0 / 3, "0.3333333333333333"}, {123.456, "123.456"}, {1e100, "1e+100"},
        {5e-324, "5e-324"}, {1.7976931348623157e308, "1.7976931348623157e+308"}, {0.001234, "0.001234"},
        {12345678901234567.0, "1.2345678901234568e+16"}, {INFINITY, "inf"}, {-INFINITY, "-inf"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) assert_expr(F(cases[k].v), cases[k].want);
    assert_expr(F(NAN), "nan");
}

PRINTER_TEST(test_printer_string_escapes)
{
    assert_expr(S("plain"), "\"plain\"");
    assert_expr(S("q\"b\\n\nt\tr\r\x01\x7f\xc3\xa9"), "\"q\\\"b\\\\n\\nt\\tr\\r\\x01\\x7f\xc3\xa9\"");
}

PRINTER_TEST(test_printer_precedence_and_parens)
{
    cc_ir_expr *a = V("a"), *b = V("b"), *c = V("c");
    assert_expr(B(CC_OP_ADD, B(CC_OP_MUL, V("i"), I(64)), I(64)), "i * 64 + 64");
    assert_expr(B(CC_OP_MUL, B(CC_OP_ADD, a, b), c), "(a + b) * c");
    assert_expr(B(CC_OP_SUB, B(CC_OP_SUB, a, b), c), "a - b - c");
    assert_expr(B(CC_OP_SUB, a, B(CC_OP_SUB, b, c)), "a - (b - c)");
    assert_expr(B(CC_OP_ADD, a, B(CC_OP_ADD, b, c)), "a + (b + c)");
    assert_expr(B(CC_OP_FLOORDIV, a, B(CC_OP_MUL, b, c)), "a // (b * c)");
    assert_expr(B(CC_OP_MOD, B(CC_OP_DIV, a, b), c), "a / b % c");
    assert_expr(U(CC_OP_NEG, B(CC_OP_ADD, a, b)), "-(a + b)");
    assert_expr(B(CC_OP_MUL, U(CC_OP_NEG, a), b), "-a * b");
    assert_expr(B(CC_OP_SUB, a, I(-3)), "a - -3");
    assert_expr(B(CC_OP_MUL, I(-3), a), "-3 * a");
    assert_expr(U(CC_OP_NEG, I(-3)), "--3");
    assert_expr(B(CC_OP_LT, B(CC_OP_ADD, a, I(1)), b), "a + 1 < b");
    assert_expr(B(CC_OP_EQ, B(CC_OP_LT, a, b), c), "(a < b) == c");
    assert_expr(B(CC_OP_EQ, a, B(CC_OP_LT, b, c)), "a == (b < c)");
    assert_expr(B(CC_OP_OR, B(CC_OP_AND, a, b), c), "a and b or c");
    assert_expr(B(CC_OP_AND, B(CC_OP_OR, a, b), c), "(a or b) and c");
    assert_expr(B(CC_OP_AND, a, B(CC_OP_AND, b, c)), "a and (b and c)");
    assert_expr(U(CC_OP_NOT, B(CC_OP_LT, a, b)), "not a < b");
    assert_expr(U(CC_OP_NOT, B(CC_OP_AND, a, b)), "not (a and b)");
    assert_expr(B(CC_OP_AND, U(CC_OP_NOT, a), b), "not a and b");
    assert_expr(B(CC_OP_LT, U(CC_OP_NOT, a), b), "(not a) < b");
    assert_expr(B(CC_OP_MIN, B(CC_OP_ADD, a, b), B(CC_OP_MAX, c, I(0))), "min(a + b, max(c, 0))");
    assert_expr(B(CC_OP_MUL, B(CC_OP_MIN, a, b), c), "min(a, b) * c");
}

PRINTER_TEST(test_printer_compact_mode)
{
    cc_ir_expr *i = V("i");
    assert_compact(B(CC_OP_ADD, B(CC_OP_MUL, i, I(64)), I(64)), "i*64+64");
    assert_compact(B(CC_OP_MUL, B(CC_OP_SUB, V("n"), i), I(2)), "(n-i)*2");
    assert_compact(B(CC_OP_MIN, B(CC_OP_ADD, i, I(1)), V("n")), "min(i+1,n)");
    assert_compact(B(CC_OP_AND, B(CC_OP_LT, i, V("n")), U(CC_OP_NOT, V("b"))), "i<n and not b");
    assert_compact(U(CC_OP_NEG, i), "-i");
}

/* ---- ops ------------------------------------------------------------------------------------ */

PRINTER_TEST(test_printer_op_load)
{
    cc_ir_expr *offs = L(2, B(CC_OP_MUL, V("i"), I(64)), I(0)), *shapes = L(2, I(64), I(128));
    cc_ir_expr *plain = OP(CC_IR_LOAD, T("a"), offs, shapes, NULL);
    cc_ir_expr *full = OP(CC_IR_LOAD, T("a"), offs, shapes, L(2, V("r"), I(128)));
    full->u.op.clamp = 1, full->u.op.cache = CC_CACHE_BYPASS;
    cc_ir_expr *implicit = OP(CC_IR_LOAD, T("a"), L(2, I(0), I(0)), L(2, I(256), I(128)), NULL);
    implicit->u.op.implicit = 1, implicit->u.op.cache = CC_CACHE_DEFAULT;
    assert_expr(plain, "pl.load(a, [i * 64, 0], [64, 128])");
    assert_expr(full, "pl.load(a, [i * 64, 0], [64, 128], valid_shape=[r, 128], clamp=True, cache=pl.CachePolicy.BYPASS)");
    assert_expr(implicit, "pl.load(a, [0, 0], [256, 128], cache=pl.CachePolicy.DEFAULT)");
}

PRINTER_TEST(test_printer_op_store)
{
    cc_ir_expr *offs = L(2, I(0), V("j"));
    assert_expr(OP(CC_IR_STORE, X("x"), offs, T("out"), NULL), "pl.store(x, [0, j], out)");
    assert_expr(OP(CC_IR_STORE, X("x"), offs, T("out"), L(2, I(64), I(128))),
                "pl.store(x, [0, j], out, shapes=[64, 128])");
}

PRINTER_TEST(test_printer_op_elementwise)
{
    static const cc_ir_op binary[] = {CC_IR_ADD, CC_IR_SUB, CC_IR_MUL, CC_IR_DIV, CC_IR_MAXIMUM, CC_IR_MINIMUM};
    static const cc_ir_op unary[] = {CC_IR_EXP, CC_IR_NEG, CC_IR_SQRT, CC_IR_ABS, CC_IR_RELU};
    char want[64];
    for (size_t k = 0; k < sizeof binary / sizeof binary[0]; k++) {
        snprintf(want, sizeof want, "pl.%s(x, y)", cc_ir_op_name(binary[k]));
        assert_expr(OP(binary[k], X("x"), X("y")), want);
    }
    for (size_t k = 0; k < sizeof unary / sizeof unary[0]; k++) {
        snprintf(want, sizeof want, "pl.%s(x)", cc_ir_op_name(unary[k]));
        assert_expr(OP(unary[k], X("x")), want);
    }
    assert_expr(OP(CC_IR_MUL, X("x"), F(0.5)), "pl.mul(x, 0.5)");
}

PRINTER_TEST(test_printer_op_row_reductions)
{
    assert_expr(OP(CC_IR_ROW_SUM, X("x"), NULL), "pl.row_sum(x)");
    assert_expr(OP(CC_IR_ROW_MAX, X("x"), NULL), "pl.row_max(x)");
    assert_expr(OP(CC_IR_ROW_SUM, X("x"), X("y")), "pl.row_sum(x, tmp_tile=y)");
    assert_expr(OP(CC_IR_ROW_MAX, X("x"), X("y")), "pl.row_max(x, tmp_tile=y)");
}

PRINTER_TEST(test_printer_op_cast)
{
    cc_ir_expr *round = OP(CC_IR_CAST, X("x")), *floor = OP(CC_IR_CAST, X("x"));
    round->u.op.dtype = CC_DT_FP16, round->u.op.mode = CC_CAST_ROUND;
    floor->u.op.dtype = CC_DT_INT32, floor->u.op.mode = CC_CAST_FLOOR;
    assert_expr(round, "pl.cast(x, pl.FP16)");
    assert_expr(floor, "pl.cast(x, pl.INT32, mode=\"floor\")");
}

PRINTER_TEST(test_printer_op_matmul)
{
    cc_ir_expr *plain = OP(CC_IR_MATMUL, X("a"), X("b")), *typed = OP(CC_IR_MATMUL, X("a"), X("b"));
    typed->u.op.dtype = CC_DT_FP32;
    assert_expr(plain, "pl.matmul(a, b)");
    assert_expr(typed, "pl.matmul(a, b, out_dtype=pl.FP32)");
}

PRINTER_TEST(test_printer_op_create_tensor)
{
    cc_ir_expr *e = OP(CC_IR_CREATE_TENSOR, L(2, I(256), V("n")), NULL);
    e->u.op.dtype = CC_DT_BF16;
    assert_expr(e, "pl.create_tensor([256, n], pl.BF16)");
    e->u.op.args[1] = V("v"); /* init_value=, a keyword after the positional dtype */
    assert_expr(e, "pl.create_tensor([256, n], pl.BF16, init_value=v)");
}

/* ---- calls --------------------------------------------------------------------------------- */

PRINTER_TEST(test_printer_call_self_and_submit)
{
    cc_ir_func *g = fn("g", CC_FUNC_OPAQUE, 1), *k = fn("k", CC_FUNC_INCORE, 0);
    assert_expr(CALL(g, 0), "self.g()");
    assert_expr(CALL(g, 2, T("a"), I(3)), "self.g(a, 3)");
    cc_ir_expr *sub = CALL(k, 2, T("a"), T("b")), *sub0 = CALL(k, 0);
    sub->u.call.submit = 1, sub0->u.call.submit = 1;
    assert_expr(sub0, "pl.submit(self.k)");
    assert_expr(sub, "pl.submit(self.k, a, b)");
    sub->u.call.deps = alloc(2 * sizeof(cc_ir_expr *)), sub->u.call.ndeps = 2;
    sub->u.call.deps[0] = V("t0"), sub->u.call.deps[1] = V("t1");
    assert_expr(sub, "pl.submit(self.k, a, b, deps=[t0, t1])");
}

PRINTER_TEST(test_printer_call_comment_with_boxes)
{
    cc_ir_func *k = fn("kernel", CC_FUNC_INCORE, 0), *g = fn("g", CC_FUNC_OPAQUE, 1);
    cc_ir_expr *whole = CALL(k, 2, T("a"), T("out"));
    whole->u.call.boxes = alloc(2 * sizeof(cc_ir_box));
    whole->u.call.boxes[0] = (cc_ir_box){.dir = CC_DIR_IN, .rank = 2};
    whole->u.call.boxes[1] = (cc_ir_box){.dir = CC_DIR_INOUT, .rank = 2};
    cc_ir_expr *i64 = B(CC_OP_MUL, V("i"), I(64));
    cc_ir_expr *tiled = CALL(k, 3, T("a"), T("out"), V("i"));
    tiled->u.call.boxes = alloc(3 * sizeof(cc_ir_box));
    tiled->u.call.boxes[0] = (cc_ir_box){.dir = CC_DIR_IN, .rank = 2, .lo = {i64}, .hi = {B(CC_OP_ADD, i64, I(64))}};
    tiled->u.call.boxes[1] = tiled->u.call.boxes[0];
    tiled->u.call.boxes[1].dir = CC_DIR_OUT;
    cc_ir_expr *unboxed = CALL(k, 1, T("a")), *opaque = CALL(g, 1, T("a"));
    opaque->u.call.boxes = whole->u.call.boxes;
    assert_string_equal(body_text(blk(4, st_assign("out", whole), st_expr(tiled), st_expr(unboxed), st_expr(opaque))),
                        ORCH_F
                        "        out = self.kernel(a, out)  # a: In [0:256, 0:128]; out: InOut [0:256, 0:128]\n"
                        "        self.kernel(a, out, i)  # a: In [i*64:i*64+64, 0:128]; out: Out [i*64:i*64+64, 0:128]\n"
                        "        self.kernel(a)\n"
                        "        self.g(a)\n");
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_printer_empty_body_prints_pass),
    cmocka_unit_test(test_printer_functions_separated_by_one_blank_line),
    cmocka_unit_test(test_printer_decorator_auto_scope),
    cmocka_unit_test(test_printer_param_types_and_directions),
    cmocka_unit_test(test_printer_result_types),
    cmocka_unit_test(test_printer_assign_expr_return),
    cmocka_unit_test(test_printer_range_forms),
    cmocka_unit_test(test_printer_while),
    cmocka_unit_test(test_printer_elif_as_else),
    cmocka_unit_test(test_printer_scopes_both_modes),
    cmocka_unit_test(test_printer_at_deps_name_hint_as_cache_decls),
    cmocka_unit_test(test_printer_literals),
    cmocka_unit_test(test_printer_float_forms),
    cmocka_unit_test(test_printer_string_escapes),
    cmocka_unit_test(test_printer_precedence_and_parens),
    cmocka_unit_test(test_printer_compact_mode),
    cmocka_unit_test(test_printer_op_load),
    cmocka_unit_test(test_printer_op_store),
    cmocka_unit_test(test_printer_op_elementwise),
    cmocka_unit_test(test_printer_op_row_reductions),
    cmocka_unit_test(test_printer_op_cast),
    cmocka_unit_test(test_printer_op_matmul),
    cmocka_unit_test(test_printer_op_create_tensor),
    cmocka_unit_test(test_printer_call_self_and_submit),
    cmocka_unit_test(test_printer_call_comment_with_boxes),
};

PTO_TEST_MAIN(tests)
