/*
 * test_lower.c - stage 7 (src/compiler/lower.c, lower_expr.c, lower_tile.c,
 * lower_print.c) on hand-built IR: the listing of scopes, loops, branches,
 * submits with boxes and deps, create_tensor, subroutine calls, returns and
 * tile programs; and, through a small interpreter of the scalar
 * instructions, that loops and branches compute what the source says.
 */
#include <stdlib.h>

#include "compiler/lower.h"
#include "pto/runtime.h"
#include "harness.h"
#include "dsl_compile.h"
#include "ir_build.h"

static const cc_type T_A = {.kind = CC_T_TENSOR, .dtype = CC_DT_FP32, .rank = 2, .shape = {256, 128}};
static const cc_type T_TL = {.kind = CC_T_TILE, .dtype = CC_DT_FP32, .rank = 2, .shape = {64, 128}};

/* The lowering of the program in B, and its listing. */
typedef struct lowered {
    cc_lowered *l;
    base_strbuf text;
} lowered;

static void lower(lowered *x)
{
    assert_int_equal(cc_lower(&B.p, &B.arena, &x->l), 0);
    cc_lowered_print(x->l, &x->text);
}

static void lowered_end(lowered *x)
{
    base_strbuf_free(&x->text);
    irb_free();
}

/* The instruction lines of a listing's procedure (or kernel) whose header
 * starts with header, up to the next header. */
static const char *code_in(const char *listing, const char *header)
{
    static char buf[8192];
    const char *s = strstr(listing, header);
    assert_non_null(s);
    size_t n = 0;
    for (s = strchr(s, '\n') + 1; *s && strncmp(s, "proc ", 5) && strncmp(s, "kernel ", 7);) {
        const char *e = strchr(s, '\n');
        size_t len = (size_t)(e - s) + 1;
        if (!strncmp(s, "    ", 4)) memcpy(buf + n, s, len), n += len;
        s = e + 1;
    }
    buf[n] = 0;
    return buf;
}

static const char *code_of(lowered *x, const char *header) { return code_in(base_strbuf_str(&x->text), header); }

static void assert_text(const char *got, const char *want)
{
    if (strcmp(got, want)) fprintf(stderr, "got:\n%s\nwant:\n%s\n", got, want);
    assert_string_equal(got, want);
}

/* ---- a tiny interpreter of the scalar instructions (integers only) ---- */

static int64_t floordiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

static int64_t run_bin(cc_op op, int64_t a, int64_t b)
{
    switch (op) {
    case CC_OP_ADD: return a + b;
    case CC_OP_SUB: return a - b;
    case CC_OP_MUL: return a * b;
    case CC_OP_FLOORDIV: return floordiv(a, b);
    case CC_OP_MOD: return a - floordiv(a, b) * b;
    case CC_OP_LT: return a < b;
    case CC_OP_GT: return a > b;
    case CC_OP_EQ: return a == b;
    default: fail_msg("op %d", op); return 0;
    }
}

static int64_t trips(int64_t s, int64_t e, int64_t st)
{
    int64_t n = st > 0 ? floordiv(e - s + st - 1, st) : floordiv(s - e - st - 1, -st);
    return n > 0 ? n : 0;
}

/* Runs proc 0 (scalar instructions only) with its registers r0.. = args;
 * returns the register the final RETURN names. */
static int64_t run(const cc_lo_proc *p, const int64_t *args, uint32_t nargs)
{
    int64_t *r = calloc(p->nregs + 1, sizeof *r);
    memcpy(r, args, nargs * sizeof *args);
    for (uint32_t pc = 0, steps = 0; steps < 100000; steps++) {
        const cc_lo_insn *in = &p->code[pc++];
        switch (in->code) {
        case CC_LO_CONST: r[in->dst] = in->u.imm.i; break;
        case CC_LO_MOV: r[in->dst] = r[in->a]; break;
        case CC_LO_BIN: r[in->dst] = run_bin((cc_op)in->op, r[in->a], r[in->b]); break;
        case CC_LO_TRIPS: r[in->dst] = trips(r[in->a], r[in->b], r[in->c]); break;
        case CC_LO_JUMP: pc = in->u.target; break;
        case CC_LO_JUMP_IF_FALSE: if (!r[in->a]) pc = in->u.target; break;
        case CC_LO_SCOPE_BEGIN: case CC_LO_SCOPE_END: break;
        case CC_LO_RETURN: {
            int64_t v = r[in->u.ret.refs[0].index];
            free(r);
            return v;
        }
        default: fail_msg("opcode %s", cc_lo_opcode_name((cc_lo_opcode)in->code));
        }
    }
    fail_msg("no return");
    return 0;
}

/* main(n): s = 0; for i in range(start, n, step): s = s + i; return s; run with n = stop */
static int64_t sum_range(int64_t start, int64_t stop, int64_t step, lowered *x)
{
    irb_init();
    cc_ir_func *f = FUNC("main", CC_FUNC_ORCHESTRATION, PARAMS(P("n", T_IDX, 0)), RESULTS(T_IDX));
    f->body = BLOCK(ASSIGN(SP(2, 5), "s", I(0)),
                    FOR(SP(3, 5), "i", I(start), V("n", T_IDX), I(step),
                        BLOCK(ASSIGN(SP(4, 9), "s", BIN(CC_OP_ADD, V("s", T_IDX), V("i", T_IDX))))),
                    RET(SP(5, 5), V("s", T_IDX)));
    lower(x);
    return run(&x->l->procs[0], &stop, 1);
}

