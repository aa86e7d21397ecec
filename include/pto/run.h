/*
 * pto/run.h - running a compiled DSL program (pto/compile.h) on a runtime
 * (pto/runtime.h): the orchestration is interpreted on the calling thread,
 * every InCore call becomes one task whose tile program a worker runs.
 *
 *   pto_run_arg args[] = {
 *       {.name = "a",   .value = {.kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .base = a,
 *                                 .rank = 2, .shape = {256, 128}}},
 *       {.name = "out", .value = {.kind = PTO_ARG_TENSOR, .dtype = PTO_DTYPE_FP32, .base = out,
 *                                 .rank = 2, .shape = {256, 128}}},
 *   };
 *   pto_error err;
 *   if (pto_program_run(rt, prog, args, 2, &err) != 0) fprintf(stderr, "%s\n", err.message);
 *
 * Results are written in place into the caller's tensors.
 */
#ifndef PTO_RUN_H
#define PTO_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "pto/compile.h"
#include "pto/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One argument's value.  A tensor is a strided view of caller memory:
 * base (the allocation's start: dependencies are computed per base),
 * shape, strides and offset in elements; strides all 0 means contiguous
 * (row-major).  A scalar is value (the compiled program specialized on
 * it; it is passed through as given). */
typedef struct pto_arg_value {
    pto_arg_kind kind; /* PTO_ARG_TENSOR or PTO_ARG_SCALAR */
    pto_dtype dtype;   /* TENSOR */
    void *base;        /* TENSOR */
    int rank;          /* TENSOR, 1..4 */
    int64_t shape[4];
    int64_t strides[4];
    int64_t offset;
    pto_value value;   /* SCALAR */
} pto_arg_value;

/* An argument bound by parameter name, or by position when name is NULL. */
typedef struct pto_run_arg {
    const char *name;
    pto_arg_value value;
} pto_run_arg;

/* Binds args to the entry's parameters (each exactly once; every parameter
 * is required), checks each tensor's dtype, rank and shape against the
 * specialization p was compiled for, runs the orchestration on the calling
 * thread, then pto_runtime_finish (every task done, the latch cleared, the
 * runtime reusable; scope stats written if the runtime's config enables
 * them).  Returns 0, or -code (pto_status) with err (if given) filled:
 * PTO_INVALID_ARGS for a program without lowered code or a bad argument,
 * PTO_OUT_OF_MEMORY when memory for the arguments or the interpreter ran
 * out before anything ran, otherwise the runtime's error and full message
 * (a capacity error, a failed kernel, or an orchestration error such as a
 * zero pl.range step, PTO_EXPLICIT_ORCH_FATAL, naming file:line:col).  A
 * kernel's error names file:line:col of its instruction; a kernel out of
 * memory for its workspace fails with rc -PTO_OUT_OF_MEMORY. */
int pto_program_run(pto_runtime *rt, const pto_program *p, const pto_run_arg *args, size_t nargs, pto_error *err);

/* One distributed call (DISTRIBUTED-SPEC §2.1) of a @pl.jit.host program:
 * the world is the registered transport's (one rank unless an MPI
 * transport registered itself).  pto_program_run runs such a program as
 * call 0 with device ids 0..P-1. */
typedef struct pto_run_dist {
    const int64_t *device_ids; /* rank r's label device_ids[r] (messages); NULL: r */
    size_t ndevice_ids;        /* the world size the caller compiled for (0: the transport's) */
    uint64_t call;             /* this process's distributed call number (the entry check) */
    const char *comm_stats_dir; /* receives comm_stats.json of the call (DISTRIBUTED-SPEC §2.7); NULL: none */
} pto_run_dist;

/* pto_program_run with dist (NULL: as pto_program_run); dist names a world
 * of another size than the transport's: PTO_INVALID_ARGS. */
int pto_program_run_dist(pto_runtime *rt, const pto_program *p, const pto_run_arg *args, size_t nargs, const pto_run_dist *dist,
                         pto_error *err);

#ifdef __cplusplus
}
#endif

#endif
