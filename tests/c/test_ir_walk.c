/*
 * test_ir_walk.c - the IR walker (src/compiler/ir_walk.c) on hand-built IR:
 * which children of each expression kind and which expressions and blocks
 * of each statement kind it visits, how each statement runs its blocks,
 * the order of the deep walks, the early stop, and the scan for reads of a
 * name after a point that Verify and outlining share.
 *
 * Invariants: every visit is recorded; a walk passes when the record is
 * exactly the expected nodes in the expected order (so each child is
 * visited once and absent slots, boxes and other blocks' nodes not at all).
 * The per-kind tables name every kind once.
 */
#include "compiler/ir_walk.h"
#include "harness.h"
#include "ir_build.h"

/* ---- recording visits ------------------------------------------------------------------ */

typedef struct trace {
    const void *seen[64];
    uint32_t n;
    uint32_t stop_at; /* the visit (1-based) that returns stop_value; 0: none */
    int stop_value;
} trace;

static int note(trace *t, const void *node)
{
    assert_true(t->n < sizeof t->seen / sizeof t->seen[0]);
    t->seen[t->n++] = node;
    return t->stop_at && t->n == t->stop_at ? t->stop_value : 0;
}
static int note_expr(cc_ir_expr *e, void *ctx) { return note(ctx, e); }
static int note_stmt(cc_ir_stmt *s, void *ctx) { return note(ctx, s); }

static void expect_trace(const trace *t, const void *const *want, uint32_t n)
{
    assert_int_equal(t->n, n);
    for (uint32_t k = 0; k < n; k++) assert_ptr_equal(t->seen[k], want[k]);
}
#define EXPECT(t, ...) expect_trace(t, (const void *[]){__VA_ARGS__}, NARGS_(const void *, __VA_ARGS__))
#define EXPECT_NONE(t) assert_int_equal((t)->n, 0)

static cc_ir_expr *leaf(cc_ir_expr_kind k)
{
    cc_ir_expr *e = cc_ir_expr_new(&B.arena, k, SP(1, 1));
    assert_non_null(e);
    if (k == CC_X_STR) e->u.str = "s";
    if (k == CC_X_VAR) e->u.name = "v";
    return e;
}

/* ---- one level --------------------------------------------------------------------------- */

/* Literals and names have no children; the others, theirs left to right;
 * an op's absent slot, a call's boxes are not visited. */
static void test_each_expression_kind_visits_its_children_in_order(void **state)
{
    (void)state;
    irb_init();
    cc_ir_func *g = FUNC("g", CC_FUNC_INCORE, NO_PARAMS, NO_RESULTS);
    cc_ir_expr *l = V("l", T_IDX), *r = I(2), *x = V("x", T_IDX), *i0 = I(0), *i1 = I(1), *i2 = I(2);
    cc_ir_expr *t = V("t", T_TENSOR(64, 64)), *offs = LIST(I(0), I(0)), *shapes = LIST(I(64), I(64));
    cc_ir_expr *a0 = V("a0", T_IDX), *a1 = V("a1", T_IDX), *d0 = V("d0", T_TID);
    cc_ir_expr *call = CALL(g, SP(1, 1), a0, a1);
    call->u.call.deps = irb_alloc(sizeof *call->u.call.deps), call->u.call.deps[0] = d0, call->u.call.ndeps = 1;
    call->u.call.boxes = irb_alloc(sizeof *call->u.call.boxes);
    call->u.call.boxes[0] = (cc_ir_box){.dir = CC_DIR_IN, .rank = 1, .lo = {I(0)}, .hi = {I(64)}};
    cc_ir_expr *neg = cc_ir_expr_new(&B.arena, CC_X_UNARY, SP(1, 1));
    neg->u.un.op = CC_OP_NEG, neg->u.un.x = x;
    struct { cc_ir_expr *e; const void *want[4]; uint32_t n; } cases[] = {
        {leaf(CC_X_INT), {0}, 0},
        {leaf(CC_X_FLOAT), {0}, 0},
        {leaf(CC_X_BOOL), {0}, 0},
        {leaf(CC_X_STR), {0}, 0},
        {leaf(CC_X_VAR), {0}, 0},
        {BIN(CC_OP_ADD, l, r), {l, r}, 2},
        {neg, {x}, 1},
        {LIST(i0, i1, i2), {i0, i1, i2}, 3},
        {OP(CC_IR_LOAD, T_TILE(64, 64), SP(1, 1), t, offs, shapes), {t, offs, shapes}, 3}, /* slot 3 absent */
        {call, {a0, a1, d0}, 3},
    };
    uint32_t seen_kinds = 0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        trace tr = {0};
        assert_int_equal(cc_ir_expr_each_child(cases[c].e, note_expr, &tr), 0);
        expect_trace(&tr, cases[c].want, cases[c].n);
        seen_kinds |= 1u << cases[c].e->kind;
    }
    assert_int_equal(seen_kinds, (1u << (CC_X_CALL + 1)) - 1);
    irb_free();
}

