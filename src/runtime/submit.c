/*
 * submit.c - the orchestrator's side of a task: pto_task_submit and
 * pto_tensor_alloc (zeroed: only the heap bytes an earlier allocation may
 * have written are cleared, ring.h's dirty mark).
 *
 * A submit, in order: validate everything (nothing is allocated for a bad
 * call); the per-scope limit (SCOPE_DEADLOCK); a slot plus the task's output
 * bytes from its ring (back-pressure while full); collect fanin edges from
 * explicit deps, creator ids and tensormap lookups (no locks taken); make
 * sure the dependency and spill pools and the tensormap have room (a wait
 * here holds nothing that could keep a ring's head from retiring); insert
 * the task's own tensormap entries; wire, taking each producer's lock once:
 * a producer still PENDING gets a node on its fanout list, a RETAIN edge
 * pins its producer until this task completes, and a producer that retired
 * or was consumed meanwhile is done.  Only this thread reuses slots, so a
 * producer seen unretired at wiring is still the same task.  The fanin guard
 * (+1) keeps the task from becoming ready mid-wiring; the one fetch_add that
 * completes the count pushes it.
 *
 * All lookups run before the task's own inserts, so a task never depends on
 * itself.  Producers are deduplicated per submit through the ring's `seen`
 * array (epoch << 32 | edge index): one edge per producer, flags OR-ed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/api.h"
#include "runtime/diagnose.h"
#include "runtime/error.h"
#include "runtime/format.h"
#include "runtime/overlap.h"
#include "runtime/predicate.h"
#include "runtime/scope.h"
#include "runtime/stats.h"
#include "runtime/task_state.h"
#include "runtime/trusted.h"
#include "runtime/wait.h"

/* Bytes of an OUT view packed at 1024; UINT64_MAX when it overflows. */
static uint64_t rt_out_bytes(const pto_view *v)
{
    uint64_t n = v->elem_size;
    for (uint32_t d = 0; d < v->ndims; d++)
        if (__builtin_mul_overflow(n, v->shape[d], &n)) return UINT64_MAX;
    return base_align_up(n, PTO_PACKED_OUTPUT_ALIGN);
}

/* Checks a task; fills the boxes of non-OUT args and the packed output size. */
static int rt_validate(pto_runtime *rt, const pto_task *t, rt_tm_key *keys, uint64_t *out_bytes)
{
    char why[160];
    const char *reason = NULL;
    *out_bytes = 0;
    rt->req_outputs = 0;
    if (t->num_args > PTO_MAX_TENSOR_ARGS) reason = "more than 32 tensor arguments (PTO_MAX_TENSOR_ARGS)";
    else if (t->num_scalars > PTO_MAX_SCALAR_ARGS) reason = "more than 64 scalar arguments (PTO_MAX_SCALAR_ARGS)";
    else if ((t->num_args && !t->args) || (t->num_scalars && !t->scalars) || (t->num_deps && !t->deps))
        reason = "a non-zero count with a NULL array";
    for (uint32_t i = 0; !reason && i < t->num_args; i++) {
        const pto_arg *a = &t->args[i];
        const pto_view *v = &a->view;
        const char *r = NULL;
        if ((unsigned)a->tag > PTO_ARG_NO_DEP) r = "unknown argument tag";
        else if (a->tag == PTO_ARG_OUT) {
            if (v->ndims < 1 || v->ndims > PTO_MAX_DIMS) r = "view ndims must be in [1, 5]";
            else if (v->elem_size == 0) r = "view elem_size is 0";
            else {
                uint64_t b = rt_out_bytes(v);
                *out_bytes = *out_bytes > UINT64_MAX - b ? UINT64_MAX : *out_bytes + b;
                rt->req_outputs++;
            }
        } else if (rt_overlap_box_of(v, &keys[i].box, &r) == 0 && v->owner != PTO_INVALID_TASK_ID &&
                   !rt_id_issued(rt, v->owner)) {
            r = "view owner is not a task of this runtime";
        }
        if (r) {
            snprintf(why, sizeof why, "argument %u: %s", i, r);
            reason = why;
        }
    }
    for (uint32_t i = 0; !reason && i < t->num_deps; i++) {
        if (!rt_id_issued(rt, t->deps[i].id)) {
            char id[32];
            rt_format_id(t->deps[i].id, id, sizeof id);
            snprintf(why, sizeof why, "explicit dependency %u names task %s, which was never issued", i, id);
            reason = why;
        } else if ((unsigned)t->deps[i].kind > PTO_DEP_WAIT) {
            reason = "unknown dependency kind";
        }
    }
    return reason ? rt_error_invalid(rt, "pto_task_submit", reason) : 0;
}

