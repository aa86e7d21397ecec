/*
 * tc_expr.c - the type checker's names and expressions: the pl names
 * (looked up in names.h; the texts for later and hardware-internal ones),
 * module and caller constants, annotations (parameters, locals, results),
 * scalar arithmetic with folding, a constant's conversion to a declared
 * scalar dtype, and the dispatch of every expression form.
 *
 * Name resolution order (docs/compiler.md, "Checking"): locals and parameters, caller
 * constants, module constants, the builtins min and max.  A name assigned
 * anywhere in a body is local throughout.
 */
#include "compiler/tc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "compiler/names.h"
#include "compiler/scalar.h"

/* ---- pl names -------------------------------------------------------------------------- */

const char *tc_pl_attr(const tc *t, const cc_expr *e, const char *a)
{
    if (e->kind != CC_E_ATTR) return NULL;
    const cc_expr *v = e->u.attr.value;
    if (v->kind == CC_E_NAME && !strcmp(v->u.name, t->pl)) return !a || !strcmp(e->u.attr.name, a) ? e->u.attr.name : NULL;
    if (v->kind == CC_E_ATTR && v->u.attr.value->kind == CC_E_NAME && !strcmp(v->u.attr.value->u.name, t->pl) &&
        (!a || !strcmp(v->u.attr.name, a)))
        return e->u.attr.name;
    return NULL;
}

static int tc_path_append(const tc *t, const cc_expr *e, char *buf, size_t cap, size_t *len)
{
    if (e->kind == CC_E_NAME) {
        if (strcmp(e->u.name, t->pl)) return 0;
        *len = (size_t)snprintf(buf, cap, "%s", e->u.name);
        return *len < cap;
    }
    if (e->kind != CC_E_ATTR || !tc_path_append(t, e->u.attr.value, buf, cap, len)) return 0;
    int n = snprintf(buf + *len, cap - *len, ".%s", e->u.attr.name);
    if (n < 0 || (size_t)n >= cap - *len) return 0;
    *len += (size_t)n;
    return 1;
}

const char *tc_pl_path(tc *t, const cc_expr *e)
{
    char buf[256];
    size_t len = 0;
    if (!tc_path_append(t, e, buf, sizeof buf, &len) || e->kind != CC_E_ATTR) return NULL;
    return base_arena_strndup(t->a, buf, len);
}

int tc_enum_value(tc *t, const cc_expr *e, const char *enum_name)
{
    e = tc_module_constant_ast(t, e);
    const char *member = tc_pl_attr(t, e, enum_name);
    if (!member || e->u.attr.value->kind != CC_E_ATTR) return -1;
    return cc_pl_enum_value(enum_name, member);
}

void *tc_pl_unsupported(tc *t, cc_span sp, uint8_t status, uint8_t reason, const char *construct)
{
    if (status == CC_PL_HARDWARE)
        return tc_err(t, CC_DIAG_UNSUPPORTED, sp, NULL, "%s is Ascend-specific: %s; it has no meaning on the CPU backend", construct,
                      cc_pl_reason_text((cc_pl_reason)reason));
    return tc_err(t, CC_DIAG_UNSUPPORTED, sp, NULL, "%s is not supported in this version", construct);
}

int tc_pl_keyword_unsupported(tc *t, const char *form, const cc_keyword *kw)
{
    const cc_pl_keyword *k = cc_pl_keyword_find(form, kw->name);
    if (!k) return 0;
    char construct[96];
    if (k->status == CC_PL_HARDWARE) snprintf(construct, sizeof construct, "%s=", kw->name);
    else snprintf(construct, sizeof construct, "%s.%s(%s=...)", t->pl, form, kw->name);
    tc_pl_unsupported(t, kw->name_span, k->status, k->reason, construct);
    return 1;
}

int tc_pl_hardware(tc *t, const cc_expr *e)
{
    const cc_expr *c = tc_module_constant_ast(t, e);
    const char *last = tc_pl_attr(t, c, NULL);
    if (!last) return 0;
    const cc_expr *v = c->u.attr.value;
    const cc_pl_name *n = v->kind == CC_E_NAME || !strcmp(v->u.attr.name, "DataType") ? cc_pl_name_find(last) : NULL;
    if (n && n->kind != CC_PLK_DTYPE && v->kind != CC_E_NAME) n = NULL; /* pl.DataType.<DT> */
    cc_pl_reason r = n ? (n->status == CC_PL_HARDWARE ? (cc_pl_reason)n->reason : CC_PLR_NONE)
                       : v->kind == CC_E_ATTR ? cc_pl_member_reason(v->u.attr.name, last) : CC_PLR_NONE;
    const char *path = r != CC_PLR_NONE ? tc_pl_path(t, c) : NULL;
    if (!path) return 0;
    char construct[300];
    snprintf(construct, sizeof construct, "%s%s", n && n->kind == CC_PLK_DTYPE ? "dtype " : "", path);
    tc_pl_unsupported(t, e->span, CC_PL_HARDWARE, r, construct);
    return 1;
}

int tc_layout_hardware(tc *t, const cc_expr *e)
{
    if (tc_pl_hardware(t, e)) return 1;
    if (e->kind != CC_E_CALL || !tc_pl_attr(t, e->u.call.fn, "TensorView") || e->u.call.fn->u.attr.value->kind != CC_E_NAME) return 0;
    for (uint32_t k = 0; k < e->u.call.nkws; k++)
        if (!strcmp(e->u.call.kws[k].name, "layout") && tc_pl_hardware(t, e->u.call.kws[k].value)) return 1;
    return 0;
}

