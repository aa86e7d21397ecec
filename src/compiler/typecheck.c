/*
 * typecheck.c - stage 0: the program, its functions and their calls (see
 * typecheck.h; statements are tc_stmt.c's, expressions tc_expr.c's, ops
 * tc_ops.c's).
 *
 * The entry is checked first, specialized to the caller's argument specs;
 * every other function when it is first called, specialized to that call's
 * argument types.  A later call with other types is an error (v1 keeps one
 * specialization per function and compile).  A function reached while it
 * is being checked is a recursive call.  The SYNTAX stage stops after the
 * declarations and the choice of the function a program goes through
 * (cc_check_entry), before anything is specialized.
 */
#include "compiler/tc.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "compiler/printer.h"
#include "compiler/scalar.h"

/* ---- diagnostics ------------------------------------------------------------------- */

void *tc_err(tc *t, cc_diag_class cls, cc_span sp, const char *hint, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cc_diag_add(t->d, cls, sp, hint, "%s", msg);
    return NULL;
}

void *tc_oom(tc *t)
{
    if (!t->oom) cc_diag_oom(t->d, (cc_span){0, 0, 0, 0}, "out of memory while checking the program");
    t->oom = 1;
    return NULL;
}

const char *tc_who(tc *t, const char *fname)
{
    char buf[256];
    if (t->cls) snprintf(buf, sizeof buf, "@pl.program function '%s.%s'", t->cls->u.def.name, fname);
    else snprintf(buf, sizeof buf, "@pl.jit function '%s'", fname);
    char *s = base_arena_strndup(t->a, buf, strlen(buf));
    return s ? s : "function";
}

const char *tc_where(tc *t)
{
    if (t->c.in_at) return "inside a pl.at(level=pl.Level.CORE_GROUP) body";
    char buf[256];
    snprintf(buf, sizeof buf, "in InCore function '%s'", t->c.f->name);
    char *s = base_arena_strndup(t->a, buf, strlen(buf));
    return s ? s : "in an InCore function";
}

void *tc_control_in_kernel(tc *t, cc_span sp, const char *construct)
{
    return tc_err(t, CC_DIAG_INVALID_OP, sp, NULL, "%s is control-plane work and is not allowed in kernel code (%s)",
                  construct, tc_where(t));
}

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
        if (path && (!strcmp(path, "pl.function") || !strcmp(path, "pl.inline")))
            return tc_err(t, CC_DIAG_UNSUPPORTED, d->span, "put it on a method of a @pl.program class, or use @pl.jit",
                          "@%s outside @pl.program is not supported in this version", path),
                   0;
        return tc_err(t, CC_DIAG_UNSUPPORTED, d->span, NULL, "@%s is not supported in this version",
                      path ? path : "this decorator"),
               0;
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

