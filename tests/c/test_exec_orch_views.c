/*
 * test_exec_orch_views.c - orchestration views, copy tasks and element
 * access at run time (src/exec/orch_vm.c; DSL-V2-SPEC §1.3 T-ov, §1.5,
 * §1.7, packages P2-07 and P2-16).  Kernels are C functions chosen by
 * name (ex_orch_run's run_kernel): gates between two tasks prove they run
 * unordered (a dependency edge would hold the gated one until it gives up),
 * a slow writer proves pl.read waits for it.  The copy task of
 * pl.assemble is the interpreter's own.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "compiler/program.h"
#include "exec/orch_vm.h"
#include "harness.h"
#include "dsl_compile.h"

#define HDR "import pypto.language as pl\n\n@pl.program\nclass P:\n"
#define ORCH "    @pl.function(type=pl.FunctionType.Orchestration)\n    def orch(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]):\n"
/* InCore functions whose bodies the C kernels replace (a load keeps the In argument read) */
#define GATED                                                                                                             \
    "    @pl.function(type=pl.FunctionType.InCore)\n"                                                                   \
    "    def gated(self, x: pl.Tensor[[64, 128], pl.FP32], y: pl.Out[pl.Tensor[[64, 128], pl.FP32]]):\n"             \
    "        pl.store(pl.load(x, [0, 0], [64, 128]), [0, 0], y)\n"                                                       \
    "        return y\n"
#define SLOW                                                                                                              \
    "    @pl.function(type=pl.FunctionType.InCore)\n"                                                                   \
    "    def slow(self, x: pl.Tensor[[256, 128], pl.FP32], y: pl.Out[pl.Tensor[[64, 128], pl.FP32]]):\n"            \
    "        pl.store(pl.load(x, [0, 0], [64, 128]), [0, 0], y)\n"                                                      \
    "        return y\n"
#define OPENER                                                                                                            \
    "    @pl.function(type=pl.FunctionType.InCore)\n"                                                                   \
    "    def opener(self, x: pl.Tensor[[64, 128], pl.FP32], y: pl.Out[pl.Tensor[[64, 128], pl.FP32]], v: pl.Scalar[pl.FP32]):\n" \
    "        pl.store(pl.load(x, [0, 0], [64, 128]), [0, 0], y)\n"                                                       \
    "        return y\n"

static atomic_int gate;      /* opened by "opener" */
static atomic_int gate_seen; /* "gated" saw it open */
static float opener_arg;     /* the scalar "opener" received */
static int64_t views_seen[2][3]; /* per task (by name): view 1's offset, rows, cols */

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* gated: waits (up to 1 s, under the stall bound) for the gate, then y = 1; opener: opens it; slow: y = 42 after 50 ms. */
static int view_kernel(const cc_lowered *l, const cc_lo_proc *k, const pto_kernel_args *a)
{
    (void)l;
    const pto_view *y = &a->views[1];
    float *yb = (float *)y->addr + y->offset, fill = 1.0f;
    int is_gated = !strcmp(k->name, "gated");
    int64_t *seen = views_seen[is_gated];
    seen[0] = y->offset, seen[1] = (int64_t)y->shape[0], seen[2] = (int64_t)y->shape[1];
    if (is_gated) {
        for (int i = 0; i < 1000 && !atomic_load(&gate); i++) sleep_ms(1);
        if (!atomic_load(&gate)) return 1;
        atomic_store(&gate_seen, 1);
    } else if (!strcmp(k->name, "opener")) {
        double d; /* an FP32 scalar travels as its register's bits, a double */
        memcpy(&d, &a->scalars[0], sizeof d);
        opener_arg = (float)d;
        atomic_store(&gate, 1);
        fill = 2.0f;
    } else if (!strcmp(k->name, "slow")) {
        sleep_ms(50);
        fill = 42.0f;
    }
    for (uint64_t r = 0; r < y->shape[0]; r++)
        for (uint64_t c = 0; c < y->shape[1]; c++) yb[r * (uint64_t)y->strides[0] + c] = fill;
    return 0;
}