static void test_lower_for_counts_trips_by_step_sign(void **state)
{
    (void)state;
    static const int64_t cases[][4] = {/* start, stop, step, sum */
                                       {10, 0, -3, 10 + 7 + 4 + 1}, {0, 7, 2, 0 + 2 + 4 + 6}, {5, 5, -1, 0},
                                       {0, -3, 1, 0}, {-2, -6, -1, -2 - 3 - 4 - 5}, {3, 10, 7, 3}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        lowered x = {0};
        assert_int_equal(sum_range(cases[c][0], cases[c][1], cases[c][2], &x), cases[c][3]);
        if (c == 0)
            assert_text(code_of(&x, "proc 0 main"),
                        "     0  CONST r2 = 10 INDEX @1:1\n"
                        "     1  CONST r4 = -3 INDEX @1:1\n"
                        "     2  CONST r7 = 1 INDEX @3:5\n"
                        "     3  CONST r1 = 0 INDEX @1:1\n"
                        "     4  MOV r3 = r0 @1:1\n"
                        "     5  TRIPS r5 = r2, r3, r4 @3:5\n"
                        "     6  CONST r6 = 0 INDEX @3:5\n"
                        "     7  LT r8 = r6, r5 INDEX @3:5\n"
                        "     8  JUMP_IF_FALSE r8 -> 14 @3:5\n"
                        "     9  MUL r9 = r6, r4 INDEX @3:5\n"
                        "    10  ADD r9 = r2, r9 INDEX @3:5\n"
                        "    11  ADD r1 = r1, r9 INDEX @1:1\n"
                        "    12  ADD r6 = r6, r7 INDEX @3:5\n"
                        "    13  JUMP -> 7 @3:5\n"
                        "    14  RETURN close=0 [r1] @5:5\n");
        lowered_end(&x);
    }
}

/* the bounds are read once: reassigning n in the body changes nothing */
static void test_lower_for_evaluates_bounds_once(void **state)
{
    (void)state;
    lowered x = {0};
    irb_init();
    cc_ir_func *f = FUNC("main", CC_FUNC_ORCHESTRATION, PARAMS(P("n", T_IDX, 0)), RESULTS(T_IDX));
    f->body = BLOCK(ASSIGN(SP(2, 5), "s", I(0)),
                    FOR(SP(3, 5), "i", I(0), V("n", T_IDX), I(1),
                        BLOCK(ASSIGN(SP(4, 9), "n", BIN(CC_OP_ADD, V("n", T_IDX), I(1))),
                              ASSIGN(SP(5, 9), "s", BIN(CC_OP_ADD, V("s", T_IDX), I(1))))),
                    RET(SP(6, 5), V("s", T_IDX)));
    lower(&x);
    int64_t n = 4;
    assert_int_equal(run(&x.l->procs[0], &n, 1), 4);
    lowered_end(&x);
}

static void test_lower_if_else_and_while(void **state)
{
    (void)state;
    lowered x = {0};
    irb_init();
    /* collatz steps of n: while n > 1: if n % 2 == 0: n = n // 2 else: n = 3n + 1 */
    cc_ir_func *f = FUNC("main", CC_FUNC_ORCHESTRATION, PARAMS(P("n", T_IDX, 0)), RESULTS(T_IDX));
    cc_ir_expr *even = BIN(CC_OP_EQ, BIN(CC_OP_MOD, V("n", T_IDX), I(2)), I(0));
    f->body = BLOCK(ASSIGN(SP(2, 5), "c", I(0)),
                    WHILE(SP(3, 5), BIN(CC_OP_GT, V("n", T_IDX), I(1)),
                          BLOCK(IF(SP(4, 9), even, BLOCK(ASSIGN(SP(5, 13), "n", BIN(CC_OP_FLOORDIV, V("n", T_IDX), I(2)))),
                                   BLOCK(ASSIGN(SP(7, 13), "n", BIN(CC_OP_ADD, BIN(CC_OP_MUL, V("n", T_IDX), I(3)), I(1))))),
                                IF(SP(8, 9), BIN(CC_OP_GT, V("c", T_IDX), I(100)), BLOCK(ASSIGN(SP(9, 13), "n", I(1))), EMPTY_BLOCK),
                                ASSIGN(SP(10, 9), "c", BIN(CC_OP_ADD, V("c", T_IDX), I(1))))),
                    RET(SP(11, 5), V("c", T_IDX)));
    lower(&x);
    int64_t n = 6; /* 6 3 10 5 16 8 4 2 1 */
    assert_int_equal(run(&x.l->procs[0], &n, 1), 8);
    n = 1;
    assert_int_equal(run(&x.l->procs[0], &n, 1), 0);
    assert_text(code_of(&x, "proc 0 main"),
                "     0  CONST r3 = 1 INDEX @1:1\n"
                "     1  CONST r6 = 2 INDEX @1:1\n"
                "     2  CONST r7 = 0 INDEX @1:1\n"
                "     3  CONST r8 = 2 INDEX @1:1\n"
                "     4  CONST r10 = 3 INDEX @1:1\n"
                "     5  CONST r11 = 1 INDEX @1:1\n"
                "     6  CONST r13 = 100 INDEX @1:1\n"
                "     7  CONST r14 = 1 INDEX @1:1\n"
                "     8  CONST r1 = 0 INDEX @1:1\n"
                "     9  GT r2 = r0, r3 INDEX @1:1\n"
                "    10  JUMP_IF_FALSE r2 -> 23 @3:5\n"
                "    11  MOD r5 = r0, r6 INDEX @1:1\n"
                "    12  EQ r4 = r5, r7 INDEX @1:1\n"
                "    13  JUMP_IF_FALSE r4 -> 16 @4:9\n"
                "    14  FLOORDIV r0 = r0, r8 INDEX @1:1\n"
                "    15  JUMP -> 18 @4:9\n"
                "    16  MUL r9 = r0, r10 INDEX @1:1\n"
                "    17  ADD r0 = r9, r11 INDEX @1:1\n"
                "    18  GT r12 = r1, r13 INDEX @1:1\n"
                "    19  JUMP_IF_FALSE r12 -> 21 @8:9\n"
                "    20  CONST r0 = 1 INDEX @1:1\n"
                "    21  ADD r1 = r1, r14 INDEX @1:1\n"
                "    22  JUMP -> 9 @3:5\n"
                "    23  RETURN close=0 [r1] @11:5\n");
    lowered_end(&x);
}

