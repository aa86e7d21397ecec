/*
 * tensormap.c - dependency discovery index (see tensormap.h).
 *
 * Invariants: every allocated entry is on its allocation's list of its
 * kind and on its task's chain; in an indexed allocation it is also on the
 * chain of its cell bucket (sub = its sub-grid) or on the loose list of its
 * kind (sub = RT_TM_LOOSE); sub_count[s] counts the entries of sub-grid s.
 * An allocation record exists while it holds an entry or a run.  `used`
 * counts allocated entries and the runs' counted tiles; freed entries and
 * records are on their free stacks.
 * One probe pass walks each cell bucket at most once (cell_stamp), so every
 * entry is reported at most once per lookup.  Removing an entry a new
 * writer covers is safe: any later access overlapping it overlaps the
 * covering writer, already ordered after it.
 */
#include "runtime/tensormap.h"

#include <string.h>

#include "runtime/reserve.h"
#include "runtime/tensormap_run.h"

#define RT_TM_CELLS (1u << RT_TM_CELL_BITS)

/* The reserved arrays, in one table for init and destroy. */
static void **rt_tm_array(rt_tensormap *tm, int k, uint64_t *bytes)
{
    const uint64_t n = PTO_TENSORMAP_POOL_SIZE;
    switch (k) {
    case 0: *bytes = (n + 1) * sizeof(rt_tm_entry); return (void **)&tm->pool;
    case 1: *bytes = n * sizeof(uint32_t); return (void **)&tm->free_stack;
    case 2: *bytes = (n + 1) * sizeof(rt_tm_alloc); return (void **)&tm->allocs;
    case 3: *bytes = n * sizeof(uint32_t); return (void **)&tm->alloc_free;
    case 4: *bytes = RT_TM_NUM_BUCKETS * sizeof(uint32_t); return (void **)&tm->alloc_chains;
    case 5: *bytes = RT_TM_CELLS * sizeof(*tm->cells); return (void **)&tm->cells;
    case 6: *bytes = RT_TM_CELLS * sizeof(uint32_t); return (void **)&tm->cell_stamp;
    case 7: *bytes = (RT_TM_RUN_POOL + 1) * sizeof(rt_tm_run); return (void **)&tm->runs;
    default: return NULL;
    }
}

int rt_tm_init(rt_tensormap *tm, rt_ring *rings, int *err_no)
{
    *tm = (rt_tensormap){0};
    tm->rings = rings;
    uint64_t bytes;
    for (int k = 0; rt_tm_array(tm, k, &bytes); k++) {
        void **p = rt_tm_array(tm, k, &bytes);
        if (!(*p = rt_reserve(bytes, err_no))) {
            rt_tm_destroy(tm);
            tm->failed_bytes = bytes;
            return -1;
        }
    }
    return 0;
}

void rt_tm_destroy(rt_tensormap *tm)
{
    uint64_t bytes;
    for (int k = 0; rt_tm_array(tm, k, &bytes); k++) {
        void **p = rt_tm_array(tm, k, &bytes);
        rt_unreserve(*p, bytes);
        *p = NULL;
    }
}

void rt_tm_refresh(rt_tensormap *tm)
{
    for (int r = 0; r < PTO_NUM_RINGS; r++)
        tm->alive[r] = atomic_load_explicit(&tm->rings[r].last_alive, memory_order_acquire);
}

/* ---- keys, layouts, cells ---------------------------------------------- */

static inline uint8_t rt_ceil_log2(uint64_t n)
{
    return n <= 1 ? 0 : (uint8_t)(64 - __builtin_clzll(n - 1));
}

static inline unsigned rt_tm_level(uint64_t levels, uint32_t d)
{
    return (unsigned)(levels >> (8 * d)) & 0xff;
}

void rt_tm_key_fill(rt_tm_key *key)
{
    const pto_view *v = key->box.view;
    key->computed = 1;
    key->gridded = key->box.hi > key->box.lo && rt_overlap_coords(v, key->start);
    key->levels = 0;
    if (key->gridded)
        for (uint32_t d = 0; d < v->ndims; d++)
            key->levels |= (uint64_t)rt_ceil_log2(v->shape[d]) << (8 * d);
}

