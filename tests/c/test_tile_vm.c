/*
 * test_tile_vm.c - the tile VM on kernels compiled through pto_compile:
 * whole-tensor views (origins 0), real buffers, results against a plain
 * reference; the seed page's two kernels; run-time errors with the
 * instruction's line; footprint-box views with non-zero origins; the
 * float-only unary ops (log, rsqrt, recip) bit for bit against libm.
 */
#include <math.h>
#include <stdlib.h>

#include "harness.h"
#include "dsl_compile.h"

#include "compiler/compile_int.h"
#include "exec/tile_vm.h"

#define ROWS 256
#define COLS 128

static const char seed_src[] =
    "import pypto.language as pl\n"
    "N, TR, TC = 4, 64, 128\n"
    "@pl.jit(auto_scope=False)\n"
    "def manual_placement(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
    "    with pl.scope():\n"
    "        for i in pl.range(N):\n"
    "            with pl.at(level=pl.Level.CORE_GROUP):\n"
    "                t = pl.load(a, [i * TR, 0], [TR, TC])\n"
    "                pl.store(pl.mul(t, 2.0), [i * TR, 0], out)\n"
    "        with pl.scope():\n"
    "            with pl.at(level=pl.Level.CORE_GROUP):\n"
    "                for i in pl.range(N):\n"
    "                    t = pl.load(out, [i * TR, 0], [TR, TC])\n"
    "                    pl.store(pl.add(t, 1.0), [i * TR, 0], out)\n"
    "    return out\n";

static const cc_lowered *lowered_of(pto_program *p)
{
    const cc_lowered *l = cc_program_lowered(p);
    if (!l) dsl_dump_diags(p);
    assert_non_null(l);
    return l;
}

/* Runs kernel k on whole-tensor views of the given [ROWS, COLS] FP32 buffers. */
static int run_kernel(const cc_lowered *l, const cc_lo_proc *k, float **bufs, uint32_t nbufs, const uint64_t *scal, uint32_t nscal,
                      char *msg, size_t cap)
{
    pto_view views[4];
    uint64_t s[32];
    uint32_t n = 0;
    for (uint32_t i = 0; i < nscal; i++) s[n++] = scal[i];
    for (uint32_t v = 0; v < nbufs; v++) s[n++] = 0, s[n++] = 0;
    for (uint32_t v = 0; v < nbufs; v++) views[v] = pto_view_2d(bufs[v], 4, 0, ROWS, COLS, COLS, 0);
    pto_kernel_args args = {.num_views = nbufs, .views = views, .num_scalars = n, .scalars = s, .message = msg, .message_len = cap};
    return ex_tile_run(l, k, &args);
}

static float *make_input(void)
{
    float *a = malloc(sizeof(float) * ROWS * COLS);
    for (int i = 0; i < ROWS * COLS; i++) a[i] = (float)((i * 37) % 101) / 8.0f - 6.0f;
    return a;
}

static void test_tile_vm_runs_the_seed_manual_placement_kernels(void **state)
{
    (void)state;
    pto_program *p = dsl_compile(seed_src, "manual_placement", PTO_STAGE_ALL);
    const cc_lowered *l = lowered_of(p);
    assert_int_equal(l->nkernels, 2);
    float *a = make_input(), *out = calloc(ROWS * COLS, sizeof(float));
    char msg[256] = "";
    float *bufs[] = {a, out};
    /* phase 1: one task per row tile, i as the scalar */
    for (uint64_t i = 0; i < 4; i++) {
        const cc_lo_proc *k = &l->kernels[0];
        int rc = run_kernel(l, k, bufs, 2, &i, 1, msg, sizeof msg);
        if (rc) fail_msg("%s", msg);
    }
    for (int i = 0; i < ROWS * COLS; i++) assert_true(out[i] == a[i] * 2.0f);
    /* phase 2: one task, the loop over four row tiles inside */
    float *bufs2[] = {out};
    int rc = run_kernel(l, &l->kernels[1], bufs2, 1, NULL, 0, msg, sizeof msg);
    if (rc) fail_msg("%s", msg);
    for (int i = 0; i < ROWS * COLS; i++) assert_true(out[i] == a[i] * 2.0f + 1.0f);
    free(a), free(out);
    pto_program_free(p);
}

static const char ops_src[] =
    "import pypto.language as pl\n"
    "@pl.jit\n"
    "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
    "    with pl.at(level=pl.Level.CORE_GROUP):\n"
    "        for i in pl.range(2):\n"
    "            t = pl.load(a, [i * 128, 0], [128, 128])\n"
    "            u = pl.maximum(pl.sub(t, 1.0), pl.neg(t))\n"
    "            s = pl.row_sum(u)\n"
    "            pl.store(pl.div(u, 4), [i * 128, 0], out)\n"
    "    return out\n";

static void test_tile_vm_element_wise_chain_matches_reference(void **state)
{
    (void)state;
    pto_program *p = dsl_compile(ops_src, "f", PTO_STAGE_ALL);
    const cc_lowered *l = lowered_of(p);
    float *a = make_input(), *out = calloc(ROWS * COLS, sizeof(float));
    float *bufs[] = {a, out};
    char msg[256] = "";
    if (run_kernel(l, &l->kernels[0], bufs, 2, NULL, 0, msg, sizeof msg)) fail_msg("%s", msg);
    for (int i = 0; i < ROWS * COLS; i++) {
        float x = a[i], y = x - 1.0f, z = -x, m = y > z ? y : z;
        assert_true(out[i] == m / 4.0f);
    }
    free(a), free(out);
    pto_program_free(p);
}

