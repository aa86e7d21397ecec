/*
 * test_call_directions.c - DeriveCallDirections (src/compiler/
 * pass_call_directions.c, docs/compiler.md, "Footprints") on hand-built IR:
 * usage directions, P2, footprint boxes of InCore parameters (affine loop
 * elimination, substituted locals, unknown dimensions) and the boxes of
 * every call with the call's scalar arguments substituted.
 */
#include <stdlib.h>
#include <string.h>

#include "compiler/passes.h"
#include "harness.h"
#include "dsl_compile.h"
#include "dsl_examples.h"
#include "ir_build.h"

static cc_type T256(void) { return T_TENSOR(256, 128); }
static cc_type TILE(void) { return T_TILE(64, 128); }

/* "In [lo:hi, *]" (`*`: the whole dimension), the bounds as the printer's
 * footprint comments write them (valid until the next call). */
static const char *box_str(const cc_ir_box *b)
{
    static char text[512];
    base_strbuf o = {0};
    base_strbuf_printf(&o, "%s [", cc_dir_name((cc_dir)b->dir));
    for (uint32_t d = 0; d < b->rank; d++) {
        if (d) base_strbuf_puts(&o, ", ");
        if (!b->lo[d]) base_strbuf_puts(&o, "*");
        else cc_print_expr(b->lo[d], 1, &o), base_strbuf_puts(&o, ":"), cc_print_expr(b->hi[d], 1, &o);
    }
    base_strbuf_puts(&o, "]");
    snprintf(text, sizeof text, "%s", base_strbuf_str(&o));
    base_strbuf_free(&o);
    return text;
}

/* The seed example through stages 2 and 3. */
static cc_ir_func *seed_through_directions(void)
{
    cc_ir_func *f = seed_manual_placement();
    assert_int_equal(cc_pass_outline_incore(&B.p), 0);
    assert_int_equal(cc_pass_call_directions(&B.p), 0);
    return f;
}

static void test_f01_phase1_rows_disjoint(void **state)
{
    (void)state;
    irb_init();
    cc_ir_func *f = seed_through_directions();
    const cc_ir_expr *call = STMT(f, 0, 0, 0)->u.expr;
    assert_non_null(call->u.call.boxes);
    assert_string_equal(box_str(&call->u.call.boxes[0]), "In [i*64:i*64+64, 0:128]");
    assert_string_equal(box_str(&call->u.call.boxes[1]), "Out [i*64:i*64+64, 0:128]");
    assert_int_equal(call->u.call.boxes[2].rank, 0);
    /* the kernel's own boxes are over its parameter i */
    assert_string_equal(box_str(&B.p.funcs[1]->params[1].box), "Out [i*64:i*64+64, 0:128]");
    irb_free();
}

static void test_f02_phase2_union_over_inner_loop(void **state)
{
    (void)state;
    irb_init();
    cc_ir_func *f = seed_through_directions();
    const cc_ir_expr *call = STMT(f, 0, 1, 0)->u.expr;
    assert_string_equal(box_str(&call->u.call.boxes[0]), "InOut [0:256, 0:128]");
    irb_free();
}

/* An InCore kernel k(x, y, n) with body, called as k(a, o, arg) from main. */
static cc_ir_expr *kernel_and_call(cc_ir_block body, cc_ir_expr *arg)
{
    cc_ir_func *m = FUNC("main", CC_FUNC_ORCHESTRATION, NO_PARAMS, NO_RESULTS);
    cc_ir_func *k = FUNC("k", CC_FUNC_INCORE, PARAMS(P("x", T256(), CC_DIR_NONE), P("y", T256(), CC_DIR_NONE),
                                                     P("n", T_IDX, CC_DIR_NONE)), NO_RESULTS);
    k->body = body;
    cc_ir_expr *call = CALL(k, SP(2, 1), V("a", T256()), V("o", T256()), arg);
    m->body = BLOCK(EXPR(SP(2, 1), call));
    assert_int_equal(cc_pass_call_directions(&B.p), 0);
    return call;
}

/* t = pl.load(src, [o0, 0], [64, 128]) at line */
static cc_ir_stmt *ld(uint32_t line, const char *src, cc_ir_expr *o0)
{
    return ASSIGN(SP(line, 1), "t", LOAD(SP(line, 1), V(src, T256()), o0, I(0), 64, 128));
}
/* pl.store(t, [o0, 0], dst) at line */
static cc_ir_stmt *st(uint32_t line, const char *dst, cc_ir_expr *o0)
{
    return EXPR(SP(line, 1), STORE(SP(line, 1), V("t", TILE()), o0, I(0), V(dst, T256())));
}
static cc_ir_expr *N(void) { return V("n", T_IDX); }
static cc_ir_expr *J(void) { return V("j", T_IDX); }

