/*
 * test_exec_errors.c - the executor's edges: scalar arithmetic as Python
 * computes it (compiler/scalar.c), argument binding errors (ex_bind), run-time
 * orchestration errors (a zero pl.range step, too many task scalars) and
 * capacity errors of tiny rings that end the run with the runtime's error and leave it reusable, and the
 * scope-stats file of a DSL run naming the rings the page predicts.
 */
#include <dirent.h>
#include <ftw.h>
#include <stdlib.h>

#include "compiler/program.h"
#include "exec/orch_vm.h"
#include "harness.h"
#include "dsl_compile.h"
#include "dsl_examples.h"

static int64_t bin_i(cc_op op, cc_dtype d, int64_t a, int64_t b)
{
    ex_reg r;
    assert_int_equal(cc_scalar_bin(op, d, (ex_reg){.i = a}, (ex_reg){.i = b}, &r), 0);
    return r.i;
}

static double bin_f(cc_op op, double a, double b)
{
    ex_reg r;
    assert_int_equal(cc_scalar_bin(op, CC_DT_FP32, (ex_reg){.f = a}, (ex_reg){.f = b}, &r), 0);
    return r.f;
}

static int64_t cast_fi(double v, cc_dtype to, cc_cast_mode m) { return cc_scalar_cast(CC_DT_FP32, to, m, (ex_reg){.f = v}).i; }

static void test_exec_scalar_arithmetic(void **state)
{
    (void)state;
    assert_int_equal(bin_i(CC_OP_FLOORDIV, CC_DT_INDEX, -7, 2), -4);
    assert_int_equal(bin_i(CC_OP_FLOORDIV, CC_DT_INDEX, 7, -2), -4);
    assert_int_equal(bin_i(CC_OP_MOD, CC_DT_INDEX, -7, 3), 2);
    assert_int_equal(bin_i(CC_OP_MOD, CC_DT_INDEX, 7, -3), -2);
    assert_int_equal(bin_i(CC_OP_MOD, CC_DT_INDEX, INT64_MIN, -1), 0);
    assert_int_equal(bin_i(CC_OP_ADD, CC_DT_INT32, INT32_MAX, 1), INT32_MIN);
    assert_int_equal(bin_i(CC_OP_MUL, CC_DT_INT8, 100, 3), 44);
    assert_int_equal(bin_i(CC_OP_MIN, CC_DT_INDEX, -3, 2), -3);
    assert_int_equal(bin_i(CC_OP_LE, CC_DT_INDEX, 2, 2), 1);
    assert_int_equal(bin_i(CC_OP_AND, CC_DT_BOOL, 1, 0), 0);
    ex_reg r;
    assert_int_equal(cc_scalar_bin(CC_OP_FLOORDIV, CC_DT_INDEX, (ex_reg){.i = 1}, (ex_reg){.i = 0}, &r), -1);
    assert_int_equal(cc_scalar_bin(CC_OP_MOD, CC_DT_INT32, (ex_reg){.i = 1}, (ex_reg){.i = 0}, &r), -1);
    assert_true(bin_f(CC_OP_FLOORDIV, -7.5, 2.0) == -4.0);
    assert_true(bin_f(CC_OP_MOD, -7.5, 2.0) == 0.5);
    assert_true(bin_f(CC_OP_MOD, 7.5, -2.0) == -0.5);
    assert_int_equal(bin_i(CC_OP_LT, CC_DT_FP32, 0, 0), 0);
    /* casts: round half away from zero, rint to even, floor, ceil, trunc; saturating; NaN -> 0 */
    assert_int_equal(cast_fi(-2.5, CC_DT_INDEX, CC_CAST_ROUND), -3);
    assert_int_equal(cast_fi(2.5, CC_DT_INDEX, CC_CAST_RINT), 2);
    assert_int_equal(cast_fi(-2.5, CC_DT_INDEX, CC_CAST_FLOOR), -3);
    assert_int_equal(cast_fi(-2.5, CC_DT_INDEX, CC_CAST_CEIL), -2);
    assert_int_equal(cast_fi(-2.5, CC_DT_INDEX, CC_CAST_TRUNC), -2);
    assert_int_equal(cast_fi(1e10, CC_DT_INT32, CC_CAST_ROUND), INT32_MAX);
    assert_int_equal(cast_fi(-1e10, CC_DT_INT8, CC_CAST_ROUND), INT8_MIN);
    assert_int_equal(cast_fi(1e300, CC_DT_INDEX, CC_CAST_ROUND), INT64_MAX);
    assert_int_equal(cast_fi(0.0 / 0.0, CC_DT_INT32, CC_CAST_ROUND), 0);
    assert_int_equal(cc_scalar_cast(CC_DT_INDEX, CC_DT_INT8, 0, (ex_reg){.i = 300}).i, 127);
    assert_true(cc_scalar_cast(CC_DT_INDEX, CC_DT_FP32, 0, (ex_reg){.i = 16777217}).f == 16777216.0);
    /* len(range(...)) */
    assert_int_equal(ex_trips(3, -1, -1), 4);
    assert_int_equal(ex_trips(0, 10, 3), 4);
    assert_int_equal(ex_trips(0, 0, 1), 0);
    assert_int_equal(ex_trips(5, 0, 1), 0);
    assert_int_equal(ex_trips(0, 5, -1), 0);
    assert_int_equal(ex_trips(INT64_MIN, INT64_MAX, INT64_MAX), 3);
}

