/*
 * test_materialize_scopes.c - stage 4, MaterializeRuntimeScopes
 * (src/compiler/pass_materialize_scopes.c): DSL-SPEC §3.3 on hand-built IR,
 * one test per row M01-M13 of §7.3, plus the spans and flags of the scopes
 * it places.
 */
#include "compiler/printer.h"
#include "harness.h"
#include "ir_build.h"

static cc_ir_func *kern;

/* Each test starts a program holding the kernel k; it ends with irb_free(). */
static void begin(void)
{
    irb_init();
    kern = irb_func("k", CC_FUNC_INCORE, 0);
}

static cc_ir_stmt *call_k(void) { return s_expr(e_call(kern, NULL)); }

/* An Orchestration function (default mode unless auto_scope is 0) with body. */
static cc_ir_func *orch(int auto_scope, cc_ir_block body)
{
    cc_ir_func *f = irb_func("main", CC_FUNC_ORCHESTRATION, auto_scope);
    f->body = body;
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
    cc_ir_func *f = orch(1, BLK(s_for(BLK(call_k())), s_return()));
    run_pass();
    assert_string_equal(irb_dump(f), "(scope auto (for (scope auto (call k))) (return))");
    assert_int_equal(f->auto_scope, 0);
    irb_free();
}

static void test_materialize_m01_scalar_only_for_body_wrapped(void **state)
{
    (void)state;
    begin();
    cc_ir_func *f = orch(1, BLK(s_for(BLK(s_assign("x", e_int(1))))));
    run_pass();
    assert_string_equal(irb_dump(f), "(scope auto (for (scope auto (= x ?))))");
    irb_free();
}

static void test_materialize_m02_if_else_both_branches_wrapped(void **state)
{
    (void)state;
    begin();
    cc_ir_func *f = orch(1, BLK(s_if(BLK(call_k()), BLK(call_k()))));
    run_pass();
    assert_string_equal(irb_dump(f), "(scope auto (if (then (scope auto (call k))) (else (scope auto (call k)))))");
    irb_free();
}

static void test_materialize_m03_if_without_else_only_then(void **state)
{
    (void)state;
    begin();
    cc_ir_func *f = orch(1, BLK(s_if(BLK(call_k()), BLK(NULL))));
    run_pass();
    assert_string_equal(irb_dump(f), "(scope auto (if (then (scope auto (call k)))))");
    assert_int_equal(f->body.items[0]->u.scope.body.items[0]->u.if_.orelse.n, 0);
    irb_free();
}

static void test_materialize_m04_elif_chain_wraps_else_and_inner_branches(void **state)
{
    (void)state;
    begin();
    cc_ir_stmt *inner = s_if(BLK(call_k()), BLK(call_k()));
    cc_ir_stmt *outer = s_if(BLK(call_k()), BLK(inner));
    outer->u.if_.elif = 1;
    cc_ir_func *f = orch(1, BLK(outer));
    run_pass();
    assert_string_equal(irb_dump(f), "(scope auto (if (then (scope auto (call k))) (else (scope auto "
                                     "(if (then (scope auto (call k))) (else (scope auto (call k))))))))");
    /* the else scope carries the span of the branch's first statement: the inner if */
    cc_ir_stmt *else_scope = outer->u.if_.orelse.items[0];
    assert_int_equal(else_scope->span.line, inner->span.line);
    irb_free();
}

static void test_materialize_m05_manual_suppresses_nested_wrapping(void **state)
{
    (void)state;
    begin();
    cc_ir_stmt *body = s_scope(CC_SCOPE_MANUAL, BLK(s_for(BLK(s_for(BLK(call_k())), s_if(BLK(call_k()), BLK(call_k()))))));
    cc_ir_func *f = orch(1, BLK(body));
    run_pass();
    assert_string_equal(irb_dump(f),
                        "(scope auto (scope manual (for (for (call k)) (if (then (call k)) (else (call k))))))");
    irb_free();
}

static void test_materialize_m06_submit_in_manual_untouched(void **state)
{
    (void)state;
    begin();
    cc_ir_expr *submit = e_call(kern, NULL);
    submit->u.call.submit = 1;
    cc_ir_stmt *assign = s_assign("t", submit);
    cc_ir_func *f = orch(1, BLK(s_scope(CC_SCOPE_MANUAL, BLK(s_for(BLK(assign))))));
    run_pass();
    assert_string_equal(irb_dump(f), "(scope auto (scope manual (for (= t (submit k)))))");
    assert_ptr_equal(f->body.items[0]->u.scope.body.items[0]->u.scope.body.items[0]->u.for_.body.items[0], assign);
    irb_free();
}

static void test_materialize_m07_for_body_one_manual_scope_gets_auto_around_it(void **state)
{
    (void)state;
    begin();
    cc_ir_func *f = orch(1, BLK(s_for(BLK(s_scope(CC_SCOPE_MANUAL, BLK(call_k()))))));
    run_pass();
    assert_string_equal(irb_dump(f), "(scope auto (for (scope auto (scope manual (call k)))))");
    irb_free();
}

static void test_materialize_m08_while_never_wrapped(void **state)
{
    (void)state;
    begin();
    cc_ir_func *f = orch(1, BLK(s_while(BLK(call_k(), s_for(BLK(call_k()))))));
    run_pass();
    assert_string_equal(irb_dump(f), "(scope auto (while (call k) (for (scope auto (call k)))))");
    irb_free();
}

