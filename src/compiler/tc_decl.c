/*
 * tc_decl.c - the type checker's declarations and signatures: the
 * program's functions gathered (the methods of the @pl.program class, or
 * the decorated module-level defs), each decorator read into a function
 * kind, auto_scope and level (docs/dsl.md, "Decorators and function
 * kinds"), and the check of one function (tc_check_fn): its parameters
 * from their annotations (docs/dsl.md, "Annotations"), bound to the
 * caller's argument specs (the entry) or to its first call's argument
 * types (a callee), its `-> T`, then its body (tc_stmt.c).
 *
 * Invariants: the SYNTAX stage runs only the declarations (tc_gather);
 * a module-level function that is not the entry keeps its declaration's
 * errors back (broken) until the entry reaches it; a function is checked
 * once, at its first call, and its parameters' types are fixed there
 * (later calls are checked against them by typecheck.c).  The kernels of
 * the other modules are gathered after the entry's module's functions; a
 * function's declaration and body are read in its own module.
 */
#include "compiler/tc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/names.h"
#include "compiler/printer.h"
#include "compiler/scalar.h"

static int tc_check_decl_in(tc *t, tc_fn *fn);
static int tc_check_fn_in(tc *t, tc_fn *fn, cc_ir_expr *const *args);

/* ---- decorators ---------------------------------------------------------------------- */

/* The keyword `name` of a decorator call, or NULL. */
static const cc_keyword *tc_kw(const cc_expr *call, const char *name)
{
    if (call->kind != CC_E_CALL) return NULL;
    for (uint32_t k = 0; k < call->u.call.nkws; k++)
        if (!strcmp(call->u.call.kws[k].name, name)) return &call->u.call.kws[k];
    return NULL;
}

static const char *tc_pytype(const cc_expr *e)
{
    switch (e->kind) {
    case CC_E_INT: return "int";
    case CC_E_FLOAT: return "float";
    case CC_E_STRING: return "str";
    case CC_E_NONE: return "NoneType";
    case CC_E_LIST: return "list";
    case CC_E_TUPLE: return "tuple";
    default: return "object";
    }
}

/* auto_scope= of a @pl.jit form: a bool (constants allowed). */
static int tc_jit_auto_scope(tc *t, const cc_keyword *kw, uint8_t *out)
{
    if (kw->value->kind == CC_E_BOOL) return *out = (uint8_t)kw->value->u.i, 1;
    if (kw->value->kind == CC_E_NAME) {
        int found;
        cc_ir_expr *v = tc_constant(t, kw->value->u.name, kw->value->span, &found);
        if (v && v->kind == CC_X_BOOL) return *out = (uint8_t)v->u.i, 1;
        if (found) return 0;
    }
    tc_err(t, CC_DIAG_PY_TYPE, kw->value->span, NULL, "auto_scope must be a bool, got %s", tc_pytype(kw->value));
    return 0;
}

