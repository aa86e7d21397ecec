/*
 * tc_window.c - the type checker's window ops on tiles in kernel code
 * (docs/dsl.md, "Operations"): pl.assemble(target, source, offset), which
 * writes the whole of source into a copy of target at offset, and
 * pl.slice(x, shape, offset, ...), a copy of x's window.  Each op's checks
 * with their exact messages and its result type; binding and placement
 * are tc_ops.c's.
 *
 * In kernel code a Tensor operand is a load or a store (DSL-V2-SPEC §1.3,
 * §1.5): pl.slice(tensor, ...) is the LOAD of the window (marked to print
 * as pl.slice; dropped axes then a tile slice of it), pl.assemble(tensor,
 * source, offset) the STORE of source at offset (marked to print as
 * pl.assemble); with atomic=pl.AtomicType.Add the STORE adds into the
 * window (its target becomes InOut, so overlapping atomic writers run in
 * submission order), only into such a Tensor.
 *
 * Invariants: offsets are LIST nodes of one integer scalar per axis
 * (run-time entries allowed; constant ones are bounds-checked here, the
 * others when the task runs); a slice's shape and drop_dims are LIST
 * nodes of constants.  Orchestration forms are tc_view.c's (atomic= is
 * refused there).
 */
#include "compiler/tc.h"

#include <stdio.h>
#include <string.h>

#define TC_N(ps) ((uint32_t)(sizeof(ps) / sizeof((ps)[0])))

/* An offset list: a list or tuple literal (or a module constant bound to
 * one) of integer scalars; NULL when reported. */
cc_ir_expr *tc_offset_list(tc *t, const cc_expr *e, const char *text)
{
    const cc_expr *lit = tc_module_constant_ast(t, e);
    if (lit->kind != CC_E_LIST && lit->kind != CC_E_TUPLE) return tc_err(t, CC_DIAG_TYPE, e->span, NULL, "%s", text);
    cc_ir_expr *x = tc_expr(t, lit);
    if (!x) return NULL;
    x->span = e->span;
    for (uint32_t k = 0; k < x->u.list.n; k++) {
        const cc_type *ty = &x->u.list.items[k]->type;
        if (ty->kind != CC_T_SCALAR || cc_dtype_is_float(ty->dtype) || ty->dtype == CC_DT_TASK_ID)
            return tc_err(t, CC_DIAG_TYPE, x->u.list.items[k]->span, NULL, "offset entries must be integer scalars");
    }
    return x;
}

/* Constant offsets of a window of extents ext in a tile of extents shape:
 * "pl.<op>: offset <o> + extent <e> exceeds dimension <d> of extent <s>". */
int tc_window_bounds(tc *t, const char *op, const cc_ir_expr *offs, const int64_t *ext, const int64_t *shape)
{
    for (uint32_t d = 0; d < offs->u.list.n; d++) {
        const cc_ir_expr *it = offs->u.list.items[d];
        int64_t o;
        if (!cc_ir_const_int(it, &o)) continue;
        if (o < 0) return tc_err(t, CC_DIAG_INVALID_OP, it->span, NULL, "pl.%s: offset %u is negative (%lld)", op, d, (long long)o), 0;
        if (!CC_DIM_IS_DYN(shape[d]) && !CC_DIM_IS_DYN(ext[d]) && o > shape[d] - ext[d]) /* o + ext > shape, without overflow; a dynamic one: at run time */
            return tc_err(t, CC_DIAG_INVALID_OP, it->span, NULL, "pl.%s: offset %lld + extent %lld exceeds dimension %u of extent %lld", op,
                          (long long)o, (long long)ext[d], d, (long long)shape[d]), 0;
    }
    return 1;
}

/* pl.assemble(target, source, offset, atomic=): target a tile, source a tile (a
 * Tensor loaded whole), equal ranks, dtypes equal or FP32 into FP16/BF16;
 * atomic=Add only into a Tensor, of the dtypes that add. */
