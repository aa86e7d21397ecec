/*
 * tc_out_param.c - [OutParamNotShadowed] (DSL-V2-SPEC §1.6): the name of a
 * declared pl.Out / pl.InOut tensor parameter stays the caller's buffer.
 * Binding it to any other value (straight-line, in a body, in a pl.at body
 * whose value would cross) would leave that buffer unwritten, so it is a
 * PartialCodegenError (a PassError) at the rebinding.
 *
 * Aliasing results are no rebinding: what a value's buffer is follows the
 * tensor through `pl.store(..., t)`, `pl.write(t, ...)`,
 * `pl.assemble(t, ...)`, a name bound to it (tc_bind.buffer, merged at
 * joins), and a call whose result k is the callee's parameter the tensor
 * is passed to.
 */
#include "compiler/tc.h"

#include <stdio.h>
#include <string.h>

const cc_ir_expr *tc_result_arg(const cc_ir_expr *call, uint32_t k)
{
    if (call->kind != CC_X_CALL || !call->u.call.callee) return NULL;
    const cc_ir_func *g = call->u.call.callee;
    const cc_ir_block *b = &g->body;
    const cc_ir_stmt *r = b->n ? b->items[b->n - 1] : NULL; /* the return ends the body (through trailing scopes) */
    while (r && r->kind == CC_I_SCOPE) r = r->u.scope.body.n ? r->u.scope.body.items[r->u.scope.body.n - 1] : NULL;
    if (!r || r->kind != CC_I_RETURN || k >= r->u.ret.n || r->u.ret.values[k]->kind != CC_X_VAR) return NULL;
    int i = cc_ir_func_param(g, r->u.ret.values[k]->u.name);
    return i >= 0 && (uint32_t)i < call->u.call.nargs ? call->u.call.args[i] : NULL;
}

const char *tc_buffer_of(tc *t, const cc_ir_expr *v, uint32_t k)
{
    cc_dir dir;
    const cc_ir_expr *x = k == 0 ? cc_ir_tensor_access(v, &dir) : NULL;
    if (x && (dir & CC_DIR_OUT)) return tc_buffer_of(t, x, 0);
    if (k == 0 && v->kind == CC_X_VAR) {
        const tc_bind *b = tc_lookup(&t->c.env, v->u.name);
        return b ? b->buffer : NULL;
    }
    if (k == 0 && v->kind == CC_X_OP && v->u.op.op == CC_IR_ASSEMBLE) return tc_buffer_of(t, v->u.op.args[0], 0);
    const cc_ir_expr *arg = tc_result_arg(v, k);
    return arg ? tc_buffer_of(t, arg, 0) : NULL;
}

int tc_out_param_rebind(tc *t, const char *name, const char *buf, cc_span sp)
{
    const cc_ir_func *f = t->c.f;
    int i = cc_ir_func_param(f, name);
    if (i < 0) return 1;
    const cc_ir_param *pm = &f->params[i];
    if (pm->type.kind != CC_T_TENSOR || !pm->declared || !(pm->dir & CC_DIR_OUT)) return 1;
    if (buf && !strcmp(buf, name)) return 1;
    char hint[256];
    snprintf(hint, sizeof hint, "write into it: '%s[:] = ...' or pl.store(tile, offsets, %s)", name, name);
    tc_err(t, CC_DIAG_PARTIAL_CODEGEN, sp, hint,
           "[OutParamNotShadowed] '%s' is a pl.%s parameter of '%s' but is rebound at %s:%u to a new value, "
           "so the caller's buffer is never written",
           name, pm->dir == CC_DIR_INOUT ? "InOut" : "Out", f->name, cc_diag_file(t->d, sp.line), (unsigned)cc_diag_line(t->d, sp.line));
    return 0;
}
