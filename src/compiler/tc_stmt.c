/*
 * tc_stmt.c - the type checker's statements (docs/dsl.md, "Statements"):
 * assignments and unpacking, expression statements, loops, branches (with
 * definite assignment across them, and the kind of a name live across a
 * loop's back-edge), returns against the function's `-> T`, and blocks.
 * `with` statements and the pl.set_cache_policy markers are tc_with.c's.
 *
 * Invariant: a block is checked in order and stops at its first failing
 * statement (one error per block is enough to act on); its statements land
 * in out in source order.
 */
#include "compiler/tc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/text.h"
#include "compiler/names.h"

cc_ir_stmt *tc_stmt_new(tc *t, cc_ir_stmt_kind k, cc_span sp)
{
    cc_ir_stmt *s = cc_ir_stmt_new(t->a, k, sp);
    return s ? s : tc_oom(t);
}

/* ---- assignments -------------------------------------------------------------------------- */

/* The type of result k of value (a call's results, a list's items). */
static int tc_result_count(const cc_ir_expr *v)
{
    if (v->kind == CC_X_LIST) return (int)v->u.list.n;
    if (cc_ir_is_dummy(v)) return 1;
    if (v->kind == CC_X_CALL) return (int)(v->u.call.callee->nresults + v->u.call.submit);
    return v->type.kind == CC_T_VOID ? 0 : 1;
}

/* v as dtype dt when v is an INDEX or INT64 scalar and dt the other of the
 * two (an exact scalar cast: the same 64 bits); else v.  NULL when out of
 * memory. */
static cc_ir_expr *tc_int64_as(tc *t, cc_ir_expr *v, uint8_t dt, cc_span sp)
{
    if (v->type.kind != CC_T_SCALAR || v->type.dtype == dt || !cc_dtype_is_int64((cc_dtype)dt) ||
        !cc_dtype_is_int64((cc_dtype)v->type.dtype))
        return v;
    cc_ir_expr *c = cc_ir_op_new(t->a, CC_IR_CAST, sp);
    if (!c) return tc_oom(t);
    c->u.op.args[0] = v, c->u.op.dtype = dt, c->u.op.mode = CC_CAST_ROUND;
    c->type = v->type, c->type.dtype = dt;
    return c;
}

/* v, a value for name: a name bound to an INDEX or INT64 scalar keeps its
 * dtype (one register on every path to a merge). */
static cc_ir_expr *tc_keep_int64(tc *t, const char *name, cc_ir_expr *v, cc_span sp)
{
    const tc_bind *old = tc_lookup(&t->c.env, name);
    return old && !old->gone && old->type.kind == CC_T_SCALAR ? tc_int64_as(t, v, old->type.dtype, sp) : v;
}

static cc_type tc_result_type(const cc_ir_expr *v, uint32_t k)
{
    if (v->kind == CC_X_LIST) return v->u.list.items[k]->type;
    if (v->kind == CC_X_CALL && !cc_ir_is_dummy(v)) {
        const cc_ir_func *f = v->u.call.callee;
        if (k < f->nresults) return f->results[k];
        return (cc_type){.kind = CC_T_SCALAR, .dtype = CC_DT_TASK_ID};
    }
    return v->type;
}

