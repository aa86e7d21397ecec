/*
 * parser.c - the DSL's Python-subset parser (see parser.h).
 *
 * This file: statements, blocks, functions, classes and the module;
 * expressions are parse_expr.c's, shared helpers parse.c's.
 * Invariants: every parse function consumes at least one token or reports
 * an error; an error unwinds to the statement level (a NULL result), where
 * cc_parse_sync moves to the next statement, so the token index only grows
 * and the parser always ends at EOF.
 */
#include "compiler/parse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"

/* ---- statements --------------------------------------------------------------- */

static int cc_parse_block(cc_parser *p, cc_block *out);

static cc_stmt *cc_stmt_new(cc_parser *p, cc_stmt_kind k, cc_span sp)
{
    cc_stmt *s = cc_new(p, sizeof *s);
    if (s) s->kind = k, s->span = sp;
    return s;
}

/* A simple statement: expression, assignment, augmented assignment,
 * return, pass. */
static cc_stmt *cc_parse_simple(cc_parser *p)
{
    const cc_token *t = cc_peek(p);
    static const char *const rejected[] = {"break", "continue", "raise", "assert", "del", "global",
                                           "nonlocal", "import", "from", "try", "except", "finally",
                                           "async", "class", "def", "yield", "await", "lambda"};
    for (size_t k = 0; k < sizeof rejected / sizeof rejected[0]; k++)
        if (cc_at_word(p, rejected[k])) {
            const char *what = !strcmp(rejected[k], "def") ? "nested def" : !strcmp(rejected[k], "class") ? "nested class"
                               : !strcmp(rejected[k], "from") ? "import" : rejected[k];
            return cc_unsupported_stmt(p, t->span, what);
        }
    if (cc_at_word(p, "pass")) {
        cc_next(p);
        return cc_stmt_new(p, CC_S_PASS, t->span);
    }
    if (cc_at_word(p, "return")) {
        cc_next(p);
        cc_stmt *s = cc_stmt_new(p, CC_S_RETURN, t->span);
        if (!s || cc_at(p, CC_TOK_NEWLINE) || cc_at(p, CC_TOK_SEMI)) return s;
        cc_expr *v = cc_parse_exprlist(p);
        if (!v) return NULL;
        if (v->kind == CC_E_TUPLE) s->u.ret.values = v->u.seq.items, s->u.ret.n = v->u.seq.n;
        else if ((s->u.ret.values = cc_new(p, sizeof *s->u.ret.values))) s->u.ret.values[0] = v, s->u.ret.n = 1;
        s->span = cc_join(t->span, v->span);
        return s;
    }
    cc_expr *target = cc_parse_exprlist(p);
    if (!target) return NULL;
    const cc_token *op = cc_peek(p);
    if (op->kind == CC_TOK_ASSIGN || op->kind == CC_TOK_COLON) {
        cc_expr *annotation = NULL;
        if (op->kind == CC_TOK_COLON) {
            cc_next(p);
            if (!(annotation = cc_parse_expr(p))) return NULL;
            if (!cc_at(p, CC_TOK_ASSIGN)) return cc_expected(p, "'=' after the annotation");
        }
        cc_next(p);
        cc_expr *value = cc_parse_exprlist(p);
        if (!value) return NULL;
        if (cc_at(p, CC_TOK_ASSIGN)) return cc_unsupported_stmt(p, cc_peek(p)->span, "chained assignment");
        cc_stmt *s = cc_stmt_new(p, CC_S_ASSIGN, cc_join(target->span, value->span));
        if (!s) return NULL;
        if (target->kind == CC_E_TUPLE) s->u.assign.targets = target->u.seq.items, s->u.assign.ntargets = target->u.seq.n;
        else if ((s->u.assign.targets = cc_new(p, sizeof *s->u.assign.targets)))
            s->u.assign.targets[0] = target, s->u.assign.ntargets = 1;
        s->u.assign.annotation = annotation;
        s->u.assign.value = value;
        return s;
    }
    static const struct { cc_token_kind k; cc_op op; } augs[] = {
        {CC_TOK_PLUS_EQ, CC_OP_ADD}, {CC_TOK_MINUS_EQ, CC_OP_SUB}, {CC_TOK_STAR_EQ, CC_OP_MUL},
        {CC_TOK_DSLASH_EQ, CC_OP_FLOORDIV}, {CC_TOK_AMP_EQ, CC_OP_BITAND}, {CC_TOK_PIPE_EQ, CC_OP_BITOR},
        {CC_TOK_CARET_EQ, CC_OP_BITXOR}, {CC_TOK_LSHIFT_EQ, CC_OP_LSHIFT}, {CC_TOK_RSHIFT_EQ, CC_OP_RSHIFT}};
    for (size_t k = 0; k < sizeof augs / sizeof augs[0]; k++)
        if (op->kind == augs[k].k) {
            cc_next(p);
            cc_expr *value = cc_parse_expr(p);
            if (!value) return NULL;
            cc_stmt *s = cc_stmt_new(p, CC_S_AUGASSIGN, cc_join(target->span, value->span));
            if (s) s->u.aug.target = target, s->u.aug.op = augs[k].op, s->u.aug.value = value;
            return s;
        }
    if (op->kind >= CC_TOK_SLASH_EQ && op->kind <= CC_TOK_RSHIFT_EQ) {
        char what[16];
        snprintf(what, sizeof what, "%s", cc_token_kind_text(op->kind));
        return cc_unsupported_stmt(p, op->span, what);
    }
    cc_stmt *s = cc_stmt_new(p, CC_S_EXPR, target->span);
    if (s) s->u.expr = target;
    return s;
}

