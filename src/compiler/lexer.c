/*
 * lexer.c - tokens of the DSL's Python subset (see lexer.h).
 *
 * One pass over the bytes.  The lexer keeps a stack of indentation widths
 * and a stack of open brackets; a newline inside brackets or after a
 * backslash continues the logical line.  Invariants: pos only grows; every
 * loop iteration consumes at least one byte or ends the scan; the token
 * list is balanced (every INDENT has its DEDENT) and ends with EOF.
 */
#include "compiler/lexer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"

#define CC_MAX_INDENT 100
#define CC_MAX_BRACKETS 200

const char *cc_token_kind_text(cc_token_kind k)
{
    static const char *const texts[] = {
#define CC_TOKEN_TEXT_(name, text) text,
        CC_TOKEN_LIST(CC_TOKEN_TEXT_)
#undef CC_TOKEN_TEXT_
    };
    return (unsigned)k < CC_TOK_COUNT ? texts[k] : "?";
}

typedef struct cc_lexer {
    const cc_source *src;
    const char *s;
    size_t len, pos;
    cc_diags *diags;
    cc_tokens *out;
    int oom;
    uint32_t indents[CC_MAX_INDENT + 1];
    int nindents;
    struct { char ch; size_t off; } brackets[CC_MAX_BRACKETS];
    int nbrackets;
    int line_has_tokens; /* the logical line has a token: a newline ends it */
    int too_deep;        /* the indentation or bracket limit was reported (once) */
    size_t unkept;       /* brackets opened past CC_MAX_BRACKETS, not on the stack */
} cc_lexer;

static cc_span cc_lex_span(const cc_lexer *lx, size_t from, size_t to)
{
    cc_span sp;
    cc_source_locate(lx->src, from, &sp.line, &sp.col);
    cc_source_locate(lx->src, to, &sp.end_line, &sp.end_col);
    return sp;
}

static cc_token *cc_lex_emit(cc_lexer *lx, cc_token_kind k, size_t from, size_t to)
{
    cc_tokens *t = lx->out;
    if (t->n == t->cap) {
        cc_token *p = base_array_grow(t->items, &t->cap, sizeof *p, 256);
        if (!p) {
            lx->oom = 1;
            return NULL;
        }
        t->items = p;
    }
    cc_token *tok = &t->items[t->n++];
    memset(tok, 0, sizeof *tok);
    tok->kind = k;
    tok->off = (uint32_t)from;
    tok->len = (uint32_t)(to - from);
    tok->span = cc_lex_span(lx, from, to);
    if (k != CC_TOK_NEWLINE && k != CC_TOK_INDENT && k != CC_TOK_DEDENT) lx->line_has_tokens = 1;
    return tok;
}

static void cc_lex_error(cc_lexer *lx, size_t from, size_t to, const char *hint, const char *msg)
{
    cc_diag_add(lx->diags, CC_DIAG_SYNTAX, cc_lex_span(lx, from, to), hint, "%s", msg);
}

/* ---- indentation -------------------------------------------------------- */

/* At the start of a physical line outside brackets: measures the
 * indentation; a blank or comment-only line is skipped whole. Returns 1
 * when a line with tokens begins at lx->pos. */
static int cc_lex_line_start(cc_lexer *lx)
{
    uint32_t col = 0;
    size_t p = lx->pos;
    for (; p < lx->len; p++) {
        char c = lx->s[p];
        if (c == ' ') col++;
        else if (c == '\t') col = (col / 8 + 1) * 8;
        else if (c == '\f') col = 0;
        else break;
    }
    if (p == lx->len) {
        lx->pos = p;
        return 0;
    }
    char c = lx->s[p];
    if (c == '#' || c == '\n' || (c == '\r' && p + 1 < lx->len && lx->s[p + 1] == '\n')) {
        while (p < lx->len && lx->s[p] != '\n') p++;
        lx->pos = p < lx->len ? p + 1 : p;
        return 0;
    }
    lx->pos = p;
    if (col > lx->indents[lx->nindents]) {
        if (lx->nindents == CC_MAX_INDENT) { /* reported once: every deeper line would repeat it */
            if (!lx->too_deep) cc_lex_error(lx, p, p + 1, "flatten the nesting", "too many levels of indentation");
            lx->too_deep = 1;
            return 1;
        }
        lx->indents[++lx->nindents] = col;
        cc_lex_emit(lx, CC_TOK_INDENT, p, p);
    } else {
        while (col < lx->indents[lx->nindents]) {
            lx->nindents--;
            cc_lex_emit(lx, CC_TOK_DEDENT, p, p);
        }
        if (col != lx->indents[lx->nindents])
            cc_lex_error(lx, p, p + 1, "indent the line like an enclosing block",
                         "unindent does not match any outer indentation level");
    }
    return 1;
}

