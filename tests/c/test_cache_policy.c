/*
 * test_cache_policy.c - stage 6, ResolveCachePolicy
 * (src/compiler/pass_cache_policy.c) on hand-built IR: the precedence of
 * docs/compiler.md, "Cache policy resolution": precedence, the coherency error
 * and the warning.
 */
#include "compiler/passes.h"
#include "compiler/printer.h"
#include "harness.h"
#include "ir_build.h"

static const cc_type T_T = {.kind = CC_T_TENSOR, .dtype = CC_DT_FP32, .rank = 2, .shape = {64, 128}};
static const cc_type T_TL = {.kind = CC_T_TILE, .dtype = CC_DT_FP32, .rank = 2, .shape = {64, 128}};

static cc_ir_func *kern;

/* Each test starts a program holding the kernel k(w: In, a: In, out: Out);
 * it ends with irb_free(). */
static void begin(void)
{
    irb_init();
    kern = FUNC("k", CC_FUNC_INCORE, PARAMS(P("w", T_T, CC_DIR_IN), P("a", T_T, CC_DIR_IN), P("out", T_T, CC_DIR_OUT)),
                NO_RESULTS);
}

/* The kernel declares policy for tensor, as the outliner copies a pl.at's markers. */
static void declare(const char *tensor, cc_cache_policy policy)
{
    cc_ir_cache_decl *ds = irb_alloc((kern->ndecls + 1) * sizeof *ds);
    if (kern->ndecls) memcpy(ds, kern->decls, kern->ndecls * sizeof *ds);
    ds[kern->ndecls++] = (cc_ir_cache_decl){.tensor = tensor, .policy = (uint8_t)policy, .span = FRESH()};
    kern->decls = ds;
}

/* pl.load(tensor) at sp with the cache policy as given. */
static cc_ir_expr *load(cc_span sp, const char *tensor, cc_cache_policy cache)
{
    cc_ir_expr *e = OP(CC_IR_LOAD, T_TL, sp, V(tensor, T_T));
    e->u.op.cache = (uint8_t)cache;
    return e;
}

static cc_ir_expr *tile_op(cc_ir_op op, cc_ir_expr *l, cc_ir_expr *r) { return OP(op, T_TL, FRESH(), l, r); }

static cc_ir_expr *store(cc_ir_expr *tile, const char *tensor) { return STORE(FRESH(), tile, I(0), I(0), V(tensor, T_T)); }

static cc_ir_stmt *store_out(cc_ir_expr *tile) { return EXPR(FRESH(), store(tile, "out")); }

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
    cc_ir_expr *w1 = load(FRESH(), "w", CC_CACHE_UNSET), *w2 = load(FRESH(), "w", CC_CACHE_DEFAULT);
    cc_ir_expr *a1 = load(FRESH(), "a", CC_CACHE_UNSET), *a2 = load(FRESH(), "a", CC_CACHE_BYPASS);
    kern->body = BLOCK(store_out(tile_op(CC_IR_ADD, w1, w2)), store_out(tile_op(CC_IR_ADD, a1, a2)));
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
    cc_ir_expr *w = load(FRESH(), "w", CC_CACHE_UNSET);
    kern->body = BLOCK(FOR(FRESH(), "i", I(0), I(4), I(1),
                           BLOCK(IF(FRESH(), V("c", T_IDX), BLOCK(store_out(tile_op(CC_IR_MUL, w, I(2)))), EMPTY_BLOCK))));
    run_ok();
    assert_int_equal(w->u.op.cache, CC_CACHE_DEFAULT);
    assert_int_equal(B.diags.n, 0);
    irb_free();
}

static void test_cache_k08_bypass_load_of_out_param(void **state)
{
    (void)state;
    begin();
    cc_ir_expr *o = load(FRESH(), "out", CC_CACHE_BYPASS), *w = load(FRESH(), "w", CC_CACHE_UNSET);
    kern->body = BLOCK(ASSIGN(FRESH(), "t", o), store_out(w));
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
    kern->body = BLOCK(ASSIGN(FRESH(), "t", tile_op(CC_IR_ADD, load(FRESH(), "w", CC_CACHE_UNSET), load(FRESH(), "out", CC_CACHE_BYPASS))));
    assert_int_equal(cc_pass_cache_policy(&B.p), -1);
    assert_non_null(strstr(B.diags.items[0].message, "reads 'out', which this kernel also writes (InOut)"));
    irb_free();
}