/* @pl.function(type=..., auto_scope=<bool literal>, level=...) on a method. */
static int tc_function_decorator(tc *t, const cc_expr *d, tc_fn *fn)
{
    const cc_expr *callee = d->kind == CC_E_CALL ? d->u.call.fn : d;
    if (!tc_pl_attr(t, callee, "function"))
        return tc_err(t, CC_DIAG_SYNTAX, d->span, NULL, "a @pl.program method must be decorated with @pl.function"), 0;
    fn->kind = CC_FUNC_OPAQUE;
    fn->auto_scope = 1;
    const cc_keyword *type = tc_kw(d, "type"), *as = tc_kw(d, "auto_scope"), *level = tc_kw(d, "level");
    for (uint32_t k = 0; d->kind == CC_E_CALL && k < d->u.call.nkws; k++) {
        const char *n = d->u.call.kws[k].name;
        if (strcmp(n, "type") && strcmp(n, "auto_scope") && strcmp(n, "level"))
            return tc_err(t, CC_DIAG_UNSUPPORTED, d->u.call.kws[k].name_span, NULL,
                          "@pl.function(%s=...) is not supported in this version", n),
                   0;
    }
    if (type) {
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
    if (level) {
        if (fn->kind != CC_FUNC_INCORE)
            return tc_err(t, CC_DIAG_SYNTAX, level->name_span, NULL, "@pl.function(level=...) applies to InCore functions only"), 0;
        if (tc_enum_value(t, level->value, "Level") != CC_LEVEL_CORE_GROUP)
            return tc_err(t, CC_DIAG_UNSUPPORTED, level->value->span, NULL,
                          "@pl.function(level=%s) is not supported in this version",
                          tc_pl_path(t, level->value) ? tc_pl_path(t, level->value) : "..."),
                   0;
    }
    return 1;
}

/* The checks of a function's declaration: one decorator, its rules, no
 * parameter named config.  Returns 1 when they hold. */
static int tc_check_decl(tc *t, tc_fn *fn)
{
    const cc_stmt *s = fn->def;
    if (s->u.def.ndecorators != 1)
        return tc_err(t, CC_DIAG_UNSUPPORTED, s->span, NULL, "several decorators on '%s' are not supported in this version", s->u.def.name), 0;
    const cc_expr *d = s->u.def.decorators[0];
    if (!(t->cls ? tc_function_decorator(t, d, fn) : tc_jit_decorator(t, d, fn))) return 0;
    int ok = 1;
    for (uint32_t j = 0; j < s->u.def.nparams; j++)
        if (!strcmp(s->u.def.params[j].name, "config"))
            ok = 0, tc_err(t, CC_DIAG_PY_TYPE, s->u.def.params[j].span, NULL, "@pl.jit function '%s': parameter name 'config' is reserved",
                           fn->name);
    return ok;
}

/* Gathers the functions: the methods of the class named entry, or the
 * decorated module-level defs. */
static int tc_gather(tc *t)
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
    if (!(t->fns = base_arena_alloc(t->a, (n ? n : 1) * sizeof *t->fns))) return tc_oom(t), 0;
    int ok = 1;
    for (uint32_t k = 0; k < n; k++) {
        const cc_stmt *s = defs[k];
        if (s->kind != CC_S_DEF) continue;
        tc_fn *fn = &t->fns[t->nfns++];
        *fn = (tc_fn){.def = s, .name = s->u.def.name};
        /* a module's other kernels matter only if the entry reaches them: their
         * errors are reported there (tc_func_call), not here */
        size_t before = t->d->n;
        if (tc_check_decl(t, fn)) continue;
        if (t->cls || !strcmp(fn->name, entry)) ok = 0;
        else cc_diags_truncate(t->d, before), fn->broken = 1;
    }
    return ok;
}

static tc_fn *tc_fn_named(tc *t, const char *name)
{
    for (uint32_t k = 0; k < t->nfns; k++)
        if (!strcmp(t->fns[k].name, name)) return &t->fns[k];
    return NULL;
}

tc_fn *tc_callee(tc *t, const cc_expr *fn)
{
    if (t->cls) {
        if (fn->kind == CC_E_ATTR && fn->u.attr.value->kind == CC_E_NAME && !strcmp(fn->u.attr.value->u.name, "self"))
            return tc_fn_named(t, fn->u.attr.name);
        return NULL;
    }
    fn = tc_module_constant_ast(t, fn); /* FN = kernel: a module alias of a decorated function */
    if (fn->kind != CC_E_NAME || tc_is_local(t, fn->u.name)) return NULL;
    return tc_fn_named(t, fn->u.name);
}

/* ---- functions ----------------------------------------------------------------------- */

/* Counts one more assignment of name. */
static void tc_names_add(tc *t, base_strmap *l, const char *name)
{
    int64_t n = base_strmap_get(l, name);
    if (base_strmap_put(l, name, n < 0 ? 1 : (uint32_t)n + 1) != 0) tc_oom(t);
}