/* Does the `for` target starting at the next token (not a single name) run
 * up to `in <name>.spmd(`?  (DSL-V2-SPEC §7: that loop takes one variable.) */
static int cc_spmd_tuple_target(const cc_parser *p)
{
    uint32_t k = 0;
    for (const cc_token *t = cc_peek_at(p, 0); t->kind != CC_TOK_NEWLINE && t->kind != CC_TOK_EOF; t = cc_peek_at(p, ++k))
        if (t->kind == CC_TOK_NAME && t->len == 2 && !memcmp(p->src->text + t->off, "in", 2)) break;
    const cc_token *m = cc_peek_at(p, k + 3);
    return cc_peek_at(p, k + 1)->kind == CC_TOK_NAME && cc_peek_at(p, k + 2)->kind == CC_TOK_DOT && m->kind == CC_TOK_NAME &&
           m->len == 4 && !memcmp(p->src->text + m->off, "spmd", 4) && cc_peek_at(p, k + 4)->kind == CC_TOK_LPAREN;
}

/* A statement that opens a block: for, while, if, with. */
static cc_stmt *cc_parse_compound(cc_parser *p)
{
    const cc_token *kw = cc_next(p);
    const char *word = p->src->text + kw->off;
    cc_stmt *s;
    if (kw->len == 3 && !memcmp(word, "for", 3)) {
        const cc_token *v = cc_peek(p);
        if ((v->kind != CC_TOK_NAME || cc_peek_at(p, 1)->kind == CC_TOK_COMMA) && cc_spmd_tuple_target(p))
            return cc_error(p, CC_DIAG_SYNTAX, v->span, NULL, "for ... in pl.spmd(...) must use a single loop variable");
        cc_expr *target = cc_parse_targetlist(p);
        if (!target) return NULL;
        if (!cc_at_word(p, "in")) return cc_expected(p, "'in'");
        cc_next(p);
        cc_expr *iter = cc_parse_expr(p);
        if (!iter || !cc_expect(p, CC_TOK_COLON, "':'") || !(s = cc_stmt_new(p, CC_S_FOR, kw->span))) return NULL;
        /* `for i in`: var; `for i, (c, ...) in` / `for (c, ...) in`: the target, var its leading name */
        const cc_expr *lead = target->kind == CC_E_TUPLE ? target->u.seq.items[0] : target;
        if (target->kind != CC_E_NAME) s->u.for_.target = target;
        if (lead->kind == CC_E_NAME) s->u.for_.var = lead->u.name, s->u.for_.var_span = lead->span;
        s->u.for_.iter = iter;
        if (!cc_parse_block(p, &s->u.for_.body)) return NULL;
    } else if (kw->len == 5 && !memcmp(word, "while", 5)) {
        cc_expr *cond = cc_parse_expr(p);
        if (!cond || !cc_expect(p, CC_TOK_COLON, "':'") || !(s = cc_stmt_new(p, CC_S_WHILE, kw->span))) return NULL;
        s->u.while_.cond = cond;
        if (!cc_parse_block(p, &s->u.while_.body)) return NULL;
    } else if ((kw->len == 2 && !memcmp(word, "if", 2)) || (kw->len == 4 && !memcmp(word, "elif", 4))) {
        cc_expr *cond = cc_parse_expr(p);
        if (!cond || !cc_expect(p, CC_TOK_COLON, "':'") || !(s = cc_stmt_new(p, CC_S_IF, kw->span))) return NULL;
        s->u.if_.cond = cond;
        if (!cc_parse_block(p, &s->u.if_.then)) return NULL;
        if (cc_at_word(p, "elif")) {
            cc_stmt *e = cc_parse_compound(p);
            if (!e || !(s->u.if_.orelse.items = cc_new(p, sizeof(cc_stmt *)))) return NULL;
            s->u.if_.orelse.items[0] = e;
            s->u.if_.orelse.n = 1;
        } else if (cc_at_word(p, "else")) {
            cc_next(p);
            if (!cc_expect(p, CC_TOK_COLON, "':'") || !cc_parse_block(p, &s->u.if_.orelse)) return NULL;
        }
        return s;
    } else { /* with */
        cc_with_item *items = NULL;
        uint64_t n = 0, cap = 0;
        do {
            cc_expr *ctx = cc_parse_expr(p);
            if (!ctx) return free(items), NULL;
            if (n == cap) {
                cc_with_item *q = base_array_grow(items, &cap, sizeof *q, 2);
                if (!q) return free(items), p->oom = 1, NULL;
                items = q;
            }
            items[n] = (cc_with_item){ctx, NULL, {0, 0, 0, 0}};
            if (cc_at_word(p, "as")) {
                cc_next(p);
                const cc_token *a = cc_peek(p);
                if (a->kind != CC_TOK_NAME) return free(items), cc_expected(p, "a name after 'as'");
                cc_next(p);
                items[n].as_name = cc_tok_text(p, a);
                items[n].as_span = a->span;
            }
            n++;
        } while (cc_at(p, CC_TOK_COMMA) && cc_next(p));
        if (!cc_expect(p, CC_TOK_COLON, "':'") || !(s = cc_stmt_new(p, CC_S_WITH, kw->span))) return free(items), NULL;
        if (n && (s->u.with.items = cc_new(p, n * sizeof *items))) memcpy(s->u.with.items, items, n * sizeof *items);
        s->u.with.nitems = (uint32_t)n;
        free(items);
        if (!cc_parse_block(p, &s->u.with.body)) return NULL;
    }
    if (cc_at_word(p, "else")) return cc_unsupported_stmt(p, cc_peek(p)->span, "else after a loop");
    return s;
}

