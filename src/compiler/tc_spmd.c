/*
 * tc_spmd.c - the type checker's SPMD forms (DSL-V2-SPEC §7, docs/dsl.md,
 * "SPMD"): `for i in pl.spmd(n, ...)`, pl.spmd_submit, and the block ops
 * pl.get_block_idx / pl.get_block_num / pl.get_subblock_idx.
 *
 * Invariants: an SPMD loop becomes a CORE_GROUP pl.at statement with
 * u.at.blocks = n (an INDEX expression of the control plane) whose body
 * starts with `i = pl.get_block_idx()`, so outlining, footprints and the
 * printer treat it as a pl.at with a block count; the arguments of every
 * SPMD form are checked in one order (tc_spmd_core_num), first failure wins.
 */
#include "compiler/tc.h"

#include <string.h>

#include "compiler/names.h"

int tc_is_spmd(tc *t, const cc_expr *it)
{
    return it->kind == CC_E_CALL && tc_pl_attr(t, it->u.call.fn, "spmd") && it->u.call.fn->u.attr.value->kind == CC_E_NAME;
}

/* The block count of an SPMD form: its one positional argument or core_num=
 * (exactly one of them), an integer scalar, positive when constant. */
static cc_ir_expr *tc_spmd_core_num(tc *t, const cc_expr *call, uint32_t first_arg)
{
    const cc_expr *n = NULL;
    if (call->u.call.nargs > first_arg + 1)
        return tc_err(t, CC_DIAG_SYNTAX, call->u.call.args[first_arg + 1]->span, NULL,
                      "pl.spmd() accepts at most one positional argument (core_num)");
    if (first_arg == 0 && call->u.call.nargs) n = call->u.call.args[0];
    for (uint32_t k = 0; k < call->u.call.nkws; k++) {
        const cc_keyword *kw = &call->u.call.kws[k];
        if (strcmp(kw->name, "core_num")) continue;
        if (n) return tc_err(t, CC_DIAG_SYNTAX, kw->name_span, NULL, "pl.spmd() got multiple values for argument 'core_num'");
        n = kw->value;
    }
    if (!n) return tc_err(t, CC_DIAG_SYNTAX, call->span, NULL, "pl.spmd() requires core_num (first positional argument)");
    cc_ir_expr *v = tc_expr(t, n);
    if (!v) return NULL;
    if (v->type.kind != CC_T_SCALAR || cc_dtype_is_float(v->type.dtype) || v->type.dtype == CC_DT_TASK_ID ||
        v->type.dtype == CC_DT_BOOL) {
        char ty[96];
        cc_type_format(&v->type, ty, sizeof ty);
        return tc_err(t, CC_DIAG_TYPE, n->span, NULL, "core_num must be an integer expression, got %s", ty);
    }
    int64_t c;
    if (cc_ir_const_int(v, &c) && c < 1)
        return tc_err(t, CC_DIAG_INVALID_OP, n->span, NULL, "core_num must be a positive integer, got %lld", (long long)c);
    return v;
}

static int tc_spmd_sync_start(tc *t, const cc_keyword *kw, uint8_t *out)
{
    if (kw->value->kind != CC_E_BOOL)
        return tc_err(t, CC_DIAG_SYNTAX, kw->value->span, NULL, "pl.spmd() sync_start must be a boolean literal (True/False)"), 0;
    *out = (uint8_t)kw->value->u.i;
    return 1;
}

/* The loop form's keywords other than core_num. */
static int tc_spmd_loop_kws(tc *t, const cc_expr *it, cc_ir_stmt *st)
{
    static const char *const loop_only[] = {"init_values", "chunk", "chunk_policy", "attrs", "step", "stage"};
    for (uint32_t k = 0; k < it->u.call.nkws; k++) {
        const cc_keyword *kw = &it->u.call.kws[k];
        if (!strcmp(kw->name, "core_num")) continue;
        if (!strcmp(kw->name, "sync_start")) {
            if (!tc_spmd_sync_start(t, kw, &st->u.at.sync_start)) return 0;
        } else if (!strcmp(kw->name, "name_hint")) {
            if (!tc_name_hint(t, kw->value, "spmd", &st->u.at.name_hint)) return 0;
        } else if (!strcmp(kw->name, "optimizations")) {
            if (!tc_hints(t, kw->value, &st->u.at.opts)) return 0;
        } else if (!strcmp(kw->name, "deps")) {
            return tc_err(t, CC_DIAG_SYNTAX, kw->name_span, NULL, "pl.spmd() does not accept 'deps=' here"), 0;
        } else {
            for (size_t j = 0; j < sizeof loop_only / sizeof loop_only[0]; j++)
                if (!strcmp(kw->name, loop_only[j]))
                    return tc_err(t, CC_DIAG_SYNTAX, kw->name_span, NULL, "pl.spmd() loop form does not accept '%s='", kw->name), 0;
            if (tc_pl_keyword_unsupported(t, "spmd", kw)) return 0;
            return tc_err(t, CC_DIAG_SYNTAX, kw->name_span, NULL, "pl.spmd() got an unexpected keyword '%s'", kw->name), 0;
        }
    }
    return 1;
}

