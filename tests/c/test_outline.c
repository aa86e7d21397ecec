/*
 * test_outline.c - OutlineIncoreScopes (src/compiler/pass_outline_incore.c,
 * docs/compiler.md, "Outlining") on hand-built IR: kernel names and
 * placement, parameters (captured tensors then scalars, order of first use,
 * usage directions), the call or submit left behind, the value-crossing
 * errors, cache declarations, and Opaque promotion.
 */
#include <stdlib.h>
#include <string.h>

#include "compiler/passes.h"
#include "harness.h"
#include "dsl_compile.h"
#include "ir_build.h"

static cc_type T256(void) { return T_TENSOR(256, 128); }
static cc_type TILE(void) { return T_TILE(64, 128); }

/* pl.load(a, [0, 0], [64, 128]) at line. */
static cc_ir_expr *load_a(uint32_t line) { return LOAD(SP(line, 1), V("a", T256()), I(0), I(0), 64, 128); }

/* t = pl.load(src, [0, 0], [64, 128]) at line; pl.store(t, [0, 0], dst) on the next. */
static cc_ir_block copy_body(uint32_t line, const char *src, const char *dst)
{
    return BLOCK(ASSIGN(SP(line, 1), "t", LOAD(SP(line, 1), V(src, T256()), I(0), I(0), 64, 128)),
                 EXPR(SP(line + 1, 1), STORE(SP(line + 1, 1), V("t", TILE()), I(0), I(0), V(dst, T256()))));
}

static void assert_param(const cc_ir_func *k, uint32_t i, const char *name, cc_type_kind kind, cc_dir dir)
{
    assert_true(i < k->nparams);
    assert_string_equal(k->params[i].name, name);
    assert_int_equal(k->params[i].type.kind, kind);
    if (kind == CC_T_TENSOR) assert_int_equal(k->params[i].dir, dir);
    assert_int_equal(k->params[i].declared, 0);
}

static void test_outline_seed_manual_placement(void **state)
{
    (void)state;
    irb_init();
    cc_ir_func *f = seed_manual_placement();
    assert_int_equal(cc_pass_outline_incore(&B.p), 0);
    assert_int_equal(B.p.nfuncs, 3);
    assert_ptr_equal(B.p.funcs[0], f);
    cc_ir_func *k0 = B.p.funcs[1], *k1 = B.p.funcs[2];
    assert_string_equal(k0->name, "manual_placement_incore_0");
    assert_string_equal(k1->name, "manual_placement_incore_1");
    assert_int_equal(k0->kind, CC_FUNC_INCORE);
    assert_int_equal(k0->level, CC_LEVEL_CORE_GROUP);
    assert_int_equal(k0->outlined, 1);
    assert_int_equal(k0->span.line, 4);
    assert_int_equal(k0->nparams, 3);
    assert_param(k0, 0, "a", CC_T_TENSOR, CC_DIR_IN);
    assert_param(k0, 1, "out", CC_T_TENSOR, CC_DIR_OUT);
    assert_param(k0, 2, "i", CC_T_SCALAR, 0);
    assert_int_equal(k1->nparams, 1);
    assert_param(k1, 0, "out", CC_T_TENSOR, CC_DIR_INOUT);
    assert_int_equal(k1->span.line, 8);

    cc_ir_stmt *s0 = STMT(f, 0, 0, 0), *s1 = STMT(f, 0, 1, 0);
    assert_int_equal(s0->kind, CC_I_EXPR);
    assert_int_equal(s0->span.line, 4);
    const cc_ir_expr *c0 = s0->u.expr;
    assert_int_equal(c0->kind, CC_X_CALL);
    assert_ptr_equal(c0->u.call.callee, k0);
    assert_int_equal(c0->u.call.submit, 0);
    assert_int_equal(c0->u.call.nargs, 3);
    assert_string_equal(c0->u.call.args[0]->u.name, "a");
    assert_string_equal(c0->u.call.args[1]->u.name, "out");
    assert_string_equal(c0->u.call.args[2]->u.name, "i");
    assert_int_equal(c0->u.call.args[2]->type.dtype, CC_DT_INDEX);
    assert_int_equal(c0->span.line, 4);
    assert_int_equal(s1->kind, CC_I_EXPR);
    assert_ptr_equal(s1->u.expr->u.call.callee, k1);
    assert_int_equal(k1->body.n, 1);
    assert_int_equal(k1->body.items[0]->kind, CC_I_FOR);
    irb_free();
}