/* One statement of a DSL body; NULL after an error (the caller syncs). */
static cc_stmt *cc_parse_stmt(cc_parser *p)
{
    if (cc_at_word(p, "for") || cc_at_word(p, "while") || cc_at_word(p, "if") || cc_at_word(p, "with"))
        return cc_parse_compound(p);
    if (cc_at_word(p, "elif") || cc_at_word(p, "else"))
        return cc_error(p, CC_DIAG_SYNTAX, cc_peek(p)->span, NULL, "'elif' or 'else' without an 'if'");
    if (cc_at_word(p, "match") && cc_peek_at(p, 1)->kind == CC_TOK_NAME)
        return cc_unsupported_stmt(p, cc_peek(p)->span, "match");
    if (cc_at(p, CC_TOK_AT)) return cc_unsupported_stmt(p, cc_peek(p)->span, "nested def");
    cc_stmt *s = cc_parse_simple(p);
    if (!s) return NULL;
    if (cc_at(p, CC_TOK_SEMI)) return s; /* the caller parses the next one on this line */
    if (!cc_at(p, CC_TOK_NEWLINE)) return cc_expected(p, "the end of the statement");
    cc_next(p);
    return s;
}

/* ':' NEWLINE INDENT statement+ DEDENT (or a simple statement on the same
 * line). */
