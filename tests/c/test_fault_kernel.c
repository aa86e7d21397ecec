/*
 * test_fault_kernel.c - a task failing in the middle of a graph, through
 * the C API and through the DSL (docs/runtime.md, "Errors", codes 9 and 12;
 * docs/dsl.md, "Errors": a run-time failure inside a tile program).
 *
 * Rules tested: the run ends with the failure's code and a message naming
 * the task (and, from the DSL, the op and its file:line); no task that
 * depends on the failed one runs; the run ends (no hang; ctest's timeout
 * bounds it); pto_runtime_finish / pto_program_run returns the error and
 * clears it, so the next run on the same runtime works and gives the right
 * numbers (docs/runtime.md, "The C API" pto_finish: "return 0 or the latched -code and
 * clear the latch, leaving the runtime reusable").  Leaks: make test-asan.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "dsl_compile.h"
#include "dsl_examples.h"
#include "e2e.h"
#include "pto/run.h"

/* ---- a layered graph through the C API --------------------------------- */

#define LAYERS 6
#define WIDTH 8

/* Cells of layer l; every task of layer l + 1 reads all of layer l. */
static uint64_t g_cells[LAYERS][WIDTH];
static atomic_int g_ran[LAYERS][WIDTH];
static atomic_int g_release; /* gated kernels wait for it (bounded) */
static char g_names[LAYERS][WIDTH][24]; /* task names: they must outlive the run */

/* scalars: layer, column, rc to return (0 = work), gate (wait for g_release).
 * Work: cell = 1 + sum of the previous layer's cells (views[1..]). */
static int k_layer(const pto_kernel_args *a)
{
    int l = (int)a->scalars[0], c = (int)a->scalars[1], rc = (int)a->scalars[2];
    atomic_store(&g_ran[l][c], 1);
    if (a->scalars[3]) {
        uint64_t end = now_ms() + 10000;
        while (!atomic_load(&g_release) && now_ms() < end) nap_ms(1);
    }
    if (rc) {
        snprintf(a->message, a->message_len, "layer %d column %d refused", l, c);
        return rc;
    }
    uint64_t sum = 1;
    for (uint32_t v = 1; v < a->num_views; v++) sum += *(uint64_t *)a->views[v].addr;
    *(uint64_t *)a->views[0].addr = sum;
    return 0;
}

/* Submits the graph, layer l in a scope of depth l % 3 (so rings 0-2 hold
 * it); fail[l][c] is the rc task (l, c) returns.  Returns the id of the
 * first failing task, if any. */
static pto_task_id submit_layers(pto_runtime *rt, int fail[LAYERS][WIDTH])
{
    pto_task_id failing = PTO_INVALID_TASK_ID;
    for (int l = 0; l < LAYERS; l++) {
        int depth = l % 3;
        for (int d = 0; d <= depth; d++) pto_scope_begin(rt, PTO_SCOPE_AUTO, "graph.c", 100 + l * 10 + d);
        for (int c = 0; c < WIDTH; c++) {
            pto_arg args[1 + WIDTH];
            uint32_t n = 0;
            args[n++] = arg(PTO_ARG_OUTPUT_EXISTING, v1(&g_cells[l][c], 0, 1));
            for (int p = 0; l > 0 && p < WIDTH; p++) args[n++] = arg(PTO_ARG_IN, v1(&g_cells[l - 1][p], 0, 1));
            uint64_t sc[4] = {(uint64_t)l, (uint64_t)c, (uint64_t)fail[l][c], 0};
            snprintf(g_names[l][c], sizeof g_names[l][c], fail[l][c] ? "failer_%d_%d" : "layer", l, c);
            pto_task t = {k_layer, NULL, g_names[l][c], args, n, sc, 4, NULL, 0, 0};
            pto_task_id id = PTO_INVALID_TASK_ID;
            pto_task_submit(rt, &t, &id); /* may return the latched error once a kernel failed */
            if (fail[l][c] && failing == PTO_INVALID_TASK_ID) failing = id;
        }
        for (int d = 0; d <= depth; d++) pto_scope_end(rt);
    }
    return failing;
}

