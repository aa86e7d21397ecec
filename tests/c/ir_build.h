/*
 * ir_build.h - typed IR built by hand for the pass tests, and a text dump of
 * a function body to compare against.
 *
 * Invariants:
 *  - One program per test: irb_init() starts the file-static builder B (the
 *    program "prog" of the file "k.py", its diagnostics, and the arena every
 *    node lives in); irb_free() frees all of it.  Builders assert instead of
 *    returning NULL.
 *  - Leaves (I, FL, V, BIN, LIST) sit at SP(1, 1); every statement, op, call
 *    and function is given its span.  FRESH() is a line no other FRESH() span
 *    has (2, 3, ...), for tests that tell nodes apart by line.
 *  - Functions are appended to the program in the order built, with
 *    auto_scope on (the DSL default), InCore ones at CORE_GROUP.  A tensor
 *    parameter with a direction counts as declared; CC_DIR_NONE is undeclared.
 *  - Ops are as the type checker leaves them (cache UNSET, dtype 255) until a
 *    test sets an attribute.
 *
 * The dump prints one statement per line, two spaces per nesting level, the
 * expressions as the printer writes them (cc_print_expr):
 *   x = a * 2 + 4          for i in 0..n step 1:      scope AUTO from g @3:5:
 *   self.k(a, out)         at CORE_GROUP as tid:      return out
 *
 * Include after harness.h.
 */
#ifndef PTO_IR_BUILD_H
#define PTO_IR_BUILD_H

#include <stdio.h>
#include <string.h>

#include "base/strbuf.h"
#include "compiler/ir.h"
#include "compiler/printer.h"

typedef struct irb {
    cc_source src;
    cc_diags diags;
    base_arena arena;
    cc_ir_program p;
    uint32_t line; /* the last line FRESH() handed out */
} irb;

static irb B;

static inline void irb_init(void)
{
    memset(&B, 0, sizeof B);
    assert_int_equal(cc_source_init(&B.src, "k.py", "", 0), 0);
    cc_diags_init(&B.diags, &B.src);
    base_arena_init(&B.arena);
    B.p = (cc_ir_program){.name = "prog", .arena = &B.arena, .diags = &B.diags, .src = &B.src};
    B.line = 1;
}

static inline void irb_free(void)
{
    base_arena_free(&B.arena);
    cc_diags_free(&B.diags);
    cc_source_free(&B.src);
}

static inline void *irb_alloc(size_t n)
{
    void *x = base_arena_alloc(&B.arena, n ? n : 1);
    assert_non_null(x);
    return x;
}

/* ---- spans and types --------------------------------------------------------------------- */
static inline cc_span SP(uint32_t line, uint32_t col) { return (cc_span){line, col, line, col + 1}; }
static inline cc_span FRESH(void) { return SP(++B.line, 1); }

static const cc_type T_IDX = {.kind = CC_T_SCALAR, .dtype = CC_DT_INDEX};
static const cc_type T_F32 = {.kind = CC_T_SCALAR, .dtype = CC_DT_FP32};
static const cc_type T_BOOL = {.kind = CC_T_SCALAR, .dtype = CC_DT_BOOL};
static const cc_type T_TID = {.kind = CC_T_SCALAR, .dtype = CC_DT_TASK_ID};
static inline cc_type T_TENSOR(int64_t r, int64_t c) { return (cc_type){.kind = CC_T_TENSOR, .dtype = CC_DT_FP32, .rank = 2, .shape = {r, c}}; }
static inline cc_type T_TILE(int64_t r, int64_t c) { return (cc_type){.kind = CC_T_TILE, .dtype = CC_DT_FP32, .rank = 2, .shape = {r, c}}; }

/* ---- expressions ------------------------------------------------------------------------- */
#define NARGS_(T, ...) (uint32_t)(sizeof((T[]){__VA_ARGS__}) / sizeof(T))

static inline cc_ir_expr *irb_expr(cc_ir_expr *e)
{
    assert_non_null(e);
    return e;
}
static inline cc_ir_expr *I(int64_t v) { return irb_expr(cc_ir_int(&B.arena, v, SP(1, 1))); }
static inline cc_ir_expr *FL(double v)
{
    cc_ir_expr *e = irb_expr(cc_ir_expr_new(&B.arena, CC_X_FLOAT, SP(1, 1)));
    e->u.f = v, e->type = T_F32;
    return e;
}
static inline cc_ir_expr *V(const char *name, cc_type t) { return irb_expr(cc_ir_var(&B.arena, name, t, SP(1, 1))); }
static inline cc_ir_expr *BIN(cc_op op, cc_ir_expr *l, cc_ir_expr *r) { return irb_expr(cc_ir_binary(&B.arena, op, l, r, SP(1, 1))); }

