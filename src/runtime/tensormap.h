/*
 * tensormap.h - which live tasks read and write which views.
 *
 * A global pool of PTO_TENSORMAP_POOL_SIZE entries.  The entries of one
 * allocation (same addr) are split into groups: a group holds the entries
 * that share a layout (elem_size, ndims, strides) and a cell size (per
 * dimension 2^level, the smallest power of two >= the view's extent), or,
 * for views without box coordinates, every such entry of the allocation.
 * Groups are hashed by addr; each keeps a writer list and a reader list.
 * An entry of a gridded group is also hashed by (group, the cell of its
 * start corner) into a cell table with a writer and a reader chain per
 * bucket.  Since an entry spans at most two cells per dimension, the
 * entries that may overlap a query box sit in the cells from one before the
 * query's first cell to its last: a lookup probes those cells, or walks the
 * group's list when that is shorter.  So a lookup costs about the number of
 * entries that overlap, not the number of entries of the allocation (tiles
 * of one tensor, rows or columns alike).  Each task's entries are also
 * chained from its slot, so a retired task's entries are freed without a
 * search.
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

#define PTO_TENSORMAP_NUM_BUCKETS 4096 /* groups, by addr */
#define RT_TM_CELL_BITS 14             /* cell table: 16384 buckets */
#define PTO_TENSORMAP_CLEANUP_INTERVAL 64

enum { RT_TM_W = 0, RT_TM_R = 1 }; /* list index: writers, readers */

typedef struct rt_tm_entry {
    uint32_t next, prev;           /* cell chain; 0 = none */
    uint32_t gnext, gprev;         /* the group's list */
    uint32_t task_next, task_prev; /* the task's chain; 0 = none */
    uint32_t group;
    uint32_t cell;                 /* cell bucket, or RT_TM_NO_CELL */
    uint32_t writer;
    pto_task_id task;
    rt_box box;
} rt_tm_entry;

#define RT_TM_NO_CELL UINT32_MAX

typedef struct rt_tm_group {
    void *addr;
    uint32_t next, prev;     /* group bucket chain; 0 = none */
    uint32_t bucket;
    uint32_t head[2];        /* entries: writers, readers */
    uint32_t count[2];
    uint32_t gridded;        /* 0: views without box coordinates, lists only */
    uint32_t elem_size, ndims;
    int64_t strides[PTO_MAX_DIMS];
    uint8_t level[PTO_MAX_DIMS];
} rt_tm_group;

/* A view as the tensormap looks it up: its box and, when box math applies
 * and the view is not empty, its start coordinates and cell levels. */
typedef struct rt_tm_key {
    rt_box box;
    int gridded;
    int64_t start[PTO_MAX_DIMS];
    uint8_t level[PTO_MAX_DIMS];
} rt_tm_key;

typedef struct rt_tensormap {
    rt_tm_entry *pool;      /* index 0 unused */
    uint32_t *free_stack;
    uint32_t free_top;
    uint32_t bumped;        /* entries ever taken from the pool's untouched end */
    uint32_t used, readers, writers;
    rt_tm_group *groups;    /* index 0 unused; at most one per entry */
    uint32_t *group_free;
    uint32_t group_free_top, groups_bumped;
    uint32_t *group_chains; /* per bucket: first group */
    uint32_t (*cells)[2];   /* per cell bucket: writers, readers */
    uint32_t *cell_stamp;   /* per cell bucket: the probe pass that walked it last */
    uint32_t stamp;
    uint64_t visits;        /* entries lookups examined: their cost (tests) */
    rt_ring *rings;         /* the runtime's four rings */
    uint32_t alive[PTO_NUM_RINGS]; /* cached watermarks */
} rt_tensormap;

/* Called for each live entry that a lookup finds; returns 0 or a status. */
typedef int (*rt_tm_edge_fn)(void *ctx, pto_task_id task);

int rt_tm_init(rt_tensormap *tm, rt_ring *rings, int *err_no);
void rt_tm_destroy(rt_tensormap *tm);

/* Completes a key whose box is set (rt_box_from_view): its coordinates. */
void rt_tm_key_init(rt_tm_key *key);

/* Refreshes the cached watermarks from the rings. */
void rt_tm_refresh(rt_tensormap *tm);

enum { RT_TM_WRITERS = 1, RT_TM_READERS = 2 };

/* Reports every live entry of the chosen kinds (RT_TM_WRITERS and/or
 * RT_TM_READERS) overlapping key's box to edge, each once, writers first; a
 * writer's lookup (remove_covered) then frees the entries it covers.
 * Completed readers met on the way are pruned. */
int rt_tm_lookup(rt_tensormap *tm, const rt_tm_key *key, unsigned kinds, int remove_covered,
                 rt_tm_edge_fn edge, void *ctx);

/* Records that task reads (writer = 0) or writes key's box.  The caller made
 * sure an entry is free (rt_tm_free_count). */
void rt_tm_insert(rt_tensormap *tm, const rt_tm_key *key, pto_task_id task, int writer);

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
