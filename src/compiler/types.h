/*
 * types.h - the language's facts every layer above the runtime shares:
 * dtypes, the enums of pypto.language, the scalar operators, value types
 * and the pl op table (ops.h).  A leaf: it includes nothing of the compiler
 * but the op table, itself a leaf, so the lowered program (program.h), the
 * executor and the IR (ir.h) all read the same tables.
 *
 * Invariants: pypto.language's IntEnums are built from the enum lists here
 * (names.c, pto/language.h); dtype values equal the public pto_dtype values
 * (checked at compile time in compile.c).
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
    CC_OP_MIN, CC_OP_MAX, /* the builtins min(a, b), max(a, b) (IR only) */
    CC_OP_BITOR, CC_OP_BITXOR, CC_OP_BITAND, CC_OP_LSHIFT, CC_OP_RSHIFT, CC_OP_INVERT /* integer scalars: | ^ & << >> ~ */
} cc_op;

/* Python spelling of an operator ("//", "not", ...). */
const char *cc_op_text(cc_op op);

#define CC_MAX_RANK 4

/* ---- dtypes: X(NAME, element bytes, is float, pl.DataType value) ---------------------
 * The position is the cc_dtype (and pto_dtype, tile_dtype) value; the last
 * column is the member's value in pl.DataType, which is stable across versions
 * (INT64, INT16 and the unsigned ones were later dtypes with these values;
 * names.h lists the rest).  TASK_ID, scalar-only and not public, stays last. */
#define CC_DTYPE_LIST(X)  \
    X(FP32, 4, 1, 0)      \
    X(FP16, 2, 1, 1)      \
    X(BF16, 2, 1, 2)      \
    X(INT32, 4, 0, 3)     \
    X(INT8, 1, 0, 4)      \
    X(INDEX, 8, 0, 5)     \
    X(BOOL, 1, 0, 6)      \
    X(INT64, 8, 0, 10)    \
    X(INT16, 2, 0, 9)     \
    X(UINT8, 1, 0, 11)    \
    X(UINT16, 2, 0, 12)   \
    X(UINT32, 4, 0, 13)   \
    X(TASK_ID, 8, 0, 7)

typedef enum cc_dtype {
#define CC_DTYPE_ENUM_(n, size, fl, pl) CC_DT_##n,
    CC_DTYPE_LIST(CC_DTYPE_ENUM_)
#undef CC_DTYPE_ENUM_
    CC_DT_COUNT
} cc_dtype;

const char *cc_dtype_name(cc_dtype d);   /* "FP32" */
size_t cc_dtype_size(cc_dtype d);
int cc_dtype_is_float(cc_dtype d);
/* Does a tensor argument of dtype arg bind to a parameter of dtype param?
 * Equal dtypes, or a stand-in (pto/compile.h's PTO_DTYPE_STAND_IN_LIST: an
 * INT16 / INT32 tensor for a UINT16 / UINT32 parameter, the same bits). */
int cc_dtype_binds(cc_dtype arg, cc_dtype param);
/* INDEX and INT64: one 64-bit integer each, so a scalar of one is retyped
 * to the other where a name's dtype must match (an annotation, a rebinding). */
int cc_dtype_is_int64(cc_dtype d);
/* Can a tensor hold elements of d?  All but INDEX and TASK_ID (scalar-only). */
int cc_dtype_is_tensor(cc_dtype d);
/* The dtype named name ("FP32"), or -1. */
int cc_dtype_lookup(const char *name);

/* ---- enums of the language: X(member, value) as pl's IntEnums (names.c hands them to
 * the Python package); a value's first member is its name ------------------------------ */
#define CC_LEVEL_LIST(X)                                                                                 \
    X(AIV, 0) X(AIC, 1) X(CORE_GROUP, 2) X(CHIP_DIE, 3) X(L2CACHE, 3) X(CHIP, 4) X(PROCESSOR, 4) X(UMA, 4) \
    X(HOST, 5) X(NODE, 5) X(CLUSTER_0, 6) X(POD, 6) X(CLUSTER_1, 7) X(CLOS1, 7) X(CLUSTER_2, 8)           \
    X(CLOS2, 8) X(GLOBAL, 9) X(UNDEFINED, 255)
