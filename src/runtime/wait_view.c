/*
 * wait_view.c - pto_view_wait: the orchestrator waits until a view may be
 * read (earlier writers done) or written (earlier readers and writers done).
 *
 * The tasks to wait for come from a tensormap lookup; waiting needs no pin,
 * because only the orchestrator reuses slots: a task that retires while we
 * wait reads CONSUMED, which is "done".  Stall-bounded: TENSOR_WAIT_TIMEOUT.
 */
#include <stdio.h>
#include <stdlib.h>

#include "runtime/api.h"
#include "runtime/diagnose.h"
#include "runtime/error.h"
#include "runtime/progress.h"
#include "runtime/scope.h"
#include "runtime/stats.h"
#include "runtime/wait.h"

typedef struct rt_view_waiters {
    pto_task_id *ids;
    uint64_t n, cap;
    uint32_t writers, readers;
} rt_view_waiters;

static int rt_note_waiter(void *ctx, pto_task_id task)
{
    rt_view_waiters *w = ctx;
    if (w->n == w->cap) {
        pto_task_id *ids = base_array_grow(w->ids, &w->cap, sizeof *ids, 64);
        if (!ids) return -PTO_INVALID_ARGS;
        w->ids = ids;
    }
    w->ids[w->n++] = task;
    return 0;
}

/* A retired task (its slot maybe reused since) is done. */
static int rt_pending(pto_runtime *rt, pto_task_id id)
{
    rt_ring *ring = &rt->rings[rt_task_ring(id)];
    if (rt_local_before(rt_task_local(id), atomic_load_explicit(&ring->last_alive, memory_order_acquire)))
        return 0;
    rt_slot *s = rt_ring_slot(ring, rt_task_local(id));
    return atomic_load_explicit(&s->state, memory_order_acquire) == RT_TASK_PENDING;
}

static int rt_wait_view_timeout(pto_runtime *rt, const pto_view *v, int for_write,
                                const rt_view_waiters *w, uint64_t stalled_ms)
{
    char header[64], details[2048], shape[96];
    size_t len = 0, sl = 0;
    int ring = rt_scope_current(rt)->ring;
    uint32_t writers = 0, readers = 0;
    for (uint32_t i = 0; i < w->n; i++) {
        if (!rt_pending(rt, w->ids[i])) continue;
        if (i < w->writers) writers++;
        else readers++;
    }
    shape[0] = 0;
    for (uint32_t d = 0; d < v->ndims; d++)
        base_appendf(shape, sizeof shape, &sl, "%s%llu", d ? "x" : "", (unsigned long long)v->shape[d]);
    snprintf(header, sizeof header, "FATAL: Tensor Wait Timeout! ring=%d", ring);
    base_appendf(details, sizeof details, &len,
               "waiting to %s view addr=%p offset=%lld shape=%s; pending writers=%u, pending "
               "readers=%u\n",
               for_write ? "write" : "read", v->addr, (long long)v->offset, shape, writers, readers);
    rt_diagnose_progress(rt, stalled_ms, details, sizeof details, &len);
    return rt_error_fail(rt, PTO_TENSOR_WAIT_TIMEOUT, ring, header, details,
                   "a task touching this tensor never finished (see the progress line); raise "
                   "stall_timeout_ms only if that kernel is legitimately slow");
}

static int rt_view_wait(pto_runtime *rt, const pto_view *view, int for_write)
{
    int st = rt_api_enter(rt);
    if (st) return -st;
    rt_stats_run_open(rt);
    rt->submitting = PTO_INVALID_TASK_ID;
    rt_tm_key key;
    const char *why = NULL;
    if (!view || rt_overlap_box_of(view, &key.box, &why) != 0)
        return rt_error_invalid(rt, "pto_view_wait", why ? why : "view is NULL");
    if (view->owner != PTO_INVALID_TASK_ID && !rt_id_issued(rt, view->owner))
        return rt_error_invalid(rt, "pto_view_wait", "view owner is not a task of this runtime");

    rt_view_waiters w = {0};
    rt_tm_key_init(&key);
    rt_tm_refresh(&rt->tm);
    int rc = 0;
    /* A runtime-created buffer's first writer is its creator (OUT args make
     * no tensormap entry). */
    if (view->owner != PTO_INVALID_TASK_ID) rc = rt_note_waiter(&w, view->owner);
    if (!rc) rc = rt_tm_lookup(&rt->tm, &key, RT_TM_WRITERS, 0, rt_note_waiter, &w);
    w.writers = w.n;
    if (!rc && for_write) rc = rt_tm_lookup(&rt->tm, &key, RT_TM_READERS, 0, rt_note_waiter, &w);
    if (rc) {
        free(w.ids);
        return pto_runtime_fail(rt, "out of memory in pto_view_wait");
    }

    rt_wait wait;
    rt_wait_begin(rt, &wait);
    for (uint32_t i = 0; i < w.n && !rc;) {
        if (!rt_pending(rt, w.ids[i])) {
            i++;
            continue;
        }
        if ((st = rt_error_latched(rt)) != 0) {
            rc = -st;
            break;
        }
        uint64_t stalled_ms;
        if (rt_wait_stalled(rt, &wait, &stalled_ms))
            rc = rt_wait_view_timeout(rt, view, for_write, &w, stalled_ms);
        else if (wait.now_ns - wait.start_ns < RT_SPIN_US * 1000ull)
            rt_cpu_relax();
        else
            rt_wait_completion(rt, wait.progress);
    }
    free(w.ids);
    return rc;
}

int pto_view_wait(pto_runtime *rt, const pto_view *view, int for_write)
{
    return rt_api_leave(rt, rt_view_wait(rt, view, for_write));
}
