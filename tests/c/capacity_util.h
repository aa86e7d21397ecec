/*
 * capacity_util.h - what the capacity and back-pressure tests share
 * (test_e2e_capacity.c, test_e2e_backpressure.c): the check of a latched
 * fatal error (EXPECT_FATAL: its code, the fixed lines of docs/runtime.md,
 * "Errors", and message fragments), two kernels (k_write, k_sum), a submit
 * that must succeed, a small run that must succeed, the recovery after an
 * expected fatal, and a dummy task.
 */
#ifndef PTO_TEST_CAPACITY_UTIL_H
#define PTO_TEST_CAPACITY_UTIL_H

#include <stdio.h>

#include "e2e.h"
#include "harness.h"

/* ---- errors ------------------------------------------------------------ */

/* rc is -code; the latched error has code and the fixed lines of section 6
 * plus every fragment. */
static inline void expect_fatal_(pto_runtime *rt, int rc, int code, const char *const *frags)
{
    expect_code(rt, rc, code);
    char line[256];
    snprintf(line, sizeof line, "PTO runtime failed: error_code=%d runtime_status=-%d", code, code);
    expect_frag(rt, line);
    snprintf(line, sizeof line, "error detail: error_code=%d %s - ", code, pto_status_name(code));
    expect_frag(rt, line);
    expect_frag(rt, "error hint: ");
    for (int i = 0; frags[i]; i++) expect_frag(rt, frags[i]);
}

#define EXPECT_FATAL(rt, rc, code, ...) \
    expect_fatal_((rt), (rc), (code), (const char *const[]){__VA_ARGS__, NULL})

/* ---- kernels ----------------------------------------------------------- */

/* views[0] := scalars[0] everywhere after spinning scalars[1] us */
static inline int k_write(const pto_kernel_args *a)
{
    spin_us(a->num_scalars > 1 ? a->scalars[1] : 0);
    const pto_view *v = &a->views[0];
    for (uint64_t k = 0; k < view_count(v); k++) *el(v, k) = a->scalars[0];
    return 0;
}

/* last view [0] := sum of every other view's elements + scalars[0] */
static inline int k_sum(const pto_kernel_args *a)
{
    uint64_t s = a->num_scalars ? a->scalars[0] : 0;
    for (uint32_t i = 0; i + 1 < a->num_views; i++)
        for (uint64_t k = 0; k < view_count(&a->views[i]); k++) s += *el(&a->views[i], k);
    *el(&a->views[a->num_views - 1], 0) = s;
    return 0;
}

/* ---- small runs -------------------------------------------------------- */

static inline void submit_ok(pto_runtime *rt, pto_kernel_fn k, const char *name, pto_arg *args,
                             uint32_t nargs, const uint64_t *sc, uint32_t nsc, pto_task_id *id)
{
    pto_task t = {k, NULL, name, args, nargs, sc, nsc, NULL, 0, 0};
    check_submit(rt, &t, id);
}

/* Two tasks in one scope on a user buffer, then pto_runtime_finish == 0. */
static inline void small_run_ok(pto_runtime *rt)
{
    uint64_t buf[8] = {0}, out[1] = {0};
    SCOPE_BEGIN_OK(rt, PTO_SCOPE_AUTO);
    pto_arg wa[1] = {arg(PTO_ARG_OUTPUT_EXISTING, v1(buf, 0, 8))};
    uint64_t ws[2] = {5, 100};
    submit_ok(rt, k_write, "write", wa, 1, ws, 2, NULL);
    pto_arg sa[2] = {arg(PTO_ARG_IN, v1(buf, 0, 8)), arg(PTO_ARG_OUTPUT_EXISTING, v1(out, 0, 1))};
    uint64_t ss[1] = {1};
    submit_ok(rt, k_sum, "sum", sa, 2, ss, 1, NULL);
    scope_end_ok(rt);
    finish_ok(rt);
    assert_int_equal(out[0], 41);
    assert_int_equal(pto_runtime_error(rt)->code, 0);
}

/* After an expected fatal: pto_runtime_finish returns -code, then a run succeeds. */
static inline void finish_then_recover(pto_runtime *rt, int code)
{
    expect_code(rt, pto_runtime_finish(rt), code);
    small_run_ok(rt);
}

static inline pto_task dummy_task(void)
{
    pto_task t = {NULL, NULL, "dummy", NULL, 0, NULL, 0, NULL, 0, 0};
    return t;
}

#endif