void tc_scan(tc *t, const cc_block *b, base_strmap *out)
{
    for (uint32_t k = 0; k < b->n; k++) {
        const cc_stmt *s = b->items[k];
        switch (s->kind) {
        case CC_S_ASSIGN:
            for (uint32_t j = 0; j < s->u.assign.ntargets; j++)
                if (s->u.assign.targets[j]->kind == CC_E_NAME) tc_names_add(t, out, s->u.assign.targets[j]->u.name);
            break;
        case CC_S_AUGASSIGN:
            if (s->u.aug.target->kind == CC_E_NAME) tc_names_add(t, out, s->u.aug.target->u.name);
            break;
        case CC_S_FOR: tc_names_add(t, out, s->u.for_.var), tc_scan(t, &s->u.for_.body, out); break;
        case CC_S_WHILE: tc_scan(t, &s->u.while_.body, out); break;
        case CC_S_IF: tc_scan(t, &s->u.if_.then, out), tc_scan(t, &s->u.if_.orelse, out); break;
        case CC_S_WITH:
            for (uint32_t j = 0; j < s->u.with.nitems; j++)
                if (s->u.with.items[j].as_name) tc_names_add(t, out, s->u.with.items[j].as_name);
            tc_scan(t, &s->u.with.body, out);
            break;
        default: break;
        }
    }
}

static const pto_arg_spec *tc_spec(tc *t, const char *name)
{
    for (size_t k = 0; k < t->o->nargs; k++)
        if (t->o->args[k].name && !strcmp(t->o->args[k].name, name)) return &t->o->args[k];
    return NULL;
}

/* A specialized argument given (of dtype from: INDEX for a Python int, BOOL,
 * FP32 for a float) for a scalar parameter of dtype dt (pl.Scalar[dt], else
 * from) must be of dt's kind (an int or bool for an integer dtype or BOOL,
 * any number for a float dtype) and fit it (DSL-SPEC §1.5): an integer
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
        t->unshaped = 1;
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
        if (sp->rank < 1 || sp->rank > CC_MAX_RANK || sp->dtype > PTO_DTYPE_INT8)
            return tc_err(t, CC_DIAG_PY_TYPE, cp->span, NULL, "%s: argument '%s' must be a tensor of rank 1 to 4 and a tensor dtype",
                          who, ip->name), 0;
        memcpy(at.shape, sp->shape, sizeof at.shape);
        if (shaped && !cc_type_equal(&at, &ip->type)) { /* DSL-SPEC §2.2: the shape first, then the dtype */
            char a[96], b[96];
            if (at.dtype != ip->type.dtype && at.rank == ip->type.rank &&
                !memcmp(at.shape, ip->type.shape, at.rank * sizeof at.shape[0]))
                return tc_err(t, CC_DIAG_PY_TYPE, cp->span, NULL, "%s: argument '%s' has dtype %s but its annotation requires %s",
                              who, ip->name, cc_dtype_name(at.dtype), cc_dtype_name(ip->type.dtype)), 0;
            cc_shape_format(&at, a, sizeof a), cc_shape_format(&ip->type, b, sizeof b);
            return tc_err(t, CC_DIAG_PY_TYPE, cp->span, NULL, "%s: argument '%s' has shape %s but its annotation requires %s",
                          who, ip->name, a, b), 0;
        }
        ip->type = at;
        return 1;
    }
    const pto_value_kind vk = sp->value.kind;
    const char *given_type = vk == PTO_VALUE_FLOAT ? "float" : vk == PTO_VALUE_BOOL ? "bool" : vk == PTO_VALUE_STR ? "str"
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

static int tc_declared_scalar(const cc_ir_param *ip) { return ip->shaped && ip->type.kind == CC_T_SCALAR; }

/* "'k' parameter 'p' expects T, got U" at the argument; returns 0. */
static int tc_param_mismatch(tc *t, const tc_fn *fn, const cc_ir_param *ip, const cc_ir_expr *arg)
{
    char a[96], b[96];
    cc_type_format(&ip->type, a, sizeof a), cc_type_format(&arg->type, b, sizeof b);
    if (ip->type.kind == CC_T_TENSOR && !ip->type.rank) snprintf(a, sizeof a, "pl.Tensor"); /* a bare pl.Tensor */
    return !tc_err(t, CC_DIAG_TYPE, arg->span, NULL, "'%s' parameter '%s' expects %s, got %s", fn->name, ip->name, a, b);
}