static void test_outline_params_tensors_then_scalars_in_first_use(void **state)
{
    (void)state;
    irb_init();
    /* with at: x = s + 1; t = load(w, [x, r]); store(t, [0, 0], y); u = load(v) */
    FUNC("g", CC_FUNC_ORCHESTRATION, NO_PARAMS, NO_RESULTS)->body = BLOCK(AT(SP(2, 1), CC_LEVEL_CORE_GROUP, BLOCK(
        ASSIGN(SP(3, 1), "x", BIN(CC_OP_ADD, V("s", T_IDX), I(1))),
        ASSIGN(SP(4, 1), "t", LOAD(SP(4, 1), V("w", T256()), V("x", T_IDX), V("r", T_IDX), 64, 128)),
        EXPR(SP(5, 1), STORE(SP(5, 1), V("t", TILE()), I(0), I(0), V("y", T256()))),
        ASSIGN(SP(6, 1), "u", IMPLICIT(LOAD(SP(6, 1), V("v", T256()), I(0), I(0), 256, 128))))));
    assert_int_equal(cc_pass_outline_incore(&B.p), 0);
    cc_ir_func *k = B.p.funcs[1];
    assert_int_equal(k->nparams, 5);
    assert_param(k, 0, "w", CC_T_TENSOR, CC_DIR_IN);
    assert_param(k, 1, "y", CC_T_TENSOR, CC_DIR_OUT);
    assert_param(k, 2, "v", CC_T_TENSOR, CC_DIR_IN);
    assert_param(k, 3, "s", CC_T_SCALAR, 0);
    assert_param(k, 4, "r", CC_T_SCALAR, 0);
    irb_free();
}

static void test_outline_capture_follows_definite_assignment(void **state)
{
    (void)state;
    irb_init();
    /* with at: if c: n = 1 (no else); t = load(a, [n, 0]); for j in range(m): q = j;  load(a, [q, 0]) */
    FUNC("g", CC_FUNC_ORCHESTRATION, NO_PARAMS, NO_RESULTS)->body = BLOCK(AT(SP(2, 1), CC_LEVEL_CORE_GROUP, BLOCK(
        IF(SP(3, 1), V("c", T_BOOL), BLOCK(ASSIGN(SP(4, 1), "n", I(1))), EMPTY_BLOCK),
        ASSIGN(SP(5, 1), "t", LOAD(SP(5, 1), V("a", T256()), V("n", T_IDX), I(0), 64, 128)),
        FOR(SP(6, 1), "j", I(0), V("m", T_IDX), I(1), BLOCK(ASSIGN(SP(7, 1), "q", V("j", T_IDX)))),
        ASSIGN(SP(8, 1), "t", LOAD(SP(8, 1), V("a", T256()), V("q", T_IDX), I(0), 64, 128)))));
    assert_int_equal(cc_pass_outline_incore(&B.p), 0);
    cc_ir_func *k = B.p.funcs[1];
    assert_int_equal(k->nparams, 5);
    assert_param(k, 0, "a", CC_T_TENSOR, CC_DIR_IN);
    assert_param(k, 1, "c", CC_T_SCALAR, 0);
    assert_param(k, 2, "n", CC_T_SCALAR, 0);
    assert_param(k, 3, "m", CC_T_SCALAR, 0);
    assert_param(k, 4, "q", CC_T_SCALAR, 0);
    irb_free();
}

