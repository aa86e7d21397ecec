/*
 * tile.h - tile kernels: the CPU implementation of the tile ops of
 * docs/dsl.md, Operations (load/store of strided windows, element-wise
 * ops, reductions, broadcasts, cast, matmul).
 *
 * A tile is a dense row-major buffer of its static shape (rank 1-4) and
 * dtype, plus a valid region: a prefix box valid[d] <= shape[d].
 * Invariant (every function here keeps it): the buffer holds 0 at every
 * element outside the valid region, so such elements read as 0; a store
 * writes the valid region only.
 *
 * Each function dispatches on dtype and op once per call and then runs
 * tight loops over contiguous runs of the valid region (no per-element
 * calls or switches).  A destination may be an operand of an element-wise
 * op or a cast (same shape); never of a reduction or matmul.
 *
 * Fallible functions return 0, or -1 after writing a one-line message
 * (the user-facing text, without location) into msg[cap].
 */
#ifndef TILE_H
#define TILE_H

#include <stddef.h>
#include <stdint.h>

#define TILE_MAX_RANK 4

/* Element types: the values of cc_dtype and pto_dtype (5 is INDEX, a
 * scalar-only dtype).  BOOL elements are bytes 0/1; only the data-movement
 * kernels (load, store, concat, reshape), fills and tile_cast take them, the
 * arithmetic ones fail ("pl.<op> does not accept BOOL tiles; cast first").
 * UINT8/16/32 are unsigned wherever the value matters: read zero-extended,
 * compared, divided, shifted (>> is logical), saturated and padded in
 * [0, 2^bits); + - * wrap modulo 2^bits as every integer dtype's do. */
typedef enum tile_dtype {
    TILE_FP32 = 0, TILE_FP16 = 1, TILE_BF16 = 2, TILE_INT32 = 3, TILE_INT8 = 4, TILE_BOOL = 6, TILE_INT64 = 7, TILE_INT16 = 8,
    TILE_UINT8 = 9, TILE_UINT16 = 10, TILE_UINT32 = 11
} tile_dtype;

/* The ops of each kernel family: X(OP, "pl spelling").  The compiler's op
 * table (compiler/ops.h) names each op's entry here; the order is free. */
/* The comparisons CMP_EQ .. CMP_GE are consecutive, in pl.cmp's cmp_type order. */
#define TILE_BINOP_LIST(X) X(ADD, "add") X(SUB, "sub") X(MUL, "mul") X(DIV, "div") X(MAX, "maximum") X(MIN, "minimum") \
    X(REM, "rem") X(FMOD, "fmod") X(CMP_EQ, "cmp") X(CMP_NE, "cmp") X(CMP_LT, "cmp") X(CMP_LE, "cmp") X(CMP_GT, "cmp")     \
    X(CMP_GE, "cmp") X(PRELU, "prelu") X(LRELU, "lrelu") X(AND, "and_") X(OR, "or_") X(XOR, "xor") X(SHL, "shl") X(SHR, "shr") \
    X(PART_ADD, "part_add") X(PART_MUL, "part_mul") X(PART_MAX, "part_max") X(PART_MIN, "part_min")
#define TILE_UNOP_LIST(X) \
    X(EXP, "exp") X(NEG, "neg") X(SQRT, "sqrt") X(ABS, "abs") X(RELU, "relu") X(LOG, "log") X(RSQRT, "rsqrt") X(RECIP, "recip") \
    X(SIN, "sin") X(COS, "cos") X(NOT, "not_")
#define TILE_ROWOP_LIST(X) X(ROW_SUM, "row_sum") X(ROW_MAX, "row_max") X(ROW_MIN, "row_min") X(ROW_PROD, "row_prod") \
    X(ROW_ARGMAX, "row_argmax") X(ROW_ARGMIN, "row_argmin")
#define TILE_COLOP_LIST(X) X(COL_SUM, "col_sum") X(COL_MAX, "col_max") X(COL_MIN, "col_min") X(COL_PROD, "col_prod") \
    X(COL_ARGMAX, "col_argmax") X(COL_ARGMIN, "col_argmin")
