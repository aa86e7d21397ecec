/*
 * tc_ops.c - the type checker's pl ops (docs/dsl.md, "Operations"): argument binding,
 * where each op may run, its result type, and the compile-time checks
 * with their exact messages (ranks, shapes, dtypes, static bounds).  The
 * op table (ops.h) gives each op's place, dtype rule and slots; binary,
 * unary, reduction and expand ops are checked from their row alone, the
 * others (load, store, cast, matmul, create_tensor) by their own code,
 * here or in tc_ops_misc.c (matmul_acc, concat, fillpad, tile.full) and
 * tc_window.c (assemble, slice).
 *
 * Invariants: a tile op node's slots hold tiles (a tensor operand in
 * kernel code becomes an explicit whole-tensor LOAD marked implicit);
 * LOAD/STORE offsets and shapes are LIST nodes of rank entries.
 */
#include "compiler/tc.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compiler/names.h"
#include "compiler/scalar.h"

#define TC_N(ps) ((uint32_t)(sizeof(ps) / sizeof((ps)[0])))

/* Binds call's arguments to the np parameter names of an op (positional
 * first, then keywords); unknown keywords: those names.h lists are
 * reported as it says, others as unexpected. */
int tc_op_bind(tc *t, const cc_expr *call, const char *op, const char *const *params, uint32_t np, tc_args *a)
{
    memset(a, 0, sizeof *a);
    if (call->u.call.nargs > np)
        return tc_err(t, CC_DIAG_TYPE, call->u.call.args[np]->span, NULL, "pl.%s() takes at most %u positional arguments, got %u", op,
                      np, call->u.call.nargs), 0;
    for (uint32_t k = 0; k < call->u.call.nargs; k++) a->v[k] = call->u.call.args[k];
    for (uint32_t k = 0; k < call->u.call.nkws; k++) {
        const cc_keyword *kw = &call->u.call.kws[k];
        uint32_t j = 0;
        while (j < np && strcmp(params[j], kw->name)) j++;
        if (j < np && !a->v[j]) {
            a->v[j] = kw->value;
            continue;
        }
        if (tc_pl_keyword_unsupported(t, op, kw)) return 0;
        return tc_err(t, CC_DIAG_TYPE, kw->name_span, NULL, "pl.%s() got an unexpected keyword argument '%s'", op, kw->name), 0;
    }
    return 1;
}

int tc_need(tc *t, const cc_expr *call, const char *op, const tc_args *a, uint32_t n, const char *const *params)
{
    for (uint32_t k = 0; k < n; k++)
        if (!a->v[k]) return tc_err(t, CC_DIAG_TYPE, call->span, NULL, "pl.%s() missing required argument '%s'", op, params[k]), 0;
    return 1;
}

const char *tc_shape_text(tc *t, const cc_type *ty)
{
    char buf[96];
    size_t len = 0;
    len += (size_t)snprintf(buf, sizeof buf, "[");
    for (unsigned d = 0; d < ty->rank && len < sizeof buf; d++)
        len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%lld", d ? ", " : "", (long long)ty->shape[d]);
    if (len < sizeof buf) snprintf(buf + len, sizeof buf - len, "]");
    const char *s = base_arena_strndup(t->a, buf, strlen(buf));
    return s ? s : "[?]";
}

/* Tile and tensor-level ops run in kernel code only. */
int tc_kernel_only(tc *t, const char *op, cc_span sp)
{
    if (t->c.plane != TC_CONTROL) return 1;
    if (t->c.host)
        return tc_err(t, CC_DIAG_INVALID_OP, sp, "put it in the @pl.jit.incore kernel a per-device @pl.jit function calls",
                      "Misplaced tile op 'pl.%s' in Host function '%s' (should be inside InCore block)", op, t->c.f->name), 0;
    cc_misplaced_op(t->d, sp, op, (cc_func_kind)t->c.f->kind, t->c.f->name);
    return 0;
}

cc_ir_expr *tc_list_of(tc *t, const cc_expr *e, const char *what)
{
    const cc_expr *named = tc_module_constant_ast(t, e);
    if (named != e && (named->kind == CC_E_LIST || named->kind == CC_E_TUPLE)) {
        cc_ir_expr *x = tc_list_of(t, named, what);
        if (x) x->span = e->span; /* diagnostics point at the use */
        return x;
    }
    if (e->kind == CC_E_NAME && tc_is_local(t, e->u.name)) { /* a local bound to a list of constants */
        cc_ir_expr *x = tc_expr(t, e);
        if (!x || x->kind == CC_X_LIST) return x;
        return tc_err(t, CC_DIAG_TYPE, e->span, "bind it once to a list of integer constants, outside any branch or loop, or write the list here",
                      "%s must be a list like [0, 0]", what);
    }
    if (e->kind != CC_E_LIST && e->kind != CC_E_TUPLE)
        return tc_err(t, CC_DIAG_TYPE, e->span, NULL, "%s must be a list like [0, 0]", what);
    cc_ir_expr *x = tc_expr(t, e);
    if (!x) return NULL;
    for (uint32_t k = 0; k < x->u.list.n; k++) {
        const cc_type *ty = &x->u.list.items[k]->type;
        if (ty->kind != CC_T_SCALAR || cc_dtype_is_float(ty->dtype) || ty->dtype == CC_DT_TASK_ID)
            return tc_err(t, CC_DIAG_TYPE, x->u.list.items[k]->span, NULL, "%s entries must be integer scalars", what);
    }
    return x;
}

cc_ir_expr *tc_tile_operand(tc *t, cc_ir_expr *x, cc_span sp)
{
    if (x->type.kind == CC_T_TILE) return x;
    if (x->type.kind != CC_T_TENSOR) {
        char ty[96];
        cc_type_format(&x->type, ty, sizeof ty);
        return tc_err(t, CC_DIAG_TYPE, x->span, NULL, "expected a tile, got %s", ty);
    }
    for (uint32_t d = 0; d < x->type.rank; d++)
        if (CC_DIM_IS_DYN(x->type.shape[d]))
            return tc_err(t, CC_DIAG_TYPE, x->span, "load a constant-shape window with pl.load(tensor, offsets, shapes)",
                          "pl.load shapes must be compile-time constants: dimension %u of this tensor is the dynamic dimension '%s'", d,
                          x->type.dyn[d] ? x->type.dyn[d] : "?");
    cc_ir_expr *ld = cc_ir_op_new(t->a, CC_IR_LOAD, sp);
    cc_ir_expr *offs = cc_ir_expr_new(t->a, CC_X_LIST, sp), *shp = cc_ir_expr_new(t->a, CC_X_LIST, sp);
    uint32_t r = x->type.rank;
    if (!ld || !offs || !shp || !(offs->u.list.items = base_arena_alloc(t->a, r * sizeof(cc_ir_expr *))) ||
        !(shp->u.list.items = base_arena_alloc(t->a, r * sizeof(cc_ir_expr *))))
        return tc_oom(t);
    offs->type = shp->type = (cc_type){.kind = CC_T_LIST};
    offs->u.list.n = shp->u.list.n = r;
    for (uint32_t d = 0; d < r; d++)
        if (!(offs->u.list.items[d] = cc_ir_int(t->a, 0, sp)) || !(shp->u.list.items[d] = cc_ir_int(t->a, x->type.shape[d], sp)))
            return tc_oom(t);
    ld->u.op.args[0] = x, ld->u.op.args[1] = offs, ld->u.op.args[2] = shp;
    ld->u.op.implicit = 1;
    ld->type = x->type;
    ld->type.kind = CC_T_TILE;
    ld->type.from_tensors = 1;
    return ld;
}

