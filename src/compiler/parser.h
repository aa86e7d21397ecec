/*
 * parser.h - tokens to syntax tree for the DSL's Python subset.
 *
 * Recursive descent over the lexer's tokens, one function per grammar
 * rule.  Python constructs outside the subset are recognised and rejected
 * with UnsupportedFeatureError (`Python '<construct>' is not supported in
 * kernel code`, or `<construct> is not supported in this version` for
 * expressions), never a crash.  After an error the parser skips to the end
 * of the statement (and its block) and goes on, so one run reports every
 * syntax error of a file.
 */
#ifndef CC_PARSER_H
#define CC_PARSER_H

#include "base/arena.h"
#include "compiler/ast.h"
#include "compiler/diag.h"
#include "compiler/lexer.h"

/* Parses toks (from cc_lex on src) into *out, nodes in arena.  Returns 0,
 * or -1 when out of memory; syntax errors go to diags. */
int cc_parse(const cc_source *src, const cc_tokens *toks, base_arena *arena, cc_diags *diags, cc_module *out);
/* As cc_parse, for an entry defined inside a function, a method or a class
 * body whose definition (decorators included) holds line `line` (0: none):
 * the blocks around it are read too, and the module's definitions are that
 * one first, then the @pl definitions beside it (innermost block first),
 * then the module's, each name once (an inner one shadows an outer one). */
int cc_parse_at(const cc_source *src, const cc_tokens *toks, int line, base_arena *arena, cc_diags *diags, cc_module *out);

#endif
