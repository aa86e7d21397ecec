/*
 * types.h - the language's facts every layer above the runtime shares:
 * dtypes, the enums of pypto.language, the scalar operators, value types
 * and the pl op list.  A leaf: it includes nothing of the compiler, so the
 * lowered program (program.h), the executor and the IR (ir.h) all read the
 * same tables.
 *
 * Invariants: enum values equal pypto.language's IntEnum values and the
 * public pto_dtype values (checked at compile time in compile.c).
 */
#ifndef CC_TYPES_H
#define CC_TYPES_H

#include <stddef.h>
#include <stdint.h>

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

/* ---- pl ops ------------------------------------------------------------------------------ */
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

#endif
