/*
 * test_pl_names.c - the one table of pl names (compiler/names.h, exported
 * by pto/language.h): every name once, every keyword once, the enums as
 * the compiler reads them, and each name's status deciding how it is
 * treated (supported names reach their meaning, later ones are "not
 * supported in this version").
 */
#include <stdlib.h>

#include "harness.h"
#include "dsl_compile.h"

#include "compiler/names.h"
#include "compiler/types.h"

static void test_pl_names_are_listed_once(void **s)
{
    (void)s;
    size_t n = pto_lang_name_count();
    assert_true(n > 100);
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (!strcmp(pto_lang_name_at(i).name, pto_lang_name_at(j).name)) fail_msg("pl.%s is listed twice", pto_lang_name_at(i).name);
}

static void test_pl_names_ops_and_dtypes_come_from_their_tables(void **s)
{
    (void)s;
    for (int op = 0; op < CC_IR_OP_COUNT; op++) {
        if (cc_ir_op_info((cc_ir_op)op)->cls == CC_OPC_DIST) continue; /* pld.<path>: test_pld_names_are_the_compilers */
        const cc_pl_name *n = cc_pl_name_find(cc_ir_op_name((cc_ir_op)op));
        assert_non_null(n);
        assert_int_equal(n->status, CC_PL_SUPPORTED);
        assert_int_equal(n->kind, CC_PLK_OP);
    }
    for (int d = 0; d < CC_DT_COUNT; d++) {
        const cc_pl_name *n = cc_pl_name_find(cc_dtype_name((cc_dtype)d));
        assert_non_null(n);
        assert_int_equal(n->status, CC_PL_SUPPORTED);
        assert_int_equal(n->kind, CC_PLK_DTYPE);
    }
    assert_int_equal(cc_pl_name_find("UINT64")->status, CC_PL_LATER);
    assert_null(cc_pl_name_find("lod"));
}

static void test_pl_keywords_are_listed_once(void **s)
{
    (void)s;
#define KW_(f, k, st, r) {#f, #k},
    static const struct { const char *form, *kw; } kws[] = {CC_PL_KEYWORD_LIST(KW_)};
#undef KW_
    size_t n = sizeof kws / sizeof kws[0];
    for (size_t i = 0; i < n; i++) {
        assert_non_null(cc_pl_keyword_find(kws[i].form, kws[i].kw));
        for (size_t j = i + 1; j < n; j++)
            assert_false(!strcmp(kws[i].form, kws[j].form) && !strcmp(kws[i].kw, kws[j].kw));
    }
    assert_null(cc_pl_keyword_find("at", "level"));
}

/* The pld names (pto/language.h) are the table tc_pld.c resolves pld.<path> with; the pld
 * ops are no pl names; the distributed enums have their compat values. */
static void test_pld_names_are_the_compilers(void **s)
{
    (void)s;
    size_t n = pto_lang_pld_name_count(), ops = 0;
    for (size_t k = 0; k < n; k++) {
        pto_lang_name r = pto_lang_pld_name_at(k);
        ops += !strcmp(r.kind, "op") && !strcmp(r.status, "supported");
        for (size_t j = k + 1; j < n; j++) assert_string_not_equal(r.name, pto_lang_pld_name_at(j).name);
    }
    assert_int_equal(ops, 27);
    pto_lang_name later = pto_lang_pld_name_at(n - 1);
    for (size_t k = 0; k < n && strcmp(later.name, "system.defer_wait"); k++) later = pto_lang_pld_name_at(k);
    assert_string_equal(later.status, "later");
    assert_null(cc_pl_name_find("pld.world_size"));
    assert_int_equal(cc_pl_enum_value("NotifyOp", "Set"), 1);
    assert_int_equal(cc_pl_enum_value("WaitCmp", "Ge"), 1);
    assert_int_equal(cc_pl_enum_value("ReduceOp", "Prod"), 3);
    assert_int_equal(cc_pl_enum_value("Role", "Orchestrator"), 0);
}

/* The exported enums are the ones the compiler resolves pl.<Enum>.<M> with,
 * and a value's first member is the name the compiler prints. */
