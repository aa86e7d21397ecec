/*
 * tc_dynamic.c - dynamic dimensions (DSL-V2-SPEC §5; docs/dsl.md, "Dynamic
 * shapes"): which annotation dimensions are DynVars, how a function's
 * parameters bind them, and pl.tensor.dim.
 *
 * Invariants: a DynVar is a module constant whose value is a
 * `pl.dynamic("<name>")` call (a closure's DynVar is spelled so after the
 * file's text by the shim), or, in any text, a name used as an annotation
 * dimension and defined nowhere (pl.parse of a printed program: P4-10).  Its
 * symbol is the index of that call's constant (of the undefined name, after
 * the module's constants) from its module's base (tc_dyn_symbol: modules of
 * other files number theirs apart), so one object is one symbol in every annotation
 * and function, and two pl.dynamic calls are two symbols even with one name.
 * A dynamic dimension is the shape entry CC_DIM_DYN(symbol) with its name
 * in type.dyn; tile shapes never hold one.  An entry binds each symbol to the
 * argument's extent (one extent per symbol per call, checked here at compile
 * time and by exec/bind.c at each run); a callee binds it per call site to
 * the caller's dimension (a constant or the caller's own symbol), and its
 * parameter takes the caller's type, except that a kernel's constant
 * dimension stays (a run-time extent there is checked at submit).
 *
 * A run-time extent (an orchestration pl.create_tensor or pl.slice shape
 * entry that is a run-time scalar) is a symbol from CC_DIM_RUNTIME0 on, one
 * per value: a variable's binding keeps the symbol it got (tc_bind.extent),
 * so every entry naming that binding is the same dimension.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "compiler/source.h"
#include "compiler/tc.h"

#define TC_N(ps) ((uint32_t)(sizeof(ps) / sizeof((ps)[0])))

static int tc_identifier(const char *s, uint32_t n)
{
    if (!n || !(isalpha((unsigned char)s[0]) || s[0] == '_')) return 0;
    for (uint32_t k = 1; k < n; k++)
        if (!(isalnum((unsigned char)s[k]) || s[k] == '_')) return 0;
    return 1;
}

/* Is e (a call) `pl.dynamic(...)`? */
static int tc_is_dynamic_call(const tc *t, const cc_expr *e)
{
    return e->kind == CC_E_CALL && tc_pl_attr(t, e->u.call.fn, "dynamic") && e->u.call.fn->u.attr.value->kind == CC_E_NAME;
}

/* The name of the DynVar call c; NULL when reported. */
static const char *tc_dynvar_name(tc *t, const cc_expr *c)
{
    if (c->u.call.nargs != 1 || c->u.call.nkws || c->u.call.args[0]->kind != CC_E_STRING)
        return tc_err(t, CC_DIAG_TYPE, c->span, NULL, "pl.dynamic() takes one argument, the dimension's name as a string literal");
    const cc_expr *s = c->u.call.args[0];
    if (!tc_identifier(s->u.str.text, s->u.str.len))
        return tc_err(t, CC_DIAG_TYPE, s->span, NULL, "DynVar name must be a valid identifier, got '%.*s'", (int)s->u.str.len, s->u.str.text);
    const char *n = base_arena_strndup(t->a, s->u.str.text, s->u.str.len);
    return n ? n : tc_oom(t);
}

/* A pl.dynamic call not bound to a name: its one use has nothing to share the symbol with. */
static void *tc_inline_dynvar(tc *t, const cc_expr *call)
{
    return tc_err(t, CC_DIAG_UNSUPPORTED, call->span, "bind it to a name at module level: M = pl.dynamic(\"M\")",
                  "an inline pl.dynamic(...) is not supported in this version");
}

/* The symbol of the DynVar of constant k of the current module (after its constants: an
 * undefined dimension name): each module numbers its own, from its own base. */
#define TC_DYN_PER_MODULE ((int64_t)1 << 12)
static int64_t tc_dyn_symbol(const tc *t, uint32_t k) { return CC_DIM_DYN(t->cur * TC_DYN_PER_MODULE + k); }

