/*
 * ir_text.h - building small typed-IR programs by hand for the pass tests,
 * and a compact dump of them to compare against.
 *
 * One program per test: ir_begin() sets the file-static builder every
 * constructor below allocates from (nodes in its arena, spans as given).
 * The dump prints one statement per line, two spaces per nesting level:
 *   x = (a + 1)        for i in 0..n step 1:      scope AUTO from g @3:5:
 *   pl.add(t, 2)       at CORE_GROUP as tid:      return out
 */
#ifndef PTO_TEST_IR_TEXT_H
#define PTO_TEST_IR_TEXT_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/strbuf.h"
#include "compiler/ir.h"

typedef struct ir_builder {
    cc_source src;
    cc_diags diags;
    base_arena arena;
    cc_ir_program p;
} ir_builder;

static ir_builder *irb_;

/* Twenty blank lines of source, so diagnostics can quote lines 1..20. */
static inline void ir_begin(ir_builder *b)
{
    static const char text[] = "\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n";
    memset(b, 0, sizeof *b);
    cc_source_init(&b->src, "k.py", text, sizeof text - 1);
    cc_diags_init(&b->diags, &b->src);
    base_arena_init(&b->arena);
    b->p = (cc_ir_program){.name = "prog", .arena = &b->arena, .diags = &b->diags, .src = &b->src};
    /* never NULL: cc_ir_program_add_func memcpy's from it */
    b->p.funcs = base_arena_alloc(&b->arena, sizeof *b->p.funcs);
    irb_ = b;
}

static inline void ir_end(ir_builder *b)
{
    base_arena_free(&b->arena);
    cc_diags_free(&b->diags);
    cc_source_free(&b->src);
}

static inline cc_span SP(uint32_t line, uint32_t col) { return (cc_span){line, col, line, col + 1}; }

/* ---- types ---- */
static const cc_type T_IDX = {.kind = CC_T_SCALAR, .dtype = CC_DT_INDEX};
static const cc_type T_F32 = {.kind = CC_T_SCALAR, .dtype = CC_DT_FP32};
static const cc_type T_BOOL = {.kind = CC_T_SCALAR, .dtype = CC_DT_BOOL};
static const cc_type T_TID = {.kind = CC_T_SCALAR, .dtype = CC_DT_TASK_ID};
static inline cc_type T_TENSOR2(int64_t r, int64_t c, cc_dtype dt) { return (cc_type){CC_T_TENSOR, (uint8_t)dt, 2, {r, c}}; }
static inline cc_type T_TILE2(int64_t r, int64_t c, cc_dtype dt) { return (cc_type){CC_T_TILE, (uint8_t)dt, 2, {r, c}}; }

/* ---- expressions ---- */
static inline cc_ir_expr *I(int64_t v) { return cc_ir_int(&irb_->arena, v, SP(1, 1)); }
static inline cc_ir_expr *FL(double v)
{
    cc_ir_expr *e = cc_ir_expr_new(&irb_->arena, CC_X_FLOAT, SP(1, 1));
    e->u.f = v, e->type = T_F32;
    return e;
}
static inline cc_ir_expr *V(const char *name, cc_type t) { return cc_ir_var(&irb_->arena, name, t, SP(1, 1)); }
static inline cc_ir_expr *BIN(cc_op op, cc_ir_expr *l, cc_ir_expr *r) { return cc_ir_binary(&irb_->arena, op, l, r, SP(1, 1)); }
static inline cc_ir_expr *UN(cc_op op, cc_ir_expr *x)
{
    cc_ir_expr *e = cc_ir_expr_new(&irb_->arena, CC_X_UNARY, SP(1, 1));
    e->u.un.op = op, e->u.un.x = x, e->type = op == CC_OP_NOT ? T_BOOL : x->type;
    return e;
}
static inline cc_ir_expr *ir_list(cc_ir_expr **items, uint32_t n)
{
    cc_ir_expr *e = cc_ir_expr_new(&irb_->arena, CC_X_LIST, SP(1, 1));
    e->u.list.items = base_arena_alloc(&irb_->arena, (n + 1) * sizeof *items);
    memcpy(e->u.list.items, items, n * sizeof *items);
    e->u.list.n = n, e->type.kind = CC_T_LIST;
    return e;
}
#define NARGS_(T, ...) (uint32_t)(sizeof((T[]){__VA_ARGS__}) / sizeof(T))
#define LIST(...) ir_list((cc_ir_expr *[]){__VA_ARGS__}, NARGS_(cc_ir_expr *, __VA_ARGS__))

