/*
 * diagnose.c - builds the capacity, scope and stall messages (see
 * diagnose.h).  Every number comes from the orchestrator's own view of the
 * rings plus atomic snapshots of shared state; nothing here waits.
 */
#include "runtime/diagnose.h"

#include "runtime/error.h"
#include "runtime/format.h"
#include "runtime/progress.h"
#include "runtime/scope.h"

#include <stdio.h>

#define RT_APPEND(...) base_appendf(buf, cap, len, __VA_ARGS__)

/* A task's state as a user reads it: the stored state, with PENDING split
 * into RUNNING (an executor runs it), READY (queued: every producer done)
 * and PENDING (waiting for producers). */
static const char *rt_state_name(pto_runtime *rt, pto_task_id id, const rt_slot *s, uint32_t st)
{
    if (st == RT_TASK_COMPLETED) return "COMPLETED";
    if (st != RT_TASK_PENDING) return "CONSUMED";
    for (int k = 0; k <= rt->num_workers; k++)
        if (atomic_load(&rt->workers[k].running) == id) return "RUNNING";
    return atomic_load(&s->fanin_refcount) == s->fanin_count ? "READY" : "PENDING";
}

void rt_diagnose_census(pto_runtime *rt, rt_census *c)
{
    uint64_t now = base_now_ns();
    *c = (rt_census){.longest = PTO_INVALID_TASK_ID, .longest_kernel = "-", .longest_worker = -1};
    for (int k = 0; k <= rt->num_workers; k++) { /* workers and the orchestrator */
        rt_worker *w = &rt->workers[k];
        uint64_t id = atomic_load(&w->running);
        if (id == PTO_INVALID_TASK_ID) continue;
        c->running++;
        uint64_t since = atomic_load(&w->running_since);
        uint64_t ms = now > since ? (now - since) / 1000000 : 0;
        if (c->longest == PTO_INVALID_TASK_ID || ms > c->longest_ms) {
            rt_slot *s = rt_ring_slot(&rt->rings[rt_task_ring(id)], rt_task_local(id));
            c->longest = id;
            c->longest_ms = ms;
            c->longest_worker = k;
            c->longest_kernel = s->name ? s->name : "-";
        }
    }
    c->completed = rt_progress_completed(rt);
    c->ready = rt_ready_queue_size(&rt->ready);
    uint64_t outstanding = rt->submitted - (c->completed - rt->orch_completed);
    uint64_t busy = c->running + c->ready;
    c->waiting = outstanding > busy ? outstanding - busy : 0;
}

void rt_diagnose_progress(pto_runtime *rt, uint64_t stalled_ms, char *buf, size_t cap, size_t *len)
{
    rt_census c;
    char id[32];
    rt_diagnose_census(rt, &c);
    rt_format_id(c.longest, id, sizeof id);
    RT_APPEND("No progress anywhere for %llu ms (stall_timeout_ms=%d).\n",
              (unsigned long long)stalled_ms, rt->cfg.stall_timeout_ms);
    RT_APPEND("progress: running=%llu ready=%llu waiting=%llu; longest running task %s (%s) "
              "for %llu ms on worker %d\n",
              (unsigned long long)c.running, (unsigned long long)c.ready,
              (unsigned long long)c.waiting, id, c.longest_kernel,
              (unsigned long long)c.longest_ms, c.longest_worker);
}

void rt_diagnose_task_line(pto_runtime *rt, int r, char *buf, size_t cap, size_t *len)
{
    rt_ring *ring = &rt->rings[r];
    uint32_t cur = atomic_load(&ring->cur), la = atomic_load(&ring->last_alive);
    RT_APPEND("Task ring %d: current=%u, last_alive=%u, active=%u/%u (%.1f%%)\n", r, cur, la,
              cur - la, ring->window, 100.0 * (cur - la) / ring->window);
}

static void rt_heap_line(pto_runtime *rt, int r, char *buf, size_t cap, size_t *len)
{
    rt_heap *h = &rt->rings[r].heap;
    RT_APPEND("Heap ring %d: top=%llu, tail=%llu, size=%llu, used=%llu, available=%llu\n", r,
              (unsigned long long)h->top, (unsigned long long)h->tail,
              (unsigned long long)h->size, (unsigned long long)rt_heap_used(h),
              (unsigned long long)rt_heap_available(h));
}

