/*
 * test_dsl_later.c - what v1 names and rejects (docs/dsl.md, "Not in this version"):
 * every construct of every docs/dsl.md, "Not in this version" row embedded in a small program, each an
 * UnsupportedFeatureError "... is not supported ..." at the construct's
 * line:col; and the Python statements of docs/dsl.md, "Statements"'s last paragraph, each
 * "Python '<construct>' is not supported in kernel code".  One table per
 * docs/dsl.md, "Not in this version" row.
 * Hardware-internal constructs: test_dsl_ascend_specific.c.
 */
#include <stdlib.h>

#include "harness.h"
#include "dsl_compile.h"

#define HDR "import pypto.language as pl\n\n"
#define ENTRY "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
#define KERNEL_K "@pl.jit.incore\ndef k(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n    pl.store(pl.load(a, [0, 0], [8, 8]), [0, 0], out)\n    return out\n\n"

typedef enum {
    CTRL,   /* body of the entry f(a, out), from line 5, indent 4 */
    KERN,   /* body of a pl.at(CORE_GROUP) in f, from line 6, indent 8 */
    CALLER, /* body of f after an InCore kernel k(a, out), from line 10, indent 4 */
    RAW,    /* the whole file after the import line and a blank line (line 3 on) */
} later_where;

typedef struct later_case {
    later_where where;
    const char *body;
    int line, col;
    const char *msg; /* the exact message */
} later_case;

static void later_run(const later_case *c, size_t n)
{
    char src[2048];
    for (size_t k = 0; k < n; k++) {
        switch (c[k].where) {
        case CTRL: snprintf(src, sizeof src, HDR ENTRY "%s    return out\n", c[k].body); break;
        case KERN: snprintf(src, sizeof src, HDR ENTRY "    with pl.at(level=pl.Level.CORE_GROUP):\n%s    return out\n", c[k].body); break;
        case CALLER: snprintf(src, sizeof src, HDR KERNEL_K ENTRY "%s    return out\n", c[k].body); break;
        case RAW: snprintf(src, sizeof src, HDR "%s", c[k].body); break;
        }
        pto_program *p = dsl_compile(src, "f", PTO_STAGE_LOWER);
        size_t nd = pto_program_diag_count(p);
        const pto_diagnostic *d = nd ? pto_program_diag(p, 0) : NULL;
        if (!d || strcmp(d->message, c[k].msg) || !strstr(d->message, "is not supported"))
            fprintf(stderr, "row %zu: expected \"%s\"\n%s", k, c[k].msg, src);
        dsl_expect_error(p, "UnsupportedFeatureError", c[k].msg, c[k].line, c[k].col);
        assert_string_equal(d->message, c[k].msg);
        assert_non_null(strstr(d->message, "is not supported"));
        pto_program_free(p);
    }
}

#define RUN(rows) later_run(rows, sizeof rows / sizeof rows[0])
#define PASS8 "\n        pass\n"
#define PASS12 "\n            pass\n"

/* ---- SPMD: the keywords of a later package (DSL-V2-SPEC §8) ------------------------------------ */

static void test_dsl_later_spmd_keywords(void **s)
{
    (void)s;
    static const later_case rows[] = {
        {CTRL, "    for i in pl.spmd(4, predicate=True):" PASS8, 5, 25, "pl.spmd(predicate=...) is not supported in this version"},
        {CTRL, "    with pl.spmd(4, allow_early_resolve=True):" PASS8, 5, 21,
         "pl.spmd(allow_early_resolve=...) is not supported in this version"},
    };
    RUN(rows);
}

/* ---- later: distributed --------------------------------------------------------------------- */

static void test_dsl_later_distributed(void **s)
{
    (void)s;
    static const later_case rows[] = {
        {CTRL, "    x = pl.distributed.world_size()\n", 5, 9, "pl.distributed.world_size is not supported in this version"},
        {CTRL, "    c = pl.DistributedConfig()\n", 5, 9, "pl.DistributedConfig is not supported in this version"},
    };
    RUN(rows);
}

/* ---- later: data movement and views ---------------------------------------------------------- */