static void test_lower_scopes_and_return_closing_them(void **state)
{
    (void)state;
    lowered x = {0};
    irb_init();
    cc_ir_func *f = FUNC("main", CC_FUNC_ORCHESTRATION, PARAMS(P("a", T_A, CC_DIR_IN), P("out", T_A, CC_DIR_OUT)), RESULTS(T_A));
    f->body = BLOCK(SCOPE(SP(3, 5), CC_SCOPE_AUTO,
                          BLOCK(SCOPE(SP(4, 9), CC_SCOPE_MANUAL, BLOCK(ASSIGN(SP(5, 13), "x", I(1)))),
                                RET(SP(6, 9), V("out", T_A)))));
    lower(&x);
    assert_text(base_strbuf_str(&x.text),
                "proc 0 main(a=t0, out=t1) Orchestration @1\n"
                "  r0 x pl.Scalar[pl.INDEX]\n"
                "  t0 a pl.Tensor[[256, 128], pl.FP32]\n"
                "  t1 out pl.Tensor[[256, 128], pl.FP32]\n"
                "     0  SCOPE_BEGIN AUTO k.py:3 @3:5\n"
                "     1  SCOPE_BEGIN MANUAL k.py:4 @4:9\n"
                "     2  CONST r0 = 1 INDEX @1:1\n"
                "     3  SCOPE_END @4:9\n"
                "     4  RETURN close=1 [t1] @6:9\n");
    lowered_end(&x);
}

/* k(a: In, out: Out, i): its body returns out */
static cc_ir_func *kernel_k(void)
{
    cc_ir_func *k = FUNC("k", CC_FUNC_INCORE, PARAMS(P("a", T_A, CC_DIR_IN), P("out", T_A, CC_DIR_OUT), P("i", T_IDX, 0)), RESULTS(T_A));
    k->body = BLOCK(RET(SP(20, 5), V("out", T_A)));
    return k;
}

/* The call k(a, out, i) with out's footprint rows [i*64, i*64+64) and a
 * whole, at line 4. */
static cc_ir_expr *call_k(cc_ir_func *k, const char *a, const char *out)
{
    cc_ir_expr *c = CALL(k, SP(4, 15), V(a, T_A), V(out, T_A), V("i", T_IDX));
    c->u.call.boxes = irb_alloc(3 * sizeof *c->u.call.boxes);
    c->u.call.boxes[0] = (cc_ir_box){.dir = CC_DIR_IN, .rank = 2};
    cc_ir_expr *lo = BIN(CC_OP_MUL, V("i", T_IDX), I(64));
    c->u.call.boxes[1] = (cc_ir_box){.dir = CC_DIR_OUT, .rank = 2, .lo = {lo, NULL}, .hi = {BIN(CC_OP_ADD, lo, I(64)), NULL}};
    return c;
}

static void test_lower_submit_evaluates_boxes_before_it(void **state)
{
    (void)state;
    lowered x = {0};
    irb_init();
    cc_ir_func *f = FUNC("main", CC_FUNC_ORCHESTRATION, PARAMS(P("a", T_A, CC_DIR_IN), P("out", T_A, CC_DIR_OUT)), RESULTS(T_A));
    cc_ir_func *k = kernel_k();
    f->body = BLOCK(FOR(SP(3, 5), "i", I(0), I(4), I(1), BLOCK(ASSIGN(SP(4, 9), "out", call_k(k, "a", "out")))),
                    RET(SP(5, 5), V("out", T_A)));
    lower(&x);
    assert_text(code_of(&x, "proc 0 main"),
                "     0  CONST r0 = 0 INDEX @1:1\n"
                "     1  CONST r1 = 4 INDEX @1:1\n"
                "     2  CONST r2 = 1 INDEX @1:1\n"
                "     3  CONST r5 = 1 INDEX @3:5\n"
                "     4  CONST r9 = 64 INDEX @1:1\n"
                "     5  CONST r12 = 64 INDEX @1:1\n"
                "     6  CONST r13 = 64 INDEX @1:1\n"
                "     7  TRIPS r3 = r0, r1, r2 @3:5\n"
                "     8  CONST r4 = 0 INDEX @3:5\n"
                "     9  LT r6 = r4, r3 INDEX @3:5\n"
                "    10  JUMP_IF_FALSE r6 -> 19 @3:5\n"
                "    11  MUL r7 = r4, r2 INDEX @3:5\n"
                "    12  ADD r7 = r0, r7 INDEX @3:5\n"
                "    13  MUL r8 = r7, r9 INDEX @1:1\n"
                "    14  MUL r11 = r7, r12 INDEX @1:1\n"
                "    15  ADD r10 = r11, r13 INDEX @1:1\n"
                "    16  SUBMIT k=k views=[t0 In [:, :], t1 Out [r8:r10, :]] scalars=[r7] @4:15\n"
                "    17  ADD r4 = r4, r5 INDEX @3:5\n"
                "    18  JUMP -> 9 @3:5\n"
                "    19  RETURN close=0 [t1] @5:5\n");
    assert_non_null(strstr(base_strbuf_str(&x.text), "kernel 0 k(a=t0 In, out=t1 Out, i=r0) InCore @1\n"));
    lowered_end(&x);
}

