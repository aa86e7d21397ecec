/*
 * test_typecheck.c - stage 0 through pto_compile: the `with` rules of
 * docs/dsl.md, "pl.scope() and pl.manual_scope()" with their messages, order and spans, the
 * decorator rules (docs/dsl.md, "Decorators and function kinds", D01-D08 as far as C sees them), the statement
 * rules of docs/dsl.md, "Statements", name resolution (docs/dsl.md, "Expressions") and specialization to the
 * argument specs (docs/compiler.md, "Arguments").
 */
#include <stdlib.h>

#include "harness.h"
#include "dsl_compile.h"

#define HDR "import pypto.language as pl\n\n"
/* an auto_scope=False entry whose body is BODY (indented 4) */
#define OFF(body) HDR "@pl.jit(auto_scope=False)\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n" body "    return out\n"
#define DEF(body) HDR "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n" body "    return out\n"
#define AT "        with pl.at(level=pl.Level.CORE_GROUP):\n"
#define AT4 "    with pl.at(level=pl.Level.CORE_GROUP):\n"

static void test_with_p01_scope_positional(void **s)
{
    (void)s;
    DSL_ERROR(OFF("    with pl.scope(1):\n        pass\n"), "f", "ParserSyntaxError",
              "pl.scope() takes only a 'mode=' keyword, not positional arguments", 5, 10);
    DSL_ERROR(OFF("    with pl.scope(1, kind=2):\n        pass\n"), "f", "ParserSyntaxError", "not positional arguments", 5, 10);
}

static void test_with_p02_scope_unknown_keyword(void **s)
{
    (void)s;
    DSL_ERROR(OFF("    with pl.scope(kind=2):\n        pass\n"), "f", "ParserSyntaxError", "pl.scope() got an unexpected keyword 'kind'", 5, 10);
}

static void test_with_p03_manual_scope_arguments_and_mode(void **s)
{
    (void)s;
    DSL_ERROR(OFF("    with pl.manual_scope(1):\n        pass\n"), "f", "ParserSyntaxError", "pl.manual_scope() does not accept arguments", 5, 10);
    DSL_ERROR(OFF("    with pl.manual_scope(mode=pl.ScopeMode.MANUAL):\n        pass\n"), "f", "ParserSyntaxError",
              "pl.manual_scope() does not accept arguments", 5, 10);
    DSL_ERROR(OFF("    with pl.scope(mode=3):\n        pass\n"), "f", "ParserSyntaxError",
              "pl.scope(mode=...) must be pl.ScopeMode.AUTO or pl.ScopeMode.MANUAL", 5, 10);
}

static void test_with_p04_auto_scope_needs_opt_out(void **s)
{
    (void)s;
    pto_program *p = dsl_compile(DEF("    with pl.scope():\n        pass\n"), "f", PTO_STAGE_PARSE);
    const pto_diagnostic *d = dsl_expect_error(p, "ParserSyntaxError",
                                               "a hand-placed AUTO 'with pl.scope()' requires @pl.function(auto_scope=False)", 5, 10);
    assert_string_equal(d->hint, "set auto_scope=False on the decorator, or use pl.manual_scope()");
    pto_program_free(p);
    DSL_ERROR(HDR "@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.Orchestration)\n    def f(self, a, out):\n"
                  "        with pl.scope():\n            pass\n        return out\n",
              "P", "ParserSyntaxError", "requires @pl.function(auto_scope=False)", 7, 14);
}

static void test_with_p05_auto_scope_under_opt_out_prints(void **s)
{
    (void)s;
    pto_program *p = dsl_compile(OFF("    with pl.scope():\n" AT "            pl.store(pl.load(a, [0, 0], [64, 128]), [0, 0], out)\n"),
                                 "f", PTO_STAGE_PARSE);
    dsl_expect_ok(p);
    assert_non_null(strstr(pto_program_text(p), "auto_scope=False)\n"));
    assert_non_null(strstr(pto_program_text(p), "        with pl.scope():\n            with pl.at("));
    pto_program_free(p);
}

static void test_with_p06_manual_in_default_mode(void **s)
{
    (void)s;
    pto_program *a = dsl_compile(DEF("    with pl.scope(mode=pl.ScopeMode.MANUAL):\n        pass\n"), "f", PTO_STAGE_PARSE);
    pto_program *b = dsl_compile(DEF("    with pl.manual_scope():\n        pass\n"), "f", PTO_STAGE_PARSE);
    dsl_expect_ok(a);
    assert_non_null(strstr(pto_program_text(a), "with pl.scope(mode=pl.ScopeMode.MANUAL):"));
    assert_string_equal(pto_program_text(a), pto_program_text(b));
    pto_program_free(a);
    pto_program_free(b);
}

