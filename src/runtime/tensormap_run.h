/*
 * tensormap_run.h - the tensormap's runs: a sweep's tiles as one record
 * (tensormap.h says what a run holds and when it is unfolded).
 *
 * Invariants: a run in use is on tm->run_head's list and in its
 * allocation's run[kind][slot]; it counts n - first tiles in tm->used (and
 * in tm->writers or tm->readers); while an allocation holds a run its
 * record stays.  Orchestrator only, as the tensormap.
 */
#ifndef RT_TENSORMAP_RUN_H
#define RT_TENSORMAP_RUN_H

#include "runtime/tensormap.h"

/* Records key's tile of task in a run of indexed allocation ai (continuing
 * one, or opening one in a free place); 0 when it must be an entry: its
 * view is not in task's record, it is not a box of the index's layout, or
 * no run continues and none is free. */
int rt_tm_run_insert(rt_tensormap *tm, uint32_t ai, rt_tm_key *key, pto_task_id task, int writer);

/* Reports the live tiles of ai's runs of the chosen kinds that overlap key
 * to edge (a writer's lookup, remove_covered, then drops those it covers);
 * runs that cannot answer exactly are unfolded into entries first, left
 * for the entries' lookup. */
int rt_tm_run_lookup(rt_tensormap *tm, uint32_t ai, rt_tm_key *key, unsigned kinds, int remove_covered,
                     rt_tm_edge_fn edge, void *ctx);

/* Drops the retired tiles of ring r's runs, freeing the runs left empty. */
void rt_tm_run_cleanup(rt_tensormap *tm, int r);

/* Unfolds every reader run into entries (pressure reclaim prunes those). */
void rt_tm_run_unfold_readers(rt_tensormap *tm);

#endif
