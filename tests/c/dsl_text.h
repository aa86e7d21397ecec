/*
 * dsl_text.h - reading the printed program in end-to-end DSL tests: the
 * round trip (compile the printed text again, byte-identical), one method
 * of the text, runtime-scope nesting around a line (the task's ring) and
 * the strip used for golden comparisons with the seed page.
 *
 * Include after harness.h and dsl_compile.h.
 */
#ifndef PTO_TEST_DSL_TEXT_H
#define PTO_TEST_DSL_TEXT_H

#include <stdlib.h>
#include <string.h>

/* The default specs plus the scalar n = 3. */
static const pto_arg_spec dsl_args_n[] = {
    {.name = "a", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {256, 128}},
    {.name = "out", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {256, 128}},
    {.name = "w", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {128, 128}},
    {.name = "n", .kind = PTO_ARG_SCALAR, .value = {.kind = PTO_VALUE_INT, .i = 3}},
};

static inline size_t dsl_count(const char *text, const char *needle)
{
    size_t n = 0;
    for (const char *q = strstr(text, needle); q; q = strstr(q + 1, needle)) n++;
    return n;
}

/* The word after `prefix` in text (up to '(' or ':'), copied into buf. */
static inline const char *dsl_word_after(const char *text, const char *prefix, char *buf, size_t cap)
{
    const char *q = strstr(text, prefix);
    assert_non_null(q);
    q += strlen(prefix);
    size_t n = strcspn(q, "(:\n");
    assert_true(n < cap);
    memcpy(buf, q, n);
    buf[n] = 0;
    return buf;
}

/* M09 / round-trip law: the printed text of p, compiled again through
 * stage stop as the program it prints (entry = its class, the first
 * Orchestration method), prints byte-identical. */
static inline void dsl_expect_roundtrip_at(const pto_program *p, int stop, const pto_arg_spec *args, size_t nargs)
{
    const char *text = pto_program_text(p);
    char cls[128], fn[128];
    dsl_word_after(text, "\nclass ", cls, sizeof cls);
    dsl_word_after(strstr(text, "type=pl.FunctionType.Orchestration"), "def ", fn, sizeof fn);
    pto_compile_options o = {.filename = "k.py", .source = text, .source_len = strlen(text), .entry = cls,
                             .function = fn, .args = args, .nargs = nargs, .stop_after = stop};
    pto_program *q = NULL;
    assert_true(pto_compile(&o, &q) >= 0);
    dsl_expect_ok(q);
    if (strcmp(pto_program_text(q), text)) fprintf(stderr, "first:\n%s\nsecond:\n%s\n", text, pto_program_text(q));
    assert_string_equal(pto_program_text(q), text);
    pto_program_free(q);
}

static inline void dsl_expect_roundtrip(const pto_program *p, const pto_arg_spec *args, size_t nargs)
{
    dsl_expect_roundtrip_at(p, PTO_STAGE_ALL, args, nargs);
}

/* Compiles src through every stage without errors; checks the round trip. */
static inline pto_program *dsl_lower_with(const char *src, const char *entry, const pto_arg_spec *args, size_t nargs)
{
    pto_program *p = dsl_compile_with(src, entry, PTO_STAGE_ALL, 0, args, nargs);
    dsl_expect_ok(p);
    dsl_expect_roundtrip(p, args, nargs);
    return p;
}

static inline pto_program *dsl_lower(const char *src, const char *entry)
{
    return dsl_lower_with(src, entry, dsl_args_n, sizeof dsl_args_n / sizeof dsl_args_n[0]);
}

static inline int dsl_indent(const char *line)
{
    int n = 0;
    while (line[n] == ' ') n++;
    return n;
}

/* Method `name` of the printed program: its decorator line through its last
 * line, dedented by 4; with strip, trailing comments removed.  Caller frees. */
