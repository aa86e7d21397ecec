/*
 * names.h - every pl name the compiler knows, once: pl.<name> with its
 * status (supported; later: "<construct> is not supported in this
 * version"; hardware-internal: "<construct> is Ascend-specific: <reason>;
 * it has no meaning on the CPU backend") and its kind.  The table is
 * CC_PL_NAME_LIST below plus the supported ops (ops.h) and the dtypes
 * (types.h's CC_DTYPE_LIST and CC_DTYPE_LATER_LIST here), so no name is
 * written twice.  Also the keywords of pl forms that are recognised but not
 * supported, and the enums of the language as (member, value) tables.
 * pto/language.h hands all of it to bindings (the Python package).
 *
 * Invariants: a name appears once across the lists (test_pl_names.c); a
 * use of pl.<name> (a value, a call, a `for` iterable, a `with` item) is
 * reported by its row's status, nowhere else.
 */
#ifndef CC_NAMES_H
#define CC_NAMES_H

#include <stdint.h>

#include "pto/language.h"

typedef enum cc_pl_status { CC_PL_SUPPORTED, CC_PL_LATER, CC_PL_HARDWARE } cc_pl_status;

/* What a name is.  LOOP: iterated by a `for` (also a `with` item); SCOPE:
 * a `with` item; the others are what they say. */
#define CC_PL_KIND_LIST(X)                                                                              \
    X(OP, "op") X(LOOP, "loop") X(SCOPE, "scope") X(STATEMENT, "statement") X(BUILTIN, "builtin")      \
    X(ANNOTATION, "annotation") X(ENUM, "enum") X(CONSTANT, "constant") X(DECORATOR, "decorator")       \
    X(NAMESPACE, "namespace") X(DTYPE, "dtype") X(CLASS, "class")
typedef enum cc_pl_kind {
#define CC_PL_KIND_ENUM_(n, s) CC_PLK_##n,
    CC_PL_KIND_LIST(CC_PL_KIND_ENUM_)
#undef CC_PL_KIND_ENUM_
} cc_pl_kind;

/* Why a hardware-internal construct means nothing here (its <reason>). */
#define CC_PL_REASON_LIST(X)                                                                            \
    X(NONE, "")                                                                                         \
    X(LANES, "it places work on the two vector lanes of one core")                                      \
    X(MX, "it uses the A5 micro-scaling formats and their fixed layouts")                               \
    X(LAYOUT, "it selects a hardware fractal layout")                                                   \
    X(KIND, "it selects a compiler-internal function kind or core type")                                 \
    X(ADDRESS, "it fixes an on-chip address")                                                           \
    X(RING, "it is a ring primitive between the cube and vector units of one core")                     \
    X(BARRIER, "it is a device barrier or cache-maintenance instruction")                               \
    X(EXTERN, "it links a hand-written Ascend C++ kernel")
typedef enum cc_pl_reason {
#define CC_PL_REASON_ENUM_(n, s) CC_PLR_##n,
    CC_PL_REASON_LIST(CC_PL_REASON_ENUM_)
#undef CC_PL_REASON_ENUM_
} cc_pl_reason;

