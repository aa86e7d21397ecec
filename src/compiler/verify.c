/*
 * verify.c - stage 5, Verify: the checks of DSL-SPEC §3.4 on the IR the
 * passes hand to lowering.
 *
 *   V1  every Orchestration function with a body has auto_scope = 0
 *   V2  no AUTO scope and no MANUAL scope inside a MANUAL scope
 *   V3  InCore functions hold no runtime scope, pl.submit, pl.create_tensor
 *       or call of a non-Inline function
 *   V4  a name bound to a pl.create_tensor result inside a runtime scope is
 *       not read after that scope ends
 *   V5  every call of an InCore function carries its footprint boxes, with a
 *       direction for each tensor argument (InternalError)
 *
 * Invariants: the IR is only read.  Every violation is reported (PassError
 * unless noted), in check order V1..V5, functions in program order; the
 * stage fails when any was.
 *
 * V4 reads "after the scope ends" in source order: the statements after the
 * scope in its block, then after each enclosing statement in its block,
 * until the name is rebound unconditionally.  A loop's back-edge is not
 * followed (a read before the creation in the next iteration would be a
 * use before assignment, rejected at stage 0).
 */
#include <stdio.h>
#include <string.h>

#include "compiler/passes.h"

typedef struct cc_vfy {
    cc_ir_program *p;
    const cc_ir_func *f;
    const char *name;      /* V4: the tensor name looked for */
    const cc_ir_expr *hit; /* V4: the read found */
} cc_vfy;

typedef int (*cc_vfy_expr_fn)(cc_vfy *v, const cc_ir_expr *e); /* nonzero stops the walk */

/* ---- walking --------------------------------------------------------------------------- */

/* Calls fn on e and every expression inside it, parents first. */
static int cc_vfy_expr_each(cc_vfy *v, const cc_ir_expr *e, cc_vfy_expr_fn fn)
{
    if (!e) return 0;
    if (fn(v, e)) return 1;
    switch (e->kind) {
    case CC_X_BINARY: return cc_vfy_expr_each(v, e->u.bin.l, fn) || cc_vfy_expr_each(v, e->u.bin.r, fn);
    case CC_X_UNARY: return cc_vfy_expr_each(v, e->u.un.x, fn);
    case CC_X_LIST:
        for (uint32_t k = 0; k < e->u.list.n; k++)
            if (cc_vfy_expr_each(v, e->u.list.items[k], fn)) return 1;
        return 0;
    case CC_X_OP:
        for (uint32_t k = 0; k < cc_ir_op_nslots(e->u.op.op); k++)
            if (cc_vfy_expr_each(v, e->u.op.args[k], fn)) return 1;
        return 0;
    case CC_X_CALL:
        for (uint32_t k = 0; k < e->u.call.nargs; k++)
            if (cc_vfy_expr_each(v, e->u.call.args[k], fn)) return 1;
        for (uint32_t k = 0; k < e->u.call.ndeps; k++)
            if (cc_vfy_expr_each(v, e->u.call.deps[k], fn)) return 1;
        return 0;
    default: return 0;
    }
}

static int cc_vfy_exprs_each(cc_vfy *v, cc_ir_expr *const *xs, uint32_t n, cc_vfy_expr_fn fn)
{
    for (uint32_t k = 0; k < n; k++)
        if (cc_vfy_expr_each(v, xs[k], fn)) return 1;
    return 0;
}

/* Calls fn on the expressions s holds itself (not those of its nested blocks). */
static int cc_vfy_stmt_exprs(cc_vfy *v, const cc_ir_stmt *s, cc_vfy_expr_fn fn)
{
    switch (s->kind) {
    case CC_I_ASSIGN: return cc_vfy_expr_each(v, s->u.assign.value, fn);
    case CC_I_EXPR: return cc_vfy_expr_each(v, s->u.expr, fn);
    case CC_I_FOR:
        return cc_vfy_expr_each(v, s->u.for_.start, fn) || cc_vfy_expr_each(v, s->u.for_.stop, fn) ||
               cc_vfy_expr_each(v, s->u.for_.step, fn);
    case CC_I_WHILE: return cc_vfy_expr_each(v, s->u.while_.cond, fn);
    case CC_I_IF: return cc_vfy_expr_each(v, s->u.if_.cond, fn);
    case CC_I_AT: return cc_vfy_exprs_each(v, s->u.at.deps, s->u.at.ndeps, fn);
    case CC_I_RETURN: return cc_vfy_exprs_each(v, s->u.ret.values, s->u.ret.n, fn);
    default: return 0;
    }
}

