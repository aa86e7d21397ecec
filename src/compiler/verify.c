/*
 * verify.c - stage 5, Verify: the checks of docs/compiler.md, "Verifier checks", on the IR the
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
 * until the name is rebound unconditionally (cc_ir_scan_reads).  A loop's back-edge is not
 * followed (a read before the creation in the next iteration would be a
 * use before assignment, rejected at stage 0).
 */
#include <stdio.h>

#include "compiler/ir_walk.h"
#include "compiler/passes.h"

typedef struct cc_vfy {
    cc_ir_program *p;
    const cc_ir_func *f;
} cc_vfy;

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
                s->u.scope.inlined_from, cc_diag_file(v->p->diags, s->u.scope.inlined_at.line), (unsigned)cc_diag_line(v->p->diags, s->u.scope.inlined_at.line));
}

static void cc_vfy_v2(cc_vfy *v, const cc_ir_block *b, unsigned manual)
{
    for (uint32_t k = 0; k < b->n; k++) {
        const cc_ir_stmt *s = b->items[k];
        cc_ir_block *kids[CC_IR_MAX_BLOCKS];
        unsigned inner = manual;
        if (s->kind == CC_I_SCOPE) {
            if (manual) cc_vfy_v2_scope(v, s);
            inner += s->u.scope.mode == CC_SCOPE_MANUAL;
        }
        for (uint32_t c = 0, nc = cc_ir_stmt_blocks(s, kids); c < nc; c++) cc_vfy_v2(v, kids[c], inner);
    }
}

/* ---- V3 ------------------------------------------------------------------------------------ */

static void cc_vfy_v3_report(cc_vfy *v, cc_span sp, const char *construct)
{
    cc_diag_add(v->p->diags, CC_DIAG_PASS, sp, NULL,
                "%s is control-plane work and is not allowed in kernel code (in InCore function '%s')", construct,
                v->f->name);
}

static int cc_vfy_v3_expr(cc_ir_expr *e, void *ctx)
{
    cc_vfy *v = ctx;
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

static int cc_vfy_v3_scope(cc_ir_stmt *s, void *ctx)
{
    cc_vfy *v = ctx;
    if (s->kind == CC_I_SCOPE)
        cc_diag_add(v->p->diags, CC_DIAG_PASS, s->span, NULL,
                    "a runtime scope is not allowed in kernel code (in InCore function '%s'); "
                    "move it to the orchestration function",
                    v->f->name);
    return 0;
}

static void cc_vfy_v3(cc_vfy *v)
{
    if (v->f->kind != CC_FUNC_INCORE) return;
    cc_ir_block_each_stmt(&v->f->body, cc_vfy_v3_scope, v);
    cc_ir_block_walk_exprs(&v->f->body, cc_vfy_v3_expr, v);
}

/* ---- V4 ------------------------------------------------------------------------------------ */

/* Where a statement sits: its block and index, and the frame of the statement around it. */
typedef struct cc_vfy_frame {
    const cc_ir_block *b;
    uint32_t k;
    const struct cc_vfy_frame *up;
} cc_vfy_frame;

/* name was bound to the create_tensor `create` inside the scope at frame fr. */
static void cc_vfy_v4_escape(cc_vfy *v, const char *name, const cc_ir_expr *create, const cc_vfy_frame *fr)
{
    cc_ir_reader at;
    for (; fr; fr = fr->up) {
        cc_ir_reach r = cc_ir_scan_reads(fr->b, fr->k + 1, fr->b->n, name, &at);
        if (r == CC_IR_REACH_KILLED) return;
        if (r == CC_IR_REACH_READ) break;
    }
    if (!fr) return;
    cc_diag_add(v->p->diags, CC_DIAG_PASS, at.var->span, NULL,
                "[ScopedTensorEscapes] tensor '%s' is created inside a runtime scope (%s:%u) and used after that "
                "scope ends; create it in an enclosing scope",
                name, cc_diag_file(v->p->diags, create->span.line), (unsigned)cc_diag_line(v->p->diags, create->span.line));
}

/* The create_tensor bindings of b that belong to the scope at fr (not to a scope nested in it). */
static void cc_vfy_v4_creates(cc_vfy *v, const cc_ir_block *b, const cc_vfy_frame *fr)
{
    for (uint32_t k = 0; k < b->n; k++) {
        const cc_ir_stmt *s = b->items[k];
        cc_ir_block *kids[CC_IR_MAX_BLOCKS];
        if (s->kind == CC_I_SCOPE) continue;
        if (s->kind == CC_I_ASSIGN && s->u.assign.ntargets == 1 && s->u.assign.value->kind == CC_X_OP &&
            s->u.assign.value->u.op.op == CC_IR_CREATE_TENSOR)
            cc_vfy_v4_escape(v, s->u.assign.targets[0].name, s->u.assign.value, fr);
        for (uint32_t c = 0, nc = cc_ir_stmt_blocks(s, kids); c < nc; c++) cc_vfy_v4_creates(v, kids[c], fr);
    }
}

static void cc_vfy_v4(cc_vfy *v, const cc_ir_block *b, const cc_vfy_frame *up)
{
    for (uint32_t k = 0; k < b->n; k++) {
        const cc_ir_stmt *s = b->items[k];
        cc_ir_block *kids[CC_IR_MAX_BLOCKS];
        cc_vfy_frame fr = {b, k, up};
        if (s->kind == CC_I_SCOPE) cc_vfy_v4_creates(v, &s->u.scope.body, &fr);
        for (uint32_t c = 0, nc = cc_ir_stmt_blocks(s, kids); c < nc; c++) cc_vfy_v4(v, kids[c], &fr);
    }
}

/* ---- V5 ------------------------------------------------------------------------------------ */

static int cc_vfy_v5_expr(cc_ir_expr *e, void *ctx)
{
    cc_vfy *v = ctx;
    if (e->kind != CC_X_CALL || cc_ir_is_dummy(e) || e->u.call.callee->kind != CC_FUNC_INCORE) return 0;
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

static void cc_vfy_v5_func(cc_vfy *v) { cc_ir_block_walk_exprs(&v->f->body, cc_vfy_v5_expr, v); }

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