static int nop_kernel(const cc_lowered *l, const cc_lo_proc *k, const pto_kernel_args *a)
{
    (void)l, (void)k, (void)a;
    return 0;
}

static float A[256 * 128], OUT[256 * 128];

#define TENSOR(nm, ptr, r0, r1) {nm, {.kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .base = ptr, .rank = 2, .shape = {r0, r1}}}

static void expect_bind_error(const pto_run_arg *args, size_t n, const char *frag)
{
    pto_program *p = dsl_compile(dsl_seed_script, "manual_placement", PTO_STAGE_ALL);
    dsl_expect_ok(p);
    ex_value params[4];
    pto_error err;
    assert_int_equal(ex_bind(cc_program_lowered(p), args, n, params, &err), -PTO_INVALID_ARGS);
    assert_int_equal(err.code, PTO_INVALID_ARGS);
    if (!strstr(err.message, frag)) fail_msg("message \"%s\" lacks \"%s\"", err.message, frag);
    pto_program_free(p);
}

static void test_exec_bind_errors(void **state)
{
    (void)state;
    pto_run_arg ok[] = {TENSOR("a", A, 256, 128), TENSOR("out", OUT, 256, 128)};
    expect_bind_error(ok, 1, "missing a required argument: 'out'");
    pto_run_arg bad_shape[] = {TENSOR("a", A, 128, 128), TENSOR("out", OUT, 256, 128)};
    expect_bind_error(bad_shape, 2, "argument 'a' has shape [128, 128] but the program was compiled for [256, 128]");
    pto_run_arg bad_dtype[] = {TENSOR("a", A, 256, 128), TENSOR("out", OUT, 256, 128)};
    bad_dtype[1].value.dtype = PTO_DTYPE_INT32;
    expect_bind_error(bad_dtype, 2, "argument 'out' has dtype INT32 but the program was compiled for FP32");
    pto_run_arg unknown[] = {TENSOR("a", A, 256, 128), TENSOR("b", OUT, 256, 128)};
    expect_bind_error(unknown, 2, "unexpected keyword argument 'b'");
    pto_run_arg twice[] = {TENSOR(NULL, A, 256, 128), TENSOR("a", OUT, 256, 128)};
    expect_bind_error(twice, 2, "multiple values for argument 'a'");
    pto_run_arg extra[] = {TENSOR(NULL, A, 256, 128), TENSOR(NULL, OUT, 256, 128), TENSOR(NULL, OUT, 256, 128)};
    expect_bind_error(extra, 3, "takes 2 arguments but 3 were given");
    pto_run_arg scalar[] = {TENSOR("a", A, 256, 128), {"out", {.kind = PTO_ARG_SCALAR, .value = {.kind = PTO_VALUE_INT, .i = 1}}}};
    expect_bind_error(scalar, 2, "argument 'out' must be a tensor");
    /* by position, then by name: both bind */
    pto_program *p = dsl_compile(dsl_seed_script, "manual_placement", PTO_STAGE_ALL);
    ex_value params[2];
    pto_run_arg pos[] = {TENSOR(NULL, A, 256, 128), TENSOR(NULL, OUT, 256, 128)};
    assert_int_equal(ex_bind(cc_program_lowered(p), pos, 2, params, NULL), 0);
    assert_true(params[0].tensor.base == A && params[1].tensor.base == OUT);
    assert_int_equal(params[1].tensor.strides[0], 128);
    pto_run_arg named[] = {TENSOR("out", OUT, 256, 128), TENSOR("a", A, 256, 128)};
    assert_int_equal(ex_bind(cc_program_lowered(p), named, 2, params, NULL), 0);
    assert_true(params[0].tensor.base == A && params[1].tensor.base == OUT);
    pto_program_free(p);
    assert_int_equal(ex_bind(NULL, pos, 2, params, NULL), -PTO_INVALID_ARGS);
}

/* Runs entry of src on a runtime (stats under dir when given); returns the rc, err filled. */
static int run_src(pto_runtime *rt, const char *src, const char *entry, pto_error *err)
{
    pto_program *p = dsl_compile(src, entry, PTO_STAGE_ALL);
    dsl_expect_ok(p);
    const cc_lowered *l = cc_program_lowered(p);
    pto_run_arg args[] = {TENSOR("a", A, 256, 128), TENSOR("out", OUT, 256, 128)};
    ex_value params[2];
    assert_int_equal(ex_bind(l, args, 2, params, err), 0);
    int rc = ex_orch_run(rt, l, nop_kernel, params, l->procs[0].nparams);
    if (rc) *err = *pto_runtime_error(rt);
    pto_program_free(p);
    return rc;
}

