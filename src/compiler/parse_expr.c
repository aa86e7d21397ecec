/*
 * parse_expr.c - expressions of the DSL's Python subset.
 *
 * Precedence, lowest first: or, and, not, one comparison, + -, * / // %,
 * unary - +, then primaries with .name, (call) and [subscript] trailers
 * (a subscript's items may be slices lo:hi[:step]).
 * Python operators and forms outside the subset are named and rejected
 * (`<construct> is not supported in this version`).  Every function
 * consumes a token or reports an error and returns NULL.
 */
#include "compiler/parse.h"

#include <stdio.h>
#include <stdlib.h>

#include "base/array.h"

static cc_expr *cc_expr_new(cc_parser *p, cc_expr_kind k, cc_span sp)
{
    cc_expr *e = cc_new(p, sizeof *e);
    if (e) e->kind = k, e->span = sp, e->depth = 1;
    return e;
}

/* parent is one level above child. */
static void cc_deepen(cc_expr *parent, const cc_expr *child)
{
    if (child && child->depth + 1 > parent->depth) parent->depth = child->depth + 1;
}

/* A tree deeper than CC_MAX_EXPR_DEPTH (one long chain of operators, or
 * deep nesting) is an error, reported where the expression starts. */
static cc_expr *cc_depth_checked(cc_parser *p, cc_expr *e)
{
    if (!e || e->depth <= CC_MAX_EXPR_DEPTH) return e;
    return cc_error(p, CC_DIAG_SYNTAX, e->span, "split it into several statements",
                    "expression nests too deeply (more than 200 levels)");
}

/* Enters one more level of parse-function recursion, or reports. */
static int cc_enter(cc_parser *p)
{
    if (p->nest > CC_MAX_EXPR_DEPTH) { /* one frame per level, and the statement's own */
        cc_error(p, CC_DIAG_SYNTAX, cc_peek(p)->span, "split it into several statements",
                 "expression nests too deeply (more than 200 levels)");
        return 0;
    }
    p->nest++;
    return 1;
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
        for (uint32_t k = 0; e->u.seq.items && k < e->u.seq.n; k++) cc_deepen(e, e->u.seq.items[k]);
        return cc_depth_checked(p, e);
    }
    case CC_TOK_LBRACE:
        return cc_unsupported_expr(p, t->span, "a dict or set literal");
    case CC_TOK_ELLIPSIS:
        return cc_unsupported_expr(p, t->span, "'...'");
    case CC_TOK_STAR: { /* x, *rest = ...; [*a, b]: a call's f(*a) is cc_parse_call's */
        const cc_token *n = cc_peek_at(p, 1);
        return cc_unsupported_expr(p, n->kind == CC_TOK_NAME ? cc_join(t->span, n->span) : t->span, "starred unpacking");
    }
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
    cc_deepen(e, fn);
    for (uint32_t k = 0; e->u.call.args && k < e->u.call.nargs; k++) cc_deepen(e, e->u.call.args[k]);
    for (uint32_t k = 0; e->u.call.kws && k < e->u.call.nkws; k++) cc_deepen(e, e->u.call.kws[k].value);
    return cc_depth_checked(p, e);
oom:
    p->oom = 1;
fail:
    free(args.items);
    free(kws);
    return NULL;
}

/* One subscript item: an expression, or a slice lo:hi[:step] with any
 * part omitted (`:`, `a:`, `:b`, `::2`). */
static cc_expr *cc_parse_subscript_item(cc_parser *p)
{
    cc_expr *lo = NULL, *hi = NULL, *step = NULL;
    if (!cc_at(p, CC_TOK_COLON)) {
        if (!(lo = cc_parse_expr(p)) || !cc_at(p, CC_TOK_COLON)) return lo;
    }
    cc_span sp = lo ? lo->span : cc_peek(p)->span;
    cc_next(p); /* ':' */
#define CC_SLICE_END(p) (cc_at(p, CC_TOK_COMMA) || cc_at(p, CC_TOK_RBRACKET) || cc_at(p, CC_TOK_COLON))
    if (!CC_SLICE_END(p) && !(hi = cc_parse_expr(p))) return NULL;
    int has_step = cc_at(p, CC_TOK_COLON);
    if (has_step) {
        cc_next(p);
        if (!CC_SLICE_END(p) && !(step = cc_parse_expr(p))) return NULL;
    }
#undef CC_SLICE_END
    cc_expr *e = cc_expr_new(p, CC_E_SLICE, cc_join(sp, p->t[p->i - 1].span));
    if (!e) return NULL;
    e->u.slice.lo = lo, e->u.slice.hi = hi, e->u.slice.step = step, e->u.slice.has_step = has_step;
    cc_deepen(e, lo), cc_deepen(e, hi), cc_deepen(e, step);
    return e;
}

