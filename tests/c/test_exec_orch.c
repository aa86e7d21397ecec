/*
 * test_exec_orch.c - the orchestration interpreter (src/exec/orch_vm.c) on
 * DSL compiled through pto_compile: every task is run by a recording C
 * kernel (ex_orch_run's run_kernel), so the tests see each submit's
 * kernel, ring, boxes and scalars; the seed's two phases are also computed
 * in C to show the dependencies hold.  Binding errors through ex_bind.
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "compiler/program.h"
#include "exec/orch_vm.h"
#include "harness.h"
#include "dsl_compile.h"
#include "dsl_corpus.h"

#define MAX_REC 64

typedef struct rec {
    char kernel[64];
    int ring;
    uint32_t nviews, nscalars;
    uint64_t shape[4][2];
    int64_t offset[4];
    int64_t scalars[PTO_MAX_SCALAR_ARGS];
} rec;

static pthread_mutex_t rec_mu = PTHREAD_MUTEX_INITIALIZER;
static rec recs[MAX_REC];
static int nrecs;
static int compute; /* run the seed kernels' arithmetic too */

static int record_kernel(const cc_lowered *l, const cc_lo_proc *k, const pto_kernel_args *a)
{
    (void)l;
    if (!strcmp(k->name, "scale") && (a->task_id >> 32) == 1 && a->scalars[0] == 0) {
        struct timespec ts = {0, 30 * 1000 * 1000}; /* the pl.submit other tasks wait on (deps=[t1]) */
        nanosleep(&ts, NULL);
    }
    pthread_mutex_lock(&rec_mu);
    if (nrecs < MAX_REC) {
        rec *r = &recs[nrecs++];
        snprintf(r->kernel, sizeof r->kernel, "%s", k->name);
        r->ring = (int)(a->task_id >> 32);
        r->nviews = a->num_views, r->nscalars = a->num_scalars;
        for (uint32_t i = 0; i < a->num_views && i < 4; i++)
            r->shape[i][0] = a->views[i].shape[0], r->shape[i][1] = a->views[i].shape[1], r->offset[i] = a->views[i].offset;
        for (uint32_t i = 0; i < a->num_scalars; i++) r->scalars[i] = (int64_t)a->scalars[i];
    }
    pthread_mutex_unlock(&rec_mu);
    if (!compute) return 0;
    /* phase 1 (2 views): out[box] = a[box] * 2; phase 2 (1 view): out += 1 */
    const pto_view *o = &a->views[a->num_views - 1], *in = &a->views[0];
    float *ob = (float *)o->addr + o->offset, *ib = (float *)in->addr + in->offset;
    for (uint64_t i = 0; i < o->shape[0] * o->shape[1]; i++) ob[i] = a->num_views == 2 ? ib[i] * 2.0f : ob[i] + 1.0f;
    return 0;
}

static pto_runtime *make_rt(const pto_config *cfg)
{
    pto_runtime *rt = NULL;
    pto_error err;
    assert_int_equal(pto_runtime_create(cfg, &rt, &err), 0);
    return rt;
}

/* Compiles src's entry (a, out: [256, 128] FP32) and runs it on a and out with the recording kernel. */
static int run_dsl(const char *src, const char *entry, float *a, float *out, const pto_config *cfg, pto_error *err)
{
    pto_program *p = dsl_compile(src, entry, PTO_STAGE_ALL);
    dsl_expect_ok(p);
    pto_runtime *rt = make_rt(cfg);
    pto_run_arg args[] = {
        {"a", {.kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .base = a, .rank = 2, .shape = {256, 128}}},
        {"out", {.kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .base = out, .rank = 2, .shape = {256, 128}}},
        {"w", {.kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .base = a, .rank = 2, .shape = {128, 128}}},
    };
    const cc_lowered *l = cc_program_lowered(p);
    size_t n = l->procs[0].nparams;
    ex_value params[3];
    nrecs = 0;
    int rc = ex_bind(l, args, n, params, err);
    assert_int_equal(rc, 0);
    rc = ex_orch_run(rt, l, record_kernel, params, n);
    if (rc) *err = *pto_runtime_error(rt);
    pto_runtime_destroy(rt);
    pto_program_free(p);
    return rc;
}