cc_ir_stmt *tc_assign(tc *t, const cc_stmt *s)
{
    if (tc_is_yield(t, s->u.assign.value)) return tc_yield(t, s);
    uint32_t n = s->u.assign.ntargets;
    if (tc_array_target(t, s)) return tc_array_write(t, s); /* arr[i] = tid (D-arr) */
    if (n == 1 && s->u.assign.targets[0]->kind == CC_E_SUBSCRIPT && !(s = tc_subscript_write(t, s))) return NULL; /* dst = pl.assemble(dst, ...) */
    for (uint32_t k = 0; k < n; k++) {
        const cc_expr *x = s->u.assign.targets[k];
        if (x->kind == CC_E_SUBSCRIPT)
            return tc_err(t, CC_DIAG_UNSUPPORTED, x->span, NULL, "a subscript is not supported in this version");
        if (x->kind != CC_E_NAME)
            return tc_err(t, CC_DIAG_UNSUPPORTED, x->span, NULL, "this assignment target is not supported in this version");
    }
    t->c.whole_call = s->u.assign.value;
    t->c.assign_name = n == 1 && !s->u.assign.annotation ? s->u.assign.targets[0]->u.name : NULL;
    cc_ir_expr *v = tc_expr(t, s->u.assign.value);
    t->c.assign_name = NULL;
    if (!v) return NULL;
    int m = tc_result_count(v);
    int single_list = n == 1 && v->kind == CC_X_LIST;
    if (!single_list && (n > 1 || v->kind == CC_X_CALL) && m != (int)n) {
        if (v->kind == CC_X_CALL && v->u.call.submit && !cc_ir_is_dummy(v)) {
            char hint[96];
            snprintf(hint, sizeof hint, "pl.submit gives the kernel's %d result(s), then the task's TaskId: unpack %d name(s)", m - 1, m);
            return tc_err(t, CC_DIAG_SYNTAX, s->span, hint, "pl.submit(%s) unpacks %u result value(s) but kernel returns %d",
                          v->u.call.callee->name, n, m - 1);
        }
        return tc_err(t, CC_DIAG_SYNTAX, s->span, NULL, "cannot unpack %d value(s) into %u name(s)", m, n);
    }
    if (v->type.kind == CC_T_VOID) return tc_err(t, CC_DIAG_TYPE, s->u.assign.value->span, NULL, "this call returns no value");
    int tiled = s->u.assign.annotation ? tc_tile_annotation(t, s->u.assign.annotation, v) : 0;
    if (tiled < 0) return NULL;
    if (s->u.assign.annotation && !tiled) {
        cc_type ann;
        uint8_t dir;
        int shaped;
        if (!tc_annotation(t, s->u.assign.annotation, &ann, &dir, &shaped)) return NULL;
        char who[160];
        snprintf(who, sizeof who, "'%s'", s->u.assign.targets[0]->u.name);
        /* `x: pl.Scalar[pl.INT32] = 7`: a constant takes the declared dtype, as an argument does */
        if (shaped && ann.kind == CC_T_SCALAR && tc_constant_ast(t, s->u.assign.value) && !(v = tc_constant_as(t, v, ann.dtype, who)))
            return NULL;
        /* an INDEX value for an INT64 name, or the reverse: the same 64 bits, retyped */
        if (shaped && ann.kind == CC_T_SCALAR && !(v = tc_int64_as(t, v, ann.dtype, s->u.assign.value->span))) return NULL;
        if (ann.kind != v->type.kind || (shaped && !cc_type_equal(&ann, &v->type))) {
            char a[96], b[96];
            cc_type_format(&ann, a, sizeof a), cc_type_format(&v->type, b, sizeof b);
            return tc_err(t, CC_DIAG_TYPE, s->u.assign.annotation->span, NULL, "'%s' is annotated %s but assigned %s",
                          s->u.assign.targets[0]->u.name, a, b);
        }
    }
    if (n == 1 && !single_list && !s->u.assign.annotation &&
        !(v = tc_keep_int64(t, s->u.assign.targets[0]->u.name, v, s->u.assign.value->span)))
        return NULL;
    cc_ir_stmt *st = tc_stmt_new(t, CC_I_ASSIGN, s->span);
    if (!st || !(st->u.assign.targets = base_arena_alloc(t->a, n * sizeof *st->u.assign.targets))) return tc_oom(t);
    st->u.assign.ntargets = n, st->u.assign.value = v;
    /* a list of constants bound once, outside any branch or loop, stands for itself
     * (docs/dsl.md, "Annotations": lists may be bound to a name, immutable), so it serves as offsets or
     * shapes; a name assigned again anywhere may hold another value where it is read */
    int constant_list = single_list && t->c.branches == 0 && base_strmap_get(&t->c.locals, s->u.assign.targets[0]->u.name) == 1;
    for (uint32_t k = 0; single_list && k < v->u.list.n; k++)
        constant_list &= v->u.list.items[k]->kind == CC_X_INT;
    int create = n == 1 && v->kind == CC_X_OP && v->u.op.op == CC_IR_CREATE_TENSOR;
    /* the buffers the results are, before any target is bound (`a, b = k(b, a)`) */
    const char **buffers = base_arena_alloc(t->a, n * sizeof *buffers);
    if (!buffers) return tc_oom(t);
    tc_bind *allocs = base_arena_alloc(t->a, n * sizeof *allocs); /* results that are implicit allocations (implicit set) */
    if (!allocs) return tc_oom(t);
    for (uint32_t k = 0; k < n; k++) {
        buffers[k] = single_list ? NULL : tc_buffer_of(t, v->kind == CC_X_LIST ? v->u.list.items[k] : v, v->kind == CC_X_LIST ? 0 : k);
        const cc_ir_expr *arg = v->kind == CC_X_CALL ? tc_result_arg(v, k) : NULL;
        const tc_bind *b = arg && arg->kind == CC_X_VAR ? tc_lookup(&t->c.env, arg->u.name) : NULL;
        allocs[k] = b && b->implicit ? *b : (tc_bind){0};
    }
    for (uint32_t k = 0; k < n; k++) {
        const cc_expr *x = s->u.assign.targets[k];
        cc_type ty = single_list ? v->type : tc_result_type(v, k);
        st->u.assign.targets[k] = (cc_ir_target){x->u.name, ty, x->span};
        if (!tc_out_param_rebind(t, x->u.name, buffers[k], x->span)) return NULL;
        const tc_bind *old = tc_lookup(&t->c.env, x->u.name);
        tc_bind was = old ? *old : (tc_bind){0};
        int ctx = n == 1 && v->kind == CC_X_OP && v->u.op.op == CC_IR_GET_COMM_CTX; /* the name stands for its DT's handle */
        if (!tc_bind_value(t, x->u.name, ty, constant_list || ctx ? v : NULL, x->span)) return NULL;
        tc_bind *now = tc_lookup(&t->c.env, x->u.name);
        /* the name stays the scope's tensor until it is bound again after the scope (V4) */
        now->buffer = buffers[k];
        if (create) now->created = v->span.line, now->created_in = t->c.scope;
        else if (allocs[k].implicit) now->created = allocs[k].created, now->created_in = allocs[k].created_in, now->implicit = 1;
        else if (was.created && !was.gone && tc_scope_is_open(t, was.created_in))
            now->created = was.created, now->created_in = was.created_in, now->implicit = was.implicit;
    }
    return st;
}

