/*
 * source.c - source texts and their line table (see source.h).
 */
#include "compiler/source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"

int cc_source_init(cc_source *s, const char *file, const char *text, size_t len)
{
    memset(s, 0, sizeof *s);
    if (len >= UINT32_MAX) return -1;
    size_t flen = strlen(file ? file : "<string>");
    s->file = malloc(flen + 1);
    s->text = malloc(len + 1);
    if (!s->file || !s->text) goto fail;
    memcpy(s->file, file ? file : "<string>", flen + 1);
    if (len) memcpy(s->text, text, len);
    s->text[len] = 0;
    s->len = len;
    uint64_t cap = 0;
    for (size_t i = 0;; i++) {
        if (i == 0 || s->text[i - 1] == '\n') {
            if (i == len && i != 0) break; /* no empty line after a final newline */
            if (s->num_lines == cap) {
                uint32_t *p = base_array_grow(s->line_start, &cap, sizeof *p, 64);
                if (!p) goto fail;
                s->line_start = p;
            }
            s->line_start[s->num_lines++] = (uint32_t)i;
        }
        if (i == len) break;
    }
    return 0;
fail:
    cc_source_free(s);
    return -1;
}

void cc_source_free(cc_source *s)
{
    free(s->file);
    free(s->text);
    free(s->line_start);
    memset(s, 0, sizeof *s);
}

const char *cc_source_line(const cc_source *s, uint32_t n, size_t *len)
{
    if (n < 1 || n > s->num_lines) return NULL;
    size_t a = s->line_start[n - 1], b = n < s->num_lines ? s->line_start[n] : s->len;
    if (b > a && s->text[b - 1] == '\n') b--;
    if (b > a && s->text[b - 1] == '\r') b--;
    *len = b - a;
    return s->text + a;
}

const char *cc_source_span_text(const cc_source *s, cc_span sp, char *buf, size_t cap)
{
    size_t n = 0;
    const char *line = sp.line > s->line_base ? cc_source_line(s, sp.line - s->line_base, &n) : NULL;
    uint32_t from = sp.col - 1, to = sp.end_line == sp.line ? sp.end_col - 1 : (uint32_t)n;
    if (!line || to > n || from >= to) return "this expression";
    snprintf(buf, cap, "%.*s", (int)(to - from), line + from);
    return buf;
}

void cc_source_locate(const cc_source *s, size_t off, uint32_t *line, uint32_t *col)
{
    uint32_t lo = 0, hi = s->num_lines; /* the last line start <= off */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (s->line_start[mid] <= off) lo = mid;
        else hi = mid;
    }
    *line = s->line_base + lo + 1;
    *col = (uint32_t)(off - s->line_start[lo]) + 1;
}
