/*
 * tc_create.c - the type checker's generators and views (docs/dsl.md,
 * "Creation, linear algebra and views"): pl.arange (pl.tile.ci /
 * pl.tensor.ci), pl.tri, pl.random, pl.reinterpret_view, pl.dump_tag, and
 * pl.const (a typed scalar literal, not an op).  Binding and placement are
 * tc_ops.c's; this file holds each one's checks with their exact messages
 * and its result type.
 *
 * Invariants: a generator node (CC_OPC_GENERATE) has no tile operand; its
 * scalar slots hold integer scalars (run-time values allowed), its shape
 * slot a LIST of positive constants, its valid_shape slot (tri, random) a
 * LIST of constants within the shape, or NULL; its u.op.dtype is the
 * result's dtype, its u.op.mode arange's descending, tri's upper or
 * random's rounds.  The result is tensor-level (from_tensors) for
 * pl.arange and pl.random unless spelled pl.tile.<op>.
 */
#include "compiler/tc.h"

#include <stdio.h>
#include <string.h>

#include "compiler/scalar.h"

#define TC_N(ps) ((uint32_t)(sizeof(ps) / sizeof((ps)[0])))

static int tc_flag(tc *t, const cc_expr *e, const char *op, const char *kw, int *v)
{
    *v = 0;
    if (!e) return 1;
    if (e->kind != CC_E_BOOL) return tc_err(t, CC_DIAG_TYPE, e->span, NULL, "pl.%s %s= must be True or False", op, kw), 0;
    return *v = (int)e->u.i, 1;
}

/* An integer scalar operand (a constant or a run-time value). */
static cc_ir_expr *tc_int_scalar(tc *t, const cc_expr *e, const char *op, const char *slot)
{
    cc_ir_expr *x = tc_expr(t, e);
    if (!x) return NULL;
    if (x->type.kind != CC_T_SCALAR || cc_dtype_is_float(x->type.dtype) || x->type.dtype == CC_DT_TASK_ID || x->type.dtype == CC_DT_BOOL) {
        char ty[96];
        cc_type_format(&x->type, ty, sizeof ty);
        return tc_err(t, CC_DIAG_TYPE, e->span, NULL, "pl.%s %s must be an integer scalar, got %s", op, slot, ty);
    }
    return x;
}

/* valid_shape= of a generator: one constant per axis, 0 <= v <= the shape's extent. */
static int tc_gen_valid(tc *t, const cc_expr *e, const char *op, const int64_t *ext, uint32_t n, cc_ir_expr **out)
{
    *out = NULL;
    if (!e || e->kind == CC_E_NONE) return 1;
    cc_ir_expr *v = tc_list_of(t, e, "valid_shape");
    if (!v) return 0;
    if (v->u.list.n != n)
        return tc_err(t, CC_DIAG_INVALID_OP, e->span, NULL, "pl.%s: valid_shape has %u entries for a rank-%u shape", op, v->u.list.n, n), 0;
    for (uint32_t d = 0; d < n; d++) {
        int64_t x;
        if (!cc_ir_const_int(v->u.list.items[d], &x))
            return tc_err(t, CC_DIAG_TYPE, v->u.list.items[d]->span, NULL, "pl.%s valid_shape entries must be compile-time constants", op), 0;
        if (x < 0 || x > ext[d])
            return tc_err(t, CC_DIAG_INVALID_OP, v->u.list.items[d]->span, NULL, "pl.%s: valid_shape entry %u (%lld) is outside 0 to %lld", op, d,
                          (long long)x, (long long)ext[d]), 0;
    }
    v->span = e->span;
    *out = v;
    return 1;
}

static cc_ir_expr *tc_gen_node(tc *t, cc_ir_op op, cc_span sp, int dt, const int64_t *ext, uint32_t n)
{
    cc_ir_expr *x = cc_ir_op_new(t->a, op, sp);
    if (!x) return tc_oom(t);
    x->u.op.dtype = (uint8_t)dt;
    x->type = (cc_type){.kind = CC_T_TILE, .dtype = (uint8_t)dt, .rank = (uint8_t)n, .from_tensors = (uint8_t)(op != CC_IR_TRI)};
    memcpy(x->type.shape, ext, n * sizeof ext[0]);
    return x;
}

/* pl.arange(start, shape, dtype=pl.INT32, descending=False): one row,
 * element k = start + k (start - k descending), wrapped to the dtype. */