/* Offsets against a window of extents ext in a tensor: rank, negative
 * constants, constant overruns (unless clamp; ext[d] < 0: a runtime extent,
 * and a dynamic tensor dimension, checked when the task runs). */
static int tc_window(tc *t, const char *op, const cc_type *tensor, cc_ir_expr *offs, const int64_t *ext, uint32_t next,
                     int clamp, cc_span sp)
{
    uint32_t r = tensor->rank;
    if (offs->u.list.n != r || next != r)
        return tc_err(t, CC_DIAG_INVALID_OP, sp, NULL, "pl.%s: expected %u offsets and %u shape entries for a rank-%u tensor, got %u and %u",
                      op, r, r, r, offs->u.list.n, next), 0;
    for (uint32_t d = 0; d < r; d++) {
        int64_t o;
        if (!cc_ir_const_int(offs->u.list.items[d], &o)) continue;
        if (o < 0) return tc_err(t, CC_DIAG_INVALID_OP, offs->u.list.items[d]->span, NULL, "pl.%s: offset %u is negative (%lld)", op, d, (long long)o), 0;
        if (!clamp && ext[d] >= 0 && !CC_DIM_IS_DYN(tensor->shape[d]) && o > tensor->shape[d] - ext[d]) { /* o + ext[d] > shape, without overflow */
            int load = strcmp(op, "store") != 0; /* pl.load, pl.slice read */
            return tc_err(t, CC_DIAG_INVALID_OP, offs->u.list.items[d]->span, load ? "pass clamp=True to cut the read at the tensor's edge" : NULL,
                          "pl.%s %s past the end of dimension %u: offset %lld + extent %lld exceeds the %s extent %lld.", op,
                          load ? "reads" : "writes", d, (long long)o, (long long)ext[d], load ? "source" : "destination",
                          (long long)tensor->shape[d]), 0;
        }
    }
    return 1;
}

int tc_shapes(tc *t, const cc_expr *e, const char *op, int64_t *ext, uint32_t *n, cc_ir_expr **list)
{
    if (!(*list = tc_list_of(t, e, "shapes"))) return 0;
    *n = (*list)->u.list.n;
    if (*n > CC_MAX_RANK) return tc_err(t, CC_DIAG_INVALID_OP, e->span, NULL, "pl.%s: rank %u is above 4", op, *n), 0;
    for (uint32_t d = 0; d < *n; d++) {
        if (!cc_ir_const_int((*list)->u.list.items[d], &ext[d]))
            return tc_err(t, CC_DIAG_TYPE, (*list)->u.list.items[d]->span, NULL, "pl.%s shapes must be compile-time constants", op), 0;
        if (ext[d] <= 0) return tc_err(t, CC_DIAG_INVALID_OP, (*list)->u.list.items[d]->span, NULL, "pl.%s: shape entry %u must be positive, got %lld", op, d, (long long)ext[d]), 0;
    }
    return 1;
}

int tc_value_shape(tc *t, const cc_expr *e, const char *op, const char *what, int64_t *ext, uint32_t *n, cc_ir_expr **list)
{
    if (!(*list = tc_list_of(t, e, "shape"))) return 0;
    *n = (*list)->u.list.n;
    if (*n < 1 || *n > CC_MAX_RANK) return tc_err(t, CC_DIAG_INVALID_OP, e->span, NULL, "pl.%s: the shape needs 1 to 4 entries", op), 0;
    for (uint32_t d = 0; d < *n; d++)
        if (!cc_ir_const_int((*list)->u.list.items[d], &ext[d]))
            return tc_err(t, CC_DIAG_TYPE, (*list)->u.list.items[d]->span, NULL, "%s shape element %u must be a compile-time constant", what, d), 0;
    return tc_shapes(t, e, op, ext, n, list);
}

static cc_ir_expr *tc_tensor_arg(tc *t, const cc_expr *e, const char *op)
{
    cc_ir_expr *x = tc_expr(t, e);
    if (!x || x->type.kind == CC_T_TENSOR) return x;
    if (e->kind == CC_E_NAME && x->type.from_tensors && !strcmp(op, "store")) /* a tensor-level value (T-ct) */
        return tc_err(t, CC_DIAG_INVALID_OP, e->span, NULL, "pl.store: '%s' is a kernel-local tensor; write into it with pl.assemble or a subscript write",
                      e->u.name);
    if (e->kind == CC_E_NAME) return tc_err(t, CC_DIAG_TYPE, e->span, NULL, "pl.%s: '%s' is not a tensor", op, e->u.name);
    char ty[96];
    cc_type_format(&x->type, ty, sizeof ty);
    return tc_err(t, CC_DIAG_TYPE, e->span, NULL, "pl.%s expects a tensor here, got %s", op, ty);
}

static int tc_bool_kw(tc *t, const cc_expr *e, const char *what, int *v)
{
    if (!e) return *v = 0, 1;
    if (e->kind != CC_E_BOOL) return tc_err(t, CC_DIAG_TYPE, e->span, NULL, "%s must be True or False", what), 0;
    return *v = (int)e->u.i, 1;
}