/* The argument for a parameter of declared scalar dtype, at every call: an
 * integer or bool fits any dtype, a float only a float dtype; a constant
 * is converted to the dtype, or does not fit it. */
static cc_ir_expr *tc_scalar_arg(tc *t, const tc_fn *fn, const cc_ir_param *ip, cc_ir_expr *arg)
{
    const cc_type *at = &arg->type;
    if (at->kind == CC_T_SCALAR && at->dtype == CC_DT_TASK_ID) return tc_err(t, CC_DIAG_TYPE, arg->span, NULL, "a TaskId can only be passed in deps=");
    if (at->kind != CC_T_SCALAR || (cc_dtype_is_float((cc_dtype)at->dtype) && !cc_dtype_is_float((cc_dtype)ip->type.dtype)))
        return tc_param_mismatch(t, fn, ip, arg), NULL;
    char who[160];
    snprintf(who, sizeof who, "'%s' parameter '%s'", fn->name, ip->name);
    return tc_constant_as(t, arg, ip->type.dtype, who);
}

/* A callee's parameter p against the call's argument type. */
static int tc_callee_param(tc *t, cc_ir_param *ip, int shaped, const cc_ir_expr *arg_expr)
{
    const cc_type *arg = &arg_expr->type;
    if (arg->kind == CC_T_SCALAR && arg->dtype == CC_DT_TASK_ID)
        return tc_err(t, CC_DIAG_TYPE, arg_expr->span, NULL, "a TaskId can only be passed in deps="), 0;
    int ok = ip->type.kind == CC_T_VOID ? 1
           : ip->type.kind == CC_T_TENSOR && !shaped ? arg->kind == CC_T_TENSOR
           : ip->type.kind == CC_T_SCALAR ? arg->kind == CC_T_SCALAR
           : cc_type_equal(&ip->type, arg);
    if (!ok) return tc_param_mismatch(t, t->c.fn, ip, arg_expr);
    if (ip->type.kind == CC_T_SCALAR && shaped) return 1;
    ip->type = *arg;
    return 1;
}

/* Checks fn: its signature (entry: from the specs; callee: from args),
 * then its body. */
