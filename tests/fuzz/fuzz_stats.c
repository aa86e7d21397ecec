/*
 * fuzz_stats.c - libFuzzer harness for the scope-stats report
 * (tools/scope_stats): the input is the bytes of a scope_stats.jsonl file,
 * read by ss_file_load and, when it loads, summarized and printed as text,
 * JSON and HTML (charts included), then run through the whole command line
 * (ss_cli_run).  The file lives in a memfd and every output goes to memory:
 * nothing is left on disk.
 *
 * Rules every input must keep (a broken one aborts):
 *   - a load that fails gives a non-empty one-line message and no data;
 *   - a load that succeeds obeys stats_file.h's invariants (scopes in end
 *     order with indices counting 1.., every derived metric >= 0);
 *   - every writer returns SS_OK into memory; the JSON summary parses as
 *     JSON; the text summary and the HTML page are valid UTF-8, and the
 *     page ends its document;
 *   - the command line exits 0 for a loadable file and 1 otherwise.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "stats_file.h"
#include "stats_report.h"
#include "stats_summary.h"

#define FZ_CHECK(cond, ...)                                                        \
    do {                                                                           \
        if (!(cond)) {                                                             \
            fprintf(stderr, "fuzz_stats: rule broken: %s\n  ", #cond);             \
            fprintf(stderr, __VA_ARGS__);                                          \
            fputc('\n', stderr);                                                   \
            abort();                                                               \
        }                                                                          \
    } while (0)

/* An in-memory output stream and what was written to it. */
typedef struct fz_out {
    FILE *f;
    char *text;
    size_t len;
} fz_out;

static void fz_out_open(fz_out *o)
{
    o->text = NULL;
    o->len = 0;
    o->f = open_memstream(&o->text, &o->len);
    FZ_CHECK(o->f != NULL, "open_memstream failed");
}

static void fz_out_close(fz_out *o)
{
    FZ_CHECK(fclose(o->f) == 0, "closing a memory stream failed");
    o->f = NULL;
}

static void fz_out_free(fz_out *o)
{
    if (o->f) fclose(o->f);
    free(o->text);
}