/* Reports a pl name used where it means nothing: unknown, later,
 * hardware-internal, or not a value. */
static void *tc_pl_name_error(tc *t, const cc_expr *e)
{
    if (tc_pl_hardware(t, e)) return NULL;
    const cc_expr *root = e;
    while (root->kind == CC_E_ATTR && root->u.attr.value->kind == CC_E_ATTR) root = root->u.attr.value;
    const char *first = root->u.attr.name, *path = tc_pl_path(t, e);
    if (!path) return tc_oom(t);
    const cc_pl_name *n = cc_pl_name_find(first);
    if (!n) return tc_err(t, CC_DIAG_UNDEFINED, root->span, NULL, "%s.%s is not a pypto.language name", t->pl, first);
    if (n->status != CC_PL_SUPPORTED) {
        char construct[300];
        snprintf(construct, sizeof construct, "%s%s", n->kind == CC_PLK_DTYPE ? "dtype " : "", path);
        return tc_pl_unsupported(t, e->span, n->status, n->reason, construct);
    }
    return tc_err(t, CC_DIAG_TYPE, e->span, NULL, "%s cannot be used as a value here", path);
}

const cc_expr *tc_module_constant_ast(tc *t, const cc_expr *e)
{
    for (int hops = 0; e->kind == CC_E_NAME && !tc_is_local(t, e->u.name) && hops < 16; hops++) {
        const cc_expr *v = NULL;
        for (uint32_t k = t->m->nconstants; k-- > 0 && !v;)
            if (!strcmp(t->m->constants[k].name, e->u.name)) v = t->m->constants[k].value;
        if (!v) break;
        e = v;
    }
    return e;
}

int tc_dtype_arg(tc *t, const cc_expr *e, const char *what)
{
    e = tc_module_constant_ast(t, e);
    const char *name = tc_pl_attr(t, e, NULL);
    if (name && e->u.attr.value->kind == CC_E_NAME) {
        int d = cc_dtype_lookup(name);
        if (d >= 0 && d != CC_DT_TASK_ID) return d;
        const cc_pl_name *n = cc_pl_name_find(name);
        if (n && n->kind == CC_PLK_DTYPE && n->status != CC_PL_SUPPORTED) {
            char construct[96];
            snprintf(construct, sizeof construct, "dtype %s.%s", t->pl, name);
            tc_pl_unsupported(t, e->span, n->status, n->reason, construct);
            return -1;
        }
    }
    tc_err(t, CC_DIAG_TYPE, e->span, NULL, "%s must be a pl dtype (pl.FP32, pl.FP16, pl.BF16, pl.INT64, pl.INT32, pl.INT16, pl.INT8, pl.UINT32, pl.UINT16, pl.UINT8, pl.BOOL, pl.INDEX)", what);
    return -1;
}

int tc_tile_dtype_arg(tc *t, const cc_expr *e, const char *what)
{
    int dt = tc_dtype_arg(t, e, what);
    if (dt == CC_DT_INDEX || dt == CC_DT_BOOL) {
        tc_err(t, CC_DIAG_TYPE, e->span, NULL, "a tile dtype must be FP32, FP16, BF16, INT64, INT32, INT16, INT8, UINT32, UINT16 or UINT8");
        return -1;
    }
    return dt;
}

int tc_tensor_dtype_arg(tc *t, const cc_expr *e, const char *what)
{
    int dt = tc_dtype_arg(t, e, what);
    if (dt >= 0 && !cc_dtype_is_tensor((cc_dtype)dt)) {
        tc_err(t, CC_DIAG_TYPE, e->span, NULL, "a tensor dtype must be FP32, FP16, BF16, INT64, INT32, INT16, INT8, UINT32, UINT16, UINT8 or BOOL");
        return -1;
    }
    return dt;
}

/* ---- constants ------------------------------------------------------------------------- */

static cc_ir_expr *tc_const_eval(tc *t, const cc_expr *e);

static cc_ir_expr *tc_value_expr(tc *t, const pto_value *v, const char *name, cc_span sp)
{
    cc_ir_expr *x;
    switch (v->kind) {
    case PTO_VALUE_INT: return (x = cc_ir_int(t->a, v->i, sp)) ? x : tc_oom(t);
    case PTO_VALUE_BOOL:
        if (!(x = cc_ir_expr_new(t->a, CC_X_BOOL, sp))) return tc_oom(t);
        x->u.i = v->i != 0, x->type = (cc_type){.kind = CC_T_SCALAR, .dtype = CC_DT_BOOL};
        return x;
    case PTO_VALUE_FLOAT:
        if (!(x = cc_ir_expr_new(t->a, CC_X_FLOAT, sp))) return tc_oom(t);
        x->u.f = v->f, x->type = (cc_type){.kind = CC_T_SCALAR, .dtype = CC_DT_FP32};
        return x;
    case PTO_VALUE_STR:
        if (!(x = cc_ir_expr_new(t->a, CC_X_STR, sp))) return tc_oom(t);
        x->u.str = v->s ? v->s : "", x->type = (cc_type){.kind = CC_T_STR};
        return x;
    default:
        return tc_err(t, CC_DIAG_TYPE, sp, "pass it as an argument",
                      "'%s' refers to a %s object, which kernel code cannot capture; pass it as an argument", name,
                      v->s ? v->s : "Python");
    }
}

