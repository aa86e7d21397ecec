/*
 * tensormap.h - which live tasks read and write which views.
 *
 * A global pool of PTO_TENSORMAP_POOL_SIZE entries.  The entries of one
 * allocation (one addr) hang off an allocation record, hashed by addr, on a
 * writer list and a reader list.  While an allocation holds few entries a
 * lookup walks its list.  Once it holds RT_TM_INDEX_AT entries it is
 * indexed: it picks one layout (elem_size, ndims, strides: the most common
 * among its entries) and up to RT_TM_SUBGRIDS cell sizes (per dimension
 * 2^level, the smallest power of two >= a view's extent); an entry of that
 * layout with box coordinates and one of those cell sizes is hashed by
 * (allocation, sub-grid, the cell of its start corner) into a cell table
 * with a writer and a reader chain per bucket; the rest stay on the
 * allocation's loose list.  An entry spans at most two cells per dimension,
 * so the entries that may overlap a query box sit in the cells from one
 * before the query's first to its last: a lookup probes those cells and
 * walks the loose list, or walks the whole list when that is shorter.  So a
 * lookup costs about the number of entries that may overlap, not the number
 * of entries of the allocation (tiles of one tensor, rows or columns alike).
 * Each task's entries are also chained from its slot, so a retired task's
 * entries are freed without a search.
 *
 * The fast path: once an allocation is indexed its record keeps an
 * envelope of its live entries (those at indexing, and every one since):
 * the union of their byte ranges and, while all of them are non-empty
 * boxes of the index's layout, up to RT_TM_ENV_BOXES bounding boxes of their
 * coordinates.  A new entry inside the current box stays there; one
 * beside it (the same extents but in one dimension, where the two abut:
 * the next tile of a sweep) grows it; any other opens another box (a sweep
 * turning a corner), taking a free one or one whose newest task has retired; with
 * none free the current box grows anyway.  A lookup apart from the byte
 * range, or apart in some dimension from every box not yet retired,
 * overlaps no live entry and returns at once, without a probe: tiles of a
 * sweep (slices, rows, columns) cost a compare or a few, whatever the
 * number of live tiles.  RT_TM_ENV_MISSES lookups in a row that meet a live
 * box (reading the tiles the last tasks wrote) stop the boxes for the
 * record's life (the byte range stays): they cost on every insert and
 * lookup and would answer none.
 *
 * Runs (tensormap_run.c): once an allocation is indexed, the tiles of a
 * sweep are one record, not one entry each.  A run holds the tiles that
 * follow each other in one dimension (each starts where the last ends, all
 * of one shape) of tasks of one ring whose locals follow at one step, each
 * the same argument of its task: tile k starts at start + k * shape along
 * the run's dimension and belongs to local l0 + k * step.  An insert that
 * continues a run of its kind is one compare per field, and a lookup finds
 * the tiles it meets by division (the same tile as the last writer, or
 * none), whatever the number of live tiles.  Each of a run's counted tiles
 * [first, n) counts in `used` as an entry would; retired tiles leave from
 * the front, covered ones from either end, and a run that cannot answer
 * exactly (a query of another layout, a cover in its middle, pruning under
 * pressure) is turned back into entries, read from its tasks' records.
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

#define RT_TM_NUM_BUCKETS 4096 /* allocations, by addr */
#define RT_TM_CELL_BITS 14             /* cell table: 16384 buckets */
#define RT_TM_INDEX_AT 16              /* entries of an allocation before it is indexed */
#define RT_TM_SUBGRIDS 4               /* cell sizes per indexed allocation */
#define RT_TM_CLEANUP_INTERVAL 64

enum { RT_TM_W = 0, RT_TM_R = 1 }; /* list index: writers, readers */
enum { RT_TM_LOOSE = 0xfe, RT_TM_UNINDEXED = 0xff }; /* rt_tm_entry.sub besides 0..3 */

typedef struct rt_tm_entry {
    uint32_t next, prev;           /* cell chain, or the loose list; 0 = none */
    uint32_t anext, aprev;         /* the allocation's list of its kind */
    uint32_t task_next, task_prev; /* the task's chain; 0 = none */
    uint32_t alloc;
    uint32_t cell;                 /* cell bucket (sub-grid entries) */
    uint8_t writer, sub;           /* sub-grid, RT_TM_LOOSE or RT_TM_UNINDEXED */
    pto_task_id task;
    rt_box box;
} rt_tm_entry;