/* s[0..n) is well-formed UTF-8 (no overlongs, surrogates or code points past U+10FFFF). */
static int fz_utf8_ok(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned c = s[i];
        size_t k;
        unsigned cp, min;
        if (c < 0x80) { i++; continue; }
        if ((c & 0xE0) == 0xC0) k = 1, cp = c & 0x1F, min = 0x80;
        else if ((c & 0xF0) == 0xE0) k = 2, cp = c & 0x0F, min = 0x800;
        else if ((c & 0xF8) == 0xF0) k = 3, cp = c & 0x07, min = 0x10000;
        else return 0;
        for (size_t j = 1; j <= k; j++) {
            if (i + j >= n || (s[i + j] & 0xC0) != 0x80) return 0;
            cp = cp << 6 | (s[i + j] & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
        i += k + 1;
    }
    return 1;
}

static void fz_check_loaded(const ss_data *d)
{
    long per_ring[SS_RINGS] = {0};
    for (size_t i = 0; i < d->nscopes; i++) {
        const ss_scope *s = &d->scopes[i];
        FZ_CHECK(s->ring >= 0 && s->ring < SS_RINGS, "scope %zu on ring %d", i, s->ring);
        FZ_CHECK(s->global_index == (long)i + 1, "scope %zu has global index %ld", i, s->global_index);
        FZ_CHECK(s->ring_index == ++per_ring[s->ring], "scope %zu has ring index %ld", i, s->ring_index);
        FZ_CHECK(s->site != NULL, "scope %zu without a site", i);
        for (int r = 0; r < SS_NRES; r++)
            FZ_CHECK(s->high_water[r] >= 0 && s->live_exit[r] >= 0 && s->alloc[r] >= 0 && s->peak[r] >= 0,
                     "scope %zu has a negative metric for resource %d", i, r);
        FZ_CHECK(s->tm_live >= 0 && s->tm_peak >= 0, "scope %zu has a negative tensormap metric", i);
    }
    for (int r = 0; r < SS_RINGS; r++)
        FZ_CHECK(d->ring_scopes[r] == per_ring[r], "ring %d counts %ld scopes, %ld listed", r, d->ring_scopes[r],
                 per_ring[r]);
}

/* Text, JSON and HTML reports of a loaded file. */
static void fz_reports(const ss_data *d, double headroom)
{
    ss_summary s;
    FZ_CHECK(ss_summary_build(d, headroom, &s) == SS_OK, "ss_summary_build failed at headroom %g", headroom);
    FZ_CHECK(ss_summary_status(d) && ss_summary_risk_metric(d), "summary status or metric missing");
    char line[2048];
    for (int after = 0; after < 2; after++) ss_summary_runconfig(&s, after, line, sizeof line);
    for (int r = 0; r < SS_NRES; r++) ss_summary_runtime_env(&s, r, line, sizeof line);

    fz_out o;
    fz_out_open(&o);
    FZ_CHECK(ss_text_write(o.f, d, &s) == SS_OK, "ss_text_write failed");
    fz_out_close(&o);
    FZ_CHECK(fz_utf8_ok((const unsigned char *)o.text, o.len), "the text summary is not valid UTF-8");
    fz_out_free(&o);

    fz_out_open(&o);
    FZ_CHECK(ss_json_write(o.f, d, &s) == SS_OK, "ss_json_write failed");
    fz_out_close(&o);
    json_error_t jerr;
    json_t *j = json_loadb(o.text, o.len, 0, &jerr);
    FZ_CHECK(j != NULL, "the JSON summary does not parse: %s at line %d col %d", jerr.text, jerr.line,
             jerr.column);
    json_decref(j);
    fz_out_free(&o);

    fz_out_open(&o);
    FZ_CHECK(ss_html_write(o.f, d, &s) == SS_OK, "ss_html_write failed");
    fz_out_close(&o);
    FZ_CHECK(fz_utf8_ok((const unsigned char *)o.text, o.len), "the HTML page is not valid UTF-8");
    FZ_CHECK(o.len >= 8 && strstr(o.text, "</html>") != NULL, "the HTML page does not end its document");
    fz_out_free(&o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = memfd_create("scope_stats.jsonl", MFD_CLOEXEC);
    FZ_CHECK(fd >= 0, "memfd_create failed");
    for (size_t off = 0; off < size;) {
        ssize_t w = write(fd, data + off, size - off);
        FZ_CHECK(w > 0, "writing the memfd failed");
        off += (size_t)w;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);

    ss_data d;
    char err[2048];
    memset(err, 0, sizeof err);
    int rc = ss_file_load(path, &d, err, sizeof err);
    FZ_CHECK(rc == SS_OK || rc == SS_EINPUT, "ss_file_load returned %d", rc);
    if (rc == SS_OK) {
        fz_check_loaded(&d);
        /* The headroom varies with the input so several are tried. */
        fz_reports(&d, 1.0 + (double)(size % 7) * 0.5);
        ss_file_free(&d);
    } else {
        FZ_CHECK(err[0] != '\0', "a failed load without a message");
        FZ_CHECK(memchr(err, '\0', sizeof err) != NULL, "the load message is not terminated");
        FZ_CHECK(strchr(err, '\n') == NULL, "the load message spans lines: \"%s\"", err);
    }

    /* The whole command line, HTML page to /dev/null. */
    char *argv[] = {"pto-scope-stats", path, "--json", "--html", "/dev/null", NULL};
    int argc = size % 2 ? 5 : 3; /* odd sizes: with --html too */
    if (size % 3 == 0) argv[2] = "--headroom", argv[3] = "2.5", argc = 4;
    fz_out out, errs;
    fz_out_open(&out);
    fz_out_open(&errs);
    int exit_code = ss_cli_run(argc, argv, out.f, errs.f);
    fz_out_close(&out);
    fz_out_close(&errs);
    FZ_CHECK(exit_code == (rc == SS_OK ? 0 : 1), "the CLI exited %d after a load that returned %d: %s", exit_code,
             rc, errs.text ? errs.text : "");
    fz_out_free(&out);
    fz_out_free(&errs);
    close(fd);
    return 0;
}