static void test_f03_nonaffine_offset_is_whole_dim(void **state)
{
    (void)state;
    irb_init();
    /* for j in range(4): t = load(x, [j*j*8, 0]); store(t, [j*8, 0], y) */
    cc_ir_expr *call = kernel_and_call(BLOCK(FOR(SP(3, 1), "j", I(0), I(4), I(1), BLOCK(
        ld(4, "x", BIN(CC_OP_MUL, BIN(CC_OP_MUL, J(), J()), I(8))),
        st(5, "y", BIN(CC_OP_MUL, J(), I(8)))))), I(0));
    assert_string_equal(box_str(&call->u.call.boxes[0]), "In [*, 0:128]");
    assert_string_equal(box_str(&call->u.call.boxes[1]), "Out [0:88, 0:128]");
    irb_free();
}

static void test_f04_load_only_is_in_store_only_out_both_inout(void **state)
{
    (void)state;
    irb_init();
    cc_ir_expr *call = kernel_and_call(BLOCK(ld(3, "x", I(0)), st(4, "y", I(0))), I(0));
    cc_ir_func *k = call->u.call.callee;
    assert_int_equal(k->params[0].dir, CC_DIR_IN);
    assert_int_equal(k->params[1].dir, CC_DIR_OUT);
    assert_int_equal(call->u.call.boxes[1].dir, CC_DIR_OUT);
    irb_free();

    irb_init();
    cc_ir_expr *whole_x = IMPLICIT(LOAD(SP(5, 1), V("x", T256()), I(0), I(0), 256, 128));
    call = kernel_and_call(BLOCK(ld(3, "y", I(0)), st(4, "y", I(64)), ASSIGN(SP(5, 1), "u", whole_x)), I(0));
    assert_string_equal(box_str(&call->u.call.boxes[0]), "In [*, *]");
    assert_string_equal(box_str(&call->u.call.boxes[1]), "InOut [0:128, 0:128]");
    irb_free();
}

static void test_f04_outlined_region_directions(void **state)
{
    (void)state;
    irb_init();
    seed_through_directions();
    cc_ir_func *k0 = B.p.funcs[1], *k1 = B.p.funcs[2];
    assert_int_equal(k0->params[0].dir, CC_DIR_IN);
    assert_int_equal(k0->params[1].dir, CC_DIR_OUT);
    assert_int_equal(k1->params[0].dir, CC_DIR_INOUT);
    irb_free();
}

static void test_p2_store_to_declared_in(void **state)
{
    (void)state;
    irb_init();
    cc_ir_func *k = FUNC("kern", CC_FUNC_INCORE, PARAMS(P("x", T256(), CC_DIR_IN)), NO_RESULTS);
    k->body = BLOCK(ld(3, "x", I(0)), st(7, "x", I(0)));
    assert_int_equal(cc_pass_call_directions(&B.p), -1);
    irb_expect_diag(0, CC_DIAG_PASS, "kernel 'kern' writes its In parameter 'x' (pl.store at k.py:7); "
                                     "declare it pl.Out[...] or pl.InOut[...]");
    assert_int_equal(B.diags.items[0].span.line, 7);
    irb_free();
}

static void test_declared_direction_kept_and_unused_param_is_whole(void **state)
{
    (void)state;
    irb_init();
    cc_ir_func *k = FUNC("kern", CC_FUNC_INCORE, PARAMS(P("x", T256(), CC_DIR_INOUT), P("y", T256(), CC_DIR_INOUT)), NO_RESULTS);
    k->body = BLOCK(st(3, "y", I(64)));
    assert_int_equal(cc_pass_call_directions(&B.p), 0);
    assert_string_equal(box_str(&k->params[0].box), "InOut [*, *]");
    assert_string_equal(box_str(&k->params[1].box), "InOut [64:128, 0:128]");
    irb_free();
}