/* A @pl.jit[.kind][(...)] decorator of a module-level def. */
static int tc_jit_decorator(tc *t, const cc_expr *d, tc_fn *fn)
{
    const cc_expr *callee = d->kind == CC_E_CALL ? d->u.call.fn : d;
    const char *kind = tc_pl_attr(t, callee, "jit");
    if (!kind) {
        const char *path = tc_pl_path(t, callee);
        if (path && !strcmp(path, "pl.inline"))
            return tc_err(t, CC_DIAG_UNSUPPORTED, d->span, "put it on a method of a @pl.program class, or use @pl.jit",
                          "@%s outside @pl.program is not supported in this version", path),
                   0;
        return tc_err(t, CC_DIAG_UNSUPPORTED, d->span, NULL, "@%s is not supported in this version",
                      path ? path : "this decorator"),
               0;
    }
    cc_pl_reason hw = cc_pl_member_reason("jit", kind); /* @pl.jit.extern */
    if (hw != CC_PLR_NONE) {
        char construct[64];
        snprintf(construct, sizeof construct, "@pl.jit.%s", kind);
        return tc_pl_unsupported(t, d->span, CC_PL_HARDWARE, hw, construct), 0;
    }
    if (strcmp(kind, "jit") && strcmp(kind, "incore") && strcmp(kind, "inline") && strcmp(kind, "opaque") && strcmp(kind, "host"))
        return tc_err(t, CC_DIAG_UNSUPPORTED, d->span, NULL, "@pl.jit.%s is not supported in this version", kind), 0;
    const char *deco = !strcmp(kind, "jit") ? "" : ".", *sub = !strcmp(kind, "jit") ? "" : kind; /* @pl.jit, @pl.jit.<kind> */
    if (d->kind == CC_E_CALL && d->u.call.nargs)
        return tc_err(t, CC_DIAG_PY_TYPE, d->span, NULL, "@pl.jit%s%s takes only keyword arguments", deco, sub), 0;
    const cc_keyword *level = tc_kw(d, "level"), *as = tc_kw(d, "auto_scope");
    for (uint32_t k = 0; d->kind == CC_E_CALL && k < d->u.call.nkws; k++) {
        const char *n = d->u.call.kws[k].name;
        if (strcmp(n, "level") && strcmp(n, "auto_scope"))
            return tc_err(t, CC_DIAG_PY_TYPE, d->u.call.kws[k].name_span, NULL,
                          "@pl.jit%s%s got an unexpected keyword argument '%s'", deco, sub, n),
                   0;
    }
    fn->auto_scope = 1;
    if (!strcmp(kind, "jit")) {
        if (level) return tc_err(t, CC_DIAG_PY_TYPE, level->name_span, NULL, "@pl.jit got an unexpected keyword argument 'level'"), 0;
        fn->kind = CC_FUNC_ORCHESTRATION, fn->jit_entry = 1;
        return !as || tc_jit_auto_scope(t, as, &fn->auto_scope);
    }
    if (!strcmp(kind, "incore")) {
        fn->kind = CC_FUNC_INCORE;
        if (as)
            return tc_err(t, CC_DIAG_PY_TYPE, as->name_span, NULL,
                          "@pl.jit.incore does not accept an auto_scope= argument (auto_scope is only meaningful for "
                          "the Orchestration entry, the HOST orchestrator, and inline sub-functions)"),
                   0;
        if (level && tc_pl_hardware(t, level->value)) return 0; /* pl.Level.AIC, pl.Level.AIV */
        if (level && tc_enum_value(t, level->value, "Level") != CC_LEVEL_CORE_GROUP)
            return tc_err(t, CC_DIAG_UNSUPPORTED, level->value->span, NULL,
                          "@pl.jit.incore(level=%s) is not supported in this version",
                          tc_pl_path(t, level->value) ? tc_pl_path(t, level->value) : "..."),
                   0;
        return 1;
    }
    if (strcmp(kind, "inline") && strcmp(kind, "opaque") && strcmp(kind, "host"))
        return tc_err(t, CC_DIAG_UNSUPPORTED, d->span, NULL, "@pl.jit.%s is not supported in this version", kind), 0;
    if (level) return tc_err(t, CC_DIAG_PY_TYPE, level->name_span, NULL, "@pl.jit.%s does not accept a level= argument", kind), 0;
    if (!strcmp(kind, "opaque")) {
        fn->kind = CC_FUNC_OPAQUE;
        if (as)
            return tc_err(t, CC_DIAG_PY_TYPE, as->name_span, NULL,
                          "@pl.jit.opaque does not accept an auto_scope= argument (auto_scope is only meaningful for "
                          "the Orchestration entry, the HOST orchestrator, and inline sub-functions)"),
                   0;
        return 1;
    }
    fn->kind = !strcmp(kind, "inline") ? CC_FUNC_INLINE : CC_FUNC_ORCHESTRATION;
    fn->host = !strcmp(kind, "host");
    return !as || tc_jit_auto_scope(t, as, &fn->auto_scope);
}

/* @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator[, auto_scope=...]): a host
 * orchestrator (DISTRIBUTED-SPEC §1.2, the form lower() prints); every other role is later. */
static int tc_host_function(tc *t, const cc_expr *d, tc_fn *fn, const cc_keyword *level, const cc_keyword *role, const cc_keyword *as)
{
    const cc_keyword *type = tc_kw(d, "type"), *opts = tc_kw(d, "optimizations");
    int r = role ? tc_enum_value(t, role->value, "Role") : -1;
    if (role && r < 0 && tc_pl_keyword_unsupported(t, "function", role)) return 0; /* not a pl.Role: Ascend's core-type selector */
    if (role && r != 0) {
        const char *path = tc_pl_path(t, role->value);
        return tc_err(t, r < 0 ? CC_DIAG_SYNTAX : CC_DIAG_UNSUPPORTED, role->value->span, NULL,
                      r < 0 ? "@pl.function(role=...) must be a pl.Role member" : "%s is not supported in this version", path ? path : "this role"), 0;
    }
    if (!level || tc_enum_value(t, level->value, "Level") != CC_LEVEL_HOST)
        return tc_err(t, CC_DIAG_SYNTAX, (level ? level : role)->value->span, NULL,
                      "a host orchestrator is declared @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)"), 0;
    if (type || opts)
        return tc_err(t, CC_DIAG_SYNTAX, (type ? type : opts)->name_span, NULL, "@pl.function(level=pl.Level.HOST) takes role= and auto_scope= only"), 0;
    if (as && as->value->kind != CC_E_BOOL)
        return tc_err(t, CC_DIAG_SYNTAX, as->value->span, NULL, "`@pl.function(auto_scope=...)` must be a bool literal (True/False)"), 0;
    fn->kind = CC_FUNC_ORCHESTRATION, fn->host = 1;
    return 1;
}