static inline cc_ir_expr *irb_list(cc_ir_expr **items, uint32_t n)
{
    cc_ir_expr *e = irb_expr(cc_ir_expr_new(&B.arena, CC_X_LIST, SP(1, 1)));
    e->u.list.items = irb_alloc(n * sizeof *items);
    memcpy(e->u.list.items, items, n * sizeof *items);
    e->u.list.n = n, e->type.kind = CC_T_LIST;
    return e;
}
#define LIST(...) irb_list((cc_ir_expr *[]){__VA_ARGS__}, NARGS_(cc_ir_expr *, __VA_ARGS__))

/* An op of type t with its slots filled in order (missing trailing slots NULL). */
static inline cc_ir_expr *irb_op(cc_ir_op op, cc_type t, cc_span sp, cc_ir_expr **args, uint32_t n)
{
    assert_true(n <= cc_ir_op_nslots(op));
    cc_ir_expr *e = irb_expr(cc_ir_op_new(&B.arena, op, sp));
    for (uint32_t k = 0; k < n; k++) e->u.op.args[k] = args[k];
    e->type = t;
    return e;
}
#define OP(op, t, sp, ...) irb_op(op, t, sp, (cc_ir_expr *[]){__VA_ARGS__}, NARGS_(cc_ir_expr *, __VA_ARGS__))

/* pl.load(t, [o0, o1], [rows, cols]): a [rows, cols] tile. */
static inline cc_ir_expr *LOAD(cc_span sp, cc_ir_expr *t, cc_ir_expr *o0, cc_ir_expr *o1, int64_t rows, int64_t cols)
{
    return OP(CC_IR_LOAD, T_TILE(rows, cols), sp, t, LIST(o0, o1), LIST(I(rows), I(cols)));
}
/* pl.store(tile, [o0, o1], t, shapes=the tile's shape). */
static inline cc_ir_expr *STORE(cc_span sp, cc_ir_expr *tile, cc_ir_expr *o0, cc_ir_expr *o1, cc_ir_expr *t)
{
    return OP(CC_IR_STORE, t->type, sp, tile, LIST(o0, o1), t, LIST(I(tile->type.shape[0]), I(tile->type.shape[1])));
}
/* load, marked as made for a tensor used as a tile. */
static inline cc_ir_expr *IMPLICIT(cc_ir_expr *load)
{
    load->u.op.implicit = 1;
    return load;
}

/* A call of g typed by g's results (none: void, several: a tuple). */
static inline cc_ir_expr *irb_call(cc_ir_func *g, cc_span sp, cc_ir_expr **args, uint32_t n)
{
    cc_ir_expr *e = irb_expr(cc_ir_expr_new(&B.arena, CC_X_CALL, sp));
    e->u.call.callee = g, e->u.call.nargs = n;
    e->u.call.args = irb_alloc(n * sizeof *args);
    if (n) memcpy(e->u.call.args, args, n * sizeof *args);
    e->type = g->nresults == 1 ? g->results[0] : (cc_type){.kind = g->nresults ? CC_T_TUPLE : CC_T_VOID};
    return e;
}
#define CALL(g, sp, ...) irb_call(g, sp, (cc_ir_expr *[]){__VA_ARGS__}, NARGS_(cc_ir_expr *, __VA_ARGS__))
#define CALL0(g, sp) irb_call(g, sp, NULL, 0)

/* ---- statements ---------------------------------------------------------------------------- */
static inline cc_ir_block irb_block(cc_ir_stmt **items, uint32_t n)
{
    cc_ir_block b;
    assert_true(cc_ir_block_make(&B.arena, &b, items, n));
    return b;
}
#define BLOCK(...) irb_block((cc_ir_stmt *[]){__VA_ARGS__}, NARGS_(cc_ir_stmt *, __VA_ARGS__))
static const cc_ir_block EMPTY_BLOCK = {NULL, 0};

