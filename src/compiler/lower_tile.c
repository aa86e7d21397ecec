/*
 * lower_tile.c - the statements of tile programs: loads, stores, tile ops
 * and tile copies (scalar statements and control flow are lower.c's).
 *
 * A tile expression is computed into a tile: the assigned name's own tile
 * when the op allows it, else a temporary.  Element-wise ops (binary,
 * unary, cast: cc_ir_op_elementwise) may write a tile they read; matmul
 * and row reductions never do: when the target is one of their operands
 * they go through a temporary and a TCOPY.  Tiles are values: `x = y` copies (TCOPY),
 * and so does pl.move (its memory space is a type tag only); pl.create_tile
 * is a TOP without operands.  An FP32 pl.exp of a pl.row_expand_sub runs as
 * one row_expand_expdif (lo_expdif_of: the same bits).  pl.read is a READ into a register (of a
 * tile, or of a tensor in place), pl.write a WRITE of one tensor element.
 */
#include <stdlib.h>

#include "compiler/lower_int.h"

static int32_t lo_tile(lo_b *b, const cc_ir_expr *e);
static void lo_tile_into(lo_b *b, const cc_ir_expr *e, int32_t dst);

/* A tensor operand: always a variable (tensors are never computed). */
static int32_t lo_tensor(lo_b *b, const cc_ir_expr *e)
{
    if (e->kind != CC_X_VAR || e->type.kind != CC_T_TENSOR) return lo_internal(b, e->span, "a tensor operand that is not a variable");
    return lo_var(b, e->u.name, e->type);
}

static void lo_load(lo_b *b, const cc_ir_expr *e, int32_t dst)
{
    cc_ir_expr *const *arg = e->u.op.args;
    int32_t src = lo_tensor(b, arg[0]);
    uint32_t rank = arg[0]->type.rank;
    int32_t off[CC_MAX_RANK], ext[CC_MAX_RANK];
    lo_index_list(b, arg[1], off, rank);
    lo_index_list(b, arg[3], ext, rank);
    cc_lo_insn *in = lo_emit(b, CC_LO_LOAD, e->span);
    if (!in) return;
    in->dst = dst, in->a = src, in->dtype = e->type.dtype;
    in->mode = e->u.op.cache == CC_CACHE_BYPASS ? CC_CACHE_BYPASS : CC_CACHE_DEFAULT;
    in->u.mem.rank = (uint8_t)rank, in->u.mem.clamp = e->u.op.clamp, in->u.mem.slice = e->u.op.mode == CC_IR_SPELLED_WINDOW;
    for (uint32_t d = 0; d < rank; d++) in->u.mem.off[d] = off[d], in->u.mem.ext[d] = ext[d], in->u.mem.shape[d] = e->type.shape[d];
}

/* pl.store; returns the tensor it wrote (its value). */
static int32_t lo_store(lo_b *b, const cc_ir_expr *e)
{
    cc_ir_expr *const *arg = e->u.op.args;
    int32_t tile = lo_tile(b, arg[0]), dst = lo_tensor(b, arg[2]);
    uint32_t rank = arg[2]->type.rank;
    int32_t off[CC_MAX_RANK], ext[CC_MAX_RANK];
    lo_index_list(b, arg[1], off, rank);
    lo_index_list(b, arg[3], ext, rank);
    cc_lo_insn *in = lo_emit(b, CC_LO_STORE, e->span);
    if (!in) return -1;
    in->a = dst, in->b = tile, in->dtype = arg[0]->type.dtype, in->u.mem.rank = (uint8_t)rank, in->u.mem.atomic = e->u.op.atomic;
    for (uint32_t d = 0; d < rank; d++) in->u.mem.off[d] = off[d], in->u.mem.ext[d] = ext[d], in->u.mem.shape[d] = arg[2]->type.shape[d];
    return dst;
}

static void lo_copy(lo_b *b, int32_t dst, int32_t src, cc_span sp)
{
    if (dst == src) return;
    cc_lo_insn *in = lo_emit(b, CC_LO_TCOPY, sp);
    if (in) in->dst = dst, in->a = src;
}