static void test_lower_submit_with_deps_binds_task_id(void **state)
{
    (void)state;
    lowered x = {0};
    irb_init();
    cc_ir_func *f = FUNC("main", CC_FUNC_ORCHESTRATION, PARAMS(P("a", T_A, CC_DIR_IN), P("out", T_A, CC_DIR_OUT)), RESULTS(T_A));
    cc_ir_func *k = kernel_k();
    cc_ir_expr *first = call_k(k, "a", "out"), *second = call_k(k, "a", "o1");
    first->u.call.submit = second->u.call.submit = 1;
    second->u.call.deps = irb_alloc(sizeof *second->u.call.deps);
    second->u.call.deps[0] = V("t1", T_TID), second->u.call.ndeps = 1;
    cc_ir_stmt *s1 = ASSIGN2(SP(3, 5), "o1", "t1", first), *s2 = ASSIGN2(SP(4, 5), "o2", "t2", second);
    s1->u.assign.targets[0].type = s2->u.assign.targets[0].type = T_A;
    s1->u.assign.targets[1].type = s2->u.assign.targets[1].type = T_TID;
    f->body = BLOCK(ASSIGN(SP(2, 5), "i", I(1)), s1, s2, RET(SP(5, 5), V("out", T_A)));
    lower(&x);
    assert_text(code_of(&x, "proc 0 main"),
                "     0  CONST r2 = 64 INDEX @1:1\n"
                "     1  CONST r5 = 64 INDEX @1:1\n"
                "     2  CONST r6 = 64 INDEX @1:1\n"
                "     3  CONST r9 = 64 INDEX @1:1\n"
                "     4  CONST r12 = 64 INDEX @1:1\n"
                "     5  CONST r13 = 64 INDEX @1:1\n"
                "     6  CONST r0 = 1 INDEX @1:1\n"
                "     7  MUL r1 = r0, r2 INDEX @1:1\n"
                "     8  MUL r4 = r0, r5 INDEX @1:1\n"
                "     9  ADD r3 = r4, r6 INDEX @1:1\n"
                "    10  SUBMIT k=k views=[t0 In [:, :], t1 Out [r1:r3, :]] scalars=[r0] -> r7 @4:15\n"
                "    11  ALIAS t2 = t1 @4:15\n"
                "    12  MUL r8 = r0, r9 INDEX @1:1\n"
                "    13  MUL r11 = r0, r12 INDEX @1:1\n"
                "    14  ADD r10 = r11, r13 INDEX @1:1\n"
                "    15  SUBMIT k=k views=[t0 In [:, :], t2 Out [r8:r10, :]] scalars=[r0] deps=[r7] -> r14 @4:15\n"
                "    16  ALIAS t3 = t2 @4:15\n"
                "    17  RETURN close=0 [t1] @5:5\n");
    lowered_end(&x);
}

static void test_lower_create_tensor_allocates(void **state)
{
    (void)state;
    lowered x = {0};
    irb_init();
    cc_ir_func *f = FUNC("main", CC_FUNC_ORCHESTRATION, PARAMS(P("a", T_A, CC_DIR_IN), P("out", T_A, CC_DIR_OUT)), RESULTS(T_A));
    cc_ir_func *k = kernel_k();
    f->body = BLOCK(SCOPE(SP(2, 5), CC_SCOPE_AUTO,
                          BLOCK(ASSIGN(SP(3, 9), "tmp", OP(CC_IR_CREATE_TENSOR, T_A, SP(3, 15), LIST(I(256), I(128)))),
                                ASSIGN(SP(4, 9), "i", I(0)), EXPR(SP(4, 9), call_k(k, "a", "tmp")),
                                RET(SP(5, 9), V("out", T_A)))));
    lower(&x);
    assert_text(base_strbuf_str(&x.text),
                "proc 0 main(a=t0, out=t1) Orchestration @1\n"
                "  r0 i pl.Scalar[pl.INDEX]\n"
                "  r1 - pl.Scalar[pl.INDEX]\n"
                "  r2 - pl.Scalar[pl.INDEX]\n"
                "  r3 - pl.Scalar[pl.INDEX]\n"
                "  r4 - pl.Scalar[pl.INDEX]\n"
                "  r5 - pl.Scalar[pl.INDEX]\n"
                "  r6 - pl.Scalar[pl.INDEX]\n"
                "  t0 a pl.Tensor[[256, 128], pl.FP32]\n"
                "  t1 out pl.Tensor[[256, 128], pl.FP32]\n"
                "  t2 tmp pl.Tensor[[256, 128], pl.FP32]\n"
                "     0  CONST r2 = 64 INDEX @1:1\n"
                "     1  CONST r5 = 64 INDEX @1:1\n"
                "     2  CONST r6 = 64 INDEX @1:1\n"
                "     3  SCOPE_BEGIN AUTO k.py:2 @2:5\n"
                "     4  ALLOC t2 = [256, 128] FP32 @3:15\n"
                "     5  CONST r0 = 0 INDEX @1:1\n"
                "     6  MUL r1 = r0, r2 INDEX @1:1\n"
                "     7  MUL r4 = r0, r5 INDEX @1:1\n"
                "     8  ADD r3 = r4, r6 INDEX @1:1\n"
                "     9  SUBMIT k=k views=[t0 In [:, :], t2 Out [r1:r3, :]] scalars=[r0] @4:15\n"
                "    10  RETURN close=1 [t1] @5:9\n"
                "kernel 0 k(a=t0 In, out=t1 Out, i=r0) InCore @1\n"
                "  r0 i pl.Scalar[pl.INDEX]\n"
                "  t0 a pl.Tensor[[256, 128], pl.FP32]\n"
                "  t1 out pl.Tensor[[256, 128], pl.FP32]\n"
                "     0  RETURN close=0 [t1] @20:5\n");
    lowered_end(&x);
}

static void test_lower_orchestration_call_is_a_subroutine(void **state)
{
    (void)state;
    lowered x = {0};
    irb_init();
    cc_ir_func *h = FUNC("helper", CC_FUNC_OPAQUE, PARAMS(P("m", T_IDX, 0), P("o", T_A, CC_DIR_INOUT)), RESULTS(T_IDX, T_A));
    h->body = BLOCK(RET(SP(2, 5), BIN(CC_OP_ADD, V("m", T_IDX), I(1)), V("o", T_A)));
    cc_ir_func *f = FUNC("main", CC_FUNC_ORCHESTRATION, PARAMS(P("n", T_IDX, 0), P("out", T_A, CC_DIR_OUT)), RESULTS(T_A));
    f->entry = 1;
    cc_ir_stmt *c = ASSIGN2(SP(5, 5), "y", "out", CALL(h, SP(5, 14), V("n", T_IDX), V("out", T_A)));
    c->u.assign.targets[1].type = T_A;
    f->body = BLOCK(c, RET(SP(6, 5), V("out", T_A)));
    lower(&x);
    assert_int_equal(x.l->nprocs, 2);
    assert_string_equal(x.l->procs[0].name, "main");
    assert_text(code_of(&x, "proc 0 main"),
                "     0  CALL helper args=[r0, t0] -> [r1, t0] @5:14\n"
                "     1  RETURN close=0 [t0] @6:5\n");
    assert_text(code_of(&x, "proc 1 helper"),
                "     0  CONST r2 = 1 INDEX @1:1\n"
                "     1  ADD r1 = r0, r2 INDEX @1:1\n"
                "     2  RETURN close=0 [r1, t0] @2:5\n");
    lowered_end(&x);
}

