/*
 * ptoc - the DSL compiler driver.
 *
 *   ptoc lower FILE.py --func NAME|CLASS.METHOD [--const NAME=VALUE ...] [--shape P=ROWSxCOLS:dtype ...]
 *                      [--scalar P=VALUE ...] [--after STAGE] [--skip STAGE ...] [--listing]
 *   ptoc check FILE.py [--func NAME ...] [the same options]
 *
 * `lower` prints the function's (or program class's) post-pass text, or
 * the text after STAGE, or with --listing the lowered program.  `check`
 * prints every diagnostic of the file: syntax for all of it, then (when the
 * syntax is sound) a full compile of each entry (--func, or every @pl.jit
 * function and @pl.program class) whose tensor shapes are known from
 * annotations or --shape; entries without them are named on stderr and
 * get the checks that need no shapes (decorators, the placement of scopes
 * and pl.at).  Exit status 0, or 1 with the diagnostics on stderr, 2 for
 * bad usage.
 *
 * Everything goes through pto/compile.h, as the Python package does.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/file.h"
#include "pto/compile.h"
#include "pto/version.h"

#define PTOC_MAX 64

typedef struct ptoc_args {
    const char *cmd, *file, *funcs[PTOC_MAX];
    int nfuncs;
    pto_constant consts[PTOC_MAX];
    int nconsts;
    pto_arg_spec specs[PTOC_MAX];
    int nspecs;
    int after;
    unsigned skip;
    int listing;
} ptoc_args;

static int ptoc_usage(const char *why)
{
    fprintf(stderr, "ptoc: %s\n"
                    "usage: ptoc lower FILE.py --func NAME|CLASS.METHOD [--const NAME=VALUE] [--shape P=ROWSxCOLS:dtype]\n"
                    "                  [--scalar P=VALUE] [--after STAGE] [--skip STAGE] [--listing]\n"
                    "       ptoc check FILE.py [--func NAME] [same options]\n"
                    "       ptoc --version\n"
                    "stages: syntax parse inline outline directions scopes verify cache lower\n",
            why);
    return 2;
}

/* VALUE: an int, a float, True/False, or any other text as a string. */
static pto_value ptoc_value(const char *s)
{
    pto_value v = {.kind = PTO_VALUE_STR, .s = s};
    char *end;
    errno = 0;
    long long i = strtoll(s, &end, 0);
    if (*s && !*end && !errno) return (pto_value){.kind = PTO_VALUE_INT, .i = i};
    double f = strtod(s, &end);
    if (*s && !*end) return (pto_value){.kind = PTO_VALUE_FLOAT, .f = f};
    if (!strcmp(s, "True") || !strcmp(s, "False")) return (pto_value){.kind = PTO_VALUE_BOOL, .i = s[0] == 'T'};
    return v;
}

/* P=D0xD1[x...]:dtype */
static int ptoc_shape(char *arg, pto_arg_spec *sp)
{
    char *eq = strchr(arg, '='), *colon = strrchr(arg, ':');
    if (!eq || !colon || colon < eq) return 0;
    *eq = *colon = 0;
    *sp = (pto_arg_spec){.name = arg, .kind = PTO_ARG_TENSOR};
    static const char *const names[] = {"fp32", "fp16", "bf16", "int32", "int8"};
    int dt = -1;
    for (int k = 0; k < 5; k++)
        if (!strcasecmp(colon + 1, names[k])) dt = k;
    if (dt < 0) return 0;
    sp->dtype = (pto_dtype)dt;
    for (char *d = eq + 1; *d;) {
        char *end;
        long long v = strtoll(d, &end, 10);
        if (end == d || v <= 0 || sp->rank == 4) return 0;
        sp->shape[sp->rank++] = v;
        if (*end == 'x' || *end == 'X') end++;
        else if (*end) return 0;
        d = end;
    }
    return sp->rank > 0;
}

static int ptoc_parse(int argc, char **argv, ptoc_args *a)
{
    if (argc < 3) return 0;
    a->cmd = argv[1], a->file = argv[2], a->after = PTO_STAGE_LOWER;
    for (int k = 3; k < argc; k++) {
        const char *o = argv[k];
        if (!strcmp(o, "--listing")) { a->listing = 1; continue; }
        if (k + 1 >= argc) return 0;
        char *v = argv[++k], *eq = strchr(v, '=');
        if (!strcmp(o, "--func") && a->nfuncs < PTOC_MAX) a->funcs[a->nfuncs++] = v;
        else if (!strcmp(o, "--const") && eq && a->nconsts < PTOC_MAX) *eq = 0, a->consts[a->nconsts++] = (pto_constant){v, ptoc_value(eq + 1)};
        else if (!strcmp(o, "--scalar") && eq && a->nspecs < PTOC_MAX)
            *eq = 0, a->specs[a->nspecs++] = (pto_arg_spec){.name = v, .kind = PTO_ARG_SCALAR, .value = ptoc_value(eq + 1)};
        else if (!strcmp(o, "--shape") && a->nspecs < PTOC_MAX) {
            if (!ptoc_shape(v, &a->specs[a->nspecs++])) return 0;
        } else if (!strcmp(o, "--after") && pto_stage_lookup(v) >= 0) a->after = pto_stage_lookup(v);
        else if (!strcmp(o, "--skip") && pto_stage_lookup(v) >= 0) a->skip |= 1u << pto_stage_lookup(v);
        else return 0;
    }
    return 1;
}

