/*
 * ast_printer.c - the syntax tree back to DSL text, as written (see
 * ast_printer.h).
 *
 * Invariants:
 *  - Every line ends in '\n'; indentation is 4 spaces a level; an empty
 *    block (a class without methods) prints `pass`.
 *  - An expression is parenthesized only where Python would parse it
 *    differently (printer.h's binding strengths; comparisons do not chain);
 *    a tuple always has its parentheses, except as a whole assigned or
 *    returned value and as a subscript's index, where Python needs none.
 *  - An else branch that is one `if` prints as `elif` (the tree cannot
 *    tell the two spellings apart; both parse to it).
 *  - A constant prints once, after the constants its expression names
 *    (first reached first); the caller's value wins over the module's
 *    expression, as in a compile; a value kernel code cannot capture
 *    (a Python object) is left out.
 *  - Options (pto_compile_options print_prefix / print_concise, docs/dsl.md,
 *    "Introspection and tools"): the prefix replaces the module's name
 *    for pypto.language wherever it is read, the import's alias included;
 *    concise drops the annotation of an assignment in a def, except one
 *    naming a memory space other than Vec (a type tag the value may not
 *    show, so the program stays the same program).
 *  - The printer only reads the tree; failures are out->oom.
 */
#include "compiler/ast_printer.h"

#include <math.h>
#include <string.h>

#include "base/strmap.h"
#include "compiler/printer.h"

typedef struct ap {
    const cc_module *m;
    const pto_compile_options *o;
    base_strbuf *out;
    base_strmap constants; /* the constants printed, or being printed */
    int nesting;           /* constants being printed (each waits for those it names) */
    const char *pl;        /* the module's name for pypto.language */
    const char *prefix;    /* what it prints as */
    int concise;
    int in_def;            /* printing a def's body */
    int alone;             /* printing one method alone: without self */
} ap;

/* ---- expressions --------------------------------------------------------------------- */

static void print_expr(ap *a, const cc_expr *e);

/* A float as a literal: an infinite one (a literal too large for a double,
 * or a caller's value) as 1e999, which reads back as it; a NaN as Python
 * writes it, which is then a name. */
static void print_float_literal(double v, base_strbuf *out)
{
    if (isinf(v)) base_strbuf_puts(out, v < 0 ? "-1e999" : "1e999");
    else cc_print_float(v, out);
}

static int expr_prec(const cc_expr *e)
{
    switch (e->kind) {
    case CC_E_BINARY: case CC_E_COMPARE: case CC_E_BOOLOP: return cc_op_prec(e->u.bin.op);
    case CC_E_UNARY: return cc_op_prec(e->u.un.op);
    case CC_E_INT: return e->u.i < 0 ? CC_PREC_UNARY : CC_PREC_ATOM;
    case CC_E_FLOAT: return !isnan(e->u.f) && signbit(e->u.f) ? CC_PREC_UNARY : CC_PREC_ATOM;
    default: return CC_PREC_ATOM;
    }
}

/* e, in parentheses when it binds looser than min_prec. */
static void print_operand(ap *a, const cc_expr *e, int min_prec)
{
    int paren = expr_prec(e) < min_prec;
    if (paren) base_strbuf_puts(a->out, "(");
    print_expr(a, e);
    if (paren) base_strbuf_puts(a->out, ")");
}

/* Comma-separated; a single item gets the comma that makes it a tuple when
 * one_comma is set. */
static void print_items(ap *a, cc_expr *const *xs, uint32_t n, int one_comma)
{
    for (uint32_t k = 0; k < n; k++) {
        if (k) base_strbuf_puts(a->out, ", ");
        print_expr(a, xs[k]);
    }
    if (n == 1 && one_comma) base_strbuf_puts(a->out, ",");
}

/* A value list where Python needs no parentheses: `x = 1, 2`, `t[a, b]`. */
static void print_bare_tuple(ap *a, const cc_expr *e)
{
    if (e->kind == CC_E_TUPLE && e->u.seq.n) print_items(a, e->u.seq.items, e->u.seq.n, 1);
    else print_expr(a, e);
}

