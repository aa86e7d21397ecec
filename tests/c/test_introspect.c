/*
 * test_introspect.c - DSL-V2-SPEC §2 in the compiler: the function table
 * (pto_program_functions, src/compiler/introspect.c) and the SYNTAX
 * printer's options (print_prefix, print_concise, print_function;
 * src/compiler/ast_printer.c) behind prog.functions and as_python().
 */
#include "harness.h"
#include "dsl_compile.h"

static const char src[] =
    "import pypto.language as pl\n"
    "\n"
    "N = 8\n"
    "\n"
    "@pl.program\n"
    "class P:\n"
    "    @pl.function(type=pl.FunctionType.Orchestration)\n"
    "    def main(self, a: pl.Tensor[[N, 8], pl.FP32], o: pl.InOut[pl.Tensor[[N, 8], pl.FP32]], n: pl.Scalar) -> pl.Tensor[[N, 8], pl.FP32]:\n"
    "        o = self.k(a, o)\n"
    "        return o\n"
    "\n"
    "    @pl.function(type=pl.FunctionType.InCore)\n"
    "    def k(self, a, o: pl.Out[pl.Tensor]) -> tuple[pl.Tensor, pl.Tensor]:\n"
    "        t: pl.Tile[[N, 8], pl.FP32] = pl.load(a, [0, 0], [N, 8])\n"
    "        m: pl.Tile[[N, 8], pl.FP32, pl.Mem.Mat] = pl.load(a, [0, 0], [N, 8], target_memory=pl.Mem.Mat)\n"
    "        pl.store(t, [0, 0], o)\n"
    "        return o, o\n"
    "\n"
    "    @pl.function\n"
    "    def helper(self, x):\n"
    "        return x\n";

static pto_program *syntax(const char *entry, const char *prefix, int concise, const char *alone)
{
    pto_compile_options o = {.filename = "k.py", .source = src, .source_len = strlen(src), .entry = entry,
                             .stop_after = entry ? PTO_STAGE_SYNTAX : 0, .print_prefix = prefix,
                             .print_concise = concise, .print_function = alone};
    pto_program *p = NULL;
    assert_true(pto_compile(&o, &p) >= 0);
    dsl_expect_ok(p);
    return p;
}

static void test_i_fn_function_table_sorted_with_kinds_params_and_returns(void **state)
{
    (void)state;
    pto_program *p = syntax("P", NULL, 0, NULL);
    const pto_function_info *f;
    assert_int_equal(pto_program_functions(p, &f), 3);
    assert_string_equal(f[0].name, "helper");
    assert_string_equal(f[0].func_type, "Opaque");
    assert_int_equal(f[0].nparams, 1);
    assert_null(f[0].params[0].type);
    assert_null(f[0].params[0].direction);
    assert_int_equal(f[0].nreturns, 0);
    assert_string_equal(f[1].name, "k");
    assert_string_equal(f[1].func_type, "InCore");
    assert_string_equal(f[1].params[1].type, "pl.Tensor");
    assert_string_equal(f[1].params[1].direction, "Out");
    assert_int_equal(f[1].nreturns, 2);
    assert_string_equal(f[1].return_types[1], "pl.Tensor");
    assert_string_equal(f[2].name, "main");
    assert_string_equal(f[2].params[0].type, "pl.Tensor[[N, 8], pl.FP32]");
    assert_string_equal(f[2].params[0].direction, "In");
    assert_string_equal(f[2].params[1].direction, "InOut");
    assert_string_equal(f[2].params[2].name, "n");
    assert_null(f[2].params[2].direction);
    assert_string_equal(f[2].params[2].type, "pl.Scalar");
    assert_string_equal(f[2].return_types[0], "pl.Tensor[[N, 8], pl.FP32]");
    pto_program_free(p);
    assert_int_equal(pto_program_functions(NULL, &f), 0);
    assert_null(f);
}

static void test_i_fn_module_level_functions_without_an_entry(void **state)
{
    (void)state;
    static const char mod[] = "import pypto.language as ppl\n"
                              "@ppl.function(type=ppl.FunctionType.Inline)\n"
                              "def g(x: ppl.Scalar[ppl.FP32]):\n"
                              "    return x\n";
    pto_compile_options o = {.filename = "m.py", .source = mod, .source_len = strlen(mod)};
    pto_program *p = NULL;
    assert_true(pto_compile(&o, &p) >= 0);
    const pto_function_info *f;
    assert_int_equal(pto_program_functions(p, &f), 1);
    assert_string_equal(f[0].func_type, "Inline");
    assert_string_equal(f[0].params[0].type, "ppl.Scalar[ppl.FP32]");
    pto_program_free(p);
}

static void test_i_fn_as_python_prefix_names_every_pl_name(void **state)
{
    (void)state;
    pto_program *p = syntax("P", "ppl", 0, NULL);
    const char *t = pto_program_text(p);
    assert_non_null(strstr(t, "import pypto.language as ppl\n\nN = 8\n\n@ppl.program\nclass P:\n"));
    assert_non_null(strstr(t, "    @ppl.function(type=ppl.FunctionType.InCore)\n"));
    assert_non_null(strstr(t, "t: ppl.Tile[[N, 8], ppl.FP32] = ppl.load(a, [0, 0], [N, 8])\n"));
    assert_null(strstr(t, " pl."));
    assert_null(strstr(t, "(pl."));
    pto_program_free(p);
}

static void test_i_fn_as_python_concise_drops_local_annotations_but_a_memory_space(void **state)
{
    (void)state;
    pto_program *p = syntax("P", NULL, 1, NULL);
    const char *t = pto_program_text(p);
    assert_non_null(strstr(t, "        t = pl.load(a, [0, 0], [N, 8])\n"));
    assert_non_null(strstr(t, "        m: pl.Tile[[N, 8], pl.FP32, pl.Mem.Mat] = pl.load("));
    assert_non_null(strstr(t, "def k(self, a, o: pl.Out[pl.Tensor]) -> tuple[pl.Tensor, pl.Tensor]:\n"));
    pto_program_free(p);
}

static void test_i_fn_function_alone_without_self(void **state)
{
    (void)state;
    pto_program *p = syntax("P", NULL, 0, "helper");
    assert_string_equal(pto_program_text(p), "import pypto.language as pl\n\n@pl.function\ndef helper(x):\n    return x\n");
    pto_program_free(p);
    p = syntax("P", NULL, 0, "k");
    assert_non_null(strstr(pto_program_text(p), "import pypto.language as pl\n\nN = 8\n\n@pl.function(type="));
    pto_program_free(p);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_i_fn_function_table_sorted_with_kinds_params_and_returns),
    cmocka_unit_test(test_i_fn_module_level_functions_without_an_entry),
    cmocka_unit_test(test_i_fn_as_python_prefix_names_every_pl_name),
    cmocka_unit_test(test_i_fn_as_python_concise_drops_local_annotations_but_a_memory_space),
    cmocka_unit_test(test_i_fn_function_alone_without_self),
};

PTO_TEST_MAIN(tests)
