/*
 * tc_mem.c - the type checker's memory spaces (docs/dsl.md, "Memory
 * spaces"): the tag of a tile's type, what each op sets it to, and the ops
 * that exist for it, pl.move and pl.create_tile, with their exact messages.
 * On the CPU every space is host memory: the tag is checked and printed,
 * never changes a value.
 *
 * Invariants: a tile's tag is set by the op that makes it: pl.load (Vec or
 * Mat), pl.move and pl.create_tile (as written), matmul (Acc), every other
 * op Vec; cc_type_equal ignores it (an op's operands may be in any space).
 */
#include "compiler/tc.h"

#include <stdio.h>
#include <string.h>

#include "compiler/names.h"

/* e as a pl.Mem (or pl.MemorySpace) member: its value; -1 when reported. */
static int tc_mem_member(tc *t, const cc_expr *e, const char *form)
{
    int v = tc_enum_value(t, e, "Mem");
    if (v < 0) v = tc_enum_value(t, e, "MemorySpace");
    if (v >= 0) return v;
    if (tc_pl_hardware(t, e)) return -1;
    return tc_err(t, CC_DIAG_TYPE, e->span, NULL, "pl.%s target_memory= must be a pl.Mem member", form), -1;
}

int tc_mem_arg(tc *t, const cc_expr *e, const char *form) { return tc_mem_member(t, e, form); }

int tc_load_target(tc *t, const cc_expr *e, uint8_t *mem)
{
    int v = tc_mem_member(t, e, "load");
    if (v < 0) return 0;
    if (v != CC_MEM_Vec && v != CC_MEM_Mat)
        return tc_err(t, CC_DIAG_INVALID_OP, e->span, NULL,
                      "target_memory for tile.load must be MemorySpace.Vec or MemorySpace.Mat, got MemorySpace.%s", cc_mem_name((cc_mem)v)), 0;
    return *mem = (uint8_t)v, 1;
}

cc_ir_expr *tc_mem_result(cc_ir_expr *x)
{
    if (!x || x->kind != CC_X_OP || x->type.kind != CC_T_TILE) return x;
    cc_ir_op op = (cc_ir_op)x->u.op.op;
    if (op == CC_IR_LOAD || op == CC_IR_MOVE || op == CC_IR_CREATE_TILE || op == CC_IR_PAGED_GATHER || op == CC_IR_MGATHER) return x; /* their own tags */
    if (op == CC_IR_SET_VALIDSHAPE && x->u.op.args[0]) return x->type.mem = x->u.op.args[0]->type.mem, x; /* its operand's: no data moves */
    const cc_op_info *row = cc_ir_op_info(op);
    int acc = cc_ir_op_is_matmul(op), tiles = 0, from_tensors = 1;
    x->type.mem = (uint8_t)(acc ? CC_MEM_Acc : CC_MEM_Vec);
    for (uint32_t i = 0; i < row->nreq; i++) {
        const cc_ir_expr *arg = x->u.op.args[i];
        if (arg && arg->type.kind == CC_T_TILE) tiles++, from_tensors &= arg->type.from_tensors;
    }
    if (tiles) x->type.from_tensors = (uint8_t)from_tensors; /* else the mark its checker set (pl.full's) */
    return x;
}

/* pl.move(tile, target_memory, blayout=None, slayout=None): a copy tagged
 * target_memory (blayout=/slayout= are reported by names.h's keyword rows). */
static cc_ir_expr *tc_move(tc *t, const cc_expr *call, tc_args *a)
{
    cc_ir_expr *x = tc_expr(t, a->v[0]);
    if (!x) return NULL;
    if (x->type.kind != CC_T_TILE) {
        char ty[96];
        cc_type_format(&x->type, ty, sizeof ty);
        return tc_err(t, CC_DIAG_INVALID_OP, a->v[0]->span, NULL,
                      "pl.move: source must be a tile, got %s; load it with pl.load(..., target_memory=pl.Mem.Mat)", ty);
    }
    int v = tc_mem_member(t, a->v[1], "move");
    if (v < 0) return NULL;
    if (v == CC_MEM_DDR || v == CC_MEM_Acc)
        return tc_err(t, CC_DIAG_INVALID_OP, a->v[1]->span, NULL, "pl.move: target_memory must be an on-chip space other than Acc, got MemorySpace.%s",
                      cc_mem_name((cc_mem)v));
    cc_ir_expr *m = cc_ir_op_new(t->a, CC_IR_MOVE, call->span);
    if (!m) return tc_oom(t);
    m->u.op.args[0] = x;
    m->type = x->type;
    m->type.mem = (uint8_t)v;
    return m;
}