static void reset_layers(void)
{
    memset(g_cells, 0, sizeof g_cells);
    for (int l = 0; l < LAYERS; l++)
        for (int c = 0; c < WIDTH; c++) atomic_store(&g_ran[l][c], 0);
    atomic_store(&g_release, 1);
}

/* The values a full run gives: layer l's cells all equal v[l]. */
static void expect_layers_complete(void)
{
    uint64_t want = 1;
    for (int l = 0; l < LAYERS; l++) {
        for (int c = 0; c < WIDTH; c++)
            if (g_cells[l][c] != want) fail_msg("cell %d,%d = %llu, want %llu", l, c, (unsigned long long)g_cells[l][c], (unsigned long long)want);
        want = 1 + WIDTH * want;
    }
}

/* One kernel of layer 3 (depth 0, ring 0) fails with rc 7 in a 6 x 8 graph: the message names its task, kernel, rc, worker, text and scope; no
 * task of layers 4-5 runs (each reads all of layer 3); the next run on the
 * same runtime completes with the right values. */
static void test_kernel_failure_mid_graph_names_the_task(void **state)
{
    (void)state;
    pto_runtime *rt = make_rt_rings(0, 0, 0, 4, E2E_NO_STALL_MS);
    int fail[LAYERS][WIDTH] = {{0}};
    fail[3][5] = 7;
    reset_layers();
    pto_task_id id = submit_layers(rt, fail);
    assert_true(id != PTO_INVALID_TASK_ID);
    int rc = pto_runtime_finish(rt);
    expect_code(rt, rc, PTO_KERNEL_FAILED);
    const pto_error *e = pto_runtime_error(rt);
    assert_int_equal(e->ring, 0);
    char head[128];
    snprintf(head, sizeof head, "FATAL: Kernel Failed! task=0:%u ring=0\n  kernel=failer_3_5 rc=7 worker=",
             (unsigned)(uint32_t)id);
    if (strncmp(e->message, head, strlen(head))) fail_msg("want a message starting\n%s\ngot\n%s", head, e->message);
    expect_frag(rt, " message=layer 3 column 5 refused; scope=graph.c:130 depth=0\n");
    expect_frag(rt, "PTO runtime failed: error_code=12 runtime_status=-12\n");
    expect_frag(rt, "error detail: error_code=12 KERNEL_FAILED - a kernel returned non-zero\n");
    expect_frag(rt, "error hint: the kernel itself reported the failure; tasks not yet started were skipped; no "
                    "RunConfig field helps");
    for (int l = 4; l < LAYERS; l++)
        for (int c = 0; c < WIDTH; c++)
            if (atomic_load(&g_ran[l][c])) fail_msg("task %d,%d ran after its producer 3,5 failed", l, c);
    for (int l = 0; l < 3; l++)
        for (int c = 0; c < WIDTH; c++) assert_int_equal(atomic_load(&g_ran[l][c]), 1);

    /* the latch is cleared; the error stays readable as the last run's */
    assert_int_equal(pto_runtime_error(rt)->code, PTO_KERNEL_FAILED);
    int none[LAYERS][WIDTH] = {{0}};
    reset_layers();
    submit_layers(rt, none);
    finish_ok(rt);
    expect_layers_complete();
    pto_runtime_destroy(rt);
}

/* Every kernel of layer 2 fails at once, each with its own rc: one message
 * (the first latched) names one of them whole; the next run works. */
static void test_kernel_failures_at_once_latch_one(void **state)
{
    (void)state;
    pto_runtime *rt = make_rt_rings(0, 0, 0, 4, E2E_NO_STALL_MS);
    int fail[LAYERS][WIDTH] = {{0}};
    for (int c = 0; c < WIDTH; c++) fail[2][c] = 20 + c;
    reset_layers();
    submit_layers(rt, fail);
    expect_code(rt, pto_runtime_finish(rt), PTO_KERNEL_FAILED);
    const char *m = pto_runtime_error(rt)->message;
    int c = -1, rc = -1;
    const char *k = strstr(m, "kernel=failer_2_");
    assert_non_null(k);
    assert_int_equal(sscanf(k, "kernel=failer_2_%d rc=%d", &c, &rc), 2);
    assert_true(c >= 0 && c < WIDTH);
    assert_int_equal(rc, 20 + c);
    char text[64];
    snprintf(text, sizeof text, "message=layer 2 column %d refused; scope=graph.c:122 depth=2", c);
    expect_frag(rt, text);
    assert_null(strstr(strstr(m, "error hint:"), "FATAL")); /* one message, not two */
    assert_int_equal(pto_runtime_error(rt)->ring, 2);
    int none[LAYERS][WIDTH] = {{0}};
    reset_layers();
    submit_layers(rt, none);
    finish_ok(rt);
    expect_layers_complete();
    pto_runtime_destroy(rt);
}