/* The trusted submit's rt_validate (trusted.h): only the boxes.  PTO_CHECKS
 * builds also make every check rt_validate makes, and assert it passes. */
static void rt_trusted_boxes(pto_runtime *rt, const pto_task *t, rt_tm_key *keys)
{
#ifdef PTO_CHECKS
    uint64_t out_bytes;
    RT_ASSERT(rt_validate(rt, t, keys, &out_bytes) == 0 && rt->req_outputs == 0);
#endif
    rt->req_outputs = 0;
    for (uint32_t i = 0; i < t->num_args; i++) rt_overlap_box(&t->args[i].view, &keys[i].box);
}

/* Takes a slot and bytes on the current scope's ring, waiting while full. */
static int rt_take_slot(pto_runtime *rt, uint64_t bytes, uint32_t *local, uint64_t *off)
{
    rt_scope *s = rt_scope_current(rt);
    rt_ring *ring = &rt->rings[s->ring];
    if (rt->scope_tasks_top - s->start >= ring->window - 1) return rt_diagnose_scope_deadlock(rt);
    rt_wait w;
    int waiting = 0;
    for (;;) {
        rt_alloc_result res = rt_ring_try_alloc(ring, bytes, local, off);
        if (res == RT_ALLOC_OK) return 0;
        if (res == RT_ALLOC_NEVER) return rt_diagnose_never_fits(rt, s->ring, RT_RES_HEAP, rt_heap_request(bytes));
        if (!waiting) rt_wait_begin(rt, &w), waiting = 1;
        int rc = rt_wait_step(rt, &w, s->ring, res == RT_ALLOC_WAIT_TASK ? RT_RES_TASK : RT_RES_HEAP,
                              res == RT_ALLOC_WAIT_TASK ? 1 : rt_heap_request(bytes));
        if (rc) return rc;
    }
}

/* Initialises the new task's slot (not yet visible to anyone) and places
 * its views and scalars in the ring's record arena. */
static rt_slot *rt_slot_init(pto_runtime *rt, rt_ring *ring, uint32_t local, const pto_task *t)
{
    const rt_scope *sc = rt_scope_current(rt);
    rt_slot *s = rt_ring_slot(ring, local);
    s->fanout_count = RT_FANOUT_SCOPE_BIT;
    s->fanout_refcount = 0;
    s->fanout_head = NULL;
    atomic_store_explicit(&s->fanin_refcount, 0, memory_order_relaxed);
    s->fanin_count = 1;
    s->kernel = t ? t->kernel : NULL;
    s->ctx = t ? t->ctx : NULL;
    s->name = t && t->name ? t->name : (t ? "-" : "alloc");
    s->scope_file = sc->file;
    s->scope_line = sc->line;
    s->scope_depth = sc->depth;
    s->num_views = t ? t->num_args : 0;
    s->num_scalars = t ? t->num_scalars : 0;
    s->num_fanin = 0;
    s->num_blocks = t && t->num_blocks > 1 ? t->num_blocks : 1;
    if (s->num_blocks > 1) {
        atomic_store_explicit(&s->block_next, 0, memory_order_relaxed);
        atomic_store_explicit(&s->block_done, 0, memory_order_relaxed);
    }
    s->has_pred = 0;
    s->tm_head = 0;
    s->dep_pool_mark = ring->deps.top;
    s->spill_start = s->spill_mark = ring->spill.top;
    s->record_end = rt_heap_alloc_total(&ring->records);
    s->views = NULL;
    s->scalars = NULL;
    s->fanin = NULL;
    if (s->num_views || s->num_scalars) {
        char *rec = rt_ring_record(ring, local, s->num_views * sizeof(pto_view) +
                                                    s->num_scalars * sizeof(uint64_t));
        s->views = (pto_view *)rec;
        s->scalars = (uint64_t *)(rec + s->num_views * sizeof(pto_view));
        if (s->num_scalars) memcpy(s->scalars, t->scalars, s->num_scalars * sizeof(uint64_t));
    }
    atomic_store_explicit(&s->state, RT_TASK_PENDING, memory_order_relaxed);
    return s;
}

