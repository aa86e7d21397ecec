/*
 * test_cache_policy.c - stage 6, ResolveCachePolicy
 * (src/compiler/pass_cache_policy.c) on hand-built IR: the precedence of
 * §6.4, the coherency error of §6.3 row 3 and the warning of §6.5, by the
 * rows K08-K12 of DSL-SPEC §7.4.
 */
#include "compiler/printer.h"
#include "harness.h"
#include "ir_build.h"

static cc_ir_func *kern;

/* Each test starts a program holding the kernel k(w: In, a: In, out: Out);
 * it ends with irb_free(). */
static void begin(void)
{
    irb_init();
    kern = irb_func("k", CC_FUNC_INCORE, 0);
    irb_param(kern, "w", CC_DIR_IN);
    irb_param(kern, "a", CC_DIR_IN);
    irb_param(kern, "out", CC_DIR_OUT);
}

/* The kernel declares policy for tensor, as the outliner copies a pl.at's markers. */
static void declare(const char *tensor, cc_cache_policy policy)
{
    cc_ir_cache_decl *ds = irb_alloc((kern->ndecls + 1) * sizeof *ds);
    if (kern->ndecls) memcpy(ds, kern->decls, kern->ndecls * sizeof *ds);
    ds[kern->ndecls++] = (cc_ir_cache_decl){.tensor = tensor, .policy = (uint8_t)policy, .span = irb_span()};
    kern->decls = ds;
}

static cc_ir_stmt *store_out(cc_ir_expr *tile) { return s_expr(e_store(tile, "out")); }

static void run_ok(void) { assert_int_equal(cc_pass_cache_policy(&B.p), 0); }

static void expect_warning(size_t i, const char *tensor, uint32_t line)
{
    char want[512];
    snprintf(want, sizeof want,
             "[CacheBypassUnsupported] tensor '%s' requests CachePolicy.BYPASS, but this backend has no "
             "cache-bypass path yet; compiling as an ordinary cached access at k.py:%u",
             tensor, (unsigned)line);
    irb_expect_diag(i, CC_DIAG_WARNING, want);
    assert_int_equal(B.diags.items[i].span.line, line);
}

static void test_cache_k09_declaration_applies_explicit_wins(void **state)
{
    (void)state;
    begin();
    declare("w", CC_CACHE_BYPASS);
    declare("a", CC_CACHE_DEFAULT);
    cc_ir_expr *w1 = e_load("w", CC_CACHE_UNSET), *w2 = e_load("w", CC_CACHE_DEFAULT);
    cc_ir_expr *a1 = e_load("a", CC_CACHE_UNSET), *a2 = e_load("a", CC_CACHE_BYPASS);
    kern->body = BLK(store_out(e_binop(CC_IR_ADD, w1, w2)), store_out(e_binop(CC_IR_ADD, a1, a2)));
    run_ok();
    assert_int_equal(w1->u.op.cache, CC_CACHE_BYPASS);
    assert_int_equal(w2->u.op.cache, CC_CACHE_DEFAULT);
    assert_int_equal(a1->u.op.cache, CC_CACHE_DEFAULT);
    assert_int_equal(a2->u.op.cache, CC_CACHE_BYPASS);
    irb_free();
}

static void test_cache_precedence_default_without_declaration(void **state)
{
    (void)state;
    begin();
    cc_ir_expr *w = e_load("w", CC_CACHE_UNSET);
    kern->body = BLK(s_for(BLK(s_if(BLK(store_out(e_binop(CC_IR_MUL, w, e_int(2)))), BLK(NULL)))));
    run_ok();
    assert_int_equal(w->u.op.cache, CC_CACHE_DEFAULT);
    assert_int_equal(B.diags.n, 0);
    irb_free();
}