/* pl names other than the supported ops and the dtypes: X(name, status, kind, reason). */
#define CC_PL_NAME_LIST(X)                                                                              \
    X(range, SUPPORTED, LOOP, NONE) X(at, SUPPORTED, SCOPE, NONE) X(scope, SUPPORTED, SCOPE, NONE)        \
    X(manual_scope, SUPPORTED, SCOPE, NONE) X(submit, SUPPORTED, STATEMENT, NONE)                        \
    X(set_cache_policy, SUPPORTED, STATEMENT, NONE) X(jit, SUPPORTED, DECORATOR, NONE)                   \
    X(program, SUPPORTED, DECORATOR, NONE) X(function, SUPPORTED, DECORATOR, NONE)                       \
    X(tensor, SUPPORTED, NAMESPACE, NONE) X(Tensor, SUPPORTED, ANNOTATION, NONE)                         \
    X(Out, SUPPORTED, ANNOTATION, NONE) X(InOut, SUPPORTED, ANNOTATION, NONE)                            \
    X(Scalar, SUPPORTED, ANNOTATION, NONE) X(TaskId, SUPPORTED, ANNOTATION, NONE)                        \
    X(DataType, SUPPORTED, ENUM, NONE) X(Level, SUPPORTED, ENUM, NONE) X(ScopeMode, SUPPORTED, ENUM, NONE) \
    X(CachePolicy, SUPPORTED, ENUM, NONE) X(FunctionType, SUPPORTED, ENUM, NONE)                         \
    X(Mem, SUPPORTED, ENUM, NONE) X(MemorySpace, SUPPORTED, ENUM, NONE) X(Layout, SUPPORTED, ENUM, NONE)  \
    X(TensorLayout, SUPPORTED, ENUM, NONE) /* pl.TensorLayout is pl.Layout */                           \
    X(ND, SUPPORTED, CONSTANT, NONE) X(PadValue, SUPPORTED, ENUM, NONE) X(min, SUPPORTED, BUILTIN, NONE)   \
    X(max, SUPPORTED, BUILTIN, NONE)                                                                     \
    /* loops, scopes, statements */                                                                      \
    X(spmd, SUPPORTED, LOOP, NONE) X(spmd_submit, SUPPORTED, STATEMENT, NONE) X(parallel, SUPPORTED, LOOP, NONE) \
    X(unroll, SUPPORTED, LOOP, NONE) X(pipeline, SUPPORTED, LOOP, NONE) X(while_, SUPPORTED, LOOP, NONE)  \
    X(cluster, SUPPORTED, SCOPE, NONE) X(cond, SUPPORTED, STATEMENT, NONE) X(yield_, SUPPORTED, STATEMENT, NONE) \
    X(func_attr, LATER, STATEMENT, NONE) X(split_aiv, HARDWARE, SCOPE, LANES)                            \
    X(aiv_shard, HARDWARE, SCOPE, LANES) X(aic_gather, HARDWARE, SCOPE, LANES)                           \
    /* ops */                                                                                            \
    X(expand, LATER, OP, NONE) X(sort, LATER, OP, NONE)                                                  \
    X(gather_row, SUPPORTED, OP, NONE)                                     \
    X(mscatter, SUPPORTED, OP, NONE)                                                                     \
    X(atomic_add, LATER, OP, NONE) X(matmul_mx, HARDWARE, OP, MX)                                        \
    X(matmul_mx_acc, HARDWARE, OP, MX) X(matmul_mx_bias, HARDWARE, OP, MX)                               \
    X(create_l1, SUPPORTED, OP, NONE)   \
    /* the cube/vector ring primitives, also reached as pl.<name> (upstream's catalog) */                  \
    X(tpush_to_aiv, HARDWARE, OP, RING) X(tpush_to_aic, HARDWARE, OP, RING)                              \
    X(tpop_from_aiv, HARDWARE, OP, RING) X(tpop_from_aic, HARDWARE, OP, RING)                            \
    X(tfree_to_aiv, HARDWARE, OP, RING) X(tfree_to_aic, HARDWARE, OP, RING)                              \
    X(aic_initialize_pipe, HARDWARE, OP, RING) X(aiv_initialize_pipe, HARDWARE, OP, RING)                \
    X(reserve_buffer, HARDWARE, OP, RING) X(import_peer_buffer, HARDWARE, OP, RING)                      \
    /* everything else */                                                                                \
    X(array, LATER, BUILTIN, NONE) X(no_dep, SUPPORTED, BUILTIN, NONE) X(dynamic, SUPPORTED, BUILTIN, NONE)       \
    X(TensorView, LATER, ANNOTATION, NONE) X(Tile, SUPPORTED, ANNOTATION, NONE) X(MemRef, SUPPORTED, CLASS, NONE) X(tile, SUPPORTED, NAMESPACE, NONE) \
    X(get_subblock_idx, SUPPORTED, BUILTIN, NONE) X(dim, LATER, BUILTIN, NONE)                           \
    X(distributed, LATER, NAMESPACE, NONE) X(inline, LATER, DECORATOR, NONE)                             \
    X(DistributedConfig, LATER, CLASS, NONE) X(DN, HARDWARE, CONSTANT, LAYOUT)                           \
    X(NZ, HARDWARE, CONSTANT, LAYOUT) X(MX_A_ZZ, HARDWARE, CONSTANT, MX) X(MX_B_NN, HARDWARE, CONSTANT, MX) \
    X(system, SUPPORTED, NAMESPACE, NONE) X(AUTO, HARDWARE, CONSTANT, RING)                                 \
    X(gemv_mx, HARDWARE, OP, MX)                                                                         \
    X(gemv_mx_acc, HARDWARE, OP, MX) X(gemv_mx_bias, HARDWARE, OP, MX) X(TileView, SUPPORTED, ANNOTATION, NONE) \
    X(SplitMode, SUPPORTED, ENUM, NONE) X(split, SUPPORTED, BUILTIN, NONE) X(cross_core_slot, SUPPORTED, BUILTIN, NONE) \
    X(full, SUPPORTED, OP, NONE) X(AtomicType, SUPPORTED, ENUM, NONE) X(const, SUPPORTED, BUILTIN, NONE) \
    X(Role, SUPPORTED, ENUM, NONE)