cc_ir_expr *tc_constant(tc *t, const char *name, cc_span sp, int *found)
{
    *found = 1;
    for (size_t k = 0; k < t->o->nconstants; k++)
        if (t->o->constants[k].name && !strcmp(t->o->constants[k].name, name))
            return tc_value_expr(t, &t->o->constants[k].value, name, sp);
    for (uint32_t k = t->m->nconstants; k-- > 0;) {
        const cc_constant *c = &t->m->constants[k];
        if (strcmp(c->name, name)) continue;
        if (c->value->kind == CC_E_CALL && tc_pl_attr(t, c->value->u.call.fn, "dynamic")) { /* a DynVar: its extent here */
            cc_ir_expr *x = tc_dynvar_value(t, c->value);
            if (x) x->span = sp;
            return x;
        }
        for (int g = 0; g < t->nconst_guard; g++)
            if (!strcmp(t->const_guard[g], name))
                return tc_err(t, CC_DIAG_TYPE, sp, NULL, "module constant '%s' is defined in terms of itself", name);
        if (t->nconst_guard == 16) return tc_err(t, CC_DIAG_TYPE, sp, NULL, "module constant '%s' nests too deeply", name);
        t->const_guard[t->nconst_guard++] = name;
        cc_ir_expr *v = tc_const_eval(t, c->value);
        t->nconst_guard--;
        if (!v) return NULL;
        cc_ir_expr *x = cc_ir_expr_clone(t->a, v);
        if (!x) return tc_oom(t);
        x->span = sp;
        return x;
    }
    *found = 0;
    return NULL;
}

/* A module constant's expression, folded. */
static cc_ir_expr *tc_const_eval(tc *t, const cc_expr *e)
{
    tc_ctx saved = t->c;
    t->c = (tc_ctx){.plane = TC_CONTROL, .f = saved.f, .module_scope = 1};
    cc_ir_expr *v = tc_expr(t, e);
    t->c = saved;
    if (v && v->kind != CC_X_INT && v->kind != CC_X_FLOAT && v->kind != CC_X_BOOL && v->kind != CC_X_STR && v->kind != CC_X_LIST)
        return tc_err(t, CC_DIAG_TYPE, e->span, NULL, "a module constant must be a constant expression");
    return v;
}

int tc_const_int(tc *t, const cc_expr *e, int64_t *v, const char *what)
{
    cc_ir_expr *x = tc_expr(t, e);
    if (!x) return 0;
    if (x->kind == CC_X_INT || x->kind == CC_X_BOOL) return *v = x->u.i, 1;
    tc_err(t, CC_DIAG_TYPE, e->span, NULL, "%s must be compile-time constants", what);
    return 0;
}

/* ---- annotations ----------------------------------------------------------------------- */

static int tc_tensor_annotation(tc *t, const cc_expr *ann, cc_type *ty, int *shaped)
{
    *ty = (cc_type){.kind = CC_T_TENSOR};
    t->view_valid.n = 0;
    if (tc_pl_attr(t, ann, "Tensor") && ann->u.attr.value->kind == CC_E_NAME) return *shaped = 0, 1;
    int dt_ann = ann->kind == CC_E_SUBSCRIPT && tc_is_dt_annotation(t, ann->u.sub.value); /* pld.DistributedTensor[[...], dtype] */
    if (ann->kind != CC_E_SUBSCRIPT || (!dt_ann && !tc_pl_attr(t, ann->u.sub.value, "Tensor"))) return -1;
    if (dt_ann) ty->window = CC_WIN_DT;
    const cc_expr *ix = ann->u.sub.index;
    for (uint32_t k = 2; ix->kind == CC_E_TUPLE && k < ix->u.seq.n; k++) /* pl.NZ, pl.TensorView(layout=pl.DN) */
        if (tc_layout_hardware(t, ix->u.seq.items[k])) return 0;
    const cc_expr *view = ix->kind == CC_E_TUPLE && ix->u.seq.n == 3 ? tc_tensor_view_entry(t, ix->u.seq.items[2]) : NULL;
    const cc_expr *dims = ix->kind == CC_E_TUPLE && (ix->u.seq.n == 2 || view) ? tc_module_constant_ast(t, ix->u.seq.items[0]) : NULL;
    if (!dims || (dims->kind != CC_E_LIST && dims->kind != CC_E_TUPLE))
        return tc_err(t, CC_DIAG_TYPE, ann->span, NULL, "a shaped tensor annotation reads pl.Tensor[[d0, d1, ...], dtype]"), 0;
    if (dims->u.seq.n < 1 || dims->u.seq.n > CC_MAX_RANK)
        return tc_err(t, CC_DIAG_TYPE, dims->span, NULL, "tensor rank must be 1 to 4, got %u", dims->u.seq.n), 0;
    ty->rank = (uint8_t)dims->u.seq.n;
    for (uint32_t d = 0; d < dims->u.seq.n; d++)
        if (!tc_annotation_dim(t, dims->u.seq.items[d], d, &ty->shape[d], &ty->dyn[d])) return 0;
    int dt = tc_tensor_dtype_arg(t, ix->u.seq.items[1], "the tensor annotation's dtype");
    if (dt < 0) return 0;
    ty->dtype = (uint8_t)dt;
    if (view && !tc_tensor_view(t, view, ty)) return 0;
    return *shaped = 1, 1;
}