static void test_materialize_m09_idempotent(void **state)
{
    (void)state;
    begin();
    cc_ir_func *f = orch(1, BLK(s_for(BLK(s_if(BLK(call_k()), BLK(call_k())))), s_return()));
    run_pass();
    char once[4096];
    snprintf(once, sizeof once, "%s", irb_dump(f));
    run_pass();
    assert_string_equal(irb_dump(f), once);
    irb_free();
}

static void test_materialize_m09_auto_scope_already_there_not_rewrapped(void **state)
{
    (void)state;
    begin();
    /* an AUTO scope spliced in from an auto_scope=False inline function */
    cc_ir_func *f = orch(1, BLK(s_scope(CC_SCOPE_AUTO, BLK(s_for(BLK(s_scope(CC_SCOPE_AUTO, BLK(call_k()))))))));
    run_pass();
    assert_string_equal(irb_dump(f), "(scope auto (for (scope auto (call k))))");
    assert_int_equal(f->body.items[0]->u.scope.placed, 0);
    irb_free();
}

static void test_materialize_m10_auto_scope_false_unchanged(void **state)
{
    (void)state;
    begin();
    cc_ir_func *f = orch(0, BLK(s_for(BLK(call_k())), s_scope(CC_SCOPE_AUTO, BLK(call_k()))));
    run_pass();
    assert_string_equal(irb_dump(f), "(for (call k)) (scope auto (call k))");
    assert_int_equal(f->auto_scope, 0);
    irb_free();
}

static void test_materialize_m11_kernels_and_core_group_bodies_untouched(void **state)
{
    (void)state;
    begin();
    kern->body = BLK(s_for(BLK(s_if(BLK(s_return()), BLK(NULL)))));
    kern->auto_scope = 1; /* not even a stray flag makes a kernel change */
    cc_ir_func *f = orch(1, BLK(s_for(BLK(s_at(CC_LEVEL_CORE_GROUP, BLK(s_for(BLK(call_k()))))))));
    run_pass();
    assert_string_equal(irb_dump(kern), "(for (if (then (return))))");
    assert_string_equal(irb_dump(f), "(scope auto (for (scope auto (at CORE_GROUP (for (call k))))))");
    irb_free();
}

static void test_materialize_m12_opaque_untouched_promoted_wrapped_under_own_flag(void **state)
{
    (void)state;
    begin();
    cc_ir_func *opaque = irb_func("sub", CC_FUNC_OPAQUE, 1);
    opaque->body = BLK(s_for(BLK(call_k())));
    cc_ir_func *promoted = irb_func("sub2", CC_FUNC_ORCHESTRATION, 1);
    promoted->body = BLK(s_for(BLK(call_k())));
    cc_ir_func *opted_out = irb_func("sub3", CC_FUNC_ORCHESTRATION, 0);
    opted_out->body = BLK(s_for(BLK(call_k())));
    run_pass();
    assert_string_equal(irb_dump(opaque), "(for (call k))");
    assert_int_equal(opaque->auto_scope, 1);
    assert_string_equal(irb_dump(promoted), "(scope auto (for (scope auto (call k))))");
    assert_string_equal(irb_dump(opted_out), "(for (call k))");
    irb_free();
}

static void test_materialize_m13_grouping_at_transparent(void **state)
{
    (void)state;
    begin();
    cc_ir_func *f = orch(1, BLK(s_at(CC_LEVEL_CHIP, BLK(s_for(BLK(call_k()))))));
    run_pass();
    assert_string_equal(irb_dump(f), "(scope auto (at CHIP (for (scope auto (call k)))))");
    irb_free();
}

static void test_materialize_m_empty_body_untouched(void **state)
{
    (void)state;
    begin();
    cc_ir_func *f = orch(1, BLK(NULL));
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
    cc_ir_stmt *iff = s_if(BLK(call_k()), BLK(first_else, call_k()));
    cc_ir_stmt *loop = s_for(BLK(iff));
    cc_ir_func *f = orch(1, BLK(loop));
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


/* §4.4 / the seed page: `for i in pl.range(4): out = self.kernel(a, out); return out`
 * prints as the seed's "after" text. */
static void test_materialize_seed_orch_prints_the_after_text(void **state)
{
    (void)state;
    begin();
    kern->name = "kernel";
    irb_param(kern, "a", CC_DIR_IN);
    irb_param(kern, "out", CC_DIR_INOUT);
    cc_ir_func *f = orch(1, BLK(NULL));
    f->name = "orch";
    irb_param(f, "a", CC_DIR_IN);
    irb_param(f, "out", CC_DIR_INOUT);
    cc_ir_expr *call = e_call(kern, "a", "out", NULL);
    call->type = irb_tensor;
    call->u.call.boxes = irb_alloc(2 * sizeof *call->u.call.boxes);
    call->u.call.boxes[0] = (cc_ir_box){.dir = CC_DIR_IN, .rank = 2};
    call->u.call.boxes[1] = (cc_ir_box){.dir = CC_DIR_INOUT, .rank = 2};
    cc_ir_stmt *ret = s_return();
    ret->u.ret.values = irb_alloc(sizeof *ret->u.ret.values);
    ret->u.ret.values[0] = e_var("out"), ret->u.ret.n = 1;
    f->body = BLK(s_for(BLK(s_assign("out", call))), ret);
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
