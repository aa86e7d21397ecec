/*
 * typecheck.h - stage 0's second half: the syntax tree to the typed IR.
 *
 * Resolves names (locals and parameters, module and caller constants, the
 * pl names, kernels of other modules: each function's names are those of
 * the module that defines it), specializes the entry to the caller's argument specs, folds
 * constants, type-checks statements and ops (docs/dsl.md, "The surface"), applies the
 * `with` rules and decorator rules (docs/compiler.md, "Checking"), and hoists
 * pl.set_cache_policy markers onto their pl.at (docs/dsl.md, "Cache policy").
 */
#ifndef CC_TYPECHECK_H
#define CC_TYPECHECK_H

#include "compiler/ast.h"
#include "compiler/ir.h"
#include "pto/compile.h"

/* Builds *out (funcs in out->arena, errors in out->diags) for the entry
 * opts->entry of module mods[0]; mods[k] is opts->modules[k - 1]'s tree
 * (nmods: 1 + opts->nmodules).  Returns 0 or -1 on errors. */
int cc_typecheck(const cc_module *mods, uint32_t nmods, const pto_compile_options *opts, cc_ir_program *out);

/* Stage 0 up to the choice of the function it goes through (all the
 * SYNTAX stage checks): finds opts->entry in m, checks the declarations of
 * its functions, sets out->name and, for a @pl.program, out->function and
 * out->norchestration.  A program without a single Orchestration method to
 * go through is no error here.  Returns 0 or -1 on errors. */
int cc_check_entry(const cc_module *mods, uint32_t nmods, const pto_compile_options *opts, cc_ir_program *out);

#endif