/* The blocks nested in s (at most two: an if's branches); returns how many. */
static uint32_t cc_vfy_children(const cc_ir_stmt *s, const cc_ir_block **out)
{
    switch (s->kind) {
    case CC_I_FOR: out[0] = &s->u.for_.body; return 1;
    case CC_I_WHILE: out[0] = &s->u.while_.body; return 1;
    case CC_I_IF: out[0] = &s->u.if_.then, out[1] = &s->u.if_.orelse; return 2;
    case CC_I_SCOPE: out[0] = &s->u.scope.body; return 1;
    case CC_I_AT: out[0] = &s->u.at.body; return 1;
    default: return 0;
    }
}

/* Calls fn on every expression of every statement of b, at any depth. */
static void cc_vfy_block_exprs(cc_vfy *v, const cc_ir_block *b, cc_vfy_expr_fn fn)
{
    for (uint32_t k = 0; k < b->n; k++) {
        const cc_ir_block *kids[2];
        cc_vfy_stmt_exprs(v, b->items[k], fn);
        for (uint32_t c = 0, nc = cc_vfy_children(b->items[k], kids); c < nc; c++) cc_vfy_block_exprs(v, kids[c], fn);
    }
}

/* ---- V1 ------------------------------------------------------------------------------------ */

static void cc_vfy_v1(cc_vfy *v)
{
    const cc_ir_func *f = v->f;
    if (f->kind != CC_FUNC_ORCHESTRATION || !f->auto_scope || !f->body.n) return;
    cc_diag_add(v->p->diags, CC_DIAG_PASS, f->span, NULL,
                "[RuntimeScopesMaterialized] Orchestration function '%s' still has auto_scope=True; "
                "MaterializeRuntimeScopes must run before lowering (scopes are lowered only from explicit "
                "scope nodes, never inferred from for/if bodies)",
                f->name);
}

/* ---- V2 ------------------------------------------------------------------------------------ */

static void cc_vfy_v2_scope(cc_vfy *v, const cc_ir_stmt *s)
{
    const char *text = s->u.scope.mode == CC_SCOPE_AUTO ? "an AUTO scope may not be nested inside a manual scope"
                                                       : "a manual scope may not be nested inside another manual scope";
    if (!s->u.scope.inlined_from) {
        cc_diag_add(v->p->diags, CC_DIAG_PASS, s->span, NULL, "%s", text);
        return;
    }
    cc_diag_add(v->p->diags, CC_DIAG_PASS, s->span, NULL, "%s (after inlining '%s' at %s:%u)", text,
                s->u.scope.inlined_from, v->p->src->file, (unsigned)s->u.scope.inlined_at.line);
}

static void cc_vfy_v2(cc_vfy *v, const cc_ir_block *b, unsigned manual)
{
    for (uint32_t k = 0; k < b->n; k++) {
        const cc_ir_stmt *s = b->items[k];
        const cc_ir_block *kids[2];
        unsigned inner = manual;
        if (s->kind == CC_I_SCOPE) {
            if (manual) cc_vfy_v2_scope(v, s);
            inner += s->u.scope.mode == CC_SCOPE_MANUAL;
        }
        for (uint32_t c = 0, nc = cc_vfy_children(s, kids); c < nc; c++) cc_vfy_v2(v, kids[c], inner);
    }
}

/* ---- V3 ------------------------------------------------------------------------------------ */

static void cc_vfy_v3_report(cc_vfy *v, cc_span sp, const char *construct)
{
    cc_diag_add(v->p->diags, CC_DIAG_PASS, sp, NULL,
                "%s is control-plane work and is not allowed in kernel code (in InCore function '%s')", construct,
                v->f->name);
}

static int cc_vfy_v3_expr(cc_vfy *v, const cc_ir_expr *e)
{
    if (e->kind == CC_X_OP && e->u.op.op == CC_IR_CREATE_TENSOR) {
        cc_vfy_v3_report(v, e->span, "pl.create_tensor");
    } else if (e->kind == CC_X_CALL && e->u.call.submit) {
        cc_vfy_v3_report(v, e->span, "pl.submit");
    } else if (e->kind == CC_X_CALL && e->u.call.callee->kind != CC_FUNC_INLINE) {
        char construct[256];
        snprintf(construct, sizeof construct, "calling '%s'", e->u.call.callee->name);
        cc_vfy_v3_report(v, e->span, construct);
    }
    return 0;
}

