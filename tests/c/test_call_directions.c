/*
 * test_call_directions.c - DeriveCallDirections (src/compiler/
 * pass_call_directions.c, DSL-SPEC §3.2, §7.3 F01-F05) on hand-built IR:
 * usage directions, P2, footprint boxes of InCore parameters (affine loop
 * elimination, substituted locals, unknown dimensions) and the boxes of
 * every call with the call's scalar arguments substituted.
 */
#include <stdlib.h>
#include <string.h>

#include "dsl_examples.h"
#include "harness.h"
#include "ir_handmade.h"

static cc_type T256(void) { return TT(256, 128); }
static cc_type TILE(void) { return TTILE(64, 128); }

static const char *diag0(const irb *b) { return b->diags.n ? b->diags.items[0].message : ""; }

/* The seed example through stages 2 and 3. */
static cc_ir_func *seed_through_directions(void)
{
    cc_ir_func *f = seed_manual_placement();
    assert_int_equal(cc_pass_outline_incore(&B->p), 0);
    assert_int_equal(cc_pass_call_directions(&B->p), 0);
    return f;
}

static void test_f01_phase1_rows_disjoint(void **state)
{
    (void)state;
    irb b;
    irb_init(&b);
    cc_ir_func *f = seed_through_directions();
    const cc_ir_expr *call = STMT(f, 0, 0, 0)->u.expr;
    assert_non_null(call->u.call.boxes);
    assert_string_equal(box_str(&call->u.call.boxes[0]), "In [i*64:i*64+64, 0:128]");
    assert_string_equal(box_str(&call->u.call.boxes[1]), "Out [i*64:i*64+64, 0:128]");
    assert_int_equal(call->u.call.boxes[2].rank, 0);
    /* the kernel's own boxes are over its parameter i */
    assert_string_equal(box_str(&b.p.funcs[1]->params[1].box), "Out [i*64:i*64+64, 0:128]");
    irb_free(&b);
}

static void test_f02_phase2_union_over_inner_loop(void **state)
{
    (void)state;
    irb b;
    irb_init(&b);
    cc_ir_func *f = seed_through_directions();
    const cc_ir_expr *call = STMT(f, 0, 1, 0)->u.expr;
    assert_string_equal(box_str(&call->u.call.boxes[0]), "InOut [0:256, 0:128]");
    irb_free(&b);
}

/* An InCore kernel k(x, y, n) with body, called as k(a, o, arg) from main. */
static cc_ir_expr *kernel_and_call(cc_ir_block body, cc_ir_expr *arg)
{
    cc_ir_func *m = FUNC("main", CC_FUNC_ORCHESTRATION, NOBLK);
    cc_ir_func *k = FUNC("k", CC_FUNC_INCORE, body);
    PARAM(k, "x", T256(), CC_DIR_NONE);
    PARAM(k, "y", T256(), CC_DIR_NONE);
    PARAM(k, "n", TI, CC_DIR_NONE);
    cc_ir_expr **args = base_arena_alloc(&B->arena, 3 * sizeof *args);
    args[0] = V("a", T256()), args[1] = V("o", T256()), args[2] = arg;
    cc_ir_expr *call = CALL(k, args);
    m->body = BLK(EXPR(2, call));
    assert_int_equal(cc_pass_call_directions(&B->p), 0);
    return call;
}

static cc_ir_expr *ld(const char *t, cc_ir_expr *o0) { return LOAD(V(t, T256()), o0, I(0), 64, 128); }
static cc_ir_stmt *st(uint32_t line, const char *t, cc_ir_expr *o0)
{
    return EXPR(line, STORE(line, V("t", TILE()), o0, I(0), V(t, T256())));
}
static cc_ir_expr *N(void) { return V("n", TI); }
static cc_ir_expr *J(void) { return V("j", TI); }

static void test_f03_nonaffine_offset_is_whole_dim(void **state)
{
    (void)state;
    irb b;
    irb_init(&b);
    /* for j in range(4): t = load(x, [j*j*8, 0]); store(t, [j*8, 0], y) */
    cc_ir_expr *call = kernel_and_call(BLK(FOR(3, "j", I(0), I(4), I(1), BLK(
        ASSIGN(4, "t", TILE(), ld("x", BIN(CC_OP_MUL, BIN(CC_OP_MUL, J(), J()), I(8)))),
        st(5, "y", BIN(CC_OP_MUL, J(), I(8)))))), I(0));
    assert_string_equal(box_str(&call->u.call.boxes[0]), "In [*, 0:128]");
    assert_string_equal(box_str(&call->u.call.boxes[1]), "Out [0:88, 0:128]");
    irb_free(&b);
}

