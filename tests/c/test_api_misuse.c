/*
 * test_api_misuse.c - bad calls through the public API (docs/runtime.md,
 * "Scopes" and "Errors"): every one is reported, latched and recovered from.
 *
 * test_invalid_calls_are_reported: a table of bad calls, each made once on a
 * fresh runtime and once on one runtime that recovers from all of them in
 * turn.  Each must return -PTO_INVALID_ARGS, latch code 5 with the message of
 * section 6 (header with the exact reason, the `call:` line naming the
 * function and the scope, the three fixed lines), allocate nothing; then
 * pto_runtime_finish returns -5 and a one-task run on the same runtime succeeds and
 * leaves every ring empty.
 *
 * test_calls_after_fatal_are_noops: after a latched error (INVALID_ARGS,
 * EXPLICIT_ORCH_FATAL, SCOPE_DEADLOCK) every call returns the latched -code
 * and changes nothing: no task runs, no ring resource moves, the first
 * message stays.  pto_runtime_finish returns it, and the next run succeeds.
 *
 * Two runtime bugs the fuzzer (test_api_fuzz.c) found are covered here: a
 * task id 2^31 or more ahead of its ring's counter was taken for a retired
 * task (now INVALID_ARGS), and views reaching past INT64_MAX bytes overflowed
 * the box math (now rejected: "view extends past the 64-bit address range").
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "e2e.h"

#define SELF "test_api_misuse.c"
#define LINE0 7000 /* explicit scope at depth d is opened with line LINE0 + d */

/* ---- kernels ----------------------------------------------------------- */

static atomic_long g_runs; /* k_touch kernels run */

/* e2e_touch_kernel, counted in g_runs. */
static int k_touch(const pto_kernel_args *a)
{
    atomic_fetch_add(&g_runs, 1);
    return e2e_touch_kernel(a);
}

/* ---- shared checks ----------------------------------------------------- */

static void usage_all(const pto_runtime *rt, pto_ring_usage u[PTO_NUM_RINGS])
{
    for (int r = 0; r < PTO_NUM_RINGS; r++) assert_int_equal(pto_ring_usage_get(rt, r, &u[r]), 0);
}

/* Current use (not peaks) of every ring equals before, or (shrink_ok: tasks
 * of released scopes may retire meanwhile) is no higher. */
static void expect_usage_(const pto_runtime *rt, const pto_ring_usage before[PTO_NUM_RINGS], int shrink_ok,
                          const char *what)
{
    pto_ring_usage now[PTO_NUM_RINGS];
    usage_all(rt, now);
    for (int r = 0; r < PTO_NUM_RINGS; r++) {
        int same = now[r].task_window == before[r].task_window && now[r].heap == before[r].heap &&
                   now[r].dep_pool == before[r].dep_pool;
        int lower = now[r].task_window <= before[r].task_window && now[r].heap <= before[r].heap &&
                    now[r].dep_pool <= before[r].dep_pool;
        if (!same && !(shrink_ok && lower)) {
            print_error(
                "%s: ring %d usage moved: tasks %llu -> %llu, heap %llu -> %llu, dep pool %llu -> %llu\n",
                what, r, (unsigned long long)before[r].task_window, (unsigned long long)now[r].task_window,
                (unsigned long long)before[r].heap, (unsigned long long)now[r].heap,
                (unsigned long long)before[r].dep_pool, (unsigned long long)now[r].dep_pool);
            fail();
        }
    }
}

static void expect_usage_same(const pto_runtime *rt, const pto_ring_usage before[PTO_NUM_RINGS],
                              const char *what)
{
    expect_usage_(rt, before, 0, what);
}

/* ---- test_invalid_calls_are_reported ----------------------------------- */

typedef struct bad_ctx {
    pto_task_id prev; /* a valid task submitted just before (need_prev) */
    pto_task_id id;   /* the bad submit's id out */
    uint64_t buf[64];
    pto_arg args[40];
    uint64_t scalars[PTO_MAX_SCALAR_ARGS + 4];
    pto_dep deps[4];
} bad_ctx;

