/*
 * introspect.c - a @pl.program class's functions as written (see
 * introspect.h).
 *
 * Invariants: only the tree is read; a method is a def of the class body
 * whose decorator is <pl>.function (bare or called); its kind is the
 * type= keyword's <pl>.FunctionType.<X> member name, else "Opaque" (the
 * default of docs/dsl.md); texts are the annotations as written
 * (cc_print_ast_expr); the table is sorted by name (strcmp).
 */
#include "compiler/introspect.h"

#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "compiler/ast_printer.h"

static int is_pl_attr(const cc_module *m, const cc_expr *e, const char *name)
{
    return e && e->kind == CC_E_ATTR && !strcmp(e->u.attr.name, name) && e->u.attr.value->kind == CC_E_NAME &&
           !strcmp(e->u.attr.value->u.name, m->pl_name ? m->pl_name : "pl");
}

/* The @<pl>.function decorator of def, or NULL. */
static const cc_expr *function_decorator(const cc_module *m, const cc_stmt *def)
{
    for (uint32_t k = 0; k < def->u.def.ndecorators; k++) {
        const cc_expr *d = def->u.def.decorators[k];
        if (is_pl_attr(m, d->kind == CC_E_CALL ? d->u.call.fn : d, "function")) return d;
    }
    return NULL;
}

static const char *func_type(const cc_module *m, const cc_expr *d)
{
    for (uint32_t k = 0; d->kind == CC_E_CALL && k < d->u.call.nkws; k++) {
        const cc_expr *v = d->u.call.kws[k].value;
        if (!strcmp(d->u.call.kws[k].name, "type") && v->kind == CC_E_ATTR && is_pl_attr(m, v->u.attr.value, "FunctionType"))
            return v->u.attr.name;
    }
    return "Opaque";
}

static const char *text_of(const cc_module *m, const cc_expr *e, base_arena *a)
{
    base_strbuf b = {0};
    cc_print_ast_expr(m, e, &b);
    const char *s = b.oom ? NULL : base_arena_strndup(a, base_strbuf_str(&b), b.len);
    base_strbuf_free(&b);
    return s;
}

/* A parameter: pl.Out[T] / pl.InOut[T] (T's text), pl.Tensor... (In), else no direction. */
static int param_info(const cc_module *m, const cc_param *p, base_arena *a, pto_param_info *out)
{
    out->name = p->name;
    out->type = out->direction = NULL;
    const cc_expr *t = p->annotation;
    if (!t) return 0;
    if (t->kind == CC_E_SUBSCRIPT && (is_pl_attr(m, t->u.sub.value, "Out") || is_pl_attr(m, t->u.sub.value, "InOut"))) {
        out->direction = t->u.sub.value->u.attr.name;
        t = t->u.sub.index;
    } else if (is_pl_attr(m, t->kind == CC_E_SUBSCRIPT ? t->u.sub.value : t, "Tensor")) {
        out->direction = "In";
    }
    return (out->type = text_of(m, t, a)) ? 0 : -1;
}

/* tuple[A, B] -> A, B; T -> T; none -> nothing. */
static int returns_info(const cc_module *m, const cc_expr *r, base_arena *a, pto_function_info *f)
{
    f->nreturns = 0;
    if (!r) return 0;
    cc_expr *const *items = (cc_expr *const *)&r;
    size_t n = 1;
    if (r->kind == CC_E_SUBSCRIPT && r->u.sub.value->kind == CC_E_NAME && !strcmp(r->u.sub.value->u.name, "tuple")) {
        const cc_expr *ix = r->u.sub.index;
        if (ix->kind == CC_E_TUPLE) items = ix->u.seq.items, n = ix->u.seq.n;
        else items = &r->u.sub.index;
    }
    const char **texts = base_arena_alloc(a, n * sizeof *texts);
    if (!texts) return -1;
    for (size_t k = 0; k < n; k++)
        if (!(texts[k] = text_of(m, items[k], a))) return -1;
    f->return_types = texts, f->nreturns = n;
    return 0;
}

static int by_name(const void *x, const void *y)
{
    return strcmp(((const pto_function_info *)x)->name, ((const pto_function_info *)y)->name);
}

size_t cc_module_functions(const cc_module *m, const char *cls, base_arena *a, const pto_function_info **out)
{
    *out = NULL;
    const cc_stmt *c = NULL;
    for (uint32_t k = 0; k < m->ndefs && !c && cls; k++)
        if (m->defs[k]->kind == CC_S_CLASS && !strcmp(m->defs[k]->u.def.name, cls)) c = m->defs[k];
    if (cls && !c) return 0;
    cc_stmt *const *items = c ? c->u.def.body.items : m->defs;
    uint32_t count = c ? c->u.def.body.n : m->ndefs;
    if (!count) return 0;
    pto_function_info *fs = base_arena_alloc(a, count * sizeof *fs);
    if (!fs) return 0;
    size_t n = 0;
    for (uint32_t k = 0; k < count; k++) {
        const cc_stmt *def = items[k];
        const cc_expr *d = def->kind == CC_S_DEF ? function_decorator(m, def) : NULL;
        if (!d) continue;
        pto_function_info *f = &fs[n++];
        uint32_t skip = def->u.def.nparams && !strcmp(def->u.def.params[0].name, "self");
        f->name = def->u.def.name, f->func_type = func_type(m, d);
        f->nparams = def->u.def.nparams - skip;
        pto_param_info *ps = base_arena_alloc(a, (f->nparams + 1) * sizeof *ps);
        if (!ps) return 0;
        for (size_t p = 0; p < f->nparams; p++)
            if (param_info(m, &def->u.def.params[p + skip], a, &ps[p])) return 0;
        f->params = ps;
        if (returns_info(m, def->u.def.returns, a, f)) return 0;
    }
    qsort(fs, n, sizeof *fs, by_name);
    *out = fs;
    return n;
}
