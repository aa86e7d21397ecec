/*
 * ir_handmade.h - small hand-built IR for the pass tests (test_outline,
 * test_call_directions): a program in one arena, terse constructors for
 * the nodes stage 0 produces, the seed's manual_placement entry, and a
 * compact dump of expressions and footprint boxes ("In [i*64:i*64+64, *]",
 * `*` = the whole dimension).  One builder is current at a time (B).
 * dsl_compile() runs real DSL text through pto_compile up to a stage.
 */
#ifndef TEST_IR_HANDMADE_H
#define TEST_IR_HANDMADE_H

#include <stdio.h>
#include <string.h>

#include "base/strbuf.h"
#include "compiler/passes.h"
#include "pto/compile.h"

typedef struct irb {
    cc_source src;
    cc_diags diags;
    base_arena arena;
    cc_ir_program p;
    char dump[512];
} irb;

static irb *B;

static inline void irb_init(irb *b)
{
    memset(b, 0, sizeof *b);
    cc_source_init(&b->src, "k.py", "\n", 1);
    cc_diags_init(&b->diags, &b->src);
    base_arena_init(&b->arena);
    b->p = (cc_ir_program){.name = "prog", .arena = &b->arena, .diags = &b->diags, .src = &b->src};
    B = b;
}

static inline void irb_free(irb *b)
{
    base_arena_free(&b->arena);
    cc_diags_free(&b->diags);
    cc_source_free(&b->src);
}

static inline cc_span L(uint32_t line) { return (cc_span){line, 1, line, 2}; }

/* ---- types and expressions ---- */
static inline cc_type TT(int64_t r, int64_t c) { return (cc_type){.kind = CC_T_TENSOR, .dtype = CC_DT_FP32, .rank = 2, .shape = {r, c}}; }
static inline cc_type TTILE(int64_t r, int64_t c) { return (cc_type){.kind = CC_T_TILE, .dtype = CC_DT_FP32, .rank = 2, .shape = {r, c}}; }
static inline cc_type TS(cc_dtype d) { return (cc_type){.kind = CC_T_SCALAR, .dtype = (uint8_t)d}; }
#define TI TS(CC_DT_INDEX)
#define TTID TS(CC_DT_TASK_ID)

static inline cc_ir_expr *V(const char *n, cc_type t) { return cc_ir_var(&B->arena, n, t, L(0)); }
static inline cc_ir_expr *I(int64_t v) { return cc_ir_int(&B->arena, v, L(0)); }
static inline cc_ir_expr *F(double v)
{
    cc_ir_expr *e = cc_ir_expr_new(&B->arena, CC_X_FLOAT, L(0));
    e->u.f = v, e->type = TS(CC_DT_FP32);
    return e;
}
static inline cc_ir_expr *BIN(cc_op op, cc_ir_expr *l, cc_ir_expr *r) { return cc_ir_binary(&B->arena, op, l, r, L(0)); }
static inline cc_ir_expr *LIST2(cc_ir_expr *a, cc_ir_expr *b)
{
    cc_ir_expr *e = cc_ir_expr_new(&B->arena, CC_X_LIST, L(0));
    e->u.list.items = base_arena_alloc(&B->arena, 2 * sizeof *e->u.list.items);
    e->u.list.items[0] = a, e->u.list.items[1] = b, e->u.list.n = 2;
    e->type.kind = CC_T_LIST;
    return e;
}
static inline cc_ir_expr *OP(cc_ir_op op, uint32_t line, cc_type t, cc_ir_expr *a0, cc_ir_expr *a1, cc_ir_expr *a2, cc_ir_expr *a3)
{
    cc_ir_expr *e = cc_ir_op_new(&B->arena, op, L(line));
    cc_ir_expr *args[4] = {a0, a1, a2, a3};
    for (uint32_t k = 0; k < cc_ir_op_nslots(op); k++) e->u.op.args[k] = args[k];
    e->type = t;
    return e;
}
/* pl.load(t, [o0, o1], [s0, s1]) of a rank-2 FP32 tensor. */
static inline cc_ir_expr *LOAD(cc_ir_expr *t, cc_ir_expr *o0, cc_ir_expr *o1, int64_t s0, int64_t s1)
{
    return OP(CC_IR_LOAD, 0, TTILE(s0, s1), t, LIST2(o0, o1), LIST2(I(s0), I(s1)), NULL);
}
static inline cc_ir_expr *LOADI(cc_ir_expr *t)
{
    cc_ir_expr *e = OP(CC_IR_LOAD, 0, TTILE(t->type.shape[0], t->type.shape[1]), t, LIST2(I(0), I(0)),
                       LIST2(I(t->type.shape[0]), I(t->type.shape[1])), NULL);
    e->u.op.implicit = 1;
    return e;
}
/* pl.store(tile, [o0, o1], t) at line; shapes = the tile's. */
static inline cc_ir_expr *STORE(uint32_t line, cc_ir_expr *tile, cc_ir_expr *o0, cc_ir_expr *o1, cc_ir_expr *t)
{
    return OP(CC_IR_STORE, line, t->type, tile, LIST2(o0, o1), t, LIST2(I(tile->type.shape[0]), I(tile->type.shape[1])));
}
static inline cc_ir_expr *TILEOP(cc_ir_op op, cc_ir_expr *x, cc_ir_expr *y) { return OP(op, 0, x->type, x, y, NULL, NULL); }

