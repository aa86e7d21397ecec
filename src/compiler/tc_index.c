/*
 * tc_index.c - the type checker's gather, scatter and sort ops (docs/dsl.md,
 * Operations): pl.gather(src, indices, tmp), pl.scatter(dst, src, indexes),
 * pl.sort32(src, idx), pl.mrgsort(src0, block_len=).
 *
 * Invariants: the node's slots are as written (the printer's); every tile
 * operand is rank 2 and not BOOL; an index tile is INT32 or INT16 (as each
 * op's row of docs/dsl.md allows); the sorts take FP32 values; a scratch
 * tmp is a tile and has no effect.  The run time checks each index
 * (tile/tile.h); a constant block_len is checked here.
 */
#include "compiler/tc.h"

#include <string.h>

/* x's type as text, in buf. */
static const char *ti_type(const cc_ir_expr *x, char *buf, size_t cap)
{
    cc_type_format(&x->type, buf, cap);
    return buf;
}

static int ti_same_shape(const cc_type *a, const cc_type *b)
{
    return a->rank == b->rank && !memcmp(a->shape, b->shape, a->rank * sizeof a->shape[0]);
}

/* An index tile of op: INT32 where int32_ok, INT16 where int16_ok; rule says which. */
static int ti_index_dtype(tc *t, const char *op, const char *slot, const cc_ir_expr *x, int int32_ok, int int16_ok, const char *rule)
{
    uint8_t dt = x->type.dtype;
    if ((int32_ok && dt == CC_DT_INT32) || (int16_ok && dt == CC_DT_INT16)) return 1;
    return tc_err(t, CC_DIAG_TYPE, x->span, NULL, "pl.%s: %s must be %s, got %s", op, slot, rule, cc_dtype_name((cc_dtype)dt)), 0;
}

static int ti_fp32(tc *t, const char *op, const cc_ir_expr *x)
{
    if (x->type.dtype == CC_DT_FP32) return 1;
    return tc_err(t, CC_DIAG_TYPE, x->span, NULL, "pl.%s sorts FP32 values, got %s; pl.cast to FP32 first", op,
                  cc_dtype_name((cc_dtype)x->type.dtype)), 0;
}

/* pl.mrgsort's block_len: an integer scalar; a constant one a positive multiple of 64. */
static int ti_block_len(tc *t, const cc_ir_expr *v)
{
    char ty[96];
    int64_t n;
    if (v->type.kind != CC_T_SCALAR || cc_dtype_is_float((cc_dtype)v->type.dtype) || v->type.dtype == CC_DT_BOOL)
        return tc_err(t, CC_DIAG_TYPE, v->span, NULL, "pl.mrgsort: block_len must be an integer scalar, got %s", ti_type(v, ty, sizeof ty)), 0;
    if (cc_ir_const_int(v, &n) && (n <= 0 || n % 64))
        return tc_err(t, CC_DIAG_INVALID_OP, v->span, NULL, "pl.mrgsort: block_len %lld is not a positive multiple of 64", (long long)n), 0;
    return 1;
}