/* Compiles src (class P) and runs it on a and out ([256, 128] FP32) with 4 workers. */
static int run_views(const char *src, float *a, float *out, pto_error *err)
{
    pto_program *p = dsl_compile(src, "P", PTO_STAGE_ALL);
    dsl_expect_ok(p);
    pto_config cfg = {.num_workers = 4};
    pto_runtime *rt = NULL;
    assert_int_equal(pto_runtime_create(&cfg, &rt, err), 0);
    pto_run_arg args[] = {
        {"a", {.kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .base = a, .rank = 2, .shape = {256, 128}}},
        {"out", {.kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .base = out, .rank = 2, .shape = {256, 128}}},
    };
    const cc_lowered *l = cc_program_lowered(p);
    ex_value params[2];
    assert_int_equal(ex_bind(l, args, 2, params, err), 0);
    atomic_store(&gate, 0), atomic_store(&gate_seen, 0);
    int rc = ex_orch_run(rt, l, view_kernel, params, 2);
    if (rc) *err = *pto_runtime_error(rt);
    pto_runtime_destroy(rt);
    pto_program_free(p);
    return rc;
}

static float *zeros(void) { return calloc(256 * 128, sizeof(float)); }

/* P2-07: two kernels on disjoint views of out run unordered (the first
 * waits for the second); each task's view is its window (the footprint). */
static void test_orch_views_disjoint_unordered(void **s)
{
    (void)s;
    static const char src[] = HDR ORCH "        g = self.gated(pl.slice(a, [64, 128], [0, 0]), pl.slice(out, [64, 128], [0, 0]))\n"
                                       "        o = self.opener(pl.slice(a, [64, 128], [64, 0]), pl.slice(out, [64, 128], [64, 0]), 0.5)\n"
                                       "        return out\n" GATED OPENER;
    float *a = zeros(), *out = zeros();
    pto_error err;
    assert_int_equal(run_views(src, a, out, &err), 0);
    assert_int_equal(atomic_load(&gate_seen), 1);
    assert_int_equal(views_seen[1][0], 0), assert_int_equal(views_seen[1][1], 64), assert_int_equal(views_seen[1][2], 128);
    assert_int_equal(views_seen[0][0], 64 * 128), assert_int_equal(views_seen[0][1], 64), assert_int_equal(views_seen[0][2], 128);
    for (int i = 0; i < 256 * 128; i++) assert_true(out[i] == (i < 64 * 128 ? 1.0f : i < 128 * 128 ? 2.0f : 0.0f));
    free(a), free(out);
}

/* The control: overlapping views are ordered, so the gated task gives up. */
static void test_orch_views_overlapping_ordered(void **s)
{
    (void)s;
    static const char src[] = HDR ORCH "        g = self.gated(pl.slice(a, [64, 128], [0, 0]), pl.slice(out, [64, 128], [0, 0]))\n"
                                       "        o = self.opener(pl.slice(a, [64, 128], [64, 0]), pl.slice(out, [64, 128], [32, 0]), 0.5)\n"
                                       "        return out\n" GATED OPENER;
    float *a = zeros(), *out = zeros();
    pto_error err;
    assert_int_equal(run_views(src, a, out, &err), -PTO_KERNEL_FAILED);
    free(a), free(out);
}

/* P2-16: pl.read after a slow kernel wrote the element sees the new value,
 * usable as a kernel argument and by pl.write (which waits for that kernel too). */
static void test_orch_read_waits_for_writer(void **s)
{
    (void)s;
    static const char src[] = HDR ORCH "        o = self.slow(a, pl.slice(out, [64, 128], [0, 0]))\n"
                                       "        x = pl.read(out, [0, 3])\n"
                                       "        pl.write(out, [200, 0], x + 1.0)\n"
                                       "        o = self.opener(pl.slice(a, [64, 128], [64, 0]), pl.slice(out, [64, 128], [128, 0]), x)\n"
                                       "        return out\n" SLOW OPENER;
    float *a = zeros(), *out = zeros();
    pto_error err;
    assert_int_equal(run_views(src, a, out, &err), 0);
    assert_true(opener_arg == 42.0f);
    for (int i = 0; i < 256 * 128; i++) assert_true(out[i] == (i < 64 * 128 ? 42.0f : i < 128 * 128 ? 0.0f : i < 192 * 128 ? 2.0f : i == 200 * 128 ? 43.0f : 0.0f));
    free(a), free(out);
}