static int count(const char *kernel_suffix, int ring)
{
    int n = 0;
    for (int i = 0; i < nrecs; i++) {
        size_t kl = strlen(recs[i].kernel), sl = strlen(kernel_suffix);
        n += kl >= sl && !strcmp(recs[i].kernel + kl - sl, kernel_suffix) && (ring < 0 || recs[i].ring == ring);
    }
    return n;
}

static void dump(void)
{
    for (int i = 0; i < nrecs; i++) {
        fprintf(stderr, "%s ring=%d views=%u [", recs[i].kernel, recs[i].ring, recs[i].nviews);
        for (uint32_t v = 0; v < recs[i].nviews; v++)
            fprintf(stderr, " %llux%llu@%lld", (unsigned long long)recs[i].shape[v][0], (unsigned long long)recs[i].shape[v][1],
                    (long long)recs[i].offset[v]);
        fprintf(stderr, " ] scalars=");
        for (uint32_t s = 0; s < recs[i].nscalars; s++) fprintf(stderr, "%lld ", (long long)recs[i].scalars[s]);
        fprintf(stderr, "\n");
    }
}

static void test_exec_manual_placement(void **state)
{
    (void)state;
    float *a = malloc(256 * 128 * sizeof *a), *out = calloc(256 * 128, sizeof *out);
    for (int i = 0; i < 256 * 128; i++) a[i] = (float)(i % 97) - 40.0f;
    pto_error err;
    compute = 1;
    assert_int_equal(run_dsl(dsl_seed_script, "manual_placement", a, out, NULL, &err), 0);
    compute = 0;
    if (nrecs != 5) dump();
    assert_int_equal(nrecs, 5);
    assert_int_equal(count("_incore_0", 0), 4);
    assert_int_equal(count("_incore_1", 1), 1);
    int seen = 0;
    for (int i = 0; i < nrecs; i++) {
        rec *r = &recs[i];
        if (r->nviews == 2) {
            /* i, then the origins of a and out */
            int64_t k = r->scalars[0];
            assert_true(k >= 0 && k < 4);
            seen |= 1 << k;
            assert_int_equal(r->nscalars, 5);
            for (int v = 0; v < 2; v++) {
                assert_int_equal(r->shape[v][0], 64), assert_int_equal(r->shape[v][1], 128);
                assert_int_equal(r->offset[v], k * 64 * 128);
            }
            int64_t want[] = {k, k * 64, 0, k * 64, 0};
            for (int s = 0; s < 5; s++) assert_int_equal(r->scalars[s], want[s]);
        } else {
            assert_int_equal(r->nviews, 1);
            assert_int_equal(r->shape[0][0], 256), assert_int_equal(r->offset[0], 0);
            assert_int_equal(r->nscalars, 2);
            assert_int_equal(r->scalars[0], 0), assert_int_equal(r->scalars[1], 0);
        }
    }
    assert_int_equal(seen, 15);
    for (int i = 0; i < 256 * 128; i++) assert_true(out[i] == a[i] * 2.0f + 1.0f);
    free(a), free(out);
}

static void test_exec_scaled_and_orch(void **state)
{
    (void)state;
    float *a = calloc(256 * 128, sizeof *a), *out = calloc(256 * 128, sizeof *out);
    pto_error err;
    assert_int_equal(run_dsl(dsl_seed_script, "scaled", a, out, NULL, &err), 0);
    assert_int_equal(nrecs, 1);
    assert_int_equal(recs[0].ring, 0);
    assert_int_equal(recs[0].shape[0][0], 256);
    assert_int_equal(run_dsl(dsl_orch_program, "Orch", a, out, NULL, &err), 0);
    assert_int_equal(nrecs, 4);
    assert_int_equal(count("kernel", 1), 4);
    free(a), free(out);
}

