/*
 * ir.h - the typed IR every pass reads and writes.
 *
 * The type checker (typecheck.c) builds it from the syntax tree: names are
 * resolved, module constants and specialized scalar arguments are folded,
 * every expression carries its type, `pl` ops are op nodes with their
 * arguments in fixed slots, kernel calls point at their callee, and a
 * `pl.set_cache_policy` marker is hoisted onto its `pl.at` node.
 *
 * Invariants:
 *  - Every node lives in the program's arena; passes build new nodes there
 *    and never free.  A pass may share unchanged subtrees.
 *  - Every node has the span of the source construct it came from; nodes a
 *    pass creates carry the span of the construct they stand for (an AUTO
 *    scope the span of the def/for/if it wraps).
 *  - The IR is not SSA: a variable is its name.  A name keeps one kind,
 *    dtype (and tile shape) across every loop back-edge and branch merge.
 *  - Op and call argument slots are fixed per op (CC_IR_OP_LIST); an absent
 *    optional argument is NULL.
 */
#ifndef CC_IR_H
#define CC_IR_H

#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "compiler/ast.h"
#include "compiler/diag.h"
#include "compiler/dim_expr.h"
#include "compiler/scalar.h"
#include "compiler/types.h"

/* ---- expressions ------------------------------------------------------------------------- */
typedef enum cc_ir_expr_kind {
    CC_X_INT, CC_X_FLOAT, CC_X_BOOL, CC_X_STR,
    CC_X_VAR,     /* a local, a parameter, a loop variable */
    CC_X_BINARY,  /* arithmetic (ADD..MOD), MIN, MAX, compare, and/or */
    CC_X_UNARY,   /* NEG, NOT */
    CC_X_LIST,    /* [a, b] */
    CC_X_OP,      /* a pl op (CC_IR_OP_LIST) */
    CC_X_CALL,    /* a kernel, opaque, orchestration or (pre-inlining) inline call; pl.submit */
    CC_X_ARRAY    /* a TASK_ID array (D-arr), u.list.aop: CREATE (no items), GET [arr, i], SET [arr, i, tid] */
} cc_ir_expr_kind;

/* u.list.aop of a CC_X_ARRAY node. */
typedef enum cc_ir_array_op { CC_ARR_CREATE, CC_ARR_GET, CC_ARR_SET } cc_ir_array_op;

typedef struct cc_ir_expr cc_ir_expr;
typedef struct cc_ir_func cc_ir_func;

/* A tensor argument's footprint at one call: direction and, per dimension,
 * [lo, hi) as expressions of the caller's scalars; lo == NULL means the
 * whole dimension. */
typedef struct cc_ir_box {
    uint8_t dir;  /* cc_dir */
    uint8_t rank;
    cc_ir_expr *lo[CC_MAX_RANK], *hi[CC_MAX_RANK];
} cc_ir_box;

/* u.op.mode of a LOAD written pl.slice(tensor, ...) and of a STORE written pl.assemble(tensor, ...). */
#define CC_IR_SPELLED_WINDOW 1