/* The row_expand_sub of an FP32 pl.exp(pl.row_expand_sub(t, v)) (its
 * difference a temporary, used nowhere else), else NULL: the pair runs as
 * one row_expand_expdif, which computes the same two FP32 operations per
 * element (exp(x - v), tile_expand.c) without the pass in between. */
static const cc_ir_expr *lo_expdif_of(const cc_ir_expr *e)
{
    const cc_ir_expr *s = e->u.op.args[0];
    if (e->u.op.op != CC_IR_EXP || e->type.dtype != CC_DT_FP32) return NULL;
    return s->kind == CC_X_OP && s->u.op.op == CC_IR_ROW_EXPAND_SUB ? s : NULL;
}

/* A tile op (not LOAD/STORE): operands first, then TOP. */
static void lo_tile_op(lo_b *b, const cc_ir_expr *e, int32_t dst)
{
    const cc_ir_expr *dif = lo_expdif_of(e), *x = dif ? dif : e; /* x: the op whose operands the TOP reads */
    cc_ir_op op = dif ? CC_IR_ROW_EXPAND_EXPDIF : (cc_ir_op)e->u.op.op;
    const cc_ir_expr *rhs = cc_ir_op_operands(op) == 2 ? x->u.op.args[1] : NULL;
    int32_t a = lo_tile(b, x->u.op.args[0]);
    int scalar = rhs && rhs->type.kind != CC_T_TILE;
    int32_t r = !rhs ? -1 : scalar ? lo_scalar(b, rhs, -1) : lo_tile(b, rhs);
    int hazard = !cc_ir_op_elementwise(op) && (dst == a || (!scalar && dst == r));
    int32_t out = hazard ? lo_new(b, CC_LO_TILE, NULL, e->type) : dst;
    cc_lo_insn *in = lo_emit(b, CC_LO_TOP, e->span);
    if (!in) return;
    in->op = (uint8_t)op, in->dtype = e->type.dtype, in->dst = out, in->a = a, in->b = r, in->b_scalar = (uint8_t)scalar;
    if (op == CC_IR_CAST || op == CC_IR_FILLPAD || op == CC_IR_FILLPAD_EXPAND || op == CC_IR_CMP || cc_ir_op_info(op)->cls == CC_OPC_TRANSPOSE)
        in->mode = e->u.op.mode;
    lo_copy(b, dst, out, e->span);
}

/* A ternary op: TOP a, b (a tile or a scalar register), c (a tile), into
 * a temporary when the result is an operand (the kernel reads all three). */
static void lo_ternary(lo_b *b, const cc_ir_expr *e, int32_t dst)
{
    int sa, sb, sc;
    cc_ir_op op = (cc_ir_op)e->u.op.op;
    cc_ir_op_ternary_slots(op, &sa, &sb, &sc);
    const cc_ir_expr *rb = e->u.op.args[sb];
    int scalar = rb->type.kind != CC_T_TILE;
    int32_t a = lo_tile(b, e->u.op.args[sa]), r = scalar ? lo_scalar(b, rb, -1) : lo_tile(b, rb), c = lo_tile(b, e->u.op.args[sc]);
    int32_t out = dst == a || dst == c || (!scalar && dst == r) ? lo_new(b, CC_LO_TILE, NULL, e->type) : dst;
    cc_lo_insn *in = lo_emit(b, CC_LO_TOP, e->span);
    if (!in) return;
    in->op = (uint8_t)op, in->dtype = e->type.dtype, in->dst = out, in->a = a, in->b = r, in->b_scalar = (uint8_t)scalar, in->c = c;
    lo_copy(b, dst, out, e->span);
}

/* A gather, scatter or sort (ops.h's INDEXED rows): TOP a, b, c from the
 * slots cc_ir_op_indexed_slots names (b a tile, or mrgsort's block_len
 * register; c -1 but for the scatters and paged_gather), into a temporary
 * when the result is an operand (the kernels read their operands whole);
 * mode the node's; paged_gather's block_size and col_off in u.mem.shape.
 * The 2- to 4-tile pl.mrgsort is a chain of two-tile merges (TOP mrgsort,
 * b a tile): src0 with src1, that with src2, ...; stable merges chained
 * keep the earlier source's first, as one merge would. */