int tc_annotation(tc *t, const cc_expr *ann, cc_type *ty, uint8_t *dir, int *shaped)
{
    *dir = CC_DIR_NONE, *shaped = 0;
    ann = tc_module_constant_ast(t, ann); /* T = pl.Tensor[...]: a module alias of a type */
    const cc_expr *inner = ann;
    if (ann->kind == CC_E_SUBSCRIPT && (tc_pl_attr(t, ann->u.sub.value, "Out") || tc_pl_attr(t, ann->u.sub.value, "InOut"))) {
        *dir = tc_pl_attr(t, ann->u.sub.value, "Out") ? CC_DIR_OUT : CC_DIR_INOUT;
        inner = tc_module_constant_ast(t, ann->u.sub.index);
    }
    int r = tc_tensor_annotation(t, inner, ty, shaped);
    if (r > 0 && ty->window == CC_WIN_DT) { /* window memory is shared and mutable: always InOut (DISTRIBUTED-SPEC §1.3) */
        if (*dir == CC_DIR_OUT) return tc_err(t, CC_DIAG_TYPE, ann->span, NULL, "a DistributedTensor parameter is always InOut"), 0;
        *dir = CC_DIR_INOUT;
    }
    if (r >= 0) return r;
    if (*dir) return tc_err(t, CC_DIAG_TYPE, ann->span, NULL, "pl.Out/pl.InOut apply to tensor parameters only"), 0;
    if (tc_pl_attr(t, ann, "TaskId") && ann->u.attr.value->kind == CC_E_NAME) {
        *ty = (cc_type){.kind = CC_T_SCALAR, .dtype = CC_DT_TASK_ID};
        return *shaped = 1, 1;
    }
    if (tc_pl_attr(t, ann, "Scalar") && ann->u.attr.value->kind == CC_E_NAME) {
        *ty = (cc_type){.kind = CC_T_SCALAR, .dtype = CC_DT_INDEX};
        return 1;
    }
    const char *bare = ann->kind == CC_E_ATTR && ann->u.attr.value->kind == CC_E_NAME ? tc_pl_attr(t, ann, NULL) : NULL;
    const cc_pl_name *bn = bare ? cc_pl_name_find(bare) : NULL;
    if (bn && bn->kind == CC_PLK_DTYPE && bn->status == CC_PL_SUPPORTED && strcmp(bare, "TASK_ID")) { /* n: pl.INDEX */
        int dt = tc_dtype_arg(t, ann, "a scalar annotation");
        if (dt < 0) return 0;
        *ty = (cc_type){.kind = CC_T_SCALAR, .dtype = (uint8_t)dt};
        return *shaped = 1, 1;
    }
    if (ann->kind == CC_E_SUBSCRIPT && tc_pl_attr(t, ann->u.sub.value, "Scalar")) {
        int dt = tc_dtype_arg(t, ann->u.sub.index, "pl.Scalar[...]");
        if (dt < 0) return 0;
        *ty = (cc_type){.kind = CC_T_SCALAR, .dtype = (uint8_t)dt};
        return *shaped = 1, 1;
    }
    const cc_expr *head = ann->kind == CC_E_SUBSCRIPT ? ann->u.sub.value : ann;
    if (tc_pl_attr(t, head, "Tile") && head->u.attr.value->kind == CC_E_NAME) /* tc_mem.c checks it on an assignment */
        return tc_err(t, CC_DIAG_UNSUPPORTED, head->span, NULL,
                      "a pl.Tile annotation of an entry parameter or of a result of a function that is not inline is not supported in "
                      "this version"),
               0;
    if (head->kind == CC_E_ATTR && tc_pl_path(t, head)) return tc_pl_name_error(t, head), 0;
    return tc_err(t, CC_DIAG_TYPE, ann->span, NULL,
                  "an annotation must be pl.Tensor, pl.Tensor[[...], dtype], pl.Out[...], pl.InOut[...], pl.Scalar[...] or pl.TaskId"), 0;
}

int tc_result_annotation(tc *t, const cc_expr *ann, tc_result_ann *out)
{
    *out = (tc_result_ann){.ann = ann};
    if (!ann || ann->kind == CC_E_NONE) return 1;
    const cc_expr *const *items = &ann;
    uint32_t n = 1;
    if (ann->kind == CC_E_SUBSCRIPT && ann->u.sub.value->kind == CC_E_NAME && !strcmp(ann->u.sub.value->u.name, "tuple")) {
        const cc_expr *ix = ann->u.sub.index;
        out->tuple = 1;
        if (ix->kind == CC_E_TUPLE) items = (const cc_expr *const *)ix->u.seq.items, n = ix->u.seq.n;
        else items = (const cc_expr *const *)&ann->u.sub.index;
    }
    if (n && (!(out->types = base_arena_alloc(t->a, n * sizeof *out->types)) || !(out->shaped = base_arena_alloc(t->a, n)) ||
              !(out->tiles = base_arena_alloc(t->a, n * sizeof *out->tiles))))
        return tc_oom(t), 0;
    for (uint32_t k = 0; k < n; k++) {
        uint8_t dir;
        int shaped;
        out->tiles[k] = NULL;
        if (t->c.fn->kind == CC_FUNC_INLINE && tc_is_tile_annotation(t, items[k])) { /* -> pl.Tile[...]: checked at the return */
            out->types[k] = (cc_type){.kind = CC_T_TILE}, out->shaped[k] = 0, out->tiles[k] = items[k];
            continue;
        }
        if (!tc_annotation(t, items[k], &out->types[k], &dir, &shaped)) return 0;
        if (dir) return tc_err(t, CC_DIAG_TYPE, items[k]->span, NULL, "pl.Out/pl.InOut apply to tensor parameters only"), 0;
        out->shaped[k] = (uint8_t)shaped;
    }
    out->n = n;
    return 1;
}