/* ---- statements ---- */
#define BLK(...) blk((cc_ir_stmt *[]){__VA_ARGS__}, sizeof((cc_ir_stmt *[]){__VA_ARGS__}) / sizeof(cc_ir_stmt *))
#define NOBLK ((cc_ir_block){0})
static inline cc_ir_block blk(cc_ir_stmt **items, uint32_t n)
{
    cc_ir_block b;
    cc_ir_block_make(&B->arena, &b, items, n);
    return b;
}
static inline cc_ir_stmt *ASSIGN(uint32_t line, const char *n, cc_type t, cc_ir_expr *v)
{
    cc_ir_stmt *s = cc_ir_stmt_new(&B->arena, CC_I_ASSIGN, L(line));
    s->u.assign.targets = base_arena_alloc(&B->arena, sizeof *s->u.assign.targets);
    s->u.assign.targets[0] = (cc_ir_target){n, t, L(line)};
    s->u.assign.ntargets = 1, s->u.assign.value = v;
    return s;
}
static inline cc_ir_stmt *EXPR(uint32_t line, cc_ir_expr *e)
{
    cc_ir_stmt *s = cc_ir_stmt_new(&B->arena, CC_I_EXPR, L(line));
    s->u.expr = e;
    return s;
}
static inline cc_ir_stmt *FOR(uint32_t line, const char *v, cc_ir_expr *start, cc_ir_expr *stop, cc_ir_expr *step, cc_ir_block body)
{
    cc_ir_stmt *s = cc_ir_stmt_new(&B->arena, CC_I_FOR, L(line));
    s->u.for_.var = v, s->u.for_.start = start, s->u.for_.stop = stop, s->u.for_.step = step, s->u.for_.body = body;
    return s;
}
static inline cc_ir_stmt *IF(uint32_t line, cc_ir_expr *c, cc_ir_block then, cc_ir_block orelse)
{
    cc_ir_stmt *s = cc_ir_stmt_new(&B->arena, CC_I_IF, L(line));
    s->u.if_.cond = c, s->u.if_.then = then, s->u.if_.orelse = orelse;
    return s;
}
static inline cc_ir_stmt *AT(uint32_t line, cc_level level, cc_ir_block body)
{
    cc_ir_stmt *s = cc_ir_stmt_new(&B->arena, CC_I_AT, L(line));
    s->u.at.level = (uint8_t)level, s->u.at.body = body;
    return s;
}
static inline cc_ir_stmt *SCOPE(uint32_t line, cc_ir_block body) { return cc_ir_scope_new(&B->arena, CC_SCOPE_AUTO, 0, body, L(line)); }
static inline cc_ir_stmt *RET(uint32_t line, cc_ir_expr *v)
{
    cc_ir_stmt *s = cc_ir_stmt_new(&B->arena, CC_I_RETURN, L(line));
    s->u.ret.values = base_arena_alloc(&B->arena, sizeof *s->u.ret.values);
    s->u.ret.values[0] = v, s->u.ret.n = 1;
    return s;
}

