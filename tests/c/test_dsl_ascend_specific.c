/*
 * test_dsl_ascend_specific.c - hardware-internal constructs (names.h's
 * HARDWARE rows): each is an UnsupportedFeatureError "<construct> is
 * Ascend-specific: <reason>; it has no meaning on the CPU backend" at the
 * construct's line:col, one test per reason, and every such name and
 * member (CC_PL_MEMBER_LIST) of the table used as a value.
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
#define RING ": it is a ring primitive between the cube and vector units of one core" TAIL
#define BARRIER ": it is a device barrier or cache-maintenance instruction" TAIL
#define EXTERN ": it links a hand-written Ascend C++ kernel" TAIL
#define KIND ": it selects a compiler-internal function kind or core type" TAIL
#define ADDRESS ": it fixes an on-chip address" TAIL
/* A @pl.program whose InCore method g has decorator keywords kws, called by entry f (g's line: 5). */
#define PROG(kws)                                                                                        \
    HDR "@pl.program\nclass f:\n    @pl.function(" kws ")\n    def g(self, a: pl.Tensor, out: pl.Out[pl.Tensor]):\n" \
        "        return out\n\n    @pl.function(type=pl.FunctionType.Orchestration)\n"                  \
        "    def f(self, a: pl.Tensor, out: pl.Out[pl.Tensor]):\n        out = self.g(a, out)\n        return out\n"

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

static void test_ascend_ring_primitives(void **s)
{
    (void)s;
    static const ascend_case rows[] = {
        {KERN("        pl.system.tpush_to_aiv(a)\n"), 6, 9, "pl.system.tpush_to_aiv is Ascend-specific" RING},
        {KERN("        x = pl.system.tpop_from_aic(a)\n"), 6, 13, "pl.system.tpop_from_aic is Ascend-specific" RING},
        {KERN("        pl.system.aic_initialize_pipe(a)\n"), 6, 9, "pl.system.aic_initialize_pipe is Ascend-specific" RING},
        {KERN("        x = pl.system.import_peer_buffer\n"), 6, 13, "pl.system.import_peer_buffer is Ascend-specific" RING},
        {KERN("        x = pl.AUTO\n"), 6, 13, "pl.AUTO is Ascend-specific" RING},
        /* the catalog reaches the ring primitives as pl.<name> too */
        {KERN("        pl.tpush_to_aiv(a)\n"), 6, 9, "pl.tpush_to_aiv is Ascend-specific" RING},
        {KERN("        x = pl.tpop_from_aic(a)\n"), 6, 13, "pl.tpop_from_aic is Ascend-specific" RING},
        {KERN("        x = pl.reserve_buffer(a)\n"), 6, 13, "pl.reserve_buffer is Ascend-specific" RING},
    };
    RUN(rows);
}

static void test_ascend_device_barriers(void **s)
{
    (void)s;
    static const ascend_case rows[] = {
        {CTRL("    pl.system.syncall()\n"), 5, 5, "pl.system.syncall is Ascend-specific" BARRIER},
        {KERN("        pl.system.fence()\n"), 6, 9, "pl.system.fence is Ascend-specific" BARRIER},
        {KERN("        n = pl.system.available_aiv_count()\n"), 6, 13, "pl.system.available_aiv_count is Ascend-specific" BARRIER},
    };
    RUN(rows);
}

static void test_ascend_micro_scaling_spellings(void **s)
{
    (void)s;
    static const ascend_case rows[] = {
        {KERN("        t = pl.gemv_mx(a, a)\n"), 6, 13, "pl.gemv_mx is Ascend-specific" MX},
        {KERN("        t = pl.move(pl.load(a, [0, 0], [8, 8]), target_memory=pl.MemorySpace.RightScale)\n"), 6, 63,
         "pl.MemorySpace.RightScale is Ascend-specific" MX},
        {CTRL("    x = pl.DataType.FP8\n"), 5, 9, "dtype pl.DataType.FP8 is Ascend-specific" MX},
    };
    RUN(rows);
}

static void test_ascend_layout_spellings(void **s)
{
    (void)s;
    static const ascend_case rows[] = {
        {KERN("        t = pl.matmul(a, a, c_matrix_nz=True)\n"), 6, 29, "c_matrix_nz= is Ascend-specific" LAYOUT},
        {HDR "@pl.jit\ndef f(a: pl.Tensor[[8, 8], pl.FP32, pl.DN], out: pl.Out[pl.Tensor]):\n    return out\n", 4, 37,
         "pl.DN is Ascend-specific" LAYOUT},
        {HDR "@pl.jit\ndef f(a: pl.Tensor[[8, 8], pl.FP32, pl.TensorView(layout=pl.NZ)], out: pl.Out[pl.Tensor]):\n    return out\n",
         4, 58, "pl.NZ is Ascend-specific" LAYOUT},
        {CTRL("    x = pl.TensorView(stride=[8, 1], layout=pl.Layout.DN)\n"), 5, 45, "pl.Layout.DN is Ascend-specific" LAYOUT},
    };
    RUN(rows);
}

