/*
 * test_ast_printer.c - the SYNTAX stage (src/compiler/ast_printer.c,
 * cc_check_entry): the entry printed as written with no argument specs
 * (docs/dsl.md, "What the compiler does", `Prog.as_python()`), the constants its code names, the
 * declaration checks, and pto_program_function (the method a program
 * compiles through when none is named).
 */
#include "harness.h"
#include "dsl_compile.h"

/* Compiled with no argument specs, stopped at stop. */
static pto_program *unspecialized(const char *src, const char *entry, int stop, const pto_constant *cs, size_t ncs)
{
    pto_compile_options o = {.filename = "k.py", .source = src, .source_len = strlen(src), .entry = entry,
                             .constants = cs, .nconstants = ncs, .stop_after = stop};
    pto_program *p = NULL;
    assert_true(pto_compile(&o, &p) >= 0);
    assert_non_null(p);
    return p;
}

static const char written_src[] =
    "import pypto.language as pl\n"
    "from pypto.runtime import RunConfig\n"
    "\n"
    "N = 4\n"
    "UNUSED = 9\n"
    "TWICE = N * 2\n"
    "\n"
    "@pl.program\n"
    "class P:\n"
    "    \"\"\"doc\"\"\"\n"
    "    @pl.function(type=pl.FunctionType.InCore)\n"
    "    def k(self, a, o: pl.InOut[pl.Tensor], s: pl.Scalar):\n"
    "        t = pl.load(o, [0, 0], [4, 8]); u = pl.load(a, [0, 0], [4, 8])\n"
    "        pl.store(pl.add(t, pl.mul(u, (s + 1) * 2 - s / 2.5e-3)), [0, 0], o)\n"
    "        return o\n"
    "\n"
    "    @pl.function(type=pl.FunctionType.Orchestration)\n"
    "    def main(self, a: pl.Tensor, o: pl.InOut[pl.Tensor], n: pl.Scalar[pl.INDEX]) -> pl.Tensor:\n"
    "        x, y = 1, -(n - 1)\n"
    "        if not (n > 2 and x == 1):\n"
    "            x += TWICE\n"
    "        elif (n < 0) == (x > 0):\n"
    "            pass\n"
    "        else:\n"
    "            y = y - (x - 1)\n"
    "        with pl.at(level=pl.Level.CORE_GROUP, name_hint=\"h1\"):\n"
    "            pl.store(pl.load(a, [0, 0], [4, 8]), [0, 0], o)\n"
    "        for i in pl.range(y, N):\n"
    "            o = self.k(s=1.0 * i, o=o, a=a)\n"
    "        return o\n";

static const char written_text[] =
    "import pypto.language as pl\n"
    "\n"
    "N = 4\n"
    "TWICE = N * 2\n"
    "\n"
    "@pl.program\n"
    "class P:\n"
    "    @pl.function(type=pl.FunctionType.InCore)\n"
    "    def k(self, a, o: pl.InOut[pl.Tensor], s: pl.Scalar):\n"
    "        t = pl.load(o, [0, 0], [4, 8])\n"
    "        u = pl.load(a, [0, 0], [4, 8])\n"
    "        pl.store(pl.add(t, pl.mul(u, (s + 1) * 2 - s / 0.0025)), [0, 0], o)\n"
    "        return o\n"
    "\n"
    "    @pl.function(type=pl.FunctionType.Orchestration)\n"
    "    def main(self, a: pl.Tensor, o: pl.InOut[pl.Tensor], n: pl.Scalar[pl.INDEX]) -> pl.Tensor:\n"
    "        x, y = 1, -(n - 1)\n"
    "        if not (n > 2 and x == 1):\n"
    "            x += TWICE\n"
    "        elif (n < 0) == (x > 0):\n"
    "            pass\n"
    "        else:\n"
    "            y = y - (x - 1)\n"
    "        with pl.at(level=pl.Level.CORE_GROUP, name_hint=\"h1\"):\n"
    "            pl.store(pl.load(a, [0, 0], [4, 8]), [0, 0], o)\n"
    "        for i in pl.range(y, N):\n"
    "            o = self.k(s=1.0 * i, o=o, a=a)\n"
    "        return o\n";

/* Bare pl.Tensor, unannotated and scalar parameters need no spec: the text
 * is the program as written (annotations, keyword arguments, source order),
 * with the constants it names; the other lines of the module are not in it. */
static void test_syntax_stage_prints_the_entry_as_written_without_specs(void **s)
{
    (void)s;
    pto_program *p = unspecialized(written_src, "P", PTO_STAGE_SYNTAX, NULL, 0);
    dsl_expect_ok(p);
    if (strcmp(pto_program_text(p), written_text)) fprintf(stderr, "%s", pto_program_text(p));
    assert_string_equal(pto_program_text(p), written_text);
    pto_program_free(p);
}