/* `i`, `i, (c1, c2)`; a tuple of names only (pl.while_'s carries) keeps its parentheses. */
static void print_for_target(ap *a, const cc_stmt *s)
{
    const cc_expr *t = s->u.for_.target;
    if (!t) return (void)base_strbuf_puts(a->out, s->u.for_.var);
    int names = t->kind == CC_E_TUPLE;
    for (uint32_t k = 0; names && k < t->u.seq.n; k++) names = t->u.seq.items[k]->kind == CC_E_NAME;
    if (names) print_expr(a, t);
    else print_bare_tuple(a, t);
}

static void print_call(ap *a, const cc_expr *e)
{
    print_operand(a, e->u.call.fn, CC_PREC_ATOM);
    base_strbuf_puts(a->out, "(");
    print_items(a, e->u.call.args, e->u.call.nargs, 0);
    for (uint32_t k = 0; k < e->u.call.nkws; k++) {
        base_strbuf_printf(a->out, "%s%s=", k || e->u.call.nargs ? ", " : "", e->u.call.kws[k].name);
        print_expr(a, e->u.call.kws[k].value);
    }
    base_strbuf_puts(a->out, ")");
}

static void print_expr(ap *a, const cc_expr *e)
{
    base_strbuf *out = a->out;
    switch (e->kind) {
    case CC_E_NAME: base_strbuf_puts(out, !strcmp(e->u.name, a->pl) ? a->prefix : e->u.name); break;
    case CC_E_INT: base_strbuf_printf(out, "%lld", (long long)e->u.i); break;
    case CC_E_FLOAT: print_float_literal(e->u.f, out); break;
    case CC_E_BOOL: base_strbuf_puts(out, e->u.i ? "True" : "False"); break;
    case CC_E_NONE: base_strbuf_puts(out, "None"); break;
    case CC_E_STRING: cc_print_str(e->u.str.text, e->u.str.len, out); break;
    case CC_E_ATTR:
        print_operand(a, e->u.attr.value, CC_PREC_ATOM);
        base_strbuf_printf(out, ".%s", e->u.attr.name);
        break;
    case CC_E_CALL: print_call(a, e); break;
    case CC_E_SUBSCRIPT:
        print_operand(a, e->u.sub.value, CC_PREC_ATOM);
        base_strbuf_puts(out, "[");
        print_bare_tuple(a, e->u.sub.index);
        base_strbuf_puts(out, "]");
        break;
    case CC_E_BINARY: case CC_E_BOOLOP: case CC_E_COMPARE: {
        int p = cc_op_prec(e->u.bin.op);
        print_operand(a, e->u.bin.left, p + (e->kind == CC_E_COMPARE));
        base_strbuf_printf(out, " %s ", cc_op_text(e->u.bin.op));
        print_operand(a, e->u.bin.right, p + 1);
        break;
    }
    case CC_E_SLICE:
        if (e->u.slice.lo) print_expr(a, e->u.slice.lo);
        base_strbuf_puts(out, ":");
        if (e->u.slice.hi) print_expr(a, e->u.slice.hi);
        if (e->u.slice.has_step) base_strbuf_puts(out, ":");
        if (e->u.slice.step) print_expr(a, e->u.slice.step);
        break;
    case CC_E_UNARY:
        base_strbuf_puts(out, e->u.un.op == CC_OP_NOT ? "not " : cc_op_text(e->u.un.op));
        print_operand(a, e->u.un.operand, cc_op_prec(e->u.un.op));
        break;
    case CC_E_LIST:
        base_strbuf_puts(out, "[");
        print_items(a, e->u.seq.items, e->u.seq.n, 0);
        base_strbuf_puts(out, "]");
        break;
    case CC_E_TUPLE:
        base_strbuf_puts(out, "(");
        print_items(a, e->u.seq.items, e->u.seq.n, 1);
        base_strbuf_puts(out, ")");
        break;
    }
}

/* ---- statements and definitions ------------------------------------------------------- */

