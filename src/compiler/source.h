/*
 * source.h - one DSL source text and where its lines start.
 *
 * The compiler never reads past `len`: the text may hold any bytes,
 * including NUL.  Lines are numbered from 1; columns count bytes from 1.
 * A line ends at '\n' (a '\r' before it belongs to no token).
 *
 * A compile of several modules (docs/dsl.md, "Kernels from other modules")
 * numbers the lines of its sources on, one after another, as a file set
 * does: a span's line n is line n - line_base of the source whose lines
 * hold it (diag.h's cc_diag_source).  The entry's source comes first
 * (line_base 0), so a compile of one file has the file's own numbers.
 */
#ifndef CC_SOURCE_H
#define CC_SOURCE_H

#include <stddef.h>
#include <stdint.h>

typedef struct cc_source {
    char *file;       /* shown in diagnostics */
    char *text;       /* a copy of the caller's bytes, NUL-terminated after len */
    size_t len;
    uint32_t *line_start; /* byte offset of each line's first byte; [0] is line 1 */
    uint32_t num_lines;
    uint32_t line_base; /* the lines of the compile's sources before it: its line n is span line line_base + n */
} cc_source;

/* Where a construct sits: from (line, col) to (end_line, end_col), the end
 * exclusive, all 1-based; lines in the compile's line space (above). */
typedef struct cc_span {
    uint32_t line, col, end_line, end_col;
} cc_span;

/* Copies file and text; returns 0, or -1 when out of memory or when the
 * text is 4 GiB or more. */
int cc_source_init(cc_source *s, const char *file, const char *text, size_t len);
void cc_source_free(cc_source *s);

/* Line n (1-based) without its newline: *len bytes from the returned
 * pointer; NULL past the last line. */
const char *cc_source_line(const cc_source *s, uint32_t n, size_t *len);

/* The text of span sp, a span in s (to the end of its first line when it spans lines)
 * copied into buf, cut to cap; "this expression" when sp is not in s. */
const char *cc_source_span_text(const cc_source *s, cc_span sp, char *buf, size_t cap);

/* The line (in the compile's line space) and column of byte offset off. */
void cc_source_locate(const cc_source *s, size_t off, uint32_t *line, uint32_t *col);

#endif