static void rt_head_line(pto_runtime *rt, int r, char *buf, size_t cap, size_t *len)
{
    rt_ring *ring = &rt->rings[r];
    uint32_t la = atomic_load(&ring->last_alive);
    if (la == atomic_load(&ring->cur)) {
        RT_APPEND("Head task -: ring %d holds no live task\n", r);
        return;
    }
    rt_slot *s = rt_ring_slot(ring, la);
    char id[32];
    rt_spin_lock(&s->lock);
    uint32_t st = atomic_load(&s->state), count = s->fanout_count, ref = s->fanout_refcount;
    rt_spin_unlock(&s->lock);
    rt_format_id(rt_task_id(r, la), id, sizeof id);
    RT_APPEND("Head task %s: state=%s, consumers=%u/%u, scope_released=%d, site=%s\n", id,
              rt_state_name(rt, rt_task_id(r, la), s, st), ref & ~RT_FANOUT_SCOPE_BIT, count & ~RT_FANOUT_SCOPE_BIT,
              ref >= RT_FANOUT_SCOPE_BIT, rt_format_where(s->scope_file, s->scope_line, s->scope_depth).site);
}

static void rt_verdict_lines(pto_runtime *rt, int r, rt_verdict v, uint64_t need,
                             const char *unit, uint64_t capacity, uint64_t stalled_ms,
                             char *buf, size_t cap, size_t *len)
{
    char id[32];
    if (v == RT_V1_STRUCTURAL) {
        rt_format_id(rt_task_id(r, atomic_load(&rt->rings[r].last_alive)), id, sizeof id);
        RT_APPEND("Head task %s is the oldest task owned by an open scope on this ring -> "
                  "Provable head-of-line deadlock.\n", id);
    } else if (v == RT_V2_NEVER_FITS) {
        RT_APPEND("Request of %llu %s exceeds ring %d's capacity of %llu -> can never fit.\n",
                  (unsigned long long)need, unit, r, (unsigned long long)capacity);
    } else {
        rt_diagnose_progress(rt, stalled_ms, buf, cap, len);
    }
}

static const char rt_stall_hint[] = "; if a kernel is merely slow, raise stall_timeout_ms";

