/*
 * stats_cli.c - the command line of pto-scope-stats: parse arguments, load
 * the file, print warnings, then the summary (text or --json) and the page
 * (--html); several files: each loaded alone, then side by side (stats_ranks.c).  Exit codes are the ss_status values: 0 report written, 1 invalid
 * input (or an output that cannot be written), 2 usage.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pto/version.h"
#include "stats_report.h"

#define SS_USAGE "usage: pto-scope-stats FILE [--html OUT] [--json] [--headroom F] | FILE FILE... [--headroom F] | --version"
#define SS_MAX_FILES 64

typedef struct ss_args {
    const char *file, *html;
    const char *files[SS_MAX_FILES]; /* every FILE, in order (several: side by side) */
    int nfiles;
    int json;
    double headroom;
} ss_args;

static int ss_usage_error(FILE *err, const char *what, const char *arg)
{
    fprintf(err, "pto-scope-stats: %s%s\n%s\n", what, arg ? arg : "", SS_USAGE);
    return SS_EUSAGE;
}

/* Returns SS_OK, SS_EUSAGE, or -1 for --help and --version (already printed). */
static int ss_parse(int argc, char **argv, ss_args *a, FILE *out, FILE *err)
{
    *a = (ss_args){.headroom = SS_DEFAULT_HEADROOM};
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        if (!strcmp(s, "-h") || !strcmp(s, "--help")) {
            fprintf(out, "%s\n", SS_USAGE);
            return -1;
        } else if (!strcmp(s, "--version")) {
            fprintf(out, "pto-scope-stats %s\n", PTO_VERSION_STRING);
            return -1;
        } else if (!strcmp(s, "--json")) {
            a->json = 1;
        } else if (!strcmp(s, "--html") || !strcmp(s, "--headroom")) {
            if (i + 1 >= argc) return ss_usage_error(err, s, " needs a value");
            const char *v = argv[++i];
            if (!strcmp(s, "--html")) {
                a->html = v;
                continue;
            }
            char *end;
            errno = 0;
            a->headroom = strtod(v, &end);
            if (errno || end == v || *end || !isfinite(a->headroom) || a->headroom < 1.0)
                return ss_usage_error(err, "--headroom must be a number >= 1.0, got ", v);
        } else if (s[0] == '-' && s[1]) {
            return ss_usage_error(err, "unknown option ", s);
        } else if (a->nfiles == SS_MAX_FILES) {
            return ss_usage_error(err, "more than 64 FILEs: ", s);
        } else {
            a->files[a->nfiles++] = a->file = s;
        }
    }
    if (a->nfiles > 1 && (a->json || a->html)) return ss_usage_error(err, "--json and --html take one FILE", NULL);
    return a->file ? SS_OK : ss_usage_error(err, "missing FILE", NULL);
}

static int ss_write_html(const char *path, const ss_data *d, const ss_summary *s, FILE *err)
{
    FILE *f = fopen(path, "w");
    int rc = f ? ss_html_write(f, d, s) : SS_EINPUT;
    int saved = errno;
    if (f && fclose(f) != 0 && rc == SS_OK) rc = SS_EINPUT, saved = errno;
    if (rc != SS_OK)
        fprintf(err, "pto-scope-stats: cannot write %s: %s\n", path, strerror(saved));
    return rc;
}

/* Several files: each loaded and summarized alone, then the side-by-side table. */
static int ss_run_ranks(const ss_args *a, FILE *out, FILE *err)
{
    ss_data *d = calloc((size_t)a->nfiles, sizeof *d);
    ss_summary *s = calloc((size_t)a->nfiles, sizeof *s);
    int rc = d && s ? SS_OK : SS_EINPUT, loaded = 0;
    char msg[2048];
    if (rc) fprintf(err, "pto-scope-stats: out of memory\n");
    for (; rc == SS_OK && loaded < a->nfiles; loaded++) {
        if ((rc = ss_file_load(a->files[loaded], &d[loaded], msg, sizeof msg))) {
            fprintf(err, "%s\n", msg);
            break;
        }
        for (size_t i = 0; i < d[loaded].nwarnings; i++) fprintf(err, "%s: %s\n", a->files[loaded], d[loaded].warnings[i]);
        rc = ss_summary_build(&d[loaded], a->headroom, &s[loaded]);
    }
    if (rc == SS_OK) rc = ss_ranks_write(out, d, s, a->files, a->nfiles);
    for (int k = 0; d && k < loaded; k++) ss_file_free(&d[k]);
    free(d), free(s);
    return rc;
}

int ss_cli_run(int argc, char **argv, FILE *out, FILE *err)
{
    ss_args a;
    int rc = ss_parse(argc, argv, &a, out, err);
    if (rc < 0) return SS_OK;
    if (rc) return rc;
    if (a.nfiles > 1) return ss_run_ranks(&a, out, err);
    ss_data d;
    char msg[2048];
    if ((rc = ss_file_load(a.file, &d, msg, sizeof msg))) {
        fprintf(err, "%s\n", msg);
        return rc;
    }
    for (size_t i = 0; i < d.nwarnings; i++) fprintf(err, "%s\n", d.warnings[i]);
    ss_summary *s = malloc(sizeof *s);
    if (!s) {
        ss_file_free(&d);
        fprintf(err, "pto-scope-stats: out of memory\n");
        return SS_EINPUT;
    }
    rc = ss_summary_build(&d, a.headroom, s);
    if (rc == SS_OK) rc = a.json ? ss_json_write(out, &d, s) : ss_text_write(out, &d, s);
    if (rc == SS_OK && a.html) {
        rc = ss_write_html(a.html, &d, s, err);
        if (rc == SS_OK && !a.json) fprintf(out, "\nHTML report: %s\n", a.html);
    }
    free(s);
    ss_file_free(&d);
    return rc;
}
