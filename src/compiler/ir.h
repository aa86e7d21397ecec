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

#define CC_MAX_RANK 4

/* ---- dtypes: X(NAME, element bytes, is float) -------------------------------------- */
#define CC_DTYPE_LIST(X) \
    X(FP32, 4, 1)        \
    X(FP16, 2, 1)        \
    X(BF16, 2, 1)        \
    X(INT32, 4, 0)       \
    X(INT8, 1, 0)        \
    X(INDEX, 8, 0)       \
    X(BOOL, 1, 0)        \
    X(TASK_ID, 8, 0)

typedef enum cc_dtype {
#define CC_DTYPE_ENUM_(n, size, fl) CC_DT_##n,
    CC_DTYPE_LIST(CC_DTYPE_ENUM_)
#undef CC_DTYPE_ENUM_
    CC_DT_COUNT
} cc_dtype;

const char *cc_dtype_name(cc_dtype d);   /* "FP32" */
size_t cc_dtype_size(cc_dtype d);
int cc_dtype_is_float(cc_dtype d);
/* The dtype named name ("FP32"), or -1. */
int cc_dtype_lookup(const char *name);
/* Is name a pl dtype constant this version does not support ("INT16")? */
int cc_dtype_is_later(const char *name);

/* ---- enums of the language (values as pl's IntEnums) --------------------------------- */
typedef enum cc_level {
    CC_LEVEL_AIV = 0, CC_LEVEL_AIC = 1, CC_LEVEL_CORE_GROUP = 2, CC_LEVEL_CHIP_DIE = 3,
    CC_LEVEL_CHIP = 4, CC_LEVEL_HOST = 5, CC_LEVEL_CLUSTER_0 = 6, CC_LEVEL_CLUSTER_1 = 7,
    CC_LEVEL_CLUSTER_2 = 8, CC_LEVEL_GLOBAL = 9, CC_LEVEL_UNDEFINED = 255
} cc_level;
const char *cc_level_name(cc_level l); /* "CORE_GROUP" */

typedef enum cc_scope_mode { CC_SCOPE_AUTO = 0, CC_SCOPE_MANUAL = 1 } cc_scope_mode;
typedef enum cc_cache_policy { CC_CACHE_DEFAULT = 0, CC_CACHE_BYPASS = 1, CC_CACHE_UNSET = 255 } cc_cache_policy;
const char *cc_cache_policy_name(cc_cache_policy c); /* "DEFAULT", "BYPASS" */

typedef enum cc_func_kind {
    CC_FUNC_OPAQUE = 0, CC_FUNC_ORCHESTRATION = 1, CC_FUNC_INCORE = 2, CC_FUNC_INLINE = 7
} cc_func_kind;
const char *cc_func_kind_name(cc_func_kind k); /* "Orchestration" (pl.FunctionType member) */

typedef enum cc_dir { CC_DIR_NONE = 0, CC_DIR_IN = 1, CC_DIR_OUT = 2, CC_DIR_INOUT = 3 } cc_dir;
const char *cc_dir_name(cc_dir d); /* "In", "Out", "InOut" */

/* float -> int modes of pl.cast */
#define CC_CAST_MODE_LIST(X) X(ROUND, "round") X(RINT, "rint") X(FLOOR, "floor") X(CEIL, "ceil") X(TRUNC, "trunc")
typedef enum cc_cast_mode {
#define CC_CAST_MODE_ENUM_(n, s) CC_CAST_##n,
    CC_CAST_MODE_LIST(CC_CAST_MODE_ENUM_)
#undef CC_CAST_MODE_ENUM_
} cc_cast_mode;
const char *cc_cast_mode_name(cc_cast_mode m);

/* ---- types ------------------------------------------------------------------------------ */
typedef enum cc_type_kind {
    CC_T_VOID,   /* statements, calls without results */
    CC_T_SCALAR, /* dtype INDEX, FP32, BOOL, TASK_ID, or a tensor dtype */
    CC_T_TENSOR, /* rank, shape, dtype */
    CC_T_TILE,   /* rank, static shape, dtype; the valid region is a run-time value */
    CC_T_LIST,   /* a list or tuple literal of scalars (offsets, shapes, deps) */
    CC_T_STR,
    CC_T_TUPLE   /* several results (a call returning several tensors, pl.submit) */
} cc_type_kind;

typedef struct cc_type {
    uint8_t kind;  /* cc_type_kind */
    uint8_t dtype; /* cc_dtype */
    uint8_t rank;
    int64_t shape[CC_MAX_RANK];
    uint8_t partial; /* TILE: its valid region may be smaller than its shape (clamp=,
                      * valid_shape=, or an op on such a tile); not part of equality */
} cc_type;

int cc_type_equal(const cc_type *a, const cc_type *b);
/* The DSL spelling: "pl.Tensor[[256, 128], pl.FP32]", "pl.Scalar[pl.INDEX]",
 * "pl.TaskId", "Tile[[64, 128], FP32]".  Returns the length (cut at cap). */
size_t cc_type_format(const cc_type *t, char *buf, size_t cap);
/* A tensor's or tile's shape alone: "[64, 128]". */
size_t cc_shape_format(const cc_type *t, char *buf, size_t cap);