/* The name of the DynVar of constant at, *name, made distinct from those of earlier DynVars
 * with the same name (the second "R" is "R_2"), so that printed annotations keep two symbols
 * apart; 0 when out of memory. */
static int tc_distinct_name(tc *t, int32_t at, const char **name)
{
    uint32_t same = 0;
    for (int32_t k = 0; k < at; k++) {
        if (!strcmp(t->m->constants[k].name, t->m->constants[at].name)) continue; /* the same name bound again */
        const cc_expr *v = t->m->constants[k].value;
        const cc_expr *s = tc_is_dynamic_call(t, v) && v->u.call.nargs == 1 ? v->u.call.args[0] : NULL;
        same += s && s->kind == CC_E_STRING && s->u.str.len == strlen(*name) && !memcmp(s->u.str.text, *name, s->u.str.len);
    }
    if (!same) return 1;
    char buf[160];
    snprintf(buf, sizeof buf, "%s_%u", *name, same + 1);
    return (*name = base_arena_strndup(t->a, buf, strlen(buf))) ? 1 : (tc_oom(t), -1);
}

int tc_dynvar(tc *t, const cc_expr *e, int64_t *dim, const char **name)
{
    if (e->kind == CC_E_CALL && tc_is_dynamic_call(t, e)) return tc_inline_dynvar(t, e), -1;
    if (e->kind != CC_E_NAME || tc_is_local(t, e->u.name)) return 0;
    const char *look = e->u.name;
    for (int hops = 0; hops < 16; hops++) {
        int32_t at = -1;
        for (uint32_t k = t->m->nconstants; k-- > 0 && at < 0;)
            if (!strcmp(t->m->constants[k].name, look)) at = (int32_t)k;
        if (at < 0) break;
        const cc_expr *v = t->m->constants[at].value;
        if (v->kind == CC_E_NAME) {
            look = v->u.name;
            continue;
        }
        if (!tc_is_dynamic_call(t, v)) return 0;
        if (!(*name = tc_dynvar_name(t, v))) return -1;
        *dim = tc_dyn_symbol(t, at);
        return tc_distinct_name(t, at, name);
    }
    /* a dimension name defined nowhere (a printed program's DynVar without its line, P4-10) */
    for (size_t k = 0; k < t->o->nconstants; k++)
        if (t->o->constants[k].name && !strcmp(t->o->constants[k].name, look)) return 0;
    for (uint32_t k = 0; k < t->nimplicit_dyn; k++)
        if (!strcmp(t->implicit_dyn[k], look)) return *name = t->implicit_dyn[k], *dim = tc_dyn_symbol(t, t->m->nconstants + k), 1;
    if (t->nimplicit_dyn == TC_MAX_IMPLICIT_DYN)
        return tc_err(t, CC_DIAG_TYPE, e->span, NULL, "more than %d undefined dimension names", TC_MAX_IMPLICIT_DYN), -1;
    t->implicit_dyn[t->nimplicit_dyn] = look;
    *name = look, *dim = tc_dyn_symbol(t, t->m->nconstants + t->nimplicit_dyn++);
    return 1;
}

int64_t tc_world_dim(tc *t, cc_span sp, const char **name)
{
    cc_expr world = {.kind = CC_E_NAME, .span = sp};
    world.u.name = "pld_world_size"; /* the module's DynVar of that name (a printed program's), else an implicit one */
    int64_t dim = 0;
    return tc_dynvar(t, &world, &dim, name) == 1 ? dim : 0;
}

/* Does e mention a DynVar (arithmetic over one)? */
static int tc_mentions_dynvar(tc *t, const cc_expr *e)
{
    if (e->kind == CC_E_NAME) {
        int64_t d;
        const char *n;
        return tc_dynvar(t, e, &d, &n) == 1;
    }
    if (e->kind == CC_E_BINARY) return tc_mentions_dynvar(t, e->u.bin.left) || tc_mentions_dynvar(t, e->u.bin.right);
    if (e->kind == CC_E_UNARY) return tc_mentions_dynvar(t, e->u.un.operand);
    return 0;
}