/* Subscript items up to ']' (after '['), separated by commas; a trailing
 * comma is allowed and makes a tuple (*comma). */
static int cc_parse_subscript_items(cc_parser *p, cc_list *items, int *comma)
{
    *comma = 0;
    while (!cc_at(p, CC_TOK_RBRACKET)) {
        cc_expr *e = cc_parse_subscript_item(p);
        if (!e || !cc_list_push(p, items, e)) return 0;
        if (cc_at_word(p, "for")) return cc_unsupported_expr(p, cc_peek(p)->span, "a comprehension") != NULL;
        if (!cc_at(p, CC_TOK_COMMA)) break;
        *comma = 1;
        cc_next(p);
    }
    return cc_expect(p, CC_TOK_RBRACKET, "']'");
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
            cc_deepen(a, e);
            e = cc_depth_checked(p, a);
        } else if (t->kind == CC_TOK_LPAREN) {
            cc_next(p);
            e = cc_parse_call(p, e);
        } else if (t->kind == CC_TOK_LBRACKET) {
            cc_next(p);
            cc_list items = {0};
            int comma;
            if (!cc_parse_subscript_items(p, &items, &comma)) return free(items.items), NULL;
            cc_span sp = cc_join(e->span, p->t[p->i - 1].span);
            cc_expr *index;
            if (items.n == 1 && !comma) {
                index = items.items[0];
                free(items.items);
            } else {
                if (!(index = cc_expr_new(p, CC_E_TUPLE, sp))) return free(items.items), NULL;
                index->u.seq.n = items.n;
                index->u.seq.items = (cc_expr **)cc_list_finish(p, &items);
                for (uint32_t k = 0; index->u.seq.items && k < index->u.seq.n; k++) cc_deepen(index, index->u.seq.items[k]);
            }
            cc_expr *s = cc_expr_new(p, CC_E_SUBSCRIPT, sp);
            if (!s) return NULL;
            s->u.sub.value = e;
            s->u.sub.index = index;
            cc_deepen(s, e), cc_deepen(s, index);
            e = cc_depth_checked(p, s);
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
    if (e) e->u.bin.op = op, e->u.bin.left = l, e->u.bin.right = r, cc_deepen(e, l), cc_deepen(e, r);
    return cc_depth_checked(p, e);
}

static cc_expr *cc_parse_unary(cc_parser *p)
{
    const cc_token *t = cc_peek(p);
    if (t->kind == CC_TOK_MINUS || t->kind == CC_TOK_PLUS || t->kind == CC_TOK_TILDE) {
        cc_next(p);
        if (!cc_enter(p)) return NULL;
        cc_expr *o = cc_parse_unary(p);
        p->nest--;
        if (!o) return NULL;
        cc_expr *e = cc_expr_new(p, CC_E_UNARY, cc_join(t->span, o->span));
        if (e) e->u.un.op = t->kind == CC_TOK_MINUS ? CC_OP_NEG : t->kind == CC_TOK_PLUS ? CC_OP_POS : CC_OP_INVERT, e->u.un.operand = o, cc_deepen(e, o);
        return cc_depth_checked(p, e);
    }
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
    return e;
}