static void test_f05_zero_trip_loop_keeps_the_formula(void **state)
{
    (void)state;
    irb_init();
    /* for j in range(n): store(t, [j*64, 0], y) — called with n = 0 and n = q */
    cc_ir_block body = BLOCK(ld(2, "x", I(0)),
                           FOR(SP(3, 1), "j", I(0), N(), I(1), BLOCK(st(4, "y", BIN(CC_OP_MUL, J(), I(64))))));
    cc_ir_expr *call = kernel_and_call(body, I(0));
    assert_string_equal(box_str(&call->u.call.callee->params[1].box), "Out [0:(n-1)*64+64, 0:128]");
    assert_string_equal(box_str(&call->u.call.boxes[1]), "Out [0:0, 0:128]"); /* empty: the runtime takes the whole tensor */
    irb_free();
}

static void test_f05_store_under_if_counts(void **state)
{
    (void)state;
    irb_init();
    cc_ir_expr *call = kernel_and_call(BLOCK(ld(2, "x", I(0)), st(3, "y", I(0)),
                                           IF(SP(4, 1), BIN(CC_OP_GT, N(), I(0)), BLOCK(st(5, "y", I(128))), EMPTY_BLOCK)), I(1));
    assert_string_equal(box_str(&call->u.call.boxes[1]), "Out [0:192, 0:128]");
    irb_free();
}

static void test_footprint_locals_and_call_arguments(void **state)
{
    (void)state;
    irb_init();
    /* r = n * 64 (single definition); for j in range(2): store(t, [r + j*8, 0], y); c = 0; c = 1: load(x, [c, 0]) */
    cc_ir_expr *call = kernel_and_call(BLOCK(
        ASSIGN(SP(2, 1), "r", BIN(CC_OP_MUL, N(), I(64))),
        ASSIGN(SP(3, 1), "c", I(0)), ASSIGN(SP(4, 1), "c", I(1)),
        ld(5, "x", V("c", T_IDX)),
        FOR(SP(6, 1), "j", I(0), I(2), I(1), BLOCK(st(7, "y", BIN(CC_OP_ADD, V("r", T_IDX), BIN(CC_OP_MUL, J(), I(8)))))),
        ), BIN(CC_OP_ADD, V("i", T_IDX), I(1)));
    cc_ir_func *k = call->u.call.callee;
    assert_string_equal(box_str(&k->params[0].box), "In [*, 0:128]");
    assert_string_equal(box_str(&k->params[1].box), "Out [n*64:n*64+8+64, 0:128]");
    assert_string_equal(box_str(&call->u.call.boxes[1]), "Out [(i+1)*64:(i+1)*64+8+64, 0:128]");
    irb_free();
}

static void test_negative_step_and_unknown_sign(void **state)
{
    (void)state;
    irb_init();
    /* for j in range(3, -1, -1): store(t, [j*64, 0], y); for j in range(4): load(x, [j*n, 0]) */
    cc_ir_expr *call = kernel_and_call(BLOCK(
        FOR(SP(2, 1), "j", I(3), I(-1), I(-1), BLOCK(ld(3, "x", BIN(CC_OP_MUL, J(), N())),
                                            st(4, "y", BIN(CC_OP_MUL, J(), I(64)))))), V("s", T_IDX));
    cc_ir_func *k = call->u.call.callee;
    assert_string_equal(box_str(&k->params[1].box), "Out [0:256, 0:128]");
    assert_string_equal(box_str(&k->params[0].box), "In [min(3*n,0*n):max(3*n+64,0*n+64), 0:128]");
    irb_free();
}

static void test_while_local_and_multi_def_are_unknown(void **state)
{
    (void)state;
    irb_init();
    /* for j in range(n): store(t, [j, 0], y) with j reassigned in the body */
    cc_ir_expr *call = kernel_and_call(BLOCK(ld(2, "x", I(0)),
        FOR(SP(3, 1), "j", I(0), N(), I(1), BLOCK(ASSIGN(SP(4, 1), "j", I(5)), st(5, "y", J())))), I(2));
    assert_string_equal(box_str(&call->u.call.boxes[1]), "Out [*, 0:128]");
    irb_free();

    /* q = 0; while q < n: q = q + 1; store(t, [q, 0], y) */
    irb_init();
    cc_ir_stmt *w = WHILE(SP(4, 1), BIN(CC_OP_LT, V("q", T_IDX), N()),
                          BLOCK(ASSIGN(SP(5, 1), "q", BIN(CC_OP_ADD, V("q", T_IDX), I(1))), st(6, "y", V("q", T_IDX))));
    call = kernel_and_call(BLOCK(ld(2, "x", I(0)), ASSIGN(SP(3, 1), "q", I(0)), w), I(2));
    assert_string_equal(box_str(&call->u.call.boxes[1]), "Out [*, 0:128]");
    assert_string_equal(box_str(&call->u.call.boxes[0]), "In [0:64, 0:128]");
    irb_free();
}

