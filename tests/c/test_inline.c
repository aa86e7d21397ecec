/*
 * test_inline.c - stage 1, InlineFunctions (src/compiler/pass_inline.c), on
 * hand-built IR: parameter binding (substitution, `p = arg`), tensors by
 * reference, return values, renaming on a clash, inline calls inside
 * inline functions, scope provenance, the removal of Inline functions,
 * and the plane errors of spliced code (docs/dsl.md, "Decorators and function kinds"); then the same
 * through real DSL text.
 */
#include <stdlib.h>

#include "compiler/passes.h"
#include "harness.h"
#include "dsl_compile.h"
#include "ir_build.h"

static const cc_type T_T = {.kind = CC_T_TENSOR, .dtype = CC_DT_FP32, .rank = 2, .shape = {64, 128}};
static const cc_type T_TL = {.kind = CC_T_TILE, .dtype = CC_DT_FP32, .rank = 2, .shape = {64, 128}};

static void assert_error(cc_diag_class cls, const char *msg, uint32_t line)
{
    assert_int_equal(cc_pass_inline(&B.p), -1);
    assert_int_equal(B.diags.n, 1);
    assert_string_equal(cc_diag_class_name(B.diags.items[0].cls), cc_diag_class_name(cls));
    assert_string_equal(B.diags.items[0].message, msg);
    assert_int_equal(B.diags.items[0].span.line, line);
}

/* g(n, x): y = n * 2 + x; return y */
static cc_ir_func *scalar_g(void)
{
    cc_ir_func *g = FUNC("g", CC_FUNC_INLINE, PARAMS(P("n", T_IDX, 0), P("x", T_IDX, 0)), RESULTS(T_IDX));
    g->body = BLOCK(ASSIGN(SP(2, 5), "y", BIN(CC_OP_ADD, BIN(CC_OP_MUL, V("n", T_IDX), I(2)), V("x", T_IDX))),
                    RET(SP(3, 5), V("y", T_IDX)));
    return g;
}

static void test_inline_substitutes_variable_and_constant_args(void **state)
{
    (void)state;
    irb_init();
    cc_ir_func *f = FUNC("f", CC_FUNC_ORCHESTRATION, PARAMS(P("a", T_IDX, 0)), NO_RESULTS);
    cc_ir_func *g = scalar_g();
    f->body = BLOCK(ASSIGN(SP(5, 5), "r", CALL(g, SP(5, 9), V("a", T_IDX), I(4))),
                    ASSIGN(SP(6, 5), "s", CALL(g, SP(6, 9), I(3), I(4))));
    assert_int_equal(cc_pass_inline(&B.p), 0);
    irb_expect_dump(f, "y = a * 2 + 4\n"
                   "r = y\n"
                   "y_g = 10\n"
                   "s = y_g\n");
    irb_free();
}

static void test_inline_binds_reassigned_param_by_assignment(void **state)
{
    (void)state;
    irb_init();
    cc_ir_func *f = FUNC("f", CC_FUNC_ORCHESTRATION, PARAMS(P("a", T_IDX, 0)), NO_RESULTS);
    cc_ir_func *g = FUNC("g", CC_FUNC_INLINE, PARAMS(P("n", T_IDX, 0)), RESULTS(T_IDX));
    g->body = BLOCK(ASSIGN(SP(2, 5), "n", BIN(CC_OP_ADD, V("n", T_IDX), I(1))), RET(SP(3, 5), V("n", T_IDX)));
    f->body = BLOCK(ASSIGN(SP(5, 5), "n", CALL(g, SP(5, 9), V("a", T_IDX))),
                    ASSIGN(SP(6, 5), "r", CALL(g, SP(6, 9), BIN(CC_OP_MUL, V("a", T_IDX), I(2)))));
    assert_int_equal(cc_pass_inline(&B.p), 0);
    irb_expect_dump(f, "n_g = a\n"
                   "n_g = n_g + 1\n"
                   "n = n_g\n"
                   "n_g_2 = a * 2\n"
                   "n_g_2 = n_g_2 + 1\n"
                   "r = n_g_2\n");
    irb_free();
}