/* An op with its slots filled in order (missing trailing slots NULL), at sp. */
static inline cc_ir_expr *ir_op(cc_ir_op op, cc_type t, cc_span sp, cc_ir_expr **args, uint32_t n)
{
    cc_ir_expr *e = cc_ir_op_new(&irb_->arena, op, sp);
    for (uint32_t k = 0; k < n; k++) e->u.op.args[k] = args[k];
    e->type = t;
    if (op == CC_IR_LOAD) e->u.op.cache = CC_CACHE_DEFAULT;
    return e;
}
#define OP(op, t, sp, ...) ir_op(op, t, sp, (cc_ir_expr *[]){__VA_ARGS__}, NARGS_(cc_ir_expr *, __VA_ARGS__))

static inline cc_ir_expr *ir_call(cc_ir_func *g, cc_span sp, cc_ir_expr **args, uint32_t n)
{
    cc_ir_expr *e = cc_ir_expr_new(&irb_->arena, CC_X_CALL, sp);
    e->u.call.callee = g, e->u.call.nargs = n;
    e->u.call.args = base_arena_alloc(&irb_->arena, (n + 1) * sizeof *args);
    if (n) memcpy(e->u.call.args, args, n * sizeof *args);
    e->type = g->nresults == 1 ? g->results[0] : (cc_type){.kind = g->nresults ? CC_T_TUPLE : CC_T_VOID};
    return e;
}
#define CALL(g, sp, ...) ir_call(g, sp, (cc_ir_expr *[]){__VA_ARGS__}, NARGS_(cc_ir_expr *, __VA_ARGS__))
#define CALL0(g, sp) ir_call(g, sp, NULL, 0)

/* ---- statements ---- */
static inline cc_ir_block ir_block(cc_ir_stmt **items, uint32_t n)
{
    cc_ir_block b;
    cc_ir_block_make(&irb_->arena, &b, items, n);
    return b;
}
#define BLOCK(...) ir_block((cc_ir_stmt *[]){__VA_ARGS__}, NARGS_(cc_ir_stmt *, __VA_ARGS__))
static const cc_ir_block EMPTY = {NULL, 0};

static inline cc_ir_stmt *ir_assign(cc_span sp, const char **names, uint32_t n, cc_ir_expr *value)
{
    cc_ir_stmt *s = cc_ir_stmt_new(&irb_->arena, CC_I_ASSIGN, sp);
    s->u.assign.targets = base_arena_alloc(&irb_->arena, n * sizeof *s->u.assign.targets);
    for (uint32_t k = 0; k < n; k++)
        s->u.assign.targets[k] = (cc_ir_target){names[k], n == 1 ? value->type : T_IDX, sp};
    s->u.assign.ntargets = n, s->u.assign.value = value;
    return s;
}
#define ASSIGN(sp, name, value) ir_assign(sp, (const char *[]){name}, 1, value)
#define ASSIGN2(sp, a, b, value) ir_assign(sp, (const char *[]){a, b}, 2, value)