#define TILE_TERNOP_LIST(X) X(SEL, "sel") X(ADDC, "addc") X(SUBC, "subc")
/* moving elements by an index or an order (tile_gather.c, tile_sort.c) */
#define TILE_INDEXOP_LIST(X) X(GATHER, "gather") X(SCATTER, "scatter") X(SORT32, "sort32") X(MRGSORT, "mrgsort") \
    X(GATHER_DIM, "tensor.gather") X(SCATTER_DIM, "tensor.scatter") X(SCATTER_UPDATE, "scatter_update") X(GATHERB, "gatherb") \
    X(MGATHER, "mgather") X(PAGED_GATHER, "paged_gather") X(GATHER_MASK, "gather_mask") X(GATHER_COMPARE, "gather_compare") \
    X(SCATTER_MASK, "scatter_mask")
#define TILE_BCASTOP_LIST(X) \
    X(BC_ADD, "add") X(BC_SUB, "sub") X(BC_MUL, "mul") X(BC_DIV, "div") X(BC_MAX, "max") X(BC_MIN, "min") X(BC_EXPDIF, "expdif") \
    X(BC_COPY, "")

#define TILE_OP_ENUM_(n, s) TILE_##n,
#define TILE_OP_ONE_(n, s) +1
typedef enum tile_binop { TILE_BINOP_LIST(TILE_OP_ENUM_) } tile_binop;
typedef enum tile_unop { TILE_UNOP_LIST(TILE_OP_ENUM_) } tile_unop;
typedef enum tile_rowop { TILE_ROWOP_LIST(TILE_OP_ENUM_) } tile_rowop;
typedef enum tile_colop { TILE_COLOP_LIST(TILE_OP_ENUM_) } tile_colop;
typedef enum tile_bcastop { TILE_BCASTOP_LIST(TILE_OP_ENUM_) } tile_bcastop;
typedef enum tile_ternop { TILE_TERNOP_LIST(TILE_OP_ENUM_) } tile_ternop;
typedef enum tile_indexop { TILE_INDEXOP_LIST(TILE_OP_ENUM_) } tile_indexop;
enum {
    TILE_BINOP_COUNT = 0 TILE_BINOP_LIST(TILE_OP_ONE_),
    TILE_UNOP_COUNT = 0 TILE_UNOP_LIST(TILE_OP_ONE_),
    TILE_ROWOP_COUNT = 0 TILE_ROWOP_LIST(TILE_OP_ONE_),
    TILE_COLOP_COUNT = 0 TILE_COLOP_LIST(TILE_OP_ONE_),
    TILE_BCASTOP_COUNT = 0 TILE_BCASTOP_LIST(TILE_OP_ONE_)
};
#undef TILE_OP_ENUM_
#undef TILE_OP_ONE_
/* pl.fillpad's pad values, in pl.PadValue order (null is no pad). */
typedef enum tile_pad { TILE_PAD_NULL, TILE_PAD_ZERO, TILE_PAD_MAX, TILE_PAD_MIN } tile_pad;
/* float -> int cast modes, in cc_cast_mode order. */
typedef enum tile_round { TILE_ROUND, TILE_RINT, TILE_FLOOR, TILE_CEIL, TILE_TRUNC, TILE_ODD } tile_round;

typedef struct tile {
    void *data;                    /* count(shape) elements of dtype */
    uint8_t dtype;                 /* tile_dtype */
    uint8_t rank;
    int64_t shape[TILE_MAX_RANK];
    int64_t valid[TILE_MAX_RANK];  /* 0 <= valid[d] <= shape[d] */
} tile;

/* A strided tensor window source/destination.  Element (x0..x{r-1}) in
 * whole-tensor coordinates lives at element offset base + sum(x[d] *
 * strides[d]) from addr; base may be negative (only in-bounds elements are
 * ever addressed).  Its valid region is [0, shape[d] - hidden[d]) on each
 * axis (a view with a valid_shape, or one past its tensor's edge): loads
 * and stores act on the part of their window inside it, an element
 * outside it is never read or written. */
typedef struct tile_tensor {
    char *addr;
    int64_t base;
    uint8_t dtype, rank;
    int64_t shape[TILE_MAX_RANK];   /* whole-tensor extents */
    int64_t strides[TILE_MAX_RANK]; /* in elements */
    int64_t hidden[TILE_MAX_RANK];  /* trailing elements of each axis outside the valid region (0: none) */
} tile_tensor;

/* A scalar operand: i for integer tiles, f for float tiles. */
typedef union tile_scalar { int64_t i; double f; } tile_scalar;