static void test_outlined_name_hint_wins(void **state)
{
    (void)state;
    irb_init();
    cc_ir_stmt *at0 = AT(SP(2, 1), CC_LEVEL_CORE_GROUP, copy_body(3, "a", "o"));
    cc_ir_stmt *at1 = AT(SP(5, 1), CC_LEVEL_CORE_GROUP, copy_body(6, "a", "o"));
    at0->u.at.name_hint = "phase";
    FUNC("g", CC_FUNC_ORCHESTRATION, NO_PARAMS, NO_RESULTS)->body = BLOCK(at0, at1);
    assert_int_equal(cc_pass_outline_incore(&B.p), 0);
    assert_int_equal(B.p.nfuncs, 3);
    assert_string_equal(B.p.funcs[1]->name, "phase");
    assert_string_equal(B.p.funcs[2]->name, "g_incore_1");
    irb_free();
}

static void test_outlined_name_clash_gets_suffix(void **state)
{
    (void)state;
    irb_init();
    cc_ir_stmt *at0 = AT(SP(2, 1), CC_LEVEL_CORE_GROUP, copy_body(3, "a", "o"));
    cc_ir_stmt *at1 = AT(SP(5, 1), CC_LEVEL_CORE_GROUP, copy_body(6, "a", "o"));
    at1->u.at.name_hint = "k";
    FUNC("g", CC_FUNC_ORCHESTRATION, NO_PARAMS, NO_RESULTS)->body = BLOCK(at0, at1);
    FUNC("g_incore_0", CC_FUNC_INCORE, NO_PARAMS, NO_RESULTS);
    FUNC("g_incore_0_1", CC_FUNC_INCORE, NO_PARAMS, NO_RESULTS);
    FUNC("k", CC_FUNC_INCORE, NO_PARAMS, NO_RESULTS);
    assert_int_equal(cc_pass_outline_incore(&B.p), 0);
    assert_int_equal(B.p.nfuncs, 6);
    assert_string_equal(B.p.funcs[4]->name, "g_incore_0_2");
    assert_string_equal(B.p.funcs[5]->name, "k_1");
    assert_string_equal(B.p.funcs[1]->name, "g_incore_0");
    irb_free();
}

/* Kernels are appended; the printed order (cc_ir_program_order) puts each
 * after the function that calls it, depth first. */
static void test_outline_kernels_follow_their_function(void **state)
{
    (void)state;
    irb_init();
    cc_ir_func *g = FUNC("g", CC_FUNC_ORCHESTRATION, NO_PARAMS, NO_RESULTS);
    g->body = BLOCK(AT(SP(2, 1), CC_LEVEL_CORE_GROUP, copy_body(3, "a", "o")));
    cc_ir_func *h = FUNC("h", CC_FUNC_OPAQUE, NO_PARAMS, NO_RESULTS);
    h->body = BLOCK(AT(SP(12, 1), CC_LEVEL_CHIP,
                       BLOCK(IF(SP(13, 1), V("c", T_BOOL), BLOCK(AT(SP(14, 1), CC_LEVEL_CORE_GROUP, copy_body(15, "a", "o"))),
                                BLOCK(AT(SP(17, 1), CC_LEVEL_CORE_GROUP, copy_body(18, "a", "o")))))));
    assert_int_equal(cc_pass_outline_incore(&B.p), 0);
    assert_int_equal(B.p.nfuncs, 5);
    assert_string_equal(B.p.funcs[2]->name, "g_incore_0");
    assert_true(cc_ir_program_order(&B.p));
    assert_ptr_equal(B.p.funcs[0], g);
    assert_string_equal(B.p.funcs[1]->name, "g_incore_0");
    assert_ptr_equal(B.p.funcs[2], h);
    assert_string_equal(B.p.funcs[3]->name, "h_incore_0");
    assert_string_equal(B.p.funcs[4]->name, "h_incore_1");
    assert_int_equal(B.p.funcs[4]->span.line, 17);
    assert_int_equal(STMT(h, 0, 0)->kind, CC_I_IF);
    assert_int_equal(h->kind, CC_FUNC_OPAQUE); /* never called: stays */
    irb_free();
}