static inline cc_ir_stmt *EXPR(cc_span sp, cc_ir_expr *e)
{
    cc_ir_stmt *s = cc_ir_stmt_new(&irb_->arena, CC_I_EXPR, sp);
    s->u.expr = e;
    return s;
}
static inline cc_ir_stmt *FOR(cc_span sp, const char *var, cc_ir_expr *start, cc_ir_expr *stop, cc_ir_expr *step, cc_ir_block body)
{
    cc_ir_stmt *s = cc_ir_stmt_new(&irb_->arena, CC_I_FOR, sp);
    s->u.for_.var = var, s->u.for_.var_span = sp;
    s->u.for_.start = start, s->u.for_.stop = stop, s->u.for_.step = step, s->u.for_.body = body;
    return s;
}
static inline cc_ir_stmt *WHILE(cc_span sp, cc_ir_expr *cond, cc_ir_block body)
{
    cc_ir_stmt *s = cc_ir_stmt_new(&irb_->arena, CC_I_WHILE, sp);
    s->u.while_.cond = cond, s->u.while_.body = body;
    return s;
}
static inline cc_ir_stmt *IF(cc_span sp, cc_ir_expr *cond, cc_ir_block then, cc_ir_block orelse)
{
    cc_ir_stmt *s = cc_ir_stmt_new(&irb_->arena, CC_I_IF, sp);
    s->u.if_.cond = cond, s->u.if_.then = then, s->u.if_.orelse = orelse;
    return s;
}
static inline cc_ir_stmt *SCOPE(cc_span sp, cc_scope_mode mode, cc_ir_block body)
{
    return cc_ir_scope_new(&irb_->arena, mode, 0, body, sp);
}
static inline cc_ir_stmt *AT(cc_span sp, cc_level level, cc_ir_block body)
{
    cc_ir_stmt *s = cc_ir_stmt_new(&irb_->arena, CC_I_AT, sp);
    s->u.at.level = (uint8_t)level, s->u.at.body = body;
    return s;
}
static inline cc_ir_stmt *ir_ret(cc_span sp, cc_ir_expr **values, uint32_t n)
{
    cc_ir_stmt *s = cc_ir_stmt_new(&irb_->arena, CC_I_RETURN, sp);
    s->u.ret.values = base_arena_alloc(&irb_->arena, (n + 1) * sizeof *values);
    memcpy(s->u.ret.values, values, n * sizeof *values);
    s->u.ret.n = n;
    return s;
}
#define RET(sp, ...) ir_ret(sp, (cc_ir_expr *[]){__VA_ARGS__}, NARGS_(cc_ir_expr *, __VA_ARGS__))

/* ---- functions ---- */
static inline cc_ir_param P(const char *name, cc_type t, cc_dir dir)
{
    return (cc_ir_param){.name = name, .type = t, .dir = (uint8_t)dir, .span = SP(1, 1)};
}

/* A function appended to the program; results as given (n of them). */
static inline cc_ir_func *ir_func(const char *name, cc_func_kind kind, cc_ir_param *params, uint32_t np,
                                  const cc_type *results, uint32_t nr)
{
    cc_ir_func *f = base_arena_alloc(&irb_->arena, sizeof *f);
    f->name = name, f->kind = (uint8_t)kind, f->span = SP(1, 1), f->level = CC_LEVEL_CORE_GROUP;
    f->params = base_arena_alloc(&irb_->arena, (np + 1) * sizeof *params);
    if (np) memcpy(f->params, params, np * sizeof *params);
    f->nparams = np;
    f->results = base_arena_alloc(&irb_->arena, (nr + 1) * sizeof *results);
    if (nr) memcpy(f->results, results, nr * sizeof *results);
    f->nresults = nr;
    cc_ir_program_add_func(&irb_->p, f, irb_->p.nfuncs);
    return f;
}
#define PARAMS(...) (cc_ir_param[]){__VA_ARGS__}, NARGS_(cc_ir_param, __VA_ARGS__)
#define RESULTS(...) (cc_type[]){__VA_ARGS__}, NARGS_(cc_type, __VA_ARGS__)
#define NO_RESULTS NULL, 0

/* ---- the dump ---- */
static inline void ir_dump_expr(base_strbuf *o, const cc_ir_expr *e)
{
    if (!e) return base_strbuf_puts(o, "None");
    switch (e->kind) {
    case CC_X_INT: base_strbuf_printf(o, "%lld", (long long)e->u.i); break;
    case CC_X_FLOAT: base_strbuf_printf(o, "%g", e->u.f); break;
    case CC_X_BOOL: base_strbuf_puts(o, e->u.i ? "True" : "False"); break;
    case CC_X_STR: base_strbuf_printf(o, "'%s'", e->u.str); break;
    case CC_X_VAR: base_strbuf_puts(o, e->u.name); break;
    case CC_X_BINARY:
        base_strbuf_puts(o, "("), ir_dump_expr(o, e->u.bin.l);
        base_strbuf_printf(o, " %s ", cc_op_text(e->u.bin.op)), ir_dump_expr(o, e->u.bin.r), base_strbuf_puts(o, ")");
        break;
    case CC_X_UNARY: base_strbuf_printf(o, "(%s ", cc_op_text(e->u.un.op)), ir_dump_expr(o, e->u.un.x), base_strbuf_puts(o, ")"); break;
    case CC_X_LIST:
        base_strbuf_puts(o, "[");
        for (uint32_t k = 0; k < e->u.list.n; k++) base_strbuf_puts(o, k ? ", " : ""), ir_dump_expr(o, e->u.list.items[k]);
        base_strbuf_puts(o, "]");
        break;
    case CC_X_OP: {
        uint32_t n = cc_ir_op_nslots(e->u.op.op);
        while (n && !e->u.op.args[n - 1]) n--;
        base_strbuf_printf(o, "pl.%s(", cc_ir_op_name(e->u.op.op));
        for (uint32_t k = 0; k < n; k++) base_strbuf_puts(o, k ? ", " : ""), ir_dump_expr(o, e->u.op.args[k]);
        base_strbuf_puts(o, ")");
        break;
    }
    case CC_X_CALL:
        base_strbuf_printf(o, "%s%s(", e->u.call.submit ? "submit " : "", e->u.call.callee->name);
        for (uint32_t k = 0; k < e->u.call.nargs; k++) base_strbuf_puts(o, k ? ", " : ""), ir_dump_expr(o, e->u.call.args[k]);
        base_strbuf_puts(o, ")");
        break;
    }
}

