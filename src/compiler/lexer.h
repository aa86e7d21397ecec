/*
 * lexer.h - the DSL's Python-subset tokens.
 *
 * Python's rules: a comment runs to the end of its line; a logical line
 * ends with NEWLINE, except inside brackets or after a backslash; the
 * indentation of a logical line's first token opens INDENT and closes
 * DEDENT tokens (tabs advance to the next multiple of 8); blank and
 * comment-only lines produce nothing.  The token list always ends with
 * NEWLINE (when the last line had tokens), the DEDENTs that close every
 * open block, and EOF, so the parser needs no special cases at the end.
 *
 * Bad input never stops the lexer: it records a diagnostic, skips the
 * offending bytes and goes on, so every input yields a well-formed list.
 */
#ifndef CC_LEXER_H
#define CC_LEXER_H

#include <stdint.h>

#include "compiler/diag.h"

/* Token kinds, X(NAME, spelling): operators and delimiters first (longest
 * spelling tried first is the lexer's business, not this order's). */
#define CC_TOKEN_LIST(X)                                                                   \
    X(EOF, "end of file") X(NEWLINE, "newline") X(INDENT, "indent") X(DEDENT, "dedent")   \
    X(NAME, "name") X(INT, "integer") X(FLOAT, "float") X(STRING, "string")               \
    X(LPAREN, "(") X(RPAREN, ")") X(LBRACKET, "[") X(RBRACKET, "]") X(LBRACE, "{")         \
    X(RBRACE, "}") X(COMMA, ",") X(COLON, ":") X(DOT, ".") X(SEMI, ";") X(AT, "@")         \
    X(ASSIGN, "=") X(ARROW, "->") X(WALRUS, ":=") X(PLUS, "+") X(MINUS, "-") X(STAR, "*")  \
    X(SLASH, "/") X(DSLASH, "//") X(PERCENT, "%") X(POW, "**") X(TILDE, "~") X(AMP, "&")   \
    X(PIPE, "|") X(CARET, "^") X(LSHIFT, "<<") X(RSHIFT, ">>") X(LT, "<") X(GT, ">")       \
    X(LE, "<=") X(GE, ">=") X(EQ, "==") X(NE, "!=") X(PLUS_EQ, "+=") X(MINUS_EQ, "-=")     \
    X(STAR_EQ, "*=") X(SLASH_EQ, "/=") X(DSLASH_EQ, "//=") X(PERCENT_EQ, "%=")             \
    X(POW_EQ, "**=") X(AT_EQ, "@=") X(AMP_EQ, "&=") X(PIPE_EQ, "|=") X(CARET_EQ, "^=")     \
    X(LSHIFT_EQ, "<<=") X(RSHIFT_EQ, ">>=") X(ELLIPSIS, "...")

typedef enum cc_token_kind {
#define CC_TOKEN_ENUM_(name, text) CC_TOK_##name,
    CC_TOKEN_LIST(CC_TOKEN_ENUM_)
#undef CC_TOKEN_ENUM_
    CC_TOK_COUNT
} cc_token_kind;

/* "(", "name", ... for messages. */
const char *cc_token_kind_text(cc_token_kind k);

typedef struct cc_token {
    cc_token_kind kind;
    cc_span span;
    uint32_t off, len;    /* its bytes in the source text */
    union {
        int64_t i;        /* INT */
        double f;         /* FLOAT */
    } value;
    uint8_t string_raw;   /* STRING: an r prefix (no escapes) */
    uint8_t string_quote; /* STRING: prefix and quote bytes before the body */
    uint8_t string_triple;
} cc_token;

typedef struct cc_tokens {
    cc_token *items;
    uint32_t n;
    uint64_t cap;
} cc_tokens;

/* Splits src into tokens (errors go to diags).  Returns 0, or -1 when out
 * of memory. */
int cc_lex(const cc_source *src, cc_diags *diags, cc_tokens *out);
void cc_tokens_free(cc_tokens *t);

/* A STRING token's value with its escapes resolved, NUL-terminated, in a
 * malloc'd buffer (*len without the NUL); NULL when out of memory. */
char *cc_token_string(const cc_source *src, const cc_token *t, size_t *len);

#endif