typedef int (*bad_fn)(pto_runtime *rt, bad_ctx *c);

typedef struct bad_case {
    const char *name;
    int nscopes;       /* explicit scopes open at the call */
    const char *modes; /* their modes, outermost first ('A'/'M'; AUTO past the end) */
    int need_prev;     /* submit a valid task first (c->prev) */
    bad_fn fn;
    const char *call;   /* function in the `call:` line */
    const char *reason; /* exact text after "FATAL: Invalid Arguments! " */
} bad_case;

/* A task with n IN args over c->buf and no scalars. */
static pto_task bad_task(bad_ctx *c, uint32_t n)
{
    for (uint32_t i = 0; i < n && i < 40; i++) c->args[i] = arg(PTO_ARG_IN, v1(c->buf, i % 60, 4));
    pto_task t = {.kernel = k_touch, .name = "bad", .args = c->args, .num_args = n};
    return t;
}

static int submit_bad(pto_runtime *rt, bad_ctx *c, const pto_task *t) { return pto_task_submit(rt, t, &c->id); }

static int b_null_task(pto_runtime *rt, bad_ctx *c) { return pto_task_submit(rt, NULL, &c->id); }
static int b_33_args(pto_runtime *rt, bad_ctx *c)
{
    pto_task t = bad_task(c, 33);
    return submit_bad(rt, c, &t);
}
static int b_too_many_scalars(pto_runtime *rt, bad_ctx *c)
{
    pto_task t = bad_task(c, 1);
    t.scalars = c->scalars;
    t.num_scalars = PTO_MAX_SCALAR_ARGS + 1;
    return submit_bad(rt, c, &t);
}
static int b_args_null(pto_runtime *rt, bad_ctx *c)
{
    pto_task t = bad_task(c, 0);
    t.args = NULL;
    t.num_args = 2;
    return submit_bad(rt, c, &t);
}
static int b_scalars_null(pto_runtime *rt, bad_ctx *c)
{
    pto_task t = bad_task(c, 1);
    t.num_scalars = 3;
    return submit_bad(rt, c, &t);
}
static int b_deps_null(pto_runtime *rt, bad_ctx *c)
{
    pto_task t = bad_task(c, 1);
    t.num_deps = 1;
    return submit_bad(rt, c, &t);
}
static int b_tag_7(pto_runtime *rt, bad_ctx *c)
{
    pto_task t = bad_task(c, 3);
    c->args[2].tag = (pto_arg_tag)7;
    return submit_bad(rt, c, &t);
}
static int b_addr_null(pto_runtime *rt, bad_ctx *c)
{
    pto_task t = bad_task(c, 1);
    c->args[0].view.addr = NULL;
    return submit_bad(rt, c, &t);
}
static int b_ndims_0(pto_runtime *rt, bad_ctx *c)
{
    pto_task t = bad_task(c, 2);
    c->args[1].tag = PTO_ARG_INOUT;
    c->args[1].view.ndims = 0;
    return submit_bad(rt, c, &t);
}
static int b_ndims_6(pto_runtime *rt, bad_ctx *c)
{
    pto_task t = bad_task(c, 1);
    c->args[0].view.ndims = 6;
    return submit_bad(rt, c, &t);
}
static int b_elem_0(pto_runtime *rt, bad_ctx *c)
{
    pto_task t = bad_task(c, 1);
    c->args[0].tag = PTO_ARG_OUTPUT_EXISTING;
    c->args[0].view.elem_size = 0;
    return submit_bad(rt, c, &t);
}
static int b_neg_stride(pto_runtime *rt, bad_ctx *c)
{
    pto_task t = bad_task(c, 1);
    c->args[0].view = pto_view_2d(c->buf, 8, 20, 2, 2, -4, PTO_INVALID_TASK_ID);
    return submit_bad(rt, c, &t);
}
static int b_neg_offset(pto_runtime *rt, bad_ctx *c)
{
    pto_task t = bad_task(c, 1);
    c->args[0].tag = PTO_ARG_NO_DEP;
    c->args[0].view.offset = -1;
    return submit_bad(rt, c, &t);
}
static int b_out_ndims_0(pto_runtime *rt, bad_ctx *c)
{
    pto_task t = bad_task(c, 1);
    c->args[0] = out_arg(4);
    c->args[0].view.ndims = 0;
    return submit_bad(rt, c, &t);
}
static int b_out_elem_0(pto_runtime *rt, bad_ctx *c)
{
    pto_task t = bad_task(c, 1);
    c->args[0] = out_arg(4);
    c->args[0].view.elem_size = 0;
    return submit_bad(rt, c, &t);
}
static int b_dep_never_issued(pto_runtime *rt, bad_ctx *c)
{
    pto_task t = bad_task(c, 1);
    c->deps[0] = (pto_dep){c->prev, PTO_DEP_WAIT};
    c->deps[1] = (pto_dep){e2e_task_id(3, 999999), PTO_DEP_WAIT_RETAIN};
    t.deps = c->deps;
    t.num_deps = 2;
    return submit_bad(rt, c, &t);
}
static int b_dep_ring_4(pto_runtime *rt, bad_ctx *c)
{
    pto_task t = bad_task(c, 1);
    c->deps[0] = (pto_dep){e2e_task_id(4, 0), PTO_DEP_WAIT};
    t.deps = c->deps;
    t.num_deps = 1;
    return submit_bad(rt, c, &t);
}
static int b_dep_invalid_id(pto_runtime *rt, bad_ctx *c)
{
    pto_task t = bad_task(c, 1);
    c->deps[0] = (pto_dep){PTO_INVALID_TASK_ID, PTO_DEP_WAIT};
    t.deps = c->deps;
    t.num_deps = 1;
    return submit_bad(rt, c, &t);
}
static int b_dep_far_behind(pto_runtime *rt, bad_ctx *c)
{
    pto_task t = bad_task(c, 1);
    c->deps[0] = (pto_dep){e2e_task_id(1, 0x80000001u), PTO_DEP_WAIT};
    t.deps = c->deps;
    t.num_deps = 1;
    return submit_bad(rt, c, &t);
}
static int b_dep_kind(pto_runtime *rt, bad_ctx *c)
{
    pto_task t = bad_task(c, 1);
    c->deps[0] = (pto_dep){c->prev, (pto_dep_kind)7};
    t.deps = c->deps;
    t.num_deps = 1;
    return submit_bad(rt, c, &t);
}
static int b_owner_never_issued(pto_runtime *rt, bad_ctx *c)
{
    pto_task t = bad_task(c, 2);
    c->args[1].view.owner = e2e_task_id(1, 999999);
    return submit_bad(rt, c, &t);
}
static int b_wait_null(pto_runtime *rt, bad_ctx *c)
{
    (void)c;
    return pto_view_wait(rt, NULL, 0);
}
static int b_wait_bad(pto_runtime *rt, bad_ctx *c)
{
    pto_view v = v1(c->buf, 0, 4);
    v.strides[0] = -1;
    return pto_view_wait(rt, &v, 1);
}
static int b_wait_neg_offset(pto_runtime *rt, bad_ctx *c)
{
    pto_view v = v1(c->buf, -3, 4);
    return pto_view_wait(rt, &v, 0);
}
static int b_wait_owner(pto_runtime *rt, bad_ctx *c)
{
    pto_view v = v1(c->buf, 0, 4);
    v.owner = e2e_task_id(2, 999999);
    return pto_view_wait(rt, &v, 0);
}
static int b_scope_end(pto_runtime *rt, bad_ctx *c)
{
    (void)c;
    return pto_scope_end(rt);
}
static int b_scope_begin_auto(pto_runtime *rt, bad_ctx *c)
{
    (void)c;
    return pto_scope_begin(rt, PTO_SCOPE_AUTO, __FILE__, 1);
}
static int b_scope_begin_mode(pto_runtime *rt, bad_ctx *c)
{
    (void)c;
    return pto_scope_begin(rt, (pto_scope_mode)7, __FILE__, 1);
}

