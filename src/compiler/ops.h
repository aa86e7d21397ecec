/*
 * ops.h - the pl op table: one row per op with everything the layers above
 * the tile kernels know about it.  The type checker (tc_ops.c), lowering
 * (lower_tile.c), the printer (printer.c) and the tile VM (exec/tile_vm.c)
 * read an op's row (its class, dtype rule, place, slots, tile entry); they
 * compare op codes only for an op's own attributes (LOAD's cache=, CAST's
 * mode).  A leaf: types.h includes it, it includes nothing.
 *
 * Invariants: the rows' order is the cc_ir_op values and nothing else
 * depends on it; an op's IR node has one argument slot per slot name, the
 * required (positional) ones first, the optional ones keyword-only and
 * NULL when absent.
 */
#ifndef CC_OPS_H
#define CC_OPS_H

#include <stdint.h>

/* What an op is; the class fixes how it is checked, lowered and run.
 * (Shape ops and element access come later.) */
typedef enum cc_op_class {
    CC_OPC_MEMORY,     /* load, store, create_tensor, move, create_tile: each with its own rules */
    CC_OPC_BINARY,     /* element-wise lhs, rhs: a tile of equal shape and dtype, or a scalar on the right */
    CC_OPC_UNARY,      /* element-wise x; an optional slot is a hint: a boolean literal, no effect */
    CC_OPC_ROW_REDUCE, /* a rank-2 [R, C] tile -> [R, 1]; the optional slot is a scratch tile (unused) */
    CC_OPC_COL_REDUCE, /* a rank-2 [R, C] tile -> [1, C] */
    CC_OPC_ROW_EXPAND, /* tile [R, C] <op> row_vec [R, 1] broadcast along each row -> [R, C] */
    CC_OPC_COL_EXPAND, /* tile [R, C] <op> col_vec [1, C] broadcast down each column -> [R, C] */
    CC_OPC_EXPANDS,    /* a scalar broadcast to a target tile's shape, dtype and valid region */
    CC_OPC_CAST,       /* x to a dtype (attrs: dtype, mode) */
    CC_OPC_MATMUL,     /* lhs [M, K] @ rhs [K, N] */
    /* the ops with their own operand layout */
    CC_OPC_MATMUL_ACC, /* acc [M, N] + lhs [M, K] @ rhs [K, N]; init_cond true: the product alone */
    CC_OPC_CONCAT,     /* src0 [R, C0], src1 [R, C1] -> [R, C0 + C1], fully valid */
    CC_OPC_FILLPAD,    /* x -> x fully valid, the pad value outside x's valid region (attrs: mode = the pl.PadValue) */
    CC_OPC_FULL,       /* a constant tile of a shape and dtype, fully valid */
    CC_OPC_RESHAPE,    /* x -> the same elements row-major in a constant shape of equal count */
    CC_OPC_TRANSPOSE,  /* x with two axes swapped, the valid region likewise */
    CC_OPC_ELEMENT,    /* one element of a tile or kernel tensor: read into a scalar, or a tensor's written */
    CC_OPC_FILLPAD_EXPAND, /* x -> a constant shape >= x's: x's valid region at the origin, the pad value elsewhere, fully valid (attrs: mode) */
    CC_OPC_SET_VALIDSHAPE, /* a rank-2 tile with a new valid region [rows, cols] (scalars, run-time allowed) */
    CC_OPC_ASSEMBLE,   /* target with the whole of source written at offset (TOP a=target, b=source; u.mem.off) */
    CC_OPC_SLICE,      /* a copy of x's window at offset (TOP a=x; u.mem.off, u.mem.ext the valid_shape, u.mem.shape) */
    CC_OPC_BLOCK,      /* no operands: an INDEX scalar of the running task (lowered: BLOCK; 0 and 1 outside SPMD) */
    CC_OPC_TERNARY,    /* element-wise of three: a tile, a tile or a scalar, a tile (TOP a, b, c: cc_ir_op_ternary_slots) */
    CC_OPC_DIM,        /* a tensor's extent along a constant axis, an INDEX scalar (lowered: DIM; static ones fold) */
    /* creation, linear algebra and views (tc_create.c, tc_linalg.c) */
    CC_OPC_GENERATE,    /* no tile operand: a tile computed from scalars and its position (arange, tri, random) */
    CC_OPC_MATMUL_BIAS, /* lhs [M, K] @ rhs [K, N] + bias [1, N] broadcast down the columns (TOP a, b, c=bias) */
    CC_OPC_REINTERPRET, /* x's bytes read as another dtype and shape of equal byte count */
    CC_OPC_PASS,        /* its operand itself, unchanged (no IR node: dump_tag) */
    CC_OPC_INDEXED,     /* gather, scatter, sort (tc_index.c): elements moved by an index tile or an order, rank 2 */
    CC_OPC_BROADCAST,   /* input broadcast to target's shape (each input axis the target's or 1), target's valid region */
    CC_OPC_DIST         /* the pld ops (DISTRIBUTED-SPEC §1; tc_pld*.c, lower_dist.c, printer_pld.c): no TOP */
} cc_op_class;

