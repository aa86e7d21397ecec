/*
 * typecheck.c - stage 0: the program and the calls of its functions (see
 * typecheck.h): the shared diagnostics, a callee found by name, the names
 * a body assigns, a call's arguments and deps= checked against the
 * callee's signature, the function a program compiles through, and the
 * order of the checked functions.  Declarations, decorators and
 * signatures are tc_decl.c's; statements tc_stmt.c's, `with` items
 * tc_with.c's, expressions tc_expr.c's, ops tc_ops.c's.
 *
 * The entry is checked first, specialized to the caller's argument specs;
 * every other function when it is first called, specialized to that call's
 * argument types.  A later call with other types is an error (v1 keeps one
 * specialization per function and compile).  A function reached while it
 * is being checked is a recursive call.  A function is read in the module
 * that defines it (tc_use_module: its constants, its pl name, its imports);
 * the entry's module is module 0.  The SYNTAX stage stops after the
 * declarations and the choice of the function a program goes through
 * (cc_check_entry), before anything is specialized.
 */
#include "compiler/tc.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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
    if (t->c.in_at == 2) return "inside a pl.spmd body";
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

/* ---- modules and functions by name --------------------------------------------------------- */

uint32_t tc_use_module(tc *t, uint32_t k)
{
    uint32_t was = t->cur;
    if (k < t->nmods) t->cur = k, t->m = t->mods[k].m, t->o = &t->mods[k].o, t->pl = t->mods[k].pl, t->pld = t->mods[k].pld;
    return was;
}

/* The function module k defines as name (a method or a def), or NULL. */
static tc_fn *tc_fn_of(tc *t, uint32_t module, const char *name)
{
    for (uint32_t k = 0; k < t->nfns; k++)
        if (t->fns[k].module == module && !strcmp(t->fns[k].name, name)) return &t->fns[k];
    return NULL;
}

/* What name is in the current module: the kernel of another module an
 * import binds it to, else the module's own function. */
static tc_fn *tc_fn_named(tc *t, const char *name)
{
    for (size_t k = 0; k < t->nimports; k++) {
        const pto_import *im = &t->imports[k];
        if (im->in == t->cur && im->name && im->function && !strcmp(im->name, name)) return tc_fn_of(t, im->module, im->function);
    }
    return tc_fn_of(t, t->cur, name);
}

/* Is name the program's name of a function other than fn: one of the
 * entry's module (reserved whether reached or not) or one already checked? */
static int tc_name_taken(const tc *t, const tc_fn *fn, const char *name)
{
    for (uint32_t k = 0; k < t->nfns; k++) {
        const tc_fn *g = &t->fns[k];
        if (g != fn && ((g->module == 0 && !strcmp(g->name, name)) || (g->ir && !strcmp(g->ir->name, name)))) return 1;
    }
    return 0;
}

const char *tc_ir_name(tc *t, const tc_fn *fn)
{
    if (fn->module == 0 || !tc_name_taken(t, fn, fn->name)) return fn->name;
    /* <name>_<stem> (the file's base name without .py, as an identifier), then <name>_<stem>_<module> */
    const char *file = cc_diag_file(t->d, fn->def->span.line), *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    char buf[256];
    int n = snprintf(buf, sizeof buf, "%s_", fn->name);
    for (const char *c = base; *c && strcmp(c, ".py") && n + 1 < (int)sizeof buf; c++)
        buf[n++] = (char)((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ? *c : '_');
    buf[n < (int)sizeof buf ? n : (int)sizeof buf - 1] = 0;
    if (tc_name_taken(t, fn, buf)) snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "_%u", (unsigned)fn->module);
    char *s = base_arena_strndup(t->a, buf, strlen(buf));
    return s ? s : (tc_oom(t), fn->name);
}

tc_fn *tc_callee(tc *t, const cc_expr *fn)
{
    if (t->cls) {
        if (fn->kind == CC_E_ATTR && fn->u.attr.value->kind == CC_E_NAME && !strcmp(fn->u.attr.value->u.name, "self"))
            return tc_fn_of(t, 0, fn->u.attr.name); /* the class's methods are the entry module's */
        if (fn->kind != CC_E_NAME || tc_is_local(t, fn->u.name)) return NULL;
        tc_fn *sa = tc_fn_named(t, fn->u.name); /* a standalone @pl.function, by bare name (F-sa) */
        return sa && sa->standalone ? sa : NULL;
    }
    fn = tc_module_constant_ast(t, fn); /* FN = kernel: a module alias of a decorated function */
    if (fn->kind != CC_E_NAME || tc_is_local(t, fn->u.name)) return NULL;
    return tc_fn_named(t, fn->u.name);
}

