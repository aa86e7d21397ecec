/*
 * tensormap.c - dependency discovery index (see tensormap.h).
 *
 * Invariants: every allocated entry is on its group's list of its kind, on
 * its task's chain and, if its group is gridded, on the chain of its cell
 * bucket; a group exists while it holds an entry; `used` counts allocated
 * entries; freed entries and groups are on their free stacks.  One probe
 * pass walks each cell bucket at most once (cell_stamp), so every entry is
 * reported at most once per lookup.  Removing an entry a new writer covers
 * is safe: any later access overlapping it overlaps the covering writer,
 * already ordered after it.
 */
#include "runtime/tensormap.h"

#include <string.h>

#include "runtime/reserve.h"

#define RT_TM_CELLS (1u << RT_TM_CELL_BITS)

/* The reserved arrays, in one table for init and destroy. */
static void **rt_tm_array(rt_tensormap *tm, int k, uint64_t *bytes)
{
    const uint64_t n = PTO_TENSORMAP_POOL_SIZE;
    switch (k) {
    case 0: *bytes = (n + 1) * sizeof(rt_tm_entry); return (void **)&tm->pool;
    case 1: *bytes = n * sizeof(uint32_t); return (void **)&tm->free_stack;
    case 2: *bytes = (n + 1) * sizeof(rt_tm_group); return (void **)&tm->groups;
    case 3: *bytes = n * sizeof(uint32_t); return (void **)&tm->group_free;
    case 4: *bytes = PTO_TENSORMAP_NUM_BUCKETS * sizeof(uint32_t); return (void **)&tm->group_chains;
    case 5: *bytes = RT_TM_CELLS * sizeof(*tm->cells); return (void **)&tm->cells;
    case 6: *bytes = RT_TM_CELLS * sizeof(uint32_t); return (void **)&tm->cell_stamp;
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

static inline uint8_t rt_ceil_log2(uint64_t n)
{
    return n <= 1 ? 0 : (uint8_t)(64 - __builtin_clzll(n - 1));
}

void rt_tm_key_init(rt_tm_key *key)
{
    const pto_view *v = key->box.view;
    key->gridded = key->box.hi > key->box.lo && rt_view_coords(v, key->start);
    if (key->gridded)
        for (uint32_t d = 0; d < v->ndims; d++) key->level[d] = rt_ceil_log2(v->shape[d]);
}

static inline uint32_t rt_tm_addr_bucket(const void *addr)
{
    return (uint32_t)(((uint64_t)(uintptr_t)addr * 0x9E3779B97F4A7C15ull) >> (64 - 12));
}

static inline uint32_t rt_tm_cell_bucket(uint32_t group, const int64_t *cell, uint32_t ndims)
{
    uint64_t h = (uint64_t)group * 0x9E3779B97F4A7C15ull;
    for (uint32_t d = 0; d < ndims; d++) h = (h ^ (uint64_t)cell[d]) * 0xff51afd7ed558ccdull;
    return (uint32_t)(h >> (64 - RT_TM_CELL_BITS));
}

void rt_tm_refresh(rt_tensormap *tm)
{
    for (int r = 0; r < PTO_NUM_RINGS; r++)
        tm->alive[r] = atomic_load_explicit(&tm->rings[r].last_alive, memory_order_acquire);
}

static inline int rt_tm_live(const rt_tensormap *tm, pto_task_id task)
{
    return !rt_local_before(rt_task_local(task), tm->alive[rt_task_ring(task)]);
}

static inline rt_slot *rt_tm_slot(const rt_tensormap *tm, pto_task_id task)
{
    return rt_ring_slot(&tm->rings[rt_task_ring(task)], rt_task_local(task));
}

/* ---- groups ------------------------------------------------------------- */

static int rt_tm_same_layout(const rt_tm_group *g, const pto_view *v)
{
    if (g->elem_size != v->elem_size || g->ndims != v->ndims) return 0;
    for (uint32_t d = 0; d < v->ndims; d++)
        if (g->strides[d] != v->strides[d]) return 0;
    return 1;
}

static int rt_tm_group_matches(const rt_tm_group *g, const rt_tm_key *key)
{
    if (g->addr != key->box.addr || g->gridded != (uint32_t)key->gridded) return 0;
    return !key->gridded ||
           (rt_tm_same_layout(g, key->box.view) && memcmp(g->level, key->level, g->ndims) == 0);
}

/* The group of key's entries, created if none exists. */
static uint32_t rt_tm_group_get(rt_tensormap *tm, const rt_tm_key *key)
{
    uint32_t b = rt_tm_addr_bucket(key->box.addr);
    for (uint32_t gi = tm->group_chains[b]; gi; gi = tm->groups[gi].next)
        if (rt_tm_group_matches(&tm->groups[gi], key)) return gi;
    uint32_t gi = tm->group_free_top ? tm->group_free[--tm->group_free_top] : ++tm->groups_bumped;
    rt_tm_group *g = &tm->groups[gi];
    const pto_view *v = key->box.view;
    *g = (rt_tm_group){.addr = key->box.addr, .bucket = b, .gridded = (uint32_t)key->gridded,
                       .elem_size = v->elem_size, .ndims = v->ndims};
    memcpy(g->strides, v->strides, v->ndims * sizeof *v->strides);
    if (key->gridded) memcpy(g->level, key->level, v->ndims);
    g->next = tm->group_chains[b];
    if (g->next) tm->groups[g->next].prev = gi;
    tm->group_chains[b] = gi;
    return gi;
}

static void rt_tm_group_free(rt_tensormap *tm, uint32_t gi)
{
    rt_tm_group *g = &tm->groups[gi];
    if (g->prev) tm->groups[g->prev].next = g->next;
    else tm->group_chains[g->bucket] = g->next;
    if (g->next) tm->groups[g->next].prev = g->prev;
    g->addr = NULL;
    tm->group_free[tm->group_free_top++] = gi;
}

/* ---- entries ------------------------------------------------------------ */

/* Takes an entry off its cell chain and its group's list (freeing the group
 * when it empties) and out of the counts. */
static void rt_tm_unlink(rt_tensormap *tm, rt_tm_entry *e)
{
    int kind = e->writer ? RT_TM_W : RT_TM_R;
    if (e->cell != RT_TM_NO_CELL) {
        if (e->prev) tm->pool[e->prev].next = e->next;
        else tm->cells[e->cell][kind] = e->next;
        if (e->next) tm->pool[e->next].prev = e->prev;
    }
    rt_tm_group *g = &tm->groups[e->group];
    if (e->gprev) tm->pool[e->gprev].gnext = e->gnext;
    else g->head[kind] = e->gnext;
    if (e->gnext) tm->pool[e->gnext].gprev = e->gprev;
    if (--g->count[kind] == 0 && g->count[!kind] == 0) rt_tm_group_free(tm, e->group);
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

void rt_tm_insert(rt_tensormap *tm, const rt_tm_key *key, pto_task_id task, int writer)
{
    uint32_t gi = rt_tm_group_get(tm, key);
    rt_tm_group *g = &tm->groups[gi];
    uint32_t i = tm->free_top ? tm->free_stack[--tm->free_top] : ++tm->bumped;
    rt_tm_entry *e = &tm->pool[i];
    rt_slot *s = rt_tm_slot(tm, task);
    int kind = writer ? RT_TM_W : RT_TM_R;
    e->group = gi;
    e->writer = writer != 0;
    e->task = task;
    e->box = key->box;
    e->gprev = 0;
    e->gnext = g->head[kind];
    if (e->gnext) tm->pool[e->gnext].gprev = i;
    g->head[kind] = i;
    g->count[kind]++;
    e->cell = RT_TM_NO_CELL;
    if (g->gridded) {
        int64_t cell[PTO_MAX_DIMS];
        for (uint32_t d = 0; d < g->ndims; d++) cell[d] = key->start[d] >> g->level[d];
        e->cell = rt_tm_cell_bucket(gi, cell, g->ndims);
        uint32_t *head = &tm->cells[e->cell][kind];
        e->prev = 0;
        e->next = *head;
        if (*head) tm->pool[*head].prev = i;
        *head = i;
    }
    e->task_prev = 0;
    e->task_next = s->tm_head;
    if (s->tm_head) tm->pool[s->tm_head].task_prev = i;
    s->tm_head = i;
    if (writer) tm->writers++;
    else tm->readers++;
    tm->used++;
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
    rt_overlap ov = rt_box_overlap(&e->box, &q->key->box);
    if (ov == RT_NO_OVERLAP) return 0;
    int rc = q->edge(q->ctx, e->task);
    if (!rc && q->remove_covered && ov == RT_COVERED) rt_tm_free(tm, i);
    return rc;
}

static int rt_tm_walk_group(rt_tensormap *tm, uint32_t gi, const rt_tm_query *q)
{
    for (uint32_t i = tm->groups[gi].head[q->kind], next; i; i = next) {
        next = tm->pool[i].gnext;
        int rc = rt_tm_visit(tm, i, q);
        if (rc) return rc;
    }
    return 0;
}

/* Visits the group's entries in the cells that may hold one overlapping the
 * query: per dimension from the cell before the query's first to its last
 * (an entry spans at most two cells).  Walks the group's list instead when
 * that is no longer than the cells to probe. */
static int rt_tm_probe_group(rt_tensormap *tm, uint32_t gi, const rt_tm_query *q)
{
    const rt_tm_group *g = &tm->groups[gi];
    const rt_tm_key *key = q->key;
    uint32_t nd = g->ndims;
    int64_t lo[PTO_MAX_DIMS], hi[PTO_MAX_DIMS], cell[PTO_MAX_DIMS];
    uint64_t cells = 1;
    for (uint32_t d = 0; d < nd; d++) {
        int64_t first = key->start[d] >> g->level[d];
        lo[d] = first > 0 ? first - 1 : 0;
        hi[d] = (key->start[d] + (int64_t)key->box.view->shape[d] - 1) >> g->level[d];
        uint64_t span = (uint64_t)(hi[d] - lo[d]) + 1;
        if (__builtin_mul_overflow(cells, span, &cells)) cells = UINT64_MAX;
    }
    if (cells >= g->count[q->kind]) return rt_tm_walk_group(tm, gi, q);
    if (++tm->stamp == 0) { /* wrapped: no stale stamp may match a pass */
        memset(tm->cell_stamp, 0, RT_TM_CELLS * sizeof *tm->cell_stamp);
        tm->stamp = 1;
    }
    memcpy(cell, lo, nd * sizeof *lo);
    for (;;) {
        uint32_t b = rt_tm_cell_bucket(gi, cell, nd);
        if (tm->cell_stamp[b] != tm->stamp) {
            tm->cell_stamp[b] = tm->stamp;
            for (uint32_t i = tm->cells[b][q->kind], next; i; i = next) {
                next = tm->pool[i].next;
                if (tm->pool[i].group != gi) continue;
                int rc = rt_tm_visit(tm, i, q);
                if (rc) return rc;
            }
        }
        int d = (int)nd - 1;
        while (d >= 0 && ++cell[d] > hi[d]) cell[d] = lo[d], d--;
        if (d < 0) return 0;
    }
}

int rt_tm_lookup(rt_tensormap *tm, const rt_tm_key *key, unsigned kinds, int remove_covered,
                 rt_tm_edge_fn edge, void *ctx)
{
    uint32_t b = rt_tm_addr_bucket(key->box.addr);
    for (int kind = RT_TM_W; kind <= RT_TM_R; kind++) {
        if (!(kinds & (kind == RT_TM_W ? RT_TM_WRITERS : RT_TM_READERS))) continue;
        rt_tm_query q = {key, kind, remove_covered, edge, ctx};
        for (uint32_t gi = tm->group_chains[b], gnext; gi; gi = gnext) {
            const rt_tm_group *g = &tm->groups[gi];
            gnext = g->next; /* g may be freed when its last entry goes */
            if (g->addr != key->box.addr || !g->count[kind]) continue;
            int rc = key->gridded && g->gridded && rt_tm_same_layout(g, key->box.view)
                         ? rt_tm_probe_group(tm, gi, &q)
                         : rt_tm_walk_group(tm, gi, &q);
            if (rc) return rc;
        }
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
}

void rt_tm_cleanup_due(rt_tensormap *tm, int r, uint32_t next_local)
{
    rt_ring *ring = &tm->rings[r];
    uint32_t cursor = ring->tm_cleanup_cursor;
    /* next_local - cursor >= window: some uncleaned retired task shares the
     * slot about to be reused, and its chain head is about to be reset. */
    if (tm->alive[r] - cursor >= PTO_TENSORMAP_CLEANUP_INTERVAL ||
        next_local - cursor >= ring->window)
        rt_tm_cleanup_ring(tm, r);
}

void rt_tm_reclaim_all(rt_tensormap *tm)
{
    rt_tm_refresh(tm);
    for (int r = 0; r < PTO_NUM_RINGS; r++) rt_tm_cleanup_ring(tm, r);
    for (uint32_t b = 0; b < PTO_TENSORMAP_NUM_BUCKETS; b++) {
        for (uint32_t gi = tm->group_chains[b], gnext; gi; gi = gnext) {
            gnext = tm->groups[gi].next;
            for (uint32_t i = tm->groups[gi].head[RT_TM_R], next; i; i = next) {
                next = tm->pool[i].gnext;
                if (atomic_load_explicit(&rt_tm_slot(tm, tm->pool[i].task)->state,
                                         memory_order_acquire) != RT_TASK_PENDING)
                    rt_tm_free(tm, i);
            }
        }
    }
}