static int tc_check_fn(tc *t, tc_fn *fn, cc_ir_expr *const *args)
{
    const cc_stmt *def = fn->def;
    cc_ir_func *f = base_arena_alloc(t->a, sizeof *f);
    if (!f) return tc_oom(t), 0;
    fn->ir = f, fn->state = 2;
    /* the def line (not the decorator's): scope stats cite it for the compiler's function-body scope (§8) */
    *f = (cc_ir_func){.name = fn->name, .span = def->u.def.name_span, .kind = fn->kind, .auto_scope = fn->auto_scope,
                      .level = CC_LEVEL_CORE_GROUP, .entry = args == NULL};
    if (fn->host)
        return tc_err(t, CC_DIAG_UNSUPPORTED, def->span, NULL, "@pl.jit.host is not supported in this version"), 0;
    uint32_t first = 0;
    if (t->cls) {
        if (!def->u.def.nparams || strcmp(def->u.def.params[0].name, "self"))
            return tc_err(t, CC_DIAG_SYNTAX, def->span, "write def f(self, ...)", "method '%s' must take self first", fn->name), 0;
        first = 1;
    }
    f->nparams = def->u.def.nparams - first;
    if (f->nparams && !(f->params = base_arena_alloc(t->a, f->nparams * sizeof *f->params))) return tc_oom(t), 0;
    tc_bind *vals = f->nparams ? calloc(f->nparams, sizeof *vals) : NULL;
    if (f->nparams && !vals) return tc_oom(t), 0;
    fn->state = 1;
    tc_ctx saved = t->c;
    t->c = (tc_ctx){.fn = fn, .f = f, .plane = fn->kind == CC_FUNC_INCORE ? TC_KERNEL : fn->kind == CC_FUNC_INLINE ? TC_INLINE : TC_CONTROL,
                    .module_scope = 1};
    int ok = 1;
    for (uint32_t k = 0; k < f->nparams && ok; k++) {
        const cc_param *cp = &def->u.def.params[k + first];
        cc_ir_param *ip = &f->params[k];
        ip->name = cp->name, ip->span = cp->span;
        int shaped = 0;
        if (cp->default_value)
            ok = !tc_err(t, CC_DIAG_UNSUPPORTED, cp->default_value->span, NULL, "parameter defaults are not supported in this version");
        if (ok && cp->annotation) {
            ip->annotated = 1;
            ok = tc_annotation(t, cp->annotation, &ip->type, &ip->dir, &shaped);
            ip->shaped = (uint8_t)shaped;
            /* a kernel's bare pl.Tensor is a declared In (§8: a store to it is P2); a
             * control-plane function's gets its direction from use, like no annotation */
            ip->declared = ip->type.kind == CC_T_TENSOR && (fn->kind == CC_FUNC_INCORE || ip->dir != CC_DIR_NONE);
            if (ip->declared && !ip->dir) ip->dir = CC_DIR_IN;
        }
        if (ok) ok = args ? tc_callee_param(t, ip, shaped, args[k]) : tc_entry_param(t, cp, ip, shaped, &vals[k]);
    }
    if (ok) ok = tc_result_annotation(t, def->u.def.returns, &t->c.result);
    t->c.module_scope = 0;
    if (ok) {
        tc_scan(t, &def->u.def.body, &t->c.locals);
        for (uint32_t k = 0; k < f->nparams && ok; k++) {
            ok = tc_bind_name(t, f->params[k].name, f->params[k].type, f->params[k].span);
            if (ok) tc_lookup(&t->c.env, f->params[k].name)->value = vals[k].value;
        }
        if (ok) ok = tc_body(t, &def->u.def.body, &f->body);
        if (ok && !t->c.returned) ok = tc_results(t, NULL, NULL, 0, def->u.def.returns ? def->u.def.returns->span : def->span);
    }
    base_strmap_free(&t->c.locals);
    free(vals);
    tc_env_free(&t->c.env);
    t->c = saved;
    fn->state = 2;
    return ok && cc_ir_program_add_func(t->p, f, t->p->nfuncs) ? 1 : (ok ? (tc_oom(t), 0) : 0);
}

/* ---- calls ----------------------------------------------------------------------------- */

/* Binds the call's arguments (from first_arg) to fn's parameters. */
static int tc_bind_args(tc *t, tc_fn *fn, const cc_expr *call, uint32_t first_arg, cc_ir_expr **out)
{
    const cc_stmt *def = fn->def;
    uint32_t self = t->cls ? 1 : 0, np = def->u.def.nparams - self;
    uint32_t npos = call->u.call.nargs - first_arg;
    if (npos > np)
        return tc_err(t, CC_DIAG_TYPE, call->u.call.args[first_arg + np]->span, NULL,
                      "'%s' takes %u argument(s) but %u were given", fn->name, np, npos), 0;
    for (uint32_t k = 0; k < npos; k++)
        if (!(out[k] = tc_expr(t, call->u.call.args[first_arg + k]))) return 0;
    for (uint32_t k = 0; k < call->u.call.nkws; k++) {
        const cc_keyword *kw = &call->u.call.kws[k];
        if (!strcmp(kw->name, "deps")) continue;
        uint32_t j = 0;
        while (j < np && strcmp(def->u.def.params[j + self].name, kw->name)) j++;
        if (j == np && (!strcmp(kw->name, "device") ||
                        (first_arg && (!strcmp(kw->name, "dumps") || !strcmp(kw->name, "predicate") || !strcmp(kw->name, "allow_early_resolve")))))
            return tc_err(t, CC_DIAG_UNSUPPORTED, kw->name_span, NULL,
                          first_arg ? "pl.submit(%s=...) is not supported in this version" : "%s= is not supported in this version", kw->name), 0;
        if (j == np || out[j])
            return tc_err(t, CC_DIAG_TYPE, kw->name_span, NULL, "'%s' got an unexpected argument '%s'", fn->name, kw->name), 0;
        if (!(out[j] = tc_expr(t, kw->value))) return 0;
    }
    for (uint32_t j = 0; j < np; j++)
        if (!out[j]) return tc_err(t, CC_DIAG_TYPE, call->span, NULL, "'%s' missing argument '%s'", fn->name, def->u.def.params[j + self].name), 0;
    return 1;
}

