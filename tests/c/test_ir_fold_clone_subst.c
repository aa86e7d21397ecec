/*
 * test_ir_fold_clone_subst.c - the IR's expression helpers on every node
 * kind the passes hand them: cc_ir_fold (integer folding with Python's
 * floor division and modulo, the case it must leave alone: division by
 * zero; INT64_MIN // -1 wrapping as the run does; the identities x*1,
 * x+0, x-0),
 * cc_ir_expr_clone (a deep copy: no node shared with the original),
 * cc_ir_expr_subst (names replaced inside unary, list, op and call nodes,
 * folding what becomes constant) and cc_type_format of the types that are
 * not values.  One test per rule.
 */
#include <stdint.h>

#include "harness.h"
#include "ir_build.h"

static cc_type T_INDEX(void) { return (cc_type){.kind = CC_T_SCALAR, .dtype = CC_DT_INDEX}; }

/* The folded expression, printed. */
static const char *folded(cc_op op, cc_ir_expr *l, cc_ir_expr *r)
{
    static char buf[128];
    base_strbuf o = {0};
    cc_print_expr(cc_ir_fold(&B.arena, BIN(op, l, r)), 1, &o);
    snprintf(buf, sizeof buf, "%s", base_strbuf_str(&o));
    base_strbuf_free(&o);
    return buf;
}

static void test_fold_floor_division_and_modulo_round_like_python(void **s)
{
    (void)s;
    irb_init();
    assert_string_equal(folded(CC_OP_FLOORDIV, I(-7), I(2)), "-4");
    assert_string_equal(folded(CC_OP_FLOORDIV, I(7), I(-2)), "-4");
    assert_string_equal(folded(CC_OP_FLOORDIV, I(7), I(2)), "3");
    assert_string_equal(folded(CC_OP_MOD, I(-7), I(2)), "1");
    assert_string_equal(folded(CC_OP_MOD, I(7), I(-2)), "-1");
    assert_string_equal(folded(CC_OP_MOD, I(6), I(3)), "0");
    irb_free();
}

/* x // 0 and x % 0 have no value: left unfolded for the run to report. */
static void test_fold_leaves_division_by_zero_unfolded(void **s)
{
    (void)s;
    irb_init();
    assert_string_equal(folded(CC_OP_FLOORDIV, I(7), I(0)), "7//0");
    assert_string_equal(folded(CC_OP_MOD, I(7), I(0)), "7%0");
    irb_free();
}

/* INT64_MIN // -1 overflows int64: it folds to what the run computes, the
 * quotient wrapped (INT64_MIN), and INT64_MIN % -1 to 0. */
static void test_fold_wraps_int64_min_floordiv_minus_one_as_the_run_does(void **s)
{
    (void)s;
    irb_init();
    int64_t v = 0;
    assert_true(cc_ir_const_int(cc_ir_fold(&B.arena, BIN(CC_OP_FLOORDIV, I(INT64_MIN), I(-1))), &v));
    assert_true(v == INT64_MIN);
    assert_true(cc_ir_const_int(cc_ir_fold(&B.arena, BIN(CC_OP_MOD, I(INT64_MIN), I(-1))), &v));
    assert_int_equal(v, 0);
    irb_free();
}

static void test_fold_drops_identity_operands(void **s)
{
    (void)s;
    irb_init();
    cc_ir_expr *n = V("n", T_INDEX());
    assert_ptr_equal(cc_ir_fold(&B.arena, BIN(CC_OP_MUL, I(1), n)), n);
    assert_ptr_equal(cc_ir_fold(&B.arena, BIN(CC_OP_MUL, n, I(1))), n);
    assert_ptr_equal(cc_ir_fold(&B.arena, BIN(CC_OP_ADD, I(0), n)), n);
    assert_ptr_equal(cc_ir_fold(&B.arena, BIN(CC_OP_ADD, n, I(0))), n);
    assert_ptr_equal(cc_ir_fold(&B.arena, BIN(CC_OP_SUB, n, I(0))), n);
    /* 0 - n is not n */
    assert_int_equal(cc_ir_fold(&B.arena, BIN(CC_OP_SUB, I(0), n))->kind, CC_X_BINARY);
    irb_free();
}

/* Every node reachable from the clone is a new node with the same text. */
static int shares_a_node(const cc_ir_expr *a, const cc_ir_expr *b)
{
    if (!a || !b) return 0;
    if (a == b) return 1;
    switch (a->kind) {
    case CC_X_BINARY: return shares_a_node(a->u.bin.l, b->u.bin.l) || shares_a_node(a->u.bin.r, b->u.bin.r);
    case CC_X_UNARY: return shares_a_node(a->u.un.x, b->u.un.x);
    case CC_X_LIST:
        for (uint32_t k = 0; k < a->u.list.n; k++)
            if (shares_a_node(a->u.list.items[k], b->u.list.items[k])) return 1;
        return 0;
    case CC_X_OP:
        for (uint32_t k = 0; k < cc_ir_op_nslots(a->u.op.op); k++)
            if (shares_a_node(a->u.op.args[k], b->u.op.args[k])) return 1;
        return 0;
    default: return 0;
    }
}

