/*
 * file.h - reading a whole file (a source, a test's output) into memory.
 */
#ifndef BASE_FILE_H
#define BASE_FILE_H

#include <stddef.h>

/* The file's bytes, NUL-terminated after them (malloc'd; len, if given,
 * gets their number), or NULL when it cannot be opened or memory runs
 * out.  Works on pipes too: it reads until the end. */
char *base_read_file(const char *path, size_t *len);

#endif