int tc_annotation_dim(tc *t, const cc_expr *e, uint32_t d, int64_t *dim, const char **name)
{
    *name = NULL;
    int r = tc_dynvar(t, e, dim, name);
    if (r) return r > 0;
    if (tc_mentions_dynvar(t, e)) return tc_derived_dim(t, e, dim, name); /* N * 2 */
    if (!tc_const_int(t, e, dim, "tensor annotation shapes")) return 0;
    if (*dim <= 0)
        return tc_err(t, CC_DIAG_TYPE, e->span, NULL, "tensor dimension %u must be positive, got %lld", d, (long long)*dim), 0;
    return 1;
}

/* The binding of symbol sym in b, or NULL. */
static tc_dyn_binding *tc_dyn_find(tc_dyn_bindings *b, int64_t sym)
{
    for (uint32_t k = 0; k < b->n; k++)
        if (b->items[k].sym == sym) return &b->items[k];
    return NULL;
}

int tc_dyn_bind_entry(tc *t, tc_dyn_bindings *b, const char *who, const char *param, cc_type *ann, const int64_t *extents,
                      cc_span sp)
{
    for (uint32_t d = 0; d < ann->rank; d++) {
        if (!CC_DIM_IS_DYN(ann->shape[d])) continue;
        tc_dyn_binding *have = tc_dyn_find(b, ann->shape[d]);
        if (!have) {
            if (b->n == TC_MAX_DYN_BINDINGS)
                return tc_err(t, CC_DIAG_TYPE, sp, NULL, "more than %d dynamic dimensions in one signature", TC_MAX_DYN_BINDINGS), 0;
            b->items[b->n++] = (tc_dyn_binding){.sym = ann->shape[d], .value = extents[d], .param = param};
            continue;
        }
        if (have->value != extents[d])
            return tc_err(t, CC_DIAG_PY_TYPE, sp, NULL, "%s: dynamic dimension '%s' is %lld for argument '%s' but %lld for argument '%s'",
                           who, ann->dyn[d], (long long)have->value, have->param, (long long)extents[d], param), 0;
    }
    return 1;
}

/* Does argument dimension a stand for constant parameter dimension p: equal, or (run_time_ok)
 * a run-time extent, checked when the task is submitted? */
static int tc_static_dim_fits(int64_t p, int64_t a, int run_time_ok) { return p == a || (run_time_ok && CC_DIM_IS_RUNTIME(a)); }

int tc_dyn_match(tc_dyn_bindings *b, const cc_type *ann, const cc_type *arg, int run_time_ok)
{
    if (ann->kind != arg->kind || ann->dtype != arg->dtype || ann->rank != arg->rank) return 0;
    for (uint32_t d = 0; d < ann->rank; d++) {
        if (!CC_DIM_IS_DYN(ann->shape[d])) {
            if (!tc_static_dim_fits(ann->shape[d], arg->shape[d], run_time_ok)) return 0;
            continue;
        }
        tc_dyn_binding *have = tc_dyn_find(b, ann->shape[d]);
        if (have && have->value != arg->shape[d]) return 0;
        if (!have && b->n < TC_MAX_DYN_BINDINGS)
            b->items[b->n++] = (tc_dyn_binding){.sym = ann->shape[d], .value = arg->shape[d], .name = arg->dyn[d]};
    }
    return 1;
}

void tc_dyn_substitute(const tc_dyn_bindings *b, cc_type *ty)
{
    for (uint32_t d = 0; ty->kind == CC_T_TENSOR && d < ty->rank; d++)
        for (uint32_t k = 0; CC_DIM_IS_DYN(ty->shape[d]) && k < b->n; k++)
            if (b->items[k].sym == ty->shape[d]) {
                ty->shape[d] = b->items[k].value, ty->dyn[d] = CC_DIM_IS_DYN(b->items[k].value) ? b->items[k].name : NULL;
                break;
            }
}

/* ---- run-time extents of orchestration tensors ---- */

