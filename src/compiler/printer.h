/*
 * printer.h - IR back to DSL text, in the printed form of docs/dsl.md,
 * "What the compiler does".
 *
 * The text parses back to the same program: print -> parse -> print is a
 * fixpoint.  Output: `import pypto.language as pl`, one `@pl.program`
 * class named after the program, one method per function (with `self`),
 * fully specified parameter types, `@pl.function(type=..., auto_scope=False)`
 * where auto_scope is off (a host function: `@pl.function(level=pl.Level.HOST,
 * role=pl.Role.Orchestrator)`, its dispatches with device=, the pld ops as
 * `pld.<path>(...)` after `import pypto.language.distributed as pld`), scopes as `with pl.scope():` /
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

/* Python's repr of a float: the shortest digits that read back as v. */
void cc_print_float(double v, base_strbuf *out);
/* A double-quoted str literal of the len bytes at s (escapes as Python's). */
void cc_print_str(const char *s, size_t len, base_strbuf *out);

/* How tightly an operator binds, loosest first: an operand binding looser
 * than its place needs is parenthesized (also by ast_printer.c). */
enum {
    CC_PREC_OR = 1, CC_PREC_AND, CC_PREC_NOT, CC_PREC_CMP, CC_PREC_BITOR, CC_PREC_BITXOR, CC_PREC_BITAND, CC_PREC_SHIFT,
    CC_PREC_ADD, CC_PREC_MUL, CC_PREC_UNARY, CC_PREC_ATOM
};
int cc_op_prec(cc_op op);

/* Appends op node e's attributes (printer_attrs.c): the positional ones
 * (positional 1) or the keyword ones, each after ", " ("," compact). */
void cc_print_op_attrs(const cc_ir_expr *e, int positional, int compact, base_strbuf *out);

/* A pld op (class CC_OPC_DIST) as `pld.<path>(...)` (printer_pld.c). */
void cc_print_pld_op(const cc_ir_expr *e, int compact, base_strbuf *out);
/* Does p's text need `import pypto.language.distributed as pld`: a host function or a
 * DistributedTensor parameter? */
int cc_print_uses_pld(const cc_ir_program *p);

#endif