/* The call's type: its callee's results (and the TaskId of a submit). */
static void tc_call_type(cc_ir_expr *e, int submit)
{
    const cc_ir_func *f = e->u.call.callee;
    uint32_t n = f->nresults + (submit ? 1 : 0);
    if (n == 0) e->type = (cc_type){.kind = CC_T_VOID};
    else if (n == 1) e->type = submit ? (cc_type){.kind = CC_T_SCALAR, .dtype = CC_DT_TASK_ID} : f->results[0];
    else e->type = (cc_type){.kind = CC_T_TUPLE, .rank = (uint8_t)(n > 255 ? 255 : n)};
}

static int tc_deps(tc *t, const cc_expr *list, cc_ir_expr ***deps, uint32_t *ndeps);

cc_ir_expr *tc_func_call(tc *t, tc_fn *fn, const cc_expr *call, uint32_t first_arg, int submit)
{
    if (fn->broken) return tc_check_decl(t, fn), NULL; /* reached: its declaration's errors now */
    if (t->c.plane == TC_KERNEL && fn->kind != CC_FUNC_INLINE) {
        char what[160];
        snprintf(what, sizeof what, submit ? "pl.submit" : "calling '%s'", fn->name);
        return tc_control_in_kernel(t, call->span, what);
    }
    /* a task (or an Opaque subroutine) runs as a statement of its own; an Inline call is spliced anywhere */
    if (fn->kind != CC_FUNC_INLINE && call != t->c.whole_call)
        return tc_err(t, CC_DIAG_UNSUPPORTED, call->span, "call it in a statement of its own (o = k(...)) and use the result by name",
                      "a call of '%s' inside an expression is not supported in this version", fn->name);
    if (fn->jit_entry)
        return tc_err(t, CC_DIAG_INVALID_OP, call->span, NULL,
                      "'%s' is a @pl.jit entry; an entry cannot call another entry (make it @pl.jit.incore, .inline or .opaque)",
                      fn->name);
    if (fn->state == 1) return tc_err(t, CC_DIAG_UNSUPPORTED, call->span, NULL, "recursive call of '%s' is not supported in this version", fn->name);
    if (submit && fn->kind != CC_FUNC_INCORE)
        return tc_err(t, CC_DIAG_SYNTAX, call->u.call.args[0]->span, NULL,
                      "pl.submit(...) first argument must be a self.<kernel> method reference or a @pl.jit.incore function");
    uint32_t np = fn->def->u.def.nparams - (t->cls ? 1 : 0);
    cc_ir_expr *e = cc_ir_expr_new(t->a, CC_X_CALL, call->span);
    cc_ir_expr **args = base_arena_alloc(t->a, (np ? np : 1) * sizeof *args); /* never NULL: NULL args mean the entry */
    if (!e || !args) return tc_oom(t);
    int ok = tc_bind_args(t, fn, call, first_arg, args);
    if (ok && fn->state == 0) ok = tc_check_fn(t, fn, args);
    else if (ok) {
        for (uint32_t k = 0; ok && k < np; k++) { /* what the first call fixed; declared scalars below */
            const cc_ir_param *ip = &fn->ir->params[k];
            if (!tc_declared_scalar(ip) && !cc_type_equal(&ip->type, &args[k]->type)) ok = tc_param_mismatch(t, fn, ip, args[k]);
        }
    }
    for (uint32_t k = 0; ok && k < np; k++)
        if (tc_declared_scalar(&fn->ir->params[k])) ok = (args[k] = tc_scalar_arg(t, fn, &fn->ir->params[k], args[k])) != NULL;
    if (!ok) return NULL;
    e->u.call.callee = fn->ir, e->u.call.args = args, e->u.call.nargs = np, e->u.call.submit = (uint8_t)submit;
    for (uint32_t k = 0; k < call->u.call.nkws; k++)
        if (!strcmp(call->u.call.kws[k].name, "deps")) {
            if (!submit) return tc_err(t, CC_DIAG_TYPE, call->u.call.kws[k].name_span, NULL, "'%s' got an unexpected argument 'deps'", fn->name);
            if (!tc_deps(t, call->u.call.kws[k].value, &e->u.call.deps, &e->u.call.ndeps)) return NULL;
        }
    tc_call_type(e, submit);
    return e;
}