/* Growable scratch memory for ops that need it (matmul of FP16/BF16/INT8). */
typedef struct tile_scratch { void *buf; size_t cap; } tile_scratch;
void tile_scratch_free(tile_scratch *s);

size_t tile_dtype_size(tile_dtype d);
int tile_dtype_is_float(tile_dtype d);
const char *tile_dtype_name(tile_dtype d); /* "FP32" */
int64_t tile_count(const tile *t);         /* elements of the shape */
int64_t tile_bytes(const tile *t);

/* A number as an operand of a dtype-dt op: a float value for float dtypes,
 * an integer (float truncated toward zero) for integer ones. */
tile_scalar tile_scalar_for(tile_dtype dt, int value_is_float, int64_t i, double f);

/* Sets n elements of dtype dt at data to v (tile_scalar_for dt), rounded
 * to FP16/BF16 to nearest even, integers wrapped to their width, BOOL v != 0. */
void tile_fill(void *data, tile_dtype dt, tile_scalar v, int64_t n);

/* Writes 0 over every element of t outside its valid region. */
void tile_clear_outside(tile *t);

/* dst (shape, dtype set by the caller) = src's window at off, valid region
 * valid (-1: the shape's extent; narrowed to the shape).  clamp cuts the
 * read at the tensor's edge (valid shrinks); else a read past the edge or
 * a negative offset is an error, its text naming op ("pl.load", "pl.slice").
 * The part of the window outside src's valid region is not read (valid
 * shrinks to it). */
int tile_load(tile *dst, const tile_tensor *src, const int64_t *off, const int64_t *valid, int clamp, const char *op, char *msg, size_t cap);

/* Writes src's valid region (cut to ext[d] where ext[d] >= 0; ext NULL: no
 * cut) at off of dst; past the edge or a negative offset is an error; the
 * part outside dst's valid region is not written. */
int tile_store(const tile_tensor *dst, const int64_t *off, const tile *src, const int64_t *ext, char *msg, size_t cap);
/* tile_store, but adding src's valid region into the window (atomic=Add):
 * FP32 adds; FP16/BF16 through FP32, rounded once to nearest even; INT32,
 * INT16, INT8 and UINT32, UINT16, UINT8 wrap; other dtypes are an error. */
int tile_store_add(const tile_tensor *dst, const int64_t *off, const tile *src, const int64_t *ext, char *msg, size_t cap);

/* dst = a <op> b (same shape and dtype), valid = intersection.  Integer
 * division (DIV, REM, FMOD) by zero in the valid region is an error.
 * REM is the floored remainder (the divisor's sign, Python's %), FMOD the
 * truncated one (the dividend's sign, C's fmod); CMP_* give 1 where the
 * comparison holds, else 0, in the dtype (NaN: only NE holds); PRELU is
 * a > 0 ? a : a * b, LRELU max(a, a * b); AND .. SHR take integer tiles
 * only; a shift count outside [0, bits) shifts every bit out: SHL gives
 * 0, SHR (arithmetic) 0 or -1 by the sign (0 for the unsigned dtypes, whose >> is logical; their
 * division and comparisons are unsigned too).  PART_* (tile-tile only):
 * valid over the smallest box holding both regions, ADD .. MIN where both
 * are valid, the valid operand's element where one is, 0 where neither. */
int tile_binary(tile *dst, const tile *a, const tile *b, tile_binop op, char *msg, size_t cap);
/* dst = a <op> s, s converted to a's dtype (integers wrap). */
int tile_binary_scalar(tile *dst, const tile *a, tile_scalar s, tile_binop op, char *msg, size_t cap);
/* dst = op(a); an op without an integer kernel (EXP, SQRT, LOG, RSQRT,
 * RECIP, SIN, COS) on an integer tile is an error, as is NOT (bitwise,
 * integer only) on a float one. */
int tile_unary(tile *dst, const tile *a, tile_unop op, char *msg, size_t cap);

/* dst = op(a, b, c) element-wise (tile_ternary.c), b a tile or (NULL) the
 * scalar s (tile_scalar_for c's dtype, converted to it); all of one shape;
 * valid = the intersection.  SEL: c where a (the mask, any dtype but BOOL)
 * is not 0, else b (c's dtype; the bits copied); ADDC: a + b + c, SUBC:
 * a - b - c (one dtype; FP16/BF16 through FP32, rounded once; integers
 * wrap). */