static void lo_indexed(lo_b *b, const cc_ir_expr *e, int32_t dst)
{
    cc_ir_op op = (cc_ir_op)e->u.op.op;
    cc_ir_expr *const *arg = e->u.op.args;
    int sa, sb, sc;
    cc_ir_op_indexed_slots(op, &sa, &sb, &sc);
    if (op == CC_IR_MRGSORT && !arg[sb]) sb = 1;
    int32_t a = lo_tile(b, arg[sa]);
    if (sb < 0) { /* one operand (gather_mask) */
        int32_t out = dst == a ? lo_new(b, CC_LO_TILE, NULL, e->type) : dst;
        cc_lo_insn *in = lo_emit(b, CC_LO_TOP, e->span);
        if (!in) return;
        in->op = (uint8_t)op, in->dtype = e->type.dtype, in->dst = out, in->a = a, in->mode = e->u.op.mode;
        if (out != dst) lo_copy(b, dst, out, e->span);
        return;
    }
    int scalar = arg[sb]->type.kind != CC_T_TILE;
    for (int k = sb; k <= (op == CC_IR_MRGSORT && !scalar ? 3 : sb) && arg[k]; k++) {
        int32_t r = scalar ? lo_scalar(b, arg[k], -1) : lo_tile(b, arg[k]), c = sc >= 0 ? lo_tile(b, arg[sc]) : -1;
        int last = k == 3 || !arg[k + 1] || scalar || op != CC_IR_MRGSORT;
        int32_t out = !last || dst == a || dst == c || (!scalar && dst == r) ? lo_new(b, CC_LO_TILE, NULL, e->type) : dst;
        cc_lo_insn *in = lo_emit(b, CC_LO_TOP, e->span);
        if (!in) return;
        in->op = (uint8_t)op, in->dtype = e->type.dtype, in->dst = out, in->a = a, in->b = r, in->b_scalar = (uint8_t)scalar, in->c = c;
        in->mode = e->u.op.mode; /* pl.mgather's coalesce and gather_oob, pl.paged_gather's is_trans */
        for (int j = 0; op == CC_IR_PAGED_GATHER && j < 2; j++) /* its block_size and col_off, constants (col_off: 0 when absent) */
            if (!arg[j ? 6 : 3] || !cc_ir_const_int(arg[j ? 6 : 3], &in->u.mem.shape[j])) in->u.mem.shape[j] = 0;
        if (op == CC_IR_GATHER_COMPARE && (!arg[4] || !cc_ir_const_int(arg[4], &in->u.mem.shape[0]))) in->u.mem.shape[0] = 0; /* offset= */
        if (last) lo_copy(b, dst, out, e->span);
        a = out;
    }
}

/* pl.matmul_acc: the accumulator copied into the result (a temporary when
 * the result is lhs or rhs), then TOP a=lhs, b=rhs, c=init_cond's register
 * (-1: none), which reads and writes its destination. */
static void lo_matmul_acc(lo_b *b, const cc_ir_expr *e, int32_t dst)
{
    cc_ir_expr *const *arg = e->u.op.args;
    int32_t acc = lo_tile(b, arg[0]), l = lo_tile(b, arg[1]), r = lo_tile(b, arg[2]);
    int32_t cond = e->u.op.op == CC_IR_MATMUL_ACC && arg[3] ? lo_scalar(b, arg[3], -1) : -1; /* pl.gemv_acc: no init_cond */
    int32_t out = dst == l || dst == r ? lo_new(b, CC_LO_TILE, NULL, e->type) : dst;
    lo_copy(b, out, acc, e->span);
    cc_lo_insn *in = lo_emit(b, CC_LO_TOP, e->span);
    if (!in) return;
    in->op = e->u.op.op, in->dtype = e->type.dtype, in->dst = out, in->a = l, in->b = r, in->c = cond;
    lo_copy(b, dst, out, e->span);
}