/* ---- numbers ------------------------------------------------------------ */

static int cc_is_digit(char c) { return c >= '0' && c <= '9'; }
static int cc_is_name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static int cc_is_name_char(char c) { return cc_is_name_start(c) || cc_is_digit(c); }

static int cc_digit_value(char c)
{
    if (cc_is_digit(c)) return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return 99;
}

/* Digits of a base with single underscores between them, from p. */
static size_t cc_lex_digits(const cc_lexer *lx, size_t p, int base)
{
    while (p < lx->len && (cc_digit_value(lx->s[p]) < base ||
                           (lx->s[p] == '_' && p + 1 < lx->len && cc_digit_value(lx->s[p + 1]) < base)))
        p++;
    return p;
}

static void cc_lex_number(cc_lexer *lx)
{
    size_t start = lx->pos, p = start;
    int base = 10, is_float = 0;
    const char *s = lx->s;
    if (s[p] == '0' && p + 1 < lx->len && strchr("xXoObB", s[p + 1])) {
        base = s[p + 1] == 'x' || s[p + 1] == 'X' ? 16 : s[p + 1] == 'o' || s[p + 1] == 'O' ? 8 : 2;
        p = cc_lex_digits(lx, p + 2 + (p + 2 < lx->len && s[p + 2] == '_'), base);
    } else {
        p = cc_lex_digits(lx, p, 10);
        if (p < lx->len && s[p] == '.') is_float = 1, p = cc_lex_digits(lx, p + 1, 10);
        if (p < lx->len && (s[p] == 'e' || s[p] == 'E')) {
            size_t q = p + 1 + (p + 1 < lx->len && (s[p + 1] == '+' || s[p + 1] == '-'));
            if (q < lx->len && cc_is_digit(s[q])) is_float = 1, p = cc_lex_digits(lx, q, 10);
        }
    }
    size_t end = p;
    while (end < lx->len && (cc_is_name_char(s[end]) || s[end] == '.')) end++;
    cc_token *t = cc_lex_emit(lx, is_float ? CC_TOK_FLOAT : CC_TOK_INT, start, end);
    lx->pos = end;
    if (!t) return;
    if (end != p) {
        if (s[p] == 'j' || s[p] == 'J')
            cc_diag_add(lx->diags, CC_DIAG_UNSUPPORTED, t->span, NULL, "complex literals are not supported in this version");
        else
            cc_lex_error(lx, start, end, NULL, "invalid number literal");
        return;
    }
    char buf[128];
    size_t n = 0;
    for (size_t i = start + (base == 10 ? 0 : 2); i < end && n + 1 < sizeof buf; i++)
        if (s[i] != '_') buf[n++] = s[i];
    buf[n] = 0;
    if (is_float) {
        t->value.f = strtod(buf, NULL);
        return;
    }
    if (base == 10 && n > 1 && buf[0] == '0') {
        for (size_t i = 0; i < n; i++)
            if (buf[i] != '0') {
                cc_lex_error(lx, start, end, "write the number without leading zeros (0o17 for octal)",
                             "leading zeros in decimal integer literals are not permitted");
                return;
            }
    }
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t d = (uint64_t)cc_digit_value(buf[i]);
        if (v > (UINT64_MAX - d) / (uint64_t)base || v * (uint64_t)base + d > (uint64_t)INT64_MAX) {
            cc_lex_error(lx, start, end, NULL, "integer literal does not fit in 64 bits");
            return;
        }
        v = v * (uint64_t)base + d;
    }
    t->value.i = (int64_t)v;
}

/* ---- strings ------------------------------------------------------------- */