/* Hardware-internal members of pl namespaces and enums (pl.<parent>.<member>, wherever
 * written: a value, a call, an enum argument): X(parent, member, reason). */
#define CC_PL_MEMBER_LIST(X)                                                                            \
    X(system, tpush_to_aiv, RING) X(system, tpush_to_aic, RING) X(system, tpop_from_aiv, RING)          \
    X(system, tpop_from_aic, RING) X(system, tfree_to_aiv, RING) X(system, tfree_to_aic, RING)          \
    X(system, aic_initialize_pipe, RING) X(system, aiv_initialize_pipe, RING)                          \
    X(system, reserve_buffer, RING) X(system, import_peer_buffer, RING) X(system, syncall, BARRIER)     \
    X(system, cacheinvalid, BARRIER) X(system, fence, BARRIER) X(system, available_cluster_count, BARRIER) \
    X(system, available_aiv_count, BARRIER) X(Mem, LeftScale, MX) X(Mem, RightScale, MX)                \
    X(MemorySpace, LeftScale, MX) X(MemorySpace, RightScale, MX) X(Layout, NZ, LAYOUT) X(Layout, DN, LAYOUT) X(TensorLayout, NZ, LAYOUT) X(TensorLayout, DN, LAYOUT) \
    X(FunctionType, AIC, KIND) X(FunctionType, AIV, KIND) X(FunctionType, Group, KIND)                  \
    X(FunctionType, Spmd, KIND) X(Level, AIC, KIND) X(Level, AIV, KIND) X(jit, extern, EXTERN)

/* pl dtypes this version does not support: X(NAME, pl.DataType value, status, reason)
 * (the supported ones are CC_DTYPE_LIST, with their values). */
#define CC_DTYPE_LATER_LIST(X)                                                                          \
    X(INT4, 8, HARDWARE, MX) X(UINT64, 14, LATER, NONE)                                                 \
    X(FP4, 15, HARDWARE, MX) X(FP8E4M3FN, 16, HARDWARE, MX) X(FP8E5M2, 17, HARDWARE, MX)                \
    X(HF4, 18, HARDWARE, MX) X(HF8, 19, HARDWARE, MX) X(UINT4, 20, LATER, NONE) X(FP8, 21, HARDWARE, MX)  \
    X(FP64, 22, LATER, NONE)

/* Keywords of pl forms that are recognised but not supported: X(form, keyword, status, reason).
 * Later: "pl.<form>(<keyword>=...) is not supported in this version"; hardware: "<keyword>= ...". */
#define CC_PL_KEYWORD_LIST(X)                                                                           \
    X(at, role, HARDWARE, KIND)                                                                         \
    X(at, dumps, LATER, NONE) X(at, windowize, LATER, NONE)                                             \
    X(move, blayout, HARDWARE, LAYOUT) X(move, slayout, HARDWARE, LAYOUT)                                \
    X(matmul, c_matrix_nz, HARDWARE, LAYOUT) X(function, role, HARDWARE, KIND)                           \
    X(function, external_source, HARDWARE, EXTERN) X(MemRef, addr, HARDWARE, ADDRESS)                    \
    X(TileView, blayout, HARDWARE, LAYOUT) X(TileView, slayout, HARDWARE, LAYOUT)                        \
    X(spmd, predicate, LATER, NONE) X(spmd, allow_early_resolve, LATER, NONE)                            \
    X(spmd_submit, predicate, LATER, NONE) X(spmd_submit, allow_early_resolve, LATER, NONE)

