/*
 * parse.h - the parser's state and the helpers its files share (parse.c:
 * errors, recovery, node lists; parse_expr.c: expressions; parser.c:
 * statements, functions, classes, the module).
 */
#ifndef CC_PARSE_H
#define CC_PARSE_H

#include <string.h>

#include "compiler/parser.h"

typedef struct cc_parser {
    const cc_source *src;
    const cc_token *t;
    uint32_t n, i;
    base_arena *arena;
    cc_diags *diags;
    int oom;
    int nest; /* parse functions active for one expression (bounded: the C stack) */
} cc_parser;

/* ---- tokens ----------------------------------------------------------------- */

static inline const cc_token *cc_peek(const cc_parser *p) { return &p->t[p->i]; }
static inline const cc_token *cc_peek_at(const cc_parser *p, uint32_t k)
{
    return &p->t[p->i + k < p->n ? p->i + k : p->n - 1];
}
static inline const cc_token *cc_next(cc_parser *p)
{
    const cc_token *t = &p->t[p->i];
    if (t->kind != CC_TOK_EOF) p->i++;
    return t;
}
static inline int cc_at(const cc_parser *p, cc_token_kind k) { return cc_peek(p)->kind == k; }

/* Is the current token the name (keyword) kw? */
static inline int cc_at_word(const cc_parser *p, const char *kw)
{
    const cc_token *t = cc_peek(p);
    size_t n = strlen(kw);
    return t->kind == CC_TOK_NAME && t->len == n && memcmp(p->src->text + t->off, kw, n) == 0;
}

static inline cc_span cc_join(cc_span a, cc_span b)
{
    return (cc_span){a.line, a.col, b.end_line, b.end_col};
}

/* Is t a Python keyword? */
int cc_is_keyword(const cc_parser *p, const cc_token *t);
/* t's text, in the arena. */
const char *cc_tok_text(cc_parser *p, const cc_token *t);
/* n zeroed bytes in the arena (sets oom on failure). */
void *cc_new(cc_parser *p, size_t n);

/* Diagnostics; each returns NULL so a parse function can return it. */
void *cc_error(cc_parser *p, cc_diag_class cls, cc_span sp, const char *hint, const char *msg);
/* "expected <what>, got <the current token>". */
void *cc_expected(cc_parser *p, const char *what);
/* "<construct> is not supported in this version". */
void *cc_unsupported_expr(cc_parser *p, cc_span sp, const char *construct);
/* "Python '<construct>' is not supported in kernel code". */
void *cc_unsupported_stmt(cc_parser *p, cc_span sp, const char *construct);
/* Consumes a token of kind k, or reports "expected <what>" and returns 0. */
int cc_expect(cc_parser *p, cc_token_kind k, const char *what);
/* Skips the rest of the statement (to its NEWLINE) and the block it opens,
 * or a stray indented block.  Consumes at least one token unless at a
 * DEDENT or EOF, which end the enclosing block anyway. */
void cc_parse_sync(cc_parser *p);

/* A list of nodes growing in malloc'd scratch memory. */
typedef struct cc_list {
    void **items;
    uint32_t n;
    uint64_t cap;
} cc_list;
int cc_list_push(cc_parser *p, cc_list *l, void *x);
/* Moves a list into the arena (the scratch array is freed). */
void **cc_list_finish(cc_parser *p, cc_list *l);

/* parse_expr.c */
cc_expr *cc_parse_expr(cc_parser *p);
/* expr (',' expr)*: one expression, or a tuple without parentheses. */
cc_expr *cc_parse_exprlist(cc_parser *p);
/* A for statement's target list (before `in`): primaries separated by commas, a tuple
 * when there is a comma; the type checker judges its shape (DSL-V2-SPEC §6). */
cc_expr *cc_parse_targetlist(cc_parser *p);

#endif
