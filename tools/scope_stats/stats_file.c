/*
 * stats_file.c - reads a scope_stats.jsonl file (jansson, one line at a time)
 * and pairs its begin/end records into scopes.
 *
 * Pairing: each ring keeps a stack of open `begin`s; an `end` takes the
 * latest open `begin` of the same site on its ring (normally the top: scopes
 * on one ring nest strictly).  An `end` that finds none is skipped with a
 * warning.  A last line without its newline that does not parse is a run cut
 * short (a fatal or a killed process), not a malformed file: the report still
 * goes out, with one warning naming the innermost scope left open.
 */
#include "stats_file.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "pto/config.h"
#include "pto/runtime.h"
#include "pto/scope_stats.h"
#include "stats_utf8.h"

static const char *const ss_res_names[] = {"task_window", "heap", "dep_pool", "tensormap"};

const char *ss_resource_name(int resource)
{
    return resource >= 0 && resource <= SS_TENSORMAP ? ss_res_names[resource] : "?";
}

/* A resource's keys, from the schema: X_start, X_end, peak_X, X_max. */
#define SS_KEYS_(r) #r "_start",
static const char *const ss_start_keys[SS_NRES] = {PTO_SCOPE_STATS_RESOURCES(SS_KEYS_)};
#undef SS_KEYS_
#define SS_KEYS_(r) #r "_end",
static const char *const ss_end_keys[SS_NRES] = {PTO_SCOPE_STATS_RESOURCES(SS_KEYS_)};
#undef SS_KEYS_
#define SS_KEYS_(r) "peak_" #r,
static const char *const ss_peak_keys[SS_NRES] = {PTO_SCOPE_STATS_RESOURCES(SS_KEYS_)};
#undef SS_KEYS_
#define SS_KEYS_(r) #r "_max",
static const char *const ss_max_keys[SS_NRES] = {PTO_SCOPE_STATS_RESOURCES(SS_KEYS_)};
#undef SS_KEYS_
static const int64_t ss_defaults[SS_NRES] = {PTO_DEFAULT_TASK_WINDOW, PTO_DEFAULT_HEAP,
                                             PTO_DEFAULT_DEP_POOL};

/* One record, as far as pairing needs it. */
typedef struct ss_rec {
    const char *site; /* owned by the json_t it came from */
    int is_end, depth, ring;
    int64_t start[SS_NRES], end[SS_NRES], peak[SS_NRES];
    int64_t tensormap, peak_tensormap;
} ss_rec;

/* An open begin waiting for its end. */
typedef struct ss_open {
    char *site;
    long line;
    int64_t start[SS_NRES], end[SS_NRES];
} ss_open;

typedef struct ss_stack {
    ss_open *items;
    size_t n;
    uint64_t cap;
} ss_stack;

/* Loader state: where we are, for messages. */
typedef struct ss_ctx {
    const char *path;
    long line;
    char *err;
    size_t errlen;
} ss_ctx;

/* Writes "<path>:<line>: <message>" to c->err.  Input bytes a message quotes
 * (jansson's "near '...'", a file name) may be control characters: they are
 * written as \xHH, so a message is always one line. */
static int ss_fail(ss_ctx *c, const char *fmt, ...)
{
    char msg[4096];
    int n = snprintf(msg, sizeof msg, "%s:%ld: ", c->path, c->line);
    if (n >= 0 && (size_t)n < sizeof msg) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg + n, sizeof msg - (size_t)n, fmt, ap);
        va_end(ap);
    }
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)msg; *p && o + 1 < c->errlen; p++) {
        if (*p >= 0x20 && *p != 0x7f) {
            c->err[o++] = (char)*p;
        } else if (o + 5 < c->errlen) {
            snprintf(c->err + o, 5, "\\x%02x", *p);
            o += 4;
        } else {
            break;
        }
    }
    if (c->errlen) c->err[o] = 0;
    return SS_EINPUT;
}

/* "<json>" of a value for messages (compact, bounded). */
static void ss_show(const json_t *v, char *buf, size_t len)
{
    char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
    snprintf(buf, len, "%s", s ? s : "?");
    free(s);
}

static int ss_get(ss_ctx *c, json_t *o, const char *key, json_t **v)
{
    *v = json_object_get(o, key);
    return *v ? SS_OK : ss_fail(c, "record lacks \"%s\"", key);
}

