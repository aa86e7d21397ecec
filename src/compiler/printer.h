/*
 * printer.h - IR back to DSL text, in the printed form of DSL-SPEC §2.4.
 *
 * The text parses back to the same program: print -> parse -> print is a
 * fixpoint.  Output: `import pypto.language as pl`, one `@pl.program`
 * class named after the program, one method per function (with `self`),
 * fully specified parameter types, `@pl.function(type=..., auto_scope=False)`
 * where auto_scope is off, scopes as `with pl.scope():` /
 * `with pl.scope(mode=pl.ScopeMode.MANUAL):`, `elif` as `else:` + `if`,
 * loads with `cache=` once resolved, and a trailing comment on each InCore
 * call with every tensor argument's direction and footprint.
 */
#ifndef CC_PRINTER_H
#define CC_PRINTER_H

#include "base/strbuf.h"
#include "compiler/ir.h"

/* Appends p's text to out; out->oom tells of a failure. */
void cc_print_program(const cc_ir_program *p, base_strbuf *out);

/* Appends e in DSL syntax, parenthesized only where Python needs it;
 * compact (no spaces around operators) for footprint comments. */
void cc_print_expr(const cc_ir_expr *e, int compact, base_strbuf *out);

#endif