static cc_ir_stmt *tc_augassign(tc *t, const cc_stmt *s)
{
    const cc_expr *x = s->u.aug.target;
    if (x->kind != CC_E_NAME) return tc_err(t, CC_DIAG_UNSUPPORTED, x->span, NULL, "this assignment target is not supported in this version");
    cc_expr bin = {.kind = CC_E_BINARY, .span = s->span, .u.bin = {s->u.aug.op, (cc_expr *)x, s->u.aug.value}};
    cc_ir_expr *v = tc_expr(t, &bin);
    if (!v || !(v = tc_keep_int64(t, x->u.name, v, s->span))) return NULL;
    cc_ir_stmt *st = tc_stmt_new(t, CC_I_ASSIGN, s->span);
    if (!st || !(st->u.assign.targets = base_arena_alloc(t->a, sizeof *st->u.assign.targets))) return tc_oom(t);
    st->u.assign.ntargets = 1, st->u.assign.value = v;
    st->u.assign.targets[0] = (cc_ir_target){x->u.name, v->type, x->span};
    return tc_bind_name(t, x->u.name, v->type, x->span) ? st : NULL;
}

static cc_ir_stmt *tc_expr_stmt(tc *t, const cc_stmt *s)
{
    const cc_expr *e = s->u.expr;
    if (e->kind != CC_E_CALL) return tc_err(t, CC_DIAG_SYNTAX, s->span, NULL, "expression statement has no effect");
    t->c.whole_call = e;
    cc_ir_expr *v = tc_expr(t, e);
    if (!v) return NULL;
    if (v->kind != CC_X_CALL && tc_is_dump_tag(e)) return &tc_spliced; /* a marker: nothing to run */
    cc_dir dir;
    int dist = v->kind == CC_X_OP && cc_ir_op_info((cc_ir_op)v->u.op.op)->cls == CC_OPC_DIST && v->u.op.op != CC_IR_WORLD_SIZE &&
               v->u.op.op != CC_IR_RANK && v->u.op.op != CC_IR_NRANKS && v->u.op.op != CC_IR_GET_COMM_CTX; /* a pld effect */
    if (v->kind != CC_X_CALL && !dist && !(cc_ir_tensor_access(v, &dir) && (dir & CC_DIR_OUT)))
        return tc_err(t, CC_DIAG_SYNTAX, s->span, NULL, "expression statement has no effect");
    cc_ir_stmt *st = tc_stmt_new(t, CC_I_EXPR, s->span);
    if (st) st->u.expr = v;
    return st;
}

/* ---- control flow ------------------------------------------------------------------------- */