static void test_f04_load_only_is_in_store_only_out_both_inout(void **state)
{
    (void)state;
    irb b;
    irb_init(&b);
    cc_ir_expr *call = kernel_and_call(BLK(ASSIGN(3, "t", TILE(), ld("x", I(0))), st(4, "y", I(0))), I(0));
    cc_ir_func *k = call->u.call.callee;
    assert_int_equal(k->params[0].dir, CC_DIR_IN);
    assert_int_equal(k->params[1].dir, CC_DIR_OUT);
    assert_int_equal(call->u.call.boxes[1].dir, CC_DIR_OUT);
    irb_free(&b);

    irb_init(&b);
    call = kernel_and_call(BLK(ASSIGN(3, "t", TILE(), ld("y", I(0))), st(4, "y", I(64)), ASSIGN(5, "u", TILE(), LOADI(V("x", T256())))), I(0));
    assert_string_equal(box_str(&call->u.call.boxes[0]), "In [*, *]");
    assert_string_equal(box_str(&call->u.call.boxes[1]), "InOut [0:128, 0:128]");
    irb_free(&b);
}

static void test_f04_outlined_region_directions(void **state)
{
    (void)state;
    irb b;
    irb_init(&b);
    seed_through_directions();
    cc_ir_func *k0 = b.p.funcs[1], *k1 = b.p.funcs[2];
    assert_int_equal(k0->params[0].dir, CC_DIR_IN);
    assert_int_equal(k0->params[1].dir, CC_DIR_OUT);
    assert_int_equal(k1->params[0].dir, CC_DIR_INOUT);
    irb_free(&b);
}

static void test_p2_store_to_declared_in(void **state)
{
    (void)state;
    irb b;
    irb_init(&b);
    cc_ir_func *k = FUNC("kern", CC_FUNC_INCORE, BLK(ASSIGN(3, "t", TILE(), ld("x", I(0))), st(7, "x", I(0))));
    PARAM(k, "x", T256(), CC_DIR_IN);
    assert_int_equal(cc_pass_call_directions(&b.p), -1);
    assert_int_equal(b.diags.items[0].cls, CC_DIAG_PASS);
    assert_int_equal(b.diags.items[0].span.line, 7);
    assert_string_equal(diag0(&b), "kernel 'kern' writes its In parameter 'x' (pl.store at k.py:7); "
                                   "declare it pl.Out[...] or pl.InOut[...]");
    irb_free(&b);
}

static void test_declared_direction_kept_and_unused_param_is_whole(void **state)
{
    (void)state;
    irb b;
    irb_init(&b);
    cc_ir_func *k = FUNC("kern", CC_FUNC_INCORE, BLK(st(3, "y", I(64))));
    PARAM(k, "x", T256(), CC_DIR_INOUT);
    PARAM(k, "y", T256(), CC_DIR_INOUT);
    assert_int_equal(cc_pass_call_directions(&b.p), 0);
    assert_string_equal(box_str(&k->params[0].box), "InOut [*, *]");
    assert_string_equal(box_str(&k->params[1].box), "InOut [64:128, 0:128]");
    irb_free(&b);
}

static void test_f05_zero_trip_loop_keeps_the_formula(void **state)
{
    (void)state;
    irb b;
    irb_init(&b);
    /* for j in range(n): store(t, [j*64, 0], y) — called with n = 0 and n = q */
    cc_ir_block body = BLK(ASSIGN(2, "t", TILE(), ld("x", I(0))),
                           FOR(3, "j", I(0), N(), I(1), BLK(st(4, "y", BIN(CC_OP_MUL, J(), I(64))))));
    cc_ir_expr *call = kernel_and_call(body, I(0));
    assert_string_equal(box_str(&call->u.call.callee->params[1].box), "Out [0:(n-1)*64+64, 0:128]");
    assert_string_equal(box_str(&call->u.call.boxes[1]), "Out [0:0, 0:128]"); /* empty: the runtime takes the whole tensor */
    irb_free(&b);
}