/* pl.matmul_bias, pl.gemv_bias: TOP a=lhs, b=rhs, c=bias, into a
 * temporary when the result is one of them. */
static void lo_matmul_bias(lo_b *b, const cc_ir_expr *e, int32_t dst)
{
    cc_ir_expr *const *arg = e->u.op.args;
    int32_t l = lo_tile(b, arg[0]), r = lo_tile(b, arg[1]), bias = lo_tile(b, arg[2]);
    int32_t out = dst == l || dst == r || dst == bias ? lo_new(b, CC_LO_TILE, NULL, e->type) : dst;
    cc_lo_insn *in = lo_emit(b, CC_LO_TOP, e->span);
    if (!in) return;
    in->op = e->u.op.op, in->dtype = e->type.dtype, in->dst = out, in->a = l, in->b = r, in->c = bias;
    lo_copy(b, dst, out, e->span);
}

/* A generator (pl.arange, pl.tri, pl.random): TOP a=-1; b the scalar
 * operand's register (arange's start, tri's diagonal; random: -1, its six
 * seed registers in u.mem.off[0..3] and u.mem.ext[0..1], u.mem.rank 4);
 * u.mem.shape the valid region (the shape where valid_shape is absent);
 * mode the op's attribute. */
static void lo_generate(lo_b *b, const cc_ir_expr *e, int32_t dst)
{
    cc_ir_expr *const *arg = e->u.op.args;
    cc_ir_op op = (cc_ir_op)e->u.op.op;
    int32_t s = op == CC_IR_RANDOM ? -1 : lo_scalar(b, arg[0], CC_DT_INT64), seed[6];
    for (int k = 0; op == CC_IR_RANDOM && k < 6; k++) seed[k] = lo_scalar(b, arg[k], CC_DT_INT64);
    const cc_ir_expr *valid = op == CC_IR_TRI ? arg[2] : op == CC_IR_RANDOM ? arg[7] : NULL;
    cc_lo_insn *in = lo_emit(b, CC_LO_TOP, e->span);
    if (!in) return;
    in->op = (uint8_t)op, in->dtype = e->type.dtype, in->dst = dst, in->a = -1, in->b = s, in->b_scalar = s >= 0, in->mode = e->u.op.mode;
    for (int d = 0; d < CC_MAX_RANK; d++) in->u.mem.off[d] = in->u.mem.ext[d] = -1, in->u.mem.shape[d] = 0;
    if (op == CC_IR_RANDOM) {
        in->u.mem.rank = 4;
        for (int k = 0; k < 4; k++) in->u.mem.off[k] = seed[k];
        in->u.mem.ext[0] = seed[4], in->u.mem.ext[1] = seed[5];
    }
    for (uint32_t d = 0; d < e->type.rank; d++) {
        int64_t v = e->type.shape[d];
        if (valid && !cc_ir_const_int(valid->u.list.items[d], &v)) return (void)lo_internal(b, e->span, "a valid_shape that is not constant");
        in->u.mem.shape[d] = v;
    }
}

/* pl.assemble and pl.slice: TOP a=target (pl.slice: x), b=source (-1), the
 * window's offsets (and pl.slice's valid_shape, -1: none) in u.mem's
 * registers, its shape in u.mem.shape.  pl.assemble may write its target
 * in place (dst == a), never its source; pl.slice never its operand. */