static void test_exec_surface(void **state)
{
    (void)state;
    float *a = calloc(256 * 128, sizeof *a), *out = calloc(256 * 128, sizeof *out);
    pto_error err;
    int rc = run_dsl(dsl_surface_program, "surface", a, out, NULL, &err);
    if (rc) fprintf(stderr, "%s\n", err.message);
    assert_int_equal(rc, 0);
    /* while n < 3 -> n == 3; for i in range(3, -1, -1): i=3 else (ring 3, row min(3,2)*64),
     * i=2 if (ring 2), i=1 elif (ring 3), i=0 if (ring 2); the manual scope (ring 1): two
     * pl.submits and a pl.at with deps; the Opaque phase(): two tasks in its loop (ring 2) */
    static const char *const want[] = {"scale 3 128", "scale 2 128", "surface_incore_0 3 1", "scale 2 0",
                                       "scale 1 0", "surface_incore_1 1 0", "scale 1 64", "ph 2 0", "ph 2 1"};
    int n = (int)(sizeof want / sizeof want[0]), at[9];
    if (nrecs != n) dump();
    assert_int_equal(nrecs, n);
    for (int w = 0; w < n; w++) {
        at[w] = -1;
        for (int i = 0; i < nrecs; i++) {
            char key[128];
            snprintf(key, sizeof key, "%.63s %d %lld", recs[i].kernel, recs[i].ring, (long long)recs[i].scalars[0]);
            if (!strcmp(key, want[w])) at[w] = i;
        }
        if (at[w] < 0) {
            dump();
            fail_msg("no task %s", want[w]);
        }
    }
    /* deps=[t1] and deps=[t1, t2] in the manual scope: both ran after t1 (which sleeps) */
    assert_true(at[5] > at[4] && at[6] > at[4]);
    /* the elif's pl.at: a's box [0:64], w whole, tmp's box [64:128] */
    rec *r = &recs[at[2]];
    assert_int_equal(r->nviews, 3);
    assert_int_equal(r->shape[1][0], 128), assert_int_equal(r->offset[2], 64 * 128);
    free(a), free(out);
}

/* A scalar parameter: bound by position, handed to the kernel as its register's 64 bits. */
static void test_exec_scalar_param(void **state)
{
    (void)state;
    static const char src[] = "import pypto.language as pl\n\n"
                              "@pl.jit.incore\n"
                              "def k(x: pl.Tensor, y: pl.Out[pl.Tensor], f):\n"
                              "    pl.store(pl.mul(pl.load(x, [0, 0], [64, 128]), f), [0, 0], y)\n"
                              "    return y\n\n"
                              "@pl.jit\n"
                              "def f(a: pl.Tensor, out: pl.Out[pl.Tensor], n):\n"
                              "    for i in pl.range(n - 1, -1, -1):\n"
                              "        out = k(a, out, i * n // 2 - n % 2)\n"
                              "    return out\n";
    pto_arg_spec specs[] = {dsl_default_args[0], dsl_default_args[1],
                            {.name = "n", .kind = PTO_ARG_SCALAR, .value = {.kind = PTO_VALUE_INT, .i = 3}}};
    pto_program *p = dsl_compile_with(src, "f", PTO_STAGE_ALL, 0, specs, 3);
    dsl_expect_ok(p);
    static float a[256 * 128], out[256 * 128];
    pto_run_arg args[] = {
        {NULL, {.kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .base = a, .rank = 2, .shape = {256, 128}}},
        {NULL, {.kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .base = out, .rank = 2, .shape = {256, 128}}},
        {NULL, {.kind = PTO_ARG_SCALAR, .value = {.kind = PTO_VALUE_INT, .i = 3}}},
    };
    const cc_lowered *l = cc_program_lowered(p);
    ex_value params[3];
    pto_error err;
    assert_int_equal(ex_bind(l, args, 3, params, &err), 0);
    pto_runtime *rt = make_rt(NULL);
    nrecs = 0;
    assert_int_equal(ex_orch_run(rt, l, record_kernel, params, 3), 0);
    /* i = 2, 1, 0: i * 3 // 2 - 1 = 2, 0, -1 */
    assert_int_equal(nrecs, 3);
    int seen[3] = {0, 0, 0};
    for (int i = 0; i < 3; i++) {
        int64_t v = recs[i].scalars[0];
        assert_true(v == 2 || v == 0 || v == -1);
        seen[v == 2 ? 0 : v == 0 ? 1 : 2]++;
        assert_int_equal(recs[i].ring, 1);
    }
    assert_true(seen[0] == 1 && seen[1] == 1 && seen[2] == 1);
    pto_runtime_destroy(rt);
    pto_program_free(p);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_exec_scalar_param),
    cmocka_unit_test(test_exec_manual_placement),
    cmocka_unit_test(test_exec_scaled_and_orch),
    cmocka_unit_test(test_exec_surface),
};

PTO_TEST_MAIN(tests)