/* @pl.function(type=..., auto_scope=<bool literal>, level=...) on a method. */
static int tc_function_decorator(tc *t, const cc_expr *d, tc_fn *fn)
{
    const cc_expr *callee = d->kind == CC_E_CALL ? d->u.call.fn : d;
    if (!tc_pl_attr(t, callee, "function"))
        return tc_err(t, CC_DIAG_SYNTAX, d->span, NULL, "a @pl.program method must be decorated with @pl.function"), 0;
    fn->kind = CC_FUNC_OPAQUE;
    fn->auto_scope = 1;
    const cc_keyword *type = tc_kw(d, "type"), *as = tc_kw(d, "auto_scope"), *level = tc_kw(d, "level"),
                     *opts = tc_kw(d, "optimizations");
    for (uint32_t k = 0; d->kind == CC_E_CALL && k < d->u.call.nkws; k++) {
        const char *n = d->u.call.kws[k].name;
        if (strcmp(n, "type") && strcmp(n, "auto_scope") && strcmp(n, "level") && strcmp(n, "optimizations") && strcmp(n, "role"))
            return tc_pl_keyword_unsupported(t, "function", &d->u.call.kws[k]) /* role=, external_source= */
                       ? 0
                       : (tc_err(t, CC_DIAG_UNSUPPORTED, d->u.call.kws[k].name_span, NULL,
                                 "@pl.function(%s=...) is not supported in this version", n),
                          0);
    }
    if (type) {
        if (tc_pl_hardware(t, type->value)) return 0; /* pl.FunctionType.AIC, .AIV, .Group, .Spmd */
        int v = tc_enum_value(t, type->value, "FunctionType");
        if (v != CC_FUNC_OPAQUE && v != CC_FUNC_ORCHESTRATION && v != CC_FUNC_INCORE && v != CC_FUNC_INLINE) {
            const char *path = tc_pl_path(t, type->value);
            return tc_err(t, v < 0 ? CC_DIAG_SYNTAX : CC_DIAG_UNSUPPORTED, type->value->span, NULL,
                          v < 0 ? "@pl.function(type=...) must be a pl.FunctionType member"
                                : "%s is not supported in this version",
                          path ? path : "this function type"),
                   0;
        }
        fn->kind = (uint8_t)v;
    }
    if (as) {
        if (fn->kind == CC_FUNC_INCORE)
            return tc_err(t, CC_DIAG_SYNTAX, as->name_span, NULL,
                          "@pl.function(type=pl.FunctionType.InCore) does not accept auto_scope= (an InCore function "
                          "has no orchestration body)"),
                   0;
        if (as->value->kind != CC_E_BOOL)
            return tc_err(t, CC_DIAG_SYNTAX, as->value->span, NULL,
                          "`@pl.function(auto_scope=...)` must be a bool literal (True/False)"),
                   0;
        fn->auto_scope = (uint8_t)as->value->u.i;
    }
    const cc_keyword *role = tc_kw(d, "role");
    if (role || (level && tc_enum_value(t, level->value, "Level") == CC_LEVEL_HOST && !type)) return tc_host_function(t, d, fn, level, role, as);
    if (level) {
        if (tc_pl_hardware(t, level->value)) return 0; /* pl.Level.AIC, pl.Level.AIV */
        if (fn->kind != CC_FUNC_INCORE)
            return tc_err(t, CC_DIAG_SYNTAX, level->name_span, NULL, "@pl.function(level=...) applies to InCore functions only"), 0;
        if (tc_enum_value(t, level->value, "Level") != CC_LEVEL_CORE_GROUP)
            return tc_err(t, CC_DIAG_UNSUPPORTED, level->value->span, NULL,
                          "@pl.function(level=%s) is not supported in this version",
                          tc_pl_path(t, level->value) ? tc_pl_path(t, level->value) : "..."),
                   0;
    }
    if (opts) { /* an outlined pl.at's, printed back (docs/dsl.md, "Hints") */
        if (fn->kind != CC_FUNC_INCORE)
            return tc_err(t, CC_DIAG_SYNTAX, opts->name_span, NULL, "@pl.function(optimizations=...) applies to InCore functions only"), 0;
        return tc_hints(t, opts->value, &fn->opts);
    }
    return 1;
}

