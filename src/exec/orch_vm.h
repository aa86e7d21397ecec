/*
 * orch_vm.h - the orchestration interpreter (internal): runs procs[0] of a
 * lowered program (compiler/program.h) on the calling thread against a
 * pto_runtime, one task submit per SUBMIT (the trusted one, runtime/trusted.h,
 * unless ex_orch_opts.checked), then pto_runtime_finish.
 *
 * The kernel a task runs is given as a function: pto_program_run passes
 * ex_tile_run (tile_vm.h); tests pass a recording one.
 */
#ifndef EX_ORCH_VM_H
#define EX_ORCH_VM_H

#include <stddef.h>
#include <stdint.h>

#include "compiler/program.h"
#include "exec/scalar.h"
#include "pto/compile.h"
#include "pto/run.h"
#include "pto/runtime.h"

/* What runs one task of kernel (one of l->kernels) on a worker: the
 * arguments as tile_vm.h describes them. */
typedef int (*ex_kernel_fn)(const cc_lowered *l, const cc_lo_proc *kernel, const pto_kernel_args *args);

/* A tensor slot: a strided view of one allocation.  shape, strides and
 * offset count elements; owner: the allocating task, or
 * PTO_INVALID_TASK_ID for caller memory.  A view's valid region (a
 * valid_shape=, or the part inside its tensor when the window runs past
 * the edge) is [0, shape[d] - hidden[d]); partial says some hidden[d] > 0.
 * Only the valid region lies in the allocation for sure: footprints, tasks
 * and element access stay inside it. */
typedef struct ex_tensor {
    void *base;
    uint8_t dtype; /* cc_dtype */
    uint8_t rank;
    int64_t shape[CC_MAX_RANK];
    int64_t strides[CC_MAX_RANK];
    int64_t offset;
    pto_task_id owner;
    uint8_t manual; /* a view of a manual_dep=True buffer: every task gets it PTO_ARG_NO_DEP */
    uint8_t partial;
    int64_t hidden[CC_MAX_RANK];
} ex_tensor;

/* x as a task argument's view (all of it). */
void ex_pto_view(const ex_tensor *x, pto_view *v);

/* The value of one entry parameter (kind: CC_LO_REG or CC_LO_TENSOR, as
 * procs[0].params says). */
typedef struct ex_value {
    uint8_t kind;
    ex_reg reg;
    ex_tensor tensor;
} ex_value;

/* Runs the entry procs[0] of l with its parameters params[0..nparams)
 * (nparams == procs[0].nparams), each task's kernel run_kernel, then
 * pto_runtime_finish.  Returns 0 or -code; the message is the runtime's
 * (pto_runtime_error(rt) after the call).  Interpreter errors (a zero
 * step, division by zero, too many scalars for a task) latch
 * PTO_EXPLICIT_ORCH_FATAL through pto_runtime_fail, citing file:line:col.
 * -PTO_OUT_OF_MEMORY with nothing latched: the interpreter's frames could
 * not be allocated, nothing ran (the caller says so). */
int ex_orch_run(pto_runtime *rt, const cc_lowered *l, ex_kernel_fn run_kernel, const ex_value *params, size_t nparams);

/* How ex_orch_run_with runs.  ex_orch_run takes checked from the environment
 * (PTO_CHECKED_SUBMIT=1) and no orch_end. */
typedef struct ex_orch_opts {
    int checked;       /* every SUBMIT through pto_task_submit_if (each view validated), not the
                        * executor's trusted submit (runtime/trusted.h): what tests compare it with */
    void (*orch_end)(void *arg); /* not NULL: called when the orchestration has ended, before
                                  * pto_runtime_finish (benchmarks: the submit-only time) */
    void *orch_end_arg;
    struct ex_host *host; /* not NULL: procs[0] is a host procedure run as one distributed call
                           * (host_interp.h), which runs its host instructions */
} ex_orch_opts;

/* ex_orch_run with opts (NULL: as ex_orch_run). */
int ex_orch_run_with(pto_runtime *rt, const cc_lowered *l, ex_kernel_fn run_kernel, const ex_value *params, size_t nparams,
                     const ex_orch_opts *opts);

/* Binds args (by name, or by position where name is NULL) to the entry's
 * parameters into params[0..procs[0].nparams) and checks each against the
 * compiled specialization (kind, dtype, rank, shape).  Returns 0, or
 * -PTO_INVALID_ARGS with err filled. */
int ex_bind(const cc_lowered *l, const pto_run_arg *args, size_t nargs, ex_value *params, pto_error *err);

#endif