static void indent(ap *a, int depth)
{
    for (int k = 0; k < depth; k++) base_strbuf_puts(a->out, "    ");
}

static void print_stmt(ap *a, const cc_stmt *s, int depth);

static void print_block(ap *a, const cc_block *b, int depth)
{
    if (!b->n) {
        indent(a, depth);
        base_strbuf_puts(a->out, "pass\n");
    }
    for (uint32_t k = 0; k < b->n; k++) print_stmt(a, b->items[k], depth);
}

static void print_header_end(ap *a, const cc_block *body, int depth)
{
    base_strbuf_puts(a->out, ":\n");
    print_block(a, body, depth + 1);
}

static void print_if(ap *a, const cc_stmt *s, int depth, const char *keyword)
{
    base_strbuf_printf(a->out, "%s ", keyword);
    print_expr(a, s->u.if_.cond);
    print_header_end(a, &s->u.if_.then, depth);
    const cc_block *orelse = &s->u.if_.orelse;
    if (!orelse->n) return;
    indent(a, depth);
    if (orelse->n == 1 && orelse->items[0]->kind == CC_S_IF) {
        print_if(a, orelse->items[0], depth, "elif");
    } else {
        base_strbuf_puts(a->out, "else");
        print_header_end(a, orelse, depth);
    }
}

static void print_with(ap *a, const cc_stmt *s, int depth)
{
    base_strbuf_puts(a->out, "with ");
    for (uint32_t k = 0; k < s->u.with.nitems; k++) {
        if (k) base_strbuf_puts(a->out, ", ");
        print_expr(a, s->u.with.items[k].context);
        if (s->u.with.items[k].as_name) base_strbuf_printf(a->out, " as %s", s->u.with.items[k].as_name);
    }
    print_header_end(a, &s->u.with.body, depth);
}

/* Does e name a memory space other than Vec (<pl>.Mem.X, <pl>.MemorySpace.X)? */
static int names_space(const cc_expr *e, void *ctx)
{
    ap *a = ctx;
    if (e->kind == CC_E_ATTR && e->u.attr.value->kind == CC_E_ATTR && strcmp(e->u.attr.name, "Vec") &&
        (!strcmp(e->u.attr.value->u.attr.name, "Mem") || !strcmp(e->u.attr.value->u.attr.name, "MemorySpace")) &&
        e->u.attr.value->u.attr.value->kind == CC_E_NAME && !strcmp(e->u.attr.value->u.attr.value->u.name, a->pl))
        return 1;
    return cc_expr_each_child(e, names_space, ctx);
}

static void print_assign(ap *a, const cc_stmt *s)
{
    print_items(a, s->u.assign.targets, s->u.assign.ntargets, 0);
    const cc_expr *ann = s->u.assign.annotation;
    if (ann && a->concise && a->in_def && !names_space(ann, a)) ann = NULL;
    if (ann) base_strbuf_puts(a->out, ": "), print_expr(a, ann);
    base_strbuf_puts(a->out, " = ");
    print_bare_tuple(a, s->u.assign.value);
}

/* `name`, `name: ann`, `name=default`, `name: ann = default`. */
static void print_param(ap *a, const cc_param *p)
{
    base_strbuf_puts(a->out, p->name);
    if (p->annotation) base_strbuf_puts(a->out, ": "), print_expr(a, p->annotation);
    if (p->default_value) {
        base_strbuf_puts(a->out, p->annotation ? " = " : "=");
        print_expr(a, p->default_value);
    }
}

