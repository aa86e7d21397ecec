/*
 * test_typecheck_annotations.c - the annotations a body carries: an
 * annotated local `x: T = e` (docs/dsl.md, "Statements") whose value is a constant, and
 * a function's `-> T` (docs/dsl.md, "Annotations"), checked against the returned values for every
 * function kind.  One test per rule; each compiles a small program through
 * pto_compile and checks the first error's class, message and line:column,
 * or the printed program.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "dsl_compile.h"

#define HDR "import pypto.language as pl\n\n"
#define T48 "pl.Tensor[[4, 8], pl.FP32]"
/* an InCore kernel k(a, o) -> K, an Inline g(n) -> G returning GV, an Opaque
 * h(a, o) -> H returning HV, and the entry f(a, o) -> F calling them */
#define KINDS(K, G, GV, H, HV, F)                                                                                    \
    HDR "@pl.jit.incore\ndef k(a: " T48 ", o: pl.Out[" T48 "])" K ":\n"                                              \
        "    pl.store(pl.load(a, [0, 0], [4, 8]), [0, 0], o)\n    return o\n\n"                                     \
        "@pl.jit.inline\ndef g(n)" G ":\n    return " GV "\n\n"                                                     \
        "@pl.jit.opaque\ndef h(a, o)" H ":\n    o = k(a, o)\n    return " HV "\n\n"                                 \
        "@pl.jit\ndef f(a: " T48 ", o: pl.Out[" T48 "])" F ":\n    m = g(3)\n    o = h(a, o)\n    return o\n"

/* Every entry here has shaped parameters: it needs no argument specs. */
static pto_program *compile_entry(const char *src, const char *entry) { return dsl_compile_with(src, entry, PTO_STAGE_LOWER, 0, NULL, 0); }

#define RESULT_ERROR(src, entry, msg, line, col)                                 \
    do {                                                                         \
        pto_program *p_ = compile_entry(src, entry);                             \
        dsl_expect_error(p_, "ParserTypeError", msg, line, col);                 \
        pto_program_free(p_);                                                    \
    } while (0)

/* ---- x: pl.Scalar[DT] = <constant> ----------------------------------------------------------- */

/* A constant expression takes the annotated dtype, on both planes, as an
 * argument does; a variable of another dtype is still an error. */
static void test_annotated_scalar_local_takes_a_constant_in_its_dtype(void **s)
{
    (void)s;
    static const char *const want[] = {"        y = 1.0\n", "        x = 7\n", "        z = -128\n", "        w = 9\n",
                                       "    s = 2.0\n", NULL};
    const char *src = HDR "N = 5\n\n@pl.jit.incore\ndef k(a: " T48 ", o: pl.Out[" T48 "]):\n"
                          "    s: pl.Scalar[pl.FP32] = 2\n"
                          "    pl.store(pl.mul(pl.load(a, [0, 0], [4, 8]), s), [0, 0], o)\n    return o\n\n"
                          "@pl.jit\ndef f(a: " T48 ", o: pl.Out[" T48 "]):\n"
                          "    x: pl.Scalar[pl.INT32] = 7\n    y: pl.Scalar[pl.FP32] = 1\n    z: pl.Scalar[pl.INT8] = -128\n"
                          "    w: pl.Scalar[pl.INT32] = N * 2 - 1\n    v: pl.Scalar[pl.INT32] = x\n"
                          "    o = k(a, o)\n    return o\n";
    pto_program *p = compile_entry(src, "f");
    dsl_expect_text_contains(p, want);
    pto_program_free(p);
    /* x is INT32 now: an INDEX annotation of it is the dtype error, as of any variable */
    RESULT_ERROR(HDR "@pl.jit\ndef f(o: pl.Out[" T48 "]):\n    x: pl.Scalar[pl.INT32] = 7\n    y: pl.Scalar[pl.INDEX] = x\n"
                     "    n = 3\n    return o\n",
                 "f", "'y' is annotated pl.Scalar[pl.INDEX] but assigned pl.Scalar[pl.INT32]", 6, 8);
    RESULT_ERROR(HDR "@pl.jit\ndef f(o: pl.Out[" T48 "]):\n    n = 3\n    x: pl.Scalar[pl.INT32] = n\n    return o\n",
                 "f", "'x' is annotated pl.Scalar[pl.INT32] but assigned pl.Scalar[pl.INDEX]", 6, 8);
}