/* The text parses back to itself, and compiles through every stage to
 * what its source does: it is the same program. */
static void test_syntax_stage_text_is_the_same_program(void **s)
{
    (void)s;
    pto_program *p = unspecialized(written_text, "P", PTO_STAGE_SYNTAX, NULL, 0);
    dsl_expect_ok(p);
    assert_string_equal(pto_program_text(p), written_text);
    pto_program_free(p);
    const pto_arg_spec args[] = {
        {.name = "a", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {4, 8}},
        {.name = "o", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {4, 8}},
        {.name = "n", .kind = PTO_ARG_SCALAR, .value = {.kind = PTO_VALUE_INT, .i = 3}},
    };
    pto_program *a = dsl_compile_with(written_src, "P", PTO_STAGE_ALL, 0, args, 3);
    pto_program *b = dsl_compile_with(written_text, "P", PTO_STAGE_ALL, 0, args, 3);
    dsl_expect_ok(a);
    dsl_expect_ok(b);
    assert_string_equal(pto_program_text(b), pto_program_text(a));
    pto_program_free(a);
    pto_program_free(b);
}

/* Subscripts print as written at the SYNTAX stage (slices with omitted
 * bounds and steps, subscript-write targets), and the text reads back to
 * itself. */
static void test_syntax_stage_prints_subscripts_as_written(void **s)
{
    (void)s;
    static const char src[] =
        "import pypto.language as pl\n"
        "\n"
        "@pl.jit\n"
        "def f(a: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar[pl.INDEX]):\n"
        "    with pl.at(level=pl.Level.CORE_GROUP):\n"
        "        t = a[0:4, n:n + 8]\n"
        "        u = a[:, ::2]\n"
        "        v = a[1:, :n][0]\n"
        "        out[:] = t\n"
        "        out[n, 0:8:] = u\n"
        "    return out\n";
    pto_program *p = unspecialized(src, "f", PTO_STAGE_SYNTAX, NULL, 0);
    dsl_expect_ok(p);
    assert_string_equal(pto_program_text(p), src);
    pto_program_free(p);
}

/* A constant the caller resolved wins and prints as its value; one the
 * module defines prints as written, after the constants it names, once;
 * a Python object (which kernel code cannot capture) is left out. */
static void test_syntax_stage_prints_constants_once_after_those_they_name(void **s)
{
    (void)s;
    static const char src[] =
        "import pypto.language as L\n"
        "ROWS = 2 * HALF\n"
        "HALF = 32\n"
        "HALF = 2\n"
        "F = 0.5\n"
        "@L.jit.incore\n"
        "def k(a: L.Tensor[[ROWS, COLS], DT], out: L.Out[L.Tensor[[ROWS, COLS], DT]]):\n"
        "    L.store(L.mul(L.load(a, [0, 0], [ROWS, COLS]), F * SCALE), [0, 0], out)\n"
        "    return out\n"
        "@L.jit\n"
        "def f(a, out):\n"
        "    out = k(a, out)\n"
        "    x = OBJ\n"
        "    return out\n";
    const pto_constant given[] = {
        {.name = "COLS", .value = {.kind = PTO_VALUE_INT, .i = 128}},
        {.name = "SCALE", .value = {.kind = PTO_VALUE_FLOAT, .f = 1e-5}},
        {.name = "DT", .value = {.kind = PTO_VALUE_OBJECT, .s = "dtype"}},
        {.name = "OBJ", .value = {.kind = PTO_VALUE_OBJECT, .s = "dict"}},
        {.name = "F", .value = {.kind = PTO_VALUE_BOOL, .i = 1}},
    };
    pto_program *p = unspecialized(src, "f", PTO_STAGE_SYNTAX, given, 5);
    dsl_expect_ok(p);
    assert_string_equal(pto_program_text(p),
                        "import pypto.language as L\n"
                        "\n"
                        "HALF = 2\n"
                        "ROWS = 2 * HALF\n"
                        "COLS = 128\n"
                        "F = True\n"
                        "SCALE = 1e-05\n"
                        "\n"
                        "@L.jit.incore\n"
                        "def k(a: L.Tensor[[ROWS, COLS], DT], out: L.Out[L.Tensor[[ROWS, COLS], DT]]):\n"
                        "    L.store(L.mul(L.load(a, [0, 0], [ROWS, COLS]), F * SCALE), [0, 0], out)\n"
                        "    return out\n"
                        "\n"
                        "@L.jit\n"
                        "def f(a, out):\n"
                        "    out = k(a, out)\n"
                        "    x = OBJ\n"
                        "    return out\n");
    pto_program_free(p);
}