#define CC_SCOPE_MODE_LIST(X) X(AUTO, 0) X(MANUAL, 1)
#define CC_CACHE_POLICY_LIST(X) X(DEFAULT, 0) X(BYPASS, 1)
/* pl.FunctionType: X(C name, member, value) */
#define CC_FUNC_KIND_LIST(X)                                                                             \
    X(OPAQUE, Opaque, 0) X(ORCHESTRATION, Orchestration, 1) X(INCORE, InCore, 2) X(AIC, AIC, 3)          \
    X(AIV, AIV, 4) X(GROUP, Group, 5) X(SPMD, Spmd, 6) X(INLINE, Inline, 7) X(GRAPH, Graph, 8)
/* pl.MemorySpace (also pl.Mem) and pl.Layout: members only */
#define CC_MEMORY_SPACE_LIST(X) X(DDR, 0) X(Vec, 1) X(Mat, 2) X(Left, 3) X(Right, 4) X(Acc, 5) X(Bias, 6)
#define CC_LAYOUT_LIST(X) X(ND, 0)

/* A memory space (pl.Mem member), valued as pl.Mem. */
typedef enum cc_mem {
#define CC_MEM_ENUM_(n, v) CC_MEM_##n = v,
    CC_MEMORY_SPACE_LIST(CC_MEM_ENUM_)
#undef CC_MEM_ENUM_
} cc_mem;
const char *cc_mem_name(cc_mem m); /* "Mat" */

#define CC_LEVEL_ENUM_(n, v) CC_LEVEL_##n = v,
#define CC_SCOPE_MODE_ENUM_(n, v) CC_SCOPE_##n = v,
#define CC_CACHE_POLICY_ENUM_(n, v) CC_CACHE_##n = v,
#define CC_FUNC_KIND_ENUM_(n, m, v) CC_FUNC_##n = v,
typedef enum cc_level { CC_LEVEL_LIST(CC_LEVEL_ENUM_) } cc_level;
typedef enum cc_scope_mode { CC_SCOPE_MODE_LIST(CC_SCOPE_MODE_ENUM_) } cc_scope_mode;
typedef enum cc_cache_policy { CC_CACHE_POLICY_LIST(CC_CACHE_POLICY_ENUM_) CC_CACHE_UNSET = 255 } cc_cache_policy;
typedef enum cc_func_kind { CC_FUNC_KIND_LIST(CC_FUNC_KIND_ENUM_) } cc_func_kind;
#undef CC_LEVEL_ENUM_
#undef CC_SCOPE_MODE_ENUM_
#undef CC_CACHE_POLICY_ENUM_
#undef CC_FUNC_KIND_ENUM_

const char *cc_level_name(cc_level l);               /* "CORE_GROUP" */
const char *cc_cache_policy_name(cc_cache_policy c); /* "DEFAULT", "BYPASS" */
const char *cc_func_kind_name(cc_func_kind k);       /* "Orchestration" (pl.FunctionType member) */

typedef enum cc_dir { CC_DIR_NONE = 0, CC_DIR_IN = 1, CC_DIR_OUT = 2, CC_DIR_INOUT = 3 } cc_dir;
const char *cc_dir_name(cc_dir d); /* "In", "Out", "InOut" */

/* float -> int modes of pl.cast */
#define CC_CAST_MODE_LIST(X) X(ROUND, "round") X(RINT, "rint") X(FLOOR, "floor") X(CEIL, "ceil") X(TRUNC, "trunc") X(ODD, "odd")
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
    CC_T_TUPLE,  /* several results (a call returning several tensors, pl.submit) */
    CC_T_ARRAY   /* pl.array.create(n, pl.TASK_ID) (D-arr): rank 1, shape[0] = n slots, dtype TASK_ID */
} cc_type_kind;