int tc_extent_dim(tc *t, const cc_ir_expr *x, const char *what, uint32_t d, int64_t *dim, const char **name)
{
    *name = NULL;
    if (x->type.dtype == CC_DT_BOOL) /* the callers' lists hold integer scalars; a bool is one there */
        return tc_err(t, CC_DIAG_TYPE, x->span, NULL, "pl.%s shape element %u must be an integer", what, d), 0;
    if (cc_ir_const_int(x, dim)) {
        if (*dim <= 0) return tc_err(t, CC_DIAG_INVALID_OP, x->span, NULL, "pl.%s: shape entry %u must be positive, got %lld", what, d, (long long)*dim), 0;
        return 1;
    }
    if (x->kind == CC_X_OP && x->u.op.op == CC_IR_TENSOR_DIM) { /* a tensor's dynamic dimension: that dimension */
        const cc_type *ty = &x->u.op.args[0]->type;
        int64_t axis;
        if (cc_ir_const_int(x->u.op.args[1], &axis) && axis >= 0 && axis < ty->rank && CC_DIM_IS_DYN(ty->shape[axis]))
            return *dim = ty->shape[axis], *name = ty->dyn[axis], 1;
    }
    const tc_bind *b = x->kind == CC_X_VAR ? tc_lookup(&t->c.env, x->u.name) : NULL;
    if (b && b->extent) return *dim = b->extent, *name = b->name, 1; /* the same value: the same dimension */
    char buf[64];
    const char *text = cc_source_span_text(cc_diag_source(t->d, x->span.line), x->span, buf, sizeof buf);
    if (!tc_identifier(text, (uint32_t)strlen(text))) snprintf(buf, sizeof buf, "dim_%u", t->nruntime_dims), text = buf;
    if (!(*name = base_arena_strndup(t->a, text, strlen(text)))) return tc_oom(t), 0;
    *dim = CC_DIM_DYN(CC_DIM_RUNTIME0 + t->nruntime_dims++);
    return !b || tc_set_extent(t, b->name, *dim);
}

int tc_fits_at_run_time(const cc_type *param, const cc_type *arg)
{
    if (param->kind != CC_T_TENSOR || arg->kind != CC_T_TENSOR || param->dtype != arg->dtype || param->rank != arg->rank) return 0;
    for (uint32_t d = 0; d < param->rank; d++)
        if (CC_DIM_IS_DYN(param->shape[d]) ? param->shape[d] != arg->shape[d] : !tc_static_dim_fits(param->shape[d], arg->shape[d], 1)) return 0;
    return 1;
}

/* ---- pl.TensorView(...) as a pl.Tensor annotation's third entry ---- */

const cc_expr *tc_tensor_view_entry(const tc *t, const cc_expr *e)
{
    return e->kind == CC_E_CALL && tc_pl_attr(t, e->u.call.fn, "TensorView") && e->u.call.fn->u.attr.value->kind == CC_E_NAME ? e
                                                                                                                              : NULL;
}

/* Is e pl.ND, pl.Layout.ND or pl.TensorLayout.ND? */
static int tc_is_nd(const tc *t, const cc_expr *e)
{
    if (e->kind != CC_E_ATTR || strcmp(e->u.attr.name, "ND")) return 0;
    const cc_expr *v = e->u.attr.value;
    return v->kind == CC_E_NAME ? tc_pl_attr(t, e, "ND") != NULL
                                : tc_pl_attr(t, v, "Layout") != NULL || tc_pl_attr(t, v, "TensorLayout") != NULL;
}

