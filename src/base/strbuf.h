/*
 * strbuf.h - a growable NUL-terminated string (the printer's output, a
 * program's listing).  After a failed allocation the buffer keeps what it
 * had and `oom` stays set; every later append is a no-op, so a writer
 * checks once at the end.
 */
#ifndef BASE_STRBUF_H
#define BASE_STRBUF_H

#include <stddef.h>

typedef struct base_strbuf {
    char *s;     /* NULL until the first append */
    size_t len;
    size_t cap;
    int oom;
} base_strbuf;

void base_strbuf_free(base_strbuf *b);
void base_strbuf_putn(base_strbuf *b, const char *s, size_t n);
void base_strbuf_puts(base_strbuf *b, const char *s);
void base_strbuf_printf(base_strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The text so far ("" when empty); valid until the next append. */
const char *base_strbuf_str(const base_strbuf *b);

#endif