/* The fixture of the statement tests: one statement of each kind, each
 * with a nested statement whose expression must not be visited. */
typedef struct stmts {
    cc_ir_stmt *s[CC_I_RETURN + 1];
    cc_ir_expr *value, *expr, *start, *stop, *step, *wcond, *icond, *dep0, *dep1, *ret0, *ret1;
} stmts;

static cc_ir_block inner(void) { return BLOCK(EXPR(SP(9, 1), V("inner", T_IDX))); }

static stmts make_stmts(void)
{
    stmts f = {0};
    f.value = V("v", T_IDX), f.expr = V("e", T_IDX);
    f.start = I(0), f.stop = V("n", T_IDX), f.step = I(2), f.wcond = V("w", T_BOOL), f.icond = V("c", T_BOOL);
    f.dep0 = V("d0", T_TID), f.dep1 = V("d1", T_TID), f.ret0 = V("r0", T_IDX), f.ret1 = V("r1", T_IDX);
    f.s[CC_I_ASSIGN] = ASSIGN(SP(2, 1), "x", f.value);
    f.s[CC_I_EXPR] = EXPR(SP(3, 1), f.expr);
    f.s[CC_I_FOR] = FOR(SP(4, 1), "i", f.start, f.stop, f.step, inner());
    f.s[CC_I_WHILE] = WHILE(SP(5, 1), f.wcond, inner());
    f.s[CC_I_IF] = IF(SP(6, 1), f.icond, inner(), inner());
    f.s[CC_I_SCOPE] = SCOPE(SP(7, 1), CC_SCOPE_AUTO, inner());
    f.s[CC_I_AT] = AT(SP(8, 1), CC_LEVEL_CORE_GROUP, inner());
    cc_ir_stmt *at = f.s[CC_I_AT];
    at->u.at.deps = irb_alloc(2 * sizeof *at->u.at.deps), at->u.at.deps[0] = f.dep0, at->u.at.deps[1] = f.dep1;
    at->u.at.ndeps = 2;
    f.s[CC_I_RETURN] = RET(SP(10, 1), f.ret0, f.ret1);
    return f;
}

/* Each statement kind's own expressions, in source order, none of a nested block's. */
static void test_each_statement_kind_visits_its_own_expressions_in_order(void **state)
{
    (void)state;
    irb_init();
    stmts f = make_stmts();
    const void *want[][3] = {
        [CC_I_ASSIGN] = {f.value}, [CC_I_EXPR] = {f.expr}, [CC_I_FOR] = {f.start, f.stop, f.step},
        [CC_I_WHILE] = {f.wcond}, [CC_I_IF] = {f.icond}, [CC_I_SCOPE] = {0},
        [CC_I_AT] = {f.dep0, f.dep1}, [CC_I_RETURN] = {f.ret0, f.ret1},
    };
    const uint32_t n[] = {[CC_I_ASSIGN] = 1, [CC_I_EXPR] = 1, [CC_I_FOR] = 3, [CC_I_WHILE] = 1,
                          [CC_I_IF] = 1, [CC_I_SCOPE] = 0, [CC_I_AT] = 2, [CC_I_RETURN] = 2};
    for (int k = 0; k <= CC_I_RETURN; k++) {
        trace tr = {0};
        assert_int_equal(f.s[k]->kind, k);
        assert_int_equal(cc_ir_stmt_each_expr(f.s[k], note_expr, &tr), 0);
        expect_trace(&tr, want[k], n[k]);
    }
    f.s[CC_I_FOR]->u.for_.step = NULL; /* `for i in pl.range(0, n)`: the absent step is skipped */
    trace tr = {0};
    cc_ir_stmt_each_expr(f.s[CC_I_FOR], note_expr, &tr);
    EXPECT(&tr, f.start, f.stop);
    irb_free();
}