/* deps=[t1, t2]: TaskId variables. */
static int tc_deps(tc *t, const cc_expr *list, cc_ir_expr ***deps, uint32_t *ndeps)
{
    if (list->kind != CC_E_LIST && list->kind != CC_E_TUPLE)
        return tc_err(t, CC_DIAG_SYNTAX, list->span, NULL, "deps= entries must be a TaskId variable"), 0;
    *ndeps = list->u.seq.n;
    if (*ndeps && !(*deps = base_arena_alloc(t->a, *ndeps * sizeof **deps))) return tc_oom(t), 0;
    for (uint32_t k = 0; k < *ndeps; k++) {
        const cc_expr *x = list->u.seq.items[k];
        cc_ir_expr *v = x->kind == CC_E_NAME ? tc_expr(t, x) : NULL;
        if (x->kind == CC_E_NAME && !v) return 0;
        if (!v || v->kind != CC_X_VAR || v->type.kind != CC_T_SCALAR || v->type.dtype != CC_DT_TASK_ID)
            return tc_err(t, CC_DIAG_SYNTAX, x->span, NULL, "deps= entries must be a TaskId variable"), 0;
        (*deps)[k] = v;
    }
    return 1;
}

int tc_at_deps(tc *t, const cc_expr *list, cc_ir_expr ***deps, uint32_t *ndeps) { return tc_deps(t, list, deps, ndeps); }

/* ---- the program ------------------------------------------------------------------------ */

typedef struct tc_self_ctx {
    tc *t;
    base_strmap *used;
} tc_self_ctx;

static int tc_self_visit(const cc_expr *e, void *ctx)
{
    tc_self_ctx *c = ctx;
    if (e->kind == CC_E_ATTR && e->u.attr.value->kind == CC_E_NAME && !strcmp(e->u.attr.value->u.name, "self") &&
        base_strmap_put(c->used, e->u.attr.name, 1))
        tc_oom(c->t);
    return cc_expr_each_child(e, tc_self_visit, c);
}

/* Marks every `self.<name>` that b's statements mention. */
static void tc_self_refs(tc *t, const cc_block *b, base_strmap *used)
{
    tc_self_ctx c = {t, used};
    for (uint32_t i = 0; i < b->n; i++) cc_stmt_each_expr(b->items[i], tc_self_visit, &c);
}

/* The Orchestration method a program compiles through when none is named:
 * the only one no other method calls (a promoted Opaque function in a
 * printed program is called by its entry); NULL when there is not exactly
 * one.  Counts the Orchestration methods in t->p->norchestration. */