static cc_ir_expr *tc_arange(tc *t, const cc_expr *call)
{
    static const char *const ps[] = {"start", "shape", "dtype", "descending"};
    tc_args a;
    if (!tc_op_bind(t, call, "arange", ps, TC_N(ps), &a) || !tc_need(t, call, "arange", &a, 2, ps)) return NULL;
    int64_t ext[CC_MAX_RANK] = {0};
    uint32_t n;
    cc_ir_expr *shp, *start = tc_int_scalar(t, a.v[0], "arange", "start");
    int desc, dt = CC_DT_INT32;
    if (!start || !tc_value_shape(t, a.v[1], "arange", "pl.arange", ext, &n, &shp) || !tc_flag(t, a.v[3], "arange", "descending", &desc))
        return NULL;
    for (uint32_t d = 0; d + 1 < n; d++)
        if (ext[d] != 1)
            return tc_err(t, CC_DIAG_INVALID_OP, a.v[1]->span, "write the shape as [1, N]",
                          "pl.arange fills one row: the leading extents of shape %s must be 1", tc_shape_text(t, &(cc_type){.rank = (uint8_t)n, .shape = {ext[0], ext[1], ext[2], ext[3]}}));
    if (a.v[2] && (dt = tc_dtype_arg(t, a.v[2], "pl.arange dtype")) < 0) return NULL;
    if (dt != CC_DT_INT32 && dt != CC_DT_INT16 && dt != CC_DT_UINT32 && dt != CC_DT_UINT16)
        return tc_err(t, CC_DIAG_TYPE, a.v[2]->span, NULL, "pl.arange dtype must be pl.INT32, pl.INT16, pl.UINT32 or pl.UINT16, got pl.%s",
                      cc_dtype_name((cc_dtype)dt));
    cc_ir_expr *x = tc_gen_node(t, CC_IR_ARANGE, call->span, dt, ext, n);
    if (!x) return NULL;
    x->u.op.args[0] = start, x->u.op.args[1] = shp, x->u.op.mode = (uint8_t)desc;
    return x;
}

/* pl.tri(diagonal, shape, valid_shape=None, dtype=pl.INT32, upper=False):
 * rank 2; 1 where j <= i + diagonal (upper: j >= i + diagonal), else 0,
 * over the valid region (0 outside it). */
static cc_ir_expr *tc_tri(tc *t, const cc_expr *call)
{
    static const char *const ps[] = {"diagonal", "shape", "valid_shape", "dtype", "upper"};
    tc_args a;
    if (!tc_op_bind(t, call, "tri", ps, TC_N(ps), &a) || !tc_need(t, call, "tri", &a, 2, ps)) return NULL;
    int64_t ext[CC_MAX_RANK] = {0};
    uint32_t n;
    cc_ir_expr *shp, *valid, *diag = tc_int_scalar(t, a.v[0], "tri", "diagonal");
    int upper, dt = CC_DT_INT32;
    if (!diag || !tc_value_shape(t, a.v[1], "tri", "pl.tri", ext, &n, &shp)) return NULL;
    if (n != 2) return tc_err(t, CC_DIAG_INVALID_OP, a.v[1]->span, NULL, "pl.tri needs a rank-2 shape, got %u entries", n);
    if (!tc_gen_valid(t, a.v[2], "tri", ext, n, &valid) || !tc_flag(t, a.v[4], "tri", "upper", &upper)) return NULL;
    if (a.v[3] && (dt = tc_tile_dtype_arg(t, a.v[3], "pl.tri dtype")) < 0) return NULL;
    cc_ir_expr *x = tc_gen_node(t, CC_IR_TRI, call->span, dt, ext, n);
    if (!x) return NULL;
    x->u.op.args[0] = diag, x->u.op.args[1] = shp, x->u.op.args[2] = valid, x->u.op.mode = (uint8_t)upper;
    x->type.partial = (uint8_t)(valid != NULL);
    return x;
}

/* pl.random(key0, key1, counter0..counter3, shape, valid_shape=None,
 * dtype=pl.UINT32, rounds=10): Philox4x32 (tile_generate.c), UINT32 or
 * INT32 (the same bits). */
