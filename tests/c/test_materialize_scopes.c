/*
 * test_materialize_scopes.c - stage 4, MaterializeRuntimeScopes
 * (src/compiler/pass_materialize_scopes.c): docs/compiler.md, "Scope placement" on hand-built IR,
 * one test per rule, plus the spans and flags of the scopes
 * it places.
 */
#include "compiler/passes.h"
#include "compiler/printer.h"
#include "harness.h"
#include "ir_build.h"

static const cc_type T_T = {.kind = CC_T_TENSOR, .dtype = CC_DT_FP32, .rank = 2, .shape = {64, 128}};

static cc_ir_func *kern;

/* Each test starts a program holding the kernel k; it ends with irb_free(). */
static void begin(void)
{
    irb_init();
    kern = FUNC("k", CC_FUNC_INCORE, NO_PARAMS, NO_RESULTS);
}

static cc_ir_stmt *call_k(void) { return EXPR(FRESH(), CALL0(kern, FRESH())); }

/* An Orchestration function (default mode unless auto_scope is 0) with body. */
static cc_ir_func *orch(int auto_scope, cc_ir_block body)
{
    cc_ir_func *f = FUNC("main", CC_FUNC_ORCHESTRATION, NO_PARAMS, NO_RESULTS);
    f->auto_scope = (uint8_t)auto_scope, f->body = body;
    return f;
}

static void run_pass(void)
{
    assert_int_equal(cc_pass_materialize_scopes(&B.p), 0);
    assert_int_equal(B.diags.n, 0);
}

static void test_materialize_m01_for_body_wrapped(void **state)
{
    (void)state;
    begin();
    cc_ir_func *f = orch(1, BLOCK(FOR(FRESH(), "i", I(0), I(4), I(1), BLOCK(call_k())), RET0(FRESH())));
    run_pass();
    irb_expect_dump(f, "scope AUTO:\n"
                       "  for i in 0..4 step 1:\n"
                       "    scope AUTO:\n"
                       "      self.k()\n"
                       "  return\n");
    assert_int_equal(f->auto_scope, 0);
    irb_free();
}

static void test_materialize_m01_scalar_only_for_body_wrapped(void **state)
{
    (void)state;
    begin();
    cc_ir_func *f = orch(1, BLOCK(FOR(FRESH(), "i", I(0), I(4), I(1), BLOCK(ASSIGN(FRESH(), "x", I(1))))));
    run_pass();
    irb_expect_dump(f, "scope AUTO:\n"
                       "  for i in 0..4 step 1:\n"
                       "    scope AUTO:\n"
                       "      x = 1\n");
    irb_free();
}

static void test_materialize_m02_if_else_both_branches_wrapped(void **state)
{
    (void)state;
    begin();
    cc_ir_func *f = orch(1, BLOCK(IF(FRESH(), V("c", T_IDX), BLOCK(call_k()), BLOCK(call_k()))));
    run_pass();
    irb_expect_dump(f, "scope AUTO:\n"
                       "  if c:\n"
                       "    scope AUTO:\n"
                       "      self.k()\n"
                       "  else:\n"
                       "    scope AUTO:\n"
                       "      self.k()\n");
    irb_free();
}

static void test_materialize_m03_if_without_else_only_then(void **state)
{
    (void)state;
    begin();
    cc_ir_func *f = orch(1, BLOCK(IF(FRESH(), V("c", T_IDX), BLOCK(call_k()), EMPTY_BLOCK)));
    run_pass();
    irb_expect_dump(f, "scope AUTO:\n"
                       "  if c:\n"
                       "    scope AUTO:\n"
                       "      self.k()\n");
    assert_int_equal(f->body.items[0]->u.scope.body.items[0]->u.if_.orelse.n, 0);
    irb_free();
}

static void test_materialize_m04_elif_chain_wraps_else_and_inner_branches(void **state)
{
    (void)state;
    begin();
    cc_ir_stmt *inner = IF(FRESH(), V("c", T_IDX), BLOCK(call_k()), BLOCK(call_k()));
    cc_ir_stmt *outer = IF(FRESH(), V("c", T_IDX), BLOCK(call_k()), BLOCK(inner));
    outer->u.if_.elif = 1;
    cc_ir_func *f = orch(1, BLOCK(outer));
    run_pass();
    irb_expect_dump(f, "scope AUTO:\n"
                       "  if c:\n"
                       "    scope AUTO:\n"
                       "      self.k()\n"
                       "  else:\n"
                       "    scope AUTO:\n"
                       "      if c:\n"
                       "        scope AUTO:\n"
                       "          self.k()\n"
                       "      else:\n"
                       "        scope AUTO:\n"
                       "          self.k()\n");
    /* the else scope carries the span of the branch's first statement: the inner if */
    cc_ir_stmt *else_scope = outer->u.if_.orelse.items[0];
    assert_int_equal(else_scope->span.line, inner->span.line);
    irb_free();
}