static int cc_parse_block(cc_parser *p, cc_block *out)
{
    cc_list stmts = {0};
    if (!cc_at(p, CC_TOK_NEWLINE)) { /* `if x: y = 1` */
        for (;;) {
            cc_stmt *s = cc_parse_simple(p);
            if (!s || !cc_list_push(p, &stmts, s)) return free(stmts.items), 0;
            if (!cc_at(p, CC_TOK_SEMI)) break;
            cc_next(p);
        }
        if (!cc_expect(p, CC_TOK_NEWLINE, "the end of the line")) return free(stmts.items), 0;
    } else {
        cc_next(p);
        if (!cc_at(p, CC_TOK_INDENT)) return free(stmts.items), cc_expected(p, "an indented block") != NULL;
        cc_next(p);
        while (!cc_at(p, CC_TOK_DEDENT) && !cc_at(p, CC_TOK_EOF) && !p->oom) {
            cc_stmt *s = cc_parse_stmt(p);
            if (!s) {
                cc_parse_sync(p);
                continue;
            }
            if (!cc_list_push(p, &stmts, s)) break;
            if (cc_at(p, CC_TOK_SEMI)) cc_next(p);
        }
        cc_next(p);
    }
    out->n = stmts.n;
    out->items = (cc_stmt **)cc_list_finish(p, &stmts);
    return !p->oom;
}

/* ---- functions and classes ------------------------------------------------------ */

static int cc_parse_params(cc_parser *p, cc_stmt *s)
{
    cc_param *params = NULL;
    uint64_t n = 0, cap = 0;
    while (!cc_at(p, CC_TOK_RPAREN)) {
        const cc_token *t = cc_peek(p);
        if (t->kind == CC_TOK_STAR || t->kind == CC_TOK_POW || t->kind == CC_TOK_SLASH) {
            cc_unsupported_stmt(p, t->span, t->kind == CC_TOK_SLASH ? "positional-only parameters" : "*args and **kwargs");
            return free(params), 0;
        }
        if (t->kind != CC_TOK_NAME || cc_is_keyword(p, t)) return free(params), cc_expected(p, "a parameter name") != NULL;
        cc_next(p);
        if (n == cap) {
            cc_param *q = base_array_grow(params, &cap, sizeof *q, 4);
            if (!q) return free(params), p->oom = 1, 0;
            params = q;
        }
        cc_param *pa = &params[n++];
        *pa = (cc_param){cc_tok_text(p, t), t->span, NULL, NULL};
        if (cc_at(p, CC_TOK_COLON)) {
            cc_next(p);
            if (!(pa->annotation = cc_parse_expr(p))) return free(params), 0;
        }
        if (cc_at(p, CC_TOK_ASSIGN)) {
            cc_next(p);
            if (!(pa->default_value = cc_parse_expr(p))) return free(params), 0;
        }
        if (!cc_at(p, CC_TOK_COMMA)) break;
        cc_next(p);
    }
    if (!cc_expect(p, CC_TOK_RPAREN, "')' to close the parameters")) return free(params), 0;
    if (n && (s->u.def.params = cc_new(p, n * sizeof *params))) memcpy(s->u.def.params, params, n * sizeof *params);
    s->u.def.nparams = (uint32_t)n;
    free(params);
    return !p->oom;
}