static void test_outline_deps_and_as_make_a_submit(void **state)
{
    (void)state;
    irb_init();
    cc_ir_stmt *at0 = AT(SP(2, 1), CC_LEVEL_CORE_GROUP, copy_body(3, "a", "o"));
    cc_ir_stmt *at1 = AT(SP(5, 1), CC_LEVEL_CORE_GROUP, copy_body(6, "a", "o"));
    cc_ir_stmt *at2 = AT(SP(8, 1), CC_LEVEL_CORE_GROUP, copy_body(9, "a", "o"));
    at0->u.at.as_name = "t0";
    at1->u.at.has_deps = 1;
    at1->u.at.deps = irb_alloc(sizeof(cc_ir_expr *));
    at1->u.at.deps[0] = V("t0", T_TID);
    at1->u.at.ndeps = 1;
    cc_ir_func *f = FUNC("g", CC_FUNC_ORCHESTRATION, NO_PARAMS, NO_RESULTS);
    f->body = BLOCK(at0, at1, at2);
    assert_int_equal(cc_pass_outline_incore(&B.p), 0);
    cc_ir_stmt *s0 = f->body.items[0], *s1 = f->body.items[1], *s2 = f->body.items[2];
    assert_int_equal(s0->kind, CC_I_ASSIGN);
    assert_string_equal(s0->u.assign.targets[0].name, "t0");
    assert_int_equal(s0->u.assign.targets[0].type.dtype, CC_DT_TASK_ID);
    assert_int_equal(s0->u.assign.value->u.call.submit, 1);
    assert_int_equal(s0->u.assign.value->u.call.ndeps, 0);
    assert_int_equal(s0->span.line, 2);
    assert_int_equal(s1->kind, CC_I_EXPR);
    assert_int_equal(s1->u.expr->u.call.submit, 1);
    assert_int_equal(s1->u.expr->u.call.ndeps, 1);
    assert_string_equal(s1->u.expr->u.call.deps[0]->u.name, "t0");
    assert_int_equal(s2->u.expr->u.call.submit, 0);
    irb_free();
}

static void test_outline_taskid_capture_is_error(void **state)
{
    (void)state;
    irb_init();
    FUNC("g", CC_FUNC_ORCHESTRATION, NO_PARAMS, NO_RESULTS)->body =
        BLOCK(AT(SP(2, 1), CC_LEVEL_CORE_GROUP, BLOCK(ASSIGN(SP(3, 1), "z", V("tid", T_TID)))));
    assert_int_equal(cc_pass_outline_incore(&B.p), -1);
    irb_expect_diag(0, CC_DIAG_TYPE, "a TaskId can only be passed in deps=");
    irb_free();
}

static void test_live_after_at_is_error(void **state)
{
    (void)state;
    irb_init();
    /* with at: n = 3; store(...) ; m = n + 1  (line 6) */
    FUNC("g", CC_FUNC_ORCHESTRATION, NO_PARAMS, NO_RESULTS)->body = BLOCK(
        AT(SP(2, 1), CC_LEVEL_CORE_GROUP, BLOCK(ASSIGN(SP(3, 1), "n", I(3)),
                                                EXPR(SP(4, 1), STORE(SP(4, 1), load_a(4), V("n", T_IDX), I(0), V("o", T256()))))),
        ASSIGN(SP(5, 1), "k", I(0)),
        FOR(SP(6, 1), "j", I(0), I(2), I(1), BLOCK(ASSIGN(SP(7, 1), "m", BIN(CC_OP_ADD, V("n", T_IDX), I(1))))));
    assert_int_equal(cc_pass_outline_incore(&B.p), -1);
    irb_expect_diag(0, CC_DIAG_PASS, "'n' is assigned inside a pl.at(level=pl.Level.CORE_GROUP) body and read after it; "
                                     "a kernel hands back only the tensors it stores to");
    assert_int_equal(B.diags.items[0].span.line, 7);
    irb_free();
}

