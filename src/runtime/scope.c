/*
 * scope.c - the scope stack: begin, end, and the implicit root.
 *
 * scopes[0] is the implicit root (ring 0, released by pto_runtime_finish); explicit
 * scope i sits at scopes[i + 1] with depth i and ring min(i, 3).  Every task
 * submitted while a scope is innermost is appended to scope_tasks; the
 * scope's end adds RT_FANOUT_SCOPE_BIT to each of them and rewinds.  Only
 * depth picks the ring: sibling scopes share one.
 */
#include "runtime/scope.h"

#include "runtime/api.h"
#include "runtime/error.h"
#include "runtime/stats.h"
#include "runtime/task_state.h"

static int rt_scope_begin(pto_runtime *rt, pto_scope_mode mode, const char *file, int line)
{
    int st = rt_api_enter(rt);
    if (st) return -st;
    rt_stats_run_open(rt);
    rt->submitting = PTO_INVALID_TASK_ID;
    if (rt->num_scopes > PTO_MAX_SCOPE_DEPTH)
        return rt_error_invalid(rt, "pto_scope_begin", "scope depth exceeds PTO_MAX_SCOPE_DEPTH (64)");
    if (mode == PTO_SCOPE_AUTO && rt->manual_depth > 0)
        return rt_error_invalid(rt, "pto_scope_begin",
                               "auto scope nested inside manual scope is not supported");
    if (mode != PTO_SCOPE_AUTO && mode != PTO_SCOPE_MANUAL)
        return rt_error_invalid(rt, "pto_scope_begin", "scope mode must be PTO_SCOPE_AUTO or PTO_SCOPE_MANUAL");
    int depth = rt->num_scopes - 1;
    rt->scopes[rt->num_scopes++] = (rt_scope){
        .start = rt->scope_tasks_top,
        .depth = depth,
        .ring = depth < PTO_NUM_RINGS - 1 ? depth : PTO_NUM_RINGS - 1,
        .mode = mode,
        .file = file ? file : "?",
        .line = line,
    };
    if (mode == PTO_SCOPE_MANUAL) rt->manual_depth++;
    rt_stats_begin(rt, rt_scope_current(rt));
    return 0;
}

void rt_scope_release(pto_runtime *rt)
{
    rt_scope *s = rt_scope_current(rt);
    int touched = 0;
    rt_stats_end(rt, s);
    for (uint32_t i = s->start; i < rt->scope_tasks_top; i++) {
        pto_task_id id = rt->scope_tasks[i];
        rt_ring *ring = &rt->rings[rt_task_ring(id)];
        rt_slot *slot = rt_ring_slot(ring, rt_task_local(id));
        rt_spin_lock(&slot->lock);
        slot->fanout_refcount += RT_FANOUT_SCOPE_BIT;
        touched |= rt_task_try_consume_locked(slot) << rt_task_ring(id);
        rt_spin_unlock(&slot->lock);
    }
    /* FIFO: one advance per ring after the whole scope is released. */
    for (int r = 0; r < PTO_NUM_RINGS; r++)
        if (touched & (1 << r)) rt_ring_advance(&rt->rings[r]);
    rt->scope_tasks_top = s->start;
    if (s->mode == PTO_SCOPE_MANUAL && s->depth >= 0) rt->manual_depth--;
    if (s->depth >= 0) rt->num_scopes--;
}

static int rt_scope_end(pto_runtime *rt)
{
    int st = rt_api_enter(rt);
    if (st) return -st;
    rt->submitting = PTO_INVALID_TASK_ID;
    if (rt->num_scopes <= 1)
        return rt_error_invalid(rt, "pto_scope_end", "scope_end without a matching scope_begin");
    rt_scope_release(rt);
    return 0;
}

int pto_scope_begin(pto_runtime *rt, pto_scope_mode mode, const char *file, int line)
{
    return rt_api_leave(rt, rt_scope_begin(rt, mode, file, line));
}

int pto_scope_end(pto_runtime *rt)
{
    return rt_api_leave(rt, rt_scope_end(rt));
}