cc_ir_expr *tc_load_op(tc *t, cc_span sp, const char *op, cc_ir_expr *src, cc_ir_expr *offs, cc_ir_expr *shp, const int64_t *ext,
                       cc_ir_expr *valid, int clamp, uint8_t mem)
{
    uint32_t n = shp->u.list.n;
    if (valid && valid->u.list.n != n)
        return tc_err(t, CC_DIAG_INVALID_OP, valid->span, NULL, "pl.%s: valid_shape has %u entries for a rank-%u tile", op, valid->u.list.n, n);
    int64_t reads[CC_MAX_RANK]; /* a load's bounds are its valid region (tile_load's rule: < 0 or > shape: the shape) */
    for (uint32_t d = 0; d < n; d++) {
        int64_t v;
        if (!valid) reads[d] = ext[d];
        else if (!cc_ir_const_int(valid->u.list.items[d], &v)) reads[d] = -1; /* known when the task runs */
        else reads[d] = v < 0 || v > ext[d] ? ext[d] : v;
    }
    if (!tc_window(t, op, &src->type, offs, reads, n, clamp, sp)) return NULL;
    cc_ir_expr *ld = cc_ir_op_new(t->a, CC_IR_LOAD, sp);
    if (!ld) return tc_oom(t);
    ld->u.op.args[0] = src, ld->u.op.args[1] = offs, ld->u.op.args[2] = shp, ld->u.op.args[3] = valid;
    ld->u.op.clamp = (uint8_t)clamp;
    ld->type = (cc_type){.kind = CC_T_TILE, .dtype = src->type.dtype, .rank = (uint8_t)n, .partial = (uint8_t)(clamp || valid), .mem = mem};
    memcpy(ld->type.shape, ext, n * sizeof ext[0]);
    return ld;
}

static cc_ir_expr *tc_load(tc *t, const cc_expr *call)
{
    static const char *const ps[] = {"tensor", "offsets", "shapes", "valid_shape", "target_memory", "clamp", "cache"};
    tc_args a;
    int clamp;
    cc_ir_expr *offs, *shp, *valid = NULL;
    int64_t ext[CC_MAX_RANK];
    uint32_t n;
    if (!tc_op_bind(t, call, "load", ps, TC_N(ps), &a) || !tc_need(t, call, "load", &a, 3, ps)) return NULL;
    cc_ir_expr *src = tc_tensor_arg(t, a.v[0], "load");
    if (!src || !(offs = tc_list_of(t, a.v[1], "offsets")) || !tc_shapes(t, a.v[2], "load", ext, &n, &shp) ||
        !tc_bool_kw(t, a.v[5], "clamp=", &clamp))
        return NULL;
    if (a.v[3] && !(valid = tc_list_of(t, a.v[3], "valid_shape"))) return NULL;
    if (valid) valid->span = a.v[3]->span;
    uint8_t mem = CC_MEM_Vec;
    if (a.v[4] && !tc_load_target(t, a.v[4], &mem)) return NULL;
    int cache = CC_CACHE_UNSET;
    if (a.v[6] && (cache = tc_enum_value(t, a.v[6], "CachePolicy")) < 0)
        return tc_err(t, CC_DIAG_SYNTAX, a.v[6]->span, NULL, "pl.load() cache= must be pl.CachePolicy.DEFAULT or pl.CachePolicy.BYPASS");
    cc_ir_expr *ld = tc_load_op(t, call->span, "load", src, offs, shp, ext, valid, clamp, mem);
    if (ld) ld->u.op.cache = (uint8_t)cache;
    return ld;
}

cc_ir_expr *tc_store_op(tc *t, cc_span sp, cc_ir_expr *tile, cc_ir_expr *offs, cc_ir_expr *dst, cc_ir_expr *shp, const int64_t *ext, uint32_t n)
{
    if (tile->type.dtype != dst->type.dtype)
        return tc_err(t, CC_DIAG_TYPE, sp, NULL, "pl.store: tile dtype %s does not match tensor '%s' dtype %s; insert pl.cast",
                      cc_dtype_name(tile->type.dtype), dst->kind == CC_X_VAR ? dst->u.name : "?", cc_dtype_name(dst->type.dtype));
    /* a tile whose valid region may be smaller than its shape stores only that region: its
     * bounds are checked when the task runs, where the region is known */
    if (!tile->type.partial && !tc_window(t, "store", &dst->type, offs, ext, n, 0, sp)) return NULL;
    cc_ir_expr *st = cc_ir_op_new(t->a, CC_IR_STORE, sp);
    if (!st) return tc_oom(t);
    st->u.op.args[0] = tile, st->u.op.args[1] = offs, st->u.op.args[2] = dst, st->u.op.args[3] = shp;
    st->type = dst->type;
    return st;
}

int tc_atomic_kw(tc *t, const cc_expr *e, const char *op)
{
    if (!e) return 0;
    int v = tc_enum_value(t, e, "AtomicType");
    if (v < 0) return tc_err(t, CC_DIAG_TYPE, e->span, NULL, "pl.%s atomic= must be pl.AtomicType.None_ or pl.AtomicType.Add", op), -1;
    return v;
}

int tc_atomic_dtype(tc *t, const char *op, const cc_ir_expr *tile, cc_span sp)
{
    switch (tile->type.dtype) {
    case CC_DT_FP32: case CC_DT_BF16: case CC_DT_FP16: case CC_DT_INT32: case CC_DT_INT16: case CC_DT_INT8: case CC_DT_UINT32:
    case CC_DT_UINT16: case CC_DT_UINT8: return 1;
    default:
        return tc_err(t, CC_DIAG_TYPE, sp, NULL, "pl.%s with atomic=AtomicType.Add requires an fp32/bf16/fp16/int32/int16/int8/uint32/uint16/uint8 tile, got %s", op,
                      cc_dtype_name((cc_dtype)tile->type.dtype)), 0;
    }
}

static cc_ir_expr *tc_store(tc *t, const cc_expr *call)
{
    static const char *const ps[] = {"tile", "offsets", "output_tensor", "shapes", "atomic"};
    tc_args a;
    cc_ir_expr *tile, *offs, *dst, *shp = NULL;
    if (!tc_op_bind(t, call, "store", ps, TC_N(ps), &a) || !tc_need(t, call, "store", &a, 3, ps)) return NULL;
    if (!(tile = tc_expr(t, a.v[0])) || !(tile = tc_tile_operand(t, tile, a.v[0]->span)) || !(offs = tc_list_of(t, a.v[1], "offsets")) ||
        !(dst = tc_tensor_arg(t, a.v[2], "store")))
        return NULL;
    int atomic = tc_atomic_kw(t, a.v[4], "store");
    if (atomic < 0 || (atomic && !tc_atomic_dtype(t, "store", tile, a.v[0]->span))) return NULL;
    int64_t ext[CC_MAX_RANK];
    uint32_t n = tile->type.rank;
    memcpy(ext, tile->type.shape, sizeof ext);
    if (a.v[3] && !tc_shapes(t, a.v[3], "store", ext, &n, &shp)) return NULL;
    cc_ir_expr *st = tc_store_op(t, call->span, tile, offs, dst, shp, ext, n);
    if (st) st->u.op.atomic = (uint8_t)atomic;
    return st;
}

int tc_scalar_fits_tile(tc *t, const char *op, cc_ir_expr *s, const cc_type *tile)
{
    if (s->type.dtype == CC_DT_TASK_ID) return tc_err(t, CC_DIAG_TYPE, s->span, NULL, "a TaskId can only be passed in deps="), 0;
    if (cc_dtype_is_float(s->type.dtype) && !cc_dtype_is_float(tile->dtype)) {
        char v[64] = "value";
        if (s->kind == CC_X_FLOAT) snprintf(v, sizeof v, "%g", s->u.f);
        return tc_err(t, CC_DIAG_TYPE, s->span, NULL, "pl.%s: float scalar %s with an %s tile; cast the tile first", op, v,
                      cc_dtype_name(tile->dtype)), 0;
    }
    return 1;
}