static void cc_set_decorators(cc_parser *p, cc_stmt *s, cc_list *decorators)
{
    s->u.def.ndecorators = decorators->n;
    s->u.def.decorators = (cc_expr **)cc_list_finish(p, decorators);
}

static cc_stmt *cc_parse_def(cc_parser *p, cc_list *decorators, cc_span start)
{
    cc_next(p); /* def */
    const cc_token *name = cc_peek(p);
    if (name->kind != CC_TOK_NAME) return cc_expected(p, "a function name");
    cc_next(p);
    cc_stmt *s = cc_stmt_new(p, CC_S_DEF, cc_join(start, name->span));
    if (!s) return NULL;
    s->u.def.name = cc_tok_text(p, name);
    s->u.def.name_span = name->span;
    cc_set_decorators(p, s, decorators);
    if (!cc_expect(p, CC_TOK_LPAREN, "'('") || !cc_parse_params(p, s)) return NULL;
    if (cc_at(p, CC_TOK_ARROW)) {
        cc_next(p);
        if (!(s->u.def.returns = cc_parse_expr(p))) return NULL;
    }
    if (!cc_expect(p, CC_TOK_COLON, "':'") || !cc_parse_block(p, &s->u.def.body)) return NULL;
    return s;
}

static cc_stmt *cc_parse_class(cc_parser *p, cc_list *decorators, cc_span start)
{
    cc_next(p); /* class */
    const cc_token *name = cc_peek(p);
    if (name->kind != CC_TOK_NAME) return cc_expected(p, "a class name");
    cc_next(p);
    cc_stmt *s = cc_stmt_new(p, CC_S_CLASS, cc_join(start, name->span));
    if (!s) return NULL;
    s->u.def.name = cc_tok_text(p, name);
    cc_set_decorators(p, s, decorators);
    if (cc_at(p, CC_TOK_LPAREN)) { /* class C(): and class C(object): are fine */
        cc_next(p);
        if (!cc_at(p, CC_TOK_RPAREN) && !cc_parse_expr(p)) return NULL;
        if (!cc_expect(p, CC_TOK_RPAREN, "')'")) return NULL;
    }
    if (!cc_expect(p, CC_TOK_COLON, "':'") || !cc_expect(p, CC_TOK_NEWLINE, "a new line after ':'") ||
        !cc_expect(p, CC_TOK_INDENT, "an indented class body"))
        return NULL;
    cc_list methods = {0};
    while (!cc_at(p, CC_TOK_DEDENT) && !cc_at(p, CC_TOK_EOF) && !p->oom) {
        cc_list decs = {0};
        cc_span at = cc_peek(p)->span;
        while (cc_at(p, CC_TOK_AT)) {
            cc_next(p);
            cc_expr *d = cc_parse_expr(p);
            if (!d || !cc_list_push(p, &decs, d) || !cc_expect(p, CC_TOK_NEWLINE, "a new line after the decorator")) break;
        }
        cc_stmt *m = NULL;
        if (cc_at_word(p, "def")) {
            m = cc_parse_def(p, &decs, at);
        } else if (cc_at_word(p, "async")) {
            cc_unsupported_stmt(p, cc_peek(p)->span, "async");
        } else if (!decs.n && (cc_at_word(p, "pass") || cc_at(p, CC_TOK_STRING))) {
            cc_next(p);
            cc_expect(p, CC_TOK_NEWLINE, "the end of the statement");
            continue;
        } else {
            cc_error(p, CC_DIAG_SYNTAX, cc_peek(p)->span, "put the code in a method",
                     "a @pl.program class may hold only methods");
        }
        free(decs.items);
        if (!m) {
            cc_parse_sync(p);
            continue;
        }
        cc_list_push(p, &methods, m);
    }
    cc_next(p);
    s->u.def.body.n = methods.n;
    s->u.def.body.items = (cc_stmt **)cc_list_finish(p, &methods);
    return s;
}

