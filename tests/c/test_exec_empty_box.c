/*
 * test_exec_empty_box.c - a task's views are its footprint boxes clamped
 * to the tensor, and a box that clamps to empty gets the whole tensor
 * (docs/dsl.md, "Running a compiled program from C"), never a view of 0
 * rows: a kernel whose loop runs zero trips (its box [0:0]) still names
 * the tensors it may touch.  The tasks are run by a recording kernel
 * (ex_orch_run's run_kernel) that keeps each one's view shapes and
 * scalars (the box origins last).
 */
#include <pthread.h>
#include <string.h>

#include "compiler/program.h"
#include "exec/orch_vm.h"
#include "harness.h"
#include "dsl_compile.h"

typedef struct box_rec {
    uint64_t shape[2][2]; /* views a, out: rows, columns */
    int64_t n, origin_rows[2];
} box_rec;

static pthread_mutex_t box_mu = PTHREAD_MUTEX_INITIALIZER;
static box_rec box_recs[8];
static int nbox_recs;

static int box_record(const cc_lowered *l, const cc_lo_proc *k, const pto_kernel_args *a)
{
    (void)l, (void)k;
    pthread_mutex_lock(&box_mu);
    if (nbox_recs < 8 && a->num_views == 2 && a->num_scalars == 5) { /* n, then the origins of a and out */
        box_rec *r = &box_recs[nbox_recs++];
        for (int v = 0; v < 2; v++) r->shape[v][0] = a->views[v].shape[0], r->shape[v][1] = a->views[v].shape[1];
        r->n = (int64_t)a->scalars[0], r->origin_rows[0] = (int64_t)a->scalars[1], r->origin_rows[1] = (int64_t)a->scalars[3];
    }
    pthread_mutex_unlock(&box_mu);
    return 0;
}

static void test_a_footprint_box_that_clamps_to_empty_gets_the_whole_tensor(void **s)
{
    (void)s;
    static const char src[] = "import pypto.language as pl\n\n"
                              "@pl.jit.incore\ndef k(a: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar[pl.INDEX]):\n"
                              "    for i in pl.range(n):\n"
                              "        pl.store(pl.load(a, [i * 64, 0], [64, 128]), [i * 64, 0], out)\n"
                              "    return out\n\n"
                              "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                              "    for j in pl.range(2):\n" /* j = 0: k's loop runs no trip, its boxes are [0:0] */
                              "        out = k(a, out, j)\n"
                              "    return out\n";
    pto_program *p = dsl_compile(src, "f", PTO_STAGE_ALL);
    dsl_expect_ok(p);
    static float a[256 * 128], out[256 * 128];
    pto_run_arg args[] = {
        {"a", {.kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .base = a, .rank = 2, .shape = {256, 128}}},
        {"out", {.kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .base = out, .rank = 2, .shape = {256, 128}}},
    };
    const cc_lowered *l = cc_program_lowered(p);
    ex_value params[2];
    pto_error err;
    assert_int_equal(l->procs[0].nparams, 2);
    assert_int_equal(ex_bind(l, args, 2, params, &err), 0);
    pto_runtime *rt = NULL;
    assert_int_equal(pto_runtime_create(NULL, &rt, &err), 0);
    nbox_recs = 0;
    assert_int_equal(ex_orch_run(rt, l, box_record, params, 2), 0);
    assert_int_equal(nbox_recs, 2);
    for (int t = 0; t < 2; t++) {
        const box_rec *r = &box_recs[box_recs[0].n == t ? 0 : 1];
        assert_int_equal(r->n, t);
        for (int v = 0; v < 2; v++) {
            assert_int_equal(r->shape[v][0], t ? 64 : 256); /* n = 0: the whole tensor, not 0 rows */
            assert_int_equal(r->shape[v][1], 128);
            assert_int_equal(r->origin_rows[v], 0);
        }
    }
    pto_runtime_destroy(rt);
    pto_program_free(p);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_a_footprint_box_that_clamps_to_empty_gets_the_whole_tensor),
};

PTO_TEST_MAIN(tests)