/* The checks of a function's declaration: one decorator, its rules, and
 * for a @pl.jit function no parameter named config (its call consumes
 * config=, a RunConfig; a @pl.program function may have one, passed by
 * position).  Returns 1 when they hold. */
int tc_check_decl(tc *t, tc_fn *fn)
{
    uint32_t was = tc_use_module(t, fn->module); /* a declaration reads its own module's names */
    int ok = tc_check_decl_in(t, fn);
    tc_use_module(t, was);
    return ok;
}

static int tc_check_decl_in(tc *t, tc_fn *fn)
{
    const cc_stmt *s = fn->def;
    if (s->u.def.ndecorators != 1)
        return tc_err(t, CC_DIAG_UNSUPPORTED, s->span, NULL, "several decorators on '%s' are not supported in this version", s->u.def.name), 0;
    const cc_expr *d = s->u.def.decorators[0];
    /* a module-level @pl.function is a standalone function (F-sa): its keywords are a method's */
    int function = t->cls || tc_pl_attr(t, d->kind == CC_E_CALL ? d->u.call.fn : d, "function");
    if (!(function ? tc_function_decorator(t, d, fn) : tc_jit_decorator(t, d, fn))) return 0;
    int ok = 1;
    for (uint32_t j = 0; !function && j < s->u.def.nparams; j++)
        if (!strcmp(s->u.def.params[j].name, "config"))
            ok = 0, tc_err(t, CC_DIAG_PY_TYPE, s->u.def.params[j].span, NULL, "@pl.jit function '%s': parameter name 'config' is reserved",
                           fn->name);
    return ok;
}

/* ---- the program's functions ------------------------------------------------------------ */

/* Adds the kernels of module k > 0 (its decorated module-level defs; for a
 * program, its standalone @pl.function defs only): reached through an
 * import, their declarations' errors wait for that (broken). */
static void tc_gather_module(tc *t, uint32_t k)
{
    const cc_module *m = t->mods[k].m;
    uint32_t was = tc_use_module(t, k);
    for (uint32_t j = 0; j < m->ndefs; j++) {
        const cc_stmt *s = m->defs[j];
        const cc_expr *d = s->kind == CC_S_DEF && s->u.def.ndecorators == 1 ? s->u.def.decorators[0] : NULL;
        int standalone = d && tc_pl_attr(t, d->kind == CC_E_CALL ? d->u.call.fn : d, "function");
        if (s->kind != CC_S_DEF || (t->cls && !standalone)) continue;
        tc_fn *fn = &t->fns[t->nfns++];
        *fn = (tc_fn){.def = s, .name = s->u.def.name, .standalone = (uint8_t)standalone, .module = k};
        size_t before = t->d->n;
        if (!tc_check_decl(t, fn)) cc_diags_truncate(t->d, before), fn->broken = 1;
    }
    tc_use_module(t, was);
}

/* Gathers the functions: the methods of the class named entry, or the
 * decorated module-level defs, then the kernels of the other modules. */
int tc_gather(tc *t)
{
    const char *entry = t->o->entry;
    for (uint32_t k = 0; k < t->m->ndefs; k++) {
        const cc_stmt *s = t->m->defs[k];
        if (s->kind == CC_S_CLASS && !strcmp(s->u.def.name, entry)) t->cls = s;
    }
    const cc_stmt *const *defs = t->cls ? (const cc_stmt *const *)t->cls->u.def.body.items : (const cc_stmt *const *)t->m->defs;
    uint32_t n = t->cls ? t->cls->u.def.body.n : t->m->ndefs;
    if (t->cls && (t->cls->u.def.ndecorators != 1 || !tc_pl_attr(t, t->cls->u.def.decorators[0], "program")))
        return tc_err(t, CC_DIAG_SYNTAX, t->cls->span, "decorate the class with @pl.program",
                      "class '%s' is not a @pl.program", entry),
               0;
    uint32_t extra = t->cls ? t->m->ndefs : 0; /* a class: then the module's standalone @pl.function defs */
    uint32_t others = 0;
    for (uint32_t k = 1; k < t->nmods; k++) others += t->mods[k].m->ndefs;
    if (!(t->fns = base_arena_alloc(t->a, (n + extra + others ? n + extra + others : 1) * sizeof *t->fns))) return tc_oom(t), 0;
    int ok = 1;
    for (uint32_t k = 0; k < n + extra; k++) {
        const cc_stmt *s = k < n ? defs[k] : t->m->defs[k - n];
        if (s->kind != CC_S_DEF) continue;
        const cc_expr *d = s->u.def.ndecorators == 1 ? s->u.def.decorators[0] : NULL;
        int standalone = (k >= n || !t->cls) && d && tc_pl_attr(t, d->kind == CC_E_CALL ? d->u.call.fn : d, "function");
        if (k >= n && !standalone) continue;
        tc_fn *fn = &t->fns[t->nfns++];
        *fn = (tc_fn){.def = s, .name = s->u.def.name, .standalone = (uint8_t)standalone};
        /* a module's other kernels matter only if the entry reaches them: their
         * errors are reported there (tc_func_call), not here */
        size_t before = t->d->n;
        if (tc_check_decl(t, fn)) continue;
        if ((t->cls && k < n) || !strcmp(fn->name, entry)) ok = 0;
        else cc_diags_truncate(t->d, before), fn->broken = 1;
    }
    for (uint32_t k = 1; ok && k < t->nmods; k++) tc_gather_module(t, k);
    return ok;
}