/* Takes a slot and `bytes` of heap on the current scope's ring (waiting while
 * full), the first `zero` of them zeroed, initialises it for t (NULL: an
 * alloc task), publishes it and appends it to the scope.  Returns the slot,
 * or NULL with *rc set. */
static rt_slot *rt_task_open(pto_runtime *rt, const pto_task *t, uint64_t bytes, uint64_t zero, pto_task_id *id,
                             char **heap, int *rc)
{
    uint32_t local;
    uint64_t off;
    int r = rt_scope_current(rt)->ring;
    rt_ring *ring = &rt->rings[r];
    uint64_t dirty = ring->heap.dirty;
    if ((*rc = rt_take_slot(rt, bytes, &local, &off)) != 0) return NULL;
    rt_heap_zero_reused(&ring->heap, dirty, off, zero);
    *id = rt->submitting = rt_task_id(r, local);
    *heap = ring->heap.base + off;
    rt_tm_refresh(&rt->tm);
    rt_tm_cleanup_due(&rt->tm, r, local);
    rt_slot *s = rt_slot_init(rt, ring, local, t);
    rt_ring_publish(ring, local);
    rt->scope_tasks[rt->scope_tasks_top++] = *id;
    return s;
}

/* ---- fanin collection ---------------------------------------------------- */

static int rt_edge_add(pto_runtime *rt, pto_task_id pid, uint64_t flags)
{
    rt_ring *ring = &rt->rings[rt_task_ring(pid)];
    uint32_t pl = rt_task_local(pid);
    if (rt_local_before(pl, atomic_load_explicit(&ring->last_alive, memory_order_acquire)))
        return 0; /* retired: nothing to wait for */
    uint64_t *seen = &ring->seen[pl & ring->mask];
    uint32_t idx = (uint32_t)*seen;
    if ((uint32_t)(*seen >> 32) == rt->epoch && idx < rt->num_edges && RT_EDGE_ID(rt->edges[idx]) == pid) {
        rt->edges[idx] |= flags;
        return 0;
    }
    if (rt->num_edges == rt->edges_cap) {
        uint64_t *e = base_array_grow(rt->edges, &rt->edges_cap, sizeof *e, 256);
        if (!e) return pto_runtime_fail(rt, "out of memory growing the fanin buffer past %u edges", rt->num_edges);
        rt->edges = e;
    }
    *seen = ((uint64_t)rt->epoch << 32) | rt->num_edges;
    rt->edges[rt->num_edges++] = pid | flags;
    /* Its line is likely in a worker's cache (it just ran there): start the
     * transfer now, so the misses of all edges overlap until wiring. */
    __builtin_prefetch(rt_ring_slot(ring, pl), 1);
    return 0;
}

static int rt_edge_from_tensormap(void *ctx, pto_task_id task)
{
    return rt_edge_add(ctx, task, RT_DEP_WAIT);
}

/* Collects the task's fanin edges.  A view's owner is always retained until
 * the task completes (lifetime); in AUTO it is also waited for (ordering).
 * MANUAL scopes take ordering from explicit deps only, never lifetime away. */
static int rt_collect(pto_runtime *rt, const pto_task *t, rt_tm_key *keys, uint32_t *inserts)
{
    int rc = 0, manual = rt->manual_depth > 0;
    *inserts = 0;
    for (uint32_t i = 0; !rc && i < t->num_deps; i++)
        rc = rt_edge_add(rt, t->deps[i].id,
                         RT_DEP_WAIT | (t->deps[i].kind == PTO_DEP_WAIT ? 0 : RT_DEP_RETAIN));
    for (uint32_t i = 0; !rc && i < t->num_args; i++) {
        pto_arg_tag tag = t->args[i].tag;
        if (tag == PTO_ARG_OUT) continue;
        if (t->args[i].view.owner != PTO_INVALID_TASK_ID)
            rc = rt_edge_add(rt, t->args[i].view.owner, RT_DEP_RETAIN | (manual ? 0 : RT_DEP_WAIT));
        if (rc || manual || tag == PTO_ARG_NO_DEP) continue;
        int writes = tag != PTO_ARG_IN;
        rt_tm_key_init(&keys[i]);
        rc = rt_tm_lookup(&rt->tm, &keys[i], writes ? RT_TM_WRITERS | RT_TM_READERS : RT_TM_WRITERS,
                          writes, rt_edge_from_tensormap, rt);
        (*inserts)++;
    }
    return rc;
}

