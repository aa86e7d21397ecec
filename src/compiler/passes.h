/*
 * passes.h - the stages of the pass pipeline (docs/compiler.md, "Stages"), in order.
 *
 * Each stage reads and rewrites p (nodes in p->arena) and returns 0, or -1
 * after recording an error in p->diags (or when out of memory, which it
 * records as an InternalError).  compile.c runs them in order and stops at
 * the first that fails.
 *
 * What stage 0 (typecheck.c) hands on:
 *  - p->funcs: the entry first, then every function it reaches, each
 *    specialized once (kernels and inline functions to the argument types
 *    of their first call); unreached functions are absent.
 *  - Tensor uses in kernel code where a tile is expected are explicit LOAD
 *    ops with `implicit` set; every LOAD/STORE has its offsets and shapes
 *    as LIST expressions of rank entries.
 *  - A `pl.at` keeps its body; pl.set_cache_policy markers are in its decls.
 *  - Calls of Inline functions are CALL expressions whose callee has kind
 *    CC_FUNC_INLINE (statement forms: `x = g(..)`, `a, b = g(..)`, `g(..)`).
 *  - Scalar constants are folded (INT/FLOAT/BOOL nodes); a VAR is a local,
 *    a parameter or a loop variable.
 */
#ifndef CC_PASSES_H
#define CC_PASSES_H

#include "compiler/ir.h"

/* 1. InlineFunctions (pass_inline.c): splices every Inline call; removes the
 * Inline functions; checks the spliced code's plane against the caller's
 * (docs/dsl.md, "Decorators and function kinds").  Scopes spliced in keep inlined_from / inlined_at for V2. */
int cc_pass_inline(cc_ir_program *p);

/* 2. OutlineIncoreScopes (pass_outline_incore.c): every pl.at(CORE_GROUP)
 * becomes an InCore function and one call (docs/compiler.md, "Outlining"), with its live-after and
 * set_cache_policy errors;
 * Opaque functions called from control-plane code become Orchestration. */
int cc_pass_outline_incore(cc_ir_program *p);

/* 3. DeriveCallDirections (pass_call_directions.c): parameter directions and
 * footprints (docs/compiler.md, "Directions", "Footprints"), then the boxes
 * of every InCore call; a store to a declared In parameter fails. */
int cc_pass_call_directions(cc_ir_program *p);

/* 3b. InferCommDomains (pass_comm_domains.c), run by DeriveCallDirections when the entry is a
 * host function (DISTRIBUTED-SPEC §1.2, §1.5): each window buffer's rank set (ALLOC_WINDOW's
 * domain slots), the device forms of the dispatches that pass window views (marked comm),
 * dead and unconsumed buffers, the collectives' windows. */
int cc_pass_comm_domains(cc_ir_program *p);

/* 4. MaterializeRuntimeScopes (pass_materialize_scopes.c): exactly docs/compiler.md,
 * "Scope placement". */
int cc_pass_materialize_scopes(cc_ir_program *p);

/* 5. Verify (verify.c): V1-V5 (docs/compiler.md, "Verifier checks"). */
int cc_verify(cc_ir_program *p);

/* 6. ResolveCachePolicy (pass_cache_policy.c): every LOAD gets its policy,
 * the BYPASS-on-a-written-tensor error, and the once-per-tensor-per-kernel
 * warning (docs/compiler.md, "Cache policy resolution"). */
int cc_pass_cache_policy(cc_ir_program *p);

#endif