/* ---- functions ---- */
static inline cc_ir_func *FUNC(const char *name, cc_func_kind kind, cc_ir_block body)
{
    cc_ir_func *f = base_arena_alloc(&B->arena, sizeof *f);
    f->name = name, f->kind = (uint8_t)kind, f->auto_scope = 1, f->body = body, f->span = L(1);
    f->params = base_arena_alloc(&B->arena, 8 * sizeof *f->params);
    if (kind == CC_FUNC_INCORE) f->level = CC_LEVEL_CORE_GROUP;
    cc_ir_program_add_func(&B->p, f, B->p.nfuncs);
    return f;
}
/* Adds a parameter; dir CC_DIR_NONE = undeclared. */
static inline void PARAM(cc_ir_func *f, const char *name, cc_type t, cc_dir dir)
{
    f->params[f->nparams++] = (cc_ir_param){.name = name, .type = t, .dir = (uint8_t)dir, .declared = dir != CC_DIR_NONE, .span = L(1)};
}
static inline cc_ir_expr *CALL(cc_ir_func *g, cc_ir_expr **args)
{
    cc_ir_expr *e = cc_ir_expr_new(&B->arena, CC_X_CALL, L(0));
    e->u.call.callee = g, e->u.call.args = args, e->u.call.nargs = g->nparams;
    return e;
}

/* The seed's manual_placement (lines 1-12 as in the seed page). */
static inline cc_ir_func *seed_manual_placement(void)
{
    cc_type t256 = TT(256, 128);
    cc_ir_func *f = FUNC("manual_placement", CC_FUNC_ORCHESTRATION, BLK(
        SCOPE(2, BLK(
            FOR(3, "i", I(0), I(4), I(1), BLK(
                AT(4, CC_LEVEL_CORE_GROUP, BLK(
                    ASSIGN(5, "t", TTILE(64, 128), LOAD(V("a", t256), BIN(CC_OP_MUL, V("i", TI), I(64)), I(0), 64, 128)),
                    EXPR(6, STORE(6, TILEOP(CC_IR_MUL, V("t", TTILE(64, 128)), F(2.0)), BIN(CC_OP_MUL, V("i", TI), I(64)), I(0),
                                  V("out", t256))))))),
            SCOPE(7, BLK(
                AT(8, CC_LEVEL_CORE_GROUP, BLK(
                    FOR(9, "i", I(0), I(4), I(1), BLK(
                        ASSIGN(10, "t", TTILE(64, 128), LOAD(V("out", t256), BIN(CC_OP_MUL, V("i", TI), I(64)), I(0), 64, 128)),
                        EXPR(11, STORE(11, TILEOP(CC_IR_ADD, V("t", TTILE(64, 128)), F(1.0)), BIN(CC_OP_MUL, V("i", TI), I(64)),
                                       I(0), V("out", t256))))))))))),
        RET(12, V("out", t256))));
    f->auto_scope = 0;
    PARAM(f, "a", t256, CC_DIR_IN);
    PARAM(f, "out", t256, CC_DIR_OUT);
    return f;
}

/* ---- dumps ---- */
static inline int prec(const cc_ir_expr *e)
{
    if (e->kind != CC_X_BINARY) return 9;
    switch (e->u.bin.op) {
    case CC_OP_ADD: case CC_OP_SUB: return 1;
    case CC_OP_MUL: case CC_OP_FLOORDIV: case CC_OP_MOD: return 2;
    default: return 9;
    }
}