static cc_ir_expr *tc_random(tc *t, const cc_expr *call)
{
    static const char *const ps[] = {"key0", "key1", "counter0", "counter1", "counter2", "counter3", "shape", "valid_shape", "dtype", "rounds"};
    tc_args a;
    if (!tc_op_bind(t, call, "random", ps, TC_N(ps), &a) || !tc_need(t, call, "random", &a, 7, ps)) return NULL;
    cc_ir_expr *seed[6];
    for (int k = 0; k < 6; k++)
        if (!(seed[k] = tc_int_scalar(t, a.v[k], "random", ps[k]))) return NULL;
    int64_t ext[CC_MAX_RANK] = {0}, rounds = 10;
    uint32_t n;
    cc_ir_expr *shp, *valid;
    if (!tc_value_shape(t, a.v[6], "random", "pl.random", ext, &n, &shp) || !tc_gen_valid(t, a.v[7], "random", ext, n, &valid)) return NULL;
    int dt = a.v[8] ? tc_dtype_arg(t, a.v[8], "pl.random dtype") : CC_DT_UINT32;
    if (dt < 0) return NULL;
    if (dt != CC_DT_UINT32 && dt != CC_DT_INT32)
        return tc_err(t, CC_DIAG_TYPE, a.v[8]->span, NULL, "pl.random dtype must be pl.UINT32 or pl.INT32, got pl.%s", cc_dtype_name((cc_dtype)dt));
    if (a.v[9]) {
        cc_ir_expr *r = tc_expr(t, a.v[9]);
        if (!r) return NULL;
        if (!cc_ir_const_int(r, &rounds) || (rounds != 7 && rounds != 10))
            return tc_err(t, CC_DIAG_TYPE, a.v[9]->span, NULL, "pl.random rounds= must be the constant 7 or 10");
    }
    cc_ir_expr *x = tc_gen_node(t, CC_IR_RANDOM, call->span, dt, ext, n);
    if (!x) return NULL;
    for (int k = 0; k < 6; k++) x->u.op.args[k] = seed[k];
    x->u.op.args[6] = shp, x->u.op.args[7] = valid, x->u.op.mode = (uint8_t)rounds;
    x->type.partial = (uint8_t)(valid != NULL);
    return x;
}

/* pl.reinterpret_view(data, dtype, shape=None): data's bytes read as
 * dtype in shape (default: data's with the last extent scaled by the
 * size ratio), of equal byte count; neither dtype BOOL, the two distinct. */
static cc_ir_expr *tc_reinterpret(tc *t, const cc_expr *call)
{
    static const char *const ps[] = {"data", "dtype", "shape"};
    tc_args a;
    if (!tc_op_bind(t, call, "reinterpret_view", ps, TC_N(ps), &a) || !tc_need(t, call, "reinterpret_view", &a, 2, ps)) return NULL;
    cc_ir_expr *x = tc_expr(t, a.v[0]);
    if (!x || !(x = tc_tile_operand(t, x, a.v[0]->span)) || !tc_no_bool_tile(t, "reinterpret_view", x, call->span)) return NULL;
    int dt = tc_tile_dtype_arg(t, a.v[1], "pl.reinterpret_view dtype");
    if (dt < 0) return NULL;
    cc_dtype from = (cc_dtype)x->type.dtype;
    if (dt == (int)from)
        return tc_err(t, CC_DIAG_TYPE, a.v[1]->span, NULL, "pl.reinterpret_view: dtype pl.%s is the source's own; pass another dtype",
                      cc_dtype_name(from));
    size_t fs = cc_dtype_size(from), ts = cc_dtype_size((cc_dtype)dt);
    int64_t ext[CC_MAX_RANK] = {0}, have = (int64_t)fs, want = (int64_t)ts;
    uint32_t n = x->type.rank;
    cc_ir_expr *shp = NULL;
    for (uint32_t d = 0; d < n; d++) have *= x->type.shape[d];
    if (a.v[2] && a.v[2]->kind != CC_E_NONE) {
        if (!tc_value_shape(t, a.v[2], "reinterpret_view", "pl.reinterpret_view", ext, &n, &shp)) return NULL;
        for (uint32_t d = 0; d < n; d++) want *= ext[d];
    } else {
        memcpy(ext, x->type.shape, sizeof ext);
        int64_t bytes = ext[n - 1] * (int64_t)fs;
        if (bytes % (int64_t)ts)
            return tc_err(t, CC_DIAG_INVALID_OP, call->span, "pass shape=",
                          "pl.reinterpret_view: the last extent %lld of a %s tile is not a whole number of %s elements", (long long)ext[n - 1],
                          cc_dtype_name(from), cc_dtype_name((cc_dtype)dt));
        ext[n - 1] = bytes / (int64_t)ts;
        want = have;
    }
    if (want != have)
        return tc_err(t, CC_DIAG_INVALID_OP, a.v[2]->span, NULL, "pl.reinterpret_view: shape %s of %s holds %lld bytes, the source %lld",
                      tc_shape_text(t, &(cc_type){.rank = (uint8_t)n, .shape = {ext[0], ext[1], ext[2], ext[3]}}), cc_dtype_name((cc_dtype)dt),
                      (long long)want, (long long)have);
    cc_ir_expr *r = cc_ir_op_new(t->a, CC_IR_REINTERPRET_VIEW, call->span);
    if (!r) return tc_oom(t);
    r->u.op.args[0] = x, r->u.op.args[1] = shp, r->u.op.dtype = (uint8_t)dt;
    r->type = x->type;
    r->type.dtype = (uint8_t)dt, r->type.rank = (uint8_t)n, r->type.partial = 0;
    memset(r->type.shape, 0, sizeof r->type.shape);
    memcpy(r->type.shape, ext, n * sizeof ext[0]);
    return r;
}