/* Each statement kind's blocks in order (an if's then before its else), and how it runs them. */
static void test_each_statement_kind_hands_out_its_blocks_and_their_flow(void **state)
{
    (void)state;
    irb_init();
    stmts f = make_stmts();
    cc_ir_stmt *const *s = f.s;
    const void *want[][2] = {
        [CC_I_ASSIGN] = {0}, [CC_I_EXPR] = {0}, [CC_I_FOR] = {&s[CC_I_FOR]->u.for_.body},
        [CC_I_WHILE] = {&s[CC_I_WHILE]->u.while_.body}, [CC_I_IF] = {&s[CC_I_IF]->u.if_.then, &s[CC_I_IF]->u.if_.orelse},
        [CC_I_SCOPE] = {&s[CC_I_SCOPE]->u.scope.body}, [CC_I_AT] = {&s[CC_I_AT]->u.at.body}, [CC_I_RETURN] = {0},
    };
    const uint32_t n[] = {[CC_I_ASSIGN] = 0, [CC_I_EXPR] = 0, [CC_I_FOR] = 1, [CC_I_WHILE] = 1,
                          [CC_I_IF] = 2, [CC_I_SCOPE] = 1, [CC_I_AT] = 1, [CC_I_RETURN] = 0};
    const cc_ir_flow flow[] = {[CC_I_ASSIGN] = CC_IR_FLOW_SEQ, [CC_I_EXPR] = CC_IR_FLOW_SEQ, [CC_I_FOR] = CC_IR_FLOW_LOOP,
                               [CC_I_WHILE] = CC_IR_FLOW_LOOP, [CC_I_IF] = CC_IR_FLOW_BRANCH, [CC_I_SCOPE] = CC_IR_FLOW_SEQ,
                               [CC_I_AT] = CC_IR_FLOW_SEQ, [CC_I_RETURN] = CC_IR_FLOW_SEQ};
    for (int k = 0; k <= CC_I_RETURN; k++) {
        cc_ir_block *kids[CC_IR_MAX_BLOCKS] = {0};
        assert_int_equal(cc_ir_stmt_blocks(s[k], kids), n[k]);
        for (uint32_t c = 0; c < n[k]; c++) assert_ptr_equal(kids[c], want[k][c]);
        assert_int_equal(cc_ir_stmt_flow(s[k]), flow[k]);
    }
    irb_free();
}

/* ---- any depth --------------------------------------------------------------------------- */

/* e, then each child's subtree before the next child's. */
static void test_expression_walk_visits_parents_first_left_to_right(void **state)
{
    (void)state;
    irb_init();
    cc_ir_expr *a = V("a", T_IDX), *b = I(3), *c = V("c", T_IDX), *d = I(4);
    cc_ir_expr *ab = BIN(CC_OP_MUL, a, b), *cd = LIST(c, d), *top = BIN(CC_OP_ADD, ab, cd);
    trace tr = {0};
    assert_int_equal(cc_ir_expr_walk(top, note_expr, &tr), 0);
    EXPECT(&tr, top, ab, a, b, cd, c, d);
    trace none = {0};
    assert_int_equal(cc_ir_expr_walk(NULL, note_expr, &none), 0);
    EXPECT_NONE(&none);
    irb_free();
}

/* Statements in source order, each before its blocks' statements; a
 * statement's own expressions before its blocks' expressions. */
static void test_block_walks_visit_statements_and_expressions_in_source_order(void **state)
{
    (void)state;
    irb_init();
    cc_ir_expr *n = V("n", T_IDX), *c = V("c", T_BOOL), *x = V("x", T_IDX), *y = I(1), *xy = BIN(CC_OP_ADD, x, y);
    cc_ir_expr *e = V("e", T_IDX), *r = V("r", T_IDX);
    cc_ir_stmt *then = ASSIGN(SP(3, 1), "x", xy), *orelse = EXPR(SP(4, 1), e);
    cc_ir_stmt *iff = IF(SP(2, 1), c, BLOCK(then), BLOCK(orelse));
    cc_ir_stmt *loop = FOR(SP(1, 1), "i", NULL, n, NULL, BLOCK(iff));
    cc_ir_stmt *ret = RET(SP(5, 1), r);
    cc_ir_block body = BLOCK(loop, ret);
    trace st = {0}, ex = {0};
    assert_int_equal(cc_ir_block_each_stmt(&body, note_stmt, &st), 0);
    EXPECT(&st, loop, iff, then, orelse, ret);
    assert_int_equal(cc_ir_block_walk_exprs(&body, note_expr, &ex), 0);
    EXPECT(&ex, n, c, xy, x, y, e, r);
    trace one = {0};
    assert_int_equal(cc_ir_stmt_walk_exprs(then, note_expr, &one), 0);
    EXPECT(&one, xy, x, y);
    irb_free();
}