static cc_ir_expr *tc_assemble(tc *t, const cc_expr *call)
{
    static const char *const ps[] = {"target", "source", "offset", "atomic"};
    tc_args a;
    if (!tc_op_bind(t, call, "assemble", ps, TC_N(ps), &a) || !tc_need(t, call, "assemble", &a, 3, ps)) return NULL;
    cc_ir_expr *dst = tc_expr(t, a.v[0]);
    if (!dst) return NULL;
    if (dst->type.kind == CC_T_TENSOR && t->c.plane == TC_INLINE) return tc_view_op(t, call, CC_IR_ASSEMBLE); /* checked where inlined */
    int tensor = dst->type.kind == CC_T_TENSOR;
    if (!tensor && dst->type.kind != CC_T_TILE) {
        char ty[96];
        cc_type_format(&dst->type, ty, sizeof ty);
        return tc_err(t, CC_DIAG_TYPE, a.v[0]->span, NULL, "pl.assemble: the target must be a tile, got %s", ty);
    }
    int atomic = tc_atomic_kw(t, a.v[3], "assemble");
    if (atomic < 0) return NULL;
    if (atomic && !tensor)
        return tc_err(t, CC_DIAG_INVALID_OP, a.v[0]->span, NULL,
                      "tensor.assemble with atomic=AtomicType.Add requires a global-memory destination (a function output tensor), but this "
                      "assemble targets an on-chip tile");
    cc_ir_expr *offs = tc_offset_list(t, a.v[2], tensor ? "pl.assemble offset must be a literal tuple (e.g., (row, col)), not a variable or computed expression"
                                                        : "tile.assemble offset must be a literal tuple (e.g., (row, col)), not a variable or computed expression");
    cc_ir_expr *src = offs ? tc_expr(t, a.v[1]) : NULL;
    if (!src || !(src = tc_tile_operand(t, src, a.v[1]->span)) || (atomic && !tc_atomic_dtype(t, "assemble", src, a.v[1]->span)) ||
        !tc_no_bool_tile(t, "assemble", dst, call->span) || !tc_no_bool_tile(t, "assemble", src, call->span))
        return NULL;
    const cc_type *tt = &dst->type, *st = &src->type;
    if (st->rank != tt->rank)
        return tc_err(t, CC_DIAG_INVALID_OP, call->span, NULL, "pl.assemble: source rank %u does not match target rank %u", st->rank, tt->rank);
    if (tensor) { /* pl.store(source, offset, target): the source's valid region lands at offset */
        cc_ir_expr *x = tc_store_op(t, call->span, src, offs, dst, NULL, st->shape, st->rank);
        if (x) x->u.op.mode = CC_IR_SPELLED_WINDOW, x->u.op.atomic = (uint8_t)atomic;
        return x;
    }
    int narrowing = st->dtype == CC_DT_FP32 && (tt->dtype == CC_DT_FP16 || tt->dtype == CC_DT_BF16);
    if (st->dtype != tt->dtype && !narrowing)
        return tc_err(t, CC_DIAG_TYPE, call->span, NULL, "pl.assemble: source dtype %s cannot be inserted into a %s target; insert pl.cast",
                      cc_dtype_name((cc_dtype)st->dtype), cc_dtype_name((cc_dtype)tt->dtype));
    if (offs->u.list.n != tt->rank)
        return tc_err(t, CC_DIAG_INVALID_OP, a.v[2]->span, NULL, "pl.assemble: expected %u offsets for a rank-%u target, got %u", tt->rank,
                      tt->rank, offs->u.list.n);
    if (!tc_window_bounds(t, "assemble", offs, st->shape, tt->shape)) return NULL;
    cc_ir_expr *x = cc_ir_op_new(t->a, CC_IR_ASSEMBLE, call->span);
    if (!x) return tc_oom(t);
    x->u.op.args[0] = dst, x->u.op.args[1] = src, x->u.op.args[2] = offs;
    x->type = *tt; /* partial as the target: the region only grows */
    return x;
}

/* drop_dims=: constant unit axes of the window (each once) into *mask. */
cc_ir_expr *tc_drop_dims(tc *t, const cc_expr *e, const int64_t *ext, uint32_t rank, unsigned *mask)
{
    *mask = 0;
    const cc_expr *lit = tc_module_constant_ast(t, e);
    if (lit->kind != CC_E_LIST && lit->kind != CC_E_TUPLE)
        return tc_err(t, CC_DIAG_TYPE, e->span, NULL, "pl.slice drop_dims must be a list of axes like [0]");
    cc_ir_expr *x = tc_expr(t, lit);
    if (!x) return NULL;
    x->span = e->span;
    for (uint32_t k = 0; k < x->u.list.n; k++) {
        const cc_ir_expr *it = x->u.list.items[k];
        int64_t d;
        if (it->type.kind != CC_T_SCALAR || cc_dtype_is_float(it->type.dtype) || !cc_ir_const_int(it, &d))
            return tc_err(t, CC_DIAG_TYPE, it->span, NULL, "pl.slice drop_dims entry %u must be a compile-time constant", k);
        if (d < 0 || d >= rank)
            return tc_err(t, CC_DIAG_INVALID_OP, it->span, NULL, "pl.slice: drop_dims axis %lld is out of range for rank %u", (long long)d, rank);
        if (CC_DIM_IS_DYN(ext[d]))
            return tc_err(t, CC_DIAG_INVALID_OP, it->span, NULL, "pl.slice: drop_dims axis %lld has a run-time extent; only unit axes can be dropped",
                          (long long)d);
        if (ext[d] != 1)
            return tc_err(t, CC_DIAG_INVALID_OP, it->span, NULL, "pl.slice: drop_dims axis %lld has extent %lld; only unit axes can be dropped",
                          (long long)d, (long long)ext[d]);
        if (*mask & (1u << d)) return tc_err(t, CC_DIAG_INVALID_OP, it->span, NULL, "pl.slice: drop_dims axis %lld appears twice", (long long)d);
        *mask |= 1u << d;
    }
    return x;
}

