/*
 * test_verify.c - stage 5, Verify (src/compiler/verify.c): V1-V5 of
 * docs/compiler.md, "Verifier checks" on hand-built IR, with the exact
 * messages; each check and the cases next to them that must verify.
 */
#include "compiler/passes.h"
#include "harness.h"
#include "ir_build.h"

static const cc_type T_T = {.kind = CC_T_TENSOR, .dtype = CC_DT_FP32, .rank = 2, .shape = {64, 128}};

static cc_ir_func *kern;

/* Each test starts a program holding the kernel k(a); it ends with irb_free(). */
static void begin(void)
{
    irb_init();
    kern = FUNC("k", CC_FUNC_INCORE, PARAMS(P("a", T_T, CC_DIR_INOUT)), NO_RESULTS);
}

static cc_ir_func *orch(int auto_scope, cc_ir_block body)
{
    cc_ir_func *f = FUNC("main", CC_FUNC_ORCHESTRATION, NO_PARAMS, NO_RESULTS);
    f->auto_scope = (uint8_t)auto_scope, f->body = body;
    return f;
}

/* A call k(t), its argument on a line of its own, without footprints. */
static cc_ir_expr *call_k_unboxed(const char *t)
{
    cc_ir_expr *arg = V(t, T_T);
    arg->span = FRESH();
    return CALL(kern, FRESH(), arg);
}

/* A call k(t) with its footprint box, as stage 3 leaves it. */
static cc_ir_expr *call_k(const char *t)
{
    cc_ir_expr *e = call_k_unboxed(t);
    e->u.call.boxes = irb_alloc(sizeof *e->u.call.boxes);
    e->u.call.boxes[0] = (cc_ir_box){.dir = CC_DIR_INOUT, .rank = 2};
    return e;
}

/* pl.create_tensor([64, 128]) on a line of its own. */
static cc_ir_expr *create_tensor(void) { return OP(CC_IR_CREATE_TENSOR, T_T, FRESH(), LIST(I(64), I(128))); }

static void expect_ok(void)
{
    assert_int_equal(cc_verify(&B.p), 0);
    assert_int_equal(B.diags.n, 0);
}

/* Verify fails with exactly one diagnostic. */
static void expect_one(cc_diag_class cls, const char *message)
{
    assert_int_equal(cc_verify(&B.p), -1);
    irb_expect_diag(0, cls, message);
    assert_int_equal(B.diags.n, 1);
}

static void test_verify_v01_unmaterialized_default_orchestration(void **state)
{
    (void)state;
    begin();
    orch(1, BLOCK(EXPR(FRESH(), call_k("x"))));
    expect_one(CC_DIAG_PASS, "[RuntimeScopesMaterialized] Orchestration function 'main' still has auto_scope=True; "
                             "MaterializeRuntimeScopes must run before lowering (scopes are lowered only from "
                             "explicit scope nodes, never inferred from for/if bodies)");
    irb_free();
}

static void test_verify_v02_auto_scope_false_verifies(void **state)
{
    (void)state;
    begin();
    orch(0, BLOCK(FOR(FRESH(), "i", I(0), I(4), I(1), BLOCK(EXPR(FRESH(), call_k("x")))), RET0(FRESH())));
    expect_ok();
    irb_free();
}

static void test_verify_v03_auto_in_manual_after_inlining(void **state)
{
    (void)state;
    begin();
    cc_ir_stmt *spliced = SCOPE(FRESH(), CC_SCOPE_AUTO, BLOCK(EXPR(FRESH(), call_k("x"))));
    spliced->u.scope.inlined_from = "g";
    spliced->u.scope.inlined_at = (cc_span){7, 9, 7, 15};
    orch(0, BLOCK(SCOPE(FRESH(), CC_SCOPE_MANUAL, BLOCK(FOR(FRESH(), "i", I(0), I(4), I(1), BLOCK(spliced))))));
    expect_one(CC_DIAG_PASS, "an AUTO scope may not be nested inside a manual scope (after inlining 'g' at k.py:7)");
    assert_int_equal(B.diags.items[0].span.line, spliced->span.line);
    irb_free();
}

static void test_verify_v2_manual_in_manual(void **state)
{
    (void)state;
    begin();
    orch(0, BLOCK(SCOPE(FRESH(), CC_SCOPE_MANUAL, BLOCK(SCOPE(FRESH(), CC_SCOPE_MANUAL, BLOCK(EXPR(FRESH(), call_k("x"))))))));
    expect_one(CC_DIAG_PASS, "a manual scope may not be nested inside another manual scope");
    irb_free();
}