/* valid_shape= of a pl.TensorView on a tensor of type ty into t->view_valid. */
static int tc_view_valid_shape(tc *t, const cc_expr *e, const cc_type *ty)
{
    const cc_expr *l = tc_module_constant_ast(t, e);
    if ((l->kind != CC_E_LIST && l->kind != CC_E_TUPLE) || l->u.seq.n != ty->rank)
        return tc_err(t, CC_DIAG_TYPE, e->span, NULL, "pl.TensorView valid_shape must be a list of %u entries, one per dimension", ty->rank), 0;
    cc_valid_shape *v = &t->view_valid;
    for (uint32_t d = 0; d < ty->rank; d++) {
        const cc_expr *it = l->u.seq.items[d];
        v->dyn[d] = NULL;
        int r = tc_dynvar(t, it, &v->cap[d], &v->dyn[d]);
        if (r < 0) return 0;
        if (r) continue;
        if (!tc_const_int(t, it, &v->cap[d], "pl.TensorView valid_shape entries (or pl.dynamic dimensions)")) return 0;
        if (v->cap[d] < 0 || (!CC_DIM_IS_DYN(ty->shape[d]) && v->cap[d] > ty->shape[d]))
            return tc_err(t, CC_DIAG_TYPE, it->span, NULL, "pl.TensorView valid_shape entry %u (%lld) is outside 0 to %lld", d, (long long)v->cap[d],
                           (long long)ty->shape[d]), 0;
    }
    v->n = ty->rank;
    return 1;
}

int tc_tensor_view(tc *t, const cc_expr *view, const cc_type *ty)
{
    static const char *const ps[] = {"stride", "layout", "valid_shape", "pad"};
    const cc_expr *v[4] = {0};
    if (view->u.call.nargs > 4) return tc_err(t, CC_DIAG_TYPE, view->span, NULL, "pl.TensorView takes at most 4 arguments"), 0;
    for (uint32_t k = 0; k < view->u.call.nargs; k++) v[k] = view->u.call.args[k];
    for (uint32_t k = 0; k < view->u.call.nkws; k++) {
        uint32_t i = 0;
        while (i < 4 && strcmp(ps[i], view->u.call.kws[k].name)) i++;
        if (i == 4)
            return tc_err(t, CC_DIAG_TYPE, view->u.call.kws[k].name_span, NULL, "pl.TensorView got an unexpected keyword argument '%s'",
                           view->u.call.kws[k].name), 0;
        v[i] = view->u.call.kws[k].value;
    }
    for (int i = 0; i < 4; i++)
        if (v[i] && v[i]->kind == CC_E_NONE) v[i] = NULL;
    if (!v[1] && (v[0] || v[2] || v[3]))
        return tc_err(t, CC_DIAG_TYPE, view->span, "add layout=pl.TensorLayout.ND",
                       "pl.TensorView: layout= is required when stride, valid_shape or pad is given"), 0;
    if (v[1] && !tc_is_nd(t, v[1]))
        return tc_err(t, CC_DIAG_TYPE, v[1]->span, NULL, "pl.TensorView layout= must be pl.TensorLayout.ND"), 0;
    for (int i = 0; i < 4; i++)
        if ((i == 0 || i == 3) && v[i])
            return tc_err(t, CC_DIAG_UNSUPPORTED, v[i]->span, NULL, "%s.TensorView(%s=...) is not supported in this version", t->pl, ps[i]), 0;
    return !v[2] || tc_view_valid_shape(t, v[2], ty);
}

int tc_no_tensor_view_in_jit(tc *t, const cc_expr *ann, const char *who, const char *param)
{
    ann = tc_module_constant_ast(t, ann);
    if (ann->kind == CC_E_SUBSCRIPT && (tc_pl_attr(t, ann->u.sub.value, "Out") || tc_pl_attr(t, ann->u.sub.value, "InOut")))
        ann = tc_module_constant_ast(t, ann->u.sub.index);
    if (ann->kind != CC_E_SUBSCRIPT || !tc_pl_attr(t, ann->u.sub.value, "Tensor")) return 1;
    const cc_expr *ix = ann->u.sub.index;
    if (ix->kind != CC_E_TUPLE || ix->u.seq.n != 3 || !tc_tensor_view_entry(t, ix->u.seq.items[2])) return 1;
    if (tc_layout_hardware(t, ix->u.seq.items[2])) return 0; /* DN/NZ: the Ascend-specific text first */
    return tc_err(t, CC_DIAG_PY_TYPE, ix->u.seq.items[2]->span, NULL,
                   "%s: parameter '%s': pl.TensorView annotations are not supported in @pl.jit signatures", who, param), 0;
}

/* ---- pl.tensor.dim(t, axis) ---- */

