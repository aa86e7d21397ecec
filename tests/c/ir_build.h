/*
 * ir_build.h - hand-built IR for the pass tests: one program per test (file
 * "k.py"), statements and expressions with fresh line numbers, and an
 * S-expression dump of a function body:
 *
 *   (scope auto (for (scope auto (call k))) (return))
 *
 * Include after harness.h.  Every builder asserts instead of returning NULL.
 */
#ifndef PTO_IR_BUILD_H
#define PTO_IR_BUILD_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "compiler/ir.h"
#include "compiler/passes.h"

typedef struct irb {
    cc_source src;
    cc_diags diags;
    base_arena arena;
    cc_ir_program p;
    uint32_t line; /* the last line handed out */
} irb;

static irb B;

static inline void irb_init(void)
{
    memset(&B, 0, sizeof B);
    assert_int_equal(cc_source_init(&B.src, "k.py", "", 0), 0);
    cc_diags_init(&B.diags, &B.src);
    base_arena_init(&B.arena);
    B.p = (cc_ir_program){.name = "prog", .arena = &B.arena, .diags = &B.diags, .src = &B.src};
}

static inline void irb_free(void)
{
    base_arena_free(&B.arena);
    cc_diags_free(&B.diags);
    cc_source_free(&B.src);
}

static inline void *irb_alloc(size_t n)
{
    void *x = base_arena_alloc(&B.arena, n);
    assert_non_null(x);
    return x;
}

static inline cc_span irb_span(void)
{
    B.line++;
    return (cc_span){B.line, 5, B.line, 20};
}

static const cc_type irb_tensor = {.kind = CC_T_TENSOR, .dtype = CC_DT_FP32, .rank = 2, .shape = {64, 128}};
static const cc_type irb_tile = {.kind = CC_T_TILE, .dtype = CC_DT_FP32, .rank = 2, .shape = {64, 128}};
static const cc_type irb_index = {.kind = CC_T_SCALAR, .dtype = CC_DT_INDEX};

/* ---- functions ------------------------------------------------------------------------- */

static inline cc_ir_func *irb_func(const char *name, cc_func_kind kind, int auto_scope)
{
    cc_ir_func *f = irb_alloc(sizeof *f);
    f->name = name, f->kind = (uint8_t)kind, f->auto_scope = (uint8_t)auto_scope, f->span = irb_span();
    assert_true(cc_ir_program_add_func(&B.p, f, B.p.nfuncs));
    return f;
}

/* Adds a tensor parameter with direction dir. */
static inline void irb_param(cc_ir_func *f, const char *name, cc_dir dir)
{
    cc_ir_param *ps = irb_alloc((f->nparams + 1) * sizeof *ps);
    if (f->nparams) memcpy(ps, f->params, f->nparams * sizeof *ps);
    ps[f->nparams++] = (cc_ir_param){.name = name, .type = irb_tensor, .dir = (uint8_t)dir, .span = irb_span()};
    f->params = ps;
}

/* ---- blocks and statements --------------------------------------------------------------- */

/* A block of the statements up to the NULL: BLK(s1, s2), BLK(NULL) is empty. */
#define BLK(...) irb_block((cc_ir_stmt *[]){__VA_ARGS__, NULL})

static inline cc_ir_block irb_block(cc_ir_stmt **items)
{
    uint32_t n = 0;
    while (items[n]) n++;
    cc_ir_block b;
    assert_true(cc_ir_block_make(&B.arena, &b, items, n));
    return b;
}

static inline cc_ir_stmt *irb_stmt(cc_ir_stmt_kind k)
{
    cc_ir_stmt *s = cc_ir_stmt_new(&B.arena, k, irb_span());
    assert_non_null(s);
    return s;
}

static inline cc_ir_stmt *s_for(cc_ir_block body)
{
    cc_ir_stmt *s = irb_stmt(CC_I_FOR);
    s->u.for_.var = "i";
    s->u.for_.start = cc_ir_int(&B.arena, 0, s->span);
    s->u.for_.stop = cc_ir_int(&B.arena, 4, s->span);
    s->u.for_.step = cc_ir_int(&B.arena, 1, s->span);
    s->u.for_.body = body;
    return s;
}