/* A non-negative integer (an integral real is accepted too). */
static int ss_as_count(ss_ctx *c, const char *key, json_t *v, int64_t *out)
{
    char shown[64];
    if (json_is_integer(v) && json_integer_value(v) >= 0) {
        *out = (int64_t)json_integer_value(v);
        return SS_OK;
    }
    if (json_is_real(v)) {
        double x = json_real_value(v);
        if (x >= 0 && x < 9.2e18 && x == (double)(int64_t)x) {
            *out = (int64_t)x;
            return SS_OK;
        }
    }
    ss_show(v, shown, sizeof shown);
    return ss_fail(c, "\"%s\" must be a non-negative integer, got %s", key, shown);
}

static int ss_get_count(ss_ctx *c, json_t *o, const char *key, int64_t *out)
{
    json_t *v;
    int rc = ss_get(c, o, key, &v);
    return rc ? rc : ss_as_count(c, key, v, out);
}

static int ss_parse_line(ss_ctx *c, const char *text, size_t len, json_t **out)
{
    json_error_t je;
    *out = json_loadb(text, len, 0, &je);
    if (!*out) return ss_fail(c, "invalid JSON: %s", je.text);
    if (!json_is_object(*out)) {
        json_decref(*out);
        *out = NULL;
        return ss_fail(c, "invalid JSON: expected an object, one per line");
    }
    return SS_OK;
}

/* Line 1: version first, then the sizes; fatal/dropped/total/tensormap_max
 * are optional (a missing one reads as false / 0 / records / 65536). */
static int ss_read_meta(ss_ctx *c, json_t *o, ss_data *d, int *has_total)
{
    json_t *v;
    char shown[64];
    int rc = ss_get(c, o, "version", &v);
    if (rc) return rc;
    if (!json_is_integer(v) || json_integer_value(v) != PTO_SCOPE_STATS_VERSION) {
        ss_show(v, shown, sizeof shown);
        return ss_fail(c, "unsupported scope stats version %s (need %d)", shown, PTO_SCOPE_STATS_VERSION);
    }
    if ((v = json_object_get(o, "fatal"))) {
        if (!json_is_boolean(v)) {
            ss_show(v, shown, sizeof shown);
            return ss_fail(c, "\"fatal\" must be true or false, got %s", shown);
        }
        d->fatal = json_is_true(v);
    }
    if ((v = json_object_get(o, "dropped")) && (rc = ss_as_count(c, "dropped", v, &d->dropped)))
        return rc;
    if ((v = json_object_get(o, "total"))) {
        if ((rc = ss_as_count(c, "total", v, &d->total))) return rc;
        *has_total = 1;
    }
    d->tm_capacity = PTO_TENSORMAP_POOL_SIZE;
    if ((v = json_object_get(o, "tensormap_max")) &&
        (rc = ss_as_count(c, "tensormap_max", v, &d->tm_capacity)))
        return rc;
    if (d->tm_capacity == 0) d->tm_capacity = PTO_TENSORMAP_POOL_SIZE;
    for (int res = 0; res < SS_NRES; res++) {
        if ((rc = ss_get(c, o, ss_max_keys[res], &v))) return rc;
        if (!json_is_array(v) || json_array_size(v) != SS_RINGS) {
            ss_show(v, shown, sizeof shown);
            return ss_fail(c, "\"%s\" must be an array of 4 sizes (one per ring), got %s",
                           ss_max_keys[res], shown);
        }
        for (int r = 0; r < SS_RINGS; r++) {
            int64_t cap;
            if ((rc = ss_as_count(c, ss_max_keys[res], json_array_get(v, (size_t)r), &cap)))
                return rc;
            d->capacity[res][r] = cap ? cap : ss_defaults[res];
        }
    }
    return SS_OK;
}

static int ss_read_record(ss_ctx *c, json_t *o, int has_peaks, ss_rec *r)
{
    json_t *v;
    char shown[64];
    int64_t depth;
    int rc;
    if ((rc = ss_get(c, o, "site", &v))) return rc;
    if (!json_is_string(v)) {
        ss_show(v, shown, sizeof shown);
        return ss_fail(c, "\"site\" must be a string, got %s", shown);
    }
    r->site = json_string_value(v);
    if ((rc = ss_get(c, o, "phase", &v))) return rc;
    if (!json_is_string(v) ||
        (strcmp(json_string_value(v), "begin") && strcmp(json_string_value(v), "end"))) {
        ss_show(v, shown, sizeof shown);
        return ss_fail(c, "\"phase\" must be \"begin\" or \"end\", got %s", shown);
    }
    r->is_end = !strcmp(json_string_value(v), "end");
    if ((rc = ss_get_count(c, o, "depth", &depth))) return rc;
    if ((rc = ss_get(c, o, "ring", &v))) return rc;
    if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) >= SS_RINGS) {
        ss_show(v, shown, sizeof shown);
        return ss_fail(c, "\"ring\" must be 0, 1, 2 or 3, got %s", shown);
    }
    r->ring = (int)json_integer_value(v);
    r->depth = depth > 1000000 ? 1000000 : (int)depth;
    for (int res = 0; res < SS_NRES; res++) {
        if ((rc = ss_get_count(c, o, ss_start_keys[res], &r->start[res])) ||
            (rc = ss_get_count(c, o, ss_end_keys[res], &r->end[res])))
            return rc;
    }
    if ((rc = ss_get_count(c, o, "tensormap", &r->tensormap))) return rc;
    if (!has_peaks) return SS_OK;
    for (int res = 0; res < SS_NRES; res++)
        if ((rc = ss_get_count(c, o, ss_peak_keys[res], &r->peak[res]))) return rc;
    return ss_get_count(c, o, "peak_tensormap", &r->peak_tensormap);
}

