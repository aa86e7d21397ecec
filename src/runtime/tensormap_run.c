/*
 * tensormap_run.c - a sweep's tiles as one record (see tensormap_run.h).
 *
 * Invariants: a run's tiles are boxes of its allocation's index layout, so
 * two of them (or one and a query of that layout) overlap exactly when
 * their coordinate boxes meet, which is what rt_overlap_classify answers
 * for them; a run answers only such queries, and one it cannot answer is
 * unfolded first.  Tile k of a run is views[arg] of the record of its task
 * (ring, l0 + k * step), which stays while the task is live: unfolding
 * reads only live tiles.  Retirement is FIFO per ring, so a run's retired
 * tiles are a prefix of it.
 */
#include "runtime/tensormap_run.h"

static void rt_tm_run_count(rt_tensormap *tm, const rt_tm_run *u, uint32_t tiles, int add)
{
    uint32_t *kind = u->kind == RT_TM_W ? &tm->writers : &tm->readers;
    if (add) tm->used += tiles, *kind += tiles;
    else tm->used -= tiles, *kind -= tiles;
}

static inline pto_task_id rt_tm_run_task(const rt_tm_run *u, uint64_t k)
{
    return rt_task_id((int)u->ring, u->l0 + (uint32_t)k * u->step);
}

/* Frees run ri (its counted tiles leave `used`), and its allocation's
 * record once that holds nothing else. */
static void rt_tm_run_free(rt_tensormap *tm, uint32_t ri)
{
    rt_tm_run *u = &tm->runs[ri];
    rt_tm_run_count(tm, u, u->n - u->first, 0);
    rt_tm_alloc *a = &tm->allocs[u->alloc];
    uint32_t last = a->run[u->kind][--a->nrun[u->kind]]; /* the last run takes its place */
    a->run[u->kind][u->slot] = last;
    tm->runs[last].slot = u->slot;
    if (u->prev) tm->runs[u->prev].next = u->next;
    else tm->run_head = u->next;
    if (u->next) tm->runs[u->next].prev = u->prev;
    u->next = tm->run_free;
    tm->run_free = ri;
    rt_tm_alloc_release(tm, u->alloc);
}

/* Turns run ri's live tiles back into entries and frees it. */
static void rt_tm_run_unfold(rt_tensormap *tm, uint32_t ri)
{
    rt_tm_run *u = &tm->runs[ri];
    uint32_t first = u->first;
    rt_tm_run_count(tm, u, u->n - first, 0);
    u->first = u->n; /* the entries count instead */
    for (uint64_t k = first; k < u->n; k++) {
        pto_task_id task = rt_tm_run_task(u, k);
        if (!rt_tm_live(tm, task)) continue; /* its record may be reused */
        rt_tm_key key;
        rt_overlap_box(&rt_tm_slot(tm, task)->views[u->arg], &key.box);
        rt_tm_key_init(&key);
        rt_tm_entry_insert(tm, u->alloc, &key, task, u->kind == RT_TM_W);
    }
    rt_tm_run_free(tm, ri);
}

#define RT_TM_RUN_MAX (1u << 30) /* tiles in one run, at most: n never wraps */

/* Whether view v of (ring, local), argument arg, is the next tile of u,
 * which holds two or more: its offset, task and shape follow, and the
 * layout has room; then its coordinates are the next tile's (a box's
 * offset decomposes into its coordinates one way only). */
static int rt_tm_run_next(const rt_tm_run *u, const rt_tm_alloc *a, const pto_view *v, uint32_t ring,
                          uint32_t local, uint32_t arg)
{
    if (u->step == 0 || local != u->l0 + u->n * u->step || v->offset != u->off0 + (int64_t)u->n * u->doff ||
        u->ring != ring || u->arg != arg || u->n >= u->nmax || !rt_tm_same_layout(a, v))
        return 0;
    uint32_t d = 0;
    while (d < v->ndims && u->ext[d] == (int64_t)v->shape[d]) d++;
    return d == v->ndims;
}

/* Whether key (a box of the index's layout) of (ring, local), argument
 * arg, is the second tile of u, which holds one: the same shape, beside it
 * in one dimension.  Then that dimension, the step and the room are set.
 * Inserts come in submit order, so the task is a later local of the ring,
 * or the same task (another argument): the step is never 0. */
