/*
 * tile_vm.h - the tile VM: runs one kernel's tile program (lower.h) as one
 * task on a worker.  Written in tile_vm.c (the tile kernels' side); the
 * orchestration interpreter (orch_vm.c) hands it every task it submits.
 */
#ifndef EX_TILE_VM_H
#define EX_TILE_VM_H

#include "compiler/lower.h"
#include "pto/runtime.h"

/* Runs kernel (one of l->kernels) on the task's arguments: args->views are
 * the kernel's tensor parameters in order, each the task's box of the
 * tensor; args->scalars are its scalar parameters (each the 64 bits of
 * the orchestration register: int64, or a double for float dtypes), then per
 * tensor argument the box origin per dimension (int64), then per tensor
 * argument the whole tensor's shape per dimension (LOAD/STORE offsets are
 * whole-tensor coordinates).  Returns 0, or non-zero with args->message
 * naming the op and its file:line (the task fails, KERNEL_FAILED). */
int ex_tile_run(const cc_lowered *l, const cc_lo_proc *kernel, const pto_kernel_args *args);

#endif