static void test_live_after_loop_back_edge_is_error(void **state)
{
    (void)state;
    irb_init();
    /* for j: x = s * 2 (line 3); with at: s = j; store(load(a), [s, 0], o) */
    FUNC("g", CC_FUNC_ORCHESTRATION, NO_PARAMS, NO_RESULTS)->body = BLOCK(FOR(SP(2, 1), "j", I(0), I(4), I(1), BLOCK(
        ASSIGN(SP(3, 1), "x", BIN(CC_OP_MUL, V("s", T_IDX), I(2))),
        AT(SP(4, 1), CC_LEVEL_CORE_GROUP, BLOCK(ASSIGN(SP(5, 1), "s", V("j", T_IDX)),
                                                EXPR(SP(6, 1), STORE(SP(6, 1), load_a(6), V("s", T_IDX), I(0), V("o", T256()))))))));
    assert_int_equal(cc_pass_outline_incore(&B.p), -1);
    assert_int_equal(B.diags.items[0].span.line, 3);
    irb_free();
}

static void test_live_after_reassigned_or_self_store_is_fine(void **state)
{
    (void)state;
    irb_init();
    /* with at: n = 3; t = load(a); o = store(t, [n, 0], o); n = 0; m = n; return o */
    FUNC("g", CC_FUNC_ORCHESTRATION, NO_PARAMS, NO_RESULTS)->body = BLOCK(
        AT(SP(2, 1), CC_LEVEL_CORE_GROUP, BLOCK(ASSIGN(SP(3, 1), "n", I(3)), ASSIGN(SP(4, 1), "t", load_a(4)),
                                                ASSIGN(SP(5, 1), "o", STORE(SP(5, 1), V("t", TILE()), V("n", T_IDX), I(0), V("o", T256()))))),
        IF(SP(6, 1), V("c", T_BOOL), BLOCK(ASSIGN(SP(7, 1), "n", I(0))), BLOCK(ASSIGN(SP(8, 1), "n", I(1)))),
        ASSIGN(SP(9, 1), "m", V("n", T_IDX)),
        RET(SP(10, 1), V("o", T256())));
    assert_int_equal(cc_pass_outline_incore(&B.p), 0);
    assert_param(B.p.funcs[1], 1, "o", CC_T_TENSOR, CC_DIR_OUT);
    irb_free();
}

static void test_live_after_read_in_later_at_body_is_error(void **state)
{
    (void)state;
    irb_init();
    FUNC("g", CC_FUNC_ORCHESTRATION, NO_PARAMS, NO_RESULTS)->body = BLOCK(
        AT(SP(2, 1), CC_LEVEL_CORE_GROUP, BLOCK(ASSIGN(SP(3, 1), "n", I(3)))),
        AT(SP(4, 1), CC_LEVEL_CORE_GROUP,
           BLOCK(EXPR(SP(5, 1), STORE(SP(5, 1), load_a(5), V("n", T_IDX), I(0), V("o", T256()))))));
    assert_int_equal(cc_pass_outline_incore(&B.p), -1);
    assert_int_equal(B.diags.items[0].span.line, 5);
    irb_free();
}

static cc_ir_stmt *at_with_decl(const char *tensor, cc_cache_policy pol, cc_ir_block body)
{
    cc_ir_stmt *at = AT(SP(2, 1), CC_LEVEL_CORE_GROUP, body);
    at->u.at.decls = irb_alloc(sizeof *at->u.at.decls);
    at->u.at.decls[0] = (cc_ir_cache_decl){tensor, (uint8_t)pol, SP(3, 1)};
    at->u.at.ndecls = 1;
    return at;
}

static void test_cache_decls_move_to_the_kernel(void **state)
{
    (void)state;
    irb_init();
    FUNC("g", CC_FUNC_ORCHESTRATION, NO_PARAMS, NO_RESULTS)->body = BLOCK(at_with_decl("a", CC_CACHE_BYPASS, copy_body(4, "a", "o")));
    assert_int_equal(cc_pass_outline_incore(&B.p), 0);
    assert_int_equal(B.p.funcs[1]->ndecls, 1);
    assert_string_equal(B.p.funcs[1]->decls[0].tensor, "a");
    irb_free();
}