/* ---- signatures ---------------------------------------------------------------------- */

static const pto_arg_spec *tc_spec(tc *t, const char *name)
{
    for (size_t k = 0; k < t->o->nargs; k++)
        if (t->o->args[k].name && !strcmp(t->o->args[k].name, name)) return &t->o->args[k];
    return NULL;
}

/* A specialized argument given (of dtype from: INDEX for a Python int, BOOL,
 * FP32 for a float) for a scalar parameter of dtype dt (pl.Scalar[dt], else
 * from) must be of dt's kind (an int or bool for an integer dtype or BOOL,
 * any number for a float dtype) and fit it (docs/dsl.md, "Annotations"): an integer
 * within dt's range (BOOL: 0 or 1), a finite float still finite once
 * rounded to dt. */
static int tc_entry_scalar_fits(tc *t, const cc_param *cp, const char *name, cc_dtype dt, cc_dtype from, cc_scalar given)
{
    if (from == CC_DT_FP32 && !cc_dtype_is_float(dt))
        return tc_err(t, CC_DIAG_PY_TYPE, cp->span, NULL, "%s: argument '%s' must be a Python %s for pl.Scalar[pl.%s], got float",
                      tc_who(t, t->c.fn->name), name, dt == CC_DT_BOOL ? "bool" : "int", cc_dtype_name(dt)), 0;
    if (cc_scalar_fits(from, dt, given)) return 1;
    base_strbuf v = {0};
    cc_ir_expr *e = cc_scalar_expr(t->a, from, given, cp->span);
    if (!e) return tc_oom(t), 0;
    cc_print_expr(e, 0, &v);
    tc_err(t, CC_DIAG_PY_TYPE, cp->span, NULL, "'%s' argument '%s' = %s does not fit pl.%s", t->c.fn->name, name,
           v.oom ? "?" : base_strbuf_str(&v), cc_dtype_name(dt));
    base_strbuf_free(&v);
    return 0;
}