int tile_ternary(tile *dst, const tile *a, const tile *b, tile_scalar s, const tile *c, tile_ternop op, char *msg, size_t cap);

/* dst [R, 1] = op (sum, max, min, prod) of each valid row of a [R, C]
 * (same dtype); FP16/BF16 sums and products accumulate in FP32, integer
 * ones wrap.  ARGMAX/ARGMIN: dst INT32, the column of the row's first
 * maximum / minimum (a NaN counts as both, so the first NaN wins). */
int tile_row_reduce(tile *dst, const tile *a, tile_rowop op, char *msg, size_t cap);
/* dst [1, C] = op (sum, max, min) of each valid column of a [R, C], as
 * tile_row_reduce. */
int tile_col_reduce(tile *dst, const tile *a, tile_colop op, char *msg, size_t cap);

/* dst [R, C] = a [R, C] <op> v broadcast: v [R, 1] per row (cols 0:
 * pl.row_expand_<op>) or v [1, C] per column (cols 1: pl.col_expand_<op>);
 * same dtype; valid region = a's.  EXPDIF is exp(a - v), float only;
 * integer division by zero in the valid region is an error. */
int tile_expand_binary(tile *dst, const tile *a, const tile *v, tile_bcastop op, int cols, char *msg, size_t cap);
/* (COPY is v itself: pl.row_expand / pl.col_expand, a giving only shape,
 * dtype and valid region.)  dst = s (tile_scalar_for a's dtype) over a's
 * valid region, of a's shape and dtype: pl.expands. */
int tile_expands(tile *dst, const tile *a, tile_scalar s, char *msg, size_t cap);
/* dst (target's shape and dtype) = src broadcast to that shape (each src axis the
 * target's extent or 1: index 0 there), over target's valid region (src's elements
 * outside its own valid region read 0, as a tile's do); the rest 0. */
int tile_broadcast(tile *dst, const tile *src, const tile *target, char *msg, size_t cap);

/* dst (its dtype) = a converted: float->float, int->float nearest even;
 * float->int by mode, saturating, NaN -> 0; int->int saturating (an
 * unsigned target's range is [0, 2^bits): negatives give 0); to BOOL:
 * a != 0 (NaN -> 0, as float->int); from BOOL: 0 or 1. */
int tile_cast(tile *dst, const tile *a, tile_round mode, char *msg, size_t cap);

/* dst [M, N] = a [M, K] @ b [K, N]; FP32 result for float operands, INT32
 * for INT8 and UINT8; valid = [a.valid[0], b.valid[1]]. */
int tile_matmul(tile *dst, const tile *a, const tile *b, tile_scratch *s, char *msg, size_t cap);
/* acc [M, N] (FP32, INT32 for INT8 / UINT8 operands) += a [M, K] @ b [K, N], in place;
 * valid = acc's valid region intersected with the product's.  init: acc =
 * a @ b as tile_matmul (acc's old value ignored). */
int tile_matmul_acc(tile *acc, const tile *a, const tile *b, int init, tile_scratch *s, char *msg, size_t cap);

/* dst [R, C0 + C1] = a [R, C0] beside b [R, C1] (same dtype), fully valid:
 * outside a source's valid region its zero pad.  dst is neither source. */
int tile_concat(tile *dst, const tile *a, const tile *b, char *msg, size_t cap);
/* dst (a's shape and dtype; may be a) = a, fully valid: outside a's valid
 * region 0 (ZERO), +inf or the integer max (MAX), -inf or the integer min
 * (MIN). */
int tile_fillpad(tile *dst, const tile *a, tile_pad pad, char *msg, size_t cap);
/* dst (its own shape and rank, a's dtype and element count; may share a's buffer) = a's
 * elements in row-major order.  Valid region: dst's shape when a is fully
 * valid; else, when the two shapes differ only in unit axes, a's extents on
 * its non-unit axes placed on dst's (1 or 0 on dst's unit axes); any other
 * partial region fails with "pl.reshape: the valid region [2, 16] of a
 * [4, 16] tile is not a box in shape [8, 8]; pl.fillpad it first". */
int tile_reshape(tile *dst, const tile *a, char *msg, size_t cap);
/* dst (a's dtype; a's element count in the window's shape less or plus unit
 * axes; not a) = the window of shape shape at off of a (a's rank): a copy;
 * valid region = a's shifted by -off, cut to the window, cut to valid[d]
 * where valid is not NULL and valid[d] >= 0, carried to dst's axes as
 * tile_reshape does.  A window past a's edge fails: "pl.slice: offset 24 +
 * extent 16 exceeds dimension 0 of extent 32" (negative: "pl.slice:
 * offset 0 is negative (-1)"). */
