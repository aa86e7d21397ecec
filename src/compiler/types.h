/*
 * types.h - the language's facts every layer above the runtime shares:
 * dtypes, the enums of pypto.language, the scalar operators, value types
 * and the pl op table (ops.h).  A leaf: it includes nothing of the compiler
 * but the op table, itself a leaf, so the lowered program (program.h), the
 * executor and the IR (ir.h) all read the same tables.
 *
 * Invariants: enum values equal pypto.language's IntEnum values and the
 * public pto_dtype values (checked at compile time in compile.c).
 */
#ifndef CC_TYPES_H
#define CC_TYPES_H

#include <stddef.h>
#include <stdint.h>

#include "compiler/ops.h"

/* ---- scalar operators (syntax tree and IR) ---------------------------------------------- */
typedef enum cc_op {
    CC_OP_ADD, CC_OP_SUB, CC_OP_MUL, CC_OP_DIV, CC_OP_FLOORDIV, CC_OP_MOD,
    CC_OP_NEG, CC_OP_POS, CC_OP_NOT,
    CC_OP_EQ, CC_OP_NE, CC_OP_LT, CC_OP_LE, CC_OP_GT, CC_OP_GE,
    CC_OP_AND, CC_OP_OR,
    CC_OP_MIN, CC_OP_MAX /* the builtins min(a, b), max(a, b) (IR only) */
} cc_op;

/* Python spelling of an operator ("//", "not", ...). */
const char *cc_op_text(cc_op op);

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

#endif
