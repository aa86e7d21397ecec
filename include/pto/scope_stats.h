/*
 * pto/scope_stats.h - the scope-stats file: where it is and what it holds.
 *
 * The runtime writes it (enable_scope_stats) and pto-scope-stats reads it;
 * both take the schema from here.  NDJSON, compatible with the reference
 * PyPTO/simpler runtime's version 6: line 1 is the run's metadata, every
 * later line one scope boundary.  Keys appear in the order below; a ring
 * array holds rings 0..3.
 *
 * Line 1:  version, fatal, dropped, total, <resource>_max for each resource
 *          (a ring array of effective sizes), tensormap_max.
 * Records: site, phase ("begin" / "end"), depth, ring, <resource>_start and
 *          <resource>_end for each resource, tensormap, peak_<resource> for
 *          each resource, peak_tensormap.  The four peak keys are ours (true
 *          per-scope peaks); files of the reference runtime lack them.
 */
#ifndef PTO_SCOPE_STATS_H
#define PTO_SCOPE_STATS_H

#define PTO_SCOPE_STATS_VERSION 6

/* Where the file goes, below pto_config.output_prefix. */
#define PTO_SCOPE_STATS_PATH "scope_stats/scope_stats.jsonl"

/* The site of the implicit root scope (tasks outside any explicit scope). */
#define PTO_SCOPE_STATS_ROOT_SITE "(root):0"

/* The per-ring resources, in file order: X(name).  The tensormap, global,
 * follows them under its own keys. */
#define PTO_SCOPE_STATS_RESOURCES(X) X(task_window) X(heap) X(dep_pool)

#endif