static void test_lower_scalar_promotes_int_to_float(void **state)
{
    (void)state;
    lowered x = {0};
    irb_init();
    cc_ir_func *f = FUNC("main", CC_FUNC_ORCHESTRATION, PARAMS(P("n", T_IDX, 0)), RESULTS(T_IDX));
    cc_ir_expr *half = BIN(CC_OP_MUL, V("n", T_IDX), FL(0.5));
    f->body = BLOCK(ASSIGN(SP(2, 5), "y", half), RET(SP(3, 5), V("n", T_IDX)));
    lower(&x);
    assert_text(code_of(&x, "proc 0 main"),
                "     0  CONST r3 = 0.5 FP32 @1:1\n"
                "     1  CAST r2 = r0 FP32 @1:1\n"
                "     2  MUL r1 = r2, r3 FP32 @1:1\n"
                "     3  RETURN close=0 [r0] @3:5\n");
    lowered_end(&x);
}

static void test_lower_tile_program(void **state)
{
    (void)state;
    lowered x = {0};
    irb_init();
    cc_ir_func *k = FUNC("k", CC_FUNC_INCORE, PARAMS(P("a", T_A, CC_DIR_IN), P("out", T_A, CC_DIR_OUT), P("i", T_IDX, 0)), RESULTS(T_A));
    cc_ir_expr *row = BIN(CC_OP_MUL, V("i", T_IDX), I(64));
    cc_ir_expr *load = OP(CC_IR_LOAD, T_TL, SP(2, 13), V("a", T_A), LIST(row, I(0)), LIST(I(64), I(128)), LIST(I(10), I(128)));
    load->u.op.clamp = 1, load->u.op.cache = CC_CACHE_BYPASS;
    k->body = BLOCK(ASSIGN(SP(2, 9), "t", load),
                    ASSIGN(SP(3, 9), "u", OP(CC_IR_MUL, T_TL, SP(3, 13), V("t", T_TL), FL(2.0))),
                    ASSIGN(SP(4, 9), "u", OP(CC_IR_ADD, T_TL, SP(4, 13), V("u", T_TL), OP(CC_IR_EXP, T_TL, SP(4, 23), V("t", T_TL)))),
                    ASSIGN(SP(5, 9), "out", OP(CC_IR_STORE, T_A, SP(5, 15), V("u", T_TL), LIST(row, I(0)), V("out", T_A))),
                    RET(SP(6, 9), V("out", T_A)));
    lower(&x);
    assert_text(base_strbuf_str(&x.text),
                "kernel 0 k(a=t0 In, out=t1 Out, i=r0) InCore @1\n"
                "  r0 i pl.Scalar[pl.INDEX]\n"
                "  r1 - pl.Scalar[pl.INDEX]\n"
                "  r2 - pl.Scalar[pl.INDEX]\n"
                "  r3 - pl.Scalar[pl.INDEX]\n"
                "  r4 - pl.Scalar[pl.INDEX]\n"
                "  r5 - pl.Scalar[pl.INDEX]\n"
                "  r6 - pl.Scalar[pl.FP32]\n"
                "  r7 - pl.Scalar[pl.INDEX]\n"
                "  r8 - pl.Scalar[pl.INDEX]\n"
                "  r9 - pl.Scalar[pl.INDEX]\n"
                "  t0 a pl.Tensor[[256, 128], pl.FP32]\n"
                "  t1 out pl.Tensor[[256, 128], pl.FP32]\n"
                "  v0 t pl.Tile[[64, 128], pl.FP32]\n"
                "  v1 u pl.Tile[[64, 128], pl.FP32]\n"
                "  v2 - pl.Tile[[64, 128], pl.FP32]\n"
                "     0  CONST r2 = 64 INDEX @1:1\n"
                "     1  MUL r1 = r0, r2 INDEX @1:1\n"
                "     2  CONST r3 = 0 INDEX @1:1\n"
                "     3  CONST r4 = 10 INDEX @1:1\n"
                "     4  CONST r5 = 128 INDEX @1:1\n"
                "     5  LOAD v0 = t0[r1, r3] valid=[r4, r5] [64, 128] FP32 clamp cache=BYPASS @2:13\n"
                "     6  CONST r6 = 2 FP32 @1:1\n"
                "     7  TMUL v1 = v0, r6 FP32 @3:13\n"
                "     8  TEXP v2 = v0 FP32 @4:23\n"
                "     9  TADD v1 = v1, v2 FP32 @4:13\n"
                "    10  CONST r8 = 64 INDEX @1:1\n"
                "    11  MUL r7 = r0, r8 INDEX @1:1\n"
                "    12  CONST r9 = 0 INDEX @1:1\n"
                "    13  STORE t1[r7, r9] = v1 @5:15\n"
                "    14  RETURN close=0 [t1] @6:9\n");
    lowered_end(&x);
}

static void test_lower_matmul_into_its_operand_uses_a_temporary(void **state)
{
    (void)state;
    lowered x = {0};
    irb_init();
    cc_type sq = T_TILE(64, 64);
    cc_ir_func *k = FUNC("k", CC_FUNC_INCORE, PARAMS(P("a", T_A, CC_DIR_IN)), NO_RESULTS);
    cc_ir_expr *load = OP(CC_IR_LOAD, sq, SP(2, 13), V("a", T_A), LIST(I(0), I(0)), LIST(I(64), I(64)));
    load->u.op.cache = CC_CACHE_DEFAULT;
    k->body = BLOCK(ASSIGN(SP(2, 9), "t", load),
                    ASSIGN(SP(3, 9), "t", OP(CC_IR_MATMUL, sq, SP(3, 13), V("t", sq), V("t", sq))),
                    ASSIGN(SP(4, 9), "s", V("t", sq)));
    lower(&x);
    const char *code = code_of(&x, "kernel 0 k");
    assert_non_null(strstr(code, "  TMATMUL v1 = v0, v0 FP32 @3:13\n"
                                 "     4  TCOPY v0 = v1 @3:13\n"
                                 "     5  TCOPY v2 = v0 @1:1\n"
                                 "     6  RETURN close=0 [] @1:1\n"));
    lowered_end(&x);
}