/* The element dtypes an op takes (the float-only text is "pl.<op> requires
 * a floating-point tile, got <DT>"). */
typedef enum cc_op_dtypes { CC_OPD_ANY, CC_OPD_FLOAT, CC_OPD_INT } cc_op_dtypes;

/* Where an op may appear: kernel code, orchestration (control) code, both. */
typedef enum cc_op_where { CC_OPW_KERNEL, CC_OPW_ORCH, CC_OPW_BOTH } cc_op_where;

/* X(NAME, "pl spelling", class, dtype rule, where, tile entry, required slots, slot names...)
 *
 * The tile entry is the op's tile kernel (a tile_binop, tile_unop,
 * tile_rowop, tile_colop or tile_bcastop of tile/tile.h, by class), read by the tile VM only; -1 where
 * the class has one kernel.  Slots (what the IR node holds, in order):
 *   LOAD    tensor, offsets, shapes, valid_shape=    attrs: cache, clamp, implicit
 *   STORE   tile, offsets, output_tensor, shapes=
 *   CAST    x                                        attrs: dtype, mode
 *   MATMUL  lhs, rhs                                 attrs: dtype (out_dtype as written, or 255)
 *   CREATE_TENSOR  shape, init_value=                attrs: dtype
 *   MATMUL_ACC     acc, lhs, rhs, init_cond=          (lowered: TCOPY acc into the result, then
 *                                                     TOP a=lhs b=rhs c=init_cond register or -1)
 *   CONCAT  src0, src1
 *   FILLPAD x                                        attrs: mode (the pl.PadValue, never null)
 *   MOVE    tile                                     (its target_memory is the result's tag)
 *   CREATE_TILE    shape, transpose= (a hint)        attrs: dtype (target_memory: the tag)
 *   FULL    shape, value=                            attrs: dtype (value is required; printed
 *                                                     as a keyword after the dtype; lowered:
 *                                                     TOP a=-1, b=the value's register)
 *   RESHAPE x, shape                                 (shape: a list of constants, the result's)
 *   TRANSPOSE_VIEW tile                              attrs: mode (as TRANSPOSE's: the last two axes)
 *   TRANSPOSE x, axis1, axis2                        attrs: mode (the axes, counted from 0, as
 *                                                     axis1 | axis2 << 4; the slots: as written)
 *   READ    x, indices                               (x a tile or a tensor; indices a LIST of one per
 *                                                     axis, or one integer scalar: the flat row-major
 *                                                     index; the result a scalar of x's dtype)
 *   WRITE   x, indices, value                        (x a tensor, indices as READ's; the result is x)
 *   FILLPAD_EXPAND x, shape                          attrs: mode (as FILLPAD); shape as RESHAPE's
 *   SET_VALIDSHAPE tile, valid_rows, valid_cols      (lowered: TOP a=tile, b=valid_rows' register,
 *                                                     c=valid_cols' register)
 *   ASSEMBLE target, source, offset                  (offset: a list literal, run-time entries allowed;
 *                                                     lowered: TOP a=target (may be the destination),
 *                                                     b=source, u.mem.off the offsets' registers)
 *   GET_BLOCK_IDX, GET_BLOCK_NUM  (none)             (an INDEX scalar; lowered: BLOCK dst, mode 0 / 1)
 *   TENSOR_DIM tensor, axis                          (axis: a constant in [0, rank); only for a dynamic
 *                                                     dimension, a static one folds; lowered: DIM)
 *   SLICE   x, shape, offset, valid_shape=, drop_dims=  attrs: mode (pad_value=: the pl.PadValue, 0 when
 *                                                     not written); shape and drop_dims constants;
 *                                                     lowered: TOP a=x, u.mem.off/ext/shape the window
 *
 * To add an op: (1) its row here (an op of an existing class needs no other
 * compiler code); (2) its kernel in src/tile, named by the row's tile entry
 * (a unary op: a TILE_UNOP_LIST row in tile/tile.h, a UN_*_LIST row per
 * dtype class in tile_elementwise.c); (3) drop its name from names.h's later
 * names; (4) its line in docs/dsl.md, Operations; (5) its tests, as for pl.log. */