static void test_ascend_extern_kernels(void **s)
{
    (void)s;
    static const ascend_case rows[] = {
        {HDR "@pl.jit.extern\ndef g(out):\n    return out\n\n" ENTRY "    g(out)\n    return out\n", 3, 2,
         "@pl.jit.extern is Ascend-specific" EXTERN},
        {HDR "@pl.jit.extern(name=\"x\")\ndef g(out):\n    return out\n\n" ENTRY "    g(out)\n    return out\n", 3, 2,
         "@pl.jit.extern is Ascend-specific" EXTERN},
        {PROG("type=pl.FunctionType.InCore, external_source=\"k.cpp\""), 5, 47, "external_source= is Ascend-specific" EXTERN},
    };
    RUN(rows);
}

static void test_ascend_function_kinds_and_core_types(void **s)
{
    (void)s;
    static const ascend_case rows[] = {
        {PROG("type=pl.FunctionType.AIV"), 5, 23, "pl.FunctionType.AIV is Ascend-specific" KIND},
        {PROG("type=pl.FunctionType.Spmd"), 5, 23, "pl.FunctionType.Spmd is Ascend-specific" KIND},
        {PROG("type=pl.FunctionType.InCore, role=1"), 5, 47, "role= is Ascend-specific" KIND},
        {PROG("type=pl.FunctionType.InCore, level=pl.Level.AIC"), 5, 53, "pl.Level.AIC is Ascend-specific" KIND},
        {PROG("level=pl.Level.AIV"), 5, 24, "pl.Level.AIV is Ascend-specific" KIND},
        {CTRL("    with pl.at(level=pl.Level.AIC):\n        pass\n"), 5, 22, "pl.Level.AIC is Ascend-specific" KIND},
    };
    RUN(rows);
}

static void test_ascend_memref_address_forms(void **s)
{
    (void)s;
    static const ascend_case rows[] = {
        {KERN("        x: pl.Tile[[8, 8], pl.FP32, pl.MemRef(\"ub\", 0, 256), pl.Mem.Vec] = pl.load(a, [0, 0], [8, 8])\n"), 6, 37,
         "pl.MemRef(<base or addr>, <offset>, <size>) is Ascend-specific" ADDRESS},
        {KERN("        x: pl.Tile[[8, 8], pl.FP32, pl.MemRef(addr=0), pl.Mem.Vec] = pl.load(a, [0, 0], [8, 8])\n"), 6, 47,
         "addr= is Ascend-specific" ADDRESS},
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

/* Every hardware-internal member (names.h's CC_PL_MEMBER_LIST), used as a value, gets its reason. */
static void test_ascend_every_hardware_member_of_the_table(void **s)
{
    (void)s;
    static const struct {
        const char *parent, *member;
        cc_pl_reason reason;
    } rows[] = {
#define MEMBER_ROW_(p, m, r) {#p, #m, CC_PLR_##r},
        CC_PL_MEMBER_LIST(MEMBER_ROW_)
#undef MEMBER_ROW_
    };
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        char src[256], msg[256];
        snprintf(src, sizeof src, CTRL("    x = pl.%s.%s\n"), rows[k].parent, rows[k].member);
        snprintf(msg, sizeof msg, "pl.%s.%s is Ascend-specific: %s" TAIL, rows[k].parent, rows[k].member, cc_pl_reason_text(rows[k].reason));
        assert_int_equal(cc_pl_member_reason(rows[k].parent, rows[k].member), rows[k].reason);
        ascend_case c = {src, 5, 9, msg};
        ascend_run(&c, 1);
    }
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_ascend_every_hardware_member_of_the_table),
    cmocka_unit_test(test_ascend_vector_lane_constructs),
    cmocka_unit_test(test_ascend_micro_scaling_dtypes_and_ops),
    cmocka_unit_test(test_ascend_fractal_layouts),
    cmocka_unit_test(test_ascend_role_keyword_selects_a_core_type),
    cmocka_unit_test(test_ascend_every_hardware_name_of_the_table),
    cmocka_unit_test(test_ascend_ring_primitives),
    cmocka_unit_test(test_ascend_device_barriers),
    cmocka_unit_test(test_ascend_micro_scaling_spellings),
    cmocka_unit_test(test_ascend_layout_spellings),
    cmocka_unit_test(test_ascend_extern_kernels),
    cmocka_unit_test(test_ascend_function_kinds_and_core_types),
    cmocka_unit_test(test_ascend_memref_address_forms),
};

PTO_TEST_MAIN(tests)
