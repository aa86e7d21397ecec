/*
 * parser.c - the DSL's Python-subset parser (see parser.h).
 *
 * Precedence, lowest first: or, and, not, one comparison, + -, * / // %,
 * unary - +, then primaries with .name, (call) and [subscript] trailers.
 * Invariants: every parse function consumes at least one token or reports
 * an error; an error unwinds to the statement level (a NULL result), where
 * cc_parse_sync moves to the next statement, so the token index only grows
 * and the parser always ends at EOF.
 */
#include "compiler/parser.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"

typedef struct cc_parser {
    const cc_source *src;
    const cc_token *t;
    uint32_t n, i;
    base_arena *arena;
    cc_diags *diags;
    int oom;
} cc_parser;

const char *cc_op_text(cc_op op)
{
    static const char *const texts[] = {"+", "-", "*", "/", "//", "%", "-", "+", "not",
                                        "==", "!=", "<", "<=", ">", ">=", "and", "or"};
    return (unsigned)op < sizeof texts / sizeof texts[0] ? texts[op] : "?";
}

/* ---- tokens ----------------------------------------------------------------- */

static const cc_token *cc_peek(const cc_parser *p) { return &p->t[p->i]; }
static const cc_token *cc_peek_at(const cc_parser *p, uint32_t k)
{
    return &p->t[p->i + k < p->n ? p->i + k : p->n - 1];
}
static const cc_token *cc_next(cc_parser *p)
{
    const cc_token *t = &p->t[p->i];
    if (t->kind != CC_TOK_EOF) p->i++;
    return t;
}
static int cc_at(const cc_parser *p, cc_token_kind k) { return cc_peek(p)->kind == k; }

/* Is the current token the name (keyword) kw? */
static int cc_at_word(const cc_parser *p, const char *kw)
{
    const cc_token *t = cc_peek(p);
    size_t n = strlen(kw);
    return t->kind == CC_TOK_NAME && t->len == n && memcmp(p->src->text + t->off, kw, n) == 0;
}