/* pl.PadValue (pl.fillpad's pad_value=): X(member, value); the values are tile_pad's. */
#define CC_PAD_VALUE_LIST(X) X(null, 0) X(zero, 1) X(max, 2) X(min, 3)
/* pl.gather_mask's pattern (also pl.tile.MaskPattern): read right to left, bit k selects position k of each group */
#define CC_MASK_PATTERN_LIST(X) X(P0101, 1) X(P1010, 2) X(P0001, 3) X(P0010, 4) X(P0100, 5) X(P1000, 6) X(P1111, 7)
/* Pattern p's column stride and phase (the tile layer's tile_mask_pattern holds the same fact). */
static inline void cc_mask_pattern_step(int p, int64_t *stride, int64_t *phase)
{
    *stride = p <= 2 ? 2 : p <= 6 ? 4 : 1;
    *phase = p <= 2 ? p - 1 : p <= 6 ? p - 3 : 0;
}
/* "zero": a pl.PadValue member's name. */
const char *cc_pad_value_name(int v);

/* pl.AtomicType (atomic= of pl.assemble and pl.store into a Tensor in kernel code:
 * None_ overwrites, Add adds into the current contents): X(member, value). */
#define CC_ATOMIC_TYPE_LIST(X) X(None_, 0) X(Add, 1)
/* "Add": a pl.AtomicType member's name. */
const char *cc_atomic_type_name(int v);
const char *cc_mask_pattern_name(int v); /* "P0101" */
const char *cc_cmp_mode_name(int v);     /* pl.gather_compare's cmp_mode 0..5: "eq", "ne", "lt", "le", "gt", "ge" */

/* The enums of the distributed surface (DISTRIBUTED-SPEC §1.1; values compat): pld.NotifyOp,
 * pld.WaitCmp, pld.ReduceOp (pld.AtomicType is pl.AtomicType), and pl.Role (@pl.function's role=:
 * only Orchestrator, on a level=pl.Level.HOST function, is supported). */
#define CC_NOTIFY_OP_LIST(X) X(AtomicAdd, 0) X(Set, 1)
#define CC_WAIT_CMP_LIST(X) X(Eq, 0) X(Ge, 1)
#define CC_REDUCE_OP_LIST(X) X(Sum, 0) X(Max, 1) X(Min, 2) X(Prod, 3)
#define CC_ROLE_LIST(X) X(Orchestrator, 0) X(SubWorker, 1)
/* "AtomicAdd", "Ge", "Sum": a member's name (fallback: the first member). */
const char *cc_notify_op_name(int v);
const char *cc_wait_cmp_name(int v);
const char *cc_reduce_op_name(int v);

/* The names of pypto.language.distributed (DISTRIBUTED-SPEC §1.1), once: X(path, op, spelling,
 * status, kind); op the CC_IR_<op> a call of pld.<path> is (NONE: not an op), spelling the op
 * node's mode for the spellings that differ (pld.tensor.remote_store 1, pld.remote_store 2:
 * by its operand's kind).  tc_pld.c resolves pld names with it; pto/language.h hands it out. */