/* The entry's parameter p from the caller's spec. */
static int tc_entry_param(tc *t, const cc_param *cp, cc_ir_param *ip, int shaped, tc_bind *val)
{
    const pto_arg_spec *sp = tc_spec(t, ip->name);
    const char *who = tc_who(t, t->c.fn->name);
    if (!sp) {
        if (ip->type.kind == CC_T_TENSOR && shaped) return 1;
        if (ip->type.kind == CC_T_SCALAR && shaped && t->o->emit_torch) return 1; /* torch source: a run-time value */
        t->unshaped = 1;
        if (ip->type.kind == CC_T_TENSOR && t->o->signature == 1)
            return tc_err(t, CC_DIAG_PY_TYPE, cp->span, NULL, "%s: cannot specialize from the signature because parameter '%s' "
                          "has a bare 'pl.Tensor' annotation with no shape. Pass sample arguments to compile(), or annotate "
                          "the shape.", who, ip->name), 0;
        if (ip->type.kind == CC_T_TENSOR && t->o->signature == 2)
            return tc_err(t, CC_DIAG_PY_TYPE, cp->span, NULL, "program '%s': cannot compile '%s' from its signature because "
                          "parameter '%s' has a bare 'pl.Tensor' annotation with no shape", t->o->entry, t->c.fn->name,
                          ip->name), 0;
        char hint[160];
        snprintf(hint, sizeof hint, "pass it (ptoc: --shape %s=ROWSxCOLS:fp32%s)", ip->name,
                 ip->type.kind == CC_T_SCALAR ? " or --const for a scalar" : "");
        return tc_err(t, CC_DIAG_PY_TYPE, cp->span, hint, "%s: missing a required argument: '%s'", who, ip->name), 0;
    }
    if (sp->kind == PTO_ARG_TENSOR) {
        if (ip->type.kind == CC_T_SCALAR)
            return tc_err(t, CC_DIAG_PY_TYPE, cp->span, NULL, "%s: argument '%s' must be a Python int, float or bool, got tensor",
                          who, ip->name), 0;
        cc_type at = {.kind = CC_T_TENSOR, .dtype = (uint8_t)sp->dtype, .rank = (uint8_t)sp->rank};
        if (sp->rank < 1 || sp->rank > CC_MAX_RANK || !cc_dtype_is_tensor((cc_dtype)sp->dtype))
            return tc_err(t, CC_DIAG_PY_TYPE, cp->span, NULL, "%s: argument '%s' must be a tensor of rank 1 to 4 and a tensor dtype",
                          who, ip->name), 0;
        memcpy(at.shape, sp->shape, sizeof at.shape);
        if (shaped && cc_dtype_binds((cc_dtype)at.dtype, (cc_dtype)ip->type.dtype)) at.dtype = ip->type.dtype; /* a stand-in */
        int dynamic = shaped && cc_type_is_dynamic(&ip->type);
        if (dynamic && at.rank == ip->type.rank) /* a DynVar takes the argument's extent (tc_dynamic.c) */
            for (uint32_t d = 0; d < at.rank; d++)
                if (CC_DIM_IS_DYN(ip->type.shape[d])) at.shape[d] = ip->type.shape[d], at.dyn[d] = ip->type.dyn[d];
        if (shaped && !cc_type_equal(&at, &ip->type)) { /* the shape first, then the dtype (docs/compiler.md, "Arguments") */
            char a[96], b[96];
            if (at.dtype != ip->type.dtype && at.rank == ip->type.rank &&
                !memcmp(at.shape, ip->type.shape, at.rank * sizeof at.shape[0]))
                return tc_err(t, CC_DIAG_PY_TYPE, cp->span, NULL, "%s: argument '%s' has dtype %s but its annotation requires %s",
                              who, ip->name, cc_dtype_name(at.dtype), cc_dtype_name(ip->type.dtype)), 0;
            cc_type given = at;
            memcpy(given.shape, sp->shape, sizeof given.shape);
            cc_shape_format(&given, a, sizeof a), cc_shape_format(&ip->type, b, sizeof b);
            return tc_err(t, CC_DIAG_PY_TYPE, cp->span, NULL, "%s: argument '%s' has shape %s but its annotation requires %s",
                          who, ip->name, a, b), 0;
        }
        if (dynamic && !tc_dyn_bind_entry(t, &t->c.dyn, who, ip->name, &ip->type, sp->shape, cp->span)) return 0;
        ip->type = at;
        return 1;
    }
    const pto_value_kind vk = sp->value.kind;
    if (vk == PTO_VALUE_RUNTIME && ip->type.kind == CC_T_SCALAR) { /* pl.RUNTIME: a run-time parameter, no value */
        ip->type = (cc_type){.kind = CC_T_SCALAR, .dtype = shaped ? ip->type.dtype : CC_DT_INDEX};
        return 1;
    }
    const char *given_type = vk == PTO_VALUE_RUNTIME ? "pl.RUNTIME" : vk == PTO_VALUE_FLOAT ? "float" : vk == PTO_VALUE_BOOL ? "bool" : vk == PTO_VALUE_STR ? "str"
                           : vk == PTO_VALUE_OBJECT ? (sp->value.s ? sp->value.s : "object") : "int";
    if (ip->type.kind == CC_T_TENSOR)
        return tc_err(t, CC_DIAG_PY_TYPE, cp->span, NULL,
                      "%s: argument '%s' must be a tensor (torch.Tensor or numpy.ndarray), got %s", who, ip->name, given_type), 0;
    if (vk == PTO_VALUE_STR || vk == PTO_VALUE_OBJECT) /* ptoc --scalar n=abc; a caller passing any value it has */
        return tc_err(t, CC_DIAG_PY_TYPE, cp->span, NULL, "%s: argument '%s' must be a Python int, float or bool, got %s", who, ip->name,
                      given_type), 0;
    cc_dtype from = sp->value.kind == PTO_VALUE_FLOAT ? CC_DT_FP32 : sp->value.kind == PTO_VALUE_BOOL ? CC_DT_BOOL : CC_DT_INDEX;
    cc_scalar given = sp->value.kind == PTO_VALUE_FLOAT ? (cc_scalar){.f = sp->value.f} : (cc_scalar){.i = sp->value.i};
    cc_dtype dt = shaped ? (cc_dtype)ip->type.dtype : from;
    if (!tc_entry_scalar_fits(t, cp, ip->name, dt, from, given)) return 0;
    cc_ir_expr *v = cc_scalar_expr(t->a, dt, cc_scalar_cast(from, dt, CC_CAST_ROUND, given), cp->span);
    if (!v) return tc_oom(t), 0;
    ip->type = v->type;
    val->value = v;
    return 1;
}