static int64_t ss_diff(int64_t a, int64_t b)
{
    return a > b ? a - b : 0;
}

static int ss_add_warning(ss_data *d, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    int full = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (full >= (int)sizeof buf) ss_utf8_cut_end(buf, sizeof buf - 1); /* a long site, cut whole */
    if (d->nwarnings == d->warnings_cap) {
        char **w = base_array_grow(d->warnings, &d->warnings_cap, sizeof *w, 8);
        if (!w) return -1;
        d->warnings = w;
    }
    if (!(d->warnings[d->nwarnings] = strdup(buf))) return -1;
    d->nwarnings++;
    return 0;
}

static int ss_push_open(ss_stack *s, const ss_rec *r, long line)
{
    if (s->n == s->cap) {
        ss_open *p = base_array_grow(s->items, &s->cap, sizeof *p, 16);
        if (!p) return -1;
        s->items = p;
    }
    ss_open *o = &s->items[s->n];
    if (!(o->site = strdup(r->site))) return -1;
    o->line = line;
    memcpy(o->start, r->start, sizeof o->start);
    memcpy(o->end, r->end, sizeof o->end);
    s->n++;
    return 0;
}

/* Builds the scope from its begin (o) and end (r). */
static int ss_add_scope(ss_data *d, const ss_open *o, const ss_rec *r, long line)
{
    if (d->nscopes == d->scopes_cap) {
        ss_scope *p = base_array_grow(d->scopes, &d->scopes_cap, sizeof *p, 64);
        if (!p) return -1;
        d->scopes = p;
    }
    ss_scope *s = &d->scopes[d->nscopes];
    *s = (ss_scope){.site = o->site, .depth = r->depth, .ring = r->ring,
                    .begin_line = o->line, .end_line = line};
    for (int res = 0; res < SS_NRES; res++) {
        s->high_water[res] = ss_diff(r->end[res], o->start[res]);
        s->live_exit[res] = ss_diff(r->end[res], r->start[res]);
        s->alloc[res] = ss_diff(r->end[res], o->end[res]);
        s->peak[res] = d->has_peaks ? r->peak[res] : s->high_water[res];
    }
    s->tm_live = r->tensormap;
    s->tm_peak = d->has_peaks ? r->peak_tensormap : r->tensormap;
    s->ring_index = ++d->ring_scopes[r->ring];
    s->global_index = (long)++d->nscopes;
    return 0;
}

/* Pairs an end record; an unmatched end is skipped with a warning. */
static int ss_pair(ss_data *d, ss_stack *st, const ss_rec *r, ss_ctx *c)
{
    ss_stack *s = &st[r->ring];
    for (size_t i = s->n; i-- > 0;) {
        if (strcmp(s->items[i].site, r->site)) continue;
        ss_open o = s->items[i];
        memmove(&s->items[i], &s->items[i + 1], (s->n - i - 1) * sizeof *s->items);
        s->n--;
        if (ss_add_scope(d, &o, r, c->line) == 0) return 0;
        free(o.site);
        return -1;
    }
    return ss_add_warning(d, "warning: %s:%ld: end without begin for %s", c->path, c->line,
                          r->site);
}

/* The site of a cut-off record, if its text got that far.  The text is raw
 * (jansson never validated it): only its whole UTF-8 characters that fit in
 * out are kept, so the warning, the text summary and the page stay UTF-8. */