/* A kernel that fills its whole message buffer with no terminator: the
 * message is cut to the buffer, the rest of the error intact. */
static int k_unterminated(const pto_kernel_args *a)
{
    memset(a->message, 'x', a->message_len);
    return -1;
}

static void test_kernel_failure_message_unterminated_is_cut(void **state)
{
    (void)state;
    pto_runtime *rt = make_rt_rings(0, 0, 0, 2, E2E_NO_STALL_MS);
    pto_task t = {k_unterminated, NULL, "shouter", NULL, 0, NULL, 0, NULL, 0, 0};
    check_submit(rt, &t, NULL);
    expect_code(rt, pto_runtime_finish(rt), PTO_KERNEL_FAILED);
    expect_frag(rt, "  kernel=shouter rc=-1 worker=");
    expect_frag(rt, "xxxxxxxx");
    expect_frag(rt, "\nerror hint: the kernel itself reported the failure");
    reset_layers();
    int none[LAYERS][WIDTH] = {{0}};
    submit_layers(rt, none);
    finish_ok(rt);
    expect_layers_complete();
    pto_runtime_destroy(rt);
}

/* The orchestration reports a fatal (pto_runtime_fail) while layer 1's
 * kernels are held running: the message names the text and the scope; the
 * running kernels finish, no later kernel starts, later calls return the
 * latched code, and the next run works. */
static void test_orchestration_failure_mid_graph(void **state)
{
    (void)state;
    pto_runtime *rt = make_rt_rings(0, 0, 0, 4, E2E_NO_STALL_MS);
    int none[LAYERS][WIDTH] = {{0}};
    reset_layers();
    atomic_store(&g_release, 0);
    for (int l = 0; l < 2; l++) {
        pto_scope_begin(rt, PTO_SCOPE_AUTO, "orch.c", 40 + l);
        for (int c = 0; c < WIDTH; c++) {
            pto_arg args[1 + WIDTH];
            uint32_t n = 0;
            args[n++] = arg(PTO_ARG_OUTPUT_EXISTING, v1(&g_cells[l][c], 0, 1));
            for (int p = 0; l > 0 && p < WIDTH; p++) args[n++] = arg(PTO_ARG_IN, v1(&g_cells[l - 1][p], 0, 1));
            uint64_t sc[4] = {(uint64_t)l, (uint64_t)c, 0, 1};
            pto_task t = {k_layer, NULL, "layer", args, n, sc, 4, NULL, 0, 0};
            check_submit(rt, &t, NULL);
        }
    }
    int rc = pto_runtime_fail(rt, "bad shape %d at step %s", 3, "two");
    expect_code(rt, rc, PTO_EXPLICIT_ORCH_FATAL);
    assert_string_equal(pto_runtime_error(rt)->message,
                        "FATAL: Orchestration Reported Fatal: bad shape 3 at step two\n"
                        "  at: scope=orch.c:41 depth=1 ring=1\n"
                        "PTO runtime failed: error_code=9 runtime_status=-9\n"
                        "error detail: error_code=9 EXPLICIT_ORCH_FATAL - orchestration code called pto_runtime_fail\n"
                        "error hint: reported by the orchestration code itself; no RunConfig field helps");
    /* later calls do nothing and return the latched code */
    uint64_t sc[4] = {5, 0, 0, 0};
    pto_arg a[1] = {arg(PTO_ARG_OUTPUT_EXISTING, v1(&g_cells[5][0], 0, 1))};
    pto_task t = {k_layer, NULL, "late", a, 1, sc, 4, NULL, 0, 0};
    pto_task_id late = 0;
    assert_int_equal(pto_task_submit(rt, &t, &late), -PTO_EXPLICIT_ORCH_FATAL);
    assert_true(late == PTO_INVALID_TASK_ID);
    atomic_store(&g_release, 1);
    pto_scope_end(rt);
    pto_scope_end(rt);
    expect_code(rt, pto_runtime_finish(rt), PTO_EXPLICIT_ORCH_FATAL);
    assert_int_equal(atomic_load(&g_ran[5][0]), 0);
    for (int c = 0; c < WIDTH; c++) assert_int_equal(atomic_load(&g_ran[1][c]), 0);

    reset_layers();
    submit_layers(rt, none);
    finish_ok(rt);
    expect_layers_complete();
    pto_runtime_destroy(rt);
}