/* A def or a class with its decorators; a class's methods apart by a blank line. */
static void print_def(ap *a, const cc_stmt *s, int depth)
{
    for (uint32_t k = 0; k < s->u.def.ndecorators; k++) {
        base_strbuf_puts(a->out, "@");
        print_expr(a, s->u.def.decorators[k]);
        base_strbuf_puts(a->out, "\n");
        indent(a, depth);
    }
    if (s->kind == CC_S_CLASS) {
        base_strbuf_printf(a->out, "class %s:\n", s->u.def.name);
        const cc_block *b = &s->u.def.body;
        if (!b->n) print_block(a, b, depth + 1);
        for (uint32_t k = 0; k < b->n; k++) {
            if (k) base_strbuf_puts(a->out, "\n");
            print_stmt(a, b->items[k], depth + 1);
        }
        return;
    }
    base_strbuf_printf(a->out, "def %s(", s->u.def.name);
    uint32_t skip = a->alone && s->u.def.nparams && !strcmp(s->u.def.params[0].name, "self");
    for (uint32_t k = skip; k < s->u.def.nparams; k++) {
        if (k > skip) base_strbuf_puts(a->out, ", ");
        print_param(a, &s->u.def.params[k]);
    }
    base_strbuf_puts(a->out, ")");
    if (s->u.def.returns) base_strbuf_puts(a->out, " -> "), print_expr(a, s->u.def.returns);
    int in_def = a->in_def;
    a->in_def = 1;
    print_header_end(a, &s->u.def.body, depth);
    a->in_def = in_def;
}

static void print_stmt(ap *a, const cc_stmt *s, int depth)
{
    indent(a, depth);
    switch (s->kind) {
    case CC_S_EXPR: print_expr(a, s->u.expr); break;
    case CC_S_ASSIGN: print_assign(a, s); break;
    case CC_S_AUGASSIGN:
        print_expr(a, s->u.aug.target);
        base_strbuf_printf(a->out, " %s= ", cc_op_text(s->u.aug.op));
        print_expr(a, s->u.aug.value);
        break;
    case CC_S_RETURN:
        base_strbuf_puts(a->out, s->u.ret.n ? "return " : "return");
        print_items(a, s->u.ret.values, s->u.ret.n, 0);
        break;
    case CC_S_PASS: base_strbuf_puts(a->out, "pass"); break;
    case CC_S_FOR:
        base_strbuf_puts(a->out, "for ");
        print_for_target(a, s);
        base_strbuf_puts(a->out, " in ");
        print_expr(a, s->u.for_.iter);
        print_header_end(a, &s->u.for_.body, depth);
        return;
    case CC_S_WHILE:
        base_strbuf_puts(a->out, "while ");
        print_expr(a, s->u.while_.cond);
        print_header_end(a, &s->u.while_.body, depth);
        return;
    case CC_S_IF: print_if(a, s, depth, "if"); return;
    case CC_S_WITH: print_with(a, s, depth); return;
    case CC_S_DEF: case CC_S_CLASS: print_def(a, s, depth); return;
    }
    base_strbuf_puts(a->out, "\n"); /* a simple statement's line */
}

/* ---- the constants the code names ------------------------------------------------------ */

typedef void (*name_fn)(ap *a, const char *name);

typedef struct names_ctx {
    ap *a;
    name_fn fn;
} names_ctx;

static int names_visit(const cc_expr *e, void *ctx)
{
    names_ctx *c = ctx;
    if (e->kind == CC_E_NAME) c->fn(c->a, e->u.name);
    else cc_expr_each_child(e, names_visit, c);
    return 0;
}

/* fn on every name e reads. */
static void names_expr(ap *a, const cc_expr *e, name_fn fn)
{
    names_ctx c = {a, fn};
    names_visit(e, &c);
}

/* fn on every name s and the statements in it read. */
static void names_stmt(ap *a, const cc_stmt *s, name_fn fn)
{
    names_ctx c = {a, fn};
    cc_stmt_each_expr(s, names_visit, &c);
}

/* `name = value` for the constant called name, if there is one, after
 * the constants its expression names.  A chain deeper than a compile
 * follows (16) is not followed: that program does not compile. */
