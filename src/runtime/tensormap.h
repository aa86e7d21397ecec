/*
 * tensormap.h - which live tasks read and write which views.
 *
 * A global pool of PTO_TENSORMAP_POOL_SIZE entries, hashed by allocation base
 * into 4096 buckets; each bucket keeps a writer chain and a reader chain (a
 * read looks up writers only).  Each task's entries are also chained from
 * its slot, so a retired task's entries can be freed without a search.
 *
 * An entry is valid while its task has not retired (local >= the ring's
 * watermark, cached in `alive` at each submit); stale entries are skipped,
 * then freed by the periodic per-ring cleanup, by pressure reclaim, or when
 * a covering writer or a completed reader makes them useless.
 * Orchestrator only.
 */
#ifndef RT_TENSORMAP_H
#define RT_TENSORMAP_H

#include <stdint.h>

#include "runtime/overlap.h"
#include "runtime/ring.h"

#define PTO_TENSORMAP_NUM_BUCKETS 4096
#define PTO_TENSORMAP_CLEANUP_INTERVAL 64

typedef struct rt_tm_entry {
    uint32_t next, prev;           /* bucket chain; 0 = none */
    uint32_t task_next, task_prev; /* the task's chain; 0 = none */
    uint32_t bucket;
    uint32_t writer;
    pto_task_id task;
    rt_box box;
} rt_tm_entry;

typedef struct rt_tensormap {
    rt_tm_entry *pool;      /* index 0 unused */
    uint32_t *free_stack;
    uint32_t free_top;
    uint32_t bumped;        /* entries ever taken from the pool's untouched end */
    uint32_t used, readers, writers;
    uint32_t (*chains)[2];  /* per bucket: writers, readers */
    rt_ring *rings;         /* the runtime's four rings */
    uint32_t alive[PTO_NUM_RINGS]; /* cached watermarks */
} rt_tensormap;

/* Called for each live entry that a lookup finds; returns 0 or a status. */
typedef int (*rt_tm_edge_fn)(void *ctx, pto_task_id task);

int rt_tm_init(rt_tensormap *tm, rt_ring *rings, int *err_no);
void rt_tm_destroy(rt_tensormap *tm);

/* Refreshes the cached watermarks from the rings. */
void rt_tm_refresh(rt_tensormap *tm);

enum { RT_TM_WRITERS = 1, RT_TM_READERS = 2 };

/* Reports every live entry of the chosen chains (RT_TM_WRITERS and/or
 * RT_TM_READERS) overlapping box to edge, writers first; a writer's lookup
 * (remove_covered) then frees the entries it covers.  Completed readers met
 * on the way are pruned. */
int rt_tm_lookup(rt_tensormap *tm, const rt_box *box, unsigned chains, int remove_covered,
                 rt_tm_edge_fn edge, void *ctx);

/* Records that task reads (writer = 0) or writes box.  The caller made sure
 * an entry is free (rt_tm_free_count). */
void rt_tm_insert(rt_tensormap *tm, const rt_box *box, pto_task_id task, int writer);

static inline uint32_t rt_tm_free_count(const rt_tensormap *tm)
{
    return PTO_TENSORMAP_POOL_SIZE - tm->used;
}

/* Frees the entries of ring r's retired tasks, if due: the watermark moved
 * by the cleanup interval, or an uncleaned task shares next_local's slot. */
void rt_tm_cleanup_due(rt_tensormap *tm, int r, uint32_t next_local);

/* Pressure reclaim: cleans every ring and prunes completed readers. */
void rt_tm_reclaim_all(rt_tensormap *tm);

#endif