/* ---- scalar arithmetic ------------------------------------------------------------------ */

static int tc_is_scalar(const cc_ir_expr *x) { return x->type.kind == CC_T_SCALAR; }

cc_ir_expr *tc_scalar_binary(tc *t, cc_op op, cc_ir_expr *l, cc_ir_expr *r, cc_span sp)
{
    if (l->type.dtype == CC_DT_TASK_ID || r->type.dtype == CC_DT_TASK_ID)
        return tc_err(t, CC_DIAG_TYPE, sp, NULL, "a TaskId can only be passed in deps=");
    int lf = cc_dtype_is_float(l->type.dtype), rf = cc_dtype_is_float(r->type.dtype);
    if (op == CC_OP_DIV && !lf && !rf)
        return tc_err(t, CC_DIAG_TYPE, sp, NULL, "true division of integers is not supported in kernel code; use //");
    int64_t ri;
    if ((op == CC_OP_FLOORDIV || op == CC_OP_MOD) && cc_ir_const_int(r, &ri) && ri == 0)
        return tc_err(t, CC_DIAG_INVALID_OP, r->span, NULL, "integer division or modulo by zero");
    if (op >= CC_OP_BITOR && (lf || rf)) /* Python's TypeError for floats */
        return tc_err(t, CC_DIAG_TYPE, sp, NULL, "operator '%s' needs integer scalars, got %s", cc_op_text(op),
                      cc_dtype_name((cc_dtype)(lf ? l->type.dtype : r->type.dtype)));
    if ((op == CC_OP_LSHIFT || op == CC_OP_RSHIFT) && cc_ir_const_int(r, &ri) && ri < 0)
        return tc_err(t, CC_DIAG_INVALID_OP, r->span, NULL, "negative shift count");
    cc_ir_expr *e = cc_ir_fold(t->a, cc_ir_binary(t->a, op, l, r, sp));
    return e ? e : tc_oom(t);
}

int tc_constant_ast(tc *t, const cc_expr *e)
{
    switch (e->kind) {
    case CC_E_INT: case CC_E_FLOAT: return 1;
    case CC_E_NAME: return !tc_is_local(t, e->u.name);
    case CC_E_UNARY: return tc_constant_ast(t, e->u.un.operand);
    case CC_E_BINARY: return tc_constant_ast(t, e->u.bin.left) && tc_constant_ast(t, e->u.bin.right);
    default: return 0;
    }
}

cc_ir_expr *tc_constant_as(tc *t, cc_ir_expr *v, int dt, const char *who)
{
    cc_scalar a;
    if ((v->kind != CC_X_INT && v->kind != CC_X_FLOAT) || v->type.dtype == dt || dt == CC_DT_BOOL || dt == CC_DT_TASK_ID || !cc_scalar_of(v, &a))
        return v;
    cc_dtype from = (cc_dtype)v->type.dtype;
    if (!cc_scalar_fits(from, (cc_dtype)dt, a))
        return v->kind == CC_X_FLOAT ? tc_err(t, CC_DIAG_TYPE, v->span, NULL, "%s = %g does not fit pl.%s", who, v->u.f, cc_dtype_name((cc_dtype)dt))
                                     : tc_err(t, CC_DIAG_TYPE, v->span, NULL, "%s = %lld does not fit pl.%s", who, (long long)v->u.i,
                                              cc_dtype_name((cc_dtype)dt));
    cc_ir_expr *c = cc_scalar_expr(t->a, (cc_dtype)dt, cc_scalar_cast(from, (cc_dtype)dt, CC_CAST_ROUND, a), v->span);
    return c ? c : tc_oom(t);
}

/* ---- expressions ----------------------------------------------------------------------- */

static cc_ir_expr *tc_name(tc *t, const cc_expr *e)
{
    const char *n = e->u.name;
    tc_bind *b = tc_lookup(&t->c.env, n);
    if (b) {
        if (b->conflict) return tc_kind_conflict(t, b, e->span), NULL;
        if (b->value) {
            cc_ir_expr *v = cc_ir_expr_clone(t->a, b->value);
            if (v) v->span = e->span;
            return v ? v : tc_oom(t);
        }
        if (!b->definite && tc_scope_escape(t, b, e->span)) return NULL;
        if (!b->definite)
            return tc_err(t, CC_DIAG_UNDEFINED, e->span, NULL, "'%s' may be used before assignment (assigned only in some branches)", n);
        cc_ir_expr *v = cc_ir_var(t->a, n, b->type, e->span);
        return v ? v : tc_oom(t);
    }
    if (tc_is_local(t, n)) return tc_err(t, CC_DIAG_UNDEFINED, e->span, NULL, "'%s' is used before assignment", n);
    int found;
    cc_ir_expr *c = tc_constant(t, n, e->span, &found);
    if (found) return c;
    if (tc_callee(t, e))
        return tc_err(t, CC_DIAG_TYPE, e->span, "call it, or pass it to pl.submit", "function '%s' cannot be used as a value", n);
    return tc_err(t, CC_DIAG_UNDEFINED, e->span, NULL, "name '%s' is not defined", n);
}