static void test_with_p07_nesting_order(void **s)
{
    (void)s;
    DSL_ERROR(OFF("    with pl.manual_scope():\n        with pl.manual_scope():\n            pass\n"), "f", "ParserSyntaxError",
              "a manual scope may not be nested inside another manual scope", 6, 14);
    DSL_ERROR(OFF("    with pl.manual_scope():\n        with pl.scope():\n            pass\n"), "f", "ParserSyntaxError",
              "an AUTO scope may not be nested inside a manual scope", 6, 14);
    DSL_ERROR(DEF("    with pl.manual_scope():\n        with pl.scope():\n            pass\n"), "f", "ParserSyntaxError",
              "requires @pl.function(auto_scope=False)", 6, 14);
}

static void test_with_p08_scope_in_kernel_code(void **s)
{
    (void)s;
    DSL_ERROR(OFF("    with pl.at(level=pl.Level.CORE_GROUP):\n        with pl.manual_scope():\n            pass\n"), "f",
              "ParserSyntaxError",
              "a runtime scope is not allowed in kernel code (inside a pl.at(level=pl.Level.CORE_GROUP) body); move it", 6, 14);
    DSL_ERROR(HDR "@pl.jit.incore\ndef k(out: pl.Out[pl.Tensor]):\n    with pl.manual_scope():\n        pass\n    return out\n\n"
                  "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n    k(out)\n    return out\n",
              "f", "ParserSyntaxError", "a runtime scope is not allowed in kernel code (in InCore function 'k')", 5, 10);
}

static void test_with_p09_as_several_items_other_managers(void **s)
{
    (void)s;
    DSL_ERROR(OFF("    with pl.scope() as s:\n        pass\n"), "f", "ParserSyntaxError",
              "`with pl.scope(...) as ...:` is not supported — the `as` clause only applies to pl.at", 5, 10);
    DSL_ERROR(OFF("    with pl.scope(), pl.manual_scope():\n        pass\n"), "f", "ParserSyntaxError",
              "Only single context manager supported in with statement", 5, 22);
    DSL_ERROR(OFF("    with open(f):\n        pass\n"), "f", "UnsupportedFeatureError", "Unsupported context manager in with statement", 5, 10);
    DSL_ERROR(OFF("    with pl.spmd(4):\n        pass\n"), "f", "ParserSyntaxError",
              "`with pl.spmd(...)` body neither reads the per-block index via `pl.tile.get_block_idx()` nor dispatches a "
              "`self.<kernel>(...)` call, so every block would run identical work.", 5, 10);
}

static void test_with_p10_error_text_starts_with_location(void **s)
{
    (void)s;
    pto_program *p = dsl_compile(OFF("    with pl.scope(1):\n        pass\n"), "f", PTO_STAGE_LOWER);
    char buf[1024];
    pto_program_diag_format(p, 0, buf, sizeof buf);
    assert_true(!strncmp(buf, "k.py:5:10: error: pl.scope() takes only", 39));
    assert_non_null(strstr(buf, "\n    with pl.scope(1):\n         ^^^^^^^^^^^"));
    pto_program_free(p);
}

static void test_decorator_d01_jit_forms(void **s)
{
    (void)s;
    pto_program *p = dsl_compile(HDR "@pl.jit()\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n    return out\n", "f", PTO_STAGE_PARSE);
    dsl_expect_ok(p);
    assert_non_null(strstr(pto_program_text(p), "@pl.function(type=pl.FunctionType.Orchestration)\n"));
    pto_program_free(p);
    DSL_ERROR(HDR "@pl.jit(level=pl.Level.CORE_GROUP)\ndef f(out):\n    return out\n", "f", "TypeError",
              "@pl.jit got an unexpected keyword argument 'level'", 3, 9);
    DSL_ERROR(HDR "@pl.jit(auto_scope=\"no\")\ndef f(out):\n    return out\n", "f", "TypeError", "auto_scope must be a bool, got str", 3, 20);
}

static void test_decorator_d02_d03_incore_opaque_reject_auto_scope(void **s)
{
    (void)s;
    static const char *const forms[] = {"@pl.jit.incore(auto_scope=False)", "@pl.jit.incore(auto_scope=True)"};
    char src[512];
    for (int k = 0; k < 2; k++) {
        snprintf(src, sizeof src, HDR "%s\ndef k(out: pl.Out[pl.Tensor]):\n    return out\n\n@pl.jit\ndef f(out: pl.Out[pl.Tensor]):\n    k(out)\n    return out\n", forms[k]);
        DSL_ERROR(src, "f", "TypeError", "@pl.jit.incore does not accept an auto_scope= argument (auto_scope is only meaningful for the Orchestration entry", 3, 0);
    }
    DSL_ERROR(HDR "@pl.jit.opaque(auto_scope=False)\ndef g(out):\n    return out\n", "g", "TypeError", "@pl.jit.opaque does not accept an auto_scope=", 3, 0);
    DSL_ERROR(HDR "@pl.jit.opaque(level=pl.Level.CHIP, auto_scope=False)\ndef g(out):\n    return out\n", "g", "TypeError",
              "@pl.jit.opaque does not accept a level= argument", 3, 0);
}