struct cc_ir_expr {
    uint8_t kind; /* cc_ir_expr_kind */
    cc_type type;
    cc_span span;
    union {
        int64_t i;        /* INT, BOOL */
        double f;         /* FLOAT */
        const char *str;  /* STR */
        const char *name; /* VAR */
        struct { cc_op op; cc_ir_expr *l, *r; } bin;
        struct { cc_op op; cc_ir_expr *x; } un;
        struct { cc_ir_expr **items; uint32_t n; uint8_t aop; } list; /* LIST; ARRAY (aop: cc_ir_array_op) */
        struct {
            uint8_t op;       /* cc_ir_op */
            uint8_t dtype;    /* CAST target, CREATE_TENSOR dtype, MATMUL out_dtype (255: none) */
            uint8_t cache;    /* LOAD: cc_cache_policy (UNSET until stage 6 unless written) */
            uint8_t clamp;    /* LOAD */
            uint8_t implicit; /* LOAD made for a tensor used as a tile */
            uint8_t atomic;   /* STORE: the pl.AtomicType (Add: adds into the window, reading it) */
            uint8_t mode;     /* CAST: cc_cast_mode; FILLPAD, TRANSPOSE: ops.h; CREATE_TENSOR: 1 manual_dep=True;
                               * LOAD, STORE: CC_IR_SPELLED_WINDOW
                               * when written as pl.slice / pl.assemble of a Tensor (it prints so) */
            cc_ir_expr **args; /* cc_ir_op_nslots(op) slots */
        } op;
        struct {
            cc_ir_func *callee;  /* NULL: pl.system.task_dummy (a submit with deps only: cc_ir_is_dummy) */
            cc_ir_expr **args;   /* one per callee parameter, in parameter order */
            uint32_t nargs;
            cc_ir_expr **deps;   /* pl.submit deps= / pl.at deps=: TaskId expressions */
            uint32_t ndeps;
            uint8_t submit;      /* pl.submit (or a pl.at with deps=/as): results end with the TaskId */
            uint8_t sync_start;  /* pl.spmd_submit(sync_start=True) as written (a hint) */
            cc_ir_expr *blocks;  /* pl.spmd_submit core_num= (an INDEX expression; submit is 1); NULL: one block */
            cc_ir_box *boxes;    /* per argument, after stage 3 (rank 0 for scalars) */
            uint8_t *nodep;      /* per argument: submitted PTO_ARG_NO_DEP (pl.no_dep(t), no_dep_args=); NULL: none */
            uint8_t early;       /* allow_early_resolve=: 0 not written, 1 False, 2 True (a hint: no effect) */
            cc_ir_expr *device;  /* a host function's dispatch: device= (an INDEX expression); NULL: none
                                  * (round robin; DISTRIBUTED-SPEC §1.2) */
            uint8_t comm;        /* a dispatch passing window views (InferCommDomains: a comm dispatch) */
            cc_ir_expr *pred;    /* predicate= (D-pred): LIST [tensor, index...], compared with pred_k; NULL: none */
            uint8_t pred_op;     /* cc_op EQ..GE */
            int64_t pred_k;
        } call;
    } u;
};

/* Is e pl.system.task_dummy(deps=...) (D-dum): a no-work task joining its deps? */
static inline int cc_ir_is_dummy(const cc_ir_expr *e) { return e->kind == CC_X_CALL && !e->u.call.callee; }

/* ---- statements ------------------------------------------------------------------------- */
typedef enum cc_ir_stmt_kind {
    CC_I_ASSIGN,  /* targets = value */
    CC_I_EXPR,    /* a call or pl.store for its effect */
    CC_I_FOR,     /* for var in pl.range(start, stop, step) */
    CC_I_WHILE,
    CC_I_IF,      /* orelse.n == 0: no else */
    CC_I_SCOPE,   /* runtime scope */
    CC_I_AT,      /* pl.at: CORE_GROUP until outlined; grouping levels stay */
    CC_I_RETURN
} cc_ir_stmt_kind;

/* The loop forms a for statement keeps (pl.unroll is expanded by the type checker). */
typedef enum cc_ir_loop_form { CC_LOOP_RANGE, CC_LOOP_PARALLEL, CC_LOOP_PIPELINE } cc_ir_loop_form;

/* What an assignment is in an explicit carry (DSL-V2-SPEC §6, L-carry; docs/compiler.md, "Carries"):
 * INIT `c1, ... = v1, ...` right before its loop (the carries' initial values), YIELD
 * `c1, ... = e1, ...` ending the loop body (or the sole `with pl.scope()` there), OUT
 * `o1, ... = c1, ...` right after the loop (the yield-bound names), PHI `x, ... = e, ...`
 * ending an if arm.  Ordinary assignments to every later stage; the printer writes them
 * back as the loop header's init_values=, `o1, ... = pl.yield_(e1, ...)` and `x = pl.yield_(e)`. */