/* Is diagnostic k of p an argument without a spec (an entry check cannot specialize)? */
static int ptoc_unspecialized(const pto_program *p, size_t k)
{
    return strstr(pto_program_diag(p, k)->message, "missing a required argument") != NULL;
}

/* Prints p's diagnostics to stderr, but (unshaped) not an argument without
 * a spec; returns the number of errors printed. */
static int ptoc_report_but(const pto_program *p, int unshaped)
{
    int errors = 0;
    static char buf[8192];
    for (size_t k = 0; k < pto_program_diag_count(p); k++) {
        if (unshaped && ptoc_unspecialized(p, k)) continue;
        pto_program_diag_format(p, k, buf, sizeof buf);
        fprintf(stderr, "%s\n", buf);
        errors += !pto_program_diag(p, k)->is_warning;
    }
    return errors;
}

static int ptoc_report(const pto_program *p) { return ptoc_report_but(p, 0); }

/* entry is NAME or CLASS.METHOD (a program's Orchestration function). */
static int ptoc_compile(const ptoc_args *a, const char *text, size_t len, const char *entry, int stop, pto_program **out)
{
    char name[256];
    const char *method = NULL, *dot = entry ? strchr(entry, '.') : NULL;
    if (dot && (size_t)(dot - entry) < sizeof name) {
        memcpy(name, entry, (size_t)(dot - entry));
        name[dot - entry] = 0;
        entry = name, method = dot + 1;
    }
    pto_compile_options o = {.filename = a->file, .source = text, .source_len = len, .entry = entry, .function = method,
                             .constants = a->consts, .nconstants = (size_t)a->nconsts, .args = a->specs,
                             .nargs = (size_t)a->nspecs, .stop_after = stop, .skip_stages = a->skip};
    int rc = pto_compile(&o, out);
    if (rc < 0) fprintf(stderr, "ptoc: out of memory\n");
    return rc;
}

static int ptoc_check(const ptoc_args *a, const char *text, size_t len)
{
    pto_program *p;
    if (ptoc_compile(a, text, len, NULL, a->after, &p) < 0) return pto_program_free(p), 1;
    int errors = ptoc_report(p);
    const char *entries[PTOC_MAX];
    int n = 0;
    if (a->nfuncs) memcpy(entries, a->funcs, (size_t)a->nfuncs * sizeof *entries), n = a->nfuncs;
    else
        for (const char *e; n < PTOC_MAX && (e = pto_program_entry(p, (size_t)n));) entries[n++] = e;
    int parse_errors = errors;
    for (int k = 0; k < n && !parse_errors; k++) { /* every entry, whatever the others found */
        pto_program *q;
        if (ptoc_compile(a, text, len, entries[k], a->after, &q) < 0) {
            errors++;
        } else { /* an entry it cannot specialize: the checks that need no shapes (the compile ran them) */
            int unshaped = !a->nfuncs && pto_program_diag_count(q) && ptoc_unspecialized(q, 0);
            if (unshaped) fprintf(stderr, "ptoc: note: '%s' checked without shapes (pass --shape)\n", entries[k]);
            errors += ptoc_report_but(q, unshaped);
        }
        pto_program_free(q);
    }
    pto_program_free(p);
    return errors ? 1 : 0;
}

int main(int argc, char **argv)
{
    ptoc_args a = {0};
    if (argc == 2 && !strcmp(argv[1], "--version")) return printf("ptoc %s\n", PTO_VERSION_STRING), 0;
    if (!ptoc_parse(argc, argv, &a)) return ptoc_usage("bad arguments");
    if (strcmp(a.cmd, "lower") && strcmp(a.cmd, "check")) return ptoc_usage("the command is lower or check");
    size_t len;
    char *text = base_read_file(a.file, &len);
    if (!text) return fprintf(stderr, "ptoc: cannot read %s: %s\n", a.file, strerror(errno)), 1;
    int rc;
    if (!strcmp(a.cmd, "check")) rc = ptoc_check(&a, text, len);
    else if (a.nfuncs != 1) rc = ptoc_usage("lower needs exactly one --func NAME");
    else {
        pto_program *p;
        rc = ptoc_compile(&a, text, len, a.funcs[0], a.after, &p) != 0;
        ptoc_report(p);
        if (!rc) fputs(a.listing ? pto_program_listing(p) : pto_program_text(p), stdout);
        pto_program_free(p);
    }
    free(text);
    return rc;
}