static void test_inline_tensor_param_by_reference(void **state)
{
    (void)state;
    irb_init();
    cc_ir_func *k = FUNC("k", CC_FUNC_INCORE, PARAMS(P("a", T_T, CC_DIR_IN), P("out", T_T, CC_DIR_OUT)), RESULTS(T_T));
    cc_ir_func *g = FUNC("g", CC_FUNC_INLINE, PARAMS(P("t", T_T, 0), P("o", T_T, 0)), RESULTS(T_T));
    g->body = BLOCK(ASSIGN(SP(2, 5), "x", OP(CC_IR_LOAD, T_TL, SP(2, 9), V("t", T_T), LIST(I(0), I(0)), LIST(I(64), I(128)))),
                    ASSIGN(SP(3, 5), "r", OP(CC_IR_STORE, T_T, SP(3, 9), V("x", T_TL), LIST(I(0), I(0)), V("o", T_T))),
                    RET(SP(4, 5), V("r", T_T)));
    k->body = BLOCK(ASSIGN(SP(6, 5), "out", CALL(g, SP(6, 11), V("a", T_T), V("out", T_T))), RET(SP(7, 5), V("out", T_T)));
    assert_int_equal(cc_pass_inline(&B.p), 0);
    irb_expect_dump(k, "x = pl.load(a, [0, 0], [64, 128])\n"
                   "r = pl.store(x, [0, 0], out)\n"
                   "out = r\n"
                   "return out\n");
    irb_free();
}

/* g(x, y): return y, x -- a swap, so the caller's targets need temporaries */
static void test_inline_return_binds_several_targets(void **state)
{
    (void)state;
    irb_init();
    cc_ir_func *f = FUNC("f", CC_FUNC_ORCHESTRATION, PARAMS(P("a", T_IDX, 0), P("c", T_IDX, 0)), NO_RESULTS);
    cc_ir_func *g = FUNC("g", CC_FUNC_INLINE, PARAMS(P("x", T_IDX, 0), P("y", T_IDX, 0)), RESULTS(T_IDX, T_IDX));
    g->body = BLOCK(RET(SP(2, 5), V("y", T_IDX), V("x", T_IDX)));
    f->body = BLOCK(ASSIGN2(SP(5, 5), "p", "q", CALL(g, SP(5, 12), V("a", T_IDX), V("c", T_IDX))),
                    ASSIGN2(SP(6, 5), "a", "c", CALL(g, SP(6, 12), V("a", T_IDX), V("c", T_IDX))));
    assert_int_equal(cc_pass_inline(&B.p), 0);
    irb_expect_dump(f, "p = c\n"
                   "q = a\n"
                   "a_g = c\n"
                   "c_g = a\n"
                   "a = a_g\n"
                   "c = c_g\n");
    irb_free();
}

static void test_inline_renames_locals_that_clash(void **state)
{
    (void)state;
    irb_init();
    cc_ir_func *f = FUNC("f", CC_FUNC_ORCHESTRATION, PARAMS(P("y", T_IDX, 0)), NO_RESULTS);
    cc_ir_func *g = FUNC("g", CC_FUNC_INLINE, PARAMS(P("n", T_IDX, 0)), RESULTS(T_IDX));
    /* the callee has a local y_g of its own: the renamed y must avoid it */
    g->body = BLOCK(ASSIGN(SP(2, 5), "y_g", I(1)),
                    FOR(SP(3, 5), "y", I(0), V("n", T_IDX), I(1), BLOCK(ASSIGN(SP(4, 9), "y_g", V("y", T_IDX)))),
                    RET(SP(5, 5), V("y_g", T_IDX)));
    f->body = BLOCK(ASSIGN(SP(7, 5), "z", CALL(g, SP(7, 9), V("y", T_IDX))));
    assert_int_equal(cc_pass_inline(&B.p), 0);
    irb_expect_dump(f, "y_g = 1\n"
                   "for y_g_2 in 0..y step 1:\n"
                   "  y_g = y_g_2\n"
                   "z = y_g\n");
    irb_free();
}

static void test_inline_expression_statement_keeps_effects_only(void **state)
{
    (void)state;
    irb_init();
    cc_ir_func *k = FUNC("k", CC_FUNC_INCORE, PARAMS(P("out", T_T, CC_DIR_OUT)), NO_RESULTS);
    cc_ir_func *g = FUNC("g", CC_FUNC_INLINE, PARAMS(P("o", T_T, 0)), RESULTS(T_T, T_IDX));
    g->body = BLOCK(ASSIGN(SP(2, 5), "x", OP(CC_IR_LOAD, T_TL, SP(2, 9), V("o", T_T), LIST(I(0), I(0)), LIST(I(64), I(128)))),
                    RET(SP(3, 5), OP(CC_IR_STORE, T_T, SP(3, 12), V("x", T_TL), LIST(I(0), I(0)), V("o", T_T)), I(1)));
    k->body = BLOCK(EXPR(SP(5, 5), CALL(g, SP(5, 5), V("out", T_T))));
    assert_int_equal(cc_pass_inline(&B.p), 0);
    irb_expect_dump(k, "x = pl.load(out, [0, 0], [64, 128])\n"
                   "pl.store(x, [0, 0], out)\n");
    irb_free();
}