int tc_scalar_cond(tc *t, cc_ir_expr *c, const char *what)
{
    if (c->type.kind == CC_T_SCALAR && c->type.dtype != CC_DT_TASK_ID) return 1;
    char ty[96];
    cc_type_format(&c->type, ty, sizeof ty);
    tc_err(t, CC_DIAG_TYPE, c->span, NULL, "%s must be a scalar expression, got %s", what, ty);
    return 0;
}

/* Checks a body that may run or not (a loop body, an if arm) in place,
 * then takes its net changes back out into *d.  var: the loop variable
 * each run binds first, as INDEX (NULL: none). */
static int tc_branch(tc *t, const cc_block *b, const char *var, cc_span var_span, int wrapped, cc_ir_block *out, tc_delta *d)
{
    uint32_t mark = tc_env_mark(&t->c.env);
    const tc_rscope *outer = t->c.scope;
    t->c.branches++;
    /* a for body or an if arm the scopes pass wraps in an AUTO scope */
    int ok = !wrapped || t->c.fn->kind != CC_FUNC_ORCHESTRATION || !t->c.fn->auto_scope || t->c.manual ||
             t->c.plane != TC_CONTROL || tc_scope_open(t);
    ok = ok && (!var || tc_bind_name(t, var, (cc_type){.kind = CC_T_SCALAR, .dtype = CC_DT_INDEX}, var_span));
    ok = ok && tc_block(t, b, out, 0, TC_BLOCK_PLAIN);
    t->c.branches--;
    t->c.scope = outer;
    if (!tc_env_take(t, mark, d)) return 0;
    if (!ok) tc_delta_free(d);
    return ok;
}

/* ---- reads before assignment: liveness across a loop's back-edge ---- */

typedef struct tc_read_ctx {
    const char *name;
    const cc_expr *found;
} tc_read_ctx;

static int tc_read_visit(const cc_expr *e, void *ctx)
{
    tc_read_ctx *c = ctx;
    if (e->kind != CC_E_NAME) return cc_expr_each_child(e, tc_read_visit, c);
    if (strcmp(e->u.name, c->name)) return 0;
    c->found = e;
    return 1;
}

/* The first read of name in e, or NULL. */
static const cc_expr *tc_read_in(const cc_expr *e, const char *name)
{
    tc_read_ctx c = {name, NULL};
    if (e) tc_read_visit(e, &c);
    return c.found;
}

/* What a statement or block does first with a name on its ways through. */
typedef enum tc_first { TC_FIRST_NONE, TC_FIRST_ASSIGNED, TC_FIRST_READ } tc_first;

static tc_first tc_block_first(const cc_block *b, const char *name, const cc_expr **read);

/* A body that may not run: its reads count, its assignments do not. */
static tc_first tc_maybe_first(const cc_block *b, const char *name, const cc_expr **read)
{
    return tc_block_first(b, name, read) == TC_FIRST_READ ? TC_FIRST_READ : TC_FIRST_NONE;
}

static tc_first tc_stmt_first(const cc_stmt *s, const char *name, const cc_expr **read)
{
    tc_first a = TC_FIRST_NONE, b = TC_FIRST_NONE;
    switch (s->kind) {
    case CC_S_EXPR: return (*read = tc_read_in(s->u.expr, name)) ? TC_FIRST_READ : TC_FIRST_NONE;
    case CC_S_ASSIGN:
        if ((*read = tc_read_in(s->u.assign.value, name))) return TC_FIRST_READ;
        for (uint32_t k = 0; k < s->u.assign.ntargets; k++)
            if (s->u.assign.targets[k]->kind == CC_E_NAME && !strcmp(s->u.assign.targets[k]->u.name, name)) return TC_FIRST_ASSIGNED;
        return TC_FIRST_NONE;
    case CC_S_AUGASSIGN:
        return (*read = tc_read_in(s->u.aug.target, name)) || (*read = tc_read_in(s->u.aug.value, name)) ? TC_FIRST_READ : TC_FIRST_NONE;
    case CC_S_FOR:
        if ((*read = tc_read_in(s->u.for_.iter, name))) return TC_FIRST_READ;
        if (s->u.for_.target ? tc_read_in(s->u.for_.target, name) != NULL : !strcmp(s->u.for_.var, name)) return TC_FIRST_NONE;
        return tc_maybe_first(&s->u.for_.body, name, read);
    case CC_S_WHILE:
        if ((*read = tc_read_in(s->u.while_.cond, name))) return TC_FIRST_READ;
        return tc_maybe_first(&s->u.while_.body, name, read);
    case CC_S_IF:
        if ((*read = tc_read_in(s->u.if_.cond, name)) || (a = tc_block_first(&s->u.if_.then, name, read)) == TC_FIRST_READ ||
            (b = tc_block_first(&s->u.if_.orelse, name, read)) == TC_FIRST_READ)
            return TC_FIRST_READ;
        return a == TC_FIRST_ASSIGNED && b == TC_FIRST_ASSIGNED ? TC_FIRST_ASSIGNED : TC_FIRST_NONE;
    case CC_S_WITH:
        for (uint32_t k = 0; k < s->u.with.nitems; k++)
            if ((*read = tc_read_in(s->u.with.items[k].context, name))) return TC_FIRST_READ;
        if ((a = tc_block_first(&s->u.with.body, name, read)) != TC_FIRST_NONE) return a;
        for (uint32_t k = 0; k < s->u.with.nitems; k++)
            if (s->u.with.items[k].as_name && !strcmp(s->u.with.items[k].as_name, name)) return TC_FIRST_ASSIGNED;
        return TC_FIRST_NONE;
    case CC_S_RETURN:
        for (uint32_t k = 0; k < s->u.ret.n; k++)
            if ((*read = tc_read_in(s->u.ret.values[k], name))) return TC_FIRST_READ;
        return TC_FIRST_NONE;
    default: return TC_FIRST_NONE;
    }
}