/* Every op: the pl ops (pl.<name>), then the pld ones. */
#define CC_IR_OP_LIST(X) CC_IR_PL_OP_LIST(X) CC_IR_PLD_OP_LIST(X)
#define CC_IR_PL_OP_LIST(X)                                                                                    \
    X(LOAD, "load", MEMORY, ANY, KERNEL, -1, 3, "tensor", "offsets", "shapes", "valid_shape")                  \
    X(STORE, "store", MEMORY, ANY, KERNEL, -1, 3, "tile", "offsets", "output_tensor", "shapes")                \
    X(ADD, "add", BINARY, ANY, KERNEL, TILE_ADD, 2, "lhs", "rhs")                                              \
    X(SUB, "sub", BINARY, ANY, KERNEL, TILE_SUB, 2, "lhs", "rhs")                                              \
    X(MUL, "mul", BINARY, ANY, KERNEL, TILE_MUL, 2, "lhs", "rhs")                                              \
    X(DIV, "div", BINARY, ANY, KERNEL, TILE_DIV, 2, "lhs", "rhs")                                              \
    X(MAXIMUM, "maximum", BINARY, ANY, KERNEL, TILE_MAX, 2, "lhs", "rhs")                                      \
    X(MINIMUM, "minimum", BINARY, ANY, KERNEL, TILE_MIN, 2, "lhs", "rhs")                                      \
    X(EXP, "exp", UNARY, FLOAT, KERNEL, TILE_EXP, 1, "x")                                                      \
    X(NEG, "neg", UNARY, ANY, KERNEL, TILE_NEG, 1, "x")                                                        \
    X(SQRT, "sqrt", UNARY, FLOAT, KERNEL, TILE_SQRT, 1, "x")                                                   \
    X(ABS, "abs", UNARY, ANY, KERNEL, TILE_ABS, 1, "x")                                                        \
    X(RELU, "relu", UNARY, ANY, KERNEL, TILE_RELU, 1, "x")                                                     \
    X(LOG, "log", UNARY, FLOAT, KERNEL, TILE_LOG, 1, "x")                                                      \
    X(RSQRT, "rsqrt", UNARY, FLOAT, KERNEL, TILE_RSQRT, 1, "x")                                                \
    X(RECIP, "recip", UNARY, FLOAT, KERNEL, TILE_RECIP, 1, "x", "high_precision")                              \
    X(ROW_SUM, "row_sum", ROW_REDUCE, ANY, KERNEL, TILE_ROW_SUM, 1, "tile", "tmp_tile")                        \
    X(ROW_MAX, "row_max", ROW_REDUCE, ANY, KERNEL, TILE_ROW_MAX, 1, "tile", "tmp_tile")                        \
    X(CAST, "cast", CAST, ANY, BOTH, -1, 1, "x")                                                               \
    X(MATMUL, "matmul", MATMUL, ANY, KERNEL, -1, 2, "lhs", "rhs")                                              \
    X(CREATE_TENSOR, "create_tensor", MEMORY, ANY, ORCH, -1, 1, "shape", "init_value")                         \
    /* reductions and expands */                                                                               \
    X(ROW_MIN, "row_min", ROW_REDUCE, ANY, KERNEL, TILE_ROW_MIN, 1, "tile", "tmp_tile")                        \
    X(COL_SUM, "col_sum", COL_REDUCE, ANY, KERNEL, TILE_COL_SUM, 1, "tile")                                    \
    X(COL_MAX, "col_max", COL_REDUCE, ANY, KERNEL, TILE_COL_MAX, 1, "tile")                                    \
    X(COL_MIN, "col_min", COL_REDUCE, ANY, KERNEL, TILE_COL_MIN, 1, "tile")                                    \
    X(ROW_EXPAND_ADD, "row_expand_add", ROW_EXPAND, ANY, KERNEL, TILE_BC_ADD, 2, "tile", "row_vec")            \
    X(ROW_EXPAND_SUB, "row_expand_sub", ROW_EXPAND, ANY, KERNEL, TILE_BC_SUB, 2, "tile", "row_vec")            \
    X(ROW_EXPAND_MUL, "row_expand_mul", ROW_EXPAND, ANY, KERNEL, TILE_BC_MUL, 2, "tile", "row_vec")            \
    X(ROW_EXPAND_DIV, "row_expand_div", ROW_EXPAND, ANY, KERNEL, TILE_BC_DIV, 2, "tile", "row_vec")            \
    X(ROW_EXPAND_MAX, "row_expand_max", ROW_EXPAND, ANY, KERNEL, TILE_BC_MAX, 2, "tile", "row_vec")            \
    X(ROW_EXPAND_MIN, "row_expand_min", ROW_EXPAND, ANY, KERNEL, TILE_BC_MIN, 2, "tile", "row_vec")            \
    X(ROW_EXPAND_EXPDIF, "row_expand_expdif", ROW_EXPAND, FLOAT, KERNEL, TILE_BC_EXPDIF, 2, "tile", "row_vec") \
    X(COL_EXPAND_ADD, "col_expand_add", COL_EXPAND, ANY, KERNEL, TILE_BC_ADD, 2, "tile", "col_vec")            \
    X(COL_EXPAND_SUB, "col_expand_sub", COL_EXPAND, ANY, KERNEL, TILE_BC_SUB, 2, "tile", "col_vec")            \
    X(COL_EXPAND_MUL, "col_expand_mul", COL_EXPAND, ANY, KERNEL, TILE_BC_MUL, 2, "tile", "col_vec")            \
    X(COL_EXPAND_DIV, "col_expand_div", COL_EXPAND, ANY, KERNEL, TILE_BC_DIV, 2, "tile", "col_vec")            \
    X(COL_EXPAND_MAX, "col_expand_max", COL_EXPAND, ANY, KERNEL, TILE_BC_MAX, 2, "tile", "col_vec")            \
    X(COL_EXPAND_MIN, "col_expand_min", COL_EXPAND, ANY, KERNEL, TILE_BC_MIN, 2, "tile", "col_vec")            \
    X(COL_EXPAND_EXPDIF, "col_expand_expdif", COL_EXPAND, FLOAT, KERNEL, TILE_BC_EXPDIF, 2, "tile", "col_vec") \
    X(EXPAND_CLONE, "expand_clone", BROADCAST, ANY, KERNEL, -1, 2, "input", "target")                          \
    X(ROW_EXPAND, "row_expand", ROW_EXPAND, ANY, KERNEL, TILE_BC_COPY, 2, "target", "vec")                     \
    X(COL_EXPAND, "col_expand", COL_EXPAND, ANY, KERNEL, TILE_BC_COPY, 2, "target", "vec")                     \
    X(EXPANDS, "expands", EXPANDS, ANY, KERNEL, -1, 2, "target", "scalar")                                     \
    /* matmul_acc, concat, fillpad */                                                                          \
    X(MATMUL_ACC, "matmul_acc", MATMUL_ACC, ANY, KERNEL, -1, 3, "acc", "lhs", "rhs", "init_cond")              \
    X(CONCAT, "concat", CONCAT, ANY, KERNEL, -1, 2, "src0", "src1")                                            \
    X(FILLPAD, "fillpad", FILLPAD, ANY, KERNEL, -1, 1, "x")                                                    \
    /* memory spaces (tc_mem.c) */                                                                             \
    X(MOVE, "move", MEMORY, ANY, KERNEL, -1, 1, "tile")                                                        \
    X(CREATE_TILE, "create_tile", MEMORY, ANY, KERNEL, -1, 1, "shape", "transpose")                            \
    X(FULL, "tile.full", FULL, ANY, KERNEL, -1, 1, "shape", "value")                                           \
    /* shape ops */                                                                                            \
    X(RESHAPE, "reshape", RESHAPE, ANY, KERNEL, -1, 2, "x", "shape")                                           \
    X(TRANSPOSE_VIEW, "transpose_view", TRANSPOSE, ANY, KERNEL, -1, 1, "tile")                                 \
    X(TRANSPOSE, "transpose", TRANSPOSE, ANY, KERNEL, -1, 3, "x", "axis1", "axis2")                            \
    /* element access (tc_elem.c) */                                                                           \
    X(READ, "read", ELEMENT, ANY, BOTH, -1, 2, "x", "indices")                                                 \
    X(WRITE, "write", ELEMENT, ANY, BOTH, -1, 3, "x", "indices", "value")                                      \
    X(FILLPAD_EXPAND, "fillpad_expand", FILLPAD_EXPAND, ANY, KERNEL, -1, 2, "x", "shape")                      \
    X(SET_VALIDSHAPE, "set_validshape", SET_VALIDSHAPE, ANY, KERNEL, -1, 3, "tile", "valid_rows", "valid_cols") \
    /* windows (tc_window.c) */                                                                                \
    X(ASSEMBLE, "assemble", ASSEMBLE, ANY, BOTH, -1, 3, "target", "source", "offset")                          \
    X(SLICE, "slice", SLICE, ANY, BOTH, -1, 3, "x", "shape", "offset", "valid_shape", "drop_dims")              \
    /* SPMD (DSL-V2-SPEC §7): the running block's index and the block count, INDEX scalars */                \
    X(GET_BLOCK_IDX, "get_block_idx", BLOCK, ANY, KERNEL, -1, 0)                                        \
    X(GET_BLOCK_NUM, "get_block_num", BLOCK, ANY, KERNEL, -1, 0)                                        \
    /* the rest of the element-wise family: remainders, trigonometry, comparison, activations, bitwise */        \
    X(REM, "rem", BINARY, ANY, KERNEL, TILE_REM, 2, "lhs", "rhs", "tmp")                                          \
    X(FMOD, "fmod", BINARY, ANY, KERNEL, TILE_FMOD, 2, "lhs", "rhs")                                              \
    X(SIN, "sin", UNARY, FLOAT, KERNEL, TILE_SIN, 1, "x")                                                         \
    X(COS, "cos", UNARY, FLOAT, KERNEL, TILE_COS, 1, "x")                                                         \
    X(CMP, "cmp", BINARY, ANY, KERNEL, TILE_CMP_EQ, 2, "lhs", "rhs", "cmp_type")                                  \
    X(PRELU, "prelu", BINARY, ANY, KERNEL, TILE_PRELU, 2, "tile", "slope", "tmp")                                 \
    X(LRELU, "lrelu", BINARY, ANY, KERNEL, TILE_LRELU, 2, "tile", "slope")                                        \
    X(AND, "and_", BINARY, INT, KERNEL, TILE_AND, 2, "lhs", "rhs")                                                \
    X(OR, "or_", BINARY, INT, KERNEL, TILE_OR, 2, "lhs", "rhs")                                                   \
    X(XOR, "xor", BINARY, INT, KERNEL, TILE_XOR, 2, "lhs", "rhs", "tmp")                                          \
    X(SHL, "shl", BINARY, INT, KERNEL, TILE_SHL, 2, "lhs", "rhs")                                                 \
    X(SHR, "shr", BINARY, INT, KERNEL, TILE_SHR, 2, "lhs", "rhs")                                                 \
    X(NOT, "not_", UNARY, INT, KERNEL, TILE_NOT, 1, "x")                                                          \
    /* products and arg-extrema (an arg-extremum's result is INT32: cc_ir_op_result_dtype) */                    \
    X(ROW_PROD, "row_prod", ROW_REDUCE, ANY, KERNEL, TILE_ROW_PROD, 1, "tile", "tmp_tile")                        \
    X(COL_PROD, "col_prod", COL_REDUCE, ANY, KERNEL, TILE_COL_PROD, 1, "tile")                                    \
    X(ROW_ARGMAX, "row_argmax", ROW_REDUCE, ANY, KERNEL, TILE_ROW_ARGMAX, 1, "tile", "tmp_tile")                  \
    X(ROW_ARGMIN, "row_argmin", ROW_REDUCE, ANY, KERNEL, TILE_ROW_ARGMIN, 1, "tile", "tmp_tile")                  \
    X(COL_ARGMAX, "col_argmax", COL_REDUCE, ANY, KERNEL, TILE_COL_ARGMAX, 1, "tile", "tmp_tile")                  \
    X(COL_ARGMIN, "col_argmin", COL_REDUCE, ANY, KERNEL, TILE_COL_ARGMIN, 1, "tile", "tmp_tile")                 \
    /* partial (segmented) arithmetic: over the union of the valid regions (tile/tile.h) */                       \
    X(PART_ADD, "part_add", BINARY, ANY, KERNEL, TILE_PART_ADD, 2, "lhs", "rhs")                                 \
    X(PART_MUL, "part_mul", BINARY, ANY, KERNEL, TILE_PART_MUL, 2, "lhs", "rhs")                                 \
    X(PART_MAX, "part_max", BINARY, ANY, KERNEL, TILE_PART_MAX, 2, "lhs", "rhs")                                 \
    X(PART_MIN, "part_min", BINARY, ANY, KERNEL, TILE_PART_MIN, 2, "lhs", "rhs")                                 \
    /* three operands (tc_ternary.c): selection by a mask, the add/sub with a carry operand */                   \
    X(SEL, "sel", TERNARY, ANY, KERNEL, TILE_SEL, 3, "mask", "lhs", "rhs", "tmp")                               \
    X(SELS, "sels", TERNARY, ANY, KERNEL, TILE_SEL, 4, "mask", "src", "tmp", "scalar")                          \
    X(ADDC, "addc", TERNARY, ANY, KERNEL, TILE_ADDC, 3, "lhs", "rhs", "rhs2")                                   \
    X(SUBC, "subc", TERNARY, ANY, KERNEL, TILE_SUBC, 3, "lhs", "rhs", "rhs2")                                   \
    /* dynamic shapes (tc_dynamic.c): a tensor's extent along a constant axis */                                \
    X(TENSOR_DIM, "tensor.dim", DIM, ANY, BOTH, -1, 2, "tensor", "axis")                                        \
    /* creation (tc_create.c): attrs dtype and mode (arange: descending, tri: upper, random: rounds) */        \
    X(ARANGE, "arange", GENERATE, INT, KERNEL, -1, 2, "start", "shape")                                        \
    X(TRI, "tri", GENERATE, ANY, KERNEL, -1, 2, "diagonal", "shape", "valid_shape")                            \
    X(RANDOM, "random", GENERATE, INT, KERNEL, -1, 7, "key0", "key1", "counter0", "counter1", "counter2",       \
      "counter3", "shape", "valid_shape")                                                                        \
    /* linear algebra (tc_linalg.c), the matmul kernels; gemv*: attr mode, the acc_phase (no effect) */                                                       \
    X(MATMUL_BIAS, "matmul_bias", MATMUL_BIAS, ANY, KERNEL, -1, 3, "lhs", "rhs", "bias")                        \
    X(BATCH_MATMUL, "batch_matmul", MATMUL, ANY, KERNEL, -1, 2, "lhs", "rhs")                                    \
    X(GEMV, "gemv", MATMUL, ANY, KERNEL, -1, 2, "lhs", "rhs")                                                   \
    X(GEMV_ACC, "gemv_acc", MATMUL_ACC, ANY, KERNEL, -1, 3, "acc", "lhs", "rhs")                                \
    X(GEMV_BIAS, "gemv_bias", MATMUL_BIAS, ANY, KERNEL, -1, 3, "lhs", "rhs", "bias")                            \
    /* views and markers (tc_create.c) */                                                                         \
    X(REINTERPRET_VIEW, "reinterpret_view", REINTERPRET, ANY, KERNEL, -1, 1, "data", "shape")                   \
    X(DUMP_TAG, "dump_tag", PASS, ANY, ORCH, -1, 1, "tensor")                                                   \
    /* gather, scatter, sort (tc_index.c; tile/tile_gather.c, tile_sort.c): TOP a, b, c from the slots       \
     * cc_ir_op_indexed_slots names (b: mrgsort's block_len, a scalar register); gather's tmp is no operand;   \
     * attrs: gatherb's and gather_mask's dtype (the result's, 255: src's), gather_mask's pattern (mode); mgather's mode (coalesce | gather_oob << 1, tile.h's \
     * policies); paged_gather's mode (is_trans | is_b_matrix << 1) and memory tag (space=).                   \
     * pl.tensor.gather and pl.tensor.scatter are the per-row (dim=, index=) ops of their own rows */          \
    X(GATHER, "gather", INDEXED, ANY, KERNEL, TILE_GATHER, 3, "src", "indices", "tmp")                          \
    X(SCATTER, "scatter", INDEXED, ANY, KERNEL, TILE_SCATTER, 3, "dst", "src", "indexes")                       \
    X(SORT32, "sort32", INDEXED, FLOAT, KERNEL, TILE_SORT32, 2, "src", "idx")                                   \
    X(MRGSORT, "mrgsort", INDEXED, FLOAT, KERNEL, TILE_MRGSORT, 1, "src0", "src1", "src2", "src3", "tmp",       \
      "exhausted", "block_len")                                                                                  \
    X(GATHER_DIM, "tensor.gather", INDEXED, ANY, KERNEL, TILE_GATHER_DIM, 3, "input", "dim", "index")           \
    X(SCATTER_DIM, "tensor.scatter", INDEXED, ANY, KERNEL, TILE_SCATTER_DIM, 4, "input", "dim", "index", "src") \
    X(SCATTER_UPDATE, "scatter_update", INDEXED, ANY, KERNEL, TILE_SCATTER_UPDATE, 4, "input", "dim", "index", "src") \
    X(GATHERB, "gatherb", INDEXED, ANY, KERNEL, TILE_GATHERB, 2, "src", "offset", "output_dtype")                \
    X(GATHER_MASK, "gather_mask", INDEXED, ANY, KERNEL, TILE_GATHER_MASK, 2, "src", "mask_pattern", "output_dtype") \
    X(SCATTER_MASK, "scatter_mask", INDEXED, ANY, KERNEL, TILE_SCATTER_MASK, 3, "dst", "src", "mask_pattern")   \
    X(GATHER_COMPARE, "gather_compare", INDEXED, ANY, KERNEL, TILE_GATHER_COMPARE, 2, "src", "kvalue", "tmp", "cmp_mode", \
      "offset", "out_cols", "count_dtype")                                                                       \
    X(MGATHER, "mgather", INDEXED, ANY, KERNEL, TILE_MGATHER, 2, "mem", "idx", "coalesce", "gather_oob",        \
      "target_memory", "scratch", "valid_shape")                                                                 \
    X(PAGED_GATHER, "paged_gather", INDEXED, ANY, KERNEL, TILE_PAGED_GATHER, 6, "src", "indices", "block_table", \
      "block_size", "size", "max_indices", "col_off")