static void lo_window(lo_b *b, const cc_ir_expr *e, int32_t dst)
{
    cc_ir_expr *const *arg = e->u.op.args;
    int assemble = e->u.op.op == CC_IR_ASSEMBLE;
    int32_t a = lo_tile(b, arg[0]), src = assemble ? lo_tile(b, arg[1]) : -1;
    uint32_t rank = arg[0]->type.rank;
    int32_t off[CC_MAX_RANK], ext[CC_MAX_RANK];
    lo_index_list(b, arg[2], off, rank);
    lo_index_list(b, assemble ? NULL : arg[3], ext, rank);
    int32_t out = dst == (assemble ? src : a) ? lo_new(b, CC_LO_TILE, NULL, e->type) : dst;
    cc_lo_insn *in = lo_emit(b, CC_LO_TOP, e->span);
    if (!in) return;
    in->op = e->u.op.op, in->dtype = e->type.dtype, in->dst = out, in->a = a, in->b = src;
    in->u.mem.rank = (uint8_t)rank;
    for (uint32_t d = 0; d < rank; d++) {
        int64_t n = 0;
        if (assemble) n = arg[1]->type.shape[d];
        else if (!cc_ir_const_int(arg[1]->u.list.items[d], &n)) return (void)lo_internal(b, e->span, "a slice shape that is not constant");
        in->u.mem.off[d] = off[d], in->u.mem.ext[d] = ext[d], in->u.mem.shape[d] = n;
    }
    lo_copy(b, dst, out, e->span);
}

/* pl.tile.full: TOP with no tile operand (a = -1), b the value's register. */
static void lo_full(lo_b *b, const cc_ir_expr *e, int32_t dst)
{
    int32_t v = lo_scalar(b, e->u.op.args[1], -1);
    cc_lo_insn *in = lo_emit(b, CC_LO_TOP, e->span);
    if (in) in->op = CC_IR_FULL, in->dtype = e->type.dtype, in->dst = dst, in->a = -1, in->b = v, in->b_scalar = 1;
}

/* pl.set_validshape: TOP a=tile, b=valid_rows' register, c=valid_cols'
 * (INDEX); it may write the tile it reads. */
static void lo_set_validshape(lo_b *b, const cc_ir_expr *e, int32_t dst)
{
    cc_ir_expr *const *arg = e->u.op.args;
    int32_t a = lo_tile(b, arg[0]), rows = lo_scalar(b, arg[1], CC_DT_INDEX), cols = lo_scalar(b, arg[2], CC_DT_INDEX);
    cc_lo_insn *in = lo_emit(b, CC_LO_TOP, e->span);
    if (in) in->op = CC_IR_SET_VALIDSHAPE, in->dtype = e->type.dtype, in->dst = dst, in->a = a, in->b = rows, in->b_scalar = 1, in->c = cols;
}

static void lo_tile_into(lo_b *b, const cc_ir_expr *e, int32_t dst)
{
    if (b->x->failed) return;
    if (e->kind == CC_X_VAR && e->type.kind == CC_T_TILE) return lo_copy(b, dst, lo_var(b, e->u.name, e->type), e->span);
    if (e->kind != CC_X_OP || e->type.kind != CC_T_TILE) return (void)lo_internal(b, e->span, "a tile operand that is not a tile");
    if (e->u.op.op == CC_IR_LOAD) return lo_load(b, e, dst);
    if (lo_is_dist(e)) return lo_dist_tile_into(b, e, dst);
    cc_op_class cls = (cc_op_class)cc_ir_op_info((cc_ir_op)e->u.op.op)->cls;
    if (cls == CC_OPC_MATMUL_ACC) return lo_matmul_acc(b, e, dst);
    if (cls == CC_OPC_MATMUL_BIAS) return lo_matmul_bias(b, e, dst);
    if (cls == CC_OPC_GENERATE) return lo_generate(b, e, dst);
    if (e->u.op.op == CC_IR_MOVE) return lo_tile_into(b, e->u.op.args[0], dst); /* a copy: only the tag differs */
    if (e->u.op.op == CC_IR_CREATE_TILE) { /* a TOP without operands: zeros */
        cc_lo_insn *in = lo_emit(b, CC_LO_TOP, e->span);
        if (in) in->op = CC_IR_CREATE_TILE, in->dtype = e->type.dtype, in->dst = dst, in->a = in->b = -1;
        return;
    }
    if (e->u.op.op == CC_IR_FULL) return lo_full(b, e, dst);
    if (e->u.op.op == CC_IR_ASSEMBLE || e->u.op.op == CC_IR_SLICE) return lo_window(b, e, dst);
    if (e->u.op.op == CC_IR_SET_VALIDSHAPE) return lo_set_validshape(b, e, dst);
    if (cc_ir_op_info((cc_ir_op)e->u.op.op)->cls == CC_OPC_TERNARY) return lo_ternary(b, e, dst);
    if (cc_ir_op_info((cc_ir_op)e->u.op.op)->cls == CC_OPC_INDEXED) return lo_indexed(b, e, dst);
    lo_tile_op(b, e, dst);
}