/* pl.slice's shape and offset lists (a.v[1], a.v[2]) for a rank-r
 * operand of kind ("tensor", "tile"): shape entries positive integer
 * constants into ext.  An entry that is not an integer reports nonint, a
 * run-time integer one runtime (class rt_class); both take the axis.
 * runtime NULL (an orchestration view): a run-time entry is a run-time
 * extent (tc_extent_dim), its name in dyn[d]. */
int tc_slice_lists(tc *t, const cc_expr *call, const tc_args *a, uint32_t r, const char *kind, const char *nonint, cc_diag_class rt_class,
                   const char *runtime, int64_t *ext, const char **dyn, cc_ir_expr **shp, cc_ir_expr **offs)
{
    const cc_expr *se = tc_module_constant_ast(t, a->v[1]);
    if (se->kind != CC_E_LIST && se->kind != CC_E_TUPLE)
        return tc_err(t, CC_DIAG_TYPE, a->v[1]->span, NULL, "pl.slice: shape must be a list like [16, 16]"), 0;
    if (!(*shp = tc_expr(t, se))) return 0;
    (*shp)->span = a->v[1]->span;
    for (uint32_t d = 0; d < (*shp)->u.list.n && d < CC_MAX_RANK; d++) {
        const cc_ir_expr *it = (*shp)->u.list.items[d];
        if (it->type.kind != CC_T_SCALAR || cc_dtype_is_float(it->type.dtype) || it->type.dtype == CC_DT_TASK_ID)
            return tc_err(t, CC_DIAG_TYPE, it->span, NULL, nonint, d), 0;
        if (!cc_ir_const_int(it, &ext[d])) {
            if (runtime) return tc_err(t, rt_class, it->span, NULL, runtime, d), 0;
            if (!tc_extent_dim(t, it, "slice", d, &ext[d], &dyn[d])) return 0;
            continue;
        }
        if (ext[d] <= 0)
            return tc_err(t, CC_DIAG_INVALID_OP, it->span, NULL, "pl.slice: shape element %u must be positive, got %lld", d, (long long)ext[d]), 0;
    }
    if (!(*offs = tc_offset_list(t, a->v[2], "pl.slice: offset must be a list like [0, 0]"))) return 0;
    if ((*shp)->u.list.n != r || (*offs)->u.list.n != r)
        return tc_err(t, CC_DIAG_INVALID_OP, call->span, NULL, "pl.slice: expected %u shape entries and %u offsets for a rank-%u %s, got %u and %u", r, r,
                      r, kind, (*shp)->u.list.n, (*offs)->u.list.n), 0;
    return 1;
}

/* pl.slice(x, shape, offset, valid_shape=None, drop_dims=None, pad_value=None, clamp=False)
 * of a tile: the window's constant shape, its offsets, and the result's
 * type (the window's shape less the dropped axes, at least rank 2 when
 * the window is). */
