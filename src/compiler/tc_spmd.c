/*
 * tc_spmd.c - the type checker's SPMD forms (DSL-V2-SPEC §7, docs/dsl.md,
 * "SPMD"): `for i in pl.spmd(n, ...)`, `with pl.spmd(n, ...) [as tid]`,
 * pl.spmd_submit, `with pl.cluster()`, and the block ops pl.get_block_idx /
 * pl.get_block_num / pl.get_subblock_idx.
 *
 * Invariants: an SPMD loop, and a `with pl.spmd` body of kernel code, become
 * a CORE_GROUP pl.at statement with u.at.blocks = n (an INDEX expression of
 * the control plane; the loop's body starts with `i = pl.get_block_idx()`),
 * so outlining, footprints and the printer treat them as a pl.at with a
 * block count; a `with pl.spmd` over one kernel call is that call with
 * u.call.blocks set (under `as tid`: the pl.spmd_submit it stands for); a
 * cluster is a grouping pl.at (level UNDEFINED, cluster = 1) that creates
 * nothing.  The arguments of every SPMD form are checked in one order
 * (core_num, then the keywords, then the body), the first failure wins.
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

/* The keywords of `for ... in pl.spmd(...)` (loop) or `with pl.spmd(...)` other
 * than core_num into st; deps= (with only) into *deps. */