/* ---- the DSL: ops failing at run time ---------------------------------- */

#define ROWS 256
#define COLS 128

static pto_run_arg tensor_arg(const char *name, pto_dtype dt, void *base)
{
    return (pto_run_arg){name, {.kind = PTO_ARG_TENSOR, .dtype = dt, .base = base, .rank = 2, .shape = {ROWS, COLS}}};
}

static const pto_arg_spec int_args[] = {
    {.name = "a", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_INT32, .rank = 2, .shape = {ROWS, COLS}},
    {.name = "b", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_INT32, .rank = 2, .shape = {ROWS, COLS}},
    {.name = "out", .kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_INT32, .rank = 2, .shape = {ROWS, COLS}},
};

/* Four tasks, one per 64-row block: out = a // b, then + 1 in a second
 * pass over out.  Line 9 is the division. */
static const char div_src[] =
    "import pypto.language as pl\n"
    "\n"
    "@pl.jit\n"
    "def f(a: pl.Tensor, b: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
    "    for i in pl.range(4):\n"
    "        with pl.at(level=pl.Level.CORE_GROUP):\n"
    "            x = pl.load(a, [i * 64, 0], [64, 128])\n"
    "            y = pl.load(b, [i * 64, 0], [64, 128])\n"
    "            pl.store(pl.div(x, y), [i * 64, 0], out)\n"
    "    for i in pl.range(4):\n"
    "        with pl.at(level=pl.Level.CORE_GROUP):\n"
    "            pl.store(pl.add(pl.load(out, [i * 64, 0], [64, 128]), 1), [i * 64, 0], out)\n"
    "    return out\n";

/* INT32 division by a zero element of b in the third block: the run fails
 * with KERNEL_FAILED naming the task, the outlined kernel and the op's
 * file:line; the second pass never runs on that block; the next run on the
 * same runtime gives a // b + 1. */
static void test_dsl_integer_division_by_zero_mid_graph(void **state)
{
    (void)state;
    pto_runtime *rt = make_rt_rings(0, 0, 0, 4, E2E_NO_STALL_MS);
    pto_program *p = dsl_compile_with(div_src, "f", PTO_STAGE_ALL, 0, int_args, 3);
    dsl_expect_ok(p);
    int32_t *a = malloc(sizeof(int32_t) * ROWS * COLS), *b = malloc(sizeof(int32_t) * ROWS * COLS),
            *out = malloc(sizeof(int32_t) * ROWS * COLS);
    for (int k = 0; k < ROWS * COLS; k++) a[k] = k - 5000, b[k] = 1 + k % 7, out[k] = -77;
    b[130 * COLS + 17] = 0; /* block 2 */
    pto_run_arg args[] = {tensor_arg("a", PTO_DTYPE_INT32, a), tensor_arg("b", PTO_DTYPE_INT32, b),
                          tensor_arg("out", PTO_DTYPE_INT32, out)};
    pto_error err;
    assert_int_equal(pto_program_run(rt, p, args, 3, &err), -PTO_KERNEL_FAILED);
    assert_int_equal(err.code, PTO_KERNEL_FAILED);
    if (strncmp(err.message, "FATAL: Kernel Failed! task=1:", 29) ||
        !strstr(err.message, "\n  kernel=f_incore_0 rc=-1 worker=") ||
        !strstr(err.message, " message=pl.div: integer division by zero (at k.py:9:22); scope=k.py:5 depth=1\n"))
        fail_msg("%s", err.message);
    for (int k = 128 * COLS; k < 192 * COLS; k++)
        if (out[k] != -77) fail_msg("out[%d] = %d: the failed task's block was written", k, out[k]);

    b[130 * COLS + 17] = -3;
    assert_int_equal(pto_program_run(rt, p, args, 3, &err), 0);
    for (int k = 0; k < ROWS * COLS; k++) {
        int32_t q = a[k] / b[k] + 1; /* C division truncates, as pl.div does */
        if (out[k] != q) fail_msg("out[%d] = %d, want %d", k, out[k], q);
    }
    pto_program_free(p);
    pto_runtime_destroy(rt);
    free(a), free(b), free(out);
}

