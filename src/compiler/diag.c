/*
 * diag.c - recording and printing diagnostics (see diag.h).
 *
 * The caret line copies the source line's tabs, so the carets sit under the
 * span whatever the terminal's tab width; a span that ends on a later line
 * is underlined to the end of its first line.
 */
#include "compiler/diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/text.h"

const char *cc_diag_class_name(cc_diag_class c)
{
    static const char *const names[] = {
#define CC_DIAG_NAME_(name, py) py,
        CC_DIAG_CLASS_LIST(CC_DIAG_NAME_)
#undef CC_DIAG_NAME_
    };
    return (unsigned)c < sizeof names / sizeof names[0] ? names[c] : "InternalError";
}

void cc_diags_init(cc_diags *d, const cc_source *src)
{
    memset(d, 0, sizeof *d);
    d->src = src;
    d->nsrcs = src ? 1 : 0;
}

void cc_diags_sources(cc_diags *d, const cc_source *src, uint32_t n)
{
    d->src = src;
    d->nsrcs = n;
}

const cc_source *cc_diag_source(const cc_diags *d, uint32_t line)
{
    uint32_t k = 0;
    while (k + 1 < d->nsrcs && d->src[k + 1].line_base < line) k++;
    return d->nsrcs ? &d->src[k] : NULL;
}

const char *cc_diag_file(const cc_diags *d, uint32_t line)
{
    const cc_source *s = cc_diag_source(d, line);
    return s && s->file ? s->file : "<string>";
}

uint32_t cc_diag_line(const cc_diags *d, uint32_t line)
{
    const cc_source *s = cc_diag_source(d, line);
    return s && line > s->line_base ? line - s->line_base : line;
}

uint32_t cc_diag_column(const cc_diags *d, uint32_t line, uint32_t col)
{
    return d->nsrcs && cc_diag_source(d, line) != d->src ? col : col + d->col_offset;
}

void cc_diags_free(cc_diags *d)
{
    for (size_t i = 0; i < d->n; i++) {
        free(d->items[i].message);
        free(d->items[i].hint);
    }
    free(d->items);
    memset(d, 0, sizeof *d);
}

void cc_diags_truncate(cc_diags *d, size_t n)
{
    while (d->n > n) {
        cc_diag *x = &d->items[--d->n];
        if (x->cls != CC_DIAG_WARNING) d->errors--;
        free(x->message);
        free(x->hint);
    }
}

static char *cc_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p) memcpy(p, s, n);
    return p;
}

static void cc_diag_record(cc_diags *d, cc_diag_class cls, cc_span span, const char *hint, const char *msg)
{
    if (d->n == d->cap) {
        cc_diag *p = base_array_grow(d->items, &d->cap, sizeof *p, 8);
        if (!p) {
            d->out_of_memory = 1;
            return;
        }
        d->items = p;
    }
    cc_diag *x = &d->items[d->n];
    x->cls = cls;
    x->span = span;
    x->message = cc_strdup(msg);
    x->hint = hint ? cc_strdup(hint) : NULL;
    if (!x->message || (hint && !x->hint)) {
        free(x->message);
        free(x->hint);
        d->out_of_memory = 1;
        return;
    }
    d->n++;
    if (cls != CC_DIAG_WARNING) d->errors++;
}

void cc_diag_add(cc_diags *d, cc_diag_class cls, cc_span span, const char *hint, const char *fmt, ...)
{
    char msg[1024];
    if (cls != CC_DIAG_WARNING && d->errors >= CC_MAX_ERRORS) {
        /* one more line says so, then nothing: the first errors are the ones to fix */
        if (d->errors == CC_MAX_ERRORS) {
            snprintf(msg, sizeof msg, "too many errors (%d); stopping here", CC_MAX_ERRORS);
            cc_diag_record(d, CC_DIAG_SYNTAX, span, "fix the errors above first", msg);
            if (d->errors == CC_MAX_ERRORS) d->errors++; /* not recorded (no memory): stop anyway */
        }
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cc_diag_record(d, cls, span, hint, msg);
}

void cc_diag_oom(cc_diags *d, cc_span span, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    size_t errors = d->errors;
    d->out_of_memory = 1;
    cc_diag_record(d, CC_DIAG_INTERNAL, span, NULL, msg);
    if (d->errors == errors) d->errors++;
}

size_t cc_diag_format(const cc_diags *d, size_t i, char *buf, size_t cap)
{
    const cc_diag *x = &d->items[i];
    size_t len = 0, n;
    if (cap) buf[0] = 0;
    const cc_source *src = cc_diag_source(d, x->span.line);
    uint32_t ln = cc_diag_line(d, x->span.line);
    base_appendf(buf, cap, &len, "%s:%u:%u: %s: %s", cc_diag_file(d, x->span.line), ln,
                 cc_diag_column(d, x->span.line, x->span.col), x->cls == CC_DIAG_WARNING ? "warning" : "error", x->message);
    const char *line = src ? cc_source_line(src, ln, &n) : NULL;
    if (line) {
        base_appendf(buf, cap, &len, "\n%.*s\n", (int)n, line);
        uint32_t from = x->span.col ? x->span.col - 1 : 0;
        uint32_t to = x->span.end_line == x->span.line ? x->span.end_col - 1 : (uint32_t)n;
        if (to <= from) to = from + 1;
        for (uint32_t c = 0; c < to && len + 1 < cap; c++)
            buf[len++] = c < from ? (c < n && line[c] == '\t' ? '\t' : ' ') : '^';
        if (len < cap) buf[len] = 0;
    }
    if (x->hint) base_appendf(buf, cap, &len, "\nhint: %s", x->hint);
    return len;
}
