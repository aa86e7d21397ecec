/*
 * introspect.h - a @pl.program class's functions as written: the table
 * behind prog.functions (pto_program_functions, docs/dsl.md,
 * "Introspection and tools"), read from the syntax tree, so that a program
 * as written, a printed program (lower()'s text) and a parsed one give
 * their table the same way.
 */
#ifndef CC_INTROSPECT_H
#define CC_INTROSPECT_H

#include "base/arena.h"
#include "compiler/ast.h"
#include "pto/compile.h"

/* The @pl.function methods of class cls of m (cls NULL: the module-level
 * @pl.function defs), ordered by name, in a:
 * returns their count, *out the table (0 and NULL: no such class, no
 * methods, or out of memory). */
size_t cc_module_functions(const cc_module *m, const char *cls, base_arena *a, const pto_function_info **out);

#endif