static void test_f05_store_under_if_counts(void **state)
{
    (void)state;
    irb b;
    irb_init(&b);
    cc_ir_expr *call = kernel_and_call(BLK(ASSIGN(2, "t", TILE(), ld("x", I(0))), st(3, "y", I(0)),
                                           IF(4, BIN(CC_OP_GT, N(), I(0)), BLK(st(5, "y", I(128))), NOBLK)), I(1));
    assert_string_equal(box_str(&call->u.call.boxes[1]), "Out [0:192, 0:128]");
    irb_free(&b);
}

static void test_footprint_locals_and_call_arguments(void **state)
{
    (void)state;
    irb b;
    irb_init(&b);
    /* r = n * 64 (single definition); for j in range(2): store(t, [r + j*8, 0], y); c = 0; c = 1: load(x, [c, 0]) */
    cc_ir_expr *call = kernel_and_call(BLK(
        ASSIGN(2, "r", TI, BIN(CC_OP_MUL, N(), I(64))),
        ASSIGN(3, "c", TI, I(0)), ASSIGN(4, "c", TI, I(1)),
        ASSIGN(5, "t", TILE(), ld("x", V("c", TI))),
        FOR(6, "j", I(0), I(2), I(1), BLK(st(7, "y", BIN(CC_OP_ADD, V("r", TI), BIN(CC_OP_MUL, J(), I(8)))))),
        ), BIN(CC_OP_ADD, V("i", TI), I(1)));
    cc_ir_func *k = call->u.call.callee;
    assert_string_equal(box_str(&k->params[0].box), "In [*, 0:128]");
    assert_string_equal(box_str(&k->params[1].box), "Out [n*64:n*64+8+64, 0:128]");
    assert_string_equal(box_str(&call->u.call.boxes[1]), "Out [(i+1)*64:(i+1)*64+8+64, 0:128]");
    irb_free(&b);
}

static void test_negative_step_and_unknown_sign(void **state)
{
    (void)state;
    irb b;
    irb_init(&b);
    /* for j in range(3, -1, -1): store(t, [j*64, 0], y); for j in range(4): load(x, [j*n, 0]) */
    cc_ir_expr *call = kernel_and_call(BLK(
        FOR(2, "j", I(3), I(-1), I(-1), BLK(ASSIGN(3, "t", TILE(), ld("x", BIN(CC_OP_MUL, J(), N()))),
                                            st(4, "y", BIN(CC_OP_MUL, J(), I(64)))))), V("s", TI));
    cc_ir_func *k = call->u.call.callee;
    assert_string_equal(box_str(&k->params[1].box), "Out [0:256, 0:128]");
    assert_string_equal(box_str(&k->params[0].box), "In [min(3*n, 0*n):max(3*n+64, 0*n+64), 0:128]");
    irb_free(&b);
}

static void test_while_local_and_multi_def_are_unknown(void **state)
{
    (void)state;
    irb b;
    irb_init(&b);
    /* for j in range(n): store(t, [j, 0], y) with j reassigned in the body */
    cc_ir_expr *call = kernel_and_call(BLK(ASSIGN(2, "t", TILE(), ld("x", I(0))),
        FOR(3, "j", I(0), N(), I(1), BLK(ASSIGN(4, "j", TI, I(5)), st(5, "y", J())))), I(2));
    assert_string_equal(box_str(&call->u.call.boxes[1]), "Out [*, 0:128]");
    irb_free(&b);

    /* q = 0; while q < n: q = q + 1; store(t, [q, 0], y) */
    irb_init(&b);
    cc_ir_stmt *w = cc_ir_stmt_new(&b.arena, CC_I_WHILE, L(4));
    w->u.while_.cond = BIN(CC_OP_LT, V("q", TI), N());
    w->u.while_.body = BLK(ASSIGN(5, "q", TI, BIN(CC_OP_ADD, V("q", TI), I(1))), st(6, "y", V("q", TI)));
    call = kernel_and_call(BLK(ASSIGN(2, "t", TILE(), ld("x", I(0))), ASSIGN(3, "q", TI, I(0)), w), I(2));
    assert_string_equal(box_str(&call->u.call.boxes[1]), "Out [*, 0:128]");
    assert_string_equal(box_str(&call->u.call.boxes[0]), "In [0:64, 0:128]");
    irb_free(&b);
}