/* The pld ops (`import pypto.language.distributed as pld`; DISTRIBUTED-SPEC §1): spelled with
 * their pld path, so no pl.<name> reaches them.  Slots:
 *   WORLD_SIZE     (none)                           a host INDEX scalar (lowered: WORLD)
 *   ALLOC_WINDOW   size, domain_n=, domain_ranks=   attrs: dtype (255: size is a byte count; else size is
 *                                                   the shape list); the domain slots are InferCommDomains'
 *                                                   (pass_comm_domains.c): the N of [0, N) (NULL: none) and
 *                                                   a LIST of constant ranks (NULL: none); never printed
 *   WINDOW         buf, shape                       attrs: dtype (a DistributedTensor of that shape)
 *   GET_COMM_CTX   tensor                           the DistributedTensor's domain (type: CC_WIN_CTX)
 *   RANK, NRANKS   ctx                              INT32 scalars (lowered: COMM RANK / NRANKS)
 *   NOTIFY         target, peer, offsets, value     attrs: mode (pld.NotifyOp)
 *   WAIT           signal, offsets, expected        attrs: mode (pld.WaitCmp)
 *   REMOTE_LOAD    target, peer, offsets, shape, valid_shape=   a tile of shape
 *   REMOTE_STORE   src, target, peer, offsets       attrs: atomic; mode 1: written pld.tensor.remote_store,
 *                                                   2: pld.remote_store
 *   PUT, GET       dst, peer, src, dst_offsets=, src_offsets=, shape=   attrs: atomic (PUT)
 *   BARRIER        signal                           kernel: the credit barrier, its result the signal;
 *                                                   host: HCOLL BARRIER
 *   (the host collectives' value is the window they update: data, a barrier's signal)
 *   ALLREDUCE      data, signal=                    attrs: mode (pld.ReduceOp), implicit (mode="ring")
 *   BROADCAST      data, signal, root=
 *   ALLGATHER, ALL_TO_ALL  stage, data, signal
 *   REDUCE_SCATTER data, signal                     attrs: mode (pld.ReduceOp) */