/* A module's other kernels count only when the entry reaches them: a broken
 * declaration elsewhere in the file does not stop this entry, and is
 * reported (at its decorator) once a call reaches it. */
static void test_decorator_errors_only_of_reached_functions(void **s)
{
    (void)s;
    const char *bad = "@pl.jit.incore(level=pl.Level.AIV)\ndef k(out: pl.Out[pl.Tensor]):\n    return out\n\n";
    char src[1024];
    snprintf(src, sizeof src, HDR "%s@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n    return out\n", bad);
    pto_program *p = dsl_compile(src, "f", PTO_STAGE_ALL);
    dsl_expect_ok(p);
    pto_program_free(p);
    snprintf(src, sizeof src, HDR "%s@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n    out = k(out)\n    return out\n", bad);
    DSL_ERROR(src, "f", "UnsupportedFeatureError", "pl.Level.AIV is Ascend-specific: it selects a compiler-internal function kind or core type; it has no meaning on the CPU backend", 3, 22);
}

static void test_decorator_d05_host_is_called_by_python_only(void **s)
{
    (void)s;
    DSL_ERROR(HDR "@pl.jit.host(auto_scope=False)\ndef h(out):\n    return out\n\n@pl.jit\ndef f(out: pl.Out[pl.Tensor]):\n    h(out)\n    return out\n",
              "f", "InvalidOperationError", "'h' is a @pl.jit.host function; only Python calls it", 9, 5);
    DSL_ERROR(HDR "@pl.jit.host(level=pl.Level.HOST)\ndef h(out):\n    return out\n", "h", "TypeError", "@pl.jit.host does not accept a level= argument", 3, 0);
}

static void test_decorator_d06_incore_level(void **s)
{
    (void)s;
    DSL_ERROR(HDR "@pl.jit.incore(level=pl.Level.AIV)\ndef k(out: pl.Out[pl.Tensor]):\n    return out\n", "k", "UnsupportedFeatureError",
              "pl.Level.AIV is Ascend-specific: it selects a compiler-internal function kind or core type; it has no meaning on the CPU backend", 3, 22);
    pto_program *p = dsl_compile(HDR "@pl.jit.incore(level=pl.Level.CORE_GROUP)\ndef k(out: pl.Out[pl.Tensor]):\n"
                                     "    pl.store(pl.load(out, [0, 0], [8, 8]), [0, 0], out)\n    return out\n\n"
                                     "@pl.jit\ndef f(out: pl.Out[pl.Tensor]):\n    out = k(out)\n    return out\n",
                                 "f", PTO_STAGE_PARSE);
    dsl_expect_ok(p);
    pto_program_free(p);
}

static void test_decorator_d07_function_auto_scope_literal(void **s)
{
    (void)s;
    DSL_ERROR(HDR "FLAG = False\n\n@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.Orchestration, auto_scope=FLAG)\n"
                  "    def f(self, out):\n        return out\n",
              "P", "ParserSyntaxError", "`@pl.function(auto_scope=...)` must be a bool literal (True/False)", 7, 65);
    DSL_ERROR(HDR "@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.InCore, auto_scope=False)\n    def k(self, out):\n        return out\n",
              "P", "ParserSyntaxError", "@pl.function(type=pl.FunctionType.InCore) does not accept auto_scope=", 5, 0);
}

static void test_decorator_d08_config_parameter_reserved(void **s)
{
    (void)s;
    DSL_ERROR(HDR "@pl.jit\ndef f(out, config):\n    return out\n", "f", "TypeError", "@pl.jit function 'f': parameter name 'config' is reserved", 4, 12);
    DSL_ERROR(HDR "@pl.jit.incore\ndef k(out: pl.Out[pl.Tensor]):\n    return out\n", "k", "TypeError",
              "@pl.jit.incore function 'k' cannot be called directly; call it from a @pl.jit entry", 3, 1);
}

static void test_stmt_return_must_be_last(void **s)
{
    (void)s;
    DSL_ERROR(OFF("    return out\n    pass\n    out = out\n"), "f", "ParserSyntaxError", "return must be the last statement of 'f'", 5, 5);
    pto_program *p = dsl_compile(OFF("    with pl.scope():\n        return out\n"), "f", PTO_STAGE_PARSE);
    pto_program_free(p); /* a return inside a trailing scope is last; the OFF tail adds a second one */
    p = dsl_compile(HDR "@pl.jit(auto_scope=False)\ndef f(out: pl.Out[pl.Tensor]):\n    with pl.scope():\n        return out\n", "f", PTO_STAGE_PARSE);
    dsl_expect_ok(p);
    pto_program_free(p);
}