static cc_ir_expr *tc_literal(tc *t, const cc_expr *e)
{
    static const uint8_t kinds[] = {[CC_E_INT] = CC_X_INT, [CC_E_FLOAT] = CC_X_FLOAT, [CC_E_BOOL] = CC_X_BOOL, [CC_E_STRING] = CC_X_STR};
    cc_ir_expr *x = cc_ir_expr_new(t->a, kinds[e->kind], e->span);
    if (!x) return tc_oom(t);
    switch (e->kind) {
    case CC_E_INT: x->u.i = e->u.i, x->type = (cc_type){.kind = CC_T_SCALAR, .dtype = CC_DT_INDEX}; break;
    case CC_E_BOOL: x->u.i = e->u.i, x->type = (cc_type){.kind = CC_T_SCALAR, .dtype = CC_DT_BOOL}; break;
    case CC_E_FLOAT: x->u.f = e->u.f, x->type = (cc_type){.kind = CC_T_SCALAR, .dtype = CC_DT_FP32}; break;
    default:
        if (!(x->u.str = base_arena_strndup(t->a, e->u.str.text, e->u.str.len))) return tc_oom(t);
        x->type = (cc_type){.kind = CC_T_STR};
        break;
    }
    return x;
}

static cc_ir_expr *tc_list(tc *t, const cc_expr *e)
{
    cc_ir_expr *x = cc_ir_expr_new(t->a, CC_X_LIST, e->span);
    if (!x) return tc_oom(t);
    x->type = (cc_type){.kind = CC_T_LIST};
    x->u.list.n = e->u.seq.n;
    if (e->u.seq.n && !(x->u.list.items = base_arena_alloc(t->a, e->u.seq.n * sizeof *x->u.list.items))) return tc_oom(t);
    for (uint32_t k = 0; k < e->u.seq.n; k++)
        if (!(x->u.list.items[k] = tc_expr(t, e->u.seq.items[k]))) return NULL;
    return x;
}

static const cc_ir_op tc_tile_ops[] = {[CC_OP_ADD] = CC_IR_ADD, [CC_OP_SUB] = CC_IR_SUB, [CC_OP_MUL] = CC_IR_MUL, [CC_OP_DIV] = CC_IR_DIV};

static cc_ir_expr *tc_binary(tc *t, const cc_expr *e)
{
    cc_ir_expr *l = tc_expr(t, e->u.bin.left), *r = l ? tc_expr(t, e->u.bin.right) : NULL;
    if (!r) return NULL;
    cc_op op = e->u.bin.op;
    int ltile = l->type.kind == CC_T_TILE || l->type.kind == CC_T_TENSOR; /* in orchestration: a misplaced tensor op */
    if (ltile) {
        static const char *const ops[] = {[CC_OP_BITOR] = "pl.or_ / pl.ors", [CC_OP_BITXOR] = "pl.xor / pl.xors", [CC_OP_BITAND] = "pl.and_ / pl.ands",
                                          [CC_OP_LSHIFT] = "pl.shl / pl.shls", [CC_OP_RSHIFT] = "pl.shr / pl.shrs"};
        char hint[48];
        if (op >= CC_OP_BITOR) snprintf(hint, sizeof hint, "use %s", ops[op]);
        if (op > CC_OP_DIV || op == CC_OP_FLOORDIV)
            return tc_err(t, CC_DIAG_UNSUPPORTED, e->span, op >= CC_OP_BITOR ? hint : NULL, "tile operator '%s' is not supported in this version",
                          cc_op_text(op));
        return tc_tile_binary(t, tc_tile_ops[op], l, r, e->span);
    }
    /* scalar <op> tile: "the scalar operand must be on the right" (in orchestration: a misplaced tensor op) */
    if ((r->type.kind == CC_T_TILE || r->type.kind == CC_T_TENSOR) && tc_is_scalar(l) && op <= CC_OP_DIV && op != CC_OP_FLOORDIV)
        return tc_tile_binary(t, tc_tile_ops[op], l, r, e->span);
    if (!tc_is_scalar(l) || !tc_is_scalar(r)) {
        char a[96], b[96];
        cc_type_format(&l->type, a, sizeof a), cc_type_format(&r->type, b, sizeof b);
        return tc_err(t, CC_DIAG_TYPE, e->span, NULL, "operator '%s' needs scalar operands, got %s and %s", cc_op_text(op), a, b);
    }
    return tc_scalar_binary(t, op, l, r, e->span);
}