#define CC_IR_PLD_OP_LIST(X)                                                                                   \
    X(WORLD_SIZE, "pld.world_size", DIST, ANY, ORCH, -1, 0)                                                    \
    X(ALLOC_WINDOW, "pld.alloc_window_buffer", DIST, ANY, ORCH, -1, 1, "size", "domain_n", "domain_ranks")     \
    X(WINDOW, "pld.window", DIST, ANY, ORCH, -1, 2, "buf", "shape")                                            \
    X(GET_COMM_CTX, "pld.get_comm_ctx", DIST, ANY, BOTH, -1, 1, "tensor")                                      \
    X(RANK, "pld.rank", DIST, ANY, KERNEL, -1, 1, "ctx")                                                       \
    X(NRANKS, "pld.nranks", DIST, ANY, KERNEL, -1, 1, "ctx")                                                   \
    X(NOTIFY, "pld.system.notify", DIST, ANY, KERNEL, -1, 4, "target", "peer", "offsets", "value")             \
    X(WAIT, "pld.system.wait", DIST, ANY, KERNEL, -1, 3, "signal", "offsets", "expected")                      \
    X(REMOTE_LOAD, "pld.tile.remote_load", DIST, ANY, KERNEL, -1, 4, "target", "peer", "offsets", "shape",     \
      "valid_shape")                                                                                           \
    X(REMOTE_STORE, "pld.tile.remote_store", DIST, ANY, KERNEL, -1, 4, "src", "target", "peer", "offsets")     \
    X(PUT, "pld.tensor.put", DIST, ANY, KERNEL, -1, 3, "dst", "peer", "src", "dst_offsets", "src_offsets",     \
      "shape")                                                                                                 \
    X(GET, "pld.tensor.get", DIST, ANY, KERNEL, -1, 3, "dst", "peer", "src", "dst_offsets", "src_offsets",     \
      "shape")                                                                                                 \
    X(BARRIER, "pld.tensor.barrier", DIST, ANY, BOTH, -1, 1, "signal")                                         \
    X(ALLREDUCE, "pld.tensor.allreduce", DIST, ANY, ORCH, -1, 1, "data", "signal")                             \
    X(BROADCAST, "pld.tensor.broadcast", DIST, ANY, ORCH, -1, 2, "data", "signal", "root")                     \
    X(ALLGATHER, "pld.tensor.allgather", DIST, ANY, ORCH, -1, 3, "stage", "data", "signal")                    \
    X(REDUCE_SCATTER, "pld.tensor.reduce_scatter", DIST, ANY, ORCH, -1, 2, "data", "signal")                   \
    X(ALL_TO_ALL, "pld.tensor.all_to_all", DIST, ANY, ORCH, -1, 3, "stage", "data", "signal")

