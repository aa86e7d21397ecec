/*
 * pool.h - a circular pool of fixed-size entries with linear counters.
 *
 * Used twice per ring: the dependency pool (16-byte fanout nodes) and the
 * fanin spill pool (8-byte edges beyond the inline 64).  Counters start at 1
 * and only grow; entry index = counter % cap.  Entries are allocated by the
 * orchestrator in task order, so reclaiming is moving `tail` to the mark the
 * newest retired task recorded; tail never moves backwards.
 */
#ifndef RT_POOL_H
#define RT_POOL_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/check.h"

typedef struct rt_pool {
    char *base;       /* reserved cap * elem bytes */
    size_t elem;
    uint64_t cap;
    uint64_t top;     /* next counter to allocate */
    uint64_t tail;    /* oldest counter still in use */
    uint64_t high_water;
} rt_pool;

static inline uint64_t rt_pool_used(const rt_pool *p) { return p->top - p->tail; }
static inline int rt_pool_has_room(const rt_pool *p, uint64_t n) { return p->top - p->tail + n <= p->cap; }
static inline void *rt_pool_at(const rt_pool *p, uint64_t counter)
{
    return p->base + (counter % p->cap) * p->elem;
}

/* Takes the next entry (the caller checked rt_pool_has_room). */
static inline void *rt_pool_take(rt_pool *p)
{
    RT_ASSERT(p->top - p->tail < p->cap);
    void *e = rt_pool_at(p, p->top++);
    if (p->top - p->tail > p->high_water) p->high_water = p->top - p->tail;
    return e;
}

/* Frees every entry before counter mark (no-op if mark is behind tail). */
static inline void rt_pool_reclaim_to(rt_pool *p, uint64_t mark)
{
    if (mark > p->tail) p->tail = mark;
}

#endif