int rt_diagnose_capacity(pto_runtime *rt, int r, rt_resource what, rt_verdict v, uint64_t need,
                         uint64_t stalled_ms)
{
    rt_ring *ring = &rt->rings[r];
    char header[160], hint[512];
    char details[2048];
    char *buf = details;
    size_t cap = sizeof details, n = 0, *len = &n;
    const char *suffix = v == RT_V3_STALL ? rt_stall_hint : "";
    int code;
    details[0] = 0;

    switch (what) {
    case RT_RES_HEAP: {
        char id[32];
        code = PTO_HEAP_RING_DEADLOCK;
        snprintf(header, sizeof header, "FATAL: Task Allocator Deadlock - Heap Exhausted! ring=%d", r);
        rt_verdict_lines(rt, r, v, need, "bytes", ring->heap.size, stalled_ms, buf, cap, len);
        rt_format_id(rt_task_id(r, atomic_load(&ring->cur)), id, sizeof id);
        RT_APPEND("Requested:  %llu bytes (task %s, %u outputs, 1024-byte aligned)\n",
                  (unsigned long long)need, id, rt->req_outputs);
        rt_heap_line(rt, r, buf, cap, len);
        rt_diagnose_task_line(rt, r, buf, cap, len);
        rt_head_line(rt, r, buf, cap, len);
        /* e.g.: twice the heap, or the first power of two the request fits */
        uint64_t eg = 2 * ring->heap.size;
        if (need > eg) eg = need > (1ull << 63) ? need : base_next_pow2(need);
        snprintf(hint, sizeof hint,
                 "raise ring_heap (runtime_env.ring_heap) for ring %d (now %llu, e.g. %llu) or "
                 "shrink per-task outputs / split the scope so its bytes are reclaimed sooner%s",
                 r, (unsigned long long)ring->heap.size, (unsigned long long)eg, suffix);
        break;
    }
    case RT_RES_TASK:
        code = PTO_FLOW_CONTROL_DEADLOCK;
        snprintf(header, sizeof header, "FATAL: Task Allocator Deadlock - Task Ring Full! ring=%d", r);
        rt_verdict_lines(rt, r, v, need, "slots", ring->window, stalled_ms, buf, cap, len);
        rt_diagnose_task_line(rt, r, buf, cap, len);
        rt_heap_line(rt, r, buf, cap, len);
        rt_head_line(rt, r, buf, cap, len);
        snprintf(hint, sizeof hint,
                 "raise ring_task_window (runtime_env.ring_task_window) for ring %d (now %u, e.g. "
                 "%u) or split the scope; depths >= 3 all share ring 3: flatten the nesting to "
                 "spread them%s",
                 r, ring->window, ring->window * 2, suffix);
        break;
    case RT_RES_DEP_POOL:
    case RT_RES_SPILL: {
        rt_pool *p = what == RT_RES_DEP_POOL ? &ring->deps : &ring->spill;
        const char *pool = what == RT_RES_DEP_POOL ? "Dependency Pool" : "Fanin Spill Pool";
        code = PTO_DEP_POOL_OVERFLOW;
        snprintf(header, sizeof header, "FATAL: %s %s ring=%d", pool,
                 v == RT_V1_STRUCTURAL ? "Deadlock Detected!" : "Overflow!", r);
        rt_verdict_lines(rt, r, v, need, "entries", p->cap, stalled_ms, buf, cap, len);
        RT_APPEND("Pool used: %llu / %llu (%.1f%%), top=%llu, tail=%llu, high_water=%llu, "
                  "needed=%llu\n",
                  (unsigned long long)rt_pool_used(p), (unsigned long long)p->cap,
                  100.0 * rt_pool_used(p) / p->cap, (unsigned long long)p->top,
                  (unsigned long long)p->tail, (unsigned long long)p->high_water,
                  (unsigned long long)need);
        uint32_t cur = atomic_load(&ring->cur), la = atomic_load(&ring->last_alive);
        RT_APPEND("last_task_alive: %u (stuck here), current task: %u, in flight: %u\n", la, cur,
                  cur - la);
        rt_head_line(rt, r, buf, cap, len);
        uint64_t e = 2 * p->high_water > 2 * need ? 2 * p->high_water : 2 * need;
        snprintf(hint, sizeof hint,
                 "raise ring_dep_pool (runtime_env.ring_dep_pool) for ring %d (now %llu, e.g. "
                 "%llu) or cut the task's fanin%s",
                 r, (unsigned long long)p->cap, (unsigned long long)e, suffix);
        break;
    }
    default: {
        rt_tensormap *tm = &rt->tm;
        code = PTO_TENSORMAP_OVERFLOW;
        snprintf(header, sizeof header, "FATAL: TensorMap Entry Pool Deadlock Detected!");
        rt_diagnose_progress(rt, stalled_ms, buf, cap, len);
        RT_APPEND("Pool used: %u / %u (%.1f%%), needed=%llu, readers=%u, writers=%u; "
                  "last_task_alive=[%u, %u, %u, %u] current=[%u, %u, %u, %u]\n",
                  tm->used, PTO_TENSORMAP_POOL_SIZE, 100.0 * tm->used / PTO_TENSORMAP_POOL_SIZE,
                  (unsigned long long)need, tm->readers, tm->writers,
                  atomic_load(&rt->rings[0].last_alive), atomic_load(&rt->rings[1].last_alive),
                  atomic_load(&rt->rings[2].last_alive), atomic_load(&rt->rings[3].last_alive),
                  atomic_load(&rt->rings[0].cur), atomic_load(&rt->rings[1].cur),
                  atomic_load(&rt->rings[2].cur), atomic_load(&rt->rings[3].cur));
        snprintf(hint, sizeof hint,
                 "the tensormap holds 65536 entries (PTO_TENSORMAP_POOL_SIZE) and read-only "
                 "arguments use them too: split scopes so tasks retire sooner, pass arguments "
                 "that need no ordering as NO_DEP, or lower ring_task_window "
                 "(runtime_env.ring_task_window) to bound live tasks");
        break;
    }
    }
    return rt_error_fail(rt, code, what == RT_RES_TENSORMAP ? -1 : r, header, details, hint);
}

int rt_diagnose_scope_deadlock(pto_runtime *rt)
{
    const rt_scope *s = rt_scope_current(rt);
    rt_ring *ring = &rt->rings[s->ring];
    uint32_t n = rt->scope_tasks_top - s->start, w = ring->window;
    char header[96], details[1024], hint[512];
    rt_where at = rt_format_where(s->file, s->line, s->depth);
    snprintf(header, sizeof header, "FATAL: Scope Deadlock Detected! (ring %d)", s->ring);
    snprintf(details, sizeof details,
             "Tasks in current scope (%u) reached the usable task window (%u of "
             "task_window_size %u); a scope pins its tasks until scope_end.\n"
             "scope: site=%s depth=%s ring=%d scope_task_count=%u active_tasks=%u/%u",
             n, w - 1, w, at.site, at.depth, s->ring, n, rt_ring_live(ring), w);
    snprintf(hint, sizeof hint,
             "raise ring_task_window (runtime_env.ring_task_window) or split the scope; ring %d "
             "has %u slots (e.g. %u); enable_scope_stats=True shows which scope peaks",
             s->ring, w, 2 * w);
    return rt_error_fail(rt, PTO_SCOPE_DEADLOCK, s->ring, header, details, hint);
}

int rt_diagnose_never_fits(pto_runtime *rt, int r, rt_resource what, uint64_t need)
{
    return rt_diagnose_capacity(rt, r, what, RT_V2_NEVER_FITS, need, 0);
}