cc_ir_expr *tc_indexed_op(tc *t, const cc_expr *call, cc_ir_op op)
{
    const cc_op_info *row = cc_ir_op_info(op);
    const char *name = row->name;
    char ty[96];
    tc_args a;
    if (op == CC_IR_MRGSORT && call->u.call.nargs > 1) /* upstream's second form: src0, src1[, src2[, src3]], tmp= */
        return tc_err(t, CC_DIAG_UNSUPPORTED, call->span, NULL,
                      "pl.mrgsort needs block_len=: the merge of 2 to 4 sorted tiles (src0, src1, ..., tmp=) is not supported");
    if (!tc_op_bind(t, call, name, row->slots, row->nslots, &a) || !tc_need(t, call, name, &a, row->nreq, row->slots)) return NULL;
    if (op == CC_IR_MRGSORT && !a.v[1])
        return tc_err(t, CC_DIAG_UNSUPPORTED, call->span, NULL,
                      "pl.mrgsort needs block_len=: the merge of 2 to 4 sorted tiles (src0, src1, ..., tmp=) is not supported");
    cc_ir_expr *x = cc_ir_op_new(t->a, op, call->span);
    if (!x) return tc_oom(t);
    cc_ir_expr **v = x->u.op.args;
    for (uint32_t k = 0; k < row->nslots; k++) {
        if (!a.v[k]) continue;
        if (!(v[k] = tc_expr(t, a.v[k]))) return NULL;
        if (op == CC_IR_MRGSORT && k == 1) {
            if (!ti_block_len(t, v[k])) return NULL;
            continue;
        }
        if (!(v[k] = tc_tile_operand(t, v[k], call->span))) return NULL;
        if (v[k]->type.kind != CC_T_TILE || v[k]->type.rank != 2)
            return tc_err(t, CC_DIAG_TYPE, v[k]->span, NULL, "pl.%s: %s must be a rank-2 tile, got %s", name, row->slots[k],
                          ti_type(v[k], ty, sizeof ty));
        if ((op != CC_IR_GATHER || k != 2) && !tc_no_bool_tile(t, name, v[k], call->span)) return NULL;
    }
    const cc_type *t0 = &v[0]->type, *t1 = op == CC_IR_MRGSORT ? NULL : &v[1]->type;
    x->type = *t0;
    switch (op) {
    case CC_IR_GATHER:
        if (!ti_index_dtype(t, name, "indices", v[1], 1, cc_dtype_size((cc_dtype)t0->dtype) == 2, "INT32 (INT16 with a 2-byte source)")) return NULL;
        x->type = *t1, x->type.dtype = t0->dtype;
        break;
    case CC_IR_SCATTER: {
        const cc_type *ti = &v[2]->type;
        if (t1->dtype != t0->dtype)
            return tc_err(t, CC_DIAG_TYPE, call->span, NULL, "pl.scatter: operand dtypes %s and %s differ; insert pl.cast",
                          cc_dtype_name((cc_dtype)t0->dtype), cc_dtype_name((cc_dtype)t1->dtype));
        int wide = cc_dtype_size((cc_dtype)t0->dtype) >= 4;
        if (!ti_index_dtype(t, name, "indexes", v[2], wide, !wide, wide ? "INT32 for a 4- or 8-byte destination" : "INT16 for a 1- or 2-byte destination"))
            return NULL;
        if (!ti_same_shape(ti, t1))
            return tc_err(t, CC_DIAG_INVALID_OP, call->span, NULL, "pl.scatter: indexes %s and src %s differ in shape", tc_shape_text(t, ti),
                          tc_shape_text(t, t1));
        break;
    }
    case CC_IR_SORT32:
        if (!ti_fp32(t, name, v[0]) || !ti_index_dtype(t, name, "idx", v[1], 1, 0, "INT32")) return NULL;
        if (!ti_same_shape(t0, t1))
            return tc_err(t, CC_DIAG_INVALID_OP, call->span, NULL, "pl.sort32: src %s and idx %s differ in shape", tc_shape_text(t, t0),
                          tc_shape_text(t, t1));
        if (t0->shape[1] % 32)
            return tc_err(t, CC_DIAG_INVALID_OP, call->span, NULL, "pl.sort32: src has %lld columns, not a multiple of 32",
                          (long long)t0->shape[1]);
        x->type.shape[1] = 2 * t0->shape[1];
        x->type.partial = t0->partial || t1->partial;
        break;
    case CC_IR_MRGSORT:
        if (!ti_fp32(t, name, v[0])) return NULL;
        if (t0->shape[1] % 2)
            return tc_err(t, CC_DIAG_INVALID_OP, call->span, NULL, "pl.mrgsort: src0 has %lld columns, not whole (value, index) pairs",
                          (long long)t0->shape[1]);
        break;
    default: return tc_err(t, CC_DIAG_INTERNAL, call->span, NULL, "internal error: pl.%s is not a gather, scatter or sort", name);
    }
    return tc_mem_result(x);
}