static inline uint32_t rt_tm_addr_bucket(const void *addr)
{
    return (uint32_t)(((uint64_t)(uintptr_t)addr * 0x9E3779B97F4A7C15ull) >> (64 - 12));
}

static inline uint32_t rt_tm_cell_bucket(uint32_t alloc, unsigned sub, const int64_t *cell,
                                         uint32_t ndims)
{
    uint64_t h = ((uint64_t)alloc * RT_TM_SUBGRIDS + sub) * 0x9E3779B97F4A7C15ull;
    for (uint32_t d = 0; d < ndims; d++) h = (h ^ (uint64_t)cell[d]) * 0xff51afd7ed558ccdull;
    return (uint32_t)(h >> (64 - RT_TM_CELL_BITS));
}

/* Prepends entry i to a doubly linked list through next/prev. */
static inline void rt_tm_push(rt_tensormap *tm, uint32_t *head, uint32_t i)
{
    tm->pool[i].prev = 0;
    tm->pool[i].next = *head;
    if (*head) tm->pool[*head].prev = i;
    *head = i;
}

static inline void rt_tm_remove(rt_tensormap *tm, uint32_t *head, const rt_tm_entry *e)
{
    if (e->prev) tm->pool[e->prev].next = e->next;
    else *head = e->next;
    if (e->next) tm->pool[e->next].prev = e->prev;
}

/* ---- allocations --------------------------------------------------------- */

static uint32_t rt_tm_alloc_find(const rt_tensormap *tm, const void *addr)
{
    uint32_t ai = tm->alloc_chains[rt_tm_addr_bucket(addr)];
    while (ai && tm->allocs[ai].addr != addr) ai = tm->allocs[ai].next;
    return ai;
}

static uint32_t rt_tm_alloc_get(rt_tensormap *tm, void *addr)
{
    uint32_t ai = rt_tm_alloc_find(tm, addr);
    if (ai) return ai;
    ai = tm->alloc_free_top ? tm->alloc_free[--tm->alloc_free_top] : ++tm->allocs_bumped;
    rt_tm_alloc *a = &tm->allocs[ai];
    uint32_t b = rt_tm_addr_bucket(addr);
    a->addr = addr;
    a->bucket = b;
    a->head[0] = a->head[1] = a->count[0] = a->count[1] = 0;
    a->indexed = 0;
    a->nrun[RT_TM_W] = a->nrun[RT_TM_R] = 0;
    a->prev = 0;
    a->next = tm->alloc_chains[b];
    if (a->next) tm->allocs[a->next].prev = ai;
    tm->alloc_chains[b] = ai;
    return ai;
}

void rt_tm_alloc_free(rt_tensormap *tm, uint32_t ai)
{
    rt_tm_alloc *a = &tm->allocs[ai];
    if (a->prev) tm->allocs[a->prev].next = a->next;
    else tm->alloc_chains[a->bucket] = a->next;
    if (a->next) tm->allocs[a->next].prev = a->prev;
    a->addr = NULL;
    tm->alloc_free[tm->alloc_free_top++] = ai;
}

/* ---- the envelope (the fast path) ---------------------------------------- */

/* Every task of the box retired: its newest did (FIFO per ring). */
static int rt_tm_env_retired(const rt_tensormap *tm, const rt_tm_env_box *b)
{
    return !b->mixed && !rt_tm_live(tm, b->newest);
}

static void rt_tm_env_note(rt_tm_env_box *b, pto_task_id task)
{
    if (rt_task_ring(task) != rt_task_ring(b->newest)) b->mixed = 1;
    else if (rt_local_before(rt_task_local(b->newest), rt_task_local(task))) b->newest = task;
}

static void rt_tm_env_span(rt_tm_alloc *a, const rt_tm_key *key)
{
    if (key->box.lo < a->span_lo) a->span_lo = key->box.lo;
    if (key->box.hi > a->span_hi) a->span_hi = key->box.hi;
}

/* Holds a new live entry (key of task) of an indexed allocation in the
 * envelope, whose boxes are in the index's layout: see tensormap.h. */