/* ---- through real DSL text ---- */

static void test_f01_f02_seed_printed_footprints(void **state)
{
    (void)state;
    pto_program *p = dsl_compile(dsl_seed_script, "manual_placement", PTO_STAGE_DIRECTIONS);
    dsl_expect_ok(p);
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
    pto_program *p = dsl_compile(dsl_kernels, "entry", PTO_STAGE_DIRECTIONS);
    dsl_expect_ok(p);
    const char *text = pto_program_text(p);
    assert_non_null(strstr(text, "self.kern(a, out, 0)  # a: In [0:256, 0:128]; out: Out [0:0, 0:128]\n"));
    assert_non_null(strstr(text, "self.kern(a, out, 5)  # a: In [0:256, 0:128]; out: Out [0:40, 0:128]\n"));
    assert_non_null(strstr(text, "def kern(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]"));
    pto_program_free(p);
}

static void test_p2_store_to_declared_in_through_dsl(void **state)
{
    (void)state;
    pto_program *p = dsl_compile(dsl_kernels, "entry_bad", PTO_STAGE_DIRECTIONS);
    const pto_diagnostic *d = dsl_expect_error(p, "PassError", "kernel 'bad' writes its In parameter 'a'", 13, 0);
    assert_string_equal(d->message, "kernel 'bad' writes its In parameter 'a' (pl.store at k.py:13); "
                                    "declare it pl.Out[...] or pl.InOut[...]");
    pto_program_free(p);
}

/* A kernel's tensors are its parameters: a load or store through another name
 * that is one parameter's tensor on every path (z = y; p = pl.store(..., y))
 * is that parameter's access, so its direction and footprint count it (a
 * write through such a name makes the parameter Out: the caller orders on
 * it). */
static void test_kernel_tensor_through_another_name_is_its_parameters(void **state)
{
    (void)state;
    static const char *const bodies[][2] = {
        {"    z = y\n    pl.store(pl.load(x, [0, 0], [8, 8]), [0, 0], z)\n    return y\n", "out: Out [0:8, 0:8]"},
        {"    p = pl.store(pl.load(x, [0, 0], [8, 8]), [0, 0], y)\n    pl.store(pl.load(x, [0, 0], [8, 8]), [8, 0], p)\n    return y\n",
         "out: Out [0:16, 0:8]"},
        {"    w = x\n    pl.store(pl.load(w, [4, 0], [8, 8]), [0, 0], y)\n    return y\n", "a: In [4:12, 0:8]"}};
    for (size_t c = 0; c < sizeof bodies / sizeof bodies[0]; c++) {
        char src[1024];
        snprintf(src, sizeof src, "import pypto.language as pl\n\n@pl.jit.incore\ndef k(x, y):\n%s\n"
                                  "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n    out = k(a, out)\n    return out\n", bodies[c][0]);
        pto_program *p = dsl_compile(src, "f", PTO_STAGE_DIRECTIONS);
        dsl_expect_ok(p);
        const char *text = pto_program_text(p);
        if (!strstr(text, bodies[c][1])) fail_msg("case %zu: no '%s' in\n%s", c, bodies[c][1], text);
        pto_program_free(p);
    }
}

/* A name that is two parameters' tensors (z = x, then z = y) would need a
 * footprint per path: refused. */
static void test_kernel_tensor_of_two_parameters_is_unsupported(void **state)
{
    (void)state;
    const char *src = "import pypto.language as pl\n\n@pl.jit.incore\ndef k(x, y):\n"
                      "    z = x\n    z = y\n    pl.store(pl.load(x, [0, 0], [8, 8]), [0, 0], z)\n    return y\n\n"
                      "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n    out = k(a, out)\n    return out\n";
    pto_program *p = dsl_compile(src, "f", PTO_STAGE_DIRECTIONS);
    const pto_diagnostic *d = dsl_expect_error(p, "UnsupportedFeatureError",
                                               "a tensor bound to another name ('z') in kernel code is not supported in this version", 7, 50);
    assert_string_equal(d->hint, "load and store the tensor through its own name");
    pto_program_free(p);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_f01_phase1_rows_disjoint),
    cmocka_unit_test(test_kernel_tensor_through_another_name_is_its_parameters),
    cmocka_unit_test(test_kernel_tensor_of_two_parameters_is_unsupported),
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