/* P2-07: the copy task of an orchestration pl.assemble runs after the
 * (slow) kernel producing its source; only the target window changes. */
static void test_orch_assemble_copy_after_producer(void **s)
{
    (void)s;
    static const char src[] = HDR ORCH "        t = pl.create_tensor([64, 128], pl.FP32)\n"
                                       "        t = self.slow(a, t)\n"
                                       "        out = pl.assemble(out, t, [64, 0])\n"
                                       "        return out\n" SLOW;
    float *a = zeros(), *out = zeros();
    pto_error err;
    assert_int_equal(run_views(src, a, out, &err), 0);
    for (int i = 0; i < 256 * 128; i++) assert_true(out[i] == (i >= 64 * 128 && i < 128 * 128 ? 42.0f : 0.0f));
    free(a), free(out);
}

/* Run-time bounds: pl.slice (a start past the end), pl.assemble and pl.read with a loop index (code 9). */
static void test_orch_views_runtime_oob(void **s)
{
    (void)s;
    static const struct { const char *body, *msg; } cases[] = {
        {"        for i in pl.range(3):\n            v = pl.slice(out, [64, 128], [i * 130, 0])\n",
         "pl.slice: offset 260 is past the end of dimension 0 of extent 256 at k.py:8:17"},
        {"        v = pl.slice(a, [64, 128], [0, 0])\n        for i in pl.range(3):\n            out = pl.assemble(out, v, [0, i * 100])\n",
         "pl.assemble: offset 100 + extent 128 exceeds dimension 1 of extent 128 at k.py:9:19"},
        {"        for i in pl.range(4):\n            x = pl.read(a, [i * 100, 0])\n",
         "pl.read: index 300 is out of range for dimension 0 of extent 256 at k.py:8:17"},
        {"        for i in pl.range(4):\n            pl.write(out, [0, i * 50], 1.0)\n",
         "pl.write: index 150 is out of range for dimension 1 of extent 128 at k.py:8:13"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char src[2048];
        snprintf(src, sizeof src, HDR ORCH "%s        return out\n" SLOW, cases[k].body);
        float *a = zeros(), *out = zeros();
        pto_error err = {0};
        assert_int_equal(run_views(src, a, out, &err), -PTO_EXPLICIT_ORCH_FATAL);
        assert_int_equal(err.code, 9);
        if (!strstr(err.message, cases[k].msg)) fprintf(stderr, "got: %s\nwant: %s\n", err.message, cases[k].msg);
        assert_non_null(strstr(err.message, cases[k].msg));
        free(a), free(out);
    }
}

/* P2-16: a read of an entry input no task writes does not wait, even while
 * a task reading it is held (here until a later task opens its gate). */
static void test_orch_read_entry_input_no_wait(void **s)
{
    (void)s;
    static const char src[] = HDR ORCH "        g = self.gated(pl.slice(a, [64, 128], [0, 0]), pl.slice(out, [64, 128], [0, 0]))\n"
                                       "        x = pl.read(a, [1, 2])\n"
                                       "        o = self.opener(pl.slice(a, [64, 128], [64, 0]), pl.slice(out, [64, 128], [64, 0]), x)\n"
                                       "        return out\n" GATED OPENER;
    float *a = zeros(), *out = zeros();
    a[130] = 6.25f;
    pto_error err;
    assert_int_equal(run_views(src, a, out, &err), 0);
    assert_int_equal(atomic_load(&gate_seen), 1);
    assert_true(opener_arg == 6.25f);
    free(a), free(out);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_orch_views_disjoint_unordered), cmocka_unit_test(test_orch_views_overlapping_ordered),
    cmocka_unit_test(test_orch_read_waits_for_writer),    cmocka_unit_test(test_orch_assemble_copy_after_producer),
    cmocka_unit_test(test_orch_views_runtime_oob),        cmocka_unit_test(test_orch_read_entry_input_no_wait),
};

PTO_TEST_MAIN(tests)