/* pl.create_tile(shape, dtype, target_memory=pl.Mem.Vec, transpose=None):
 * a fully valid tile of zeros; transpose= a hint (None or a boolean literal). */
static cc_ir_expr *tc_create_tile(tc *t, const cc_expr *call, tc_args *a)
{
    const cc_expr *se = tc_module_constant_ast(t, a->v[0]);
    if (se->kind != CC_E_LIST && se->kind != CC_E_TUPLE)
        return tc_err(t, CC_DIAG_TYPE, a->v[0]->span, NULL, "pl.create_tile: shape must be a list like [16, 16]");
    cc_ir_expr *shp = tc_expr(t, se);
    if (!shp) return NULL;
    shp->span = a->v[0]->span;
    uint32_t n = shp->u.list.n;
    if (n < 1 || n > CC_MAX_RANK) return tc_err(t, CC_DIAG_INVALID_OP, a->v[0]->span, NULL, "pl.create_tile: the shape needs 1 to 4 entries");
    int64_t ext[CC_MAX_RANK];
    for (uint32_t d = 0; d < n; d++) {
        const cc_ir_expr *it = shp->u.list.items[d];
        if (it->type.kind != CC_T_SCALAR || cc_dtype_is_float(it->type.dtype) || !cc_ir_const_int(it, &ext[d]))
            return tc_err(t, CC_DIAG_TYPE, it->span, NULL, "pl.create_tile: shape element %u must be a compile-time constant (ConstInt)", d);
        if (ext[d] <= 0)
            return tc_err(t, CC_DIAG_INVALID_OP, it->span, NULL, "pl.create_tile: shape element %u must be positive, got %lld", d, (long long)ext[d]);
    }
    int dt = tc_tile_dtype_arg(t, a->v[1], "pl.create_tile dtype");
    if (dt < 0) return NULL;
    int v = CC_MEM_Vec;
    if (a->v[2] && (v = tc_mem_member(t, a->v[2], "create_tile")) < 0) return NULL;
    if (v == CC_MEM_DDR)
        return tc_err(t, CC_DIAG_INVALID_OP, a->v[2]->span, NULL, "pl.create_tile: target_memory cannot be MemorySpace.DDR; use pl.create_tensor");
    const cc_expr *tr = a->v[3];
    if (tr && tr->kind != CC_E_NONE && tr->kind != CC_E_BOOL)
        return tc_err(t, CC_DIAG_SYNTAX, tr->span, NULL, "pl.create_tile() transpose must be None or a boolean literal");
    cc_ir_expr *c = cc_ir_op_new(t->a, CC_IR_CREATE_TILE, call->span);
    if (!c) return tc_oom(t);
    if (tr && tr->kind == CC_E_BOOL && !(c->u.op.args[1] = tc_expr(t, tr))) return NULL;
    c->u.op.args[0] = shp, c->u.op.dtype = (uint8_t)dt;
    c->type = (cc_type){.kind = CC_T_TILE, .dtype = (uint8_t)dt, .rank = (uint8_t)n, .mem = (uint8_t)v};
    memcpy(c->type.shape, ext, n * sizeof ext[0]);
    return c;
}

cc_ir_expr *tc_mem_op(tc *t, const cc_expr *call, cc_ir_op op)
{
    static const char *const move_ps[] = {"tile", "target_memory"};
    static const char *const ct_ps[] = {"shape", "dtype", "target_memory", "transpose"};
    int move = op == CC_IR_MOVE;
    const char *name = move ? "move" : "create_tile";
    const char *const *ps = move ? move_ps : ct_ps;
    uint32_t np = move ? 2 : 4;
    tc_args a;
    if (!tc_op_bind(t, call, name, ps, np, &a) || !tc_need(t, call, name, &a, 2, ps)) return NULL;
    return move ? tc_move(t, call, &a) : tc_create_tile(t, call, &a);
}

