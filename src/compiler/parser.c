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
        {CC_TOK_DSLASH_EQ, CC_OP_FLOORDIV}};
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

/* A statement that opens a block: for, while, if, with. */
static cc_stmt *cc_parse_compound(cc_parser *p)
{
    const cc_token *kw = cc_next(p);
    const char *word = p->src->text + kw->off;
    cc_stmt *s;
    if (kw->len == 3 && !memcmp(word, "for", 3)) {
        const cc_token *v = cc_peek(p);
        if (v->kind != CC_TOK_NAME || cc_peek_at(p, 1)->kind == CC_TOK_COMMA)
            return cc_unsupported_stmt(p, v->span, "for with a tuple target");
        cc_next(p);
        if (!cc_at_word(p, "in")) return cc_expected(p, "'in'");
        cc_next(p);
        cc_expr *iter = cc_parse_expr(p);
        if (!iter || !cc_expect(p, CC_TOK_COLON, "':'") || !(s = cc_stmt_new(p, CC_S_FOR, kw->span))) return NULL;
        s->u.for_.var = cc_tok_text(p, v);
        s->u.for_.var_span = v->span;
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
 * of those? */
static int cc_is_literal(const cc_expr *e)
{
    switch (e->kind) {
    case CC_E_INT: case CC_E_FLOAT: case CC_E_BOOL: case CC_E_STRING: case CC_E_NAME: return 1;
    case CC_E_UNARY: return e->u.un.op == CC_OP_NEG && cc_is_literal(e->u.un.operand);
    case CC_E_BINARY: return cc_is_literal(e->u.bin.left) && cc_is_literal(e->u.bin.right);
    case CC_E_ATTR: return e->u.attr.value->kind == CC_E_NAME || e->u.attr.value->kind == CC_E_ATTR;
    case CC_E_SUBSCRIPT: return cc_is_literal(e->u.sub.value) && cc_is_literal(e->u.sub.index); /* T = pl.Tensor[...] */
    case CC_E_TUPLE: case CC_E_LIST:
        for (uint32_t k = 0; k < e->u.seq.n; k++)
            if (!cc_is_literal(e->u.seq.items[k])) return 0;
        return 1;
    default: return 0;
    }
}

/* Reads `import pypto.language as X` / `from pypto import language as X`. */
static void cc_parse_import(cc_parser *p, cc_module *m)
{
    static const char *const forms[][6] = {{"import", "pypto", ".", "language", "as", NULL},
                                           {"from", "pypto", "import", "language", "as", NULL}};
    for (int f = 0; f < 2; f++) {
        uint32_t k = 0;
        for (; forms[f][k]; k++) {
            const cc_token *t = cc_peek_at(p, k);
            size_t n = strlen(forms[f][k]);
            if (t->len != n || memcmp(p->src->text + t->off, forms[f][k], n) != 0) break;
        }
        const cc_token *alias = cc_peek_at(p, k);
        if (!forms[f][k] && alias->kind == CC_TOK_NAME) m->pl_name = cc_tok_text(p, alias);
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

int cc_parse(const cc_source *src, const cc_tokens *toks, base_arena *arena, cc_diags *diags, cc_module *out)
{
    cc_parser p = {.src = src, .t = toks->items, .n = toks->n, .arena = arena, .diags = diags};
    cc_list defs = {0};
    cc_constant *consts = NULL;
    uint64_t nconst = 0, cap = 0;
    memset(out, 0, sizeof *out);
    while (!cc_at(&p, CC_TOK_EOF) && !p.oom) {
        if (cc_at(&p, CC_TOK_NEWLINE) || cc_at(&p, CC_TOK_INDENT) || cc_at(&p, CC_TOK_DEDENT)) {
            cc_next(&p);
        } else if (cc_at_word(&p, "import") || cc_at_word(&p, "from")) {
            cc_parse_import(&p, out);
        } else if (cc_at(&p, CC_TOK_AT)) {
            cc_list decs = {0};
            cc_span at = cc_peek(&p)->span;
            int ok = 1;
            while (ok && cc_at(&p, CC_TOK_AT)) {
                cc_next(&p);
                cc_expr *d = cc_parse_expr(&p);
                ok = d && cc_list_push(&p, &decs, d) && cc_expect(&p, CC_TOK_NEWLINE, "a new line after the decorator");
            }
            cc_stmt *s = NULL;
            if (ok && cc_decorated_by_pl(out, &decs) && cc_at_word(&p, "async")) {
                cc_unsupported_stmt(&p, cc_peek(&p)->span, "async");
                cc_parse_sync(&p);
            } else if (ok && cc_decorated_by_pl(out, &decs) && (cc_at_word(&p, "def") || cc_at_word(&p, "class"))) {
                s = cc_at_word(&p, "def") ? cc_parse_def(&p, &decs, at) : cc_parse_class(&p, &decs, at);
                if (s) cc_list_push(&p, &defs, s);
            } else {
                cc_parse_sync(&p); /* not ours: plain Python */
            }
            free(decs.items);
            if (!s && ok) continue;
        } else if (cc_peek(&p)->kind == CC_TOK_NAME && !cc_is_keyword(&p, cc_peek(&p))) {
            /* NAME (, NAME)* = literal: module constants; anything else is skipped */
            size_t ndiag = diags->n;
            cc_stmt *s = cc_parse_simple(&p);
            cc_diags_truncate(diags, ndiag); /* plain Python at module level is not ours to judge */
            if (s && s->kind == CC_S_ASSIGN && cc_at(&p, CC_TOK_NEWLINE)) {
                cc_expr *v = s->u.assign.value;
                uint32_t nt = s->u.assign.ntargets;
                int split = nt > 1 && (v->kind == CC_E_TUPLE || v->kind == CC_E_LIST) && v->u.seq.n == nt;
                for (uint32_t k = 0; k < nt && (nt == 1 || split); k++) {
                    cc_expr *t = s->u.assign.targets[k], *val = split ? v->u.seq.items[k] : v;
                    if (t->kind != CC_E_NAME || !cc_is_literal(val)) continue;
                    if (nconst == cap) {
                        cc_constant *q = base_array_grow(consts, &cap, sizeof *q, 8);
                        if (!q) { p.oom = 1; break; }
                        consts = q;
                    }
                    consts[nconst++] = (cc_constant){t->u.name, t->span, val};
                }
            }
            cc_parse_sync(&p);
        } else {
            cc_parse_sync(&p);
        }
    }
    out->ndefs = defs.n;
    out->defs = (cc_stmt **)cc_list_finish(&p, &defs);
    out->nconstants = (uint32_t)nconst;
    if (nconst && (out->constants = cc_new(&p, nconst * sizeof *consts))) memcpy(out->constants, consts, nconst * sizeof *consts);
    free(consts);
    return p.oom ? -1 : 0;
}