/* A string whose prefix (prefix_len bytes) ends at the quote at lx->pos. */
static void cc_lex_string(cc_lexer *lx, size_t start, int raw)
{
    const char *s = lx->s;
    char q = s[lx->pos];
    int triple = lx->pos + 2 < lx->len && s[lx->pos + 1] == q && s[lx->pos + 2] == q;
    size_t body = lx->pos + (triple ? 3 : 1), p = body;
    for (;;) {
        if (p >= lx->len || (!triple && s[p] == '\n')) {
            cc_lex_error(lx, start, p, NULL,
                         triple ? "unterminated triple-quoted string literal" : "unterminated string literal");
            lx->pos = p;
            return;
        }
        if (s[p] == '\\' && p + 1 < lx->len) {
            p += 2;
            continue;
        }
        if (s[p] == q && (!triple || (p + 2 < lx->len && s[p + 1] == q && s[p + 2] == q))) break;
        p++;
    }
    size_t end = p + (triple ? 3 : 1);
    cc_token *t = cc_lex_emit(lx, CC_TOK_STRING, start, end);
    if (t) {
        t->string_raw = (uint8_t)raw;
        t->string_quote = (uint8_t)(body - start);
        t->string_triple = (uint8_t)triple;
    }
    lx->pos = end;
}

char *cc_token_string(const cc_source *src, const cc_token *t, size_t *len)
{
    const char *b = src->text + t->off + t->string_quote;
    size_t n = t->len - t->string_quote - (t->string_triple ? 3 : 1);
    char *out = malloc(n + 1), *o = out;
    if (!out) return NULL;
    for (size_t i = 0; i < n; i++) {
        char c = b[i];
        if (c != '\\' || t->string_raw || i + 1 == n) {
            *o++ = c;
            continue;
        }
        char e = b[++i];
        switch (e) {
        case 'n': *o++ = '\n'; break;
        case 't': *o++ = '\t'; break;
        case 'r': *o++ = '\r'; break;
        case '0': *o++ = '\0'; break;
        case '\\': case '\'': case '"': *o++ = e; break;
        case '\n': break; /* a line continuation inside the string */
        default: *o++ = '\\', *o++ = e; break;
        }
    }
    *o = 0;
    *len = (size_t)(o - out);
    return out;
}

/* ---- operators ------------------------------------------------------------ */

/* The longest operator at s (avail >= 1 bytes): its length, and its kind in
 * *kind; 0 when none starts there.  The tables are indexed by the first
 * byte; 0 (CC_TOK_EOF, never an operator) marks none. */
static size_t cc_operator_at(const char *s, size_t avail, cc_token_kind *kind)
{
    static const unsigned char single[128] = {
        ['('] = CC_TOK_LPAREN, [')'] = CC_TOK_RPAREN, ['['] = CC_TOK_LBRACKET, [']'] = CC_TOK_RBRACKET,
        ['{'] = CC_TOK_LBRACE, ['}'] = CC_TOK_RBRACE, [','] = CC_TOK_COMMA, [':'] = CC_TOK_COLON,
        ['.'] = CC_TOK_DOT, [';'] = CC_TOK_SEMI, ['@'] = CC_TOK_AT, ['='] = CC_TOK_ASSIGN,
        ['+'] = CC_TOK_PLUS, ['-'] = CC_TOK_MINUS, ['*'] = CC_TOK_STAR, ['/'] = CC_TOK_SLASH,
        ['%'] = CC_TOK_PERCENT, ['~'] = CC_TOK_TILDE, ['&'] = CC_TOK_AMP, ['|'] = CC_TOK_PIPE,
        ['^'] = CC_TOK_CARET, ['<'] = CC_TOK_LT, ['>'] = CC_TOK_GT,
    };
    static const unsigned char then_eq[128] = { /* "X=" */
        ['<'] = CC_TOK_LE, ['>'] = CC_TOK_GE, ['='] = CC_TOK_EQ, ['!'] = CC_TOK_NE, [':'] = CC_TOK_WALRUS,
        ['+'] = CC_TOK_PLUS_EQ, ['-'] = CC_TOK_MINUS_EQ, ['*'] = CC_TOK_STAR_EQ, ['/'] = CC_TOK_SLASH_EQ,
        ['%'] = CC_TOK_PERCENT_EQ, ['@'] = CC_TOK_AT_EQ, ['&'] = CC_TOK_AMP_EQ, ['|'] = CC_TOK_PIPE_EQ,
        ['^'] = CC_TOK_CARET_EQ,
    };
    static const unsigned char doubled[128] = { /* "XX" */
        ['*'] = CC_TOK_POW, ['/'] = CC_TOK_DSLASH, ['<'] = CC_TOK_LSHIFT, ['>'] = CC_TOK_RSHIFT,
    };
    static const unsigned char doubled_eq[128] = { /* "XX=" */
        ['*'] = CC_TOK_POW_EQ, ['/'] = CC_TOK_DSLASH_EQ, ['<'] = CC_TOK_LSHIFT_EQ, ['>'] = CC_TOK_RSHIFT_EQ,
    };
    _Static_assert(CC_TOK_COUNT <= 256 && CC_TOK_EOF == 0, "operator kinds fit the tables");
    unsigned char c = (unsigned char)s[0];
    char c1 = avail > 1 ? s[1] : 0, c2 = avail > 2 ? s[2] : 0;
    if (c >= 128) return 0;
    if (c1 == (char)c && c2 == '=' && doubled_eq[c]) return *kind = doubled_eq[c], 3;
    if (c == '.' && c1 == '.' && c2 == '.') return *kind = CC_TOK_ELLIPSIS, 3;
    if (c == '-' && c1 == '>') return *kind = CC_TOK_ARROW, 2;
    if (c1 == (char)c && doubled[c]) return *kind = doubled[c], 2;
    if (c1 == '=' && then_eq[c]) return *kind = then_eq[c], 2;
    if (single[c]) return *kind = single[c], 1;
    return 0;
}