int tc_no_bool_tile(tc *t, const char *op, const cc_ir_expr *x, cc_span sp)
{
    if (x->type.kind != CC_T_TILE || x->type.dtype != CC_DT_BOOL) return 1;
    return tc_err(t, CC_DIAG_TYPE, sp, NULL, "pl.%s does not accept BOOL tiles; cast first", op), 0;
}

int tc_op_dtypes(tc *t, const cc_op_info *row, uint8_t dt, cc_span sp)
{
    if (dt == CC_DT_BOOL) return tc_err(t, CC_DIAG_TYPE, sp, NULL, "pl.%s does not accept BOOL tiles; cast first", row->name), 0;
    int fl = cc_dtype_is_float((cc_dtype)dt);
    if ((row->dtypes == CC_OPD_FLOAT && !fl) || (row->dtypes == CC_OPD_INT && fl))
        return tc_err(t, CC_DIAG_TYPE, sp, NULL, "pl.%s requires a%s tile, got %s", row->name, fl ? "n integer" : " floating-point",
                      cc_dtype_name((cc_dtype)dt)), 0;
    return 1;
}

/* T-ew's broadcast (DSL-V2-SPEC §1.2): two tensor-level rank-2 operands,
 * one [M, 1] and the other [M, N]: 1 the right one is the vector, 2 the
 * left one, 0 neither. */
static int tc_column_vector_pair(const cc_ir_expr *l, const cc_ir_expr *r)
{
    const cc_type *a = &l->type, *b = &r->type;
    if (!a->from_tensors || !b->from_tensors || a->rank != 2 || b->rank != 2 || a->shape[0] != b->shape[0]) return 0;
    return b->shape[1] == 1 ? 1 : a->shape[1] == 1 ? 2 : 0;
}

/* l <op> r with the column vector (side vec, as tc_column_vector_pair)
 * broadcast across the columns: pl.row_expand_<op>(l, r) for a vector on
 * the right; otherwise (a vector on the left: sub and div do not commute)
 * the vector expanded to the other operand's shape first (pl.row_expand),
 * then the op on equal shapes.
 * The valid region is the [M, N] operand's. */
static cc_ir_expr *tc_broadcast_binary(tc *t, cc_ir_op op, cc_ir_expr *l, cc_ir_expr *r, int vec, cc_span sp)
{
    static const struct { cc_ir_op bin, expand; } rows[] = {
        {CC_IR_ADD, CC_IR_ROW_EXPAND_ADD}, {CC_IR_SUB, CC_IR_ROW_EXPAND_SUB}, {CC_IR_MUL, CC_IR_ROW_EXPAND_MUL},
        {CC_IR_DIV, CC_IR_ROW_EXPAND_DIV}, {CC_IR_MAXIMUM, CC_IR_ROW_EXPAND_MAX}, {CC_IR_MINIMUM, CC_IR_ROW_EXPAND_MIN}};
    for (size_t k = 0; vec == 1 && k < sizeof rows / sizeof rows[0]; k++)
        if (rows[k].bin == op) return tc_mem_result(tc_tile_expand(t, rows[k].expand, l, r, sp));
    cc_ir_expr *wide = tc_mem_result(vec == 1 ? tc_tile_expand(t, CC_IR_ROW_EXPAND, l, r, sp) : tc_tile_expand(t, CC_IR_ROW_EXPAND, r, l, sp));
    return wide ? (vec == 1 ? tc_tile_binary(t, op, l, wide, sp) : tc_tile_binary(t, op, wide, r, sp)) : NULL;
}

cc_ir_expr *tc_tile_binary(tc *t, cc_ir_op op, cc_ir_expr *l, cc_ir_expr *r, cc_span sp)
{
    const cc_op_info *row = cc_ir_op_info(op);
    const char *name = row->name;
    if (!tc_kernel_only(t, name, sp)) return NULL;
    if (l->type.kind == CC_T_SCALAR && (r->type.kind == CC_T_TILE || r->type.kind == CC_T_TENSOR))
        return tc_err(t, CC_DIAG_INVALID_OP, sp, NULL, "pl.%s: the scalar operand must be on the right", name);
    if (!(l = tc_tile_operand(t, l, sp)) || !tc_op_dtypes(t, row, l->type.dtype, sp)) return NULL;
    /* lrelu's slope is a scalar; prelu's slope and the part ops' rhs are tiles */
    int want_tile = op == CC_IR_PRELU || op == CC_IR_PART_ADD || op == CC_IR_PART_MUL || op == CC_IR_PART_MAX || op == CC_IR_PART_MIN;
    if ((op == CC_IR_LRELU && r->type.kind != CC_T_SCALAR) || (want_tile && r->type.kind == CC_T_SCALAR)) {
        char ty[96];
        cc_type_format(&r->type, ty, sizeof ty);
        return tc_err(t, CC_DIAG_TYPE, r->span, NULL, "pl.%s: %s must be a %s, got %s", name, row->slots[1], want_tile ? "tile" : "scalar", ty);
    }
    int64_t count;
    if ((op == CC_IR_SHL || op == CC_IR_SHR) && cc_ir_const_int(r, &count) && count < 0)
        return tc_err(t, CC_DIAG_INVALID_OP, r->span, NULL, "pl.%s: shift count %lld is negative", name, (long long)count);
    if (r->type.kind == CC_T_SCALAR) {
        if (!tc_scalar_fits_tile(t, name, r, &l->type)) return NULL;
    } else {
        if (!(r = tc_tile_operand(t, r, sp))) return NULL;
        if (l->type.dtype != r->type.dtype)
            return tc_err(t, CC_DIAG_TYPE, sp, NULL, "pl.%s: operand dtypes %s and %s differ; insert pl.cast", name,
                          cc_dtype_name(l->type.dtype), cc_dtype_name(r->type.dtype));
        if (!cc_type_equal(&l->type, &r->type)) {
            int vec = tc_column_vector_pair(l, r);
            if (vec) return tc_broadcast_binary(t, op, l, r, vec, sp);
            return tc_err(t, CC_DIAG_INVALID_OP, sp, NULL, "pl.%s: operand shapes %s and %s differ", name, tc_shape_text(t, &l->type),
                          tc_shape_text(t, &r->type));
        }
    }
    cc_ir_expr *x = cc_ir_op_new(t->a, op, sp);
    if (!x) return tc_oom(t);
    x->u.op.args[0] = l, x->u.op.args[1] = r, x->type = l->type;
    x->type.partial = l->type.partial || (r->type.kind == CC_T_TILE && r->type.partial);
    return tc_mem_result(x);
}