/* ---- the module -------------------------------------------------------------- */

/* Is e a constant expression a module constant may hold: literals, names
 * (of other constants, checked when used), attribute paths (pl dtypes and
 * enum members, checked where used), arithmetic on those, tuples and lists
 * of those, and a DynVar `pl.dynamic(<args>)` (checked where used: tc_dynamic.c)? */
static int cc_is_literal(const cc_expr *e)
{
    switch (e->kind) {
    case CC_E_INT: case CC_E_FLOAT: case CC_E_BOOL: case CC_E_STRING: case CC_E_NAME: return 1;
    case CC_E_UNARY: return e->u.un.op == CC_OP_NEG && cc_is_literal(e->u.un.operand);
    case CC_E_BINARY: return cc_is_literal(e->u.bin.left) && cc_is_literal(e->u.bin.right);
    case CC_E_ATTR: return e->u.attr.value->kind == CC_E_NAME || e->u.attr.value->kind == CC_E_ATTR;
    case CC_E_SUBSCRIPT: return cc_is_literal(e->u.sub.value) && cc_is_literal(e->u.sub.index); /* T = pl.Tensor[...] */
    case CC_E_CALL:
        return e->u.call.fn->kind == CC_E_ATTR && e->u.call.fn->u.attr.value->kind == CC_E_NAME &&
               !strcmp(e->u.call.fn->u.attr.name, "dynamic");
    case CC_E_TUPLE: case CC_E_LIST:
        for (uint32_t k = 0; k < e->u.seq.n; k++)
            if (!cc_is_literal(e->u.seq.items[k])) return 0;
        return 1;
    default: return 0;
    }
}

/* Reads `import pypto.language as X` / `from pypto import language as X`, and
 * `import pypto.language.distributed as D` / `from pypto.language import distributed as D`. */
static void cc_parse_import(cc_parser *p, cc_module *m)
{
    static const char *const forms[][8] = {{"import", "pypto", ".", "language", "as", NULL},
                                           {"from", "pypto", "import", "language", "as", NULL},
                                           {"import", "pypto", ".", "language", ".", "distributed", "as", NULL},
                                           {"from", "pypto", ".", "language", "import", "distributed", "as", NULL}};
    for (int f = 0; f < 4; f++) {
        uint32_t k = 0;
        for (; forms[f][k]; k++) {
            const cc_token *t = cc_peek_at(p, k);
            size_t n = strlen(forms[f][k]);
            if (t->len != n || memcmp(p->src->text + t->off, forms[f][k], n) != 0) break;
        }
        const cc_token *alias = cc_peek_at(p, k);
        if (!forms[f][k] && alias->kind == CC_TOK_NAME) *(f < 2 ? &m->pl_name : &m->pld_name) = cc_tok_text(p, alias);
    }
    cc_parse_sync(p);
}

static int cc_decorated_by_pl(const cc_module *m, cc_list *decs)
{
    for (uint32_t k = 0; k < decs->n; k++) {
        const cc_expr *e = decs->items[k];
        while (e->kind == CC_E_CALL || e->kind == CC_E_ATTR) e = e->kind == CC_E_CALL ? e->u.call.fn : e->u.attr.value;
        if (e->kind == CC_E_NAME && !strcmp(e->u.name, m->pl_name ? m->pl_name : "pl")) return 1;
    }
    return 0;
}

/* The module's reader: what it gathered so far. */
typedef struct cc_modparse {
    cc_parser p;
    cc_module *out;
    uint32_t line;     /* a nested entry's first line; 0: none */
    cc_stmt *target;   /* the @pl definition that holds line */
    cc_list defs;      /* the module's definitions, in file order */
    cc_list nested;    /* those beside the target, innermost block first */
    cc_constant *consts;
    uint64_t nconst, cap;
} cc_modparse;

