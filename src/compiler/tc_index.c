/*
 * tc_index.c - the type checker's gather, scatter and sort ops (docs/dsl.md,
 * Operations): pl.gather(src, indices, tmp), pl.scatter(dst, src, indexes),
 * their per-row forms pl.tensor.gather(input, dim, index) and
 * pl.tensor.scatter(input, dim, index, src) (also pl.gather / pl.scatter
 * written with dim=, or an integer second argument),
 * pl.scatter_update(input, dim, index, src) (also upstream's (input, index,
 * src, dim=-2)), pl.gatherb, pl.mgather(mem, idx, coalesce=, gather_oob=), pl.sort32(src, idx), pl.mrgsort(src0, block_len=) and
 * pl.mrgsort(src0, src1[, src2[, src3]], tmp=, exhausted=False).
 *
 * Invariants: the node's slots are as written (the printer's); every tile
 * operand is rank 2 (scatter_update's input and src: 2 or 4) and not BOOL;
 * an index tile is INT32 or INT16 (as each op's row of docs/dsl.md allows);
 * the sorts take FP32 or FP16 values; a scratch tmp is a tile and has no
 * effect but mrgsort's, whose shape is the result's; a dim is an integer
 * constant naming the one axis each op works along; exhausted= is a hint
 * (a boolean literal, kept as written).  The run time checks each index
 * (tile/tile.h); a constant block_len is checked here.
 */
#include "compiler/tc.h"
#include "compiler/names.h"

#include <string.h>

/* x's type as text, in buf. */
static const char *ti_type(const cc_ir_expr *x, char *buf, size_t cap)
{
    cc_type_format(&x->type, buf, cap);
    return buf;
}

static const char *ti_dt(const cc_type *ty) { return cc_dtype_name((cc_dtype)ty->dtype); }

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

/* The values of a sort: FP32 or FP16. */
static int ti_sort_values(tc *t, const char *op, const cc_ir_expr *x)
{
    if (x->type.dtype == CC_DT_FP32 || x->type.dtype == CC_DT_FP16) return 1;
    return tc_err(t, CC_DIAG_TYPE, x->span, NULL, "pl.%s sorts FP32 or FP16 values, got %s; pl.cast first", op, ti_dt(&x->type)), 0;
}