static void test_cache_decl_not_captured_is_error(void **state)
{
    (void)state;
    irb_init();
    FUNC("g", CC_FUNC_ORCHESTRATION, NO_PARAMS, NO_RESULTS)->body = BLOCK(at_with_decl("w", CC_CACHE_BYPASS, copy_body(4, "a", "o")));
    assert_int_equal(cc_pass_outline_incore(&B.p), -1);
    assert_int_equal(B.diags.items[0].span.line, 3);
    assert_string_equal(irb_message(0), "pl.set_cache_policy(...) references tensor 'w', which is not captured by the scope body");
    irb_free();
}

static void test_cache_bypass_on_written_tensor_is_error(void **state)
{
    (void)state;
    irb_init();
    FUNC("g", CC_FUNC_ORCHESTRATION, NO_PARAMS, NO_RESULTS)->body = BLOCK(at_with_decl("o", CC_CACHE_BYPASS, copy_body(4, "a", "o")));
    assert_int_equal(cc_pass_outline_incore(&B.p), -1);
    assert_string_equal(irb_message(0), "pl.set_cache_policy(o, CachePolicy.BYPASS) is not allowed on a tensor this scope writes (Out). "
                                        "A bypassing read of bytes the same kernel writes is a coherency bug.");
    irb_free();

    irb_init();
    FUNC("g", CC_FUNC_ORCHESTRATION, NO_PARAMS, NO_RESULTS)->body = BLOCK(at_with_decl("o", CC_CACHE_BYPASS, copy_body(4, "o", "o")));
    assert_int_equal(cc_pass_outline_incore(&B.p), -1);
    assert_non_null(strstr(irb_message(0), "this scope writes (InOut)."));
    irb_free();

    irb_init();
    FUNC("g", CC_FUNC_ORCHESTRATION, NO_PARAMS, NO_RESULTS)->body = BLOCK(at_with_decl("o", CC_CACHE_DEFAULT, copy_body(4, "o", "o")));
    assert_int_equal(cc_pass_outline_incore(&B.p), 0);
    irb_free();
}

static void test_opaque_called_is_promoted(void **state)
{
    (void)state;
    irb_init();
    cc_ir_func *f = FUNC("main", CC_FUNC_ORCHESTRATION, NO_PARAMS, NO_RESULTS);
    cc_ir_func *h = FUNC("h", CC_FUNC_OPAQUE, PARAMS(P("a", T256(), CC_DIR_IN), P("o", T256(), CC_DIR_OUT)), NO_RESULTS);
    h->body = BLOCK(AT(SP(12, 1), CC_LEVEL_CORE_GROUP, copy_body(13, "a", "o")));
    cc_ir_expr *call = CALL(h, SP(3, 1), V("a", T256()), V("o", T256()));
    f->body = BLOCK(FOR(SP(2, 1), "i", I(0), I(4), I(1), BLOCK(EXPR(SP(3, 1), call))));
    assert_int_equal(cc_pass_outline_incore(&B.p), 0);
    assert_int_equal(h->kind, CC_FUNC_ORCHESTRATION);
    assert_int_equal(h->auto_scope, 1);
    assert_string_equal(B.p.funcs[2]->name, "h_incore_0");
    irb_free();
}

/* ---- through real DSL text ---- */

static const char dsl_regions[] =
    "import pypto.language as pl\n"
    "\n"
    "@pl.jit.opaque\n"
    "def helper(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
    "    for j in pl.range(2):\n"
    "        with pl.at(level=pl.Level.CORE_GROUP, name_hint=\"hk\") as tid:\n"
    "            t = pl.load(a, [j * 8, 0], [8, 128])\n"
    "            pl.store(t, [j * 8, 0], out)\n"
    "        with pl.at(level=pl.Level.CORE_GROUP, deps=[tid]):\n"
    "            t = pl.load(out, [j * 8, 0], [8, 128])\n"
    "            pl.store(t, [j * 8 + 16, 0], out)\n"
    "\n"
    "@pl.jit\n"
    "def entry(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
    "    helper(a, out)\n"
    "    return out\n"
    "\n"
    "@pl.jit\n"
    "def live(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
    "    n = 0\n"
    "    with pl.at(level=pl.Level.CORE_GROUP):\n"
    "        n = 8\n"
    "        t = pl.load(a, [n, 0], [8, 128])\n"
    "        pl.store(t, [0, 0], out)\n"
    "    m = n + 1\n"
    "    return out\n";