static tc_fn *tc_program_root(tc *t)
{
    base_strmap used = {0};
    for (uint32_t k = 0; k < t->nfns; k++) tc_self_refs(t, &t->fns[k].def->u.def.body, &used);
    tc_fn *only = NULL;
    uint32_t roots = 0;
    for (uint32_t k = 0; k < t->nfns; k++) {
        if (t->fns[k].kind != CC_FUNC_ORCHESTRATION) continue;
        t->p->norchestration++;
        if (base_strmap_get(&used, t->fns[k].name) < 0) only = &t->fns[k], roots++;
    }
    base_strmap_free(&used);
    return roots == 1 ? only : NULL;
}

/* The function the compile goes through: the program's named method or
 * root, or the @pl.jit entry; sets the program's name and function.  A
 * missing one is reported, except (quiet) a program without a single
 * root. */
static tc_fn *tc_entry(tc *t, int quiet)
{
    const char *cls = t->cls ? t->cls->u.def.name : NULL;
    tc_fn *entry = cls ? tc_program_root(t) : NULL;
    if (cls && t->o->function) {
        if (!(entry = tc_fn_named(t, t->o->function)))
            return tc_err(t, CC_DIAG_PY_TYPE, t->cls->span, NULL, "program '%s' has no function '%s'", cls, t->o->function);
    } else if (cls) {
        if (!entry && !quiet)
            tc_err(t, CC_DIAG_PY_TYPE, t->cls->span, NULL, "program '%s' has %u Orchestration functions; call one as %s.<name>(...)",
                   cls, t->p->norchestration, cls);
    } else if (!(entry = tc_fn_named(t, t->o->entry))) {
        return tc_err(t, CC_DIAG_PY_TYPE, (cc_span){1, 1, 1, 1}, "decorate it with @pl.jit, or name a @pl.program class",
                      "no @pl.jit function or @pl.program class named '%s'", t->o->entry);
    }
    t->p->name = cls ? cls : entry->name;
    if (cls) t->p->function = entry ? entry->name : NULL;
    return entry;
}

int cc_check_entry(const cc_module *m, const pto_compile_options *opts, cc_ir_program *out)
{
    tc t = {.m = m, .o = opts, .p = out, .a = out->arena, .d = out->diags, .pl = m->pl_name ? m->pl_name : "pl"};
    if (tc_gather(&t)) tc_entry(&t, 1);
    return t.d->errors ? -1 : 0;
}

int cc_typecheck(const cc_module *m, const pto_compile_options *opts, cc_ir_program *out)
{
    tc t = {.m = m, .o = opts, .p = out, .a = out->arena, .d = out->diags, .pl = m->pl_name ? m->pl_name : "pl"};
    if (!tc_gather(&t)) return -1;
    tc_fn *entry = tc_entry(&t, 0);
    if (!entry) return -1;
    if (entry->host) return tc_err(&t, CC_DIAG_UNSUPPORTED, entry->def->span, NULL, "@pl.jit.host is not supported in this version"), -1;
    if (!t.cls && !entry->jit_entry)
        return tc_err(&t, CC_DIAG_PY_TYPE, entry->def->span, NULL, "@pl.jit.%s function '%s' cannot be called directly; call it from a @pl.jit entry",
                      entry->kind == CC_FUNC_INCORE ? "incore" : entry->kind == CC_FUNC_INLINE ? "inline" : "opaque", entry->name),
               -1;
    if (!tc_check_fn(&t, entry, NULL)) {
        if (t.unshaped) tc_check_unshaped(&t, entry);
        return -1;
    }
    /* the entry first, the functions it reaches after it in source order:
     * the printed program then lists its functions in the order a compile
     * of that text produces again (the round trip), whatever the calls'
     * order (outlined kernels follow their function, stage 2) */
    uint32_t n = 0;
    for (uint32_t k = 0; k <= t.nfns; k++) {
        tc_fn *fn = k ? &t.fns[k - 1] : entry;
        if (k && fn == entry) continue;
        for (uint32_t j = n; j < out->nfuncs; j++)
            if (out->funcs[j] == fn->ir) {
                out->funcs[j] = out->funcs[n];
                out->funcs[n++] = fn->ir;
                break;
            }
    }
    return t.d->errors ? -1 : 0;
}