static void test_pl_enums_are_the_compilers(void **s)
{
    (void)s;
    size_t ne;
    const pto_lang_enum *e = pto_lang_enums(&ne);
    assert_int_equal(ne, 15); /* with pld.NotifyOp, pld.WaitCmp, pld.ReduceOp and pl.Role */
    for (size_t k = 0; k < ne; k++)
        for (size_t m = 0; m < e[k].count; m++) assert_int_equal(cc_pl_enum_value(e[k].name, e[k].members[m].name), e[k].members[m].value);
    assert_int_equal(cc_pl_enum_value("Level", "CORE_GROUP"), CC_LEVEL_CORE_GROUP);
    assert_int_equal(cc_pl_enum_value("Level", "L2CACHE"), CC_LEVEL_CHIP_DIE);
    assert_string_equal(cc_level_name(CC_LEVEL_L2CACHE), "CHIP_DIE");
    assert_int_equal(cc_pl_enum_value("Mem", "Acc"), cc_pl_enum_value("MemorySpace", "Acc"));
    assert_int_equal(cc_pl_enum_value("MaskPattern", "P1010"), 2);
    assert_string_equal(cc_mask_pattern_name(7), "P1111");
    assert_int_equal(cc_pl_enum_value("DataType", "TASK_ID"), 7); /* pl.DataType values are stable, not cc_dtype */
    assert_int_equal(cc_pl_enum_value("DataType", "INT64"), 10);
    assert_int_equal(cc_pl_enum_value("SplitMode", "LEFT_RIGHT"), 2);
    assert_int_equal(cc_pl_enum_value("DataType", "INT16"), 9);
    assert_string_equal(cc_func_kind_name(CC_FUNC_INCORE), "InCore");
    assert_string_equal(cc_cache_policy_name(CC_CACHE_BYPASS), "BYPASS");
    assert_int_equal(cc_pl_enum_value("Level", "NOPE"), -1);
    assert_int_equal(cc_pl_enum_value("PadValue", "min"), 3);
    assert_string_equal(cc_pad_value_name(2), "max");
    assert_int_equal(cc_pl_enum_value("AtomicType", "Add"), 1);
    assert_string_equal(cc_atomic_type_name(0), "None_");
}

/* A name that is not supported in every position the compiler looks names
 * up: a value, a call, a `with` item (every loop and scope form of the
 * language is supported now, so a `for` iterable that is no form gets the
 * loop-form list). */
static void test_pl_names_later_status_is_not_supported_everywhere(void **s)
{
    (void)s;
    static const struct { const char *body; int line, col; const char *cls, *msg; } rows[] = {
        {"    x = pl.func_attr\n", 5, 9, "UnsupportedFeatureError", "pl.func_attr is not supported in this version"},
        {"    x = pl.func_attr(4)\n", 5, 9, "UnsupportedFeatureError", "pl.func_attr is not supported in this version"},
        {"    with pl.split_aiv():\n        pass\n", 5, 10, "UnsupportedFeatureError",
         "pl.split_aiv is Ascend-specific: it places work on the two vector lanes of one core; it has no meaning on the CPU backend"},
        {"    for i in pl.cond(1 > 0):\n        pass\n", 5, 14, "ParserSyntaxError",
         "for loops must iterate over pl.range(...), pl.parallel(...), pl.pipeline(...), pl.unroll(...) or pl.while_(...)"},
    };
    char src[512];
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        snprintf(src, sizeof src, DSL_F_HEADER "%s    return out\n", rows[k].body);
        pto_program *p = dsl_compile(src, "f", PTO_STAGE_LOWER);
        const pto_diagnostic *d = dsl_expect_error(p, rows[k].cls, rows[k].msg, rows[k].line, rows[k].col);
        assert_string_equal(d->message, rows[k].msg);
        pto_program_free(p);
    }
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_pl_names_are_listed_once),
    cmocka_unit_test(test_pl_names_ops_and_dtypes_come_from_their_tables),
    cmocka_unit_test(test_pl_keywords_are_listed_once),
    cmocka_unit_test(test_pl_enums_are_the_compilers), cmocka_unit_test(test_pld_names_are_the_compilers),
    cmocka_unit_test(test_pl_names_later_status_is_not_supported_everywhere),
};

PTO_TEST_MAIN(tests)