typedef enum cc_ir_carry_role { CC_CARRY_NONE, CC_CARRY_INIT, CC_CARRY_YIELD, CC_CARRY_OUT, CC_CARRY_PHI } cc_ir_carry_role;

typedef struct cc_ir_stmt cc_ir_stmt;
typedef struct cc_ir_block {
    cc_ir_stmt **items;
    uint32_t n;
} cc_ir_block;

typedef struct cc_ir_target {
    const char *name;
    cc_type type;
    cc_span span;
} cc_ir_target;

/* One pl.set_cache_policy(t, policy) declaration of a pl.at body. */
typedef struct cc_ir_cache_decl {
    const char *tensor;
    uint8_t policy; /* cc_cache_policy */
    cc_span span;   /* of the marker statement */
} cc_ir_cache_decl;

/* optimizations= of a pl.at or an InCore @pl.function (docs/dsl.md, "Hints"):
 * validated, no effect, printed back as written. */
typedef enum cc_ir_hint_kind { CC_HINT_SPLIT, CC_HINT_CROSS_CORE_SLOT } cc_ir_hint_kind;
typedef struct cc_ir_hint {
    uint8_t kind;     /* cc_ir_hint_kind */
    uint8_t mode;     /* SPLIT: its pl.SplitMode value */
    int64_t slot_num; /* 0: not written (SPLIT) */
} cc_ir_hint;
typedef struct cc_ir_hints {
    cc_ir_hint *v;
    uint32_t n;
    uint8_t written; /* optimizations= was written (even empty) */
} cc_ir_hints;

struct cc_ir_stmt {
    uint8_t kind; /* cc_ir_stmt_kind */
    cc_span span;
    union {
        struct { cc_ir_target *targets; uint32_t ntargets; cc_ir_expr *value; uint8_t role; /* cc_ir_carry_role */ } assign;
        cc_ir_expr *expr;
        struct {
            const char *var;
            cc_span var_span;
            cc_ir_expr *start, *stop, *step;
            cc_ir_block body;
            uint8_t form;    /* cc_ir_loop_form: as written (printed back) */
            uint8_t carried; /* explicit carries (DSL-V2-SPEC §6 L-carry): a CARRY_INIT assignment
                              * stands before, a CARRY_OUT one after, the body ends with a YIELD */
            int64_t stage;   /* pl.pipeline's stage= (a hint) */
        } for_;
        struct { cc_ir_expr *cond; cc_ir_block body; uint8_t carried; /* pl.while_: as for_.carried */ } while_;
        struct { cc_ir_expr *cond; cc_ir_block then, orelse; uint8_t elif; } if_;
        struct {
            uint8_t mode;              /* cc_scope_mode */
            uint8_t placed;            /* by MaterializeRuntimeScopes */
            const char *inlined_from;  /* written in this Inline function (NULL: in its own function) */
            cc_span inlined_at;        /* the call it was spliced at */
            cc_ir_block body;
        } scope;
        struct {
            uint8_t level;
            const char *name_hint;   /* NULL: none */
            const char *as_name;     /* NULL: none */
            cc_ir_expr **deps;
            uint32_t ndeps;
            uint8_t has_deps;        /* deps= was written (even empty) */
            cc_ir_hints opts;        /* optimizations= */
            const char **nodep;      /* no_dep_args=: tensor names (D-nda) */
            cc_span *nodep_spans;
            uint32_t nnodep;
            uint8_t has_nodep;       /* no_dep_args= was written (even empty) */
            uint8_t early;           /* allow_early_resolve=: 0 not written, 1 False, 2 True */
            cc_ir_cache_decl *decls;
            uint32_t ndecls;
            cc_ir_block body;
            /* `for var in pl.spmd(blocks)` (DSL-V2-SPEC §7): blocks != NULL, level CORE_GROUP,
             * the body's first statement `var = pl.get_block_idx()` (printed as the loop head) */
            cc_ir_expr *blocks;
            uint8_t sync_start;      /* sync_start=True was written (a hint) */
            uint8_t spmd_with;       /* SPMD written `with pl.spmd(...)` (kernel code, no loop variable) */
            uint8_t cluster;         /* `with pl.cluster():` (level UNDEFINED): a transparent grouping */
        } at;
        struct { cc_ir_expr **values; uint32_t n; } ret;
    } u;
};