int tile_slice(tile *dst, const tile *a, const int64_t *off, const int64_t *shape, const int64_t *valid, char *msg, size_t cap);
/* dst (target's shape and dtype; may be target, never src) = target with the
 * whole of src (same rank; same dtype, or FP32 into FP16/BF16 rounded to
 * nearest even) written at off; valid region = the smallest prefix box
 * holding target's and the written box (newly valid unwritten elements
 * read 0).  Past target's edge fails as tile_slice, with "pl.assemble". */
int tile_assemble(tile *dst, const tile *target, const tile *src, const int64_t *off, char *msg, size_t cap);
/* dst = a with axes i and j (distinct, below a's rank, either order)
 * swapped: dst's shape is a's with those two extents exchanged (a's rank
 * and dtype, else "pl.transpose: the result tile does not match the
 * source"), its valid region likewise; dst is not a.  pl.transpose,
 * pl.transpose_view (the last two axes). */
int tile_transpose(tile *dst, const tile *a, int i, int j, char *msg, size_t cap);
/* dst (its own shape, a's rank and dtype, each extent >= a's; not a) = the
 * pad value of tile_fillpad everywhere but a's valid region, which is a's
 * at the same indices; fully valid.  A smaller shape fails with
 * "pl.fillpad_expand: shape [4, 8] is smaller than the source [8, 8]". */
int tile_fillpad_expand(tile *dst, const tile *a, tile_pad pad, char *msg, size_t cap);
/* dst (a's shape and dtype, rank 2; may be a) = a with valid region [rows,
 * cols]; outside it 0, so elements that become valid read 0.  A value
 * over its extent fails with "pl.set_validshape: 20 exceeds dimension 0
 * of extent 16", a negative one with "pl.set_validshape: -1 is negative
 * for dimension 0". */
int tile_set_validshape(tile *dst, const tile *a, int64_t rows, int64_t cols, char *msg, size_t cap);
/* dst (its shape and dtype) = v everywhere (tile_fill's conversion), fully valid. */
void tile_full(tile *dst, tile_scalar v);

/* ---- generators and views (tile_generate.c) ---- */
/* dst (INT32, INT16, UINT32 or UINT16, its shape) = start + k at flat index
 * k (start - k descending), wrapped to the dtype; fully valid. */
int tile_arange(tile *dst, int64_t start, int descending, char *msg, size_t cap);
/* dst (rank 2, its shape and dtype) = 1 where j <= i + diagonal (upper:
 * j >= i + diagonal) and 0 elsewhere within valid [rows, cols] (each <=
 * the shape's), 0 outside it; valid region = valid. */
int tile_tri(tile *dst, int64_t diagonal, int upper, const int64_t *valid, char *msg, size_t cap);
/* One Philox4x32 block: out = the rounds-round cipher of ctr under key. */
void tile_philox4x32(const uint32_t key[2], const uint32_t ctr[4], int rounds, uint32_t out[4]);
/* dst (UINT32 or INT32, the same bits) = Philox4x32-<rounds> (7 or 10): the element at flat index i
 * is word i % 4 of the block for ctr + i / 4 (128-bit, ctr[0] the low
 * word), within valid (one extent per axis); 0 outside; valid region = valid. */
int tile_random(tile *dst, const uint32_t key[2], const uint32_t ctr[4], int rounds, const int64_t *valid, char *msg, size_t cap);
/* dst (another dtype and shape of a's byte count, not BOOL, not a) = a's
 * bytes, those of elements outside a's valid region zero; fully valid. */
int tile_reinterpret(tile *dst, const tile *a, char *msg, size_t cap);

/* One element (tile_elem.c), named by idx: nidx == rank, one index per
 * axis; else (nidx 1) one flat row-major index over the whole shape.  An
 * index out of range fails with "pl.read: index 9 is out of range for
 * dimension 1 of extent 8" (a flat index: dimension 0, extent the element
 * count); pl.write for tile_tensor_write. */
/* *v = t's element (f for float dtypes, FP16/BF16 widened exactly; i for
 * integer ones); outside the valid region 0, the pad. */