static void cc_vfy_v3_scopes(cc_vfy *v, const cc_ir_block *b)
{
    for (uint32_t k = 0; k < b->n; k++) {
        const cc_ir_stmt *s = b->items[k];
        const cc_ir_block *kids[2];
        if (s->kind == CC_I_SCOPE)
            cc_diag_add(v->p->diags, CC_DIAG_PASS, s->span, NULL,
                        "a runtime scope is not allowed in kernel code (in InCore function '%s'); "
                        "move it to the orchestration function",
                        v->f->name);
        for (uint32_t c = 0, nc = cc_vfy_children(s, kids); c < nc; c++) cc_vfy_v3_scopes(v, kids[c]);
    }
}

static void cc_vfy_v3(cc_vfy *v)
{
    if (v->f->kind != CC_FUNC_INCORE) return;
    cc_vfy_v3_scopes(v, &v->f->body);
    cc_vfy_block_exprs(v, &v->f->body, cc_vfy_v3_expr);
}

/* ---- V4 ------------------------------------------------------------------------------------ */

/* Where a statement sits: its block and index, and the frame of the statement around it. */
typedef struct cc_vfy_frame {
    const cc_ir_block *b;
    uint32_t k;
    const struct cc_vfy_frame *up;
} cc_vfy_frame;

typedef enum { CC_VFY_NONE, CC_VFY_READ, CC_VFY_KILLED } cc_vfy_flow;

static int cc_vfy_reads_name(cc_vfy *v, const cc_ir_expr *e)
{
    if (e->kind != CC_X_VAR || strcmp(e->u.name, v->name)) return 0;
    v->hit = e;
    return 1;
}

static cc_vfy_flow cc_vfy_scan(cc_vfy *v, const cc_ir_block *b, uint32_t from);

/* Does s read v->name (READ, v->hit set) or rebind it on every path (KILLED)? */
static cc_vfy_flow cc_vfy_scan_stmt(cc_vfy *v, const cc_ir_stmt *s)
{
    if (cc_vfy_stmt_exprs(v, s, cc_vfy_reads_name)) return CC_VFY_READ;
    switch (s->kind) {
    case CC_I_ASSIGN:
        for (uint32_t t = 0; t < s->u.assign.ntargets; t++)
            if (!strcmp(s->u.assign.targets[t].name, v->name)) return CC_VFY_KILLED;
        return CC_VFY_NONE;
    case CC_I_FOR: return cc_vfy_scan(v, &s->u.for_.body, 0) == CC_VFY_READ ? CC_VFY_READ : CC_VFY_NONE;
    case CC_I_WHILE: return cc_vfy_scan(v, &s->u.while_.body, 0) == CC_VFY_READ ? CC_VFY_READ : CC_VFY_NONE;
    case CC_I_IF: {
        cc_vfy_flow t = cc_vfy_scan(v, &s->u.if_.then, 0);
        if (t == CC_VFY_READ) return t;
        cc_vfy_flow e = cc_vfy_scan(v, &s->u.if_.orelse, 0);
        if (e == CC_VFY_READ) return e;
        return t == CC_VFY_KILLED && e == CC_VFY_KILLED ? CC_VFY_KILLED : CC_VFY_NONE;
    }
    case CC_I_SCOPE: return cc_vfy_scan(v, &s->u.scope.body, 0);
    case CC_I_AT: return cc_vfy_scan(v, &s->u.at.body, 0);
    default: return CC_VFY_NONE;
    }
}

static cc_vfy_flow cc_vfy_scan(cc_vfy *v, const cc_ir_block *b, uint32_t from)
{
    for (uint32_t k = from; k < b->n; k++) {
        cc_vfy_flow r = cc_vfy_scan_stmt(v, b->items[k]);
        if (r != CC_VFY_NONE) return r;
    }
    return CC_VFY_NONE;
}