typedef enum cc_ir_op {
#define CC_IR_OP_ENUM_(n, ...) CC_IR_##n,
    CC_IR_OP_LIST(CC_IR_OP_ENUM_)
#undef CC_IR_OP_ENUM_
    CC_IR_OP_COUNT
} cc_ir_op;

#define CC_OP_MAX_SLOTS 8

/* An op's row. */
typedef struct cc_op_info {
    const char *name;                   /* "row_sum": pl.row_sum */
    uint8_t cls;                        /* cc_op_class */
    uint8_t dtypes;                     /* cc_op_dtypes */
    uint8_t where;                      /* cc_op_where */
    uint8_t nreq;                       /* required slots (positional) */
    uint8_t nslots;                     /* all slots */
    const char *slots[CC_OP_MAX_SLOTS]; /* parameter names; an optional slot's is its keyword */
} cc_op_info;

const cc_op_info *cc_ir_op_info(cc_ir_op op); /* op < CC_IR_OP_COUNT */
const char *cc_ir_op_name(cc_ir_op op); /* "load" */
uint32_t cc_ir_op_nslots(cc_ir_op op);
/* The op spelled name ("row_sum"), or -1. */
int cc_ir_op_lookup(const char *name);
/* Is op a tile op (it may hold tiles)?  All but the orchestration-only ones. */
int cc_ir_op_is_tile(cc_ir_op op);
/* The slots a TOP reads as its operands a [, b]: 2 for binary ops and
 * matmul, else 1 (optional slots are never operands). */