/* ---- the names a body assigns ------------------------------------------------------------ */

/* Counts one more assignment of name. */
static void tc_names_add(tc *t, base_strmap *l, const char *name)
{
    int64_t n = base_strmap_get(l, name);
    if (base_strmap_put(l, name, n < 0 ? 1 : (uint32_t)n + 1) != 0) tc_oom(t);
}

/* The names of a for target list (its loop variable and carries). */
static void tc_target_names(tc *t, const cc_expr *e, base_strmap *out)
{
    if (e->kind == CC_E_NAME) return tc_names_add(t, out, e->u.name);
    for (uint32_t k = 0; e->kind == CC_E_TUPLE && k < e->u.seq.n; k++) tc_target_names(t, e->u.seq.items[k], out);
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
        case CC_S_FOR:
            if (s->u.for_.target) tc_target_names(t, s->u.for_.target, out);
            else tc_names_add(t, out, s->u.for_.var);
            tc_scan(t, &s->u.for_.body, out);
            break;
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

/* ---- calls ----------------------------------------------------------------------------- */

static int tc_declared_scalar(const cc_ir_param *ip) { return ip->shaped && ip->type.kind == CC_T_SCALAR; }

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

/* One argument: pl.no_dep(x) (D-nda) sets *nodep and gives x. */
static cc_ir_expr *tc_arg(tc *t, tc_fn *fn, const cc_expr *a, uint8_t *nodep)
{
    if (!tc_is_no_dep(t, a)) {
        cc_ir_expr *x = tc_expr(t, a);
        if (x && x->type.kind == CC_T_ARRAY) return tc_err(t, CC_DIAG_TYPE, a->span, NULL, "a TaskId can only be passed in deps=");
        return x;
    }
    *nodep = 1;
    return tc_no_dep_arg(t, a, fn->kind == CC_FUNC_INCORE);
}

/* Binds the call's arguments (from first_arg) to fn's parameters. */
static int tc_bind_args(tc *t, tc_fn *fn, const cc_expr *call, uint32_t first_arg, cc_ir_expr **out, uint8_t *nodep)
{
    const cc_stmt *def = fn->def;
    uint32_t self = t->cls && !fn->standalone ? 1 : 0, np = def->u.def.nparams - self;
    uint32_t npos = call->u.call.nargs - first_arg;
    if (npos > np)
        return tc_err(t, CC_DIAG_TYPE, call->u.call.args[first_arg + np]->span, NULL,
                      "'%s' takes %u argument(s) but %u were given", fn->name, np, npos), 0;
    for (uint32_t k = 0; k < npos; k++)
        if (!(out[k] = tc_arg(t, fn, call->u.call.args[first_arg + k], &nodep[k]))) return 0;
    for (uint32_t k = 0; k < call->u.call.nkws; k++) {
        const cc_keyword *kw = &call->u.call.kws[k];
        if (!strcmp(kw->name, "deps")) continue;
        if (first_arg && (!strcmp(kw->name, "predicate") || !strcmp(kw->name, "allow_early_resolve"))) continue; /* pl.submit's */
        uint32_t j = 0;
        while (j < np && strcmp(def->u.def.params[j + self].name, kw->name)) j++;
        if (j == np && !strcmp(kw->name, "device")) { /* a host function's dispatch (DISTRIBUTED-SPEC §1.2) */
            if (t->c.host && !first_arg && (fn->kind == CC_FUNC_ORCHESTRATION || fn->kind == CC_FUNC_OPAQUE)) continue;
            return tc_err(t, CC_DIAG_TYPE, kw->name_span, NULL, "Function '%s' does not accept keyword argument 'device'", fn->name), 0;
        }
        if (j == np && first_arg && !strcmp(kw->name, "dumps"))
            return tc_err(t, CC_DIAG_UNSUPPORTED, kw->name_span, NULL,
                          first_arg ? "pl.submit(%s=...) is not supported in this version" : "%s= is not supported in this version", kw->name), 0;
        if (j == np || out[j])
            return tc_err(t, CC_DIAG_TYPE, kw->name_span, NULL, "'%s' got an unexpected argument '%s'", fn->name, kw->name), 0;
        if (!(out[j] = tc_arg(t, fn, kw->value, &nodep[j]))) return 0;
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


/* A device= keyword on a call of kernel fn: its ParserTypeError (1 when reported). */
static int tc_bind_device_kw(tc *t, const tc_fn *fn, const cc_expr *call)
{
    for (uint32_t k = 0; k < call->u.call.nkws; k++)
        if (!strcmp(call->u.call.kws[k].name, "device"))
            return tc_err(t, CC_DIAG_TYPE, call->u.call.kws[k].name_span, NULL, "Function '%s' does not accept keyword argument 'device'",
                          fn->name), 1;
    return 0;
}

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
    if (fn->host)
        return tc_err(t, CC_DIAG_INVALID_OP, call->span, NULL, "'%s' is a @pl.jit.host function; only Python calls it", fn->name);
    if (t->c.host && fn->kind == CC_FUNC_INCORE) { /* after device=: the keyword's own text first */
        char what[160];
        int bad = tc_bind_device_kw(t, fn, call);
        snprintf(what, sizeof what, "%s '%s'", submit ? "pl.submit of" : "calling kernel", fn->name);
        return bad ? NULL : tc_host_forbidden(t, call->span, what);
    }
    if (fn->jit_entry && !t->c.host)
        return tc_err(t, CC_DIAG_INVALID_OP, call->span, NULL,
                      "'%s' is a @pl.jit entry; an entry cannot call another entry (make it @pl.jit.incore, .inline or .opaque)",
                      fn->name);
    if (fn->state == 1) return tc_err(t, CC_DIAG_UNSUPPORTED, call->span, NULL, "recursive call of '%s' is not supported in this version", fn->name);
    if (submit && fn->kind != CC_FUNC_INCORE)
        return tc_err(t, CC_DIAG_SYNTAX, call->u.call.args[0]->span, NULL,
                      "pl.submit(...) first argument must be a self.<kernel> method reference or a @pl.jit.incore function");
    uint32_t np = fn->def->u.def.nparams - (t->cls && !fn->standalone ? 1 : 0);
    cc_ir_expr *e = cc_ir_expr_new(t->a, CC_X_CALL, call->span);
    cc_ir_expr **args = base_arena_alloc(t->a, (np ? np : 1) * sizeof *args); /* never NULL: NULL args mean the entry */
    uint8_t *nodep = base_arena_alloc(t->a, np ? np : 1);
    if (!e || !args || !nodep) return tc_oom(t);
    memset(nodep, 0, np ? np : 1);
    int ok = tc_bind_args(t, fn, call, first_arg, args, nodep);
    if (ok && fn->state == 0) ok = tc_check_fn(t, fn, args);
    else if (ok) {
        for (uint32_t k = 0; ok && k < np; k++) { /* what the first call fixed; declared scalars below */
            const cc_ir_param *ip = &fn->ir->params[k];
            if (!tc_declared_scalar(ip) && !cc_type_equal(&ip->type, &args[k]->type) &&
                !(fn->kind == CC_FUNC_INCORE && tc_fits_at_run_time(&ip->type, &args[k]->type)))
                ok = tc_param_mismatch(t, fn, ip, args[k]);
        }
    }
    for (uint32_t k = 0; ok && k < np; k++)
        if (tc_declared_scalar(&fn->ir->params[k])) ok = (args[k] = tc_scalar_arg(t, fn, &fn->ir->params[k], args[k])) != NULL;
    if (!ok) return NULL;
    if (fn->ir->nparams > np) { /* implicit Out parameters (returned tensor-level values): allocated here */
        cc_ir_expr **all = base_arena_alloc(t->a, fn->ir->nparams * sizeof *all);
        if (!all) return tc_oom(t);
        uint8_t *nd = base_arena_alloc(t->a, fn->ir->nparams);
        if (!nd) return tc_oom(t);
        memcpy(all, args, np * sizeof *all);
        memset(nd, 0, fn->ir->nparams), memcpy(nd, nodep, np);
        if (!tc_implicit_args(t, fn->ir, all, np, call->span)) return NULL;
        args = all, nodep = nd, np = fn->ir->nparams;
    }
    e->u.call.callee = fn->ir, e->u.call.args = args, e->u.call.nargs = np, e->u.call.submit = (uint8_t)submit;
    for (uint32_t k = 0; k < np; k++)
        if (nodep[k]) e->u.call.nodep = nodep;
    for (uint32_t k = 0; k < call->u.call.nkws; k++) {
        const cc_keyword *kw = &call->u.call.kws[k];
        if (!strcmp(kw->name, "deps")) {
            if (!submit) return tc_err(t, CC_DIAG_TYPE, kw->name_span, NULL, "'%s' got an unexpected argument 'deps'", fn->name);
            if (!tc_deps_of(t, "pl.submit", kw->value, &e->u.call.deps, &e->u.call.ndeps)) return NULL;
        } else if (submit && !strcmp(kw->name, "allow_early_resolve")) {
            if (!tc_early_resolve(t, "pl.submit", kw->value, &e->u.call.early)) return NULL;
        } else if (submit && !strcmp(kw->name, "predicate")) {
            if (!tc_predicate(t, kw->value, &e->u.call.pred, &e->u.call.pred_op, &e->u.call.pred_k)) return NULL;
        } else if (t->c.host && !strcmp(kw->name, "device") && cc_ir_func_param(fn->ir, "device") < 0) {
            if (!(e->u.call.device = tc_expr(t, kw->value))) return NULL;
            if (e->u.call.device->type.kind != CC_T_SCALAR || cc_dtype_is_float((cc_dtype)e->u.call.device->type.dtype))
                return tc_err(t, CC_DIAG_TYPE, kw->value->span, NULL, "device= must be an integer scalar (a rank)");
        }
    }
    for (uint32_t k = 0; t->c.host && !e->u.call.device && k < np; k++) /* a window goes to one rank (§1.2) */
        if (args[k]->type.kind == CC_T_TENSOR && args[k]->type.window == CC_WIN_DT)
            return tc_err(t, CC_DIAG_TYPE, call->span, NULL, "'%s' receives DistributedTensor '%s' and needs device=", fn->name,
                          fn->ir->params[k].name);
    tc_call_type(e, submit);
    return e;
}

int tc_at_deps(tc *t, const cc_expr *list, cc_ir_expr ***deps, uint32_t *ndeps) { return tc_deps_of(t, "pl.at", list, deps, ndeps); }

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
        if (t->fns[k].kind != CC_FUNC_ORCHESTRATION || t->fns[k].standalone) continue;
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

/* The type checker over modules mods (module 0 current); 0 when out of memory. */
static int tc_init(tc *t, const cc_module *mods, uint32_t nmods, const pto_compile_options *opts, cc_ir_program *out)
{
    *t = (tc){.p = out, .a = out->arena, .d = out->diags, .imports = opts->imports, .nimports = opts->imports ? opts->nimports : 0};
    if (!(t->mods = base_arena_alloc(t->a, nmods * sizeof *t->mods))) return tc_oom(t), 0;
    t->nmods = nmods;
    for (uint32_t k = 0; k < nmods; k++) {
        t->mods[k] = (tc_module){.m = &mods[k], .o = *opts, .pl = mods[k].pl_name ? mods[k].pl_name : "pl",
                                 .pld = mods[k].pld_name ? mods[k].pld_name : "pld"};
        if (k) t->mods[k].o.constants = opts->modules[k - 1].constants, t->mods[k].o.nconstants = opts->modules[k - 1].nconstants;
    }
    tc_use_module(t, 0);
    return 1;
}

int cc_check_entry(const cc_module *mods, uint32_t nmods, const pto_compile_options *opts, cc_ir_program *out)
{
    tc t;
    if (tc_init(&t, mods, nmods, opts, out) && tc_gather(&t)) tc_entry(&t, 1);
    return t.d->errors ? -1 : 0;
}

int cc_typecheck(const cc_module *mods, uint32_t nmods, const pto_compile_options *opts, cc_ir_program *out)
{
    tc t;
    if (!tc_init(&t, mods, nmods, opts, out) || !tc_gather(&t)) return -1;
    tc_fn *entry = tc_entry(&t, 0);
    if (!entry) return -1;
    if (!t.cls && entry->standalone)
        return tc_err(&t, CC_DIAG_PY_TYPE, entry->def->span, NULL, "@pl.function function '%s' cannot be called directly; "
                      "call it from a @pl.program method or a @pl.jit entry", entry->name),
               -1;
    if (!t.cls && !entry->jit_entry && !entry->host)
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