cc_ir_expr *tc_tile_unary(tc *t, cc_ir_op op, cc_ir_expr *x, cc_span sp)
{
    const cc_op_info *row = cc_ir_op_info(op);
    int reduce = row->cls == CC_OPC_ROW_REDUCE || row->cls == CC_OPC_COL_REDUCE;
    if (!tc_kernel_only(t, row->name, sp) || !(x = tc_tile_operand(t, x, sp)) || !tc_op_dtypes(t, row, x->type.dtype, sp)) return NULL;
    if (reduce && x->type.rank != 2)
        return tc_err(t, CC_DIAG_INVALID_OP, sp, NULL, "pl.%s requires a rank-2 tile, got rank %u", row->name, x->type.rank);
    cc_ir_expr *u = cc_ir_op_new(t->a, op, sp);
    if (!u) return tc_oom(t);
    u->u.op.args[0] = x, u->type = x->type;
    u->type.dtype = cc_ir_op_result_dtype(op, x->type.dtype);
    if (reduce) u->type.shape[row->cls == CC_OPC_ROW_REDUCE ? 1 : 0] = 1; /* [R, 1] or [1, C] */
    return tc_mem_result(u);
}


/* An optional slot: of a unary op a hint (a boolean literal, kept as
 * written), of pl.cmp the cmp_type (an integer constant 0..5, also the
 * node's mode), of the others a scratch tile (unused). */
static cc_ir_expr *tc_optional_slot(tc *t, const cc_op_info *row, uint32_t k, const cc_expr *e, cc_ir_expr *node)
{
    if (row->cls == CC_OPC_UNARY && e->kind != CC_E_BOOL)
        return tc_err(t, CC_DIAG_SYNTAX, e->span, NULL, "pl.%s() %s must be a boolean literal (True/False)", row->name, row->slots[k]);
    cc_ir_expr *y = tc_expr(t, e);
    int64_t mode;
    if (y && node->u.op.op == CC_IR_CMP) {
        if (!cc_ir_const_int(y, &mode) || mode < 0 || mode > 5)
            return tc_err(t, CC_DIAG_TYPE, e->span, NULL, "pl.cmp cmp_type must be an integer constant from 0 (eq) to 5 (ge)");
        node->u.op.mode = (uint8_t)mode;
        return y;
    }
    return y && row->cls != CC_OPC_UNARY ? tc_tile_operand(t, y, e->span) : y;
}

/* A binary, unary, reduction or expand op called by name: its row's slots. */
static cc_ir_expr *tc_elementwise(tc *t, const cc_expr *call, cc_ir_op op)
{
    const cc_op_info *row = cc_ir_op_info(op);
    tc_args a;
    if (!tc_op_bind(t, call, row->name, row->slots, row->nslots, &a) || !tc_need(t, call, row->name, &a, row->nreq, row->slots))
        return NULL;
    cc_ir_expr *x = tc_expr(t, a.v[0]), *y;
    if (!x) return NULL;
    if (row->cls == CC_OPC_EXPANDS) return (y = tc_expr(t, a.v[1])) ? tc_tile_expands(t, x, y, call->span) : NULL;
    if (row->cls == CC_OPC_BROADCAST) return (y = tc_expr(t, a.v[1])) ? tc_broadcast(t, op, x, y, call->span) : NULL;
    if (row->cls == CC_OPC_ROW_EXPAND || row->cls == CC_OPC_COL_EXPAND)
        return (y = tc_expr(t, a.v[1])) ? tc_tile_expand(t, op, x, y, call->span) : NULL;
    cc_ir_expr *u = row->cls != CC_OPC_BINARY ? tc_tile_unary(t, op, x, call->span)
                    : (y = tc_expr(t, a.v[1])) ? tc_tile_binary(t, op, x, y, call->span) : NULL;
    if (u && u->kind == CC_X_OP && u->u.op.op != (uint8_t)op) return u; /* a tensor-level broadcast: no optional slot */
    for (uint32_t k = row->nreq; u && k < row->nslots; k++)
        if (a.v[k] && !(u->u.op.args[k] = tc_optional_slot(t, row, k, a.v[k], u))) return NULL;
    return u;
}

static cc_ir_expr *tc_cast(tc *t, const cc_expr *call)
{
    static const char *const ps[] = {"x", "target_type", "mode"};
    tc_args a;
    if (!tc_op_bind(t, call, "cast", ps, TC_N(ps), &a) || !tc_need(t, call, "cast", &a, 2, ps)) return NULL;
    cc_ir_expr *x = tc_expr(t, a.v[0]);
    int dt = x ? tc_dtype_arg(t, a.v[1], "pl.cast target_type") : -1;
    if (dt < 0) return NULL;
    int mode = CC_CAST_ROUND;
    if (a.v[2]) {
        if (a.v[2]->kind != CC_E_STRING)
            return tc_err(t, CC_DIAG_SYNTAX, a.v[2]->span, NULL, "pl.cast mode must be one of 'round', 'rint', 'floor', 'ceil', 'trunc', 'odd', 'none'");
        const char *m = a.v[2]->u.str.text;
        uint32_t ml = a.v[2]->u.str.len;
        mode = -1;
        for (int k = CC_CAST_ROUND; k <= CC_CAST_ODD; k++)
            if (strlen(cc_cast_mode_name((cc_cast_mode)k)) == ml && !memcmp(cc_cast_mode_name((cc_cast_mode)k), m, ml)) mode = k;
        if (mode < 0 && ml == 4 && !memcmp(m, "none", 4)) mode = CC_CAST_ROUND; /* upstream's unspecified mode: the default */
        if (mode < 0)
            return tc_err(t, CC_DIAG_SYNTAX, a.v[2]->span, NULL, "pl.cast mode must be one of 'round', 'rint', 'floor', 'ceil', 'trunc', 'odd', 'none'");
    }
    if (x->type.kind == CC_T_SCALAR) {
        if (mode != CC_CAST_ROUND) return tc_err(t, CC_DIAG_TYPE, a.v[2]->span, NULL, "pl.cast of a scalar takes no mode=");
        cc_scalar v;
        if (cc_scalar_of(x, &v)) { /* a constant folds, unless to inf or NaN, which have no literal */
            v = cc_scalar_cast((cc_dtype)x->type.dtype, (cc_dtype)dt, (cc_cast_mode)mode, v);
            if (!cc_dtype_is_float((cc_dtype)dt) || isfinite(v.f)) {
                cc_ir_expr *c = cc_scalar_expr(t->a, (cc_dtype)dt, v, call->span);
                return c ? c : tc_oom(t);
            }
        }
    } else if (!tc_kernel_only(t, "cast", call->span) || !(x = tc_tile_operand(t, x, call->span))) {
        return NULL;
    }
    cc_ir_expr *c = cc_ir_op_new(t->a, CC_IR_CAST, call->span);
    if (!c) return tc_oom(t);
    c->u.op.args[0] = x, c->u.op.dtype = (uint8_t)dt, c->u.op.mode = (uint8_t)mode;
    c->type = x->type;
    c->type.dtype = (uint8_t)dt;
    return c;
}