#define NEVER ", which was never issued"
static const bad_case bad_cases[] = {
    {"NULL task", 0, "", 0, b_null_task, "pto_task_submit", "task is NULL"},
    {"num_args 33", 1, "A", 0, b_33_args, "pto_task_submit", "more than 32 tensor arguments (PTO_MAX_TENSOR_ARGS)"},
    {"num_scalars 65", 0, "", 0, b_too_many_scalars, "pto_task_submit",
     "more than 64 scalar arguments (PTO_MAX_SCALAR_ARGS)"},
    {"args NULL", 0, "", 0, b_args_null, "pto_task_submit", "a non-zero count with a NULL array"},
    {"scalars NULL", 2, "AM", 0, b_scalars_null, "pto_task_submit", "a non-zero count with a NULL array"},
    {"deps NULL", 0, "", 0, b_deps_null, "pto_task_submit", "a non-zero count with a NULL array"},
    {"tag 7", 0, "", 1, b_tag_7, "pto_task_submit", "argument 2: unknown argument tag"},
    {"addr NULL", 1, "M", 0, b_addr_null, "pto_task_submit", "argument 0: view addr is NULL"},
    {"ndims 0", 0, "", 0, b_ndims_0, "pto_task_submit", "argument 1: view ndims must be in [1, 5]"},
    {"ndims 6", 2, "AA", 1, b_ndims_6, "pto_task_submit", "argument 0: view ndims must be in [1, 5]"},
    {"elem_size 0", 0, "", 0, b_elem_0, "pto_task_submit", "argument 0: view elem_size is 0"},
    {"negative stride", 0, "", 0, b_neg_stride, "pto_task_submit", "argument 0: view strides must be non-negative"},
    {"negative offset", 0, "", 0, b_neg_offset, "pto_task_submit", "argument 0: view offset is negative"},
    {"OUT ndims 0", 3, "AAA", 0, b_out_ndims_0, "pto_task_submit", "argument 0: view ndims must be in [1, 5]"},
    {"OUT elem_size 0", 0, "", 0, b_out_elem_0, "pto_task_submit", "argument 0: view elem_size is 0"},
    {"dep never issued", 0, "", 1, b_dep_never_issued, "pto_task_submit",
     "explicit dependency 1 names task 3:999999" NEVER},
    {"dep ring 4", 5, "", 0, b_dep_ring_4, "pto_task_submit", "explicit dependency 0 names task 4:0" NEVER},
    {"dep invalid id", 0, "", 0, b_dep_invalid_id, "pto_task_submit", "explicit dependency 0 names task -" NEVER},
    /* A local 2^31 or more ahead of the ring's counter was once taken for
     * a long-retired task. */
    {"dep 1:2147483649 on a young runtime", 0, "", 0, b_dep_far_behind, "pto_task_submit",
     "explicit dependency 0 names task 1:2147483649" NEVER},
    {"dep kind 7", 1, "M", 1, b_dep_kind, "pto_task_submit", "unknown dependency kind"},
    {"owner never issued", 0, "", 0, b_owner_never_issued, "pto_task_submit",
     "argument 1: view owner is not a task of this runtime"},
    {"wait_view NULL", 0, "", 0, b_wait_null, "pto_view_wait", "view is NULL"},
    {"wait_view bad stride", 1, "A", 1, b_wait_bad, "pto_view_wait", "view strides must be non-negative"},
    {"wait_view bad offset", 0, "", 0, b_wait_neg_offset, "pto_view_wait", "view offset is negative"},
    {"wait_view bad owner", 0, "", 0, b_wait_owner, "pto_view_wait",
     "view owner is not a task of this runtime"},
    {"scope_end with no scope", 0, "", 1, b_scope_end, "pto_scope_end",
     "scope_end without a matching scope_begin"},
    {"65th nested scope", 64, "", 0, b_scope_begin_auto, "pto_scope_begin",
     "scope depth exceeds PTO_MAX_SCOPE_DEPTH (64)"},
    {"AUTO inside MANUAL", 1, "M", 0, b_scope_begin_auto, "pto_scope_begin",
     "auto scope nested inside manual scope is not supported"},
    {"AUTO inside MANUAL inside MANUAL", 3, "AMM", 0, b_scope_begin_auto, "pto_scope_begin",
     "auto scope nested inside manual scope is not supported"},
    {"bad scope mode", 0, "", 0, b_scope_begin_mode, "pto_scope_begin",
     "scope mode must be PTO_SCOPE_AUTO or PTO_SCOPE_MANUAL"},
};
#define NUM_BAD (sizeof bad_cases / sizeof bad_cases[0])