static void test_dsl_later_data_movement_and_views(void **s)
{
    (void)s;
    static const later_case rows[] = {
        {CTRL, "    x = pl.array([1, 2])\n", 5, 9, "pl.array is not supported in this version"},
        {RAW, "@pl.jit\ndef f(a: pl.TensorView, out: pl.Out[pl.Tensor]):\n    return out\n", 4, 10, "pl.TensorView is not supported in this version"},
    };
    RUN(rows);
}

/* ---- later: dependency opt-outs ------------------------------------------------------------ */

#define MANUAL "    with pl.manual_scope():\n"

/* dumps= stays later; no_dep_args=, pl.no_dep, manual_dep=, predicate= and
 * allow_early_resolve= are DSL-V2-SPEC §8's (test_dsl_deps.c). */
static void test_dsl_later_dependency_opt_outs(void **s)
{
    (void)s;
    static const later_case rows[] = {
        {CALLER, MANUAL "        o, t = pl.submit(k, a, out, dumps=[a])\n", 11, 37, "pl.submit(dumps=...) is not supported in this version"},
        {CTRL, "    with pl.at(level=pl.Level.CORE_GROUP, dumps=[a]):" PASS8, 5, 43, "pl.at(dumps=...) is not supported in this version"},
        {CTRL, "    ids = pl.array([0, 1], pl.TASK_ID)\n", 5, 11, "pl.array is not supported in this version"}, /* TaskId arrays */
    };
    RUN(rows);
}

/* ---- later: ops not in "Operations" ---------------------------------------------------------- */

static void test_dsl_later_ops_outside_v1(void **s)
{
    (void)s;
    static const char *const ops[] = {"expand", "sort", "atomic_add"};
    char body[128], msg[128];
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        snprintf(body, sizeof body, "        t = pl.%s(a, a)\n", ops[k]);
        snprintf(msg, sizeof msg, "pl.%s is not supported in this version", ops[k]);
        later_case c = {KERN, body, 6, 13, msg};
        later_run(&c, 1);
    }
    static const later_case rows[] = {
        {KERN, "        t = pl.tile.expand(a)\n", 6, 13, "pl.tile.expand is not supported in this version"},
    };
    RUN(rows);
}

/* ---- later: misc ---------------------------------------------------------------------------- */

static void test_dsl_later_misc(void **s)
{
    (void)s;
    static const later_case rows[] = {
        {RAW, "@pl.jit\ndef f(a: pl.Tensor[[pl.dynamic(\"M\"), 128], pl.FP32], out: pl.Out[pl.Tensor]):\n    return out\n", 4, 21,
         "an inline pl.dynamic(...) is not supported in this version"},
        {RAW, "@pl.jit\ndef f(a: pl.Tile[[64, 128], pl.FP32], out: pl.Out[pl.Tensor]):\n    return out\n", 4, 10, "a pl.Tile annotation of an entry parameter or of a result of a function that is not inline is not supported in this version"},
        {CTRL, "    pl.func_attr(a)\n", 5, 5, "pl.func_attr is not supported in this version"},
        {KERN, "        t = pl.cast(pl.load(a, [0, 0], [64, 128]), pl.UINT64)\n", 6, 52, "dtype pl.UINT64 is not supported in this version"},
        {CTRL, "    x = pl.create_tensor([64, 128], pl.UINT64)\n", 5, 37, "dtype pl.UINT64 is not supported in this version"},
        {CTRL, "    x = pl.create_tensor([64, 128], pl.FP32, layout=\"NZ\")\n", 5, 53, "a layout other than pl.ND is not supported in this version"},
        {RAW, "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar[pl.UINT4]):\n    return out\n", 4, 58,
         "dtype pl.UINT4 is not supported in this version"},
    };
    RUN(rows);
}

/* ---- later constructs at their line:col ------------------------------------------------------ */

static void test_dsl_later_b07_forms(void **s)
{
    (void)s;
    static const later_case rows[] = {
        {CTRL, "    g = lambda x: x\n", 5, 9, "a lambda is not supported in this version"},
        {CTRL, "    for i in pl.range(4):\n        break\n", 6, 9, "Python 'break' is not supported in kernel code"},
    };
    RUN(rows);
}

