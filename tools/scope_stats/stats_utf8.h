/*
 * stats_utf8.h - cutting text between UTF-8 characters.  The report prints
 * sites (and messages holding them) into fixed buffers; a cut by bytes could
 * split a character and leave the summary, the JSON and the page invalid
 * UTF-8.  Invariant: what these functions keep is valid UTF-8 whenever the
 * kept bytes were.
 */
#ifndef SS_STATS_UTF8_H
#define SS_STATS_UTF8_H

#include <stddef.h>

/* Length of the longest prefix of s[0..n) made of whole, well-formed UTF-8
 * characters (no overlong forms, surrogates or code points past U+10FFFF). */
size_t ss_utf8_prefix(const char *s, size_t n);

/* Drops a character that the end of buf[0..n) splits, NUL-terminates and
 * returns the new length (buf holds at least n + 1 bytes). */
size_t ss_utf8_cut_end(char *buf, size_t n);

/* snprintf of "%s" into buf[len] cut between characters. */
void ss_utf8_copy(char *buf, size_t len, const char *s);

#endif