static void test_stmt_expression_without_effect(void **s)
{
    (void)s;
    DSL_ERROR(OFF("    1 + 2\n"), "f", "ParserSyntaxError", "expression statement has no effect", 5, 5);
    DSL_ERROR(OFF("    min(1, 2)\n"), "f", "ParserSyntaxError", "expression statement has no effect", 5, 5);
}

static void test_stmt_range_errors(void **s)
{
    (void)s;
    DSL_ERROR(OFF("    for i in pl.range():\n        pass\n"), "f", "ParserSyntaxError", "pl.range() requires at least 1 argument (stop)", 5, 14);
    DSL_ERROR(OFF("    for i in pl.range(1, 2, 3, 4):\n        pass\n"), "f", "ParserSyntaxError", "pl.range() takes 1 to 3 positional arguments, got 4", 5, 14);
    DSL_ERROR(OFF("    for i in pl.range(4, step=2):\n        pass\n"), "f", "ParserSyntaxError", "Unknown keyword argument 'step' in pl.range()", 5, 26);
    DSL_ERROR(OFF("    for i in pl.range(0, 4, 0):\n        pass\n"), "f", "ParserSyntaxError", "pl.range() step must be non-zero", 5, 29);
    DSL_ERROR(OFF("    for i in [1, 2]:\n        pass\n"), "f", "ParserSyntaxError", "for loops must iterate over pl.range(...), pl.parallel(...), pl.pipeline(...), pl.unroll(...) or pl.while_(...)", 5, 14);
    DSL_ERROR(OFF("    for i in pl.func_attr(4):\n        pass\n"), "f", "ParserSyntaxError",
              "for loops must iterate over pl.range(...), pl.parallel(...), pl.pipeline(...), pl.unroll(...) or pl.while_(...)", 5, 14);
}

static void test_stmt_loop_variable_not_defined_after(void **s)
{
    (void)s;
    DSL_ERROR(OFF("    for i in pl.range(4):\n        pass\n    j = i\n"), "f", "UndefinedVariableError", "'i' is used before assignment", 7, 9);
}

static void test_stmt_unpack_counts(void **s)
{
    (void)s;
    DSL_ERROR(OFF("    x, y = 1, 2, 3\n"), "f", "ParserSyntaxError", "cannot unpack 3 value(s) into 2 name(s)", 5, 5);
    DSL_ERROR(HDR "@pl.jit.incore\ndef k(out: pl.Out[pl.Tensor]):\n    pl.store(pl.load(out, [0, 0], [8, 8]), [0, 0], out)\n    return out\n\n"
                  "@pl.jit\ndef f(out: pl.Out[pl.Tensor]):\n    with pl.manual_scope():\n        x, y, t = pl.submit(k, out)\n    return out\n",
              "f", "ParserSyntaxError", "pl.submit(k) unpacks 3 result value(s) but kernel returns 1", 11, 9);
    pto_program *p = dsl_compile(HDR "@pl.jit.incore\ndef k(out: pl.Out[pl.Tensor]):\n    return out\n\n"
                                     "@pl.jit\ndef f(out: pl.Out[pl.Tensor]):\n    with pl.manual_scope():\n        t = pl.submit(k, out)\n    return out\n",
                                 "f", PTO_STAGE_LOWER);
    const pto_diagnostic *d = dsl_expect_error(p, "ParserSyntaxError", "pl.submit(k) unpacks 1 result value(s) but kernel returns 1", 10, 9);
    assert_string_equal(d->hint, "pl.submit gives the kernel's 1 result(s), then the task's TaskId: unpack 2 name(s)");
    pto_program_free(p);
}

/* A kernel (InCore) or Opaque call runs as a statement of its own: the whole
 * value of an assignment or an expression statement.  Nested anywhere else
 * (an argument, a tuple or list) it used to reach lowering as an
 * internal error; an Inline call is spliced and may nest. */
#define KERNELS HDR "@pl.jit.incore\ndef k(a: pl.Tensor, o: pl.Out[pl.Tensor]):\n    return o\n\n" \
                    "@pl.jit.opaque\ndef op(a: pl.Tensor, o: pl.Out[pl.Tensor]):\n    o = k(a, o)\n    return o\n\n" \
                    "@pl.jit.inline\ndef inl(a: pl.Tensor, o: pl.Out[pl.Tensor]):\n    o = k(a, o)\n    return o\n\n" \
                    "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