/* pl.log, pl.rsqrt, pl.recip lower to one TOP each, in place (element-wise);
 * recip's high_precision= slot is no operand. */
static void test_lower_float_unary_ops_one_top_each_in_place(void **state)
{
    (void)state;
    lowered x = {0};
    irb_init();
    cc_type sq = T_TILE(64, 64);
    cc_ir_func *k = FUNC("k", CC_FUNC_INCORE, PARAMS(P("a", T_A, CC_DIR_IN)), NO_RESULTS);
    cc_ir_expr *load = OP(CC_IR_LOAD, sq, SP(2, 13), V("a", T_A), LIST(I(0), I(0)), LIST(I(64), I(64)));
    load->u.op.cache = CC_CACHE_DEFAULT;
    cc_ir_expr *hint = irb_expr(cc_ir_expr_new(&B.arena, CC_X_BOOL, SP(5, 35)));
    hint->u.i = 1, hint->type = T_BOOL;
    k->body = BLOCK(ASSIGN(SP(2, 9), "t", load), ASSIGN(SP(3, 9), "t", OP(CC_IR_LOG, sq, SP(3, 13), V("t", sq))),
                    ASSIGN(SP(4, 9), "u", OP(CC_IR_RSQRT, sq, SP(4, 13), V("t", sq))),
                    ASSIGN(SP(5, 9), "u", OP(CC_IR_RECIP, sq, SP(5, 13), V("u", sq), hint)));
    lower(&x);
    const char *code = code_of(&x, "kernel 0 k");
    assert_non_null(strstr(code, "  TLOG v0 = v0 FP32 @3:13\n"
                                 "     4  TRSQRT v1 = v0 FP32 @4:13\n"
                                 "     5  TRECIP v1 = v1 FP32 @5:13\n"
                                 "     6  RETURN close=0 [] @1:1\n"));
    lowered_end(&x);
}

static void test_lower_core_group_body_not_outlined_is_internal(void **state)
{
    (void)state;
    lowered x = {0};
    irb_init();
    cc_ir_func *f = FUNC("main", CC_FUNC_ORCHESTRATION, NO_PARAMS, NO_RESULTS);
    f->body = BLOCK(AT(SP(2, 5), CC_LEVEL_CORE_GROUP, BLOCK(ASSIGN(SP(3, 9), "v", I(1)))));
    assert_int_equal(cc_lower(&B.p, &B.arena, &x.l), -1);
    assert_null(x.l);
    assert_int_equal(B.diags.items[0].cls, CC_DIAG_INTERNAL);
    assert_int_equal(B.diags.items[0].span.line, 2);
    lowered_end(&x);
}

static void test_lower_grouping_pl_at_runs_in_place(void **state)
{
    (void)state;
    lowered x = {0};
    irb_init();
    cc_ir_func *f = FUNC("main", CC_FUNC_ORCHESTRATION, NO_PARAMS, NO_RESULTS);
    f->body = BLOCK(AT(SP(2, 5), CC_LEVEL_CHIP, BLOCK(ASSIGN(SP(3, 9), "v", I(1)))));
    lower(&x);
    assert_text(code_of(&x, "proc 0 main"),
                "     0  CONST r0 = 1 INDEX @1:1\n"
                "     1  RETURN close=0 [] @1:1\n");
    lowered_end(&x);
}

/* ---- tuple assignment binds its targets at once (docs/dsl.md, "Statements") ---- */

/* main(): a, b, c = 1, 2, 3; a, b, c = b, c, a; a, b = c, a; return a*100 + b*10 + c
 * Python: (2, 3, 1), then (1, 2, 1): 121; one name at a time gives 111. */
static void test_tuple_assignment_binds_simultaneously_rotation(void **state)
{
    (void)state;
    lowered x = {0};
    irb_init();
    cc_ir_func *f = FUNC("main", CC_FUNC_ORCHESTRATION, NO_PARAMS, RESULTS(T_IDX));
    cc_ir_expr *abc = BIN(CC_OP_ADD, BIN(CC_OP_ADD, BIN(CC_OP_MUL, V("a", T_IDX), I(100)), BIN(CC_OP_MUL, V("b", T_IDX), I(10))), V("c", T_IDX));
    f->body = BLOCK(irb_assign(SP(2, 5), (const char *[]){"a", "b", "c"}, 3, LIST(I(1), I(2), I(3))),
                    irb_assign(SP(3, 5), (const char *[]){"a", "b", "c"}, 3, LIST(V("b", T_IDX), V("c", T_IDX), V("a", T_IDX))),
                    ASSIGN2(SP(4, 5), "a", "b", LIST(V("c", T_IDX), V("a", T_IDX))),
                    ASSIGN(SP(5, 5), "r", abc), RET(SP(6, 5), V("r", T_IDX)));
    lower(&x);
    int64_t none = 0;
    assert_int_equal(run(&x.l->procs[0], &none, 0), 121);
    lowered_end(&x);
}

/* Kernel code: a swap of tiles and of scalars goes through one temporary
 * each; a tuple whose values read no target bound before them is plain moves. */