static tc_first tc_block_first(const cc_block *b, const char *name, const cc_expr **read)
{
    for (uint32_t k = 0; k < b->n; k++) {
        tc_first r = tc_stmt_first(b->items[k], name, read);
        if (r != TC_FIRST_NONE) return r;
    }
    return TC_FIRST_NONE;
}

/* A loop body b, run zero or more times: merged with the way around it
 * (tc.h).  A name the body leaves in conflict is live across the
 * back-edge when the next iteration reads it before assigning it (in a
 * while's condition cond, or in the body; a for's variable var is
 * assigned by the head): that is the error (docs/dsl.md, "Statements").
 * Scanned only for names in conflict. */
int tc_loop_body(tc *t, const cc_block *b, const char *var, cc_span var_span, const cc_expr *cond, cc_ir_block *out)
{
    tc_delta body, none = {0};
    if (!tc_branch(t, b, var, var_span, !cond, out, &body)) return 0;
    int ok = tc_env_merge(t, &body, &none);
    for (uint32_t k = 0; ok && k < body.n; k++) {
        const tc_bind *m = tc_lookup(&t->c.env, body.b[k].name);
        const cc_expr *read = NULL;
        if (!m || !m->conflict || (var && !strcmp(var, m->name))) continue;
        if ((read = tc_read_in(cond, m->name)) || tc_block_first(b, m->name, &read) == TC_FIRST_READ)
            ok = tc_kind_conflict(t, m, read->span);
    }
    tc_delta_free(&body);
    return ok;
}

/* A loop's body may run again with other values: a specialized parameter
 * or an unrolled copy's variable (the only names bound to a constant a loop
 * can reassign) that the body assigns stands for no constant inside the
 * loop, its condition included, nor after it.  Scanned only when such a
 * name exists. */
int tc_loop_forgets_values(tc *t, const cc_block *body)
{
    base_strmap assigned = {0};
    int ok = 1, scanned = 0;
    uint32_t np = t->c.f ? t->c.f->nparams : 0;
    for (uint32_t k = 0; ok && k < np + t->c.nunrolled; k++) {
        const tc_bind *b = tc_lookup(&t->c.env, k < np ? t->c.f->params[k].name : t->c.unrolled[k - np]);
        if (!b || !b->value) continue;
        if (!scanned) tc_scan(t, body, &assigned), scanned = 1;
        if (base_strmap_get(&assigned, b->name) >= 0) ok = tc_forget_value(t, b->name);
    }
    base_strmap_free(&assigned);
    return ok;
}

static cc_ir_stmt *tc_while(tc *t, const cc_stmt *s)
{
    if (!tc_loop_forgets_values(t, &s->u.while_.body)) return NULL;
    cc_ir_expr *c = tc_expr(t, s->u.while_.cond);
    if (!c || !tc_scalar_cond(t, c, "while condition")) return NULL;
    cc_ir_stmt *st = tc_stmt_new(t, CC_I_WHILE, s->span);
    if (!st || !tc_loop_body(t, &s->u.while_.body, NULL, s->span, s->u.while_.cond, &st->u.while_.body)) return NULL;
    st->u.while_.cond = c;
    return st;
}