/* ---- room in the pools ----------------------------------------------------- */

/* WAIT edges whose producer has not completed: each takes a dep-pool node at
 * wiring (all = 1: every WAIT edge, an upper bound that reads no producer). */
static uint64_t rt_wait_edges(pto_runtime *rt, int all)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < rt->num_edges; i++) {
        uint64_t e = rt->edges[i];
        if (!(e & RT_DEP_WAIT)) continue;
        if (!all) {
            pto_task_id pid = RT_EDGE_ID(e);
            rt_slot *ps = rt_ring_slot(&rt->rings[rt_task_ring(pid)], rt_task_local(pid));
            if (atomic_load_explicit(&ps->state, memory_order_acquire) != RT_TASK_PENDING) continue;
        }
        n++;
    }
    return n;
}

/* Makes room for the task's dep-pool nodes, spilled fanin edges and
 * tensormap inserts.  The dep-pool need only shrinks while waiting (every
 * pending producer was submitted earlier and completes on its own), so a
 * short dep pool is back-pressure, re-counted at each step; only the spill
 * pool, which keeps every edge, can be a request that never fits. */
static int rt_reserve_edges(pto_runtime *rt, int r, uint32_t inserts, uint64_t wait_edges)
{
    rt_ring *ring = &rt->rings[r];
    uint64_t spill = rt->num_edges > RT_FANIN_INLINE_CAP ? rt->num_edges - RT_FANIN_INLINE_CAP : 0;
    uint64_t deps = wait_edges;
    if (spill > ring->spill.cap) return rt_diagnose_never_fits(rt, r, RT_RES_SPILL, spill);
    if (inserts > rt_tm_free_count(&rt->tm)) rt_tm_reclaim_all(&rt->tm);
    rt_wait w;
    int waiting = 0;
    for (;;) {
        rt_ring_reclaim(ring);
        /* Reading the producers' states costs a cache miss each: only when
         * the upper bound does not fit. */
        if (!rt_pool_has_room(&ring->deps, deps)) deps = rt_wait_edges(rt, 0);
        rt_resource short_of;
        uint64_t need;
        if (!rt_pool_has_room(&ring->spill, spill)) short_of = RT_RES_SPILL, need = spill;
        else if (!rt_pool_has_room(&ring->deps, deps)) short_of = RT_RES_DEP_POOL, need = deps;
        else if (inserts > rt_tm_free_count(&rt->tm)) short_of = RT_RES_TENSORMAP, need = inserts;
        else return 0;
        if (!waiting) rt_wait_begin(rt, &w), waiting = 1;
        int rc = rt_wait_step(rt, &w, r, short_of, need);
        if (rc) return rc;
        if (short_of == RT_RES_TENSORMAP && (w.spins++ & 31) == 0) rt_tm_reclaim_all(&rt->tm);
    }
}

/* ---- wiring ------------------------------------------------------------------ */

static void rt_store_fanin(rt_ring *ring, uint32_t local, rt_slot *s, const uint64_t *edges,
                           uint32_t n)
{
    uint32_t inl = n < RT_FANIN_INLINE_CAP ? n : RT_FANIN_INLINE_CAP;
    if (inl) {
        s->fanin = rt_ring_record(ring, local, inl * sizeof *edges);
        memcpy(s->fanin, edges, inl * sizeof *edges);
    }
    s->spill_start = ring->spill.top;
    for (uint32_t i = inl; i < n; i++) *(uint64_t *)rt_pool_take(&ring->spill) = edges[i];
    s->spill_mark = ring->spill.top;
    s->num_fanin = n;
}

/* Wires every edge; returns how many WAIT edges need no arrival (producer
 * done).  A WAIT edge to a pending producer takes a node on its fanout list;
 * a RETAIN edge pins its producer until this task completes. */
