/*
 * trace.h - the opt-in per-task trace (trace.c): Chrome trace-event JSON,
 * one complete ("X") event per kernel task (per block of an SPMD task) with
 * its worker, ring, id and times, readable by chrome://tracing and Perfetto.
 *
 * Invariants: each executor appends only to its own buffer, and only while
 * it runs a task; the orchestrator writes the buffers out only when no task
 * is running (pto_runtime_finish after every task completed, or destroy
 * after the workers stopped), so the buffers need no lock.  When tracing is
 * off, rt->trace.file is NULL and the only cost is that one test per task.
 */
#ifndef RT_TRACE_H
#define RT_TRACE_H

#include <stdint.h>
#include <stdio.h>

#include "pto/runtime.h"

/* One kernel run; the name is copied (the caller's string may not outlive the task). */
typedef struct rt_trace_event {
    pto_task_id id;
    uint64_t start_ns, end_ns;
    uint32_t block, num_blocks; /* SPMD: which block of how many (num_blocks 1: a plain task) */
    char name[40];
} rt_trace_event;

/* An executor's events since the last write. */
typedef struct rt_trace_buf {
    rt_trace_event *ev;
    size_t n, cap;
    int dropped; /* an append found no memory: the event is lost, the run goes on */
} rt_trace_buf;

typedef struct rt_trace {
    FILE *file;  /* NULL: tracing is off */
    uint64_t t0; /* base_now_ns() at open: timestamps are relative to it */
    uint64_t dropped;
} rt_trace;

struct pto_runtime;

/* The trace file of cfg->trace_path, or of the PTO_TRACE environment
 * variable when that is NULL; NULL when neither is set. */
const char *rt_trace_path(const pto_config *cfg);
/* Opens path and writes the header and one name per executor (workers
 * 0..num_workers-1, then the orchestrator).  Returns 0, or -1 with errno. */
int rt_trace_open(rt_trace *t, const char *path, int num_workers);
/* Appends one event to b (the executor's own buffer). */
void rt_trace_record(rt_trace_buf *b, pto_task_id id, const char *name, uint64_t start_ns, uint64_t end_ns, uint32_t block,
                     uint32_t num_blocks);
/* Writes every executor's events and empties the buffers (no task running). */
void rt_trace_flush(struct pto_runtime *rt);
/* Flushes, ends the JSON array, closes the file, frees the buffers. */
void rt_trace_close(struct pto_runtime *rt);

#endif