static void test_verify_v2_manual_in_auto_and_auto_in_auto_verify(void **state)
{
    (void)state;
    begin();
    orch(0, BLOCK(SCOPE(FRESH(), CC_SCOPE_AUTO, BLOCK(SCOPE(FRESH(), CC_SCOPE_MANUAL, BLOCK(EXPR(FRESH(), call_k("x")))),
                                             SCOPE(FRESH(), CC_SCOPE_AUTO, BLOCK(EXPR(FRESH(), call_k("x"))))))));
    expect_ok();
    irb_free();
}

static void test_verify_v3_runtime_scope_in_incore(void **state)
{
    (void)state;
    begin();
    kern->body = BLOCK(FOR(FRESH(), "i", I(0), I(4), I(1), BLOCK(SCOPE(FRESH(), CC_SCOPE_MANUAL, EMPTY_BLOCK))));
    expect_one(CC_DIAG_PASS, "a runtime scope is not allowed in kernel code (in InCore function 'k'); "
                             "move it to the orchestration function");
    irb_free();
}

static void test_verify_v3_create_tensor_in_incore(void **state)
{
    (void)state;
    begin();
    kern->body = BLOCK(ASSIGN(FRESH(), "t", create_tensor()));
    expect_one(CC_DIAG_PASS, "pl.create_tensor is control-plane work and is not allowed in kernel code "
                             "(in InCore function 'k')");
    irb_free();
}

static void test_verify_v3_submit_in_incore(void **state)
{
    (void)state;
    begin();
    cc_ir_expr *submit = call_k("a");
    submit->u.call.submit = 1;
    kern->body = BLOCK(IF(FRESH(), V("c", T_IDX), BLOCK(ASSIGN(FRESH(), "t", submit)), EMPTY_BLOCK));
    expect_one(CC_DIAG_PASS, "pl.submit is control-plane work and is not allowed in kernel code "
                             "(in InCore function 'k')");
    irb_free();
}

static void test_verify_v3_call_in_incore(void **state)
{
    (void)state;
    begin();
    cc_ir_func *g = FUNC("g", CC_FUNC_OPAQUE, NO_PARAMS, NO_RESULTS);
    g->auto_scope = 0;
    kern->body = BLOCK(EXPR(FRESH(), CALL0(g, FRESH())));
    expect_one(CC_DIAG_PASS, "calling 'g' is control-plane work and is not allowed in kernel code "
                             "(in InCore function 'k')");
    irb_free();
}

static void test_verify_v04_scoped_tensor_escapes(void **state)
{
    (void)state;
    begin();
    /* for i: t = pl.create_tensor(...); k(t)    then k(t) after the loop */
    cc_ir_expr *create = create_tensor();
    cc_ir_stmt *loop = FOR(FRESH(), "i", I(0), I(4), I(1),
                           BLOCK(SCOPE(FRESH(), CC_SCOPE_AUTO, BLOCK(ASSIGN(FRESH(), "t", create), EXPR(FRESH(), call_k("t"))))));
    cc_ir_stmt *after = EXPR(FRESH(), call_k("t"));
    orch(0, BLOCK(SCOPE(FRESH(), CC_SCOPE_AUTO, BLOCK(loop, after, RET0(FRESH())))));
    char want[512];
    snprintf(want, sizeof want,
             "[ScopedTensorEscapes] tensor 't' is created inside a runtime scope (k.py:%u) and used after that "
             "scope ends; create it in an enclosing scope",
             (unsigned)create->span.line);
    expect_one(CC_DIAG_PASS, want);
    assert_int_equal(B.diags.items[0].span.line, after->u.expr->u.call.args[0]->span.line);
    irb_free();
}

static void test_verify_v4_read_nested_after_scope_escapes(void **state)
{
    (void)state;
    begin();
    cc_ir_stmt *made =
        SCOPE(FRESH(), CC_SCOPE_MANUAL, BLOCK(IF(FRESH(), V("c", T_IDX), BLOCK(ASSIGN(FRESH(), "t", create_tensor())), EMPTY_BLOCK)));
    orch(0, BLOCK(made, WHILE(FRESH(), V("c", T_IDX), BLOCK(IF(FRESH(), V("c", T_IDX), EMPTY_BLOCK, BLOCK(EXPR(FRESH(), call_k("t"))))))));
    assert_int_equal(cc_verify(&B.p), -1);
    assert_int_equal(B.diags.n, 1);
    assert_non_null(strstr(B.diags.items[0].message, "[ScopedTensorEscapes] tensor 't'"));
    irb_free();
}

static void test_verify_v4_uses_inside_the_scope_verify(void **state)
{
    (void)state;
    begin();
    cc_ir_stmt *inner = SCOPE(FRESH(), CC_SCOPE_MANUAL, BLOCK(EXPR(FRESH(), call_k("t"))));
    orch(0, BLOCK(SCOPE(FRESH(), CC_SCOPE_AUTO, BLOCK(ASSIGN(FRESH(), "t", create_tensor()), inner, EXPR(FRESH(), call_k("t")))),
                EXPR(FRESH(), call_k("u"))));
    expect_ok();
    irb_free();
}