/* "'k' parameter 'p' expects T, got U" at the argument; returns 0. */
int tc_param_mismatch(tc *t, const tc_fn *fn, const cc_ir_param *ip, const cc_ir_expr *arg)
{
    char a[96], b[96];
    cc_type_format(&ip->type, a, sizeof a), cc_type_format(&arg->type, b, sizeof b);
    if (ip->type.kind == CC_T_TENSOR && !ip->type.rank) snprintf(a, sizeof a, "pl.Tensor"); /* a bare pl.Tensor */
    return tc_err(t, CC_DIAG_TYPE, arg->span, NULL, "'%s' parameter '%s' expects %s, got %s", fn->name, ip->name, a, b), 0;
}

/* A callee's parameter p against the call's argument type. */
static int tc_callee_param(tc *t, cc_ir_param *ip, int shaped, const cc_ir_expr *arg_expr)
{
    const cc_type *arg = &arg_expr->type;
    if (arg->kind == CC_T_SCALAR && arg->dtype == CC_DT_TASK_ID)
        return tc_err(t, CC_DIAG_TYPE, arg_expr->span, NULL, "a TaskId can only be passed in deps="), 0;
    int kernel = t->c.fn->kind == CC_FUNC_INCORE; /* its task checks run-time extents (lower.c) */
    int ok = ip->type.kind == CC_T_VOID ? 1
           : ip->type.kind == CC_T_TENSOR && !shaped ? arg->kind == CC_T_TENSOR
           : ip->type.kind == CC_T_SCALAR ? arg->kind == CC_T_SCALAR
           : cc_type_is_dynamic(&ip->type) ? tc_dyn_match(&t->c.dyn, &ip->type, arg, kernel) /* binds per call site */
           : cc_type_equal(&ip->type, arg) || (kernel && tc_fits_at_run_time(&ip->type, arg));
    if (!ok) return tc_param_mismatch(t, t->c.fn, ip, arg_expr);
    if (ip->type.kind == CC_T_SCALAR && shaped) return 1;
    cc_type ann = ip->type;
    ip->type = *arg;
    for (uint32_t d = 0; kernel && shaped && d < ann.rank; d++) /* a static dimension stays: the kernel is compiled for it */
        if (!CC_DIM_IS_DYN(ann.shape[d])) ip->type.shape[d] = ann.shape[d], ip->type.dyn[d] = NULL;
    return 1;
}

/* Checks fn: its signature (entry: from the specs; callee: from args),
 * then its body, in fn's module. */
int tc_check_fn(tc *t, tc_fn *fn, cc_ir_expr *const *args)
{
    uint32_t was = tc_use_module(t, fn->module); /* its body reads its own module's names */
    int ok = tc_check_fn_in(t, fn, args);
    tc_use_module(t, was);
    return ok;
}