static void test_materialize_m05_manual_suppresses_nested_wrapping(void **state)
{
    (void)state;
    begin();
    cc_ir_stmt *body = SCOPE(FRESH(), CC_SCOPE_MANUAL,
                             BLOCK(FOR(FRESH(), "i", I(0), I(4), I(1),
                                       BLOCK(FOR(FRESH(), "i", I(0), I(4), I(1), BLOCK(call_k())),
                                             IF(FRESH(), V("c", T_IDX), BLOCK(call_k()), BLOCK(call_k()))))));
    cc_ir_func *f = orch(1, BLOCK(body));
    run_pass();
    irb_expect_dump(f, "scope AUTO:\n"
                       "  scope MANUAL:\n"
                       "    for i in 0..4 step 1:\n"
                       "      for i in 0..4 step 1:\n"
                       "        self.k()\n"
                       "      if c:\n"
                       "        self.k()\n"
                       "      else:\n"
                       "        self.k()\n");
    irb_free();
}

static void test_materialize_m06_submit_in_manual_untouched(void **state)
{
    (void)state;
    begin();
    cc_ir_expr *submit = CALL0(kern, FRESH());
    submit->u.call.submit = 1;
    cc_ir_stmt *assign = ASSIGN(FRESH(), "t", submit);
    cc_ir_func *f = orch(1, BLOCK(SCOPE(FRESH(), CC_SCOPE_MANUAL, BLOCK(FOR(FRESH(), "i", I(0), I(4), I(1), BLOCK(assign))))));
    run_pass();
    irb_expect_dump(f, "scope AUTO:\n"
                       "  scope MANUAL:\n"
                       "    for i in 0..4 step 1:\n"
                       "      t = pl.submit(self.k)\n");
    assert_ptr_equal(f->body.items[0]->u.scope.body.items[0]->u.scope.body.items[0]->u.for_.body.items[0], assign);
    irb_free();
}

static void test_materialize_m07_for_body_one_manual_scope_gets_auto_around_it(void **state)
{
    (void)state;
    begin();
    cc_ir_func *f = orch(1, BLOCK(FOR(FRESH(), "i", I(0), I(4), I(1), BLOCK(SCOPE(FRESH(), CC_SCOPE_MANUAL, BLOCK(call_k()))))));
    run_pass();
    irb_expect_dump(f, "scope AUTO:\n"
                       "  for i in 0..4 step 1:\n"
                       "    scope AUTO:\n"
                       "      scope MANUAL:\n"
                       "        self.k()\n");
    irb_free();
}

static void test_materialize_m08_while_never_wrapped(void **state)
{
    (void)state;
    begin();
    cc_ir_func *f = orch(1, BLOCK(WHILE(FRESH(), V("c", T_IDX), BLOCK(call_k(), FOR(FRESH(), "i", I(0), I(4), I(1), BLOCK(call_k()))))));
    run_pass();
    irb_expect_dump(f, "scope AUTO:\n"
                       "  while c:\n"
                       "    self.k()\n"
                       "    for i in 0..4 step 1:\n"
                       "      scope AUTO:\n"
                       "        self.k()\n");
    irb_free();
}

static void test_materialize_m09_idempotent(void **state)
{
    (void)state;
    begin();
    cc_ir_func *f = orch(1, BLOCK(FOR(FRESH(), "i", I(0), I(4), I(1), BLOCK(IF(FRESH(), V("c", T_IDX), BLOCK(call_k()), BLOCK(call_k())))),
                                  RET0(FRESH())));
    run_pass();
    const char *once = irb_dump(f);
    run_pass();
    irb_expect_dump(f, once);
    irb_free();
}

static void test_materialize_m09_auto_scope_already_there_not_rewrapped(void **state)
{
    (void)state;
    begin();
    /* an AUTO scope spliced in from an auto_scope=False inline function */
    cc_ir_func *f = orch(1, BLOCK(SCOPE(FRESH(), CC_SCOPE_AUTO,
                                        BLOCK(FOR(FRESH(), "i", I(0), I(4), I(1), BLOCK(SCOPE(FRESH(), CC_SCOPE_AUTO, BLOCK(call_k()))))))));
    run_pass();
    irb_expect_dump(f, "scope AUTO:\n"
                       "  for i in 0..4 step 1:\n"
                       "    scope AUTO:\n"
                       "      self.k()\n");
    assert_int_equal(f->body.items[0]->u.scope.placed, 0);
    irb_free();
}