static inline cc_ir_stmt *irb_stmt(cc_ir_stmt_kind k, cc_span sp)
{
    cc_ir_stmt *s = cc_ir_stmt_new(&B.arena, k, sp);
    assert_non_null(s);
    return s;
}

/* names = value; one target takes the value's type, several are INDEX. */
static inline cc_ir_stmt *irb_assign(cc_span sp, const char **names, uint32_t n, cc_ir_expr *value)
{
    cc_ir_stmt *s = irb_stmt(CC_I_ASSIGN, sp);
    s->u.assign.targets = irb_alloc(n * sizeof *s->u.assign.targets);
    for (uint32_t k = 0; k < n; k++)
        s->u.assign.targets[k] = (cc_ir_target){names[k], n == 1 ? value->type : T_IDX, sp};
    s->u.assign.ntargets = n, s->u.assign.value = value;
    return s;
}
#define ASSIGN(sp, name, value) irb_assign(sp, (const char *[]){name}, 1, value)
#define ASSIGN2(sp, a, b, value) irb_assign(sp, (const char *[]){a, b}, 2, value)

static inline cc_ir_stmt *EXPR(cc_span sp, cc_ir_expr *e)
{
    cc_ir_stmt *s = irb_stmt(CC_I_EXPR, sp);
    s->u.expr = e;
    return s;
}
static inline cc_ir_stmt *FOR(cc_span sp, const char *var, cc_ir_expr *start, cc_ir_expr *stop, cc_ir_expr *step, cc_ir_block body)
{
    cc_ir_stmt *s = irb_stmt(CC_I_FOR, sp);
    s->u.for_.var = var, s->u.for_.var_span = sp;
    s->u.for_.start = start, s->u.for_.stop = stop, s->u.for_.step = step, s->u.for_.body = body;
    return s;
}
static inline cc_ir_stmt *WHILE(cc_span sp, cc_ir_expr *cond, cc_ir_block body)
{
    cc_ir_stmt *s = irb_stmt(CC_I_WHILE, sp);
    s->u.while_.cond = cond, s->u.while_.body = body;
    return s;
}
static inline cc_ir_stmt *IF(cc_span sp, cc_ir_expr *cond, cc_ir_block then, cc_ir_block orelse)
{
    cc_ir_stmt *s = irb_stmt(CC_I_IF, sp);
    s->u.if_.cond = cond, s->u.if_.then = then, s->u.if_.orelse = orelse;
    return s;
}
static inline cc_ir_stmt *SCOPE(cc_span sp, cc_scope_mode mode, cc_ir_block body)
{
    cc_ir_stmt *s = cc_ir_scope_new(&B.arena, mode, 0, body, sp);
    assert_non_null(s);
    return s;
}
static inline cc_ir_stmt *AT(cc_span sp, cc_level level, cc_ir_block body)
{
    cc_ir_stmt *s = irb_stmt(CC_I_AT, sp);
    s->u.at.level = (uint8_t)level, s->u.at.body = body;
    return s;
}
static inline cc_ir_stmt *irb_ret(cc_span sp, cc_ir_expr **values, uint32_t n)
{
    cc_ir_stmt *s = irb_stmt(CC_I_RETURN, sp);
    s->u.ret.values = irb_alloc(n * sizeof *values);
    if (n) memcpy(s->u.ret.values, values, n * sizeof *values);
    s->u.ret.n = n;
    return s;
}
#define RET(sp, ...) irb_ret(sp, (cc_ir_expr *[]){__VA_ARGS__}, NARGS_(cc_ir_expr *, __VA_ARGS__))
#define RET0(sp) irb_ret(sp, NULL, 0)

/* The statement reached by path: path[0] in b, path[1] in that statement's
 * first block (a for/while/scope/at body, an if's then), and so on:
 * STMT(f, 2, 0, 1). */
static inline cc_ir_stmt *irb_stmt_at(cc_ir_block *b, const uint32_t *path, uint32_t n)
{
    assert_true(path[0] < b->n);
    cc_ir_stmt *s = b->items[path[0]];
    if (n == 1) return s;
    cc_ir_block *sub = s->kind == CC_I_FOR ? &s->u.for_.body : s->kind == CC_I_SCOPE ? &s->u.scope.body
                     : s->kind == CC_I_IF ? &s->u.if_.then : s->kind == CC_I_AT ? &s->u.at.body : &s->u.while_.body;
    return irb_stmt_at(sub, path + 1, n - 1);
}
#define STMT(f, ...) irb_stmt_at(&(f)->body, (uint32_t[]){__VA_ARGS__}, NARGS_(uint32_t, __VA_ARGS__))