int tile_read(const tile *t, const int64_t *idx, int nidx, tile_scalar *v, char *msg, size_t cap);
/* *v = the element of tensor t (whole-tensor coordinates), as tile_read. */
int tile_tensor_read(const tile_tensor *t, const int64_t *idx, int nidx, tile_scalar *v, char *msg, size_t cap);
/* The address of element idx of tensor t (as tile_tensor_read names it); NULL after
 * op's out-of-range message ("<op>: index <v> is out of range for dimension <d> of extent <s>",
 * or, inside the extent, "... is outside the valid region of dimension <d> (<v> of <s> valid)"). */
char *tile_tensor_at(const tile_tensor *t, const int64_t *idx, int nidx, const char *op, char *msg, size_t cap);
/* t's element = v (tile_scalar_for t's dtype; tile_fill's rounding). */
int tile_tensor_write(const tile_tensor *t, const int64_t *idx, int nidx, tile_scalar v, char *msg, size_t cap);

/* ---- gather, scatter, sort (all rank 2; elements copied as bits) ----
 * An index is a flat row-major offset into the whole buffer of the tile it
 * addresses (its shape, not its valid region: an element outside the valid
 * region reads 0, the pad).  Index tiles are INT32 or INT16.  Every index is
 * checked before anything is written; one out of range fails with
 * "pl.gather: index 40 at [1, 3] is out of range [0, 32)". */
/* dst (idx's shape, src's dtype) = src.flat[idx[i, j]] over idx's valid
 * region, which is dst's (tile_gather.c). */
int tile_gather(tile *dst, const tile *src, const tile *idx, char *msg, size_t cap);
/* dst (target's shape and dtype; not an operand) = target, then
 * dst.flat[idx[i, j]] = src[i, j] (idx of src's shape) over the meet of
 * src's and idx's valid regions in row-major order: of duplicate indices
 * the last such element wins.  Valid region: the smallest prefix box
 * holding target's and every written element. */
int tile_scatter(tile *dst, const tile *target, const tile *src, const tile *idx, char *msg, size_t cap);
/* The per-row forms (pl.tensor.gather / pl.tensor.scatter, dim -1): an
 * index is a column of the same row, checked against the column count.
 * gather_dim: dst (idx's shape, src's dtype) [i, j] = src[i, idx[i, j]] over
 * idx's valid region (src's rows >= idx's, checked by the compiler). */
int tile_gather_dim(tile *dst, const tile *src, const tile *idx, char *msg, size_t cap);
/* scatter_dim: dst = target, then dst[i, idx[i, j]] = src[i, j] over the
 * meet of src's and idx's valid regions in row-major order (the last
 * duplicate wins); valid region as tile_scatter's. */
int tile_scatter_dim(tile *dst, const tile *target, const tile *src, const tile *idx, char *msg, size_t cap);
/* scatter_update: target read as rows of its last extent d (rank 2
 * [rows, d], or rank 4 [n, b, 1, d]: n x b rows); dst = target, then row
 * idx[i, j] (over idx's valid region, row-major) = row i x idx.cols + j of
 * src (src holds idx's element count of rows), the last duplicate winning.
 * Valid region: rank 2, target's grown to hold every written row (all d
 * columns once a row is written); rank 4, the whole shape. */
int tile_scatter_update(tile *dst, const tile *target, const tile *src, const tile *idx, char *msg, size_t cap);
/* gatherb: dst [R, C x 32 / size(dst dtype)] row i, columns j x E .. = the
 * 32 bytes of src's buffer at byte offset off[i, j] (UINT32 or INT32, a multiple of
 * 32, the block inside src), over off's valid region; valid [rows, cols x E]. */
int tile_gatherb(tile *dst, const tile *src, const tile *off, char *msg, size_t cap);
/* gather_mask: dst [R, C / stride] (dst's dtype, src's element size: the bits
 * copied) row i column k = src[i, k x stride + phase], pattern 1..7 as
 * pl.MaskPattern (P0101: stride 2 phase 0, P1010: 2, 1, P0001..P1000: 4, 0..3,
 * P1111: 1, 0); valid [src's rows, the selected columns of src's valid ones]. */
int tile_gather_mask(tile *dst, const tile *src, int pattern, char *msg, size_t cap);
/* A mask pattern's (1..7, pl.MaskPattern) column stride and phase, as above (the compiler's
 * cc_mask_pattern_step holds the same fact: the layers do not include each other). */
