/*
 * strbuf.c - the growable string of strbuf.h; capacity doubles.
 */
#include "base/strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void base_strbuf_free(base_strbuf *b)
{
    free(b->s);
    *b = (base_strbuf){0};
}

static int base_strbuf_reserve(base_strbuf *b, size_t extra)
{
    if (b->oom) return 0;
    if (extra >= (size_t)-1 / 2 - b->len) return b->oom = 1, 0;
    if (b->len + extra + 1 <= b->cap) return 1;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1) cap *= 2;
    char *s = realloc(b->s, cap);
    if (!s) return b->oom = 1, 0;
    b->s = s, b->cap = cap;
    return 1;
}

void base_strbuf_putn(base_strbuf *b, const char *s, size_t n)
{
    if (!base_strbuf_reserve(b, n)) return;
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = 0;
}

void base_strbuf_puts(base_strbuf *b, const char *s) { base_strbuf_putn(b, s, strlen(s)); }

void base_strbuf_printf(base_strbuf *b, const char *fmt, ...)
{
    va_list ap;
    if (b->oom) return;
    if (b->cap > b->len + 1) { /* one pass when it fits (the usual case) */
        va_start(ap, fmt);
        int n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
        if (n < 0) return;
        if ((size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
            return;
        }
        b->s[b->len] = 0;
    }
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !base_strbuf_reserve(b, (size_t)n)) return;
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

const char *base_strbuf_str(const base_strbuf *b) { return b->s ? b->s : ""; }
