/*
 * parse.c - what the parser's files share (see parse.h): keywords, arena
 * helpers, diagnostics, recovery after an error, node lists.
 */
#include "compiler/parse.h"

#include <stdio.h>
#include <stdlib.h>

#include "base/array.h"

const char *cc_op_text(cc_op op)
{
    static const char *const texts[] = {"+", "-", "*", "/", "//", "%", "-", "+", "not",
                                        "==", "!=", "<", "<=", ">", ">=", "and", "or", "min", "max",
                                        "|", "^", "&", "<<", ">>", "~"};
    return (unsigned)op < sizeof texts / sizeof texts[0] ? texts[op] : "?";
}

static const char *const cc_keywords[] = {
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield"};

int cc_is_keyword(const cc_parser *p, const cc_token *t)
{
    if (t->kind != CC_TOK_NAME) return 0;
    for (size_t k = 0; k < sizeof cc_keywords / sizeof cc_keywords[0]; k++)
        if (strlen(cc_keywords[k]) == t->len && memcmp(p->src->text + t->off, cc_keywords[k], t->len) == 0) return 1;
    return 0;
}

const char *cc_tok_text(cc_parser *p, const cc_token *t)
{
    const char *s = base_arena_strndup(p->arena, p->src->text + t->off, t->len);
    if (!s) p->oom = 1;
    return s;
}

void *cc_new(cc_parser *p, size_t n)
{
    void *x = base_arena_alloc(p->arena, n);
    if (!x) p->oom = 1;
    return x;
}


/* ---- errors ----------------------------------------------------------------- */

void *cc_error(cc_parser *p, cc_diag_class cls, cc_span sp, const char *hint, const char *msg)
{
    cc_diag_add(p->diags, cls, sp, hint, "%s", msg);
    return NULL;
}

/* "expected X, got Y" at the current token. */
void *cc_expected(cc_parser *p, const char *what)
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

void *cc_unsupported_expr(cc_parser *p, cc_span sp, const char *construct)
{
    char msg[160];
    snprintf(msg, sizeof msg, "%s is not supported in this version", construct);
    return cc_error(p, CC_DIAG_UNSUPPORTED, sp, NULL, msg);
}

void *cc_unsupported_stmt(cc_parser *p, cc_span sp, const char *construct)
{
    char msg[160];
    snprintf(msg, sizeof msg, "Python '%s' is not supported in kernel code", construct);
    return cc_error(p, CC_DIAG_UNSUPPORTED, sp, NULL, msg);
}

int cc_expect(cc_parser *p, cc_token_kind k, const char *what)
{
    if (cc_at(p, k)) {
        cc_next(p);
        return 1;
    }
    cc_expected(p, what);
    return 0;
}

void cc_parse_sync(cc_parser *p)
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

int cc_list_push(cc_parser *p, cc_list *l, void *x)
{
    if (l->n == l->cap) {
        void **q = base_array_grow(l->items, &l->cap, sizeof *q, 8);
        if (!q) return p->oom = 1, 0;
        l->items = q;
    }
    l->items[l->n++] = x;
    return 1;
}

void **cc_list_finish(cc_parser *p, cc_list *l)
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