static void test_tuple_assignment_binds_simultaneously_in_kernel_code(void **state)
{
    (void)state;
    static const char src[] = DSL_F_HEADER
        "    with pl.at(level=pl.Level.CORE_GROUP):\n"
        "        t = pl.load(a, [0, 0], [4, 8])\n"
        "        u = pl.load(a, [4, 0], [4, 8])\n"
        "        x = 1\n"
        "        y = 2\n"
        "        t, u = u, t\n"
        "        x, y = y, x\n"
        "        x, y = y, 7\n"
        "        pl.store(pl.add(pl.sub(t, u), x * 10 + y), [0, 0], out)\n"
        "    return out\n";
    pto_program *p = dsl_compile(src, "f", PTO_STAGE_ALL);
    dsl_expect_ok(p);
    const char *code = code_in(pto_program_listing(p), "kernel 0 f_incore_0");
    const char *want = "     8  TCOPY v2 = v0 @10:9\n"
                       "     9  TCOPY v0 = v1 @10:9\n"
                       "    10  TCOPY v1 = v2 @10:9\n"
                       "    11  MOV r6 = r4 @11:9\n"
                       "    12  MOV r4 = r5 @11:9\n"
                       "    13  MOV r5 = r6 @11:9\n"
                       "    14  CONST r7 = 7 INDEX @12:19\n"
                       "    15  MOV r4 = r5 @12:9\n"
                       "    16  MOV r5 = r7 @12:9\n"
                       "    17  TSUB v4 = v0, v1 FP32 @13:25\n";
    if (!strstr(code, want)) fprintf(stderr, "got:\n%s\nwant, within it:\n%s\n", code, want);
    assert_non_null(strstr(code, want));
    pto_program_free(p);
}

/* ---- through real DSL text: the seed's manual_placement ---- */

static const char dsl_manual_placement[] =
    "import pypto.language as pl\n"
    "\n"
    "@pl.jit(auto_scope=False)\n"
    "def manual_placement(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
    "    with pl.scope():\n"
    "        for i in pl.range(4):\n"
    "            with pl.at(level=pl.Level.CORE_GROUP):\n"
    "                t = pl.load(a, [i * 64, 0], [64, 128])\n"
    "                pl.store(pl.mul(t, 2.0), [i * 64, 0], out)\n"
    "        with pl.scope():\n"
    "            with pl.at(level=pl.Level.CORE_GROUP):\n"
    "                for i in pl.range(4):\n"
    "                    t = pl.load(out, [i * 64, 0], [64, 128])\n"
    "                    pl.store(pl.add(t, 1.0), [i * 64, 0], out)\n"
    "    return out\n";

/* lower_hoist.c: a CONST of a temporary nothing else writes runs once, at the procedure's start;
 * a named variable's CONST, a temporary written twice (the loop counter) and the registers of a
 * TASK_ID array (ASET writes them) stay where they are, and the loop's jump follows the moves. */
static const char hoist_program[] =
    "import pypto.language as pl\n"
    "\n"
    "@pl.jit\n"
    "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
    "    for i in pl.range(4):\n"
    "        c = 7\n"
    "        ids = pl.array.create(2, pl.TASK_ID)\n"
    "        with pl.at(level=pl.Level.CORE_GROUP) as t:\n"
    "            pl.store(pl.load(a, [i * 64, 0], [64, 128]), [i * 64, 0], out)\n"
    "        ids[i % 2] = t\n"
    "    return out\n";

static void test_lower_hoists_temporary_constants_out_of_loops(void **state)
{
    (void)state;
    pto_program *p = dsl_compile(hoist_program, "f", PTO_STAGE_ALL);
    dsl_expect_ok(p);
    const char *code = code_in(pto_program_listing(p), "proc 0 f(a=t0, out=t1) Orchestration @4\n");
    const char *trips = strstr(code, "TRIPS"), *jump = strstr(code, "  JUMP -> ");
    assert_non_null(trips), assert_non_null(jump);
    /* the box's 64s and 128s: before the loop */
    const char *k64 = strstr(code, "= 64 INDEX"), *k128 = strstr(code, "= 128 INDEX");
    assert_non_null(k64), assert_non_null(k128);
    assert_true(k64 < trips && k128 < trips);
    assert_null(strstr(trips, "= 64 INDEX"));
    /* c = 7 (named), the counter's 0 (written again by its ADD), the array's -1s (ASET): in the loop */
    assert_true(strstr(code, "= 7 INDEX") > trips);
    assert_true(strstr(code, "= -1 TASK_ID") > trips);
    assert_true(strstr(code, "= 0 INDEX") < trips); /* the range's start, a temporary */
    const char *counter = strstr(trips, "CONST");
    assert_non_null(counter);
    assert_non_null(strstr(counter, "= 0 INDEX"));
    /* the back jump lands on the loop's compare */
    int target = atoi(jump + strlen("  JUMP -> "));
    char at[16];
    snprintf(at, sizeof at, "%6d  LT ", target);
    assert_non_null(strstr(code, at));
    pto_program_free(p);
}