static void print_constant(ap *a, const char *name)
{
    if (base_strmap_get(&a->constants, name) >= 0) return;
    const pto_constant *given = NULL;
    for (size_t k = 0; k < a->o->nconstants && !given; k++)
        if (a->o->constants[k].name && !strcmp(a->o->constants[k].name, name)) given = &a->o->constants[k];
    const cc_constant *own = NULL;
    for (uint32_t k = a->m->nconstants; k-- > 0 && !own && !given;) /* the last definition, as a compile reads it */
        if (!strcmp(a->m->constants[k].name, name)) own = &a->m->constants[k];
    if ((!given && !own) || (given && given->value.kind == PTO_VALUE_OBJECT)) return;
    if (base_strmap_put(&a->constants, name, 1) != 0) {
        a->out->oom = 1;
        return;
    }
    if (own && a->nesting < 16) {
        a->nesting++;
        names_expr(a, own->value, print_constant);
        a->nesting--;
    }
    base_strbuf_printf(a->out, "%s = ", name);
    if (own) print_bare_tuple(a, own->value);
    else if (given->value.kind == PTO_VALUE_INT) base_strbuf_printf(a->out, "%lld", (long long)given->value.i);
    else if (given->value.kind == PTO_VALUE_FLOAT) print_float_literal(given->value.f, a->out);
    else if (given->value.kind == PTO_VALUE_BOOL) base_strbuf_puts(a->out, given->value.i ? "True" : "False");
    else cc_print_str(given->value.s ? given->value.s : "", given->value.s ? strlen(given->value.s) : 0, a->out);
    base_strbuf_puts(a->out, "\n");
}

/* ---- the entry ---------------------------------------------------------------------------- */

/* Is s printed: the entry's class, or (a @pl.jit entry) a module-level def? */
static int printed(const cc_stmt *s, const cc_stmt *cls)
{
    return cls ? s == cls : s->kind == CC_S_DEF;
}

/* The def named name: a method of class cls, or (cls NULL) a module-level one. */
static const cc_stmt *find_def(const cc_module *m, const cc_stmt *cls, const char *name)
{
    cc_stmt *const *items = cls ? cls->u.def.body.items : m->defs;
    uint32_t n = cls ? cls->u.def.body.n : m->ndefs;
    for (uint32_t k = 0; k < n; k++)
        if (items[k]->kind == CC_S_DEF && !strcmp(items[k]->u.def.name, name)) return items[k];
    return NULL;
}

void cc_print_source(const cc_module *m, const pto_compile_options *o, base_strbuf *out)
{
    const char *pl = m->pl_name ? m->pl_name : "pl";
    ap a = {.m = m, .o = o, .out = out, .pl = pl, .prefix = o->print_prefix ? o->print_prefix : pl, .concise = o->print_concise};
    const cc_stmt *cls = NULL;
    for (uint32_t k = 0; k < m->ndefs && !cls && o->entry; k++)
        if (m->defs[k]->kind == CC_S_CLASS && !strcmp(m->defs[k]->u.def.name, o->entry)) cls = m->defs[k];
    if (o->print_function) {
        const cc_stmt *def = find_def(m, cls, o->print_function);
        if (!def) return;
        a.alone = 1;
        base_strbuf_printf(out, "import pypto.language as %s\n\n", a.prefix);
        size_t before = out->len;
        names_stmt(&a, def, print_constant);
        if (out->len > before) base_strbuf_puts(out, "\n");
        print_def(&a, def, 0);
        base_strmap_free(&a.constants);
        return;
    }
    base_strbuf_printf(out, "import pypto.language as %s\n\n", a.prefix);
    size_t before = out->len;
    for (uint32_t k = 0; k < m->ndefs; k++)
        if (printed(m->defs[k], cls)) names_stmt(&a, m->defs[k], print_constant);
    if (out->len > before) base_strbuf_puts(out, "\n");
    int first = 1;
    for (uint32_t k = 0; k < m->ndefs; k++) {
        if (!printed(m->defs[k], cls)) continue;
        if (!first) base_strbuf_puts(out, "\n");
        print_def(&a, m->defs[k], 0);
        first = 0;
    }
    base_strmap_free(&a.constants);
}

void cc_print_ast_expr(const cc_module *m, const cc_expr *e, base_strbuf *out)
{
    const char *pl = m->pl_name ? m->pl_name : "pl";
    ap a = {.m = m, .out = out, .pl = pl, .prefix = pl};
    print_expr(&a, e);
}
