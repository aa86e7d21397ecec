/*
 * ir_walk.h - the walker over the typed IR (ir_walk.c): the one place that
 * knows which fields of a statement hold expressions and blocks, which
 * fields of an expression hold its children, and how a statement runs its
 * blocks.  Every read-only walk of the passes goes through it, so a new
 * statement or expression kind changes this file and the passes that give
 * the kind a meaning of their own, nothing else.
 *
 * Invariants:
 *  - Order is source order: a statement's expressions as written (a for's
 *    start, stop, step; a pl.at's deps; a return's values), its blocks in
 *    order (an if's then before its else); an expression's children left to
 *    right (a call's arguments, then its deps).  Derived data is not walked:
 *    a call's footprint boxes, a pl.at's cache declarations.
 *  - Absent optional slots (NULL) are skipped; visit never sees NULL.
 *  - Every visit returns int: nonzero stops the walk at once and is what the
 *    walk returns; 0 from the walk means everything was visited.
 *  - The walks take const nodes and hand out writable ones, as strchr does:
 *    the IR's own pointers are writable, and a pass that annotates a node in
 *    place (a load's cache policy, a call's boxes) or replaces a block (scope
 *    placement) walks with them.  The walker itself never writes.
 */
#ifndef CC_IR_WALK_H
#define CC_IR_WALK_H

#include "compiler/ir.h"

/* The most blocks one statement holds (an if: then, else). */
enum { CC_IR_MAX_BLOCKS = 2 };

/* How a statement runs its blocks, for the passes that follow control flow
 * (definite assignment, reads after a point, visible definitions). */
typedef enum cc_ir_flow {
    CC_IR_FLOW_SEQ,    /* each block once, in order, in place: a scope, a pl.at (no blocks: the rest) */
    CC_IR_FLOW_BRANCH, /* exactly one of its blocks: an if (an absent else is an empty block) */
    CC_IR_FLOW_LOOP    /* each block zero or more times: for, while */
} cc_ir_flow;

typedef int (*cc_ir_expr_fn)(cc_ir_expr *e, void *ctx);
typedef int (*cc_ir_stmt_fn)(cc_ir_stmt *s, void *ctx);

/* ---- one level ----------------------------------------------------------------------------- */
/* Visits each direct child of e: a binary's operands, a unary's operand, a
 * list's items, an op's present slots, a call's arguments then its deps. */
int cc_ir_expr_each_child(const cc_ir_expr *e, cc_ir_expr_fn visit, void *ctx);
/* Visits each expression s holds itself, not those of its blocks: an
 * assignment's value, an expression statement's expression, a for's start,
 * stop and step, a while's or an if's condition, a pl.at's deps, a return's
 * values (a scope holds none). */
int cc_ir_stmt_each_expr(const cc_ir_stmt *s, cc_ir_expr_fn visit, void *ctx);
/* The blocks s holds, in order, into out; returns how many. */
uint32_t cc_ir_stmt_blocks(const cc_ir_stmt *s, cc_ir_block *out[CC_IR_MAX_BLOCKS]);
/* How s runs the blocks cc_ir_stmt_blocks hands out. */
cc_ir_flow cc_ir_stmt_flow(const cc_ir_stmt *s);

/* ---- any depth ------------------------------------------------------------------------------- */
/* Visits e and every expression inside it, parents first (e NULL: none). */
int cc_ir_expr_walk(const cc_ir_expr *e, cc_ir_expr_fn visit, void *ctx);
/* cc_ir_expr_walk over each expression s holds itself. */
int cc_ir_stmt_walk_exprs(const cc_ir_stmt *s, cc_ir_expr_fn visit, void *ctx);
/* Visits every statement of b and of the blocks nested in it, each before
 * the statements of its own blocks. */
int cc_ir_block_each_stmt(const cc_ir_block *b, cc_ir_stmt_fn visit, void *ctx);
/* Visits every expression of b at any depth, statement by statement (a
 * statement's own expressions before those of its blocks). */
int cc_ir_block_walk_exprs(const cc_ir_block *b, cc_ir_expr_fn visit, void *ctx);

/* ---- reads of a name after a point --------------------------------------------------------- */
/* What the scope-escape check (Verify) and the live-after check of
 * outlining ask of the statements that follow a point. */
typedef enum cc_ir_reach {
    CC_IR_REACH_NONE,   /* neither read nor rebound on every path */
    CC_IR_REACH_READ,   /* read (possibly) before it is rebound */
    CC_IR_REACH_KILLED  /* rebound on every path before any read */
} cc_ir_reach;

/* Where a READ was found: the statement and the VAR in its own expressions. */
typedef struct cc_ir_reader {
    const cc_ir_stmt *stmt;
    const cc_ir_expr *var;
} cc_ir_reader;

/* Scans statements [from, to) of b in order, nested blocks included, for
 * name (*at set on READ).  A statement reads before it binds its targets;
 * a loop's blocks may not run, so their rebindings do not count; a for's
 * own variable hides the name in its body; a pl.at(CORE_GROUP) body is
 * kernel code, whose rebindings do not reach the code after it. */
cc_ir_reach cc_ir_scan_reads(const cc_ir_block *b, uint32_t from, uint32_t to, const char *name, cc_ir_reader *at);

#endif