/* ---- expressions ------------------------------------------------------------------------- */
typedef enum cc_ir_expr_kind {
    CC_X_INT, CC_X_FLOAT, CC_X_BOOL, CC_X_STR,
    CC_X_VAR,     /* a local, a parameter, a loop variable */
    CC_X_BINARY,  /* arithmetic (ADD..MOD), MIN, MAX, compare, and/or */
    CC_X_UNARY,   /* NEG, NOT */
    CC_X_LIST,    /* [a, b] */
    CC_X_OP,      /* a pl op (CC_IR_OP_LIST) */
    CC_X_CALL     /* a kernel, opaque, orchestration or (pre-inlining) inline call; pl.submit */
} cc_ir_expr_kind;

/* pl ops: X(NAME, "pl spelling", number of argument slots).  Slots:
 *   LOAD    tensor, offsets, shapes, valid_shape?   attrs: cache, clamp, implicit
 *   STORE   tile, offsets, tensor, shapes?
 *   binary  lhs, rhs (tile, tile or scalar)
 *   unary   x
 *   ROW_*   tile, tmp_tile?
 *   CAST    x                                      attrs: dtype, mode
 *   MATMUL  lhs, rhs                               attrs: dtype (out_dtype as written, or 255)
 *   CREATE_TENSOR  shape, init_value?              attrs: dtype */
#define CC_IR_OP_LIST(X)                     \
    X(LOAD, "load", 4)                       \
    X(STORE, "store", 4)                     \
    X(ADD, "add", 2)                         \
    X(SUB, "sub", 2)                         \
    X(MUL, "mul", 2)                         \
    X(DIV, "div", 2)                         \
    X(MAXIMUM, "maximum", 2)                 \
    X(MINIMUM, "minimum", 2)                 \
    X(EXP, "exp", 1)                         \
    X(NEG, "neg", 1)                         \
    X(SQRT, "sqrt", 1)                       \
    X(ABS, "abs", 1)                         \
    X(RELU, "relu", 1)                       \
    X(ROW_SUM, "row_sum", 2)                 \
    X(ROW_MAX, "row_max", 2)                 \
    X(CAST, "cast", 1)                       \
    X(MATMUL, "matmul", 2)                   \
    X(CREATE_TENSOR, "create_tensor", 2)

typedef enum cc_ir_op {
#define CC_IR_OP_ENUM_(n, s, k) CC_IR_##n,
    CC_IR_OP_LIST(CC_IR_OP_ENUM_)
#undef CC_IR_OP_ENUM_
    CC_IR_OP_COUNT
} cc_ir_op;

const char *cc_ir_op_name(cc_ir_op op); /* "load" */
uint32_t cc_ir_op_nslots(cc_ir_op op);
/* Is op a tile op (kernel code only)?  All but CREATE_TENSOR. */
int cc_ir_op_is_tile(cc_ir_op op);

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
        struct { cc_ir_expr **items; uint32_t n; } list;
        struct {
            uint8_t op;       /* cc_ir_op */
            uint8_t dtype;    /* CAST target, CREATE_TENSOR dtype, MATMUL out_dtype (255: none) */
            uint8_t cache;    /* LOAD: cc_cache_policy (UNSET until stage 6 unless written) */
            uint8_t clamp;    /* LOAD */
            uint8_t implicit; /* LOAD made for a tensor used as a tile */
            uint8_t mode;     /* CAST: cc_cast_mode */
            cc_ir_expr **args; /* cc_ir_op_nslots(op) slots */
        } op;
        struct {
            cc_ir_func *callee;
            cc_ir_expr **args;   /* one per callee parameter, in parameter order */
            uint32_t nargs;
            cc_ir_expr **deps;   /* pl.submit deps= / pl.at deps=: TaskId expressions */
            uint32_t ndeps;
            uint8_t submit;      /* pl.submit (or a pl.at with deps=/as): results end with the TaskId */
            cc_ir_box *boxes;    /* per argument, after stage 3 (rank 0 for scalars) */
        } call;
    } u;
};

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

struct cc_ir_stmt {
    uint8_t kind; /* cc_ir_stmt_kind */
    cc_span span;
    union {
        struct { cc_ir_target *targets; uint32_t ntargets; cc_ir_expr *value; } assign;
        cc_ir_expr *expr;
        struct { const char *var; cc_span var_span; cc_ir_expr *start, *stop, *step; cc_ir_block body; } for_;
        struct { cc_ir_expr *cond; cc_ir_block body; } while_;
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
            cc_ir_cache_decl *decls;
            uint32_t ndecls;
            cc_ir_block body;
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
} cc_ir_param;

struct cc_ir_func {
    const char *name;
    cc_span span;          /* the def line (or the pl.at an outlined kernel came from) */
    uint8_t kind;          /* cc_func_kind */
    uint8_t auto_scope;
    uint8_t level;         /* InCore: CORE_GROUP */
    uint8_t outlined;      /* made by OutlineIncoreScopes */
    uint8_t entry;         /* the program's orchestration entry */
    cc_ir_param *params;
    uint32_t nparams;
    cc_type *results;      /* declared or inferred return types */
    uint32_t nresults;
    cc_ir_block body;
    cc_ir_cache_decl *decls; /* outlined from a pl.at with pl.set_cache_policy markers */
    uint32_t ndecls;
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
/* Folds arithmetic of constants: integer + - * // % min max and unary -
 * (dropping neutral terms, x*1, x+0: the shape footprint expressions print
 * in), and + - * / and unary - with a float operand (an FP32 constant).
 * The one folding every stage uses, so a program prints the same whether
 * a constant was written (stage 0) or substituted (inlining). */
cc_ir_expr *cc_ir_fold(base_arena *a, cc_ir_expr *e);
/* Is e an integer constant (then *v holds it)? */
int cc_ir_const_int(const cc_ir_expr *e, int64_t *v);
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
