/*
 * dsl_dist.h - compiling distributed programs (DISTRIBUTED-SPEC §1) in
 * tests: the imports, a host entry's argument specs (x and y, [2, 1, 64]
 * FP32), the listing checks and the printed text's round trip.  Include
 * after harness.h and dsl_compile.h.
 */
#ifndef PTO_DSL_DIST_H
#define PTO_DSL_DIST_H

#include <stdlib.h>

#define DD_HDR "import pypto.language as pl\nimport pypto.language.distributed as pld\n\n"

static const pto_arg_spec dd_args[] = {
    {.name = "x", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 3, .shape = {2, 1, 64}},
    {.name = "y", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 3, .shape = {2, 1, 64}},
};

/* src compiled through lowering with entry and dd_args (its class and method when fn is not NULL). */
static inline pto_program *dd_compile_fn(const char *src, const char *entry, const char *fn, const pto_arg_spec *args, size_t nargs)
{
    pto_compile_options o = {.filename = "k.py", .source = src, .source_len = strlen(src), .entry = entry, .function = fn,
                             .args = args, .nargs = nargs, .stop_after = PTO_STAGE_LOWER};
    pto_program *p = NULL;
    assert_true(pto_compile(&o, &p) >= 0);
    assert_non_null(p);
    return p;
}

static inline pto_program *dd_compile(const char *src, const char *entry)
{
    return dd_compile_fn(src, entry, NULL, dd_args, sizeof dd_args / sizeof dd_args[0]);
}

#define DD_ERROR(src, entry, cls, msg, line, col) DSL_EXPECT_COMPILE_ERROR(dd_compile(src, entry), cls, msg, line, col)

/* p compiled and its listing holds each of want[] (NULL-terminated). */
static inline void dd_expect_listing(pto_program *p, const char *const *want)
{
    dsl_expect_ok(p);
    const char *l = pto_program_listing(p);
    assert_non_null(l);
    for (const char *const *w = want; *w; w++) {
        if (!strstr(l, *w)) fprintf(stderr, "missing \"%s\" in:\n%s\n", *w, l);
        assert_non_null(strstr(l, *w));
    }
}

/* The listing without its sites (` @line:col`, a header's ` @line`, SCOPE_BEGIN's file:line). */
static inline char *dd_sans_sites(const char *l)
{
    char *o = malloc(strlen(l) + 1), *w = o;
    assert_non_null(o);
    for (const char *s = l; *s;) {
        const char *eol = strchr(s, '\n');
        size_t n = eol ? (size_t)(eol - s) : strlen(s);
        const char *at = s + n;
        while (at > s && at[-1] != '@') at--;
        size_t keep = at > s ? (size_t)(at - s - 1) : n;
        const char *sb = strstr(s, "SCOPE_BEGIN ");
        if (sb && sb < s + keep) keep = (size_t)(sb - s) + strlen("SCOPE_BEGIN");
        memcpy(w, s, keep), w += keep, *w++ = '\n';
        s += n + (eol != NULL);
    }
    *w = 0;
    return o;
}

/* p's printed text compiled again (its class `cls`, method `cls`) prints the same text
 * and lowers to the same listing, sites aside. */
static inline void dd_expect_roundtrip(pto_program *p, const char *cls, const pto_arg_spec *args, size_t nargs)
{
    dsl_expect_ok(p);
    pto_program *q = dd_compile_fn(pto_program_text(p), cls, cls, args, nargs);
    dsl_expect_ok(q);
    if (strcmp(pto_program_text(p), pto_program_text(q))) fprintf(stderr, "%s\n---\n%s\n", pto_program_text(p), pto_program_text(q));
    assert_string_equal(pto_program_text(p), pto_program_text(q));
    char *a = dd_sans_sites(pto_program_listing(p)), *b = dd_sans_sites(pto_program_listing(q));
    assert_string_equal(a, b);
    free(a), free(b);
    pto_program_free(q);
}

#endif