static inline cc_ir_stmt *s_while(cc_ir_block body)
{
    cc_ir_stmt *s = irb_stmt(CC_I_WHILE);
    s->u.while_.cond = cc_ir_var(&B.arena, "c", irb_index, s->span);
    s->u.while_.body = body;
    return s;
}

static inline cc_ir_stmt *s_if(cc_ir_block then, cc_ir_block orelse)
{
    cc_ir_stmt *s = irb_stmt(CC_I_IF);
    s->u.if_.cond = cc_ir_var(&B.arena, "c", irb_index, s->span);
    s->u.if_.then = then, s->u.if_.orelse = orelse;
    return s;
}

static inline cc_ir_stmt *s_scope(cc_scope_mode mode, cc_ir_block body)
{
    cc_ir_stmt *s = cc_ir_scope_new(&B.arena, mode, 0, body, irb_span());
    assert_non_null(s);
    return s;
}

static inline cc_ir_stmt *s_at(cc_level level, cc_ir_block body)
{
    cc_ir_stmt *s = irb_stmt(CC_I_AT);
    s->u.at.level = (uint8_t)level, s->u.at.body = body;
    return s;
}

static inline cc_ir_stmt *s_expr(cc_ir_expr *e)
{
    cc_ir_stmt *s = irb_stmt(CC_I_EXPR);
    s->u.expr = e;
    return s;
}

static inline cc_ir_stmt *s_assign(const char *name, cc_ir_expr *value)
{
    cc_ir_stmt *s = irb_stmt(CC_I_ASSIGN);
    s->u.assign.targets = irb_alloc(sizeof *s->u.assign.targets);
    s->u.assign.targets[0] = (cc_ir_target){.name = name, .type = value->type, .span = s->span};
    s->u.assign.ntargets = 1, s->u.assign.value = value;
    return s;
}

static inline cc_ir_stmt *s_return(void) { return irb_stmt(CC_I_RETURN); }

/* ---- expressions ------------------------------------------------------------------------- */

static inline cc_ir_expr *e_var(const char *name) { return cc_ir_var(&B.arena, name, irb_tensor, irb_span()); }
static inline cc_ir_expr *e_int(int64_t v) { return cc_ir_int(&B.arena, v, irb_span()); }

/* A call of f with tensor arguments named by the strings up to NULL. */
static inline cc_ir_expr *e_call(cc_ir_func *f, ...)
{
    cc_ir_expr *e = cc_ir_expr_new(&B.arena, CC_X_CALL, irb_span());
    assert_non_null(e);
    e->u.call.callee = f;
    e->u.call.args = irb_alloc(8 * sizeof *e->u.call.args);
    va_list ap;
    va_start(ap, f);
    for (const char *a; (a = va_arg(ap, const char *)) && e->u.call.nargs < 8;)
        e->u.call.args[e->u.call.nargs++] = e_var(a);
    va_end(ap);
    return e;
}

static inline cc_ir_expr *e_op(cc_ir_op op)
{
    cc_ir_expr *e = cc_ir_op_new(&B.arena, op, irb_span());
    assert_non_null(e);
    return e;
}

static inline cc_ir_expr *e_create(void)
{
    cc_ir_expr *e = e_op(CC_IR_CREATE_TENSOR);
    e->type = irb_tensor, e->u.op.dtype = CC_DT_FP32;
    return e;
}

static inline cc_ir_expr *e_load(const char *tensor, cc_cache_policy cache)
{
    cc_ir_expr *e = e_op(CC_IR_LOAD);
    e->type = irb_tile, e->u.op.cache = (uint8_t)cache, e->u.op.args[0] = e_var(tensor);
    return e;
}