typedef struct cc_type {
    uint8_t kind;  /* cc_type_kind */
    uint8_t dtype; /* cc_dtype */
    uint8_t rank;
    int64_t shape[CC_MAX_RANK]; /* TENSOR: a dynamic dimension (pl.dynamic, docs/dsl.md "Dynamic shapes")
                                 * is CC_DIM_DYN(symbol) < 0, its DynVar's name in dyn[d]; tiles are static */
    const char *dyn[CC_MAX_RANK]; /* TENSOR: the DynVar name of each dynamic dimension (NULL: static);
                                   * the symbol (shape[d]) decides equality, the name is for printing */
    uint8_t partial; /* TILE: its valid region may be smaller than its shape (clamp=,
                      * valid_shape=, or an op on such a tile); not part of equality */
    uint8_t mem;     /* TILE: its memory-space tag (cc_mem; docs/dsl.md, "Memory spaces");
                      * 0 (DDR, never a tile's space) reads as Vec, so a type built without
                      * a tag is in Vec; read it with cc_type_mem; not part of equality */
    uint8_t from_tensors; /* TILE: computed from Tensor operands only (an implicit load,
                           * pl.full, a kernel-local pl.create_tensor, or a pl op or operator
                           * whose tile operands all are): a tensor-level value (DSL-V2-SPEC
                           * §1.2: T-ew's broadcast, T-mm's rules; docs/dsl.md, "Tensor-level
                           * code"), a pl.tensor.<op> operand (§9); not part of equality */
    uint8_t window;  /* TENSOR: window memory (DISTRIBUTED-SPEC §1.3, §1.5): CC_WIN_NONE a plain
                      * tensor, CC_WIN_DT a pld.DistributedTensor (a view of a window buffer),
                      * CC_WIN_BUFFER a host's pld.alloc_window_buffer (shape and dtype as
                      * declared; the bytes form UINT8 [size]), CC_WIN_CTX pld.get_comm_ctx's
                      * handle (the DistributedTensor it names); part of equality */
} cc_type;

enum { CC_WIN_NONE, CC_WIN_DT, CC_WIN_BUFFER, CC_WIN_CTX };

/* Dynamic dimensions: symbol k (>= 0, one per pl.dynamic object of the program) as a shape entry. */
#define CC_DIM_DYN(k) (-1 - (int64_t)(k))
#define CC_DIM_IS_DYN(v) ((v) < 0)
#define CC_DIM_SYMBOL(v) (-1 - (v))
/* Symbols from CC_DIM_RUNTIME0 on are run-time extents: an orchestration pl.create_tensor or
 * pl.slice whose shape entry is a run-time scalar (one symbol per such entry of the text);
 * below it, DynVars. */
#define CC_DIM_RUNTIME0 ((int64_t)1 << 20)
#define CC_DIM_IS_RUNTIME(v) ((v) <= CC_DIM_DYN(CC_DIM_RUNTIME0))
/* Does t (a tensor) have a dynamic dimension? */
int cc_type_is_dynamic(const cc_type *t);

/* A tensor parameter's pl.TensorView(valid_shape=[...]): n entries (0: none
 * written), each a constant cap[d] (0 <= cap[d] <= the dimension) or, with
 * dyn[d] set, a DynVar (no cap: the argument's own valid extent).  A kernel
 * sees its argument's valid region cut to the caps (tile_vm.c vm_bind). */
typedef struct cc_valid_shape {
    uint8_t n;
    int64_t cap[CC_MAX_RANK];
    const char *dyn[CC_MAX_RANK];
} cc_valid_shape;

/* A tile's memory space (Vec when untagged). */
cc_mem cc_type_mem(const cc_type *t);

int cc_type_equal(const cc_type *a, const cc_type *b);
/* The DSL spelling: "pl.Tensor[[256, 128], pl.FP32]", "pl.Scalar[pl.INDEX]",
 * "pl.TaskId", "Tile[[64, 128], FP32]" ("Tile[[64, 128], FP32, Mat]" outside Vec).  Returns the length (cut at cap). */
size_t cc_type_format(const cc_type *t, char *buf, size_t cap);
/* A tensor's or tile's shape alone: "[64, 128]". */
size_t cc_shape_format(const cc_type *t, char *buf, size_t cap);

#endif