#define RT_TM_ENV_BOXES 4
#define RT_TM_ENV_MISSES 256 /* lookups in a row inside a live box: the boxes stop (byte range only) */

/* One bounding box of the envelope: coordinates [lo, hi) per dimension
 * and its newest task (on one ring; mixed: never retired). */
typedef struct rt_tm_env_box {
    int64_t lo[PTO_MAX_DIMS], hi[PTO_MAX_DIMS];
    pto_task_id newest;
    uint8_t used, mixed;
} rt_tm_env_box;

/* The boxes of an allocation's envelope, in the index's layout; boxed = 0
 * once an entry is no box of it (then only the byte range holds). */
typedef struct rt_tm_envelope {
    uint8_t boxed, current;
    uint16_t misses;   /* box checks in a row that found the lookup inside a live box */
    rt_tm_env_box box[RT_TM_ENV_BOXES];
} rt_tm_envelope;

#define RT_TM_RUNS 4        /* runs per allocation and kind */
#define RT_TM_RUN_POOL 1024 /* runs in all */

/* A sweep's tiles (see above).  step = doff = 0 while it holds one tile. */
typedef struct rt_tm_run {
    uint32_t next, prev;          /* the list of runs in use (free ones: next) */
    uint32_t alloc;
    uint8_t kind, slot, dim, arg; /* RT_TM_W/R; its place in the allocation's run[kind] */
    uint32_t ring, l0, step;      /* tile k's task: (ring, l0 + k * step) */
    uint64_t lo, hi;              /* bytes: tile 0's start, the last tile's end (sweeps go up) */
    uint32_t first, n;            /* tiles [first, n) count in `used` */
    uint32_t nmax;                /* tiles its dimension has room for (capped) */
    int64_t off0, doff;           /* tile k's view offset: off0 + k * doff */
    int64_t start[PTO_MAX_DIMS];  /* tile 0's start, in the index's layout */
    int64_t ext[PTO_MAX_DIMS];    /* every tile's shape */
} rt_tm_run;

typedef struct rt_tm_alloc {
    void *addr;
    uint32_t next, prev, bucket;   /* addr bucket chain; 0 = none */
    uint64_t span_lo, span_hi;     /* indexed: the envelope's byte range */
    uint32_t head[2], count[2];    /* every entry, by kind */
    uint32_t loose[2];             /* indexed: entries in no sub-grid, by kind */
    uint32_t indexed;
    uint32_t elem_size, ndims;     /* indexed: the sub-grids' layout */
    int64_t strides[PTO_MAX_DIMS];
    uint64_t levels[RT_TM_SUBGRIDS];     /* cell level of dimension d in byte d */
    uint32_t sub_count[RT_TM_SUBGRIDS];  /* entries; 0 = a free sub-grid */
    rt_tm_envelope env;                  /* indexed only */
    uint32_t run[2][RT_TM_RUNS];         /* indexed: its runs by kind, the first nrun[kind] */
    uint32_t nrun[2];
    uint64_t run_lo, run_hi;             /* the bytes of its runs (while it has one) */
} rt_tm_alloc;

/* A view as the tensormap looks it up: its box and, computed when first
 * needed, whether box math applies (and the view is not empty), its start
 * coordinates and cell levels. */
typedef struct rt_tm_key {
    rt_box box;
    int computed, gridded;
    uint64_t levels;
    int64_t start[PTO_MAX_DIMS];
} rt_tm_key;

typedef struct rt_tensormap {
    rt_tm_entry *pool;      /* index 0 unused */
    uint32_t *free_stack;
    uint32_t free_top;
    uint32_t bumped;        /* entries ever taken from the pool's untouched end */
    uint32_t used, readers, writers;
    rt_tm_alloc *allocs;    /* index 0 unused; at most one per entry */
    uint32_t *alloc_free;
    uint32_t alloc_free_top, allocs_bumped;
    uint32_t *alloc_chains; /* per bucket: first allocation */
    uint32_t (*cells)[2];   /* per cell bucket: writers, readers */
    uint32_t *cell_stamp;   /* per cell bucket: the probe pass that walked it last */
    uint32_t stamp;
    rt_tm_run *runs;        /* RT_TM_RUN_POOL; index 0 unused */
    uint32_t run_head, run_free, runs_bumped; /* in use; free; ever taken */
    uint64_t visits;        /* entries (and run tiles) lookups examined: their cost (tests) */
    rt_ring *rings;         /* the runtime's four rings */
    uint32_t alive[PTO_NUM_RINGS]; /* cached watermarks */
    uint64_t failed_bytes;  /* after a failed rt_tm_init: the request refused */
} rt_tensormap;