enum { CC_MAX_ENCLOSING = 64 }; /* blocks entered around a nested entry (bounds the C stack) */

/* The last line the tokens before the cursor reach (layout tokens skipped). */
static uint32_t cc_last_line(const cc_parser *p)
{
    for (uint32_t k = p->i; k-- > 0;)
        if (p->t[k].kind != CC_TOK_NEWLINE && p->t[k].kind != CC_TOK_INDENT && p->t[k].kind != CC_TOK_DEDENT)
            return p->t[k].span.end_line;
    return 0;
}

static void cc_parse_items(cc_modparse *mp, uint32_t depth);

/* Skips plain Python: the statement at the cursor and its block; but a
 * block that holds the nested entry's line is read for @pl definitions,
 * one level deeper. */
static void cc_skip_or_enter(cc_modparse *mp, uint32_t depth)
{
    cc_parser *p = &mp->p;
    uint32_t start = p->i, body = p->i;
    cc_parse_sync(p);
    if (!mp->line || mp->target || depth + 1 >= CC_MAX_ENCLOSING) return;
    while (body < p->i && p->t[body].kind != CC_TOK_NEWLINE) body++;
    if (body + 1 >= p->i || p->t[body + 1].kind != CC_TOK_INDENT) return; /* no indented block */
    if (p->t[start].span.line > mp->line || cc_last_line(p) < mp->line) return;
    uint32_t end = p->i;
    p->i = body + 2;
    cc_parse_items(mp, depth + 1);
    if (p->i < end) p->i = end;
}

/* NAME (, NAME)* = literal at module level: module constants. */
static void cc_parse_constants(cc_modparse *mp)
{
    cc_parser *p = &mp->p;
    size_t ndiag = p->diags->n;
    cc_stmt *s = cc_parse_simple(p);
    cc_diags_truncate(p->diags, ndiag); /* plain Python at module level is not ours to judge */
    if (s && s->kind == CC_S_ASSIGN && cc_at(p, CC_TOK_NEWLINE)) {
        cc_expr *v = s->u.assign.value;
        uint32_t nt = s->u.assign.ntargets;
        int split = nt > 1 && (v->kind == CC_E_TUPLE || v->kind == CC_E_LIST) && v->u.seq.n == nt;
        for (uint32_t k = 0; k < nt && (nt == 1 || split); k++) {
            cc_expr *t = s->u.assign.targets[k], *val = split ? v->u.seq.items[k] : v;
            if (t->kind != CC_E_NAME || !cc_is_literal(val)) continue;
            if (mp->nconst == mp->cap) {
                cc_constant *q = base_array_grow(mp->consts, &mp->cap, sizeof *q, 8);
                if (!q) { p->oom = 1; break; }
                mp->consts = q;
            }
            mp->consts[mp->nconst++] = (cc_constant){t->u.name, t->span, val};
        }
    }
    cc_parse_sync(p);
}

/* One block's statements (depth 0: the module's, to EOF; deeper: a block
 * around the nested entry, to its DEDENT): imports, @pl definitions,
 * module constants; the rest is skipped (or entered). */