cc_ir_stmt *tc_spmd_for(tc *t, const cc_stmt *s)
{
    const cc_expr *it = s->u.for_.iter;
    if (t->c.plane == TC_KERNEL) return tc_control_in_kernel(t, it->span, "pl.spmd");
    cc_ir_stmt *st = tc_stmt_new(t, CC_I_AT, s->span);
    if (!st) return NULL;
    st->u.at.level = CC_LEVEL_CORE_GROUP;
    if (!(st->u.at.blocks = tc_spmd_core_num(t, it, 0)) || !tc_spmd_loop_kws(t, it, st)) return NULL;
    const cc_type index = {.kind = CC_T_SCALAR, .dtype = CC_DT_INDEX};
    cc_ir_stmt *first = tc_stmt_new(t, CC_I_ASSIGN, s->span);
    cc_ir_expr *idx = cc_ir_op_new(t->a, CC_IR_GET_BLOCK_IDX, s->u.for_.var_span);
    if (!first || !idx || !(first->u.assign.targets = base_arena_alloc(t->a, sizeof *first->u.assign.targets))) return tc_oom(t);
    idx->type = index;
    first->u.assign.targets[0] = (cc_ir_target){s->u.for_.var, index, s->u.for_.var_span};
    first->u.assign.ntargets = 1;
    first->u.assign.value = idx;
    int had = tc_lookup(&t->c.env, s->u.for_.var) != NULL;
    if (!tc_bind_name(t, s->u.for_.var, index, s->u.for_.var_span) || !tc_at_body(t, &s->u.for_.body, st, it->span, first))
        return NULL;
    if (!had && !tc_unbind(t, s->u.for_.var)) return NULL; /* not defined after the loop, as a pl.range variable */
    return st;
}

cc_ir_expr *tc_block_op(tc *t, const cc_expr *call, int op)
{
    const char *name = op < 0 ? "get_subblock_idx" : cc_ir_op_name((cc_ir_op)op);
    tc_args a;
    if (!tc_kernel_only(t, name, call->span) || !tc_op_bind(t, call, name, NULL, 0, &a)) return NULL;
    cc_ir_expr *x = op < 0 ? cc_ir_int(t->a, 0, call->span) : cc_ir_op_new(t->a, (cc_ir_op)op, call->span);
    if (!x) return tc_oom(t);
    x->type = (cc_type){.kind = CC_T_SCALAR, .dtype = CC_DT_INDEX};
    return x;
}

cc_ir_expr *tc_spmd_submit(tc *t, const cc_expr *call)
{
    if (t->c.plane == TC_KERNEL) return tc_control_in_kernel(t, call->span, "pl.spmd_submit");
    tc_fn *k = call->u.call.nargs ? tc_callee(t, call->u.call.args[0]) : NULL;
    if (!k)
        return tc_err(t, CC_DIAG_SYNTAX, call->u.call.nargs ? call->u.call.args[0]->span : call->span, NULL,
                      "pl.spmd_submit(...) first argument must be a self.<kernel> method reference or a @pl.jit.incore function");
    cc_expr rest = *call; /* the call without the SPMD keywords: a pl.submit */
    cc_keyword *kws = call->u.call.nkws ? base_arena_alloc(t->a, call->u.call.nkws * sizeof *kws) : NULL;
    if (call->u.call.nkws && !kws) return tc_oom(t);
    uint8_t sync = 0;
    rest.u.call.kws = kws, rest.u.call.nkws = 0;
    for (uint32_t j = 0; j < call->u.call.nkws; j++) {
        const cc_keyword *kw = &call->u.call.kws[j];
        if (!strcmp(kw->name, "sync_start") && !tc_spmd_sync_start(t, kw, &sync)) return NULL;
        if (!strcmp(kw->name, "core_num") || !strcmp(kw->name, "sync_start")) continue;
        if (strcmp(kw->name, "deps") && tc_pl_keyword_unsupported(t, "spmd_submit", kw)) return NULL;
        kws[rest.u.call.nkws++] = *kw;
    }
    cc_ir_expr *n = tc_spmd_core_num(t, call, call->u.call.nargs);
    if (!n) return NULL;
    if (t->c.whole_call == call) t->c.whole_call = &rest; /* the statement's whole value still */
    cc_ir_expr *e = tc_func_call(t, k, &rest, 1, 1);
    if (!e) return NULL;
    e->u.call.blocks = n, e->u.call.sync_start = sync;
    return e;
}