/* Called for each live entry that a lookup finds; returns 0 or a status. */
typedef int (*rt_tm_edge_fn)(void *ctx, pto_task_id task);

/* Reserves the arrays; -1 with *err_no and tm->failed_bytes set, nothing
 * left reserved, when one is refused. */
int rt_tm_init(rt_tensormap *tm, rt_ring *rings, int *err_no);
void rt_tm_destroy(rt_tensormap *tm);

/* Readies a key whose box is set (rt_overlap_box_of). */
static inline void rt_tm_key_init(rt_tm_key *key) { key->computed = 0; }

/* ---- shared by tensormap.c and tensormap_run.c ---- */

static inline int rt_tm_live(const rt_tensormap *tm, pto_task_id task)
{
    return !rt_local_before(rt_task_local(task), tm->alive[rt_task_ring(task)]);
}

static inline rt_slot *rt_tm_slot(const rt_tensormap *tm, pto_task_id task)
{
    return rt_ring_slot(&tm->rings[rt_task_ring(task)], rt_task_local(task));
}

static inline int rt_tm_same_layout(const rt_tm_alloc *a, const pto_view *v)
{
    if (a->elem_size != v->elem_size || a->ndims != v->ndims) return 0;
    for (uint32_t d = 0; d < v->ndims; d++)
        if (a->strides[d] != v->strides[d]) return 0;
    return 1;
}

/* Where key's box ends in dimension d (its start is key->start[d]). */
static inline int64_t rt_tm_key_end(const rt_tm_key *key, uint32_t d)
{
    return key->start[d] + (int64_t)key->box.view->shape[d];
}

/* Computes a key's coordinates and cell levels, once. */
void rt_tm_key_fill(rt_tm_key *key);
static inline void rt_tm_key_compute(rt_tm_key *key)
{
    if (!key->computed) rt_tm_key_fill(key);
}

/* Records an entry of allocation ai (the path a run does not take). */
void rt_tm_entry_insert(rt_tensormap *tm, uint32_t ai, rt_tm_key *key, pto_task_id task, int writer);

static inline uint32_t rt_tm_alloc_runs(const rt_tm_alloc *a) { return a->nrun[RT_TM_W] + a->nrun[RT_TM_R]; }

/* Frees allocation record ai (unlinks it from its bucket). */
void rt_tm_alloc_free(rt_tensormap *tm, uint32_t ai);

/* Frees allocation record ai once it holds no entry and no run. */
static inline void rt_tm_alloc_release(rt_tensormap *tm, uint32_t ai)
{
    const rt_tm_alloc *a = &tm->allocs[ai];
    if (a->count[RT_TM_W] == 0 && a->count[RT_TM_R] == 0 && rt_tm_alloc_runs(a) == 0) rt_tm_alloc_free(tm, ai);
}

/* Refreshes the cached watermarks from the rings. */
void rt_tm_refresh(rt_tensormap *tm);

enum { RT_TM_WRITERS = 1, RT_TM_READERS = 2 };

/* Reports every live entry of the chosen kinds (RT_TM_WRITERS and/or
 * RT_TM_READERS) overlapping key's box to edge, each once; a
 * writer's lookup (remove_covered) then frees the entries it covers.
 * Completed readers met on the way are pruned. */
int rt_tm_lookup(rt_tensormap *tm, rt_tm_key *key, unsigned kinds, int remove_covered,
                 rt_tm_edge_fn edge, void *ctx);

/* Records that task reads (writer = 0) or writes key's box.  The caller made
 * sure an entry is free (rt_tm_free_count). */
void rt_tm_insert(rt_tensormap *tm, rt_tm_key *key, pto_task_id task, int writer);

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
