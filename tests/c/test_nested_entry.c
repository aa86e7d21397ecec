/*
 * test_nested_entry.c - an entry defined inside a function, a method or a
 * class body (pto_compile_options.entry_line, docs/dsl.md "Using the
 * compiler from C"): the whole file is the source; the definition that
 * holds the line is the entry, whichever other definition has its name;
 * the @pl definitions beside it shadow the module's; plain Python around
 * it (other functions, their decorators) is not judged; spans are the
 * file's.
 */
#include <string.h>

#include "harness.h"
#include "dsl_compile.h"

/* Two factories that each define a program P, a module kernel k and a
 * nested k beside a nested entry g, in a class's method. */
static const char nested_src[] =
    "import pypto.language as pl\n"                                            /* 1 */
    "import pytest\n"                                                          /* 2 */
    "\n"                                                                       /* 3 */
    "@pl.jit.incore\n"                                                         /* 4 */
    "def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"                           /* 5 */
    "    pl.store(pl.mul(pl.load(a, [0, 0], [256, 128]), 9.0), [0, 0], out)\n" /* 6 */
    "\n"                                                                       /* 7 */
    "@pytest.mark.parametrize('n', [1, 2], ids=lambda v: str(v))\n"            /* 8 */
    "def make_one(n):\n"                                                       /* 9 */
    "    @pl.program\n"                                                        /* 10 */
    "    class P:\n"                                                           /* 11 */
    "        @pl.function(type=pl.FunctionType.Orchestration)\n"               /* 12 */
    "        def one(self, a, out):\n"                                         /* 13 */
    "            pass\n"                                                       /* 14 */
    "    return P\n"                                                           /* 15 */
    "\n"                                                                       /* 16 */
    "def make_two():\n"                                                        /* 17 */
    "    x = [p for p in range(3)]\n"                                          /* 18 */
    "    @pl.program\n"                                                        /* 19 */
    "    class P:\n"                                                           /* 20 */
    "        @pl.function(type=pl.FunctionType.Orchestration)\n"               /* 21 */
    "        def two(self, a, out):\n"                                         /* 22 */
    "            pass\n"                                                       /* 23 */
    "    return P\n"                                                           /* 24 */
    "\n"                                                                       /* 25 */
    "class Suite:\n"                                                           /* 26 */
    "    def method(self):\n"                                                  /* 27 */
    "        @pl.jit.incore\n"                                                 /* 28 */
    "        def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"                   /* 29 */
    "            pl.store(pl.load(a, [0, 0], [256, 128]), [0, 0], out)\n"      /* 30 */
    "        @pl.jit\n"                                                        /* 31 */
    "        def g(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"                   /* 32 */
    "            k(a, out)\n"                                                  /* 33 */
    "            t = pl.lod(a, [0, 0], [256, 128])\n";                         /* 34 */

static pto_program *compile_at(const char *entry, int line, int stop)
{
    pto_compile_options o = {.filename = "k.py", .source = nested_src, .source_len = strlen(nested_src),
                             .entry = entry, .args = dsl_default_args, .nargs = 2, .stop_after = stop,
                             .entry_line = line};
    pto_program *p = NULL;
    assert_true(pto_compile(&o, &p) >= 0);
    assert_non_null(p);
    return p;
}

/* The class named P that holds the line is the entry, a method's line or
 * its decorator's; the module-level compile finds no P at all. */
static void test_the_nested_definition_holding_entry_line_is_the_entry(void **s)
{
    (void)s;
    static const struct { int line; const char *method; } cases[] = {{10, "one"}, {13, "one"}, {19, "two"}, {22, "two"}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        pto_program *p = compile_at("P", cases[k].line, PTO_STAGE_LOWER);
        dsl_expect_ok(p);
        unsigned n = 0;
        assert_string_equal(pto_program_function(p, &n), cases[k].method);
        pto_program_free(p);
    }
    pto_program *p = compile_at("P", 0, PTO_STAGE_LOWER);
    dsl_expect_error(p, "TypeError", "no @pl.jit function or @pl.program class named 'P'", 1, 1);
    pto_program_free(p);
}

/* g's k is the one beside it (no mul by 9.0), and g's error is at the
 * file's line and column. */
static void test_a_nested_entry_calls_the_definition_beside_it_and_reports_file_spans(void **s)
{
    (void)s;
    pto_program *p = compile_at("g", 31, PTO_STAGE_LOWER);
    dsl_expect_error(p, "UndefinedVariableError", "pl.lod is not a pypto.language name", 34, 17);
    pto_program_free(p);
    p = compile_at("g", 33, PTO_STAGE_PARSE);
    dsl_expect_error(p, "UndefinedVariableError", "pl.lod", 34, 17);
    pto_program_free(p);
}

static void test_a_nested_kernel_shadows_the_module_kernel_of_its_name(void **s)
{
    (void)s;
    static const char src[] = "import pypto.language as pl\n\n"
                              "@pl.jit.incore\ndef k(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                              "    pl.store(pl.mul(pl.load(a, [0, 0], [256, 128]), 9.0), [0, 0], out)\n\n"
                              "def make():\n"
                              "    @pl.jit.incore\n    def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                              "        pl.store(pl.load(a, [0, 0], [256, 128]), [0, 0], out)\n"
                              "    @pl.jit\n    def g(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                              "        k(a, out)\n"
                              "    return g\n";
    pto_compile_options o = {.filename = "k.py", .source = src, .source_len = strlen(src), .entry = "g",
                             .args = dsl_default_args, .nargs = 2, .entry_line = 11};
    pto_program *p = NULL;
    assert_true(pto_compile(&o, &p) >= 0);
    dsl_expect_ok(p);
    assert_null(strstr(pto_program_text(p), "9.0"));
    assert_non_null(strstr(pto_program_text(p), "self.k(a, out)"));
    pto_program_free(p);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_the_nested_definition_holding_entry_line_is_the_entry),
    cmocka_unit_test(test_a_nested_entry_calls_the_definition_beside_it_and_reports_file_spans),
    cmocka_unit_test(test_a_nested_kernel_shadows_the_module_kernel_of_its_name),
};

PTO_TEST_MAIN(tests)