static void rt_tm_env_add(const rt_tensormap *tm, rt_tm_alloc *a, rt_tm_key *key, pto_task_id task)
{
    rt_tm_envelope *e = &a->env;
    rt_tm_env_span(a, key);
    if (!e->boxed) return;
    rt_tm_key_compute(key);
    if (!key->gridded || !rt_tm_same_layout(a, key->box.view)) {
        e->boxed = 0;
        return;
    }
    uint32_t nd = a->ndims;
    rt_tm_env_box *b = &e->box[e->current];
    if (b->used) {
        /* inside the box, or beside it: the same extents but in one
         * dimension, where the two abut (the box stays their union) */
        uint32_t differ = 0, dim = 0;
        int inside = 1;
        for (uint32_t d = 0; d < nd; d++) {
            int64_t lo = key->start[d], hi = rt_tm_key_end(key, d);
            inside &= lo >= b->lo[d] && hi <= b->hi[d];
            if (lo != b->lo[d] || hi != b->hi[d]) differ++, dim = d;
        }
        int64_t lo = key->start[dim], hi = rt_tm_key_end(key, dim);
        if (!inside && differ == 1 && lo == b->hi[dim]) b->hi[dim] = hi, inside = 1;
        else if (!inside && differ == 1 && hi == b->lo[dim]) b->lo[dim] = lo, inside = 1;
        int k = RT_TM_ENV_BOXES;
        if (!inside) { /* another box: a free one, else a retired one */
            for (k = 0; k < RT_TM_ENV_BOXES && e->box[k].used; k++) {}
            for (int j = 0; k == RT_TM_ENV_BOXES && j < RT_TM_ENV_BOXES; j++)
                if (rt_tm_env_retired(tm, &e->box[j])) k = j;
        }
        if (k == RT_TM_ENV_BOXES) { /* this box holds it (grown, when no other is free) */
            for (uint32_t d = 0; d < nd; d++) {
                if (key->start[d] < b->lo[d]) b->lo[d] = key->start[d];
                if (rt_tm_key_end(key, d) > b->hi[d]) b->hi[d] = rt_tm_key_end(key, d);
            }
            rt_tm_env_note(b, task);
            return;
        }
        e->current = (uint8_t)k;
        b = &e->box[k];
    }
    for (uint32_t d = 0; d < nd; d++) b->lo[d] = key->start[d], b->hi[d] = rt_tm_key_end(key, d);
    b->newest = task;
    b->used = 1, b->mixed = 0;
}

/* Whether key is apart from the envelope, so that no live entry overlaps it
 * (rt_overlap_classify answers NO_OVERLAP for each): its bytes apart from
 * all of theirs, or, in their one layout, one of its intervals apart from
 * each box not yet retired. */
static int rt_tm_env_apart(const rt_tensormap *tm, rt_tm_alloc *a, rt_tm_key *key)
{
    if (!a->indexed) return 0; /* a short list: the walk is as cheap */
    if (key->box.hi <= a->span_lo || a->span_hi <= key->box.lo) return 1;
    const rt_tm_envelope *e = &a->env;
    if (!e->boxed || !rt_tm_same_layout(a, key->box.view)) return 0;
    rt_tm_key_compute(key);
    if (!key->gridded) return 0;
    for (int k = 0; k < RT_TM_ENV_BOXES; k++) {
        const rt_tm_env_box *b = &e->box[k];
        if (!b->used || rt_tm_env_retired(tm, b)) continue;
        uint32_t d = 0;
        while (d < a->ndims && rt_tm_key_end(key, d) > b->lo[d] && b->hi[d] > key->start[d]) d++;
        if (d == a->ndims) { /* meets this box in every dimension */
            if (++a->env.misses == RT_TM_ENV_MISSES) a->env.boxed = 0;
            return 0;
        }
    }
    a->env.misses = 0; /* the boxes answered: the count restarts */
    return 1;
}

/* Puts entry i of an indexed allocation in its sub-grid's cell (taking a
 * free sub-grid for a new cell size) or on the loose list. */
