/*
 * fuzz_compile.c - libFuzzer harness for the DSL compiler through its one
 * public entry point, pto_compile (include/pto/compile.h).  The input is a
 * small header decoded into compile options (fuzz_dsl_input.h: entry and
 * function, constants, argument specs, stop_after, skip_stages, the text's
 * position in its file) followed by the source text.  After the compile it
 * reads every result: the diagnostics (each formatted into buffers of
 * several sizes), the entries, the program text and the listing, then
 * frees the program.
 *
 * Rules every input must keep (a broken one aborts):
 *   - pto_compile returns 0, 1 or -1 and sets *out (memory allows);
 *   - 0 means no error diagnostic, 1 at least one;
 *   - every diagnostic has a class, a message and a file name, lines and
 *     columns >= 1 with the end not before the start;
 *   - pto_program_diag_format NUL-terminates inside cap, returns the
 *     length of what it wrote, and a longer buffer extends a shorter one;
 *   - text and listing are strings; a listing is non-empty only after a
 *     successful LOWER stage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_dsl_input.h"
#include "pto/compile.h"

#define FZ_CHECK(cond, ...)                                                        \
    do {                                                                           \
        if (!(cond)) {                                                             \
            fprintf(stderr, "fuzz_compile: rule broken: %s\n  ", #cond);           \
            fprintf(stderr, __VA_ARGS__);                                          \
            fputc('\n', stderr);                                                   \
            abort();                                                               \
        }                                                                          \
    } while (0)

enum { FMT_CAP = 8192 };

static void fz_check_diag(pto_program *p, size_t i)
{
    const pto_diagnostic *d = pto_program_diag(p, i);
    FZ_CHECK(d != NULL, "diagnostic %zu of %zu is NULL", i, pto_program_diag_count(p));
    FZ_CHECK(d->cls && d->cls[0] && d->message && d->filename, "diagnostic %zu lacks a class, message or file", i);
    FZ_CHECK(d->line >= 1 && d->column >= 1, "diagnostic %zu at %d:%d: %s", i, d->line, d->column, d->message);
    FZ_CHECK(d->end_line > d->line || (d->end_line == d->line && d->end_column >= d->column),
             "diagnostic %zu ends (%d:%d) before it starts (%d:%d): %s", i, d->end_line, d->end_column, d->line,
             d->column, d->message);

    static char full[FMT_CAP], cut[FMT_CAP];
    size_t n = pto_program_diag_format(p, i, full, sizeof full);
    FZ_CHECK(n < sizeof full && full[n] == '\0' && strlen(full) == n,
             "formatting diagnostic %zu returned %zu for %zu bytes", i, n, strlen(full));
    if (n + 1 < sizeof full) FZ_CHECK(strstr(full, d->message) != NULL, "diagnostic %zu's text lacks its message", i);
    static const size_t caps[] = {1, 2, 7, 40, 81};
    for (size_t k = 0; k < sizeof caps / sizeof caps[0]; k++) {
        memset(cut, 0x5A, sizeof cut);
        size_t m = pto_program_diag_format(p, i, cut, caps[k]);
        FZ_CHECK(m < caps[k] && cut[m] == '\0', "cap %zu: returned %zu", caps[k], m);
        FZ_CHECK((unsigned char)cut[caps[k]] == 0x5A, "cap %zu: wrote past the buffer", caps[k]);
        FZ_CHECK(strncmp(cut, full, m) == 0, "cap %zu: the cut text differs from the whole one", caps[k]);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static fuzz_dsl_case c;
    fuzz_dsl_decode(data, size, &c);
    pto_program *p = NULL;
    int rc = pto_compile(&c.opts, &p);
    FZ_CHECK(rc == 0 || rc == 1 || rc == -1, "pto_compile returned %d", rc);
    if (!p) {
        FZ_CHECK(rc == -1, "no program after rc %d", rc);
        return 0;
    }
    size_t ndiag = pto_program_diag_count(p), nerr = 0;
    for (size_t i = 0; i < ndiag; i++) {
        fz_check_diag(p, i);
        nerr += !pto_program_diag(p, i)->is_warning;
    }
    FZ_CHECK(pto_program_diag(p, ndiag) == NULL, "a diagnostic past the count");
    if (rc == 0) FZ_CHECK(nerr == 0, "rc 0 with %zu errors", nerr);
    if (rc == 1) FZ_CHECK(nerr > 0, "rc 1 without an error diagnostic");

    for (size_t i = 0; i < 1000; i++) {
        const char *e = pto_program_entry(p, i);
        if (!e) break;
        FZ_CHECK(e[0] != '\0', "entry %zu is empty", i);
    }
    const char *text = pto_program_text(p);
    FZ_CHECK(text != NULL, "pto_program_text is NULL");
    (void)strlen(text);
    const char *listing = pto_program_listing(p);
    FZ_CHECK(listing != NULL, "pto_program_listing is NULL");
    int lowered = rc == 0 && c.opts.entry && (c.opts.stop_after == PTO_STAGE_ALL ||
                                             c.opts.stop_after == PTO_STAGE_LOWER) &&
                  !(c.opts.skip_stages & (1u << PTO_STAGE_LOWER));
    if (!lowered) FZ_CHECK(listing[0] == '\0', "a listing without a lowered program");
    /* Asked twice: the same listing. */
    FZ_CHECK(pto_program_listing(p) == listing || strcmp(pto_program_listing(p), listing) == 0,
             "the listing changed between two calls");
    pto_program_free(p);
    return 0;
}