/* Does v's op fix its tag (a pl.Tile annotation must then agree with it)?
 * pl.load, pl.move, pl.create_tile, matmul, and a variable (its own tag). */
static int tc_mem_fixed(const cc_ir_expr *v)
{
    if (v->kind != CC_X_OP) return 1;
    cc_ir_op op = (cc_ir_op)v->u.op.op;
    return op == CC_IR_LOAD || op == CC_IR_MOVE || op == CC_IR_CREATE_TILE || cc_ir_op_is_matmul(op);
}

static int tc_tile_entries_error(tc *t, const cc_expr *e)
{
    return tc_err(t, CC_DIAG_TYPE, e->span, NULL, "pl.Tile annotation takes at most one MemRef, one MemorySpace and one TileView"), -1;
}

/* Is e `pl.MemRef(...)`, or one indexed `pl.MemRef(...)[k]`? */
static const cc_expr *tc_memref_call(tc *t, const cc_expr *e)
{
    if (e->kind == CC_E_SUBSCRIPT) e = e->u.sub.value;
    return e->kind == CC_E_CALL && tc_pl_attr(t, e->u.call.fn, "MemRef") && e->u.call.fn->u.attr.value->kind == CC_E_NAME ? e : NULL;
}

/* pl.MemRef(name=None, *, slots=1)[k]: a placement hint, validated, no
 * effect; 0 when reported. */
static int tc_memref(tc *t, const cc_expr *e)
{
    const cc_expr *call = tc_memref_call(t, e), *name = call->u.call.nargs ? call->u.call.args[0] : NULL, *slots = NULL;
    if (call->u.call.nargs > 1)
        return tc_pl_unsupported(t, call->span, CC_PL_HARDWARE, CC_PLR_ADDRESS, "pl.MemRef(<base or addr>, <offset>, <size>)"), 0;
    for (uint32_t k = 0; k < call->u.call.nkws; k++) {
        const cc_keyword *kw = &call->u.call.kws[k];
        if (!strcmp(kw->name, "name") && !name) name = kw->value;
        else if (!strcmp(kw->name, "slots") && !slots) slots = kw->value;
        else if (tc_pl_keyword_unsupported(t, "MemRef", kw)) return 0;
        else return tc_err(t, CC_DIAG_TYPE, kw->name_span, NULL, "pl.MemRef() got an unexpected keyword argument '%s'", kw->name), 0;
    }
    if (name && name->kind != CC_E_STRING && name->kind != CC_E_NONE)
        return tc_err(t, CC_DIAG_TYPE, name->span, NULL, "pl.MemRef name must be a string literal or None"), 0;
    if (slots) {
        cc_ir_expr *x = tc_expr(t, slots);
        int64_t n;
        if (!x) return 0;
        if (x->type.kind != CC_T_SCALAR || cc_dtype_is_float(x->type.dtype) || x->type.dtype == CC_DT_BOOL || !cc_ir_const_int(x, &n) || n <= 0) {
            char v[96];
            if (x->kind == CC_X_INT) snprintf(v, sizeof v, "%lld", (long long)x->u.i);
            else if (x->kind == CC_X_FLOAT) snprintf(v, sizeof v, "%g", x->u.f);
            else if (x->kind == CC_X_BOOL) snprintf(v, sizeof v, "%s", x->u.i ? "True" : "False");
            else cc_type_format(&x->type, v, sizeof v);
            return tc_err(t, CC_DIAG_TYPE, slots->span, NULL, "pl.MemRef slots must be a positive integer constant, got %s", v), 0;
        }
    }
    if (e->kind == CC_E_SUBSCRIPT) {
        cc_ir_expr *k = tc_expr(t, e->u.sub.index);
        if (!k) return 0;
        if (k->type.kind != CC_T_SCALAR || cc_dtype_is_float(k->type.dtype) || k->type.dtype == CC_DT_BOOL || k->type.dtype == CC_DT_TASK_ID) {
            char ty[96];
            cc_type_format(&k->type, ty, sizeof ty);
            return tc_err(t, CC_DIAG_TYPE, e->u.sub.index->span, NULL, "pl.MemRef index must be an integer scalar, got %s", ty), 0;
        }
    }
    return 1;
}