/* A tile of (value, index) pairs: an even column count. */
static int ti_pairs(tc *t, const cc_expr *call, const char *slot, const cc_type *ty)
{
    if (ty->shape[1] % 2 == 0) return 1;
    return tc_err(t, CC_DIAG_INVALID_OP, call->span, NULL, "pl.mrgsort: %s has %lld columns, not whole (value, index) pairs", slot,
                  (long long)ty->shape[1]), 0;
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

/* A dim argument: an integer constant naming axis want of a rank-rank
 * operand (counted from the end: -1 the last); what says which. */
static int ti_dim(tc *t, const char *op, const cc_ir_expr *v, int64_t want, uint32_t rank, const char *what)
{
    int64_t d;
    if (!cc_ir_const_int(v, &d))
        return tc_err(t, CC_DIAG_TYPE, v->span, NULL, "pl.%s: dim must be an integer constant", op), 0;
    if (d == want || d == (int64_t)rank + want) return 1;
    return tc_err(t, CC_DIAG_INVALID_OP, v->span, NULL, "pl.%s: dim must be %lld (%s) in this version, got %lld", op, (long long)want, what,
                  (long long)d), 0;
}

/* Is the call upstream's per-row form of pl.gather / pl.scatter: dim= or
 * index= written, or an integer second argument? */
static int ti_dim_form(const cc_expr *call)
{
    for (uint32_t k = 0; k < call->u.call.nkws; k++)
        if (!strcmp(call->u.call.kws[k].name, "dim") || !strcmp(call->u.call.kws[k].name, "index")) return 1;
    const cc_expr *d = call->u.call.nargs > 1 ? call->u.call.args[1] : NULL;
    return d && (d->kind == CC_E_INT || (d->kind == CC_E_UNARY && d->u.un.operand->kind == CC_E_INT));
}

/* pl.gather(x, mask_pattern=...) (pl.tensor.gather's mask form): pl.gather_mask. */
static int ti_mask_form(const cc_expr *call)
{
    for (uint32_t k = 0; k < call->u.call.nkws; k++)
        if (!strcmp(call->u.call.kws[k].name, "mask_pattern")) return 1;
    return 0;
}

/* mask_pattern=: 1..7 or a pl.MaskPattern (pl.tile.MaskPattern) member; -1 when reported. */
static int ti_mask_pattern(tc *t, const cc_expr *e)
{
    const cc_expr *m = tc_module_constant_ast(t, e);
    int v = tc_enum_value(t, m, "MaskPattern");
    if (v < 0 && m->kind == CC_E_ATTR && m->u.attr.value->kind == CC_E_ATTR && !strcmp(m->u.attr.value->u.attr.name, "MaskPattern") &&
        tc_pl_attr(t, m->u.attr.value->u.attr.value, "tile"))
        v = cc_pl_enum_value("MaskPattern", m->u.attr.name);
    int64_t i = v;
    if (v < 0 && (m->kind == CC_E_INT || m->kind == CC_E_NAME) && !tc_const_int(t, m, &i, "pl.gather_mask mask_pattern")) return -1;
    if (i < 1 || i > 7)
        return tc_err(t, CC_DIAG_INVALID_OP, e->span, NULL, "pl.gather_mask: mask_pattern must be 1 to 7 (a pl.tile.MaskPattern member), got %lld",
                      (long long)i), -1;
    return (int)i;
}

/* pl.gather_mask's result: [R, C / stride] of output_dtype (src's when not written; the same element size). */
static int ti_gather_mask(tc *t, const tc_args *a, cc_ir_expr *x)
{
    const cc_type *s = &x->u.op.args[0]->type;
    int p = ti_mask_pattern(t, a->v[1]), dt = s->dtype;
    if (p < 0 || (a->v[2] && (dt = tc_tile_dtype_arg(t, a->v[2], "pl.gather_mask output_dtype")) < 0)) return 0;
    if (cc_dtype_size((cc_dtype)dt) != cc_dtype_size((cc_dtype)s->dtype))
        return tc_err(t, CC_DIAG_TYPE, a->v[2]->span, NULL, "pl.gather_mask: output_dtype %s has %zu-byte elements, src %s %zu-byte ones",
                      cc_dtype_name((cc_dtype)dt), cc_dtype_size((cc_dtype)dt), ti_dt(s), cc_dtype_size((cc_dtype)s->dtype)), 0;
    int64_t stride, phase;
    cc_mask_pattern_step(p, &stride, &phase);
    if (s->shape[1] % stride)
        return tc_err(t, CC_DIAG_INVALID_OP, a->v[1]->span, NULL, "pl.gather_mask with mask_pattern=%s requires src columns divisible by %lld, got %lld",
                      cc_mask_pattern_name(p), (long long)stride, (long long)s->shape[1]), 0;
    x->u.op.mode = (uint8_t)p, x->u.op.dtype = a->v[2] ? (uint8_t)dt : 255;
    x->type = *s, x->type.dtype = (uint8_t)dt, x->type.shape[1] = s->shape[1] / stride;
    x->type.partial = x->type.partial || (s->shape[1] % stride != 0);
    return 1;
}

/* pl.tensor.gather(x, kvalue=...) (its compare form): pl.gather_compare. */
static int ti_compare_form(const cc_expr *call)
{
    for (uint32_t k = 0; k < call->u.call.nkws; k++)
        if (!strcmp(call->u.call.kws[k].name, "kvalue")) return 1;
    return 0;
}

/* cmp_mode= of pl.gather_compare: "eq".."ge" or 0..5; -1 when reported. */
static int ti_cmp_mode(tc *t, const cc_expr *e)
{
    int64_t v = -1;
    if (!e) return 0;
    if (e->kind == CC_E_STRING)
        for (int k = 0; k < 6; k++)
            if (e->u.str.len == 2 && !memcmp(e->u.str.text, cc_cmp_mode_name(k), 2)) v = k;
    if (e->kind != CC_E_STRING && !tc_const_int(t, e, &v, "pl.gather_compare cmp_mode")) return -1;
    if (v < 0 || v > 5)
        return tc_err(t, CC_DIAG_INVALID_OP, e->span, NULL, "pl.gather_compare: cmp_mode must be \"eq\", \"ne\", \"lt\", \"le\", \"gt\", \"ge\" or 0 to 5"), -1;
    return (int)v;
}

/* d, c = pl.gather_compare(src, kvalue, tmp=None, cmp_mode="eq", offset=0, out_cols=, count_dtype=pl.INT32):
 * a list of its two parts (the statement's whole value: a two-name unpacking takes them). */
static cc_ir_expr *ti_gather_compare(tc *t, const cc_expr *call)
{
    const cc_op_info *row = cc_ir_op_info(CC_IR_GATHER_COMPARE);
    tc_args a;
    if (!tc_op_bind(t, call, row->name, row->slots, row->nslots, &a) || !tc_need(t, call, row->name, &a, row->nreq, row->slots)) return NULL;
    if (t->c.whole_call != call)
        return tc_err(t, CC_DIAG_SYNTAX, call->span, "write d, c = pl.gather_compare(...)", "pl.gather_compare gives two tiles (dst, cdst): unpack them");
    cc_ir_expr *src = tc_expr(t, a.v[0]), *k = src ? tc_expr(t, a.v[1]) : NULL, *tmp = NULL;
    if (!k || !(src = tc_tile_operand(t, src, a.v[0]->span))) return NULL;
    char ty[96];
    if (src->type.kind != CC_T_TILE || src->type.rank != 2 || src->type.dtype == CC_DT_BOOL)
        return tc_err(t, CC_DIAG_TYPE, a.v[0]->span, NULL, "pl.gather_compare: src must be a rank-2 numeric tile, got %s", ti_type(src, ty, sizeof ty));
    if (k->type.kind != CC_T_SCALAR)
        return tc_err(t, CC_DIAG_TYPE, a.v[1]->span, NULL, "pl.gather_compare: kvalue must be a scalar, got %s", ti_type(k, ty, sizeof ty));
    if (!tc_scalar_fits_tile(t, "gather_compare", k, &src->type)) return NULL;
    if (a.v[2] && (!(tmp = tc_expr(t, a.v[2])) || !(tmp = tc_tile_operand(t, tmp, a.v[2]->span)))) return NULL; /* a workspace: unused here */
    int cmp = ti_cmp_mode(t, a.v[3]), dt = CC_DT_INT32;
    int64_t off = 0, oc = 0;
    if (cmp < 0 || (a.v[4] && !tc_const_int(t, a.v[4], &off, "pl.gather_compare offset"))) return NULL;
    if (!a.v[5]) return tc_err(t, CC_DIAG_TYPE, call->span, NULL, "pl.gather_compare requires out_cols= (a positive integer)");
    if (!tc_const_int(t, a.v[5], &oc, "pl.gather_compare out_cols")) return NULL;
    if (oc < 1) return tc_err(t, CC_DIAG_INVALID_OP, a.v[5]->span, NULL, "pl.gather_compare: out_cols must be positive, got %lld", (long long)oc);
    if (a.v[6] && (dt = tc_tile_dtype_arg(t, a.v[6], "pl.gather_compare count_dtype")) < 0) return NULL;
    if (dt != CC_DT_INT32 && dt != CC_DT_UINT32)
        return tc_err(t, CC_DIAG_TYPE, a.v[6]->span, NULL, "pl.gather_compare: count_dtype must be pl.INT32 or pl.UINT32, got pl.%s", cc_dtype_name((cc_dtype)dt));
    cc_ir_expr *l = cc_ir_expr_new(t->a, CC_X_LIST, call->span), **items = base_arena_alloc(t->a, 2 * sizeof *items);
    if (!l || !items) return tc_oom(t);
    for (int part = 0; part < 2; part++) {
        cc_ir_expr *x = cc_ir_op_new(t->a, CC_IR_GATHER_COMPARE, call->span);
        if (!x || (a.v[4] && !(x->u.op.args[4] = cc_ir_int(t->a, off, a.v[4]->span))) || !(x->u.op.args[5] = cc_ir_int(t->a, oc, a.v[5]->span)))
            return tc_oom(t);
        x->u.op.args[0] = src, x->u.op.args[1] = k, x->u.op.args[2] = tmp;
        x->u.op.mode = (uint8_t)(cmp | part << 3), x->u.op.dtype = a.v[6] ? (uint8_t)dt : 255;
        x->type = (cc_type){.kind = CC_T_TILE, .rank = 2, .dtype = (uint8_t)(part ? dt : CC_DT_INT32), .partial = 1};
        x->type.shape[0] = part ? 1 : src->type.shape[0], x->type.shape[1] = part ? src->type.shape[0] : oc;
        items[part] = x;
    }
    l->u.list.items = items, l->u.list.n = 2, l->type = (cc_type){.kind = CC_T_LIST};
    return l;
}

/* pl.mrgsort's two forms: block_len= alone, or src1 (src2, src3) and tmp=. */
static int ti_mrgsort_form(tc *t, const cc_expr *call, const tc_args *a)
{
    int merge = a->v[1] || a->v[2] || a->v[3] || a->v[4] || a->v[5];
    if (a->v[6] && merge)
        return tc_err(t, CC_DIAG_TYPE, call->span, NULL,
                      "pl.mrgsort: block_len= (one tile of sorted runs) and src1, ..., tmp=, exhausted= (2 to 4 sorted tiles) are two forms; pass one"), 0;
    if (!a->v[6] && !a->v[1])
        return tc_err(t, CC_DIAG_TYPE, call->span, NULL, "pl.mrgsort() needs block_len= (one tile of sorted runs) or src1 and tmp= (2 to 4 sorted tiles)"), 0;
    if (!a->v[6] && !a->v[4]) return tc_err(t, CC_DIAG_TYPE, call->span, NULL, "pl.mrgsort() missing required argument 'tmp' (the merge of 2 to 4 sorted tiles)"), 0;
    if (a->v[3] && !a->v[2]) return tc_err(t, CC_DIAG_TYPE, a->v[3]->span, NULL, "pl.mrgsort: src3 without src2"), 0;
    if (a->v[5] && a->v[5]->kind != CC_E_BOOL) return tc_err(t, CC_DIAG_SYNTAX, a->v[5]->span, NULL, "pl.mrgsort() exhausted must be a boolean literal (True/False)"), 0;
    return 1;
}

/* The 2- to 4-tile pl.mrgsort: sources of src0's dtype and tmp's row count,
 * whole pairs, that fit in tmp's columns; the result has tmp's shape. */
static int ti_merge(tc *t, const cc_expr *call, cc_ir_expr *x)
{
    cc_ir_expr *const *v = x->u.op.args;
    const cc_type *tmp = &v[4]->type;
    int64_t cols = 0;
    int partial = 0;
    for (int k = 0; k < 4; k++) {
        if (!v[k]) continue;
        static const char *const names[] = {"src0", "src1", "src2", "src3"};
        const cc_type *s = &v[k]->type;
        if (s->dtype != v[0]->type.dtype)
            return tc_err(t, CC_DIAG_TYPE, v[k]->span, NULL, "pl.mrgsort: %s is %s and src0 %s; the sources share one dtype", names[k], ti_dt(s),
                          ti_dt(&v[0]->type)), 0;
        if (!ti_pairs(t, call, names[k], s)) return 0;
        if (s->shape[0] != tmp->shape[0])
            return tc_err(t, CC_DIAG_INVALID_OP, v[k]->span, NULL, "pl.mrgsort: %s has %lld rows and tmp %lld; they must match", names[k],
                          (long long)s->shape[0], (long long)tmp->shape[0]), 0;
        cols += s->shape[1], partial |= s->partial;
    }
    if (tmp->shape[1] < cols)
        return tc_err(t, CC_DIAG_INVALID_OP, v[4]->span, NULL, "pl.mrgsort: tmp has %lld columns, fewer than the sources' %lld", (long long)tmp->shape[1],
                      (long long)cols), 0;
    x->type = *tmp, x->type.dtype = v[0]->type.dtype, x->type.partial = (uint8_t)(partial || tmp->shape[1] != cols);
    return 1;
}

/* pl.gatherb's result: [R, C x 32 / size] of output_dtype (src's when not written). */
static int ti_gatherb(tc *t, const tc_args *a, cc_ir_expr *x)
{
    cc_ir_expr *const *v = x->u.op.args;
    int dt = v[0]->type.dtype;
    if (a->v[2] && (dt = tc_tile_dtype_arg(t, a->v[2], "pl.gatherb output_dtype")) < 0) return 0;
    if (v[1]->type.dtype != CC_DT_UINT32 && v[1]->type.dtype != CC_DT_INT32)
        return tc_err(t, CC_DIAG_TYPE, v[1]->span, NULL, "pl.gatherb: offset must be UINT32 or INT32 byte offsets, got %s", ti_dt(&v[1]->type)), 0;
    x->u.op.dtype = a->v[2] ? (uint8_t)dt : 255;
    x->type = v[1]->type, x->type.dtype = (uint8_t)dt;
    x->type.shape[1] = v[1]->type.shape[1] * (int64_t)(32 / cc_dtype_size((cc_dtype)dt));
    return 1;
}

/* pl.scatter_update: input [rows, d] (or [n, b, 1, d]), index [b, s] INT32, src [b x s, d] (or [b, s, 1, d]). */
static int ti_scatter_update(tc *t, const cc_expr *call, cc_ir_expr *x)
{
    cc_ir_expr *const *v = x->u.op.args;
    const cc_type *in = &v[0]->type, *ix = &v[2]->type, *s = &v[3]->type;
    if (!ti_dim(t, "scatter_update", v[1], -2, in->rank, "the row axis")) return 0;
    if (s->dtype != in->dtype)
        return tc_err(t, CC_DIAG_TYPE, call->span, NULL, "pl.scatter_update: operand dtypes %s and %s differ; insert pl.cast", ti_dt(in), ti_dt(s)), 0;
    if (!ti_index_dtype(t, "scatter_update", "index", v[2], 1, 0, "INT32")) return 0;
    if (s->rank != in->rank || (in->rank == 4 && (in->shape[2] != 1 || s->shape[2] != 1)))
        return tc_err(t, CC_DIAG_INVALID_OP, call->span, NULL, "pl.scatter_update: input %s and src %s must both be [rows, d] or both [n, b, 1, d]",
                      tc_shape_text(t, in), tc_shape_text(t, s)), 0;
    int64_t d = in->shape[in->rank - 1], srows = s->rank == 2 ? s->shape[0] : s->shape[0] * s->shape[1];
    if (s->shape[s->rank - 1] != d)
        return tc_err(t, CC_DIAG_INVALID_OP, call->span, NULL, "pl.scatter_update: src rows have %lld elements and input rows %lld",
                      (long long)s->shape[s->rank - 1], (long long)d), 0;
    if (srows != ix->shape[0] * ix->shape[1])
        return tc_err(t, CC_DIAG_INVALID_OP, call->span, NULL, "pl.scatter_update: src has %lld rows, index %s names %lld", (long long)srows,
                      tc_shape_text(t, ix), (long long)(ix->shape[0] * ix->shape[1])), 0;
    x->type = *in;
    return 1;
}

/* An enum keyword of pl.mgather: one of names (a string literal) or its position (an int literal); -1 when reported. */
static int ti_choice(tc *t, const cc_expr *e, const char *kw, const char *const *names, int n, const char *text)
{
    if (!e) return 0;
    if (e->kind == CC_E_INT && e->u.i >= 0 && e->u.i < n) return (int)e->u.i;
    for (int k = 0; e->kind == CC_E_STRING && k < n; k++)
        if (strlen(names[k]) == e->u.str.len && !memcmp(names[k], e->u.str.text, e->u.str.len)) return k;
    tc_err(t, CC_DIAG_TYPE, e->span, NULL, "pl.mgather() %s must be %s", kw, text);
    return -1;
}

/* pl.mgather's Vec form: mem a rank-2 tile or tensor (loaded whole), idx an
 * INT32 tile; coalesce= and gather_oob= its mode; the Mat form is later. */
static int ti_mgather(tc *t, const cc_expr *call, const tc_args *a, cc_ir_expr *x)
{
    static const char *const coalesce[] = {"row", "elem"}, *const oob[] = {"undefined", "clamp", "wrap", "zero"};
    cc_ir_expr **v = x->u.op.args;
    int mem = a->v[4] ? tc_mem_arg(t, a->v[4], "mgather") : CC_MEM_Vec;
    if (mem < 0) return 0;
    if (mem != CC_MEM_Vec && mem != CC_MEM_Mat)
        return tc_err(t, CC_DIAG_INVALID_OP, a->v[4]->span, NULL, "pl.mgather target_memory= must be pl.Mem.Vec or pl.Mem.Mat, got pl.Mem.%s",
                      cc_mem_name((cc_mem)mem)), 0;
    int c = ti_choice(t, a->v[2], "coalesce", coalesce, 2, "\"row\" or \"elem\" (or 0, 1)");
    int o = c < 0 ? -1 : ti_choice(t, a->v[3], "gather_oob", oob, 4, "\"undefined\", \"clamp\", \"wrap\" or \"zero\" (or 0 to 3)");
    if (o < 0 || !ti_index_dtype(t, "mgather", "idx", v[1], 1, 0, "INT32")) return 0;
    int mat = mem == CC_MEM_Mat; /* the Mat form: a workspace for its element gather (unused here), a written region */
    if (a->v[5] && !(mat && c))
        return tc_err(t, CC_DIAG_INVALID_OP, a->v[5]->span, NULL, "pl.mgather: scratch= applies to the Mat element form only"), 0;
    if (mat && c && !a->v[5])
        return tc_err(t, CC_DIAG_INVALID_OP, call->span, NULL, "pl.mgather: the Mat element form needs scratch= (a tensor of mem's dtype)"), 0;
    if (a->v[6] && !mat) return tc_err(t, CC_DIAG_INVALID_OP, a->v[6]->span, NULL, "pl.mgather: valid_shape= applies to the Mat form only"), 0;
    if (a->v[5] && (!(v[5] = tc_expr(t, a->v[5])) || v[5]->type.kind != CC_T_TENSOR || v[5]->type.dtype != v[0]->type.dtype))
        return v[5] ? tc_err(t, CC_DIAG_TYPE, a->v[5]->span, NULL, "pl.mgather: scratch= must be a tensor of mem's dtype %s", ti_dt(&v[0]->type)), 0 : 0;
    const cc_type *ti = &v[1]->type;
    x->u.op.mode = (uint8_t)(c | o << 1);
    x->type = *ti, x->type.dtype = v[0]->type.dtype, x->type.mem = (uint8_t)mem;
    if (c) return 1;
    if (ti->shape[0] != 1 && ti->shape[1] != 1)
        return tc_err(t, CC_DIAG_INVALID_OP, v[1]->span, NULL, "pl.mgather: a row gather's idx must be [1, n] or [n, 1], got %s", tc_shape_text(t, ti)), 0;
    x->type.shape[0] = ti->shape[0] == 1 ? ti->shape[1] : ti->shape[0], x->type.shape[1] = v[0]->type.shape[1];
    x->type.partial = 1;
    return 1;
}

/* pl.mgather's Mat valid_shape=[r, c] (constants within the result's shape): the result
 * with that valid region, pl.set_validshape(x, r, c) (zeros where it grows). */
static cc_ir_expr *ti_written_region(tc *t, const cc_expr *e, cc_ir_expr *x)
{
    cc_ir_expr *l = tc_list_of(t, e, "pl.mgather valid_shape");
    if (!l) return NULL;
    int64_t r, c;
    if (l->u.list.n != 2 || !cc_ir_const_int(l->u.list.items[0], &r) || !cc_ir_const_int(l->u.list.items[1], &c) || r < 0 || c < 0 ||
        r > x->type.shape[0] || c > x->type.shape[1])
        return tc_err(t, CC_DIAG_INVALID_OP, e->span, NULL, "pl.mgather: valid_shape must be two constants within the result's shape %s",
                      tc_shape_text(t, &x->type));
    cc_ir_expr *s = cc_ir_op_new(t->a, CC_IR_SET_VALIDSHAPE, e->span);
    if (!s) return tc_oom(t);
    s->u.op.args[0] = x, s->u.op.args[1] = l->u.list.items[0], s->u.op.args[2] = l->u.list.items[1];
    s->type = x->type, s->type.partial = 1;
    return s;
}

/* pl.tensor.scatter(input, mask_pattern=, dst=) (its mask form) as pl.scatter_mask(dst, input, mask_pattern);
 * NULL when it is not that form (or out of memory: t->oom). */
static const cc_expr *ti_scatter_mask_form(tc *t, const cc_expr *call)
{
    const cc_expr *dst = NULL, *pat = NULL, *in = call->u.call.nargs ? call->u.call.args[0] : NULL;
    for (uint32_t k = 0; k < call->u.call.nkws; k++) {
        const cc_keyword *kw = &call->u.call.kws[k];
        if (!strcmp(kw->name, "dst")) dst = kw->value;
        else if (!strcmp(kw->name, "mask_pattern")) pat = kw->value;
        else if (!strcmp(kw->name, "input")) in = kw->value;
    }
    if (!pat && !dst) return NULL;
    cc_expr *c = base_arena_alloc(t->a, sizeof *c), **args = base_arena_alloc(t->a, 3 * sizeof *args);
    if (!c || !args) return tc_oom(t);
    *c = *call;
    args[0] = (cc_expr *)dst, args[1] = (cc_expr *)in, args[2] = (cc_expr *)pat;
    c->u.call.args = args, c->u.call.nargs = 3, c->u.call.kws = NULL, c->u.call.nkws = 0;
    if (!dst || !pat || !in)
        return tc_err(t, CC_DIAG_TYPE, call->span, NULL, "pl.tensor.scatter's mask form takes input, mask_pattern= and dst="), (const cc_expr *)call;
    return c;
}

/* upstream's pl.scatter_update(input, index, src, dim=-2) as (input, dim, index, src); else call itself. */
static const cc_expr *ti_update_order(tc *t, const cc_expr *call)
{
    uint32_t k = 0, n = call->u.call.nkws;
    while (k < n && strcmp(call->u.call.kws[k].name, "dim")) k++;
    if (call->u.call.nargs != 3 || k == n) return call;
    cc_expr *c = base_arena_alloc(t->a, sizeof *c);
    cc_expr **args = base_arena_alloc(t->a, 4 * sizeof *args);
    cc_keyword *kws = n > 1 ? base_arena_alloc(t->a, (n - 1) * sizeof *kws) : NULL;
    if (!c || !args || (n > 1 && !kws)) return NULL;
    *c = *call;
    args[0] = call->u.call.args[0], args[1] = call->u.call.kws[k].value, args[2] = call->u.call.args[1], args[3] = call->u.call.args[2];
    for (uint32_t j = 0, o = 0; j < n; j++)
        if (j != k) kws[o++] = call->u.call.kws[j];
    c->u.call.args = args, c->u.call.nargs = 4, c->u.call.kws = kws, c->u.call.nkws = n - 1;
    return c;
}

cc_ir_expr *tc_indexed_op(tc *t, const cc_expr *call, cc_ir_op op)
{
    if (op == CC_IR_SCATTER_UPDATE && !(call = ti_update_order(t, call))) return tc_oom(t);
    if ((op == CC_IR_GATHER || op == CC_IR_SCATTER) && ti_dim_form(call)) op = op == CC_IR_GATHER ? CC_IR_GATHER_DIM : CC_IR_SCATTER_DIM;
    if ((op == CC_IR_GATHER || op == CC_IR_GATHER_DIM) && ti_mask_form(call)) op = CC_IR_GATHER_MASK;
    if (((op == CC_IR_GATHER || op == CC_IR_GATHER_DIM) && ti_compare_form(call)) || op == CC_IR_GATHER_COMPARE) return ti_gather_compare(t, call);
    if (op == CC_IR_SCATTER_DIM || op == CC_IR_SCATTER) {
        const cc_expr *m = ti_scatter_mask_form(t, call);
        if (t->oom || (m == call && t->d->errors)) return NULL;
        if (m) call = m, op = CC_IR_SCATTER_MASK;
    }
    const cc_op_info *row = cc_ir_op_info(op);
    const char *name = row->name;
    char ty[96];
    tc_args a;
    if (!tc_op_bind(t, call, name, row->slots, row->nslots, &a) || !tc_need(t, call, name, &a, row->nreq, row->slots)) return NULL;
    if (op == CC_IR_MRGSORT && !ti_mrgsort_form(t, call, &a)) return NULL;
    cc_ir_expr *x = cc_ir_op_new(t->a, op, call->span);
    if (!x) return tc_oom(t);
    cc_ir_expr **v = x->u.op.args;
    int dim = op == CC_IR_GATHER_DIM || op == CC_IR_SCATTER_DIM || op == CC_IR_SCATTER_UPDATE ? 1 : -1;
    for (uint32_t k = 0; k < row->nslots; k++) {
        if (!a.v[k] || (op == CC_IR_GATHERB && k == 2) || (op == CC_IR_MGATHER && k >= 2) || (op == CC_IR_GATHER_MASK && k >= 1) ||
            (op == CC_IR_SCATTER_MASK && k == 2))
            continue; /* attributes */
        if (!(v[k] = tc_expr(t, a.v[k]))) return NULL;
        if ((op == CC_IR_MRGSORT && k >= 5) || (int)k == dim) {
            if (k == 6 && !ti_block_len(t, v[k])) return NULL;
            continue;
        }
        if (!(v[k] = tc_tile_operand(t, v[k], call->span))) return NULL;
        int rank4 = op == CC_IR_SCATTER_UPDATE && k != 2 && v[k]->type.rank == 4;
        if (v[k]->type.kind != CC_T_TILE || (v[k]->type.rank != 2 && !rank4))
            return tc_err(t, CC_DIAG_TYPE, v[k]->span, NULL, "pl.%s: %s must be a rank-2 tile, got %s", name, row->slots[k],
                          ti_type(v[k], ty, sizeof ty));
        if (!(op == CC_IR_GATHER && k == 2) && !(op == CC_IR_MRGSORT && k == 4) && !tc_no_bool_tile(t, name, v[k], call->span)) return NULL;
    }
    const cc_type *t0 = &v[0]->type, *t1 = v[1] && v[1]->type.kind == CC_T_TILE ? &v[1]->type : NULL;
    x->type = *t0;
    switch (op) {
    case CC_IR_GATHER:
        if (!ti_index_dtype(t, name, "indices", v[1], 1, cc_dtype_size((cc_dtype)t0->dtype) == 2, "INT32 (INT16 with a 2-byte source)")) return NULL;
        x->type = *t1, x->type.dtype = t0->dtype;
        break;
    case CC_IR_GATHER_DIM: {
        const cc_type *ti = &v[2]->type;
        if (!ti_dim(t, name, v[1], -1, 2, "the last axis")) return NULL;
        if (!ti_index_dtype(t, name, "index", v[2], 1, cc_dtype_size((cc_dtype)t0->dtype) == 2, "INT32 (INT16 with a 2-byte input)")) return NULL;
        if (ti->shape[0] != t0->shape[0])
            return tc_err(t, CC_DIAG_INVALID_OP, call->span, NULL, "pl.tensor.gather: index has %lld rows and input %lld; they must match",
                          (long long)ti->shape[0], (long long)t0->shape[0]);
        x->type = *ti, x->type.dtype = t0->dtype;
        break;
    }
    case CC_IR_SCATTER:
    case CC_IR_SCATTER_DIM: {
        int per_row = op == CC_IR_SCATTER_DIM;
        const cc_type *ts = per_row ? &v[3]->type : t1, *ti = &v[2]->type;
        const char *is = per_row ? "index" : "indexes";
        if (per_row && !ti_dim(t, name, v[1], -1, 2, "the last axis")) return NULL;
        if (ts->dtype != t0->dtype)
            return tc_err(t, CC_DIAG_TYPE, call->span, NULL, "pl.%s: operand dtypes %s and %s differ; insert pl.cast", name, ti_dt(t0), ti_dt(ts));
        int wide = cc_dtype_size((cc_dtype)t0->dtype) >= 4;
        if (!ti_index_dtype(t, name, is, v[2], wide, !wide, wide ? "INT32 for a 4- or 8-byte destination" : "INT16 for a 1- or 2-byte destination"))
            return NULL;
        if (!ti_same_shape(ti, ts))
            return tc_err(t, CC_DIAG_INVALID_OP, call->span, NULL, "pl.%s: %s %s and src %s differ in shape", name, is, tc_shape_text(t, ti),
                          tc_shape_text(t, ts));
        if (per_row && (ts->shape[0] != t0->shape[0] || ts->shape[1] > t0->shape[1]))
            return tc_err(t, CC_DIAG_INVALID_OP, call->span, NULL, "pl.tensor.scatter: src %s must have input %s's rows and no more columns",
                          tc_shape_text(t, ts), tc_shape_text(t, t0));
        break;
    }
    case CC_IR_SCATTER_UPDATE:
        if (!ti_scatter_update(t, call, x)) return NULL;
        break;
    case CC_IR_GATHERB:
        if (!ti_gatherb(t, &a, x)) return NULL;
        break;
    case CC_IR_GATHER_MASK:
        if (!ti_gather_mask(t, &a, x)) return NULL;
        break;
    case CC_IR_SCATTER_MASK: {
        int p = ti_mask_pattern(t, a.v[2]);
        int64_t stride, phase;
        if (p < 0) return NULL;
        cc_mask_pattern_step(p, &stride, &phase);
        if (t1->dtype != t0->dtype)
            return tc_err(t, CC_DIAG_TYPE, call->span, NULL, "pl.scatter_mask: operand dtypes %s and %s differ; insert pl.cast", ti_dt(t0), ti_dt(t1));
        if (t1->shape[0] != t0->shape[0] || t1->shape[1] * stride != t0->shape[1])
            return tc_err(t, CC_DIAG_INVALID_OP, call->span, NULL, "pl.scatter_mask with mask_pattern=%s: dst %s must be src %s with %lld times its columns",
                          cc_mask_pattern_name(p), tc_shape_text(t, t0), tc_shape_text(t, t1), (long long)stride);
        x->u.op.mode = (uint8_t)p, x->type.partial = 1;
        break;
    }
    case CC_IR_MGATHER:
        if (!ti_mgather(t, call, &a, x)) return NULL;
        if (a.v[6]) return ti_written_region(t, a.v[6], x); /* the Mat form's valid_shape= */
        break;
    case CC_IR_SORT32: {
        int half = t0->dtype == CC_DT_FP16;
        if (!ti_sort_values(t, name, v[0]) || !ti_index_dtype(t, name, "idx", v[1], !half, half, half ? "INT16 for FP16 values" : "INT32 for FP32 values"))
            return NULL;
        if (!ti_same_shape(t0, t1))
            return tc_err(t, CC_DIAG_INVALID_OP, call->span, NULL, "pl.sort32: src %s and idx %s differ in shape", tc_shape_text(t, t0),
                          tc_shape_text(t, t1));
        if (t0->shape[1] % 32)
            return tc_err(t, CC_DIAG_INVALID_OP, call->span, NULL, "pl.sort32: src has %lld columns, not a multiple of 32",
                          (long long)t0->shape[1]);
        x->type.shape[1] = 2 * t0->shape[1];
        x->type.partial = t0->partial || t1->partial;
        break;
    }
    case CC_IR_MRGSORT:
        if (!ti_sort_values(t, name, v[0])) return NULL;
        if (v[6] ? !ti_pairs(t, call, "src0", t0) : !ti_merge(t, call, x)) return NULL;
        break;
    default: return tc_err(t, CC_DIAG_INTERNAL, call->span, NULL, "internal error: pl.%s is not a gather, scatter or sort", name);
    }
    return tc_mem_result(x);
}

/* An integer constant argument of pl.paged_gather, at least lo; 0 when reported. */
static int ti_pg_const(tc *t, const char *slot, const cc_ir_expr *v, int64_t lo, int64_t *out)
{
    if (!cc_ir_const_int(v, out)) return tc_err(t, CC_DIAG_TYPE, v->span, NULL, "pl.paged_gather: %s must be an integer constant", slot), 0;
    if (*out < lo) return tc_err(t, CC_DIAG_INVALID_OP, v->span, NULL, "pl.paged_gather: %s must be at least %lld, got %lld", slot, (long long)lo, (long long)*out), 0;
    return 1;
}

/* pl.paged_gather(src, indices, block_table, block_size, size, max_indices,
 * space=Mat, col_off=0, is_trans=False, is_b_matrix=False): src a rank-2
 * tile or tensor (loaded whole), INT32 indices [n] or [1, n] and
 * block_table (any shape, read flat); the constants checked here; the
 * result [max_indices, size] ([size, max_indices] is_trans) of src's
 * dtype, tagged space; mode = is_trans | is_b_matrix << 1 (a hint). */
cc_ir_expr *tc_paged_gather(tc *t, const cc_expr *call)
{
    static const char *const ps[] = {"src", "indices", "block_table", "block_size", "size", "max_indices", "space", "col_off", "is_trans", "is_b_matrix"};
    static const int slot[] = {0, 1, 2, 3, 4, 5, -1, 6, -1, -1};
    tc_args a;
    char ty[96];
    if (!tc_op_bind(t, call, "paged_gather", ps, 10, &a) || !tc_need(t, call, "paged_gather", &a, 6, ps)) return NULL;
    cc_ir_expr *x = cc_ir_op_new(t->a, CC_IR_PAGED_GATHER, call->span);
    if (!x) return tc_oom(t);
    cc_ir_expr **v = x->u.op.args;
    for (int k = 0; k < 10; k++) {
        if (!a.v[k] || slot[k] < 0) continue;
        if (!(v[slot[k]] = tc_expr(t, a.v[k]))) return NULL;
        if (k >= 3) continue;
        if (!(v[k] = tc_tile_operand(t, v[k], call->span))) return NULL;
        if (k < 2 ? v[k]->type.rank != 2 && !(k == 1 && v[k]->type.rank == 1) : 0)
            return tc_err(t, CC_DIAG_TYPE, v[k]->span, NULL, "pl.paged_gather: %s must be %s, got %s", ps[k], k ? "[n] or [1, n]" : "a rank-2 pool",
                          ti_type(v[k], ty, sizeof ty));
        if (k ? !ti_index_dtype(t, "paged_gather", ps[k], v[k], 1, 0, "INT32") : !tc_no_bool_tile(t, "paged_gather", v[k], call->span)) return NULL;
    }
    const cc_type *src = &v[0]->type, *ix = &v[1]->type;
    int64_t bs, size, maxn, off = 0, n = ix->rank == 1 ? ix->shape[0] : ix->shape[1];
    if (ix->rank == 2 && ix->shape[0] != 1)
        return tc_err(t, CC_DIAG_TYPE, v[1]->span, NULL, "pl.paged_gather: indices must be [n] or [1, n], got %s", ti_type(v[1], ty, sizeof ty));
    if (!ti_pg_const(t, "block_size", v[3], 1, &bs) || !ti_pg_const(t, "size", v[4], 1, &size) || !ti_pg_const(t, "max_indices", v[5], 1, &maxn) ||
        (v[6] && !ti_pg_const(t, "col_off", v[6], 0, &off)))
        return NULL;
    if (off + size > src->shape[1])
        return tc_err(t, CC_DIAG_INVALID_OP, call->span, NULL, "pl.paged_gather: col_off %lld + size %lld exceed src's %lld columns", (long long)off,
                      (long long)size, (long long)src->shape[1]);
    if (n > maxn)
        return tc_err(t, CC_DIAG_INVALID_OP, v[5]->span, NULL, "pl.paged_gather: indices hold %lld entries, more than max_indices %lld", (long long)n,
                      (long long)maxn);
    int flags[2] = {0, 0}, space = CC_MEM_Mat;
    for (int k = 0; k < 2; k++) {
        const cc_expr *b = a.v[8 + k];
        if (b && b->kind != CC_E_BOOL) return tc_err(t, CC_DIAG_SYNTAX, b->span, NULL, "pl.paged_gather() %s must be a boolean literal (True/False)", ps[8 + k]);
        flags[k] = b && b->u.i;
    }
    if (a.v[6] && (space = tc_mem_arg(t, a.v[6], "paged_gather")) < 0) return NULL;
    if (space != CC_MEM_Mat && space != CC_MEM_Vec)
        return tc_err(t, CC_DIAG_INVALID_OP, a.v[6]->span, NULL, "pl.paged_gather: space must be pl.Mem.Mat or pl.Mem.Vec, got pl.Mem.%s", cc_mem_name((cc_mem)space));
    if (flags[0] && space != CC_MEM_Mat)
        return tc_err(t, CC_DIAG_INVALID_OP, a.v[8]->span, NULL, "pl.paged_gather: is_trans=True needs space=pl.Mem.Mat");
    x->u.op.mode = (uint8_t)(flags[0] | flags[1] << 1);
    x->type = (cc_type){.kind = CC_T_TILE, .dtype = src->dtype, .rank = 2, .partial = 1};
    x->type.shape[0] = flags[0] ? size : maxn, x->type.shape[1] = flags[0] ? maxn : size;
    x->type.mem = (uint8_t)space;
    x->type.from_tensors = v[0]->type.from_tensors && v[1]->type.from_tensors && v[2]->type.from_tensors;
    return x;
}