static cc_ir_expr *tc_unary(tc *t, const cc_expr *e)
{
    cc_ir_expr *x = tc_expr(t, e->u.un.operand);
    if (!x) return NULL;
    if (e->u.un.op == CC_OP_POS) return x;
    if (e->u.un.op == CC_OP_NEG && (x->type.kind == CC_T_TILE || (x->type.kind == CC_T_TENSOR && t->c.plane != TC_CONTROL)))
        return tc_tile_unary(t, CC_IR_NEG, x, e->span);
    if (!tc_is_scalar(x)) return tc_err(t, CC_DIAG_TYPE, e->span, NULL, "operator '%s' needs a scalar operand", cc_op_text(e->u.un.op));
    if (x->type.dtype == CC_DT_TASK_ID) return tc_err(t, CC_DIAG_TYPE, e->span, NULL, "a TaskId can only be passed in deps=");
    if (e->u.un.op == CC_OP_INVERT && cc_dtype_is_float((cc_dtype)x->type.dtype))
        return tc_err(t, CC_DIAG_TYPE, e->span, NULL, "operator '~' needs an integer scalar, got %s", cc_dtype_name((cc_dtype)x->type.dtype));
    /* -x and ~x are arithmetic: int64 or FP32, as for binary operators */
    cc_type neg = {.kind = CC_T_SCALAR, .dtype = cc_dtype_is_float((cc_dtype)x->type.dtype) ? CC_DT_FP32 : CC_DT_INDEX};
    cc_ir_expr *u = cc_ir_expr_new(t->a, CC_X_UNARY, e->span);
    if (!u) return tc_oom(t);
    u->u.un.op = e->u.un.op, u->u.un.x = x;
    u->type = e->u.un.op == CC_OP_NOT ? (cc_type){.kind = CC_T_SCALAR, .dtype = CC_DT_BOOL} : neg;
    if ((e->u.un.op == CC_OP_NEG || e->u.un.op == CC_OP_INVERT) && !(u = cc_ir_fold(t->a, u))) return tc_oom(t);
    return u;
}

static cc_ir_expr *tc_compare(tc *t, const cc_expr *e)
{
    cc_ir_expr *l = tc_expr(t, e->u.bin.left), *r = l ? tc_expr(t, e->u.bin.right) : NULL;
    if (!r) return NULL;
    if (!tc_is_scalar(l) || !tc_is_scalar(r))
        return tc_err(t, CC_DIAG_TYPE, e->span, NULL, "'%s' compares scalars only", cc_op_text(e->u.bin.op));
    if (l->type.dtype == CC_DT_TASK_ID || r->type.dtype == CC_DT_TASK_ID)
        return tc_err(t, CC_DIAG_TYPE, e->span, NULL, "a TaskId can only be passed in deps=");
    cc_ir_expr *x = cc_ir_binary(t->a, e->u.bin.op, l, r, e->span);
    return x ? x : tc_oom(t);
}