/* A tile holding e: a variable's own tile, or a temporary. */
static int32_t lo_tile(lo_b *b, const cc_ir_expr *e)
{
    if (e->kind == CC_X_VAR && e->type.kind == CC_T_TILE) return lo_var(b, e->u.name, e->type);
    int32_t t = lo_new(b, CC_LO_TILE, NULL, e->type);
    if (t >= 0) lo_tile_into(b, e, t);
    return t;
}

/* The element's indices: one register per LIST item, or the flat index's; returns their count. */
static uint32_t lo_indices(lo_b *b, const cc_ir_expr *ix, int32_t *off)
{
    if (ix->kind != CC_X_LIST) return off[0] = lo_scalar(b, ix, CC_DT_INDEX), 1;
    lo_index_list(b, ix, off, ix->u.list.n);
    return ix->u.list.n;
}

static void lo_element(cc_lo_insn *in, const int32_t *off, uint32_t n)
{
    in->u.mem.rank = (uint8_t)n;
    for (uint32_t d = 0; d < n; d++) in->u.mem.off[d] = off[d], in->u.mem.ext[d] = -1;
}

void lo_read_into(lo_b *b, const cc_ir_expr *e, int32_t dst)
{
    const cc_ir_expr *x = e->u.op.args[0];
    int tensor = x->type.kind == CC_T_TENSOR;
    int32_t src = tensor ? lo_tensor(b, x) : lo_tile(b, x), off[CC_MAX_RANK];
    uint32_t n = lo_indices(b, e->u.op.args[1], off);
    cc_lo_insn *in = lo_emit(b, CC_LO_READ, e->span);
    if (!in) return;
    in->dst = dst, in->a = src, in->mode = (uint8_t)tensor, in->dtype = x->type.dtype;
    lo_element(in, off, n);
}

/* pl.write; returns the tensor it wrote (its value). */
static int32_t lo_write(lo_b *b, const cc_ir_expr *e)
{
    cc_ir_expr *const *arg = e->u.op.args;
    int32_t dst = lo_tensor(b, arg[0]), off[CC_MAX_RANK];
    uint32_t n = lo_indices(b, arg[1], off);
    int32_t v = lo_scalar(b, arg[2], -1);
    cc_lo_insn *in = lo_emit(b, CC_LO_WRITE, e->span);
    if (!in) return -1;
    in->a = dst, in->b = v, in->dtype = arg[0]->type.dtype;
    lo_element(in, off, n);
    return dst;
}

/* pl.store or pl.write: an op writing a tensor, whose value is that tensor. */
static int lo_is_store(const cc_ir_expr *e) { return e->kind == CC_X_OP && (e->u.op.op == CC_IR_STORE || e->u.op.op == CC_IR_WRITE); }

static int32_t lo_store_any(lo_b *b, const cc_ir_expr *e) { return e->u.op.op == CC_IR_WRITE ? lo_write(b, e) : lo_store(b, e); }

cc_lo_ref lo_tile_value(lo_b *b, const cc_ir_expr *e)
{
    if (lo_is_store(e)) return (cc_lo_ref){CC_LO_TENSOR, (uint32_t)lo_store_any(b, e)};
    return (cc_lo_ref){CC_LO_TILE, (uint32_t)lo_tile(b, e)};
}