static cc_ir_expr *tc_slice(tc *t, const cc_expr *call)
{
    static const char *const ps[] = {"x", "shape", "offset", "valid_shape", "drop_dims", "pad_value", "clamp"};
    tc_args a;
    if (!tc_op_bind(t, call, "slice", ps, TC_N(ps), &a) || !tc_need(t, call, "slice", &a, 3, ps)) return NULL;
    cc_ir_expr *x = tc_expr(t, a.v[0]);
    if (!x) return NULL;
    if (x->type.kind == CC_T_TENSOR && t->c.plane == TC_INLINE) return tc_view_op(t, call, CC_IR_SLICE); /* checked where inlined */
    int tensor = x->type.kind == CC_T_TENSOR;
    if (!tensor && x->type.kind != CC_T_TILE) {
        char ty[96];
        cc_type_format(&x->type, ty, sizeof ty);
        return tc_err(t, CC_DIAG_TYPE, a.v[0]->span, NULL, "pl.slice expects a tile, got %s", ty);
    }
    if (!tc_no_bool_tile(t, "slice", x, call->span)) return NULL;
    if (a.v[6] && a.v[6]->kind != CC_E_BOOL) return tc_err(t, CC_DIAG_TYPE, a.v[6]->span, NULL, "clamp= must be True or False");
    int clamp = a.v[6] && a.v[6]->u.i;
    if (clamp && !tensor) return tc_err(t, CC_DIAG_TYPE, a.v[6]->span, NULL, "pl.slice: clamp=True is not supported for a Tile");
    uint32_t r = x->type.rank;
    int64_t ext[CC_MAX_RANK];
    const char *nc = tensor ? "pl.slice shape element %u must be a compile-time constant in kernel code; pass valid_shape= for a runtime extent"
                            : "tile.slice shape element %u must be a compile-time constant";
    cc_ir_expr *shp, *offs;
    if (!tc_slice_lists(t, call, &a, r, tensor ? "tensor" : "tile", nc, CC_DIAG_TYPE, nc, ext, NULL, &shp, &offs)) return NULL;
    if (!tensor && !tc_window_bounds(t, "slice", offs, ext, x->type.shape)) return NULL;
    cc_ir_expr *valid = NULL, *drop = NULL;
    if (a.v[3] && a.v[3]->kind != CC_E_NONE) {
        if (!(valid = tc_offset_list(t, a.v[3], "pl.slice: valid_shape must be a list like [8, 16]"))) return NULL;
        if (valid->u.list.n != r)
            return tc_err(t, CC_DIAG_INVALID_OP, a.v[3]->span, NULL, "pl.slice: valid_shape has %u entries for a rank-%u window", valid->u.list.n, r);
    }
    unsigned mask = 0;
    if (a.v[4] && a.v[4]->kind != CC_E_NONE && !(drop = tc_drop_dims(t, a.v[4], ext, r, &mask))) return NULL;
    int pad = 0;
    if (a.v[5] && a.v[5]->kind != CC_E_NONE) {
        if ((pad = tc_pad_value(t, a.v[5], "pl.slice")) < 0) return NULL;
        if (pad != 1) /* every tile reads 0 outside its valid region (tile/tile.h) */
            return tc_err(t, CC_DIAG_UNSUPPORTED, a.v[5]->span, "pl.fillpad the slice instead", "pl.slice pad_value=PadValue.%s is not supported in this version",
                          pad == 2 ? "max" : "min");
    }
    if (tensor) { /* the load of the window; dropped axes: a tile slice of all of it */
        if (!(x = tc_load_op(t, call->span, "slice", x, offs, shp, ext, valid, clamp, CC_MEM_Vec))) return NULL;
        x->u.op.mode = CC_IR_SPELLED_WINDOW;
        x->type.from_tensors = 1;
        if (!mask) return x;
        if (!(offs = cc_ir_expr_new(t->a, CC_X_LIST, call->span)) || !(offs->u.list.items = base_arena_alloc(t->a, r * sizeof *offs->u.list.items)))
            return tc_oom(t);
        offs->type = (cc_type){.kind = CC_T_LIST};
        offs->u.list.n = r;
        for (uint32_t d = 0; d < r; d++)
            if (!(offs->u.list.items[d] = cc_ir_int(t->a, 0, call->span))) return tc_oom(t);
        valid = NULL, pad = 0;
    }
    cc_ir_expr *s = cc_ir_op_new(t->a, CC_IR_SLICE, call->span);
    if (!s) return tc_oom(t);
    s->u.op.args[0] = x, s->u.op.args[1] = shp, s->u.op.args[2] = offs, s->u.op.args[3] = valid, s->u.op.args[4] = drop;
    s->u.op.mode = (uint8_t)pad;
    s->type = (cc_type){.kind = CC_T_TILE, .dtype = x->type.dtype, .partial = (uint8_t)(x->type.partial || valid),
                        .from_tensors = x->type.from_tensors};
    uint32_t n = 0;
    for (uint32_t d = 0; d < r; d++)
        if (!(mask & (1u << d))) s->type.shape[n++] = ext[d];
    uint32_t floor = r < 2 ? r : 2; /* dropped axes below rank 2 come back as leading unit axes */
    if (n < floor) {
        memmove(s->type.shape + (floor - n), s->type.shape, n * sizeof s->type.shape[0]);
        for (uint32_t d = 0; d < floor - n; d++) s->type.shape[d] = 1;
        n = floor;
    }
    s->type.rank = (uint8_t)n;
    return s;
}

cc_ir_expr *tc_window_op(tc *t, const cc_expr *call, cc_ir_op op)
{
    if (t->c.plane == TC_CONTROL) return tc_view_op(t, call, op); /* tensor views and copies (tc_view.c) */
    return op == CC_IR_SLICE ? tc_slice(t, call) : tc_assemble(t, call);
}