uint32_t cc_ir_op_operands(cc_ir_op op);
/* May the result be computed over an operand (element i reads operand
 * elements i only)?  Binary, unary and cast ops. */
int cc_ir_op_elementwise(cc_ir_op op);
/* Does pl.<name> compute a tensor-level value (DSL-V2-SPEC §1.2: the
 * element-wise, reduction, expand, cast and matmul ops but the tile-level
 * only ones, pl.arange, pl.random, pl.reinterpret_view, pl.full, the
 * tensor spelling of pl.tile.full, and the gather family's ops pl.tensor
 * spells)?  Outside kernel code such a call is a
 * misplaced tensor op, any other kernel op a misplaced tile op. */
int cc_ir_op_tensor_level(const char *name);

/* The pl.tile.<op> and pl.tensor.<op> spellings (DSL-V2-SPEC §9): the same
 * op, restricted to Tile / Tensor operands, printed as pl.<op>.  pl.tile
 * spells every tile op; pl.tensor every op but the tile-only ones (the
 * kernel's memory ops and pl.tile.full).  A row's own "tile.<name>" spelling
 * is its pl.tile name.  Other spellings: X(namespace, NULL for both, or
 * "pl" for both and pl.<spelling> itself, spelling, op, scalar right
 * operand required). */
#define CC_OP_ALIAS_LIST(X)                                                                   \
    X(NULL, "adds", ADD, 1) X(NULL, "subs", SUB, 1) X(NULL, "muls", MUL, 1)                                    \
    X(NULL, "divs", DIV, 1) X("pl", "maximums", MAXIMUM, 1) X("pl", "minimums", MINIMUM, 1)                    \
    X("tile", "create", CREATE_TILE, 0) X("tensor", "create", CREATE_TENSOR, 0)                                \
    X("pl", "rems", REM, 1) X("pl", "fmods", FMOD, 1) X("pl", "cmps", CMP, 1) X("pl", "ands", AND, 1)            \
    X("pl", "ors", OR, 1) X("pl", "xors", XOR, 1) X("pl", "shls", SHL, 1) X("pl", "shrs", SHR, 1)              \
    X("pl", "addsc", ADDC, 1) X("pl", "subsc", SUBC, 1)                                                       \
    X(NULL, "ci", ARANGE, 0)
