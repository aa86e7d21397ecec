/*
 * e2e.h - helpers for tests that use only the public API (pto/runtime.h):
 * clocks, spins and naps; PTO_TEST_SCALE; configs and runtime creation;
 * calls that must succeed (printing the latched message when one does not);
 * expected errors and message fragments; 1-d views, args and element access.
 * testutil.h includes it for the white-box tests.
 */
#ifndef PTO_TEST_E2E_H
#define PTO_TEST_E2E_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "harness.h"
#include "pto/runtime.h"

/* ---- time -------------------------------------------------------------- */

static inline uint64_t now_ms(void) { return base_now_ns() / 1000000ull; }

/* Busy-waits (keeps the CPU). */
static inline void spin_ns(uint64_t ns)
{
    uint64_t end = base_now_ns() + ns;
    while (base_now_ns() < end) {
    }
}

static inline void spin_us(uint64_t us) { spin_ns(us * 1000ull); }

/* Sleeps the whole time, even when a signal interrupts it. */
static inline void nap_us(long us)
{
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

static inline void nap_ms(long ms) { nap_us(ms * 1000); }

/* PTO_TEST_SCALE when set and positive, else dflt. */
static inline double test_scale(double dflt)
{
    const char *e = getenv("PTO_TEST_SCALE");
    double s = e ? atof(e) : 0.0;
    return s > 0 ? s : dflt;
}

/* ---- runtimes ---------------------------------------------------------- */

/* All four rings sized alike; 0 keeps the default. */
static inline pto_config cfg_rings(uint64_t window, uint64_t heap, uint64_t dep_pool, int workers, int stall_ms)
{
    pto_config c;
    memset(&c, 0, sizeof c);
    for (int r = 0; r < PTO_NUM_RINGS; r++) {
        c.runtime_env.ring_task_window[r] = window;
        c.runtime_env.ring_heap[r] = heap;
        c.runtime_env.ring_dep_pool[r] = dep_pool;
    }
    c.num_workers = workers;
    c.stall_timeout_ms = stall_ms;
    return c;
}

static inline pto_runtime *make_rt(const pto_config *cfg)
{
    pto_error err;
    memset(&err, 0, sizeof err);
    pto_runtime *rt;
    int rc = pto_runtime_create(cfg, &rt, &err);
    assert_int_equal(rc == 0, rt != NULL);
    if (!rt) print_error("pto_runtime_create failed: code %d: %s\n", err.code, err.message);
    assert_non_null(rt);
    return rt;
}

static inline pto_runtime *make_rt_rings(uint64_t window, uint64_t heap, uint64_t dep_pool, int workers,
                                         int stall_ms)
{
    pto_config cfg = cfg_rings(window, heap, dep_pool, workers, stall_ms);
    return make_rt(&cfg);
}

/* rc (of the call what) is 0. */
static inline void check_ok(const pto_runtime *rt, int rc, const char *what)
{
    if (rc != 0) print_error("%s: %d\n%s\n", what, rc, pto_runtime_error(rt)->message);
    assert_int_equal(rc, 0);
}

static inline void check_submit(pto_runtime *rt, const pto_task *t, pto_task_id *id)
{
    int rc = pto_task_submit(rt, t, id);
    if (rc != 0) print_error("pto_task_submit(%s): %d\n%s\n", t->name ? t->name : "-", rc,
                             pto_runtime_error(rt)->message);
    assert_int_equal(rc, 0);
}

/* A scope named after the call site; it must open. */
#define SCOPE_BEGIN_OK(rt, mode) \
    check_ok((rt), pto_scope_begin((rt), (mode), __FILE__, __LINE__), "pto_scope_begin")

static inline void scope_end_ok(pto_runtime *rt) { check_ok(rt, pto_scope_end(rt), "pto_scope_end"); }

static inline void finish_ok(pto_runtime *rt) { check_ok(rt, pto_runtime_finish(rt), "pto_runtime_finish"); }

/* rc is -code and the latched error has code. */
static inline void expect_code(const pto_runtime *rt, int rc, int code)
{
    const pto_error *e = pto_runtime_error(rt);
    if (rc != -code) print_error("rc %d, expected %d; message:\n%s\n", rc, -code, e->message);
    assert_int_equal(rc, -code);
    assert_int_equal(e->code, code);
}

/* The latched message holds frag. */
static inline void expect_frag(const pto_runtime *rt, const char *frag)
{
    const char *m = pto_runtime_error(rt)->message;
    if (!strstr(m, frag)) print_error("missing \"%s\" in message:\n%s\n", frag, m);
    assert_non_null(strstr(m, frag));
}

/* ---- views and args ---------------------------------------------------- */

static inline pto_arg arg(pto_arg_tag tag, pto_view v)
{
    pto_arg a;
    a.tag = tag;
    a.view = v;
    return a;
}

/* An OUT arg: a 1-d uint64 buffer of elems the runtime allocates. */
static inline pto_arg out_arg(uint64_t elems)
{
    pto_arg a;
    memset(&a, 0, sizeof a);
    a.tag = PTO_ARG_OUT;
    a.view.elem_size = sizeof(uint64_t);
    a.view.ndims = 1;
    a.view.shape[0] = elems;
    return a;
}

/* n uint64 elements of buf from element off. */
static inline pto_view v1(uint64_t *buf, int64_t off, uint64_t n)
{
    return pto_view_1d(buf, sizeof(uint64_t), off, n, PTO_INVALID_TASK_ID);
}

static inline uint64_t view_count(const pto_view *v)
{
    uint64_t n = 1;
    for (uint32_t d = 0; d < v->ndims; d++) n *= v->shape[d];
    return n;
}

/* k-th element of a uint64 view in row-major order over its shape. */
static inline uint64_t *el(const pto_view *v, uint64_t k)
{
    int64_t off = v->offset;
    for (int d = (int)v->ndims - 1; d >= 0; d--) {
        uint64_t i = k % v->shape[d];
        k /= v->shape[d];
        off += (int64_t)i * v->strides[d];
    }
    return (uint64_t *)((char *)v->addr + off * (int64_t)v->elem_size);
}

/* ---- checks shared by the API misuse tests and the fuzzer ------------- */

#include <stdio.h>

/* Task id (ring << 32) | local. */
static inline pto_task_id e2e_task_id(int ring, uint32_t local) { return ((uint64_t)ring << 32) | local; }

/* For every view i with bit i of scalars[0]: adds 1 (atomically) to the first
 * byte of its first and of its last element; then spins scalars[1] us. */
static inline int e2e_touch_kernel(const pto_kernel_args *a)
{
    uint64_t mask = a->num_scalars ? a->scalars[0] : 0;
    for (uint32_t i = 0; i < a->num_views && i < 64; i++) {
        if (!(mask >> i & 1)) continue;
        const pto_view *v = &a->views[i];
        uint64_t last = (uint64_t)v->offset;
        for (uint32_t d = 0; d < v->ndims; d++) last += (v->shape[d] - 1) * (uint64_t)v->strides[d];
        unsigned char *p = v->addr;
        __atomic_fetch_add(p + (uint64_t)v->offset * v->elem_size, 1, __ATOMIC_RELAXED);
        __atomic_fetch_add(p + last * v->elem_size, 1, __ATOMIC_RELAXED);
    }
    if (a->num_scalars > 1) spin_us(a->scalars[1]);
    return 0;
}

/* 1 if every ring is empty (as after a clean pto_runtime_finish); else 0 and why. */
static inline int e2e_rings_empty(const pto_runtime *rt, char *why, size_t n)
{
    for (int r = 0; r < PTO_NUM_RINGS; r++) {
        pto_ring_usage u;
        if (pto_ring_usage_get(rt, r, &u) != 0) return snprintf(why, n, "ring %d: usage failed", r), 0;
        if (u.task_window || u.heap || u.dep_pool) {
            snprintf(why, n, "ring %d not empty after pto_runtime_finish: tasks %llu heap %llu dep pool %llu", r,
                     (unsigned long long)u.task_window, (unsigned long long)u.heap,
                     (unsigned long long)u.dep_pool);
            return 0;
        }
    }
    return 1;
}

/* views[0] element 0 (uint64) := scalars[0] */
static inline int e2e_set_kernel(const pto_kernel_args *a)
{
    *(uint64_t *)pto_view_at(&a->views[0], (const uint64_t[PTO_MAX_DIMS]){0}) = a->scalars[0];
    return 0;
}

/* A one-task run that must succeed: the task writes a user cell, pto_runtime_finish
 * returns 0, the cell holds the value and every ring is empty; fails with ctx
 * otherwise. */
static inline void e2e_valid_run(pto_runtime *rt, const char *ctx)
{
    static uint64_t serial = 0x600d0000;
    uint64_t cell = 0, val = ++serial;
    pto_arg a = arg(PTO_ARG_OUTPUT_EXISTING, v1(&cell, 0, 1));
    pto_task t = {.kernel = e2e_set_kernel, .name = "valid", .args = &a, .num_args = 1, .scalars = &val,
                  .num_scalars = 1};
    pto_task_id id = PTO_INVALID_TASK_ID;
    int rc = pto_task_submit(rt, &t, &id);
    if (rc != 0 || id == PTO_INVALID_TASK_ID) {
        print_error("%s: valid run: pto_task_submit %d\n%s\n", ctx, rc, pto_runtime_error(rt)->message);
        fail();
    }
    rc = pto_runtime_finish(rt);
    if (rc != 0) {
        print_error("%s: valid run: pto_runtime_finish %d\n%s\n", ctx, rc, pto_runtime_error(rt)->message);
        fail();
    }
    char why[256];
    if (cell != val || pto_runtime_error(rt)->code != 0 || !e2e_rings_empty(rt, why, sizeof why)) {
        print_error("%s: valid run: cell %llu (want %llu), last error %d, %s\n", ctx,
                    (unsigned long long)cell, (unsigned long long)val, pto_runtime_error(rt)->code,
                    cell != val || pto_runtime_error(rt)->code ? "" : why);
        fail();
    }
}

/* 1 if message m starts with "FATAL: " and has the three fixed lines of
 * every error message (docs/runtime.md, "Errors") for code; else 0 and the first one missing. */
static inline int e2e_has_fixed_lines(const char *m, int code, char *missing, size_t n)
{
    char line[3][128];
    snprintf(line[0], sizeof line[0], "PTO runtime failed: error_code=%d runtime_status=-%d\n", code, code);
    snprintf(line[1], sizeof line[1], "error detail: error_code=%d %s - ", code, pto_status_name(code));
    snprintf(line[2], sizeof line[2], "\nerror hint: ");
    for (int i = 0; i < 3; i++)
        if (!strstr(m, line[i])) return snprintf(missing, n, "%.127s", line[i]), 0;
    return strncmp(m, "FATAL: ", 7) == 0 ? 1 : (snprintf(missing, n, "FATAL: (at the start)"), 0);
}

/* stall_timeout_ms for runs where no stall is expected: far above any wait a
 * busy machine causes (all threads descheduled for a while), so that only a
 * real hang trips it, and still ends one in bounded time. */
#define E2E_NO_STALL_MS 30000

#endif