static void test_materialize_m10_auto_scope_false_unchanged(void **state)
{
    (void)state;
    begin();
    cc_ir_func *f = orch(0, BLOCK(FOR(FRESH(), "i", I(0), I(4), I(1), BLOCK(call_k())), SCOPE(FRESH(), CC_SCOPE_AUTO, BLOCK(call_k()))));
    run_pass();
    irb_expect_dump(f, "for i in 0..4 step 1:\n"
                       "  self.k()\n"
                       "scope AUTO:\n"
                       "  self.k()\n");
    assert_int_equal(f->auto_scope, 0);
    irb_free();
}

static void test_materialize_m11_kernels_and_core_group_bodies_untouched(void **state)
{
    (void)state;
    begin();
    kern->body = BLOCK(FOR(FRESH(), "i", I(0), I(4), I(1), BLOCK(IF(FRESH(), V("c", T_IDX), BLOCK(RET0(FRESH())), EMPTY_BLOCK))));
    kern->auto_scope = 1; /* not even a stray flag makes a kernel change */
    cc_ir_func *f = orch(1, BLOCK(FOR(FRESH(), "i", I(0), I(4), I(1),
                                      BLOCK(AT(FRESH(), CC_LEVEL_CORE_GROUP, BLOCK(FOR(FRESH(), "i", I(0), I(4), I(1), BLOCK(call_k()))))))));
    run_pass();
    irb_expect_dump(kern, "for i in 0..4 step 1:\n"
                          "  if c:\n"
                          "    return\n");
    irb_expect_dump(f, "scope AUTO:\n"
                       "  for i in 0..4 step 1:\n"
                       "    scope AUTO:\n"
                       "      at CORE_GROUP:\n"
                       "        for i in 0..4 step 1:\n"
                       "          self.k()\n");
    irb_free();
}

static void test_materialize_m12_opaque_untouched_promoted_wrapped_under_own_flag(void **state)
{
    (void)state;
    begin();
    cc_ir_func *opaque = FUNC("sub", CC_FUNC_OPAQUE, NO_PARAMS, NO_RESULTS);
    opaque->body = BLOCK(FOR(FRESH(), "i", I(0), I(4), I(1), BLOCK(call_k())));
    cc_ir_func *promoted = FUNC("sub2", CC_FUNC_ORCHESTRATION, NO_PARAMS, NO_RESULTS);
    promoted->body = BLOCK(FOR(FRESH(), "i", I(0), I(4), I(1), BLOCK(call_k())));
    cc_ir_func *opted_out = FUNC("sub3", CC_FUNC_ORCHESTRATION, NO_PARAMS, NO_RESULTS);
    opted_out->auto_scope = 0;
    opted_out->body = BLOCK(FOR(FRESH(), "i", I(0), I(4), I(1), BLOCK(call_k())));
    run_pass();
    irb_expect_dump(opaque, "for i in 0..4 step 1:\n"
                            "  self.k()\n");
    assert_int_equal(opaque->auto_scope, 1);
    irb_expect_dump(promoted, "scope AUTO:\n"
                              "  for i in 0..4 step 1:\n"
                              "    scope AUTO:\n"
                              "      self.k()\n");
    irb_expect_dump(opted_out, "for i in 0..4 step 1:\n"
                               "  self.k()\n");
    irb_free();
}

static void test_materialize_m13_grouping_at_transparent(void **state)
{
    (void)state;
    begin();
    cc_ir_func *f = orch(1, BLOCK(AT(FRESH(), CC_LEVEL_CHIP, BLOCK(FOR(FRESH(), "i", I(0), I(4), I(1), BLOCK(call_k()))))));
    run_pass();
    irb_expect_dump(f, "scope AUTO:\n"
                       "  at CHIP:\n"
                       "    for i in 0..4 step 1:\n"
                       "      scope AUTO:\n"
                       "        self.k()\n");
    irb_free();
}

static void test_materialize_m_empty_body_untouched(void **state)
{
    (void)state;
    begin();
    cc_ir_func *f = orch(1, EMPTY_BLOCK);
    run_pass();
    assert_int_equal(f->body.n, 0);
    assert_int_equal(f->auto_scope, 1);
    irb_free();
}