static inline void dump_expr(const cc_ir_expr *e, base_strbuf *o)
{
    switch (e->kind) {
    case CC_X_INT: base_strbuf_printf(o, "%lld", (long long)e->u.i); break;
    case CC_X_VAR: base_strbuf_puts(o, e->u.name); break;
    case CC_X_BINARY: {
        cc_op op = e->u.bin.op;
        if (op == CC_OP_MIN || op == CC_OP_MAX) {
            base_strbuf_puts(o, op == CC_OP_MIN ? "min(" : "max(");
            dump_expr(e->u.bin.l, o), base_strbuf_puts(o, ", "), dump_expr(e->u.bin.r, o), base_strbuf_puts(o, ")");
            break;
        }
        int pl = prec(e->u.bin.l) < prec(e), pr = prec(e->u.bin.r) <= prec(e) && prec(e->u.bin.r) != 9;
        if (pl) base_strbuf_puts(o, "(");
        dump_expr(e->u.bin.l, o);
        base_strbuf_puts(o, pl ? ")" : "");
        base_strbuf_puts(o, op == CC_OP_ADD ? "+" : op == CC_OP_SUB ? "-" : op == CC_OP_MUL ? "*" : op == CC_OP_FLOORDIV ? "//" : "%");
        if (pr) base_strbuf_puts(o, "(");
        dump_expr(e->u.bin.r, o);
        if (pr) base_strbuf_puts(o, ")");
        break;
    }
    default: base_strbuf_puts(o, "?"); break;
    }
}

/* "In [lo:hi, *]" */
static inline const char *box_str(const cc_ir_box *b)
{
    base_strbuf o = {0};
    base_strbuf_printf(&o, "%s [", cc_dir_name((cc_dir)b->dir));
    for (uint32_t d = 0; d < b->rank; d++) {
        if (d) base_strbuf_puts(&o, ", ");
        if (!b->lo[d]) base_strbuf_puts(&o, "*");
        else dump_expr(b->lo[d], &o), base_strbuf_puts(&o, ":"), dump_expr(b->hi[d], &o);
    }
    base_strbuf_puts(&o, "]");
    snprintf(B->dump, sizeof B->dump, "%s", base_strbuf_str(&o));
    base_strbuf_free(&o);
    return B->dump;
}

/* Statement i of f's body through a path of nested first blocks: stmt_at(f, 2, 0, 1). */
static inline cc_ir_stmt *body_stmt(cc_ir_block *b, const uint32_t *path, uint32_t n)
{
    cc_ir_stmt *s = b->items[path[0]];
    if (n == 1) return s;
    cc_ir_block *sub = s->kind == CC_I_FOR ? &s->u.for_.body : s->kind == CC_I_SCOPE ? &s->u.scope.body
                     : s->kind == CC_I_IF ? &s->u.if_.then : s->kind == CC_I_AT ? &s->u.at.body : &s->u.while_.body;
    return body_stmt(sub, path + 1, n - 1);
}
#define STMT(f, ...) body_stmt(&(f)->body, (uint32_t[]){__VA_ARGS__}, sizeof((uint32_t[]){__VA_ARGS__}) / sizeof(uint32_t))

/* Compiles entry of text through stage last with every tensor parameter
 * named in tensors (space-separated) a [256, 128] FP32 argument; returns the
 * handle (the caller frees it) and *rc. */
static inline pto_program *dsl_compile(const char *text, const char *entry, const char *tensors, pto_stage last, int *rc)
{
    pto_arg_spec specs[8];
    size_t n = 0;
    static char names[8][32];
    for (const char *s = tensors; *s && n < 8;) {
        size_t len = strcspn(s, " ");
        snprintf(names[n], sizeof names[n], "%.*s", (int)len, s);
        specs[n] = (pto_arg_spec){.name = names[n], .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .rank = 2, .shape = {256, 128}};
        n++;
        s += len + (s[len] == ' ');
    }
    pto_compile_options o = {.filename = "k.py", .source = text, .source_len = strlen(text), .entry = entry,
                             .args = specs, .nargs = n, .stop_after = (int)last};
    pto_program *p = NULL;
    *rc = pto_compile(&o, &p);
    return p;
}

#endif