/* ---- functions and programs --------------------------------------------------------------- */
typedef struct cc_ir_param {
    const char *name;
    cc_type type;
    uint8_t dir;       /* tensors: cc_dir (after stage 3 always set) */
    uint8_t declared;  /* the direction was written (pl.Out / pl.InOut / bare or shaped pl.Tensor) */
    uint8_t annotated; /* a type annotation was written */
    uint8_t shaped;    /* the annotation fixed the type: pl.Tensor[[...], dtype], pl.Scalar[dtype] */
    cc_span span;
    cc_ir_box box;     /* tensors, after stage 3: footprint in terms of the function's scalar params */
    uint8_t implicit;  /* an InCore function's returned tensor-level value (T-x): every caller allocates it */
    cc_valid_shape valid; /* pl.TensorView(valid_shape=) of the annotation */
} cc_ir_param;

struct cc_ir_func {
    const char *name;
    cc_span span;          /* the def line (or the pl.at an outlined kernel came from) */
    uint8_t kind;          /* cc_func_kind */
    uint8_t auto_scope;
    uint8_t level;         /* InCore: CORE_GROUP */
    uint8_t outlined;      /* made by OutlineIncoreScopes */
    uint8_t entry;         /* the program's orchestration entry */
    uint8_t host;          /* a host orchestrator (@pl.jit.host, @pl.function(level=pl.Level.HOST,
                            * role=pl.Role.Orchestrator)): kind Orchestration, auto_scope False, the
                            * entry; its calls of Orchestration functions are dispatches */
    cc_ir_param *params;
    uint32_t nparams;
    cc_type *results;      /* declared or inferred return types */
    uint32_t nresults;
    cc_ir_block body;
    cc_ir_cache_decl *decls; /* outlined from a pl.at with pl.set_cache_policy markers */
    uint32_t ndecls;
    cc_ir_hints opts;      /* InCore: optimizations= (written, or its pl.at's) */
};

typedef struct cc_ir_program {
    const char *name;      /* the @pl.program class, or the @pl.jit entry's name */
    const char *function;  /* a @pl.program: the method compiled through (NULL: not exactly one; a @pl.jit entry) */
    uint32_t norchestration; /* a @pl.program: its Orchestration methods */
    cc_ir_func **funcs;    /* the entry first; printed in call-graph order (cc_ir_program_order) */
    uint32_t nfuncs;
    uint32_t capfuncs;     /* room in funcs (grown by doubling, in the arena) */
    base_arena *arena;
    cc_diags *diags;
    const cc_source *src;
    cc_dim_expr *dims;     /* the derived dimensions of its annotations (dim_expr.h; arena, CC_MAX_DERIVED_DIMS room) */
    uint32_t ndims;
} cc_ir_program;

/* ---- building ------------------------------------------------------------------------------ */
/* Each returns NULL when out of memory. */
cc_ir_expr *cc_ir_expr_new(base_arena *a, cc_ir_expr_kind k, cc_span sp);
cc_ir_expr *cc_ir_int(base_arena *a, int64_t v, cc_span sp);
cc_ir_expr *cc_ir_var(base_arena *a, const char *name, cc_type t, cc_span sp);
cc_ir_expr *cc_ir_binary(base_arena *a, cc_op op, cc_ir_expr *l, cc_ir_expr *r, cc_span sp);
/* An op node with its slots allocated (all NULL). */
cc_ir_expr *cc_ir_op_new(base_arena *a, cc_ir_op op, cc_span sp);
cc_ir_stmt *cc_ir_stmt_new(base_arena *a, cc_ir_stmt_kind k, cc_span sp);
/* A block of n statements copied from items (n may be 0). */
int cc_ir_block_make(base_arena *a, cc_ir_block *out, cc_ir_stmt *const *items, uint32_t n);
/* A scope statement around body. */
cc_ir_stmt *cc_ir_scope_new(base_arena *a, cc_scope_mode mode, int placed, cc_ir_block body, cc_span sp);
/* Inserts f at index at (nfuncs: appends; amortized constant time). */
int cc_ir_program_add_func(cc_ir_program *p, cc_ir_func *f, uint32_t at);