static void ss_partial_site(const char *text, char *out, size_t len)
{
    const char *p = strstr(text, "\"site\": \"");
    snprintf(out, len, "(unknown)");
    if (!p) return;
    p += strlen("\"site\": \"");
    const char *q = strchr(p, '"');
    if (!q) return;
    size_t n = (size_t)(q - p) < len - 1 ? (size_t)(q - p) : len - 1;
    n = ss_utf8_prefix(p, n);
    if (n == 0 && q > p) return; /* nothing readable: "(unknown)" */
    memcpy(out, p, n);
    out[n] = '\0';
}

/* End of file: one warning for the innermost scope still open. */
static int ss_finish_open(ss_data *d, ss_stack *st, int truncated, const char *tail)
{
    const ss_open *inner = NULL;
    for (int r = 0; r < SS_RINGS; r++)
        if (st[r].n && (!inner || st[r].items[st[r].n - 1].line > inner->line))
            inner = &st[r].items[st[r].n - 1];
    if (inner)
        return ss_add_warning(d, "warning: %s: run ended inside scope %s (no end record)",
                              d->path, inner->site);
    if (!truncated) return 0;
    char site[128];
    ss_partial_site(tail, site, sizeof site);
    return ss_add_warning(d, "warning: %s: run ended inside scope %s (no end record)", d->path,
                          site);
}

static int ss_is_blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '\n') return 0;
    return 1;
}

/* Reads every line after the metadata; *oom set on allocation failure. */
static int ss_read_records(FILE *f, ss_ctx *c, ss_data *d, ss_stack *st, int *oom)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int rc = SS_OK, first = 1, truncated = 0;
    while (rc == SS_OK && (n = getline(&line, &cap, f)) >= 0) {
        c->line++;
        if (ss_is_blank(line, (size_t)n)) continue;
        int complete = line[n - 1] == '\n';
        json_t *o;
        if ((rc = ss_parse_line(c, line, (size_t)n, &o))) {
            if (complete) break;
            /* Only the last line can lack its newline: the run ended
             * mid-write, so report what we have. */
            if (c->errlen) c->err[0] = '\0';
            truncated = 1;
            rc = SS_OK;
            break;
        }
        if (first) {
            d->has_peaks = json_object_get(o, "peak_task_window") != NULL;
            first = 0;
        }
        ss_rec r;
        if ((rc = ss_read_record(c, o, d->has_peaks, &r)) == SS_OK) {
            d->records++;
            if ((r.is_end ? ss_pair(d, st, &r, c) : ss_push_open(&st[r.ring], &r, c->line)) < 0)
                *oom = 1, rc = SS_EINPUT;
        }
        json_decref(o);
    }
    if (rc == SS_OK && ss_finish_open(d, st, truncated, truncated ? line : "") < 0)
        *oom = 1, rc = SS_EINPUT;
    free(line);
    return rc;
}

int ss_file_load(const char *path, ss_data *d, char *err, size_t errlen)
{
    ss_ctx c = {path, 1, err, errlen};
    ss_stack st[SS_RINGS] = {{0}};
    int rc, oom = 0, has_total = 0;
    *d = (ss_data){0};
    if (errlen) err[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return SS_EINPUT;
    }
    if (!(d->path = strdup(path))) {
        fclose(f);
        snprintf(err, errlen, "%s: out of memory", path);
        return SS_EINPUT;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t n = getline(&line, &cap, f);
    json_t *meta = NULL;
    if (n < 0 && ferror(f))
        rc = ss_fail(&c, "cannot read: %s", strerror(errno));
    else if (n < 0 || ss_is_blank(line, (size_t)n))
        rc = ss_fail(&c, "invalid JSON: empty file (no metadata line)");
    else if ((rc = ss_parse_line(&c, line, (size_t)n, &meta)) == SS_OK)
        rc = ss_read_meta(&c, meta, d, &has_total);
    json_decref(meta);
    free(line);
    if (rc == SS_OK) rc = ss_read_records(f, &c, d, st, &oom);
    fclose(f);
    for (int r = 0; r < SS_RINGS; r++) {
        for (size_t i = 0; i < st[r].n; i++) free(st[r].items[i].site);
        free(st[r].items);
    }
    if (oom) snprintf(err, errlen, "%s: out of memory", path);
    if (rc != SS_OK) {
        ss_file_free(d);
        return rc;
    }
    if (!has_total) d->total = d->records;
    return SS_OK;
}

void ss_file_free(ss_data *d)
{
    for (size_t i = 0; i < d->nscopes; i++) free(d->scopes[i].site);
    for (size_t i = 0; i < d->nwarnings; i++) free(d->warnings[i]);
    free(d->scopes);
    free(d->warnings);
    free(d->path);
    *d = (ss_data){0};
}
