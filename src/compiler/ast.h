/*
 * ast.h - the syntax tree of one DSL source file, as the parser builds it.
 *
 * It keeps what the user wrote, with a span on every node; names and
 * meanings (is `pl.load` an op, is `k` a kernel) are resolved later.  All
 * nodes live in the compile's arena and die with it.  Lists are arrays with
 * a count.
 *
 * A module holds what a script may hold around its kernels: the name bound
 * to pypto.language (`import pypto.language as pl`), module constants
 * (`N, TR, TC = 4, 64, 128`), and the decorated functions and classes.
 * Other module-level statements (test code, plain Python helpers) are
 * skipped: they are not kernel code.
 */
#ifndef CC_AST_H
#define CC_AST_H

#include <stdint.h>

#include "compiler/source.h"
#include "compiler/types.h"

typedef enum cc_expr_kind {
    CC_E_NAME, CC_E_INT, CC_E_FLOAT, CC_E_BOOL, CC_E_NONE, CC_E_STRING,
    CC_E_ATTR,      /* value.name */
    CC_E_CALL,      /* fn(args..., name=value...) */
    CC_E_SUBSCRIPT, /* value[index] (annotations: pl.Out[T], pl.Tensor[[...], dt]) */
    CC_E_BINARY,    /* + - * / // % */
    CC_E_UNARY,     /* - + not */
    CC_E_COMPARE,   /* == != < <= > >= (one operator) */
    CC_E_BOOLOP,    /* and / or */
    CC_E_LIST,
    CC_E_TUPLE,
    CC_E_SLICE      /* lo:hi[:step], only as a subscript's index or one of its items; NULL: omitted */
} cc_expr_kind;


/* The deepest expression tree the parser builds: every pass may recurse
 * over an expression, so its depth is bounded (Python's own parser stops
 * at a similar nesting). */
#define CC_MAX_EXPR_DEPTH 200

typedef struct cc_expr cc_expr;
typedef struct cc_keyword {
    const char *name;
    cc_span name_span;
    cc_expr *value;
} cc_keyword;

struct cc_expr {
    cc_expr_kind kind;
    cc_span span;
    uint32_t depth; /* levels of the tree below and at this node (a leaf: 1); at most CC_MAX_EXPR_DEPTH */
    union {
        const char *name;                                 /* NAME */
        int64_t i;                                        /* INT, BOOL */
        double f;                                         /* FLOAT */
        struct { const char *text; uint32_t len; } str;   /* STRING (decoded) */
        struct { cc_expr *value; const char *name; } attr;
        struct { cc_expr *fn; cc_expr **args; uint32_t nargs; cc_keyword *kws; uint32_t nkws; } call;
        struct { cc_expr *value, *index; } sub;
        struct { cc_op op; cc_expr *left, *right; } bin;  /* BINARY, COMPARE, BOOLOP */
        struct { cc_op op; cc_expr *operand; } un;
        struct { cc_expr **items; uint32_t n; } seq;      /* LIST, TUPLE */
        struct { cc_expr *lo, *hi, *step; int has_step; } slice; /* SLICE: has_step also for `lo:hi:` */
    } u;
};

typedef enum cc_stmt_kind {
    CC_S_EXPR, CC_S_ASSIGN, CC_S_AUGASSIGN, CC_S_FOR, CC_S_WHILE, CC_S_IF, CC_S_WITH,
    CC_S_RETURN, CC_S_PASS, CC_S_DEF, CC_S_CLASS
} cc_stmt_kind;

typedef struct cc_stmt cc_stmt;
typedef struct cc_block {
    cc_stmt **items;
    uint32_t n;
} cc_block;

typedef struct cc_param {
    const char *name;
    cc_span span;
    cc_expr *annotation; /* NULL: none */
    cc_expr *default_value; /* NULL: none */
} cc_param;

typedef struct cc_with_item {
    cc_expr *context;
    const char *as_name; /* NULL: none */
    cc_span as_span;
} cc_with_item;

struct cc_stmt {
    cc_stmt_kind kind;
    cc_span span;
    union {
        cc_expr *expr;                                                    /* EXPR */
        struct { cc_expr **targets; uint32_t ntargets; cc_expr *annotation; cc_expr *value; } assign;
        struct { cc_expr *target; cc_op op; cc_expr *value; } aug;
        /* target NULL: `for var in`; else the written target list (a tuple, or one parenthesized
         * tuple), var its leading name or NULL (DSL-V2-SPEC §6) */
        struct { const char *var; cc_span var_span; cc_expr *iter; cc_block body; cc_expr *target; } for_;
        struct { cc_expr *cond; cc_block body; } while_;
        struct { cc_expr *cond; cc_block then, orelse; } if_;             /* elif: orelse holds one IF */
        struct { cc_with_item *items; uint32_t nitems; cc_block body; } with;
        struct { cc_expr **values; uint32_t n; } ret;
        struct { const char *name; cc_span name_span; cc_expr **decorators; uint32_t ndecorators; cc_param *params;
                 uint32_t nparams; cc_expr *returns; cc_block body; } def;  /* DEF, CLASS (no params); span: from the first decorator */
    } u;
};

/* A module constant: NAME = a constant expression (literals, names of other
 * constants, arithmetic on those, tuples and lists of those), as written. */
typedef struct cc_constant {
    const char *name;
    cc_span span;
    cc_expr *value;
} cc_constant;

typedef struct cc_module {
    const char *pl_name;   /* the name bound to pypto.language ("pl"), NULL if none */
    const char *pld_name;  /* the name bound to pypto.language.distributed ("pld"), NULL if none */
    cc_constant *constants;
    uint32_t nconstants;
    cc_stmt **defs;        /* decorated DEF and CLASS statements, in file order */
    uint32_t ndefs;
} cc_module;

/* Visits each direct sub-expression of e in source order (a call's
 * function, its arguments, its keyword values; both operands; the items)
 * until visit returns nonzero, and returns that (0: every child visited). */
int cc_expr_each_child(const cc_expr *e, int (*visit)(const cc_expr *child, void *ctx), void *ctx);
/* Visits every expression statement s holds, in source order, those of
 * its nested blocks (a def's decorators, annotations, defaults and body
 * included); visit's result is not used. */
void cc_stmt_each_expr(const cc_stmt *s, int (*visit)(const cc_expr *e, void *ctx), void *ctx);

#endif