static uint32_t rt_wire(pto_runtime *rt, rt_ring *ring, pto_task_id id)
{
    uint32_t done = 0;
    for (uint32_t i = 0; i < rt->num_edges; i++) {
        uint64_t e = rt->edges[i];
        int wait = (e & RT_DEP_WAIT) != 0;
        pto_task_id pid = RT_EDGE_ID(e);
        rt_ring *pring = &rt->rings[rt_task_ring(pid)];
        uint32_t pl = rt_task_local(pid);
        if (rt_local_before(pl, atomic_load_explicit(&pring->last_alive, memory_order_acquire))) {
            rt->edges[i] = e & ~RT_DEP_RETAIN; /* retired: nothing to pin or release */
            done += wait;
            continue;
        }
        rt_slot *ps = rt_ring_slot(pring, pl);
        /* A finished producer needs no lock unless it must be pinned. */
        if (!(e & RT_DEP_RETAIN) &&
            atomic_load_explicit(&ps->state, memory_order_acquire) != RT_TASK_PENDING) {
            done++;
            continue;
        }
        rt_spin_lock(&ps->lock);
        uint32_t st = atomic_load_explicit(&ps->state, memory_order_relaxed);
        if (wait && st == RT_TASK_PENDING) {
            rt_dep_node *node = rt_pool_take(&ring->deps);
            node->consumer = id;
            node->next = ps->fanout_head;
            ps->fanout_head = node;
        } else {
            done += wait;
        }
        /* RETAIN: the producer's outputs stay until this task completes. */
        if ((e & RT_DEP_RETAIN) && st != RT_TASK_CONSUMED) ps->fanout_count++;
        else rt->edges[i] = e & ~RT_DEP_RETAIN; /* nothing to release later */
        rt_spin_unlock(&ps->lock);
    }
    return done;
}

/* A submit that failed after taking its slot: complete the task without
 * running it, so the ring still drains (it holds no pins yet). */
static int rt_abandon(pto_runtime *rt, rt_slot *s, int rc)
{
    s->kernel = NULL;
    atomic_store_explicit(&s->state, RT_TASK_COMPLETED, memory_order_release);
    __atomic_store_n(&rt->orch_completed, rt->orch_completed + 1, __ATOMIC_RELAXED);
    return rc;
}

static int rt_submit(pto_runtime *rt, const pto_task *t, const pto_predicate *pred, int trusted, pto_task_id *id_out)
{
    rt_tm_key keys[PTO_MAX_TENSOR_ARGS];
    uint64_t out_bytes;
    uint32_t inserts;
    pto_task_id id;
    char *out;
    if (id_out) *id_out = PTO_INVALID_TASK_ID;
    int st = rt_api_enter(rt);
    if (st) return -st;
    rt_stats_run_open(rt);
    rt->submitting = PTO_INVALID_TASK_ID;
    if (!t) return rt_error_invalid(rt, "pto_task_submit", "task is NULL");
    int rc = 0;
    if (trusted) rt_trusted_boxes(rt, t, keys), out_bytes = 0;
    else rc = rt_validate(rt, t, keys, &out_bytes);
    RT_ASSERT(!trusted || !pred || !rt_pred_reason(t, pred));
    const char *bad = rc || trusted ? NULL : rt_pred_reason(t, pred);
    if (bad) return rt_error_invalid(rt, "pto_task_submit_if", bad);
    rt_slot *s = rc ? NULL : rt_task_open(rt, t, out_bytes, 0, &id, &out, &rc);
    if (!s) return rc;
    if (pred) s->has_pred = 1, s->pred = *pred; /* no worker sees the slot before it is ready */
    int r = rt_task_ring(id);
    uint32_t local = rt_task_local(id);
    rt_ring *ring = &rt->rings[r];
    for (uint32_t i = 0; i < t->num_args; i++) {
        pto_view *v = &t->args[i].view;
        if (t->args[i].tag == PTO_ARG_OUT) {
            int64_t stride = 1;
            for (int d = (int)v->ndims - 1; d >= 0; d--) {
                v->strides[d] = stride;
                stride *= (int64_t)v->shape[d];
            }
            v->addr = out;
            v->offset = 0;
            v->owner = id;
            out += rt_out_bytes(v);
        }
        s->views[i] = *v;
    }

    rt->epoch++;
    rt->num_edges = 0;
    rc = rt_collect(rt, t, keys, &inserts);
    uint64_t waits = rt_wait_edges(rt, 1);
    if (!rc) rc = rt_reserve_edges(rt, r, inserts, waits);
    if (rc) return rt_abandon(rt, s, rc);

    if (rt->manual_depth == 0) {
        for (uint32_t i = 0; i < t->num_args; i++) {
            pto_arg_tag tag = t->args[i].tag;
            if (tag == PTO_ARG_IN || tag == PTO_ARG_INOUT || tag == PTO_ARG_OUTPUT_EXISTING) {
                keys[i].box.view = &s->views[i]; /* entries live as long as the record */
                rt_tm_insert(&rt->tm, &keys[i], id, tag != PTO_ARG_IN);
            }
        }
        if (rt->tm.used > rt->tm_peak) rt->tm_peak = rt->tm.used;
    }
    s->fanin_count = (uint32_t)waits + 1;
    uint32_t done = rt_wire(rt, ring, id);
    rt_store_fanin(ring, local, s, rt->edges, rt->num_edges);
    s->dep_pool_mark = ring->deps.top;
    __atomic_store_n(&rt->submitted, rt->submitted + 1, __ATOMIC_RELAXED); /* a waiting kernel's diagnosis reads it */
    rt_ring_note_peaks(ring);
    /* The next submit's slot line is cold (a whole window ago): fetch it now. */
    __builtin_prefetch(rt_ring_slot(ring, local + 1), 1);
    __builtin_prefetch((char *)rt_ring_slot(ring, local + 1) + RT_CACHE_LINE, 1);
    uint32_t add = done + 1;
    if (atomic_fetch_add_explicit(&s->fanin_refcount, add, memory_order_acq_rel) + add == s->fanin_count)
        rt_task_push_ready(rt, id);
    if (id_out) *id_out = id;
    return 0;
}