static inline void ir_dump_block(base_strbuf *o, const cc_ir_block *b, int depth);

static inline void ir_dump_stmt(base_strbuf *o, const cc_ir_stmt *s, int depth)
{
    base_strbuf_printf(o, "%*s", 2 * depth, "");
    switch (s->kind) {
    case CC_I_ASSIGN:
        for (uint32_t k = 0; k < s->u.assign.ntargets; k++) base_strbuf_printf(o, "%s%s", k ? ", " : "", s->u.assign.targets[k].name);
        base_strbuf_puts(o, " = "), ir_dump_expr(o, s->u.assign.value), base_strbuf_puts(o, "\n");
        break;
    case CC_I_EXPR: ir_dump_expr(o, s->u.expr), base_strbuf_puts(o, "\n"); break;
    case CC_I_FOR:
        base_strbuf_printf(o, "for %s in ", s->u.for_.var), ir_dump_expr(o, s->u.for_.start), base_strbuf_puts(o, "..");
        ir_dump_expr(o, s->u.for_.stop), base_strbuf_puts(o, " step "), ir_dump_expr(o, s->u.for_.step), base_strbuf_puts(o, ":\n");
        ir_dump_block(o, &s->u.for_.body, depth + 1);
        break;
    case CC_I_WHILE:
        base_strbuf_puts(o, "while "), ir_dump_expr(o, s->u.while_.cond), base_strbuf_puts(o, ":\n");
        ir_dump_block(o, &s->u.while_.body, depth + 1);
        break;
    case CC_I_IF:
        base_strbuf_puts(o, "if "), ir_dump_expr(o, s->u.if_.cond), base_strbuf_puts(o, ":\n");
        ir_dump_block(o, &s->u.if_.then, depth + 1);
        if (s->u.if_.orelse.n) base_strbuf_printf(o, "%*selse:\n", 2 * depth, ""), ir_dump_block(o, &s->u.if_.orelse, depth + 1);
        break;
    case CC_I_SCOPE:
        base_strbuf_printf(o, "scope %s", s->u.scope.mode == CC_SCOPE_MANUAL ? "MANUAL" : "AUTO");
        if (s->u.scope.inlined_from)
            base_strbuf_printf(o, " from %s @%u:%u", s->u.scope.inlined_from, s->u.scope.inlined_at.line, s->u.scope.inlined_at.col);
        base_strbuf_puts(o, ":\n"), ir_dump_block(o, &s->u.scope.body, depth + 1);
        break;
    case CC_I_AT:
        base_strbuf_printf(o, "at %s%s%s:\n", cc_level_name(s->u.at.level), s->u.at.as_name ? " as " : "",
                           s->u.at.as_name ? s->u.at.as_name : "");
        ir_dump_block(o, &s->u.at.body, depth + 1);
        break;
    case CC_I_RETURN:
        base_strbuf_puts(o, "return");
        for (uint32_t k = 0; k < s->u.ret.n; k++) base_strbuf_puts(o, k ? ", " : " "), ir_dump_expr(o, s->u.ret.values[k]);
        base_strbuf_puts(o, "\n");
        break;
    }
}

static inline void ir_dump_block(base_strbuf *o, const cc_ir_block *b, int depth)
{
    for (uint32_t i = 0; i < b->n; i++) ir_dump_stmt(o, b->items[i], depth);
}

/* f's body as dump text (valid until the next call). */
static inline const char *ir_dump(const cc_ir_func *f)
{
    static base_strbuf out;
    base_strbuf_free(&out);
    ir_dump_block(&out, &f->body, 0);
    return base_strbuf_str(&out);
}

#endif