static cc_ir_expr *tc_call(tc *t, const cc_expr *e)
{
    const cc_expr *fn = e->u.call.fn;
    if (fn->kind == CC_E_NAME && (!strcmp(fn->u.name, "min") || !strcmp(fn->u.name, "max")) && !tc_is_local(t, fn->u.name)) {
        if (e->u.call.nargs != 2 || e->u.call.nkws)
            return tc_err(t, CC_DIAG_TYPE, e->span, NULL, "%s() takes exactly 2 arguments in kernel code", fn->u.name);
        cc_ir_expr *l = tc_expr(t, e->u.call.args[0]), *r = l ? tc_expr(t, e->u.call.args[1]) : NULL;
        if (!r) return NULL;
        if (!tc_is_scalar(l) || !tc_is_scalar(r)) return tc_err(t, CC_DIAG_TYPE, e->span, "use pl.maximum / pl.minimum for tiles", "%s() takes scalars", fn->u.name);
        return tc_scalar_binary(t, fn->u.name[1] == 'i' ? CC_OP_MIN : CC_OP_MAX, l, r, e->span);
    }
    const char *pld = tc_pld_path(t, fn);
    if (pld) return tc_pld_call(t, e, pld);
    if (fn->kind == CC_E_ATTR && !strcmp(fn->u.attr.name, "get_byte") && tc_pl_attr(t, fn->u.attr.value, NULL)) {
        /* pl.<DT>.get_byte(): the element size, a constant (DISTRIBUTED-SPEC §1.3) */
        if (e->u.call.nargs || e->u.call.nkws) return tc_err(t, CC_DIAG_TYPE, e->span, NULL, "get_byte() takes no arguments");
        int d = tc_dtype_arg(t, fn->u.attr.value, "get_byte()'s receiver");
        if (d < 0) return NULL;
        cc_ir_expr *n = cc_ir_int(t->a, (int64_t)cc_dtype_size((cc_dtype)d), e->span);
        return n ? n : tc_oom(t);
    }
    const char *op = tc_pl_attr(t, fn, NULL);
    if (op && fn->u.attr.value->kind == CC_E_NAME && (!strcmp(op, "min") || !strcmp(op, "max"))) { /* builtin min/max */
        if (e->u.call.nargs != 2 || e->u.call.nkws)
            return tc_err(t, CC_DIAG_TYPE, e->span, NULL, "pl.%s() takes exactly 2 arguments", op);
        cc_ir_expr *l = tc_expr(t, e->u.call.args[0]), *r = l ? tc_expr(t, e->u.call.args[1]) : NULL;
        if (!r) return NULL;
        if (!tc_is_scalar(l) || !tc_is_scalar(r))
            return tc_err(t, CC_DIAG_TYPE, e->span, NULL, "pl.min/pl.max take scalars; use pl.minimum/pl.maximum for tiles");
        return tc_scalar_binary(t, op[1] == 'i' ? CC_OP_MIN : CC_OP_MAX, l, r, e->span);
    }
    if (op && fn->u.attr.value->kind == CC_E_NAME) {
        if (!strcmp(op, "submit")) {
            tc_fn *k = e->u.call.nargs ? tc_callee(t, e->u.call.args[0]) : NULL;
            if (t->c.plane == TC_KERNEL) return tc_control_in_kernel(t, e->span, "pl.submit");
            if (t->c.host) return tc_host_forbidden(t, e->span, "pl.submit");
            if (!k)
                return tc_err(t, CC_DIAG_SYNTAX, e->u.call.nargs ? e->u.call.args[0]->span : e->span, NULL,
                              "pl.submit(...) first argument must be a self.<kernel> method reference or a @pl.jit.incore function");
            return tc_func_call(t, k, e, 1, 1);
        }
        if (!strcmp(op, "spmd_submit")) return tc_spmd_submit(t, e);
        if (!strcmp(op, "no_dep")) return tc_no_dep_arg(t, e, 0); /* a kernel call's argument is taken there */
        if (!strcmp(op, "dynamic")) return tc_dynvar_value(t, e);
        const cc_pl_name *n = cc_pl_name_find(op);
        if (n && n->status == CC_PL_SUPPORTED) return tc_mem_result(tc_pl_call(t, e, op));
        if (tc_layout_hardware(t, e)) return NULL; /* pl.TensorView(layout=pl.NZ) */
        return tc_pl_name_error(t, fn);
    }
    if (fn->kind == CC_E_ATTR && tc_pl_path(t, fn)) {
        const cc_expr *ns = fn->u.attr.value;
        if (tc_is_array_create(t, fn)) return tc_array_create(t, e);
        if (ns->kind == CC_E_ATTR && ns->u.attr.value->kind == CC_E_NAME && tc_pl_attr(t, ns, "system") &&
            !strcmp(fn->u.attr.name, "task_dummy"))
            return tc_task_dummy(t, e);
        if (ns->kind == CC_E_ATTR && ns->u.attr.value->kind == CC_E_NAME && !strcmp(fn->u.attr.name, "set_cache_policy") &&
            tc_pl_attr(t, ns, "tensor"))
            return tc_err(t, CC_DIAG_SYNTAX, e->span, NULL,
                          "pl.set_cache_policy() must be a standalone statement directly inside a pl.at(...) / pl.spmd(...) scope body");
        if (ns->kind == CC_E_ATTR && ns->u.attr.value->kind == CC_E_NAME && (tc_pl_attr(t, ns, "tile") || tc_pl_attr(t, ns, "tensor")))
            return tc_mem_result(tc_pl_namespace_call(t, e, tc_pl_attr(t, ns, "tile") ? CC_OPNS_TILE : CC_OPNS_TENSOR));
        return tc_pl_name_error(t, fn);
    }
    tc_fn *callee = tc_callee(t, fn);
    if (callee) return tc_func_call(t, callee, e, 0, 0);
    if (fn->kind == CC_E_NAME) {
        if (tc_is_local(t, fn->u.name) || tc_lookup(&t->c.env, fn->u.name))
            return tc_err(t, CC_DIAG_TYPE, fn->span, NULL, "'%s' is not callable", fn->u.name);
        int found;
        if (tc_constant(t, fn->u.name, fn->span, &found) || found)
            return found ? tc_err(t, CC_DIAG_TYPE, fn->span, NULL, "'%s' is not callable", fn->u.name) : NULL;
        return tc_err(t, CC_DIAG_UNDEFINED, fn->span, NULL, "name '%s' is not defined", fn->u.name);
    }
    if (fn->kind == CC_E_ATTR && fn->u.attr.value->kind == CC_E_NAME && !strcmp(fn->u.attr.value->u.name, "self"))
        return tc_err(t, CC_DIAG_UNDEFINED, fn->span, NULL, "program '%s' has no function '%s'", t->p->name ? t->p->name : "?",
                      fn->u.attr.name);
    return tc_err(t, CC_DIAG_UNSUPPORTED, fn->span, NULL, "this call is not supported in kernel code");
}

cc_ir_expr *tc_expr(tc *t, const cc_expr *e)
{
    switch (e->kind) {
    case CC_E_NAME: return tc_name(t, e);
    case CC_E_INT: case CC_E_FLOAT: case CC_E_BOOL: case CC_E_STRING: return tc_literal(t, e);
    case CC_E_NONE: return tc_err(t, CC_DIAG_TYPE, e->span, NULL, "None is not a value in kernel code");
    case CC_E_LIST: case CC_E_TUPLE: return tc_list(t, e);
    case CC_E_BINARY: return tc_binary(t, e);
    case CC_E_UNARY: return tc_unary(t, e);
    case CC_E_COMPARE: case CC_E_BOOLOP: return tc_compare(t, e);
    case CC_E_CALL: return tc_call(t, e);
    case CC_E_SUBSCRIPT: return tc_subscript(t, e);
    case CC_E_SLICE: return tc_err(t, CC_DIAG_SYNTAX, e->span, NULL, "a slice stands only inside a subscript");
    case CC_E_ATTR:
        if (tc_pl_path(t, e)) return tc_pl_name_error(t, e);
        return tc_err(t, CC_DIAG_UNSUPPORTED, e->span, NULL, "attribute '.%s' is not supported in this version", e->u.attr.name);
    }
    return tc_err(t, CC_DIAG_INTERNAL, e->span, NULL, "unknown expression (internal compiler error; please report)");
}
