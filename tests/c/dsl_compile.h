/*
 * dsl_compile.h - compiling DSL text in tests, through the public
 * pto/compile.h exactly as ptoc and Python do.
 *
 *   pto_program *p = dsl_compile(SRC, "f", PTO_STAGE_LOWER);   // a, out: [256, 128] FP32
 *   dsl_expect_error(p, "ParserSyntaxError", "pl.scope() takes only", 4, 10);
 *   dsl_expect_text(p, EXPECTED);
 *
 * The file is "k.py".  Include after harness.h.
 */
#ifndef PTO_DSL_COMPILE_H
#define PTO_DSL_COMPILE_H

#include <stdio.h>
#include <string.h>

#include "pto/compile.h"

/* The start of most test programs: the import and an entry f(a, out). */
#define DSL_F_HEADER "import pypto.language as pl\n\n@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"

/* The default argument specs: a and out, [256, 128] FP32, and w [128, 128]. */
static const pto_arg_spec dsl_default_args[] = {
    {.name = "a", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {256, 128}},
    {.name = "out", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {256, 128}},
    {.name = "w", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {128, 128}},
};

static inline pto_program *dsl_compile_with(const char *src, const char *entry, int stop, unsigned skip,
                                            const pto_arg_spec *args, size_t nargs)
{
    pto_compile_options o = {.filename = "k.py", .source = src, .source_len = strlen(src), .entry = entry,
                             .args = args, .nargs = nargs, .stop_after = stop, .skip_stages = skip};
    pto_program *p = NULL;
    int rc = pto_compile(&o, &p);
    assert_true(rc >= 0);
    assert_non_null(p);
    return p;
}

static inline pto_program *dsl_compile(const char *src, const char *entry, int stop)
{
    return dsl_compile_with(src, entry, stop, 0, dsl_default_args, sizeof dsl_default_args / sizeof dsl_default_args[0]);
}

/* Prints p's diagnostics (for a failing test's log). */
static inline void dsl_dump_diags(const pto_program *p)
{
    char buf[2048];
    for (size_t k = 0; k < pto_program_diag_count(p); k++) {
        pto_program_diag_format(p, k, buf, sizeof buf);
        fprintf(stderr, "%s\n", buf);
    }
}

/* The first error of p: class cls, message containing msg, at line:col
 * (col 0: any column). */
static inline const pto_diagnostic *dsl_expect_error(const pto_program *p, const char *cls, const char *msg, int line, int col)
{
    const pto_diagnostic *d = NULL;
    for (size_t k = 0; k < pto_program_diag_count(p) && !d; k++)
        if (!pto_program_diag(p, k)->is_warning) d = pto_program_diag(p, k);
    if (!d || strcmp(d->cls, cls) || !strstr(d->message, msg) || d->line != line || (col && d->column != col)) {
        fprintf(stderr, "expected %s at %d:%d containing \"%s\"\n", cls, line, col, msg);
        dsl_dump_diags(p);
        fail();
    }
    return d;
}

/* Runs call (a compile returning a pto_program *, e.g. a test file's
 * xx_compile(src)) and expects its first error as dsl_expect_error does. */
#define DSL_EXPECT_COMPILE_ERROR(call, cls, msg, line, col)         \
    do {                                                            \
        pto_program *p_ = (call);                                   \
        dsl_expect_error(p_, cls, msg, line, col);                  \
        pto_program_free(p_);                                       \
    } while (0)

/* p compiled without errors. */
static inline void dsl_expect_ok(const pto_program *p)
{
    for (size_t k = 0; k < pto_program_diag_count(p); k++)
        if (!pto_program_diag(p, k)->is_warning) {
            dsl_dump_diags(p);
            fail();
        }
}

static inline void dsl_expect_text(const pto_program *p, const char *expected)
{
    dsl_expect_ok(p);
    if (strcmp(pto_program_text(p), expected)) fprintf(stderr, "got:\n%s\nexpected:\n%s\n", pto_program_text(p), expected);
    assert_string_equal(pto_program_text(p), expected);
}

/* p compiled without errors and its printed program contains each of want[]
 * (NULL-terminated; want NULL: nothing to find). */
static inline void dsl_expect_text_contains(const pto_program *p, const char *const *want)
{
    dsl_expect_ok(p);
    for (const char *const *w = want; w && *w; w++) {
        if (!strstr(pto_program_text(p), *w)) fprintf(stderr, "missing \"%s\" in:\n%s\n", *w, pto_program_text(p));
        assert_non_null(strstr(pto_program_text(p), *w));
    }
}

/* Compiles src (entry f) with the given module constants through lowering;
 * it must compile and its printed program contain each of want[]. */
static inline void dsl_expect_compiles_containing(const char *src, const pto_constant *consts, size_t nconsts,
                                                  const char *const *want)
{
    pto_compile_options o = {.filename = "k.py", .source = src, .source_len = strlen(src), .entry = "f",
                             .args = dsl_default_args, .nargs = sizeof dsl_default_args / sizeof dsl_default_args[0],
                             .constants = consts, .nconstants = nconsts, .stop_after = PTO_STAGE_LOWER};
    pto_program *p = NULL;
    assert_true(pto_compile(&o, &p) >= 0);
    assert_non_null(p);
    dsl_expect_text_contains(p, want);
    pto_program_free(p);
}

/* Compiles src and checks its first error in one step. */
#define DSL_ERROR(src, entry, cls, msg, line, col)                       \
    do {                                                                 \
        pto_program *p_ = dsl_compile(src, entry, PTO_STAGE_LOWER);      \
        dsl_expect_error(p_, cls, msg, line, col);                       \
        pto_program_free(p_);                                            \
    } while (0)

#endif