/* The SYNTAX stage still checks what it reads: the entry exists, the
 * decorators are valid. */
static void test_syntax_stage_checks_the_declarations(void **s)
{
    (void)s;
    pto_program *p = unspecialized(written_src, "Q", PTO_STAGE_SYNTAX, NULL, 0);
    dsl_expect_error(p, "TypeError", "no @pl.jit function or @pl.program class named 'Q'", 1, 1);
    pto_program_free(p);
    static const char bad[] = "import pypto.language as pl\n"
                              "@pl.program\n"
                              "class P:\n"
                              "    @pl.function(type=pl.FunctionType.AIC)\n"
                              "    def k(self, a):\n"
                              "        return a\n";
    p = unspecialized(bad, "P", PTO_STAGE_SYNTAX, NULL, 0);
    dsl_expect_error(p, "UnsupportedFeatureError", "pl.FunctionType.AIC is Ascend-specific: it selects a compiler-internal function kind or core type; it has no meaning on the CPU backend", 4, 23);
    assert_string_equal(pto_program_text(p), "");
    pto_program_free(p);
}

/* A program with main, the helper main calls and kernel k, as a lowered
 * text has it (both Orchestration), with `extra` after it. */
#define TWO_ORCH(extra)                                                          \
    "import pypto.language as pl\n"                                              \
    "@pl.program\n"                                                              \
    "class P:\n"                                                                 \
    "    @pl.function(type=pl.FunctionType.Orchestration, auto_scope=False)\n"  \
    "    def helper(self, a, out):\n"                                            \
    "        out = self.k(a, out)\n"                                             \
    "        return out\n"                                                       \
    "    @pl.function(type=pl.FunctionType.InCore)\n"                            \
    "    def k(self, a, out: pl.Out[pl.Tensor]):\n"                              \
    "        pl.store(pl.load(a, [0, 0], [256, 128]), [0, 0], out)\n"            \
    "        return out\n"                                                       \
    "    @pl.function(type=pl.FunctionType.Orchestration, auto_scope=False)\n"  \
    "    def main(self, a, out):\n"                                              \
    "        out = self.helper(a, out)\n"                                        \
    "        return out\n" extra

static void expect_function(const char *src, const char *function, const char *want, unsigned norch)
{
    pto_compile_options o = {.filename = "k.py", .source = src, .source_len = strlen(src), .entry = "P",
                             .function = function, .stop_after = PTO_STAGE_SYNTAX};
    pto_program *p = NULL;
    assert_true(pto_compile(&o, &p) >= 0);
    dsl_expect_ok(p);
    unsigned n = 99;
    const char *got = pto_program_function(p, &n);
    if (want) assert_string_equal(got, want);
    else assert_null(got);
    assert_int_equal(n, norch);
    pto_program_free(p);
}

/* With none named, a program goes through its only Orchestration method no
 * other method calls (a printed program's promoted helper is called by its
 * entry); two such methods: none, and a compile says how many there are. */
static void test_program_function_is_the_orchestration_no_method_calls(void **s)
{
    (void)s;
    expect_function(TWO_ORCH(""), NULL, "main", 2);
    expect_function(TWO_ORCH(""), "helper", "helper", 2);
    static const char two_roots[] = TWO_ORCH("    @pl.function(type=pl.FunctionType.Orchestration)\n"
                                             "    def other(self, a, out):\n"
                                             "        return out\n");
    expect_function(two_roots, NULL, NULL, 3);
    pto_program *p = dsl_compile(two_roots, "P", PTO_STAGE_ALL);
    dsl_expect_error(p, "TypeError", "program 'P' has 3 Orchestration functions; call one as P.<name>(...)", 2, 1);
    pto_program_free(p);
    p = dsl_compile(TWO_ORCH(""), "P", PTO_STAGE_ALL);
    dsl_expect_ok(p);
    assert_string_equal(pto_program_function(p, NULL), "main");
    pto_program_free(p);
    p = unspecialized(DSL_F_HEADER "    return out\n", "f", PTO_STAGE_SYNTAX, NULL, 0);
    dsl_expect_ok(p);
    assert_null(pto_program_function(p, NULL));
    pto_program_free(p);
    assert_null(pto_program_function(NULL, NULL));
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_syntax_stage_prints_the_entry_as_written_without_specs),
    cmocka_unit_test(test_syntax_stage_text_is_the_same_program),
    cmocka_unit_test(test_syntax_stage_prints_subscripts_as_written),
    cmocka_unit_test(test_syntax_stage_prints_constants_once_after_those_they_name),
    cmocka_unit_test(test_syntax_stage_checks_the_declarations),
    cmocka_unit_test(test_program_function_is_the_orchestration_no_method_calls),
};

PTO_TEST_MAIN(tests)