/* Is e `pl.TileView(...)`? */
static int tc_tileview_call(tc *t, const cc_expr *e)
{
    return e->kind == CC_E_CALL && tc_pl_attr(t, e->u.call.fn, "TileView") && e->u.call.fn->u.attr.value->kind == CC_E_NAME;
}

/* v's valid region when it is a compile-time constant: the shape of a
 * fully valid tile, a load's constant valid_shape= (tile_load's rule). */
static int tc_static_valid(const cc_ir_expr *v, int64_t *valid)
{
    memcpy(valid, v->type.shape, sizeof v->type.shape);
    if (!v->type.partial) return 1;
    if (v->kind != CC_X_OP || v->u.op.op != CC_IR_LOAD || v->u.op.clamp || !v->u.op.args[3]) return 0;
    const cc_ir_expr *l = v->u.op.args[3];
    for (uint32_t d = 0; d < v->type.rank; d++) {
        int64_t x;
        if (!cc_ir_const_int(l->u.list.items[d], &x)) return 0;
        if (x >= 0 && x < valid[d]) valid[d] = x;
    }
    return 1;
}

static void tc_view_format(const cc_type *ty, const int64_t *valid, char *buf, size_t cap)
{
    char s[128];
    cc_type_format(ty, s, sizeof s);
    size_t n = strlen(s);
    if (n && s[n - 1] == ']') s[--n] = 0;
    int w = snprintf(buf, cap, "%s, pl.TileView(valid_shape=[", s);
    for (uint32_t d = 0; d < ty->rank && w > 0 && (size_t)w < cap; d++)
        w += snprintf(buf + w, cap - (size_t)w, "%s%lld", d ? ", " : "", (long long)valid[d]);
    if (w > 0 && (size_t)w < cap) snprintf(buf + w, cap - (size_t)w, "])]");
}

/* pl.TileView(valid_shape=None, stride=, start_offset=, fractal=, pad=): a
 * placement hint; valid_shape= is checked against v (type a), the layout
 * entries are Ascend-specific, the others have no effect; 0 when reported. */
static int tc_tileview(tc *t, const cc_expr *view, const cc_expr *ann, const cc_type *a, const cc_ir_expr *v)
{
    static const char *const hints[] = {"stride", "start_offset", "fractal", "pad"};
    const cc_expr *vs = NULL;
    if (view->u.call.nargs)
        return tc_err(t, CC_DIAG_TYPE, view->u.call.args[0]->span, NULL, "pl.TileView() takes keyword arguments only"), 0;
    for (uint32_t k = 0; k < view->u.call.nkws; k++) {
        const cc_keyword *kw = &view->u.call.kws[k];
        int hint = 0;
        for (size_t h = 0; h < sizeof hints / sizeof hints[0]; h++) hint |= !strcmp(kw->name, hints[h]);
        if (!strcmp(kw->name, "valid_shape") && !vs) vs = kw->value;
        else if (hint) continue;
        else if (tc_pl_keyword_unsupported(t, "TileView", kw)) return 0; /* blayout=, slayout= */
        else return tc_err(t, CC_DIAG_TYPE, kw->name_span, NULL, "pl.TileView() got an unexpected keyword argument '%s'", kw->name), 0;
    }
    if (!vs || vs->kind == CC_E_NONE) return 1;
    cc_ir_expr *l = tc_list_of(t, vs, "pl.TileView valid_shape");
    if (!l) return 0;
    if (l->u.list.n != a->rank)
        return tc_err(t, CC_DIAG_TYPE, vs->span, NULL, "pl.TileView valid_shape has %u entries for a rank-%u tile", l->u.list.n,
                      a->rank),
               0;
    int64_t want[CC_MAX_RANK], have[CC_MAX_RANK];
    for (uint32_t d = 0; d < a->rank; d++)
        if (!cc_ir_const_int(l->u.list.items[d], &want[d])) return 1; /* a runtime entry: nothing to compare */
    if (!tc_static_valid(v, have) || !memcmp(want, have, a->rank * sizeof want[0])) return 1;
    char as[192], bs[192];
    tc_view_format(a, want, as, sizeof as), tc_view_format(&v->type, have, bs, sizeof bs);
    return tc_err(t, CC_DIAG_TYPE, ann->span, NULL, "annotation %s does not match the value's type %s", as, bs), 0;
}

