/*
 * ast_printer.h - the syntax tree back to DSL text: the program as the
 * user wrote it, before anything is specialized (docs/dsl.md, "What the compiler does",
 * `Prog.as_python()`; the SYNTAX stage's text).
 *
 * The text parses back to the same tree (print -> parse -> print is a
 * fixpoint) and runs as Python: `import pypto.language as <pl>`, then
 * `NAME = value` for every constant its code names (a caller's resolved
 * value, else the module's expression as written, each after the
 * constants it names), then a @pl.program entry's class or, for a @pl.jit
 * entry, the module's decorated functions, in file order.  Annotations
 * print as written (a bare pl.Tensor stays bare; no shapes are invented).
 * print_prefix and print_concise of the options change the spelling only
 * (as_python(prefix=, concise=)); the text is the same program.
 */
#ifndef CC_AST_PRINTER_H
#define CC_AST_PRINTER_H

#include "base/strbuf.h"
#include "compiler/ast.h"
#include "pto/compile.h"

/* Appends the entry o->entry of m (checked to exist) as written; out->oom
 * tells of a failure. */
void cc_print_source(const cc_module *m, const pto_compile_options *o, base_strbuf *out);

/* Appends e as written (an annotation's text: Function.params' types). */
void cc_print_ast_expr(const cc_module *m, const cc_expr *e, base_strbuf *out);

#endif