static int cc_lex_operator(cc_lexer *lx)
{
    cc_token_kind kind;
    size_t n = cc_operator_at(lx->s + lx->pos, lx->len - lx->pos, &kind);
    if (!n) return 0;
    char c = lx->s[lx->pos];
    if (n == 1 && strchr("([{", c)) {
        if (lx->nbrackets == CC_MAX_BRACKETS) {
            if (!lx->too_deep) cc_lex_error(lx, lx->pos, lx->pos + 1, NULL, "too many nested parentheses");
            lx->too_deep = 1;
            lx->unkept++;
        } else {
            lx->brackets[lx->nbrackets].ch = c;
            lx->brackets[lx->nbrackets++].off = lx->pos;
        }
    } else if (n == 1 && strchr(")]}", c)) {
        char want = c == ')' ? '(' : c == ']' ? '[' : '{';
        if (lx->unkept) {
            lx->unkept--; /* closes one of those past the limit (already reported) */
        } else if (!lx->nbrackets) {
            char msg[64];
            snprintf(msg, sizeof msg, "unmatched '%c'", c);
            cc_lex_error(lx, lx->pos, lx->pos + 1, NULL, msg);
        } else {
            if (lx->brackets[lx->nbrackets - 1].ch != want) {
                char msg[96];
                snprintf(msg, sizeof msg, "closing parenthesis '%c' does not match opening parenthesis '%c'",
                         c, lx->brackets[lx->nbrackets - 1].ch);
                cc_lex_error(lx, lx->pos, lx->pos + 1, NULL, msg);
            }
            lx->nbrackets--;
        }
    }
    cc_lex_emit(lx, kind, lx->pos, lx->pos + n);
    lx->pos += n;
    return 1;
}

/* ---- the scan ------------------------------------------------------------- */

/* A byte that starts no token: names its character (decoding UTF-8 when it
 * is valid) and skips it. */
static void cc_lex_invalid(cc_lexer *lx)
{
    const unsigned char *u = (const unsigned char *)lx->s + lx->pos;
    size_t avail = lx->len - lx->pos, n = 1;
    uint32_t cp = u[0];
    if (u[0] >= 0xC2 && u[0] <= 0xF4) {
        size_t need = u[0] >= 0xF0 ? 4 : u[0] >= 0xE0 ? 3 : 2;
        int ok = need <= avail;
        for (size_t i = 1; ok && i < need; i++) ok = (u[i] & 0xC0) == 0x80;
        if (ok) {
            n = need;
            cp = u[0] & (need == 2 ? 0x1F : need == 3 ? 0x0F : 0x07);
            for (size_t i = 1; i < need; i++) cp = cp << 6 | (u[i] & 0x3F);
        }
    }
    char msg[96];
    if (u[0] >= 0x80 && n == 1)
        snprintf(msg, sizeof msg, "invalid byte 0x%02x: the source is not valid UTF-8", u[0]);
    else
        snprintf(msg, sizeof msg, "invalid character '%.*s' (U+%04X)", cp >= 0x20 && cp != 0x7F ? (int)n : 0,
                 (const char *)u, cp);
    cc_lex_error(lx, lx->pos, lx->pos + n, NULL, msg);
    lx->pos += n;
}