static void rt_tm_place(rt_tensormap *tm, uint32_t i, rt_tm_key *key)
{
    rt_tm_entry *e = &tm->pool[i];
    rt_tm_alloc *a = &tm->allocs[e->alloc];
    int kind = e->writer ? RT_TM_W : RT_TM_R;
    rt_tm_key_compute(key);
    unsigned sub = RT_TM_LOOSE;
    if (key->gridded && rt_tm_same_layout(a, key->box.view)) {
        for (unsigned s = 0; s < RT_TM_SUBGRIDS; s++) {
            if (a->sub_count[s] && a->levels[s] == key->levels) {
                sub = s;
                break;
            }
            if (!a->sub_count[s] && sub == RT_TM_LOOSE) sub = s; /* first free */
        }
    }
    e->sub = (uint8_t)sub;
    if (sub == RT_TM_LOOSE) {
        rt_tm_push(tm, &a->loose[kind], i);
        return;
    }
    if (!a->sub_count[sub]++) a->levels[sub] = key->levels;
    int64_t cell[PTO_MAX_DIMS];
    for (uint32_t d = 0; d < a->ndims; d++) cell[d] = key->start[d] >> rt_tm_level(a->levels[sub], d);
    e->cell = rt_tm_cell_bucket(e->alloc, sub, cell, a->ndims);
    rt_tm_push(tm, &tm->cells[e->cell][kind], i);
}

/* The allocation reached RT_TM_INDEX_AT entries: pick the layout most of
 * them share and place every entry. */
static void rt_tm_index(rt_tensormap *tm, uint32_t ai)
{
    rt_tm_alloc *a = &tm->allocs[ai];
    rt_tm_key keys[RT_TM_INDEX_AT];
    uint32_t ids[RT_TM_INDEX_AT], n = 0;
    a->loose[0] = a->loose[1] = 0;
    a->span_lo = UINT64_MAX, a->span_hi = 0; /* the envelope of the live entries */
    a->env.boxed = 1, a->env.current = 0, a->env.misses = 0;
    for (int k = 0; k < RT_TM_ENV_BOXES; k++) a->env.box[k].used = 0;
    for (int kind = RT_TM_W; kind <= RT_TM_R; kind++)
        for (uint32_t i = a->head[kind]; i; i = tm->pool[i].anext) {
            int live = rt_tm_live(tm, tm->pool[i].task);
            if (!live || n == RT_TM_INDEX_AT) {
                if (live) { /* a live entry outside the boxes: its bytes only */
                    rt_tm_key k = {.box = tm->pool[i].box};
                    rt_tm_env_span(a, &k);
                    a->env.boxed = 0;
                }
                /* stale (its view's record may be reused): loose until freed */
                tm->pool[i].sub = RT_TM_LOOSE;
                rt_tm_push(tm, &a->loose[kind], i);
                continue;
            }
            keys[n] = (rt_tm_key){.box = tm->pool[i].box};
            rt_tm_key_compute(&keys[n]);
            ids[n++] = i;
        }
    uint32_t best = n, best_votes = 0;
    for (uint32_t j = 0; j < n; j++) {
        if (!keys[j].gridded) continue;
        const pto_view *v = keys[j].box.view;
        a->elem_size = v->elem_size, a->ndims = v->ndims;
        memcpy(a->strides, v->strides, v->ndims * sizeof *v->strides);
        uint32_t votes = 0;
        for (uint32_t k = 0; k < n; k++) votes += keys[k].gridded && rt_tm_same_layout(a, keys[k].box.view);
        if (votes > best_votes) best = j, best_votes = votes;
    }
    a->ndims = 0; /* no layout: every entry loose */
    if (best < n) {
        const pto_view *v = keys[best].box.view;
        a->elem_size = v->elem_size, a->ndims = v->ndims;
        memcpy(a->strides, v->strides, v->ndims * sizeof *v->strides);
    }
    a->indexed = 1;
    memset(a->sub_count, 0, sizeof a->sub_count);
    for (uint32_t j = 0; j < n; j++) {
        rt_tm_env_add(tm, a, &keys[j], tm->pool[ids[j]].task);
        rt_tm_place(tm, ids[j], &keys[j]);
    }
}

/* ---- entries ------------------------------------------------------------ */

/* Takes an entry off its allocation's lists and the counts, freeing the
 * allocation record when it empties. */