static inline cc_ir_expr *e_store(cc_ir_expr *tile, const char *tensor)
{
    cc_ir_expr *e = e_op(CC_IR_STORE);
    e->type = irb_tensor, e->u.op.args[0] = tile, e->u.op.args[2] = e_var(tensor);
    return e;
}

static inline cc_ir_expr *e_binop(cc_ir_op op, cc_ir_expr *l, cc_ir_expr *r)
{
    cc_ir_expr *e = e_op(op);
    e->type = irb_tile, e->u.op.args[0] = l, e->u.op.args[1] = r;
    return e;
}

/* e with its span moved to line (to fix source order independently of build order). */
static inline cc_ir_expr *at_line(cc_ir_expr *e, uint32_t line)
{
    e->span = (cc_span){line, 5, line, 20};
    return e;
}

/* ---- diagnostics --------------------------------------------------------------------------- */

static inline void irb_expect_diag(size_t i, cc_diag_class cls, const char *message)
{
    assert_true(i < B.diags.n);
    assert_string_equal(B.diags.items[i].message, message);
    assert_int_equal(B.diags.items[i].cls, cls);
}

/* ---- dump ------------------------------------------------------------------------------------ */

#define IRB_OUT(...) (*n += (size_t)snprintf(b + *n, *n < cap ? cap - *n : 0, __VA_ARGS__))

static inline void irb_dump_block(char *b, size_t cap, size_t *n, const cc_ir_block *blk);

static inline void irb_dump_expr(char *b, size_t cap, size_t *n, const cc_ir_expr *e)
{
    if (e->kind == CC_X_CALL) IRB_OUT("(%s %s)", e->u.call.submit ? "submit" : "call", e->u.call.callee->name);
    else if (e->kind == CC_X_OP) IRB_OUT("(%s)", cc_ir_op_name(e->u.op.op));
    else if (e->kind == CC_X_VAR) IRB_OUT("%s", e->u.name);
    else IRB_OUT("?");
}

static inline void irb_dump_stmt(char *b, size_t cap, size_t *n, const cc_ir_stmt *s)
{
    switch (s->kind) {
    case CC_I_SCOPE: IRB_OUT("(scope %s", s->u.scope.mode == CC_SCOPE_AUTO ? "auto" : "manual"); irb_dump_block(b, cap, n, &s->u.scope.body); break;
    case CC_I_FOR: IRB_OUT("(for"); irb_dump_block(b, cap, n, &s->u.for_.body); break;
    case CC_I_WHILE: IRB_OUT("(while"); irb_dump_block(b, cap, n, &s->u.while_.body); break;
    case CC_I_AT: IRB_OUT("(at %s", cc_level_name(s->u.at.level)); irb_dump_block(b, cap, n, &s->u.at.body); break;
    case CC_I_IF:
        IRB_OUT("(if (then");
        irb_dump_block(b, cap, n, &s->u.if_.then);
        IRB_OUT(")");
        if (s->u.if_.orelse.n) IRB_OUT(" (else"), irb_dump_block(b, cap, n, &s->u.if_.orelse), IRB_OUT(")");
        break;
    case CC_I_EXPR: irb_dump_expr(b, cap, n, s->u.expr); return;
    case CC_I_ASSIGN: IRB_OUT("(= %s ", s->u.assign.targets[0].name), irb_dump_expr(b, cap, n, s->u.assign.value); break;
    case CC_I_RETURN: IRB_OUT("(return"); break;
    default: IRB_OUT("(?"); break;
    }
    IRB_OUT(")");
}

static inline void irb_dump_block(char *b, size_t cap, size_t *n, const cc_ir_block *blk)
{
    for (uint32_t k = 0; k < blk->n; k++) IRB_OUT(" "), irb_dump_stmt(b, cap, n, blk->items[k]);
}

/* The body of f, its statements separated by spaces (a static buffer). */
static inline const char *irb_dump(const cc_ir_func *f)
{
    static char buf[4096];
    size_t len = 0;
    buf[0] = 0;
    irb_dump_block(buf, sizeof buf, &len, &f->body);
    return buf + (len > 0);
}

#endif