static int tc_check_fn_in(tc *t, tc_fn *fn, cc_ir_expr *const *args)
{
    const cc_stmt *def = fn->def;
    cc_ir_func *f = base_arena_alloc(t->a, sizeof *f);
    if (!f) return tc_oom(t), 0;
    const char *name = tc_ir_name(t, fn);
    fn->ir = f, fn->state = 2;
    /* the def line (not the decorator's): scope stats cite it for the compiler's function-body scope
     * (docs/compiler.md, "Scope placement") */
    *f = (cc_ir_func){.name = name, .span = def->u.def.name_span, .kind = fn->kind, .auto_scope = fn->auto_scope,
                      .level = CC_LEVEL_CORE_GROUP, .entry = args == NULL, .opts = fn->opts};
    if (fn->host) f->host = 1, f->auto_scope = 0; /* MaterializeRuntimeScopes leaves it alone (DISTRIBUTED-SPEC §1.2) */
    uint32_t first = 0;
    if (t->cls && !fn->standalone) {
        if (!def->u.def.nparams || strcmp(def->u.def.params[0].name, "self"))
            return tc_err(t, CC_DIAG_SYNTAX, def->span, "write def f(self, ...)", "method '%s' must take self first", fn->name), 0;
        first = 1;
    }
    f->nparams = def->u.def.nparams - first;
    if (f->nparams && !(f->params = base_arena_alloc(t->a, f->nparams * sizeof *f->params))) return tc_oom(t), 0;
    tc_bind *vals = f->nparams ? calloc(f->nparams, sizeof *vals) : NULL;
    cc_type *anns = f->nparams ? calloc(f->nparams, sizeof *anns) : NULL; /* each parameter's annotation (a callee's) */
    if (f->nparams && (!vals || !anns)) return free(vals), free(anns), tc_oom(t), 0;
    fn->state = 1;
    tc_ctx saved = t->c;
    t->c = (tc_ctx){.fn = fn, .f = f, .plane = fn->kind == CC_FUNC_INCORE ? TC_KERNEL : fn->kind == CC_FUNC_INLINE ? TC_INLINE : TC_CONTROL,
                    .host = fn->host, .module_scope = 1};
    int ok = 1;
    for (uint32_t k = 0; k < f->nparams && ok; k++) {
        const cc_param *cp = &def->u.def.params[k + first];
        cc_ir_param *ip = &f->params[k];
        ip->name = cp->name, ip->span = cp->span;
        int shaped = 0;
        if (cp->default_value)
            ok = 0, tc_err(t, CC_DIAG_UNSUPPORTED, cp->default_value->span, NULL, "parameter defaults are not supported in this version");
        int tiled = 0;
        if (ok && cp->annotation && args) { /* x: pl.Tile[...], checked against the call's argument like an assignment */
            cc_ir_expr *v = cc_ir_expr_clone(t->a, args[k]);
            if (!v) return tc_oom(t), 0;
            tiled = tc_tile_annotation(t, cp->annotation, v);
            ok = tiled >= 0;
            if (tiled > 0) ip->annotated = ip->shaped = 1, ip->type = v->type;
        }
        if (ok && tiled) continue;
        if (ok && cp->annotation && !t->cls && !fn->standalone)
            ok = tc_no_tensor_view_in_jit(t, cp->annotation, tc_who(t, fn->name), ip->name);
        if (ok && cp->annotation) {
            ip->annotated = 1;
            t->view_valid.n = 0;
            ok = tc_annotation(t, cp->annotation, &ip->type, &ip->dir, &shaped);
            ip->valid = t->view_valid;
            ip->shaped = (uint8_t)shaped;
            /* a kernel's bare pl.Tensor is a declared In (a store to it is a PassError:
             * docs/compiler.md, "Directions"); a control-plane function's gets its
             * direction from use, like no annotation */
            ip->declared = ip->type.kind == CC_T_TENSOR && (fn->kind == CC_FUNC_INCORE || ip->dir != CC_DIR_NONE);
            if (ip->declared && !ip->dir) ip->dir = CC_DIR_IN;
        }
        if (ok && args) anns[k] = ip->type; /* before the call's argument replaces it */
        if (ok) ok = args ? tc_callee_param(t, ip, shaped, args[k]) : tc_entry_param(t, cp, ip, shaped, &vals[k]);
    }
    if (ok && args) ok = tc_bind_derived(t, f, args, anns);
    if (ok) ok = tc_result_annotation(t, def->u.def.returns, &t->c.result);
    for (uint32_t k = 0; ok && args && k < t->c.result.n; k++) tc_dyn_substitute(&t->c.dyn, &t->c.result.types[k]); /* per call site */
    t->c.module_scope = 0;
    if (ok) {
        tc_scan(t, &def->u.def.body, &t->c.locals);
        for (uint32_t k = 0; k < f->nparams && ok; k++) {
            ok = tc_bind_name(t, f->params[k].name, f->params[k].type, f->params[k].span);
            if (ok) tc_lookup(&t->c.env, f->params[k].name)->value = vals[k].value;
            if (ok && f->params[k].type.kind == CC_T_TENSOR) tc_lookup(&t->c.env, f->params[k].name)->buffer = f->params[k].name;
        }
        if (ok) ok = tc_body(t, &def->u.def.body, &f->body);
        if (ok && !t->c.returned) ok = tc_results(t, NULL, NULL, 0, def->u.def.returns ? def->u.def.returns->span : def->span);
    }
    base_strmap_free(&t->c.locals);
    free(vals), free(anns);
    tc_env_free(&t->c.env);
    t->c = saved;
    fn->state = 2;
    return ok && cc_ir_program_add_func(t->p, f, t->p->nfuncs) ? 1 : (ok ? (tc_oom(t), 0) : 0);
}
