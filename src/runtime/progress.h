/*
 * progress.h - how much work the runtime has done, for stall detection and
 * for pto_runtime_finish: tasks executed (workers and the orchestrator),
 * tasks completed (plus alloc tasks) and, for progress, the watermarks.
 */
#ifndef RT_PROGRESS_H
#define RT_PROGRESS_H

#include <stdint.h>

#include "runtime/rt.h"

/* Tasks run to completion by every executor (workers and orchestrator). */
uint64_t rt_progress_executed(pto_runtime *rt);
/* Executed tasks plus alloc tasks (completed at submit). */
uint64_t rt_progress_completed(pto_runtime *rt);
/* Completions plus the four watermarks: grows whenever anything moves. */
uint64_t rt_progress_total(pto_runtime *rt);

#endif