/* ---- functions ----------------------------------------------------------------------------- */
static inline cc_ir_param P(const char *name, cc_type t, cc_dir dir)
{
    return (cc_ir_param){.name = name, .type = t, .dir = (uint8_t)dir, .declared = dir != CC_DIR_NONE, .span = SP(1, 1)};
}

/* A function appended to the program, at SP(1, 1), with an empty body. */
static inline cc_ir_func *FUNC(const char *name, cc_func_kind kind, const cc_ir_param *params, uint32_t np,
                               const cc_type *results, uint32_t nr)
{
    cc_ir_func *f = irb_alloc(sizeof *f);
    f->name = name, f->kind = (uint8_t)kind, f->span = SP(1, 1), f->auto_scope = 1;
    if (kind == CC_FUNC_INCORE) f->level = CC_LEVEL_CORE_GROUP;
    f->params = irb_alloc(np * sizeof *params);
    if (np) memcpy(f->params, params, np * sizeof *params);
    f->nparams = np;
    f->results = irb_alloc(nr * sizeof *results);
    if (nr) memcpy(f->results, results, nr * sizeof *results);
    f->nresults = nr;
    assert_true(cc_ir_program_add_func(&B.p, f, B.p.nfuncs));
    return f;
}
#define PARAMS(...) (cc_ir_param[]){__VA_ARGS__}, NARGS_(cc_ir_param, __VA_ARGS__)
#define NO_PARAMS NULL, 0
#define RESULTS(...) (cc_type[]){__VA_ARGS__}, NARGS_(cc_type, __VA_ARGS__)
#define NO_RESULTS NULL, 0

/* The seed's manual_placement (docs/dsl.md, "Runtime scopes and rings"), lines 1-12 as on the seed
 * page, as the type checker leaves it. */
static inline cc_ir_func *seed_manual_placement(void)
{
    cc_type t256 = T_TENSOR(256, 128), tile = T_TILE(64, 128);
    cc_ir_func *f = FUNC("manual_placement", CC_FUNC_ORCHESTRATION,
                         PARAMS(P("a", t256, CC_DIR_IN), P("out", t256, CC_DIR_OUT)), NO_RESULTS);
    f->auto_scope = 0;
    f->body = BLOCK(
        SCOPE(SP(2, 1), CC_SCOPE_AUTO, BLOCK(
            FOR(SP(3, 1), "i", I(0), I(4), I(1), BLOCK(
                AT(SP(4, 1), CC_LEVEL_CORE_GROUP, BLOCK(
                    ASSIGN(SP(5, 1), "t", LOAD(SP(5, 1), V("a", t256), BIN(CC_OP_MUL, V("i", T_IDX), I(64)), I(0), 64, 128)),
                    EXPR(SP(6, 1), STORE(SP(6, 1), OP(CC_IR_MUL, tile, SP(6, 1), V("t", tile), FL(2.0)),
                                         BIN(CC_OP_MUL, V("i", T_IDX), I(64)), I(0), V("out", t256))))))),
            SCOPE(SP(7, 1), CC_SCOPE_AUTO, BLOCK(
                AT(SP(8, 1), CC_LEVEL_CORE_GROUP, BLOCK(
                    FOR(SP(9, 1), "i", I(0), I(4), I(1), BLOCK(
                        ASSIGN(SP(10, 1), "t", LOAD(SP(10, 1), V("out", t256), BIN(CC_OP_MUL, V("i", T_IDX), I(64)), I(0), 64, 128)),
                        EXPR(SP(11, 1), STORE(SP(11, 1), OP(CC_IR_ADD, tile, SP(11, 1), V("t", tile), FL(1.0)),
                                              BIN(CC_OP_MUL, V("i", T_IDX), I(64)), I(0), V("out", t256))))))))))),
        RET(SP(12, 1), V("out", t256)));
    return f;
}

/* ---- diagnostics ----------------------------------------------------------------------------- */
/* The message of diagnostic i ("" when there are fewer). */
static inline const char *irb_message(size_t i) { return i < B.diags.n ? B.diags.items[i].message : ""; }