static void test_inline_inside_inline(void **state)
{
    (void)state;
    irb_init();
    cc_ir_func *f = FUNC("f", CC_FUNC_ORCHESTRATION, PARAMS(P("a", T_IDX, 0)), NO_RESULTS);
    cc_ir_func *h = FUNC("h", CC_FUNC_INLINE, PARAMS(P("m", T_IDX, 0)), RESULTS(T_IDX));
    h->body = BLOCK(ASSIGN(SP(2, 5), "t", BIN(CC_OP_SUB, V("m", T_IDX), I(1))), RET(SP(3, 5), V("t", T_IDX)));
    cc_ir_func *g = FUNC("g", CC_FUNC_INLINE, PARAMS(P("n", T_IDX, 0)), RESULTS(T_IDX));
    g->body = BLOCK(ASSIGN(SP(5, 5), "t", CALL(h, SP(5, 9), V("n", T_IDX))),
                    ASSIGN(SP(6, 5), "u", CALL(h, SP(6, 9), V("t", T_IDX))), RET(SP(7, 5), V("u", T_IDX)));
    f->body = BLOCK(FOR(SP(9, 5), "i", I(0), I(4), I(1), BLOCK(ASSIGN(SP(10, 9), "a", CALL(g, SP(10, 13), V("a", T_IDX))))));
    assert_int_equal(cc_pass_inline(&B.p), 0);
    irb_expect_dump(f, "for i in 0..4 step 1:\n"
                   "  t_h = a - 1\n"
                   "  t = t_h\n"
                   "  t_h_2 = t - 1\n"
                   "  u = t_h_2\n"
                   "  a = u\n");
    irb_free();
}

static void test_inline_scopes_record_where_they_came_from(void **state)
{
    (void)state;
    irb_init();
    cc_ir_func *f = FUNC("f", CC_FUNC_ORCHESTRATION, PARAMS(P("a", T_IDX, 0)), NO_RESULTS);
    cc_ir_func *h = FUNC("h", CC_FUNC_INLINE, PARAMS(P("m", T_IDX, 0)), NO_RESULTS);
    h->body = BLOCK(SCOPE(SP(2, 5), CC_SCOPE_AUTO, BLOCK(ASSIGN(SP(3, 9), "v", V("m", T_IDX)))));
    cc_ir_func *g = FUNC("g", CC_FUNC_INLINE, PARAMS(P("n", T_IDX, 0)), RESULTS(T_IDX));
    g->body = BLOCK(SCOPE(SP(5, 5), CC_SCOPE_MANUAL, BLOCK(EXPR(SP(6, 9), CALL(h, SP(6, 9), V("n", T_IDX))),
                                                          RET(SP(7, 9), V("n", T_IDX)))));
    f->body = BLOCK(ASSIGN(SP(9, 5), "r", CALL(g, SP(9, 9), V("a", T_IDX))));
    assert_int_equal(cc_pass_inline(&B.p), 0);
    /* the return inside the trailing scope becomes the assignment there */
    irb_expect_dump(f, "scope MANUAL from g @9:9:\n"
                   "  scope AUTO from h @6:9:\n"
                   "    v = a\n"
                   "  r = a\n");
    irb_free();
}

static void test_inline_removes_inline_functions(void **state)
{
    (void)state;
    irb_init();
    cc_ir_func *f = FUNC("f", CC_FUNC_ORCHESTRATION, PARAMS(P("a", T_IDX, 0)), NO_RESULTS);
    cc_ir_func *g = scalar_g();
    FUNC("k", CC_FUNC_INCORE, PARAMS(P("out", T_T, CC_DIR_OUT)), NO_RESULTS);
    f->body = BLOCK(ASSIGN(SP(5, 5), "r", CALL(g, SP(5, 9), V("a", T_IDX), I(4))));
    assert_int_equal(cc_pass_inline(&B.p), 0);
    assert_int_equal(B.p.nfuncs, 2);
    assert_string_equal(B.p.funcs[0]->name, "f");
    assert_string_equal(B.p.funcs[1]->name, "k");
    irb_free();
}