static int tc_spmd_kws(tc *t, const cc_expr *it, cc_ir_stmt *st, int loop, const cc_expr **deps)
{
    static const char *const loop_only[] = {"init_values", "chunk", "chunk_policy", "attrs", "step", "stage"};
    for (uint32_t k = 0; k < it->u.call.nkws; k++) {
        const cc_keyword *kw = &it->u.call.kws[k];
        if (!strcmp(kw->name, "core_num")) continue;
        if (t->c.in_cluster && (!strcmp(kw->name, "predicate") || !strcmp(kw->name, "allow_early_resolve")))
            return tc_err(t, CC_DIAG_SYNTAX, kw->name_span, NULL, "pl.spmd(%s=...) is not allowed inside pl.cluster()", kw->name), 0;
        if (!strcmp(kw->name, "sync_start")) {
            if (!tc_spmd_sync_start(t, kw, &st->u.at.sync_start)) return 0;
        } else if (!strcmp(kw->name, "name_hint")) {
            if (!tc_name_hint(t, kw->value, "spmd", &st->u.at.name_hint)) return 0;
        } else if (!strcmp(kw->name, "optimizations")) {
            if (!tc_hints(t, kw->value, &st->u.at.opts)) return 0;
        } else if (!strcmp(kw->name, "deps")) {
            if (loop) return tc_err(t, CC_DIAG_SYNTAX, kw->name_span, NULL, "pl.spmd() does not accept 'deps=' here"), 0;
            *deps = kw->value;
        } else {
            for (size_t j = 0; loop && j < sizeof loop_only / sizeof loop_only[0]; j++)
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
    if (!(st->u.at.blocks = tc_spmd_core_num(t, it, 0)) || !tc_spmd_kws(t, it, st, 1, NULL)) return NULL;
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

/* ---- with pl.spmd(...) ------------------------------------------------------------------------ */

/* Is e (or anything under it) a call of <ns>.get_block_idx()? */
static int tc_reads_block_idx(const cc_expr *e)
{
    if (!e) return 0;
    switch (e->kind) {
    case CC_E_CALL:
        if (e->u.call.fn->kind == CC_E_ATTR && !strcmp(e->u.call.fn->u.attr.name, "get_block_idx")) return 1;
        for (uint32_t k = 0; k < e->u.call.nargs; k++)
            if (tc_reads_block_idx(e->u.call.args[k])) return 1;
        for (uint32_t k = 0; k < e->u.call.nkws; k++)
            if (tc_reads_block_idx(e->u.call.kws[k].value)) return 1;
        return 0;
    case CC_E_ATTR: return tc_reads_block_idx(e->u.attr.value);
    case CC_E_SUBSCRIPT: return tc_reads_block_idx(e->u.sub.value) || tc_reads_block_idx(e->u.sub.index);
    case CC_E_BINARY: case CC_E_COMPARE: case CC_E_BOOLOP: return tc_reads_block_idx(e->u.bin.left) || tc_reads_block_idx(e->u.bin.right);
    case CC_E_UNARY: return tc_reads_block_idx(e->u.un.operand);
    case CC_E_LIST: case CC_E_TUPLE:
        for (uint32_t k = 0; k < e->u.seq.n; k++)
            if (tc_reads_block_idx(e->u.seq.items[k])) return 1;
        return 0;
    case CC_E_SLICE: return tc_reads_block_idx(e->u.slice.lo) || tc_reads_block_idx(e->u.slice.hi) || tc_reads_block_idx(e->u.slice.step);
    default: return 0;
    }
}

static int tc_block_reads_block_idx(const cc_block *b)
{
    for (uint32_t k = 0; k < b->n; k++) {
        const cc_stmt *s = b->items[k];
        switch (s->kind) {
        case CC_S_EXPR: if (tc_reads_block_idx(s->u.expr)) return 1; break;
        case CC_S_ASSIGN: if (tc_reads_block_idx(s->u.assign.value)) return 1; break;
        case CC_S_AUGASSIGN: if (tc_reads_block_idx(s->u.aug.value)) return 1; break;
        case CC_S_FOR: if (tc_reads_block_idx(s->u.for_.iter) || tc_block_reads_block_idx(&s->u.for_.body)) return 1; break;
        case CC_S_WHILE: if (tc_reads_block_idx(s->u.while_.cond) || tc_block_reads_block_idx(&s->u.while_.body)) return 1; break;
        case CC_S_IF:
            if (tc_reads_block_idx(s->u.if_.cond) || tc_block_reads_block_idx(&s->u.if_.then) || tc_block_reads_block_idx(&s->u.if_.orelse))
                return 1;
            break;
        case CC_S_WITH: if (tc_block_reads_block_idx(&s->u.with.body)) return 1; break;
        default: break;
        }
    }
    return 0;
}

/* The kernel call statement s is (`k(...)`, `x = k(...)`): its call, or NULL. */
static const cc_expr *tc_kernel_call(tc *t, const cc_stmt *s)
{
    const cc_expr *v = s->kind == CC_S_EXPR ? s->u.expr : s->kind == CC_S_ASSIGN ? s->u.assign.value : NULL;
    tc_fn *k = v && v->kind == CC_E_CALL ? tc_callee(t, v->u.call.fn) : NULL;
    return k && k->kind == CC_FUNC_INCORE ? v : NULL;
}

/* `targets, tid = pl.spmd_submit(k, args..., core_num=n, <the with's keywords>)`. */
static const cc_stmt *tc_dispatch_submit(tc *t, const cc_stmt *s, const cc_expr *call, const cc_with_item *it)
{
    const cc_expr *ctx = it->context;
    cc_expr *fn = base_arena_alloc(t->a, sizeof *fn), *sub = base_arena_alloc(t->a, sizeof *sub), *tid = base_arena_alloc(t->a, sizeof *tid);
    uint32_t na = call->u.call.nargs + 1, nk = call->u.call.nkws + ctx->u.call.nkws + (ctx->u.call.nargs ? 1 : 0);
    uint32_t nt = s->kind == CC_S_ASSIGN ? s->u.assign.ntargets + 1 : 1;
    cc_expr **args = base_arena_alloc(t->a, na * sizeof *args), **targets = base_arena_alloc(t->a, nt * sizeof *targets);
    cc_keyword *kws = base_arena_alloc(t->a, nk * sizeof *kws);
    cc_stmt *a = base_arena_alloc(t->a, sizeof *a);
    if (!fn || !sub || !tid || !args || !targets || !kws || !a) return tc_oom(t);
    *fn = *ctx->u.call.fn, fn->u.attr.name = "spmd_submit";
    args[0] = call->u.call.fn;
    memcpy(args + 1, call->u.call.args, call->u.call.nargs * sizeof *args);
    uint32_t k = 0;
    if (ctx->u.call.nargs) kws[k++] = (cc_keyword){"core_num", ctx->u.call.args[0]->span, ctx->u.call.args[0]};
    for (uint32_t j = 0; j < ctx->u.call.nkws; j++) kws[k++] = ctx->u.call.kws[j];
    for (uint32_t j = 0; j < call->u.call.nkws; j++) kws[k++] = call->u.call.kws[j];
    *sub = *call;
    sub->u.call.fn = fn, sub->u.call.args = args, sub->u.call.nargs = na, sub->u.call.kws = kws, sub->u.call.nkws = k;
    *tid = (cc_expr){.kind = CC_E_NAME, .span = it->as_span, .depth = 1, .u.name = it->as_name};
    if (s->kind == CC_S_ASSIGN) memcpy(targets, s->u.assign.targets, s->u.assign.ntargets * sizeof *targets);
    targets[nt - 1] = tid;
    *a = *s;
    a->kind = CC_S_ASSIGN;
    a->u.assign.targets = targets, a->u.assign.ntargets = nt, a->u.assign.annotation = NULL, a->u.assign.value = sub;
    return a;
}

cc_ir_stmt *tc_spmd_with(tc *t, const cc_stmt *s)
{
    const cc_with_item *it = &s->u.with.items[0];
    const cc_expr *ctx = it->context;
    if (t->c.plane == TC_KERNEL) return tc_control_in_kernel(t, ctx->span, "pl.spmd");
    cc_ir_stmt *st = tc_stmt_new(t, CC_I_AT, ctx->span);
    const cc_expr *deps = NULL;
    if (!st) return NULL;
    st->u.at.level = CC_LEVEL_CORE_GROUP, st->u.at.spmd_with = 1;
    if (!(st->u.at.blocks = tc_spmd_core_num(t, ctx, 0)) || !tc_spmd_kws(t, ctx, st, 0, &deps)) return NULL;
    if (deps && !it->as_name)
        return tc_err(t, CC_DIAG_SYNTAX, deps->span, NULL, "`with pl.spmd(...)` takes deps= only with an 'as' name");
    uint32_t kernels = 0;
    const cc_stmt *dispatch = NULL;
    for (uint32_t k = 0; k < s->u.with.body.n; k++)
        if (tc_kernel_call(t, s->u.with.body.items[k])) kernels++, dispatch = s->u.with.body.items[k];
    if (kernels > 1)
        return tc_err(t, CC_DIAG_SYNTAX, ctx->span, NULL,
                      "`with pl.spmd(...)` dispatch body launches %u kernels; only one kernel dispatch per SPMD scope is supported.", kernels);
    if (!kernels && !tc_block_reads_block_idx(&s->u.with.body))
        return tc_err(t, CC_DIAG_SYNTAX, ctx->span, NULL,
                      "`with pl.spmd(...)` body neither reads the per-block index via `pl.tile.get_block_idx()` nor dispatches a "
                      "`self.<kernel>(...)` call, so every block would run identical work.");
    if (kernels) { /* the one kernel call, once per block */
        if (s->u.with.body.n != 1)
            return tc_err(t, CC_DIAG_SYNTAX, dispatch->span, NULL, "a `with pl.spmd(...)` dispatch body must be the kernel call alone");
        if (st->u.at.name_hint || st->u.at.opts.written)
            return tc_err(t, CC_DIAG_SYNTAX, ctx->span, NULL, "name_hint= and optimizations= need a pl.spmd body of kernel code");
        if (it->as_name) {
            const cc_stmt *sub = tc_dispatch_submit(t, dispatch, tc_kernel_call(t, dispatch), it);
            return sub ? tc_stmt(t, sub, 0) : NULL;
        }
        cc_ir_stmt *call = tc_stmt(t, dispatch, 0);
        if (!call) return NULL;
        cc_ir_expr *v = call->kind == CC_I_ASSIGN ? call->u.assign.value : call->u.expr;
        v->u.call.blocks = st->u.at.blocks, v->u.call.sync_start = st->u.at.sync_start;
        return call;
    }
    if (deps) {
        st->u.at.has_deps = 1;
        if (!tc_at_deps(t, deps, &st->u.at.deps, &st->u.at.ndeps)) return NULL;
    }
    st->u.at.as_name = it->as_name;
    if (!tc_at_body(t, &s->u.with.body, st, ctx->span, NULL)) return NULL;
    if (it->as_name && !tc_bind_name(t, it->as_name, (cc_type){.kind = CC_T_SCALAR, .dtype = CC_DT_TASK_ID}, it->as_span)) return NULL;
    return st;
}

/* ---- with pl.cluster() ------------------------------------------------------------------------ */

cc_ir_stmt *tc_cluster(tc *t, const cc_stmt *s)
{
    const cc_with_item *it = &s->u.with.items[0];
    const cc_expr *ctx = it->context;
    if (ctx->u.call.nargs || ctx->u.call.nkws)
        return tc_err(t, CC_DIAG_SYNTAX, ctx->span, NULL, "pl.cluster() does not accept arguments");
    if (it->as_name)
        return tc_err(t, CC_DIAG_SYNTAX, ctx->span, NULL,
                      "`with pl.cluster() as ...:` is not supported — the `as` clause only applies to pl.at");
    if (t->c.plane == TC_KERNEL) return tc_control_in_kernel(t, ctx->span, "pl.cluster");
    cc_ir_stmt *st = tc_stmt_new(t, CC_I_AT, ctx->span);
    if (!st) return NULL;
    st->u.at.level = CC_LEVEL_UNDEFINED, st->u.at.cluster = 1;
    t->c.in_cluster++;
    int ok = tc_block(t, &s->u.with.body, &st->u.at.body, 0, TC_BLOCK_PLAIN);
    t->c.in_cluster--;
    return ok ? st : NULL;
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
