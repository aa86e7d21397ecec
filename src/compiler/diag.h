/*
 * diag.h - the compiler's diagnostics: every error and warning a user sees.
 *
 * A diagnostic has a class (the Python exception the shim raises), a span
 * in the user's file, a message and an optional hint.  Printed, it reads
 * like the diagnostics of rustc or Elm:
 *
 *   kernel.py:12:9: error: name 'x' is not defined
 *       t = pl.load(x, [0, 0], [64, 128])
 *                   ^
 *   hint: pass it as an argument
 *
 * The list only grows; the compiler stops at the first error of a stage.
 */
#ifndef CC_DIAG_H
#define CC_DIAG_H

#include <stddef.h>
#include <stdint.h>

#include "compiler/source.h"

/* Diagnostic classes, X(NAME, Python class). */
#define CC_DIAG_CLASS_LIST(X)                                   \
    X(SYNTAX, "ParserSyntaxError")                              \
    X(TYPE, "ParserTypeError")                                  \
    X(UNDEFINED, "UndefinedVariableError")                      \
    X(UNSUPPORTED, "UnsupportedFeatureError")                   \
    X(INVALID_OP, "InvalidOperationError")                      \
    X(PASS, "PassError")                                        \
    X(INTERNAL, "InternalError")                                \
    X(PY_TYPE, "TypeError")                                     \
    X(VALUE, "ValueError")                                      \
    X(WARNING, "CompileWarning")                                \
    X(PARTIAL_CODEGEN, "PartialCodegenError") /* a PassError (DSL-V2-SPEC §1.6) */

typedef enum cc_diag_class {
#define CC_DIAG_ENUM_(name, py) CC_DIAG_##name,
    CC_DIAG_CLASS_LIST(CC_DIAG_ENUM_)
#undef CC_DIAG_ENUM_
} cc_diag_class;

/* The Python class name of a diagnostic class ("ParserSyntaxError", ...). */
const char *cc_diag_class_name(cc_diag_class c);

typedef struct cc_diag {
    cc_diag_class cls;
    cc_span span;
    char *message;
    char *hint; /* NULL: none */
} cc_diag;

typedef struct cc_diags {
    const cc_source *src; /* the compile's sources, nsrcs of them: [0] the entry's file, [k] module k */
    uint32_t nsrcs;
    cc_diag *items;
    size_t n;
    uint64_t cap;
    size_t errors;  /* items that are not warnings */
    uint32_t col_offset; /* added to the printed columns of source 0 (text dedented from the file) */
    int out_of_memory; /* an allocation failed (pto_compile returns -1) */
} cc_diags;

/* One source (NULL: none); cc_diags_sources gives several. */
void cc_diags_init(cc_diags *d, const cc_source *src);
/* The sources of a compile of several modules: n of them from src (span.file indexes them). */
void cc_diags_sources(cc_diags *d, const cc_source *src, uint32_t n);
/* The source whose lines hold line (source.h's line space; line 0, made
 * up by the compiler: the entry's); NULL when there is none. */
const cc_source *cc_diag_source(const cc_diags *d, uint32_t line);
/* That source's file name ("<string>" when none), and line as its file numbers it. */
const char *cc_diag_file(const cc_diags *d, uint32_t line);
uint32_t cc_diag_line(const cc_diags *d, uint32_t line);
/* Column col of line as the user's file counts it (source 0 may be dedented). */
uint32_t cc_diag_column(const cc_diags *d, uint32_t line, uint32_t col);
void cc_diags_free(cc_diags *d);

/* A compile reports at most this many errors, then one line saying it
 * stopped (a cascade after a bad indentation would repeat itself). */
#define CC_MAX_ERRORS 50

/* Records a diagnostic; hint may be NULL.  Never fails the caller: without
 * memory it sets out_of_memory instead.  Past CC_MAX_ERRORS errors only
 * warnings are recorded. */
void cc_diag_add(cc_diags *d, cc_diag_class cls, cc_span span, const char *hint, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* An allocation failed: sets out_of_memory (pto_compile returns -1, not a
 * program with errors) and records an error saying where, so every later
 * stage stops as after any error (counted even when it cannot be
 * recorded). */
void cc_diag_oom(cc_diags *d, cc_span span, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Forgets the diagnostics recorded after the first n (a speculative parse
 * of code that turned out not to be the compiler's). */
void cc_diags_truncate(cc_diags *d, size_t n);

/* Prints diagnostic i into buf (cap bytes, cut if longer): the location
 * line, the source line, a caret line and the hint.  Returns the length. */
size_t cc_diag_format(const cc_diags *d, size_t i, char *buf, size_t cap);

#endif
