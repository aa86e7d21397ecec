/*
 * predicate.h - a task's predicate (pto/runtime.h, pto_predicate, pto_task_submit_if): checked
 * at submit, evaluated by the worker when the task is ready (DSL-V2-SPEC §8,
 * D-pred).
 *
 * Invariant: a predicate that passed rt_pred_reason reads one element inside
 * its argument's view, so rt_pred_holds never reads outside it.
 */
#ifndef RT_PREDICATE_H
#define RT_PREDICATE_H

#include "pto/runtime.h"

/* Why predicate p of task t is invalid ("predicate: ..."), or NULL (p NULL, or valid). */
const char *rt_pred_reason(const pto_task *t, const pto_predicate *p);

/* Does the predicate hold over the task's views (as recorded at submit)? */
int rt_pred_holds(const pto_predicate *p, const pto_view *views);

#endif