static cc_ir_expr *tc_matmul(tc *t, const cc_expr *call)
{
    static const char *const ps[] = {"lhs", "rhs", "out_dtype", "a_trans", "b_trans", "c_matrix_nz"};
    tc_args a;
    if (!tc_op_bind(t, call, "matmul", ps, TC_N(ps), &a) || !tc_need(t, call, "matmul", &a, 2, ps)) return NULL;
    int flag[6] = {0};
    for (int k = 3; k < 6; k++) {
        if (!tc_bool_kw(t, a.v[k], ps[k], &flag[k])) return NULL;
        for (uint32_t j = 0; k == 5 && flag[k] && j < call->u.call.nkws; j++) /* c_matrix_nz=True: names.h's keyword row */
            if (call->u.call.kws[j].value == a.v[k] && tc_pl_keyword_unsupported(t, "matmul", &call->u.call.kws[j])) return NULL;
    }
    cc_ir_expr *l = tc_expr(t, a.v[0]), *r = l ? tc_expr(t, a.v[1]) : NULL;
    if (!r || !(l = tc_tile_operand(t, l, a.v[0]->span)) || !(r = tc_tile_operand(t, r, a.v[1]->span)) ||
        !tc_no_bool_tile(t, "matmul", l, call->span) || !tc_no_bool_tile(t, "matmul", r, call->span))
        return NULL;
    if (l->type.from_tensors && r->type.from_tensors) return tc_tensor_matmul(t, call, l, r, a.v[2], a.v[3], a.v[4]);
    for (int k = 3; k < 5; k++) /* v1's tile matmul */
        if (flag[k])
            return tc_err(t, CC_DIAG_TYPE, a.v[k]->span, NULL, "pl.matmul: %s=True is not supported for Tile operands; use pl.tile.transpose_view",
                          ps[k]);
    cc_type prod;
    if (!tc_matmul_shape(t, l, r, &prod, call->span)) return NULL;
    cc_dtype deduced;
    if (!tc_mm_dtypes(t, "matmul", l, r, call->span, &deduced)) return NULL;
    cc_ir_expr *m = cc_ir_op_new(t->a, CC_IR_MATMUL, call->span);
    if (!m) return tc_oom(t);
    if (a.v[2]) {
        int od = tc_dtype_arg(t, a.v[2], "pl.matmul out_dtype");
        if (od < 0) return NULL;
        if (od != (int)deduced)
            return tc_err(t, CC_DIAG_TYPE, a.v[2]->span, NULL,
                          "pl.matmul: out_dtype=%s is not supported for Tile operands — the result dtype is deduced as %s",
                          cc_dtype_name((cc_dtype)od), cc_dtype_name((cc_dtype)deduced));
        m->u.op.dtype = (uint8_t)od;
    }
    m->u.op.args[0] = l, m->u.op.args[1] = r;
    m->type = prod;
    m->type.dtype = (uint8_t)deduced;
    return m;
}

/* init_value=: a number (an int, or a float for a float tensor) that every
 * element gets when the tensor is allocated. */
static cc_ir_expr *tc_create_tensor_init(tc *t, const cc_expr *e, cc_dtype dt)
{
    cc_ir_expr *v = tc_expr(t, e);
    if (!v) return NULL;
    if (v->type.kind != CC_T_SCALAR || v->type.dtype == CC_DT_TASK_ID || v->type.dtype == CC_DT_BOOL)
        return tc_err(t, CC_DIAG_TYPE, e->span, NULL, "pl.create_tensor init_value= must be an int or float scalar");
    if (cc_dtype_is_float(v->type.dtype) && !cc_dtype_is_float(dt))
        return tc_err(t, CC_DIAG_TYPE, e->span, NULL, "pl.create_tensor: a float init_value= for an %s tensor; pass an int",
                      cc_dtype_name(dt));
    return v;
}

/* pl.create_tensor(shape, dtype) in kernel code (T-ct): a kernel-local
 * tensor-level value of zeros, fully valid: a CREATE_TILE marked
 * from_tensors; manual_dep= and init_value= are orchestration's. */
static cc_ir_expr *tc_local_tensor(tc *t, const cc_expr *call, const tc_args *a)
{
    for (int k = 3; k < 5; k++)
        if (a->v[k])
            return tc_err(t, CC_DIAG_INVALID_OP, a->v[k]->span, "start from pl.full(shape, dtype=..., value=...)",
                          "pl.create_tensor(%s=...) is not allowed in kernel code (%s)", k == 3 ? "manual_dep" : "init_value",
                          tc_where(t));
    if (a->v[2] && tc_pl_hardware(t, a->v[2])) return NULL;
    if (a->v[2]) return tc_err(t, CC_DIAG_UNSUPPORTED, a->v[2]->span, NULL, "a layout other than pl.ND is not supported in this version");
    int64_t ext[CC_MAX_RANK];
    uint32_t n;
    cc_ir_expr *shp;
    if (!tc_value_shape(t, a->v[0], "create_tensor", "pl.create_tensor in kernel code:", ext, &n, &shp)) return NULL;
    int dt = tc_tile_dtype_arg(t, a->v[1], "pl.create_tensor dtype");
    if (dt < 0) return NULL;
    cc_ir_expr *c = cc_ir_op_new(t->a, CC_IR_CREATE_TILE, call->span);
    if (!c) return tc_oom(t);
    c->u.op.args[0] = shp, c->u.op.dtype = (uint8_t)dt;
    c->type = (cc_type){.kind = CC_T_TILE, .dtype = (uint8_t)dt, .rank = (uint8_t)n, .from_tensors = 1};
    memcpy(c->type.shape, ext, n * sizeof ext[0]);
    return c;
}