static void test_cache_k08_bypass_load_of_out_param(void **state)
{
    (void)state;
    begin();
    cc_ir_expr *o = e_load("out", CC_CACHE_BYPASS), *w = e_load("w", CC_CACHE_UNSET);
    kern->body = BLK(s_assign("t", o), store_out(w));
    assert_int_equal(cc_pass_cache_policy(&B.p), -1);
    irb_expect_diag(0, CC_DIAG_PASS,
                    "pl.load(..., cache=pl.CachePolicy.BYPASS) reads 'out', which this kernel also writes (Out); "
                    "a bypassing read of written bytes is a coherency bug");
    assert_int_equal(B.diags.items[0].span.line, o->span.line);
    assert_int_equal(B.diags.n, 1);
    assert_int_equal(w->u.op.cache, CC_CACHE_UNSET); /* a failed stage changes nothing */
    irb_free();
}

static void test_cache_k08_bypass_load_of_inout_param(void **state)
{
    (void)state;
    begin();
    kern->params[2].dir = CC_DIR_INOUT;
    kern->body = BLK(s_assign("t", e_binop(CC_IR_ADD, e_load("w", CC_CACHE_UNSET), e_load("out", CC_CACHE_BYPASS))));
    assert_int_equal(cc_pass_cache_policy(&B.p), -1);
    assert_non_null(strstr(B.diags.items[0].message, "reads 'out', which this kernel also writes (InOut)"));
    irb_free();
}

static void test_cache_k08_bypass_load_of_stored_tensor_without_direction(void **state)
{
    (void)state;
    begin();
    kern->params[0].dir = CC_DIR_NONE; /* directions not derived yet: the store decides */
    kern->body = BLK(s_for(BLK(s_assign("w", e_store(e_load("w", CC_CACHE_BYPASS), "w")))));
    assert_int_equal(cc_pass_cache_policy(&B.p), -1);
    assert_non_null(strstr(B.diags.items[0].message, "reads 'w', which this kernel also writes (InOut)"));
    irb_free();
}

static void test_cache_k08_default_load_of_written_tensor_accepted(void **state)
{
    (void)state;
    begin();
    kern->params[2].dir = CC_DIR_INOUT;
    cc_ir_expr *o = e_load("out", CC_CACHE_DEFAULT);
    kern->body = BLK(store_out(o));
    run_ok();
    assert_int_equal(o->u.op.cache, CC_CACHE_DEFAULT);
    assert_int_equal(B.diags.n, 0);
    irb_free();
}

static void test_cache_k10_one_warning_per_tensor_citing_first_load(void **state)
{
    (void)state;
    begin();
    declare("w", CC_CACHE_BYPASS);
    /* built in reverse source order: the load on line 100 comes first in the source */
    cc_ir_stmt *later = store_out(e_binop(CC_IR_ADD, at_line(e_load("w", CC_CACHE_UNSET), 120),
                                          at_line(e_load("w", CC_CACHE_UNSET), 121)));
    cc_ir_stmt *first = s_assign("t", at_line(e_load("w", CC_CACHE_UNSET), 100));
    kern->body = BLK(first, later);
    run_ok();
    assert_int_equal(B.diags.n, 1);
    expect_warning(0, "w", 100);
    irb_free();
}

static void test_cache_k10_two_bypass_tensors_two_warnings(void **state)
{
    (void)state;
    begin();
    declare("w", CC_CACHE_BYPASS);
    kern->body = BLK(store_out(e_binop(CC_IR_ADD, at_line(e_load("w", CC_CACHE_UNSET), 30),
                                       at_line(e_load("a", CC_CACHE_BYPASS), 20))));
    run_ok();
    assert_int_equal(B.diags.n, 2);
    expect_warning(0, "a", 20);
    expect_warning(1, "w", 30);
    irb_free();
}

static void test_cache_k10_no_bypass_no_warning(void **state)
{
    (void)state;
    begin();
    declare("w", CC_CACHE_DEFAULT);
    kern->body = BLK(store_out(e_binop(CC_IR_ADD, e_load("w", CC_CACHE_UNSET), e_load("a", CC_CACHE_DEFAULT))));
    run_ok();
    assert_int_equal(B.diags.n, 0);
    irb_free();
}