static void test_annotated_scalar_local_constant_must_fit(void **s)
{
    (void)s;
    RESULT_ERROR(HDR "@pl.jit\ndef f(o: pl.Out[" T48 "]):\n    x: pl.Scalar[pl.INT8] = 300\n    return o\n",
                 "f", "'x' = 300 does not fit pl.INT8", 5, 29);
    RESULT_ERROR(HDR "@pl.jit\ndef f(o: pl.Out[" T48 "]):\n    x: pl.Scalar[pl.INT32] = -2147483649\n    return o\n",
                 "f", "'x' = -2147483649 does not fit pl.INT32", 5, 30);
    RESULT_ERROR(HDR "@pl.jit.incore\ndef k(o: pl.Out[" T48 "]):\n    x: pl.Scalar[pl.INT32] = 2.5\n"
                     "    pl.store(pl.load(o, [0, 0], [4, 8]), [0, 0], o)\n    return o\n\n"
                     "@pl.jit\ndef f(o: pl.Out[" T48 "]):\n    o = k(o)\n    return o\n",
                 "f", "'x' = 2.5 does not fit pl.INT32", 5, 30);
    /* the float dtypes: the one range rule of arguments and casts (cc_scalar_fits) */
    RESULT_ERROR(HDR "@pl.jit\ndef f(o: pl.Out[" T48 "]):\n    x: pl.Scalar[pl.FP16] = 70000\n    return o\n",
                 "f", "'x' = 70000 does not fit pl.FP16", 5, 29);
    RESULT_ERROR(HDR "@pl.jit\ndef f(o: pl.Out[" T48 "]):\n    x: pl.Scalar[pl.BF16] = 1e39\n    return o\n",
                 "f", "'x' = 1e+39 does not fit pl.BF16", 5, 29);
}

/* ---- -> T ------------------------------------------------------------------------------------ */

/* Every function kind: the returned value's type against the annotation,
 * at the returned value. */
static void test_result_annotation_must_match_the_returned_value(void **s)
{
    (void)s;
    RESULT_ERROR(HDR "@pl.jit\ndef f(o: pl.Out[" T48 "]) -> pl.Tensor[[2, 2], pl.INT8]:\n    return o\n", "f",
                 "'f' is annotated -> pl.Tensor[[2, 2], pl.INT8] but returns " T48, 5, 12);
    RESULT_ERROR(KINDS(" -> pl.Tensor[[4, 4], pl.FP32]", "", "n", "", "o", ""), "f",
                 "'k' is annotated -> pl.Tensor[[4, 4], pl.FP32] but returns " T48, 6, 12);
    RESULT_ERROR(KINDS("", " -> pl.Scalar[pl.FP32]", "n + 1", "", "o", ""), "f",
                 "'g' is annotated -> pl.Scalar[pl.FP32] but returns pl.Scalar[pl.INDEX]", 10, 12);
    RESULT_ERROR(KINDS("", "", "n", " -> pl.Scalar", "o", ""), "f", "'h' is annotated -> pl.Scalar but returns " T48, 15, 12);
    RESULT_ERROR(KINDS("", "", "n", "", "o", " -> pl.TaskId"), "f", "'f' is annotated -> pl.TaskId but returns " T48, 21, 12);
    RESULT_ERROR(HDR "@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.InCore)\n"
                     "    def k(self, o: pl.Out[" T48 "]) -> pl.Tensor[[4, 8], pl.FP16]:\n"
                     "        pl.store(pl.load(o, [0, 0], [4, 8]), [0, 0], o)\n        return o\n\n"
                     "    @pl.function(type=pl.FunctionType.Orchestration)\n    def f(self, o: pl.Out[" T48 "]):\n"
                     "        o = self.k(o)\n        return o\n",
                 "P", "'k' is annotated -> pl.Tensor[[4, 8], pl.FP16] but returns " T48, 8, 16);
    /* what matches: the same type, a bare pl.Tensor or pl.Scalar, a constant in the annotated dtype */
    static const char *const want[] = {"def g(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.FP32]:\n        return 1.0\n", NULL};
    pto_program *p = dsl_compile_with(KINDS(" -> pl.Tensor", " -> pl.Scalar[pl.FP32]", "1", " -> " T48, "o", " -> pl.Tensor"), "f",
                                      PTO_STAGE_PARSE, 0, NULL, 0);
    dsl_expect_text_contains(p, want);
    pto_program_free(p);
    RESULT_ERROR(KINDS("", " -> pl.Scalar[pl.INT8]", "300", "", "o", ""), "f", "'g' result = 300 does not fit pl.INT8", 10, 12);
}