/* The first nonzero visit ends every walk at once and is what it returns. */
static void test_a_nonzero_visit_stops_the_walk(void **state)
{
    (void)state;
    irb_init();
    cc_ir_expr *a = V("a", T_IDX), *b = V("b", T_IDX), *c = V("c", T_IDX), *top = LIST(a, b, c);
    cc_ir_stmt *s1 = EXPR(SP(1, 1), top), *s2 = EXPR(SP(2, 1), V("z", T_IDX));
    cc_ir_stmt *scope = SCOPE(SP(3, 1), CC_SCOPE_AUTO, BLOCK(s1, s2));
    cc_ir_block body = BLOCK(scope);
    trace t1 = {.stop_at = 2, .stop_value = 7};
    assert_int_equal(cc_ir_expr_each_child(top, note_expr, &t1), 7);
    EXPECT(&t1, a, b);
    trace t2 = {.stop_at = 3, .stop_value = -1};
    assert_int_equal(cc_ir_expr_walk(top, note_expr, &t2), -1);
    EXPECT(&t2, top, a, b);
    trace t3 = {.stop_at = 2, .stop_value = 5};
    assert_int_equal(cc_ir_block_each_stmt(&body, note_stmt, &t3), 5);
    EXPECT(&t3, scope, s1);
    trace t4 = {.stop_at = 1, .stop_value = 9};
    assert_int_equal(cc_ir_block_walk_exprs(&body, note_expr, &t4), 9);
    EXPECT(&t4, top);
    trace t5 = {.stop_at = 1, .stop_value = 3};
    cc_ir_stmt *ret = RET(SP(4, 1), a, b);
    assert_int_equal(cc_ir_stmt_each_expr(ret, note_expr, &t5), 3);
    EXPECT(&t5, a);
    irb_free();
}

/* ---- reads of a name after a point ------------------------------------------------------- */

static cc_ir_reach scan(const cc_ir_block *b, const char *name, cc_ir_reader *at)
{
    *at = (cc_ir_reader){0};
    return cc_ir_scan_reads(b, 0, b->n, name, at);
}

/* The first read wins; the reader is the statement and the VAR it reads. */
static void test_scan_reads_reports_the_first_read_and_its_statement(void **state)
{
    (void)state;
    irb_init();
    cc_ir_expr *read = V("t", T_IDX);
    cc_ir_stmt *reader = ASSIGN(SP(2, 1), "y", BIN(CC_OP_ADD, I(1), read));
    cc_ir_block b = BLOCK(ASSIGN(SP(1, 1), "x", I(0)), reader, EXPR(SP(3, 1), V("t", T_IDX)));
    cc_ir_reader at;
    assert_int_equal(scan(&b, "t", &at), CC_IR_REACH_READ);
    assert_ptr_equal(at.stmt, reader);
    assert_ptr_equal(at.var, read);
    assert_int_equal(cc_ir_scan_reads(&b, 0, 1, "t", &at), CC_IR_REACH_NONE); /* [from, to) only */
    irb_free();
}

/* `t = t + 1` reads before it rebinds; `t = 0` rebinds, hiding later reads. */
static void test_scan_reads_stops_at_a_rebinding(void **state)
{
    (void)state;
    irb_init();
    cc_ir_block self = BLOCK(ASSIGN(SP(1, 1), "t", BIN(CC_OP_ADD, V("t", T_IDX), I(1))));
    cc_ir_block killed = BLOCK(ASSIGN(SP(1, 1), "t", I(0)), EXPR(SP(2, 1), V("t", T_IDX)));
    cc_ir_block in_scope = BLOCK(SCOPE(SP(1, 1), CC_SCOPE_AUTO, BLOCK(ASSIGN(SP(2, 1), "t", I(0)))), EXPR(SP(3, 1), V("t", T_IDX)));
    cc_ir_reader at;
    assert_int_equal(scan(&self, "t", &at), CC_IR_REACH_READ);
    assert_int_equal(scan(&killed, "t", &at), CC_IR_REACH_KILLED);
    assert_int_equal(scan(&in_scope, "t", &at), CC_IR_REACH_KILLED);
    irb_free();
}

