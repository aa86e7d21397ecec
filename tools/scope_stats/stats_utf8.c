/*
 * stats_utf8.c - cutting text between UTF-8 characters (stats_utf8.h).
 */
#include "stats_utf8.h"

#include <string.h>

size_t ss_utf8_prefix(const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0;
    while (i < n) {
        unsigned c = s[i], cp, min;
        size_t k;
        if (c < 0x80) {
            i++;
            continue;
        }
        if ((c & 0xE0) == 0xC0) k = 1, cp = c & 0x1F, min = 0x80;
        else if ((c & 0xF0) == 0xE0) k = 2, cp = c & 0x0F, min = 0x800;
        else if ((c & 0xF8) == 0xF0) k = 3, cp = c & 0x07, min = 0x10000;
        else return i;
        if (n - i <= k) return i;
        for (size_t j = 1; j <= k; j++) {
            if ((s[i + j] & 0xC0) != 0x80) return i;
            cp = cp << 6 | (s[i + j] & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return i;
        i += k + 1;
    }
    return i;
}

size_t ss_utf8_cut_end(char *buf, size_t n)
{
    size_t lead = n;
    while (lead > 0 && n - lead < 4 && ((unsigned char)buf[lead - 1] & 0xC0) == 0x80) lead--;
    if (lead > 0 && n - lead < 4) {
        unsigned c = (unsigned char)buf[lead - 1];
        size_t need = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 1;
        if (n - (lead - 1) < need) n = lead - 1;
    }
    buf[n] = '\0';
    return n;
}

void ss_utf8_copy(char *buf, size_t len, const char *s)
{
    if (!len) return;
    size_t n = strlen(s);
    if (n < len) {
        memcpy(buf, s, n + 1);
        return;
    }
    memcpy(buf, s, len - 1);
    ss_utf8_cut_end(buf, len - 1);
}