static const char *const cc_keywords[] = {
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield"};

static int cc_is_keyword(const cc_parser *p, const cc_token *t)
{
    if (t->kind != CC_TOK_NAME) return 0;
    for (size_t k = 0; k < sizeof cc_keywords / sizeof cc_keywords[0]; k++)
        if (strlen(cc_keywords[k]) == t->len && memcmp(p->src->text + t->off, cc_keywords[k], t->len) == 0) return 1;
    return 0;
}

static cc_span cc_join(cc_span a, cc_span b)
{
    return (cc_span){a.line, a.col, b.end_line, b.end_col};
}

static const char *cc_tok_text(cc_parser *p, const cc_token *t)
{
    const char *s = base_arena_strndup(p->arena, p->src->text + t->off, t->len);
    if (!s) p->oom = 1;
    return s;
}

static void *cc_new(cc_parser *p, size_t n)
{
    void *x = base_arena_alloc(p->arena, n);
    if (!x) p->oom = 1;
    return x;
}

/* ---- errors ----------------------------------------------------------------- */

static void *cc_error(cc_parser *p, cc_diag_class cls, cc_span sp, const char *hint, const char *msg)
{
    cc_diag_add(p->diags, cls, sp, hint, "%s", msg);
    return NULL;
}

/* "expected X, got Y" at the current token. */
static void *cc_expected(cc_parser *p, const char *what)
{
    const cc_token *t = cc_peek(p);
    char msg[160];
    if (t->kind == CC_TOK_NAME || t->kind == CC_TOK_INT || t->kind == CC_TOK_FLOAT)
        snprintf(msg, sizeof msg, "expected %s, got '%.*s'", what, (int)(t->len > 40 ? 40 : t->len),
                 p->src->text + t->off);
    else
        snprintf(msg, sizeof msg, "expected %s, got %s", what, cc_token_kind_text(t->kind));
    return cc_error(p, CC_DIAG_SYNTAX, t->span, NULL, msg);
}

static void *cc_unsupported_expr(cc_parser *p, cc_span sp, const char *construct)
{
    char msg[160];
    snprintf(msg, sizeof msg, "%s is not supported in this version", construct);
    return cc_error(p, CC_DIAG_UNSUPPORTED, sp, NULL, msg);
}

static void *cc_unsupported_stmt(cc_parser *p, cc_span sp, const char *construct)
{
    char msg[160];
    snprintf(msg, sizeof msg, "Python '%s' is not supported in kernel code", construct);
    return cc_error(p, CC_DIAG_UNSUPPORTED, sp, NULL, msg);
}

static int cc_expect(cc_parser *p, cc_token_kind k, const char *what)
{
    if (cc_at(p, k)) {
        cc_next(p);
        return 1;
    }
    cc_expected(p, what);
    return 0;
}

/* Skips the rest of the statement (to its NEWLINE) and the block it opens,
 * or a stray indented block.  Consumes at least one token unless at a
 * DEDENT or EOF, which end the enclosing block anyway. */
static void cc_parse_sync(cc_parser *p)
{
    while (!cc_at(p, CC_TOK_NEWLINE) && !cc_at(p, CC_TOK_EOF) && !cc_at(p, CC_TOK_INDENT) && !cc_at(p, CC_TOK_DEDENT))
        cc_next(p);
    if (cc_at(p, CC_TOK_NEWLINE)) cc_next(p);
    if (cc_at(p, CC_TOK_INDENT)) {
        int depth = 0;
        do {
            depth += cc_at(p, CC_TOK_INDENT) - cc_at(p, CC_TOK_DEDENT);
            cc_next(p);
        } while (depth > 0 && !cc_at(p, CC_TOK_EOF));
    }
}

/* ---- growable node lists ---------------------------------------------------- */

typedef struct cc_list {
    void **items;
    uint32_t n;
    uint64_t cap;
} cc_list;

static int cc_list_push(cc_parser *p, cc_list *l, void *x)
{
    if (l->n == l->cap) {
        void **q = base_array_grow(l->items, &l->cap, sizeof *q, 8);
        if (!q) return p->oom = 1, 0;
        l->items = q;
    }
    l->items[l->n++] = x;
    return 1;
}

/* Moves a list into the arena (the scratch array is freed). */
static void **cc_list_finish(cc_parser *p, cc_list *l)
{
    void **out = NULL;
    if (l->n) {
        out = cc_new(p, l->n * sizeof *out);
        if (out) memcpy(out, l->items, l->n * sizeof *out);
    }
    free(l->items);
    l->items = NULL;
    return out;
}

/* ---- expressions ------------------------------------------------------------ */

static cc_expr *cc_parse_expr(cc_parser *p);

static cc_expr *cc_expr_new(cc_parser *p, cc_expr_kind k, cc_span sp)
{
    cc_expr *e = cc_new(p, sizeof *e);
    if (e) e->kind = k, e->span = sp;
    return e;
}

/* Items up to `close`, separated by commas; a trailing comma is allowed.
 * *comma tells whether there was one (a parenthesized tuple). */
static int cc_parse_items(cc_parser *p, cc_token_kind close, cc_list *items, int *comma)
{
    *comma = 0;
    while (!cc_at(p, close)) {
        cc_expr *e = cc_parse_expr(p);
        if (!e || !cc_list_push(p, items, e)) return 0;
        if (cc_at_word(p, "for")) return cc_unsupported_expr(p, cc_peek(p)->span, "a comprehension") != NULL;
        if (!cc_at(p, CC_TOK_COMMA)) break;
        *comma = 1;
        cc_next(p);
    }
    return cc_expect(p, close, close == CC_TOK_RPAREN ? "')'" : "']'");
}

static cc_expr *cc_parse_atom(cc_parser *p)
{
    const cc_token *t = cc_peek(p);
    cc_expr *e;
    switch (t->kind) {
    case CC_TOK_INT:
    case CC_TOK_FLOAT:
        cc_next(p);
        if (!(e = cc_expr_new(p, t->kind == CC_TOK_INT ? CC_E_INT : CC_E_FLOAT, t->span))) return NULL;
        if (t->kind == CC_TOK_INT) e->u.i = t->value.i;
        else e->u.f = t->value.f;
        return e;
    case CC_TOK_STRING: {
        cc_span sp = t->span;
        char *all = NULL;
        size_t total = 0;
        while (cc_at(p, CC_TOK_STRING)) { /* adjacent literals concatenate */
            const cc_token *s = cc_next(p);
            const char *pre = p->src->text + s->off;
            for (uint32_t k = 0; k + 1 < s->string_quote; k++)
                if ((pre[k] | 0x20) == 'f' || (pre[k] | 0x20) == 'b') {
                    free(all);
                    return cc_unsupported_expr(p, s->span, (pre[k] | 0x20) == 'f' ? "an f-string" : "a bytes literal");
                }
            size_t n;
            char *v = cc_token_string(p->src, s, &n);
            char *grown = v ? realloc(all, total + n + 1) : NULL;
            if (!grown) {
                free(v), free(all);
                p->oom = 1;
                return NULL;
            }
            all = grown;
            memcpy(all + total, v, n + 1);
            total += n;
            free(v);
            sp = cc_join(sp, s->span);
        }
        e = cc_expr_new(p, CC_E_STRING, sp);
        if (e && !(e->u.str.text = base_arena_strndup(p->arena, all, total))) p->oom = 1;
        if (e) e->u.str.len = (uint32_t)total;
        free(all);
        return e;
    }
    case CC_TOK_NAME: {
        if (cc_at_word(p, "True") || cc_at_word(p, "False")) {
            cc_next(p);
            if ((e = cc_expr_new(p, CC_E_BOOL, t->span))) e->u.i = t->len == 4;
            return e;
        }
        if (cc_at_word(p, "None")) {
            cc_next(p);
            return cc_expr_new(p, CC_E_NONE, t->span);
        }
        if (cc_at_word(p, "lambda")) return cc_unsupported_expr(p, t->span, "a lambda");
        if (cc_at_word(p, "yield") || cc_at_word(p, "await"))
            return cc_unsupported_stmt(p, t->span, cc_at_word(p, "yield") ? "yield" : "await");
        if (cc_is_keyword(p, t)) return cc_expected(p, "an expression");
        cc_next(p);
        if ((e = cc_expr_new(p, CC_E_NAME, t->span))) e->u.name = cc_tok_text(p, t);
        return e;
    }
    case CC_TOK_LPAREN:
    case CC_TOK_LBRACKET: {
        int list = t->kind == CC_TOK_LBRACKET, comma;
        cc_next(p);
        cc_list items = {0};
        if (!cc_parse_items(p, list ? CC_TOK_RBRACKET : CC_TOK_RPAREN, &items, &comma)) {
            free(items.items);
            return NULL;
        }
        cc_span sp = cc_join(t->span, p->t[p->i - 1].span);
        if (!list && items.n == 1 && !comma) { /* parentheses only group */
            e = items.items[0];
            free(items.items);
            return e;
        }
        if (!(e = cc_expr_new(p, list ? CC_E_LIST : CC_E_TUPLE, sp))) return free(items.items), NULL;
        e->u.seq.n = items.n;
        e->u.seq.items = (cc_expr **)cc_list_finish(p, &items);
        return e;
    }
    case CC_TOK_LBRACE:
        return cc_unsupported_expr(p, t->span, "a dict or set literal");
    case CC_TOK_ELLIPSIS:
        return cc_unsupported_expr(p, t->span, "'...'");
    default:
        return cc_expected(p, "an expression");
    }
}

/* Call arguments after '(': positional, then keyword (name=value). */
static cc_expr *cc_parse_call(cc_parser *p, cc_expr *fn)
{
    cc_list args = {0};
    cc_keyword *kws = NULL;
    uint64_t nkw = 0, kwcap = 0;
    while (!cc_at(p, CC_TOK_RPAREN)) {
        const cc_token *t = cc_peek(p);
        if (t->kind == CC_TOK_STAR || t->kind == CC_TOK_POW) {
            cc_unsupported_expr(p, t->span, t->kind == CC_TOK_STAR ? "'*' argument unpacking" : "'**' argument unpacking");
            goto fail;
        }
        if (t->kind == CC_TOK_NAME && cc_peek_at(p, 1)->kind == CC_TOK_ASSIGN && !cc_is_keyword(p, t)) {
            cc_next(p), cc_next(p);
            cc_expr *v = cc_parse_expr(p);
            if (!v) goto fail;
            if (nkw == kwcap) {
                cc_keyword *q = base_array_grow(kws, &kwcap, sizeof *q, 4);
                if (!q) goto oom;
                kws = q;
            }
            kws[nkw++] = (cc_keyword){cc_tok_text(p, t), t->span, v};
        } else {
            if (nkw) {
                cc_error(p, CC_DIAG_SYNTAX, t->span, NULL, "positional argument follows keyword argument");
                goto fail;
            }
            cc_expr *a = cc_parse_expr(p);
            if (!a) goto fail;
            if (cc_at_word(p, "for")) {
                cc_unsupported_expr(p, cc_peek(p)->span, "a generator expression");
                goto fail;
            }
            if (!cc_list_push(p, &args, a)) goto fail;
        }
        if (!cc_at(p, CC_TOK_COMMA)) break;
        cc_next(p);
    }
    if (!cc_expect(p, CC_TOK_RPAREN, "')' to close the call")) goto fail;
    cc_expr *e = cc_expr_new(p, CC_E_CALL, cc_join(fn->span, p->t[p->i - 1].span));
    if (!e) goto fail;
    e->u.call.fn = fn;
    e->u.call.nargs = args.n;
    e->u.call.args = (cc_expr **)cc_list_finish(p, &args);
    e->u.call.nkws = (uint32_t)nkw;
    if (nkw && (e->u.call.kws = cc_new(p, nkw * sizeof *kws))) memcpy(e->u.call.kws, kws, nkw * sizeof *kws);
    free(kws);
    return e;
oom:
    p->oom = 1;
fail:
    free(args.items);
    free(kws);
    return NULL;
}

static cc_expr *cc_parse_primary(cc_parser *p)
{
    cc_expr *e = cc_parse_atom(p);
    while (e) {
        const cc_token *t = cc_peek(p);
        if (t->kind == CC_TOK_DOT) {
            cc_next(p);
            const cc_token *n = cc_peek(p);
            if (n->kind != CC_TOK_NAME) return cc_expected(p, "a name after '.'");
            cc_next(p);
            cc_expr *a = cc_expr_new(p, CC_E_ATTR, cc_join(e->span, n->span));
            if (!a) return NULL;
            a->u.attr.value = e;
            a->u.attr.name = cc_tok_text(p, n);
            e = a;
        } else if (t->kind == CC_TOK_LPAREN) {
            cc_next(p);
            e = cc_parse_call(p, e);
        } else if (t->kind == CC_TOK_LBRACKET) {
            cc_next(p);
            cc_list items = {0};
            int comma;
            for (uint32_t k = p->i; k < p->n && p->t[k].kind != CC_TOK_RBRACKET && p->t[k].kind != CC_TOK_NEWLINE; k++)
                if (p->t[k].kind == CC_TOK_COLON) return cc_unsupported_expr(p, p->t[k].span, "a slice");
            if (!cc_parse_items(p, CC_TOK_RBRACKET, &items, &comma)) return free(items.items), NULL;
            cc_span sp = cc_join(e->span, p->t[p->i - 1].span);
            cc_expr *index;
            if (items.n == 1 && !comma) {
                index = items.items[0];
                free(items.items);
            } else {
                if (!(index = cc_expr_new(p, CC_E_TUPLE, sp))) return free(items.items), NULL;
                index->u.seq.n = items.n;
                index->u.seq.items = (cc_expr **)cc_list_finish(p, &items);
            }
            cc_expr *s = cc_expr_new(p, CC_E_SUBSCRIPT, sp);
            if (!s) return NULL;
            s->u.sub.value = e;
            s->u.sub.index = index;
            e = s;
        } else {
            break;
        }
    }
    return e;
}

static cc_expr *cc_make_binary(cc_parser *p, cc_expr_kind k, cc_op op, cc_expr *l, cc_expr *r)
{
    if (!l || !r) return NULL;
    cc_expr *e = cc_expr_new(p, k, cc_join(l->span, r->span));
    if (e) e->u.bin.op = op, e->u.bin.left = l, e->u.bin.right = r;
    return e;
}

static cc_expr *cc_parse_unary(cc_parser *p)
{
    const cc_token *t = cc_peek(p);
    if (t->kind == CC_TOK_MINUS || t->kind == CC_TOK_PLUS) {
        cc_next(p);
        cc_expr *o = cc_parse_unary(p);
        if (!o) return NULL;
        cc_expr *e = cc_expr_new(p, CC_E_UNARY, cc_join(t->span, o->span));
        if (e) e->u.un.op = t->kind == CC_TOK_MINUS ? CC_OP_NEG : CC_OP_POS, e->u.un.operand = o;
        return e;
    }
    if (t->kind == CC_TOK_TILDE) return cc_unsupported_expr(p, t->span, "the '~' operator");
    cc_expr *e = cc_parse_primary(p);
    if (e && cc_at(p, CC_TOK_POW)) return cc_unsupported_expr(p, cc_peek(p)->span, "the '**' operator");
    return e;
}

static cc_expr *cc_parse_term(cc_parser *p)
{
    cc_expr *e = cc_parse_unary(p);
    for (;;) {
        cc_token_kind k = cc_peek(p)->kind;
        cc_op op;
        if (k == CC_TOK_STAR) op = CC_OP_MUL;
        else if (k == CC_TOK_SLASH) op = CC_OP_DIV;
        else if (k == CC_TOK_DSLASH) op = CC_OP_FLOORDIV;
        else if (k == CC_TOK_PERCENT) op = CC_OP_MOD;
        else if (k == CC_TOK_AT) return cc_unsupported_expr(p, cc_peek(p)->span, "the '@' operator");
        else return e;
        if (!e) return NULL;
        cc_next(p);
        e = cc_make_binary(p, CC_E_BINARY, op, e, cc_parse_unary(p));
    }
}

static cc_expr *cc_parse_arith(cc_parser *p)
{
    cc_expr *e = cc_parse_term(p);
    while (e && (cc_at(p, CC_TOK_PLUS) || cc_at(p, CC_TOK_MINUS))) {
        cc_op op = cc_at(p, CC_TOK_PLUS) ? CC_OP_ADD : CC_OP_SUB;
        cc_next(p);
        e = cc_make_binary(p, CC_E_BINARY, op, e, cc_parse_term(p));
    }
    if (e) {
        cc_token_kind k = cc_peek(p)->kind;
        if (k == CC_TOK_LSHIFT || k == CC_TOK_RSHIFT || k == CC_TOK_AMP || k == CC_TOK_PIPE || k == CC_TOK_CARET)
            return cc_unsupported_expr(p, cc_peek(p)->span, "a bitwise operator");
    }
    return e;
}

static int cc_compare_op(const cc_parser *p, cc_op *op)
{
    switch (cc_peek(p)->kind) {
    case CC_TOK_EQ: *op = CC_OP_EQ; return 1;
    case CC_TOK_NE: *op = CC_OP_NE; return 1;
    case CC_TOK_LT: *op = CC_OP_LT; return 1;
    case CC_TOK_LE: *op = CC_OP_LE; return 1;
    case CC_TOK_GT: *op = CC_OP_GT; return 1;
    case CC_TOK_GE: *op = CC_OP_GE; return 1;
    default: return 0;
    }
}

static cc_expr *cc_parse_comparison(cc_parser *p)
{
    cc_expr *e = cc_parse_arith(p);
    cc_op op;
    if (e && (cc_at_word(p, "in") || cc_at_word(p, "is") ||
              (cc_at_word(p, "not") && cc_peek_at(p, 1)->kind == CC_TOK_NAME)))
        return cc_unsupported_expr(p, cc_peek(p)->span, "'in' and 'is' comparisons");
    if (!e || !cc_compare_op(p, &op)) return e;
    cc_next(p);
    e = cc_make_binary(p, CC_E_COMPARE, op, e, cc_parse_arith(p));
    if (e && cc_compare_op(p, &op)) return cc_unsupported_expr(p, cc_peek(p)->span, "a chained comparison");
    return e;
}

static cc_expr *cc_parse_not(cc_parser *p)
{
    if (!cc_at_word(p, "not")) return cc_parse_comparison(p);
    const cc_token *t = cc_next(p);
    cc_expr *o = cc_parse_not(p);
    if (!o) return NULL;
    cc_expr *e = cc_expr_new(p, CC_E_UNARY, cc_join(t->span, o->span));
    if (e) e->u.un.op = CC_OP_NOT, e->u.un.operand = o;
    return e;
}

static cc_expr *cc_parse_and(cc_parser *p)
{
    cc_expr *e = cc_parse_not(p);
    while (e && cc_at_word(p, "and")) {
        cc_next(p);
        e = cc_make_binary(p, CC_E_BOOLOP, CC_OP_AND, e, cc_parse_not(p));
    }
    return e;
}

static cc_expr *cc_parse_expr(cc_parser *p)
{
    cc_expr *e = cc_parse_and(p);
    while (e && cc_at_word(p, "or")) {
        cc_next(p);
        e = cc_make_binary(p, CC_E_BOOLOP, CC_OP_OR, e, cc_parse_and(p));
    }
    if (e && cc_at_word(p, "if")) return cc_unsupported_expr(p, cc_peek(p)->span, "a conditional expression");
    if (e && cc_at(p, CC_TOK_WALRUS)) return cc_unsupported_stmt(p, cc_peek(p)->span, ":=");
    return e;
}

/* expr (',' expr)*: one expression, or a tuple without parentheses. */
static cc_expr *cc_parse_exprlist(cc_parser *p)
{
    cc_expr *first = cc_parse_expr(p);
    if (!first || !cc_at(p, CC_TOK_COMMA)) return first;
    cc_list items = {0};
    cc_list_push(p, &items, first);
    while (cc_at(p, CC_TOK_COMMA)) {
        cc_next(p);
        if (cc_at(p, CC_TOK_NEWLINE) || cc_at(p, CC_TOK_ASSIGN) || cc_at(p, CC_TOK_COLON)) break;
        cc_expr *e = cc_parse_expr(p);
        if (!e || !cc_list_push(p, &items, e)) return free(items.items), NULL;
    }
    cc_expr *t = cc_expr_new(p, CC_E_TUPLE, cc_join(first->span, ((cc_expr *)items.items[items.n - 1])->span));
    if (!t) return free(items.items), NULL;
    t->u.seq.n = items.n;
    t->u.seq.items = (cc_expr **)cc_list_finish(p, &items);
    return t;
}

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
            const char *what = !strcmp(rejected[k], "def") ? "nested def" : !strcmp(rejected[k], "class") ? "nested class" : rejected[k];
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

/* Is e a literal a module constant may hold? */
static int cc_is_literal(const cc_expr *e)
{
    switch (e->kind) {
    case CC_E_INT: case CC_E_FLOAT: case CC_E_BOOL: case CC_E_STRING: return 1;
    case CC_E_UNARY: return e->u.un.op == CC_OP_NEG && (e->u.un.operand->kind == CC_E_INT || e->u.un.operand->kind == CC_E_FLOAT);
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
            if (ok && cc_decorated_by_pl(out, &decs) && (cc_at_word(&p, "def") || cc_at_word(&p, "class"))) {
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