/* name was bound to the create_tensor `create` inside the scope at frame fr. */
static void cc_vfy_v4_escape(cc_vfy *v, const char *name, const cc_ir_expr *create, const cc_vfy_frame *fr)
{
    v->name = name;
    for (; fr; fr = fr->up) {
        cc_vfy_flow r = cc_vfy_scan(v, fr->b, fr->k + 1);
        if (r == CC_VFY_KILLED) return;
        if (r == CC_VFY_READ) break;
    }
    if (!fr) return;
    cc_diag_add(v->p->diags, CC_DIAG_PASS, v->hit->span, NULL,
                "[ScopedTensorEscapes] tensor '%s' is created inside a runtime scope (%s:%u) and used after that "
                "scope ends; create it in an enclosing scope",
                name, v->p->src->file, (unsigned)create->span.line);
}

/* The create_tensor bindings of b that belong to the scope at fr (not to a scope nested in it). */
static void cc_vfy_v4_creates(cc_vfy *v, const cc_ir_block *b, const cc_vfy_frame *fr)
{
    for (uint32_t k = 0; k < b->n; k++) {
        const cc_ir_stmt *s = b->items[k];
        const cc_ir_block *kids[2];
        if (s->kind == CC_I_SCOPE) continue;
        if (s->kind == CC_I_ASSIGN && s->u.assign.ntargets == 1 && s->u.assign.value->kind == CC_X_OP &&
            s->u.assign.value->u.op.op == CC_IR_CREATE_TENSOR)
            cc_vfy_v4_escape(v, s->u.assign.targets[0].name, s->u.assign.value, fr);
        for (uint32_t c = 0, nc = cc_vfy_children(s, kids); c < nc; c++) cc_vfy_v4_creates(v, kids[c], fr);
    }
}

static void cc_vfy_v4(cc_vfy *v, const cc_ir_block *b, const cc_vfy_frame *up)
{
    for (uint32_t k = 0; k < b->n; k++) {
        const cc_ir_stmt *s = b->items[k];
        const cc_ir_block *kids[2];
        cc_vfy_frame fr = {b, k, up};
        if (s->kind == CC_I_SCOPE) cc_vfy_v4_creates(v, &s->u.scope.body, &fr);
        for (uint32_t c = 0, nc = cc_vfy_children(s, kids); c < nc; c++) cc_vfy_v4(v, kids[c], &fr);
    }
}

/* ---- V5 ------------------------------------------------------------------------------------ */

static int cc_vfy_v5_expr(cc_vfy *v, const cc_ir_expr *e)
{
    if (e->kind != CC_X_CALL || e->u.call.callee->kind != CC_FUNC_INCORE) return 0;
    const cc_ir_func *g = e->u.call.callee;
    if (!e->u.call.boxes && e->u.call.nargs) { /* a kernel of no arguments (an empty pl.at body) has none */
        cc_diag_add(v->p->diags, CC_DIAG_INTERNAL, e->span, NULL,
                    "call of InCore function '%s' has no footprints (DeriveCallDirections did not run)", g->name);
        return 0;
    }
    for (uint32_t k = 0; k < e->u.call.nargs && k < g->nparams; k++) {
        if (e->u.call.args[k]->type.kind == CC_T_TENSOR && e->u.call.boxes[k].dir == CC_DIR_NONE) {
            cc_diag_add(v->p->diags, CC_DIAG_INTERNAL, e->u.call.args[k]->span, NULL,
                        "call of InCore function '%s': tensor argument '%s' has no direction", g->name,
                        g->params[k].name);
        }
    }
    return 0;
}

/* ---- the stage ------------------------------------------------------------------------------- */

static void cc_vfy_v2_func(cc_vfy *v)
{
    if (v->f->kind != CC_FUNC_INCORE) cc_vfy_v2(v, &v->f->body, 0);
}

static void cc_vfy_v4_func(cc_vfy *v) { cc_vfy_v4(v, &v->f->body, NULL); }

static void cc_vfy_v5_func(cc_vfy *v) { cc_vfy_block_exprs(v, &v->f->body, cc_vfy_v5_expr); }

int cc_verify(cc_ir_program *p)
{
    static void (*const checks[])(cc_vfy *) = {cc_vfy_v1, cc_vfy_v2_func, cc_vfy_v3, cc_vfy_v4_func, cc_vfy_v5_func};
    size_t errors = p->diags->errors;
    int oom = p->diags->out_of_memory;
    cc_vfy v = {.p = p};
    for (size_t c = 0; c < sizeof checks / sizeof checks[0]; c++)
        for (uint32_t k = 0; k < p->nfuncs; k++) v.f = p->funcs[k], checks[c](&v);
    return p->diags->errors > errors || p->diags->out_of_memory > oom ? -1 : 0;
}