static void rt_tm_unlink(rt_tensormap *tm, rt_tm_entry *e)
{
    int kind = e->writer ? RT_TM_W : RT_TM_R;
    rt_tm_alloc *a = &tm->allocs[e->alloc];
    if (e->sub == RT_TM_LOOSE) {
        rt_tm_remove(tm, &a->loose[kind], e);
    } else if (e->sub != RT_TM_UNINDEXED) {
        rt_tm_remove(tm, &tm->cells[e->cell][kind], e);
        a->sub_count[e->sub]--;
    }
    if (e->aprev) tm->pool[e->aprev].anext = e->anext;
    else a->head[kind] = e->anext;
    if (e->anext) tm->pool[e->anext].aprev = e->aprev;
    if (--a->count[kind] == 0) rt_tm_alloc_release(tm, e->alloc);
    if (e->writer) tm->writers--;
    else tm->readers--;
    tm->used--;
}

/* Frees one entry of a live task (cover removal, reader pruning). */
static void rt_tm_free(rt_tensormap *tm, uint32_t i)
{
    rt_tm_entry *e = &tm->pool[i];
    rt_tm_unlink(tm, e);
    if (e->task_prev) tm->pool[e->task_prev].task_next = e->task_next;
    else rt_tm_slot(tm, e->task)->tm_head = e->task_next;
    if (e->task_next) tm->pool[e->task_next].task_prev = e->task_prev;
    tm->free_stack[tm->free_top++] = i;
}

/* The entry path of rt_tm_insert, inlined there (its hot path) and behind
 * rt_tm_entry_insert for the runs' unfolding. */
static inline __attribute__((always_inline)) void rt_tm_entry_add(rt_tensormap *tm, uint32_t ai, rt_tm_key *key,
                                                                  pto_task_id task, int writer)
{
    rt_tm_alloc *a = &tm->allocs[ai];
    uint32_t i = tm->free_top ? tm->free_stack[--tm->free_top] : ++tm->bumped;
    rt_tm_entry *e = &tm->pool[i];
    rt_slot *s = rt_tm_slot(tm, task);
    int kind = writer ? RT_TM_W : RT_TM_R;
    e->alloc = ai;
    e->writer = writer != 0;
    e->sub = RT_TM_UNINDEXED;
    e->task = task;
    e->box = key->box;
    e->aprev = 0;
    e->anext = a->head[kind];
    if (e->anext) tm->pool[e->anext].aprev = i;
    a->head[kind] = i;
    a->count[kind]++;
    if (a->indexed) rt_tm_env_add(tm, a, key, task), rt_tm_place(tm, i, key);
    else if (a->count[RT_TM_W] + a->count[RT_TM_R] >= RT_TM_INDEX_AT) rt_tm_index(tm, ai);
    e->task_prev = 0;
    e->task_next = s->tm_head;
    if (s->tm_head) tm->pool[s->tm_head].task_prev = i;
    s->tm_head = i;
    if (writer) tm->writers++;
    else tm->readers++;
    tm->used++;
}

void rt_tm_entry_insert(rt_tensormap *tm, uint32_t ai, rt_tm_key *key, pto_task_id task, int writer)
{
    rt_tm_entry_add(tm, ai, key, task, writer);
}

void rt_tm_insert(rt_tensormap *tm, rt_tm_key *key, pto_task_id task, int writer)
{
    RT_ASSERT(tm->used < PTO_TENSORMAP_POOL_SIZE);
    uint32_t ai = rt_tm_alloc_get(tm, key->box.addr);
    if (tm->allocs[ai].indexed && rt_tm_run_insert(tm, ai, key, task, writer)) return;
    rt_tm_entry_add(tm, ai, key, task, writer);
}

/* ---- lookup --------------------------------------------------------------- */

typedef struct rt_tm_query {
    const rt_tm_key *key;
    int kind, remove_covered;
    rt_tm_edge_fn edge;
    void *ctx;
} rt_tm_query;

/* One entry met by a lookup: skipped if stale, pruned if a completed
 * reader, reported if it overlaps, freed if a writer covers it. */