/* ---- docs/dsl.md, "Expressions": expression forms that are later ----------------------------- */

static void test_dsl_later_expression_forms(void **s)
{
    (void)s;
    static const later_case rows[] = {
        {CTRL, "    x = 1 if 2 > 1 else 0\n", 5, 11, "a conditional expression is not supported in this version"},
        {CTRL, "    x = [i for i in pl.range(4)]\n", 5, 12, "a comprehension is not supported in this version"},
        {CTRL, "    x = 1 < 2 < 3\n", 5, 15, "a chained comparison is not supported in this version"},
        {CTRL, "    x = f\"{a}\"\n", 5, 9, "an f-string is not supported in this version"},
        {CTRL, "    x = {1: 2}\n", 5, 9, "a dict or set literal is not supported in this version"},
    };
    RUN(rows);
}

/* ---- docs/dsl.md, "Statements": Python statements outside the DSL ---------------------------- */

static void test_dsl_later_python_statements(void **s)
{
    (void)s;
    static const later_case rows[] = {
        {CTRL, "    for i in pl.range(4):\n        break\n", 6, 9, "Python 'break' is not supported in kernel code"},
        {KERN, "        for i in pl.range(4):\n            continue\n", 7, 13, "Python 'continue' is not supported in kernel code"},
        {CTRL, "    try:\n        pass\n    except Exception:\n        pass\n", 5, 5, "Python 'try' is not supported in kernel code"},
        {CTRL, "    raise ValueError(\"x\")\n", 5, 5, "Python 'raise' is not supported in kernel code"},
        {KERN, "        assert 1 > 0\n", 6, 9, "Python 'assert' is not supported in kernel code"},
        {CTRL, "    x = 1\n    del x\n", 6, 5, "Python 'del' is not supported in kernel code"},
        {CTRL, "    global g\n", 5, 5, "Python 'global' is not supported in kernel code"},
        {CTRL, "    nonlocal g\n", 5, 5, "Python 'nonlocal' is not supported in kernel code"},
        {CTRL, "    import math\n", 5, 5, "Python 'import' is not supported in kernel code"},
        {CTRL, "    from math import sqrt\n", 5, 5, "Python 'import' is not supported in kernel code"},
        {CTRL, "    def g():" PASS8, 5, 5, "Python 'nested def' is not supported in kernel code"},
        {CTRL, "    @pl.jit\n    def g():" PASS8, 5, 5, "Python 'nested def' is not supported in kernel code"},
        {CTRL, "    class G:" PASS8, 5, 5, "Python 'nested class' is not supported in kernel code"},
        {CTRL, "    match a:\n        case 1:\n            pass\n", 5, 5, "Python 'match' is not supported in kernel code"},
        {CTRL, "    async with pl.at(level=pl.Level.CORE_GROUP):" PASS8, 5, 5, "Python 'async' is not supported in kernel code"},
        {CTRL, "    async for i in pl.range(4):" PASS8, 5, 5, "Python 'async' is not supported in kernel code"},
        {RAW, "@pl.jit\nasync def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n    return out\n", 4, 1,
         "Python 'async' is not supported in kernel code"},
        {CTRL, "    if (n := 3) > 2:" PASS8, 5, 11, "Python ':=' is not supported in kernel code"},
        {KERN, "        x = (n := 3)\n", 6, 16, "Python ':=' is not supported in kernel code"},
        {CTRL, "    yield out\n", 5, 5, "Python 'yield' is not supported in kernel code"},
    };
    RUN(rows);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_dsl_later_spmd_keywords),
    cmocka_unit_test(test_dsl_later_distributed),
    cmocka_unit_test(test_dsl_later_data_movement_and_views),
    cmocka_unit_test(test_dsl_later_dependency_opt_outs),
    cmocka_unit_test(test_dsl_later_ops_outside_v1),
    cmocka_unit_test(test_dsl_later_misc),
    cmocka_unit_test(test_dsl_later_b07_forms),
    cmocka_unit_test(test_dsl_later_expression_forms),
    cmocka_unit_test(test_dsl_later_python_statements),
};

PTO_TEST_MAIN(tests)