static cc_ir_expr *unary_neg(cc_ir_expr *x)
{
    cc_ir_expr *u = irb_expr(cc_ir_expr_new(&B.arena, CC_X_UNARY, SP(1, 1)));
    u->u.un.op = CC_OP_NEG, u->u.un.x = x, u->type = x->type;
    return u;
}

static void test_clone_is_deep_for_unary_list_and_op_nodes(void **s)
{
    (void)s;
    irb_init();
    cc_ir_expr *i = V("i", T_INDEX());
    cc_ir_expr *t = V("a", T_TENSOR(256, 128));
    cc_ir_expr *e = LOAD(SP(3, 9), t, BIN(CC_OP_MUL, unary_neg(i), I(64)), I(0), 64, 128);
    cc_ir_expr *l = LIST(unary_neg(i), BIN(CC_OP_ADD, i, I(1)));
    cc_ir_expr *ce = cc_ir_expr_clone(&B.arena, e), *cl = cc_ir_expr_clone(&B.arena, l);
    assert_non_null(ce);
    assert_non_null(cl);
    assert_false(shares_a_node(e, ce));
    assert_false(shares_a_node(l, cl));
    base_strbuf x = {0}, y = {0};
    cc_print_expr(e, 1, &x), cc_print_expr(ce, 1, &y);
    assert_string_equal(base_strbuf_str(&x), base_strbuf_str(&y));
    base_strbuf_free(&x), base_strbuf_free(&y);
    irb_free();
}

/* Substituting i := 2 reaches into unary, list and op nodes and folds
 * what became constant; other names stay. */
static void test_subst_reaches_every_node_kind_and_folds(void **s)
{
    (void)s;
    irb_init();
    cc_ir_expr *i = V("i", T_INDEX()), *n = V("n", T_INDEX());
    const char *names[] = {"i"};
    cc_ir_expr *values[] = {I(2)};
    base_strbuf o = {0};
    cc_print_expr(cc_ir_expr_subst(&B.arena, unary_neg(i), names, values, 1), 1, &o);
    assert_string_equal(base_strbuf_str(&o), "-2");
    base_strbuf_free(&o);
    cc_print_expr(cc_ir_expr_subst(&B.arena, LIST(BIN(CC_OP_MUL, i, I(64)), BIN(CC_OP_ADD, n, i)), names, values, 1), 1, &o);
    assert_string_equal(base_strbuf_str(&o), "[128,n+2]");
    base_strbuf_free(&o);
    cc_ir_expr *ld = LOAD(SP(3, 9), V("a", T_TENSOR(256, 128)), BIN(CC_OP_MUL, i, I(64)), I(0), 64, 128);
    cc_ir_expr *sub = cc_ir_expr_subst(&B.arena, ld, names, values, 1);
    assert_true(cc_ir_expr_uses(ld, "i"));
    assert_false(cc_ir_expr_uses(sub, "i"));
    cc_print_expr(sub, 1, &o);
    assert_non_null(strstr(base_strbuf_str(&o), "[128,0]"));
    base_strbuf_free(&o);
    irb_free();
}

static void test_type_format_names_the_non_value_types(void **s)
{
    (void)s;
    char buf[64];
    static const struct { cc_type_kind kind; const char *text; } rows[] = {
        {CC_T_LIST, "list"}, {CC_T_STR, "str"}, {CC_T_TUPLE, "tuple"}, {CC_T_VOID, "None"}};
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        cc_type t = {.kind = (uint8_t)rows[k].kind};
        cc_type_format(&t, buf, sizeof buf);
        assert_string_equal(buf, rows[k].text);
    }
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_fold_floor_division_and_modulo_round_like_python),
    cmocka_unit_test(test_fold_leaves_division_by_zero_unfolded),
    cmocka_unit_test(test_fold_wraps_int64_min_floordiv_minus_one_as_the_run_does),
    cmocka_unit_test(test_fold_drops_identity_operands),
    cmocka_unit_test(test_clone_is_deep_for_unary_list_and_op_nodes),
    cmocka_unit_test(test_subst_reaches_every_node_kind_and_folds),
    cmocka_unit_test(test_type_format_names_the_non_value_types),
};

PTO_TEST_MAIN(tests)