static inline void tile_mask_pattern(int pattern, int64_t *stride, int64_t *phase)
{
    *stride = pattern <= 2 ? 2 : pattern <= 6 ? 4 : 1;
    *phase = pattern <= 2 ? pattern - 1 : pattern <= 6 ? pattern - 3 : 0;
}
/* scatter_mask, gather_mask's inverse: out = target, then out[i, k x stride +
 * phase] = src[i, k] over src's valid region (target [R, C x stride], src [R, C],
 * one dtype); valid: target's grown to hold the written cells. */
int tile_scatter_mask(tile *out, const tile *target, const tile *src, int pattern, char *msg, size_t cap);
/* gather_compare over src's valid region, each row's columns j (in order) whose
 * element compares true with k (cmp 0..5: eq ne lt le gt ge; src's dtype; a NaN
 * compares false but for ne): part 0, dst [R, out_cols] (4-byte integers) row r
 * = the first out_cols such j + offset, the rest 0, valid [src's valid rows,
 * out_cols]; part 1, dst [1, R] (4-byte integers) column r = the row's count of
 * all such j, valid [1, src's valid rows]. */
int tile_gather_compare(tile *dst, const tile *src, tile_scalar k, int cmp, int64_t offset, int part, char *msg, size_t cap);
/* mgather's out-of-range policies (gather_oob=): fail the task, clamp into
 * range, wrap modulo the count, read 0. */
enum { TILE_OOB_UNDEFINED, TILE_OOB_CLAMP, TILE_OOB_WRAP, TILE_OOB_ZERO };
/* mgather: mode bit 0 = element mode, mode >> 1 the policy.  Element mode:
 * dst (idx's shape, mem's dtype) [i, j] = mem.flat[idx[i, j]] over idx's
 * valid region.  Row mode (idx [1, n] or [n, 1]): dst [n, mem.cols] row r =
 * mem's row idx[r], valid [the valid entries, mem.cols].  Under the
 * undefined policy an index out of range fails as tile_gather's, nothing
 * written; zero leaves that element or row 0. */
int tile_mgather(tile *dst, const tile *mem, const tile *idx, int mode, char *msg, size_t cap);
/* paged_gather: for each valid entry v = idx.flat[r] (idx [n] or [1, n]),
 * the source row phys = table.flat[v / block_size] x block_size + v %
 * block_size; dst row r (trans: column r) = src[phys, col_off ..] over dst's
 * columns (rows); valid [n, size] ([size, n]).  Every entry is checked
 * first: v outside [0, table count x block_size), or phys outside src's rows,
 * fails with nothing written. */
int tile_paged_gather(tile *dst, const tile *src, const tile *idx, const tile *table, int64_t block_size, int64_t col_off, int trans,
                      char *msg, size_t cap);
/* Sorting (tile_sort.c), FP32 or FP16 values, descending; a NaN ranks above
 * every number; equal values keep their order (the earlier first).  A pair
 * is two elements of the value dtype: the value, then the bits of an index
 * of the same width (INT32 with FP32, INT16 with FP16).
 * sort32: dst [R, 2C] = per valid row, each 32-column block of src's valid
 * columns (the last one may be shorter) sorted, as (value, index) pairs:
 * column 2k the value, 2k + 1 the bits of the idx element that came
 * with it; valid region [src's valid rows, 2 x the valid columns of src and idx]. */
int tile_sort32(tile *dst, const tile *src, const tile *idx, char *msg, size_t cap);
/* mrgsort: dst (src's shape; not src) = each valid row of (value, index)
 * pairs, read as runs of block_len columns (block_len / 2 pairs; a positive
 * multiple of 64), merged four runs at a time into runs of 4 x block_len
 * (the row's last group may hold fewer or shorter runs); of equal values
 * the earlier run's first.  The valid region is src's; its column count
 * must be even. */
int tile_mrgsort(tile *dst, const tile *src, int64_t block_len, char *msg, size_t cap);
/* merge: dst (a shape of at least a's + b's columns, not a or b) row i =
 * the sorted valid pairs of row i of a and of b merged into one sorted
 * row, of equal values a's first; valid [the fewer valid rows, a's + b's
 * valid columns], each of which must be even. */
int tile_merge(tile *dst, const tile *a, const tile *b, char *msg, size_t cap);

#endif