static const char oob_src[] =
    "import pypto.language as pl\n"
    "@pl.jit\n"
    "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
    "    with pl.at(level=pl.Level.CORE_GROUP):\n"
    "        for i in pl.range(5):\n"
    "            t = pl.load(a, [i * 50, 0], [64, 128])\n"
    "            pl.store(t, [0, 0], out)\n"
    "    return out\n";

static void test_tile_vm_out_of_bounds_load_fails_with_its_line(void **state)
{
    (void)state;
    pto_program *p = dsl_compile(oob_src, "f", PTO_STAGE_ALL);
    const cc_lowered *l = lowered_of(p);
    float *a = make_input(), *out = calloc(ROWS * COLS, sizeof(float));
    float *bufs[] = {a, out};
    char msg[256] = "";
    int rc = run_kernel(l, &l->kernels[0], bufs, 2, NULL, 0, msg, sizeof msg);
    assert_int_equal(rc, -1);
    assert_string_equal(msg, "pl.load reads past the end of dimension 0: offset 200 + extent 64 exceeds the source extent 256. (at k.py:6)");
    free(a), free(out);
    pto_program_free(p);
}

static void test_tile_vm_footprint_box_views_use_whole_tensor_offsets(void **state)
{
    (void)state;
    pto_program *p = dsl_compile(seed_src, "manual_placement", PTO_STAGE_ALL);
    const cc_lowered *l = lowered_of(p);
    float *a = make_input(), *out = calloc(ROWS * COLS, sizeof(float));
    char msg[256] = "";
    /* task i = 2: a whole, out the rows [128, 192) box */
    pto_view views[] = {pto_view_2d(a, 4, 0, ROWS, COLS, COLS, 0), pto_view_2d(out, 4, 128 * COLS, 64, COLS, COLS, 0)};
    uint64_t s[] = {2, 0, 0, 128, 0}; /* i, then the origins of a and out */
    pto_kernel_args args = {.num_views = 2, .views = views, .num_scalars = 5, .scalars = s, .message = msg, .message_len = sizeof msg};
    if (ex_tile_run(l, &l->kernels[0], &args)) fail_msg("%s", msg);
    for (int i = 0; i < ROWS * COLS; i++) assert_true(out[i] == (i / COLS >= 128 && i / COLS < 192 ? a[i] * 2.0f : 0.0f));
    /* a wrong layout is refused, not run */
    args.num_scalars = 3;
    assert_int_equal(ex_tile_run(l, &l->kernels[0], &args), -1);
    assert_non_null(strstr(msg, "expects 2 views and 5 scalars"));
    free(a), free(out);
    pto_program_free(p);
}

/* pl.log, pl.rsqrt, pl.recip (recip with its no-effect hint) against libm's
 * FP32 arithmetic, element for element. */
static void test_tile_vm_float_unary_ops_match_libm(void **state)
{
    (void)state;
    static const char *const exprs[] = {"pl.log(t)", "pl.rsqrt(t)", "pl.recip(t)", "pl.recip(t, high_precision=True)"};
    char src[512];
    for (size_t e = 0; e < sizeof exprs / sizeof exprs[0]; e++) {
        snprintf(src, sizeof src,
                 "import pypto.language as pl\n@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                 "    with pl.at(level=pl.Level.CORE_GROUP):\n        t = pl.load(a, [0, 0], [256, 128])\n"
                 "        pl.store(%s, [0, 0], out)\n    return out\n",
                 exprs[e]);
        pto_program *p = dsl_compile(src, "f", PTO_STAGE_ALL);
        const cc_lowered *l = lowered_of(p);
        float *a = make_input(), *out = calloc(ROWS * COLS, sizeof(float));
        for (int i = 0; i < ROWS * COLS; i++) a[i] = fabsf(a[i]) + (float)(i % 3) * 0.25f; /* positive, some zeros */
        float *bufs[] = {a, out};
        char msg[256] = "";
        if (run_kernel(l, &l->kernels[0], bufs, 2, NULL, 0, msg, sizeof msg)) fail_msg("%s", msg);
        for (int i = 0; i < ROWS * COLS; i++) {
            float x = a[i], want = e == 0 ? logf(x) : e == 1 ? 1.0f / sqrtf(x) : 1.0f / x;
            if (memcmp(&out[i], &want, sizeof want)) fail_msg("%s at %d: %a, want %a", exprs[e], i, (double)out[i], (double)want);
        }
        free(a), free(out);
        pto_program_free(p);
    }
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_tile_vm_runs_the_seed_manual_placement_kernels),
    cmocka_unit_test(test_tile_vm_element_wise_chain_matches_reference),
    cmocka_unit_test(test_tile_vm_out_of_bounds_load_fails_with_its_line),
    cmocka_unit_test(test_tile_vm_footprint_box_views_use_whole_tensor_offsets),
    cmocka_unit_test(test_tile_vm_float_unary_ops_match_libm),
};

PTO_TEST_MAIN(tests)