static int rt_tm_run_second(rt_tm_run *u, const rt_tm_alloc *a, const rt_tm_key *key, uint32_t ring,
                            uint32_t local, uint32_t arg)
{
    const pto_view *v = key->box.view;
    if (u->step != 0 || u->ring != ring || u->arg != arg) return 0;
    uint32_t dim = 0, differ = 0;
    for (uint32_t d = 0; d < v->ndims; d++) {
        if (u->ext[d] != (int64_t)v->shape[d]) return 0;
        if (key->start[d] != u->start[d]) differ++, dim = d;
    }
    if (differ != 1 || key->start[dim] != u->start[dim] + u->ext[dim]) return 0;
    int64_t room = dim ? (a->strides[dim - 1] / a->strides[dim] - u->start[dim]) / u->ext[dim] : RT_TM_RUN_MAX;
    u->dim = (uint8_t)dim;
    u->step = local - u->l0;
    u->doff = v->offset - u->off0;
    u->nmax = room < RT_TM_RUN_MAX ? (uint32_t)room : RT_TM_RUN_MAX;
    return 1;
}

/* Holds key's tile as u's next one. */
static void rt_tm_run_extend(rt_tensormap *tm, rt_tm_alloc *a, rt_tm_run *u, const rt_tm_key *key)
{
    u->n++;
    u->hi = key->box.hi;
    if (u->hi > a->run_hi) a->run_hi = u->hi;
    rt_tm_run_count(tm, u, 1, 1);
}

int rt_tm_run_insert(rt_tensormap *tm, uint32_t ai, rt_tm_key *key, pto_task_id task, int writer)
{
    rt_tm_alloc *a = &tm->allocs[ai];
    const rt_slot *s = rt_tm_slot(tm, task);
    const pto_view *v = key->box.view;
    if (!s->views || v < s->views || v >= s->views + s->num_views) return 0;
    int kind = writer ? RT_TM_W : RT_TM_R;
    uint32_t ring = (uint32_t)rt_task_ring(task), local = rt_task_local(task), arg = (uint32_t)(v - s->views);
    for (uint32_t j = 0; j < a->nrun[kind]; j++) { /* the common case: no coordinates needed */
        rt_tm_run *u = &tm->runs[a->run[kind][j]];
        if (rt_tm_run_next(u, a, v, ring, local, arg)) {
            rt_tm_run_extend(tm, a, u, key);
            return 1;
        }
    }
    rt_tm_key_compute(key);
    if (!key->gridded || !rt_tm_same_layout(a, v)) return 0;
    for (uint32_t j = 0; j < a->nrun[kind]; j++) {
        rt_tm_run *u = &tm->runs[a->run[kind][j]];
        if (rt_tm_run_second(u, a, key, ring, local, arg)) {
            rt_tm_run_extend(tm, a, u, key);
            return 1;
        }
    }
    if (a->nrun[kind] == RT_TM_RUNS) return 0;
    uint32_t ri = tm->run_free;
    if (ri) tm->run_free = tm->runs[ri].next;
    else if (tm->runs_bumped < RT_TM_RUN_POOL) ri = ++tm->runs_bumped;
    else return 0;
    rt_tm_run *u = &tm->runs[ri];
    *u = (rt_tm_run){.next = tm->run_head, .alloc = ai, .kind = (uint8_t)kind, .slot = (uint8_t)a->nrun[kind],
                     .arg = (uint8_t)arg, .ring = ring, .l0 = local, .n = 1, .nmax = RT_TM_RUN_MAX,
                     .off0 = v->offset, .lo = key->box.lo, .hi = key->box.hi};
    for (uint32_t d = 0; d < v->ndims; d++) u->start[d] = key->start[d], u->ext[d] = (int64_t)v->shape[d];
    if (u->next) tm->runs[u->next].prev = ri;
    tm->run_head = ri;
    if (!rt_tm_alloc_runs(a)) a->run_lo = u->lo, a->run_hi = u->hi;
    if (u->lo < a->run_lo) a->run_lo = u->lo;
    if (u->hi > a->run_hi) a->run_hi = u->hi;
    a->run[kind][a->nrun[kind]++] = ri;
    rt_tm_run_count(tm, u, 1, 1);
    return 1;
}

static inline int64_t rt_tm_div(int64_t x, int64_t e) { return e == 1 ? x : x / e; }

/* Run ri against key, a box of the index's layout: reports its live tiles
 * that meet key (pending ones, for readers) and, for a writer's lookup,
 * drops the covered ones at either end (a cover in the middle unfolds it). */