static cc_ir_stmt *tc_if(tc *t, const cc_stmt *s)
{
    cc_ir_expr *c = tc_expr(t, s->u.if_.cond);
    if (!c || !tc_scalar_cond(t, c, "if condition")) return NULL;
    cc_ir_stmt *st = tc_stmt_new(t, CC_I_IF, s->span);
    tc_delta a = {0}, b = {0};
    /* arms ending in pl.yield_: a phi (tc_loop.c) */
    tc_yield_site then = {.up = t->c.yield, .phi = 1}, orelse = then, *up = t->c.yield;
    int ok = st && tc_phi_arms(t, s, &then, &orelse);
    if (ok) t->c.yield = then.last ? &then : up;
    ok = ok && tc_branch(t, &s->u.if_.then, NULL, s->span, 1, &st->u.if_.then, &a);
    if (ok) t->c.yield = orelse.last ? &orelse : up;
    ok = ok && tc_branch(t, &s->u.if_.orelse, NULL, s->span, 1, &st->u.if_.orelse, &b);
    t->c.yield = up;
    ok = ok && tc_env_merge(t, &a, &b) && tc_phi_merged(t, &then, &orelse);
    if (ok) {
        st->u.if_.cond = c;
        st->u.if_.elif = s->u.if_.orelse.n == 1 && s->u.if_.orelse.items[0]->kind == CC_S_IF;
    }
    tc_delta_free(&a), tc_delta_free(&b);
    return ok ? st : NULL;
}

/* An entry's (or a per-device @pl.jit's, DISTRIBUTED-SPEC §1.3) `return k(...)` (DSL-V2-SPEC §1.6 T-ret): the call as a statement of
 * its own (the prelude), then the return of the entry parameters whose buffers
 * its results are. */
static cc_ir_stmt *tc_return_call(tc *t, const cc_stmt *s, cc_ir_stmt *st)
{
    const cc_expr *ast = s->u.ret.values[0];
    t->c.whole_call = ast;
    cc_ir_expr *v = tc_expr(t, ast);
    if (!v) return NULL;
    uint32_t n = (uint32_t)tc_result_count(v) - v->u.call.submit;
    cc_ir_stmt *call = tc_stmt_new(t, CC_I_EXPR, s->span);
    const cc_expr **asts = n ? base_arena_alloc(t->a, n * sizeof *asts) : NULL;
    if (!call || (n && (!asts || !(st->u.ret.values = base_arena_alloc(t->a, n * sizeof *st->u.ret.values)) ||
                        !(t->c.f->results = base_arena_alloc(t->a, n * sizeof *t->c.f->results)))))
        return tc_oom(t);
    call->u.expr = v;
    for (uint32_t k = 0; k < n; k++) {
        const char *buf = tc_buffer_of(t, v, k);
        if (!buf) {
            const cc_ir_expr *arg = tc_result_arg(v, k);
            return tc_entry_return(t, arg ? arg : v);
        }
        int i = cc_ir_func_param(t->c.f, buf);
        if (!(st->u.ret.values[k] = cc_ir_var(t->a, buf, t->c.f->params[i].type, ast->span))) return tc_oom(t);
        asts[k] = ast;
    }
    st->u.ret.n = n;
    if (!tc_results(t, st->u.ret.values, asts, n, s->span)) return NULL;
    t->c.f->nresults = n;
    t->c.returned = 1;
    return tc_prelude_add(t, call) ? st : NULL;
}

/* A returned name whose every assignment is the buffer of one tensor
 * parameter P (`o = pl.store(t, [0, 0], out)`, also where a loop or a
 * branch may leave it unassigned: a pl.store into P in a loop body): P
 * itself, the same buffer on every path.  NULL for every other value (the
 * caller types it). */
static cc_ir_expr *tc_return_alias(tc *t, const cc_expr *e)
{
    const tc_bind *b = e->kind == CC_E_NAME ? tc_lookup(&t->c.env, e->u.name) : NULL;
    int i = b && !b->conflict && b->type.kind == CC_T_TENSOR && b->buffer ? cc_ir_func_param(t->c.f, b->buffer) : -1;
    if (i < 0) return NULL;
    cc_ir_expr *v = cc_ir_var(t->a, b->buffer, t->c.f->params[i].type, e->span);
    return v ? v : tc_oom(t);
}