void lo_tile_stmt(lo_b *b, const cc_ir_stmt *s)
{
    if (s->kind == CC_I_EXPR) {
        if (lo_is_store(s->u.expr)) lo_store_any(b, s->u.expr);
        else lo_internal(b, s->span, "an expression statement that is not pl.store or pl.write");
        return;
    }
    const cc_ir_target *t = s->u.assign.targets;
    const cc_ir_expr *v = s->u.assign.value;
    if (t->type.kind == CC_T_TILE) return lo_tile_into(b, v, lo_var(b, t->name, t->type));
    if (t->type.kind != CC_T_TENSOR || !lo_is_store(v)) return (void)lo_internal(b, s->span, "an assignment of an unknown kind");
    int32_t src = lo_store_any(b, v);
    int32_t dst = lo_var(b, t->name, t->type);
    if (src < 0 || dst == src) return;
    cc_lo_insn *in = lo_emit(b, CC_LO_ALIAS, s->span);
    if (in) in->dst = dst, in->a = src;
}

/* ---- direct stores ---- */

/* Tile bit sets, one per instruction, words 64-bit words each. */
static uint64_t *lo_bit(uint64_t *sets, uint32_t i, uint32_t words) { return sets + (size_t)i * words; }

/* The tiles an instruction reads (up to three: matmul_acc reads its
 * destination) and the one it writes (-1: none). */
static int lo_tile_uses(const cc_lo_insn *in, int32_t use[3], int32_t *def)
{
    use[0] = use[1] = use[2] = *def = -1;
    if (in->code == CC_LO_LOAD) *def = in->dst;
    if (in->code == CC_LO_STORE) use[0] = in->b;
    if (in->code == CC_LO_TCOPY) use[0] = in->a, *def = in->dst;
    if (in->code == CC_LO_COMM && in->u.comm.op == CC_LO_COMM_REMOTE_LOAD) *def = in->dst;
    if (in->code == CC_LO_COMM && in->u.comm.op == CC_LO_COMM_REMOTE_STORE) use[0] = in->b;
    if (in->code == CC_LO_READ && !in->mode) use[0] = in->a;
    if (in->code == CC_LO_TOP) use[0] = in->a, use[1] = in->b_scalar ? -1 : in->b, *def = in->dst;
    cc_op_class cls = in->code == CC_LO_TOP ? (cc_op_class)cc_ir_op_info((cc_ir_op)in->op)->cls : CC_OPC_MEMORY;
    if (cls == CC_OPC_MATMUL_ACC) use[2] = in->dst;
    if (cls == CC_OPC_MATMUL_BIAS || (in->code == CC_LO_TOP && cc_ir_op_reads_c_tile((cc_ir_op)in->op))) use[2] = in->c;
    return use[0] >= 0 || *def >= 0;
}

/* Tiles live after each instruction (read again before they are written),
 * by backward dataflow over the jumps; NULL when out of memory. */
static uint64_t *lo_tile_live_out(const cc_lo_insn *code, uint32_t n, uint32_t words)
{
    uint64_t *live_in = calloc((size_t)n * words + 1, sizeof *live_in);
    uint64_t *live_out = calloc((size_t)n * words + 1, sizeof *live_out);
    if (!live_in || !live_out) return free(live_in), free(live_out), NULL;
    for (int changed = 1; changed;) {
        changed = 0;
        for (uint32_t i = n; i-- > 0;) {
            const cc_lo_insn *in = &code[i];
            uint64_t *out = lo_bit(live_out, i, words), *inb = lo_bit(live_in, i, words);
            uint32_t succ[2], ns = 0;
            if (in->code == CC_LO_JUMP || in->code == CC_LO_JUMP_IF_FALSE) succ[ns++] = in->u.target;
            if (in->code != CC_LO_JUMP && in->code != CC_LO_RETURN) succ[ns++] = i + 1;
            for (uint32_t k = 0; k < ns; k++)
                if (succ[k] < n)
                    for (uint32_t w = 0; w < words; w++) out[w] |= lo_bit(live_in, succ[k], words)[w];
            int32_t use[3], def;
            lo_tile_uses(in, use, &def);
            for (uint32_t w = 0; w < words; w++) {
                uint64_t v = out[w];
                if (def >= 0 && (uint32_t)def / 64 == w) v &= ~(1ull << (def % 64));
                for (int u = 0; u < 3; u++)
                    if (use[u] >= 0 && (uint32_t)use[u] / 64 == w) v |= 1ull << (use[u] % 64);
                if (v != inb[w]) inb[w] = v, changed = 1;
            }
        }
    }
    free(live_in);
    return live_out;
}