static cc_ir_expr *tc_create_tensor(tc *t, const cc_expr *call)
{
    static const char *const ps[] = {"shape", "dtype", "layout", "manual_dep", "init_value"};
    tc_args a;
    if (!tc_op_bind(t, call, "create_tensor", ps, TC_N(ps), &a) || !tc_need(t, call, "create_tensor", &a, 2, ps)) return NULL;
    if (t->c.plane == TC_KERNEL) return tc_local_tensor(t, call, &a);
    int manual;
    if (!tc_bool_kw(t, a.v[3], "manual_dep=", &manual)) return NULL;
    const char *layout = a.v[2] && a.v[2]->kind == CC_E_ATTR && a.v[2]->u.attr.value->kind == CC_E_NAME ? tc_pl_attr(t, a.v[2], NULL) : NULL;
    if (a.v[2] && tc_pl_hardware(t, a.v[2])) return NULL;
    if (a.v[2] && !(layout && !strcmp(layout, "ND")))
        return tc_err(t, CC_DIAG_UNSUPPORTED, a.v[2]->span, NULL, "a layout other than pl.ND is not supported in this version");
    cc_ir_expr *shp = tc_list_of(t, a.v[0], "shapes");
    if (!shp) return NULL;
    uint32_t n = shp->u.list.n;
    if (n > CC_MAX_RANK) return tc_err(t, CC_DIAG_INVALID_OP, a.v[0]->span, NULL, "pl.create_tensor: rank %u is above 4", n);
    if (n < 1) return tc_err(t, CC_DIAG_INVALID_OP, a.v[0]->span, NULL, "pl.create_tensor: the shape needs 1 to 4 entries");
    int64_t ext[CC_MAX_RANK];
    const char *dyn[CC_MAX_RANK] = {0};
    for (uint32_t d = 0; d < n; d++) /* constants, or run-time extents (DY) */
        if (!tc_extent_dim(t, shp->u.list.items[d], "create_tensor", d, &ext[d], &dyn[d])) return NULL;
    int dt = tc_tensor_dtype_arg(t, a.v[1], "pl.create_tensor dtype");
    if (dt < 0) return NULL;
    cc_ir_expr *init = a.v[4] ? tc_create_tensor_init(t, a.v[4], (cc_dtype)dt) : NULL;
    if (a.v[4] && !init) return NULL;
    cc_ir_expr *c = cc_ir_op_new(t->a, CC_IR_CREATE_TENSOR, call->span);
    if (!c) return tc_oom(t);
    c->u.op.args[0] = shp, c->u.op.args[1] = init, c->u.op.dtype = (uint8_t)dt;
    c->u.op.mode = (uint8_t)manual; /* manual_dep=True (D-md): every view of it is NO_DEP */
    c->type = (cc_type){.kind = CC_T_TENSOR, .dtype = (uint8_t)dt, .rank = (uint8_t)n};
    memcpy(c->type.shape, ext, n * sizeof ext[0]);
    memcpy(c->type.dyn, dyn, n * sizeof dyn[0]);
    return c;
}

/* A spelling that requires a scalar right operand (pl.rems, pl.tile.adds):
 * x's second slot must hold one; construct names the spelling. */
static cc_ir_expr *tc_scalar_rhs(tc *t, cc_ir_expr *x, const char *construct)
{
    if (!x || x->kind != CC_X_OP || !x->u.op.args[1] || x->u.op.args[1]->type.kind == CC_T_SCALAR) return x;
    const cc_ir_expr *r = x->u.op.args[1];
    if (r->kind == CC_X_OP && r->u.op.op == CC_IR_LOAD && r->u.op.implicit) r = r->u.op.args[0]; /* the tensor written */
    char ty[96];
    cc_type_format(&r->type, ty, sizeof ty);
    return tc_err(t, CC_DIAG_TYPE, r->span, NULL, "%s expects a scalar right operand, got %s", construct, ty);
}

cc_ir_expr *tc_pl_call(tc *t, const cc_expr *call, const char *name)
{
    int scalar_rhs, op = cc_ir_op_lookup(name);
    if (op < 0 && (op = cc_ir_op_lookup_alias(name, &scalar_rhs)) >= 0) { /* pl.rems: pl.rem with a scalar on the right */
        char construct[96];
        snprintf(construct, sizeof construct, "%s.%s", t->pl, name);
        cc_ir_expr *x = tc_pl_call(t, call, cc_ir_op_name((cc_ir_op)op));
        return scalar_rhs ? tc_scalar_rhs(t, x, construct) : x;
    }
    if (op >= 0) {
        const cc_op_info *row = cc_ir_op_info((cc_ir_op)op);
        if ((op == CC_IR_RESHAPE || op == CC_IR_TRANSPOSE || op == CC_IR_REINTERPRET_VIEW) && t->c.plane == TC_CONTROL) /* a tensor view: a later package */
            return tc_err(t, CC_DIAG_UNSUPPORTED, call->span, NULL, "pl.%s of a Tensor is not supported in this version", name);
        if (op == CC_IR_ASSEMBLE || op == CC_IR_SLICE) return tc_window_op(t, call, (cc_ir_op)op); /* their own placement */
        if (row->where == CC_OPW_KERNEL && !tc_kernel_only(t, name, call->span)) return NULL;
        if (row->where == CC_OPW_ORCH && t->c.plane == TC_KERNEL && op != CC_IR_CREATE_TENSOR) {
            char what[64];
            snprintf(what, sizeof what, "pl.%s", name);
            return tc_control_in_kernel(t, call->span, what);
        }
        switch (op) {
        case CC_IR_LOAD: return tc_load(t, call);
        case CC_IR_STORE: return tc_store(t, call);
        case CC_IR_CAST: return tc_cast(t, call);
        case CC_IR_MATMUL: return tc_matmul(t, call);
        case CC_IR_CREATE_TENSOR: return t->c.host ? tc_host_forbidden(t, call->span, "pl.create_tensor") : tc_create_tensor(t, call);
        case CC_IR_MATMUL_ACC: case CC_IR_CONCAT: case CC_IR_FILLPAD: case CC_IR_FULL: case CC_IR_RESHAPE:
        case CC_IR_TRANSPOSE_VIEW: case CC_IR_TRANSPOSE: case CC_IR_FILLPAD_EXPAND: case CC_IR_SET_VALIDSHAPE:
            return tc_misc_op(t, call, (cc_ir_op)op);
        case CC_IR_MOVE: case CC_IR_CREATE_TILE: return tc_mem_op(t, call, (cc_ir_op)op);
        case CC_IR_READ: case CC_IR_WRITE: return tc_elem_op(t, call, (cc_ir_op)op);
        case CC_IR_GET_BLOCK_IDX: case CC_IR_GET_BLOCK_NUM: return tc_block_op(t, call, op);
        case CC_IR_SEL: case CC_IR_SELS: case CC_IR_ADDC: case CC_IR_SUBC: return tc_ternary_op(t, call, (cc_ir_op)op);
        case CC_IR_ARANGE: case CC_IR_TRI: case CC_IR_RANDOM: case CC_IR_REINTERPRET_VIEW: case CC_IR_DUMP_TAG:
            return tc_create_op(t, call, (cc_ir_op)op);
        case CC_IR_MATMUL_BIAS: case CC_IR_BATCH_MATMUL: case CC_IR_GEMV: case CC_IR_GEMV_ACC: case CC_IR_GEMV_BIAS:
            return tc_linalg_op(t, call, (cc_ir_op)op);
        case CC_IR_GATHER: case CC_IR_SCATTER: case CC_IR_SORT32: case CC_IR_MRGSORT: case CC_IR_GATHER_DIM: case CC_IR_SCATTER_DIM:
        case CC_IR_SCATTER_UPDATE: case CC_IR_GATHERB: case CC_IR_MGATHER: case CC_IR_GATHER_MASK: case CC_IR_GATHER_COMPARE:
        case CC_IR_SCATTER_MASK:
            return tc_indexed_op(t, call, (cc_ir_op)op);
        case CC_IR_PAGED_GATHER: return tc_paged_gather(t, call);
        default: return tc_elementwise(t, call, (cc_ir_op)op);
        }
    }
    if (!strcmp(name, "full")) return tc_tensor_full(t, call);
    if (!strcmp(name, "gather_row")) return tc_gather_row(t, call);
    if (!strcmp(name, "create_l1")) return tc_create_l1(t, call);
    if (!strcmp(name, "mscatter")) return tc_mscatter(t, call);
    if (!strcmp(name, "const")) return tc_pl_const(t, call);
    if (!strcmp(name, "get_subblock_idx")) return tc_block_op(t, call, -1);
    if (!strcmp(name, "range") || !strcmp(name, "parallel") || !strcmp(name, "pipeline") || !strcmp(name, "unroll") || !strcmp(name, "while_"))
        return tc_err(t, CC_DIAG_SYNTAX, call->span, NULL, "pl.%s(...) can only be iterated by a for loop", name);
    if (!strcmp(name, "spmd"))
        return tc_err(t, CC_DIAG_SYNTAX, call->span, NULL, "pl.spmd(...) is only valid as a for loop's iterable or the item of a with statement");
    if (!strcmp(name, "yield_"))
        return tc_err(t, CC_DIAG_SYNTAX, call->span, NULL, "pl.yield_(...) must end a loop with init_values or an if/else branch");
    if (!strcmp(name, "cond")) return tc_err(t, CC_DIAG_SYNTAX, call->span, NULL, "pl.cond() must be the first statement of a pl.while_ body");
    if (!strcmp(name, "at") || !strcmp(name, "scope") || !strcmp(name, "manual_scope") || !strcmp(name, "cluster"))
        return tc_err(t, CC_DIAG_SYNTAX, call->span, NULL, "pl.%s(...) is only valid as the item of a with statement", name);
    if (!strcmp(name, "set_cache_policy"))
        return tc_err(t, CC_DIAG_SYNTAX, call->span, NULL,
                      "pl.set_cache_policy() must be a standalone statement directly inside a pl.at(...) / pl.spmd(...) scope body");
    return tc_err(t, CC_DIAG_TYPE, call->span, NULL, "pl.%s cannot be called in kernel code", name);
}

