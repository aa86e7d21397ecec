/*
 * tensormap.c - dependency discovery index (see tensormap.h).
 *
 * Invariants: every allocated entry is on exactly one bucket chain and on
 * its task's chain; `used` counts allocated entries; a freed entry is on the
 * free stack.  Removing an entry a new writer covers is safe: any later
 * access overlapping it overlaps the covering writer, already ordered after
 * it.
 */
#include "runtime/tensormap.h"

#include "runtime/reserve.h"

int rt_tm_init(rt_tensormap *tm, rt_ring *rings, int *err_no)
{
    *tm = (rt_tensormap){0};
    tm->rings = rings;
    tm->pool = rt_reserve((PTO_TENSORMAP_POOL_SIZE + 1) * sizeof(rt_tm_entry), err_no);
    tm->free_stack = rt_reserve(PTO_TENSORMAP_POOL_SIZE * sizeof(uint32_t), err_no);
    tm->chains = rt_reserve(PTO_TENSORMAP_NUM_BUCKETS * sizeof(*tm->chains), err_no);
    if (tm->pool && tm->free_stack && tm->chains) return 0;
    rt_tm_destroy(tm);
    return -1;
}

void rt_tm_destroy(rt_tensormap *tm)
{
    rt_unreserve(tm->pool, (PTO_TENSORMAP_POOL_SIZE + 1) * sizeof(rt_tm_entry));
    rt_unreserve(tm->free_stack, PTO_TENSORMAP_POOL_SIZE * sizeof(uint32_t));
    rt_unreserve(tm->chains, PTO_TENSORMAP_NUM_BUCKETS * sizeof(*tm->chains));
    tm->pool = NULL;
    tm->free_stack = NULL;
    tm->chains = NULL;
}

static inline uint32_t rt_tm_bucket(const void *addr)
{
    return (uint32_t)(((uint64_t)(uintptr_t)addr * 0x9E3779B97F4A7C15ull) >> (64 - 12));
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

static void rt_tm_unlink_bucket(rt_tensormap *tm, rt_tm_entry *e)
{
    uint32_t *head = &tm->chains[e->bucket][e->writer ? 0 : 1];
    if (e->prev) tm->pool[e->prev].next = e->next;
    else *head = e->next;
    if (e->next) tm->pool[e->next].prev = e->prev;
    if (e->writer) tm->writers--;
    else tm->readers--;
    tm->used--;
}

/* Frees one entry of a live task (cover removal, reader pruning). */
static void rt_tm_free(rt_tensormap *tm, uint32_t i)
{
    rt_tm_entry *e = &tm->pool[i];
    rt_tm_unlink_bucket(tm, e);
    if (e->task_prev) tm->pool[e->task_prev].task_next = e->task_next;
    else rt_tm_slot(tm, e->task)->tm_head = e->task_next;
    if (e->task_next) tm->pool[e->task_next].task_prev = e->task_prev;
    tm->free_stack[tm->free_top++] = i;
}

static int rt_tm_walk(rt_tensormap *tm, uint32_t head, const rt_box *box, int readers,
                      int remove_covered, rt_tm_edge_fn edge, void *ctx)
{
    for (uint32_t i = head, next; i; i = next) {
        rt_tm_entry *e = &tm->pool[i];
        next = e->next;
        if (e->box.addr != box->addr || !rt_tm_live(tm, e->task)) continue;
        if (readers && atomic_load_explicit(&rt_tm_slot(tm, e->task)->state,
                                            memory_order_acquire) != RT_TASK_PENDING) {
            rt_tm_free(tm, i); /* a completed reader's WAR edge is satisfied */
            continue;
        }
        rt_overlap ov = rt_box_overlap(&e->box, box);
        if (ov == RT_NO_OVERLAP) continue;
        int rc = edge(ctx, e->task);
        if (rc) return rc;
        if (remove_covered && ov == RT_COVERED) rt_tm_free(tm, i);
    }
    return 0;
}

int rt_tm_lookup(rt_tensormap *tm, const rt_box *box, unsigned chains, int remove_covered,
                 rt_tm_edge_fn edge, void *ctx)
{
    uint32_t b = rt_tm_bucket(box->addr);
    int rc = 0;
    if (chains & RT_TM_WRITERS) rc = rt_tm_walk(tm, tm->chains[b][0], box, 0, remove_covered, edge, ctx);
    if (!rc && (chains & RT_TM_READERS))
        rc = rt_tm_walk(tm, tm->chains[b][1], box, 1, remove_covered, edge, ctx);
    return rc;
}

void rt_tm_insert(rt_tensormap *tm, const rt_box *box, pto_task_id task, int writer)
{
    uint32_t i = tm->free_top ? tm->free_stack[--tm->free_top] : ++tm->bumped;
    rt_tm_entry *e = &tm->pool[i];
    rt_slot *s = rt_tm_slot(tm, task);
    e->bucket = rt_tm_bucket(box->addr);
    e->writer = writer != 0;
    e->task = task;
    e->box = *box;
    uint32_t *head = &tm->chains[e->bucket][writer ? 0 : 1];
    e->prev = 0;
    e->next = *head;
    if (*head) tm->pool[*head].prev = i;
    *head = i;
    e->task_prev = 0;
    e->task_next = s->tm_head;
    if (s->tm_head) tm->pool[s->tm_head].task_prev = i;
    s->tm_head = i;
    if (writer) tm->writers++;
    else tm->readers++;
    tm->used++;
}

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
            rt_tm_unlink_bucket(tm, &tm->pool[i]);
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
        for (uint32_t i = tm->chains[b][1], next; i; i = next) {
            next = tm->pool[i].next;
            if (atomic_load_explicit(&rt_tm_slot(tm, tm->pool[i].task)->state,
                                     memory_order_acquire) != RT_TASK_PENDING)
                rt_tm_free(tm, i);
        }
    }
}