/* Does each element of op's result depend only on the same element of its
 * tile operand (and a scalar, or a broadcast vector's element)?  Element-wise
 * ops and the row and column expands. */
static int lo_per_element(cc_ir_op op)
{
    cc_op_class c = (cc_op_class)cc_ir_op_info(op)->cls;
    return cc_ir_op_elementwise(op) || c == CC_OPC_ROW_EXPAND || c == CC_OPC_COL_EXPAND;
}

/* Marks the STOREs a tile program can compute in place (lower.h, STORE's
 * mode), never an atomic one (it adds into the window): the stored tile is
 * written by the last tile instruction before it, a per-element TOP
 * (lo_per_element), with only scalar instructions (the store's offsets)
 * between them, none of them a jump target or a write of the TOP's
 * scalar operand; and no other instruction reads that tile.  Mode 1 when
 * no source of the TOP is live after it, else mode 2 (a source read again
 * must keep its value, even when it points into the window).  Returns 0, or
 * -1 when out of memory (nothing marked: the listing would depend on it). */
int lo_tile_mark_direct_stores(cc_lo_insn *code, uint32_t n, uint32_t ntiles)
{
    uint32_t words = (ntiles + 63) / 64;
    uint32_t *reads = calloc(ntiles ? ntiles : 1, sizeof *reads);
    uint8_t *target = calloc(n ? n : 1, 1);
    uint64_t *live_out = lo_tile_live_out(code, n, words);
    if (!reads || !target || !live_out) return free(reads), free(target), free(live_out), -1;
    for (uint32_t i = 0; i < n; i++) {
        const cc_lo_insn *in = &code[i];
        if (in->code == CC_LO_JUMP || in->code == CC_LO_JUMP_IF_FALSE) target[in->u.target < n ? in->u.target : 0] = 1;
        if ((in->code == CC_LO_TOP || in->code == CC_LO_TCOPY || (in->code == CC_LO_READ && !in->mode)) && in->a >= 0) reads[in->a]++;
        if (in->code == CC_LO_TOP && !in->b_scalar && in->b >= 0) reads[in->b]++;
        cc_op_class cls = in->code == CC_LO_TOP ? (cc_op_class)cc_ir_op_info((cc_ir_op)in->op)->cls : CC_OPC_MEMORY;
        if (cls == CC_OPC_MATMUL_ACC) reads[in->dst]++;
        if (cls == CC_OPC_MATMUL_BIAS || (in->code == CC_LO_TOP && cc_ir_op_reads_c_tile((cc_ir_op)in->op))) reads[in->c]++;
        if (in->code == CC_LO_STORE || (in->code == CC_LO_COMM && in->u.comm.op == CC_LO_COMM_REMOTE_STORE)) reads[in->b]++;
    }
    for (uint32_t i = 1; i < n; i++) {
        cc_lo_insn *st = &code[i];
        if (st->code != CC_LO_STORE || st->u.mem.atomic || reads[st->b] != 1 || target[i]) continue;
        uint32_t j = i - 1;
        while (j > 0 && cc_lo_is_scalar(&code[j]) && !target[j]) j--;
        const cc_lo_insn *op = &code[j];
        if (op->code != CC_LO_TOP || op->dst != st->b || !lo_per_element((cc_ir_op)op->op)) continue;
        int clobbered = 0;
        for (uint32_t k = j + 1; k < i; k++) clobbered |= target[k] || (op->b_scalar && code[k].dst == op->b);
        if (clobbered) continue;
        int32_t use[3], def;
        lo_tile_uses(op, use, &def);
        int kept = 0;
        for (int u = 0; u < 3; u++)
            if (use[u] >= 0) kept |= (int)(lo_bit(live_out, j, words)[use[u] / 64] >> (use[u] % 64) & 1);
        st->mode = kept ? 2 : 1;
    }
    free(reads), free(target), free(live_out);
    return 0;
}