/* Runs one case on rt (idle, no latch); fails with its name on any mismatch. */
static void run_bad_case(pto_runtime *rt, const bad_case *bc, const char *how)
{
    bad_ctx *c = calloc(1, sizeof *c);
    assert_non_null(c);
    char ctx[160], line[256];
    snprintf(ctx, sizeof ctx, "case \"%s\" (%s)", bc->name, how);
    long runs_before = atomic_load(&g_runs);

    /* Prelude: the scopes, and a valid task when the case needs one. */
    int nscopes = bc->nscopes;
    size_t nmodes = strlen(bc->modes);
    for (int d = 0; d < nscopes; d++) {
        pto_scope_mode m = (size_t)d < nmodes && bc->modes[d] == 'M' ? PTO_SCOPE_MANUAL : PTO_SCOPE_AUTO;
        check_ok(rt, pto_scope_begin(rt, m, __FILE__, LINE0 + d), ctx);
    }
    if (bc->need_prev) {
        c->buf[63] = 0;
        pto_arg a = arg(PTO_ARG_OUTPUT_EXISTING, v1(c->buf, 60, 4));
        uint64_t sc = 1;
        pto_task t = {
            .kernel = k_touch, .name = "prev", .args = &a, .num_args = 1, .scalars = &sc, .num_scalars = 1};
        check_submit(rt, &t, &c->prev);
    }
    pto_ring_usage before[PTO_NUM_RINGS];
    usage_all(rt, before);

    /* The bad call. */
    c->id = 12345;
    int rc = bc->fn(rt, c);
    int depth = nscopes - 1; /* the innermost open scope at the call; -1 = root */

    const pto_error *e = pto_runtime_error(rt);
    if (rc != -PTO_INVALID_ARGS || e->code != PTO_INVALID_ARGS) {
        print_error("%s: rc %d code %d, expected -5 / 5; message:\n%s\n", ctx, rc, e->code, e->message);
        fail();
    }
    int ring = depth < 0 ? 0 : depth < 3 ? depth : 3;
    if (e->ring != ring) {
        print_error("%s: error ring %d, expected %d\n%s\n", ctx, e->ring, ring, e->message);
        fail();
    }
    /* Header with the exact reason, alone on the first line. */
    snprintf(line, sizeof line, "FATAL: Invalid Arguments! %s\n", bc->reason);
    if (strncmp(e->message, line, strlen(line)) != 0) {
        print_error("%s: message does not start with \"%s\":\n%s\n", ctx, line, e->message);
        fail();
    }
    /* A submitted task has no id yet, but its name ("bad") is shown. */
    const char *task = strcmp(bc->call, "pto_task_submit") || bc->fn == b_null_task ? "-" : "- (bad)";
    if (depth < 0)
        snprintf(line, sizeof line, "\n  call: %s task=%s scope=(root):0 depth=root ring=0\n", bc->call,
                 task);
    else
        snprintf(line, sizeof line, "\n  call: %s task=%s scope=%s:%d depth=%d ring=%d\n", bc->call, task,
                 SELF, LINE0 + depth, depth, ring);
    expect_frag(rt, line);
    expect_frag(rt, "\nPTO runtime failed: error_code=5 runtime_status=-5\n");
    expect_frag(rt, "\nerror detail: error_code=5 INVALID_ARGS - ");
    expect_frag(rt, "\nerror hint: this is an orchestration bug; no RunConfig field helps");
    if (!strcmp(bc->call, "pto_task_submit") && c->id != PTO_INVALID_TASK_ID) {
        print_error("%s: the failed submit's id is %llx, not PTO_INVALID_TASK_ID\n", ctx,
                    (unsigned long long)c->id);
        fail();
    }
    expect_usage_same(rt, before, ctx); /* nothing was allocated for the bad call */

    char first[PTO_ERROR_MESSAGE_MAX];
    snprintf(first, sizeof first, "%s", e->message);
    rc = pto_runtime_finish(rt);
    if (rc != -PTO_INVALID_ARGS) {
        print_error("%s: pto_runtime_finish returned %d, expected -5\n%s\n", ctx, rc, pto_runtime_error(rt)->message);
        fail();
    }
    /* The last run's error stays readable after pto_runtime_finish. */
    assert_int_equal(pto_runtime_error(rt)->code, PTO_INVALID_ARGS);
    assert_string_equal(pto_runtime_error(rt)->message, first);
    /* The bad task never ran (the prelude's may have been skipped: workers
     * start no kernel after a fatal). */
    long ran = atomic_load(&g_runs) - runs_before;
    if (ran > (bc->need_prev ? 1 : 0)) {
        print_error("%s: %ld kernels ran\n", ctx, ran);
        fail();
    }
    e2e_valid_run(rt, ctx);
    free(c);
}

