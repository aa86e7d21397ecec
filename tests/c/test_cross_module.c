/*
 * test_cross_module.c - kernels of other modules (pto_compile_options.modules
 * and .imports; docs/dsl.md, "Kernels from other modules"): a name an import
 * binds is the other module's function, read with that module's constants;
 * its diagnostics name its file, line and column; a function name another
 * function of the program has already is made unique with its file's stem.
 */
#include <string.h>

#include "harness.h"
#include "dsl_compile.h"

static const char entry_src[] =
    "import pypto.language as pl\n"
    "\n"
    "@pl.jit.incore\n"
    "def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
    "    pl.store(pl.mul(pl.load(a, [0, 0], [256, 128]), S), [0, 0], out)\n"
    "    return out\n"
    "\n"
    "@pl.jit\n"
    "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
    "    out = k(a, out)\n"
    "    out = k2(out, out)\n"
    "    return out\n";

static const char other_src[] =                                                    /* line */
    "import pypto.language as pl\n"                                                /* 1 */
    "\n"                                                                           /* 2 */
    "@pl.jit.incore\n"                                                             /* 3 */
    "def k(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"                               /* 4 */
    "    pl.store(pl.mul(pl.load(a, [0, 0], [256, 128]), S), [0, 0], out)\n"       /* 5 */
    "    return out\n"                                                             /* 6 */
    "\n"                                                                           /* 7 */
    "@pl.jit.incore\n"                                                             /* 8 */
    "def bad(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"                             /* 9 */
    "    pl.store(pl.mul(pl.load(a, [0, 0], [256, 128]), nowhere), [0, 0], out)\n"; /* 10 */

static pto_program *compile_with(const char *other_function)
{
    static const pto_constant entry_consts[] = {{"S", {.kind = PTO_VALUE_FLOAT, .f = 2.0}}};
    static const pto_constant other_consts[] = {{"S", {.kind = PTO_VALUE_FLOAT, .f = 7.0}}};
    const pto_module other = {.filename = "pkg/other-mod.py", .source = other_src, .source_len = strlen(other_src),
                              .constants = other_consts, .nconstants = 1};
    const pto_import imp = {.in = 0, .name = "k2", .module = 1, .function = other_function};
    pto_compile_options o = {.filename = "k.py", .source = entry_src, .source_len = strlen(entry_src), .entry = "f",
                             .constants = entry_consts, .nconstants = 1, .args = dsl_default_args, .nargs = 2,
                             .modules = &other, .nmodules = 1, .imports = &imp, .nimports = 1};
    pto_program *p = NULL;
    assert_true(pto_compile(&o, &p) >= 0);
    assert_non_null(p);
    return p;
}

static void test_an_imported_name_is_the_other_modules_function_with_its_constants(void **s)
{
    (void)s;
    pto_program *p = compile_with("k");
    dsl_expect_ok(p);
    const char *text = pto_program_text(p);
    assert_non_null(strstr(text, "pl.mul(pl.load(a, [0, 0], [256, 128], cache=pl.CachePolicy.DEFAULT), 2.0)"));
    assert_non_null(strstr(text, "pl.mul(pl.load(a, [0, 0], [256, 128], cache=pl.CachePolicy.DEFAULT), 7.0)"));
    pto_program_free(p);
}

static void test_a_taken_function_name_gets_its_file_stem(void **s)
{
    (void)s;
    pto_program *p = compile_with("k");
    dsl_expect_ok(p);
    assert_non_null(strstr(pto_program_text(p), "out = self.k(a, out)"));
    assert_non_null(strstr(pto_program_text(p), "out = self.k_other_mod(out, out)"));
    pto_program_free(p);
}

static void test_an_error_in_another_module_names_its_file_line_and_column(void **s)
{
    (void)s;
    pto_program *p = compile_with("bad");
    const pto_diagnostic *d = dsl_expect_error(p, "UndefinedVariableError", "name 'nowhere' is not defined", 10, 53);
    assert_string_equal(d->filename, "pkg/other-mod.py");
    char buf[1024];
    pto_program_diag_format(p, 0, buf, sizeof buf);
    assert_non_null(strstr(buf, "pkg/other-mod.py:10:53: error: name 'nowhere' is not defined\n"
                                "    pl.store(pl.mul(pl.load(a, [0, 0], [256, 128]), nowhere), [0, 0], out)\n"));
    pto_program_free(p);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_an_imported_name_is_the_other_modules_function_with_its_constants),
    cmocka_unit_test(test_a_taken_function_name_gets_its_file_stem),
    cmocka_unit_test(test_an_error_in_another_module_names_its_file_line_and_column),
};

PTO_TEST_MAIN(tests)
