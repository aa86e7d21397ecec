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
#include "runtime/spare.h"

#include <stdio.h>

#define RT_APPEND(...) base_appendf(buf, cap, len, __VA_ARGS__)

/* A task's state as a user reads it: the stored state, with PENDING split
 * into DEFERRED (deferred.h), RUNNING (an executor runs it), READY (queued:
 * every producer done) and PENDING (waiting for producers). */
static const char *rt_state_name(pto_runtime *rt, pto_task_id id, const rt_slot *s, uint32_t st)
{
    if (st == RT_TASK_COMPLETED) return "COMPLETED";
    if (st != RT_TASK_PENDING) return "CONSUMED";
    if (rt_deferred_has(rt, id)) return "DEFERRED";
    for (int k = 0, n = rt_executors(rt); k < n; k++)
        if (atomic_load(&rt->workers[k].running) == id) return "RUNNING";
    return atomic_load(&s->fanin_refcount) == s->fanin_count ? "READY" : "PENDING";
}

void rt_diagnose_census(pto_runtime *rt, rt_census *c)
{
    uint64_t now = base_now_ns();
    *c = (rt_census){.longest = PTO_INVALID_TASK_ID, .longest_kernel = "-", .longest_worker = -1};
    for (int k = 0, n = rt_executors(rt); k < n; k++) { /* workers, the orchestrator, spares */
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
    /* relaxed loads: a worker diagnosing its own comm wait reads what the orchestrator counts */
    uint64_t outstanding = __atomic_load_n(&rt->submitted, __ATOMIC_RELAXED) -
                           (c->completed - __atomic_load_n(&rt->orch_completed, __ATOMIC_RELAXED));
    c->deferred = (uint64_t)atomic_load(&rt->deferred.count);
    uint64_t busy = c->running + c->ready + c->deferred;
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
    char deferred[32] = "";
    if (c.deferred) snprintf(deferred, sizeof deferred, " deferred=%llu", (unsigned long long)c.deferred);
    RT_APPEND("progress: running=%llu ready=%llu%s waiting=%llu; longest running task %s (%s) "
              "for %llu ms on worker %d\n",
              (unsigned long long)c.running, (unsigned long long)c.ready, deferred,
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
              rt_state_name(rt, rt_task_id(r, la), s, st), ref & ~RT_FANOUT_SCOPE_BIT,
              count & ~RT_FANOUT_SCOPE_BIT, ref >= RT_FANOUT_SCOPE_BIT,
              rt_format_where(s->scope_file, s->scope_line, s->scope_depth).site);
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

/* The detail lines a capacity message may carry, in the order a row lists
 * them. */
enum { RT_L_END = 0, RT_L_REQUEST, RT_L_HEAP, RT_L_TASK, RT_L_HEAD, RT_L_POOL, RT_L_TENSORMAP };

/* One capacity message per resource (rt_resource order): its code, its
 * header (the pools' name the dep pool and spill pool differ by), the unit
 * of a request, the RunConfig field to raise, the alternative to raising
 * it, and its detail lines after the verdict.  Every number in the text is
 * filled in from the ring, the request or a macro. */
static const struct rt_capacity_row {
    int code;
    const char *header;  /* printf: the ring (pools: also the name and "Deadlock Detected!" / "Overflow!") */
    const char *unit;
    const char *field;   /* RunConfig field, NULL: none sizes it */
    const char *instead; /* after "or " */
    unsigned char lines[5];
} rt_capacity_rows[] = {
    [RT_RES_TASK] = {PTO_FLOW_CONTROL_DEADLOCK, "FATAL: Task Allocator Deadlock - Task Ring Full! ring=%d",
                     "slots", "ring_task_window",
                     "split the scope; depths >= 3 all share ring 3: flatten the nesting to spread them",
                     {RT_L_TASK, RT_L_HEAP, RT_L_HEAD}},
    [RT_RES_HEAP] = {PTO_HEAP_RING_DEADLOCK, "FATAL: Task Allocator Deadlock - Heap Exhausted! ring=%d",
                     "bytes", "ring_heap",
                     "shrink per-task outputs / split the scope so its bytes are reclaimed sooner",
                     {RT_L_REQUEST, RT_L_HEAP, RT_L_TASK, RT_L_HEAD}},
    [RT_RES_DEP_POOL] = {PTO_DEP_POOL_OVERFLOW, "FATAL: Dependency Pool %s ring=%d", "entries",
                         "ring_dep_pool", "cut the task's fanin", {RT_L_POOL, RT_L_HEAD}},
    [RT_RES_SPILL] = {PTO_DEP_POOL_OVERFLOW, "FATAL: Fanin Spill Pool %s ring=%d", "entries",
                      "ring_dep_pool", "cut the task's fanin", {RT_L_POOL, RT_L_HEAD}},
    [RT_RES_TENSORMAP] = {PTO_TENSORMAP_OVERFLOW, "FATAL: TensorMap Entry Pool Deadlock Detected!", "entries",
                          NULL, NULL, {RT_L_TENSORMAP}},
};

static rt_pool *rt_capacity_pool(rt_ring *ring, rt_resource what)
{
    return what == RT_RES_DEP_POOL ? &ring->deps : &ring->spill;
}

/* The resource's size on ring r, and an example of a size that would do:
 * twice the size, or (heap) the first power of two the request fits, or
 * (pools) twice the larger of high water and need. */
static uint64_t rt_capacity_of(rt_ring *ring, rt_resource what)
{
    switch (what) {
    case RT_RES_TASK: return ring->window;
    case RT_RES_HEAP: return ring->heap.size;
    case RT_RES_TENSORMAP: return PTO_TENSORMAP_POOL_SIZE;
    default: return rt_capacity_pool(ring, what)->cap;
    }
}

static uint64_t rt_capacity_example(rt_ring *ring, rt_resource what, uint64_t need)
{
    uint64_t eg = 2 * rt_capacity_of(ring, what);
    if (what == RT_RES_HEAP && need > eg) eg = need > (1ull << 63) ? need : base_next_pow2(need);
    if (what == RT_RES_DEP_POOL || what == RT_RES_SPILL) {
        uint64_t hw = rt_capacity_pool(ring, what)->high_water;
        eg = 2 * (hw > need ? hw : need);
    }
    return eg;
}

static void rt_capacity_line(pto_runtime *rt, int r, rt_resource what, int line, uint64_t need,
                             char *buf, size_t cap, size_t *len)
{
    rt_ring *ring = &rt->rings[r];
    switch (line) {
    case RT_L_REQUEST: {
        char id[32];
        rt_format_id(rt_task_id(r, atomic_load(&ring->cur)), id, sizeof id);
        RT_APPEND("Requested:  %llu bytes (task %s, %u outputs, %d-byte aligned)\n",
                  (unsigned long long)need, id, rt->req_outputs, PTO_PACKED_OUTPUT_ALIGN);
        break;
    }
    case RT_L_HEAP: rt_heap_line(rt, r, buf, cap, len); break;
    case RT_L_TASK: rt_diagnose_task_line(rt, r, buf, cap, len); break;
    case RT_L_HEAD: rt_head_line(rt, r, buf, cap, len); break;
    case RT_L_POOL: {
        rt_pool *p = rt_capacity_pool(ring, what);
        RT_APPEND("Pool used: %llu / %llu (%.1f%%), top=%llu, tail=%llu, high_water=%llu, "
                  "needed=%llu\n",
                  (unsigned long long)rt_pool_used(p), (unsigned long long)p->cap,
                  100.0 * rt_pool_used(p) / p->cap, (unsigned long long)p->top,
                  (unsigned long long)p->tail, (unsigned long long)p->high_water,
                  (unsigned long long)need);
        uint32_t cur = atomic_load(&ring->cur), la = atomic_load(&ring->last_alive);
        RT_APPEND("last_task_alive: %u (stuck here), current task: %u, in flight: %u\n", la, cur,
                  cur - la);
        break;
    }
    default: {
        rt_tensormap *tm = &rt->tm;
        RT_APPEND("Pool used: %u / %u (%.1f%%), needed=%llu, readers=%u, writers=%u; "
                  "last_task_alive=[%u, %u, %u, %u] current=[%u, %u, %u, %u]\n",
                  tm->used, PTO_TENSORMAP_POOL_SIZE, 100.0 * tm->used / PTO_TENSORMAP_POOL_SIZE,
                  (unsigned long long)need, tm->readers, tm->writers,
                  atomic_load(&rt->rings[0].last_alive), atomic_load(&rt->rings[1].last_alive),
                  atomic_load(&rt->rings[2].last_alive), atomic_load(&rt->rings[3].last_alive),
                  atomic_load(&rt->rings[0].cur), atomic_load(&rt->rings[1].cur),
                  atomic_load(&rt->rings[2].cur), atomic_load(&rt->rings[3].cur));
        break;
    }
    }
}

int rt_diagnose_capacity(pto_runtime *rt, int r, rt_resource what, rt_verdict v, uint64_t need,
                         uint64_t stalled_ms)
{
    const struct rt_capacity_row *row = &rt_capacity_rows[what];
    rt_ring *ring = &rt->rings[r];
    char header[160], hint[512], details[2048];
    size_t n = 0;
    details[0] = 0;
    if (what == RT_RES_DEP_POOL || what == RT_RES_SPILL)
        snprintf(header, sizeof header, row->header,
                 v == RT_V1_STRUCTURAL ? "Deadlock Detected!" : "Overflow!", r);
    else
        snprintf(header, sizeof header, row->header, r);
    if (what == RT_RES_TENSORMAP) rt_diagnose_progress(rt, stalled_ms, details, sizeof details, &n);
    else
        rt_verdict_lines(rt, r, v, need, row->unit, rt_capacity_of(ring, what), stalled_ms, details,
                         sizeof details, &n);
    for (int i = 0; i < 5 && row->lines[i] != RT_L_END; i++)
        rt_capacity_line(rt, r, what, row->lines[i], need, details, sizeof details, &n);
    if (row->field)
        snprintf(hint, sizeof hint, "raise %s (runtime_env.%s) for ring %d (now %llu, e.g. %llu) or %s%s",
                 row->field, row->field, r, (unsigned long long)rt_capacity_of(ring, what),
                 (unsigned long long)rt_capacity_example(ring, what, need), row->instead,
                 v == RT_V3_STALL ? "; if a kernel is merely slow, raise stall_timeout_ms" : "");
    else
        snprintf(hint, sizeof hint,
                 "the tensormap holds %d entries (PTO_TENSORMAP_POOL_SIZE) and read-only arguments use "
                 "them too: split scopes so tasks retire sooner, pass arguments that need no ordering "
                 "as NO_DEP, or lower ring_task_window (runtime_env.ring_task_window) to bound live tasks",
                 PTO_TENSORMAP_POOL_SIZE);
    return rt_error_fail(rt, row->code, what == RT_RES_TENSORMAP ? -1 : r, header, details, hint);
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