/* An operand that breaks pl.<ns>.<spelling>'s restriction: a Tensor
 * (loaded implicitly, or pl.tile.read's own) under pl.tile, a Tile under pl.tensor. */
static const cc_ir_expr *tc_namespace_misfit(cc_op_namespace ns, cc_ir_op op, const cc_ir_expr *arg)
{
    if (ns == CC_OPNS_TILE && op == CC_IR_READ) return arg->type.kind == CC_T_TENSOR ? arg : NULL;
    if (ns == CC_OPNS_TILE) return arg->kind == CC_X_OP && arg->u.op.op == CC_IR_LOAD && arg->u.op.implicit ? arg->u.op.args[0] : NULL;
    return arg->type.kind == CC_T_TILE && !arg->type.from_tensors ? arg : NULL;
}

cc_ir_expr *tc_pl_namespace_call(tc *t, const cc_expr *call, cc_op_namespace ns)
{
    const char *nsname = ns == CC_OPNS_TILE ? "tile" : "tensor", *spelling = call->u.call.fn->u.attr.name;
    int scalar_rhs;
    int op = cc_ir_op_lookup_in(ns, spelling, &scalar_rhs);
    if (op == CC_IR_TENSOR_DIM) return tc_tensor_dim(t, call);
    if (op < 0) {
        const cc_pl_name *n = cc_pl_name_find(spelling);
        char construct[160];
        snprintf(construct, sizeof construct, "%s.%s.%s", t->pl, nsname, spelling);
        if (n && n->status != CC_PL_SUPPORTED) return tc_pl_unsupported(t, call->u.call.fn->span, n->status, n->reason, construct);
        if (!strcmp(spelling, "get_subblock_idx")) return tc_block_op(t, call, -1);
        if (!strcmp(spelling, "gather_row")) return tc_gather_row(t, call); /* both levels: dst a Tile or a tensor-level value */
        if (!strcmp(spelling, "create_l1") && ns == CC_OPNS_TENSOR) return tc_create_l1(t, call);
        if (!strcmp(spelling, "mscatter") && ns == CC_OPNS_TILE) return tc_mscatter(t, call);
        int tile_op = cc_ir_op_lookup(spelling);
        if (tile_op >= 0)
            return tc_err(t, CC_DIAG_UNDEFINED, call->u.call.fn->span, NULL, "%s is not a %s.%s op; use %s.%s", construct, t->pl, nsname,
                          t->pl, spelling);
        return tc_err(t, CC_DIAG_UNDEFINED, call->u.call.fn->span, NULL, "%s is not a pypto.language name", construct);
    }
    cc_ir_expr *x = tc_pl_call(t, call, cc_ir_op_name((cc_ir_op)op));
    if (!x || x->kind != CC_X_OP) return x;
    const cc_op_info *row = cc_ir_op_info((cc_ir_op)op);
    if (row->cls == CC_OPC_GENERATE) x->type.from_tensors = ns == CC_OPNS_TENSOR; /* pl.tile.arange: a Tile */
    for (uint32_t i = 0; i < row->nreq; i++) {
        if ((op == CC_IR_MGATHER || op == CC_IR_PAGED_GATHER) && i < 3) continue; /* pl.tile.mgather's mem is a Tensor (upstream's) */
        const cc_ir_expr *arg = x->u.op.args[i], *bad = arg ? tc_namespace_misfit(ns, (cc_ir_op)op, arg) : NULL;
        char ty[96];
        if (bad) {
            cc_type_format(&bad->type, ty, sizeof ty);
            return tc_err(t, CC_DIAG_TYPE, bad->span, NULL, "%s.%s.%s expects %s operands, got %s", t->pl, nsname, spelling,
                          ns == CC_OPNS_TILE ? "Tile" : "Tensor", ty);
        }
    }
    if (!scalar_rhs) return x;
    char construct[160];
    snprintf(construct, sizeof construct, "%s.%s.%s", t->pl, nsname, spelling);
    return tc_scalar_rhs(t, x, construct);
}