#define CC_PLD_NAME_LIST(X)                                                                                          \
    X("world_size", WORLD_SIZE, 0, SUPPORTED, OP) X("system.world_size", WORLD_SIZE, 0, SUPPORTED, OP)                \
    X("alloc_window_buffer", ALLOC_WINDOW, 0, SUPPORTED, OP) X("tensor.alloc_window_buffer", ALLOC_WINDOW, 0, SUPPORTED, OP) \
    X("window", WINDOW, 0, SUPPORTED, OP) X("tensor.window", WINDOW, 0, SUPPORTED, OP)                                  \
    X("get_comm_ctx", GET_COMM_CTX, 0, SUPPORTED, OP) X("system.get_comm_ctx", GET_COMM_CTX, 0, SUPPORTED, OP)          \
    X("rank", RANK, 0, SUPPORTED, OP) X("system.rank", RANK, 0, SUPPORTED, OP) X("nranks", NRANKS, 0, SUPPORTED, OP)   \
    X("system.nranks", NRANKS, 0, SUPPORTED, OP) X("system.notify", NOTIFY, 0, SUPPORTED, OP)                          \
    X("system.wait", WAIT, 0, SUPPORTED, OP) X("tile.remote_load", REMOTE_LOAD, 0, SUPPORTED, OP)                       \
    X("remote_load", REMOTE_LOAD, 0, SUPPORTED, OP)                                                                   \
    X("tile.remote_store", REMOTE_STORE, 0, SUPPORTED, OP) X("tensor.remote_store", REMOTE_STORE, 1, SUPPORTED, OP)     \
    X("remote_store", REMOTE_STORE, 2, SUPPORTED, OP) X("tensor.put", PUT, 0, SUPPORTED, OP)                            \
    X("tensor.get", GET, 0, SUPPORTED, OP) X("tensor.barrier", BARRIER, 0, SUPPORTED, OP)                               \
    X("tensor.allreduce", ALLREDUCE, 0, SUPPORTED, OP) X("tensor.broadcast", BROADCAST, 0, SUPPORTED, OP)               \
    X("tensor.allgather", ALLGATHER, 0, SUPPORTED, OP) X("tensor.reduce_scatter", REDUCE_SCATTER, 0, SUPPORTED, OP)     \
    X("tensor.all_to_all", ALL_TO_ALL, 0, SUPPORTED, OP) X("system.defer_wait", NONE, 0, LATER, OP)                     \
    X("tensor.all_to_all_v", NONE, 0, LATER, OP) X("DistributedTensor", NONE, 0, SUPPORTED, ANNOTATION)                 \
    X("NotifyOp", NONE, 0, SUPPORTED, ENUM) X("WaitCmp", NONE, 0, SUPPORTED, ENUM) X("ReduceOp", NONE, 0, SUPPORTED, ENUM) \
    X("AtomicType", NONE, 0, SUPPORTED, ENUM) X("system", NONE, 0, SUPPORTED, NAMESPACE)                                \
    X("tensor", NONE, 0, SUPPORTED, NAMESPACE) X("tile", NONE, 0, SUPPORTED, NAMESPACE)

/* pl.SplitMode (pl.split's mode, a hint: docs/dsl.md, "Hints"): X(member, value). */
#define CC_SPLIT_MODE_LIST(X) X(NONE, 0) X(UP_DOWN, 1) X(LEFT_RIGHT, 2)
/* "UP_DOWN": a pl.SplitMode member's name. */
const char *cc_split_mode_name(int v);

typedef struct cc_pl_name {
    const char *name;
    uint8_t status; /* cc_pl_status */
    uint8_t kind;   /* cc_pl_kind */
    uint8_t reason; /* cc_pl_reason (hardware-internal names) */
} cc_pl_name;

typedef struct cc_pl_keyword {
    const char *form, *name;
    uint8_t status; /* cc_pl_status: LATER or HARDWARE */
    uint8_t reason; /* cc_pl_reason */
} cc_pl_keyword;

/* pl.<name>'s row, or NULL when name is not a pl name. */
const cc_pl_name *cc_pl_name_find(const char *name);
/* The reason of hardware-internal member pl.<parent>.<member> (CC_PL_MEMBER_LIST), or CC_PLR_NONE. */
cc_pl_reason cc_pl_member_reason(const char *parent, const char *member);
/* The row of keyword kw of pl.<form> (CC_PL_KEYWORD_LIST), or NULL. */
const cc_pl_keyword *cc_pl_keyword_find(const char *form, const char *kw);
const char *cc_pl_reason_text(cc_pl_reason r);
/* The value of enum_name's member (enum_name a pl enum, "Mem" included),
 * or -1. */
int cc_pl_enum_value(const char *enum_name, const char *member);

#endif
