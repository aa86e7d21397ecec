/*
 * file.c - base_read_file: read in doubling chunks until end of file.
 */
#include "base/file.h"

#include <stdio.h>
#include <stdlib.h>

char *base_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = NULL;
    size_t cap = 0, n = 0, r;
    do {
        if (n + 1 >= cap) {
            char *q = realloc(buf, cap = cap ? cap * 2 : 65536);
            if (!q) return fclose(f), free(buf), NULL;
            buf = q;
        }
        r = fread(buf + n, 1, cap - n - 1, f);
        n += r;
    } while (r > 0);
    fclose(f);
    buf[n] = 0;
    if (len) *len = n;
    return buf;
}