static int rt_tm_run_visit(rt_tensormap *tm, uint32_t ri, const rt_tm_key *key, int remove_covered,
                           rt_tm_edge_fn edge, void *ctx)
{
    rt_tm_run *u = &tm->runs[ri];
    uint32_t dim = u->dim;
    int covers = 1;
    for (uint32_t d = 0; d < key->box.view->ndims; d++) {
        if (d == dim) continue;
        int64_t lo = key->start[d], hi = rt_tm_key_end(key, d), tlo = u->start[d], thi = tlo + u->ext[d];
        if (hi <= tlo || thi <= lo) return 0;
        covers &= lo <= tlo && thi <= hi;
    }
    /* along the run: tile k spans [k e, (k + 1) e) from the run's start */
    int64_t e = u->ext[dim], qs = key->start[dim] - u->start[dim], qe = rt_tm_key_end(key, dim) - u->start[dim];
    if (qe <= (int64_t)u->first * e || qs >= (int64_t)u->n * e) return 0;
    uint64_t lo = qs <= 0 ? 0 : (uint64_t)rt_tm_div(qs, e), hi = (uint64_t)rt_tm_div(qe + e - 1, e);
    if (lo < u->first) lo = u->first;
    if (hi > u->n) hi = u->n;
    tm->visits += hi - lo;
    uint64_t clo = qs <= 0 ? 0 : (uint64_t)rt_tm_div(qs + e - 1, e), chi = (uint64_t)rt_tm_div(qe, e);
    if (clo < lo) clo = lo;
    if (chi > hi) chi = hi;
    int drop = remove_covered && covers && clo < chi;
    if (drop && chi < u->n && clo > u->first) { /* not an end: the entries' lookup removes them */
        rt_tm_run_unfold(tm, ri);
        return 0;
    }
    for (uint64_t k = lo; k < hi; k++) {
        pto_task_id task = rt_tm_run_task(u, k);
        if (!rt_tm_live(tm, task)) continue;
        if (u->kind == RT_TM_R &&
            atomic_load_explicit(&rt_tm_slot(tm, task)->state, memory_order_acquire) != RT_TASK_PENDING)
            continue; /* a completed reader's WAR edge is satisfied */
        int rc = edge(ctx, task);
        if (rc) return rc;
    }
    if (!drop) return 0;
    if (chi == u->n) rt_tm_run_count(tm, u, u->n - (uint32_t)clo, 0), u->n = (uint32_t)clo;
    else rt_tm_run_count(tm, u, (uint32_t)chi - u->first, 0), u->first = (uint32_t)chi;
    if (u->first >= u->n) rt_tm_run_free(tm, ri);
    return 0;
}

int rt_tm_run_lookup(rt_tensormap *tm, uint32_t ai, rt_tm_key *key, unsigned kinds, int remove_covered,
                     rt_tm_edge_fn edge, void *ctx)
{
    rt_tm_alloc *a = &tm->allocs[ai];
    int exact = -1; /* whether key is a box of the index's layout: known at the first run it meets */
    for (int kind = RT_TM_W; kind <= RT_TM_R; kind++) {
        if (!(kinds & (kind == RT_TM_W ? RT_TM_WRITERS : RT_TM_READERS))) continue;
        /* A freed run's place takes the last one: the same j again.  An
         * unfold may free the record: its counts read 0 then. */
        for (uint32_t j = 0; j < a->nrun[kind];) {
            uint32_t ri = a->run[kind][j];
            const rt_tm_run *u = &tm->runs[ri];
            if (key->box.hi <= u->lo || u->hi <= key->box.lo) { /* bytes apart */
                j++;
                continue;
            }
            if (exact < 0) {
                rt_tm_key_compute(key);
                exact = key->gridded && rt_tm_same_layout(a, key->box.view);
            }
            int rc = 0;
            if (!exact) rt_tm_run_unfold(tm, ri);
            else rc = rt_tm_run_visit(tm, ri, key, remove_covered, edge, ctx);
            if (rc) return rc;
            if (j < a->nrun[kind] && a->run[kind][j] == ri) j++;
        }
    }
    return 0;
}

void rt_tm_run_cleanup(rt_tensormap *tm, int r)
{
    for (uint32_t ri = tm->run_head, next; ri; ri = next) {
        rt_tm_run *u = &tm->runs[ri];
        next = u->next;
        if (u->ring != (uint32_t)r) continue;
        int32_t gone = (int32_t)(tm->alive[r] - u->l0); /* locals of the run retired */
        if (gone > 0) {
            uint64_t k = u->step ? ((uint64_t)gone + u->step - 1) / u->step : 1;
            if (k > u->n) k = u->n;
            if (k > u->first) rt_tm_run_count(tm, u, (uint32_t)k - u->first, 0), u->first = (uint32_t)k;
        }
        if (u->first >= u->n) rt_tm_run_free(tm, ri); /* every tile retired or dropped */
    }
}

void rt_tm_run_unfold_readers(rt_tensormap *tm)
{
    for (uint32_t ri = tm->run_head, next; ri; ri = next) {
        next = tm->runs[ri].next;
        if (tm->runs[ri].kind == RT_TM_R) rt_tm_run_unfold(tm, ri);
    }
}