static void test_outline_opaque_regions_through_dsl(void **state)
{
    (void)state;
    pto_program *p = dsl_compile(dsl_regions, "entry", PTO_STAGE_OUTLINE);
    dsl_expect_ok(p);
    const char *text = pto_program_text(p);
    assert_non_null(strstr(text, "@pl.function(type=pl.FunctionType.Orchestration)\n    def helper("));
    assert_non_null(strstr(text, "tid = pl.submit(self.hk, a, out, j)"));
    assert_non_null(strstr(text, "pl.submit(self.helper_incore_1, out, j, deps=[tid])"));
    assert_non_null(strstr(text, "def hk(self, a: "));
    pto_program_free(p);
}

static void test_live_after_at_is_error_through_dsl(void **state)
{
    (void)state;
    pto_program *p = dsl_compile(dsl_regions, "live", PTO_STAGE_OUTLINE);
    dsl_expect_error(p, "PassError", "'n' is assigned inside a pl.at(level=pl.Level.CORE_GROUP) body and read after it", 25, 5);
    pto_program_free(p);
}

/* A pl.at body with no tensor (pass, or scalars only) is a kernel like any
 * other: one of no arguments compiles through every stage (V5 used to call
 * its call's missing footprints an internal error). */
static void test_outline_empty_at_body_is_a_kernel_of_no_arguments(void **state)
{
    (void)state;
    static const char src[] = "import pypto.language as pl\n\n@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                              "    with pl.at(level=pl.Level.CORE_GROUP):\n        pass\n"
                              "    with pl.at(level=pl.Level.CORE_GROUP):\n        x = 2 * 3\n"
                              "    return out\n";
    static const char *const want[] = {"self.f_incore_0()\n", "self.f_incore_1()\n", "def f_incore_0(self):\n        pass\n", NULL};
    pto_program *p = dsl_compile(src, "f", PTO_STAGE_LOWER);
    dsl_expect_text_contains(p, want);
    pto_program_free(p);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_outline_seed_manual_placement),
    cmocka_unit_test(test_outline_params_tensors_then_scalars_in_first_use),
    cmocka_unit_test(test_outline_capture_follows_definite_assignment),
    cmocka_unit_test(test_outlined_name_hint_wins),
    cmocka_unit_test(test_outlined_name_clash_gets_suffix),
    cmocka_unit_test(test_outline_kernels_follow_their_function),
    cmocka_unit_test(test_outline_deps_and_as_make_a_submit),
    cmocka_unit_test(test_outline_taskid_capture_is_error),
    cmocka_unit_test(test_live_after_at_is_error),
    cmocka_unit_test(test_live_after_loop_back_edge_is_error),
    cmocka_unit_test(test_live_after_reassigned_or_self_store_is_fine),
    cmocka_unit_test(test_live_after_read_in_later_at_body_is_error),
    cmocka_unit_test(test_cache_decls_move_to_the_kernel),
    cmocka_unit_test(test_cache_decl_not_captured_is_error),
    cmocka_unit_test(test_cache_bypass_on_written_tensor_is_error),
    cmocka_unit_test(test_opaque_called_is_promoted),
    cmocka_unit_test(test_outline_opaque_regions_through_dsl),
    cmocka_unit_test(test_outline_empty_at_body_is_a_kernel_of_no_arguments),
    cmocka_unit_test(test_live_after_at_is_error_through_dsl),
};

PTO_TEST_MAIN(tests)