/* Only an if whose every branch rebinds the name rebinds it. */
static void test_scan_reads_if_rebinds_when_every_branch_does(void **state)
{
    (void)state;
    irb_init();
    cc_ir_block both = BLOCK(IF(SP(1, 1), V("c", T_BOOL), BLOCK(ASSIGN(SP(2, 1), "t", I(0))), BLOCK(ASSIGN(SP(3, 1), "t", I(1)))));
    cc_ir_block one = BLOCK(IF(SP(1, 1), V("c", T_BOOL), BLOCK(ASSIGN(SP(2, 1), "t", I(0))), EMPTY_BLOCK));
    cc_ir_block read = BLOCK(IF(SP(1, 1), V("c", T_BOOL), BLOCK(ASSIGN(SP(2, 1), "t", I(0))), BLOCK(EXPR(SP(3, 1), V("t", T_IDX)))));
    cc_ir_reader at;
    assert_int_equal(scan(&both, "t", &at), CC_IR_REACH_KILLED);
    assert_int_equal(scan(&one, "t", &at), CC_IR_REACH_NONE);
    assert_int_equal(scan(&read, "t", &at), CC_IR_REACH_READ);
    irb_free();
}

/* A loop may run zero times: its rebinding does not count, its reads do. */
static void test_scan_reads_a_loop_body_may_not_run(void **state)
{
    (void)state;
    irb_init();
    cc_ir_block loop = BLOCK(WHILE(SP(1, 1), V("c", T_BOOL), BLOCK(ASSIGN(SP(2, 1), "t", I(0)))), EXPR(SP(3, 1), V("t", T_IDX)));
    cc_ir_reader at;
    assert_int_equal(scan(&loop, "t", &at), CC_IR_REACH_READ);
    assert_int_equal(at.stmt->span.line, 3);
    irb_free();
}

/* `for t in ...`: reads of t in the body read the loop variable. */
static void test_scan_reads_a_loop_variable_hides_the_name(void **state)
{
    (void)state;
    irb_init();
    cc_ir_block loop = BLOCK(FOR(SP(1, 1), "t", I(0), I(4), I(1), BLOCK(EXPR(SP(2, 1), V("t", T_IDX)))));
    cc_ir_block bound = BLOCK(FOR(SP(1, 1), "i", I(0), V("t", T_IDX), I(1), EMPTY_BLOCK));
    cc_ir_reader at;
    assert_int_equal(scan(&loop, "t", &at), CC_IR_REACH_NONE);
    assert_int_equal(scan(&bound, "t", &at), CC_IR_REACH_READ);
    irb_free();
}

/* A kernel body's rebinding stays in the kernel; its reads count. */
static void test_scan_reads_kernel_rebindings_do_not_reach_after_it(void **state)
{
    (void)state;
    irb_init();
    cc_ir_block kernel = BLOCK(AT(SP(1, 1), CC_LEVEL_CORE_GROUP, BLOCK(ASSIGN(SP(2, 1), "t", I(0)))), EXPR(SP(3, 1), V("t", T_IDX)));
    cc_ir_block grouping = BLOCK(AT(SP(1, 1), CC_LEVEL_HOST, BLOCK(ASSIGN(SP(2, 1), "t", I(0)))), EXPR(SP(3, 1), V("t", T_IDX)));
    cc_ir_reader at;
    assert_int_equal(scan(&kernel, "t", &at), CC_IR_REACH_READ);
    assert_int_equal(at.stmt->span.line, 3);
    assert_int_equal(scan(&grouping, "t", &at), CC_IR_REACH_KILLED);
    irb_free();
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_each_expression_kind_visits_its_children_in_order),
    cmocka_unit_test(test_each_statement_kind_visits_its_own_expressions_in_order),
    cmocka_unit_test(test_each_statement_kind_hands_out_its_blocks_and_their_flow),
    cmocka_unit_test(test_expression_walk_visits_parents_first_left_to_right),
    cmocka_unit_test(test_block_walks_visit_statements_and_expressions_in_source_order),
    cmocka_unit_test(test_a_nonzero_visit_stops_the_walk),
    cmocka_unit_test(test_scan_reads_reports_the_first_read_and_its_statement),
    cmocka_unit_test(test_scan_reads_stops_at_a_rebinding),
    cmocka_unit_test(test_scan_reads_if_rebinds_when_every_branch_does),
    cmocka_unit_test(test_scan_reads_a_loop_body_may_not_run),
    cmocka_unit_test(test_scan_reads_a_loop_variable_hides_the_name),
    cmocka_unit_test(test_scan_reads_kernel_rebindings_do_not_reach_after_it),
};

PTO_TEST_MAIN(tests)