static void cc_parse_items(cc_modparse *mp, uint32_t depth)
{
    cc_parser *p = &mp->p;
    cc_list own = {0}, *defs = depth ? &own : &mp->defs;
    while (!cc_at(p, CC_TOK_EOF) && !p->oom) {
        if (depth && cc_at(p, CC_TOK_DEDENT)) {
            cc_next(p);
            break;
        }
        if (cc_at(p, CC_TOK_NEWLINE) || cc_at(p, CC_TOK_INDENT) || cc_at(p, CC_TOK_DEDENT)) {
            cc_next(p);
        } else if (cc_at_word(p, "import") || cc_at_word(p, "from")) {
            cc_parse_import(p, mp->out);
        } else if (cc_at(p, CC_TOK_AT)) {
            cc_list decs = {0};
            cc_span at = cc_peek(p)->span;
            size_t ndiag = p->diags->n;
            int ok = 1, pl_named = 0;
            while (ok && cc_at(p, CC_TOK_AT)) {
                cc_next(p);
                const cc_token *t = cc_peek(p);
                const char *pl = mp->out->pl_name ? mp->out->pl_name : "pl";
                pl_named |= t->kind == CC_TOK_NAME && t->len == strlen(pl) && !memcmp(p->src->text + t->off, pl, t->len);
                cc_expr *d = cc_parse_expr(p);
                ok = d && cc_list_push(p, &decs, d) && cc_expect(p, CC_TOK_NEWLINE, "a new line after the decorator");
            }
            int ours = ok && cc_decorated_by_pl(mp->out, &decs);
            if (!pl_named) cc_diags_truncate(p->diags, ndiag); /* a plain Python decorator is not ours to judge */
            if (ours && cc_at_word(p, "async")) {
                cc_unsupported_stmt(p, cc_peek(p)->span, "async");
                cc_parse_sync(p);
            } else if (ours && (cc_at_word(p, "def") || cc_at_word(p, "class"))) {
                cc_stmt *s = cc_at_word(p, "def") ? cc_parse_def(p, &decs, at) : cc_parse_class(p, &decs, at);
                if (s && depth && !mp->target && at.line <= mp->line && mp->line <= cc_last_line(p))
                    mp->target = s;
                else if (s)
                    cc_list_push(p, defs, s);
            } else {
                cc_skip_or_enter(mp, depth); /* not ours: plain Python (perhaps around the entry) */
            }
            free(decs.items);
        } else if (!depth && cc_peek(p)->kind == CC_TOK_NAME && !cc_is_keyword(p, cc_peek(p))) {
            cc_parse_constants(mp);
        } else {
            cc_skip_or_enter(mp, depth);
        }
    }
    for (uint32_t k = 0; k < own.n && !p->oom; k++) cc_list_push(p, &mp->nested, own.items[k]);
    free(own.items);
}

/* Is a definition named like s already among the n in list? */
static int cc_shadowed(cc_stmt *const *list, uint32_t n, const cc_stmt *s)
{
    for (uint32_t k = 0; k < n; k++)
        if (!strcmp(list[k]->u.def.name, s->u.def.name)) return 1;
    return 0;
}

int cc_parse(const cc_source *src, const cc_tokens *toks, base_arena *arena, cc_diags *diags, cc_module *out)
{
    return cc_parse_at(src, toks, 0, arena, diags, out);
}

int cc_parse_at(const cc_source *src, const cc_tokens *toks, int line, base_arena *arena, cc_diags *diags, cc_module *out)
{
    cc_modparse mp = {.p = {.src = src, .t = toks->items, .n = toks->n, .arena = arena, .diags = diags},
                      .out = out, .line = line > 0 ? (uint32_t)line : 0};
    cc_parser *p = &mp.p;
    memset(out, 0, sizeof *out);
    cc_parse_items(&mp, 0);
    if (mp.line) { /* the target, then the definitions it can see, inner before outer; a name once */
        cc_list all = {0};
        if (mp.target) cc_list_push(p, &all, mp.target);
        for (int pass = 0; pass < 2 && !p->oom; pass++) {
            cc_list *from = pass ? &mp.defs : &mp.nested;
            for (uint32_t k = 0; k < from->n; k++)
                if (!cc_shadowed((cc_stmt **)all.items, all.n, from->items[k])) cc_list_push(p, &all, from->items[k]);
            free(from->items);
        }
        mp.defs = all;
    }
    out->ndefs = mp.defs.n;
    out->defs = (cc_stmt **)cc_list_finish(p, &mp.defs);
    out->nconstants = (uint32_t)mp.nconst;
    if (mp.nconst && (out->constants = cc_new(p, mp.nconst * sizeof *mp.consts)))
        memcpy(out->constants, mp.consts, mp.nconst * sizeof *mp.consts);
    free(mp.consts);
    return p->oom ? -1 : 0;
}