#define HDR "import pypto.language as pl\n\n"
#define AT0 "    with pl.at(level=pl.Level.CORE_GROUP):\n"
#define AT "    " AT0

static void test_exec_runtime_errors(void **state)
{
    (void)state;
    pto_runtime *rt = NULL;
    pto_error err;
    assert_int_equal(pto_runtime_create(NULL, &rt, &err), 0);
    /* a step computed at run time that is zero */
    static const char zero_step[] = HDR "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                                        "    s = 1\n    while s > 0:\n        s = s - 1\n"
                                        "    for i in pl.range(0, 4, s):\n" AT
                                        "            pl.store(pl.load(a, [0, 0], [64, 128]), [0, 0], out)\n    return out\n";
    assert_int_equal(run_src(rt, zero_step, "f", &err), -PTO_EXPLICIT_ORCH_FATAL);
    if (!strstr(err.message, "pl.range() step must be non-zero at k.py:8:5")) fail_msg("%s", err.message);
    /* the runtime runs again */
    assert_int_equal(run_src(rt, dsl_seed_script, "manual_placement", &err), 0);
    pto_runtime_destroy(rt);
}

/* Tiny rings through the DSL: the runtime's capacity errors, whole; the runtime runs again. */
static void test_exec_capacity_errors(void **state)
{
    (void)state;
    pto_config cfg;
    memset(&cfg, 0, sizeof cfg);
    for (int r = 0; r < PTO_NUM_RINGS; r++) cfg.runtime_env.ring_task_window[r] = 4, cfg.runtime_env.ring_heap[r] = 1024;
    pto_runtime *rt = NULL;
    pto_error err;
    assert_int_equal(pto_runtime_create(&cfg, &rt, &err), 0);
    static const char window[] = HDR "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                                     "    with pl.manual_scope():\n"
                                     "        for i in pl.range(8):\n" "    " AT
                                     "                pl.store(pl.load(a, [0, 0], [64, 128]), [0, 0], out)\n    return out\n";
    assert_int_equal(run_src(rt, window, "f", &err), -PTO_SCOPE_DEADLOCK);
    if (!strstr(err.message, "raise ring_task_window (runtime_env.ring_task_window) or split the scope")) fail_msg("%s", err.message);
    static const char heap[] = HDR "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
                                   "    tmp = pl.create_tensor([256, 128], pl.FP32)\n" AT0
                                   "        pl.store(pl.load(a, [0, 0], [64, 128]), [0, 0], tmp)\n" AT0
                                   "        pl.store(pl.load(tmp, [0, 0], [64, 128]), [0, 0], out)\n    return out\n";
    int rc = run_src(rt, heap, "f", &err);
    assert_true(rc == -PTO_HEAP_RING_DEADLOCK);
    if (!strstr(err.message, "ring_heap")) fail_msg("%s", err.message);
    static const char small[] = HDR "@pl.jit\ndef f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n" AT0
                                    "        pl.store(pl.load(a, [0, 0], [64, 128]), [0, 0], out)\n    return out\n";
    assert_int_equal(run_src(rt, small, "f", &err), 0);
    pto_runtime_destroy(rt);
}

static int rm_entry(const char *p, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)sb, (void)type, (void)ftw;
    return remove(p);
}

/* The number of scope records of file's at site line with tasks on ring. */
static int ring_of_site(const char *text, int line)
{
    char key[64];
    snprintf(key, sizeof key, "k.py:%d\"", line);
    const char *s = strstr(text, key);
    if (!s) return -1;
    const char *r = strstr(s, "\"ring\": ");
    return r ? atoi(r + 8) : -1;
}

static void test_exec_scope_stats_rings(void **state)
{
    (void)state;
    char dir[] = "/tmp/pto_exec_stats_XXXXXX";
    assert_non_null(mkdtemp(dir));
    pto_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.enable_scope_stats = 1;
    cfg.output_prefix = dir;
    pto_runtime *rt = NULL;
    pto_error err;
    assert_int_equal(pto_runtime_create(&cfg, &rt, &err), 0);
    assert_int_equal(run_src(rt, dsl_seed_script, "manual_placement", &err), 0);
    char path[256];
    snprintf(path, sizeof path, "%s/scope_stats/scope_stats.jsonl", dir);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = 0;
    fclose(f);
    /* phase 1's scope (the `with pl.scope()` at line 19) on ring 0, phase 2's (line 24) on ring 1 */
    if (ring_of_site(text, 19) != 0 || ring_of_site(text, 24) != 1) fail_msg("%s", text);
    pto_runtime_destroy(rt);
    nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_exec_scalar_arithmetic),
    cmocka_unit_test(test_exec_bind_errors),
    cmocka_unit_test(test_exec_runtime_errors),
    cmocka_unit_test(test_exec_scope_stats_rings),
    cmocka_unit_test(test_exec_capacity_errors),
};

PTO_TEST_MAIN(tests)