static int rt_tm_visit(rt_tensormap *tm, uint32_t i, const rt_tm_query *q)
{
    rt_tm_entry *e = &tm->pool[i];
    tm->visits++;
    if (!rt_tm_live(tm, e->task)) return 0;
    if (q->kind == RT_TM_R &&
        atomic_load_explicit(&rt_tm_slot(tm, e->task)->state, memory_order_acquire) != RT_TASK_PENDING) {
        rt_tm_free(tm, i); /* a completed reader's WAR edge is satisfied */
        return 0;
    }
    rt_overlap ov = rt_overlap_classify(&e->box, &q->key->box);
    if (ov == RT_NO_OVERLAP) return 0;
    int rc = q->edge(q->ctx, e->task);
    if (!rc && q->remove_covered && ov == RT_COVERED) rt_tm_free(tm, i);
    return rc;
}

/* Visits a list through anext (all = 1) or next (the loose list). */
static int rt_tm_walk(rt_tensormap *tm, uint32_t head, int all, const rt_tm_query *q)
{
    for (uint32_t i = head, next; i; i = next) {
        next = all ? tm->pool[i].anext : tm->pool[i].next;
        int rc = rt_tm_visit(tm, i, q);
        if (rc) return rc;
    }
    return 0;
}

/* The cells of sub-grid levels that may hold an entry overlapping the key:
 * per dimension from the cell before the key's first to its last (an entry
 * spans at most two cells).  Returns how many (saturating). */
static uint64_t rt_tm_cell_range(const rt_tm_key *key, uint64_t levels, uint32_t nd, int64_t *lo,
                                 int64_t *hi)
{
    uint64_t cells = 1;
    for (uint32_t d = 0; d < nd; d++) {
        unsigned l = rt_tm_level(levels, d);
        int64_t first = key->start[d] >> l;
        lo[d] = first > 0 ? first - 1 : 0;
        hi[d] = (key->start[d] + (int64_t)key->box.view->shape[d] - 1) >> l;
        if (__builtin_mul_overflow(cells, (uint64_t)(hi[d] - lo[d]) + 1, &cells)) return UINT64_MAX;
    }
    return cells;
}

/* Visits sub-grid sub's entries in the cells [lo, hi] (per dimension). */
static int rt_tm_probe(rt_tensormap *tm, uint32_t ai, unsigned sub, const int64_t *lo, const int64_t *hi,
                       const rt_tm_query *q)
{
    uint32_t nd = tm->allocs[ai].ndims;
    int64_t cell[PTO_MAX_DIMS];
    if (++tm->stamp == 0) { /* wrapped: no stale stamp may match a pass */
        memset(tm->cell_stamp, 0, RT_TM_CELLS * sizeof *tm->cell_stamp);
        tm->stamp = 1;
    }
    for (uint32_t d = 0; d < nd; d++) cell[d] = lo[d];
    for (;;) {
        uint32_t b = rt_tm_cell_bucket(ai, sub, cell, nd);
        if (tm->cell_stamp[b] != tm->stamp) {
            tm->cell_stamp[b] = tm->stamp;
            for (uint32_t i = tm->cells[b][q->kind], next; i; i = next) {
                const rt_tm_entry *e = &tm->pool[i];
                next = e->next;
                if (e->alloc != ai || e->sub != sub) continue;
                int rc = rt_tm_visit(tm, i, q);
                if (rc) return rc;
            }
        }
        int d = (int)nd - 1;
        while (d >= 0 && ++cell[d] > hi[d]) cell[d] = lo[d], d--;
        if (d < 0) return 0;
    }
}

/* One kind of one allocation: probe the sub-grids' cells and walk the
 * loose list, or walk everything when that is no more work. */
static int rt_tm_lookup_kind(rt_tensormap *tm, uint32_t ai, rt_tm_key *key, const rt_tm_query *q)
{
    rt_tm_alloc *a = &tm->allocs[ai];
    if (a->indexed) rt_tm_key_compute(key);
    if (!a->indexed || !key->gridded || !rt_tm_same_layout(a, key->box.view))
        return rt_tm_walk(tm, a->head[q->kind], 1, q);
    uint64_t cells = 0;
    int64_t lo[RT_TM_SUBGRIDS][PTO_MAX_DIMS], hi[RT_TM_SUBGRIDS][PTO_MAX_DIMS];
    for (unsigned s = 0; s < RT_TM_SUBGRIDS; s++)
        if (a->sub_count[s]) {
            uint64_t c = rt_tm_cell_range(key, a->levels[s], a->ndims, lo[s], hi[s]);
            cells = c > UINT64_MAX - cells ? UINT64_MAX : cells + c;
        }
    if (cells >= a->count[q->kind]) return rt_tm_walk(tm, a->head[q->kind], 1, q);
    for (unsigned s = 0; s < RT_TM_SUBGRIDS; s++) {
        /* a visit may free the record once it empties: counts read 0 then */
        if (!a->sub_count[s]) continue;
        int rc = rt_tm_probe(tm, ai, s, lo[s], hi[s], q);
        if (rc) return rc;
    }
    return rt_tm_walk(tm, a->loose[q->kind], 0, q);
}