typedef enum cc_op_namespace { CC_OPNS_TILE, CC_OPNS_TENSOR } cc_op_namespace;
/* A gemv's acc_phase= (its node's u.op.mode, a hint): 0 "unspecified" (the default), 1 "partial", 2 "final". */
#define CC_ACC_PHASES 3
const char *cc_acc_phase_name(int mode);
/* Is op a matrix product (its result lives in Acc): the MATMUL, MATMUL_ACC
 * and MATMUL_BIAS classes? */
int cc_ir_op_is_matmul(cc_ir_op op);
/* Is op tile-level only (upstream's "(t)" rows: pl.tri, pl.matmul_bias,
 * pl.batch_matmul, the gemv family)?  pl.tensor spells none of them. */
int cc_ir_op_tile_level_only(cc_ir_op op);
/* The op pl.<ns>.<name> spells, or -1; *scalar_rhs: whether the spelling
 * requires a scalar right operand (pl.tile.adds). */
int cc_ir_op_lookup_in(cc_op_namespace ns, const char *name, int *scalar_rhs);
/* The op a "pl" alias row spells as pl.<name> (pl.rems), or -1; *scalar_rhs as above. */
int cc_ir_op_lookup_alias(const char *name, int *scalar_rhs);
/* The result dtype of op on an operand of dtype dt: INT32 for the
 * arg-extrema (pl.row_argmax ...), dt for every other op of the
 * element-wise, reduction and expand classes. */
uint8_t cc_ir_op_result_dtype(cc_ir_op op, uint8_t dt);
/* A ternary op's slots that feed its TOP's operands: a (a tile), b (a
 * tile or a scalar: sel's rhs, sels' scalar, addc's rhs) and c (a tile:
 * sel's lhs, sels' src, addc's rhs2).  The kernel computes, per element,
 * sel: a != 0 ? c : b; addc: a + b + c; subc: a - b - c. */
void cc_ir_op_ternary_slots(cc_ir_op op, int *a, int *b, int *c);
/* Does op's TOP read a third tile, c (the ternary ops, the scatters' indexes, paged_gather's block table)? */
int cc_ir_op_reads_c_tile(cc_ir_op op);
/* An INDEXED op's slots that feed its TOP's operands a, b and c (-1: none):
 * gather, sort32, gatherb a=0 b=1; gather_mask a=0 b=-1 (no second operand); gather_compare a=0 b=1 (kvalue, a scalar); scatter a=dst b=src c=indexes;
 * tensor.gather a=input b=index; tensor.scatter, scatter_update a=input
 * b=src c=index; mgather a=mem b=idx; paged_gather a=src b=indices
 * c=block_table (lowered with block_size and col_off in u.mem.shape[0],
 * [1]); mrgsort a=src0 b=block_len (its 2-4 tile form lowers to merges of
 * two, TOP a, b tiles). */
void cc_ir_op_indexed_slots(cc_ir_op op, int *a, int *b, int *c);

#endif