static inline char *dsl_method(const char *text, const char *name, int strip)
{
    char def[160];
    snprintf(def, sizeof def, "    def %s(self", name);
    const char *d = strstr(text, def);
    assert_non_null(d);
    const char *start = d;
    while (start > text && start[-1] != '\n') start--;
    if (start > text) { /* the decorator line above */
        const char *prev = start - 1;
        while (prev > text && prev[-1] != '\n') prev--;
        if (!strncmp(prev, "    @", 5)) start = prev;
    }
    char *out = malloc(strlen(start) + 1);
    size_t n = 0;
    for (const char *l = start; *l;) {
        const char *e = strchr(l, '\n');
        size_t len = e ? (size_t)(e - l) : strlen(l);
        if (l > d && (len == 0 || !strncmp(l, "    @", 5) || !strncmp(l, "    def ", 8))) break;
        size_t keep = len;
        if (strip) {
            const char *h = memchr(l, '#', len);
            if (h) keep = (size_t)(h - l);
            while (keep && l[keep - 1] == ' ') keep--;
        }
        if (keep > 4) {
            memcpy(out + n, l + 4, keep - 4);
            n += keep - 4;
        }
        out[n++] = '\n';
        l += len + (e ? 1 : 0);
    }
    out[n] = 0;
    return out;
}

/* Runtime scopes open around the first line holding marker (0 when the
 * line sits outside every scope). */
static inline int dsl_scopes_around(const char *text, const char *marker)
{
    const char *m = strstr(text, marker);
    if (!m) fprintf(stderr, "no line with \"%s\" in:\n%s\n", marker, text);
    assert_non_null(m);
    const char *line = m;
    while (line > text && line[-1] != '\n') line--;
    int want = dsl_indent(line), n = 0;
    /* walk back over the enclosing lines: each with a smaller indent than
     * the last one found is a parent */
    for (const char *l = line; l > text && want > 4;) {
        const char *p = l - 1;
        while (p > text && p[-1] != '\n') p--;
        l = p;
        int ind = dsl_indent(p);
        if (p[ind] == '\n' || ind >= want) continue;
        want = ind;
        if (!strncmp(p + ind, "with pl.scope(", 14)) n++;
    }
    return n;
}

/* The ring of a task submitted by the line holding marker, opened under
 * `outer` scopes of its callers (an Opaque subroutine's caller, docs/dsl.md, "Runtime scopes and rings"). */
static inline int dsl_ring(const char *text, const char *marker, int outer)
{
    int depth = dsl_scopes_around(text, marker) + outer - 1;
    if (depth < 0) depth = 0;
    return depth < 3 ? depth : 3;
}

/* A method for golden comparison: comments, parameter annotations and the
 * `-> T` return annotation removed, trailing blanks cut.  Caller frees. */
static inline char *dsl_strip_types(const char *method)
{
    char *out = malloc(strlen(method) + 1);
    size_t n = 0;
    for (const char *l = method; *l;) {
        const char *e = strchr(l, '\n');
        size_t len = e ? (size_t)(e - l) : strlen(l);
        const char *h = memchr(l, '#', len);
        size_t keep = h ? (size_t)(h - l) : len;
        while (keep && l[keep - 1] == ' ') keep--;
        int ind = dsl_indent(l);
        if (keep > (size_t)ind + 4 && !strncmp(l + ind, "def ", 4)) {
            int depth = 0, skip = 0;
            size_t i = 0;
            for (; i < keep; i++) {
                char c = l[i];
                if (c == '(' || c == '[') depth++;
                if (c == ')' || c == ']') depth--;
                if (depth == 0 && c == ')') { out[n++] = c; break; }
                if (depth == 1 && c == ':' && !skip) skip = 1;
                if (depth == 1 && c == ',') skip = 0;
                if (!skip) out[n++] = c;
            }
            out[n++] = ':';
        } else {
            memcpy(out + n, l, keep);
            n += keep;
        }
        out[n++] = '\n';
        l += len + (e ? 1 : 0);
    }
    out[n] = 0;
    return out;
}

#endif