int rt_tm_lookup(rt_tensormap *tm, rt_tm_key *key, unsigned kinds, int remove_covered,
                 rt_tm_edge_fn edge, void *ctx)
{
    uint32_t ai = rt_tm_alloc_find(tm, key->box.addr);
    if (!ai) return 0;
    const rt_tm_alloc *a = &tm->allocs[ai];
    if (rt_tm_alloc_runs(a) && key->box.hi > a->run_lo && a->run_hi > key->box.lo) {
        /* runs first: one that cannot answer becomes entries for the lookup below */
        int rc = rt_tm_run_lookup(tm, ai, key, kinds, remove_covered, edge, ctx);
        if (rc) return rc;
    }
    if (rt_tm_env_apart(tm, &tm->allocs[ai], key)) return 0;
    for (int kind = RT_TM_W; kind <= RT_TM_R; kind++) {
        if (!(kinds & (kind == RT_TM_W ? RT_TM_WRITERS : RT_TM_READERS)) || !tm->allocs[ai].count[kind])
            continue;
        rt_tm_query q = {key, kind, remove_covered, edge, ctx};
        int rc = rt_tm_lookup_kind(tm, ai, key, &q);
        if (rc) return rc;
    }
    return 0;
}

/* ---- reclaim ------------------------------------------------------------ */

/* Frees the entries of ring r's tasks in [cursor, watermark). */
static void rt_tm_cleanup_ring(rt_tensormap *tm, int r)
{
    rt_ring *ring = &tm->rings[r];
    uint32_t end = tm->alive[r];
    for (uint32_t l = ring->tm_cleanup_cursor; l != end; l++) {
        /* The whole chain dies: no need to unlink within it.  A slot is
         * never reused before its chain is cleaned (rt_tm_cleanup_due). */
        rt_slot *s = rt_ring_slot(ring, l);
        for (uint32_t i = s->tm_head; i; i = tm->pool[i].task_next) {
            rt_tm_unlink(tm, &tm->pool[i]);
            tm->free_stack[tm->free_top++] = i;
        }
        s->tm_head = 0;
    }
    ring->tm_cleanup_cursor = end;
    rt_tm_run_cleanup(tm, r);
}

void rt_tm_cleanup_due(rt_tensormap *tm, int r, uint32_t next_local)
{
    rt_ring *ring = &tm->rings[r];
    uint32_t cursor = ring->tm_cleanup_cursor;
    /* next_local - cursor >= window: some uncleaned retired task shares the
     * slot about to be reused, and its chain head is about to be reset. */
    if (tm->alive[r] - cursor >= RT_TM_CLEANUP_INTERVAL ||
        next_local - cursor >= ring->window)
        rt_tm_cleanup_ring(tm, r);
}

void rt_tm_reclaim_all(rt_tensormap *tm)
{
    rt_tm_refresh(tm);
    for (int r = 0; r < PTO_NUM_RINGS; r++) rt_tm_cleanup_ring(tm, r);
    rt_tm_run_unfold_readers(tm);
    for (uint32_t b = 0; b < RT_TM_NUM_BUCKETS; b++) {
        for (uint32_t ai = tm->alloc_chains[b], anext; ai; ai = anext) {
            anext = tm->allocs[ai].next;
            for (uint32_t i = tm->allocs[ai].head[RT_TM_R], next; i; i = next) {
                next = tm->pool[i].anext;
                if (atomic_load_explicit(&rt_tm_slot(tm, tm->pool[i].task)->state,
                                         memory_order_acquire) != RT_TASK_PENDING)
                    rt_tm_free(tm, i);
            }
        }
    }
}