/* pl.dump_tag(tensor): the tensor itself (a dump marker, no effect here). */
static cc_ir_expr *tc_dump_tag(tc *t, const cc_expr *call)
{
    static const char *const ps[] = {"tensor"};
    tc_args a;
    if (!tc_op_bind(t, call, "dump_tag", ps, TC_N(ps), &a) || !tc_need(t, call, "dump_tag", &a, 1, ps)) return NULL;
    cc_ir_expr *x = tc_expr(t, a.v[0]);
    if (!x || x->type.kind == CC_T_TENSOR) return x;
    char ty[96];
    cc_type_format(&x->type, ty, sizeof ty);
    return tc_err(t, CC_DIAG_TYPE, a.v[0]->span, NULL, "pl.dump_tag expects a tensor, got %s", ty);
}

cc_ir_expr *tc_create_op(tc *t, const cc_expr *call, cc_ir_op op)
{
    switch (op) {
    case CC_IR_ARANGE: return tc_arange(t, call);
    case CC_IR_TRI: return tc_tri(t, call);
    case CC_IR_RANDOM: return tc_random(t, call);
    case CC_IR_REINTERPRET_VIEW: return tc_reinterpret(t, call);
    default: return tc_dump_tag(t, call);
    }
}

int tc_is_dump_tag(const cc_expr *call)
{
    const cc_expr *fn = call->kind == CC_E_CALL ? call->u.call.fn : NULL;
    return fn && fn->kind == CC_E_ATTR && !strcmp(fn->u.attr.name, "dump_tag");
}

/* pl.const(value, dtype): the literal in dtype; an integer dtype takes an
 * integer in its range, BOOL 0 or 1, a float dtype a number that rounds to
 * a finite value of it (rounded once). */
cc_ir_expr *tc_pl_const(tc *t, const cc_expr *call)
{
    static const char *const ps[] = {"value", "dtype"};
    tc_args a;
    if (!tc_op_bind(t, call, "const", ps, TC_N(ps), &a) || !tc_need(t, call, "const", &a, 2, ps)) return NULL;
    cc_ir_expr *v = tc_expr(t, a.v[0]);
    if (!v) return NULL;
    cc_scalar s;
    if (v->type.kind != CC_T_SCALAR || v->type.dtype == CC_DT_TASK_ID || !cc_scalar_of(v, &s))
        return tc_err(t, CC_DIAG_TYPE, a.v[0]->span, NULL, "pl.const value must be an int or float literal");
    int dt = tc_dtype_arg(t, a.v[1], "pl.const dtype");
    if (dt < 0) return NULL;
    cc_dtype from = (cc_dtype)v->type.dtype;
    if (cc_dtype_is_float(from) && !cc_dtype_is_float((cc_dtype)dt))
        return tc_err(t, CC_DIAG_TYPE, a.v[0]->span, NULL, "pl.const: float value %g for a %s constant; pass an int", s.f,
                      cc_dtype_name((cc_dtype)dt));
    if (!cc_dtype_is_float((cc_dtype)dt) && !cc_scalar_fits(from, (cc_dtype)dt, s)) {
        int64_t lo, hi;
        cc_dtype_int_range((cc_dtype)dt, &lo, &hi);
        return tc_err(t, CC_DIAG_INVALID_OP, a.v[0]->span, NULL, "pl.const: %lld is out of range for %s (%lld to %lld)", (long long)s.i,
                      cc_dtype_name((cc_dtype)dt), (long long)lo, (long long)hi);
    }
    if (cc_dtype_is_float((cc_dtype)dt) && !cc_scalar_fits(from, (cc_dtype)dt, s))
        return tc_err(t, CC_DIAG_INVALID_OP, a.v[0]->span, NULL, "pl.const: %g is past the largest finite %s", cc_dtype_is_float(from) ? s.f : (double)s.i,
                      cc_dtype_name((cc_dtype)dt));
    cc_ir_expr *c = cc_scalar_expr(t->a, (cc_dtype)dt, cc_scalar_cast(from, (cc_dtype)dt, CC_CAST_ROUND, s), call->span);
    return c ? c : tc_oom(t);
}