/* r = 1 + g(a, 4): the call is hoisted into a fresh variable first. */
static void test_inline_call_inside_expression_is_hoisted(void **state)
{
    (void)state;
    irb_init();
    cc_ir_func *f = FUNC("f", CC_FUNC_ORCHESTRATION, PARAMS(P("a", T_IDX, 0)), NO_RESULTS);
    cc_ir_func *g = scalar_g();
    f->body = BLOCK(ASSIGN(SP(5, 5), "r", BIN(CC_OP_ADD, I(1), CALL(g, SP(5, 13), V("a", T_IDX), I(4)))));
    assert_int_equal(cc_pass_inline(&B.p), 0);
    irb_expect_dump(f, "y = a * 2 + 4\n"
                   "g_value = y\n"
                   "r = 1 + g_value\n");
    irb_free();
}

/* while g(a) > 0: a call in a condition evaluated at every iteration */
static void test_inline_call_in_while_condition_is_unsupported(void **state)
{
    (void)state;
    irb_init();
    cc_ir_func *f = FUNC("f", CC_FUNC_ORCHESTRATION, PARAMS(P("a", T_IDX, 0)), NO_RESULTS);
    cc_ir_func *g = scalar_g();
    cc_ir_stmt *w = cc_ir_stmt_new(B.p.arena, CC_I_WHILE, SP(5, 5));
    w->u.while_.cond = BIN(CC_OP_GT, CALL(g, SP(5, 11), V("a", T_IDX), I(4)), I(0));
    f->body = BLOCK(w);
    assert_error(CC_DIAG_UNSUPPORTED, "an inline call in a while condition is not supported in this version; assign its result first", 5);
    irb_free();
}

/* g(t): x = pl.load(t, ...); return x -- a tile op */
static cc_ir_func *tile_g(void)
{
    cc_ir_func *g = FUNC("g", CC_FUNC_INLINE, PARAMS(P("t", T_T, 0)), RESULTS(T_TL));
    g->body = BLOCK(ASSIGN(SP(2, 5), "x", OP(CC_IR_LOAD, T_TL, SP(2, 9), V("t", T_T), LIST(I(0), I(0)), LIST(I(64), I(128)))),
                    RET(SP(3, 5), V("x", T_TL)));
    return g;
}

static void test_inline_tile_op_in_orchestration_is_misplaced(void **state)
{
    (void)state;
    irb_init();
    cc_ir_func *f = FUNC("main", CC_FUNC_ORCHESTRATION, PARAMS(P("a", T_T, CC_DIR_IN)), NO_RESULTS);
    cc_ir_func *g = tile_g();
    f->body = BLOCK(ASSIGN(SP(5, 5), "y", CALL(g, SP(5, 9), V("a", T_T))));
    assert_error(CC_DIAG_INVALID_OP,
                 "Misplaced tile op 'pl.load' in Orchestration function 'main' (should be inside InCore block)", 2);
    assert_non_null(B.diags.items[0].hint);
    irb_free();
}

static void test_inline_tile_op_inside_core_group_body_is_fine(void **state)
{
    (void)state;
    irb_init();
    cc_ir_func *f = FUNC("main", CC_FUNC_ORCHESTRATION, PARAMS(P("a", T_T, CC_DIR_IN)), NO_RESULTS);
    cc_ir_func *g = tile_g();
    f->body = BLOCK(AT(SP(4, 5), CC_LEVEL_CORE_GROUP, BLOCK(ASSIGN(SP(5, 9), "y", CALL(g, SP(5, 13), V("a", T_T))))));
    assert_int_equal(cc_pass_inline(&B.p), 0);
    irb_expect_dump(f, "at CORE_GROUP:\n"
                   "  x = pl.load(a, [0, 0], [64, 128])\n"
                   "  y = x\n");
    irb_free();
}

/* g(): t = pl.create_tensor([64, 128]); return t */
static cc_ir_func *create_g(void)
{
    cc_ir_func *g = FUNC("g", CC_FUNC_INLINE, NO_PARAMS, RESULTS(T_T));
    g->body = BLOCK(ASSIGN(SP(2, 5), "t", OP(CC_IR_CREATE_TENSOR, T_T, SP(2, 9), LIST(I(64), I(128)))), RET(SP(3, 5), V("t", T_T)));
    return g;
}