static int rt_submit_named(pto_runtime *rt, const pto_task *t, const pto_predicate *pred, int trusted, pto_task_id *id_out)
{
    if (rt) rt->submitting_name = t ? t->name : NULL;
    int rc = rt_submit(rt, t, pred, trusted, id_out);
    if (rt) rt->submitting_name = NULL;
    return rt_api_leave(rt, rc);
}

int pto_task_submit_if(pto_runtime *rt, const pto_task *t, const pto_predicate *pred, pto_task_id *id_out)
{
    return rt_submit_named(rt, t, pred, 0, id_out);
}

int rt_task_submit_trusted(pto_runtime *rt, const pto_task *t, const pto_predicate *pred, pto_task_id *id_out)
{
    return rt_submit_named(rt, t, pred, 1, id_out);
}

int pto_task_submit(pto_runtime *rt, const pto_task *t, pto_task_id *id_out) { return pto_task_submit_if(rt, t, NULL, id_out); }

static int rt_tensor_alloc(pto_runtime *rt, size_t bytes, void **addr, pto_task_id *id_out)
{
    pto_task_id id;
    char *heap;
    int rc;
    if (addr) *addr = NULL;
    if (id_out) *id_out = PTO_INVALID_TASK_ID;
    int st = rt_api_enter(rt);
    if (st) return -st;
    rt_stats_run_open(rt);
    rt->submitting = PTO_INVALID_TASK_ID;
    if (!addr) return rt_error_invalid(rt, "pto_tensor_alloc", "addr is NULL");
    rt->req_outputs = 1;
    rt_slot *s = rt_task_open(rt, NULL, base_align_up(bytes, PTO_PACKED_OUTPUT_ALIGN), bytes, &id, &heap, &rc);
    if (!s) return rc;
    /* Completed at once; the advance stops at it only until its scope ends. */
    atomic_store_explicit(&s->state, RT_TASK_COMPLETED, memory_order_release);
    __atomic_store_n(&rt->orch_completed, rt->orch_completed + 1, __ATOMIC_RELAXED);
    rt_ring_note_peaks(&rt->rings[rt_task_ring(id)]);
    *addr = heap;
    if (id_out) *id_out = id;
    return 0;
}

int pto_tensor_alloc(pto_runtime *rt, size_t bytes, void **addr, pto_task_id *id_out)
{
    return rt_api_leave(rt, rt_tensor_alloc(rt, bytes, addr, id_out));
}
