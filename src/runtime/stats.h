/*
 * stats.h - scope stats (scope_stats.c): a record per scope boundary with
 * the ring's counters and true peaks, written as one file at the end of a
 * run or when a fatal is first seen.  No-ops when scope stats are off.
 */
#ifndef RT_STATS_H
#define RT_STATS_H

#include "runtime/rt.h"

/* Marks the start of a run at its first call (the root's begin record). */
void rt_stats_run_open(pto_runtime *rt);
/* The records of scope boundaries. */
void rt_stats_begin(pto_runtime *rt, rt_scope *s);
void rt_stats_end(pto_runtime *rt, rt_scope *s);
/* Writes the file (first time a fatal is seen, and at pto_runtime_finish). */
void rt_stats_write(pto_runtime *rt);
/* A fatal was latched: keeps the records up to it and writes them, once. */
void rt_stats_freeze(pto_runtime *rt);
/* mkdir -p for the directories of path (the last component is the file;
 * path is restored): 0, or -1 with errno. */
int rt_stats_mkdirs(char *path);

#endif