static void test_inline_create_tensor_in_incore_function_is_unsupported(void **state)
{
    (void)state;
    irb_init();
    cc_ir_func *k = FUNC("k", CC_FUNC_INCORE, NO_PARAMS, NO_RESULTS);
    k->body = BLOCK(ASSIGN(SP(5, 5), "y", CALL0(create_g(), SP(5, 9))));
    assert_error(CC_DIAG_UNSUPPORTED, "pl.create_tensor in an Inline function called from kernel code is not supported in this version", 2);
    irb_free();
}

static void test_inline_create_tensor_in_core_group_body_is_unsupported(void **state)
{
    (void)state;
    irb_init();
    cc_ir_func *f = FUNC("main", CC_FUNC_ORCHESTRATION, NO_PARAMS, NO_RESULTS);
    f->body = BLOCK(AT(SP(4, 5), CC_LEVEL_CORE_GROUP, BLOCK(ASSIGN(SP(5, 9), "y", CALL0(create_g(), SP(5, 13))))));
    assert_error(CC_DIAG_UNSUPPORTED, "pl.create_tensor in an Inline function called from kernel code is not supported in this version", 2);
    irb_free();
}

static void test_inline_kernel_call_in_kernel_code_is_control_plane(void **state)
{
    (void)state;
    irb_init();
    cc_ir_func *k2 = FUNC("k2", CC_FUNC_INCORE, NO_PARAMS, NO_RESULTS);
    cc_ir_func *g = FUNC("g", CC_FUNC_INLINE, NO_PARAMS, NO_RESULTS);
    g->body = BLOCK(EXPR(SP(2, 5), CALL0(k2, SP(2, 5))));
    cc_ir_func *k = FUNC("k", CC_FUNC_INCORE, NO_PARAMS, NO_RESULTS);
    k->body = BLOCK(EXPR(SP(5, 5), CALL0(g, SP(5, 5))));
    assert_error(CC_DIAG_INVALID_OP,
                 "calling 'k2' is control-plane work and is not allowed in kernel code (in InCore function 'k')", 2);
    irb_free();
}

static void test_inline_pl_at_in_kernel_code_is_control_plane(void **state)
{
    (void)state;
    irb_init();
    cc_ir_func *g = FUNC("g", CC_FUNC_INLINE, NO_PARAMS, NO_RESULTS);
    g->body = BLOCK(AT(SP(2, 5), CC_LEVEL_CHIP, BLOCK(ASSIGN(SP(3, 9), "v", I(1)))));
    cc_ir_func *k = FUNC("k", CC_FUNC_INCORE, NO_PARAMS, NO_RESULTS);
    k->body = BLOCK(EXPR(SP(5, 5), CALL0(g, SP(5, 5))));
    assert_error(CC_DIAG_INVALID_OP,
                 "pl.at is control-plane work and is not allowed in kernel code (in InCore function 'k')", 2);
    irb_free();
}

static void test_inline_runtime_scope_in_kernel_code_is_s5(void **state)
{
    (void)state;
    irb_init();
    cc_ir_func *g = FUNC("g", CC_FUNC_INLINE, NO_PARAMS, NO_RESULTS);
    g->body = BLOCK(SCOPE(SP(2, 5), CC_SCOPE_AUTO, BLOCK(ASSIGN(SP(3, 9), "v", I(1)))));
    cc_ir_func *f = FUNC("main", CC_FUNC_ORCHESTRATION, NO_PARAMS, NO_RESULTS);
    f->body = BLOCK(AT(SP(4, 5), CC_LEVEL_CORE_GROUP, BLOCK(EXPR(SP(5, 9), CALL0(g, SP(5, 9))))));
    assert_error(CC_DIAG_SYNTAX,
                 "a runtime scope is not allowed in kernel code (inside a pl.at(level=pl.Level.CORE_GROUP) body); "
                 "move it to the orchestration function", 2);
    irb_free();
}

/* ---- through real DSL text ---- */

static const char dsl_twice[] =
    "import pypto.language as pl\n"
    "\n"
    "@pl.jit.inline\n"
    "def twice(x, s):\n"
    "    y = pl.mul(x, s)\n"
    "    return y\n"
    "\n"
    "@pl.jit(auto_scope=False)\n"
    "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
    "    with pl.scope():\n"
    "        for i in pl.range(4):\n"
    "            with pl.at(level=pl.Level.CORE_GROUP):\n"
    "                t = pl.load(a, [i * 64, 0], [64, 128])\n"
    "                y = twice(t, 2.0)\n"
    "                u = twice(y, 3.0)\n"
    "                pl.store(u, [i * 64, 0], out)\n"
    "    return out\n";

