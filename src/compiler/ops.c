/*
 * ops.c - the op table's rows (ops.h) and the facts each class fixes.
 *
 * Invariants: one row per cc_ir_op, indexed by it; every row has at most
 * CC_OP_MAX_SLOTS slots and no more required slots than slots (checked at
 * compile time).
 */
#include "compiler/ops.h"

#include <string.h>

#include "compiler/types.h"

#define CC_OP_NSLOTS_(...) (sizeof((const char *[]){__VA_ARGS__}) / sizeof(const char *))

#define CC_OP_CHECK_(n, s, cls, dt, where, entry, req, ...)                                                 \
    _Static_assert(CC_OP_NSLOTS_(__VA_ARGS__) <= CC_OP_MAX_SLOTS && (req) <= CC_OP_NSLOTS_(__VA_ARGS__),   \
                   "pl." s ": at most CC_OP_MAX_SLOTS slots, the required ones among them");
CC_IR_OP_LIST(CC_OP_CHECK_)
#undef CC_OP_CHECK_

static const cc_op_info cc_ops[CC_IR_OP_COUNT] = {
#define CC_OP_ROW_(n, s, cls, dt, where, entry, req, ...) \
    [CC_IR_##n] = {s, CC_OPC_##cls, CC_OPD_##dt, CC_OPW_##where, req, CC_OP_NSLOTS_(__VA_ARGS__), {__VA_ARGS__}},
    CC_IR_OP_LIST(CC_OP_ROW_)
#undef CC_OP_ROW_
};

/* What each class fixes: the operands a TOP reads, and whether its result
 * may be computed over an operand. */
static const struct { uint8_t operands, elementwise; } cc_op_classes[] = {
    [CC_OPC_MEMORY] = {0, 0}, [CC_OPC_BINARY] = {2, 1}, [CC_OPC_UNARY] = {1, 1},
    [CC_OPC_ROW_REDUCE] = {1, 0}, [CC_OPC_COL_REDUCE] = {1, 0},
    [CC_OPC_ROW_EXPAND] = {2, 0}, [CC_OPC_COL_EXPAND] = {2, 0}, [CC_OPC_EXPANDS] = {2, 0},
    [CC_OPC_CAST] = {1, 1}, [CC_OPC_MATMUL] = {2, 0},
    [CC_OPC_MATMUL_ACC] = {2, 0}, [CC_OPC_CONCAT] = {2, 0}, [CC_OPC_FILLPAD] = {1, 1},
    [CC_OPC_FULL] = {0, 0}, [CC_OPC_RESHAPE] = {1, 0}, [CC_OPC_TRANSPOSE] = {1, 0}, [CC_OPC_ELEMENT] = {0, 0},
    [CC_OPC_FILLPAD_EXPAND] = {1, 0}, [CC_OPC_SET_VALIDSHAPE] = {1, 0},
    [CC_OPC_ASSEMBLE] = {2, 0}, [CC_OPC_SLICE] = {1, 0}, [CC_OPC_BLOCK] = {0, 0}, [CC_OPC_TERNARY] = {3, 0},
    [CC_OPC_GENERATE] = {0, 0}, [CC_OPC_MATMUL_BIAS] = {2, 0}, [CC_OPC_REINTERPRET] = {1, 0}, [CC_OPC_PASS] = {0, 0},
    [CC_OPC_INDEXED] = {2, 0}, [CC_OPC_BROADCAST] = {2, 0}, [CC_OPC_DIST] = {0, 0}};

const cc_op_info *cc_ir_op_info(cc_ir_op op) { return &cc_ops[op]; }
const char *cc_ir_op_name(cc_ir_op op) { return (unsigned)op < CC_IR_OP_COUNT ? cc_ops[op].name : "?"; }
uint32_t cc_ir_op_nslots(cc_ir_op op) { return (unsigned)op < CC_IR_OP_COUNT ? cc_ops[op].nslots : 0; }
int cc_ir_op_is_tile(cc_ir_op op) { return cc_ir_op_info(op)->where != CC_OPW_ORCH; }
uint32_t cc_ir_op_operands(cc_ir_op op) { return cc_op_classes[cc_ir_op_info(op)->cls].operands; }
int cc_ir_op_elementwise(cc_ir_op op) { return cc_op_classes[cc_ir_op_info(op)->cls].elementwise; }

static int cc_op_in_namespace(cc_op_namespace ns, int op);

int cc_ir_op_tensor_level(const char *name)
{
    if (!strcmp(name, "full")) return 1;
    int srhs, op = cc_ir_op_lookup(name);
    if (op < 0) op = cc_ir_op_lookup_alias(name, &srhs);
    if (op < 0 || cc_ir_op_tile_level_only((cc_ir_op)op)) return 0;
    switch (cc_ir_op_info((cc_ir_op)op)->cls) {
    case CC_OPC_BINARY: case CC_OPC_UNARY: case CC_OPC_ROW_REDUCE: case CC_OPC_COL_REDUCE: case CC_OPC_ROW_EXPAND:
    case CC_OPC_COL_EXPAND: case CC_OPC_EXPANDS: case CC_OPC_CAST: case CC_OPC_MATMUL: case CC_OPC_MATMUL_ACC: case CC_OPC_TERNARY:
    case CC_OPC_BROADCAST: return 1;
    case CC_OPC_GENERATE: case CC_OPC_REINTERPRET: return 1; /* pl.arange, pl.random, pl.reinterpret_view */
    case CC_OPC_INDEXED: return cc_op_in_namespace(CC_OPNS_TENSOR, op); /* upstream's tensor-level ones: pl.sort32, pl.tensor.gather, ... */
    default: return 0;
    }
}

int cc_ir_op_lookup(const char *name)
{
    for (int op = 0; op < CC_IR_OP_COUNT; op++)
        if (!strcmp(cc_ops[op].name, name)) return op;
    return -1;
}

static int cc_op_in_namespace(cc_op_namespace ns, int op)
{
    const cc_op_info *row = cc_ir_op_info((cc_ir_op)op);
    int tile_only = (row->cls == CC_OPC_MEMORY && row->where == CC_OPW_KERNEL) || row->cls == CC_OPC_FULL || row->cls == CC_OPC_INDEXED;
    if (op == CC_IR_SORT32 || op == CC_IR_MRGSORT || op == CC_IR_SCATTER_UPDATE || op == CC_IR_PAGED_GATHER) tile_only = 0; /* upstream spells them at both levels */
    if (op == CC_IR_GATHER_DIM || op == CC_IR_SCATTER_DIM) return ns == CC_OPNS_TENSOR;
    if (op == CC_IR_WRITE || op == CC_IR_DUMP_TAG) return ns == CC_OPNS_TENSOR; /* pl.write writes a Tensor only */
    if (cc_ir_op_tile_level_only((cc_ir_op)op)) return ns == CC_OPNS_TILE;
    return ns == CC_OPNS_TILE ? cc_ir_op_is_tile((cc_ir_op)op) : !tile_only;
}

const char *cc_acc_phase_name(int mode)
{
    static const char *const names[CC_ACC_PHASES] = {"unspecified", "partial", "final"};
    return mode >= 0 && mode < CC_ACC_PHASES ? names[mode] : "?";
}

int cc_ir_op_is_matmul(cc_ir_op op)
{
    cc_op_class c = (cc_op_class)cc_ir_op_info(op)->cls;
    return c == CC_OPC_MATMUL || c == CC_OPC_MATMUL_ACC || c == CC_OPC_MATMUL_BIAS;
}

int cc_ir_op_tile_level_only(cc_ir_op op)
{
    switch (op) {
    case CC_IR_TRI: case CC_IR_MATMUL_BIAS: case CC_IR_BATCH_MATMUL: case CC_IR_GEMV: case CC_IR_GEMV_ACC: case CC_IR_GEMV_BIAS: return 1;
    default: return 0;
    }
}

static const struct { const char *ns, *name; uint8_t op, scalar_rhs; } cc_op_aliases[] = {
#define CC_OP_ALIAS_ROW_(ns, s, op, srhs) {ns, s, CC_IR_##op, srhs},
    CC_OP_ALIAS_LIST(CC_OP_ALIAS_ROW_)
#undef CC_OP_ALIAS_ROW_
};

int cc_ir_op_lookup_alias(const char *name, int *scalar_rhs)
{
    *scalar_rhs = 0;
    for (size_t k = 0; k < sizeof cc_op_aliases / sizeof cc_op_aliases[0]; k++)
        if (cc_op_aliases[k].ns && !strcmp(cc_op_aliases[k].ns, "pl") && !strcmp(cc_op_aliases[k].name, name))
            return *scalar_rhs = cc_op_aliases[k].scalar_rhs, cc_op_aliases[k].op;
    return -1;
}

uint8_t cc_ir_op_result_dtype(cc_ir_op op, uint8_t dt)
{
    switch (op) {
    case CC_IR_ROW_ARGMAX: case CC_IR_ROW_ARGMIN: case CC_IR_COL_ARGMAX: case CC_IR_COL_ARGMIN: return CC_DT_INT32;
    default: return dt;
    }
}

void cc_ir_op_ternary_slots(cc_ir_op op, int *a, int *b, int *c)
{
    *a = 0;
    *b = op == CC_IR_SEL ? 2 : op == CC_IR_SELS ? 3 : 1;
    *c = op == CC_IR_SEL || op == CC_IR_SELS ? 1 : 2;
}

int cc_ir_op_reads_c_tile(cc_ir_op op)
{
    return cc_ir_op_info(op)->cls == CC_OPC_TERNARY || op == CC_IR_SCATTER || op == CC_IR_SCATTER_DIM || op == CC_IR_SCATTER_UPDATE ||
           op == CC_IR_PAGED_GATHER;
}

void cc_ir_op_indexed_slots(cc_ir_op op, int *a, int *b, int *c)
{
    *a = 0, *b = 1, *c = -1;
    switch (op) {
    case CC_IR_SCATTER: *c = 2; break;
    case CC_IR_GATHER_DIM: *b = 2; break;
    case CC_IR_SCATTER_DIM: case CC_IR_SCATTER_UPDATE: *b = 3, *c = 2; break;
    case CC_IR_MRGSORT: *b = 6; break;
    case CC_IR_PAGED_GATHER: *c = 2; break;
    case CC_IR_GATHER_MASK: *b = -1; break; /* its one tile operand */
    default: break;
    }
}

int cc_ir_op_lookup_in(cc_op_namespace ns, const char *name, int *scalar_rhs)
{
    static const char *const ns_names[] = {[CC_OPNS_TILE] = "tile", [CC_OPNS_TENSOR] = "tensor"};
    const size_t nal = sizeof cc_op_aliases / sizeof cc_op_aliases[0];
    *scalar_rhs = 0;
    for (size_t k = 0; k < nal; k++)
        if (!strcmp(cc_op_aliases[k].name, name) &&
            (!cc_op_aliases[k].ns || !strcmp(cc_op_aliases[k].ns, "pl") || !strcmp(cc_op_aliases[k].ns, ns_names[ns]))) {
            *scalar_rhs = cc_op_aliases[k].scalar_rhs;
            return cc_op_aliases[k].op;
        }
    size_t nl = strlen(ns_names[ns]);
    for (int op = 0; op < CC_IR_OP_COUNT; op++) {
        const char *s = cc_ops[op].name;
        if (!strncmp(s, ns_names[ns], nl) && s[nl] == '.' && !strcmp(s + nl + 1, name)) return op;
    }
    int op = cc_ir_op_lookup(name);
    return op >= 0 && cc_op_in_namespace(ns, op) ? op : -1;
}
