/*
 * trusted.h - the executor's submit (exec/orch_vm.c), for tasks a compiled
 * program builds.  It is pto_task_submit_if without the checks the executor
 * has already made true, and nothing else differs: the same slot, edges,
 * tensormap entries and errors for the same task.
 *
 * What the caller guarantees (each is what rt_validate and rt_pred_reason
 * would otherwise check; PTO_CHECKS builds assert them):
 * - counts within PTO_MAX_TENSOR_ARGS / PTO_MAX_SCALAR_ARGS, arrays non-NULL
 *   where a count is non-zero;
 * - no PTO_ARG_OUT argument (the executor's outputs are existing tensors),
 *   every tag a known one;
 * - every view inside a tensor the executor bound or allocated: addr set,
 *   ndims in [1, 5], elem_size > 0, non-negative offset and strides, the
 *   last byte addressable; its owner PTO_INVALID_TASK_ID or a task of this
 *   runtime;
 * - every explicit dependency a task of this runtime;
 * - a predicate on an In argument of one element, of a known op and type.
 * The public C API keeps validating everything (bad input from C still gets
 * its error); tests run compiled programs both ways and compare the graphs.
 */
#ifndef RT_TRUSTED_H
#define RT_TRUSTED_H

#include "pto/runtime.h"

int rt_task_submit_trusted(pto_runtime *rt, const pto_task *t, const pto_predicate *pred, pto_task_id *id_out);

#endif