/* ---- through real DSL text ---- */

static void test_f01_f02_seed_printed_footprints(void **state)
{
    (void)state;
    int rc;
    pto_program *p = dsl_compile(dsl_seed_script, "manual_placement", "a out", PTO_STAGE_DIRECTIONS, &rc);
    assert_int_equal(rc, 0);
    const char *text = pto_program_text(p);
    assert_non_null(strstr(text, "self.manual_placement_incore_0(a, out, i)  # a: In [i*64:i*64+64, 0:128]; "
                                 "out: Out [i*64:i*64+64, 0:128]\n"));
    assert_non_null(strstr(text, "self.manual_placement_incore_1(out)  # out: InOut [0:256, 0:128]\n"));
    pto_program_free(p);
}

static const char dsl_kernels[] =
    "import pypto.language as pl\n"
    "\n"
    "@pl.jit.incore\n"
    "def kern(a, out, n: pl.Scalar[pl.INDEX]):\n"
    "    for i in pl.range(n):\n"
    "        t = pl.load(a, [i * i * 8, 0], [8, 128])\n"
    "        if n > 2:\n"
    "            pl.store(t, [i * 8, 0], out)\n"
    "\n"
    "@pl.jit.incore\n"
    "def bad(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
    "    t = pl.load(a, [0, 0], [8, 128])\n"
    "    pl.store(t, [0, 0], a)\n"
    "\n"
    "@pl.jit\n"
    "def entry(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
    "    kern(a, out, 0)\n"
    "    kern(a, out, 5)\n"
    "    return out\n"
    "\n"
    "@pl.jit\n"
    "def entry_bad(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
    "    bad(a, out)\n"
    "    return out\n";

static void test_f03_f04_f05_written_kernel_through_dsl(void **state)
{
    (void)state;
    int rc;
    pto_program *p = dsl_compile(dsl_kernels, "entry", "a out", PTO_STAGE_DIRECTIONS, &rc);
    assert_int_equal(rc, 0);
    const char *text = pto_program_text(p);
    assert_non_null(strstr(text, "self.kern(a, out, 0)  # a: In [0:256, 0:128]; out: Out [0:0, 0:128]\n"));
    assert_non_null(strstr(text, "self.kern(a, out, 5)  # a: In [0:256, 0:128]; out: Out [0:40, 0:128]\n"));
    assert_non_null(strstr(text, "def kern(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]"));
    pto_program_free(p);
}

static void test_p2_store_to_declared_in_through_dsl(void **state)
{
    (void)state;
    int rc;
    pto_program *p = dsl_compile(dsl_kernels, "entry_bad", "a out", PTO_STAGE_DIRECTIONS, &rc);
    assert_int_equal(rc, 1);
    const pto_diagnostic *d = pto_program_diag(p, 0);
    assert_string_equal(d->cls, "PassError");
    assert_int_equal(d->line, 13);
    assert_string_equal(d->message, "kernel 'bad' writes its In parameter 'a' (pl.store at k.py:13); "
                                    "declare it pl.Out[...] or pl.InOut[...]");
    pto_program_free(p);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_f01_phase1_rows_disjoint),
    cmocka_unit_test(test_f02_phase2_union_over_inner_loop),
    cmocka_unit_test(test_f03_nonaffine_offset_is_whole_dim),
    cmocka_unit_test(test_f04_load_only_is_in_store_only_out_both_inout),
    cmocka_unit_test(test_f04_outlined_region_directions),
    cmocka_unit_test(test_p2_store_to_declared_in),
    cmocka_unit_test(test_declared_direction_kept_and_unused_param_is_whole),
    cmocka_unit_test(test_f05_zero_trip_loop_keeps_the_formula),
    cmocka_unit_test(test_f05_store_under_if_counts),
    cmocka_unit_test(test_footprint_locals_and_call_arguments),
    cmocka_unit_test(test_negative_step_and_unknown_sign),
    cmocka_unit_test(test_while_local_and_multi_def_are_unknown),
    cmocka_unit_test(test_f01_f02_seed_printed_footprints),
    cmocka_unit_test(test_f03_f04_f05_written_kernel_through_dsl),
    cmocka_unit_test(test_p2_store_to_declared_in_through_dsl),
};

PTO_TEST_MAIN(tests)