/* A kernel's `return pl.store(tile, offsets, out)`: the store runs as a statement before the
 * return, which returns the tensor it wrote (its value); every other v is itself. */
static cc_ir_expr *tc_return_store(tc *t, cc_ir_expr *v)
{
    cc_dir dir;
    const cc_ir_expr *into = v->kind == CC_X_OP ? cc_ir_tensor_access(v, &dir) : NULL;
    if (!into || !(dir & CC_DIR_OUT) || into->kind != CC_X_VAR) return v;
    cc_ir_stmt *st = tc_stmt_new(t, CC_I_EXPR, v->span);
    if (!st) return NULL;
    st->u.expr = v;
    cc_ir_expr *out = cc_ir_var(t->a, into->u.name, into->type, v->span);
    return out && tc_prelude_add(t, st) ? out : tc_oom(t);
}

static cc_ir_stmt *tc_return(tc *t, const cc_stmt *s, int last)
{
    cc_ir_func *f = t->c.f;
    if (!last) return tc_err(t, CC_DIAG_SYNTAX, s->span, "move it to the end of the function", "return must be the last statement of '%s'", f->name);
    cc_ir_stmt *st = tc_stmt_new(t, CC_I_RETURN, s->span);
    uint32_t n = s->u.ret.n;
    if (!st || (n && (!(st->u.ret.values = base_arena_alloc(t->a, n * sizeof *st->u.ret.values)) ||
                      !(f->results = base_arena_alloc(t->a, n * sizeof *f->results)))))
        return tc_oom(t);
    st->u.ret.n = n;
    if ((f->entry || t->c.fn->jit_entry) && n == 1 && s->u.ret.values[0]->kind == CC_E_CALL && tc_callee(t, s->u.ret.values[0]->u.call.fn))
        return tc_return_call(t, s, st);
    for (uint32_t k = 0; k < n; k++) {
        cc_ir_expr *v = tc_return_alias(t, s->u.ret.values[k]);
        if (!v && (t->oom || !(v = tc_expr(t, s->u.ret.values[k])))) return NULL;
        if (f->kind == CC_FUNC_INCORE && v->type.kind == CC_T_TILE && v->type.from_tensors && !(v = tc_implicit_result(t, v, k)))
            return NULL;
        if (f->kind == CC_FUNC_INCORE && !(v = tc_return_store(t, v))) return NULL;
        int param = v->kind == CC_X_VAR ? cc_ir_func_param(f, v->u.name) : -1;
        if (f->kind == CC_FUNC_INCORE &&
            (param < 0 || v->type.kind != CC_T_TENSOR || (f->params[param].declared && f->params[param].dir == CC_DIR_IN)))
            return tc_err(t, CC_DIAG_TYPE, v->span, NULL, "InCore function '%s' may return only its Out/InOut tensor parameters", f->name);
        if (f->kind != CC_FUNC_INCORE && f->kind != CC_FUNC_INLINE && (v->kind != CC_X_VAR || v->type.kind != CC_T_TENSOR))
            return tc_err(t, CC_DIAG_TYPE, v->span, NULL, "'%s' may return only tensors", f->name);
        if (f->entry && param < 0) return tc_entry_return(t, v);
        st->u.ret.values[k] = v;
    }
    if (!tc_results(t, st->u.ret.values, (const cc_expr *const *)s->u.ret.values, n, s->span)) return NULL;
    f->nresults = n;
    t->c.returned = 1;
    return st;
}

/* "None", one type, or tuple[T1, ...]; shaped NULL: every type is. */
static void tc_results_text(const cc_type *types, const uint8_t *shaped, uint32_t n, int tuple, char *buf, size_t cap)
{
    size_t len = 0;
    char one[160];
    if (!n && !tuple) base_appendf(buf, cap, &len, "None");
    if (tuple) base_appendf(buf, cap, &len, "tuple[");
    for (uint32_t k = 0; k < n; k++) {
        if (shaped && !shaped[k]) snprintf(one, sizeof one, "%s", types[k].kind == CC_T_TENSOR ? "pl.Tensor" : "pl.Scalar");
        else cc_type_format(&types[k], one, sizeof one);
        base_appendf(buf, cap, &len, "%s%s", k ? ", " : "", one);
    }
    if (tuple) base_appendf(buf, cap, &len, "]");
}