static void test_kernel_call_stands_alone_in_its_statement(void **s)
{
    (void)s;
    static const char *const cases[][2] = {{"    out = k(k(a, out), out)\n    return out\n", "k"}, {"    c, d = k(a, out), a\n    return c\n", "k"},
                                           {"    x = [op(a, out), a]\n    return out\n", "op"}};
    static const int cols[] = {13, 12, 10}; /* an entry's `return k(...)` is T-ret (DSL-V2-SPEC §1.6, test_dsl_crossing.c) */
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char src[1024], msg[96];
        snprintf(src, sizeof src, KERNELS "%s", cases[c][0]);
        snprintf(msg, sizeof msg, "a call of '%s' inside an expression is not supported in this version", cases[c][1]);
        pto_program *p = dsl_compile(src, "f", PTO_STAGE_LOWER);
        const pto_diagnostic *d = dsl_expect_error(p, "UnsupportedFeatureError", msg, 19, cols[c]);
        assert_string_equal(d->hint, "call it in a statement of its own (o = k(...)) and use the result by name");
        pto_program_free(p);
    }
    static const char *const want[] = {"out = self.k(inl_value, out)", "out = self.op(a, out)", NULL};
    pto_program *p = dsl_compile(KERNELS "    out = k(inl(a, out), out)\n    out = op(a, out)\n    k(a, out)\n    return out\n", "f", PTO_STAGE_LOWER);
    dsl_expect_text_contains(p, want);
    pto_program_free(p);
}

static void test_names_use_before_and_maybe_assignment(void **s)
{
    (void)s;
    DSL_ERROR(OFF("    y = x\n    x = 1\n"), "f", "UndefinedVariableError", "'x' is used before assignment", 5, 9);
    DSL_ERROR(OFF("    if 1 > 0:\n        x = 1\n    y = x\n"), "f", "UndefinedVariableError",
              "'x' may be used before assignment (assigned only in some branches)", 7, 9);
    DSL_ERROR(OFF("    y = nope\n"), "f", "UndefinedVariableError", "name 'nope' is not defined", 5, 9);
    pto_program *p = dsl_compile(OFF("    if 1 > 0:\n        x = 1\n    else:\n        x = 2\n    y = x\n"), "f", PTO_STAGE_PARSE);
    dsl_expect_ok(p);
    pto_program_free(p);
}

static void test_names_kind_change_across_merge(void **s)
{
    (void)s;
    DSL_ERROR(OFF("    x = 1\n    for i in pl.range(4):\n        x = 2.0\n    y = x\n"), "f", "ParserTypeError",
              "'x' changes from pl.Scalar[pl.INDEX] to pl.Scalar[pl.FP32] across a loop or branch merge", 7, 9);
    pto_program *p = dsl_compile(OFF("    x = 1\n    x = 2.0\n"), "f", PTO_STAGE_PARSE); /* straight line: fine */
    dsl_expect_ok(p);
    pto_program_free(p);
}

/* docs/dsl.md, "Statements": only a name live across a merge must keep its kind (read
 * after an if, or by the loop's next iteration or after the loop, before
 * being assigned again). */
static void test_names_kind_change_of_a_name_not_read_after_the_merge_is_fine(void **s)
{
    (void)s;
    static const char *const fine[] = {
        "    x = 1\n    if 1 > 0:\n        x = 2.5\n", /* never read again (the audit's case) */
        "    x = 1\n    for i in pl.range(4):\n        x = 2.5\n",
        "    x = 1\n    if 1 > 0:\n        x = 2.5\n    x = 3\n    y = x + 1\n", /* assigned again before the read */
        "    x = 1\n    for i in pl.range(4):\n        x = 2.5\n        y = x * 2.0\n", /* the body assigns before it reads */
        "    x = 1\n    if 1 > 0:\n        if 2 > 1:\n            x = 2.5\n        x = 4\n    y = x\n",
        "    for i in pl.range(4):\n        i = 2.5\n", /* the loop head assigns i */
        "    t = 1\n    with pl.at(level=pl.Level.CORE_GROUP):\n        if 1 > 0:\n"
        "            t = pl.load(a, [0, 0], [64, 128])\n        pl.store(pl.load(a, [0, 0], [64, 128]), [0, 0], out)\n",
    };
    for (size_t k = 0; k < sizeof fine / sizeof fine[0]; k++) {
        char src[640];
        snprintf(src, sizeof src, OFF("%s"), fine[k]);
        pto_program *p = dsl_compile(src, "f", PTO_STAGE_LOWER);
        dsl_expect_ok(p);
        pto_program_free(p);
    }
}

/* The error cites the rebinding ; its hint, the read that makes the
 * name live. */