/* Python's bitwise levels, tightest first: << >>, &, ^, |. */
static cc_expr *cc_parse_bitwise(cc_parser *p, int level)
{
    static const struct { cc_token_kind k; cc_op op; } ops[] = {
        {CC_TOK_PIPE, CC_OP_BITOR}, {CC_TOK_CARET, CC_OP_BITXOR}, {CC_TOK_AMP, CC_OP_BITAND}, {CC_TOK_LSHIFT, CC_OP_LSHIFT}, {CC_TOK_RSHIFT, CC_OP_RSHIFT}};
    /* level 0: |, 1: ^, 2: &, 3: shifts (ops[3] and ops[4]) */
    cc_expr *e = level == 3 ? cc_parse_arith(p) : cc_parse_bitwise(p, level + 1);
    for (;;) {
        cc_token_kind k = cc_peek(p)->kind;
        int hit = -1;
        for (int i = level; i <= (level == 3 ? 4 : level); i++)
            if (k == ops[i].k) hit = i;
        if (!e || hit < 0) return e;
        cc_next(p);
        e = cc_make_binary(p, CC_E_BINARY, ops[hit].op, e, level == 3 ? cc_parse_arith(p) : cc_parse_bitwise(p, level + 1));
    }
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
    cc_expr *e = cc_parse_bitwise(p, 0);
    cc_op op;
    if (e && (cc_at_word(p, "in") || cc_at_word(p, "is") ||
              (cc_at_word(p, "not") && cc_peek_at(p, 1)->kind == CC_TOK_NAME)))
        return cc_unsupported_expr(p, cc_peek(p)->span, "an 'in' or 'is' comparison");
    if (!e || !cc_compare_op(p, &op)) return e;
    cc_next(p);
    e = cc_make_binary(p, CC_E_COMPARE, op, e, cc_parse_bitwise(p, 0));
    if (e && cc_compare_op(p, &op)) return cc_unsupported_expr(p, cc_peek(p)->span, "a chained comparison");
    return e;
}

static cc_expr *cc_parse_not(cc_parser *p)
{
    if (!cc_at_word(p, "not")) return cc_parse_comparison(p);
    const cc_token *t = cc_next(p);
    if (!cc_enter(p)) return NULL;
    cc_expr *o = cc_parse_not(p);
    p->nest--;
    if (!o) return NULL;
    cc_expr *e = cc_expr_new(p, CC_E_UNARY, cc_join(t->span, o->span));
    if (e) e->u.un.op = CC_OP_NOT, e->u.un.operand = o, cc_deepen(e, o);
    return cc_depth_checked(p, e);
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

cc_expr *cc_parse_expr(cc_parser *p)
{
    if (!cc_enter(p)) return NULL;
    cc_expr *e = cc_parse_and(p);
    p->nest--;
    while (e && cc_at_word(p, "or")) {
        cc_next(p);
        e = cc_make_binary(p, CC_E_BOOLOP, CC_OP_OR, e, cc_parse_and(p));
    }
    if (e && cc_at_word(p, "if")) return cc_unsupported_expr(p, cc_peek(p)->span, "a conditional expression");
    if (e && cc_at(p, CC_TOK_WALRUS)) return cc_unsupported_stmt(p, cc_peek(p)->span, ":=");
    return e;
}

/* Items separated by commas (a trailing one allowed) until a newline, '=',
 * ':' or the word `in`, each parsed by item; one without a comma is itself. */
static cc_expr *cc_parse_list_of(cc_parser *p, cc_expr *(*item)(cc_parser *))
{
    cc_expr *first = item(p);
    if (!first || !cc_at(p, CC_TOK_COMMA)) return first;
    cc_list items = {0};
    cc_list_push(p, &items, first);
    while (cc_at(p, CC_TOK_COMMA)) {
        cc_next(p);
        if (cc_at(p, CC_TOK_NEWLINE) || cc_at(p, CC_TOK_ASSIGN) || cc_at(p, CC_TOK_COLON) || cc_at_word(p, "in")) break;
        cc_expr *e = item(p);
        if (!e || !cc_list_push(p, &items, e)) return free(items.items), NULL;
    }
    cc_expr *t = cc_expr_new(p, CC_E_TUPLE, cc_join(first->span, ((cc_expr *)items.items[items.n - 1])->span));
    if (!t) return free(items.items), NULL;
    t->u.seq.n = items.n;
    t->u.seq.items = (cc_expr **)cc_list_finish(p, &items);
    for (uint32_t k = 0; t->u.seq.items && k < t->u.seq.n; k++) cc_deepen(t, t->u.seq.items[k]);
    return cc_depth_checked(p, t);
}

cc_expr *cc_parse_exprlist(cc_parser *p) { return cc_parse_list_of(p, cc_parse_expr); }

cc_expr *cc_parse_targetlist(cc_parser *p) { return cc_parse_list_of(p, cc_parse_primary); }