static void test_cache_k10_warnings_per_kernel(void **state)
{
    (void)state;
    begin();
    cc_ir_func *k2 = irb_func("k2", CC_FUNC_INCORE, 0);
    irb_param(k2, "w", CC_DIR_IN);
    irb_param(k2, "out", CC_DIR_OUT);
    k2->body = BLK(store_out(at_line(e_load("w", CC_CACHE_BYPASS), 50)));
    kern->body = BLK(store_out(at_line(e_load("w", CC_CACHE_BYPASS), 40)));
    run_ok();
    assert_int_equal(B.diags.n, 2);
    expect_warning(0, "w", 40);
    expect_warning(1, "w", 50);
    irb_free();
}

static void test_cache_k12_implicit_loads_of_matmul(void **state)
{
    (void)state;
    begin();
    declare("w", CC_CACHE_BYPASS);
    cc_ir_expr *act = e_load("a", CC_CACHE_UNSET), *wts = e_load("w", CC_CACHE_UNSET);
    act->u.op.implicit = wts->u.op.implicit = 1;
    cc_ir_expr *mm = e_binop(CC_IR_MATMUL, act, wts);
    kern->body = BLK(s_assign("acc", mm), store_out(e_var("acc")));
    run_ok();
    assert_int_equal(act->u.op.cache, CC_CACHE_DEFAULT);
    assert_int_equal(wts->u.op.cache, CC_CACHE_BYPASS);
    assert_int_equal(B.diags.n, 1);
    expect_warning(0, "w", wts->span.line);
    irb_free();
}

static void test_cache_orchestration_functions_untouched(void **state)
{
    (void)state;
    begin();
    cc_ir_func *f = irb_func("main", CC_FUNC_ORCHESTRATION, 0);
    cc_ir_expr *stray = e_load("w", CC_CACHE_UNSET);
    f->body = BLK(s_assign("t", stray));
    run_ok();
    assert_int_equal(stray->u.op.cache, CC_CACHE_UNSET);
    irb_free();
}

static void test_cache_k01_resolved_loads_print_their_policy(void **state)
{
    (void)state;
    begin();
    declare("w", CC_CACHE_BYPASS);
    kern->body = BLK(store_out(e_binop(CC_IR_ADD, e_load("w", CC_CACHE_UNSET), e_load("a", CC_CACHE_UNSET))));
    run_ok();
    base_strbuf text = {0};
    cc_print_program(&B.p, &text);
    const char *t = base_strbuf_str(&text);
    assert_non_null(strstr(t, "pl.load(w, cache=pl.CachePolicy.BYPASS)"));
    assert_non_null(strstr(t, "pl.load(a, cache=pl.CachePolicy.DEFAULT)"));
    base_strbuf_free(&text);
    irb_free();
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_cache_k09_declaration_applies_explicit_wins),
    cmocka_unit_test(test_cache_precedence_default_without_declaration),
    cmocka_unit_test(test_cache_k08_bypass_load_of_out_param),
    cmocka_unit_test(test_cache_k08_bypass_load_of_inout_param),
    cmocka_unit_test(test_cache_k08_bypass_load_of_stored_tensor_without_direction),
    cmocka_unit_test(test_cache_k08_default_load_of_written_tensor_accepted),
    cmocka_unit_test(test_cache_k10_one_warning_per_tensor_citing_first_load),
    cmocka_unit_test(test_cache_k10_two_bypass_tensors_two_warnings),
    cmocka_unit_test(test_cache_k10_no_bypass_no_warning),
    cmocka_unit_test(test_cache_k10_warnings_per_kernel),
    cmocka_unit_test(test_cache_k12_implicit_loads_of_matmul),
    cmocka_unit_test(test_cache_orchestration_functions_untouched),
    cmocka_unit_test(test_cache_k01_resolved_loads_print_their_policy),
};

PTO_TEST_MAIN(tests)