static void test_invalid_calls_are_reported(void **state)
{
    (void)state;
    /* Each case on a fresh runtime... */
    for (size_t i = 0; i < NUM_BAD; i++) {
        pto_runtime *rt = make_rt_rings(16, 16384, 64, 2, E2E_NO_STALL_MS);
        run_bad_case(rt, &bad_cases[i], "fresh runtime");
        pto_runtime_destroy(rt);
    }
    /* ...and all of them in turn on one runtime that recovers each time,
     * twice over (ids from the earlier runs are still "issued"). */
    pto_runtime *rt = make_rt_rings(16, 16384, 64, 2, E2E_NO_STALL_MS);
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < NUM_BAD; i++)
            run_bad_case(rt, &bad_cases[i], pass ? "recovered runtime, pass 2" : "recovered runtime");
    pto_runtime_destroy(rt);
}

/* ---- test_calls_after_fatal_are_noops ----------------------------------- */

static void test_calls_after_fatal_are_noops(void **state)
{
    (void)state;
    /* Window 4: the root or a scope holds at most 3 tasks of its ring. */
    pto_runtime *rt = make_rt_rings(4, 8192, 16, 2, E2E_NO_STALL_MS);
    for (int kind = 0; kind < 3; kind++) {
        static const char *const names[3] = {"INVALID_ARGS latch", "EXPLICIT_ORCH_FATAL latch",
                                             "SCOPE_DEADLOCK latch"};
        const char *ctx = names[kind];
        uint64_t buf[16] = {0};
        uint64_t one = 1;
        long runs_before = atomic_load(&g_runs);
        long expect_runs = 0;
        pto_arg a = arg(PTO_ARG_INOUT, v1(buf, 0, 4));
        pto_task t = {
            .kernel = k_touch, .name = "t", .args = &a, .num_args = 1, .scalars = &one, .num_scalars = 1};
        pto_task_id id;
        int code, rc;
        SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
        check_submit(rt, &t, &id);
        expect_runs++;
        if (kind == 0) {
            scope_end_ok(rt);
            rc = pto_scope_end(rt);
            code = PTO_INVALID_ARGS;
            expect_code(rt, rc, code);
            expect_frag(rt, "FATAL: Invalid Arguments! scope_end without a matching scope_begin\n");
        } else if (kind == 1) {
            rc = pto_runtime_fail(rt, "first %d", 1);
            code = PTO_EXPLICIT_ORCH_FATAL;
            expect_code(rt, rc, code);
            expect_frag(rt, "FATAL: Orchestration Reported Fatal: first 1\n");
            expect_frag(rt, "\n  at: scope=" SELF ":");
        } else {
            check_submit(rt, &t, &id);
            check_submit(rt, &t, &id);
            expect_runs += 2;
            rc = pto_task_submit(rt, &t, &id);
            code = PTO_SCOPE_DEADLOCK;
            expect_code(rt, rc, code);
            expect_frag(rt, "FATAL: Scope Deadlock Detected! (ring 0)\n");
        }
        char first[PTO_ERROR_MESSAGE_MAX];
        snprintf(first, sizeof first, "%s", pto_runtime_error(rt)->message);
        pto_ring_usage before[PTO_NUM_RINGS];
        usage_all(rt, before);

#define NOOP(expr)                                                                                           \
    do {                                                                                                     \
        int rc_ = (expr);                                                                                    \
        if (rc_ != -code || pto_runtime_error(rt)->code != code ||                                              \
            strcmp(pto_runtime_error(rt)->message, first) != 0) {                                               \
            print_error("%s: %s returned %d (want %d), code %d, message:\n%s\n", ctx, #expr, rc_, -code,     \
                        pto_runtime_error(rt)->code, pto_runtime_error(rt)->message);                              \
            fail();                                                                                          \
        }                                                                                                    \
        expect_usage_(rt, before, 1, #expr);                                                                 \
    } while (0)

        pto_arg outs[2] = {arg(PTO_ARG_IN, v1(buf, 0, 4)), out_arg(16)};
        pto_task to = {.kernel = k_touch, .name = "out", .args = outs, .num_args = 2};
        id = 1;
        NOOP(pto_task_submit(rt, &t, &id));
        assert_true(id == PTO_INVALID_TASK_ID);
        id = 1;
        NOOP(pto_task_submit(rt, &to, &id));
        assert_true(id == PTO_INVALID_TASK_ID);
        assert_true(outs[1].view.addr == NULL); /* the OUT view was not filled in */
        NOOP(pto_task_submit(rt, NULL, &id));
        NOOP(pto_scope_begin(rt, PTO_SCOPE_AUTO, __FILE__, __LINE__));
        NOOP(pto_scope_begin(rt, PTO_SCOPE_MANUAL, __FILE__, __LINE__));
        NOOP(pto_scope_end(rt));
        NOOP(pto_scope_end(rt));
        NOOP(pto_scope_end(rt));
        id = 1;
        void *addr = &addr;
        NOOP(pto_tensor_alloc(rt, 64, &addr, &id));
        assert_null(addr);
        assert_true(id == PTO_INVALID_TASK_ID);
        pto_view v = v1(buf, 0, 4);
        NOOP(pto_view_wait(rt, &v, 0));
        NOOP(pto_view_wait(rt, &v, 1));
        NOOP(pto_view_wait(rt, NULL, 0));
        NOOP(pto_runtime_fail(rt, "second %d", 2));
        NOOP(pto_task_submit(rt, &t, NULL));

        rc = pto_runtime_finish(rt);
        if (rc != -code) {
            print_error("%s: pto_runtime_finish %d, want %d\n%s\n", ctx, rc, -code, pto_runtime_error(rt)->message);
            fail();
        }
        assert_int_equal(pto_runtime_error(rt)->code, code);
        assert_string_equal(pto_runtime_error(rt)->message, first);
        /* Only the tasks submitted before the latch ran (workers skip tasks
         * popped after a fatal, so at most that many). */
        long ran = atomic_load(&g_runs) - runs_before;
        if (ran > expect_runs) {
            print_error("%s: %ld kernels ran, at most %ld were submitted before the latch\n", ctx, ran,
                        expect_runs);
            fail();
        }
        e2e_valid_run(rt, ctx);
#undef NOOP
    }
    /* introspection misuse latches nothing: test_introspection_misuse.c */
    pto_runtime_destroy(rt);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_invalid_calls_are_reported),
    cmocka_unit_test(test_calls_after_fatal_are_noops),
};

PTO_TEST_MAIN(tests)