static void test_inline_dsl_splices_into_a_core_group_body(void **state)
{
    (void)state;
    pto_program *p = dsl_compile(dsl_twice, "f", PTO_STAGE_INLINE);
    dsl_expect_ok(p);
    const char *text = pto_program_text(p);
    if (!strstr(text, "                    t = pl.load(a, [i * 64, 0], [64, 128])\n"
                      "                    y_twice = pl.mul(t, 2.0)\n"
                      "                    y = y_twice\n"
                      "                    y_twice_2 = pl.mul(y, 3.0)\n"
                      "                    u = y_twice_2\n"
                      "                    pl.store(u, [i * 64, 0], out)\n"))
        fail_msg("%s", text);
    assert_null(strstr(text, "def twice"));
    pto_program_free(p);
    /* and the whole pipeline accepts it */
    p = dsl_compile(dsl_twice, "f", PTO_STAGE_ALL);
    dsl_expect_ok(p);
    assert_non_null(strstr(pto_program_listing(p), "TMUL v1 = v0, r"));
    pto_program_free(p);
}

static void test_inline_dsl_tile_op_in_orchestration_is_misplaced(void **state)
{
    (void)state;
    static const char src[] = "import pypto.language as pl\n"
                              "\n"
                              "@pl.jit.inline\n"
                              "def ld(x):\n"
                              "    t = pl.load(x, [0, 0], [64, 128])\n"
                              "    return t\n"
                              "\n"
                              "@pl.jit\n"
                              "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                              "    t = ld(a)\n"
                              "    return out\n";
    DSL_ERROR(src, "f", "InvalidOperationError",
              "Misplaced tile op 'pl.load' in Orchestration function 'f' (should be inside InCore block)", 5, 9);
}

static void test_inline_dsl_create_tensor_in_kernel_is_unsupported(void **state)
{
    (void)state;
    static const char src[] = "import pypto.language as pl\n"
                              "\n"
                              "@pl.jit.inline\n"
                              "def scratch():\n"
                              "    s = pl.create_tensor([64, 128], dtype=pl.FP32)\n"
                              "    return s\n"
                              "\n"
                              "@pl.jit\n"
                              "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                              "    with pl.at(level=pl.Level.CORE_GROUP):\n"
                              "        s = scratch()\n"
                              "    return out\n";
    DSL_ERROR(src, "f", "UnsupportedFeatureError", "pl.create_tensor in an Inline function called from kernel code is not supported in this version",
              5, 9);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_inline_substitutes_variable_and_constant_args),
    cmocka_unit_test(test_inline_binds_reassigned_param_by_assignment),
    cmocka_unit_test(test_inline_tensor_param_by_reference),
    cmocka_unit_test(test_inline_return_binds_several_targets),
    cmocka_unit_test(test_inline_renames_locals_that_clash),
    cmocka_unit_test(test_inline_expression_statement_keeps_effects_only),
    cmocka_unit_test(test_inline_inside_inline),
    cmocka_unit_test(test_inline_scopes_record_where_they_came_from),
    cmocka_unit_test(test_inline_removes_inline_functions),
    cmocka_unit_test(test_inline_call_inside_expression_is_hoisted),
    cmocka_unit_test(test_inline_call_in_while_condition_is_unsupported),
    cmocka_unit_test(test_inline_tile_op_in_orchestration_is_misplaced),
    cmocka_unit_test(test_inline_tile_op_inside_core_group_body_is_fine),
    cmocka_unit_test(test_inline_create_tensor_in_incore_function_is_unsupported),
    cmocka_unit_test(test_inline_create_tensor_in_core_group_body_is_unsupported),
    cmocka_unit_test(test_inline_kernel_call_in_kernel_code_is_control_plane),
    cmocka_unit_test(test_inline_pl_at_in_kernel_code_is_control_plane),
    cmocka_unit_test(test_inline_runtime_scope_in_kernel_code_is_s5),
    cmocka_unit_test(test_inline_dsl_splices_into_a_core_group_body),
    cmocka_unit_test(test_inline_dsl_tile_op_in_orchestration_is_misplaced),
    cmocka_unit_test(test_inline_dsl_create_tensor_in_kernel_is_unsupported),
};

PTO_TEST_MAIN(tests)