int tc_is_tile_annotation(tc *t, const cc_expr *ann)
{
    ann = tc_module_constant_ast(t, ann);
    return ann->kind == CC_E_SUBSCRIPT && tc_pl_attr(t, ann->u.sub.value, "Tile") && ann->u.sub.value->u.attr.value->kind == CC_E_NAME;
}

int tc_tile_annotation(tc *t, const cc_expr *ann, cc_ir_expr *v)
{
    if (!tc_is_tile_annotation(t, ann)) return 0;
    ann = tc_module_constant_ast(t, ann);
    const cc_expr *ix = ann->u.sub.index;
    uint32_t n = ix->kind == CC_E_TUPLE ? ix->u.seq.n : 1;
    const cc_expr *const *items = ix->kind == CC_E_TUPLE ? (const cc_expr *const *)ix->u.seq.items : &ix;
    const cc_expr *dims = n >= 2 ? tc_module_constant_ast(t, items[0]) : NULL;
    if (!dims || (dims->kind != CC_E_LIST && dims->kind != CC_E_TUPLE) || n > 5)
        return tc_err(t, CC_DIAG_TYPE, ann->span, NULL, "a tile annotation reads pl.Tile[[d0, d1, ...], dtype] or pl.Tile[[d0, d1, ...], dtype, pl.MemRef(...), pl.Mem.<space>]"), -1;
    if (dims->u.seq.n < 1 || dims->u.seq.n > CC_MAX_RANK)
        return tc_err(t, CC_DIAG_TYPE, dims->span, NULL, "tile rank must be 1 to 4, got %u", dims->u.seq.n), -1;
    cc_type a = {.kind = CC_T_TILE, .rank = (uint8_t)dims->u.seq.n};
    for (uint32_t d = 0; d < a.rank; d++) {
        if (!tc_const_int(t, dims->u.seq.items[d], &a.shape[d], "tile annotation shapes")) return -1;
        if (a.shape[d] <= 0)
            return tc_err(t, CC_DIAG_TYPE, dims->u.seq.items[d]->span, NULL, "tile dimension %u must be positive, got %lld", d, (long long)a.shape[d]), -1;
    }
    int dt = tc_dtype_arg(t, items[1], "the tile annotation's dtype");
    if (dt < 0) return -1;
    a.dtype = (uint8_t)dt;
    int mem = -1, memrefs = 0;
    const cc_expr *view = NULL;
    for (uint32_t k = 2; k < n; k++) {
        if (tc_tileview_call(t, items[k])) {
            if (view) return tc_tile_entries_error(t, items[k]);
            view = items[k];
            continue;
        }
        if (tc_memref_call(t, items[k])) {
            if (memrefs++ || !tc_memref(t, items[k])) return memrefs > 1 ? tc_tile_entries_error(t, items[k]) : -1;
            continue;
        }
        if (mem >= 0) return tc_tile_entries_error(t, items[k]);
        if ((mem = tc_mem_member(t, items[k], "Tile")) < 0) return -1;
    }
    if (memrefs && mem < 0) return tc_err(t, CC_DIAG_TYPE, ann->span, NULL, "Tile annotation with MemRef must also specify an explicit MemorySpace"), -1;
    int tile = v->type.kind == CC_T_TILE;
    a.mem = (uint8_t)(mem >= 0 ? mem : tile ? (int)cc_type_mem(&v->type) : (int)CC_MEM_Vec);
    if (!tile || !cc_type_equal(&a, &v->type) || (mem >= 0 && tc_mem_fixed(v) && cc_type_mem(&v->type) != (cc_mem)mem)) {
        char as[128], bs[128];
        cc_type_format(&a, as, sizeof as), cc_type_format(&v->type, bs, sizeof bs);
        return tc_err(t, CC_DIAG_TYPE, ann->span, NULL, "annotation %s does not match the value's type %s", as, bs), -1;
    }
    if (view && !tc_tileview(t, view, ann, &a, v)) return -1;
    if (mem >= 0) v->type.mem = (uint8_t)mem; /* the annotation sets the tag of an op that does not fix it */
    return 1;
}
