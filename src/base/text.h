/*
 * text.h - building messages in fixed buffers.
 *
 * A message never overflows its buffer: text past the end is cut, and the
 * buffer stays NUL-terminated.
 */
#ifndef BASE_TEXT_H
#define BASE_TEXT_H

#include <stddef.h>

/* Appends printf text to buf (of size cap, holding *len characters) and
 * advances *len; at most cap - 1 characters in all. */
void base_appendf(char *buf, size_t cap, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