static void test_cache_k08_bypass_load_of_stored_tensor_without_direction(void **state)
{
    (void)state;
    begin();
    kern->params[0].dir = CC_DIR_NONE; /* directions not derived yet: the store decides */
    kern->body = BLOCK(FOR(FRESH(), "i", I(0), I(4), I(1), BLOCK(ASSIGN(FRESH(), "w", store(load(FRESH(), "w", CC_CACHE_BYPASS), "w")))));
    assert_int_equal(cc_pass_cache_policy(&B.p), -1);
    assert_non_null(strstr(B.diags.items[0].message, "reads 'w', which this kernel also writes (InOut)"));
    irb_free();
}

static void test_cache_k08_default_load_of_written_tensor_accepted(void **state)
{
    (void)state;
    begin();
    kern->params[2].dir = CC_DIR_INOUT;
    cc_ir_expr *o = load(FRESH(), "out", CC_CACHE_DEFAULT);
    kern->body = BLOCK(store_out(o));
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
    cc_ir_stmt *later = store_out(tile_op(CC_IR_ADD, load(SP(120, 1), "w", CC_CACHE_UNSET),
                                          load(SP(121, 1), "w", CC_CACHE_UNSET)));
    cc_ir_stmt *first = ASSIGN(FRESH(), "t", load(SP(100, 1), "w", CC_CACHE_UNSET));
    kern->body = BLOCK(first, later);
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
    kern->body = BLOCK(store_out(tile_op(CC_IR_ADD, load(SP(30, 1), "w", CC_CACHE_UNSET),
                                       load(SP(20, 1), "a", CC_CACHE_BYPASS))));
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
    kern->body = BLOCK(store_out(tile_op(CC_IR_ADD, load(FRESH(), "w", CC_CACHE_UNSET), load(FRESH(), "a", CC_CACHE_DEFAULT))));
    run_ok();
    assert_int_equal(B.diags.n, 0);
    irb_free();
}

static void test_cache_k10_warnings_per_kernel(void **state)
{
    (void)state;
    begin();
    cc_ir_func *k2 = FUNC("k2", CC_FUNC_INCORE, PARAMS(P("w", T_T, CC_DIR_IN), P("out", T_T, CC_DIR_OUT)), NO_RESULTS);
    k2->body = BLOCK(store_out(load(SP(50, 1), "w", CC_CACHE_BYPASS)));
    kern->body = BLOCK(store_out(load(SP(40, 1), "w", CC_CACHE_BYPASS)));
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
    cc_ir_expr *act = load(FRESH(), "a", CC_CACHE_UNSET), *wts = load(FRESH(), "w", CC_CACHE_UNSET);
    act->u.op.implicit = wts->u.op.implicit = 1;
    cc_ir_expr *mm = tile_op(CC_IR_MATMUL, act, wts);
    kern->body = BLOCK(ASSIGN(FRESH(), "acc", mm), store_out(V("acc", T_T)));
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
    cc_ir_func *f = FUNC("main", CC_FUNC_ORCHESTRATION, NO_PARAMS, NO_RESULTS);
    cc_ir_expr *stray = load(FRESH(), "w", CC_CACHE_UNSET);
    f->body = BLOCK(ASSIGN(FRESH(), "t", stray));
    run_ok();
    assert_int_equal(stray->u.op.cache, CC_CACHE_UNSET);
    irb_free();
}

static void test_cache_k01_resolved_loads_print_their_policy(void **state)
{
    (void)state;
    begin();
    declare("w", CC_CACHE_BYPASS);
    kern->body = BLOCK(store_out(tile_op(CC_IR_ADD, load(FRESH(), "w", CC_CACHE_UNSET), load(FRESH(), "a", CC_CACHE_UNSET))));
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