static void test_lower_dsl_seed_manual_placement(void **state)
{
    (void)state;
    pto_program *p = dsl_compile(dsl_manual_placement, "manual_placement", PTO_STAGE_ALL);
    dsl_expect_ok(p);
    const char *listing = pto_program_listing(p);
    assert_text(code_in(listing, "proc 0 manual_placement(a=t0, out=t1) Orchestration @4\n"),
                "     0  CONST r0 = 0 INDEX @6:18\n"
                "     1  CONST r1 = 4 INDEX @6:27\n"
                "     2  CONST r2 = 1 INDEX @6:18\n"
                "     3  CONST r5 = 1 INDEX @6:9\n"
                "     4  CONST r9 = 64 INDEX @7:18\n"
                "     5  CONST r12 = 64 INDEX @7:18\n"
                "     6  CONST r13 = 64 INDEX @7:18\n"
                "     7  CONST r14 = 0 INDEX @7:18\n"
                "     8  CONST r15 = 128 INDEX @7:18\n"
                "     9  CONST r17 = 64 INDEX @7:18\n"
                "    10  CONST r20 = 64 INDEX @7:18\n"
                "    11  CONST r21 = 64 INDEX @7:18\n"
                "    12  CONST r22 = 0 INDEX @7:18\n"
                "    13  CONST r23 = 128 INDEX @7:18\n"
                "    14  CONST r24 = 0 INDEX @14:47\n"
                "    15  CONST r25 = 256 INDEX @13:39\n"
                "    16  CONST r26 = 0 INDEX @11:18\n"
                "    17  CONST r27 = 128 INDEX @11:18\n"
                "    18  SCOPE_BEGIN AUTO k.py:5 @5:10\n"
                "    19  TRIPS r3 = r0, r1, r2 @6:9\n"
                "    20  CONST r4 = 0 INDEX @6:9\n"
                "    21  LT r6 = r4, r3 INDEX @6:9\n"
                "    22  JUMP_IF_FALSE r6 -> 34 @6:9\n"
                "    23  MUL r7 = r4, r2 INDEX @6:9\n"
                "    24  ADD r7 = r0, r7 INDEX @6:9\n"
                "    25  MUL r8 = r7, r9 INDEX @8:33\n"
                "    26  MUL r11 = r7, r12 INDEX @8:33\n"
                "    27  ADD r10 = r11, r13 INDEX @8:33\n"
                "    28  MUL r16 = r7, r17 INDEX @9:43\n"
                "    29  MUL r19 = r7, r20 INDEX @9:43\n"
                "    30  ADD r18 = r19, r21 INDEX @9:43\n"
                "    31  SUBMIT k=manual_placement_incore_0 views=[t0 In [r8:r10, r14:r15], t1 Out [r16:r18, r22:r23]] scalars=[r7] @7:18\n"
                "    32  ADD r4 = r4, r5 INDEX @6:9\n"
                "    33  JUMP -> 21 @6:9\n"
                "    34  SCOPE_BEGIN AUTO k.py:10 @10:14\n"
                "    35  SUBMIT k=manual_placement_incore_1 views=[t1 InOut [r24:r25, r26:r27]] scalars=[] @11:18\n"
                "    36  SCOPE_END @10:14\n"
                "    37  SCOPE_END @5:10\n"
                "    38  RETURN close=0 [t1] @15:5\n");
    assert_non_null(strstr(listing, "kernel 0 manual_placement_incore_0(a=t0 In, out=t1 Out, i=r0) InCore @7\n"));
    assert_non_null(strstr(listing, "kernel 1 manual_placement_incore_1(out=t0 InOut) InCore @11\n"));
    pto_program_free(p);
}

/* A task carries the kernel's scalars, then each tensor's box origin (one
 * per dimension): 56 scalars + 4 rank-2 tensors = 64, the runtime's limit
 * (PTO_MAX_SCALAR_ARGS), compiles; 57 + 8 = 65 is an InvalidOperationError
 * at the call. */
static void many_scalars_program(char *buf, size_t cap, int nscalars)
{
    size_t n = (size_t)snprintf(buf, cap, "import pypto.language as pl\n\n@pl.jit.incore\n"
                                          "def k(x: pl.Tensor, y: pl.Tensor, w: pl.Tensor, z: pl.Out[pl.Tensor]");
    for (int k = 0; k < nscalars; k++) n += (size_t)snprintf(buf + n, cap - n, ", s%d", k);
    n += (size_t)snprintf(buf + n, cap - n, "):\n"
                          "    e = pl.add(pl.load(x, [s0, s1], [64, 128]), pl.load(y, [s2, s3], [64, 128]))\n"
                          "    pl.store(pl.add(e, pl.load(w, [s4, s5], [64, 128])), [s6 + s7, 0], z)\n"
                          "    return z\n\n@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n    out = k(a, a, a, out");
    for (int k = 0; k < nscalars; k++) n += (size_t)snprintf(buf + n, cap - n, ", 0");
    snprintf(buf + n, cap - n, ")\n    return out\n");
}

static void test_lower_task_arguments_at_most_the_runtimes_limits(void **state)
{
    (void)state;
    char src[4096];
    many_scalars_program(src, sizeof src, PTO_MAX_SCALAR_ARGS - 8);
    pto_program *p = dsl_compile(src, "f", PTO_STAGE_ALL);
    dsl_expect_ok(p);
    pto_program_free(p);
    many_scalars_program(src, sizeof src, PTO_MAX_SCALAR_ARGS - 7);
    p = dsl_compile(src, "f", PTO_STAGE_ALL);
    dsl_expect_error(p, "InvalidOperationError",
                     "kernel 'k' needs 4 tensor and 65 scalar task arguments (its 57 scalars, then the box origin of each "
                     "tensor argument, one per dimension); the runtime takes at most 32 and 64", 11, 11);
    pto_program_free(p);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_lower_for_counts_trips_by_step_sign),
    cmocka_unit_test(test_lower_for_evaluates_bounds_once),
    cmocka_unit_test(test_lower_if_else_and_while),
    cmocka_unit_test(test_lower_scopes_and_return_closing_them),
    cmocka_unit_test(test_lower_submit_evaluates_boxes_before_it),
    cmocka_unit_test(test_lower_submit_with_deps_binds_task_id),
    cmocka_unit_test(test_lower_create_tensor_allocates),
    cmocka_unit_test(test_lower_orchestration_call_is_a_subroutine),
    cmocka_unit_test(test_lower_scalar_promotes_int_to_float),
    cmocka_unit_test(test_lower_tile_program),
    cmocka_unit_test(test_lower_matmul_into_its_operand_uses_a_temporary),
    cmocka_unit_test(test_lower_float_unary_ops_one_top_each_in_place),
    cmocka_unit_test(test_lower_core_group_body_not_outlined_is_internal),
    cmocka_unit_test(test_lower_grouping_pl_at_runs_in_place),
    cmocka_unit_test(test_lower_dsl_seed_manual_placement),
        cmocka_unit_test(test_lower_hoists_temporary_constants_out_of_loops),
    cmocka_unit_test(test_lower_task_arguments_at_most_the_runtimes_limits),
    cmocka_unit_test(test_tuple_assignment_binds_simultaneously_rotation),
    cmocka_unit_test(test_tuple_assignment_binds_simultaneously_in_kernel_code),
};

PTO_TEST_MAIN(tests)