/* None for no value, T for one, tuple[T1, ..., Tn] for several (as the
 * printer writes them); an annotation that is not a DSL type is an error. */
static void test_result_annotation_counts_none_and_tuples(void **s)
{
    (void)s;
    const char *fine = HDR "@pl.jit.incore\ndef e(o: pl.Out[" T48 "]) -> None:\n"
                           "    pl.store(pl.load(o, [0, 0], [4, 8]), [0, 0], o)\n\n"
                           "@pl.jit.inline\ndef g(n) -> None:\n    return\n\n"
                           "@pl.jit.opaque\ndef h(a, o) -> tuple[pl.Tensor, " T48 "]:\n    return o, a\n\n"
                           "@pl.jit\ndef f(a: " T48 ", o: pl.Out[" T48 "]) -> " T48 ":\n"
                           "    g(3)\n    e(o)\n    o, b = h(a, o)\n    return o\n";
    pto_program *p = compile_entry(fine, "f");
    dsl_expect_ok(p);
    pto_program_free(p);
    RESULT_ERROR(KINDS("", " -> None", "n", "", "o", ""), "f", "'g' is annotated -> None but returns pl.Scalar[pl.INDEX]", 10, 12);
    RESULT_ERROR(KINDS("", "", "n", " -> tuple[pl.Tensor, pl.Scalar]", "o, a", ""), "f",
                 "'h' is annotated -> tuple[pl.Tensor, pl.Scalar] but returns tuple[" T48 ", " T48 "]", 15, 15);
    RESULT_ERROR(KINDS("", "", "n", " -> tuple[pl.Tensor]", "o", ""), "f",
                 "'h' is annotated -> tuple[pl.Tensor] but returns " T48, 15, 12);
    RESULT_ERROR(KINDS("", "", "n", " -> pl.Tensor", "o, a", ""), "f",
                 "'h' is annotated -> pl.Tensor but returns tuple[" T48 ", " T48 "]", 15, 12);
    RESULT_ERROR(HDR "@pl.jit\ndef f(o: pl.Out[" T48 "]) -> pl.Tensor:\n    return\n", "f",
                 "'f' is annotated -> pl.Tensor but returns None", 5, 5);
    RESULT_ERROR(HDR "@pl.jit.incore\ndef k(o: pl.Out[" T48 "]) -> " T48 ":\n    pl.store(pl.load(o, [0, 0], [4, 8]), [0, 0], o)\n\n"
                     "@pl.jit\ndef f(o: pl.Out[" T48 "]):\n    k(o)\n    return o\n",
                 "f", "'k' is annotated -> " T48 " but returns None", 4, 49);
    RESULT_ERROR(KINDS("", "", "n", " -> pl.Out[pl.Tensor]", "o", ""), "f", "pl.Out/pl.InOut apply to tensor parameters only", 13, 16);
    RESULT_ERROR(KINDS("", " -> int", "n", "", "o", ""), "f", "an annotation must be pl.Tensor", 9, 13);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_annotated_scalar_local_takes_a_constant_in_its_dtype),
    cmocka_unit_test(test_annotated_scalar_local_constant_must_fit),
    cmocka_unit_test(test_result_annotation_must_match_the_returned_value),
    cmocka_unit_test(test_result_annotation_counts_none_and_tuples),
};

PTO_TEST_MAIN(tests)