/* ---- reading --------------------------------------------------------------------------------- */
/* A deep copy of e (NULL stays NULL). */
cc_ir_expr *cc_ir_expr_clone(base_arena *a, const cc_ir_expr *e);
/* e with every VAR named names[k] replaced by a copy of values[k];
 * constants folded where both sides became constants.  NULL on OOM. */
cc_ir_expr *cc_ir_expr_subst(base_arena *a, const cc_ir_expr *e, const char *const *names,
                             cc_ir_expr *const *values, uint32_t n);
/* Folds scalar arithmetic of constants (+ - * / // % min max, unary -)
 * into a constant: the value the VMs compute for it (cc_scalar_bin and
 * cc_scalar_un in the dtype cc_scalar_bin_dtype gives, operands converted
 * as lowering converts them), unless the operator fails there (an integer
 * division by zero) or the result is inf or NaN (no literal).  Compares,
 * and/or and not stay as written.  Integer neutral terms
 * drop (x*1, x+0, x-0: the shape footprint expressions print in).  The
 * one folding every stage uses, so a program prints the same whether a
 * constant was written (stage 0) or substituted (inlining). */
cc_ir_expr *cc_ir_fold(base_arena *a, cc_ir_expr *e);
/* Is e a constant scalar (an int, bool or float literal node)?  Then *v is its value. */
int cc_scalar_of(const cc_ir_expr *e, cc_scalar *v);
/* The constant of dtype d holding v (a float, bool or int literal node), in a; NULL when out of memory. */
cc_ir_expr *cc_scalar_expr(base_arena *a, cc_dtype d, cc_scalar v, cc_span sp);
/* Is e an integer constant (then *v holds it)? */
int cc_ir_const_int(const cc_ir_expr *e, int64_t *v);
/* Reports pl.<op> (a kernel op) written in control-plane code of function f
 * of kind k: a misplaced tensor op when cc_ir_op_tensor_level(op), else a
 * misplaced tile op, with the hint to move it into kernel code. */
void cc_misplaced_op(cc_diags *d, cc_span sp, const char *op, cc_func_kind k, const char *f);
/* The tensor an op reads or writes in place, or NULL: pl.load's and a
 * pl.read of a tensor's (*dir In), pl.store's and pl.write's (*dir Out; an
 * atomic pl.store reads the window too: InOut).  Writes: *dir & CC_DIR_OUT. */
const cc_ir_expr *cc_ir_tensor_access(const cc_ir_expr *e, cc_dir *dir);
/* Does e read the variable name? */
int cc_ir_expr_uses(const cc_ir_expr *e, const char *name);

/* Calls fn on every call expression in b, in statement order (calls in
 * arguments before the call). */
void cc_ir_block_calls(const cc_ir_block *b, void (*fn)(const cc_ir_expr *, void *), void *ctx);
/* Orders p's functions as the call graph reaches them, depth first from
 * the entry (funcs[0]): the order the printer shows, stable under a round
 * trip.  Returns 0 when out of memory. */
int cc_ir_program_order(cc_ir_program *p);

/* The function of p named name, or NULL. */
cc_ir_func *cc_ir_program_func(const cc_ir_program *p, const char *name);
/* The tensor parameter index of f named name, or -1. */
int cc_ir_func_param(const cc_ir_func *f, const char *name);

#endif
