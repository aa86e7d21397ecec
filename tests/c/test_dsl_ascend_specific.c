/*
 * test_dsl_ascend_specific.c - hardware-internal constructs (names.h's
 * HARDWARE rows): each is an UnsupportedFeatureError "<construct> is
 * Ascend-specific: <reason>; it has no meaning on the CPU backend" at the
 * construct's line:col, one test per reason, and every such name of the
 * table used as a value.
 */
#include <stdlib.h>

#include "harness.h"
#include "dsl_compile.h"

#include "compiler/names.h"

#define HDR "import pypto.language as pl\n\n"
#define ENTRY "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
#define CTRL(body) HDR ENTRY body "    return out\n"                                                   /* body from line 5 */
#define KERN(body) HDR ENTRY "    with pl.at(level=pl.Level.CORE_GROUP):\n" body "    return out\n" /* from line 6 */
#define TAIL "; it has no meaning on the CPU backend"
#define LANES ": it places work on the two vector lanes of one core" TAIL
#define MX ": it uses the A5 micro-scaling formats and their fixed layouts" TAIL
#define LAYOUT ": it selects a hardware fractal layout" TAIL

typedef struct ascend_case {
    const char *src;
    int line, col;
    const char *msg; /* the exact message */
} ascend_case;

static void ascend_run(const ascend_case *c, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        pto_program *p = dsl_compile(c[k].src, "f", PTO_STAGE_LOWER);
        const pto_diagnostic *d = dsl_expect_error(p, "UnsupportedFeatureError", c[k].msg, c[k].line, c[k].col);
        assert_string_equal(d->message, c[k].msg);
        pto_program_free(p);
    }
}

#define RUN(rows) ascend_run(rows, sizeof rows / sizeof rows[0])

static void test_ascend_vector_lane_constructs(void **s)
{
    (void)s;
    static const ascend_case rows[] = {
        {KERN("        with pl.split_aiv():\n            pass\n"), 6, 14, "pl.split_aiv is Ascend-specific" LANES},
        {KERN("        x = pl.split_aiv(a)\n"), 6, 13, "pl.split_aiv is Ascend-specific" LANES},
        {KERN("        x = pl.aiv_shard(a)\n"), 6, 13, "pl.aiv_shard is Ascend-specific" LANES},
        {KERN("        with pl.aiv_shard():\n            pass\n"), 6, 14, "pl.aiv_shard is Ascend-specific" LANES},
        {KERN("        x = pl.aic_gather(a)\n"), 6, 13, "pl.aic_gather is Ascend-specific" LANES},
        {KERN("        with pl.aic_gather():\n            pass\n"), 6, 14, "pl.aic_gather is Ascend-specific" LANES},
    };
    RUN(rows);
}

static void test_ascend_micro_scaling_dtypes_and_ops(void **s)
{
    (void)s;
    static const ascend_case rows[] = {
        {KERN("        t = pl.cast(pl.load(a, [0, 0], [64, 128]), pl.FP8)\n"), 6, 52, "dtype pl.FP8 is Ascend-specific" MX},
        {KERN("        t = pl.cast(pl.load(a, [0, 0], [64, 128]), pl.FP8E4M3FN)\n"), 6, 52, "dtype pl.FP8E4M3FN is Ascend-specific" MX},
        {CTRL("    x = pl.create_tensor([64, 128], pl.FP8E5M2)\n"), 5, 37, "dtype pl.FP8E5M2 is Ascend-specific" MX},
        {HDR "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar[pl.INT4]):\n    return out\n", 4, 58,
         "dtype pl.INT4 is Ascend-specific" MX},
        {CTRL("    x = pl.HF4\n"), 5, 9, "dtype pl.HF4 is Ascend-specific" MX},
        {CTRL("    x = pl.HF8\n"), 5, 9, "dtype pl.HF8 is Ascend-specific" MX},
        {CTRL("    x = pl.FP4\n"), 5, 9, "dtype pl.FP4 is Ascend-specific" MX},
        {KERN("        t = pl.matmul_mx(a, a)\n"), 6, 13, "pl.matmul_mx is Ascend-specific" MX},
        {CTRL("    x = pl.MX_A_ZZ\n"), 5, 9, "pl.MX_A_ZZ is Ascend-specific" MX},
    };
    RUN(rows);
}

static void test_ascend_fractal_layouts(void **s)
{
    (void)s;
    static const ascend_case rows[] = {
        {CTRL("    x = pl.create_tensor([64, 128], pl.FP32, layout=pl.NZ)\n"), 5, 53, "pl.NZ is Ascend-specific" LAYOUT},
        {CTRL("    x = pl.create_tensor([64, 128], pl.FP32, layout=pl.DN)\n"), 5, 53, "pl.DN is Ascend-specific" LAYOUT},
        {CTRL("    x = pl.NZ\n"), 5, 9, "pl.NZ is Ascend-specific" LAYOUT},
    };
    RUN(rows);
}

static void test_ascend_role_keyword_selects_a_core_type(void **s)
{
    (void)s;
    static const ascend_case rows[] = {
        {CTRL("    with pl.at(level=pl.Level.CORE_GROUP, role=1):\n        pass\n"), 5, 43,
         "role= is Ascend-specific: it selects a compiler-internal function kind or core type" TAIL},
    };
    RUN(rows);
}

/* Every hardware-internal name of the table, used as a value, gets its reason. */
static void test_ascend_every_hardware_name_of_the_table(void **s)
{
    (void)s;
    size_t checked = 0;
    for (size_t i = 0; i < pto_lang_name_count(); i++) {
        pto_lang_name n = pto_lang_name_at(i);
        if (strcmp(n.status, "hardware")) continue;
        const cc_pl_name *row = cc_pl_name_find(n.name);
        char src[256], msg[256];
        snprintf(src, sizeof src, CTRL("    x = pl.%s\n"), n.name);
        snprintf(msg, sizeof msg, "%spl.%s is Ascend-specific: %s" TAIL, row->kind == CC_PLK_DTYPE ? "dtype " : "", n.name,
                 cc_pl_reason_text((cc_pl_reason)row->reason));
        ascend_case c = {src, 5, 9, msg};
        ascend_run(&c, 1);
        checked++;
    }
    assert_true(checked >= 10);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_ascend_vector_lane_constructs),
    cmocka_unit_test(test_ascend_micro_scaling_dtypes_and_ops),
    cmocka_unit_test(test_ascend_fractal_layouts),
    cmocka_unit_test(test_ascend_role_keyword_selects_a_core_type),
    cmocka_unit_test(test_ascend_every_hardware_name_of_the_table),
};

PTO_TEST_MAIN(tests)