static inline void irb_expect_diag(size_t i, cc_diag_class cls, const char *message)
{
    assert_true(i < B.diags.n);
    assert_string_equal(B.diags.items[i].message, message);
    assert_int_equal(B.diags.items[i].cls, cls);
}

/* ---- the dump -------------------------------------------------------------------------------- */
static inline void irb_dump_block(base_strbuf *o, const cc_ir_block *b, int depth);

static inline void irb_dump_stmt(base_strbuf *o, const cc_ir_stmt *s, int depth)
{
    base_strbuf_printf(o, "%*s", 2 * depth, "");
    switch (s->kind) {
    case CC_I_ASSIGN:
        for (uint32_t k = 0; k < s->u.assign.ntargets; k++) base_strbuf_printf(o, "%s%s", k ? ", " : "", s->u.assign.targets[k].name);
        base_strbuf_puts(o, " = "), cc_print_expr(s->u.assign.value, 0, o), base_strbuf_puts(o, "\n");
        break;
    case CC_I_EXPR: cc_print_expr(s->u.expr, 0, o), base_strbuf_puts(o, "\n"); break;
    case CC_I_FOR:
        base_strbuf_printf(o, "for %s in ", s->u.for_.var), cc_print_expr(s->u.for_.start, 0, o), base_strbuf_puts(o, "..");
        cc_print_expr(s->u.for_.stop, 0, o), base_strbuf_puts(o, " step "), cc_print_expr(s->u.for_.step, 0, o);
        base_strbuf_puts(o, ":\n"), irb_dump_block(o, &s->u.for_.body, depth + 1);
        break;
    case CC_I_WHILE:
        base_strbuf_puts(o, "while "), cc_print_expr(s->u.while_.cond, 0, o), base_strbuf_puts(o, ":\n");
        irb_dump_block(o, &s->u.while_.body, depth + 1);
        break;
    case CC_I_IF:
        base_strbuf_puts(o, "if "), cc_print_expr(s->u.if_.cond, 0, o), base_strbuf_puts(o, ":\n");
        irb_dump_block(o, &s->u.if_.then, depth + 1);
        if (s->u.if_.orelse.n) base_strbuf_printf(o, "%*selse:\n", 2 * depth, ""), irb_dump_block(o, &s->u.if_.orelse, depth + 1);
        break;
    case CC_I_SCOPE:
        base_strbuf_printf(o, "scope %s", s->u.scope.mode == CC_SCOPE_MANUAL ? "MANUAL" : "AUTO");
        if (s->u.scope.inlined_from)
            base_strbuf_printf(o, " from %s @%u:%u", s->u.scope.inlined_from, s->u.scope.inlined_at.line, s->u.scope.inlined_at.col);
        base_strbuf_puts(o, ":\n"), irb_dump_block(o, &s->u.scope.body, depth + 1);
        break;
    case CC_I_AT:
        base_strbuf_printf(o, "at %s%s%s:\n", cc_level_name(s->u.at.level), s->u.at.as_name ? " as " : "",
                           s->u.at.as_name ? s->u.at.as_name : "");
        irb_dump_block(o, &s->u.at.body, depth + 1);
        break;
    case CC_I_RETURN:
        base_strbuf_puts(o, "return");
        for (uint32_t k = 0; k < s->u.ret.n; k++) base_strbuf_puts(o, k ? ", " : " "), cc_print_expr(s->u.ret.values[k], 0, o);
        base_strbuf_puts(o, "\n");
        break;
    }
}

static inline void irb_dump_block(base_strbuf *o, const cc_ir_block *b, int depth)
{
    for (uint32_t i = 0; i < b->n; i++) irb_dump_stmt(o, b->items[i], depth);
}

/* f's body as dump text (valid until the next call or irb_free()). */
static inline const char *irb_dump(const cc_ir_func *f)
{
    base_strbuf out = {0};
    irb_dump_block(&out, &f->body, 0);
    assert_false(out.oom);
    char *text = irb_alloc(strlen(base_strbuf_str(&out)) + 1);
    strcpy(text, base_strbuf_str(&out));
    base_strbuf_free(&out);
    return text;
}

/* Asserts f's body dumps as want (printing both when not). */
static inline void irb_expect_dump(const cc_ir_func *f, const char *want)
{
    const char *got = irb_dump(f);
    if (strcmp(got, want)) fprintf(stderr, "got:\n%s\nwant:\n%s\n", got, want);
    assert_string_equal(got, want);
}

#endif