static void test_names_kind_change_read_after_the_merge_names_the_read(void **s)
{
    (void)s;
    static const struct { const char *body; int line, col; const char *hint; } bad[] = {
        {"    x = 1\n    if 1 > 0:\n        x = 2.5\n    y = x\n", 7, 9, "it is read at line 8, column 9"},
        {"    x = 1\n    if 1 > 0:\n        pass\n    else:\n        x = 2.5\n    if 2 > 1:\n        y = x\n", 9, 9,
         "it is read at line 11, column 13"},
        {"    x = 1\n    for i in pl.range(4):\n        y = x + 1\n        x = 2.5\n", 8, 9, "it is read at line 7, column 13"},
        {"    x = 1\n    for i in pl.range(4):\n        if 1 > 0:\n            x = 2.5\n    y = x\n", 8, 13,
         "it is read at line 9, column 9"},
        {"    x = 1\n    while x < 3:\n        x = 2.5\n", 7, 9, "it is read at line 6, column 11"},
        {"    x = 1\n    for i in pl.range(4):\n        for j in pl.range(2):\n            y = x\n        x = 2.5\n", 9, 9,
         "it is read at line 8, column 17"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        char src[640];
        snprintf(src, sizeof src, OFF("%s"), bad[k].body);
        pto_program *p = dsl_compile(src, "f", PTO_STAGE_LOWER);
        const pto_diagnostic *d = dsl_expect_error(p, "ParserTypeError", "'x' changes from pl.Scalar[pl.INDEX] to pl.Scalar[pl.FP32] "
                                                   "across a loop or branch merge", bad[k].line, bad[k].col);
        assert_string_equal(d->hint, bad[k].hint);
        pto_program_free(p);
    }
    /* a loop variable bound before the loop: a zero-trip loop leaves the old value */
    pto_program *p = dsl_compile(OFF("    i = 2.5\n    for i in pl.range(4):\n        pass\n    y = i\n"), "f", PTO_STAGE_LOWER);
    const pto_diagnostic *d = dsl_expect_error(p, "ParserTypeError", "'i' changes from pl.Scalar[pl.FP32] to pl.Scalar[pl.INDEX] "
                                               "across a loop or branch merge", 6, 9);
    assert_string_equal(d->hint, "it is read at line 8, column 9");
    pto_program_free(p);
}

static void test_names_pl_unknown_and_later(void **s)
{
    (void)s;
    DSL_ERROR(OFF(AT4 "        t = pl.lod(a, [0, 0], [64, 128])\n"), "f", "UndefinedVariableError", "pl.lod is not a pypto.language name", 6, 13);
    DSL_ERROR(OFF(AT4 "        t = pl.expand(a, [0, 0], [64, 128])\n"), "f", "UnsupportedFeatureError", "pl.expand is not supported in this version", 6, 13);
    DSL_ERROR(OFF(AT4 "        t = pl.load(a, [0, 0], [64, 128])\n        u = pl.cast(t, pl.UINT64)\n"), "f",
              "UnsupportedFeatureError", "dtype pl.UINT64 is not supported in this version", 7, 24);
}

static void test_names_constants_folded_and_caller_wins(void **s)
{
    (void)s;
    const char *src = HDR "N, TR = 4, 64\nROWS = N * TR\n\n@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                          "    with pl.at(level=pl.Level.CORE_GROUP):\n        for i in pl.range(N):\n"
                          "            pl.store(pl.load(a, [i * TR, 0], [TR, ROWS // 2]), [i * TR, 0], out)\n    return out\n";
    pto_program *p = dsl_compile(src, "f", PTO_STAGE_PARSE);
    dsl_expect_ok(p);
    assert_non_null(strstr(pto_program_text(p), "for i in pl.range(4):"));
    assert_non_null(strstr(pto_program_text(p), "pl.load(a, [i * 64, 0], [64, 128])"));
    pto_program_free(p);
    pto_constant c = {"N", {.kind = PTO_VALUE_INT, .i = 2}};
    pto_compile_options o = {.filename = "k.py", .source = src, .source_len = strlen(src), .entry = "f", .constants = &c,
                             .nconstants = 1, .args = dsl_default_args, .nargs = 2, .stop_after = PTO_STAGE_PARSE};
    assert_int_equal(pto_compile(&o, &p), 0);
    assert_non_null(strstr(pto_program_text(p), "for i in pl.range(2):"));
    pto_program_free(p);
}

static void test_names_uncapturable_constant(void **s)
{
    (void)s;
    const char *src = OFF("    x = cfg\n");
    pto_constant c = {"cfg", {.kind = PTO_VALUE_OBJECT, .s = "dict"}};
    pto_compile_options o = {.filename = "k.py", .source = src, .source_len = strlen(src), .entry = "f", .constants = &c,
                             .nconstants = 1, .args = dsl_default_args, .nargs = 2};
    pto_program *p;
    assert_int_equal(pto_compile(&o, &p), 1);
    dsl_expect_error(p, "ParserTypeError", "'cfg' refers to a dict object, which kernel code cannot capture; pass it as an argument", 5, 9);
    pto_program_free(p);
}

static void test_scalars_true_division_and_taskid(void **s)
{
    (void)s;
    DSL_ERROR(OFF("    x = 7 / 2\n"), "f", "ParserTypeError", "true division of integers is not supported in kernel code; use //", 5, 9);
    DSL_ERROR(HDR "@pl.jit.incore\ndef k(out: pl.Out[pl.Tensor]):\n    pl.store(pl.load(out, [0, 0], [8, 8]), [0, 0], out)\n    return out\n\n"
                  "@pl.jit\ndef f(out: pl.Out[pl.Tensor]):\n    with pl.manual_scope():\n        o, t = pl.submit(k, out)\n        u = t + 1\n    return out\n",
              "f", "ParserTypeError", "a TaskId can only be passed in deps=", 12, 13);
}

static void test_spec_entry_shapes_and_missing(void **s)
{
    (void)s;
    DSL_ERROR(HDR "@pl.jit\ndef f(b: pl.Tensor, out: pl.Out[pl.Tensor]):\n    return out\n", "f", "TypeError",
              "@pl.jit function 'f': missing a required argument: 'b'", 4, 7);
    DSL_ERROR(HDR "@pl.jit\ndef f(a: pl.Tensor[[64, 128], pl.FP32], out: pl.Out[pl.Tensor]):\n    return out\n", "f", "TypeError",
              "argument 'a' has shape [256, 128] but its annotation requires [64, 128]", 4, 7);
}

static void test_spec_scalar_argument_folded(void **s)
{
    (void)s;
    const char *src = HDR "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar[pl.INT8]):\n"
                          "    with pl.at(level=pl.Level.CORE_GROUP):\n        for i in pl.range(n):\n"
                          "            pl.store(pl.load(a, [i, 0], [1, 128]), [i, 0], out)\n    return out\n";
    pto_arg_spec args[3] = {dsl_default_args[0], dsl_default_args[1], {.name = "n", .kind = PTO_ARG_SCALAR, .value = {.kind = PTO_VALUE_INT, .i = 3}}};
    pto_program *p = dsl_compile_with(src, "f", PTO_STAGE_PARSE, 0, args, 3);
    dsl_expect_ok(p);
    assert_non_null(strstr(pto_program_text(p), "n: pl.Scalar[pl.INT8]"));
    assert_non_null(strstr(pto_program_text(p), "for i in pl.range(3):"));
    pto_program_free(p);
    args[2].value.i = 300;
    p = dsl_compile_with(src, "f", PTO_STAGE_PARSE, 0, args, 3);
    dsl_expect_error(p, "TypeError", "'f' argument 'n' = 300 does not fit pl.INT8", 4, 45);
    pto_program_free(p);
}

/* A specialized parameter a loop reassigns holds its constant only before
 * the loop: inside (a while's condition included) and after it, it is the
 * run-time value.  It used to stay folded, so every iteration saw 3. */
static void test_spec_scalar_reassigned_in_a_loop_is_not_folded_there(void **s)
{
    (void)s;
    const char *src = HDR "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar):\n"
                          "    z = n * 2\n    for i in pl.range(3):\n        y = n + 1\n        n = y\n"
                          "    while n > 0:\n        n = n - 1\n    w = n\n    return out\n";
    pto_arg_spec args[3] = {dsl_default_args[0], dsl_default_args[1], {.name = "n", .kind = PTO_ARG_SCALAR, .value = {.kind = PTO_VALUE_INT, .i = 3}}};
    pto_program *p = dsl_compile_with(src, "f", PTO_STAGE_PARSE, 0, args, 3);
    static const char *const want[] = {"z = 6\n", "y = n + 1\n", "while n > 0:\n", "w = n\n", NULL};
    dsl_expect_text_contains(p, want);
    pto_program_free(p);
}

/* A scalar spec holding a str (ptoc --scalar n=abc) or another object is
 * refused, naming its type; it was read as 0. */
static void test_spec_scalar_argument_of_another_kind_is_type_error(void **s)
{
    (void)s;
    const char *src = HDR "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar):\n    return out\n";
    pto_arg_spec args[3] = {dsl_default_args[0], dsl_default_args[1], {.name = "n", .kind = PTO_ARG_SCALAR, .value = {.kind = PTO_VALUE_STR, .s = "abc"}}};
    pto_program *p = dsl_compile_with(src, "f", PTO_STAGE_PARSE, 0, args, 3);
    dsl_expect_error(p, "TypeError", "@pl.jit function 'f': argument 'n' must be a Python int, float or bool, got str", 4, 45);
    pto_program_free(p);
    args[2].value = (pto_value){.kind = PTO_VALUE_OBJECT, .s = "dict"};
    p = dsl_compile_with(src, "f", PTO_STAGE_PARSE, 0, args, 3);
    dsl_expect_error(p, "TypeError", "@pl.jit function 'f': argument 'n' must be a Python int, float or bool, got dict", 4, 45);
    pto_program_free(p);
}

static void test_calls_binding_and_recursion(void **s)
{
    (void)s;
    const char *k = HDR "@pl.jit.incore\ndef k(x, out: pl.Out[pl.Tensor]):\n    pl.store(pl.load(x, [0, 0], [8, 8]), [0, 0], out)\n    return out\n\n";
    char src[1024];
    snprintf(src, sizeof src, "%s@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n    out = k(a)\n    return out\n", k);
    DSL_ERROR(src, "f", "ParserTypeError", "'k' missing argument 'out'", 10, 11);
    snprintf(src, sizeof src, "%s@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n    out = k(a, out, y=1)\n    return out\n", k);
    DSL_ERROR(src, "f", "ParserTypeError", "'k' got an unexpected argument 'y'", 10, 21);
    DSL_ERROR(HDR "@pl.jit.opaque\ndef g(out):\n    g(out)\n    return out\n\n@pl.jit\ndef f(out: pl.Out[pl.Tensor]):\n    g(out)\n    return out\n",
              "f", "UnsupportedFeatureError", "recursive call of 'g' is not supported in this version", 5, 5);
    DSL_ERROR(HDR "@pl.jit\ndef g(out: pl.Out[pl.Tensor]):\n    return out\n\n@pl.jit\ndef f(out: pl.Out[pl.Tensor]):\n    g(out)\n    return out\n",
              "f", "InvalidOperationError", "'g' is a @pl.jit entry; an entry cannot call another entry", 9, 5);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_with_p01_scope_positional),
    cmocka_unit_test(test_with_p02_scope_unknown_keyword),
    cmocka_unit_test(test_with_p03_manual_scope_arguments_and_mode),
    cmocka_unit_test(test_with_p04_auto_scope_needs_opt_out),
    cmocka_unit_test(test_with_p05_auto_scope_under_opt_out_prints),
    cmocka_unit_test(test_with_p06_manual_in_default_mode),
    cmocka_unit_test(test_with_p07_nesting_order),
    cmocka_unit_test(test_with_p08_scope_in_kernel_code),
    cmocka_unit_test(test_with_p09_as_several_items_other_managers),
    cmocka_unit_test(test_with_p10_error_text_starts_with_location),
    cmocka_unit_test(test_decorator_d01_jit_forms),
    cmocka_unit_test(test_decorator_d02_d03_incore_opaque_reject_auto_scope),
    cmocka_unit_test(test_decorator_errors_only_of_reached_functions),
    cmocka_unit_test(test_decorator_d05_host_is_called_by_python_only),
    cmocka_unit_test(test_decorator_d06_incore_level),
    cmocka_unit_test(test_decorator_d07_function_auto_scope_literal),
    cmocka_unit_test(test_decorator_d08_config_parameter_reserved),
    cmocka_unit_test(test_stmt_return_must_be_last),
    cmocka_unit_test(test_stmt_expression_without_effect),
    cmocka_unit_test(test_stmt_range_errors),
    cmocka_unit_test(test_stmt_loop_variable_not_defined_after),
    cmocka_unit_test(test_stmt_unpack_counts),
    cmocka_unit_test(test_kernel_call_stands_alone_in_its_statement),
    cmocka_unit_test(test_names_use_before_and_maybe_assignment),
    cmocka_unit_test(test_names_kind_change_across_merge),
    cmocka_unit_test(test_names_kind_change_of_a_name_not_read_after_the_merge_is_fine),
    cmocka_unit_test(test_names_kind_change_read_after_the_merge_names_the_read),
    cmocka_unit_test(test_names_pl_unknown_and_later),
    cmocka_unit_test(test_names_constants_folded_and_caller_wins),
    cmocka_unit_test(test_names_uncapturable_constant),
    cmocka_unit_test(test_scalars_true_division_and_taskid),
    cmocka_unit_test(test_spec_entry_shapes_and_missing),
    cmocka_unit_test(test_spec_scalar_argument_folded),
    cmocka_unit_test(test_spec_scalar_reassigned_in_a_loop_is_not_folded_there),
    cmocka_unit_test(test_spec_scalar_argument_of_another_kind_is_type_error),
    cmocka_unit_test(test_calls_binding_and_recursion),
};

PTO_TEST_MAIN(tests)