int tc_results(tc *t, cc_ir_expr **values, const cc_expr *const *asts, uint32_t n, cc_span at)
{
    const tc_result_ann *r = &t->c.result;
    cc_ir_func *f = t->c.f;
    /* one value is written bare, several as a tuple (as the printer writes them) */
    int match = n == r->n && (r->tuple ? n >= 2 : n <= 1);
    uint32_t bad = 0;
    for (uint32_t k = 0; k < n; k++) {
        if (r->ann && match && r->shaped[k] && r->types[k].kind == CC_T_SCALAR && tc_constant_ast(t, asts[k])) {
            char who[160];
            snprintf(who, sizeof who, "'%s' result", f->name);
            if (!(values[k] = tc_constant_as(t, values[k], r->types[k].dtype, who))) return 0;
        }
        if (match && r->tiles[k] && tc_tile_annotation(t, r->tiles[k], values[k]) < 0) return 0;
        f->results[k] = values[k]->type;
        if (match && (f->results[k].kind != r->types[k].kind || (r->shaped[k] && !cc_type_equal(&f->results[k], &r->types[k]))))
            match = 0, bad = k;
    }
    if (!r->ann || match) return 1;
    char a[240], b[240];
    tc_results_text(r->types, r->shaped, r->n, r->tuple, a, sizeof a);
    tc_results_text(f->results, NULL, n, n > 1, b, sizeof b);
    return tc_err(t, CC_DIAG_TYPE, n ? values[bad]->span : at, NULL, "'%s' is annotated -> %s but returns %s", f->name, a, b), 0;
}

/* ---- blocks ------------------------------------------------------------------------------- */

/* What tc_loop.c's statements return when they add no statement of their own
 * (their statements are t->c.post: an unrolled loop's copies). */
cc_ir_stmt tc_spliced;

cc_ir_stmt *tc_stmt(tc *t, const cc_stmt *s, int last)
{
    switch (s->kind) {
    case CC_S_ASSIGN: return tc_assign(t, s);
    case CC_S_AUGASSIGN: return tc_augassign(t, s);
    case CC_S_EXPR: return tc_expr_stmt(t, s);
    case CC_S_FOR: return tc_for(t, s);
    case CC_S_WHILE: return tc_while(t, s);
    case CC_S_IF: return tc_if(t, s);
    case CC_S_WITH: return tc_with(t, s, last);
    case CC_S_RETURN: return tc_return(t, s, last);
    default: return tc_err(t, CC_DIAG_UNSUPPORTED, s->span, NULL, "this statement is not supported in kernel code");
    }
}

int tc_block(tc *t, const cc_block *b, cc_ir_block *out, int tail, tc_block_kind kind)
{
    uint64_t cap = b->n;
    cc_ir_stmt **items = b->n ? malloc(cap * sizeof *items) : NULL;
    uint32_t n = 0;
    if (b->n && !items) return tc_oom(t), 0;
    int ok = 1;
    for (uint32_t k = 0; k < b->n && ok; k++) {
        const cc_stmt *s = b->items[k];
        if (s->kind == CC_S_PASS) continue;
        if (tc_is_marker(t, s)) {
            if (kind == TC_BLOCK_AT) continue; /* hoisted by tc_at */
            ok = tc_marker_misplaced(t, s, kind);
            break;
        }
        cc_ir_stmt *st = tc_stmt(t, s, tail && k + 1 == b->n);
        if (st && (t->c.nprelude || t->c.npost)) { /* room for the preludes, the statements after and the rest of the block */
            cc_ir_stmt **g = realloc(items, (cap += t->c.nprelude + t->c.npost) * sizeof *items);
            if (!g) {
                ok = 0, tc_oom(t);
                break;
            }
            items = g;
            for (uint32_t j = 0; j < t->c.nprelude; j++) items[n++] = t->c.prelude[j];
            t->c.nprelude = 0;
        }
        if (!st) ok = 0;
        else if (st != &tc_spliced) items[n++] = st;
        for (uint32_t j = 0; ok && j < t->c.npost; j++) items[n++] = t->c.post[j];
        free(t->c.post);
        t->c.post = NULL, t->c.npost = 0;
    }
    ok = ok && cc_ir_block_make(t->a, out, items, n);
    free(items);
    return ok;
}

int tc_body(tc *t, const cc_block *b, cc_ir_block *out)
{
    cc_block body = *b;
    if (body.n && body.items[0]->kind == CC_S_EXPR && body.items[0]->u.expr->kind == CC_E_STRING) body.items++, body.n--;
    return tc_block(t, &body, out, 1, TC_BLOCK_PLAIN);
}