static void test_verify_v4_rebound_before_use_verifies(void **state)
{
    (void)state;
    begin();
    orch(0, BLOCK(SCOPE(FRESH(), CC_SCOPE_AUTO, BLOCK(ASSIGN(FRESH(), "t", create_tensor()))),
                IF(FRESH(), V("c", T_IDX), BLOCK(ASSIGN(FRESH(), "t", V("a", T_T))), BLOCK(ASSIGN(FRESH(), "t", V("b", T_T)))),
                EXPR(FRESH(), call_k("t"))));
    expect_ok();
    irb_free();
}

static void test_verify_v4_rebound_on_one_branch_escapes(void **state)
{
    (void)state;
    begin();
    orch(0, BLOCK(SCOPE(FRESH(), CC_SCOPE_AUTO, BLOCK(ASSIGN(FRESH(), "t", create_tensor()))),
                IF(FRESH(), V("c", T_IDX), BLOCK(ASSIGN(FRESH(), "t", V("a", T_T))), EMPTY_BLOCK),
                EXPR(FRESH(), call_k("t"))));
    assert_int_equal(cc_verify(&B.p), -1);
    assert_int_equal(B.diags.n, 1);
    irb_free();
}

static void test_verify_v4_created_outside_every_scope_verifies(void **state)
{
    (void)state;
    begin();
    orch(0, BLOCK(ASSIGN(FRESH(), "t", create_tensor()), SCOPE(FRESH(), CC_SCOPE_MANUAL, BLOCK(EXPR(FRESH(), call_k("t")))),
                EXPR(FRESH(), call_k("t"))));
    expect_ok();
    irb_free();
}

static void test_verify_v5_incore_call_without_footprints(void **state)
{
    (void)state;
    begin();
    orch(0, BLOCK(FOR(FRESH(), "i", I(0), I(4), I(1), BLOCK(EXPR(FRESH(), call_k_unboxed("x"))))));
    expect_one(CC_DIAG_INTERNAL, "call of InCore function 'k' has no footprints (DeriveCallDirections did not run)");
    irb_free();
}

static void test_verify_v5_tensor_argument_without_direction(void **state)
{
    (void)state;
    begin();
    cc_ir_expr *call = call_k("x");
    call->u.call.boxes[0].dir = CC_DIR_NONE;
    orch(0, BLOCK(EXPR(FRESH(), call)));
    expect_one(CC_DIAG_INTERNAL, "call of InCore function 'k': tensor argument 'a' has no direction");
    irb_free();
}

static void test_verify_every_violation_reported(void **state)
{
    (void)state;
    begin();
    orch(1, BLOCK(EXPR(FRESH(), call_k_unboxed("x"))));
    kern->body = BLOCK(ASSIGN(FRESH(), "t", create_tensor()));
    assert_int_equal(cc_verify(&B.p), -1);
    assert_int_equal(B.diags.n, 3);
    assert_non_null(strstr(B.diags.items[0].message, "RuntimeScopesMaterialized"));
    assert_non_null(strstr(B.diags.items[1].message, "pl.create_tensor"));
    assert_non_null(strstr(B.diags.items[2].message, "no footprints"));
    irb_free();
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_verify_v01_unmaterialized_default_orchestration),
    cmocka_unit_test(test_verify_v02_auto_scope_false_verifies),
    cmocka_unit_test(test_verify_v03_auto_in_manual_after_inlining),
    cmocka_unit_test(test_verify_v2_manual_in_manual),
    cmocka_unit_test(test_verify_v2_manual_in_auto_and_auto_in_auto_verify),
    cmocka_unit_test(test_verify_v3_runtime_scope_in_incore),
    cmocka_unit_test(test_verify_v3_create_tensor_in_incore),
    cmocka_unit_test(test_verify_v3_submit_in_incore),
    cmocka_unit_test(test_verify_v3_call_in_incore),
    cmocka_unit_test(test_verify_v04_scoped_tensor_escapes),
    cmocka_unit_test(test_verify_v4_read_nested_after_scope_escapes),
    cmocka_unit_test(test_verify_v4_uses_inside_the_scope_verify),
    cmocka_unit_test(test_verify_v4_rebound_before_use_verifies),
    cmocka_unit_test(test_verify_v4_rebound_on_one_branch_escapes),
    cmocka_unit_test(test_verify_v4_created_outside_every_scope_verifies),
    cmocka_unit_test(test_verify_v5_incore_call_without_footprints),
    cmocka_unit_test(test_verify_v5_tensor_argument_without_direction),
    cmocka_unit_test(test_verify_every_violation_reported),
};

PTO_TEST_MAIN(tests)