/* A load past the tensor's columns from an offset only the run knows (a
 * kernel scalar computed from the loop), in the third of four tasks. */
static const char oob_src[] =
    "import pypto.language as pl\n"
    "\n"
    "@pl.jit.incore\n"
    "def k(a: pl.Tensor, out: pl.InOut[pl.Tensor], i: pl.Scalar[pl.INDEX], col: pl.Scalar[pl.INDEX]):\n"
    "    t = pl.load(a, [i * 64, col], [64, 64])\n"
    "    pl.store(pl.mul(t, 2.0), [i * 64, 0], out)\n"
    "    return out\n"
    "\n"
    "@pl.jit\n"
    "def f(a: pl.Tensor, out: pl.Out[pl.Tensor]):\n"
    "    for i in pl.range(4):\n"
    "        out = k(a, out, i, (i // 2) * (i % 2 + 1) * 64)\n"
    "    return out\n";

static void test_dsl_dynamic_out_of_bounds_load_mid_graph(void **state)
{
    (void)state;
    pto_runtime *rt = make_rt_rings(0, 0, 0, 4, E2E_NO_STALL_MS);
    pto_program *p = dsl_compile(oob_src, "f", PTO_STAGE_ALL);
    dsl_expect_ok(p);
    float *a = malloc(sizeof(float) * ROWS * COLS), *out = malloc(sizeof(float) * ROWS * COLS);
    for (int k = 0; k < ROWS * COLS; k++) a[k] = (float)(k % 1000), out[k] = 0;
    pto_run_arg args[] = {tensor_arg("a", PTO_DTYPE_FP32, a), tensor_arg("out", PTO_DTYPE_FP32, out)};
    pto_error err;
    /* i = 2: col = 64 (fits); i = 3: col = 128 -> columns 128..191 of 128 */
    assert_int_equal(pto_program_run(rt, p, args, 2, &err), -PTO_KERNEL_FAILED);
    if (strncmp(err.message, "FATAL: Kernel Failed! task=", 27) || !strstr(err.message, "\n  kernel=k rc=-1 worker=") ||
        !strstr(err.message, " message=pl.load reads past the end of dimension 1: offset 128 + extent 64 exceeds "
                             "the source extent 128. (at k.py:5:9); scope="))
        fail_msg("%s", err.message);
    pto_program_free(p);

    /* the next run, another program on the same runtime */
    p = dsl_compile(dsl_seed_script, "manual_placement", PTO_STAGE_ALL);
    dsl_expect_ok(p);
    assert_int_equal(pto_program_run(rt, p, args, 2, &err), 0);
    for (int k = 0; k < ROWS * COLS; k++)
        if (out[k] != a[k] * 2.0f + 1.0f) fail_msg("out[%d] = %g, want %g", k, out[k], a[k] * 2.0f + 1.0f);
    pto_program_free(p);
    pto_runtime_destroy(rt);
    free(a), free(out);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_kernel_failure_mid_graph_names_the_task),
    cmocka_unit_test(test_kernel_failures_at_once_latch_one),
    cmocka_unit_test(test_kernel_failure_message_unterminated_is_cut),
    cmocka_unit_test(test_orchestration_failure_mid_graph),
    cmocka_unit_test(test_dsl_integer_division_by_zero_mid_graph),
    cmocka_unit_test(test_dsl_dynamic_out_of_bounds_load_mid_graph),
};

PTO_TEST_MAIN(tests)