cc_ir_expr *tc_tensor_dim(tc *t, const cc_expr *call)
{
    static const char *const ps[] = {"tensor", "axis"};
    tc_args a;
    if (!tc_op_bind(t, call, "tensor.dim", ps, TC_N(ps), &a) || !tc_need(t, call, "tensor.dim", &a, 2, ps)) return NULL;
    cc_ir_expr *x = tc_expr(t, a.v[0]);
    if (!x) return NULL;
    if (x->type.kind != CC_T_TENSOR || !x->type.rank) {
        char ty[96];
        cc_type_format(&x->type, ty, sizeof ty);
        return tc_err(t, CC_DIAG_TYPE, a.v[0]->span, NULL, "pl.tensor.dim expects a shaped Tensor, got %s", ty);
    }
    int64_t axis;
    if (!tc_const_int(t, a.v[1], &axis, "pl.tensor.dim axis")) return NULL;
    int64_t r = x->type.rank;
    if (axis < -r || axis >= r)
        return tc_err(t, CC_DIAG_INVALID_OP, a.v[1]->span, NULL, "pl.tensor.dim: axis %lld is out of range for a rank-%lld tensor",
                      (long long)axis, (long long)r);
    if (axis < 0) axis += r;
    if (!CC_DIM_IS_DYN(x->type.shape[axis])) return cc_ir_int(t->a, x->type.shape[axis], call->span); /* folded */
    cc_ir_expr *d = cc_ir_op_new(t->a, CC_IR_TENSOR_DIM, call->span), *ax = cc_ir_int(t->a, axis, a.v[1]->span);
    if (!d || !ax) return tc_oom(t);
    d->u.op.args[0] = x, d->u.op.args[1] = ax;
    d->type = (cc_type){.kind = CC_T_SCALAR, .dtype = CC_DT_INDEX};
    return d;
}

/* ---- a DynVar read as a value: the extent it is bound to ---- */

/* pl.tensor.dim of the current function's tensor parameter whose dimension is symbol sym, or NULL (none). */
static cc_ir_expr *tc_param_extent(tc *t, int64_t sym, cc_span sp)
{
    const cc_ir_func *f = t->c.f;
    for (uint32_t k = 0; f && k < f->nparams; k++) {
        const cc_type *ty = &f->params[k].type;
        for (uint32_t d = 0; ty->kind == CC_T_TENSOR && d < ty->rank; d++) {
            if (ty->shape[d] != sym) continue;
            cc_ir_expr *x = cc_ir_var(t->a, f->params[k].name, *ty, sp), *ax = cc_ir_int(t->a, d, sp);
            cc_ir_expr *e = cc_ir_op_new(t->a, CC_IR_TENSOR_DIM, sp);
            if (!x || !ax || !e) return tc_oom(t);
            e->u.op.args[0] = x, e->u.op.args[1] = ax;
            e->type = (cc_type){.kind = CC_T_SCALAR, .dtype = CC_DT_INDEX};
            return e;
        }
    }
    return NULL;
}

cc_ir_expr *tc_dynvar_value(tc *t, const cc_expr *call)
{
    int32_t at = -1;
    for (uint32_t k = 0; k < t->m->nconstants && at < 0; k++)
        if (t->m->constants[k].value == call) at = (int32_t)k;
    const char *name = tc_dynvar_name(t, call);
    if (!name) return NULL;
    if (at < 0) return tc_inline_dynvar(t, call);
    int64_t sym = tc_dyn_symbol(t, at);
    tc_dyn_binding *b = tc_dyn_find(&t->c.dyn, sym);
    if (b && !CC_DIM_IS_DYN(b->value)) return cc_ir_int(t->a, b->value, call->span); /* a callee bound to a constant */
    cc_ir_expr *e = tc_param_extent(t, b ? b->value : sym, call->span);
    if (e || t->oom) return e;
    return tc_err(t, CC_DIAG_TYPE, call->span, "read it where a tensor parameter has this dimension, or use pl.tensor.dim",
                  "dynamic dimension '%s' has no value here: no tensor parameter of '%s' has it", name, t->c.f ? t->c.f->name : "?");
}