static void test_materialize_m_placed_scopes_carry_the_wrapped_construct_span(void **state)
{
    (void)state;
    begin();
    cc_ir_stmt *first_else = call_k();
    cc_ir_stmt *iff = IF(FRESH(), V("c", T_IDX), BLOCK(call_k()), BLOCK(first_else, call_k()));
    cc_ir_stmt *loop = FOR(FRESH(), "i", I(0), I(4), I(1), BLOCK(iff));
    cc_ir_func *f = orch(1, BLOCK(loop));
    run_pass();
    cc_ir_stmt *fs = f->body.items[0], *ls = loop->u.for_.body.items[0];
    cc_ir_stmt *ts = iff->u.if_.then.items[0], *es = iff->u.if_.orelse.items[0];
    const cc_ir_stmt *placed[] = {fs, ls, ts, es};
    const uint32_t lines[] = {f->span.line, loop->span.line, iff->span.line, first_else->span.line};
    for (int k = 0; k < 4; k++) {
        assert_int_equal(placed[k]->kind, CC_I_SCOPE);
        assert_int_equal(placed[k]->u.scope.mode, CC_SCOPE_AUTO);
        assert_int_equal(placed[k]->u.scope.placed, 1);
        assert_int_equal(placed[k]->span.line, lines[k]);
    }
    irb_free();
}

/* The seed page (docs/dsl.md, "Runtime scopes and rings"): `for i in pl.range(4): out = self.kernel(a, out); return out`
 * prints as the seed's "after" text. */
static void test_materialize_seed_orch_prints_the_after_text(void **state)
{
    (void)state;
    irb_init();
    kern = FUNC("kernel", CC_FUNC_INCORE, PARAMS(P("a", T_T, CC_DIR_IN), P("out", T_T, CC_DIR_INOUT)), NO_RESULTS);
    cc_ir_func *f = FUNC("orch", CC_FUNC_ORCHESTRATION, PARAMS(P("a", T_T, CC_DIR_IN), P("out", T_T, CC_DIR_INOUT)), NO_RESULTS);
    cc_ir_expr *call = CALL(kern, FRESH(), V("a", T_T), V("out", T_T));
    call->type = T_T;
    call->u.call.boxes = irb_alloc(2 * sizeof *call->u.call.boxes);
    call->u.call.boxes[0] = (cc_ir_box){.dir = CC_DIR_IN, .rank = 2};
    call->u.call.boxes[1] = (cc_ir_box){.dir = CC_DIR_INOUT, .rank = 2};
    f->body = BLOCK(FOR(FRESH(), "i", I(0), I(4), I(1), BLOCK(ASSIGN(FRESH(), "out", call))), RET(FRESH(), V("out", T_T)));
    run_pass();
    base_strbuf text = {0};
    cc_print_program(&B.p, &text);
    const char *t = base_strbuf_str(&text);
    assert_non_null(strstr(t, "    @pl.function(type=pl.FunctionType.Orchestration, auto_scope=False)\n    def orch("));
    assert_non_null(strstr(t, "]]):\n"
                              "        with pl.scope():\n"
                              "            for i in pl.range(4):\n"
                              "                with pl.scope():\n"
                              "                    out = self.kernel(a, out)"));
    assert_string_equal(t + strlen(t) - strlen("\n            return out\n"), "\n            return out\n");
    base_strbuf_free(&text);
    irb_free();
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_materialize_m01_for_body_wrapped),
    cmocka_unit_test(test_materialize_m01_scalar_only_for_body_wrapped),
    cmocka_unit_test(test_materialize_m02_if_else_both_branches_wrapped),
    cmocka_unit_test(test_materialize_m03_if_without_else_only_then),
    cmocka_unit_test(test_materialize_m04_elif_chain_wraps_else_and_inner_branches),
    cmocka_unit_test(test_materialize_m05_manual_suppresses_nested_wrapping),
    cmocka_unit_test(test_materialize_m06_submit_in_manual_untouched),
    cmocka_unit_test(test_materialize_m07_for_body_one_manual_scope_gets_auto_around_it),
    cmocka_unit_test(test_materialize_m08_while_never_wrapped),
    cmocka_unit_test(test_materialize_m09_idempotent),
    cmocka_unit_test(test_materialize_m09_auto_scope_already_there_not_rewrapped),
    cmocka_unit_test(test_materialize_m10_auto_scope_false_unchanged),
    cmocka_unit_test(test_materialize_m11_kernels_and_core_group_bodies_untouched),
    cmocka_unit_test(test_materialize_m12_opaque_untouched_promoted_wrapped_under_own_flag),
    cmocka_unit_test(test_materialize_m13_grouping_at_transparent),
    cmocka_unit_test(test_materialize_m_empty_body_untouched),
    cmocka_unit_test(test_materialize_m_placed_scopes_carry_the_wrapped_construct_span),
    cmocka_unit_test(test_materialize_seed_orch_prints_the_after_text),
};

PTO_TEST_MAIN(tests)