/* String prefixes Python knows; `raw` tells whether escapes stay. */
static int cc_string_prefix(const char *s, size_t n, int *raw)
{
    if (n > 2) return 0;
    *raw = 0;
    for (size_t i = 0; i < n; i++) {
        char c = (char)(s[i] | 0x20);
        if (c == 'r') *raw = 1;
        else if (c != 'b' && c != 'u' && c != 'f') return 0;
    }
    return 1;
}

int cc_lex(const cc_source *src, cc_diags *diags, cc_tokens *out)
{
    cc_lexer lx = {.src = src, .s = src->text, .len = src->len, .diags = diags, .out = out};
    memset(out, 0, sizeof *out);
    int at_line_start = 1;
    while (lx.pos < lx.len && !lx.oom) {
        if (at_line_start && lx.nbrackets == 0) {
            at_line_start = 0;
            if (!cc_lex_line_start(&lx)) {
                at_line_start = 1;
                continue;
            }
        }
        char c = lx.s[lx.pos];
        if (c == ' ' || c == '\t' || c == '\f' || c == '\r') {
            lx.pos++;
        } else if (c == '#') {
            while (lx.pos < lx.len && lx.s[lx.pos] != '\n') lx.pos++;
        } else if (c == '\n') {
            if (lx.nbrackets == 0) {
                if (lx.line_has_tokens) cc_lex_emit(&lx, CC_TOK_NEWLINE, lx.pos, lx.pos + 1);
                lx.line_has_tokens = 0;
                at_line_start = 1;
            }
            lx.pos++;
        } else if (c == '\\') {
            size_t p = lx.pos + 1 + (lx.pos + 1 < lx.len && lx.s[lx.pos + 1] == '\r');
            if (p < lx.len && lx.s[p] == '\n') {
                lx.pos = p + 1;
            } else {
                cc_lex_error(&lx, lx.pos, lx.pos + 1, NULL, "unexpected character after line continuation character");
                lx.pos++;
            }
        } else if (cc_is_name_start(c)) {
            size_t start = lx.pos, p = lx.pos;
            while (p < lx.len && cc_is_name_char(lx.s[p])) p++;
            int raw;
            if (p < lx.len && (lx.s[p] == '\'' || lx.s[p] == '"') && cc_string_prefix(lx.s + start, p - start, &raw)) {
                lx.pos = p;
                cc_lex_string(&lx, start, raw);
            } else {
                cc_lex_emit(&lx, CC_TOK_NAME, start, p);
                lx.pos = p;
            }
        } else if (cc_is_digit(c) || (c == '.' && lx.pos + 1 < lx.len && cc_is_digit(lx.s[lx.pos + 1]))) {
            cc_lex_number(&lx);
        } else if (c == '\'' || c == '"') {
            cc_lex_string(&lx, lx.pos, 0);
        } else if (!cc_lex_operator(&lx)) {
            cc_lex_invalid(&lx);
        }
    }
    for (int i = 0; i < lx.nbrackets && !lx.oom; i++) {
        char msg[48];
        snprintf(msg, sizeof msg, "'%c' was never closed", lx.brackets[i].ch);
        cc_lex_error(&lx, lx.brackets[i].off, lx.brackets[i].off + 1, NULL, msg);
    }
    if (!lx.oom && lx.line_has_tokens) cc_lex_emit(&lx, CC_TOK_NEWLINE, lx.len, lx.len);
    while (!lx.oom && lx.nindents > 0) {
        lx.nindents--;
        cc_lex_emit(&lx, CC_TOK_DEDENT, lx.len, lx.len);
    }
    if (!lx.oom) cc_lex_emit(&lx, CC_TOK_EOF, lx.len, lx.len);
    if (lx.oom) {
        cc_tokens_free(out);
        return -1;
    }
    return 0;
}

void cc_tokens_free(cc_tokens *t)
{
    free(t->items);
    memset(t, 0, sizeof *t);
}
